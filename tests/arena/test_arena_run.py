"""Running arena configs: determinism across workers, batches and completion
order; the run folder, resume after a kill, refusal of another config; SPRT stopping;
backend errors."""
import json
import logging
import shutil

import orjson
import pytest

from glory_ai.arena import ArenaError, RunConfig, RunInterrupted, load_records, run, strip_timing
from glory_ai.arena import runner as runner_module
from glory_ai.arena.storage import RunFolder, write_config_records

H2H = RunConfig(specs=("greedy", "random"), deals=8, seed=21)
FIELD = RunConfig(specs=("random", "heuristic:style=merchant", "greedy"), players=3, deals=3, seed=2)


def _stripped(records):
    return sorted((strip_timing(r) for r in records), key=lambda r: r["game_id"])


@pytest.fixture(scope="module")
def reference():
    return {c: run(c, n_jobs=1, batch_size=1).records for c in (H2H, FIELD)}


@pytest.mark.parametrize("config", [H2H, FIELD], ids=["head_to_head", "field"])
@pytest.mark.parametrize("options, shuffle", [
    (dict(n_jobs=2, batch_size=7), None),
    (dict(n_jobs=2, batch_size=1), 5),
    (dict(n_jobs=1, batch_size=7), 9),
    (dict(n_jobs=2, backend="threading", batch_size=3), 1),
], ids=["jobs2-batch7", "jobs2-batch1-shuffled", "jobs1-batch7-shuffled", "threading"])
def test_records_do_not_depend_on_scheduling(reference, config, options, shuffle, shuffle_batches):
    if shuffle is not None:
        shuffle_batches(shuffle)
    result = run(config, **options)
    assert len(result.records) == config.total_games
    assert [r["game_id"] for r in result.records] == config.game_ids()
    assert _stripped(result.records) == _stripped(reference[config])


def test_the_run_folder_streams_records(tmp_path, reference):
    result = run(H2H, tmp_path / "run", n_jobs=2, batch_size=3)
    assert result.complete and result.played == H2H.total_games and result.resumed == 0
    stored = json.loads((tmp_path / "run" / "config.json").read_text())
    assert stored["config"] == H2H.to_dict() and stored["version"]
    lines = (tmp_path / "run" / "games.jsonl").read_text().splitlines()
    assert len(lines) == H2H.total_games and all(": " not in line for line in lines)
    assert _stripped(load_records(tmp_path / "run")) == _stripped(reference[H2H])
    # a finished folder: nothing left to play
    again = run(H2H, tmp_path / "run")
    assert again.played == 0 and again.resumed == H2H.total_games


