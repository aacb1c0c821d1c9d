"""The damage campaign: a finished run damaged in every way a disk, a kill, an editor or a
careless copy damages one, then mended by the recovery the tool itself suggests; the games
then counted. Each case asserts:

* `glory-ai verify` names the damage: not verified, every problem one line naming the
  folder's file (and the line, for a record);
* every reader refuses the damage in one line, or reads only sound records;
* the suggested recovery -- `glory-ai verify DIR --repair`, or putting back the file a
  message names -- ends in a verified folder that holds every game of the run, each as it
  was played (timing aside): 0 good games lost;
* what the repair removed is in quarantine.jsonl (each entry with its reason, file and
  line), byte for byte; no damaged record is left with a checksum stamped over it.

Small runs of random and greedy bots keep the whole campaign to seconds per case.
"""
from __future__ import annotations

import gzip
import json
import random
import shutil
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import orjson
import pytest

from glory_ai.analysis import AnalysisError
from glory_ai.analysis.load import load_runs
from glory_ai.arena import ArenaError, load_records, run, strip_timing
from glory_ai.arena.quarantine import read_quarantine
from glory_ai.arena.storage import compress_run, read_records
from glory_ai.cli import main
from support.faults import EXPERIMENT, SMALL

GAMES = SMALL.total_games


@dataclass
class Damage:
    """What a case did: the damaged bytes that must end in the quarantine file (lines that
    still hold text), and how the folder is to be mended."""

    recovery: str = "repair"            # "repair", "restore" (a file put back), "rerun", "none"
    set_aside: list[bytes] = field(default_factory=list)
    copy: bool = False                  # what is set aside is a second copy of a kept line
    restore: dict[str, bytes] = field(default_factory=dict)


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    """A finished plain run and a finished compressed run of SMALL, and their records."""
    root = tmp_path_factory.mktemp("campaign")
    plain = root / "plain"
    run(SMALL, plain, batch_size=4)
    packed = root / "packed"
    run(SMALL, packed, batch_size=4)
    compress_run(packed)
    reference = [strip_timing(r) for r in load_records(plain)]
    assert reference == [strip_timing(r) for r in load_records(packed)]
    return {"plain": plain, "packed": packed, "reference": reference}


# ---- damage to a plain games.jsonl ----------------------------------------------------------

def _records_file(folder: Path) -> Path:
    return folder / ("games.jsonl" if (folder / "games.jsonl").exists() else "games.jsonl.gz")


def _lines(folder: Path) -> list[bytes]:
    return (folder / "games.jsonl").read_bytes().split(b"\n")[:-1]


def _write_lines(folder: Path, lines: list[bytes]) -> None:
    (folder / "games.jsonl").write_bytes(b"".join(line + b"\n" for line in lines))


def _edit_line(folder: Path, index: int, edit: Callable[[dict], object]) -> Damage:
    lines = _lines(folder)
    record = orjson.loads(lines[index])
    edit(record)
    lines[index] = orjson.dumps(record)
    _write_lines(folder, lines)
    return Damage(set_aside=[lines[index]])


def _replace_in_line(folder: Path, index: int, old: bytes, new: bytes) -> Damage:
    lines = _lines(folder)
    assert old in lines[index], (old, lines[index][:200])
    lines[index] = lines[index].replace(old, new, 1)
    _write_lines(folder, lines)
    return Damage(set_aside=[lines[index]])


def bit_flip(seed: int) -> Callable[[Path], Damage]:
    def damage(folder: Path) -> Damage:
        data = bytearray((folder / "games.jsonl").read_bytes())
        generator = random.Random(seed)
        position = generator.randrange(len(data) - 1)
        data[position] ^= 1 << generator.randrange(8)
        (folder / "games.jsonl").write_bytes(bytes(data))
        return Damage()                 # where the flip lands decides what is set aside
    return damage


