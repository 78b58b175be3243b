/* ilmap/ilmap.h - C API of ilmap: the cache reader, and compile, module resolution and
 * symbolication of trace text.
 *
 * For tools in other languages: opaque handles, plain C types, no exceptions. Strings in
 * results point into the mapped cache and stay valid until ilmap_close(). All functions are
 * safe on corrupt caches: a cache that opens never makes a lookup read out of bounds.
 *
 * Results: a function that returns a status returns ILMAP_OK (0) on success, ILMAP_E_NOT_FOUND
 * when what was asked for does not exist, and another ILMAP_E_* code for an error (with a
 * message, where it takes msg). Functions of the first versions that answer "found" with 1 and
 * "none" with 0 keep doing so for the programs built on them, and say so: ilmap_lookup and
 * ilmap_lookup_row (their status forms are ilmap_locate and ilmap_locate_row), ilmap_method_name, ilmap_mvid,
 * ilmap_pdb_id, ilmap_changed, ilmap_file_changed, ilmap_has_line_index and
 * ilmap_install_mapping_guard.
 *
 * Compile, module resolution and symbolication (the end of this file) are in libilmap.so; the
 * static libilmap.a is the reader alone.
 */
#ifndef ILMAP_ILMAP_H
#define ILMAP_ILMAP_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ilmap_cache ilmap_cache;

/* Pinned error codes (same values as ilmap::Errc). */
enum ilmap_status {
  ILMAP_OK = 0,
  ILMAP_E_USAGE = 1,
  ILMAP_E_IO = 2,
  ILMAP_E_TRUNCATED = 3,
  ILMAP_E_BAD_MAGIC = 4,
  ILMAP_E_BAD_VERSION = 5,
  ILMAP_E_MALFORMED = 6,
  /* 7 is reserved: ILMAP_E_UNSUPPORTED (ilmap::Errc::kUnsupported), which a call of this API
   * returned only for a cache without the line index; open refuses those now. */
  ILMAP_E_NOT_FOUND = 8,
  ILMAP_E_MISMATCH = 9,
  ILMAP_E_TOO_LARGE = 10,
  ILMAP_E_CHECKSUM = 11
};

typedef struct ilmap_location {
  const char* file; /* document path, UTF-8, not NUL-terminated: use file_len */
  size_t file_len;
  const char* url;  /* SourceLink URL or NULL */
  size_t url_len;
  const char* language; /* "C#", "VB", "F#", "other", "unknown" (NUL-terminated, static) */
  uint32_t line, column, end_line, end_column;
  uint32_t il_offset; /* IL offset of the sequence point that answered */
} ilmap_location;

/* Opens a cache. On failure returns NULL and, if err is not NULL, stores the status code; if
 * msg is not NULL, copies a NUL-terminated message (truncated to msg_size).
 *
 * A cache file truncated or rewritten while open never makes a call answer wrongly: a lookup
 * gives the answer of the bytes the file had at open, or no answer (0) with ilmap_changed()
 * returning 1. The file is mapped under a Linux read lease (another program's open for writing
 * or truncate waits until ilmap has copied the mapping into private memory, which costs the
 * file's size in memory); without one (file open for writing elsewhere, owned by another user,
 * NFS, or a host using the lease signal SIGRTMIN+6) the file is read into memory at open.
 * ilmap installs a handler for SIGRTMIN+6 on first open when that signal has its default
 * disposition; a process must not block it in all of its threads. A host that installs its own
 * SIGRTMIN+6 handler after opening caches must pass on the kernel's notices (si_code POLL_MSG)
 * to the handler it replaced, or open with ILMAP_OPEN_READ. Each cache mapped under a lease holds
 * one descriptor until closed; at most 1024 are leased at once, later ones are read into memory.
 * See ilmap/mapping_guard.h and docs/library.md "In a host process". */
ilmap_cache* ilmap_open(const char* path, int* err, char* msg, size_t msg_size);

