// cmd_lookup.cpp - `ilmap lookup CACHE METHOD IL_OFFSET [--json]` and
//                  `ilmap lookup CACHE --batch [--json]`.
//
// Text answers are "path:line:column" or "??:0:0" (llvm-symbolizer's habit). A single lookup
// with no answer exits 3. In batch mode every stdin line gets exactly one answer line, flushed
// at once; a malformed line gets an error line ("error: ..." or {"error":...}) and the run goes
// on (exit 0 unless reading stdin fails).
#include <cstring>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>

#include "Commands.h"
#include "QueryParse.h"
#include "ilmap/cache.h"

namespace ilmap::cli {
namespace {

struct LookupOptions {
  std::string cache;
  std::string method;
  std::string il_offset;
  bool batch = false;
  bool json = false;
};

std::string answer_text(const std::optional<LookupResult>& r) {
  if (!r) return "??:0:0";
  return std::string(r->file) + ':' + std::to_string(r->line) + ':' + std::to_string(r->column);
}

std::string answer_json(std::uint32_t rid, std::uint32_t il, const std::optional<LookupResult>& r) {
  nlohmann::ordered_json j;
  j["method"] = format("0x%08x", 0x06000000u | rid);
  j["il_offset"] = il;
  if (r) {
    j["file"] = std::string(r->file);
    j["language"] = language_label(r->language);
    j["line"] = r->line;
    j["column"] = r->column;
    j["end_line"] = r->end_line;
    j["end_column"] = r->end_column;
    j["url"] = r->source_url.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(std::string(r->source_url));
  } else {
    j["file"] = nullptr;
  }
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string error_line(const std::string& msg, bool json) {
  if (!json) return "error: " + msg;
  nlohmann::ordered_json j;
  j["error"] = msg;
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

int run_batch(const Cache& cache, bool json) {
  std::ios::sync_with_stdio(false);
  std::string line;
  std::string out;
  while (std::getline(std::cin, line)) {
    auto q = parse_query_line(line);
    if (!q) {
      out = error_line(q.error().message, json);
    } else {
      auto r = cache.lookup_row(q->rid, q->il_offset);
      out = json ? answer_json(q->rid, q->il_offset, r) : answer_text(r);
    }
    out.push_back('\n');
    std::fwrite(out.data(), 1, out.size(), stdout);
    // Flush whenever no further query is already buffered: an interactive driver gets every
    // answer at once, while a piped batch is not slowed by one write per line.
    if (std::cin.rdbuf()->in_avail() <= 0) std::fflush(stdout);
  }
  if (std::cin.bad()) return report_error({Errc::kIo, "reading queries from stdin failed"});
  return 0;
}

int run_lookup(const LookupOptions& o) {
  if (o.batch && (!o.method.empty() || !o.il_offset.empty()))
    return report_error({Errc::kUsage, "--batch reads queries from stdin: do not give METHOD and IL_OFFSET"});
  if (!o.batch && (o.method.empty() || o.il_offset.empty()))
    return report_error({Errc::kUsage, "lookup needs METHOD and IL_OFFSET (or --batch)"});
  std::uint32_t rid = 0, il = 0;
  if (!o.batch) {
    auto m = parse_method(o.method);
    if (!m) return report_error(m.error());
    auto off = parse_il_offset(o.il_offset);
    if (!off) return report_error(off.error());
    rid = *m;
    il = *off;
  }
  auto cache = Cache::open(o.cache);
  if (!cache) {
    Error e = cache.error();
    if (e.code == Errc::kBadMagic) {
      // A PDB or PE given where a cache is expected: say what to do.
      std::uint8_t head[4] = {};
      if (std::FILE* f = std::fopen(o.cache.c_str(), "rb")) {
        const std::size_t n = std::fread(head, 1, sizeof head, f);
        std::fclose(f);
        if (n >= 2 && (std::memcmp(head, "BSJB", 4) == 0 || (head[0] == 'M' && head[1] == 'Z')))
          e.message += " (it is a PDB or PE: compile it first with 'ilmap compile " + o.cache + "')";
      }
    }
    return report_error(e);
  }
  if (o.batch) return run_batch(*cache, o.json);
  auto r = cache->lookup_row(rid, il);
  const std::string out = (o.json ? answer_json(rid, il, r) : answer_text(r)) + "\n";
  std::fwrite(out.data(), 1, out.size(), stdout);
  return r ? 0 : 3;
}

}  // namespace

void register_lookup(CLI::App& app, int& rc) {
  auto o = std::make_shared<LookupOptions>();
  CLI::App* cmd = app.add_subcommand(
      "lookup",
      "Resolve (METHOD, IL_OFFSET) to file:line:column through a cache.\n"
      "METHOD is a MethodDef token (0x06000002) or a decimal row number; IL_OFFSET is decimal\n"
      "or 0x hex. Prints path:line:column, or ??:0:0 (exit 3) when there is no answer.\n"
      "With --batch, reads 'METHOD IL_OFFSET' lines from stdin and answers each on its own\n"
      "line, flushed immediately.");
  cmd->add_option("CACHE", o->cache, "An ilmap cache")->required();
  cmd->add_option("METHOD", o->method, "Method token or row number");
  cmd->add_option("IL_OFFSET", o->il_offset, "IL offset");
  cmd->add_flag("--batch", o->batch, "Read queries from stdin, one per line");
  cmd->add_flag("--json", o->json,
                "JSON answers: {\"method\",\"il_offset\",\"file\",\"language\",\"line\",\"column\","
                "\"end_line\",\"end_column\",\"url\"}; \"file\" is null when there is no answer");
  cmd->callback([o, &rc] { rc = run_lookup(*o); });
}

}  // namespace ilmap::cli
