// AnswerMemo.h - the module index's memoized answers (symbols/ModuleIndex.cpp), one per identity
// key. An answer that found a cache stands for the index's life; a miss stands until its time is
// up (ModuleIndexOptions::miss_ttl_s) or until another index sharing the epoch
// (ModuleIndexOptions::compiled_epoch) has made a cache since. Bounded: past kMaxAnswers, a new
// answer is not kept but returned from one scratch slot that the memo's next such answer
// overwrites (a log naming millions of distinct unknown modules must not grow memory).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>

#include "symbols/ModuleIndex.h"

namespace ilmap::symbols {

// When a miss is worked out again: after `ttl_s` seconds (-1: never), or once `epoch` (shared by
// the indexes of one cache directory; null: none) has moved on.
struct MissPolicy {
  long ttl_s = -1;
  std::shared_ptr<std::atomic<std::uint64_t>> epoch;

  std::uint64_t current() const { return epoch ? epoch->load(std::memory_order_acquire) : 0; }
};

class AnswerMemo {
 public:
  static constexpr std::size_t kMaxAnswers = 65536;

  // `made` counts the caches the owning index compiled or took from a symbol server; when a
  // computation raises it, the shared epoch moves on (after the cache is in place), so the other
  // indexes look again: a cache one worker made ends another's "not found".
  AnswerMemo(const MissPolicy& policy, const std::size_t& made) : policy_(policy), made_(made) {}

  // The answer of `key`, memoized, or what `compute()` gives. A miss past its time is worked out
  // again in place (map nodes stay put, so references given out stay valid; `compute` may itself
  // ask this memo for other keys).
  template <class F>
  const ModuleAnswer& get(std::string key, F&& compute) {
    if (auto it = memo_.find(key); it != memo_.end()) {
      Memo& m = it->second;
      if (!stands(m)) m = computed(compute);
      return m.answer;
    }
    Memo m = computed(compute);
    if (memo_.size() >= kMaxAnswers) {
      scratch_ = std::move(m.answer);
      return scratch_;
    }
    return memo_.emplace(std::move(key), std::move(m)).first->second.answer;
  }

 private:
  using Clock = std::chrono::steady_clock;
  struct Memo {
    ModuleAnswer answer;
    Clock::time_point at;
    std::uint64_t epoch = 0;  // the shared epoch before the answer was worked out
  };

  bool stands(const Memo& m) const {
    if (m.answer.miss == Miss::kNone) return true;
    if (m.epoch != policy_.current()) return false;
    return policy_.ttl_s < 0 || Clock::now() - m.at < std::chrono::seconds(policy_.ttl_s);
  }
  template <class F>
  Memo computed(F& compute) {
    const std::uint64_t e = policy_.current();
    const std::size_t before = made_;
    ModuleAnswer a = compute();
    if (made_ != before && policy_.epoch) policy_.epoch->fetch_add(1, std::memory_order_acq_rel);
    return Memo{std::move(a), Clock::now(), e};
  }

  const MissPolicy& policy_;
  const std::size_t& made_;
  std::unordered_map<std::string, Memo> memo_;
  ModuleAnswer scratch_;
};

}  // namespace ilmap::symbols
