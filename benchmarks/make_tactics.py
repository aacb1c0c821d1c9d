"""Find the tactical suite: python benchmarks/make_tactics.py [--per-cell N] [--out FILE] [--inturn]

Plays games between noisy one-ply styles (2 to 5 players, Republic and Imperium) and keeps
the decisions where the player to move can win alone within the turn whatever the others
hold and do: an exhaustive search of the rest of the turn (the mover's decisions are
choices, everyone else's are replies: `glory_ai.bots._search._turn_wins`) finds the same
non-empty set of winning first moves in the true position and in every one of `--worlds`
determinizations for the mover, and not every legal move wins. At most `--per-game`
positions of a game, in different turns (the first decision of the turn that has one),
`--per-cell` positions per player count and mode.

Writes benchmarks/data/tactics.jsonl.gz: one position a line, in the `State.to_dict`
format, with its winning first moves (ids and strings); benchmarks/tactics.py reads it.

`--inturn` finds the in-turn suite instead (benchmarks/data/inturn.jsonl.gz, read by
benchmarks/inturn.py): the same test on other games (seeds from `--seed-base`, 20,000 on),
keeping only positions where no winning first move ends the game by itself, so that the
player must win the rest of the turn too, one position a game, 25 per cell:

    python benchmarks/make_tactics.py --inturn
"""
from __future__ import annotations

import argparse
import gzip
import json
import time
from pathlib import Path

import glory_ai
from glory_ai.bots import make_bot
from glory_ai.bots._search import _turn_wins

DATA = Path(__file__).parent / "data" / "tactics.jsonl.gz"
INTURN = Path(__file__).parent / "data" / "inturn.jsonl.gz"
#: --inturn: the first game seed past those of the tactical suite (which uses 0..max-games)
INTURN_SEED_BASE = 20_000
STYLES = ("builder", "merchant", "legionary", "patron", "builder")
#: positions searched past these budgets are left out (undecided, not "no win")
NODES_FIRST = 20_000
NODES_CHECK = 200_000


def verified_wins(state: glory_ai.State, worlds: int) -> list[int] | None:
    """The winning first moves, the same in the true state and in `worlds`
    determinizations for the mover; None if they differ or a search is undecided."""
    mover = state.current_player()
    found = _turn_wins(state, NODES_CHECK)
    if not found:
        return None
    for seed in range(worlds):
        if _turn_wins(state.determinize(mover, 7919 * seed + 1), NODES_CHECK) != found:
            return None
    return found


def immediate(state: glory_ai.State, action: int) -> bool:
    after = state.clone()
    after.apply_action(action)
    return after.is_terminal()


def positions_of_game(num_players: int, mode: str, seed: int, worlds: int, per_game: int,
                      whole_turn: bool = False):
    """(state, winning moves) of one game's tactical positions: the first of a turn, at
    most `per_game`; with `whole_turn`, only those where no winning move ends the game by
    itself."""
    state = glory_ai.Game(num_players, mode=mode).new_initial_state(seed)
    bots = [make_bot(f"heuristic:style={STYLES[(seed + p) % len(STYLES)]},epsilon=0.15", seed=seed * 7 + p)
            for p in range(num_players)]
    seen = set()
    while not state.is_terminal():
        legal = state.legal_actions()
        key = state.turn_number()
        if len(seen) >= per_game:
            return
        if len(legal) > 1 and key not in seen:
            quick = _turn_wins(state, NODES_FIRST)
            if quick and len(quick) < len(legal):
                wins = verified_wins(state, worlds)
                if wins and len(wins) < len(legal) and not (
                        whole_turn and any(immediate(state, a) for a in wins)):
                    seen.add(key)
                    yield state.clone(), wins
        state.apply_action(bots[state.current_player()].step(state))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-cell", type=int, default=None,
                        help="positions per player count and mode (50; --inturn 25)")
    parser.add_argument("--worlds", type=int, default=8, help="determinizations that must agree (8)")
    parser.add_argument("--per-game", type=int, default=None,
                        help="positions of one game at most (2; --inturn 1)")
    parser.add_argument("--max-games", type=int, default=1000, help="games per cell at most (1000)")
    parser.add_argument("--out", type=Path, default=None, help=f"(default {DATA} or, --inturn, {INTURN})")
    parser.add_argument("--inturn", action="store_true",
                        help="the in-turn suite: positions whose win takes more than its first move, "
                             f"other seeds (--seed-base {INTURN_SEED_BASE}), --per-game 1 --per-cell 25")
    parser.add_argument("--seed-base", type=int, default=None, help="added to every game seed (0)")
    args = parser.parse_args()
    if args.per_cell is None:
        args.per_cell = 25 if args.inturn else 50
    if args.per_game is None:
        args.per_game = 1 if args.inturn else 2
    seed_base = args.seed_base if args.seed_base is not None else (INTURN_SEED_BASE if args.inturn else 0)
    out = args.out or (INTURN if args.inturn else DATA)
    start = time.time()
    rows = []
    for num_players in (2, 3, 4, 5):
        for mode in ("republic", "imperium"):
            cell = []
            for game in range(args.max_games):
                seed = 100_000 * num_players + (0 if mode == "republic" else 50_000) + seed_base + game
                for state, wins in positions_of_game(num_players, mode, seed, args.worlds, args.per_game,
                                                     args.inturn):
                    cell.append({
                        "id": f"{num_players}p-{mode}-{seed}-t{state.turn_number()}"
                              f"-p{state.current_player()}",
                        "num_players": num_players, "mode": mode, "player": state.current_player(),
                        "legal": len(state.legal_actions()),
                        "wins": wins, "win_strings": [state.action_to_string(a) for a in wins],
                        "immediate": all(immediate(state, a) for a in wins),
                        "position": state.to_dict()})
                if len(cell) >= args.per_cell:
                    break
            cell = cell[:args.per_cell]
            rows.extend(cell)
            print(f"{num_players} players, {mode}: {len(cell)} positions from {game + 1} games "
                  f"({sum(r['immediate'] for r in cell)} won by the first move itself), "
                  f"{time.time() - start:.0f} s",
                  flush=True)
    out.parent.mkdir(parents=True, exist_ok=True)
    text = "".join(json.dumps(row, sort_keys=True) + "\n" for row in rows)
    with gzip.GzipFile(out, "wb", mtime=0) as f:      # no timestamp: the same bytes each run
        f.write(text.encode())
    print(f"{len(rows)} positions written to {out}")


if __name__ == "__main__":
    main()
