#!/usr/bin/env bash
# The C core built with musl (musl-gcc, Debian musl-tools) and UBSan in trap
# mode, -Wall -Wextra -Werror, linked statically, then run:
#   - core_check (both backends, every option, threads, the socket layer;
#     the two backends compared: musl's getifaddrs() reads netlink itself)
#     in this network namespace, then in a namespace of its own holding
#     veth links, a tun link with peers and addresses of every kind;
#   - bsd_check (bsdaddr.c on recorded BSD structures);
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
core="$csrc/linux.c $csrc/nlio.c $csrc/nlsock.c $csrc/nlparse.c $csrc/nlwatch.c $csrc/proc.c
      $csrc/procnet.c $csrc/gifa.c $csrc/addr.c $csrc/vec.c $csrc/backend.c"

echo "-- core_check"
$cc -o "$out/core_check" "$here/core_check.c" "$here/compare.c" $core -lpthread
"$out/core_check"

# Links of every kind the getifaddrs() readers treat apart.
lab() {
    ip link set lo up
    ip link add v0 type veth peer name v1
    ip link set v0 address 02:00:5e:00:53:01 mtu 1400 up
    ip link set v1 up
    ip addr add 192.0.2.1/24 brd + dev v0
    ip addr add 192.0.2.7/24 dev v0 label v0:lbl
    ip addr add 198.51.100.1/32 dev v0
    ip addr add 2001:db8::1/64 dev v0 nodad
    ip addr add fe80::1234/64 dev v1 nodad
    ip link add name fifteen-bytes-x type veth peer name v3
    if ip tuntap add t0 mode tun 2>/dev/null; then
        ip link set t0 up
        ip addr add 10.1.0.1 peer 10.1.0.2 dev t0
        ip addr add 2001:db8:1::1 peer 2001:db8:1::2 dev t0 nodad
    else
        echo "(no tun link: /dev/net/tun is missing)"
    fi
}
if [ "$(id -u)" -eq 0 ] && unshare -n true 2>/dev/null; then
    echo "-- core_check in a namespace of its own"
    export -f lab
    unshare -n bash -euc "lab; '$out/core_check'"
else
    echo "-- core_check in a namespace of its own: skipped (needs root)"
fi

echo "-- bsd_check"
$cc -o "$out/bsd_check" "$here/bsd_check.c" "$csrc/bsdaddr.c" "$csrc/addr.c"
"$out/bsd_check"

for target in netlink procnet; do
    echo "-- fuzz_$target over its corpus"
    $cc -o "$out/replay_$target" "$csrc/fuzz/replay.c" "$csrc/fuzz/fuzz_$target.c" \
        "$csrc/nlparse.c" "$csrc/procnet.c" "$csrc/addr.c" "$csrc/vec.c"
    "$out/replay_$target" "$csrc/fuzz/corpus/$target"
done
