// HttpServer.h - `ilmap serve`'s HTTP side: libmicrohttpd (serve/Mhd.h) carries requests to a
// serve::Service. One thread per connection (libmicrohttpd's own), at most
// `connection_limit` connections, each closed after `timeout_s` seconds without traffic;
// at most `max_concurrent` requests (health checks aside) between their headers and their
// answer, the next ones answered 429 with Retry-After at once. A body is read only after the
// Service admitted the request (so 404/405/401/415 and a Content-Length over the cap are
// answered without reading it); one that goes over the cap while it streams (chunked) is
// counted, not kept, and answered 413 when it ends. Bodies of other methods are dropped.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

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

  struct Impl;  // the libmicrohttpd callbacks (HttpServer.cpp)

 private:
  HttpServer(Service& service, ServerOptions options) : service_(service), opt_(std::move(options)) {}

  Service& service_;
  ServerOptions opt_;
  MHD_Daemon* daemon_ = nullptr;
  std::uint16_t port_ = 0;
  std::atomic<unsigned> in_flight_{0};
  std::atomic<bool> draining_{false};
  std::mutex drain_mutex_;
  std::condition_variable drained_;
  std::string start_error_;  // libmicrohttpd's last message while starting
};

}  // namespace ilmap::serve
