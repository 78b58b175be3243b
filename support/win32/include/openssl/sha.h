// openssl/sha.h for win-x64 (support/win32/include/posix_compat.h): the one-shot SHA-1 and
// SHA-2 functions ilmap calls (decode/PdbChecksum.cpp, symbolicate/SourceProvider.cpp,
// symbols/S3Client.cpp), computed by Windows' own bcrypt.dll instead of OpenSSL's libcrypto:
// no OpenSSL to build for Windows. Same names, types and return values (1 ok, 0 failure).
#pragma once
#include <stddef.h>
#ifdef __cplusplus
extern "C" {
#endif
#define SHA_DIGEST_LENGTH 20
#define SHA256_DIGEST_LENGTH 32
#define SHA384_DIGEST_LENGTH 48
#define SHA512_DIGEST_LENGTH 64
// The bcrypt hash object; `alg` says which algorithm Init chose (for SHA384 in a SHA512_CTX).
typedef struct { void* hash; int alg; } ILMAP_SHA_CTX;
typedef ILMAP_SHA_CTX SHA_CTX;
typedef ILMAP_SHA_CTX SHA256_CTX;
typedef ILMAP_SHA_CTX SHA512_CTX;
int ilmap_win_sha_init(ILMAP_SHA_CTX* c, int bits);
int ilmap_win_sha_update(ILMAP_SHA_CTX* c, const void* data, size_t n);
int ilmap_win_sha_final(unsigned char* out, ILMAP_SHA_CTX* c);
static inline int SHA1_Init(SHA_CTX* c) { return ilmap_win_sha_init(c, 1); }
static inline int SHA1_Update(SHA_CTX* c, const void* d, size_t n) { return ilmap_win_sha_update(c, d, n); }
static inline int SHA1_Final(unsigned char* o, SHA_CTX* c) { return ilmap_win_sha_final(o, c); }
static inline int SHA256_Init(SHA256_CTX* c) { return ilmap_win_sha_init(c, 256); }
static inline int SHA256_Update(SHA256_CTX* c, const void* d, size_t n) { return ilmap_win_sha_update(c, d, n); }
static inline int SHA256_Final(unsigned char* o, SHA256_CTX* c) { return ilmap_win_sha_final(o, c); }
static inline int SHA384_Init(SHA512_CTX* c) { return ilmap_win_sha_init(c, 384); }
static inline int SHA384_Update(SHA512_CTX* c, const void* d, size_t n) { return ilmap_win_sha_update(c, d, n); }
static inline int SHA384_Final(unsigned char* o, SHA512_CTX* c) { return ilmap_win_sha_final(o, c); }
static inline int SHA512_Init(SHA512_CTX* c) { return ilmap_win_sha_init(c, 512); }
static inline int SHA512_Update(SHA512_CTX* c, const void* d, size_t n) { return ilmap_win_sha_update(c, d, n); }
static inline int SHA512_Final(unsigned char* o, SHA512_CTX* c) { return ilmap_win_sha_final(o, c); }
#ifdef __cplusplus
}
#endif