def flip_in_field(key: bytes, index: int, offset: int = 3, bit: int = 0) -> Callable[[Path], Damage]:
    """One bit flipped ``offset`` bytes into the value of ``key`` on line ``index``."""
    def damage(folder: Path) -> Damage:
        lines = _lines(folder)
        at = lines[index].index(b'"' + key + b'":') + len(key) + 3 + offset
        line = bytearray(lines[index])
        line[at] ^= 1 << bit
        lines[index] = bytes(line)
        _write_lines(folder, lines)
        return Damage(set_aside=[lines[index]])
    return damage


def rename(key: bytes, to: bytes, index: int = 4) -> Callable[[Path], Damage]:
    return lambda folder: _replace_in_line(folder, index, b'"' + key + b'":', b'"' + to + b'":')


def extra(where: bytes, text: bytes, index: int = 5) -> Callable[[Path], Damage]:
    """An extra field: ``text`` inserted after the first ``where`` of line ``index``."""
    return lambda folder: _replace_in_line(folder, index, where, where + text)


def edit(index: int, change: Callable[[dict], object]) -> Callable[[Path], Damage]:
    return lambda folder: _edit_line(folder, index, change)


def _set(**values: object) -> Callable[[dict], object]:
    return lambda record: record.update(values)


def truncate_at(fraction: float) -> Callable[[Path], Damage]:
    def damage(folder: Path) -> Damage:
        path = folder / "games.jsonl"
        data = path.read_bytes()
        cut = int(len(data) * fraction)
        path.write_bytes(data[:cut])
        tail = data[:cut].rsplit(b"\n", 1)[-1]
        return Damage(set_aside=[tail] if tail else [])
    return damage


def drop_line(index: int) -> Callable[[Path], Damage]:
    def damage(folder: Path) -> Damage:
        lines = _lines(folder)
        del lines[index]
        _write_lines(folder, lines)
        return Damage()
    return damage


def copy_line(index: int, retime: bool = False) -> Callable[[Path], Damage]:
    def damage(folder: Path) -> Damage:
        lines = _lines(folder)
        copy = lines[index]
        if retime:
            record = orjson.loads(copy)
            record["seconds"] = [s + 1.0 for s in record["seconds"]]
            record["seconds_per_decision"] = [round(s / m, 7) if m else 0.0 for s, m in
                                              zip(record["seconds"], record["seat_decisions"], strict=True)]
            copy = orjson.dumps(record)
        _write_lines(folder, [*lines, copy])
        return Damage(set_aside=[copy], copy=not retime)
    return damage


def join_lines(index: int) -> Callable[[Path], Damage]:
    """The newline between two records flipped into another byte: two games on one line."""
    def damage(folder: Path) -> Damage:
        lines = _lines(folder)
        joined = lines[index] + b"\x0b" + lines[index + 1]
        _write_lines(folder, [*lines[:index], joined, *lines[index + 2:]])
        return Damage(set_aside=[joined])
    return damage


def foreign_record(folder: Path) -> Damage:
    """A record of another run (another seed) appended."""
    other = run(SMALL.__class__(specs=SMALL.specs, deals=1, seed=99)).records[0]
    line = orjson.dumps(other)
    _write_lines(folder, [*_lines(folder), line])
    return Damage(set_aside=[line])


def emptied(folder: Path) -> Damage:
    (folder / "games.jsonl").write_bytes(b"")
    return Damage()


def garbage_line(folder: Path) -> Damage:
    line = b"\x00\xff\xfe garbage \x80"
    lines = _lines(folder)
    _write_lines(folder, [*lines[:3], line, *lines[3:]])
    return Damage(set_aside=[line])


# ---- damage to the files beside the records --------------------------------------------------

def edit_config(change: Callable[[dict], object], rehash: bool = False) -> Callable[[Path], Damage]:
    """config.json edited (its plan: ``change`` on its ``config``); ``rehash``: the editor
    also wrote the plan's new checksum (code.json still disagrees)."""
    def damage(folder: Path) -> Damage:
        path = folder / "config.json"
        original = path.read_bytes()
        data = json.loads(original)
        change(data["config"])
        if rehash:
            from glory_ai.arena.integrity import plan_sha256

            data["plan_sha256"] = plan_sha256(data)
        path.write_text(json.dumps(data, indent=2) + "\n")
        return Damage(recovery="restore", restore={"config.json": original})
    return damage


