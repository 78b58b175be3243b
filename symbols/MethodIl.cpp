// MethodIl.cpp - finds, verifies and keeps the PE of a cache; asks decode/MethodBody about one
// method's IL (see MethodIl.h).
#include "symbols/MethodIl.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <optional>
#include <unordered_map>
#include <vector>

#include "decode/MethodBody.h"
#include "decode/PeFile.h"
#include "decode/PortablePdb.h"
#include "decode/names/MethodKeys.h"
#include "support/FileBytes.h"
#include "support/Platform.h"

namespace ilmap::symbols {
namespace fs = std::filesystem;

namespace {

struct OpenPe {
  FileBytes file;
  std::optional<PeFile> pe;  // borrows file's bytes (FileBytes keeps them where they are when moved)
  bool keys_tried = false;
  std::optional<names::MethodKeys> keys;  // built on the first call that needs them; borrows pe
};

// Metadata tables: a MethodDef token's table byte.
constexpr std::uint32_t kMethodDefTable = 0x06;

// The PE is the one the cache was compiled from: same MVID, and a CodeView entry naming the
// cache's PDB. A cache recording neither cannot be matched, so no PE is used for it. The PDB
// id is compared in both forms, GUID + stamp (a Portable PDB) and GUID + age (a Windows PDB),
// whatever kind the entry says: a PDB converted from one kind to the other keeps the GUID, and
// compile takes it beside a PE whose entry names the other kind (cli compile-converted-pdb).
bool same_module(const PeFile& pe, const CacheIdentity& id) {
  if (!id.mvid && !id.pdb_id) return false;
  if (id.mvid && (!pe.info().managed || pe.info().mvid != *id.mvid)) return false;
  if (!id.pdb_id) return true;
  return std::any_of(pe.info().codeview.begin(), pe.info().codeview.end(), [&](const CodeViewEntry& cv) {
    return PdbId::of(cv.guid, cv.stamp).bytes == *id.pdb_id || PdbId::of(cv.guid, cv.age).bytes == *id.pdb_id;
  });
}

}  // namespace

struct MethodIl::Impl {
  explicit Impl(const ModuleIndex& i) : index(i) {}
  const ModuleIndex& index;
  std::vector<std::unique_ptr<OpenPe>> keep;                // the managed PEs opened
  std::unordered_map<std::string, OpenPe*> by_path;         // each file opened once (nullptr: unusable)
  std::unordered_map<const Cache*, OpenPe*> cache_pe;       // nullptr: no PE for that cache
  std::vector<Instruction> code;                            // the last body decoded

  // A managed PE at `path`, opened and parsed once whatever cache asks (nullptr: unusable).
  OpenPe* open(const std::string& path) {
    if (const auto it = by_path.find(path); it != by_path.end()) return it->second;
    OpenPe*& slot = by_path[path];
    std::error_code ec;
    if (path.empty() || !fs::is_regular_file(platform::fs_path(path), ec)) return nullptr;
    auto file = FileBytes::open(path);
    if (!file) return nullptr;
    auto p = std::make_unique<OpenPe>();
    p->file = std::move(*file);
    auto pe = PeFile::parse(p->file.bytes());
    if (!pe || !pe->metadata()) return nullptr;
    p->pe.emplace(std::move(*pe));
    slot = p.get();
    keep.push_back(std::move(p));
    return slot;
  }

  // The method keys of a PE's metadata, built once (nullptr: its type tables do not build).
  const names::MethodKeys* keys_of(OpenPe& p) {
    if (!p.keys_tried) {
      p.keys_tried = true;
      if (auto k = names::MethodKeys::build(*p.pe->metadata())) p.keys.emplace(std::move(*k));
    }
    return p.keys ? &*p.keys : nullptr;
  }

