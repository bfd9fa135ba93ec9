"""Typing and introspection: mypy --strict on the package and on a typed use
of it, stubtest of the C extension against its stubs, inspect.signature()
on every public callable, and docstrings that name what each call raises."""

import inspect
import os
import pathlib
import shutil
import subprocess
import sys

import pytest

import netifc

HERE = pathlib.Path(__file__).resolve().parent
SAMPLE = HERE / "typing_sample.py"
# The directory holding the netifc that is imported: the source tree when it
# is built in place or installed editable (which type checkers cannot follow),
# site-packages when installed.
PACKAGE_PARENT = pathlib.Path(netifc.__file__).resolve().parent.parent


def mypy_argv(*args):
    try:
        import mypy  # noqa: F401
    except ImportError:
        if os.environ.get("CI"):
            pytest.fail("CI must run the type checks: mypy is not installed")
        pytest.skip("the type checks need mypy (pip install -e '.[test]')")
    return [sys.executable, "-m", *args]


@pytest.fixture(scope="module")
def mypy_cache(tmp_path_factory):
    return str(tmp_path_factory.mktemp("mypy-cache"))


def checker_env():
    env = dict(os.environ)
    if PACKAGE_PARENT not in [pathlib.Path(p).resolve() for p in sys.path if "site-packages" in p]:
        env["MYPYPATH"] = str(PACKAGE_PARENT)
    return env


def run_checker(argv, cwd):
    """A type checker run in cwd (an empty directory) on the imported netifc:
    found in site-packages when installed, else through MYPYPATH."""
    r = subprocess.run(
        argv, cwd=cwd, env=checker_env(), capture_output=True, text=True, timeout=600
    )
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout


def test_mypy_strict_passes_on_the_package(mypy_cache, tmp_path):
    out = run_checker(
        mypy_argv("mypy", "--strict", "--cache-dir", mypy_cache, "-p", "netifc"), tmp_path
    )
    assert out.startswith("Success: no issues found")


def test_mypy_strict_passes_on_a_typed_use_with_no_any(mypy_cache, tmp_path):
    out = run_checker(
        mypy_argv(
            "mypy", "--strict", "--disallow-any-expr", "--cache-dir", mypy_cache, str(SAMPLE)
        ),
        tmp_path,
    )
    assert out.startswith("Success: no issues found")


def test_the_typed_use_uses_every_public_name():
    text = SAMPLE.read_text()
    assert [n for n in netifc.__all__ if f"netifc.{n}" not in text] == []


def test_the_typed_use_runs():
    """The sample's static claims hold for the objects netifc returns."""
    sys.path.insert(0, str(HERE))
    try:
        import typing_sample
    finally:
        sys.path.remove(str(HERE))
    typing_sample.main()


def test_stubtest_passes_on_the_extensions(tmp_path):
    out = run_checker(mypy_argv("mypy.stubtest", "netifc._netifc", "netifc._floor"), tmp_path)
    assert "Success: no issues found" in out


def test_a_mistyped_use_fails(mypy_cache, tmp_path):
    """The checks above can fail: a wrong claim about netifc's types is caught."""
    bad = tmp_path / "bad.py"
    bad.write_text(
        "import netifc\n"
        "lo: netifc.Interface = netifc.interface_by_name('lo')\n"
        "mtu: str = lo.mtu\n"
        "n: int = netifc.backend\n"
        "netifc.no_such_name\n"
    )
    argv = mypy_argv("mypy", "--strict", "--cache-dir", mypy_cache, str(bad))
    r = subprocess.run(
        argv, cwd=tmp_path, env=checker_env(), capture_output=True, text=True, timeout=600
    )
    assert r.returncode == 1
    assert (
        'bad.py:3: error: Incompatible types in assignment (expression has type "int", '
        'variable has type "str")' in r.stdout
    )
    assert (
        'bad.py:4: error: Incompatible types in assignment (expression has type "str", '
        'variable has type "int")' in r.stdout
    )
    assert 'bad.py:5: error: Module has no attribute "no_such_name"' in r.stdout


def public_callables():
    """(qualified name, object) for every public function and method."""
    out = []
    for name in netifc.__all__:
        obj = getattr(netifc, name)
        if inspect.isclass(obj):
            for attr, member in vars(obj).items():
                if not attr.startswith("_") and callable(member):
                    out.append((f"{name}.{attr}", getattr(obj, attr)))
        elif callable(obj):
            out.append((name, obj))
    return out


SIGNATURES = {
    "interfaces": "()",
    "interface_by_index": "(index, /)",
    "interface_by_name": "(name, /)",
    "interface_addrs": "()",
    "snapshot": "()",
    "multicast_snapshot": "()",
    "Interface.addrs": "(self, /)",
    "Interface.multicast_addrs": "(self, /)",
    "Snapshot.by_index": "(self, index)",
    "Snapshot.by_name": "(self, name)",
    "Snapshot.addrs_of": "(self, interface)",
}


