// Page.h - the page `ilmap serve` gives a person (issue 46): GET / answers serve/page/index.html,
// which loads /page.css and /page.js; the three files are compiled into the program
// (cmake/embed-files.cmake writes their bytes into a generated source), so the page needs no
// file beside the binary and no network but the service. What the page does: docs/serve.md "The page".
//
// The files are answered without the bearer token: a browser's address bar cannot send an
// Authorization header, and the files hold no data (the page asks for the token and sends it
// with every request it makes, which the service checks as any other). Every answer carries a
// Content-Security-Policy that lets the page load and call nothing but this origin and run no
// inline script (X-Content-Type-Options: nosniff is on every answer, serve/HttpServer.cpp).
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

#include "serve/Service.h"

namespace ilmap::serve {

// One file of serve/page/ as compiled in (the generated source defines the table).
struct PageAsset {
  std::string_view name;   // the file name, no folder: index.html, page.css, page.js
  std::string_view bytes;  // the file, byte for byte
};
extern const PageAsset kPageAssets[];
extern const std::size_t kPageAssetCount;

// The page's paths: "/", "/page.css", "/page.js".
bool is_page(std::string_view path);
// The answer to GET (or HEAD) of one of them; nullopt for any other path.
std::optional<Response> page_response(std::string_view path);

}  // namespace ilmap::serve
