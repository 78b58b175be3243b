// TextEscapeTest.cpp - the text-output escaping of docs/text-output.md.
#include <gtest/gtest.h>

#include <string>

#include "support/TextEscape.h"

namespace ilmap {
namespace {

TEST(TextEscape, PlainTextIsCopied) {
  for (const char* s : {"", "C:\\src\\Program.cs", "/src/a b.cs", "caf\xc3\xa9.cs", "\xe2\x82\xac", "\xf0\x9f\x98\x80"}) {
    EXPECT_TRUE(is_plain_text(s)) << s;
    EXPECT_EQ(escape_text(s), s);
  }
}

TEST(TextEscape, ControlsAreEscaped) {
  EXPECT_EQ(escape_text(std::string("a\nb\rc\td", 7)), "a\\nb\\rc\\td");
  EXPECT_EQ(escape_text(std::string("x\0y", 3)), "x\\x00y");
  EXPECT_EQ(escape_text("\x1b[31mred\x07"), "\\x1b[31mred\\x07");
  EXPECT_EQ(escape_text("del\x7f"), "del\\x7f");
  EXPECT_EQ(escape_text("c1\xc2\x9b"), "c1\\u009b");
  EXPECT_FALSE(is_plain_text("a\nb"));
}

TEST(TextEscape, InvalidUtf8BytesAreEscapedOneByOne) {
  EXPECT_EQ(escape_text("\xff"), "\\xff");
  EXPECT_EQ(escape_text("a\xc3"), "a\\xc3");                // truncated sequence
  EXPECT_EQ(escape_text("\xc0\xaf"), "\\xc0\\xaf");         // overlong '/'
  EXPECT_EQ(escape_text("\xed\xa0\x80"), "\\xed\\xa0\\x80");  // surrogate
  EXPECT_EQ(escape_text("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");  // above U+10FFFF
  EXPECT_EQ(escape_text("\xc3\xa9\xff\xc3\xa9"), "\xc3\xa9\\xff\xc3\xa9");
}

}  // namespace
}  // namespace ilmap
