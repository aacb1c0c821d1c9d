"""A bot spec, parsed once: :class:`BotSpec`.

A spec is the text ``name:key=value,...`` (or a user's bot: ``./my_bot.py:Cautious:k=v``,
``mypkg.bots:Cautious:k=v``; the grammar is :mod:`glory_ai.bots.grammar`). Parsed, it
holds the bot it names, the parameters as given (in the order written) and as resolved
(defaults filled, the built-ins' rules applied), its canonical text, labels and its spelling
"as played" under parameters a run recorded. Every package takes a spec through it: none
splits a spec by hand.

>>> spec = BotSpec.parse(" ISMCTS:Iters=200, C=0.5 ")
>>> spec.name, spec.given, spec.canonical
('ismcts', (('iters', '200'), ('c', '0.5')), 'ismcts:iters=200,c=0.5')
>>> spec.params["c"], spec.params["cutoff"]
(0.5, 80)
>>> spec.label({"iters"})
'ismcts:iters=200'

Only a user's bot brings more than this module: its parameters are the plugin's
(:mod:`glory_ai.bots.plugins`, imported for such a spec alone). The built-ins' parameters
and rules are :mod:`glory_ai.bots.builtin_params`, imported without any bot.
"""
from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._reading import MODEL_BYTES, ReadLimitError, read_bytes
from .builtin_params import BUILTIN_PARAMS, EVAL_STYLE, TIME_DEFAULTS, TIMED_BOT, model_path
from .errors import SpecError
from .grammar import SpecParts, append_params, head, join_spec, read_params, split_spec
from .params import Param, spell_value

if TYPE_CHECKING:
    from .base import BotInfo
    from .plugins import Shipment

__all__ = ["BotSpec", "KINDS", "builtin_name", "canonical_spec", "model_identities", "parse_spec",
           "resolve_params", "resolve_spec", "spec_as_played"]

#: the kinds of bot a spec can name: a built-in, or a user's (plugins.Definition.kind)
KINDS = ("builtin", "registered", "entry_point", "module", "file")


@dataclass(frozen=True)
class BotSpec:
    """A bot spec, parsed (:meth:`parse`): ``text`` as given (without the spaces around it),
    ``name`` of the bot (a built-in's or a registered bot's name in lower case, or a user
    bot's file or module part: ``./my_bot.py:Cautious``), ``kind`` (one of :data:`KINDS`),
    ``given`` the ``(key, value text)`` pairs written, keys in lower case, in order,
    ``resolved`` every parameter's value (:attr:`params`) and ``declared`` the bot's
    parameters."""

    text: str
    name: str
    kind: str
    given: tuple[tuple[str, str], ...]
    resolved: tuple[tuple[str, Any], ...]
    declared: tuple[Param, ...] = field(default=(), compare=False, repr=False)

    @classmethod
    def parse(cls, text: str, *, shipped: Mapping[str, Shipment] | None = None) -> BotSpec:
        """The spec ``text`` parsed and checked: SpecError (a ValueError) naming the part at
        fault and what is accepted. A user's bot is looked up as a run would (its file read,
        its module imported; ``shipped``: what a run sent its workers, found first)."""
        return resolve_spec(text, shipped)[0]

    @property
    def params(self) -> dict[str, Any]:
        """Every parameter of the bot, as resolved: given, else the default (a new dict)."""
        return dict(self.resolved)

    @property
    def builtin(self) -> bool:
        """Is it a bot of glory_ai's own?"""
        return self.kind == "builtin"

    def gives(self, key: str) -> bool:
        """Was ``key`` written in the spec (rather than taken from the defaults)?"""
        return any(k == key for k, _ in self.given)

    @property
    def canonical(self) -> str:
        """The one form a run records the spec in: a bot named by its name with the name
        and the keys in lower case, true/false values in lower case, no spaces, the
        parameters in the order written; a bot named by its file or module as written."""
        if self.kind in ("module", "file"):
            return self.text
        return join_spec(self.name, self.canonical_pairs())

    def label(self, shown: Iterable[str]) -> str:
        """The spec with only the given parameters whose key is in ``shown`` (in canonical
        form); a user's file or module bot keeps its text."""
        if self.kind in ("module", "file"):
            return self.text
        keep = set(shown)
        return join_spec(self.name, ((k, v) for k, v in self.canonical_pairs() if k in keep))

    def canonical_pairs(self) -> tuple[tuple[str, str], ...]:
        """The given ``(key, value)`` pairs as the canonical text spells them."""
        flags = {p.name for p in self.declared if p.kind is bool}
        return tuple((key, value.lower() if key in flags else value) for key, value in self.given)

    def as_played(self, played: Mapping[str, Any], *, before: bool = True) -> str:
        """The spec written so that it means today what it meant when it was played with the
        resolved parameters ``played`` (what a run's ``code.json`` records): the canonical
        text with :meth:`played_differences` added, alone when nothing differs."""
        added = self.played_differences(played, before=before)
        return append_params(self.canonical, added) if added else self.canonical

    def played_differences(self, played: Mapping[str, Any], *, before: bool = True) -> list[tuple[str, str]]:
        """The ``(key, value)`` of every parameter whose value in ``played`` differs from its
        value now, in the bot's parameter order (a parameter since removed after them); a
        value spelled otherwise then but read the same today is no difference. With
        ``before``, a parameter added since (absent from a ``played`` that records any)
        counts as played with its :attr:`Param.before` value, the bot as it was without it."""
        now = self.params
        declared = {param.name: param for param in self.declared}
        order = list(declared) or list(now)
        order += [key for key in played if key not in order]      # a parameter since removed

        def today(key: str, value: Any) -> Any:
            try:
                return declared[key].parse(spell_value(value), self.text) if key in declared else value
            except SpecError:
                return value

        then = {key: today(key, played[key]) for key in order if key in played}
        if before and played:
            then = {key: then[key] if key in then else declared[key].before for key in order
                    if key in then or (key in declared and declared[key].before is not None)}
        return [(key, spell_value(value)) for key, value in then.items()
                if key not in now or now[key] != value]

    def __str__(self) -> str:
        return self.text


