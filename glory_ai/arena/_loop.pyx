"""The arena's game loop in C: a client of the engine through engine.pxd.

A `random` game takes about 2 ms, some 300 decisions. Run as Python, the bookkeeping an arena
record needs around each decision (whose turn, is it a lead, two clock reads, the counters)
costs a few percent of that; here it reads the state's struct directly and costs a few
nanoseconds. The bots are still asked through their Python ``step`` and every action still
goes through ``State.apply_action``, so the game, its legality checks and its history are
exactly those of a plain loop.

The built-in cheap bots (random, greedy, heuristic) are the exception: given as a
:class:`NativeSeat`, their decisions are made here in C, the very ones their ``step``
makes (the same legal actions, decision seeds and choices), without the Python call that
cost more than the choice itself.
"""
cimport cython
from libc.stdint cimport uint8_t, uint16_t, uint32_t, uint64_t
from libc.stdlib cimport free, malloc, qsort

from glory_ai.core.clock cimport gr_now_seconds
from glory_ai.core.engine cimport (
    State, Structure, GameState, MAX_LEGAL, MAX_PLAYERS, NO_ROLE, PH_LEAD, PH_OVER, S_COMPLETE, THINKER,
    INV_OVERFLOW, STACK_CAP, apply_action_c, information_state_key_c, legal_actions_into,
)
from glory_ai.core.engine import INVARIANT_TEXT as _INVARIANT_TEXT

from glory_ai.bots.errors import BotError
from glory_ai.cards import CARD_NAMES as _CARD_NAMES, ROLES as _ROLES

#: role names by engine role id (the Thinker only ever as the role of a granted action)
_ROLE_NAMES = tuple(_ROLES) + ("Thinker",)
assert len(_ROLE_NAMES) == THINKER + 1


@cython.auto_pickle(False)
cdef class Tally:
    """What :func:`play_loop` counts per player, over one or more calls on one game: the
    seconds spent in the player's ``step`` calls (a call that fails counts too), the
    decisions it made and the roles it led. ``results()`` gives ``(seconds, moves,
    roles_led)`` as ``play_loop`` returns them; ``decisions`` is the sum of the moves."""
    cdef int n
    cdef double seconds[MAX_PLAYERS]
    cdef long moves[MAX_PLAYERS]
    cdef int led[MAX_PLAYERS][THINKER + 1]
    cdef uint8_t order[MAX_PLAYERS][THINKER + 1]   # role ids in the order first led
    cdef int distinct[MAX_PLAYERS]
    cdef readonly long decisions

    def __cinit__(self, int num_players):
        cdef int p, role
        if not 1 <= num_players <= MAX_PLAYERS:
            raise ValueError(f"Tally: players must be from 1 to {MAX_PLAYERS}, got {num_players}")
        self.n = num_players
        self.decisions = 0
        for p in range(MAX_PLAYERS):
            self.seconds[p] = 0.0
            self.moves[p] = 0
            self.distinct[p] = 0
            for role in range(THINKER + 1):
                self.led[p][role] = 0

    def results(self):
        cdef int p, k
        roles_led = []
        for p in range(self.n):
            roles_led.append({_ROLE_NAMES[self.order[p][k]]: self.led[p][self.order[p][k]]
                              for k in range(self.distinct[p])})
        return ([self.seconds[p] for p in range(self.n)], [self.moves[p] for p in range(self.n)],
                roles_led)


cdef enum:
    SEAT_PYTHON = 0           # the seat's callable is called
    SEAT_RANDOM = 1           # RandomBot's choice, in C
    SEAT_POLICY = 2           # PolicyBot's: its PolicyPlayer asked with the decision seed

#: the kinds a NativeSeat is made of
_NATIVE_KINDS = {"random": SEAT_RANDOM, "policy": SEAT_POLICY}


@cython.auto_pickle(False)
@cython.final
cdef class NativeSeat:
    """A built-in bot for :func:`play_loop` to play in C, in the place of its ``step``:
    ``NativeSeat("random", seed)`` chooses as ``RandomBot(seed)`` does,
    ``NativeSeat("policy", seed, policy)`` as a ``PolicyBot`` of that seed whose
    ``PolicyPlayer`` is ``policy``. Their decisions are those of ``Bot.step``: a forced move
    played as is, otherwise the decision seed (the player's information state hash xor the
    seed times 0x9E3779B97F4A7C15) draws from the sorted legal actions or goes to the policy."""
    cdef int kind
    cdef uint64_t salt
    cdef object choose

    def __init__(self, str kind, uint64_t seed, policy=None):
        if kind not in _NATIVE_KINDS:
            raise ValueError(f"NativeSeat: kind is random or policy, got {kind!r}")
        self.kind = _NATIVE_KINDS[kind]
        if (self.kind == SEAT_POLICY) != (policy is not None):
            raise ValueError("NativeSeat: a policy seat takes its PolicyPlayer, a random seat none")
        self.salt = seed * <uint64_t>0x9E3779B97F4A7C15     # wraps modulo 2**64, as _decision_seed masks
        self.choose = None if policy is None else policy.choose


