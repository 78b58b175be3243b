// Metrics.cpp - see Metrics.h.
#include "serve/Metrics.h"

#include "serve/Page.h"

#include <cstdio>

namespace ilmap::serve {
namespace {

// A label value as the text format asks: '\', '"' and newline escaped (reason names are ours,
// but the rule costs nothing).
std::string label(std::string_view v) {
  std::string out;
  for (const char c : v) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

}  // namespace

const char* Metrics::endpoint_of(std::string_view path) {
  if (path == "/symbolicate") return "symbolicate";
  if (path.starts_with("/lookup/")) return "lookup";
  if (path == "/healthz") return "healthz";
  if (path == "/readyz") return "readyz";
  if (path == "/metrics") return "metrics";
  if (is_page(path)) return "page";
  return "other";
}

void Metrics::request(std::string_view path, unsigned status, double seconds) {
  const std::string endpoint = endpoint_of(path);
  const std::lock_guard<std::mutex> lock(mutex_);
  ++requests_[{endpoint, status}];
  Latency& l = seconds_[endpoint];
  for (std::size_t i = 0; i < kBuckets.size(); ++i)
    if (seconds <= kBuckets[i]) {
      ++l.le[i];
      break;
    }
  l.sum += seconds;
  ++l.count;
}

void Metrics::caches(std::uint64_t reused, std::uint64_t compiled) {
  const std::lock_guard<std::mutex> lock(mutex_);
  reused_ += reused;
  compiled_ += compiled;
}

void Metrics::evicted(std::uint64_t files, std::uint64_t bytes) {
  const std::lock_guard<std::mutex> lock(mutex_);
  evicted_files_ += files;
  evicted_bytes_ += bytes;
}

void Metrics::frames(std::uint64_t resolved, const std::map<std::string, std::uint64_t>& unresolved_by_reason) {
  const std::lock_guard<std::mutex> lock(mutex_);
  resolved_ += resolved;
  for (const auto& [reason, n] : unresolved_by_reason)
    if (n) unresolved_[reason] += n;
}

std::string Metrics::render(const MetricsGauges& g) const {
  const std::lock_guard<std::mutex> lock(mutex_);
  std::string out;
  char num[64];
  auto one = [&out](const char* name, const char* type, const char* help, std::uint64_t v) {
    out += std::string("# HELP ") + name + " " + help + "\n# TYPE " + name + " " + type + "\n" + name + " " +
           std::to_string(v) + "\n";
  };
  out += "# HELP ilmap_serve_requests_total Requests answered, by endpoint and status.\n";
  out += "# TYPE ilmap_serve_requests_total counter\n";
  for (const auto& [key, n] : requests_) {
    std::snprintf(num, sizeof num, "%llu", static_cast<unsigned long long>(n));
    out += "ilmap_serve_requests_total{endpoint=\"" + key.first + "\",status=\"" + std::to_string(key.second) + "\"} " +
           num + "\n";
  }
  out += "# HELP ilmap_serve_request_duration_seconds Time from a request's headers to its answer sent.\n";
  out += "# TYPE ilmap_serve_request_duration_seconds histogram\n";
  for (const auto& [endpoint, l] : seconds_) {
    std::uint64_t cumulative = 0;
    for (std::size_t i = 0; i < kBuckets.size(); ++i) {
      cumulative += l.le[i];
      std::snprintf(num, sizeof num, "%g", kBuckets[i]);
      out += "ilmap_serve_request_duration_seconds_bucket{endpoint=\"" + endpoint + "\",le=\"" + num + "\"} " +
             std::to_string(cumulative) + "\n";
    }
    out += "ilmap_serve_request_duration_seconds_bucket{endpoint=\"" + endpoint + "\",le=\"+Inf\"} " +
           std::to_string(l.count) + "\n";
    std::snprintf(num, sizeof num, "%.6f", l.sum);
    out += "ilmap_serve_request_duration_seconds_sum{endpoint=\"" + endpoint + "\"} " + num + "\n";
    out += "ilmap_serve_request_duration_seconds_count{endpoint=\"" + endpoint + "\"} " + std::to_string(l.count) + "\n";
  }
  out += "# HELP ilmap_serve_frames_resolved_total Frames given a file and line.\n";
  out += "# TYPE ilmap_serve_frames_resolved_total counter\n";
  out += "ilmap_serve_frames_resolved_total " + std::to_string(resolved_) + "\n";
  out += "# HELP ilmap_serve_frames_unresolved_total Frames left as they were, by reason.\n";
  out += "# TYPE ilmap_serve_frames_unresolved_total counter\n";
  for (const auto& [reason, n] : unresolved_)
    out += "ilmap_serve_frames_unresolved_total{reason=\"" + label(reason) + "\"} " + std::to_string(n) + "\n";
  one("ilmap_serve_cache_reused_total", "counter", "Modules answered by a cache found ready (cache directory, search set, store).",
      reused_);
  one("ilmap_serve_cache_compiled_total", "counter", "Caches compiled (a module asked for the first time).", compiled_);
  one("ilmap_serve_cache_evictions_total", "counter", "Caches deleted from the cache directory by --cache-max-size.",
      evicted_files_);
  one("ilmap_serve_cache_evicted_bytes_total", "counter", "Bytes of the caches deleted by --cache-max-size.",
      evicted_bytes_);
  one("ilmap_serve_cache_bytes", "gauge", "Bytes of the .ilmap files in the cache directory (at the last sweep).",
      g.cache_bytes);
  one("ilmap_serve_open_caches", "gauge", "Caches mapped by the workers' module indexes.", g.open_caches);
  out += "# HELP ilmap_serve_downloads_total Downloads from symbol servers, by how they ended.\n";
  out += "# TYPE ilmap_serve_downloads_total counter\n";
  out += "ilmap_serve_downloads_total{result=\"ok\"} " + std::to_string(g.downloads_ok) + "\n";
  out += "ilmap_serve_downloads_total{result=\"not_found\"} " + std::to_string(g.downloads_not_found) + "\n";
  out += "ilmap_serve_downloads_total{result=\"error\"} " + std::to_string(g.downloads_failed) + "\n";
  one("ilmap_serve_download_bytes_total", "counter", "Body bytes received from symbol servers, retries included.",
      g.download_bytes);
  one("ilmap_serve_workers", "gauge", "Module indexes (requests resolved at once, --workers).", g.workers);
  one("ilmap_serve_workers_busy", "gauge", "Module indexes in use by a request.", g.workers_busy);
  one("ilmap_serve_resident_memory_bytes", "gauge", "Resident memory of the process.", g.resident_bytes);
  return out;
}

}  // namespace ilmap::serve
