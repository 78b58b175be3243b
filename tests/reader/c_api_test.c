/* c_api_test.c - the C API (include/ilmap/ilmap.h) used from C11, as another language's tool
 * would: open a cache, resolve one frame whose answer is known, a miss, a token of another
 * table, offsets >= 2^31, NULL handles, ilmap_open_ex and the guard, verify, the module identity
 * and documents, an embedded source, and the error path of opening a file that is not a cache.
 *
 * usage: c_api_test CACHE NOT_A_CACHE TOKEN IL_OFFSET FILE LINE COLUMN IDENTITY SOURCES_CACHE SOURCE
 * (c_api_test.sh compiles CACHE from a PE and takes the expected values from
 * corpus/runtime-frames.tsv; IDENTITY holds "key value" lines of what `ilmap info` reads from
 * the PDB and the PE: pdb_id, debug_id, pdb_key, pe_name, pe_key, code_id, mvid, version;
 * SOURCES_CACHE is compiled from a PDB alone with --embed-sources, and SOURCE is the file one of
 * its documents embeds). Exit 0 when every check passes, 1 otherwise. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ilmap/ilmap.h"

static int failures = 0;

/* The value of `key` in the "key value" lines of `path` (static storage), or "" when absent. */
static const char* expected(const char* path, const char* key) {
  static char value[16][512];
  static int next = 0;
  char k[64], v[512];
  char* out = value[next++ % 16];
  out[0] = '\0';
  FILE* f = fopen(path, "r");
  if (!f) return out;
  while (fscanf(f, "%63s %511s", k, v) == 2)
    if (strcmp(k, key) == 0) {
      strcpy(out, v);
      break;
    }
  fclose(f);
  return out;
}

/* Reads the whole file at `path` into a malloc'd buffer; NULL on failure. */
static char* read_file(const char* path, size_t* size) {
  FILE* f = fopen(path, "rb");
  if (!f) return NULL;
  char* data = NULL;
  size_t n = 0, cap = 0, got;
  char chunk[4096];
  while ((got = fread(chunk, 1, sizeof chunk, f)) > 0) {
    if (n + got > cap) {
      cap = (n + got) * 2;
      char* grown = realloc(data, cap);
      if (!grown) {
        free(data);
        fclose(f);
        return NULL;
      }
      data = grown;
    }
    memcpy(data + n, chunk, got);
    n += got;
  }
  fclose(f);
  *size = n;
  return data ? data : malloc(1);
}

/* A string of the C API (pointer and length) equals `want`. */
static int same(const char* s, size_t len, const char* want) {
  return s != NULL && len == strlen(want) && memcmp(s, want, len) == 0;
}

#define CHECK(cond, ...)                                              \
  do {                                                                \
    if (!(cond)) {                                                    \
      fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                                   \
      fputc('\n', stderr);                                            \
      ++failures;                                                     \
    }                                                                 \
  } while (0)

