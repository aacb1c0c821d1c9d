"""Whether one action can end the game (R-11): the engine's filters for a search looking for a
decisive move (engine.pxd: may_end_now, every_action_may_end, action_may_end; exposed to
tests as State._may_end_now and State._actions_that_may_end), held to playing every legal
action on a copy. They may keep an action that does not end the game, never drop one that
does; may_end_now has known blind spots (a Forum a Gate, Stairway or Prison makes active
at once, a Catacomb a Scriptorium completes), listed here so that closing them shows."""
import itertools
import random
import re
from pathlib import Path

import pytest

import glory_ai
from glory_ai.bots import make_bot
from support.cards import MATERIALS
from support.positions import built, done, foundation, play, state_of

ROOT = Path(__file__).resolve().parents[2]


def endings(state: glory_ai.State) -> dict[int, tuple[str, list[int]]]:
    """Every legal action that ends the game: its end reason and winners."""
    out = {}
    for action in state.legal_actions():
        after = state.clone()
        after.apply_action(action)
        if after.is_terminal():
            out[action] = (str(after.end_reason()), after.winners())
    return out


def check_filters(state: glory_ai.State) -> dict[int, tuple[str, list[int]]]:
    """The filters agree with playing every action: each ending action is kept, and where
    one ends the game with the player to move among the winners, may_end_now says so."""
    ends = endings(state)
    kept = state._actions_that_may_end()
    assert set(kept) <= set(state.legal_actions())
    missed = set(ends) - set(kept)
    assert not missed, [state.action_to_string(a) for a in missed]
    player = state.current_player()
    if any(player in winners for _, winners in ends.values()):
        assert state._may_end_now(player), state.to_dict()
    return ends


# ---- positions ------------------------------------------------------------------------------

def deck_nearly_empty() -> glory_ai.State:
    """P0 to lead with 2 cards in hand and 2 in the deck: a refill draws both and ends the
    game (R-11.1(1)); taking a Jack does not."""
    return state_of(2, [{"hand": ["Bar", "Dock"]}, {"hand": ["Road"] * 5}], deck=["Temple", "Villa"])


def last_in_town_site() -> glory_ai.State:
    """P0's Architect action with one in-town site left (a Marble one): laying the Temple
    ends the game (R-11.1(2))."""
    stacks = {"in_town": {m: 0 for m in MATERIALS}}
    stacks["in_town"]["Marble"] = 1
    state = state_of(2, [
        {"hand": ["Tower", "Temple"], "clientele": ["Wall"], "stockpile": ["Road"],
         "structures": [foundation("Insula")]},
        {"hand": ["Aqueduct", "Palace"],
         "influence": ["Rubble", "Wood", "Wood", "Concrete", "Concrete", "Brick", "Brick",
                       "Stone", "Stone", "Marble"]},
    ], sites=stacks)
    play(state, "lead Architect with Tower", "follow Architect with Aqueduct")
    return state


def catacomb_one_short() -> glory_ai.State:
    """P0's Architect action; its Catacomb lacks one material, the Garden in its stockpile
    (R-11.1(3)): adding it ends the game with P0 ahead."""
    state = state_of(2, [
        {"hand": ["Tower", "Bath", "Dock"], "stockpile": ["Garden", "Bath"], "influence": ["Stone", "Stone"],
         "structures": [foundation("Catacomb", ["Villa", "Prison"])]},
        {"hand": ["Dock", "Market", "Road"], "influence": ["Stone", "Concrete"]},
    ])
    play(state, "lead Architect with Tower", "think: take Jack")
    return state


