"""The hidden-information model (docs/rules.md §5; docs/notation.md "Hidden information";
docs/engine.md "Hidden information"): State.observation(p),
State.information_state_key(p), State.observation_tensor(p) and State.determinize(p,
seed), together with the public parts of hands and vaults (`known_hand`, `known_vault`)
and `lacks`.

The first tests pin bugs, each written before its fix (all fixed): the revealed counts
leaked which card Basilica vaulted; determinizations with several hands seen to lack
materials were not uniform or broke `lacks`; the tensor lacked the drawer's Fountain card
and `lacks`; determinizations ignored that being asked a question is public (a victim's
give, a petitioner's optional third card, and worlds with no legal action at all); a
position could hide a hand's Jacks. The others pin tricky cases that were checked and
found correct (they do not repeat tests/test_hidden_info.py).
"""

from __future__ import annotations

import collections
import copy

import numpy as np
import pytest

import glory_ai
from glory_ai import State
from glory_ai.cards import CARD_MATERIAL
from support.positions import done, from_dict, play, position

NAMES = glory_ai.CARD_NAMES
MATERIALS = glory_ai.MATERIALS


def mat(card: str) -> str | None:
    """Material name of a card (None for a Jack)."""
    if card == "Jack":
        return None
    return MATERIALS[CARD_MATERIAL[NAMES.index(card)]]


def views(state, observer):
    return (state.information_state_key(observer), state.observation(observer),
            state.observation_tensor(observer))


# =======================================================================================
# Pinned bugs (fixed)
# =======================================================================================

# ---------------------------------------------------------------------------------------
# The reveal counts were not masked: a Basilica vault after a Bath Legionary reveal leaks
#     which card went into the vault.


def _bath_reveal_then_basilica(vaulted: str):
    """P0 (Bath, Basilica; two Patron clients) leads Patron: 3 Patron actions.
    Action 1 hires Academy (Brick) -> Bath Legionary: P0 reveals Bar.
    Action 2 hires Villa (Stone) -> Bath Merchant: Basilica vaults `vaulted` (Bar or Road,
    both in P0's hand) face down. Action 3 is still pending, so the turn goes on."""
    d = position(2, [{"hand": ["Temple", "Bar", "Road"], "clientele": ["Palace", "Statue"],
                      "structures": [done("Bath"), done("Basilica")]},
                     {"hand": ["Dock"]}], pool=["Academy", "Villa", "Tower"], deck_size=40)
    s = from_dict(d)
    play(s, "lead Patron with Temple", "think: take Jack", "patron: hire Academy from pool",
         "legionary: reveal Bar", "patron: hire Villa from pool",
         f"merchant: vault {vaulted} from hand")
    assert s.phase() == "action" and s.current_player() == 0
    return s


def test_R_8_6_3_basilica_after_bath_reveal_does_not_leak_the_vaulted_card():
    """docs/rules.md §5 (vault: opponents see the count only), R-8.6.3 Basilica (a hand card
    goes face down into the vault), docs/notation.md ("A card that leaves a hand unseen
    (Basilica) lowers every known Order type ... so the public part never depends on which
    card it was").

    P0 revealed Bar to a Bath Legionary action, then vaults either Bar or Road from hand
    with Basilica. P1 cannot tell which: both states must give P1 the same observation and
    information-state key. The bug: the per-type reveal counter `turn.revealed` (shown in
    observation()["turn"]["revealed"] and hashed into the key) is decremented only when the
    revealed Bar itself leaves the hand, so it reads Bar=0 after vaulting Bar and Bar=1
    after vaulting Road. (Knock-on: if P0 then reveals a second Bar in a later Bath batch,
    known_hand becomes 2 Bars in one world and 1 in the other.)"""
    a = _bath_reveal_then_basilica("Bar")
    b = _bath_reveal_then_basilica("Road")
    # the intended public part is already equal ...
    assert a.observation(1)["players"][0]["known_hand"] == \
        b.observation(1)["players"][0]["known_hand"]
    # ... but the whole view is not
    assert a.observation(1) == b.observation(1)
    assert a.information_state_key(1) == b.information_state_key(1)


