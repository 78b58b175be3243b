// MethodNames.cpp - MethodDef rows to CoreCLR and Mono frame text (rules in MethodNames.h).
#include "decode/names/MethodNames.h"

#include <algorithm>
#include <cstring>

#include <xxhash.h>

#include "decode/names/Signature.h"
#include "decode/names/TypeNames.h"

namespace ilmap::names {
namespace {

constexpr unsigned kMethodName = 3, kMethodSignature = 4, kMethodParams = 5;
constexpr unsigned kParamSequence = 1, kParamName = 2;
constexpr unsigned kModuleName = 1, kModuleMvid = 2;
constexpr unsigned kAssemblyName = 7;
constexpr unsigned kMaxTypeSpecDepth = 16;

// Generic parameter names of generic types defined in other assemblies, which Mono prints in a
// parameter's type ("System.Func`2[T,TResult]") but which the module does not contain: a table
// of base-library and FSharp.Core types whose names are not the defaults below (sorted by full
// name), the Func/Action/Tuple/ValueTuple families by rule, "T" for any other one-parameter type
// (the .NET convention), and "?" for each parameter of any other type.
struct KnownGeneric {
  std::string_view full_name;
  std::string_view params;
};
constexpr KnownGeneric kKnownGenerics[] = {
    {"Microsoft.FSharp.Core.FSharpFunc`2", "T,TResult"},
    {"Microsoft.FSharp.Core.FSharpResult`2", "T,TError"},
    {"System.Collections.Concurrent.ConcurrentDictionary`2", "TKey,TValue"},
    {"System.Collections.Generic.Dictionary`2", "TKey,TValue"},
    {"System.Collections.Generic.Dictionary`2+Enumerator", "TKey,TValue"},
    {"System.Collections.Generic.Dictionary`2+KeyCollection", "TKey,TValue"},
    {"System.Collections.Generic.Dictionary`2+ValueCollection", "TKey,TValue"},
    {"System.Collections.Generic.IDictionary`2", "TKey,TValue"},
    {"System.Collections.Generic.IReadOnlyDictionary`2", "TKey,TValue"},
    {"System.Collections.Generic.KeyValuePair`2", "TKey,TValue"},
    {"System.Collections.Generic.SortedDictionary`2", "TKey,TValue"},
    {"System.Collections.Generic.SortedList`2", "TKey,TValue"},
    {"System.Converter`2", "TInput,TOutput"},
    {"System.EventHandler`1", "TEventArgs"},
    {"System.Func`1", "TResult"},
    {"System.Func`2", "T,TResult"},
    {"System.Linq.Expressions.Expression`1", "TDelegate"},
    {"System.Linq.IGrouping`2", "TKey,TElement"},
    {"System.Linq.ILookup`2", "TKey,TElement"},
    {"System.Linq.IOrderedEnumerable`1", "TElement"},
    {"System.Runtime.CompilerServices.AsyncTaskMethodBuilder`1", "TResult"},
    {"System.Runtime.CompilerServices.ConfiguredTaskAwaitable`1", "TResult"},
    {"System.Runtime.CompilerServices.TaskAwaiter`1", "TResult"},
    {"System.Threading.Tasks.TaskCompletionSource`1", "TResult"},
    {"System.Threading.Tasks.Task`1", "TResult"},
    {"System.Threading.Tasks.ValueTask`1", "TResult"},
};
static_assert(std::is_sorted(std::begin(kKnownGenerics), std::end(kKnownGenerics),
                             [](const KnownGeneric& a, const KnownGeneric& b) { return a.full_name < b.full_name; }));

// "System.Func`3" -> 3 when `full_name` is `family` + '`' + a number (no nesting after it).
std::size_t family_arity(std::string_view full_name, std::string_view family) {
  if (full_name.size() <= family.size() + 1 || full_name.substr(0, family.size()) != family ||
      full_name[family.size()] != '`')
    return 0;
  std::size_t n = 0;
  for (char c : full_name.substr(family.size() + 1)) {
    if (c < '0' || c > '9' || n > 100) return 0;
    n = n * 10 + std::size_t(c - '0');
  }
  return n;
}

// Appends "[T,TResult]" for a generic type of another assembly (see kKnownGenerics).
void append_generic_parameter_names(std::string& s, std::string_view full_name, std::size_t arity) {
  s += '[';
  auto it = std::lower_bound(std::begin(kKnownGenerics), std::end(kKnownGenerics), full_name,
                             [](const KnownGeneric& k, std::string_view n) { return k.full_name < n; });
  auto numbered = [&](std::size_t count, std::string_view last) {  // T1,T2,...,last
    for (std::size_t i = 1; i <= count; ++i) {
      if (i > 1) s += ',';
      if (i == count && !last.empty()) {
        s += last;
      } else {
        s += 'T';
        s += std::to_string(i);
      }
    }
  };
  if (it != std::end(kKnownGenerics) && it->full_name == full_name) {
    s += it->params;
  } else if (std::size_t n = family_arity(full_name, "System.Func"); n == arity && n >= 3) {
    numbered(n, "TResult");  // Func`3 [T1,T2,TResult]
  } else if (std::size_t a = family_arity(full_name, "System.Action"); a == arity && a >= 2) {
    numbered(a, {});  // Action`2 [T1,T2]
  } else if (std::size_t t = std::max(family_arity(full_name, "System.Tuple"),
                                      family_arity(full_name, "System.ValueTuple"));
             t == arity && t >= 2) {
    numbered(t, t == 8 ? "TRest" : "");  // Tuple`2 [T1,T2], Tuple`8 [T1,...,T7,TRest]
  } else if (arity == 1) {
    s += 'T';
  } else {
    for (std::size_t i = 0; i < arity; ++i) s += i ? ",?" : "?";
  }
  s += ']';
}

// Appends what an array, pointer or by-ref node adds to its element's name: "[]", "[,]", "*", "&".
void append_suffix(const SigNode& n, std::string& s) {
  if (n.kind == kEtSzArray) s += "[]";
  else if (n.kind == kEtByRef) s += '&';
  else if (n.kind == kEtPtr) s += '*';
  else if (n.number == 1) s += "[*]";
  else {
    s += '[';
    s.append(n.number - 1, ',');
    s += ']';
  }
}

// Names the types of one method's signature, appending to a caller's buffer (no allocation per
// type once the buffers have grown). `specs` holds the TypeSpecs decoded into `nodes` for this
// signature (cleared with it).
class TypeRenderer {
 public:
  using Specs = std::vector<std::pair<std::uint32_t, std::uint32_t>>;  // TypeSpec rid -> decoded root
  TypeRenderer(const Metadata& md, const TypeTables& types, TextBudget& budget, SigTypes& nodes,
               Specs& specs, const std::vector<std::string_view>& type_gp,
               const std::vector<std::string_view>& method_gp)
      : md_(md), types_(types), budget_(budget), nodes_(nodes), specs_(specs), type_gp_(type_gp),
        method_gp_(method_gp) {}

