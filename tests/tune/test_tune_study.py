"""A balance study end to end: the search, its folder, validation, resume after kill -9,
a second process refused, reproduce, and a planted knob the tuner must find."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import optuna
import pandas as pd
import pytest

from glory_ai.arena.session import Session
from glory_ai.cards import CARD_NAMES
from glory_ai.core.config import GameConfig
from glory_ai.tune import TuneError, load_tune_config, reproduce_study, run_tune
from glory_ai.tune.study import run_search, trial_results

ROOT = Path(__file__).resolve().parents[2]

STUDY = """
name = "{name}"
question = "How many Catacombs?"
seed = 11
validation_seed = 12

[play]
specs = ["greedy"]
players = [2]
{variant}

[knobs]
{knobs}

[[objective]]
statistic = "{statistic}"
goal = "minimize"

[[constraint]]
statistic = "turns"
min = 10
max = 200

[search]
sampler = "{sampler}"
trials = {trials}
deals = {deals}

[validation]
top = 2
deals = {validation}
reports = {reports}

[run]
jobs = 1
"""


def write(
    folder: Path,
    name: str = "s",
    *,
    knobs: str = '"copies.Catacomb" = {low = 0, high = 6}',
    statistic: str = "end_share:catacomb",
    trials: int = 6,
    deals: str = "[6, 12]",
    validation: int = 16,
    sampler: str = "tpe",
    variant: str = "",
    reports: bool = False,
) -> Path:
    path = folder / f"{name}.toml"
    path.write_text(
        STUDY.format(
            name=name,
            knobs=knobs,
            statistic=statistic,
            trials=trials,
            deals=deals,
            validation=validation,
            sampler=sampler,
            variant=variant,
            reports=str(reports).lower(),
        )
    )
    return path


def quiet(_: str) -> None:
    pass


def test_a_study_writes_its_folder_and_answers_in_words(tmp_path):
    config = load_tune_config(write(tmp_path, reports=True))
    outcome = run_tune(config, tmp_path / "out", log_line=quiet)
    folder = outcome.folder
    for name in (
        "tune.toml",
        "study.db",
        "validation.csv",
        "README.md",
        "report.html",
        "manifest.json",
        "figures/progress.png",
        "figures/tradeoff.png",
        "validation/published/report.html",
    ):
        assert (folder / name).is_file(), name
    study = optuna.load_study(study_name="s", storage=f"sqlite:///{folder / 'study.db'}")
    assert len(study.trials) == 6
    table = pd.read_csv(folder / "validation.csv")
    for column in ("variant", "statistic", "value", "low", "high", "baseline", "p", "p_holm"):
        assert column in table.columns
    assert set(table["role"]) == {"objective", "constraint"}
    assert (table["low"] <= table["value"]).all() and (table["value"] <= table["high"]).all()
    objective = table[table["role"] == "objective"]
    assert ((objective["p_holm"] >= objective["p"]) & (objective["p_holm"] <= 1)).all()
    readme = (folder / "README.md").read_text()
    assert "**Answer.**" in readme and "end_share:catacomb" in readme and "fresh deals" in readme
    # validation is paired: the same deals under every rule set
    played = [sorted(p.name for p in (folder / "validation").iterdir())]
    assert "published" in played[0]
    # every trial's games are on the study's deals, each variant in its own folder
    results = trial_results(study)
    for t in results:
        if t.state in ("complete", "pruned"):
            assert (folder / "trials" / t.key / "2p" / "config.json").is_file()


def test_the_same_command_resumes_and_a_changed_config_is_refused(tmp_path):
    path = write(tmp_path, trials=3)
    config = load_tune_config(path)
    run_tune(config, tmp_path / "out", log_line=quiet)
    before = (tmp_path / "out" / "validation.csv").read_text()
    again = run_tune(config, tmp_path / "out", log_line=quiet)  # nothing left to play
    assert (again.folder / "validation.csv").read_text() == before
    more = run_tune(config, tmp_path / "out", log_line=quiet, trials=4)  # one trial more
    study = optuna.load_study(study_name="s", storage=f"sqlite:///{more.folder / 'study.db'}")
    assert len(study.trials) == 4
    changed = load_tune_config(write(tmp_path, trials=3, statistic="turns"))
    with pytest.raises(TuneError, match="another config.*--fresh"):
        run_tune(changed, tmp_path / "out", log_line=quiet)
    run_tune(changed, tmp_path / "out", log_line=quiet, fresh=True)
    assert (tmp_path / "out.old-1" / "study.db").is_file()  # moved aside, not deleted


def test_a_variant_the_engine_cannot_deal_is_a_failed_trial_not_a_crash(tmp_path):
    copies = dict(zip(CARD_NAMES, GameConfig(2).deck_copies(), strict=True))
    three = [n for n in CARD_NAMES[1:] if copies[n] == 3]
    kept = three[:9]  # 27 Orders: one removal leaves 24, two leave 21 < 22
    removed = [n for n in CARD_NAMES[1:] if n not in kept]
    knobs = f'"removed.{kept[0]}" = [false, true]\n"removed.{kept[1]}" = [false, true]'
    path = write(
        tmp_path,
        knobs=knobs,
        statistic="turns",
        trials=8,
        deals="[4]",
        variant=f"variant = {{removed = {removed!r}}}".replace("'", '"'),
    )
    config = load_tune_config(path)
    run_tune(config, tmp_path / "out", log_line=quiet)
    study = optuna.load_study(study_name="s", storage=f"sqlite:///{tmp_path / 'out' / 'study.db'}")
    results = trial_results(study)
    refused = [t for t in results if t.state == "refused"]
    assert refused and all("Order cards" in t.reason for t in refused)
    assert all(t.params == {f"removed.{kept[0]}": True, f"removed.{kept[1]}": True} for t in refused)
    assert any(t.state == "complete" for t in results)


def _search(path: Path, tmp_path: Path, log_line) -> optuna.Study:
    """The search alone (no validation: its deals are another matter)."""
    (tmp_path / "out").mkdir()
    with Session(tmp_path / "scratch", n_jobs=1, progress=False) as session:
        return run_search(load_tune_config(path), tmp_path / "out", session, log_line=log_line)


def test_a_statistic_undefined_for_want_of_games_plays_on_to_the_next_rung(tmp_path):
    # 4 deals are too few for any building to be completed often enough to compare; more deals
    # define the statistic: the trial plays on (nothing reported at 4), it is not refused
    path = write(tmp_path, statistic="max_building_effect", trials=2, deals="[4, 60]")
    lines: list[str] = []
    study = _search(path, tmp_path, lines.append)
    results = trial_results(study)
    assert [t.state for t in results] == ["complete", "complete"]
    assert all(t.deals == 60 for t in results)
    assert sum("no value after 4 deals" in line and "playing on" in line for line in lines) == 2
    assert all(list(t.intermediate_values) == [60] for t in study.trials)


def test_a_statistic_still_undefined_after_the_last_rung_is_refused(tmp_path):
    path = write(tmp_path, statistic="max_building_effect", trials=1, deals="[2, 4]")
    (result,) = trial_results(_search(path, tmp_path, quiet))
    assert result.state == "refused" and "often enough" in result.reason


def _cli(*args: str, **kwargs) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(ROOT), COLUMNS="200")
    return subprocess.Popen(
        [sys.executable, "-m", "glory_ai.cli", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        **kwargs,
    )


def _ended_trials(db: Path) -> int:
    if not db.exists():
        return 0
    try:
        with sqlite3.connect(db) as con:
            return con.execute(
                "select count(*) from trials where state in ('COMPLETE', 'PRUNED')"
            ).fetchone()[0]
    except sqlite3.Error:
        return 0


def test_kill_9_mid_study_loses_nothing_and_reaches_the_same_best_variant(tmp_path):
    path = write(tmp_path, trials=6, deals="[6, 12]")
    killed = tmp_path / "killed"
    process = _cli("tune", str(path), "--out", str(killed), "--no-progress")
    deadline = time.time() + 120
    while _ended_trials(killed / "study.db") < 3 and time.time() < deadline and process.poll() is None:
        time.sleep(0.05)
    assert process.poll() is None, process.communicate()
    time.sleep(0.3)  # into the next trial's games
    process.send_signal(signal.SIGKILL)
    process.wait()
    resumed = _cli("tune", str(path), "--out", str(killed), "--no-progress")
    out, err = resumed.communicate(timeout=300)
    assert resumed.returncode == 0, err
    plain = run_tune(load_tune_config(path), tmp_path / "plain", log_line=quiet)

    def story(folder: Path) -> list[tuple[str, str, list[float]]]:
        study = optuna.load_study(study_name="s", storage=f"sqlite:///{folder / 'study.db'}")
        return [(t.key, t.state, t.values) for t in trial_results(study) if t.state != "interrupted"]

    assert story(killed) == story(plain.folder)
    assert (killed / "validation.csv").read_text() == (plain.folder / "validation.csv").read_text()


def test_a_second_process_on_the_same_study_is_refused(tmp_path):
    path = write(tmp_path, trials=30, deals="[40]")
    first = _cli("tune", str(path), "--out", str(tmp_path / "out"), "--no-progress")
    try:
        deadline = time.time() + 60
        while not (tmp_path / "out" / "study.db").exists() and time.time() < deadline:
            time.sleep(0.05)
        second = _cli("tune", str(path), "--out", str(tmp_path / "out"), "--no-progress")
        _, err = second.communicate(timeout=60)
        assert second.returncode == 2
        assert err.count("\n") == 1 and "being written by process" in err and str(first.pid) in err, err
    finally:
        first.kill()
        first.wait()


def test_reproduce_replays_the_validation_and_trial_games(tmp_path):
    config = load_tune_config(write(tmp_path, trials=3))
    folder = run_tune(config, tmp_path / "out", log_line=quiet).folder
    runs = reproduce_study(folder, log_line=quiet)
    assert (
        runs and all(not r["differ"] for r in runs) and all(r["run"].startswith("validation") for r in runs)
    )
    with_trials = reproduce_study(folder, trials=True, log_line=quiet)
    assert any(r["run"].startswith("trials") for r in with_trials)
    # an edited record is caught
    import gzip

    from glory_ai.arena.storage import games_file

    record_file = games_file(folder / "validation" / "published" / "2p")
    assert record_file.name.endswith(".gz")         # kept compressed, as results are
    lines = gzip.decompress(record_file.read_bytes()).decode().splitlines()
    first = json.loads(lines[0])
    first["scores"] = [s + 1 for s in first["scores"]]
    lines[0] = json.dumps(first)
    record_file.write_bytes(gzip.compress(("\n".join(lines) + "\n").encode()))
    # the record schema names the edited line (its VP no longer adds up to its score) before
    # the run's checksum would refuse the file
    with pytest.raises(TuneError, match=r"games.jsonl(.gz)?: line 1 \(game 0-0-0\)|checksum|changed|edited"):
        reproduce_study(folder, log_line=quiet)


def test_the_tuner_finds_a_planted_best_value(tmp_path):
    # twelve Catacombs make it end most games; the knob's best value (fewest Catacomb
    # endings) is known: none in the deck
    path = write(
        tmp_path,
        knobs='"copies.Catacomb" = {low = 0, high = 12}',
        statistic="end_share:catacomb",
        trials=10,
        deals="[8, 16]",
        variant="variant = {copies = {Catacomb = 12}}",
    )
    config = load_tune_config(path)
    folder = run_tune(config, tmp_path / "out", log_line=quiet).folder
    study = optuna.load_study(study_name="s", storage=f"sqlite:///{folder / 'study.db'}")
    best = min((t for t in trial_results(study) if t.state == "complete"), key=lambda t: t.values[0])
    assert best.params == {"copies.Catacomb": 0}
    table = pd.read_csv(folder / "validation.csv")
    row = table[(table["variant"] == best.label) & (table["role"] == "objective")].iloc[0]
    assert row["value"] == 0 and row["baseline"] > 0.2 and row["p_holm"] < 0.05
    assert "0 Catacomb cards" in (folder / "README.md").read_text().split("**How it was found.**")[0]


def test_a_finished_study_keeps_its_runs_compressed_and_plays_on_when_extended(tmp_path):
    from glory_ai.arena import load_records
    from glory_ai.arena.session import Session
    from glory_ai.arena.storage import COMPRESSED_GAMES_FILE, GAMES_FILE, is_compressed
    from glory_ai.tune.trials import compress_finished, play_rule_set

    config = load_tune_config(write(tmp_path, trials=2, deals="[4]", validation=6))
    folder = run_tune(config, tmp_path / "out", log_line=quiet).folder
    runs = sorted(p.parent for p in folder.glob("*/*/2p/config.json"))
    assert runs and all(is_compressed(run) for run in runs)
    assert not list(folder.rglob(GAMES_FILE))
    # a run stopped at a rung (a pruned trial), kept compressed: a rung it holds is read as
    # it is; a later trial of the same variant that needs more deals expands it and plays on
    study = optuna.load_study(study_name="s", storage=f"sqlite:///{folder / 'study.db'}")
    variant = next(t for t in trial_results(study) if t.state == "complete").variant
    with Session(tmp_path / "more") as session:
        rung = dict(config=config, variant=variant, folder=tmp_path / "more" / "v", seed=config.seed,
                    planned=8, session=session)
        (run,) = play_rule_set(deals=4, **rung)
        compress_finished([run])
        stored = load_records(run)
        per_deal = json.loads((run / "config.json").read_text())["games_per_deal"]
        assert is_compressed(run) and len(stored) == 4 * per_deal
        play_rule_set(deals=4, **rung)
        assert is_compressed(run) and load_records(run) == stored
        play_rule_set(deals=8, **rung)
    assert not (run / COMPRESSED_GAMES_FILE).exists()
    grown = load_records(run)
    assert len(grown) == 8 * per_deal and grown[: len(stored)] == stored


def test_the_tuner_loads_matplotlib_only_to_draw():
    # a study's trials and its README text need no plotting library (27 MB resident)
    code = ("import sys, glory_ai.tune, glory_ai.tune.output, glory_ai.tune.study; "
            "print('matplotlib' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
