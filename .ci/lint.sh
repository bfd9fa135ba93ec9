#!/usr/bin/env bash
# CI, lint: the sources are as their linters and formatters want them.
#   1. ruff (the version the lint extra pins, in a venv of this step's own):
#      ruff check and ruff format --check of netifc/, tests/ and benchmarks/,
#      with pyproject.toml's [tool.ruff];
#   2. clang-format 19 (Debian 12's clang-format-19) --dry-run --Werror on
#      every .c and .h under csrc/, check/ and fuzz/ among them, with
#      .clang-format (csrc/python/.clang-format for the extension's tables).
# Nothing is changed: .ci/reformat.sh applies both.
# Standalone: bash .ci/lint.sh from the repository's root on a fresh Debian 12
# (as root, for apt-get).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
start=$SECONDS
if ! command -v clang-format-19 >/dev/null 2>&1; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq clang-format-19 >/dev/null
fi
python3 -c 'import ensurepip' 2>/dev/null || {
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null
}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
ruff_pin=$(python3 -c 'import re, sys; print(re.search(r"\"(ruff==[^\"]+)\"", open(sys.argv[1]).read()).group(1))' pyproject.toml)
python3 -m venv "$scratch/venv"
"$scratch/venv/bin/pip" install -q "$ruff_pin"
ruff="$scratch/venv/bin/ruff"

status=0
echo "== lint 1. $("$ruff" --version): check, format --check"
"$ruff" check netifc tests benchmarks || status=1
"$ruff" format --check netifc tests benchmarks || status=1

echo "== lint 2. $(clang-format-19 --version | sed 's/^Debian //'): --dry-run --Werror"
find csrc -name '*.[ch]' -print0 | sort -z | xargs -0 clang-format-19 --dry-run --Werror || status=1

[ "$status" -eq 0 ] || echo "lint: fix the above, or run bash .ci/reformat.sh (the formatters) and review its diff"
echo "-- lint took $((SECONDS - start)) s"
exit "$status"
