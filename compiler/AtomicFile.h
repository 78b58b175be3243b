// AtomicFile.h - write a whole file atomically: a temporary file in the target's directory,
// optionally fsync, then rename over the target. On any failure the temporary is removed and an
// existing target is left untouched. Without fsync, a crash or kill still never exposes a
// partial file (rename is atomic); fsync adds durability across a power failure.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "ilmap/status.h"

namespace ilmap {

Status write_file_atomically(const std::string& path, std::span<const std::uint8_t> bytes, bool fsync = true);

}  // namespace ilmap
