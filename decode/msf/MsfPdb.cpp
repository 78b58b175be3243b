// MsfPdb.cpp - from module streams to documents and per-method sequence points (rules in
// MsfPdb.h), and the canonical listing.
#include "decode/msf/MsfPdb.h"
#include "support/Ascii.h"

#include <algorithm>
#include <cstring>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "support/ByteCursor.h"
#include "decode/Listing.h"
#include "decode/msf/ModuleStream.h"
#include "decode/msf/MsfFormat.h"

namespace ilmap::msf {

namespace {

Guid hash_algorithm_for(std::uint8_t kind) {
  static constexpr Guid kMd5 = guid_from_text("406ea660-64cf-4c82-b6f0-42d48172a799");
  switch (kind) {
    case kChecksumMd5: return kMd5;
    case kChecksumSha1: return guids::kHashSha1;
    case kChecksumSha256: return guids::kHashSha256;
    default: return Guid{};
  }
}

}  // namespace

class MsfPdbBuilder {
 public:
  explicit MsfPdbBuilder(MsfPdb& pdb) : pdb_(pdb) {}

  Status run() {
    const MsfFile& msf = pdb_.msf_;
    // Named streams by lower-cased name (the /src/files/<name> lookups are per document).
    for (const NamedStream& n : pdb_.info_.named_streams()) named_.emplace(ascii_lower(n.name), n.stream);
    if (auto it = named_.find("/names"); it != named_.end()) {
      auto t = StringTable::parse(msf, it->second);
      if (!t) return t.error();
      names_ = std::move(*t);
    }
    const std::pair<const char*, std::optional<std::vector<std::uint8_t>>*> raw[] = {
        {"srcsrv", &pdb_.srcsrv_}, {"sourcelink", &pdb_.sourcelink_}};
    for (const auto& [name, out] : raw) {
      auto it = named_.find(name);
      if (it == named_.end()) continue;
      auto s = msf.read_stream(it->second);
      if (!s)
        return Status(Errc::kMalformed, format("named stream \"%s\": %s", name,
                                               s.error().message.c_str()));
      *out = std::move(*s);
    }
    if (Status s = load_rid_map(); !s) return s;
    const auto& mods = pdb_.dbi_.modules();
    // Each module has its own stream: modules sharing one would make the work grow with
    // modules x stream size for a few bytes of input.
    std::unordered_map<std::uint16_t, std::size_t> stream_owner;
    for (std::size_t i = 0; i < mods.size(); ++i) {
      if (mods[i].symbol_stream == kNoStream16) continue;
      auto [it, fresh] = stream_owner.try_emplace(mods[i].symbol_stream, i);
      if (!fresh)
        return Status(Errc::kMalformed,
                      format("DBI stream %s: module %zu (%s) names symbol stream %u, already module "
                             "%zu's", msf.where(kStreamDbi, mods[i].record_offset).c_str(), i,
                             mods[i].name.c_str(), mods[i].symbol_stream, it->second));
    }
    for (std::size_t i = 0; i < mods.size(); ++i) {
      auto m = parse_module_stream(msf, mods[i], i);
      if (!m) return m.error();
      if (Status s = add_module(*m, static_cast<std::uint32_t>(i)); !s) return s;
    }
    finish();
    return {};
  }

 private:
  // "module 2 (C) symbol stream 8 offset 0x40 (file offset 0x1040)".
  std::string at(std::uint32_t module, std::size_t pos) const {
    const DbiModule& m = pdb_.dbi_.modules()[module];
    return format("module %u (%s) symbol %s", module, m.name.c_str(),
                  pdb_.msf_.where(m.symbol_stream, pos).c_str());
  }

  Status load_rid_map() {
    const std::uint16_t sn = pdb_.dbi_.token_rid_map_stream();
    if (sn == 0 || sn == kNoStream16) return {};
    auto s = pdb_.msf_.read_stream(sn);
    if (!s)
      return Status(Errc::kMalformed, format("DBI optional debug header: token rid map: %s",
                                             s.error().message.c_str()));
    rid_map_.resize(s->size() / 4);
    std::memcpy(rid_map_.data(), s->data(), rid_map_.size() * 4);
    has_rid_map_ = true;
    return {};
  }

  Status map_token(std::uint32_t& token, const ManagedProc& p, std::uint32_t module) const {
    if (!has_rid_map_) return {};
    const std::uint32_t rid = token & 0xFFFFFFu;
    if (rid >= rid_map_.size())
      return Status(Errc::kMalformed,
                    format("%s: S_MANPROC token 0x%08x is past the %zu-entry token rid map",
                           at(module, p.record_offset).c_str(), token, rid_map_.size()));
    token = 0x06000000u | rid_map_[rid];
    return {};
  }