# ---------------------------------------------------------------------------------------
# Determinization served `lacks` hands greedily, one after another.

def test_determinize_is_uniform_with_two_lacking_hands():
    """docs/notation.md (determinize: "every card p cannot know is reshuffled and dealt back
    ... uniformly"), docs/engine.md ("deals the unknown cards back uniformly, respecting
    lacks").

    Observer P0. Unknown cards: Dock (Wood), Bar (Rubble), Bath (Brick). P1 has one hidden
    card and lacks Rubble; P2 has one hidden card and lacks Wood; the deck has one card.
    The consistent worlds (P1, P2, deck) are (Dock, Bar, Bath), (Dock, Bath, Bar) and
    (Bath, Bar, Dock): each should come up about 1/3 of the time. The bug: P1 takes the
    first non-Rubble card of the shuffle (Dock or Bath, 1/2 each), so (Bath, Bar, Dock) gets
    1/2 and (Dock, Bath, Bar) about 1/6."""
    s = State.from_dict({"num_players": 3, "seed": 1, "deck": ["Bath"], "players": [
        {"hand": ["Temple"]},
        {"hand": ["Dock"], "lacks": ["Rubble"]},
        {"hand": ["Bar"], "lacks": ["Wood"]}]})
    trials = 1500
    counts = collections.Counter()
    for seed in range(trials):
        w = s.determinize(0, seed)
        counts[(w.zone("hand", 1)[0], w.zone("hand", 2)[0])] += 1
    assert set(counts) == {("Dock", "Bar"), ("Dock", "Bath"), ("Bath", "Bar")}
    # each world 500 expected; sd ~ 18; allow a wide margin
    for _world, c in counts.items():
        assert abs(c - trials / 3) < 120, counts


def test_R_8_5_6_determinize_never_deals_a_lacked_material():
    """docs/notation.md ("determinizations respect [lacks]"), docs/rules.md §5 / R-8.5.6 (a victim
    who could not give a material publicly holds none).

    Observer P0. P1: one hidden card, lacks Rubble. P2: one hidden card, lacks every
    material but Brick. Unknown cards: Dock, Bath, Bar (deck 1). Only one world is
    consistent: P2 = Bath, P1 = Dock, deck = Bar. The bug: P1 is served first and takes Bath
    half of the time; P2 then finds no compatible card and is dealt Dock or Bar anyway."""
    s = State.from_dict({"num_players": 3, "seed": 1, "deck": ["Bar"], "players": [
        {"hand": ["Temple"]},
        {"hand": ["Dock"], "lacks": ["Rubble"]},
        {"hand": ["Bath"], "lacks": ["Rubble", "Wood", "Concrete", "Stone", "Marble"]}]})
    bad = []
    for seed in range(60):
        w = s.determinize(0, seed)
        for q in (1, 2):
            lacks = set(s.to_dict()["players"][q]["lacks"])
            if any(mat(c) in lacks for c in w.zone("hand", q)):
                bad.append((seed, q, w.zone("hand", q)))
    assert bad == [], f"{len(bad)} worlds deal a lacked material: {bad[:3]}"


# ---------------------------------------------------------------------------------------
# The observation tensor missed things the observer knows.

def _fountain_drawn(top):
    d = position(2, [{"hand": ["Dock"], "structures": [done("Fountain")]}, {"hand": ["Bar"]}],
                 deck_top=top, deck_size=30)
    s = from_dict(d)
    play(s, "lead Craftsman with Dock", "think: take Jack", "craftsman: draw from deck (Fountain)")
    assert s.phase() == "fountain"
    return s


