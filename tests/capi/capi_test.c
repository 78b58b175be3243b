/* capi_test.c - drives the C API's compile, symbolicate and module lookup (include/ilmap/ilmap.h,
 * libilmap.so) for capi_test.sh, which compares what it prints with the ilmap program and the
 * runtime's own traces. Modes:
 *   capi_test compile INPUT OUTPUT [force]   -> "status=S up_to_date=U points=P bytes=B", then msg
 *   capi_test symbolicate SEARCH CACHE_DIR TEXT_FILE [columns]
 *                                             -> the text on stdout; "lines=.. frames=.. resolved=.. with_lines=.." on stderr
 *   capi_test module SEARCH CACHE_DIR KIND ID TOKEN IL
 *                                             -> "status=S FILE:LINE:COLUMN" or "status=S msg"
 *   capi_test misuse SEARCH                   -> the API refuses misuse with the documented codes
 *   capi_test fetch SYMBOL_PATH INPUT WANT_CACHE -> "status=S PATH" or "status=S msg"
 *   capi_test lines CACHE FILE LINE RULE       -> ilmap_lines_rule (RULE -1: ilmap_lines):
 *                                             "status=S count=N", then `ilmap lines`' text per binding
 * Exit 0 when the call ran (the script checks what was printed), 1 on a failed check of misuse. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ilmap/ilmap.h"

static int failures = 0;

static void expect(int got, int want, const char* what) {
  if (got != want) {
    printf("FAIL %s: %d, want %d\n", what, got, want);
    failures++;
  } else {
    printf("ok   %s\n", what);
  }
}

static char* read_file(const char* path, size_t* len) {
  FILE* f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 1 << 16, n = 0;
  char* buf = malloc(cap);
  size_t got;
  while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
    n += got;
    if (n == cap) {
      char* bigger = realloc(buf, cap * 2);
      if (!bigger) { free(buf); buf = NULL; break; }
      buf = bigger;
      cap *= 2;
    }
  }
  fclose(f);
  *len = n;
  return buf;
}

static ilmap_symbolicator* open_symbolicator(const char* search, const char* cache_dir, unsigned flags) {
  ilmap_symbolicator_options o;
  memset(&o, 0, sizeof o);
  o.size = sizeof o;
  o.search = &search;
  o.search_count = 1;
  o.cache_dir = cache_dir;
  o.flags = flags;
  int err = -1;
  char msg[512];
  ilmap_symbolicator* s = ilmap_symbolicator_open(&o, &err, msg, sizeof msg);
  if (!s) printf("status=%d %s\n", err, msg);
  return s;
}

static int do_compile(int argc, char** argv) {
  ilmap_compile_options o;
  memset(&o, 0, sizeof o);
  o.size = sizeof o;
  o.force = argc > 4 && strcmp(argv[4], "force") == 0;
  ilmap_compile_result r;
  char msg[1024];
  const int st = ilmap_compile(argv[2], argv[3], &o, &r, msg, sizeof msg);
  printf("status=%d up_to_date=%d points=%llu bytes=%llu\n%s\n", st, r.up_to_date, (unsigned long long)r.points,
         (unsigned long long)r.bytes, msg);
  return 0;
}

static int do_symbolicate(int argc, char** argv) {
  ilmap_symbolicator* s = open_symbolicator(argv[2], argv[3], argc > 5 ? ILMAP_SYMBOLICATE_COLUMNS : 0);
  if (!s) return 1;
  size_t len = 0;
  char* text = read_file(argv[4], &len);
  if (!text) { printf("cannot read %s\n", argv[4]); return 1; }
  char* out = NULL;
  size_t out_len = 0;
  ilmap_symbolicate_stats stats;
  const int st = ilmap_symbolicate(s, text, len, &out, &out_len, &stats);
  if (st != ILMAP_OK) { printf("status=%d\n", st); return 1; }
  fwrite(out, 1, out_len, stdout);
  fprintf(stderr, "lines=%llu frames=%llu resolved=%llu with_lines=%llu\n", (unsigned long long)stats.lines,
          (unsigned long long)stats.frames, (unsigned long long)stats.resolved, (unsigned long long)stats.with_lines);
  ilmap_free(out);
  free(text);
  ilmap_symbolicator_close(s);
  return 0;
}

static int do_module(char** argv) {
  ilmap_symbolicator* s = open_symbolicator(argv[2], argv[3], 0);
  if (!s) return 1;
  const int kind = atoi(argv[4]);
  const ilmap_cache* cache = NULL;
  char msg[1024];
  int st = ilmap_find_module(s, kind, argv[5], strlen(argv[5]), NULL, &cache, msg, sizeof msg);
  if (st != ILMAP_OK) {
    printf("status=%d %s\n", st, msg);
  } else {
    /* The same module asked again gives the same handle; closing a borrowed handle does nothing. */
    const ilmap_cache* again = NULL;
    if (ilmap_find_module(s, kind, argv[5], strlen(argv[5]), NULL, &again, NULL, 0) != ILMAP_OK || again != cache)
      printf("FAIL: the second ilmap_find_module gave another handle\n");
    ilmap_close((ilmap_cache*)again);
    ilmap_location loc;
    st = ilmap_locate(cache, (uint32_t)strtoul(argv[6], NULL, 0), (uint32_t)strtoul(argv[7], NULL, 0), &loc);
    if (st == ILMAP_OK)
      printf("status=%d %.*s:%u:%u\n", st, (int)loc.file_len, loc.file, loc.line, loc.column);
    else
      printf("status=%d\n", st);
  }
  ilmap_symbolicator_close(s);
  return 0;
}

