# The bots' search, in C without the GIL: single-observer Information-Set MCTS (Cowling,
# Powley & Whitehouse 2012), Perfect-Information Monte Carlo (UCT on determinizations) and
# flat Monte Carlo, over the engine's GameState through its C API (engine.pxd). Python
# only parses the spec (glory_ai.bots), starts a search and reads the root statistics.
#
# Memory: nodes live in one preallocated array per tree (Node, 64 bytes); children are
# a linked list of node indices. A search adds at most one node per iteration and never
# more than node_cap; at the cap it goes on iterating without expanding (rollouts from
# the frontier), so memory is bounded by node_cap * (64 + 4) bytes per tree (the node
# and its slot in the path buffer) plus one working context (CONTEXT_BYTES) per tree.
#
# No limit here fails silently: the path buffer has a slot per node (a path never visits
# a node twice), the legal-action buffer holds the engine's MAX_LEGAL, availability
# stamps are cleared when they wrap, visit counters stop short of their 32-bit range, a
# PIMC tree keeps room for the root of every world, and anything that goes wrong inside
# the search (an engine state with no legal action, no memory) reaches the caller as an
# exception.
from libc.stdint cimport uint8_t, uint16_t, uint32_t, uint64_t, int32_t
from libc.stdlib cimport malloc, free, calloc
from libc.string cimport memcpy, memset
from libc.math cimport log, sqrt, exp, tanh

from glory_ai.core.engine cimport (
    GameState, Player, Structure, Turn, State, NUM_TYPES, JACK, MAX_LEGAL, NO_ROLE, DECK_CAP,
    NUM_DISTINCT_ACTIONS, LABORER, CRAFTSMAN, ARCHITECT, LEGIONARY, MERCHANT, PATRON,
    S_COMPLETE, PH_OVER, PH_LEAD, PH_FOLLOW, PH_PAY_MORE, PH_PETITION, PH_THINK_CHOICE,
    PH_TRIBUNAL, PH_SEWER, PH_SENATE, A_VAULT_HAND, A_REVEAL, A_THINK_JACK, B_WALL, B_PALISADE, B_BRIDGE,
    INV_NO_LEGAL, gr_rng_next, gr_rng_below, gr_rng_seed, used_size, is_active, mat_of,
    material_value, clientele_limit, vault_limit, refill_size, owned_structure, conceded,
    legal_actions_into, apply_action_c, score_of, winners_mask_of, determinize_c,
    canonicalize_hidden, check_state, NUM_FEATURES, features_c, linear_features_c,
)

include "_model.pxi"
include "_policy.pxi"

cdef extern from "<time.h>" nogil:
    ctypedef long time_t
    struct timespec:
        time_t tv_sec
        long tv_nsec
    int clock_gettime(int clk_id, timespec* tp)
    enum: CLOCK_MONOTONIC

cdef extern from "<stdlib.h>" nogil:
    int posix_memalign(void** memptr, size_t alignment, size_t size)


cdef inline double now_seconds() noexcept nogil:
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return ts.tv_sec + ts.tv_nsec * 1e-9


# ---- configuration --------------------------------------------------------------------

cdef enum:
    ALG_ISMCTS = 0
    ALG_PIMC = 1
    ALG_FLATMC = 2

cdef enum:
    ROLLOUT_RANDOM = 0
    ROLLOUT_HEURISTIC = 1
    ROLLOUT_MODEL = 2        # a softmax over the one-ply values of the legal actions

cdef enum:
    REWARD_WIN = 0
    REWARD_RANK = 1
    REWARD_MARGIN = 2

cdef enum:
    ROOT_MOVER = 255         # the mover recorded on a root node
    CHECK_CLOCK_EVERY = 8    # iterations between clock reads under a time budget

# Visit counts are 32-bit. A search stops iterating once its root has MAX_ROOT_VISITS
# visits (only a time budget of hours could get there: iters is at most 10,000,000), and a
# tree is reused only below REUSE_VISITS_LIMIT, so no count ever wraps.
cdef uint32_t MAX_ROOT_VISITS = 2147483648u        # 2 ** 31
cdef uint32_t REUSE_VISITS_LIMIT = 1073741824u     # 2 ** 30

# What went wrong in a tree's search (Tree.error); the search raises it to the caller.
cdef enum:
    SEARCH_OK = 0
    SEARCH_NO_LEGAL = 1      # a live state without legal actions (Tree.error_detail: the invariant code)
    SEARCH_NO_WINNER = 2     # a finished game without a winner

