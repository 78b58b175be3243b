// SharedLibrary.cpp - see SharedLibrary.h.
#include "support/SharedLibrary.h"

#include <dlfcn.h>

namespace ilmap {

void* open_shared_library(const char* soname, const char* name, const char* package, std::string& error) {
  void* lib = ::dlopen(soname, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* e = ::dlerror();
    error = std::string("cannot load ") + name + " (install the Debian package " + package + "): " +
            (e ? e : "dlopen failed");
  }
  return lib;
}

void* find_symbol(void* lib, const char* symbol) { return ::dlsym(lib, symbol); }

}  // namespace ilmap