/* Flags of ilmap_open_ex. */
enum ilmap_open_flags {
  ILMAP_OPEN_MAP = 0,  /* map the file read-only (what ilmap_open does) */
  ILMAP_OPEN_READ = 1  /* read it into private memory: nothing done to the file later can reach the
                        * cache; installs no signal handler, takes no lease, keeps no descriptor */
};

/* ilmap_open with flags (a combination of ilmap_open_flags). Unknown flags: ILMAP_E_USAGE. */
ilmap_cache* ilmap_open_ex(const char* path, unsigned flags, int* err, char* msg, size_t msg_size);

/* Installs the process-wide SIGBUS guard of ilmap/mapping_guard.h (idempotent): a read from a
 * mapped cache that another program truncated in place then sees zeros instead of killing the
 * process, and ilmap_changed() turns 1. On Windows, a vectored exception handler for pages of a
 * mapped compile input that cannot be read in (caches are read, never mapped, there). Returns 1
 * on success, 0 if the handler could not be installed. */
int ilmap_install_mapping_guard(void);

/* 1 once the cache file changed in a way the cache could not be shielded from (its private
 * copy could not be made, or the SIGBUS guard replaced a page): lookups, names and lines then
 * give no answers (0, or ILMAP_E_IO from ilmap_lines); strings returned earlier may since show
 * other bytes. Open the file again. */
int ilmap_changed(const ilmap_cache* cache);

/* 1 when the path the cache was opened from now names another file or one whose size or
 * times differ (the cache was replaced or rewritten: open it again). */
int ilmap_file_changed(const ilmap_cache* cache);

/* Opens a cache from memory (the bytes are copied). */
ilmap_cache* ilmap_open_bytes(const void* data, size_t size, int* err, char* msg, size_t msg_size);

/* The structure of a cache that a failing check of open or verify is about (ilmap::CacheStructure,
 * same values; SPEC.md section 7 names it next to each check's status code), so that a program
 * can tell a damaged line index from a damaged document table without parsing the message.
 * Values never change; new ones are appended. NONE: the error is about no one structure (I/O,
 * usage, out of memory, the file changed while in use), or there is no error. */
enum ilmap_structure {
  ILMAP_STRUCTURE_NONE = 0,
  ILMAP_STRUCTURE_HEADER = 1,           /* the 32-byte file header (open steps 2-9) */
  ILMAP_STRUCTURE_PAYLOAD = 2,          /* the FlatBuffers payload: identifier, verification, checksum */
  ILMAP_STRUCTURE_METHOD_DIRECTORY = 3, /* method_groups, block_ends, block_ends_high */
  ILMAP_STRUCTURE_BLOCK_PROFILES = 4,   /* block_profiles, block_profile_index */
  ILMAP_STRUCTURE_POINT_BLOCKS = 5,     /* point_blocks and the point counts */
  ILMAP_STRUCTURE_HIDDEN_POINTS = 6,    /* hidden_points */
  ILMAP_STRUCTURE_DOCUMENTS = 7,        /* the document table */
  ILMAP_STRUCTURE_STRINGS = 8,          /* the document strings (strings, strings_zstd) */
  ILMAP_STRUCTURE_DETAILS = 9,          /* details, details_zstd, embedded sources */
  ILMAP_STRUCTURE_IDENTITY = 10,        /* identity */
  ILMAP_STRUCTURE_NAMES = 11,           /* names */
  ILMAP_STRUCTURE_LINE_INDEX = 12       /* the line index (lines) */
};

/* ilmap_open_ex, ilmap_open_bytes and ilmap_verify that also store, if `structure` is not NULL,
 * the ILMAP_STRUCTURE_* value of the failure (ILMAP_STRUCTURE_NONE on success). Everything else
 * is as in the functions they extend. */
