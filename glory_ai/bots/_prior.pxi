# A learned prior over actions (docs/bots.md, "A learned prior"; prior=): a linear model of
# the evaluation's format whose output on the features of an action's afterstate, seen
# from the mover, is that action's logit. It orders expansion (the untried action of the
# highest logit first) and adds a bias to the UCB score of a child, PUCT's term
# prior_c * P * sqrt(availability) / (1 + visits), P being the child's share of the
# softmax over the logits its parent knew when it was expanded.
#
# The logits are cached per node (Tree.prior_cache): an action's logit at a node is
# computed once, in the first world where the node expands with that action legal and
# untried, and kept (an approximation: the afterstate in other worlds differs in hidden
# cards). So an expansion computes only the logits of this world's untried actions the node
# has not seen, and the softmax is over every logit the node knows (the actions legal in
# any world it was expanded in). Test hooks: the prior of a state's actions and the
# expansion choice, with the code the search runs.
#
# Included by _search.pyx; the search-time functions are noexcept nogil.


cdef inline double prior_logit(Tree* t, GameState* w, int action, int mover) noexcept nogil:
    # the model's logit of `action` in world w: its output on the afterstate for the mover;
    # an afterstate past an engine capacity sets the tree's error (the caller checks it)
    memcpy(&t.scratch, w, used_size(w))
    if apply_action_c(&t.scratch, action) == -2:
        t.error = SEARCH_OVERFLOW
        return 0
    return evaluate(&t.scratch, mover, &t.cfg.prior_model, &t.eval_scratch)


cdef int prior_remember(Tree* t, int node, int action, float logit) noexcept nogil:
    # cache the logit of `action` at `node` (-1 and the tree's error set without memory)
    cdef PriorEntry* grown
    cdef size_t cap
    if t.prior_count == t.prior_cap:
        cap = 2 * <size_t>t.prior_cap
        grown = <PriorEntry*>realloc(t.prior_cache, cap * sizeof(PriorEntry)) if cap <= PRIOR_CACHE_MAX else NULL
        if grown == NULL:
            t.error = SEARCH_NO_MEMORY
            return -1
        t.prior_cache = grown
        t.prior_cap = <int>cap
    t.prior_cache[t.prior_count].action = action
    t.prior_cache[t.prior_count].logit = logit
    t.prior_cache[t.prior_count].next = t.prior_head[node]
    t.prior_head[node] = t.prior_count
    t.prior_count += 1
    return 0


cdef double prior_share(Tree* t, int node, float logit) noexcept nogil:
    # a logit's share of the softmax over the logits cached at `node`
    cdef int32_t e = t.prior_head[node]
    cdef double top = logit, total = 0
    while e >= 0:
        if t.prior_cache[e].logit > top:
            top = t.prior_cache[e].logit
        e = t.prior_cache[e].next
    e = t.prior_head[node]
    while e >= 0:
        total += exp(t.prior_cache[e].logit - top)
        e = t.prior_cache[e].next
    return exp(logit - top) / total if total > 0 else 0


cdef int prior_pick(Tree* t, int node, GameState* w, int untried, int mover, float* prob) noexcept nogil:
    # Of the untried actions (t.legal[0..untried)) at `node`, the one of the highest
    # logit (the first on ties), and its prior in prob[0] (prior_share). The logits the
    # node has not cached are computed in world w and cached; -1 with the tree's error set
    # if that fails. (The node's other legal actions in w are its children's: cached.)
    cdef uint32_t stamp = next_stamp(t)
    cdef int32_t e = t.prior_head[node]
    cdef int j, a, best = 0
    cdef float logit, best_logit = -3.4e38
    while e >= 0:                                  # the cached logits, by action id
        t.legal_stamp[t.prior_cache[e].action] = stamp
        t.prior_value[t.prior_cache[e].action] = t.prior_cache[e].logit
        e = t.prior_cache[e].next
    for j in range(untried):
        a = t.legal[j]
        if t.legal_stamp[a] == stamp:
            logit = t.prior_value[a]
        else:
            logit = <float>prior_logit(t, w, a, mover)
            if t.error or prior_remember(t, node, a, logit) < 0:
                return -1
        if j == 0 or logit > best_logit:
            best_logit = logit
            best = j
    prob[0] = <float>prior_share(t, node, best_logit)
    return t.legal[best]


