// Metrics.cpp - see Metrics.h.
#include "serve/Metrics.h"

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
  return "other";
}

void Metrics::request(std::string_view path, unsigned status, double seconds) {
  const std::string endpoint = endpoint_of(path);
  const std::lock_guard<std::mutex> lock(mutex_);
  ++requests_[{endpoint, status}];
  auto& s = seconds_[endpoint];
  s.first += seconds;
  ++s.second;
}

void Metrics::frames(std::uint64_t resolved, const std::map<std::string, std::uint64_t>& unresolved_by_reason) {
  const std::lock_guard<std::mutex> lock(mutex_);
  resolved_ += resolved;
  for (const auto& [reason, n] : unresolved_by_reason)
    if (n) unresolved_[reason] += n;
}

std::string Metrics::render() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  std::string out;
  char num[64];
  out += "# HELP ilmap_serve_requests_total Requests answered, by endpoint and status.\n";
  out += "# TYPE ilmap_serve_requests_total counter\n";
  for (const auto& [key, n] : requests_) {
    std::snprintf(num, sizeof num, "%llu", static_cast<unsigned long long>(n));
    out += "ilmap_serve_requests_total{endpoint=\"" + key.first + "\",status=\"" + std::to_string(key.second) + "\"} " +
           num + "\n";
  }
  out += "# HELP ilmap_serve_request_duration_seconds Time from a request's headers to its answer sent.\n";
  out += "# TYPE ilmap_serve_request_duration_seconds summary\n";
  for (const auto& [endpoint, s] : seconds_) {
    std::snprintf(num, sizeof num, "%.6f", s.first);
    out += "ilmap_serve_request_duration_seconds_sum{endpoint=\"" + endpoint + "\"} " + num + "\n";
    out += "ilmap_serve_request_duration_seconds_count{endpoint=\"" + endpoint + "\"} " + std::to_string(s.second) + "\n";
  }
  out += "# HELP ilmap_serve_frames_resolved_total Frames given a file and line.\n";
  out += "# TYPE ilmap_serve_frames_resolved_total counter\n";
  out += "ilmap_serve_frames_resolved_total " + std::to_string(resolved_) + "\n";
  out += "# HELP ilmap_serve_frames_unresolved_total Frames left as they were, by reason.\n";
  out += "# TYPE ilmap_serve_frames_unresolved_total counter\n";
  for (const auto& [reason, n] : unresolved_)
    out += "ilmap_serve_frames_unresolved_total{reason=\"" + label(reason) + "\"} " + std::to_string(n) + "\n";
  return out;
}

}  // namespace ilmap::serve
