// MethodKeys.h - what a method token of one module names, in terms another module can compare:
// the declaring type's FullName, the method's name and its signature with every type in it
// named by FullName instead of by row (ECMA-335 II.22.25 MemberRef, II.22.26 MethodDef,
// II.22.29 MethodSpec, II.22.39 TypeSpec; signatures II.23.2.1, II.23.2.12).
//
// Used to tell which overload a caller's call instruction names (docs/symbolicate.md, the Android
// form, step 2): a call in module A names a method of module B by a MemberRef whose parent is a
// TypeRef (by namespace, name and enclosing TypeRefs) and whose signature names types by TypeRef
// rows of A; B defines the method by a MethodDef whose signature names the same types by TypeDef
// or TypeRef rows of B. Both become a MethodKey and compare as text. Assemblies are not compared
// (a TypeRef may point at a forwarder), so two types of one full name in two assemblies compare
// equal: a match may be too generous, never too strict. What cannot be named exactly (a MemberRef
// on a ModuleRef, a MethodDef or an array TypeSpec; a signature that does not decode; TypeSpecs
// nested too deep) has no key: the caller treats it as "may be that method".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "decode/Metadata.h"
#include "decode/names/TypeNames.h"
#include "ilmap/status.h"

namespace ilmap::names {

struct MethodKey {
  // Type.FullName of the declaring type ("NS.Outer+Inner", names escaped as TypeTables does); for
  // a MemberRef on a generic instantiation (a TypeSpec), its generic type definition ("NS.List`1").
  std::string type;
  std::string_view name;  // #Strings, borrowed from the metadata
  // The signature: calling convention, generic parameter count, return type and parameters, each
  // type spelt with its element type and, for classes and value types, its full name (length
  // prefixed); generic instantiations with their arguments; !N and !!N for generic parameters.
  // Custom modifiers are dropped (the decoder drops them). Empty for a vararg method.
  std::string sig;
  bool vararg = false;  // VARARG calling convention: a call site's MemberRef adds the extra arguments
};

// Whether a call's key `call` names the method whose key is `def`: the same declaring type, name
// and signature (a vararg one by type and name only).
bool same_method(const MethodKey& call, const MethodKey& def);

class MethodKeys {
 public:
  // `md` must outlive the result. Errors: the type tables do not build (TypeTables::build).
  static Result<MethodKeys> build(const Metadata& md);

  // The key of a MethodDef (0x06), MemberRef (0x0A) or MethodSpec (0x2B, by its generic method)
  // token, or nullopt when the token names no method this can spell (see the file comment; a row
  // out of range included).
  std::optional<MethodKey> key(std::uint32_t token) const;

  // MethodDef `token` is virtual (Flags & Virtual, II.23.1.10): a callvirt of the method it
  // overrides, another token, may land in it.
  bool is_virtual(std::uint32_t token) const;

 private:
  MethodKeys(const Metadata& md, TypeTables types) : md_(&md), types_(std::move(types)) {}
  std::optional<MethodKey> key_of(std::uint32_t table, std::uint32_t rid) const;
  bool append_signature(std::uint32_t blob_offset, MethodKey& key) const;

  const Metadata* md_;
  TypeTables types_;
};

}  // namespace ilmap::names
