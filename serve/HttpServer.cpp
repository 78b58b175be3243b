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
#include <set>

#include "serve/Mhd.h"
#include "support/Socket.h"

namespace ilmap::serve {

namespace {

using Clock = std::chrono::steady_clock;

// One connection, from libmicrohttpd's notice that it opened to the one that it closed (which
// comes before its socket is closed, so `fd` is never another connection's).
struct Connection {
  int fd = -1;
  Clock::time_point since = Clock::now();  // opened, or its previous answer completed
  bool arriving = true;  // a request (headers and body) is on its way, or may be
  bool headers = false;  // that request's headers have arrived
  bool cut = false;      // closed because the request did not arrive in time
};

// What one request carries from its first callback to its completion.
struct Exchange {
  Clock::time_point start = Clock::now();
  std::string method, path;
  std::string body;
  std::uint64_t received = 0;  // bytes of body
  const char* end = nullptr;   // how it ended, when not libmicrohttpd's word for it
  bool counted = false;   // counted in in_flight_
  bool answered = false;
  Connection* connection = nullptr;
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

// Set by a request callback that closes its connection on purpose (by returning MHD_NO), so that
// libmicrohttpd's "internal error" message for it is not logged as one.
thread_local bool t_closing_on_purpose = false;

// A whole HTTP/1.1 answer with a JSON error, for a connection libmicrohttpd cannot answer on.
std::string raw_error(unsigned status, const char* reason, const std::string& message) {
  const Response r = error_response(status, message);
  return "HTTP/1.1 " + std::to_string(status) + " " + reason + "\r\nContent-Type: " + r.content_type +
         "\r\nContent-Length: " + std::to_string(r.body.size()) + "\r\nConnection: close\r\n\r\n" + r.body;
}

}  // namespace

// The open connections and the deadline of the requests arriving on them: a thread looks every
// 100 ms and ends the connections whose request has not arrived whole within
// `receive_timeout_s` (with a 408 when its headers had arrived), so that a client sending a byte
// now and then, which the idle timeout never ends, holds a connection for a bounded time.
struct HttpServer::Arrivals {
  std::mutex mutex;
  std::condition_variable wake;
  std::set<Connection*> open;
  bool stopping = false;
  std::thread watcher;

  void watch(HttpServer& s) {
    const auto limit = std::chrono::seconds(s.opt_.receive_timeout_s);
    std::unique_lock<std::mutex> lock(mutex);
    while (!wake.wait_for(lock, std::chrono::milliseconds(100), [this] { return stopping; })) {
      const Clock::time_point now = Clock::now();
      for (Connection* c : open) {
        if (!c->arriving || c->cut || now - c->since <= limit) continue;
        c->cut = true;
        const std::string what = "no whole request within " + std::to_string(s.opt_.receive_timeout_s) +
                                 " s (--receive-timeout)";
        // Logged first: the client sees the close at once and may look at the log.
        if (s.opt_.log) s.opt_.log("connection closed: " + what + (c->headers ? ", its body was still arriving" : ""));
        if (c->headers) send_final_answer(c->fd, raw_error(408, "Request Timeout", what + ": connection closed"));
        shutdown_socket(c->fd);
      }
    }
  }
};

struct HttpServer::Impl {
  static Connection* connection_of(MHD_Connection* c) {
    const MHD_ConnectionInfo* info = g_mhd->get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info ? static_cast<Connection*>(info->socket_context) : nullptr;
  }

  static void on_connection(void* cls, MHD_Connection* c, void** socket_context, MHD_ConnectionNotificationCode code) {
    HttpServer& s = *static_cast<HttpServer*>(cls);
    Arrivals& a = *s.arrivals_;
    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
      const MHD_ConnectionInfo* info = g_mhd->get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
      auto* conn = new Connection;
      conn->fd = info ? info->connect_fd : -1;
      const std::lock_guard<std::mutex> lock(a.mutex);
      if (conn->fd >= 0) a.open.insert(conn);
      *socket_context = conn;
    } else if (auto* conn = static_cast<Connection*>(*socket_context)) {
      {
        const std::lock_guard<std::mutex> lock(a.mutex);
        a.open.erase(conn);
      }
      *socket_context = nullptr;
      delete conn;
    }
  }

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

