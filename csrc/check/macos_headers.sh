#!/usr/bin/env bash
# The getifaddrs backend's macOS code compiled (clang -fsyntax-only -Werror,
# x86_64 and arm64) against Apple's published headers, at the tags below:
# xnu (bsd/, EXTERNAL_HEADERS/, ...), Libc, libpthread, libmalloc and
# Libinfo (ifaddrs.h).  posix/getifaddrs.c's _Static_asserts then hold posix/bsd.h's
# layouts against macOS's own struct sockaddr_dl, sockaddr_in6 and if_data.
#
# Apple's build generates a few headers (availability annotations, symbol
# aliasing): they are written here as nothing, as they carry no layout.
# Needs clang and git, and network unless NETIFC_APPLE_SRC names a directory
# that already holds the five checkouts.  Not run by CI (it needs GitHub).
#
#   csrc/check/macos_headers.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
csrc=$(dirname "$here")
src=${NETIFC_APPLE_SRC:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ -z "$src" ]; then
    src=$work/src
    mkdir "$src"
fi
for repo in xnu:xnu-11417.101.15 Libc:Libc-1725.0.11 libpthread:libpthread-539 \
            libmalloc:libmalloc-792.1.1 Libinfo:Libinfo-600; do
    name=${repo%%:*}
    [ -d "$src/$name" ] || git clone -q --depth 1 --branch "${repo#*:}" \
        "https://github.com/apple-oss-distributions/$name" "$src/$name"
done

# Libinfo's ifaddrs.h (a subproject's), and what Apple's build generates.
gen=$work/generated
mkdir -p "$gen/sys" "$gen/os"
cp "$src/Libinfo/gen.subproj/ifaddrs.h" "$gen/"
for v in 198808 199009 199209 199309 199506 200112 200809; do
    echo "#define ___POSIX_C_DEPRECATED_STARTING_${v}L"
done > "$gen/sys/_posix_availability.h"
for m in 5 6 7 8 9 10 13; do
    echo "#define __DARWIN_ALIAS_STARTING_MAC___MAC_10_$m(x) x"
done > "$gen/sys/_symbol_aliasing.h"
{
    echo "#ifndef __AVAILABILITY__"
    echo "#define __AVAILABILITY__"
    echo "#define __MAC_OS_X_VERSION_MIN_REQUIRED 130000"
    for m in __OSX_AVAILABLE_STARTING __OSX_AVAILABLE_BUT_DEPRECATED \
             __OSX_AVAILABLE_BUT_DEPRECATED_MSG __OSX_AVAILABLE __OSX_DEPRECATED \
             __IOS_AVAILABLE __IOS_DEPRECATED __TVOS_AVAILABLE __TVOS_DEPRECATED \
             __WATCHOS_AVAILABLE __WATCHOS_DEPRECATED __API_AVAILABLE __API_DEPRECATED \
             __API_DEPRECATED_WITH_REPLACEMENT __API_UNAVAILABLE __SPI_AVAILABLE \
             __SPI_DEPRECATED __OS_AVAILABILITY __OS_AVAILABILITY_MSG API_AVAILABLE \
             API_DEPRECATED API_DEPRECATED_WITH_REPLACEMENT API_UNAVAILABLE; do
        echo "#define $m(...)"
    done
    for m in __OSX_UNAVAILABLE __IOS_PROHIBITED __TVOS_PROHIBITED __WATCHOS_PROHIBITED \
             __IOS_UNAVAILABLE __TVOS_UNAVAILABLE __WATCHOS_UNAVAILABLE; do
        echo "#define $m"
    done
    echo "#endif"
} > "$gen/Availability.h"
echo '#include <Availability.h>' > "$gen/os/availability.h"
# Libc's own sys/cdefs.h is for building Libc (it wants a generated libc-features.h).
mkdir "$work/libc"
cp -r "$src/Libc/include/." "$work/libc/"
rm -f "$work/libc/sys/cdefs.h"

resource=$(clang -print-resource-dir)/include
for arch in x86_64 arm64; do
    echo "-- the portable core for $arch-apple-macos13"
    clang --target="$arch-apple-macos13" -std=gnu11 -Wall -Wextra -Werror -fsyntax-only \
        -nostdinc -isystem "$resource" -isystem "$gen" -isystem "$work/libc" \
        -isystem "$src/libpthread/include" -isystem "$src/libmalloc/include" \
        -isystem "$src/xnu/bsd" \
        -isystem "$src/xnu/EXTERNAL_HEADERS" -isystem "$src/xnu/libkern" \
        -isystem "$src/xnu/osfmk" -isystem "$src/xnu/libsyscall/wrappers" -I"$csrc" \
        "$csrc/posix/getifaddrs.c" "$csrc/posix/bsd.c" "$csrc/core/addr.c" "$csrc/core/vec.c" "$csrc/core/backend.c"
done
echo "macos_headers: compiled"