def forum_romanum_one_client_short() -> glory_ai.State:
    """P0's Patron action (Republic): its Forum Romanum is built, its clients cover every
    role but Patron and its stockpile holds every material; hiring the Temple from the
    pool wins at once (R-11.2)."""
    state = state_of(2, [
        {"hand": ["Palace", "Scriptorium", "Road", "Dock"],
         "clientele": ["Bar", "Market", "Tower", "Bath", "Villa"],
         "stockpile": ["Latrine", "Crane", "Wall", "School", "Garden", "Statue"],
         "influence": ["Stone", "Stone", "Marble"],
         "structures": [built("Forum Romanum", ["Statue", "Statue", "Stairway"]),
                        built("Insula", ["Insula"])]},
        {"hand": ["Aqueduct", "Atrium", "Academy"], "influence": ["Brick", "Stone"]},
    ], pool=["Temple", "Palisade", "Foundry", "Shrine", "Storeroom"])
    play(state, "lead Patron with Palace", "think: take Jack")
    return state


def gate_and_forum_in_hand() -> glory_ai.State:
    """P0's Craftsman action (Imperium): its Gate is built, its clients cover every role,
    the Forum is in its hand. Laid with the Gate active, the Forum is active at once
    (R-9.1.6) and P0 wins (R-11.2)."""
    state = state_of(2, [
        {"hand": ["Forum", "Dock", "Market"],
         "clientele": ["Road", "Bridge", "Palisade", "Shrine", "Garden", "Temple"],
         "influence": ["Stone", "Stone", "Marble"], "structures": [done("Gate")]},
        {"hand": ["Bar", "Insula", "Latrine"], "influence": ["Stone", "Concrete"]},
    ], mode="imperium")
    play(state, "lead Craftsman with Dock", "think: take Jack")
    return state


def scriptorium_and_catacomb() -> glory_ai.State:
    """P0's Architect action: its Scriptorium is built and its Catacomb has one material of
    three; adding the Temple (Marble) from the stockpile completes it at once and ends the
    game with P0 ahead."""
    state = state_of(2, [
        {"hand": ["Tower", "Bath", "Dock"], "stockpile": ["Temple", "Bath"],
         "influence": ["Stone", "Stone", "Stone"],
         "structures": [done("Scriptorium"), foundation("Catacomb", ["Villa"])]},
        {"hand": ["Dock", "Market", "Road"], "influence": ["Stone", "Concrete"]},
    ])
    play(state, "lead Architect with Tower", "think: take Jack")
    return state


def legionary_fills_the_stockpile(lead: str = "Legionary") -> glory_ai.State:
    """P0 (Republic): its Forum Romanum is built and its clients cover every role; its
    stockpile lacks Brick and Stone. Leading Legionary (a batch of two with its Bath
    client), P0 has revealed the Atrium (Brick); revealing the Garden (Stone) makes P1 give
    its only Brick and Stone (R-8.5.6, forced) and P0 wins (R-11.2). With `lead` Laborer,
    P0's action takes one card from the pool (a Brick and a Stone there)."""
    state = state_of(2, [
        {"hand": ["Shrine", "Atrium", "Garden", "Road"],
         "clientele": ["Bar", "Market", "Tower", "Bath", "Villa", "Temple"],
         "stockpile": ["Latrine", "Crane", "Wall", "Statue"],
         "influence": ["Stone", "Stone", "Marble"],
         "structures": [built("Forum Romanum", ["Statue", "Statue", "Stairway"])]},
        {"hand": ["Foundry", "Prison", "Dock"], "influence": ["Brick", "Stone"]},
    ], pool=["Palisade"] if lead == "Legionary" else ["School", "Scriptorium"])
    if lead == "Legionary":
        play(state, "lead Legionary with Shrine", "think: take Jack", "legionary: reveal Atrium")
    else:
        play(state, "lead Laborer with Road", "think: take Jack")
    return state


def ludus_magnus_completes(foundation_laid: bool = True) -> glory_ai.State:
    """P0's Craftsman action (Imperium): its Forum is built; its clients cover every role
    but Patron, with two Merchants (Villa, Prison), one of them wild only with Ludus Magnus
    active. Adding the Temple completes its Ludus Magnus (two of three materials) and P0
    wins (R-11.2). Without that foundation no Ludus Magnus can be active after one action."""
    structures = [done("Forum")]
    if foundation_laid:
        structures.append(foundation("Ludus Magnus", ["Palace", "Palace"]))
    state = state_of(2, [
        {"hand": ["Dock", "Temple", "Road"],
         "clientele": ["Bar", "Market", "Tower", "Bath", "Villa", "Prison"],
         "influence": ["Stone", "Stone", "Marble"], "structures": structures},
        {"hand": ["Bar", "Insula", "Latrine"], "influence": ["Stone", "Concrete"]},
    ], mode="imperium")
    play(state, "lead Craftsman with Dock", "think: take Jack")
    return state


