"""glory-ai bench --compare (glory_ai.integrations.compare, glory_ai.bench.compare): each
contender does what its row says, on the same states; the figures themselves are
benchmarks' business (no timed assertions here)."""
import csv

import pytest

pytest.importorskip("pyspiel", reason="OpenSpiel is not installed: pip install 'glory_ai[openspiel]'")

import glory_ai  # noqa: E402
from glory_ai import bench  # noqa: E402
from glory_ai.integrations import compare as side  # noqa: E402


def test_the_playout_contenders_play_whole_games_of_the_same_deals():
    game = glory_ai.Game(2)
    os_game = side.gs.load_game(players=2)
    deals = range(3)
    in_c = side._glory_c_playouts(game, deals)
    assert in_c == sum(len(_played(game, d).history()) for d in deals)
    # the Python loops choose their own random actions: whole games, not the same ones
    assert side._glory_python_loop(game, deals) > 3 * 20
    assert side._adapter_loop(os_game, deals) > 3 * 20
    hearts = side.pyspiel.load_game("hearts")
    # 52 tricks' cards, and the passes when the deal passes
    assert side._hearts_cpp_loop(hearts, range(2)) >= 2 * 52
    assert side._hearts_python_loop(hearts, range(2)) >= 2 * 52


def _played(game, deal):
    state = game.new_initial_state(deal)
    state.random_playout(deal)
    return state


@pytest.mark.slow
def test_a_match_game_swaps_seats_on_each_deal_and_scores_the_win_share():
    games = [side.play_match_game(i, "ismcts:iters=20,cutoff=0", {"simulations": 2}) for i in (0, 1)]
    assert [g["deal"] for g in games] == [0, 0]
    assert [g["glory_ai_seat"] for g in games] == [0, 1]
    for g in games:
        assert g["glory_ai_share"] in (0.0, 0.5, 1.0) and g["decisions"] > 20


def test_the_timed_openspiel_bot_searches_until_its_time_is_spent():
    os_game = side.gs.load_game(players=2)
    state = side.gs.deal(os_game.new_initial_state(), 1)
    bot = side.TimedISMCTSBot(os_game, seconds=0.001, seed=3)
    assert bot.step(state) in state.legal_actions()
    assert bot.simulations >= 2


def test_the_information_state_rows_time_every_contender_on_the_same_states():
    states = [_played_part_way(glory_ai.Game(3), deal) for deal in range(4)]
    rows = side.information_states(states, rounds=1)
    assert [r["contender"] for r in rows] == [
        "glory_ai State.information_state_string()", "glory_ai State.information_state_key() (16 bytes)",
        "OpenSpiel adapter information_state_string()",
        "OpenSpiel adapter information_state_string(), perfect_recall=True"]
    assert all(r["operation"] == "information state" and r["players"] == 3 for r in rows)


def _played_part_way(game, deal):
    state = game.new_initial_state(deal)
    state.random_playout(deal, max_decisions=30)
    return state


def test_the_comparison_is_written_as_markdown_and_csv(tmp_path):
    results = {
        "engine": [{"run": "2 players", "contender": "glory_ai random_playout (C loop)",
                    "game": "Glory to Rome", "players": 2, "decisions_per_s": 6e6, "games_per_s": 2e4},
                   {"run": "2 players", "contender": "OpenSpiel adapter, Python loop",
                    "game": "Glory to Rome", "players": 2, "decisions_per_s": 2e5, "games_per_s": 700.0}],
        "search": [{"players": 2, "glory_ai_iters_per_s": 30000.0, "openspiel_iters_per_s": 400.0,
                    "ratio": 75.0, "openspiel_minimal_iters_per_s": 500.0, "ratio_minimal": 60.0}],
        "operations": [{"operation": "clone", "contender": "glory_ai State.clone()", "players": 2,
                        "ns": 80.0, "low": 70.0, "high": 90.0}],
        "matches": [{"match": "equal time per move", "glory_ai": "ismcts:time_ms=100", "openspiel": "100 ms",
                     "games": 200, "glory_ai_score": 0.9, "low": 0.85, "high": 0.94,
                     "glory_ai_ms_per_move": 101.0, "openspiel_ms_per_move": 102.0}],
        "machine": {"python": "3.11", "platform": "test", "minutes": 1.0},
    }
    bench._write_comparison(results, str(tmp_path))
    text = (tmp_path / "compare.md").read_text()
    assert "| 2 players | OpenSpiel adapter, Python loop | Glory to Rome | 200,000 | 700.0 | x30.0 |" in text
    assert "| 2 | 30,000 | 400.0 | x75.0 | 500.0 | x60.0 |" in text
    assert side.like_for_like_spec("iters=N") in text
    assert "0.900 [0.850, 0.940]" in text
    rows = list(csv.DictReader(open(tmp_path / "compare.csv")))
    assert {r["section"] for r in rows} == {"engine (2 players)", "search", "operations", "matches"}
    assert any(r["measure"] == "ismcts_iters_per_cpu_s" and float(r["value"]) == 400.0 for r in rows)
    assert any(r["contender"] == "openspiel_minimal" and float(r["value"]) == 500.0 for r in rows)


def test_the_like_for_like_spec_pins_every_option_of_ismcts():
    # a change of ISMCTS's defaults (the solver, the reward, the final choice, ...) cannot
    # change the comparison: every option is written out, or plays no part in it
    from glory_ai.bots.builtin_params import BUILTIN_PARAMS

    options = {p.name for p in BUILTIN_PARAMS["ismcts"]}
    budgets = {"iters", "time_ms", "cpu_ms"}
    assert options == set(side.LIKE_FOR_LIKE) | set(side.UNUSED_LIKE_FOR_LIKE) | budgets
    spec = side.like_for_like_spec("iters=30")
    bot = glory_ai.make_bot(spec, seed=1)
    assert bot.step(_played_part_way(glory_ai.Game(2), 3)) is not None
    for pinned in ("solver=false", "reward=win", "final=visits", "speed=0", "vp=0", "cutoff=0",
                   "rollout=random", "c=0.7"):
        assert pinned in spec.split(":", 1)[1].split(","), pinned


def test_the_search_rates_time_glory_ai_the_adapter_and_the_minimal_wrapper_on_the_same_states():
    states = [_played_part_way(glory_ai.Game(2), deal) for deal in (1, 2)]
    row = side.search_rates(states, iters=20, openspiel_simulations=3, progress=lambda _: None)
    for who in ("glory_ai", "openspiel", "openspiel_minimal"):
        assert row[f"{who}_iters_per_s"] > 0
    assert row["ratio"] == row["glory_ai_iters_per_s"] / row["openspiel_iters_per_s"]


def test_the_minimal_wrapper_answers_as_the_adapter_does():
    os_game = side.gs.load_game(players=3)
    minimal = side.MinimalGame(3)
    glory = _played_part_way(glory_ai.Game(3), 4)
    adapted, wrapped = side.gs.from_glory_state(os_game, glory), side.MinimalState(minimal, glory.clone())
    while not adapted.is_terminal():
        for name in ("current_player", "is_terminal", "is_chance_node", "legal_actions", "returns",
                     "information_state_string"):
            assert getattr(adapted, name)() == getattr(wrapped, name)(), name
        action = adapted.legal_actions()[-1]
        adapted.apply_action(action)
        wrapped.apply_action(action)
    assert adapted.returns() == wrapped.returns() and wrapped.is_terminal()
