"""Bots: random, greedy, heuristic styles, flat Monte Carlo, PIMC and ISMCTS, and users' own.

Build one from a spec string ``name:key=value,...`` and ask it for moves:

>>> import glory_ai
>>> from glory_ai.bots import make_bot
>>> bot = make_bot("ismcts:iters=200", seed=1)
>>> state = glory_ai.Game(2).new_initial_state(seed=3)
>>> action = bot.step(state)
>>> action in state.legal_actions()
True
>>> bot.last_search()["iterations"]
200

Every bot is deterministic under its seed: its choice is a function of its spec, its seed
and what its player knows (it never reads a card its player cannot see: search bots deal
the unknown cards themselves, from their own generator). ``registry()`` lists the bots,
their parameters and defaults (also ``glory-ai bots``).

A user's bot is any object with ``step(state) -> action`` made by a factory called as
``factory(seed=SEED, **params)``: bring it with :func:`register`, an entry point in the group
``glory_ai.bots``, or a spec naming it (``./my_bot.py:Cautious:risk=0.3``,
``mypkg.bots:Cautious``). It plays behind a referee that hands it its player's fair view of
the state and checks its answers (:mod:`glory_ai.bots.plugins`, docs/extending.md).
"""
from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from ..core.config import check_seed
from ..core.engine import State
from .belief import Evidence
from .errors import BotError
from .styles import HEURISTIC_STYLES, STYLES

__all__ = ["Bot", "BotError", "BotInfo", "ENTRY_POINT_GROUP", "EVAL_LEARNED", "EVAL_STYLE", "Param",
           "UserBot", "builtin_name", "make_bot", "model_path", "parse_spec", "register", "registry",
           "spell_value", "unregister", "SpecError"]


class SpecError(ValueError):
    """A bot spec that cannot be built: names the part at fault and what is accepted."""


@dataclass(frozen=True)
class Param:
    """One parameter of a bot: its type, default, accepted values and meaning."""

    name: str
    kind: type
    default: Any
    help: str
    low: float | None = None
    high: float | None = None
    choices: tuple[str, ...] = ()
    #: a spec must give it (a user's factory parameter without a default)
    required: bool = False
    #: other spellings of a value (text -> value), read before the type
    aliases: tuple[tuple[str, str], ...] = ()

    def describe(self) -> str:
        if self.choices:
            accepted = "|".join(self.choices)
        elif self.kind is bool:
            accepted = "true|false"
        elif self.kind is str:
            accepted = "str"
        else:
            def show(bound: float | None) -> str:
                return "" if bound is None else (f"{int(bound):,}" if self.kind is int else f"{bound:g}")
            low, high = show(self.low), show(self.high)
            accepted = f"{self.kind.__name__} {low}..{high}"
        shown = (f"{self.name} (required, {accepted})" if self.required
                 else f"{self.name}={self.default} ({accepted})")
        return f"{shown}: {self.help}" if self.help else shown

    def parse(self, text: str, bot: str) -> Any:
        where = f"bot spec {bot!r}, parameter {self.name!r}"
        text = dict(self.aliases).get(text, text)
        if self.kind is bool:
            lowered = text.strip().lower()
            if lowered in ("1", "true", "yes", "on"):
                return True
            if lowered in ("0", "false", "no", "off"):
                return False
            raise SpecError(f"{where}: expected true or false, got {text!r}")
        if self.choices:
            if text not in self.choices:
                raise SpecError(f"{where}: expected one of {'|'.join(self.choices)}, got {text!r}")
            return text
        try:
            value = self.kind(text)
        except ValueError:
            raise SpecError(f"{where}: expected {self.kind.__name__}, got {text!r}") from None
        if isinstance(value, float) and not math.isfinite(value):
            raise SpecError(f"{where}: expected a finite number, got {text!r}")
        if (self.low is not None and value < self.low) or (self.high is not None and value > self.high):
            low = "" if self.low is None else f"{self.low:g}"
            high = "" if self.high is None else f"{self.high:g}"
            raise SpecError(f"{where}: {value} is out of range {low}..{high}")
        return value