def test_every_public_callable_has_a_signature():
    found = dict(public_callables())
    assert set(SIGNATURES) <= set(found)
    for name, obj in found.items():
        sig = inspect.signature(obj)  # ValueError when it has none
        if name in SIGNATURES:
            assert (
                str(
                    sig.replace(
                        return_annotation=inspect.Signature.empty,
                        parameters=[
                            p.replace(annotation=inspect.Parameter.empty)
                            for p in sig.parameters.values()
                        ],
                    )
                )
                == SIGNATURES[name]
            ), name


DOCUMENTED = ("NoSuchInterface", "TypeError", "ValueError", "OSError")


def raised(fn, *args):
    """The documented class of what fn(*args) raises (ValueError for a
    UnicodeEncodeError), else its own class's name."""
    with pytest.raises(Exception) as info:
        fn(*args)
    names = [cls.__name__ for cls in type(info.value).__mro__]
    return next((n for n in names if n in DOCUMENTED), names[0])


def test_docstrings_name_what_each_call_raises():
    lo = netifc.interfaces()[0]
    snap = netifc.snapshot()
    # What each call is seen to raise, and OSError wherever the kernel is asked.
    kernel = {"OSError"}
    raises = {
        netifc.interfaces: kernel,
        netifc.interface_addrs: kernel,
        netifc.snapshot: kernel,
        netifc.multicast_snapshot: kernel,
        netifc.Interface.addrs: kernel,
        netifc.Interface.multicast_addrs: kernel,
        netifc.interface_by_index: kernel
        | {
            raised(netifc.interface_by_index, "1"),
            raised(netifc.interface_by_index, True),
            raised(netifc.interface_by_index, 0),
            raised(netifc.interface_by_index, 2**31 - 1),
        },
        netifc.interface_by_name: kernel
        | {
            raised(netifc.interface_by_name, b"lo"),
            raised(netifc.interface_by_name, ""),
            raised(netifc.interface_by_name, "a\0b"),
            raised(netifc.interface_by_name, "\ud800"),
            raised(netifc.interface_by_name, "no-such-link0"),
        },
        netifc.Snapshot.by_index: {raised(snap.by_index, "1"), raised(snap.by_index, 2**31 - 1)},
        netifc.Snapshot.by_name: {raised(snap.by_name, 1), raised(snap.by_name, "no-such-link0")},
        netifc.Snapshot.addrs_of: {raised(snap.addrs_of, "1"), raised(snap.addrs_of, 2**31 - 1)},
    }
    assert raises[netifc.interface_by_index] == {"OSError", "TypeError", "NoSuchInterface"}
    assert raises[netifc.interface_by_name] == raises[netifc.interface_by_index]
    assert lo.addrs() == netifc.interface_by_index(lo.index).addrs()
    for fn, names in raises.items():
        doc = inspect.getdoc(fn) or ""
        for name in names:
            assert name in doc, f"{fn.__qualname__}'s docstring does not say it raises {name}"


ROOT = HERE.parent
# What a copy of the project leaves out: builds, caches, venvs, VCS.
NOT_COPIED = shutil.ignore_patterns(
    ".git", ".venv*", "build", "dist", "*.egg-info", "__pycache__", "*.so", "*.pyd", ".*cache"
)


def test_an_editable_install_is_typed(tmp_path):
    """README's install, pip install -e ., in a fresh venv: mypy --strict on a
    user's file then sees netifc's types (setuptools' import-hook editable
    install hides the package from type checkers: every type would be Any,
    or the import not found)."""
    if not (ROOT / "pyproject.toml").is_file():
        pytest.skip(f"no project tree beside the tests ({ROOT}) to install editable")
    argv = mypy_argv("mypy")
    src = tmp_path / "src"
    shutil.copytree(ROOT, src, ignore=NOT_COPIED)
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    python = venv / ("Scripts" if os.name == "nt" else "bin") / "python"
    r = subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "-e", str(src)],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    user = tmp_path / "user"
    user.mkdir()
    (user / "use.py").write_text(
        "import netifc\n"
        "name: int = netifc.interface_by_index(1).name\n"
        "addrs: str = netifc.interface_addrs()\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "MYPYPATH"}
    r = subprocess.run(
        [*argv, "--strict", "--no-incremental", "--python-executable", str(python), "use.py"],
        cwd=user,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    out = r.stdout + r.stderr
    assert r.returncode == 1, out
    assert "import-not-found" not in out and "import-untyped" not in out, out
    assert (
        'use.py:2: error: Incompatible types in assignment (expression has type "str", '
        'variable has type "int")' in out
    ), out
    assert (
        'use.py:3: error: Incompatible types in assignment (expression has type "tuple[' in out
    ), out
