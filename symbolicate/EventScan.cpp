// EventScan.cpp - byte positions of JSON values through nlohmann's SAX parser (EventScan.h).
#include "symbolicate/EventScan.h"

#include <algorithm>
#include <iterator>

namespace ilmap::sentry_scan {
namespace {

// The iterator sax_parse reads through: it records how many bytes the parser has taken.
class CountingIterator {
 public:
  using iterator_category = std::input_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = const char&;
  CountingIterator(const char* at, const char* base, std::size_t* read) : at_(at), base_(base), read_(read) {}
  reference operator*() const { return *at_; }
  CountingIterator& operator++() {
    ++at_;
    *read_ = static_cast<std::size_t>(at_ - base_);
    return *this;
  }
  CountingIterator operator++(int) {
    CountingIterator old = *this;
    ++*this;
    return old;
  }
  bool operator==(const CountingIterator& o) const { return at_ == o.at_; }
  bool operator!=(const CountingIterator& o) const { return at_ != o.at_; }

 private:
  const char* at_;
  const char* base_;
  std::size_t* read_;
};

std::size_t skip_white(std::string_view s, std::size_t at) {
  while (at < s.size() && (s[at] == ' ' || s[at] == '\t' || s[at] == '\n' || s[at] == '\r')) ++at;
  return at;
}

std::string dump_value(const nlohmann::ordered_json& j) {
  return j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

}  // namespace

std::size_t skip_separator(std::string_view s, std::size_t at, char sep) {
  at = skip_white(s, at);
  if (at < s.size() && s[at] == sep) at = skip_white(s, at + 1);
  return at;
}

bool PositionedSax::scan(std::string_view text, bool whole) {
  text_ = text;
  read_ = error_at_ = 0;
  CountingIterator first(text.data(), text.data(), &read_);
  CountingIterator last(text.data() + text.size(), text.data(), &read_);
  return nlohmann::ordered_json::sax_parse(first, last, this, nlohmann::detail::input_format_t::json, whole);
}

// Past a string or literal the parser has read nothing more; past a number, the byte after it
// (white space, ',', ']' or '}' in valid JSON), unless the text ends there.
std::size_t PositionedSax::scalar_end() const {
  if (read_ > 0 && read_ <= text_.size()) {
    switch (text_[read_ - 1]) {
      case ' ': case '\t': case '\n': case '\r': case ',': case ']': case '}':
        return read_ - 1;
      default:
        break;
    }
  }
  return read_;
}

bool MemberScan::run(std::string_view text) {
  members.clear();
  depth_ = 0;
  object_ = false;
  if (!scan(text) || !object_) return false;
  for (std::size_t i = 0; i < members.size(); ++i) {
    Member& m = members[i];
    m.key_begin = skip_separator(text, i == 0 ? open + 1 : members[i - 1].value_end, ',');
    m.value_begin = skip_separator(text, m.key_end, ':');
  }
  return true;
}

bool MemberScan::on_open(bool object, std::size_t begin) {
  if (depth_++ == 0) object_ = object, open = begin;
  return true;
}

bool MemberScan::on_key(const std::string& key, std::size_t end) {
  if (depth_ == 1) members.push_back(Member{key, 0, end, 0, 0});
  return true;
}

bool MemberScan::on_close(std::size_t end) {
  if (--depth_ == 1 && !members.empty()) members.back().value_end = end;
  return true;
}

bool MemberScan::on_scalar(std::size_t end) {
  if (depth_ == 1 && !members.empty()) members.back().value_end = end;
  return true;
}

bool StringScan::run(std::string_view text) {
  values.clear();
  first_ = true;
  object_ = false;
  return scan(text) && object_;
}

bool StringScan::on_open(bool object, std::size_t) {
  if (first_) object_ = object;
  first_ = false;
  return true;
}

// The closing quote is the last byte read; the opening one is the nearest quote before it that
// no backslash escapes (a string holds no other unescaped quote).
bool StringScan::string(string_t& s) {
  if (first_) return first_ = false, true;  // a bare string: not an object, run() says so
  if (!keep_(s)) return true;
  const std::string_view t = text();
  const std::size_t end = scalar_end();
  std::size_t q = end - 1;
  for (;;) {
    q = t.rfind('"', q - 1);
    std::size_t slashes = 0;
    while (q > slashes && t[q - 1 - slashes] == '\\') ++slashes;
    if (slashes % 2 == 0) break;
  }
  values.push_back(Value{std::move(s), q, end});
  return true;
}

const std::vector<std::string_view>& EventScan::keys(Role r) {
  static const std::vector<std::string_view> none, event{"exception", "threads", "stacktrace", "debug_meta"},
      section{"values"}, value{"stacktrace"}, stacktrace{"frames"}, meta{"images"},
      frame{"lineno", "function_id", "instruction_addr", "addr_mode", "filename", "abs_path",
            "colno", "source_link", "pre_context", "context_line", "post_context"},
      image{"type", "debug_id", "debug_file", "code_id", "code_file", "debug_checksum"};
  switch (r) {
    case Role::kEvent: return event;
    case Role::kSection: return section;
    case Role::kValue: return value;
    case Role::kStacktrace: return stacktrace;
    case Role::kMeta: return meta;
    case Role::kFrame: return frame;
    case Role::kImage: return image;
    default: return none;
  }
}

// The role of a value that starts now (`container`: 'o' object, 'a' array, 0 scalar); frames
// and images that are not objects are recorded here.
EventScan::Role EventScan::child(char container) {
  if (stack_.empty()) {
    object = container == 'o';
    return object ? Role::kEvent : Role::kOther;
  }
  const Level& p = stack_.back();
  switch (p.role) {
    case Role::kEvent:
      if (p.key == 0 || p.key == 1) return container == 'o' ? Role::kSection : container == 'a' ? Role::kValues : Role::kOther;
      if (p.key == 2) return container == 'o' ? Role::kStacktrace : Role::kOther;
      if (p.key == 3) return container == 'o' ? Role::kMeta : Role::kOther;
      return Role::kOther;
    case Role::kSection: return p.key == 0 && container == 'a' ? Role::kValues : Role::kOther;
    case Role::kValues: return container == 'o' ? Role::kValue : Role::kOther;
    case Role::kValue: return p.key == 0 && container == 'o' ? Role::kStacktrace : Role::kOther;
    case Role::kStacktrace: return p.key == 0 && container == 'a' ? Role::kFrames : Role::kOther;
    case Role::kMeta: return p.key == 0 && container == 'a' ? Role::kImages : Role::kOther;
    case Role::kFrames:
      if (frames.size() >= max_frames_) {  // counted, not read
        ++frames_past_limit;
        return Role::kOther;
      }
      if (container == 'o') return Role::kFrame;
      frames.push_back({});
      return Role::kOther;
    case Role::kImages:
      if (images.size() >= max_images_) return Role::kOther;  // a frame naming it is out of range
      if (container == 'o') return Role::kImage;
      images.push_back({});
      return Role::kOther;
    default: return Role::kOther;
  }
}

bool EventScan::on_open(bool is_object, std::size_t begin) {
  Level l;
  l.role = child(is_object ? 'o' : 'a');
  l.begin = begin;
  stack_.push_back(l);
  return true;
}

bool EventScan::on_key(const std::string& key, std::size_t) {
  Level& l = stack_.back();
  const auto& k = keys(l.role);
  l.key = -1;
  for (std::size_t i = 0; i < k.size(); ++i) {
    if (k[i] != key) continue;
    if (l.seen & (1u << i)) duplicate = true;
    l.seen |= 1u << i;
    l.key = static_cast<int>(i);
    break;
  }
  return true;
}

bool EventScan::on_close(std::size_t end) {
  const Level l = stack_.back();
  stack_.pop_back();
  if (l.role == Role::kFrame) frames.push_back({l.begin, end, true});
  if (l.role == Role::kImage) images.push_back({l.begin, end, true});
  return true;
}

bool EventScan::on_scalar(std::size_t) {
  child(0);
  return true;
}

void splice_object(std::string_view text, const nlohmann::ordered_json& before, const nlohmann::ordered_json& after,
                   std::string& out) {
  MemberScan ms;
  if (!ms.run(text)) {  // cannot happen: `text` parsed as an object
    out.append(text);
    return;
  }
  const auto& m = ms.members;
  std::size_t copied = 0;
  std::size_t kept = m.size();
  for (std::size_t i = 0; i < m.size(); ++i) {
    auto now = after.find(m[i].key);
    if (now == after.end()) {  // removed, with the separator after it (before it, when last)
      const std::size_t from = std::max(copied, i + 1 < m.size() || i == 0 ? m[i].key_begin : m[i - 1].value_end);
      const std::size_t to = i + 1 < m.size() ? m[i + 1].key_begin : m[i].value_end;
      out.append(text.substr(copied, from - copied));
      copied = to;
      --kept;
      continue;
    }
    auto was = before.find(m[i].key);
    if (was != before.end() && *was == *now) continue;
    out.append(text.substr(copied, m[i].value_begin - copied));
    out += dump_value(*now);
    copied = m[i].value_end;
  }
  // Added members go after the last member's value (or just after '{').
  const std::size_t at = m.empty() ? ms.open + 1 : m.back().value_end;
  out.append(text.substr(copied, at - copied));
  copied = at;
  const std::string_view sep = m.size() >= 2 ? text.substr(m[m.size() - 2].value_end, m.back().key_begin - m[m.size() - 2].value_end)
                                             : std::string_view(",");
  const std::string_view colon = m.empty() ? std::string_view(":") : text.substr(m.back().key_end, m.back().value_begin - m.back().key_end);
  for (auto it = after.begin(); it != after.end(); ++it) {
    if (before.contains(it.key())) continue;
    if (kept++ > 0) out.append(sep);
    out += dump_value(nlohmann::ordered_json(it.key()));
    out.append(colon);
    out += dump_value(it.value());
  }
  out.append(text.substr(copied));
}

}  // namespace ilmap::sentry_scan
