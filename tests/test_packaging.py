"""What a newcomer meets first: the installed distribution, a source tree
without the built extension, a wrong NETIFC_BACKEND, a bench comparison of
files that are not there."""

import json
import os
import pathlib
import re
import shutil
import subprocess
import sys

import pytest

import netifc

ROOT = pathlib.Path(__file__).resolve().parent.parent


def run_python(code, cwd, env=None, *args):
    """python -c code in cwd (first on sys.path there), with NETIFC_BACKEND unset
    unless env sets it."""
    base = {k: v for k, v in os.environ.items() if k != "NETIFC_BACKEND"}
    return subprocess.run(
        [sys.executable, *args, "-c", code],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**base, **(env or {})},
        timeout=60,
    )


def installed_metadata(tmp_path):
    """What importlib.metadata says of the installed netifc, asked from outside
    the source tree (whose build metadata would answer otherwise)."""
    code = """if True:
        import importlib.metadata as m, json, sys
        try:
            d = m.distribution("netifc")
        except m.PackageNotFoundError:
            sys.exit(3)
        print(json.dumps({
            "license_expression": d.metadata.get_all("License-Expression"),
            "license_file": d.metadata.get_all("License-File"),
            "license": d.metadata.get_all("License"),
            "classifiers": d.metadata.get_all("Classifier"),
            "keywords": d.metadata.get_all("Keywords"),
            "license_text": d.read_text("licenses/LICENSE"),
            "files": [str(f) for f in d.files or ()],
            "metadata_version": d.metadata["Metadata-Version"],
            "version": d.version,
            "urls": d.metadata.get_all("Project-URL"),
        }))
    """
    r = run_python(code, tmp_path)
    if r.returncode == 3:
        if os.environ.get("CI"):
            pytest.fail("CI must test the installed distribution: netifc is not installed")
        pytest.skip("netifc is not installed (built in place only)")
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_distribution_declares_mit_and_ships_the_license(tmp_path):
    """PEP 639: the SPDX License-Expression and the License-File, in metadata
    2.4; no License field (the expression replaces it) and no license
    classifier (which goes with the old form)."""
    md = installed_metadata(tmp_path)
    assert md["metadata_version"] == "2.4"
    assert md["license_expression"] == ["MIT"]
    assert md["license"] is None
    assert md["license_file"] == ["LICENSE"]
    assert not [c for c in md["classifiers"] if c.startswith("License ::")]
    assert md["license_text"] == (ROOT / "LICENSE").read_text()
    assert md["license_text"].startswith("MIT License\n")


def test_version_is_the_changelogs_newest(tmp_path):
    """netifc --version, the installed distribution and __version__ say the
    version of the changelog's first dated entry, which is its first, or
    the one after a first "X (unreleased)" of a later version."""
    md = installed_metadata(tmp_path)
    r = subprocess.run(
        [sys.executable, "-m", "netifc", "--version"], capture_output=True, text=True, cwd="/"
    )
    assert r.returncode == 0 and r.stdout == f"netifc {md['version']}\n"
    assert netifc.__version__ == md["version"]
    changelog = ROOT / "CHANGELOG.rst"
    if not changelog.exists():
        pytest.skip("CHANGELOG.rst is not beside the tests")
    text = changelog.read_text()
    heads = re.findall(r"^(\S+) \((\d{4}-\d{2}-\d{2})\)\n-+$", text, re.M)
    titles = re.findall(r"^(\S.*)\n-{3,}$", text, re.M)  # every version's heading, in order
    assert heads and titles, "no dated entry"
    first = titles[0]
    if first.endswith(" (unreleased)"):
        coming = re.fullmatch(r"(\d+)\.(\d+)\.(\d+) \(unreleased\)", first)
        assert coming, first
        assert [int(n) for n in coming.groups()] > [int(n) for n in md["version"].split(".")]
        first = titles[1]
    assert first == f"{heads[0][0]} ({heads[0][1]})", first
    assert heads[0][0] == md["version"]


