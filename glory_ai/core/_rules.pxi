# The rules engine proper: nogil functions over one GameState (included by engine.pyx).
#
# Control flow: a pending decision lives in s.turn.phase. apply_action_c() performs one
# decision of the current decider, then advance() runs the automatic phases (next follower,
# next action from the queue, Legionary victims, end of turn, ...) until the next decision
# or the end of the game. Rule ids refer to RULES.md.

# ---------------------------------------------------------------------------------------
# Small helpers

# How often each building's function changed what happened (a test hook: the property
# tests assert that every function fires). Plain counters outside the state, so they
# cost nothing to clone; concurrent increments from threads may race, harmlessly.
cdef uint64_t g_fired[45]

cdef inline void fire(int building) noexcept nogil:
    g_fired[building] += 1

cdef inline int mat_of(int card) noexcept nogil:
    return GR_CARD_MATERIAL[card]

cdef inline int material_value(int material) noexcept nogil:
    # Rubble/Wood 1, Concrete/Brick 2, Stone/Marble 3 (R-2.1)
    return (material >> 1) + 1

cdef inline bint is_active(GameState* s, int p, int building) noexcept nogil:
    return (s.active[p] >> building) & 1

cdef inline int influence_of(GameState* s, int p) noexcept nogil:
    cdef Player* pl = &s.players[p]
    cdef int m, total = 2                          # R-4.1: base influence 2
    for m in range(NMAT):
        total += pl.influence_sites[m] * material_value(m)
    return total

cdef inline int clientele_limit(GameState* s, int p) noexcept nogil:
    cdef int limit = influence_of(s, p)            # R-10.2, ruling A8
    if is_active(s, p, B_INSULA):
        limit += 2
    if is_active(s, p, B_AQUEDUCT):
        limit *= 2
    return limit

cdef inline int vault_limit(GameState* s, int p) noexcept nogil:
    cdef int limit = influence_of(s, p)            # R-10.3
    if is_active(s, p, B_MARKET):
        limit += 2
    return limit

cdef inline int refill_size(GameState* s, int p) noexcept nogil:
    cdef int size = s.cfg.refill_base              # R-10.5
    if is_active(s, p, B_SHRINE):
        size += 2
    if is_active(s, p, B_TEMPLE):
        size += 4
    return size

cdef inline int owned_structure(GameState* s, int p, int building) noexcept nogil:
    cdef int i
    for i in range(s.nstruct):
        if s.structures[i].building == building and s.structures[i].owner == p:
            return i
    return -1

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

cdef inline bint conceded(GameState* s, int p) noexcept nogil:
    return (s.players[p].flags & P_CONCEDED) != 0

cdef void refresh_active(GameState* s) noexcept nogil:
    # R-10.6: own completed structures; with Gate, own incomplete Marble structures; and
    # any player's Stairwayed completed structure for everyone. Recomputed on every change
    # of structures, so is_active() is one bit test.
    cdef uint64_t public_mask = 0, own
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
        elif mat_of(st.building) == MARBLE:
            marble[st.owner] |= (<uint64_t>1) << st.building
    for p in range(s.cfg.num_players):
        own = public_mask | completed[p]
        if (own >> B_GATE) & 1:
            own |= marble[p]
        s.active[p] = own

# ---------------------------------------------------------------------------------------
# Scoring and the end of the game (R-11, R-12)

cdef int score_of(GameState* s, int p) noexcept nogil:
    cdef int n = s.cfg.num_players
    cdef int total = influence_of(s, p)
    cdef int x, m, q, mine, best_other
    cdef int counts[5][6]
    memset(counts, 0, sizeof(counts))
    for q in range(n):
        for x in range(1, NUM_TYPES):
            if s.players[q].vault[x]:
                counts[q][mat_of(x)] += s.players[q].vault[x]
    for x in range(1, NUM_TYPES):
        total += s.players[p].vault[x] * material_value(mat_of(x))
    for m in range(NMAT):                               # R-12.2 Merchant Bonuses
        mine = counts[p][m]
        if mine == 0:
            continue
        best_other = 0
        for q in range(n):
            if q != p and counts[q][m] > best_other:
                best_other = counts[q][m]
        if mine > best_other:
            total += 3
    if is_active(s, p, B_STATUE):
        total += 3
    if is_active(s, p, B_WALL):
        total += s.players[p].stockpile_count // 2
    return total

cdef int best_players(GameState* s, int candidates) noexcept nogil:
    # Highest VP, then most cards in hand, else shared (R-12.3, A19).
    cdef int p, best_score = -1, best_hand = -1, mask = 0, sc
    for p in range(s.cfg.num_players):
        if not (candidates >> p) & 1:
            continue
        sc = score_of(s, p)
        if sc > best_score or (sc == best_score and s.players[p].hand_count > best_hand):
            best_score = sc
            best_hand = s.players[p].hand_count
            mask = 1 << p
        elif sc == best_score and s.players[p].hand_count == best_hand:
            mask |= 1 << p
    return mask

cdef void end_game(GameState* s, int reason, int winners_mask) noexcept nogil:
    cdef int p, candidates = 0
    if reason != END_FORUM and reason != END_CONCESSION:
        for p in range(s.cfg.num_players):
            if is_active(s, p, B_STATUE):
                fire(B_STATUE)
            if is_active(s, p, B_WALL) and s.players[p].stockpile_count >= 2:
                fire(B_WALL)
    s.turn.phase = PH_OVER
    s.turn.end_reason = reason
    if winners_mask == 0:
        for p in range(s.cfg.num_players):
            if not conceded(s, p):
                candidates |= 1 << p
        winners_mask = best_players(s, candidates)
    s.turn.winners_mask = winners_mask

cdef bint clientele_covers_all_roles(GameState* s, int p) noexcept nogil:
    # R-11.2: a distinct client for each role; Ludus Magnus makes Merchant clients wild;
    # Storeroom covers Laborer without a client when the clientele is non-empty (A33).
    cdef Player* pl = &s.players[p]
    cdef int by_role[6]
    cdef int x, r, missing = 0
    memset(by_role, 0, sizeof(by_role))
    for x in range(1, NUM_TYPES):
        if pl.clientele[x]:
            by_role[mat_of(x)] += pl.clientele[x]
    for r in range(6):
        if r == MERCHANT:
            continue
        if r == LABORER and pl.clientele_count > 0 and is_active(s, p, B_STOREROOM):
            continue
        if by_role[r] == 0:
            missing += 1
    if is_active(s, p, B_LUDUS_MAGNUS):
        return by_role[MERCHANT] >= 1 + missing
    return missing == 0 and by_role[MERCHANT] >= 1

cdef bint forum_condition(GameState* s, int p) noexcept nogil:
    cdef int m, x
    cdef int have[6]
    if is_active(s, p, B_FORUM) and clientele_covers_all_roles(s, p):
        return True
    if is_active(s, p, B_FORUM_ROMANUM) and clientele_covers_all_roles(s, p):
        memset(have, 0, sizeof(have))
        for x in range(1, NUM_TYPES):
            if s.players[p].stockpile[x]:
                have[mat_of(x)] = 1
        for m in range(NMAT):
            if not have[m]:
                return False
        return True
    return False

cdef bint check_forum(GameState* s) noexcept nogil:
    # R-11.2 / R-14.5: run after every change that can complete a Forum condition.
    cdef uint64_t any_mask = 0
    cdef int p, winners = 0
    cdef uint64_t forum_bits = ((<uint64_t>1) << B_FORUM) | ((<uint64_t>1) << B_FORUM_ROMANUM)
    for p in range(s.cfg.num_players):
        any_mask |= s.active[p]
    if not (any_mask & forum_bits):
        return False
    for p in range(s.cfg.num_players):
        if not conceded(s, p) and forum_condition(s, p):
            winners |= 1 << p
    if winners == 0:
        return False
    fire(B_FORUM if s.cfg.mode == MODE_IMPERIUM else B_FORUM_ROMANUM)
    end_game(s, END_FORUM, best_players(s, winners))
    return True

# ---------------------------------------------------------------------------------------
# Clients and the action queue (R-6.3, R-6.4)

cdef inline bint client_matches(GameState* s, int p, int client, int role) noexcept nogil:
    cdef int client_role = mat_of(client)
    if client_role == role:
        return True
    if client_role == MERCHANT and is_active(s, p, B_LUDUS_MAGNUS):
        return True
    if role == LABORER and is_active(s, p, B_STOREROOM):
        return True
    return False

cdef inline int actions_per_client(GameState* s, int p) noexcept nogil:
    if s.players[p].camp_units > 0 and is_active(s, p, B_CIRCUS_MAXIMUS):
        return 2
    return 1

cdef inline int next_matching_client(GameState* s, int p, int role) noexcept nogil:
    cdef int x
    for x in range(1, NUM_TYPES):
        if s.turn.pending_clients[x] and client_matches(s, p, x, role):
            return x
    return -1

cdef bint can_pair(GameState* s, int role) noexcept nogil:
    # R-9.1.4: is the next action in the actor's queue one of the same role?
    cdef Turn* t = &s.turn
    cdef int top
    if t.cur_src == SRC_BATH:
        return False
    if t.stack_n > 0:
        top = t.stack_n - 1
        return t.stack_kind[top] == E_GRANT and t.stack_role[top] == role
    if t.led_role != role:
        return False
    if t.ready > 0:
        return True
    return next_matching_client(s, t.actor, role) >= 0

cdef void consume_pair(GameState* s, int role) noexcept nogil:
    cdef Turn* t = &s.turn
    cdef int top, client
    if t.stack_n > 0:
        top = t.stack_n - 1
        t.stack_count[top] -= 1
        if t.stack_count[top] == 0:
            t.stack_n -= 1
    elif t.ready > 0:
        t.ready -= 1
    else:
        client = next_matching_client(s, t.actor, role)
        t.pending_clients[client] -= 1
        t.ready += actions_per_client(s, t.actor) - 1

cdef void push_entry(GameState* s, int kind, int role, int count) noexcept nogil:
    # R-9.3.2, R-14.4: grants and interruptions go to the front of the actor's queue
    cdef Turn* t = &s.turn
    if count <= 0 or t.stack_n >= STACK_CAP:
        return
    if count > 255:
        count = 255
    t.stack_kind[t.stack_n] = kind
    t.stack_role[t.stack_n] = role
    t.stack_count[t.stack_n] = count
    t.stack_n += 1

