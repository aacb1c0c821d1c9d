"""The parameters of the built-in bots, each declared once.

A search parameter is one row of :data:`SEARCH_PARAMS`: its name in a spec, type, range or
choices, default (and the defaults of the search bots that differ), help, the search bots
that offer it and the keyword of the compiled search's ``Searcher`` it feeds. The bots'
:class:`~glory_ai.bots.params.Param` (:data:`BUILTIN_PARAMS`, ``glory-ai bots``), the checks
of a spec and the ``Searcher`` call (:func:`searcher_arguments`) all follow from it.

Light: no engine and no bot is imported, so that a spec's defaults can be read without them.

>>> [p.default for p in BUILTIN_PARAMS["ismcts"] if p.name == "cutoff"]
[80]
>>> searcher_arguments("pimc", {**defaults("pimc"), "threads": 2})["trees"]    # 0: one per thread
2
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .params import Param, spell_value
from .styles import HEURISTIC_STYLES, STYLES

__all__ = ["BUILTIN_PARAMS", "EVAL_LEARNED", "EVAL_STYLE", "SEARCH_BOTS", "SEARCH_PARAMS", "SearchParam",
           "TIMED_BOT", "TIME_DEFAULTS", "TURNWIN_BUDGET", "defaults", "eval_param", "model_path",
           "searcher_arguments"]

#: the ``eval=`` value of the hand-set style (``style=``) and of the model shipped with glory_ai
EVAL_STYLE = "style"
EVAL_LEARNED = "learned"

#: the search bots, by the name of their algorithm
SEARCH_BOTS = ("flatmc", "pimc", "ismcts")

#: what ISMCTS uses instead, for the parameters a spec leaves out, when its budget is time
#: (time_ms or cpu_ms): at equal time the cheaper iteration wins (docs/strength.md, "Budgets of time")
TIME_DEFAULTS: dict[str, Any] = {"cutoff": 40}

#: the bot whose budget of time brings :data:`TIME_DEFAULTS`
TIMED_BOT = "ismcts"

#: the root win search's node budget measured in docs/bots.md ("A win within the turn"):
#: `turnwin=100000`, ISMCTS's default. The shipped results, played before it existed, replay
#: with its ``before`` value 0 (a replay builds a bot from the spec as played)
TURNWIN_BUDGET = 100_000


def model_path(value: str) -> Path | None:
    """The model file an ``eval=`` value names: the shipped model's for ``learned``
    (glory_ai/data/models/learned.npz, docs/evaluation.md), None for ``style`` (the hand-set
    style), else the value as a path."""
    if value == EVAL_STYLE:
        return None
    if value == EVAL_LEARNED:
        return Path(__file__).resolve().parent.parent / "data" / "models" / "learned.npz"
    return Path(value)


_EVAL_HELP = (f"the evaluation: {EVAL_LEARNED} (the model shipped with glory_ai), {EVAL_STYLE} (the "
              "hand-set style=) or a model file (.npz, docs/evaluation.md)")
_EVAL_ALONE = "; a spec giving style= alone means eval=style"
_EVAL_ALIASES = (("", EVAL_STYLE),)          # the old spelling of the style


def eval_param(default: str) -> Param:
    """The ``eval=`` parameter of a bot whose evaluation defaults to ``default``."""
    return Param("eval", str, default, _EVAL_HELP + (_EVAL_ALONE if default != EVAL_STYLE else ""),
                 aliases=_EVAL_ALIASES)


@dataclass(frozen=True)
class SearchParam:
    """One parameter of the search bots: as a :class:`~glory_ai.bots.params.Param` (name,
    type, default, help, range or choices), the defaults of the bots that differ from
    ``default``, the bots that offer it, the ``Searcher`` keyword it feeds (None: it does not
    feed one as it is) and what the ``Searcher`` gets from a bot that does not offer it."""

    name: str
    kind: type
    default: Any
    help: str
    low: float | None = None
    high: float | None = None
    choices: tuple[str, ...] = ()
    keyword: str | None = None
    #: (bot, default) for the bots whose default differs from ``default``
    defaults: tuple[tuple[str, Any], ...] = ()
    bots: tuple[str, ...] = SEARCH_BOTS
    #: the value the Searcher gets from a bot that does not offer the parameter
    absent: Any = None
    aliases: tuple[tuple[str, str], ...] = ()
    #: the value that plays as the bots played before the parameter existed (Param.before)
    before: Any = None

    def default_of(self, bot: str) -> Any:
        """The default of this parameter for ``bot``."""
        return dict(self.defaults).get(bot, self.default)

    def param(self, bot: str) -> Param:
        """This parameter as ``bot`` declares it (its default, and help that says the
        rules of that bot touching it)."""
        default = self.default_of(bot)
        text = self.help
        if bot == TIMED_BOT and self.name in ("time_ms", "cpu_ms"):
            text += "; then, unless given: " + ",".join(f"{key}={spell_value(value)}"
                                                       for key, value in TIME_DEFAULTS.items())
        if bot == TIMED_BOT and self.name in TIME_DEFAULTS:
            text += f"; {TIME_DEFAULTS[self.name]} under time_ms or cpu_ms unless given"
        if self.name == "eval" and default != EVAL_STYLE:
            text += _EVAL_ALONE
        return Param(self.name, self.kind, default, text, self.low, self.high, self.choices,
                     aliases=self.aliases, before=self.before)


#: every parameter of the search bots (flatmc, pimc, ismcts), in the order they list them;
#: ISMCTS's defaults where they differ are its improvements (solver, speed and margin in the
#: reward, robust final choice: docs/bots.md, "Search options"), measured in docs/bots.md
SEARCH_PARAMS: tuple[SearchParam, ...] = (
    SearchParam("iters", int, 2000, "iterations per move (shared by the trees); 0 with time_ms or cpu_ms",
                0, 10_000_000, keyword="iterations", defaults=(("flatmc", 1000),)),
    SearchParam("time_ms", float, 0.0, "time per move in ms instead of iterations (not reproducible)",
                0, 3_600_000, keyword="time_ms"),
    SearchParam("cpu_ms", float, 0.0, "CPU time per move in ms, of each search thread, instead of "
                "iterations: unlike time_ms it holds on a busy machine (not reproducible)",
                0, 3_600_000, keyword="cpu_ms", before=0.0),
    SearchParam("c", float, 0.7, "UCB exploration constant", 0, 100, keyword="c"),
    SearchParam("rollout", str, "random", "rollout policy: uniform, the best one-ply action, or a softmax "
                "over one-ply evaluations", choices=("random", "heuristic", "model"), keyword="rollout"),
    SearchParam("cutoff", int, 40, "rollout decisions before evaluating the position (0: play to the end)",
                0, 100000, keyword="cutoff", defaults=(("ismcts", 80),)),
    SearchParam("reward", str, "win", "reward per player: win share, rank, or VP margin",
                choices=("win", "rank", "margin"), keyword="reward"),
    # style and eval choose the evaluation model the Searcher gets (model=)
    SearchParam("style", str, "balanced", "evaluation style for heuristic rollouts and cutoffs",
                choices=tuple(STYLES)),
    SearchParam("eval", str, EVAL_STYLE, _EVAL_HELP, defaults=(("ismcts", EVAL_LEARNED),),
                aliases=_EVAL_ALIASES),
    SearchParam("epsilon", float, 0.1, "random-move share of heuristic rollouts", 0, 1, keyword="epsilon"),
    SearchParam("temperature", float, 4.0, "VP scale turning cutoff evaluations into rewards", 0.01, 1000,
                keyword="temperature"),
    SearchParam("rollout_temperature", float, 0.5, "softmax temperature of rollout=model", 0.001, 1000,
                keyword="rollout_temperature"),
    SearchParam("threads", int, 1, "threads running the trees (root parallelism)", 1, 256, keyword="threads"),
    SearchParam("trees", int, 0, "independent trees merged at the root (0: as many as threads)", 0, 256,
                keyword="trees"),
    SearchParam("node_cap", int, 200000, "nodes per tree (64 bytes each); at the cap the tree stops growing",
                1000, 100_000_000, keyword="node_cap"),
    SearchParam("solver", bool, False, "proven wins and losses of the player's own lines, and decisive moves",
                keyword="solver", defaults=(("ismcts", True),)),
    SearchParam("speed", float, 0.0, "reward weight of the game's length: a winner prefers it shorter, a "
                "loser longer", 0, 0.5, keyword="speed", defaults=(("ismcts", 0.2),)),
    SearchParam("vp", float, 0.0, "reward weight of the VP margin", 0, 1, keyword="vp",
                defaults=(("ismcts", 0.05),)),
    SearchParam("final", str, "visits", "move choice: most visits, ties by lowest id (visits); proven "
                "results first, ties by value, then game length, then chance (robust)",
                choices=("visits", "robust"), keyword="final", defaults=(("ismcts", "robust"),)),
    SearchParam("belief", int, 1, "candidate worlds per determinization, kept by the likelihood of the "
                "others' choices (1: uniform)", 1, 64, keyword="belief"),
    SearchParam("belief_strength", float, 0.5, "how much a role passed over lowers the odds of holding its "
                "cards (belief > 1)", 0, 0.95, keyword="belief_strength"),
    SearchParam("omniscient", bool, False, "CHEATS, a control for measurement only: the search sees every "
                "hidden card and the deck's order (the true state as its only world)",
                keyword="omniscient", before=False),
    SearchParam("cheat", str, "none", "CHEATS, partial controls for measurement only: the search sees the "
                "others' hands, vaults, both (hidden) or the deck's order, and deals the rest",
                choices=("none", "hands", "vaults", "hidden", "deck"), keyword="cheat", before="none"),
    SearchParam("worlds", int, 20, "determinizations searched", 1, 100000, keyword="worlds",
                bots=("pimc",), absent=1),
    SearchParam("reuse", bool, False, "keep the tree between moves", keyword="reuse",
                bots=("ismcts",), absent=False),
    # the root win search (_tactics.pxi; docs/bots.md, "A win within the turn")
    SearchParam("turnwin", int, 0, "positions searched, before the tree search, for a move that wins "
                "the rest of the turn by force in turnwin_worlds dealt worlds, played at once (0: off)",
                0, 100_000_000, keyword="turnwin", defaults=(("ismcts", TURNWIN_BUDGET),), before=0),
    SearchParam("turnwin_worlds", int, 8, "worlds (determinizations) a win of turnwin must hold in", 1, 256,
                keyword="turnwin_worlds", before=8),
    # keeping won games (issue 36; docs/strength.md, "Never throw a won game"): off by default
    SearchParam("keep", float, 0.0, "a root whose best mean is 0.6 or more plays the action of the highest "
                "lower bound, mean - keep / (2 sqrt(visits)) (0: off)", 0, 10, keyword="keep", before=0.0),
    # the learned prior over actions (issue 36; docs/bots.md, "A learned prior"): off by default
    SearchParam("prior", str, "off", "the learned prior over actions ordering expansion and biasing "
                "selection: off, learned (the models shipped with glory_ai), a folder of prior-2.npz .. "
                "prior-5.npz or one model file", bots=("pimc", "ismcts"), absent="off", before="off"),
    SearchParam("prior_c", float, 1.0, "weight of the prior's bias prior_c * P * sqrt(availability) / "
                "(1 + visits) in selection (prior= on)", 0, 100, keyword="prior_c", bots=("pimc", "ismcts"),
                absent=0.0, before=1.0),
    SearchParam("rollout_others", str, "same", "the rollout policy of the other players (same: rollout=)",
                choices=("same", "random", "heuristic", "model"), keyword="rollout_others", before="same"),
    # progressive widening by the prior (issue 36; docs/bots.md, "A learned prior"): off by default
    SearchParam("widen", float, 0.0, "progressive widening (prior= on): a node of n visits expands only "
                "its ceil(widen * sqrt(n)) best actions by prior (0: off)", 0, 100, keyword="widen",
                bots=("pimc", "ismcts"), absent=0.0, before=0.0),
    # a Forum threat the evaluation at the cutoff cannot see (issue 36): off by default
    SearchParam("forum_threat", bool, False, "rollouts play on past the cutoff while a Forum or Forum "
                "Romanum is active for any player, and its holder's hires there go to the roles it lacks",
                keyword="forum_threat", bots=("ismcts",), absent=False, before=False),
    # common random numbers at the root (issue 36; docs/bots.md, "Paired draws"): off by default
    SearchParam("paired", bool, False, "the k-th visit of every root action plays the same dealt world and "
                "random draws (common random numbers), so the actions are compared on the same deals",
                keyword="paired", bots=("ismcts",), absent=False, before=False),
    # more search where a lead is at stake (issue 36; docs/bots.md, "More search when ahead"): off
    SearchParam("ahead", float, 0.0, "a decision whose root, its budget spent, reads the player as the "
                "likeliest winner (its mean reward above every other's) searches ahead x its budget more "
                "(0: off)", 0, 10, keyword="ahead", bots=("ismcts",), absent=0.0, before=0.0),
)

#: the parameters of every built-in bot, in the order a bot lists them
BUILTIN_PARAMS: dict[str, tuple[Param, ...]] = {
    "random": (),
    "greedy": (),
    "heuristic": (Param("style", str, "builder", "playing style", choices=HEURISTIC_STYLES),
                  Param("epsilon", float, 0.0, "share of uniformly random moves", 0, 1),
                  eval_param(EVAL_STYLE)),
    **{bot: tuple(row.param(bot) for row in SEARCH_PARAMS if bot in row.bots) for bot in SEARCH_BOTS},
}


def defaults(bot: str) -> dict[str, Any]:
    """The default of every parameter of the built-in ``bot``."""
    return {p.name: p.default for p in BUILTIN_PARAMS[bot]}


def check_searcher_arguments(arguments: Mapping[str, Any]) -> None:
    """The compiled ``Searcher``'s check of its keywords, from the same rows as a spec's:
    TypeError for a keyword missing or unknown, ValueError for a value outside its row's
    range or choices (the search allocates and indexes by them)."""
    rows = {row.keyword: row for row in SEARCH_PARAMS if row.keyword is not None}
    missing = sorted(set(rows) - set(arguments))
    unknown = sorted(set(arguments) - set(rows))
    if missing or unknown:
        raise TypeError(f"Searcher: missing keywords {missing}, unknown keywords {unknown}")
    for keyword, row in rows.items():
        value = arguments[keyword]
        if row.choices:
            if value not in row.choices:
                raise ValueError(f"Searcher: {keyword} must be one of {', '.join(row.choices)}, "
                                 f"got {value!r}")
        elif row.kind is bool:
            if not isinstance(value, (bool, int)):
                raise ValueError(f"Searcher: {keyword} must be true or false, got {value!r}")
        elif isinstance(value, bool) or not isinstance(value, (int, float)) or not (
                (row.low is None or row.low <= value) and (row.high is None or value <= row.high)):
            raise ValueError(f"Searcher: {keyword} must be a number from {row.low:g} to {row.high:g}, "
                             f"got {value!r}")


def searcher_arguments(bot: str, params: Mapping[str, Any]) -> dict[str, Any]:
    """The ``Searcher`` keywords (all but ``algorithm``, ``model`` and ``seed``) of the
    search bot ``bot`` from its resolved parameters: every row's keyword, the value of a
    parameter the bot does not offer being the row's ``absent``, and ``trees=0`` as many
    trees as threads. KeyError for a parameter missing from ``params``: they are resolved
    (defaults filled), never defaulted here."""
    out = {row.keyword: params[row.name] if bot in row.bots else row.absent
           for row in SEARCH_PARAMS if row.keyword is not None}
    out["trees"] = out["trees"] or out["threads"]
    return out
