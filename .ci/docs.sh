#!/usr/bin/env bash
# CI, docs: the documentation site builds without a warning.
#   1. netifc with its docs extra (sphinx, furo) into a venv of this step's
#      own (autodoc imports the installed package), so that the step can run
#      beside the others;
#   2. sphinx-build -W (a warning is an error) of docs/ into docs/_build/html;
#   3. with the plot extra (matplotlib) too, the tests of the performance
#      page's figure, python -m netifc.bench --plot (root: it builds
#      namespaces), which the suite skips where matplotlib is missing.
# The examples of the README and of the pages run in the test suite
# (tests/test_doc_examples.py), not here.
# Standalone: bash .ci/docs.sh from the repository's root on a fresh Debian 12.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
start=$SECONDS
python3 -m venv "$scratch/venv"
"$scratch/venv/bin/pip" install -q "$root[docs,plot,test]"
rm -rf docs/_build
# from outside the tree, so that autodoc imports the installed netifc
(cd "$scratch" && "$scratch/venv/bin/sphinx-build" -W --keep-going -q -b html \
    "$root/docs" "$root/docs/_build/html")
echo "docs: built in docs/_build/html ($((SECONDS - start)) s)"
(cd "$scratch" && "$scratch/venv/bin/python" -m pytest -q -p no:cacheprovider \
    --rootdir "$root" "$root/tests/test_packaging.py" -k plot)
echo "docs: done in $((SECONDS - start)) s"
