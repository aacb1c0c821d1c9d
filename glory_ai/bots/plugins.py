"""Users' bots: the interface, the three ways to bring one, and what a run records of them.

A bot is an object with ``step(state) -> action``, made by a factory (a class or a function)
called as ``factory(seed=SEED, **params)`` (``seed=`` only if the factory takes it). It may
also define ``new_game(state, player)`` and ``observe(state, player, action)``
(docs/extending.md says when the arena calls them). A factory comes in by

* :func:`register` (``glory_ai.bots.register``) from Python;
* an entry point in the group ``glory_ai.bots`` of an installed distribution;
* a spec naming it: ``./my_bot.py:Cautious:risk=0.3`` (a file) or
  ``mypkg.bots:Cautious:risk=0.3`` (an importable module).

Every user bot plays behind a referee (:mod:`glory_ai.bots._fairplay`): by default it is
handed its player's fair view of the state (the cards it cannot see dealt again), and what
it does is checked (:class:`~glory_ai.bots.errors.BotError`).

The spec grammar (a spec is split at ``:``; its first part decides whether it names a
file, a module or a bot by name) is :mod:`glory_ai.bots.grammar`'s.
"""
from __future__ import annotations

import functools
import importlib
import re
import sys
import types
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._reading import SOURCE_BYTES, ReadLimitError, read_bytes
from .._words import article
from ..actions import block_range
from ._fairplay import Referee, describe_exception
from .base import Bot, BotInfo
from .builtin_params import BUILTIN_PARAMS
from .errors import BotError, SpecError
from .grammar import SpecParts, split_spec
from .identity import file_identity, module_identity
from .params import Param
from .trust import check_bot_factory, require_trust

if TYPE_CHECKING:
    import importlib.metadata

    from ..core.engine import State

__all__ = ["ENTRY_POINT_GROUP", "Definition", "Shipment", "UserBot", "UserFactory", "definition",
           "describe", "entry_points", "identities", "register", "ship", "unregister", "user_registry"]

#: the entry-point group in which installed distributions declare bots
ENTRY_POINT_GROUP = "glory_ai.bots"

#: names of registered and entry-point bots: lower case, as the built-ins
NAME = re.compile(r"^[a-z][a-z0-9_-]*$")

#: action ids of a Basilica vault from hand: they name a card only its player saw
_VAULT_HAND = block_range("vault_hand")

#: the kinds of parameter a factory's signature can declare through its defaults
_KINDS: dict[str, type] = {"int": int, "float": float, "bool": bool, "str": str}


def _why(exc: BaseException) -> str:
    """``TypeName: message`` on one line."""
    return describe_exception(exc).removeprefix("raised ")


# ---- describing a factory -----------------------------------------------------------------

def _annotation_kind(annotation: object) -> type | None:
    if isinstance(annotation, str):
        return _KINDS.get(annotation.strip())
    return annotation if isinstance(annotation, type) and annotation in (int, float, bool, str) else None


def _params_from_signature(factory: Callable[..., Any]) -> tuple[tuple[Param, ...], bool]:
    """(parameters, takes a seed) read from the factory's signature: every parameter but
    ``seed`` that can be passed by keyword, typed by its annotation (int, float, bool, str)
    or its default's type (str otherwise); one without a default is required."""
    import inspect

    try:
        signature = inspect.signature(factory)
    except (TypeError, ValueError):
        return (), True
    params = []
    takes_seed = False
    for p in signature.parameters.values():
        if p.kind is inspect.Parameter.VAR_KEYWORD:
            takes_seed = True
            continue
        if p.kind not in (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY):
            continue
        if p.name == "seed":
            takes_seed = True
            continue
        required = p.default is inspect.Parameter.empty
        kind = _annotation_kind(p.annotation)
        if kind is None:
            kind = type(p.default) if not required and type(p.default) in (int, float, bool, str) else str
        default = None if required else p.default
        params.append(Param(p.name, kind, default, "" if not required else "required",
                            required=required))
    return tuple(params), takes_seed


def _as_params(declared: object, where: str) -> tuple[Param, ...]:
    if isinstance(declared, Mapping):
        out = []
        for name, default in declared.items():
            if not isinstance(name, str) or not NAME.match(name.lower()):
                raise SpecError(f"{where}: parameter names are words like 'risk', got {name!r}")
            kind = type(default) if type(default) in (int, float, bool, str) else str
            out.append(Param(name.lower(), kind, default, ""))
        return tuple(out)
    if isinstance(declared, (list, tuple)) and all(isinstance(p, Param) for p in declared):
        return tuple(declared)
    raise SpecError(f"{where}: params must be a list of glory_ai.bots.Param or a dict of "
                    f"name: default, got {declared!r}")


