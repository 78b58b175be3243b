// HttpGet.cpp - see HttpGet.h. libcurl is loaded with dlopen on the first request, not linked:
// linking it made every ilmap command (lookup, --version) start about 3 times slower, loading
// libcurl's dozen shared libraries that only `fetch` uses.
#include "HttpGet.h"

#include <curl/curl.h>
#include <dlfcn.h>

#include <chrono>
#include <mutex>
#include <thread>

namespace ilmap::symbols {
namespace {

struct Sink {
  std::vector<std::uint8_t>* body;
  std::uint64_t cap;
  TransferCounter* counter;
  bool over = false;
};

std::size_t on_data(char* data, std::size_t size, std::size_t n, void* user) {
  auto* s = static_cast<Sink*>(user);
  const std::size_t len = size * n;
  if (s->body->size() + len > s->cap) {
    s->over = true;
    return 0;  // aborts the transfer (CURLE_WRITE_ERROR)
  }
  s->body->insert(s->body->end(), reinterpret_cast<std::uint8_t*>(data), reinterpret_cast<std::uint8_t*>(data) + len);
  if (s->counter) s->counter->bytes.fetch_add(len, std::memory_order_relaxed);
  return len;
}

// The libcurl functions used here, resolved from libcurl.so.4.
struct Curl {
  CURLcode (*global_init)(long);
  CURL* (*easy_init)();
  CURLcode (*easy_setopt)(CURL*, CURLoption, ...);
  CURLcode (*easy_perform)(CURL*);
  CURLcode (*easy_getinfo)(CURL*, CURLINFO, ...);
  void (*easy_cleanup)(CURL*);
  const char* (*easy_strerror)(CURLcode);
  curl_slist* (*slist_append)(curl_slist*, const char*);
  void (*slist_free_all)(curl_slist*);
};

template <class F>
bool bind(void* lib, const char* name, F& fn) {
  fn = reinterpret_cast<F>(::dlsym(lib, name));
  return fn != nullptr;
}

// nullptr when libcurl cannot be loaded; `why` says why.
const Curl* load_curl(std::string& why) {
  static Curl curl;
  static const Curl* loaded = nullptr;
  static std::string error;
  static std::once_flag once;
  std::call_once(once, [] {
    void* lib = ::dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      const char* e = ::dlerror();
      error = std::string("cannot load libcurl (install the Debian package libcurl4): ") + (e ? e : "dlopen failed");
      return;
    }
    const bool ok = bind(lib, "curl_global_init", curl.global_init) && bind(lib, "curl_easy_init", curl.easy_init) &&
                    bind(lib, "curl_easy_setopt", curl.easy_setopt) && bind(lib, "curl_easy_perform", curl.easy_perform) &&
                    bind(lib, "curl_easy_getinfo", curl.easy_getinfo) && bind(lib, "curl_easy_cleanup", curl.easy_cleanup) &&
                    bind(lib, "curl_easy_strerror", curl.easy_strerror) && bind(lib, "curl_slist_append", curl.slist_append) &&
                    bind(lib, "curl_slist_free_all", curl.slist_free_all);
    if (!ok) {
      error = "libcurl.so.4 lacks a function ilmap needs";
      return;
    }
    curl.global_init(CURL_GLOBAL_DEFAULT);
    loaded = &curl;
  });
  why = error;
  return loaded;
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

Result<std::vector<std::uint8_t>> http_get(const std::string& url, const std::vector<std::string>& headers,
                                           const HttpOptions& o) {
  std::string why;
  const Curl* c = load_curl(why);
  if (!c) return Error{Errc::kIo, url + ": " + why};
  Error last{Errc::kIo, url + ": no attempt made"};
  long backoff = o.backoff_ms;
  for (int attempt = 1; attempt <= std::max(1, o.attempts); ++attempt) {
    if (attempt > 1) {
      std::this_thread::sleep_for(std::chrono::milliseconds(backoff));
      backoff *= 2;
    }
    CURL* h = c->easy_init();
    if (!h) return Error{Errc::kIo, url + ": cannot initialise libcurl"};
    std::vector<std::uint8_t> body;
    Sink sink{&body, o.max_bytes, o.counter};
    curl_slist* list = nullptr;
    for (const std::string& hd : headers) list = c->slist_append(list, hd.c_str());
    char errbuf[CURL_ERROR_SIZE] = {};
    c->easy_setopt(h, CURLOPT_URL, url.c_str());
    c->easy_setopt(h, CURLOPT_HTTPHEADER, list);
    c->easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
    c->easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    c->easy_setopt(h, CURLOPT_FOLLOWLOCATION, 1L);
    c->easy_setopt(h, CURLOPT_MAXREDIRS, 5L);
    c->easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
    c->easy_setopt(h, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    c->easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, o.connect_timeout_ms);
    c->easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1024L);
    c->easy_setopt(h, CURLOPT_LOW_SPEED_TIME, o.read_timeout_s);
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
      return Error{Errc::kTooLarge, format("%s: larger than the size cap (%llu bytes)", url.c_str(), static_cast<unsigned long long>(o.max_bytes))};
    if (rc != CURLE_OK) {
      last = Error{Errc::kIo, format("%s: %s", url.c_str(), errbuf[0] ? errbuf : c->easy_strerror(rc))};
      if (retryable(rc)) continue;
      return last;
    }
    if (status == 200) return body;
    if (status == 404 || status == 410) return Error{Errc::kNotFound, format("%s: HTTP %ld", url.c_str(), status)};
    last = Error{Errc::kIo, format("%s: HTTP %ld", url.c_str(), status)};
    if (status >= 500) continue;
    return last;
  }
  if (o.attempts > 1) last.message += format(" (after %d attempts)", o.attempts);
  return last;
}

}  // namespace ilmap::symbols
