// cmd_lookup.cpp - `ilmap lookup CACHE METHOD IL_OFFSET [--json] [--verify]` and
//                  `ilmap lookup CACHE [--batch] [--json] [--verify]` (queries from stdin).
// CACHE may also be a PE or a PDB: with --symbol-path SPEC (or $_NT_SYMBOL_PATH) its cache comes
// from the symbol path (SymbolPathOption.h); without, it is compiled into the cache directory
// (or reused from there) as symbolicate does (symbols/ModuleIndex.h).
//
// A kickoff method's token (an async or iterator method: CoreCLR prints a state machine's frame
// under it, with MoveNext's IL offset) that has no point at the offset is answered by the methods
// of its state machine (Cache::state_machine_methods), when they agree. --functions prints the
// method's name (CoreCLR's text) on a line before each answer, as llvm-symbolizer does.
//
// Text answers are "path:line:column" or "??:0:0" (llvm-symbolizer's habit), the path escaped
// (TextEscape.h) so that one answer is always one line. A single lookup with no answer exits
// 3. In batch mode every stdin line gets exactly one answer line, flushed before each read of
// stdin that may wait; a malformed line gets an error line ("error: ..." or {"error":...}),
// the run goes on, and the exit code is 1. Lines are capped at 64 KiB (LineReader.h).
//
// The cache is opened without checking its checksum (open is O(1)); --verify checks it first. A
// cache changed under a running lookup (docs/usage.md "Caches changed while in use"): the SIGBUS
// guard turns a read past a truncated file's end into zeros and Cache::changed(); a batch also
// stats the file when new input arrived (and every few ms) and opens it again when it was replaced
// or rewritten. An answer read from a changed mapping is never printed: the query gets an error
// line when the file cannot be opened again, and the run then exits 2.

#include <cerrno>
#include <chrono>
#include <cstring>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "support/Platform.h"
#include "tools/Commands.h"
#include "decode/DebugInput.h"
#include "tools/LineReader.h"
#include "symbolicate/LookupAnswer.h"
#include "symbolicate/QueryParse.h"
#include "tools/SymbolPathOption.h"
#include "symbols/ModuleIndex.h"
#include "symbols/ResolveConfig.h"
#include "support/TextEscape.h"
#include "ilmap/cache.h"
#include "ilmap/mapping_guard.h"