# ---- the filters on positions that end ------------------------------------------------------

@pytest.mark.parametrize("make, action, reason", [
    (deck_nearly_empty, "think: refill", "deck"),
    (last_in_town_site, "architect: lay Temple", "sites"),
    (catacomb_one_short, "architect: add Garden to Catacomb", "catacomb"),
    (forum_romanum_one_client_short, "patron: hire Temple from pool", "forum"),
])
def test_each_way_to_end_the_game_is_seen(make, action, reason):
    state = make()
    ends = check_filters(state)
    ending = state.string_to_action(action)
    assert ends[ending][0] == reason
    assert state._may_end_now(state.current_player())
    assert ending in state._actions_that_may_end()


def test_the_filters_keep_little_where_nothing_ends():
    # a think that takes a Jack draws nothing; the first decision of a game cannot end it
    state = deck_nearly_empty()
    assert state._actions_that_may_end() == [state.string_to_action("think: refill")]
    for players in (2, 5):
        state = glory_ai.Game(players).new_initial_state(seed=11)
        assert not endings(state)
        assert not state._may_end_now(state.current_player())
        assert state._actions_that_may_end() == []


@pytest.mark.parametrize("make, action", [
    (gate_and_forum_in_hand, "craftsman: lay Forum"),
    (scriptorium_and_catacomb, "architect: add Temple to Catacomb"),
])
def test_the_blind_spots_of_may_end_now(make, action):
    # the action filter keeps the ending action; may_end_now does not see that the player
    # to move wins with it (the search's moves depend on that filter as it is: closing a
    # blind spot changes what the solver finds in its rollouts)
    state = make()
    ends = endings(state)
    ending = state.string_to_action(action)
    assert ends[ending][1] == [state.current_player()]
    assert ending in state._actions_that_may_end()
    assert not state._may_end_now(state.current_player())


# ---- the filters on played positions --------------------------------------------------------

def blind_spot(state: glory_ai.State, action: int, reason: str) -> bool:
    """Is this ending one of may_end_now's known blind spots (the Forum made active at once
    by a Gate, a Stairway or a Prison; a Catacomb completed by a Scriptorium)?"""
    player = state.current_player()
    text = state.action_to_string(action)
    if reason == "catacomb":
        return state.is_active(player, "Scriptorium")
    owned = [s["building"] for s in state.to_dict()["players"][player].get("structures", [])]
    return reason == "forum" and (state.is_active(player, "Gate") or "stairway" in text or "prison" in text
                                  or not {"Forum", "Forum Romanum"} & set(owned))


def played_positions(games: int, seed: int):
    """Every decision of `games` seeded games, 2 to 5 players, both modes, half played at
    random and half by heuristic styles with noise (which build Catacombs and Forums)."""
    styles = ["builder", "patron", "merchant", "legionary"]
    for game in range(games):
        num_players = 2 + game % 4
        mode = "imperium" if game // 4 % 2 else "republic"
        state = glory_ai.Game(num_players, mode=mode).new_initial_state(seed + game)
        chance = random.Random(seed + game)
        bots = ([make_bot(f"heuristic:style={styles[(game + i) % 4]},epsilon=0.3", seed=seed + game + i)
                 for i in range(num_players)] if game % 2 else None)
        while not state.is_terminal():
            yield state
            legal = state.legal_actions()
            state.apply_action(bots[state.current_player()].step(state) if bots else chance.choice(legal))