# ---------------------------------------------------------------------------------------
# Thinking (R-7)

cdef void finish_think(GameState* s) noexcept nogil:
    cdef Turn* t = &s.turn
    if t.think_ctx == CTX_LEAD:
        t.phase = PH_NEW_TURN                      # R-6.1(a): the turn ends at once
    elif t.think_ctx == CTX_FOLLOW:
        t.pos += 1
        t.phase = PH_NEXT_FOLLOWER
    elif t.think_ctx == CTX_QUEUE:
        t.phase = PH_QUEUE
    else:
        t.pos += 1
        t.phase = PH_ACADEMY_NEXT

cdef void do_think(GameState* s, int p, int option) noexcept nogil:
    cdef Player* pl = &s.players[p]
    cdef int count, refill
    if option == A_THINK_JACK:                      # R-7.2(a)
        s.jack_pile -= 1
        hand_add(pl, JACK, True)
    else:                                           # R-7.2(b)/(c)
        refill = refill_size(s, p)
        count = refill - pl.hand_count if pl.hand_count < refill else 1
        if pl.hand_count >= s.cfg.refill_base:      # the larger refill size mattered
            if is_active(s, p, B_SHRINE) and pl.hand_count < refill:
                fire(B_SHRINE)
            if is_active(s, p, B_TEMPLE) and pl.hand_count < refill:
                fire(B_TEMPLE)
        while count > 0 and s.deck_size > 0:
            hand_add(pl, deck_draw(s), False)
            count -= 1
        if s.deck_size == 0:                        # R-7.4, R-11.1(1)
            end_game(s, END_DECK, 0)
            return
    if (s.cfg.mode == MODE_REPUBLIC and s.jack_pile > 0
            and is_active(s, p, B_TRIBUNAL)):       # R-7.3
        s.turn.phase = PH_TRIBUNAL
        s.turn.decider = p
        return
    finish_think(s)

cdef int gen_think_options(GameState* s, int p, uint16_t* out, bint with_discards) noexcept nogil:
    cdef Player* pl = &s.players[p]
    cdef int n = 0, x
    if s.jack_pile > 0:
        out[n] = A_THINK_JACK
        n += 1
    if s.deck_size > 0:
        out[n] = A_THINK_DRAW
        n += 1
    if with_discards and pl.hand_count > 0:         # R-7.1
        if is_active(s, p, B_VOMITORIUM):
            out[n] = A_THINK_VOMITORIUM
            n += 1
        if is_active(s, p, B_LATRINE):
            for x in range(NUM_TYPES):
                if pl.hand[x]:
                    out[n] = A_THINK_LATRINE + x
                    n += 1
    return n

cdef void think_discard(GameState* s, int p, int action) noexcept nogil:
    cdef Player* pl = &s.players[p]
    cdef int x
    if action == A_THINK_VOMITORIUM:
        fire(B_VOMITORIUM)
        for x in range(NUM_TYPES):
            while pl.hand[x]:
                actor_hand_remove(s, p, x, True)
                if x == JACK:
                    s.jack_pile += 1
                else:
                    s.pool[x] += 1
    else:
        fire(B_LATRINE)
        x = action - A_THINK_LATRINE
        actor_hand_remove(s, p, x, True)
        if x == JACK:
            s.jack_pile += 1
        else:
            s.pool[x] += 1
    s.turn.phase = PH_THINK_CHOICE
    s.turn.decider = p

# ---------------------------------------------------------------------------------------
# Role payments (R-6.6)

cdef inline int petition_min(GameState* s, int p) noexcept nogil:
    if s.cfg.mode == MODE_IMPERIUM:
        return 2 if is_active(s, p, B_CIRCUS) else 3
    return s.cfg.petition_size

cdef inline int petition_max(GameState* s, int p) noexcept nogil:
    if s.cfg.mode == MODE_IMPERIUM:
        return 3
    return s.cfg.petition_size

cdef int gen_units(GameState* s, int p, int role, uint16_t* out) noexcept nogil:
    # Action units for `role` (NO_ROLE: any role, when leading).
    cdef Player* pl = &s.players[p]
    cdef int n = 0, x, r, R
    cdef int by_role[6]
    memset(by_role, 0, sizeof(by_role))
    for x in range(1, NUM_TYPES):
        if pl.hand[x]:
            by_role[mat_of(x)] += pl.hand[x]
            if role == NO_ROLE or mat_of(x) == role:
                out[n] = A_PLAY_CARD + x - 1
                n += 1
    if pl.hand[JACK]:
        for R in range(6):
            if role == NO_ROLE or R == role:
                out[n] = A_PLAY_JACK + R
                n += 1
    cdef int needed = petition_min(s, p)
    for r in range(6):
        if by_role[r] >= needed:
            for R in range(6):
                if role == NO_ROLE or R == role:
                    out[n] = A_PLAY_PETITION + R * 6 + r
                    n += 1
    if ((role == NO_ROLE or role == ARCHITECT) and s.cfg.mode == MODE_REPUBLIC
            and is_active(s, p, B_CRANE)):
        for x in range(1, NUM_TYPES):
            if pl.hand[x] and mat_of(x) != CONCRETE:
                out[n] = A_PLAY_CRANE + x - 1
                n += 1
    return n

cdef void payment_done(GameState* s) noexcept nogil:
    cdef Turn* t = &s.turn
    s.players[t.decider].flags |= P_LED_OR_FOLLOWED
    t.pos += 1
    t.phase = PH_NEXT_FOLLOWER

cdef void unit_done(GameState* s) noexcept nogil:
    cdef int p = s.turn.decider
    s.players[p].camp_units += 1
    if s.players[p].camp_units > 1:
        fire(B_PALACE)
    if is_active(s, p, B_PALACE):
        s.turn.phase = PH_PAY_MORE
    else:
        payment_done(s)

cdef inline void hand_to_camp(Player* pl, int card) noexcept nogil:
    hand_remove(pl, card, True)
    pl.camp[card] += 1

cdef int petition_scan(GameState* s, int* total, int* kinds) noexcept nogil:
    # The petition cards the decider could still pick (ids >= the last pick): how many,
    # of how many types; returns the first such type (-1 if none).
    cdef Turn* t = &s.turn
    cdef Player* pl = &s.players[t.decider]
    cdef int x, first = -1
    total[0] = 0
    kinds[0] = 0
    for x in range(t.petition_last, NUM_TYPES):
        if pl.hand[x] and mat_of(x) == t.petition_role:
            total[0] += pl.hand[x]
            kinds[0] += 1
            if first < 0:
                first = x
    return first

cdef inline bint petition_pick_forced(GameState* s, int total, int kinds) noexcept nogil:
    # below the minimum, a pick is made for the player when it has no real choice
    return kinds == 1 or total == petition_min(s, s.turn.decider) - s.turn.petition_picked

cdef void petition_continue(GameState* s) noexcept nogil:
    # Pick petition cards automatically while there is no real choice.
    cdef Turn* t = &s.turn
    cdef int p = t.decider
    cdef Player* pl = &s.players[p]
    cdef int lo = petition_min(s, p), hi = petition_max(s, p)
    cdef int total, kinds, first
    while True:
        if t.petition_picked >= hi:
            unit_done(s)
            return
        if t.petition_picked == 2 and hi == 3 and s.cfg.mode == MODE_IMPERIUM:
            fire(B_CIRCUS)
        first = petition_scan(s, &total, &kinds)
        if t.petition_picked >= lo:
            if total == 0:
                unit_done(s)
            else:
                t.phase = PH_PETITION
            return
        if petition_pick_forced(s, total, kinds):
            hand_to_camp(pl, first)
            t.petition_picked += 1
            t.petition_last = first
            continue
        t.phase = PH_PETITION
        return

cdef int gen_petition_picks(GameState* s, uint16_t* out) noexcept nogil:
    cdef Turn* t = &s.turn
    cdef Player* pl = &s.players[t.decider]
    cdef int need = petition_min(s, t.decider) - t.petition_picked
    cdef int x, n = 0, at_or_above = 0
    cdef int counts[45]
    # at_or_above(x) = role-r cards of type >= x; a pick must leave enough to finish
    for x in range(NUM_TYPES - 1, t.petition_last - 1, -1):
        if x > 0 and pl.hand[x] and mat_of(x) == t.petition_role:
            at_or_above += pl.hand[x]
        counts[x] = at_or_above
    for x in range(t.petition_last, NUM_TYPES):
        if x > 0 and pl.hand[x] and mat_of(x) == t.petition_role and counts[x] >= need:
            out[n] = A_PETITION_PICK + x - 1
            n += 1
    if need <= 0:
        out[n] = A_SKIP
        n += 1
    return n

cdef void play_unit(GameState* s, int action) noexcept nogil:
    cdef Turn* t = &s.turn
    cdef int p = t.decider
    cdef Player* pl = &s.players[p]
    cdef int x, role, idx
    if action >= A_PLAY_CARD and action < A_PLAY_JACK:
        x = action - A_PLAY_CARD + 1
        role = mat_of(x)
        hand_to_camp(pl, x)
    elif action >= A_PLAY_JACK and action < A_PLAY_PETITION:
        role = action - A_PLAY_JACK
        hand_to_camp(pl, JACK)
        pl.jacks_played += 1
    elif action >= A_PLAY_PETITION and action < A_PLAY_CRANE:
        idx = action - A_PLAY_PETITION
        role = idx // 6
        if t.led_role == NO_ROLE:
            t.led_role = role
        t.petition_role = idx % 6
        t.petition_picked = 0
        t.petition_last = 1
        petition_continue(s)
        return
    else:
        fire(B_CRANE)
        x = action - A_PLAY_CRANE + 1
        role = ARCHITECT
        hand_to_camp(pl, x)
    if t.led_role == NO_ROLE:
        t.led_role = role
    unit_done(s)

# ---------------------------------------------------------------------------------------
# Building (R-9)

cdef bint material_fits(GameState* s, int p, Structure* st, int card) noexcept nogil:
    # R-9.2.2
    cdef int m = mat_of(card)
    cdef int fm = mat_of(st.building)
    if m == fm:
        return True
    if st.building == B_STATUE and m == st.site:
        return True
    if is_active(s, p, B_ROAD) and (fm == STONE or st.site == STONE):
        return True
    if is_active(s, p, B_TOWER) and m == RUBBLE:
        return True
    if is_active(s, p, B_SCRIPTORIUM) and m == MARBLE:
        return True
    return False

