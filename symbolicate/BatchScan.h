// BatchScan.h - a batch request (SentryEvent.h: symbolicate_batch) read and answered without a
// JSON tree, over the byte positions of EventScan.h's PositionedSax: memory follows the request
// and the answer, not a tree of them (nlohmann's tree costs about 120 bytes per `{}`).
//
// The answer must be what nlohmann's dump() of the request's tree would write, byte for byte:
// no white space, every string re-escaped, every number re-printed, and one member per key,
// where the tree keeps it: at the place of the key's first occurrence, with the value of its
// last (DuplicateKeys). BatchScan checks the request and finds what the answer needs in one
// pass; ArrayWalk, FieldScan and CompactWriter then read one value at a time from where it
// begins (a non-strict parse that stops after the value).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "symbolicate/EventScan.h"

namespace ilmap::sentry_scan {

// Keys that appear more than once in one object, by the position just past each occurrence's
// key: its first occurrence takes the value of the last one, the others are left out.
struct DuplicateKeys {
  struct Entry {
    std::uint32_t key_end = 0;
    std::uint32_t last_key_end = 0;  // the last occurrence's key (0: leave this member out)
  };
  std::vector<Entry> entries;  // sorted by key_end
  const Entry* find(std::size_t key_end) const;
};

// One pass over a batch request: JSON or not, an object or not, the last "stacktraces" and
// "modules" members of the top-level object (the ones a tree keeps), the first stacktraces[i]
// that is not an object with a "frames" array, where each module begins, and every duplicate
// key. Positions are 32-bit: the caller refuses longer texts.
class BatchScan final : public PositionedSax {
 public:
  struct Member {
    bool present = false, array = false;
    std::size_t key_end = 0;  // just past the key: the value follows its ':'
  };
  static constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();

  bool run(std::string_view text);  // false: not JSON
  bool object = false;
  Member stacktraces, modules;
  std::size_t bad_stacktrace = kNone;
  std::vector<std::uint32_t> module_begins;
  DuplicateKeys duplicates;

 private:
  enum class Role : std::uint8_t { kOther, kRoot, kStacktraces, kStacktrace, kModules };
  struct Level {
    Role role = Role::kOther;
    bool object = false;
    bool frames_array = false;  // a stacktrace: its last "frames" is an array
    int key = 0;                // the current key: 1 "stacktraces"/"frames", 2 "modules", 0 other
    std::size_t key_end = 0;
    std::size_t index = 0;     // a stacktrace: its index; an array: elements so far
    std::size_t last_end = 0;  // an array: past its last element (or its '[')
    std::vector<std::uint64_t> keys;  // an object: (hash of the key << 32) | key_end
  };
  Role value_start(char kind, std::size_t begin);
  void find_duplicates(const Level& l);
  bool on_open(bool object, std::size_t begin) override;
  bool on_key(const std::string& key, std::size_t end) override;
  bool on_close(std::size_t end) override;
  bool on_scalar(std::size_t end) override;

  std::vector<Level> stack_;
};

// Calls `element` with where each element of the array at `begin` begins, in order, while it
// reads the array (the callback may read the text again from there).
class ArrayWalk final : public PositionedSax {
 public:
  bool run(std::string_view text, std::size_t begin, const std::function<void(std::size_t)>& element);

 private:
  bool on_open(bool object, std::size_t begin) override;
  bool on_key(const std::string&, std::size_t) override { return true; }
  bool on_close(std::size_t end) override;
  bool on_scalar(std::size_t end) override;

  const std::function<void(std::size_t)>* element_ = nullptr;
  std::size_t base_ = 0, depth_ = 0, last_end_ = 0;
};

// The members of the value at `begin` whose keys are asked for, as the tree would hold them (the
// last occurrence of a key), scalars parsed and containers as empty ones of their kind: enough
// for a frame's or a module's checks, at the cost of those members. `fields` is null when the
// value is not an object.
class FieldScan final : public PositionedSax {
 public:
  explicit FieldScan(const std::vector<std::string_view>& keys) : keys_(keys) {}
  nlohmann::ordered_json fields;
  bool run(std::string_view text, std::size_t begin);

  bool null() override { return value(nullptr); }
  bool boolean(bool b) override { return value(b); }
  bool number_integer(number_integer_t i) override { return value(i); }
  bool number_unsigned(number_unsigned_t u) override { return value(u); }
  bool number_float(number_float_t f, const string_t&) override { return value(f); }
  bool string(string_t& s) override { return value(std::move(s)); }

 private:
  bool value(nlohmann::ordered_json v);
  bool on_open(bool object, std::size_t begin) override;
  bool on_key(const std::string& key, std::size_t end) override;
  bool on_close(std::size_t) override { return --depth_, true; }
  bool on_scalar(std::size_t) override { return true; }

  const std::vector<std::string_view>& keys_;
  std::size_t depth_ = 0;
  const std::string_view* want_ = nullptr;  // the current top-level key, when asked for
};

// Member edits as nlohmann's `o[key] = value` and `o.erase(key)` make them, in order: a key the
// object has gets its new value in place (or goes), the others are added after its last member.
using MemberEdits = std::vector<std::pair<std::string, std::optional<nlohmann::ordered_json>>>;

// Writes the value at `begin` as dump() writes its tree (see the top of this file). `edits`
// apply to its top-level members when it is an object; `frames`, when given, writes the value
// of a top-level "frames" member itself (from where that value begins) instead.
class CompactWriter final : public PositionedSax {
 public:
  CompactWriter(std::string_view text, const DuplicateKeys& duplicates, std::string& out)
      : whole_(text), duplicates_(duplicates), out_(out) {}
  const MemberEdits* edits = nullptr;
  const std::function<void(std::size_t)>* frames = nullptr;
  bool write(std::size_t begin);

  bool null() override { return scalar(nullptr); }
  bool boolean(bool b) override { return scalar(b); }
  bool number_integer(number_integer_t i) override { return scalar(i); }
  bool number_unsigned(number_unsigned_t u) override { return scalar(u); }
  bool number_float(number_float_t f, const string_t&) override { return scalar(f); }
  bool string(string_t& s) override { return scalar(std::move(s)); }

 private:
  bool scalar(const nlohmann::ordered_json& v);
  bool on_open(bool object, std::size_t begin) override;
  bool on_key(const std::string& key, std::size_t end) override;
  bool on_close(std::size_t end) override;
  bool on_scalar(std::size_t) override { return true; }
  void separator();

  std::string_view whole_;
  const DuplicateKeys& duplicates_;
  std::string& out_;
  std::size_t base_ = 0;
  std::vector<char> open_;      // per open container: 'o'/'a' while empty, 'O'/'A' after a member
  std::vector<bool> edited_;    // edits applied in place
  std::size_t skip_ = 0;        // > 0: inside a value left out, this many levels deep
  bool skip_next_ = false;      // the next value is left out (written otherwise or dropped)
};

// `v` as dump() writes it (invalid UTF-8 replaced, as the batch answer always did).
void dump_to(const nlohmann::ordered_json& v, std::string& out);

}  // namespace ilmap::sentry_scan
