"""Build netifc._netifc from csrc/."""
import glob
import os
import sys

from setuptools import Extension, setup

# rtnetlink, /proc and the floor timer exist on Linux only.
LINUX_ONLY = {"linux.c", "nlio.c", "nlsock.c", "nlparse.c", "proc.c", "procnet.c", "floor.c"}
sources = sorted(
    f for f in glob.glob("csrc/*.c")
    if (sys.platform.startswith("linux") or os.path.basename(f) not in LINUX_ONLY)
    and os.path.basename(f) != "floor.c"
)

setup(
    ext_modules=[
        Extension(
            "netifc._netifc",
            sources=sources,
            depends=glob.glob("csrc/*.h"),
            extra_compile_args=["-std=gnu11", "-O2", "-Wall", "-Wextra"],
        )
    ],
)
