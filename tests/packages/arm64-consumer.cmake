# tests/packages/arm64-consumer.cmake - the CMake toolchain of a user's own linux-arm64 project
# on a Debian amd64 host: Debian's cross compiler (g++-aarch64-linux-gnu) and the :arm64
# packages of the libraries (multiarch, /usr/lib/aarch64-linux-gnu), as scripts/install-deps.sh
# installs them. deb-arm64.sh builds its consumers of the unpacked arm64 packages with it. (ilmap's
# own arm64 build uses cmake/toolchain-linux-arm64-glibc231.cmake instead.)
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
# Libraries and packages of the target only; programs (flatc) of the host.
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu)
set(CMAKE_PREFIX_PATH /usr/lib/aarch64-linux-gnu/cmake)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)
# pkg-config reads the target's .pc files only.
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig)
set(ENV{PKG_CONFIG_PATH} "")
find_program(ILMAP_QEMU_AARCH64 qemu-aarch64-static)
if(ILMAP_QEMU_AARCH64)
  set(CMAKE_CROSSCOMPILING_EMULATOR "${ILMAP_QEMU_AARCH64};-L;/usr/aarch64-linux-gnu")
endif()
