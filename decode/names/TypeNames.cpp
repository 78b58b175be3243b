// TypeNames.cpp - TypeDef/TypeRef names, nesting, generic parameters and attributes of a module.
#include "decode/names/TypeNames.h"

#include <algorithm>
#include <array>

#include "support/ByteCursor.h"

namespace ilmap::names {
namespace {

// Column numbers (ECMA-335 II.22), in MetadataSchema.cpp's column order.
constexpr unsigned kTypeDefName = 1, kTypeDefNamespace = 2, kTypeDefMethods = 5;
constexpr unsigned kTypeRefScope = 0, kTypeRefName = 1, kTypeRefNamespace = 2;
constexpr unsigned kNestedNested = 0, kNestedEnclosing = 1;
constexpr unsigned kGpNumber = 0, kGpOwner = 2, kGpName = 3;
constexpr unsigned kIfaceClass = 0, kIfaceInterface = 1;
constexpr unsigned kCaParent = 0, kCaType = 1, kCaValue = 2;
constexpr unsigned kMemberRefClass = 0;
constexpr unsigned kMaxNesting = 64;

constexpr std::string_view kCompilerServices = "System.Runtime.CompilerServices";

bool in_range(const Metadata& md, unsigned table, std::uint32_t rid) {
  return rid >= 1 && rid <= md.rows(table);
}

Error row_error(unsigned table, std::uint32_t rid, const std::string& what) {
  return Error{Errc::kMalformed, format("%s row %u: %s", table_name(table), rid, what.c_str())};
}

constexpr auto kReserved = [] {
  std::array<bool, 256> table{};
  for (char c : std::string_view(",[]&*+\\")) table[static_cast<unsigned char>(c)] = true;
  return table;
}();

bool reserved(char c) { return kReserved[static_cast<unsigned char>(c)]; }

// Appends `name` as reflection's FullName writes it: the characters type-name syntax reserves
// (",[]&*+\") escaped with a backslash (TypeNameBuilder), e.g. "<A,B>d__1" -> "<A\,B>d__1".
void append_escaped_name(std::string& out, std::string_view name) {
  // Runs without a reserved character (nearly every name is one run) appended whole.
  std::size_t from = 0;
  for (std::size_t i = 0; i < name.size(); ++i) {
    if (!reserved(name[i])) continue;
    out.append(name, from, i - from);
    out += '\\';
    from = i;
  }
  out.append(name, from, std::string_view::npos);
}

std::size_t escaped_size(std::string_view name) {
  std::size_t n = name.size();
  for (char c : name)
    if (reserved(c)) ++n;
  return n;
}

// "NS.Name", or "Name" without a namespace, escaped.
std::string joined_name(const TypeName& t) {
  std::string s;
  append_escaped_name(s, t.ns);
  if (!s.empty()) s += '.';
  append_escaped_name(s, t.name);
  return s;
}

// "A.B, Assembly, Version=..." -> "A.B": the first comma that is not escaped ends the name.
std::string strip_assembly(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 1 < s.size()) {
      out += s[i];
      out += s[++i];
      continue;
    }
    if (s[i] == ',') break;
    out += s[i];
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

// II.23.3: prolog 0x0001, then a SerString (PackedLen + UTF-8; 0xFF is null).
bool read_type_argument(std::span<const std::uint8_t> blob, std::string& out) {
  ByteCursor c(blob);
  std::uint16_t prolog = 0;
  if (!c.read(prolog) || prolog != 1 || c.empty()) return false;
  if (*c.ptr() == 0xFF) return false;
  std::uint32_t len = 0;
  std::span<const std::uint8_t> text;
  if (!c.read_compressed(len) || !c.bytes(len, text)) return false;
  out = strip_assembly({reinterpret_cast<const char*>(text.data()), text.size()});
  return true;
}

}  // namespace

TextBudget::TextBudget(const Metadata& md) : TextBudget(std::size_t(0)) {
  std::size_t size = md.table_stream().data.size();
  for (const char* heap : {"#Strings", "#Blob", "#GUID", "#US"}) size += md.stream_size(heap);
  limit_ = left_ = std::max(kMinimum, kPerMetadataByte * size);
}

Result<TypeTables> TypeTables::build(const Metadata& md, TextBudget& budget) {
  TypeTables t;
  if (Status s = t.read_defs(md, budget); !s) return s.error();
  if (Status s = t.read_refs(md, budget); !s) return s.error();
  if (Status s = t.read_generic_params(md); !s) return s.error();
  if (Status s = t.read_interfaces(md); !s) return s.error();
  if (Status s = t.read_attributes(md, budget); !s) return s.error();
  return t;
}

Status TypeTables::read_defs(const Metadata& md, TextBudget& budget) {
  const std::uint32_t n = md.rows(kTypeDef);
  const std::uint32_t methods = md.rows(kMethodDef);
  const std::uint32_t ptrs = md.rows(kMethodPtr);
  defs_.resize(std::size_t(n) + 1);
  facts_.resize(std::size_t(n) + 1);
  owner_.assign(std::size_t(methods) + 1, 0);
  for (std::uint32_t rid = 1; rid <= n; ++rid) {
    TypeName& d = defs_[rid];
    auto name = md.string(md.column(kTypeDef, rid, kTypeDefName));
    if (!name) return row_error(kTypeDef, rid, "TypeName: " + name.error().message);
    auto ns = md.string(md.column(kTypeDef, rid, kTypeDefNamespace));
    if (!ns) return row_error(kTypeDef, rid, "TypeNamespace: " + ns.error().message);
    d.name = *name;
    d.ns = *ns;
    // Method list: [MethodList, next row's MethodList), through MethodPtr when present.
    const std::uint32_t limit = (ptrs ? ptrs : methods) + 1;
    const std::uint32_t first = std::min(md.column(kTypeDef, rid, kTypeDefMethods), limit);
    const std::uint32_t end =
        rid < n ? std::min(md.column(kTypeDef, rid + 1, kTypeDefMethods), limit) : limit;
    facts_[rid].first_method = first;
    facts_[rid].end_method = std::max(first, end);
    for (std::uint32_t i = first; i < end; ++i) {
      const std::uint32_t m = ptrs ? md.column(kMethodPtr, i, 0) : i;
      if (m >= 1 && m <= methods && owner_[m] == 0) owner_[m] = rid;
    }
  }
  for (std::uint32_t row = 1; row <= md.rows(kNestedClass); ++row) {
    const std::uint32_t nested = md.column(kNestedClass, row, kNestedNested);
    const std::uint32_t enclosing = md.column(kNestedClass, row, kNestedEnclosing);
    if (!in_range(md, kTypeDef, nested) || !in_range(md, kTypeDef, enclosing))
      return row_error(kNestedClass, row, format("TypeDef row %u or %u out of range", nested, enclosing));
    defs_[nested].enclosing = enclosing;
  }
  // FullName and the effective namespace, outermost first (chains capped: a cycle is an error).
  std::vector<std::uint32_t> chain;
  for (std::uint32_t rid = 1; rid <= n; ++rid) {
    chain.clear();
    for (std::uint32_t r = rid; r != 0; r = defs_[r].enclosing) {
      if (chain.size() == kMaxNesting)
        return row_error(kTypeDef, rid, format("nesting deeper than %u (a NestedClass cycle?)", kMaxNesting));
      chain.push_back(r);
    }
    const TypeName& outer = defs_[chain.back()];
    // Charged before it is made: a chain may repeat one long name 64 times.
    std::size_t length = escaped_size(outer.ns) + 1;
    for (std::uint32_t r : chain) length += escaped_size(defs_[r].name) + 1;
    if (!budget.charge(length * 2)) return budget.exceeded(format("TypeDef row %u", rid).c_str());
    std::string full = joined_name(outer);
    for (std::size_t i = chain.size() - 1; i-- > 0;) {
      full += '+';
      append_escaped_name(full, defs_[chain[i]].name);
    }
    defs_[rid].full_name = std::move(full);
    defs_[rid].ns = outer.ns;
  }
  by_full_name_.reserve(n);
  for (std::uint32_t rid = 1; rid <= n; ++rid) by_full_name_.emplace_back(defs_[rid].full_name, rid);
  std::stable_sort(by_full_name_.begin(), by_full_name_.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  return {};
}

Status TypeTables::read_refs(const Metadata& md, TextBudget& budget) {
  const std::uint32_t n = md.rows(kTypeRef);
  refs_.resize(std::size_t(n) + 1);
  std::vector<std::uint32_t> parent(std::size_t(n) + 1, 0);
  for (std::uint32_t rid = 1; rid <= n; ++rid) {
    auto name = md.string(md.column(kTypeRef, rid, kTypeRefName));
    if (!name) return row_error(kTypeRef, rid, "TypeName: " + name.error().message);
    auto ns = md.string(md.column(kTypeRef, rid, kTypeRefNamespace));
    if (!ns) return row_error(kTypeRef, rid, "TypeNamespace: " + ns.error().message);
    refs_[rid].name = *name;
    refs_[rid].ns = *ns;
    const CodedRow scope = decode_coded(CodedIndex::kResolutionScope, md.column(kTypeRef, rid, kTypeRefScope));
    if (scope.table == kTypeRef && in_range(md, kTypeRef, scope.rid)) parent[rid] = scope.rid;
  }
  std::vector<std::uint32_t> chain;
  for (std::uint32_t rid = 1; rid <= n; ++rid) {
    chain.clear();
    for (std::uint32_t r = rid; r != 0; r = parent[r]) {
      if (chain.size() == kMaxNesting)
        return row_error(kTypeRef, rid, format("nesting deeper than %u (a ResolutionScope cycle?)", kMaxNesting));
      chain.push_back(r);
    }
    const TypeName& outer = refs_[chain.back()];
    // Charged before it is made: a chain may repeat one long name 64 times.
    std::size_t length = escaped_size(outer.ns) + 1;
    for (std::uint32_t r : chain) length += escaped_size(refs_[r].name) + 1;
    if (!budget.charge(length)) return budget.exceeded(format("TypeRef row %u", rid).c_str());
    std::string full = joined_name(outer);
    for (std::size_t i = chain.size() - 1; i-- > 0;) {
      full += '+';
      append_escaped_name(full, refs_[chain[i]].name);
    }
    refs_[rid].full_name = std::move(full);
    refs_[rid].ns = outer.ns;
  }
  return {};
}

Status TypeTables::read_generic_params(const Metadata& md) {
  method_gp_.assign(std::size_t(md.rows(kMethodDef)) + 1, {});
  for (std::uint32_t row = 1; row <= md.rows(kGenericParam); ++row) {
    const std::uint32_t number = md.column(kGenericParam, row, kGpNumber);
    const CodedRow owner = decode_coded(CodedIndex::kTypeOrMethodDef, md.column(kGenericParam, row, kGpOwner));
    auto name = md.string(md.column(kGenericParam, row, kGpName));
    if (!name) return row_error(kGenericParam, row, "Name: " + name.error().message);
    if (owner.table == 0xFF || !in_range(md, owner.table, owner.rid))
      return row_error(kGenericParam, row, "Owner out of range");
    auto& list = owner.table == kTypeDef ? facts_[owner.rid].generic_params : method_gp_[owner.rid];
    if (number >= 0x10000) return row_error(kGenericParam, row, "Number out of range");
    if (list.size() <= number) list.resize(number + 1);
    list[number] = *name;
  }
  return {};
}

const std::vector<std::string_view>& TypeTables::method_generic_params(std::uint32_t rid) const {
  static const std::vector<std::string_view> kNone;
  return rid < method_gp_.size() ? method_gp_[rid] : kNone;
}

Result<std::pair<std::string_view, std::string_view>> TypeTables::type_def_or_ref(
    std::uint32_t coded) const {
  const CodedRow c = decode_coded(CodedIndex::kTypeDefOrRef, coded);
  if (c.table == kTypeDef && c.rid >= 1 && c.rid < defs_.size())
    return std::pair{defs_[c.rid].ns, defs_[c.rid].name};
  if (c.table == kTypeRef && c.rid >= 1 && c.rid < refs_.size())
    return std::pair{refs_[c.rid].ns, refs_[c.rid].name};
  return std::pair{std::string_view{}, std::string_view{}};  // TypeSpec or out of range: no name
}

Status TypeTables::read_interfaces(const Metadata& md) {
  for (std::uint32_t row = 1; row <= md.rows(kInterfaceImpl); ++row) {
    const std::uint32_t cls = md.column(kInterfaceImpl, row, kIfaceClass);
    if (!in_range(md, kTypeDef, cls)) return row_error(kInterfaceImpl, row, "Class out of range");
    auto iface = type_def_or_ref(md.column(kInterfaceImpl, row, kIfaceInterface));
    if (!iface) return iface.error();
    const auto [ns, name] = *iface;
    const bool async = ns == kCompilerServices && name == "IAsyncStateMachine";
    if (async || (ns == "System.Collections" && name == "IEnumerator")) facts_[cls].state_machine = true;
    if (async) facts_[cls].async_state_machine = true;
  }
  return {};
}

Result<std::pair<std::string_view, std::string_view>> TypeTables::attribute_type(
    const Metadata& md, std::uint32_t coded) const {
  const CodedRow ctor = decode_coded(CodedIndex::kCustomAttributeType, coded);
  if (ctor.table == kMethodDef && in_range(md, kMethodDef, ctor.rid)) {
    const std::uint32_t owner = method_owner(ctor.rid);
    if (owner) return std::pair{defs_[owner].ns, defs_[owner].name};
  } else if (ctor.table == kMemberRef && in_range(md, kMemberRef, ctor.rid)) {
    const CodedRow cls = decode_coded(CodedIndex::kMemberRefParent, md.column(kMemberRef, ctor.rid, kMemberRefClass));
    if (cls.table == kTypeRef && cls.rid >= 1 && cls.rid < refs_.size())
      return std::pair{refs_[cls.rid].ns, refs_[cls.rid].name};
    if (cls.table == kTypeDef && cls.rid >= 1 && cls.rid < defs_.size())
      return std::pair{defs_[cls.rid].ns, defs_[cls.rid].name};
  }
  return std::pair{std::string_view{}, std::string_view{}};
}

Status TypeTables::read_attributes(const Metadata& md, TextBudget& budget) {
  for (std::uint32_t row = 1; row <= md.rows(kCustomAttribute); ++row) {
    const CodedRow parent = decode_coded(CodedIndex::kHasCustomAttribute, md.column(kCustomAttribute, row, kCaParent));
    if (parent.table != kTypeDef && parent.table != kMethodDef) continue;
    if (!in_range(md, parent.table, parent.rid)) continue;
    auto type = attribute_type(md, md.column(kCustomAttribute, row, kCaType));
    if (!type) return type.error();
    const auto [ns, name] = *type;
    if (ns != kCompilerServices) continue;
    if (parent.table == kTypeDef) {
      if (name == "CompilerGeneratedAttribute") facts_[parent.rid].compiler_generated = true;
      continue;
    }
    StateMachineKind kind = name == "AsyncStateMachineAttribute"           ? StateMachineKind::kAsync
                            : name == "IteratorStateMachineAttribute"      ? StateMachineKind::kIterator
                            : name == "AsyncIteratorStateMachineAttribute" ? StateMachineKind::kAsyncIterator
                                                                           : StateMachineKind::kNone;
    if (kind == StateMachineKind::kNone) continue;
    auto blob = md.blob(md.column(kCustomAttribute, row, kCaValue));
    if (!blob) return row_error(kCustomAttribute, row, "Value: " + blob.error().message);
    StateMachineAttribute a;
    a.method = parent.rid;
    a.kind = kind;
    if (!budget.charge(blob->size())) return budget.exceeded(format("CustomAttribute row %u", row).c_str());
    if (read_type_argument(*blob, a.type_name)) sm_attrs_.push_back(std::move(a));
  }
  return {};
}

std::uint32_t TypeTables::find_def(std::string_view full_name) const {
  auto it = std::lower_bound(by_full_name_.begin(), by_full_name_.end(), full_name,
                             [](const auto& e, std::string_view k) { return e.first < k; });
  return it != by_full_name_.end() && it->first == full_name ? it->second : 0;
}

}  // namespace ilmap::names