  static std::string over_cap(const HttpServer& s) {
    return "body over the limit of " + std::to_string(s.service_.max_body()) + " bytes (--max-body)";
  }

  static MHD_Result send(HttpServer& s, MHD_Connection* c, Exchange& x, const Response& r) {
    MHD_Response* resp = g_mhd->create_response_from_buffer(r.body.size(), const_cast<char*>(r.body.data()),
                                                            MHD_RESPMEM_MUST_COPY);
    if (!resp) return MHD_NO;
    g_mhd->add_response_header(resp, "Content-Type", r.content_type.c_str());
    for (const auto& [name, value] : r.headers) g_mhd->add_response_header(resp, name.c_str(), value.c_str());
    // No answer is read as another type than it says (a trace's text as HTML, for one).
    g_mhd->add_response_header(resp, "X-Content-Type-Options", "nosniff");
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
      x->connection = connection_of(c);
      if (x->connection) {
        const std::lock_guard<std::mutex> lock(s.arrivals_->mutex);
        x->connection->headers = true;
      }
      // Answered before the body: libmicrohttpd does not read it, and closes the connection.
      if (std::optional<Response> early = s.service_.admit(head(c, *x))) return send(s, c, *x, *early);
      return MHD_YES;
    }
    if (*upload_size != 0) {
      // A body past the cap, of any method, sent chunked (a Content-Length over it was refused
      // with the headers): answered 413 at once, on the socket itself since libmicrohttpd queues
      // no answer while a body arrives, and the connection closed. What the client still sends
      // for a moment is read and dropped first, so that the close does not reset the answer away.
      if (x->received + *upload_size > s.service_.max_body()) {
        if (x->connection) {
          {
            const std::lock_guard<std::mutex> lock(s.arrivals_->mutex);
            if (x->connection->cut) return MHD_NO;
            x->connection->arriving = false;
          }
          const std::string answer = raw_error(413, "Content Too Large", over_cap(s));
          send_final_answer(x->connection->fd, answer);
          drain_input(x->connection->fd, std::chrono::seconds(1), std::size_t(4) << 20);
          x->status = 413;
          x->answered = true;
          x->end = "over-max-body";
        }
        t_closing_on_purpose = true;
        return MHD_NO;
      }
      x->received += *upload_size;
      // Only POST bodies are kept: a body sent with GET (a health check is not counted in
      // flight) is read and dropped, so it cannot hold memory.
      if (!x->answered && x->method == "POST") x->body.append(upload, *upload_size);
      *upload_size = 0;
      return MHD_YES;
    }
    if (x->answered) return MHD_YES;
    // Arrived whole: no longer under the receive deadline, and counted in flight from now.
    if (x->connection) {
      const std::lock_guard<std::mutex> lock(s.arrivals_->mutex);
      if (x->connection->cut) {
        t_closing_on_purpose = true;
        return MHD_NO;
      }
      x->connection->arriving = false;
    }
    if (!Service::is_health(x->path)) {
      if (s.in_flight_.fetch_add(1) + 1 > s.opt_.max_concurrent) {
        s.in_flight_.fetch_sub(1);
        Response busy = error_response(429, "too many requests in flight (" + std::to_string(s.opt_.max_concurrent) +
                                                ", --max-concurrent): retry later");
        busy.headers.emplace_back("Retry-After", "1");
        return send(s, c, *x, busy);
      }
      x->counted = true;
    }
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
    t_closing_on_purpose = false;
    auto* x = static_cast<Exchange*>(*con_cls);
    if (!x) return;
    *con_cls = nullptr;
    const char* end = x->end ? x->end : ending(toe);
    if (x->connection) {  // the next request on it has its own time to arrive
      const std::lock_guard<std::mutex> lock(s.arrivals_->mutex);
      Connection& conn = *x->connection;
      if (conn.cut && !x->answered) x->status = conn.headers ? 408 : 0, end = "receive-timeout";
      conn.since = Clock::now();
      conn.arriving = true;
      conn.headers = false;
    }
    const double ms = std::chrono::duration<double, std::milli>(Clock::now() - x->start).count();
    s.service_.metrics().request(x->path, x->status, ms / 1000);
    if (s.opt_.log) {
      char line[96];
      std::snprintf(line, sizeof line, " status=%u bytes=%zu ms=%.1f end=%s", x->status, x->bytes, ms, end);
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
    if (t_closing_on_purpose && msg.starts_with("Application reported internal error")) return;
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
  s->arrivals_ = std::make_unique<Arrivals>();
  // MHD_USE_ITC: MHD_quiesce_daemon (stop accepting while requests drain) needs it.
  const unsigned flags = MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ITC | MHD_USE_ERROR_LOG;
  MHD_Daemon* d = mhd->start_daemon(
      flags, s->opt_.port, nullptr, nullptr, &Impl::on_request, s.get(),
      MHD_OPTION_SOCK_ADDR, reinterpret_cast<sockaddr*>(&addr),
      MHD_OPTION_CONNECTION_LIMIT, static_cast<unsigned>(s->opt_.connection_limit),
      MHD_OPTION_CONNECTION_TIMEOUT, static_cast<unsigned>(s->opt_.timeout_s),
      MHD_OPTION_NOTIFY_COMPLETED, &Impl::on_completed, s.get(),
      MHD_OPTION_NOTIFY_CONNECTION, &Impl::on_connection, s.get(),
      MHD_OPTION_EXTERNAL_LOGGER, &Impl::on_log, s.get(),
      MHD_OPTION_END);
  if (!d)
    return {Errc::kIo, "cannot listen on " + s->opt_.host + ":" + std::to_string(s->opt_.port) +
                           (s->start_error_.empty() ? "" : ": " + s->start_error_)};
  s->daemon_ = d;
  s->port_ = s->opt_.port;
  if (s->opt_.receive_timeout_s > 0) {
    HttpServer* self = s.get();
    s->arrivals_->watcher = std::thread([self] { self->arrivals_->watch(*self); });
  }
  if (const MHD_DaemonInfo* info = mhd->get_daemon_info(d, MHD_DAEMON_INFO_LISTEN_FD)) {
    sockaddr_in bound{};
    socklen_t len = sizeof bound;
    if (::getsockname(info->listen_fd, reinterpret_cast<sockaddr*>(&bound), &len) == 0) s->port_ = ntohs(bound.sin_port);
  }
  return s;
}

HttpServer::HttpServer(Service& service, ServerOptions options) : service_(service), opt_(std::move(options)) {}

HttpServer::~HttpServer() { stop(0); }

std::string HttpServer::url() const { return "http://" + opt_.host + ":" + std::to_string(port_); }

void HttpServer::stop(unsigned drain_s) {
  if (!daemon_) return;
  draining_.store(true);
  service_.set_draining();
  const MHD_socket listen_fd = g_mhd->quiesce_daemon(daemon_);
  // The requests in flight, and those whose headers have arrived and whose body is arriving
  // (a client uploading a trace when the server is told to stop gets its answer too), within
  // `drain_s` seconds. Checked every 50 ms: the arriving ones signal nothing when they arrive.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(drain_s);
  for (;;) {
    bool arriving = false;
    {
      const std::lock_guard<std::mutex> lock(arrivals_->mutex);
      for (const Connection* c : arrivals_->open) arriving = arriving || (c->arriving && c->headers && !c->cut);
    }
    std::unique_lock<std::mutex> lock(drain_mutex_);
    if (!arriving && in_flight_.load() == 0) break;
    if (std::chrono::steady_clock::now() >= deadline) break;
    drained_.wait_for(lock, std::chrono::milliseconds(50));
  }
  {
    const std::lock_guard<std::mutex> lock(arrivals_->mutex);
    arrivals_->stopping = true;
  }
  arrivals_->wake.notify_all();
  if (arrivals_->watcher.joinable()) arrivals_->watcher.join();
  g_mhd->stop_daemon(daemon_);
  daemon_ = nullptr;
  // libmicrohttpd hands the listening socket back on quiesce; it is closed after the stop,
  // as its documentation asks for threaded modes.
  if (listen_fd != MHD_INVALID_SOCKET) ::close(listen_fd);
}

}  // namespace ilmap::serve
