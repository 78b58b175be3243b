// HttpGet.h - one bounded HTTP GET with libcurl, as a symbol-server client needs it: connect and
// read timeouts, a deadline for the whole download, a size cap checked before and while the
// body arrives, redirects (http/https only, at most 5), a few retries with backoff on 5xx,
// timeouts and broken connections, and the proxy settings of the environment (http_proxy,
// HTTPS_PROXY, no_proxy: libcurl's default). A body goes to memory (small files) or straight
// to a temporary file (http_get_to_file), so memory does not grow with the download.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "support/AtomicFile.h"
#include "ilmap/status.h"

namespace ilmap::symbols {

// Bytes received by all transfers that share it (for a progress line, a service's metrics),
// retries included; and how the transfers ended: a whole 200 body, 404 or 410, anything else.
struct TransferCounter {
  std::atomic<std::uint64_t> bytes{0};
  std::atomic<std::uint64_t> completed{0};
  std::atomic<std::uint64_t> not_found{0};
  std::atomic<std::uint64_t> failed{0};
  void count(const Status& s) {
    (s ? completed : s.error().code == Errc::kNotFound ? not_found : failed).fetch_add(1, std::memory_order_relaxed);
  }
};

struct HttpOptions {
  long connect_timeout_ms = 10000;
  // A transfer slower than 1 KiB/s for this long is a timeout.
  long read_timeout_s = 30;
  // The whole download (every attempt and the waits between them) within this many seconds: a
  // server that sends just above the low-speed limit cannot hold a download for days.
  long total_timeout_s = 300;
  std::uint64_t max_bytes = std::uint64_t(1) << 30;
  int attempts = 3;           // tries in all (5xx, timeouts, broken connections)
  long backoff_ms = 250;      // before the 2nd try; doubled for each further one
  TransferCounter* counter = nullptr;  // when set, every body byte received is added to it
};

// The body of a 200 answer. kNotFound for 404 and 410; kTooLarge over max_bytes; kIo for other
// statuses, transport errors (after the retries) and the deadline (total_timeout_s); kMalformed
// for a header with a control character (never sent); messages name the URL.
Result<std::vector<std::uint8_t>> http_get(const std::string& url, const std::vector<std::string>& headers,
                                           const HttpOptions& options);

// The same, the body written to `out` (emptied first, and again before each retry): at most
// max_bytes on disk, a few KiB in memory. kIo also when the file cannot be written.
Status http_get_to_file(const std::string& url, const std::vector<std::string>& headers, const HttpOptions& options,
                        TempFile& out);

// `segment` with everything but unreserved characters percent-encoded (Uri.EscapeDataString).
std::string url_escape_segment(const std::string& segment);

}  // namespace ilmap::symbols
