// HttpGetTest.cpp - what goes into a request header: only HTTP tokens from file content (a PE's
// PdbChecksum algorithm name), and never a header with CR, LF or another control character
// (refused before any connection is made). The download to a temporary file is in the CLI
// tests (fetch-download-*.sh).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "symbols/HttpGet.h"
#include "decode/SymstoreKeys.h"

namespace ilmap {
namespace {

TEST(HeaderToken, OnlyTchars) {
  EXPECT_TRUE(is_header_token("SHA256"));
  EXPECT_TRUE(is_header_token("x-Alg.1_~!#$%&'*+^`|"));
  EXPECT_FALSE(is_header_token(""));
  EXPECT_FALSE(is_header_token("A\r\n\r\nGET /smuggled HTTP/1.1\r\nX: y"));
  EXPECT_FALSE(is_header_token("SHA 256"));
  EXPECT_FALSE(is_header_token("SHA256:"));
  EXPECT_FALSE(is_header_token("SHA256;"));
  EXPECT_FALSE(is_header_token(std::string("SHA\0" "256", 7)));  // a NUL inside
  EXPECT_FALSE(is_header_token("\xc3\xa9"));
  EXPECT_FALSE(is_header_token(std::string(kMaxHeaderToken + 1, 'A')));
  EXPECT_TRUE(is_header_token(std::string(kMaxHeaderToken, 'A')));
}

TEST(HeaderToken, ChecksumHeaderSkipsOtherNames) {
  std::vector<PdbChecksum> sums{{"A\r\n\r\nGET /smuggled HTTP/1.1\r\nX: y", {0x01}},
                                {"SHA256", {0x87, 0xa8}},
                                {"SHA 384", {0x02}}};
  EXPECT_EQ(symbol_checksum_header(sums), "SHA256:87a8");
  EXPECT_EQ(symbol_checksum_header(std::vector<PdbChecksum>{{"\n", {0x01}}}), "");
}

TEST(HttpGet, HeaderWithControlCharacterIsNotSent) {
  symbols::HttpOptions o;
  o.attempts = 1;
  o.connect_timeout_ms = 100;
  // Port 9 of 127.0.0.1 (discard): nothing listens there; the header is refused before.
  auto r = symbols::http_get("http://127.0.0.1:9/x", {"SymbolChecksum: A\r\n\r\nGET /smuggled HTTP/1.1"}, o);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, Errc::kMalformed) << r.error().message;
  auto lf = symbols::http_get("http://127.0.0.1:9/x", {"X: a\nb"}, o);
  ASSERT_FALSE(lf);
  EXPECT_EQ(lf.error().code, Errc::kMalformed) << lf.error().message;
}

}  // namespace
}  // namespace ilmap
