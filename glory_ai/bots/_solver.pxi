# The solver (docs/bots.md, "Proven results"): the marks of what a step did (play_step:
# decisive, certain, proven won or lost), the proofs backed up the path (update_proofs),
# when the root needs no more search (root_settled), decisive moves (decisive_action,
# asking the engine which actions may end the game) and the length of a proven line.
#
# Included by _search.pyx; the search-time functions are noexcept nogil.

cdef inline bint play_step(Tree* t, GameState* w, int parent, int child, int depth) noexcept nogil:
    # Play a child's action on the world; with the solver, mark what it did: the game won
    # by its mover (DECISIVE), a certain step of the observer, and a proven end. False if
    # the move exceeded an engine capacity (apply_checked).
    cdef Node* nd = &t.nodes[child]
    cdef int winners
    cdef bint watch
    if not t.cfg.solver:
        return apply_checked(t, w, nd.action)
    watch = (t.nodes[parent].flags & F_CERTAIN) and nd.mover == t.observer and depth + 1 < CERTAIN_DEPTH
    if watch:
        memcpy(&t.scratch, w, used_size(w))
    if not apply_checked(t, w, nd.action):
        return False
    winners = winners_mask_of(w)
    if winners == (1 << nd.mover):
        nd.flags |= F_DECISIVE
    else:
        nd.flags &= ~F_DECISIVE
    if not watch:
        return True
    if (own_step_is_private(&t.scratch, w, t.observer)
            and (not winners or result_is_public(w, t.observer, nd.action))):
        # (an end whose winners read hidden cards is not certain: it differs by world)
        nd.flags |= F_CERTAIN
        if winners == (1 << t.observer):
            nd.flags |= F_WIN
        elif winners and not (winners >> t.observer) & 1:
            nd.flags |= F_LOSS
    elif nd.flags & F_CERTAIN:
        t.certainty_conflicts += 1           # never expected: the tests count these
    return True


cdef void update_proofs(Tree* t, int depth) noexcept nogil:
    # After an iteration, from the deepest certain node of the path up: a certain node (the
    # observer to move) is won if one of its children is, lost if every legal action has a
    # child and all are lost. Stops at the first node whose status does not change.
    cdef int i, node, child, count
    cdef bint win, all_lost
    cdef uint8_t before
    i = depth - 1
    if i > CERTAIN_DEPTH - 1:
        i = CERTAIN_DEPTH - 1
    while i >= 0:
        node = t.path[i]
        if not t.nodes[node].flags & F_CERTAIN:
            i -= 1
            continue
        before = t.nodes[node].flags
        win = False
        all_lost = True
        count = 0
        child = t.nodes[node].first_child
        while child >= 0:
            count += 1
            if t.nodes[child].flags & F_WIN:
                win = True
                break
            if not t.nodes[child].flags & F_LOSS:
                all_lost = False
            child = t.nodes[child].next_sibling
        if win:
            t.nodes[node].flags |= F_WIN
        elif all_lost and count > 0 and count == t.path_legal[i]:
            t.nodes[node].flags |= F_LOSS
        if t.nodes[node].flags == before:
            return
        i -= 1


cdef bint root_settled(Tree* t) noexcept nogil:
    # (solver) Nothing left to search: the root is proven lost, or proven won by an
    # immediate win or with every root action tried (no shorter win can be missing).
    cdef Node* root = &t.nodes[t.root_index]
    cdef int child, count = 0
    if not t.cfg.solver or not root.flags & (F_WIN | F_LOSS):
        return False
    if root.flags & F_LOSS:
        return True
    child = root.first_child
    while child >= 0:
        if t.nodes[child].flags & F_WIN and t.nodes[child].first_child < 0:
            return True
        count += 1
        child = t.nodes[child].next_sibling
    return count == t.path_legal[0]


cdef int decisive_action(GameState* s, uint16_t* actions, int n, int mover, GameState* scratch,
                         bint every=False) noexcept nogil:
    # (solver) the first of the n actions after which the game is over with the mover its
    # only winner, or -1. Unless `every` (the reference scan of the tests: every action
    # tried), looked for only where the engine says the mover may end the game now, and
    # only among the actions it says may end it, which finds the same first one at a
    # fraction of the trials. With a Forum in the city, where every action may end the
    # game, a Forum end is the mover's win only if the mover then meets the condition:
    # forum_reach rules out the actions that cannot bring it (most, in a two-player game
    # with a Forum: each trial copies the state and applies the action). -2 if a trial
    # exceeded an engine capacity (apply_checked).
    cdef int i, reach = 2, roles = 0
    if not every:
        if not may_end_now(s, mover):
            return -1
        if any_action_may_end_but_forum(s):
            every = True
        elif every_action_may_end(s):
            reach = forum_reach(s, mover, &roles)
            every = reach == 0
    for i in range(n):
        if (not every and not action_may_end(s, actions[i])
                and not (reach == 1 and hire_of_roles(s, actions[i], roles))):
            continue
        memcpy(scratch, s, used_size(s))
        if apply_action_c(scratch, actions[i]) == -2:
            return -2
        if winners_mask_of(scratch) == (1 << mover):
            return actions[i]
    return -1


cdef int _proof_length(Tree* t, int node, bint won):
    # the own decisions of a proven line from `node` (its action counted): a win takes the
    # shortest proven-won child, a loss the longest (every child of a lost node is lost)
    cdef int child, best = -1, steps
    child = t.nodes[node].first_child
    while child >= 0:
        if t.nodes[child].flags & (F_WIN if won else F_LOSS):
            steps = _proof_length(t, child, won)
            if best < 0 or (won and steps < best) or (not won and steps > best):
                best = steps
        child = t.nodes[child].next_sibling
    return 1 + (best if best > 0 else 0)


def _decisive(State state, bint every=False):
    """The decisive move the solver finds for the player to move in `state` as it is (true
    hidden cards included): the first legal action, in the engine's order, after which
    the game is over with that player its only winner, or None. As the search looks for
    it: where the engine says that player may end the game now, among the actions it says
    may end it; with `every`, the reference: every legal action tried."""
    cdef GameState* scratch
    cdef uint16_t legal[MAX_LEGAL]
    cdef int n, found
    if is_terminal_c(state.s):
        return None
    scratch = <GameState*>malloc(sizeof(GameState))
    if scratch == NULL:
        raise MemoryError()
    try:
        with nogil:
            n = legal_actions_into(state.s, legal)
            found = decisive_action(state.s, legal, n, current_player_c(state.s), scratch, every)
    finally:
        free(scratch)
    if found == -2:
        raise RuntimeError(_overflow_message("the search of a decisive move"))
    return None if found < 0 else found
