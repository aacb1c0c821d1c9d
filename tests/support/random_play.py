"""Seeded random play.

* By action id through the validated Python API: :func:`play_random`, :func:`mid_game`
  (the property and hidden-information tests), and :func:`every_decision`, which steps
  the engine's checked playout one decision at a time.
* By action string, biased towards building (:func:`random_game`, :func:`game_specs`),
  from fresh deals, richer decks or seeded Forum-ready start positions
  (:func:`forum_position`): the games the references of tests/reference are compared on.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from typing import Any

import glory_ai
from support.cards import MATERIALS, VALUE, material, shuffled_mode_cards

# ---------------------------------------------------------------------------------------
# By action id


def play_random(state: glory_ai.State, seed: int, decisions: int) -> glory_ai.State:
    """Apply up to `decisions` uniformly random legal actions (fewer if the game ends)."""
    rng = random.Random(seed)
    for _ in range(decisions):
        if state.is_terminal():
            break
        state.apply_action(rng.choice(state.legal_actions()))
    return state


def mid_game(num_players: int, seed: int, decisions: int, mode: str = "republic") -> glory_ai.State:
    return play_random(glory_ai.Game(num_players, mode=mode).new_initial_state(seed), seed, decisions)


def every_decision(seeds: int, builder: Callable[[int], bool] = lambda seed: True
                   ) -> Iterator[tuple[tuple[str, int, int, int], glory_ai.State]]:
    """Each decision state of seeded games, both modes, 2-5 players, played one C-level
    step at a time by the checked playout (builder-biased where `builder(seed)`): yields
    ((mode, players, seed, step), state) before each decision, and asserts that every
    step keeps the engine's invariants."""
    for mode in ("republic", "imperium"):
        for num_players in (2, 3, 4, 5):
            game = glory_ai.Game(num_players, mode=mode)
            for seed in range(seeds):
                state = game.new_initial_state(seed)
                step = 0
                while not state.is_terminal():
                    yield (mode, num_players, seed, step), state
                    code, _ = state._stress(seed * 100003 + step, builder=builder(seed), stop_after=1)
                    assert code == 0, (mode, num_players, seed, step, code)
                    step += 1


# ---------------------------------------------------------------------------------------
# By action string, biased towards building

BIAS_WORDS = ("lay", "add", "hire", "vault")

# A richer deck (variant ``copies``) so that Gate, Stairway, Storeroom, Ludus Magnus,
# Prison, Catacomb, Statue, Wall, Temple and the Forums are active more often.
RICH = {m: dict({"Catacomb": 6, "Gate": 6, "Stairway": 6, "Storeroom": 6, "Ludus Magnus": 6,
                 "Prison": 6, "Aqueduct": 6, "Statue": 6, "Wall": 6, "Temple": 6},
                **{("Forum" if m == "imperium" else "Forum Romanum"): 9})
        for m in ("republic", "imperium")}


def pick(rng: random.Random, strs: list[str], bias: float) -> str:
    """A random string; with probability `bias` one containing a BIAS_WORDS word."""
    if rng.random() < bias:
        pref = [s for s in strs if any(w in s for w in BIAS_WORDS)]
        if pref:
            return rng.choice(pref)
    return rng.choice(strs)


