// StoreWatch.cpp - see StoreWatch.h. The queue's state is where each package file is (INBOX,
// INBOX/.ilmap-work, the archive, INBOX/failed): every move is one rename, so a kill at any
// point leaves each package in exactly one of those places, and a claimed one is redone.
#include "symbols/StoreWatch.h"

#include <xxhash.h>

#include <algorithm>
#include <climits>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <thread>

#include "support/AtomicFile.h"
#include "support/Platform.h"
#include "support/TextEscape.h"
#include "symbols/S3Store.h"

namespace ilmap::symbols {
namespace {

namespace fs = std::filesystem;

constexpr int kMaxAttempts = 3;
constexpr const char* kWorkDir = ".ilmap-work";

void test_hook(const char* point) {
  const char* v = std::getenv("ILMAP_TEST_WATCH_KILL");
  if (v && std::strcmp(v, point) == 0) {
    std::fflush(nullptr);
    platform::kill_self();
  }
}

bool exists(const std::string& p) {
  platform::FileInfo st;
  return platform::stat_path(p, st, false);
}

// Moves `from` into `dir` under `name`, or `name.1`, `name.2`... when taken (never replacing
// anything: renameat2 RENAME_NOREPLACE, or copy + rename across file systems). `reserve_also`
// is a suffix whose file must be free too (".reason"). Returns the final path.
Result<std::string> move_into(const std::string& from, const std::string& dir, const std::string& name,
                              const std::string& reserve_also, const std::function<Status(const std::string&)>& before) {
  std::error_code ec;
  fs::create_directories(platform::fs_path(dir), ec);
  if (ec) return Error{Errc::kIo, dir + ": cannot create: " + ec.message()};
  for (int k = 0; k < 10000; ++k) {
    const std::string to = dir + "/" + (k ? name + "." + std::to_string(k) : name);
    if (exists(to) || (!reserve_also.empty() && exists(to + reserve_also))) continue;
    if (before)
      if (Status s = before(to); !s) return s.error();
    if (platform::rename_no_replace(from, to) == 0) return to;
    if (errno == EEXIST) continue;
    if (errno != EXDEV && errno != EINVAL && errno != ENOSYS)
      return Error{Errc::kIo, from + ": cannot move to " + to + ": " + std::strerror(errno)};
    // Another file system (or no RENAME_NOREPLACE): copy atomically, then drop the original.
    auto bytes = read_plain_file(from, std::uint64_t(64) << 30);
    if (!bytes) return bytes.error();
    if (Status s = write_file_atomically(to, *bytes, true); !s) return s.error();
    if (platform::remove_file(from) != 0) return Error{Errc::kIo, from + ": cannot remove after copying: " + std::strerror(errno)};
    return to;
  }
  return Error{Errc::kIo, dir + ": no free name for " + name};
}

// The longest suffix the queue appends to a package's name: ".NNNN" (move_into's free-name
// counter, below 10000) then ".reason" in failed/; ".attempts" in the work folder is shorter.
constexpr std::size_t kLongestSuffix = 5 + 7;

// The name a package's bookkeeping files and destinations are derived from: its own name when
// every derived name fits in one directory entry (NAME_MAX bytes), else a prefix of it (cut on
// a UTF-8 character boundary), "~", 16 hex digits of XXH3 of the whole name and the package's
// extension, so that NAME.attempts and failed/NAME.reason can always be created (without them
// the crash-loop guard would be off and a failure could not be recorded).
std::string bookkeeping_name(const std::string& name) {
  constexpr std::size_t kMax = NAME_MAX - kLongestSuffix;
  if (name.size() <= kMax) return name;
  const std::size_t dot = name.rfind('.');
  const std::string ext = dot == std::string::npos ? "" : name.substr(dot);
  const std::string tag = format("~%016llx", static_cast<unsigned long long>(XXH3_64bits(name.data(), name.size())));
  std::size_t cut = kMax - tag.size() - ext.size();
  while (cut > 0 && (static_cast<unsigned char>(name[cut]) & 0xC0) == 0x80) --cut;
  return name.substr(0, cut) + tag + ext;
}

// True when `inner` is `outer` or lies inside it, comparing the paths with symbolic links
// resolved (as far as they exist).
bool same_or_inside(const std::string& inner, const std::string& outer) {
  std::error_code ec1, ec2;
  const fs::path i = fs::weakly_canonical(fs::absolute(platform::fs_path(inner)), ec1), o = fs::weakly_canonical(fs::absolute(platform::fs_path(outer)), ec2);
  if (ec1 || ec2) return false;
  auto ii = i.begin();
  for (auto oi = o.begin(); oi != o.end(); ++oi, ++ii) {
    if (oi->empty() && std::next(oi) == o.end()) break;  // a trailing separator
    if (ii == i.end() || *ii != *oi) return false;
  }
  return true;
}

int read_attempts(const std::string& p) {
  auto f = read_plain_file(p, 64);
  if (!f) return 0;
  return std::atoi(std::string(f->begin(), f->end()).c_str());
}

const char* outcome_word(PutOutcome o) {
  return o == PutOutcome::kAdded ? "added" : o == PutOutcome::kReplaced ? "replaced" : "already present";
}

// add_package of the package at `path` (named `name` in the log), one log line per event.
Status add_logged(Store& store, const std::string& path, const std::string& name, const PackageAddOptions& options,
                  const std::function<void(const std::string&)>& log) {
  bool first = true;
  return add_package(store, path, options, [&](const PackageEvent& ev) {
    std::string line = escape_text(name) + ": ";
    switch (ev.kind) {
      case PackageEvent::kStored:
        line += std::string(outcome_word(ev.stored.outcome)) + ": " + escape_text(ev.stored.key);
        break;
      case PackageEvent::kSource:
        line += "source " + std::string(outcome_word(ev.source_outcome)) + ": " + escape_text(ev.source);
        break;
      case PackageEvent::kMatched:
        line += escape_text(ev.source) + format(": %zu of %zu documents matched to package sources", ev.matched, ev.documents);
        break;
    }
    log(line);
    if (ev.kind == PackageEvent::kStored && first) {
      first = false;
      test_hook("after-first-file");
    }
  });
}

class Watcher {
 public:
  Watcher(const WatchOptions& o, Store& store, const std::function<void(const std::string&)>& log)
      : o_(o), log_(log), store_(store), work_(o.inbox + "/" + kWorkDir),
        archive_(o.archive.empty() ? o.inbox + "/archive" : o.archive), failed_(o.inbox + "/failed") {}

