// S3Test.cpp - symbols/S3Client and S3Store without a service: s3:// URLs (bucket and prefix
// rules), settings from the environment (precedence, defaults, refusals), key escaping, and the
// XML of S3 answers. tests/s3 runs them against a real Swift.
#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "symbols/S3Client.h"
#include "symbols/S3Store.h"
#include "symbols/SymbolPath.h"

namespace ilmap::symbols {
namespace {

// Sets or unsets the AWS variables for one test, restoring them after.
class S3Env : public ::testing::Test {
 protected:
  static constexpr const char* kVars[] = {"AWS_ACCESS_KEY_ID",  "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN",
                                          "AWS_REGION",         "AWS_DEFAULT_REGION",    "AWS_ENDPOINT_URL",
                                          "AWS_ENDPOINT_URL_S3", S3ListCaps::kPagesEnv,  S3ListCaps::kKeysEnv,
                                          S3ListCaps::kBytesEnv};
  void SetUp() override {
    for (const char* v : kVars) {
      const char* old = std::getenv(v);
      saved_.push_back(old ? std::optional<std::string>(old) : std::nullopt);
      ::unsetenv(v);
    }
    ::setenv("AWS_ACCESS_KEY_ID", "test:tester", 1);
    ::setenv("AWS_SECRET_ACCESS_KEY", "testing", 1);
  }
  void TearDown() override {
    for (std::size_t i = 0; i < std::size(kVars); ++i) {
      if (saved_[i])
        ::setenv(kVars[i], saved_[i]->c_str(), 1);
      else
        ::unsetenv(kVars[i]);
    }
  }
  std::vector<std::optional<std::string>> saved_;
};

TEST_F(S3Env, DefaultsAreUsEast1AndAmazonsEndpoint) {
  auto c = S3Config::from_environment("", "");
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->region, "us-east-1");
  EXPECT_EQ(c->endpoint, "https://s3.us-east-1.amazonaws.com");
  EXPECT_EQ(c->access_key, "test:tester");  // a colon is fine: it goes to curl as the user name
  EXPECT_EQ(c->secret_key, "testing");
}

TEST_F(S3Env, FlagsOverVariablesAndS3EndpointOverGeneral) {
  ::setenv("AWS_DEFAULT_REGION", "eu-west-1", 1);
  auto c = S3Config::from_environment("", "");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->region, "eu-west-1");
  EXPECT_EQ(c->endpoint, "https://s3.eu-west-1.amazonaws.com");
  ::setenv("AWS_REGION", "eu-central-1", 1);
  ::setenv("AWS_ENDPOINT_URL", "http://general.example:9000/", 1);
  c = S3Config::from_environment("", "");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->region, "eu-central-1");
  EXPECT_EQ(c->endpoint, "http://general.example:9000");
  ::setenv("AWS_ENDPOINT_URL_S3", "http://s3.example:9000", 1);
  c = S3Config::from_environment("", "");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->endpoint, "http://s3.example:9000");
  c = S3Config::from_environment("https://flag.example", "us-west-2");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->endpoint, "https://flag.example");
  EXPECT_EQ(c->region, "us-west-2");
}

TEST_F(S3Env, MissingCredentialsBadEndpointOrRegionAreUsageErrors) {
  ::unsetenv("AWS_SECRET_ACCESS_KEY");
  auto c = S3Config::from_environment("", "");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().code, Errc::kUsage);
  EXPECT_NE(c.error().message.find("AWS_SECRET_ACCESS_KEY"), std::string::npos);
  ::setenv("AWS_SECRET_ACCESS_KEY", "x", 1);
  EXPECT_EQ(S3Config::from_environment("ftp://host", "").error().code, Errc::kUsage);
  EXPECT_EQ(S3Config::from_environment("", "us-east-1\r\nX: y").error().code, Errc::kUsage);
}

