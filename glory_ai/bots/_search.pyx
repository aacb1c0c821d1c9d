# The bots' search, in C without the GIL: single-observer Information-Set MCTS (Cowling,
# Powley & Whitehouse 2012), Perfect-Information Monte Carlo (UCT on determinizations) and
# flat Monte Carlo, over the engine's GameState through its C API (engine.pxd). Python
# only parses the spec (glory_ai.bots), starts a search and reads the root statistics.
#
# Memory: nodes live in one preallocated array per tree (Node, 64 bytes); children are
# a linked list of node indices. A search adds at most one node per iteration and never
# more than node_cap; at the cap it goes on iterating without expanding (rollouts from
# the frontier), so memory is bounded by node_cap * 64 bytes per tree plus one thread
# context (~200 KB) per tree.
from libc.stdint cimport uint8_t, uint16_t, uint32_t, uint64_t, int32_t
from libc.stdlib cimport malloc, free, calloc
from libc.string cimport memcpy, memset
from libc.math cimport log, sqrt, exp, tanh

from glory_ai.core.engine cimport (
    GameState, Player, Structure, Turn, State, NUM_TYPES, JACK, NMAT, MAX_LEGAL, NO_ROLE, DECK_CAP,
    NUM_DISTINCT_ACTIONS, LABORER, CRAFTSMAN, ARCHITECT, LEGIONARY, MERCHANT, PATRON,
    S_COMPLETE, PH_OVER, PH_LEAD, PH_FOLLOW, PH_PAY_MORE, PH_PETITION, PH_THINK_CHOICE,
    PH_TRIBUNAL, PH_SEWER, PH_SENATE, A_VAULT_HAND, A_REVEAL, A_THINK_JACK, B_WALL, B_PALISADE, B_BRIDGE,
    gr_rng_next, gr_rng_below, gr_rng_seed, used_size, is_active, mat_of, material_value,
    influence_of, clientele_limit, vault_limit, refill_size, owned_structure, conceded,
    legal_actions_into, apply_action_c, score_of, winners_mask_of, determinize_c,
    canonicalize_hidden,
)

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


cdef inline double uniform01(uint64_t* rng) noexcept nogil:
    return (gr_rng_next(rng) >> 11) * (1.0 / 9007199254740992.0)


# ---- configuration --------------------------------------------------------------------

cdef enum:
    ALG_ISMCTS = 0
    ALG_PIMC = 1
    ALG_FLATMC = 2

cdef enum:
    ROLLOUT_RANDOM = 0
    ROLLOUT_HEURISTIC = 1

cdef enum:
    REWARD_WIN = 0
    REWARD_RANK = 1
    REWARD_MARGIN = 2

cdef enum:
    MAX_PATH = 2048          # deepest tree path followed (deeper: treated as a leaf)
    ROOT_MOVER = 255         # the mover recorded on a root node
    CHECK_CLOCK_EVERY = 8    # iterations between clock reads under a time budget

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
    double temperature       # VP scale of cutoff rewards
    int node_cap
    Style style


# ---- the tree ---------------------------------------------------------------------------

ctypedef struct Node:
    double reward[5]         # reward sums per player
    uint32_t visits
    uint32_t avail           # times this node's action was available at its parent
    int32_t first_child
    int32_t next_sibling
    uint16_t action          # the action leading here from the parent
    uint8_t mover            # the player who chose it
    uint8_t pad[9]


ctypedef struct Tree:
    # One search thread's whole working set (64-byte aligned, never shared).
    GameState root           # the canonical root (what the observer knows)
    GameState world          # this iteration's determinized world
    GameState scratch        # trial states of the heuristic policy
    GameState fixed_world    # the world of the current PIMC round
    SearchConfig cfg
    Node* nodes
    int count
    int root_index           # the node this iteration starts from
    int observer
    int num_players
    uint64_t rng
    uint32_t stamp
    uint32_t* legal_stamp    # per action id: stamp of the node visit where it was legal
    uint32_t* seen_stamp     # per action id: stamp of the visit where a child had it
    int path[2048]
    uint16_t legal[4096]
    double rewards[5]
    long iterations_done
    double seconds
    int full                 # the node cap was reached


cdef Tree* tree_new(int node_cap) noexcept nogil:
    cdef void* memory = NULL
    cdef Tree* t
    if posix_memalign(&memory, 64, sizeof(Tree)) != 0:
        return NULL
    t = <Tree*>memory
    memset(t, 0, sizeof(Tree))
    t.nodes = <Node*>malloc(node_cap * sizeof(Node))
    t.legal_stamp = <uint32_t*>calloc(NUM_DISTINCT_ACTIONS, sizeof(uint32_t))
    t.seen_stamp = <uint32_t*>calloc(NUM_DISTINCT_ACTIONS, sizeof(uint32_t))
    if t.nodes == NULL or t.legal_stamp == NULL or t.seen_stamp == NULL:
        tree_free(t)
        return NULL
    t.cfg.node_cap = node_cap
    return t


