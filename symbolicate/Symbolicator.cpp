// Symbolicator.cpp - the line rewriter (see Symbolicator.h).
#include "symbolicate/Symbolicator.h"

#include "symbolicate/EventScan.h"
#include "symbolicate/SentryEvent.h"
#include "support/TextEscape.h"
#include "ilmap/method_key.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <cstdio>

namespace ilmap::symbolicate {
namespace {

constexpr std::size_t kFlushBytes = 64 * 1024;
// Module texts remembered per Symbolicator (module_memo_); a log naming more is still answered
// (by the index, memoized there too), only not from the memo.
constexpr std::size_t kMaxModuleMemo = 4096;

Reason reason_of(Miss m) {
  switch (m) {
    case Miss::kPdbMismatch: return Reason::kPdbMismatch;
    case Miss::kNoPdb: return Reason::kNoPdb;
    case Miss::kBadFile: return Reason::kBadFile;
    case Miss::kBadPdbName: return Reason::kBadPdbName;
    default: return Reason::kModuleNotFound;
  }
}

std::string_view strip_newline(std::string_view l) {
  if (!l.empty() && l.back() == '\n') l.remove_suffix(1);
  return l;
}

// std::to_chars, not snprintf: a frame's line number is formatted on every resolved frame, and
// snprintf's format parsing cost about a sixth of a dense trace's time (callgrind).
void append_uint(std::string& s, std::uint32_t v) {
  char buf[16];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  // (pointer, count) appends in place; the (first, last) overload goes through _M_replace.
  s.append(buf, static_cast<std::size_t>(r.ptr - buf));
}


}  // namespace

const char* reason_name(Reason r) noexcept {
  switch (r) {
    case Reason::kModuleNotFound: return "module not found";
    case Reason::kPdbMismatch: return "PDB id mismatch";
    case Reason::kNoPdb: return "no PDB for the module";
    case Reason::kBadFile: return "unreadable debug file";
    case Reason::kBadPdbName: return "unusable PDB name";
    case Reason::kNoNames: return "module without method names";
    case Reason::kMethodNotFound: return "method not found";
    case Reason::kAmbiguous: return "ambiguous name";
    case Reason::kNoPoint: return "method without points";
    case Reason::kNoModuleLine: return "no MODULE line";
    case Reason::kModuleLinesTooFar: return "module lines too far";
    case Reason::kNoMsym: return "no msym";
    case Reason::kBadMsym: return "bad msym";
    case Reason::kCount: break;
  }
  return "?";
}

Symbolicator::Symbolicator(ModuleIndex& index, SymbolicateOptions options, std::function<void(std::string_view)> write)
    : index_(index), opt_(options), write_(std::move(write)), il_(index) {}

Symbolicator::~Symbolicator() = default;

void Symbolicator::emit(std::string_view s) {
  out_.append(s);
  if (out_.size() >= kFlushBytes) {
    write_(out_);
    out_.clear();
  }
}

void Symbolicator::render_location(const LookupResult& r, bool mono_style, std::string& out) {
  const std::string_view where = opt_.urls && !r.source_url.empty() ? r.source_url : r.file;
  out.append(where);
  out += mono_style ? ":" : ":line ";
  append_uint(out, r.line);
  if (opt_.columns) {
    out += ':';
    append_uint(out, r.column);
  }
}

void Symbolicator::json_frame(const ParsedFrame& f, std::string_view module, std::uint32_t token,
                              const LookupResult* r, std::string_view method, const char* reason,
                              const char* chosen_by, const Cache* cache) {
  using J = nlohmann::ordered_json;
  J j;
  j["input_line"] = line_no_;
  j["format"] = frame_format_name(f.format);
  j["module"] = std::string(module);
  if (token) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%08x", token);
    j["token"] = buf;
  } else {
    j["token"] = nullptr;
  }
  j["il_offset"] = f.il_offset;
  if (f.format == FrameFormat::kMonoAot) {
    j["native_offset"] = f.native_offset;
    j["aot_id"] = f.aot_id.empty() ? J(nullptr) : J(std::string(f.aot_id));
  }
  j["method"] = std::string(method);
  j["resolved"] = r != nullptr;
  if (r) {
    j["file"] = std::string(r->file);
    j["line"] = r->line;
    j["column"] = r->column;
    j["end_line"] = r->end_line;
    j["end_column"] = r->end_column;
    j["url"] = r->source_url.empty() ? J(nullptr) : J(std::string(r->source_url));
    if (chosen_by) j["chosen_by"] = chosen_by;
    if (cache)
      if (const std::string& outside = index_.outside_pdb_of(cache); !outside.empty()) j["pdb_outside_search"] = outside;
    if (opt_.context && opt_.sources && cache) {
      SourceMiss why = SourceMiss::kNone;
      if (const SourceLines* src = opt_.sources->find_line(*cache, r->document, r->line, &why))
        add_source_context(j, *src, r->line, *opt_.context, opt_.max_context_line);
      else
        j["context_missing"] = source_miss_name(why);
    }
  } else {
    j["reason"] = reason;
  }
  std::string s = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  s += '\n';
  out_ += s;
  if (out_.size() >= kFlushBytes) {
    write_(out_);
    out_.clear();
  }
}

