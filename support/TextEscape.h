// TextEscape.h - make file-supplied text safe for line-oriented text output.
//
// Document paths, URLs and names come from the input file and may hold anything: a newline
// would split one answer into two lines (forging later answers of a --batch run), ESC and
// other controls would reach the terminal. Every text output (lookup, dump, info, the
// canonical listing, messages) passes such text through escape_text(); JSON output does not
// (JSON has its own escaping). The escaping is defined in docs/text-output.md:
//   \n \r \t for LF, CR, TAB; \xHH (two lowercase hex digits) for every other byte below
//   0x20, for 0x7F and for each byte that is not part of a well-formed UTF-8 sequence;
//   \u0080..\u009f for the C1 control characters (U+0080..U+009F). Everything else, the
//   backslash included (Windows paths are full of them), is copied unchanged.
#pragma once

#include <string>
#include <string_view>

namespace ilmap {

// True when `s` would be copied unchanged by escape_text (the common case: no allocation).
bool is_plain_text(std::string_view s) noexcept;
// Appends the escaped form of `s` to `out`.
void append_escaped(std::string& out, std::string_view s);
std::string escape_text(std::string_view s);

}  // namespace ilmap
