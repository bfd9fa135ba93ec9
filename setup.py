"""Build netifc._netifc from csrc/'s layers, and on Linux netifc._floor (the benchmark floor)."""
import glob
import os
import platform
import sys
import sysconfig
from importlib.machinery import EXTENSION_SUFFIXES

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

LINUX = sys.platform.startswith("linux")
WINDOWS = sys.platform == "win32"
# csrc/ is a folder per layer: core/ (the portable contract), one folder per
# backend (netlink/ and procfs/: Linux; posix/: getifaddrs, built on Linux too so the
# tests can compare it; windows/), live/ (the live tables' logic, plain C: Linux's
# binding uses it), python/ (the binding).  A layer is built
# where its platform is; python/'s Linux-only types are named here.
LAYERS = ["core", "python"] + (["windows"] if WINDOWS else ["posix"] + (["netlink", "procfs", "live"] if LINUX else []))
BINDING_LINUX_ONLY = {"live.c", "live_apply.c", "live_table.c", "live_events.c", "live_lock.c",
                      "routes.c", "netns.c", "compat.c"}
# netifc._floor (the benchmark's kernel floor): floor/ and the core files it is built with.
FLOOR_CORE = ["netlink/io.c", "netlink/parse.c", "netlink/route_parse.c", "netlink/stats_parse.c",
              "core/addr.c", "core/vec.c"]
CFLAGS = ["-std=gnu11", "-O2", "-Wall", "-Wextra"]
LIBRARIES = ["iphlpapi", "ws2_32"] if WINDOWS else []
if WINDOWS:
    CFLAGS = ["/std:c11", "/W3"]

# The stable ABI (abi3): one build for CPython 3.10 and every later one, as
# fast as a build for one version (README, "Wheels").  3.10 is the first
# whose stable ABI has PyType_FromModuleAndSpec and PyType_GetModuleState;
# 3.9, the free-threaded builds and other Pythons, which have no stable ABI,
# get the full API.  NETIFC_LIMITED_API=0 asks for the full API everywhere.
LIMITED = (platform.python_implementation() == "CPython" and sys.version_info >= (3, 10)
           and not sysconfig.get_config_var("Py_GIL_DISABLED")
           and os.environ.get("NETIFC_LIMITED_API", "1") != "0")
ABI = ({"py_limited_api": True, "define_macros": [("Py_LIMITED_API", "0x030A0000")]}
       if LIMITED else {})


class BuildExt(build_ext):
    """An in-place build removes the files of an earlier build that this
    Python would import instead of the new one (a full-API
    _netifc.cpython-311-*.so comes before _netifc.abi3.so)."""

    def run(self):
        super().run()
        if not self.inplace:
            return
        for ext in self.extensions:
            built = os.path.abspath(self.get_ext_fullpath(ext.name))
            base = os.path.join(os.path.dirname(built), ext.name.rsplit(".", 1)[-1])
            for suffix in EXTENSION_SUFFIXES:
                if base + suffix == built:
                    break
                if os.path.exists(base + suffix):
                    os.remove(base + suffix)


def sources_of(layer):
    found = sorted(glob.glob(f"csrc/{layer}/*.c"))
    if layer == "python" and not LINUX:
        found = [f for f in found if os.path.basename(f) not in BINDING_LINUX_ONLY]
    return found


sources = [f for layer in LAYERS for f in sources_of(layer)]
headers = glob.glob("csrc/*/*.h")
ext_modules = [
    # Only PyInit__netifc is exported: calls between its files are direct.
    Extension("netifc._netifc", sources=sources, depends=headers, include_dirs=["csrc"],
              # (a Windows DLL exports only what is marked so: PyInit__netifc)
              extra_compile_args=CFLAGS + ([] if WINDOWS else ["-fvisibility=hidden"]),
              libraries=LIBRARIES, **ABI),
]
if LINUX:
    ext_modules.append(
        Extension("netifc._floor",
                  sources=sorted(glob.glob("csrc/floor/*.c")) + [f"csrc/{f}" for f in FLOOR_CORE],
                  depends=headers, include_dirs=["csrc"],
                  # exports PyInit__floor only: its copy of the core shadows nothing
                  extra_compile_args=CFLAGS + ["-fvisibility=hidden"], **ABI))

setup(ext_modules=ext_modules, cmdclass={"build_ext": BuildExt},
      options={"bdist_wheel": {"py_limited_api": "cp310"}} if LIMITED else {})
