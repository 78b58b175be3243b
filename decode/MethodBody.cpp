// MethodBody.cpp - method body headers (ECMA-335 II.25.4) and the opcode walk (Partition III).
//
// Operand sizes come from the opcode tables of Partition III (III.1.2.1 lists the opcode
// encodings; each instruction's section gives its operand): the tables below are built from
// ranges of the spec's opcode list so that every code Partition III leaves unused is kInvalid
// and makes the body malformed, instead of being guessed at.
#include "decode/MethodBody.h"

#include <algorithm>
#include <array>
#include <cstring>

#include "decode/PeFile.h"
#include "support/ByteCursor.h"

namespace ilmap {
namespace {

enum class Operand : std::uint8_t {
  kInvalid,  // not an opcode of Partition III
  kNone,
  kI1,       // int8, unsigned int8 (ShortInlineVar, ShortInlineI, ShortInlineBrTarget)
  kI2,       // unsigned int16 (InlineVar)
  kI4,       // int32, float32, branch target (InlineI, ShortInlineR, InlineBrTarget)
  kToken,    // a metadata token (InlineMethod, InlineField, InlineType, InlineTok, InlineSig, InlineString)
  kI8,       // int64, float64 (InlineI8, InlineR)
  kSwitch,   // uint32 N, then N int32 targets
  kPrefix0,  // a prefix without operand (volatile., tail., readonly.)
  kPrefix1,  // a prefix with one byte (unaligned., no.)
  kPrefixToken,  // constrained. T
};

using Table = std::array<Operand, 256>;

constexpr void fill(Table& t, unsigned from, unsigned to, Operand k) {
  for (unsigned i = from; i <= to; ++i) t[i] = k;
}

// One-byte opcodes 0x00-0xE0 (Partition III, in the spec's order).
constexpr Table one_byte_table() {
  Table t{};
  fill(t, 0x00, 0x0D, Operand::kNone);   // nop, break, ldarg.0-3, ldloc.0-3, stloc.0-3
  fill(t, 0x0E, 0x13, Operand::kI1);     // ldarg.s ldarga.s starg.s ldloc.s ldloca.s stloc.s
  fill(t, 0x14, 0x1E, Operand::kNone);   // ldnull, ldc.i4.m1 .. ldc.i4.8
  t[0x1F] = Operand::kI1;                // ldc.i4.s
  t[0x20] = Operand::kI4;                // ldc.i4
  t[0x21] = Operand::kI8;                // ldc.i8
  t[0x22] = Operand::kI4;                // ldc.r4
  t[0x23] = Operand::kI8;                // ldc.r8
  fill(t, 0x25, 0x26, Operand::kNone);   // dup, pop
  fill(t, 0x27, 0x29, Operand::kToken);  // jmp, call, calli
  t[0x2A] = Operand::kNone;              // ret
  fill(t, 0x2B, 0x37, Operand::kI1);     // br.s .. blt.un.s
  fill(t, 0x38, 0x44, Operand::kI4);     // br .. blt.un
  t[0x45] = Operand::kSwitch;
  fill(t, 0x46, 0x6E, Operand::kNone);   // ldind.*, stind.*, arithmetic, conv.*
  fill(t, 0x6F, 0x75, Operand::kToken);  // callvirt cpobj ldobj ldstr newobj castclass isinst
  t[0x76] = Operand::kNone;              // conv.r.un
  t[0x79] = Operand::kToken;             // unbox
  t[0x7A] = Operand::kNone;              // throw
  fill(t, 0x7B, 0x81, Operand::kToken);  // ldfld ldflda stfld ldsfld ldsflda stsfld stobj
  fill(t, 0x82, 0x8B, Operand::kNone);   // conv.ovf.*.un
  fill(t, 0x8C, 0x8D, Operand::kToken);  // box, newarr
  t[0x8E] = Operand::kNone;              // ldlen
  t[0x8F] = Operand::kToken;             // ldelema
  fill(t, 0x90, 0xA2, Operand::kNone);   // ldelem.*, stelem.*
  fill(t, 0xA3, 0xA5, Operand::kToken);  // ldelem, stelem, unbox.any
  fill(t, 0xB3, 0xBA, Operand::kNone);   // conv.ovf.i1 .. conv.ovf.u8
  t[0xC2] = Operand::kToken;             // refanyval
  t[0xC3] = Operand::kNone;              // ckfinite
  t[0xC6] = Operand::kToken;             // mkrefany
  t[0xD0] = Operand::kToken;             // ldtoken
  fill(t, 0xD1, 0xDC, Operand::kNone);   // conv.u2 .. endfinally
  t[0xDD] = Operand::kI4;                // leave
  t[0xDE] = Operand::kI1;                // leave.s
  fill(t, 0xDF, 0xE0, Operand::kNone);   // stind.i, conv.u
  return t;
}

// Two-byte opcodes 0xFE 0x00-0x1E.
constexpr Table two_byte_table() {
  Table t{};
  fill(t, 0x00, 0x05, Operand::kNone);   // arglist ceq cgt cgt.un clt clt.un
  fill(t, 0x06, 0x07, Operand::kToken);  // ldftn ldvirtftn
  fill(t, 0x09, 0x0E, Operand::kI2);     // ldarg ldarga starg ldloc ldloca stloc
  t[0x0F] = Operand::kNone;              // localloc
  t[0x11] = Operand::kNone;              // endfilter
  t[0x12] = Operand::kPrefix1;           // unaligned.
  t[0x13] = Operand::kPrefix0;           // volatile.
  t[0x14] = Operand::kPrefix0;           // tail.
  t[0x15] = Operand::kToken;             // initobj
  t[0x16] = Operand::kPrefixToken;       // constrained.
  fill(t, 0x17, 0x18, Operand::kNone);   // cpblk initblk
  t[0x19] = Operand::kPrefix1;           // no.
  t[0x1A] = Operand::kNone;              // rethrow
  t[0x1C] = Operand::kToken;             // sizeof
  t[0x1D] = Operand::kNone;              // refanytype
  t[0x1E] = Operand::kPrefix0;           // readonly.
  return t;
}

constexpr Table kOneByte = one_byte_table();
constexpr Table kTwoByte = two_byte_table();

}  // namespace

Result<MethodBody> parse_method_body(std::span<const std::uint8_t> bytes, std::size_t base) {
  MethodBody body;
  if (bytes.empty()) return Error{Errc::kTruncated, format("method body at file offset 0x%zx: no bytes", base)};
  const std::uint8_t first = bytes[0];
  if ((first & 0x3) == il::kTinyFormat) {
    body.header.header_size = 1;
    body.header.code_size = first >> 2;
  } else if ((first & 0x3) == il::kFatFormat) {
    ByteCursor c(bytes, base);
    std::uint16_t flags_size = 0;
    if (!c.read(flags_size) || !c.read(body.header.max_stack) || !c.read(body.header.code_size) ||
        !c.read(body.header.local_sig))
      return Error{Errc::kTruncated, format("method body at file offset 0x%zx: fat header truncated (%zu bytes left)", base, bytes.size())};
    body.header.fat = true;
    body.header.flags = flags_size & 0x0FFF;
    body.header.header_size = 4u * (flags_size >> 12);
    if (body.header.header_size < 12)
      return Error{Errc::kMalformed, format("method body at file offset 0x%zx: fat header Size %u is under 3 (12 bytes)", base, unsigned(flags_size >> 12))};
  } else {
    return Error{Errc::kMalformed, format("method body at file offset 0x%zx: first byte 0x%02x is neither a tiny (0x2) nor a fat (0x3) header", base, first)};
  }
  const std::uint64_t end = std::uint64_t(body.header.header_size) + body.header.code_size;
  if (end > bytes.size())
    return Error{Errc::kTruncated, format("method body at file offset 0x%zx: header and code need 0x%llx bytes, 0x%zx are in the file", base, static_cast<unsigned long long>(end), bytes.size())};
  body.code = bytes.subspan(body.header.header_size, body.header.code_size);
  return body;
}

Status decode_instructions(std::span<const std::uint8_t> code, std::vector<Instruction>& out, std::size_t base) {
  out.clear();
  const std::size_t n = code.size();
  std::size_t pos = 0;
  while (pos < n) {
    Instruction ins;
    ins.offset = static_cast<std::uint32_t>(pos);
    std::size_t p = pos;
    Operand kind;
    if (code[p] == il::kTwoBytePrefix) {
      if (p + 1 >= n)
        return {Errc::kTruncated, format("IL at file offset 0x%zx (IL_%04zx): two-byte opcode cut by the end of the code", base + pos, pos)};
      ins.opcode = static_cast<std::uint16_t>(0xFE00 | code[p + 1]);
      kind = kTwoByte[code[p + 1]];
      p += 2;
    } else {
      ins.opcode = code[p];
      kind = kOneByte[code[p]];
      p += 1;
    }
    std::uint64_t operand = 0;
    switch (kind) {
      case Operand::kInvalid:
        return {Errc::kMalformed, format("IL at file offset 0x%zx (IL_%04zx): opcode 0x%x is not defined by ECMA-335 Partition III", base + pos, pos, unsigned(ins.opcode))};
      case Operand::kNone: case Operand::kPrefix0: operand = 0; break;
      case Operand::kI1: case Operand::kPrefix1: operand = 1; break;
      case Operand::kI2: operand = 2; break;
      case Operand::kI4: case Operand::kToken: case Operand::kPrefixToken: operand = 4; break;
      case Operand::kI8: operand = 8; break;
      case Operand::kSwitch: {
        if (n - p < 4)
          return {Errc::kTruncated, format("IL at file offset 0x%zx (IL_%04zx): switch count cut by the end of the code", base + pos, pos)};
        std::uint32_t count = 0;
        std::memcpy(&count, code.data() + p, 4);
        operand = 4 + 4 * std::uint64_t(count);  // no overflow in 64 bits
        break;
      }
    }
    if (operand > n - p)
      return {Errc::kTruncated, format("IL at file offset 0x%zx (IL_%04zx): operand of opcode 0x%x (%llu bytes) runs past the end of the code (0x%zx bytes)", base + pos, pos, unsigned(ins.opcode), static_cast<unsigned long long>(operand), n)};
    if (kind == Operand::kToken || kind == Operand::kPrefixToken) std::memcpy(&ins.token, code.data() + p, 4);
    ins.prefix = kind == Operand::kPrefix0 || kind == Operand::kPrefix1 || kind == Operand::kPrefixToken;
    p += static_cast<std::size_t>(operand);
    ins.size = static_cast<std::uint32_t>(p - pos);
    out.push_back(ins);
    pos = p;
  }
  return {};
}

const Instruction* instruction_at(std::span<const Instruction> code, std::uint32_t offset) {
  const auto it = std::lower_bound(code.begin(), code.end(), offset,
                                   [](const Instruction& i, std::uint32_t o) { return i.offset < o; });
  return it != code.end() && it->offset == offset ? &*it : nullptr;
}

// MethodDef columns (II.22.26): RVA, ImplFlags, Flags, Name, Signature, ParamList.
// MemberRef (II.22.25): Class, Name, Signature. MethodSpec (II.22.29): Method, Instantiation.
constexpr unsigned kMethodDefRva = 0, kMethodDefImplFlags = 1, kMethodDefName = 3;
constexpr unsigned kMemberRefName = 1, kMethodSpecMethod = 0;
constexpr std::uint32_t kCodeTypeMask = 0x0003;  // MethodImplAttributes.CodeTypeMask; IL = 0

Result<MethodBody> method_body_of(const PeFile& pe, std::uint32_t token) {
  const auto& md = pe.metadata();
  const std::uint32_t rid = token & 0x00FFFFFF;
  if (!md || token >> 24 != kMethodDef || rid == 0 || rid > md->rows(kMethodDef))
    return Error{Errc::kNotFound, format("method 0x%08x: no such MethodDef row", token)};
  const std::uint32_t rva = md->column(kMethodDef, rid, kMethodDefRva);
  if (rva == 0 || (md->column(kMethodDef, rid, kMethodDefImplFlags) & kCodeTypeMask) != 0)
    return Error{Errc::kNotFound, format("method 0x%08x: no IL body", token)};
  const std::span<const std::uint8_t> bytes = pe.rva_bytes(rva);
  if (bytes.empty())
    return Error{Errc::kTruncated, format("method 0x%08x: body RVA 0x%x is not in the file-backed part of a section", token, rva)};
  return parse_method_body(bytes, static_cast<std::size_t>(bytes.data() - pe.bytes().data()));
}

std::string_view called_method_name(const PeFile& pe, std::uint32_t token) {
  const auto& md = pe.metadata();
  if (!md) return {};
  std::uint32_t table = token >> 24, rid = token & 0x00FFFFFF;
  if (table == kMethodSpec) {
    if (rid == 0 || rid > md->rows(kMethodSpec)) return {};
    const std::uint32_t coded = md->column(kMethodSpec, rid, kMethodSpecMethod);
    table = (coded & 1) ? kMemberRef : kMethodDef;  // MethodDefOrRef: 1 tag bit (II.24.2.6)
    rid = coded >> 1;
  }
  unsigned col;
  if (table == kMethodDef) col = kMethodDefName;
  else if (table == kMemberRef) col = kMemberRefName;
  else return {};
  if (rid == 0 || rid > md->rows(table)) return {};
  const auto name = md->string(md->column(table, rid, col));
  return name ? *name : std::string_view{};
}

}  // namespace ilmap
