#!/usr/bin/env bash
# CI, Debian sid: CPython 3.14 and 3.15, which Debian 12 has not, from a
# Debian sid chroot (debootstrap), with sid's iproute2 as the tests' truth.
#   1. the sdist, and from it the cp310-abi3 wheel, by python -m build on
#      this machine's python3;
#   2. a minimal sid chroot: python3.14 and python3.15 (-dev, -venv), gcc,
#      iproute2, procps, ethtool, strace, and for tests/test_windows.py
#      mingw-w64 and Wine; the chroot is a mount point of its
#      own with proc, sys, dev and a tmpfs on /run, so ip netns can work;
#   3. for 3.14 and 3.15: the extension's sources compile without a warning
#      against that version's headers, full and Limited API; the sdist
#      builds a wheel with -Werror; the unpacked sdist's suite runs, from
#      outside any source tree, as root (the namespace tests), in a fresh
#      venv: on 3.15 with that wheel, on 3.14 with the abi3 wheel of step 1.
#      The soak tests (leak rounds) are deselected: CI runs them on each
#      build once (steps 2b and 4a).
#      The two versions run side by side (each its own namespaces), their
#      output shown one after the other.
# Standalone: bash .ci/sid.sh from the repository's root, as root, on a
# fresh Debian 12.  SID_MIRROR overrides the Debian mirror (by default the
# one of this machine's apt sources).
set -euo pipefail
cd "$(dirname "$0")/.."
export CI="${CI:-true}"
root=$(pwd)
start=$SECONDS
versions="3.14 3.15"
# The suite runs once per version: on 3.15 against the wheel its sdist
# builds there (GCC of sid, -Werror), on 3.14 against the host's abi3 wheel.
# Both are cp310-abi3 builds of one source, so between them they run each
# compiler's build on a new CPython; every version builds its wheel.
own=3.15

need_apt=()
command -v debootstrap >/dev/null 2>&1 || need_apt+=(debootstrap)
[ -f /usr/share/keyrings/debian-archive-keyring.gpg ] || need_apt+=(debian-archive-keyring)
python3 -c 'import ensurepip' 2>/dev/null || need_apt+=(python3-venv)
if [ "${#need_apt[@]}" -gt 0 ]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

# The mirror of this machine's Debian sources (deb822 or one-line), else deb.debian.org.
mirror=${SID_MIRROR:-$(
    { grep -hs '^URIs:' /etc/apt/sources.list.d/*.sources | sed 's/^URIs:[[:space:]]*//' | tr ' ' '\n'
      grep -hs '^deb[[:space:]]' /etc/apt/sources.list /etc/apt/sources.list.d/*.list |
          sed -E 's/^deb[[:space:]]+(\[[^]]*\][[:space:]]+)?//; s/[[:space:]].*//'
    } 2>/dev/null | grep -E '^https?://.*/debian/?$' | head -n 1 || true)}