int main(int argc, char** argv) {
  if (argc != 11) {
    fprintf(stderr, "usage: %s CACHE NOT_A_CACHE TOKEN IL_OFFSET FILE LINE COLUMN IDENTITY SOURCES_CACHE SOURCE\n", argv[0]);
    return 2;
  }
  const char* cache_path = argv[1];
  const char* not_cache = argv[2];
  const uint32_t token = (uint32_t)strtoul(argv[3], NULL, 16);
  const uint32_t il = (uint32_t)strtoul(argv[4], NULL, 0);
  const char* want_file = argv[5];
  const uint32_t want_line = (uint32_t)strtoul(argv[6], NULL, 10);
  const uint32_t want_column = (uint32_t)strtoul(argv[7], NULL, 10);
  const char* identity = argv[8];
  const char* sources_path = argv[9];
  const char* source_file = argv[10];

  int err = -1;
  char msg[512];
  ilmap_cache* cache = ilmap_open(cache_path, &err, msg, sizeof msg);
  if (!cache) {
    fprintf(stderr, "FAIL: ilmap_open(%s): error %d: %s\n", cache_path, err, msg);
    return 1;
  }
  CHECK(err == ILMAP_OK, "err %d", err);
  CHECK(msg[0] == '\0', "message on success: %s", msg);
  const uint32_t methods = ilmap_method_count(cache);
  CHECK(methods > 0, "no methods");
  CHECK(ilmap_point_count(cache) > 0, "no points");

  /* The known frame. */
  ilmap_location loc;
  memset(&loc, 0, sizeof loc);
  CHECK(ilmap_lookup(cache, token, il, &loc) == 1, "no answer for 0x%08x+%u", (unsigned)token, (unsigned)il);
  CHECK(loc.file != NULL && loc.file_len == strlen(want_file) && memcmp(loc.file, want_file, loc.file_len) == 0,
        "file '%.*s', want '%s'", (int)loc.file_len, loc.file ? loc.file : "", want_file);
  CHECK(loc.line == want_line, "line %u, want %u", (unsigned)loc.line, (unsigned)want_line);
  CHECK(loc.column == want_column, "column %u, want %u", (unsigned)loc.column, (unsigned)want_column);
  CHECK(loc.end_line >= loc.line, "end line %u before line %u", (unsigned)loc.end_line, (unsigned)loc.line);
  CHECK(loc.il_offset <= il, "answering point at %u is after the query %u", (unsigned)loc.il_offset, (unsigned)il);
  CHECK(loc.language != NULL && strcmp(loc.language, "C#") == 0, "language %s", loc.language ? loc.language : "(null)");
  CHECK((loc.url == NULL) == (loc.url_len == 0), "url %p with length %zu", (const void*)loc.url, loc.url_len);

  /* By row number, the same answer. */
  ilmap_location by_row;
  CHECK(ilmap_lookup_row(cache, token & 0xFFFFFFu, il, &by_row) == 1, "no answer by row");
  CHECK(by_row.line == loc.line && by_row.column == loc.column && by_row.file == loc.file, "row answer differs");

  /* ilmap_locate_frame (SPEC.md 6.4): a frame of an ordinary method answers as ilmap_locate does,
   * whatever method text it printed (the text only picks among state-machine methods), and says no
   * state machine answered; misuse is refused, and *state_machine_method is cleared every time. */
  {
    ilmap_location plain, framed;
    uint32_t sm = 0xDEADBEEFu;
    CHECK(ilmap_locate(cache, token, il, &plain) == ILMAP_OK, "ilmap_locate found nothing");
    memset(&framed, 0x5A, sizeof framed);
    CHECK(ilmap_locate_frame(cache, token, il, NULL, 0, &framed, &sm) == ILMAP_OK, "locate_frame without text");
    CHECK(sm == 0 && framed.line == plain.line && framed.column == plain.column && framed.file == plain.file &&
              framed.il_offset == plain.il_offset,
          "locate_frame answered line %u (state machine 0x%08x), ilmap_locate %u", (unsigned)framed.line,
          (unsigned)sm, (unsigned)plain.line);
    /* A long text that names nothing, with NULs and bytes that are not UTF-8. */
    enum { kLong = 1 << 20 };
    char* junk = (char*)malloc(kLong);
    CHECK(junk != NULL, "malloc");
    if (junk) {
      for (size_t i = 0; i < kLong; ++i) junk[i] = (char)(i * 131u + 7u);
      sm = 0xDEADBEEFu;
      CHECK(ilmap_locate_frame(cache, token, il, junk, kLong, &framed, &sm) == ILMAP_OK && sm == 0 &&
                framed.line == plain.line && framed.file == plain.file,
            "locate_frame with a junk text: line %u, state machine 0x%08x", (unsigned)framed.line, (unsigned)sm);
      free(junk);
    }
    sm = 0xDEADBEEFu;
    CHECK(ilmap_locate_frame(NULL, token, il, NULL, 0, &framed, &sm) == ILMAP_E_USAGE && sm == 0, "NULL cache");
    sm = 0xDEADBEEFu;
    CHECK(ilmap_locate_frame(cache, token, il, NULL, 0, NULL, &sm) == ILMAP_E_USAGE && sm == 0, "NULL out");
    sm = 0xDEADBEEFu;
    CHECK(ilmap_locate_frame(cache, token, il, NULL, 5, &framed, &sm) == ILMAP_E_USAGE && sm == 0,
          "NULL text with a length");
    CHECK(ilmap_locate_frame(cache, token, il, "", 0, &framed, NULL) == ILMAP_OK && framed.line == plain.line,
          "empty text, no state-machine output");
    sm = 0xDEADBEEFu;
    CHECK(ilmap_locate_frame(cache, 0x02000000u | (token & 0xFFFFFFu), il, NULL, 0, &framed, &sm) == ILMAP_E_NOT_FOUND &&
              sm == 0,
          "TypeDef token answered");
    CHECK(ilmap_locate_frame(cache, 0x06000000u | (methods + 1), il, "x", 1, &framed, &sm) == ILMAP_E_NOT_FOUND,
          "row past the end answered");
    CHECK(ilmap_locate_frame(cache, token, 0xFFFFFFFFu, NULL, 0, &framed, &sm) == ILMAP_E_NOT_FOUND, "offset -1 answered");
  }

  /* Misses: a row past the end, row 0. */
  ilmap_location miss;
  memset(&miss, 0x5A, sizeof miss);
  CHECK(ilmap_lookup(cache, 0x06000000u | (methods + 1), 0, &miss) == 0, "row past the end answered");
  CHECK(ilmap_lookup(cache, 0x06000000u, il, &miss) == 0, "row 0 answered");
  CHECK(ilmap_lookup_row(cache, methods + 1, il, &miss) == 0, "row past the end answered (by row)");

  /* A token of another table with the same row. */
  CHECK(ilmap_lookup(cache, 0x02000000u | (token & 0xFFFFFFu), il, &miss) == 0, "TypeDef token answered");
  CHECK(ilmap_lookup(cache, 0x0A000000u | (token & 0xFFFFFFu), il, &miss) == 0, "MemberRef token answered");

  /* NULL handle and NULL output. */
  CHECK(ilmap_lookup(NULL, token, il, &miss) == 0, "NULL cache answered");
  CHECK(ilmap_lookup_row(NULL, 1, il, &miss) == 0, "NULL cache answered (by row)");
  CHECK(ilmap_lookup(cache, token, il, NULL) == 0, "NULL out answered");
  CHECK(ilmap_method_count(NULL) == 0, "method count of NULL");
  CHECK(ilmap_point_count(NULL) == 0, "point count of NULL");
  CHECK(ilmap_verify(NULL, NULL, 0) == ILMAP_E_USAGE, "verify of NULL");
  ilmap_close(NULL);

  /* IL offsets from 2^31 on (the runtime's -1 = OFFSET_UNKNOWN) give no answer. */
  CHECK(ilmap_lookup(cache, token, 0xFFFFFFFFu, &miss) == 0, "offset -1 answered");
  CHECK(ilmap_lookup(cache, token, 0x80000000u, &miss) == 0, "offset 2^31 answered");

  /* The guard, and a cache read into memory answers the same; unknown flags are refused. */
  CHECK(ilmap_install_mapping_guard() == 1, "guard not installed");
  CHECK(ilmap_changed(cache) == 0 && ilmap_file_changed(cache) == 0, "unchanged cache reported changed");
  ilmap_cache* mem = ilmap_open_ex(cache_path, ILMAP_OPEN_READ, &err, msg, sizeof msg);
  CHECK(mem != NULL, "ilmap_open_ex(ILMAP_OPEN_READ): %s", msg);
  ilmap_location in_mem;
  CHECK(mem && ilmap_lookup(mem, token, il, &in_mem) == 1 && in_mem.line == loc.line &&
            in_mem.file_len == loc.file_len && memcmp(in_mem.file, loc.file, loc.file_len) == 0,
        "read-into-memory answer differs");
  ilmap_close(mem);
  err = -1;
  CHECK(ilmap_open_ex(cache_path, 0x100u, &err, NULL, 0) == NULL && err == ILMAP_E_USAGE, "unknown flags: error %d", err);

  /* Method names (format 1.1): the PDB is compiled with its PE beside it, so the cache has
   * them. The frame's CoreCLR text; its full name (the text before '(' or '[') finds it. */
  {
    const char* text = NULL;
    size_t len = 0, key = 0;
    CHECK(ilmap_method_name_count(cache) > 0, "no method names");
    CHECK(ilmap_method_name(cache, token, ILMAP_NAME_CORECLR, &text, &len) == 1 && len > 0, "no CoreCLR name");
    while (key < len && text[key] != '(' && text[key] != '[') ++key;
    uint32_t found[64];
    const size_t n = ilmap_find_method(cache, text, key, found, 64);
    int hit = 0;
    for (size_t i = 0; i < n && i < 64; ++i) hit |= found[i] == token;
    CHECK(n >= 1 && hit, "find_method(%.*s): %zu tokens, 0x%08x not among them", (int)key, text, n, (unsigned)token);
    CHECK(ilmap_method_name(cache, token, ILMAP_NAME_MONO, &text, &len) == 1 && len > 0, "no Mono name");
    CHECK(ilmap_method_name(cache, 0x02000001u, ILMAP_NAME_CORECLR, &text, &len) == 0, "a TypeDef token has a name");
    CHECK(ilmap_method_name(cache, token, 7, &text, &len) == 0, "unknown flavor answered");
    CHECK(ilmap_find_method(cache, "No.Such.Method", 14, found, 64) == 0, "a missing name was found");
    uint8_t mvid[16];
    CHECK(ilmap_mvid(cache, mvid) == 1, "no MVID");
    CHECK(ilmap_assembly_name(cache, &len) != NULL && len > 0, "no assembly name");
  }

  /* The module identity, against what `ilmap info` read from the PDB and the PE. */
  {
    const char* text;
    size_t len = 0;
    uint8_t id[20];
    char hex[41];
    memset(id, 0, sizeof id);
    CHECK(ilmap_pdb_id(cache, id) == 1, "no PDB id");
    for (int i = 0; i < 20; ++i) snprintf(hex + 2 * i, 3, "%02x", id[i]);
    CHECK(strcmp(hex, expected(identity, "pdb_id")) == 0, "PDB id %s, want %s", hex, expected(identity, "pdb_id"));
    text = ilmap_debug_id(cache, &len);
    CHECK(same(text, len, expected(identity, "debug_id")), "debug id '%.*s'", (int)len, text ? text : "");
    text = ilmap_pdb_key(cache, &len);
    CHECK(same(text, len, expected(identity, "pdb_key")), "PDB key '%.*s'", (int)len, text ? text : "");
    text = ilmap_pe_name(cache, &len);
    CHECK(same(text, len, expected(identity, "pe_name")), "PE name '%.*s'", (int)len, text ? text : "");
    text = ilmap_pe_key(cache, &len);
    CHECK(same(text, len, expected(identity, "pe_key")), "PE key '%.*s'", (int)len, text ? text : "");
    text = ilmap_code_id(cache, &len);
    CHECK(same(text, len, expected(identity, "code_id")), "code id '%.*s'", (int)len, text ? text : "");
    /* The MVID in #GUID byte order (Data1, Data2, Data3 little endian) against its text form. */
    uint8_t g[16];
    char mvid[37];
    memset(g, 0, sizeof g);
    CHECK(ilmap_mvid(cache, g) == 1, "no MVID");
    snprintf(mvid, sizeof mvid, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", g[3], g[2], g[1], g[0],
             g[5], g[4], g[7], g[6], g[8], g[9], g[10], g[11], g[12], g[13], g[14], g[15]);
    CHECK(strcmp(mvid, expected(identity, "mvid")) == 0, "MVID %s, want %s", mvid, expected(identity, "mvid"));
    /* "ilmap <version>/format <major>.<minor>" */
    char want_version[600];
    snprintf(want_version, sizeof want_version, "ilmap %s/format ", expected(identity, "version"));
    text = ilmap_compiler_version(cache, &len);
    CHECK(text != NULL && len > strlen(want_version) && memcmp(text, want_version, strlen(want_version)) == 0,
          "compiler version '%.*s', want '%s<major>.<minor>'", (int)len, text ? text : "", want_version);
    CHECK(ilmap_pdb_id(NULL, id) == 0 && ilmap_pdb_id(cache, NULL) == 0, "PDB id of NULL");
    CHECK(ilmap_debug_id(NULL, &len) == NULL && ilmap_pe_key(NULL, &len) == NULL, "identity of NULL");
    CHECK(ilmap_pdb_key(cache, NULL) != NULL, "a NULL length refused");

    /* Documents: the frame's file is one of them. */
    const uint32_t docs = ilmap_document_count(cache);
    int seen = 0;
    for (uint32_t d = 0; d < docs; ++d) {
      text = ilmap_document_path(cache, d, &len);
      CHECK(text != NULL, "document %u has no path", (unsigned)d);
      seen |= same(text, len, want_file);
    }
    CHECK(docs > 0 && seen, "%s is not among the %u documents", want_file, (unsigned)docs);
    CHECK(ilmap_document_path(cache, docs, &len) == NULL, "a document past the end has a path");
    CHECK(ilmap_document_count(NULL) == 0, "documents of NULL");
    /* The cache holds no embedded source. */
    size_t size = 99;
    CHECK(ilmap_embedded_source(cache, 0, NULL, 0, &size, msg, sizeof msg) == ILMAP_E_NOT_FOUND && size == 0 && msg[0],
          "an embedded source without --embed-sources");
  }

  /* An embedded source, against the file it was compiled from; a PDB compiled alone records no
   * PE identity. */
  {
    ilmap_cache* sources = ilmap_open(sources_path, &err, msg, sizeof msg);
    CHECK(sources != NULL, "ilmap_open(%s): %s", sources_path, msg);
    size_t want_size = 0, len = 0;
    char* want = read_file(source_file, &want_size);
    CHECK(want != NULL, "cannot read %s", source_file);
    const char* base = strrchr(source_file, '/');
    base = base ? base + 1 : source_file;
    uint32_t doc = UINT32_MAX;
    for (uint32_t d = 0; sources && d < ilmap_document_count(sources); ++d) {
      const char* p = ilmap_document_path(sources, d, &len);
      if (p && len > strlen(base) && memcmp(p + len - strlen(base), base, strlen(base)) == 0 && p[len - strlen(base) - 1] == '/')
        doc = d;
    }
    CHECK(doc != UINT32_MAX, "no document named %s", base);
    if (sources && want && doc != UINT32_MAX) {
      size_t size = 0;
      CHECK(ilmap_embedded_source(sources, doc, NULL, 0, &size, msg, sizeof msg) == ILMAP_OK && size == want_size,
            "size query: %zu bytes, want %zu (%s)", size, want_size, msg);
      char small[8];
      memset(small, 'x', sizeof small);
      CHECK(ilmap_embedded_source(sources, doc, small, sizeof small, &size, msg, sizeof msg) == ILMAP_OK && size == want_size &&
                small[0] == 'x',
            "a buffer too small was written to");
      char* text = malloc(want_size + 1);
      size = 0;
      CHECK(text && ilmap_embedded_source(sources, doc, text, want_size + 1, &size, msg, sizeof msg) == ILMAP_OK &&
                size == want_size && memcmp(text, want, want_size) == 0,
            "embedded source of document %u differs from %s (%zu bytes): %s", (unsigned)doc, source_file, size, msg);
      free(text);
      CHECK(ilmap_embedded_source(sources, doc, NULL, 4, &size, NULL, 0) == ILMAP_E_USAGE, "NULL out with a capacity");
      CHECK(ilmap_embedded_source(NULL, doc, NULL, 0, &size, NULL, 0) == ILMAP_E_USAGE, "NULL cache");
      CHECK(ilmap_embedded_source(sources, UINT32_MAX, NULL, 0, &size, NULL, 0) == ILMAP_E_NOT_FOUND, "no such document");
      CHECK(ilmap_pe_name(sources, &len) == NULL && ilmap_code_id(sources, &len) == NULL, "PE identity without a PE");
      CHECK(ilmap_debug_id(sources, &len) != NULL, "no debug id");
    }
    free(want);
    ilmap_close(sources);
  }

  /* Source lines (format 1.2): the frame's own line binds points of that line and document. */
  {
    ilmap_line_match out[8];
    size_t count = 99;
    CHECK(ilmap_has_line_index(cache) == 1 && ilmap_has_line_index(NULL) == 0, "ilmap_has_line_index (deprecated)");
    CHECK(ilmap_lines(cache, loc.file, loc.file_len, loc.line, 0, NULL, 0, &count, msg, sizeof msg) == ILMAP_OK && count >= 1,
          "lines(%.*s:%u), capacity 0: %s", (int)loc.file_len, loc.file, (unsigned)loc.line, msg);
    const size_t total = count;
    CHECK(ilmap_lines(cache, loc.file, loc.file_len, loc.line, 0, out, 8, &count, msg, sizeof msg) == ILMAP_OK && count == total,
          "lines: %s", msg);
    for (size_t i = 0; i < count && i < 8; ++i)
      CHECK(out[i].line == loc.line && (out[i].token >> 24) == 0x06 && out[i].file_len == loc.file_len &&
                memcmp(out[i].file, loc.file, loc.file_len) == 0,
            "binding %zu: 0x%08x at line %u", i, (unsigned)out[i].token, (unsigned)out[i].line);
    CHECK(ilmap_lines(cache, "No/Such.cs", 10, 1, 0, out, 8, &count, msg, sizeof msg) == ILMAP_E_NOT_FOUND && count == 0 &&
              msg[0] != '\0',
          "a missing document was found");
    CHECK(ilmap_lines(NULL, "a.cs", 4, 1, 0, out, 8, &count, NULL, 0) == ILMAP_E_USAGE, "NULL cache accepted");
    CHECK(ilmap_lines(cache, loc.file, loc.file_len, loc.line, 0, NULL, 8, &count, NULL, 0) == ILMAP_E_USAGE,
          "NULL output with capacity accepted");
  }

  /* verify. */
  msg[0] = 'x';
  CHECK(ilmap_verify(cache, msg, sizeof msg) == ILMAP_OK, "verify: %s", msg);
  CHECK(msg[0] == '\0', "verify left a message: %s", msg);
  /* The structure a failure names (ilmap_structure, SPEC.md section 7): none when all is well
   * or the failure is about no structure; the header for a file shorter than it. */
  {
    int where = -1, err = -1;
    CHECK(ilmap_verify_ex(cache, &where, msg, sizeof msg) == ILMAP_OK && where == ILMAP_STRUCTURE_NONE,
          "verify_ex: status or structure %d", where);
    where = -1;
    CHECK(ilmap_verify_ex(NULL, &where, NULL, 0) == ILMAP_E_USAGE && where == ILMAP_STRUCTURE_NONE, "verify_ex of NULL: %d", where);
    const unsigned char short_file[16] = {0x49, 0x4C, 0x4D, 0x1A};
    where = -1;
    CHECK(ilmap_open_bytes_ex(short_file, sizeof short_file, &err, &where, msg, sizeof msg) == NULL &&
              err == ILMAP_E_TRUNCATED && where == ILMAP_STRUCTURE_HEADER,
          "open_bytes_ex of 16 bytes: status %d, structure %d: %s", err, where, msg);
    where = -1;
    CHECK(ilmap_open_ex2("/nonexistent/ilmap/c-api-test.ilmap", ILMAP_OPEN_READ, &err, &where, msg, sizeof msg) == NULL &&
              err == ILMAP_E_IO && where == ILMAP_STRUCTURE_NONE,
          "open_ex2 of a missing file: status %d, structure %d", err, where);
    ilmap_cache* again = ilmap_open_ex2(cache_path, ILMAP_OPEN_READ, &err, &where, msg, sizeof msg);
    CHECK(again != NULL && err == ILMAP_OK && where == ILMAP_STRUCTURE_NONE, "open_ex2: status %d, structure %d: %s", err, where, msg);
    ilmap_close(again);
    CHECK(ILMAP_STRUCTURE_HEADER == 1 && ILMAP_STRUCTURE_PAYLOAD == 2 && ILMAP_STRUCTURE_DOCUMENTS == 7 &&
              ILMAP_STRUCTURE_LINE_INDEX == 12,
          "ilmap_structure values moved");
  }
  ilmap_close(cache);

  /* Not a cache: NULL, ILMAP_E_BAD_MAGIC and a message; a tiny buffer is NUL-terminated. */
  err = -1;
  msg[0] = '\0';
  ilmap_cache* bad = ilmap_open(not_cache, &err, msg, sizeof msg);
  CHECK(bad == NULL, "%s opened as a cache", not_cache);
  CHECK(err == ILMAP_E_BAD_MAGIC, "error %d, want ILMAP_E_BAD_MAGIC (%d)", err, ILMAP_E_BAD_MAGIC);
  CHECK(msg[0] != '\0', "no message");
  char tiny[4] = {'x', 'x', 'x', 'x'};
  bad = ilmap_open(not_cache, NULL, tiny, sizeof tiny);
  CHECK(bad == NULL && tiny[3] == '\0', "message not truncated to the buffer");
  ilmap_close(bad);

  /* A missing file: ILMAP_E_IO. A NULL path: ILMAP_E_USAGE. */
  err = -1;
  CHECK(ilmap_open("/nonexistent/ilmap-c-api-test.ilmap", &err, msg, sizeof msg) == NULL, "missing file opened");
  CHECK(err == ILMAP_E_IO, "missing file: error %d", err);
  err = -1;
  CHECK(ilmap_open(NULL, &err, NULL, 0) == NULL && err == ILMAP_E_USAGE, "NULL path: error %d", err);

  if (failures) {
    fprintf(stderr, "%d check(s) failed\n", failures);
    return 1;
  }
  printf("ok: C API (frame 0x%08x+%u -> %s:%u:%u)\n", (unsigned)token, (unsigned)il, want_file,
         (unsigned)want_line, (unsigned)want_column);
  return 0;
}