def edit_code(folder: Path) -> Damage:
    path = folder / "code.json"
    data = json.loads(path.read_text())
    data["parameters"] = {"greedy": {"edited": True}}
    path.write_text(json.dumps(data, indent=2) + "\n")
    return Damage(recovery="rerun")


def unreadable_config(folder: Path) -> Damage:
    path = folder / "config.json"
    text = path.read_bytes()
    path.write_bytes(text.replace(b"{", b"[", 1))            # a bit flip: 0x7b -> 0x5b
    return Damage(recovery="repair")


def config_checksum_flipped(folder: Path) -> Damage:
    path = folder / "config.json"
    data = json.loads(path.read_text())
    digits = data["records"]["sha256_sum"]
    data["records"]["sha256_sum"] = ("1" if digits[0] != "1" else "2") + digits[1:]
    path.write_text(json.dumps(data, indent=2) + "\n")
    return Damage()


def sums_flipped(folder: Path) -> Damage:
    path = folder / "games.sums"
    data = bytearray(path.read_bytes())
    data[16 + 8 * 5 + 2] ^= 0x10
    path.write_bytes(bytes(data))
    return Damage()


def sums_removed(folder: Path) -> Damage:
    (folder / "games.sums").unlink()
    return Damage(recovery="none")


# ---- damage to a games.jsonl.gz --------------------------------------------------------------

def _archive(folder: Path) -> Path:
    return folder / "games.jsonl.gz"


def archive_flip(offset: Callable[[int], int], bit: int = 0) -> Callable[[Path], Damage]:
    def damage(folder: Path) -> Damage:
        data = bytearray(_archive(folder).read_bytes())
        data[offset(len(data))] ^= 1 << bit
        _archive(folder).write_bytes(bytes(data))
        return Damage()
    return damage


def archive_cut(keep: Callable[[int], int]) -> Callable[[Path], Damage]:
    def damage(folder: Path) -> Damage:
        data = _archive(folder).read_bytes()
        _archive(folder).write_bytes(data[:keep(len(data))])
        return Damage()
    return damage


def archive_append(tail: bytes) -> Callable[[Path], Damage]:
    def damage(folder: Path) -> Damage:
        with open(_archive(folder), "ab") as fh:
            fh.write(tail)
        return Damage(recovery="none" if not tail.strip(b"\0") else "repair")
    return damage


def archive_second_member(folder: Path) -> Damage:
    """A second gzip member holding a copy of a record (two writers before the lock)."""
    with gzip.open(_archive(folder), "rb") as fh:
        first = fh.read().split(b"\n")[2]
    with open(_archive(folder), "ab") as fh:
        fh.write(gzip.compress(first + b"\n", mtime=0))
    return Damage(set_aside=[first], copy=True)


def archive_garbage(folder: Path) -> Damage:
    _archive(folder).write_bytes(random.Random(3).randbytes(4000))
    return Damage()


def archive_record_damaged(folder: Path) -> Damage:
    """A record changed inside a well-formed archive (recompressed around it)."""
    with gzip.open(_archive(folder), "rb") as fh:
        lines = fh.read().split(b"\n")[:-1]
    lines[7] = lines[7].replace(b'"structures":', b'"structurez":')
    _archive(folder).write_bytes(gzip.compress(b"".join(x + b"\n" for x in lines), mtime=0))
    return Damage(set_aside=[lines[7]])


