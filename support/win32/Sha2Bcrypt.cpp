// Sha2Bcrypt.cpp - support/win32/include/openssl/sha.h: SHA-1 and SHA-2 by Windows' bcrypt.dll
// (BCryptCreateHash over the system's algorithm providers, opened once per algorithm).
#include <windows.h>
#include <bcrypt.h>

#include <openssl/sha.h>

namespace {

BCRYPT_ALG_HANDLE provider(int bits) {
  static BCRYPT_ALG_HANDLE handles[4] = {};  // SHA1, SHA256, SHA384, SHA512
  static INIT_ONCE once[4] = {INIT_ONCE_STATIC_INIT, INIT_ONCE_STATIC_INIT, INIT_ONCE_STATIC_INIT, INIT_ONCE_STATIC_INIT};
  const int i = bits == 1 ? 0 : bits == 256 ? 1 : bits == 384 ? 2 : bits == 512 ? 3 : -1;
  if (i < 0) return nullptr;
  static const wchar_t* const names[4] = {BCRYPT_SHA1_ALGORITHM, BCRYPT_SHA256_ALGORITHM, BCRYPT_SHA384_ALGORITHM,
                                          BCRYPT_SHA512_ALGORITHM};
  InitOnceExecuteOnce(&once[i], [](PINIT_ONCE, PVOID p, PVOID*) -> BOOL {
    const int k = int(reinterpret_cast<INT_PTR>(p));
    return BCryptOpenAlgorithmProvider(&handles[k], names[k], nullptr, 0) >= 0;
  }, reinterpret_cast<PVOID>(INT_PTR(i)), nullptr);
  return handles[i];
}

}  // namespace

extern "C" {

int ilmap_win_sha_init(ILMAP_SHA_CTX* c, int bits) {
  c->hash = nullptr;
  c->alg = bits;
  BCRYPT_ALG_HANDLE alg = provider(bits);
  BCRYPT_HASH_HANDLE h = nullptr;
  if (!alg || BCryptCreateHash(alg, &h, nullptr, 0, nullptr, 0, 0) < 0) return 0;
  c->hash = h;
  return 1;
}

int ilmap_win_sha_update(ILMAP_SHA_CTX* c, const void* data, size_t n) {
  const auto* p = static_cast<const unsigned char*>(data);
  while (n > 0) {  // BCryptHashData takes a ULONG count
    const ULONG k = n > 0x40000000 ? 0x40000000 : ULONG(n);
    if (!c->hash || BCryptHashData(c->hash, const_cast<PUCHAR>(p), k, 0) < 0) return 0;
    p += k, n -= k;
  }
  return 1;
}

int ilmap_win_sha_final(unsigned char* out, ILMAP_SHA_CTX* c) {
  const ULONG size = c->alg == 1 ? 20 : ULONG(c->alg / 8);
  const bool ok = c->hash && BCryptFinishHash(c->hash, out, size, 0) >= 0;
  if (c->hash) BCryptDestroyHash(c->hash);
  c->hash = nullptr;
  return ok ? 1 : 0;
}

}  // extern "C"