  Status setup() {
    platform::FileInfo st;
    if (!platform::stat_path(o_.inbox, st) || !st.directory()) return {Errc::kIo, o_.inbox + ": not a directory"};
    // An archive that is the inbox would feed archived packages back in; one in the work or
    // failed folder would mix them with claimed or refused packages (the work folder's are
    // processed again on every pass). Other folders inside the inbox are not scanned.
    if (same_or_inside(archive_, o_.inbox) && same_or_inside(o_.inbox, archive_))
      return {Errc::kUsage, "--archive " + archive_ + ": is the inbox " + o_.inbox + ": archived packages would be processed again"};
    if (same_or_inside(archive_, work_) || same_or_inside(archive_, failed_))
      return {Errc::kUsage, "--archive " + archive_ + ": lies in the inbox's " + (same_or_inside(archive_, work_) ? work_ : failed_) +
                                " folder: give a folder of its own"};
    if (platform::make_directory(work_) != 0 && errno != EEXIST) return {Errc::kIo, work_ + ": cannot create: " + std::strerror(errno)};
    const std::string lock = work_ + "/.lock";
    lock_fd_ = platform::open_lock_file(lock);
    if (lock_fd_ < 0) return {Errc::kIo, lock + ": cannot open: " + std::strerror(errno)};
    if (!platform::lock_file(lock_fd_, false))
      return {Errc::kIo, o_.inbox + ": another `ilmap store watch` is processing this inbox"};
    return {};
  }
  ~Watcher() {
    if (lock_fd_ >= 0) platform::close_fd(lock_fd_);
  }

