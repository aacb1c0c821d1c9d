# The Python face of the search: Searcher, built by glory_ai.bots from a spec. It prepares
# the trees (the canonical root, the seeds, the belief table), runs them (threads for root
# parallelism, the GIL released), raises what went wrong, keeps the subtree of the moves
# played between searches (reuse), and merges the root statistics into the rows the bot
# plays from (_collect, ordered by _order_rows). Test hooks: the trees as dicts, the worlds
# a tree would search, the stamp counter, the tree invariants.
#
# Included by _search.pyx.

import random as _random

#: how the move is chosen from the root statistics (_order_rows)
_FINAL_RULES = ("visits", "robust")

# The root win search (turnwin=, _tactics.pxi) spends at most this share of a budget of
# time, and the tree search that follows gets the rest; it deals its worlds from its own
# generator (the tree's, mixed with this), so that the tree search draws what it would
# draw without it.
cdef double TURN_WIN_TIME_SHARE = 0.25

# keep= (the risk-aware final choice) applies when the first row's mean reward is at least
# this: a root that reads as clearly won
KEEP_MEAN = 0.6
cdef uint64_t TURN_WIN_SEED = 0x7475726E77696E21ULL     # "turnwin!"


def _order_rows(list stats, int player, uint64_t key, bint flat, final, double keep=0.0):
    """Sort root rows (Searcher.last_stats["actions"]) best first, in place. final=visits:
    the most visited (flat MC: the best mean reward, then visits), then the lowest action
    id. final=robust: a proven win first (the shortest), a proven loss last (the longest
    first); among the rest the most visited (flat MC: the best mean), then the best mean
    (flat MC: visits), then the shorter game when the mean says winning and the longer
    when losing, then a draw seeded by `key`, never the action id. Returns whether that
    draw decided between the first two rows. keep > 0 (not flat MC): when the first row is
    not a proven win and its mean is at least KEEP_MEAN, the unproven row of the highest
    lower bound, mean - keep / (2 sqrt(visits)), is put first (the others
    keep their order): a clearly won root plays the move surest to hold, not the one merely
    tried most."""
    tie = _order_by_rule(stats, player, key, flat, final)
    if keep > 0 and not flat and stats and stats[0]["proven"] != "win" \
            and stats[0]["mean_reward"][player] >= KEEP_MEAN:
        open_rows = [i for i, row in enumerate(stats) if row["proven"] is None and row["visits"] > 0]
        if open_rows:
            best = max(open_rows, key=lambda i: (_lower_bound(stats[i], player, keep), -i))
            if best != 0:
                stats.insert(0, stats.pop(best))
                return False
    return tie


def _lower_bound(row, int player, double keep):
    mean = row["mean_reward"][player]
    # the largest spread of a reward in 0..1 (a standard deviation of 1/2): a few lucky
    # visits never read as sure
    return mean - keep * 0.5 / sqrt(row["visits"])


def _order_by_rule(list stats, int player, uint64_t key, bint flat, final):
    # the order of final= (visits, robust), as _order_rows says
    if final == "visits":
        if flat:
            stats.sort(key=lambda row: (-row["mean_reward"][player], -row["visits"], row["action"]))
        else:
            stats.sort(key=lambda row: (-row["visits"], row["action"]))
        return False
    draw = _random.Random(key ^ 0x5DEECE66D)
    keyed = []
    for row in stats:
        mean = row["mean_reward"][player]
        if row["proven"] == "win":
            order = (0, row["proof_length"], -mean, 0.0)
        elif row["proven"] == "loss":
            order = (2, -row["proof_length"], -mean, 0.0)
        else:
            length = row["mean_length"] if mean >= 0.5 else -row["mean_length"]
            first, second = (-mean, -row["visits"]) if flat else (-row["visits"], -mean)
            order = (1, first, second, length)
        keyed.append((order, draw.random(), row))
    keyed.sort(key=lambda item: (item[0], item[1]))
    stats[:] = [item[2] for item in keyed]
    return len(keyed) > 1 and keyed[0][0] == keyed[1][0]


