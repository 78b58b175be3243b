// Service.h - what `ilmap serve` answers, apart from HTTP: routes, methods, content types, the
// bearer token and the body cap are checked here (before a body is read: `admit`), and a
// complete request is answered here (`handle`). serve/HttpServer.h carries requests from
// libmicrohttpd to it; tests can call it directly. Endpoints and statuses: docs/serve.md.
//
// Resolution is the one of `ilmap symbolicate`: a symbols::ModuleIndex over the search set,
// the cache directory and the symbol path, and a symbolicate::Symbolicator per request, so an
// answer is byte for byte what the command prints for the same text.
// A ModuleIndex is not thread-safe (it memoizes answers and keeps Cache pointers in maps), so
// the service keeps a pool of them, one per worker: a request takes one for its time, and
// requests beyond the number of workers wait for one. The indexes share one KeyedLocks
// (ResolveConfig::shared_by_workers, ModuleIndexOptions::single_flight), so a module many
// requests ask for at once is downloaded and compiled once: the others wait for it and then
// reuse its cache. An index that holds more than `max_open` caches, or that was made before an
// eviction from the cache directory, is replaced by a fresh one when it comes back to the pool,
// which bounds the open mappings and lets the space of evicted files go. Health endpoints never take an index.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "serve/Metrics.h"
#include "symbolicate/MsymSource.h"
#include "symbolicate/SourceProvider.h"
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
  // ?context=N (as --context N, 0 to 100); `context_text` is the raw value when it is not such
  // a number (answered 400).
  std::optional<std::uint32_t> context;
  std::string_view context_text;
};

struct ServiceOptions {
  std::uint64_t max_body = std::uint64_t(10) << 20;  // bytes
  std::string token;                                 // bearer token; empty: none asked
  unsigned workers = 1;                              // module indexes: requests resolved at once
  // Frames of one request: a text with more is answered 413; a Sentry event's or a batch's
  // frames past it are left (status too_many_frames). 0: no cap.
  std::uint64_t max_frames = 0;
  // A text request still being resolved after this many seconds is answered 503 with
  // Retry-After (checked between pieces of 64 KiB; one download is bounded by its own
  // timeout). 0: no cap.
  unsigned request_timeout_s = 0;
  std::size_t max_open = 1024;  // caches an index may hold open before it is replaced
  // The cache directory and its cap: when the .ilmap files under it pass this many bytes, the
  // least recently used are deleted (their modification time: touched on reuse) down to 90%
  // of it. 0: no cap.
  std::string cache_dir;
  std::uint64_t cache_max_bytes = 0;
  // Source text in answers (?context=N, a Sentry frame's pre_context...): off unless asked for.
  // When on, caches are compiled with the PDBs' embedded sources, and `source_roots` map
  // document paths to checkouts (a file used only when its checksum is the PDB's).
  bool source_context = false;
  std::vector<SourceRoot> source_roots;
  // The counter the indexes' downloads add to (HttpOptions::counter), for /metrics; may be null.
  std::shared_ptr<symbols::TransferCounter> downloads;
  // Mono AOT frames: where their .msym files are (MsymSource::create: --msym-dir folders and the
  // symbol path; docs/msym.md), one source shared by the workers. Null: none.
  std::shared_ptr<symbolicate::MsymSource> msym;
};

// Makes one module index (all the same options; they share one single_flight).
using IndexFactory = std::function<Result<std::unique_ptr<symbols::ModuleIndex>>()>;

class Service {
 public:
  // Makes `options.workers` indexes (the first error is returned).
  static Result<std::unique_ptr<Service>> create(IndexFactory make_index, ServiceOptions options);
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
  // Deletes the least recently used caches of the cache directory while the .ilmap files
  // there hold more than cache_max_bytes (down to 90% of it); no-op without a cap. Called at
  // start and after a request that compiled a cache. Returns the files deleted.
  std::size_t enforce_cache_cap();

 private:
  class Lease;
  Service(IndexFactory make_index, ServiceOptions options);
  Lease lease();
  void give_back(std::unique_ptr<symbols::ModuleIndex> index, std::uint64_t generation,
                 const symbols::ModuleIndexStats& before);
  Response symbolicate(const Request& request);
  Response sentry(const Request& request, const std::string& type);
  Response lookup(std::string_view segments);  // what follows "/lookup/"

  IndexFactory make_index_;
  std::mutex pool_mutex_;
  std::condition_variable pool_returned_;
  // Free indexes, each with the eviction generation it was made in.
  std::vector<std::pair<std::unique_ptr<symbols::ModuleIndex>, std::uint64_t>> pool_;
  std::atomic<std::uint64_t> evictions_{0};  // the generation: indexes older are replaced
  std::atomic<std::int64_t> open_total_{0};  // caches open in all indexes (the metric)
  std::atomic<std::uint64_t> cache_bytes_{0};  // .ilmap bytes under cache_dir at the last sweep
  std::mutex sweep_mutex_;
  ServiceOptions opt_;
  std::atomic<bool> draining_{false};
  Metrics metrics_;
};

}  // namespace ilmap::serve
