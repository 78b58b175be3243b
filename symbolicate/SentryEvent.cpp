// SentryEvent.cpp - Sentry events and envelopes of .NET programs, symbolicated with ilmap caches
// (SentryEvent.h; Sentry RFC 0013). Every field read from the event is checked for type and
// range before use; a frame that fails a check is left untouched and counted by reason.
#include "symbolicate/SentryEvent.h"
#include "support/Ascii.h"

#include <algorithm>
#include <charconv>
#include <limits>

#include "symbolicate/BatchScan.h"
#include "symbolicate/EventScan.h"
#include "symbolicate/EventSymbolicator.h"
#include "support/TextEscape.h"

namespace ilmap {
namespace {

using Json = nlohmann::ordered_json;
using sentry_scan::BatchScan;
using sentry_scan::EventSymbolicator;
using sentry_scan::EventScan;
using sentry_scan::hex_value;
using sentry_scan::kMaxWhyNot;
using sentry_scan::last_component;
using sentry_scan::MemberScan;
constexpr std::size_t kMaxDepth = 512;

// Deepest nesting of arrays and objects in JSON text (strings skipped), so that parsing and
// writing (recursive in nlohmann) stay within a bounded stack.
std::size_t json_depth(std::string_view s) {
  std::size_t depth = 0, deepest = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      deepest = std::max(deepest, ++depth);
    } else if ((c == '}' || c == ']') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

std::size_t line_number_at(std::string_view s, std::size_t pos) {
  return static_cast<std::size_t>(std::count(s.begin(), s.begin() + static_cast<std::ptrdiff_t>(std::min(pos, s.size())), '\n')) + 1;
}

// One line from `pos` (without its LF); pos moves past the LF.
std::string_view take_line(std::string_view s, std::size_t& pos) {
  const std::size_t nl = s.find('\n', pos);
  const std::size_t end = nl == std::string_view::npos ? s.size() : nl;
  std::string_view line = s.substr(pos, end - pos);
  pos = nl == std::string_view::npos ? s.size() : nl + 1;
  return line;
}

Status envelope(std::string_view in, std::string& out, EventSymbolicator& sym, SentryStats& stats) {
  std::size_t pos = 0;
  const std::string_view header = take_line(in, pos);
  if (!Json::accept(header) || !Json::parse(header).is_object()) {
    // Not an envelope: say where the text stops being JSON (the parser's own message quotes
    // the input, which may hold anything, so only its position is used).
    std::size_t at = 0;
    try {
      const Json whole = Json::parse(in);  // throws: accept(in) failed
      (void)whole;
    } catch (const Json::parse_error& e) {
      at = e.byte == 0 ? 0 : e.byte - 1;
    }
    const std::size_t line = line_number_at(in, at);
    const std::size_t nl = at == 0 ? std::string_view::npos : in.rfind('\n', at - 1);
    const std::size_t column = nl == std::string_view::npos ? at + 1 : at - nl;
    return {Errc::kMalformed, format("line %zu, column %zu: not JSON; the input is neither a Sentry event (one JSON "
                                     "object) nor an envelope (a header line, then items)", line, column)};
  }
  out.append(header);
  if (pos <= in.size() && pos > header.size()) out.push_back('\n');
  std::size_t item = 0;
  MemberScan header_members;
  while (pos < in.size()) {
    const std::size_t header_pos = pos;
    std::string_view ih = take_line(in, pos);
    const bool header_lf = pos > header_pos + ih.size();
    if (ih.empty() || ih == "\r") {  // blank lines between items are allowed
      out.append(ih);
      if (header_lf) out.push_back('\n');
      continue;
    }
    ++item;
    auto line = [&] { return line_number_at(in, header_pos); };  // for messages only
    Json h;
    if (json_depth(ih) > kMaxDepth || !Json::accept(ih) || !(h = Json::parse(ih)).is_object() || !header_members.run(ih))
      return {Errc::kMalformed, format("line %zu: envelope item %zu: header is not a JSON object", line(), item)};
    // A header with `length` or `type` twice is ambiguous: readers differ on which one counts.
    const MemberScan::Member* length_member = nullptr;
    std::size_t lengths = 0, types = 0;
    for (const MemberScan::Member& m : header_members.members) {
      if (m.key == "length") ++lengths, length_member = &m;
      if (m.key == "type") ++types;
    }
    if (lengths > 1 || types > 1)
      return {Errc::kMalformed, format("line %zu: envelope item %zu: header has `%s` twice", line(), item,
                                       lengths > 1 ? "length" : "type")};
    std::string_view payload;
    bool payload_lf = false;
    auto len = h.find("length");
    if (len != h.end() && !len->is_null()) {
      const std::optional<std::uint64_t> n = hex_value(*len);
      if (!n || !len->is_number())
        return {Errc::kMalformed, format("line %zu: envelope item %zu: length is not a number", line(), item)};
      if (*n > in.size() - pos)
        return {Errc::kTruncated, format("line %zu: envelope item %zu: length %llu runs past the end of the input", line(), item,
                                         static_cast<unsigned long long>(*n))};
      payload = in.substr(pos, static_cast<std::size_t>(*n));
      pos += payload.size();
      if (pos < in.size() && in[pos] == '\n') {
        payload_lf = true;
        ++pos;
      }
    } else {
      const std::size_t before = pos;
      payload = take_line(in, pos);
      payload_lf = pos > before + payload.size();
    }
    // The payload, with its resolved frames spliced in (a payload without `length` ends at LF,
    // and what is spliced in holds no LF, so it stays one line).
    std::string rewritten;
    bool changed = false;
    if (h.find("type") != h.end() && h["type"] == "event") {
      if (json_depth(payload) <= kMaxDepth && sym.event_text(payload, rewritten) == EventSymbolicator::TextEvent::kDone)
        changed = rewritten != payload;
      else
        ++stats.events_unreadable;
    }
    if (changed && len != h.end() && !len->is_null()) {
      out.append(ih.substr(0, length_member->value_begin));
      out += std::to_string(rewritten.size());
      out.append(ih.substr(length_member->value_end));
    } else {
      out.append(ih);
    }
    if (header_lf) out.push_back('\n');
    if (changed) out += rewritten;
    else out.append(payload);
    if (payload_lf) out.push_back('\n');
  }
  return {};
}

}  // namespace

void add_source_context(nlohmann::ordered_json& frame, const SourceLines& source, std::uint32_t line,
                        std::uint32_t around, std::size_t max_line_bytes) {
  const auto text = [&](std::size_t i) { return std::string(source.line(i).substr(0, max_line_bytes)); };
  const std::size_t at = line - 1;
  Json pre = Json::array(), post = Json::array();
  for (std::size_t i = at >= around ? at - around : 0; i < at; ++i) pre.push_back(text(i));
  for (std::size_t i = at + 1; i < source.count() && i <= at + around; ++i) post.push_back(text(i));
  frame["pre_context"] = std::move(pre);
  frame["context_line"] = text(at);
  frame["post_context"] = std::move(post);
}

bool looks_like_sentry_json(std::string_view input) noexcept {
  for (char c : input) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') continue;
    return c == '{';
  }
  return false;
}

SentryStart sentry_start(std::string_view line) {
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r' || line.back() == ' ' || line.back() == '\t'))
    line.remove_suffix(1);
  EventScan scan(1, 0);
  if (!scan.scan(line)) return scan.cut_short() ? SentryStart::kIncomplete : SentryStart::kOther;
  if (!scan.object) return SentryStart::kOther;
  if (!scan.frames.empty() || scan.frames_past_limit > 0) return SentryStart::kEvent;
  MemberScan members;
  if (!members.run(line)) return SentryStart::kOther;
  for (const MemberScan::Member& m : members.members)
    if (m.key != "event_id" && m.key != "dsn" && m.key != "sdk" && m.key != "sent_at" && m.key != "trace")
      return SentryStart::kOther;
  return SentryStart::kEnvelope;
}

void symbolicate_sentry_event(nlohmann::ordered_json& event, SentryModuleProvider& provider,
                              const SentryOptions& options, SentryStats& stats) {
  try {
    EventSymbolicator(provider, options, stats).event(event);
  } catch (const std::exception&) {  // only bad_alloc can get here: every access is type-checked
    ++stats.events_unreadable;
  }
}

Status symbolicate_sentry_text(std::string_view input, std::string& output, SentryModuleProvider& provider,
                               const SentryOptions& options, SentryStats& stats) {
  if (input.size() > options.max_input_bytes)
    return {Errc::kTooLarge, format("Sentry input of %zu bytes (the limit is %zu)", input.size(), options.max_input_bytes)};
  if (!looks_like_sentry_json(input))
    return {Errc::kMalformed, "line 1: a Sentry event or envelope starts with '{'"};
  const std::size_t depth = json_depth(input);
  if (depth > kMaxDepth)
    return {Errc::kTooLarge, format("JSON nested %zu levels deep (the limit is %zu)", depth, kMaxDepth)};
  EventSymbolicator sym(provider, options, stats);
  std::string out;
  try {
    // One event (its text starts with '{', so when it is JSON it is an object), else an envelope.
    if (sym.event_text(input, out) == EventSymbolicator::TextEvent::kNotJson) {
      out.clear();
      if (Status s = envelope(input, out, sym, stats); !s) return s;
    }
  } catch (const std::exception& e) {  // allocation failure; nlohmann errors are ruled out above
    return {Errc::kTooLarge, std::string("Sentry input: ") + e.what()};
  }
  output = std::move(out);
  return {};
}

namespace {
// Reads keys without building a tree: stops at a top-level "stacktraces".
struct TopLevelKeys : nlohmann::json_sax<Json> {
  int depth = 0;
  bool batch = false;
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return ++depth <= int(kMaxDepth); }
  bool key(string_t& k) override {
    if (depth == 1 && k == "stacktraces") batch = true;
    return !batch;
  }
  bool end_object() override { return --depth, true; }
  bool start_array(std::size_t) override { return ++depth <= int(kMaxDepth); }
  bool end_array() override { return --depth, true; }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }
};
}  // namespace

