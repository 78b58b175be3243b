// S3Store.cpp - see S3Store.h.
#include "symbols/S3Store.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <map>
#include <random>
#include <thread>

#include "symbols/HttpGet.h"
#include "symbols/ModuleIdentity.h"

namespace ilmap::symbols {
namespace {

using Clock = std::chrono::steady_clock;

// An answer that is neither the object nor "no such key": the store cannot be used. The
// server's text comes without the client's credentials (S3Client::error_text).
Error failure(const S3Client& client, const S3Response& r, const std::string& what) {
  std::string hint;
  if (r.status == 403)
    hint = " (access denied: check AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and the region)";
  else if (r.status == 404)
    hint = " (no such bucket?)";
  return Error{Errc::kIo, what + ": " + client.error_text(r) + hint};
}

std::string random_id() {
  std::random_device rd;
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (int i = 0; i < 4; ++i) {
    const std::uint32_t v = rd();
    for (int s = 28; s >= 0; s -= 4) out += hex[(v >> s) & 15];
  }
  return out;
}

bool valid_bucket(const std::string& b) {
  if (b.size() < 3 || b.size() > 63) return false;
  for (char c : b)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '-')) return false;
  return b.front() != '.' && b.front() != '-' && b.back() != '.' && b.back() != '-';
}

}  // namespace

Result<S3Store> S3Store::open(const std::string& url, S3Config config) {
  if (!is_s3_url(url)) return Error{Errc::kUsage, url + ": not an s3://BUCKET/PREFIX URL"};
  const std::string rest = url.substr(5);
  const std::size_t slash = rest.find('/');
  std::string bucket = rest.substr(0, slash);
  std::string prefix = slash == std::string::npos ? std::string() : rest.substr(slash + 1);
  if (!valid_bucket(bucket))
    return Error{Errc::kUsage, url + ": bucket names are 3 to 63 characters of a-z, 0-9, '.' and '-' (DNS-style)"};
  while (!prefix.empty() && prefix.back() == '/') prefix.pop_back();
  if (!prefix.empty()) {
    for (std::size_t at = 0;;) {
      const std::size_t s = prefix.find('/', at);
      const std::string part = prefix.substr(at, s == std::string::npos ? std::string::npos : s - at);
      bool control = false;
      for (unsigned char c : part) control = control || c < 0x20 || c == 0x7f || c == '\\';
      if (part.empty() || part == "." || part == ".." || control)
        return Error{Errc::kUsage, url + ": the prefix has an empty, '.', '..' or invalid component"};
      if (s == std::string::npos) break;
      at = s + 1;
    }
    prefix += '/';
  }
  return S3Store(std::move(bucket), std::move(prefix), std::move(config));
}

std::string S3Store::object_path(const std::string& full_key) const { return "/" + bucket_ + "/" + s3_escape_path(full_key); }

Result<std::string> S3Store::locate(std::string_view key) const {
  if (Status s = validate_key(key); !s) return s.error();
  const std::string k = full(key);
  auto r = client_.request("HEAD", object_path(k), "");
  if (!r) return r.error();
  if (r->status == 200) return url_of(k);
  if (r->status == 404) return Error{Errc::kNotFound, name() + ": no file under key " + std::string(key)};
  return failure(client_, *r, url_of(k));
}

Result<StoredBytes> S3Store::read(std::string_view key) const {
  if (Status s = validate_key(key); !s) return s.error();
  const std::string k = full(key);
  auto r = client_.request("GET", object_path(k), "");
  if (!r) return r.error();
  if (r->status == 200) return StoredBytes(std::move(r->body), url_of(k));
  if (r->status == 404 && s3_xml_value(r->text(), "Code") != "NoSuchBucket")
    return Error{Errc::kNotFound, name() + ": no file under key " + std::string(key)};
  return failure(client_, *r, url_of(k));
}

Status S3Store::remove(std::string_view key) {
  if (Status s = validate_key(key); !s) return s;
  return delete_object(key);  // a valid key is a valid object name
}

