# The Cython core: the nogil rules engine (the _*.pxi includes, one compilation unit so
# that nothing stops inlining) and State, a thin Python object owning one GameState.
# The C API other Cython modules use is declared in engine.pxd; the documented Python face
# is State's methods here and the package's Game. Nothing here imports from the package
# above the core: what the engine needs from Python (enums, errors, the text display, the
# rule variants) lives in glory_ai.core as well. Map of the files: docs/engine.md.
from libc.string cimport memcmp, memcpy, memmove, memset
from libc.stdint cimport uint8_t, uint16_t, uint32_t, uint64_t
from libc.stdlib cimport malloc, free
from cpython.bytes cimport PyBytes_FromStringAndSize
cimport cython

include "_basics.pxi"       # helpers, limits, scoring
include "_ending.pxi"       # winners, the end of the game, whether one action can end it
include "_turn.pxi"         # turn flow, thinking, payments, the automatic phases
include "_building.pxi"     # building: foundations, materials, completion
include "_roles.pxi"        # the role actions but Legionary; Fountain, Stairway, Prison
include "_legionary.pxi"    # Legionary demands
include "_entry.pxi"        # legal actions, apply, random playouts
include "_setup.pxi"        # the deal of a new game
include "_hidden.pxi"       # masking, information-state keys, determinization
include "_checks.pxi"       # invariant checks, checked playouts
include "_features.pxi"     # the feature vector of a position from a player's view

import operator
from collections.abc import Mapping

from glory_ai.core.display import render
from glory_ai.core.enums import EndReason, Phase
from glory_ai.core.errors import ActionParseError, IllegalActionError
from glory_ai.core.seeds import check_seed

TERMINAL = -4
NUM_ACTIONS = NUM_DISTINCT_ACTIONS

_PHASE_LABEL = tuple(GR_PHASE_NAME[p].decode() for p in range(GR_NUM_PHASES))
#: the decision phases (and Phase.OVER) by id; Phase(...) fails at import should
#: csrc/tables.h and glory_ai.core.enums.Phase ever disagree
PHASE_NAMES = {p: Phase(_PHASE_LABEL[p]) for p in range(GR_NUM_DECISION_PHASES)}
PHASE_NAMES[PH_OVER] = Phase.OVER
if list(PHASE_NAMES.values()) != list(Phase):
    raise ImportError("glory_ai.core.enums.Phase does not list the phases of csrc/tables.h in order")
#: what each code of the invariant checker means (0: every invariant holds)
INVARIANT_TEXT = {code: GR_INVARIANT_TEXT[code].decode() for code in range(GR_NUM_INVARIANTS + 1)}
# the engine's END_* codes (END_NONE: the game goes on)
_END_REASON_OF = {END_DECK: EndReason.DECK, END_SITES: EndReason.SITES, END_CATACOMB: EndReason.CATACOMB,
                  END_FORUM: EndReason.FORUM, END_CONCESSION: EndReason.CONCESSION}


def _card_tables():
    """(names, materials, copies, modes) of the 45 card types, from csrc/cards.h."""
    names = tuple(GR_CARD_NAME[i].decode() for i in range(NUM_TYPES))
    materials = tuple(-1 if i == 0 else GR_CARD_MATERIAL[i] for i in range(NUM_TYPES))
    copies = tuple(GR_CARD_COPIES[i] for i in range(NUM_TYPES))
    modes = tuple(GR_CARD_MODE[i] for i in range(NUM_TYPES))
    return names, materials, copies, modes


_NAMES = _card_tables()[0]

# The rules block (Config.rules) sits where the old Config ended and is a multiple of 8
# bytes long, so every later field kept its alignment and masked_key can cut it out again
cdef GameState _layout_probe
if (<size_t>(<char*>&_layout_probe.cfg.rules - <char*>&_layout_probe) != 52 or sizeof(Rules) != 104
        or <size_t>(<char*>&_layout_probe.pool - <char*>&_layout_probe) != 52 + sizeof(Rules)):
    raise ImportError("engine.pxd: the rules block is not where masked_key expects it")