// The first frame of a module resolved from a PDB outside the search set: named in the stats.
void Symbolicator::note_outside(const Cache* c, std::string_view module) {
  if (std::find(outside_seen_.begin(), outside_seen_.end(), c) != outside_seen_.end()) return;
  outside_seen_.push_back(c);
  const std::string pe = index_.pe_of(c);
  const std::size_t slash = pe.find_last_of('/');
  stats_.outside_pdbs.emplace_back(pe.empty() ? std::string(module) : pe.substr(slash == std::string::npos ? 0 : slash + 1),
                                   index_.outside_pdb_of(c));
}

bool Symbolicator::fail(const ParsedFrame& f, Reason r, std::string_view module) {
  ++stats_.unresolved[std::size_t(r)];
  if (r == Reason::kModuleNotFound && !module.empty() && !stats_.more_missing) {
    auto& named = stats_.missing_modules;
    if (std::find(named.begin(), named.end(), module) == named.end()) {
      if (named.size() < SymbolicateStats::kNamedMissing) named.emplace_back(module);
      else stats_.more_missing = true;
    }
  }
  if (opt_.json) json_frame(f, module, f.token, nullptr, f.method, reason_name(r));
  return false;
}

// The answer of several candidate methods (`tokens_` of `c`): resolved only when every one of
// them gives the same location. `token` gets the first candidate's token.
namespace {
struct Agreement {
  bool any = false, same_location = true, same_name = true, some_without = false;
  std::size_t answered = 0;  // candidates with a point at the offset
  LookupResult result;
  std::string_view name;
  std::uint32_t token = 0;
  const Cache* cache = nullptr;
  void add(const Cache* c, std::uint32_t tok, std::uint32_t il) {
    const auto r = c->lookup(tok, il);
    const auto n = c->method_name(tok);
    const std::string_view name_text = n ? n->coreclr : std::string_view{};
    if (!r) {
      some_without = true;
      return;
    }
    ++answered;
    if (!any) {
      any = true, result = *r, name = name_text, token = tok, cache = c;
      return;
    }
    if (r->file != result.file || r->line != result.line || r->column != result.column) same_location = false;
    if (name_text != name) same_name = false;
  }
  // Candidates without a point at the offset cannot have printed a line (a state machine's
  // kickoff stub, its constructor): only those that answer must agree.
  Reason verdict() const {
    if (!any) return Reason::kNoPoint;
    if (!same_location) return Reason::kAmbiguous;
    return Reason::kCount;  // resolved
  }
  // The one method the frame was resolved to, for the frame below's call (step 2 of the Android
  // form): none when several candidates agreed on the span (overloads of one span), since the
  // frame may have been either, and a guess could exclude the caller that made the call.
  symbols::Callee callee() const { return answered == 1 ? symbols::Callee{cache, token} : symbols::Callee{}; }
};
}  // namespace

