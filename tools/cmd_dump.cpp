// cmd_dump.cpp - `ilmap dump INPUT [--sequence-points|--documents] [--json]`.
//
// Prints the canonical sequence-point listing (DESIGN.md) or the document table of a PDB or PE.
// A malformed blob of one method is reported on stderr with its row; the other methods are
// still printed and the exit code is 2 at the end.
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "Commands.h"
#include "DebugInput.h"
#include "Guids.h"
#include "Listing.h"

namespace ilmap::cli {
namespace {

struct DumpOptions {
  std::string input;
  bool sequence_points = false;
  bool documents = false;
  bool json = false;
};

std::string hex(std::span<const std::uint8_t> b) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string s;
  s.reserve(b.size() * 2);
  for (std::uint8_t x : b) {
    s.push_back(kHex[x >> 4]);
    s.push_back(kHex[x & 15]);
  }
  return s;
}

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
                     {"hash", hex(d.hash)},
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
           guid_to_text(d.hash_algorithm) + '\t' + hex(d.hash) + '\t' +
           std::to_string(*src ? static_cast<long long>((*src)->size()) : -1) + '\n';
  }
  write_out(out);
  return 0;
}

int dump_points_json(const PortablePdb& pdb, const std::vector<std::string>& names) {
  // One JSON object per line (JSON Lines): stream-friendly for large PDBs.
  bool ok = true;
  std::vector<SequencePoint> points;
  std::string buf;
  for (std::uint32_t rid = 1; rid <= pdb.method_count(); ++rid) {
    points.clear();
    if (Status s = pdb.sequence_points(rid, points); !s) {
      std::fprintf(stderr, "ilmap: error: %s\n", s.message().c_str());
      ok = false;
      continue;
    }
    sort_points_by_offset(points);
    for (const SequencePoint& p : points) {
      nlohmann::ordered_json j = {{"method", format("0x%08x", 0x06000000u | rid)},
                                  {"il_offset", p.il_offset},
                                  {"file", names[p.document - 1]},
                                  {"line", p.start_line},
                                  {"column", p.start_column},
                                  {"end_line", p.end_line},
                                  {"end_column", p.end_column},
                                  {"hidden", p.hidden()}};
      buf += j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
      buf += '\n';
    }
    if (buf.size() > (1u << 16)) {
      write_out(buf);
      buf.clear();
    }
  }
  write_out(buf);
  return ok ? 0 : 2;
}

int run_dump(const DumpOptions& o) {
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
      "dump", "Print the sequence points (canonical listing) or the documents of a PDB or PE");
  cmd->add_option("INPUT", o->input, "A .pdb, or a .dll/.exe with an embedded or sibling PDB")
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
