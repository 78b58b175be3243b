// ServiceTest.cpp - serve::Service without HTTP: the admission checks in their documented order
// (docs/serve.md "Errors and caps"), the bearer token, /lookup/ segment validation, and answers
// over an empty search set. The corpus end to end, over HTTP: serve.sh.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

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
    symbols::ModuleIndexOptions io;
    io.search = {dir_ + "/search"};
    io.cache_dir = dir_ + "/cache";
    auto index = symbols::ModuleIndex::create(std::move(io));
    ASSERT_TRUE(index);
    ServiceOptions so;
    so.max_body = 100;
    so.token = "tok";
    service_ = std::make_unique<Service>(std::move(*index), so);
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

}  // namespace
}  // namespace ilmap::serve
