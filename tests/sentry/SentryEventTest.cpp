// SentryEventTest.cpp - symbolicate/SentryEvent against caches compiled in process from the
// corpus (corpus/out: a PDB with embedded sources, one with SourceLink): a frame resolves to
// exactly Cache::lookup's answer with the embedded source's lines around it; every wrong shape
// of frame, image, event and envelope leaves the frame (or the text) as it was and is counted
// under its own reason; envelopes keep every byte outside rewritten event items; a flip sweep
// over an event and an envelope never throws or crashes.
#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>
#include <functional>

#include "compiler/CacheBuilder.h"
#include "decode/DebugInput.h"
#include "symbolicate/EventScan.h"
#include "symbolicate/SentryEvent.h"
#include "ilmap_generated.h"

namespace ilmap {
namespace {

using Json = nlohmann::ordered_json;

std::string corpus(const std::string& rel) { return std::string(ILMAP_TEST_CORPUS_DIR) + "/" + rel; }

std::optional<Cache> compile(const std::string& rel) {
  auto in = open_debug_input(corpus(rel));
  if (!in || !(*in)->pdb) return std::nullopt;
  CacheSource src;
  src.pdb = &*(*in)->pdb;
  src.source_name = std::filesystem::path(rel).filename().string();
  // As `ilmap compile` records them (the test only needs them distinct per PDB).
  src.debug_id = rel.find("Shapes") != std::string::npos ? "5a0e0b64-0000-4000-8000-000000000002-0000beef"
                                                         : "1f2e3d4c-0000-4000-8000-000000000001-0000cafe";
  src.pdb_key = src.source_name + "/" + src.debug_id + "/" + src.source_name;
  CacheBuildOptions opt;
  opt.embed_sources = true;
  auto bytes = build_cache(src, opt);
  if (!bytes) return std::nullopt;
  auto c = Cache::from_bytes(*bytes);
  if (!c) return std::nullopt;
  return std::move(*c);
}

std::string debug_id_of(const Cache& c) {
  return std::string(c.identity().debug_id);
}

// The first visible point of the first method that has one: (row, point).
std::pair<std::uint32_t, CachePoint> first_point(const Cache& c) {
  std::vector<CachePoint> pts;
  for (std::uint32_t rid = 1; rid <= c.method_count(); ++rid) {
    pts.clear();
    if (!c.points(rid, pts)) continue;
    for (const CachePoint& p : pts)
      if (!p.hidden) return {rid, p};
  }
  return {0, {}};
}

class SentryEventTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string rel = "out/cs-embedded-sources/Ilmap.Corpus.EmbeddedSources.pdb";
    if (!std::filesystem::exists(corpus(rel))) GTEST_SKIP() << "corpus/out not built";
    auto c = compile(rel);
    ASSERT_TRUE(c);
    debug_id_ = debug_id_of(*c);
    std::tie(row_, point_) = first_point(*c);
    ASSERT_NE(row_, 0u);
    auto r = c->lookup(0x06000000u | row_, point_.il_offset);
    ASSERT_TRUE(r);
    want_ = *r;
    want_file_ = std::string(r->file);
    provider_.add(std::move(*c));
  }

  // An event with one exception whose one frame is `frame`, and one pe_dotnet image.
  Json event_with(Json frame, Json image = Json()) const {
    if (image.is_null())
      image = Json{{"type", "pe_dotnet"}, {"debug_id", debug_id_}, {"debug_file", "/obj/Ilmap.Corpus.EmbeddedSources.pdb"}};
    return Json{{"event_id", "00"},
                {"exception", {{"values", Json::array({Json{{"type", "E"}, {"stacktrace", {{"frames", Json::array({frame})}}}}})}}},
                {"debug_meta", {{"images", Json::array({image})}}}};
  }
  Json good_frame() const {
    return Json{{"function", "M"}, {"function_id", hex(row_)}, {"instruction_addr", hex(point_.il_offset)}, {"addr_mode", "rel:0"}};
  }
  static std::string hex(std::uint64_t v) {
    char b[32];
    std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
    return b;
  }
  static Json& frame0(Json& e) { return e["exception"]["values"][0]["stacktrace"]["frames"][0]; }

  // Runs one event whose frame must stay exactly as it was; returns the stats.
  SentryStats left_alone(Json event, const SentryOptions& o = {}) {
    const Json before = event;
    SentryStats s;
    symbolicate_sentry_event(event, provider_, o, s);
    EXPECT_EQ(event, before) << event.dump();
    EXPECT_EQ(s.resolved, 0u);
    return s;
  }

  SentryCacheSetProvider provider_;
  std::string debug_id_, want_file_;
  std::uint32_t row_ = 0;
  CachePoint point_;
  LookupResult want_;
};

TEST_F(SentryEventTest, ResolvesLikeLookupWithEmbeddedContext) {
  Json e = event_with(good_frame());
  SentryStats s;
  symbolicate_sentry_event(e, provider_, {}, s);
  const Json& f = frame0(e);
  EXPECT_EQ(s.resolved, 1u);
  EXPECT_EQ(f["abs_path"], want_file_);
  EXPECT_EQ(f["filename"], std::filesystem::path(want_file_).filename().string());
  EXPECT_EQ(f["lineno"], want_.line);
  EXPECT_EQ(f["colno"], want_.column);
  EXPECT_EQ(f["function"], "M");  // untouched
  ASSERT_TRUE(f.contains("context_line")) << f.dump();
  EXPECT_EQ(s.with_context, 1u);
  EXPECT_EQ(f["pre_context"].size(), std::min<std::size_t>(5, want_.line - 1));
  EXPECT_LE(f["post_context"].size(), 5u);
  // Key order of the event is kept; new frame keys come after the old ones.
  EXPECT_EQ(e.begin().key(), "event_id");
  EXPECT_EQ(f.begin().key(), "function");
}

