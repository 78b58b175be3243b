// CompileFile.cpp - one input file to one cache file (CompileFile.h).
#include "symbols/CompileFile.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <optional>

#include "compiler/CompileModule.h"
#include "decode/DebugInput.h"
#include "decode/PeFile.h"
#include "decode/SymstoreKeys.h"
#include "support/AtomicFile.h"
#include "support/FileBytes.h"
#include "support/Platform.h"
#include "symbols/ModuleIdentity.h"
#include "symbols/SymbolPath.h"
#include "ilmap/cache.h"

namespace ilmap::symbols {
namespace {

namespace fs = std::filesystem;

bool is_pdb_name(const std::string& path) {
  std::string e = platform::fs_string(platform::fs_path(path).extension());
  std::transform(e.begin(), e.end(), e.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return e == ".pdb";
}

// Up to date = the cache at the target is the bytes this run would write: the same input bytes,
// the same compiler, the same method names (by their PE's MVID: names come from a PE that the
// input hash may not cover, --pe or a PE beside a PDB), and the same answer to `embed_sources`
// (which changes the bytes only when the PDB has embedded sources). A cache is trusted only when
// it verifies (header, payload checksum, sections): a corrupt cache is rebuilt. Only regular
// files are opened (never a FIFO or a device).
bool up_to_date(const OutputTarget& target, const ModuleSource& m, bool embed_sources) {
  if (target.kind != OutputKind::kRegular) return false;
  auto cache = Cache::open(target.path);
  if (!cache || !cache->verify()) return false;
  const bool has_names = cache->has_method_names();
  if (has_names != m.names.has_value()) return false;
  if (m.names && cache->mvid() != std::optional<Guid>(m.names->mvid)) return false;
  const CacheIdentity id = cache->identity();
  const CacheSource& src = m.source;
  if (!(id.source_xxh3 == src.source_xxh3 && id.source_size == src.source_size &&
        id.compiler_version == compiler_version() && id.source_name == src.source_name))
    return false;
  if (id.holds_embedded_sources != embed_sources)
    return !id.holds_embedded_sources && (!src.pdb || !has_embedded_sources(*src.pdb));
  return true;
}

// Whether the output target is the file at `path` (the same device and inode, or volume and
// file index on Windows).
bool same_file(const OutputTarget& target, const std::string& path) {
  platform::FileInfo a, b;
  return platform::stat_path(target.path, a) && platform::stat_path(path, b) && a.same_file(b);
}

CompileFileResult failed(CompileFileResult r, Error e) {
  r.outcome = CompileOutcome::kFailed;
  r.error = std::move(e);
  return r;
}

CompileFileResult skipped(std::string why) {
  CompileFileResult r;
  r.outcome = CompileOutcome::kSkipped;
  r.skipped = std::move(why);
  return r;
}

// <stem>.dll or <stem>.exe beside a PDB, when one exists.
std::string pe_beside(const std::string& pdb_path) {
  for (const char* ext : {".dll", ".exe"}) {
    fs::path p = platform::fs_path(pdb_path);
    p.replace_extension(ext);
    std::error_code ec;
    if (fs::is_regular_file(p, ec)) return platform::fs_string(p);
  }
  return {};
}

// Method names (SPEC.md 3.6) from the PE of the input: the input itself, `pe` for a PDB input
// (must name the PDB: else kMismatch), or a same-named PE beside a PDB input whose CodeView names
// it. A names failure is a warning (in m.warnings) and the cache is built without them.
Status collect_names(const std::string& input, const DebugInput& d, const CompileFileOptions& o, ModuleSource& m) {
  if (d.pe) {
    if (d.pe->managed) add_method_names(m, d.file.bytes(), input);
    return {};
  }
  const std::string pe_path = !o.pe.empty() ? o.pe : pe_beside(input);
  if (pe_path.empty()) return {};
  auto file = FileBytes::open(pe_path);
  if (!file) {
    if (o.pe.empty()) return {};
    return Error{file.error().code, "--pe " + file.error().message};
  }
  PeOptions po;
  po.embedded_pdb_errors_fatal = false;
  auto pe = PeFile::parse(file->bytes(), po);
  if (!pe || !pe_names_pdb(pe->info(), *d.pdb)) {
    if (o.pe.empty()) return {};  // an unrelated file beside the PDB: no names
    if (!pe) return Error{pe.error().code, "--pe " + pe_path + ": " + pe.error().message};
    return Error{Errc::kMismatch, format("--pe %s: no Portable CodeView entry of the PE names the PDB %s (PDB id %s)",
                                         pe_path.c_str(), input.c_str(),
                                         d.pdb->has_pdb_stream() ? portable_debug_id(d.pdb->id().guid(), d.pdb->id().stamp()).c_str() : "none")};
  }
  add_method_names(m, file->bytes(), pe_path);
  return {};
}

}  // namespace

CompileFileResult compile_file(const std::string& input, const std::string& output, const CompileFileOptions& o) {
  CompileFileResult r;
  DebugInputOptions input_options;
  const std::uint64_t cap = o.compile.max_decompressed;
  input_options.pe.max_embedded_pdb = static_cast<std::uint32_t>(std::min<std::uint64_t>(cap, UINT32_MAX));
  input_options.pdb = o.pdb;
  input_options.allow_missing_pdb = o.from_directory;
  input_options.windows_pdbs = true;
  auto in = open_debug_input(input, input_options);
  // The symbol path: a PE whose PDB is not found locally gets it from there (verified there;
  // then matched like `pdb`). In directory mode, one the symbol path lacks is skipped.
  const bool pdb_absent = in ? ((*in)->missing == MissingPdb::kNotPresent || (*in)->missing == MissingPdb::kMismatch)
                             : (in.error().code == Errc::kNotFound || in.error().code == Errc::kMismatch);
  if (o.pdb.empty() && !o.symbol_path.empty() && !is_pdb_name(input) && pdb_absent) {
    auto fetched = resolve_with_symbol_path(o.symbol_path, input, false, o.download_timeout_s);
    if (fetched) {
      input_options.pdb = fetched->path;
      in = open_debug_input(input, input_options);
    } else if (!o.from_directory || fetched.error().code != Errc::kNotFound) {
      return failed(std::move(r), fetched.error());
    }
  }
  if (!in) return failed(std::move(r), in.error());
  const DebugInput& d = **in;
  if (!o.pe.empty() && d.pe)
    return failed(std::move(r), {Errc::kUsage, format("--pe %s: applies to a .pdb input, and %s is a PE", o.pe.c_str(), input.c_str())});
  if (!o.pdb.empty() && !d.pe)
    return failed(std::move(r), {Errc::kUsage, format("--pdb %s: applies to a .dll or .exe input, and %s is a PDB", o.pdb.c_str(), input.c_str())});
  if (!d.has_pdb()) {  // directory mode: a PE without usable debug information
    switch (d.missing) {
      case MissingPdb::kNoDebugInfo:
        if (d.pe && !d.pe->managed) return skipped("no Portable PDB (a native PE)");
        if (d.pe && !d.pe->codeview.empty()) return skipped("no Portable PDB (the PE names a Windows PDB)");
        return skipped("no Portable PDB (no debug information)");
      case MissingPdb::kNotPresent:
        return skipped("no Portable PDB (the PDB it names is not here)");
      default:
        return failed(std::move(r), d.pdb_status.error());
    }
  }
  if (!o.collides_with.empty())
    return failed(std::move(r), {Errc::kUsage, format("%s and %s would both write %s; compile them separately with -o",
                                                      o.collides_with.c_str(), input.c_str(), output.c_str())});
  auto target = resolve_output(output);
  if (!target) return failed(std::move(r), target.error());
  // Never replace an input: the file itself, or the PDB file read for a PE.
  if (target->kind == OutputKind::kRegular || target->kind == OutputKind::kWriteThrough) {
    if (same_file(*target, input))
      return failed(std::move(r), {Errc::kUsage, format("%s: output is the input %s itself; refusing to overwrite it (choose another -o)",
                                                        output.c_str(), input.c_str())});
    if (d.source == PdbSource::kSibling && same_file(*target, d.pdb_path))
      return failed(std::move(r), {Errc::kUsage, format("%s: output is the PDB %s read for %s; refusing to overwrite it (choose another -o)",
                                                        output.c_str(), d.pdb_path.c_str(), input.c_str())});
  }
  if (target->kind == OutputKind::kDirectory) return failed(std::move(r), {Errc::kIo, format("%s: is a directory", output.c_str())});
  ModuleSource module = module_source(d);
  if (Status s = collect_names(input, d, o, module); !s) return failed(std::move(r), s.error());
  r.warnings = std::move(module.warnings);
  if (!o.compile.force && up_to_date(*target, module, o.compile.embed_sources)) {
    r.outcome = CompileOutcome::kUpToDate;
    return r;
  }
  CacheBuildOptions build_options;
  build_options.embed_sources = o.compile.embed_sources;
  build_options.max_embedded_source = static_cast<std::size_t>(cap);
  build_options.threads = std::max(1u, o.threads);
  CacheStats stats;
  auto bytes = compile_module(module, build_options, &stats);
  // An input truncated while mapped reads as zeros (the mapping guard): that, not whatever the
  // zeros decoded to, is the error, and nothing is written.
  for (const FileBytes* f : {&d.file, &d.sibling})
    if (Status s = f->check(); !s) return failed(std::move(r), s.error());
  if (!bytes) return failed(std::move(r), {bytes.error().code, input + ": " + bytes.error().message});
  if (target->kind == OutputKind::kMissing) {  // -o newdir/sub/x.ilmap: create the folders
    const fs::path parent = platform::fs_path(target->path).parent_path();
    std::error_code ec;
    if (!parent.empty() && !fs::exists(parent, ec) && !fs::create_directories(parent, ec) && ec)
      return failed(std::move(r), {Errc::kIo, format("%s: cannot create directory %s: %s", output.c_str(),
                                                     platform::fs_string(parent).c_str(), ec.message().c_str())});
  }
  if (Status s = write_output(*target, *bytes, o.compile.fsync); !s) return failed(std::move(r), s.error());
  for (const std::string& w : stats.warnings) r.warnings.push_back(input + ": " + w);
  r.outcome = CompileOutcome::kCompiled;
  r.points = stats.points;
  r.point_bytes = stats.point_bytes;
  r.bytes = bytes->size();
  return r;
}

Result<Resolved> resolve_with_symbol_path(const std::string& spec, const std::string& input, bool want_cache,
                                          long download_timeout_s) {
  auto entries = parse_symbol_path(spec);
  if (!entries) return entries.error();
  ResolveOptions ro;
  ro.want_cache = want_cache;
  ro.http.total_timeout_s = download_timeout_s;
  auto resolver = ModuleResolver::create(std::move(*entries), ro);
  if (!resolver) return resolver.error();
  auto file = FileBytes::open(input);
  if (!file) return file.error();
  auto ident = identify_file(input, file->bytes());
  if (!ident) return Error{ident.error().code, input + ": " + ident.error().message};
  std::optional<ModuleIdentity> want;
  if (ident->kind == ModuleKind::kPortablePdb) {
    want = *ident;
  } else if (ident->kind == ModuleKind::kPe) {
    PeOptions po;
    po.embedded_pdb_errors_fatal = false;
    auto pe = PeFile::parse(file->bytes(), po);
    if (!pe) return Error{pe.error().code, input + ": " + pe.error().message};
    for (const auto& w : pdbs_wanted_by(pe->info()))
      if (w.kind == ModuleKind::kPortablePdb) {
        want = w;
        break;
      }
    if (!want) return Error{Errc::kNotFound, input + ": the PE names no Portable PDB (no Portable CodeView entry)"};
  }
  if (!want) return Error{Errc::kUsage, input + ": not a PE or Portable PDB (--symbol-path finds what those name)"};
  auto r = resolver->resolve(*want);
  if (!r) return Error{r.error().code, input + ": " + r.error().message};
  if (want_cache && !r->is_cache)
    return Error{Errc::kNotFound, input + ": the symbol path has the PDB (" + r->path + ") but no ilmap cache of it; compile it (ilmap compile, or ilmap store add)"};
  return r;
}

}  // namespace ilmap::symbols
