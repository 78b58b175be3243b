// cmd_symbolicate.cpp - `ilmap symbolicate [FILE...|-] --search PATH...`: reads stack-trace
// text (streaming, bounded memory) and writes it back with every frame it can resolve completed
// with file and line, as the runtime prints a frame with symbols (symbolicate/Symbolicator.h).

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>

#include "tools/Commands.h"
#include "symbols/HttpGet.h"
#include "symbols/ModuleIndex.h"
#include "symbols/ResolveConfig.h"
#include "symbolicate/IndexSentryProvider.h"
#include "symbolicate/SentryEvent.h"
#include "symbolicate/SourceProvider.h"
#include "symbols/SymbolPath.h"
#include "tools/SourceRootOption.h"
#include "tools/SymbolPathOption.h"
#include "symbolicate/Symbolicator.h"
#include "support/Platform.h"

namespace ilmap::cli {
namespace {

namespace sym = ilmap::symbolicate;

struct SymbolicateArgs {
  std::vector<std::string> inputs;
  std::vector<std::string> search;
  std::vector<std::string> msym_dirs;  // --msym-dir: Mono AOT .msym folders
  std::string symbol_path;
  std::string cache_dir;
  long download_timeout_s = symbols::HttpOptions{}.total_timeout_s;
  bool columns = false, urls = false, json = false, verbose = false;
  bool strict = false;  // --strict: exit 3 when a frame stays unresolved
  int context = -1;     // --context N: source lines around each frame (-1: none)
  std::vector<std::string> source_roots;  // PREFIX=DIR
  std::string color = "auto";
  bool fetch_sources = false;  // --fetch-sources: SourceLink URLs over HTTP
};

// --color=auto: bold only on a terminal, and not when NO_COLOR is set to anything
// (https://no-color.org).
bool use_color(const std::string& mode) {
  if (mode == "always") return true;
  if (mode == "never") return false;
  const char* no_color = std::getenv("NO_COLOR");
  return platform::is_terminal(1) && !(no_color && *no_color);
}

constexpr std::size_t kReadBuffer = sym::Symbolicator::kMaxLine;  // also the longest line parsed as a frame

// True when a read of `fd` would not block: input is waiting (or the input has ended).
bool input_waiting(int fd) { return platform::input_waiting(fd); }

// Feeds the lines of `prefix` (bytes already read, at most kReadBuffer) and then of `fd` to `s`.
// Lines longer than the buffer go through as fragments.
// `long_line`: the prefix continues a line whose start already went out as a fragment.
// Live input (a pipe from `tail -f`, a terminal): when a read returned less than it asked for
// and no more input is waiting, `idle` writes out what the lines read so far gave, so every
// line shows as soon as it is complete. A file is read in full buffers, never polled.
Status pump(int fd, const std::string& name, std::string_view prefix, sym::Symbolicator& s,
            const std::function<void()>& idle, bool long_line = false) {
  std::unique_ptr<char[]> buf(new char[kReadBuffer]);
  std::memcpy(buf.get(), prefix.data(), prefix.size());
  std::size_t start = 0, end = prefix.size();
  bool eof = false, short_read = true;  // the prefix came from reads that stopped early
  for (;;) {
    for (;;) {
      const void* nl = std::memchr(buf.get() + start, '\n', end - start);
      if (!nl) break;
      const std::size_t stop = std::size_t(static_cast<const char*>(nl) - buf.get()) + 1;
      s.line(std::string_view(buf.get() + start, stop - start), long_line);
      long_line = false;
      start = stop;
    }
    if (eof) break;
    if (start > 0 && start == end) start = end = 0;
    if (end == kReadBuffer) {
      if (start > 0) {  // move the partial line to the front
        std::memmove(buf.get(), buf.get() + start, end - start);
        end -= start, start = 0;
      } else {  // a line longer than the buffer
        s.line(std::string_view(buf.get(), end), true);
        long_line = true;
        start = end = 0;
      }
    }
    if (short_read && !input_waiting(fd)) idle();
    const long long n = platform::read_some(fd, buf.get() + end, kReadBuffer - end);
    if (n < 0) {
      if (errno == EINTR) continue;
      return {Errc::kIo, name + ": read failed: " + std::strerror(errno)};
    }
    if (n == 0) eof = true;
    short_read = std::size_t(n) < kReadBuffer - end;
    end += std::size_t(n);
  }
  if (start < end) s.line(std::string_view(buf.get() + start, end - start), long_line);
  return {};
}


// Reads from `fd` until a byte that is not white space arrives (with `whole_line`: until the
// line of that byte is complete), the prefix holds kReadBuffer bytes, or the input ends:
// enough to tell a Sentry event (JSON) from trace text.
Status read_prefix(int fd, const std::string& name, std::string& prefix, bool whole_line = false) {
  if (!whole_line) prefix.clear();
  char chunk[4096];
  while (prefix.size() < kReadBuffer) {
    if (whole_line) {
      const std::size_t first = prefix.find_first_not_of(" \t\r\n");
      if (first != std::string::npos && prefix.find('\n', first) != std::string::npos) break;
    }
    const long long n = platform::read_some(fd, chunk, std::min(sizeof chunk, kReadBuffer - prefix.size()));
    if (n < 0) {
      if (errno == EINTR) continue;
      return {Errc::kIo, name + ": read failed: " + std::strerror(errno)};
    }
    if (n == 0) break;
    prefix.append(chunk, std::size_t(n));
    if (!whole_line && prefix.find_first_not_of(" \t\r\n") != std::string::npos) break;
  }
  return {};
}

// Reads the rest of `fd` after `text` (which holds what was read already), at most `limit`
// bytes in all; `complete` tells whether the input ended within them.
Status read_rest(int fd, const std::string& name, std::size_t limit, std::string& text, bool& complete) {
  char chunk[65536];
  complete = false;
  while (text.size() <= limit) {
    const long long n = platform::read_some(fd, chunk, sizeof chunk);
    if (n < 0) {
      if (errno == EINTR) continue;
      return {Errc::kIo, name + ": read failed: " + std::strerror(errno)};
    }
    if (n == 0) {
      complete = true;
      return {};
    }
    text.append(chunk, std::size_t(n));
  }
  return {};
}

// Text read ahead that is trace text after all (a log that starts with '{' but is no Sentry
// event, e.g. JSON lines, or one too large to be one): its complete lines go to `s`, the rest of
// the input follows through pump, so such a log streams through unchanged like any other.
Status feed_then_pump(int fd, const std::string& name, std::string& text, sym::Symbolicator& s,
                      const std::function<void()>& idle) {
  std::size_t start = 0;
  for (std::size_t nl; (nl = text.find('\n', start)) != std::string::npos; start = nl + 1)
    s.line(std::string_view(text).substr(start, nl + 1 - start));
  std::string_view tail = std::string_view(text).substr(start);
  bool long_line = false;
  if (tail.size() > kReadBuffer) {
    s.line(tail, true);
    tail = {};
    long_line = true;
  }
  return pump(fd, name, tail, s, idle, long_line);
}

// The summary line of trace text: frames, resolved, and why the rest were not (which modules
// were not found).
void print_text_summary(const sym::SymbolicateStats& st, bool msym_sources) {
  std::string unresolved;
  std::uint64_t missed = 0;
  for (std::size_t i = 0; i < st.unresolved.size(); ++i) {
    if (!st.unresolved[i]) continue;
    missed += st.unresolved[i];
    unresolved += (unresolved.empty() ? "" : ", ") + std::to_string(st.unresolved[i]) + " " +
                  sym::reason_name(sym::Reason(i));
    if (sym::Reason(i) == sym::Reason::kModuleNotFound && !st.missing_modules.empty()) {
      // Which modules: a trace's own program, not in the search set, is the usual one.
      for (std::size_t k = 0; k < st.missing_modules.size(); ++k)
        unresolved += (k ? ", " : " (") + escape_text(st.missing_modules[k]);
      unresolved += st.more_missing ? ", ...)" : ")";
    }
    // Mono AOT frames with no .msym folder or symbol path to look in: say what they need.
    if (sym::Reason(i) == sym::Reason::kNoMsym && !msym_sources)
      unresolved += ": Mono AOT frames need --msym-dir or a --symbol-path holding their .msym";
  }
  std::fprintf(stderr, "ilmap symbolicate: %llu frames, %llu resolved", static_cast<unsigned long long>(st.frames),
               static_cast<unsigned long long>(st.resolved));
  if (missed) std::fprintf(stderr, ", %llu unresolved (%s)", static_cast<unsigned long long>(missed), unresolved.c_str());
  if (st.with_lines) std::fprintf(stderr, "; %llu already had lines", static_cast<unsigned long long>(st.with_lines));
  std::fprintf(stderr, "\n");
}

// Not only with -v: a frame answered from a file the user did not point at (the build's obj/
// folder, through the path the DLL records) must not pass for one of the search set.
void print_outside_pdbs(const sym::SymbolicateStats& st) {
  if (st.outside_pdbs.empty()) return;
  constexpr std::size_t kNamed = 5;
  const std::size_t n = st.outside_pdbs.size();
  std::string named;
  for (std::size_t i = 0; i < n && i < kNamed; ++i)
    named += (i ? ", " : "") + escape_text(st.outside_pdbs[i].first) + " <- " + escape_text(st.outside_pdbs[i].second);
  if (n > kNamed) named += ", ...";
  std::fprintf(stderr, "ilmap symbolicate: %zu module%s resolved from %s outside the search folders: %s\n", n,
               n == 1 ? "" : "s", n == 1 ? "a PDB" : "PDBs", named.c_str());
}

// -v: a note of the module index or the source provider, on standard error.
void note_line(const std::string& s) { std::fprintf(stderr, "ilmap: %s\n", escape_text(s).c_str()); }

// Where modules are found, as `serve` and the C API say it too (symbols/ResolveConfig.h).
symbols::ResolveConfig resolve_config(const SymbolicateArgs& a) {
  symbols::ResolveConfig config;
  config.search = a.search;  // none: the current directory, as dotnet-stack searches it
  if (!a.cache_dir.empty()) config.cache_dir = a.cache_dir;
  config.symbol_path = symbol_path_or_env(a.symbol_path);
  config.download_timeout_s = a.download_timeout_s;
  config.msym_dirs = a.msym_dirs;
  // --context shows the embedded sources of the PDBs compiled here too.
  config.compile.embed_sources = a.context >= 0;
  if (a.verbose) config.note = note_line;
  return config;
}

// --source-root and --fetch-sources: where --context and Sentry events read sources from.
Result<SourceOptions> make_source_options(const SymbolicateArgs& a, const symbols::ResolveConfig& config) {
  SourceOptions o;
  for (const std::string& spec : a.source_roots) {
    auto root = parse_source_root(spec);  // checked when parsed; the directory may have gone since
    if (!root) return Error{root.error().code, "--source-root " + root.error().message};
    o.roots.push_back(std::move(*root));
  }
  if (a.verbose) o.note = note_line;
  if (a.fetch_sources) {
    o.download_dir = config.cache_directory() + "/sources";
    o.fetch = [http = config.http_options()](const std::string& url, std::uint64_t max_bytes) -> Result<std::string> {
      symbols::HttpOptions limited = http;
      limited.max_bytes = max_bytes;
      auto body = symbols::http_get(url, {}, limited);
      if (!body) return body.error();
      return std::string(body->begin(), body->end());
    };
  }
  return o;
}

int run_symbolicate(const SymbolicateArgs& a) {
  const symbols::ResolveConfig config = resolve_config(a);
  auto index_options = config.module_index_options();
  if (!index_options) return report_error({index_options.error().code, "--symbol-path: " + index_options.error().message});
  auto index = sym::ModuleIndex::create(std::move(*index_options));
  if (!index) return report_error(index.error());
  auto source_options = make_source_options(a, config);
  if (!source_options) return report_error(source_options.error());
  SourceProvider sources(std::move(*source_options));
  sym::SymbolicateOptions symbolicate_options;
  symbolicate_options.columns = a.columns;
  symbolicate_options.urls = a.urls;
  symbolicate_options.json = a.json;
  if (a.context >= 0) symbolicate_options.context = std::uint32_t(a.context);
  symbolicate_options.sources = &sources;
  auto msym = sym::MsymSource::create(config, "--msym-dir");
  if (!msym) return report_error(msym.error());
  symbolicate_options.msym = msym->get();
  symbolicate_options.color = use_color(a.color);
  bool write_failed = false;
  sym::Symbolicator s(**index, symbolicate_options, [&](std::string_view out) {
    if (!write_failed && std::fwrite(out.data(), 1, out.size(), stdout) != out.size()) write_failed = true;
  });
  const auto idle = [&] {
    s.flush();
    if (!write_failed && std::fflush(stdout) != 0) write_failed = true;
  };
  sym::IndexSentryProvider sentry_provider(**index);
  SentryOptions sentry_options;
  sentry_options.sources = &sources;
  if (symbolicate_options.context) sentry_options.context_lines = *symbolicate_options.context;
  SentryStats sentry_stats;
  bool saw_sentry = false, saw_text = false;
  int rc = 0;
  const std::vector<std::string> inputs = a.inputs.empty() ? std::vector<std::string>{"-"} : a.inputs;
  for (const std::string& in : inputs) {
    int fd = 0;
    if (in != "-") {
      fd = platform::open_read(in);
      if (fd < 0) {
        const int err = errno;
        s.finish();
        rc = std::max(rc, report_error({err == ENOENT ? Errc::kNotFound : Errc::kIo, in + ": " + std::strerror(err)}));
        continue;
      }
    }
    const std::string name = in == "-" ? "standard input" : in;
    std::string prefix;
    Status st = read_prefix(fd, name, prefix);
    // An input whose first line is a Sentry event or an envelope header, or the start of a
    // longer JSON text (symbolicate/SentryEvent.h sentry_start), is read whole as Sentry JSON;
    // JSON log lines and everything else stream through as trace text.
    bool sentry = false;
    if (st && looks_like_sentry_json(prefix)) {
      st = read_prefix(fd, name, prefix, true);
      const std::string_view first = first_line(prefix);
      const bool longer = first.data() + first.size() == prefix.data() + prefix.size() && prefix.size() >= kReadBuffer;
      sentry = st && (longer || sentry_start(first) != SentryStart::kOther);
    }
    if (sentry) {
      // A Sentry event or envelope (JSON): read whole, frames resolved by function_id and
      // instruction_addr (symbolicate/SentryEvent.h); the output is the event, rewritten.
      // Anything else (a truncated event, a JSON text that is none) is trace text.
      bool complete = false;
      st = read_rest(fd, name, sentry_options.max_input_bytes, prefix, complete);
      std::string out;
      SentryStats one;
      Status sentry = complete ? symbolicate_sentry_text(prefix, out, sentry_provider, sentry_options, one)
                               : Status(Errc::kTooLarge, "over the size of a Sentry event");
      if (!st) {
      } else if (sentry) {
        saw_sentry = true;
        s.finish();
        sentry_stats.add(one);
        if (!write_failed && std::fwrite(out.data(), 1, out.size(), stdout) != out.size()) write_failed = true;
      } else {
        if (a.verbose)
          std::fprintf(stderr, "ilmap: %s: read as trace text, not as a Sentry event: %s\n",
                       escape_text(name).c_str(), escape_text(sentry.error().message).c_str());
        saw_text = true;
        st = feed_then_pump(fd, name, prefix, s, idle);
      }
    } else if (st) {
      saw_text = true;
      st = feed_then_pump(fd, name, prefix, s, idle);
    }
    if (fd != 0) platform::close_fd(fd);
    s.finish();
    if (!st) rc = std::max(rc, report_error(st.error()));
  }
  if (write_failed) return 2;  // main reports the failed stdout
  const sym::SymbolicateStats& st = s.stats();
  if (saw_text || !saw_sentry) print_text_summary(st, !(*msym)->empty());
  if (saw_sentry) std::fprintf(stderr, "ilmap symbolicate: %s", sentry_stats.summary().c_str());
  print_outside_pdbs(st);
  // Why --context showed no source for some frames, once per reason (not per frame).
  if (a.context >= 0) std::fputs(sources.miss_summary("ilmap symbolicate: ").c_str(), stderr);
  if (a.verbose) {
    const auto& is = (*index)->stats();
    std::fprintf(stderr, "ilmap: search set: %zu files; caches compiled %zu, reused %zu\n", is.files, is.compiled,
                 is.reused);
  }
  const std::uint64_t frames = st.frames + sentry_stats.frames;
  // The text was written: 0 whatever was resolved (a pipeline that only wanted the text passed
  // through keeps going under `set -o pipefail`), unless --strict asks for every frame.
  if (rc == 0 && a.strict && st.resolved + sentry_stats.resolved < frames) rc = 3;
  return rc;
}

}  // namespace

void register_symbolicate(CLI::App& app, int& rc) {
  auto a = std::make_shared<SymbolicateArgs>();
  CLI::App* cmd = app.add_subcommand(
      "symbolicate",
      "Read stack-trace text or logs (files, or standard input) and write it back byte for byte, except\n"
      "the frames it resolves, which get file and line as the runtime prints a frame with symbols.\n"
      "Formats (found anywhere in a line, log prefixes and suffixes kept, mixed freely): CoreCLR with\n"
      "ShowILOffsets ('in App.dll:token 0x6000001+0x5'), Mono ('[0x0001a] in <mvid>:0', AOT\n"
      "'<mvid#aotid>'), Mono AOT native offsets ('<0x7f00aa10 + 0x5e> in <mvid#aotid>:0', through the\n"
      ".msym files of --msym-dir), .NET on Android ('at NS.T.M + 0x2db(Unknown Source)'),\n"
      "ProductionStackTrace ('at Asm!0x0600000f!NS.T.M() +0xc' with its MODULE lines). A line that is\n"
      "one JSON object (a JSON log) has its string values that hold frames rewritten in place. A live\n"
      "stream is written line by line. Sentry events or envelopes (an input whose first line is an event with frames, an\n"
      "envelope header, or the start of a longer JSON text): frames with function_id + instruction_addr,\n"
      "images by debug_id; read whole, at most 100 MiB; written back with abs_path, filename, lineno,\n"
      "colno, source_link and source context from embedded sources (or --source-root). --context N puts\n"
      "N lines of source around each resolved frame below it. Modules are found in the --search\n"
      "paths by file name, MVID or PDB id; what they need is compiled into the cache directory once.\n"
      "A summary goes to standard error.\n"
      "Exit codes: 0 done (some frames may remain unresolved: see the summary), 1 usage error,\n"
      "2 an input could not be read or output not written, 3 an input file does not exist, a\n"
      "--search path does not exist, or (--strict) a frame stayed unresolved.");
  cmd->add_option("FILE", a->inputs, "Trace text files ('-' or none: standard input)");
  cmd->add_option("--search", a->search,
                  "Directories and files to find modules in: PEs (.dll/.exe) with their PDBs, Portable PDBs, "
                  "ilmap caches, symbol-store directories (repeatable; default: the current directory)")
      ->allow_extra_args(false);
  cmd->add_option("--msym-dir", a->msym_dirs,
                  "Mono AOT frames ('<0xADDR + 0xOFF> in <mvid#aotid>:0'): a folder that mono --aot=msym-dir "
                  "wrote, DIR/AOTID/ASSEMBLY.msym, for their native -> IL offsets (repeatable; the symbol path "
                  "is asked after them; docs/msym.md)")
      ->allow_extra_args(false);
  cmd->add_option("--symbol-path", a->symbol_path,
                  "Symbol servers and stores to fetch PDBs from (srv*CACHE*https://server;DIR), as lookup takes it "
                  "(default $_NT_SYMBOL_PATH)");
  add_download_timeout_option(cmd, a->download_timeout_s);
  cmd->add_option("--cache-dir", a->cache_dir,
                  "Where compiled caches are kept (default $XDG_CACHE_HOME/ilmap, else $HOME/.cache/ilmap; on "
                  "Windows %LOCALAPPDATA%\\ilmap)");
  cmd->add_flag("--columns", a->columns, "Add ':COLUMN' after the line number");
  cmd->add_flag("--urls", a->urls, "Print the SourceLink URL instead of the path when the document has one");
  cmd->add_flag("--json", a->json, "Print one JSON object per frame (resolved or not) instead of the text");
  cmd->add_option("--context", a->context,
                  "Print N lines of source before and after each resolved frame's line, below the frame "
                  "(0-100; --json: pre_context, context_line, post_context; Sentry events: N instead of 5), "
                  "from the sources embedded in the cache or a --source-root")
      ->check(CLI::Validator(
          [](std::string& v) {
            const bool digits = !v.empty() && v.size() <= 3 && v.find_first_not_of("0123456789") == std::string::npos;
            return digits && std::stoi(v) <= 100 ? std::string() : "'" + v + "': N is a whole number from 0 to 100";
          },
          "N"));
  add_source_root_option(cmd, a->source_roots, "--context and Sentry events");
  cmd->add_flag("--fetch-sources", a->fetch_sources,
                "For --context and Sentry events, download a document that no other source has from its "
                "SourceLink URL (http/https); shown only when its hash is the PDB's checksum, kept in "
                "the cache directory's sources/");
  cmd->add_option("--color", a->color,
                  "Show the frame's line of a --context block in bold: auto (when standard output is a "
                  "terminal and NO_COLOR is not set), always, never (default auto)")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  cmd->add_flag("--strict", a->strict, "Exit 3 when a frame stays unresolved (the text is written all the same)");
  cmd->add_flag("-v,--verbose", a->verbose, "Say which caches were compiled or reused and why modules were refused");
  cmd->callback([a, &rc] { rc = run_symbolicate(*a); });
}

}  // namespace ilmap::cli