ilmap_cache* ilmap_open_ex2(const char* path, unsigned flags, int* err, int* structure, char* msg, size_t msg_size);
ilmap_cache* ilmap_open_bytes_ex(const void* data, size_t size, int* err, int* structure, char* msg, size_t msg_size);
int ilmap_verify_ex(const ilmap_cache* cache, int* structure, char* msg, size_t msg_size);

void ilmap_close(ilmap_cache* cache);

/* Resolves a MethodDef token (0x06RRRRRR) and IL offset. Returns 1 and fills *out when there is
 * an answer, 0 when there is none (unknown method, offset before the first visible point,
 * an offset >= 0x80000000 such as the runtime's -1 = OFFSET_UNKNOWN, a token of another table,
 * NULL arguments, or the cache changed: ilmap_changed() is then 1). */
int ilmap_lookup(const ilmap_cache* cache, uint32_t token, uint32_t il_offset, ilmap_location* out);

/* Same, by method row number (1-based). */
int ilmap_lookup_row(const ilmap_cache* cache, uint32_t row, uint32_t il_offset, ilmap_location* out);

/* ilmap_lookup with status results: ILMAP_OK and *out filled when there is an answer,
 * ILMAP_E_NOT_FOUND when there is none (the cases ilmap_lookup answers 0 for), ILMAP_E_IO when
 * the cache changed (ilmap_changed() is 1: open it again), ILMAP_E_USAGE for a NULL cache or out. */
int ilmap_locate(const ilmap_cache* cache, uint32_t token, uint32_t il_offset, ilmap_location* out);

/* Same, by method row number (1-based): ilmap_lookup_row with status results. */
int ilmap_locate_row(const ilmap_cache* cache, uint32_t row, uint32_t il_offset, ilmap_location* out);

/* The answer to a stack frame that printed `token` and `il_offset`, with the state-machine
 * fallback of SPEC.md 6.4 (what `ilmap lookup`, `ilmap symbolicate`, `ilmap serve` and Sentry
 * events answer): ilmap_locate's answer; else, for an async or iterator method's token, that of
 * its state machine's methods when those that answer agree. `printed` (`printed_len` bytes,
 * UTF-8; NULL with 0 when the frame printed none) is the method text CoreCLR printed
 * ("NS.C.M(Int32 n)+MoveNext()"): only state-machine methods whose CoreCLR text it is are asked.
 * *state_machine_method (may be NULL) gets the token of the state-machine method that answered,
 * else 0. Statuses as ilmap_locate's; ILMAP_E_USAGE also for NULL `printed` with a length. */
int ilmap_locate_frame(const ilmap_cache* cache, uint32_t token, uint32_t il_offset, const char* printed,
                       size_t printed_len, ilmap_location* out, uint32_t* state_machine_method);

/* Full check (checksum + structure). Returns ILMAP_OK or an error code. */
int ilmap_verify(const ilmap_cache* cache, char* msg, size_t msg_size);

/* Method names (caches compiled with the PE known; SPEC.md 3.6). */
enum ilmap_name_flavor {
  ILMAP_NAME_CORECLR = 0, /* "NS.C.M(Int32 x)": CoreCLR's frame text, state-machine rewrite applied */
  ILMAP_NAME_MONO = 1     /* "NS.C.M (System.Int32 x)": Mono's frame text */
};

/* The name of a MethodDef token as the runtime of `flavor` prints it. Returns 1 and sets *text
 * (UTF-8, not NUL-terminated, valid until ilmap_close) and *len; 0 when the cache has no names,
 * the token is not a MethodDef of the section, the flavor is unknown, or an argument is NULL. */
int ilmap_method_name(const ilmap_cache* cache, uint32_t token, int flavor, const char** text, size_t* len);

/* Name lookup (SPEC.md 6.1): the MethodDef tokens whose full name ("NS.Outer`1.Inner.M":
 * declaring type with '.' for '+', '.', method name; no generic arguments or parameters) is
 * `name` (`name_len` bytes), ascending; state-machine methods match their kickoff method's name
 * too. Stores up to `capacity` tokens in `tokens` (may be NULL when capacity is 0) and returns
 * how many there are in all (0 without names). */
