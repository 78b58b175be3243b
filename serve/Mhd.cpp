// Mhd.cpp - see Mhd.h: libmicrohttpd loaded with dlopen, once, by the first server.
#include "serve/Mhd.h"

#include <dlfcn.h>

#include <mutex>

namespace ilmap::serve {
namespace {

template <class F>
bool bind(void* lib, const char* name, F& fn) {
  fn = reinterpret_cast<F>(::dlsym(lib, name));
  return fn != nullptr;
}

}  // namespace

const Mhd* load_mhd(std::string& why) {
  static Mhd mhd;
  static const Mhd* loaded = nullptr;
  static std::string error;
  static std::once_flag once;
  std::call_once(once, [] {
    void* lib = ::dlopen("libmicrohttpd.so.12", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      const char* e = ::dlerror();
      error = std::string("cannot load libmicrohttpd (install the Debian package libmicrohttpd12): ") +
              (e ? e : "dlopen failed");
      return;
    }
    const bool ok = bind(lib, "MHD_start_daemon", mhd.start_daemon) && bind(lib, "MHD_stop_daemon", mhd.stop_daemon) &&
                    bind(lib, "MHD_quiesce_daemon", mhd.quiesce_daemon) &&
                    bind(lib, "MHD_get_daemon_info", mhd.get_daemon_info) &&
                    bind(lib, "MHD_lookup_connection_value", mhd.lookup_connection_value) &&
                    bind(lib, "MHD_create_response_from_buffer", mhd.create_response_from_buffer) &&
                    bind(lib, "MHD_add_response_header", mhd.add_response_header) &&
                    bind(lib, "MHD_queue_response", mhd.queue_response) &&
                    bind(lib, "MHD_destroy_response", mhd.destroy_response);
    if (!ok) {
      error = "libmicrohttpd.so.12 lacks a function ilmap needs";
      return;
    }
    loaded = &mhd;
  });
  why = error;
  return loaded;
}

}  // namespace ilmap::serve
