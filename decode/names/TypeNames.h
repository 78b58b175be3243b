// TypeNames.h - the names reflection gives the types of one module: TypeDef and TypeRef rows
// with their namespace, nesting (NestedClass, ResolutionScope), generic parameters
// (GenericParam), and the few facts the stack-trace printers test (compiler-generated,
// state-machine interfaces, AsyncStateMachine/IteratorStateMachine attributes).
//
// ECMA-335 II.22.14 NestedClass, II.22.20 GenericParam, II.22.23 InterfaceImpl, II.22.37 TypeDef,
// II.22.38 TypeRef, II.22.10 CustomAttribute with the blob of II.23.3. Built once per module;
// every row index read from the file is checked, and nesting chains are capped (a cycle is an
// error naming the row).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "decode/Metadata.h"
#include "ilmap/status.h"

namespace ilmap::names {

// Caps the work and memory spent on one module's names: the bytes of every string made and of
// every signature and TypeSpec blob decoded are charged. Metadata can make one name appear in
// many others (nesting chains, shared signature blobs), so without a cap a small file could ask
// for gigabytes. The limit, max(64 MiB, 16 x the metadata size), is far above any real module.
class TextBudget {
 public:
  static constexpr std::size_t kMinimum = 64u << 20;
  static constexpr std::size_t kPerMetadataByte = 16;
  explicit TextBudget(const Metadata& md);
  explicit TextBudget(std::size_t limit) : limit_(limit), left_(limit) {}

  bool charge(std::size_t n) {
    if (n > left_) {
      left_ = 0;
      return false;
    }
    left_ -= n;
    return true;
  }
  std::size_t left() const { return left_; }
  Error exceeded(const char* where) const {
    return Error{Errc::kTooLarge, format("method names: %s: over the limit of %zu bytes of names and "
                                         "signatures for this module", where, limit_)};
  }

 private:
  std::size_t limit_, left_;
};

struct TypeName {
  std::string_view name;           // simple name (Type.Name): "Inner`1"
  std::string_view ns;             // Type.Namespace: the outermost enclosing type's namespace
  std::string full_name;           // Type.FullName: "NS.Outer`1+Inner`1", ",[]&*+\\" escaped
  std::uint32_t enclosing = 0;     // TypeDef: enclosing TypeDef rid (0: not nested)
};

struct TypeDefFacts {
  std::vector<std::string_view> generic_params;  // by Number
  std::uint32_t first_method = 0, end_method = 0;  // MethodDef rids [first, end) (after MethodPtr)
  bool compiler_generated = false;               // [CompilerGenerated]
  bool state_machine = false;                    // implements IAsyncStateMachine or IEnumerator
  bool async_state_machine = false;              // implements IAsyncStateMachine
};

enum class StateMachineKind : std::uint8_t { kNone, kAsync, kIterator, kAsyncIterator };

struct StateMachineAttribute {
  std::uint32_t method = 0;        // the MethodDef rid carrying the attribute (the kickoff method)
  StateMachineKind kind = StateMachineKind::kNone;
  std::string type_name;           // the attribute's Type argument, assembly part removed
};

class TypeTables {
 public:
  static Result<TypeTables> build(const Metadata& md, TextBudget& budget);

  std::uint32_t typedef_count() const { return std::uint32_t(defs_.size()) - 1; }
  std::uint32_t typeref_count() const { return std::uint32_t(refs_.size()) - 1; }
  // Precondition: 1 <= rid <= count.
  const TypeName& def(std::uint32_t rid) const { return defs_[rid]; }
  const TypeDefFacts& facts(std::uint32_t rid) const { return facts_[rid]; }
  const TypeName& ref(std::uint32_t rid) const { return refs_[rid]; }
  // Declaring TypeDef of a MethodDef (0 when no TypeDef's method list holds it).
  std::uint32_t method_owner(std::uint32_t method_rid) const {
    return method_rid < owner_.size() ? owner_[method_rid] : 0;
  }
  // MethodDef rid -> the method's generic parameter names.
  const std::vector<std::string_view>& method_generic_params(std::uint32_t method_rid) const;
  const std::vector<StateMachineAttribute>& state_machine_attributes() const { return sm_attrs_; }
  // TypeDef whose FullName is `full_name`, or 0.
  std::uint32_t find_def(std::string_view full_name) const;

 private:
  Status read_defs(const Metadata& md, TextBudget& budget);
  Status read_refs(const Metadata& md, TextBudget& budget);
  Status read_generic_params(const Metadata& md);
  Status read_interfaces(const Metadata& md);
  Status read_attributes(const Metadata& md, TextBudget& budget);
  // Namespace and name of the type a CustomAttribute constructor belongs to.
  Result<std::pair<std::string_view, std::string_view>> attribute_type(const Metadata& md,
                                                                       std::uint32_t coded) const;
  Result<std::pair<std::string_view, std::string_view>> type_def_or_ref(std::uint32_t coded) const;

  std::vector<TypeName> defs_{1}, refs_{1};
  std::vector<TypeDefFacts> facts_{1};
  std::vector<std::uint32_t> owner_;
  std::vector<std::vector<std::string_view>> method_gp_;
  std::vector<StateMachineAttribute> sm_attrs_;
  std::vector<std::pair<std::string_view, std::uint32_t>> by_full_name_;  // sorted
};

}  // namespace ilmap::names
