// ReaderCApi.cpp - the extern "C" face of the reader (include/ilmap/ilmap.h); capi/CApi.cpp is the rest.
#include "ilmap/ilmap.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <new>
#include <string_view>
#include <vector>

#include "ilmap/cache.h"
#include "reader/CApiHandle.h"

namespace {

// The C API's structure values are ilmap::CacheStructure's (both pinned): a change to either
// breaks the build here rather than a program that compares the numbers.
using CS = ilmap::CacheStructure;
static_assert(ILMAP_STRUCTURE_NONE == int(CS::kNone) && ILMAP_STRUCTURE_HEADER == int(CS::kHeader) &&
              ILMAP_STRUCTURE_PAYLOAD == int(CS::kPayload) && ILMAP_STRUCTURE_METHOD_DIRECTORY == int(CS::kMethodDirectory) &&
              ILMAP_STRUCTURE_BLOCK_PROFILES == int(CS::kBlockProfiles) && ILMAP_STRUCTURE_POINT_BLOCKS == int(CS::kPointBlocks) &&
              ILMAP_STRUCTURE_HIDDEN_POINTS == int(CS::kHiddenPoints) && ILMAP_STRUCTURE_DOCUMENTS == int(CS::kDocuments) &&
              ILMAP_STRUCTURE_STRINGS == int(CS::kStrings) && ILMAP_STRUCTURE_DETAILS == int(CS::kDetails) &&
              ILMAP_STRUCTURE_IDENTITY == int(CS::kIdentity) && ILMAP_STRUCTURE_NAMES == int(CS::kNames) &&
              ILMAP_STRUCTURE_LINE_INDEX == int(CS::kLineIndex),
              "ilmap.h's ilmap_structure and ilmap::CacheStructure disagree");

void set_error(const ilmap::Error& e, int* err, char* msg, size_t msg_size, int* structure = nullptr) {
  if (err) *err = static_cast<int>(e.code);
  if (structure) *structure = static_cast<int>(e.structure);
  if (msg && msg_size > 0) {
    const size_t n = std::min(msg_size - 1, e.message.size());
    std::memcpy(msg, e.message.data(), n);
    msg[n] = '\0';
  }
}

ilmap_cache* wrap(ilmap::Result<ilmap::Cache> r, int* err, int* structure, char* msg, size_t msg_size) {
  if (!r) {
    set_error(r.error(), err, msg, msg_size, structure);
    return nullptr;
  }
  auto* c = new (std::nothrow) ilmap_cache(std::move(*r));
  if (!c) {
    set_error({ilmap::Errc::kIo, "out of memory"}, err, msg, msg_size, structure);
    return nullptr;
  }
  if (err) *err = ILMAP_OK;
  if (structure) *structure = ILMAP_STRUCTURE_NONE;
  if (msg && msg_size > 0) msg[0] = '\0';
  return c;
}

int fill(const std::optional<ilmap::LookupResult>& r, ilmap_location* out) {
  if (!r || !out) return 0;
  out->file = r->file.data();
  out->file_len = r->file.size();
  out->url = r->source_url.empty() ? nullptr : r->source_url.data();
  out->url_len = r->source_url.size();
  out->language = ilmap::language_label(r->language);
  out->line = r->line;
  out->column = r->column;
  out->end_line = r->end_line;
  out->end_column = r->end_column;
  out->il_offset = r->il_offset;
  return 1;
}

// A string of the identity section for the C API: NULL when absent or empty.
const char* identity_text(const ilmap_cache* cache, std::string_view ilmap::CacheIdentity::*field, size_t* len) {
  if (!cache) return nullptr;
  try {
    const std::string_view s = cache->cache->identity().*field;
    if (s.empty()) return nullptr;
    if (len) *len = s.size();
    return s.data();
  } catch (...) {  // allocation failure
    return nullptr;
  }
}

}  // namespace

