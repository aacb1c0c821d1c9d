# The entry points that play a game (engine.pxd): the legal actions of the decider
# (legal_actions_into, by phase), applying one (apply_action_c, by phase, then advance()),
# and random playouts (random_playout_c, recorded_playout).

cdef int legal_actions_into(GameState* s, uint16_t* out) noexcept nogil:
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
                t.think_return = CTX_LEAD if phase == PH_LEAD else CTX_FOLLOW
                s.players[p].flags |= P_THOUGHT
            elif t.think_return == CTX_ACADEMY:
                fire(s, B_ACADEMY)
            do_think(s, p, action)
        elif action < A_PLAY_CARD:
            if phase != PH_THINK:
                t.think_return = CTX_LEAD if phase == PH_LEAD else CTX_FOLLOW
                s.players[p].flags |= P_THOUGHT
            elif t.think_return == CTX_ACADEMY:
                fire(s, B_ACADEMY)
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
            t.petition_from = action - A_PETITION_PICK + 1
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
            fire(s, B_TRIBUNAL)
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
        return -1                                   # PH_OVER: nothing to apply
    advance(s)
    return -2 if s.overflow else 0

cdef int random_playout_c(GameState* s, uint64_t* rng, int max_decisions) noexcept nogil:
    # Uniformly random legal actions until the end; returns the decisions made, or -1 if
    # a non-terminal state had no legal action (an engine bug).
    return recorded_playout(s, rng, max_decisions, NULL)

cdef int recorded_playout(GameState* s, uint64_t* rng, int max_decisions,
                          uint16_t* record) noexcept nogil:
    # random_playout_c that also writes each action into record (room for max_decisions)
    cdef uint16_t buf[MAX_LEGAL]
    cdef int n, action, made = 0
    while s.turn.phase != PH_OVER and made < max_decisions:
        n = legal_actions_into(s, buf)
        if n <= 0:
            return -1
        action = buf[gr_rng_below(rng, n)]
        if record != NULL:
            record[made] = action
        if apply_action_c(s, action) == -2:
            return -2
        made += 1
    return made
