// MethodKeys.cpp - MethodDef, MemberRef and MethodSpec rows spelt as comparable keys (see
// MethodKeys.h): the signature decoder of Signature.h, the type names of TypeNames.h.
#include "decode/names/MethodKeys.h"

#include <vector>

#include "decode/MetadataSchema.h"
#include "decode/names/Signature.h"

namespace ilmap::names {
namespace {

// Columns (ECMA-335 II.22): MethodDef RVA, ImplFlags, Flags, Name, Signature, ParamList;
// MemberRef Class, Name, Signature; MethodSpec Method, Instantiation; TypeSpec Signature.
constexpr unsigned kMethodDefFlags = 2, kMethodDefName = 3, kMethodDefSignature = 4;
constexpr unsigned kMemberRefClass = 0, kMemberRefName = 1, kMemberRefSignature = 2;
constexpr unsigned kMethodSpecMethod = 0;
constexpr unsigned kTypeSpecSignature = 0;
constexpr std::uint16_t kMethodVirtual = 0x0040;  // MethodAttributes.Virtual (II.23.1.10)
constexpr std::uint8_t kCallConvKind = 0x0F, kCallConvVarArg = 0x05;
// A TypeSpec in a signature may name another TypeSpec: deeper than this, the key is not made.
constexpr unsigned kMaxSpecDepth = 8;

bool in_range(const Metadata& md, unsigned table, std::uint32_t rid) { return rid >= 1 && rid <= md.rows(table); }

// Spells the types of one decoded signature (its nodes) with the full names of `types`.
class Speller {
 public:
  Speller(const Metadata& md, const TypeTables& types, SigTypes& nodes) : md_(md), types_(types), nodes_(nodes) {}

  bool type(std::uint32_t node, unsigned depth, std::string& out) {
    if (depth > kMaxSignatureDepth + kMaxSpecDepth) return false;
    const SigNode n = nodes_.nodes[node];  // a copy: a TypeSpec decoded below grows the vector
    switch (n.kind) {
      case kEtClass: case kEtValueType:
        out += n.kind == kEtClass ? 'c' : 'v';
        return named(n.table, n.rid, depth, out);
      case kEtGenericInst:
        out += n.value_type ? "gv" : "gc";
        if (!named(n.table, n.rid, depth, out)) return false;
        return args(n, '<', '>', depth, out);
      case kEtVar: case kEtMVar:
        out += n.kind == kEtVar ? "!" : "!!";
        out += std::to_string(n.number);
        return true;
      case kEtPtr: case kEtByRef: case kEtSzArray:
        if (!type(n.element, depth + 1, out)) return false;
        out += n.kind == kEtPtr ? "*" : n.kind == kEtByRef ? "&" : "[]";
        return true;
      case kEtArray:
        if (!type(n.element, depth + 1, out)) return false;
        out += '[' + std::to_string(n.number) + ']';
        return true;
      case kEtFnPtr:
        out += "fn";
        return args(n, '(', ')', depth, out);
      default:  // void, the primitives, string, object, TypedReference, IntPtr, UIntPtr
        out += '#' + std::to_string(n.kind) + ';';
        return true;
    }
  }

 private:
  // The argument types of a generic instance or function pointer, each followed by ','
  // between `open` and `close`.
  bool args(const SigNode& n, char open, char close, unsigned depth, std::string& out) {
    out += open;
    for (std::uint32_t i = 0; i < n.arg_count; ++i) {  // by index: a TypeSpec below grows arg_nodes
      if (!type(nodes_.arg_nodes[n.first_arg + i], depth + 1, out)) return false;
      out += ',';
    }
    out += close;
    return true;
  }

  // A TypeDefOrRefOrSpec row: its full name, length-prefixed so that no name can end early; a
  // TypeSpec is spelt as the type it holds.
  bool named(std::uint8_t table, std::uint32_t rid, unsigned depth, std::string& out) {
    const TypeName* t = nullptr;
    if (table == kTypeDef && rid >= 1 && rid <= types_.typedef_count()) {
      t = &types_.def(rid);
    } else if (table == kTypeRef && rid >= 1 && rid <= types_.typeref_count()) {
      t = &types_.ref(rid);
    } else if (table == kTypeSpec && in_range(md_, kTypeSpec, rid) && ++specs_ <= kMaxSpecDepth) {
      const std::uint32_t off = md_.column(kTypeSpec, rid, kTypeSpecSignature);
      const auto blob = md_.blob(off);
      if (!blob) return false;
      const auto root = decode_type_spec(*blob, off, nodes_);
      return root && type(*root, depth + 1, out);
    } else {
      return false;
    }
    out += std::to_string(t->full_name.size());
    out += ':';
    out += t->full_name;
    return true;
  }

