# Turn flow (R-6, R-7): clients and the action queue, thinking, role payments and
# petitions, and the automatic phases (advance).
#
# Control flow: a pending decision lives in s.turn.phase. apply_action_c() (_entry.pxi)
# performs one decision of the current decider, then advance() runs the automatic phases
# (next follower, next action from the queue, Legionary victims, end of turn, ...) until
# the next decision or the end of the game.

# ---------------------------------------------------------------------------------------
# Clients and the action queue (R-6.3, R-6.4)

cdef inline bint client_matches(GameState* s, int p, int client, int role) noexcept nogil:
    cdef int client_role = mat_of(s, client)
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
    cdef uint64_t bits = zone_mask(s.turn.pending_clients) & ORDER_BITS
    while bits:
        x = lowest_bit(bits)
        bits &= bits - 1
        if client_matches(s, p, x, role):
            return x
    return -1

cdef bint can_pair(GameState* s, int role) noexcept nogil:
    # R-9.1.4: is the next action in the actor's queue one of the same role?
    cdef Turn* t = &s.turn
    cdef int top
    if t.action_source == SRC_BATH:
        return False
    if t.stack_size > 0:
        top = t.stack_size - 1
        return t.stack_kind[top] == E_GRANT and t.stack_role[top] == role
    if t.led_role != role:
        return False
    if t.ready_actions > 0:
        return True
    return next_matching_client(s, t.actor, role) >= 0

cdef void consume_pair(GameState* s, int role) noexcept nogil:
    cdef Turn* t = &s.turn
    cdef int top, client
    if t.stack_size > 0:
        top = t.stack_size - 1
        t.stack_count[top] -= 1
        if t.stack_count[top] == 0:
            pop_entry(t)
    elif t.ready_actions > 0:
        t.ready_actions -= 1
    else:
        client = next_matching_client(s, t.actor, role)
        t.pending_clients[client] -= 1
        t.ready_actions += actions_per_client(s, t.actor) - 1

cdef inline void pop_entry(Turn* t) noexcept nogil:
    # entries above the top are kept zero, so that equal states have equal bytes
    t.stack_size -= 1
    t.stack_kind[t.stack_size] = 0
    t.stack_role[t.stack_size] = 0
    t.stack_count[t.stack_size] = 0

cdef inline void clear_stack(Turn* t) noexcept nogil:
    memset(t.stack_kind, 0, sizeof(t.stack_kind))
    memset(t.stack_role, 0, sizeof(t.stack_role))
    memset(t.stack_count, 0, sizeof(t.stack_count))
    t.stack_size = 0

cdef void push_entry(GameState* s, int kind, int role, int count) noexcept nogil:
    # R-9.3.2, R-14.4: grants and interruptions go to the front of the actor's queue.
    # count is an influence (at most 2 + the 6 sites of each material at its value: 74)
    # or the parts of an action done (at most 7), so it fits the byte.
    cdef Turn* t = &s.turn
    if count <= 0:
        return
    if t.stack_size >= STACK_CAP:
        s.overflow |= OVERFLOW_STACK                # the entry is lost: say so
        return
    t.stack_kind[t.stack_size] = kind
    t.stack_role[t.stack_size] = role
    t.stack_count[t.stack_size] = count
    t.stack_size += 1

# ---------------------------------------------------------------------------------------
# Thinking (R-7)

cdef void finish_think(GameState* s) noexcept nogil:
    cdef Turn* t = &s.turn
    if t.think_return == CTX_LEAD:
        t.phase = PH_NEW_TURN                      # R-6.1(a): the turn ends at once
    elif t.think_return == CTX_FOLLOW:
        t.seat_offset += 1
        t.phase = PH_NEXT_FOLLOWER
    elif t.think_return == CTX_QUEUE:
        t.phase = PH_QUEUE
    else:
        t.seat_offset += 1
        t.phase = PH_ACADEMY_NEXT

cdef inline int think_draw_count(GameState* s, int p) noexcept nogil:
    # R-7.2(b)/(c): a think draws up to the refill size, or one card at or above it (a
    # draw that empties the deck ends the game: may_end_now asks this too)
    cdef int refill = refill_size(s, p)
    return refill - s.players[p].hand_count if s.players[p].hand_count < refill else 1

cdef void do_think(GameState* s, int p, int option) noexcept nogil:
    cdef Player* pl = &s.players[p]
    cdef int count, refill
    if option == A_THINK_JACK:                      # R-7.2(a)
        s.jack_pile -= 1
        hand_add(pl, JACK, True)
    else:                                           # R-7.2(b)/(c)
        refill = refill_size(s, p)
        count = think_draw_count(s, p)
        if pl.hand_count >= s.cfg.refill_base:      # the larger refill size mattered
            if is_active(s, p, B_SHRINE) and pl.hand_count < refill:
                fire(s, B_SHRINE)
            if is_active(s, p, B_TEMPLE) and pl.hand_count < refill:
                fire(s, B_TEMPLE)
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
        fire(s, B_VOMITORIUM)
        for x in range(NUM_TYPES):
            while pl.hand[x]:
                actor_hand_remove(s, p, x, True)
                if x == JACK:
                    s.jack_pile += 1
                else:
                    s.pool[x] += 1
    else:
        fire(s, B_LATRINE)
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
    cdef uint64_t bits
    memset(by_role, 0, sizeof(by_role))
    bits = zone_mask(pl.hand) & ORDER_BITS
    while bits:
        x = lowest_bit(bits)
        bits &= bits - 1
        by_role[mat_of(s, x)] += pl.hand[x]
        if role == NO_ROLE or mat_of(s, x) == role:
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
        bits = zone_mask(pl.hand) & ORDER_BITS
        while bits:
            x = lowest_bit(bits)
            bits &= bits - 1
            if mat_of(s, x) != CONCRETE:
                out[n] = A_PLAY_CRANE + x - 1
                n += 1
    return n