TEST_F(SentryEventTest, NoContextWhenAskedNot) {
  Json e = event_with(good_frame());
  SentryStats s;
  SentryOptions o;
  o.source_context = false;
  symbolicate_sentry_event(e, provider_, o, s);
  EXPECT_EQ(frame0(e)["lineno"], want_.line);
  EXPECT_FALSE(frame0(e).contains("context_line"));
}

TEST_F(SentryEventTest, TokenFormsAndCaseInsensitiveDebugId) {
  const std::uint32_t token = 0x06000000u | row_;
  for (Json id : {Json(hex(token)), Json(token), Json(row_), Json(std::to_string(row_)), Json("0X" + hex(row_).substr(2))}) {
    Json f = good_frame();
    f["function_id"] = id;
    f["instruction_addr"] = point_.il_offset;  // a plain number too
    Json image{{"type", "pe_dotnet"}, {"debug_id", Json(debug_id_)}};
    std::string upper = debug_id_;
    for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    image["debug_id"] = upper;
    Json e = event_with(f, image);
    SentryStats s;
    symbolicate_sentry_event(e, provider_, {}, s);
    EXPECT_EQ(s.resolved, 1u) << id.dump();
    EXPECT_EQ(frame0(e)["lineno"], want_.line) << id.dump();
  }
}

TEST_F(SentryEventTest, WrongFieldTypesAreBadFields) {
  const std::pair<const char*, Json> cases[] = {
      {"function_id", true},         {"function_id", -1},     {"function_id", 1.5},
      {"function_id", "0xZZ"},       {"function_id", ""},     {"function_id", Json::object()},
      {"function_id", "0x"},         {"function_id", "12abc"}, {"instruction_addr", "abc"},
      {"instruction_addr", Json::array()}, {"instruction_addr", "0x1FFFFFFFFFFFFFFFFFFFF"},
      {"addr_mode", 5},              {"addr_mode", "rel:x"},  {"addr_mode", "rel:1x"},
      {"addr_mode", "rel:-1"}};
  for (const auto& [key, value] : cases) {
    Json f = good_frame();
    f[key] = value;
    EXPECT_EQ(left_alone(event_with(f)).bad_field, 1u) << key << " = " << value.dump();
  }
  Json f = good_frame();
  f.erase("instruction_addr");
  EXPECT_EQ(left_alone(event_with(f)).bad_field, 1u);
}

TEST_F(SentryEventTest, AbsurdValues) {
  const std::pair<const char*, Json> cases[] = {
      {"function_id", "0x0"},          {"function_id", "0x06000000"}, {"function_id", "0x02000001"},
      {"function_id", "0xFFFFFFFFFFFFFFFF"}, {"instruction_addr", "0x80000000"},
      {"instruction_addr", "0xFFFFFFFF"}, {"instruction_addr", "0xFFFFFFFFFFFFFFFF"},
      {"addr_mode", "rel:1"},          {"addr_mode", "rel:99999999999999999999"}};
  for (const auto& [key, value] : cases) {
    Json f = good_frame();
    f[key] = value;
    const SentryStats s = left_alone(event_with(f));
    EXPECT_EQ(s.absurd_value + s.bad_field, 1u) << key << " = " << value.dump();
  }
}

TEST_F(SentryEventTest, FramesWithoutAManagedImage) {
  Json f = good_frame();
  f.erase("function_id");
  EXPECT_EQ(left_alone(event_with(f)).no_function_id, 1u);
  f = good_frame();
  f.erase("addr_mode");
  EXPECT_EQ(left_alone(event_with(f)).no_image, 1u);
  f = good_frame();
  f["addr_mode"] = "abs";
  EXPECT_EQ(left_alone(event_with(f)).no_image, 1u);
  for (Json image : {Json(5), Json("pe_dotnet"), Json{{"type", "pe"}, {"debug_id", debug_id_}}, Json{{"debug_id", debug_id_}},
                     Json{{"type", 7}, {"debug_id", debug_id_}}})
    EXPECT_EQ(left_alone(event_with(good_frame(), image)).no_image, 1u) << image.dump();
  Json e = event_with(good_frame());
  e.erase("debug_meta");
  EXPECT_EQ(left_alone(e).absurd_value, 1u);
  e = event_with(good_frame());
  e["debug_meta"]["images"] = "none";
  EXPECT_EQ(left_alone(e).absurd_value, 1u);
}

TEST_F(SentryEventTest, UnknownAndMismatchedModules) {
  Json image{{"type", "pe_dotnet"}, {"debug_id", "00000000-0000-0000-0000-000000000000-00000000"},
             {"debug_file", "C:\\obj\\Other.pdb"}};
  SentryStats s = left_alone(event_with(good_frame(), image));
  EXPECT_EQ(s.module_not_found, 1u);
  ASSERT_EQ(s.why_not.size(), 1u);
  EXPECT_NE(s.why_not.begin()->first.find("no cache for Other.pdb"), std::string::npos) << s.why_not.begin()->first;
  image["debug_file"] = "/obj/Ilmap.Corpus.EmbeddedSources.pdb";  // same PDB name, another id
  s = left_alone(event_with(good_frame(), image));
  ASSERT_EQ(s.why_not.size(), 1u);
  EXPECT_NE(s.why_not.begin()->first.find("PDB id mismatch"), std::string::npos) << s.why_not.begin()->first;
  image.erase("debug_id");
  EXPECT_EQ(left_alone(event_with(good_frame(), image)).module_not_found, 1u);
}

