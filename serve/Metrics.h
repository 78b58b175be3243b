// Metrics.h - the counters `ilmap serve` exposes at GET /metrics, in Prometheus' text format
// (version 0.0.4): requests by endpoint and status, their time, and frames resolved or left by
// reason. Labels take values from fixed sets only (endpoint names, status codes, reason names),
// never from a request's text, so a client cannot grow them.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>

namespace ilmap::serve {

class Metrics {
 public:
  // The endpoint label of a path: symbolicate, lookup, healthz, readyz, metrics, or other.
  static const char* endpoint_of(std::string_view path);

  void request(std::string_view path, unsigned status, double seconds);
  void frames(std::uint64_t resolved, const std::map<std::string, std::uint64_t>& unresolved_by_reason);
  std::string render() const;

 private:
  mutable std::mutex mutex_;
  std::map<std::pair<std::string, unsigned>, std::uint64_t> requests_;
  std::map<std::string, std::pair<double, std::uint64_t>> seconds_;  // endpoint -> (sum, count)
  std::uint64_t resolved_ = 0;
  std::map<std::string, std::uint64_t> unresolved_;
};

}  // namespace ilmap::serve
