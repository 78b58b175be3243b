// MsymIngest.h - Mono AOT `.msym` files into a symbol store (`ilmap store add`), under the key
// docs/store-layout.md gives them: "<assembly>.msym/<aot id>/<assembly>.msym".
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "ilmap/status.h"
#include "symbols/Store.h"
#include "symbols/StoreIngest.h"

namespace ilmap::symbols {

// True for a file name ending in ".msym" (any case).
bool is_msym_name(std::string_view path);

// The AOT id of an .msym at `path`: the name of the folder it lies in, when that is 32 hex
// digits (as mono --aot=msym-dir writes DIR/<AOTID>/<Assembly>.msym), lower-cased; else "".
std::string msym_aot_id(const std::string& path);

// Stores the .msym at `path` under its key, after it decodes (decode/MsymFile): one StoredFile.
// Errors: kMalformed when its folder is not an AOT id, the decoder's errors, the store's
// (kMismatch: other bytes under the key).
Result<std::vector<StoredFile>> add_msym_to_store(Store& store, const std::string& path);

}  // namespace ilmap::symbols