TEST_F(SentryEventTest, NoPointAndAlreadyResolved) {
  Json f = good_frame();
  f["function_id"] = hex(0xFFFFFF);  // a row beyond the method table
  EXPECT_EQ(left_alone(event_with(f)).no_line, 1u);
  f = good_frame();
  f["lineno"] = 7;
  EXPECT_EQ(left_alone(event_with(f)).already, 1u);
  Json e = event_with(f);
  SentryOptions o;
  o.overwrite = true;
  SentryStats s;
  symbolicate_sentry_event(e, provider_, o, s);
  EXPECT_EQ(frame0(e)["lineno"], want_.line);
  f["lineno"] = nullptr;  // null is "no line"
  e = event_with(f);
  symbolicate_sentry_event(e, provider_, {}, s);
  EXPECT_EQ(frame0(e)["lineno"], want_.line);
}

TEST_F(SentryEventTest, EveryPlaceFramesLive) {
  Json e = event_with(good_frame());
  const Json st{{"frames", Json::array({good_frame()})}};
  e["exception"] = Json::array({Json{{"stacktrace", st}}});     // bare-array form
  e["threads"] = Json{{"values", Json::array({Json{{"id", 1}, {"stacktrace", st}}})}};
  e["stacktrace"] = st;
  SentryStats s;
  symbolicate_sentry_event(e, provider_, {}, s);
  EXPECT_EQ(s.resolved, 3u);
  EXPECT_EQ(e["exception"][0]["stacktrace"]["frames"][0]["lineno"], want_.line);
  EXPECT_EQ(e["threads"]["values"][0]["stacktrace"]["frames"][0]["lineno"], want_.line);
  EXPECT_EQ(e["stacktrace"]["frames"][0]["lineno"], want_.line);
}

TEST_F(SentryEventTest, WrongShapedContainersAreIgnored) {
  for (Json exc : {Json(5), Json("x"), Json{{"values", 5}}, Json{{"values", Json::array({5, nullptr, "s"})}},
                   Json{{"values", Json::array({Json{{"stacktrace", 5}}})}},
                   Json{{"values", Json::array({Json{{"stacktrace", {{"frames", "many"}}}}})}},
                   Json{{"values", Json::array({Json{{"stacktrace", {{"frames", {{"0", 1}}}}}}})}}}) {
    Json e = event_with(good_frame());
    e["exception"] = exc;
    SentryStats s = left_alone(e);
    EXPECT_EQ(s.frames, 0u) << exc.dump();
  }
  for (Json frame : {Json(5), Json(nullptr), Json("frame"), Json::array()}) {
    SentryStats s = left_alone(event_with(frame));
    EXPECT_EQ(s.not_an_object, 1u) << frame.dump();
  }
  for (Json ev : {Json(5), Json::array(), Json(nullptr)}) {
    SentryStats s;
    symbolicate_sentry_event(ev, provider_, {}, s);
    EXPECT_EQ(s.events_unreadable, 1u);
  }
}

TEST_F(SentryEventTest, FrameLimit) {
  Json e = event_with(good_frame());
  Json& frames = e["exception"]["values"][0]["stacktrace"]["frames"];
  for (int i = 0; i < 2999; ++i) frames.push_back(good_frame());
  SentryOptions o;
  o.max_frames = 1000;
  o.source_context = false;
  SentryStats s;
  symbolicate_sentry_event(e, provider_, o, s);
  EXPECT_EQ(s.resolved, 1000u);
  EXPECT_EQ(s.over_limit, 2000u);
  EXPECT_FALSE(frames[1000].contains("lineno"));
  EXPECT_EQ(s.left(), 2000u);
  // The same as text: the first 1000 frames (in the text's order) are read, the rest copied.
  const std::string text = e.dump();
  for (Json& f : frames) f.erase("lineno"), f.erase("colno"), f.erase("filename"), f.erase("abs_path");
  std::string out;
  s = {};
  ASSERT_TRUE(symbolicate_sentry_text(e.dump(), out, provider_, o, s));
  EXPECT_EQ(s.resolved, 1000u);
  EXPECT_EQ(s.over_limit, 2000u);
  EXPECT_EQ(s.frames, 3000u);
  EXPECT_EQ(out, text);
}

