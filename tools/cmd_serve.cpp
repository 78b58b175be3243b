// cmd_serve.cpp - `ilmap serve`: symbolication as an HTTP service (serve/, docs/serve.md).
// This file parses the options, builds the module index as `ilmap symbolicate` does, starts
// the server and waits for SIGTERM or SIGINT, then drains and exits 0.
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>
#include <thread>

#include "serve/HttpServer.h"
#include "serve/Service.h"
#include "symbols/ModuleIndex.h"
#include "symbols/ResolveConfig.h"
#include "symbols/SymbolPath.h"
#include "support/AtomicFile.h"
#include "tools/Commands.h"
#include "tools/HelpFormatter.h"
#include "tools/SourceRootOption.h"
#include "tools/SymbolPathOption.h"

namespace ilmap::cli {
namespace {

struct ServeArgs {
  std::string listen = "127.0.0.1:8327";
  int port = -1;  // --port: overrides the port of --listen
  std::vector<std::string> search;
  std::vector<std::string> msym_dirs;  // --msym-dir: Mono AOT .msym folders
  std::string symbol_path;
  std::string cache_dir;
  long download_timeout_s = symbols::HttpOptions{}.total_timeout_s;
  std::uint64_t max_body = std::uint64_t(10) << 20;
  unsigned max_concurrent = 8;
  unsigned max_connections = 64;
  unsigned timeout_s = 30;
  unsigned receive_timeout_s = serve::ServerOptions{}.receive_timeout_s;
  long miss_ttl_s = 60;
  unsigned workers = 0;  // 0: the number of cores
  std::uint64_t max_frames = 100000;
  unsigned request_timeout_s = 60;
  std::uint64_t cache_max_size = 0;
  unsigned max_open = 1024;
  bool source_context = false;
  std::vector<std::string> source_roots;  // PREFIX=DIR
  std::string token_file;
  bool verbose = false;
};

// One line on standard error in a single write, so that lines of concurrent requests never mix.
void log_line(const std::string& s) {
  const std::string line = "ilmap serve: " + escape_text(s) + "\n";
  for (std::size_t at = 0; at < line.size();) {
    const ssize_t n = ::write(2, line.data() + at, line.size() - at);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    at += std::size_t(n);
  }
}

// "HOST:PORT", ":PORT" (127.0.0.1) or "HOST" (port 8327).
Status parse_listen(const std::string& text, std::string& host, std::uint16_t& port) {
  const std::size_t colon = text.rfind(':');
  host = colon == std::string::npos ? text : text.substr(0, colon);
  if (host.empty()) host = "127.0.0.1";
  if (colon == std::string::npos) return {};
  const std::string p = text.substr(colon + 1);
  if (p.empty() || p.size() > 5 || p.find_first_not_of("0123456789") != std::string::npos || std::stoul(p) > 65535)
    return Error{Errc::kUsage, "--listen " + text + ": the port is not a number from 0 to 65535"};
  port = static_cast<std::uint16_t>(std::stoul(p));
  return {};
}

// The token: the first line of the file, without its line end and surrounding blanks. At most
// kMaxToken bytes: a longer one is refused here rather than cut, so the server never takes a
// part of a token for the whole.
constexpr std::size_t kMaxToken = 4096;

Status read_token(const std::string& path, std::string& token) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{Errc::kNotFound, "--token-file " + path + ": " + std::strerror(errno)};
  // Enough for the longest token with blanks and a line end around it; no more is read, so a
  // file without a line end (a device, a huge file) costs nothing either.
  char buf[kMaxToken + 256];
  in.read(buf, sizeof buf);
  std::string_view text(buf, std::size_t(in.gcount()));
  const std::size_t nl = text.find('\n');
  if (nl == std::string_view::npos && text.size() == sizeof buf)
    return Error{Errc::kUsage, "--token-file " + path + ": the first line is longer than " +
                                   std::to_string(sizeof buf) + " bytes (a token is at most " +
                                   std::to_string(kMaxToken) + ")"};
  text = text.substr(0, nl);
  while (!text.empty() && (text.back() == '\r' || text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  if (text.empty()) return Error{Errc::kUsage, "--token-file " + path + ": the first line is empty"};
  if (text.size() > kMaxToken)
    return Error{Errc::kUsage, "--token-file " + path + ": the token is " + std::to_string(text.size()) +
                                   " bytes, more than the " + std::to_string(kMaxToken) + " a request may carry"};
  for (const unsigned char c : text)
    if (c < 0x21 || c > 0x7e)
      return Error{Errc::kUsage, "--token-file " + path + ": the token holds a byte that a header cannot carry"};
  token = std::string(text);
  return {};
}

int run_serve(const ServeArgs& a) {
  serve::ServerOptions server_options;
  if (Status st = parse_listen(a.listen, server_options.host, server_options.port); !st)
    return report_error(st.error());
  if (a.port >= 0) server_options.port = static_cast<std::uint16_t>(a.port);
  server_options.max_concurrent = a.max_concurrent;
  server_options.connection_limit = a.max_connections;
  server_options.timeout_s = a.timeout_s;
  server_options.receive_timeout_s = a.receive_timeout_s;
  server_options.log = log_line;

  serve::ServiceOptions svc;
  svc.max_body = a.max_body;
  svc.workers = a.workers ? a.workers : std::max(1u, std::thread::hardware_concurrency());
  svc.workers = std::min(svc.workers, a.max_concurrent);  // more could never be busy
  svc.max_frames = a.max_frames;
  svc.request_timeout_s = a.request_timeout_s;
  svc.max_open = a.max_open;
  svc.cache_max_bytes = a.cache_max_size;
  svc.downloads = std::make_shared<symbols::TransferCounter>();
  svc.source_context = a.source_context || !a.source_roots.empty();
  for (const std::string& spec : a.source_roots) {
    auto root = parse_source_root(spec);
    if (!root) return report_error({root.error().code, "--source-root " + root.error().message});
    svc.source_roots.push_back(std::move(*root));
  }
  if (!a.token_file.empty())
    if (Status st = read_token(a.token_file, svc.token); !st) return report_error(st.error());

  // Modules are found as symbolicate finds them (symbols/ResolveConfig.h), by every worker's
  // index at once: one download and compile per module, and misses that expire.
  symbols::ResolveConfig config;
  config.search = a.search;
  if (!a.cache_dir.empty()) config.cache_dir = a.cache_dir;
  config.symbol_path = symbol_path_or_env(a.symbol_path);
  config.download_timeout_s = a.download_timeout_s;
  config.downloads = svc.downloads.get();
  config.miss_ttl_s = a.miss_ttl_s;
  config.shared_by_workers = true;
  config.touch_reused = true;  // the --cache-max-size eviction goes by last use
  config.compile.embed_sources = svc.source_context;  // the PDBs' embedded sources, for source context
  if (a.verbose) config.note = log_line;
  auto index_options = config.module_index_options();
  if (!index_options) return report_error({index_options.error().code, "--symbol-path: " + index_options.error().message});
  // Mono AOT frames: one .msym source shared by the workers (--msym-dir, then the symbol path);
  // a .msym not found is looked for again after --miss-ttl.
  config.msym_dirs = a.msym_dirs;
  auto msym = symbolicate::MsymSource::create(config, "--msym-dir", a.miss_ttl_s);
  if (!msym) return report_error(msym.error());
  svc.msym = std::move(*msym);
  svc.cache_dir = index_options->cache_dir;
  // A cache directory the server cannot write would make every worker compile every module
  // again, in every request, saying nothing: refused at start, with the reason.
  if (Status st = check_writable_directory(svc.cache_dir); !st)
    return report_error({st.error().code, "--cache-dir: " + st.error().message});
  auto made = serve::Service::create([o = std::move(*index_options)] { return symbols::ModuleIndex::create(o); }, svc);
  if (!made) return report_error(made.error());
  serve::Service& service = **made;

  // SIGTERM and SIGINT are taken by this thread only (sigwait below): blocked before the
  // server's threads start, so they inherit the mask. A client that goes away must not kill
  // the process with SIGPIPE.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  ::pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  ::signal(SIGPIPE, SIG_IGN);

  auto server = serve::HttpServer::start(service, server_options);
  if (!server) return report_error(server.error());
  // The first line on standard error: scripts and tests read the port from it (--port 0).
  log_line("listening on " + (*server)->url());
  int sig = 0;
  while (::sigwait(&stop_signals, &sig) != 0) {
  }
  log_line(std::string("stopping (") + (sig == SIGTERM ? "SIGTERM" : "SIGINT") + "): draining requests in flight");
  (*server)->stop(a.timeout_s);
  log_line("stopped");
  return 0;
}

}  // namespace

void register_serve(CLI::App& app, int& rc) {
  auto a = std::make_shared<ServeArgs>();
  CLI::App* cmd = app.add_subcommand(
      "serve",
      "Symbolicate over HTTP (docs/serve.md). POST /symbolicate with trace text (text/plain)\n"
      "answers exactly what 'ilmap symbolicate' prints for it (?columns=1, ?urls=1, ?json=1 as its\n"
      "flags; ?context=N with --source-context), with X-Ilmap-Frames, X-Ilmap-Resolved and\n"
      "X-Ilmap-Unresolved headers; a Sentry event (application/json) or envelope\n"
      "(application/x-sentry-envelope) comes back with its frames filled, a batch request (JSON with\n"
      "\"stacktraces\" and \"modules\", symbolicator's shape) with a status per frame and module.\n"
      "GET /lookup/<debug_id>/<token>/<il_offset> answers as 'ilmap lookup --json' for the module\n"
      "with that Sentry debug id (404 when none has it). GET /metrics (Prometheus text). GET /healthz;\n"
      "GET /readyz (503 while draining). Modules are found as symbolicate finds them (--search,\n"
      "--symbol-path, --cache-dir), each downloaded and compiled once however many requests ask.\n"
      "Errors are JSON {\"error\": ...}: 400 bad request, 401 token missing or wrong, 404 no such\n"
      "endpoint, 405 method (with Allow), 413 body over --max-body or frames over --max-frames, 415\n"
      "content type, 429 over --max-concurrent (with Retry-After), 503 over --request-timeout (with\n"
      "Retry-After). Listens on 127.0.0.1 unless --listen says otherwise; the first line on standard\n"
      "error is 'ilmap serve: listening on http://HOST:PORT', then one access line per request.\n"
      "SIGTERM or SIGINT: stop accepting, answer the requests in flight (at most --timeout seconds),\n"
      "exit 0.\n"
      "Exit codes: 0 stopped by a signal, 1 usage error, 2 the address cannot be bound,\n"
      "libmicrohttpd is missing or --cache-dir cannot be written, 3 a --search path, --msym-dir or\n"
      "--token-file does not exist.");
  cmd->add_option("--listen", a->listen,
                  "Address to listen on: HOST:PORT, :PORT (127.0.0.1) or HOST (port 8327); HOST an IPv4 address "
                  "(0.0.0.0: every interface). Default 127.0.0.1:8327");
  cmd->add_option("--port", a->port, "Port to listen on (overrides the port of --listen; 0: any free port)")
      ->check(CLI::Range(0, 65535));
  cmd->add_option("--search", a->search,
                  "Directories and files to find modules in, as symbolicate takes them (repeatable; default: the "
                  "current directory)")
      ->allow_extra_args(false);
  cmd->add_option("--msym-dir", a->msym_dirs,
                  "Mono AOT frames ('<0xADDR + 0xOFF> in <mvid#aotid>:0'): a folder that mono --aot=msym-dir "
                  "wrote, or a store holding .msym files, as symbolicate takes it (repeatable; the symbol path is "
                  "asked after them; a .msym not found is looked for again after --miss-ttl; docs/msym.md)")
      ->allow_extra_args(false);
  cmd->add_option("--symbol-path", a->symbol_path,
                  "Symbol servers and stores to fetch PDBs from (srv*CACHE*https://server;DIR), as symbolicate takes "
                  "it (default $_NT_SYMBOL_PATH)");
  add_download_timeout_option(cmd, a->download_timeout_s);
  cmd->add_option("--cache-dir", a->cache_dir,
                  "Where compiled caches are kept (default $XDG_CACHE_HOME/ilmap, else $HOME/.cache/ilmap); the "
                  "server writes nowhere else");
  CLI::Option* max_body = cmd->add_option("--max-body", a->max_body,
                  "Largest request body (bytes, or with a unit: 64KiB, 10MiB; default 10MiB); larger: 413")
      ->transform(size_value())
      ->check(CLI::Range(std::uint64_t(1), std::uint64_t(1) << 32));
  show_as_size(max_body);
  cmd->add_option("--max-concurrent", a->max_concurrent,
                  "Most requests in flight at once, health checks aside (default 8); more: 429 with Retry-After")
      ->check(CLI::Range(1u, 4096u));
  cmd->add_option("--workers", a->workers,
                  "Requests resolved at once, each with a module index of its own (default: the number of cores, "
                  "at most --max-concurrent); the others in flight wait for one")
      ->check(CLI::Range(1u, 1024u));
  cmd->add_option("--max-frames", a->max_frames,
                  "Most frames in one request (default 100000): a text with more is answered 413; a Sentry event's "
                  "or batch's frames past it are left with status too_many_frames")
      ->check(CLI::Range(std::uint64_t(1), std::uint64_t(1) << 32));
  cmd->add_option("--request-timeout", a->request_timeout_s,
                  "Seconds a text request may take, waiting for a worker included (default 60); later: 503 with "
                  "Retry-After (the modules it began to prepare are kept for the retry). 0: no limit")
      ->check(CLI::Range(0u, 86400u));
  CLI::Option* cache_max = cmd->add_option("--cache-max-size", a->cache_max_size,
                  "Most bytes of compiled caches in --cache-dir (64MiB, 10GiB, bytes); over it the least recently "
                  "used are deleted down to 90% of it. Default: no cap")
      ->transform(size_value());
  show_as_size(cache_max);
  cmd->add_option("--max-open", a->max_open,
                  "Most caches a worker keeps mapped (default 1024); past it the worker starts afresh after its "
                  "request")
      ->check(CLI::Range(1u, 1u << 20));
  cmd->add_option("--max-connections", a->max_connections,
                  "Most open connections (default 64); at the limit, new ones wait until one closes")
      ->check(CLI::Range(1u, 65536u));
  cmd->add_option("--timeout", a->timeout_s,
                  "Seconds a connection may stay idle (a slow client) before it is closed, and the longest wait "
                  "for requests in flight at SIGTERM (default 30)")
      ->check(CLI::Range(1u, 86400u));
  cmd->add_option("--receive-timeout", a->receive_timeout_s,
                  "Seconds a request may take to arrive whole, headers and body, from the connection's opening or "
                  "its previous answer (default 60); later the connection is closed (408 once its headers have "
                  "arrived). 0: no limit")
      ->check(CLI::Range(0u, 86400u));
  cmd->add_option("--miss-ttl", a->miss_ttl_s,
                  "Seconds a module that was not found (not in the search set, symbol server down or without it, "
                  "a bad file) stays not found before it is looked for again (default 60; 0: every request)")
      ->check(CLI::Range(0L, 86400L * 365));
  cmd->add_flag("--source-context", a->source_context,
                "Return source text: POST /symbolicate?context=N (as symbolicate --context N) and a Sentry "
                "event's pre_context/context_line/post_context, from the sources embedded in the PDBs and the "
                "--source-root checkouts (off by default: ?context is then a 400)");
  add_source_root_option(cmd, a->source_roots, "?context and Sentry events (implies --source-context)");
  cmd->add_option("--token-file", a->token_file,
                  "File whose first line is a bearer token (at most 4096 bytes) every request but /healthz and "
                  "/readyz must send (Authorization: Bearer TOKEN); else 401");
  cmd->add_flag("-v,--verbose", a->verbose, "Say which caches were compiled or reused and why modules were refused");
  cmd->callback([a, &rc] { rc = run_serve(*a); });
}

}  // namespace ilmap::cli
