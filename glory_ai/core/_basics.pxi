# Basics: small helpers, zones, limits (R-10) and scoring (R-12).
# Part of the engine's single compilation unit (included by engine.pyx); every function
# here is noexcept nogil and works on one GameState.

cdef extern from *:
    """
    /* Zones are 45 byte counts per card type, mostly zeros: the loops of random playouts
       over them walk the set bits of one mask instead of testing 45 bytes one by one. */
    #if defined(__SSE2__)
    #include <emmintrin.h>
    #endif
    _Static_assert(GR_NUM_TYPES == 45, "gr_zone_mask reads 45-byte zones");
    #define GR_ORDER_BITS 0x1FFFFFFFFFFEULL
    static inline uint64_t gr_zone_mask(const uint8_t* zone) {
        /* bit x set when zone[x] != 0, for the 45 card types */
    #if defined(__SSE2__)
        const __m128i zero = _mm_setzero_si128();
        uint64_t empty = (uint16_t)_mm_movemask_epi8(
            _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i*)zone), zero));
        empty |= (uint64_t)(uint16_t)_mm_movemask_epi8(
            _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i*)(zone + 16)), zero)) << 16;
        /* the last 16 bytes (29..44) overlap the second load: nothing past the zone is read */
        empty |= (uint64_t)(uint16_t)_mm_movemask_epi8(
            _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i*)(zone + 29)), zero)) << 29;
        return ~empty & ((1ULL << 45) - 1);
    #else
        uint64_t mask = 0;
        for (int x = 0; x < 45; x++) mask |= (uint64_t)(zone[x] != 0) << x;
        return mask;
    #endif
    }
    static inline int gr_lowest_bit(uint64_t mask) {
        /* the index of the lowest set bit of a non-zero mask */
    #if defined(__GNUC__)
        return __builtin_ctzll(mask);
    #else
        int x = 0;
        while (!((mask >> x) & 1)) x++;
        return x;
    #endif
    }
    """
    uint64_t zone_mask "gr_zone_mask"(const uint8_t* zone) noexcept nogil
    int lowest_bit "gr_lowest_bit"(uint64_t mask) noexcept nogil
    uint64_t ORDER_BITS "GR_ORDER_BITS"     # bits 1..44 of a zone mask: the Order card types

cdef inline uint64_t bits_from(int x) noexcept nogil:
    # the bits of a zone mask at and above type x
    return ~((<uint64_t>1 << x) - 1)

cdef inline void fire(GameState* s, int building) noexcept nogil:
    # building's function changed what happened: recorded in the state (one bit per
    # function), so games report which functions they used and no thread shares a counter.
    # A function switched off (R-V.3) never is.
    if not power_off(s, building):
        s.functions_used |= (<uint64_t>1) << building

cdef inline void hand_add(Player* pl, int card, bint public) noexcept nogil:
    pl.hand[card] += 1
    pl.hand_count += 1
    if public:
        pl.hand_known[card] += 1
    else:
        pl.lacks = 0            # an unseen card could be of any material

cdef inline void hand_remove(Player* pl, int card, bint public) noexcept nogil:
    # hand_known[y] is what every player can be sure is in the hand. A card seen leaving
    # lowers its own type by one. An Order card leaving unseen (Basilica) could have been
    # any known Order, so every known Order type drops by one: updating only the true
    # type would let the public part depend on a hidden choice (a leak).
    cdef int y
    pl.hand[card] -= 1
    pl.hand_count -= 1
    if public:
        if pl.hand_known[card] > 0:
            pl.hand_known[card] -= 1
    else:
        for y in range(1, NUM_TYPES):
            if pl.hand_known[y] > 0:
                pl.hand_known[y] -= 1

cdef inline void actor_hand_remove(GameState* s, int p, int card, bint public) noexcept nogil:
    # The acting player's hand loses a card during its step: if a copy of it was revealed
    # this turn, the player lets the revealed copy go (R-8.5.2 bars only revealed cards).
    # A card leaving unseen (Basilica) keeps the revealed copies: the revealed counts are
    # public, so they must not depend on which card went (revealable() clips at zero).
    hand_remove(&s.players[p], card, public)
    if public and p == s.turn.actor and s.turn.revealed[card] > 0:
        s.turn.revealed[card] -= 1

