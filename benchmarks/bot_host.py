"""Bot host benchmark: python3 benchmarks/bot_host.py [--states N] [--calls N] [--decisions N]

What playing a bot in a bot host process (glory_ai.bots.host, glory_ai.arena.hosted) costs,
wall clock (the host's time is the decision's time), on mid-game 2-player states of random
play:

  * pipe: a bare round trip of 8 bytes to a child process that echoes them (os.read and
    os.write on a pipe each way): the floor of any process boundary on this machine;
  * in-process: a user's bot that answers at once, behind the referee in this process
    (the fair view, the checks);
  * hosted: the same bot in a host (the fair view sent, the host's referee, the answer
    checked against the real state);
  * overhead: hosted - in-process, per decision (target: <= 50 us).


Each of these is the median of 7 repeats of ``--calls`` calls. Then ISMCTS at 1,000
iterations, in this process and hosted (``--isolation all``), over the same ``--decisions``
states, alternating, and the hosted speed lost (target: <= 2%), in CPU time (this process's
and, hosted, the host's too: what the search costs) and wall clock (on a loaded machine a
host woken by its pipe may wait for a core, which the CPU time leaves out). The search in this process
is handed the fair view the host is sent (so both do the same work: handed the real state,
it would sample other worlds, a difference of luck and not of cost).
The load average is printed before and after: other processes on the machine show in
wall-clock figures.
"""
from __future__ import annotations

import argparse
import ctypes
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import glory_ai
from glory_ai.arena.hosted import HostedBot, close_hosts
from glory_ai.bench import provenance
from glory_ai.bots import make_bot
from glory_ai.bots._fairplay import fair_view
from glory_ai.bots.plugins import ship

ANSWER = "class Answer:\n    def __init__(self, seed=0):\n        pass\n\n" \
         "    def step(self, state):\n        return state.legal_actions()[0]\n"

ECHO = ("import os, sys\nr, w = int(sys.argv[1]), int(sys.argv[2])\n"
        "while True:\n    data = os.read(r, 8)\n    if not data:\n        break\n    os.write(w, data)\n")


def _states(count: int) -> list[glory_ai.State]:
    out = []
    for seed in range(count):
        state = glory_ai.Game(2).new_initial_state(seed)
        bot = make_bot("random", seed)
        for _ in range(40 + 7 * seed):
            if state.is_terminal():
                break
            state.apply_action(bot.step(state))
        if not state.is_terminal():
            out.append(state)
    return out


def _median_us(fn, states: list[glory_ai.State], calls: int, repeats: int = 7) -> float:
    times = []
    rounds = max(1, calls // len(states))
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(rounds):
            for state in states:
                fn(state)
        times.append((time.perf_counter() - start) / (rounds * len(states)))
    return statistics.median(times) * 1e6


def _pipe_round_trip(calls: int, repeats: int = 7) -> float:
    to_child_r, to_child_w = os.pipe()
    from_child_r, from_child_w = os.pipe()
    child = subprocess.Popen([sys.executable, "-c", ECHO, str(to_child_r), str(from_child_w)],
                             pass_fds=(to_child_r, from_child_w))
    os.close(to_child_r)
    os.close(from_child_w)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(calls):
            os.write(to_child_w, b"12345678")
            os.read(from_child_r, 8)
        times.append((time.perf_counter() - start) / calls)
    os.close(to_child_w)
    child.wait()
    os.close(from_child_r)
    return statistics.median(times) * 1e6


def _cpu_clock(pid: int) -> int:
    """The CPU-time clock of another process (clock_getcpuclockid), for time.clock_gettime."""
    libc = ctypes.CDLL(None, use_errno=True)
    clock = ctypes.c_int()
    if libc.clock_getcpuclockid(pid, ctypes.byref(clock)) != 0:
        raise OSError(ctypes.get_errno(), "clock_getcpuclockid")
    return clock.value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--states", type=int, default=20, help="mid-game states")
    parser.add_argument("--calls", type=int, default=20_000, help="calls per repeat (overhead)")
    parser.add_argument("--decisions", type=int, default=40, help="ISMCTS decisions per side")
    args = parser.parse_args()
    print(provenance(), flush=True)
    states = _states(args.states)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "answer.py"
        path.write_text(ANSWER)
        spec = f"{path}:Answer"
        shipped = ship([spec])
        inside = make_bot(spec, 7, shipped=shipped)
        hosted = HostedBot(spec, 7, 0, states[0], shipped)
        pipe = _pipe_round_trip(args.calls)
        in_process = _median_us(inside.step, states, args.calls)
        in_host = _median_us(hosted.step, states, args.calls)
    print(f"{'pipe':>8}  {'in-process':>10}  {'hosted':>8}  {'overhead':>8}  (us per decision, median of 7)")
    print(f"{pipe:8.1f}  {in_process:10.1f}  {in_host:8.1f}  {in_host - in_process:8.1f}")

    search = "ismcts:iters=1000"
    inside = make_bot(search, 3)
    hosted = HostedBot(search, 3, 1, states[0], {})
    pool = _states(args.decisions)
    for state in pool[:2]:                       # warm both (first calls build tables)
        inside.step(state)
        hosted.step(state)
    host_clock = _cpu_clock(hosted._host.process.pid)
    wall = {"in-process": 0.0, "hosted": 0.0}
    cpu = {"in-process": 0.0, "hosted": 0.0}
    for state in pool:
        view = fair_view(state, state.current_player(), 3)
        start, started = time.perf_counter(), time.process_time()
        mine = inside.step(view)
        wall["in-process"] += time.perf_counter() - start
        cpu["in-process"] += time.process_time() - started
        host_started = time.clock_gettime(host_clock)
        start, started = time.perf_counter(), time.process_time()
        theirs = hosted.step(state)
        wall["hosted"] += time.perf_counter() - start
        cpu["hosted"] += time.process_time() - started + time.clock_gettime(host_clock) - host_started
        assert mine == theirs, "the hosted search chose another action on the same view"
    close_hosts()
    for name, spent in (("CPU time", cpu), ("wall clock", wall)):
        per = {side: seconds / len(pool) * 1e3 for side, seconds in spent.items()}
        lost = 100.0 * (per["hosted"] - per["in-process"]) / per["in-process"]
        print(f"{search}, {name}: {per['in-process']:.2f} ms per decision in-process, {per['hosted']:.2f} ms "
              f"hosted ({lost:+.1f}%; {len(pool)} decisions each, alternating)")
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
