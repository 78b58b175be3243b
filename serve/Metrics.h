// Metrics.h - the counters `ilmap serve` exposes at GET /metrics, in Prometheus' text format
// (version 0.0.4): requests by endpoint and status, their time (a histogram), frames resolved
// or left by reason, caches reused, compiled and evicted, and the gauges and download counts
// the service passes in when it renders (open caches, cache bytes, resident memory). Labels take
// values from fixed sets only (endpoint names, status codes, reason names), never from a
// request's text, so a client cannot grow them.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>

namespace ilmap::serve {

// What the service knows at the moment of rendering.
struct MetricsGauges {
  std::uint64_t open_caches = 0;       // caches mapped by the workers' indexes
  std::uint64_t cache_bytes = 0;       // .ilmap bytes in the cache directory (last sweep)
  std::uint64_t resident_bytes = 0;    // the process's resident memory
  std::uint64_t workers = 0, workers_busy = 0;
  std::uint64_t downloads_ok = 0, downloads_not_found = 0, downloads_failed = 0, download_bytes = 0;
};

class Metrics {
 public:
  // Upper bounds of the latency histogram's buckets, in seconds (+Inf after them).
  static constexpr std::array<double, 11> kBuckets = {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
                                                      0.1,   0.25,   0.5,   1.0,  5.0};

  // The endpoint label of a path: symbolicate, lookup, healthz, readyz, metrics, page
  // (the page's three files), or other.
  static const char* endpoint_of(std::string_view path);

  void request(std::string_view path, unsigned status, double seconds);
  void frames(std::uint64_t resolved, const std::map<std::string, std::uint64_t>& unresolved_by_reason);
  // Caches found ready and compiled by one request's index; files evicted from the cache
  // directory and their bytes.
  void caches(std::uint64_t reused, std::uint64_t compiled);
  void evicted(std::uint64_t files, std::uint64_t bytes);
  std::string render(const MetricsGauges& gauges) const;

 private:
  struct Latency {
    std::array<std::uint64_t, kBuckets.size()> le{};  // observations <= kBuckets[i] (not cumulative)
    double sum = 0;
    std::uint64_t count = 0;
  };
  mutable std::mutex mutex_;
  std::map<std::pair<std::string, unsigned>, std::uint64_t> requests_;
  std::map<std::string, Latency> seconds_;  // by endpoint
  std::uint64_t resolved_ = 0;
  std::map<std::string, std::uint64_t> unresolved_;
  std::uint64_t reused_ = 0, compiled_ = 0, evicted_files_ = 0, evicted_bytes_ = 0;
};

}  // namespace ilmap::serve
