// NamesSection.cpp - ModuleNames (decode/names) to the Names table of a cache (SPEC.md 3.6).
#include "compiler/NamesSection.h"

#include <cstring>
#include <string_view>

#include <xxhash.h>

#include "decode/PeFile.h"
#include "support/ZstdPack.h"
#include "format/ilmap_format.h"
#include "decode/names/MethodNames.h"

namespace ilmap {
namespace {

namespace f = ilmap::disk;

// Texts in one byte vector, each distinct text stored once (first occurrence order, so the bytes
// depend only on the input). The index is an open-addressing table of (hash, offset, length)
// into the vector itself: no copy of a text and no allocation per text.
class TextPool {
 public:
  TextPool(ScratchVector<std::uint8_t>& bytes, std::size_t expected) : bytes_(bytes) {
    std::size_t capacity = 16;
    while (capacity < 2 * expected) capacity *= 2;
    slots_.assign(capacity, Slot{});
  }
  // Offset of `s` in the pool; false when the pool would pass 4 GiB.
  bool add(std::string_view s, std::uint32_t& offset) {
    const std::uint64_t hash = XXH3_64bits(s.data(), s.size());
    std::size_t mask = slots_.size() - 1;
    std::size_t i = static_cast<std::size_t>(hash) & mask;
    for (; slots_[i].used; i = (i + 1) & mask) {
      const Slot& e = slots_[i];
      if (e.hash == hash && e.length == s.size() &&
          std::memcmp(bytes_.data() + e.offset, s.data(), s.size()) == 0) {
        offset = e.offset;
        return true;
      }
    }
    if (bytes_.size() + s.size() > UINT32_MAX) return false;
    offset = static_cast<std::uint32_t>(bytes_.size());
    // resize + memcpy: insert() with this allocator copies byte by byte.
    bytes_.resize(bytes_.size() + s.size());
    if (!s.empty()) std::memcpy(bytes_.data() + offset, s.data(), s.size());
    slots_[i] = Slot{hash, offset, static_cast<std::uint32_t>(s.size()), true};
    if (2 * ++count_ > slots_.size()) grow();
    return true;
  }

 private:
  struct Slot {
    std::uint64_t hash = 0;
    std::uint32_t offset = 0, length = 0;
    bool used = false;
  };
  void grow() {
    ScratchVector<Slot> old(2 * slots_.size());
    old.swap(slots_);
    const std::size_t mask = slots_.size() - 1;
    for (const Slot& e : old) {
      if (!e.used) continue;
      std::size_t i = static_cast<std::size_t>(e.hash) & mask;
      while (slots_[i].used) i = (i + 1) & mask;
      slots_[i] = e;
    }
  }
  ScratchVector<std::uint8_t>& bytes_;
  ScratchVector<Slot> slots_;
  std::size_t count_ = 0;
};

}  // namespace

void method_columns(std::span<const fb::MethodNameRef> methods, std::uint8_t* out) {
  // Column by column, offsets as differences: coreclr_offset from the row before's (texts are
  // pooled in row order, so mostly the previous texts' length), mono_offset and key_offset from
  // the row's coreclr_offset (the key is mostly its prefix: 0). A tenth of the raw structs' frame.
  const std::size_t n = methods.size();
  auto put = [&](unsigned field, std::size_t i, std::uint32_t v) {
    for (unsigned k = 0; k < 4; ++k) out[4 * (field * n + i) + k] = static_cast<std::uint8_t>(v >> (8 * k));
  };
  std::uint32_t before = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const fb::MethodNameRef& m = methods[i];
    put(0, i, m.coreclr_offset() - before);
    before = m.coreclr_offset();
    put(1, i, m.coreclr_length());
    put(2, i, m.mono_offset() - m.coreclr_offset());
    put(3, i, m.mono_length());
    put(4, i, m.key_offset() - m.coreclr_offset());
    put(5, i, m.key_length());
    put(6, i, m.kickoff());
    put(7, i, m.flags());
  }
}

