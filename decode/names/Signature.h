// Signature.h - decodes ECMA-335 method signatures (II.23.2.1) and the types in them (II.23.2.12)
// into a small tree, for printing method frames the way the runtimes do.
//
// Custom modifiers (CMOD_REQD/CMOD_OPT, II.23.2.7) and PINNED are read and dropped, as
// reflection's ParameterInfo.ParameterType drops them. A TypeDefOrRefOrSpecEncoded value
// (II.23.2.8) is kept as its (table, rid) pair; the caller names it. The decoder never reads past
// the blob, caps the nesting depth and the counts, and reports the blob offset of any error.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "ilmap/status.h"

namespace ilmap::names {

// ECMA-335 II.23.1.16 element types that the decoder distinguishes.
enum ElementType : std::uint8_t {
  kEtVoid = 0x01, kEtBoolean = 0x02, kEtChar = 0x03, kEtI1 = 0x04, kEtU1 = 0x05, kEtI2 = 0x06,
  kEtU2 = 0x07, kEtI4 = 0x08, kEtU4 = 0x09, kEtI8 = 0x0A, kEtU8 = 0x0B, kEtR4 = 0x0C,
  kEtR8 = 0x0D, kEtString = 0x0E, kEtPtr = 0x0F, kEtByRef = 0x10, kEtValueType = 0x11,
  kEtClass = 0x12, kEtVar = 0x13, kEtArray = 0x14, kEtGenericInst = 0x15, kEtTypedByRef = 0x16,
  kEtI = 0x18, kEtU = 0x19, kEtFnPtr = 0x1B, kEtObject = 0x1C, kEtSzArray = 0x1D, kEtMVar = 0x1E,
  kEtCModReqd = 0x1F, kEtCModOpt = 0x20, kEtSentinel = 0x41, kEtPinned = 0x45,
};

// One node of a decoded type. Children are indices into SigTypes::nodes.
struct SigNode {
  std::uint8_t kind = 0;           // an ElementType: a primitive, or the constructor below
  std::uint8_t table = 0;          // kEtClass/kEtValueType/kEtGenericInst: 0x01 TypeRef, 0x02 TypeDef, 0x1B TypeSpec
  bool value_type = false;         // kEtGenericInst: VALUETYPE (else CLASS)
  std::uint32_t rid = 0;           // with table
  std::uint32_t number = 0;        // kEtVar/kEtMVar: index; kEtArray: rank
  std::uint32_t element = 0;       // kEtPtr/kEtByRef/kEtSzArray/kEtArray: the element node
  // kEtGenericInst: argument nodes; kEtFnPtr: return then parameters. SigTypes::args(node)
  // gives them: [first_arg, first_arg + arg_count) of SigTypes::arg_nodes.
  std::uint32_t first_arg = 0, arg_count = 0;
};

// The nodes of decoded types. Node and argument lists live in two flat vectors (no allocation
// per node), so that a caller that decodes many signatures can clear() and reuse one SigTypes.
struct SigTypes {
  std::vector<SigNode> nodes;
  std::vector<std::uint32_t> arg_nodes;
  std::vector<std::uint32_t> pending;  // the decoder's scratch: argument lists being read

  std::span<const std::uint32_t> args(const SigNode& n) const {
    return std::span<const std::uint32_t>(arg_nodes).subspan(n.first_arg, n.arg_count);
  }
  void clear() {
    nodes.clear();
    arg_nodes.clear();
    pending.clear();
  }
};

// A decoded MethodDefSig / MethodRefSig.
struct MethodSig {
  std::uint8_t calling_convention = 0;  // the first byte
  std::uint32_t generic_params = 0;     // GenParamCount (GENERIC only)
  std::uint32_t ret = 0;                // node of the return type
  std::vector<std::uint32_t> params;    // nodes of the parameters (the fixed ones for VARARG)
};

inline constexpr unsigned kMaxSignatureDepth = 64;

// Decodes `blob` (the bytes of a #Blob entry whose heap offset is `blob_offset`, for messages)
// as a method signature, appending its nodes to `types`. Errors: Errc::kMalformed / kTruncated
// with a message naming the blob offset and the byte position.
Result<MethodSig> decode_method_signature(std::span<const std::uint8_t> blob,
                                          std::uint32_t blob_offset, SigTypes& types);
// The same into `sig`, whose parameter vector keeps its capacity (for a caller that decodes
// many signatures); on error `sig` holds what was read.
Status decode_method_signature(std::span<const std::uint8_t> blob, std::uint32_t blob_offset,
                               SigTypes& types, MethodSig& sig);

// Decodes a TypeSpec blob (II.23.2.14: one Type) into `types`; returns the root node.
Result<std::uint32_t> decode_type_spec(std::span<const std::uint8_t> blob,
                                       std::uint32_t blob_offset, SigTypes& types);

// CoreCLR reflection's Type.Name of a primitive element type ("Int32", "String", ...), or
// nullptr when `et` is not a primitive.
const char* primitive_name(std::uint8_t et);

}  // namespace ilmap::names
