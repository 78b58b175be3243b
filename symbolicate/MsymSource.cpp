// MsymSource.cpp - finding and loading `.msym` files (see MsymSource.h).
#include "symbolicate/MsymSource.h"

#include <filesystem>
#include <system_error>

#include "decode/SymstoreKeys.h"
#include "support/Platform.h"
#include "symbols/PackageIngest.h"  // read_plain_file
#include "symbols/SymbolStore.h"

namespace ilmap::symbolicate {
namespace {

bool is_aot_id(std::string_view s) {
  if (s.size() != 32) return false;
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))) return false;
  return true;
}

bool is_regular(const std::string& path) {
  platform::FileInfo st;
  return platform::stat_path(path, st) && st.regular();
}

// The *.msym files directly in `dir` (none when it is no folder), two at most: only whether
// there is exactly one matters.
std::vector<std::string> msym_files(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  std::filesystem::directory_iterator it(platform::fs_path(dir), ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    const std::string name = platform::fs_string(it->path().filename());
    if (name.size() > 5 && name.compare(name.size() - 5, 5, ".msym") == 0) out.push_back(dir + "/" + name);
    if (out.size() > 1) break;
  }
  return out;
}

// `dir`/<AOT id>/`file` for the AOT ids other than the frame's: exactly one, or none (several
// AOT compilations of the assembly lie there: which one ran is unknown).
std::string only_other_aot_run(const std::string& dir, std::string_view aot_id, const std::string& file) {
  std::string found;
  std::error_code ec;
  std::filesystem::directory_iterator it(platform::fs_path(dir), ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    const std::string id = platform::fs_string(it->path().filename());
    if (!is_aot_id(id) || id == aot_id) continue;
    const std::string candidate = dir + "/" + id + "/" + file;
    if (!is_regular(candidate)) continue;
    if (!found.empty()) return {};
    found = candidate;
  }
  return found;
}

}  // namespace

// docs/msym.md section 3, steps 1-4, folder by folder.
std::string MsymSource::locate(std::string_view aot_id, std::string_view pe_name) const {
  // A PE name from the module index is a file name; one with a separator is not used.
  const bool named = !pe_name.empty() && pe_name.find_first_of("/\\") == std::string_view::npos;
  for (const std::string& dir : dirs_) {
    const std::string folder = dir + "/" + std::string(aot_id);
    if (named && is_regular(folder + "/" + std::string(pe_name) + ".msym")) return folder + "/" + std::string(pe_name) + ".msym";
    // The module's PE unknown (a cache compiled from the PDB alone): the folder's only .msym.
    if (!named) {
      const auto all = msym_files(folder);
      if (all.size() == 1) return all[0];
      continue;
    }
    // A symbol store (`ilmap store add` of an msym folder): NAME.msym/AOTID/NAME.msym, in
    // either store layout, names compared without case.
    const std::string key = ssqp_msym_key(std::string(pe_name) + ".msym", aot_id);
    if (auto found = symbols::SymbolStore(dir).find(key)) return *found;
    // The runtime prints the program's AOT id in every frame, also in those of a library
    // compiled ahead of time in another run, whose .msym lies under that run's id.
    // The same in a (one-tier) store: NAME.msym/<other AOT id>/NAME.msym.
    const std::string name = std::string(pe_name) + ".msym";
    if (std::string other = only_other_aot_run(dir, aot_id, name); !other.empty()) return other;
    const std::string lower = symstore_file_name(name);
    if (std::string other = only_other_aot_run(dir + "/" + lower, aot_id, lower); !other.empty()) return other;
  }
  // The symbol path: its stores and servers, by the store key (a server's copy is kept in the
  // entry's cache; a file that does not decode is refused there, and the next source asked).
  if (named && remote_) {
    auto got = remote_->resolve(symbols::msym_identity(pe_name, aot_id));
    if (got) return got->path;
    if (note_) note_("symbol path: " + got.error().message);
  }
  return {};
}

Result<std::unique_ptr<MsymSource>> MsymSource::create(const symbols::ResolveConfig& config, std::string_view what,
                                                       long miss_ttl_s) {
  if (Status st = check_dirs(config.msym_dirs, what); !st) return st.error();
  auto remote = config.symbol_path_resolver(MsymFile::kMaxFileSize);  // a larger download stops there
  if (!remote) return remote.error();
  auto source = std::make_unique<MsymSource>(config.msym_dirs, config.note, miss_ttl_s);
  source->remote_ = std::move(*remote);
  return source;
}

const MsymFile* MsymSource::load(const std::string& path, Miss& miss) {
  auto it = files_.find(path);
  if (it == files_.end()) {
    std::unique_ptr<MsymFile> file;
    auto bytes = symbols::read_plain_file(path, MsymFile::kMaxFileSize);
    Result<MsymFile> f = bytes ? MsymFile::parse(*bytes) : Result<MsymFile>(bytes.error());
    if (f) {
      file = std::make_unique<MsymFile>(std::move(*f));
      if (note_) note_(path + ": " + std::to_string(file->entries().size()) + " methods of AOT sequence points");
    } else if (note_) {
      note_(path + ": not used: " + f.error().message);
    }
    it = files_.emplace(path, std::move(file)).first;
  }
  miss = it->second ? Miss::kNone : Miss::kBad;
  return it->second.get();
}

Status MsymSource::check_dirs(const std::vector<std::string>& dirs, std::string_view what) {
  for (const std::string& d : dirs) {
    platform::FileInfo st;
    if (!platform::stat_path(d, st)) return {Errc::kNotFound, std::string(what) + " " + d + ": no such directory"};
    if (!st.directory()) return {Errc::kNotFound, std::string(what) + " " + d + ": not a directory"};
  }
  return {};
}

const MsymFile* MsymSource::find(std::string_view aot_id, std::string_view pe_name, Miss& miss) {
  if (!is_aot_id(aot_id)) {
    miss = Miss::kNoAotId;
    return nullptr;
  }
  std::string key = std::string(aot_id) + "/" + std::string(pe_name);
  const std::lock_guard<std::mutex> lock(mutex_);
  const auto now = std::chrono::steady_clock::now();
  auto it = chosen_.find(key);
  // A remembered miss expires after miss_ttl_s_: the folder may have gained the file since.
  if (it != chosen_.end() && it->second.path.empty() && miss_ttl_s_ >= 0 &&
      now - it->second.when >= std::chrono::seconds(miss_ttl_s_)) {
    chosen_.erase(it);
    it = chosen_.end();
  }
  if (it == chosen_.end()) {
    std::string path = locate(aot_id, pe_name);
    if (path.empty() && note_) note_("no .msym for AOT id " + std::string(aot_id) + " and " + std::string(pe_name));
    // AOT ids come from the trace: past kMaxChoices distinct ones, answers are not remembered.
    if (chosen_.size() >= kMaxChoices) {
      if (path.empty()) {
        miss = Miss::kNotFound;
        return nullptr;
      }
      return load(path, miss);
    }
    it = chosen_.emplace(std::move(key), Choice{std::move(path), now}).first;
  }
  if (it->second.path.empty()) {
    miss = Miss::kNotFound;
    return nullptr;
  }
  return load(it->second.path, miss);
}

}  // namespace ilmap::symbolicate
