"""Bots played in a bot host (glory_ai.bots.host): the worker's side of the pipe.

A worker keeps one host per seat (a fresh interpreter, started on first use and kept for the
games of the batch, so a decision costs one round trip and no start-up; stopped when the
batch ends, so that no host outlives the work it was started for: a start costs some 70 ms). For each game the
host builds the seat's bot again from its spec; for each decision the worker sends it the
fair view of its player and checks the answer against the real state. The worker enforces
what the host cannot be trusted to: the move time limit (past it the host is killed and the
move fails with reason ``time_limit``), a host that died (``died``: os._exit, a signal, the
memory cap) and an answer that is not a legal action (``illegal``).

Which seats are hosted is the run's ``isolation``: ``users`` (bots given as a file, a
module or an entry point; the default), ``all`` (the built-ins too) or ``none``. A bot
registered from Python (``glory_ai.bots.register``) is code of the calling process already:
it stays in the worker.
"""
from __future__ import annotations

import atexit
import os
import pickle
import select
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Mapping
from typing import Any

from ..actions import block_range
from ..bots import BotError, SpecError, builtin_name
from ..bots._fairplay import fair_view_bytes, is_legal
from ..bots.errors import REASONS
from ..bots.grammar import split_spec
from ..bots.host import HEADER
from ..game import State

__all__ = ["ISOLATION", "HostedBot", "close_hosts", "game_bot", "hosted_seat", "release_hosts"]

#: the values of --isolation: which seats play in a bot host
ISOLATION = ("users", "all", "none")
#: the kinds of user bot hosted under ``users`` (registered bots stay in the worker)
_HOSTED_KINDS = frozenset({"file", "module", "entry_point"})
#: seconds a host has to start and build its bot, and to answer a hook (no move time limit)
_START_SECONDS = 60.0

_ACTION_SIZE = 4
#: the longest answer a host may send (an error's text is cut to a few hundred characters)
_MAX_ANSWER = 1 << 16
#: action ids of a Basilica vault from hand: they name a card only its player saw
_VAULT_HAND = block_range("vault_hand")
#: this process's hosts by (thread, seat): the threading backend plays games side by side
_hosts: dict[tuple[int, int], _Host] = {}
_closing_at_exit: list[bool] = []


def hosted_seat(spec: str, isolation: str, shipped: Mapping[str, Any]) -> bool:
    """Does ``spec`` play in a host under ``isolation``?"""
    if isolation == "none":
        return False
    if builtin_name(spec) is not None:
        return isolation == "all"
    shipment = shipped.get(_bot_key(spec, shipped))
    return shipment is not None and getattr(shipment, "kind", None) in _HOSTED_KINDS


def _bot_key(spec: str, shipped: Mapping[str, Any]) -> str:
    return split_spec(spec, lambda name: name in shipped).bot


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


class _Host:
    """One host process and the two ends of its pipes this worker holds."""

    def __init__(self, memory_mb: int | None) -> None:
        to_host_r, self.wfd = os.pipe()
        self.rfd, from_host_w = os.pipe()
        command = [sys.executable, "-m", "glory_ai.bots.host", str(to_host_r), str(from_host_w),
                   str(os.getpid()), str(memory_mb or 0)]
        try:
            self.process = subprocess.Popen(command, pass_fds=(to_host_r, from_host_w),
                                            stdin=subprocess.DEVNULL, close_fds=True)
        finally:
            os.close(to_host_r)
            os.close(from_host_w)
        self.memory_mb = memory_mb
        self.poll = select.poll()
        self.poll.register(self.rfd, select.POLLIN)

    def send(self, kind: bytes, payload: bytes) -> None:
        message = HEADER.pack(kind, len(payload)) + payload
        try:
            while message:
                message = message[os.write(self.wfd, message):]
        except (BrokenPipeError, OSError):
            pass                        # the host died: its exit is read by receive()

    def _read(self, size: int, deadline: float | None) -> bytes | None:
        # None: the host closed the pipe (it died); TimeoutError past the deadline
        data = b""
        while len(data) < size:
            if deadline is not None:
                left = deadline - time.monotonic()
                if left <= 0 or not self.poll.poll(left * 1000.0):
                    raise TimeoutError
            more = os.read(self.rfd, size - len(data))
            if not more:
                return None
            data += more
        return data

    def receive(self, deadline: float | None) -> tuple[bytes, bytes] | None:
        head = self._read(HEADER.size, deadline)
        if head is None:
            return None
        kind, size = HEADER.unpack(head)
        if size > _MAX_ANSWER:
            self.kill()                 # the rest of its message would be read as the next answer
            return b"E", b"illegal\0answered with a message of more than 64 KB\0"
        payload = self._read(size, deadline) if size else b""
        if payload is None:
            return None
        return kind, payload

    def death(self) -> str:
        """How the host ended, as a bot failure's message says it."""
        try:
            code = self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.kill()
            return "stopped answering (its host closed the pipe)"
        if code < 0:
            name = _signal_name(-code)
            if -code == signal.SIGKILL and self.memory_mb:
                return f"died (killed by {name}: over the memory cap of {self.memory_mb} MB?)"
            return f"died (killed by {name})"
        return f"died (its process exited with status {code})"

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()

    def close(self) -> None:
        self.send(b"Q", b"")
        for fd in (self.rfd, self.wfd):
            try:
                os.close(fd)
            except OSError:
                pass
        try:
            self.process.wait(timeout=2)
        except subprocess.TimeoutExpired:
            self.kill()


