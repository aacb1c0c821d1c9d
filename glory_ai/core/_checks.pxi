# Invariant checks and the checked playout used by the property tests (C speed, so
# thousands of games stay cheap).

# ---------------------------------------------------------------------------------------
# Invariant checks for the property tests (C speed, so thousands of games stay cheap)

cdef int check_state(GameState* s) noexcept nogil:
    # 0 if every invariant holds, else the INV_* code of the first broken one
    cdef int cards[45]
    cdef int sites[6]
    cdef int x, p, i, k, m, count, completed = 0, influence = 0
    cdef Player* pl
    cdef Structure* st
    if s.overflow:
        return INV_OVERFLOW
    memset(cards, 0, sizeof(cards))
    memset(sites, 0, sizeof(sites))
    for x in range(NUM_TYPES):
        cards[x] += s.pool[x] + s.out_of_play[x]
    cards[JACK] += s.jack_pile
    if s.turn.fountain_card:
        cards[s.turn.fountain_card] += 1
    for i in range(s.deck_size):
        cards[s.deck[i]] += 1
    for m in range(NMAT):
        sites[m] += s.in_town[m] + s.out_town[m]
    for p in range(s.cfg.num_players):
        pl = &s.players[p]
        count = 0
        for x in range(NUM_TYPES):
            cards[x] += pl.hand[x] + pl.camp[x] + pl.stockpile[x] + pl.vault[x] + pl.clientele[x]
            count += pl.hand[x]
            if pl.hand_known[x] > pl.hand[x] or pl.vault_known[x] > pl.vault[x]:
                return INV_KNOWN
        if pl.hand_known[JACK] != pl.hand[JACK]:    # Jacks enter hands in view of all
            return INV_KNOWN
        if count != pl.hand_count:
            return INV_ZONE_SIZE
        count = 0
        for x in range(NUM_TYPES):
            count += pl.stockpile[x]
        if count != pl.stockpile_count:
            return INV_ZONE_SIZE
        count = 0
        for x in range(NUM_TYPES):
            count += pl.vault[x]
        if count != pl.vault_count:
            return INV_ZONE_SIZE
        count = 0
        for x in range(NUM_TYPES):
            count += pl.clientele[x]
        if count != pl.clientele_count:
            return INV_ZONE_SIZE
        for m in range(NMAT):
            sites[m] += pl.influence_sites[m]
            influence += pl.influence_sites[m]
    for i in range(s.nstruct):
        st = &s.structures[i]
        if st.owner >= s.cfg.num_players or st.building == JACK:
            return INV_STRUCTURES
        if i > 0 and s.structures[i - 1].owner > st.owner:
            return INV_STRUCTURES
        cards[st.building] += 1
        for k in range(st.nmat):
            cards[st.materials[k]] += 1
        if st.stairway:
            cards[st.stairway] += 1
        if not (st.flags & S_COMPLETE):
            sites[st.site] += 1
            if st.nmat >= material_value(st.site):
                return INV_FULL_INCOMPLETE
        else:
            completed += 1
    for x in range(NUM_TYPES):
        if cards[x] != s.cfg.copies[x]:
            return INV_CARDS
    for m in range(NMAT):
        if sites[m] != 6:
            return INV_SITES
    if completed > influence:                  # so structures <= sites (MAX_STRUCTURES)
        return INV_COMPLETED_SITES
    if s.turn.phase != PH_OVER and s.turn.decider >= s.cfg.num_players:
        return INV_DECIDER
    if s.deck_size == 0 and s.turn.phase != PH_OVER and s.turn.pending_end == 0:
        return INV_EMPTY_DECK                  # R-11.1(1): the game should have ended
    return 0

cdef inline bint builder_prefers(int action) noexcept nogil:
    # hires, foundations, materials and building-function choices
    return ((action >= A_HIRE_POOL and action < A_TAKE_POOL)
            or (action >= A_LAY and action < A_VAULT_STOCKPILE) or action >= A_FOUNTAIN_DRAW)


cdef int pick_action(uint16_t* buf, int n, uint64_t* rng, bint builder) noexcept nogil:
    # uniform, or (builder) 90% uniform among the preferred actions when there are any
    cdef int i, preferred = 0
    if builder and gr_rng_below(rng, 10) < 9:
        for i in range(n):
            if builder_prefers(buf[i]):
                preferred += 1
        if preferred:
            preferred = gr_rng_below(rng, preferred)
            for i in range(n):
                if builder_prefers(buf[i]):
                    if preferred == 0:
                        return buf[i]
                    preferred -= 1
    return buf[gr_rng_below(rng, n)]

cdef int stress_game(GameState* s, uint64_t* rng, bint try_all, int* failed_step,
                     bint builder, int stop_after) noexcept nogil:
    # Random playout that checks the invariants at every step and, with try_all, applies
    # every legal action to a copy. Returns 0 or an error code (10+: legality problems).
    # A non-negative stop_after ends it after that many decisions (to reach mid-game
    # positions by the same play).
    cdef uint16_t buf[MAX_LEGAL]
    cdef GameState trial
    cdef int n, i, j, code, step = 0
    while True:
        failed_step[0] = step
        code = check_state(s)
        if code:
            return code
        if s.turn.phase == PH_OVER or step == stop_after:
            return 0
        n = legal_actions_into(s, buf)
        if n <= 0:
            return INV_NO_LEGAL
        for i in range(n):
            if buf[i] >= NUM_DISTINCT_ACTIONS:
                return INV_BAD_ACTION_ID
            for j in range(i):
                if buf[j] == buf[i]:
                    return INV_DUPLICATE_ACTION
        if try_all:
            for i in range(n):
                memcpy(&trial, s, sizeof(GameState))
                if apply_action_c(&trial, buf[i]) != 0:
                    return INV_ACTION_FAILED
                code = check_state(&trial)
                if code:
                    return INV_AFTER_ACTION + code
        apply_action_c(s, pick_action(buf, n, rng, builder))
        step += 1
        if step > 100000:
            return INV_ENDLESS
