// CApi.cpp - the C API's compile, module resolution and symbolication (the end of
// include/ilmap/ilmap.h): thin calls of symbols/compile_file, symbols/ModuleIndex and
// symbolicate/Symbolicator, the same code `ilmap compile` and `ilmap symbolicate` run, set up
// from the same symbols/ResolveConfig they fill from their arguments.
// Nothing throws through the C boundary: allocation failures become ILMAP_E_IO.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <new>
#include <string>
#include <string_view>
#include <vector>

#include "decode/Guids.h"
#include "ilmap/ilmap.h"
#include "reader/CApiHandle.h"
#include "symbolicate/Symbolicator.h"
#include "symbolicate/MsymSource.h"
#include "symbols/CompileFile.h"
#include "symbols/ModuleIndex.h"
#include "symbols/ResolveConfig.h"

struct ilmap_symbolicator {
  std::unique_ptr<ilmap::symbols::ModuleIndex> index;
  ilmap::symbolicate::SymbolicateOptions options;
  std::unique_ptr<ilmap::symbolicate::MsymSource> msym;  // options.msym: the .msym folders
  // The handles ilmap_find_module gave out, one per cache (they borrow the index's caches).
  std::map<const ilmap::Cache*, std::unique_ptr<ilmap_cache>> handles;
};

namespace {

using ilmap::Errc;
using ilmap::Error;

int report(Errc code, std::string_view message, char* msg, size_t msg_size) {
  if (msg && msg_size > 0) {
    const std::size_t n = std::min(msg_size - 1, message.size());
    std::memcpy(msg, message.data(), n);
    msg[n] = '\0';
  }
  return static_cast<int>(code);
}

// The fields of an options struct that the caller's `size` covers: a caller built against an
// older header sets a smaller size and gets the defaults of the fields it does not know. False
// when `size` does not even cover itself (not set).
template <class T>
bool read_options(const T* given, T& o) {
  o = T{};
  if (!given) return true;
  if (given->size < sizeof(std::size_t)) return false;
  std::memcpy(&o, given, std::min(sizeof(T), given->size));
  return true;
}

std::string text_or_empty(const char* s) { return s ? std::string(s) : std::string(); }

}  // namespace