def test_R_8_4_2_tensor_encodes_the_drawers_fountain_card():
    """R-8.4.2 (the Fountain drawer privately looks at the card and decides what to do with
    it), docs/notation.md (observation_tensor is "what p knows").

    Two states differ only in which card P0's Fountain drew (Temple vs Road, the other one
    still in the deck). P0's observation and key differ (correct) and its legal actions
    differ, but P0's observation tensor is identical: a tensor-based agent cannot see the
    card it must lay, add or keep."""
    a, b = _fountain_drawn(["Temple", "Road"]), _fountain_drawn(["Road", "Temple"])
    assert a.observation(0) != b.observation(0)
    assert a.information_state_key(0) != b.information_state_key(0)
    assert not np.array_equal(a.observation_tensor(0), b.observation_tensor(0))


def test_R_8_5_6_tensor_encodes_what_a_hand_is_known_to_lack():
    """R-8.5.6 + §5; docs/notation.md (`lacks` "in to_dict and observations"). Two states
    differing only in P1's public `lacks` (Brick): P0's key and observation differ, the
    tensor does not."""
    base = {"num_players": 2, "seed": 3,
            "players": [{"hand": ["Temple"]}, {"hand": ["Road", "Dock"]}]}
    other = copy.deepcopy(base)
    other["players"][1]["lacks"] = ["Brick"]
    x, y = State.from_dict(base), State.from_dict(other)
    assert x.information_state_key(0) != y.information_state_key(0)
    assert x.observation(0) != y.observation(0)
    assert not np.array_equal(x.observation_tensor(0), y.observation_tensor(0))


# ---------------------------------------------------------------------------------------
# Determinization ignored what being *asked* a decision reveals. The engine only asks
#     when there is a real choice (docs/notation.md "Decisions with nothing to decide are
#     resolved by the engine and never asked"), so the pending question itself is public
#     information about the decider's hand. The rejection loop of the determinization
#     only required "some legal action", which is weaker.

def test_R_8_5_6_determinized_victim_still_has_a_choice_to_make():
    """R-8.5.6 + docs/notation.md ("a victim gives automatically when there is no choice of
    *which* cards to give"). P1 must give one Brick card and is asked to choose (Bath or
    School): everyone sees P1 holds Brick cards of at least two types. In P0's
    determinizations P1 must therefore still hold >= 2 Brick types; the bug: most worlds
    give P1 a single Brick card (a world the engine would have settled automatically)."""
    d = position(2, [{"hand": ["Shrine", "Atrium"]},
                     {"hand": ["Bath", "School", "Market"]}], deck_size=60)
    s = from_dict(d)
    play(s, "lead Legionary with Shrine", "think: take Jack", "legionary: reveal Atrium")
    assert s.phase() == "legionary_give" and s.current_player() == 1
    bad = 0
    for seed in range(40):
        hand = s.determinize(0, seed).zone("hand", 1)
        if len({c for c in hand if mat(c) == "Brick"}) < 2:
            bad += 1
    assert bad == 0, f"{bad}/40 worlds: P1 would not have been asked"


def test_R_6_6_determinized_petitioner_still_has_an_optional_third_card():
    """R-6.6 (Imperium, Circus: a petition is 2 or 3 same-role cards) + docs/notation.md
    (petition picks in name order; forced picks are not asked). P0 picked Bar and Insula and
    is asked about a third Laborer card: everyone now knows P0 holds another Laborer card
    named after Insula. In P1's determinizations a `petition: <Card>` pick must remain
    legal; the bug: almost every world only offers `petition: done` (the rejection loop only
    requires some legal action, and `done` always is)."""
    d = position(2, [{"hand": ["Bar", "Insula", "Road", "Temple", "Villa"],
                      "structures": [done("Circus")]},
                     {"hand": ["Bath"]}], mode="imperium", deck_size=60)
    s = from_dict(d)
    play(s, "lead Merchant by petition of Laborer", "petition: Bar", "petition: Insula")
    assert s.phase() == "petition" and "petition: Road" in s.legal_action_strings()
    bad = 0
    for seed in range(40):
        legal = s.determinize(1, seed).legal_action_strings()
        if not any(a.startswith("petition: ") and a != "petition: done" for a in legal):
            bad += 1
    assert bad == 0, f"{bad}/40 worlds: P0 would not have been asked"


