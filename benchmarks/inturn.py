"""In-turn suite: python benchmarks/inturn.py [--budgets 500,2000] [--bots ismcts,ismcts-off] [--out FILE]

Every position of benchmarks/data/inturn.jsonl.gz (made by `benchmarks/make_tactics.py
--inturn`: games other than the tactical suite's, 2 to 5 players, both modes) offers the
player to move a win within the turn whatever the others hold and do, and no winning first
move ends the game by itself: the rest of the turn must be won too. The bot plays each of
its decisions until the turn is over (one bot, seeded by the position's index, as in a
game); the others reply adversarially: a reply after which the bot no longer wins by force
(an exhaustive search of the rest of the turn in the true position,
`glory_ai.bots._search._turn_win_holds`), when there is one (the bot erred), else the move
of a one-ply heuristic player. Solved: the bot has won alone before the turn ends.

Prints a provenance line, then, for each bot and budget, the share solved with its 95%
Wilson interval, overall and by mode, by player count, and the share of the bot's
decisions the root win search played (turnwin=). `--deals N` instead checks the suite's
definition on N other deals of each position (determinizations for the mover, seeds of
their own): it prints the positions in which, in some of them, no winning first move of
the suite wins the turn by force. Bots: ismcts (the default: the root win
search on), ismcts-turnwin (turnwin=100000 written out), ismcts-off (turnwin=0: the defaults
before the root win search), pimc
(`worlds=10`), pimc-turnwin (`worlds=10,turnwin=100000`); or any spec
with `{n}` for the budget after `--spec`.
"""
from __future__ import annotations

import argparse
import sys
import time
from collections import defaultdict
from pathlib import Path

import glory_ai
from glory_ai.bots import make_bot
from glory_ai.bots._search import _turn_win_holds

sys.path.insert(0, str(Path(__file__).parent))
from tactics import describe, load, per_cell  # noqa: E402  (the tactical suite's reader and intervals)

DATA = Path(__file__).parent / "data" / "inturn.jsonl.gz"
BOTS = {
    "ismcts": "ismcts:iters={n}",
    "ismcts-turnwin": "ismcts:iters={n},turnwin=100000",
    "ismcts-off": "ismcts:iters={n},turnwin=0",
    "pimc": "pimc:iters={n},worlds=10",
    "pimc-turnwin": "pimc:iters={n},worlds=10,turnwin=100000",
}
#: the exhaustive search behind an adversarial reply gives up past this many positions
REPLY_NODES = 200_000


def reply(state: glory_ai.State, player: int, fallback) -> int:
    """An opponent's move: one after which `player` no longer wins the turn by force,
    if any, else the fallback bot's."""
    legal = state.legal_actions()
    if len(legal) > 1:
        for action in legal:
            after = state.clone()
            after.apply_action(action)
            if _turn_win_holds(after, player, REPLY_NODES) is False:
                return action
    return fallback.step(state)


def play_turn(spec: str, row: dict, seed: int) -> tuple[bool, int, int]:
    """Play the rest of the position's turn: (solved, the bot's decisions, those the
    root win search played)."""
    state = glory_ai.State.from_dict(row["position"])
    player, turn = row["player"], state.turn_number()
    bot = make_bot(spec, seed=seed)
    others = make_bot("heuristic:style=builder", seed=seed)
    decisions = by_turnwin = 0
    while not state.is_terminal() and state.turn_number() == turn:
        if state.current_player() == player:
            action = bot.step(state)
            info = bot.last_search()
            decisions += 1
            by_turnwin += bool(info and info.get("turn_win") is not None)
        else:
            action = reply(state, player, others)
        state.apply_action(action)
    return state.is_terminal() and state.winners() == [player], decisions, by_turnwin


def check_deals(positions: list[dict], deals: int) -> None:
    """Print the positions where, in some of `deals` other deals of the hidden cards, no
    winning first move of the suite wins the rest of the turn by force."""
    failing, undecided = [], 0
    for row in positions:
        state, player = glory_ai.State.from_dict(row["position"]), row["player"]
        lost = 0
        for deal in range(deals):
            world = state.determinize(player, 100_003 * deal + 12_345)
            found = []
            for action in row["wins"]:
                after = world.clone()
                after.apply_action(action)
                found.append(_turn_win_holds(after, player, REPLY_NODES))
            undecided += None in found and True not in found
            lost += True not in found
        if lost:
            failing.append(f"{row['id']} ({lost})")
    print(f"{len(failing)} of {len(positions)} positions have deals, of {deals} each, where no winning "
          f"first move of the suite wins the turn (in how many): {', '.join(failing) or 'none'}; "
          f"{undecided} deals undecided within {REPLY_NODES:,} positions (counted as not won)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budgets", default="500,2000", help="iterations per move (500,2000)")
    parser.add_argument("--bots", default="ismcts,ismcts-off", help=f"bots to run: {', '.join(BOTS)}")
    parser.add_argument("--spec", action="append", default=[],
                        help="another bot: a spec with {n} for the budget (repeatable)")
    parser.add_argument("--limit", type=int, default=0, help="the first N positions only")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--deals", type=int, default=0,
                        help="check the suite on N other deals of each position instead (0: no)")
    args = parser.parse_args()
    from glory_ai.bench import provenance

    print(provenance(), flush=True)
    positions = load(args.data)[:args.limit or None]
    if args.deals:
        check_deals(positions, args.deals)
        return
    specs = {name: BOTS[name] for name in args.bots.split(",") if name}
    specs.update({spec: spec for spec in args.spec})
    print(f"{len(positions)} positions: {per_cell(positions)}")
    print(f"{'bot':<14} {'iters':>6}  {'solved [95% CI]':<22} {'republic':<22} {'imperium':<22}"
          f" {'2/3/4/5 players':<16} turnwin  seconds")
    for name, spec in specs.items():
        for n in (int(b) for b in args.budgets.split(",")):
            start = time.time()
            hits, by_mode, by_players = [], defaultdict(list), defaultdict(list)
            decisions = by_turnwin = 0
            for i, row in enumerate(positions):
                hit, made, found = play_turn(spec.format(n=n), row, args.seed + i)
                hits.append(hit)
                by_mode[row["mode"]].append(hit)
                by_players[row["num_players"]].append(hit)
                decisions += made
                by_turnwin += found
            shares = "/".join(f"{100 * sum(v) / len(v):.0f}" for _, v in sorted(by_players.items()))
            print(f"{name:<14} {n:>6}  {describe(hits):<22} {describe(by_mode['republic']):<22}"
                  f" {describe(by_mode['imperium']):<22} {shares:<16}"
                  f" {100 * by_turnwin / max(1, decisions):5.1f}%  {time.time() - start:7.0f}", flush=True)


if __name__ == "__main__":
    main()
