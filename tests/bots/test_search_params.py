"""Each search parameter is declared once (glory_ai.bots.builtin_params.SEARCH_PARAMS): the
bots' Params and the Searcher call follow from that table, whose keywords are the Searcher's
and whose ranges the compiled search's own checks accept."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

import glory_ai
from glory_ai.bots import BotSpec, SearchBot, make_bot, registry
from glory_ai.bots._search import Searcher
from glory_ai.bots.builtin_params import (
    SEARCH_BOTS,
    SEARCH_PARAMS,
    TURNWIN_BUDGET,
    defaults,
    searcher_arguments,
)
from glory_ai.bots.models import style_model

STUB = Path(glory_ai.__file__).parent / "bots" / "_search.pyi"
#: the Searcher keywords that do not come from a spec's parameters as they are (prior: its models)
NOT_PARAMETERS = {"algorithm", "model", "seed", "prior"}
ROWS = {row.name: row for row in SEARCH_PARAMS}


def _stub_keywords() -> list[str]:
    tree = ast.parse(STUB.read_text())
    searcher = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Searcher")
    init = next(n for n in searcher.body if isinstance(n, ast.FunctionDef) and n.name == "__init__")
    return [a.arg for a in init.args.kwonlyargs]


def test_the_tables_keywords_are_the_searchers():
    keywords = [row.keyword for row in SEARCH_PARAMS if row.keyword is not None]
    assert len(set(keywords)) == len(keywords)
    assert set(keywords) | NOT_PARAMETERS == set(_stub_keywords())


@pytest.mark.parametrize("bot", SEARCH_BOTS)
def test_the_search_bots_parameters_are_the_tables_rows(bot):
    params = registry()[bot].params
    assert [p.name for p in params] == [row.name for row in SEARCH_PARAMS if bot in row.bots]
    for param in params:
        row = ROWS[param.name]
        assert (param.kind, param.default, param.low, param.high, param.choices) == (
            row.kind, row.default_of(bot), row.low, row.high, row.choices)
        assert param.help.startswith(row.help)


def test_ismcts_has_its_own_defaults_and_the_others_share_theirs():
    own = {key: value for key, value in defaults("ismcts").items() if value != defaults("pimc").get(key)}
    assert own == {
        "cutoff": 80, "eval": "learned", "solver": True, "speed": 0.2, "vp": 0.05, "final": "robust",
        "reuse": False, "turnwin": TURNWIN_BUDGET, "forum_threat": False, "paired": False,
        "ahead": 0.0}
    assert defaults("flatmc")["iters"] == 1000 and defaults("pimc")["worlds"] == 20


@pytest.mark.parametrize("spec", ["flatmc:iters=30", "pimc:iters=40,worlds=4,threads=2",
                                  "ismcts:iters=50,reuse=true,cutoff=12,trees=3", "ismcts:time_ms=5"])
def test_a_search_bot_hands_the_searcher_every_parameter_as_resolved(spec, monkeypatch):
    seen = {}

    class Recorder:
        def __init__(self, **keywords):
            seen.update(keywords)

    monkeypatch.setattr("glory_ai.bots._search.Searcher", Recorder)
    bot = make_bot(spec, seed=7)
    assert isinstance(bot, SearchBot)
    algorithm = BotSpec.parse(spec).name
    expected = searcher_arguments(algorithm, bot.params)
    assert {k: v for k, v in seen.items() if k not in NOT_PARAMETERS} == expected
    assert (seen["algorithm"], seen["seed"]) == (algorithm, 7)
    assert set(seen) == set(_stub_keywords())
    assert expected["trees"] == (bot.params["trees"] or bot.params["threads"])
    assert expected["worlds"] == (bot.params["worlds"] if algorithm == "pimc" else 1)
    assert expected["reuse"] == (algorithm == "ismcts" and bot.params["reuse"])


def test_searcher_arguments_have_no_defaults_of_their_own():
    params = defaults("ismcts")
    del params["cutoff"]
    with pytest.raises(KeyError):
        searcher_arguments("ismcts", params)


# ---- the compiled search's checks agree with the table --------------------------------------

def _searcher(bot: str, **changed) -> Searcher:
    params = {**defaults(bot), "node_cap": 1000, **changed}
    return Searcher(algorithm=bot, model=style_model("balanced"), seed=1, **searcher_arguments(bot, params))


def _bounds():
    for row in SEARCH_PARAMS:
        bot = row.bots[-1]
        if row.keyword is None:
            continue                                # style and eval: the model, checked in Python
        if row.choices:
            yield from ((row, bot, value) for value in row.choices)
        elif row.kind is bool:
            yield from ((row, bot, value) for value in (False, True))
        else:
            for bound in (row.low, row.high):
                if row.name == "node_cap" and bound == row.high:
                    continue                        # 6.4 GB of nodes: not allocated in a test
                if row.name == "worlds" and bound == row.high:
                    yield row, bot, {"worlds": int(bound), "node_cap": int(bound)}
                    continue
                yield row, bot, row.kind(bound)


@pytest.mark.parametrize("row, bot, value", list(_bounds()), ids=lambda x: getattr(x, "name", repr(x)))
def test_the_compiled_search_accepts_every_value_the_table_accepts(row, bot, value):
    changed = value if isinstance(value, dict) else {row.name: value}
    _searcher(bot, **changed)


def _beyond():
    # every row with a range: the compiled Searcher checks each against the same table
    for row in SEARCH_PARAMS:
        if row.keyword is None or row.choices or row.kind is bool:
            continue
        step = 1 if row.kind is int else 0.01
        for side, value in (("low", row.low - step), ("high", row.high + step)):
            if row.name in ("node_cap", "worlds") and side == "high":
                continue                            # past the table, and too large to allocate
            yield pytest.param(row, row.kind(value), id=f"{row.name}-{side}")


@pytest.mark.parametrize("row, value", list(_beyond()))
def test_the_compiled_search_refuses_what_the_table_refuses(row, value):
    bot = row.bots[-1]
    params = {**defaults(bot), "node_cap": 1000, row.name: value}
    arguments = searcher_arguments(bot, params)
    with pytest.raises(ValueError, match=row.keyword):
        Searcher(algorithm=bot, model=style_model("balanced"), seed=1, **arguments)


def test_the_compiled_search_takes_every_keyword_of_the_table():
    arguments = searcher_arguments("ismcts", {**defaults("ismcts"), "node_cap": 1000})
    del arguments["belief"]
    with pytest.raises(TypeError):
        Searcher(algorithm="ismcts", model=style_model("balanced"), seed=1, **arguments)


@pytest.mark.parametrize("name", ["rollout", "reward", "final"])
def test_the_compiled_search_refuses_a_choice_the_table_does_not_offer(name):
    with pytest.raises((KeyError, ValueError)):
        _searcher("ismcts", **{name: "bogus"})
