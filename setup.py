"""Build the Cython core. `pip install -e .` compiles it; no manual step.

Set GLORY_AI_DEBUG=1 to build with bounds checks and assertions (for debugging the core).
"""
import os

from Cython.Build import cythonize
from setuptools import Extension, setup

DEBUG = os.environ.get("GLORY_AI_DEBUG", "") not in ("", "0")

directives = {
    "language_level": 3,
    "boundscheck": DEBUG,
    "wraparound": False,
    "cdivision": True,
    "initializedcheck": DEBUG,
}

def _extension(name: str, source: str) -> Extension:
    return Extension(
        name,
        [source],
        include_dirs=["glory_ai/core/include"],
        extra_compile_args=["-O0", "-g"] if DEBUG else ["-O3"],
        define_macros=[] if DEBUG else [("NDEBUG", "1")],
    )


extensions = [
    _extension("glory_ai.core.engine", "glory_ai/core/engine.pyx"),
    # the bots' search: a client of the engine through engine.pxd
    _extension("glory_ai.bots._search", "glory_ai/bots/_search.pyx"),
]

setup(ext_modules=cythonize(extensions, compiler_directives=directives))