ctypedef struct SearchConfig:
    int algorithm
    int iterations           # total for this tree (0: until the time budget)
    double time_limit        # seconds (0: none)
    double c                 # exploration constant
    int rollout
    int cutoff               # decisions of rollout before evaluating (0: to the end)
    int reward
    int worlds               # PIMC determinizations for this tree
    double epsilon           # heuristic rollout noise
    double temperature       # VP scale of cutoff rewards (1 for a model of win chances)
    double rollout_temperature   # the softmax of model rollouts
    int node_cap
    Model model              # the evaluation (weights shared read-only by the trees)


# ---- the tree ---------------------------------------------------------------------------

ctypedef struct Node:
    double reward[5]         # reward sums per player
    uint32_t visits
    uint32_t avail           # times this node's action was available at its parent
    int32_t first_child
    int32_t next_sibling
    uint16_t action          # the action leading here from the parent
    uint8_t mover            # the player who chose it (ROOT_MOVER on a root)
    uint8_t pad[5]           # to 64 bytes: one cache line (the array is 64-byte aligned)


ctypedef struct Tree:
    # One search thread's whole working set (64-byte aligned, never shared).
    GameState root           # the canonical root (what the observer knows)
    GameState world          # this iteration's determinized world
    GameState scratch        # trial states of the heuristic policy
    GameState fixed_world    # the world of the current PIMC round
    EvalScratch eval_scratch # this thread's feature vector and hidden layers
    SearchConfig cfg
    Node* nodes              # node_cap nodes
    int* path                # this iteration's path from the root: node_cap + 1 slots
    int count
    int growth_cap           # children are added while count < growth_cap (<= node_cap)
    int root_index           # the node this iteration starts from
    int observer
    int num_players
    uint64_t rng
    uint32_t stamp
    uint32_t* legal_stamp    # per action id: stamp of the node visit where it was legal
    uint32_t* seen_stamp     # per action id: stamp of the visit where a child had it
    uint16_t legal[MAX_LEGAL]
    double rewards[5]
    long iterations_done
    double seconds
    int full                 # a child could not be added: the node cap was reached
    int error                # SEARCH_OK, or what went wrong (raised by the caller)
    int error_detail


#: bytes of one tree node, and of one tree's working context besides its nodes
NODE_BYTES = sizeof(Node)
CONTEXT_BYTES = sizeof(Tree) + 2 * NUM_DISTINCT_ACTIONS * sizeof(uint32_t)


cdef Tree* tree_new(int node_cap) noexcept nogil:
    cdef void* memory = NULL
    cdef Tree* t
    if posix_memalign(&memory, 64, sizeof(Tree)) != 0:
        return NULL
    t = <Tree*>memory
    memset(t, 0, sizeof(Tree))
    memory = NULL
    if posix_memalign(&memory, 64, <size_t>node_cap * sizeof(Node)) == 0:
        t.nodes = <Node*>memory                # each node on its own cache line
    t.path = <int*>malloc((<size_t>node_cap + 1) * sizeof(int))
    t.legal_stamp = <uint32_t*>calloc(NUM_DISTINCT_ACTIONS, sizeof(uint32_t))
    t.seen_stamp = <uint32_t*>calloc(NUM_DISTINCT_ACTIONS, sizeof(uint32_t))
    if t.nodes == NULL or t.path == NULL or t.legal_stamp == NULL or t.seen_stamp == NULL:
        tree_free(t)
        return NULL
    t.cfg.node_cap = node_cap
    t.growth_cap = node_cap
    return t


cdef void tree_free(Tree* t) noexcept nogil:
    if t == NULL:
        return
    free(t.nodes)
    free(t.path)
    free(t.legal_stamp)
    free(t.seen_stamp)
    free(t)


cdef inline int new_node(Tree* t, int action, int mover) noexcept nogil:
    # a root (mover ROOT_MOVER) may take any free slot; a child only one below growth_cap
    cdef Node* node
    cdef int cap = t.cfg.node_cap if mover == ROOT_MOVER else t.growth_cap
    if t.count >= cap:
        t.full = 1
        return -1
    node = &t.nodes[t.count]
    memset(node, 0, sizeof(Node))
    node.first_child = -1
    node.next_sibling = -1
    node.action = action
    node.mover = mover
    t.count += 1
    return t.count - 1


cdef inline int add_child(Tree* t, int parent, int action, int mover) noexcept nogil:
    cdef int child = new_node(t, action, mover)
    if child < 0:
        return -1
    t.nodes[child].next_sibling = t.nodes[parent].first_child
    t.nodes[parent].first_child = child
    return child


cdef inline int find_child(Tree* t, int parent, int action) noexcept nogil:
    cdef int child = t.nodes[parent].first_child
    while child >= 0:
        if t.nodes[child].action == action:
            return child
        child = t.nodes[child].next_sibling
    return -1


