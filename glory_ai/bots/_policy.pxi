# The C-level evaluation and heuristic policies (docs/bots.md, "Evaluation"): what a
# position is worth to each player under an evaluation model (_model.pxi) over the
# engine's feature vector, and policies that weigh the legal actions by what their result
# is worth to the player to move (one-ply lookahead): the best one (heuristic), or one
# drawn from a softmax (model rollouts). The heuristic bots, the greedy bot, the search's
# rollouts and cutoff evaluations all use these, without the GIL. A built-in style is a
# linear model (glory_ai.bots.models.style_model).
#
# PolicyPlayer is the heuristic and greedy bots' Python face of the policy; _evaluate and
# _features are test hooks.
#
# Included by _search.pyx after _model.pxi; every C function is noexcept nogil and
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
    for q in range(num_players_c(s)):
        if q == p or conceded(s, q):
            continue
        other = evaluate(s, q, m, scratch)
        if other > best:
            best = other
    if best <= -1e9:
        return mine
    return (mine - best) * (1.0 + 0.01 * (DECK_CAP - deck_size_c(s)))


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
    if is_terminal_c(scratch):
        return outcome_value(scratch, p) + eval_relative(scratch, p, m, eval_scratch)
    return eval_relative(scratch, p, m, eval_scratch)


cdef int policy_choose(GameState* s, uint16_t* legal, int n, const Model* m, double epsilon,
                       uint64_t* rng, GameState* scratch, EvalScratch* eval_scratch) noexcept nogil:
    # One-ply lookahead: the legal action after which eval_relative() is highest for the
    # player to move (ties broken at random); with probability epsilon a uniform random
    # action instead (rollout noise). `scratch` is caller memory for the trial states.
    # POLICY_OVERFLOW when a trial exceeded a fixed capacity of the engine (its state is
    # no longer exact, so no value of it can be trusted): the caller raises.
    cdef int p = current_player_c(s)
    cdef int i, best = 0, ties = 0
    cdef double value, best_value = -1e18
    cdef bint long_game
    if n == 1:
        return legal[0]
    if epsilon > 0 and uniform01(rng) < epsilon:
        return legal[gr_rng_below(rng, n)]
    long_game = turn_number_c(s) >= STALL_TURNS
    for i in range(n):
        if long_game and legal[i] == A_THINK_JACK and n > 1:
            continue                   # after STALL_TURNS turns: no Jack taken back (see above)
        value = action_value(s, legal[i], p, m, scratch, eval_scratch)
        if overflowed_c(scratch):
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
    cdef int p = current_player_c(s)
    cdef int i, best = 0
    cdef double key, best_key = -1e300, u
    cdef bint long_game
    if n == 1:
        return legal[0]
    long_game = turn_number_c(s) >= STALL_TURNS
    for i in range(n):
        if long_game and legal[i] == A_THINK_JACK:
            continue                   # after STALL_TURNS turns: no Jack taken back
        u = ((gr_rng_next(rng) >> 11) + 0.5) * (1.0 / 9007199254740992.0)     # in (0, 1)
        key = action_value(s, legal[i], p, m, scratch, eval_scratch) / temperature - log(-log(u))
        if overflowed_c(scratch):
            return POLICY_OVERFLOW
        if key > best_key:
            best_key = key
            best = i
    return legal[best]


# ---- the heuristic policy for Python bots -----------------------------------------------

cdef class PolicyPlayer:
    """The one-ply heuristic policy for one player: heuristic and greedy bots."""

    cdef CompiledModel model
    cdef double epsilon
    cdef uint64_t seed
    cdef GameState* world
    cdef GameState* scratch
    cdef EvalScratch* eval_scratch

    def __cinit__(self):
        self.world = NULL
        self.scratch = NULL
        self.eval_scratch = NULL

    def __init__(self, model, double epsilon, uint64_t seed):
        self.model = CompiledModel(model)
        self.epsilon = epsilon
        self.seed = seed
        self.world = <GameState*>malloc(sizeof(GameState))
        self.scratch = <GameState*>malloc(sizeof(GameState))
        self.eval_scratch = <EvalScratch*>malloc(sizeof(EvalScratch))
        if self.world == NULL or self.scratch == NULL or self.eval_scratch == NULL:
            raise MemoryError()

    def __dealloc__(self):
        free(self.world)
        free(self.scratch)
        free(self.eval_scratch)

    def choose(self, State state, int player, uint64_t key):
        """The policy's action for `player` (to move) in one world consistent with what it
        knows (the hidden cards are dealt at random from the bot's own seeded generator)."""
        cdef uint16_t legal[MAX_LEGAL]
        cdef uint64_t rng = gr_rng_seed(self.seed ^ gr_rng_seed(key))
        cdef int n, action
        with nogil:
            memcpy(self.world, state.s, used_size(state.s))
            canonicalize_hidden(self.world, player)
            determinize_c(self.world, player, &rng)
            n = legal_actions_into(self.world, legal)
            action = policy_choose(self.world, legal, n, &self.model.m, self.epsilon, &rng, self.scratch,
                                   self.eval_scratch)
        if action == POLICY_OVERFLOW:
            raise RuntimeError(_overflow_message("the heuristic policy"))
        return action


# ---- test hooks: the evaluation ------------------------------------------------------------

def _evaluate(State state, int player, style=None, model=None):
    """The evaluation of `state` for `player` (reads the state as given): in VP under
    `style` (default balanced), or what the search compares under `model`."""
    cdef CompiledModel compiled = _compiled(style, model)
    cdef int who = state._check_player(player)
    cdef EvalScratch* scratch = <EvalScratch*>malloc(sizeof(EvalScratch))
    cdef double value
    if scratch == NULL:
        raise MemoryError()
    value = evaluate(state.s, who, &compiled.m, scratch)
    free(scratch)
    return value


def _features(list states, list players):
    """The feature vectors of states[i] for players[i], computed with the GIL released
    through the engine's C API (features_c): rows of a numpy array (a test hook)."""
    import numpy as np

    cdef Py_ssize_t i, count = len(states)
    cdef GameState** views = <GameState**>malloc(max(count, 1) * sizeof(GameState*))
    cdef int* who = <int*>malloc(max(count, 1) * sizeof(int))
    out = np.zeros((count, NUM_FEATURES))
    cdef double[:, ::1] rows = out
    if views == NULL or who == NULL:
        free(views)
        free(who)
        raise MemoryError()
    try:
        for i in range(count):
            views[i] = (<State?>states[i]).s
            who[i] = (<State>states[i])._check_player(players[i])
        with nogil:
            for i in range(count):
                features_c(views[i], who[i], NULL, &rows[i, 0])
    finally:
        free(views)
        free(who)
    return out
