"""Type stubs for the bots' compiled search (glory_ai/bots/_search.pyx and _policy.pxi).

Checked against the built extension by ``python3 -m mypy.stubtest glory_ai.bots._search``
(allowlist in .ci/stubtest-allowlist.txt). The Python face is three classes, built by
glory_ai.bots from a bot spec: :class:`Searcher` (ISMCTS, PIMC, flat MC),
:class:`PolicyPlayer` (the one-ply heuristic policy) and :class:`CompiledModel` (an
evaluation model in C memory, _model.pxi); everything else is C. The underscored names
are hooks for the tests and benchmarks.
"""
from collections.abc import Collection, Sequence
from typing import Any, Literal, TypedDict

import numpy as np
import numpy.typing as npt
from typing_extensions import disjoint_base

from glory_ai.bots.models import EvalModel
from glory_ai.core.engine import State

#: bytes of one tree node
NODE_BYTES: int
#: bytes of one tree's working context besides its nodes (game states, buffers, stamps)
CONTEXT_BYTES: int
#: the root mean at or above which keep= plays the highest lower bound (a clearly won root)
KEEP_MEAN: float

# (not runtime names: the shapes of what the search returns)
class _RootStat(TypedDict):
    """One root action of a search, merged over the trees (every PIMC world)."""

    action: int
    visits: int
    available: int
    #: the mean reward of every player (0.0 for an action never visited)
    mean_reward: list[float]
    #: (solver) "win" or "loss" when proven whatever the hidden cards, else None
    proven: str | None
    #: the own decisions of the proof (the shortest win, the longest loss); 0 unproven
    proof_length: int
    #: the mean game length backed up, in decisions since the root per player
    mean_length: float

class _NodeDict(TypedDict):
    """One node of a tree (Searcher._tree)."""

    action: int
    mover: int
    visits: int
    available: int
    reward: list[float]
    children: list[_NodeDict]
    # with flags=True only: the solver's marks and the sum of the game lengths
    flags: set[str]
    length: float
    # with prior= only: the node's prior at its parent, and the logits cached at the node by action
    prior: float
    logits: dict[int, float]

@disjoint_base     # a cdef class
class Searcher:
    """A search bot's engine: one or more trees (root parallelism), their settings and,
    with reuse, the trees kept between moves."""

    #: what the last search found: {"actions": [_RootStat, ...], "iterations": int,
    #: "seconds": float, "nodes": int, "reused_nodes": int, "trees": int,
    #: "node_cap_reached": bool, "tie_broken": bool (chance chose between equal first
    #: rows), "certainty_conflicts": int (always 0: checked by the tests), "turn_win": the
    #: move the root win search found (turnwin=; then no tree search: 0 iterations, 0
    #: visits) or None, "turn_win_nodes": int (the positions it searched)}; None before
    last_stats: dict[str, Any] | None
    def __init__(
        self,
        *,
        algorithm: Literal["ismcts", "pimc", "flatmc"],
        iterations: int,
        time_ms: float,
        cpu_ms: float,
        c: float,
        rollout: Literal["random", "heuristic", "model"],
        cutoff: int,
        reward: Literal["win", "rank", "margin"],
        worlds: int,
        epsilon: float,
        temperature: float,
        node_cap: int,
        model: EvalModel,
        trees: int,
        threads: int,
        reuse: bool,
        seed: int,
        rollout_temperature: float,
        solver: bool,
        speed: float,
        vp: float,
        final: Literal["visits", "robust"],
        belief: int,
        belief_strength: float,
        omniscient: bool,
        turnwin: int,
        turnwin_worlds: int,
        keep: float,
        rollout_others: Literal["same", "random", "heuristic", "model"],
        cheat: Literal["none", "hands", "vaults", "hidden", "deck"],
        prior_c: float,
        widen: float,
        forum_threat: bool,
        paired: bool,
        ahead: float,
        prior: dict[int, EvalModel] | None = None,
    ) -> None: ...
    def search(
        self, state: State, player: int, key: int, belief: Sequence[Sequence[float]] | None = None
    ) -> list[_RootStat]: ...
    def _run_one(self, i: int) -> None: ...
    def _follow(self, state: State, player: int) -> int: ...
    def _tree(self, index: int, flags: bool = False) -> list[_NodeDict]: ...
    def _sample_worlds(
        self, state: State, player: int, key: int, belief: Sequence[Sequence[float]] | None, count: int
    ) -> list[list[list[int]]]: ...
    def _paired_worlds(
        self, state: State, player: int, key: int, visits: Sequence[int]
    ) -> list[list[list[int]]]: ...
    def _set_stamp(self, value: int) -> None: ...
    def _check_trees(self) -> list[str]: ...

@disjoint_base     # a cdef class
class PolicyPlayer:
    """The one-ply heuristic policy for one player: heuristic and greedy bots."""

    def __init__(self, model: EvalModel, epsilon: float, seed: int) -> None: ...
    def choose(self, state: State, player: int, key: int) -> int: ...

@disjoint_base     # a cdef class
class CompiledModel:
    """An evaluation model (glory_ai.bots.models.EvalModel) copied into C memory for the
    search and the one-ply policy: the normalisation is folded into the first layer."""

    @property
    def model(self) -> EvalModel: ...
    def __init__(self, model: EvalModel) -> None: ...
    def _outputs(self, features: npt.ArrayLike) -> npt.NDArray[np.float64]: ...

def _select(
    children: Sequence[tuple[int, int, int, Sequence[float]]],
    legal: Sequence[int],
    mover: int,
    c: float,
    algorithm: Literal["ismcts", "pimc", "flatmc"] = "ismcts",
    flags: Sequence[Collection[str]] | None = None,
    solver: bool = False,
    priors: Sequence[float] | None = None,
    prior_c: float = 0.0,
) -> tuple[int | None, list[int], list[int]]: ...
def _rewards(
    state: State,
    reward: Literal["win", "rank", "margin"] = "win",
    temperature: float = 4.0,
    style: str | dict[str, Any] | None = None,
    model: EvalModel | None = None,
    speed: float = 0.0,
    vp: float = 0.0,
) -> list[float]: ...
def _order_rows(
    stats: list[_RootStat], player: int, key: int, flat: bool, final: str, keep: float = 0.0
) -> bool: ...
def _turn_wins(state: State, max_nodes: int = 1000000) -> list[int] | None: ...
def _turn_win_holds(state: State, player: int, max_nodes: int = 1000000) -> bool | None: ...
def _decisive(state: State, every: bool = False) -> int | None: ...
def _evaluate(
    state: State, player: int, style: str | dict[str, Any] | None = None, model: EvalModel | None = None
) -> float: ...
def _features(states: list[State], players: list[int]) -> npt.NDArray[np.float64]: ...
def _evaluation_loop(
    states: list[State], model: EvalModel | CompiledModel, repeats: int, features_only: bool = False
) -> int: ...
def _action_values(state: State, model: EvalModel | CompiledModel) -> list[float]: ...
def _prior_probs(state: State, model: EvalModel | CompiledModel) -> list[float]: ...
def _prior_expand(
    state: State, model: EvalModel | CompiledModel, untried: Sequence[int]
) -> tuple[int, float]: ...
def _softmax_draws(
    state: State, model: EvalModel | CompiledModel, temperature: float, draws: int, seed: int
) -> list[int]: ...