cdef void note_material_rule(GameState* s, int p, Structure* st, int card) noexcept nogil:
    # which function (if any) made this material legal, for the firing counters
    cdef int m = mat_of(card)
    if m == mat_of(st.building) or (st.building == B_STATUE and m == st.site):
        return
    if is_active(s, p, B_ROAD) and (mat_of(st.building) == STONE or st.site == STONE):
        fire(B_ROAD)
    elif is_active(s, p, B_TOWER) and m == RUBBLE:
        fire(B_TOWER)
    elif is_active(s, p, B_SCRIPTORIUM) and m == MARBLE:
        fire(B_SCRIPTORIUM)

cdef int site_option(GameState* s, int p, int building, int site, int role) noexcept nogil:
    # 0: illegal, 1: in town (one action), 2: out of town (R-9.1.2 - R-9.1.5)
    if owned_structure(s, p, building) >= 0:
        return 0
    if s.in_town[site] > 0:
        return 1
    if s.out_town[site] > 0 and (is_active(s, p, B_TOWER) or can_pair(s, role)):
        return 2
    return 0

cdef int insert_structure(GameState* s, int owner) noexcept nogil:
    # a new slot in the structure table, kept grouped by owner (then by arrival):
    # equal states have equal bytes
    cdef int at = 0
    while at < s.nstruct and s.structures[at].owner <= owner:
        at += 1
    memmove(&s.structures[at + 1], &s.structures[at], (s.nstruct - at) * sizeof(Structure))
    memset(&s.structures[at], 0, sizeof(Structure))
    s.structures[at].owner = owner
    s.nstruct += 1
    return at

cdef void remove_structure(GameState* s, int idx) noexcept nogil:
    memmove(&s.structures[idx], &s.structures[idx + 1], (s.nstruct - idx - 1) * sizeof(Structure))
    s.nstruct -= 1
    memset(&s.structures[s.nstruct], 0, sizeof(Structure))

cdef bint prison_has_target(GameState* s, int p) noexcept nogil:
    cdef int i
    cdef Structure* st
    for i in range(s.nstruct):
        st = &s.structures[i]
        if st.owner != p and (st.flags & S_COMPLETE) and not conceded(s, st.owner) \
                and owned_structure(s, p, st.building) < 0:
            return True
    return False

cdef void complete_structure(GameState* s, int p, int idx) noexcept nogil:
    # R-9.3
    cdef Player* pl = &s.players[p]
    cdef Structure* st = &s.structures[idx]
    cdef int building = st.building
    st.flags |= S_COMPLETE
    pl.influence_sites[st.site] += 1
    refresh_active(s)
    if building == B_CATACOMB:                      # R-11.1(3)
        fire(B_CATACOMB)
        end_game(s, END_CATACOMB, 0)
        return
    if building == B_AMPHITHEATRE:                  # R-9.3.2: grants to the front
        fire(building)
        push_entry(s, E_GRANT, CRAFTSMAN, influence_of(s, p))
    elif building == B_FOUNDRY:
        fire(building)
        push_entry(s, E_GRANT, LABORER, influence_of(s, p))
    elif building == B_GARDEN:
        fire(building)
        push_entry(s, E_GRANT, PATRON, influence_of(s, p))
    elif building == B_SCHOOL:
        fire(building)
        push_entry(s, E_GRANT, THINKER, influence_of(s, p))
    elif building == B_PRISON and prison_has_target(s, p):
        push_entry(s, E_PRISON, 0, 1)
    check_forum(s)

cdef void lay_foundation(GameState* s, int p, int building, int site, int role,
                         bint from_hand) noexcept nogil:
    cdef Player* pl = &s.players[p]
    cdef int where = site_option(s, p, building, site, role)
    cdef int m, idx
    cdef Structure* st
    if from_hand:
        actor_hand_remove(s, p, building, True)
    idx = insert_structure(s, p)
    st = &s.structures[idx]
    st.building = building
    st.site = site
    if where == 1:
        s.in_town[site] -= 1
    else:
        s.out_town[site] -= 1
        st.flags = S_OUT_OF_TOWN
        if is_active(s, p, B_TOWER):
            fire(B_TOWER)
        else:
            consume_pair(s, role)                   # R-9.1.4
    if building == B_STATUE and site != MARBLE:
        fire(B_STATUE)
    if role == CRAFTSMAN:
        pl.flags |= P_CRAFTED
    if mat_of(building) == MARBLE and is_active(s, p, B_GATE):
        fire(B_GATE)
        refresh_active(s)                           # R-9.1.6 Gate
        if check_forum(s):
            return
    if where != 1:
        return                                      # only taking an in-town site can end it
    for m in range(NMAT):                           # R-11.1(2)
        if s.in_town[m]:
            return
    end_game(s, END_SITES, 0)

cdef void add_material(GameState* s, int p, int idx, int card, int role) noexcept nogil:
    cdef Player* pl = &s.players[p]
    cdef Structure* st = &s.structures[idx]
    cdef int m = mat_of(card)
    note_material_rule(s, p, st, card)
    st.materials[st.nmat] = card
    st.nmat += 1
    if role == CRAFTSMAN:
        pl.flags |= P_CRAFTED
    if st.nmat >= material_value(st.site):                                  # R-9.2.3
        complete_structure(s, p, idx)
    elif m == MARBLE and is_active(s, p, B_SCRIPTORIUM):
        fire(B_SCRIPTORIUM)
        complete_structure(s, p, idx)
    elif st.building == B_VILLA and role == ARCHITECT and m == STONE:        # R-8.3.3
        fire(B_VILLA)
        complete_structure(s, p, idx)

# ---------------------------------------------------------------------------------------
# Role actions (R-8)

cdef int gen_foundations(GameState* s, int p, int card, int role, uint16_t* out) noexcept nogil:
    cdef int m, n = 0
    if card == B_STATUE:
        for m in range(NMAT):
            if site_option(s, p, card, m, role):
                out[n] = A_LAY_STATUE + m
                n += 1
    elif site_option(s, p, card, mat_of(card), role):
        out[n] = A_LAY + card - 1
        n += 1
    return n

cdef int gen_action(GameState* s, uint16_t* out, bint first_only) noexcept nogil:
    # The non-skip options of the actor's current action; with first_only, stop at one.
    cdef Turn* t = &s.turn
    cdef int p = t.actor
    cdef Player* pl = &s.players[p]
    cdef int role = t.cur_role
    cdef int n = 0, x, i, base
    cdef Structure* st
    if role == PATRON:
        if pl.clientele_count < clientele_limit(s, p):
            if not (t.cur_parts & PART_MAIN):
                for x in range(1, NUM_TYPES):
                    if s.pool[x]:
                        out[n] = A_HIRE_POOL + x - 1
                        n += 1
                        if first_only:
                            return n
            if not (t.cur_parts & PART_DECK) and s.deck_size > 0 and is_active(s, p, B_BAR):
                out[n] = A_HIRE_DECK
                n += 1
                if first_only:
                    return n
            if not (t.cur_parts & PART_HAND) and is_active(s, p, B_AQUEDUCT):
                for x in range(1, NUM_TYPES):
                    if pl.hand[x]:
                        out[n] = A_HIRE_HAND + x - 1
                        n += 1
                        if first_only:
                            return n
    elif role == LABORER:
        if not (t.cur_parts & PART_MAIN):
            for x in range(1, NUM_TYPES):
                if s.pool[x]:
                    out[n] = A_TAKE_POOL + x - 1
                    n += 1
                    if first_only:
                        return n
        if not (t.cur_parts & PART_HAND) and is_active(s, p, B_DOCK):
            for x in range(1, NUM_TYPES):
                if pl.hand[x]:
                    out[n] = A_DOCK_HAND + x - 1
                    n += 1
                    if first_only:
                        return n
    elif role == MERCHANT:
        if pl.vault_count < vault_limit(s, p):
            if not (t.cur_parts & PART_MAIN):
                for x in range(1, NUM_TYPES):
                    if pl.stockpile[x]:
                        out[n] = A_VAULT_STOCKPILE + x - 1
                        n += 1
                        if first_only:
                            return n
                if s.deck_size > 0 and is_active(s, p, B_ATRIUM):
                    out[n] = A_VAULT_DECK
                    n += 1
                    if first_only:
                        return n
            if not (t.cur_parts & PART_HAND) and is_active(s, p, B_BASILICA):
                for x in range(1, NUM_TYPES):
                    if pl.hand[x]:
                        out[n] = A_VAULT_HAND + x - 1
                        n += 1
                        if first_only:
                            return n
    elif role == ARCHITECT or role == CRAFTSMAN:
        if t.cur_parts & PART_MAIN:
            return 0
        for x in range(1, NUM_TYPES):                   # a foundation from hand
            if pl.hand[x]:
                n += gen_foundations(s, p, x, role, out + n)
                if first_only and n:
                    return n
        for i in range(s.nstruct):                      # a material to an own structure
            st = &s.structures[i]
            if st.owner != p or (st.flags & S_COMPLETE):
                continue
            base = A_ADD + (st.building - 1) * 44 - 1
            for x in range(1, NUM_TYPES):
                if role == ARCHITECT:
                    if pl.stockpile[x] and material_fits(s, p, st, x):
                        out[n] = base + x
                        n += 1
                        if first_only:
                            return n
                elif pl.hand[x] and material_fits(s, p, st, x):
                    out[n] = base + x
                    n += 1
                    if first_only:
                        return n
            if role == ARCHITECT and is_active(s, p, B_ARCHWAY):    # R-8.3.2
                base = A_ADD_POOL + (st.building - 1) * 44 - 1
                for x in range(1, NUM_TYPES):
                    if s.pool[x] and material_fits(s, p, st, x):
                        out[n] = base + x
                        n += 1
                        if first_only:
                            return n
        if role == CRAFTSMAN and s.deck_size > 0 and is_active(s, p, B_FOUNTAIN):
            out[n] = A_FOUNTAIN_DRAW                    # R-8.4.2
            n += 1
    return n

