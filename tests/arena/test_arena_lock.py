"""One writer per run folder: the lock names its holder, dies with it, and is refused cleanly."""
import os
import signal
import subprocess
import sys
import textwrap

import pytest

from glory_ai.arena.lock import LOCK_FILE, FolderLock, FolderLocked, holder
from glory_ai.arena.plan import ArenaError

HOLD = textwrap.dedent("""
    import sys, time
    from glory_ai.arena.lock import FolderLock
    lock = FolderLock(sys.argv[1], command="glory-ai compare greedy random --out X").acquire()
    print("held", flush=True)
    time.sleep(60)
""")


def _holding_process(folder):
    process = subprocess.Popen([sys.executable, "-c", HOLD, str(folder)], stdout=subprocess.PIPE, text=True)
    assert process.stdout.readline().strip() == "held"
    return process


def test_a_second_writer_is_refused_naming_the_first(tmp_path):
    process = _holding_process(tmp_path)
    try:
        with pytest.raises(FolderLocked) as refusal:
            FolderLock(tmp_path).acquire()
        message = str(refusal.value)
        assert f"process {process.pid}" in message
        assert "glory-ai compare greedy random --out X" in message
        assert "\n" not in message
        assert holder(tmp_path)["pid"] == process.pid
    finally:
        process.kill()
        process.wait()


def test_the_lock_of_a_killed_process_is_taken_over_at_once(tmp_path):
    process = _holding_process(tmp_path)
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    # the lock file and its note of the dead holder stay behind; neither blocks
    assert (tmp_path / LOCK_FILE).exists() and holder(tmp_path)["pid"] == process.pid
    with FolderLock(tmp_path, command="resume") as lock:
        assert lock.held
        assert holder(tmp_path) == {**holder(tmp_path), "pid": os.getpid(), "command": "resume"}


def test_released_on_leaving_the_block_and_on_an_exception(tmp_path):
    with FolderLock(tmp_path):
        with pytest.raises(FolderLocked):
            FolderLock(tmp_path).acquire()
    with pytest.raises(RuntimeError):
        with FolderLock(tmp_path):
            raise RuntimeError("a run that failed")
    FolderLock(tmp_path).acquire().release()


def test_a_folder_that_cannot_hold_a_lock_is_an_arena_error(tmp_path):
    missing = tmp_path / "no" / "such" / "folder"
    with pytest.raises(ArenaError, match="cannot create the run folder's lock file"):
        FolderLock(missing).acquire()
    if os.geteuid() != 0:                       # root writes anywhere
        tmp_path.chmod(0o500)
        try:
            with pytest.raises(ArenaError, match=str(tmp_path)):
                FolderLock(tmp_path).acquire()
        finally:
            tmp_path.chmod(0o700)


def test_a_damaged_note_of_the_holder_is_no_obstacle(tmp_path):
    (tmp_path / LOCK_FILE).write_bytes(b"\xff\x00 not json")
    assert holder(tmp_path) is None
    with FolderLock(tmp_path):
        assert holder(tmp_path)["pid"] == os.getpid()
