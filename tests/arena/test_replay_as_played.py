"""A run's games replay and resume with the bots as they were played: a run recorded before a
parameter existed (its code.json without turnwin) builds ISMCTS with turnwin=0, the value
from before the root win search, whatever the default is now; a new run records turnwin;
the records name the specs as written (glory_ai.arena.code.played_config)."""
from __future__ import annotations

import json

import pytest

from glory_ai.arena import ArenaError, RunConfig, load_config, load_records, play_game, run, strip_timing
from glory_ai.arena.code import CODE_FILE, played_specs
from glory_ai.bots.builtin_params import TURNWIN_BUDGET

SPEC = "ismcts:iters=20"
OLD = f"{SPEC},turnwin=0"          # what SPEC meant before the root win search


def _config(**played):
    # seed 0: in game 0-0-0 the root win search changes a move (checked below)
    return RunConfig(specs=(SPEC, "greedy"), deals=2, seed=0, **played)


def _as_recorded_before_turnwin(folder):
    """code.json as the code before the root win search wrote it: no turnwin parameters."""
    path = folder / CODE_FILE
    data = json.loads(path.read_text())
    for params in data["parameters"].values():
        params.pop("turnwin", None)
        params.pop("turnwin_worlds", None)
    path.write_text(json.dumps(data, indent=2) + "\n")


def test_a_new_run_records_the_root_win_search(tmp_path):
    run(_config(), tmp_path / "new", n_jobs=1, progress=False)
    params = json.loads((tmp_path / "new" / CODE_FILE).read_text())["parameters"]
    assert params[SPEC]["turnwin"] == TURNWIN_BUDGET and params["greedy"] == {}
    assert played_specs(tmp_path / "new", (SPEC, "greedy")) == {}
    assert load_config(tmp_path / "new").played == {}


def test_a_run_recorded_before_turnwin_replays_as_it_was_played(tmp_path):
    folder = tmp_path / "old"
    stored = run(_config(played={SPEC: OLD}), folder, n_jobs=1, progress=False)
    assert json.loads((folder / CODE_FILE).read_text())["parameters"][SPEC]["turnwin"] == 0
    _as_recorded_before_turnwin(folder)
    records = load_records(folder)
    assert stored.games == 4 and all(r["seats"].count(SPEC) == 1 for r in records)  # named as written
    config = load_config(folder)
    assert config == _config() and config.played == {SPEC: OLD}
    for record in records:
        deal, pairing, rotation = (int(x) for x in record["game_id"].split("-"))
        assert strip_timing(play_game(config.task(deal, pairing, rotation))) == strip_timing(record)
    # today's meaning of the spec plays game 0-0-0 otherwise: the replay above is not vacuous
    assert strip_timing(play_game(_config().task(0, 0, 0))) != strip_timing(records[0])


def test_a_resumed_run_goes_on_with_the_bots_as_they_were_played(tmp_path):
    whole = run(_config(played={SPEC: OLD}), tmp_path / "whole", n_jobs=1, progress=False)
    folder = tmp_path / "part"
    run(_config(played={SPEC: OLD}), folder, n_jobs=1, progress=False, only=[1, 3])
    _as_recorded_before_turnwin(folder)
    resumed = run(_config(), folder, n_jobs=1, progress=False)      # the spec as written, as a user resumes
    assert (resumed.resumed, resumed.played) == (2, 2) and resumed.config.played == {SPEC: OLD}
    assert [strip_timing(r) for r in load_records(folder)] == \
        [strip_timing(r) for r in load_records(whole.out)]
    # code.json now records the parameters the bots were built with
    assert json.loads((folder / CODE_FILE).read_text())["parameters"][SPEC]["turnwin"] == 0


def test_played_names_only_the_run_s_specs():
    with pytest.raises(ArenaError, match="does not play"):
        _config(played={"random": "random"})
    with pytest.raises(ArenaError, match="map specs"):
        _config(played={SPEC: 3})
    assert _config(played={SPEC: SPEC}).played == {}       # the spec itself: nothing differs