size_t ilmap_find_method(const ilmap_cache* cache, const char* name, size_t name_len, uint32_t* tokens,
                         size_t capacity);

/* Number of MethodDef rows with names (0 when the cache has none). */
uint32_t ilmap_method_name_count(const ilmap_cache* cache);

/* The module MVID (16 bytes, #GUID byte order): 1 and fills out, or 0 when unknown. */
int ilmap_mvid(const ilmap_cache* cache, uint8_t out[16]);

/* The assembly name (UTF-8, not NUL-terminated; *len set), or NULL when unknown. */
const char* ilmap_assembly_name(const ilmap_cache* cache, size_t* len);

/* Module identity (SPEC.md 3.2): what the cache was compiled from, to pick the cache of a module
 * that a stack trace names. Strings are ASCII or UTF-8, not NUL-terminated (*len set when len
 * is not NULL), valid until ilmap_close(); NULL when the cache records none. The PE's fields (and
 * the MVID, ilmap_mvid) are recorded when the cache was compiled with the PE known: a PE input,
 * --pe, or a same-named .dll/.exe beside the PDB. */

/* The PDB id, 20 bytes: the #Pdb stream's id (GUID in #GUID byte order, then the stamp, u32
 * little endian; of a Windows PDB: its GUID, then the DBI age). 1 and fills out, 0 when unknown. */
int ilmap_pdb_id(const ilmap_cache* cache, uint8_t out[20]);

/* The debug id, "<guid>-<stamp as 8 lower-case hex digits>"
 * ("6c544a86-3ccb-4fa9-810a-691444a2b613-d4ed59c0"; of a Windows PDB "<guid>-<age in hex>"). */
const char* ilmap_debug_id(const ilmap_cache* cache, size_t* len);

/* The PDB's symbol-store (SSQP) key, "name.pdb/<guid as 32 hex digits>FFFFFFFF/name.pdb" (of a
 * Windows PDB, the age in hex instead of FFFFFFFF). */
const char* ilmap_pdb_key(const ilmap_cache* cache, size_t* len);

/* The PE's file name ("App.dll"). */
const char* ilmap_pe_name(const ilmap_cache* cache, size_t* len);

/* The PE's symbol-store (SSQP) key, "name.dll/<code id>/name.dll". */
const char* ilmap_pe_key(const ilmap_cache* cache, size_t* len);

/* The PE's code id: its TimeDateStamp as 8 upper-case hex digits, then SizeOfImage in lower-case hex. */
const char* ilmap_code_id(const ilmap_cache* cache, size_t* len);

/* What wrote the cache: "ilmap <version>/format <major>.<minor>". */
const char* ilmap_compiler_version(const ilmap_cache* cache, size_t* len);

/* Documents (0-based indexes, as ilmap_line_match.document). */
uint32_t ilmap_document_count(const ilmap_cache* cache);

/* The path of document `document` (UTF-8, verbatim, not NUL-terminated; *len set), or NULL when
 * there is no such document. */
const char* ilmap_document_path(const ilmap_cache* cache, uint32_t document, size_t* len);

/* The embedded source of document `document` (caches compiled with --embed-sources; SPEC.md
 * 3.4): the bytes the compiler embedded (the source file's own encoding, a byte order mark
 * included), unpacked. Sets *size (may be NULL) to their count and copies them to `out` when
 * they fit in `capacity` bytes (out may be NULL when capacity is 0); a smaller buffer receives
 * nothing, so a caller that does not know the size asks with capacity 0 (nothing is unpacked)
 * and again with *size bytes. Returns ILMAP_OK, ILMAP_E_NOT_FOUND (no embedded source for that
 * document, or no such document), ILMAP_E_MALFORMED (its zstd frame does not unpack), ILMAP_E_IO
 * (the cache changed, or out of memory) or ILMAP_E_USAGE (NULL cache, NULL out with a capacity);
 * msg, if not NULL, receives a NUL-terminated message. */