static int do_fetch(char** argv) {
  char path[4096], msg[1024];
  size_t len = 0;
  const int st = ilmap_fetch(argv[2], argv[3], atoi(argv[4]), 0, path, sizeof path, &len, msg, sizeof msg);
  if (st != ILMAP_OK) {
    printf("status=%d %s\n", st, msg);
    return 0;
  }
  printf("status=%d %s\n", st, path);
  /* A buffer one byte too small: ILMAP_E_TOO_LARGE, and the length needed. */
  char small[4096];
  size_t need = 0;
  const int st2 = ilmap_fetch(argv[2], argv[3], atoi(argv[4]), 0, small, len, &need, msg, sizeof msg);
  if (st2 != ILMAP_E_TOO_LARGE || need != len) printf("FAIL: a buffer of %zu bytes: status %d, length %zu\n", len, st2, need);
  return 0;
}

static int do_misuse(char** argv) {
  char msg[256];
  int err = -1;
  ilmap_compile_result r;
  expect(ilmap_compile(NULL, "x.ilmap", NULL, &r, msg, sizeof msg), ILMAP_E_USAGE, "compile without input");
  expect(ilmap_compile("a.pdb", "", NULL, NULL, msg, sizeof msg), ILMAP_E_USAGE, "compile to an empty output");
  ilmap_compile_options unset;
  memset(&unset, 0, sizeof unset);
  expect(ilmap_compile("a.pdb", "x.ilmap", &unset, NULL, msg, sizeof msg), ILMAP_E_USAGE, "compile options without size");
  ilmap_symbolicator_options o;
  memset(&o, 0, sizeof o);
  o.size = sizeof o;
  o.flags = 0x100;
  expect(ilmap_symbolicator_open(&o, &err, msg, sizeof msg) == NULL && err == ILMAP_E_USAGE, 1, "unknown flags");
  const char* missing = "/nonexistent/ilmap-capi-test";
  o.flags = 0;
  o.search = &missing;
  o.search_count = 1;
  err = -1;
  expect(ilmap_symbolicator_open(&o, &err, msg, sizeof msg) == NULL && err == ILMAP_E_NOT_FOUND, 1,
         "a search path that does not exist");
  o.search = NULL;
  err = -1;
  expect(ilmap_symbolicator_open(&o, &err, msg, sizeof msg) == NULL && err == ILMAP_E_USAGE, 1, "search NULL with a count");
  o.search_count = 0;
  o.symbol_path = "srv*ftp://example.invalid/symbols";
  err = -1;
  expect(ilmap_symbolicator_open(&o, &err, msg, sizeof msg) == NULL && err == ILMAP_E_USAGE, 1, "a bad symbol path");
  ilmap_symbolicator* s = open_symbolicator(argv[2], NULL, 0);
  if (!s) return 1;
  char* out = (char*)1;
  size_t out_len = 1;
  expect(ilmap_symbolicate(s, NULL, 3, &out, &out_len, NULL), ILMAP_E_USAGE, "symbolicate NULL text of 3 bytes");
  expect(ilmap_symbolicate(s, "", 0, NULL, &out_len, NULL), ILMAP_E_USAGE, "symbolicate without out");
  expect(ilmap_symbolicate(s, NULL, 0, &out, &out_len, NULL), ILMAP_OK, "symbolicate nothing");
  expect(out != NULL && out_len == 0 && out[0] == '\0', 1, "symbolicate nothing gives an empty string");
  ilmap_free(out);
  const ilmap_cache* c = (const ilmap_cache*)1;
  expect(ilmap_find_module(s, 7, "App.dll", 7, NULL, &c, msg, sizeof msg), ILMAP_E_USAGE, "an unknown module kind");
  expect(c == NULL, 1, "no handle after a refusal");
  expect(ilmap_find_module(s, ILMAP_MODULE_MVID, "not-a-guid", 10, NULL, &c, msg, sizeof msg), ILMAP_E_USAGE,
         "an MVID that is no GUID");
  expect(ilmap_find_module(s, ILMAP_MODULE_DEBUG_ID, "1234", 4, NULL, &c, msg, sizeof msg), ILMAP_E_USAGE,
         "a debug id that is no debug id");
  expect(ilmap_find_module(s, ILMAP_MODULE_FILE_NAME, "NoSuchModule.dll", 16, NULL, &c, msg, sizeof msg),
         ILMAP_E_NOT_FOUND, "a module the search set lacks");
  expect(strstr(msg, "NoSuchModule.dll") != NULL, 1, "the message names the module");
  ilmap_location loc;
  expect(ilmap_locate(NULL, 0x06000001, 0, &loc), ILMAP_E_USAGE, "locate in no cache");
  ilmap_symbolicator_close(s);
  ilmap_symbolicator_close(NULL);
  ilmap_free(NULL);
  return failures ? 1 : 0;
}

