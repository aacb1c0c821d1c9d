"""The engine bench's arithmetic: interleaved rounds on the CPU clock, medians with quartiles.

The figures themselves are benchmarks' business; these tests drive the bench with a fake
clock, so that what is checked is how a time is turned into a figure, not how fast anything is.
"""

import glory_ai.bench as bench


def test_timing_is_the_median_with_its_quartiles():
    timing = bench.Timing.of([5.0, 1.0, 3.0, 2.0, 4.0])
    assert timing.median == 3.0
    assert timing.low < 3.0 < timing.high
    assert str(timing).startswith("3 ns [")


def test_each_round_takes_its_difference_back_to_back(monkeypatch):
    # a machine whose background load grows between rounds: every operation costs its own
    # ticks plus the load of the moment. The op costs 30 ticks more than the base, and each
    # round measures both under the same load, so every round's difference is exactly 30.
    # (All ops first and then all bases, as medians of separate runs would, gives 130 + 2000
    # against 100 + 7000: a negative cost.)
    clock = {"now": 0, "load": 0}
    monkeypatch.setattr(bench.time, "thread_time_ns", lambda: clock["now"])

    def op(_item):
        clock["now"] += 130 + clock["load"]

    def base(_item):
        clock["now"] += 100 + clock["load"]
        clock["load"] += 1000

    timing = bench.interleaved([0], op, base=base, number=1, rounds=5)
    assert timing.median == timing.low == timing.high == 30
