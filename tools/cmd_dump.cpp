// cmd_dump.cpp - `ilmap dump INPUT [--sequence-points|--documents|--methods] [--json]
//                [--max-decompressed SIZE]`.
//
// Prints the canonical sequence-point listing (docs/text-output.md) or the document table of a PDB,
// a PE or a cache. A malformed blob of one method is reported on stderr with its row; the other
// methods are still printed and the exit code is 2 at the end. Text output escapes paths from the
// file (TextEscape.h); JSON output carries them as JSON strings.
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "tools/CacheFields.h"
#include "tools/Commands.h"
#include "decode/DebugInput.h"
#include "decode/EmbeddedSources.h"
#include "decode/Guids.h"
#include "decode/SymstoreKeys.h"
#include "decode/Listing.h"
#include "compiler/NamesSection.h"
#include "support/TextEscape.h"
#include "ilmap/cache.h"
#include "reader/RawCache.h"

namespace ilmap::cli {
namespace {

using Json = nlohmann::ordered_json;

struct DumpOptions {
  std::string input;
  bool sequence_points = false;
  bool documents = false;
  bool methods = false;
  bool json = false;
  std::uint64_t max_decompressed = kDefaultMaxDecompressed;
};

void write_out(std::string_view s) { std::fwrite(s.data(), 1, s.size(), stdout); }

int report(const Error& e) { return report_error(e); }

// One row of --documents, as text (tab-separated, path escaped) or as a JSON object.
struct DocumentRow {
  std::uint32_t rid = 0;
  std::string_view path;
  Guid language{};
  Guid hash_algorithm{};
  std::string hash;
  long long embedded_source = -1;  // decompressed size, -1 when none
};

void append_row(std::string& out, const DocumentRow& r) {
  out += std::to_string(r.rid);
  out += '\t';
  append_escaped(out, r.path);
  out += '\t';
  out += language_text(r.language);
  out += '\t' + guid_to_text(r.hash_algorithm) + '\t' + r.hash + '\t' + std::to_string(r.embedded_source) + '\n';
}

Json row_json(const DocumentRow& r) {
  return {{"rid", r.rid},
          {"path", std::string(r.path)},
          {"language", language_text(r.language)},
          {"language_guid", guid_to_text(r.language)},
          {"hash_algorithm", guid_to_text(r.hash_algorithm)},
          {"hash", r.hash},
          {"embedded_source", r.embedded_source}};
}

int dump_documents(const PortablePdb& pdb, const std::vector<Document>& docs, const DumpOptions& o) {
  // Embedded sources are inflated to check them and tell their size: each distinct blob once,
  // all of them within the --max-decompressed budget.
  EmbeddedSourceReader sources(pdb, o.max_decompressed, o.max_decompressed);
  Json arr = Json::array();
  std::string out;
  for (std::size_t i = 0; i < docs.size(); ++i) {
    const Document& d = docs[i];
    auto src = sources.read(static_cast<std::uint32_t>(i + 1));
    if (!src) return report(Error{src.error().code, o.input + ": " + src.error().message});
    const DocumentRow row{static_cast<std::uint32_t>(i + 1), d.name, d.language, d.hash_algorithm,
                          hex_lower(d.hash), *src ? static_cast<long long>((*src)->size) : -1};
    if (o.json) arr.push_back(row_json(row));
    else append_row(out, row);
  }
  if (o.json) out = arr.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
  write_out(out);
  return 0;
}

// One JSON object per line (JSON Lines): stream-friendly for large PDBs and caches.
void append_point_json(std::string& buf, std::uint32_t token, std::uint32_t il, std::uint32_t line,
                       std::uint32_t column, std::uint32_t end_line, std::uint32_t end_column,
                       bool hidden, std::string_view path) {
  Json j = {{"method", format("0x%08x", token)}, {"il_offset", il},
            {"file", std::string(path)},         {"line", line},
            {"column", column},                  {"end_line", end_line},
            {"end_column", end_column},          {"hidden", hidden}};
  buf += j.dump(-1, ' ', false, Json::error_handler_t::replace);
  buf += '\n';
}

void print_error(const std::string& input, const Error& e) {
  report_error(Error{e.code, input + ": " + e.message});
}

int dump_points_json(const PortablePdb& pdb, const std::vector<std::string>& names, const std::string& input) {
  const bool ok = write_points(
      pdb,
      [&names](std::string& buf, std::uint32_t token, const SequencePoint& p) {
        append_point_json(buf, token, p.il_offset, p.start_line, p.start_column, p.end_line,
                          p.end_column, p.hidden(), names[p.document - 1]);
      },
      write_out, [&](const Error& e) { print_error(input, e); });
  return ok ? 0 : 2;
}

// --methods: one line per MethodDef row, "TOKEN TAB coreclr TAB mono" (texts escaped), or with
// --json one object per line. `name(i)` gives row i+1's texts.
template <typename NameOf>
void dump_method_names(std::uint32_t count, NameOf name, bool json) {
  std::string buf;
  for (std::uint32_t i = 0; i < count; ++i) {
    const std::uint32_t token = 0x06000001u + i;
    std::string_view coreclr, mono;
    std::uint32_t kickoff = 0;
    if (!name(i, coreclr, mono, kickoff)) continue;  // a corrupt range: no name
    if (json) {
      Json j;
      j["token"] = format("0x%08x", token);
      j["coreclr"] = std::string(coreclr);
      j["mono"] = std::string(mono);
      j["kickoff"] = kickoff ? Json(format("0x%08x", kickoff)) : Json(nullptr);
      buf += j.dump(-1, ' ', false, Json::error_handler_t::replace);
      buf += '\n';
    } else {
      buf += format("0x%08x\t", token);
      append_escaped(buf, coreclr);
      buf += '\t';
      append_escaped(buf, mono);
      buf += '\n';
    }
    if (buf.size() > (1u << 16)) {
      write_out(buf);
      buf.clear();
    }
  }
  write_out(buf);
}

int dump_cache_methods(const Cache& cache, const DumpOptions& o) {
  if (!cache.has_method_names())
    return report(Error{Errc::kNotFound, o.input + ": the cache holds no method names (compiled from a PDB without its PE)"});
  dump_method_names(cache.method_name_count(), [&](std::uint32_t i, std::string_view& c, std::string_view& m, std::uint32_t& k) {
    auto n = cache.method_name(0x06000001u + i);
    if (!n) return false;
    c = n->coreclr;
    m = n->mono;
    k = n->kickoff;
    return true;
  }, o.json);
  return 0;
}

// --methods of a PE: the names the cache would hold, straight from its metadata (no PDB needed).
int dump_pe_methods(const DumpOptions& o) {
  auto file = FileBytes::open(o.input);
  if (!file) return report(file.error());
  auto names = build_names_section_from_pe(file->bytes());
  if (!names) return report(Error{names.error().code, o.input + ": " + names.error().message});
  auto text = [&](std::uint32_t off, std::uint32_t len) {
    return std::string_view(reinterpret_cast<const char*>(names->strings.data()) + off, len);
  };
  dump_method_names(static_cast<std::uint32_t>(names->methods.size()), [&](std::uint32_t i, std::string_view& c, std::string_view& m, std::uint32_t& k) {
    const fb::MethodNameRef& r = names->methods[i];
    c = text(r.coreclr_offset(), r.coreclr_length());
    m = text(r.mono_offset(), r.mono_length());
    k = r.kickoff();
    return true;
  }, o.json);
  if (Status s = file->check(); !s) return report(s.error());
  return 0;
}

int dump_cache(const DumpOptions& o) {
  auto cache = Cache::open(o.input);
  if (!cache) return report(cache.error());
  // Paths or names whose packed bytes do not unpack would print as nothing: fail as verify
  // does (exit 2), before any output.
  if (Status s = o.methods ? cache->method_names_status() : cache->document_strings_status(); !s)
    return report(Error{s.code(), o.input + ": " + s.message()});
  if (o.methods) {
    const int rc = dump_cache_methods(*cache, o);
    if (cache->changed()) return report(cache->changed_status().error());
    return rc;
  }
  if (o.documents) {
    // Same columns as for a PDB; the embedded source size is known only for caches compiled
    // with --embed-sources (-1 otherwise). JSON adds the SourceLink URL.
    auto details = raw_details(*cache);
    if (!details) return report(Error{details.error().code, o.input + ": " + details.error().message});
    const auto* d = static_cast<const fb::Details*>(*details);
    std::vector<long long> embedded(cache->document_count(), -1);
    if (d->embedded_sources())
      for (const fb::EmbeddedSource* e : *d->embedded_sources())
        if (e->document() < embedded.size()) embedded[e->document()] = static_cast<long long>(e->uncompressed_size());
    Json arr = Json::array();
    std::string out;
    for (std::uint32_t i = 0; i < cache->document_count(); ++i) {
      const fb::DocumentDetails* dd = d->documents() && i < d->documents()->size() ? d->documents()->Get(i) : nullptr;
      const DocumentRow row{i + 1, cache->document_path(i), guid_of(dd ? dd->language_guid() : nullptr),
                            guid_of(dd ? dd->hash_algorithm_guid() : nullptr), hex_of(dd ? dd->hash() : nullptr),
                            embedded[i]};
      if (o.json) {
        const std::string url(cache->document_source_url(i));
        Json j = row_json(row);
        j["url"] = url.empty() ? Json(nullptr) : Json(url);
        arr.push_back(std::move(j));
      } else {
        append_row(out, row);
      }
    }
    if (o.json) out = arr.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
    write_out(out);
    return 0;
  }
  bool ok = true;
  std::vector<CachePoint> pts;
  std::string buf;
  std::vector<std::string> escaped;  // each path escaped once for the text listing
  if (!o.json)
    for (std::uint32_t i = 0; i < cache->document_count(); ++i) escaped.push_back(escape_text(cache->document_path(i)));
  for (std::uint32_t rid = 1; rid <= cache->method_count(); ++rid) {
    pts.clear();
    if (Status s = cache->points(rid, pts); !s) {
      print_error(o.input, s.error());
      ok = false;
      continue;
    }
    for (const CachePoint& p : pts) {
      if (o.json) {
        append_point_json(buf, 0x06000000u | rid, p.il_offset, p.start_line, p.start_column,
                          p.end_line, p.end_column, p.hidden, cache->document_path(p.document));
      } else {
        // document_path() answers "" for an index beyond the table; so does this.
        const std::string_view path = p.document < escaped.size() ? std::string_view(escaped[p.document]) : std::string_view();
        append_listing_line_escaped(buf, 0x06000000u | rid, p.il_offset, p.start_line, p.start_column,
                                    p.end_line, p.end_column, p.hidden, path);
      }
    }
    if (buf.size() > (1u << 16)) {
      write_out(buf);
      buf.clear();
    }
  }
  write_out(buf);
  return ok ? 0 : 2;
}

// A Windows (MSF) PDB: the same listing, JSON and document table as a Portable PDB (no
// embedded sources: the embedded source column is -1).
int dump_msf(const msf::MsfPdb& pdb, const DumpOptions& o) {
  const auto& docs = pdb.documents();
  std::string buf;
  if (o.documents) {
    Json arr = Json::array();
    for (std::size_t i = 0; i < docs.size(); ++i) {
      const msf::MsfDocument& d = docs[i];
      const DocumentRow row{static_cast<std::uint32_t>(i + 1), d.name, d.language, d.hash_algorithm, hex_lower(d.hash), -1};
      if (o.json) arr.push_back(row_json(row));
      else append_row(buf, row);
    }
    if (o.json) buf = arr.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
    write_out(buf);
    return 0;
  }
  std::vector<std::string> escaped;
  if (!o.json)
    for (const msf::MsfDocument& d : docs) escaped.push_back(escape_text(d.name));
  std::vector<SequencePoint> pts;
  for (const msf::MsfMethod& m : pdb.methods()) {
    pts = m.points;
    sort_points_by_offset(pts);
    for (const SequencePoint& p : pts) {
      if (o.json)
        append_point_json(buf, m.token, p.il_offset, p.start_line, p.start_column, p.end_line,
                          p.end_column, p.hidden(), docs[p.document - 1].name);
      else
        append_listing_line_escaped(buf, m.token, p.il_offset, p.start_line, p.start_column,
                                    p.end_line, p.end_column, p.hidden(), escaped[p.document - 1]);
    }
    if (buf.size() > (1u << 16)) {
      write_out(buf);
      buf.clear();
    }
  }
  write_out(buf);
  return 0;
}

// FileBytes::open refuses what is not a regular file without blocking (a FIFO would hang an
// fopen) and checks the first bytes before mapping; its errors are reported by the PDB path.
bool is_cache_file(const std::string& path) {
  auto f = FileBytes::open(path);
  return f && sniff_input(f->bytes()) == InputKind::kCache;
}

int run_dump(const DumpOptions& o) {
  if (is_cache_file(o.input)) return dump_cache(o);
  if (o.methods) {
    auto f = FileBytes::open(o.input);
    if (f && sniff_input(f->bytes()) == InputKind::kPe) return dump_pe_methods(o);
    if (!f) return report(f.error());
    return report(Error{Errc::kNotFound, o.input + ": method names come from a PE: dump the .dll/.exe, or a cache compiled with it (--pe)"});
  }
  DebugInputOptions input_options;
  input_options.pe.max_embedded_pdb =
      static_cast<std::uint32_t>(std::min<std::uint64_t>(o.max_decompressed, UINT32_MAX));
  input_options.windows_pdbs = true;
  auto in = open_debug_input(o.input, input_options);
  if (!in) return report(in.error());
  if (const Status& cs = (*in)->checksum_status; !cs.ok())
    std::fprintf(stderr, "ilmap: warning: %s\n", escape_text(cs.message()).c_str());
  if ((*in)->msf) return dump_msf(*(*in)->msf, o);
  const PortablePdb& pdb = *(*in)->pdb;
  auto docs = pdb.documents();
  if (!docs) return report(Error{docs.error().code, o.input + ": " + docs.error().message});
  if (o.documents) return dump_documents(pdb, *docs, o);
  std::vector<std::string> names;
  names.reserve(docs->size());
  for (Document& d : *docs) names.push_back(std::move(d.name));
  if (o.json) return dump_points_json(pdb, names, o.input);
  bool ok = write_listing(pdb, names, write_out, [&](const Error& e) { print_error(o.input, e); });
  return ok ? 0 : 2;
}

}  // namespace

void register_dump(CLI::App& app, int& rc) {
  auto o = std::make_shared<DumpOptions>();
  CLI::App* cmd = app.add_subcommand(
      "dump", "Print the sequence points (canonical listing) or the documents of a PDB, a PE or "
      "a cache. The listing of a cache equals the listing of the PDB it was compiled from. Text "
      "output escapes control characters and invalid UTF-8 in paths (\\n, \\xHH).");
  cmd->add_option("INPUT", o->input, "A .pdb, a .dll/.exe with an embedded or sibling PDB, or an ilmap cache")
      ->required();
  auto* sp = cmd->add_flag("--sequence-points", o->sequence_points,
                           "Canonical listing: token, IL offset, path, span (default)");
  auto* docs = cmd->add_flag("--documents", o->documents,
                             "Document table: rid, path, language (C#, VB, F#, other, unknown), hash "
                             "algorithm, hash, embedded source size (-1 if none); JSON adds "
                             "language_guid (and url for a cache)");
  auto* methods = cmd->add_flag("--methods", o->methods,
                                "Method names: per MethodDef row, token TAB CoreCLR frame text TAB Mono "
                                "frame text (of a PE, or of a cache compiled with its PE); JSON: one "
                                "object per line with token, coreclr, mono, kickoff");
  sp->excludes(docs);
  methods->excludes(sp);
  methods->excludes(docs);
  cmd->add_flag("--json", o->json, "JSON output (JSON Lines for sequence points)");
  add_max_decompressed(cmd, o->max_decompressed);
  cmd->callback([o, &rc] { rc = run_dump(*o); });
}

}  // namespace ilmap::cli
