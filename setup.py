"""Build netifc._netifc from csrc/, and on Linux netifc._floor (the benchmark floor)."""
import glob
import os
import sys

from setuptools import Extension, setup

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
              libraries=LIBRARIES),
]
if LINUX:
    ext_modules.append(
        Extension("netifc._floor",
                  sources=[f"csrc/{f}" for f in sorted(FLOOR) + FLOOR_CORE],
                  depends=glob.glob("csrc/*.h"),
                  # exports PyInit__floor only: its copy of the core shadows nothing
                  extra_compile_args=CFLAGS + ["-fvisibility=hidden"]))

setup(ext_modules=ext_modules)
