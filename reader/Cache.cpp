// Cache.cpp - the Cache facade: construction, the small accessors, and change detection. Open is
// in CacheOpen.cpp, lookups in Lookup.cpp, packed sections in Sections.cpp, names in Names.cpp,
// verify in Verify.cpp, identity and embedded sources in Identity.cpp, lines in LineIndex.cpp.
#include "reader/CacheImpl.h"

namespace ilmap {

const char* language_label(Language l) noexcept {
  switch (l) {
    case Language::kCSharp: return "C#";
    case Language::kVisualBasic: return "VB";
    case Language::kFSharp: return "F#";
    case Language::kOther: return "other";
    case Language::kUnknown: break;
  }
  return "unknown";
}

Cache::Cache(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Cache::Cache(Cache&&) noexcept = default;
Cache& Cache::operator=(Cache&&) noexcept = default;
Cache::~Cache() = default;

bool Cache::changed() const noexcept { return impl_->guard.changed(); }
Status Cache::changed_status() const { return impl_->changed_error(); }
Status Cache::changed_status(const std::string& path) {
  return {Errc::kIo, path + ": cache file changed while in use (truncated or rewritten in place)"};
}

bool Cache::file_changed() const noexcept {
  if (impl_->path.empty()) return false;
  platform::FileInfo st;
  if (!platform::stat_path(impl_->path, st)) return false;
  return !(FileStamp::of(st) == impl_->stamp);
}

std::uint32_t Cache::method_count() const noexcept { return impl_->method_rows; }
std::uint32_t Cache::document_count() const noexcept { return impl_->docs_count; }
std::string_view Cache::document_path(std::uint32_t i) const noexcept {
  std::string_view out;
  if (i < impl_->docs_count) (void)impl_->text(impl_->docs[i].path_offset(), impl_->docs[i].path_length(), out);
  return out;
}
std::string_view Cache::document_source_url(std::uint32_t i) const noexcept {
  std::string_view out;
  if (i < impl_->docs_count) (void)impl_->text(impl_->docs[i].url_offset(), impl_->docs[i].url_length(), out);
  return out;
}
Language Cache::document_language(std::uint32_t i) const noexcept {
  return i < impl_->docs_count ? static_cast<Language>(impl_->docs[i].language()) : Language::kUnknown;
}

std::uint64_t Cache::point_count() const noexcept { return impl_->root->point_count(); }
std::uint64_t Cache::hidden_count() const noexcept { return impl_->root->hidden_count(); }
CacheHeaderInfo Cache::header() const noexcept {
  return {impl_->header.version_major, impl_->header.version_minor, impl_->header.payload_size,
          impl_->header.payload_xxh3};
}
std::span<const std::uint8_t> Cache::bytes() const noexcept { return {impl_->data, impl_->size}; }
const void* Cache::root() const noexcept { return impl_->root; }
std::uint64_t Cache::point_section_bytes() const noexcept {
  return impl_->blocks_size + std::uint64_t(impl_->profiles.count) * 8 + impl_->method_rows +
         std::uint64_t(impl_->groups_count) * sizeof(fb::MethodGroup) +
         (std::uint64_t(impl_->method_rows) + impl_->high_count) * 2;
}

}  // namespace ilmap
