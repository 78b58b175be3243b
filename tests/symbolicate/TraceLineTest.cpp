// symbolicate_trace_line_test.cpp - the frame finder of symbolicate/TraceLine.h: each real
// format (texts as the runtimes print them), the replaced range, each format behind the prefix
// of each log family and before a suffix, several frames in one line, and near misses (half
// frames, prose) that must stay text.
#include <gtest/gtest.h>

#include "symbolicate/TraceLine.h"

#include <string>
#include <vector>

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

TEST(SymbolicateTraceLine, LastFrameStartAndLastInWin) {
  // The method text runs from the last "at " (at a word boundary) before the last " in ".
  const std::string_view l = "x at y, retry at A.B(Int32 at, String xat) in Mod in App.dll:token 0x6000001+0x5";
  const ParsedFrame f = parse_frame(l);
  ASSERT_EQ(f.format, FrameFormat::kCoreClr);
  EXPECT_EQ(f.method, "A.B(Int32 at, String xat) in Mod");
  EXPECT_EQ(f.module, "App.dll");
  // No frame start before " in ": nothing; a start at the very beginning of the text: found.
  EXPECT_EQ(parse_frame("A.B() in App.dll:token 0x6000001+0x5").format, FrameFormat::kNone);
  EXPECT_EQ(parse_frame("at B in App.dll:token 0x6000001+0x5").method, "B");
  EXPECT_EQ(parse_frame("at  in App.dll:token 0x6000001+0x5").format, FrameFormat::kNone);
  // Eight hex digits are a token; nine are not.
  EXPECT_EQ(parse_frame("at A.B() in App.dll:token 0x06000001+0xFFFFFFF").il_offset, 0xFFFFFFFu);
  EXPECT_EQ(parse_frame("at A.B() in App.dll:token 0x006000001+0x5").format, FrameFormat::kNone);
  EXPECT_EQ(parse_frame("at A.B() in App.dll:token 0x6000001+0x").format, FrameFormat::kNone);
}

TEST(SymbolicateTraceLine, AnchorsInTheOrderTheyAppear) {
  // A ":line " frame before a "0x" frame in one line is found first, and the next search from
  // its end finds the other; a failed "0x" anchor does not hide a later ":line " one.
  const std::string_view l = "at A.B() in /s/A.cs:line 4 at C.D() in App.dll:token 0x6000002+0x7";
  const ParsedFrame a = parse_frame(l);
  ASSERT_EQ(a.format, FrameFormat::kCoreClrWithLine);
  EXPECT_EQ(a.method, "A.B()");
  const ParsedFrame b = parse_frame(l, a.end);
  ASSERT_EQ(b.format, FrameFormat::kCoreClr);
  EXPECT_EQ(b.method, "C.D()");
  EXPECT_EQ(b.il_offset, 7u);
  const ParsedFrame c = parse_frame("flags 0x1F, 0xzz: at A.B() in /s/A.cs:line 9");
  ASSERT_EQ(c.format, FrameFormat::kCoreClrWithLine);
  EXPECT_EQ(c.method, "A.B()");
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

// Mono AOT: a native offset, "<MVID#AOTID>", a method index perhaps (docs/msym.md). Frames as
// Mono 6.8 prints them (tests/symbolicate/aot.sh records them).
TEST(SymbolicateTraceLine, MonoAotNativeOffset) {
  const std::string_view l =
      "  at Ilmap.Trace.Plain.Level2 (System.Int32 x) <0x7f89af5354c0 + 0x0005e> in "
      "<14b94241192c4301bd59f622bcaaab6f#796a281f537089fed07ef251475cb24f>:0 ";
  const ParsedFrame f = parse_frame(l);
  ASSERT_EQ(f.format, FrameFormat::kMonoAot);
  EXPECT_EQ(f.method, "Ilmap.Trace.Plain.Level2 (System.Int32 x)");
  EXPECT_EQ(f.module, "14b94241192c4301bd59f622bcaaab6f");
  EXPECT_EQ(f.aot_id, "796a281f537089fed07ef251475cb24f");
  EXPECT_EQ(f.native_offset, 0x5eu);
  EXPECT_EQ(f.method_index, 0xffffffu);
  EXPECT_EQ(l.substr(f.replace_from, f.replace_to - f.replace_from),
            "<0x7f89af5354c0 + 0x0005e> in <14b94241192c4301bd59f622bcaaab6f#796a281f537089fed07ef251475cb24f>:0");
  const ParsedFrame indexed = parse_frame(
      "  at A.G[T] (T v) <0x1000 + 0x12> 17 in <14b94241192c4301bd59f622bcaaab6f#796a281f537089fed07ef251475cb24f>:0");
  ASSERT_EQ(indexed.format, FrameFormat::kMonoAot);
  EXPECT_EQ(indexed.method_index, 17u);
  EXPECT_EQ(indexed.native_offset, 0x12u);
  const ParsedFrame no_aot = parse_frame("  at A.B () <0x1000 + 0x12> in <14b94241192c4301bd59f622bcaaab6f>:0");
  ASSERT_EQ(no_aot.format, FrameFormat::kMonoAot);
  EXPECT_TRUE(no_aot.aot_id.empty());
  // Near misses: a 17-digit address, a 9-digit offset, an index of 9 digits, no MVID, a bare
  // "<0x...>" (the runtime's frame without any offset).
  for (std::string_view bad : {
           "  at A.B () <0x12345678901234567 + 0x12> in <14b94241192c4301bd59f622bcaaab6f#a>:0",
           "  at A.B () <0x1000 + 0x123456789> in <14b94241192c4301bd59f622bcaaab6f#a>:0",
           "  at A.B () <0x1000 + 0x12> 123456789 in <14b94241192c4301bd59f622bcaaab6f#a>:0",
           "  at A.B () <0x1000 + 0x12> in <filename unknown>:0",
           "  at A.B () <0x1000>",
       })
    EXPECT_EQ(parse_frame(bad).format, FrameFormat::kNone) << bad;
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
           "   at A.B() in App.dll:token 0x6000001+0x5tail",    // a word goes on after the frame
           "   xat A.B() in App.dll:token 0x6000001+0x5",       // "at" inside a word
           "   at A.B() in :token 0x6000001+0x5",               // no module
           "   at Asm!0x0600000f!NS.T.M()",                     // PST without offset
           "at NS.T M + 0x2db(Unknown Source)",                 // space in the name
           "  at A.B () [0x00001] in <0123>:0",                 // short MVID
           "MODULE: Asm => x; G:zz; A:1",
       }) {
    EXPECT_EQ(parse_frame(l).format, FrameFormat::kNone) << l;
  }
  EXPECT_FALSE(parse_pst_module("MODULE: Asm => x; G:zz; A:1"));
  EXPECT_FALSE(parse_pst_module("xMODULE: Asm => x; G:6c544a863ccb4fa9810a691444a2b613; A:1"));
  EXPECT_FALSE(parse_pst_module("MODULE: Asm => x; G:6c544a863ccb4fa9810a691444a2b613; A:99999999999"));
}

