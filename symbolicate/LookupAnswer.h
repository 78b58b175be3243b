// LookupAnswer.h - the answer to one (method, IL offset) query on a cache, as `ilmap lookup`
// and `ilmap serve`'s GET /lookup give it: the lookup's, or, for a kickoff method's token (an
// async or iterator method: CoreCLR prints a state machine's frame under it, with MoveNext's IL
// offset) with no point at the offset, that of its state machine's methods when they agree
// (Cache::state_machine_methods). The JSON form is the one `lookup --json` prints
// (docs/text-output.md); one place, so both speak it alike.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ilmap/cache.h"

namespace ilmap::symbolicate {

struct Answer {
  std::optional<LookupResult> result;
  std::uint32_t via = 0;      // the state-machine method that answered, else 0
  std::string_view function;  // CoreCLR's text of the method, empty without names (borrows from the cache)
};

// `rid`: the MethodDef row (QueryParse.h parse_method); `scratch` is reused between calls.
// `state_machines` false: the lookup rule of SPEC.md section 6 alone (`lookup --no-state-machine`).
// `function` false: `function` stays empty, and the method names are not read (a cache's names
// are unpacked on first use: a one-shot text lookup that prints no name does not pay for it).
Answer answer(const Cache& cache, std::uint32_t rid, std::uint32_t il, std::vector<std::uint32_t>& scratch,
              bool state_machines = true, bool function = true);

// One JSON object, no newline: method, il_offset, function, [state_machine_method], file, and
// with an answer language, line, column, end_line, end_column, url.
std::string answer_json(std::uint32_t rid, std::uint32_t il, const Answer& a);

}  // namespace ilmap::symbolicate
