#!/usr/bin/env bash
# Run a command in a network namespace of its own holding links of every kind
# the getifaddrs() readers treat apart: loopback; veth links with a set
# address and MTU, a 15-byte name, IPv4 addresses with and without a
# broadcast address and under a label, IPv6 global and link-local addresses;
# a tun link (no hardware address) with IPv4 and IPv6 peers.  Needs root:
# without it, says so and runs nothing (status 0).
#
#   csrc/check/in_lab.sh COMMAND [ARG...]
set -euo pipefail
if [ "$(id -u)" -ne 0 ] || ! unshare -n true 2>/dev/null; then
    echo "(in_lab: skipped, a namespace needs root)"
    exit 0
fi
exec unshare -n bash -euc '
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
        echo "(in_lab: no tun link: /dev/net/tun is missing)"
    fi
    exec "$@"' in_lab "$@"