cdef int _by_id(const void* a, const void* b) noexcept nogil:
    return (<const uint16_t*>a)[0] - (<const uint16_t*>b)[0]


cdef inline uint64_t _uniform_index(uint64_t seed, uint64_t count) noexcept nogil:
    # glory_ai.bots.builtin._uniform_index: splitmix64's output, then (mixed * count) >> 64,
    # taken in two halves (count < 2**32, so no product overflows)
    cdef uint64_t mixed = seed + <uint64_t>0x9E3779B97F4A7C15
    mixed = (mixed ^ (mixed >> 30)) * <uint64_t>0xBF58476D1CE4E5B9
    mixed = (mixed ^ (mixed >> 27)) * <uint64_t>0x94D049BB133111EB
    mixed ^= mixed >> 31
    return ((mixed >> 32) * count + ((<uint64_t><uint32_t>mixed * count) >> 32)) >> 32


cdef int _native_choice(State state, int player, NativeSeat seat, GameState* scratch,
                        uint16_t* legal) except -1:
    """What the seat's bot's ``step`` returns, its errors included."""
    cdef GameState* s = state.s
    cdef int i, j, n = legal_actions_into(s, legal)
    cdef uint16_t held
    cdef uint64_t seed
    if n == 0:
        raise RuntimeError("the game is not over but has no legal action: an engine bug "
                           f"(phase {state.phase()!r}, player {state.current_player()})")
    if n == 1:
        return legal[0]
    seed = information_state_key_c(s, player, scratch) ^ seat.salt
    if seat.kind == SEAT_RANDOM:
        # the bot draws from the legal actions in ascending order
        if n <= 32:
            for i in range(1, n):
                held = legal[i]
                j = i
                while j > 0 and legal[j - 1] > held:
                    legal[j] = legal[j - 1]
                    j -= 1
                legal[j] = held
        else:
            qsort(legal, n, sizeof(uint16_t), _by_id)
        return legal[_uniform_index(seed, n)]
    action = seat.choose(state, player, seed)
    for i in range(n):
        if legal[i] == action:
            return action
    raise AssertionError                 # PolicyBot asserts its action is legal


def play_loop(State state, steps, long max_decisions, double move_time_limit=0.0,
              observers=(), Tally tally=None):
    """Play ``state`` on until it is over or ``max_decisions`` decisions have been asked:
    ``steps[player](state)`` gives the action of the player to move, applied with
    ``state.apply_action`` (a ValueError if illegal). Returns ``(seconds, moves, roles_led)``
    per player: the seconds spent in that player's ``step`` calls, the decisions it made and
    the roles it led (``{role name: times}``, in the order first led).

    ``move_time_limit`` (seconds, 0: none): a step that took longer (wall clock) raises
    :class:`~glory_ai.bots.errors.BotError` (reason ``time_limit``, the player as its seat)
    and its action is not applied. ``observers``: callables ``(state, player, action)``
    called after every action, in order. ``tally``: a :class:`Tally` to count into (and
    to read after an exception); the results are then its totals. A step given as a
    :class:`NativeSeat` is played in C (timed and limited alike)."""
    cdef int player, n = state.s.cfg.num_players
    cdef bint native[MAX_PLAYERS]
    cdef GameState* scratch = NULL
    cdef uint16_t* legal = NULL
    steps = list(steps)
    observers = list(observers)
    if len(steps) != n:
        raise ValueError(f"play_loop: {len(steps)} bots for {n} players")
    if tally is None:
        tally = Tally(n)
    elif tally.n != n:
        raise ValueError(f"play_loop: a tally of {tally.n} players for {n} players")
    for player in range(n):
        native[player] = type(steps[player]) is NativeSeat
        if native[player] and scratch == NULL:
            # per call: a policy releases the GIL, so another thread's loop may run meanwhile
            scratch = <GameState*>malloc(sizeof(GameState))
            legal = <uint16_t*>malloc(MAX_LEGAL * sizeof(uint16_t))
            if scratch == NULL or legal == NULL:
                free(scratch)
                free(legal)
                raise MemoryError()
    try:
        _loop(state, steps, max_decisions, move_time_limit, observers, tally, native, scratch, legal)
    finally:
        free(scratch)
        free(legal)
    return tally.results()


