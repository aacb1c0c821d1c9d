"""The committed balance studies (results/catacomb, results/skill) are what their configs
(experiments/tuning/) produce: the same config, every trial ended, the validation table
recomputed from the stored validation games to the digit, a README whose answer is that
table's, and games that replay as stored (a few per run: `glory-ai reproduce results/NAME`
replays them all)."""
from __future__ import annotations

import json
import warnings
from pathlib import Path

import optuna
import pandas as pd
import pytest

from glory_ai.arena import load_records, play_game, strip_timing
from glory_ai.arena.storage import COMPRESSED_GAMES_FILE, GAMES_FILE, is_compressed, load_config, read_records
from glory_ai.tune import load_tune_config
from glory_ai.tune.study import trial_results
from glory_ai.tune.validation import VALIDATION_DIR, candidates, judge, published_rules

ROOT = Path(__file__).resolve().parents[2]
STUDIES = sorted((ROOT / "experiments" / "tuning").glob("*.toml"))
GAMES_PER_RUN = 1


def test_both_studies_are_shipped():
    assert {p.stem for p in STUDIES} >= {"catacomb", "skill"}


def _study(config_path: Path):
    folder = ROOT / "results" / config_path.stem
    assert folder.is_dir(), f"no committed results for {config_path.name}: glory-ai tune {config_path.stem}"
    config = load_tune_config(config_path)
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.load_study(study_name=config.name, storage=f"sqlite:///{folder / 'study.db'}")
    return folder, config, trial_results(study)


@pytest.mark.parametrize("config_path", STUDIES, ids=lambda p: p.stem)
def test_a_shipped_study_is_its_config_finished(config_path):
    folder, config, trials = _study(config_path)
    assert (folder / "tune.toml").read_text() == config_path.read_text()
    manifest = json.loads((folder / "manifest.json").read_text())
    assert manifest["study"] == config.name and manifest["seed"] == config.seed
    assert manifest["validation_seed"] == config.validation_seed
    assert manifest["build"]["source_hash"] and not manifest["build"]["stale"]
    ended = [t for t in trials if t.state in ("complete", "pruned", "refused")]
    assert len(ended) == manifest["trials"] and not [t for t in trials if t.state == "running"]
    # committed records stay small: every run kept compressed
    runs = sorted(p.parent for p in folder.glob("*/*/*p/config.json"))
    assert runs and all(is_compressed(run) for run in runs)
    assert not list(folder.rglob(GAMES_FILE))
    assert sum(len(read_records(run, skip=("actions",))) for run in runs) == manifest["games"]
    size = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())
    assert size < 16_000_000, f"{folder} holds {size / 1e6:.1f} MB"  # a study plays ~25,000 games


@pytest.mark.parametrize("config_path", STUDIES, ids=lambda p: p.stem)
def test_the_validation_table_is_what_the_stored_games_give(config_path):
    folder, config, trials = _study(config_path)
    published = published_rules(config)
    chosen = candidates(config, trials)
    folders = {c.key: [folder / VALIDATION_DIR / c.folder_name / f"{n}p" for n in config.players]
               for c in (published, *chosen)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = judge(config, published, chosen, folders)
    assert table.to_csv(index=False, float_format="%.6g") == (folder / "validation.csv").read_text()


@pytest.mark.parametrize("config_path", STUDIES, ids=lambda p: p.stem)
def test_the_readme_answers_with_the_validation_table(config_path):
    folder, config, _ = _study(config_path)
    table = pd.read_csv(folder / "validation.csv")
    readme = (folder / "README.md").read_text()
    answer = next(line for line in readme.splitlines() if line.startswith("**Answer.**"))
    assert f"{config.validation_deals} fresh deals (seed {config.validation_seed})" in answer
    objectives = table[table["role"] == "objective"]
    counted = objectives.groupby("key")["improves"].all()
    constraints = table[table["role"] == "constraint"]
    held = constraints.groupby("key")["held"].all().reindex(counted.index, fill_value=True)
    winners = [key for key in counted.index if counted[key] and held[key]]
    if winners:
        # the first candidate (best in the search) that counts is the answer, named in it
        first = next(label for key, label in zip(table["key"], table["variant"], strict=True)
                     if key in winners)
        assert answer.startswith(f"**Answer.** {first[0].upper() + first[1:]}:")
        assert "p = " in answer and "Holm-adjusted" in answer
        assert (objectives.loc[objectives["key"].isin(winners), "p_holm"] < 0.05).all()
    else:
        assert "beats the published rules" in answer and "None of the" in answer
    # the table's rows appear in the README's table, one line each
    rows = [line for line in readme.splitlines() if line.startswith("| ") and "---" not in line]
    assert len(rows) == len(table) + 1


def _cheapest(records: list[dict]) -> list[dict]:
    return sorted(records, key=lambda r: (r["decisions"], r["game_id"]))[:GAMES_PER_RUN]


@pytest.mark.parametrize("config_path", STUDIES, ids=lambda p: p.stem)
def test_stored_study_games_replay_identically(config_path):
    folder, _, _ = _study(config_path)
    runs = sorted(p.parent for p in folder.glob("*/*/*p/config.json"))
    for run in runs[:: max(1, len(runs) // 6)]:         # validation and trial runs alike
        assert (run / COMPRESSED_GAMES_FILE).is_file()
        run_config = load_config(run)
        for record in _cheapest(load_records(run)):
            deal, pairing, rotation = (int(x) for x in record["game_id"].split("-"))
            fresh = strip_timing(play_game(run_config.task(deal, pairing, rotation)))
            fresh["seats"] = record["seats"]
            assert fresh == strip_timing(record), (run.relative_to(folder), record["game_id"])
