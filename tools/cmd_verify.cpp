// cmd_verify.cpp - `ilmap verify CACHE...`: payload checksum and full structural check.
#include "Commands.h"
#include "ilmap/cache.h"

namespace ilmap::cli {
namespace {

int run_verify(const std::vector<std::string>& caches) {
  int rc = 0;
  for (const std::string& path : caches) {
    auto cache = Cache::open(path);
    Status s = cache ? cache->verify() : Status(cache.error());
    if (!s) {
      std::fprintf(stderr, "ilmap: error: %s%s\n", cache ? (path + ": ").c_str() : "", s.message().c_str());
      rc = std::max(rc, exit_code_for(s.code()));
      continue;
    }
    std::printf("%s: ok (%u methods, %llu points, %u documents)\n", path.c_str(), cache->method_count(),
                static_cast<unsigned long long>(cache->point_count()), cache->document_count());
  }
  return rc;
}

}  // namespace

void register_verify(CLI::App& app, int& rc) {
  auto caches = std::make_shared<std::vector<std::string>>();
  CLI::App* cmd = app.add_subcommand(
      "verify",
      "Check caches completely: header, FlatBuffers structure, payload checksum (xxHash3) and\n"
      "every method's point block. Exit 0 when all are sound, 2 otherwise.");
  cmd->add_option("CACHE", *caches, "ilmap caches")->required();
  cmd->callback([caches, &rc] { rc = run_verify(*caches); });
}

}  // namespace ilmap::cli
