// HttpServer.h - `ilmap serve`'s HTTP side: libmicrohttpd (serve/Mhd.h) carries requests to a
// serve::Service. One thread per connection (libmicrohttpd's own), at most
// `connection_limit` connections, each closed after `timeout_s` seconds without traffic, and
// each request given `receive_timeout_s` seconds to arrive whole (headers and body, counted
// from the connection's opening or its previous answer): a client that sends slowly cannot
// keep a connection longer. A request is admitted (404/405/401/415, and 413 from its
// Content-Length) when its headers have arrived, before its body is read; it counts against
// `max_concurrent` only once it has arrived whole, the next ones past it answered 429 with
// Retry-After at once (health checks aside). A body that goes past the cap while it streams
// (chunked) is answered 413 at once and its connection closed. Bodies of other methods are
// read and dropped, up to the same cap.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "ilmap/status.h"
#include "serve/Service.h"

struct MHD_Daemon;

namespace ilmap::serve {

struct ServerOptions {
  std::string host = "127.0.0.1";  // an IPv4 address
  std::uint16_t port = 8327;       // 0: any free port (port() says which)
  unsigned max_concurrent = 8;
  unsigned connection_limit = 64;
  unsigned timeout_s = 30;
  unsigned receive_timeout_s = 60;  // 0: no limit
  // One line per request (the access log) and libmicrohttpd's own errors; no newline.
  std::function<void(const std::string&)> log;
};

class HttpServer {
 public:
  // Loads libmicrohttpd and listens. kUsage for a host that is not an IPv4 address, kIo when
  // the address cannot be bound (in use, not local), kUnsupported without libmicrohttpd.
  static Result<std::unique_ptr<HttpServer>> start(Service& service, ServerOptions options);
  ~HttpServer();  // stop(0) unless stopped

  std::uint16_t port() const { return port_; }
  std::string url() const;  // http://HOST:PORT

  // Stops accepting connections, tells /readyz to answer 503, waits at most `drain_s`
  // seconds for the requests in flight to be answered, then closes every connection.
  void stop(unsigned drain_s);

  struct Impl;      // the libmicrohttpd callbacks (HttpServer.cpp)
  struct Arrivals;  // the connections whose request is arriving, and their deadline (HttpServer.cpp)

 private:
  HttpServer(Service& service, ServerOptions options);

  Service& service_;
  ServerOptions opt_;
  MHD_Daemon* daemon_ = nullptr;
  std::uint16_t port_ = 0;
  std::atomic<unsigned> in_flight_{0};
  std::atomic<bool> draining_{false};
  std::mutex drain_mutex_;
  std::condition_variable drained_;
  std::string start_error_;  // libmicrohttpd's last message while starting
  std::unique_ptr<Arrivals> arrivals_;
};

}  // namespace ilmap::serve