cdef inline uint32_t next_stamp(Tree* t) noexcept nogil:
    # A fresh stamp for one node visit; when the 32-bit counter wraps, both tables are
    # cleared so that no old entry can equal a new stamp.
    t.stamp += 1
    if t.stamp == 0:
        memset(t.legal_stamp, 0, NUM_DISTINCT_ACTIONS * sizeof(uint32_t))
        memset(t.seen_stamp, 0, NUM_DISTINCT_ACTIONS * sizeof(uint32_t))
        t.stamp = 1
    return t.stamp


# ---- rewards ----------------------------------------------------------------------------

cdef void terminal_rewards(Tree* t, GameState* s) noexcept nogil:
    # Vector reward of a finished game for every player (docs/bots.md, "Rewards").
    cdef int n = s.cfg.num_players, p, q, winners = winners_mask_of(s), count = 0
    cdef int sp, sq, best_other
    cdef double beats
    for p in range(n):
        if (winners >> p) & 1:
            count += 1
    if count == 0:
        t.error = SEARCH_NO_WINNER
        for p in range(n):
            t.rewards[p] = 0
        return
    for p in range(n):
        if t.cfg.reward == REWARD_WIN:
            t.rewards[p] = (1.0 / count) if (winners >> p) & 1 else 0.0
        elif t.cfg.reward == REWARD_RANK:
            beats = 0
            for q in range(n):
                if q == p:
                    continue
                if (winners >> p) & 1 and not (winners >> q) & 1:
                    beats += 1
                elif (winners >> q) & 1 and not (winners >> p) & 1:
                    pass
                else:
                    sp = score_of(s, p) * 64 + s.players[p].hand_count
                    sq = score_of(s, q) * 64 + s.players[q].hand_count
                    beats += 1.0 if sp > sq else (0.5 if sp == sq else 0.0)
            t.rewards[p] = beats / (n - 1)
        else:
            best_other = -1000
            for q in range(n):
                if q != p and score_of(s, q) > best_other:
                    best_other = score_of(s, q)
            t.rewards[p] = 0.5 + 0.5 * tanh((score_of(s, p) - best_other) / 8.0)
            if (winners >> p) & 1:
                t.rewards[p] = 0.5 + 0.5 * t.rewards[p]
            else:
                t.rewards[p] = 0.5 * t.rewards[p]


cdef void cutoff_rewards(Tree* t, GameState* s) noexcept nogil:
    # A live position scored by the evaluation: win = softmax of the evaluations over
    # `temperature` VP, rank = mean pairwise logistic, margin = tanh of the lead.
    cdef int n = s.cfg.num_players, p, q
    cdef double ev[5]
    cdef double total = 0, best, acc
    for p in range(n):
        ev[p] = -1e9 if conceded(s, p) else evaluate(s, p, &t.cfg.model, &t.eval_scratch)
    best = ev[0]
    for p in range(n):
        if ev[p] > best:
            best = ev[p]
    for p in range(n):
        if t.cfg.reward == REWARD_WIN:
            t.rewards[p] = exp((ev[p] - best) / t.cfg.temperature) if ev[p] > -1e8 else 0.0
            total += t.rewards[p]
        elif t.cfg.reward == REWARD_RANK:
            acc = 0
            for q in range(n):
                if q != p:
                    acc += 1.0 / (1.0 + exp(-(ev[p] - ev[q]) / t.cfg.temperature))
            t.rewards[p] = acc / (n - 1)
        else:
            acc = -1e9
            for q in range(n):
                if q != p and ev[q] > acc:
                    acc = ev[q]
            t.rewards[p] = 0.5 + 0.5 * tanh((ev[p] - acc) / t.cfg.temperature)
    if t.cfg.reward == REWARD_WIN:
        for p in range(n):
            t.rewards[p] /= total


cdef void rollout(Tree* t, GameState* s) noexcept nogil:
    # Play from s to the end (or `cutoff` decisions) and set t.rewards.
    cdef int n, made = 0, p
    while s.turn.phase != PH_OVER:
        if t.cfg.cutoff and made >= t.cfg.cutoff:
            cutoff_rewards(t, s)
            return
        n = legal_actions_into(s, t.legal)
        if n <= 0:
            # an engine bug: the caller raises it, naming the broken invariant
            t.error = SEARCH_NO_LEGAL
            t.error_detail = check_state(s) or INV_NO_LEGAL
            for p in range(t.num_players):
                t.rewards[p] = 0
            return
        if t.cfg.rollout == ROLLOUT_HEURISTIC:
            apply_action_c(s, policy_choose(s, t.legal, n, &t.cfg.model, t.cfg.epsilon, &t.rng,
                                            &t.scratch, &t.eval_scratch))
        elif t.cfg.rollout == ROLLOUT_MODEL:
            apply_action_c(s, softmax_choose(s, t.legal, n, &t.cfg.model, t.cfg.rollout_temperature,
                                             &t.rng, &t.scratch, &t.eval_scratch))
        else:
            apply_action_c(s, t.legal[gr_rng_below(&t.rng, n)])
        made += 1
    terminal_rewards(t, s)