@dataclass(frozen=True)
class BotInfo:
    """A bot as the registry knows it: name, description, parameters, the factory
    ``factory(spec, params, seed) -> Bot``, where it comes from (``origin``: ``built-in``,
    ``registered``, ``entry point of DIST VERSION``, ``file PATH``, ``module NAME``) and
    whether it plays behind the fair-play referee (users' bots; docs/extending.md)."""

    name: str
    description: str
    params: tuple[Param, ...]
    factory: Callable[..., Bot] = field(repr=False)
    origin: str = "built-in"
    fair_play: bool = True

    def defaults(self) -> dict[str, Any]:
        return {p.name: p.default for p in self.params}


class Bot:
    """A player: ``step(state)`` returns the action for the player to move."""

    #: what the last search found, or None (last_search()); set once the bot has moved
    _last: dict[str, Any] | None
    #: the sha256 of the evaluation model file of an ``eval=PATH`` bot (None without one)
    model_hash: str | None = None

    def __init__(self, spec: str, params: dict[str, Any], seed: int) -> None:
        self.spec = spec
        self.params = params
        self.seed = seed

    def step(self, state: State) -> int:
        if not isinstance(state, State):
            raise TypeError(f"step() takes a glory_ai State, got {type(state).__name__}")
        if state.is_terminal():
            raise ValueError("the game is over: there is no move to make")
        legal = state.legal_actions()
        if not legal:
            raise RuntimeError("the game is not over but has no legal action: an engine bug "
                               f"(phase {state.phase()!r}, player {state.current_player()})")
        if len(legal) == 1:
            self._last = None
            return legal[0]
        return self._choose(state, state.current_player(), legal)

    def _choose(self, state: State, player: int, legal: list[int]) -> int:
        raise NotImplementedError

    def _decision_seed(self, state: State, player: int) -> int:
        # a function of the bot's seed and what its player knows now, so the choice never
        # depends on hidden cards, on earlier calls or on any global generator
        return (state.information_state_hash(player) ^ (self.seed * 0x9E3779B97F4A7C15)) & 0xFFFFFFFFFFFFFFFF

    def last_search(self) -> dict[str, Any] | None:
        """What the last search found (search bots): root statistics per action, iterations,
        seconds, nodes; None for other bots or a forced move."""
        return getattr(self, "_last", None)

    def __repr__(self) -> str:
        return f"<bot {self.spec} seed={self.seed}>"


_MASK64 = 0xFFFFFFFFFFFFFFFF


