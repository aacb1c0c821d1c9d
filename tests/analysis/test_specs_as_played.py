"""A run records what its specs meant (code.json's resolved parameters); when a default
changes later, the analysis shows the old games under the spec spelled out as played, not
under today's meaning of the same text."""
from __future__ import annotations

import json
import logging

import pytest

from glory_ai.analysis.load import load_runs
from glory_ai.analysis.report import build_report
from glory_ai.arena import RunConfig, run
from glory_ai.arena.code import CODE_FILE, read_code, spec_as_played, spec_parameters
from glory_ai.bots import parse_spec

SEARCH = "ismcts:iters=12"


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    folder = tmp_path_factory.mktemp("as_played") / "run"
    run(RunConfig(specs=(SEARCH, "greedy"), deals=2, seed=5), out=folder, n_jobs=1, progress=False)
    return folder


def _copy_with_parameters(source, target, change):
    import shutil

    shutil.copytree(source, target)
    data = json.loads((target / CODE_FILE).read_text())
    change(data)
    (target / CODE_FILE).write_text(json.dumps(data))
    return target


def test_a_run_records_every_builtin_specs_resolved_parameters(played):
    parameters = read_code(played)["parameters"]
    assert set(parameters) == {SEARCH, "greedy"}
    assert parameters[SEARCH] == parse_spec(SEARCH)[1]          # defaults included
    assert parameters[SEARCH]["iters"] == 12 and "cutoff" in parameters[SEARCH]
    assert parameters["greedy"] == {}
    # a user's bot, or a spec this code cannot read, is left out
    assert spec_parameters(["./my_bot.py:Mine", "nosuchbot", "greedy"]) == {"greedy": {}}


def test_spelled_out_only_where_a_parameter_differs():
    now = parse_spec(SEARCH)[1]
    assert spec_as_played(SEARCH, now) == SEARCH
    old = {**now, "cutoff": now["cutoff"] + 7, "solver": not now["solver"]}
    spelled = spec_as_played(SEARCH, old)
    assert spelled == f"{SEARCH},cutoff={now['cutoff'] + 7},solver={str(not now['solver']).lower()}"
    assert parse_spec(spelled)[1] == old          # the spelled-out spec means what was played
    # a parameter that no longer exists is still shown; a spec that cannot be read is kept
    assert spec_as_played("greedy", {"depth": 2}) == "greedy:depth=2"
    assert spec_as_played("nosuchbot:x=1", {"x": 2}) == "nosuchbot:x=1"


def test_an_old_spelling_of_the_same_value_is_no_change_and_the_old_evaluation_is_named():
    # runs recorded before eval=style existed hold eval "" (the style then as now); ISMCTS
    # now evaluates with the shipped model, so its old games are the style's, named as such
    old_ismcts = {**parse_spec("ismcts:iters=500")[1], "eval": ""}
    spelled = spec_as_played("ismcts:iters=500", old_ismcts)
    assert spelled == "ismcts:iters=500,eval=style"
    assert parse_spec(spelled)[1] == {**old_ismcts, "eval": "style"}
    old_pimc = {**parse_spec("pimc:iters=500,worlds=10")[1], "eval": ""}
    assert spec_as_played("pimc:iters=500,worlds=10", old_pimc) == "pimc:iters=500,worlds=10"


def test_old_games_are_shown_as_played_and_not_merged_with_todays(played, tmp_path, caplog):
    now = parse_spec(SEARCH)[1]
    old_cutoff = now["cutoff"] + 7

    def older_default(data):
        data["parameters"][SEARCH]["cutoff"] = old_cutoff

    old = _copy_with_parameters(played, tmp_path / "old", older_default)
    with caplog.at_level(logging.WARNING, logger="glory_ai.analysis"):
        frame = load_runs([old, played])
    spelled = f"{SEARCH},cutoff={old_cutoff}"
    assert "other bot defaults" in caplog.text and spelled in caplog.text
    by_run = frame.groupby("run", observed=True)["spec"].agg(lambda s: sorted(set(map(str, s))))
    assert by_run["old"] == sorted([spelled, "greedy"])
    assert by_run["run"] == sorted([SEARCH, "greedy"])         # today's run keeps its text
    manifests = {m["label"]: m for m in frame.attrs["runs"]}
    assert manifests["old"]["as_played"] == {SEARCH: spelled}
    assert manifests["run"]["as_played"] == {}
    # the report keeps the two apart, and labels the old one by what sets it apart
    report = build_report(frame, figures=False)
    assert {spelled, SEARCH} <= set(map(str, report.frame["spec"].unique()))