int ilmap_embedded_source(const ilmap_cache* cache, uint32_t document, char* out, size_t capacity, size_t* size,
                          char* msg, size_t msg_size);

/* Reverse line lookup (SPEC.md 6.2, 6.3). Every cache that opens holds the line index. */

/* Deprecated, kept for the ABI: 1 for any cache (open refuses a cache without the line index),
 * 0 for NULL. */
int ilmap_has_line_index(const ilmap_cache* cache);

typedef struct ilmap_line_match {
  uint32_t token;     /* MethodDef token 0x06RRRRRR */
  uint32_t il_offset; /* IL offset of the sequence point bound to */
  uint32_t document;  /* 0-based document index */
  uint32_t line, column, end_line, end_column;
  const char* file;   /* document path, UTF-8, not NUL-terminated: use file_len */
  size_t file_len;
} ilmap_line_match;

/* The breakpoint bindings of `line` (and `column`, 0 = none) of the document that `document`
 * (`document_len` bytes) names (SPEC.md 6.3): an exact path, the same path with the other
 * separator, or a relative path ("Program.cs", "./Sub/../Program.cs") that ends document paths,
 * the shortest of them. The methods bound are the debugger's choice (SPEC.md 6.2, rule
 * ILMAP_LINES_DEBUGGER; ilmap_lines_rule chooses). Stores up to `capacity` bindings in `out`
 * (may be NULL when capacity is 0), ordered by token then IL offset, and their total in *count
 * (may be NULL). Returns ILMAP_OK (also when the line binds nothing: *count = 0),
 * ILMAP_E_NOT_FOUND (no such document),
 * ILMAP_E_MALFORMED or
 * ILMAP_E_TOO_LARGE (a packed index, SPEC.md 3.8, whose zstd frame does not unpack; the first
 * call unpacks it) or ILMAP_E_USAGE (NULL arguments, empty path); msg, if not NULL, receives a
 * NUL-terminated message. */
int ilmap_lines(const ilmap_cache* cache, const char* document, size_t document_len, uint32_t line, uint32_t column,
                ilmap_line_match* out, size_t capacity, size_t* count, char* msg, size_t msg_size);

/* The binding rules of SPEC.md 6.2: the debugger's (netcoredbg's) choice of one method, or the
 * constructors sharing a field initializer; or every method whose code starts on the line bound
 * to (ilmap 0.2.0's rule, `ilmap lines --all-methods`). */
#define ILMAP_LINES_DEBUGGER 0
#define ILMAP_LINES_ALL_METHODS 1

/* ilmap_lines with a rule (ILMAP_LINES_*); another value: ILMAP_E_USAGE. */
int ilmap_lines_rule(const ilmap_cache* cache, const char* document, size_t document_len, uint32_t line, uint32_t column,
                     int rule, ilmap_line_match* out, size_t capacity, size_t* count, char* msg, size_t msg_size);

uint32_t ilmap_method_count(const ilmap_cache* cache);
uint64_t ilmap_point_count(const ilmap_cache* cache);

/* ---- Compile, module resolution, symbolication (libilmap.so) -------------------------------
 * What `ilmap compile` and `ilmap symbolicate` do, in process: the same code, the same answers
 * (docs/library.md). Option structs begin with `size`, which the caller sets to
 * sizeof(the struct) as its header declares it: later versions append fields, and read only
 * those a caller's size covers. A NULL options pointer means every default. */

typedef struct ilmap_compile_options {
  size_t size;             /* sizeof(ilmap_compile_options) */
  const char* pdb;         /* the PDB of a PE input, or NULL: where the PE's debug directory says */
  const char* pe;          /* the PE of a PDB input (method names), or NULL: a same-named .dll or
                              .exe beside the PDB whose CodeView entry names it */
  const char* symbol_path; /* a PE's PDB not found locally is fetched from here, or NULL: none
                              ("srv*CACHE*https://server;DIR", docs/symbol-stores.md) */
  int embed_sources;       /* 1: store the PDB's embedded sources in the cache */
  int force;               /* 1: write the cache even when it is up to date */
} ilmap_compile_options;

