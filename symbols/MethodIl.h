// MethodIl.h - the IL of the methods of a ModuleIndex's caches, read from the PE each cache
// belongs to, for what a frame's IL offset says about the method that printed it
// (docs/symbolicate.md: overloads of the Android form decided by IL).
//
// The PE of a cache: the one of the search set the index answered with that cache (pe_of),
// else the file the cache came from if it is a PE, else a PE beside that file with the same
// stem (.dll, then .exe). A PE is used only when its identity is the cache's: its MVID equals
// the cache's (when the cache records one) and one of its CodeView entries names the cache's
// PDB id (GUID + stamp for a Portable PDB, GUID + age for a Windows one). Each PE is opened
// once (mapped, bounded by FileBytes) and kept as long as the MethodIl. A PE that does not
// open, parse or match, and a body that does not decode, give no evidence (IlSite::known false):
// hostile or mismatched bytes can leave a frame undecided, never decide it.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "symbols/ModuleIndex.h"

namespace ilmap::symbols {

struct IlSite {
  bool known = false;     // the method's IL was read: the fields below say something
  bool boundary = false;  // an instruction of the body starts at the offset (offset < code size)
  // The names (#Strings, e.g. "Inflate", ".ctor") of the methods called (call, callvirt,
  // newobj) where a caller's frame at this offset may have made its call: the call ending right
  // at the offset (a runtime printing the return address's offset), and the calls from the
  // offset on up to the first ret, leave, endfinally or endfilter (CoreCLR prints the offset of
  // the statement holding the call: the last IL-to-native boundary before the return address,
  // an empty-stack point, checked on the corpus's traces). At most kMaxCalls. Valid as long as
  // the MethodIl.
  static constexpr std::size_t kMaxCalls = 64;
  std::vector<std::string_view> calls;
};
class MethodIl {
 public:
  explicit MethodIl(const ModuleIndex& index);
  ~MethodIl();
  MethodIl(const MethodIl&) = delete;
  MethodIl& operator=(const MethodIl&) = delete;

  // What the IL of MethodDef `token` of the module of `cache` has at `il_offset`.
  IlSite site(const Cache* cache, std::uint32_t token, std::uint32_t il_offset);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ilmap::symbols