extern "C" {

int ilmap_compile(const char* input, const char* output, const ilmap_compile_options* options,
                  ilmap_compile_result* result, char* msg, size_t msg_size) {
  if (result) *result = ilmap_compile_result{};
  if (!input || !output || !*input || !*output)
    return report(Errc::kUsage, "ilmap_compile: input and output must be non-empty paths", msg, msg_size);
  try {
    ilmap_compile_options o;
    if (!read_options(options, o)) return report(Errc::kUsage, "ilmap_compile: options->size is not set", msg, msg_size);
    ilmap::symbols::ResolveConfig config;  // as `ilmap compile` builds its own
    config.symbol_path = text_or_empty(o.symbol_path);
    config.compile.embed_sources = o.embed_sources != 0;
    config.compile.force = o.force != 0;
    ilmap::symbols::CompileFileOptions file_options = config.compile_file_options();
    file_options.pdb = text_or_empty(o.pdb);
    file_options.pe = text_or_empty(o.pe);
    const ilmap::symbols::CompileFileResult r = ilmap::symbols::compile_file(input, output, file_options);
    if (r.outcome == ilmap::symbols::CompileOutcome::kFailed) return report(r.error.code, r.error.message, msg, msg_size);
    // Without `from_directory`, compile_file fails rather than skips; kept for safety.
    if (r.outcome == ilmap::symbols::CompileOutcome::kSkipped)
      return report(Errc::kNotFound, std::string(input) + ": " + r.skipped, msg, msg_size);
    if (result) {
      result->up_to_date = r.outcome == ilmap::symbols::CompileOutcome::kUpToDate ? 1 : 0;
      result->points = r.points;
      result->bytes = r.bytes;
    }
    std::string warnings;
    for (const std::string& w : r.warnings) warnings += (warnings.empty() ? "" : "\n") + w;
    report(Errc::kOk, warnings, msg, msg_size);
    return ILMAP_OK;
  } catch (const std::bad_alloc&) {
    return report(Errc::kIo, "out of memory", msg, msg_size);
  }
}

ilmap_symbolicator* ilmap_symbolicator_open(const ilmap_symbolicator_options* options, int* err, char* msg,
                                            size_t msg_size) {
  auto fail = [&](Errc code, const std::string& message) -> ilmap_symbolicator* {
    const int c = report(code, message, msg, msg_size);
    if (err) *err = c;
    return nullptr;
  };
  try {
    ilmap_symbolicator_options o;
    if (!read_options(options, o)) return fail(Errc::kUsage, "ilmap_symbolicator_open: options->size is not set");
    constexpr unsigned kKnown = ILMAP_SYMBOLICATE_COLUMNS | ILMAP_SYMBOLICATE_URLS | ILMAP_SYMBOLICATE_JSON;
    if (o.flags & ~kKnown) return fail(Errc::kUsage, "ilmap_symbolicator_open: unknown flags");
    if (o.search_count > 0 && !o.search) return fail(Errc::kUsage, "ilmap_symbolicator_open: search is NULL");
    if (o.download_timeout_s < 0) return fail(Errc::kUsage, "ilmap_symbolicator_open: download_timeout_s is negative");
    if (o.msym_dir_count > 0 && !o.msym_dirs) return fail(Errc::kUsage, "ilmap_symbolicator_open: msym_dirs is NULL");
    std::vector<std::string> msym_dirs;
    for (std::size_t i = 0; i < o.msym_dir_count; ++i) {
      if (!o.msym_dirs[i] || !*o.msym_dirs[i]) return fail(Errc::kUsage, "ilmap_symbolicator_open: an empty msym folder");
      msym_dirs.emplace_back(o.msym_dirs[i]);
    }
    ilmap::symbols::ResolveConfig config;  // as `ilmap symbolicate` builds its own
    for (std::size_t i = 0; i < o.search_count; ++i) {
      if (!o.search[i] || !*o.search[i]) return fail(Errc::kUsage, "ilmap_symbolicator_open: an empty search path");
      config.search.emplace_back(o.search[i]);  // none: the current directory
    }
    if (o.cache_dir) config.cache_dir = std::string(o.cache_dir);
    if (o.symbol_path) config.symbol_path = o.symbol_path;
    if (o.download_timeout_s > 0) config.download_timeout_s = o.download_timeout_s;
    config.msym_dirs = std::move(msym_dirs);
    auto index_options = config.module_index_options();
    if (!index_options) return fail(index_options.error().code, "symbol path: " + index_options.error().message);
    // The .msym folders, then the symbol path (as `ilmap symbolicate` finds them).
    auto msym = ilmap::symbolicate::MsymSource::create(config, "msym folder");
    if (!msym) return fail(msym.error().code, msym.error().message);
    auto index = ilmap::symbols::ModuleIndex::create(std::move(*index_options));
    if (!index) return fail(index.error().code, index.error().message);
    auto* s = new ilmap_symbolicator;
    s->index = std::move(*index);
    s->options.columns = (o.flags & ILMAP_SYMBOLICATE_COLUMNS) != 0;
    s->options.urls = (o.flags & ILMAP_SYMBOLICATE_URLS) != 0;
    s->options.json = (o.flags & ILMAP_SYMBOLICATE_JSON) != 0;
    s->msym = std::move(*msym);
    s->options.msym = s->msym.get();
    if (err) *err = ILMAP_OK;
    report(Errc::kOk, "", msg, msg_size);
    return s;
  } catch (const std::bad_alloc&) {
    return fail(Errc::kIo, "out of memory");
  }
}

void ilmap_symbolicator_close(ilmap_symbolicator* symbolicator) { delete symbolicator; }

int ilmap_symbolicate(ilmap_symbolicator* symbolicator, const char* text, size_t len, char** out, size_t* out_len,
                      ilmap_symbolicate_stats* stats) {
  if (!symbolicator || !out || !out_len || (!text && len > 0)) return ILMAP_E_USAGE;
  *out = nullptr;
  *out_len = 0;
  try {
    std::string answer;
    ilmap::symbolicate::Symbolicator s(*symbolicator->index, symbolicator->options,
                                       [&answer](std::string_view piece) { answer.append(piece); });
    if (len > 0) s.text(std::string_view(text, len));
    s.finish();
    char* buffer = static_cast<char*>(std::malloc(answer.size() + 1));
    if (!buffer) return ILMAP_E_IO;
    std::memcpy(buffer, answer.data(), answer.size());
    buffer[answer.size()] = '\0';
    *out = buffer;
    *out_len = answer.size();
    if (stats) {
      const ilmap::symbolicate::SymbolicateStats& st = s.stats();
      stats->lines = st.lines;
      stats->frames = st.frames;
      stats->resolved = st.resolved;
      stats->with_lines = st.with_lines;
    }
    return ILMAP_OK;
  } catch (const std::bad_alloc&) {
    return ILMAP_E_IO;
  }
}

void ilmap_free(void* p) { std::free(p); }

int ilmap_fetch(const char* symbol_path, const char* input, int want_cache, long download_timeout_s, char* path,
                size_t capacity, size_t* path_len, char* msg, size_t msg_size) {
  if (path_len) *path_len = 0;
  if (!symbol_path || !*symbol_path || !input || !*input || (!path && capacity > 0) || download_timeout_s < 0)
    return report(Errc::kUsage, "ilmap_fetch: a symbol path and an input are needed", msg, msg_size);
  try {
    const long timeout = download_timeout_s > 0 ? download_timeout_s : ilmap::symbols::HttpOptions{}.total_timeout_s;
    auto r = ilmap::symbols::resolve_with_symbol_path(symbol_path, input, want_cache != 0, timeout);
    if (!r) return report(r.error().code, r.error().message, msg, msg_size);
    if (path_len) *path_len = r->path.size();
    if (r->path.size() + 1 > capacity)
      return report(Errc::kTooLarge, "ilmap_fetch: the path is " + std::to_string(r->path.size()) + " bytes, more than the buffer holds",
                    msg, msg_size);
    std::memcpy(path, r->path.c_str(), r->path.size() + 1);
    report(Errc::kOk, "", msg, msg_size);
    return ILMAP_OK;
  } catch (const std::bad_alloc&) {
    return report(Errc::kIo, "out of memory", msg, msg_size);
  }
}

int ilmap_find_module(ilmap_symbolicator* symbolicator, int kind, const char* id, size_t id_len, const char* name_hint,
                      const ilmap_cache** cache, char* msg, size_t msg_size) {
  if (cache) *cache = nullptr;
  if (!symbolicator || !cache || (!id && id_len > 0))
    return report(Errc::kUsage, "ilmap_find_module: NULL argument", msg, msg_size);
  try {
    const std::string_view text(id ? id : "", id_len);
    const std::string_view hint = name_hint ? std::string_view(name_hint) : std::string_view();
    ilmap::symbols::ModuleIndex& index = *symbolicator->index;
    const ilmap::symbols::ModuleAnswer* answer = nullptr;
    switch (kind) {
      case ILMAP_MODULE_FILE_NAME:
        answer = &index.by_file_name(text);
        break;
      case ILMAP_MODULE_MVID: {
        const auto mvid = ilmap::parse_guid_text(text);
        if (!mvid) return report(Errc::kUsage, "ilmap_find_module: not a GUID: " + std::string(text), msg, msg_size);
        answer = &index.by_mvid(*mvid);
        break;
      }
      case ILMAP_MODULE_DEBUG_ID:
        if (!ilmap::symbols::parse_debug_id(text))
          return report(Errc::kUsage, "ilmap_find_module: not a debug id: " + std::string(text), msg, msg_size);
        answer = &index.by_debug_id(text, hint);
        break;
      default:
        return report(Errc::kUsage, "ilmap_find_module: unknown kind " + std::to_string(kind), msg, msg_size);
    }
    if (answer->miss != ilmap::symbols::Miss::kNone) {
      const Errc code = answer->miss == ilmap::symbols::Miss::kBadFile ? Errc::kMalformed : Errc::kNotFound;
      std::string why = std::string(text) + ": " + ilmap::symbols::miss_name(answer->miss);
      if (!answer->detail.empty()) why += " (" + answer->detail + ")";
      return report(code, why, msg, msg_size);
    }
    std::unique_ptr<ilmap_cache>& handle = symbolicator->handles[answer->cache];
    if (!handle) handle = std::make_unique<ilmap_cache>(answer->cache);
    *cache = handle.get();
    report(Errc::kOk, "", msg, msg_size);
    return ILMAP_OK;
  } catch (const std::bad_alloc&) {
    return report(Errc::kIo, "out of memory", msg, msg_size);
  }
}

}  // extern "C"
