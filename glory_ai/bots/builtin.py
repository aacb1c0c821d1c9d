"""The built-in bots: :class:`RandomBot`, :class:`PolicyBot` (greedy and heuristic: the one-ply
policy of a style or an evaluation model) and :class:`SearchBot` (flat MC, PIMC, ISMCTS in
C). Each is built from resolved parameters (:class:`glory_ai.bots.spec.BotSpec`: defaults
filled, checked); none has defaults of its own."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from ..core.engine import State
from .base import Bot
from .belief import Evidence
from .builtin_params import model_path, searcher_arguments
from .errors import SpecError

if TYPE_CHECKING:
    from .models import EvalModel

__all__ = ["PolicyBot", "RandomBot", "SearchBot"]

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


def _prior_models(spec: str, value: str) -> dict[int, EvalModel] | None:
    # the models `prior=` names, by player count (checked now: a bad file is a SpecError)
    from .models import ModelError
    from .prior import load_prior

    try:
        return load_prior(value)
    except ModelError as error:
        raise SpecError(f"bot spec {spec!r}, parameter 'prior': {error}") from None


def _evaluation_model(spec: str, evaluation: str, style: str) -> EvalModel:
    # the model `eval=` names (checked now: a bad file is a SpecError naming it), or the style's
    from .models import ModelError, load_model, style_model

    path = model_path(evaluation)
    if path is None:
        return style_model(style)
    try:
        return load_model(path)
    except ModelError as error:
        raise SpecError(f"bot spec {spec!r}, parameter 'eval': {error}") from None


class PolicyBot(Bot):
    """The one-ply heuristic policy of a style (greedy: the balanced style) or of an
    evaluation model (``evaluation``: an ``eval=`` value), with a share ``epsilon`` of
    uniformly random moves."""

    def __init__(self, spec: str, params: dict[str, Any], seed: int, style: str, epsilon: float,
                 evaluation: str) -> None:
        super().__init__(spec, params, seed)
        from ._search import PolicyPlayer

        model = _evaluation_model(spec, evaluation, style)
        self.style = style
        self.model_hash = model.sha256
        self._policy = PolicyPlayer(model, epsilon, seed)

    def _choose(self, state: State, player: int, legal: list[int]) -> int:
        action = self._policy.choose(state, player, self._decision_seed(state, player))
        assert action in legal
        return action


class SearchBot(Bot):
    """ISMCTS, PIMC or flat MC in C (glory_ai/bots/_search.pyx): the ``Searcher`` gets every
    parameter as resolved (glory_ai.bots.builtin_params.searcher_arguments)."""

    def __init__(self, spec: str, params: dict[str, Any], seed: int,
                 algorithm: Literal["ismcts", "pimc", "flatmc"]) -> None:
        super().__init__(spec, params, seed)
        from ._search import Searcher

        model = _evaluation_model(spec, params["eval"], params["style"])
        self.model_hash = model.sha256
        self._searcher = Searcher(algorithm=algorithm, model=model, seed=seed,
                                  prior=_prior_models(spec, params.get("prior", "off")),
                                  **searcher_arguments(algorithm, params))
        self._evidence: Evidence | None = None

    def _choose(self, state: State, player: int, legal: list[int]) -> int:
        belief = None
        if self.params["belief"] > 1:
            # what the other players' choices since the last decision say about their hands
            if self._evidence is None or self._evidence.player != player:
                self._evidence = Evidence(player, self.params["belief_strength"])
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
