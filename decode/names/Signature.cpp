// Signature.cpp - the II.23.2.1 / II.23.2.12 grammar over a bounds-checked cursor.
#include "decode/names/Signature.h"

#include <cstdarg>
#include <cstdio>

#include "support/ByteCursor.h"

namespace ilmap::names {
namespace {

constexpr std::uint8_t kCallConvMask = 0x0F;
constexpr std::uint8_t kCallConvGeneric = 0x10;
constexpr std::uint8_t kCallConvVarArg = 0x05;
constexpr std::uint8_t kCallConvMaxKind = 0x05;  // DEFAULT, C, STDCALL, THISCALL, FASTCALL, VARARG
constexpr std::uint8_t kCallConvUnmanaged = 0x09;  // function pointers (ECMA-335 augments, C# 9)
constexpr std::uint32_t kMaxArrayRank = 32;      // CoreCLR's MAX_RANK

class Decoder {
 public:
  Decoder(std::span<const std::uint8_t> blob, std::uint32_t blob_offset, SigTypes& types)
      : c_(blob), blob_offset_(blob_offset), types_(types) {}

  // Into `sig` (its params cleared first, their capacity kept).
  Status method(unsigned depth, MethodSig& sig);
  Result<std::uint32_t> type(unsigned depth, bool allow_void);

 private:
  ILMAP_PRINTF(2, 3) Error fail(const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char what[160];
    std::vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return Error{Errc::kMalformed,
                 format("signature at #Blob offset 0x%x, byte %zu: %s", blob_offset_, c_.pos(), what)};
  }
  Error truncated() {
    return Error{Errc::kTruncated,
                 format("signature at #Blob offset 0x%x: ends at byte %zu inside a value", blob_offset_, c_.pos())};
  }
  bool read_u8(std::uint8_t& v) { return c_.read(v); }
  Status skip_custom_mods();
  Status type_def_or_ref(SigNode& n);
  std::uint32_t add(const SigNode& n) {
    types_.nodes.push_back(n);
    return std::uint32_t(types_.nodes.size() - 1);
  }
  // Moves the argument nodes read since `mark` (the end of `pending` before a list was begun:
  // nested lists are read and moved above it) into arg_nodes, as the list of `n`.
  void take_args(SigNode& n, std::size_t mark) {
    n.first_arg = std::uint32_t(types_.arg_nodes.size());
    n.arg_count = std::uint32_t(types_.pending.size() - mark);
    types_.arg_nodes.insert(types_.arg_nodes.end(), types_.pending.begin() + std::ptrdiff_t(mark),
                            types_.pending.end());
    types_.pending.resize(mark);
  }
  // A count that must fit in what is left of the blob (each item takes at least one byte).
  Status count(std::uint32_t& n, const char* what) {
    if (!c_.read_compressed(n)) return truncated();
    if (n > c_.remaining()) return fail("%s %u exceeds the %zu bytes left", what, n, c_.remaining());
    return {};
  }

