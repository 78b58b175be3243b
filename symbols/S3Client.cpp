// S3Client.cpp - see S3Client.h. The signature is libcurl's (CURLOPT_AWS_SIGV4); this file only
// supplies the payload hash header, the credentials and the retries.
#define OPENSSL_SUPPRESS_DEPRECATED  // SHA256_Init/Update/Final: see decode/PdbChecksum.cpp
#include "symbols/S3Client.h"

#include <openssl/sha.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <thread>

#include "symbols/CurlLib.h"
#include "symbols/HttpGet.h"

namespace ilmap::symbols {
namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

std::string sha256_hex(std::span<const std::uint8_t> bytes) {
  unsigned char d[SHA256_DIGEST_LENGTH];
  SHA256_CTX c;
  SHA256_Init(&c);
  SHA256_Update(&c, bytes.data(), bytes.size());
  SHA256_Final(d, &c);
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (unsigned char b : d) {
    out += hex[b >> 4];
    out += hex[b & 15];
  }
  return out;
}

struct Body {
  std::vector<std::uint8_t>* out;
  std::uint64_t cap;
  bool over = false;
};

std::size_t on_data(char* data, std::size_t size, std::size_t n, void* user) {
  auto* b = static_cast<Body*>(user);
  const std::size_t len = size * n;
  if (b->out->size() + len > b->cap) {
    b->over = true;
    return 0;
  }
  b->out->insert(b->out->end(), reinterpret_cast<const std::uint8_t*>(data), reinterpret_cast<const std::uint8_t*>(data) + len);
  return len;
}

// libcurl delivers at most Content-Length bytes and drops the rest; it says so only in its
// verbose text ("Excess found ..."), which is all this callback reads. (Headers also pass
// through here, the Authorization header among them: they are ignored, never kept.)
int on_debug(CURL*, curl_infotype type, char* data, std::size_t size, void* user) {
  static constexpr std::string_view kExcess = "Excess found";
  if (type == CURLINFO_TEXT && std::string_view(data, size).substr(0, kExcess.size()) == kExcess)
    *static_cast<bool*>(user) = true;
  return 0;
}

// A list cap from the environment: unset keeps `value`; else a positive decimal number.
Status cap_from_env(const char* name, std::uint64_t& value) {
  const std::string v = env(name);
  if (v.empty()) return {};
  std::uint64_t n = 0;
  for (char ch : v) {
    if (ch < '0' || ch > '9' || n > (UINT64_MAX - 9) / 10)
      return {Errc::kUsage, std::string(name) + "='" + v + "': not a positive decimal number"};
    n = n * 10 + static_cast<std::uint64_t>(ch - '0');
  }
  if (n == 0) return {Errc::kUsage, std::string(name) + "=0: a cap must be positive"};
  value = n;
  return {};
}

void replace_all(std::string& s, const std::string& what, const std::string& with) {
  if (what.empty()) return;
  for (std::size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + with.size())) s.replace(at, what.size(), with);
}

bool retryable(CURLcode c) {
  return c == CURLE_OPERATION_TIMEDOUT || c == CURLE_COULDNT_CONNECT || c == CURLE_RECV_ERROR || c == CURLE_SEND_ERROR ||
         c == CURLE_PARTIAL_FILE || c == CURLE_GOT_NOTHING;
}

std::string xml_decode(std::string s) {
  static const std::pair<const char*, char> kEntities[] = {{"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&apos;", '\''}, {"&amp;", '&'}};
  std::string out;
  for (std::size_t i = 0; i < s.size();) {
    bool done = false;
    if (s[i] == '&')
      for (const auto& [name, c] : kEntities)
        if (s.compare(i, std::strlen(name), name) == 0) {
          out += c;
          i += std::strlen(name);
          done = true;
          break;
        }
    if (!done) out += s[i++];
  }
  return out;
}

}  // namespace

