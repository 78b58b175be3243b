// MethodBody.h - a CIL method body: its header (ECMA-335 II.25.4.2-3) and its instruction stream
// (Partition III: one-byte opcodes and the 0xFE two-byte ones, with their operand sizes).
//
// Used to tell overloads apart by IL (docs/symbolicate.md): a runtime frame's IL offset lies on
// an instruction boundary of the method that printed it, and a caller's frame sits on the call.
// Everything is bounds-checked against the bytes given; a body that does not decode is an error
// (kTruncated, kMalformed) naming the offset, never a crash or a read past the end. Instructions
// borrow nothing: they are plain values.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "ilmap/status.h"

namespace ilmap {

class PeFile;

namespace il {
inline constexpr std::uint8_t kTinyFormat = 0x2;  // CorILMethod_TinyFormat (II.25.4.2)
inline constexpr std::uint8_t kFatFormat = 0x3;   // CorILMethod_FatFormat (II.25.4.3)
inline constexpr std::uint16_t kCall = 0x28;
inline constexpr std::uint16_t kCallvirt = 0x6F;
inline constexpr std::uint16_t kNewobj = 0x73;
inline constexpr std::uint16_t kSwitch = 0x45;
inline constexpr std::uint8_t kTwoBytePrefix = 0xFE;
}  // namespace il

struct MethodBodyHeader {
  bool fat = false;
  std::uint32_t header_size = 0;  // bytes before the code: 1 (tiny) or 4 * Size (fat)
  std::uint32_t code_size = 0;
  std::uint16_t flags = 0;        // fat: the 12 flag bits (MoreSects, InitLocals)
  std::uint16_t max_stack = 8;    // tiny bodies imply 8
  std::uint32_t local_sig = 0;    // fat: LocalVarSigTok
};

struct MethodBody {
  MethodBodyHeader header;
  std::span<const std::uint8_t> code;  // borrows from the bytes parsed
};

// `bytes` start at the method's RVA and run as far as the file backs it (a section's end):
// the header and code_size bytes of code must fit in them. `base` is the file offset of
// bytes[0], for messages. A fat header's Size field must be at least 3 (12 bytes); a larger
// one is honoured as the runtime does (code starts at 4 * Size).
Result<MethodBody> parse_method_body(std::span<const std::uint8_t> bytes, std::size_t base = 0);

struct Instruction {
  std::uint32_t offset = 0;  // from the start of the code
  std::uint32_t size = 0;    // opcode and operand bytes
  std::uint16_t opcode = 0;  // the byte, or 0xFE00 | the second byte
  std::uint32_t token = 0;   // the metadata token of an InlineMethod/Type/Field/Tok/Sig operand, else 0
  bool prefix = false;       // volatile., tail., constrained., unaligned., readonly., no.
  bool is_call() const { return opcode == il::kCall || opcode == il::kCallvirt || opcode == il::kNewobj; }
};

// Decodes `code` into `out` (replaced), one entry per instruction in order, prefixes as
// instructions of their own (as Mono.Cecil lists them). An opcode Partition III does not define,
// or an operand (a switch's table included) past the end of the code, is an error naming the
// offset (`base` is the file offset of code[0]). At most code.size() instructions.
Status decode_instructions(std::span<const std::uint8_t> code, std::vector<Instruction>& out, std::size_t base = 0);

// The instruction starting at `offset`, or nullptr (binary search over decoded instructions).
const Instruction* instruction_at(std::span<const Instruction> code, std::uint32_t offset);

// The body of MethodDef `token` (0x06RRRRRR) of a managed PE: its RVA (MethodDef column RVA)
// read in the section that backs it. kNotFound for a method without IL (RVA 0, abstract or
// extern; ImplFlags CodeType not IL), a token of another table or a row out of range;
// parse_method_body's errors otherwise.
Result<MethodBody> method_body_of(const PeFile& pe, std::uint32_t token);

// The name (#Strings) of the method a call's operand names: a MethodDef (0x06), a MemberRef
// (0x0A) or a MethodSpec (0x2B, through its MethodDefOrRef). Empty for any other token, a row
// out of range or a name the heap does not hold.
std::string_view called_method_name(const PeFile& pe, std::uint32_t token);

}  // namespace ilmap