bool looks_like_batch_request(std::string_view text) noexcept {
  if (!looks_like_sentry_json(text)) return false;
  TopLevelKeys keys;
  try {
    (void)Json::sax_parse(text, &keys);
  } catch (const std::exception&) {
    return false;
  }
  return keys.batch;
}

Status symbolicate_batch(std::string_view request, std::string& response, SentryModuleProvider& provider,
                         const SentryOptions& options, SentryStats& stats) {
  if (request.size() > options.max_input_bytes || request.size() > std::numeric_limits<std::uint32_t>::max())
    return {Errc::kTooLarge, format("batch request of %zu bytes (the limit is %zu)", request.size(),
                                    std::min<std::size_t>(options.max_input_bytes, std::numeric_limits<std::uint32_t>::max()))};
  const std::size_t depth = json_depth(request);
  if (depth > kMaxDepth)
    return {Errc::kTooLarge, format("JSON nested %zu levels deep (the limit is %zu)", depth, kMaxDepth)};
  try {
    BatchScan scan;
    if (!scan.run(request)) return {Errc::kMalformed, "the batch request is not JSON"};
    if (!scan.object) return {Errc::kMalformed, "the batch request is not a JSON object"};
    for (const auto& [key, member] : {std::pair{"stacktraces", &scan.stacktraces}, std::pair{"modules", &scan.modules}}) {
      if (!member->present) return {Errc::kMalformed, format("the batch request has no \"%s\"", key)};
      if (!member->array) return {Errc::kMalformed, format("\"%s\" of the batch request is not an array", key)};
    }
    if (scan.bad_stacktrace != BatchScan::kNone)
      return {Errc::kMalformed, format("stacktraces[%zu] of the batch request is not an object with a \"frames\" array",
                                       scan.bad_stacktrace)};
    std::string out;
    EventSymbolicator(provider, options, stats).batch_text(request, scan, out);
    response = std::move(out);
  } catch (const std::exception& e) {  // allocation failure: the text is checked whole before it is read again
    return {Errc::kTooLarge, std::string("batch request: ") + e.what()};
  }
  return {};
}

