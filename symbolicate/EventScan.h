// EventScan.h - where the values of a JSON text are, byte for byte, from nlohmann's own parser
// (its SAX interface), so that SentryEvent can rewrite a Sentry event by splicing: the frames
// it resolves get new members, and every other byte of the text stays as it was. StringScan
// does the same for the string values of a JSON log line that may hold a stack trace.
//
// Positions: sax_parse reads the text through an iterator that counts the bytes taken, so at
// each SAX event the count is just past the token reported (one byte further after a number,
// which the lexer reads ahead and puts back). A container opens at its '{' / '[' and closes
// past its '}' / ']'; where a key or scalar begins follows from the separators before it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace ilmap::sentry_scan {

// From the end of one token to the start of the next: white space, at most one `sep`, white space.
std::size_t skip_separator(std::string_view s, std::size_t at, char sep);

// A SAX handler that sees values as byte ranges (see the top of this file).
class PositionedSax : public nlohmann::json_sax<nlohmann::ordered_json> {
 public:
  // Parses `text` whole (nothing but white space after the value); false when it is not JSON.
  // With whole = false, parses the one value at the start of `text` and stops after it (for a
  // value inside a text already checked whole).
  bool scan(std::string_view text, bool whole = true);

  bool null() override { return on_scalar(scalar_end()); }
  bool boolean(bool) override { return on_scalar(scalar_end()); }
  bool number_integer(number_integer_t) override { return on_scalar(scalar_end()); }
  bool number_unsigned(number_unsigned_t) override { return on_scalar(scalar_end()); }
  bool number_float(number_float_t, const string_t&) override { return on_scalar(scalar_end()); }
  bool string(string_t&) override { return on_scalar(scalar_end()); }
  bool binary(binary_t&) override { return false; }
  bool start_object(std::size_t) override { return on_open(true, read_ - 1); }
  bool key(string_t& k) override { return on_key(k, read_); }
  bool end_object() override { return on_close(read_); }
  bool start_array(std::size_t) override { return on_open(false, read_ - 1); }
  bool end_array() override { return on_close(read_); }
  bool parse_error(std::size_t at, const std::string&, const nlohmann::detail::exception&) override {
    error_at_ = at;
    return false;
  }
  // After a failed scan: true when the text is the start of a JSON text, cut short (the error
  // is the end of the input), false when it is not JSON.
  bool cut_short() const { return error_at_ > text_.size(); }

 protected:
  virtual bool on_open(bool object, std::size_t begin) = 0;
  virtual bool on_key(const std::string& key, std::size_t end) = 0;
  virtual bool on_close(std::size_t end) = 0;
  virtual bool on_scalar(std::size_t end) = 0;

 protected:
  std::size_t scalar_end() const;
  std::string_view text() const { return text_; }

 private:
  std::string_view text_;
  std::size_t read_ = 0, error_at_ = 0;
};

// The string values (not keys) of one JSON object that `keep` accepts, decoded, with their byte
// ranges (from the opening to past the closing quote), in the text's order, at any depth.
class StringScan final : public PositionedSax {
 public:
  struct Value {
    std::string text;  // decoded
    std::size_t begin = 0, end = 0;
  };
  explicit StringScan(bool (*keep)(std::string_view decoded)) : keep_(keep) {}
  std::vector<Value> values;

  // False when `text` is not one JSON object.
  bool run(std::string_view text);

  bool string(string_t& s) override;

 private:
  bool on_open(bool object, std::size_t) override;
  bool on_key(const std::string&, std::size_t) override { return true; }
  bool on_close(std::size_t) override { return true; }
  bool on_scalar(std::size_t) override { return true; }

  bool (*keep_)(std::string_view);
  bool first_ = true, object_ = false;
};

// The members of one JSON object (its text), with the byte ranges of keys and values.
class MemberScan final : public PositionedSax {
 public:
  struct Member {
    std::string key;  // decoded
    std::size_t key_begin = 0, key_end = 0, value_begin = 0, value_end = 0;
  };
  std::vector<Member> members;
  std::size_t open = 0;  // the '{'

  // False when `text` is not one JSON object.
  bool run(std::string_view text);

 private:
  bool on_open(bool object, std::size_t begin) override;
  bool on_key(const std::string& key, std::size_t end) override;
  bool on_close(std::size_t end) override;
  bool on_scalar(std::size_t end) override;

  std::size_t depth_ = 0;
  bool object_ = false;
};

// One frame or image of an event's text: its byte range when it is an object.
struct ValueRange {
  std::size_t begin = 0, end = 0;
  bool object = false;
};

// Where an event's frames and images are, in one pass over its text, following the paths of
// SentryEvent's walk: `exception` / `threads` (an object with `values`, or a bare array),
// their entries' `stacktrace.frames`, the top-level `stacktrace.frames`, and
// `debug_meta.images`. A key that ilmap reads or writes appearing twice in one object on those
// paths (a frame's `lineno`, an image's `debug_id`, `exception` itself...) makes the event
// ambiguous (JSON readers differ on which occurrence counts): `duplicate` is set.
class EventScan final : public PositionedSax {
 public:
  // Frames past `max_frames` are counted, not located; images past `max_images` are dropped.
  EventScan(std::size_t max_frames, std::size_t max_images) : max_frames_(max_frames), max_images_(max_images) {}
  std::vector<ValueRange> frames, images;  // in the text's order
  std::uint64_t frames_past_limit = 0;
  bool duplicate = false;
  bool object = false;  // the text is one JSON object

 private:
  enum class Role : std::uint8_t { kOther, kEvent, kSection, kValues, kValue, kStacktrace, kFrames, kFrame, kMeta, kImages, kImage };
  struct Level {
    Role role = Role::kOther;
    int key = -1;            // the current key's index in keys(role), -1 for any other key
    std::uint32_t seen = 0;  // keys(role) seen so far (bits)
    std::size_t begin = 0;
  };

  static const std::vector<std::string_view>& keys(Role r);
  Role child(char container);
  bool on_open(bool object, std::size_t begin) override;
  bool on_key(const std::string& key, std::size_t end) override;
  bool on_close(std::size_t end) override;
  bool on_scalar(std::size_t end) override;

  std::size_t max_frames_, max_images_;
  std::vector<Level> stack_;
};

// Writes `text` (one JSON object as read; `before` is it parsed) with the members that `after`
// changes, removes or adds: a changed value replaces the old value's bytes, a removed member
// goes with one separator, added members follow the last one (in `after`'s order) with the
// separators the object already uses. Every other byte is `text`'s. Only members whose key
// appears once in `text` may be changed or removed.
void splice_object(std::string_view text, const nlohmann::ordered_json& before, const nlohmann::ordered_json& after,
                   std::string& out);

}  // namespace ilmap::sentry_scan
