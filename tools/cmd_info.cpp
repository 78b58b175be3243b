// cmd_info.cpp - `ilmap info INPUT [--json]`: identity, symbol-store keys, table row counts,
// stream sizes and content counts of a .pdb or a .dll/.exe (and its matched PDB).
//
// The facts are gathered once into an ordered JSON object; text output prints it as aligned
// `key: value` lines (arrays flattened as `name[i].field`; values from the file escaped with
// escape_text; null printed as `none`). Keys shared with the SRM oracle's `info`
// (tests/oracle/README.md) use the same names and value formats so tests can compare them.
//
// A PE whose PDB cannot be read (missing, mismatched, over --max-decompressed, corrupt) still
// gets its PE identity printed, with `pdb_error` saying why the PDB part is missing; the error
// also goes to stderr and sets the exit code (2 bad input, 3 not found or mismatched).
#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "tools/Commands.h"
#include "decode/DebugInput.h"
#include "decode/SymstoreKeys.h"
#include "decode/MetadataSchema.h"
#include "decode/PeFile.h"

namespace ilmap::cli {
namespace {

using Json = nlohmann::ordered_json;

struct InfoOptions {
  std::string input;
  bool json = false;
  std::uint64_t max_decompressed = kDefaultMaxDecompressed;
};

std::string hex32(std::uint32_t v) { return format("0x%08x", v); }

void add_pe(const DebugInput& in, Json& j) {
  const PeInfo& pe = *in.pe;
  j["kind"] = "pe";
  j["pe_machine"] = format("0x%04x", pe.machine);
  j["pe_format"] = pe.pe32_plus ? "PE32+" : "PE32";
  j["pe_timestamp"] = hex32(pe.timestamp);
  j["pe_size_of_image"] = format("0x%x", pe.size_of_image);
  j["pe_code_id"] = pe_code_id(pe.timestamp, pe.size_of_image);
  j["pe_ssqp_key"] = ssqp_pe_key(in.path, pe.timestamp, pe.size_of_image);
  j["pe_reproducible"] = pe.reproducible;
  j["pe_managed"] = pe.managed;
  if (pe.managed) {
    j["mvid"] = guid_to_text(pe.mvid);
    j["methoddef_rows"] = pe.methoddef_rows;
    j["pe_entry_point"] = hex32(pe.cli_entry_point);
    j["pe_debug_tables"] = pe.debug_tables_in_metadata;
  }
  if (const CodeViewEntry* cv = in.matched_codeview()) {
    j["codeview_guid"] = guid_to_text(cv->guid);
    j["codeview_age"] = cv->age;
    j["codeview_path"] = cv->path;
    j["codeview_debug_id"] = cv->portable() ? portable_debug_id(cv->guid, cv->stamp) : windows_debug_id(cv->guid, cv->age);
    j["codeview_ssqp_key"] = cv->portable() ? ssqp_portable_pdb_key(cv->path, cv->guid)
                                            : ssqp_windows_pdb_key(cv->path, cv->guid, cv->age);
  }
  Json cvs = Json::array();
  for (const CodeViewEntry& cv : pe.codeview) {
    Json e;
    e["entry"] = cv.index;
    e["portable"] = cv.portable();
    e["guid"] = guid_to_text(cv.guid);
    e["stamp"] = hex32(cv.stamp);
    e["age"] = cv.age;
    e["path"] = cv.path;
    e["version"] = format("0x%04x.0x%04x", cv.major, cv.minor);
    cvs.push_back(std::move(e));
  }
  j["codeview"] = std::move(cvs);
  j["embedded_pdb"] = pe.embedded_pdb.has_value() || !pe.embedded_pdb_error.empty();
  if (pe.embedded_pdb) {
    j["embedded_pdb_compressed_size"] = pe.embedded_pdb->compressed_size;
    j["embedded_pdb_size"] = pe.embedded_pdb->uncompressed_size;
  }
  Json sums = Json::array();
  for (std::size_t i = 0; i < pe.checksums.size(); ++i) {
    Json e;
    e["algorithm"] = pe.checksums[i].algorithm;
    e["hash"] = hex_lower(pe.checksums[i].hash);
    if (i < pe.checksum_each.size()) e["verdict"] = checksum_verdict_name(pe.checksum_each[i]);
    sums.push_back(std::move(e));
  }
  j["checksums"] = std::move(sums);
  j["checksum_verdict"] = in.has_pdb() ? checksum_verdict_name(pe.checksum_verdict) : "not-checked";
  j["symbol_checksum"] = symbol_checksum_header(pe.checksums);
  j["pdb_source"] = pdb_source_name(in.source);
  if (!in.pdb_path.empty()) j["pdb_path"] = in.pdb_path;
  for (std::size_t i = 0; i < in.notes.size(); ++i) j["note"][i] = in.notes[i];
}

Status add_pdb(const DebugInput& in, Json& j) {
  const PortablePdb& pdb = *in.pdb;
  const Metadata& md = pdb.metadata();
  if (pdb.has_pdb_stream()) {
    const PdbId id = pdb.id();
    j["pdb_id_guid"] = guid_to_text(id.guid());
    j["pdb_id_stamp"] = hex32(id.stamp());
    j["pdb_id"] = hex_lower(id.bytes);
    j["debug_id"] = portable_debug_id(id.guid(), id.stamp());
    // The key's file name: the CodeView path for a PE (what symstore indexes), else the file.
    const CodeViewEntry* cv = in.matched_codeview();
    j["ssqp_key"] = ssqp_portable_pdb_key(cv ? cv->path : in.pdb_path, id.guid());
    j["entry_point"] = hex32(pdb.entry_point());
  }
  for (unsigned t = kFirstDebugTable; t < kTableSlots; ++t)
    j[std::string("rows_") + table_name(t)] = md.rows(t);
  for (const char* s : {"#Pdb", "#~", "#Strings", "#US", "#GUID", "#Blob"}) {
    const std::string name = md.uncompressed_tables() && std::string_view(s) == "#~" ? "#-" : s;
    j["stream_" + name] = md.stream_size(s);
  }

  auto cdis = pdb.custom_debug_information();
  if (!cdis) return cdis.error();
  long long source_link = -1;
  unsigned embedded = 0;
  for (const CdiRow& r : *cdis) {
    if (r.kind == guids::kCdiSourceLink && r.parent_tag == kHcdiModule && source_link < 0) {
      auto blob = md.blob(r.value_blob);
      if (!blob) return blob.error();
      source_link = static_cast<long long>(blob->size());
    } else if (r.kind == guids::kCdiEmbeddedSource && r.parent_tag == kHcdiDocument) {
      ++embedded;
    }
  }
  j["sourcelink"] = source_link < 0 ? Json(nullptr) : Json(source_link);  // text: none
  j["embedded_sources"] = embedded;
  j["documents"] = pdb.document_count();

  std::uint64_t points = 0, hidden = 0;
  std::vector<SequencePoint> buf;
  for (std::uint32_t rid = 1; rid <= pdb.method_count(); ++rid) {
    buf.clear();
    if (Status s = pdb.sequence_points(rid, buf); !s) return s;
    points += buf.size();
    for (const SequencePoint& p : buf) hidden += p.hidden();
  }
  j["sequence_points"] = points;
  j["hidden_sequence_points"] = hidden;
  return {};
}

// A Windows PDB: the container (MSF 7.00: block size and count; MSFZ: chunks and fragments;
// streams, named streams), the
// identity (info stream GUID and age, the DBI age a PE must carry, debug id, SSQP key), the
// modules, and the content counts as for a Portable PDB.
void add_msf(const DebugInput& in, Json& j) {
  const msf::MsfPdb& pdb = *in.msf;
  j["container"] = pdb.msf().container_name();
  if (const msf::MsfzFile* z = pdb.msf().msfz()) {
    j["msfz_chunk_count"] = z->chunk_count();
    j["msfz_fragment_count"] = z->fragment_count();
  } else {
    j["msf_block_size"] = pdb.msf().block_size();
    j["msf_block_count"] = pdb.msf().block_count();
  }
  j["msf_stream_count"] = pdb.msf().stream_count();
  std::vector<msf::NamedStream> named = pdb.info().named_streams();
  std::sort(named.begin(), named.end(), [](const msf::NamedStream& a, const msf::NamedStream& b) { return a.name < b.name; });
  Json ns = Json::array();
  for (const msf::NamedStream& n : named) ns.push_back({{"name", n.name}, {"stream", n.stream}, {"size", pdb.msf().stream_size(n.stream)}});
  j["named_streams"] = std::move(ns);
  j["pdb_guid"] = guid_to_text(pdb.guid());
  j["pdb_info_age"] = pdb.info().age();
  j["pdb_age"] = pdb.age();
  j["debug_id"] = windows_debug_id(pdb.guid(), pdb.age());
  const CodeViewEntry* cv = in.matched_codeview();
  j["ssqp_key"] = pdb.msf().is_msfz() ? ssqp_msfz_pdb_key(cv ? cv->path : in.pdb_path, pdb.guid(), pdb.age())
                                       : ssqp_windows_pdb_key(cv ? cv->path : in.pdb_path, pdb.guid(), pdb.age());
  j["dbi_modules"] = pdb.dbi().modules().size();
  j["sourcelink"] = pdb.source_link() ? Json(pdb.source_link()->size()) : Json(nullptr);
  j["srcsrv"] = pdb.source_server() ? Json(pdb.source_server()->size()) : Json(nullptr);
  j["documents"] = pdb.documents().size();
  j["methods"] = pdb.methods().size();
  std::uint64_t hidden = 0;
  for (const msf::MsfMethod& m : pdb.methods())
    for (const SequencePoint& p : m.points) hidden += p.hidden();
  j["sequence_points"] = pdb.point_count();
  j["hidden_sequence_points"] = hidden;
}

std::string scalar_text(const Json& v) {
  if (v.is_string()) return escape_text(v.get<std::string>());
  if (v.is_null()) return "none";
  return v.dump(-1, ' ', false, Json::error_handler_t::replace);
}

void flatten(const std::string& prefix, const Json& v,
             std::vector<std::pair<std::string, std::string>>& out) {
  if (v.is_object()) {
    for (const auto& [k, x] : v.items()) flatten(prefix.empty() ? k : prefix + "." + k, x, out);
  } else if (v.is_array()) {
    if (v.empty()) out.emplace_back(prefix, "(none)");
    for (std::size_t i = 0; i < v.size(); ++i)
      flatten(prefix + "[" + std::to_string(i) + "]", v[i], out);
  } else {
    out.emplace_back(prefix, scalar_text(v));
  }
}

}  // namespace

void print_info(const nlohmann::ordered_json& j, bool json) {
  std::string out;
  if (json) {
    out = j.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
  } else {
    std::vector<std::pair<std::string, std::string>> lines;
    flatten("", j, lines);
    std::size_t width = 0;
    for (const auto& l : lines) width = std::max(width, l.first.size());
    for (const auto& [k, v] : lines) out += k + ":" + std::string(width - k.size() + 1, ' ') + v + "\n";
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
}

namespace {

// The PE part alone, for a PE whose PDB could not be opened (`why`): the PE is parsed again
// with its embedded PDB entry made non-fatal (nothing is inflated). False when the PE itself
// does not parse.
bool add_pe_only(const std::string& path, std::span<const std::uint8_t> bytes, const PeOptions& options,
                 const Error& why, Json& j) {
  PeOptions po = options;
  po.embedded_pdb_errors_fatal = false;
  auto pe = PeFile::parse(bytes, po);
  if (!pe) return false;
  DebugInput d;
  d.path = path;
  d.source = PdbSource::kNone;
  d.pe = pe->info();
  add_pe(d, j);
  j["pdb_error"] = why.message;
  return true;
}

int run_info(const InfoOptions& o) {
  auto head = FileBytes::open(o.input);
  if (!head) return report_error(head.error());
  const InputKind kind = sniff_input(head->bytes());
  if (kind == InputKind::kCache) return info_cache(o.input, o.json);
  DebugInputOptions options;
  options.allow_missing_pdb = true;
  options.windows_pdbs = true;
  options.pe.max_embedded_pdb = static_cast<std::uint32_t>(std::min<std::uint64_t>(o.max_decompressed, UINT32_MAX));
  auto in = open_debug_input(o.input, options);
  if (!in) {
    Json j;
    j["input"] = o.input;
    if (kind == InputKind::kPe && add_pe_only(o.input, head->bytes(), options.pe, in.error(), j)) print_info(j, o.json);
    return report_error(in.error());
  }
  const DebugInput& d = **in;
  Json j;
  j["input"] = d.path;
  j["kind"] = d.msf ? "windows-pdb" : "portable-pdb";
  if (d.pe) add_pe(d, j);
  if (d.msf) {
    add_msf(d, j);
  } else if (d.pdb) {
    if (Status s = add_pdb(d, j); !s)
      return report_error(Error{s.code(), d.pdb_path.empty() ? d.path + ": embedded PDB: " + s.message()
                                                              : d.pdb_path + ": " + s.message()});
  } else {
    j["pdb_error"] = d.pdb_status.message();
  }
  print_info(j, o.json);
  if (!d.has_pdb()) return report_error(d.pdb_status.error());
  return 0;
}

}  // namespace

void register_info(CLI::App& app, int& rc) {
  auto o = std::make_shared<InfoOptions>();
  CLI::App* cmd = app.add_subcommand(
      "info", "Print the identity (PDB id, CodeView, MVID, symbol-store keys, checksums), table "
              "row counts, stream sizes and content counts of a PDB or PE; for a cache, its identity, "
              "section sizes and bytes per sequence point. When a PE's PDB cannot be read, the PE "
              "part is printed with pdb_error and the exit code is that of the error (2 or 3).");
  cmd->add_option("INPUT", o->input, "A .pdb, a .dll/.exe, or an ilmap cache")->required();
  cmd->add_flag("--json", o->json, "Print one JSON object instead of aligned key: value lines");
  add_max_decompressed(cmd, o->max_decompressed);
  cmd->callback([o, &rc] {
    std::fflush(stdout);
    rc = run_info(*o);
  });
}

}  // namespace ilmap::cli