cdef int gen_fountain(GameState* s, uint16_t* out) noexcept nogil:
    cdef Turn* t = &s.turn
    cdef int p = t.actor
    cdef int card = t.fountain_card
    cdef int i, n
    cdef Structure* st
    n = gen_foundations(s, p, card, CRAFTSMAN, out)
    for i in range(s.nstruct):
        st = &s.structures[i]
        if st.owner == p and not (st.flags & S_COMPLETE) and material_fits(s, p, st, card):
            out[n] = A_ADD + (st.building - 1) * 44 + card - 1
            n += 1
    out[n] = A_FOUNTAIN_KEEP
    return n + 1

cdef int gen_stairway(GameState* s, uint16_t* out, bint first_only) noexcept nogil:
    # R-8.3.4: a material onto an opponent's completed structure without one yet
    cdef Turn* t = &s.turn
    cdef int p = t.actor
    cdef Player* pl = &s.players[p]
    cdef bint archway = is_active(s, p, B_ARCHWAY)
    cdef int n = 0, i, x, base
    cdef Structure* st
    for i in range(s.nstruct):
        st = &s.structures[i]
        if st.owner == p or not (st.flags & S_COMPLETE) or st.stairway:
            continue
        base = A_STAIRWAY + (st.owner * 44 + st.building - 1) * 88
        for x in range(1, NUM_TYPES):
            if (pl.stockpile[x] or (archway and s.pool[x])) and material_fits(s, p, st, x):
                if pl.stockpile[x]:
                    out[n] = base + (x - 1) * 2
                    n += 1
                if archway and s.pool[x]:
                    out[n] = base + (x - 1) * 2 + 1
                    n += 1
                if first_only:
                    return n
    return n

cdef int gen_prison(GameState* s, uint16_t* out) noexcept nogil:
    cdef int p = s.turn.actor
    cdef int n = 0, i
    cdef Structure* st
    for i in range(s.nstruct):
        st = &s.structures[i]
        if (st.owner != p and (st.flags & S_COMPLETE) and not conceded(s, st.owner)
                and owned_structure(s, p, st.building) < 0):
            out[n] = A_PRISON + st.owner * 44 + st.building - 1
            n += 1
    return n

cdef void end_action(GameState* s) noexcept nogil:
    # After a part of an action: go on with its other parts if any, else the next action.
    cdef uint16_t probe[16]     # first_only writes at most 6 (Statue sites)
    cdef Turn* t = &s.turn
    if t.phase == PH_OVER:
        return
    if t.cur_role == ARCHITECT:
        architect_done(s)
        return
    if gen_action(s, probe, True) > 0:
        t.phase = PH_ACTION
        t.decider = t.actor
    else:
        t.phase = PH_QUEUE

cdef void architect_done(GameState* s) noexcept nogil:
    # R-8.3.4: the Stairway part comes after the main part and the grants it caused, so its
    # entry goes below anything this action pushed on the stack. Those grants (or a Prison
    # exchange, or a foundation with a Gate) may complete, lay or take a Stairway, so whether
    # it is active is decided when the entry is reached (R-14.1), not now.
    cdef Turn* t = &s.turn
    cdef int at = t.action_base
    t.phase = PH_QUEUE
    if t.stack_n >= STACK_CAP:
        return
    if at > t.stack_n:
        at = t.stack_n
    memmove(&t.stack_kind[at + 1], &t.stack_kind[at], t.stack_n - at)
    memmove(&t.stack_role[at + 1], &t.stack_role[at], t.stack_n - at)
    memmove(&t.stack_count[at + 1], &t.stack_count[at], t.stack_n - at)
    t.stack_kind[at] = E_STAIRWAY
    t.stack_role[at] = ARCHITECT
    t.stack_count[at] = 1
    t.stack_n += 1

cdef void hire(GameState* s, int card, int part) noexcept nogil:
    # R-8.1: the card is already taken from its source
    cdef Turn* t = &s.turn
    cdef int p = t.actor
    cdef Player* pl = &s.players[p]
    if is_active(s, p, B_INSULA) or is_active(s, p, B_AQUEDUCT):
        if pl.clientele_count >= influence_of(s, p):
            fire(B_INSULA if is_active(s, p, B_INSULA) else B_AQUEDUCT)
    pl.clientele[card] += 1
    pl.clientele_count += 1
    t.cur_parts |= part
    if check_forum(s):                              # R-8.1.6
        return
    if is_active(s, p, B_BATH):                     # R-8.1.5: the hire acts at once
        fire(B_BATH)
        push_entry(s, E_PATRON_CONT, PATRON, t.cur_parts)
        push_entry(s, E_BATH, mat_of(card), 1)
        t.phase = PH_QUEUE                          # the Patron action resumes afterwards

cdef void apply_role_action(GameState* s, int action) noexcept nogil:
    cdef Turn* t = &s.turn
    cdef int p = t.actor
    cdef Player* pl = &s.players[p]
    cdef int x, idx, building, role = t.cur_role
    if action == A_SKIP:
        if role == ARCHITECT:
            architect_done(s)
        else:
            t.phase = PH_QUEUE
        return
    if action < A_HIRE_DECK:                           # R-8.1.1
        x = action - A_HIRE_POOL + 1
        s.pool[x] -= 1
        hire(s, x, PART_MAIN)
    elif action == A_HIRE_DECK:                        # R-8.1.2 Bar
        fire(B_BAR)
        x = deck_draw(s)
        hire(s, x, PART_DECK)
        if s.deck_size == 0 and t.phase != PH_OVER:
            end_game(s, END_DECK, 0)
            return
    elif action < A_TAKE_POOL:                         # R-8.1.3 Aqueduct
        fire(B_AQUEDUCT)
        x = action - A_HIRE_HAND + 1
        actor_hand_remove(s, p, x, True)
        hire(s, x, PART_HAND)
    elif action < A_DOCK_HAND:                         # R-8.2.1
        x = action - A_TAKE_POOL + 1
        s.pool[x] -= 1
        pl.stockpile[x] += 1
        pl.stockpile_count += 1
        t.cur_parts |= PART_MAIN
        if check_forum(s):
            return
    elif action < A_LAY:                               # R-8.2.2 Dock
        fire(B_DOCK)
        x = action - A_DOCK_HAND + 1
        actor_hand_remove(s, p, x, True)
        pl.stockpile[x] += 1
        pl.stockpile_count += 1
        t.cur_parts |= PART_HAND
        if check_forum(s):
            return
    elif action < A_LAY_STATUE:                        # R-9.1
        x = action - A_LAY + 1
        t.cur_parts |= PART_MAIN
        lay_foundation(s, p, x, mat_of(x), role, True)
    elif action < A_ADD:
        t.cur_parts |= PART_MAIN
        lay_foundation(s, p, B_STATUE, action - A_LAY_STATUE, role, True)
    elif action < A_VAULT_STOCKPILE:                   # R-9.2
        t.cur_parts |= PART_MAIN
        if action < A_ADD_POOL:
            idx = action - A_ADD
            building = idx // 44 + 1
            x = idx % 44 + 1
            if role == ARCHITECT:
                pl.stockpile[x] -= 1
                pl.stockpile_count -= 1
            else:
                actor_hand_remove(s, p, x, True)
        else:
            fire(B_ARCHWAY)
            idx = action - A_ADD_POOL
            building = idx // 44 + 1
            x = idx % 44 + 1
            s.pool[x] -= 1
        add_material(s, p, owned_structure(s, p, building), x, role)
    elif action < A_VAULT_DECK:                        # R-8.6.1
        x = action - A_VAULT_STOCKPILE + 1
        if pl.vault_count >= influence_of(s, p):
            fire(B_MARKET)
        pl.stockpile[x] -= 1
        pl.stockpile_count -= 1
        pl.vault[x] += 1
        pl.vault_known[x] += 1
        pl.vault_count += 1
        t.cur_parts |= PART_MAIN
    elif action == A_VAULT_DECK:                       # R-8.6.2 Atrium
        fire(B_ATRIUM)
        x = deck_draw(s)
        pl.vault[x] += 1
        pl.vault_count += 1
        t.cur_parts |= PART_MAIN
        if s.deck_size == 0:
            end_game(s, END_DECK, 0)
            return
    elif action < A_REVEAL:                            # R-8.6.3 Basilica
        fire(B_BASILICA)
        x = action - A_VAULT_HAND + 1
        actor_hand_remove(s, p, x, False)
        pl.vault[x] += 1
        pl.vault_count += 1
        t.cur_parts |= PART_HAND
    else:                                              # R-8.4.2 Fountain: look at the top card
        fire(B_FOUNTAIN)
        t.fountain_card = deck_draw(s)
        if s.deck_size == 0:
            t.pending_end = END_DECK                   # R-11.1(1): after this action
        t.cur_parts |= PART_MAIN
        t.phase = PH_FOUNTAIN
        return
    if t.phase == PH_ACTION:
        end_action(s)

