// MsymIngest.cpp - .msym files into a symbol store (see MsymIngest.h).
#include "symbols/MsymIngest.h"

#include "decode/MsymFile.h"
#include "decode/SymstoreKeys.h"
#include "symbols/PackageIngest.h"  // read_plain_file

namespace ilmap::symbols {

bool is_msym_name(std::string_view path) {
  if (path.size() < 5) return false;
  std::string tail(path.substr(path.size() - 5));
  for (char& c : tail)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return tail == ".msym";
}

std::string msym_aot_id(const std::string& path) {
  const std::size_t file = path.find_last_of("/\\");
  if (file == std::string::npos || file == 0) return {};
  const std::size_t dir = path.find_last_of("/\\", file - 1);
  const std::string id = path.substr(dir == std::string::npos ? 0 : dir + 1, file - (dir == std::string::npos ? 0 : dir + 1));
  if (id.size() != 32) return {};
  for (char c : id)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))) return {};
  return symstore_file_name(id);
}

Result<std::vector<StoredFile>> add_msym_to_store(Store& store, const std::string& path) {
  const std::string aot_id = msym_aot_id(path);
  if (aot_id.empty())
    return Error{Errc::kMalformed, path + ": an .msym must lie in the folder of its AOT id (32 hex digits), as "
                                          "mono --aot=msym-dir writes DIR/<AOTID>/<Assembly>.msym"};
  auto bytes = read_plain_file(path, MsymFile::kMaxFileSize);
  if (!bytes) return bytes.error();
  if (auto f = MsymFile::parse(*bytes); !f) return Error{f.error().code, path + ": " + f.error().message};
  const std::string key = ssqp_msym_key(path, aot_id);
  auto put = store.write(key, *bytes);
  if (!put) return Error{put.error().code, path + ": " + put.error().message};
  return std::vector<StoredFile>{{key, *put}};
}

}  // namespace ilmap::symbols
