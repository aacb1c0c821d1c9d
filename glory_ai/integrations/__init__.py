"""Adapters to the frameworks researchers already use (docs/integrations.md).

* :mod:`glory_ai.integrations.openspiel`: Glory to Rome as an OpenSpiel Python game
  (``pip install 'glory_ai[openspiel]'``);
* :mod:`glory_ai.integrations.pettingzoo`: a PettingZoo AEC environment
  (``pip install 'glory_ai[pettingzoo]'``);
* :mod:`glory_ai.integrations.gymnasium`: a single-agent Gymnasium environment whose other
  seats are glory_ai bots (``pip install 'glory_ai[pettingzoo]'``).

Each module imports its framework when it is imported, and says which extra to install
when the framework is missing. Nothing in the rest of the package imports them.

Gymnasium finds third-party environments the way its 1.x documentation describes: the
package registers its ids when it is imported (Gymnasium 1.0 dropped the ``gymnasium.envs``
entry-point plugins of 0.26-0.29). ``import glory_ai`` registers :data:`GYMNASIUM_ENV_ID`
without importing Gymnasium (which would triple the package's import time, for everyone):
at once if Gymnasium is imported already, else the moment it is
(:func:`register_gymnasium_env`). The id's entry point is the class's import path, so the
adapter module itself is imported by ``gymnasium.make`` only.
"""
from __future__ import annotations

import sys
from collections.abc import Sequence
from types import ModuleType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from importlib.machinery import ModuleSpec

#: the id ``gymnasium.make`` knows :class:`glory_ai.integrations.gymnasium.GloryToRomeGymEnv` by
GYMNASIUM_ENV_ID = "GloryToRome-v0"
GYMNASIUM_ENTRY_POINT = "glory_ai.integrations.gymnasium:GloryToRomeGymEnv"
#: the id's defaults that differ from the class's: every action of the action space is a
#: step (an illegal one loses), as Gymnasium's checker and tools that sample the space expect
GYMNASIUM_KWARGS = {"illegal_action": "lose"}


def missing_extra(module: str, extra: str, error: ImportError) -> ImportError:
    """The ImportError raised when an adapter's framework is not installed."""
    return ImportError(f"glory_ai.integrations.{module} needs {error.name or 'its framework'}: "
                       f"pip install 'glory_ai[{extra}]'")


def _register_with(gymnasium: ModuleType) -> None:
    if GYMNASIUM_ENV_ID not in gymnasium.registry:
        gymnasium.register(id=GYMNASIUM_ENV_ID, entry_point=GYMNASIUM_ENTRY_POINT,
                           kwargs=dict(GYMNASIUM_KWARGS))


class _RegisterWhenImported:
    """A finder at the front of ``sys.meta_path`` (importlib's ``MetaPathFinder`` protocol;
    not its ABC, whose import would double glory_ai's) that finds nothing itself: asked for
    ``gymnasium``, it has the other finders find it and gives their spec a loader that
    registers the id once Gymnasium's own ``__init__`` has run, then leaves
    ``sys.meta_path`` (a ``find_spec`` that imports nothing leaves it in place)."""

    def find_spec(self, fullname: str, path: Sequence[str] | None = None,
                  target: ModuleType | None = None) -> ModuleSpec | None:
        if fullname != "gymnasium":
            return None
        spec = None
        for finder in list(sys.meta_path):
            find = getattr(finder, "find_spec", None)
            if finder is not self and find is not None:
                spec = find(fullname, path, target)
                if spec is not None:
                    break
        loader = spec.loader if spec is not None else None
        if loader is None or not hasattr(loader, "exec_module"):
            return spec
        execute = loader.exec_module

        def exec_module(module: ModuleType) -> None:
            execute(module)
            _register_with(module)
            if self in sys.meta_path:
                sys.meta_path.remove(self)

        # the instance attribute shadows the method for this loader (Gymnasium's) alone
        loader.exec_module = exec_module
        return spec


def register_gymnasium_env() -> None:
    """Registers :data:`GYMNASIUM_ENV_ID` with Gymnasium: now if Gymnasium is imported,
    else when it is (nothing happens if it is never imported or not installed). Called
    by ``import glory_ai``; idempotent."""
    gymnasium = sys.modules.get("gymnasium")
    if gymnasium is not None and hasattr(gymnasium, "registry"):
        _register_with(gymnasium)
    elif not any(isinstance(finder, _RegisterWhenImported) for finder in sys.meta_path):
        sys.meta_path.insert(0, _RegisterWhenImported())
