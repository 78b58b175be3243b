// Service.cpp - see Service.h: routing, admission checks and the answers of `ilmap serve`.
#include "serve/Service.h"

#include <nlohmann/json.hpp>


#include <algorithm>
#include <cctype>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>

#include "serve/Page.h"
#include "support/Platform.h"
#include "support/TextEscape.h"
#include "symbolicate/IndexSentryProvider.h"
#include "symbolicate/LookupAnswer.h"
#include "symbolicate/QueryParse.h"
#include "symbolicate/SentryEvent.h"
#include "symbolicate/Symbolicator.h"

namespace ilmap::serve {
namespace {

struct Route {
  std::string_view path;  // exact, or a prefix when it ends with '/'
  std::string_view allow; // the methods, as the Allow header lists them
};
constexpr Route kRoutes[] = {
    {"/", "GET, HEAD"},  // the page (serve/Page.h), with /page.css and /page.js
    {"/page.css", "GET, HEAD"},
    {"/page.js", "GET, HEAD"},
    {"/symbolicate", "POST"},
    {"/healthz", "GET, HEAD"},
    {"/readyz", "GET, HEAD"},
    {"/lookup/", "GET, HEAD"},
    {"/metrics", "GET, HEAD"},
};
constexpr std::string_view kEndpoints =
    "endpoints: GET / (the page), POST /symbolicate, GET /lookup/<debug_id>/<token>/<il_offset>, GET /healthz, GET /readyz, "
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
    // "/" is the page alone, not a prefix of every path.
    if (r.path.size() > 1 && r.path.back() == '/' ? path.starts_with(r.path) : path == r.path) return &r;
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

// The type of a body sent without one of its own (no Content-Type, or curl's default for
// --data-binary): a Sentry event, envelope or batch request is read as one, as `ilmap
// symbolicate` reads its input (the first line tells, symbolicate/SentryEvent.h); anything else
// keeps `type` and is trace text.
std::string sniffed_type(std::string_view body, const std::string& type) {
  if (!looks_like_sentry_json(body)) return type;
  if (looks_like_batch_request(body)) return "application/json";
  switch (sentry_start(first_line(body))) {
    case SentryStart::kEvent:
    case SentryStart::kIncomplete: return "application/json";
    case SentryStart::kEnvelope: return "application/x-sentry-envelope";
    case SentryStart::kOther: break;
  }
  return type;
}

// X-Ilmap-No-Context: why frames asked for source context got none, as `ilmap symbolicate`
// says it in its summary: "REASON=FRAMES" (symbolicate/SourceProvider.h source_miss_name) for
// each reason that occurred, in SourceMiss order, joined by ", "; no header when every frame
// had its context.
void add_no_context_header(const SourceProvider& sources, Response& r) {
  const SourceMissStats& m = sources.miss_stats();
  std::string value;
  for (std::size_t i = 1; i < m.by_reason.size(); ++i)
    if (m.by_reason[i].frames)
      value += (value.empty() ? "" : ", ") + std::string(source_miss_name(SourceMiss(i))) + "=" +
               std::to_string(m.by_reason[i].frames);
  if (!value.empty()) r.headers.emplace_back("X-Ilmap-No-Context", std::move(value));
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

// An index of the pool, for one request: given back (or replaced) when it goes.
class Service::Lease {
 public:
  Lease(Service* owner, std::unique_ptr<symbols::ModuleIndex> index, std::uint64_t generation)
      : owner_(owner), index_(std::move(index)), generation_(generation), before_(index_->stats()) {}
  Lease(Lease&&) = default;
  ~Lease() {
    if (index_) owner_->give_back(std::move(index_), generation_, before_);
  }
  symbols::ModuleIndex& operator*() { return *index_; }
  symbols::ModuleIndex* operator->() { return index_.get(); }

 private:
  Service* owner_;
  std::unique_ptr<symbols::ModuleIndex> index_;
  std::uint64_t generation_;
  symbols::ModuleIndexStats before_;
};

Service::Service(IndexFactory make_index, ServiceOptions options)
    : make_index_(std::move(make_index)), opt_(std::move(options)) {}
Service::~Service() = default;

Result<std::unique_ptr<Service>> Service::create(IndexFactory make_index, ServiceOptions options) {
  std::unique_ptr<Service> s(new Service(std::move(make_index), std::move(options)));
  s->opt_.workers = std::max(1u, s->opt_.workers);
  for (unsigned i = 0; i < s->opt_.workers; ++i) {
    auto index = s->make_index_();
    if (!index) return index.error();
    s->pool_.emplace_back(std::move(*index), 0);
  }
  s->enforce_cache_cap();
  return s;
}

Service::Lease Service::lease() {
  std::unique_lock<std::mutex> lock(pool_mutex_);
  pool_returned_.wait(lock, [this] { return !pool_.empty(); });
  auto [index, generation] = std::move(pool_.back());
  pool_.pop_back();
  return Lease(this, std::move(index), generation);
}

void Service::give_back(std::unique_ptr<symbols::ModuleIndex> index, std::uint64_t generation,
                        const symbols::ModuleIndexStats& before) {
  const symbols::ModuleIndexStats& after = index->stats();
  metrics_.caches(after.reused - before.reused, after.compiled - before.compiled);
  open_total_ += std::int64_t(after.open) - std::int64_t(before.open);
  if (after.compiled != before.compiled) enforce_cache_cap();
  // Too many mappings, or some of them of files evicted since it was made: a fresh index (its
  // caches are opened again as requests name them). Kept when one cannot be made.
  if (after.open > opt_.max_open || generation != evictions_.load()) {
    const std::uint64_t now = evictions_.load();
    if (auto fresh = make_index_()) {
      open_total_ -= std::int64_t(after.open);
      index = std::move(*fresh);
      generation = now;
    }
  }
  {
    const std::lock_guard<std::mutex> lock(pool_mutex_);
    pool_.emplace_back(std::move(index), generation);
  }
  pool_returned_.notify_one();
}

std::size_t Service::enforce_cache_cap() {
  namespace fs = std::filesystem;
  if (opt_.cache_dir.empty()) return 0;
  // One sweep at a time; a request that finds one running leaves the work to it.
  const std::unique_lock<std::mutex> lock(sweep_mutex_, std::try_to_lock);
  if (!lock.owns_lock()) return 0;
  struct File {
    fs::file_time_type used;
    std::uintmax_t size;
    fs::path path;
  };
  std::vector<File> files;
  std::uint64_t total = 0;
  std::error_code ec;
  // Bounded: the cache directory is ours, laid out two levels deep (name/id/file).
  for (fs::recursive_directory_iterator it(platform::fs_path(opt_.cache_dir), fs::directory_options::skip_permission_denied, ec), end;
       !ec && it != end; it.increment(ec)) {
    if (it.depth() > 4) it.disable_recursion_pending();
    if (!it->is_regular_file(ec) || it->path().extension() != ".ilmap") continue;
    const std::uintmax_t size = it->file_size(ec);
    if (ec) continue;
    const auto used = it->last_write_time(ec);
    if (ec) continue;
    files.push_back({used, size, it->path()});
    total += size;
  }
  std::size_t removed = 0;
  if (opt_.cache_max_bytes && total > opt_.cache_max_bytes) {
    const std::uint64_t goal = opt_.cache_max_bytes - opt_.cache_max_bytes / 10;
    std::sort(files.begin(), files.end(), [](const File& a, const File& b) {
      return a.used != b.used ? a.used < b.used : a.path < b.path;
    });
    std::uint64_t freed = 0;
    for (const File& f : files) {
      if (total <= goal) break;
      if (!fs::remove(f.path, ec)) continue;
      total -= f.size;
      freed += f.size;
      ++removed;
    }
    if (removed) {
      metrics_.evicted(removed, freed);
      ++evictions_;  // indexes made before now hold mappings of deleted files: replaced
    }
  }
  cache_bytes_ = total;
  return removed;
}

std::optional<Response> Service::admit(const RequestHead& head) const {
  const Route* route = find_route(head.path);
  if (!route) return error_response(404, "no endpoint " + quoted(head.path) + " (" + std::string(kEndpoints) + ")");
  if (!method_allowed(*route, head.method)) {
    Response r = error_response(405, "method " + std::string(head.method) + " not allowed on " +
                                         std::string(route->path) + " (allowed: " + std::string(route->allow) + ")");
    r.headers.emplace_back("Allow", std::string(route->allow));
    return r;
  }
  // The page's files hold no data and a browser's address bar cannot send a token: they are
  // answered without it, and everything the page then asks for is checked as usual.
  if (is_health(head.path) || is_page(head.path)) return std::nullopt;
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
  if (std::optional<Response> page = page_response(path)) return std::move(*page);
  if (path == "/metrics") {
    MetricsGauges g;
    g.open_caches = std::uint64_t(std::max<std::int64_t>(0, open_total_.load()));
    g.cache_bytes = cache_bytes_.load();
    g.workers = opt_.workers;
    {
      const std::lock_guard<std::mutex> lock(pool_mutex_);
      g.workers_busy = opt_.workers - pool_.size();
    }
    if (opt_.downloads) {
      g.downloads_ok = opt_.downloads->completed.load();
      g.downloads_not_found = opt_.downloads->not_found.load();
      g.downloads_failed = opt_.downloads->failed.load();
      g.download_bytes = opt_.downloads->bytes.load();
    }
    std::ifstream statm("/proc/self/statm");
    std::uint64_t pages = 0, resident = 0;
    if (statm >> pages >> resident) g.resident_bytes = resident * std::uint64_t(platform::page_size());
    return Response{200, "text/plain; version=0.0.4; charset=utf-8", metrics_.render(g), {}};
  }
  if (path.starts_with("/lookup/")) return lookup(path.substr(8));
  return error_response(404, "no endpoint " + quoted(path));
}

// The event or envelope back with its frames filled in, as `ilmap symbolicate` writes it. Unlike
// the command, which reads an input that is no Sentry event as trace text, a body sent as JSON
// that is none is an error: the client said what it sent.
Response Service::sentry(const Request& request, const std::string& type) {
  SentryOptions sentry_options;
  sentry_options.max_input_bytes = std::size_t(opt_.max_body);
  SourceProvider sources(SourceOptions{opt_.source_roots, SourceOptions{}.max_source_bytes, {}, {}, {}});
  if (opt_.source_context) {
    sentry_options.sources = &sources;
    if (request.context) sentry_options.context_lines = *request.context;
  } else {
    sentry_options.source_context = false;
  }
  if (opt_.max_frames) sentry_options.max_frames = std::size_t(opt_.max_frames);
  SentryStats stats;
  Response r;
  r.content_type = type;
  Status st;
  const bool batch = type == "application/json" && looks_like_batch_request(request.body);
  if (batch) {
    sentry_options.overwrite = true;  // the frames were sent to be resolved
    r.content_type = "application/json";
  }
  {
    Lease index = lease();
    symbolicate::IndexSentryProvider provider(*index);
    st = batch ? symbolicate_batch(request.body, r.body, provider, sentry_options, stats)
               : symbolicate_sentry_text(request.body, r.body, provider, sentry_options, stats);
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
  if (sentry_options.sources) add_no_context_header(sources, r);
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
  Lease index = lease();
  const symbols::ModuleAnswer& m = index->by_debug_id(seg[0]);
  if (!m.cache)
    return error_response(404, "debug id " + std::string(seg[0]) + ": " + symbols::miss_name(m.miss));
  std::vector<std::uint32_t> scratch;
  r.body = symbolicate::answer_json(*rid, *il, symbolicate::answer(*m.cache, *rid, *il, scratch)) + "\n";
  return r;
}

Response Service::symbolicate(const Request& request) {
  std::string type = media_type(request.head.content_type);
  if (type.empty() || type == "application/x-www-form-urlencoded") type = sniffed_type(request.body, type);
  if (is_sentry_type(type)) {
    if (!request.context_text.empty() && !request.context)
      return error_response(400, "?context=" + quoted(request.context_text) + ": not a number of lines from 0 to 100");
    if (request.context && !opt_.source_context)
      return error_response(400, "?context: this server does not return source text (start it with --source-context)");
    return sentry(request, type);
  }
  symbolicate::SymbolicateOptions symbolicate_options;
  symbolicate_options.columns = request.columns;
  symbolicate_options.urls = request.urls;
  symbolicate_options.json = request.json;
  symbolicate_options.msym = opt_.msym.get();
  if (!request.context_text.empty() && !request.context)
    return error_response(400, "?context=" + quoted(request.context_text) + ": not a number of lines from 0 to 100");
  SourceProvider sources(SourceOptions{opt_.source_roots, SourceOptions{}.max_source_bytes, {}, {}, {}});
  if (request.context) {
    if (!opt_.source_context)
      return error_response(400, "?context: this server does not return source text (start it with --source-context)");
    symbolicate_options.context = *request.context;
    symbolicate_options.sources = &sources;
  }
  Response r;
  if (request.json) r.content_type = "application/x-ndjson";
  symbolicate::SymbolicateStats stats;
  {
    using Clock = std::chrono::steady_clock;
    const Clock::time_point start = Clock::now();
    Lease index = lease();
    symbolicate::Symbolicator s(*index, symbolicate_options, [&r](std::string_view out) { r.body.append(out); });
    // In pieces of about 64 KiB that end at a line's end (so the output is the one of text()
    // on the whole), with the caps checked between them.
    constexpr std::size_t kPiece = 64 * 1024;
    std::string_view rest = request.body;
    while (!rest.empty()) {
      const std::size_t nl = rest.size() <= kPiece ? std::string_view::npos : rest.find('\n', kPiece);
      const std::size_t end = nl == std::string_view::npos ? rest.size() : nl + 1;
      s.text(rest.substr(0, end));
      rest.remove_prefix(end);
      if (opt_.max_frames && s.stats().frames > opt_.max_frames)
        return error_response(413, "the text holds more than " + std::to_string(opt_.max_frames) +
                                       " frames (--max-frames); send it in parts");
      if (opt_.request_timeout_s > 0 && !rest.empty() &&
          Clock::now() - start > std::chrono::seconds(opt_.request_timeout_s)) {
        Response e = error_response(503, "the request was not resolved within " + std::to_string(opt_.request_timeout_s) +
                                             " s (--request-timeout); the modules it started to prepare are kept: retry");
        e.headers.emplace_back("Retry-After", "1");
        return e;
      }
    }
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
  if (symbolicate_options.sources) add_no_context_header(sources, r);
  return r;
}

}  // namespace ilmap::serve
