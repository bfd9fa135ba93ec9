"""README.rst's set-up commands are the ones CI runs."""
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parent.parent


def readme_commands():
    text = (ROOT / "README.rst").read_text()
    return [m.strip() for m in re.findall(r"::\n\n    (.+)\n", text)]


def test_ci_runs_readme_test_command():
    cmds = readme_commands()
    assert "pip install -e . && python -m netifc" in cmds
    test_cmd = "pip install '.[test]' && pytest"
    assert test_cmd in cmds
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert test_cmd in ci