  const Metadata& md_;
  const TypeTables& types_;
  SigTypes& nodes_;
  unsigned specs_ = 0;  // TypeSpecs decoded for this signature
};

}  // namespace

bool same_method(const MethodKey& call, const MethodKey& def) {
  if (call.type != def.type || call.name != def.name) return false;
  return call.vararg || def.vararg || call.sig == def.sig;
}

Result<MethodKeys> MethodKeys::build(const Metadata& md) {
  TextBudget budget(md);
  auto types = TypeTables::build(md, budget);
  if (!types) return types.error();
  return MethodKeys(md, std::move(*types));
}

bool MethodKeys::is_virtual(std::uint32_t token) const {
  const std::uint32_t rid = token & 0x00FFFFFFu;
  if ((token >> 24) != kMethodDef || !in_range(*md_, kMethodDef, rid)) return false;
  return (md_->column(kMethodDef, rid, kMethodDefFlags) & kMethodVirtual) != 0;
}

std::optional<MethodKey> MethodKeys::key(std::uint32_t token) const {
  std::uint32_t table = token >> 24, rid = token & 0x00FFFFFFu;
  if (table == kMethodSpec) {  // a generic method's instantiation: the generic method itself
    if (!in_range(*md_, kMethodSpec, rid)) return std::nullopt;
    const CodedRow m = decode_coded(CodedIndex::kMethodDefOrRef, md_->column(kMethodSpec, rid, kMethodSpecMethod));
    table = m.table, rid = m.rid;
  }
  if (table != kMethodDef && table != kMemberRef) return std::nullopt;
  if (!in_range(*md_, table, rid)) return std::nullopt;
  return key_of(table, rid);
}

std::optional<MethodKey> MethodKeys::key_of(std::uint32_t table, std::uint32_t rid) const {
  MethodKey k;
  std::uint32_t sig = 0;
  if (table == kMethodDef) {
    const std::uint32_t owner = types_.method_owner(rid);
    if (owner == 0 || owner > types_.typedef_count()) return std::nullopt;
    k.type = types_.def(owner).full_name;
    const auto name = md_->string(md_->column(kMethodDef, rid, kMethodDefName));
    if (!name) return std::nullopt;
    k.name = *name;
    sig = md_->column(kMethodDef, rid, kMethodDefSignature);
  } else {
    const CodedRow parent = decode_coded(CodedIndex::kMemberRefParent, md_->column(kMemberRef, rid, kMemberRefClass));
    if (parent.table == kTypeDef && parent.rid >= 1 && parent.rid <= types_.typedef_count()) {
      k.type = types_.def(parent.rid).full_name;
    } else if (parent.table == kTypeRef && parent.rid >= 1 && parent.rid <= types_.typeref_count()) {
      k.type = types_.ref(parent.rid).full_name;
    } else if (parent.table == kTypeSpec && in_range(*md_, kTypeSpec, parent.rid)) {
      // A method of a generic instantiation (List<int>.Add): its generic type definition. Any
      // other TypeSpec (an array's Get/Set/Address) has no MethodDef to compare with.
      const std::uint32_t off = md_->column(kTypeSpec, parent.rid, kTypeSpecSignature);
      const auto blob = md_->blob(off);
      if (!blob) return std::nullopt;
      SigTypes nodes;
      const auto root = decode_type_spec(*blob, off, nodes);
      if (!root || nodes.nodes[*root].kind != kEtGenericInst) return std::nullopt;
      const SigNode& g = nodes.nodes[*root];
      if (g.table == kTypeDef && g.rid >= 1 && g.rid <= types_.typedef_count()) k.type = types_.def(g.rid).full_name;
      else if (g.table == kTypeRef && g.rid >= 1 && g.rid <= types_.typeref_count()) k.type = types_.ref(g.rid).full_name;
      else return std::nullopt;
    } else {
      return std::nullopt;  // ModuleRef (a global function of another module), MethodDef (a vararg call site)
    }
    const auto name = md_->string(md_->column(kMemberRef, rid, kMemberRefName));
    if (!name) return std::nullopt;
    k.name = *name;
    sig = md_->column(kMemberRef, rid, kMemberRefSignature);
  }
  if (!append_signature(sig, k)) return std::nullopt;
  return k;
}

bool MethodKeys::append_signature(std::uint32_t blob_offset, MethodKey& key) const {
  const auto blob = md_->blob(blob_offset);
  if (!blob) return false;
  SigTypes nodes;
  const auto sig = decode_method_signature(*blob, blob_offset, nodes);
  if (!sig) return false;
  if ((sig->calling_convention & kCallConvKind) == kCallConvVarArg) {
    key.vararg = true;
    return true;
  }
  Speller s(*md_, types_, nodes);
  std::string& out = key.sig;
  out = std::to_string(sig->calling_convention) + '/' + std::to_string(sig->generic_params) + '(';
  for (std::uint32_t p : sig->params) {
    if (!s.type(p, 0, out)) return false;
    out += ',';
  }
  out += ")";
  return s.type(sig->ret, 0, out);
}

}  // namespace ilmap::names
