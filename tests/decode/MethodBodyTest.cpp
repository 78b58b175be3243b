// MethodBodyTest.cpp - decode/MethodBody on hand-built bodies (ECMA-335 II.25.4 headers,
// Partition III opcodes): tiny and fat headers, truncated and hostile sizes, switch tables,
// two-byte opcodes and prefixes, undefined opcodes. (Real bodies: the Mono.Cecil comparison,
// tests/oracle-cecil/check-il.sh.)
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "decode/MethodBody.h"

namespace ilmap {
namespace {

using Bytes = std::vector<std::uint8_t>;

Bytes tiny(const Bytes& code) {
  Bytes b{static_cast<std::uint8_t>(code.size() << 2 | il::kTinyFormat)};
  for (std::uint8_t x : code) b.push_back(x);  // (vector::insert trips GCC 12's -Warray-bounds here)
  return b;
}

void put32(Bytes& b, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) b.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
}

// A fat header: flags 0x13 (fat, InitLocals), Size `size_words`, max stack 4.
Bytes fat(const Bytes& code, std::uint32_t code_size, unsigned size_words = 3) {
  Bytes b{0x13, static_cast<std::uint8_t>(size_words << 4), 4, 0};
  put32(b, code_size);
  put32(b, 0x11000001);
  b.resize(std::size_t(4) * size_words, 0);
  for (std::uint8_t x : code) b.push_back(x);
  return b;
}

std::vector<std::uint32_t> offsets(const Bytes& code) {
  std::vector<Instruction> ins;
  const Status s = decode_instructions(code, ins);
  EXPECT_TRUE(s) << s.message();
  std::vector<std::uint32_t> o;
  for (const auto& i : ins) o.push_back(i.offset);
  return o;
}

TEST(MethodBody, TinyHeader) {
  const Bytes b = tiny({0x00, 0x2A});  // nop; ret
  auto body = parse_method_body(b);
  ASSERT_TRUE(body) << body.error().message;
  EXPECT_FALSE(body->header.fat);
  EXPECT_EQ(body->header.header_size, 1u);
  EXPECT_EQ(body->header.code_size, 2u);
  EXPECT_EQ(body->header.max_stack, 8);
  EXPECT_EQ(body->code.size(), 2u);
  EXPECT_EQ(body->code[1], 0x2A);
}

TEST(MethodBody, TinyHeaderOfEmptyCodeAtTheEndOfTheBytes) {
  auto body = parse_method_body(tiny({}));
  ASSERT_TRUE(body);
  EXPECT_EQ(body->code.size(), 0u);
}

TEST(MethodBody, FatHeader) {
  const Bytes b = fat({0x02, 0x28, 1, 0, 0, 0x0A, 0x2A}, 7);
  auto body = parse_method_body(b);
  ASSERT_TRUE(body) << body.error().message;
  EXPECT_TRUE(body->header.fat);
  EXPECT_EQ(body->header.header_size, 12u);
  EXPECT_EQ(body->header.code_size, 7u);
  EXPECT_EQ(body->header.max_stack, 4);
  EXPECT_EQ(body->header.local_sig, 0x11000001u);
  EXPECT_EQ(body->header.flags, 0x013);
  EXPECT_EQ(body->code[0], 0x02);
}

TEST(MethodBody, FatHeaderWithALargerSizeStartsTheCodeAfterIt) {
  const Bytes b = fat({0x2A}, 1, 4);  // the body's code is a view of these bytes: they must outlive it
  auto body = parse_method_body(b);
  ASSERT_TRUE(body) << body.error().message;
  EXPECT_EQ(body->header.header_size, 16u);
  EXPECT_EQ(body->code[0], 0x2A);
}

TEST(MethodBody, FatHeaderSizeUnderThreeIsMalformed) {
  Bytes b = fat({0x2A}, 1);
  b[1] = 0x20;  // Size 2
  auto body = parse_method_body(b);
  ASSERT_FALSE(body);
  EXPECT_EQ(body.error().code, Errc::kMalformed);
}

TEST(MethodBody, NeitherTinyNorFat) {
  for (std::uint8_t first : {0x00, 0x01, 0x04, 0xFD}) {
    auto body = parse_method_body(Bytes{first, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
    ASSERT_FALSE(body) << int(first);
    EXPECT_EQ(body.error().code, Errc::kMalformed);
  }
  auto none = parse_method_body(Bytes{});
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().code, Errc::kTruncated);
}

TEST(MethodBody, TruncatedBodies) {
  // A tiny header claiming 3 bytes of code with 2 present.
  Bytes t = tiny({0x00, 0x00, 0x2A});
  t.pop_back();
  auto a = parse_method_body(t);
  ASSERT_FALSE(a);
  EXPECT_EQ(a.error().code, Errc::kTruncated);
  // A fat header cut inside itself, at every length.
  const Bytes f = fat({0x2A}, 1);
  for (std::size_t n = 1; n < 12; ++n) {
    auto b = parse_method_body(std::span(f).first(n));
    ASSERT_FALSE(b) << n;
    EXPECT_EQ(b.error().code, Errc::kTruncated) << n;
  }
}

TEST(MethodBody, HostileCodeSizesAreRefusedWithoutReading) {
  for (std::uint32_t size : {0xFFFFFFFFu, 0xFFFFFFF4u, 0x80000000u, 2u}) {
    auto body = parse_method_body(fat({0x2A}, size));
    ASSERT_FALSE(body) << size;
    EXPECT_EQ(body.error().code, Errc::kTruncated) << size;
  }
}

TEST(MethodBody, OperandSizes) {
  // ldarg.0; ldc.i4.s 5; ldc.i4 7; ldc.i8 1; ldc.r8 1.0; ldstr 0x70000001; call 0x0A000001;
  // br.s +0; ret
  const Bytes code{0x02, 0x1F, 5, 0x20, 7, 0, 0, 0, 0x21, 1, 0, 0, 0, 0, 0, 0, 0,
                   0x23, 0, 0, 0, 0, 0, 0, 0xF0, 0x3F, 0x72, 1, 0, 0, 0x70, 0x28, 1, 0, 0, 0x0A,
                   0x2B, 0, 0x2A};
  EXPECT_EQ(offsets(code), (std::vector<std::uint32_t>{0, 1, 3, 8, 17, 26, 31, 36, 38}));
  std::vector<Instruction> ins;
  ASSERT_TRUE(decode_instructions(code, ins));
  const Instruction* call = instruction_at(ins, 31);
  ASSERT_NE(call, nullptr);
  EXPECT_TRUE(call->is_call());
  EXPECT_EQ(call->token, 0x0A000001u);
  EXPECT_EQ(call->size, 5u);
  EXPECT_EQ(instruction_at(ins, 32), nullptr);  // inside the call's operand
  EXPECT_EQ(instruction_at(ins, 39), nullptr);  // the end of the code
}

TEST(MethodBody, Switch) {
  // switch (3 targets); ldc.i4.0; ret
  Bytes code{0x45};
  put32(code, 3);
  put32(code, 0), put32(code, 1), put32(code, 2);
  code.push_back(0x16);
  code.push_back(0x2A);
  EXPECT_EQ(offsets(code), (std::vector<std::uint32_t>{0, 17, 18}));
}

TEST(MethodBody, SwitchTableCutOrHostileCount) {
  Bytes code{0x45};
  put32(code, 3);
  put32(code, 0);  // 2 targets missing
  std::vector<Instruction> ins;
  Status s = decode_instructions(code, ins);
  EXPECT_EQ(s.code(), Errc::kTruncated);
  Bytes huge{0x45};
  put32(huge, 0xFFFFFFFFu);  // 4 * count would overflow 32 bits
  huge.push_back(0x2A);
  s = decode_instructions(huge, ins);
  EXPECT_EQ(s.code(), Errc::kTruncated);
  s = decode_instructions(Bytes{0x45, 1, 0}, ins);  // the count itself cut
  EXPECT_EQ(s.code(), Errc::kTruncated);
}

TEST(MethodBody, TwoByteOpcodesAndPrefixes) {
  // ldarg 0x0100 (FE 09, 2-byte operand); constrained. 0x1B000001; callvirt 0x0A000002;
  // ldftn 0x06000001; ceq; tail. ; call 0x06000002; ret
  const Bytes code{0xFE, 0x09, 0, 1, 0xFE, 0x16, 1, 0, 0, 0x1B, 0x6F, 2, 0, 0, 0x0A,
                   0xFE, 0x06, 1, 0, 0, 0x06, 0xFE, 0x01, 0xFE, 0x14, 0x28, 2, 0, 0, 0x06, 0x2A};
  EXPECT_EQ(offsets(code), (std::vector<std::uint32_t>{0, 4, 10, 15, 21, 23, 25, 30}));
  std::vector<Instruction> ins;
  ASSERT_TRUE(decode_instructions(code, ins));
  EXPECT_TRUE(ins[1].prefix);
  EXPECT_EQ(ins[1].opcode, 0xFE16);
  EXPECT_EQ(ins[1].token, 0x1B000001u);
  EXPECT_TRUE(ins[2].is_call());
  EXPECT_FALSE(ins[3].is_call());  // ldftn names a method without calling it
  EXPECT_EQ(ins[3].token, 0x06000001u);
  EXPECT_TRUE(ins[5].prefix);
  EXPECT_EQ(ins[6].token, 0x06000002u);
}

TEST(MethodBody, UndefinedOpcodesAreMalformed) {
  std::vector<Instruction> ins;
  for (const Bytes& code : {Bytes{0x24}, Bytes{0x77}, Bytes{0xA6}, Bytes{0xBB}, Bytes{0xC4}, Bytes{0xE1},
                            Bytes{0xFF}, Bytes{0xFE, 0x08}, Bytes{0xFE, 0x1B}, Bytes{0xFE, 0x1F}, Bytes{0xFE, 0xFF}}) {
    const Status s = decode_instructions(code, ins);
    EXPECT_EQ(s.code(), Errc::kMalformed) << int(code.back());
  }
}

TEST(MethodBody, OperandsCutByTheEndOfTheCode) {
  std::vector<Instruction> ins;
  for (const Bytes& code : {Bytes{0xFE}, Bytes{0x28, 1, 0, 0}, Bytes{0x21, 0, 0, 0, 0, 0, 0, 0},
                            Bytes{0xFE, 0x0C, 1}, Bytes{0x1F}}) {
    const Status s = decode_instructions(code, ins);
    EXPECT_EQ(s.code(), Errc::kTruncated) << code.size();
  }
}

// Every byte string decodes or fails cleanly, and what decodes tiles the code exactly.
TEST(MethodBody, EveryShortByteStringDecodesOrFailsCleanly) {
  std::vector<Instruction> ins;
  Bytes code(3);
  for (unsigned a = 0; a < 256; ++a)
    for (unsigned b = 0; b < 256; b += 3) {
      code[0] = std::uint8_t(a), code[1] = std::uint8_t(b), code[2] = std::uint8_t(a ^ b);
      if (!decode_instructions(code, ins)) continue;
      std::uint32_t at = 0;
      for (const auto& i : ins) {
        ASSERT_EQ(i.offset, at);
        at += i.size;
      }
      ASSERT_EQ(at, code.size());
    }
}

}  // namespace
}  // namespace ilmap
