"""The game notation: one line per decision, a header of tags; it reads back into the same
game (thousands of random games, 2 to 5 players, both modes), and a damaged text is
refused with the line at fault."""
from __future__ import annotations

import re

import pytest

import glory_ai
from glory_ai.interactive.notation import (
    NotationError,
    format_notation,
    format_variant,
    parse_notation,
    parse_variant_tag,
)
from glory_ai.interactive.records import check_record
from support.play import finished_record


def random_game(num_players, mode, seed, variant=None):
    state = glory_ai.Game(num_players, mode, **(variant or {})).new_initial_state(seed)
    state.random_playout(seed)
    return state, {"num_players": num_players, "mode": mode, "variant": state.config().variant(),
                   "seed": seed, "actions": state.history()}


@pytest.mark.slow
def test_thousands_of_random_games_round_trip():
    games = 0
    for seed in range(2000):
        num_players = 2 + seed % 4
        mode = "imperium" if (seed // 4) % 2 else "republic"
        final, record = random_game(num_players, mode, seed)
        text = format_notation(record)
        back = parse_notation(text)
        assert back["actions"] == record["actions"], seed
        assert (back["num_players"], back["mode"], back["variant"], back["seed"]) == (
            num_players, mode, record["variant"], seed)
        assert back["scores"] == final.scores() and back["winners"] == final.winners()
        assert back["end_reason"] == final.end_reason()
        assert text.count("\n") > len(record["actions"])      # one line per decision, and the tags
        games += 1
    assert games == 2000


def test_a_full_record_round_trips_with_its_seats_and_concessions():
    record = finished_record(3, seed=5)
    record["concessions"] = []
    text = format_notation(record)
    assert '[P0 "random"]' in text and '[GameId "0-0-0"]' in text
    back = parse_notation(text)
    for key in ("actions", "seats", "bot_seeds", "game_id", "scores", "winners", "end_reason", "seed"):
        assert back[key] == record[key], key
    # a conceded game: the concession is its own line, read back where it was
    state = glory_ai.Game(3).new_initial_state(8)
    for _ in range(25):
        state.apply_action(state.legal_actions()[0])
    conceded = {"num_players": 3, "mode": "republic", "variant": {}, "seed": 8,
                "actions": state.history(), "concessions": [{"decision": 25, "seat": 1}]}
    state.concede(1)
    state.random_playout(3)
    conceded["actions"] = state.history()
    text = format_notation(conceded)
    assert "P1 concedes" in text
    back = parse_notation(text)
    assert back["concessions"] == [{"decision": 25, "seat": 1}]
    assert back["actions"] == conceded["actions"]
    check_record({**back, "game_id": "x"})


def test_variants_round_trip():
    variant = {"petition_size": 3, "refill_size": 6, "removed": ["Sewer", "Forum Romanum"],
               "copies": {"Bath": 1, "Ludus Magnus": 2}}
    assert parse_variant_tag(format_variant(variant)) == variant
    final, record = random_game(3, "republic", 4, {"removed": ["Sewer", "Bath"], "refill_size": 6})
    back = parse_notation(format_notation(record))
    assert back["variant"] == record["variant"] and back["actions"] == record["actions"]


def test_the_text_reads_like_movetext():
    _, record = random_game(2, "republic", 1)
    lines = format_notation(record).splitlines()
    assert lines[0] == '[Game "glory_ai"]'
    moves = [line for line in lines if line and line[0].isdigit()]
    assert re.match(r"1\. P[01]: (lead|think)", moves[0])
    assert len(moves) == len(record["actions"])
    assert lines[-1].startswith("{The game is over")


def test_comments_blank_lines_and_spacing_are_allowed():
    _, record = random_game(2, "republic", 2)
    text = format_notation(record)
    head, _, body = text.partition("\n\n")
    moves = body.splitlines()
    noisy = head + "\n\n{ a comment\nover two lines }\n" + "\n".join(
        f"  {line}   ; note" if i % 3 == 0 else line.upper() if i % 3 == 1 else line + " {x}"
        for i, line in enumerate(moves[:-1])) + "\n" + moves[-1] + "\n"
    assert parse_notation(noisy)["actions"] == record["actions"]


@pytest.mark.parametrize("damage, message", [
    (lambda t: t.replace('[Seed "', '[Sowed "'), "the [Seed"),
    (lambda t: t.replace("1. P0: ", "1. P1: ", 1), "P0 decides here, the line names P1"),
    (lambda t: t.replace("1. P0: ", "7. P0: ", 1), "the game is in turn 1"),
    (lambda t: t.replace("1. P0: ", "1. P0: juggle ", 1), "line 11: 'juggle"),
    (lambda t: t.replace("1. P0: ", "P0 ", 1), "expected 'TURN. P<seat>: action'"),
    (lambda t: t.replace('[Result "P', '[Result "P9 P', 1), "the Result tag says"),
    (lambda t: t + "99. P0: think: take Jack\n", "the game is already over"),
    (lambda t: t.replace('[Players "2"]', '[Players "9"]'), "the tags do not set up a game"),
    (lambda t: t.replace('[Mode "republic"]', '[Mode "republic]'), "a tag is"),
])
def test_damage_is_named_with_its_line(damage, message):
    _, record = random_game(2, "republic", 3)
    assert "\n1. P0: " in format_notation(record)          # P0 decides in the first turn
    with pytest.raises(NotationError, match=message.replace("[", r"\[").replace("(", r"\(")):
        parse_notation(damage(format_notation(record)))