TEST_F(S3Env, ListCapsDefaultOrFromTheEnvironment) {
  auto c = S3Config::from_environment("", "");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->list_caps.pages, 20000u);
  EXPECT_EQ(c->list_caps.keys, 5000000u);
  EXPECT_EQ(c->list_caps.bytes, std::uint64_t(1) << 30);
  ::setenv(S3ListCaps::kKeysEnv, "12345678", 1);
  ::setenv(S3ListCaps::kPagesEnv, "7", 1);
  c = S3Config::from_environment("", "");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->list_caps.keys, 12345678u);
  EXPECT_EQ(c->list_caps.pages, 7u);
  for (const char* bad : {"0", "-1", "1e6", "12x", "99999999999999999999999"}) {
    ::setenv(S3ListCaps::kBytesEnv, bad, 1);
    c = S3Config::from_environment("", "");
    ASSERT_FALSE(c.ok()) << bad;
    EXPECT_EQ(c.error().code, Errc::kUsage);
    EXPECT_NE(c.error().message.find(S3ListCaps::kBytesEnv), std::string::npos);
  }
}

TEST(S3Client, ErrorTextsLeaveCredentialsAndSignaturesOut) {
  S3Config c;
  c.access_key = "AKIDEXAMPLE";
  c.secret_key = "wJalr/secret";
  c.session_token = "tok+AKIDEXAMPLE==";
  S3Response r;
  r.status = 403;
  const std::string err = "<Error><Code>AccessDenied</Code><Message>Authorization: AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/x, "
                          "Signature=00ff12ab token tok+AKIDEXAMPLE== key wJalr/secret</Message></Error>";
  r.body.assign(err.begin(), err.end());
  EXPECT_EQ(s3_redact(s3_error_text(r), c),
            "HTTP 403 AccessDenied: Authorization: AWS4-HMAC-SHA256 Credential=[redacted]/x, Signature=[redacted] token [redacted] key [redacted]");
  // A server's Message is cut at 300 bytes.
  const std::string longer = "<Message>" + std::string(1000, 'm') + "</Message>";
  r.body.assign(longer.begin(), longer.end());
  EXPECT_EQ(s3_error_text(r), "HTTP 403: " + std::string(300, 'm') + "...");
}

TEST(S3Client, ParsesListingPages) {
  S3ListPage p = s3_parse_list_page(
      "<ListBucketResult><IsTruncated>true</IsTruncated><NextContinuationToken>a&amp;b</NextContinuationToken>"
      "<Contents><Key>p/1</Key></Contents><Contents><Key>p/2</Key></Contents></ListBucketResult>");
  EXPECT_EQ(p.keys, (std::vector<std::string>{"p/1", "p/2"}));
  EXPECT_TRUE(p.truncated);
  EXPECT_EQ(p.next_token, "a&b");
  p = s3_parse_list_page("<ListBucketResult><IsTruncated>false</IsTruncated></ListBucketResult>");
  EXPECT_TRUE(p.keys.empty());
  EXPECT_FALSE(p.truncated);
  EXPECT_EQ(p.next_token, "");
}

// Copied from std::strings: assigning the literals trips GCC 12's -Wrestrict false positive.
S3Config any_config() {
  static const std::string kEndpoint("http://127.0.0.1:1"), kRegion("us-east-1"), kKey("a");
  S3Config c;
  c.endpoint = kEndpoint;
  c.region = kRegion;
  c.access_key = kKey;
  c.secret_key = kKey;
  return c;
}

TEST(S3StoreUrl, BucketAndPrefix) {
  auto s = S3Store::open("s3://symbols", any_config());
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->name(), "s3://symbols/");
  s = S3Store::open("s3://symbols/", any_config());
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->name(), "s3://symbols/");
  s = S3Store::open("s3://my.symbols-1/a/b//", any_config());
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->name(), "s3://my.symbols-1/a/b/");
  EXPECT_FALSE(s->two_tier());
}

