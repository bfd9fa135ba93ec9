#!/usr/bin/env bash
# Applies the formatters .ci/lint.sh checks, in place:
#   1. ruff check --fix --select I (import order: the one fix applied
#      without a person; the other findings are reported by lint.sh);
#   2. ruff format;
#   both on netifc/, tests/ and benchmarks/ with pyproject.toml's [tool.ruff];
#   3. clang-format-19 -i on every .c and .h under csrc/ (two passes).
# Review the diff (git diff) before committing it. Standalone, as root on
# Debian 12 like lint.sh; RUFF=path uses a ruff already installed (it must
# be the version the lint extra pins).
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v clang-format-19 >/dev/null 2>&1; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq clang-format-19 >/dev/null
fi
ruff=${RUFF:-}
if [ -z "$ruff" ]; then
    scratch=$(mktemp -d)
    trap 'rm -rf "$scratch"' EXIT
    ruff_pin=$(python3 -c 'import re, sys; print(re.search(r"\"(ruff==[^\"]+)\"", open(sys.argv[1]).read()).group(1))' pyproject.toml)
    python3 -m venv "$scratch/venv"
    "$scratch/venv/bin/pip" install -q "$ruff_pin"
    ruff="$scratch/venv/bin/ruff"
fi
"$ruff" check --fix --select I -q netifc tests benchmarks
"$ruff" format -q netifc tests benchmarks
# twice: on a few trailing comments (AlignTrailingComments Leave) clang-format
# 19's first pass is not yet its last
for pass in 1 2; do
    find csrc -name '*.[ch]' -print0 | sort -z | xargs -0 clang-format-19 -i
done
git diff --stat 2>/dev/null | tail -1 || true
