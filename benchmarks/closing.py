"""Closing benchmark: python benchmarks/closing.py [--positions N] [--iters N] [--bots ...] [--seed S]

From won positions, how many turns does a search bot take to end the game, and how often
does it think instead? A won position is a decision to lead, in a game between two noisy
one-ply styles, where the leader is at least 15 VP ahead of everyone and has the means to
end the game: an incomplete Catacomb of its own, at most 3 in-town sites left, or at most
20 cards in the deck (thinking drains it). The first such decision of each game is kept
(2 and 3 players, Republic). From there the bot plays the leader's seat and the styles of
the game play the others, to the end (at most 300 turns).

Prints per bot: the median and mean number of turns to the end (with a 95% bootstrap
interval of the median), the share of games the leader still won, the share of its lead
decisions that were thinks and Jacks taken, and how many of its decisions were exact ties
(the first two root actions equal in visits and mean reward) and how those were broken: by
the lowest action id (final=visits) or by chance (final=robust). The target: the new
default closes the median won position in at most a third of the turns of the plain one.

`--runs R` plays every position R times (the seeds of the play-out `--seed` to `--seed` +
R - 1): the median is then over every play (its interval resamples positions with their R
plays), and "best of R" is the median over positions of the fewest turns any of a
position's R plays took, a ceiling that no single run is likely to reach. `--by-means`
adds a table per kind of won position (2 or 3 players; an own Catacomb under way, else the
in-town sites left, else the deck): how many positions, their median turns and the share
closed within 3 turns. `--strict` takes another set: won positions where the leader holds
the means in hand (a card of the right material for every in-town site left, at most three,
or the Stone its own Catacomb lacks), so that the turns measure closing rather than drawing.
"""
from __future__ import annotations

import argparse
import random
import statistics
import time

import glory_ai
from glory_ai.bots import make_bot
from glory_ai.cards import CARD_MATERIAL, MATERIAL_VALUE, MATERIALS, card_id, material_id

PLAIN = "c=0.7,cutoff=40,solver=false,speed=0,vp=0,final=visits,eval=style,turnwin=0"
BOTS = {"ismcts": "ismcts:iters={n}", "ismcts-plain": "ismcts:iters={n}," + PLAIN}
STYLES = ("builder", "merchant", "legionary", "patron")
LEAD = 15
MAX_TURNS = 300


def _catacomb_under_way(state: glory_ai.State, player: int) -> bool:
    return any(s["building"] == "Catacomb" and not s["complete"]
               for s in state.to_dict()["players"][player]["structures"])


def _in_town_left(state: glory_ai.State) -> int:
    return sum(state.to_dict()["sites"]["in_town"].values())


def _material(card: str) -> str:
    return MATERIALS[CARD_MATERIAL[card_id(card)]]


def _holds_the_means(state: glory_ai.State, player: int) -> bool:
    """--strict: the player holds in hand what ends the game by its own foundations or
    materials: a card of the site's material for every in-town site left (at most 3), or,
    with a Catacomb of its own under way, the Stone cards (hand and stockpile) it lacks."""
    position = state.to_dict()
    mine = position["players"][player]
    in_hand = [_material(card) for card in mine["hand"] if card != "Jack"]
    left = position["sites"]["in_town"]
    if 0 < sum(left.values()) <= 3 and all(in_hand.count(m) >= n for m, n in left.items() if n):
        return True
    stone = in_hand.count("Stone") + [_material(card) for card in mine["stockpile"]].count("Stone")
    lacking = MATERIAL_VALUE[material_id("Stone")]
    return any(s["building"] == "Catacomb" and not s["complete"] and stone >= lacking - len(s["materials"])
               for s in mine["structures"])


def won_position(num_players: int, seed: int, strict: bool = False
                 ) -> tuple[glory_ai.State, list[str]] | None:
    """The first won position of one game between noisy styles (and the styles), or None;
    `strict`: one where the leader holds the means in hand (_holds_the_means)."""
    rng = random.Random(seed)
    styles = [rng.choice(STYLES) for _ in range(num_players)]
    bots = [make_bot(f"heuristic:style={style},epsilon=0.1", seed=seed * 11 + p)
            for p, style in enumerate(styles)]
    state = glory_ai.Game(num_players).new_initial_state(seed)
    while not state.is_terminal():
        player = state.current_player()
        if state.phase() == "lead":
            scores = state.scores()
            lead = scores[player] - max(s for q, s in enumerate(scores) if q != player)
            if strict:
                if lead >= LEAD and _holds_the_means(state, player):
                    return state.clone(), styles
            elif lead >= LEAD and (_catacomb_under_way(state, player) or _in_town_left(state) <= 3
                                   or state.deck_size() <= 20):
                return state.clone(), styles
        state.apply_action(bots[player].step(state))
    return None


def close(spec: str, state: glory_ai.State, styles: list[str], seed: int) -> dict:
    """Play the position out with `spec` in the leader's seat."""
    leader = state.current_player()
    state = state.clone()
    bot = make_bot(spec, seed=seed)
    others = {q: make_bot(f"heuristic:style={styles[q]},epsilon=0.1", seed=seed * 13 + q)
              for q in range(state.num_players()) if q != leader}
    start_turn = state.turn_number()
    leads = thinks = jacks = ties = by_id = by_chance = decisions = 0
    while not state.is_terminal() and state.turn_number() - start_turn < MAX_TURNS:
        player = state.current_player()
        if player != leader:
            state.apply_action(others[player].step(state))
            continue
        action = bot.step(state)
        info = bot.last_search()
        if info is not None:
            decisions += 1
            rows = info["actions"]
            first, second = (rows + [None])[:2]
            if (second is not None and first["visits"] == second["visits"] and not first.get("proven")
                    and first["mean_reward"][leader] == second["mean_reward"][leader]):
                ties += 1
                if info.get("tie_broken"):
                    by_chance += 1
                elif first["action"] < second["action"]:
                    by_id += 1
        if state.phase() == "lead":
            leads += 1
            text = state.action_to_string(action)
            thinks += text.startswith("think")
            jacks += text == "think: take Jack"
        state.apply_action(action)
    return {"turns": state.turn_number() - start_turn, "over": state.is_terminal(),
            "won": state.is_terminal() and leader in state.winners(), "leads": leads, "thinks": thinks,
            "jacks": jacks, "decisions": decisions, "ties": ties, "by_id": by_id, "by_chance": by_chance}


