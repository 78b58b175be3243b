// Service.cpp - see Service.h: routing, admission checks and the answers of `ilmap serve`.
#include "serve/Service.h"

#include <nlohmann/json.hpp>

#include <cctype>
#include <map>

#include "support/TextEscape.h"
#include "symbolicate/IndexSentryProvider.h"
#include "symbolicate/LookupAnswer.h"
#include "symbolicate/QueryParse.h"
#include "symbolicate/Symbolicator.h"

namespace ilmap::serve {
namespace {

struct Route {
  std::string_view path;  // exact, or a prefix when it ends with '/'
  std::string_view allow; // the methods, as the Allow header lists them
};
constexpr Route kRoutes[] = {
    {"/symbolicate", "POST"},
    {"/healthz", "GET, HEAD"},
    {"/readyz", "GET, HEAD"},
    {"/lookup/", "GET, HEAD"},
    {"/metrics", "GET, HEAD"},
};
constexpr std::string_view kEndpoints =
    "endpoints: POST /symbolicate, GET /lookup/<debug_id>/<token>/<il_offset>, GET /healthz, GET /readyz, "
    "GET /metrics";

// A request's text quoted in a message: escaped, and cut, so that an error stays one short line.
std::string quoted(std::string_view s) {
  constexpr std::size_t kMax = 80;
  // Built by appending: GCC 12 warns (-Wrestrict, a false positive) on "'" + std::string.
  std::string out(1, '\'');
  append_escaped(out, s.substr(0, kMax));
  out += s.size() > kMax ? "'..." : "'";
  return out;
}

// The debug id segment: hex digits and dashes only, checked before parse_debug_id reads it, so
// nothing of a request but those characters ever reaches the module index.
bool debug_id_chars(std::string_view s) {
  if (s.empty() || s.size() > 64) return false;
  for (const char c : s)
    if (!std::isxdigit(static_cast<unsigned char>(c)) && c != '-') return false;
  return true;
}

const Route* find_route(std::string_view path) {
  for (const Route& r : kRoutes) {
    if (r.path.back() == '/' ? path.starts_with(r.path) : path == r.path) return &r;
  }
  return nullptr;
}

bool method_allowed(const Route& r, std::string_view method) {
  std::string_view allow = r.allow;
  while (!allow.empty()) {
    const std::size_t comma = allow.find(", ");
    if (allow.substr(0, comma) == method) return true;
    if (comma == std::string_view::npos) break;
    allow.remove_prefix(comma + 2);
  }
  return false;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = char(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// The media type of a Content-Type value, lowercased, parameters (charset) dropped.
std::string media_type(std::string_view content_type) {
  return lower(trim(content_type.substr(0, content_type.find(';'))));
}

// Compares without an early exit, so the time taken does not tell how much of a guess matched.
bool same_secret(std::string_view a, std::string_view b) {
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  const std::string_view& longer = a.size() >= b.size() ? a : b;
  for (std::size_t i = 0; i < longer.size(); ++i) {
    const unsigned char x = i < a.size() ? static_cast<unsigned char>(a[i]) : 0;
    const unsigned char y = i < b.size() ? static_cast<unsigned char>(b[i]) : 0;
    diff |= static_cast<unsigned char>(x ^ y);
  }
  return diff == 0;
}

// "Bearer <token>" (the scheme in any case, RFC 7235) naming `token`.
bool bearer_ok(std::string_view authorization, std::string_view token) {
  authorization = trim(authorization);
  if (authorization.size() < 7 || lower(authorization.substr(0, 7)) != "bearer ") return false;
  return same_secret(trim(authorization.substr(7)), token);
}

// A Sentry event (application/json) or envelope (application/x-sentry-envelope, as the SDKs
// send them).
bool is_sentry_type(std::string_view media) {
  return media == "application/json" || media == "application/x-sentry-envelope";
}

}  // namespace

Response error_response(unsigned status, const std::string& message) {
  nlohmann::ordered_json j;
  j["error"] = message;
  Response r;
  r.status = status;
  r.content_type = "application/json";
  r.body = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  return r;
}

Service::Service(std::unique_ptr<symbols::ModuleIndex> index, ServiceOptions options)
    : index_(std::move(index)), opt_(std::move(options)) {}
Service::~Service() = default;

std::optional<Response> Service::admit(const RequestHead& head) const {
  const Route* route = find_route(head.path);
  if (!route) return error_response(404, "no endpoint " + quoted(head.path) + " (" + std::string(kEndpoints) + ")");
  if (!method_allowed(*route, head.method)) {
    Response r = error_response(405, "method " + std::string(head.method) + " not allowed on " +
                                         std::string(route->path) + " (allowed: " + std::string(route->allow) + ")");
    r.headers.emplace_back("Allow", std::string(route->allow));
    return r;
  }
  if (is_health(head.path)) return std::nullopt;
  if (!opt_.token.empty() && !bearer_ok(head.authorization, opt_.token)) {
    Response r = error_response(401, head.authorization.empty() ? "this server asks for a bearer token (Authorization: Bearer ...)"
                                                                : "the bearer token is not the one this server was given");
    r.headers.emplace_back("WWW-Authenticate", "Bearer realm=\"ilmap\"");
    return r;
  }
  if (head.method == "POST") {
    const std::string type = media_type(head.content_type);
    // text/plain is the trace; no type, or curl's default for --data-binary, is taken as text
    // too (the body is never form-decoded), so `curl --data-binary @trace.txt` works as is.
    if (!type.empty() && type != "text/plain" && type != "application/x-www-form-urlencoded" && !is_sentry_type(type))
      return error_response(415, "Content-Type " + type + " is not accepted by " + std::string(head.path) +
                                     " (send text/plain, or a Sentry event as application/json)");
    if (head.content_length && *head.content_length > opt_.max_body)
      return error_response(413, "body of " + std::to_string(*head.content_length) + " bytes (Content-Length) is over the limit of " +
                                     std::to_string(opt_.max_body) + " bytes (--max-body)");
  }
  return std::nullopt;
}

Response Service::handle(const Request& request) {
  const std::string_view path = request.head.path;
  if (path == "/healthz") return Response{200, "text/plain; charset=utf-8", "ok\n", {}};
  if (path == "/readyz") {
    if (draining_.load()) return Response{503, "text/plain; charset=utf-8", "draining\n", {}};
    return Response{200, "text/plain; charset=utf-8", "ready\n", {}};
  }
  if (path == "/symbolicate") return symbolicate(request);
  if (path == "/metrics") return Response{200, "text/plain; version=0.0.4; charset=utf-8", metrics_.render(), {}};
  if (path.starts_with("/lookup/")) return lookup(path.substr(8));
  return error_response(404, "no endpoint " + quoted(path));
}

// The event or envelope back with its frames filled in, as `ilmap symbolicate` writes it. Unlike
// the command, which reads an input that is no Sentry event as trace text, a body sent as JSON
// that is none is an error: the client said what it sent.
Response Service::sentry(const Request& request, const std::string& type) {
  SentryOptions so;
  so.max_input_bytes = std::size_t(opt_.max_body);
  SentryStats stats;
  Response r;
  r.content_type = type;
  Status st;
  const bool batch = type == "application/json" && looks_like_batch_request(request.body);
  if (batch) {
    so.overwrite = true;  // the frames were sent to be resolved
    r.content_type = "application/json";
  }
  {
    const std::lock_guard<std::mutex> lock(index_mutex_);
    symbolicate::IndexSentryProvider provider(*index_);
    st = batch ? symbolicate_batch(request.body, r.body, provider, so, stats)
               : symbolicate_sentry_text(request.body, r.body, provider, so, stats);
  }
  if (batch && r.body.size()) r.body += '\n';
  if (!st && batch) return error_response(st.error().code == Errc::kTooLarge ? 413 : 400, st.error().message);
  if (!st) return error_response(400, "the body is not a Sentry event or envelope: " + st.error().message);
  metrics_.frames(stats.resolved,
                  {{"module not found", stats.module_not_found},
                   {symbolicate::reason_name(symbolicate::Reason::kNoPoint), stats.no_line},
                   {"not a frame object", stats.not_an_object},
                   {"had a line already", stats.already},
                   {"no function_id", stats.no_function_id},
                   {"unreadable field", stats.bad_field},
                   {"absurd value", stats.absurd_value},
                   {"no image", stats.no_image},
                   {"over the frame limit", stats.over_limit}});
  r.headers.emplace_back("X-Ilmap-Frames", std::to_string(stats.frames));
  r.headers.emplace_back("X-Ilmap-Resolved", std::to_string(stats.resolved));
  r.headers.emplace_back("X-Ilmap-Unresolved", std::to_string(stats.left()));
  return r;
}

Response Service::lookup(std::string_view segments) {
  // The path is already percent-decoded (libmicrohttpd), so an encoded '/' makes a segment too.
  std::vector<std::string_view> seg;
  for (std::size_t at = 0;;) {
    const std::size_t slash = segments.find('/', at);
    seg.push_back(segments.substr(at, slash == std::string_view::npos ? std::string_view::npos : slash - at));
    if (slash == std::string_view::npos || seg.size() > 3) break;
    at = slash + 1;
  }
  if (seg.size() != 3)
    return error_response(400, "GET /lookup/<debug_id>/<token>/<il_offset>: " + quoted(segments) +
                                   " is not three segments separated by '/'");
  if (!debug_id_chars(seg[0]) || !symbols::parse_debug_id(seg[0]))
    return error_response(400, "segment 1 of /lookup/: " + quoted(seg[0]) +
                                   " is not a debug id (<guid>-<stamp as 8 hex digits>, or <guid>-<age>)");
  const auto rid = symbolicate::parse_method(seg[1]);
  if (!rid) return error_response(400, "segment 2 of /lookup/ (token): " + rid.error().message);
  const auto il = symbolicate::parse_il_offset(seg[2]);
  if (!il) return error_response(400, "segment 3 of /lookup/ (IL offset): " + il.error().message);
  Response r;
  r.content_type = "application/json";
  const std::lock_guard<std::mutex> lock(index_mutex_);
  const symbols::ModuleAnswer& m = index_->by_debug_id(seg[0]);
  if (!m.cache)
    return error_response(404, "debug id " + std::string(seg[0]) + ": " + symbols::miss_name(m.miss));
  std::vector<std::uint32_t> scratch;
  r.body = symbolicate::answer_json(*rid, *il, symbolicate::answer(*m.cache, *rid, *il, scratch)) + "\n";
  return r;
}

Response Service::symbolicate(const Request& request) {
  if (const std::string type = media_type(request.head.content_type); is_sentry_type(type)) return sentry(request, type);
  symbolicate::SymbolicateOptions so;
  so.columns = request.columns, so.urls = request.urls, so.json = request.json;
  Response r;
  if (request.json) r.content_type = "application/x-ndjson";
  symbolicate::SymbolicateStats stats;
  {
    const std::lock_guard<std::mutex> lock(index_mutex_);
    symbolicate::Symbolicator s(*index_, so, [&r](std::string_view out) { r.body.append(out); });
    s.text(request.body);
    s.finish();
    stats = s.stats();
  }
  std::uint64_t unresolved = 0;
  std::map<std::string, std::uint64_t> by_reason;
  for (std::size_t i = 0; i < stats.unresolved.size(); ++i) {
    unresolved += stats.unresolved[i];
    by_reason[symbolicate::reason_name(symbolicate::Reason(i))] = stats.unresolved[i];
  }
  metrics_.frames(stats.resolved, by_reason);
  r.headers.emplace_back("X-Ilmap-Frames", std::to_string(stats.frames));
  r.headers.emplace_back("X-Ilmap-Resolved", std::to_string(stats.resolved));
  r.headers.emplace_back("X-Ilmap-Unresolved", std::to_string(unresolved));
  return r;
}

}  // namespace ilmap::serve
