// StoreWatch.h - `ilmap store watch INBOX STORE`: a pipeline drops NuGet symbol packages into
// INBOX; each is added to STORE (add_package) one at a time, then moved to the archive, or to
// INBOX/failed/ with a reason file. The queue survives crashes and kill -9:
//
//   INBOX/NAME                     waiting: a regular file named *.nupkg or *.snupkg (not a
//                                  dotfile) whose mtime is at least `settle` seconds old. Writers
//                                  should write under another name (e.g. ".NAME.part") and rename;
//                                  the settle time covers those that copy in place.
//   INBOX/.ilmap-work/NAME         claimed (rename from INBOX: atomic, so a package is claimed
//                                  once); processed before anything new after a restart.
//   INBOX/.ilmap-work/NAME.attempts  how many runs started NAME; the fourth start moves it to
//                                  failed/ instead of crashing forever on the same package.
//                                  For a NAME over 243 bytes, here and below, NAME stands for a
//                                  shorter name (prefix, "~", hash, extension) so that every
//                                  derived name fits in NAME_MAX.
//   INBOX/.ilmap-work/.lock        flock of the one watcher of INBOX (a second one is refused).
//   ARCHIVE/NAME                   done (default ARCHIVE: INBOX/archive); a taken name gets
//                                  ".1", ".2"... appended.
//   INBOX/failed/NAME + NAME.reason  refused; the reason file ("ilmap: error: ..." line) is
//                                  written before the package is moved.
// Re-running a claimed package is safe because store add is idempotent: what the killed run
// stored is "already present", the rest is added, nothing is stored twice.
//
// Test hook (test-only, documented in docs/symbol-stores.md "store watch"):
// ILMAP_TEST_WATCH_KILL=after-claim or after-first-file makes the watcher SIGKILL itself right
// after claiming a package, or right after storing the package's first file.
//
// A bucket inbox (run_bucket_watch: INBOX is s3://BUCKET/PREFIX). S3 has no rename to claim a
// package with, so nothing is moved while a package is worked on:
//
//   PREFIX/NAME                         waiting: an object named *.nupkg or *.snupkg directly
//                                       under PREFIX (not a dot-name). An object appears whole
//                                       when its upload completes, so there is no settle time.
//   PREFIX/.ilmap-work/NAME.attempts    how many passes started NAME; the fourth puts it in failed/.
//   PREFIX/archive/NAME                 done; a name taken by other bytes gets ".1", ".2"...
//   PREFIX/failed/NAME + NAME.reason    refused (the reason is written first).
// Each package is downloaded into a private temporary folder, added to STORE (add_package),
// archived, and only then deleted from PREFIX. Killed at any moment, it is still in the inbox
// and the next pass does it again: adding and archiving the same bytes again are "already
// present". No lock can be held on a bucket, so several watchers may serve one inbox: two that
// take the same package both add it (the second finds every file already present) and archive
// the same bytes. A package uploaded again under the same name while it is being processed may
// be deleted unprocessed: give each upload its own name (NuGet's names carry the version).
#pragma once

#include <atomic>
#include <functional>
#include <string>

#include "symbols/PackageIngest.h"
#include "ilmap/status.h"

namespace ilmap::symbols {

struct WatchOptions {
  std::string inbox;
  std::string archive;  // "" = INBOX/archive
  PackageAddOptions package;
  bool once = false;        // process what is there (claimed first, then INBOX), then return
  double interval = 2.0;    // seconds between scans of INBOX
  double settle = 2.0;      // seconds a package's mtime must be in the past
};

struct WatchStats {
  std::size_t archived = 0;
  std::size_t failed = 0;
};

// Adds the inbox's packages to `store` (a folder or a bucket: symbols/Store.h).
// Runs until `stop` becomes true (checked between packages and while waiting), or after one
// pass with `once`. Lines for the log go to `log` (already escaped). Errors: the inbox cannot
// be set up or is watched by another process (kIo); the archive is the inbox or lies in its
// work or failed folder (kUsage).
Result<WatchStats> run_watch(const WatchOptions& options, Store& store, const std::atomic<bool>& stop,
                             const std::function<void(const std::string&)>& log);

class S3Store;
// The same with the inbox in a bucket (`options.inbox` names it; `options.archive` must be
// empty: the archive is the inbox's archive/ prefix, kUsage otherwise; `settle` is not used).
// Errors: the inbox cannot be listed (kIo, credentials or bucket), no temporary folder (kIo).
Result<WatchStats> run_bucket_watch(const WatchOptions& options, S3Store& inbox, Store& store, const std::atomic<bool>& stop,
                                    const std::function<void(const std::string&)>& log);

}  // namespace ilmap::symbols