Result<S3Config> S3Config::from_environment(const std::string& endpoint, const std::string& region) {
  S3Config c;
  c.access_key = env("AWS_ACCESS_KEY_ID");
  c.secret_key = env("AWS_SECRET_ACCESS_KEY");
  c.session_token = env("AWS_SESSION_TOKEN");
  if (c.access_key.empty() || c.secret_key.empty())
    return Error{Errc::kUsage, "S3 credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY"};
  c.region = !region.empty() ? region : !env("AWS_REGION").empty() ? env("AWS_REGION")
                                      : !env("AWS_DEFAULT_REGION").empty() ? env("AWS_DEFAULT_REGION") : "us-east-1";
  for (char ch : c.region)
    if (!(std::isalnum(static_cast<unsigned char>(ch)) || ch == '-'))
      return Error{Errc::kUsage, "S3 region '" + c.region + "': only letters, digits and '-'"};
  c.endpoint = !endpoint.empty() ? endpoint : !env("AWS_ENDPOINT_URL_S3").empty() ? env("AWS_ENDPOINT_URL_S3")
                                           : !env("AWS_ENDPOINT_URL").empty() ? env("AWS_ENDPOINT_URL")
                                           : "https://s3." + c.region + ".amazonaws.com";
  while (!c.endpoint.empty() && c.endpoint.back() == '/') c.endpoint.pop_back();
  if (c.endpoint.rfind("http://", 0) != 0 && c.endpoint.rfind("https://", 0) != 0)
    return Error{Errc::kUsage, "S3 endpoint '" + c.endpoint + "': not an http:// or https:// URL"};
  if (Status s = cap_from_env(S3ListCaps::kPagesEnv, c.list_caps.pages); !s) return s.error();
  if (Status s = cap_from_env(S3ListCaps::kKeysEnv, c.list_caps.keys); !s) return s.error();
  if (Status s = cap_from_env(S3ListCaps::kBytesEnv, c.list_caps.bytes); !s) return s.error();
  return c;
}

std::string s3_escape_path(const std::string& key) {
  std::string out;
  std::size_t at = 0;
  for (;;) {
    const std::size_t slash = key.find('/', at);
    out += url_escape_segment(key.substr(at, slash == std::string::npos ? std::string::npos : slash - at));
    if (slash == std::string::npos) break;
    out += '/';
    at = slash + 1;
  }
  return out;
}

std::vector<std::string> s3_xml_values(const std::string& xml, const std::string& tag) {
  std::vector<std::string> out;
  const std::string open = "<" + tag + ">", close = "</" + tag + ">";
  for (std::size_t at = 0;;) {
    const std::size_t b = xml.find(open, at);
    if (b == std::string::npos) break;
    const std::size_t e = xml.find(close, b + open.size());
    if (e == std::string::npos) break;
    out.push_back(xml_decode(xml.substr(b + open.size(), e - b - open.size())));
    at = e + close.size();
  }
  return out;
}

std::string s3_xml_value(const std::string& xml, const std::string& tag) {
  auto v = s3_xml_values(xml, tag);
  return v.empty() ? std::string() : v.front();
}

S3ListPage s3_parse_list_page(const std::string& xml) {
  S3ListPage p;
  p.keys = s3_xml_values(xml, "Key");
  p.truncated = s3_xml_value(xml, "IsTruncated") == "true";
  p.next_token = s3_xml_value(xml, "NextContinuationToken");
  return p;
}

std::string s3_error_text(const S3Response& r) {
  const std::string body = r.text();
  // A server's words, not ours: bounded, and without what would let a reader of the message
  // replay the request (a server may echo the Authorization header).
  constexpr std::size_t kPart = 300;
  std::string code = s3_xml_value(body, "Code").substr(0, kPart), message = s3_xml_value(body, "Message");
  if (message.size() > kPart) message = message.substr(0, kPart) + "...";
  std::string out = format("HTTP %ld", r.status);
  if (!code.empty()) out += " " + code;
  if (!message.empty()) out += ": " + message;
  for (char& ch : out)
    if (static_cast<unsigned char>(ch) < 0x20 || ch == 0x7f) ch = ' ';
  static constexpr std::string_view kSig = "Signature=";
  for (std::size_t at = out.find(kSig); at != std::string::npos; at = out.find(kSig, at + kSig.size())) {
    std::size_t end = at + kSig.size();
    while (end < out.size() && std::isxdigit(static_cast<unsigned char>(out[end]))) ++end;
    out.replace(at + kSig.size(), end - at - kSig.size(), "[redacted]");
  }
  return out;
}

std::string s3_redact(std::string text, const S3Config& config) {
  // The longest first: a token may contain the key id.
  std::vector<const std::string*> secrets{&config.session_token, &config.secret_key, &config.access_key};
  std::sort(secrets.begin(), secrets.end(), [](const std::string* a, const std::string* b) { return a->size() > b->size(); });
  for (const std::string* v : secrets) replace_all(text, *v, "[redacted]");
  return text;
}

std::string S3Client::error_text(const S3Response& r) const { return s3_redact(s3_error_text(r), config_); }