def check_forum_reach(state: glory_ai.State, ends: dict[int, tuple[str, list[int]]]) -> tuple[int, int]:
    """forum_reach never rules out a Forum end the player to move wins: by its clientele
    before the action, that player needed no client more, or one and the action hires a
    client of a role it lacks (or a Merchant, or from the deck). Returns (the reach, the
    Forum wins of the player to move)."""
    player = state.current_player()
    reach = state._forum_reach(player)
    wins = 0
    for action, (reason, winners) in ends.items():
        if reason == "forum" and player in winners:
            hire = state.action_to_string(action).startswith("patron: hire")
            assert reach <= (1 if hire else 0), (state.to_dict(), state.action_to_string(action))
            assert state._forum_keeps(player, action), (state.to_dict(), state.action_to_string(action))
            wins += 1
    return reach, wins


def test_forum_reach_of_hand_built_clienteles():
    # one client short: only a hire can bring the condition; covered: any action may (a
    # Gate makes the Forum laid active at once); the opponent with an empty clientele: none
    one_short = forum_romanum_one_client_short()
    assert [one_short._forum_reach(p) for p in (0, 1)] == [1, 2]
    # P0 lacks a Patron client: a Temple (Marble: Patron) may bring it, a Foundry (Brick:
    # Legionary, which P0 has) not, nor anything but a hire
    keeps = {one_short.action_to_string(a): one_short._forum_keeps(0, a) for a in one_short.legal_actions()}
    assert keeps["patron: hire Temple from pool"] and not keeps["patron: hire Foundry from pool"], keeps
    assert not any(keep for text, keep in keeps.items() if "hire" not in text), keeps
    covered = gate_and_forum_in_hand()
    assert [covered._forum_reach(p) for p in (0, 1)] == [0, 2]


def test_forum_reach_counts_what_one_action_can_bring():
    # a Forum Romanum two materials short: one Legionary demand may fill the stockpile (and
    # does here); a Laborer's take brings one card, so there the reach is 2
    demand = legionary_fills_the_stockpile()
    wins = [demand.action_to_string(a) for a, (reason, winners) in endings(demand).items()
            if reason == "forum" and winners == [0]]
    assert wins == ["legionary: reveal Garden"] and demand._forum_reach(0) == 0
    take = legionary_fills_the_stockpile("Laborer")
    assert take._forum_reach(0) == 2 and "forum" not in {r for r, _ in endings(take).values()}
    # Merchant clients are wild only with Ludus Magnus: one P0 can complete now counts, none
    # anywhere leaves a Patron client to hire, which a Craftsman action cannot
    ludus = ludus_magnus_completes()
    wins = [ludus.action_to_string(a) for a, (reason, winners) in endings(ludus).items()
            if reason == "forum" and winners == [0]]
    assert wins and all(text.startswith("craftsman: add Temple") for text in wins), wins
    assert ludus._forum_reach(0) == 0
    none = ludus_magnus_completes(foundation_laid=False)
    assert none._forum_reach(0) == 1 and "forum" not in {r for r, _ in endings(none).values()}


def test_forum_reach_holds_where_forums_are_won():
    # two-player games of Patron players (with noise), where Forums are built and won: the
    # reach rules out none of the Forum wins, which come one hire away and with the roles
    # covered, and rules out every action in most positions
    forum_wins = {0: 0, 1: 0}
    reaches = {0: 0, 1: 0, 2: 0}
    for game in range(300):
        state = glory_ai.Game(2, mode="imperium" if game % 2 else "republic").new_initial_state(5000 + game)
        bots = [make_bot("heuristic:style=patron,epsilon=0.3", seed=5000 + game + i) for i in range(2)]
        while not state.is_terminal():
            reach, wins = check_forum_reach(state, endings(state))
            reaches[reach] += 1
            if wins:
                forum_wins[reach] += 1
            state.apply_action(bots[state.current_player()].step(state))
    assert forum_wins[0] >= 5 and forum_wins[1] >= 2, forum_wins
    assert reaches[2] > 2 * (reaches[0] + reaches[1]), reaches


