"""Glory to Rome as a PettingZoo AEC environment (``pip install 'glory_ai[pettingzoo]'``).

::

    from glory_ai.integrations.pettingzoo import env

    environment = env(players=3)
    environment.reset(seed=42)
    for agent in environment.agent_iter():
        observation, reward, termination, truncation, info = environment.last()
        if termination or truncation:
            action = None
        else:
            mask = observation["action_mask"]
            action = environment.action_space(agent).sample(mask)   # or a policy
        environment.step(action)

Agents ``player_0`` … ``player_{n-1}`` are the seats; the agent selected is the seat that
decides now (``State.current_player()``, which can be a Legionary's victim choosing what to
give), so turns do not simply rotate. An observation is a dict: ``observation``, the
seat's observation tensor (float32, layout ``glory_ai.core.engine.observation_tensor_layout()``,
seats relative to the observer), and ``action_mask``, an int8 vector over the whole action
space (``glory_ai.NUM_DISTINCT_ACTIONS``), ones at the legal actions of the seat selected
and all zeros for the others. Rewards come at the end only: the win share (1/k to each of
k winners, 0 to the others). An illegal action raises ``glory_ai.IllegalActionError`` (a
``ValueError``) and leaves the game unchanged.

``reset(seed=s)`` deals game ``s`` (``Game(...).new_initial_state(s)``); ``reset()``
without a seed deals the next seed of a generator seeded by the last seed given.
"""
from __future__ import annotations

import random
from typing import Any

import numpy as np

from . import missing_extra

try:
    from gymnasium import spaces
    from pettingzoo import AECEnv
except ImportError as _error:
    raise missing_extra("pettingzoo", "pettingzoo", _error) from None

from ..core.engine import OBSERVATION_TENSOR_SIZE
from ..game import NUM_DISTINCT_ACTIONS, Game, State

#: the largest value of any entry of an observation tensor (counts of cards are bytes)
OBSERVATION_HIGH = 255.0


def observation_space() -> spaces.Dict:
    """The observation space of one seat (the same for every seat and player count)."""
    return spaces.Dict({
        "observation": spaces.Box(0.0, OBSERVATION_HIGH, (OBSERVATION_TENSOR_SIZE,), np.float32),
        "action_mask": spaces.Box(0, 1, (NUM_DISTINCT_ACTIONS,), np.int8),
    })


def action_mask(state: State) -> np.ndarray:
    """int8 ones at the legal actions of the player to move (all zeros at the end)."""
    return state.legal_actions_mask().view(np.int8)


def win_shares(state: State) -> list[float]:
    """1/k to each of k winners, 0 to the others (all 0 before the end)."""
    winners = state.winners()
    return [1.0 / len(winners) if p in winners else 0.0 for p in range(state.num_players())]


class GloryToRomeEnv(AECEnv):
    """The AEC environment; build it with :func:`env`."""

    metadata: dict[str, Any] = {"name": "glory_to_rome_v0", "render_modes": ["ansi", "human"],
                "is_parallelizable": False}

    def __init__(self, players: int = 2, mode: str = "republic", max_decisions: int | None = None,
                 render_mode: str | None = None, **variant: Any):
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None, "
                             f"got {render_mode!r}")
        if max_decisions is not None and (not isinstance(max_decisions, int) or max_decisions < 1):
            raise ValueError(f"max_decisions must be a positive integer or None, got {max_decisions!r}")
        self.game = Game(players, mode=mode, **variant)
        self.render_mode = render_mode
        self.max_decisions = max_decisions
        self.possible_agents = [f"player_{p}" for p in range(players)]
        self._seat = {agent: p for p, agent in enumerate(self.possible_agents)}
        self.observation_spaces = {agent: observation_space() for agent in self.possible_agents}
        self.action_spaces = {agent: spaces.Discrete(NUM_DISTINCT_ACTIONS) for agent in self.possible_agents}
        self._deals = random.Random(0)
        self.state: State = self.game.new_initial_state(0)

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None:
            self._deals = random.Random(seed)
            deal = seed
        else:
            deal = self._deals.getrandbits(63)
        self.state = self.game.new_initial_state(deal)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict] = {agent: {} for agent in self.agents}
        self._decisions = 0
        self.agent_selection = self.possible_agents[self.state.current_player()]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self._seat[agent]
        if agent == self.agent_selection and not self.state.is_terminal():
            mask = action_mask(self.state)
        else:
            mask = np.zeros(NUM_DISTINCT_ACTIONS, np.int8)
        return {"observation": self.state.observation_tensor(seat), "action_mask": mask}

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} is to move: None is an action only for an agent whose game has ended")
        self._cumulative_rewards[agent] = 0.0
        self.state.apply_action(int(action))
        self._decisions += 1
        self.rewards = dict.fromkeys(self.agents, 0.0)
        if self.state.is_terminal():
            for seat, share in enumerate(win_shares(self.state)):
                self.rewards[self.possible_agents[seat]] = share
            self.terminations = dict.fromkeys(self.agents, True)
            # every agent is shown its reward by last() before its final (None) step
            self.agent_selection = self.possible_agents[(self._seat[agent] + 1) % len(self.possible_agents)]
        else:
            if self.max_decisions is not None and self._decisions >= self.max_decisions:
                self.truncations = dict.fromkeys(self.agents, True)
            self.agent_selection = self.possible_agents[self.state.current_player()]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | None:
        """The whole state as text (every hand and the deck's size: for debugging)."""
        if self.render_mode is None:
            return None
        text = str(self.state)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass


def env(players: int = 2, mode: str = "republic", max_decisions: int | None = None,
        render_mode: str | None = None, **variant: Any) -> GloryToRomeEnv:
    """A new environment: ``players`` seats (2-5), the ``mode`` and variant options of
    :class:`glory_ai.GameConfig`; ``max_decisions`` truncates a game after that many
    decisions (default: play to the end)."""
    return GloryToRomeEnv(players, mode, max_decisions, render_mode, **variant)
