#!/usr/bin/env bash
# Build csrc/check/core_check.c and the C core with ASan, UBSan and LSan and
# run it: a memory error, undefined behaviour or a leak of the core's own
# allocations fails it; here, then in a namespace of links of every kind
# (in_lab.sh).  Then the same for bsd_check.c (posix/bsd.c on recorded BSD
# structures), route_check.c, and live_check.c (the live tables' changes and
# merge, live/, against a model).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
csrc=$(dirname "$here")
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cc="gcc -std=gnu11 -g -O1 -fsanitize=address,undefined -fno-sanitize-recover=all
    -fno-omit-frame-pointer -Wall -Wextra -Werror -I$csrc"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
$cc -o "$out/core_check" \
    "$here/core_check.c" "$here/compare.c" "$csrc"/netlink/backend.c "$csrc"/netlink/heard.c "$csrc"/netlink/io.c "$csrc"/netlink/fork.c "$csrc"/netlink/socket.c "$csrc"/netlink/names.c "$csrc"/netlink/parse.c "$csrc"/netlink/watch.c \
    "$csrc"/netlink/netns.c "$csrc"/procfs/igmp.c "$csrc"/procfs/igmp_parse.c "$csrc"/posix/getifaddrs.c "$csrc"/core/addr.c "$csrc"/core/vec.c \
    "$csrc"/core/backend.c "$csrc"/netlink/stats.c "$csrc"/netlink/stats_parse.c "$csrc"/netlink/ethtool.c -lpthread
"$out/core_check"
"$here/in_lab.sh" "$out/core_check"
$cc -o "$out/bsd_check" "$here/bsd_check.c" "$csrc/posix/bsd.c" "$csrc/core/addr.c"
"$out/bsd_check"
# The route calls and parser: the same sanitizers, a binary of their own.
$cc -o "$out/route_check" \
    "$here/route_check.c" "$csrc"/netlink/routes.c "$csrc"/netlink/route_parse.c "$csrc"/netlink/backend.c "$csrc"/netlink/heard.c \
    "$csrc"/netlink/io.c "$csrc"/netlink/fork.c "$csrc"/netlink/socket.c "$csrc"/netlink/names.c "$csrc"/netlink/parse.c "$csrc"/procfs/igmp.c "$csrc"/procfs/igmp_parse.c \
    "$csrc"/netlink/netns.c "$csrc"/core/addr.c "$csrc"/core/vec.c "$csrc"/netlink/stats.c "$csrc"/netlink/stats_parse.c "$csrc"/netlink/ethtool.c \
    -lpthread
"$out/route_check"
# The live tables' changes and merge against a model (random links, addresses,
# groups, merges and resyncs; tables equal at every step): a binary of its own.
$cc -o "$out/live_check" "$here/live_check.c" "$here/live_model.c" "$csrc/live/changes.c" "$csrc/live/merge.c" "$csrc/core/addr.c"
"$out/live_check"
