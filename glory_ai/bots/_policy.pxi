# The C-level evaluation and heuristic policies (docs/bots.md, "Evaluation"): what a
# position is worth to each player under an evaluation model (_model.pxi) over the
# engine's feature vector, and policies that weigh the legal actions by what their result
# is worth to the player to move (one-ply lookahead): the best one (heuristic), or one
# drawn from a softmax (model rollouts). The heuristic bots, the greedy bot, the search's
# rollouts and cutoff evaluations all use these, without the GIL. A built-in style is a
# linear model (glory_ai.bots.models.style_model).
#
# Included by _search.pyx after _model.pxi; every function is noexcept nogil and
# allocation-free.

cdef inline double uniform01(uint64_t* rng) noexcept nogil:
    return (gr_rng_next(rng) >> 11) * (1.0 / 9007199254740992.0)


cdef double evaluate(GameState* s, int p, const Model* m, EvalScratch* scratch) noexcept nogil:
    # What the position is worth to p under the model (VP-like for a value model, a win
    # logit or log win share otherwise). A linear model (every built-in style) sums its
    # weighted features as they are computed, without writing the vector out.
    if m.layers == 1:
        return model_value(m, m.bias[0][0] + linear_features_c(s, p, m.weight[0], m.gain))
    features_c(s, p, m.gain, scratch.features)
    return model_value(m, model_output(m, scratch.features, scratch))


cdef double eval_relative(GameState* s, int p, const Model* m, EvalScratch* scratch) noexcept nogil:
    # p's evaluation less the best other player's (what a one-ply choice maximises),
    # weighted up as the deck runs down: a player ahead prefers the game to move towards
    # its end (R-11.1(1)), so two one-ply players cannot stall a game they do not tie
    cdef double mine = evaluate(s, p, m, scratch), best = -1e9, other
    cdef int q
    for q in range(s.cfg.num_players):
        if q == p or conceded(s, q):
            continue
        other = evaluate(s, q, m, scratch)
        if other > best:
            best = other
    if best <= -1e9:
        return mine
    return (mine - best) * (1.0 + 0.01 * (DECK_CAP - s.deck_size))


cdef double outcome_value(GameState* s, int p) noexcept nogil:
    # a finished game: a large bonus for winning on top of the VP margin
    cdef int mask = winners_mask_of(s)
    return 1000.0 if (mask >> p) & 1 else -1000.0


# One-ply players can cycle without end: lead with a Jack, act to no effect, take the Jack
# back when thinking, and never draw. Hands only gain Order cards from the deck, so once no
# one takes Jacks every card played must first be drawn and the deck runs out (R-11.1(1)).
# After STALL_TURNS turns (ordinary games last 30-120) the policy takes no more Jacks.
cdef enum:
    STALL_TURNS = 200

cdef enum:
    POLICY_OVERFLOW = -2     # policy_choose: a trial state exceeded an engine capacity


cdef inline double action_value(GameState* s, int action, int p, const Model* m,
                                GameState* scratch, EvalScratch* eval_scratch) noexcept nogil:
    # what playing `action` is worth to p: eval_relative() of the result, and a win or a
    # loss on top if it ends the game (`scratch` holds the trial state)
    memcpy(scratch, s, used_size(s))
    apply_action_c(scratch, action)
    if scratch.turn.phase == PH_OVER:
        return outcome_value(scratch, p) + eval_relative(scratch, p, m, eval_scratch)
    return eval_relative(scratch, p, m, eval_scratch)


cdef int policy_choose(GameState* s, uint16_t* legal, int n, const Model* m, double epsilon,
                       uint64_t* rng, GameState* scratch, EvalScratch* eval_scratch) noexcept nogil:
    # One-ply lookahead: the legal action after which eval_relative() is highest for the
    # player to move (ties broken at random); with probability epsilon a uniform random
    # action instead (rollout noise). `scratch` is caller memory for the trial states.
    # POLICY_OVERFLOW when a trial exceeded a fixed capacity of the engine (its state is
    # no longer exact, so no value of it can be trusted): the caller raises.
    cdef int p = s.turn.decider
    cdef int i, best = 0, ties = 0
    cdef double value, best_value = -1e18
    cdef bint long_game
    if n == 1:
        return legal[0]
    if epsilon > 0 and uniform01(rng) < epsilon:
        return legal[gr_rng_below(rng, n)]
    long_game = s.turn.turn_number >= STALL_TURNS
    for i in range(n):
        if long_game and legal[i] == A_THINK_JACK and n > 1:
            continue                   # after STALL_TURNS turns: no Jack taken back (see above)
        value = action_value(s, legal[i], p, m, scratch, eval_scratch)
        if scratch.overflow:
            return POLICY_OVERFLOW
        if value > best_value + 1e-9:
            best_value = value
            best = i
            ties = 1
        elif value > best_value - 1e-9:
            ties += 1
            if gr_rng_below(rng, ties) == 0:
                best = i
    return legal[best]


cdef int softmax_choose(GameState* s, uint16_t* legal, int n, const Model* m, double temperature,
                        uint64_t* rng, GameState* scratch, EvalScratch* eval_scratch) noexcept nogil:
    # A legal action drawn with probability proportional to exp(value / temperature), the
    # value as policy_choose weighs it (rollout=model). Drawn in one pass by the Gumbel-max
    # trick: the action with the highest value / temperature + Gumbel noise.
    # POLICY_OVERFLOW as policy_choose.
    cdef int p = s.turn.decider
    cdef int i, best = 0
    cdef double key, best_key = -1e300, u
    cdef bint long_game
    if n == 1:
        return legal[0]
    long_game = s.turn.turn_number >= STALL_TURNS
    for i in range(n):
        if long_game and legal[i] == A_THINK_JACK:
            continue                   # after STALL_TURNS turns: no Jack taken back
        u = ((gr_rng_next(rng) >> 11) + 0.5) * (1.0 / 9007199254740992.0)     # in (0, 1)
        key = action_value(s, legal[i], p, m, scratch, eval_scratch) / temperature - log(-log(u))
        if scratch.overflow:
            return POLICY_OVERFLOW
        if key > best_key:
            best_key = key
            best = i
    return legal[best]
