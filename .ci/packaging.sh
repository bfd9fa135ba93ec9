#!/usr/bin/env bash
# CI, packaging: what a user gets from the sdist and the wheel.
#   1. python -m build makes the sdist, then the wheel from the sdist, and
#      warns of nothing deprecated;
#   2. both carry LICENSE; the sdist carries the tests and what they need,
#      the wheel the extension, its stubs and py.typed;
#   3. the wheel goes into a fresh venv, and imports from there;
#   4. mypy --strict on the installed package and on a typed use of it,
#      and stubtest of the installed extension against its stubs.
# (The unpacked sdist's suite against a wheel built from it, in a fresh venv,
# is .ci/wheels.sh's, on every CPython 3.9-3.13 it is given: run here too,
# on python3, it was that run again, some 15 minutes of CI.)
# Standalone: bash .ci/packaging.sh from the repository's root, as root, on
# a fresh Debian 12 (PYTHON picks the interpreter; python3 by default).
set -euo pipefail
cd "$(dirname "$0")/.."
export CI="${CI:-true}"
root=$(pwd)
python=${PYTHON:-python3}

if ! command -v gcc >/dev/null 2>&1 || ! command -v ip >/dev/null 2>&1 ||
   ! command -v sysctl >/dev/null 2>&1 ||
   ! command -v "$python" >/dev/null 2>&1 ||
   ! "$python" -c 'import ensurepip, os, sysconfig
assert os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h"))' 2>/dev/null; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gcc python3-dev python3-venv iproute2 procps >/dev/null
fi

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

echo "== packaging 1. sdist and wheel with python -m build"
"$python" -m venv "$scratch/build-venv"
"$scratch/build-venv/bin/pip" install -q build
"$scratch/build-venv/bin/python" -m build --outdir "$scratch/dist" "$root" 2>&1 |
    tee "$scratch/build.log"
# the metadata as setuptools wants it: no deprecation warning (the license
# table form, deprecated, stops building with the setuptools of 2027-02-18)
if grep -i "deprecat" "$scratch/build.log"; then
    echo "python -m build warns of something deprecated (above)"
    exit 1
fi
sdist=$(echo "$scratch"/dist/netifc-*.tar.gz)
wheel=$(echo "$scratch"/dist/netifc-*.whl)
[ -f "$sdist" ] && [ -f "$wheel" ]

echo "== packaging 2. what each carries"
"$python" - "$sdist" "$wheel" "$root" <<'EOF'
import os, subprocess, sys, tarfile, zipfile
sdist, wheel, root = sys.argv[1:]
top = os.path.basename(sdist)[:-len(".tar.gz")]
with tarfile.open(sdist) as t:
    in_sdist = {n[len(top) + 1:] for n in t.getnames() if n.startswith(top + "/")}
tracked = subprocess.run(["git", "-C", root, "ls-files"], capture_output=True, text=True,
                         check=True).stdout.split()
want = {"LICENSE", "README.rst", "pyproject.toml", "setup.py", "MANIFEST.in"}
want |= {f for f in tracked if f.startswith(("tests/", "csrc/", "netifc/", "benchmarks/", ".ci/"))}
missing = sorted(want - in_sdist)
assert not missing, f"the sdist lacks {missing}"
with zipfile.ZipFile(wheel) as z:
    in_wheel = set(z.namelist())
dist_info = top + ".dist-info"
for name in (f"{dist_info}/licenses/LICENSE", "netifc/py.typed", "netifc/_netifc.pyi",
             "netifc/_floor.pyi", "netifc/__init__.py"):
    assert name in in_wheel, f"the wheel lacks {name}"
assert any(n.startswith("netifc/_floor.") and n.endswith(".so") for n in in_wheel), \
    "the wheel lacks the floor timer"
assert any(n.startswith("netifc/_netifc.") and n.endswith(".so") for n in in_wheel), \
    "the wheel lacks the extension"
with zipfile.ZipFile(wheel) as z:
    meta = z.read(f"{dist_info}/METADATA").decode()
# PEP 639 (pyproject.toml): the SPDX License-Expression and the file that
# carries the text, in metadata 2.4; neither the License field it replaces
# nor a license classifier beside it
assert "Metadata-Version: 2.4\n" in meta, meta
assert "License-Expression: MIT\n" in meta and "License-File: LICENSE\n" in meta, meta
assert "\nLicense:" not in meta and "Classifier: License ::" not in meta, meta
# the version every name carries: the package's, the changelog's newest entry
version = top.split("-", 1)[1]
assert f"\nVersion: {version}\n" in meta, meta
assert os.path.basename(wheel).startswith(f"netifc-{version}-"), wheel
with open(os.path.join(root, "CHANGELOG.rst")) as f:
    assert f"\n{version} (" in f.read(), f"CHANGELOG.rst has no entry for {version}"
print(f"sdist: {len(in_sdist)} files; wheel: {len(in_wheel)} files; LICENSE in both")
EOF

echo "== packaging 3. the wheel in a fresh venv"
"$python" -m venv "$scratch/venv"
"$scratch/venv/bin/pip" install -q "$wheel[test]"
mkdir "$scratch/src" "$scratch/run"
tar -xzf "$sdist" -C "$scratch/src" --strip-components=1
cd "$scratch/run"
"$scratch/venv/bin/python" -c '
import netifc, sys
assert "/site-packages/netifc/" in netifc.__file__, netifc.__file__
print("installed", netifc.__file__)'

echo "== packaging 4. mypy --strict and stubtest on the installed package"
"$scratch/venv/bin/python" -m mypy --strict --cache-dir "$scratch/mypy-cache" -p netifc
"$scratch/venv/bin/python" -m mypy --strict --disallow-any-expr --cache-dir "$scratch/mypy-cache" \
    "$scratch/src/tests/typing_sample.py"
"$scratch/venv/bin/python" -m mypy.stubtest netifc._netifc netifc._floor
