// LookupAnswer.cpp - see LookupAnswer.h.
#include "symbolicate/LookupAnswer.h"

#include <nlohmann/json.hpp>

#include "ilmap/status.h"

namespace ilmap::symbolicate {

Answer answer(const Cache& cache, std::uint32_t rid, std::uint32_t il, std::vector<std::uint32_t>& scratch,
              bool state_machines, bool function) {
  Answer a;
  const std::uint32_t token = 0x06000000u | rid;
  if (function && rid < 0x01000000u)
    if (const auto n = cache.method_name(token)) a.function = n->coreclr;
  if (!state_machines || rid >= 0x01000000u) {
    a.result = cache.lookup_row(rid, il);
    return a;
  }
  FrameAnswer f = cache.lookup_frame(token, il, {}, scratch);  // SPEC.md 6.4
  a.result = f.result;
  a.via = f.state_machine_method;
  return a;
}

std::string answer_json(std::uint32_t rid, std::uint32_t il, const Answer& a) {
  const std::optional<LookupResult>& r = a.result;
  nlohmann::ordered_json j;
  j["method"] = format("0x%08x", 0x06000000u | rid);
  j["il_offset"] = il;
  j["function"] = a.function.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(std::string(a.function));
  if (a.via) j["state_machine_method"] = format("0x%08x", a.via);
  if (r) {
    j["file"] = std::string(r->file);
    j["language"] = language_label(r->language);
    j["line"] = r->line;
    j["column"] = r->column;
    j["end_line"] = r->end_line;
    j["end_column"] = r->end_column;
    j["url"] = r->source_url.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(std::string(r->source_url));
  } else {
    j["file"] = nullptr;
  }
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace ilmap::symbolicate