typedef struct ilmap_compile_result {
  int up_to_date;  /* 1: the cache at output was already what this call would write: left alone */
  uint64_t points; /* sequence points in the cache written (0 when up to date) */
  uint64_t bytes;  /* bytes of the cache written (0 when up to date) */
} ilmap_compile_result;

/* Compiles `input` (a .dll/.exe with its PDB beside it, embedded, or fetched; a Portable or
 * Windows PDB) into the cache file `output`, as `ilmap compile INPUT -o OUTPUT` does: atomically
 * (an error never leaves a partial file), never over an input, folders created. Returns ILMAP_OK
 * (result, if not NULL, filled; msg receives the warnings, one per line, such as method names
 * not stored, or ""), ILMAP_E_NOT_FOUND (the PDB of a PE input is not found), ILMAP_E_MISMATCH
 * (a PDB or PE of another build), ILMAP_E_USAGE (NULL or empty input or output, an option that
 * does not apply, output = input), ILMAP_E_IO (a file cannot be read or written: a missing
 * input too), or the code of a bad input (ILMAP_E_MALFORMED, ...); msg says what and where. These
 * are the codes behind `ilmap compile`'s exit codes (README "Exit codes"). */
int ilmap_compile(const char* input, const char* output, const ilmap_compile_options* options,
                  ilmap_compile_result* result, char* msg, size_t msg_size);

/* A symbolicator: the modules a trace names are looked for in `search` (files and folders: PEs,
 * PDBs, caches, symbol stores), then on the symbol path; what is missing is compiled into
 * `cache_dir` and reused there. Not thread-safe: one thread at a time per symbolicator (open one
 * per thread; they may share the cache directory). */
typedef struct ilmap_symbolicator ilmap_symbolicator;

enum ilmap_symbolicate_flags {
  ILMAP_SYMBOLICATE_COLUMNS = 1, /* ":line N:COL" (symbolicate --columns) */
  ILMAP_SYMBOLICATE_URLS = 2,    /* the SourceLink URL instead of the path (--urls) */
  ILMAP_SYMBOLICATE_JSON = 4     /* one JSON object per frame instead of the text (--json) */
};

typedef struct ilmap_symbolicator_options {
  size_t size;                /* sizeof(ilmap_symbolicator_options) */
  const char* const* search;  /* search_count paths, or NULL: the current directory */
  size_t search_count;
  const char* cache_dir;      /* NULL: the default ($XDG_CACHE_HOME/ilmap, else ~/.cache/ilmap) */
  const char* symbol_path;    /* NULL: none (the environment is not read) */
  unsigned flags;             /* ilmap_symbolicate_flags */
  long download_timeout_s;    /* seconds a download may take in all; 0: 300 */
  /* Mono AOT frames ("<0xADDR + 0xOFF> in <mvid#aotid>:0"): msym_dir_count folders that
   * `mono --aot=msym-dir` wrote, or symbol stores holding .msym files (symbolicate --msym-dir,
   * docs/msym.md); then symbol_path is asked for the file's store key. Neither: such frames
   * stay as they are. */
  const char* const* msym_dirs;
  size_t msym_dir_count;
} ilmap_symbolicator_options;

/* NULL on failure, with *err (if not NULL) and msg set: ILMAP_E_NOT_FOUND (a search path does
 * not exist), ILMAP_E_USAGE (a bad symbol path, unknown flags). */
ilmap_symbolicator* ilmap_symbolicator_open(const ilmap_symbolicator_options* options, int* err, char* msg,
                                            size_t msg_size);
