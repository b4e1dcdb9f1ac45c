# The wheel's toolchain (tools/wheel/build.sh): zig's clang and libc++ (ziglang, from PyPI) for one
# architecture and glibc 2.28, so that every file built needs no glibc symbol newer than 2.28, on
# any distribution from RHEL 8, Debian 10 and Ubuntu 20.04 on (manylinux_2_28).
#
# From the environment, so that CMake's own test projects see them too:
#   IMPORTSCOPE_ZIG_WRAPPERS  a directory with cc, c++, ar and ranlib, each running zig for the target
#   IMPORTSCOPE_ZIG_ARCH      x86_64 or aarch64
#   IMPORTSCOPE_SYSROOT       the Debian sysroot of that architecture with the libraries' -dev
#                             packages (headers, CMake and pkg-config files, libnettle.a); it holds
#                             no C library, whose headers and stubs zig brings
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR $ENV{IMPORTSCOPE_ZIG_ARCH})
set(CMAKE_LIBRARY_ARCHITECTURE $ENV{IMPORTSCOPE_ZIG_ARCH}-linux-gnu)
set(CMAKE_C_COMPILER $ENV{IMPORTSCOPE_ZIG_WRAPPERS}/cc)
set(CMAKE_CXX_COMPILER $ENV{IMPORTSCOPE_ZIG_WRAPPERS}/c++)
set(CMAKE_AR $ENV{IMPORTSCOPE_ZIG_WRAPPERS}/ar CACHE FILEPATH "zig's ar")
set(CMAKE_RANLIB $ENV{IMPORTSCOPE_ZIG_WRAPPERS}/ranlib CACHE FILEPATH "zig's ranlib")

set(CMAKE_FIND_ROOT_PATH $ENV{IMPORTSCOPE_SYSROOT})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
set(ENV{PKG_CONFIG_SYSROOT_DIR} $ENV{IMPORTSCOPE_SYSROOT})
set(ENV{PKG_CONFIG_LIBDIR}
    "$ENV{IMPORTSCOPE_SYSROOT}/usr/lib/$ENV{IMPORTSCOPE_ZIG_ARCH}-linux-gnu/pkgconfig:$ENV{IMPORTSCOPE_SYSROOT}/usr/share/pkgconfig")

# zig links its libc++, libc++abi and libunwind statically into every binary and module.
set(IMPORTSCOPE_RUNTIME_ALWAYS_STATIC ON)
