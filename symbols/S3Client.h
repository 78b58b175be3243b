// S3Client.h - requests to an S3-compatible service, signed with AWS Signature Version 4 by
// libcurl itself (CURLOPT_AWS_SIGV4; libcurl 7.75 or later), path-style
// (ENDPOINT/BUCKET/KEY), each with an x-amz-content-sha256 header (the body's SHA-256, which
// curl then signs: Swift's s3api wants the header, and curl 7.88 does not send it by itself).
// Credentials go to curl as CURLOPT_USERNAME/CURLOPT_PASSWORD, so an access key with a colon
// (Swift tempauth's "account:user") is fine.
//
// Where the settings come from (S3Config::from_environment, docs/symbol-stores.md "S3 buckets"):
// AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN; AWS_REGION, else
// AWS_DEFAULT_REGION, else us-east-1; AWS_ENDPOINT_URL_S3, else AWS_ENDPOINT_URL, else
// https://s3.REGION.amazonaws.com. Command-line flags override the endpoint and region. The
// caps of a listing (S3ListCaps) from ILMAP_S3_MAX_LIST_PAGES, _KEYS and _BYTES.
//
// What a server says is not trusted: a body longer than its Content-Length is a failed transfer
// (as far as libcurl shows it: extra bytes that arrive with the declared end), and the text of an
// error answer is printed with the access key id, the secret, the session token and any
// "Signature=..." replaced by "[redacted]" (a server may echo the request's headers).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "ilmap/status.h"

namespace ilmap::symbols {

// How far one listing (every page of one ListObjectsV2 walk) may go before it is an error (kTooLarge):
// a listing needs more pages than `pages`, holds more than `keys` keys, or keys of more than
// `bytes` bytes in all. Generous for a real store (5 million keys of up to 200 bytes at 1,000
// a page); a hostile endpoint that never ends its listing stops there.
struct S3ListCaps {
  std::uint64_t pages = 20000;
  std::uint64_t keys = 5000000;
  std::uint64_t bytes = std::uint64_t(1) << 30;
  static constexpr const char* kPagesEnv = "ILMAP_S3_MAX_LIST_PAGES";
  static constexpr const char* kKeysEnv = "ILMAP_S3_MAX_LIST_KEYS";
  static constexpr const char* kBytesEnv = "ILMAP_S3_MAX_LIST_BYTES";
  // One page's answer (1,000 keys of at most 1,024 bytes take about 1.5 MB) and one
  // continuation token (S3's are a few hundred bytes): beyond these, kTooLarge.
  static constexpr std::uint64_t kPageBytes = std::uint64_t(16) << 20;
  static constexpr std::size_t kTokenBytes = 4096;
};

struct S3Config {
  std::string endpoint;  // scheme://host[:port], no trailing '/'
  std::string region;
  std::string access_key;
  std::string secret_key;
  std::string session_token;
  long connect_timeout_ms = 10000;
  long timeout_s = 300;     // one request in all
  int attempts = 3;         // 5xx and transport errors are retried (every request here is idempotent)
  std::uint64_t max_bytes = std::uint64_t(4) << 30;
  S3ListCaps list_caps;

  // The settings of the environment; `endpoint` and `region` (non-empty) override them.
  // kUsage when no credentials are set, the endpoint is not http(s)://, or a list cap
  // variable is not a positive decimal number.
  static Result<S3Config> from_environment(const std::string& endpoint, const std::string& region);
};

struct S3Response {
  long status = 0;
  std::vector<std::uint8_t> body;
  std::string text() const { return std::string(body.begin(), body.end()); }
};

class S3Client {
 public:
  explicit S3Client(S3Config config) : config_(std::move(config)) {}
  const S3Config& config() const { return config_; }

  // METHOD ENDPOINT/PATH[?QUERY]. `path` is /BUCKET/KEY, each segment already percent-encoded
  // (s3_escape_path); `query` is NAME=VALUE pairs sorted by name and encoded, or "". Any HTTP
  // status is a response; kIo for a transport error (after the retries: connection refused,
  // timeouts), with the URL in the message. 5xx are retried, then returned.
  // `max_body` (non-zero) caps this answer's body below config().max_bytes (a listing page).
  // A body longer than its Content-Length is kIo (not retried: the server lies).
  Result<S3Response> request(const std::string& method, const std::string& path, const std::string& query,
                             std::span<const std::uint8_t> body = {}, std::uint64_t max_body = 0) const;
  // s3_error_text of `r` with this client's credentials redacted (s3_redact).
  std::string error_text(const S3Response& r) const;

 private:
  S3Config config_;
};

// A key as a URL path: every '/'-separated segment percent-encoded (unreserved kept).
std::string s3_escape_path(const std::string& key);
// The value of the first <tag>...</tag> in an XML body, entities decoded ("" when absent).
std::string s3_xml_value(const std::string& xml, const std::string& tag);
// Every <tag>...</tag> value, in order.
std::vector<std::string> s3_xml_values(const std::string& xml, const std::string& tag);
// "HTTP 403 SignatureDoesNotMatch: The request signature ..." from an S3 error answer: the
// status, the Code and the Message (each cut at 300 bytes), control characters as spaces,
// "Signature=<hex>" as "Signature=[redacted]".
std::string s3_error_text(const S3Response& r);
// `text` with every occurrence of the configuration's access key id, secret key and session
// token replaced by "[redacted]".
std::string s3_redact(std::string text, const S3Config& config);

// One page of a ListObjectsV2 answer: every <Key> in order, whether <IsTruncated> is "true",
// and <NextContinuationToken> ("" when absent).
struct S3ListPage {
  std::vector<std::string> keys;
  bool truncated = false;
  std::string next_token;
};
S3ListPage s3_parse_list_page(const std::string& xml);

}  // namespace ilmap::symbols
