// cmd_symbolicate.cpp - `ilmap symbolicate [FILE...|-] --search PATH...`: reads stack-trace
// text (streaming, bounded memory) and writes it back with every frame it can resolve completed
// with file and line, as the runtime prints a frame with symbols (symbolicate/Symbolicator.h).
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>

#include "Commands.h"
#include "ModuleIndex.h"
#include "SymbolPath.h"
#include "Symbolicator.h"

namespace ilmap::cli {
namespace {

namespace sym = ilmap::symbolicate;

struct SymbolicateArgs {
  std::vector<std::string> inputs;
  std::vector<std::string> search;
  std::string symbol_path;
  std::string cache_dir;
  bool columns = false, urls = false, json = false, verbose = false;
};

constexpr std::size_t kReadBuffer = 256 * 1024;  // also the longest line parsed as a frame

// Feeds the lines of `fd` to `s`. Lines longer than the buffer go through as fragments.
Status pump(int fd, const std::string& name, sym::Symbolicator& s) {
  std::unique_ptr<char[]> buf(new char[kReadBuffer]);
  std::size_t start = 0, end = 0;
  bool long_line = false;  // inside a line that did not fit the buffer
  for (;;) {
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
    const ssize_t n = ::read(fd, buf.get() + end, kReadBuffer - end);
    if (n < 0) {
      if (errno == EINTR) continue;
      return {Errc::kIo, name + ": read failed: " + std::strerror(errno)};
    }
    if (n == 0) break;
    end += std::size_t(n);
    for (;;) {
      const void* nl = std::memchr(buf.get() + start, '\n', end - start);
      if (!nl) break;
      const std::size_t stop = std::size_t(static_cast<const char*>(nl) - buf.get()) + 1;
      s.line(std::string_view(buf.get() + start, stop - start), long_line);
      long_line = false;
      start = stop;
    }
  }
  if (start < end) s.line(std::string_view(buf.get() + start, end - start), long_line);
  return {};
}

int run_symbolicate(const SymbolicateArgs& a) {
  if (a.search.empty() && a.symbol_path.empty()) {
    std::fprintf(stderr, "ilmap: error: symbolicate needs --search PATH (or --symbol-path SPEC): where the modules and PDBs are\n");
    return 1;
  }
  sym::ModuleIndexOptions io;
  io.search = a.search;
  io.cache_dir = a.cache_dir.empty() ? sym::default_cache_dir() : a.cache_dir;
  if (!a.symbol_path.empty()) {
    auto sp = symbols::parse_symbol_path(a.symbol_path);
    if (!sp) return report_error({sp.error().code, "--symbol-path: " + sp.error().message});
    io.symbol_path = std::move(*sp);
  }
  if (a.verbose) io.note = [](const std::string& s) { std::fprintf(stderr, "ilmap: %s\n", escape_text(s).c_str()); };
  auto index = sym::ModuleIndex::create(std::move(io));
  if (!index) return report_error(index.error());
  sym::SymbolicateOptions so;
  so.columns = a.columns, so.urls = a.urls, so.json = a.json;
  bool write_failed = false;
  sym::Symbolicator s(**index, so, [&](std::string_view out) {
    if (!write_failed && std::fwrite(out.data(), 1, out.size(), stdout) != out.size()) write_failed = true;
  });
  int rc = 0;
  const std::vector<std::string> inputs = a.inputs.empty() ? std::vector<std::string>{"-"} : a.inputs;
  for (const std::string& in : inputs) {
    int fd = 0;
    if (in != "-") {
      fd = ::open(in.c_str(), O_RDONLY | O_CLOEXEC);
      if (fd < 0) {
        const int err = errno;
        s.finish();
        rc = std::max(rc, report_error({err == ENOENT ? Errc::kNotFound : Errc::kIo, in + ": " + std::strerror(err)}));
        continue;
      }
    }
    Status st = pump(fd, in == "-" ? "standard input" : in, s);
    if (fd != 0) ::close(fd);
    s.finish();
    if (!st) rc = std::max(rc, report_error(st.error()));
  }
  if (write_failed) return 2;  // main reports the failed stdout
  const sym::SymbolicateStats& st = s.stats();
  std::string unresolved;
  std::uint64_t missed = 0;
  for (std::size_t i = 0; i < st.unresolved.size(); ++i) {
    if (!st.unresolved[i]) continue;
    missed += st.unresolved[i];
    unresolved += (unresolved.empty() ? "" : ", ") + std::to_string(st.unresolved[i]) + " " +
                  sym::reason_name(sym::Reason(i));
  }
  std::fprintf(stderr, "ilmap symbolicate: %llu frames, %llu resolved", static_cast<unsigned long long>(st.frames),
               static_cast<unsigned long long>(st.resolved));
  if (missed) std::fprintf(stderr, ", %llu unresolved (%s)", static_cast<unsigned long long>(missed), unresolved.c_str());
  if (st.with_lines) std::fprintf(stderr, "; %llu already had lines", static_cast<unsigned long long>(st.with_lines));
  std::fprintf(stderr, "\n");
  if (a.verbose) {
    const auto& is = (*index)->stats();
    std::fprintf(stderr, "ilmap: search set: %zu files; caches compiled %zu, reused %zu\n", is.files, is.compiled,
                 is.reused);
  }
  if (rc == 0 && st.frames > 0 && st.resolved == 0) rc = 3;
  return rc;
}

}  // namespace

void register_symbolicate(CLI::App& app, int& rc) {
  auto a = std::make_shared<SymbolicateArgs>();
  CLI::App* cmd = app.add_subcommand(
      "symbolicate",
      "Read stack-trace text (files, or standard input) and write it back byte for byte, except the\n"
      "frames it resolves, which get file and line as the runtime prints a frame with symbols.\n"
      "Formats (detected per line, mixed freely): CoreCLR with ShowILOffsets ('in App.dll:token\n"
      "0x6000001+0x5'), Mono ('[0x0001a] in <mvid>:0', AOT '<mvid#aotid>'), .NET on Android\n"
      "('at NS.T.M + 0x2db(Unknown Source)'), ProductionStackTrace ('at Asm!0x0600000f!NS.T.M() +0xc'\n"
      "with its MODULE lines). Modules are found in the --search paths by file name, MVID or PDB id;\n"
      "what they need is compiled into the cache directory once. A summary goes to standard error.\n"
      "Exit codes: 0 done (some frames may remain unresolved: see the summary), 1 usage error,\n"
      "2 an input could not be read or output not written, 3 an input file does not exist, a\n"
      "--search path does not exist, or frames were found and none could be resolved.");
  cmd->add_option("FILE", a->inputs, "Trace text files ('-' or none: standard input)");
  cmd->add_option("--search", a->search,
                  "Directories and files to find modules in: PEs (.dll/.exe) with their PDBs, Portable PDBs, "
                  "ilmap caches, symbol-store directories (repeatable)")
      ->allow_extra_args(false);
  cmd->add_option("--symbol-path", a->symbol_path,
                  "Symbol servers and stores to fetch PDBs from (srv*CACHE*https://server;DIR), as lookup takes it");
  cmd->add_option("--cache-dir", a->cache_dir,
                  "Where compiled caches are kept (default $XDG_CACHE_HOME/ilmap, else $HOME/.cache/ilmap)");
  cmd->add_flag("--columns", a->columns, "Add ':COLUMN' after the line number");
  cmd->add_flag("--urls", a->urls, "Print the SourceLink URL instead of the path when the document has one");
  cmd->add_flag("--json", a->json, "Print one JSON object per frame (resolved or not) instead of the text");
  cmd->add_flag("-v,--verbose", a->verbose, "Say which caches were compiled or reused and why modules were refused");
  cmd->callback([a, &rc] { rc = run_symbolicate(*a); });
}

}  // namespace ilmap::cli
