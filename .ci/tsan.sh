#!/usr/bin/env bash
# CI: the threaded, fork, namespace and live tests against a ThreadSanitizer
# build of the extension (gcc's libtsan, preloaded into the un-instrumented
# python3), in a scratch venv.  Any report fails the step (exit 66) unless
# .ci/tsan.supp suppresses it: only reports wholly inside CPython or libc.
# Standalone: `bash .ci/tsan.sh` from the repo root, as root (the namespace
# tests), on a fresh Debian 12.
set -euo pipefail
cd "$(dirname "$0")/.."
export CI="${CI:-true}"
root=$(pwd)
start=$SECONDS

need_apt=()
command -v gcc >/dev/null 2>&1 || need_apt+=(gcc)
[ -e "$(gcc -print-file-name=libtsan.so 2>/dev/null || echo none)" ] || need_apt+=(libgcc-12-dev libtsan2)
command -v ip >/dev/null 2>&1 || need_apt+=(iproute2)
command -v sysctl >/dev/null 2>&1 || need_apt+=(procps)
command -v ethtool >/dev/null 2>&1 || need_apt+=(ethtool)
command -v setarch >/dev/null 2>&1 || need_apt+=(util-linux)
python3 -c 'import ensurepip' 2>/dev/null || need_apt+=(python3-venv)
[ -e "$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["include"])')/Python.h" ] ||
    need_apt+=(python3-dev)
if [ "${#need_apt[@]}" -gt 0 ]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

echo "== the extension built with -fsanitize=thread"
python3 -m venv "$scratch/venv"
# What these tests need, built as it comes (netifaces' configure probes fail
# under TSan's flags, and no test here uses it); then netifc under them.
"$scratch/venv/bin/pip" install -q pytest hypothesis
# From a copy of the tracked files: an earlier build's objects in the tree
# (build/) would be linked again as they are, without the instrumentation.
mkdir "$scratch/src"
(cd "$root" && git ls-files -z | xargs -0 tar -cf -) | tar -xf - -C "$scratch/src"
CFLAGS="-fsanitize=thread -fno-omit-frame-pointer -g" LDFLAGS="-fsanitize=thread" \
    "$scratch/venv/bin/pip" install -q --no-cache-dir --no-deps "$scratch/src"
for ext in "$scratch"/venv/lib/python3*/site-packages/netifc/_netifc*.so; do
    syms=$(nm -D "$ext")     # whole, first: grep -q would end a pipe early (SIGPIPE under pipefail)
    grep -q __tsan_read <<<"$syms" || { echo "tsan.sh: $ext is not instrumented" >&2; exit 1; }
done

# The threads, forks, namespaces and live tables: every test of these files
# (tests/test_threads.py has the NetNS close/reopen race and the
# subinterpreter), and of the others those that start threads or fork.
tests=(tests/test_threads.py tests/test_live.py tests/test_live_window.py tests/test_netns.py)
threaded="thread or fork or churn or concurrent"
echo "== under ThreadSanitizer: ${tests[*]}; elsewhere: -k '$threaded'"
mkdir "$scratch/reports"
tsan_env=(
    LD_PRELOAD="$(gcc -print-file-name=libtsan.so)"
    # halt_on_error: the first report ends the run, exit 66 fails the step.
    # log_path: pytest captures fd 2, and a halted process never shows it;
    # every process (Python children too) writes its reports there.
    TSAN_OPTIONS="halt_on_error=1 exitcode=66 second_deadlock_stack=1 log_path=$scratch/reports/tsan suppressions=$root/.ci/tsan.supp"
)
# setarch -R: without address randomisation, so the runtime finds the memory
# layout it expects whatever vm.mmap_rnd_bits the kernel has.
run() {
    local rc=0
    (cd "$scratch" && env "${tsan_env[@]}" setarch "$(uname -m)" -R \
        "$scratch/venv/bin/python" -m pytest -q -p no:cacheprovider --rootdir "$root" "$@") || rc=$?
    if [ -n "$(ls "$scratch/reports")" ]; then
        cat "$scratch/reports"/*
        echo "tsan.sh: ThreadSanitizer reported (above); exit status $rc" >&2
        exit 66
    fi
    [ "$rc" -eq 0 ] || { echo "tsan.sh: the tests failed ($rc)" >&2; exit "$rc"; }
}
run "${tests[@]/#/$root/}"
run "$root/tests/test_hardening.py" "$root/tests/test_netlink.py" "$root/tests/test_counters.py" \
    "$root/tests/test_floor.py" -k "$threaded"
echo "-- tsan.sh took $((SECONDS - start)) s"