# ---------------------------------------------------------------------------------------
# from_dict accepted a hand whose Jack is not in known_hand; determinize then dealt the
#     Jack into the deck (or another hand or a vault).

def test_jacks_in_hand_are_always_public():
    """docs/rules.md §5 ("Jacks in hand are usually known"), docs/notation.md (Jacks are always
    taken in view of all; "A position that cannot exist is refused with ValueError").
    A position with hand [Jack, Bar] and known_hand [] cannot arise. Either from_dict must
    refuse it (or add the Jack to known_hand), or determinize must not treat the Jack as an
    unknown card. The bug: accepted as is, and P0's determinizations put the Jack into the
    deck (an Order-only zone) while _check_invariants() still passes."""
    d = {"num_players": 2, "seed": 1,
         "players": [{"hand": ["Temple"]}, {"hand": ["Jack", "Bar"], "known_hand": []}]}
    try:
        s = State.from_dict(d)
    except ValueError:
        return
    if "Jack" in s.to_dict()["players"][1]["known_hand"]:
        return
    for seed in range(20):
        w = s.determinize(0, seed).to_dict()
        assert "Jack" not in w["deck"]
        assert w["players"][1]["hand"].count("Jack") == 1


# ---------------------------------------------------------------------------------------
# Hidden information (§5) / determinize contract ("a full state consistent with
# everything observer knows"): while a player is in the middle of a choice that only
# exists because of the cards in their hand, other observers' determinizations re-dealt
# that hand freely, producing non-terminal worlds with no legal action (fixed).


def test_R_8_5_6_determinized_world_keeps_the_victims_demanded_cards():
    """R-8.5.6 + §5: P1 (victim) must give one of Bath/School; the engine asks P1 to
    choose (phase legionary_give). Every world P0 determinizes must still let P1 give a
    Brick card (P0 knows P1 is choosing among Brick cards). The bug: the engine re-dealt
    P1's hand without any constraint and many worlds had no legal action at all
    (random_playout then raised "engine bug: a non-terminal state has no legal action")."""
    d = position(2, [{"hand": ["Shrine", "Atrium"]},
                     {"hand": ["Bath", "School", "Market"]}], deck_size=60)
    state = from_dict(d)
    play(state, "lead Legionary with Shrine", "think: take Jack", "legionary: reveal Atrium")
    assert state.phase() == "legionary_give" and state.current_player() == 1
    dead = [seed for seed in range(40) if not state.determinize(0, seed).legal_actions()]
    assert dead == [], f"{len(dead)}/40 determinized worlds have no legal action"


def test_R_6_6_determinized_world_keeps_the_petition_cards():
    """R-6.6 + §5: P0 declared a 2-card Laborer petition and is picking its cards
    (phase petition, no skip before two picks). P1 knows P0 holds >= 2 Laborer cards,
    but P1's determinizations re-dealt P0's hand freely (the bug): most worlds had no
    legal action."""
    d = position(2, [{"hand": ["Bar", "Road", "Insula"]}, {"hand": ["Bath"]}], deck_size=60)
    state = from_dict(d)
    play(state, "lead Merchant by petition of Laborer")
    assert state.phase() == "petition" and state.current_player() == 0
    dead = [seed for seed in range(40) if not state.determinize(1, seed).legal_actions()]
    assert dead == [], f"{len(dead)}/40 determinized worlds have no legal action"


# =======================================================================================
# Checked and found correct (coverage)
# =======================================================================================

def test_victim_who_gives_all_its_demanded_material_is_known_to_lack_it():
    """R-8.5.6: demand {Brick, Brick}; P1 holds one Brick card (Bath) and gives it: everyone
    sees P1 has no Brick left. `lacks` is set, shown to P0, respected by determinize."""
    d = position(2, [{"hand": ["Shrine", "Atrium", "Academy"], "clientele": ["Gate"]},
                     {"hand": ["Bath", "Market", "Road"]}], deck_size=50)
    s = from_dict(d)
    play(s, "lead Legionary with Shrine", "think: take Jack")
    play(s, "legionary: reveal Academy", "legionary: reveal Atrium")
    d2 = s.to_dict()
    assert "Bath" in d2["players"][0]["stockpile"]
    assert d2["players"][1]["lacks"] == ["Brick"]
    assert s.observation(0)["players"][1]["lacks"] == ["Brick"]
    assert sorted(s.observation(1)["players"][0]["known_hand"]) == ["Academy", "Atrium"]
    for seed in range(100):
        w = s.determinize(0, seed)
        assert all(mat(c) != "Brick" for c in w.zone("hand", 1))
        assert sorted(c for c in w.zone("hand", 0)) == sorted(s.zone("hand", 0))


