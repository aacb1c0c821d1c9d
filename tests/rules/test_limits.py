"""Influence and limits: R-10.1 ... R-10.4; scenario S7 (a, b, c, d, e without Market, f)."""

import pytest

from support.positions import built, play, state_of, zone

# harmless completed structures (no limit functions), one per material
HARMLESS = {
    "Rubble": built("Latrine", ["Bar"]),
    "Wood": built("Dock", ["Palisade"]),
    "Concrete": built("Tower", ["Wall", "Wall"]),
    "Brick": built("Atrium", ["Bath", "Bath"]),
    "Stone": built("Villa", ["Garden", "Garden", "Prison"]),
    "Marble": built("Basilica", ["Statue", "Statue", "Temple"]),
}


@pytest.mark.parametrize("mats,expected", [
    ((), 2),
    (("Rubble",), 3),
    (("Wood",), 3),
    (("Concrete",), 4),
    (("Brick",), 4),
    (("Stone",), 5),
    (("Marble",), 5),
    (("Rubble", "Wood", "Concrete", "Brick", "Stone", "Marble"), 2 + 12),
])
def test_R_10_1_influence_is_two_plus_site_values(mats, expected):
    state = state_of(2, [{"structures": [HARMLESS[m] for m in mats]}, {}])
    assert state.influence(0) == expected
    assert state.influence(1) == 2
    # without Insula, Aqueduct or Market: both limits equal influence
    assert state.clientele_limit(0) == expected
    assert state.vault_limit(0) == expected


def test_R_10_1_influence_field_counts_sites_without_structures():
    state = state_of(2, [{"influence": ["Stone", "Rubble"]}, {}])
    assert state.influence(0) == 6


def test_S7_a_R_10_2_patron_cannot_hire_at_the_limit():
    """Influence 2, clients {Bar, Dock}: the Patron action cannot hire (skipped)."""
    state = state_of(2, [{"hand": ["Basilica"], "clientele": ["Bar", "Dock"]},
                         {"hand": ["Road"]}], pool=["Temple"])
    assert state.clientele_limit(0) == 2
    play(state, "lead Patron with Basilica", "think: take Jack")
    d = state.to_dict()
    assert d["leader"] == 1
    assert sorted(d["players"][0]["clientele"]) == ["Bar", "Dock"]
    assert sorted(d["pool"]) == ["Basilica", "Temple"]


def test_S7_b_R_10_2_insula_adds_two():
    state = state_of(2, [{"structures": [built("Insula", ["Road"])]}, {}])
    assert state.influence(0) == 3
    assert state.clientele_limit(0) == 5
    assert state.vault_limit(0) == 3


def test_S7_c_R_10_2_aqueduct_doubles():
    state = state_of(2, [{"structures": [built("Aqueduct", ["Tower", "Wall"])]}, {}])
    assert state.influence(0) == 4
    assert state.clientele_limit(0) == 8
    assert state.vault_limit(0) == 4


def test_S7_d_R_10_2_insula_then_aqueduct():
    """(influence + 2) x 2 = (5 + 2) x 2 = 14 (ruling A8)."""
    state = state_of(2, [{"structures": [built("Insula", ["Road"]),
                                         built("Aqueduct", ["Tower", "Wall"])]}, {}])
    assert state.influence(0) == 5
    assert state.clientele_limit(0) == 14


def test_S7_b_R_10_2_insula_limit_allows_hiring_beyond_influence():
    """Influence 3 + Insula: a 4th and 5th client can be hired."""
    state = state_of(2, [
        {"hand": ["Basilica"], "clientele": ["Bar", "Dock", "Temple"],
         "structures": [built("Insula", ["Road"])]},
        {"hand": ["Latrine"]},
    ], pool=["Palace", "Statue", "Stairway"])
    play(state, "lead Patron with Basilica", "think: take Jack",
         "patron: hire Palace from pool", "patron: hire Statue from pool")
    d = state.to_dict()
    assert sorted(d["players"][0]["clientele"]) == ["Bar", "Dock", "Palace", "Statue",
                                                     "Temple"]
    assert d["leader"] == 1


def test_S7_e_R_10_3_vault_limit_is_influence_without_market():
    """Completed Dock (Wood site): influence 3 -> vault limit 3; a full vault cannot
    take a card."""
    state = state_of(2, [
        {"hand": ["Villa"], "stockpile": ["Garden"], "vault": ["Bar", "Road", "Insula"],
         "structures": [built("Dock", ["Palisade"])]},
        {"hand": ["Latrine"]},
    ])
    assert state.influence(0) == 3
    assert state.vault_limit(0) == 3
    play(state, "lead Merchant with Villa", "think: take Jack")
    d = state.to_dict()
    assert d["leader"] == 1
    assert sorted(d["players"][0]["vault"]) == ["Bar", "Insula", "Road"]
    assert d["players"][0]["stockpile"] == ["Garden"]


def test_R_10_3_vault_limit_checked_per_action():
    """Vault 2 of 3: the first Merchant action vaults, the client's second cannot."""
    state = state_of(2, [
        {"hand": ["Villa"], "stockpile": ["Garden", "Prison"], "vault": ["Bar", "Road"],
         "clientele": ["Sewer"], "structures": [built("Dock", ["Palisade"])]},
        {"hand": ["Latrine"]},
    ])
    play(state, "lead Merchant with Villa", "think: take Jack",
         "merchant: vault Garden from stockpile")
    d = state.to_dict()
    assert d["leader"] == 1
    assert sorted(d["players"][0]["vault"]) == ["Bar", "Garden", "Road"]
    assert d["players"][0]["stockpile"] == ["Prison"]


def test_S7_f_R_10_4_over_the_clientele_limit_keeps_all_but_cannot_add():
    state = state_of(2, [
        {"hand": ["Basilica"], "clientele": ["Bar", "Dock", "Temple"]},
        {"hand": ["Road"]},
    ], pool=["Palace"])
    assert state.clientele_limit(0) == 2
    play(state, "lead Patron with Basilica", "think: take Jack")
    d = state.to_dict()
    assert d["leader"] == 1
    assert sorted(d["players"][0]["clientele"]) == ["Bar", "Dock", "Temple"]
    assert sorted(d["pool"]) == ["Basilica", "Palace"]


def test_S7_f_R_10_4_over_the_vault_limit_keeps_all_but_cannot_add():
    state = state_of(2, [
        {"hand": ["Villa"], "stockpile": ["Garden"],
         "vault": ["Bar", "Road", "Insula", "Latrine"]},
        {"hand": ["Dock"]},
    ])
    assert state.vault_limit(0) == 2
    play(state, "lead Merchant with Villa", "think: take Jack")
    assert zone(state, 0, "vault") == ["Bar", "Insula", "Latrine", "Road"]
    assert zone(state, 0, "stockpile") == ["Garden"]
