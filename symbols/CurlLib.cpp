// CurlLib.cpp - see CurlLib.h.
#include "symbols/CurlLib.h"
#include "support/Platform.h"
#include "support/SharedLibrary.h"

#include <mutex>

namespace ilmap::symbols {

const CurlLib* load_curl(std::string& why) {
  static CurlLib curl;
  static const CurlLib* loaded = nullptr;
  static std::string error;
  static std::once_flag once;
  std::call_once(once, [] {
#ifdef ILMAP_CURL_LINKED
    // The win-x64 build links a static libcurl (scripts/windows-deps.sh): Windows has no system
    // libcurl to load, and one with Schannel costs ilmap.exe's start nothing measurable.
    curl = CurlLib{&curl_global_init, &curl_easy_init,     &curl_easy_setopt,  &curl_easy_perform,
                   &curl_easy_getinfo, &curl_easy_cleanup, &curl_easy_strerror, &curl_slist_append,
                   &curl_slist_free_all};
#else
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
#endif
    curl.global_init(CURL_GLOBAL_DEFAULT);
    loaded = &curl;
  });
  why = error;
  return loaded;
}

const std::string& ca_file_from_environment() {
  static const std::string ca = platform::environment("SSL_CERT_FILE").value_or("");
  return ca;
}

std::string ca_file_problem(const std::string& url) {
  const std::string& ca = ca_file_from_environment();
  if (ca.empty() || url.compare(0, 8, "https://") != 0) return {};
  platform::FileInfo st;
  if (platform::stat_path(ca, st) && st.regular()) return {};
  return url + ": SSL_CERT_FILE=" + ca + ": " + (st.directory() ? "a directory" : "no such file") +
         " (the PEM file of CA certificates that HTTPS servers are checked against)";
}

}  // namespace ilmap::symbols
