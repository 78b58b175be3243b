// Names.cpp - method names (SPEC.md 3.6), the name index and name lookup (6.1), verify step 11.
#include <xxhash.h>

#include <algorithm>
#include <string>
#include <vector>

#include "ilmap/method_key.h"
#include "reader/CacheImpl.h"

namespace ilmap {

// SPEC.md section 7, verify step 11.
Status Cache::Impl::verify_names() const {
  if (!names) return {};
  if (!(names->methods() || names->methods_zstd()) || !(names->strings() || names->strings_zstd()))
    return {Errc::kMalformed, CacheStructure::kNames, "names: methods or strings missing"};
  for (const Section* sec : {&name_methods_section, &name_strings_section}) {
    if (sec->packed && !bytes_of(*sec).ok) return sec->failure;
  }
  if (const std::size_t n = bytes_of(name_methods_section).size; n % sizeof(fb::MethodNameRef))
    return {Errc::kMalformed, CacheStructure::kNames, format("names: methods (methods_zstd) unpacks to %zu bytes, not a whole number of %zu-byte method refs",
                                     n, sizeof(fb::MethodNameRef))};
  const fb::MethodNameRef* refs;
  const std::uint32_t count = name_refs(refs);
  for (std::uint32_t i = 0; i < count; ++i) {
    const fb::MethodNameRef& m = refs[i];
    std::string_view t;
    if (!name_text(m.coreclr_offset(), m.coreclr_length(), t) || !name_text(m.mono_offset(), m.mono_length(), t) ||
        !name_text(m.key_offset(), m.key_length(), t))
      return {Errc::kMalformed, CacheStructure::kNames, format("names: method 0x%08x: a text range lies outside the string bytes", 0x06000001u + i)};
    if (m.flags() & ~d::kNameFlagsMask)
      return {Errc::kMalformed, CacheStructure::kNames, format("names: method 0x%08x: unknown flags 0x%x", 0x06000001u + i, m.flags())};
    if (m.kickoff() ? !name_ref(m.kickoff()) : (m.flags() & d::kNameIterator) != 0)
      return {Errc::kMalformed, CacheStructure::kNames, format("names: method 0x%08x: kickoff 0x%08x is not a method of the section", 0x06000001u + i, m.kickoff())};
  }
  return {};
}

// The name index of SPEC.md 6.1, derived from the method refs on first use: one entry per
// method under its own key, one alias entry per method with a kickoff under the kickoff's key,
// sorted by (hash, token, flags). A method whose key (or kickoff) is not valid has no entry (a
// lookup would skip it at the confirm step anyway). Built once, under the mutex, and published
// with release/acquire like the unpacked sections; concurrent first users wait for it.
const std::vector<fb::NameIndexEntry>& Cache::Impl::name_index() const {
  if (const auto* ready = name_index_ready.load(std::memory_order_acquire)) return *ready;
  // Unpack what the index reads first: unpacking takes the same (non-recursive) mutex.
  const fb::MethodNameRef* refs;
  const std::uint32_t count = name_refs(refs);
  (void)bytes_of(name_strings_section);
  std::lock_guard<std::mutex> lock(unpack_mutex);
  if (const auto* ready = name_index_ready.load(std::memory_order_acquire)) return *ready;
  std::vector<fb::NameIndexEntry> index;
  try {
    index.reserve(count);
    for (std::uint32_t i = 0; i < count; ++i) {
      const fb::MethodNameRef& m = refs[i];
      const std::uint32_t token = 0x06000001u + i;
      std::string_view key;
      if (name_text(m.key_offset(), m.key_length(), key)) index.emplace_back(XXH3_64bits(key.data(), key.size()), token, 0u);
      const fb::MethodNameRef* k = m.kickoff() ? name_ref(m.kickoff()) : nullptr;
      if (k && name_text(k->key_offset(), k->key_length(), key))
        index.emplace_back(XXH3_64bits(key.data(), key.size()), token, std::uint32_t(d::kIndexAlias));
    }
  } catch (const std::bad_alloc&) {
    index.clear();  // out of memory: no name answers, rather than a crash
  }
  std::sort(index.begin(), index.end(), [](const fb::NameIndexEntry& a, const fb::NameIndexEntry& b) {
    if (a.hash() != b.hash()) return a.hash() < b.hash();
    if (a.token() != b.token()) return a.token() < b.token();
    return a.flags() < b.flags();
  });
  name_index_built = std::move(index);
  name_index_ready.store(&name_index_built, std::memory_order_release);
  return name_index_built;
}

bool Cache::has_method_names() const noexcept { return impl_->names != nullptr; }

Status Cache::method_names_status() const {
  const Impl& m = *impl_;
  Status s;
  if (m.names)
    for (const Impl::Section* sec : {&m.name_methods_section, &m.name_strings_section})
      if (!m.bytes_of(*sec).ok) {
        s = sec->failure;
        break;
      }
  if (changed()) return changed_status();
  return s;
}
std::uint32_t Cache::method_name_count() const noexcept {
  const fb::MethodNameRef* refs;
  return impl_->name_refs(refs);
}

std::optional<MethodNameView> Cache::method_name(std::uint32_t token) const noexcept {
  const fb::MethodNameRef* m = impl_->name_ref(token);
  if (!m) return std::nullopt;
  MethodNameView v;
  if (!impl_->name_text(m->coreclr_offset(), m->coreclr_length(), v.coreclr) ||
      !impl_->name_text(m->mono_offset(), m->mono_length(), v.mono))
    return std::nullopt;
  v.kickoff = m->kickoff();
  v.iterator = (m->flags() & d::kNameIterator) != 0;
  v.bad_signature = (m->flags() & d::kNameBadSignature) != 0;
  if (changed()) return std::nullopt;
  return v;
}

std::size_t Cache::find_methods(std::string_view full_name, std::vector<std::uint32_t>& tokens) const {
  tokens.clear();
  const Impl& m = *impl_;
  const std::uint64_t h = XXH3_64bits(full_name.data(), full_name.size());
  if (!m.names) return 0;
  const std::vector<fb::NameIndexEntry>& index = m.name_index();
  const fb::NameIndexEntry* const end = index.data() + index.size();
  const fb::NameIndexEntry* it = std::lower_bound(index.data(), end, h,
      [](const fb::NameIndexEntry& e, std::uint64_t k) { return e.hash() < k; });
  for (; it != end && it->hash() == h; ++it) {
    std::string_view key;  // confirm: the stored key must equal the name
    if (m.entry_key(*it, key) && key == full_name) tokens.push_back(it->token());
  }
  std::sort(tokens.begin(), tokens.end());
  tokens.erase(std::unique(tokens.begin(), tokens.end()), tokens.end());
  if (changed()) tokens.clear();
  return tokens.size();
}

std::string method_name_key(std::string_view printed) {
  if (const std::size_t paren = printed.find('('); paren != std::string_view::npos) {
    printed = printed.substr(0, paren);
    if (!printed.empty() && printed.back() == ' ') printed.remove_suffix(1);
  }
  std::string key;
  key.reserve(printed.size());
  int depth = 0;
  for (char c : printed) {
    if (c == '[') ++depth;
    else if (c == ']') depth = depth > 0 ? depth - 1 : 0;
    else if (depth == 0) key += c == '+' ? '.' : c;
  }
  return key;
}

std::size_t Cache::state_machine_methods(std::uint32_t kickoff, std::vector<std::uint32_t>& tokens) const {
  tokens.clear();
  const auto name = method_name(kickoff);
  if (!name || name->kickoff != 0) return 0;
  // State-machine methods are indexed under their kickoff method's key too.
  const std::string key = method_name_key(name->coreclr);
  std::vector<std::uint32_t> found;
  find_methods(key, found);
  for (std::uint32_t t : found)
    if (const auto m = method_name(t); m && m->kickoff == kickoff) tokens.push_back(t);
  if (changed()) tokens.clear();
  return tokens.size();
}

// SPEC.md 6.4. The token's own answer first: a kickoff stub's frame (the runtime prints it
// too, under the same token) is answered from the stub's points, and C# stubs have none, so a
// state machine's frame falls through to its methods. The methods that answer must agree,
// since an offset of one method says nothing about another's (an iterator's MoveNext and its
// finally methods both have points).
FrameAnswer Cache::lookup_frame(std::uint32_t token, std::uint32_t il_offset, std::string_view printed,
                                std::vector<std::uint32_t>& scratch) const {
  FrameAnswer a;
  a.result = lookup(token, il_offset);
  if (a.result || state_machine_methods(token, scratch) == 0) return a;
  for (std::uint32_t t : scratch) {
    if (!printed.empty()) {
      const auto m = method_name(t);
      if (!m || m->coreclr != printed) continue;
    }
    const auto r = lookup(t, il_offset);
    if (!r) continue;
    if (!a.result) {
      a.result = r;
      a.state_machine_method = t;
    } else if (a.result->file != r->file || a.result->line != r->line || a.result->column != r->column) {
      return {};  // the methods disagree: no answer
    }
  }
  return a;
}

std::optional<std::array<std::uint8_t, 16>> Cache::mvid() const noexcept {
  const fb::Guid* g = impl_->names ? impl_->names->mvid() : nullptr;
  if (!g && impl_->root->identity()) g = impl_->root->identity()->mvid();
  if (!g) return std::nullopt;
  std::array<std::uint8_t, 16> out{};
  std::copy(g->bytes()->begin(), g->bytes()->end(), out.begin());
  return out;
}

std::string_view Cache::assembly_name() const noexcept {
  const auto* s = impl_->names ? impl_->names->assembly_name() : nullptr;
  return s ? std::string_view(s->data(), s->size()) : std::string_view();
}

std::string_view Cache::module_name() const noexcept {
  const auto* s = impl_->names ? impl_->names->module_name() : nullptr;
  return s ? std::string_view(s->data(), s->size()) : std::string_view();
}

}  // namespace ilmap
