// fuzz_batch.cpp - libFuzzer target: a batch request (symbolicate_batch, read without a tree,
// symbolicate/BatchScan.h) against the tree it replaced (symbolicate_batch_tree), with no
// caches (every module is missing, so frames take every status but `symbolicated`). Properties:
// the same status, error code and message, answer and stats; an answer is one JSON object with
// "status", as many stacktraces as the request's tree and as many frames in each.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "FuzzCommon.h"
#include "symbolicate/SentryEvent.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace ilmap;
  using Json = nlohmann::ordered_json;
  const std::string_view request(reinterpret_cast<const char*>(data), size);
  SentryCacheSetProvider provider;
  SentryOptions options;
  options.max_frames = 64;  // so that too_many_frames is reached too
  std::string got, want;
  SentryStats got_stats, want_stats;
  const Status g = symbolicate_batch(request, got, provider, options, got_stats);
  const Status w = symbolicate_batch_tree(request, want, provider, options, want_stats);
  ILMAP_FUZZ_CHECK(bool(g) == bool(w), g ? w.error().message : g.error().message);
  if (!g) {
    fuzz::check_error(g.error());
    ILMAP_FUZZ_CHECK(g.error().code == w.error().code && g.error().message == w.error().message, g.error().message);
    return 0;
  }
  ILMAP_FUZZ_CHECK(got == want, got);
  ILMAP_FUZZ_CHECK(got_stats.summary() == want_stats.summary(), got_stats.summary());
  const Json answer = Json::parse(got, nullptr, false);
  ILMAP_FUZZ_CHECK(answer.is_object() && answer.value("status", "") == "completed", got);
  const Json req = Json::parse(request);  // it was answered, so it is JSON
  const Json& st = answer["stacktraces"];
  ILMAP_FUZZ_CHECK(st.is_array() && st.size() == req["stacktraces"].size(), got);
  for (std::size_t i = 0; i < st.size(); ++i)
    ILMAP_FUZZ_CHECK(st[i]["frames"].size() == req["stacktraces"][i]["frames"].size(), got);
  ILMAP_FUZZ_CHECK(answer["modules"].size() == req["modules"].size(), got);
  return 0;
}