  // Document number (1-based) for a module's file id, creating the document on first use.
  Result<std::uint32_t> document(const ModuleLines& m, std::uint32_t file_id, std::uint32_t module,
                                 std::size_t pos) {
    const FileChecksum* f = m.checksum(file_id);
    if (!f)
      return Error{Errc::kMalformed,
                   format("%s: DEBUG_S_LINES file id 0x%x is not an entry of the module's "
                          "DEBUG_S_FILECHKSMS", at(module, pos).c_str(), file_id)};
    if (!names_)
      return Error{Errc::kMalformed, format("module %u DEBUG_S_FILECHKSMS entry 0x%x: the PDB has "
                                            "no /names stream for its name", module, file_id)};
    // Every method's line block names its file: the /names offset seen before gives the document
    // without building and hashing the path again (one allocation per block otherwise).
    if (auto known = doc_by_name_offset_.find(f->name_offset); known != doc_by_name_offset_.end())
      return known->second;
    auto name = names_->at(f->name_offset);
    if (!name)
      return Error{Errc::kMalformed,
                   format("module %u DEBUG_S_FILECHKSMS entry 0x%x: name offset 0x%x is outside "
                          "/names (stream %u) or unterminated", module, file_id, f->name_offset,
                          names_->stream())};
    auto [it, fresh] = doc_ids_.try_emplace(std::string(*name), 0);
    if (!fresh) return doc_by_name_offset_[f->name_offset] = it->second;
    MsfDocument d;
    d.name = std::string(*name);
    d.checksum_kind = f->kind;
    d.hash = f->bytes;
    d.hash_algorithm = hash_algorithm_for(f->kind);
    if (Status s = read_source_file_info(d); !s) return s.error();
    pdb_.documents_.push_back(std::move(d));
    it->second = static_cast<std::uint32_t>(pdb_.documents_.size());
    return doc_by_name_offset_[f->name_offset] = it->second;
  }

  // The document facts of a /src/files/<name> stream, read once per stream (names that differ
  // in case share one).
  struct SourceFileInfo {
    Guid language{}, vendor{}, document_type{}, algorithm{};
    std::vector<std::uint8_t> checksum;
  };
  Result<const SourceFileInfo*> source_file_info(const std::string& name) {
    auto it = named_.find("/src/files/" + ascii_lower(name));
    if (it == named_.end()) return static_cast<const SourceFileInfo*>(nullptr);
    const std::uint32_t stream = it->second;
    if (auto c = file_infos_.find(stream); c != file_infos_.end()) return &c->second;
    auto s = pdb_.msf_.read_stream(stream);
    if (!s)
      return Error{Errc::kMalformed, format("named stream \"/src/files/%s\": %s", name.c_str(),
                                            s.error().message.c_str())};
    ByteCursor c(*s);
    SourceFileInfoHeader h;
    std::span<const std::uint8_t> sum;
    if (!c.read(h) || h.checksum_size < 0 ||
        !c.bytes(static_cast<std::uint32_t>(h.checksum_size), sum))
      return Error{Errc::kMalformed,
                   format("named stream \"/src/files/%s\" %s: document info of %zu bytes is "
                          "truncated or its checksum size is out of range", name.c_str(),
                          pdb_.msf_.where(stream, 0).c_str(), s->size())};
    SourceFileInfo info;
    std::memcpy(info.language.data(), h.language, 16);
    std::memcpy(info.vendor.data(), h.vendor, 16);
    std::memcpy(info.document_type.data(), h.document_type, 16);
    std::memcpy(info.algorithm.data(), h.checksum_algorithm, 16);
    info.checksum.assign(sum.begin(), sum.end());
    return &file_infos_.emplace(stream, std::move(info)).first->second;
  }

  Status read_source_file_info(MsfDocument& d) {
    auto info = source_file_info(d.name);
    if (!info) return info.error();
    if (!*info) return {};
    const SourceFileInfo& i = **info;
    d.language = i.language;
    d.vendor = i.vendor;
    d.document_type = i.document_type;
    if (i.algorithm != Guid{}) d.hash_algorithm = i.algorithm;
    // The managed writer keeps the checksum here and leaves the DEBUG_S_FILECHKSMS entry empty.
    if (d.hash.empty()) d.hash = i.checksum;
    return {};
  }

