# The Cython core: the nogil rules engine (_rules.pxi) and the State object wrapping one
# GameState struct. The validated, documented Python face is glory_ai.game.
from libc.string cimport memcpy, memmove, memset
from libc.stdint cimport uint8_t, uint16_t, uint32_t, uint64_t
from libc.stdlib cimport malloc, free
from cpython.bytes cimport PyBytes_FromStringAndSize

include "_rules.pxi"

import operator

TERMINAL = -4
NUM_ACTIONS = NUM_DISTINCT_ACTIONS

_MATERIALS = ("Rubble", "Wood", "Concrete", "Brick", "Stone", "Marble")
_ROLES = ("Laborer", "Craftsman", "Architect", "Legionary", "Merchant", "Patron", "Thinker")
_END_REASONS = {END_NONE: None, END_DECK: "deck", END_SITES: "sites", END_CATACOMB: "catacomb",
                END_FORUM: "forum", END_CONCESSION: "concession"}
_INVARIANT_CODES = {
    1: "a card type is not in play exactly as often as the deck holds it",
    2: "a material does not have exactly 6 sites",
    3: "a zone's size field disagrees with its cards",
    4: "a known (public) part holds more than its hand or vault, or misses a Jack in hand",
    6: "the deciding player is not in the game",
    7: "the structure table is malformed",
    8: "an incomplete structure holds all its materials",
    9: "the deck is empty but the game goes on (R-11.1)",
    10: "no legal action in a non-terminal state",
}
PHASE_NAMES = {
    PH_LEAD: "lead", PH_FOLLOW: "follow", PH_PETITION: "petition", PH_PAY_MORE: "pay_more",
    PH_THINK: "think", PH_THINK_CHOICE: "think_choice", PH_TRIBUNAL: "tribunal",
    PH_ACTION: "action", PH_LEG_REVEAL: "legionary_reveal", PH_LEG_TAKE: "legionary_take",
    PH_LEG_GIVE: "legionary_give", PH_FOUNTAIN: "fountain", PH_PRISON: "prison",
    PH_STAIRWAY: "stairway", PH_SEWER: "sewer", PH_SENATE: "senate",
    PH_LEG_EXTRA: "legionary_extra", PH_OVER: "over",
}

# The text of A_SKIP in the phases where it always reads the same
_SKIP_TEXT = {
    PH_LEG_REVEAL: "legionary: done revealing", PH_LEG_TAKE: "legionary: done taking",
    PH_THINK: "think: skip", PH_TRIBUNAL: "tribunal: skip", PH_PETITION: "petition: done",
    PH_STAIRWAY: "stairway: skip", PH_PRISON: "prison: skip", PH_SEWER: "sewer: done",
    PH_SENATE: "senate: skip",
}

# the players[k].turn_state flag of a player who conceded (for the position loader)
CONCEDED_FLAG = P_CONCEDED

cdef uint16_t _legal_buf[MAX_LEGAL]

# A free list of GameState blocks: search clones states constantly, and a 4 KiB malloc +
# memset per clone would cost more than the copy itself. Only touched with the GIL held.
cdef enum:
    POOL_CAP = 4096
cdef GameState* _block_pool[POOL_CAP]
cdef int _block_count = 0

cdef GameState* state_alloc() except NULL:
    global _block_count
    cdef GameState* s
    if _block_count > 0:
        _block_count -= 1
        return _block_pool[_block_count]
    s = <GameState*>malloc(sizeof(GameState))
    if s == NULL:
        raise MemoryError()
    return s

cdef void state_release(GameState* s) noexcept:
    global _block_count
    if s == NULL:
        return
    if _block_count < POOL_CAP:
        _block_pool[_block_count] = s
        _block_count += 1
    else:
        free(s)

cdef inline size_t used_size(GameState* s) noexcept nogil:
    # the struct up to the last player in the game (unused player slots are never read)
    return <size_t>(<char*>&s.players[s.cfg.num_players] - <char*>s)


def observation_tensor_layout(int num_players=5):
    """[(segment name, size)] of State.observation_tensor, in order.

    Seats are relative to the observer (seat 0 = the observer, 1 = the next player
    clockwise, ...); seats beyond the player count are zeros. Counts are raw card counts
    (not normalised). For other players, `hand` and `vault` hold only their public parts.
    """
    layout = [("num_players", 4), ("imperium", 1), ("phase", 32), ("decider", 5),
              ("leader", 5), ("actor", 5), ("led_role", 7), ("demand", 6), ("deck_size", 1),
              ("jack_pile", 1), ("in_town", 6), ("out_of_town", 6), ("pool", 45),
              ("revealed", 45), ("fountain_card", 45)]
    for seat in range(5):
        for name, size in _SEAT_SEGMENTS:
            layout.append((f"seat{seat}.{name}", size))
    return layout


# Per seat: the structures segment is 5 values per building (incomplete, complete,
# materials, Stairwayed, out of town); flags are led/followed, thought, conceded; lacks is
# one bit per material the hand was seen to lack ("Glory to Rome!").
_SEAT_SEGMENTS = (("hand", 45), ("hand_size", 1), ("camp", 45), ("stockpile", 45),
                  ("vault", 45), ("vault_size", 1), ("clientele", 45), ("influence_sites", 6),
                  ("influence", 1), ("structures", 44 * 5), ("flags", 3), ("lacks", 6))
_SEAT_SIZE = sum(size for _, size in _SEAT_SEGMENTS)
_SEAT_AT = {name: sum(size for _, size in _SEAT_SEGMENTS[:k])
            for k, (name, _) in enumerate(_SEAT_SEGMENTS)}


OBSERVATION_TENSOR_SIZE = sum(size for _, size in observation_tensor_layout())


def _fired_counts():
    """How often each building's function has fired in this process (a test hook)."""
    return {_NAMES[b]: g_fired[b] for b in range(1, NUM_TYPES)}


def _reset_fired():
    for b in range(NUM_TYPES):
        g_fired[b] = 0