// The prefixes of the log families of docs/symbolicate.md, each in front of every format.
constexpr std::string_view kPrefixes[] = {
    "",
    "Nov 24 10:00:00 host app[123]: ",                            // journald / syslog (journalctl -o short)
    "2026-11-24T10:00:00+0000 host app[123]: ",                   // journalctl -o short-iso
    "2026-11-24T10:00:00.123456789Z stderr F ",                   // CRI (containerd, CRI-O)
    "2026-11-24T10:00:00.123456789Z ",                            // kubectl logs --timestamps
    "E/AndroidRuntime( 1234): ",                                  // adb logcat -v brief
    "11-24 10:00:00.123  1234  1234 E AndroidRuntime: \t",        // adb logcat (threadtime)
    "2026-11-24T10:00:00.1234567Z ",                              // GitHub Actions / Azure Pipelines logs
    "2026-11-24 10:00:00.123 +00:00 [ERR] App.Worker: ",          // a logger layout
    "2026-11-24 10:00:00,123 ERROR [worker-1] App.Worker - ",     // log4net / NLog style
};

TEST(SymbolicateTraceLine, EveryFormatBehindEveryPrefix) {
  struct Case {
    std::string_view frame;
    FrameFormat format;
    std::string_view replaced;  // the part a resolved frame replaces
  };
  const Case cases[] = {
      {"   at A.B(Int32 x) in App.dll:token 0x6000001+0x5", FrameFormat::kCoreClr, " in App.dll:token 0x6000001+0x5"},
      {"at A.B(Int32 x) in App.dll: token 0x6000001+0x5", FrameFormat::kCoreClr, " in App.dll: token 0x6000001+0x5"},
      {"   at A.B(Int32 x) in /src/A.cs:line 42", FrameFormat::kCoreClrWithLine, ""},
      {"  at A.B (System.Int32 x) [0x0001a] in <f5a81f930d9c4f228813e2ca781ba982>:0", FrameFormat::kMono,
       "<f5a81f930d9c4f228813e2ca781ba982>:0"},
      {"at NS.T.M + 0x2db(Unknown Source)", FrameFormat::kAndroid, "NS.T.M + 0x2db(Unknown Source)"},
      {"at NS.T.M + 0x2db", FrameFormat::kAndroid, "NS.T.M + 0x2db"},
      {"   at Asm!0x0600000f!NS.T.M(Int32 x) +0xc", FrameFormat::kPst, "Asm!0x0600000f!NS.T.M(Int32 x) +0xc"},
      {"  at A.B (System.Int32 x) <0x7f89af5354c0 + 0x0005e> in <f5a81f930d9c4f228813e2ca781ba982#796a281f537089fed07ef251475cb24f>:0",
       FrameFormat::kMonoAot,
       "<0x7f89af5354c0 + 0x0005e> in <f5a81f930d9c4f228813e2ca781ba982#796a281f537089fed07ef251475cb24f>:0"},
  };
  for (std::string_view prefix : kPrefixes) {
    for (const Case& c : cases) {
      for (std::string_view suffix : {"", "\r", " ", "\" ", "; retrying", " (attempt 2)\r"}) {
        const std::string line = std::string(prefix) + std::string(c.frame) + std::string(suffix);
        const ParsedFrame f = parse_frame(line);
        ASSERT_EQ(f.format, c.format) << line;
        EXPECT_TRUE(may_hold_frame(line)) << line;
        const std::size_t at = c.frame.find("at ");
        EXPECT_EQ(f.begin, prefix.size() + at) << line;
        EXPECT_EQ(f.head, line.substr(0, prefix.size() + at + 3)) << line;
        EXPECT_EQ(f.end, prefix.size() + c.frame.size()) << line;
        if (c.format != FrameFormat::kCoreClrWithLine) {
          EXPECT_EQ(std::string_view(line).substr(f.replace_from, f.replace_to - f.replace_from), c.replaced) << line;
        }
        EXPECT_EQ(parse_frame(line, f.end).format, FrameFormat::kNone) << line;
      }
    }
    const std::string module = std::string(prefix) + "MODULE: Asm => x; G:6c544a863ccb4fa9810a691444a2b613; A:2";
    ASSERT_TRUE(parse_pst_module(module)) << module;
    EXPECT_EQ(parse_pst_module(module)->assembly, "Asm");
    EXPECT_TRUE(is_pst_separator(std::string(prefix) + "==========\r")) << prefix;
  }
  // The parsed views point into the line, so the lines outlive them.
  const std::string mono_line = std::string(kPrefixes[1]) + std::string(cases[3].frame);
  const ParsedFrame m = parse_frame(mono_line);
  EXPECT_EQ(m.method, "A.B (System.Int32 x)");
  EXPECT_EQ(m.module, "f5a81f930d9c4f228813e2ca781ba982");
  const std::string pst_line = std::string(kPrefixes[5]) + std::string(cases[6].frame);
  const ParsedFrame p = parse_frame(pst_line);
  EXPECT_EQ(p.module, "Asm");
  EXPECT_EQ(p.method, "NS.T.M(Int32 x)");
}

