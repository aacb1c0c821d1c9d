"""The bot host: a process of its own in which a user's bot plays, away from the game.

``python -m glory_ai.bots.host READ_FD WRITE_FD [MEMORY_MB]`` is started by the worker that
plays the game (:mod:`glory_ai.arena.hosted`), one host per seat, a fresh interpreter (never a
fork of a process that holds a game). The host never holds the true state: for every
decision it is sent the fair view of its player (the hidden cards dealt again, as
:func:`glory_ai.bots._fairplay.fair_view` makes it) and answers an action. So a bot that
searches its own address space (``gc.get_objects()``, its callers' frames) finds the view
and nothing else.

The protocol is one round trip per call, each message a 5-byte header (a kind byte, the
payload's length as a little-endian uint32) and its payload:

* ``B`` build (worker to host: a pickle of spec, seed, shipped bots, game config, sys.path);
  answered ``K`` with one byte, 1 if the bot wants ``observe`` calls;
* ``S`` step (the view's raw bytes); answered ``A`` with the action (uint32);
* ``N`` new game (the player, one byte, then the view) and ``O`` observe (actor, one byte,
  and the action, int32, -1 for a card the player did not see, then the view); answered
  ``K``;
* any call may be answered ``E``: ``reason``, NUL, one-line message, NUL, seat or empty
  (plain text: the worker never unpickles what a host sends).

The host ignores SIGINT (a Ctrl-C is the user's, handled by the worker, which stops the
host); a ``KeyboardInterrupt`` raised by the bot itself is the bot's failure. It dies with
its parent (PR_SET_PDEATHSIG on Linux, else a watch on the parent's pid).
"""
from __future__ import annotations

import os
import pickle
import signal
import struct
import sys
import threading
import time
from typing import Any

__all__ = ["HEADER", "main"]

#: kind byte, payload length
HEADER = struct.Struct("<cI")
_ACTION = struct.Struct("<I")
_OBSERVE = struct.Struct("<Bi")
_PR_SET_PDEATHSIG = 1


def _read_exactly(fd: int, size: int) -> bytes:
    data = os.read(fd, size)
    while len(data) < size:
        more = os.read(fd, size - len(data))
        if not more:
            raise EOFError
        data += more
    return data


def _send(fd: int, kind: bytes, payload: bytes = b"") -> None:
    message = HEADER.pack(kind, len(payload)) + payload
    while message:
        message = message[os.write(fd, message):]


def _die_with_parent(parent: int) -> None:
    # a host whose worker is gone (killed, Ctrl-C) must not outlive it, least of all in a loop
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL) == 0:
            if os.getppid() != parent:          # the parent died before the prctl
                os._exit(1)
            return
    except (OSError, AttributeError):
        pass

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.2)
        os._exit(1)

    threading.Thread(target=watch, name="glory-ai-host-watch", daemon=True).start()


def _error(reason: str, message: str, seat: int | None = None) -> bytes:
    text = f"{reason}\0{message}\0{'' if seat is None else seat}"
    return text.encode("utf-8", "replace")


def _cap_memory(megabytes: int) -> None:
    import resource

    limit = megabytes * 1024 * 1024
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


class _Host:
    """The bot of the game being played and the template its views are copied into."""

    def __init__(self) -> None:
        self.bot: Any = None
        self.template: Any = None

    def build(self, payload: bytes) -> bytes:
        from ..core.engine import State
        from . import make_bot
        spec, seed, shipped, config, path = pickle.loads(payload)
        for entry in reversed(path):            # the worker's imports resolve here the same way
            if entry not in sys.path:
                sys.path.insert(0, entry)
        self.bot = None
        self.template = State._new_game(config, 0)
        self.bot = make_bot(spec, seed, shipped=shipped)
        observes = bool(getattr(self.bot, "observes", False))
        return bytes([observes])

    def view(self, raw: bytes) -> Any:
        view = self.template.clone()
        view._set_raw_bytes(raw)
        return view

    def step(self, raw: bytes) -> bytes:
        return _ACTION.pack(self.bot.step(self.view(raw)))

    def new_game(self, payload: bytes) -> bytes:
        hook = getattr(self.bot, "new_game", None)
        if hook is not None:
            hook(self.view(payload[1:]), payload[0])
        return b""

    def observe(self, payload: bytes) -> bytes:
        actor, action = _OBSERVE.unpack_from(payload)
        hook = getattr(self.bot, "observe", None)
        if hook is not None:
            hook(self.view(payload[_OBSERVE.size:]), actor, None if action < 0 else action)
        return b""


def serve(rfd: int, wfd: int) -> None:
    """Answer the worker's calls until it says ``Q`` or closes the pipe."""
    from ._fairplay import describe_exception
    from .errors import BotError, SpecError

    host = _Host()
    calls = {b"B": host.build, b"S": host.step, b"N": host.new_game, b"O": host.observe}
    while True:
        try:
            kind, size = HEADER.unpack(_read_exactly(rfd, HEADER.size))
            payload = _read_exactly(rfd, size) if size else b""
        except EOFError:
            return
        if kind == b"Q":
            return
        try:
            answer = calls[kind](payload)
        except BotError as error:
            _send(wfd, b"E", _error(error.reason, error.message, error.seat))
        except SpecError as exc:
            _send(wfd, b"E", _error("spec", str(exc)))
        except BaseException as exc:    # noqa: BLE001 -- KeyboardInterrupt too: the bot's, not the user's
            _send(wfd, b"E", _error("raised", describe_exception(exc)))
        else:
            _send(wfd, b"A" if kind == b"S" else b"K", answer)


def main(argv: list[str]) -> int:
    """The host's entry point: ``READ_FD WRITE_FD [MEMORY_MB]``."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    rfd, wfd, parent = int(argv[0]), int(argv[1]), int(argv[2])
    _die_with_parent(parent)
    # imported before the cap, so the cap is what the bot has to spend
    import glory_ai.bots  # noqa: F401
    import glory_ai.bots.plugins  # noqa: F401

    if len(argv) > 3 and int(argv[3]) > 0:
        _cap_memory(int(argv[3]))
    serve(rfd, wfd)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
