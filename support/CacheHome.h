// CacheHome.h - which platform's convention names the per-user cache folder: the XDG rule on
// Linux, %LOCALAPPDATA% on Windows. Only the choice is here (a compile-time constant); the rule
// itself is symbols/SymbolPath.cpp's, written over an environment lookup so that the unit tests
// on Linux hold both conventions to it.
#pragma once

namespace ilmap {

enum class CacheConvention {
  kXdg,      // $XDG_CACHE_HOME/ilmap, else $HOME/.cache/ilmap
  kWindows,  // %LOCALAPPDATA%\ilmap
};

#ifdef _WIN32
inline constexpr CacheConvention kHostCacheConvention = CacheConvention::kWindows;
#else
inline constexpr CacheConvention kHostCacheConvention = CacheConvention::kXdg;
#endif

}  // namespace ilmap
