// Mhd.h - the libmicrohttpd functions `ilmap serve` uses, resolved with dlopen on first use.
// Linking libmicrohttpd.so.12 would load it and GnuTLS (a dozen shared libraries) into every
// ilmap process, `ilmap --version` included (tests/meta/startup-cost.sh bounds that start);
// only `serve` needs them, so they are loaded when a server starts, as symbols/HttpGet.cpp
// loads libcurl. The types and constants come from <microhttpd.h> (libmicrohttpd-dev).
#pragma once

#include <microhttpd.h>

#include <cstdint>
#include <string>

namespace ilmap::serve {

struct Mhd {
  MHD_Daemon* (*start_daemon)(unsigned int, std::uint16_t, MHD_AcceptPolicyCallback, void*, MHD_AccessHandlerCallback,
                              void*, ...);
  void (*stop_daemon)(MHD_Daemon*);
  MHD_socket (*quiesce_daemon)(MHD_Daemon*);
  const MHD_DaemonInfo* (*get_daemon_info)(MHD_Daemon*, MHD_DaemonInfoType, ...);
  const char* (*lookup_connection_value)(MHD_Connection*, MHD_ValueKind, const char*);
  const MHD_ConnectionInfo* (*get_connection_info)(MHD_Connection*, MHD_ConnectionInfoType, ...);
  MHD_Response* (*create_response_from_buffer)(size_t, void*, MHD_ResponseMemoryMode);
  MHD_Result (*add_response_header)(MHD_Response*, const char*, const char*);
  MHD_Result (*queue_response)(MHD_Connection*, unsigned int, MHD_Response*);
  void (*destroy_response)(MHD_Response*);
};

// The loaded library, or nullptr with `why` saying why (not installed, a function missing).
const Mhd* load_mhd(std::string& why);

}  // namespace ilmap::serve
