"""load_runs: real and synthetic runs into one tidy frame; every input error is a clear
AnalysisError naming the file."""
from __future__ import annotations

import json
import logging
import subprocess
import sys

import numpy as np
import pytest

from glory_ai.analysis import AnalysisError
from glory_ai.analysis.load import BUILDINGS, COMPLETED, VP_COLUMNS, games, load_runs, variant_key


def test_real_run_frame(real_runs):
    two, three = real_runs
    frame = load_runs([two, three])
    records = [json.loads(line) for line in (two / "games.jsonl").read_text().splitlines()]
    records += [json.loads(line) for line in (three / "games.jsonl").read_text().splitlines()]
    assert len(frame) == sum(r["num_players"] for r in records) == 36 * 2 + 12 * 3
    assert frame["game"].nunique() == 48
    assert list(frame["run"].cat.categories) == ["two", "three"]
    # one row per seat, in seat order, games sorted by (deal, pairing, rotation) within a run
    first = frame[frame["run"] == "two"]
    keys = first.loc[first["seat"] == 0, ["deal", "pairing", "rotation"]].to_numpy().tolist()
    assert keys == sorted(keys)
    assert (frame.groupby("game")["seat"].apply(list) ==
            frame.groupby("game")["num_players"].first().apply(lambda n: list(range(n)))).all()
    by_id = {(r["game_id"], "two" if r["num_players"] == 2 else "three"): r for r in records}
    for _, row in frame.sample(30, random_state=1).iterrows():
        rec = by_id[(row["game_id"], row["run"])]
        s = row["seat"]
        assert row["spec"] == rec["seats"][s]
        assert row["score"] == rec["scores"][s]
        assert row["won"] == (s in rec["winners"])
        assert row["win_share"] == pytest.approx(rec["returns"][s])
        assert row["completed"] == rec["structures"][s]["complete"]
        assert row["n_incomplete"] == len(rec["structures"][s]["incomplete"])
        assert row["end_reason"] == rec["end_reason"] and row["turns"] == rec["turns"]
        assert row["seed"] == rec["seed"] and row["seat_decisions"] == rec["seat_decisions"][s]
        assert row["variant_dict"] == rec["variant"]
        for b in BUILDINGS:
            assert row[COMPLETED + b] == (b in rec["structures"][s]["complete"])
    assert (frame[list(VP_COLUMNS)].sum(axis=1) == frame["score"]).all()
    assert (frame.loc[frame["won"], "rank"] == 1).all()
    assert (frame.loc[~frame["won"], "rank"] > 1).all()
    assert frame["variant"].iloc[0] == "petition_size=2 refill_size=5"
    assert frame["rules"].iloc[0] == "republic petition_size=2 refill_size=5"
    assert frame["n_completed"].sum() == sum(len(st["complete"]) for r in records
                                             for st in r["structures"])
    runs = frame.attrs["runs"]
    assert [r["label"] for r in runs] == ["two", "three"]
    assert runs[0]["games"] == 36 and runs[0]["config"]["config"]["players"] == 2
    if all("roles_led" in r for r in records):         # the arena records roles led since v1
        for _, row in frame.head(6).iterrows():
            rec = by_id[(row["game_id"], row["run"])]
            led = rec["roles_led"][row["seat"]]
            assert row["led:Architect"] == led.get("Architect", 0)
            assert row["led:Patron"] == led.get("Patron", 0)
    per_game = games(frame)
    assert len(per_game) == 48 and per_game["winners"].min() >= 1


def test_rank_and_shared_wins(synth, run_folder):
    recs = [synth(0, ["a", "b", "c"], [0, 2], scores=[30, 40, 30]),
            synth(1, ["a", "b", "c"], [1], scores=[25, 30, 25])]
    frame = load_runs(run_folder(recs))
    assert frame["win_share"].tolist() == [0.5, 0.0, 0.5, 0.0, 1.0, 0.0]
    assert frame["won"].tolist() == [True, False, True, False, True, False]
    # winners first (whatever their VP), then by VP, ties sharing the better place
    assert frame["rank"].tolist() == [1, 3, 1, 2, 1, 2]


