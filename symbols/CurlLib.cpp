// CurlLib.cpp - see CurlLib.h.
#include "symbols/CurlLib.h"

#include <dlfcn.h>

#include <mutex>

namespace ilmap::symbols {
namespace {

template <class F>
bool bind(void* lib, const char* name, F& fn) {
  fn = reinterpret_cast<F>(::dlsym(lib, name));
  return fn != nullptr;
}

}  // namespace

const CurlLib* load_curl(std::string& why) {
  static CurlLib curl;
  static const CurlLib* loaded = nullptr;
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

}  // namespace ilmap::symbols