def _uniform_index(seed: int, count: int) -> int:
    """An index in ``range(count)`` drawn from a 64-bit seed: splitmix64's output function
    spreads the seed's bits, then a multiply-shift maps it onto ``count`` (bias below
    ``count / 2**64``). A seeded ``random.Random`` per decision cost 5-7 us; this costs well
    under one."""
    mixed = (seed + 0x9E3779B97F4A7C15) & _MASK64
    mixed = ((mixed ^ (mixed >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    mixed = ((mixed ^ (mixed >> 27)) * 0x94D049BB133111EB) & _MASK64
    mixed ^= mixed >> 31
    return (mixed * count) >> 64


class RandomBot(Bot):
    def _choose(self, state: State, player: int, legal: list[int]) -> int:
        return legal[_uniform_index(self._decision_seed(state, player), len(legal))]


if TYPE_CHECKING:
    from .models import EvalModel


#: the ``eval=`` value of the hand-set style (``style=``) and of the model shipped with glory_ai
EVAL_STYLE = "style"
EVAL_LEARNED = "learned"


def model_path(value: str) -> Path | None:
    """The model file an ``eval=`` value names: the shipped model's for ``learned``
    (glory_ai/data/models/learned.npz, docs/evaluation.md), None for ``style`` (the hand-set
    style), else the value as a path."""
    if value == EVAL_STYLE:
        return None
    if value == EVAL_LEARNED:
        return Path(__file__).resolve().parent.parent / "data" / "models" / "learned.npz"
    return Path(value)


def _evaluation_model(spec: str, params: dict[str, Any], style: str) -> EvalModel:
    # the model `eval=` names (checked now: a bad file is a SpecError naming it), or the style's
    from .models import ModelError, load_model, style_model

    path = model_path(params.get("eval", EVAL_STYLE))
    if path is None:
        return style_model(style)
    if _given(spec, "style"):
        raise SpecError(f"bot spec {spec!r}: give style= or eval=, not both (the model replaces the style)")
    try:
        return load_model(path)
    except ModelError as error:
        raise SpecError(f"bot spec {spec!r}, parameter 'eval': {error}") from None


def _given(spec: str, key: str) -> bool:
    # was `key` written in the spec (rather than taken from the defaults)?
    rest = spec.partition(":")[2]
    return any(part.partition("=")[0].strip().lower() == key for part in rest.split(","))


class PolicyBot(Bot):
    """The one-ply heuristic policy of a style (greedy: the balanced style) or of an
    evaluation model (``eval=PATH``)."""

    def __init__(self, spec: str, params: dict[str, Any], seed: int, style: str) -> None:
        super().__init__(spec, params, seed)
        from ._search import PolicyPlayer

        model = _evaluation_model(spec, params, style)
        self.style = style
        self.model_hash = model.sha256
        self._policy = PolicyPlayer(model, params.get("epsilon", 0.0), seed)

    def _choose(self, state: State, player: int, legal: list[int]) -> int:
        action = self._policy.choose(state, player, self._decision_seed(state, player))
        assert action in legal
        return action


class SearchBot(Bot):
    """ISMCTS, PIMC or flat MC in C (glory_ai/bots/_search.pyx)."""

    def __init__(self, spec: str, params: dict[str, Any], seed: int,
                 algorithm: Literal["ismcts", "pimc", "flatmc"]) -> None:
        super().__init__(spec, params, seed)
        from ._search import Searcher

        threads = params.get("threads", 1)
        trees = params.get("trees", 0) or threads
        model = _evaluation_model(spec, params, params.get("style", "balanced"))
        self.model_hash = model.sha256
        self._searcher = Searcher(
            algorithm=algorithm, iterations=params["iters"], time_ms=params.get("time_ms", 0),
            c=params.get("c", 0.7), rollout=params.get("rollout", "random"),
            cutoff=params.get("cutoff", 40), reward=params.get("reward", "win"),
            worlds=params.get("worlds", 1), epsilon=params.get("epsilon", 0.1),
            temperature=params.get("temperature", 4.0), node_cap=params.get("node_cap", 200000),
            model=model, rollout_temperature=params.get("rollout_temperature", 0.5),
            trees=trees, threads=threads, reuse=params.get("reuse", False), seed=seed,
            solver=params.get("solver", False), speed=params.get("speed", 0.0), vp=params.get("vp", 0.0),
            final=params.get("final", "visits"), belief=params.get("belief", 1),
            belief_strength=params.get("belief_strength", 0.5))
        self._evidence: Evidence | None = None

    def _choose(self, state: State, player: int, legal: list[int]) -> int:
        belief = None
        if self.params.get("belief", 1) > 1:
            # what the other players' choices since the last decision say about their hands
            if self._evidence is None or self._evidence.player != player:
                self._evidence = Evidence(player, self.params.get("belief_strength", 0.5))
            self._evidence.watch(state)
            belief = self._evidence.table(state)
        stats = self._searcher.search(state, player, self._decision_seed(state, player), belief)
        info = self._searcher.last_stats
        self._last = info
        if not stats:
            return legal[0]
        best = stats[0]["action"]      # the first by the `final` rule (docs/bots.md, "The move played")
        assert best in legal
        return best


def spell_value(value: Any) -> str:
    """A parameter value as a spec writes it (``true``/``false`` for a flag)."""
    return str(value).lower() if isinstance(value, bool) else str(value)


def _eval_param(default: str) -> Param:
    return Param("eval", str, default,
                 f"the evaluation: {EVAL_LEARNED} (the model shipped with glory_ai), {EVAL_STYLE} (the "
                 "hand-set style=) or a model file (.npz, docs/evaluation.md)"
                 + ("; a spec giving style= alone means eval=style" if default != EVAL_STYLE else ""),
                 aliases=(("", EVAL_STYLE),))


def _search_params(default_iters: int, improved: bool = False, **extra: Param) -> tuple[Param, ...]:
    # `improved`: the defaults of ISMCTS (solver, speed and margin in the reward, robust
    # final choice); PIMC and flat MC keep the plain ones (docs/bots.md, "Search options")
    common = [
        Param("iters", int, default_iters, "iterations per move (shared by the trees); 0 with time_ms",
              0, 10_000_000),
        Param("time_ms", float, 0.0, "time per move in ms instead of iterations (not reproducible)"
              + ("; then, unless given: " + ",".join(f"{key}={spell_value(value)}"
                                                     for key, value in TIME_DEFAULTS.items())
                 if improved else ""),
              0, 3_600_000),
        Param("c", float, SEARCH_DEFAULTS["c"] if improved else 0.7, "UCB exploration constant", 0, 100),
        Param("rollout", str, "random", "rollout policy: uniform, the best one-ply action, or a softmax "
              "over one-ply evaluations", choices=("random", "heuristic", "model")),
        Param("cutoff", int, SEARCH_DEFAULTS["cutoff"] if improved else 40,
              "rollout decisions before evaluating the position (0: play to the end)"
              + (f"; {TIME_DEFAULTS['cutoff']} under time_ms unless given"
                 if improved and "cutoff" in TIME_DEFAULTS else ""),
              0, 100000),
        Param("reward", str, "win", "reward per player: win share, rank, or VP margin",
              choices=("win", "rank", "margin")),
        Param("style", str, "balanced", "evaluation style for heuristic rollouts and cutoffs",
              choices=tuple(STYLES)),
        _eval_param(EVAL_LEARNED if improved else EVAL_STYLE),
        Param("epsilon", float, 0.1, "random-move share of heuristic rollouts", 0, 1),
        Param("temperature", float, 4.0, "VP scale turning cutoff evaluations into rewards", 0.01, 1000),
        Param("rollout_temperature", float, 0.5, "softmax temperature of rollout=model", 0.001, 1000),
        Param("threads", int, 1, "threads running the trees (root parallelism)", 1, 256),
        Param("trees", int, 0, "independent trees merged at the root (0: as many as threads)", 0, 256),
        Param("node_cap", int, 200000, "nodes per tree (64 bytes each); at the cap the tree stops growing",
              1000, 100_000_000),
        Param("solver", bool, improved,
              "proven wins and losses of the player's own lines, and decisive moves"),
        Param("speed", float, SEARCH_DEFAULTS["speed"] if improved else 0.0,
              "reward weight of the game's length: a winner prefers it shorter, a loser longer", 0, 0.5),
        Param("vp", float, SEARCH_DEFAULTS["vp"] if improved else 0.0,
              "reward weight of the VP margin", 0, 1),
        Param("final", str, "robust" if improved else "visits",
              "move choice: most visits, ties by lowest id (visits); proven results first, "
              "ties by value, then game length, then chance (robust)", choices=("visits", "robust")),
        Param("belief", int, SEARCH_DEFAULTS["belief"] if improved else 1,
              "candidate worlds per determinization, kept by the likelihood of the others' choices "
              "(1: uniform)", 1, 64),
        Param("belief_strength", float, 0.5,
              "how much a role passed over lowers the odds of holding its cards (belief > 1)", 0, 0.95),
    ]
    common.extend(extra.values())
    return tuple(common)


#: the ISMCTS defaults of the reward mix and the belief (measured: docs/bots.md)
SEARCH_DEFAULTS: dict[str, Any] = {"c": 0.7, "cutoff": 80, "speed": 0.2, "vp": 0.05, "belief": 1}

#: what ISMCTS uses instead, for the parameters a spec leaves out, when its budget is time
#: (time_ms): at equal time the cheaper iteration wins (docs/bots.md, "Budgets of time")
TIME_DEFAULTS: dict[str, Any] = {"cutoff": 40}

_REGISTRY: dict[str, BotInfo] = {}


def _register(name: str, description: str, params: tuple[Param, ...],
              factory: Callable[[str, dict[str, Any], int], Bot]) -> None:
    _REGISTRY[name] = BotInfo(name, description, params, factory)


_register("random", "uniform over the legal actions", (),
          lambda spec, params, seed: RandomBot(spec, params, seed))
_register("greedy", "one-ply lookahead on the balanced evaluation (docs/bots.md)", (),
          lambda spec, params, seed: PolicyBot(spec, params, seed, "balanced"))
_register("heuristic", "one-ply lookahead on a playing style's evaluation",
          (Param("style", str, "builder", "playing style", choices=HEURISTIC_STYLES),
           Param("epsilon", float, 0.0, "share of uniformly random moves", 0, 1),
           _eval_param(EVAL_STYLE)),
          lambda spec, params, seed: PolicyBot(spec, params, seed, params["style"]))
_register("flatmc", "flat Monte Carlo: each root action tried in turn on fresh determinizations",
          _search_params(1000),
          lambda spec, params, seed: SearchBot(spec, params, seed, "flatmc"))
_register("pimc", "Perfect-Information Monte Carlo: UCT on `worlds` determinizations, root statistics summed",
          _search_params(2000, worlds=Param("worlds", int, 20, "determinizations searched", 1, 100000)),
          lambda spec, params, seed: SearchBot(spec, params, seed, "pimc"))
_register("ismcts", "single-observer Information-Set MCTS (Cowling, Powley & Whitehouse 2012)",
          _search_params(2000, improved=True,
                         reuse=Param("reuse", bool, False, "keep the tree between moves")),
          lambda spec, params, seed: SearchBot(spec, params, seed, "ismcts"))


def registry() -> dict[str, BotInfo]:
    """Every bot by name: description, parameters (type, default, range) and factory; the
    built-ins first, then those registered with :func:`register` and those of installed
    distributions' entry points (group ``glory_ai.bots``)."""
    from .plugins import user_registry

    return {**_REGISTRY, **user_registry()}


def _parse_params(spec: str, name: str, declared: tuple[Param, ...], rest: str) -> dict[str, Any]:
    """The parameters of a spec (``key=value,...`` after the bot), defaults filled in."""
    by_name = {p.name: p for p in declared}
    params = {p.name: p.default for p in declared}
    seen = set()
    for part in filter(None, (p.strip() for p in rest.split(","))) if rest.strip() else ():
        key, eq, value = part.partition("=")
        key = key.strip().lower()
        if not eq:
            raise SpecError(f"bot spec {spec!r}: {part!r} is not key=value")
        if key not in by_name:
            known = ", ".join(by_name) or "none"
            raise SpecError(f"bot spec {spec!r}: {name} has no parameter {key!r}; accepted: {known}")
        if key in seen:
            raise SpecError(f"bot spec {spec!r}: parameter {key!r} given twice")
        seen.add(key)
        params[key] = by_name[key].parse(value.strip(), spec)
    missing = [p.name for p in declared if p.required and p.name not in seen]
    if missing:
        raise SpecError(f"bot spec {spec!r}: give {', '.join(f'{m}=...' for m in missing)} "
                        f"({name} requires {'it' if len(missing) == 1 else 'them'})")
    return params


def _unknown(spec: str, name: str) -> SpecError:
    from .plugins import user_registry

    known = ", ".join([*_REGISTRY, *user_registry()])
    return SpecError(f"bot spec {spec!r}: unknown bot {name!r}; known: {known} (or a bot of "
                     "your own: ./my_bot.py:ClassName or package.module:ClassName)")


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """(bot name, full parameters with defaults) of a spec; SpecError if anything is wrong.
    A user's bot's name is the spec's bot part (``./my_bot.py:Cautious``, ``mypkg.bots:Cautious``
    or its registered name)."""
    if not isinstance(spec, str) or not spec.strip():
        raise SpecError(f"a bot spec is a non-empty string like 'ismcts:iters=2000', got {spec!r}")
    if builtin_name(spec) is None:
        from .plugins import definition

        user = definition(spec)
        if user is not None:
            found, rest = user
            return found.key, _parse_params(spec, found.key, found.info.params, rest)
    name, _, rest = spec.strip().partition(":")
    name = name.strip().lower()
    if name not in _REGISTRY:
        raise _unknown(spec, name)
    info = _REGISTRY[name]
    params = _parse_params(spec, name, info.params, rest)
    if "iters" in params and params["iters"] == 0 and params.get("time_ms", 0) == 0:
        raise SpecError(f"bot spec {spec!r}: give iters > 0 or a time_ms budget")
    if params.get("eval", EVAL_STYLE) != EVAL_STYLE and _given(spec, "style") and not _given(spec, "eval"):
        params["eval"] = EVAL_STYLE      # a style named alone is the evaluation (not the default model)
    if name == "ismcts" and params["time_ms"] > 0:
        # a budget of time has its own defaults for what the spec does not give
        params.update({key: value for key, value in TIME_DEFAULTS.items() if not _given(spec, key)})
    if "worlds" in params and params["iters"] and params["worlds"] > params["iters"]:
        raise SpecError(f"bot spec {spec!r}: worlds ({params['worlds']}) exceeds iters ({params['iters']})")
    if "worlds" in params and params["worlds"] > params["node_cap"]:
        raise SpecError(f"bot spec {spec!r}: worlds ({params['worlds']}) exceeds node_cap "
                        f"({params['node_cap']}): every world needs a root node")
    return name, params


def model_identities(specs: Iterable[str]) -> dict[str, dict[str, Any]]:
    """The evaluation model files of built-in bots' specs (``eval=PATH``), as parts of a
    run's code identity (glory_ai.bots.identity): by spec, ``kind`` "evaluation model",
    its ``path`` (recorded, not compared) and the ``sha256`` of the file's bytes, so that a
    changed model file is a change of the code that plays. SpecError for a missing file."""
    out: dict[str, dict[str, Any]] = {}
    for spec in specs:
        if not isinstance(spec, str) or builtin_name(spec) is None:
            continue
        path = model_path(parse_spec(spec)[1].get("eval", EVAL_STYLE))
        if path is not None:
            try:
                data = Path(path).read_bytes()
            except OSError as error:
                raise SpecError(f"bot spec {spec!r}, parameter 'eval': model {str(path)!r} cannot be read "
                                f"({error.strerror or error})") from None
            out[spec] = {"kind": "evaluation model", "path": str(Path(path).resolve()),
                         "sha256": hashlib.sha256(data).hexdigest()}
    return out


def builtin_name(spec: str) -> str | None:
    """The built-in bot a spec names, or None (a user's bot, or no bot): the grammar's first
    part, which for a built-in is its name (never a path)."""
    name = spec.strip().partition(":")[0].strip().lower()
    return name if name in _REGISTRY else None


def make_bot(spec: str, seed: int = 0, *, shipped: Mapping[str, Any] | None = None) -> Bot:
    """A bot from its spec string (``ismcts:iters=2000,c=0.7``, ``./my_bot.py:Cautious``),
    seeded. A user's bot comes behind its referee (:class:`UserBot`). ``shipped``: the user
    bots a run shipped to its workers (glory_ai.bots.plugins.ship), found before any other."""
    seed = check_seed(seed)
    if isinstance(spec, str) and spec.strip() and builtin_name(spec) is None:
        from .plugins import definition

        user = definition(spec, shipped)
        if user is not None:
            found, rest = user
            params = _parse_params(spec, found.key, found.info.params, rest)
            return found.info.factory(spec.strip(), params, seed)
    name, params = parse_spec(spec)
    return _REGISTRY[name].factory(spec.strip(), params, seed)


if TYPE_CHECKING:
    from .plugins import ENTRY_POINT_GROUP, UserBot, register, unregister

#: the names glory_ai.bots.plugins defines for this package (imported when first used: a
#: run of built-in bots never loads it)
_PLUGIN_NAMES = ("ENTRY_POINT_GROUP", "UserBot", "register", "unregister")


def __getattr__(name: str) -> Any:
    if name in _PLUGIN_NAMES:
        from . import plugins

        return getattr(plugins, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