TEST_F(SentryEventTest, TextEventAndEnvelope) {
  const std::string event = event_with(good_frame()).dump(2);
  std::string out;
  SentryStats s;
  ASSERT_TRUE(symbolicate_sentry_text("\n  " + event, out, provider_, {}, s));
  // The text is kept as it was (indentation included) up to the frame and after it.
  const std::size_t frame_at = 2 + event.find("\"function\"") - 1;
  EXPECT_EQ(out.substr(0, frame_at), ("\n  " + event).substr(0, frame_at));
  EXPECT_EQ(out.substr(out.size() - 20), event.substr(event.size() - 20));
  Json parsed = Json::parse(out);
  EXPECT_EQ(frame0(parsed)["lineno"], want_.line);

  const std::string payload = event_with(good_frame()).dump();
  const std::string binary("a\nb\0c\xff", 6);
  const std::string env = std::string("{\"event_id\":\"00\"}\n") +
                          "{\"type\":\"attachment\",\"length\":6}\n" + binary + "\n" +
                          "{\"type\":\"event\",\"length\":" + std::to_string(payload.size()) + ",\"x\":1}\n" + payload + "\n" +
                          "{\"type\":\"event\"}\n" + payload + "\n" +
                          "{\"type\":\"session\"}\n{\"sid\":1}";
  s = {};
  ASSERT_TRUE(symbolicate_sentry_text(env, out, provider_, {}, s));
  EXPECT_EQ(s.events, 2u);
  EXPECT_EQ(s.resolved, 2u);
  // Everything up to the first event item, and the last item, are byte for byte the same.
  const std::size_t head = env.find("{\"type\":\"event\"");
  EXPECT_EQ(out.substr(0, head), env.substr(0, head));
  EXPECT_EQ(out.substr(out.size() - 29), env.substr(env.size() - 29));
  // The length of the rewritten item is its new payload's; the other header keys stay.
  std::size_t pos = head;
  const std::size_t nl = out.find('\n', pos);
  const Json h = Json::parse(out.substr(pos, nl - pos));
  EXPECT_EQ(h["x"], 1);
  const std::string new_payload = out.substr(nl + 1, h["length"].get<std::size_t>());
  Json rewritten = Json::parse(new_payload);
  EXPECT_EQ(frame0(rewritten)["lineno"], want_.line);
  EXPECT_EQ(out[nl + 1 + new_payload.size()], '\n');
}

TEST_F(SentryEventTest, TextKeepsEveryByteOutsideTheMembersWritten) {
  // Numbers no double holds exactly, exponents, escapes JSON allows several ways, odd spacing:
  // all kept byte for byte; only the resolved frame's written members change.
  const std::string good = "{ \"function\" : \"M\\u00e9\\/x\",\t\"function_id\": \"" + hex(row_) +
                           "\",\n      \"instruction_addr\": \"" + hex(point_.il_offset) +
                           "\", \"addr_mode\": \"rel:0\", \"lineno\": null, \"big\": 123456789012345678901234567890 }";
  const std::string other = "{\"function\": \"N\", \"lineno\": 1E2, \"colno\": 1.50}";
  const std::string head = "{\n  \"event_id\": \"\\u0030\\u0030\", \"n\": 123456789012345678901234567890, \"e\": 1E2,\n"
                           "  \"s\": \"caf\\u00e9 \\/ \\ud83d\\ude00\",\n  \"exception\": {\"values\": [{\"type\": \"E\", "
                           "\"stacktrace\": {\"frames\": [";
  const std::string tail = ", " + other + "]}}]},\n  \"debug_meta\": {\"images\": [{\"type\": \"pe_dotnet\", \"debug_id\": \"" +
                           debug_id_ + "\", \"x\": -0.0e-0}]}\n}\n";
  const std::string in = head + good + tail;
  std::string out;
  SentryStats s;
  ASSERT_TRUE(symbolicate_sentry_text(in, out, provider_, {}, s));
  EXPECT_EQ(s.resolved, 1u);
  ASSERT_GT(out.size(), in.size());
  EXPECT_EQ(out.substr(0, head.size()), head);
  EXPECT_EQ(out.substr(out.size() - tail.size()), tail);
  const std::string frame = out.substr(head.size(), out.size() - head.size() - tail.size());
  // The members the frame had keep their bytes up to `lineno`, whose value is replaced; the
  // new members follow the last one with the separators this object uses (", " / ": ").
  const std::string upto = good.substr(0, good.find("null"));
  EXPECT_EQ(frame.substr(0, upto.size()), upto);
  EXPECT_EQ(frame.substr(upto.size(), std::to_string(want_.line).size() + 2), std::to_string(want_.line) + ", ");
  EXPECT_NE(frame.find(", \"big\": 123456789012345678901234567890, \"filename\": \""), std::string::npos) << frame;
  EXPECT_EQ(frame.substr(frame.size() - 2), " }");
  const Json f = Json::parse(frame);
  EXPECT_EQ(f["function"], "M\xc3\xa9/x");
  EXPECT_EQ(f["abs_path"], want_file_);
  EXPECT_EQ(f["filename"], std::filesystem::path(want_file_).filename().string());
  EXPECT_EQ(f["lineno"], want_.line);
  EXPECT_EQ(f["colno"], want_.column);
  EXPECT_TRUE(f.contains("context_line"));
  // Parsed, the output is the input with that frame's members set.
  Json expect = Json::parse(in);
  Json& f0 = frame0(expect);
  for (auto it = f.begin(); it != f.end(); ++it) f0[it.key()] = it.value();
  EXPECT_EQ(Json::parse(out), expect);

  // In an envelope: the item's `length` value is the only byte of its header that changes.
  const std::string payload = head + good + ", " + other + "]}}]}, \"debug_meta\": {\"images\": [{\"type\": \"pe_dotnet\", "
                              "\"debug_id\": \"" + debug_id_ + "\"}]}}";
  std::string one_line = payload;
  std::replace(one_line.begin(), one_line.end(), '\n', ' ');
  const std::string env_head = "{\"event_id\":\"00\", \"n\": 1E2}\n";
  const std::string item = "{ \"type\" : \"event\", \"length\" : " + std::to_string(payload.size()) + " , \"big\": -123456789012345678901234567890.5e-3 }\n";
  const std::string env = env_head + item + payload + "\n{\"type\":\"event\"}\n" + one_line + "\n";
  s = {};
  ASSERT_TRUE(symbolicate_sentry_text(env, out, provider_, {}, s));
  EXPECT_EQ(s.resolved, 2u);
  EXPECT_EQ(out.substr(0, env_head.size()), env_head);
  const std::size_t nl = out.find('\n', env_head.size());
  const std::string new_item = out.substr(env_head.size(), nl + 1 - env_head.size());
  const std::size_t length_at = item.find(" , ") - std::to_string(payload.size()).size();
  EXPECT_EQ(new_item.substr(0, length_at), item.substr(0, length_at));
  EXPECT_EQ(new_item.substr(new_item.find(" , ")), item.substr(item.find(" , ")));
  const std::size_t length = std::stoul(new_item.substr(length_at));
  const std::string new_payload = out.substr(nl + 1, length);
  EXPECT_EQ(new_payload.substr(0, head.size()), head);
  Json parsed_payload = Json::parse(new_payload);
  EXPECT_EQ(frame0(parsed_payload)["lineno"], want_.line);
  // The item without `length` stays one line.
  const std::string last = out.substr(nl + 1 + length);
  EXPECT_EQ(last.rfind("\n{\"type\":\"event\"}\n", 0), 0u);
  EXPECT_EQ(std::count(last.begin(), last.end(), '\n'), 3);
  Json parsed_last = Json::parse(last.substr(18));
  EXPECT_EQ(frame0(parsed_last)["lineno"], want_.line);

  // Nothing resolved: the output is the input.
  const std::string unresolved = head + other + tail;
  s = {};
  ASSERT_TRUE(symbolicate_sentry_text(unresolved, out, provider_, {}, s));
  EXPECT_EQ(out, unresolved);
  EXPECT_EQ(s.frames, 2u);
  EXPECT_EQ(s.resolved, 0u);
}