Result<std::vector<std::string>> S3Store::list_full(const std::string& full_prefix) const {
  // ListObjectsV2, page by page: each answer holds at most max-keys keys (1000 unless the test
  // knob asks for fewer) and, when truncated, the token of the next page. The endpoint is not
  // trusted to end the walk: a token seen before would repeat pages forever, and the caps
  // (S3ListCaps) bound how far any listing goes. Every key must lie under the prefix asked for:
  // the callers name keys relative to it.
  std::string max_keys;
  if (const char* k = std::getenv(kMaxKeysEnv); k && std::atoi(k) > 0) max_keys = std::to_string(std::atoi(k));
  const S3ListCaps& caps = client_.config().list_caps;
  const std::string where = "s3://" + bucket_ + ": listing " + full_prefix + ": ";
  std::vector<std::string> out;
  std::uint64_t key_bytes = 0;
  std::map<std::string, std::uint64_t> seen_tokens;  // token -> the page that gave it
  std::string token;
  for (std::uint64_t page = 1;; ++page) {
    if (page > caps.pages)
      return Error{Errc::kTooLarge, where + format("page %llu: more than %llu pages, the cap (%s raises it)",
                                                   static_cast<unsigned long long>(page), static_cast<unsigned long long>(caps.pages),
                                                   S3ListCaps::kPagesEnv)};
    // Query parameters sorted by name and percent-encoded: what libcurl signs as given.
    std::string query;
    if (!token.empty()) query = "continuation-token=" + url_escape_segment(token) + "&";
    query += "list-type=2&";
    if (!max_keys.empty()) query += "max-keys=" + max_keys + "&";
    query += "prefix=" + url_escape_segment(full_prefix);
    auto r = client_.request("GET", "/" + bucket_, query, {}, S3ListCaps::kPageBytes);
    if (!r) return Error{r.error().code, where + format("page %llu: ", static_cast<unsigned long long>(page)) + r.error().message};
    if (r->status != 200) return failure(client_, *r, "s3://" + bucket_ + ": listing " + full_prefix);
    S3ListPage p = s3_parse_list_page(r->text());
    for (std::string& k : p.keys) {
      if (k.size() < full_prefix.size() || k.compare(0, full_prefix.size(), full_prefix) != 0)
        return Error{Errc::kMalformed, where + format("page %llu lists key '%s', outside the prefix", static_cast<unsigned long long>(page),
                                                      k.substr(0, 200).c_str())};
      key_bytes += k.size();
      out.push_back(std::move(k));
      if (out.size() > caps.keys)
        return Error{Errc::kTooLarge, where + format("page %llu: more than %llu keys, the cap (%s raises it)",
                                                     static_cast<unsigned long long>(page), static_cast<unsigned long long>(caps.keys),
                                                     S3ListCaps::kKeysEnv)};
      if (key_bytes > caps.bytes)
        return Error{Errc::kTooLarge, where + format("page %llu: more than %llu bytes of keys, the cap (%s raises it)",
                                                     static_cast<unsigned long long>(page), static_cast<unsigned long long>(caps.bytes),
                                                     S3ListCaps::kBytesEnv)};
    }
    if (!p.truncated) break;
    if (p.next_token.empty())
      return Error{Errc::kMalformed, where + format("page %llu is truncated but gives no continuation token", static_cast<unsigned long long>(page))};
    if (p.next_token.size() > S3ListCaps::kTokenBytes)
      return Error{Errc::kTooLarge, where + format("page %llu gives a continuation token of %zu bytes (at most %zu)",
                                                   static_cast<unsigned long long>(page), p.next_token.size(), S3ListCaps::kTokenBytes)};
    auto [it, fresh] = seen_tokens.emplace(p.next_token, page);
    if (!fresh)
      return Error{Errc::kMalformed, where + format("page %llu gives continuation token '%s', already given by page %llu: the listing would never end",
                                                    static_cast<unsigned long long>(page), p.next_token.substr(0, 200).c_str(),
                                                    static_cast<unsigned long long>(it->second))};
    token = std::move(p.next_token);
  }
  return out;
}

namespace {
Status validate_object_name(std::string_view rel) {
  if (rel.empty() || rel.size() > 1024) return {Errc::kUsage, "invalid object name: empty or longer than 1024 bytes"};
  for (unsigned char c : rel)
    if (c < 0x20 || c == 0x7f || c == '\\') return {Errc::kUsage, "invalid object name: control character or backslash"};
  for (std::size_t start = 0;;) {
    const std::size_t slash = rel.find('/', start);
    const std::string_view part = rel.substr(start, slash == std::string_view::npos ? std::string_view::npos : slash - start);
    if (part.empty() || part == "." || part == "..")
      return {Errc::kUsage, "invalid object name '" + std::string(rel) + "': empty, '.' or '..' component"};
    if (slash == std::string_view::npos) return {};
    start = slash + 1;
  }
}
}  // namespace

Result<std::vector<std::string>> S3Store::list_objects(std::string_view rel_prefix) const {
  auto keys = list_full(prefix_ + std::string(rel_prefix));
  if (!keys) return keys.error();
  std::vector<std::string> out;
  for (const std::string& k : *keys) out.push_back(k.substr(prefix_.size()));
  std::sort(out.begin(), out.end());
  return out;
}

Result<std::vector<std::uint8_t>> S3Store::get_object(std::string_view rel) const {
  if (Status s = validate_object_name(rel); !s) return s.error();
  const std::string k = full(rel);
  auto r = client_.request("GET", object_path(k), "");
  if (!r) return r.error();
  if (r->status == 200) return std::move(r->body);
  if (r->status == 404 && s3_xml_value(r->text(), "Code") != "NoSuchBucket") return Error{Errc::kNotFound, url_of(k) + ": no such object"};
  return failure(client_, *r, url_of(k));
}

Status S3Store::put_object(std::string_view rel, std::span<const std::uint8_t> bytes) {
  if (Status s = validate_object_name(rel); !s) return s;
  const std::string k = full(rel);
  auto r = client_.request("PUT", object_path(k), "", bytes);
  if (!r) return r.error();
  if (r->status == 200) return {};
  return failure(client_, *r, url_of(k));
}