cdef void tree_free(Tree* t) noexcept nogil:
    if t == NULL:
        return
    free(t.nodes)
    free(t.legal_stamp)
    free(t.seen_stamp)
    free(t)


cdef inline int new_node(Tree* t, int action, int mover) noexcept nogil:
    cdef Node* node
    if t.count >= t.cfg.node_cap:
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


# ---- rewards ----------------------------------------------------------------------------

cdef void terminal_rewards(Tree* t, GameState* s) noexcept nogil:
    # Vector reward of a finished game for every player (docs/bots.md, "Rewards").
    cdef int n = s.cfg.num_players, p, q, winners = winners_mask_of(s), count = 0
    cdef int sp, sq, best_other
    cdef double beats
    for p in range(n):
        if (winners >> p) & 1:
            count += 1
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
        ev[p] = -1e9 if conceded(s, p) else evaluate(s, p, &t.cfg.style)
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
    cdef int n, made = 0
    while s.turn.phase != PH_OVER:
        if t.cfg.cutoff and made >= t.cfg.cutoff:
            cutoff_rewards(t, s)
            return
        n = legal_actions_into(s, t.legal)
        if n <= 0:
            break
        if t.cfg.rollout == ROLLOUT_HEURISTIC:
            apply_action_c(s, policy_choose(s, t.legal, n, &t.cfg.style, t.cfg.epsilon, &t.rng, &t.scratch))
        else:
            apply_action_c(s, t.legal[gr_rng_below(&t.rng, n)])
        made += 1
    terminal_rewards(t, s)


# ---- one iteration ----------------------------------------------------------------------

cdef void iterate(Tree* t, bint fresh_world) noexcept nogil:
    # Selection (availability-aware UCB, Cowling et al. 2012), expansion of one untried
    # action, rollout, backpropagation of the reward vector. The world is the root
    # determinized afresh (ISMCTS, flat MC) or a fixed world of PIMC (fresh_world False:
    # t.fixed_world holds the world to copy).
    cdef GameState* w = &t.world
    cdef int node = t.root_index, depth = 0, n, i, child, best, untried, pick, mover, p
    cdef double best_score, score, log_avail
    cdef Node* nd
    if fresh_world:
        memcpy(w, &t.root, used_size(&t.root))
        determinize_c(w, t.observer, &t.rng)
    else:
        memcpy(w, &t.fixed_world, used_size(&t.fixed_world))
    t.path[0] = node
    while w.turn.phase != PH_OVER and depth < MAX_PATH - 1:
        if t.cfg.algorithm == ALG_FLATMC and depth >= 1:
            break
        n = legal_actions_into(w, t.legal)
        mover = w.turn.decider
        t.stamp += 1
        for i in range(n):
            t.legal_stamp[t.legal[i]] = t.stamp
        # the children available in this world: count availability, find the best by UCB
        best = -1
        best_score = -1e300
        child = t.nodes[node].first_child
        while child >= 0:
            nd = &t.nodes[child]
            if t.legal_stamp[nd.action] == t.stamp:
                t.seen_stamp[nd.action] = t.stamp
                nd.avail += 1
                if t.cfg.algorithm == ALG_FLATMC:
                    score = -<double>nd.visits          # round robin over the root actions
                elif nd.visits == 0:
                    score = 1e300
                else:
                    log_avail = log(<double>nd.avail)
                    score = nd.reward[mover] / nd.visits + t.cfg.c * sqrt(log_avail / nd.visits)
                if score > best_score:
                    best_score = score
                    best = child
            child = nd.next_sibling
        untried = 0
        for i in range(n):
            if t.seen_stamp[t.legal[i]] != t.stamp:
                t.legal[untried] = t.legal[i]
                untried += 1
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


