// fuzz_s3_xml.cpp - libFuzzer target: the S3 answers a bucket endpoint sends (symbols/S3Client):
// s3_xml_values / s3_xml_value, s3_parse_list_page over a ListObjectsV2 page, s3_error_text and
// s3_redact over an error answer. The input is the body as a server could send it. Properties:
// no crash, no sanitizer report; s3_xml_value is the first of s3_xml_values; a page's keys are
// its <Key> values and none is longer than the body; every value survives a round trip through
// XML escaping; an error text has no control character, no more than the bounded parts of the
// body, and neither the configured credentials nor a signature.
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <string>

#include "FuzzCommon.h"
#include "symbols/S3Client.h"

namespace {

// The five entities s3_xml_values decodes, encoded (the test's own encoder, not the parser's).
std::string xml_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default: out += c;
    }
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace ilmap::symbols;
  const std::string xml(reinterpret_cast<const char*>(data), size);

  const S3ListPage page = s3_parse_list_page(xml);
  const std::vector<std::string> keys = s3_xml_values(xml, "Key");
  ILMAP_FUZZ_CHECK(page.keys == keys, "the page's keys are not its <Key> values");
  ILMAP_FUZZ_CHECK(s3_xml_value(xml, "Key") == (keys.empty() ? std::string() : keys.front()), "s3_xml_value is not the first value");
  ILMAP_FUZZ_CHECK(page.next_token == s3_xml_value(xml, "NextContinuationToken"), "next token");
  ILMAP_FUZZ_CHECK(page.truncated == (s3_xml_value(xml, "IsTruncated") == "true"), "truncated");
  std::size_t total = 0;
  for (const std::string& k : keys) {
    total += k.size();
    // Decoding never grows a value, and escaping then decoding gives it back.
    const std::vector<std::string> again = s3_xml_values("<Key>" + xml_escape(k) + "</Key>", "Key");
    ILMAP_FUZZ_CHECK(again.size() == 1 && again.front() == k, "a <Key> value does not survive escaping: " + k);
  }
  ILMAP_FUZZ_CHECK(total <= size, "the keys hold more bytes than the body");

  S3Response r;
  r.status = 403;
  r.body.assign(data, data + size);
  S3Config config;
  config.access_key = "AKIAFUZZ";
  config.secret_key = "fuzz/secret+key";
  config.session_token = "FuzzSessionToken==";
  const std::string text = s3_redact(s3_error_text(r), config);
  // "HTTP 403 " + Code and Message of 300 bytes each (+ "..."), a "[redacted]" per signature.
  ILMAP_FUZZ_CHECK(text.size() <= 2048, "an error text of " + std::to_string(text.size()) + " bytes");
  for (char c : text) ILMAP_FUZZ_CHECK(static_cast<unsigned char>(c) >= 0x20 && c != 0x7f, "a control character in: " + text);
  for (const std::string* secret : {&config.access_key, &config.secret_key, &config.session_token})
    ILMAP_FUZZ_CHECK(text.find(*secret) == std::string::npos, "a credential in: " + text);
  for (std::size_t at = text.find("Signature="); at != std::string::npos; at = text.find("Signature=", at + 1))
    ILMAP_FUZZ_CHECK(at + 10 == text.size() || !std::isxdigit(static_cast<unsigned char>(text[at + 10])), "a signature in: " + text);
  return 0;
}