Result<S3Response> S3Client::request(const std::string& method, const std::string& path, const std::string& query,
                                     std::span<const std::uint8_t> body, std::uint64_t max_body) const {
  std::string why;
  const CurlLib* c = load_curl(why);
  const std::string url = config_.endpoint + path + (query.empty() ? "" : "?" + query);
  if (!c) return Error{Errc::kIo, url + ": " + why};
  if (std::string bad = ca_file_problem(url); !bad.empty()) return Error{Errc::kIo, std::move(bad)};
  const std::string sigv4 = "aws:amz:" + config_.region + ":s3";
  const std::string hash_header = "x-amz-content-sha256: " + sha256_hex(body);
  Error last{Errc::kIo, url + ": no attempt made"};
  long backoff_ms = 200;
  for (int attempt = 1; attempt <= std::max(1, config_.attempts); ++attempt) {
    if (attempt > 1) {
      std::this_thread::sleep_for(std::chrono::milliseconds(backoff_ms));
      backoff_ms *= 2;
    }
    CURL* h = c->easy_init();
    if (!h) return Error{Errc::kIo, url + ": cannot initialise libcurl"};
    if (c->easy_setopt(h, kCurlAwsSigv4, sigv4.c_str()) != CURLE_OK) {
      c->easy_cleanup(h);
      return Error{Errc::kUnsupported, url + ": S3 needs libcurl 7.75 or newer (AWS signatures); this one is older"};
    }
    curl_slist* headers = nullptr;
    headers = c->slist_append(headers, hash_header.c_str());
    // No "Expect:" to turn 100-continue off: libcurl 7.88 would sign the empty header it removes.
    if (!config_.session_token.empty())
      headers = c->slist_append(headers, ("x-amz-security-token: " + config_.session_token).c_str());
    S3Response r;
    const std::uint64_t cap = max_body ? std::min(max_body, config_.max_bytes) : config_.max_bytes;
    Body sink{&r.body, cap};
    bool excess = false;
    char errbuf[CURL_ERROR_SIZE] = {};
    c->easy_setopt(h, CURLOPT_URL, url.c_str());
    c->easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
    c->easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_http_only(*c, h);
    curl_tls_trust(*c, h);
    c->easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, config_.connect_timeout_ms);
    c->easy_setopt(h, CURLOPT_TIMEOUT, config_.timeout_s);
    c->easy_setopt(h, CURLOPT_USERNAME, config_.access_key.c_str());
    c->easy_setopt(h, CURLOPT_PASSWORD, config_.secret_key.c_str());
    c->easy_setopt(h, CURLOPT_USERAGENT, "ilmap-symbols/1");
    c->easy_setopt(h, CURLOPT_WRITEFUNCTION, on_data);
    c->easy_setopt(h, CURLOPT_WRITEDATA, &sink);
    c->easy_setopt(h, CURLOPT_DEBUGFUNCTION, on_debug);
    c->easy_setopt(h, CURLOPT_DEBUGDATA, &excess);
    c->easy_setopt(h, CURLOPT_VERBOSE, 1L);
    if (method == "HEAD") {
      c->easy_setopt(h, CURLOPT_NOBODY, 1L);
    } else if (method == "PUT") {
      headers = c->slist_append(headers, "Content-Type: application/octet-stream");
      c->easy_setopt(h, CURLOPT_CUSTOMREQUEST, "PUT");
      c->easy_setopt(h, CURLOPT_POSTFIELDS, body.empty() ? "" : reinterpret_cast<const char*>(body.data()));
      c->easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
    } else if (method != "GET") {
      c->easy_setopt(h, CURLOPT_CUSTOMREQUEST, method.c_str());
    }
    c->easy_setopt(h, CURLOPT_HTTPHEADER, headers);
    const CURLcode rc = c->easy_perform(h);
    c->easy_getinfo(h, CURLINFO_RESPONSE_CODE, &r.status);
    c->slist_free_all(headers);
    c->easy_cleanup(h);
    if (sink.over) return Error{Errc::kTooLarge, format("%s: larger than %llu bytes", url.c_str(), static_cast<unsigned long long>(cap))};
    if (excess && rc == CURLE_OK)
      return Error{Errc::kIo, format("%s: the server sent more than the %llu bytes its Content-Length declares", url.c_str(),
                                     static_cast<unsigned long long>(r.body.size()))};
    if (rc != CURLE_OK) {
      last = Error{Errc::kIo, format("%s: %s", url.c_str(), errbuf[0] ? errbuf : c->easy_strerror(rc))};
      if (retryable(rc)) continue;
      return last;
    }
    if (r.status >= 500 && attempt < config_.attempts) continue;
    return r;
  }
  if (config_.attempts > 1) last.message += format(" (after %d attempts)", config_.attempts);
  return last;
}

}  // namespace ilmap::symbols
