"""The Cython core of glory_ai (engine.pyx, its C API in engine.pxd) and its C headers."""
import os


def get_include() -> str:
    """The folder of the engine's C headers (cards.h, rng.h, tables.h), for compiling a Cython
    module that cimports glory_ai.core.engine: pass it in the extension's include_dirs.

    The headers' home is csrc/ in the source tree; every build (a wheel, an in-place or
    editable build) places a copy in glory_ai/core/include/, the folder returned. In a
    source checkout not built yet, csrc/ itself."""
    here = os.path.dirname(os.path.abspath(__file__))
    packaged = os.path.join(here, "include")
    checkout = os.path.join(os.path.dirname(os.path.dirname(here)), "csrc")
    if not os.path.isdir(packaged) and os.path.isfile(os.path.join(checkout, "cards.h")):
        return checkout
    return packaged
