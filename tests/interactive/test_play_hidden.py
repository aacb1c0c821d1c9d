"""No screen a person sees shows a card they cannot know: the table, the menu and the log
are the same in every world the person cannot tell apart (determinizations), over many
random states of 2 to 5 players and both modes."""
from __future__ import annotations

import random

import glory_ai
from glory_ai.actions import decode
from glory_ai.interactive.narrate import describe
from glory_ai.interactive.view import table_view
from support.play import SECRET_CARDS_POSITION, random_states, screen_text


def test_the_screen_is_the_same_in_every_world_the_viewer_cannot_tell_apart():
    checked = 0
    for state in random_states():
        for viewer in range(state.num_players()):
            text = screen_text(state, viewer)
            view = table_view(state, viewer)
            for seed in range(3):
                world = state.determinize(viewer, seed)
                assert table_view(world, viewer) == view
                assert screen_text(world, viewer) == text
            checked += 1
    assert checked > 200


def test_the_screen_changes_with_what_the_viewer_sees():
    # not vacuous: the viewer's own hand is on the screen, card by card
    state = glory_ai.State.from_dict(SECRET_CARDS_POSITION)
    mine = screen_text(state, 0)
    theirs = screen_text(state, 1)
    assert "Temple" in mine and "Patron" in mine and "Marble" in mine
    assert "Dock" in theirs and "Dock" not in mine.split("Your hand")[1]
    assert "hand 6" in theirs          # seat 0's hand as a count


def test_hidden_hands_are_never_named():
    # every Order card of another player's hidden hand, when it appears nowhere public, is
    # absent from the screen
    state = glory_ai.State.from_dict(SECRET_CARDS_POSITION)
    text = screen_text(state, 1)
    for card in ("Prison", "Crane"):          # in seat 2's hidden hand only
        assert card not in text


def _log_worlds(state, viewer, seeds=2):
    yield state
    for seed in range(seeds):
        yield state.determinize(viewer, seed)


def test_log_sentences_name_no_card_the_viewer_cannot_see():
    """Two moves of one position that leave the viewer with the same observation read the
    same, in the position and in its determinizations from the viewer's view; a card
    vaulted from a hand (Basilica) or a Fountain card kept is never named to another
    player. (Across worlds the observation alone is not the test: a card given in view,
    public in the game, can leave the same observation as another card given by someone
    else, as the engine's observation keeps no history.)"""
    private_blocks = set()
    checked = 0
    walks = [glory_ai.State.from_dict({**SECRET_CARDS_POSITION, "seed": seed}) for seed in range(30)]
    walks += [glory_ai.Game(n, "imperium" if seed % 2 else "republic").new_initial_state(seed)
              for n in (2, 3, 4, 5) for seed in range(3)]
    for number, start in enumerate(walks):
        rng = random.Random(number)
        state = start
        for _ in range(40):
            if state.is_terminal():
                break
            mover = state.current_player()
            for viewer in range(state.num_players()):
                if viewer == mover:
                    continue
                for world in _log_worlds(state, viewer):
                    sentences: dict[str, str] = {}
                    for action in world.legal_actions():
                        after = world.clone()
                        after.apply_action(action)
                        key = after.information_state_string(viewer)
                        sentence = describe(world, action, viewer)
                        assert sentences.setdefault(key, sentence) == sentence, (
                            world.action_to_string(action), sentence, sentences[key])
                        block = decode(action)[0]
                        if block in ("vault_hand", "fountain_keep"):
                            private_blocks.add(block)
                            assert sentence == {
                                "vault_hand": f"P{mover} vaults a card from the hand (Basilica).",
                                "fountain_keep": f"P{mover} keeps the drawn card in hand (Fountain).",
                            }[block]
                        checked += 1
            state.apply_action(rng.choice(state.legal_actions()))
    assert private_blocks == {"vault_hand", "fountain_keep"}, private_blocks
    assert checked > 1000


def test_the_mover_reads_their_own_secret_card():
    state = glory_ai.State.from_dict(SECRET_CARDS_POSITION)
    state.apply_action_string("lead Merchant with Villa")
    while state.current_player() != 0:
        state.apply_action(state.legal_actions()[0])
    vault = [a for a in state.legal_actions() if decode(a)[0] == "vault_hand"]
    if not vault:                 # the stockpile part first, then the hand
        state.apply_action(state.legal_actions()[-1])
        vault = [a for a in state.legal_actions() if decode(a)[0] == "vault_hand"]
    assert vault
    card = decode(vault[0])[1][0]
    assert card in describe(state, vault[0], 0)
    assert card in describe(state, vault[0], None)
    assert card not in describe(state, vault[0], 1)
    assert "a card from the hand (Basilica)" in describe(state, vault[0], 1)
