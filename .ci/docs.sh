#!/usr/bin/env bash
# CI, docs: the documentation site builds without a warning.
#   1. the docs extra (sphinx, furo) into the venv, with netifc itself
#      (autodoc imports it);
#   2. sphinx-build -W (a warning is an error) of docs/ into docs/_build.
# The examples of the README and of the pages run in the test suite
# (tests/test_doc_examples.py), not here.
# Standalone: bash .ci/docs.sh from the repository's root on a fresh Debian 12.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
.venv/bin/pip install -q -e '.[docs]'
rm -rf docs/_build
.venv/bin/python -m sphinx -W --keep-going -q -b html docs docs/_build/html
echo "docs: built in docs/_build/html"