_CARD_INDEX = {name.lower(): i for i, name in enumerate(_NAMES)}

include "_notation.pxi"     # action blocks, decoding, action text
include "_positions.pxi"    # the position format: to_dict and from_dict
include "_observation.pxi"  # observation tensors


cdef Rules rules_of(config) except *:
    # the game's rules block from its GameConfig (R-V: cards.csv, no points, every function
    # on unless the variant says otherwise)
    cdef Rules rules
    cdef int x
    cdef uint64_t off = config.powers_off_mask()
    materials = config.card_materials()
    points = config.building_points()
    memset(&rules, 0, sizeof(Rules))
    rules.material[JACK] = GR_CARD_MATERIAL[JACK]
    for x in range(1, NUM_TYPES):
        rules.material[x] = materials[x]
        rules.points[x] = points[x]
        if points[x]:
            rules.has_points = 1
    memcpy(rules.powers_off, &off, 8)
    return rules


# the rules block of the last config loaded (games of one config are dealt one after another)
cdef Rules _rules_cached
_rules_cached_for = None


cdef void load_rules(Rules* rules, config) except *:
    global _rules_cached, _rules_cached_for
    if _rules_cached_for is not config:
        _rules_cached = rules_of(config)
        _rules_cached_for = config
    memcpy(rules, &_rules_cached, sizeof(Rules))


# A free list of GameState blocks: State objects are created constantly (clones), and a
# 4 KiB malloc per clone would cost more than the copy itself. Only touched with the GIL
# held (State construction and destruction); the nogil API never allocates.
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


def _integer(value, what):
    """`value` as a Python int (int or numpy integer, never a bool); TypeError naming
    `what` otherwise. Checked here so that no OverflowError comes from a C conversion."""
    if not isinstance(value, bool):
        try:
            return operator.index(value)
        except TypeError:
            pass
    raise TypeError(f"{what} must be an integer, got {value!r:.40}")


def _seed_value(seed, name="seed"):
    """A seed as the 64-bit value the generator takes (glory_ai.core.seeds: TypeError for a
    non-integer, ValueError out of 0 to 2**64 - 1)."""
    return check_seed(seed, name)


def _decision_budget(max_decisions):
    """max_decisions as a C int (a larger budget is as good as unlimited)."""
    max_decisions = _integer(max_decisions, "max_decisions")
    if max_decisions < 0:
        raise ValueError(f"max_decisions must be at least 0, got {max_decisions}")
    return min(max_decisions, 2 ** 31 - 1)


cdef bint is_legal_c(GameState* s, int action) noexcept:
    cdef uint16_t buf[MAX_LEGAL]
    cdef int i, n = legal_actions_into(s, buf)
    for i in range(n):
        if buf[i] == action:
            return True
    return False


cdef void _raise_overflow(GameState* s) except *:
    # a fixed capacity was exceeded (engine.pxd, GameState.overflow): never silent
    raise RuntimeError(f"engine limit reached: {INVARIANT_TEXT[INV_OVERFLOW]} "
                       f"(the queue holds {STACK_CAP} entries)")


cdef list _history_list(object history):
    # history is None or (earlier history, item): an action id, or the actions of a C-level
    # playout as the bytes of a uint16 array (one object per playout, not per action)
    from array import array
    items = []
    while history is not None:
        history, item = history
        items.append(item)
    out = []
    for item in reversed(items):
        if isinstance(item, bytes):
            out.extend(array("H", item))
        else:
            out.append(item)
    return out