cdef void payment_done(GameState* s) noexcept nogil:
    cdef Turn* t = &s.turn
    s.players[t.decider].flags |= P_LED_OR_FOLLOWED
    t.seat_offset += 1
    t.phase = PH_NEXT_FOLLOWER

cdef void unit_done(GameState* s) noexcept nogil:
    cdef int p = s.turn.decider
    s.players[p].camp_units += 1
    if s.players[p].camp_units > 1:
        fire(s, B_PALACE)
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
    cdef uint64_t bits
    total[0] = 0
    kinds[0] = 0
    bits = zone_mask(pl.hand) & bits_from(t.petition_from)
    while bits:
        x = lowest_bit(bits)
        bits &= bits - 1
        if mat_of(s, x) == t.petition_material:
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
            fire(s, B_CIRCUS)
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
            t.petition_from = first
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
    for x in range(NUM_TYPES - 1, t.petition_from - 1, -1):
        if x > 0 and pl.hand[x] and mat_of(s, x) == t.petition_material:
            at_or_above += pl.hand[x]
        counts[x] = at_or_above
    for x in range(t.petition_from, NUM_TYPES):
        if x > 0 and pl.hand[x] and mat_of(s, x) == t.petition_material and counts[x] >= need:
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
        role = mat_of(s, x)
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
        t.petition_material = idx % 6
        t.petition_picked = 0
        t.petition_from = 1
        petition_continue(s)
        return
    else:
        fire(s, B_CRANE)
        x = action - A_PLAY_CRANE + 1
        role = ARCHITECT
        hand_to_camp(pl, x)
    if t.led_role == NO_ROLE:
        t.led_role = role
    unit_done(s)

cdef void start_action(GameState* s, int role, int source, int batch) noexcept nogil:
    cdef Turn* t = &s.turn
    cdef uint16_t probe[16]     # first_only writes at most 6 (Statue sites)
    t.action_role = role
    t.action_source = source
    t.action_parts = 0
    t.decider = t.actor
    t.action_stack_base = t.stack_size
    if role == LEGIONARY:
        start_legionary(s, batch)
    elif role == THINKER:
        t.think_return = CTX_QUEUE
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
    if t.stack_size > 0:
        top = t.stack_size - 1
        kind = t.stack_kind[top]
        role = t.stack_role[top]
        count = t.stack_count[top]
        if kind == E_GRANT and count > 1:
            t.stack_count[top] = count - 1
        else:
            pop_entry(t)
        t.decider = p
        if kind == E_GRANT:
            start_action(s, role, SRC_GRANT, 1)
        elif kind == E_BATH:
            start_action(s, role, SRC_BATH, 1)
        elif kind == E_PATRON_CONT:
            t.action_role = PATRON
            t.action_source = SRC_MAIN
            t.action_parts = count
            t.phase = PH_ACTION if gen_action(s, probe, True) > 0 else PH_QUEUE
        elif kind == E_STAIRWAY:
            t.action_role = ARCHITECT
            if is_active(s, p, B_STAIRWAY) and gen_stairway(s, probe, True) > 0:
                t.phase = PH_STAIRWAY
        elif kind == E_PRISON:
            if prison_has_target(s, p):
                t.phase = PH_PRISON
        return
    if t.ready_actions == 0:
        client = next_matching_client(s, p, t.led_role)
        if client < 0:
            t.seat_offset += 1
            t.phase = PH_NEXT_ACTOR
            return
        if mat_of(s, client) != t.led_role:
            fire(s, B_STOREROOM if (t.led_role == LABORER and is_active(s, p, B_STOREROOM)
                                 and mat_of(s, client) != MERCHANT) else B_LUDUS_MAGNUS)
        t.pending_clients[client] -= 1
        t.ready_actions = actions_per_client(s, p)
        if t.ready_actions == 2:
            fire(s, B_CIRCUS_MAXIMUS)
    t.ready_actions -= 1
    batch = 1
    if t.led_role == LEGIONARY:
        # R-8.5.1: the remaining camp actions and matching clients join one demand
        batch += t.ready_actions
        t.ready_actions = 0
        per_client = actions_per_client(s, p)
        client = next_matching_client(s, p, LEGIONARY)
        while client >= 0:
            t.pending_clients[client] -= 1
            batch += per_client
            client = next_matching_client(s, p, LEGIONARY)
    start_action(s, t.led_role, SRC_MAIN, batch)

