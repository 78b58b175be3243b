// KeyedLocks.h - one holder at a time per key (a string), any number of keys at once: the
// "single flight" of work that several threads may ask for together, such as the download and
// compile of one module when many requests name it. A thread that wants a key held by another
// waits until it is released, then finds the work done (it checks again under the lock).
// Keys are kept only while held, so memory is bounded by the number of holders.
#pragma once

#include <condition_variable>
#include <mutex>
#include <string>
#include <unordered_set>
#include <utility>

namespace ilmap {

class KeyedLocks {
 public:
  class Guard {
   public:
    Guard() = default;
    Guard(KeyedLocks* owner, std::string key) : owner_(owner), key_(std::move(key)) {}
    Guard(Guard&& o) noexcept : owner_(std::exchange(o.owner_, nullptr)), key_(std::move(o.key_)) {}
    Guard& operator=(Guard&& o) noexcept {
      if (this != &o) {
        release();
        owner_ = std::exchange(o.owner_, nullptr);
        key_ = std::move(o.key_);
      }
      return *this;
    }
    Guard(const Guard&) = delete;
    Guard& operator=(const Guard&) = delete;
    ~Guard() { release(); }
    void release() {
      if (owner_) std::exchange(owner_, nullptr)->unlock(key_);
    }

   private:
    KeyedLocks* owner_ = nullptr;
    std::string key_;
  };

  // Blocks until no other Guard holds `key`, then holds it. Not recursive: a thread that holds
  // a key must not ask for it again.
  Guard lock(const std::string& key) {
    std::unique_lock<std::mutex> l(mutex_);
    released_.wait(l, [&] { return !held_.contains(key); });
    held_.insert(key);
    return Guard(this, key);
  }

 private:
  void unlock(const std::string& key) {
    {
      const std::lock_guard<std::mutex> l(mutex_);
      held_.erase(key);
    }
    released_.notify_all();
  }
  std::mutex mutex_;
  std::condition_variable released_;
  std::unordered_set<std::string> held_;
};

}  // namespace ilmap
