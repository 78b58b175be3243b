// HttpServer.cpp - see HttpServer.h: the libmicrohttpd callbacks around serve::Service.
#include "serve/HttpServer.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <optional>

#include "serve/Mhd.h"

namespace ilmap::serve {

namespace {

using Clock = std::chrono::steady_clock;

// What one request carries from its first callback to its completion.
struct Exchange {
  Clock::time_point start = Clock::now();
  std::string method, path;
  std::string body;
  bool over = false;      // the body went past the cap while it streamed
  bool counted = false;   // counted in in_flight_
  bool answered = false;
  unsigned status = 0;
  std::size_t bytes = 0;
};

// A strict decimal Content-Length; nullopt when absent or not one (libmicrohttpd refuses a
// malformed one itself).
std::optional<std::uint64_t> parse_length(const char* v) {
  if (!v || !*v) return std::nullopt;
  std::uint64_t n = 0;
  for (const char* p = v; *p; ++p) {
    if (*p < '0' || *p > '9' || n > (UINT64_MAX - 9) / 10) return std::nullopt;
    n = n * 10 + std::uint64_t(*p - '0');
  }
  return n;
}

// A path as the access log prints it: bytes outside printable ASCII, space, '"', '\' and '%'
// as %XX, so a log line is always one line of space-separated key=value fields.
std::string log_path(std::string_view p) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (const unsigned char c : p) {
    if (c <= 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '%') {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    } else {
      out += char(c);
    }
  }
  return out.empty() ? "-" : out;
}

const char* ending(MHD_RequestTerminationCode toe) {
  switch (toe) {
    case MHD_REQUEST_TERMINATED_COMPLETED_OK: return "ok";
    case MHD_REQUEST_TERMINATED_TIMEOUT_REACHED: return "timeout";
    case MHD_REQUEST_TERMINATED_DAEMON_SHUTDOWN: return "shutdown";
    case MHD_REQUEST_TERMINATED_CLIENT_ABORT: return "aborted";
    case MHD_REQUEST_TERMINATED_READ_ERROR: return "read-error";
    default: return "error";
  }
}

const Mhd* g_mhd = nullptr;  // set by the first start(), before any callback can run

}  // namespace

struct HttpServer::Impl {
  static RequestHead head(MHD_Connection* c, const Exchange& x) {
    RequestHead h;
    h.method = x.method;
    h.path = x.path;
    const char* ct = g_mhd->lookup_connection_value(c, MHD_HEADER_KIND, "Content-Type");
    const char* auth = g_mhd->lookup_connection_value(c, MHD_HEADER_KIND, "Authorization");
    h.content_type = ct ? ct : "";
    h.authorization = auth ? auth : "";
    h.content_length = parse_length(g_mhd->lookup_connection_value(c, MHD_HEADER_KIND, "Content-Length"));
    return h;
  }

  static bool flag(MHD_Connection* c, const char* name) {
    const char* v = g_mhd->lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, name);
    return v && (std::string_view(v) == "1" || std::string_view(v) == "true" || std::string_view(v).empty());
  }

  // ?context=N: 0 to 100, decimal digits only.
  static std::optional<std::uint32_t> context_lines(std::string_view v) {
    if (v.empty() || v.size() > 3 || v.find_first_not_of("0123456789") != std::string_view::npos) return std::nullopt;
    std::uint32_t n = 0;
    for (const char ch : v) n = n * 10 + std::uint32_t(ch - '0');
    if (n > 100) return std::nullopt;
    return n;
  }

  static MHD_Result send(HttpServer& s, MHD_Connection* c, Exchange& x, const Response& r) {
    MHD_Response* resp = g_mhd->create_response_from_buffer(r.body.size(), const_cast<char*>(r.body.data()),
                                                            MHD_RESPMEM_MUST_COPY);
    if (!resp) return MHD_NO;
    g_mhd->add_response_header(resp, "Content-Type", r.content_type.c_str());
    for (const auto& [name, value] : r.headers) g_mhd->add_response_header(resp, name.c_str(), value.c_str());
    // While draining, a keep-alive client is told to go elsewhere for its next request.
    if (s.draining_.load()) g_mhd->add_response_header(resp, "Connection", "close");
    const MHD_Result ok = g_mhd->queue_response(c, r.status, resp);
    g_mhd->destroy_response(resp);
    x.answered = true;
    x.status = r.status;
    x.bytes = r.body.size();
    return ok;
  }

  static MHD_Result on_request(void* cls, MHD_Connection* c, const char* url, const char* method, const char*,
                               const char* upload, size_t* upload_size, void** con_cls) {
    HttpServer& s = *static_cast<HttpServer*>(cls);
    auto* x = static_cast<Exchange*>(*con_cls);
    if (!x) {  // the headers have arrived
      x = new Exchange;
      *con_cls = x;
      x->method = method ? method : "";
      x->path = url ? url : "";
      std::optional<Response> early = s.service_.admit(head(c, *x));
      if (!early && !Service::is_health(x->path)) {
        if (s.in_flight_.fetch_add(1) + 1 > s.opt_.max_concurrent) {
          s.in_flight_.fetch_sub(1);
          early = error_response(429, "too many requests in flight (" + std::to_string(s.opt_.max_concurrent) +
                                          ", --max-concurrent): retry later");
          early->headers.emplace_back("Retry-After", "1");
        } else {
          x->counted = true;
        }
      }
      // Answered before the body: libmicrohttpd does not read it, and closes the connection.
      if (early) return send(s, c, *x, *early);
      return MHD_YES;
    }
    if (*upload_size != 0) {
      // Only POST bodies are kept: a body sent with GET (a health check is not counted in
      // flight) is read and dropped, so it cannot hold memory.
      if (!x->answered && !x->over && x->method == "POST") {
        if (x->body.size() + *upload_size > s.service_.max_body()) {
          x->over = true;
          std::string().swap(x->body);
        } else {
          x->body.append(upload, *upload_size);
        }
      }
      *upload_size = 0;
      return MHD_YES;
    }
    if (x->answered) return MHD_YES;
    if (x->over)
      return send(s, c, *x, error_response(413, "body over the limit of " + std::to_string(s.service_.max_body()) +
                                                    " bytes (--max-body)"));
    Request req;
    req.head = head(c, *x);
    req.body = x->body;
    req.columns = flag(c, "columns"), req.urls = flag(c, "urls"), req.json = flag(c, "json");
    if (const char* v = g_mhd->lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "context")) {
      req.context_text = *v ? std::string_view(v) : std::string_view("(empty)");
      req.context = context_lines(v);
    }
    const Response r = s.service_.handle(req);
    std::string().swap(x->body);
    return send(s, c, *x, r);
  }

  static void on_completed(void* cls, MHD_Connection*, void** con_cls, MHD_RequestTerminationCode toe) {
    HttpServer& s = *static_cast<HttpServer*>(cls);
    auto* x = static_cast<Exchange*>(*con_cls);
    if (!x) return;
    *con_cls = nullptr;
    const double ms = std::chrono::duration<double, std::milli>(Clock::now() - x->start).count();
    s.service_.metrics().request(x->path, x->status, ms / 1000);
    if (s.opt_.log) {
      char line[96];
      std::snprintf(line, sizeof line, " status=%u bytes=%zu ms=%.1f end=%s", x->status, x->bytes, ms, ending(toe));
      s.opt_.log("access method=" + log_path(x->method) + " path=" + log_path(x->path) + line);
    }
    if (x->counted) {
      const std::lock_guard<std::mutex> lock(s.drain_mutex_);
      s.in_flight_.fetch_sub(1);
      s.drained_.notify_all();
    }
    delete x;
  }

  static void on_log(void* cls, const char* fmt, va_list ap) {
    HttpServer& s = *static_cast<HttpServer*>(cls);
    char buf[512];
    std::vsnprintf(buf, sizeof buf, fmt, ap);
    std::string msg(buf);
    while (!msg.empty() && (msg.back() == '\n' || msg.back() == '\r')) msg.pop_back();
    if (!s.daemon_) s.start_error_ = msg;  // still starting: start() reports it
    else if (s.opt_.log) s.opt_.log("libmicrohttpd: " + msg);
  }
};

