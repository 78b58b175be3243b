// WidePath.h (win-x64) - UTF-8 paths and text as the wide (W) calls of Windows take them.
// Used by win32/Platform.cpp and win32/PosixCompat.cpp only.
#pragma once

#include <string>
#include <string_view>

namespace ilmap::platform {

// UTF-16 of UTF-8 text (invalid sequences become U+FFFD, as MultiByteToWideChar makes them).
std::wstring widen(std::string_view utf8);
// UTF-8 of UTF-16 text.
std::string narrow(std::wstring_view utf16);
// The UTF-16 path for a W call. Paths of 248 UTF-16 units or more (CreateDirectoryW's limit,
// MAX_PATH less room for an 8.3 file name) are made absolute
// (GetFullPathNameW: both separators read, "." and ".." resolved) and given the \\?\ prefix,
// or \\?\UNC\ for \\server\share paths, which lifts the limit to 32,767 characters. Shorter
// paths, and those already in \\?\ or \\.\ form, are passed on as they are.
std::wstring wide_path(std::string_view utf8);

}  // namespace ilmap::platform