def test_the_filters_hold_in_played_games():
    reasons: dict[str, int] = {}
    kept = legal = 0
    forum_wins = {0: 0, 1: 0}
    reaches = {0: 0, 1: 0, 2: 0}
    extra = [deck_nearly_empty(), last_in_town_site(), catacomb_one_short(), forum_romanum_one_client_short(),
             gate_and_forum_in_hand(), scriptorium_and_catacomb()]
    for state in itertools.chain(extra, played_positions(600, 70000)):
        ends = endings(state)
        reach, wins = check_forum_reach(state, ends)
        reaches[reach] += 1
        if wins:
            forum_wins[reach] += 1
        found = state._actions_that_may_end()
        assert set(ends) <= set(found), state.to_dict()
        player = state.current_player()
        wins = [a for a, (_, winners) in ends.items() if player in winners]
        if wins and not state._may_end_now(player):
            assert all(blind_spot(state, a, ends[a][0]) for a in wins), state.to_dict()
        for reason, _ in ends.values():
            reasons[reason] = reasons.get(reason, 0) + 1
        kept += len(found)
        legal += len(state.legal_actions())
    assert set(reasons) == {"deck", "sites", "catacomb", "forum"}, reasons
    assert kept < legal / 3
    # a Forum win one hire away (the hand-built one) and with the roles covered
    assert min(forum_wins.values()) > 0 and reaches[2] > reaches[0] + reaches[1], (forum_wins, reaches)


def test_the_bots_hold_no_ending_rule():
    # the search asks the engine (engine.pxd) whether an action can end the game, who
    # wins and what a step reveals: no building, end reason, site or structure is read
    # in the compiled bots
    pattern = re.compile(r"\b(B_[A-Z_]+|END_[A-Z]+|in_town|out_town|nstruct|structures|S_COMPLETE)\b")
    sources = [path for path in sorted((ROOT / "glory_ai" / "bots").iterdir())
               if path.suffix in (".pyx", ".pxi", ".pxd")]
    assert len(sources) > 5
    for path in sources:
        found = pattern.findall(path.read_text())
        assert not found, (path.name, found)


@pytest.mark.parametrize("variant", [
    {"powers_off": ["Catacomb"]},
    {"powers_off": ["Forum", "Forum Romanum"], "points": {"Forum": 4, "Forum Romanum": 4}},
    {"powers_off": ["Catacomb"], "points": {"Catacomb": 3}, "materials": {"Catacomb": "Rubble"}},
    {"materials": {"Catacomb": "Wood", "Forum Romanum": "Brick", "Forum": "Brick"}},
], ids=["catacomb-off", "forums-off", "catacomb-rubble-3vp-off", "remade"])
def test_the_filters_follow_the_rule_variant(variant):
    # R-V.1, R-V.3: the engine's own ending rules and the filters change together: under a
    # variant they still keep every action that ends the game, and a switched-off Catacomb
    # or Forum ends nothing
    reasons: dict[str, int] = {}
    styles = ["builder", "patron", "merchant", "legionary"]
    for game in range(40):
        num_players = 2 + game % 3
        mode = "imperium" if game % 2 else "republic"
        state = glory_ai.Game(num_players, mode=mode, **variant).new_initial_state(900 + game)
        bots = [make_bot(f"heuristic:style={styles[(game + i) % 4]},epsilon=0.3", seed=game + i)
                for i in range(num_players)]
        while not state.is_terminal():
            ends = endings(state)
            assert set(ends) <= set(state._actions_that_may_end()), state.to_dict()
            check_forum_reach(state, ends)
            for reason, _ in ends.values():
                reasons[reason] = reasons.get(reason, 0) + 1
            state.apply_action(bots[state.current_player()].step(state))
    off = set(variant.get("powers_off", ()))
    if "Catacomb" in off:
        assert "catacomb" not in reasons, reasons
    if {"Forum", "Forum Romanum"} <= off:
        assert "forum" not in reasons, reasons
    assert {"deck", "sites"} & set(reasons), reasons