@pytest.mark.parametrize("given,known_after", [("School", ["Bath"]), ("Bath", [])])
def test_victim_choice_keeps_or_drops_the_known_card(given, known_after):
    """R-8.5.6 (the victim chooses which matching card): P1's Bath is public (revealed
    earlier); P1 holds Bath and School and must give one Brick. Giving School keeps Bath in
    the public part; giving Bath drops it. P0's determinizations keep what is known."""
    d = position(2, [{"hand": ["Shrine", "Atrium"]},
                     {"hand": ["Bath", "School", "Market"], "known_hand": ["Bath"]}], deck_size=60)
    s = from_dict(d)
    play(s, "lead Legionary with Shrine", "think: take Jack", "legionary: reveal Atrium")
    play(s, f"give {given}")
    obs = s.observation(0)["players"][1]
    assert obs["known_hand"] == sorted(known_after + ["Jack"])
    assert given in s.zone("stockpile", 0)
    for seed in range(20):
        w = s.determinize(0, seed)
        for c in known_after:
            assert c in w.zone("hand", 1)
        w._check_invariants()


def test_known_cards_played_in_a_petition_leave_the_public_part():
    """R-6.6: P0's Bar is public; P0 petitions with Bar and Road (both to the public camp).
    The public part drops Bar and never goes negative for Road (not known); the hidden
    Temple stays hidden."""
    s = State.from_dict({"num_players": 2, "seed": 4, "players": [
        {"hand": ["Bar", "Road", "Temple"], "known_hand": ["Bar"]}, {"hand": ["Dock"]}]})
    play(s, "lead Merchant by petition of Laborer")
    d = s.to_dict()["players"][0]
    assert sorted(d["camp"]) == ["Bar", "Road"]
    assert d["known_hand"] == [] and d["hand"] == ["Temple"]
    s._check_invariants()
    assert s.observation(1)["players"][0]["hand_size"] == 1


def test_revealed_card_hired_by_aqueduct_leaves_the_public_part():
    """R-8.5.2 + R-8.1.3: a card revealed to a Bath Legionary is public; hiring it from
    hand with Aqueduct (publicly, into the clientele) removes it from known_hand."""
    d = position(2, [{"hand": ["Palace", "Atrium", "Road"], "clientele": ["Temple"],
                      "structures": [done("Bath"), done("Aqueduct")]},
                     {"hand": []}], pool=["Academy", "Dock"], deck_size=30)
    s = from_dict(d)
    play(s, "lead Patron with Palace", "think: take Jack", "patron: hire Academy from pool",
         "legionary: reveal Atrium")
    assert s.observation(1)["players"][0]["known_hand"] == ["Atrium"]
    play(s, "patron: hire Atrium from hand")
    assert s.observation(1)["players"][0]["known_hand"] == []
    assert "Atrium" in s.zone("clientele", 0)
    s._check_invariants()


def test_senate_jacks_enter_the_hand_in_view_of_all():
    """R-6.5(a) Senate (Imperium): Jacks taken from opponents' camps are public."""
    d = position(2, [{"hand": ["Bar", "Dock"], "structures": [done("Senate")]},
                     {"hand": ["Jack", "Road"]}], mode="imperium", deck_size=40)
    s = from_dict(d)
    play(s, "lead Laborer with Bar", "follow Laborer with Jack")
    assert s.phase() == "senate"
    play(s, "senate: take Jacks")
    assert s.observation(1)["players"][0]["known_hand"] == ["Jack"]
    for seed in range(10):
        assert s.determinize(1, seed).zone("hand", 0).count("Jack") == 1