def _card_tables():
    """(names, materials, copies, modes) of the 45 card types, from csrc/cards.h."""
    names = tuple(GR_CARD_NAME[i].decode() for i in range(NUM_TYPES))
    materials = tuple(-1 if i == 0 else GR_CARD_MATERIAL[i] for i in range(NUM_TYPES))
    copies = tuple(GR_CARD_COPIES[i] for i in range(NUM_TYPES))
    modes = tuple(GR_CARD_MODE[i] for i in range(NUM_TYPES))
    return names, materials, copies, modes


_NAMES = _card_tables()[0]


cdef void setup_game(GameState* s, uint64_t seed, uint8_t* top, int ntop) noexcept nogil:
    # R-4: shuffle, deal hands, deal for the first leader.
    cdef int n = s.cfg.num_players
    cdef int x, c, i, j, tmp, p, m, best, remaining
    cdef int dealt[5]
    cdef int candidates = (1 << n) - 1
    cdef int unlisted[45]
    s.rng = gr_rng_seed(seed)
    s.deck_size = 0
    for x in range(NUM_TYPES):
        unlisted[x] = s.cfg.copies[x]
    for i in range(ntop):                             # a known top of the deck (validated)
        unlisted[top[i]] -= 1
    for x in range(1, NUM_TYPES):
        for c in range(unlisted[x]):
            s.deck[s.deck_size] = x
            s.deck_size += 1
    for i in range(s.deck_size - 1, 0, -1):          # Fisher-Yates
        j = gr_rng_below(&s.rng, i + 1)
        tmp = s.deck[i]
        s.deck[i] = s.deck[j]
        s.deck[j] = tmp
    for i in range(ntop - 1, -1, -1):                 # top[0] ends on top
        s.deck[s.deck_size] = top[i]
        s.deck_size += 1
    s.jack_pile = 6
    for m in range(NMAT):                             # R-4.2
        s.in_town[m] = s.cfg.in_town_per_material
        s.out_town[m] = 6 - s.cfg.in_town_per_material
    for p in range(n):                                # R-4.5
        for i in range(s.cfg.hand_orders):
            hand_add(&s.players[p], deck_draw(s), False)
        for i in range(s.cfg.hand_jacks):
            s.jack_pile -= 1
            hand_add(&s.players[p], JACK, True)
    while True:                                       # R-4.6
        if s.deck_size < n:
            break                                     # (config guarantees enough cards)
        best = NUM_TYPES
        for p in range(n):
            if (candidates >> p) & 1:
                dealt[p] = deck_draw(s)
                s.pool[dealt[p]] += 1
                if dealt[p] < best:
                    best = dealt[p]
        remaining = 0
        for p in range(n):
            if (candidates >> p) & 1 and dealt[p] == best:
                remaining |= 1 << p
        candidates = remaining
        if candidates & (candidates - 1) == 0:
            break
    p = 0
    while not (candidates >> p) & 1:
        p += 1
    s.turn.leader = p
    begin_turn(s)


cdef list _zone(uint8_t* counts):
    out = []
    cdef int x
    for x in range(NUM_TYPES):
        if counts[x]:
            out.extend([_NAMES[x]] * counts[x])
    out.sort()
    return out


_TURN_FIELDS = ("phase", "leader", "decider", "actor", "led_role", "pos", "think_ctx", "petition_role", "petition_picked", "petition_last", "ready", "stack_n", "cur_role", "cur_src", "cur_parts", "leg_k", "leg_revealed", "leg_last", "victim_pos", "give_mat", "end_reason", "winners_mask", "give_kind", "fountain_card", "pending_end", "eot_step", "action_base", "extra_ok", "turn_number", "decisions", "demand", "take_left", "give_left", "pending_clients", "revealed", "stack_kind", "stack_role", "stack_count")


cdef dict turn_to_dict(Turn* t):
    # explicit: Cython would turn uint8 arrays into NUL-truncated bytes
    return {
        "phase": t.phase,
        "leader": t.leader,
        "decider": t.decider,
        "actor": t.actor,
        "led_role": t.led_role,
        "pos": t.pos,
        "think_ctx": t.think_ctx,
        "petition_role": t.petition_role,
        "petition_picked": t.petition_picked,
        "petition_last": t.petition_last,
        "ready": t.ready,
        "stack_n": t.stack_n,
        "cur_role": t.cur_role,
        "cur_src": t.cur_src,
        "cur_parts": t.cur_parts,
        "leg_k": t.leg_k,
        "leg_revealed": t.leg_revealed,
        "leg_last": t.leg_last,
        "victim_pos": t.victim_pos,
        "give_mat": t.give_mat,
        "end_reason": t.end_reason,
        "winners_mask": t.winners_mask,
        "give_kind": t.give_kind,
        "fountain_card": t.fountain_card,
        "pending_end": t.pending_end,
        "eot_step": t.eot_step,
        "action_base": t.action_base,
        "extra_ok": t.extra_ok,
        "turn_number": t.turn_number,
        "decisions": t.decisions,
        "demand": [t.demand[i] for i in range(6)],
        "take_left": [t.take_left[i] for i in range(6)],
        "give_left": [t.give_left[i] for i in range(6)],
        "pending_clients": [t.pending_clients[i] for i in range(45)],
        "revealed": [t.revealed[i] for i in range(45)],
        "stack_kind": [t.stack_kind[i] for i in range(STACK_CAP)],
        "stack_role": [t.stack_role[i] for i in range(STACK_CAP)],
        "stack_count": [t.stack_count[i] for i in range(STACK_CAP)],
    }


cdef void _load_u8(uint8_t* dst, values, int n, str name) except *:
    if len(values) != n:
        raise ValueError(f"{name}: expected {n} values")
    for i in range(n):
        dst[i] = values[i]