# ---- one iteration ----------------------------------------------------------------------

cdef inline double ucb_score(Node* nd, int mover, double c) noexcept nogil:
    # the mover's mean reward plus the exploration term over availability (Cowling et
    # al. 2012); an unvisited child comes first
    if nd.visits == 0:
        return 1e300
    return nd.reward[mover] / nd.visits + c * sqrt(log(<double>nd.avail) / nd.visits)


cdef int select_child(Tree* t, int node, int n, int mover, int* untried) noexcept nogil:
    # The children of `node` whose action is among the n legal actions of this world
    # (t.legal) are available: each counts one more availability, and the best of them is
    # returned (ISMCTS, PIMC: the highest UCB score, the first in the child list on ties;
    # flat MC: the least visited, round robin), or -1 if none is available. The legal
    # actions no child has yet (untried) are left at the front of t.legal, their number
    # in untried[0].
    cdef uint32_t stamp = next_stamp(t)
    cdef int i, child, best = -1, count = 0
    cdef double best_score = -1e300, score
    cdef Node* nd
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
                score = ucb_score(nd, mover, t.cfg.c)
            if score > best_score:
                best_score = score
                best = child
        child = nd.next_sibling
    for i in range(n):
        if t.seen_stamp[t.legal[i]] != stamp:
            t.legal[count] = t.legal[i]
            count += 1
    untried[0] = count
    return best


cdef void iterate(Tree* t, bint fresh_world) noexcept nogil:
    # Selection (select_child), expansion of one untried action, rollout, backpropagation
    # of the reward vector. The world is the root determinized afresh (ISMCTS, flat MC) or
    # the fixed world of a PIMC round (fresh_world False: t.fixed_world holds it).
    cdef GameState* w = &t.world
    cdef int node = t.root_index, depth = 0, n, i, child, best, untried, pick, mover, p
    cdef Node* nd
    if fresh_world:
        memcpy(w, &t.root, used_size(&t.root))
        determinize_c(w, t.observer, &t.rng)
    else:
        memcpy(w, &t.fixed_world, used_size(&t.fixed_world))
    t.path[0] = node
    while w.turn.phase != PH_OVER:
        if t.cfg.algorithm == ALG_FLATMC and depth >= 1:
            break
        n = legal_actions_into(w, t.legal)
        mover = w.turn.decider
        best = select_child(t, node, n, mover, &untried)
        if untried > 0 and not t.full:
            pick = t.legal[gr_rng_below(&t.rng, untried)]
            child = add_child(t, node, pick, mover)
            if child >= 0:
                t.nodes[child].avail = 1
                apply_action_c(w, pick)
                depth += 1
                t.path[depth] = child
                break
        if best < 0:
            break                                  # tree full and nothing known here
        apply_action_c(w, t.nodes[best].action)
        node = best
        depth += 1
        t.path[depth] = node
    rollout(t, w)
    for i in range(depth + 1):
        nd = &t.nodes[t.path[i]]
        nd.visits += 1
        for p in range(t.num_players):
            nd.reward[p] += t.rewards[p]


cdef inline bint out_of_time(Tree* t, long done, double start, double share) noexcept nogil:
    # under a time budget, checked every CHECK_CLOCK_EVERY iterations: `share` of the
    # budget is spent
    return done % CHECK_CLOCK_EVERY == 0 and now_seconds() - start > t.cfg.time_limit * share


