// HttpGet.cpp - see HttpGet.h.
#include "HttpGet.h"

#include <curl/curl.h>

#include <chrono>
#include <mutex>
#include <thread>

namespace ilmap::symbols {
namespace {

struct Sink {
  std::vector<std::uint8_t>* body;
  std::uint64_t cap;
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
  return len;
}

void global_init() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
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
  global_init();
  Error last{Errc::kIo, url + ": no attempt made"};
  long backoff = o.backoff_ms;
  for (int attempt = 1; attempt <= std::max(1, o.attempts); ++attempt) {
    if (attempt > 1) {
      std::this_thread::sleep_for(std::chrono::milliseconds(backoff));
      backoff *= 2;
    }
    CURL* h = curl_easy_init();
    if (!h) return Error{Errc::kIo, url + ": cannot initialise libcurl"};
    std::vector<std::uint8_t> body;
    Sink sink{&body, o.max_bytes};
    curl_slist* list = nullptr;
    for (const std::string& hd : headers) list = curl_slist_append(list, hd.c_str());
    char errbuf[CURL_ERROR_SIZE] = {};
    curl_easy_setopt(h, CURLOPT_URL, url.c_str());
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, list);
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 1L);
    curl_easy_setopt(h, CURLOPT_MAXREDIRS, 5L);
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(h, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, o.connect_timeout_ms);
    curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1024L);
    curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME, o.read_timeout_s);
    curl_easy_setopt(h, CURLOPT_MAXFILESIZE_LARGE, static_cast<curl_off_t>(o.max_bytes));
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_data);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &sink);
    curl_easy_setopt(h, CURLOPT_USERAGENT, "ilmap-symbols/1");
    const CURLcode rc = curl_easy_perform(h);
    long status = 0;
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
    curl_slist_free_all(list);
    curl_easy_cleanup(h);
    if (sink.over || rc == CURLE_FILESIZE_EXCEEDED)
      return Error{Errc::kTooLarge, format("%s: larger than the size cap (%llu bytes)", url.c_str(), static_cast<unsigned long long>(o.max_bytes))};
    if (rc != CURLE_OK) {
      last = Error{Errc::kIo, format("%s: %s", url.c_str(), errbuf[0] ? errbuf : curl_easy_strerror(rc))};
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
