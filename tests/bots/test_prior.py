"""The learned prior over actions (prior=; docs/bots.md, "A learned prior"): its C output
against a numpy reference on real states, the selection and expansion it steers, its
files checked, and the search with it keeping its invariants."""
import itertools
import math
import random
from pathlib import Path

import numpy as np
import pytest

import glory_ai
from glory_ai.bots import SpecError, make_bot, model_identities
from glory_ai.bots._search import _prior_expand, _prior_probs, _select
from glory_ai.bots.models import linear_model, mlp_model
from glory_ai.bots.prior import PRIOR_COUNTS, load_prior, prior_paths
from glory_ai.core.engine import FEATURE_COUNT

ROOT = Path(__file__).resolve().parents[2]


def random_prior(seed: int):
    rng = np.random.default_rng(seed)
    return linear_model(rng.normal(size=FEATURE_COUNT), 0.0, "value", mean=rng.normal(size=FEATURE_COUNT),
                        scale=rng.uniform(0.5, 3.0, size=FEATURE_COUNT))


def states(num_players: int, count: int, seed: int = 1):
    """Live states of several legal actions along random games."""
    rng = random.Random(seed)
    out = []
    state = glory_ai.Game(num_players).new_initial_state(seed)
    while len(out) < count:
        if state.is_terminal():
            state = glory_ai.Game(num_players).new_initial_state(rng.randrange(1000))
        if len(state.legal_actions()) > 1:
            out.append(state.clone())
        state.random_playout(rng.randrange(2 ** 32), max_decisions=rng.randrange(1, 12))
    return out


def reference_probs(state, model):
    mover = state.current_player()
    logits = []
    for action in state.legal_actions():
        after = state.clone()
        after.apply_action(action)
        logits.append(model.evaluate(after.features(mover)))
    logits = np.array(logits)
    weights = np.exp(logits - logits.max())
    return weights / weights.sum()


@pytest.mark.parametrize("num_players", [2, 3, 5])
def test_the_c_prior_equals_the_numpy_softmax_over_afterstates(num_players):
    model = random_prior(num_players)
    spread = 0.0
    for state in states(num_players, 12, seed=num_players):
        got = np.array(_prior_probs(state, model))
        expected = reference_probs(state, model)
        assert got == pytest.approx(expected, rel=1e-4, abs=1e-6)
        spread = max(spread, expected.max() - expected.min())
    assert spread > 0.1          # the states tell the actions apart: the comparison means something


def test_expansion_takes_the_untried_action_of_the_highest_prior():
    model = random_prior(7)
    for state in states(2, 10, seed=7):
        legal = state.legal_actions()
        probs = reference_probs(state, model)
        untried = legal[1:] if len(legal) > 2 else legal
        expected = max(untried, key=lambda a: probs[legal.index(a)])
        action, prob = _prior_expand(state, model, untried)
        assert action == expected
        assert prob == pytest.approx(probs[legal.index(expected)], rel=1e-4, abs=1e-6)
    with pytest.raises(ValueError, match="untried"):
        _prior_expand(state, model, [])


def test_with_the_prior_selection_follows_the_high_prior_child():
    # two children of the same statistics: the first wins the tie without a prior
    children = [(10, 5, 20, [2.5, 2.5]), (11, 5, 20, [2.5, 2.5])]
    assert _select(children, [10, 11], 0, 0.7)[0] == 0
    assert _select(children, [10, 11], 0, 0.7, priors=[0.1, 0.9], prior_c=1.0)[0] == 1
    assert _select(children, [10, 11], 0, 0.7, priors=[0.1, 0.9], prior_c=0.0)[0] == 0
    # the bias fades with visits: a child better by its mean overtakes a high prior
    seen = [(10, 400, 1000, [300.0, 100.0]), (11, 400, 1000, [200.0, 200.0])]
    assert _select(seen, [10, 11], 0, 0.7, priors=[0.3, 0.7], prior_c=1.0)[0] == 0
    with pytest.raises(ValueError, match="one per child"):
        _select(children, [10, 11], 0, 0.7, priors=[1.0])


def test_a_search_with_the_prior_keeps_its_invariants_and_reproduces(tmp_path):
    for n in PRIOR_COUNTS:
        random_prior(n).save(tmp_path / f"prior-{n}.npz")
    for num_players in (2, 4):
        played = []
        for _ in range(2):
            bot = make_bot(f"ismcts:iters=300,reuse=true,prior={tmp_path}", seed=5)
            state = glory_ai.Game(num_players).new_initial_state(11)
            moves = []
            for _ in range(25):
                if state.is_terminal():
                    break
                moves.append(bot.step(state))
                assert bot._searcher._check_trees() == []
                state.apply_action(moves[-1])
            played.append(moves)
        assert played[0] == played[1]
    # PIMC's trees (one per world in the same node array) and two threads keep them too
    for spec in (f"pimc:iters=200,worlds=4,prior={tmp_path}", f"ismcts:iters=200,threads=2,prior={tmp_path}"):
        bot = make_bot(spec, seed=3)
        state = glory_ai.Game(3).new_initial_state(4)
        for _ in range(10):
            state.apply_action(bot.step(state))
            assert bot._searcher._check_trees() == []


