// MsymSource.h - the `.msym` files of `--msym-dir` folders, found by AOT id and module, each
// read and decoded once (docs/msym.md section 3).
//
// A folder holds DIR/<AOTID>/<Assembly>.msym, as `mono --aot=msym-dir=DIR` writes it, or is a
// symbol store that `ilmap store add` filled: NAME.msym/<aotid>/NAME.msym. For a frame's AOT id
// and the module's PE file name NAME, the folders are tried in order (docs/msym.md section 3):
// DIR/AOTID/NAME.msym; the store key; the one DIR/<other AOT id>/NAME.msym (a library compiled
// in another AOT run: the runtime prints the program's AOT id in its frames too). Without a PE
// name: the one *.msym of DIR/AOTID. When no folder has it, the symbol path's stores and servers
// are asked for the store key (ModuleResolver: downloads kept in the entry's cache, 404s
// remembered). The AOT id comes from trace text: it is
// used only when it is 32 hex digits, so no text makes a path. A file that does not decode is
// remembered as bad (one note), never an error of the trace.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "decode/MsymFile.h"
#include "ilmap/status.h"
#include "symbols/ModuleResolver.h"
#include "symbols/ResolveConfig.h"

namespace ilmap::symbolicate {

class MsymSource {
 public:
  enum class Miss : std::uint8_t { kNone, kNoAotId, kNotFound, kBad };

  // `miss_ttl_s`: how long "no .msym for this AOT id and module" is remembered; -1 for ever (a
  // command's one run), else seconds (a service, whose folders gain the files of new builds).
  explicit MsymSource(std::vector<std::string> dirs, std::function<void(const std::string&)> note = {},
                      long miss_ttl_s = -1)
      : dirs_(std::move(dirs)), note_(std::move(note)), miss_ttl_s_(miss_ttl_s) {}

  // The source a front end's configuration describes (one way in for the CLI, serve and the C
  // API): its msym_dirs, checked as check_dirs does (WHAT names them: "--msym-dir"), then the
  // stores and servers of its symbol path; notes go to config.note. Errors: check_dirs', or a
  // bad symbol path (unprefixed, as ResolveConfig says it).
  static Result<std::unique_ptr<MsymSource>> create(const symbols::ResolveConfig& config, std::string_view what,
                                                    long miss_ttl_s = -1);

  // kNotFound "WHAT PATH: no such directory" (or "not a directory") for the first of `dirs`
  // that is no folder (WHAT:
  // how the front end names them, "--msym-dir"), else ok: a mistyped folder is said at once
  // rather than every AOT frame counted "no msym".
  static Status check_dirs(const std::vector<std::string>& dirs, std::string_view what);

  // No folder and no symbol path: no frame can find its .msym.
  bool empty() const { return dirs_.empty() && !remote_; }
  // The decoded file for `aot_id` and the module whose PE is named `pe_name` ("" when unknown),
  // or null with the reason in `miss`. The pointer lives as long as this object. Thread-safe
  // (a service's workers share one source); the files returned are read-only.
  const MsymFile* find(std::string_view aot_id, std::string_view pe_name, Miss& miss);

 private:
  const MsymFile* load(const std::string& path, Miss& miss);
  std::string locate(std::string_view aot_id, std::string_view pe_name) const;  // "" when none

  struct Choice {
    std::string path;  // "" none
    std::chrono::steady_clock::time_point when;
  };
  std::vector<std::string> dirs_;
  std::optional<symbols::ModuleResolver> remote_;  // the symbol path's, when there is one
  std::function<void(const std::string&)> note_;
  long miss_ttl_s_ = -1;
  std::mutex mutex_;                       // guards files_ and chosen_
  // By path; null: it did not decode (or could not be read).
  std::map<std::string, std::unique_ptr<MsymFile>> files_;
  std::map<std::string, Choice> chosen_;   // aot id + '/' + PE name -> path
  static constexpr std::size_t kMaxChoices = 4096;
};

}  // namespace ilmap::symbolicate