extern "C" {

ilmap_cache* ilmap_open(const char* path, int* err, char* msg, size_t msg_size) {
  return ilmap_open_ex(path, ILMAP_OPEN_MAP, err, msg, msg_size);
}

ilmap_cache* ilmap_open_ex(const char* path, unsigned flags, int* err, char* msg, size_t msg_size) {
  return ilmap_open_ex2(path, flags, err, nullptr, msg, msg_size);
}

ilmap_cache* ilmap_open_ex2(const char* path, unsigned flags, int* err, int* structure, char* msg, size_t msg_size) {
  if (!path) {
    set_error({ilmap::Errc::kUsage, "path is NULL"}, err, msg, msg_size, structure);
    return nullptr;
  }
  if (flags & ~static_cast<unsigned>(ILMAP_OPEN_READ)) {
    set_error({ilmap::Errc::kUsage, "unknown open flags"}, err, msg, msg_size, structure);
    return nullptr;
  }
  try {
    ilmap::CacheOpenOptions options;
    options.read_into_memory = (flags & ILMAP_OPEN_READ) != 0;
    return wrap(ilmap::Cache::open(path, options), err, structure, msg, msg_size);
  } catch (...) {  // allocation failure: never let an exception cross the C boundary
    set_error({ilmap::Errc::kIo, "out of memory"}, err, msg, msg_size, structure);
    return nullptr;
  }
}

ilmap_cache* ilmap_open_bytes(const void* data, size_t size, int* err, char* msg, size_t msg_size) {
  return ilmap_open_bytes_ex(data, size, err, nullptr, msg, msg_size);
}

ilmap_cache* ilmap_open_bytes_ex(const void* data, size_t size, int* err, int* structure, char* msg, size_t msg_size) {
  if (!data && size) {
    set_error({ilmap::Errc::kUsage, "data is NULL"}, err, msg, msg_size, structure);
    return nullptr;
  }
  try {
    return wrap(ilmap::Cache::from_bytes({static_cast<const std::uint8_t*>(data), size}), err, structure, msg, msg_size);
  } catch (...) {
    set_error({ilmap::Errc::kIo, "out of memory"}, err, msg, msg_size, structure);
    return nullptr;
  }
}

void ilmap_close(ilmap_cache* cache) {
  if (cache && cache->owned) delete cache;  // a borrowed one (ilmap_find_module) is its symbolicator's
}

int ilmap_lookup(const ilmap_cache* cache, uint32_t token, uint32_t il_offset, ilmap_location* out) {
  return cache ? fill(cache->cache->lookup(token, il_offset), out) : 0;
}

int ilmap_lookup_row(const ilmap_cache* cache, uint32_t row, uint32_t il_offset, ilmap_location* out) {
  return cache ? fill(cache->cache->lookup_row(row, il_offset), out) : 0;
}

int ilmap_locate(const ilmap_cache* cache, uint32_t token, uint32_t il_offset, ilmap_location* out) {
  if (!cache || !out) return ILMAP_E_USAGE;
  if (fill(cache->cache->lookup(token, il_offset), out)) return ILMAP_OK;
  return cache->cache->changed() ? ILMAP_E_IO : ILMAP_E_NOT_FOUND;
}

int ilmap_locate_row(const ilmap_cache* cache, uint32_t row, uint32_t il_offset, ilmap_location* out) {
  if (!cache || !out) return ILMAP_E_USAGE;
  if (fill(cache->cache->lookup_row(row, il_offset), out)) return ILMAP_OK;
  return cache->cache->changed() ? ILMAP_E_IO : ILMAP_E_NOT_FOUND;
}

int ilmap_locate_frame(const ilmap_cache* cache, uint32_t token, uint32_t il_offset, const char* printed,
                       size_t printed_len, ilmap_location* out, uint32_t* state_machine_method) {
  if (state_machine_method) *state_machine_method = 0;
  if (!cache || !out || (!printed && printed_len)) return ILMAP_E_USAGE;
  try {
    std::vector<std::uint32_t> scratch;
    const ilmap::FrameAnswer a =
        cache->cache->lookup_frame(token, il_offset, printed ? std::string_view(printed, printed_len) : std::string_view{}, scratch);
    if (fill(a.result, out)) {
      if (state_machine_method) *state_machine_method = a.state_machine_method;
      return ILMAP_OK;
    }
  } catch (...) {
    return ILMAP_E_IO;  // out of memory for the state machine's method list
  }
  return cache->cache->changed() ? ILMAP_E_IO : ILMAP_E_NOT_FOUND;
}

int ilmap_verify(const ilmap_cache* cache, char* msg, size_t msg_size) { return ilmap_verify_ex(cache, nullptr, msg, msg_size); }

int ilmap_verify_ex(const ilmap_cache* cache, int* structure, char* msg, size_t msg_size) {
  if (structure) *structure = ILMAP_STRUCTURE_NONE;
  if (!cache) return ILMAP_E_USAGE;
  try {
    ilmap::Status s = cache->cache->verify();
    int code = ILMAP_OK;
    set_error(s.ok() ? ilmap::Error{} : s.error(), &code, msg, msg_size, structure);
    return code;
  } catch (...) {
    return ILMAP_E_IO;
  }
}

int ilmap_install_mapping_guard(void) { return ilmap::install_mapping_guard() ? 1 : 0; }
int ilmap_changed(const ilmap_cache* cache) { return cache && cache->cache->changed() ? 1 : 0; }
int ilmap_file_changed(const ilmap_cache* cache) { return cache && cache->cache->file_changed() ? 1 : 0; }

int ilmap_method_name(const ilmap_cache* cache, uint32_t token, int flavor, const char** text, size_t* len) {
  if (!cache || !text || !len || (flavor != ILMAP_NAME_CORECLR && flavor != ILMAP_NAME_MONO)) return 0;
  auto m = cache->cache->method_name(token);
  if (!m) return 0;
  const std::string_view t = flavor == ILMAP_NAME_MONO ? m->mono : m->coreclr;
  *text = t.data();
  *len = t.size();
  return 1;
}

size_t ilmap_find_method(const ilmap_cache* cache, const char* name, size_t name_len, uint32_t* tokens,
                         size_t capacity) {
  if (!cache || (!name && name_len) || (!tokens && capacity)) return 0;
  try {
    std::vector<std::uint32_t> found;
    cache->cache->find_methods(std::string_view(name ? name : "", name_len), found);
    for (size_t i = 0; i < found.size() && i < capacity; ++i) tokens[i] = found[i];
    return found.size();
  } catch (...) {  // allocation failure
    return 0;
  }
}

uint32_t ilmap_method_name_count(const ilmap_cache* cache) { return cache ? cache->cache->method_name_count() : 0; }

int ilmap_mvid(const ilmap_cache* cache, uint8_t out[16]) {
  if (!cache || !out) return 0;
  auto g = cache->cache->mvid();
  if (!g) return 0;
  std::memcpy(out, g->data(), 16);
  return 1;
}

const char* ilmap_assembly_name(const ilmap_cache* cache, size_t* len) {
  if (!cache) return nullptr;
  const std::string_view s = cache->cache->assembly_name();
  if (s.data() == nullptr) return nullptr;
  if (len) *len = s.size();
  return s.data();
}

// --- module identity (SPEC.md 3.2), documents, embedded sources (3.4) ---
int ilmap_pdb_id(const ilmap_cache* cache, uint8_t out[20]) {
  if (!cache || !out) return 0;
  try {
    const auto id = cache->cache->identity().pdb_id;
    if (!id) return 0;
    std::memcpy(out, id->data(), 20);
    return 1;
  } catch (...) {  // allocation failure
    return 0;
  }
}

const char* ilmap_debug_id(const ilmap_cache* cache, size_t* len) {
  return identity_text(cache, &ilmap::CacheIdentity::debug_id, len);
}
const char* ilmap_pdb_key(const ilmap_cache* cache, size_t* len) {
  return identity_text(cache, &ilmap::CacheIdentity::pdb_key, len);
}
const char* ilmap_pe_name(const ilmap_cache* cache, size_t* len) {
  return identity_text(cache, &ilmap::CacheIdentity::pe_name, len);
}
const char* ilmap_pe_key(const ilmap_cache* cache, size_t* len) {
  return identity_text(cache, &ilmap::CacheIdentity::pe_key, len);
}
const char* ilmap_code_id(const ilmap_cache* cache, size_t* len) {
  return identity_text(cache, &ilmap::CacheIdentity::code_id, len);
}
const char* ilmap_compiler_version(const ilmap_cache* cache, size_t* len) {
  return identity_text(cache, &ilmap::CacheIdentity::compiler_version, len);
}

uint32_t ilmap_document_count(const ilmap_cache* cache) { return cache ? cache->cache->document_count() : 0; }

const char* ilmap_document_path(const ilmap_cache* cache, uint32_t document, size_t* len) {
  if (!cache || document >= cache->cache->document_count()) return nullptr;
  const std::string_view s = cache->cache->document_path(document);
  if (len) *len = s.size();
  return s.data() ? s.data() : "";
}

int ilmap_embedded_source(const ilmap_cache* cache, uint32_t document, char* out, size_t capacity, size_t* size,
                          char* msg, size_t msg_size) {
  if (size) *size = 0;
  if (msg && msg_size > 0) msg[0] = '\0';
  if (!cache || (!out && capacity)) {
    set_error({ilmap::Errc::kUsage, "ilmap_embedded_source: NULL argument"}, nullptr, msg, msg_size);
    return ILMAP_E_USAGE;
  }
  int code = ILMAP_OK;
  try {
    auto n = cache->cache->embedded_source_size(document);
    if (!n) {
      set_error(n.error(), &code, msg, msg_size);
      return code;
    }
    if (*n > SIZE_MAX) {
      set_error({ilmap::Errc::kTooLarge, ilmap::format("embedded source of document %u: more bytes than size_t holds", document)},
                &code, msg, msg_size);
      return code;
    }
    if (size) *size = static_cast<size_t>(*n);
    if (*n > capacity) return ILMAP_OK;
    // The text fits the caller's buffer, which bounds what is unpacked.
    auto text = cache->cache->embedded_source(document, *n);
    if (!text) {
      if (size) *size = 0;
      set_error(text.error(), &code, msg, msg_size);
      return code;
    }
    if (!text->empty()) std::memcpy(out, text->data(), text->size());
    return ILMAP_OK;
  } catch (...) {  // allocation failure
    if (size) *size = 0;
    set_error({ilmap::Errc::kIo, "out of memory"}, &code, msg, msg_size);
    return code;
  }
}

uint32_t ilmap_method_count(const ilmap_cache* cache) { return cache ? cache->cache->method_count() : 0; }
uint64_t ilmap_point_count(const ilmap_cache* cache) { return cache ? cache->cache->point_count() : 0; }

// --- reverse line lookup (SPEC.md 6.2, 6.3) ---
int ilmap_has_line_index(const ilmap_cache* cache) { return cache ? 1 : 0; }  // deprecated: open requires the index

int ilmap_lines(const ilmap_cache* cache, const char* document, size_t document_len, uint32_t line, uint32_t column,
                ilmap_line_match* out, size_t capacity, size_t* count, char* msg, size_t msg_size) {
  return ilmap_lines_rule(cache, document, document_len, line, column, ILMAP_LINES_DEBUGGER, out, capacity, count, msg, msg_size);
}

int ilmap_lines_rule(const ilmap_cache* cache, const char* document, size_t document_len, uint32_t line, uint32_t column,
                     int rule, ilmap_line_match* out, size_t capacity, size_t* count, char* msg, size_t msg_size) {
  if (count) *count = 0;
  if (msg && msg_size > 0) msg[0] = '\0';
  if (!cache || (!document && document_len) || (!out && capacity)) {
    set_error({ilmap::Errc::kUsage, "ilmap_lines: NULL argument"}, nullptr, msg, msg_size);
    return ILMAP_E_USAGE;
  }
  if (rule != ILMAP_LINES_DEBUGGER && rule != ILMAP_LINES_ALL_METHODS) {
    set_error({ilmap::Errc::kUsage, "ilmap_lines_rule: unknown rule"}, nullptr, msg, msg_size);
    return ILMAP_E_USAGE;
  }
  try {
    std::vector<ilmap::LineMatch> found;
    ilmap::Status s = cache->cache->lines(std::string_view(document ? document : "", document_len), line, column, found,
                                          rule == ILMAP_LINES_ALL_METHODS ? ilmap::LineRule::kAllMethods : ilmap::LineRule::kDebugger);
    if (!s) {
      set_error(s.error(), nullptr, msg, msg_size);
      return static_cast<int>(s.error().code);
    }
    for (size_t i = 0; i < found.size() && i < capacity; ++i) {
      const ilmap::LineMatch& m = found[i];
      const std::string_view path = cache->cache->document_path(m.document);
      out[i] = {m.token, m.il_offset, m.document, m.line, m.column, m.end_line, m.end_column, path.data(), path.size()};
    }
    if (count) *count = found.size();
    return ILMAP_OK;
  } catch (...) {  // allocation failure
    set_error({ilmap::Errc::kIo, "out of memory"}, nullptr, msg, msg_size);
    return ILMAP_E_IO;
  }
}

}  // extern "C"
