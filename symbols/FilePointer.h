// FilePointer.h - symstore's `file.ptr`: a store may keep, instead of a file, a pointer to it in
// the key's directory (`foo.pdb/<id>/file.ptr`, written by `symstore add /p`), one line:
//   PATH:<where the file is>   (a UNC or local path; some servers write an http(s) URL)
//   MSG:<text>                 (why the file is not available)
// (Microsoft's "Symbol Storage Format" and "Handling File Pointers" pages; dotnet/symstore's
// clients ask for `<file>/<id>/file.ptr` when the file itself is absent.) Here it is read and
// the target followed by ModuleResolver; the target is verified like any other download.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "ilmap/status.h"

namespace ilmap::symbols {

// A file.ptr is one short line; anything longer is not one.
inline constexpr std::size_t kMaxFilePointerBytes = 4096;

struct FilePointer {
  enum class Kind { kPath, kMessage } kind = Kind::kPath;
  std::string value;  // the path/URL, or the message (trimmed)
  bool url() const { return value.rfind("http://", 0) == 0 || value.rfind("https://", 0) == 0; }
  bool unc() const { return value.rfind("\\\\", 0) == 0; }
  // A Windows path ("C:\..." or "C:/..."): not reachable on this system either.
  bool drive() const {
    return value.size() >= 3 && ((value[0] | 0x20) >= 'a' && (value[0] | 0x20) <= 'z') && value[1] == ':' &&
           (value[2] == '\\' || value[2] == '/');
  }
};

// kMalformed when `bytes` is not `PATH:...` or `MSG:...` (prefix without case, surrounding
// white space ignored), is empty after the prefix, holds control characters, or is too long.
Result<FilePointer> parse_file_pointer(std::span<const std::uint8_t> bytes);

// The key of the file.ptr beside `key` (`foo.pdb/<id>/foo.pdb` -> `foo.pdb/<id>/file.ptr`).
std::string file_pointer_key(std::string_view key);

}  // namespace ilmap::symbols