cdef list _world_hands(Tree* t):
    # every player's hand in the tree's current world (card ids, sorted): the worlds' test hooks
    cdef int q, x, k
    return [[x for x in range(NUM_TYPES) for k in range(hand_cards_c(&t.world, q, x))]
            for q in range(t.num_players)]


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
    cdef object final                 # how the move is chosen from the root statistics
    cdef double keep                  # the risk-aware final choice (0: off)
    cdef long _turn_win_nodes         # nodes the last root win search used
    cdef long turnwin                 # nodes of the root win search (0: off)
    cdef int turnwin_worlds           # the worlds its win must hold in
    cdef TurnWinScratch turnwin_scratch
    cdef dict _priors                 # (prior=) CompiledModel by player count, or None: off

    def __cinit__(self):
        self.trees = NULL
        self.ntrees = 0
        self.turnwin_scratch.stack = NULL
        self.turnwin_scratch.legal = NULL
        self.turnwin_scratch.worlds = NULL

    def __init__(self, *, algorithm, iterations, time_ms, cpu_ms, c, rollout, cutoff, reward, worlds,
                 epsilon, temperature, node_cap, model, trees, threads, reuse, seed,
                 rollout_temperature, solver, speed, vp, final, belief, belief_strength, omniscient,
                 turnwin, turnwin_worlds, keep, rollout_others, cheat, prior_c, widen,
                 forum_threat, paired, ahead, prior=None):
        # every keyword but algorithm, model, prior (by player count: the learned prior's
        # models, or None) and seed is a row of the one table of search
        # parameters (glory_ai.bots.builtin_params.SEARCH_PARAMS), checked against it
        from glory_ai.bots.builtin_params import check_searcher_arguments

        cdef int i
        check_searcher_arguments({
            "iterations": iterations, "time_ms": time_ms, "cpu_ms": cpu_ms, "c": c, "rollout": rollout, "cutoff": cutoff,
            "reward": reward, "worlds": worlds, "epsilon": epsilon, "temperature": temperature,
            "node_cap": node_cap, "trees": trees, "threads": threads, "reuse": reuse,
            "rollout_temperature": rollout_temperature, "solver": solver, "speed": speed, "vp": vp,
            "final": final, "belief": belief, "belief_strength": belief_strength,
            "omniscient": omniscient, "turnwin": turnwin, "turnwin_worlds": turnwin_worlds,
            "keep": keep, "rollout_others": rollout_others, "cheat": cheat, "prior_c": prior_c,
            "widen": widen, "forum_threat": forum_threat, "paired": paired,
            "ahead": ahead})
        if final not in _FINAL_RULES:
            raise ValueError(f"final must be one of {', '.join(_FINAL_RULES)}, got {final!r}")
        self.final = final
        self.keep = keep
        self.cfg.rollout_others = _ROLLOUT_OTHERS[rollout_others]
        self.cfg.forum_threat = forum_threat
        self.cfg.paired = paired
        self.cfg.ahead = ahead
        self.cfg.solver = solver
        self.cfg.speed = speed
        self.cfg.vp_weight = vp
        self.cfg.belief = belief
        self.cfg.belief_strength = belief_strength
        self.cfg.omniscient = omniscient
        self.cfg.cheat = _CHEATS[cheat]
        self.cfg.algorithm = _ALGORITHMS[algorithm]
        self.cfg.iterations = iterations
        if time_ms > 0 and cpu_ms > 0:
            raise ValueError("give time_ms (wall time) or cpu_ms (the thread's CPU time), not both")
        self.cfg.time_limit = (cpu_ms or time_ms) / 1000.0
        self.cfg.cpu_clock = cpu_ms > 0
        self.cfg.c = c
        self.cfg.rollout = _ROLLOUTS[rollout]
        self.cfg.cutoff = cutoff
        self.cfg.reward = _REWARDS[reward]
        self.cfg.worlds = worlds
        self.cfg.epsilon = epsilon
        # a model of win chances gives calibrated logits: no VP scale applies to them
        self.cfg.temperature = temperature if model.output == "value" else 1.0
        self.cfg.rollout_temperature = rollout_temperature
        self.cfg.node_cap = node_cap
        self.cfg.prior_c = prior_c
        self.cfg.widen = widen
        self._priors = None if prior is None else {int(n): CompiledModel(m) for n, m in prior.items()}
        self._model = CompiledModel(model)
        self.cfg.model = self._model.m
        if self.cfg.algorithm == ALG_PIMC and worlds > node_cap:
            raise ValueError(f"PIMC needs a node per world: worlds ({worlds}) exceeds node_cap ({node_cap})")
        self.threads = threads
        self.reuse = reuse and self.cfg.algorithm == ALG_ISMCTS
        self.seed = seed
        self.turnwin = turnwin
        self.turnwin_worlds = turnwin_worlds
        if turnwin > 0 and not turn_win_scratch_new(&self.turnwin_scratch, turnwin_worlds):
            raise MemoryError("cannot allocate the root win search (turnwin)")
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
            if self._priors is not None and tree_prior_on(self.trees[i]) < 0:
                raise MemoryError(f"cannot allocate the priors of a search tree of {node_cap} nodes")

    def __dealloc__(self):
        cdef int i
        if self.trees != NULL:
            for i in range(self.ntrees):
                tree_free(self.trees[i])
            free(self.trees)
        turn_win_scratch_free(&self.turnwin_scratch)

    def search(self, State state, int player, uint64_t key, belief=None):
        """Search from `state` for `player` (who must be to move) and return the root
        statistics, best first (the bot plays the first row's action); they are also in
        last_stats with the totals. `key` seeds this search (the bot derives it from its
        seed and what the player knows, so searches reproduce). `belief` (used when the
        searcher deals belief > 1 candidate worlds): per player, a log-likelihood (<= 0)
        per card type of each hidden card in that player's hand, or None."""
        cdef int i
        cdef list tree_ids = list(range(self.ntrees))
        cdef long reused
        table = self._belief_table(state, player, belief)
        reused = self._follow(state, player) if self.reuse else -1
        self._turn_win_nodes = 0
        for i in range(self.ntrees):
            self._prepare(self.trees[i], state, player, i, key, reused >= 0)
            self._set_belief(self.trees[i], table)
        if self.turnwin > 0:
            won = self._turn_win(state, player)
            if won is not None:
                return won
        if self.threads > 1 and self.ntrees > 1:
            from concurrent.futures import ThreadPoolExecutor
            with ThreadPoolExecutor(max_workers=min(self.threads, self.ntrees)) as pool:
                list(pool.map(self._run_one, tree_ids))
        else:
            for i in tree_ids:
                self._run_one(i)
        self._raise_errors()
        stats = self._collect(state, player, max(reused, 0), key)
        self.last_stats["turn_win"] = None
        self.last_stats["turn_win_nodes"] = self._turn_win_nodes
        return stats

    cdef object _turn_win(self, State state, int player):
        # The root win search (turnwin=, docs/bots.md "A win within the turn"): a first move
        # that wins the rest of the turn by force in each of turnwin_worlds worlds the first
        # tree deals (what the player knows, never the true hidden cards). Found: the root
        # rows with it first, and no tree search (None otherwise; the trees' budget of time
        # is then what this search left).
        cdef Tree* t = self.trees[0]
        cdef uint64_t saved = t.rng
        cdef TurnWinBudget budget
        cdef int action, dealt = 0, i
        cdef double start, spent
        cdef bint cpu = self.cfg.cpu_clock
        start = gr_thread_cpu_seconds() if cpu else gr_now_seconds()
        budget.nodes = self.turnwin
        budget.cpu_clock = cpu
        budget.deadline = start + TURN_WIN_TIME_SHARE * self.cfg.time_limit if self.cfg.time_limit > 0 else 0
        t.rng = gr_rng_seed(saved ^ TURN_WIN_SEED)
        with nogil:
            action = root_turn_win(t, player, &self.turnwin_scratch, self.turnwin_worlds, &budget, &dealt)
        t.rng = saved
        spent = (gr_thread_cpu_seconds() if cpu else gr_now_seconds()) - start
        self._turn_win_nodes = self.turnwin - max(budget.nodes, 0)
        if action < 0:
            if self.cfg.time_limit > 0:
                for i in range(self.ntrees):
                    self.trees[i].cfg.time_limit = max(self.cfg.time_limit - spent,
                                                       self.cfg.time_limit * (1 - TURN_WIN_TIME_SHARE))
            return None
        if self.reuse:
            # no tree followed this move: the next search starts afresh
            for i in range(self.ntrees):
                self.trees[i].count = 0
            self._last_state = None
        n = num_players_c(state.s)
        order = [action] + [a for a in state.legal_actions() if a != action]
        stats = [{"action": a, "visits": 0, "available": 0, "mean_reward": [0.0] * n, "proven": None,
                  "proof_length": 0, "mean_length": 0.0} for a in order]
        self.last_stats = {"actions": stats, "iterations": 0, "seconds": spent, "nodes": 0, "reused_nodes": 0,
                           "trees": self.ntrees, "node_cap_reached": False, "tie_broken": False,
                           "certainty_conflicts": 0, "turn_win": action,
                           "turn_win_nodes": self._turn_win_nodes}
        return stats

    cdef object _belief_table(self, State state, int player, belief):
        # the evidence as a checked table [player][card type], or None without any
        cdef int n = num_players_c(state.s)
        if belief is None or self.cfg.belief <= 1:
            return None
        table = [[float(v) for v in row] for row in belief]
        if len(table) != n or any(len(row) != NUM_TYPES for row in table):
            raise ValueError(f"belief: {n} rows of {NUM_TYPES} log-likelihoods, one per player")
        if any(not -1e6 <= v <= 0 for row in table for v in row):
            raise ValueError("belief: log-likelihoods must be within -1e6..0")
        if not any(v for q, row in enumerate(table) if q != player for v in row):
            return None
        return table

    cdef void _set_belief(self, Tree* t, table) except *:
        cdef int q, x
        t.has_belief = table is not None
        if table is None:
            return
        for q in range(len(table)):
            for x in range(NUM_TYPES):
                t.belief[q][x] = table[q][x]

    def _run_one(self, int i):
        cdef Tree* t = self.trees[i]
        with nogil:
            run_tree(t)

    cdef void _prepare(self, Tree* t, State state, int player, int index, uint64_t key,
                       bint kept) except *:
        cdef uint64_t mix
        memcpy(&t.root, state.s, used_size(state.s))
        if not self.cfg.omniscient:
            reveal_cheat(&t.root, player, self.cfg.cheat)
            # what the player cannot see is put in a canonical order: the search depends only
            # on what the player knows (the cheating controls keep the true state, or the deck)
            if not self.cfg.cheat & CHEAT_DECK:
                canonicalize_hidden(&t.root, player)
        t.observer = player
        t.num_players = num_players_c(state.s)
        t.cfg = self.cfg
        if self._priors is not None:
            if t.num_players not in self._priors:
                raise ValueError(f"the prior has no model for {t.num_players} players "
                                 f"(it has {', '.join(map(str, sorted(self._priors)))})")
            t.cfg.prior_model = (<CompiledModel>self._priors[t.num_players]).m
        if self.cfg.iterations:
            # trees share the iterations; the first ones take the remainder
            t.cfg.iterations = self.cfg.iterations // self.ntrees + (1 if index < self.cfg.iterations % self.ntrees else 0)
        mix = gr_rng_seed(self.seed ^ (<uint64_t>index * <uint64_t>0x9E3779B97F4A7C15))   # wraps mod 2**64
        t.rng = gr_rng_seed(mix ^ key)
        if self.cfg.paired:
            t.pair_seed = gr_rng_seed(t.rng ^ PAIR_SALT)
            t.root_legal = legal_actions_into(&t.root, t.legal)
        t.iterations_done = 0
        t.seconds = 0
        t.full = 0
        t.certainty_conflicts = 0
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
            if t.error == SEARCH_OVERFLOW:
                raise RuntimeError(_overflow_message("the search"))
            if t.error == SEARCH_NO_MEMORY:
                raise MemoryError("no memory for the prior's cache of logits (prior=): lower node_cap")

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
        cdef State replay
        if last is None or player != self._last_player or last.config() != state.config():
            return None
        before = last.history()
        now = state.history()
        if len(now) < len(before) or now[:len(before)] != before:
            return None
        moves = now[len(before):]
        replay = last.clone()
        for action in moves:
            if action_names_hidden_card(replay.s, action, player):
                # (an opponent's Basilica vault from hand) following it down the tree
                # would use a card the player did not see
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
        if self.cfg.solver:
            # what is certain from the old root stays so from this node; the lines from
            # here are followed afresh from the new root
            t.nodes[0].flags |= F_CERTAIN
        return True

    # ---- results ----

    cdef object _collect(self, State state, int player, long reused, uint64_t key):
        # merge the root children of every tree (every PIMC world) by action, and order
        # them best first by the `final` rule (_order_rows)
        cdef int i, child, p, n = num_players_c(state.s)
        cdef Tree* t
        cdef Node* nd
        visits = {}
        rewards = {}
        avail = {}
        lengths = {}
        proofs = {}
        iterations = 0
        seconds = 0.0
        nodes = 0
        conflicts = 0
        for i in range(self.ntrees):
            t = self.trees[i]
            iterations += t.iterations_done
            seconds = max(seconds, t.seconds)
            nodes += t.count
            conflicts += t.certainty_conflicts
            for root in self._roots(t):
                child = t.nodes[root].first_child
                while child >= 0:
                    nd = &t.nodes[child]
                    a = nd.action
                    visits[a] = visits.get(a, 0) + nd.visits
                    avail[a] = avail.get(a, 0) + nd.avail
                    lengths[a] = lengths.get(a, 0.0) + nd.length
                    sums = rewards.setdefault(a, [0.0] * n)
                    for p in range(n):
                        sums[p] += nd.reward[p]
                    if nd.flags & (F_WIN | F_LOSS):
                        # a proof holds in every tree and world: keep the shortest win,
                        # the longest loss
                        won = bool(nd.flags & F_WIN)
                        steps = _proof_length(t, child, won)
                        known = proofs.get(a)
                        if known is None or (won and steps < known[1]) or (not won and steps > known[1]):
                            proofs[a] = ("win" if won else "loss", steps)
                    child = nd.next_sibling
        stats = []
        for a, v in visits.items():
            proof = proofs.get(a)
            stats.append({"action": a, "visits": v, "available": avail[a],
                          "mean_reward": [r / v if v else 0.0 for r in rewards[a]],
                          "proven": proof[0] if proof else None,
                          "proof_length": proof[1] if proof else 0,
                          "mean_length": lengths[a] / v if v else 0.0})
        tie_broken = _order_rows(stats, player, key, self.cfg.algorithm == ALG_FLATMC, self.final, self.keep)
        self.last_stats = {"actions": stats, "iterations": iterations, "seconds": seconds,
                           "nodes": nodes, "reused_nodes": reused, "trees": self.ntrees,
                           "node_cap_reached": any(self.trees[i].full for i in range(self.ntrees)),
                           "tie_broken": tie_broken, "certainty_conflicts": conflicts}
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

    def _tree(self, int index, bint flags=False):
        """Tree `index` as nested dicts from its root(s) (a list: one root, or one per PIMC
        world): action, mover, visits, available, reward (sums), children (in list order);
        with `flags`, also the solver's marks ("certain", "win", "loss", "decisive") and
        the sum of the game lengths backed up ("length"); with prior=, the node's prior
        ("prior") and the logits cached at it ("logits", by action)."""
        if not 0 <= index < self.ntrees:
            raise IndexError(f"no tree {index} (there are {self.ntrees})")
        cdef Tree* t = self.trees[index]
        return [_node_dict(t, root, flags) for root in self._roots(t)]

    def _sample_worlds(self, State state, int player, uint64_t key, belief, int count):
        """`count` worlds the first tree would search from `state` for `player` (seeded by
        `key`, dealt with `belief` as the search deals them): each as every player's hand
        (card ids, sorted; the player's own as it is)."""
        cdef Tree* t = self.trees[0]
        cdef int i
        table = self._belief_table(state, player, belief)
        self._prepare(t, state, player, 0, key, False)
        self._set_belief(t, table)
        worlds = []
        for i in range(count):
            with nogil:
                deal_world(t, &t.world)
            worlds.append(_world_hands(t))
        return worlds

    def _paired_worlds(self, State state, int player, uint64_t key, visits):
        """(paired=) The world the first tree deals for the k-th visit of a root action,
        for each k of `visits`, when searching `state` for `player` seeded by `key`: each
        as every player's hand (card ids, sorted)."""
        cdef Tree* t = self.trees[0]
        if not self.cfg.paired:
            raise ValueError("the worlds of paired visits need paired=true")
        self._prepare(t, state, player, 0, key, False)
        worlds = []
        for visit in visits:
            seed_visit(t, visit)
            with nogil:
                deal_world(t, &t.world)
            worlds.append(_world_hands(t))
        return worlds

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