static int do_lines(char** argv) {
  int err = 0;
  char msg[512] = "";
  ilmap_cache* c = ilmap_open(argv[2], &err, msg, sizeof msg);
  if (!c) {
    printf("status=%d %s\n", err, msg);
    return 0;
  }
  ilmap_line_match out[16];
  size_t count = 0;
  const int rule = atoi(argv[5]);
  const int st = rule < 0 ? ilmap_lines(c, argv[3], strlen(argv[3]), (uint32_t)atoi(argv[4]), 0, out, 16, &count, msg, sizeof msg)
                          : ilmap_lines_rule(c, argv[3], strlen(argv[3]), (uint32_t)atoi(argv[4]), 0, rule, out, 16, &count, msg,
                                             sizeof msg);
  printf("status=%d count=%zu\n", st, count);
  for (size_t i = 0; i < count && i < 16; ++i)
    printf("0x%08x %u %.*s %u:%u-%u:%u\n", out[i].token, out[i].il_offset, (int)out[i].file_len, out[i].file, out[i].line,
           out[i].column, out[i].end_line, out[i].end_column);
  ilmap_close(c);
  return 0;
}

int main(int argc, char** argv) {
  if (argc >= 4 && strcmp(argv[1], "compile") == 0) return do_compile(argc, argv);
  if (argc >= 5 && strcmp(argv[1], "symbolicate") == 0) return do_symbolicate(argc, argv);
  if (argc == 8 && strcmp(argv[1], "module") == 0) return do_module(argv);
  if (argc == 3 && strcmp(argv[1], "misuse") == 0) return do_misuse(argv);
  if (argc == 5 && strcmp(argv[1], "fetch") == 0) return do_fetch(argv);
  if (argc == 6 && strcmp(argv[1], "lines") == 0) return do_lines(argv);
  fprintf(stderr, "usage: capi_test compile|symbolicate|module|misuse|fetch ...\n");
  return 2;
}
