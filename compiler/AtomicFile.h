// AtomicFile.h - write a whole file atomically: a temporary file in the target's directory,
// fsync, then rename over the target. On any failure the temporary is removed and an existing
// target is left untouched.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "ilmap/status.h"

namespace ilmap {

Status write_file_atomically(const std::string& path, std::span<const std::uint8_t> bytes);

}  // namespace ilmap