cdef inline int deck_draw(GameState* s) noexcept nogil:
    # the emptied slot is zeroed so that equal states have equal bytes
    cdef int card
    s.deck_size -= 1
    card = s.deck[s.deck_size]
    s.deck[s.deck_size] = 0
    return card

cdef void refresh_active(GameState* s) noexcept nogil:
    # R-10.6: own completed structures; with Gate, own incomplete Marble structures; and
    # any player's Stairwayed completed structure for everyone. Recomputed on every change
    # of structures, so is_active() is one bit test. A function switched off (R-V.3) is
    # never active: not completed, not through a Stairway, not from its foundation by Gate.
    cdef uint64_t public_mask = 0, own, on = ~powers_off_mask(s)
    cdef int p, i
    cdef Structure* st
    cdef uint64_t completed[5]
    cdef uint64_t marble[5]
    memset(completed, 0, sizeof(completed))
    memset(marble, 0, sizeof(marble))
    for i in range(s.nstruct):
        st = &s.structures[i]
        if st.flags & S_COMPLETE:
            completed[st.owner] |= (<uint64_t>1) << st.building
            if st.stairway:
                public_mask |= (<uint64_t>1) << st.building
        elif mat_of(s, st.building) == MARBLE:
            marble[st.owner] |= (<uint64_t>1) << st.building
    for p in range(s.cfg.num_players):
        own = (public_mask | completed[p]) & on
        if (own >> B_GATE) & 1:
            own |= marble[p] & on
        s.active[p] = own

# ---------------------------------------------------------------------------------------
# Scoring (R-12); the end of the game and its winners are in _ending.pxi

cdef inline void add_by_material(GameState* s, const uint8_t* zone, int* counts) noexcept nogil:
    # counts[m] += the zone's Order cards of material m (its set bits only: zones are sparse)
    cdef uint64_t mask = zone_mask(zone) & ORDER_BITS
    cdef int x
    while mask:
        x = lowest_bit(mask)
        counts[mat_of(s, x)] += zone[x]
        mask &= mask - 1

cdef inline int roles_in(GameState* s, const uint8_t* zone, int* merchants) noexcept nogil:
    # bit m: the zone holds an Order card of material (role) m; merchants[0]: its Merchant
    # (Stone) cards. A clientele's roles without a count in memory a card type (the
    # Forum condition is asked after every change that may meet it)
    cdef uint64_t mask = zone_mask(zone) & ORDER_BITS
    cdef int x, m, present = 0
    merchants[0] = 0
    while mask:
        x = lowest_bit(mask)
        m = mat_of(s, x)
        present |= 1 << m
        if m == MERCHANT:
            merchants[0] += zone[x]
        mask &= mask - 1
    return present

cdef int score_of(GameState* s, int p) noexcept nogil:
    cdef int n = s.cfg.num_players
    cdef int total = influence_of(s, p)
    cdef int m, q
    cdef bint any_vault = False
    cdef int mine[6]
    cdef int theirs[6]
    cdef int best_other[6]
    memset(mine, 0, sizeof(mine))
    add_by_material(s, s.players[p].vault, mine)
    for m in range(NMAT):
        total += mine[m] * material_value(m)
        any_vault = any_vault or mine[m] > 0
    if any_vault:                                       # R-12.2 Merchant Bonuses
        memset(best_other, 0, sizeof(best_other))
        for q in range(n):
            if q == p:
                continue
            memset(theirs, 0, sizeof(theirs))
            add_by_material(s, s.players[q].vault, theirs)
            for m in range(NMAT):
                if theirs[m] > best_other[m]:
                    best_other[m] = theirs[m]
        for m in range(NMAT):
            if mine[m] > 0 and mine[m] > best_other[m]:
                total += 3
    if is_active(s, p, B_STATUE):
        total += 3
    if is_active(s, p, B_WALL):
        total += s.players[p].stockpile_count // 2
    if s.cfg.rules.has_points:
        total += building_points(s, p)
    return total

cdef int building_points(GameState* s, int p) noexcept nogil:
    # R-V.2: the extra VP of p's completed structures (0 under the published rules)
    cdef int i, total = 0
    for i in range(s.nstruct):
        if s.structures[i].owner == p and (s.structures[i].flags & S_COMPLETE):
            total += s.cfg.rules.points[s.structures[i].building]
    return total
