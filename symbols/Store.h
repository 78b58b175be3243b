// Store.h - one symbol store, whatever holds it: files under SSQP keys (file/id/file), read,
// written, removed and listed by key. SymbolStore keeps them in a folder (with a flock), S3Store
// in an S3 bucket (with claim objects). StoreIngest (store add, store verify) works on this
// interface only, so the keys, the caches beside PDBs and the rules on existing files are the
// same for both (docs/symbol-stores.md).
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "support/FileBytes.h"
#include "ilmap/status.h"

namespace ilmap::symbols {

enum class PutOutcome { kAdded, kAlreadyPresent, kReplaced };

// The bytes of one stored file: mapped from disk or downloaded; `where` names it in messages
// (its path, or its s3:// URL).
class StoredBytes {
 public:
  StoredBytes() = default;
  StoredBytes(FileBytes file, std::string where) : file_(std::move(file)), where_(std::move(where)) {}
  StoredBytes(std::vector<std::uint8_t> owned, std::string where) : owned_(std::move(owned)), where_(std::move(where)) {}
  std::span<const std::uint8_t> bytes() const { return owned_.empty() ? file_.bytes() : std::span<const std::uint8_t>(owned_); }
  const std::string& where() const { return where_; }

 private:
  FileBytes file_;
  std::vector<std::uint8_t> owned_;
  std::string where_;
};

class Store {
 public:
  virtual ~Store() = default;
  // The store as the user named it (a folder, s3://bucket/prefix).
  virtual std::string name() const = 0;
  // Where the file under `key` is (a path, or an s3:// URL). kUsage for an invalid key,
  // kNotFound when absent, kIo when the store cannot be reached.
  virtual Result<std::string> locate(std::string_view key) const = 0;
  // The bytes under `key`; errors as locate.
  virtual Result<StoredBytes> read(std::string_view key) const = 0;
  // Stores `bytes` under `key`: kAlreadyPresent for the same bytes; different bytes are
  // kMismatch unless `replace_existing` (given what is stored) allows replacing them
  // (kReplaced). Writers never leave a partial file, and two writers at once never both win.
  using ReplaceCheck = std::function<bool(const StoredBytes& existing)>;
  virtual Result<PutOutcome> write(std::string_view key, std::span<const std::uint8_t> bytes,
                                   const ReplaceCheck& replace_existing = {}) = 0;
  // Removes the file under `key` (absent is fine).
  virtual Status remove(std::string_view key) = 0;
  // Every file's path relative to the store root, sorted ('/'-separated; in a two-tier store
  // with its tier prefix), the store's own bookkeeping files included.
  virtual Result<std::vector<std::string>> list() const = 0;
  virtual bool two_tier() const = 0;
};

}  // namespace ilmap::symbols
