// HttpGet.cpp - see HttpGet.h. libcurl is loaded with dlopen on the first request, not linked:
// linking it made every ilmap command (lookup, --version) start about 3 times slower, loading
// libcurl's dozen shared libraries that only `fetch` uses.
#include "symbols/HttpGet.h"

#include <curl/curl.h>

#include "symbols/CurlLib.h"

#include <chrono>
#include <cstring>
#include <mutex>
#include <thread>

namespace ilmap::symbols {
namespace {

// Where a body goes: `body` (memory) or `file`.
struct Sink {
  std::vector<std::uint8_t>* body = nullptr;
  TempFile* file = nullptr;
  std::uint64_t cap = 0;
  TransferCounter* counter = nullptr;
  std::uint64_t size = 0;
  bool over = false;
  int write_error = 0;  // errno of a failed write to `file`

  int reset() {
    size = 0;
    if (body) body->clear();
    return file ? file->clear() : 0;
  }
};

std::size_t on_data(char* data, std::size_t size, std::size_t n, void* user) {
  auto* s = static_cast<Sink*>(user);
  const std::size_t len = size * n;
  if (s->size + len > s->cap) {
    s->over = true;
    return 0;  // aborts the transfer (CURLE_WRITE_ERROR)
  }
  const auto* p = reinterpret_cast<const std::uint8_t*>(data);
  if (s->file) {
    if (const int e = s->file->append({p, len}); e != 0) {
      s->write_error = e;
      return 0;
    }
  } else {
    s->body->insert(s->body->end(), p, p + len);
  }
  s->size += len;
  if (s->counter) s->counter->bytes.fetch_add(len, std::memory_order_relaxed);
  return len;
}

// A header line that is safe to send: no CR, LF or other control character (a value taken
// from a file could otherwise end the header block and start another request).
bool header_ok(const std::string& h) {
  for (unsigned char c : h)
    if ((c < 0x20 && c != '\t') || c == 0x7f) return false;
  return true;
}

bool retryable(CURLcode c) {
  switch (c) {
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_COULDNT_CONNECT:
    case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR:
    case CURLE_PARTIAL_FILE:
    case CURLE_GOT_NOTHING:
      return true;
    default:
      return false;
  }
}

}  // namespace

std::string url_escape_segment(const std::string& segment) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : segment) {
    if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

namespace {

Status transfer(const std::string& url, const std::vector<std::string>& headers, const HttpOptions& o, Sink& sink) {
  for (const std::string& hd : headers)
    if (!header_ok(hd)) return {Errc::kMalformed, url + ": a request header with a control character was not sent"};
  std::string why;
  const CurlLib* c = load_curl(why);
  if (!c) return {Errc::kIo, url + ": " + why};
  if (std::string bad = ca_file_problem(url); !bad.empty()) return {Errc::kIo, std::move(bad)};
  using Clock = std::chrono::steady_clock;
  const bool has_deadline = o.total_timeout_s > 0;
  const Clock::time_point deadline = Clock::now() + std::chrono::seconds(std::max(0L, o.total_timeout_s));
  auto left_ms = [&] {
    return std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  };
  const Error late{Errc::kIo, format("%s: not complete within %ld s (the download deadline, --download-timeout)", url.c_str(), o.total_timeout_s)};
  Error last{Errc::kIo, url + ": no attempt made"};
  long backoff = o.backoff_ms;
  for (int attempt = 1; attempt <= std::max(1, o.attempts); ++attempt) {
    if (attempt > 1) {
      if (has_deadline && left_ms() <= backoff) return late;
      std::this_thread::sleep_for(std::chrono::milliseconds(backoff));
      backoff *= 2;
    }
    if (has_deadline && left_ms() <= 0) return late;
    if (const int e = sink.reset(); e != 0)
      return {Errc::kIo, format("%s: cannot write the download to %s: %s", url.c_str(), sink.file->path().c_str(), std::strerror(e))};
    CURL* h = c->easy_init();
    if (!h) return {Errc::kIo, url + ": cannot initialise libcurl"};
    curl_slist* list = nullptr;
    for (const std::string& hd : headers) list = c->slist_append(list, hd.c_str());
    char errbuf[CURL_ERROR_SIZE] = {};
    c->easy_setopt(h, CURLOPT_URL, url.c_str());
    c->easy_setopt(h, CURLOPT_HTTPHEADER, list);
    c->easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
    c->easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    c->easy_setopt(h, CURLOPT_FOLLOWLOCATION, 1L);
    c->easy_setopt(h, CURLOPT_MAXREDIRS, 5L);
    curl_http_only(*c, h);
    curl_tls_trust(*c, h);
    c->easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, o.connect_timeout_ms);
    c->easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1024L);
    c->easy_setopt(h, CURLOPT_LOW_SPEED_TIME, o.read_timeout_s);
    if (has_deadline) c->easy_setopt(h, CURLOPT_TIMEOUT_MS, static_cast<long>(std::max<long long>(1, left_ms())));
    c->easy_setopt(h, CURLOPT_MAXFILESIZE_LARGE, static_cast<curl_off_t>(o.max_bytes));
    c->easy_setopt(h, CURLOPT_WRITEFUNCTION, on_data);
    c->easy_setopt(h, CURLOPT_WRITEDATA, &sink);
    c->easy_setopt(h, CURLOPT_USERAGENT, "ilmap-symbols/1");
    const CURLcode rc = c->easy_perform(h);
    long status = 0;
    c->easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
    c->slist_free_all(list);
    c->easy_cleanup(h);
    if (sink.over || rc == CURLE_FILESIZE_EXCEEDED)
      return {Errc::kTooLarge, format("%s: larger than the size cap (%llu bytes)", url.c_str(), static_cast<unsigned long long>(o.max_bytes))};
    if (sink.write_error != 0)
      return {Errc::kIo, format("%s: cannot write the download to %s: %s", url.c_str(), sink.file->path().c_str(), std::strerror(sink.write_error))};
    if (rc == CURLE_OPERATION_TIMEDOUT && has_deadline && left_ms() <= 0) return late;
    if (rc != CURLE_OK) {
      last = Error{Errc::kIo, format("%s: %s", url.c_str(), errbuf[0] ? errbuf : c->easy_strerror(rc))};
      if (retryable(rc)) continue;
      return last;
    }
    if (status == 200) return {};
    if (status == 404 || status == 410) return {Errc::kNotFound, format("%s: HTTP %ld", url.c_str(), status)};
    last = Error{Errc::kIo, format("%s: HTTP %ld", url.c_str(), status)};
    if (status >= 500) continue;
    return last;
  }
  if (o.attempts > 1) last.message += format(" (after %d attempts)", o.attempts);
  return last;
}

}  // namespace

Result<std::vector<std::uint8_t>> http_get(const std::string& url, const std::vector<std::string>& headers,
                                           const HttpOptions& o) {
  std::vector<std::uint8_t> body;
  Sink sink;
  sink.body = &body;
  sink.cap = o.max_bytes;
  sink.counter = o.counter;
  Status s = transfer(url, headers, o, sink);
  if (o.counter) o.counter->count(s);
  if (!s) return s.error();
  return body;
}

Status http_get_to_file(const std::string& url, const std::vector<std::string>& headers, const HttpOptions& o,
                        TempFile& out) {
  Sink sink;
  sink.file = &out;
  sink.cap = o.max_bytes;
  sink.counter = o.counter;
  Status s = transfer(url, headers, o, sink);
  if (o.counter) o.counter->count(s);
  return s;
}

}  // namespace ilmap::symbols