def test_a_parameter_added_since_keeps_the_label_but_the_replay_plays_as_before(played, tmp_path):
    # recorded before turnwin existed: the tables show the spec as written (the shipped reports
    # keep their labels), while a replay builds the bot with turnwin=0 (glory_ai.arena.code)
    from glory_ai.arena import load_config

    def before_turnwin(data):
        del data["parameters"][SEARCH]["turnwin"], data["parameters"][SEARCH]["turnwin_worlds"]

    old = _copy_with_parameters(played, tmp_path / "before", before_turnwin)
    frame = load_runs(old)
    assert sorted(set(map(str, frame["spec"]))) == sorted([SEARCH, "greedy"])
    assert frame.attrs["runs"][0]["as_played"] == {}
    assert load_config(old).played == {SEARCH: f"{SEARCH},turnwin=0"}


def test_a_run_from_before_a_parameter_beside_one_after_it_is_kept_apart(played, tmp_path):
    # the same text, two bots: the run made before turnwin existed is spelled out with its
    # before-value in a report of both runs (frame and stream alike), never merged with today's
    from glory_ai.analysis.stream import open_runs

    def before_turnwin(data):
        del data["parameters"][SEARCH]["turnwin"], data["parameters"][SEARCH]["turnwin_worlds"]

    old = _copy_with_parameters(played, tmp_path / "before", before_turnwin)
    frame = load_runs([old, played])
    by_run = frame.groupby("run", observed=True)["spec"].agg(lambda s: sorted(set(map(str, s))))
    assert by_run["before"] == sorted([f"{SEARCH},turnwin=0", "greedy"])
    assert by_run["run"] == sorted([SEARCH, "greedy"])
    stream = open_runs([old, played])           # finished runs: read from their columns files
    assert stream is not None
    assert [run.as_played for run in stream.runs] == [{SEARCH: f"{SEARCH},turnwin=0"}, {}]
    # a report of runs that all played the same bots keeps the text as written
    twin = _copy_with_parameters(played, tmp_path / "twin", before_turnwin)
    frame = load_runs([old, twin])
    assert sorted(set(map(str, frame["spec"]))) == sorted([SEARCH, "greedy"])


@pytest.mark.parametrize("damage", ["no parameters", "damaged file"])
def test_runs_without_usable_parameters_show_their_specs_as_written(played, tmp_path, damage):
    if damage == "no parameters":
        folder = _copy_with_parameters(played, tmp_path / "plain", lambda data: data.pop("parameters"))
    else:
        folder = _copy_with_parameters(played, tmp_path / "plain", lambda data: None)
        (folder / CODE_FILE).write_text("{not json")
    frame = load_runs(folder)
    assert sorted(set(map(str, frame["spec"]))) == sorted([SEARCH, "greedy"])
    assert frame.attrs["runs"][0]["as_played"] == {}


def test_a_grid_finds_the_games_of_a_run_whose_spec_is_spelled_out(played, tmp_path):
    from glory_ai.analysis.report import Grid

    now = parse_spec(SEARCH)[1]

    def older_default(data):
        data["parameters"][SEARCH]["cutoff"] = now["cutoff"] + 7

    old = _copy_with_parameters(played, tmp_path / "old", older_default)
    frame = load_runs([old, played])
    # the grid names each point's spec as the experiment's config writes it
    grid = Grid("g", "iters", "ismcts:iters={iters}", ("greedy",),
                ((12.0, "old", SEARCH), (13.0, "run", SEARCH)))
    report = build_report(frame, figures=False, grids=[grid])
    table = report.tables["grid-g"]
    assert list(table.index) == [12.0, 13.0]
    assert (table["games"] > 0).all()
    assert table.loc[12.0, "spec"] != table.loc[13.0, "spec"]     # the old one spelled out
