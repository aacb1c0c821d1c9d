"""A bot spec parsed once (glory_ai.bots.BotSpec): the bot, the parameters given and resolved,
the canonical text and its round trip, labels from what runs recorded (without importing a
bot or running a user's code), the spelling as played, and one SpecError naming the part at
fault for every mistake."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from glory_ai.arena.code import spec_as_played
from glory_ai.arena.plan import canonical_spec
from glory_ai.bots import (
    TIME_DEFAULTS,
    BotSpec,
    SpecError,
    builtin_name,
    make_bot,
    parse_spec,
    register,
    registry,
    spec_labels,
    unregister,
)
from glory_ai.bots.builtin_params import BUILTIN_PARAMS
from glory_ai.bots.grammar import append_params, head, join_spec, read_params, split_spec, split_spec_list
from support.userbots import write_bot

SPECS = ["random", "greedy", " Greedy ", "heuristic:style=builder,epsilon=0.1", "heuristic:eval=learned",
         "flatmc:iters=100,rollout=heuristic,style=legionary", "pimc:Worlds=3, iters=60,cutoff=0",
         "ISMCTS:Iters=200, C=0.5 ", "ismcts:iters=100,Reuse=TRUE,solver=False", "ismcts:time_ms=50",
         "ismcts:iters=5,,c=1", "ismcts:"]


# ---- parsing ------------------------------------------------------------------------------

def test_a_spec_is_parsed_once_into_its_bot_the_parameters_given_and_resolved():
    spec = BotSpec.parse(" ISMCTS:Iters=200, C=0.5,reuse=TRUE ")
    assert (spec.text, spec.name, spec.kind, spec.builtin) == ("ISMCTS:Iters=200, C=0.5,reuse=TRUE",
                                                               "ismcts", "builtin", True)
    assert spec.given == (("iters", "200"), ("c", "0.5"), ("reuse", "TRUE"))     # as written, in order
    assert spec.gives("c") and not spec.gives("cutoff")
    params = spec.params
    assert (params["iters"], params["c"], params["reuse"], params["cutoff"]) == (200, 0.5, True, 80)
    assert list(params) == [p.name for p in registry()["ismcts"].params]        # the bot's order
    params["iters"] = 1                                                          # a copy
    assert spec.params["iters"] == 200
    assert spec == BotSpec.parse("ISMCTS:Iters=200, C=0.5,reuse=TRUE") and hash(spec) == hash(
        BotSpec.parse("ISMCTS:Iters=200, C=0.5,reuse=TRUE"))


@pytest.mark.parametrize("text", SPECS)
def test_the_wrappers_are_the_spec_value(text):
    spec = BotSpec.parse(text)
    assert parse_spec(text) == (spec.name, spec.params)
    assert canonical_spec(text) == spec.canonical
    assert make_bot(text, seed=2).params == spec.params
    assert make_bot(text, seed=2).spec == spec.text


@pytest.mark.parametrize("text", SPECS)
def test_text_to_spec_to_canonical_text_round_trips(text):
    spec = BotSpec.parse(text)
    again = BotSpec.parse(spec.canonical)
    assert again.canonical == spec.canonical
    assert again.params == spec.params and again.name == spec.name
    assert " " not in spec.canonical and spec.canonical == spec.canonical.strip()


def test_the_canonical_text_lowers_names_keys_and_flags_only():
    assert BotSpec.parse(" ISMCTS:Iters=200, C=0.5 ").canonical == "ismcts:iters=200,c=0.5"
    assert BotSpec.parse("ismcts:iters=5,Reuse=TRUE,solver=False").canonical == \
        "ismcts:iters=5,reuse=true,solver=false"
    assert BotSpec.parse("heuristic:style=builder").canonical == "heuristic:style=builder"
    assert BotSpec.parse("ismcts:iters=5,,c=1").canonical == "ismcts:iters=5,c=1"
    assert BotSpec.parse("ismcts:").canonical == "ismcts"


def test_the_special_rules_of_the_built_ins_are_applied_once():
    # a style given alone is the evaluation; eval= alone keeps it; both is an error
    assert BotSpec.parse("ismcts:style=patron").params["eval"] == "style"
    assert BotSpec.parse("ismcts").params["eval"] == "learned"
    assert BotSpec.parse("ismcts:eval=").params["eval"] == "style"          # the old spelling
    assert BotSpec.parse("heuristic:style=patron").params["eval"] == "style"
    with pytest.raises(SpecError, match="give style= or eval=, not both"):
        BotSpec.parse("ismcts:style=patron,eval=learned")
    assert BotSpec.parse("ismcts:style=patron,eval=style").params["style"] == "patron"
    # a budget of time brings its defaults, unless given
    timed = BotSpec.parse("ismcts:time_ms=20")
    assert {key: timed.params[key] for key in TIME_DEFAULTS} == TIME_DEFAULTS
    assert BotSpec.parse("ismcts:time_ms=20,cutoff=80").params["cutoff"] == 80
    assert BotSpec.parse("pimc:time_ms=20").params["cutoff"] == 40           # ISMCTS's rule only
    assert BotSpec.parse("ismcts:iters=0,time_ms=5").params["iters"] == 0


@pytest.mark.parametrize("spec, words", [
    ("alphazero:iters=5", ["'alphazero:iters=5'", "unknown bot 'alphazero'", "known: random, greedy"]),
    ("ismcts:iterations=5", ["ismcts has no parameter 'iterations'", "accepted: iters, time_ms"]),
    ("ismcts:iters=5,iters=6", ["parameter 'iters' given twice"]),
    ("ismcts:iters=5,c", ["'c' is not key=value"]),
    ("ismcts:iters=5:x", ["parameter 'iters'", "expected int, got '5:x'"]),
    ("ismcts:iters=0", ["give iters > 0 or a time_ms or cpu_ms budget"]),
    ("ismcts:time_ms=20,cpu_ms=20", ["give time_ms (wall time) or cpu_ms (CPU time), not both"]),
    ("ismcts:belief=65", ["parameter 'belief'", "out of range 1..64"]),
    ("pimc:iters=10,worlds=20", ["worlds (20) exceeds iters (10)"]),
    ("heuristic:eval=learned,style=builder", ["give style= or eval=, not both"]),
    ("./missing_bot.py", ["a bot file names the bot in it", "./missing_bot.py:ClassName"]),
    ("   ", ["non-empty"]),
])
def test_a_bad_spec_is_one_spec_error_naming_the_part_at_fault(spec, words):
    with pytest.raises(SpecError) as info:
        BotSpec.parse(spec)
    assert isinstance(info.value, ValueError)
    for word in words:
        assert word in str(info.value)


def test_a_non_string_is_a_spec_error():
    with pytest.raises(SpecError, match="non-empty string"):
        BotSpec.parse(None)                  # type: ignore[arg-type]


def test_builtin_name_reads_the_first_part_only():
    assert builtin_name(" ISMCTS:iters=5") == "ismcts"
    assert builtin_name("./ismcts.py:Bot") is None
    assert builtin_name("mine:x=1") is None
    assert list(BUILTIN_PARAMS) == list(registry())[:len(BUILTIN_PARAMS)]


# ---- users' bots --------------------------------------------------------------------------

BOT = """
    import random

    class Cautious:
        def __init__(self, seed=0, risk=0.3, loud=False):
            self.rng = random.Random(seed)

        def step(self, state):
            return self.rng.choice(state.legal_actions())