// Mono prints an async lambda's frame with the lambda's name and the IL offset of its state
// machine's MoveNext. The names section gives every method of that state machine the lambda's
// Mono text, but the name index keys them under their own CoreCLR names (CoreCLR prints an async
// lambda's MoveNext as it is), so find_methods does not return them: they are found by their
// Mono text, the lambda's own methods left out, once per cache and text. Only asked for a frame
// whose named methods have no point at its offset (the lambda itself is a stub without points).
const std::vector<std::uint32_t>& Symbolicator::mono_state_machine(const Cache* c, std::string_view mono_text) {
  auto key = std::make_pair(c, std::string(mono_text));
  auto it = mono_machines_.find(key);
  if (it != mono_machines_.end()) return it->second;
  std::vector<std::uint32_t> parts;
  const std::uint32_t n = c->method_name_count();
  for (std::uint32_t rid = 1; rid <= n; ++rid) {
    const auto m = c->method_name(0x06000000u | rid);
    if (m && m->mono == mono_text && std::find(tokens_.begin(), tokens_.end(), 0x06000000u | rid) == tokens_.end())
      parts.push_back(0x06000000u | rid);
  }
  return mono_machines_.emplace(std::move(key), std::move(parts)).first->second;
}

// Resolves one frame: true with its new text (for [replace_from, replace_to)) appended to
// `out`, false when it stays as it was (counted by reason). In --json mode the frame's record
// is written instead.
bool Symbolicator::resolve(const ParsedFrame& f, const Modules* modules, bool too_far, std::string& out) {
  ++stats_.frames;
  if (f.format == FrameFormat::kCoreClr || f.format == FrameFormat::kPst) {
    ModuleMemo ans{};
    if (f.format == FrameFormat::kCoreClr) {
      if (const auto m = module_memo_.find(f.module); m != module_memo_.end()) {
        ans = m->second;
      } else {
        const ModuleAnswer& a = index_.by_file_name(f.module);
        ans = {a.cache, a.miss, a.cache && !index_.outside_pdb_of(a.cache).empty()};
        if (module_memo_.size() < kMaxModuleMemo) module_memo_.emplace(f.module, ans);
      }
    } else {
      if (too_far) return fail(f, Reason::kModuleLinesTooFar, f.module);
      const auto it = modules ? modules->find(std::string(f.module)) : decltype(modules->end()){};
      if (!modules || it == modules->end()) return fail(f, Reason::kNoModuleLine, f.module);
      const ModuleAnswer& a = index_.by_codeview(it->second.guid, it->second.age, f.module);
      ans = {a.cache, a.miss, a.cache && !index_.outside_pdb_of(a.cache).empty()};
    }
    if (!ans.cache) return fail(f, reason_of(ans.miss), f.module);
    // CoreCLR prints a state machine's frame with its kickoff method's name and token and
    // MoveNext's IL offset: the one fallback rule (SPEC.md 6.4), filtered by the text printed
    // (ProductionStackTrace's text is not CoreCLR's rewrite: none).
    const auto r = ans.cache
                       ->lookup_frame(f.token, f.il_offset, f.format == FrameFormat::kPst ? std::string_view{} : f.method,
                                      machine_scratch_)
                       .result;
    if (!r) return fail(f, Reason::kNoPoint, f.module);
    ++stats_.resolved;
    if (ans.outside) note_outside(ans.cache, f.module);
    resolved_ = {ans.cache, f.token};
    if (opt_.json) return json_frame(f, f.module, f.token, &*r, f.method, nullptr, nullptr, ans.cache), true;
    want_context(ans.cache, *r);
    if (f.format == FrameFormat::kPst) out.append(f.method);
    out += " in ";
    render_location(*r, false, out);
    return true;
  }
  if (f.format == FrameFormat::kMono || f.format == FrameFormat::kMonoAot) return resolve_mono(f, out);
  return resolve_android(f, out);
}