Status symbolicate_batch_tree(std::string_view request, std::string& response, SentryModuleProvider& provider,
                         const SentryOptions& options, SentryStats& stats) {
  if (request.size() > options.max_input_bytes)
    return {Errc::kTooLarge, format("batch request of %zu bytes (the limit is %zu)", request.size(), options.max_input_bytes)};
  const std::size_t depth = json_depth(request);
  if (depth > kMaxDepth)
    return {Errc::kTooLarge, format("JSON nested %zu levels deep (the limit is %zu)", depth, kMaxDepth)};
  Json req = Json::parse(request, nullptr, false);
  if (req.is_discarded()) return {Errc::kMalformed, "the batch request is not JSON"};
  if (!req.is_object()) return {Errc::kMalformed, "the batch request is not a JSON object"};
  for (const char* key : {"stacktraces", "modules"}) {
    const auto it = req.find(key);
    if (it == req.end()) return {Errc::kMalformed, format("the batch request has no \"%s\"", key)};
    if (!it->is_array()) return {Errc::kMalformed, format("\"%s\" of the batch request is not an array", key)};
  }
  for (std::size_t i = 0; i < req["stacktraces"].size(); ++i) {
    const Json& st = req["stacktraces"][i];
    const auto frames = st.is_object() ? st.find("frames") : st.end();
    if (!st.is_object() || frames == st.end() || !frames->is_array())
      return {Errc::kMalformed, format("stacktraces[%zu] of the batch request is not an object with a \"frames\" array", i)};
  }
  try {
    EventSymbolicator(provider, options, stats).batch(req);
    Json out = Json::object();
    out["status"] = "completed";
    out["stacktraces"] = std::move(req["stacktraces"]);
    out["modules"] = std::move(req["modules"]);
    response = out.dump(-1, ' ', false, Json::error_handler_t::replace);
  } catch (const std::exception& e) {  // allocation failure: every access is type-checked
    return {Errc::kTooLarge, std::string("batch request: ") + e.what()};
  }
  return {};
}