def test_fountain_keep_clears_lacks_and_hides_the_card():
    """R-8.4.2: a kept Fountain card enters the hand unseen, so a public `lacks` of that
    hand no longer holds; during the decision only the drawer sees the card (observation,
    key and tensor of P1 do not depend on it)."""
    a, b = _fountain_drawn(["Temple", "Road"]), _fountain_drawn(["Road", "Temple"])
    for x, y in zip(views(a, 1)[:2], views(b, 1)[:2], strict=False):
        assert x == y
    assert np.array_equal(a.observation_tensor(1), b.observation_tensor(1))
    d = position(2, [{"hand": ["Dock"], "structures": [done("Fountain")]}, {"hand": ["Bar"]}],
                 deck_top=["Temple"], deck_size=30)
    d["players"][0]["lacks"] = ["Marble"]
    s = from_dict(d)
    play(s, "lead Craftsman with Dock", "think: take Jack",
         "craftsman: draw from deck (Fountain)", "fountain: keep Temple")
    assert s.to_dict()["players"][0]["lacks"] == []
    assert s.observation(1)["players"][0]["known_hand"] == []


def test_fountain_determinize_keeps_the_drawers_card_and_resamples_for_others():
    """§5: the drawer's own determinization keeps the Fountain card; another observer's
    keeps its key while the card is resampled (and never into a contradicting place)."""
    s = _fountain_drawn(["Temple", "Road"])
    for seed in range(10):
        w = s.determinize(0, seed)
        assert w.to_dict()["turn"]["fountain_card"] == "Temple"
        assert "fountain: keep Temple" in w.legal_action_strings()
        assert w.information_state_key(0) == s.information_state_key(0)
    seen = {s.determinize(1, seed).to_dict()["turn"]["fountain_card"] for seed in range(30)}
    assert len(seen) > 1


def test_key_distinguishes_an_opponents_known_part():
    """information_state_key must differ when something p knows differs: the same cards,
    but P1's Bath public in one state and hidden in the other. Both P0 and P1 see it."""
    base = {"num_players": 2, "seed": 5, "players": [
        {"hand": ["Temple"]}, {"hand": ["Bath", "Market"]}]}
    other = copy.deepcopy(base)
    other["players"][1]["known_hand"] = ["Bath"]
    x, y = State.from_dict(base), State.from_dict(other)
    for p in (0, 1):
        assert x.information_state_key(p) != y.information_state_key(p)
        assert x.observation(p) != y.observation(p)
    assert not np.array_equal(x.observation_tensor(0), y.observation_tensor(0))


def test_mid_legionary_views_of_a_bystander():
    """3 players: P0's Legionary demand (revealed Atrium) is public; P1 is choosing what to
    give. Bystander P2 sees the demand, the revealed card and the pending decision, but not
    P1's hand; its determinizations keep P1 able to give (a Brick card)."""
    d = position(3, [{"hand": ["Shrine", "Atrium"]},
                     {"hand": ["Bath", "School", "Market"]},
                     {"hand": ["Dock"]}], deck_size=60)
    s = from_dict(d)
    play(s, "lead Legionary with Shrine", "think: take Jack", "think: take Jack",
         "legionary: reveal Atrium")
    assert s.phase() == "legionary_give" and s.current_player() == 1
    obs = s.observation(2)
    assert obs["players"][0]["known_hand"] == ["Atrium"]
    assert obs["turn"]["decider"] == 1
    assert "hand" not in obs["players"][1] and obs["players"][1]["known_hand"] == ["Jack"]
    assert obs["turn"]["legionary"]["demand"] == ["Brick"]
    key = s.information_state_key(2)
    for seed in range(20):
        w = s.determinize(2, seed)
        assert w.information_state_key(2) == key
        assert any(a.startswith("give ") for a in w.legal_action_strings())
        assert w.zone("hand", 2) == s.zone("hand", 2)
