# Selection (docs/bots.md): which child of a node an iteration follows in the world it
# plays, among the children whose action is legal there (availability, Cowling et al.
# 2012): the UCB score (ISMCTS, PIMC), the least visited (flat MC), a decisive or proven
# win first with the solver. Test hook: one selection step at a hand-built node.
#
# Included by _search.pyx; select_child is noexcept nogil.

cdef inline double ucb_score(Node* nd, int mover, double c) noexcept nogil:
    # the mover's mean reward plus the exploration term over availability (Cowling et
    # al. 2012); an unvisited child comes first
    return ucb_at(nd, mover, c, <double>nd.avail)


cdef inline double ucb_at(Node* nd, int mover, double c, double avail) noexcept nogil:
    # ucb_score at a given availability (pair_draws foresees the next one)
    if nd.visits == 0:
        return 1e300
    return nd.reward[mover] / nd.visits + c * sqrt(log(avail) / nd.visits)


cdef int select_child(Tree* t, int node, int n, int mover, int* untried, bint* decisive) noexcept nogil:
    # The children of `node` whose action is among the n legal actions of this world
    # (t.legal) are available: each counts one more availability, and the best of them is
    # returned (ISMCTS, PIMC: the highest UCB score, the first in the child list on ties;
    # flat MC: the least visited, round robin), or -1 if none is available. The legal
    # actions no child has yet (untried) are left at the front of t.legal, their number
    # in untried[0]. With the solver, an available child that won the game for its mover
    # when last played, or is proven to win, is returned instead (decisive[0] set), and a
    # child proven lost is taken only when nothing else is available.
    cdef uint32_t stamp = next_stamp(t)
    cdef int i, child, best = -1, count = 0, win = -1
    cdef double best_score = -1e300, score
    cdef Node* nd
    cdef bint solver = t.cfg.solver
    for i in range(n):
        t.legal_stamp[t.legal[i]] = stamp
    child = t.nodes[node].first_child
    while child >= 0:
        nd = &t.nodes[child]
        if t.legal_stamp[nd.action] == stamp:
            t.seen_stamp[nd.action] = stamp
            nd.avail += 1
            if t.cfg.algorithm == ALG_FLATMC:
                score = -<double>nd.visits
            else:
                score = ucb_score(nd, mover, t.cfg.c) + prior_bias(t, child)
            if solver:
                if nd.flags & F_LOSS:
                    score = -1e299
                elif nd.flags & (F_DECISIVE | F_WIN) and (win < 0 or (nd.flags & F_DECISIVE
                                                                   and not t.nodes[win].flags & F_DECISIVE)):
                    win = child                    # an immediate win first, then a proven one
            if score > best_score:
                best_score = score
                best = child
        child = nd.next_sibling
    for i in range(n):
        if t.seen_stamp[t.legal[i]] != stamp:
            t.legal[count] = t.legal[i]
            count += 1
    untried[0] = count
    decisive[0] = win >= 0
    return win if win >= 0 else best


def _select(children, legal, int mover, double c, algorithm="ismcts", flags=None, bint solver=False,
            priors=None, double prior_c=0.0):
    """One selection step at a hand-built node, with the code the search runs:
    `children` is a list of (action, visits, availability, reward sums per player) in
    child-list order, `legal` this world's legal actions; `flags` (with `solver`) the
    solver's marks of each child (sets of "certain", "win", "loss", "decisive"); `priors`
    (with `prior_c`) each child's prior probability (prior=). Returns
    (the index of the chosen child or None, the children's availability afterwards, the
    untried legal actions)."""
    cdef Tree* t
    cdef int i, p, child, untried, best
    cdef bint decisive
    cdef Node* nd
    if not 0 <= mover < 5 or len(legal) > MAX_LEGAL or any(
            not 0 <= a < NUM_DISTINCT_ACTIONS for a in list(legal) + [row[0] for row in children]):
        raise ValueError("a mover 0..4 and action ids within the action space")
    t = tree_new(len(children) + 1)
    if t == NULL:
        raise MemoryError()
    try:
        t.cfg.algorithm = _ALGORITHMS[algorithm]
        t.cfg.c = c
        t.cfg.solver = solver
        t.cfg.prior_c = prior_c
        if priors is not None:
            if len(priors) != len(children):
                raise ValueError("priors: one per child")
            t.prior = <float*>calloc(len(children) + 1, sizeof(float))
            if t.prior == NULL:
                raise MemoryError()
        t.num_players = 5
        new_node(t, 0, ROOT_MOVER)
        for i in reversed(range(len(children))):          # add_child puts each first
            action, visits, available, reward = children[i]
            child = add_child(t, 0, action, mover)
            nd = &t.nodes[child]
            nd.visits = visits
            nd.avail = available
            for p in range(len(reward)):
                nd.reward[p] = reward[p]
            for name in (flags[i] if flags is not None else ()):
                nd.flags |= _FLAG_BITS[name]
            if priors is not None:
                t.prior[child] = priors[i]
        for i in range(len(legal)):
            t.legal[i] = legal[i]
        best = select_child(t, 0, len(legal), mover, &untried, &decisive)
        index_of = {}
        avail = []
        child = t.nodes[0].first_child
        while child >= 0:
            index_of[child] = len(avail)
            avail.append(t.nodes[child].avail)
            child = t.nodes[child].next_sibling
        return (index_of[best] if best >= 0 else None, avail, [t.legal[i] for i in range(untried)])
    finally:
        tree_free(t)


# (paired=) The salt of the seed of a search's common random numbers: the tree's generator
# is left as it is, so a search with paired off draws what it drew before the option existed.
cdef uint64_t PAIR_SALT = 0x7061697265642121ULL      # "paired!!"


cdef void pair_draws(Tree* t) noexcept nogil:
    # (paired=, ISMCTS) Common random numbers at the root: an iteration's draws (the world
    # dealt, then every random choice of its descent and rollout) are seeded by the visits
    # the root action it is about to follow has had, so that the k-th visit of every root
    # action plays the same world and, until their lines part, the same draws. The
    # differences between the root actions' means then leave out most of what the deal
    # alone decides (the deck's order, the others' hands). The action is foreseen as
    # select_child will choose it at the root (the highest UCB score over one more
    # availability, every root action being legal in every world; an untried action: its
    # first visit); a decisive or proven child that select_child takes first only draws
    # another child's numbers, which pairs less and changes nothing else.
    cdef int child = t.nodes[t.root_index].first_child, count = 0, best = -1
    cdef double score, best_score = -1e300
    cdef uint32_t visit = 0
    cdef Node* nd
    while child >= 0:
        nd = &t.nodes[child]
        count += 1
        score = ucb_at(nd, t.observer, t.cfg.c, nd.avail + 1.0) + prior_bias(t, child)
        if score > best_score:
            best_score = score
            best = child
        child = nd.next_sibling
    if best >= 0 and (count >= t.root_legal or t.full):
        visit = t.nodes[best].visits
    seed_visit(t, visit)


cdef inline void seed_visit(Tree* t, uint32_t visit) noexcept nogil:
    # (paired=) the draws of the `visit`-th visit of a root action
    t.rng = gr_rng_seed(t.pair_seed ^ (<uint64_t>visit * <uint64_t>0x9E3779B97F4A7C15ULL))
