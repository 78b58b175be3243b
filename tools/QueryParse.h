// QueryParse.h - parsing of METHOD and IL_OFFSET arguments (command line and --batch lines).
//
// METHOD: a MethodDef token "0x06RRRRRR" (hex, table byte must be 0x06, row nonzero), a hex
// value below 0x01000000 read as a row number ("0xa" = row 10: Sentry events carry
// function_id as the token's low 24 bits, Sentry RFC 0013), or a decimal row number
// (1..0xFFFFFF). IL_OFFSET: decimal or "0x" hex, 0..0xFFFFFFFF, or -1 (the runtime's
// OFFSET_UNKNOWN, read as 0xFFFFFFFF, which the reader answers with nothing).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "ilmap/status.h"

namespace ilmap::cli {

struct Query {
  std::uint32_t rid = 0;
  std::uint32_t il_offset = 0;
};

Result<std::uint32_t> parse_method(std::string_view s);
Result<std::uint32_t> parse_il_offset(std::string_view s);
// "METHOD IL_OFFSET" separated by spaces or tabs; surrounding whitespace ignored.
Result<Query> parse_query_line(std::string_view line);

}  // namespace ilmap::cli