TEST_F(SentryEventTest, DuplicateKeysOnTheWayToFramesLeaveTheEventAlone) {
  const std::string g = good_frame().dump();
  const std::string img = "{\"type\":\"pe_dotnet\",\"debug_id\":\"" + debug_id_ + "\"}";
  const std::string meta = "\"debug_meta\":{\"images\":[" + img + "]}";
  const std::string exc = "\"exception\":{\"values\":[{\"stacktrace\":{\"frames\":[" + g + "]}}]}";
  const std::string ambiguous[] = {
      // A reader that keeps the last `exception` sees no frames; one that keeps the first does.
      "{" + exc + ",\"exception\":{\"values\":[]}," + meta + "}",
      "{\"exception\":{\"values\":[{\"stacktrace\":{\"frames\":[" + g + "]},\"stacktrace\":{}}]}," + meta + "}",
      "{\"exception\":{\"values\":[{\"stacktrace\":{\"frames\":[" + g + "],\"frames\":[]}}]}," + meta + "}",
      "{\"exception\":{\"values\":[{\"stacktrace\":{\"frames\":[" + g.substr(0, g.size() - 1) + ",\"lineno\":null,\"lineno\":5}]}}]}," + meta + "}",
      "{" + exc + "," + meta + ",\"debug_meta\":{}}",
      "{" + exc + ",\"debug_meta\":{\"images\":[" + img.substr(0, img.size() - 1) + ",\"debug_id\":\"x\"}]}}",
      "{\"stacktrace\":{\"frames\":[" + g + "]},\"stacktrace\":{\"frames\":[]}," + meta + "}",
  };
  for (const std::string& in : ambiguous) {
    std::string out;
    SentryStats s;
    ASSERT_TRUE(symbolicate_sentry_text(in, out, provider_, {}, s)) << in;
    EXPECT_EQ(out, in);
    EXPECT_EQ(s.events, 1u);
    EXPECT_EQ(s.duplicate_keys, 1u) << in;
    EXPECT_EQ(s.resolved, 0u) << in;
    EXPECT_NE(s.summary().find("1 events with duplicate keys (copied unchanged)"), std::string::npos) << s.summary();
    // In an envelope too.
    const std::string env = "{}\n{\"type\":\"event\",\"length\":" + std::to_string(in.size()) + "}\n" + in + "\n";
    s = {};
    ASSERT_TRUE(symbolicate_sentry_text(env, out, provider_, {}, s));
    EXPECT_EQ(out, env);
    EXPECT_EQ(s.duplicate_keys, 1u);
  }
  // Keys ilmap neither reads nor writes may repeat: both occurrences are kept, the frame resolves.
  const std::string fine = "{\"x\":1,\"x\":2," + exc.substr(0, exc.find("{\"function\"")) + "{\"function\":\"a\",\"function\":\"b\"," +
                           g.substr(1) + "]}}]}," + meta + "}";
  std::string out;
  SentryStats s;
  ASSERT_TRUE(symbolicate_sentry_text(fine, out, provider_, {}, s));
  EXPECT_EQ(s.resolved, 1u);
  EXPECT_EQ(out.rfind("{\"x\":1,\"x\":2,", 0), 0u);
  EXPECT_NE(out.find("{\"function\":\"a\",\"function\":\"b\",\"function\":\"M\""), std::string::npos) << out;
  // An envelope item header with `length` or `type` twice is not an envelope.
  for (const std::string h : {"{\"type\":\"event\",\"length\":2,\"length\":3}", "{\"type\":\"event\",\"type\":\"attachment\"}"}) {
    std::string o = "untouched";
    const Status st = symbolicate_sentry_text("{}\n" + h + "\n{}\n", o, provider_, {}, s);
    EXPECT_EQ(st.code(), Errc::kMalformed) << h;
    EXPECT_EQ(o, "untouched");
  }
}