def test_file_input_labels_and_order(synth, run_folder, tmp_path):
    recs = [synth(i, ["a", "b"], [i % 2]) for i in (3, 1, 2, 0)]        # out of order
    a = run_folder(recs, "x/run")
    b = run_folder(recs, "y/run")
    frame = load_runs([a / "games.jsonl", b])
    assert list(frame["run"].cat.categories) == ["x/run", "y/run"]
    assert frame.loc[frame["seat"] == 0, "deal"].tolist() == [0, 1, 2, 3] * 2
    assert frame.attrs["runs"][0]["config"] is not None


def test_cut_fields_anywhere_in_the_line(synth, run_folder):
    rec = synth(0, ["a", "b"], [0], completed=[["Forum"], []])
    moved = {"actions": [5, 6], "bot_seeds": [1, 2], **{k: v for k, v in rec.items()
                                                          if k not in ("actions", "bot_seeds")}}
    folder = run_folder([moved, synth(1, ["a", "b"], [1])])
    text = (folder / "games.jsonl").read_text()
    assert text.startswith('{"actions":[5,6],"bot_seeds"')
    frame = load_runs(folder)
    assert frame["completed:Forum"].tolist() == [True, False, False, False]


def test_roles_led_optional(synth, run_folder):
    led = [{"Laborer": 3, "Patron": 1}, {"Architect": 2}]
    recs = [synth(0, ["a", "b"], [0], roles_led=led), synth(1, ["a", "b"], [1])]
    frame = load_runs(run_folder(recs))
    assert frame["led:Laborer"].tolist()[:2] == [3, 0]
    assert frame["led:Architect"].tolist()[:2] == [0, 2]
    assert np.isnan(frame["led:Laborer"].iloc[2])
    assert [c for c in frame.columns if c.startswith("led:")][:6] == [
        "led:Laborer", "led:Craftsman", "led:Architect", "led:Legionary", "led:Merchant", "led:Patron"]


def test_variant_key_is_stable():
    assert variant_key({"refill_size": 6, "petition_size": 3}) == variant_key(
        {"petition_size": 3, "refill_size": 6}) == "petition_size=3 refill_size=6"
    assert variant_key({}) == "default"


def test_truncated_last_line_and_duplicates(synth, run_folder, caplog):
    folder = run_folder([synth(0, ["a", "b"], [0]), synth(1, ["a", "b"], [1]),
                         synth(1, ["a", "b"], [1])])
    with open(folder / "games.jsonl", "a") as fh:
        fh.write('{"record_version":1,"game_id":"2-0-')
    with caplog.at_level(logging.WARNING, logger="glory_ai.analysis"):
        frame = load_runs(folder)
    assert frame["game"].nunique() == 2
    assert frame.loc[frame["deal"] == 1, "won"].tolist() == [False, True]
    text = caplog.text
    assert "truncated last line" in text and "recorded twice" in text
    # two different records of one game: one was changed, which is refused
    conflicting = run_folder([synth(1, ["a", "b"], [1]), synth(1, ["a", "b"], [0])], "conflict")
    with pytest.raises(AnalysisError, match="1-0-0 is recorded twice with different results"):
        load_runs(conflicting)


# ---- errors ---------------------------------------------------------------------------------

def test_missing_and_empty(tmp_path, run_folder):
    with pytest.raises(AnalysisError, match=r"nope: no such run folder or file"):
        load_runs(tmp_path / "nope")
    (tmp_path / "bare").mkdir()
    with pytest.raises(AnalysisError, match=r"bare: no games.jsonl in this folder"):
        load_runs(tmp_path / "bare")
    empty = run_folder([], "empty")
    with pytest.raises(AnalysisError, match=r"empty/games.jsonl: the run has no games"):
        load_runs(empty)
    with pytest.raises(AnalysisError, match="no runs given"):
        load_runs([])


