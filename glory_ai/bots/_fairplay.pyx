# The referee between a user's bot and the game, in C: a client of the engine through
# engine.pxd, like the search.
#
# A user's bot is handed a view, never the game's own state. The fair view of a player is
# the position with every card that player cannot see dealt again: first into a canonical
# order (canonicalize_hidden: the deck, the hidden parts of the other hands and vaults,
# another player's Fountain card, sorted; the generator and the decision counter cleared),
# then shuffled by determinize_c from a generator seeded with a hash of that canonical
# position and the bot's seed. So the view is a function of what the player knows and of
# the bot's seed alone: two games that differ only in cards the player cannot see hand
# the bot the same bytes, and nothing in the view (its cards, its generator) can be traced
# back to the real hidden cards. The view starts a history of its own (the real history
# names cards the player did not see: an opponent's Basilica vault from hand).
#
# Around the bot's step the referee checks what the bot did: that it did not change the
# view (a byte comparison with a copy taken before), that it returned an action id (an int,
# or an object with __index__ such as a numpy integer; not a bool), and that the action is
# legal in the real state (the fair view keeps the deciding player's hand and everything
# public, so it has the same legal actions: tests/plugins/test_fairplay.py checks it).
cimport cython
from libc.stdint cimport uint8_t, uint16_t, uint64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcmp, memcpy

from glory_ai.core.engine cimport (
    GameState, MAX_LEGAL, PH_OVER, State, canonicalize_hidden, determinize_c, gr_rng_seed,
    legal_actions_into, used_size,
)

import operator

from glory_ai._words import article
from glory_ai.bots.errors import BotError
from glory_ai.core.seeds import check_seed

#: longest bot message kept in an error (one line)
cdef int MESSAGE_CHARS = 300


cdef inline uint64_t _mix(uint64_t h, uint64_t word) noexcept nogil:
    h = (h ^ word) * <uint64_t>0xBF58476D1CE4E5B9
    return h ^ (h >> 31)


cdef inline uint64_t _hash(const uint8_t* data, size_t size, uint64_t seed) noexcept nogil:
    # a multiply-xorshift step per 8-byte word in four independent lanes (a state is some
    # 2 KB: one lane's chain of multiplications would take most of a microsecond), then
    # the SplitMix64 finaliser: a seed, not a secret (what it hashes is what the player knows)
    cdef uint64_t a = seed ^ (size * <uint64_t>0x9E3779B97F4A7C15)
    cdef uint64_t b = a + <uint64_t>0x632BE59BD9B4E019
    cdef uint64_t c = a + <uint64_t>0x8CB92BA72F3D8DD7
    cdef uint64_t d = a + <uint64_t>0xD6E8FEB86659FD93
    cdef uint64_t w[4]
    cdef uint64_t h, word
    cdef size_t i = 0
    while i + 32 <= size:
        memcpy(w, data + i, 32)
        a = _mix(a, w[0])
        b = _mix(b, w[1])
        c = _mix(c, w[2])
        d = _mix(d, w[3])
        i += 32
    h = _mix(_mix(_mix(a, b), c), d)
    while i + 8 <= size:
        memcpy(&word, data + i, 8)
        h = _mix(h, word)
        i += 8
    word = 0
    memcpy(&word, data + i, size - i)
    h = (h ^ word) * <uint64_t>0x94D049BB133111EB
    h ^= h >> 29
    h *= <uint64_t>0xBF58476D1CE4E5B9
    return h ^ (h >> 32)


cdef State _copy(State state):
    # State.clone() without the Python method call (the history is shared, as clone's)
    cdef State c = State.__new__(State)
    memcpy(c.s, state.s, used_size(state.s))
    c._config = state._config
    c._history = state._history
    return c


cdef State _fair_view(State state, int player, uint64_t seed):
    cdef State world = State.__new__(State)
    cdef uint64_t rng
    memcpy(world.s, state.s, used_size(state.s))
    world._config = state._config
    world._history = None
    canonicalize_hidden(world.s, player)
    # which functions have fired says how the position was reached (the engine's
    # information-state key leaves it out too)
    world.s.functions_used = 0
    rng = gr_rng_seed(_hash(<uint8_t*>world.s, used_size(world.s), seed))
    determinize_c(world.s, player, &rng)
    return world