TEST_F(SentryEventTest, BadTextIsRefusedWithoutOutput) {
  const std::string payload = event_with(good_frame()).dump();
  const std::pair<std::string, Errc> cases[] = {
      {"", Errc::kMalformed},
      {"hello", Errc::kMalformed},
      {"   at A.B.C() in x.dll: token 0x6000001+0x5\n", Errc::kMalformed},
      {"{ not json", Errc::kMalformed},
      {"{\"a\":1}\nnot a header\n", Errc::kMalformed},
      {"{\"a\":1}\n[1]\n", Errc::kMalformed},
      {"{\"a\":1}\n{\"type\":\"event\",\"length\":99999}\n{}\n", Errc::kTruncated},
      {"{\"a\":1}\n{\"type\":\"event\",\"length\":\"12\"}\n{}\n", Errc::kMalformed},
      {"{\"a\":1}\n{\"type\":\"event\",\"length\":-1}\n{}\n", Errc::kMalformed},
      {"{\"a\":" + std::string(100000, '[') + std::string(100000, ']') + "}", Errc::kTooLarge},
  };
  for (const auto& [text, code] : cases) {
    std::string out = "untouched";
    SentryStats s;
    Status st = symbolicate_sentry_text(text, out, provider_, {}, s);
    EXPECT_FALSE(st) << text.substr(0, 60);
    EXPECT_EQ(st.code(), code) << text.substr(0, 60) << ": " << st.message();
    EXPECT_EQ(out, "untouched");
  }
}

TEST_F(SentryEventTest, BadJsonIsLocated) {
  std::string out;
  SentryStats s;
  const Status st = symbolicate_sentry_text("{\n  \"a\": 1,\n  \"b\": tru\n}\n", out, provider_, {}, s);
  EXPECT_EQ(st.code(), Errc::kMalformed);
  EXPECT_EQ(st.message().rfind("line 3, column 11: not JSON", 0), 0u) << st.message();
  const Status st2 = symbolicate_sentry_text("{}\n{\"type\":\"x\"}\n{}\n[]\n", out, provider_, {}, s);
  EXPECT_EQ(st2.message(), "line 4: envelope item 2: header is not a JSON object");
}

TEST_F(SentryEventTest, UnreadableEventItemsPassThrough) {
  const std::string env = "{}\n{\"type\":\"event\"}\n{\"broken\": \n{\"type\":\"event\"}\n[1,2]\n{\"type\":\"event\"}\n\"\xff\xfe\"\n";
  std::string out;
  SentryStats s;
  ASSERT_TRUE(symbolicate_sentry_text(env, out, provider_, {}, s));
  EXPECT_EQ(out, env);
  EXPECT_EQ(s.events_unreadable, 3u);
}

TEST_F(SentryEventTest, FlipSweepNeverThrows) {
  Json e = event_with(good_frame());
  e["threads"] = Json::array({Json{{"stacktrace", {{"frames", Json::array({good_frame(), 1, "x"})}}}}});
  const std::string payload = e.dump();
  for (const std::string& text : {payload, "{\"e\":1}\n{\"type\":\"event\",\"length\":" + std::to_string(payload.size()) + "}\n" + payload + "\n"}) {
    for (std::size_t i = 0; i < text.size(); ++i) {
      for (unsigned char x : {0x01, 0x20, 0x80, 0xFF}) {
        std::string t = text;
        t[i] = static_cast<char>(static_cast<unsigned char>(t[i]) ^ x);
        std::string out;
        SentryStats s;
        const Status st = symbolicate_sentry_text(t, out, provider_, {}, s);
        if (!st) continue;
        EXPECT_FALSE(out.empty());
        // Nothing resolved: nothing changed. One event resolved: read back, the same as the
        // event symbolicated as a JSON tree.
        if (s.resolved == 0 || s.duplicate_keys != 0) {
          EXPECT_EQ(out, t);
        }
        if (s.resolved != 0 && Json::accept(t)) {
          Json dom = Json::parse(t);
          SentryStats ds;
          symbolicate_sentry_event(dom, provider_, {}, ds);
          EXPECT_EQ(Json::parse(out), dom) << t;
          EXPECT_EQ(ds.resolved, s.resolved);
        }
      }
    }
  }
}

TEST_F(SentryEventTest, SummaryNamesReasons) {
  Json image{{"type", "pe_dotnet"}, {"debug_id", "x"}, {"debug_file", "Other.pdb"}};
  Json e = event_with(good_frame(), image);
  SentryStats s;
  symbolicate_sentry_event(e, provider_, {}, s);
  e = event_with(good_frame());
  symbolicate_sentry_event(e, provider_, {}, s);
  EXPECT_EQ(s.summary(),
            "sentry: 2 frames in 2 events: 1 resolved (1 with source context, 0 with a URL); 1 left: 1 module not found\n"
            "sentry:   no cache for Other.pdb (debug id x) (1 frames)\n");
}

