"""The Cython core of glory_ai (engine.pyx, its C API in engine.pxd) and its C headers."""
import os


def get_include() -> str:
    """The folder of the engine's C headers (cards.h, rng.h, tables.h), for compiling a Cython
    module that cimports glory_ai.core.engine: pass it in the extension's include_dirs."""
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "include")