cdef class State:
    """One game state. Build one with Game(...).new_initial_state(seed) or
    State.from_dict(position); the documented API is in docs/notation.md."""

    def __cinit__(self):
        self.s = state_alloc()      # filled by the creator: clone, _load_config
        self._history = None

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
        cdef uint8_t top[DECK_CAP]
        cdef int i, ntop = 0
        st._load_config(config)
        if deck_top is not None:
            if len(deck_top) >= DECK_CAP:           # Game.new_initial_state checks the copies
                raise ValueError("deck: more cards than the deck holds")
            ntop = len(deck_top)
            for i in range(ntop):
                top[i] = deck_top[i]
        setup_game(st.s, <uint64_t>_seed_value(seed), top, ntop)
        return st

    def _load_config(self, config):
        cdef int x
        copies = config._deck_copies
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
        load_rules(&self.s.cfg.rules, config)
        self._config = config

    def clone(self):
        """A copy of this state (one struct copy; the history is shared, not copied)."""
        cdef State c = State.__new__(State)
        memcpy(c.s, self.s, used_size(self.s))
        c._config = self._config
        c._history = self._history
        return c

    def __copy__(self):
        return self.clone()

    def __deepcopy__(self, memo):
        return self.clone()

    def __reduce__(self):
        return (_state_from_bytes, (self._config, self._raw_bytes(), self.history()))

    def _raw_bytes(self):
        """The struct's bytes (for pickling and exact-equality checks in tests)."""
        return PyBytes_FromStringAndSize(<char*>self.s, used_size(self.s))

    def _set_raw_bytes(self, bytes raw):
        if <size_t>len(raw) != used_size(self.s):
            raise ValueError("raw state has the wrong size for this build")
        memcpy(self.s, <char*>raw, len(raw))

    def config(self):
        """The GameConfig (player count, mode, rule variants) of this game."""
        return self._config

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
        """The legal actions of current_player(), as integers (ascending); [] at the end."""
        cdef uint16_t buf[MAX_LEGAL]
        cdef int n = legal_actions_into(self.s, buf)
        return sorted([buf[i] for i in range(n)])

    def legal_actions_mask(self):
        """numpy bool array over the whole action space: True at the legal actions."""
        import numpy as np
        cdef uint16_t buf[MAX_LEGAL]
        cdef int i, n = legal_actions_into(self.s, buf)
        mask = np.zeros(NUM_DISTINCT_ACTIONS, dtype=np.bool_)
        cdef uint8_t[:] view = mask.view(np.uint8)
        for i in range(n):
            view[buf[i]] = 1
        return mask

    def apply_action(self, action):
        """Apply one legal action. IllegalActionError (a ValueError; the state unchanged) for
        an action id that is not legal here or any action once the game is over, ValueError
        for an integer outside the action space."""
        action = _integer(action, "an action")
        if self.s.turn.phase == PH_OVER:
            raise IllegalActionError("the game is over: no action can be applied")
        if action < 0 or action >= NUM_DISTINCT_ACTIONS or not is_legal_c(self.s, action):
            error = IllegalActionError if 0 <= action < NUM_DISTINCT_ACTIONS else ValueError
            raise error(
                f"illegal action {action} ({self._describe(action)}) for player "
                f"{self.s.turn.decider} in phase '{PHASE_NAMES.get(self.s.turn.phase)}'; "
                f"legal: {self.legal_action_strings()}")
        self._apply_unchecked(action)

    def _apply_unchecked(self, int action):
        """Apply an action without the legality check (fast path for trusted callers: an
        illegal id corrupts the state)."""
        cdef int result = apply_action_c(self.s, action)
        self._history = (self._history, action)
        if result == -2:
            _raise_overflow(self.s)

    def history(self):
        """The actions applied since the deal (or since the position was loaded, or since a
        determinization, which starts a history of its own), in order."""
        return _history_list(self._history)

    def random_playout(self, seed, max_decisions=1000000):
        """Play uniformly random legal actions to the end in C (recorded in the history);
        returns the decisions made."""
        cdef uint64_t rng = gr_rng_seed(<uint64_t>_seed_value(seed))
        cdef int budget = _decision_budget(max_decisions)
        cdef int chunk, made, total = 0
        cdef uint16_t* record = <uint16_t*>malloc(4096 * sizeof(uint16_t))
        if record == NULL:
            raise MemoryError()
        try:
            while self.s.turn.phase != PH_OVER and total < budget:
                chunk = min(4096, budget - total)
                with nogil:
                    made = recorded_playout(self.s, &rng, chunk, record)
                if made == -2:
                    _raise_overflow(self.s)
                if made < 0:
                    raise RuntimeError("engine bug: a non-terminal state has no legal action")
                if made:
                    self._history = (self._history, PyBytes_FromStringAndSize(<char*>record, made * sizeof(uint16_t)))
                total += made
        finally:
            free(record)
        return total

    def functions_used(self):
        """Names of the building functions that changed what happened in this game so far
        (a function counts when it made a difference: a Road that allowed a material, a Wall
        that stopped a demand, ...)."""
        return [_NAMES[b] for b in range(1, NUM_TYPES) if (self.s.functions_used >> b) & 1]

    def _stress(self, seed, bint try_all=False, bint builder=False, int stop_after=-1):
        """Random playout checking invariants at every step (for tests).

        Returns (code, step): 0 means every step passed, else an INV_* code
        (INVARIANT_TEXT; INV_AFTER_ACTION + k: a legal action broke invariant k).
        `builder` biases play towards building (hires, foundations, materials, function
        choices) so that the functions come into play. `stop_after` >= 0 stops after that
        many decisions (the state is left there).
        """
        cdef uint64_t rng = gr_rng_seed(<uint64_t>_seed_value(seed))
        cdef int step = 0, code
        with nogil:
            code = stress_game(self.s, &rng, try_all, &step, builder, stop_after)
        return code, step

    # ---- hidden information (R-5) -----------------------------------------------------

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
        for key in ("rng", "deck", "functions_used"):
            del d[key]
        d["deck_size"] = self.s.deck_size
        d["observer"] = player
        for q, pd in enumerate(d["players"]):
            pd["hand_size"] = self.s.players[q].hand_count
            pd["vault_size"] = self.s.players[q].vault_count
            if q != player:
                del pd["hand"]
                del pd["vault"]
        return d

    def information_state_key(self, player):
        """A compact key (16 bytes), equal for two states exactly when `player` cannot tell
        them apart: two 64-bit hashes of the state with everything the player cannot know
        blanked out (the same as the C-level information_state_key_c for the first 8)."""
        player = self._check_player(player)
        cdef GameState* scratch = state_alloc()
        cdef uint64_t first, second
        first = information_state_key_c(self.s, player, scratch)
        second = masked_key(self.s, player, scratch, 0x2545F4914F6CDD1D)
        state_release(scratch)
        return first.to_bytes(8, "little") + second.to_bytes(8, "little")

    def information_state_hash(self, player):
        """The first half of information_state_key as an int (a 64-bit hash, equal for two
        states `player` cannot tell apart): half the cost, for seeding a decision."""
        player = self._check_player(player)
        cdef GameState* scratch = state_alloc()
        cdef uint64_t key = information_state_key_c(self.s, player, scratch)
        state_release(scratch)
        return key

    def information_state_string(self, player):
        """What `player` knows, as a canonical string (the observation as compact JSON with
        sorted keys): equal for two states exactly when the player cannot tell them apart.
        The engine keeps public knowledge (known cards, lacks) in the state, so the
        observation is the information state. Written in C (the same text as the dict's
        JSON, without building the dict)."""
        return information_state_string_of(self, self._check_player(player))

    def observation_string(self, player):
        """What `player` knows, as the readable position text (others' hidden cards shown
        as counts)."""
        return render(self, observer=self._check_player(player))

    def observation_tensor(self, player):
        """A flat numpy.float32 vector of what `player` knows; layout in
        glory_ai.core.engine.observation_tensor_layout()."""
        player = self._check_player(player)
        cdef State masked = self._masked(player)
        return observation_tensor_of(masked.s, player)

    def features(self, player, gain=None):
        """The feature vector of the position from `player`'s view: a numpy float64 array
        of FEATURE_COUNT numbers, named by FEATURE_NAMES (meanings and ranges in
        docs/bots.md, "The feature vector"). It reads the state as given: give a player's
        own view (a determinization) where the other players' hidden cards matter. `gain`
        (FEATURE_COUNT weights, default REFERENCE_GAIN_WEIGHTS) prices the pending_gain_*
        features, as a model's gain weights do (docs/evaluation.md)."""
        import numpy as np
        cdef int who = self._check_player(player)
        cdef const double[::1] prices
        cdef const double* gain_at = NULL
        if gain is not None:
            prices = np.ascontiguousarray(gain, dtype=np.float64)
            if prices.shape[0] != NUM_FEATURES or np.asarray(gain).ndim != 1:
                raise ValueError(f"gain must be {NUM_FEATURES} numbers, got shape {np.shape(gain)}")
            gain_at = &prices[0]
        out = np.zeros(NUM_FEATURES, dtype=np.float64)
        cdef double[::1] view = out
        features_c(self.s, who, gain_at, &view[0])
        return out

    def determinize(self, observer, seed):
        """A full state consistent with everything `observer` knows: the deck, the hidden
        parts of the other hands and vaults (and another player's Fountain card) are
        reshuffled and dealt back into the same places and counts, uniformly at random.
        The world starts a history of its own (the true history names hidden cards)."""
        cdef int who = self._check_player(observer)
        cdef uint64_t rng = gr_rng_seed(<uint64_t>_seed_value(seed))
        cdef State world = self.clone()
        world._history = None
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
        n = legal_actions_into(self.s, buf)
        if n <= 0:
            return INV_NO_LEGAL
        trial = state_alloc()
        for i in range(n):
            memcpy(trial, self.s, sizeof(GameState))
            apply_action_c(trial, buf[i])
            code = check_state(trial)
            if code:
                break
        state_release(trial)
        return code

    def _decision_would_be_asked(self):
        """True if the engine would ask the pending decision in this state (a test hook for
        determinize's consistency check: it must hold in every state play reaches)."""
        return bool(decision_would_be_asked(self.s))

    def _may_end_now(self, player):
        """Whether one action of `player` (to move) may end the game with that player among
        its winners (may_end_now, _ending.pxi: a test hook; False at the end)."""
        player = self._check_player(player)
        return self.s.turn.phase != PH_OVER and bool(may_end_now(self.s, player))

    def _forum_reach(self, player):
        """Whether `player` may meet a Forum condition after one action, as that player's
        clientele, the buildings that may be active for that player after it and a Forum
        Romanum's stockpile tell (forum_reach, _ending.pxi: a test hook): 0 after any
        action, 1 only after a hire of a client of some roles, 2 after none."""
        cdef int roles = 0
        player = self._check_player(player)
        return forum_reach(self.s, player, &roles)

    def _forum_condition(self, player):
        """(whether `player`'s clientele covers every role, whether `player` meets a Forum
        condition) as the engine's end check reads them (clientele_covers_all_roles,
        forum_condition, _ending.pxi: a test hook)."""
        player = self._check_player(player)
        return (bool(clientele_covers_all_roles(self.s, player)), bool(forum_condition(self.s, player)))

    def _forum_keeps(self, player, int action):
        """Whether a search for a Forum win of `player` keeps `action` (a test hook): the
        reach is 0, or 1 and the action a hire that may bring a client of a role it needs
        (hire_of_roles)."""
        cdef int roles = 0, reach
        player = self._check_player(player)
        reach = forum_reach(self.s, player, &roles)
        return reach == 0 or (reach == 1 and bool(hire_of_roles(self.s, action, roles)))

    def _actions_that_may_end(self):
        """The legal actions that may end the game, whoever wins, in the engine's order:
        all of them where every_action_may_end, else those action_may_end keeps (a test
        hook)."""
        cdef uint16_t buf[MAX_LEGAL]
        cdef int n, i
        if self.s.turn.phase == PH_OVER:
            return []
        n = legal_actions_into(self.s, buf)
        if every_action_may_end(self.s):
            return [buf[i] for i in range(n)]
        return [buf[i] for i in range(n) if action_may_end(self.s, buf[i])]

    def _invariant_code(self):
        """0 if the C-level invariant checker passes, else its code (INVARIANT_TEXT)."""
        return check_state(self.s)

    def _check_invariants(self):
        """Raise AssertionError if the C-level checker finds a broken invariant."""
        code = check_state(self.s)
        if code:
            raise AssertionError(f"invariant {code} broken: {INVARIANT_TEXT.get(code, '?')}")

    def _bench_determinize(self, int observer, int iterations=100000):
        """ns per Cython-level determinization (copy + determinize_c, no Python calls)."""
        import time
        cdef GameState* world = state_alloc()
        cdef uint64_t rng = gr_rng_seed(1)
        cdef int i
        cdef size_t size = used_size(self.s)
        start = time.perf_counter()
        with nogil:
            for i in range(iterations):
                memcpy(world, self.s, size)
                determinize_c(world, observer, &rng)
        elapsed = time.perf_counter() - start
        state_release(world)
        return elapsed / iterations * 1e9

    # ---- results ------------------------------------------------------------------------

    def scores(self):
        """Victory points of every player (R-12), computable at any time."""
        return [score_of(self.s, p) for p in range(self.s.cfg.num_players)]

    def score_breakdown(self, player):
        """{influence, vault, merchant_bonus, statue, wall, total} VP of a player (R-12),
        with a "buildings" entry (the points of completed structures, R-V.2) before the total
        when the game's variant gives buildings points."""
        player = self._check_player(player)
        cdef int p = player
        vault = 0
        for x in range(1, NUM_TYPES):
            vault += self.s.players[p].vault[x] * material_value(mat_of(self.s, x))
        statue = 3 if is_active(self.s, p, B_STATUE) else 0
        wall = self.s.players[p].stockpile_count // 2 if is_active(self.s, p, B_WALL) else 0
        influence = influence_of(self.s, p)
        total = score_of(self.s, p)
        buildings = building_points(self.s, p)
        out = {"influence": influence, "vault": vault,
               "merchant_bonus": total - influence - vault - statue - wall - buildings,
               "statue": statue, "wall": wall}
        if self.s.cfg.rules.has_points:
            out["buildings"] = buildings
        out["total"] = total
        return out

    def winners(self):
        """Winning players (several on a shared victory); empty before the end."""
        cdef int mask = winners_mask_of(self.s)
        return [p for p in range(self.s.cfg.num_players) if (mask >> p) & 1]

    def returns(self):
        """Per player: 1/k for each of k winners, 0 otherwise; all 0 before the end."""
        win = self.winners()
        return [(1.0 / len(win) if p in win else 0.0) for p in range(self.s.cfg.num_players)]

    def end_reason(self):
        """None, or why the game ended: an EndReason (DECK, SITES, CATACOMB, FORUM or
        CONCESSION), equal to its string ('deck', ...)."""
        if self.s.turn.phase != PH_OVER:
            return None
        return _END_REASON_OF[self.s.turn.end_reason]

    def concede(self, player):
        """The player leaves the game (R-11.1(5)); the last one remaining wins.

        A conceded player is skipped as leader, follower, actor and victim and cannot win.
        A decision pending for them is settled without touching the deck where possible: a
        leader's or follower's turn passes on (no think), an optional step is skipped, and
        anything else (a petition under way, a victim's give) takes its first legal action.
        Concessions are not actions, so they are not in history().
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
                self.s.turn.think_return = CTX_LEAD if self.s.turn.phase == PH_LEAD else CTX_FOLLOW
                finish_think(self.s)
                advance(self.s)
                continue
            legal = self.legal_actions()
            if apply_action_c(self.s, A_SKIP if A_SKIP in legal else legal[0]) == -2:
                _raise_overflow(self.s)

    def has_conceded(self, player):
        player = self._check_player(player)
        return bool(conceded(self.s, player))

    # ---- inspection ----------------------------------------------------------------------

    def _check_player(self, player):
        """The player as an int: TypeError unless an integer, ValueError unless a seat."""
        player = _integer(player, "player")
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
        player = self._check_player(player)
        return bool(is_active(self.s, player, card_id(building, "building")))

    def phase(self):
        """The pending decision as a Phase (Phase.LEAD, ...; equal to its string 'lead', ...),
        Phase.OVER at the end."""
        return PHASE_NAMES[self.s.turn.phase]

    def leader(self):
        return self.s.turn.leader

    def led_role(self):
        """The role led this turn, or None before the leader has played."""
        return None if self.s.turn.led_role == NO_ROLE else _ROLES[self.s.turn.led_role]

    def deck_size(self):
        return self.s.deck_size

    def jack_pile(self):
        return self.s.jack_pile

    def turn_number(self):
        """Turns completed since the deal (0 during the first turn)."""
        return self.s.turn.turn_number

    def decisions(self):
        """Decisions asked so far (forced choices settled by the engine do not count)."""
        return self.s.turn.decisions

    def zone(self, str name, player=None):
        """A zone as a sorted list of card names: 'pool', 'deck' (top first), 'out_of_play',
        or a player's 'hand', 'camp', 'stockpile', 'vault', 'clientele', 'known_hand',
        'known_vault'."""
        if name == "deck":
            return [_NAMES[self.s.deck[i]] for i in range(self.s.deck_size - 1, -1, -1)]
        if name not in ("pool", "out_of_play"):
            if player is None:
                raise ValueError(f"zone {name!r} needs a player")
            player = self._check_player(player)
        elif player is not None:
            raise ValueError(f"zone {name!r} belongs to no player")
        return _zone(_zone_array(self, name, 0 if player is None else player))

    # ---- notation ------------------------------------------------------------------------

    def _describe(self, action):
        try:
            return self.action_to_string(action)
        except (TypeError, ValueError):
            return "not an action"

    def action_to_string(self, action):
        """Readable text of an action in this state (docs/notation.md)."""
        action = _integer(action, "an action id")
        if not 0 <= action < NUM_DISTINCT_ACTIONS:
            raise ValueError(f"{action} is not an action id (0..{NUM_DISTINCT_ACTIONS - 1})")
        return action_text(self.s, action)

    def legal_action_strings(self):
        return [action_text(self.s, a) for a in self.legal_actions()]

    def string_to_action(self, str text not None):
        """The legal action whose string is `text` (case and extra blanks ignored).
        IllegalActionError for an action string that is not legal here, ActionParseError for
        a text that is no action string (docs/notation.md, "Grammar"); both are ValueErrors."""
        from glory_ai.core.grammar import is_action_string     # it reads the card names
        wanted = " ".join(text.split()).lower()
        for a in self.legal_actions():
            if action_text(self.s, a).lower() == wanted:
                return a
        error = IllegalActionError if is_action_string(text) else ActionParseError
        raise error(f"{text!r} is not a legal action here; legal: {self.legal_action_strings()}")

    def apply_action_string(self, str text not None):
        self.apply_action(self.string_to_action(text))

    # ---- positions -----------------------------------------------------------------------

    def to_dict(self):
        """A JSON-safe dict that State.from_dict turns back into this exact state
        (docs/notation.md, "Positions")."""
        return position_of(self)

    @staticmethod
    def from_dict(d):
        """Build a state from a to_dict() output or a hand-written position (docs/notation.md);
        ValueError naming the field for anything that cannot be."""
        return _read_position(d)

    # ---- display -----------------------------------------------------------------------

    def __repr__(self):
        return (f"<glory_ai.State {self.s.cfg.num_players}p turn {self.s.turn.turn_number} "
                f"phase {self.phase()} player {self.current_player()}>")

    def __str__(self):
        return render(self)


def _state_from_bytes(config, raw, history=()):
    cdef State st = State.__new__(State)
    st._load_config(config)
    st._set_raw_bytes(raw)
    for action in history:
        st._history = (st._history, action)
    return st


def _new_blank_state(config, seed):
    """A zeroed state of this config with its generator seeded (the position reader fills it)."""
    cdef State st = State.__new__(State)
    st._load_config(config)
    st.s.rng = gr_rng_seed(<uint64_t>_seed_value(seed))
    return st
