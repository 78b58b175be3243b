// MethodNames.h - every MethodDef of a module named the way the .NET runtimes print a stack
// frame, plus the module's identity (MVID, assembly name) and an index from names to tokens.
//
// Two renderings, both checked against the runtimes themselves by tests/oracle-names:
//  - CoreCLR, System.Diagnostics.StackTrace.ToString (dotnet/runtime, StackTrace.cs): the
//    declaring type's FullName with '+' replaced by '.', '.', the method name, generic method
//    parameters in [ ] joined by ',', then "(" Type.Name + ' ' + parameter name, joined by ", "
//    ")" (no ' ' when the parameter has no name). A method of a [CompilerGenerated] type that
//    implements IAsyncStateMachine or IEnumerator is printed as the method of the enclosing type
//    whose AsyncStateMachine / IteratorStateMachine / AsyncIteratorStateMachine attribute names
//    that type (StackTrace.TryResolveStateMachineMethod); for the two iterator kinds "+" + the
//    original method name + "()" follows. A method of the <Module> type (TypeDef row 1) has no
//    declaring type: just the name.
//    Example: "NS.Outer`1.Inner`1.Fail[V](T t, U u, V v)", "NS.C.Numbers(Int32 n)+MoveNext()".
//  - Mono 6, StackTrace.GetFullNameForStackTrace (mono/mono, mcs/class/corlib/System.Diagnostics/
//    StackTrace.cs; checked against Debian's Mono 6.8 by tests/oracle-names/check-mono.sh): the
//    declaring type's Type.ToString() ('+' kept, a generic definition's parameters as [T,U]), '.',
//    the name, generic method parameters in [ ], " (" then per parameter the Type.ToString() of
//    its type, a generic instance replaced by its definition ("System.Int32",
//    "System.Collections.Generic.List`1[T]", "System.Collections.Generic.List`1[System.Int32][]",
//    "NS.Outer+Inner&", "System.IntPtr" for a function pointer), ' ' + the parameter name ")".
//    A method of an IAsyncStateMachine type is printed as the enclosing type's method whose
//    AsyncStateMachineAttribute names that type (iterators are not rewritten). The parameter
//    names of a generic type defined in another assembly are not in this module: a table of
//    base-library names that are not "T" and the Func/Action/Tuple families are built in
//    ("System.Func`2[T,TResult]"), any other one-parameter type gets "T", and any other
//    parameter prints as "?" ("Other`2[?,?]"): a matcher should treat "?" as a wildcard.
//    Example: "NS.Outer`1+Inner`1[T,U].Fail[V] (T t, U u, V v)", "NS.C.M (System.String[] args)".
//    A <Module> method prints as "<Module>.M (...)" (a guess: Mono's helper has no such case).
//
// In CoreCLR's text a function pointer parameter type prints as "" (its reflection Name in .NET 8+):
// "M(Int32* p,  f)".
// A method whose signature blob is malformed keeps its name and gets kBadSignature as its
// parameter list: "NS.C.M(<bad signature>)"; its error says where. Declaring types are
// printed as FullName writes them, with ",[]&*+\" inside names escaped by a backslash (and an
// escaped '+' then becomes "\." like every '+' in CoreCLR's text); method, parameter and
// parameter-type names are printed as stored.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "decode/Guids.h"
#include "decode/Metadata.h"
#include "ilmap/status.h"

namespace ilmap::names {

inline constexpr std::string_view kBadSignature = "<bad signature>";

// Texts that views point at, in blocks that never move: a view stays valid when its owner (a
// ModuleNames) is moved. One allocation per 64 KiB of text instead of one per text.
class TextStore {
 public:
  std::string_view keep(std::string_view s);