cdef void run_tree(Tree* t) noexcept nogil:
    # Run this tree's share of the search: cfg.iterations (or until cfg.time_limit).
    cdef double start = now_seconds()
    cdef long done = 0, per_world, target
    cdef int world_index
    cdef bint timed = t.cfg.time_limit > 0
    t.growth_cap = t.cfg.node_cap
    if t.count == 0 and t.cfg.algorithm != ALG_PIMC:
        t.root_index = new_node(t, 0, ROOT_MOVER)
    if t.cfg.algorithm == ALG_PIMC:
        # UCT on each of `worlds` fixed determinizations; the trees are kept one after
        # another in the same node array (each rooted at a node whose mover is
        # ROOT_MOVER), and the caller merges the root statistics of all of them. Each
        # world's tree stops growing early enough to leave a node for every later root
        # (worlds <= node_cap: glory_ai.bots checks it).
        per_world = t.cfg.iterations // t.cfg.worlds if t.cfg.iterations else 0
        for world_index in range(t.cfg.worlds):
            t.growth_cap = t.cfg.node_cap - (t.cfg.worlds - 1 - world_index)
            t.root_index = new_node(t, 0, ROOT_MOVER)
            if t.root_index < 0:
                break                              # unreachable while worlds <= node_cap
            memcpy(&t.fixed_world, &t.root, used_size(&t.root))
            determinize_c(&t.fixed_world, t.observer, &t.rng)
            target = per_world + (1 if world_index < t.cfg.iterations % t.cfg.worlds else 0)
            if timed:
                target = 1 << 30
            done = 0
            while done < target and t.nodes[t.root_index].visits < MAX_ROOT_VISITS:
                iterate(t, False)
                done += 1
                t.iterations_done += 1
                if timed and out_of_time(t, done, start, (world_index + 1.0) / t.cfg.worlds):
                    break
    else:
        while t.nodes[t.root_index].visits < MAX_ROOT_VISITS:
            if not timed and done >= t.cfg.iterations:
                break
            iterate(t, True)
            done += 1
            t.iterations_done += 1
            if timed and out_of_time(t, done, start, 1.0):
                break
    t.seconds += now_seconds() - start


# ---- Python face ------------------------------------------------------------------------

from glory_ai.core.engine import INVARIANT_TEXT as _INVARIANT_TEXT

_ALGORITHMS = {"ismcts": ALG_ISMCTS, "pimc": ALG_PIMC, "flatmc": ALG_FLATMC}


