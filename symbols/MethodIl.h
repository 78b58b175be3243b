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

// One call instruction (call, callvirt, newobj) of a method body.
struct IlCall {
  std::uint32_t token = 0;    // its operand: a MethodDef, MemberRef or MethodSpec of the caller's module
  std::uint16_t opcode = 0;   // il::kCall, kCallvirt or kNewobj
  std::string_view name;      // the called method's name (#Strings, e.g. "Inflate", ".ctor"); may be empty
};

// The method a frame printed above another was resolved to (cache nullptr: it stayed unresolved,
// or was printed with its line by the runtime).
struct Callee {
  const Cache* cache = nullptr;
  std::uint32_t token = 0;  // MethodDef
};

// The method's own name in a frame's text or a metadata name: what follows the last '.' that
// is not the start of ".ctor"/".cctor" ("NS.T..ctor" -> ".ctor", ".ctor" -> ".ctor",
// "NS.T.I.M(Int32 x)" -> "M", "System.IDisposable.Dispose" -> "Dispose"); generic arguments and
// parameters dropped.
std::string_view simple_name(std::string_view text);

struct IlSite {
  bool known = false;     // the method's IL was read: the fields below say something
  bool boundary = false;  // an instruction of the body starts at the offset (offset < code size)
  // The calls (call, callvirt, newobj) where a caller's frame at this offset may have made its
  // call: the call ending right
  // at the offset (a runtime printing the return address's offset), and the calls from the
  // offset on up to the first ret, leave, endfinally or endfilter (CoreCLR prints the offset of
  // the statement holding the call: the last IL-to-native boundary before the return address,
  // an empty-stack point, checked on the corpus's traces). At most kMaxCalls. Valid as long as
  // the MethodIl.
  static constexpr std::size_t kMaxCalls = 64;
  std::vector<IlCall> calls;
};
class MethodIl {
 public:
  explicit MethodIl(const ModuleIndex& index);
  ~MethodIl();
  MethodIl(const MethodIl&) = delete;
  MethodIl& operator=(const MethodIl&) = delete;

  // What the IL of MethodDef `token` of the module of `cache` has at `il_offset`.
  IlSite site(const Cache* cache, std::uint32_t token, std::uint32_t il_offset);

  // docs/symbolicate.md, Android form, step 2: whether `call`, an instruction of a method of the
  // module of `caller`, may have called the frame printed above, whose text is `callee_text` and
  // which was resolved to `callee`. Resolved: the call must name that very method (a MethodDef
  // token of the same module; else a MemberRef or MethodSpec whose declaring type, name and
  // signature are the method's, names::MethodKeys), except where that cannot be told, where the
  // name decides: a callvirt when the callee is virtual (an override is called through the
  // method it overrides), a token that names the method no exact way (names::MethodKeys::key),
  // no matching PE for either module, and a callee whose own name is not the name printed (a
  // state machine's MoveNext printed as its kickoff method). Unresolved: the name decides (the
  // call's name is the printed one, simple_name). So this never excludes a call the name keeps
  // unless the identities differ.
  bool may_call(const Cache* caller, const IlCall& call, std::string_view callee_text, const Callee& callee);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ilmap::symbols