def fair_view(State state, player, seed):
    """The state a fair-play bot of ``player`` is handed: ``state`` with every card that
    player cannot see dealt again, as a function of what the player knows and of ``seed``
    only (the same bytes for every state of one information set), a fresh generator, the
    decision counter and the functions used cleared, and an empty history."""
    cdef int who = state._check_player(player)
    return _fair_view(state, who, check_seed(seed))


def fair_view_bytes(State state, int player, seed):
    """The raw bytes of :func:`fair_view` (what a bot host is sent: glory_ai.arena.hosted),
    without building a State object for it."""
    cdef int who = state._check_player(player)
    cdef uint64_t s = check_seed(seed)
    cdef State world = _fair_view(state, who, s)
    return (<char*>world.s)[:used_size(world.s)]


def is_legal(State state, action):
    """Is ``action`` (an int) a legal action in ``state``? (An answer from a bot host is
    checked against the real state before it is applied.)"""
    cdef uint16_t legal[MAX_LEGAL]
    cdef int n, i
    if type(action) is not int or not 0 <= action < 65536:
        return False
    n = legal_actions_into(state.s, legal)
    for i in range(n):
        if legal[i] == action:
            return True
    return False


cdef str _one_line(object text):
    line = " ".join(str(text).split())
    return line if len(line) <= MESSAGE_CHARS else line[:MESSAGE_CHARS - 3] + "..."


def describe_exception(exc):
    """``raised TypeName: message`` on one line (the message cut to a few hundred
    characters)."""
    text = _one_line(exc)
    return f"raised {type(exc).__name__}" + (f": {text}" if text else "")


cdef object _as_action(object action):
    # an action id is an int; an object with __index__ (a numpy integer) is accepted as
    # one, a bool or a float is not
    if isinstance(action, bool):
        raise BotError("not_an_action", f"returned {action!r} (a bool), not an action id (an int)")
    try:
        return operator.index(action)
    except TypeError:
        shown = _one_line(repr(action))
        raise BotError("not_an_action", f"returned {shown} ({article(type(action).__name__)}), "
                                        "not an action id (an int)") from None


@cython.auto_pickle(False)
cdef class Referee:
    """Calls a user's ``step`` on a view of the state and checks what it did.

    ``Referee(step, seed, fair_play=True)``; :meth:`step` is what the arena calls. With
    ``fair_play`` the view is :func:`fair_view` of the player to move (seeded with
    ``seed``); without, a copy of the real state (history included). A bot that raises,
    changes the view, returns something that is not an action id or an action that is not
    legal raises :class:`~glory_ai.bots.errors.BotError`.
    """
    cdef object _step
    cdef uint64_t _seed
    cdef readonly bint fair_play
    cdef GameState* _before

    def __cinit__(self, step, seed, fair_play=True):
        if not callable(step):
            raise TypeError(f"step must be callable, got {type(step).__name__}")
        self._step = step
        self._seed = check_seed(seed)
        self.fair_play = bool(fair_play)
        self._before = <GameState*>malloc(sizeof(GameState))
        if self._before == NULL:
            raise MemoryError()

    def __dealloc__(self):
        free(self._before)

    def view(self, State state, int player):
        """What the bot of ``player`` is handed for ``state`` (fair view, or a copy)."""
        if self.fair_play:
            return _fair_view(state, state._check_player(player), self._seed)
        return _copy(state)

    def step(self, State state):
        """The bot's action for the player to move in ``state``, checked."""
        cdef uint16_t legal[MAX_LEGAL]
        cdef int n, i, player
        cdef size_t size
        cdef State view
        if state.s.turn.phase == PH_OVER:
            raise ValueError("the game is over: there is no move to make")
        player = state.s.turn.decider
        view = _fair_view(state, player, self._seed) if self.fair_play else _copy(state)
        size = used_size(view.s)
        memcpy(self._before, view.s, size)
        try:
            action = self._step(view)
        except (Exception, SystemExit) as exc:
            raise BotError("raised", describe_exception(exc)) from exc
        if memcmp(self._before, view.s, size) != 0:
            raise BotError("mutated", "changed the state it was handed (apply actions to a "
                                      "state.clone(), not to the state itself)")
        if type(action) is not int:
            action = _as_action(action)
        if 0 <= action < 65536:
            n = legal_actions_into(state.s, legal)
            for i in range(n):
                if legal[i] == action:
                    return action
        raise BotError("illegal", f"returned action {action}, which is not legal here (phase "
                                  f"{state.phase()}, {len(state.legal_actions())} legal actions)")