// Mono: the method by the name and signature printed, in the module of the MVID. A JIT frame
// prints the IL offset; an AOT frame a native offset, which the AOT id's .msym turns into the
// IL offset of each candidate (docs/msym.md section 2), and it is then printed as a JIT frame
// with symbols is: "[0xIL] in FILE:LINE".
bool Symbolicator::resolve_mono(const ParsedFrame& f, std::string& out) {
  const bool aot = f.format == FrameFormat::kMonoAot;
  const auto mvid = parse_guid_text(f.module);
  const ModuleAnswer& ans = index_.by_mvid(*mvid);
  if (!ans.cache) return fail(f, reason_of(ans.miss), f.module);
  const Cache* c = ans.cache;
  if (!c->has_method_names()) return fail(f, Reason::kNoNames, f.module);
  const MsymFile* msym = nullptr;
  if (aot) {
    if (!opt_.msym || opt_.msym->empty()) return fail(f, Reason::kNoMsym, f.module);
    MsymSource::Miss miss = MsymSource::Miss::kNone;
    const std::string pe = index_.pe_of(c);
    const std::size_t slash = pe.find_last_of("/\\");
    msym = opt_.msym->find(f.aot_id, slash == std::string::npos ? pe : std::string_view(pe).substr(slash + 1), miss);
    if (!msym) return fail(f, miss == MsymSource::Miss::kBad ? Reason::kBadMsym : Reason::kNoMsym, f.module);
  }
  // The IL offset of the frame in candidate `t`: printed, or from the .msym (none: no entry or
  // no point at or before the native offset).
  const auto il_of = [&](std::uint32_t t) -> std::optional<std::uint32_t> {
    if (!aot) return f.il_offset;
    return msym->il_offset(t, f.method_index, f.native_offset);
  };
  c->find_methods(method_name_key(f.method), tokens_);
  if (tokens_.empty()) return fail(f, Reason::kMethodNotFound, f.module);
  // Mono prints name and signature: keep the candidates whose Mono text is the line's.
  std::vector<std::uint32_t> exact;
  for (std::uint32_t t : tokens_)
    if (const auto n = c->method_name(t); n && n->mono == f.method) exact.push_back(t);
  if (!exact.empty()) tokens_ = exact;
  Agreement ag;
  for (std::uint32_t t : tokens_)
    if (const auto il = il_of(t)) ag.add(c, t, *il);
  if (!ag.any)
    for (std::uint32_t t : mono_state_machine(c, f.method))
      if (const auto il = il_of(t)) ag.add(c, t, *il);
  const Reason v = ag.verdict();
  if (v != Reason::kCount) return fail(f, v, f.module);
  ++stats_.resolved;
  if (!index_.outside_pdb_of(c).empty()) note_outside(c, f.module);
  resolved_ = ag.callee();
  ParsedFrame g = f;
  g.il_offset = *il_of(ag.token);
  if (opt_.json) return json_frame(g, f.module, ag.token, &ag.result, f.method, nullptr, nullptr, c), true;
  want_context(c, ag.result);
  if (aot) {
    char buf[24];
    std::snprintf(buf, sizeof buf, "[0x%05x] in ", g.il_offset);
    out += buf;
  }
  render_location(ag.result, true, out);
  return true;
}

namespace {

struct Candidate {
  const Cache* cache;
  std::uint32_t token;
};

}  // namespace

// Android: the method by full name over every module of the search set. Overloads that answer
// with different lines are told apart by their IL (docs/symbolicate.md), in two steps, each
// only when the previous one leaves candidates that disagree:
//   1. il_boundary: a runtime IL offset lies on an instruction of the method that printed it;
//   2. call_target: a frame with a frame above it made a call (call, callvirt, newobj) of that
//      frame's method: the one ending at its offset, or one in the statement starting there
//      (symbols::IlSite::calls: CoreCLR prints the statement's offset, not the call's). Of the
//      very method the frame above was resolved to, else of its name (MethodIl::may_call).
// A candidate whose IL is unknown (no matching PE, a body that does not decode) is never
// excluded, so it keeps the frame ambiguous if it disagrees.
bool Symbolicator::resolve_android(const ParsedFrame& f, std::string& out) {
  const auto& mods = index_.all_with_names();
  const std::string key = method_name_key(f.method);
  std::vector<Candidate> cands;
  for (const Cache* c : mods) {
    c->find_methods(key, tokens_);
    for (std::uint32_t t : tokens_) cands.push_back({c, t});
  }
  if (cands.empty()) return fail(f, mods.empty() ? Reason::kNoNames : Reason::kMethodNotFound, {});
  const auto agree = [&](const std::vector<Candidate>& v) {
    Agreement ag;
    for (const Candidate& k : v) ag.add(k.cache, k.token, f.il_offset);
    return ag;
  };
  Agreement ag = agree(cands);
  const char* chosen_by = "name";
  if (ag.verdict() == Reason::kAmbiguous) {
    std::vector<symbols::IlSite> sites;
    std::vector<Candidate> on_boundary;
    for (const Candidate& k : cands) {
      const symbols::IlSite s = il_.site(k.cache, k.token, f.il_offset);
      if (s.known && !s.boundary) continue;
      on_boundary.push_back(k);
      sites.push_back(s);
    }
    Agreement by_boundary = agree(on_boundary);
    if (by_boundary.any && by_boundary.verdict() == Reason::kCount) {
      ag = by_boundary, chosen_by = "il_boundary";
    } else if (by_boundary.any && !symbols::simple_name(above_).empty()) {
      std::vector<Candidate> calling;
      for (std::size_t i = 0; i < on_boundary.size(); ++i) {
        const symbols::IlSite& s = sites[i];
        if (!s.known || std::any_of(s.calls.begin(), s.calls.end(), [&](const symbols::IlCall& call) {
              return il_.may_call(on_boundary[i].cache, call, above_, above_callee_);
            }))
          calling.push_back(on_boundary[i]);
      }
      Agreement by_call = agree(calling);
      if (by_call.any && by_call.verdict() == Reason::kCount) ag = by_call, chosen_by = "call_target";
    }
  }
  const Reason v = ag.verdict();
  if (v != Reason::kCount) return fail(f, v, {});
  ++stats_.resolved;
  if (!index_.outside_pdb_of(ag.cache).empty()) note_outside(ag.cache, ag.cache->module_name());
  resolved_ = ag.callee();
  const std::string_view name = ag.same_name && !ag.name.empty() ? ag.name : f.method;
  if (opt_.json) return json_frame(f, ag.cache->module_name(), ag.token, &ag.result, name, nullptr, chosen_by, ag.cache), true;
  want_context(ag.cache, ag.result);
  out.append(name);
  out += " in ";
  render_location(ag.result, false, out);
  return true;
}