cdef void _loop(State state, list steps, long max_decisions, double move_time_limit, list observers,
                Tally tally, bint* native, GameState* scratch, uint16_t* legal) except *:
    cdef GameState* s = state.s
    cdef int player, role, chosen = 0
    cdef bint leading
    cdef long made = 0
    cdef double start, elapsed
    cdef bint watched = len(observers) > 0
    action = None
    while made < max_decisions and s.turn.phase != PH_OVER:
        player = s.turn.decider
        leading = s.turn.phase == PH_LEAD
        start = gr_now_seconds()
        if native[player]:
            chosen = _native_choice(state, player, <NativeSeat>steps[player], scratch, legal)
        else:
            action = steps[player](state)
        elapsed = gr_now_seconds() - start
        tally.seconds[player] += elapsed
        if move_time_limit > 0.0 and elapsed > move_time_limit:
            raise BotError("time_limit", f"took {elapsed:.3g} s to move, over the move time limit "
                                         f"of {move_time_limit:g} s", player)
        tally.moves[player] += 1
        tally.decisions += 1
        made += 1
        if native[player]:
            # one of the legal actions just generated: applied and recorded as
            # State._apply_unchecked does, without its Python call
            action = chosen
            state._history = (state._history, action)
            if apply_action_c(s, chosen) == -2:
                raise RuntimeError(f"engine limit reached: {_INVARIANT_TEXT[INV_OVERFLOW]} "
                                   f"(the queue holds {STACK_CAP} entries)")
        else:
            state.apply_action(action)
        # after a lead the led role is set, unless the leader thought instead
        if leading and s.turn.led_role != NO_ROLE:
            role = s.turn.led_role
            if tally.led[player][role] == 0:
                tally.order[player][tally.distinct[player]] = role
                tally.distinct[player] += 1
            tally.led[player][role] += 1
        if watched:
            for observe in observers:
                observe(state, player, action)


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


# ---- seeds ---------------------------------------------------------------------------
# numpy's SeedSequence (O'Neill's entropy pool: numpy/random/bit_generator.pyx), written out
# for one 64-bit word of generate_state: numpy takes some 10 us a word (arrays, Python
# objects), as much as the arena's whole budget per game; this takes well under one.
cdef uint32_t _INIT_A = 0x43b0d7e5
cdef uint32_t _MULT_A = 0x931e8875
cdef uint32_t _INIT_B = 0x8b51f9dd
cdef uint32_t _MULT_B = 0x58f38ded
cdef uint32_t _MIX_MULT_L = 0xca01f9dd
cdef uint32_t _MIX_MULT_R = 0x4973f715
cdef enum:
    _POOL = 4                 # SeedSequence's default pool_size (32-bit words)
    _MAX_WORDS = _POOL + 2 * 8  # the root padded to the pool, then 8 key integers of 2 words


cdef inline uint32_t _hashmix(uint32_t value, uint32_t* hash_const) noexcept nogil:
    value ^= hash_const[0]
    hash_const[0] *= _MULT_A
    value *= hash_const[0]
    value ^= value >> 16
    return value


cdef inline uint32_t _mix(uint32_t x, uint32_t y) noexcept nogil:
    cdef uint32_t result = _MIX_MULT_L * x - _MIX_MULT_R * y
    result ^= result >> 16
    return result


cdef inline int _words(uint64_t value, uint32_t* out) noexcept nogil:
    """A non-negative integer as numpy coerces it: its 32-bit words, low first (0: one word)."""
    if value >> 32:
        out[0] = <uint32_t>value
        out[1] = <uint32_t>(value >> 32)
        return 2
    out[0] = <uint32_t>value
    return 1


def seed_word(uint64_t root, tuple key):
    """``int(numpy.random.SeedSequence(entropy=root, spawn_key=key).generate_state(1,
    numpy.uint64)[0])`` for a root below 2**64 and a key of at most 8 integers below 2**64
    (OverflowError or ValueError otherwise)."""
    cdef uint32_t entropy[_MAX_WORDS]
    cdef uint32_t pool[_POOL]
    cdef uint32_t hash_const, low, high
    cdef int n, i, src, dst
    if len(key) > 8:
        raise ValueError(f"seed_word: a spawn key of at most 8 integers, got {len(key)}")
    n = _words(root, entropy)
    if len(key) > 0:
        while n < _POOL:                     # the run's entropy padded to the pool's size
            entropy[n] = 0
            n += 1
        for k in key:
            n += _words(k, &entropy[n])
    hash_const = _INIT_A
    for i in range(_POOL):
        pool[i] = _hashmix(entropy[i] if i < n else 0, &hash_const)
    for src in range(_POOL):
        for dst in range(_POOL):
            if src != dst:
                pool[dst] = _mix(pool[dst], _hashmix(pool[src], &hash_const))
    for src in range(_POOL, n):
        for dst in range(_POOL):
            pool[dst] = _mix(pool[dst], _hashmix(entropy[src], &hash_const))
    # generate_state(2, uint32): the pool's first two words, hashed; the 64-bit word is
    # the low one first
    hash_const = _INIT_B
    low = pool[0] ^ hash_const
    hash_const *= _MULT_B
    low *= hash_const
    low ^= low >> 16
    high = pool[1] ^ hash_const
    hash_const *= _MULT_B
    high *= hash_const
    high ^= high >> 16
    return (<uint64_t>high << 32) | low
