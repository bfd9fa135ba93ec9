#!/usr/bin/env bash
# Build csrc/check/core_check.c and the C core with ASan, UBSan and LSan and
# run it: a memory error, undefined behaviour or a leak of the core's own
# allocations fails it; here, then in a namespace of links of every kind
# (in_lab.sh).  Then the same for bsd_check.c (bsdaddr.c on recorded BSD
# structures).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
csrc=$(dirname "$here")
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cc="gcc -std=gnu11 -g -O1 -fsanitize=address,undefined -fno-sanitize-recover=all
    -fno-omit-frame-pointer -Wall -Wextra -Werror -I$csrc"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
$cc -o "$out/core_check" \
    "$here/core_check.c" "$here/compare.c" "$csrc"/linux.c "$csrc"/nlio.c "$csrc"/nlsock.c "$csrc"/nlparse.c "$csrc"/nlwatch.c \
    "$csrc"/netns.c "$csrc"/proc.c "$csrc"/procnet.c "$csrc"/gifa.c "$csrc"/addr.c "$csrc"/vec.c \
    "$csrc"/backend.c "$csrc"/nlstats.c "$csrc"/statsparse.c "$csrc"/ethtool.c -lpthread
"$out/core_check"
"$here/in_lab.sh" "$out/core_check"
$cc -o "$out/bsd_check" "$here/bsd_check.c" "$csrc/bsdaddr.c" "$csrc/addr.c"
"$out/bsd_check"
# The route calls and parser: the same sanitizers, a binary of their own.
$cc -o "$out/route_check" \
    "$here/route_check.c" "$csrc"/linux_routes.c "$csrc"/nlroute.c "$csrc"/linux.c \
    "$csrc"/nlio.c "$csrc"/nlsock.c "$csrc"/nlparse.c "$csrc"/proc.c "$csrc"/procnet.c \
    "$csrc"/netns.c "$csrc"/addr.c "$csrc"/vec.c "$csrc"/nlstats.c "$csrc"/statsparse.c "$csrc"/ethtool.c \
    -lpthread
"$out/route_check"
