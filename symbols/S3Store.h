// S3Store.h - a symbol store in an S3 bucket: s3://BUCKET/PREFIX, the files under
// PREFIX/<SSQP key> (one tier), each Portable PDB's cache beside it, as in a folder
// (StoreIngest works on both through Store). Keys are compared exactly (S3 keys are
// case-sensitive; store add writes them in their canonical case).
//
// Writers without a lock. S3 had no conditional PUT for most of its life, and Swift's s3api
// answers `If-None-Match: *` with 501, so a writer claims a key instead:
//   1. GET the key: the same bytes are "already present" (no claim, works read-only);
//   2. PUT a claim PREFIX/.ilmap-claims/<key>/<random id> (empty) and LIST that folder;
//   3. another writer's claim there: delete ours, wait a random, growing time, go to 2
//      (a claim seen for more than 30 s belongs to a killed writer and is deleted);
//   4. alone: GET the key again and decide (absent: PUT; same bytes: already present; other
//      bytes: refused unless replaceable), GET it back to check what is stored, delete the claim.
// Two writers who both reach 4 would each have listed the folder after PUTting their own claim,
// and the later of the two LISTs sees the other claim: so with read-after-write consistency of
// PUT, GET and LIST (Amazon S3 since December 2020; a one-node Swift; not a multi-node Swift,
// whose container listings are eventually consistent) one writer decides at a time. An object
// appears only when its PUT completes, so a killed writer leaves no partial file, at most a
// claim (ignored after 30 s, removed by the next writer of that key).
#pragma once

#include <string>

#include "symbols/S3Client.h"
#include "symbols/Store.h"

namespace ilmap::symbols {

class S3Store : public Store {
 public:
  // Whether `arg` names a bucket ("s3://..."): such an argument is never a folder.
  static bool is_s3_url(std::string_view arg) { return arg.rfind("s3://", 0) == 0; }
  // kUsage for a bucket name that is not DNS-style (3-63 of a-z 0-9 . -) or a prefix with
  // an empty, "." or ".." component (a trailing '/' is fine).
  static Result<S3Store> open(const std::string& url, S3Config config);

  std::string name() const override { return "s3://" + bucket_ + (prefix_.empty() ? "/" : "/" + prefix_); }
  Result<std::string> locate(std::string_view key) const override;
  Result<StoredBytes> read(std::string_view key) const override;
  Result<PutOutcome> write(std::string_view key, std::span<const std::uint8_t> bytes,
                           const ReplaceCheck& replace_existing = {}) override;
  Status remove(std::string_view key) override;
  Result<std::vector<std::string>> list() const override;
  bool two_tier() const override { return false; }

  // Objects under the prefix by a name relative to it that is not a symbol-store key (the
  // packages, archive and bookkeeping of a bucket inbox, symbols/BucketInbox.cpp). Names are
  // checked like keys but with any number of components (no empty, "." or ".." component, no
  // control character or backslash). Plain requests: no claims.
  Result<std::vector<std::string>> list_objects(std::string_view rel_prefix) const;  // relative, sorted
  Result<std::vector<std::uint8_t>> get_object(std::string_view rel) const;       // kNotFound when absent
  Status put_object(std::string_view rel, std::span<const std::uint8_t> bytes);
  Status delete_object(std::string_view rel);  // absent is fine
  std::string url(std::string_view rel) const { return url_of(full(rel)); }

  static constexpr int kStaleClaimSeconds = 30;
  static constexpr int kClaimWaitSeconds = 120;  // then the write fails (kIo)
  // Test hook: a writer holding a claim waits this many milliseconds before it decides, so
  // that tests/s3 sees writers meet (the race of two publishers, deterministically).
  static constexpr const char* kHoldHookEnv = "ILMAP_TEST_S3_HOLD_MS";
  // Test knob: listings ask for pages of this many keys (max-keys) instead of the service's
  // default (1000), so that tests/s3 walks many pages without storing thousands of objects.
  static constexpr const char* kMaxKeysEnv = "ILMAP_TEST_S3_MAX_KEYS";

 private:
  S3Store(std::string bucket, std::string prefix, S3Config config)
      : bucket_(std::move(bucket)), prefix_(std::move(prefix)), client_(std::move(config)) {}
  std::string object_path(const std::string& full_key) const;  // /BUCKET/escaped key
  std::string url_of(const std::string& full_key) const { return "s3://" + bucket_ + "/" + full_key; }
  std::string full(std::string_view key) const { return prefix_ + std::string(key); }
  // Every key under `full_prefix` (ListObjectsV2, following continuation tokens past each
  // page of at most 1000 keys).
  Result<std::vector<std::string>> list_full(const std::string& full_prefix) const;
  Result<PutOutcome> decide_and_put(const std::string& key, std::span<const std::uint8_t> bytes,
                                    const ReplaceCheck& replace_existing);

  std::string bucket_;
  std::string prefix_;  // "" or ending with '/'
  S3Client client_;
};

}  // namespace ilmap::symbols
