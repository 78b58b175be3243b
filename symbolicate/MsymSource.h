// MsymSource.h - the `.msym` files of `--msym-dir` folders, found by AOT id and module, each
// read and decoded once (docs/msym.md section 3).
//
// A folder holds DIR/<AOTID>/<Assembly>.msym, as `mono --aot=msym-dir=DIR` writes it, or is a
// symbol store that `ilmap store add` filled: NAME.msym/<aotid>/NAME.msym. For a frame's AOT id
// and the module's PE file name NAME, the folders are tried in order (docs/msym.md section 3):
// DIR/AOTID/NAME.msym; the store key; the one DIR/<other AOT id>/NAME.msym (a library compiled
// in another AOT run: the runtime prints the program's AOT id in its frames too). Without a PE
// name: the one *.msym of DIR/AOTID. The AOT id comes from trace text: it is
// used only when it is 32 hex digits, so no text makes a path. A file that does not decode is
// remembered as bad (one note), never an error of the trace.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "decode/MsymFile.h"

namespace ilmap::symbolicate {

class MsymSource {
 public:
  enum class Miss : std::uint8_t { kNone, kNoAotId, kNotFound, kBad };

  explicit MsymSource(std::vector<std::string> dirs, std::function<void(const std::string&)> note = {})
      : dirs_(std::move(dirs)), note_(std::move(note)) {}

  bool empty() const { return dirs_.empty(); }
  // The decoded file for `aot_id` and the module whose PE is named `pe_name` ("" when unknown),
  // or null with the reason in `miss`. The pointer lives as long as this object.
  const MsymFile* find(std::string_view aot_id, std::string_view pe_name, Miss& miss);

 private:
  struct Loaded {
    std::unique_ptr<MsymFile> file;  // null: it did not decode (or could not be read)
  };
  const MsymFile* load(const std::string& path, Miss& miss);
  std::string locate(std::string_view aot_id, std::string_view pe_name) const;  // "" when none

  std::vector<std::string> dirs_;
  std::function<void(const std::string&)> note_;
  std::map<std::string, Loaded> files_;                  // by path
  std::map<std::string, std::string> chosen_;            // aot id + '/' + PE name -> path ("" none)
  static constexpr std::size_t kMaxChoices = 4096;
};

}  // namespace ilmap::symbolicate