namespace ilmap::cli {
namespace {

using symbolicate::Answer;
using symbolicate::answer;
using symbolicate::answer_json;
using symbolicate::parse_il_offset;
using symbolicate::parse_method;
using symbolicate::parse_query_line;

struct LookupOptions {
  std::string cache;
  std::string method;
  std::string il_offset;
  bool batch = false;
  bool json = false;
  bool verify = false;
  bool functions = false;
  bool no_state_machine = false;  // the SPEC.md section 6 rule alone
  std::string cache_dir;    // where a PE or PDB given as CACHE is compiled
  std::string symbol_path;  // --symbol-path: CACHE may be a PE or PDB whose cache is found there
  long download_timeout_s = symbols::HttpOptions{}.total_timeout_s;
};

Status compile_into_cache_dir(LookupOptions& o);

// With --symbol-path (or $_NT_SYMBOL_PATH), a CACHE that is not a cache (a PE or a Portable PDB) is replaced by the
// verified cache the symbol path holds for it (fetched when needed).
Status resolve_cache_argument(LookupOptions& o) {
  const std::string spec = symbol_path_or_env(o.symbol_path);
  platform::FileInfo st;
  if (!platform::stat_path(o.cache, st) || !st.regular()) return {};  // open() says what it is
  std::uint8_t head[32] = {};
  std::size_t n = 0;
  if (const long long got = platform::read_head(o.cache, head, sizeof head); got > 0) n = std::size_t(got);
  const InputKind kind = n > 0 ? sniff_input({head, n}) : InputKind::kUnknown;
  if (kind == InputKind::kCache) return {};
  if (spec.empty()) {
    if (kind == InputKind::kUnknown && !(n > 0 && is_windows_pdb({head, n}))) return {};  // open() says what it is
    return compile_into_cache_dir(o);
  }
  auto r = symbols::resolve_with_symbol_path(spec, o.cache, true, o.download_timeout_s);
  if (!r) return r.error();
  o.cache = r->path;
  return {};
}

std::string answer_text(const Answer& a, bool functions) {
  std::string out;
  if (functions) {
    if (a.function.empty()) out += "??";
    else append_escaped(out, a.function);
    out += '\n';
  }
  if (!a.result) return out + "??:0:0";
  append_escaped(out, a.result->file);
  return out + ':' + std::to_string(a.result->line) + ':' + std::to_string(a.result->column);
}

// A PE or PDB given as CACHE (no symbol path): its cache, compiled into (or reused from) the
// cache directory as symbolicate does; `o.cache` becomes that cache's path.
Status compile_into_cache_dir(LookupOptions& o) {
  symbols::ResolveConfig config;
  config.search = {o.cache};
  if (!o.cache_dir.empty()) config.cache_dir = o.cache_dir;
  const std::string cache_dir = config.cache_directory();
  if (cache_dir.empty())
    return Error{Errc::kUsage, o.cache + " is a PE or PDB, and there is no cache directory to compile it into: "
                                         "give --cache-dir DIR (or set XDG_CACHE_HOME or HOME; on Windows LOCALAPPDATA)"};
  auto index_options = config.module_index_options();  // no symbol path: cannot fail
  if (!index_options) return index_options.error();
  auto index = symbols::ModuleIndex::create(std::move(*index_options));
  if (!index) return index.error();
  const symbols::ModuleAnswer& a = (*index)->by_path(o.cache);
  if (!a.cache) {
    const Errc code = a.miss == symbols::Miss::kBadFile ? Errc::kMalformed : Errc::kNotFound;
    return Error{code, (a.detail.empty() ? o.cache : a.detail) + " (" + symbols::miss_name(a.miss) + ")"};
  }
  const std::string file = (*index)->file_of(a.cache);
  if (file.empty())
    return Error{Errc::kIo, o.cache + ": its cache could not be written to the cache directory " + cache_dir};
  o.cache = file;
  return {};
}

std::string error_line(const std::string& msg, bool json) {
  if (!json) return "error: " + msg;
  nlohmann::ordered_json j;
  j["error"] = msg;
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}



// Opens the cache; with --verify also checks its checksum and every block.
Result<Cache> open_cache(const LookupOptions& o) {
  auto cache = Cache::open(o.cache);
  if (!cache) return cache.error();
  if (o.verify) {
    if (Status s = cache->verify(); !s) return Error{s.code(), o.cache + ": " + s.message()};
  }
  return cache;
}

// Identity of the file at a path, to notice it being replaced or rewritten (stat before open,
// so a change between the two is seen at the next check).
struct Stamp {
  std::uint64_t dev = 0, ino = 0, size = 0;
  std::int64_t mtime_ns = 0, ctime_ns = 0;
  bool operator==(const Stamp& o) const {
    return dev == o.dev && ino == o.ino && size == o.size && mtime_ns == o.mtime_ns && ctime_ns == o.ctime_ns;
  }
};

std::optional<Stamp> stamp_of(const std::string& path) {
  platform::FileInfo st;
  if (!platform::stat_path(path, st)) return std::nullopt;
  return Stamp{st.device, st.inode, st.size, st.mtime_ns, st.ctime_ns};
}

// The cache a batch answers from, opened again when the file changes. The old Cache stays in
// use until a new one opened (and passed --verify); when the file changed and cannot be
// opened, there is no cache and `unavailable` says why.
class LiveCache {
 public:
  LiveCache(const LookupOptions& o, Cache first, std::optional<Stamp> stamp)
      : o_(o), cache_(std::move(first)), stamp_(stamp) {}

  // Opens the file again if its stamp differs from the one last opened (or `force`).
  void refresh(bool force) {
    const std::optional<Stamp> now = stamp_of(o_.cache);
    if (!now) {
      // Gone (deleted or renamed away): a mapping of a file that was not rewritten stays valid.
      if (!force) return;
    } else if (!force && stamp_ && *now == *stamp_) {
      return;
    }
    stamp_ = now;
    auto r = open_cache(o_);
    if (r) {
      cache_.emplace(std::move(*r));
      unavailable_.clear();
    } else {
      cache_.reset();
      unavailable_ = r.error().message;
    }
  }

  const Cache* get() const { return cache_ ? &*cache_ : nullptr; }
  const std::string& unavailable() const { return unavailable_; }