# ---------------------------------------------------------------------------------------
# Turn flow (R-6)

cdef void step_next_follower(GameState* s) noexcept nogil:
    cdef Turn* t = &s.turn
    cdef int n = s.cfg.num_players
    cdef int p
    while t.seat_offset < n:
        p = (t.leader + t.seat_offset) % n
        if not conceded(s, p):
            t.decider = p
            t.phase = PH_FOLLOW
            return
        t.seat_offset += 1
    t.seat_offset = 0
    t.phase = PH_NEXT_ACTOR

cdef void step_next_actor(GameState* s) noexcept nogil:
    cdef Turn* t = &s.turn
    cdef int n = s.cfg.num_players
    cdef int p
    while t.seat_offset < n:
        p = (t.leader + t.seat_offset) % n
        if not conceded(s, p):
            # R-6.4: the acting clients are fixed now
            t.actor = p
            t.decider = p
            t.ready_actions = s.players[p].camp_units
            clear_stack(t)
            memset(t.revealed, 0, sizeof(t.revealed))
            memcpy(t.pending_clients, s.players[p].clientele, sizeof(t.pending_clients))
            t.phase = PH_QUEUE
            return
        t.seat_offset += 1
    t.seat_offset = 0
    t.end_step = 0
    t.phase = PH_EOT

cdef bint opponents_played_jacks(GameState* s, int p) noexcept nogil:
    cdef int q
    for q in range(s.cfg.num_players):
        if q != p and s.players[q].camp[JACK]:
            return True
    return False

cdef bint camp_has_orders(Player* pl, int start) noexcept nogil:
    return (zone_mask(pl.camp) & bits_from(start)) != 0

cdef void step_eot(GameState* s) noexcept nogil:
    # R-6.5(a) Senate, then (b) Sewer, each in turn order from the leader
    cdef Turn* t = &s.turn
    cdef int n = s.cfg.num_players
    cdef int p
    while t.end_step < 2:
        while t.seat_offset < n:
            p = (t.leader + t.seat_offset) % n
            if not conceded(s, p):
                if (t.end_step == 0 and s.cfg.mode == MODE_IMPERIUM
                        and is_active(s, p, B_SENATE) and opponents_played_jacks(s, p)):
                    t.decider = p
                    t.phase = PH_SENATE
                    return
                if (t.end_step == 1 and is_active(s, p, B_SEWER)
                        and camp_has_orders(&s.players[p], 1)):
                    t.decider = p
                    t.pick_from = 1
                    t.phase = PH_SEWER
                    return
            t.seat_offset += 1
        t.end_step += 1
        t.seat_offset = 0
    t.phase = PH_END_TURN

cdef int gen_sewer(GameState* s, uint16_t* out) noexcept nogil:
    cdef Player* pl = &s.players[s.turn.decider]
    cdef int x, n = 0
    for x in range(s.turn.pick_from, NUM_TYPES):
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
            fire(s, B_SENATE)
            for q in range(s.cfg.num_players):
                if q != p:
                    while s.players[q].camp[JACK]:
                        s.players[q].camp[JACK] -= 1
                        hand_add(pl, JACK, True)
        t.seat_offset += 1
    else:
        if action != A_SKIP:
            fire(s, B_SEWER)
            x = action - A_SEWER + 1
            pl.camp[x] -= 1
            pl.stockpile[x] += 1
            pl.stockpile_count += 1
            t.pick_from = x
            if check_forum(s):                      # Forum Romanum counts the stockpile
                return
            if camp_has_orders(pl, x):
                return
        t.pick_from = 0
        t.seat_offset += 1
    t.phase = PH_EOT

cdef void step_end_turn(GameState* s) noexcept nogil:
    # R-6.5(c): camps to the pool, Jacks to the Jack pile
    cdef int p, x
    cdef uint64_t bits
    cdef Player* pl
    for p in range(s.cfg.num_players):
        pl = &s.players[p]
        if pl.camp[JACK]:
            s.jack_pile += pl.camp[JACK]
            pl.camp[JACK] = 0
        bits = zone_mask(pl.camp) & ORDER_BITS
        while bits:
            x = lowest_bit(bits)
            bits &= bits - 1
            s.pool[x] += pl.camp[x]
            pl.camp[x] = 0
    s.turn.seat_offset = 0
    s.turn.phase = PH_ACADEMY_NEXT

cdef void step_academy(GameState* s) noexcept nogil:
    # R-6.5(d)
    cdef Turn* t = &s.turn
    cdef int n = s.cfg.num_players
    cdef int p
    while t.seat_offset < n:
        p = (t.leader + t.seat_offset) % n
        if (not conceded(s, p) and (s.players[p].flags & P_CRAFTED)
                and is_active(s, p, B_ACADEMY)):
            t.decider = p
            t.actor = p
            t.think_return = CTX_ACADEMY
            t.phase = PH_THINK
            return
        t.seat_offset += 1
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
    t.seat_offset = 0
    t.decider = t.leader
    t.actor = t.leader
    clear_stack(t)
    t.ready_actions = 0
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