def builtin_name(spec: str) -> str | None:
    """The built-in bot a spec names, or None (a user's bot, or no bot): the grammar's first
    part, which for a built-in is its name (never a path)."""
    name = head(spec)
    return name if name in BUILTIN_PARAMS else None


def resolve_params(spec: str, bot: str, declared: tuple[Param, ...],
                   given: Iterable[tuple[str, str]]) -> dict[str, Any]:
    """The parameters of ``bot`` from the ``given`` pairs of ``spec``: each checked and read
    by its :class:`Param`, the others at their defaults; SpecError for an unknown key, a key
    given twice, a bad value or a required parameter left out."""
    by_name = {p.name: p for p in declared}
    params = {p.name: p.default for p in declared}
    seen = set()
    for key, value in given:
        if key not in by_name:
            known = ", ".join(by_name) or "none"
            raise SpecError(f"bot spec {spec!r}: {bot} has no parameter {key!r}; accepted: {known}")
        if key in seen:
            raise SpecError(f"bot spec {spec!r}: parameter {key!r} given twice")
        seen.add(key)
        params[key] = by_name[key].parse(value, spec)
    missing = [p.name for p in declared if p.required and p.name not in seen]
    if missing:
        raise SpecError(f"bot spec {spec!r}: give {', '.join(f'{m}=...' for m in missing)} "
                        f"({bot} requires {'it' if len(missing) == 1 else 'them'})")
    return params


def _builtin_rules(spec: str, bot: str, params: dict[str, Any], given: set[str]) -> None:
    # what a built-in's parameters mean together (docs/bots.md), applied to its resolved params
    if params.get("time_ms", 0) > 0 and params.get("cpu_ms", 0) > 0:
        raise SpecError(f"bot spec {spec!r}: give time_ms (wall time) or cpu_ms (CPU time), not both")
    if "iters" in params and params["iters"] == 0 and params.get("time_ms", 0) == 0 \
            and params.get("cpu_ms", 0) == 0:
        raise SpecError(f"bot spec {spec!r}: give iters > 0 or a time_ms or cpu_ms budget")
    if params.get("eval", EVAL_STYLE) != EVAL_STYLE and "style" in given:
        if "eval" in given:
            raise SpecError(f"bot spec {spec!r}: give style= or eval=, not both "
                            "(the model replaces the style)")
        params["eval"] = EVAL_STYLE      # a style named alone is the evaluation (not the default model)
    if bot == TIMED_BOT and (params["time_ms"] > 0 or params["cpu_ms"] > 0):
        # a budget of time has its own defaults for what the spec does not give
        params.update({key: value for key, value in TIME_DEFAULTS.items() if key not in given})
    if "worlds" in params and params["iters"] and params["worlds"] > params["iters"]:
        raise SpecError(f"bot spec {spec!r}: worlds ({params['worlds']}) exceeds iters ({params['iters']})")
    if "worlds" in params and params["worlds"] > params["node_cap"]:
        raise SpecError(f"bot spec {spec!r}: worlds ({params['worlds']}) exceeds node_cap "
                        f"({params['node_cap']}): every world needs a root node")


