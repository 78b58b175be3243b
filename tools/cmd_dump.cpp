// cmd_dump.cpp - `ilmap dump INPUT [--sequence-points|--documents] [--json]`.
//
// Prints the canonical sequence-point listing (DESIGN.md) or the document table of a PDB or PE.
// A malformed blob of one method is reported on stderr with its row; the other methods are
// still printed and the exit code is 2 at the end.
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "CacheFields.h"
#include "Commands.h"
#include "DebugInput.h"
#include "Guids.h"
#include "Listing.h"
#include "ilmap/cache.h"
#include "ilmap_generated.h"

namespace ilmap::cli {
namespace {

struct DumpOptions {
  std::string input;
  bool sequence_points = false;
  bool documents = false;
  bool json = false;
};

void write_out(std::string_view s) { std::fwrite(s.data(), 1, s.size(), stdout); }

int report(const Error& e) { return report_error(e); }

int dump_documents(const PortablePdb& pdb, const std::vector<Document>& docs, bool json) {
  if (json) {
    nlohmann::ordered_json arr = nlohmann::ordered_json::array();
    for (std::size_t i = 0; i < docs.size(); ++i) {
      const Document& d = docs[i];
      auto src = pdb.embedded_source(static_cast<std::uint32_t>(i + 1));
      if (!src) return report(src.error());
      arr.push_back({{"rid", i + 1},
                     {"path", d.name},
                     {"language", guid_to_text(d.language)},
                     {"hash_algorithm", guid_to_text(d.hash_algorithm)},
                     {"hash", hex_lower(d.hash)},
                     {"embedded_source", *src ? static_cast<long long>((*src)->size()) : -1}});
    }
    write_out(arr.dump(2, ' ', false, nlohmann::json::error_handler_t::replace));
    write_out("\n");
    return 0;
  }
  std::string out;
  for (std::size_t i = 0; i < docs.size(); ++i) {
    const Document& d = docs[i];
    auto src = pdb.embedded_source(static_cast<std::uint32_t>(i + 1));
    if (!src) return report(src.error());
    out += std::to_string(i + 1) + '\t' + d.name + '\t' + guid_to_text(d.language) + '\t' +
           guid_to_text(d.hash_algorithm) + '\t' + hex_lower(d.hash) + '\t' +
           std::to_string(*src ? static_cast<long long>((*src)->size()) : -1) + '\n';
  }
  write_out(out);
  return 0;
}

// One JSON object per line (JSON Lines): stream-friendly for large PDBs and caches.
void append_point_json(std::string& buf, std::uint32_t token, std::uint32_t il, std::uint32_t line,
                       std::uint32_t column, std::uint32_t end_line, std::uint32_t end_column,
                       bool hidden, std::string_view path) {
  nlohmann::ordered_json j = {{"method", format("0x%08x", token)}, {"il_offset", il},
                              {"file", std::string(path)},         {"line", line},
                              {"column", column},                  {"end_line", end_line},
                              {"end_column", end_column},          {"hidden", hidden}};
  buf += j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  buf += '\n';
}

int dump_points_json(const PortablePdb& pdb, const std::vector<std::string>& names) {
  const bool ok = write_points(
      pdb,
      [&names](std::string& buf, std::uint32_t token, const SequencePoint& p) {
        append_point_json(buf, token, p.il_offset, p.start_line, p.start_column, p.end_line,
                          p.end_column, p.hidden(), names[p.document - 1]);
      },
      write_out, [](const Error& e) { std::fprintf(stderr, "ilmap: error: %s\n", e.message.c_str()); });
  return ok ? 0 : 2;
}

int dump_cache(const DumpOptions& o) {
  auto cache = Cache::open(o.input);
  if (!cache) return report(cache.error());
  if (o.documents) {
    // Same columns as for a PDB (rid, path, language GUID, hash algorithm GUID, hash, embedded
    // source size or -1); the size is known only for caches compiled with --embed-sources.
    auto details = cache->details();
    if (!details) return report(Error{details.error().code, o.input + ": " + details.error().message});
    const auto* d = static_cast<const fb::Details*>(*details);
    std::vector<long long> embedded(cache->document_count(), -1);
    if (d->embedded_sources())
      for (const fb::EmbeddedSource* e : *d->embedded_sources())
        if (e->document() < embedded.size()) embedded[e->document()] = static_cast<long long>(e->uncompressed_size());
    nlohmann::ordered_json arr = nlohmann::ordered_json::array();
    std::string out;
    for (std::uint32_t i = 0; i < cache->document_count(); ++i) {
      const fb::DocumentDetails* dd = d->documents() && i < d->documents()->size() ? d->documents()->Get(i) : nullptr;
      const std::string path(cache->document_path(i)), url(cache->document_source_url(i));
      const std::string lang = guid_to_text(guid_of(dd ? dd->language_guid() : nullptr));
      const std::string alg = guid_to_text(guid_of(dd ? dd->hash_algorithm_guid() : nullptr));
      const std::string hash = hex_of(dd ? dd->hash() : nullptr);
      if (o.json)
        arr.push_back({{"rid", i + 1}, {"path", path}, {"language", lang}, {"hash_algorithm", alg},
                       {"hash", hash}, {"embedded_source", embedded[i]},
                       {"url", url.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(url)}});
      else
        out += std::to_string(i + 1) + '\t' + path + '\t' + lang + '\t' + alg + '\t' + hash + '\t' +
               std::to_string(embedded[i]) + '\n';
    }
    if (o.json) out = arr.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    write_out(out);
    return 0;
  }
  bool ok = true;
  std::vector<CachePoint> pts;
  std::string buf;
  for (std::uint32_t rid = 1; rid <= cache->method_count(); ++rid) {
    pts.clear();
    if (Status s = cache->points(rid, pts); !s) {
      std::fprintf(stderr, "ilmap: error: %s: %s\n", o.input.c_str(), s.message().c_str());
      ok = false;
      continue;
    }
    for (const CachePoint& p : pts) {
      const std::string_view path = cache->document_path(p.document);
      if (o.json) {
        append_point_json(buf, 0x06000000u | rid, p.il_offset, p.start_line, p.start_column,
                          p.end_line, p.end_column, p.hidden, path);
      } else {
        append_listing_line(buf, 0x06000000u | rid, p.il_offset, p.start_line, p.start_column,
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

bool is_cache_file(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return false;
  std::uint8_t head[8] = {};
  const std::size_t n = std::fread(head, 1, sizeof head, f);
  std::fclose(f);
  return sniff_input({head, n}) == InputKind::kCache;
}

int run_dump(const DumpOptions& o) {
  if (is_cache_file(o.input)) return dump_cache(o);
  auto in = open_debug_input(o.input);
  if (!in) return report(in.error());
  if (const Status& cs = (*in)->checksum_status; !cs.ok())
    std::fprintf(stderr, "ilmap: warning: %s\n", cs.message().c_str());
  const PortablePdb& pdb = *(*in)->pdb;
  auto docs = pdb.documents();
  if (!docs) return report(Error{docs.error().code, o.input + ": " + docs.error().message});
  if (o.documents) return dump_documents(pdb, *docs, o.json);
  std::vector<std::string> names;
  names.reserve(docs->size());
  for (Document& d : *docs) names.push_back(std::move(d.name));
  if (o.json) return dump_points_json(pdb, names);
  bool ok = write_listing(pdb, names, write_out, [&](const Error& e) {
    std::fprintf(stderr, "ilmap: error: %s: %s\n", o.input.c_str(), e.message.c_str());
  });
  return ok ? 0 : 2;
}

}  // namespace

void register_dump(CLI::App& app, int& rc) {
  auto o = std::make_shared<DumpOptions>();
  CLI::App* cmd = app.add_subcommand(
      "dump", "Print the sequence points (canonical listing) or the documents of a PDB, a PE or\n"
      "a cache. The listing of a cache equals the listing of the PDB it was compiled from.");
  cmd->add_option("INPUT", o->input, "A .pdb, a .dll/.exe with an embedded or sibling PDB, or an ilmap cache")
      ->required();
  auto* sp = cmd->add_flag("--sequence-points", o->sequence_points,
                           "Canonical listing: token, IL offset, path, span (default)");
  auto* docs = cmd->add_flag("--documents", o->documents,
                             "Document table: rid, path, language, hash algorithm, hash, "
                             "embedded source size (-1 if none)");
  sp->excludes(docs);
  cmd->add_flag("--json", o->json, "JSON output (JSON Lines for sequence points)");
  cmd->callback([o, &rc] { rc = run_dump(*o); });
}

}  // namespace ilmap::cli
