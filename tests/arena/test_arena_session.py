"""A run's life in one place (glory_ai.arena.Session): the folder moved aside when asked, held
by one process, SIGTERM an interrupt, the code check, the stopping rule, and nothing left
behind by a session that wrote nothing."""
from __future__ import annotations

import os
import signal

import pytest

from glory_ai.arena import ArenaError, RunConfig, Session, load_records, run, strip_timing
from glory_ai.arena.lock import FolderLocked, holder
from glory_ai.arena.runner import Terminated
from glory_ai.bots import identity

DUEL = RunConfig(specs=("greedy", "random"), deals=3, seed=4)
SPRT = RunConfig(specs=("greedy", "random"), deals=40, seed=4, sprt=(0.0, 50.0, 0.05, 0.05))


def test_it_plays_as_run_does_and_holds_the_folder_meanwhile(tmp_path):
    out = tmp_path / "new" / "duel"
    with Session(out, n_jobs=1, batch_size=2, progress=False) as session:
        assert session.held and holder(out)["pid"] == os.getpid()
        with pytest.raises(FolderLocked, match="is being written by process"):
            Session(out).__enter__()
        assert session.check(DUEL) is None
        result = session.play(DUEL)
        assert (result.played, result.batch_size) == (DUEL.total_games, 2)
        assert session.check(DUEL) == DUEL.total_games
        under = session.play(DUEL, out / "again")
    assert not session.held
    assert [strip_timing(r) for r in under.records] == [strip_timing(r) for r in run(DUEL).records]
    assert [strip_timing(r) for r in load_records(out)] == [strip_timing(r) for r in under.records]
    with Session(out) as session:                # given up on leaving: resumed, nothing played
        assert session.play(DUEL).resumed == DUEL.total_games


def test_fresh_moves_the_folder_aside_and_says_so(tmp_path):
    out = tmp_path / "duel"
    run(DUEL, out)
    told = []
    with Session(out, fresh=True, on_aside=lambda moved, fresh: told.append((moved, fresh))) as session:
        assert session.moved == tmp_path / "duel.old-1" and session.check(DUEL) is None
    assert told == [(tmp_path / "duel.old-1", True)]
    assert len(load_records(tmp_path / "duel.old-1")) == DUEL.total_games
    with Session(tmp_path / "nothing", fresh=True, on_aside=told.append) as session:
        assert session.moved is None                # nothing there, nothing moved or said
    assert len(told) == 1


def test_renew_starts_over_only_a_folder_of_other_code(tmp_path, monkeypatch):
    out = tmp_path / "duel"
    run(DUEL, out)
    told = []
    with Session(out, renew=DUEL, on_aside=lambda moved, fresh: told.append(fresh)) as session:
        assert session.moved is None and session.check(DUEL) == DUEL.total_games
    changed = dict(identity.package_identity(), build="0" * 64)
    monkeypatch.setattr(identity, "package_identity", lambda: changed)
    with Session(out) as session, pytest.raises(ArenaError, match="holds games played by other code"):
        session.check(DUEL)                         # refused where renew was not asked for
    with Session(out, renew=DUEL, on_aside=lambda moved, fresh: told.append(fresh)) as session:
        assert session.moved == tmp_path / "duel.old-1" and session.play(DUEL).resumed == 0
    assert told == [False]


def test_a_session_that_wrote_nothing_leaves_no_folder(tmp_path):
    out = tmp_path / "a" / "b"
    with pytest.raises(RuntimeError, match="failed early"), Session(out):
        assert out.is_dir()
        raise RuntimeError("failed early")
    assert not (tmp_path / "a").exists()
    with pytest.raises(KeyboardInterrupt), Session(out) as session:
        (session.out / "notes.txt").write_text("kept")
        raise KeyboardInterrupt
    assert (out / "notes.txt").exists()
    with Session(out):                              # a session that ends well keeps its folder
        pass
    (out / "notes.txt").unlink()
    assert out.is_dir()


def test_refusals_are_arena_errors_or_misuse(tmp_path):
    plain = tmp_path / "file"
    plain.write_text("x")
    with pytest.raises(ArenaError, match="exists and is not a folder"):
        Session(plain).__enter__()
    session = Session(tmp_path / "duel")
    with pytest.raises(RuntimeError, match="inside its `with` block"):
        session.play(DUEL)
    with session, pytest.raises(RuntimeError, match="entered already"):
        session.__enter__()
    run(DUEL, tmp_path / "other")
    with Session(tmp_path / "other") as session, \
            pytest.raises(ArenaError, match="holds a run of a different config"):
        session.play(RunConfig(specs=("greedy", "random"), deals=3, seed=5))


def test_the_stopping_rule_is_given_or_made_for_an_sprt(tmp_path):
    made = []

    class Stop:
        def __init__(self, after: int) -> None:
            self.after, self.seen = after, 0

        def add(self, records):
            self.seen += len(records)
            return self.seen >= self.after

        def to_dict(self):
            return {"seen": self.seen}

    def sprt(config):
        made.append(config)
        return Stop(8)

    with Session(tmp_path, n_jobs=1, batch_size=4, sprt=sprt) as session:
        first = session.play(SPRT, tmp_path / "sprt")
        given = session.play(SPRT, tmp_path / "given", stop=Stop(4))
        plain = session.play(DUEL, tmp_path / "plain")
    assert made == [SPRT]
    assert (first.stopped, first.games, given.games, given.stop) == (True, 8, 4, {"seen": 4})
    assert not plain.stopped and plain.stop is None
    with Session(tmp_path) as session, pytest.raises(ArenaError, match="stops by an SPRT"):
        session.play(SPRT, tmp_path / "none")       # no rule and no sprt: refused by run()


def test_sigterm_in_a_session_is_an_interrupt_and_then_the_default_again(tmp_path):
    if signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
        pytest.skip("this test process handles SIGTERM itself: a session leaves it so")
    with pytest.raises(Terminated), Session(tmp_path / "x"):
        assert signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL
        os.kill(os.getpid(), signal.SIGTERM)
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
    assert not (tmp_path / "x").exists()
