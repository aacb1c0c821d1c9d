"""Glory to Rome as an OpenSpiel game (``pip install 'glory_ai[openspiel]'``).

Importing this module registers the Python game ``glory_to_rome`` with ``pyspiel``::

    import pyspiel
    import glory_ai.integrations.openspiel as gs

    game = pyspiel.load_game("glory_to_rome", {"players": 3})   # or gs.load_game(players=3)
    state = game.new_initial_state()          # a chance node: the deal
    state.apply_action(gs.DEAL)               # now the leader decides

Parameters: ``players`` (2-5), ``mode`` (``republic`` / ``imperium``), ``variant`` (a JSON
object of :class:`glory_ai.GameConfig` options, e.g. ``'{"refill_size": 6}'``), ``seed``
(the deals' generator: the i-th deal of a game object is the same for the same seed) and
``perfect_recall`` (see below).

Chance: the game has one chance node, the deal, whose single outcome (:data:`DEAL`) is
sampled (``SAMPLED_STOCHASTIC``, as OpenSpiel's own Tarok): applying it shuffles and deals
from the next seed of the game's generator. The engine keeps the deck order in the state,
so every later draw is decided by that shuffle and no other chance node exists. The shuffle
cannot be enumerated (its outcomes are orderings of 100+ cards), so an explicit chance node
would have to restrict the game to a fixed list of deals.

Information states: ``information_state_string`` is glory_ai's, what the player knows
now (docs/notation.md): two histories after which the player knows the same things share
it. That is not OpenSpiel's perfect-recall contract (the string should tell apart every
sequence of the player's observations and actions); it is what ISMCTS wants (more
sharing), and the engine keeps every public fact that bears on the hidden cards in the
state. With ``perfect_recall=True`` the string is prefixed with a 128-bit digest of the
player's whole sequence (their information-state key after every decision, and their own
actions), which makes it perfect recall up to hash collisions. The tensors
(``information_state_tensor`` and ``observation_tensor``, both glory_ai's observation
tensor, named by ``observation_tensor_layout()``) describe the present only, in either mode.

``resample_from_infostate`` is the engine's determinization: every card the player cannot
know is dealt again uniformly among the worlds consistent with what they have seen, seeded
from the sampler OpenSpiel passes. A resampled world starts a history of its own (its
``history()`` is empty: the true history names hidden cards).

OpenSpiel 2.0.2's C++ bots (``pyspiel.ISMCTSBot``, ``pyspiel.MCTSBot``) crash on any
Python-defined game, OpenSpiel's own Python examples included: use the Python bots
(``open_spiel.python.algorithms.ismcts.ISMCTSBot``, ``mcts.MCTSBot``). ``MCTSBot`` is a
perfect-information search: on this game it searches the true state (every hand and the
deck order), a cheating baseline.
"""
from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Callable
from typing import Any

import numpy as np

from .._jsonio import JSONLimitError, loads
from . import missing_extra

try:
    import pyspiel
except ImportError as _error:
    raise missing_extra("openspiel", "openspiel", _error) from None

from ..core.engine import observation_tensor_layout
from ..game import NUM_DISTINCT_ACTIONS, Game, State

SHORT_NAME = "glory_to_rome"
#: the one outcome of the chance node (the deal)
DEAL = 0
#: a practical bound for OpenSpiel (the rules set none: players who only take and play
#: Jacks could go on forever); random games last at most about 600 decisions
MAX_GAME_LENGTH = 10_000

PARAMETERS: dict[str, Any] = {"players": 2, "mode": "republic", "variant": "", "seed": 0,
                              "perfect_recall": False}

GAME_TYPE = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="Glory to Rome (glory_ai)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.CONSTANT_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=5,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=PARAMETERS)


def glory_game_of(params: dict[str, Any]) -> Game:
    """The glory_ai Game of OpenSpiel parameters (a ValueError names a bad one)."""
    unknown = sorted(set(params) - set(PARAMETERS))
    if unknown:
        raise ValueError(f"{SHORT_NAME}: unknown parameter(s) {unknown}; known: {sorted(PARAMETERS)}")
    variant_text = params.get("variant", "")
    try:
        variant = loads(variant_text, f"{SHORT_NAME}: variant") if variant_text else {}
    except JSONLimitError as error:
        raise ValueError(f"{SHORT_NAME}: variant must be a JSON object of GameConfig options, "
                         f"got {variant_text!r} ({error})") from None
    if not isinstance(variant, dict):
        raise ValueError(f"{SHORT_NAME}: variant must be a JSON object, got {variant_text!r}")
    return Game(params.get("players", 2), mode=params.get("mode", "republic"), **variant)


