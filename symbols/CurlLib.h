// CurlLib.h - the libcurl functions ilmap uses, loaded from libcurl.so.4 with dlopen on first use
// (HttpGet for symbol servers, S3Client for buckets): linking libcurl made every ilmap command
// start about 3 times slower, loading a dozen shared libraries only these two need.
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

}  // namespace ilmap::symbols