def test_distribution_classifiers_name_what_ci_tests(tmp_path):
    """Each CPython CI runs the suite on (.ci/wheels.sh: 3.9 to 3.13; .ci/sid.sh:
    3.14, 3.15), the platforms, the status and the topics."""
    md = installed_metadata(tmp_path)
    listed = {
        c.rsplit(" :: ", 1)[1]
        for c in md["classifiers"]
        if c.startswith("Programming Language :: Python :: 3.")
    }
    assert listed == {f"3.{n}" for n in range(9, 16)}
    for c in (
        "Operating System :: POSIX :: Linux",
        "Topic :: System :: Networking",
        "Typing :: Typed",
        "Programming Language :: Python :: 3 :: Only",
    ):
        assert c in md["classifiers"]
    assert any(c.startswith("Development Status :: ") for c in md["classifiers"])
    assert "netlink" in md["keywords"][0].split(",")


def test_distribution_ships_the_stubs_and_marker(tmp_path):
    names = set(installed_metadata(tmp_path)["files"])
    if not any(n.startswith("netifc/") for n in names):
        pytest.skip("an editable install lists no package files (the source tree has them)")
    assert {"netifc/py.typed", "netifc/_netifc.pyi", "netifc/__init__.py"} <= names


def test_missing_extension_says_so_and_how_to_build(tmp_path):
    shutil.copytree(
        pathlib.Path(netifc.__file__).parent,
        tmp_path / "netifc",
        ignore=shutil.ignore_patterns("*.so", "*.pyd", "__pycache__"),
    )
    r = run_python("import netifc", tmp_path, None, "-S")  # -S: no installed netifc
    assert r.returncode == 1
    last = r.stderr.strip().splitlines()[-1]
    assert last.startswith(
        "ModuleNotFoundError: netifc's C extension netifc._netifc is not built in "
        f"{tmp_path / 'netifc'}"
    ), r.stderr
    assert "pip install -e ." in last and "build_ext --inplace" in last
    assert "circular import" not in r.stderr


def test_broken_extension_keeps_its_own_error(tmp_path):
    """An extension that is there but does not load is not reported as missing."""
    pkg = pathlib.Path(netifc.__file__).parent
    shutil.copytree(pkg, tmp_path / "netifc", ignore=shutil.ignore_patterns("__pycache__"))
    so = [
        p
        for p in (tmp_path / "netifc").iterdir()
        if p.name.startswith("_netifc.") and p.suffix == ".so"
    ]
    assert len(so) == 1
    so[0].write_bytes(b"not an ELF file")
    r = run_python("import netifc", tmp_path, None, "-S")
    assert r.returncode == 1
    assert "not built" not in r.stderr
    assert "invalid ELF header" in r.stderr or "file too short" in r.stderr, r.stderr


def test_netifc_backend_chooses_the_backend(tmp_path):
    for name in ("netlink", "getifaddrs"):
        r = run_python(
            "import netifc; print(netifc.backend)",
            tmp_path,
            {"NETIFC_BACKEND": name},
            "-W",
            "error",
        )
        assert (r.returncode, r.stdout, r.stderr) == (0, name + "\n", "")