cdef void apply_fountain(GameState* s, int action) noexcept nogil:
    cdef Turn* t = &s.turn
    cdef int p = t.actor
    cdef int card = t.fountain_card
    cdef int idx
    t.fountain_card = 0
    t.phase = PH_ACTION
    if action == A_FOUNTAIN_KEEP:
        hand_add(&s.players[p], card, False)
    elif action < A_LAY_STATUE:
        lay_foundation(s, p, card, mat_of(card), CRAFTSMAN, False)
    elif action < A_ADD:
        lay_foundation(s, p, card, action - A_LAY_STATUE, CRAFTSMAN, False)
    else:
        idx = action - A_ADD
        add_material(s, p, owned_structure(s, p, idx // 44 + 1), card, CRAFTSMAN)
    if t.pending_end and t.phase != PH_OVER:
        t.pending_end = 0
        end_game(s, END_DECK, 0)
        return
    t.pending_end = 0
    if t.phase != PH_OVER:
        t.phase = PH_QUEUE

cdef void apply_stairway(GameState* s, int action) noexcept nogil:
    cdef Turn* t = &s.turn
    cdef int p = t.actor
    cdef Player* pl = &s.players[p]
    cdef int idx, owner, building, card, i
    t.phase = PH_QUEUE
    if action == A_SKIP:
        return
    fire(B_STAIRWAY)
    idx = action - A_STAIRWAY
    card = (idx >> 1) % 44 + 1
    building = (idx >> 1) // 44 % 44 + 1
    owner = (idx >> 1) // (44 * 44)
    if idx & 1:
        fire(B_ARCHWAY)
        s.pool[card] -= 1
    else:
        pl.stockpile[card] -= 1
        pl.stockpile_count -= 1
    i = owned_structure(s, owner, building)
    s.structures[i].stairway = card
    refresh_active(s)
    check_forum(s)

cdef void apply_prison(GameState* s, int action) noexcept nogil:
    # R-13 #29: the Prison's site goes to the opponent; their structure comes to us whole
    cdef Turn* t = &s.turn
    cdef int p = t.actor
    cdef int owner, building, i, prison, site
    cdef Structure taken
    t.phase = PH_QUEUE
    if action == A_SKIP:
        return
    fire(B_PRISON)
    owner = (action - A_PRISON) // 44
    building = (action - A_PRISON) % 44 + 1
    prison = owned_structure(s, p, B_PRISON)
    site = s.structures[prison].site
    s.players[p].influence_sites[site] -= 1
    s.players[owner].influence_sites[site] += 1
    i = owned_structure(s, owner, building)
    taken = s.structures[i]
    remove_structure(s, i)
    i = insert_structure(s, p)
    s.structures[i] = taken
    s.structures[i].owner = p
    refresh_active(s)
    check_forum(s)

cdef void start_action(GameState* s, int role, int source, int batch) noexcept nogil:
    cdef Turn* t = &s.turn
    cdef uint16_t probe[16]     # first_only writes at most 6 (Statue sites)
    t.cur_role = role
    t.cur_src = source
    t.cur_parts = 0
    t.decider = t.actor
    t.action_base = t.stack_n
    if role == LEGIONARY:
        start_legionary(s, batch)
    elif role == THINKER:
        t.think_ctx = CTX_QUEUE
        t.phase = PH_THINK
    elif gen_action(s, probe, True) > 0:
        t.phase = PH_ACTION
    elif role == ARCHITECT:
        architect_done(s)                           # the Stairway part may still apply
    else:
        t.phase = PH_QUEUE                          # nothing this action could do

cdef void step_queue(GameState* s) noexcept nogil:
    # Take the actor's next action: front entries, then camp actions, then clients (R-6.3).
    cdef Turn* t = &s.turn
    cdef int p = t.actor
    cdef int top, kind, role, count, client, batch, per_client
    cdef uint16_t probe[16]     # first_only writes at most 6 (Statue sites)
    if t.stack_n > 0:
        top = t.stack_n - 1
        kind = t.stack_kind[top]
        role = t.stack_role[top]
        count = t.stack_count[top]
        if kind == E_GRANT and count > 1:
            t.stack_count[top] = count - 1
        else:
            t.stack_n -= 1
        t.decider = p
        if kind == E_GRANT:
            start_action(s, role, SRC_GRANT, 1)
        elif kind == E_BATH:
            start_action(s, role, SRC_BATH, 1)
        elif kind == E_PATRON_CONT:
            t.cur_role = PATRON
            t.cur_src = SRC_MAIN
            t.cur_parts = count
            t.phase = PH_ACTION if gen_action(s, probe, True) > 0 else PH_QUEUE
        elif kind == E_STAIRWAY:
            t.cur_role = ARCHITECT
            if is_active(s, p, B_STAIRWAY) and gen_stairway(s, probe, True) > 0:
                t.phase = PH_STAIRWAY
        elif kind == E_PRISON:
            if prison_has_target(s, p):
                t.phase = PH_PRISON
        return
    if t.ready == 0:
        client = next_matching_client(s, p, t.led_role)
        if client < 0:
            t.pos += 1
            t.phase = PH_NEXT_ACTOR
            return
        if mat_of(client) != t.led_role:
            fire(B_STOREROOM if (t.led_role == LABORER and is_active(s, p, B_STOREROOM)
                                 and mat_of(client) != MERCHANT) else B_LUDUS_MAGNUS)
        t.pending_clients[client] -= 1
        t.ready = actions_per_client(s, p)
        if t.ready == 2:
            fire(B_CIRCUS_MAXIMUS)
    t.ready -= 1
    batch = 1
    if t.led_role == LEGIONARY:
        # R-8.5.1: the remaining camp actions and matching clients join one demand
        batch += t.ready
        t.ready = 0
        per_client = actions_per_client(s, p)
        client = next_matching_client(s, p, LEGIONARY)
        while client >= 0:
            t.pending_clients[client] -= 1
            batch += per_client
            client = next_matching_client(s, p, LEGIONARY)
    start_action(s, t.led_role, SRC_MAIN, batch)

# ---------------------------------------------------------------------------------------
# Legionary (R-8.5)

cdef inline int revealable(GameState* s, Player* pl, int card) noexcept nogil:
    cdef int r = <int>pl.hand[card] - <int>s.turn.revealed[card]
    return r if r > 0 else 0

cdef void start_legionary(GameState* s, int batch) noexcept nogil:
    cdef Turn* t = &s.turn
    cdef Player* pl = &s.players[t.actor]
    cdef int x
    t.leg_k = batch if batch < 255 else 255
    t.leg_revealed = 0
    t.leg_last = 1
    memset(t.demand, 0, sizeof(t.demand))
    for x in range(1, NUM_TYPES):
        if revealable(s, pl, x):
            t.phase = PH_LEG_REVEAL
            return
    t.phase = PH_QUEUE                              # nothing to reveal: the batch is lost

cdef bint can_take_from_pool(GameState* s) noexcept nogil:
    cdef Turn* t = &s.turn
    cdef int x
    for x in range(t.leg_last, NUM_TYPES):
        if s.pool[x] and t.take_left[mat_of(x)]:
            return True
    return False

cdef void after_reveal(GameState* s) noexcept nogil:
    cdef Turn* t = &s.turn
    if t.leg_revealed == 0:
        t.phase = PH_QUEUE
        return
    memcpy(t.take_left, t.demand, sizeof(t.demand))
    t.leg_last = 1
    if can_take_from_pool(s):
        t.phase = PH_LEG_TAKE
    else:
        t.victim_pos = 1
        t.phase = PH_LEG_VICTIMS

cdef bint is_victim(GameState* s, int legionary, int offset) noexcept nogil:
    # R-8.5.4, R-8.5.5
    cdef int n = s.cfg.num_players
    cdef int v = (legionary + offset) % n
    cdef bint bridge = is_active(s, legionary, B_BRIDGE)
    if conceded(s, v):
        return False
    if not bridge and n > 3 and offset != 1 and offset != n - 1:
        return False
    if is_active(s, v, B_WALL):
        fire(B_WALL)
        return False
    if is_active(s, v, B_PALISADE):
        if not bridge:
            fire(B_PALISADE)
            return False
        fire(B_BRIDGE)
    if bridge and n > 3 and offset != 1 and offset != n - 1:
        fire(B_BRIDGE)
    return True

cdef inline bint structure_matches(Structure* st, int victim, int m) noexcept nogil:
    # Domus Aurea: a material-free incomplete structure whose foundation or site is m
    return (st.owner == victim and not (st.flags & S_COMPLETE) and st.nmat == 0
            and (mat_of(st.building) == m or st.site == m))

cdef int give_candidates(GameState* s, int victim, int kind, int m, int start,
                         int* kinds, int* first) noexcept nogil:
    # how many things of material m the victim could give in this kind (ids >= start)
    cdef Player* pl = &s.players[victim]
    cdef int x, i, c, total = 0
    kinds[0] = 0
    first[0] = -1
    if kind == GIVE_STRUCTURE:
        for x in range(start, NUM_TYPES):
            i = owned_structure(s, victim, x)
            if i >= 0 and structure_matches(&s.structures[i], victim, m):
                total += 1
                kinds[0] += 1
                if first[0] < 0:
                    first[0] = x
        return total
    for x in range(start, NUM_TYPES):
        if mat_of(x) != m:
            continue
        if kind == GIVE_HAND:
            c = pl.hand[x]
        elif kind == GIVE_STOCKPILE:
            c = pl.stockpile[x]
        else:
            c = pl.clientele[x]
        if c:
            total += c
            kinds[0] += 1
            if first[0] < 0:
                first[0] = x
    return total

cdef void give_one(GameState* s, int victim, int kind, int x) noexcept nogil:
    cdef Player* vp = &s.players[victim]
    cdef Player* lp = &s.players[s.turn.actor]
    cdef int i
    if kind == GIVE_HAND:                           # R-8.5.6
        hand_remove(vp, x, True)
        lp.stockpile[x] += 1
        lp.stockpile_count += 1
    elif kind == GIVE_STOCKPILE:                    # Bridge
        fire(B_BRIDGE)
        vp.stockpile[x] -= 1
        vp.stockpile_count -= 1
        lp.stockpile[x] += 1
        lp.stockpile_count += 1
    elif kind == GIVE_CLIENT:                       # Colosseum
        fire(B_COLOSSEUM)
        vp.clientele[x] -= 1
        vp.clientele_count -= 1
        lp.vault[x] += 1
        lp.vault_known[x] += 1
        lp.vault_count += 1
    else:                                           # Domus Aurea
        fire(B_DOMUS_AUREA)
        i = owned_structure(s, victim, x)
        lp.influence_sites[s.structures[i].site] += 1
        lp.stockpile[x] += 1
        lp.stockpile_count += 1
        remove_structure(s, i)
        refresh_active(s)

cdef inline bint kind_applies(GameState* s, int kind) noexcept nogil:
    cdef int p = s.turn.actor
    if kind == GIVE_HAND:
        return True
    if kind == GIVE_STOCKPILE:
        return is_active(s, p, B_BRIDGE)
    if kind == GIVE_CLIENT:
        return s.cfg.mode == MODE_IMPERIUM and is_active(s, p, B_COLOSSEUM)
    return s.cfg.mode == MODE_REPUBLIC and is_active(s, p, B_DOMUS_AUREA)

cdef inline int give_need(GameState* s, int kind, int m) noexcept nogil:
    # Colosseum clients only while the legionary's vault is below its limit (A14)
    cdef int need = s.turn.give_left[m]
    cdef int room
    if kind == GIVE_CLIENT:
        room = vault_limit(s, s.turn.actor) - s.players[s.turn.actor].vault_count
        if room < need:
            need = room if room > 0 else 0
    return need

cdef bint extra_has_candidates(GameState* s, int victim) noexcept nogil:
    cdef Turn* t = &s.turn
    cdef int m, kinds, first
    for m in range(NMAT):
        if (t.demand[m] and give_need(s, t.give_kind, m)
                and give_candidates(s, victim, t.give_kind, m, 1, &kinds, &first)):
            return True
    return False

cdef inline bint give_forced(int total, int kinds, int need) noexcept nogil:
    # the victim has no choice: it gives all it has, or all candidates are of one type
    return total <= need or kinds == 1

cdef bint settle_forced_gives(GameState* s, int victim) noexcept nogil:
    # Give whatever the victim has no choice about, kind by kind (hand, then the Bridge,
    # Colosseum and Domus Aurea extras) and material by material. Returns True when a
    # decision is needed and sets it up: the legionary choosing whether to use an extra
    # against this victim (R-8.5.7), or the victim choosing which card (give_kind and
    # give_mat name it; picks go upwards from leg_last).
    cdef Turn* t = &s.turn
    cdef int m, total, kinds, first, need, start
    while t.give_kind < GIVE_KINDS:
        if kind_applies(s, t.give_kind):
            if t.give_kind != GIVE_HAND and not t.extra_ok:
                if extra_has_candidates(s, victim):
                    t.phase = PH_LEG_EXTRA
                    t.decider = t.actor
                    return True
                t.extra_ok = 1
            if t.extra_ok or t.give_kind == GIVE_HAND:
                for m in range(NMAT):
                    while t.give_left[m]:
                        need = give_need(s, t.give_kind, m)
                        start = t.leg_last if m == t.give_mat else 1
                        total = give_candidates(s, victim, t.give_kind, m, start, &kinds, &first)
                        if need == 0 or total == 0:
                            if (total == 0 and start == 1 and t.give_kind == GIVE_HAND):
                                # "Glory to Rome!": everyone now knows it has no m card
                                s.players[victim].lacks |= 1 << m
                            t.give_left[m] = 0
                        elif give_forced(total, kinds, need):
                            give_one(s, victim, t.give_kind, first)
                            t.give_left[m] -= 1
                        else:
                            if t.give_mat != m:
                                t.give_mat = m
                                t.leg_last = 1
                            t.phase = PH_LEG_GIVE
                            t.decider = victim
                            return True
        t.give_kind += 1
        t.extra_ok = 0
        memcpy(t.give_left, t.demand, sizeof(t.demand))
        t.give_mat = NO_ROLE
        t.leg_last = 1
    return False

cdef void step_victims(GameState* s) noexcept nogil:
    cdef Turn* t = &s.turn
    cdef int n = s.cfg.num_players
    cdef int v
    while t.victim_pos < n:
        if is_victim(s, t.actor, t.victim_pos):
            v = (t.actor + t.victim_pos) % n
            memcpy(t.give_left, t.demand, sizeof(t.demand))
            t.give_kind = GIVE_HAND
            t.extra_ok = 0
            t.give_mat = NO_ROLE
            t.leg_last = 1
            if settle_forced_gives(s, v):
                return
        t.victim_pos += 1
    t.decider = t.actor
    t.give_kind = 0
    t.give_mat = 0
    t.leg_last = 0
    if check_forum(s):                              # R-8.5.8
        return
    t.phase = PH_QUEUE

cdef int gen_legionary(GameState* s, uint16_t* out) noexcept nogil:
    cdef Turn* t = &s.turn
    cdef Player* pl
    cdef int n = 0, x, m, need, total, kinds, first, base
    if t.phase == PH_LEG_REVEAL:
        pl = &s.players[t.actor]
        for x in range(t.leg_last, NUM_TYPES):
            if revealable(s, pl, x):
                out[n] = A_REVEAL + x - 1
                n += 1
    elif t.phase == PH_LEG_TAKE:
        for x in range(t.leg_last, NUM_TYPES):
            if s.pool[x] and t.take_left[mat_of(x)]:
                out[n] = A_LEG_TAKE + x - 1
                n += 1
    elif t.phase == PH_LEG_EXTRA:
        out[0] = A_USE_EXTRA
        n = 1
    else:
        # a pick x is legal if enough candidates >= x remain to finish (no dead ends)
        m = t.give_mat
        need = give_need(s, t.give_kind, m)
        if t.give_kind == GIVE_HAND:
            base = A_GIVE
        elif t.give_kind == GIVE_STOCKPILE:
            base = A_GIVE_STOCKPILE
        elif t.give_kind == GIVE_CLIENT:
            base = A_GIVE_CLIENT
        else:
            base = A_GIVE_STRUCTURE
        for x in range(t.leg_last, NUM_TYPES):
            total = give_candidates(s, t.decider, t.give_kind, m, x, &kinds, &first)
            if total < need:
                break
            if first == x:
                out[n] = base + x - 1
                n += 1
        return n                                    # giving is mandatory: no skip
    out[n] = A_SKIP
    return n + 1

cdef void apply_legionary(GameState* s, int action) noexcept nogil:
    cdef Turn* t = &s.turn
    cdef Player* pl
    cdef int x, v
    if t.phase == PH_LEG_REVEAL:
        if action == A_SKIP:
            after_reveal(s)
            return
        x = action - A_REVEAL + 1                   # R-8.5.2
        pl = &s.players[t.actor]
        t.revealed[x] += 1
        if pl.hand_known[x] < t.revealed[x]:
            pl.hand_known[x] = t.revealed[x]
        t.demand[mat_of(x)] += 1
        t.leg_revealed += 1
        t.leg_last = x
        if t.leg_revealed >= t.leg_k:
            after_reveal(s)
            return
        for x in range(t.leg_last, NUM_TYPES):
            if revealable(s, pl, x):
                return
        after_reveal(s)
    elif t.phase == PH_LEG_TAKE:
        if action != A_SKIP:                        # R-8.5.3
            x = action - A_LEG_TAKE + 1
            s.pool[x] -= 1
            pl = &s.players[t.actor]
            pl.stockpile[x] += 1
            pl.stockpile_count += 1
            t.take_left[mat_of(x)] -= 1
            t.leg_last = x
            if can_take_from_pool(s):
                return
        t.victim_pos = 1
        t.phase = PH_LEG_VICTIMS
    elif t.phase == PH_LEG_EXTRA:                   # R-8.5.7: the legionary's choice
        v = (t.actor + t.victim_pos) % s.cfg.num_players
        if action == A_USE_EXTRA:
            t.extra_ok = 1
        else:
            t.give_kind += 1
            t.extra_ok = 0
            memcpy(t.give_left, t.demand, sizeof(t.demand))
            t.give_mat = NO_ROLE
            t.leg_last = 1
        if settle_forced_gives(s, v):
            return
        t.victim_pos += 1
        t.phase = PH_LEG_VICTIMS
    else:                                           # R-8.5.6 / R-8.5.7: the victim's choice
        if action >= A_GIVE_STRUCTURE:
            x = action - A_GIVE_STRUCTURE + 1
        elif action >= A_GIVE_CLIENT:
            x = action - A_GIVE_CLIENT + 1
        elif action >= A_GIVE_STOCKPILE:
            x = action - A_GIVE_STOCKPILE + 1
        else:
            x = action - A_GIVE + 1
        v = t.decider
        give_one(s, v, t.give_kind, x)
        t.give_left[t.give_mat] -= 1
        t.leg_last = x
        if settle_forced_gives(s, v):
            return
        t.victim_pos += 1
        t.phase = PH_LEG_VICTIMS


# ---------------------------------------------------------------------------------------
# Turn flow (R-6)

cdef void step_next_follower(GameState* s) noexcept nogil:
    cdef Turn* t = &s.turn
    cdef int n = s.cfg.num_players
    cdef int p
    while t.pos < n:
        p = (t.leader + t.pos) % n
        if not conceded(s, p):
            t.decider = p
            t.phase = PH_FOLLOW
            return
        t.pos += 1
    t.pos = 0
    t.phase = PH_NEXT_ACTOR

cdef void step_next_actor(GameState* s) noexcept nogil:
    cdef Turn* t = &s.turn
    cdef int n = s.cfg.num_players
    cdef int p
    while t.pos < n:
        p = (t.leader + t.pos) % n
        if not conceded(s, p):
            # R-6.4: the acting clients are fixed now
            t.actor = p
            t.decider = p
            t.ready = s.players[p].camp_units
            t.stack_n = 0
            memset(t.revealed, 0, sizeof(t.revealed))
            memcpy(t.pending_clients, s.players[p].clientele, sizeof(t.pending_clients))
            t.phase = PH_QUEUE
            return
        t.pos += 1
    t.pos = 0
    t.eot_step = 0
    t.phase = PH_EOT

cdef bint opponents_played_jacks(GameState* s, int p) noexcept nogil:
    cdef int q
    for q in range(s.cfg.num_players):
        if q != p and s.players[q].camp[JACK]:
            return True
    return False

cdef bint camp_has_orders(Player* pl, int start) noexcept nogil:
    cdef int x
    for x in range(start, NUM_TYPES):
        if pl.camp[x]:
            return True
    return False

cdef void step_eot(GameState* s) noexcept nogil:
    # R-6.5(a) Senate, then (b) Sewer, each in turn order from the leader
    cdef Turn* t = &s.turn
    cdef int n = s.cfg.num_players
    cdef int p
    while t.eot_step < 2:
        while t.pos < n:
            p = (t.leader + t.pos) % n
            if not conceded(s, p):
                if (t.eot_step == 0 and s.cfg.mode == MODE_IMPERIUM
                        and is_active(s, p, B_SENATE) and opponents_played_jacks(s, p)):
                    t.decider = p
                    t.phase = PH_SENATE
                    return
                if (t.eot_step == 1 and is_active(s, p, B_SEWER)
                        and camp_has_orders(&s.players[p], 1)):
                    t.decider = p
                    t.leg_last = 1
                    t.phase = PH_SEWER
                    return
            t.pos += 1
        t.eot_step += 1
        t.pos = 0
    t.phase = PH_END_TURN

cdef int gen_sewer(GameState* s, uint16_t* out) noexcept nogil:
    cdef Player* pl = &s.players[s.turn.decider]
    cdef int x, n = 0
    for x in range(s.turn.leg_last, NUM_TYPES):
        if pl.camp[x]:
            out[n] = A_SEWER + x - 1
            n += 1
    out[n] = A_SKIP
    return n + 1

cdef void apply_end_of_turn(GameState* s, int action) noexcept nogil:
    cdef Turn* t = &s.turn
    cdef int p = t.decider
    cdef Player* pl = &s.players[p]
    cdef int q, x
    if t.phase == PH_SENATE:
        if action == A_SENATE:
            fire(B_SENATE)
            for q in range(s.cfg.num_players):
                if q != p:
                    while s.players[q].camp[JACK]:
                        s.players[q].camp[JACK] -= 1
                        hand_add(pl, JACK, True)
        t.pos += 1
    else:
        if action != A_SKIP:
            fire(B_SEWER)
            x = action - A_SEWER + 1
            pl.camp[x] -= 1
            pl.stockpile[x] += 1
            pl.stockpile_count += 1
            t.leg_last = x
            if check_forum(s):                      # Forum Romanum counts the stockpile
                return
            if camp_has_orders(pl, x):
                return
        t.leg_last = 0
        t.pos += 1
    t.phase = PH_EOT

cdef void step_end_turn(GameState* s) noexcept nogil:
    # R-6.5(c): camps to the pool, Jacks to the Jack pile
    cdef int p, x
    cdef Player* pl
    for p in range(s.cfg.num_players):
        pl = &s.players[p]
        if pl.camp[JACK]:
            s.jack_pile += pl.camp[JACK]
            pl.camp[JACK] = 0
        for x in range(1, NUM_TYPES):
            if pl.camp[x]:
                s.pool[x] += pl.camp[x]
                pl.camp[x] = 0
    s.turn.pos = 0
    s.turn.phase = PH_ACADEMY_NEXT

cdef void step_academy(GameState* s) noexcept nogil:
    # R-6.5(d)
    cdef Turn* t = &s.turn
    cdef int n = s.cfg.num_players
    cdef int p
    while t.pos < n:
        p = (t.leader + t.pos) % n
        if (not conceded(s, p) and (s.players[p].flags & P_CRAFTED)
                and is_active(s, p, B_ACADEMY)):
            t.decider = p
            t.actor = p
            t.think_ctx = CTX_ACADEMY
            t.phase = PH_THINK
            return
        t.pos += 1
    t.phase = PH_NEW_TURN

cdef void begin_turn(GameState* s) noexcept nogil:
    cdef Turn* t = &s.turn
    cdef int p
    cdef Player* pl
    for p in range(s.cfg.num_players):
        pl = &s.players[p]
        pl.camp_units = 0
        pl.jacks_played = 0
        pl.flags &= P_CONCEDED
    t.led_role = NO_ROLE
    t.pos = 0
    t.decider = t.leader
    t.actor = t.leader
    t.stack_n = 0
    t.ready = 0
    t.phase = PH_LEAD

cdef void step_new_turn(GameState* s) noexcept nogil:
    # R-6.5(e): the Leader card passes clockwise (skipping players who conceded)
    cdef Turn* t = &s.turn
    cdef int n = s.cfg.num_players
    cdef int i, p
    for i in range(1, n + 1):
        p = (t.leader + i) % n
        if not conceded(s, p):
            t.leader = p
            break
    t.turn_number += 1
    begin_turn(s)

cdef void advance(GameState* s) noexcept nogil:
    cdef int phase
    while True:
        phase = s.turn.phase
        if phase == PH_QUEUE:
            step_queue(s)
        elif phase == PH_NEXT_FOLLOWER:
            step_next_follower(s)
        elif phase == PH_NEXT_ACTOR:
            step_next_actor(s)
        elif phase == PH_LEG_VICTIMS:
            step_victims(s)
        elif phase == PH_EOT:
            step_eot(s)
        elif phase == PH_END_TURN:
            step_end_turn(s)
        elif phase == PH_ACADEMY_NEXT:
            step_academy(s)
        elif phase == PH_NEW_TURN:
            step_new_turn(s)
        else:
            return

# ---------------------------------------------------------------------------------------
# The two entry points every client uses

cdef int gen_legal(GameState* s, uint16_t* out) noexcept nogil:
    cdef Turn* t = &s.turn
    cdef int phase = t.phase
    cdef int n
    if phase == PH_LEAD:
        n = gen_think_options(s, t.decider, out, True)
        return n + gen_units(s, t.decider, NO_ROLE, out + n)
    if phase == PH_FOLLOW:
        n = gen_think_options(s, t.decider, out, True)
        return n + gen_units(s, t.decider, t.led_role, out + n)
    if phase == PH_ACTION:
        n = gen_action(s, out, False)
        out[n] = A_SKIP
        return n + 1
    if phase == PH_LEG_REVEAL or phase == PH_LEG_TAKE or phase == PH_LEG_GIVE or phase == PH_LEG_EXTRA:
        return gen_legionary(s, out)
    if phase == PH_PETITION:
        return gen_petition_picks(s, out)
    if phase == PH_PAY_MORE:
        n = gen_units(s, t.decider, t.led_role, out)
        out[n] = A_SKIP
        return n + 1
    if phase == PH_THINK:
        n = gen_think_options(s, t.decider, out, True)
        out[n] = A_SKIP
        return n + 1
    if phase == PH_THINK_CHOICE:
        return gen_think_options(s, t.decider, out, False)
    if phase == PH_TRIBUNAL:
        out[0] = A_THINK_JACK
        out[1] = A_SKIP
        return 2
    if phase == PH_FOUNTAIN:
        return gen_fountain(s, out)
    if phase == PH_STAIRWAY:
        n = gen_stairway(s, out, False)
        out[n] = A_SKIP
        return n + 1
    if phase == PH_PRISON:
        n = gen_prison(s, out)
        out[n] = A_SKIP
        return n + 1
    if phase == PH_SEWER:
        return gen_sewer(s, out)
    if phase == PH_SENATE:
        out[0] = A_SENATE
        out[1] = A_SKIP
        return 2
    return 0

cdef int apply_action_c(GameState* s, int action) noexcept nogil:
    # Applies a legal action of the current decider (legality is the caller's contract),
    # then runs the game forward to the next decision.
    cdef Turn* t = &s.turn
    cdef int phase = t.phase
    cdef int p = t.decider
    t.decisions += 1
    if phase == PH_LEAD or phase == PH_FOLLOW or phase == PH_THINK:
        if action == A_SKIP:                        # declining a granted think
            finish_think(s)
        elif action == A_THINK_JACK or action == A_THINK_DRAW:
            if phase != PH_THINK:
                t.think_ctx = CTX_LEAD if phase == PH_LEAD else CTX_FOLLOW
                s.players[p].flags |= P_THOUGHT
            elif t.think_ctx == CTX_ACADEMY:
                fire(B_ACADEMY)
            do_think(s, p, action)
        elif action < A_PLAY_CARD:
            if phase != PH_THINK:
                t.think_ctx = CTX_LEAD if phase == PH_LEAD else CTX_FOLLOW
                s.players[p].flags |= P_THOUGHT
            elif t.think_ctx == CTX_ACADEMY:
                fire(B_ACADEMY)
            think_discard(s, p, action)
        else:
            play_unit(s, action)
    elif phase == PH_ACTION:
        apply_role_action(s, action)
    elif phase == PH_LEG_REVEAL or phase == PH_LEG_TAKE or phase == PH_LEG_GIVE or phase == PH_LEG_EXTRA:
        apply_legionary(s, action)
    elif phase == PH_PETITION:
        if action == A_SKIP:
            unit_done(s)
        else:
            hand_to_camp(&s.players[p], action - A_PETITION_PICK + 1)
            t.petition_picked += 1
            t.petition_last = action - A_PETITION_PICK + 1
            petition_continue(s)
    elif phase == PH_PAY_MORE:
        if action == A_SKIP:
            payment_done(s)
        else:
            play_unit(s, action)
    elif phase == PH_THINK_CHOICE:
        do_think(s, p, action)
    elif phase == PH_TRIBUNAL:
        if action == A_THINK_JACK:
            fire(B_TRIBUNAL)
            s.jack_pile -= 1
            hand_add(&s.players[p], JACK, True)
        finish_think(s)
    elif phase == PH_FOUNTAIN:
        apply_fountain(s, action)
    elif phase == PH_STAIRWAY:
        apply_stairway(s, action)
    elif phase == PH_PRISON:
        apply_prison(s, action)
    elif phase == PH_SEWER or phase == PH_SENATE:
        apply_end_of_turn(s, action)
    else:
        return -1
    advance(s)
    return 0

cdef int random_playout_c(GameState* s, uint64_t* rng, int max_decisions) noexcept nogil:
    # Uniformly random legal actions until the end; returns the decisions made, or -1 if
    # a non-terminal state had no legal action (an engine bug).
    cdef uint16_t buf[MAX_LEGAL]
    cdef int n, made = 0
    while s.turn.phase != PH_OVER and made < max_decisions:
        n = gen_legal(s, buf)
        if n <= 0:
            return -1
        apply_action_c(s, buf[gr_rng_below(rng, n)])
        made += 1
    return made

# ---------------------------------------------------------------------------------------
# Invariant checks for the property tests (C speed, so thousands of games stay cheap)

cdef int check_state(GameState* s) noexcept nogil:
    # 0 if every invariant holds, else a code naming the first broken one
    cdef int cards[45]
    cdef int sites[6]
    cdef int x, p, i, k, m, count
    cdef Player* pl
    cdef Structure* st
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
                return 4
        if pl.hand_known[JACK] != pl.hand[JACK]:    # Jacks enter hands in view of all
            return 4
        if count != pl.hand_count:
            return 3
        count = 0
        for x in range(NUM_TYPES):
            count += pl.stockpile[x]
        if count != pl.stockpile_count:
            return 3
        count = 0
        for x in range(NUM_TYPES):
            count += pl.vault[x]
        if count != pl.vault_count:
            return 3
        count = 0
        for x in range(NUM_TYPES):
            count += pl.clientele[x]
        if count != pl.clientele_count:
            return 3
        for m in range(NMAT):
            sites[m] += pl.influence_sites[m]
    for i in range(s.nstruct):
        st = &s.structures[i]
        if st.owner >= s.cfg.num_players or st.building == JACK:
            return 7
        if i > 0 and s.structures[i - 1].owner > st.owner:
            return 7
        cards[st.building] += 1
        for k in range(st.nmat):
            cards[st.materials[k]] += 1
        if st.stairway:
            cards[st.stairway] += 1
        if not (st.flags & S_COMPLETE):
            sites[st.site] += 1
            if st.nmat >= material_value(st.site):
                return 8
    for x in range(NUM_TYPES):
        if cards[x] != s.cfg.copies[x]:
            return 1
    for m in range(NMAT):
        if sites[m] != 6:
            return 2
    if s.turn.phase != PH_OVER and s.turn.decider >= s.cfg.num_players:
        return 6
    if s.deck_size == 0 and s.turn.phase != PH_OVER and s.turn.pending_end == 0:
        return 9                                    # R-11.1(1): the game should have ended
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
        n = gen_legal(s, buf)
        if n <= 0:
            return 10                               # non-terminal without a legal action
        for i in range(n):
            if buf[i] >= NUM_DISTINCT_ACTIONS:
                return 11
            for j in range(i):
                if buf[j] == buf[i]:
                    return 12                       # duplicate legal action
        if try_all:
            for i in range(n):
                memcpy(&trial, s, sizeof(GameState))
                if apply_action_c(&trial, buf[i]) != 0:
                    return 13
                code = check_state(&trial)
                if code:
                    return 20 + code
        apply_action_c(s, pick_action(buf, n, rng, builder))
        step += 1
        if step > 100000:
            return 14                               # a game that does not end


# ---------------------------------------------------------------------------------------
# Hidden information (RULES.md §5): what one player cannot know

cdef void mask_hidden(GameState* s, int observer) noexcept nogil:
    # Replace everything `observer` cannot know by a fixed filler: other players' hands
    # and vaults keep only their public parts (their sizes stay in the count fields), the
    # deck keeps only its size, a Fountain card is hidden from all but its drawer, and the
    # generator state (which would predict nothing public) is cleared.
    cdef int q
    for q in range(s.cfg.num_players):
        if q == observer:
            continue
        memcpy(s.players[q].hand, s.players[q].hand_known, sizeof(s.players[q].hand))
        memcpy(s.players[q].vault, s.players[q].vault_known, sizeof(s.players[q].vault))
    memset(s.deck, 0, sizeof(s.deck))
    if s.turn.actor != observer:
        s.turn.fountain_card = 0
    s.rng = 0
    # how many decisions were asked depends on hidden hands (forced choices are not asked)
    s.turn.decisions = 0

cdef enum:
    TAKEN = 255             # a dealt slot of the unknown-card list (greedy fallback)
    DEAL_TRIES = 100000     # rejection rounds before the greedy fallback

cdef inline bint lacks_respected(GameState* s, uint8_t* unknown, int* constrained,
                                 int nconstrained, int* hidden_hand) noexcept nogil:
    # the first slots of `unknown` go, in order, to the constrained hands
    cdef int c, j, i = 0, lacks
    for c in range(nconstrained):
        lacks = s.players[constrained[c]].lacks
        for j in range(hidden_hand[constrained[c]]):
            if (lacks >> mat_of(unknown[i])) & 1:
                return False
            i += 1
    return True

cdef bint focus_would_be_asked(GameState* s, uint8_t* cards, int count, int focus) noexcept nogil:
    # decision_would_be_asked() with `cards` added to the focus player's hand for the test
    cdef Player* pl = &s.players[focus]
    cdef int j
    cdef bint asked
    for j in range(count):
        pl.hand[cards[j]] += 1
    asked = decision_would_be_asked(s)
    for j in range(count):
        pl.hand[cards[j]] -= 1
    return asked

cdef int deal_unknown(GameState* s, int observer, uint64_t* rng, int focus) noexcept nogil:
    # Deal every card `observer` cannot know (the deck, the hidden parts of the others'
    # hands and vaults, another player's Fountain card) back into the same places and
    # counts, uniformly at random among the deals that give no hand a material it was
    # seen to lack and, if `focus` >= 0, that leave the focus player (deciding now) a hand
    # with which the engine would ask its pending question. Returns the number of
    # unknown cards.
    cdef uint8_t unknown[256]
    cdef int hidden_hand[5]
    cdef int hidden_vault[5]
    cdef int constrained[5]
    cdef int nconstrained = 0, head = 0, tries, focus_at = -1
    cdef bint ok
    cdef int n = 0, q, x, i, j, k, tmp, c
    cdef bint fountain = (s.turn.phase == PH_FOUNTAIN and s.turn.actor != observer
                          and s.turn.fountain_card != 0)
    cdef Player* pl
    for i in range(s.deck_size):
        unknown[n] = s.deck[i]
        n += 1
    for q in range(s.cfg.num_players):
        hidden_hand[q] = 0
        hidden_vault[q] = 0
        if q == observer:
            continue
        pl = &s.players[q]
        for x in range(NUM_TYPES):
            k = pl.hand[x] - pl.hand_known[x]
            hidden_hand[q] += k
            for j in range(k):
                unknown[n] = x
                n += 1
            pl.hand[x] = pl.hand_known[x]
            k = pl.vault[x] - pl.vault_known[x]
            hidden_vault[q] += k
            for j in range(k):
                unknown[n] = x
                n += 1
            pl.vault[x] = pl.vault_known[x]
        if hidden_hand[q] and (pl.lacks or q == focus):
            if q == focus:
                focus_at = head
            constrained[nconstrained] = q
            nconstrained += 1
            head += hidden_hand[q]
    if fountain:
        unknown[n] = s.turn.fountain_card
        n += 1
    # The constrained hands (seen to lack materials, or the focus) are dealt first, from
    # the front of the list: a partial Fisher-Yates draws their cards, redrawn until they
    # are consistent (the tests look at these hands only, so rejection keeps the deal
    # uniform over the consistent ones); the rest of the list is then shuffled for the
    # deck and the other hidden slots.
    for tries in range(DEAL_TRIES if nconstrained else 1):
        for i in range(head):
            j = i + gr_rng_below(rng, n - i)
            tmp = unknown[i]
            unknown[i] = unknown[j]
            unknown[j] = tmp
        ok = lacks_respected(s, unknown, constrained, nconstrained, hidden_hand)
        if ok and focus_at >= 0:
            ok = focus_would_be_asked(s, &unknown[focus_at], hidden_hand[focus], focus)
        if ok:
            break
    else:
        deal_lacking_greedily(s, unknown, n, constrained, nconstrained, hidden_hand)
    for i in range(head, n - 1):
        j = i + gr_rng_below(rng, n - i)
        tmp = unknown[i]
        unknown[i] = unknown[j]
        unknown[j] = tmp
    k = 0
    for c in range(nconstrained):
        q = constrained[c]
        for j in range(hidden_hand[q]):
            s.players[q].hand[unknown[k]] += 1
            k += 1
        hidden_hand[q] = 0
    for i in range(s.deck_size):
        s.deck[i] = unknown[k]
        k += 1
    for q in range(s.cfg.num_players):
        pl = &s.players[q]
        for j in range(hidden_hand[q]):
            pl.hand[unknown[k]] += 1
            k += 1
        for j in range(hidden_vault[q]):
            pl.vault[unknown[k]] += 1
            k += 1
    if fountain:
        s.turn.fountain_card = unknown[k]
        k += 1
    s.rng = gr_rng_next(rng)
    return n

cdef void deal_lacking_greedily(GameState* s, uint8_t* unknown, int n, int* constrained,
                                int nconstrained, int* hidden_hand) noexcept nogil:
    # Fallback when rejection found no consistent deal (the constraints are very tight):
    # move to the front, hand by hand, the first cards each constrained hand may hold.
    # Not uniform, and a later hand can be left with lacked cards only if an earlier one
    # took the few it could hold.
    cdef uint8_t order[256]
    cdef int c, i, k, got, q, lacks
    k = 0
    for c in range(nconstrained):
        q = constrained[c]
        lacks = s.players[q].lacks
        got = 0
        for i in range(n):
            if got == hidden_hand[q]:
                break
            if unknown[i] != TAKEN and not ((lacks >> mat_of(unknown[i])) & 1):
                order[k] = unknown[i]
                unknown[i] = TAKEN
                k += 1
                got += 1
        for i in range(n):                          # (only if impossible: any cards)
            if got == hidden_hand[q]:
                break
            if unknown[i] != TAKEN:
                order[k] = unknown[i]
                unknown[i] = TAKEN
                k += 1
                got += 1
    for i in range(n):
        if unknown[i] != TAKEN:
            order[k] = unknown[i]
            k += 1
    memcpy(unknown, order, n)


cdef bint decision_would_be_asked(GameState* s) noexcept nogil:
    # The engine asks only real choices (forced ones are settled at once), so a pending
    # question tells every player something about the decider's hidden hand. True if
    # this world would ask it too; each test is the one the engine itself applies.
    cdef Turn* t = &s.turn
    cdef uint16_t probe[16]     # first_only writes at most 6 (Statue sites)
    cdef int x, total, kinds, first, need
    if t.phase == PH_ACTION:                        # start_action / end_action probe
        return gen_action(s, probe, True) > 0
    if t.phase == PH_LEG_REVEAL:                    # start_legionary / apply_legionary
        for x in range(t.leg_last, NUM_TYPES):
            if revealable(s, &s.players[t.actor], x):
                return True
        return False
    if t.phase == PH_LEG_GIVE:                      # settle_forced_gives
        need = give_need(s, t.give_kind, t.give_mat)
        total = give_candidates(s, t.decider, t.give_kind, t.give_mat, t.leg_last,
                                &kinds, &first)
        return need > 0 and total > 0 and not give_forced(total, kinds, need)
    if t.phase == PH_PETITION:                      # petition_continue
        petition_scan(s, &total, &kinds)
        need = petition_min(s, t.decider) - t.petition_picked
        if need <= 0:
            return total > 0
        return total > need and not petition_pick_forced(s, total, kinds)
    return True


cdef int determinize_c(GameState* s, int observer, uint64_t* rng) noexcept nogil:
    # deal_unknown() with the decider as its focus when another player is being asked to
    # act, reveal, choose which demanded cards to give or pick petition cards: being
    # asked tells the observer that the decider's hand allows a real choice. Other pending
    # decisions (lead, follow, Palace units, Fountain, ...) are always asked.
    cdef int phase = s.turn.phase
    if s.turn.decider == observer or not (phase == PH_ACTION or phase == PH_LEG_REVEAL
                                          or phase == PH_LEG_GIVE or phase == PH_PETITION):
        return deal_unknown(s, observer, rng, -1)
    return deal_unknown(s, observer, rng, s.turn.decider)
