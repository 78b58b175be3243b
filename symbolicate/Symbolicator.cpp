// Symbolicator.cpp - the line rewriter (see Symbolicator.h).
#include "symbolicate/Symbolicator.h"

#include <nlohmann/json.hpp>

#include <cstdio>

namespace ilmap::symbolicate {
namespace {

constexpr std::size_t kFlushBytes = 64 * 1024;

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

void append_uint(std::string& s, std::uint32_t v) {
  char buf[16];
  const int n = std::snprintf(buf, sizeof buf, "%u", v);
  s.append(buf, std::size_t(n));
}

// Mono's frame text "NS.Outer`1+Inner[T].M[U] (System.Int32 x)" -> the name-index key
// "NS.Outer`1.Inner.M" (SPEC.md 6.1): no parameters, no generic arguments, '+' -> '.'.
std::string mono_key(std::string_view text) {
  const std::size_t paren = text.find(" (");
  if (paren != std::string_view::npos) text = text.substr(0, paren);
  std::string key;
  key.reserve(text.size());
  int depth = 0;
  for (char c : text) {
    if (c == '[') ++depth;
    else if (c == ']') depth = depth > 0 ? depth - 1 : 0;
    else if (depth == 0) key += c == '+' ? '.' : c;
  }
  return key;
}

// "NS.T.M(Int32 x)" or "NS.T.M" -> "NS.T.M" (CoreCLR text: generic arguments in [..] dropped).
std::string coreclr_key(std::string_view text) {
  const std::size_t paren = text.find('(');
  if (paren != std::string_view::npos) text = text.substr(0, paren);
  return mono_key(text);
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
    case Reason::kCount: break;
  }
  return "?";
}

Symbolicator::Symbolicator(ModuleIndex& index, SymbolicateOptions options, std::function<void(std::string_view)> write)
    : index_(index), opt_(options), write_(std::move(write)) {}

Symbolicator::~Symbolicator() = default;

void Symbolicator::emit(std::string_view s) {
  out_.append(s);
  if (out_.size() >= kFlushBytes) {
    write_(out_);
    out_.clear();
  }
}

void Symbolicator::render_location(const LookupResult& r, bool mono_style) {
  const std::string_view where = opt_.urls && !r.source_url.empty() ? r.source_url : r.file;
  tmp_.append(where);
  tmp_ += mono_style ? ":" : ":line ";
  append_uint(tmp_, r.line);
  if (opt_.columns) {
    tmp_ += ':';
    append_uint(tmp_, r.column);
  }
}

void Symbolicator::json_frame(const ParsedFrame& f, std::string_view module, std::uint32_t token,
                              const LookupResult* r, std::string_view method, const char* reason) {
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
  j["method"] = std::string(method);
  j["resolved"] = r != nullptr;
  if (r) {
    j["file"] = std::string(r->file);
    j["line"] = r->line;
    j["column"] = r->column;
    j["end_line"] = r->end_line;
    j["end_column"] = r->end_column;
    j["url"] = r->source_url.empty() ? J(nullptr) : J(std::string(r->source_url));
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

void Symbolicator::fail(const ParsedFrame& f, std::string_view line, Reason r, std::string_view module) {
  ++stats_.unresolved[std::size_t(r)];
  if (opt_.json) json_frame(f, module, f.token, nullptr, f.method, reason_name(r));
  else emit(line);
}

// The answer of several candidate methods (`tokens_` of `c`): resolved only when every one of
// them gives the same location. `token` gets the first candidate's token.
namespace {
struct Agreement {
  bool any = false, same_location = true, same_name = true, some_without = false;
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
};
}  // namespace

// CoreCLR prints a state machine's MoveNext frame with the kickoff method's name AND token
// (StackTrace's state-machine rewrite), while the IL offset is MoveNext's. So when `token` is a
// kickoff method (names section), the frame is answered by the methods of its state machine
// that print as `text` (MoveNext; the others have no visible points): resolved when those that
// answer agree. Otherwise, and without names, by `token` itself.
std::optional<LookupResult> Symbolicator::lookup_frame(const Cache* c, std::uint32_t token, std::uint32_t il,
                                                       std::string_view text) {
  if (c->has_method_names()) {
    const std::pair<const Cache*, std::uint32_t> k{c, token};
    auto it = machines_.find(k);
    if (it == machines_.end()) {
      std::vector<std::uint32_t> parts;
      if (const auto n = c->method_name(token); n && n->kickoff == 0) {
        c->find_methods(coreclr_key(n->coreclr), tokens_);
        for (std::uint32_t t : tokens_)
          if (const auto m = c->method_name(t); m && m->kickoff == token) parts.push_back(t);
      }
      it = machines_.emplace(k, std::move(parts)).first;
    }
    if (!it->second.empty()) {
      std::optional<LookupResult> answer;
      for (std::uint32_t t : it->second) {
        const auto m = c->method_name(t);
        if (!m || (!text.empty() && m->coreclr != text)) continue;
        const auto r = c->lookup(t, il);
        if (!r) continue;
        if (answer && (answer->file != r->file || answer->line != r->line || answer->column != r->column))
          return std::nullopt;
        answer = r;
      }
      if (answer) return answer;
    }
  }
  return c->lookup(token, il);
}

void Symbolicator::handle(std::string_view line, const std::unordered_map<std::string, PstModule>* modules,
                          bool too_far) {
  const std::string_view body = strip_newline(line);
  const ParsedFrame f = parse_frame(body);
  switch (f.format) {
    case FrameFormat::kNone:
      if (!opt_.json) emit(line);
      return;
    case FrameFormat::kCoreClrWithLine:
      ++stats_.with_lines;
      if (!opt_.json) emit(line);
      return;
    default:
      break;
  }
  ++stats_.frames;
  tmp_.clear();
  if (f.format == FrameFormat::kCoreClr || f.format == FrameFormat::kPst) {
    const ModuleAnswer* ans = nullptr;
    if (f.format == FrameFormat::kCoreClr) {
      ans = &index_.by_file_name(f.module);
    } else {
      if (too_far) return fail(f, line, Reason::kModuleLinesTooFar, f.module);
      const auto it = modules ? modules->find(std::string(f.module)) : decltype(modules->end()){};
      if (!modules || it == modules->end()) return fail(f, line, Reason::kNoModuleLine, f.module);
      ans = &index_.by_codeview(it->second.guid, it->second.age, f.module);
    }
    if (!ans->cache) return fail(f, line, reason_of(ans->miss), f.module);
    const auto r = lookup_frame(ans->cache, f.token, f.il_offset, f.format == FrameFormat::kPst ? std::string_view{} : f.method);
    if (!r) return fail(f, line, Reason::kNoPoint, f.module);
    ++stats_.resolved;
    if (opt_.json) return json_frame(f, f.module, f.token, &*r, f.method, nullptr);
    tmp_.append(line.substr(0, f.replace_from));
    if (f.format == FrameFormat::kPst) tmp_.append(f.method);
    tmp_ += " in ";
    render_location(*r, false);
    tmp_.append(line.substr(f.replace_to));
    emit(tmp_);
    return;
  }
  if (f.format == FrameFormat::kMono) {
    const auto mvid = parse_guid_text(f.module);
    const ModuleAnswer& ans = index_.by_mvid(*mvid);
    if (!ans.cache) return fail(f, line, reason_of(ans.miss), f.module);
    const Cache* c = ans.cache;
    if (!c->has_method_names()) return fail(f, line, Reason::kNoNames, f.module);
    c->find_methods(mono_key(f.method), tokens_);
    if (tokens_.empty()) return fail(f, line, Reason::kMethodNotFound, f.module);
    // Mono prints name and signature: keep the candidates whose Mono text is the line's.
    std::vector<std::uint32_t> exact;
    for (std::uint32_t t : tokens_)
      if (const auto n = c->method_name(t); n && n->mono == f.method) exact.push_back(t);
    if (!exact.empty()) tokens_ = exact;
    Agreement ag;
    for (std::uint32_t t : tokens_) ag.add(c, t, f.il_offset);
    const Reason v = ag.verdict();
    if (v != Reason::kCount) return fail(f, line, v, f.module);
    ++stats_.resolved;
    if (opt_.json) return json_frame(f, f.module, ag.token, &ag.result, f.method, nullptr);
    tmp_.append(line.substr(0, f.replace_from));
    render_location(ag.result, true);
    tmp_.append(line.substr(f.replace_to));
    emit(tmp_);
    return;
  }
  // Android: the method by full name over every module of the search set.
  const auto& mods = index_.all_with_names();
  const std::string key = coreclr_key(f.method);
  Agreement ag;
  std::size_t candidates = 0;
  for (const Cache* c : mods) {
    c->find_methods(key, tokens_);
    candidates += tokens_.size();
    for (std::uint32_t t : tokens_) ag.add(c, t, f.il_offset);
  }
  if (candidates == 0) return fail(f, line, mods.empty() ? Reason::kNoNames : Reason::kMethodNotFound, {});
  const Reason v = ag.verdict();
  if (v != Reason::kCount) return fail(f, line, v, {});
  ++stats_.resolved;
  const std::string_view name = ag.same_name && !ag.name.empty() ? ag.name : f.method;
  if (opt_.json) return json_frame(f, ag.cache->module_name(), ag.token, &ag.result, name, nullptr);
  tmp_.append(line.substr(0, f.replace_from));
  tmp_.append(name);
  tmp_ += " in ";
  render_location(ag.result, false);
  tmp_.append(line.substr(f.replace_to));
  emit(tmp_);
}

void Symbolicator::flush_block(bool too_far) {
  std::size_t from = 0;
  const std::uint64_t now = line_no_;
  for (std::size_t i = 0; i < block_ends_.size(); ++i) {
    line_no_ = block_first_line_ + i;  // --json's input_line of the held line
    const std::string_view held = std::string_view(block_).substr(from, block_ends_[i] - from);
    if (!block_fragments_[i]) handle(held, too_far ? nullptr : &modules_, too_far);
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
  if (!fragment && parse_frame(body).format == FrameFormat::kPst) {
    in_block_ = true;
    block_first_line_ = line_no_;
    return hold(l, false);
  }
  if (fragment) {
    if (!opt_.json) emit(l);
    return;
  }
  handle(l, nullptr, false);
}

void Symbolicator::finish() {
  if (in_block_) flush_block(false);
  if (!out_.empty()) write_(out_);
  out_.clear();
}

}  // namespace ilmap::symbolicate
