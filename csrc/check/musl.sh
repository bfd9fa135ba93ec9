#!/usr/bin/env bash
# The C core built with musl (musl-gcc, Debian musl-tools) and UBSan in trap
# mode, -Wall -Wextra -Werror, linked statically, then run:
#   - core_check (both backends, every option, threads, the socket layer;
#     the two backends compared: musl's getifaddrs() reads netlink itself)
#     in this network namespace, then in one of its own (in_lab.sh: veth
#     and tun links, peers, labels, addresses of every kind);
#   - bsd_check (posix/bsd.c on recorded BSD structures);
#   - route_check (the route calls and parser);
#   - each fuzz target over its committed corpus (csrc/fuzz/replay.c).
# ASan and LSan have no musl runtime: the memory checks are csrc/check/run.sh's
# (glibc).  Needs root for the namespace; without it that run is skipped.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
csrc=$(dirname "$here")
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# musl's headers with the kernel's UAPI headers (Debian linux-libc-dev) after them.
mkdir "$out/kernel"
ln -s /usr/include/linux /usr/include/asm-generic "$out/kernel/"
ln -s "/usr/include/$(gcc -print-multiarch)/asm" "$out/kernel/asm"
cc="musl-gcc -std=gnu11 -g -O1 -static -Wall -Wextra -Werror -idirafter $out/kernel -I$csrc
    -fsanitize=undefined -fsanitize-undefined-trap-on-error"
core="$csrc/netlink/backend.c $csrc/netlink/heard.c $csrc/netlink/io.c $csrc/netlink/fork.c $csrc/netlink/socket.c $csrc/netlink/names.c $csrc/netlink/parse.c $csrc/netlink/watch.c $csrc/netlink/netns.c $csrc/procfs/igmp.c
      $csrc/procfs/igmp_parse.c $csrc/posix/getifaddrs.c $csrc/core/addr.c $csrc/core/vec.c $csrc/core/backend.c
      $csrc/netlink/stats.c $csrc/netlink/stats_parse.c $csrc/netlink/ethtool.c"

echo "-- core_check"
$cc -o "$out/core_check" "$here/core_check.c" "$here/compare.c" $core -lpthread
"$out/core_check"

echo "-- core_check in a namespace of its own"
"$here/in_lab.sh" "$out/core_check"

echo "-- bsd_check"
$cc -o "$out/bsd_check" "$here/bsd_check.c" "$csrc/posix/bsd.c" "$csrc/core/addr.c"
"$out/bsd_check"

echo "-- route_check"
$cc -o "$out/route_check" "$here/route_check.c" "$csrc/netlink/routes.c" "$csrc/netlink/route_parse.c" $core \
    -lpthread
"$out/route_check"

live="$csrc/check/live_model.c $csrc/live/changes.c $csrc/live/merge.c"
for target in netlink procnet route live; do
    echo "-- fuzz_$target over its corpus"
    # shellcheck disable=SC2086 # (the live model's files, for fuzz_live)
    $cc -o "$out/replay_$target" "$csrc/fuzz/replay.c" "$csrc/fuzz/fuzz_$target.c" $live \
        "$csrc/netlink/parse.c" "$csrc/netlink/heard.c" "$csrc/netlink/stats_parse.c" "$csrc/netlink/route_parse.c" "$csrc/procfs/igmp_parse.c" "$csrc/core/addr.c" \
        "$csrc/core/vec.c"
    "$out/replay_$target" "$csrc/fuzz/corpus/$target"
done
