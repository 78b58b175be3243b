// symbolicate_string_scan_test.cpp - StringScan (symbolicate/EventScan.h): the string values of
// a JSON log line, decoded, with the byte ranges symbolicate splices them back into: keys are
// not values, escaped quotes and backslashes do not end a string, nested objects and arrays are
// read, and a text that is not one JSON object is refused.
#include <gtest/gtest.h>

#include <string_view>

#include "symbolicate/EventScan.h"

namespace ilmap::sentry_scan {
namespace {

bool keep_all(std::string_view) { return true; }
bool keep_traces(std::string_view s) { return s.find("   at ") != std::string_view::npos; }

TEST(SymbolicateStringScan, ValuesAndTheirRanges) {
  const std::string_view line =
      R"j({"@t":"2026-11-24T10:00:00Z","n":12,"@x":"E: \"q\" \\ x\n   at A.B()","s":{"k":["a\\\"",true]}} )j";
  StringScan scan(keep_all);
  ASSERT_TRUE(scan.run(line));
  ASSERT_EQ(scan.values.size(), 3u);
  EXPECT_EQ(scan.values[0].text, "2026-11-24T10:00:00Z");
  EXPECT_EQ(line.substr(scan.values[0].begin, scan.values[0].end - scan.values[0].begin), R"j("2026-11-24T10:00:00Z")j");
  EXPECT_EQ(scan.values[1].text, "E: \"q\" \\ x\n   at A.B()");
  EXPECT_EQ(line.substr(scan.values[1].begin, scan.values[1].end - scan.values[1].begin),
            R"j("E: \"q\" \\ x\n   at A.B()")j");
  EXPECT_EQ(scan.values[2].text, "a\\\"");
  EXPECT_EQ(line.substr(scan.values[2].begin, scan.values[2].end - scan.values[2].begin), R"j("a\\\"")j");

  StringScan traces(keep_traces);
  ASSERT_TRUE(traces.run(line));
  ASSERT_EQ(traces.values.size(), 1u);
  EXPECT_EQ(traces.values[0].begin, scan.values[1].begin);
}

TEST(SymbolicateStringScan, OnlyOneObject) {
  StringScan scan(keep_all);
  for (std::string_view t : {R"j("at x")j", R"j(["a"])j", R"j({"a":"b"} {"c":"d"})j", R"j({"a":"b")j", "{\"a\":\"\xff\"}", "12"})
    EXPECT_FALSE(scan.run(t)) << t;
  EXPECT_TRUE(scan.run("{}"));
  EXPECT_TRUE(scan.values.empty());
}

}  // namespace
}  // namespace ilmap::sentry_scan