cdef inline bint widen_closed(Tree* t, int node) noexcept nogil:
    # (widen=, progressive widening) whether `node` already has its k(n) = ceil(widen *
    # sqrt(n)) children (n: its visits, at least 1), so that no untried action is expanded
    cdef int child, count = 0
    cdef double allowed
    if t.cfg.widen <= 0 or t.prior == NULL:
        return False
    allowed = ceil(t.cfg.widen * sqrt(<double>max(t.nodes[node].visits, 1u)))
    child = t.nodes[node].first_child
    while child >= 0 and count < allowed:
        count += 1
        child = t.nodes[child].next_sibling
    return count >= allowed


cdef inline double prior_bias(Tree* t, int child) noexcept nogil:
    # PUCT's term of a child (0 without the prior)
    cdef Node* nd = &t.nodes[child]
    if t.prior == NULL:
        return 0
    return t.cfg.prior_c * t.prior[child] * sqrt(<double>nd.avail) / (1.0 + nd.visits)


cdef Tree* prior_test_tree(State state, CompiledModel compiled) except NULL:
    # a tree for the test hooks below: a root node, the state as its world, the prior on
    cdef Tree* t = tree_new(1)
    if t == NULL:
        raise MemoryError()
    if tree_prior_on(t) < 0:
        tree_free(t)
        raise MemoryError()
    t.cfg.prior_model = compiled.m
    memcpy(&t.world, state.s, used_size(state.s))
    new_node(t, 0, ROOT_MOVER)
    return t


cdef void prior_first_expansion(Tree* t, list legal) except *:
    # the root's first expansion in its world: every legal action untried, every logit cached
    cdef float prob
    cdef int i
    for i in range(len(legal)):
        t.legal[i] = legal[i]
    prior_pick(t, 0, &t.world, len(legal), current_player_c(&t.world), &prob)
    if t.error:
        raise RuntimeError(_overflow_message("the prior"))


def _prior_probs(State state, model):
    """The prior of each legal action of `state` for the player to move, as the search
    computes it at a node's first expansion (softmax over the model's outputs on the
    afterstates), in legal_actions() order (a test hook)."""
    cdef CompiledModel compiled = model if isinstance(model, CompiledModel) else CompiledModel(model)
    cdef Tree* t = prior_test_tree(state, compiled)
    cdef int32_t e
    legal = state.legal_actions()
    try:
        prior_first_expansion(t, legal)
        logits = {}
        e = t.prior_head[0]
        while e >= 0:
            logits[t.prior_cache[e].action] = t.prior_cache[e].logit
            e = t.prior_cache[e].next
        return [float(prior_share(t, 0, logits[action])) for action in legal]
    finally:
        tree_free(t)


def _prior_expand(State state, model, untried):
    """The action the search expands first among `untried` (legal actions of `state`) at a
    node first expanded in this state, and its prior probability (a test hook)."""
    cdef CompiledModel compiled = model if isinstance(model, CompiledModel) else CompiledModel(model)
    cdef Tree* t
    cdef float prob
    cdef int i, action
    legal = state.legal_actions()
    if not untried or any(a not in legal for a in untried):
        raise ValueError("untried: one or more legal actions of the state")
    t = prior_test_tree(state, compiled)
    try:
        prior_first_expansion(t, legal)
        for i in range(len(untried)):
            t.legal[i] = untried[i]
        action = prior_pick(t, 0, &t.world, len(untried), current_player_c(state.s), &prob)
    finally:
        tree_free(t)
    return action, float(prob)
