// cmd_verify.cpp - `ilmap verify CACHE...`: payload checksum and full structural check.
#include <cstring>

#include "tools/Commands.h"
#include "ilmap/cache.h"
#include "support/Platform.h"

namespace ilmap::cli {
namespace {

// "1 method", "2 methods".
std::string count(unsigned long long n, const char* noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

// A PDB or PE given where a cache is expected: say what to do (as lookup does).
void add_compile_hint(const std::string& path, Error& e) {
  if (e.code != Errc::kBadMagic) return;
  std::uint8_t head[4] = {};
  const long long got = platform::read_head(path, head, sizeof head);
  if (got < 0) return;
  const std::size_t n = std::size_t(got);
  if ((n == 4 && std::memcmp(head, "BSJB", 4) == 0) || (n >= 2 && head[0] == 'M' && head[1] == 'Z'))
    e.message += " (it is a PDB or PE: compile it first with 'ilmap compile " + path + "')";
}

int run_verify(const std::vector<std::string>& caches) {
  int rc = 0;
  for (const std::string& path : caches) {
    auto cache = Cache::open(path);
    if (!cache) {
      Error e = cache.error();
      add_compile_hint(path, e);
      rc = std::max(rc, report_error(e));
      continue;
    }
    if (Status s = cache->verify(); !s) {
      rc = std::max(rc, report_error(Error{s.code(), path + ": " + s.message()}));
      continue;
    }
    const std::string line = escape_text(path) + ": ok (" + count(cache->method_count(), "method") + ", " +
                             count(cache->point_count(), "point") + ", " +
                             count(cache->document_count(), "document") + ")\n";
    std::fwrite(line.data(), 1, line.size(), stdout);
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