class GloryToRomeGame(pyspiel.Game):
    """The OpenSpiel game: one glory_ai Game (player count, mode, variant) and the
    generator of its deals."""

    def __init__(self, params: dict[str, Any] | None = None):
        params = {**PARAMETERS, **(params or {})}
        glory = glory_game_of(params)
        seed = params["seed"]
        if not isinstance(seed, int) or seed < 0:
            raise ValueError(f"{SHORT_NAME}: seed must be an integer >= 0, got {seed!r}")
        info = pyspiel.GameInfo(
            num_distinct_actions=NUM_DISTINCT_ACTIONS,
            max_chance_outcomes=1,
            num_players=glory.num_players(),
            min_utility=0.0,
            max_utility=1.0,
            utility_sum=1.0,
            max_game_length=MAX_GAME_LENGTH)
        super().__init__(GAME_TYPE, info, params)
        self.glory = glory
        self.perfect_recall = bool(params["perfect_recall"])
        self._deals = random.Random(seed)

    def next_deal_seed(self) -> int:
        """The seed of the next deal (the game's generator)."""
        return self._deals.getrandbits(64)

    def new_initial_state(self) -> GloryToRomeState:
        """A chance node: apply :data:`DEAL` to deal."""
        return GloryToRomeState(self)

    def make_py_observer(self, iig_obs_type=None, params=None) -> GloryToRomeObserver:
        return GloryToRomeObserver(self, iig_obs_type, params)


class GloryToRomeState(pyspiel.State):
    """An OpenSpiel state around one glory_ai State (``glory_state``; None before the
    deal)."""

    def __init__(self, game: GloryToRomeGame):
        super().__init__(game)
        self.glory_state: State | None = None
        # perfect recall only: a digest per player of everything they saw and did
        self._recall: tuple[bytes, ...] | None = None

    # ---- the game API -------------------------------------------------------------------

    def current_player(self) -> int:
        if self.glory_state is None:
            return int(pyspiel.PlayerId.CHANCE)
        return self.glory_state.current_player()      # TERMINAL (-4) at the end, as OpenSpiel

    def _legal_actions(self, player: int) -> list[int]:
        assert self.glory_state is not None and player == self.glory_state.current_player()
        return self.glory_state.legal_actions()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        assert self.glory_state is None
        return [(DEAL, 1.0)]

    def _apply_action(self, action: int) -> None:
        game = self.get_game()
        if self.glory_state is None:
            if action != DEAL:
                raise ValueError(f"the deal's only outcome is {DEAL}, got {action}")
            self.glory_state = game.glory.new_initial_state(game.next_deal_seed())
            if game.perfect_recall:
                self._recall = tuple(_chain(b"deal", -1, self.glory_state, p)
                                     for p in range(self.glory_state.num_players()))
            return
        decider = self.glory_state.current_player()
        self.glory_state.apply_action(action)
        if self._recall is not None:
            self._recall = tuple(_chain(digest, action if p == decider else -1, self.glory_state, p)
                                 for p, digest in enumerate(self._recall))

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE or self.glory_state is None:
            return "deal"
        return self.glory_state.action_to_string(action)

    def is_terminal(self) -> bool:
        return self.glory_state is not None and self.glory_state.is_terminal()

    def returns(self) -> list[float]:
        """Win share: 1/k to each of k winners (a shared victory), 0 to the others and to
        everyone before the end."""
        n = self.get_game().num_players()
        if not self.is_terminal():
            return [0.0] * n
        assert self.glory_state is not None
        winners = self.glory_state.winners()
        return [1.0 / len(winners) if p in winners else 0.0 for p in range(n)]

    def __str__(self) -> str:
        return "chance node: the deal" if self.glory_state is None else str(self.glory_state)

    # ---- imperfect information ----------------------------------------------------------

    def resample_from_infostate(self, player_id: int, probability_sampler: Callable[[], float]
                                ) -> GloryToRomeState:
        """A state the player cannot tell from this one, every card they cannot know dealt
        again (glory_ai's determinize), seeded from ``probability_sampler()``: a float in
        [0, 1), as OpenSpiel's ``UniformProbabilitySampler`` gives."""
        world = self.get_game().new_initial_state()
        if self.glory_state is None:
            return world
        seed = int(probability_sampler() * 2.0 ** 53)
        world.glory_state = self.glory_state.determinize(player_id, seed)
        if self._recall is not None:
            # the other players' sequences depend on cards the player cannot know: each
            # starts again from what the player knows of it
            world._recall = tuple(digest if p == player_id else _chain(b"resampled", -1, world.glory_state, p)
                                  for p, digest in enumerate(self._recall))
        return world

    def information_state_digest(self, player: int) -> bytes | None:
        """Perfect recall only: the digest of the player's sequence of observations and
        actions (None without ``perfect_recall``)."""
        return None if self._recall is None else self._recall[player]