TEST(S3StoreUrl, BadBucketsAndPrefixesAreUsageErrors) {
  for (const char* url : {"s3://", "s3://ab", "s3://Symbols", "s3://sym_bols", "s3://-symbols", "s3://symbols./x",
                          "s3://symbols/a//b", "s3://symbols/./b", "s3://symbols/a/..", "s3://symbols/a\\b",
                          "s3://symbols/a\nb", "http://symbols/"}) {
    auto s = S3Store::open(url, any_config());
    ASSERT_FALSE(s.ok()) << url;
    EXPECT_EQ(s.error().code, Errc::kUsage) << url;
  }
  EXPECT_TRUE(S3Store::is_s3_url("s3://x"));
  EXPECT_FALSE(S3Store::is_s3_url("s3:/x"));
  EXPECT_FALSE(S3Store::is_s3_url("./s3://x"));
}

TEST(S3StoreUrl, InvalidKeysAreRefusedBeforeAnyRequest) {
  // The endpoint is a closed port: an answer other than kUsage would mean a request was made.
  auto s = S3Store::open("s3://symbols/p", any_config());
  ASSERT_TRUE(s.ok());
  for (const char* key : {"../x/y", "a/b", "foo.pdb/../foo.pdb", "foo.pdb/1/", "foo.pdb\\1\\foo.pdb"}) {
    EXPECT_EQ(s->read(key).error().code, Errc::kUsage) << key;
    EXPECT_EQ(s->locate(key).error().code, Errc::kUsage) << key;
    const std::uint8_t b = 1;
    EXPECT_EQ(s->write(key, {&b, 1}).error().code, Errc::kUsage) << key;
  }
}

TEST(S3Client, EscapesEachPathSegment) {
  EXPECT_EQ(s3_escape_path("foo.pdb/ABCffff/foo.pdb"), "foo.pdb/ABCffff/foo.pdb");
  EXPECT_EQ(s3_escape_path("a b/c+d/e%f/~x-y_z"), "a%20b/c%2Bd/e%25f/~x-y_z");
  EXPECT_EQ(s3_escape_path(".ilmap-claims/k/1"), ".ilmap-claims/k/1");
}

TEST(S3Client, ReadsListingsAndErrors) {
  const std::string list =
      "<?xml version='1.0' encoding='UTF-8'?><ListBucketResult><Name>symbols</Name><IsTruncated>true</IsTruncated>"
      "<Contents><Key>a/b&amp;c</Key></Contents><Contents><Key>x&lt;y&gt;&quot;z&apos;</Key></Contents></ListBucketResult>";
  EXPECT_EQ(s3_xml_values(list, "Key"), (std::vector<std::string>{"a/b&c", "x<y>\"z'"}));
  EXPECT_EQ(s3_xml_value(list, "IsTruncated"), "true");
  EXPECT_EQ(s3_xml_value(list, "Marker"), "");
  EXPECT_TRUE(s3_xml_values("<Key>unclosed", "Key").empty());
  S3Response r;
  r.status = 403;
  const std::string err = "<Error><Code>SignatureDoesNotMatch</Code><Message>bad\nsig</Message></Error>";
  r.body.assign(err.begin(), err.end());
  EXPECT_EQ(s3_error_text(r), "HTTP 403 SignatureDoesNotMatch: bad sig");
  r.body.clear();
  r.status = 503;
  EXPECT_EQ(s3_error_text(r), "HTTP 503");
}

TEST(S3SymbolPath, BucketsAreServersAndCachesAreFolders) {
  auto p = parse_symbol_path("srv*c*s3://symbols/pre/");
  ASSERT_TRUE(p.ok());
  ASSERT_EQ(p->size(), 1u);
  EXPECT_TRUE((*p)[0].s3());
  EXPECT_TRUE((*p)[0].remote());
  EXPECT_EQ((*p)[0].location, "s3://symbols/pre");
  EXPECT_EQ(parse_symbol_path("srv*s3://x/c*https://h/s").error().code, Errc::kUsage);
  EXPECT_EQ(parse_symbol_path("s3://symbols/pre").error().code, Errc::kUsage);  // needs srv*
}

}  // namespace
}  // namespace ilmap::symbols