def _zlib_breaking_offset(folder: Path) -> int:
    data = _archive(folder).read_bytes()
    for position in range(len(data) // 2, len(data) - 8):
        damaged = bytearray(data)
        damaged[position] ^= 0x01
        try:
            zlib.decompress(bytes(damaged[10:]), -zlib.MAX_WBITS)
        except zlib.error:
            return position
    raise AssertionError("no flip breaks the deflate stream")


def archive_deflate_broken(folder: Path) -> Damage:
    position = _zlib_breaking_offset(folder)
    data = bytearray(_archive(folder).read_bytes())
    data[position] ^= 0x01
    _archive(folder).write_bytes(bytes(data))
    return Damage()


# ---- the cases --------------------------------------------------------------------------------

PLAIN: dict[str, Callable[[Path], Damage]] = {
    **{f"bit-flip-{seed}": bit_flip(seed) for seed in range(12)},
    "flip-in-seconds": flip_in_field(b"seconds", 2, offset=4),
    "flip-in-version": flip_in_field(b"version", 3, offset=1, bit=2),
    "flip-in-an-action": flip_in_field(b"actions", 6, offset=5, bit=1),
    "flip-in-seed": flip_in_field(b"seed", 1, offset=4, bit=0),
    "flip-in-bot-seeds": flip_in_field(b"bot_seeds", 8, offset=6, bit=0),
    "flip-in-turns": flip_in_field(b"turns", 9, offset=0, bit=0),
    "flip-in-a-building": flip_in_field(b"structures", 10, offset=18, bit=1),
    "flip-in-roles-led": flip_in_field(b"roles_led", 11, offset=5, bit=3),
    "rename-roles-led": rename(b"roles_led", b"roles_lex"),
    "rename-structures": rename(b"structures", b"structurez"),
    "rename-seconds": rename(b"seconds", b"secondz"),
    "rename-actions": rename(b"actions", b"actionz"),
    "rename-vault-inside-vp": rename(b"vault", b"vaulu"),
    "rename-complete-inside-structures": rename(b"complete", b"compleet"),
    "extra-field": extra(b'{"record_version":1,', b'"note":"x",'),
    "extra-field-inside-vp": extra(b'"vp":[{', b'"bonus":0,'),
    "extra-field-inside-structures": extra(b'"structures":[{', b'"ruins":[],'),
    "edited-scores": edit(3, lambda r: r.update(scores=[s + 1 for s in r["scores"]])),
    "edited-winner-and-returns": edit(5, lambda r: r.update(
        winners=[1 - r["winners"][0]], returns=[1.0 - x for x in r["returns"]])),
    "edited-seed": edit(2, lambda r: r.update(seed=r["seed"] + 1)),
    "swapped-seats": edit(4, lambda r: r.update(seats=r["seats"][::-1])),
    "edited-mode": edit(6, _set(mode="imperium")),
    "edited-variant": edit(7, lambda r: r["variant"].update(refill_size=6)),
    "edited-turns": edit(8, lambda r: r.update(turns=r["turns"] + 1)),
    "game-id-of-another-game": edit(9, _set(game_id="0-0-0", deal=0, rotation=0)),
    "truncated-last-line": truncate_at(0.97),
    "truncated-at-half": truncate_at(0.5),
    "emptied": emptied,
    "a-line-removed": drop_line(6),
    "a-line-copied": copy_line(3),
    "a-line-copied-with-other-timing": copy_line(5, retime=True),
    "two-lines-joined": join_lines(2),
    "a-record-of-another-run": foreign_record,
    "a-garbage-line": garbage_line,
    "config-deals-100-to-50": edit_config(lambda c: c.update(deals=3)),
    "config-seed-edited": edit_config(lambda c: c.update(seed=12)),
    "config-specs-edited": edit_config(lambda c: c.update(specs=["random", "greedy"])),
    "config-rotation-edited": edit_config(lambda c: c.update(rotate=False)),
    "config-edited-and-rehashed": edit_config(lambda c: c.update(deals=3), rehash=True),
    "config-unreadable": unreadable_config,
    "config-records-checksum-flipped": config_checksum_flipped,
    "code-json-edited": edit_code,
    "games-sums-flipped": sums_flipped,
    "games-sums-removed": sums_removed,
}

PACKED: dict[str, Callable[[Path], Damage]] = {
    "gz-header-magic": archive_flip(lambda n: 1),
    "gz-header-flags": archive_flip(lambda n: 3, bit=3),
    "gz-header-method": archive_flip(lambda n: 2, bit=1),
    "gz-deflate-broken": archive_deflate_broken,
    **{f"gz-deflate-flip-{k}": archive_flip(lambda n, k=k: 10 + (n - 18) * k // 6, bit=k % 8)
       for k in range(1, 6)},
    "gz-crc": archive_flip(lambda n: n - 7),
    "gz-size": archive_flip(lambda n: n - 2),
    "gz-truncated-at-half": archive_cut(lambda n: n // 2),
    "gz-truncated-in-trailer": archive_cut(lambda n: n - 4),
    "gz-truncated-to-header": archive_cut(lambda n: 10),
    "gz-trailing-bytes": archive_append(b"trailing junk\n"),
    "gz-trailing-zeros": archive_append(b"\0" * 64),
    "gz-second-member-repeat": archive_second_member,
    "gz-replaced-by-garbage": archive_garbage,
    "gz-record-renamed-key": archive_record_damaged,
}


def _problems(capsys, folder: Path) -> tuple[int, list[str]]:
    code = main(["verify", str(folder)])
    out = capsys.readouterr().out
    return code, [line[len("problem: "):] for line in out.splitlines() if line.startswith("problem: ")]


def _campaign(case: str, damage: Callable[[Path], Damage], source: Path, reference: list[dict],
              tmp_path: Path, capsys) -> None:
    folder = tmp_path / "run"
    shutil.copytree(source, folder)
    what = damage(folder)

    # verify names the damage, one line each, naming the file (and the line of a record)
    code, problems = _problems(capsys, folder)
    if what.recovery == "none":
        assert code == 0, problems
    else:
        assert code == 1 and problems, case
        for problem in problems:
            assert "\n" not in problem and str(folder) in problem, problem
        if what.set_aside:
            assert any("line " in p for p in problems), problems

    # every reader refuses it in one line, or reads only sound records
    for read in (load_records, lambda f: read_records(f, skip=("actions",))):
        try:
            records = read(folder)
        except ArenaError as exc:
            assert "\n" not in str(exc) and str(folder) in str(exc), str(exc)
        else:
            sound = [{k: v for k, v in r.items() if k != "actions"} for r in reference]
            for record in records:
                assert strip_timing({k: v for k, v in record.items() if k != "actions"}) in sound, case

    # the analysis (its columns, games.parquet, made from the records) refuses it in one line,
    # or reads every game once; a columns file it leaves is no damage to verify or repair
    try:
        frame = load_runs([folder], columns=["game_id"])
    except AnalysisError as exc:
        assert "\n" not in str(exc) and str(folder) in str(exc), str(exc)
    else:
        assert sorted(set(frame["game_id"].astype(str))) == sorted(r["game_id"] for r in reference), case
        assert (folder / "games.parquet").exists()

    # the recovery the messages name
    if what.recovery == "restore":
        assert any("put it back as it was" in p and "config.json" in p for p in problems), problems
        assert main(["verify", str(folder), "--repair"]) == 1          # repair refuses it
        out = capsys.readouterr().out
        assert "not repaired:" in out and not (folder / "quarantine.jsonl").exists()
        for name, data in what.restore.items():
            (folder / name).write_bytes(data)
    elif what.recovery == "rerun":
        assert any("run the command that wrote the folder again" in p for p in problems), problems
        run(SMALL, folder)
    elif what.recovery == "repair":
        assert main(["verify", str(folder), "--repair"]) == 0, capsys.readouterr().out
        out = capsys.readouterr().out
        assert out.rstrip().splitlines()[-1].startswith("verified: 1 run, 12 games"), out
    assert main(["verify", str(folder)]) == 0, capsys.readouterr().out
    capsys.readouterr()

    # the good games: every game of the run, as played (and the analysis reads them all)
    records = load_records(folder)
    assert [strip_timing(r) for r in records] == reference, case
    good = len(records)
    assert good == GAMES
    assert load_runs([folder], columns=["game_id"])["game_id"].nunique() == GAMES

    # what the repair removed is in quarantine.jsonl, each entry with its reason, file, line
    entries = list(read_quarantine(folder))
    for entry in entries:
        assert entry["reason"] and entry["file"] and isinstance(entry["line"], int), entry
        assert "\n" not in entry["reason"]
    kept = [line for line in (_records_text(folder)).split(b"\n") if line]
    assert len(kept) == GAMES                           # each game once
    for damaged in what.set_aside:
        assert any(e["data"] == damaged for e in entries), (case, damaged[:80])
        assert what.copy or damaged not in kept         # not re-stamped into the records


def _records_text(folder: Path) -> bytes:
    path = _records_file(folder)
    return gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()


def test_the_campaign_has_fifty_cases_and_more():
    assert len(PLAIN) + len(PACKED) >= 50


@pytest.mark.parametrize("case", list(PLAIN))
def test_a_damaged_run_folder_loses_no_good_game(case, template, tmp_path, capsys):
    _campaign(case, PLAIN[case], template["plain"], template["reference"], tmp_path, capsys)


@pytest.mark.parametrize("case", list(PACKED))
def test_a_damaged_archive_gives_back_what_it_holds(case, template, tmp_path, capsys):
    _campaign(case, PACKED[case], template["packed"], template["reference"], tmp_path, capsys)
    assert (tmp_path / "run" / "games.jsonl.gz").exists()       # compressed again


# ---- an experiment's results folder ------------------------------------------------------------



@pytest.fixture(scope="module")
def experiment(tmp_path_factory):
    from glory_ai.experiments import run_experiment

    root = tmp_path_factory.mktemp("experiment")
    (root / "duel.toml").write_text(EXPERIMENT)
    folder = run_experiment(root / "duel.toml", root / "results", log=lambda *a: None, progress=False)
    return folder, [strip_timing(r) for r in load_records(folder / "runs" / "duel")]


@pytest.mark.parametrize("case", ["gz-truncated-at-half", "gz-record-renamed-key", "gz-crc"])
def test_a_damaged_experiment_is_resumed_by_its_repair(case, experiment, tmp_path, capsys):
    source, reference = experiment
    folder = tmp_path / "results"
    shutil.copytree(source, folder)
    run_folder = folder / "runs" / "duel"
    PACKED[case](run_folder)
    code, problems = _problems(capsys, folder)
    assert code == 1 and all("\n" not in p and str(folder) in p for p in problems), problems
    assert main(["verify", str(folder), "--repair"]) == 0, capsys.readouterr().out
    out = capsys.readouterr().out
    assert "the experiment resumed" in out
    assert out.rstrip().splitlines()[-1].startswith("verified: 1 run, 10 games")
    assert [strip_timing(r) for r in load_records(run_folder)] == reference
    assert (run_folder / "games.jsonl.gz").exists() and list(read_quarantine(run_folder))
    manifest = json.loads((folder / "manifest.json").read_text())
    assert manifest["runs"][0]["records"] == json.loads((run_folder / "config.json").read_text())["records"]


def test_an_edited_experiment_run_config_is_refused_naming_it(experiment, tmp_path, capsys):
    source, reference = experiment
    folder = tmp_path / "results"
    shutil.copytree(source, folder)
    config = folder / "runs" / "duel" / "config.json"
    original = config.read_text()
    config.write_text(original.replace('"deals": 5', '"deals": 3'))
    code, problems = _problems(capsys, folder)
    assert code == 1 and any("config.json" in p and "deals: 3 there, 5 in experiment.toml" in p
                             for p in problems), problems
    assert main(["verify", str(folder), "--repair"]) == 1
    assert "not repaired:" in capsys.readouterr().out
    assert not (folder / "runs" / "duel" / "quarantine.jsonl").exists()
    config.write_text(original)
    assert main(["verify", str(folder)]) == 0
    assert [strip_timing(r) for r in load_records(folder / "runs" / "duel")] == reference
