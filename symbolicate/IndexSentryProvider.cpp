// IndexSentryProvider.cpp - see IndexSentryProvider.h.
#include "symbolicate/IndexSentryProvider.h"

namespace ilmap::symbolicate {
namespace {

// What follows the last '/' or '\' of a path as an event names it.
std::string_view last_component(std::string_view path) {
  const std::size_t slash = path.find_last_of("/\\");
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

}  // namespace

const Cache* IndexSentryProvider::find(const SentryImage& image, std::string& why_not) {
  std::string what;
  const symbols::ModuleAnswer* a = nullptr;
  if (!image.debug_id.empty()) {
    const std::string_view hint =
        !image.debug_file.empty() ? last_component(image.debug_file) : last_component(image.code_file);
    a = &index_.by_debug_id(image.debug_id, hint);
    what = "debug id " + image.debug_id;
  } else if (!image.code_file.empty()) {
    const std::string_view f = last_component(image.code_file);
    a = &index_.by_file_name(f);
    what = "code file " + std::string(f);
  } else {
    why_not = "image without debug_id or code_file";
    return nullptr;
  }
  if (a->cache) return a->cache;
  why_not = std::string(symbols::miss_name(a->miss)) + " (" + what + ")";
  return nullptr;
}

}  // namespace ilmap::symbolicate