def _chain(digest: bytes, action: int, state: State, player: int) -> bytes:
    # one link of a player's recall: their own action (-1 for another player's decision)
    # and what they know after it
    link = hashlib.blake2b(digest, digest_size=16)
    link.update(action.to_bytes(4, "little", signed=True))
    link.update(state.information_state_key(player))
    return link.digest()


class GloryToRomeObserver:
    """The observer of one player (public information and that player's private cards),
    OpenSpiel's ``make_py_observer`` interface. Strings: with ``perfect_recall`` in the
    observation type, the information-state string (JSON, docs/notation.md), else the
    readable observation text. Tensor: glory_ai's observation tensor, one named view per
    segment of ``observation_tensor_layout()``."""

    def __init__(self, game: GloryToRomeGame, iig_obs_type=None, params=None):
        if params:
            raise ValueError(f"{SHORT_NAME}: observation parameters are not supported, got {params}")
        if iig_obs_type is None:
            iig_obs_type = pyspiel.IIGObservationType(perfect_recall=False)
        if (not iig_obs_type.public_info
                or iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER):
            raise ValueError(f"{SHORT_NAME}: only the observation of one player is supported "
                             "(public information and that player's private information)")
        self._information_state = bool(iig_obs_type.perfect_recall)
        self._with_digest = self._information_state and game.perfect_recall
        layout = observation_tensor_layout(game.num_players())
        self.tensor = np.zeros(sum(size for _, size in layout), np.float32)
        self.dict: dict[str, np.ndarray] = {}
        at = 0
        for name, size in layout:
            self.dict[name] = self.tensor[at:at + size]
            at += size

    def set_from(self, state: GloryToRomeState, player: int) -> None:
        if state.glory_state is None:
            self.tensor.fill(0.0)
        else:
            self.tensor[:] = state.glory_state.observation_tensor(player)

    def string_from(self, state: GloryToRomeState, player: int) -> str:
        if state.glory_state is None:
            return "chance node: the deal"
        if not self._information_state:
            return state.glory_state.observation_string(player)
        text = state.glory_state.information_state_string(player)
        if self._with_digest:
            digest = state.information_state_digest(player)
            assert digest is not None
            return f"{digest.hex()}|{text}"
        return text


def load_game(players: int = 2, mode: str = "republic", seed: int = 0, perfect_recall: bool = False,
              **variant: Any) -> GloryToRomeGame:
    """``pyspiel.load_game("glory_to_rome", ...)`` with keyword arguments (variant options
    are those of :class:`glory_ai.GameConfig`)."""
    params: dict[str, Any] = {"players": players, "mode": mode, "seed": seed,
                              "perfect_recall": perfect_recall}
    if variant:
        params["variant"] = json.dumps(variant)
    return pyspiel.load_game(SHORT_NAME, params)


def from_glory_state(game: GloryToRomeGame, glory_state: State) -> GloryToRomeState:
    """An OpenSpiel state of ``game`` at a copy of a glory_ai state (a position, a state
    reached by glory_ai's own play), with an empty OpenSpiel history. Perfect recall, if
    the game has it, starts from what each player knows there."""
    if glory_state.config() != game.glory.config():
        raise ValueError("the glory_ai state is of another game (player count, mode or variant) "
                         "than the OpenSpiel game")
    state = game.new_initial_state()
    state.glory_state = glory_state.clone()
    if game.perfect_recall:
        state._recall = tuple(_chain(b"position", -1, state.glory_state, p)
                              for p in range(glory_state.num_players()))
    return state


def make_resampler(seed: int) -> Callable[[GloryToRomeState, int], GloryToRomeState]:
    """A resampler for ``ISMCTSBot.set_resampler`` drawing from its own seeded generator,
    so that a search is reproducible (OpenSpiel's default sampler is seeded anew from the
    system at each call)."""
    rng = random.Random(seed)

    def resample(state: GloryToRomeState, player: int) -> GloryToRomeState:
        return state.resample_from_infostate(player, rng.random)

    return resample


if SHORT_NAME not in pyspiel.registered_names():
    pyspiel.register_game(GAME_TYPE, GloryToRomeGame)