def test_the_prior_changes_what_the_search_explores(tmp_path):
    state = states(2, 1, seed=3)[0]
    model = random_prior(3)
    model.save(tmp_path / "one.npz")
    plain = make_bot("ismcts:iters=200", seed=2)
    steered = make_bot(f"ismcts:iters=200,prior={tmp_path / 'one.npz'}", seed=2)
    plain.step(state)
    steered.step(state)
    assert plain.last_search()["actions"] != steered.last_search()["actions"]


def test_prior_off_is_the_default_and_learned_names_the_shipped_files():
    assert prior_paths("off") is None and load_prior("off") is None
    assert make_bot("ismcts:iters=50", seed=1).params["prior"] == "off"
    shipped = prior_paths("learned")
    assert sorted(shipped) == [2, 3, 4, 5]
    assert all(path.parent == ROOT / "glory_ai" / "data" / "models" for path in shipped.values())


def test_bad_prior_files_are_one_line_errors(tmp_path):
    (tmp_path / "junk.npz").write_text("not a model")
    mlp = mlp_model([(np.zeros((FEATURE_COUNT, 2)), np.zeros(2)), (np.zeros((2, 1)), np.zeros(1))])
    mlp.save(tmp_path / "mlp.npz")
    linear_model(np.zeros(FEATURE_COUNT), 0.0, "win_logit").save(tmp_path / "logit.npz")
    # a folder without any prior-N.npz (a folder of some counts is read: tests/learn)
    (tmp_path / "folder").mkdir()
    cases = {"junk.npz": "not an .npz archive", "mlp.npz": "a prior is a linear model",
             "logit.npz": "of output 'value'", "missing.npz": "no such file", "folder": "prior-2.npz"}
    for name, text in cases.items():
        with pytest.raises(SpecError, match="parameter 'prior'") as caught:
            make_bot(f"ismcts:iters=10,prior={tmp_path / name}", seed=1)
        assert text in str(caught.value) and "\n" not in str(caught.value)


def test_a_run_s_code_identity_holds_the_prior_s_files(tmp_path):
    random_prior(1).save(tmp_path / "one.npz")
    spec = f"ismcts:eval=style,prior={tmp_path / 'one.npz'}"
    first = model_identities([spec, "ismcts:eval=style"])
    assert "ismcts:eval=style" not in first and first[spec]["kind"] == "prior models"
    assert sorted(first[spec]["prior_sha256"]) == ["2", "3", "4", "5"]
    random_prior(2).save(tmp_path / "one.npz")           # a changed prior is changed code
    assert model_identities([spec])[spec]["prior_sha256"] != first[spec]["prior_sha256"]
    with pytest.raises(SpecError, match="parameter 'prior'"):
        model_identities([f"ismcts:prior={tmp_path / 'missing.npz'}"])


def logits_of(state, model):
    mover = state.current_player()
    out = {}
    for action in state.legal_actions():
        after = state.clone()
        after.apply_action(action)
        out[action] = model.evaluate(after.features(mover))
    return out


def test_on_a_single_world_the_cached_logits_are_the_uncached_computation(tmp_path):
    # omniscient: every world is the true state, so a node's cache must hold exactly the
    # logits of its state's legal actions, each child's prior the softmax over them, and
    # the children be expanded in descending logit (add_child puts the newest first)
    model = random_prior(9)
    model.save(tmp_path / "p.npz")
    bot = make_bot(f"ismcts:iters=400,omniscient=true,solver=false,prior={tmp_path / 'p.npz'}", seed=4)
    root_state = states(2, 1, seed=9)[0]
    bot.step(root_state)
    checked = 0
    stack = [(bot._searcher._tree(0)[0], root_state)]
    while stack:
        node, state = stack.pop()
        if not node["children"]:
            assert node["logits"] == {}
            continue
        expected = logits_of(state, model)
        assert node["logits"].keys() == expected.keys()
        for action, logit in expected.items():
            assert node["logits"][action] == pytest.approx(logit, rel=1e-5, abs=1e-5)
        weights = {a: np.exp(v - max(expected.values())) for a, v in expected.items()}
        total = sum(weights.values())
        order = [child["action"] for child in reversed(node["children"])]
        assert all(expected[a] >= expected[b] - 1e-5 for a, b in itertools.pairwise(order))
        for child in node["children"]:
            assert child["prior"] == pytest.approx(weights[child["action"]] / total, rel=1e-4, abs=1e-6)
            after = state.clone()
            after.apply_action(child["action"])
            if not after.is_terminal():
                stack.append((child, after))
        checked += 1
    assert checked > 20                 # the tree is deep enough to mean something


