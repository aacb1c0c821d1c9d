"""The arena's game loop in C: a client of the engine through engine.pxd.

A `random` game takes about 2 ms, some 300 decisions. Run as Python, the bookkeeping an arena
record needs around each decision (whose turn, is it a lead, two clock reads, the counters)
costs a few percent of that; here it reads the state's struct directly and costs a few
nanoseconds. The bots are still asked through their Python ``step`` and every action still
goes through ``State.apply_action``, so the game, its legality checks and its history are
exactly those of a plain loop.
"""
from libc.stdint cimport uint8_t
from posix.time cimport clock_gettime, timespec, CLOCK_MONOTONIC

from glory_ai.core.engine cimport (
    State, Structure, GameState, MAX_PLAYERS, NO_ROLE, PH_LEAD, PH_OVER, S_COMPLETE, THINKER,
)

from glory_ai.cards import CARD_NAMES as _CARD_NAMES, ROLES as _ROLES

#: role names by engine role id (the Thinker only ever as the role of a granted action)
_ROLE_NAMES = tuple(_ROLES) + ("Thinker",)
assert len(_ROLE_NAMES) == THINKER + 1


cdef inline double _now() noexcept nogil:
    # CLOCK_MONOTONIC: the clock of time.perf_counter()
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return ts.tv_sec + 1e-9 * ts.tv_nsec


def play_loop(State state, steps, long max_decisions):
    """Play ``state`` on until it is over or ``max_decisions`` decisions have been asked:
    ``steps[player](state)`` gives the action of the player to move, applied with
    ``state.apply_action`` (a ValueError if illegal). Returns ``(seconds, moves, roles_led)``
    per player: the seconds spent in that player's ``step`` calls, the decisions it made and
    the roles it led (``{role name: times}``, in the order first led)."""
    cdef GameState* s = state.s
    cdef int n = s.cfg.num_players
    cdef double seconds[MAX_PLAYERS]
    cdef long moves[MAX_PLAYERS]
    cdef int led[MAX_PLAYERS][THINKER + 1]
    cdef uint8_t order[MAX_PLAYERS][THINKER + 1]   # role ids in the order first led
    cdef int distinct[MAX_PLAYERS]
    cdef int player, role, p, k
    cdef bint leading
    cdef long made = 0
    cdef double start
    steps = list(steps)
    if len(steps) != n:
        raise ValueError(f"play_loop: {len(steps)} bots for {n} players")
    for p in range(n):
        seconds[p] = 0.0
        moves[p] = 0
        distinct[p] = 0
        for role in range(THINKER + 1):
            led[p][role] = 0
    while made < max_decisions and s.turn.phase != PH_OVER:
        player = s.turn.decider
        leading = s.turn.phase == PH_LEAD
        start = _now()
        action = steps[player](state)
        seconds[player] += _now() - start
        moves[player] += 1
        made += 1
        state.apply_action(action)
        # after a lead the led role is set, unless the leader thought instead
        if leading and s.turn.led_role != NO_ROLE:
            role = s.turn.led_role
            if led[player][role] == 0:
                order[player][distinct[player]] = role
                distinct[player] += 1
            led[player][role] += 1
    roles_led = []
    for p in range(n):
        roles_led.append({_ROLE_NAMES[order[p][k]]: led[p][order[p][k]] for k in range(distinct[p])})
    return [seconds[p] for p in range(n)], [moves[p] for p in range(n)], roles_led


def structures(State state):
    """Per player, the buildings of its structures: ``{"complete": [...], "incomplete":
    [...]}``, each in the order the structures were started (as ``State.to_dict`` lists
    them), without the rest of the position."""
    cdef GameState* s = state.s
    cdef Structure* st
    cdef int i, n = s.cfg.num_players
    out = [{"complete": [], "incomplete": []} for _ in range(n)]
    for i in range(s.nstruct):
        st = &s.structures[i]
        if st.owner >= n:
            continue
        out[st.owner]["complete" if st.flags & S_COMPLETE else "incomplete"].append(
            _CARD_NAMES[st.building])
    return out