  Status add_module(const ModuleLines& m, std::uint32_t module) {
    // Procedures in (segment, offset, token) order, with their method entries.
    struct Proc {
      std::uint16_t segment;
      std::uint32_t offset, length, token;
      std::size_t method;  // index into pdb_.methods_
      bool has_lines;
    };
    std::vector<Proc> procs;
    procs.reserve(m.procs.size());
    for (const ManagedProc& p : m.procs) {
      std::uint32_t token = p.token;
      if (Status s = map_token(token, p, module); !s) return s;
      MsfMethod meth;
      meth.token = token;
      meth.offset = p.offset;
      meth.length = p.length;
      meth.segment = p.segment;
      meth.module = module;
      pdb_.methods_.push_back(std::move(meth));
      procs.push_back({p.segment, p.offset, p.length, token, pdb_.methods_.size() - 1, false});
    }
    auto key = [](const Proc& p) { return std::make_tuple(p.segment, p.offset, p.token); };
    std::stable_sort(procs.begin(), procs.end(),
                     [&](const Proc& a, const Proc& b) { return key(a) < key(b); });
    auto addr_less = [](const Proc& p, std::pair<std::uint16_t, std::uint32_t> a) {
      return std::make_pair(p.segment, p.offset) < a;
    };

    for (const LinesSubsection& s : m.lines) {
      const auto addr = std::make_pair(s.segment, s.offset);
      auto first = std::lower_bound(procs.begin(), procs.end(), addr, addr_less);
      Proc* owner = nullptr;
      for (auto it = first; it != procs.end() && it->segment == s.segment && it->offset == s.offset; ++it)
        if (!it->has_lines) { owner = &*it; break; }
      if (!owner) {
        // The procedure starting last at or before the subsection, if it contains it.
        auto it = std::upper_bound(procs.begin(), procs.end(), addr,
                                   [](std::pair<std::uint16_t, std::uint32_t> a, const Proc& p) {
                                     return a < std::make_pair(p.segment, p.offset);
                                   });
        if (it != procs.begin()) {
          --it;
          if (it->segment == s.segment && s.offset - it->offset < it->length) owner = &*it;
        }
      }
      if (!owner) continue;  // not managed code
      owner->has_lines = true;
      const std::uint32_t base = s.offset - owner->offset;
      auto& points = pdb_.methods_[owner->method].points;
      std::size_t count = points.size();
      for (const LineFileBlock& b : s.blocks) count += b.count;
      points.reserve(count);
      for (const LineFileBlock& b : s.blocks) {
        auto doc = document(m, b.file_id, module, s.stream_offset);
        if (!doc) return doc.error();
        for (std::uint32_t i = 0; i < b.count; ++i) {
          const LineRecord& r = m.records[b.first + i];
          const std::uint64_t il = std::uint64_t(base) + r.offset;
          if (il > 0xFFFFFFFFu)
            return Status(Errc::kMalformed,
                          format("%s: DEBUG_S_LINES IL offset 0x%llx overflows",
                                 at(module, s.stream_offset).c_str(),
                                 static_cast<unsigned long long>(il)));
          SequencePoint p;
          p.il_offset = static_cast<std::uint32_t>(il);
          p.start_line = r.start_line;
          p.end_line = r.end_line;
          p.start_column = r.start_column;
          p.end_column = r.end_column;
          p.document = *doc;
          points.push_back(p);
        }
      }
    }
    return {};
  }

  // Token order; repeated tokens merged (points concatenated in PDB order).
  void finish() {
    auto& ms = pdb_.methods_;
    std::stable_sort(ms.begin(), ms.end(),
                     [](const MsfMethod& a, const MsfMethod& b) { return a.token < b.token; });
    std::vector<MsfMethod> out;
    out.reserve(ms.size());
    for (MsfMethod& m : ms) {
      if (!out.empty() && out.back().token == m.token) {
        auto& dst = out.back().points;
        dst.insert(dst.end(), m.points.begin(), m.points.end());
      } else {
        out.push_back(std::move(m));
      }
    }
    ms = std::move(out);
    for (const MsfMethod& m : ms) pdb_.point_count_ += m.points.size();
  }

  MsfPdb& pdb_;
  std::unordered_map<std::string, std::uint32_t> named_;
  std::optional<StringTable> names_;
  std::vector<std::uint32_t> rid_map_;
  bool has_rid_map_ = false;
  std::unordered_map<std::string, std::uint32_t> doc_ids_;
  std::unordered_map<std::uint32_t, std::uint32_t> doc_by_name_offset_;  // /names offset -> document
  std::unordered_map<std::uint32_t, SourceFileInfo> file_infos_;  // by stream
};

Result<MsfPdb> MsfPdb::parse(std::span<const std::uint8_t> bytes) {
  MsfPdb pdb;
  auto msf = MsfFile::parse(bytes);
  if (!msf) return msf.error();
  pdb.msf_ = std::move(*msf);
  auto info = PdbInfoStream::parse(pdb.msf_);
  if (!info) return info.error();
  pdb.info_ = std::move(*info);
  auto dbi = DbiStream::parse(pdb.msf_);
  if (!dbi) return dbi.error();
  pdb.dbi_ = std::move(*dbi);
  MsfPdbBuilder b(pdb);
  if (Status s = b.run(); !s) return s.error();
  return pdb;
}

std::string msf_listing(const MsfPdb& pdb) {
  std::string out;
  std::vector<SequencePoint> pts;
  for (const MsfMethod& m : pdb.methods()) {
    pts = m.points;
    sort_points_by_offset(pts);
    for (const SequencePoint& p : pts)
      append_listing_line(out, m.token, p, pdb.documents()[p.document - 1].name);
  }
  return out;
}

}  // namespace ilmap::msf