  // CoreCLR Type.Name.
  Status name(std::uint32_t node, std::string& out, unsigned depth = 0);
  // Mono's parameter type text (Type.ToString of the parameter type's definition).
  Status mono(std::uint32_t node, std::string& out, bool definition = true, unsigned depth = 0);

 private:
  struct Named {
    const TypeName* type = nullptr;  // TypeDef / TypeRef
    std::uint32_t spec_root = 0;     // TypeSpec: its decoded root node
    bool spec = false;
  };
  Result<Named> resolve(const SigNode& n, unsigned depth);

  const Metadata& md_;
  const TypeTables& types_;
  TextBudget& budget_;
  SigTypes& nodes_;
  Specs& specs_;
  const std::vector<std::string_view>& type_gp_;
  const std::vector<std::string_view>& method_gp_;
};

Result<TypeRenderer::Named> TypeRenderer::resolve(const SigNode& n, unsigned depth) {
  Named out;
  if (n.table == kTypeDef && n.rid <= types_.typedef_count()) {
    out.type = &types_.def(n.rid);
  } else if (n.table == kTypeRef && n.rid <= types_.typeref_count()) {
    out.type = &types_.ref(n.rid);
  } else if (n.table == kTypeSpec && n.rid <= md_.rows(kTypeSpec)) {
    if (depth >= kMaxTypeSpecDepth)
      return Error{Errc::kMalformed, format("TypeSpec row %u: TypeSpecs nested deeper than %u", n.rid, kMaxTypeSpecDepth)};
    out.spec = true;
    for (const auto& [rid, root] : specs_)  // each TypeSpec is decoded once per signature
      if (rid == n.rid) {
        out.spec_root = root;
        return out;
      }
    const std::uint32_t off = md_.column(kTypeSpec, n.rid, 0);
    auto blob = md_.blob(off);
    if (!blob) return Error{blob.error().code, format("TypeSpec row %u: ", n.rid) + blob.error().message};
    if (!budget_.charge(blob->size())) return budget_.exceeded(format("TypeSpec row %u", n.rid).c_str());
    auto root = decode_type_spec(*blob, off, nodes_);
    if (!root) return root.error();
    out.spec_root = *root;
    specs_.emplace_back(n.rid, *root);
  } else {
    return Error{Errc::kMalformed, format("%s row %u out of range", table_name(n.table), n.rid)};
  }
  return out;
}

Status TypeRenderer::name(std::uint32_t node, std::string& s, unsigned depth) {
  const SigNode n = nodes_.nodes[node];  // a copy: resolve() may grow the vector
  if (const char* p = primitive_name(n.kind)) {
    s += p;
    return {};
  }
  switch (n.kind) {
    case kEtClass: case kEtValueType: case kEtGenericInst: {
      auto r = resolve(n, depth);
      if (!r) return r.error();
      if (r->spec) return name(r->spec_root, s, depth + 1);
      s += r->type->name;
      return {};
    }
    case kEtVar: case kEtMVar: {
      const auto& list = n.kind == kEtVar ? type_gp_ : method_gp_;
      if (n.number >= list.size() || list[n.number].empty())
        return Error{Errc::kMalformed, format("%s %u: no such generic parameter", n.kind == kEtVar ? "VAR" : "MVAR", n.number)};
      s += list[n.number];
      return {};
    }
    case kEtSzArray: case kEtArray: case kEtByRef: case kEtPtr: {
      if (Status e = name(n.element, s, depth); !e) return e;
      append_suffix(n, s);
      return {};
    }
    case kEtFnPtr:
      // .NET 8+ reflection gives a function pointer type an empty Name (checked by
      // tests/oracle-names on cs-signatures): the frame shows "Int32* p,  f".
      return {};
    default:
      return Error{Errc::kMalformed, format("element type 0x%02x has no name", n.kind)};
  }
}

// Type.ToString() as Mono prints it: full names ("System.Int32", "NS.Outer+Inner"), generic
// instances with their arguments ("System.Collections.Generic.List`1[System.Int32]"), and at the
// top (`definition`) a generic instance replaced by its definition, whose parameters are named
// ("System.Collections.Generic.List`1[T]"). Function pointers are IntPtr to Mono.
Status TypeRenderer::mono(std::uint32_t node, std::string& s, bool definition, unsigned depth) {
  const SigNode n = nodes_.nodes[node];
  if (const char* p = primitive_name(n.kind)) {
    s += "System.";
    s += p;
    return {};
  }
  switch (n.kind) {
    case kEtClass: case kEtValueType: case kEtGenericInst: {
      auto r = resolve(n, depth);
      if (!r) return r.error();
      if (r->spec) return mono(r->spec_root, s, definition, depth + 1);
      s += r->type->full_name;
      const std::vector<std::string_view>* own = nullptr;  // the definition's parameter names
      if (n.table == kTypeDef) own = &types_.facts(n.rid).generic_params;
      if (n.kind != kEtGenericInst || definition) {
        if (own && !own->empty()) {
          s += '[';
          for (std::size_t i = 0; i < own->size(); ++i) {
            if (i) s += ',';
            s += (*own)[i];
          }
          s += ']';
        } else if (n.kind == kEtGenericInst) {
          append_generic_parameter_names(s, r->type->full_name, n.arg_count);
        }
        return {};
      }
      s += '[';
      for (std::uint32_t i = 0; i < n.arg_count; ++i) {
        if (i) s += ',';
        // By index: mono() may grow arg_nodes (a TypeSpec decoded on the way).
        if (Status a = mono(nodes_.arg_nodes[n.first_arg + i], s, false, depth); !a) return a;
      }
      s += ']';
      return {};
    }
    case kEtVar: case kEtMVar:
      return name(node, s, depth);
    case kEtSzArray: case kEtArray: case kEtByRef: case kEtPtr: {
      // The suffix is the one Type.Name adds.
      if (Status e = mono(n.element, s, false, depth); !e) return e;
      append_suffix(n, s);
      return {};
    }
    case kEtFnPtr:
      s += "System.IntPtr";
      return {};
    default:
      return Error{Errc::kMalformed, format("element type 0x%02x has no name", n.kind)};
  }
}

std::uint64_t hash_key(std::string_view key) { return XXH3_64bits(key.data(), key.size()); }

Error method_error(std::uint32_t rid, const std::string& what) {
  return Error{Errc::kMalformed, format("MethodDef row %u: %s", rid, what.c_str())};
}

// Param rows of MethodDef `rid`: [ParamList, next method's ParamList), through ParamPtr.
Status read_param_names(const Metadata& md, std::uint32_t rid, TextBudget& budget, MethodName& m,
                        std::vector<ParamName>& params) {
  const std::uint32_t ptrs = md.rows(kParamPtr);
  const std::uint32_t limit = (ptrs ? ptrs : md.rows(kParam)) + 1;
  const std::uint32_t first = std::min(md.column(kMethodDef, rid, kMethodParams), limit);
  const std::uint32_t end = rid < md.rows(kMethodDef)
                                ? std::min(md.column(kMethodDef, rid + 1, kMethodParams), limit)
                                : limit;
  for (std::uint32_t i = first; i < end; ++i) {
    const std::uint32_t p = ptrs ? md.column(kParamPtr, i, 0) : i;
    if (p < 1 || p > md.rows(kParam)) continue;
    const std::uint32_t seq = md.column(kParam, p, kParamSequence);
    if (seq == 0 || seq > m.param_count) continue;  // 0 is the return value
    auto name = md.string(md.column(kParam, p, kParamName));
    if (!name) continue;
    if (!budget.charge(name->size() + 1)) return budget.exceeded(format("Param row %u", p).c_str());
    params[m.first_param + seq - 1].name = *name;
  }
  return {};
}

// Per-module scratch for read_signature. Many methods share one signature blob (the #Blob heap
// stores each distinct signature once: every "void M(string)" of a module points at the same
// bytes). A signature that names no generic parameter (VAR/MVAR, also inside its TypeSpecs)
// renders the same parameter types in every method, so the first method's parameters are
// reused, found by blob offset, together with what rendering them charged to the budget,
// which is charged again on reuse.
class SignatureScratch {
 public:
  struct Rendered {
    std::uint32_t blob = 0;
    std::uint32_t first = 0, count = 0;  // the parameters in ModuleNames::params_ (their types)
    std::size_t charged = 0;             // the budget the TypeSpecs and parameter types took
    bool used = false;
  };
  // At most one entry per method: an open-addressing table of twice that many slots, which
  // never grows (no allocation per entry, unlike a node-based map).
  explicit SignatureScratch(std::uint32_t methods) {
    shift_ = 64 - 4;
    while ((std::size_t(1) << (64 - shift_)) < 2 * std::size_t(methods)) --shift_;
    table_.resize(std::size_t(1) << (64 - shift_));
  }
  // The entry of `blob`: used == false when there is none yet (fill it in to keep one).
  Rendered& find(std::uint32_t blob) {
    const std::size_t mask = table_.size() - 1;
    // Fibonacci hashing: the product's top bits depend on every bit of the offset (offsets that
    // share their low bits do not crowd into a few slots).
    std::size_t i = std::size_t((blob * 0x9E3779B97F4A7C15ull) >> shift_);
    while (table_[i].used && table_[i].blob != blob) i = (i + 1) & mask;
    return table_[i];
  }