cdef void turn_from_dict(Turn* t, d) except *:
    cdef int i
    missing = [k for k in _TURN_FIELDS if k not in d]
    if missing:
        raise ValueError(f"missing field(s) {missing}")
    unknown = [k for k in d if k not in _TURN_FIELDS]
    if unknown:
        raise ValueError(f"unknown field(s) {unknown}")
    t.phase = d["phase"]
    t.leader = d["leader"]
    t.decider = d["decider"]
    t.actor = d["actor"]
    t.led_role = d["led_role"]
    t.pos = d["pos"]
    t.think_ctx = d["think_ctx"]
    t.petition_role = d["petition_role"]
    t.petition_picked = d["petition_picked"]
    t.petition_last = d["petition_last"]
    t.ready = d["ready"]
    t.stack_n = d["stack_n"]
    t.cur_role = d["cur_role"]
    t.cur_src = d["cur_src"]
    t.cur_parts = d["cur_parts"]
    t.leg_k = d["leg_k"]
    t.leg_revealed = d["leg_revealed"]
    t.leg_last = d["leg_last"]
    t.victim_pos = d["victim_pos"]
    t.give_mat = d["give_mat"]
    t.end_reason = d["end_reason"]
    t.winners_mask = d["winners_mask"]
    t.give_kind = d["give_kind"]
    t.fountain_card = d["fountain_card"]
    t.pending_end = d["pending_end"]
    t.eot_step = d["eot_step"]
    t.action_base = d["action_base"]
    t.extra_ok = d["extra_ok"]
    t.turn_number = d["turn_number"]
    t.decisions = d["decisions"]
    _load_u8(t.demand, d["demand"], 6, "demand")
    _load_u8(t.take_left, d["take_left"], 6, "take_left")
    _load_u8(t.give_left, d["give_left"], 6, "give_left")
    _load_u8(t.pending_clients, d["pending_clients"], 45, "pending_clients")
    _load_u8(t.revealed, d["revealed"], 45, "revealed")
    _load_u8(t.stack_kind, d["stack_kind"], STACK_CAP, "stack_kind")
    _load_u8(t.stack_role, d["stack_role"], STACK_CAP, "stack_role")
    _load_u8(t.stack_count, d["stack_count"], STACK_CAP, "stack_count")


def _integer(value, what, error=ValueError):
    """`value` as a Python int (int or numpy integer, never a bool); else `error` naming
    `what`. Arguments are checked here so that no OverflowError comes from a C conversion."""
    if not isinstance(value, bool):
        try:
            return operator.index(value)
        except TypeError:
            pass
    raise error(f"{what} must be an integer, got {value!r:.40}")


def _seed_value(seed, name="seed"):
    """A seed as the 64-bit value the generator takes."""
    return _integer(seed, name) & 0xFFFFFFFFFFFFFFFF


def _decision_budget(max_decisions):
    """max_decisions as a C int (a larger budget is as good as unlimited)."""
    return max(-1, min(_integer(max_decisions, "max_decisions"), 2 ** 31 - 1))


