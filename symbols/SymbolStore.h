// SymbolStore.h - a symbol store on disk: files under their SSQP keys, in the layout symstore
// clients read (dotnet/symstore DirectorySymbolStore; Microsoft SymStore "index2.txt").
//
//   one tier:  STORE/<file>/<id>/<file>
//   two tiers: STORE/<p>/<file>/<id>/<file> when STORE/index2.txt exists, <p> being the first
//              two characters of <file> (one when the second is '.', as symbolicator does)
//
// Beside a PDB, its ilmap cache: STORE/.../<file>/<id>/<stem>.ilmap (cache_key_for).
// Writers take an exclusive flock on STORE/.ilmap-store.lock around check-then-rename, and
// write each file to a temporary in its key directory first (a new key's before the lock, so
// that writers of different keys overlap their writes and fsyncs), so that concurrent writers never
// leave a half-written or conflicting file, and readers never see one.
#pragma once

#include <functional>
#include <span>
#include <string>
#include <string_view>

#include "support/AtomicFile.h"
#include "symbols/Store.h"
#include "ilmap/status.h"

namespace ilmap::symbols {

class SymbolStore : public Store {
 public:
  // `root` need not exist until the first put (which creates it).
  explicit SymbolStore(std::string root);

  const std::string& root() const { return root_; }
  bool two_tier() const override;
  // Path of `key` relative to the root, in this store's layout (the key is not validated).
  std::string relative_path(std::string_view key) const;

  // The existing file for `key`: the exact path, else a case-insensitive match of each
  // component (SSQP keys compare without case). kUsage for an invalid key, kNotFound.
  Result<std::string> find(std::string_view key) const;

  // Stores `bytes` under `key`. Same bytes already there: kAlreadyPresent (found before the
  // lock is taken, so a read-only store answers it too). Different bytes:
  // kMismatch, unless `replace_existing` says the existing file (given its path) may be
  // replaced (derived files such as caches), then kReplaced.
  Result<PutOutcome> put(std::string_view key, std::span<const std::uint8_t> bytes,
                         const std::function<bool(const std::string&)>& replace_existing = {});
  // The same for content already written to `file` (a TempFile in this store's file system,
  // e.g. a download): renamed into place (fsync'd first) instead of copied. Unless it was
  // moved (kAdded, kReplaced), `file` stays a temporary, removed when it goes.
  Result<PutOutcome> put_file(std::string_view key, TempFile& file,
                              const std::function<bool(const std::string&)>& replace_existing = {});

  // Store: find and put over paths, the existing file mapped for `replace_existing` (one
  // that cannot be opened is given as no bytes).
  std::string name() const override { return root_; }
  Result<std::string> locate(std::string_view key) const override { return find(key); }
  Result<StoredBytes> read(std::string_view key) const override;
  Result<PutOutcome> write(std::string_view key, std::span<const std::uint8_t> bytes,
                           const ReplaceCheck& replace_existing = {}) override;
  Status remove(std::string_view key) override;
  Result<std::vector<std::string>> list() const override;

 private:
  // Under the store lock: the file under `key`, compared by `same` and replaced only where
  // `replace_existing` allows, is written by `write(target path)`.
  Result<PutOutcome> place(std::string_view key, const std::function<bool(const std::string&)>& same,
                           const std::function<Status(const std::string&)>& write,
                           const std::function<bool(const std::string&)>& replace_existing);

  // place() once the lock is held.
  Result<PutOutcome> place_locked(std::string_view key, const std::function<bool(const std::string&)>& same,
                                  const std::function<Status(const std::string&)>& write,
                                  const std::function<bool(const std::string&)>& replace_existing);
  // put() of a key with no file yet: written to a temporary in its key directory and fsync'd
  // before the lock is taken; checked and renamed under it.
  Result<PutOutcome> put_new(std::string_view key, std::span<const std::uint8_t> bytes,
                             const std::function<bool(const std::string&)>& replace_existing);

  std::string root_;
};

}  // namespace ilmap::symbols
