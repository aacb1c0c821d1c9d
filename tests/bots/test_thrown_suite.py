"""The thrown-games finder and suite (benchmarks/thrown.py, issue 36): a recorded game the
loser led by 12 VP or more is found at the right decision, a game without such a lead is
not, a record that does not replay is refused, and the shipped suite's positions rebuild to
the recorded state."""
from __future__ import annotations

import copy
import gzip
import importlib.util
from pathlib import Path

import orjson
import pytest

import glory_ai

ROOT = Path(__file__).resolve().parents[2]
DUEL = ROOT / "results" / "ismcts_vs_pimc" / "runs" / "duel"
SUITE = ROOT / "benchmarks" / "data" / "thrown.jsonl.gz"


@pytest.fixture(scope="module")
def thrown():
    spec = importlib.util.spec_from_file_location("thrown_benchmark", ROOT / "benchmarks" / "thrown.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def duel(thrown):
    return {record["game_id"]: record for record in thrown.iter_records(DUEL)}


def _leads_at_own_decisions(record):
    """(decision, seat, lead) at every decision, straight from the Game API."""
    state = glory_ai.Game(record["num_players"], record["mode"], **record["variant"]).new_initial_state(
        record["seed"])
    out = []
    for i, action in enumerate(record["actions"]):
        p, scores = state.current_player(), state.scores()
        out.append((i, p, scores[p] - max(s for q, s in enumerate(scores) if q != p)))
        state.apply_action(action)
    return out


def test_a_thrown_game_is_found_at_the_leaders_largest_lead(thrown, duel):
    # PIMC (seat 0) led ISMCTS 56-23 at turn 88 and lost 61-32 to a Forum victory
    record = duel["13-0-1"]
    entry = thrown.thrown_position(record, 12, source="duel")
    assert entry is not None and entry["source"] == "duel"
    assert (entry["leader"], entry["decision"], entry["turn"], entry["lead"]) == (0, 371, 88, 33)
    assert entry["scores"] == [56, 23] and entry["leader"] not in record["winners"]
    assert entry["end_reason"] == "forum" and entry["final_scores"] == record["scores"]
    own = [(i, lead) for i, p, lead in _leads_at_own_decisions(record) if p == entry["leader"]]
    largest = max(lead for _, lead in own)
    assert entry["lead"] == largest
    assert entry["decision"] == min(i for i, lead in own if lead == largest)
    assert entry["actions"] == record["actions"][:entry["decision"]]
    assert entry["seats"] == record["seats"]


def test_a_game_without_such_a_lead_is_not_found(thrown, duel):
    record = duel["0-0-0"]          # the loser led by 10 at most
    loser_leads = [lead for _, p, lead in _leads_at_own_decisions(record) if p not in record["winners"]]
    assert max(loser_leads) == 10
    assert thrown.thrown_position(record, 12) is None
    assert thrown.thrown_position(record, 10)["lead"] == 10
    assert thrown.thrown_position(duel["13-0-1"], 34) is None


def test_a_record_that_does_not_replay_is_refused(thrown, duel):
    record = copy.deepcopy(duel["13-0-1"])
    record["winners"] = [0]
    with pytest.raises(ValueError, match="replays to"):
        thrown.thrown_position(record)
    record = copy.deepcopy(duel["13-0-1"])
    record["actions"][5] = 10_000
    with pytest.raises(ValueError, match="does not replay"):
        thrown.thrown_position(record)


def test_find_writes_a_suite_that_rebuilds(thrown, tmp_path, capsys):
    out = tmp_path / "suite.jsonl.gz"
    thrown.main(["find", str(DUEL), "--lead", "12", "--out", str(out)])
    printed = capsys.readouterr().out
    assert "120 scanned, 0 skipped" in printed
    suite = thrown.load_suite(out)
    assert "13-0-1" in {entry["game_id"] for entry in suite}
    for entry in suite:
        state = thrown.rebuild(entry)
        assert state.current_player() == entry["leader"] and state.turn_number() == entry["turn"]
        assert state.scores() == entry["scores"] and entry["lead"] >= 12


def test_the_shipped_suite_rebuilds_to_the_recorded_state(thrown):
    suite = thrown.load_suite(SUITE)
    assert len(suite) >= 100
    for entry in suite:
        state = thrown.rebuild(entry)
        scores = state.scores()
        leader = entry["leader"]
        assert not state.is_terminal() and state.current_player() == leader
        assert scores == entry["scores"] and state.turn_number() == entry["turn"]
        assert scores[leader] - max(s for q, s in enumerate(scores) if q != leader) == entry["lead"] >= 12
        assert leader not in entry["winners"]


def test_a_position_plays_out_reproducibly(thrown, duel):
    entry = thrown.thrown_position(duel["13-0-1"])
    first = thrown.play_out(entry, "random", "random", seed=3)
    assert isinstance(first, bool)
    assert thrown.play_out(entry, "random", "random", seed=3) == first


def test_play_prints_provenance_and_the_share_lost(thrown, tmp_path, capsys):
    out = tmp_path / "suite.jsonl.gz"
    thrown.main(["find", str(DUEL), "--out", str(out)])
    capsys.readouterr()
    thrown.main(["play", str(out), "--bot", "random", "--opponent", "random", "--runs", "2", "--limit", "2"])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("# python") and "build " in lines[0]
    assert "2 positions x 2 runs (0 set aside" in lines[1]
    assert any(line.startswith("# the leader lost ") and " of 4 runs: " in line for line in lines)
    assert any(line.startswith("# positions lost in every run: ") and " of 2: " in line for line in lines)


def test_fixed_budget_makes_a_time_budget_iterations(thrown):
    assert thrown.fixed_budget("ismcts:time_ms=10") == "ismcts:iters=1000,cutoff=40"
    assert thrown.fixed_budget("ismcts:cpu_ms=20,cutoff=80,c=0.5") == "ismcts:iters=2000,cutoff=80,c=0.5"
    assert thrown.fixed_budget("pimc:time_ms=5,worlds=10") == "pimc:iters=500,worlds=10"
    for spec in ("ismcts:iters=300", "greedy", "heuristic:style=merchant"):
        assert thrown.fixed_budget(spec) == spec


def test_won_keeps_the_positions_the_control_wins_in_every_run(thrown, tmp_path, capsys):
    found = tmp_path / "suite.jsonl.gz"
    thrown.main(["find", str(DUEL), "--out", str(found)])
    capsys.readouterr()
    out = tmp_path / "won.jsonl.gz"
    thrown.main(["won", str(found), "--out", str(out), "--control", "greedy", "--opponent", "random",
                 "--runs", "2", "--limit", "6"])
    lines = capsys.readouterr().out.splitlines()
    rows = [line for line in lines if not line.startswith("#")]
    assert len(rows) == 6
    kept = thrown.load_suite(out)
    assert len(kept) == sum(line.endswith(" s]") and "lost 0/2" in line for line in rows)
    assert any(f"won in every run: {len(kept)} of 6 positions" in line for line in lines)
    for entry in kept:
        assert entry["control"] == {"spec": "greedy", "runs": 2, "seed": 0}
        assert entry["selected"] == [entry["control"]]
        assert entry["opponents"] == ["random"] * entry["num_players"]
        # the control wins it again with the same seeds: the runs reproduce
        recorded = {k: v for k, v in entry.items() if k not in ("control", "opponents", "index", "selected")}
        assert thrown.load_suite(found)[entry["index"]] == recorded
        assert all(thrown.play_out(entry, "greedy", None, 0, entry["index"], run) for run in range(2))


def test_a_position_against_the_all_seeing_control_is_set_aside(thrown):
    entry = {"leader": 0, "seats": ["ismcts:iters=10", "ismcts:iters=10,omniscient=true"]}
    assert thrown._cheating_opponent(entry)
    assert not thrown._cheating_opponent(dict(entry, leader=1))


def test_paired_compares_two_records_position_by_position(thrown, tmp_path, capsys):
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    first.write_bytes(orjson.dumps({"bot": "a", "seed": 0, "runs": 2,
                                    "results": {"0": [True, True], "3": [False, True]}}))
    second.write_bytes(orjson.dumps({"bot": "b", "seed": 0, "runs": 2,
                                     "results": {"0": [False, False], "3": [False, True]}}))
    difference, low, high = thrown.paired(str(first), str(second))
    assert difference == 0.5 and low <= difference <= high
    printed = capsys.readouterr().out
    assert "a lost 1, b lost 3" in printed and "runs lost by a alone: 0, by b alone: 2, by both: 1" in printed
    # a bot played once: its run 0 against the other's run 0 (the same seeds)
    second.write_bytes(orjson.dumps({"bot": "b", "seed": 0, "runs": 1,
                                     "results": {"0": [False], "3": [True]}}))
    difference, _, _ = thrown.paired(str(first), str(second))
    assert difference == 0.0 and "2 positions x 1 runs: a lost 1, b lost 1" in capsys.readouterr().out
    second.write_bytes(orjson.dumps({"bot": "b", "seed": 1, "runs": 2, "results": {}}))
    with pytest.raises(SystemExit, match="not paired"):
        thrown.paired(str(first), str(second))


def test_paired_pools_seeds_keeping_a_positions_runs_together(thrown, tmp_path, capsys):
    def record(name, bot, seed, results):
        path = tmp_path / name
        path.write_bytes(orjson.dumps({"bot": bot, "seed": seed, "runs": 2, "results": results}))
        return str(path)
    a0 = record("a0.json", "a", 0, {"0": [True, True], "3": [True, True]})
    b0 = record("b0.json", "b", 0, {"0": [False, False], "3": [True, True]})
    a1 = record("a1.json", "a", 1, {"0": [True, False], "3": [True, True]})
    b1 = record("b1.json", "b", 1, {"0": [False, False], "3": [True, False]})
    difference, low, high = thrown.paired(a0, b0, a1, b1)
    # seed 0: b loses 2 more of 4 runs, seed 1: 2 more of 4, pooled 4 of 8
    assert difference == 0.5 and low <= difference <= high
    printed = capsys.readouterr().out
    assert ("pooled, 2 seeds: 2 positions, 8 runs each: the first lost 1 (12.5%), the second 5 (62.5%)"
            in printed)
    assert printed.count("2 positions x 2 runs") == 2
    # position 0 accounts for 3 of the 4 runs b lost more, position 3 for 1: the bootstrap resamples
    # the positions (3 or 1 runs a draw, out of 8), so its interval lies within [2/8, 6/8]
    assert 0.25 <= low and high <= 0.75
    with pytest.raises(SystemExit, match="in pairs"):
        thrown.paired(a0, b0, a1)
    with pytest.raises(SystemExit, match="not paired"):
        thrown.paired(a0, b0, a1, b0)


def test_a_play_stopped_early_pairs_by_its_printed_lines(thrown, tmp_path, capsys):
    found = tmp_path / "suite.jsonl.gz"
    thrown.main(["find", str(DUEL), "--out", str(found)])
    capsys.readouterr()
    thrown.main(["play", str(found), "--bot", "random", "--opponent", "random", "--runs", "2", "--limit", "3",
                 "--record", str(tmp_path / "whole.json")])
    lines = capsys.readouterr().out.splitlines()
    rows = [line for line in lines if not line.startswith("#")]
    header = f"# python benchmarks/thrown.py play {found} --bot random --runs 2 --seed 0 (build x)"
    printed = tmp_path / "stopped.txt"
    printed.write_text("\n".join([header, lines[1], *rows[:2]]) + "\n")     # stopped after two positions
    difference, _, _ = thrown.paired(str(tmp_path / "whole.json"), str(printed))
    assert difference == 0.0 and "2 positions x 2 runs" in capsys.readouterr().out
    once = tmp_path / "once.json"
    once.write_bytes(orjson.dumps({"bot": "b", "seed": 0, "runs": 1, "results": {}}))
    with pytest.raises(SystemExit, match="equal runs"):
        thrown.paired(str(once), str(printed))
    (tmp_path / "other.txt").write_text("# python -m something\n")
    with pytest.raises(SystemExit, match="not the output of thrown.py play"):
        thrown.paired(str(once), str(tmp_path / "other.txt"))


def test_a_suite_played_in_pieces_reports_as_played_whole(thrown, tmp_path, capsys):
    found = tmp_path / "suite.jsonl.gz"
    thrown.main(["find", str(DUEL), "--out", str(found)])
    common = ["play", str(found), "--bot", "random", "--opponent", "random", "--runs", "2", "--limit"]
    thrown.main([*common, "4", "--record", str(tmp_path / "whole.json")])
    thrown.main([*common, "1", "--record", str(tmp_path / "a.json")])
    thrown.main([*common, "3", "--start", "1", "--record", str(tmp_path / "b.json")])
    capsys.readouterr()
    whole = orjson.loads((tmp_path / "whole.json").read_bytes())
    parts = [orjson.loads((tmp_path / name).read_bytes()) for name in ("a.json", "b.json")]
    assert {**parts[0]["results"], **parts[1]["results"]} == whole["results"]
    thrown.main(["report", str(tmp_path / "a.json"), str(tmp_path / "b.json")])
    merged = capsys.readouterr().out
    thrown.main(["report", str(tmp_path / "whole.json")])
    assert merged.splitlines()[1:] == capsys.readouterr().out.splitlines()[1:]
    assert "4 positions x 2 runs" in merged


def test_the_shipped_won_suite_is_positions_of_the_thrown_suite_the_control_won(thrown):
    source = thrown.load_suite(SUITE)
    won = thrown.load_suite(ROOT / "benchmarks" / "data" / "thrown_won.jsonl.gz")
    assert len(won) >= 100 and [e["index"] for e in won] == sorted({e["index"] for e in won})
    for entry in won:
        recorded = {k: v for k, v in entry.items() if k not in ("index", "opponents", "control")}
        assert recorded == source[entry["index"]]
        assert entry["control"] == {"spec": thrown.CONTROL, "runs": 2, "seed": 0}
        assert entry["opponents"] == [thrown.fixed_budget(spec) for spec in entry["seats"]]
        assert not thrown._cheating_opponent(entry)
    assert thrown.rebuild(won[0]).scores() == won[0]["scores"]


def _first_positions(thrown, tmp_path, capsys, count):
    """The first `count` positions of the suite found in DUEL, and a suite file of them."""
    found = tmp_path / "suite.jsonl.gz"
    thrown.main(["find", str(DUEL), "--out", str(found)])
    suite = thrown.load_suite(found)[:count]
    small = tmp_path / "small.jsonl.gz"
    thrown._write_suite(str(small), suite)
    capsys.readouterr()
    return suite, small


def test_roots_reads_how_won_each_position_looks_to_a_search(thrown, tmp_path, capsys):
    suite, small = _first_positions(thrown, tmp_path, capsys, 3)
    (means,) = thrown.roots(str(small), ["ismcts:iters=30"], 0)
    assert len(means) == 3 and all(0 <= v <= 1 for v in means)
    state = thrown.rebuild(suite[0])
    bot = thrown.make_bot("ismcts:iters=30", thrown._bot_seed(0, 0, 0, suite[0]["leader"]))
    bot.step(state)
    assert means[0] == bot.last_search()["actions"][0]["mean_reward"][suite[0]["leader"]]
    with pytest.raises(SystemExit, match="search bots"):
        thrown.roots(str(small), ["greedy"], 0)


def test_cost_times_each_bots_decision_at_the_same_positions(thrown, tmp_path, capsys):
    _, small = _first_positions(thrown, tmp_path, capsys, 4)
    thrown.main(["cost", str(small), "--bots", "ismcts:iters=20", "ismcts:iters=400", "--positions", "2"])
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("# python") and "build " in out[0]
    assert out[1].startswith("# ismcts:iters=20: ") and "over 2 positions" in out[1]
    assert out[1].endswith("x1.00 in all, median x1.00")
    # twenty times the iterations cost more CPU at the same positions
    ratio = float(out[2].split(": x")[1].split(" ")[0])
    assert ratio > 1.5
    spent = thrown.cost(str(small), ["ismcts:iters=20"], 4)
    assert len(spent["ismcts:iters=20"]) == 4 and all(t >= 0 for t in spent["ismcts:iters=20"])
    with pytest.raises(SystemExit, match="at least 1"):
        thrown.cost(str(small), ["ismcts:iters=20"], 0)


def test_won_of_a_won_suite_selects_again_on_other_seeds_keeping_each_index(thrown, tmp_path, capsys):
    found, first, second = (tmp_path / f"{name}.jsonl.gz" for name in ("suite", "first", "second"))
    thrown.main(["find", str(DUEL), "--out", str(found)])
    common = ["--control", "greedy", "--opponent", "random", "--runs", "2"]
    thrown.main(["won", str(found), "--out", str(first), *common, "--start", "2", "--limit", "8"])
    thrown.main(["won", str(first), "--out", str(second), *common, "--seed", "5"])
    capsys.readouterr()
    once, again = thrown.load_suite(first), thrown.load_suite(second)
    passes = [{"spec": "greedy", "runs": 2, "seed": 0}, {"spec": "greedy", "runs": 2, "seed": 5}]
    # kept again: exactly the positions the control wins in both runs of seed 5, seeded by their
    # index in the first suite (not their place in the second)
    wins_again = [e for e in once
                  if all(thrown.play_out(e, "greedy", None, 5, e["index"], run) for run in range(2))]
    assert [e["index"] for e in again] == [e["index"] for e in wins_again]
    assert once and all(e["index"] != place for place, e in enumerate(once))    # not the place: >= 2
    for entry in again:
        assert entry["selected"] == passes and entry["control"] == passes[1]
        assert thrown.load_suite(found)[entry["index"]]["actions"] == entry["actions"]


def test_merge_joins_the_pieces_of_won_as_won_of_the_whole(thrown, tmp_path, capsys):
    found = tmp_path / "suite.jsonl.gz"
    thrown.main(["find", str(DUEL), "--out", str(found)])
    common = ["won", str(found), "--control", "greedy", "--opponent", "random", "--runs", "1"]
    thrown.main([*common, "--out", str(tmp_path / "whole.jsonl.gz"), "--limit", "6"])
    thrown.main([*common, "--out", str(tmp_path / "b.jsonl.gz"), "--start", "3", "--limit", "3"])
    thrown.main([*common, "--out", str(tmp_path / "a.jsonl.gz"), "--limit", "3"])
    pieces = [str(tmp_path / "b.jsonl.gz"), str(tmp_path / "a.jsonl.gz")]
    thrown.main(["merge", str(tmp_path / "merged.jsonl.gz"), *pieces])
    merged, whole = (gzip.decompress((tmp_path / f"{name}.jsonl.gz").read_bytes())
                     for name in ("merged", "whole"))
    assert merged == whole
    assert thrown.load_suite(tmp_path / "whole.jsonl.gz")          # the test would hold for an empty one
    with pytest.raises(SystemExit, match="more than one piece"):
        thrown.merge(str(tmp_path / "twice.jsonl.gz"), [pieces[1], str(tmp_path / "whole.jsonl.gz")])
    with pytest.raises(SystemExit, match="written by won"):
        thrown.merge(str(tmp_path / "raw.jsonl.gz"), [str(found)])


def test_the_shipped_sure_suite_was_won_by_the_control_on_seeds_0_and_10(thrown):
    source = thrown.load_suite(SUITE)
    won = {e["index"] for e in thrown.load_suite(ROOT / "benchmarks" / "data" / "thrown_won.jsonl.gz")}
    sure = thrown.load_suite(ROOT / "benchmarks" / "data" / "thrown_sure.jsonl.gz")
    indexes = [e["index"] for e in sure]
    assert len(sure) >= 100 and indexes == sorted(set(indexes))
    # chosen on seeds 0 and 10: scoring it on either would score it on the runs that chose it
    passes = [{"spec": thrown.CONTROL, "runs": 2, "seed": 0}, {"spec": thrown.CONTROL, "runs": 4, "seed": 10}]
    for entry in sure:
        assert entry["selected"] == passes and entry["control"] == passes[1]
        recorded = {k: v for k, v in entry.items() if k not in ("index", "opponents", "control", "selected")}
        assert recorded == source[entry["index"]]
        assert entry["opponents"] == [thrown.fixed_budget(spec) for spec in entry["seats"]]
        # positions 0-555 were classified on seed 0 by the won suite; 556-666 after it
        assert entry["index"] in won or entry["index"] >= 556
    assert thrown.rebuild(sure[-1]).scores() == sure[-1]["scores"]
