"""Glory to Rome as an OpenSpiel game (``pip install 'glory_ai[openspiel]'``).

Importing this module registers the Python game ``glory_to_rome`` with ``pyspiel``::

    import pyspiel
    import glory_ai.integrations.openspiel as gs

    game = pyspiel.load_game("glory_to_rome", {"players": 3})   # or gs.load_game(players=3)
    state = game.new_initial_state()          # chance nodes: the deal
    gs.deal(state, 42)                        # glory_ai's deal 42; now the leader decides

Parameters: ``players`` (2-5), ``mode`` (``republic`` / ``imperium``), ``variant`` (a JSON
object of :class:`glory_ai.GameConfig` options, e.g. ``'{"refill_size": 6}'``) and
``perfect_recall`` (see below).

Chance: the deal is glory_ai's deal of a 64-bit seed, chosen by :data:`DEAL_NODES` (8)
explicit chance nodes of 256 equally likely outcomes each, the seed's bytes, lowest first
(``EXPLICIT_STOCHASTIC``). ``gs.deal(state, seed)`` applies the eight outcomes of a seed
(``gs.deal_actions(seed)``), so the OpenSpiel game dealt with seed ``s`` is
``glory_ai.Game(...).new_initial_state(s)``. The engine keeps the deck order in the state,
so every later draw is decided by that shuffle and no other chance node exists. Because
every chance outcome is in the history, a state serialises (``pickle``, ``copy.deepcopy``,
``pyspiel.serialize_game_and_state``, ``random_sim_test(serialize=True)``).

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

Speed: the calls a search makes at every step (``legal_actions``, ``current_player``,
``is_terminal``, ``is_chance_node``, ``apply_action``, ``clone``, ``returns``, the strings
and tensors) are answered in Python from the engine, without the round trip through
OpenSpiel's C++ ``State``; C++ callers (``random_sim_test``, ``pyspiel`` algorithms) reach
the same answers through OpenSpiel's machinery. The history is kept in Python beside the
engine's state (``history``, ``full_history``, ``move_number``, ``serialize`` and pickling
read it); OpenSpiel's C++ ``ApplyAction`` records in it too, but its own C++ history holds
only the actions applied through C++, so C++ code reading ``History()`` of a state
advanced or cloned from Python (the ``history=`` line of
``pyspiel.serialize_game_and_state``, for one) sees less than ``state.history()``; the
state's attributes, which every serialisation carries, hold the whole history, and every
round trip restores it.

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

import base64
import hashlib
import json
import operator
import pickle
import random
from array import array
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from .._jsonio import JSONLimitError, loads
from . import missing_extra

try:
    import pyspiel
except ImportError as _error:
    raise missing_extra("openspiel", "openspiel", _error) from None

from ..core.engine import observation_tensor_layout
from ..core.seeds import check_seed
from ..game import NUM_DISTINCT_ACTIONS, Game, State

SHORT_NAME = "glory_to_rome"
#: the deal's chance nodes: one byte of the deal's 64-bit seed each, lowest first
DEAL_NODES = 8
#: the outcomes of each chance node (a byte)
DEAL_OUTCOMES = 256
#: a practical bound for OpenSpiel (the rules set none: players who only take and play
#: Jacks could go on forever); random games last at most about 600 decisions
MAX_GAME_LENGTH = 10_000

PARAMETERS: dict[str, Any] = {"players": 2, "mode": "republic", "variant": "", "perfect_recall": False}

GAME_TYPE = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="Glory to Rome (glory_ai)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
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

_CHANCE = int(pyspiel.PlayerId.CHANCE)
_TERMINAL = int(pyspiel.PlayerId.TERMINAL)
_BYTE_OUTCOMES = [(byte, 1.0 / DEAL_OUTCOMES) for byte in range(DEAL_OUTCOMES)]
_STATE_SECTION = "[State]\n"


class PlayerAction(NamedTuple):
    """One entry of :meth:`GloryToRomeState.full_history` (``pyspiel.PlayerAction``'s fields;
    OpenSpiel's own type cannot be built from Python)."""

    player: int
    action: int


def deal_actions(seed: int) -> list[int]:
    """The chance outcomes that deal glory_ai's deal ``seed`` (its bytes, lowest first)."""
    return list(check_seed(seed).to_bytes(DEAL_NODES, "little"))


def deal(state: GloryToRomeState, seed: int) -> GloryToRomeState:
    """Deals ``seed`` into a new state (applies :func:`deal_actions`); returns the state."""
    if state.history():
        raise ValueError("deal: the state has been dealt already (or partly)")
    for action in deal_actions(seed):
        state.apply_action(action)
    return state


def variant_parameter(variant: dict[str, Any]) -> str:
    """The ``variant`` parameter of GameConfig options: JSON with ``;`` for ``,`` (OpenSpiel's
    game strings, ``glory_to_rome(players=3,variant=...)``, split parameters at commas), keys
    sorted; ``""`` for none. The parameter takes JSON with either separator."""
    return json.dumps(variant, sort_keys=True, separators=(";", ":")) if variant else ""


def glory_game_of(params: dict[str, Any]) -> Game:
    """The glory_ai Game of OpenSpiel parameters (a ValueError names a bad one)."""
    unknown = sorted(set(params) - set(PARAMETERS))
    if unknown:
        raise ValueError(f"{SHORT_NAME}: unknown parameter(s) {unknown}; known: {sorted(PARAMETERS)}")
    variant_text = params.get("variant", "")
    try:
        variant = loads(variant_text.replace(";", ","), f"{SHORT_NAME}: variant") if variant_text else {}
    except JSONLimitError as error:
        raise ValueError(f"{SHORT_NAME}: variant must be a JSON object of GameConfig options, "
                         f"got {variant_text!r} ({error})") from None
    if not isinstance(variant, dict):
        raise ValueError(f"{SHORT_NAME}: variant must be a JSON object, got {variant_text!r}")
    return Game(params.get("players", 2), mode=params.get("mode", "republic"), **variant)


class GloryToRomeGame(pyspiel.Game):
    """The OpenSpiel game: one glory_ai Game (player count, mode, variant)."""

    def __init__(self, params: dict[str, Any] | None = None):
        params = {**PARAMETERS, **(params or {})}
        glory = glory_game_of(params)
        # the game's string names the variant without commas, so that OpenSpiel can read it back
        params["variant"] = variant_parameter(json.loads(params["variant"].replace(";", ","))
                                              if params["variant"] else {})
        info = pyspiel.GameInfo(
            num_distinct_actions=NUM_DISTINCT_ACTIONS,
            max_chance_outcomes=DEAL_OUTCOMES,
            num_players=glory.num_players(),
            min_utility=0.0,
            max_utility=1.0,
            utility_sum=1.0,
            max_game_length=MAX_GAME_LENGTH)
        super().__init__(GAME_TYPE, info, params)
        self.glory = glory
        self.perfect_recall = bool(params["perfect_recall"])

    def new_initial_state(self) -> GloryToRomeState:
        """The first chance node of the deal (:func:`deal` deals a seed)."""
        return GloryToRomeState(self)

    def max_chance_nodes_in_history(self) -> int:
        return DEAL_NODES

    def make_py_observer(self, iig_obs_type=None, params=None) -> GloryToRomeObserver:
        return GloryToRomeObserver(self, iig_obs_type, params)

    def __reduce__(self):
        # pickled as its parameters (the C++ route, Game.serialize(), works too)
        return (_load_from_parameters, (dict(self.get_parameters()),))


def _load_from_parameters(params: dict[str, Any]) -> GloryToRomeGame:
    return pyspiel.load_game(SHORT_NAME, params)


class GloryToRomeState(pyspiel.State):
    """An OpenSpiel state around one glory_ai State (``glory_state``; None until the deal's
    last chance node), which keeps its history in Python (``_history``: player, action,
    player, action, ...), so that ``apply_action`` and ``clone`` from Python need no C++."""

    # Class defaults, so that a dealt state's __dict__ holds only what changes: OpenSpiel
    # clones a Python state by deep-copying every attribute of its __dict__.
    #: during the deal: the seed's bytes dealt so far, and their value
    _dealt = 0
    _seed = 0
    #: perfect recall only: a digest per player of everything they saw and did
    _recall: tuple[bytes, ...] | None = None

    def __init__(self, game: GloryToRomeGame):
        super().__init__(game)
        self.glory_state: State | None = None
        self._history = array("i")

    # ---- the game API, answered in Python (OpenSpiel's C++ reaches the same methods) ------

    def current_player(self) -> int:
        glory = self.glory_state
        if glory is None:
            return _CHANCE
        return glory.current_player()       # TERMINAL (-4) at the end, as OpenSpiel

    def is_terminal(self) -> bool:
        glory = self.glory_state
        return glory is not None and glory.is_terminal()

    def is_chance_node(self) -> bool:
        return self.glory_state is None

    def is_player_node(self) -> bool:
        glory = self.glory_state
        return glory is not None and not glory.is_terminal()

    def is_simultaneous_node(self) -> bool:
        return False

    def legal_actions(self, player: int | None = None) -> list[int]:
        """The legal actions of the player to move (or of ``player``: [] for another
        seat); the chance outcomes at a chance node (for any ``player``, as OpenSpiel's
        ``State`` answers), [] at the end."""
        glory = self.glory_state
        if glory is None:
            return list(range(DEAL_OUTCOMES))
        if player is not None and player != glory.current_player():
            return self._not_to_move(player)
        return glory.legal_actions()

    def _legal_actions(self, player: int) -> list[int]:
        assert self.glory_state is not None and player == self.glory_state.current_player()
        return self.glory_state.legal_actions()

    def _not_to_move(self, player: int) -> list[int]:
        if player < 0 and player != _TERMINAL:
            raise pyspiel.SpielError(f"Called LegalActions for pseudo-player {player}")
        return []

    def legal_actions_mask(self, player: int | None = None) -> list[int]:
        """1 at the legal actions of ``player`` (default: the player to move), over the
        action space (over the chance outcomes at a chance node)."""
        chance = (player if player is not None else self.current_player()) == _CHANCE
        mask = [0] * (DEAL_OUTCOMES if chance else NUM_DISTINCT_ACTIONS)
        if not self.is_terminal():
            for action in self.legal_actions(player):
                mask[action] = 1
        return mask

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self.glory_state is not None:
            raise pyspiel.SpielError("chance_outcomes: not a chance node")
        return list(_BYTE_OUTCOMES)

    # ---- moves, copies and the history, kept in Python ------------------------------------

    def apply_action(self, action: int) -> None:
        """Applies a decision or a chance outcome, straight to the engine (OpenSpiel's C++
        ``ApplyAction`` calls back into Python twice), and records it in the history."""
        if type(action) is not int:
            action = operator.index(action)         # a numpy integer, as OpenSpiel's bots pass
        glory = self.glory_state
        if glory is None or self._recall is not None:
            self._apply_action(action)
            return
        player = glory.current_player()
        glory.apply_action(action)
        history = self._history
        history.append(player)
        history.append(action)

    def _apply_action(self, action: int) -> None:
        # OpenSpiel's C++ ApplyAction calls this (and keeps a history of its own beside)
        glory = self.glory_state
        if glory is None:
            self._deal_byte(action)
            player = _CHANCE
        elif self._recall is None:
            player = glory.current_player()
            glory.apply_action(action)
        else:
            player = glory.current_player()
            glory.apply_action(action)
            self._recall = tuple(_chain(digest, action if p == player else -1, glory, p)
                                 for p, digest in enumerate(self._recall))
        history = self._history
        history.append(player)
        history.append(action)

    def clone(self) -> GloryToRomeState:
        """A copy that plays on alone (the engine's state copied, the history with it)."""
        copy = GloryToRomeState(self.get_game())
        attributes = copy.__dict__
        attributes.update(self.__dict__)          # the rest is immutable: shared
        if self.glory_state is not None:
            attributes["glory_state"] = self.glory_state.clone()
        attributes["_history"] = self._history[:]
        return copy

    def __copy__(self) -> GloryToRomeState:
        return self.clone()

    def __deepcopy__(self, memo: dict) -> GloryToRomeState:
        return self.clone()

    def child(self, action: int) -> GloryToRomeState:
        copy = self.clone()
        copy.apply_action(action)
        return copy

    def history(self) -> list[int]:
        return self._history[1::2].tolist()

    def full_history(self) -> list[PlayerAction]:
        history = self._history
        return [PlayerAction(*pair) for pair in zip(history[::2], history[1::2], strict=True)]

    def history_str(self) -> str:
        return ", ".join(map(str, self._history[1::2]))

    def move_number(self) -> int:
        return len(self._history) // 2

    def is_initial_state(self) -> bool:
        return not self._history

    def serialize(self) -> str:
        """OpenSpiel's serialisation of a Python state (``history=``, ``move_number=``, then the
        pickled attributes), written from the Python history."""
        history = self._history
        pairs = ",".join(f"{history[i]}:{history[i + 1]}" for i in range(0, len(history), 2))
        attributes = base64.b64encode(pickle.dumps(self.__dict__)).decode("ascii")
        return f"history={pairs}\nmove_number={len(history) // 2}\n__dict__={attributes}"

    def __getstate__(self) -> str:
        # pickle: OpenSpiel's SerializeGameAndState, its state section written from the Python
        # history (OpenSpiel's C++ writes the history of the actions applied through C++)
        text = pyspiel.serialize_game_and_state(self.get_game(), self)
        return text[:text.index(_STATE_SECTION) + len(_STATE_SECTION)] + self.serialize() + "\n"

    def _deal_byte(self, action: int) -> None:
        if not 0 <= action < DEAL_OUTCOMES:
            raise ValueError(f"a chance outcome of the deal is a byte (0 to {DEAL_OUTCOMES - 1}), "
                             f"got {action}")
        self._seed |= action << (8 * self._dealt)
        self._dealt += 1
        if self._dealt == DEAL_NODES:
            game = self.get_game()
            self.glory_state = glory = game.glory.new_initial_state(self._seed)
            del self._dealt, self._seed          # the class defaults: nothing to copy
            if game.perfect_recall:
                self._recall = tuple(_chain(b"deal", -1, glory, p) for p in range(glory.num_players()))

    def _action_to_string(self, player: int, action: int) -> str:
        if player == _CHANCE or self.glory_state is None:
            return f"deal: seed byte {action}"
        return self.glory_state.action_to_string(action)

    def returns(self) -> list[float]:
        """Win share: 1/k to each of k winners (a shared victory), 0 to the others and to
        everyone before the end."""
        glory = self.glory_state
        if glory is None or not glory.is_terminal():
            return [0.0] * self.num_players()
        winners = glory.winners()
        share = 1.0 / len(winners)
        return [share if p in winners else 0.0 for p in range(glory.num_players())]

    def player_return(self, player: int) -> float:
        return self.returns()[player]

    # ---- strings and tensors, the observer's answers without its machinery --------------

    def information_state_string(self, player: int | None = None) -> str:
        return _string_of(self, self._player(player), information_state=True,
                          with_digest=self._recall is not None)

    def observation_string(self, player: int | None = None) -> str:
        return _string_of(self, self._player(player), information_state=False, with_digest=False)

    def information_state_tensor(self, player: int | None = None) -> list[float]:
        return self.observation_tensor(player)

    def observation_tensor(self, player: int | None = None) -> list[float]:
        player = self._player(player)
        glory = self.glory_state
        if glory is None:
            return [0.0] * self.get_game().observation_tensor_size()
        return glory.observation_tensor(player).tolist()

    def _player(self, player: int | None) -> int:
        if player is None:
            player = self.current_player()
        if not 0 <= player < self.num_players():
            raise pyspiel.SpielError(f"player {player} is not a seat (0 to {self.num_players() - 1})")
        return player

    def __str__(self) -> str:
        if self.glory_state is None:
            return f"chance node: the deal ({self._dealt} of {DEAL_NODES} seed bytes dealt)"
        return str(self.glory_state)

    # ---- imperfect information ----------------------------------------------------------

    def resample_from_infostate(self, player_id: int, probability_sampler: Callable[[], float]
                                ) -> GloryToRomeState:
        """A state the player cannot tell from this one, every card they cannot know dealt
        again (glory_ai's determinize), seeded from ``probability_sampler()``: a float in
        [0, 1), as OpenSpiel's ``UniformProbabilitySampler`` gives. During the deal, a
        state as far into a deal of other seed bytes."""
        world = self.get_game().new_initial_state()
        if self.glory_state is None:
            for _ in range(self._dealt):
                world._deal_byte(int(probability_sampler() * DEAL_OUTCOMES) % DEAL_OUTCOMES)
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


def _string_of(state: GloryToRomeState, player: int, information_state: bool, with_digest: bool) -> str:
    glory = state.glory_state
    if glory is None:
        return "chance node: the deal"
    if not information_state:
        return glory.observation_string(player)
    text = glory.information_state_string(player)
    if with_digest:
        digest = state.information_state_digest(player)
        assert digest is not None
        return f"{digest.hex()}|{text}"
    return text


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
        return _string_of(state, player, self._information_state, self._with_digest)


def load_game(players: int = 2, mode: str = "republic", perfect_recall: bool = False,
              **variant: Any) -> GloryToRomeGame:
    """``pyspiel.load_game("glory_to_rome", ...)`` with keyword arguments (variant options
    are those of :class:`glory_ai.GameConfig`)."""
    params: dict[str, Any] = {"players": players, "mode": mode, "perfect_recall": perfect_recall}
    if variant:
        params["variant"] = variant_parameter(variant)
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
