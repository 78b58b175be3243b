// QueryParse.h - the query syntax of `lookup`, `lines` and `serve` (GET /lookup): their arguments and the
// query lines of their --batch modes (docs/text-output.md "Query arguments", "Query lines").
//
// METHOD: a MethodDef token "0x06RRRRRR" (hex, table byte must be 0x06, row nonzero), a hex
// value below 0x01000000 read as a row number ("0xa" = row 10: Sentry events carry
// function_id as the token's low 24 bits, Sentry RFC 0013), or a decimal row number
// (1..0xFFFFFF). IL_OFFSET: decimal or hex ("0x" or "0X"), 0..0xFFFFFFFF, or -1 (the runtime's
// OFFSET_UNKNOWN, read as 0xFFFFFFFF, which the reader answers with nothing). FILE:LINE[:COLUMN]:
// split at its last colons (FILE may hold colons: C:\src\a.cs:12).
//
// Both batch modes read their input alike: a query line is what LineReader gives (the bytes
// before a LF, at most LineReader::kMaxLine), with a CR at its end dropped (Windows-edited
// files end lines in CR LF) and then the spaces and tabs at both ends; a line left empty is a
// malformed query like any other, so that every input line still gets its answer.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "ilmap/status.h"

namespace ilmap::symbolicate {

struct Query {
  std::uint32_t rid = 0;
  std::uint32_t il_offset = 0;
};

struct LineQuery {
  std::string file;
  std::uint32_t line = 0, column = 0;  // column 0: none given
};

Result<std::uint32_t> parse_method(std::string_view s);
Result<std::uint32_t> parse_il_offset(std::string_view s);
// FILE:LINE[:COLUMN], LINE 1..0xFEEFED, COLUMN 1..0xFFFF (lines' argument, or a query's text).
Result<LineQuery> parse_line_query(std::string_view s);

// The query a batch input line holds: the line without a final CR, then without the spaces
// and tabs at both ends.
std::string_view query_text(std::string_view line);
// A lookup --batch line: "METHOD IL_OFFSET", the two separated by spaces or tabs.
Result<Query> parse_query_line(std::string_view line);
// A lines --batch line: FILE:LINE[:COLUMN].
Result<LineQuery> parse_line_query_line(std::string_view line);

}  // namespace ilmap::symbolicate
