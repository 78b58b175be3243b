// ServiceTest.cpp - serve::Service without HTTP: the admission checks in their documented order
// (docs/serve.md "Errors and caps"), the bearer token, /lookup/ segment validation, and answers
// over an empty search set. The corpus end to end, over HTTP: serve.sh.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "serve/Page.h"
#include "serve/Service.h"
#include "symbols/ModuleIndex.h"

namespace ilmap::serve {
namespace {

class ServiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (std::filesystem::temp_directory_path() / "ilmap-serve-test.XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
    std::filesystem::create_directory(dir_ + "/search");
    make(100);
  }
  void make(std::uint64_t max_body, std::uint64_t max_frames = 0, std::uint64_t cache_max = 0) {
    symbols::ModuleIndexOptions io;
    io.search = {dir_ + "/search"};
    io.cache_dir = dir_ + "/cache";
    ServiceOptions so;
    so.max_body = max_body;
    so.token = "tok";
    so.workers = 2;
    so.max_frames = max_frames;
    so.cache_dir = io.cache_dir;
    so.cache_max_bytes = cache_max;
    auto made = Service::create([io] { return symbols::ModuleIndex::create(io); }, so);
    ASSERT_TRUE(made);
    service_ = std::move(*made);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::optional<Response> admit(std::string_view method, std::string_view path, std::string_view type = "text/plain",
                                std::string_view auth = "Bearer tok", std::optional<std::uint64_t> length = 10) {
    RequestHead h;
    h.method = method, h.path = path, h.content_type = type, h.authorization = auth, h.content_length = length;
    return service_->admit(h);
  }
  Response get(std::string_view path) {
    Request r;
    r.head.method = "GET", r.head.path = path, r.head.authorization = "Bearer tok";
    return service_->handle(r);
  }
  static std::string header(const Response& r, const std::string& name) {
    for (const auto& [n, v] : r.headers)
      if (n == name) return v;
    return "";
  }

  std::string dir_;
  std::unique_ptr<Service> service_;
};

TEST_F(ServiceTest, AdmitsAValidRequest) {
  EXPECT_FALSE(admit("POST", "/symbolicate"));
  EXPECT_FALSE(admit("POST", "/symbolicate", "text/plain; charset=utf-8", "bearer tok"));
  EXPECT_FALSE(admit("POST", "/symbolicate", "", "Bearer tok", std::nullopt));  // chunked, no type
  EXPECT_FALSE(admit("POST", "/symbolicate", "application/json"));
  EXPECT_FALSE(admit("GET", "/lookup/x/y/z"));  // segments are checked by handle
}

TEST_F(ServiceTest, ChecksInTheDocumentedOrder) {
  // endpoint, method, token, content type, size: each failure names the first that fails.
  EXPECT_EQ(admit("PUT", "/nope", "image/png", "", 1000)->status, 404u);
  auto r = admit("PUT", "/symbolicate", "image/png", "", 1000);
  EXPECT_EQ(r->status, 405u);
  EXPECT_EQ(header(*r, "Allow"), "POST");
  r = admit("POST", "/symbolicate", "image/png", "", 1000);
  EXPECT_EQ(r->status, 401u);
  EXPECT_EQ(header(*r, "WWW-Authenticate"), "Bearer realm=\"ilmap\"");
  EXPECT_EQ(admit("POST", "/symbolicate", "image/png", "Bearer tok", 1000)->status, 415u);
  EXPECT_EQ(admit("POST", "/symbolicate", "text/plain", "Bearer tok", 101)->status, 413u);
  EXPECT_FALSE(admit("POST", "/symbolicate", "text/plain", "Bearer tok", 100));
}

TEST_F(ServiceTest, TokenMustMatchExactly) {
  for (const char* auth : {"", "Bearer", "Bearer ", "Bearer to", "Bearer tokk", "Bearer TOK", "Basic tok", "tok"})
    EXPECT_EQ(admit("POST", "/symbolicate", "text/plain", auth)->status, 401u) << auth;
}

// The page's files (serve/Page.h) are answered with no token, under a policy that allows this
// origin only and no inline script; whatever the page then asks for still needs the token.
TEST_F(ServiceTest, PageNeedsNoTokenAndAllowsNoOtherOrigin) {
  for (const char* path : {"/", "/page.css", "/page.js"}) {
    EXPECT_FALSE(admit("GET", path, "", "", std::nullopt)) << path;
    EXPECT_FALSE(admit("HEAD", path, "", "", std::nullopt)) << path;
    EXPECT_EQ(admit("POST", path, "text/plain", "")->status, 405u) << path;
    Request r;
    r.head.method = "GET", r.head.path = path;
    const Response page = service_->handle(r);
    EXPECT_EQ(page.status, 200u) << path;
    EXPECT_FALSE(page.body.empty()) << path;
    const std::string policy = header(page, "Content-Security-Policy");
    EXPECT_NE(policy.find("default-src 'none'"), std::string::npos) << policy;
    EXPECT_NE(policy.find("script-src 'self';"), std::string::npos) << policy;
    EXPECT_NE(policy.find("connect-src 'self';"), std::string::npos) << policy;
    EXPECT_EQ(policy.find("unsafe-inline"), std::string::npos) << policy;
  }
  EXPECT_EQ(get("/").content_type, "text/html; charset=utf-8");
  EXPECT_EQ(get("/page.js").content_type, "text/javascript; charset=utf-8");
  EXPECT_EQ(get("/page.css").content_type, "text/css; charset=utf-8");
  // The script and the style come from their own paths: none is inline.
  EXPECT_NE(get("/").body.find("<script src=\"page.js\" defer></script>"), std::string::npos);
  EXPECT_EQ(get("/").body.find("<style"), std::string::npos);
  // "/" is the page alone, not a prefix: other paths are still 404, and the API asks the token.
  EXPECT_EQ(admit("GET", "/index.html", "", "")->status, 404u);
  EXPECT_EQ(admit("GET", "/page.js/x", "", "")->status, 404u);
  EXPECT_EQ(admit("POST", "/symbolicate", "text/plain", "")->status, 401u);
  EXPECT_STREQ(Metrics::endpoint_of("/page.js"), "page");
  EXPECT_STREQ(Metrics::endpoint_of("/index.html"), "other");
}

TEST_F(ServiceTest, HealthNeedsNoToken) {
  EXPECT_FALSE(admit("GET", "/healthz", "", ""));
  EXPECT_FALSE(admit("HEAD", "/readyz", "", ""));
  EXPECT_EQ(get("/healthz").body, "ok\n");
  EXPECT_EQ(get("/readyz").status, 200u);
  service_->set_draining();
  EXPECT_EQ(get("/readyz").status, 503u);
  EXPECT_EQ(admit("GET", "/metrics", "", "")->status, 401u);
}

TEST_F(ServiceTest, LookupSegmentsAreValidatedBeforeUse) {
  const std::string id = "6c544a86-3ccb-4fa9-810a-691444a2b613-d4ed59c0";
  const std::vector<std::string> bad_paths = {"/lookup/../../etc/passwd", "/lookup/" + id + "/1", "/lookup/" + id + "/1/2/3",
                                  "/lookup//1/2", "/lookup/" + id + "//2", "/lookup/" + id + "/1/",
                                  "/lookup/../1/2", "/lookup/" + id + "0/1/2", "/lookup/g" + id.substr(1) + "/1/2",
                                  "/lookup/" + id + "/0x02000001/2", "/lookup/" + id + "/0/2",
                                  "/lookup/" + id + "/1/0x100000000", "/lookup/" + id + "/1/x"};
  for (const std::string& bad : bad_paths) {
    const Response r = get(bad);
    EXPECT_EQ(r.status, 400u) << bad;
    EXPECT_EQ(r.content_type, "application/json") << bad;
    EXPECT_EQ(r.body.rfind("{\"error\":\"", 0), 0u) << r.body;
  }
  const Response r = get("/lookup/" + id + "/0x0600000a/7");
  EXPECT_EQ(r.status, 404u);  // nothing in the search set has it
  EXPECT_NE(r.body.find("module not found"), std::string::npos) << r.body;
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/cache/etc"));
}

TEST_F(ServiceTest, TextWithoutFramesComesBackUnchanged) {
  Request r;
  r.head.method = "POST", r.head.path = "/symbolicate", r.head.content_type = "text/plain";
  r.body = "no frames here\r\nnor here, and no line end";
  const Response a = service_->handle(r);
  EXPECT_EQ(a.status, 200u);
  EXPECT_EQ(a.body, r.body);
  EXPECT_EQ(header(a, "X-Ilmap-Frames"), "0");
}

TEST_F(ServiceTest, JsonThatIsNoEventIsA400) {
  Request r;
  r.head.method = "POST", r.head.path = "/symbolicate", r.head.content_type = "application/json";
  r.body = "{\"exception\": [1, 2";
  const Response a = service_->handle(r);
  EXPECT_EQ(a.status, 400u);
  EXPECT_NE(a.body.find("not a Sentry event"), std::string::npos) << a.body;
}

TEST_F(ServiceTest, ErrorBodiesAreJsonEvenForHostileText) {
  const Response r = error_response(400, std::string("a \"quote\", a \\ and \x01 and \xff"));
  EXPECT_EQ(r.content_type, "application/json");
  EXPECT_EQ(r.body, "{\"error\":\"a \\\"quote\\\", a \\\\ and \\u0001 and \xef\xbf\xbd\"}\n");
}

Request text_request(const std::string& body) {
  Request r;
  r.head.method = "POST", r.head.path = "/symbolicate", r.head.content_type = "text/plain";
  r.body = body;
  return r;
}

TEST_F(ServiceTest, FramesOverTheCapAreA413AndAtTheCapAnswered) {
  make(1 << 20, 5);
  std::string five, six;
  for (int i = 0; i < 6; ++i) {
    const std::string line = "   at A.B.C() in App.dll:token 0x600000" + std::to_string(i + 1) + "+0x7\n";
    if (i < 5) five += line;
    six += line;
  }
  const Response ok = service_->handle(text_request(five));
  EXPECT_EQ(ok.status, 200u);
  EXPECT_EQ(header(ok, "X-Ilmap-Frames"), "5");
  EXPECT_EQ(ok.body, five);  // App.dll is in no search path: unchanged
  const Response over = service_->handle(text_request(six));
  EXPECT_EQ(over.status, 413u);
  EXPECT_NE(over.body.find("more than 5 frames (--max-frames)"), std::string::npos) << over.body;
}

TEST_F(ServiceTest, ALongTextIsAnsweredAsAWholeAcrossPieces) {
  // Over 64 KiB, so resolved in pieces: the answer is the text (no module is found), and every
  // frame is counted once.
  std::string body;
  int frames = 0;
  while (body.size() < 300 * 1024) {
    body += "   at A.B.C() in App.dll:token 0x6000001+0x" + std::to_string(frames % 9 + 1) + "\nsome log text\r\n";
    ++frames;
  }
  body += "last line without an end";
  const Response a = service_->handle(text_request(body));
  EXPECT_EQ(a.status, 200u);
  EXPECT_EQ(a.body, body);
  EXPECT_EQ(header(a, "X-Ilmap-Frames"), std::to_string(frames));
}

TEST_F(ServiceTest, TheCacheCapEvictsTheLeastRecentlyUsed) {
  namespace fs = std::filesystem;
  // Five caches of 1000 bytes, used one after another (modification times a minute apart);
  // a file that is no .ilmap is neither counted nor deleted.
  const auto now = fs::file_time_type::clock::now();
  for (int i = 0; i < 5; ++i) {
    const fs::path p = fs::path(dir_) / "cache" / ("m" + std::to_string(i) + ".pdb") / "ID" / ("m" + std::to_string(i) + ".ilmap");
    fs::create_directories(p.parent_path());
    std::ofstream(p) << std::string(1000, 'x');
    fs::last_write_time(p, now - std::chrono::minutes(10 - i));
  }
  std::ofstream(fs::path(dir_) / "cache" / "notes.txt") << std::string(5000, 'y');
  make(100, 0, 3500);  // at start: 5000 bytes over 3500, deleted down to 3150: the two oldest
  EXPECT_FALSE(fs::exists(fs::path(dir_) / "cache/m0.pdb/ID/m0.ilmap"));
  EXPECT_FALSE(fs::exists(fs::path(dir_) / "cache/m1.pdb/ID/m1.ilmap"));
  for (int i = 2; i < 5; ++i)
    EXPECT_TRUE(fs::exists(fs::path(dir_) / "cache" / ("m" + std::to_string(i) + ".pdb") / "ID" / ("m" + std::to_string(i) + ".ilmap")));
  EXPECT_TRUE(fs::exists(fs::path(dir_) / "cache/notes.txt"));
  const std::string m = get("/metrics").body;
  EXPECT_NE(m.find("\nilmap_serve_cache_evictions_total 2\n"), std::string::npos) << m;
  EXPECT_NE(m.find("\nilmap_serve_cache_evicted_bytes_total 2000\n"), std::string::npos) << m;
  EXPECT_NE(m.find("\nilmap_serve_cache_bytes 3000\n"), std::string::npos) << m;
  EXPECT_EQ(service_->enforce_cache_cap(), 0u);  // under the cap now
}

TEST_F(ServiceTest, MetricsHaveALatencyHistogram) {
  service_->metrics().request("/symbolicate", 200, 0.003);
  service_->metrics().request("/symbolicate", 200, 0.2);
  service_->metrics().request("/symbolicate", 200, 9.0);
  const std::string m = get("/metrics").body;
  EXPECT_NE(m.find("# TYPE ilmap_serve_request_duration_seconds histogram\n"), std::string::npos) << m;
  EXPECT_NE(m.find("ilmap_serve_request_duration_seconds_bucket{endpoint=\"symbolicate\",le=\"0.0025\"} 0\n"), std::string::npos) << m;
  EXPECT_NE(m.find("ilmap_serve_request_duration_seconds_bucket{endpoint=\"symbolicate\",le=\"0.005\"} 1\n"), std::string::npos) << m;
  EXPECT_NE(m.find("ilmap_serve_request_duration_seconds_bucket{endpoint=\"symbolicate\",le=\"0.25\"} 2\n"), std::string::npos) << m;
  EXPECT_NE(m.find("ilmap_serve_request_duration_seconds_bucket{endpoint=\"symbolicate\",le=\"5\"} 2\n"), std::string::npos) << m;
  EXPECT_NE(m.find("ilmap_serve_request_duration_seconds_bucket{endpoint=\"symbolicate\",le=\"+Inf\"} 3\n"), std::string::npos) << m;
  EXPECT_NE(m.find("ilmap_serve_request_duration_seconds_count{endpoint=\"symbolicate\"} 3\n"), std::string::npos) << m;
  EXPECT_NE(m.find("\nilmap_serve_workers 2\n"), std::string::npos) << m;
  EXPECT_NE(m.find("\nilmap_serve_workers_busy 0\n"), std::string::npos) << m;
  EXPECT_NE(m.find("\nilmap_serve_resident_memory_bytes "), std::string::npos) << m;
}

}  // namespace
}  // namespace ilmap::serve