Result<std::unique_ptr<HttpServer>> HttpServer::start(Service& service, ServerOptions options) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(options.port);
  if (::inet_pton(AF_INET, options.host.c_str(), &addr.sin_addr) != 1)
    return {Errc::kUsage, "listen address '" + options.host + "' is not an IPv4 address (e.g. 127.0.0.1, 0.0.0.0)"};
  std::string why;
  const Mhd* mhd = load_mhd(why);
  if (!mhd) return {Errc::kUnsupported, why};
  g_mhd = mhd;
  std::unique_ptr<HttpServer> s(new HttpServer(service, std::move(options)));
  // MHD_USE_ITC: MHD_quiesce_daemon (stop accepting while requests drain) needs it.
  const unsigned flags = MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ITC | MHD_USE_ERROR_LOG;
  MHD_Daemon* d = mhd->start_daemon(
      flags, s->opt_.port, nullptr, nullptr, &Impl::on_request, s.get(),
      MHD_OPTION_SOCK_ADDR, reinterpret_cast<sockaddr*>(&addr),
      MHD_OPTION_CONNECTION_LIMIT, static_cast<unsigned>(s->opt_.connection_limit),
      MHD_OPTION_CONNECTION_TIMEOUT, static_cast<unsigned>(s->opt_.timeout_s),
      MHD_OPTION_NOTIFY_COMPLETED, &Impl::on_completed, s.get(),
      MHD_OPTION_EXTERNAL_LOGGER, &Impl::on_log, s.get(),
      MHD_OPTION_END);
  if (!d)
    return {Errc::kIo, "cannot listen on " + s->opt_.host + ":" + std::to_string(s->opt_.port) +
                           (s->start_error_.empty() ? "" : ": " + s->start_error_)};
  s->daemon_ = d;
  s->port_ = s->opt_.port;
  if (const MHD_DaemonInfo* info = mhd->get_daemon_info(d, MHD_DAEMON_INFO_LISTEN_FD)) {
    sockaddr_in bound{};
    socklen_t len = sizeof bound;
    if (::getsockname(info->listen_fd, reinterpret_cast<sockaddr*>(&bound), &len) == 0) s->port_ = ntohs(bound.sin_port);
  }
  return s;
}

HttpServer::~HttpServer() { stop(0); }

std::string HttpServer::url() const { return "http://" + opt_.host + ":" + std::to_string(port_); }

void HttpServer::stop(unsigned drain_s) {
  if (!daemon_) return;
  draining_.store(true);
  service_.set_draining();
  const MHD_socket listen_fd = g_mhd->quiesce_daemon(daemon_);
  {
    std::unique_lock<std::mutex> lock(drain_mutex_);
    drained_.wait_for(lock, std::chrono::seconds(drain_s), [this] { return in_flight_.load() == 0; });
  }
  g_mhd->stop_daemon(daemon_);
  daemon_ = nullptr;
  // libmicrohttpd hands the listening socket back on quiesce; it is closed after the stop,
  // as its documentation asks for threaded modes.
  if (listen_fd != MHD_INVALID_SOCKET) ::close(listen_fd);
}

}  // namespace ilmap::serve