 private:
  const LookupOptions& o_;
  std::optional<Cache> cache_;
  std::optional<Stamp> stamp_;
  std::string unavailable_;
};

class Output {
 public:
  // False (and a message printed) once a write to stdout failed.
  bool write(const std::string& s) {
    if (failed_) return false;
    if (std::fwrite(s.data(), 1, s.size(), stdout) != s.size()) return fail();
    return true;
  }
  bool flush() {
    if (failed_) return false;
    if (std::fflush(stdout) != 0) return fail();
    return true;
  }
  bool failed() const { return failed_; }

 private:
  // The message is main's (finish_stdout: the stream's error flag is set): one per failure.
  bool fail() {
    failed_ = true;
    return false;
  }
  bool failed_ = false;
};

int run_batch(const LookupOptions& o, Cache first, std::optional<Stamp> stamp) {
  LiveCache live(o, std::move(first), stamp);
  Output out;
  LineReader reader(0, [&out] { out.flush(); });
  std::uint64_t malformed = 0, unanswered = 0, since_check = 0;
  auto last_check = std::chrono::steady_clock::now();
  std::string text;
  std::vector<std::uint32_t> scratch;
  for (;;) {
    const LineReader::Next next = reader.next();
    if (next == LineReader::Next::kEnd || next == LineReader::Next::kError || out.failed()) {
      if (next == LineReader::Next::kError)
        return report_error({Errc::kIo, format("reading queries from stdin failed: %s", std::strerror(reader.error()))});
      break;
    }
    // Notice a replaced or rewritten cache: when new input arrived (a driver waiting for this
    // answer may just have changed the file), and otherwise every 2 ms at most.
    bool check = reader.take_refilled();
    if (!check && ++since_check % 256 == 0) {
      const auto now = std::chrono::steady_clock::now();
      check = now - last_check >= std::chrono::milliseconds(2);
    }
    if (check) {
      live.refresh(false);
      last_check = std::chrono::steady_clock::now();
    }
    if (next == LineReader::Next::kTooLong) {
      ++malformed;
      text = error_line(format("query line longer than %zu bytes", LineReader::kMaxLine), o.json);
    } else if (auto q = parse_query_line(reader.line()); !q) {
      ++malformed;
      text = error_line(q.error().message, o.json);
    } else {
      Answer r;
      bool answered = false;
      for (int attempt = 0; attempt < 2 && live.get(); ++attempt) {
        r = answer(*live.get(), q->rid, q->il_offset, scratch, !o.no_state_machine, o.json || o.functions);
        if (!live.get()->changed()) {
          answered = true;
          break;
        }
        live.refresh(true);  // the mapping changed under the lookup: open the file again
      }
      if (answered) {
        text = o.json ? answer_json(q->rid, q->il_offset, r) : answer_text(r, o.functions);
      } else {
        ++unanswered;
        text = error_line(Cache::changed_status(o.cache).message() +
                              (live.unavailable().empty() ? "" : "; cannot open it again: " + live.unavailable()),
                          o.json);
      }
    }
    text.push_back('\n');
    if (!out.write(text)) return 2;
  }
  if (!out.flush()) return 2;
  if (unanswered)
    return report_error({Errc::kIo, format("%s: cache file changed while in use: %llu quer%s answered with an error",
                                           o.cache.c_str(), static_cast<unsigned long long>(unanswered),
                                           unanswered == 1 ? "y" : "ies")});
  if (malformed) {
    std::fprintf(stderr, "ilmap: error: %llu malformed query line%s (answered with error lines)\n",
                 static_cast<unsigned long long>(malformed), malformed == 1 ? "" : "s");
    return 1;
  }
  return 0;
}

int run_lookup(const LookupOptions& given) {
  LookupOptions o = given;
  const bool batch = o.batch || (o.method.empty() && o.il_offset.empty());
  if (o.batch && (!o.method.empty() || !o.il_offset.empty()))
    return report_error({Errc::kUsage, "--batch reads queries from stdin: do not give METHOD and IL_OFFSET"});
  if (!batch && (o.method.empty() || o.il_offset.empty()))
    return report_error({Errc::kUsage, "lookup needs METHOD and IL_OFFSET (or neither, to read queries from stdin)"});
  std::uint32_t rid = 0, il = 0;
  if (!batch) {
    auto m = parse_method(o.method);
    if (!m) return report_error(m.error());
    auto off = parse_il_offset(o.il_offset);
    if (!off) return report_error(off.error());
    rid = *m;
    il = *off;
  }
  if (Status s = resolve_cache_argument(o); !s) return report_error(s.error());
  (void)install_mapping_guard();
  const std::optional<Stamp> stamp = stamp_of(o.cache);
  auto cache = open_cache(o);
  if (!cache) return report_error(cache.error());
  if (batch) return run_batch(o, std::move(*cache), stamp);
  std::vector<std::uint32_t> scratch;
  const Answer r = answer(*cache, rid, il, scratch, !o.no_state_machine, o.json || o.functions);
  if (cache->changed()) return report_error(cache->changed_status().error());
  const std::string out = (o.json ? answer_json(rid, il, r) : answer_text(r, o.functions)) + "\n";
  Output w;
  if (!w.write(out) || !w.flush()) return 2;
  return r.result ? 0 : 3;
}

}  // namespace

void register_lookup(CLI::App& app, int& rc) {
  auto o = std::make_shared<LookupOptions>();
  CLI::App* cmd = app.add_subcommand(
      "lookup",
      "Resolve (METHOD, IL_OFFSET) to file:line:column through a cache.\n"
      "METHOD is a MethodDef token (0x06000002), a hex row below 0x01000000 (0xa, Sentry's\n"
      "function_id) or a decimal row number; IL_OFFSET is decimal or 0x hex, or -1 (the\n"
      "runtime's 'unknown'). Offsets are signed 32-bit as in the runtime: -1 and offsets from\n"
      "0x80000000 on give no answer. Prints path:line:column (control characters in the path\n"
      "escaped), or ??:0:0 (exit 3) when there is no answer. With --functions, a line with the\n"
      "method's name (CoreCLR's text, ?? without names) comes before each answer.\n"
      "An async or iterator method's token (the one CoreCLR prints for its state machine's frames)\n"
      "with no point at the offset is answered by its state machine's MoveNext.\n"
      "CACHE may be a PE (.dll, .exe) or a PDB: it is compiled into the cache directory, or its\n"
      "cache reused from there (as symbolicate does), or found through --symbol-path.\n"
      "Without METHOD and IL_OFFSET (or with --batch), reads 'METHOD IL_OFFSET' lines from stdin\n"
      "and answers each on its own line, flushed before waiting for more input; a malformed or\n"
      "over-long (> 64 KiB) line gets an 'error: ...' line and the run goes on, then exits 1.\n"
      "A batch notices a cache replaced or rewritten meanwhile and opens it again; queries it\n"
      "cannot answer because the file changed get error lines, and the run exits 2.\n"
      "The cache's checksum is not checked (opening is O(1)); --verify checks it and every\n"
      "block first (exit 2 on failure), as 'ilmap verify' does.");
  cmd->add_option("CACHE", o->cache, "An ilmap cache, or a PE or PDB (compiled into the cache directory)")->required();
  cmd->add_option("METHOD", o->method, "Method token or row number");
  cmd->add_option("IL_OFFSET", o->il_offset, "IL offset");
  cmd->add_flag("--batch", o->batch, "Read queries from stdin, one per line (the default without METHOD)");
  cmd->add_flag("--json", o->json,
                "JSON answers: {\"method\",\"il_offset\",\"function\",\"file\",\"language\",\"line\",\"column\","
                "\"end_line\",\"end_column\",\"url\"}; \"file\" is null when there is no answer");
  cmd->add_flag("--functions", o->functions,
                "Print the method's name on a line before each answer (as llvm-symbolizer; in --json always "
                "as \"function\")");
  cmd->add_flag("--no-state-machine", o->no_state_machine,
                "The lookup rule alone (SPEC.md section 6): a kickoff method's token is not answered by its "
                "state machine");
  cmd->add_option("--cache-dir", o->cache_dir,
                  "Where a PE or PDB given as CACHE is compiled (default $XDG_CACHE_HOME/ilmap, else "
                  "$HOME/.cache/ilmap; on Windows %LOCALAPPDATA%\\ilmap)");
  cmd->add_flag("--verify", o->verify, "Verify the cache (checksum and every block) before answering");
  add_symbol_path_option(cmd, o->symbol_path, "the cache of a PE or Portable PDB given as CACHE", o->download_timeout_s);
  cmd->callback([o, &rc] { rc = run_lookup(*o); });
}

}  // namespace ilmap::cli
