"""Build netifc._netifc from csrc/, and on Linux netifc._floor (the benchmark floor)."""
import glob
import os
import platform
import sys
import sysconfig
from importlib.machinery import EXTENSION_SUFFIXES

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

LINUX = sys.platform.startswith("linux")
# rtnetlink and /proc exist on Linux only.
LINUX_ONLY = {"linux.c", "nlio.c", "nlsock.c", "nlparse.c", "nlwatch.c", "live.c", "livetab.c", "proc.c",
              "procnet.c", "nlroute.c", "linux_routes.c", "routes.c"}
LINUX_ONLY |= {"nlstats.c", "statsparse.c", "ethtool.c"}     # counters, link settings
LINUX_ONLY |= {"netns.c", "nsmodule.c"}     # other network namespaces
# netifc._floor's own files, and the core files it is built with besides.
FLOOR = {"floor.c", "floormodule.c"}
FLOOR_CORE = ["nlio.c", "nlparse.c", "nlroute.c", "addr.c", "vec.c"]
CFLAGS = ["-std=gnu11", "-O2", "-Wall", "-Wextra"]
# Windows: the IP Helper backend instead of getifaddrs, built by MSVC (C11).
WINDOWS = sys.platform == "win32"
WINDOWS_ONLY = {"win.c"}
POSIX_ONLY = {"gifa.c"}
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


def wanted(name):
    if name in FLOOR:
        return False
    if WINDOWS:
        return name not in LINUX_ONLY and name not in POSIX_ONLY
    return name not in WINDOWS_ONLY and (LINUX or name not in LINUX_ONLY)


sources = sorted(f for f in glob.glob("csrc/*.c") if wanted(os.path.basename(f)))
ext_modules = [
    # Only PyInit__netifc is exported: calls between its files are direct.
    Extension("netifc._netifc", sources=sources, depends=glob.glob("csrc/*.h"),
              # (a Windows DLL exports only what is marked so: PyInit__netifc)
              extra_compile_args=CFLAGS + ([] if WINDOWS else ["-fvisibility=hidden"]),
              libraries=LIBRARIES, **ABI),
]
if LINUX:
    ext_modules.append(
        Extension("netifc._floor",
                  sources=[f"csrc/{f}" for f in sorted(FLOOR) + FLOOR_CORE],
                  depends=glob.glob("csrc/*.h"),
                  # exports PyInit__floor only: its copy of the core shadows nothing
                  extra_compile_args=CFLAGS + ["-fvisibility=hidden"], **ABI))

setup(ext_modules=ext_modules, cmdclass={"build_ext": BuildExt},
      options={"bdist_wheel": {"py_limited_api": "cp310"}} if LIMITED else {})