cdef class State:
    """One game state. See glory_ai.game for the documented API."""

    cdef GameState* s
    cdef object _config

    def __cinit__(self):
        self.s = state_alloc()      # filled by the creator: clone, _load_config

    def __init__(self, *args, **kwargs):
        # internal constructors use State.__new__, which skips this
        raise TypeError("State cannot be built directly: use Game(...).new_initial_state(seed) "
                        "or State.from_dict(position)")

    def __dealloc__(self):
        state_release(self.s)
        self.s = NULL

    # ---- construction -----------------------------------------------------------------

    @staticmethod
    def _new_game(config, seed, deck_top=None):
        cdef State st = State.__new__(State)
        cdef int i
        st._load_config(config)
        cdef uint8_t top[256]
        cdef int ntop = 0
        if deck_top is not None:
            ntop = len(deck_top)
            for i in range(ntop):
                top[i] = deck_top[i]
        setup_game(st.s, <uint64_t>_seed_value(seed), top, ntop)
        return st

    def _load_config(self, config):
        copies = config.deck_copies()
        memset(self.s, 0, sizeof(GameState))
        self.s.cfg.num_players = config.num_players
        self.s.cfg.mode = MODE_IMPERIUM if config.mode == "imperium" else MODE_REPUBLIC
        self.s.cfg.petition_size = config.petition_size
        self.s.cfg.refill_base = config.refill_size
        self.s.cfg.in_town_per_material = config.in_town
        self.s.cfg.hand_orders = 4 if config.mode == "imperium" else 5
        self.s.cfg.hand_jacks = 1 if config.mode == "imperium" else 0
        for x in range(NUM_TYPES):
            self.s.cfg.copies[x] = copies[x]
        self._config = config

    def clone(self):
        """A copy of this state (one struct copy)."""
        cdef State c = State.__new__(State)
        memcpy(c.s, self.s, used_size(self.s))
        c._config = self._config
        return c

    def __copy__(self):
        return self.clone()

    def __deepcopy__(self, memo):
        return self.clone()

    def __reduce__(self):
        return (_state_from_bytes, (self._config, self._raw_bytes()))

    def _raw_bytes(self):
        """The struct's bytes (for pickling and exact-equality checks in tests)."""
        return PyBytes_FromStringAndSize(<char*>self.s, used_size(self.s))

    def _set_raw_bytes(self, bytes raw):
        if len(raw) != used_size(self.s):
            raise ValueError("raw state has the wrong size for this build")
        memcpy(self.s, <char*>raw, len(raw))

    @property
    def config(self):
        """The GameConfig (rule variants) of this game."""
        return self._config

    @property
    def num_players(self):
        return self.s.cfg.num_players

    # ---- the OpenSpiel-style core API --------------------------------------------------

    def current_player(self):
        """The player who decides now (a victim choosing what to give included); TERMINAL (-4) at the end."""
        if self.s.turn.phase == PH_OVER:
            return TERMINAL
        return self.s.turn.decider

    def is_terminal(self):
        return self.s.turn.phase == PH_OVER

    def legal_actions(self):
        """The legal actions of current_player(), as integers (ascending)."""
        cdef int n = gen_legal(self.s, _legal_buf)
        return sorted([_legal_buf[i] for i in range(n)])

    cdef bint _is_legal(self, int action):
        cdef int n = gen_legal(self.s, _legal_buf)
        cdef int i
        for i in range(n):
            if _legal_buf[i] == action:
                return True
        return False

    def apply_action(self, action):
        """Apply one legal action; ValueError (state unchanged) if it is not legal."""
        action = _integer(action, "an action")
        if self.s.turn.phase == PH_OVER:
            raise ValueError("the game is over: no action can be applied")
        if action < 0 or action >= NUM_DISTINCT_ACTIONS or not self._is_legal(action):
            legal = self.legal_action_strings()
            raise ValueError(
                f"illegal action {action} ({self._describe(action)}) for player "
                f"{self.s.turn.decider} in phase '{PHASE_NAMES.get(self.s.turn.phase)}'; "
                f"legal: {legal}")
        apply_action_c(self.s, action)

    def _apply_unchecked(self, int action):
        """Apply an action without the legality check (fast path for trusted callers)."""
        apply_action_c(self.s, action)

    def random_playout(self, seed, max_decisions=1000000):
        """Play uniformly random legal actions to the end in C; returns the decisions made."""
        cdef uint64_t rng = gr_rng_seed(<uint64_t>_seed_value(seed))
        cdef int budget = _decision_budget(max_decisions)
        cdef int made
        with nogil:
            made = random_playout_c(self.s, &rng, budget)
        if made < 0:
            raise RuntimeError("engine bug: a non-terminal state has no legal action")
        return made

    def _stress(self, seed, bint try_all=False, bint builder=False, int stop_after=-1):
        """Random playout checking invariants at every step (for tests).

        Returns (error_code, step): 0 means every step passed. Codes: 1 card count,
        2 site count, 3 zone count field, 4 known part larger than the zone (or a hidden Jack), 6 bad decider,
        7/8 structure table, 9 empty deck in a live game, 10 no legal action, 11 bad id, 12 duplicate, 13/20+ an action
        that fails or breaks an invariant. `builder` biases play towards building (hires,
        foundations, materials, function choices) so that the functions come into play.
        `stop_after` >= 0 stops after that many decisions (the state is left there).
        """
        cdef uint64_t rng = gr_rng_seed(<uint64_t>_seed_value(seed))
        cdef int step = 0, code
        with nogil:
            code = stress_game(self.s, &rng, try_all, &step, builder, stop_after)
        return code, step

    # ---- hidden information (RULES.md §5) ---------------------------------------------

    def _masked(self, player):
        player = self._check_player(player)
        cdef State masked = self.clone()
        mask_hidden(masked.s, player)
        return masked

    def observation(self, player):
        """A JSON-safe dict of exactly what `player` knows now.

        Other players' hands and vaults appear as sizes plus their public parts
        (`known_hand`, `known_vault`: Jacks taken, cards revealed to a Legionary, cards
        vaulted from a stockpile, ...); the deck as its size; a Fountain card only for the
        player who drew it.
        """
        player = self._check_player(player)
        cdef State masked = self._masked(player)
        d = masked.to_dict()
        del d["rng"]
        del d["deck"]
        d["deck_size"] = self.s.deck_size
        d["observer"] = player
        for q, pd in enumerate(d["players"]):
            pd["hand_size"] = self.s.players[q].hand_count
            pd["vault_size"] = self.s.players[q].vault_count
            if q != player:
                del pd["hand"]
                del pd["vault"]
        d["turn"]["fountain_card"] = (_NAMES[masked.s.turn.fountain_card]
                                      if masked.s.turn.fountain_card else None)
        return d

    def information_state_key(self, player):
        """A compact key (16 bytes), equal for two states exactly when `player` cannot tell
        them apart (given the same public history): a hash of the state with everything
        the player cannot know blanked out."""
        import hashlib
        player = self._check_player(player)
        cdef State masked = self._masked(player)
        digest = hashlib.blake2b(masked._raw_bytes(), digest_size=16)
        digest.update(bytes([player]))
        return digest.digest()

    def observation_tensor(self, player):
        """A flat numpy.float32 vector of what `player` knows; layout in
        glory_ai.core.engine.observation_tensor_layout()."""
        import numpy as np
        player = self._check_player(player)
        cdef State masked = self._masked(player)
        cdef GameState* m = masked.s
        cdef int n = m.cfg.num_players
        cdef int seat, x, i
        out = np.zeros(OBSERVATION_TENSOR_SIZE, dtype=np.float32)
        cdef float[:] v = out
        i = 0
        v[i + n - 2] = 1
        i += 4
        v[i] = 1 if m.cfg.mode == MODE_IMPERIUM else 0
        i += 1
        if m.turn.phase < 32:
            v[i + m.turn.phase] = 1
        i += 32
        for who in (m.turn.decider, m.turn.leader, m.turn.actor):
            if m.turn.phase != PH_OVER:
                v[i + (who - player) % n] = 1
            i += 5
        v[i + (0 if m.turn.led_role == NO_ROLE else 1 + m.turn.led_role)] = 1
        i += 7
        for x in range(6):
            v[i + x] = m.turn.demand[x]
        i += 6
        v[i] = m.deck_size
        v[i + 1] = m.jack_pile
        i += 2
        for x in range(6):
            v[i + x] = m.in_town[x]
            v[i + 6 + x] = m.out_town[x]
        i += 12
        for x in range(NUM_TYPES):
            v[i + x] = m.pool[x]
            v[i + 45 + x] = m.turn.revealed[x]
        i += 90
        if m.turn.fountain_card:                    # masked unless `player` drew it
            v[i + m.turn.fountain_card] = 1
        i += 45
        for seat in range(5):
            if seat < n:
                self._seat_features(m, (player + seat) % n, v, i)
            i += _SEAT_SIZE
        return out

    cdef void _seat_features(self, GameState* m, int q, float[:] v, int i):
        # one seat of the observation tensor, segments at their _SEAT_AT offsets from `i`
        cdef Player* pl = &m.players[q]
        cdef Structure* st
        cdef int x, base
        cdef int hand = i + _SEAT_AT["hand"], camp = i + _SEAT_AT["camp"]
        cdef int stockpile = i + _SEAT_AT["stockpile"], vault = i + _SEAT_AT["vault"]
        cdef int clientele = i + _SEAT_AT["clientele"], sites = i + _SEAT_AT["influence_sites"]
        cdef int flags = i + _SEAT_AT["flags"], lacks = i + _SEAT_AT["lacks"]
        for x in range(NUM_TYPES):
            v[hand + x] = pl.hand[x]
            v[camp + x] = pl.camp[x]
            v[stockpile + x] = pl.stockpile[x]
            v[vault + x] = pl.vault[x]
            v[clientele + x] = pl.clientele[x]
        v[i + _SEAT_AT["hand_size"]] = pl.hand_count
        v[i + _SEAT_AT["vault_size"]] = pl.vault_count
        for x in range(6):
            v[sites + x] = pl.influence_sites[x]
            v[lacks + x] = (pl.lacks >> x) & 1
        v[i + _SEAT_AT["influence"]] = influence_of(m, q)
        for x in range(m.nstruct):
            st = &m.structures[x]
            if st.owner != q:
                continue
            base = i + _SEAT_AT["structures"] + (st.building - 1) * 5
            v[base] = 0 if st.flags & S_COMPLETE else 1
            v[base + 1] = 1 if st.flags & S_COMPLETE else 0
            v[base + 2] = st.nmat
            v[base + 3] = 1 if st.stairway else 0
            v[base + 4] = 1 if st.flags & S_OUT_OF_TOWN else 0
        v[flags] = 1 if pl.flags & P_LED_OR_FOLLOWED else 0
        v[flags + 1] = 1 if pl.flags & P_THOUGHT else 0
        v[flags + 2] = 1 if pl.flags & P_CONCEDED else 0

    def determinize(self, observer, seed):
        """A full state consistent with everything `observer` knows: the deck, the hidden
        parts of the other hands and vaults (and another player's Fountain card) are
        reshuffled and dealt back into the same places and counts, uniformly at random."""
        cdef int who = self._check_player(observer)
        cdef uint64_t rng = gr_rng_seed(<uint64_t>_seed_value(seed))
        cdef State world = self.clone()
        with nogil:
            determinize_c(world.s, who, &rng)
        return world

    def _probe_code(self):
        """0 if the state passes the invariant checker and every legal action applies to a
        copy without breaking it (used to refuse inconsistent position files)."""
        cdef uint16_t buf[MAX_LEGAL]
        cdef GameState* trial
        cdef int n, i, code = check_state(self.s)
        if code or self.s.turn.phase == PH_OVER:
            return code
        n = gen_legal(self.s, buf)
        if n <= 0:
            return 10
        trial = <GameState*>malloc(sizeof(GameState))
        for i in range(n):
            memcpy(trial, self.s, sizeof(GameState))
            apply_action_c(trial, buf[i])
            code = check_state(trial)
            if code:
                break
        free(trial)
        return code

    def _decision_would_be_asked(self):
        """True if the engine would ask the pending decision in this state (a test hook for
        determinize's consistency check: it must hold in every state play reaches)."""
        return bool(decision_would_be_asked(self.s))

    def _invariant_code(self):
        """0 if the C-level invariant checker passes, else its code (see _stress)."""
        return check_state(self.s)

    def _bench_determinize(self, int observer, int iterations=100000):
        """ns per Cython-level determinization (copy + determinize_c, no Python calls)."""
        import time
        cdef GameState* world = <GameState*>malloc(sizeof(GameState))
        cdef uint64_t rng = gr_rng_seed(1)
        cdef int i
        cdef size_t size = used_size(self.s)
        start = time.perf_counter()
        with nogil:
            for i in range(iterations):
                memcpy(world, self.s, size)
                determinize_c(world, observer, &rng)
        elapsed = time.perf_counter() - start
        free(world)
        return elapsed / iterations * 1e9

    def scores(self):
        """Victory points of every player (RULES §12), computable at any time."""
        return [score_of(self.s, p) for p in range(self.s.cfg.num_players)]

    def score_breakdown(self, player):
        player = self._check_player(player)
        cdef int p = player
        vault = 0
        for x in range(1, NUM_TYPES):
            vault += self.s.players[p].vault[x] * material_value(mat_of(x))
        statue = 3 if is_active(self.s, p, B_STATUE) else 0
        wall = self.s.players[p].stockpile_count // 2 if is_active(self.s, p, B_WALL) else 0
        influence = influence_of(self.s, p)
        total = score_of(self.s, p)
        return {"influence": influence, "vault": vault,
                "merchant_bonus": total - influence - vault - statue - wall,
                "statue": statue, "wall": wall, "total": total}

    def winners(self):
        """Winning players (several on a shared victory); empty before the end."""
        if self.s.turn.phase != PH_OVER:
            return []
        return [p for p in range(self.s.cfg.num_players) if (self.s.turn.winners_mask >> p) & 1]

    def returns(self):
        """Per player: 1/k for each of k winners, 0 otherwise; all 0 before the end."""
        win = self.winners()
        return [(1.0 / len(win) if p in win else 0.0) for p in range(self.s.cfg.num_players)]

    def end_reason(self):
        """None, or why the game ended: 'deck', 'sites', 'catacomb', 'forum', 'concession'."""
        if self.s.turn.phase != PH_OVER:
            return None
        return _END_REASONS[self.s.turn.end_reason]

    def concede(self, player):
        """The player leaves the game (R-11.1(5)); the last one remaining wins.

        A conceded player is skipped as leader, follower, actor and victim and cannot win.
        A decision pending for them is settled without touching the deck where possible: a
        leader's or follower's turn passes on (no think), an optional step is skipped, and
        anything else (a petition under way, a victim's give) takes its first legal action.
        """
        player = self._check_player(player)
        if self.s.turn.phase == PH_OVER:
            raise ValueError("the game is over")
        if conceded(self.s, player):
            raise ValueError(f"player {player} has already conceded")
        self.s.players[player].flags |= P_CONCEDED
        remaining = [p for p in range(self.s.cfg.num_players) if not conceded(self.s, p)]
        if len(remaining) == 1:
            end_game(self.s, END_CONCESSION, 1 << remaining[0])
            return
        while self.s.turn.phase != PH_OVER and conceded(self.s, self.s.turn.decider):
            if self.s.turn.phase == PH_LEAD or self.s.turn.phase == PH_FOLLOW:
                # the turn passes on as after a think, without the think (which could draw
                # the deck's last card): a leader's turn ends, a follower's seat is passed
                self.s.turn.think_ctx = CTX_LEAD if self.s.turn.phase == PH_LEAD else CTX_FOLLOW
                finish_think(self.s)
                advance(self.s)
                continue
            legal = self.legal_actions()
            apply_action_c(self.s, A_SKIP if A_SKIP in legal else legal[0])

    # ---- inspection helpers ------------------------------------------------------------

    def _check_player(self, player):
        """The player as an int: TypeError unless an integer, ValueError unless a seat."""
        player = _integer(player, "player", TypeError)
        if not 0 <= player < self.s.cfg.num_players:
            raise ValueError(f"player must be 0..{self.s.cfg.num_players - 1}, got {player}")
        return player

    def influence(self, player):
        player = self._check_player(player)
        return influence_of(self.s, player)

    def clientele_limit(self, player):
        player = self._check_player(player)
        return clientele_limit(self.s, player)

    def vault_limit(self, player):
        player = self._check_player(player)
        return vault_limit(self.s, player)

    def refill_size(self, player):
        player = self._check_player(player)
        return refill_size(self.s, player)

    def is_active(self, player, building):
        """Whether `building`'s function is active for `player` (R-10.6)."""
        from glory_ai.cards import card_id
        player = self._check_player(player)
        return bool(is_active(self.s, player, card_id(building, "building")))

    def phase(self):
        return PHASE_NAMES.get(self.s.turn.phase, str(self.s.turn.phase))

    @property
    def leader(self):
        return self.s.turn.leader

    @property
    def led_role(self):
        return None if self.s.turn.led_role == NO_ROLE else _ROLES[self.s.turn.led_role]

    @property
    def deck_size(self):
        return self.s.deck_size

    @property
    def turn_number(self):
        return self.s.turn.turn_number

    @property
    def decisions(self):
        return self.s.turn.decisions

    def zone(self, str name, int player=-1):
        """A zone as a sorted list of card names: 'pool', 'deck' (top first), or a player's
        'hand', 'camp', 'stockpile', 'vault', 'clientele', 'known_hand', 'known_vault'."""
        cdef Player* pl
        if name == "pool":
            return _zone(self.s.pool)
        if name == "deck":
            return [_NAMES[self.s.deck[i]] for i in range(self.s.deck_size - 1, -1, -1)]
        if name == "out_of_play":
            return _zone(self.s.out_of_play)
        player = self._check_player(player)
        pl = &self.s.players[player]
        if name == "hand":
            return _zone(pl.hand)
        if name == "known_hand":
            return _zone(pl.hand_known)
        if name == "camp":
            return _zone(pl.camp)
        if name == "stockpile":
            return _zone(pl.stockpile)
        if name == "vault":
            return _zone(pl.vault)
        if name == "known_vault":
            return _zone(pl.vault_known)
        if name == "clientele":
            return _zone(pl.clientele)
        raise ValueError(f"unknown zone {name!r}")

    def _check_invariants(self):
        """Raise AssertionError if the C-level checker finds a broken invariant."""
        code = check_state(self.s)
        if code:
            raise AssertionError(f"invariant {code} broken: {_INVARIANT_CODES.get(code, '?')}")

    # ---- notation ------------------------------------------------------------------------

    def _describe(self, action):
        try:
            return self.action_to_string(action)
        except ValueError:
            return "not an action"

    def action_to_string(self, action):
        """Readable text of an action in this state (docs/notation.md)."""
        action = _integer(action, "an action id")
        if not 0 <= action < NUM_DISTINCT_ACTIONS:
            raise ValueError(f"{action} is not an action id (0..{NUM_DISTINCT_ACTIONS - 1})")
        return self._action_text(action)

    def _action_text(self, int action):
        cdef Turn* t = &self.s.turn
        cdef int x, idx
        phase = t.phase
        role_word = _ROLES[t.cur_role].lower() if t.cur_role < 7 else "action"
        if action == A_SKIP:
            if phase == PH_ACTION:
                return f"{role_word}: {'done' if t.cur_parts else 'skip'}"
            if phase == PH_LEG_EXTRA:
                return f"legionary: spare P{self._extra_victim()} ({self._extra_name()})"
            return _SKIP_TEXT.get(phase, "done")
        if action == A_THINK_JACK:
            return "tribunal: take Jack" if phase == PH_TRIBUNAL else "think: take Jack"
        if action == A_THINK_DRAW:
            p = t.decider
            if self.s.players[p].hand_count < refill_size(self.s, p):
                return "think: refill"
            return "think: draw 1"
        if action == A_THINK_VOMITORIUM:
            return "think: discard hand (Vomitorium)"
        if action < A_PLAY_CARD:
            return f"think: discard {_NAMES[action - A_THINK_LATRINE]} (Latrine)"
        verb = "lead" if (phase == PH_LEAD or (phase in (PH_PAY_MORE, PH_PETITION) and t.pos == 0)) else "follow"
        if action < A_PLAY_JACK:
            x = action - A_PLAY_CARD + 1
            return f"{verb} {_ROLES[mat_of(x)]} with {_NAMES[x]}"
        if action < A_PLAY_PETITION:
            return f"{verb} {_ROLES[action - A_PLAY_JACK]} with Jack"
        if action < A_PLAY_CRANE:
            idx = action - A_PLAY_PETITION
            return f"{verb} {_ROLES[idx // 6]} by petition of {_ROLES[idx % 6]}"
        if action < A_PETITION_PICK:
            return f"{verb} Architect with {_NAMES[action - A_PLAY_CRANE + 1]} (Crane)"
        if action < A_HIRE_POOL:
            return f"petition: {_NAMES[action - A_PETITION_PICK + 1]}"
        if action < A_HIRE_DECK:
            return f"patron: hire {_NAMES[action - A_HIRE_POOL + 1]} from pool"
        if action == A_HIRE_DECK:
            return "patron: hire top of deck"
        if action < A_TAKE_POOL:
            return f"patron: hire {_NAMES[action - A_HIRE_HAND + 1]} from hand"
        if action < A_DOCK_HAND:
            return f"laborer: take {_NAMES[action - A_TAKE_POOL + 1]} from pool"
        if action < A_LAY:
            return f"laborer: move {_NAMES[action - A_DOCK_HAND + 1]} from hand"
        if phase == PH_FOUNTAIN:
            role_word = "fountain"
        if action < A_ADD:
            if action < A_LAY_STATUE:
                x = action - A_LAY + 1
                text = f"{role_word}: lay {_NAMES[x]}"
                site = mat_of(x)
            else:
                x = B_STATUE
                site = action - A_LAY_STATUE
                text = f"{role_word}: lay Statue on {_MATERIALS[site]}"
            if phase in (PH_ACTION, PH_FOUNTAIN) and self.s.in_town[site] == 0:
                text += " out of town"
            return text
        if action < A_VAULT_STOCKPILE:
            if action < A_ADD_POOL:
                idx = action - A_ADD
                return f"{role_word}: add {_NAMES[idx % 44 + 1]} to {_NAMES[idx // 44 + 1]}"
            idx = action - A_ADD_POOL
            return f"{role_word}: add {_NAMES[idx % 44 + 1]} from pool to {_NAMES[idx // 44 + 1]}"
        if action < A_VAULT_DECK:
            return f"merchant: vault {_NAMES[action - A_VAULT_STOCKPILE + 1]} from stockpile"
        if action == A_VAULT_DECK:
            return "merchant: vault top of deck"
        if action < A_REVEAL:
            return f"merchant: vault {_NAMES[action - A_VAULT_HAND + 1]} from hand"
        if action < A_LEG_TAKE:
            return f"legionary: reveal {_NAMES[action - A_REVEAL + 1]}"
        if action < A_GIVE:
            return f"legionary: take {_NAMES[action - A_LEG_TAKE + 1]} from pool"
        if action < A_FOUNTAIN_DRAW:
            return f"give {_NAMES[action - A_GIVE + 1]}"
        if action == A_FOUNTAIN_DRAW:
            return "craftsman: draw from deck (Fountain)"
        if action == A_FOUNTAIN_KEEP:
            if phase == PH_FOUNTAIN and t.fountain_card:
                return f"fountain: keep {_NAMES[t.fountain_card]}"
            return "fountain: keep the card"
        if action < A_GIVE_CLIENT:
            return f"give {_NAMES[action - A_GIVE_STOCKPILE + 1]} from stockpile"
        if action < A_GIVE_STRUCTURE:
            return f"give client {_NAMES[action - A_GIVE_CLIENT + 1]}"
        if action < A_PRISON:
            return f"give structure {_NAMES[action - A_GIVE_STRUCTURE + 1]}"
        if action < A_STAIRWAY:
            idx = action - A_PRISON
            return f"prison: take {_NAMES[idx % 44 + 1]} from P{idx // 44}"
        if action < A_SEWER:
            idx = action - A_STAIRWAY
            card = _NAMES[(idx >> 1) % 44 + 1]
            building = _NAMES[(idx >> 1) // 44 % 44 + 1]
            owner = (idx >> 1) // (44 * 44)
            source = " from pool" if idx & 1 else ""
            return f"stairway: add {card}{source} to {building} of P{owner}"
        if action < A_SENATE:
            return f"sewer: move {_NAMES[action - A_SEWER + 1]} to stockpile"
        if action == A_SENATE:
            return "senate: take Jacks"
        if phase == PH_LEG_EXTRA:
            return f"legionary: use {self._extra_name()} on P{self._extra_victim()}"
        return "legionary: use extra"

    def _extra_victim(self):
        return (self.s.turn.actor + self.s.turn.victim_pos) % self.s.cfg.num_players

    def _extra_name(self):
        return ("hand", "Bridge", "Colosseum", "Domus Aurea")[self.s.turn.give_kind]

    def legal_action_strings(self):
        return [self._action_text(a) for a in self.legal_actions()]

    def string_to_action(self, str text not None):
        """The legal action whose string is `text` (case and outer blanks ignored)."""
        wanted = " ".join(text.split()).lower()
        for a in self.legal_actions():
            if self._action_text(a).lower() == wanted:
                return a
        raise ValueError(f"{text!r} is not a legal action here; legal: {self.legal_action_strings()}")

    def apply_action_string(self, str text not None):
        self.apply_action(self.string_to_action(text))

    # ---- serialisation -----------------------------------------------------------------

    def to_dict(self):
        """A JSON-safe dict that State.from_dict turns back into this exact state."""
        cdef Player* pl
        cdef Structure* st
        cdef int p, i, k
        players = []
        for p in range(self.s.cfg.num_players):
            pl = &self.s.players[p]
            structures = []
            for i in range(self.s.nstruct):
                st = &self.s.structures[i]
                if st.owner != p:
                    continue
                d = {"building": _NAMES[st.building], "site": _MATERIALS[st.site],
                     "out_of_town": bool(st.flags & S_OUT_OF_TOWN),
                     "materials": [_NAMES[st.materials[k]] for k in range(st.nmat)],
                     "complete": bool(st.flags & S_COMPLETE)}
                if st.stairway:
                    d["stairway"] = _NAMES[st.stairway]
                structures.append(d)
            influence = []
            for m in range(NMAT):
                influence.extend([_MATERIALS[m]] * pl.influence_sites[m])
            players.append({
                "hand": _zone(pl.hand), "camp": _zone(pl.camp), "stockpile": _zone(pl.stockpile),
                "vault": _zone(pl.vault), "clientele": _zone(pl.clientele),
                "influence": influence, "structures": structures,
                "known_hand": _zone(pl.hand_known), "known_vault": _zone(pl.vault_known),
                "turn_state": {"camp_units": pl.camp_units, "flags": pl.flags,
                               "jacks_played": pl.jacks_played},
                "lacks": [_MATERIALS[m] for m in range(NMAT) if (pl.lacks >> m) & 1],
            })
        cdef dict turn = turn_to_dict(&self.s.turn)
        turn["phase_name"] = PHASE_NAMES.get(self.s.turn.phase, "")
        return {
            "format": "glory_ai/state", "version": 1,
            "num_players": self.s.cfg.num_players,
            "mode": self._config.mode,
            "variant": self._config.variant(),
            "leader": self.s.turn.leader,
            "pool": _zone(self.s.pool),
            "deck": self.zone("deck"),
            "out_of_play": _zone(self.s.out_of_play),
            "jack_pile": self.s.jack_pile,
            "sites": {"in_town": {_MATERIALS[m]: self.s.in_town[m] for m in range(NMAT)},
                      "out_of_town": {_MATERIALS[m]: self.s.out_town[m] for m in range(NMAT)}},
            "players": players,
            "turn": turn,
            "rng": str(self.s.rng),
        }

    @staticmethod
    def from_dict(d):
        """Build a state from a to_dict() output or a hand-written position (docs/notation.md)."""
        from glory_ai._positions import load_position
        return load_position(d)

    # low-level setters used by glory_ai._positions (validated there)
    def _set_zone(self, str name, int player, list counts):
        cdef Player* pl
        cdef uint8_t* arr
        if name == "pool":
            arr = self.s.pool
        elif name == "out_of_play":
            arr = self.s.out_of_play
        else:
            pl = &self.s.players[player]
            if name == "hand":
                arr = pl.hand
            elif name == "camp":
                arr = pl.camp
            elif name == "stockpile":
                arr = pl.stockpile
            elif name == "vault":
                arr = pl.vault
            elif name == "clientele":
                arr = pl.clientele
            elif name == "known_hand":
                arr = pl.hand_known
            elif name == "known_vault":
                arr = pl.vault_known
            else:
                raise ValueError(name)
        for x in range(NUM_TYPES):
            arr[x] = counts[x]
        if name not in ("pool", "out_of_play"):
            pl = &self.s.players[player]
            pl.hand_count = sum(pl.hand[x] for x in range(NUM_TYPES))
            pl.stockpile_count = sum(pl.stockpile[x] for x in range(NUM_TYPES))
            pl.vault_count = sum(pl.vault[x] for x in range(NUM_TYPES))
            pl.clientele_count = sum(pl.clientele[x] for x in range(NUM_TYPES))

    def _set_deck(self, list top_first):
        self.s.deck_size = len(top_first)
        for i, x in enumerate(reversed(top_first)):
            self.s.deck[i] = x

    def _shuffle_deck(self):
        cdef int i, j, tmp
        for i in range(self.s.deck_size - 1, 0, -1):
            j = gr_rng_below(&self.s.rng, i + 1)
            tmp = self.s.deck[i]
            self.s.deck[i] = self.s.deck[j]
            self.s.deck[j] = tmp

    def _set_misc(self, jack_pile, in_town, out_town, leader):
        self.s.jack_pile = jack_pile
        for m in range(NMAT):
            self.s.in_town[m] = in_town[m]
            self.s.out_town[m] = out_town[m]
        self.s.turn.leader = leader

    def _set_rng(self, uint64_t value):
        self.s.rng = value

    def _seed_rng(self, seed):
        self.s.rng = gr_rng_seed(<uint64_t>_seed_value(seed))

    def _set_player(self, int player, influence_sites, structures, turn_state, int lacks=0):
        cdef Player* pl = &self.s.players[player]
        cdef Structure* st
        for m in range(NMAT):
            pl.influence_sites[m] = influence_sites[m]
        if self.s.nstruct + len(structures) > MAX_STRUCTURES:
            raise ValueError(f"players[{player}].structures: at most {MAX_STRUCTURES} structures in all")
        for building, site, flags, materials, stairway in structures:
            st = &self.s.structures[self.s.nstruct]
            self.s.nstruct += 1
            st.owner = player
            st.building = building
            st.site = site
            st.flags = flags
            st.nmat = len(materials)
            for k in range(3):
                st.materials[k] = materials[k] if k < len(materials) else 0
            st.stairway = stairway
        pl.lacks = lacks
        pl.camp_units = turn_state.get("camp_units", 0)
        pl.flags = turn_state.get("flags", 0)
        pl.jacks_played = turn_state.get("jacks_played", 0)

    def _set_turn(self, turn):
        turn_from_dict(&self.s.turn, turn)

    def _begin(self):
        refresh_active(self.s)
        begin_turn(self.s)

    def _refresh(self):
        refresh_active(self.s)


    # ---- display -----------------------------------------------------------------------

    def __repr__(self):
        return (f"<glory_ai.State {self.s.cfg.num_players}p turn {self.s.turn.turn_number} "
                f"phase {self.phase()} player {self.current_player()}>")

    def __str__(self):
        from glory_ai._display import render
        return render(self)


def _state_from_bytes(config, raw):
    cdef State st = State.__new__(State)
    st._load_config(config)
    st._set_raw_bytes(raw)
    return st
