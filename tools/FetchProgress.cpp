// FetchProgress.cpp - see FetchProgress.h.
#include "tools/FetchProgress.h"

#include <cstdio>

#include "ilmap/status.h"

namespace ilmap::cli {
namespace {

std::string human_bytes(double b) {
  static const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (b >= 1024 && u < 4) {
    b /= 1024;
    ++u;
  }
  return u == 0 ? format("%.0f %s", b, units[u]) : format("%.1f %s", b, units[u]);
}

}  // namespace

std::string progress_line(std::size_t done, std::size_t total, std::uint64_t bytes, double seconds) {
  std::string s = format("ilmap: fetch: %zu/%zu module%s, %s received", done, total, total == 1 ? "" : "s",
                         human_bytes(static_cast<double>(bytes)).c_str());
  if (seconds > 0) s += " (" + human_bytes(static_cast<double>(bytes) / seconds) + "/s)";
  return s;
}

FetchProgress::FetchProgress(bool enabled, std::size_t total, const std::atomic<std::size_t>& done,
                             const symbols::TransferCounter& counter)
    : total_(total), done_(done), counter_(counter), start_(std::chrono::steady_clock::now()) {
  if (enabled) thread_ = std::thread([this] { run(); });
}

FetchProgress::~FetchProgress() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
  if (shown_) {
    std::fputs("\r\033[K", stderr);
    std::fflush(stderr);
  }
}

void FetchProgress::run() {
  std::unique_lock<std::mutex> lock(mutex_);
  if (wake_.wait_for(lock, kDelay, [this] { return stop_; })) return;
  do {
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    const std::string line = progress_line(std::min(done_.load(), total_), total_, counter_.bytes.load(), secs);
    std::fprintf(stderr, "\r%s\033[K", line.c_str());
    std::fflush(stderr);
    shown_ = true;
  } while (!wake_.wait_for(lock, kTick, [this] { return stop_; }));
}

}  // namespace ilmap::cli