def test_resume_after_a_kill_mid_line(tmp_path, reference, caplog):
    full = tmp_path / "full"
    run(H2H, full, n_jobs=1, batch_size=4)
    part = tmp_path / "part"
    part.mkdir()
    shutil.copy(full / "config.json", part / "config.json")
    write_config_records(part, None)          # as the first, killed, run left it
    lines = (full / "games.jsonl").read_bytes().splitlines(keepends=True)
    cut = lines[:5] + [lines[5][: len(lines[5]) // 2]]        # killed while writing game 6
    (part / "games.jsonl").write_bytes(b"".join(cut))
    with caplog.at_level(logging.WARNING, logger="glory_ai.arena"):
        result = run(H2H, part, n_jobs=2, batch_size=2)
    assert "truncated last line" in caplog.text
    assert result.resumed == 5 and result.played == H2H.total_games - 5
    text = (part / "games.jsonl").read_text()
    assert text.endswith("\n") and all(json.loads(line) for line in text.splitlines())
    assert _stripped(load_records(part)) == _stripped(load_records(full)) == _stripped(reference[H2H])


def test_ctrl_c_keeps_finished_games_and_the_run_resumes(tmp_path, monkeypatch, reference):
    calls = {"n": 0}
    append = RunFolder.append

    def interrupted_append(self, records, text=None):
        append(self, records, text)
        calls["n"] += 1
        if calls["n"] == 2:
            raise KeyboardInterrupt

    monkeypatch.setattr(RunFolder, "append", interrupted_append)
    with pytest.raises(RunInterrupted, match="resume") as info:
        run(H2H, tmp_path / "run", n_jobs=1, batch_size=3)
    assert info.value.finished == 6 and info.value.total == H2H.total_games
    assert isinstance(info.value, KeyboardInterrupt)
    assert len(load_records(tmp_path / "run")) == 6
    monkeypatch.setattr(RunFolder, "append", append)
    result = run(H2H, tmp_path / "run", n_jobs=1, batch_size=3)
    assert result.resumed == 6 and result.played == H2H.total_games - 6
    assert _stripped(result.records) == _stripped(reference[H2H])


def test_a_folder_of_another_config_is_refused(tmp_path):
    small = RunConfig(specs=("greedy", "random"), deals=1, seed=1)
    run(small, tmp_path / "run")
    other = RunConfig(specs=("greedy", "random"), deals=2, seed=4)
    with pytest.raises(ArenaError, match="different config") as info:
        run(other, tmp_path / "run")
    assert "deals: 1 there, 2 here" in str(info.value) and "seed: 1 there, 4 here" in str(info.value)
    assert "specs" not in str(info.value)
    # a folder with games but no config, and a game that is not part of the run
    (tmp_path / "loose").mkdir()
    (tmp_path / "loose" / "games.jsonl").write_text('{"game_id": "0-0-0"}\n')
    with pytest.raises(ArenaError, match="no config.json"):
        run(small, tmp_path / "loose")
    lines = (tmp_path / "run" / "games.jsonl").read_text().splitlines()
    outside = {**json.loads(lines[0]), "game_id": "7-0-0", "deal": 7}
    with open(tmp_path / "run" / "games.jsonl", "a") as fh:
        fh.write(json.dumps(outside) + "\n")
    with pytest.raises(ArenaError, match="line 3 .*not a game of this run"):
        run(small, tmp_path / "run")
    # a record missing its fields, and a damaged game id of any JSON type, are named
    bad = json.dumps({"game_id": "7-0-0", "deal": 7, "pairing": 0, "rotation": 0})
    (tmp_path / "run" / "games.jsonl").write_text("\n".join(lines + [bad]) + "\n")
    with pytest.raises(ArenaError, match="line 3 .*is not a game record: no seed, seats"):
        run(small, tmp_path / "run")
    for damaged in ([7, 0, 0], {"deal": 7}, None):
        bad = json.dumps({**json.loads(lines[0]), "game_id": damaged})
        (tmp_path / "run" / "games.jsonl").write_text("\n".join(lines + [bad]) + "\n")
        with pytest.raises(ArenaError, match="line 3: game_id must be the text DEAL-PAIRING-ROTATION"):
            run(small, tmp_path / "run")
    (tmp_path / "run" / "games.jsonl").write_text("not json\n{}\n")
    with pytest.raises(ArenaError, match="line 1"):
        run(small, tmp_path / "run")


class FirstDeals:
    """A stopping rule: stop once deals 0 .. deals - 1 have all their games (in deal order,
    as the SPRT of glory_ai.analysis.stats counts them)."""

    def __init__(self, deals, games_per_deal):
        self.deals, self.games_per_deal = deals, games_per_deal
        self.seen = {}
        self.calls = 0

    def add(self, records):
        self.calls += 1
        for r in records:
            self.seen[r["deal"]] = self.seen.get(r["deal"], 0) + 1
        return all(self.seen.get(d, 0) == self.games_per_deal for d in range(self.deals))

    def to_dict(self):
        return {"deals": self.deals, "games": sum(self.seen.values())}


def test_a_stopping_rule_ends_the_run_and_a_stopped_run_resumes_to_nothing(tmp_path):
    config = RunConfig(specs=("greedy", "random"), deals=60, seed=3)
    rule = FirstDeals(4, config.games_per_deal)
    result = run(config, tmp_path / "run", n_jobs=1, batch_size=2, stop=rule)
    assert result.stopped and result.complete and result.stop == rule.to_dict()
    # it stopped at the first batch that completed deal 3: a batch of 2 is one deal here
    assert [r["game_id"] for r in result.records] == config.game_ids()[:8]
    assert len(load_records(tmp_path / "run")) == 8
    again = run(config, tmp_path / "run", stop=FirstDeals(4, config.games_per_deal))
    assert again.played == 0 and again.stopped and len(again.records) == 8
    # without the rule the same folder resumes to the end
    rest = run(config, tmp_path / "run", n_jobs=1)
    assert rest.played == config.total_games - 8 and rest.complete and not rest.stopped


def test_a_config_with_an_sprt_needs_its_test(tmp_path):
    config = RunConfig(specs=("greedy", "random"), deals=10, sprt=(0, 50, 0.05, 0.05))
    with pytest.raises(ArenaError, match=r"stop=glory_ai.analysis.stats.DealSPRT"):
        run(config, tmp_path / "run")
    assert not (tmp_path / "run").exists()


def test_the_ray_backend_is_refused_pointing_to_dask():
    with pytest.raises(ArenaError, match=r"ray backend is no longer supported.*dask"):
        run(RunConfig(specs=("random", "greedy"), deals=1), backend="ray")


@pytest.mark.parametrize("options, message", [
    (dict(backend="mpi"), "unknown backend"),
    (dict(n_jobs=0), "n_jobs"),
    (dict(batch_size=0), "batch_size"),
    (dict(scheduler="tcp://127.0.0.1:1"), "scheduler"),
])
def test_bad_run_options(options, message):
    with pytest.raises(ArenaError, match=message):
        run(RunConfig(specs=("random", "greedy"), deals=1), **options)


def test_progress_bar_shows_the_leader(capsys):
    run(RunConfig(specs=("greedy", "random"), deals=3, seed=1), progress=True, batch_size=2)
    err = capsys.readouterr().err
    assert "6/6" in err and "leader greedy" in err and "game/s" in err


def test_the_dask_backend_without_a_scheduler_says_what_to_give(monkeypatch):
    distributed = pytest.importorskip("distributed")

    def no_client():
        raise ValueError("No clients found")

    monkeypatch.setattr(distributed, "default_client", no_client)
    with pytest.raises(ArenaError, match="--scheduler"):
        runner_module.run(RunConfig(specs=("random", "greedy"), deals=1), backend="dask")


def test_reading_a_folder_skips_a_truncated_line_without_changing_the_file(tmp_path, caplog):
    from glory_ai.arena import load_run
    from glory_ai.arena.play import encode_record

    run(H2H, tmp_path / "run", batch_size=5)
    games = tmp_path / "run" / "games.jsonl"
    lines = games.read_text().splitlines(keepends=True)
    assert lines[0] == encode_record(json.loads(lines[0])) + "\n"
    # compact standard JSON (written by orjson; the standard library reads it alike)
    assert json.loads(lines[0]) == orjson.loads(lines[0]) and '", "' not in lines[0]
    write_config_records(tmp_path / "run", None)      # a run killed while writing game 4
    games.write_text("".join(lines[:3]) + lines[3][:40])
    size = games.stat().st_size
    with caplog.at_level(logging.WARNING, logger="glory_ai.arena"):
        config, records = load_run(tmp_path / "run")
    assert config == H2H and len(records) == 3 and "truncated" in caplog.text
    assert games.stat().st_size == size


def test_compressed_records_read_alike_and_damage_is_named(tmp_path):
    # a finished experiment run keeps games.jsonl.gz only: read as the plain file is
    import gzip

    from glory_ai.arena import load_records

    run(H2H, tmp_path / "run", batch_size=5)
    plain = tmp_path / "run" / "games.jsonl"
    packed = tmp_path / "packed"
    packed.mkdir()
    raw = plain.read_bytes()
    with gzip.open(packed / "games.jsonl.gz", "wb") as fh:
        fh.write(raw)
    assert load_records(packed) == load_records(tmp_path / "run")
    lines = raw.split(b"\n")
    for damage, message in ((b"\xff\xfe not text", "is not valid JSON"),
                            (b'{"game_id": ', "is not valid JSON"),
                            (b"[1, 2]", r"is not a game record \(a JSON list, not an object\)")):
        with gzip.open(packed / "games.jsonl.gz", "wb") as fh:
            fh.write(b"\n".join([lines[0], damage] + lines[1:]))
        with pytest.raises(ArenaError, match=r"games.jsonl.gz: line 2 " + message):
            load_records(packed)
    (packed / "games.jsonl.gz").write_bytes(b"not gzip")
    with pytest.raises(ArenaError, match="not a readable gzip file"):
        load_records(packed)


def test_a_worker_that_fails_is_one_line_and_the_finished_games_stay(tmp_path, monkeypatch):
    from glory_ai.arena import play as play_module

    calls = {"n": 0}
    real = play_module.play_batch_encoded

    def failing(tasks):
        calls["n"] += 1
        if calls["n"] == 3:
            raise RuntimeError("the bot fell over\nat decision 12")
        return real(tasks)

    monkeypatch.setattr(runner_module, "play_batch_encoded", failing)
    with pytest.raises(ArenaError) as info:
        run(H2H, tmp_path / "run", n_jobs=1, batch_size=2)
    message = str(info.value)
    assert "\n" not in message and "a game failed in a worker: RuntimeError: the bot fell over" in message
    assert "the 4 finished games are kept" in message
    monkeypatch.setattr(runner_module, "play_batch_encoded", real)
    assert run(H2H, tmp_path / "run").resumed == 4


def test_a_run_into_a_folder_keeps_no_record_in_memory(tmp_path):
    result = run(H2H, tmp_path / "run", n_jobs=1)
    assert result.kept is None and result.games == H2H.total_games
    assert len(result.records) == H2H.total_games            # read back when asked for
