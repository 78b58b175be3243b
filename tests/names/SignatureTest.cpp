// SignatureTest.cpp - decode_method_signature / decode_type_spec on hand-made blobs: every shape
// of ECMA-335 II.23.2.1 and II.23.2.12 the names need, and malformed blobs, each one error.
#include <gtest/gtest.h>

#include "tests/common/TestEncoders.h"
#include "decode/names/Signature.h"

namespace ilmap::names {
namespace {

using test::Bytes;

Result<MethodSig> decode(const Bytes& b, SigTypes& t) { return decode_method_signature(b, 0x40, t); }

TEST(Signature, StaticMethodWithPrimitivesArraysAndByRef) {
  // DEFAULT, 3 params, returns VOID: (string[] a, ref int b, int[,] c)
  const Bytes b = {0x00, 0x03, kEtVoid, kEtSzArray, kEtString, kEtByRef, kEtI4,
                   kEtArray, kEtI4, 0x02, 0x00, 0x00};
  SigTypes t;
  auto sig = decode(b, t);
  ASSERT_TRUE(sig) << sig.error().message;
  ASSERT_EQ(sig->params.size(), 3u);
  EXPECT_EQ(t.nodes[sig->ret].kind, kEtVoid);
  const SigNode& a = t.nodes[sig->params[0]];
  EXPECT_EQ(a.kind, kEtSzArray);
  EXPECT_EQ(t.nodes[a.element].kind, kEtString);
  EXPECT_EQ(t.nodes[sig->params[1]].kind, kEtByRef);
  const SigNode& c = t.nodes[sig->params[2]];
  EXPECT_EQ(c.kind, kEtArray);
  EXPECT_EQ(c.number, 2u);
}

TEST(Signature, GenericInstanceVarMVarAndModifiersSkipped) {
  // HASTHIS|GENERIC, 1 generic param, 2 params, returns CMOD_REQD(TypeRef 5) VOID:
  // (GENERICINST CLASS TypeRef 3 <VAR 0, MVAR 0>, CMOD_OPT(TypeRef 1) I4)
  const Bytes b = {0x30, 0x01, 0x02, kEtCModReqd, (5 << 2) | 1, kEtVoid,
                   kEtGenericInst, kEtClass, (3 << 2) | 1, 0x02, kEtVar, 0x00, kEtMVar, 0x00,
                   kEtCModOpt, (1 << 2) | 1, kEtI4};
  SigTypes t;
  auto sig = decode(b, t);
  ASSERT_TRUE(sig) << sig.error().message;
  EXPECT_EQ(sig->generic_params, 1u);
  ASSERT_EQ(sig->params.size(), 2u);
  const SigNode& g = t.nodes[sig->params[0]];
  EXPECT_EQ(g.kind, kEtGenericInst);
  EXPECT_EQ(g.table, 0x01);  // TypeRef
  EXPECT_EQ(g.rid, 3u);
  ASSERT_EQ(t.args(g).size(), 2u);
  EXPECT_EQ(t.nodes[t.args(g)[0]].kind, kEtVar);
  EXPECT_EQ(t.nodes[t.args(g)[1]].kind, kEtMVar);
  EXPECT_EQ(t.nodes[sig->params[1]].kind, kEtI4);  // the modifier is dropped
}

TEST(Signature, VarArgKeepsOnlyTheFixedParameters) {
  // VARARG, 2 params: I4, SENTINEL, STRING (a call-site form; a definition has no sentinel)
  const Bytes b = {0x05, 0x02, kEtVoid, kEtI4, kEtSentinel, kEtString};
  SigTypes t;
  auto sig = decode(b, t);
  ASSERT_TRUE(sig) << sig.error().message;
  ASSERT_EQ(sig->params.size(), 1u);
  EXPECT_EQ(t.nodes[sig->params[0]].kind, kEtI4);
}

TEST(Signature, FunctionPointerWithUnmanagedCallingConvention) {
  // (delegate* unmanaged<int> f): FNPTR, calling convention 9, 0 params, returns I4.
  const Bytes b = {0x00, 0x01, kEtVoid, kEtFnPtr, 0x09, 0x00, kEtI4};
  SigTypes t;
  auto sig = decode(b, t);
  ASSERT_TRUE(sig) << sig.error().message;
  EXPECT_EQ(t.nodes[sig->params[0]].kind, kEtFnPtr);
}

TEST(Signature, TrailingBytesAreIgnoredLikeTheRuntime) {
  const Bytes b = {0x00, 0x00, kEtVoid, 0xEE, 0xEE};
  SigTypes t;
  EXPECT_TRUE(decode(b, t));
}

struct BadCase {
  const char* what;
  Bytes blob;
  Errc code;
  const char* message;  // fragment
};

TEST(Signature, MalformedBlobsGiveOneClearError) {
  Bytes deep = {0x00, 0x01, kEtVoid};
  deep.insert(deep.end(), 100, kEtSzArray);  // SZARRAY nested 100 deep
  deep.push_back(kEtI4);
  const BadCase cases[] = {
      {"empty", {}, Errc::kTruncated, "ends at byte 0"},
      {"no return type", {0x00, 0x01}, Errc::kMalformed, "parameter count 1 exceeds the 0 bytes"},
      {"parameter missing", {0x00, 0x02, kEtVoid, kEtI4}, Errc::kTruncated, "ends at byte 4"},
      {"huge parameter count", {0x00, 0xDF, 0xFF, 0xFF, 0xFF, kEtVoid}, Errc::kMalformed, "exceeds"},
      {"invalid compressed", {0x00, 0xFF, kEtVoid}, Errc::kTruncated, "ends at byte"},
      {"field calling convention", {0x06, 0x00, kEtVoid}, Errc::kMalformed, "calling convention 0x06"},
      {"bad element type", {0x00, 0x01, kEtVoid, 0x17}, Errc::kMalformed, "element type 0x17"},
      {"void parameter", {0x00, 0x01, kEtVoid, kEtVoid}, Errc::kMalformed, "VOID"},
      {"tag 3", {0x00, 0x01, kEtVoid, kEtClass, 0x07}, Errc::kMalformed, "invalid tag 3"},
      {"row 0", {0x00, 0x01, kEtVoid, kEtClass, 0x01}, Errc::kMalformed, "row 0"},
      {"rank 0", {0x00, 0x01, kEtVoid, kEtArray, kEtI4, 0x00, 0x00, 0x00}, Errc::kMalformed, "rank 0"},
      {"rank 33", {0x00, 0x01, kEtVoid, kEtArray, kEtI4, 33, 0x00, 0x00}, Errc::kMalformed, "rank 33"},
      {"array sizes past end", {0x00, 0x01, kEtVoid, kEtArray, kEtI4, 0x01, 0x7F}, Errc::kMalformed, "array size count"},
      {"genericinst kind", {0x00, 0x01, kEtVoid, kEtGenericInst, kEtI4, 0x05, 0x01, kEtI4}, Errc::kMalformed, "not CLASS or VALUETYPE"},
      {"genericinst no args", {0x00, 0x01, kEtVoid, kEtGenericInst, kEtClass, 0x05, 0x00}, Errc::kMalformed, "no arguments"},
      {"generic without count", {0x10, 0x00, 0x00, kEtVoid}, Errc::kMalformed, "GENERIC with no"},
      {"sentinel, not vararg", {0x00, 0x01, kEtVoid, kEtSentinel, kEtI4}, Errc::kMalformed, "SENTINEL"},
      {"modifier cut", {0x00, 0x01, kEtVoid, kEtCModReqd}, Errc::kTruncated, "ends at byte"},
      {"nesting bomb", deep, Errc::kMalformed, "deeper than 64"},
  };
  for (const BadCase& c : cases) {
    SigTypes t;
    auto sig = decode(c.blob, t);
    ASSERT_FALSE(sig) << c.what;
    EXPECT_EQ(sig.error().code, c.code) << c.what << ": " << sig.error().message;
    EXPECT_NE(sig.error().message.find("#Blob offset 0x40"), std::string::npos) << sig.error().message;
    EXPECT_NE(sig.error().message.find(c.message), std::string::npos) << c.what << ": " << sig.error().message;
  }
}

TEST(Signature, TypeSpecIsOneType) {
  const Bytes b = {kEtGenericInst, kEtValueType, (2 << 2) | 1, 0x01, kEtString};
  SigTypes t;
  auto root = decode_type_spec(b, 0x10, t);
  ASSERT_TRUE(root) << root.error().message;
  EXPECT_EQ(t.nodes[*root].kind, kEtGenericInst);
  EXPECT_TRUE(t.nodes[*root].value_type);
}

TEST(Signature, PrimitiveNamesAreReflectionNames) {
  EXPECT_STREQ(primitive_name(kEtI4), "Int32");
  EXPECT_STREQ(primitive_name(kEtU), "UIntPtr");
  EXPECT_STREQ(primitive_name(kEtTypedByRef), "TypedReference");
  EXPECT_EQ(primitive_name(kEtClass), nullptr);
}

}  // namespace
}  // namespace ilmap::names
