// CurlLib.cpp - see CurlLib.h.
#include "symbols/CurlLib.h"
#include "support/SharedLibrary.h"

#include <mutex>

namespace ilmap::symbols {

const CurlLib* load_curl(std::string& why) {
  static CurlLib curl;
  static const CurlLib* loaded = nullptr;
  static std::string error;
  static std::once_flag once;
  std::call_once(once, [] {
    void* lib = open_shared_library("libcurl.so.4", "libcurl", "libcurl4", error);
    if (!lib) return;
    const bool ok = bind_symbol(lib, "curl_global_init", curl.global_init) &&
                    bind_symbol(lib, "curl_easy_init", curl.easy_init) &&
                    bind_symbol(lib, "curl_easy_setopt", curl.easy_setopt) &&
                    bind_symbol(lib, "curl_easy_perform", curl.easy_perform) &&
                    bind_symbol(lib, "curl_easy_getinfo", curl.easy_getinfo) &&
                    bind_symbol(lib, "curl_easy_cleanup", curl.easy_cleanup) &&
                    bind_symbol(lib, "curl_easy_strerror", curl.easy_strerror) &&
                    bind_symbol(lib, "curl_slist_append", curl.slist_append) &&
                    bind_symbol(lib, "curl_slist_free_all", curl.slist_free_all);
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

}  // namespace ilmap::symbols
