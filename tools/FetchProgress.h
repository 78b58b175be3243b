// FetchProgress.h - the progress line of `ilmap fetch` on a terminal: one stderr line,
// rewritten in place ("\r...\033[K") a few times a second while modules are resolved, erased at
// the end. Shown only when stderr is a terminal (never in captured output) and not with -v
// (whose notes would interleave), and only once the run has lasted kDelay (no flicker for quick
// runs).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

#include "symbols/HttpGet.h"

namespace ilmap::cli {

// "ilmap: fetch: 3/10 modules, 1.5 MiB received (512.0 KiB/s)"; sizes in B, KiB, MiB, GiB.
std::string progress_line(std::size_t done, std::size_t total, std::uint64_t bytes, double seconds);

class FetchProgress {
 public:
  static constexpr std::chrono::milliseconds kDelay{300};
  static constexpr std::chrono::milliseconds kTick{200};

  // Starts the line's thread when `enabled` (the caller checks isatty and -v).
  FetchProgress(bool enabled, std::size_t total, const std::atomic<std::size_t>& done,
                const symbols::TransferCounter& counter);
  ~FetchProgress();  // stops the thread and erases the line
  FetchProgress(const FetchProgress&) = delete;
  FetchProgress& operator=(const FetchProgress&) = delete;

 private:
  void run();
  std::size_t total_;
  const std::atomic<std::size_t>& done_;
  const symbols::TransferCounter& counter_;
  std::chrono::steady_clock::time_point start_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  bool shown_ = false;
  std::thread thread_;
};

}  // namespace ilmap::cli