mirror=${mirror:-http://deb.debian.org/debian}
proxy=$(apt-config dump --format '%v%n' Acquire::http::Proxy 2>/dev/null | head -n 1)
if [ -n "$proxy" ] && [ -z "${http_proxy:-}" ]; then export http_proxy=$proxy; fi

scratch=$(mktemp -d /tmp/netifc-sid.XXXXXX)
sid=$scratch/sid

mounts_under() {    # every mount point at or under $1, deepest first
    findmnt -rn -o TARGET | awk -v d="$1" '$0 == d || index($0, d "/") == 1' | sort -r
}
declare -A pid=()
cleanup() {
    local rc=$? m p left
    for p in "${pid[@]}"; do kill "$p" 2>/dev/null || true; done
    for m in $(mounts_under "$sid"); do
        umount "$m" 2>/dev/null || umount -l "$m" || true
    done
    left=$(mounts_under "$sid")
    if [ -n "$left" ]; then    # never rm -r through a mount (the host's /dev, /opt ...)
        echo "sid.sh: still mounted, $scratch left in place: $left" >&2
    else
        rm -rf --one-file-system "$scratch"
    fi
    echo "-- sid.sh took $((SECONDS - start)) s"
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

in_sid() { chroot "$sid" /usr/bin/env CI="$CI" LC_ALL=C.UTF-8 HOME=/root bash -c "$1"; }

echo "== sid 1. the sdist, and the abi3 wheel from it ($(python3 -V))"
python3 -m venv "$scratch/tools"
"$scratch/tools/bin/pip" install -q build
# (both arguments absent: the sdist, then the wheel built from the unpacked sdist)
"$scratch/tools/bin/python" -m build --outdir "$scratch/dist" "$root" >"$scratch/build.log" 2>&1 ||
    { cat "$scratch/build.log" >&2; exit 1; }
ls "$scratch/dist"
sdist=$(echo "$scratch"/dist/netifc-*.tar.gz)
abi3=$(echo "$scratch"/dist/netifc-*-cp310-abi3-*.whl)
[ -f "$sdist" ] && [ -f "$abi3" ] || { echo "no sdist or no cp310-abi3 wheel" >&2; exit 1; }

echo "== sid 2. the chroot ($mirror)"
t=$SECONDS
debootstrap --variant=minbase --include=ca-certificates sid "$sid" "$mirror" >"$scratch/debootstrap.log" 2>&1 ||
    { tail -n 30 "$scratch/debootstrap.log" >&2; exit 1; }
mount --bind "$sid" "$sid"          # "/" a mount point: ip netns exec remounts it
mount --make-private "$sid"
mount -t proc proc "$sid/proc"
mount -t sysfs sysfs "$sid/sys"
mount -t tmpfs tmpfs "$sid/run"     # /run/netns
mount --bind /dev "$sid/dev"        # /dev/net/tun, for ip tuntap
mount --bind /dev/pts "$sid/dev/pts"
mount -t tmpfs tmpfs "$sid/dev/shm"
cp /etc/resolv.conf "$sid/etc/resolv.conf" 2>/dev/null || true
echo 'force-unsafe-io' >"$sid/etc/dpkg/dpkg.cfg.d/unsafe-io"
in_sid "apt-get -qq -o Acquire::Check-Valid-Until=false update &&
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        $(for v in $versions; do printf 'python%s-dev python%s-venv ' "$v" "$v"; done) \
        gcc libc6-dev iproute2 procps ethtool strace gcc-mingw-w64-x86-64 wine64 >/dev/null"
# This machine's CA bundle (a TLS proxy's CA, if any) and pip's configuration,
# with the local directories that configuration names, read-only (an index's
# .../simple with its parent, where its links point).
cp /etc/ssl/certs/ca-certificates.crt "$sid/etc/ssl/certs/ca-certificates.crt"
for f in /etc/pip.conf /etc/xdg/pip /root/.config/pip /root/.pip /root/.pydistutils.cfg; do
    [ -e "$f" ] || continue
    mkdir -p "$sid$(dirname "$f")"
    cp -a "$f" "$sid$(dirname "$f")/"
done
for p in $("$scratch/tools/bin/pip" config list 2>/dev/null | sed -E "s/^[^=]*=//; s/^'(.*)'$/\1/" |
           tr ' ' '\n' | sed 's|^file://||; s|/simple/*$||' | grep '^/' | sort -u); do
    [ -e "$p" ] && [ ! -e "$sid$p" ] || continue
    if [ -d "$p" ]; then
        mkdir -p "$sid$p" && mount --bind -o ro "$p" "$sid$p"
    else
        mkdir -p "$sid$(dirname "$p")" && cp "$p" "$sid$p"
    fi
done
mkdir -p "$sid/work/dist" "$sid/work/src" "$sid/work/run"
cp "$sdist" "$abi3" "$sid/work/dist/"
tar -xzf "$sdist" -C "$sid/work/src" --strip-components=1
in_sid "ip -V; for v in $versions; do python\$v -VV; done"
echo "-- the chroot took $((SECONDS - t)) s"

echo "== sid 3. each CPython: its headers, the sdist's wheel, the suite (3.15: on that wheel; 3.14: on the abi3 one)"
srcs='csrc/core/*.c csrc/live/*.c csrc/netlink/*.c csrc/procfs/*.c csrc/posix/*.c csrc/windows/*.c csrc/python/*.c csrc/floor/*.c'
suite='(cd /work/run && "$venv/bin/python" -c "
import netifc, netifc._netifc as ext
assert \"/site-packages/netifc/\" in netifc.__file__, netifc.__file__
print(\"testing\", ext.__file__)" &&
    "$venv/bin/python" -m pytest -q -p no:cacheprovider -m "not soak" --rootdir /work/src /work/src/tests)'
one_version() {
    local v=$1 t=$SECONDS
    echo "-- CPython $v: its headers, full and Limited API"
    in_sid "set -e; cd /work/src
        inc=\$(python$v -c 'import sysconfig; print(sysconfig.get_paths()[\"include\"])')
        gcc -std=gnu11 -O2 -Wall -Wextra -Werror -I\$inc -Icsrc -fsyntax-only $srcs
        gcc -std=gnu11 -O2 -Wall -Wextra -Werror -DPy_LIMITED_API=0x030A0000 -I\$inc -Icsrc -fsyntax-only $srcs"
    echo "-- $v: the wheel the sdist builds (CFLAGS=-Werror)"
    in_sid "set -e; python$v -m venv /work/venv-$v; venv=/work/venv-$v
        CFLAGS=-Werror \$venv/bin/pip wheel -q --no-cache-dir --no-deps -w /work/wheel-$v /work/dist/*.tar.gz
        whl=\$(echo /work/wheel-$v/netifc-*.whl); echo \"built \$(basename \$whl)\"
        if [ $v = $own ]; then \$venv/bin/pip install -q \"\$whl[test]\"; $suite; fi"
    if [ "$v" != "$own" ]; then
        echo "-- $v: the suite on the abi3 wheel of $(python3 -V)"
        in_sid "set -e; python$v -m venv /work/venv-abi3-$v; venv=/work/venv-abi3-$v
            \$venv/bin/pip install -q \"/work/dist/$(basename "$abi3")[test]\"
            $suite"
    else
        echo "-- $v: the suite ran on that wheel"
    fi
    echo "-- CPython $v took $((SECONDS - t)) s"
}
for v in $versions; do
    one_version "$v" >"$scratch/log-$v" 2>&1 &
    pid[$v]=$!
done
# each version's output once both have ended, a failed one's last: CI shows
# the end of a failed step, which is then that version's failures
failed="" passed=""
for v in $versions; do
    if wait "${pid[$v]}"; then passed="$passed $v"; else failed="$failed $v"; fi
done
for v in $passed $failed; do
    grep -v "^WARNING: Location '.*' is ignored" "$scratch/log-$v" || true
done
[ -z "$failed" ] || { echo "sid.sh: failed on CPython$failed" >&2; exit 1; }