cdef class Searcher:
    """A search bot's engine: one or more trees (root parallelism), their settings and,
    with reuse, the trees kept between moves. Built by glory_ai.bots from a spec."""

    cdef Tree** trees
    cdef int ntrees
    cdef int threads
    cdef SearchConfig cfg
    cdef uint64_t seed
    cdef bint reuse
    cdef CompiledModel _model         # owns the weights cfg.model points to
    cdef State _last_state            # (reuse) the state of the last search, and its player
    cdef int _last_player
    cdef public object last_stats

    def __cinit__(self):
        self.trees = NULL
        self.ntrees = 0

    def __init__(self, *, algorithm, iterations, time_ms, c, rollout, cutoff, reward, worlds,
                 epsilon, temperature, node_cap, model, trees, threads, reuse, seed,
                 rollout_temperature=0.5):
        cdef int i
        self.cfg.algorithm = _ALGORITHMS[algorithm]
        self.cfg.iterations = iterations
        self.cfg.time_limit = time_ms / 1000.0
        self.cfg.c = c
        self.cfg.rollout = {"random": ROLLOUT_RANDOM, "heuristic": ROLLOUT_HEURISTIC,
                            "model": ROLLOUT_MODEL}[rollout]
        self.cfg.cutoff = cutoff
        self.cfg.reward = {"win": REWARD_WIN, "rank": REWARD_RANK, "margin": REWARD_MARGIN}[reward]
        self.cfg.worlds = worlds
        self.cfg.epsilon = epsilon
        # a model of win chances gives calibrated logits: no VP scale applies to them
        self.cfg.temperature = temperature if model.output == "value" else 1.0
        self.cfg.rollout_temperature = rollout_temperature
        self.cfg.node_cap = node_cap
        self._model = CompiledModel(model)
        self.cfg.model = self._model.m
        if self.cfg.algorithm == ALG_PIMC and worlds > node_cap:
            raise ValueError(f"PIMC needs a node per world: worlds ({worlds}) exceeds node_cap ({node_cap})")
        self.threads = threads
        self.reuse = reuse and self.cfg.algorithm == ALG_ISMCTS
        self.seed = seed
        self._last_state = None
        self.last_stats = None
        self.trees = <Tree**>calloc(trees, sizeof(Tree*))
        if self.trees == NULL:
            raise MemoryError()
        self.ntrees = trees
        for i in range(trees):
            self.trees[i] = tree_new(node_cap)
            if self.trees[i] == NULL:
                raise MemoryError(f"cannot allocate a search tree of {node_cap} nodes")

    def __dealloc__(self):
        cdef int i
        if self.trees != NULL:
            for i in range(self.ntrees):
                tree_free(self.trees[i])
            free(self.trees)

    def search(self, State state, int player, uint64_t key):
        """Search from `state` for `player` (who must be to move) and return the root
        statistics, best first (the bot plays the first row's action); they are also in
        last_stats with the totals. `key` seeds this search (the bot derives it from its
        seed and what the player knows, so searches reproduce)."""
        cdef int i
        cdef list tree_ids = list(range(self.ntrees))
        cdef long reused = self._follow(state, player) if self.reuse else -1
        for i in range(self.ntrees):
            self._prepare(self.trees[i], state, player, i, key, reused >= 0)
        if self.threads > 1 and self.ntrees > 1:
            from concurrent.futures import ThreadPoolExecutor
            with ThreadPoolExecutor(max_workers=min(self.threads, self.ntrees)) as pool:
                list(pool.map(self._run_one, tree_ids))
        else:
            for i in tree_ids:
                self._run_one(i)
        self._raise_errors()
        return self._collect(state, player, max(reused, 0))

    def _run_one(self, int i):
        cdef Tree* t = self.trees[i]
        with nogil:
            run_tree(t)

    cdef void _prepare(self, Tree* t, State state, int player, int index, uint64_t key,
                       bint kept) except *:
        cdef uint64_t mix
        memcpy(&t.root, state.s, used_size(state.s))
        canonicalize_hidden(&t.root, player)
        t.observer = player
        t.num_players = state.s.cfg.num_players
        t.cfg = self.cfg
        if self.cfg.iterations:
            # trees share the iterations; the first ones take the remainder
            t.cfg.iterations = self.cfg.iterations // self.ntrees + (1 if index < self.cfg.iterations % self.ntrees else 0)
        mix = gr_rng_seed(self.seed ^ (<uint64_t>index * <uint64_t>0x9E3779B97F4A7C15))   # wraps mod 2**64
        t.rng = gr_rng_seed(mix ^ key)
        t.iterations_done = 0
        t.seconds = 0
        t.full = 0
        t.error = SEARCH_OK
        if not kept:
            t.count = 0
        t.root_index = 0

    cdef void _raise_errors(self) except *:
        cdef int i
        cdef Tree* t
        for i in range(self.ntrees):
            t = self.trees[i]
            if t.error == SEARCH_NO_LEGAL:
                raise RuntimeError(
                    "the search met a live position with no legal action, an engine bug "
                    f"(invariant {t.error_detail}: {_INVARIANT_TEXT.get(t.error_detail, '?')})")
            if t.error == SEARCH_NO_WINNER:
                raise RuntimeError("the search met a finished game without a winner, an engine bug")

    # ---- tree reuse ----

    def _follow(self, State state, int player):
        """(reuse) Keep, in every tree, the subtree of the moves played since the last
        search, restricted at its root to the actions legal now, when `state` continues
        that search's state for the same player; otherwise empty the trees. Returns the
        nodes kept in all (0 when starting afresh) and remembers `state` as the last."""
        cdef int i
        cdef long kept = 0
        moves = self._moves_since_last(state, player)
        legal = set(state.legal_actions()) if moves is not None else None
        for i in range(self.ntrees):
            if moves is not None and self._keep_subtree(self.trees[i], moves, legal):
                kept += self.trees[i].count
            else:
                self.trees[i].count = 0
        self._last_state = state.clone()
        self._last_player = player
        return kept

    cdef object _moves_since_last(self, State state, int player):
        # The actions played since the last search if `state` is that search's state after
        # them, as far as `player` can tell (the replay reaches the same information
        # state); None otherwise. History alone does not say it: two positions loaded from
        # dicts, or two new games, both start with an empty history.
        cdef State last = self._last_state
        if last is None or player != self._last_player or last.config() != state.config():
            return None
        before = last.history()
        now = state.history()
        if len(now) < len(before) or now[:len(before)] != before:
            return None
        moves = now[len(before):]
        replay = last.clone()
        for action in moves:
            if A_VAULT_HAND <= action < A_REVEAL and replay.current_player() != player:
                # an opponent's Basilica vault from hand names a card the player did not
                # see: following it down the tree would use that card
                return None
            try:
                replay.apply_action(action)
            except ValueError:
                return None
        if replay.information_state_key(player) != state.information_state_key(player):
            return None
        return moves

    cdef bint _keep_subtree(self, Tree* t, list moves, set legal) except -1:
        # Descend from the old root along `moves`; keep that subtree (compacted to the
        # front of the node array) as the new root, without the root children whose action
        # is not legal now (a node after the player's own draw was expanded in worlds
        # where the player held other cards).
        cdef int node = 0, child, previous
        if t.count == 0:
            return False
        for action in moves:
            child = find_child(t, node, action)
            if child < 0:
                return False
            node = child
        if t.nodes[node].visits >= REUSE_VISITS_LIMIT:
            return False
        previous = -1
        child = t.nodes[node].first_child
        while child >= 0:
            if t.nodes[child].action in legal:
                previous = child
            elif previous < 0:
                t.nodes[node].first_child = t.nodes[child].next_sibling
            else:
                t.nodes[previous].next_sibling = t.nodes[child].next_sibling
            child = t.nodes[child].next_sibling
        if compact_subtree(t, node) < 0:
            raise MemoryError("no memory to keep the search tree between moves")
        return True

    # ---- results ----

    cdef object _collect(self, State state, int player, long reused):
        # merge the root children of every tree (every PIMC world) by action; best first:
        # the most visited (UCT), or the best mean reward (flat MC's even allocation)
        cdef int i, child, p, n = state.s.cfg.num_players
        cdef Tree* t
        cdef Node* nd
        visits = {}
        rewards = {}
        avail = {}
        iterations = 0
        seconds = 0.0
        nodes = 0
        for i in range(self.ntrees):
            t = self.trees[i]
            iterations += t.iterations_done
            seconds = max(seconds, t.seconds)
            nodes += t.count
            for root in self._roots(t):
                child = t.nodes[root].first_child
                while child >= 0:
                    nd = &t.nodes[child]
                    a = nd.action
                    visits[a] = visits.get(a, 0) + nd.visits
                    avail[a] = avail.get(a, 0) + nd.avail
                    sums = rewards.setdefault(a, [0.0] * n)
                    for p in range(n):
                        sums[p] += nd.reward[p]
                    child = nd.next_sibling
        stats = []
        for a, v in visits.items():
            stats.append({"action": a, "visits": v, "available": avail[a],
                          "mean_reward": [r / v if v else 0.0 for r in rewards[a]]})
        if self.cfg.algorithm == ALG_FLATMC:
            stats.sort(key=lambda row: (-row["mean_reward"][player], -row["visits"], row["action"]))
        else:
            stats.sort(key=lambda row: (-row["visits"], row["action"]))
        self.last_stats = {"actions": stats, "iterations": iterations, "seconds": seconds,
                           "nodes": nodes, "reused_nodes": reused, "trees": self.ntrees,
                           "node_cap_reached": any(self.trees[i].full for i in range(self.ntrees))}
        return stats

    cdef list _roots(self, Tree* t):
        # the root node of each tree in t's node array: one, or one per PIMC world
        cdef int i
        if t.count == 0:
            return []
        if self.cfg.algorithm != ALG_PIMC:
            return [0]
        return [i for i in range(t.count) if t.nodes[i].mover == ROOT_MOVER]

    # ---- test hooks ----

    def _tree(self, int index):
        """Tree `index` as nested dicts from its root(s) (a list: one root, or one per PIMC
        world): action, mover, visits, available, reward (sums), children (in list order)."""
        if not 0 <= index < self.ntrees:
            raise IndexError(f"no tree {index} (there are {self.ntrees})")
        cdef Tree* t = self.trees[index]
        return [_node_dict(t, root) for root in self._roots(t)]

    def _set_stamp(self, uint32_t value):
        """Set every tree's availability stamp counter (to test its wrap-around)."""
        cdef int i
        for i in range(self.ntrees):
            self.trees[i].stamp = value

    def _check_trees(self):
        """What is wrong with the trees (an empty list when every invariant holds): every
        node reached once from a root, counts within the cap, visits and availability
        consistent between parents and children, reward sums within their bounds."""
        cdef int i
        problems = []
        for i in range(self.ntrees):
            problems.extend(f"tree {i}: {text}" for text in _tree_problems(self.trees[i], self._roots(self.trees[i])))
        return problems