void ilmap_symbolicator_close(ilmap_symbolicator* symbolicator);

typedef struct ilmap_symbolicate_stats {
  uint64_t lines;      /* lines read */
  uint64_t frames;     /* frames to resolve */
  uint64_t resolved;   /* frames resolved */
  uint64_t with_lines; /* frames that already had a line (left as they were) */
} ilmap_symbolicate_stats;

/* Symbolicates `len` bytes of trace or log text exactly as `ilmap symbolicate` prints them
 * (docs/symbolicate.md): every frame found gets its file and line, every other byte stays. On
 * ILMAP_OK, *out (free it with ilmap_free) holds *out_len bytes, NUL-terminated, and stats, if
 * not NULL, is filled. ILMAP_E_USAGE for NULL arguments (text may be NULL when len is 0),
 * ILMAP_E_IO when out of memory. A frame that cannot be resolved is no error: it stays as it
 * was (the stats count it). */
int ilmap_symbolicate(ilmap_symbolicator* symbolicator, const char* text, size_t len, char** out, size_t* out_len,
                      ilmap_symbolicate_stats* stats);

/* Frees what ilmap_symbolicate returned (NULL is ignored). */
void ilmap_free(void* p);

/* What `symbol_path` ("srv*CACHE*https://server;DIR", docs/symbol-stores.md) holds for the PE or
 * Portable PDB at `input`, as `ilmap fetch` finds it: with want_cache 1 the ilmap cache of its PDB,
 * else the PDB itself; downloaded into the symbol path's cache folders and verified (the id it
 * must have, the PE's checksums). Copies the file's local path, NUL-terminated, into `path` when
 * it fits in `capacity` bytes, and sets *path_len (may be NULL) to its length. download_timeout_s
 * 0: 300. Returns ILMAP_OK, ILMAP_E_TOO_LARGE (the path does not fit: *path_len says how long it
 * is), ILMAP_E_NOT_FOUND (no source has it; wanting a cache, a source has only the PDB),
 * ILMAP_E_MISMATCH (only wrong files were offered), ILMAP_E_USAGE (a bad symbol path, NULL
 * arguments, an input that is no PE or Portable PDB) or ILMAP_E_IO (a server failed, the input
 * cannot be read); msg says what and where. */
int ilmap_fetch(const char* symbol_path, const char* input, int want_cache, long download_timeout_s, char* path,
                size_t capacity, size_t* path_len, char* msg, size_t msg_size);

/* The kinds of module identity ilmap_find_module takes. */
enum ilmap_module_kind {
  ILMAP_MODULE_FILE_NAME = 0, /* "App.dll", as CoreCLR prints a frame's module */
  ILMAP_MODULE_MVID = 1,      /* the module version id, "<guid>" as Mono prints it */
  ILMAP_MODULE_DEBUG_ID = 2   /* "<guid>-<stamp as 8 hex>" (a Portable PDB) or "<guid>-<age hex>" */
};

/* The cache of a module, found as ilmap_symbolicate finds it (compiled into the cache directory
 * when needed). `id` is `id_len` bytes; `name_hint` (may be NULL) is the PDB's or module's file
 * name for a debug id: tried first, and the name a symbol server is asked under. Returns
 * ILMAP_OK and *cache, a handle the symbolicator owns (valid until ilmap_symbolicator_close;
 * ilmap_close leaves it alone), ILMAP_E_NOT_FOUND (msg says why: module not found, PDB id
 * mismatch, no PDB), ILMAP_E_MALFORMED (a file that should answer is unreadable or corrupt) or
 * ILMAP_E_USAGE (NULL arguments, an unknown kind, an MVID that is not a GUID). */
int ilmap_find_module(ilmap_symbolicator* symbolicator, int kind, const char* id, size_t id_len, const char* name_hint,
                      const ilmap_cache** cache, char* msg, size_t msg_size);

#ifdef __cplusplus
}
#endif

#endif /* ILMAP_ILMAP_H */
