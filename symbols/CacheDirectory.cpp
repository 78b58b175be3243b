// CacheDirectory.cpp - see CacheDirectory.h.
#include "symbols/CacheDirectory.h"

#include <filesystem>

#include "compiler/CompileModule.h"
#include "decode/SymstoreKeys.h"
#include "symbols/ModuleIdentity.h"
#include "symbols/StoreIngest.h"
#include "support/AtomicFile.h"
#include "support/Platform.h"

namespace ilmap::symbols {

namespace fs = std::filesystem;

Result<std::string> CacheDirectory::path_for_key(const std::string& pdb_key) const {
  const std::string key = cache_key_for(pdb_key);
  if (Status s = validate_key(pdb_key); !s) return s.error();
  if (Status s = validate_key(key); !s) return s.error();
  if (opt_.dir.empty()) return std::string();
  return opt_.dir + "/" + key;
}

Result<std::string> CacheDirectory::portable_path(std::string_view pdb_name, const Guid& guid) const {
  return path_for_key(ssqp_portable_pdb_key(pdb_name, guid));
}

Result<std::string> CacheDirectory::windows_path(std::string_view pdb_name, const Guid& guid, std::uint32_t age) const {
  return path_for_key(ssqp_windows_pdb_key(pdb_name, guid, age));
}

KeyedLocks::Guard CacheDirectory::hold(const std::string& path) const {
  if (!opt_.single_flight || path.empty()) return {};
  return opt_.single_flight->lock(path);
}

std::optional<Cache> CacheDirectory::reuse(const std::string& path, const std::array<std::uint8_t, 20>& pdb_id,
                                           bool need_names) const {
  std::error_code ec;
  if (path.empty() || !fs::is_regular_file(platform::fs_path(path), ec)) return std::nullopt;
  if (!check_cache(path, pdb_id)) {
    note(path + ": not reused (does not verify or records another PDB id)");
    return std::nullopt;
  }
  auto c = Cache::open(path);
  if (!c || (need_names && !c->has_method_names()) || !has_sources_wanted(*c)) return std::nullopt;
  if (opt_.touch_reused) fs::last_write_time(platform::fs_path(path), fs::file_time_type::clock::now(), ec);
  note("reused " + path);
  return std::move(*c);
}

Result<CacheDirectory::Compiled> CacheDirectory::compile(const DebugInput& in, std::span<const std::uint8_t> pe_bytes,
                                                         const std::string& path) const {
  ModuleSource module = module_source(in);
  if (!pe_bytes.empty()) add_method_names(module, pe_bytes, in.path);
  for (const std::string& w : module.warnings) note(w);
  CacheBuildOptions build_options;
  build_options.zstd_level = 3;
  build_options.embed_sources = opt_.embed_sources;
  auto bytes = compile_module(module, build_options);
  if (!bytes) return Error{bytes.error().code, in.path + ": " + bytes.error().message};
  std::error_code ec;
  if (!path.empty()) fs::create_directories(platform::fs_path(path).parent_path(), ec);
  const Status s = path.empty() ? Status{} : write_file_atomically(path, bytes->span(), false);
  if (!s) note("cannot write " + path + ": " + s.error().message);
  const bool written = !path.empty() && s;  // else answered from memory
  auto c = written ? Cache::open(path) : Cache::from_bytes(bytes->span());
  if (!c) return written ? Error{c.error().code, path + ": " + c.error().message} : c.error();
  note("compiled " + in.path + " -> " + path);
  return Compiled{std::move(*c), written ? path : std::string()};
}

}  // namespace ilmap::symbols