  // Packages in `dir` (regular files, package names, not dotfiles), sorted; with a settle
  // time, only those whose mtime is old enough.
  std::vector<std::string> list(const std::string& dir, double settle) const {
    std::vector<std::string> out;
    std::error_code ec;
    const auto now = std::chrono::system_clock::now();
    for (fs::directory_iterator it(platform::fs_path(dir), ec), end; !ec && it != end; it.increment(ec)) {
      const std::string name = platform::fs_string(it->path().filename());
      if (name.empty() || name[0] == '.' || !is_package_name(name)) continue;
      platform::FileInfo st;
      if (!platform::stat_path(platform::fs_string(it->path()), st, false) || !st.regular()) continue;
      if (settle > 0) {
        const auto mtime = std::chrono::system_clock::time_point(
            std::chrono::duration_cast<std::chrono::system_clock::duration>(std::chrono::nanoseconds(st.mtime_ns)));
        if (std::chrono::duration<double>(now - mtime).count() < settle) continue;
      }
      out.push_back(name);
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  void process(const std::string& name) {
    const std::string path = work_ + "/" + name;
    const std::string short_name = bookkeeping_name(name);
    const std::string attempts_path = work_ + "/" + short_name + ".attempts";
    const int attempts = read_attempts(attempts_path) + 1;
    const std::string count = std::to_string(attempts) + "\n";
    Status s = write_file_atomically(attempts_path, {reinterpret_cast<const std::uint8_t*>(count.data()), count.size()}, true);
    if (!s) {
      // Without the count the crash-loop guard would be off: do not start the package.
      s = Status(Errc::kIo, format("%s: cannot record the attempt: %s", name.c_str(), s.error().message.c_str()));
    } else if (attempts > kMaxAttempts) {
      s = Status(Errc::kIo, format("%s: processing started %d times without finishing (a crash?)", name.c_str(), kMaxAttempts));
    } else {
      s = add_logged(store_, path, name, o_.package, log_);
    }
    if (s) {
      auto to = move_into(path, archive_, short_name, "", {});
      if (!to) {
        log_("ilmap: error: " + escape_text(to.error().message));
        return;  // stays claimed; retried next pass
      }
      platform::remove_file(attempts_path);
      ++stats_.archived;
      log_("archived: " + escape_text(name) + " -> " + escape_text(*to));
      return;
    }
    const std::string reason = "ilmap: error: " + s.error().message + "\n";
    auto to = move_into(path, failed_, short_name, ".reason", [&](const std::string& dest) {
      return write_file_atomically(dest + ".reason", {reinterpret_cast<const std::uint8_t*>(reason.data()), reason.size()}, true);
    });
    if (!to) {
      log_("ilmap: error: " + escape_text(to.error().message));
      return;
    }
    platform::remove_file(attempts_path);
    ++stats_.failed;
    log_("failed: " + escape_text(name) + " -> " + escape_text(*to) + ": " + escape_text(s.error().message));
  }

  // One pass: claimed packages first (a previous run's), then the inbox.
  void pass(const std::atomic<bool>& stop) {
    for (const std::string& n : list(work_, 0)) {
      if (stop) return;
      log_("resuming: " + escape_text(n));
      process(n);
    }
    for (const std::string& n : list(o_.inbox, o_.settle)) {
      if (stop) return;
      const std::string from = o_.inbox + "/" + n, to = work_ + "/" + n;
      if (platform::rename_no_replace(from, to) != 0) {
        if (errno == ENOENT) continue;  // gone meanwhile
        if (errno == EEXIST) continue;  // a claimed package of that name is pending: next pass
        log_("ilmap: error: " + escape_text(from) + ": cannot claim: " + std::strerror(errno));
        continue;
      }
      test_hook("after-claim");
      process(n);
    }
  }

  WatchStats stats() const { return stats_; }

 private:
  const WatchOptions& o_;
  const std::function<void(const std::string&)>& log_;
  Store& store_;
  std::string work_, archive_, failed_;
  int lock_fd_ = -1;
  WatchStats stats_;
};

// The inbox in a bucket (StoreWatch.h "A bucket inbox"): nothing is moved while a package is
// worked on; it leaves the inbox only once archived (or put in failed/).
class BucketWatcher {
 public:
  BucketWatcher(const WatchOptions& o, S3Store& inbox, Store& store, const std::function<void(const std::string&)>& log)
      : o_(o), log_(log), inbox_(inbox), store_(store) {}

  Status setup() {
    if (!o_.archive.empty())
      return {Errc::kUsage, "--archive " + o_.archive + ": a bucket inbox archives into its own archive/ prefix (" + inbox_.url("archive/") + ")"};
    const std::string t = platform::environment("TMPDIR").value_or("");
    const std::string prefix = (t.empty() ? std::string("/tmp") : t) + "/ilmap-inbox.";
    auto dir = platform::make_temp_directory(prefix);
    if (!dir) return {Errc::kIo, prefix + "XXXXXX: cannot create a temporary folder: " + std::strerror(errno)};
    tmp_ = *dir;
    auto keys = inbox_.list_objects("");  // the inbox can be listed: credentials and bucket work
    if (!keys) return keys.error();
    return {};
  }
  ~BucketWatcher() {
    if (tmp_.empty()) return;
    std::error_code ec;
    fs::remove_all(platform::fs_path(tmp_), ec);
  }

  void pass(const std::atomic<bool>& stop) {
    auto keys = inbox_.list_objects("");
    if (!keys) {
      log_("ilmap: error: " + escape_text(keys.error().message));
      return;
    }
    for (const std::string& name : *keys) {
      if (stop) return;
      // Packages directly under the prefix; archive/, failed/ and .ilmap-work/ hold the rest.
      if (name.empty() || name[0] == '.' || name.find('/') != std::string::npos || !is_package_name(name)) continue;
      process(name);
    }
  }

  WatchStats stats() const { return stats_; }

 private:
  void process(const std::string& name) {
    const std::string short_name = bookkeeping_name(name);
    const std::string attempts_key = std::string(kWorkDir) + "/" + short_name + ".attempts";
    int attempts = 1;
    if (auto a = inbox_.get_object(attempts_key)) attempts = std::atoi(std::string(a->begin(), a->end()).c_str()) + 1;
    const std::string count = std::to_string(attempts) + "\n";
    Status s = inbox_.put_object(attempts_key, {reinterpret_cast<const std::uint8_t*>(count.data()), count.size()});
    std::vector<std::uint8_t> bytes;
    if (!s) {
      s = Status(Errc::kIo, format("%s: cannot record the attempt: %s", name.c_str(), s.error().message.c_str()));
    } else if (attempts > kMaxAttempts) {
      s = Status(Errc::kIo, format("%s: processing started %d times without finishing (a crash?)", name.c_str(), kMaxAttempts));
    } else if (auto got = inbox_.get_object(name); !got) {
      if (got.error().code == Errc::kNotFound) {  // taken and finished by another watcher meanwhile
        (void)inbox_.delete_object(attempts_key);
        return;
      }
      log_("ilmap: error: " + escape_text(got.error().message));
      return;  // stays in the inbox; retried next pass
    } else {
      bytes = std::move(*got);
      const std::string path = tmp_ + "/" + short_name;
      s = write_file_atomically(path, bytes, false);
      if (s) {
        test_hook("after-claim");
        s = add_logged(store_, path, name, o_.package, log_);
      }
      platform::remove_file(path);
    }
    if (s) {
      auto to = put_free("archive/", short_name, bytes, "");
      if (!to) {
        log_("ilmap: error: " + escape_text(to.error().message));
        return;  // stays in the inbox; retried next pass
      }
      finish(name, attempts_key);
      ++stats_.archived;
      log_("archived: " + escape_text(name) + " -> " + escape_text(*to));
      return;
    }
    const std::string reason = "ilmap: error: " + s.error().message + "\n";
    if (bytes.empty())
      if (auto got = inbox_.get_object(name)) bytes = std::move(*got);
    auto to = put_free("failed/", short_name, bytes, reason);
    if (!to) {
      log_("ilmap: error: " + escape_text(to.error().message));
      return;
    }
    finish(name, attempts_key);
    ++stats_.failed;
    log_("failed: " + escape_text(name) + " -> " + escape_text(*to) + ": " + escape_text(s.error().message));
  }

  // Puts `bytes` under DIR/NAME, or NAME.1, NAME.2... when another object holds the name (the
  // same bytes there: that name, already done). With a reason, DIR/NAME.reason is written first.
  Result<std::string> put_free(const std::string& dir, const std::string& name, std::span<const std::uint8_t> bytes,
                               const std::string& reason) {
    for (int k = 0; k < 100; ++k) {
      const std::string rel = dir + (k ? name + "." + std::to_string(k) : name);
      auto there = inbox_.get_object(rel);
      if (there && std::equal(there->begin(), there->end(), bytes.begin(), bytes.end())) return inbox_.url(rel);
      if (there) continue;
      if (there.error().code != Errc::kNotFound) return there.error();
      if (!reason.empty())
        if (Status s = inbox_.put_object(rel + ".reason", {reinterpret_cast<const std::uint8_t*>(reason.data()), reason.size()}); !s)
          return s.error();
      if (Status s = inbox_.put_object(rel, bytes); !s) return s.error();
      return inbox_.url(rel);
    }
    return Error{Errc::kIo, inbox_.url(dir) + ": no free name for " + name};
  }

  void finish(const std::string& name, const std::string& attempts_key) {
    if (Status s = inbox_.delete_object(name); !s) log_("ilmap: error: " + escape_text(s.error().message));
    (void)inbox_.delete_object(attempts_key);
  }

  const WatchOptions& o_;
  const std::function<void(const std::string&)>& log_;
  S3Store& inbox_;
  Store& store_;
  std::string tmp_;
  WatchStats stats_;
};

// Passes of either watcher, `interval` apart, until `stop` (or one with `once`).
template <class W>
Result<WatchStats> run_passes(W& w, const WatchOptions& options, const std::atomic<bool>& stop) {
  if (Status s = w.setup(); !s) return s.error();
  for (;;) {
    w.pass(stop);
    if (options.once || stop) break;
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(options.interval);
    while (!stop && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    if (stop) break;
  }
  return w.stats();
}

}  // namespace

Result<WatchStats> run_bucket_watch(const WatchOptions& options, S3Store& inbox, Store& store, const std::atomic<bool>& stop,
                                    const std::function<void(const std::string&)>& log) {
  BucketWatcher w(options, inbox, store, log);
  return run_passes(w, options, stop);
}

Result<WatchStats> run_watch(const WatchOptions& options, Store& store, const std::atomic<bool>& stop,
                             const std::function<void(const std::string&)>& log) {
  Watcher w(options, store, log);
  return run_passes(w, options, stop);
}

}  // namespace ilmap::symbols