def _description(factory: object, given: str | None) -> str:
    import inspect

    if given is not None:
        return str(given)
    declared = getattr(factory, "DESCRIPTION", None)
    if isinstance(declared, str):
        return declared
    doc = inspect.getdoc(factory) or ""
    return doc.strip().splitlines()[0] if doc.strip() else ""


@dataclass(frozen=True)
class UserFactory:
    """The internal factory of a user's bot (``factory(spec, params, seed)``, as the
    built-ins'): builds the user's object and puts it behind the referee."""

    target: Callable[..., Any]
    takes_seed: bool = True
    fair_play: bool = True

    def __call__(self, spec: str, params: dict[str, Any], seed: int) -> UserBot:
        return UserBot(spec, params, seed, self.target, takes_seed=self.takes_seed,
                       fair_play=self.fair_play)


def describe(name: str, factory: object, params: object = None, description: str | None = None,
             *, fair_play: bool = True, origin: str = "registered") -> BotInfo:
    """The BotInfo of a user's factory: parameters given, or declared by a ``PARAMS``
    attribute, or read from its signature; the description given, or its ``DESCRIPTION``,
    or the first line of its docstring."""
    where = f"bot {name!r}"
    if not callable(factory):
        hint = (" (an object with step(); name its class, or a function that returns a bot)"
                if callable(getattr(factory, "step", None)) else "")
        raise SpecError(f"{where}: {factory!r} is not a class or a function that makes a bot{hint}")
    inferred, takes_seed = _params_from_signature(factory)
    declared = params if params is not None else getattr(factory, "PARAMS", None)
    chosen = _as_params(declared, where) if declared is not None else inferred
    if not isinstance(fair_play, bool):
        raise SpecError(f"{where}: fair_play must be True or False, got {fair_play!r}")
    return BotInfo(name, _description(factory, description), chosen,
                   UserFactory(factory, takes_seed, fair_play), origin=origin, fair_play=fair_play)


# ---- the bot behind the referee -----------------------------------------------------------

class UserBot(Bot):
    """A user's bot as glory_ai plays it: the user's object (``inner``) behind a
    :class:`~glory_ai.bots._fairplay.Referee`. ``step`` hands the inner bot its player's fair
    view (or, for a bot registered with ``fair_play=False``, a copy of the real state) and
    checks its answer; ``new_game`` and ``observe`` pass the hooks on when the inner bot has
    them. Any failure is a :class:`~glory_ai.bots.errors.BotError`."""

    def __init__(self, spec: str, params: dict[str, Any], seed: int, target: Callable[..., Any], *,
                 takes_seed: bool = True, fair_play: bool = True) -> None:
        super().__init__(spec, params, seed)
        try:
            inner = target(seed=seed, **params) if takes_seed else target(**params)
        except (Exception, SystemExit) as exc:
            raise BotError("raised", f"{describe_exception(exc)} while being built") from exc
        step = getattr(inner, "step", None)
        if not callable(step):
            raise SpecError(f"bot spec {spec!r}: it made {article(type(inner).__name__)}, which has no "
                            "step(state) method")
        self.inner = inner
        self.fair_play = fair_play
        #: the player this bot plays in the current game (set by new_game)
        self.player: int | None = None
        self._referee = Referee(step, seed, fair_play)
        # the arena calls step once per decision: the referee's, without a Python frame
        self.step = self._referee.step             # type: ignore[method-assign]
        hook = getattr(inner, "observe", None)
        self._observe = hook if callable(hook) else None
        hook = getattr(inner, "new_game", None)
        self._new_game = hook if callable(hook) else None

    def view(self, state: State, player: int) -> State:
        """What this bot is handed for ``state`` as ``player``."""
        return self._referee.view(state, player)

    @property
    def observes(self) -> bool:
        """Does the inner bot want to be told of every move (an ``observe`` hook)?"""
        return self._observe is not None

    def new_game(self, state: State, player: int) -> None:
        """A game begins in which this bot plays ``player``: the inner bot's
        ``new_game(view, player)``, if it has one."""
        self.player = player
        if self._new_game is not None:
            view = self._referee.view(state, player)
            try:
                self._new_game(view, player)
            except (Exception, SystemExit) as exc:
                raise BotError("raised", f"{describe_exception(exc)} in new_game", player) from exc

    def observe(self, state: State, actor: int, action: int) -> None:
        """``actor`` played ``action`` (``state`` is the position after it): the inner bot's
        ``observe(view, actor, action)``, the action None when it names a card this bot's
        player did not see (another player's Basilica vault from hand)."""
        if self._observe is None:
            return
        player = self.player if self.player is not None else actor
        shown: int | None = action
        if self.fair_play and actor != player and action in _VAULT_HAND:
            shown = None
        view = self._referee.view(state, player)
        try:
            self._observe(view, actor, shown)
        except (Exception, SystemExit) as exc:
            raise BotError("raised", f"{describe_exception(exc)} in observe", player) from exc

    def __repr__(self) -> str:
        return f"<user bot {self.spec} seed={self.seed}{'' if self.fair_play else ' fair_play=False'}>"