def test_a_reused_tree_keeps_each_nodes_cached_logits(tmp_path):
    random_prior(5).save(tmp_path / "p.npz")
    bot = make_bot(f"ismcts:iters=600,reuse=true,prior={tmp_path / 'p.npz'}", seed=8)
    state = glory_ai.Game(2).new_initial_state(21)
    other = make_bot("random", seed=1)
    kept_some = 0
    for _ in range(12):
        if state.is_terminal():
            break
        player = state.current_player()
        move = bot.step(state)
        before = bot._searcher._tree(0)[0]
        state.apply_action(move)
        path = [move]
        while not state.is_terminal() and state.current_player() != player:
            path.append(other.step(state))
            state.apply_action(path[-1])
        if state.is_terminal():
            break
        old = before
        for action in path:
            old = next((c for c in old["children"] if c["action"] == action), None)
            if old is None:
                break
        kept = bot._searcher._follow(state, player)
        assert bot._searcher._check_trees() == []
        if old is None or kept == 0:
            continue
        kept_some += 1
        pairs = [(old, bot._searcher._tree(0)[0])]
        while pairs:
            was, now = pairs.pop()
            # the same floats, moved with their nodes (not recomputed, not another node's)
            assert now["logits"] == was["logits"] and now["prior"] == was["prior"]
            children = {c["action"]: c for c in was["children"]}
            pairs.extend((children[c["action"]], c) for c in now["children"])
    assert kept_some >= 3


# ---- progressive widening (widen=) ----------------------------------------------------------

def allowed_children(widen: float, visits: int) -> int:
    return math.ceil(widen * math.sqrt(max(visits, 1)))


def walk(node, state):
    """Each (node, its state) of a tree whose every world is `state` (omniscient)."""
    stack = [(node, state)]
    while stack:
        node, state = stack.pop()
        yield node, state
        for child in node["children"]:
            after = state.clone()
            after.apply_action(child["action"])
            if not after.is_terminal():
                stack.append((child, after))


@pytest.mark.parametrize("widen", [0.5, 1.0])
def test_with_widening_a_node_has_at_most_its_share_of_children_best_logit_first(tmp_path, widen):
    # one world (omniscient): an expanded child is legal in every world, so no expansion is
    # forced, and a node of n visits has at most ceil(widen * sqrt(n)) children, expanded in
    # descending logit from the best of its legal actions
    model = random_prior(9)
    model.save(tmp_path / "p.npz")
    spec = f"ismcts:iters=1500,omniscient=true,solver=false,prior={tmp_path / 'p.npz'},widen={widen}"
    bot = make_bot(spec, seed=4)
    root_state = states(2, 1, seed=9)[0]
    bot.step(root_state)
    widened = narrowed = 0
    for node, state in walk(bot._searcher._tree(0)[0], root_state):
        if not node["children"]:
            continue
        assert len(node["children"]) <= allowed_children(widen, node["visits"])
        expected = logits_of(state, model)
        order = [child["action"] for child in reversed(node["children"])]
        assert order[0] == max(expected, key=expected.get)
        assert all(expected[a] >= expected[b] - 1e-5 for a, b in itertools.pairwise(order))
        widened += len(node["children"]) > 1
        narrowed += len(node["children"]) < len(expected)
    assert widened > 5 and narrowed > 5          # both the widening and its limit were met


def test_widening_off_searches_as_without_it_and_on_it_narrows(tmp_path):
    random_prior(3).save(tmp_path / "p.npz")
    prior = f"prior={tmp_path / 'p.npz'}"
    rows = {}
    for extra in ("", ",widen=0", ",widen=0.3"):
        bot = make_bot(f"ismcts:iters=800,{prior}{extra}", seed=6)
        got = []
        for state in states(3, 4, seed=5):
            bot.step(state)
            stats = bot.last_search()
            got.append((stats["actions"], bot._searcher._tree(0)[0]["visits"],
                        len(bot._searcher._tree(0)[0]["children"])))
        rows[extra] = got
    assert rows[""] == rows[",widen=0"]
    assert rows[",widen=0.3"] != rows[""]


def test_widening_never_leaves_a_world_without_a_child_to_follow(tmp_path):
    # honest worlds differ in the legal actions: with widen tiny (one child until 10^4
    # visits; no solver, whose decisive moves expand too), a world where no expanded child
    # is legal expands one rather than stop there
    random_prior(4).save(tmp_path / "p.npz")
    bot = make_bot(f"ismcts:iters=1500,solver=false,prior={tmp_path / 'p.npz'},widen=0.01", seed=2)
    forced = 0
    for state in states(4, 6, seed=8):
        bot.step(state)
        assert bot._searcher._check_trees() == []
        stack = [bot._searcher._tree(0)[0]]
        while stack:
            node = stack.pop()
            forced += len(node["children"]) > allowed_children(0.01, node["visits"])
            stack.extend(node["children"])
    assert forced > 0


def test_widen_is_a_number_from_0_to_100():
    with pytest.raises(SpecError, match="widen"):
        make_bot("ismcts:iters=10,prior=learned,widen=-1")
    with pytest.raises(SpecError, match="widen"):
        make_bot("ismcts:iters=10,prior=learned,widen=x")
