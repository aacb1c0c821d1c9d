"""The log's sentences read as English: "an Insula", one decision, one legal move."""
from glory_ai.interactive.narrate import describe
from glory_ai.interactive.session import _decisions
from support.positions import state_of


def test_a_foundation_takes_the_article_its_name_wants():
    state = state_of(2, [{"hand": ["Dock", "Insula", "Academy", "Bar"]}, {"hand": ["Temple"]}])
    for text in ("lead Craftsman with Dock", "think: take Jack"):
        state.apply_action(state.string_to_action(text))
    said = {name: describe(state, state.string_to_action(f"craftsman: lay {name}"), None)
            for name in ("Insula", "Academy", "Bar")}
    assert said["Insula"] == "P0 lays an Insula foundation (Craftsman)."
    assert said["Academy"] == "P0 lays an Academy foundation (Craftsman)."
    assert said["Bar"] == "P0 lays a Bar foundation (Craftsman)."


def test_one_decision_is_singular():
    assert (_decisions(1), _decisions(2), _decisions(0)) == ("1 decision", "2 decisions", "0 decisions")
