/* holdopen.c - a Windows program that holds a file open the way a virus scanner or an indexer
 * does (read access, shared for reading only: no FILE_SHARE_DELETE, so the file cannot be
 * replaced or renamed meanwhile) for a number of milliseconds. tests/windows/stores.sh compiles it
 * with mingw-w64 and runs it under Wine beside ilmap.exe.
 * Usage: holdopen FILE MILLISECONDS READY  (READY is created once FILE is held; exit 1 when FILE
 * cannot be opened) */
#include <stdio.h>
#include <stdlib.h>
#include <windows.h>

int main(int argc, char** argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: holdopen FILE MILLISECONDS READY\n");
    return 2;
  }
  HANDLE h = CreateFileA(argv[1], GENERIC_READ, FILE_SHARE_READ, NULL, OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, NULL);
  if (h == INVALID_HANDLE_VALUE) {
    fprintf(stderr, "holdopen: cannot open %s: error %lu\n", argv[1], GetLastError());
    return 1;
  }
  HANDLE r = CreateFileA(argv[3], GENERIC_WRITE, 0, NULL, CREATE_ALWAYS, FILE_ATTRIBUTE_NORMAL, NULL);
  if (r != INVALID_HANDLE_VALUE) CloseHandle(r);
  Sleep((DWORD)strtoul(argv[2], NULL, 10));
  CloseHandle(h);
  return 0;
}
