// Page.cpp - see Page.h: the page's files and the headers they are answered with.
#include "serve/Page.h"

namespace ilmap::serve {
namespace {

// The file of a page path, and its type.
struct PagePath {
  std::string_view path, file, content_type;
};
constexpr PagePath kPagePaths[] = {
    {"/", "index.html", "text/html; charset=utf-8"},
    {"/page.css", "page.css", "text/css; charset=utf-8"},
    {"/page.js", "page.js", "text/javascript; charset=utf-8"},
};

// Nothing but this origin: scripts and styles from their own files (no inline script or style
// can run, so text of a trace shown in the page can never become code), requests to the
// service only (the trace goes nowhere else), no frames around the page, no form posted
// elsewhere. blob: for images is not needed: the download link is a navigation.
constexpr const char* kPolicy =
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

}  // namespace

bool is_page(std::string_view path) {
  for (const PagePath& p : kPagePaths)
    if (p.path == path) return true;
  return false;
}

std::optional<Response> page_response(std::string_view path) {
  for (const PagePath& p : kPagePaths) {
    if (p.path != path) continue;
    for (std::size_t i = 0; i < kPageAssetCount; ++i) {
      if (kPageAssets[i].name != p.file) continue;
      Response r{200, std::string(p.content_type), std::string(kPageAssets[i].bytes), {}};
      r.headers.emplace_back("Content-Security-Policy", kPolicy);
      r.headers.emplace_back("Referrer-Policy", "no-referrer");
      // A server started with a newer ilmap serves its own page at once, not a cached one.
      r.headers.emplace_back("Cache-Control", "no-cache");
      return r;
    }
  }
  return std::nullopt;
}

}  // namespace ilmap::serve