// Microsoft.Extensions.Logging's single-line console layout joins a trace with spaces: every
// frame of the line is found, in order, each from where the last one ended.
TEST(SymbolicateTraceLine, SeveralFramesInOneLine) {
  const std::string_view l =
      "2026-11-25T07:55:42.760Z fail: App[0] Scenario plain failed NS.ScenarioException: plain"
      "    at NS.Scenarios.Fail(String why) in NS.dll:token 0x600000a+0x7"
      "    at NS.Plain.Level2(Int32 y) in NS.dll:token 0x6000014+0x9"
      "    at Program.Main(String[] args) in /_/Program.cs:line 32"
      "    at NS.T.M + 0x2db(Unknown Source) and more";
  std::vector<ParsedFrame> frames;
  for (ParsedFrame f = parse_frame(l); f.format != FrameFormat::kNone; f = parse_frame(l, f.end)) frames.push_back(f);
  ASSERT_EQ(frames.size(), 4u);
  EXPECT_EQ(frames[0].method, "NS.Scenarios.Fail(String why)");
  EXPECT_EQ(frames[0].token, 0x0600000au);
  EXPECT_EQ(frames[1].method, "NS.Plain.Level2(Int32 y)");
  EXPECT_EQ(frames[1].il_offset, 9u);
  EXPECT_EQ(frames[2].format, FrameFormat::kCoreClrWithLine);
  EXPECT_EQ(frames[2].method, "Program.Main(String[] args)");
  EXPECT_EQ(frames[3].format, FrameFormat::kAndroid);
  EXPECT_EQ(l.substr(frames[3].end), " and more");
}

// Ordinary log text: no frame, and most lines stop at the pre-check.
TEST(SymbolicateTraceLine, ProseIsNoFrame) {
  for (std::string_view l : {
           "Nov 24 10:00:00 host app[123]: Request finished at 10:00 in 12 ms",
           "Connected at startup in App.dll mode",
           "Meeting at noon in Paris:line 5 of the agenda",           // ":line N" without a method
           "fault at base + 0x10 in the mapping",                     // no type and method name
           "the value at index [0x10] in <table>:0",                  // no MVID
           "jumped at Asm!0x12!foo +0x3",                             // not a MethodDef token
           "register at 0x7ffd1234 holds 0x0",
           "   at A.B() in App.dll:token 0x6000001 +0x5",             // broken offset
       }) {
    EXPECT_EQ(parse_frame(l).format, FrameFormat::kNone) << l;
  }
  EXPECT_FALSE(may_hold_frame("Nov 24 10:00:00 host app[123]: Request finished at 10:00 in 12 ms"));
  EXPECT_FALSE(may_hold_frame("   at A.B() in /src/a.cs:lines 4"));
  EXPECT_TRUE(may_hold_frame("x0x"));
  EXPECT_TRUE(may_hold_frame("a.cs:line 4"));
}

}  // namespace
}  // namespace ilmap::symbolicate
