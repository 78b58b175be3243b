// Service.h - what `ilmap serve` answers, apart from HTTP: routes, methods, content types, the
// bearer token and the body cap are checked here (before a body is read: `admit`), and a
// complete request is answered here (`handle`). serve/HttpServer.h carries requests from
// libmicrohttpd to it; tests can call it directly. Endpoints and statuses: docs/serve.md.
//
// Resolution is the one of `ilmap symbolicate`: one symbols::ModuleIndex over the search set,
// the cache directory and the symbol path, and a symbolicate::Symbolicator per request, so an
// answer is byte for byte what the command prints for the same text.
// ModuleIndex is not thread-safe (it memoizes answers, compiles into the cache directory and
// keeps Cache pointers in maps): one mutex serializes every use of it, so requests that
// resolve frames run one at a time, and the others wait (at most --max-concurrent in all).
// Health endpoints never take it.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "serve/Metrics.h"
#include "symbols/ModuleIndex.h"

namespace ilmap::serve {

struct Response {
  unsigned status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
};

// A JSON error: {"error": "<message>"} (escaped as JSON; bytes that are not UTF-8 replaced).
Response error_response(unsigned status, const std::string& message);

// What is known of a request when its headers have arrived.
struct RequestHead {
  std::string_view method, path;       // path decoded, without the query
  std::string_view content_type;       // "" when absent
  std::string_view authorization;      // "" when absent
  std::optional<std::uint64_t> content_length;  // absent with chunked transfer encoding
};

struct Request {
  RequestHead head;
  std::string_view body;
  // Query parameters of POST /symbolicate (as `ilmap symbolicate` flags): ?columns=1&urls=1&json=1
  bool columns = false, urls = false, json = false;
};

struct ServiceOptions {
  std::uint64_t max_body = std::uint64_t(10) << 20;  // bytes
  std::string token;                                 // bearer token; empty: none asked
};

class Service {
 public:
  Service(std::unique_ptr<symbols::ModuleIndex> index, ServiceOptions options);
  ~Service();

  // The answer to give before reading the body (unknown path 404, method 405, token 401,
  // content type 415, Content-Length over the cap 413), or nullopt to read it and `handle`.
  std::optional<Response> admit(const RequestHead& head) const;
  // Answers an admitted request whose body was read whole (at most max_body bytes).
  Response handle(const Request& request);

  // Health checks are answered without the token and are not counted as requests in flight.
  static bool is_health(std::string_view path) { return path == "/healthz" || path == "/readyz"; }
  // After this, /readyz answers 503 (a load balancer stops sending), the rest as before.
  void set_draining() { draining_.store(true); }
  std::uint64_t max_body() const { return opt_.max_body; }
  Metrics& metrics() { return metrics_; }

 private:
  Response symbolicate(const Request& request);
  Response sentry(const Request& request, const std::string& type);
  Response lookup(std::string_view segments);  // what follows "/lookup/"

  std::unique_ptr<symbols::ModuleIndex> index_;
  std::mutex index_mutex_;  // every use of index_ (see the top of this file)
  ServiceOptions opt_;
  std::atomic<bool> draining_{false};
  Metrics metrics_;
};

}  // namespace ilmap::serve