"""


def test_a_users_bot_spec_keeps_its_text_and_its_parameters(tmp_path, monkeypatch):
    write_bot(tmp_path / "my_bot.py", BOT)
    monkeypatch.chdir(tmp_path)
    spec = BotSpec.parse(" ./my_bot.py:Cautious:Risk=0.1,loud=YES ")
    assert (spec.name, spec.kind, spec.builtin) == ("./my_bot.py:Cautious", "file", False)
    assert spec.params == {"risk": 0.1, "loud": True}
    assert spec.canonical == "./my_bot.py:Cautious:Risk=0.1,loud=YES"      # a file: as written
    assert spec.label(["risk"]) == spec.text
    with pytest.raises(SpecError, match="Cautious has no parameter 'depth'"):
        BotSpec.parse("./my_bot.py:Cautious:depth=3")


def test_a_registered_bots_spec_is_canonical_like_a_built_ins():
    class Patient:
        def __init__(self, seed=0, wait=2, quiet=False):
            pass

        def step(self, state):
            return state.legal_actions()[0]

    register("patient", Patient)
    try:
        spec = BotSpec.parse("Patient:Wait=3,quiet=TRUE")
        assert (spec.name, spec.kind) == ("patient", "registered")
        assert spec.canonical == "patient:wait=3,quiet=true"
        assert BotSpec.parse(spec.canonical).params == {"wait": 3, "quiet": True}
    finally:
        unregister("patient")


# ---- the grammar ---------------------------------------------------------------------------

def test_the_grammar_splits_without_knowing_a_bot():
    assert split_spec("ismcts:iters=5").kind == "name"
    assert split_spec("mypkg.bots:Cautious:risk=0.3").bot == "mypkg.bots:Cautious"
    assert split_spec("./x.py:Cls:a=1").given == (("a", "1"),)
    assert read_params(" A = 1 ,b=x=y") == (("a", "1"), ("b", "x=y"))
    assert head(" PIMC : worlds=3") == "pimc"
    assert join_spec("greedy", []) == "greedy"
    assert append_params("ismcts:iters=5", [("eval", "m.npz")]) == "ismcts:iters=5,eval=m.npz"
    assert split_spec_list("ismcts:iters=200,c=0.5,random,heuristic:style=builder") == [
        "ismcts:iters=200,c=0.5", "random", "heuristic:style=builder"]
    with pytest.raises(SpecError, match="two commas in a row"):
        split_spec_list("random,,greedy")


# ---- as played -----------------------------------------------------------------------------

def test_as_played_spells_out_what_changed_since_a_run():
    spec = BotSpec.parse("ismcts:iters=500")
    # a run that recorded no turnwin was played before it existed: as with turnwin=0
    assert spec.as_played({"iters": 500, "cutoff": 40, "solver": False}) == \
        "ismcts:iters=500,cutoff=40,solver=false,turnwin=0"
    assert spec.as_played({"iters": 500, "cutoff": 40, "solver": False}, before=False) == \
        "ismcts:iters=500,cutoff=40,solver=false"
    assert spec.as_played(spec.params) == "ismcts:iters=500"
    assert BotSpec.parse("pimc:iters=500").as_played({"iters": 500, "eval": ""}) == "pimc:iters=500"
    assert BotSpec.parse("greedy").as_played({"gone": 3}) == "greedy:gone=3"
    assert spec_as_played("ismcts:iters=500", {"cutoff": 40}) == "ismcts:iters=500,cutoff=40,turnwin=0"
    assert spec_as_played("ismcts:iters=500", {"cutoff": 40}, before=False) == "ismcts:iters=500,cutoff=40"
    assert spec_as_played("nobot:x=1", {"x": 2}) == "nobot:x=1"             # unreadable: as it is
    # the value in canonical form; the function of the arena appends to the text it is given
    assert BotSpec.parse(" PIMC:Iters=500 ").as_played({"cutoff": 20}) == "pimc:iters=500,cutoff=20"
    assert spec_as_played(" PIMC:Iters=500 ", {"cutoff": 20}) == " PIMC:Iters=500 ,cutoff=20"


def test_a_parameter_added_since_a_run_counts_at_its_value_before_it_existed():
    declared = {p.name: p.before for p in BotSpec.parse("ismcts").declared if p.before is not None}
    assert declared == {"cpu_ms": 0.0, "omniscient": False, "turnwin": 0, "turnwin_worlds": 8,
                        "keep": 0.0, "rollout_others": "same", "cheat": "none", "prior": "off",
                        "prior_c": 1.0, "widen": 0.0, "forum_threat": False,
                        "paired": False, "ahead": 0.0}
    ismcts = BotSpec.parse("ismcts:iters=500")
    old = {k: v for k, v in ismcts.params.items() if k not in declared}      # recorded before them
    assert ismcts.played_differences(old) == [("turnwin", "0")]
    # a before-value equal to today's default adds nothing: PIMC's turnwin, and every other
    pimc = BotSpec.parse("pimc:iters=500,worlds=10")
    assert pimc.played_differences({k: v for k, v in pimc.params.items() if k not in declared}) == []
    # turnwin written in the spec means what it says, as played or not
    assert BotSpec.parse("ismcts:iters=500,turnwin=0").played_differences(old) == []
    assert BotSpec.parse("ismcts:iters=500,turnwin=0").params["turnwin"] == 0
    # a run recorded with it keeps what it recorded; one that records nothing stays as written
    assert ismcts.played_differences({**old, "turnwin": 0, "turnwin_worlds": 8}) == [("turnwin", "0")]
    assert ismcts.played_differences(ismcts.params) == [] and ismcts.played_differences({}) == []


# ---- labels --------------------------------------------------------------------------------

def test_labels_drop_the_parameters_that_set_no_spec_apart():
    specs = ["ismcts:iters=250", "ismcts:iters=500,c=0.7", "ismcts:iters=500,c=9.5,cutoff=80", "greedy",
             "pimc:iters=500"]
    labels = spec_labels(specs)
    assert labels == {"ismcts:iters=250": "ismcts:iters=250",
                      "ismcts:iters=500,c=0.7": "ismcts:iters=500,c=0.7",
                      "ismcts:iters=500,c=9.5,cutoff=80": "ismcts:iters=500,c=9.5",
                      "greedy": "greedy", "pimc:iters=500": "pimc:iters=500"}
    # two specs that would share a label keep their text
    same = spec_labels(["ismcts:iters=500,c=0.7", "ismcts:iters=500"])
    assert same == {"ismcts:iters=500,c=0.7": "ismcts:iters=500,c=0.7",
                    "ismcts:iters=500": "ismcts:iters=500"}


def test_labels_read_the_parameters_recorded_and_the_defaults_played():
    # a run played when ISMCTS's cutoff defaulted to 40: recorded, "cutoff=40" is the default
    recorded = {"ismcts:iters=200": {**BotSpec.parse("ismcts:iters=200").params, "cutoff": 40},
                "ismcts:iters=200,cutoff=40,c=0.5": {**BotSpec.parse("ismcts:iters=200,c=0.5").params,
                                                      "cutoff": 40}}
    labels = spec_labels(recorded, recorded)
    assert labels["ismcts:iters=200,cutoff=40,c=0.5"] == "ismcts:iters=200,c=0.5"
    # read with today's defaults instead, cutoff=40 sets it apart
    assert spec_labels(recorded)["ismcts:iters=200,cutoff=40,c=0.5"] == "ismcts:iters=200,cutoff=40,c=0.5"
    # an old spelling recorded is read as today's parser reads it
    old = {"pimc:iters=500,eval=style": {"iters": 500, "eval": ""},
           "pimc:iters=200": {"iters": 200, "eval": ""}}
    assert spec_labels(old, old)["pimc:iters=500,eval=style"] == "pimc:iters=500"


def test_labels_never_import_a_bot_nor_run_a_users_file(tmp_path):
    (tmp_path / "boom.py").write_text(f"open({str(tmp_path / 'ran')!r}, 'w').write('x')\n"
                                      "class Bot:\n    def step(self, state):\n        return 0\n")
    recorded = {"ismcts:iters=200": {"iters": 200, "c": 0.7}, "ismcts:iters=500": {"iters": 500, "c": 0.7}}
    code = f"""
import json, sys
from glory_ai.bots.labels import spec_labels
labels = spec_labels(["ismcts:iters=200", "ismcts:iters=500", "./boom.py:Bot:x=1", "cautious:risk=1"],
                     {recorded!r})
loaded = sorted(m for m in sys.modules if m.startswith("glory_ai.bots."))
print(json.dumps([labels, loaded]))
"""
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True,
                         check=True)
    labels, loaded = json.loads(out.stdout)
    assert labels == {"ismcts:iters=200": "ismcts:iters=200", "ismcts:iters=500": "ismcts:iters=500",
                      "./boom.py:Bot:x=1": "./boom.py:Bot:x=1", "cautious:risk=1": "cautious:risk=1"}
    assert not (tmp_path / "ran").exists()
    assert set(loaded) <= {"glory_ai.bots.labels", "glory_ai.bots.grammar", "glory_ai.bots.errors",
                           "glory_ai.bots.params", "glory_ai.bots.builtin_params", "glory_ai.bots.spec",
                           "glory_ai.bots.styles"}, loaded