  ByteCursor c_;
  std::uint32_t blob_offset_;
  SigTypes& types_;
};

Status Decoder::skip_custom_mods() {
  for (;;) {
    if (c_.empty()) return truncated();
    const std::uint8_t b = *c_.ptr();
    if (b == kEtPinned) {
      (void)c_.skip(1);
      continue;
    }
    if (b != kEtCModReqd && b != kEtCModOpt) return {};
    (void)c_.skip(1);
    std::uint32_t coded = 0;
    if (!c_.read_compressed(coded)) return truncated();
  }
}

Status Decoder::type_def_or_ref(SigNode& n) {
  std::uint32_t coded = 0;
  if (!c_.read_compressed(coded)) return truncated();
  static constexpr std::uint8_t kTables[] = {0x02, 0x01, 0x1B};  // TypeDef, TypeRef, TypeSpec
  const std::uint32_t tag = coded & 3;
  if (tag == 3) return fail("TypeDefOrRefOrSpecEncoded 0x%x has the invalid tag 3", coded);
  n.table = kTables[tag];
  n.rid = coded >> 2;
  if (n.rid == 0) return fail("TypeDefOrRefOrSpecEncoded 0x%x has row 0", coded);
  return {};
}

Result<std::uint32_t> Decoder::type(unsigned depth, bool allow_void) {
  if (depth > kMaxSignatureDepth) return fail("types nested deeper than %u", kMaxSignatureDepth);
  if (Status s = skip_custom_mods(); !s) return s.error();
  std::uint8_t et = 0;
  if (!read_u8(et)) return truncated();
  SigNode n;
  n.kind = et;
  switch (et) {
    case kEtVoid:
      if (!allow_void) return fail("VOID where a value type is required");
      return add(n);
    case kEtBoolean: case kEtChar: case kEtI1: case kEtU1: case kEtI2: case kEtU2: case kEtI4:
    case kEtU4: case kEtI8: case kEtU8: case kEtR4: case kEtR8: case kEtString: case kEtI:
    case kEtU: case kEtObject: case kEtTypedByRef:
      return add(n);
    case kEtPtr: {  // PTR CustomMod* (VOID | Type)
      auto e = type(depth + 1, true);
      if (!e) return e.error();
      n.element = *e;
      return add(n);
    }
    case kEtByRef:
    case kEtSzArray: {
      auto e = type(depth + 1, false);
      if (!e) return e.error();
      n.element = *e;
      return add(n);
    }
    case kEtValueType:
    case kEtClass:
      if (Status s = type_def_or_ref(n); !s) return s.error();
      return add(n);
    case kEtVar:
    case kEtMVar:
      if (!c_.read_compressed(n.number)) return truncated();
      return add(n);
    case kEtArray: {  // ARRAY Type ArrayShape (II.23.2.13)
      auto e = type(depth + 1, false);
      if (!e) return e.error();
      n.element = *e;
      if (!c_.read_compressed(n.number)) return truncated();
      if (n.number == 0 || n.number > kMaxArrayRank)
        return fail("array rank %u outside 1..%u", n.number, kMaxArrayRank);
      std::uint32_t sizes = 0, bounds = 0, v = 0;
      if (Status s = count(sizes, "array size count"); !s) return s.error();
      for (std::uint32_t i = 0; i < sizes; ++i)
        if (!c_.read_compressed(v)) return truncated();
      if (Status s = count(bounds, "array bound count"); !s) return s.error();
      for (std::uint32_t i = 0; i < bounds; ++i) {
        std::int32_t lo = 0;
        if (!c_.read_compressed_signed(lo)) return truncated();
      }
      return add(n);
    }
    case kEtGenericInst: {  // GENERICINST (CLASS | VALUETYPE) TypeDefOrRefOrSpecEncoded GenArgCount Type+
      std::uint8_t kind = 0;
      if (!read_u8(kind)) return truncated();
      if (kind != kEtClass && kind != kEtValueType)
        return fail("GENERICINST followed by 0x%02x, not CLASS or VALUETYPE", kind);
      n.value_type = kind == kEtValueType;
      if (Status s = type_def_or_ref(n); !s) return s.error();
      std::uint32_t argc = 0;
      if (Status s = count(argc, "generic argument count"); !s) return s.error();
      if (argc == 0) return fail("GENERICINST with no arguments");
      const std::size_t mark = types_.pending.size();
      for (std::uint32_t i = 0; i < argc; ++i) {
        auto a = type(depth + 1, false);
        if (!a) return a.error();
        types_.pending.push_back(*a);
      }
      take_args(n, mark);
      return add(n);
    }
    case kEtFnPtr: {
      MethodSig fn;
      if (Status s = method(depth + 1, fn); !s) return s.error();
      const std::size_t mark = types_.pending.size();
      types_.pending.push_back(fn.ret);
      types_.pending.insert(types_.pending.end(), fn.params.begin(), fn.params.end());
      take_args(n, mark);
      return add(n);
    }
    default:
      return fail("element type 0x%02x is not valid in a type", et);
  }
}

Status Decoder::method(unsigned depth, MethodSig& sig) {
  if (depth > kMaxSignatureDepth) return fail("signatures nested deeper than %u", kMaxSignatureDepth);
  sig.params.clear();
  sig.generic_params = 0;
  if (!read_u8(sig.calling_convention)) return truncated();
  const std::uint8_t kind = sig.calling_convention & kCallConvMask;
  if (kind > kCallConvMaxKind && kind != kCallConvUnmanaged)
    return fail("calling convention 0x%02x is not a method signature", sig.calling_convention);
  if (sig.calling_convention & kCallConvGeneric) {
    if (!c_.read_compressed(sig.generic_params)) return truncated();
    if (sig.generic_params == 0) return fail("GENERIC with no generic parameters");
  }
  std::uint32_t params = 0;
  if (Status s = count(params, "parameter count"); !s) return s;
  // RetType: CustomMod* (BYREF? Type | TYPEDBYREF | VOID); BYREF is part of type().
  auto ret = type(depth + 1, true);
  if (!ret) return ret.error();
  sig.ret = *ret;
  const bool vararg = (sig.calling_convention & kCallConvMask) == kCallConvVarArg;
  bool after_sentinel = false;
  for (std::uint32_t i = 0; i < params; ++i) {
    if (!c_.empty() && *c_.ptr() == kEtSentinel) {
      if (!vararg || after_sentinel) return fail("SENTINEL outside a VARARG signature");
      (void)c_.skip(1);
      after_sentinel = true;
    }
    auto p = type(depth + 1, false);
    if (!p) return p.error();
    if (!after_sentinel) sig.params.push_back(*p);
  }
  return {};
}

}  // namespace

Result<MethodSig> decode_method_signature(std::span<const std::uint8_t> blob,
                                          std::uint32_t blob_offset, SigTypes& types) {
  MethodSig sig;
  if (Status s = decode_method_signature(blob, blob_offset, types, sig); !s) return s.error();
  return sig;
}

Status decode_method_signature(std::span<const std::uint8_t> blob, std::uint32_t blob_offset,
                               SigTypes& types, MethodSig& sig) {
  Decoder d(blob, blob_offset, types);
  // Bytes after the signature are ignored, as the runtimes' signature parsers ignore them.
  return d.method(0, sig);
}

Result<std::uint32_t> decode_type_spec(std::span<const std::uint8_t> blob,
                                       std::uint32_t blob_offset, SigTypes& types) {
  Decoder d(blob, blob_offset, types);
  return d.type(0, false);
}

const char* primitive_name(std::uint8_t et) {
  switch (et) {
    case kEtVoid: return "Void";
    case kEtBoolean: return "Boolean";
    case kEtChar: return "Char";
    case kEtI1: return "SByte";
    case kEtU1: return "Byte";
    case kEtI2: return "Int16";
    case kEtU2: return "UInt16";
    case kEtI4: return "Int32";
    case kEtU4: return "UInt32";
    case kEtI8: return "Int64";
    case kEtU8: return "UInt64";
    case kEtR4: return "Single";
    case kEtR8: return "Double";
    case kEtString: return "String";
    case kEtI: return "IntPtr";
    case kEtU: return "UIntPtr";
    case kEtObject: return "Object";
    case kEtTypedByRef: return "TypedReference";
    default: return nullptr;
  }
}

}  // namespace ilmap::names
