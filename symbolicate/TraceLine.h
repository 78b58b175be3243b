// TraceLine.h - finds the stack frames in one line of trace text, in any of the formats ilmap
// symbolicate reads (docs/symbolicate.md), wherever they stand in the line, so formats mix
// freely and log prefixes and suffixes stay as they are:
//
//   CoreCLR, ShowILOffsets on:  "   at NS.T.M(String[] args) in App.dll:token 0x6000001+0x5"
//                               (older texts put a space after the colon: ": token")
//   CoreCLR with lines:         "   at NS.T.M(String[] args) in /src/A.cs:line 42" (kept as is)
//   .NET on Android:            "at NS.T.M + 0x2db(Unknown Source)"
//   Mono without symbols:       "  at NS.T.M (System.String[] args) [0x0001a] in <mvid>:0"
//                               (AOT: "<mvid#aotid>")
//   Mono AOT, native offset:    "  at NS.T.M (System.String[] args) <0x7f00aa10 + 0x0005e> in <mvid#aotid>:0"
//                               (a method index may follow the '>': "<0x.. + 0x..> 12 in")
//   ProductionStackTrace:       "   at Asm!0x0600000f!NS.T.M() +0xc", plus, after a
//                               "==========" line, "MODULE: Asm => <full name>; G:<guid>; A:<age>"
//
// A frame is found by its anchor, the part no prose has: ":token 0x", "] in <" after "[0x",
// "!0x...!", " + 0x", ":line N", " <0x". From the anchor the parser goes back to the frame's "at ",
// which must follow the start of the line or a byte that is not a letter, digit or '_'
// ("Nov 24 10:00:00 host app[1]:    at ...", "E AndroidRuntime: \tat ..."); after the frame
// comes the end of the line or such a byte. Several frames may share a line (a logger's
// single-line layout joins a trace with spaces): find them one after the other with `from`.
//
// Parsing never allocates: a ParsedFrame holds views into the line. Anything that does not
// match a format exactly (a half frame, an absurd token or offset) is kNone and passes through.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace ilmap::symbolicate {

enum class FrameFormat : std::uint8_t { kNone, kCoreClr, kCoreClrWithLine, kAndroid, kMono, kPst, kMonoAot };
const char* frame_format_name(FrameFormat f) noexcept;  // "coreclr", "android", "mono", "pst", "mono-aot", ...

struct ParsedFrame {
  FrameFormat format = FrameFormat::kNone;
  std::string_view head;    // the line up to and including the frame's "at " (prefix kept)
  std::string_view method;  // the method as the line prints it
  std::string_view module;  // CoreCLR: module file name; PST: assembly name; Mono: 32 hex MVID
  std::uint32_t token = 0;  // CoreCLR, PST: MethodDef token (0x06xxxxxx)
  std::uint32_t il_offset = 0;
  // Mono AOT: the native offset, the method index printed after it (0xffffff: none) and the
  // AOT id after the '#' (empty when the frame has none).
  std::uint32_t native_offset = 0;
  std::uint32_t method_index = 0xffffff;
  std::string_view aot_id;
  std::size_t begin = 0, end = 0;  // the frame: from its "at " to its last byte (the rest is suffix)
  // The part of the line a resolved frame replaces: [replace_from, replace_to) byte offsets.
  std::size_t replace_from = 0, replace_to = 0;
};

// The first frame of `line` that begins at or after byte `from`. `line` is one line without
// its terminator ('\r' of CRLF may remain at the end: it is a suffix).
ParsedFrame parse_frame(std::string_view line, std::size_t from = 0) noexcept;

// False when `line` holds no frame of any format: it has neither "0x" nor ":line " (what
// every anchor contains). Two memchr-speed scans; parse_frame is the exact test.
bool may_hold_frame(std::string_view line) noexcept;

// ProductionStackTrace's module line "MODULE: Asm => ...; G:<guid>; A:<age>", after a prefix
// that ends in white space, if any.
struct PstModule {
  std::string_view assembly;
  std::array<std::uint8_t, 16> guid{};  // on-disk (#GUID) byte order
  std::uint32_t age = 0;
};
std::optional<PstModule> parse_pst_module(std::string_view line) noexcept;
// True for ProductionStackTrace's "==========" separator line, after a prefix that ends in
// white space, if any (trailing '\r' or spaces allowed).
bool is_pst_separator(std::string_view line) noexcept;


}  // namespace ilmap::symbolicate