# ---- registered and entry-point bots ------------------------------------------------------

_REGISTERED: dict[str, BotInfo] = {}


def register(name: str, factory: Callable[..., Any],
             params: Sequence[Param] | Mapping[str, Any] | None = None,
             description: str | None = None, *, fair_play: bool = True) -> BotInfo:
    """Make ``factory`` a bot named ``name``, usable in every spec of this process (and of
    the workers of its runs): ``register("cautious", Cautious)`` then
    ``make_bot("cautious:risk=0.3", seed=1)`` or ``glory-ai``-style specs in RunConfig.

    ``params``: a list of :class:`~glory_ai.bots.Param` (types, defaults, ranges, help) or a
    dict ``{name: default}``; by default the factory's ``PARAMS`` attribute, else its
    keyword parameters. ``description``: by default its ``DESCRIPTION``, else its
    docstring's first line. ``fair_play=False`` hands the bot the real state instead of its
    player's fair view (trusted research code only: records say which seats saw it).
    Registering a name again replaces it; a built-in's name is refused."""
    if not isinstance(name, str) or not NAME.match(name.strip().lower()):
        raise SpecError(f"a bot name is a lower-case word (letters, digits, '_', '-'), got {name!r}")
    key = name.strip().lower()
    if key in BUILTIN_PARAMS:
        raise SpecError(f"{key!r} is a built-in bot; choose another name")
    info = describe(key, factory, params, description, fair_play=fair_play, origin="registered")
    _REGISTERED[key] = info
    return info


def unregister(name: str) -> None:
    """Forget a bot made by :func:`register` (KeyError if there is none of that name)."""
    del _REGISTERED[name.strip().lower()]


@functools.lru_cache(maxsize=4)
def _entry_points(path: tuple[str, ...]) -> dict[str, importlib.metadata.EntryPoint]:
    # keyed by sys.path: a distribution put on the path later is found then
    import importlib.metadata

    found: dict[str, importlib.metadata.EntryPoint] = {}
    for ep in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP):
        name = ep.name.strip().lower()
        if not NAME.match(name):
            warnings.warn(f"entry point {ep.name!r} ({ep.value}) in group {ENTRY_POINT_GROUP}: a bot "
                          "name is a lower-case word (letters, digits, '_', '-'); ignored", stacklevel=2)
        elif name in BUILTIN_PARAMS:
            warnings.warn(f"entry point {ep.name!r} ({ep.value}): {name!r} is a built-in bot; ignored",
                          stacklevel=2)
        elif name not in found:
            found[name] = ep
    return found


def entry_points() -> dict[str, importlib.metadata.EntryPoint]:
    """The bots declared by installed distributions (group ``glory_ai.bots``), by name."""
    return dict(_entry_points(tuple(sys.path)))


def _distribution_of(ep: importlib.metadata.EntryPoint) -> tuple[str | None, str | None]:
    dist = getattr(ep, "dist", None)
    if dist is None:
        return None, None
    return dist.metadata["Name"], dist.version


@functools.lru_cache(maxsize=256)
def _entry_point_info(name: str, value: str, path: tuple[str, ...]) -> tuple[BotInfo, dict[str, Any]]:
    ep = _entry_points(path)[name]
    try:
        factory = ep.load()
    except Exception as exc:
        raise SpecError(f"bot {name!r} (entry point {value}): cannot load it ({_why(exc)})") from None
    dist, version = _distribution_of(ep)
    origin = f"entry point of {dist} {version}" if dist else f"entry point {value}"
    info = describe(name, factory, origin=origin)
    identity = {"kind": "entry_point", "target": value, "fair_play": True,
                **{k: v for k, v in module_identity(ep.module).items() if k != "package"}}
    if dist:
        identity["distribution"], identity["version"] = dist, version
    return info, identity


