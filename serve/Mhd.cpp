// Mhd.cpp - see Mhd.h: libmicrohttpd loaded with dlopen, once, by the first server.
#include "serve/Mhd.h"
#include "support/SharedLibrary.h"

#include <mutex>

namespace ilmap::serve {

const Mhd* load_mhd(std::string& why) {
  static Mhd mhd;
  static const Mhd* loaded = nullptr;
  static std::string error;
  static std::once_flag once;
  std::call_once(once, [] {
    void* lib = open_shared_library("libmicrohttpd.so.12", "libmicrohttpd", "libmicrohttpd12", error);
    if (!lib) return;
    const bool ok = bind_symbol(lib, "MHD_start_daemon", mhd.start_daemon) &&
                    bind_symbol(lib, "MHD_stop_daemon", mhd.stop_daemon) &&
                    bind_symbol(lib, "MHD_quiesce_daemon", mhd.quiesce_daemon) &&
                    bind_symbol(lib, "MHD_get_daemon_info", mhd.get_daemon_info) &&
                    bind_symbol(lib, "MHD_lookup_connection_value", mhd.lookup_connection_value) &&
                    bind_symbol(lib, "MHD_get_connection_info", mhd.get_connection_info) &&
                    bind_symbol(lib, "MHD_create_response_from_buffer", mhd.create_response_from_buffer) &&
                    bind_symbol(lib, "MHD_add_response_header", mhd.add_response_header) &&
                    bind_symbol(lib, "MHD_queue_response", mhd.queue_response) &&
                    bind_symbol(lib, "MHD_destroy_response", mhd.destroy_response);
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