cdef dict _node_dict(Tree* t, int index):
    cdef Node* nd = &t.nodes[index]
    cdef int child = nd.first_child, p
    children = []
    while child >= 0:
        children.append(_node_dict(t, child))
        child = t.nodes[child].next_sibling
    return {"action": nd.action, "mover": nd.mover, "visits": nd.visits, "available": nd.avail,
            "reward": [nd.reward[p] for p in range(t.num_players)], "children": children}


cdef list _tree_problems(Tree* t, list roots):
    cdef int node, child, p, reached = 0
    cdef Node* nd
    cdef Node* ch
    cdef double total
    cdef long child_visits
    problems = []
    if t.count > t.cfg.node_cap:
        problems.append(f"{t.count} nodes exceed the cap of {t.cfg.node_cap}")
        return problems
    seen = bytearray(t.count)
    stack = list(roots)
    for node in roots:
        if t.nodes[node].mover != ROOT_MOVER:
            problems.append(f"root {node} has mover {t.nodes[node].mover}")
    while stack:
        node = stack.pop()
        if seen[node]:
            problems.append(f"node {node} is reached twice")
            return problems
        seen[node] = 1
        reached += 1
        nd = &t.nodes[node]
        total = 0
        for p in range(t.num_players):
            if not -1e-9 <= nd.reward[p] <= nd.visits + 1e-9:
                problems.append(f"node {node}: reward sum {nd.reward[p]} of player {p} outside 0..{nd.visits}")
            total += nd.reward[p]
        if t.cfg.reward == REWARD_WIN and abs(total - nd.visits) > 1e-6 * (1 + nd.visits):
            problems.append(f"node {node}: win rewards sum to {total}, not its {nd.visits} visits")
        if nd.mover != ROOT_MOVER and (nd.mover >= t.num_players or nd.avail < 1 or nd.avail < nd.visits):
            problems.append(f"node {node}: mover {nd.mover}, available {nd.avail}, visits {nd.visits}")
        child_visits = 0
        actions = set()
        child = nd.first_child
        while child >= 0:
            if not 0 <= child < t.count:
                problems.append(f"node {node}: child index {child} out of range")
                return problems
            ch = &t.nodes[child]
            if ch.action in actions:
                problems.append(f"node {node}: two children for action {ch.action}")
            actions.add(ch.action)
            if ch.avail > nd.visits:
                problems.append(f"node {child}: available {ch.avail} times, its parent visited {nd.visits}")
            child_visits += ch.visits
            stack.append(child)
            child = ch.next_sibling
        if child_visits > nd.visits:
            problems.append(f"node {node}: children visited {child_visits} times, the node {nd.visits}")
    if reached != t.count:
        problems.append(f"{t.count - reached} of {t.count} nodes are not reached from a root")
    return problems