def _host_for(seat: int, memory_mb: int | None) -> _Host:
    key = (threading.get_ident(), seat)
    host = _hosts.get(key)
    if host is not None and (host.process.poll() is not None or host.memory_mb != memory_mb):
        _drop(key)
        host = None
    if host is None:
        if not _closing_at_exit:
            atexit.register(close_hosts)
            _closing_at_exit.append(True)
        host = _hosts[key] = _Host(memory_mb)
    return host


def _drop(key: tuple[int, int]) -> None:
    host = _hosts.pop(key, None)
    if host is not None:
        host.kill()
        host.close()


def close_hosts() -> None:
    """Stop every host of this process (the end of a run played in it)."""
    for key in list(_hosts):
        _drop(key)


def release_hosts() -> None:
    """Stop the hosts of this thread (the end of a batch: other threads play on with theirs)."""
    thread = threading.get_ident()
    for key in [key for key in _hosts if key[0] == thread]:
        _drop(key)


def game_bot(spec: str, seed: int, seat: int, state: State, *, isolation: str = "users",
             bot_memory: int | None = None) -> Any:
    """The bot of ``seat`` in a game played outside the arena (glory-ai play and watch):
    a :class:`HostedBot` when ``isolation`` hosts ``spec``, else ``make_bot(spec, seed)``."""
    from ..bots import make_bot

    shipped: dict[str, Any] = {}
    if builtin_name(spec) is None:
        from ..bots.plugins import ship

        shipped = ship([spec])
    if hosted_seat(spec, isolation, shipped):
        return HostedBot(spec, seed, seat, state, shipped, memory_mb=bot_memory)
    return make_bot(spec, seed, shipped=shipped)


class HostedBot:
    """A bot playing in this worker's host for ``seat``: ``step``, ``new_game`` and
    ``observe`` as :class:`~glory_ai.bots.plugins.UserBot`'s, each one round trip. Every
    failure is a :class:`~glory_ai.bots.errors.BotError` (the host killed first when it
    overran the move time limit)."""

    fair_play = True
    hosted = True

    def __init__(self, spec: str, seed: int, seat: int, state: State, shipped: Mapping[str, Any], *,
                 move_time_limit: float | None = None, memory_mb: int | None = None) -> None:
        self.spec, self.seed, self.seat = spec, seed, seat
        self.limit = move_time_limit
        self._host = _host_for(seat, memory_mb)
        # only this bot's shipment: the host learns nothing of the other seats' code
        key = _bot_key(spec, shipped) if builtin_name(spec) is None else ""
        own = {key: shipped[key]} if key and key in shipped else {}
        answer = self._call(b"B", pickle.dumps((spec, seed, own, state.config(), list(sys.path))),
                            _START_SECONDS, "while being built")
        #: does the bot want to be told of every move (an ``observe`` hook)?
        self.observes = answer[:1] == b"\x01"

    def _call(self, kind: bytes, payload: bytes, seconds: float | None, where: str = "") -> bytes:
        host = self._host
        host.send(kind, payload)
        try:
            reply = host.receive(None if seconds is None else time.monotonic() + seconds)
        except TimeoutError:
            _drop((threading.get_ident(), self.seat))
            if kind == b"S":
                raise BotError("time_limit", f"took more than {seconds:g} s to move, over the move time "
                                             f"limit of {seconds:g} s (its host was stopped)",
                               self.seat) from None
            raise BotError("time_limit", f"took more than {seconds:g} s {where} (its host was stopped)",
                           self.seat) from None
        except BaseException:
            # Ctrl-C in the worker: the host must not run on
            _drop((threading.get_ident(), self.seat))
            raise
        if reply is None:
            message = host.death()
            _drop((threading.get_ident(), self.seat))
            raise BotError("died", f"{message}{' ' + where if where else ''}", self.seat)
        answer_kind, answer = reply
        if answer_kind == b"E":
            if host.process.poll() is not None:
                _drop((threading.get_ident(), self.seat))
            raise _error(answer, self.seat)
        return answer

    def step(self, state: State) -> int:
        player = state.current_player()
        answer = self._call(b"S", fair_view_bytes(state, player, self.seed), self.limit)
        if len(answer) != _ACTION_SIZE:
            raise BotError("illegal", "answered something that is not an action", self.seat)
        action = int.from_bytes(answer, "little")
        if not is_legal(state, action):
            raise BotError("illegal", f"returned action {action}, which is not legal here (phase "
                                      f"{state.phase()}, {len(state.legal_actions())} legal actions)",
                           self.seat)
        return action

    def new_game(self, state: State, player: int) -> None:
        self._call(b"N", bytes([player]) + fair_view_bytes(state, player, self.seed),
                   self._hook_seconds(), "in new_game")

    def observe(self, state: State, actor: int, action: int) -> None:
        shown = -1 if actor != self.seat and action in _VAULT_HAND else action
        payload = actor.to_bytes(1, "little") + shown.to_bytes(4, "little", signed=True)
        self._call(b"O", payload + fair_view_bytes(state, self.seat, self.seed),
                   self._hook_seconds(), "in observe")

    def _hook_seconds(self) -> float | None:
        return self.limit

    def __repr__(self) -> str:
        return f"<hosted bot {self.spec} seed={self.seed} seat={self.seat}>"


def _error(answer: bytes, seat: int) -> BotError | SpecError:
    # plain text from a process that is not trusted: cut, and the seat taken only if it is one
    parts = answer.decode("utf-8", "replace").split("\0")
    reason = parts[0] if parts[0] in REASONS or parts[0] == "spec" else "raised"
    message = " ".join((parts[1] if len(parts) > 1 else "").split())[:400] or "failed"
    said = parts[2] if len(parts) > 2 else ""
    if reason == "spec":
        return SpecError(message)
    return BotError(reason, message, int(said) if said.isdigit() and int(said) == seat else seat)