def user_registry() -> dict[str, BotInfo]:
    """The registered bots and those of entry points (loaded; one that cannot be loaded is
    left out with a warning), by name."""
    out = dict(_REGISTERED)
    path = tuple(sys.path)
    for name, ep in entry_points().items():
        if name in out:
            continue
        try:
            out[name] = _entry_point_info(name, ep.value, path)[0]
        except ValueError as exc:
            warnings.warn(str(exc), stacklevel=2)
    return out


# ---- file and module bots -----------------------------------------------------------------

#: modules made from bot files, by the sha256 of their source (one per content and process)
_FILE_MODULES: dict[str, types.ModuleType] = {}


def _module_from_source(text: str, sha: str, shown: str, path: Path | None) -> types.ModuleType:
    module = _FILE_MODULES.get(sha)
    if module is not None:
        return module
    name = f"_glory_ai_bot_{sha[:16]}"
    module = types.ModuleType(name)
    module.__file__ = str(path) if path is not None else shown
    sys.modules[name] = module              # classes and dataclasses look their module up
    try:
        exec(compile(text, module.__file__, "exec"), module.__dict__)
    except BaseException as exc:
        del sys.modules[name]
        if not isinstance(exc, (Exception, SystemExit)):
            raise
        raise SpecError(f"{shown}: cannot load it ({_why(exc)})") from None
    _FILE_MODULES[sha] = module
    return module


def _attribute(module: object, obj: str, where: str) -> Any:
    target = module
    for part in obj.split("."):
        try:
            target = getattr(target, part)
        except AttributeError:
            raise SpecError(f"{where}: no {obj!r} in it") from None
    return target


@dataclass(frozen=True)
class Definition:
    """A user's bot resolved from its spec: ``key`` (the spec's bot part), ``kind``
    (``registered``, ``entry_point``, ``module``, ``file``), ``info`` (its BotInfo),
    ``identity`` (what a run records of its code) and, for a file, its ``source`` text,
    shipped to the workers of a run."""

    key: str
    kind: str
    info: BotInfo = field(repr=False)
    identity: dict[str, Any] = field(repr=False)
    source: str | None = field(default=None, repr=False)


@dataclass(frozen=True)
class Shipment:
    """What a worker needs to build a user's bot of a run: for a file its source (the code
    hashed in the run's identity, so a worker never reads the file), for a registered bot
    its BotInfo (the factory pickled with it); for module and entry-point bots, nothing but
    the identity the worker's own import must match."""

    kind: str
    identity: dict[str, Any]
    source: str | None = None
    info: BotInfo | None = None


def _file_definition(parts: SpecParts, spec: str, shipment: Shipment | None) -> Definition:
    shown = parts.target
    if shipment is not None and shipment.source is not None:
        text = shipment.source
        sha = shipment.identity["sha256"]
        path = Path(shipment.identity.get("path") or shown)
        identity = dict(shipment.identity)
    else:
        path = Path(shown).expanduser()
        if not path.is_absolute():
            path = Path.cwd() / path
        try:
            data = read_bytes(path, "a bot file", SOURCE_BYTES)
        except ReadLimitError as exc:
            raise SpecError(f"bot spec {spec!r}: {exc}") from None
        except FileNotFoundError:
            raise SpecError(f"bot spec {spec!r}: {shown}: no such file (a relative path is "
                            f"relative to the current directory, {Path.cwd()})") from None
        except OSError as exc:
            raise SpecError(f"bot spec {spec!r}: {shown}: cannot read it "
                            f"({exc.strerror or exc})") from None
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise SpecError(f"bot spec {spec!r}: {shown}: not a UTF-8 Python file") from None
        path = path.resolve()
        identity = {"kind": "file", "target": parts.bot, "fair_play": True,
                    **file_identity(path, data)}
        sha = identity["sha256"]
    module = _module_from_source(text, sha, shown, path)
    factory = _attribute(module, parts.obj, f"bot spec {spec!r}: {shown}")
    info = describe(parts.bot, factory, origin=f"file {path}")
    return Definition(parts.bot, "file", info, identity, text)


