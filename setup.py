"""Build netifc._netifc from csrc/."""
import glob

from setuptools import Extension, setup

sources = sorted(
    f for f in glob.glob("csrc/*.c")
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