Result<NamesSection> build_names_section(const Metadata& md) {
  auto built = names::ModuleNames::build(md, 0, names::NameIndex::kSkip);  // the cache stores keys, not an index
  if (!built) return built.error();
  const names::ModuleNames& mn = *built;
  NamesSection out;
  out.mvid = mn.mvid();
  out.assembly_name = std::string(mn.assembly_name());
  out.has_assembly = md.rows(kAssembly) >= 1;
  out.module_name = std::string(mn.module_name());
  TextPool pool(out.strings, 2 * std::size_t(mn.method_count()));
  out.strings.reserve(std::size_t(mn.method_count()) * 128);  // about two texts of 64 bytes each
  const Error too_large{Errc::kTooLarge, "method names: the texts exceed 4 GiB"};
  out.methods.reserve(mn.method_count());
  std::string coreclr, mono, key;  // reused: no allocation per method once grown
  for (const names::MethodName& m : mn.methods()) {
    coreclr.clear();
    mono.clear();
    mn.append_coreclr_frame(m.token, coreclr);
    mn.append_mono_frame(m.token, mono);
    std::uint32_t co = 0, mo = 0, ko = 0;
    if (!pool.add(coreclr, co) || !pool.add(mono, mo)) return too_large;
    // The key is usually the start of the CoreCLR text ("NS.C.M" of "NS.C.M(Int32 x)"): share it.
    // It always is when the text is the method's own (no kickoff method printed instead).
    const std::size_t key_size = mn.index_key_size(m);
    if (m.kickoff) {
      key.clear();
      mn.append_index_key(m, key);
      if (coreclr.starts_with(key)) {
        ko = co;
      } else if (!pool.add(key, ko)) {
        return too_large;
      }
    } else {
      ko = co;
    }
    std::uint32_t flags = 0;
    if (m.kickoff && m.iterator) flags |= f::kNameIterator;
    if (m.bad_signature) flags |= f::kNameBadSignature;
    if (m.mono_kickoff) flags |= f::kNameMonoRewrite;
    out.methods.emplace_back(co, static_cast<std::uint32_t>(coreclr.size()), mo, static_cast<std::uint32_t>(mono.size()),
                             ko, static_cast<std::uint32_t>(key_size), m.kickoff, flags);
  }
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
  // SPEC.md 3.6, 3.8: the texts repeat type names and parameter lists, and the method refs are
  // mostly small, increasing numbers; each is packed into one zstd frame when that is smaller.
  // The name index is not stored: readers derive it from the methods.
  PackScratch& scratch = pack_scratch();
  const std::size_t refs_size = n.methods.size() * sizeof(fb::MethodNameRef);
  std::span<const std::uint8_t> frame;
  if (std::uint8_t* content = scratch.get(0, refs_size)) {
    method_columns(n.methods, content);
    frame = zstd_pack({content, refs_size}, PackTable::kLevelDefault);
  }
  const bool methods_packed = !frame.empty();
  auto methods = methods_packed ? fbb.CreateVector(frame.data(), frame.size()) : flatbuffers::Offset<flatbuffers::Vector<std::uint8_t>>();
  auto method_refs = methods_packed ? flatbuffers::Offset<flatbuffers::Vector<const fb::MethodNameRef*>>()
                                    : fbb.CreateVectorOfStructs(n.methods.data(), n.methods.size());
  frame = zstd_pack(n.strings, PackTable::kLevelDefault);
  const bool strings_packed = !frame.empty();
  auto strings = strings_packed ? fbb.CreateVector(frame.data(), frame.size()) : fbb.CreateVector(n.strings.data(), n.strings.size());
  scratch.trim();
  const fb::Guid mvid(flatbuffers::span<const std::uint8_t, 16>(n.mvid.data(), 16));
  fb::NamesBuilder nb(fbb);
  nb.add_mvid(&mvid);
  if (n.has_assembly) nb.add_assembly_name(assembly);
  nb.add_module_name(module);
  if (methods_packed) {
    nb.add_methods_zstd(methods);
  } else {
    nb.add_methods(method_refs);
  }
  if (strings_packed) {
    nb.add_strings_zstd(strings);
  } else {
    nb.add_strings(strings);
  }
  return nb.Finish();
}

}  // namespace ilmap
