#!/usr/bin/env bash
# Build each libFuzzer target with ASan+UBSan and run it for SECONDS (default
# 60) on a copy of the committed corpus.  Fails on any finding.  Needs clang
# and its runtimes (Debian: clang libclang-rt-14-dev).
#
#   csrc/fuzz/run.sh [SECONDS]
set -euo pipefail
secs=${1:-60}
here=$(cd "$(dirname "$0")" && pwd)
csrc=$(dirname "$here")
cc=$(command -v clang || command -v clang-14)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
flags="-g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -I$csrc"
common="$csrc/netlink/parse.c $csrc/netlink/heard.c $csrc/netlink/stats_parse.c $csrc/netlink/route_parse.c $csrc/procfs/igmp_parse.c $csrc/core/addr.c $csrc/core/vec.c"
# fuzz_live drives the live tables' model (csrc/check/live_model.c) over csrc/live/.
live="$csrc/check/live_model.c $csrc/live/changes.c $csrc/live/merge.c"
for target in netlink procnet route live; do
    "$cc" $flags -o "$work/fuzz_$target" "$here/fuzz_$target.c" $common $live
    mkdir -p "$work/corpus_$target"
    echo "== fuzz_$target for ${secs}s"
    # New inputs go to the scratch corpus; the committed seeds stay as they are.
    UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    "$work/fuzz_$target" -max_total_time="$secs" -print_final_stats=1 \
        -artifact_prefix="$work/crash_$target-" \
        "$work/corpus_$target" "$here/corpus/$target" 2>&1 | tee "$work/log_$target" |
        grep -E '^(#[0-9]+.*(INITED|DONE)|stat::|==[0-9]+==ERROR|SUMMARY)' || true
    status=${PIPESTATUS[0]}
    if [ "$status" -ne 0 ] || ls "$work"/crash_"$target"-* >/dev/null 2>&1; then
        echo "fuzz_$target FAILED (status $status):"
        tail -50 "$work/log_$target"
        for f in "$work"/crash_"$target"-*; do [ -e "$f" ] && xxd "$f" | head -20; done
        exit 1
    fi
done
