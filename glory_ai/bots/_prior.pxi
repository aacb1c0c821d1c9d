# A learned prior over actions (docs/bots.md, "A learned prior"; prior=): a linear model of
# the evaluation's format whose output on the features of an action's afterstate, seen
# from the mover, is that action's logit; the prior is the softmax over the legal actions
# of the world the node is expanded in. It orders expansion (the untried action of the
# highest prior first) and adds a bias to the UCB score of a child, PUCT's term
# prior_c * P * sqrt(availability) / (1 + visits). Test hooks: the prior of a state's
# actions and the expansion choice, with the code the search runs.
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


cdef int prior_pick(Tree* t, GameState* w, int untried, int mover, float* prob) noexcept nogil:
    # Of the untried actions (t.legal[0..untried)), the one of the highest prior (the
    # first on ties), and its prior probability in prob[0]: the softmax of the logits of
    # every legal action of w (t.prior_legal holds them, t.legal having been reordered).
    cdef int n = legal_actions_into(w, t.prior_legal), i, j, best = 0
    cdef double top = -1e300, total = 0, best_logit = -1e300
    for i in range(n):
        t.prior_logits[i] = prior_logit(t, w, t.prior_legal[i], mover)
        if t.prior_logits[i] > top:
            top = t.prior_logits[i]
    for i in range(n):
        total += exp(t.prior_logits[i] - top)
    for j in range(untried):
        for i in range(n):
            if t.prior_legal[i] == t.legal[j]:
                if t.prior_logits[i] > best_logit:
                    best_logit = t.prior_logits[i]
                    best = j
                break
    prob[0] = <float>(exp(best_logit - top) / total) if total > 0 else 0
    return t.legal[best]


cdef inline double prior_bias(Tree* t, int child) noexcept nogil:
    # PUCT's term of a child (0 without the prior)
    cdef Node* nd = &t.nodes[child]
    if t.prior == NULL:
        return 0
    return t.cfg.prior_c * t.prior[child] * sqrt(<double>nd.avail) / (1.0 + nd.visits)


cdef Tree* prior_test_tree(State state, CompiledModel compiled) except NULL:
    # a tree for the test hooks below: the state as its world, the prior model given
    cdef Tree* t = tree_new(1)
    if t == NULL:
        raise MemoryError()
    t.cfg.prior_model = compiled.m
    memcpy(&t.world, state.s, used_size(state.s))
    return t


def _prior_probs(State state, model):
    """The prior of each legal action of `state` for the player to move, as the search
    computes it (softmax over the model's outputs on the afterstates), in legal_actions()
    order (a test hook)."""
    cdef CompiledModel compiled = model if isinstance(model, CompiledModel) else CompiledModel(model)
    cdef Tree* t = prior_test_tree(state, compiled)
    cdef int mover = current_player_c(state.s)
    cdef float prob
    out = []
    try:
        for action in state.legal_actions():
            t.legal[0] = action
            prior_pick(t, &t.world, 1, mover, &prob)
            if t.error:
                raise RuntimeError(_overflow_message("the prior"))
            out.append(float(prob))
    finally:
        tree_free(t)
    return out


def _prior_expand(State state, model, untried):
    """The action the search expands first among `untried` (legal actions of `state`), and
    its prior probability (a test hook)."""
    cdef CompiledModel compiled = model if isinstance(model, CompiledModel) else CompiledModel(model)
    cdef Tree* t
    cdef float prob
    cdef int i, action
    legal = set(state.legal_actions())
    if not untried or any(a not in legal for a in untried):
        raise ValueError("untried: one or more legal actions of the state")
    t = prior_test_tree(state, compiled)
    try:
        for i in range(len(untried)):
            t.legal[i] = untried[i]
        action = prior_pick(t, &t.world, len(untried), current_player_c(state.s), &prob)
    finally:
        tree_free(t)
    return action, float(prob)
