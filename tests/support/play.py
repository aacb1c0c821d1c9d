"""Helpers of the tests that play games: sample states, screens as text and finished games
(tests/interactive), and the moves a bot makes from a fresh deal (:func:`bot_moves`)."""
from __future__ import annotations

import io
import random

import glory_ai
from glory_ai.bots import make_bot
from glory_ai.interactive.screen import Screen, render_view
from glory_ai.interactive.view import table_view

#: a position where seat 0 holds a completed Basilica and Fountain (a card vaulted from the
#: hand, a Fountain card kept: the decisions whose card only the mover may see)
SECRET_CARDS_POSITION = {
    "num_players": 3, "seed": 3,
    "players": [
        {"hand": ["Villa", "Temple", "Bath", "Road", "Jack", "Market"], "stockpile": ["Wall", "Road"],
         "structures": [
             {"building": "Basilica", "materials": ["Temple", "Palace", "Shrine"], "complete": True},
             {"building": "Fountain", "materials": ["Temple", "Palace", "Shrine"], "complete": True}]},
        {"hand": ["Villa", "Dock", "Bath", "Market"]},
        {"hand": ["Prison", "Market", "Crane"]},
    ],
}


def random_states(count_per_setup: int = 12):
    """Seeded random mid-game states, 2 to 5 players, both modes, and walks from the
    Basilica/Fountain position (terminal states left out)."""
    for num_players in (2, 3, 4, 5):
        for seed in range(count_per_setup):
            mode = "imperium" if seed % 2 else "republic"
            state = glory_ai.Game(num_players, mode).new_initial_state(seed)
            rng = random.Random(seed)
            for _ in range(rng.randrange(0, 260)):
                if state.is_terminal():
                    break
                state.apply_action(rng.choice(state.legal_actions()))
            if not state.is_terminal():
                yield state
    for seed in range(count_per_setup * 2):
        state = glory_ai.State.from_dict({**SECRET_CARDS_POSITION, "seed": seed})
        rng = random.Random(seed)
        for _ in range(rng.randrange(0, 30)):
            if state.is_terminal():
                break
            state.apply_action(rng.choice(state.legal_actions()))
        if not state.is_terminal():
            yield state


def screen_text(state, viewer, log=(), names=None) -> str:
    """The screen a person in seat `viewer` sees, as plain text (table, log and menu)."""
    out = io.StringIO()
    screen = Screen(out, io.StringIO(), plain=True)
    view = table_view(state, viewer, names=names)
    screen.show(render_view(view, log, plain=True))
    menu = view.get("menu") or []
    screen.menu([(i, text) for i, (_, text) in enumerate(menu, start=1)])
    return out.getvalue()


def finished_record(num_players=3, seed=1, mode="republic"):
    """The record of a short seeded game between bots (the arena's format)."""
    from glory_ai.interactive.records import build_record
    from glory_ai.interactive.seats import seat_seeds

    state = glory_ai.Game(num_players, mode).new_initial_state(seed)
    state.random_playout(seed)
    seats = ["random"] * num_players
    return build_record(num_players=num_players, mode=mode, variant=state.config().variant(), seed=seed,
                        seats=seats, bot_seeds=seat_seeds(seed, num_players), actions=state.history())


def bot_moves(spec: str, seed: int, decisions: int = 40, **variant) -> list[int]:
    """The first ``decisions`` actions of ``spec`` (bot seed ``seed``) playing every seat of a
    two-player game dealt with ``seed`` under the rule variant ``variant``: two settings
    that should play alike are compared move for move."""
    state = glory_ai.Game(2, **variant).new_initial_state(seed)
    bot = make_bot(spec, seed)
    moves = []
    for _ in range(decisions):
        moves.append(bot.step(state))
        state.apply_action(moves[-1])
    return moves