@functools.lru_cache(maxsize=256)
def _module_definition(module_name: str, obj: str, bot: str) -> Definition:
    where = f"bot spec {bot!r}"
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:
        raise SpecError(f"{where}: cannot import {module_name} ({_why(exc)})") from None
    factory = _attribute(module, obj, f"{where}: module {module_name}")
    check_bot_factory(factory, where, f"{module_name}.{obj}")     # before anything is called
    info = describe(bot, factory, origin=f"module {module_name}")
    identity = {"kind": "module", "target": bot, "fair_play": True,
                **{k: v for k, v in module_identity(module_name).items() if k != "package"}}
    return Definition(bot, "module", info, identity)


def _registered_definition(info: BotInfo) -> Definition:
    factory = info.factory.target if isinstance(info.factory, UserFactory) else info.factory
    module = getattr(factory, "__module__", None) or "__main__"
    target = f"{module}:{getattr(factory, '__qualname__', type(factory).__name__)}"
    identity = {"kind": "registered", "target": target, "fair_play": info.fair_play,
                **{k: v for k, v in module_identity(module).items() if k != "package"}}
    if identity.get("sha256") is None:          # a module not importable by name: its file
        import inspect

        try:
            file = inspect.getsourcefile(factory)
        except (TypeError, OSError):        # defined in `python3 -c`, a notebook, a REPL
            file = None
        if file is not None and Path(file).is_file():
            identity["sha256"] = file_identity(Path(file), Path(file).read_bytes())["sha256"]
    return Definition(info.name, "registered", info, identity)


def definition(spec: str, shipped: Mapping[str, Shipment] | None = None
               ) -> tuple[Definition, str] | None:
    """The user's bot a spec names and the text of its parameters, or None for a built-in
    bot (or an unknown name: the caller reports it). ``shipped``: what a run sent its
    workers (:func:`ship`), used instead of reading files or the registry."""
    builtins = BUILTIN_PARAMS
    parts = split_spec(spec, lambda name: _known_name(name) or (shipped is not None and name in shipped))
    shipment = shipped.get(parts.bot) if shipped else None
    if shipment is None and parts.kind in ("file", "module"):
        require_trust([spec], _known_name)          # shipped: the run's process resolved it
    if parts.kind == "file":
        return _file_definition(parts, spec, shipment), parts.params
    if parts.kind == "module":
        found = _module_definition(parts.target, parts.obj, parts.bot)
        _check_shipment(found, shipment)
        return found, parts.params
    name = parts.target
    if name in builtins:
        return None
    if shipment is not None and shipment.info is not None:
        return Definition(name, "registered", shipment.info, shipment.identity), parts.params
    if name in _REGISTERED:
        return _registered_definition(_REGISTERED[name]), parts.params
    eps = entry_points()
    if name in eps:
        info, identity = _entry_point_info(name, eps[name].value, tuple(sys.path))
        found = Definition(name, "entry_point", info, identity)
        _check_shipment(found, shipment)
        return found, parts.params
    return None


def _known_name(name: str) -> bool:
    # a bot by name: built in, registered, or of an installed plugin
    return name in BUILTIN_PARAMS or name in _REGISTERED or name in entry_points()


def _check_shipment(found: Definition, shipment: Shipment | None) -> None:
    # a worker's own import of a module or entry-point bot must be the code the run recorded
    if shipment is None:
        return
    for key in ("distribution", "version", "sha256"):
        if found.identity.get(key) != shipment.identity.get(key):
            raise SpecError(f"bot {found.key!r}: this worker imports other code than the run "
                            f"records ({key} {shipment.identity.get(key)} in the run, "
                              f"{found.identity.get(key)} here): install the same version everywhere")


def ship(specs: Sequence[str]) -> dict[str, Shipment]:
    """What the workers of a run need for its user bots, by the specs' bot part."""
    require_trust(specs, _known_name)          # every spec's code listed at once, none run
    out: dict[str, Shipment] = {}
    for spec in specs:
        found = definition(spec)
        if found is None:
            continue
        d = found[0]
        if d.key in out:
            continue
        if d.kind == "file":
            out[d.key] = Shipment("file", d.identity, source=d.source)
        elif d.kind == "registered":
            out[d.key] = Shipment("registered", d.identity, info=d.info)
        else:
            out[d.key] = Shipment(d.kind, d.identity)
    return out


def identities(specs: Sequence[str]) -> dict[str, dict[str, Any]]:
    """The code identity of every user bot among ``specs``, by the specs' bot part."""
    require_trust(specs, _known_name)
    out: dict[str, dict[str, Any]] = {}
    for spec in specs:
        found = definition(spec)
        if found is not None:
            out.setdefault(found[0].key, found[0].identity)
    return out

