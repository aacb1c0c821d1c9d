# Wins within the turn (the tactical suite, benchmarks/make_tactics.py): an exhaustive
# search of whether the player to move wins alone, by force, before the turn is over.
# Independent of the tree search: the tests prove the suite's winning moves with it.
#
# Included by _search.pyx.

cdef enum:
    TURN_WIN_DEPTH = 64      # decisions followed at most (a turn is rarely longer)

cdef int turn_win_search(GameState* s, int player, uint32_t turn, GameState* stack,
                         uint16_t* legal, int depth, long* budget) noexcept nogil:
    # Does `player` win alone, by force, before the turn `turn` is over? Its own decisions
    # are choices (one winning move suffices), everyone else's are replies (every one must
    # fail to stop it). 1 yes, 0 no, -1 the node budget ran out, -2 a move exceeded an
    # engine capacity.
    cdef int n, i, result
    cdef bint own
    cdef GameState* child
    cdef uint16_t* moves
    if is_terminal_c(s):
        return 1 if winners_mask_of(s) == (1 << player) else 0
    if turn_number_c(s) != turn or depth >= TURN_WIN_DEPTH:
        return 0
    budget[0] -= 1
    if budget[0] < 0:
        return -1
    moves = &legal[depth * MAX_LEGAL]
    n = legal_actions_into(s, moves)
    if n <= 0:
        return 0
    own = current_player_c(s) == player
    child = &stack[depth]
    for i in range(n):
        memcpy(child, s, used_size(s))
        if apply_action_c(child, moves[i]) == -2:
            return -2
        result = turn_win_search(child, player, turn, stack, legal, depth + 1, budget)
        if result < 0:
            return -1
        if own and result == 1:
            return 1
        if not own and result == 0:
            return 0
    return 0 if own else 1


def _turn_wins(State state, long max_nodes=1_000_000):
    """The actions of the player to move after which it wins alone by force before the
    current turn ends (its own later decisions are choices, everyone else's are replies),
    searched exhaustively in `state` as it is (true hidden cards included: call it on
    determinizations to ask about an information set), lines followed TURN_WIN_DEPTH (64)
    decisions deep. None when the search would take more than `max_nodes` positions or
    the game is over."""
    cdef GameState* stack
    cdef uint16_t* legal
    cdef GameState* child
    cdef uint16_t first[MAX_LEGAL]
    cdef long budget = max_nodes
    cdef int n, i, result, player
    cdef uint32_t turn
    if is_terminal_c(state.s):
        return None
    player = current_player_c(state.s)
    turn = turn_number_c(state.s)
    stack = <GameState*>malloc((TURN_WIN_DEPTH + 1) * sizeof(GameState))
    legal = <uint16_t*>malloc((TURN_WIN_DEPTH + 1) * MAX_LEGAL * sizeof(uint16_t))
    child = <GameState*>malloc(sizeof(GameState))
    try:
        if stack == NULL or legal == NULL or child == NULL:
            raise MemoryError()
        wins = []
        with nogil:
            n = legal_actions_into(state.s, first)
        for i in range(n):
            with nogil:
                memcpy(child, state.s, used_size(state.s))
                result = -2 if apply_action_c(child, first[i]) == -2 else turn_win_search(
                    child, player, turn, stack, legal, 1, &budget)
            if result == -2:
                raise RuntimeError(_overflow_message("the search of wins within the turn"))
            if result < 0:
                return None
            if result == 1:
                wins.append(first[i])
        return sorted(wins)
    finally:
        free(stack)
        free(legal)
        free(child)
