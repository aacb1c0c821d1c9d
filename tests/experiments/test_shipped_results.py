"""The committed results/ are what the shipped experiments produce: every shipped config has
its results folder, made from the same config, and games re-played from the stored run
configs give the stored records exactly (timings aside). A few games per run keep this to
seconds: for every bot of the run, the cheapest games it played; `glory-ai reproduce
results/NAME` re-plays a whole folder."""
import json
from pathlib import Path

import pytest

from glory_ai.arena import load_records, play_game, strip_timing
from glory_ai.arena.storage import load_config
from glory_ai.experiments import load_experiment

ROOT = Path(__file__).resolve().parents[2]
CONFIGS = sorted((ROOT / "experiments").glob("*.toml"))
GAMES_PER_RUN = 2


def _runs(name: str) -> list[Path]:
    return sorted(p for p in (ROOT / "results" / name / "runs").iterdir() if p.is_dir())


def test_six_experiments_are_shipped():
    assert {p.stem for p in CONFIGS} >= {"strategy_ladder", "ismcts_scaling", "ismcts_vs_pimc",
                                         "seat_advantage", "building_strength", "republic_vs_imperium"}


@pytest.mark.parametrize("config", CONFIGS, ids=lambda p: p.stem)
def test_results_folder_matches_its_config(config):
    folder = ROOT / "results" / config.stem
    assert folder.is_dir(), f"no committed results for {config.name}: glory-ai run {config.relative_to(ROOT)}"
    # the results were made from this very config, and every planned run finished
    assert (folder / "experiment.toml").read_text() == config.read_text()
    experiment = load_experiment(config)
    manifest = json.loads((folder / "manifest.json").read_text())
    assert manifest["experiment"] == experiment.name and manifest["reproducible"] is True
    assert {r["run"] for r in manifest["runs"]} == {p.name for p in experiment.runs()}
    for planned in experiment.runs():
        run_folder = folder / "runs" / planned.name
        assert load_config(run_folder) == planned.config
        assert len(load_records(run_folder)) == planned.config.total_games
    for name in ("README.md", "report.html", "summary.csv", "runs.csv"):
        assert (folder / name).stat().st_size > 0, name
    # committed results stay small: compressed records, a few MB per experiment
    size = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())
    assert size < 8_000_000, f"{folder} holds {size / 1e6:.1f} MB"


#: bots whose games changed on purpose since results/ was generated, and why; their runs are
#: replayed again once results/ is regenerated
CHANGED: dict[str, str] = {
    "random": "the random bot draws by a hash of its decision seed (no random.Random per decision)",
}


def _replayed(stored: list[dict], specs: tuple[str, ...]) -> list[dict]:
    """The GAMES_PER_RUN games with the fewest decisions of each bot of the run."""
    chosen: dict[str, dict] = {}
    for spec in specs:
        played = sorted((r for r in stored if spec in r["seats"]),
                        key=lambda r: (r["decisions"], r["game_id"]))
        chosen.update((r["game_id"], r) for r in played[:GAMES_PER_RUN])
    return [chosen[game_id] for game_id in sorted(chosen)]


@pytest.mark.parametrize("config", CONFIGS, ids=lambda p: p.stem)
def test_stored_games_replay_identically(config):
    changed = []
    for run_folder in _runs(config.stem):
        run_config = load_config(run_folder)
        reasons = {CHANGED[name] for name in CHANGED
                   if any(spec.split(":")[0].strip().lower() == name for spec in run_config.specs)}
        if reasons:
            changed.append(f"{run_folder.name} ({'; '.join(sorted(reasons))})")
            continue
        stored = load_records(run_folder)
        for record in _replayed(stored, run_config.specs):
            deal, pairing, rotation = (int(x) for x in record["game_id"].split("-"))
            fresh = play_game(run_config.task(deal, pairing, rotation))
            assert strip_timing(fresh) == strip_timing(record), (run_folder.name, record["game_id"])
    if changed:
        pytest.xfail(f"games changed on purpose, regenerate results/: {', '.join(changed)}")
