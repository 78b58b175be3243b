// symbolicate_trace_line_test.cpp - the per-line frame parsers of symbolicate/TraceLine.h:
// each real format (texts as the runtimes print them), the replaced range, and near misses
// that must stay text.
#include <gtest/gtest.h>

#include "symbolicate/TraceLine.h"

namespace ilmap::symbolicate {
namespace {

TEST(SymbolicateTraceLine, CoreClrShowIlOffsets) {
  const std::string_view l = "   at NS.Outer`1.Inner.Boom(Int32 x, String[] a) in T.exe:token 0x6000003+0x16";
  const ParsedFrame f = parse_frame(l);
  ASSERT_EQ(f.format, FrameFormat::kCoreClr);
  EXPECT_EQ(f.head, "   at ");
  EXPECT_EQ(f.method, "NS.Outer`1.Inner.Boom(Int32 x, String[] a)");
  EXPECT_EQ(f.module, "T.exe");
  EXPECT_EQ(f.token, 0x06000003u);
  EXPECT_EQ(f.il_offset, 0x16u);
  EXPECT_EQ(l.substr(f.replace_from, f.replace_to - f.replace_from), " in T.exe:token 0x6000003+0x16");
  // The older text with a space after the colon, and a CRLF line.
  const ParsedFrame g = parse_frame("   at A.B() in App.dll: token 0x6000001+0x5\r");
  ASSERT_EQ(g.format, FrameFormat::kCoreClr);
  EXPECT_EQ(g.module, "App.dll");
  EXPECT_EQ(g.replace_to, std::string_view("   at A.B() in App.dll: token 0x6000001+0x5").size());
}

TEST(SymbolicateTraceLine, CoreClrWithLineIsRecognizedNotResolved) {
  EXPECT_EQ(parse_frame("   at A.B() in /src/A.cs:line 42").format, FrameFormat::kCoreClrWithLine);
}

TEST(SymbolicateTraceLine, Mono) {
  const std::string_view l =
      "  at NS.Outer`1+Inner[T].Boom (System.Int32 x, System.String[] a) [0x00011] in <f5a81f930d9c4f228813e2ca781ba982>:0 ";
  const ParsedFrame f = parse_frame(l);
  ASSERT_EQ(f.format, FrameFormat::kMono);
  EXPECT_EQ(f.method, "NS.Outer`1+Inner[T].Boom (System.Int32 x, System.String[] a)");
  EXPECT_EQ(f.module, "f5a81f930d9c4f228813e2ca781ba982");
  EXPECT_EQ(f.il_offset, 0x11u);
  EXPECT_EQ(l.substr(f.replace_from, f.replace_to - f.replace_from), "<f5a81f930d9c4f228813e2ca781ba982>:0");
  const ParsedFrame aot = parse_frame("  at A.B () [0x0001a] in <f5a81f930d9c4f228813e2ca781ba982#3b1e5f0c>:0");
  ASSERT_EQ(aot.format, FrameFormat::kMono);
  EXPECT_EQ(aot.module, "f5a81f930d9c4f228813e2ca781ba982");
  EXPECT_EQ(parse_frame("  at A.B () [0x00000] in <filename unknown>:0").format, FrameFormat::kNone);
}

TEST(SymbolicateTraceLine, Android) {
  const std::string_view l = "at NS.T.M + 0x2db(Unknown Source)";
  const ParsedFrame f = parse_frame(l);
  ASSERT_EQ(f.format, FrameFormat::kAndroid);
  EXPECT_EQ(f.method, "NS.T.M");
  EXPECT_EQ(f.il_offset, 0x2dbu);
  EXPECT_EQ(l.substr(f.replace_from), "NS.T.M + 0x2db(Unknown Source)");
}

TEST(SymbolicateTraceLine, ProductionStackTrace) {
  const std::string_view l = "   at Asm!0x0600000f!NS.T.M(Int32 x) +0xc";
  const ParsedFrame f = parse_frame(l);
  ASSERT_EQ(f.format, FrameFormat::kPst);
  EXPECT_EQ(f.module, "Asm");
  EXPECT_EQ(f.token, 0x0600000fu);
  EXPECT_EQ(f.method, "NS.T.M(Int32 x)");
  EXPECT_EQ(f.il_offset, 0xcu);
  const auto m = parse_pst_module("MODULE: Asm => Asm, Version=1.0.0.0, Culture=neutral, PublicKeyToken=null; G:6c544a86-3ccb-4fa9-810a-691444a2b613; A:1");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->assembly, "Asm");
  EXPECT_EQ(m->age, 1u);
  EXPECT_EQ(m->guid[0], 0x86);  // Data1 little-endian on disk
  EXPECT_EQ(m->guid[3], 0x6c);
  EXPECT_EQ(m->guid[15], 0x13);
  const auto n = parse_pst_module("MODULE: Asm => x; G:6c544a863ccb4fa9810a691444a2b613; A:2");
  ASSERT_TRUE(n);
  EXPECT_EQ(n->guid, m->guid);
  EXPECT_TRUE(is_pst_separator("=========="));
  EXPECT_TRUE(is_pst_separator("==========\r"));
  EXPECT_FALSE(is_pst_separator("====="));
}

TEST(SymbolicateTraceLine, NearMissesStayText) {
  for (std::string_view l : {
           "",
           "at",
           "System.Exception: boom",
           "   at A.B() in App.dll:token 0x600",                // half frame
           "   at A.B() in App.dll:token 0x2000001+0x5",        // not a MethodDef token
           "   at A.B() in App.dll:token 0x6000000+0x5",        // row 0
           "   at A.B() in App.dll:token 0x6000001+0x80000000", // offset past int32
           "   at A.B() in App.dll:token 0x106000001+0x5",      // 9 hex digits
           "   at A.B() in App.dll:token 0x6000001+0x5 tail",   // text after the frame
           "   at A.B() in :token 0x6000001+0x5",               // no module
           "   at Asm!0x0600000f!NS.T.M()",                     // PST without offset
           "at NS.T M + 0x2db(Unknown Source)",                 // space in the name
           "  at A.B () [0x00001] in <0123>:0",                 // short MVID
           "MODULE: Asm => x; G:zz; A:1",
       }) {
    EXPECT_EQ(parse_frame(l).format, FrameFormat::kNone) << l;
  }
  EXPECT_FALSE(parse_pst_module("MODULE: Asm => x; G:zz; A:1"));
  EXPECT_FALSE(parse_pst_module("MODULE: Asm => x; G:6c544a863ccb4fa9810a691444a2b613; A:99999999999"));
}

}  // namespace
}  // namespace ilmap::symbolicate
