"""A single-agent Gymnasium environment: one seat learns, glory_ai bots play the others
(``pip install 'glory_ai[pettingzoo]'``, which brings Gymnasium).

::

    import gymnasium
    import glory_ai                               # registers GloryToRome-v0

    gymnasium.register_envs(glory_ai)             # optional: marks the import as used
    env = gymnasium.make("GloryToRome-v0", players=3,
                         opponents=["heuristic:style=builder", "ismcts:iters=200"])
    observation, info = env.reset(seed=1)
    while True:
        action = env.action_space.sample(observation["action_mask"])      # or a policy
        observation, reward, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            break

The learner's seat is ``seat`` (default 0); ``opponents`` gives a bot spec per other seat,
in seat order (one spec string serves them all). Between two of the learner's decisions the
bots play the other seats' decisions, Legionary gives included. Observations are those of
the PettingZoo environment (``observation`` and ``action_mask``); ``action_masks()`` returns
the mask too (the method sb3-contrib's MaskablePPO calls; through ``gymnasium.make``'s
wrappers, ``env.unwrapped.action_masks()``). The reward is the learner's win
share at the end, 0 before. ``reset(seed=s)`` deals game ``s``, and each bot is seeded from
``s`` and its seat, so an episode is a pure function of the seed and the learner's actions.

An illegal action raises ``glory_ai.IllegalActionError`` (a ``ValueError``) by default; with
``illegal_action="lose"`` it ends the episode with reward -1 instead (``info["illegal_action"]``
names it), for agents trained without the mask. The registered id defaults to ``"lose"``
(every action of the action space is then a step, as Gymnasium's ``check_env`` expects).
``max_decisions`` truncates an episode after that many of the learner's decisions.

``import glory_ai`` registers :data:`ENV_ID` (``GloryToRome-v0``) with Gymnasium (when
Gymnasium is imported, before or after; see :mod:`glory_ai.integrations`), its keyword
arguments those of :class:`GloryToRomeGymEnv`; so does importing this module, and
``gymnasium.make("glory_ai:GloryToRome-v0", ...)`` imports glory_ai itself.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from . import GYMNASIUM_ENV_ID, missing_extra, register_gymnasium_env

try:
    import gymnasium
    from gymnasium import spaces
except ImportError as _error:
    raise missing_extra("gymnasium", "pettingzoo", _error) from None

from ..bots import Bot, make_bot
from ..game import NUM_DISTINCT_ACTIONS, Game, State
from .pettingzoo import action_mask, observation_space, win_shares

#: the id ``gymnasium.make`` knows the environment by (registered by ``import glory_ai``)
ENV_ID = GYMNASIUM_ENV_ID


class GloryToRomeGymEnv(gymnasium.Env):
    """One seat of a game against glory_ai bots."""

    metadata: dict[str, Any] = {"render_modes": ["ansi", "human"], "render_fps": 4}

    def __init__(self, players: int = 2, opponents: str | Sequence[str] = "random", seat: int = 0,
                 mode: str = "republic", max_decisions: int | None = None,
                 illegal_action: str = "raise", render_mode: str | None = None, **variant: Any):
        self.game = Game(players, mode=mode, **variant)
        if not isinstance(seat, int) or not 0 <= seat < players:
            raise ValueError(f"seat must be a seat number from 0 to {players - 1}, got {seat!r}")
        specs = [opponents] * (players - 1) if isinstance(opponents, str) else list(opponents)
        if len(specs) != players - 1:
            raise ValueError(f"opponents: one bot spec per other seat ({players - 1}), got {len(specs)}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None, "
                             f"got {render_mode!r}")
        if max_decisions is not None and (not isinstance(max_decisions, int) or max_decisions < 1):
            raise ValueError(f"max_decisions must be a positive integer or None, got {max_decisions!r}")
        if illegal_action not in ("raise", "lose"):
            raise ValueError(f"illegal_action must be 'raise' or 'lose', got {illegal_action!r}")
        self.illegal_action = illegal_action
        others = [p for p in range(players) if p != seat]
        self.seat = seat
        self.specs = dict(zip(others, specs, strict=True))
        for spec in specs:
            make_bot(spec)                              # a bad spec fails here, naming the part
        self.max_decisions = max_decisions
        self.render_mode = render_mode
        self.observation_space = observation_space()
        self.action_space = spaces.Discrete(NUM_DISTINCT_ACTIONS)
        self.state: State = self.game.new_initial_state(0)
        self._bots: dict[int, Bot] = {}
        self._decisions = 0
        self._lost = False

    def reset(self, *, seed: int | None = None, options: dict | None = None
              ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        super().reset(seed=seed)
        deal = seed if seed is not None else int(self.np_random.integers(2 ** 63))
        self.state = self.game.new_initial_state(deal)
        seeds = np.random.SeedSequence(deal).spawn(self.game.num_players())
        self._bots = {p: make_bot(spec, seed=int(seeds[p].generate_state(1, np.uint64)[0]))
                      for p, spec in self.specs.items()}
        self._decisions = 0
        self._lost = False
        self._play_bots()
        return self._observation(), {}

    def step(self, action: int) -> tuple[dict[str, np.ndarray], float, bool, bool, dict[str, Any]]:
        if self.state.is_terminal() or self._lost:
            raise RuntimeError("the episode is over: call reset()")
        action = int(action)
        if self.illegal_action == "lose" and not self.state.legal_actions_mask()[action]:
            self._lost = True
            return self._observation(), -1.0, True, False, {"illegal_action": action}
        self.state.apply_action(action)
        self._decisions += 1
        self._play_bots()
        terminated = self.state.is_terminal()
        reward = win_shares(self.state)[self.seat] if terminated else 0.0
        truncated = (not terminated and self.max_decisions is not None
                     and self._decisions >= self.max_decisions)
        if self.render_mode == "human":
            self.render()
        return self._observation(), reward, terminated, truncated, {}

    def action_masks(self) -> np.ndarray:
        """The legal actions of the learner now, as a bool vector over the action space."""
        return self.state.legal_actions_mask()

    def render(self) -> str | None:
        """The whole state as text (for debugging)."""
        if self.render_mode is None:
            return None
        if self.render_mode == "human":
            print(self.state)
            return None
        return str(self.state)

    def _play_bots(self) -> None:
        # the other seats' decisions until the learner's or the end
        while not self.state.is_terminal() and self.state.current_player() != self.seat:
            self.state.apply_action(self._bots[self.state.current_player()].step(self.state))

    def _observation(self) -> dict[str, np.ndarray]:
        if self.state.is_terminal() or self._lost:
            mask = np.zeros(NUM_DISTINCT_ACTIONS, np.int8)
        else:
            mask = action_mask(self.state)
        return {"observation": self.state.observation_tensor(self.seat), "action_mask": mask}


register_gymnasium_env()              # done by `import glory_ai` already, unless unloaded since
