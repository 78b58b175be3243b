// fnmatch.h for win-x64 (support/win32/include/posix_compat.h): POSIX fnmatch with flags 0, the
// only form ilmap uses (tools/cmd_compile.cpp --exclude): `*` any run of characters (`/`
// included), `?` one character, `[...]` a set (`!` or `^` negates, `a-z` ranges), `\` quotes.
#pragma once
#ifdef __cplusplus
extern "C" {
#endif
#define FNM_NOMATCH 1
static inline int ilmap_fnmatch_set(const char** pp, char c) {
  const char* p = *pp;
  int neg = *p == '!' || *p == '^', hit = 0, first = 1;
  if (neg) ++p;
  for (; *p && (first || *p != ']'); first = 0) {
    char lo = *p++;
    if (lo == '\\' && *p) lo = *p++;
    char hi = lo;
    if (*p == '-' && p[1] && p[1] != ']') {
      ++p;
      hi = *p++;
      if (hi == '\\' && *p) hi = *p++;
    }
    if ((unsigned char)c >= (unsigned char)lo && (unsigned char)c <= (unsigned char)hi) hit = 1;
  }
  if (*p != ']') return -1;  // no closing bracket: `[` is literal
  *pp = p + 1;
  return hit != neg;
}
static inline int fnmatch(const char* pat, const char* s, int flags) {
  (void)flags;
  for (;; ++s) {
    const char c = *pat++;
    switch (c) {
      case '\0': return *s ? FNM_NOMATCH : 0;
      case '?': if (!*s) return FNM_NOMATCH; break;
      case '*':
        while (*pat == '*') ++pat;
        if (!*pat) return 0;
        for (; *s; ++s)
          if (fnmatch(pat, s, flags) == 0) return 0;
        return fnmatch(pat, s, flags);
      case '[': {
        if (!*s) return FNM_NOMATCH;
        const char* p = pat;
        const int r = ilmap_fnmatch_set(&p, *s);
        if (r < 0) { if (*s != '[') return FNM_NOMATCH; break; }
        if (!r) return FNM_NOMATCH;
        pat = p;
        break;
      }
      case '\\':
        if (*pat) { if (*pat++ != *s) return FNM_NOMATCH; break; }
        /* fallthrough: a trailing backslash matches itself */
      default: if (c != *s) return FNM_NOMATCH;
    }
  }
}
#ifdef __cplusplus
}
#endif