namespace {
// A debug id compared as Sentry compares it: case and dashes do not matter
// ("6C544A86-3CCB-...-D4ED59C0" and "6c544a863ccb...d4ed59c0" name one PDB).
std::string debug_id_key(std::string_view id) {
  std::string k;
  for (char c : id)
    if (c != '-') k += (c >= 'A' && c <= 'Z') ? char(c - 'A' + 'a') : c;
  return k;
}
}  // namespace

void SentryCacheSetProvider::add(Cache cache) {
  Entry e;
  e.cache = std::make_unique<Cache>(std::move(cache));
  const CacheIdentity id = e.cache->identity();
  e.debug_id = id.debug_id;
  e.id_key = debug_id_key(id.debug_id);
  e.pdb_name = ascii_lower(id.pdb_key.substr(0, id.pdb_key.find('/')));
  caches_.push_back(std::move(e));
}

const Cache* SentryCacheSetProvider::find(const SentryImage& image, std::string& why_not) {
  const std::string want = debug_id_key(image.debug_id);
  const std::string name = ascii_lower(last_component(image.debug_file));
  std::string other;
  for (const Entry& e : caches_) {
    if (!want.empty() && e.id_key == want) return e.cache.get();
    if (!name.empty() && e.pdb_name == name && other.empty()) other = e.debug_id;
  }
  if (!other.empty())
    why_not = "PDB id mismatch: " + std::string(last_component(image.debug_file)) + " has debug id " + other +
              ", the event wants " + image.debug_id;
  else
    why_not = "no cache for " + (name.empty() ? std::string("an image") : std::string(last_component(image.debug_file))) +
              " (debug id " + (image.debug_id.empty() ? std::string("missing") : image.debug_id) + ")";
  return nullptr;
}

void SentryStats::add(const SentryStats& o) {
  events += o.events, events_unreadable += o.events_unreadable, duplicate_keys += o.duplicate_keys, frames += o.frames;
  resolved += o.resolved, with_context += o.with_context, with_url += o.with_url;
  not_an_object += o.not_an_object, already += o.already, no_function_id += o.no_function_id;
  bad_field += o.bad_field, absurd_value += o.absurd_value, no_image += o.no_image;
  module_not_found += o.module_not_found, no_line += o.no_line, over_limit += o.over_limit;
  for (const auto& [why, n] : o.why_not)
    if (auto it = why_not.find(why); it != why_not.end())
      it->second += n;
    else if (why_not.size() < kMaxWhyNot)
      why_not.emplace(why, n);
}

std::string SentryStats::summary() const {
  std::string s = format("sentry: %llu frames in %llu events: %llu resolved (%llu with source context, %llu with a URL)",
                         static_cast<unsigned long long>(frames), static_cast<unsigned long long>(events),
                         static_cast<unsigned long long>(resolved), static_cast<unsigned long long>(with_context),
                         static_cast<unsigned long long>(with_url));
  const std::pair<const char*, std::uint64_t> reasons[] = {
      {"module not found", module_not_found}, {"no line at that offset", no_line},
      {"without function_id", no_function_id}, {"with a line already", already},
      {"without a pe_dotnet image", no_image}, {"with unreadable fields", bad_field},
      {"with absurd values", absurd_value}, {"not objects", not_an_object},
      {"past the frame limit", over_limit}};
  if (left() != 0) {
    s += format("; %llu left:", static_cast<unsigned long long>(left()));
    bool first = true;
    for (const auto& [what, n] : reasons) {
      if (n == 0) continue;
      s += format("%s %llu %s", first ? "" : ",", static_cast<unsigned long long>(n), what);
      first = false;
    }
  }
  if (events_unreadable != 0)
    s += format("; %llu event items not JSON objects (copied unchanged)", static_cast<unsigned long long>(events_unreadable));
  if (duplicate_keys != 0)
    s += format("; %llu events with duplicate keys (copied unchanged)", static_cast<unsigned long long>(duplicate_keys));
  s.push_back('\n');
  for (const auto& [why, n] : why_not)
    s += format("sentry:   %s (%llu frames)\n", escape_text(why).c_str(), static_cast<unsigned long long>(n));
  return s;
}

std::string_view first_line(std::string_view text) noexcept {
  const std::size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return {};
  text.remove_prefix(first);
  return text.substr(0, text.find('\n'));
}

}  // namespace ilmap