  // Candidates in order: the search set's PE the cache answered, the file it came from if a
  // PE, a PE of the same stem beside that file; the first whose identity is the cache's.
  OpenPe* pe_for(const Cache* c) {
    if (const auto it = cache_pe.find(c); it != cache_pe.end()) return it->second;
    const CacheIdentity id = c->identity();
    std::vector<std::string> tries;
    tries.push_back(index.pe_of(c));
    const std::string from = index.file_of(c);
    if (!from.empty()) {
      const fs::path p = platform::fs_path(from);
      std::string ext = platform::fs_string(p.extension());
      std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char ch) { return char(std::tolower(ch)); });
      if (ext == ".dll" || ext == ".exe") tries.push_back(from);
      for (const char* pe_ext : {".dll", ".exe"}) {
        fs::path q = p;
        tries.push_back(platform::fs_string(q.replace_extension(pe_ext)));
      }
    }
    OpenPe* found = nullptr;
    for (const std::string& t : tries) {
      if (t.empty()) continue;
      OpenPe* p = open(t);
      if (p && same_module(*p->pe, id)) {
        found = p;
        break;
      }
    }
    cache_pe.emplace(c, found);
    return found;
  }
};

MethodIl::MethodIl(const ModuleIndex& index) : impl_(std::make_unique<Impl>(index)) {}
MethodIl::~MethodIl() = default;

IlSite MethodIl::site(const Cache* cache, std::uint32_t token, std::uint32_t il_offset) {
  IlSite s;
  OpenPe* p = impl_->pe_for(cache);
  if (!p) return s;
  const PeFile& pe = *p->pe;
  auto body = method_body_of(pe, token);
  auto& code = impl_->code;
  if (!body || !decode_instructions(body->code, code)) return s;
  s.known = true;
  const auto it = std::lower_bound(code.begin(), code.end(), il_offset,
                                   [](const Instruction& i, std::uint32_t o) { return i.offset < o; });
  s.boundary = it != code.end() && it->offset == il_offset;
  if (it != code.begin()) {
    const Instruction& prev = *(it - 1);
    if (prev.offset + prev.size == il_offset && prev.is_call())
      s.calls.push_back({prev.token, prev.opcode, called_method_name(pe, prev.token)});
  }
  if (!s.boundary) return s;
  // ret, leave, leave.s, endfinally and endfilter leave the statement with an empty stack.
  constexpr std::uint16_t kEnds[] = {0x2A, 0xDD, 0xDE, 0xDC, 0xFE11};
  for (auto i = it; i != code.end() && s.calls.size() < IlSite::kMaxCalls; ++i) {
    if (std::find(std::begin(kEnds), std::end(kEnds), i->opcode) != std::end(kEnds)) break;
    if (i->is_call()) s.calls.push_back({i->token, i->opcode, called_method_name(pe, i->token)});
  }
  return s;
}

bool MethodIl::may_call(const Cache* caller, const IlCall& call, std::string_view callee_text, const Callee& callee) {
  const std::string_view printed = simple_name(callee_text);
  const bool by_name = !call.name.empty() && simple_name(call.name) == printed;
  if (!callee.cache || !caller) return by_name;
  OpenPe* callee_pe = impl_->pe_for(callee.cache);
  OpenPe* caller_pe = impl_->pe_for(caller);
  if (!callee_pe || !caller_pe) return by_name;
  const names::MethodKeys* callee_keys = impl_->keys_of(*callee_pe);
  if (!callee_keys) return by_name;
  const auto def = callee_keys->key(callee.token);
  if (!def || def->name != printed) return by_name;
  if (call.opcode == il::kCallvirt && callee_keys->is_virtual(callee.token)) return by_name;
  if (caller_pe == callee_pe && (call.token >> 24) == kMethodDefTable) return call.token == callee.token;
  const names::MethodKeys* caller_keys = impl_->keys_of(*caller_pe);
  const auto named = caller_keys ? caller_keys->key(call.token) : std::nullopt;
  if (!named) return by_name;
  return names::same_method(*named, *def);
}

std::string_view simple_name(std::string_view text) {
  const std::size_t paren = text.find('(');
  if (paren != std::string_view::npos) text = text.substr(0, paren);
  const std::size_t bracket = text.find('[');
  if (bracket != std::string_view::npos) text = text.substr(0, bracket);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  std::size_t dot = text.rfind('.');
  if (dot == std::string_view::npos || dot == 0) return text;  // "M", ".ctor"
  return text.substr(text[dot - 1] == '.' ? dot : dot + 1);      // "T..ctor": ".ctor"; "T.M": "M"
}

}  // namespace ilmap::symbols
