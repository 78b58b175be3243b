// BatchScan.cpp - a batch request read and re-written by byte positions (BatchScan.h).
#include "symbolicate/BatchScan.h"

#include <algorithm>

namespace ilmap::sentry_scan {
namespace {

using Json = nlohmann::ordered_json;

// Where the string that ends (past its closing quote) at `end` begins: the nearest quote before
// the closing one that no backslash escapes (a string holds no other unescaped quote).
std::size_t string_begin(std::string_view t, std::size_t end) {
  std::size_t q = end - 1;
  for (;;) {
    q = t.rfind('"', q - 1);
    std::size_t slashes = 0;
    while (q > slashes && t[q - 1 - slashes] == '\\') ++slashes;
    if (slashes % 2 == 0) return q;
  }
}

}  // namespace

void dump_to(const Json& v, std::string& out) { out += v.dump(-1, ' ', false, Json::error_handler_t::replace); }

const DuplicateKeys::Entry* DuplicateKeys::find(std::size_t key_end) const {
  const auto it = std::lower_bound(entries.begin(), entries.end(), key_end,
                                   [](const Entry& e, std::size_t k) { return e.key_end < k; });
  return it != entries.end() && it->key_end == key_end ? &*it : nullptr;
}

bool BatchScan::run(std::string_view text) {
  stack_.clear();
  duplicates.entries.clear();
  module_begins.clear();
  if (!scan(text)) return false;
  std::sort(duplicates.entries.begin(), duplicates.entries.end(),
            [](const DuplicateKeys::Entry& a, const DuplicateKeys::Entry& b) { return a.key_end < b.key_end; });
  return true;
}

// The role of a value that starts now (`kind`: 'o' object, 'a' array, 's' scalar at `begin`,
// which for a scalar is not known yet and is found from the array's last element).
BatchScan::Role BatchScan::value_start(char kind, std::size_t begin) {
  if (stack_.empty()) {
    object = kind == 'o';
    return object ? Role::kRoot : Role::kOther;
  }
  Level& p = stack_.back();
  switch (p.role) {
    case Role::kRoot:
      if (p.key == 1) {  // a later "stacktraces" replaces an earlier one, as in a tree
        stacktraces = {true, kind == 'a', p.key_end};
        bad_stacktrace = kNone;
        return kind == 'a' ? Role::kStacktraces : Role::kOther;
      }
      if (p.key == 2) {
        modules = {true, kind == 'a', p.key_end};
        module_begins.clear();
        return kind == 'a' ? Role::kModules : Role::kOther;
      }
      return Role::kOther;
    case Role::kStacktraces: {
      const std::size_t i = p.index++;
      if (kind == 'o') return Role::kStacktrace;
      if (bad_stacktrace == kNone) bad_stacktrace = i;
      return Role::kOther;
    }
    case Role::kStacktrace:
      if (p.key == 1) p.frames_array = kind == 'a';
      return Role::kOther;
    case Role::kModules:
      if (kind == 's') begin = skip_separator(text(), p.last_end, ',');
      module_begins.push_back(static_cast<std::uint32_t>(begin));
      return Role::kOther;
    default:
      return Role::kOther;
  }
}

bool BatchScan::on_open(bool is_object, std::size_t begin) {
  Level l;
  l.role = value_start(is_object ? 'o' : 'a', begin);
  if (l.role == Role::kStacktrace) l.index = stack_.back().index - 1;
  l.object = is_object;
  l.last_end = begin + 1;
  stack_.push_back(std::move(l));
  return true;
}

bool BatchScan::on_key(const std::string& key, std::size_t end) {
  Level& l = stack_.back();
  const std::uint64_t h = static_cast<std::uint32_t>(std::hash<std::string>{}(key));
  l.keys.push_back(h << 32 | end);
  l.key_end = end;
  l.key = 0;
  if (l.role == Role::kRoot) l.key = key == "stacktraces" ? 1 : key == "modules" ? 2 : 0;
  if (l.role == Role::kStacktrace) l.key = key == "frames" ? 1 : 0;
  return true;
}

bool BatchScan::on_close(std::size_t end) {
  const Level l = std::move(stack_.back());
  stack_.pop_back();
  if (l.object) find_duplicates(l);
  if (l.role == Role::kStacktrace && !l.frames_array && bad_stacktrace == kNone) bad_stacktrace = l.index;
  if (!stack_.empty()) stack_.back().last_end = end;
  return true;
}

bool BatchScan::on_scalar(std::size_t end) {
  (void)value_start('s', 0);
  if (!stack_.empty()) stack_.back().last_end = end;
  return true;
}

// Keys of one object with equal hashes are decoded and compared; each key met more than once
// gives entries: its first occurrence takes the last one's value, the others are left out.
void BatchScan::find_duplicates(const Level& l) {
  if (l.keys.size() < 2) return;
  std::vector<std::uint64_t> keys = l.keys;
  std::sort(keys.begin(), keys.end());
  std::vector<std::pair<std::string, std::uint32_t>> run;
  for (std::size_t i = 0; i < keys.size();) {
    std::size_t j = i + 1;
    while (j < keys.size() && keys[j] >> 32 == keys[i] >> 32) ++j;
    if (j - i >= 2) {
      run.clear();
      for (std::size_t k = i; k < j; ++k) {
        const std::size_t end = static_cast<std::uint32_t>(keys[k]);
        const std::size_t begin = string_begin(text(), end);
        run.emplace_back(Json::parse(text().substr(begin, end - begin)).get<std::string>(), static_cast<std::uint32_t>(end));
      }
      std::sort(run.begin(), run.end());
      for (std::size_t a = 0; a < run.size();) {
        std::size_t b = a + 1;
        while (b < run.size() && run[b].first == run[a].first) ++b;
        if (b - a >= 2) {
          duplicates.entries.push_back({run[a].second, run[b - 1].second});
          for (std::size_t k = a + 1; k < b; ++k) duplicates.entries.push_back({run[k].second, 0});
        }
        a = b;
      }
    }
    i = j;
  }
}

bool ArrayWalk::run(std::string_view text, std::size_t begin, const std::function<void(std::size_t)>& element) {
  element_ = &element;
  base_ = begin;
  depth_ = 0;
  return scan(text.substr(begin), false);
}

bool ArrayWalk::on_open(bool, std::size_t begin) {
  if (depth_ == 0) last_end_ = begin + 1;
  if (depth_++ == 1) (*element_)(base_ + begin);
  return true;
}

bool ArrayWalk::on_close(std::size_t end) {
  if (--depth_ == 1) last_end_ = end;
  return true;
}

bool ArrayWalk::on_scalar(std::size_t end) {
  if (depth_ == 1) {
    (*element_)(base_ + skip_separator(text(), last_end_, ','));
    last_end_ = end;
  }
  return true;
}

bool FieldScan::run(std::string_view text, std::size_t begin) {
  fields = Json();
  depth_ = 0;
  want_ = nullptr;
  return scan(text.substr(begin), false);
}

bool FieldScan::value(Json v) {
  if (depth_ == 1 && want_) fields[std::string(*want_)] = std::move(v);
  return true;
}

bool FieldScan::on_open(bool object, std::size_t) {
  if (depth_ == 0 && object) fields = Json::object();
  if (depth_ == 1 && want_) fields[std::string(*want_)] = object ? Json::object() : Json::array();
  ++depth_;
  return true;
}

bool FieldScan::on_key(const std::string& key, std::size_t) {
  if (depth_ != 1) return true;
  want_ = nullptr;
  for (const std::string_view& k : keys_)
    if (k == key) want_ = &k;
  return true;
}

bool CompactWriter::write(std::size_t begin) {
  base_ = begin;
  open_.clear();
  skip_ = 0;
  skip_next_ = false;
  edited_.assign(edits ? edits->size() : 0, false);
  return scan(whole_.substr(begin), false);
}

void CompactWriter::separator() {
  if (open_.empty()) return;
  char& c = open_.back();
  if (c == 'O' || c == 'A') out_.push_back(',');
  c = c == 'o' ? 'O' : c == 'a' ? 'A' : c;
}

bool CompactWriter::scalar(const Json& v) {
  if (skip_ > 0) return true;
  if (skip_next_) return skip_next_ = false, true;
  if (!open_.empty() && (open_.back() == 'a' || open_.back() == 'A')) separator();
  dump_to(v, out_);
  return true;
}

bool CompactWriter::on_open(bool object, std::size_t) {
  if (skip_ > 0) return ++skip_, true;
  if (skip_next_) {
    skip_next_ = false;
    skip_ = 1;
    return true;
  }
  if (!open_.empty() && (open_.back() == 'a' || open_.back() == 'A')) separator();
  out_.push_back(object ? '{' : '[');
  open_.push_back(object ? 'o' : 'a');
  return true;
}

bool CompactWriter::on_key(const std::string& key, std::size_t end) {
  if (skip_ > 0) return true;
  const DuplicateKeys::Entry* d = duplicates_.find(base_ + end);
  if (d && d->last_key_end == 0) return skip_next_ = true, true;  // a tree keeps one occurrence
  const std::size_t value_begin = skip_separator(whole_, d ? d->last_key_end : base_ + end, ':');
  const bool top = open_.size() == 1;
  const std::optional<Json>* edit = nullptr;
  if (top && edits)
    for (std::size_t i = 0; i < edits->size() && !edit; ++i)
      if ((*edits)[i].first == key && !edited_[i]) edited_[i] = true, edit = &(*edits)[i].second;
  if (edit && !*edit) return skip_next_ = true, true;  // erased
  separator();
  dump_to(Json(key), out_);
  out_.push_back(':');
  if (edit) {
    dump_to(**edit, out_);
  } else if (top && frames && key == "frames") {
    (*frames)(value_begin);
  } else if (d) {
    CompactWriter(whole_, duplicates_, out_).write(value_begin);
  } else {
    return true;  // the value follows
  }
  skip_next_ = true;
  return true;
}

bool CompactWriter::on_close(std::size_t) {
  if (skip_ > 0) return --skip_, true;
  const char c = open_.back();
  if (open_.size() == 1 && edits && (c == 'o' || c == 'O')) {
    for (std::size_t i = 0; i < edits->size(); ++i) {
      if (edited_[i] || !(*edits)[i].second) continue;
      separator();
      dump_to(Json((*edits)[i].first), out_);
      out_.push_back(':');
      dump_to(*(*edits)[i].second, out_);
    }
  }
  open_.pop_back();
  out_.push_back(c == 'o' || c == 'O' ? '}' : ']');
  return true;
}

}  // namespace ilmap::sentry_scan