def median_interval(turns: list[list[int]], draws: int = 2000) -> tuple[float, float]:
    """A 95% bootstrap interval of the median over every play, resampling positions (each
    with all its plays)."""
    rng = random.Random(1)
    medians = sorted(statistics.median([t for plays in rng.choices(turns, k=len(turns)) for t in plays])
                     for _ in range(draws))
    return medians[int(0.025 * draws)], medians[int(0.975 * draws) - 1]


def means_of(state: glory_ai.State) -> str:
    """The kind of won position: its player count and how the leader can end the game."""
    sites = _in_town_left(state)
    if _catacomb_under_way(state, state.current_player()):
        means = "own Catacomb"
    elif sites <= 3:
        means = f"{sites} in-town site{'s' if sites != 1 else ''}"
    else:
        means = "deck <= 20"
    return f"{state.num_players()}p, {means}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=60,
                        help="won positions (60: half 2, half 3 players)")
    parser.add_argument("--iters", type=int, default=1000, help="iterations per move (1000)")
    parser.add_argument("--bots", default="ismcts,ismcts-plain", help=f"bots: {', '.join(BOTS)}")
    parser.add_argument("--seed", type=int, default=0,
                        help="seed offset of the bots of the play-out (the bot and the styles); "
                             "the positions stay the same (0)")
    parser.add_argument("--runs", type=int, default=1,
                        help="plays of every position, seeds --seed onwards (1)")
    parser.add_argument("--strict", action="store_true",
                        help="won positions where the leader holds the means in hand: a card for every "
                             "in-town site left, or the Stone its Catacomb lacks (another position set)")
    parser.add_argument("--by-means", action="store_true",
                        help="a table per kind of won position (player count and means to end)")
    parser.add_argument("--spec", action="append", default=[],
                        help="another bot: a spec with {n} (repeatable)")
    args = parser.parse_args()
    if args.runs < 1 or args.positions < 1:
        parser.error("--runs and --positions must be at least 1")
    positions = []
    seed = 0
    while len(positions) < args.positions:
        num_players = 2 + seed % 2
        found = won_position(num_players, 500 + seed, args.strict)
        if found is not None:
            positions.append(found)
        seed += 1
    means = "the means to end the game in hand" if args.strict else "the means to end the game"
    print(f"{len(positions)} won positions from {seed} games (lead >= {LEAD} VP, {means})")
    specs = {name: BOTS[name] for name in args.bots.split(",") if name}
    specs.update({spec: spec for spec in args.spec})
    best_header = f" {'best of ' + str(args.runs):>10}" if args.runs > 1 else ""
    print(f"{'bot':<14} {'median turns [95% CI]':<24} {'mean':>6}{best_header} {'won':>6} {'thinks':>7}"
          f" {'jacks':>6} {'ties':>6} {'by id':>6} {'by chance':>9}  seconds")
    kinds = [means_of(state) for state, _ in positions]
    by_means: dict[str, list[list[int]]] = {}
    for name, spec in specs.items():
        start = time.time()
        results = [[close(spec.format(n=args.iters), state, styles, i + 1000 * (args.seed + run))
                    for run in range(args.runs)]
                   for i, (state, styles) in enumerate(positions)]
        turns = [[r["turns"] for r in plays] for plays in results]
        by_means[name] = turns
        flat = [r for plays in results for r in plays]
        every = [r["turns"] for r in flat]
        low, high = median_interval(turns)
        leads = sum(r["leads"] for r in flat)
        decisions = sum(r["decisions"] for r in flat)
        best = f" {statistics.median(min(plays) for plays in turns):>10.1f}" if args.runs > 1 else ""
        print(f"{name:<14} {statistics.median(every):>6.1f} [{low:.1f}, {high:.1f}]{'':<9}"
              f" {statistics.mean(every):>6.1f}{best}"
              f" {100 * sum(r['won'] for r in flat) / len(flat):>5.0f}%"
              f" {100 * sum(r['thinks'] for r in flat) / max(1, leads):>6.0f}%"
              f" {100 * sum(r['jacks'] for r in flat) / max(1, leads):>5.0f}%"
              f" {sum(r['ties'] for r in flat):>6} {sum(r['by_id'] for r in flat):>6}"
              f" {sum(r['by_chance'] for r in flat):>9}  {time.time() - start:7.0f}"
              f"   ({decisions} decisions, {leads} leads)", flush=True)
    if args.by_means:
        print(f"\n{'kind of won position':<24} {'positions':>9}  " + "  ".join(
            f"{name + ': median, <= 3 turns':>30}" for name in specs))
        for kind in sorted(set(kinds)):
            rows = [i for i, k in enumerate(kinds) if k == kind]
            cells = []
            for name in specs:
                every = [t for i in rows for t in by_means[name][i]]
                within = 100 * sum(t <= 3 for t in every) / len(every)
                cells.append(f"{statistics.median(every):>20.1f}, {within:>6.0f}%")
            print(f"{kind:<24} {len(rows):>9}  " + "  ".join(f"{c:>30}" for c in cells))


if __name__ == "__main__":
    main()