cdef void run_tree(Tree* t) noexcept nogil:
    # Run this tree's share of the search: cfg.iterations (or until cfg.time_limit).
    cdef double start = now_seconds()
    cdef long done = 0, per_world, target
    cdef int world_index
    cdef bint timed = t.cfg.time_limit > 0
    if t.count == 0 and t.cfg.algorithm != ALG_PIMC:
        t.root_index = new_node(t, 0, ROOT_MOVER)
    if t.cfg.algorithm == ALG_PIMC:
        # UCT on each of `worlds` fixed determinizations; the trees are kept one after
        # another in the same node array (each rooted at a node whose mover is
        # ROOT_MOVER), and the caller merges the root statistics of all of them
        per_world = t.cfg.iterations // t.cfg.worlds if t.cfg.iterations else 0
        for world_index in range(t.cfg.worlds):
            t.root_index = new_node(t, 0, ROOT_MOVER)
            if t.root_index < 0:
                break
            memcpy(&t.fixed_world, &t.root, used_size(&t.root))
            determinize_c(&t.fixed_world, t.observer, &t.rng)
            target = per_world + (1 if world_index < t.cfg.iterations % t.cfg.worlds else 0)
            if timed:
                target = 1 << 30
            done = 0
            while done < target:
                pimc_iterate(t)
                done += 1
                t.iterations_done += 1
                if timed and done % CHECK_CLOCK_EVERY == 0 and \
                        now_seconds() - start > t.cfg.time_limit * (world_index + 1) / t.cfg.worlds:
                    break
    else:
        while True:
            if not timed and done >= t.cfg.iterations:
                break
            iterate(t, True)
            done += 1
            t.iterations_done += 1
            if timed and done % CHECK_CLOCK_EVERY == 0 and now_seconds() - start > t.cfg.time_limit:
                break
    t.seconds += now_seconds() - start


cdef void pimc_iterate(Tree* t) noexcept nogil:
    # UCT on the fixed world of this PIMC round: the ISMCTS iteration with the world
    # copied instead of determinized (every child is then always available).
    iterate(t, False)


# ---- Python face ------------------------------------------------------------------------

cdef class Searcher:
    """A search bot's engine: one or more trees (root parallelism), their settings and,
    with reuse, the trees kept between moves. Built by glory_ai.bots from a spec."""

    cdef Tree** trees
    cdef int ntrees
    cdef int threads
    cdef SearchConfig cfg
    cdef uint64_t seed
    cdef bint reuse
    cdef object _root_history
    cdef int _root_player
    cdef public object last_stats

    def __cinit__(self):
        self.trees = NULL
        self.ntrees = 0

    def __init__(self, *, algorithm, iterations, time_ms, c, rollout, cutoff, reward, worlds,
                 epsilon, temperature, node_cap, style, trees, threads, reuse, seed):
        cdef int i
        self.cfg.algorithm = {"ismcts": ALG_ISMCTS, "pimc": ALG_PIMC, "flatmc": ALG_FLATMC}[algorithm]
        self.cfg.iterations = iterations
        self.cfg.time_limit = time_ms / 1000.0
        self.cfg.c = c
        self.cfg.rollout = {"random": ROLLOUT_RANDOM, "heuristic": ROLLOUT_HEURISTIC}[rollout]
        self.cfg.cutoff = cutoff
        self.cfg.reward = {"win": REWARD_WIN, "rank": REWARD_RANK, "margin": REWARD_MARGIN}[reward]
        self.cfg.worlds = worlds
        self.cfg.epsilon = epsilon
        self.cfg.temperature = temperature
        self.cfg.node_cap = node_cap
        set_style(&self.cfg.style, style)
        self.ntrees = trees
        self.threads = threads
        self.reuse = reuse
        self.seed = seed
        self._root_history = None
        self.last_stats = None
        self.trees = <Tree**>calloc(trees, sizeof(Tree*))
        if self.trees == NULL:
            raise MemoryError()
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
        """Search from `state` for `player` (who must be to move); returns the chosen action
        and leaves the root statistics in last_stats. `key` seeds this search (the bot
        derives it from its seed and what the player knows, so searches reproduce)."""
        cdef int i
        cdef Tree* t
        cdef list tree_ids = list(range(self.ntrees))
        history = state.history() if self.reuse else None
        for i in range(self.ntrees):
            t = self.trees[i]
            self._prepare(t, state, player, i, key, history)
        if self.threads > 1 and self.ntrees > 1:
            from concurrent.futures import ThreadPoolExecutor
            with ThreadPoolExecutor(max_workers=min(self.threads, self.ntrees)) as pool:
                list(pool.map(self._run_one, tree_ids))
        else:
            for i in tree_ids:
                self._run_one(i)
        if self.reuse:
            self._root_history = history
            self._root_player = player
        return self._collect(state, player)

    def _run_one(self, int i):
        cdef Tree* t = self.trees[i]
        with nogil:
            run_tree(t)

    cdef void _prepare(self, Tree* t, State state, int player, int index, uint64_t key,
                       object history) except *:
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
        if not (self.reuse and self.cfg.algorithm == ALG_ISMCTS and self._reuse_subtree(t, history, player)):
            t.count = 0
            t.full = 0
        t.root_index = 0

    cdef bint _reuse_subtree(self, Tree* t, object history, int player) except -1:
        # Descend from the old root along the actions since the last search; keep that
        # subtree (compacted to the front of the node array) as the new root. An action
        # that names a card the observer did not see (an opponent's Basilica vault from
        # hand) ends the reuse: following it would read hidden information.
        cdef int node = 0, child
        if self._root_history is None or t.count == 0 or player != self._root_player:
            return False
        old = self._root_history
        if len(history) < len(old) or history[:len(old)] != old:
            return False
        for action in history[len(old):]:
            if A_VAULT_HAND <= action < A_REVEAL:
                return False
            child = find_child(t, node, action)
            if child < 0:
                return False
            node = child
        if node == 0:
            return True
        compact_subtree(t, node)
        return True

    cdef object _collect(self, State state, int player):
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
                           "nodes": nodes, "trees": self.ntrees,
                           "node_cap_reached": any(self.trees[i].full for i in range(self.ntrees))}
        return stats

    cdef list _roots(self, Tree* t):
        # the root node of each tree in t's node array: one, or one per PIMC world
        cdef int i
        if self.cfg.algorithm != ALG_PIMC:
            return [0]
        return [i for i in range(t.count) if t.nodes[i].mover == ROOT_MOVER]