def game_specs(n_games: int, salt: int, kind: str = "standard", **variant) -> list[dict]:
    """Game specs for n_games games over all player counts and both modes.
    kind: "standard" (fresh deal), "rich" (fresh deal, RICH copies), "forum"
    (forum_position start)."""
    out = []
    for i in range(n_games):
        n = 2 + i % 4
        mode = ("republic", "imperium")[(i // 4) % 2]
        bias = (0.0, 0.5, 0.8)[i % 3]
        seed = 1000 * salt + i
        options = dict(variant)
        if mode == "imperium":
            options.pop("petition_size", None)      # a Republic option
        spec: dict[str, Any] = {"n": n, "mode": mode, "seed": seed, "bias": bias,
                                "variant": options}
        if kind == "rich":
            spec["variant"]["copies"] = RICH[mode]
        elif kind == "forum":
            spec["bias"] = max(bias, 0.5)
            spec["start"] = forum_position(n, mode, seed)
        out.append(spec)
    return out


def run_spec(spec: dict, on_step=None):
    return random_game(spec["n"], spec["mode"], spec["seed"], spec["bias"], on_step,
                       start=spec.get("start"), **spec["variant"])


def forum_position(n: int, mode: str, seed: int) -> dict:
    """A legal start-of-turn position (seeded) in which P0 owns a completed Forum
    (Imperium) / Forum Romanum (Republic) and an Insula, has 3-5 clients and (Republic)
    a stockpile of 4-6 materials; sometimes also Ludus Magnus / Storeroom / Aqueduct.
    Everyone else holds 5 random cards; the rest is the deck (shuffled from the seed)."""
    rng = random.Random(seed)
    avail = shuffled_mode_cards(mode, rng)

    def take(mat: str | None = None, name: str | None = None) -> str:
        for i, c in enumerate(avail):
            if (name is None or c == name) and (mat is None or material(c) == mat):
                return avail.pop(i)
        raise AssertionError("no card left")

    forum = "Forum" if mode == "imperium" else "Forum Romanum"
    structs = [{"building": take(name=forum), "site": "Marble",
                "materials": [take("Marble") for _ in range(3)], "complete": True},
               {"building": take(name="Insula"), "site": "Rubble",
                "materials": [take("Rubble")], "complete": True}]
    influence = ["Marble", "Rubble"]
    for extra, site in (("Ludus Magnus", "Marble"), ("Storeroom", "Concrete"),
                        ("Aqueduct", "Concrete")):
        if rng.random() < 0.35:
            structs.append({"building": take(name=extra), "site": site,
                            "materials": [take(site) for _ in range(VALUE[site])],
                            "complete": True})
            influence.append(site)
    roles = list(MATERIALS)
    rng.shuffle(roles)
    clientele = [take(m) for m in roles[:rng.randint(3, 5)]]
    stockpile = []
    if mode == "republic":
        mats = list(MATERIALS)
        rng.shuffle(mats)
        stockpile = [take(m) for m in mats[:rng.randint(4, 6)]]
    p0 = {"hand": [take() for _ in range(5)], "clientele": clientele,
          "stockpile": stockpile, "structures": structs, "influence": influence}
    players = [p0] + [{"hand": [take() for _ in range(5)]} for _ in range(n - 1)]
    return {"num_players": n, "mode": mode, "seed": seed, "leader": rng.randrange(n),
            "players": players}


def random_game(n: int, mode: str, seed: int, bias: float, on_step=None, max_steps: int = 5000,
                start: dict | None = None, **variant):
    """Play one game from a fresh deal (or from the position dict ``start``).
    on_step("before", state, d, legal_strings) before each move and
    on_step("after", state, d_before, (action_string, d_after)) after it.
    Returns (final state, its to_dict(), steps)."""
    rng = random.Random(seed)
    if start is not None:
        state = glory_ai.State.from_dict(start)
    else:
        state = glory_ai.Game(n, mode=mode, **variant).new_initial_state(seed)
    d0 = state.to_dict()
    steps = 0
    while not state.is_terminal() and steps < max_steps:
        strs = state.legal_action_strings()
        if on_step is not None:
            on_step("before", state, d0, strs)
        a = pick(rng, strs, bias)
        state.apply_action_string(a)
        d1 = state.to_dict()
        if on_step is not None:
            on_step("after", state, d0, (a, d1))
        d0 = d1
        steps += 1
    assert state.is_terminal(), f"game {n}p {mode} seed {seed} did not end in {max_steps} steps"
    return state, d0, steps
