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
// https://s3.REGION.amazonaws.com. Command-line flags override the endpoint and region.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "ilmap/status.h"

namespace ilmap::symbols {

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

  // The settings of the environment; `endpoint` and `region` (non-empty) override them.
  // kUsage when no credentials are set or the endpoint is not http(s)://.
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
  Result<S3Response> request(const std::string& method, const std::string& path, const std::string& query,
                             std::span<const std::uint8_t> body = {}) const;

 private:
  S3Config config_;
};

// A key as a URL path: every '/'-separated segment percent-encoded (unreserved kept).
std::string s3_escape_path(const std::string& key);
// The value of the first <tag>...</tag> in an XML body, entities decoded ("" when absent).
std::string s3_xml_value(const std::string& xml, const std::string& tag);
// Every <tag>...</tag> value, in order.
std::vector<std::string> s3_xml_values(const std::string& xml, const std::string& tag);
// "HTTP 403 SignatureDoesNotMatch: The request signature ..." from an S3 error answer.
std::string s3_error_text(const S3Response& r);

}  // namespace ilmap::symbols
