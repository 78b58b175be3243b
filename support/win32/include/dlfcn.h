// dlfcn.h for win-x64 (support/win32/include/posix_compat.h): dlopen is LoadLibraryW of the
// UTF-8 name, dlsym GetProcAddress, dlerror the system's message for the last failure.
#pragma once
#ifdef __cplusplus
extern "C" {
#endif
#define RTLD_LAZY 1
#define RTLD_NOW 2
#define RTLD_LOCAL 0
#define RTLD_GLOBAL 0x100
void* dlopen(const char* name, int flags);
void* dlsym(void* lib, const char* symbol);
char* dlerror(void);
int dlclose(void* lib);
#ifdef __cplusplus
}
#endif
