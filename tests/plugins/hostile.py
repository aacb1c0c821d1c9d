"""Bots that attack the bot host (tests/arena/test_bot_host.py), used by file spec.

``Hunter`` looks for the live true State in its own process (every object the collector
tracks, and its callers' frames) and appends what it finds of the opponent's hand to the
file its ``log`` parameter names (whatever process it runs in).
The others fail as a careless or hostile bot would: loop, exit the interpreter, crash in C,
raise KeyboardInterrupt.
"""
import ctypes
import gc
import json
import os
import sys

from glory_ai.game import State


def _hands(state, opponent):
    return sorted(state.to_dict()["players"][opponent]["hand"])


class Hunter:
    """Plays the first legal action; at each decision, reports the opponent's hand of every
    State found by walking gc and the callers' frames, beside the hand its own view shows."""

    def __init__(self, seed=0, log=""):
        self.seed, self.log = seed, log

    def step(self, state):
        me = state.current_player()
        opponent = 1 - me
        seen = [obj for obj in gc.get_objects() if isinstance(obj, State)]
        depth = 1
        while True:
            try:
                frame = sys._getframe(depth)
            except ValueError:
                break
            seen += [v for v in frame.f_locals.values() if isinstance(v, State)]
            depth += 1
        hands = [_hands(s, opponent) for s in seen
                 if s is not state and s.num_players() == state.num_players() and not s.is_terminal()]
        entry = {"game": str(self.seed), "view": _hands(state, opponent), "found": hands}
        with open(self.log, "a", encoding="utf-8") as out:
            out.write(json.dumps(entry) + "\n")
        return state.legal_actions()[0]


class Looper:
    """Never answers."""

    def __init__(self, seed=0):
        pass

    def step(self, state):
        while True:
            pass


class Exiter:
    """Ends its interpreter at its first decision."""

    def __init__(self, seed=0):
        pass

    def step(self, state):
        os._exit(1)


class Crasher:
    """Crashes in C (reads address 0) at its first decision."""

    def __init__(self, seed=0):
        pass

    def step(self, state):
        return ctypes.string_at(0)


class Interrupter:
    """Raises KeyboardInterrupt from its step (no one pressed Ctrl-C)."""

    def __init__(self, seed=0):
        pass

    def step(self, state):
        raise KeyboardInterrupt


class Hog:
    """Allocates 4 GB at its first decision."""

    def __init__(self, seed=0):
        pass

    def step(self, state):
        self.block = bytearray(4 << 30)
        return state.legal_actions()[0]


class Liar:
    """Writes an answer of its own on the host's pipe (an action that is not legal, or a
    header announcing 1 MB), then ends its process."""

    def __init__(self, seed=0, big=False):
        self.big = big

    def step(self, state):
        import struct

        pipe = int(sys.argv[2])             # python -m glory_ai.bots.host READ WRITE ...
        if self.big:
            os.write(pipe, struct.pack("<cI", b"A", 1 << 20))
        else:
            os.write(pipe, struct.pack("<cI", b"A", 4) + struct.pack("<I", 60000))
        os._exit(0)
