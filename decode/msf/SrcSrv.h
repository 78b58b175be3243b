// SrcSrv.h - the "srcsrv" stream of a Windows PDB (Source Server, srcsrv.doc of the Debugging
// Tools for Windows): which URL each source file is fetched from, resolved at compile time so
// that a cache stores it like a SourceLink URL.
//
// The stream is text in sections: "SRCSRV: ini ---", "SRCSRV: variables ---", "SRCSRV: source
// files ---", "SRCSRV: end ---" (VERSION 1 and 2 have the same layout). A source-files line is
// fields separated by '*': var1 is the file's path as the PDB names it, var2... the rest. A
// document's target is SRCSRVTRG expanded: %NAME% is a variable (names ignore ASCII case),
// %varN% a field of the line, %fnvar%(X) the variable named by X expanded, %fnbksl%(X) X with
// '/' turned into '\', %fnfile%(X) the part of X after the last '\' or '/'. A target is kept
// as a URL only when it starts with http:// or https:// (HTTP_EXTRACT_TARGET-style indexes);
// targets for version-control commands (tf.exe, svn) are not URLs and are left out.
// Expansion is bounded: 32 levels of nesting, 64 KiB per target, 65536 expansions (variables
// that expand to nothing twice over at each level would otherwise take 2^32); beyond, no URL.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ilmap/status.h"

namespace ilmap::msf {

class SrcSrv {
 public:
  // Errors (kMalformed) only for a stream that is not srcsrv text at all (no "SRCSRV: ini"
  // line first, or a NUL byte); unknown lines inside are ignored.
  static Result<SrcSrv> parse(std::span<const std::uint8_t> stream);

  // The URL of the file the PDB names `path` (ASCII case ignored, as Windows paths), or nullopt.
  std::optional<std::string> url(std::string_view path) const;

  std::uint32_t version() const { return version_; }
  std::size_t file_count() const { return files_.size(); }

 private:
  bool expand(std::string_view text, const std::vector<std::string_view>& fields, int depth,
              std::size_t& steps, std::string& out) const;
  std::uint32_t version_ = 0;
  std::unordered_map<std::string, std::string> vars_;   // lower-cased name -> raw value
  std::unordered_map<std::string, std::size_t> files_;  // lower-cased var1 -> index into lines_
  std::vector<std::string> lines_;                      // source-files lines, verbatim
};

}  // namespace ilmap::msf