 private:
  std::vector<std::unique_ptr<char[]>> blocks_;
  char* next_ = nullptr;
  std::size_t left_ = 0;
};

// The views borrow from the ModuleNames that made them (types) and from the metadata (name).
struct ParamName {
  std::string_view type;       // CoreCLR Type.Name: "String[]", "Int32&", "List`1", "T"
  std::string_view mono_type;  // Mono: "System.String[]", "Int32&", "System.Collections.Generic.List`1"
  std::string_view name;       // from the Param table; empty when there is no row or no name
};

struct MethodName {
  std::uint32_t token = 0;
  std::uint32_t type_rid = 0;                // declaring TypeDef (0: none found)
  std::string_view name;                     // MethodDef.Name (borrowed from the metadata)
  std::vector<std::string_view> generic_params;
  std::size_t first_param = 0, param_count = 0;  // ModuleNames::params(): [first, first + count)
  bool bad_signature = false;
  std::string error;                         // why, when bad_signature
  std::uint32_t kickoff = 0;                 // state machine: the token CoreCLR prints instead
  bool iterator = false;                     // kickoff is an (async) iterator: "+Name()" follows
  std::uint32_t mono_kickoff = 0;            // async state machine: the token Mono prints instead
};

// The name-index key of a method named the Mono way, the part before " (":
// "NS.Outer`1+Inner`1[T,U].Fail[V]" -> "NS.Outer`1.Inner`1.Fail" ('+' to '.', the bracketed
// generic parameter or argument lists after a type's arity and after the method dropped).
std::string index_key_from_mono(std::string_view mono_method);

// Whether ModuleNames::build makes the name index that find() answers from (the cache compiler
// does not need it: readers derive their own index from the stored keys).
enum class NameIndex : bool { kSkip, kBuild };

class ModuleNames {
 public:
  // `md` is a PE's metadata (PeFile::metadata()); its bytes must outlive the result. Errors:
  // malformed tables the names depend on (rows out of range, nesting cycles, bad heap offsets).
  // A malformed signature is not an error (see kBadSignature). `max_text` caps the bytes of
  // names made and of signature blobs decoded (0: TextBudget's default, max(64 MiB, 16 x the
  // metadata size)); beyond it Errc::kTooLarge, so metadata that repeats long names (nesting
  // chains, shared signatures) cannot ask for unbounded memory or time. With NameIndex::kSkip,
  // find() finds nothing.
  static Result<ModuleNames> build(const Metadata& md, std::size_t max_text = 0,
                                   NameIndex index = NameIndex::kBuild);

  const Guid& mvid() const { return mvid_; }
  std::string_view assembly_name() const { return assembly_name_; }  // empty: no Assembly row
  std::string_view module_name() const { return module_name_; }
  std::uint32_t method_count() const { return std::uint32_t(methods_.size()); }
  // The method of a MethodDef token (0x06xxxxxx), or nullptr.
  const MethodName* method(std::uint32_t token) const;
  std::span<const MethodName> methods() const { return methods_; }
  // The parameters of `m` (a method of this module), in order.
  std::span<const ParamName> params(const MethodName& m) const {
    return std::span<const ParamName>(params_).subspan(m.first_param, m.param_count);
  }

  // Declaring type as CoreCLR prints it ("NS.Outer`1.Inner"), empty for <Module> methods.
  std::string coreclr_type(std::uint32_t type_rid) const;
  // Declaring type as Mono prints it ("NS.Outer`1+Inner[T]").
  std::string mono_type(std::uint32_t type_rid) const;

  // The frame text without "   at " and without location; empty for an unknown token.
  std::string coreclr_frame(std::uint32_t token) const;
  std::string mono_frame(std::uint32_t token) const;
  // The same texts appended to `out` (no allocation once `out` has grown: for callers that make
  // every method's text); append_index_key appends the name-index key of `m` itself.
  void append_coreclr_frame(std::uint32_t token, std::string& out) const;
  void append_mono_frame(std::uint32_t token, std::string& out) const;
  void append_index_key(const MethodName& m, std::string& out) const;
  // The length of that key (without making it).
  std::size_t index_key_size(const MethodName& m) const;

  // Name index for traces that carry only names: "NS.Outer`1.Inner.M" (declaring type with '.'
  // for '+', '.', method name; no generic arguments, no parameters). Every method is indexed
  // under its own name, and a state-machine method also under its kickoff method's name, the
  // name CoreCLR prints for it. Tokens ascending. The index holds 64-bit hashes of the keys;
  // a hit is confirmed by making the key again.
  std::vector<std::uint32_t> find(std::string_view name) const;

 private:
  Status read_identity(const Metadata& md);

  Guid mvid_{};
  std::string_view assembly_name_, module_name_;
  std::vector<std::string_view> type_coreclr_, type_mono_;  // by TypeDef rid (0 unused), in text_
  std::vector<MethodName> methods_;
  std::vector<ParamName> params_;  // every method's, in method order (one allocation, not one per method)
  TextStore text_;                 // the declaring and parameter types' texts
  struct IndexEntry {
    std::uint64_t hash;  // XXH3 of the key
    std::uint32_t token;
    bool via_kickoff;    // keyed by the kickoff method's name
  };
  std::vector<IndexEntry> index_;  // sorted by (hash, token)
};

}  // namespace ilmap::names
