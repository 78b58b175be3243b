// CurlLib.h - the libcurl functions ilmap uses, loaded from libcurl.so.4 with dlopen on first use
// (HttpGet for symbol servers, S3Client for buckets): linking libcurl made every ilmap command
// start about 3 times slower, loading a dozen shared libraries only these two need. Where the build
// links libcurl statically instead (ILMAP_CURL_LINKED: the win-x64 build, whose libcurl is built
// from Debian's source with Schannel by scripts/windows-deps.sh), the same table points at it.
#pragma once

#include <curl/curl.h>

#include <string>

namespace ilmap::symbols {

struct CurlLib {
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

// The loaded library (thread-safe, loaded once), or nullptr with `why` saying why.
const CurlLib* load_curl(std::string& why);

// Options newer than the oldest libcurl ilmap runs with (Debian 11's 7.74; the glibc 2.31 build
// compiles against its header), by number: absent from old headers. A libcurl older than an
// option refuses it with CURLE_UNKNOWN_OPTION.
inline constexpr auto kCurlAwsSigv4 = static_cast<CURLoption>(CURLOPTTYPE_STRINGPOINT + 305);  // 7.75
inline constexpr auto kCurlProtocolsStr = static_cast<CURLoption>(CURLOPTTYPE_STRINGPOINT + 318);       // 7.85
inline constexpr auto kCurlRedirProtocolsStr = static_cast<CURLoption>(CURLOPTTYPE_STRINGPOINT + 319);  // 7.85

// Restricts `h` to http and https, also after redirects: the string options where libcurl has
// them, else the bit masks they replaced (deprecated in new headers, hence by number too).
inline void curl_http_only(const CurlLib& c, CURL* h) {
  if (c.easy_setopt(h, kCurlProtocolsStr, "http,https") == CURLE_OK &&
      c.easy_setopt(h, kCurlRedirProtocolsStr, "http,https") == CURLE_OK)
    return;
  constexpr long kHttpAndHttps = CURLPROTO_HTTP | CURLPROTO_HTTPS;
  c.easy_setopt(h, static_cast<CURLoption>(CURLOPTTYPE_LONG + 181), kHttpAndHttps);  // CURLOPT_PROTOCOLS
  c.easy_setopt(h, static_cast<CURLoption>(CURLOPTTYPE_LONG + 182), kHttpAndHttps);  // CURLOPT_REDIR_PROTOCOLS
}

// The CA certificates that HTTPS servers are verified against, when they are not the system's:
// the PEM file named by SSL_CERT_FILE (the variable OpenSSL, Python, Go and .NET on Linux read),
// read once; empty when unset or empty. libcurl otherwise uses the system's store (Linux: the
// bundle it was built with, /etc/ssl/certs/ca-certificates.crt on Debian; Windows: the Windows
// certificate store, through Schannel).
const std::string& ca_file_from_environment();

// For an https URL with SSL_CERT_FILE set to something that is not a file: the message that
// says so ("URL: SSL_CERT_FILE=PATH: no such file ..."); else empty. libcurl's own words for it
// name neither the variable nor the cause.
std::string ca_file_problem(const std::string& url);

// Points `h` at ca_file_from_environment(), when set (CURLOPT_CAINFO: Schannel reads it too).
inline void curl_tls_trust(const CurlLib& c, CURL* h) {
  if (const std::string& ca = ca_file_from_environment(); !ca.empty()) c.easy_setopt(h, CURLOPT_CAINFO, ca.c_str());
}

}  // namespace ilmap::symbols
