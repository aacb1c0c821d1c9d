"""Code runs only when asked: which bot specs name code of the user's, the one switch that
lets it run, and what a ``MODULE:OBJECT`` spec may name.

A spec naming a file (``./my_bot.py:Cautious``) or a module (``mypkg.bots:Cautious``) runs
that code when it is resolved: the file is executed, the module imported, the object called.
A shared experiment config or a command copied from somewhere must not do that unasked, so
the command line resolves such a spec only under ``--trust``: without it, :func:`require_trust`
lists the code every spec of a command would run and refuses, in one line, before any file is
read or module imported (:class:`UntrustedCode`, a SpecError).

Python callers are trusted by construction (they already run Python of their own): the switch
is on unless a command turns it off for the time it runs (:func:`code_trust`). A bot registered
with :func:`glory_ai.bots.register` or declared by an installed distribution (an entry point of
the group ``glory_ai.bots``: a glory_ai plugin) needs no trust: installing it was the choice.
A run's workers build the bots the run's process resolved (and shipped), so they need no switch.

Even trusted, a ``MODULE:OBJECT`` spec names a bot or nothing (:func:`check_bot_factory`): a
class with a ``step`` method written in Python (a subclass of :class:`~glory_ai.bots.Bot` or
any class of the documented interface), or a Python function whose return annotation is such
a class. ``os:system:command=...`` is refused before anything is called.

>>> with code_trust(False):
...     code_named(["greedy", "/bots/mine.py:Mine", "mypkg.bots:Cautious:risk=0.1"])
[('/bots/mine.py:Mine', 'the file /bots/mine.py'), ('mypkg.bots:Cautious:risk=0.1', 'the module mypkg.bots')]
"""
from __future__ import annotations

import builtins
import contextlib
import inspect
import os
import types
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from .builtin_params import BUILTIN_PARAMS
from .errors import SpecError
from .grammar import SpecParts, split_spec

__all__ = ["UntrustedCode", "check_bot_factory", "code_named", "code_trust", "require_trust",
           "trusted"]

#: where the docs say what --trust means
_DOCS = "docs/extending.md#code-runs-only-when-asked"

_TRUSTED = [True]


class UntrustedCode(SpecError):
    """A spec names code of the user's and the command was not given ``--trust``."""


def trusted() -> bool:
    """May specs naming files and modules run their code now?"""
    return _TRUSTED[-1]


@contextlib.contextmanager
def code_trust(allowed: bool) -> Iterator[None]:
    """Within the block, code named by specs runs only if ``allowed`` (the command line's
    ``--trust``); the switch as it was afterwards."""
    _TRUSTED.append(bool(allowed))
    try:
        yield
    finally:
        _TRUSTED.pop()


def _code_of(parts: SpecParts) -> str | None:
    if parts.kind == "file":
        return f"the file {os.path.abspath(os.path.expanduser(parts.target))}"
    if parts.kind == "module":
        return f"the module {parts.target}"
    return None


def code_named(specs: Iterable[object], known: Callable[[str], bool] | None = None) -> list[tuple[str, str]]:
    """``(spec, what it would run)`` for every spec among ``specs`` that names a file or a
    module, in order; specs that are not strings or do not parse are left to their readers.
    ``known(name)``: is there a registered or plugin bot of that name (built-ins are known)?"""
    def named(name: str) -> bool:
        return name in BUILTIN_PARAMS or (known is not None and known(name))

    out = []
    for spec in specs:
        if not isinstance(spec, str) or not spec.strip():
            continue
        try:
            parts = split_spec(spec, named)
        except SpecError:
            continue
        code = _code_of(parts)
        if code is not None:
            out.append((spec.strip(), code))
    return out


def require_trust(specs: Iterable[object], known: Callable[[str], bool] | None = None) -> None:
    """UntrustedCode listing the code that ``specs`` name, unless code may run now
    (:func:`trusted`); nothing is read or imported (``known``: as :func:`code_named`'s)."""
    if trusted():
        return
    named = code_named(specs, known)
    if not named:
        return
    codes = list(dict.fromkeys(code for _, code in named))
    shown = "; ".join(f"{code} ({', '.join(s for s, c in named if c == code)})" for code in codes)
    raise UntrustedCode(f"the bot specs name code to run: {shown}; none of it was run: give --trust "
                        f"to run it, if you trust it (it runs with your permissions: {_DOCS})")


# ---- what a MODULE:OBJECT may name -------------------------------------------------------------

def _is_bot_class(obj: object) -> bool:
    if not isinstance(obj, type):
        return False
    from .base import Bot

    if issubclass(obj, Bot):
        return True
    step = inspect.getattr_static(obj, "step", None)       # no descriptor or metaclass runs
    return isinstance(step, types.FunctionType)


def _annotated_class(function: types.FunctionType) -> object:
    # the return annotation, a string (postponed annotations) looked up by name, never evaluated
    annotation = function.__annotations__.get("return")
    if not isinstance(annotation, str):
        return annotation
    first, *rest = annotation.strip().split(".")
    target = function.__globals__.get(first, getattr(builtins, first, None))
    for part in rest:
        target = inspect.getattr_static(target, part, None)
    return target


def check_bot_factory(obj: Any, where: str, shown: str) -> None:
    """SpecError unless ``obj`` (named ``shown`` by the spec ``where``) is a bot's class or a
    function annotated to return one; checked without calling anything."""
    if _is_bot_class(obj):
        return
    if isinstance(obj, types.FunctionType) and _is_bot_class(_annotated_class(obj)):
        return
    raise SpecError(f"{where}: {shown} is not a bot: a MODULE:OBJECT spec names a class with a "
                    "step(state) method, or a function annotated to return one (def make(...) -> MyBot); "
                    "nothing was called")