@pytest.mark.parametrize("value", ["bogus", "NETLINK", "netlink ", "\u00e9"])
def test_wrong_netifc_backend_warns_and_keeps_the_default(tmp_path, value):
    default = run_python("import netifc; print(netifc.backend)", tmp_path).stdout.strip()
    assert default == ("netlink" if sys.platform.startswith("linux") else "getifaddrs")
    r = run_python(
        "import netifc; print(netifc.backend); print(len(netifc.interfaces()) > 0)",
        tmp_path,
        {"NETIFC_BACKEND": value},
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout == f"{default}\nTrue\n"
    assert "RuntimeWarning" in r.stderr
    assert f"NETIFC_BACKEND={value!r} is not a netifc backend" in r.stderr
    assert "(valid: netlink, getifaddrs)" in r.stderr or "(valid: getifaddrs)" in r.stderr
    assert f"using {default!r}" in r.stderr
    # As an error, the warning stops the import: it is a real warning.
    r = run_python("import netifc", tmp_path, {"NETIFC_BACKEND": value}, "-W", "error")
    assert r.returncode == 1 and "RuntimeWarning" in r.stderr


def test_empty_netifc_backend_is_the_default(tmp_path):
    r = run_python(
        "import netifc; print(netifc.backend)", tmp_path, {"NETIFC_BACKEND": ""}, "-W", "error"
    )
    assert r.returncode == 0 and r.stderr == ""


def bench(*args, cwd):
    return subprocess.run(
        [sys.executable, "-m", "netifc.bench", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_bench_compare_missing_file_is_one_line(tmp_path):
    new = tmp_path / "new.json"
    new.write_text(json.dumps({"netifc": {"BenchmarkInterfaces": 100.0}}))
    r = bench("--compare", "missing.json", str(new), cwd=tmp_path)
    assert (r.returncode, r.stdout) == (2, "")
    assert r.stderr == (
        "python -m netifc.bench: error: --compare: missing.json: No such file or directory\n"
    )


@pytest.mark.parametrize("text", ["", "{", "[]", '{"go": {}}', '{"netifc": {"x": "fast"}}'])
def test_bench_compare_foreign_file_is_one_line(tmp_path, text):
    (tmp_path / "old.json").write_text(text)
    r = bench("--compare", "old.json", "old.json", cwd=tmp_path)
    assert (r.returncode, r.stdout) == (2, "")
    assert r.stderr == (
        "python -m netifc.bench: error: --compare: old.json: not a run saved with --json\n"
    )


def test_bench_compare_prints_the_delta(tmp_path):
    (tmp_path / "old.json").write_text(json.dumps({"netifc": {"A": 200.0, "B": 100.0}}))
    (tmp_path / "new.json").write_text(json.dumps({"netifc": {"A": 150.0, "C": 1.0}}))
    r = bench("--compare", "old.json", "new.json", cwd=tmp_path)
    assert (r.returncode, r.stderr) == (0, "")
    lines = r.stdout.splitlines()
    assert lines[0].split() == ["benchmark", "old", "ns/op", "new", "ns/op", "delta"]
    assert lines[1:] == [f"{'A':40s} {200:12d} {150:12d} {'-25.00%':>9s}"]


def test_bench_plot_without_matplotlib_says_how_to_get_it(tmp_path):
    code = (
        "import sys; sys.modules['matplotlib'] = None\n"
        "from netifc.bench import main; sys.exit(main(['--plot', 'x.png']))"
    )
    r = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=60
    )
    assert (r.returncode, r.stdout) == (2, "")
    assert r.stderr == (
        "python -m netifc.bench: error: --plot needs matplotlib, which is not"
        " installed: pip install 'netifc[plot]'\n"
    )
    assert not (tmp_path / "x.png").exists()


@pytest.mark.parametrize("sizes", ["", "a,b", "-1,5", "1.5"])
def test_bench_plot_sizes_are_counts(tmp_path, sizes):
    r = bench("--plot", "x.png", "--sizes", sizes, cwd=tmp_path)
    assert r.returncode == 2 and "--sizes" in r.stderr
    assert not (tmp_path / "x.png").exists()


def test_bench_plot_draws_each_size(tmp_path):
    pytest.importorskip("matplotlib")
    from conftest import require_namespaces

    require_namespaces()
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "netifc.bench",
            "--plot",
            "x.png",
            "--json",
            "x.json",
            "--sizes",
            "0,3",
            "--benchtime",
            "0.03",
            "--no-go",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "x.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    data = json.loads((tmp_path / "x.json").read_text())
    # lo alone, then lo and three veth pairs, each first end with two
    # addresses and both ends with their IPv6 link-local one
    assert [(p["pairs"], p["links"], p["addrs"]) for p in data["points"]] == [
        (0, 1, 2),
        (3, 7, 2 + 3 * 2 + 6),
    ]
    for p in data["points"]:
        assert set(p["ns"]) == {"interfaces", "lookup", "addrs"}
        assert set(p["ns"]["lookup"]) == {"netifc", "netifc live()", "kernel floor"}
        assert all(ns > 0 for row in p["ns"].values() for ns in row.values())
