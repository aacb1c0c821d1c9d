"""The grammar of a bot spec: a text split into the bot it names and the parameters it gives.

Nothing here knows a bot: the module imports neither the engine's bots nor a user's code, so
that a spec can be split (and labelled, :mod:`glory_ai.bots.labels`) from what a run
recorded alone. What the parameters mean, their defaults and checks, is
:class:`glory_ai.bots.spec.BotSpec`'s.

A spec is split at ``:``; its first part decides:

* ``FILE:OBJECT[:PARAMS]`` when the first part holds a ``/`` or ends with ``.py``; a relative
  path is relative to the current directory (of the process that starts the run);
* ``NAME[:PARAMS]`` when the first part is the name of a bot (built in, registered, or from
  an entry point);
* ``MODULE:OBJECT[:PARAMS]`` when the second part is a (dotted) Python name without ``=``;

with ``PARAMS`` the usual ``key=value,key=value``: keys are read in any case (and kept in
lower case), values as written less the spaces around them, empty pieces are skipped.

>>> parts = split_spec(" ISMCTS:Iters=200, C=0.5 ")
>>> parts.kind, parts.bot, parts.given
('name', 'ismcts', (('iters', '200'), ('c', '0.5')))
>>> split_spec("./my_bot.py:Cautious:risk=0.3").bot
'./my_bot.py:Cautious'
>>> join_spec("ismcts", [("iters", "200")])
'ismcts:iters=200'
"""
from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from .errors import SpecError

__all__ = ["SpecParts", "append_params", "head", "join_spec", "read_params", "split_spec", "split_spec_list"]

_DOTTED = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*$")


@dataclass(frozen=True)
class SpecParts:
    """A spec split by the grammar: ``kind`` is ``name``, ``module`` or ``file``; ``bot`` the
    part before the parameters (``./my_bot.py:Cautious``, ``mypkg.bots:Cautious``,
    ``cautious``), ``target`` the name, module or path, ``obj`` the object named in a module
    or file, ``params`` the text of the parameters and ``text`` the spec as given."""

    kind: str
    bot: str
    target: str
    obj: str
    params: str
    text: str = ""

    @property
    def given(self) -> tuple[tuple[str, str], ...]:
        """The ``(key, value)`` pairs of the parameters, in the order written
        (:func:`read_params`)."""
        return read_params(self.params, self.text)


def _is_path(text: str) -> bool:
    return "/" in text or text.endswith(".py")


def head(spec: str) -> str:
    """A spec's first part in lower case: the bot's name when the spec names it by name.

    >>> head(" Greedy ")
    'greedy'
    """
    return spec.strip().partition(":")[0].strip().lower()


def split_spec(spec: str, names: Callable[[str], bool] | None = None) -> SpecParts:
    """Split ``spec`` by the grammar (module docstring). ``names(name)`` says whether a bot
    of that name exists; without it a first part followed by a dotted name without ``=``
    is read as a module (which no valid spec of a named bot can be). SpecError for a
    malformed file spec."""
    text = spec.strip()
    first, _, rest = text.partition(":")
    if _is_path(first.strip()):
        obj, _, params = rest.partition(":")
        obj = obj.strip()
        if not _DOTTED.match(obj):
            raise SpecError(f"bot spec {spec!r}: a bot file names the bot in it: "
                            f"{first.strip()}:ClassName or {first.strip()}:ClassName:key=value,...")
        return SpecParts("file", f"{first.strip()}:{obj}", first.strip(), obj, params, spec)
    name = first.strip().lower()
    if names is not None and names(name):
        return SpecParts("name", name, name, "", rest, spec)
    second, _, params = rest.partition(":")
    module = first.strip()
    if rest and "=" not in second and _DOTTED.match(second.strip()) and _DOTTED.match(module):
        obj = second.strip()
        return SpecParts("module", f"{module}:{obj}", module, obj, params, spec)
    return SpecParts("name", name, name, "", rest, spec)


def read_params(text: str, spec: str = "") -> tuple[tuple[str, str], ...]:
    """The ``(key, value)`` pairs of a spec's parameter text ``key=value,...``, in the order
    written: keys in lower case, values without the spaces around them, empty pieces
    skipped. SpecError (naming ``spec``) for a piece that is not ``key=value``; a key given
    twice is the reader's to refuse (it knows the keys).

    >>> read_params("Iters=200, ,reuse=TRUE")
    (('iters', '200'), ('reuse', 'TRUE'))
    """
    pairs = []
    for part in filter(None, (p.strip() for p in text.split(","))):
        key, eq, value = part.partition("=")
        if not eq:
            raise SpecError(f"bot spec {spec or text!r}: {part!r} is not key=value")
        pairs.append((key.strip().lower(), value.strip()))
    return tuple(pairs)


def join_spec(bot: str, pairs: Iterable[tuple[str, str]]) -> str:
    """The spec text of ``bot`` with the ``(key, value)`` pairs: the inverse of
    :func:`split_spec` for a bot named by name."""
    written = ",".join(f"{key}={value}" for key, value in pairs)
    return bot + (":" + written if written else "")


def append_params(spec: str, pairs: Iterable[tuple[str, str]]) -> str:
    """The text of ``spec`` (a bot named by name) with the ``(key, value)`` pairs written
    after the parameters it has.

    >>> append_params("pimc:iters=500", [("cutoff", "40")]), append_params("greedy", [("x", "1")])
    ('pimc:iters=500,cutoff=40', 'greedy:x=1')
    """
    return spec + ("," if ":" in spec else ":") + ",".join(f"{key}={value}" for key, value in pairs)


def split_spec_list(text: str) -> list[str]:
    """Bot specs from one comma-separated list, as written. A spec's own parameters are
    separated by commas too, so a piece ``key=value`` (no ``:`` before its ``=``) belongs
    to the spec before it. SpecError for an empty piece.

    >>> split_spec_list("ismcts:iters=200,c=0.5,Greedy")
    ['ismcts:iters=200,c=0.5', 'Greedy']
    """
    specs: list[str] = []
    for piece in (p.strip() for p in text.split(",")):
        if not piece:
            raise SpecError(f"{text!r}: an empty bot spec (two commas in a row?)")
        key = piece.split("=", 1)[0]
        if "=" in piece and ":" not in key and specs:
            specs[-1] += "," + piece            # a parameter of the spec before
        else:
            specs.append(piece)
    return specs