cdef int compact_subtree(Tree* t, int new_root) noexcept nogil:
    # Move the subtree under new_root to the front of the node array (breadth first),
    # renumbering its links; everything else is dropped. -1 (tree unchanged) without
    # the memory to do it.
    cdef int* order = <int*>malloc(t.count * sizeof(int))
    cdef int* new_index = <int*>malloc(t.count * sizeof(int))
    cdef Node* copy = <Node*>malloc(t.count * sizeof(Node))
    cdef int head = 0, tail = 0, node, child, i
    if order == NULL or new_index == NULL or copy == NULL:
        free(order)
        free(new_index)
        free(copy)
        return -1
    for i in range(t.count):
        new_index[i] = -1
    order[tail] = new_root
    new_index[new_root] = 0
    tail += 1
    while head < tail:
        node = order[head]
        head += 1
        child = t.nodes[node].first_child
        while child >= 0:
            new_index[child] = tail
            order[tail] = child
            tail += 1
            child = t.nodes[child].next_sibling
    for i in range(tail):
        copy[i] = t.nodes[order[i]]
        if copy[i].first_child >= 0:
            copy[i].first_child = new_index[copy[i].first_child]
        if copy[i].next_sibling >= 0:
            copy[i].next_sibling = new_index[copy[i].next_sibling]
    copy[0].next_sibling = -1
    copy[0].mover = ROOT_MOVER
    memcpy(t.nodes, copy, tail * sizeof(Node))
    t.count = tail
    free(order)
    free(new_index)
    free(copy)
    return 0


# ---- test hooks: one selection step, rewards, the evaluation -------------------------------

def _select(children, legal, int mover, double c, algorithm="ismcts"):
    """One selection step at a hand-built node, with the code the search runs:
    `children` is a list of (action, visits, availability, reward sums per player) in
    child-list order, `legal` this world's legal actions. Returns (the index of the chosen
    child or None, the children's availability afterwards, the untried legal actions)."""
    cdef Tree* t
    cdef int i, p, child, untried, best
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
        for i in range(len(legal)):
            t.legal[i] = legal[i]
        best = select_child(t, 0, len(legal), mover, &untried)
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


cdef CompiledModel _compiled(style, model):
    # the evaluation model of a test hook: `model` (an EvalModel), else the style (a name or
    # a style's weights), else the balanced style
    from .models import linear_model, style_model, style_weights

    if model is not None:
        return CompiledModel(model)
    if style is None or isinstance(style, str):
        return CompiledModel(style_model(style or "balanced"))
    return CompiledModel(linear_model(style_weights(style)))


def _rewards(State state, reward="win", double temperature=4.0, style=None, model=None):
    """The reward vector the search gives `state`: the result of a finished game, or the
    cutoff evaluation of a live one (with `model`, else `style`, default balanced; a model
    of win chances takes temperature 1, as in the search)."""
    cdef CompiledModel compiled = _compiled(style, model)
    cdef Tree* t = tree_new(1)
    cdef int p
    if t == NULL:
        raise MemoryError()
    try:
        t.cfg.reward = {"win": REWARD_WIN, "rank": REWARD_RANK, "margin": REWARD_MARGIN}[reward]
        t.cfg.temperature = temperature if compiled.model.output == "value" else 1.0
        t.num_players = state.s.cfg.num_players
        t.cfg.model = compiled.m
        if state.s.turn.phase == PH_OVER:
            terminal_rewards(t, state.s)
        else:
            cutoff_rewards(t, state.s)
        return [t.rewards[p] for p in range(t.num_players)]
    finally:
        tree_free(t)


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
        return action
