"""The small words of messages: "an Insula", "1 decision" (glory_ai/_words.py), and the
messages that use them across the package, the engine's own included."""
from __future__ import annotations

import doctest

import pytest

import glory_ai._words as words
from glory_ai.game import State


def test_the_module_doctests():
    assert doctest.testmod(words).failed == 0


@pytest.mark.parametrize("word, expected", [("Insula", "an Insula"), ("Academy", "an Academy"),
                                            ("Amphitheatre", "an Amphitheatre"), ("Bar", "a Bar"),
                                            ("object", "an object"), ("round robin", "a round robin")])
def test_article(word, expected):
    assert words.article(word) == expected


@pytest.mark.parametrize("n, expected", [(0, "0 games"), (1, "1 game"), (1.0, "1 game"), (2, "2 games"),
                                         (1500, "1,500 games"), (2.5, "2.5 games")])
def test_plural(n, expected):
    assert words.plural(n, "game") == expected


def test_the_engine_says_an_insula():
    # a position with two Insulas, and one on the wrong site: "an Insula", "a Rubble site"
    def owning(*structures):
        return {"num_players": 2, "players": [{"structures": list(structures)}, {}]}

    two = owning({"building": "Insula"}, {"building": "Insula"})
    with pytest.raises(ValueError, match=r"player already owns an Insula \(R-9.1.2\)"):
        State.from_dict(two)
    wrong = owning({"building": "Insula", "site": "Wood"})
    with pytest.raises(ValueError, match="an Insula is built on a Rubble site"):
        State.from_dict(wrong)
    temple = owning({"building": "Temple"}, {"building": "Temple"})
    with pytest.raises(ValueError, match="player already owns a Temple"):
        State.from_dict(temple)


def test_a_sprt_for_a_round_robin_is_refused_with_its_article():
    from glory_ai.arena.plan import ArenaError, RunConfig

    with pytest.raises(ArenaError, match="not a round robin$"):
        RunConfig.for_games(["greedy", "random", "ismcts:iters=10"], 12, format="round_robin",
                            sprt=(0.0, 10.0, 0.05, 0.05))