  SigTypes nodes;              // reused: cleared per signature
  MethodSig sig;               // reused: its parameter list keeps its capacity
  TypeRenderer::Specs specs;   // the TypeSpecs decoded into `nodes`
  std::string name, mono;      // reused text buffers

 private:
  std::vector<Rendered> table_;
  unsigned shift_ = 0;  // 64 - log2(table size)
};

bool names_generic_parameter(const SigTypes& nodes) {
  for (const SigNode& n : nodes.nodes)
    if (n.kind == kEtVar || n.kind == kEtMVar) return true;
  return false;
}

// Decodes the signature and names its parameters (their texts kept in `text`); on failure
// m.bad_signature and m.error. The only error returned is the budget's.
Status read_signature(const Metadata& md, const TypeTables& types, TextBudget& budget,
                      std::uint32_t rid, MethodName& m, std::vector<ParamName>& params,
                      SignatureScratch& scratch, TextStore& text) {
  m.first_param = params.size();
  const std::uint32_t off = md.column(kMethodDef, rid, kMethodSignature);
  auto fail = [&](const Error& e) -> Status {
    if (e.code == Errc::kTooLarge) return e;
    m.bad_signature = true;
    m.error = format("MethodDef row %u: ", rid) + e.message;
    params.resize(m.first_param);
    m.param_count = 0;
    return {};
  };
  auto blob = md.blob(off);
  if (!blob) return fail(blob.error());
  if (!budget.charge(blob->size() + m.name.size())) return budget.exceeded(format("MethodDef row %u", rid).c_str());
  // Reused only when the budget covers all of it; otherwise rendered again, so that the budget
  // runs out at the same charge as without the reuse.
  SignatureScratch::Rendered& kept = scratch.find(off);
  if (kept.used && budget.left() >= kept.charged) {
    (void)budget.charge(kept.charged);
    params.reserve(params.size() + kept.count);  // no reallocation while copying from it
    for (std::uint32_t i = 0; i < kept.count; ++i)
      params.push_back({params[kept.first + i].type, params[kept.first + i].mono_type, {}});
    m.param_count = kept.count;
    return read_param_names(md, rid, budget, m, params);
  }
  SigTypes& nodes = scratch.nodes;
  nodes.clear();
  scratch.specs.clear();
  MethodSig& sig = scratch.sig;
  if (Status d = decode_method_signature(*blob, off, nodes, sig); !d) return fail(d.error());
  static const std::vector<std::string_view> kNone;
  TypeRenderer r(md, types, budget, nodes, scratch.specs,
                 m.type_rid ? types.facts(m.type_rid).generic_params : kNone,
                 types.method_generic_params(rid));
  const std::size_t left = budget.left();
  std::string& name = scratch.name;
  std::string& mono = scratch.mono;
  for (std::uint32_t p : sig.params) {
    name.clear();
    mono.clear();
    if (Status s = r.name(p, name); !s) return fail(s.error());
    if (Status s = r.mono(p, mono); !s) return fail(s.error());
    if (!budget.charge(name.size() + mono.size() + 2))
      return budget.exceeded(format("MethodDef row %u", rid).c_str());
    params.push_back({text.keep(name), text.keep(mono), {}});
    ++m.param_count;
  }
  if (!kept.used && !names_generic_parameter(nodes)) {
    kept.used = true;
    kept.blob = off;
    kept.first = std::uint32_t(m.first_param);
    kept.count = std::uint32_t(m.param_count);
    kept.charged = left - budget.left();
  }
  return read_param_names(md, rid, budget, m, params);
}

}  // namespace

std::string_view TextStore::keep(std::string_view s) {
  if (s.empty()) return {};
  if (s.size() > left_) {
    constexpr std::size_t kBlock = 64 << 10;
    const std::size_t size = std::max(kBlock, s.size());
    blocks_.push_back(std::make_unique_for_overwrite<char[]>(size));
    next_ = blocks_.back().get();
    left_ = size;
  }
  char* at = next_;
  std::memcpy(at, s.data(), s.size());
  next_ += s.size();
  left_ -= s.size();
  return {at, s.size()};
}

Status ModuleNames::read_identity(const Metadata& md) {
  if (md.rows(kModule) >= 1) {
    auto name = md.string(md.column(kModule, 1, kModuleName));
    if (!name) return {name.error().code, "Module row 1 Name: " + name.error().message};
    module_name_ = *name;
    auto mvid = md.guid(md.column(kModule, 1, kModuleMvid));
    if (!mvid) return {mvid.error().code, "Module row 1 Mvid: " + mvid.error().message};
    mvid_ = *mvid;
  }
  if (md.rows(kAssembly) >= 1) {
    auto name = md.string(md.column(kAssembly, 1, kAssemblyName));
    if (!name) return {name.error().code, "Assembly row 1 Name: " + name.error().message};
    assembly_name_ = *name;
  }
  return {};
}

Result<ModuleNames> ModuleNames::build(const Metadata& md, std::size_t max_text, NameIndex index) {
  ModuleNames out;
  if (Status s = out.read_identity(md); !s) return s.error();
  TextBudget budget = max_text ? TextBudget(max_text) : TextBudget(md);
  auto types = TypeTables::build(md, budget);
  if (!types) return types.error();

  // Declaring types as printed. TypeDef row 1 is <Module>: its methods have no declaring type.
  const std::uint32_t ntypes = types->typedef_count();
  out.type_coreclr_.resize(std::size_t(ntypes) + 1);
  out.type_mono_.resize(std::size_t(ntypes) + 1);
  std::string text;  // reused
  for (std::uint32_t rid = 2; rid <= ntypes; ++rid) {
    const std::string& full = types->def(rid).full_name;
    text.assign(full);
    std::replace(text.begin(), text.end(), '+', '.');
    out.type_coreclr_[rid] = out.text_.keep(text);
    const auto& gp = types->facts(rid).generic_params;
    std::size_t length = 2;
    for (std::string_view g : gp) length += g.size() + 1;
    if (!budget.charge(length)) return budget.exceeded(format("TypeDef row %u", rid).c_str());
    if (gp.empty()) {
      out.type_mono_[rid] = out.text_.keep(full);
      continue;
    }
    text.assign(full);
    text += '[';
    for (std::size_t i = 0; i < gp.size(); ++i) {
      if (i) text += ',';
      text += gp[i];
    }
    text += ']';
    out.type_mono_[rid] = out.text_.keep(text);
  }

  const std::uint32_t n = md.rows(kMethodDef);
  out.methods_.resize(n);
  SignatureScratch scratch(n);
  out.params_.reserve(n);
  for (std::uint32_t rid = 1; rid <= n; ++rid) {
    MethodName& m = out.methods_[rid - 1];
    m.token = 0x06000000u | rid;
    m.type_rid = types->method_owner(rid);
    auto name = md.string(md.column(kMethodDef, rid, kMethodName));
    if (!name) return method_error(rid, "Name: " + name.error().message);
    m.name = *name;
    m.generic_params = types->method_generic_params(rid);
    std::size_t length = 0;
    for (std::string_view g : m.generic_params) length += g.size() + 1;
    if (!budget.charge(length)) return budget.exceeded(format("MethodDef row %u", rid).c_str());
    if (Status s = read_signature(md, *types, budget, rid, m, out.params_, scratch, out.text_); !s) return s.error();
  }

  // State machines (StackTrace.TryResolveStateMachineMethod): the first method of the enclosing
  // type whose state-machine attribute names the type.
  std::vector<const StateMachineAttribute*> kickoff(std::size_t(ntypes) + 1, nullptr);
  for (const StateMachineAttribute& a : types->state_machine_attributes()) {
    const std::uint32_t sm = types->find_def(a.type_name);
    if (sm == 0 || kickoff[sm] || types->def(sm).enclosing == 0) continue;
    if (types->method_owner(a.method) != types->def(sm).enclosing) continue;
    kickoff[sm] = &a;
  }
  for (MethodName& m : out.methods_) {
    const std::uint32_t t = m.type_rid;
    if (t == 0 || !kickoff[t]) continue;
    const TypeDefFacts& f = types->facts(t);
    if (f.compiler_generated && f.state_machine) {
      m.kickoff = 0x06000000u | kickoff[t]->method;
      m.iterator = kickoff[t]->kind == StateMachineKind::kIterator ||
                   kickoff[t]->kind == StateMachineKind::kAsyncIterator;
    }
    // Mono (StackTrace.ConvertAsyncStateMachineMethod): IAsyncStateMachine types and
    // AsyncStateMachineAttribute only; [CompilerGenerated] is not looked at.
    if (f.async_state_machine && kickoff[t]->kind == StateMachineKind::kAsync)
      m.mono_kickoff = 0x06000000u | kickoff[t]->method;
  }

  // Name index: (hash of the key, token), sorted; keys are made again to confirm a hit.
  if (index == NameIndex::kSkip) return out;
  out.index_.reserve(out.methods_.size());
  std::string key;
  auto hash_of = [&](const MethodName& m) {
    key.clear();
    out.append_index_key(m, key);
    return hash_key(key);
  };
  for (const MethodName& m : out.methods_) {
    out.index_.push_back({hash_of(m), m.token, false});
    if (m.kickoff) out.index_.push_back({hash_of(out.methods_[(m.kickoff & 0xFFFFFF) - 1]), m.token, true});
  }
  std::sort(out.index_.begin(), out.index_.end(), [](const IndexEntry& a, const IndexEntry& b) {
    return a.hash != b.hash ? a.hash < b.hash : a.token < b.token;
  });
  return out;
}

const MethodName* ModuleNames::method(std::uint32_t token) const {
  const std::uint32_t rid = token & 0xFFFFFF;
  if ((token >> 24) != kMethodDef || rid == 0 || rid > methods_.size()) return nullptr;
  return &methods_[rid - 1];
}

std::string ModuleNames::coreclr_type(std::uint32_t rid) const {
  return rid < type_coreclr_.size() ? std::string(type_coreclr_[rid]) : std::string();
}

std::string ModuleNames::mono_type(std::uint32_t rid) const {
  return rid < type_mono_.size() ? std::string(type_mono_[rid]) : std::string();
}

std::vector<std::uint32_t> ModuleNames::find(std::string_view name) const {
  std::vector<std::uint32_t> out;
  std::string key;
  const std::uint64_t h = hash_key(name);
  auto it = std::lower_bound(index_.begin(), index_.end(), h,
                             [](const IndexEntry& e, std::uint64_t k) { return e.hash < k; });
  for (; it != index_.end() && it->hash == h; ++it) {
    const MethodName* m = method(it->token);
    const MethodName* keyed = it->via_kickoff ? method(m->kickoff) : m;
    key.clear();
    append_index_key(*keyed, key);
    if (key == name && (out.empty() || out.back() != it->token)) out.push_back(it->token);
  }
  return out;
}

std::string index_key_from_mono(std::string_view text) {
  std::string key;
  key.reserve(text.size());
  std::size_t depth = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (depth > 0) {  // inside a generic list: skip, keeping count of nested lists
      if (c == '[') ++depth;
      else if (c == ']') --depth;
      continue;
    }
    if (c == '\\' && i + 1 < text.size()) {  // an escaped character stays as it is
      key += c;
      key += text[++i];
      continue;
    }
    if (c == '[') {
      depth = 1;
      continue;
    }
    key += c == '+' ? '.' : c;
  }
  return key;
}

}  // namespace ilmap::names