def _unknown(spec: str, name: str) -> SpecError:
    from .plugins import user_registry

    known = ", ".join([*BUILTIN_PARAMS, *user_registry()])
    return SpecError(f"bot spec {spec!r}: unknown bot {name!r}; known: {known} (or a bot of "
                     "your own: ./my_bot.py:ClassName or package.module:ClassName)")


def resolve_spec(text: str, shipped: Mapping[str, Shipment] | None = None
                 ) -> tuple[BotSpec, BotInfo | None]:
    """The parsed spec and, for a user's bot, its BotInfo (whose factory builds it)."""
    if not isinstance(text, str) or not text.strip():
        raise SpecError(f"a bot spec is a non-empty string like 'ismcts:iters=2000', got {text!r}")
    name = builtin_name(text)
    if name is None:
        from .plugins import definition

        user = definition(text, shipped)
        if user is None:
            raise _unknown(text, head(text))
        found, params_text = user
        given = read_params(params_text, text)
        params = resolve_params(text, found.key, found.info.params, given)
        return BotSpec(text.strip(), found.key, found.kind, given, tuple(params.items()),
                       found.info.params), found.info
    parts: SpecParts = split_spec(text, BUILTIN_PARAMS.__contains__)
    given = parts.given
    declared = BUILTIN_PARAMS[name]
    params = resolve_params(text, name, declared, given)
    _builtin_rules(text, name, params, {key for key, _ in given})
    return BotSpec(text.strip(), name, "builtin", given, tuple(params.items()), declared), None


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """(bot name, full parameters with defaults) of a spec; SpecError if anything is wrong.
    A user's bot's name is the spec's bot part (``./my_bot.py:Cautious``, ``mypkg.bots:Cautious``
    or its registered name). The same as :meth:`BotSpec.parse`'s ``name`` and ``params``."""
    parsed = BotSpec.parse(spec)
    return parsed.name, parsed.params


def canonical_spec(spec: str) -> str:
    """:attr:`BotSpec.canonical` of a spec text (SpecError for a spec that is not valid).

    >>> canonical_spec(" Greedy ")
    'greedy'
    """
    return BotSpec.parse(spec).canonical


def spec_as_played(spec: str, played: Mapping[str, Any], *, before: bool = True) -> str:
    """:meth:`BotSpec.as_played` of a spec text; the spec itself when this code cannot read
    it."""
    try:
        added = BotSpec.parse(spec).played_differences(played, before=before)
    except SpecError:
        return spec
    return append_params(spec, added) if added else spec


def model_identities(specs: Iterable[str]) -> dict[str, dict[str, Any]]:
    """The evaluation model files of built-in bots' specs (``eval=PATH``), as parts of a
    run's code identity (glory_ai.bots.identity): by spec, ``kind`` "evaluation model",
    its ``path`` (recorded, not compared) and the ``sha256`` of the file's bytes, so that a
    changed model file is a change of the code that plays. With ``prior=`` on, the
    ``prior_sha256`` of its model file for each player count too (kind "prior models" when
    the evaluation is a style). SpecError for a missing file."""
    # (imported here: labelling a spec imports no more than it needs)
    from .prior import PRIOR_OFF, prior_paths

    out: dict[str, dict[str, Any]] = {}
    for spec in specs:
        if not isinstance(spec, str) or builtin_name(spec) is None:
            continue
        params = BotSpec.parse(spec).params
        path = model_path(params.get("eval", EVAL_STYLE))
        if path is not None:
            out[spec] = {"kind": "evaluation model", "path": str(Path(path).resolve()),
                         "sha256": _model_hash(spec, "eval", path)}
        priors = prior_paths(params.get("prior", PRIOR_OFF))
        if priors is not None:
            out.setdefault(spec, {"kind": "prior models"})["prior_sha256"] = {
                str(n): _model_hash(spec, "prior", file) for n, file in priors.items()}
    return out


def _model_hash(spec: str, name: str, path: Path) -> str:
    try:
        data = read_bytes(path, "an evaluation model", MODEL_BYTES)
    except ReadLimitError as error:
        raise SpecError(f"bot spec {spec!r}, parameter {name!r}: model {str(path)!r}: "
                        f"{error.reason}") from None
    except OSError as error:
        raise SpecError(f"bot spec {spec!r}, parameter {name!r}: model {str(path)!r} cannot be read "
                        f"({error.strerror or error})") from None
    return hashlib.sha256(data).hexdigest()
