"""README.rst's set-up commands are the ones CI runs."""

import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parent.parent

APT_CMD = "apt-get update && apt-get install -y gcc python3-dev python3-venv iproute2 procps"
RUN_CMD = "python3 -m venv .venv && .venv/bin/pip install -e . && .venv/bin/python -m netifc"
TEST_CMD = (
    "python3 -m venv .venv && .venv/bin/pip install -e '.[test]' && .venv/bin/python -m pytest"
)


def readme_commands():
    """The first line of each literal block (``::``), after pip's own."""
    text = (ROOT / "README.rst").read_text()
    cmds = [m.strip() for m in re.findall(r"(?<!code-block)::\n\n    (.+)\n", text)]
    return [c for c in cmds if c != "pip install netifc"]


def test_readme_set_up_commands():
    cmds = readme_commands()
    assert cmds[:3] == [APT_CMD, RUN_CMD, TEST_CMD]


def test_ci_runs_readme_commands():
    ci = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()]
    assert RUN_CMD in ci
    assert TEST_CMD in ci


def test_readme_is_a_landing_page():
    """At most 300 lines, and every page it links to is there."""
    text = (ROOT / "README.rst").read_text()
    assert len(text.splitlines()) <= 300
    targets = re.findall(r"`[^`<]*<([^>]+)>`_", text)
    assert targets
    local = [t for t in targets if "://" not in t]
    assert local == targets, "the README links to nothing outside the repository"
    assert [t for t in local if not (ROOT / t).is_file()] == []
