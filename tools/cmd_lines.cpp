// cmd_lines.cpp - `ilmap lines CACHE FILE:LINE[:COLUMN] [--json]`: the reverse lookup, source
// line -> (method, IL offset) as a debugger binds a breakpoint (SPEC.md 6.2, 6.3).
//
// One line per binding, in the canonical listing's form (docs/text-output.md):
// "TOKEN IL PATH START_LINE:START_COLUMN-END_LINE:END_COLUMN", ordered by token then IL offset;
// with --json one object per binding. No binding: exit 3. --all-methods: the rule "all methods"
// of SPEC.md 6.2 instead of the debugger's. Every
// cache that opens holds the line index (SPEC.md section 7, open step 16). FILE may itself hold
// colons (C:\src\a.cs:12): the query is split at its last colons, and a part before the last
// one that is all digits makes that part LINE and the last one COLUMN (tools/QueryParse.h).
//
// --batch (or no FILE:LINE): one query per stdin line, read as lookup --batch reads its lines
// (QueryParse.h: a final CR and surrounding blanks ignored, 64 KiB at most); each gets its
// binding lines followed by an empty line ("error: MESSAGE" or {"error":...} then an empty
// line for a rejected query, the run goes on and exits 1 or 3 at the end), flushed before
// each read that may wait.
#include <cstdio>
#include <cstring>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "tools/Commands.h"
#include "tools/LineReader.h"
#include "symbolicate/QueryParse.h"
#include "support/TextEscape.h"
#include "ilmap/cache.h"

namespace ilmap::cli {
namespace {

using symbolicate::LineQuery;
using symbolicate::parse_line_query;
using symbolicate::parse_line_query_line;

struct LinesOptions {
  std::string cache;
  std::string query;
  bool json = false;
  bool batch = false;
  bool all_methods = false;
};

// The bindings of one query as output lines, or the error that rejects it.
Result<std::string> answer(const Cache& cache, const LineQuery& q, bool json, LineRule rule) {
  std::vector<std::uint32_t> docs;
  if (Status s = cache.match_documents(q.file, docs); !s) return s.error();
  std::vector<LineMatch> found;
  if (Status s = cache.lines_in(docs, q.line, q.column, found, rule); !s) return s.error();
  std::string out;
  for (const LineMatch& m : found) {
    const std::string_view path = cache.document_path(m.document);
    if (json) {
      nlohmann::ordered_json j;
      j["method"] = format("0x%08x", m.token);
      j["il_offset"] = m.il_offset;
      j["file"] = std::string(path);
      j["line"] = m.line;
      j["column"] = m.column;
      j["end_line"] = m.end_line;
      j["end_column"] = m.end_column;
      out += j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    } else {
      out += format("0x%08x %u ", m.token, m.il_offset);
      append_escaped(out, path);
      out += format(" %u:%u-%u:%u\n", m.line, m.column, m.end_line, m.end_column);
    }
  }
  if (found.empty()) {
    std::string path;
    append_escaped(path, cache.document_path(docs.front()));
    return Error{Errc::kNotFound, format("%s: no code at or after line %u", path.c_str(), q.line)};
  }
  return out;
}

int run_batch(const LinesOptions& o, const Cache& cache) {
  int rc = 0;
  LineReader in(0, [] { std::fflush(stdout); });
  for (;;) {
    const LineReader::Next n = in.next();
    if (n == LineReader::Next::kEnd) break;
    if (n == LineReader::Next::kError)
      return report_error({Errc::kIo, format("reading stdin: %s", std::strerror(in.error()))});
    Result<std::string> r = Error{Errc::kUsage, format("query line longer than %zu bytes", LineReader::kMaxLine)};
    if (n == LineReader::Next::kLine) {
      auto q = parse_line_query_line(in.line());
      if (q) r = answer(cache, *q, o.json, o.all_methods ? LineRule::kAllMethods : LineRule::kDebugger);
      else r = q.error();
    }
    if (cache.changed())
      return report_error(cache.changed_status().error());
    if (r) {
      std::fwrite(r->data(), 1, r->size(), stdout);
    } else {
      const int code = exit_code_for(r.error().code);
      if (code == 1 || rc == 0) rc = code;
      if (o.json) {
        nlohmann::ordered_json j;
        j["error"] = r.error().message;
        std::fputs((j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n").c_str(), stdout);
      } else {
        std::fputs(("error: " + escape_text(r.error().message) + "\n").c_str(), stdout);
      }
    }
    std::fputc('\n', stdout);
  }
  return rc;
}

int run_lines(const LinesOptions& o) {
  const bool batch = o.batch || o.query.empty();
  LineQuery single;
  if (!batch) {
    auto q = parse_line_query(o.query);
    if (!q) return report_error(q.error());
    single = *q;
  }
  auto cache = Cache::open(o.cache);
  if (!cache) return report_error(cache.error());
  if (batch) return run_batch(o, *cache);
  auto r = answer(*cache, single, o.json, o.all_methods ? LineRule::kAllMethods : LineRule::kDebugger);
  if (cache->changed())
    return report_error(cache->changed_status().error());
  if (!r) return report_error(r.error());
  std::fwrite(r->data(), 1, r->size(), stdout);
  return 0;
}

}  // namespace

void register_lines(CLI::App& app, int& rc) {
  auto o = std::make_shared<LinesOptions>();
  CLI::App* cmd = app.add_subcommand(
      "lines",
      "Reverse lookup: the methods and IL offsets a debugger binds a breakpoint at FILE:LINE\n"
      "(or FILE:LINE:COLUMN) to, as netcoredbg does (SPEC.md 6.2): the method whose code holds\n"
      "the line, the innermost one, the statement that spans it or the next one in that method;\n"
      "a line outside every method binds the first method below. FILE is a document path of the\n"
      "PDB, the same path with the other separator, or a relative path (./ and ../ resolved)\n"
      "ending document paths, of which the shortest is taken (Program.cs, Sub/Program.cs).\n"
      "Prints 'TOKEN IL PATH LINE:COLUMN-END_LINE:END_COLUMN' per binding; exit 3 when the line\n"
      "binds nothing. With --batch (or without FILE:LINE), one query per stdin line.");
  cmd->add_option("CACHE", o->cache, "An ilmap cache")->required();
  cmd->add_option("FILE:LINE[:COLUMN]", o->query, "Source position (without it: --batch)");
  cmd->add_flag("--batch", o->batch,
                "Read FILE:LINE[:COLUMN] queries from stdin, one per line; each answer ends with an empty "
                "line (a rejected query: 'error: ...', then the run goes on and exits 1 or 3)");
  cmd->add_flag("--all-methods", o->all_methods,
                "Bind every method whose code starts on the first line at or after LINE that has code "
                "(ilmap 0.2.0's rule), not the debugger's one method");
  cmd->add_flag("--json", o->json,
                "JSON answers, one object per line: {\"method\",\"il_offset\",\"file\",\"line\",\"column\","
                "\"end_line\",\"end_column\"}");
  cmd->callback([o, &rc] { rc = run_lines(*o); });
}

}  // namespace ilmap::cli