// Appends `body` to `out` with every frame it holds (`first` is the first of them, if any)
// that resolves rewritten; true when one did.
bool Symbolicator::rewrite_frames(std::string_view body, const ParsedFrame& first, const Modules* modules,
                                  bool too_far, std::string& out) {
  std::size_t copied = 0;
  bool changed = false;
  if (first.format == FrameFormat::kNone) above_.clear();  // a line without frames ends a trace
  for (ParsedFrame f = first; f.format != FrameFormat::kNone; f = parse_frame(body, f.end)) {
    if (f.format == FrameFormat::kCoreClrWithLine) {
      ++stats_.with_lines;
      above_.assign(f.method);
      above_callee_ = {};
      continue;
    }
    const std::size_t mark = out.size();
    out.append(body.substr(copied, f.replace_from - copied));
    resolved_ = {};
    if (resolve(f, modules, too_far, out)) {
      copied = f.replace_to;
      changed = true;
    } else {
      out.resize(mark);
    }
    above_.assign(f.method);
    above_callee_ = resolved_;
  }
  out.append(body.substr(copied));
  return changed;
}

namespace {

constexpr int kMaxJsonDepth = 3;  // a JSON line in a string of a JSON line in a string of ...

// A string value worth reading: it may hold a frame ("at " and an anchor).
bool may_hold_trace(std::string_view s) {
  return s.size() >= 12 && s.find("at ") != std::string_view::npos && may_hold_frame(s);
}

std::string_view trim_end(std::string_view s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// Where the JSON object of a line that looks like one starts (its first '{', the line ending
// in '}'), or npos.
std::size_t json_object_start(std::string_view body) {
  const std::string_view t = trim_end(body);
  if (t.empty() || t.back() != '}') return std::string_view::npos;
  return t.find('{');
}

}  // namespace

// `body` from `brace` on is one JSON object (else kNotJson, `out` untouched): appended to `out`
// with each string value that holds frames symbolicated in place (and the frames of the prefix
// before the object, if any, as in any line).
Symbolicator::JsonLine Symbolicator::rewrite_json(std::string_view body, std::size_t brace, std::string& out,
                                                  int depth) {
  const std::string_view object = trim_end(body).substr(brace);
  sentry_scan::StringScan scan(may_hold_trace);
  if (!scan.run(object)) return JsonLine::kNotJson;
  const std::size_t mark = out.size();
  const std::string_view prefix = body.substr(0, brace);
  bool changed = rewrite_frames(prefix, parse_frame(prefix), nullptr, false, out);
  std::size_t copied = 0;
  std::string text;
  for (const auto& v : scan.values) {
    text.clear();
    if (!rewrite_text(v.text, text, depth)) continue;
    out.append(object.substr(copied, v.begin - copied));
    out += nlohmann::json(text).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    copied = v.end;
    changed = true;
  }
  if (!changed) {
    out.resize(mark);
    return JsonLine::kUnchanged;
  }
  out.append(object.substr(copied));
  out.append(body.substr(brace + object.size()));
  return JsonLine::kChanged;
}

// A trace held in one string: its lines (split at '\n'), each read as a line of the input is,
// appended to `out`; true when a frame was rewritten. A ProductionStackTrace's frames are
// answered by the MODULE lines of the same string.
bool Symbolicator::rewrite_text(std::string_view text, std::string& out, int depth) {
  Modules modules;
  if (text.find("MODULE: ") != std::string_view::npos) {
    for (std::size_t start = 0; start < text.size();) {
      const std::size_t nl = std::min(text.find('\n', start), text.size());
      if (const auto m = parse_pst_module(text.substr(start, nl - start))) modules.insert_or_assign(std::string(m->assembly), *m);
      start = nl + 1;
    }
  }
  bool changed = false;
  for (std::size_t start = 0;;) {
    const std::size_t nl = std::min(text.find('\n', start), text.size());
    const std::string_view sub = text.substr(start, nl - start);
    if (!may_hold_frame(sub)) {
      out.append(sub);
      above_.clear();
    } else {
      const std::size_t brace = depth + 1 < kMaxJsonDepth ? json_object_start(sub) : std::string_view::npos;
      const JsonLine j = brace == std::string_view::npos ? JsonLine::kNotJson : rewrite_json(sub, brace, out, depth + 1);
      if (j == JsonLine::kUnchanged) out.append(sub);
      else if (j == JsonLine::kNotJson) changed |= rewrite_frames(sub, parse_frame(sub), &modules, false, out);
      else changed = true;
    }
    if (nl == text.size()) break;
    out += '\n';
    start = nl + 1;
  }
  return changed;
}

// One line (with its terminator); `first` is the first frame of its text.
void Symbolicator::handle(std::string_view line, const ParsedFrame& first, const Modules* modules, bool too_far) {
  const std::string_view body = strip_newline(line);
  const std::size_t brace = json_object_start(body);
  const bool json_line = brace != std::string_view::npos && may_hold_frame(body);
  if (first.format == FrameFormat::kNone && !json_line) {
    above_.clear();
    if (!opt_.json) emit(line);
    return;
  }
  pending_.clear();
  // The new line is built in place at the end of the output (taken back when nothing changed):
  // one copy less per frame line. In --json mode the frames' records go to the output, so the
  // line is built aside (and dropped).
  if (opt_.json) tmp_.clear();
  std::string& dst = opt_.json ? tmp_ : out_;
  const std::size_t mark = dst.size();
  bool changed = false;
  const JsonLine j = json_line ? rewrite_json(body, brace, dst, 0) : JsonLine::kNotJson;
  if (j == JsonLine::kNotJson) {
    collect_context_ = true;
    changed = rewrite_frames(body, first, modules, too_far, dst);
    collect_context_ = false;
  } else {
    changed = j == JsonLine::kChanged;
  }
  if (opt_.json) return;
  if (!changed) {
    out_.resize(mark);
    return emit(line);
  }
  out_.append(line.substr(body.size()));
  if (!pending_.empty()) {
    // The block follows the line; a last line without an end gets one first.
    const std::string_view eol = !body.empty() && body.back() == '\r' ? "\r\n" : "\n";
    if (line.size() == body.size()) out_.append(eol);
    append_context(out_, eol);
  }
  emit({});
}

void Symbolicator::want_context(const Cache* c, const LookupResult& r) {
  if (collect_context_ && opt_.context && opt_.sources) pending_.push_back({c, r.document, r.line});
}

// docs/text-output.md "Source context": per frame, lines max(1, L-N) .. min(L+N, last line),
// each "    " + ('>' on the frame's line L, else ' ') + ' ' + the line number right-aligned to
// the width of the block's last one + " |" + (' ' + the text, when not empty). The text is
// escaped as all file-supplied text is (docs/text-output.md), but for its tabs: a source file
// is full of them and they carry no danger.
void Symbolicator::append_context(std::string& out, std::string_view eol) {
  const std::uint32_t n = *opt_.context;
  for (const PendingContext& p : pending_) {
    const SourceLines* src = opt_.sources->find_line(*p.cache, p.document, p.line);
    if (!src) continue;
    const std::size_t from = p.line > n ? p.line - n : 1;
    const std::size_t to = std::min<std::size_t>(src->count(), std::size_t{p.line} + n);
    const int width = std::snprintf(nullptr, 0, "%zu", to);
    for (std::size_t i = from; i <= to; ++i) {
      const bool at = i == p.line;
      if (at && opt_.color) out += "\x1b[1m";
      char head[40];
      const int len = std::snprintf(head, sizeof head, "    %c %*zu |", at ? '>' : ' ', width, i);
      out.append(head, std::size_t(len));
      std::string_view text = src->line(i - 1).substr(0, opt_.max_context_line);
      if (!text.empty()) {
        out += ' ';
        for (std::size_t tab; (tab = text.find('\t')) != std::string_view::npos; text.remove_prefix(tab + 1)) {
          append_escaped(out, text.substr(0, tab));
          out += '\t';
        }
        append_escaped(out, text);
      }
      if (at && opt_.color) out += "\x1b[0m";
      out.append(eol);
    }
  }
}

void Symbolicator::flush_block(bool too_far) {
  std::size_t from = 0;
  const std::uint64_t now = line_no_;
  for (std::size_t i = 0; i < block_ends_.size(); ++i) {
    line_no_ = block_first_line_ + i;  // --json's input_line of the held line
    const std::string_view held = std::string_view(block_).substr(from, block_ends_[i] - from);
    if (!block_fragments_[i]) handle(held, parse_frame(strip_newline(held)), too_far ? nullptr : &modules_, too_far);
    else if (!opt_.json) emit(held);  // a piece of an over-long line: never parsed, as outside a block
    from = block_ends_[i];
  }
  line_no_ = now;
  block_.clear();
  block_ends_.clear();
  block_fragments_.clear();
  modules_.clear();
  in_block_ = in_modules_ = false;
}

// Every held line counts against the bounds, MODULE lines included: past them the block goes
// out unchanged and what follows streams as if no block had started.
void Symbolicator::hold(std::string_view l, bool fragment) {
  block_.append(l);
  block_ends_.push_back(block_.size());
  block_fragments_.push_back(fragment);
  if (block_.size() > opt_.max_block_bytes || block_ends_.size() > opt_.max_block_lines) flush_block(true);
}

void Symbolicator::text(std::string_view text) {
  while (!text.empty()) {
    const std::size_t nl = text.find('\n');
    const std::size_t len = nl == std::string_view::npos ? text.size() : nl + 1;
    if (len <= kMaxLine) {
      line(text.substr(0, len));
    } else {
      for (std::size_t at = 0; at < len; at += kMaxLine) line(text.substr(at, std::min(kMaxLine, len - at)), true);
    }
    text.remove_prefix(len);
  }
}

void Symbolicator::line(std::string_view l, bool fragment) {
  ++line_no_;
  ++stats_.lines;
  const std::string_view body = strip_newline(l);
  if (in_block_) {
    if (in_modules_) {
      if (!fragment) {
        if (const auto m = parse_pst_module(body)) {
          modules_.insert_or_assign(std::string(m->assembly), *m);
          return hold(l, false);
        }
      }
      // Anything but a MODULE line or a separator (an over-long line too) ends the block.
      if (fragment || !is_pst_separator(body)) {
        flush_block(false);
        return line_no_--, stats_.lines--, line(l, fragment);
      }
    } else if (!fragment && is_pst_separator(body)) {
      in_modules_ = true;
    }
    return hold(l, fragment);
  }
  if (fragment) {
    if (!opt_.json) emit(l);
    return;
  }
  const ParsedFrame first = parse_frame(body);
  if (first.format == FrameFormat::kPst && json_object_start(body) == std::string_view::npos) {
    in_block_ = true;
    block_first_line_ = line_no_;
    return hold(l, false);
  }
  handle(l, first, nullptr, false);
}

void Symbolicator::flush() {
  if (!out_.empty()) write_(out_);
  out_.clear();
}

void Symbolicator::finish() {
  if (in_block_) flush_block(false);
  if (!out_.empty()) write_(out_);
  out_.clear();
}

}  // namespace ilmap::symbolicate