cdef void compact_subtree(Tree* t, int new_root) noexcept nogil:
    # Move the subtree under new_root to the front of the node array (breadth first),
    # renumbering its links; everything else is dropped.
    cdef int* order = <int*>malloc(t.count * sizeof(int))
    cdef int* new_index = <int*>malloc(t.count * sizeof(int))
    cdef Node* copy = <Node*>malloc(t.count * sizeof(Node))
    cdef int head = 0, tail = 0, node, child, i
    if order == NULL or new_index == NULL or copy == NULL:
        free(order)
        free(new_index)
        free(copy)
        t.count = 0                                # out of memory: start afresh
        return
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
    t.full = 0
    free(order)
    free(new_index)
    free(copy)


cdef void set_style(Style* w, dict style) except *:
    cdef int i
    memset(w, 0, sizeof(Style))
    for i in range(6):
        w.role[i] = style["role"][i]
    w.foundation = style["foundation"]
    w.progress = style["progress"]
    w.client = style["client"]
    w.vault = style["vault"]
    w.stockpile = style["stockpile"]
    w.card = style["card"]
    w.jack = style["jack"]
    w.pending = style["pending"]
    for i in range(NUM_TYPES):
        w.building[i] = style["building"][i]


# ---- the heuristic policy for Python bots -----------------------------------------------

cdef class PolicyPlayer:
    """The one-ply heuristic policy for one player: heuristic and greedy bots."""

    cdef Style style
    cdef double epsilon
    cdef uint64_t seed
    cdef GameState* world
    cdef GameState* scratch

    def __cinit__(self):
        self.world = NULL
        self.scratch = NULL

    def __init__(self, dict style, double epsilon, uint64_t seed):
        set_style(&self.style, style)
        self.epsilon = epsilon
        self.seed = seed
        self.world = <GameState*>malloc(sizeof(GameState))
        self.scratch = <GameState*>malloc(sizeof(GameState))
        if self.world == NULL or self.scratch == NULL:
            raise MemoryError()

    def __dealloc__(self):
        free(self.world)
        free(self.scratch)

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
            action = policy_choose(self.world, legal, n, &self.style, self.epsilon, &rng, self.scratch)
        return action

    def action_values(self, State state, int player, uint64_t key):
        """[(action, value)] of every legal action as the one-ply policy sees it (the
        relative evaluation after the action, in one world dealt from `key`)."""
        cdef uint16_t legal[MAX_LEGAL]
        cdef uint64_t rng = gr_rng_seed(self.seed ^ gr_rng_seed(key))
        cdef int n, i
        memcpy(self.world, state.s, used_size(state.s))
        canonicalize_hidden(self.world, player)
        determinize_c(self.world, player, &rng)
        n = legal_actions_into(self.world, legal)
        out = []
        for i in range(n):
            memcpy(self.scratch, self.world, used_size(self.world))
            apply_action_c(self.scratch, legal[i])
            out.append((legal[i], eval_relative(self.scratch, player, &self.style)))
        return sorted(out, key=lambda item: -item[1])

    def evaluate(self, State state, int player):
        """The style's evaluation of `state` for `player`, in VP (reads the state as given)."""
        return evaluate(state.s, player, &self.style)
