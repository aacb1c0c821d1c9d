"""Build the Cython core. `pip install -e .` compiles it; no manual step.

Set GLORY_AI_DEBUG=1 to build with bounds checks and assertions (for debugging the core).
Set GLORY_AI_SANITIZE to a list of sanitizers (e.g. GLORY_AI_SANITIZE=address,undefined)
to compile and link the extensions with -fsanitize=... -fno-omit-frame-pointer -O1 -g (CI
does this, with GLORY_AI_DEBUG=1, in a copy of the tree; load the runtime with LD_PRELOAD,
see .ci/run). Debug and sanitizer builds write their generated C under build/ so that they
never replace the .c files of a normal build.
"""
import importlib.util
import os
import re

from Cython.Build import cythonize
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

DEBUG = os.environ.get("GLORY_AI_DEBUG", "") not in ("", "0")
SANITIZE = os.environ.get("GLORY_AI_SANITIZE", "").strip()
if SANITIZE and not re.fullmatch(r"[a-z]+(-[a-z]+)*(,[a-z]+(-[a-z]+)*)*", SANITIZE):
    raise SystemExit(f"GLORY_AI_SANITIZE: expected sanitizer names like address,undefined, got {SANITIZE!r}")

directives = {
    "language_level": 3,
    "boundscheck": DEBUG,
    "wraparound": False,
    "cdivision": True,
    "initializedcheck": DEBUG,
}

if SANITIZE:
    compile_args = ["-O1", "-g", "-fno-omit-frame-pointer", f"-fsanitize={SANITIZE}"]
    link_args = [f"-fsanitize={SANITIZE}"]
elif DEBUG:
    compile_args, link_args = ["-O0", "-g"], []
else:
    compile_args, link_args = ["-O3"], []


def _extension(name: str, source: str) -> Extension:
    return Extension(
        name,
        [source],
        include_dirs=["glory_ai/core/include"],
        extra_compile_args=compile_args,
        extra_link_args=link_args,
        define_macros=[] if DEBUG or SANITIZE else [("NDEBUG", "1")],
    )


extensions = [
    _extension("glory_ai.core.engine", "glory_ai/core/engine.pyx"),
    # the bots' search: a client of the engine through engine.pxd
    _extension("glory_ai.bots._search", "glory_ai/bots/_search.pyx"),
    # the referee of users' bots (fair-play views, checks): the same
    _extension("glory_ai.bots._fairplay", "glory_ai/bots/_fairplay.pyx"),
    # the arena's game loop: the same, for the bookkeeping around each decision
    _extension("glory_ai.arena._loop", "glory_ai/arena/_loop.pyx"),
]

def _write_build_info(folder: str) -> None:
    """glory_ai/_build_info.py: the hash of the compiled sources and the build flags, read by
    glory_ai.build_info() (records and experiment manifests cite it)."""
    spec = importlib.util.spec_from_file_location("_source_hash", "glory_ai/_source_hash.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    build = {"source_hash": module.source_hash("glory_ai"), "debug": DEBUG, "sanitize": SANITIZE or None}
    os.makedirs(os.path.join(folder, "glory_ai"), exist_ok=True)
    with open(os.path.join(folder, "glory_ai", "_build_info.py"), "w") as out:
        out.write('"""Written by setup.py at build time; see glory_ai.build_info()."""\n')
        out.write(f"BUILD = {build!r}\n")


class cython_build_ext(build_ext):
    """build_ext that runs Cython first (only when extensions are built: the sdist and the
    metadata steps never generate C), then compiles the extensions in parallel."""

    def finalize_options(self) -> None:
        super().finalize_options()
        if not self.parallel:
            self.parallel = min(len(self.extensions), os.cpu_count() or 1)

    def run(self) -> None:
        # Cython regenerates a .c file only when its sources changed, not when the
        # directives did: a debug build keeps its own generated C apart from the normal one.
        flavour = "-".join(p for p in ("debug" if DEBUG else "", SANITIZE.replace(",", "-")) if p)
        generated = cythonize(self.extensions, compiler_directives=directives,
                              build_dir=f"build/cython-{flavour}" if flavour else None)
        sources = {ext.name: ext.sources for ext in generated}
        for ext in self.extensions:         # keep setuptools' finalized Extension objects
            ext.sources = sources[ext.name]
        super().run()
        # beside the extensions: in the tree for an in-place (editable) build, else in build_lib
        _write_build_info("." if self.inplace else self.build_lib)


setup(ext_modules=extensions, cmdclass={"build_ext": cython_build_ext})