Status S3Store::delete_object(std::string_view rel) {
  if (Status s = validate_object_name(rel); !s) return s;
  const std::string k = full(rel);
  auto r = client_.request("DELETE", object_path(k), "");
  if (!r) return r.error();
  if (r->status == 204 || r->status == 200 || r->status == 404) return {};
  return failure(client_, *r, url_of(k));
}

Result<std::vector<std::string>> S3Store::list() const {
  auto keys = list_full(prefix_);
  if (!keys) return keys.error();
  std::vector<std::string> out;
  for (const std::string& k : *keys) out.push_back(k.substr(prefix_.size()));
  std::sort(out.begin(), out.end());
  return out;
}

Result<PutOutcome> S3Store::decide_and_put(const std::string& key, std::span<const std::uint8_t> bytes,
                                           const ReplaceCheck& replace_existing) {
  PutOutcome outcome = PutOutcome::kAdded;
  auto existing = read(key);
  if (existing) {
    if (std::ranges::equal(existing->bytes(), bytes)) return PutOutcome::kAlreadyPresent;
    if (!replace_existing || !replace_existing(*existing))
      return Error{Errc::kMismatch, existing->where() + ": a different file is already stored under key " + key};
    outcome = PutOutcome::kReplaced;
  } else if (existing.error().code != Errc::kNotFound) {
    return existing.error();
  }
  const std::string k = full(key);
  auto r = client_.request("PUT", object_path(k), "", bytes);
  if (!r) return r.error();
  if (r->status != 200) return failure(client_, *r, url_of(k) + ": cannot store");
  // Read after write: what a reader gets now is what was sent (a writer outside this protocol,
  // or a service that changed the bytes, shows here).
  auto back = read(key);
  if (!back) return Error{back.error().code, url_of(k) + ": stored, but cannot be read back: " + back.error().message};
  if (!std::ranges::equal(back->bytes(), bytes))
    return Error{Errc::kMismatch, url_of(k) + ": another writer stored other bytes under key " + key + " meanwhile"};
  return outcome;
}

Result<PutOutcome> S3Store::write(std::string_view key_view, std::span<const std::uint8_t> bytes,
                                  const ReplaceCheck& replace_existing) {
  if (Status s = validate_key(key_view); !s) return s.error();
  const std::string key(key_view);
  // 1. The same bytes already there need no claim (nor write access).
  if (auto present = read(key); present && std::ranges::equal(present->bytes(), bytes))
    return PutOutcome::kAlreadyPresent;
  else if (!present && present.error().code != Errc::kNotFound)
    return present.error();
  const std::string claims = full(".ilmap-claims/" + key + "/");
  const std::string mine = claims + random_id();
  std::map<std::string, Clock::time_point> first_seen;
  std::mt19937 rng(std::random_device{}());
  const Clock::time_point start = Clock::now();
  for (int round = 0;; ++round) {
    // 2. Claim, and look for other claims.
    auto put = client_.request("PUT", object_path(mine), "");
    if (!put) return put.error();
    if (put->status != 200) return failure(client_, *put, url_of(mine) + ": cannot write a claim");
    auto listed = list_full(claims);
    if (!listed) {
      (void)client_.request("DELETE", object_path(mine), "");
      return listed.error();
    }
    bool others = false;
    const Clock::time_point now = Clock::now();
    for (const std::string& c : *listed) {
      if (c == mine) continue;
      auto [it, fresh] = first_seen.emplace(c, now);
      if (!fresh && now - it->second > std::chrono::seconds(kStaleClaimSeconds)) {
        (void)client_.request("DELETE", object_path(c), "");  // a killed writer's claim
        continue;
      }
      others = true;
    }
    if (!others) {
      // 4. Alone: decide, write, check; then release the claim whatever happened.
      if (const char* hold = std::getenv(kHoldHookEnv))  // test hook: widen the race window
        std::this_thread::sleep_for(std::chrono::milliseconds(std::atoi(hold)));
      auto r = decide_and_put(key, bytes, replace_existing);
      auto del = client_.request("DELETE", object_path(mine), "");
      if (r && (!del || (del->status != 204 && del->status != 200 && del->status != 404)))
        return del ? failure(client_, *del, url_of(mine) + ": stored, but the claim cannot be removed") : del.error();
      return r;
    }
    // 3. Someone else holds it: step back for a random, growing time.
    auto del = client_.request("DELETE", object_path(mine), "");
    if (!del) return del.error();
    if (Clock::now() - start > std::chrono::seconds(kClaimWaitSeconds))
      return Error{Errc::kIo, url_of(full(key)) + format(": other writers held the key for over %d s", kClaimWaitSeconds)};
    const int cap = 50 << std::min(round, 5);
    std::this_thread::sleep_for(std::chrono::milliseconds(std::uniform_int_distribution<int>(10, cap)(rng)));
  }
}

}  // namespace ilmap::symbols
