// SharedLibrary.h - the optional system libraries (libcurl, libzip, libmicrohttpd), loaded with
// dlopen on first use instead of linked: a run that never downloads, unpacks a package or serves
// does not need them installed.
#pragma once

#include <string>

namespace ilmap {

// dlopen(soname, RTLD_NOW | RTLD_LOCAL); nullptr when that fails, with `error` set to "cannot
// load NAME (install the Debian package PACKAGE): <what dlerror says>".
void* open_shared_library(const char* soname, const char* name, const char* package, std::string& error);

// The library's function `symbol` (dlsym; GetProcAddress on Windows), or nullptr.
void* find_symbol(void* lib, const char* symbol);

// Sets `fn` to the library's function `symbol`; false when the library has none.
template <class F>
bool bind_symbol(void* lib, const char* symbol, F& fn) {
  fn = reinterpret_cast<F>(find_symbol(lib, symbol));
  return fn != nullptr;
}

}  // namespace ilmap