TEST_F(SentryEventTest, SummaryEscapesEventText) {
  Json image{{"type", "pe_dotnet"}, {"debug_id", "x\x1b[31m"}, {"debug_file", "a\nsentry: 99 resolved.pdb"}};
  Json e = event_with(good_frame(), image);
  SentryStats s;
  symbolicate_sentry_event(e, provider_, {}, s);
  const std::string sum = s.summary();
  EXPECT_EQ(std::count(sum.begin(), sum.end(), '\n'), 2) << sum;
  EXPECT_NE(sum.find("no cache for a\\nsentry: 99 resolved.pdb (debug id x\\x1b[31m)"), std::string::npos) << sum;
}

TEST_F(SentryEventTest, InputSizeLimit) {
  SentryOptions o;
  o.max_input_bytes = 100;
  std::string out = "untouched";
  SentryStats s;
  const Status st = symbolicate_sentry_text(event_with(good_frame()).dump(), out, provider_, o, s);
  EXPECT_EQ(st.code(), Errc::kTooLarge);
  EXPECT_EQ(out, "untouched");
}

// splice_object: what changes is the value or member written; the rest of the text is kept.
TEST(SentrySplice, ChangesOnlyTheMembersWritten) {
  auto splice = [](const std::string& text, const std::function<void(Json&)>& edit) {
    const Json before = Json::parse(text);
    Json after = before;
    edit(after);
    std::string out;
    sentry_scan::splice_object(text, before, after, out);
    EXPECT_EQ(Json::parse(out), after) << out;
    return out;
  };
  const std::string t = "{ \"a\" :1E2 , \"colno\":\t7,\n  \"b\": [1, {\"c\": \"\\u00e9\"}] }";
  EXPECT_EQ(splice(t, [](Json& j) { j["colno"] = 12; }), "{ \"a\" :1E2 , \"colno\":\t12,\n  \"b\": [1, {\"c\": \"\\u00e9\"}] }");
  EXPECT_EQ(splice(t, [](Json& j) { j["a"] = 100.0; }), t);  // equal values keep their bytes
  EXPECT_EQ(splice(t, [](Json& j) { j.erase("colno"); }), "{ \"a\" :1E2 , \"b\": [1, {\"c\": \"\\u00e9\"}] }");
  EXPECT_EQ(splice(t, [](Json& j) { j.erase("a"); }), "{ \"colno\":\t7,\n  \"b\": [1, {\"c\": \"\\u00e9\"}] }");
  EXPECT_EQ(splice(t, [](Json& j) { j.erase("b"); }), "{ \"a\" :1E2 , \"colno\":\t7 }");
  // Added members follow the last one with the object's own separators.
  EXPECT_EQ(splice(t, [](Json& j) { j["lineno"] = 5, j["f"] = "x\ny"; }),
            "{ \"a\" :1E2 , \"colno\":\t7,\n  \"b\": [1, {\"c\": \"\\u00e9\"}],\n  \"lineno\": 5,\n  \"f\": \"x\\ny\" }");
  EXPECT_EQ(splice(t, [](Json& j) { j.erase("b"), j["lineno"] = 5; }), "{ \"a\" :1E2 , \"colno\":\t7,\n  \"lineno\": 5 }");
  EXPECT_EQ(splice("{\"only\":1}", [](Json& j) { j.erase("only"), j["x"] = 1, j["y"] = 2; }), "{\"x\":1,\"y\":2}");
  EXPECT_EQ(splice("{ }", [](Json& j) { j["x"] = 1, j["y"] = 2; }), "{\"x\":1,\"y\":2 }");
  EXPECT_EQ(splice("{\"k\" : 1}", [](Json& j) { j["x"] = nullptr; }), "{\"k\" : 1,\"x\" : null}");
  // A key that repeats and is not written keeps both occurrences.
  EXPECT_EQ(splice("{\"k\":1,\"k\":2,\"n\":3}", [](Json& j) { j["n"] = 4; }), "{\"k\":1,\"k\":2,\"n\":4}");
}

TEST(SentryText, LooksLikeSentry) {
  EXPECT_TRUE(looks_like_sentry_json(" \n\t{"));
  EXPECT_FALSE(looks_like_sentry_json("   at X"));
  EXPECT_FALSE(looks_like_sentry_json(""));
  EXPECT_FALSE(looks_like_sentry_json("[{}]"));
}

TEST(SentryUrls, SourceLinkUrlIsReported) {
  const std::string rel = "out/cs-sourcelink/Ilmap.Corpus.Shapes.pdb";
  if (!std::filesystem::exists(corpus(rel))) GTEST_SKIP() << "corpus/out not built";
  auto c = compile(rel);
  ASSERT_TRUE(c);
  const auto [row, point] = first_point(*c);
  const auto r = c->lookup(0x06000000u | row, point.il_offset);
  ASSERT_TRUE(r && !r->source_url.empty());
  const std::string url(r->source_url);
  SentryCacheSetProvider p;
  const std::string id = debug_id_of(*c);
  p.add(std::move(*c));
  Json e{{"exception", {{"values", Json::array({Json{{"stacktrace", {{"frames", Json::array({Json{
             {"function_id", row}, {"instruction_addr", point.il_offset}, {"addr_mode", "rel:0"}}})}}}}})}}},
         {"debug_meta", {{"images", Json::array({Json{{"type", "pe_dotnet"}, {"debug_id", id}}})}}}};
  SentryStats s;
  symbolicate_sentry_event(e, p, {}, s);
  EXPECT_EQ(e["exception"]["values"][0]["stacktrace"]["frames"][0]["source_link"], url);
  EXPECT_EQ(s.with_url, 1u);
}

