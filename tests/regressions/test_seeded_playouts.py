"""Seeded random playouts are frozen: the same seeds give the same games.

Random playouts are part of the records' determinism (ISMCTS rollouts, the arena's random
bot, shipped games), so a speed-up of the playout loop must not change a single decision.
Each case plays seeded playouts from fresh deals, from a mid-game state and cut short by a
decision budget, and hashes every game's history, final position (`to_dict`), returns and
decision count. The digests were taken from the engine before the playout loop walked
set-bit masks and are frozen here. If a rules fix changes them on purpose, regenerate them
with `_digest` below, say why in the commit message, and check which shipped records change.
"""
import hashlib
import json

import pytest

import glory_ai

GAMES_PER_CASE = 300


def _game_bytes(state) -> bytes:
    position = json.dumps(state.to_dict(), sort_keys=True, separators=(",", ":"))
    summary = [state.history(), state.returns() if state.is_terminal() else None, state.decisions()]
    return json.dumps(summary).encode() + b"|" + position.encode()


def _digest(num_players: int, mode: str, variant: dict) -> str:
    game = glory_ai.Game(num_players, mode=mode, **variant)
    digest = hashlib.sha256()
    for seed in range(GAMES_PER_CASE):
        # a whole game from the deal
        state = game.new_initial_state(seed)
        made = state.random_playout(seed * 7919 + 1)
        digest.update(made.to_bytes(4, "little") + _game_bytes(state))
        # a budget that stops the game part way, then a second playout from there
        state = game.new_initial_state(seed)
        state.random_playout(seed, max_decisions=40 + seed % 97)
        digest.update(_game_bytes(state))
        state.random_playout(seed + 100_003)
        digest.update(_game_bytes(state))
    return digest.hexdigest()


CASES = {
    (2, "republic", ()):
        "bcf998360240a4ac3699ea24546b0f98f0f79814018beba8605681c84b29b23e",
    (3, "republic", ()):
        "12006e37e88e1c43edcfbae4d6e6e6277d8de6aa6b243798cf35142c98c5afec",
    (4, "republic", ()):
        "e33eaae410d956a1730e89ec7c4396cba73f42e351bb77fa9a67ef8bb3e3db46",
    (5, "republic", ()):
        "c580b94e63266bdc3508ef3489f6a857e3182274a5b59d46f19f049c1e89de90",
    (2, "imperium", ()):
        "ff669bc3365c3c3884dd48059cd842c5f96b88da669b0241fca486db89d368c1",
    (4, "imperium", ()):
        "e1e95d28e9b083e9fe7a681d7f84a9e1ce7a0c79832d42d106fefcc0295ffd8f",
    (3, "republic", (("refill_size", 6), ("petition_size", 3))):
        "5def2553b11710ca1a595c3a02cc7165eb4a190237b6a83a91eb82cc5573a771",
    (2, "republic", (("removed", ("Sewer", "Senate")), ("copies", (("Palace", 5),)))):
        "fd8e389ce2caa18a8edb739487deb1496d4cb5e3ff6b4ae6529a775f62d5af32",
}


def _variant(items: tuple) -> dict:
    variant = dict(items)
    if "copies" in variant:
        variant["copies"] = dict(variant["copies"])
    return variant


@pytest.mark.parametrize("num_players, mode, variant", list(CASES), ids=lambda v: str(v))
def test_seeded_random_playouts_give_the_frozen_games(num_players, mode, variant):
    assert _digest(num_players, mode, _variant(variant)) == CASES[num_players, mode, variant]