def test_same_run_twice(synth, run_folder):
    folder = run_folder([synth(0, ["a", "b"], [0])])
    with pytest.raises(AnalysisError, match="the same run is given twice"):
        load_runs([folder, folder / "games.jsonl"])


@pytest.mark.parametrize("line, message", [
    ("not json", r"line 2 is not valid JSON"),
    ("[1, 2]", r"line 2 is not a game record \(a JSON list"),
    ('{"game_id": "1-0-0"}', r"line 2 is not a game record: no deal, pairing"),
])
def test_malformed_lines(synth, run_folder, line, message):
    folder = run_folder([synth(0, ["a", "b"], [0])])
    with open(folder / "games.jsonl", "a") as fh:
        fh.write(line + "\n")
    with pytest.raises(AnalysisError, match=r"games.jsonl: " + message):
        load_runs(folder)


@pytest.mark.parametrize("change, message", [
    ({"scores": [1]}, r"line 1 \(game 0-0-0\): scores must list one entry per seat \(2\)"),
    ({"num_players": 7}, r"num_players is 7, expected 2 to 5"),
    ({"winners": [4]}, r"winners must be seat numbers below 2"),
    ({"record_version": 2}, r"record_version is 2; this glory_ai reads \[1\]"),
    ({"variant": "x"}, r"variant must be an object"),
    ({"structures": [{"complete": "Forum", "incomplete": []}, {"complete": [], "incomplete": []}]},
     r"structures must be"),
])
def test_bad_records(synth, run_folder, change, message):
    rec = synth(0, ["a", "b"], [0])
    rec.update(change)
    with pytest.raises(AnalysisError, match=message):
        load_runs(run_folder([rec, synth(1, ["a", "b"], [1])]))


def test_bad_config(synth, run_folder):
    folder = run_folder([synth(0, ["a", "b"], [0])])
    (folder / "config.json").write_text("{oops")
    with pytest.raises(AnalysisError, match=r"config.json: not valid JSON"):
        load_runs(folder)


def test_import_is_light():
    code = ("import sys, glory_ai.analysis; "
            "print(sorted(m for m in ('pandas', 'matplotlib', 'scipy') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_standard_json_reads_the_same(real_runs, monkeypatch):
    # the records are written and parsed with orjson; they are standard JSON all the same
    from glory_ai.arena import storage
    fast = load_runs(real_runs)
    monkeypatch.setattr(storage, "_loads", json.loads)
    slow = load_runs(real_runs)
    plain = [c for c in fast.columns if c not in ("completed", "variant_dict")]
    assert fast[plain].equals(slow[plain])
    assert fast["completed"].tolist() == slow["completed"].tolist()


def test_a_finished_experiment_run_is_read_from_its_compressed_records(tmp_path):
    # glory-ai run compresses a complete run to games.jsonl.gz: the analysis reads it alike
    import gzip
    import shutil

    from glory_ai.arena import RunConfig, run

    plain = tmp_path / "plain"
    run(RunConfig(specs=("greedy", "random"), deals=3, seed=4), out=plain, n_jobs=1, progress=False)
    packed = tmp_path / "packed"
    shutil.copytree(plain, packed)
    with open(packed / "games.jsonl", "rb") as src, gzip.open(packed / "games.jsonl.gz", "wb") as dst:
        dst.write(src.read())
    (packed / "games.jsonl").unlink()
    a, b = load_runs(plain), load_runs(packed)
    assert len(a) == 12
    assert a.drop(columns=["run"]).equals(b.drop(columns=["run"]))
    # a cut-off compressed file is a clear error, not a traceback
    data = (packed / "games.jsonl.gz").read_bytes()
    (packed / "games.jsonl.gz").write_bytes(data[: len(data) // 2])
    with pytest.raises(AnalysisError, match="games.jsonl.gz: not a readable gzip file"):
        load_runs(packed)
