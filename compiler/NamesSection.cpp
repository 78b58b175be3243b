// NamesSection.cpp - ModuleNames (compiler/names) to the Names table of a cache (SPEC.md 3.6).
#include "NamesSection.h"

#include <xxhash.h>
#include <zstd.h>

#include <algorithm>
#include <string_view>
#include <unordered_map>

#include "PeFile.h"
#include "ilmap_format.h"
#include "names/MethodNames.h"

namespace ilmap {
namespace {

namespace f = ilmap::disk;

constexpr int kNamesZstdLevel = 1;

// Texts in one byte vector, each distinct text stored once (first occurrence order, so the bytes
// depend only on the input).
class TextPool {
 public:
  explicit TextPool(std::vector<std::uint8_t>& bytes) : bytes_(bytes) {}
  // Offset of `s` in the pool; false when the pool would pass 4 GiB.
  bool add(std::string_view s, std::uint32_t& offset) {
    auto it = index_.find(s);
    if (it != index_.end()) {
      offset = it->second;
      return true;
    }
    if (bytes_.size() + s.size() > UINT32_MAX) return false;
    offset = static_cast<std::uint32_t>(bytes_.size());
    bytes_.insert(bytes_.end(), s.begin(), s.end());
    index_.emplace(std::string(s), offset);
    return true;
  }

 private:
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::vector<std::uint8_t>& bytes_;
  std::unordered_map<std::string, std::uint32_t, Hash, std::equal_to<>> index_;
};

// "NS.Outer`1.Inner.M": the CoreCLR declaring type, '.', the method name (ModuleNames::find's key).
std::string own_key(const names::ModuleNames& mn, const names::MethodName& m) {
  std::string key = mn.coreclr_type(m.type_rid);
  if (!key.empty()) key += '.';
  key += m.name;
  return key;
}

}  // namespace

Result<NamesSection> build_names_section(const Metadata& md) {
  auto built = names::ModuleNames::build(md);
  if (!built) return built.error();
  const names::ModuleNames& mn = *built;
  NamesSection out;
  out.mvid = mn.mvid();
  out.assembly_name = std::string(mn.assembly_name());
  out.has_assembly = md.rows(kAssembly) >= 1;
  out.module_name = std::string(mn.module_name());
  TextPool pool(out.strings);
  const Error too_large{Errc::kTooLarge, "method names: the texts exceed 4 GiB"};
  std::vector<std::uint32_t> key_offset(mn.method_count()), key_length(mn.method_count());
  out.methods.reserve(mn.method_count());
  for (const names::MethodName& m : mn.methods()) {
    const std::string coreclr = mn.coreclr_frame(m.token), mono = mn.mono_frame(m.token), key = own_key(mn, m);
    std::uint32_t co = 0, mo = 0, ko = 0;
    if (!pool.add(coreclr, co) || !pool.add(mono, mo)) return too_large;
    // The key is usually the start of the CoreCLR text ("NS.C.M" of "NS.C.M(Int32 x)"): share it.
    if (coreclr.starts_with(key)) {
      ko = co;
    } else if (!pool.add(key, ko)) {
      return too_large;
    }
    const std::uint32_t row = (m.token & 0xFFFFFF) - 1;
    key_offset[row] = ko;
    key_length[row] = static_cast<std::uint32_t>(key.size());
    std::uint32_t flags = 0;
    if (m.kickoff && m.iterator) flags |= f::kNameIterator;
    if (m.bad_signature) flags |= f::kNameBadSignature;
    if (m.mono_kickoff) flags |= f::kNameMonoRewrite;
    out.methods.emplace_back(co, static_cast<std::uint32_t>(coreclr.size()), mo, static_cast<std::uint32_t>(mono.size()),
                             ko, static_cast<std::uint32_t>(key.size()), m.kickoff, flags);
  }
  // Index: every method under its own key, a state-machine method also under its kickoff's.
  auto hash_of = [&](std::uint32_t row) {
    return XXH3_64bits(out.strings.data() + key_offset[row], key_length[row]);
  };
  out.index.reserve(out.methods.size() * 2);
  for (const names::MethodName& m : mn.methods()) {
    out.index.emplace_back(hash_of((m.token & 0xFFFFFF) - 1), m.token, 0u);
    if (m.kickoff) out.index.emplace_back(hash_of((m.kickoff & 0xFFFFFF) - 1), m.token, f::kIndexAlias);
  }
  std::sort(out.index.begin(), out.index.end(), [](const fb::NameIndexEntry& a, const fb::NameIndexEntry& b) {
    if (a.hash() != b.hash()) return a.hash() < b.hash();
    if (a.token() != b.token()) return a.token() < b.token();
    return a.flags() < b.flags();
  });
  return out;
}

Result<NamesSection> build_names_section_from_pe(std::span<const std::uint8_t> pe_bytes) {
  PeOptions po;
  po.embedded_pdb_errors_fatal = false;  // the names do not need the embedded PDB
  auto pe = PeFile::parse(pe_bytes, po);
  if (!pe) return pe.error();
  if (!pe->metadata()) return Error{Errc::kUnsupported, "the PE has no CLI metadata"};
  return build_names_section(*pe->metadata());
}

flatbuffers::Offset<fb::Names> write_names_section(flatbuffers::FlatBufferBuilder& fbb, const NamesSection& n) {
  auto assembly = n.has_assembly ? fbb.CreateString(n.assembly_name) : flatbuffers::Offset<flatbuffers::String>();
  auto module = fbb.CreateString(n.module_name);
  auto methods = fbb.CreateVectorOfStructs(n.methods);
  // Format 2.0: the texts repeat type names and parameter lists; packed, they take a fraction
  // (SPEC.md 3.7). Kept as is when packing does not make them smaller.
  std::vector<std::uint8_t> z(ZSTD_compressBound(n.strings.size()));
  std::size_t zn = n.strings.empty() ? 0 : ZSTD_compress(z.data(), z.size(), n.strings.data(), n.strings.size(), kNamesZstdLevel);
  const bool packed = zn && !ZSTD_isError(zn) && zn < n.strings.size();
  auto strings = packed ? fbb.CreateVector(z.data(), zn) : fbb.CreateVector(n.strings);
  auto index = fbb.CreateVectorOfStructs(n.index);
  const fb::Guid mvid(flatbuffers::span<const std::uint8_t, 16>(n.mvid.data(), 16));
  fb::NamesBuilder nb(fbb);
  nb.add_mvid(&mvid);
  if (n.has_assembly) nb.add_assembly_name(assembly);
  nb.add_module_name(module);
  nb.add_methods(methods);
  if (packed) {
    nb.add_strings_zstd(strings);
  } else {
    nb.add_strings(strings);
  }
  nb.add_index(index);
  return nb.Finish();
}

}  // namespace ilmap