// Sentry compares debug ids without regard to case or dashes: "<guid>-<stamp>" and the same 40
// hex digits run together name one PDB; another stamp names none.
TEST(SentryProvider, DebugIdWithoutDashes) {
  const std::string rel = "out/cs-frames/Ilmap.Corpus.Frames.pdb";
  if (!std::filesystem::exists(corpus(rel))) GTEST_SKIP() << "corpus/out not built";
  auto c = compile(rel);
  ASSERT_TRUE(c);
  const std::string id = debug_id_of(*c);
  ASSERT_EQ(id.size(), 45u);
  SentryCacheSetProvider p;
  p.add(std::move(*c));
  std::string nodash;
  for (char ch : id)
    if (ch != '-') nodash += char(std::toupper(static_cast<unsigned char>(ch)));
  std::string why;
  for (const std::string& form : {id, nodash, std::string(nodash).insert(32, "-")}) {
    SentryImage img;
    img.type = "pe_dotnet";
    img.debug_id = form;
    EXPECT_NE(p.find(img, why), nullptr) << form << ": " << why;
  }
  SentryImage other;
  other.debug_id = nodash.substr(0, 32) + (nodash.substr(32) == "00000001" ? "00000002" : "00000001");
  EXPECT_EQ(p.find(other, why), nullptr);
}

// symbolicate_batch (no tree, BatchScan.h) against symbolicate_batch_tree (the tree it replaced):
// the same answer byte for byte, the same stats and the same errors, on requests of every shape
// the writer has to get right: white space, escapes, numbers, duplicate keys at every level,
// members before and after "frames", frames and modules that are not objects, resolved frames
// with and without the members they get.
TEST_F(SentryEventTest, BatchAnswersAsTheTreeDid) {
  const std::string id = debug_id_;
  const std::string row = hex(row_), il = hex(point_.il_offset);
  const std::string good = R"({"function_id":")" + row + R"(","instruction_addr":")" + il + R"(","addr_mode":"rel:0"})";
  const std::string module = R"({"type":"pe_dotnet","debug_id":")" + id + R"("})";
  const std::vector<std::string> requests = {
      R"({"stacktraces":[],"modules":[]})",
      R"( { "stacktraces" : [ { "frames" : [ ] } ] , "modules" : [ ] } )",
      R"({"stacktraces":[{"frames":[)" + good + "]}],\"modules\":[" + module + "]}",
      R"({"modules":[)" + module + R"(,{"type":"macho"},1,null,"x",[],{}],"x":1,"stacktraces":[{"a":[1,2.5,-3,1e3,1E-2,true,false,null,"\u00e9\n\"\\"],"frames":[)" +
          good + R"(,{},[],1,"s",null,{"lineno":3,"function_id":1},{"function_id":")" + row + R"(","instruction_addr":0,"addr_mode":"rel:1"},)" +
          R"({"function_id":")" + row + R"(","instruction_addr":0,"addr_mode":"rel:9"},{"status":"old","colno":7,"x":{"y":[{}]},"function_id":")" + row +
          R"(","instruction_addr":")" + il + R"(","addr_mode":"rel:0","lineno":null,"z":0}],"b":{}},{"frames":[{"function_id":"0x1000000","instruction_addr":"0x1","addr_mode":"rel:0"}]}]})",
      // Duplicate keys: a tree keeps the first place and the last value.
      R"({"stacktraces":1,"modules":[],"stacktraces":[{"frames":1,"x":{"k":1,"k":[2],"j":0},"frames":[)" + good +
          R"(,{"function_id":1,"function_id":")" + row + R"(","status":1,"instruction_addr":")" + il +
          R"(","addr_mode":"rel:0","colno":1,"colno":2}]}],"modules":[{"type":"x","debug_id":"","type":"pe_dotnet","debug_id":")" + id + R"("}]})",
      R"({"stacktraces":[{"frames":[)" + good + "," + good + R"(],"frames":[]}],"modules":[)" + module + "]}",
      // Errors.
      "", "[]", "{", R"({"modules":[]})", R"({"stacktraces":[]})", R"({"stacktraces":{},"modules":[]})",
      R"({"stacktraces":[],"modules":{}})", R"({"stacktraces":[{"frames":[]},{}],"modules":[]})",
      R"({"stacktraces":[{"frames":[]},1],"modules":[]})", R"({"stacktraces":[{"frames":[],"frames":1}],"modules":[]})",
      R"({"stacktraces":[{"frames":1,"frames":[]}],"modules":[]} x)", std::string(600, '[') + std::string(600, ']'),
  };
  for (const bool context : {true, false}) {
    SentryOptions o;
    o.source_context = context;
    o.overwrite = true;
    o.max_frames = 9;
    for (const std::string& req : requests) {
      std::string got, want;
      SentryStats sg, sw;
      const Status g = symbolicate_batch(req, got, provider_, o, sg);
      const Status w = symbolicate_batch_tree(req, want, provider_, o, sw);
      ASSERT_EQ(bool(g), bool(w)) << req << "\n" << (g ? w : g).error().message;
      if (!g) {
        EXPECT_EQ(g.error().code, w.error().code) << req;
        EXPECT_EQ(g.error().message, w.error().message) << req;
        continue;
      }
      EXPECT_EQ(got, want) << req;
      EXPECT_EQ(sg.summary(), sw.summary()) << req;
    }
  }
}

}  // namespace
}  // namespace ilmap
