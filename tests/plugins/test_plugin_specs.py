"""Users' bots by spec: the grammar (built-in names, files, modules, registered names, entry
points), their parameters, and one clear error for every mistake."""
from __future__ import annotations

import sys

import pytest

import glory_ai
from glory_ai.arena import RunConfig
from glory_ai.bots import BotInfo, Param, SpecError, UserBot, make_bot, parse_spec, register, registry
from glory_ai.bots.grammar import split_spec
from glory_ai.cli import main as cli_main
from support.userbots import write_bot

BOT = """
    import random


    class Cautious:
        \"\"\"Random, with a risk.\"\"\"

        def __init__(self, seed=0, risk=0.3, depth=2, loud=False, name="c"):
            self.seed = seed
            self.rng = random.Random(seed)
            self.risk, self.depth, self.loud, self.name = risk, depth, loud, name

        def step(self, state):
            return self.rng.choice(state.legal_actions())


    def unseeded(level: int = 1) -> Cautious:
        return Cautious(seed=level)


    class Needs:
        def __init__(self, seed, width):
            self.width = width

        def step(self, state):
            return state.legal_actions()[0]


    class Ranged:
        from glory_ai.bots import Param

        PARAMS = (Param("risk", float, 0.5, "how often to gamble", 0, 1),)
        DESCRIPTION = "a ranged bot"

        def __init__(self, seed=0, risk=0.5):
            self.risk = risk

        def step(self, state):
            return state.legal_actions()[0]


    class NoStep:
        def __init__(self, seed=0):
            pass


    class Idle:
        def __init__(self, seed=0):
            pass


    INSTANCE = Cautious()
"""


@pytest.fixture
def bot_dir(tmp_path, monkeypatch):
    write_bot(tmp_path / "my_bot.py", BOT)
    (tmp_path / "sub").mkdir()
    write_bot(tmp_path / "sub" / "other.py", BOT)
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path
    sys.modules.pop("my_bot", None)


NAMES = {"random", "ismcts", "cautious"}.__contains__


@pytest.mark.parametrize("spec, kind, bot, params", [
    ("random", "name", "random", ""),
    ("ismcts:iters=5,c=1", "name", "ismcts", "iters=5,c=1"),
    ("cautious:risk=0.2", "name", "cautious", "risk=0.2"),
    ("./my_bot.py:Cautious", "file", "./my_bot.py:Cautious", ""),
    ("my_bot.py:Cautious:risk=0.1,depth=3", "file", "my_bot.py:Cautious", "risk=0.1,depth=3"),
    ("sub/other.py:Cautious", "file", "sub/other.py:Cautious", ""),
    ("/abs/path/bots:Outer.Inner:x=a:b", "file", "/abs/path/bots:Outer.Inner", "x=a:b"),
    ("mypkg.bots:Cautious:risk=0.3", "module", "mypkg.bots:Cautious", "risk=0.3"),
    ("my_bot:Cautious", "module", "my_bot:Cautious", ""),
    # a name that is a bot's stays a name: the mistake is then named as a parameter
    ("random:Foo", "name", "random", "Foo"),
])
def test_the_grammar_tells_names_files_and_modules_apart(spec, kind, bot, params):
    parts = split_spec(spec, NAMES)
    assert (parts.kind, parts.bot, parts.params) == (kind, bot, params)


def test_a_file_bot_is_built_with_typed_parameters_and_its_seed(bot_dir):
    name, params = parse_spec(" ./my_bot.py:Cautious:risk=0.1,depth=3,loud=yes,name=x ")
    assert name == "./my_bot.py:Cautious"
    assert params == {"risk": 0.1, "depth": 3, "loud": True, "name": "x"}
    bot = make_bot("./my_bot.py:Cautious:risk=0.1,depth=3", seed=11)
    assert isinstance(bot, UserBot) and bot.fair_play
    assert (bot.inner.seed, bot.inner.risk, bot.inner.depth, bot.inner.loud) == (11, 0.1, 3, False)
    state = glory_ai.Game(2).new_initial_state(4)
    assert bot.step(state) in state.legal_actions()
    # the same names, seeds and positions give the same moves
    again = make_bot("./my_bot.py:Cautious:risk=0.1,depth=3", seed=11)
    assert again.step(state) == make_bot("./my_bot.py:Cautious:risk=0.1,depth=3", seed=11).step(state)


def test_module_bots_functions_and_package_top_make_bot(bot_dir):
    assert parse_spec("my_bot:Cautious:risk=0.4") == ("my_bot:Cautious", {"risk": 0.4, "depth": 2,
                                                                          "loud": False, "name": "c"})
    # a function annotated to return a bot is a factory too; one without a seed parameter is
    # called without it
    bot = glory_ai.make_bot("my_bot:unseeded:level=7", seed=3)
    assert bot.inner.seed == 7
    ranged = make_bot("./my_bot.py:Ranged:risk=0.25")
    assert ranged.inner.risk == 0.25


@pytest.mark.parametrize("spec, message", [
    ("./nope.py:Cautious", "./nope.py: no such file (a relative path is relative to the current directory"),
    ("./my_bot.py", "a bot file names the bot in it: ./my_bot.py:ClassName"),
    ("./my_bot.py:Nope", "./my_bot.py: no 'Nope' in it"),
    ("./my_bot.py:Cautious:speed=3", "has no parameter 'speed'; accepted: risk, depth, loud, name"),
    ("./my_bot.py:Cautious:risk=high", "parameter 'risk': expected float, got 'high'"),
    ("./my_bot.py:Cautious:depth", "'depth' is not key=value"),
    ("./my_bot.py:Needs", "give width=... (./my_bot.py:Needs requires it)"),
    ("./my_bot.py:Ranged:risk=2", "parameter 'risk': 2.0 is out of range 0..1"),
    ("./my_bot.py:INSTANCE", "is not a class or a function that makes a bot (an object with step()"),
    ("nopkg.sub:Bot", "cannot import nopkg.sub (ModuleNotFoundError: No module named 'nopkg')"),
    ("random:Foo", "'Foo' is not key=value"),
    ("nonsense", "unknown bot 'nonsense'; known: random, greedy"),
])
def test_every_mistake_is_one_spec_error_naming_it(bot_dir, spec, message):
    with pytest.raises(SpecError) as caught:
        parse_spec(spec)
    assert message in str(caught.value) and "\n" not in str(caught.value)


def test_a_broken_bot_file_is_one_error(bot_dir):
    write_bot(bot_dir / "broken.py", "class Bot(:\n    pass\n")
    with pytest.raises(SpecError, match=r"broken.py: cannot load it \(SyntaxError: .*line 1"):
        parse_spec("./broken.py:Bot")
    write_bot(bot_dir / "raising.py", "raise RuntimeError('no')\n")
    with pytest.raises(SpecError, match=r"raising.py: cannot load it \(RuntimeError: no\)"):
        parse_spec("./raising.py:Bot")


def test_a_factory_must_make_an_object_with_step(bot_dir):
    with pytest.raises(SpecError, match="it made a NoStep, which has no step"):
        make_bot("./my_bot.py:NoStep")
    with pytest.raises(SpecError, match="it made an Idle, which has no step"):
        make_bot("./my_bot.py:Idle")


def test_the_command_line_prints_one_line_for_a_bad_user_spec(bot_dir, capsys):
    assert cli_main(["compare", "./my_bot.py:Nope", "random", "--games", "2", "--no-progress",
                     "--trust"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("glory-ai: error: bot spec './my_bot.py:Nope'") and "\n" not in err


def test_register_makes_a_name(bot_dir, registered):
    import my_bot

    registered.append("cautious")
    info = register("Cautious", my_bot.Cautious, params={"risk": 0.3, "depth": 2})
    assert isinstance(info, BotInfo) and info.origin == "registered" and info.name == "cautious"
    assert info.description == "Random, with a risk."
    assert registry()["cautious"] is info
    assert parse_spec("cautious:depth=4") == ("cautious", {"risk": 0.3, "depth": 4})
    assert make_bot("cautious:depth=4", seed=2).inner.depth == 4
    # registering again replaces; the declared Param list wins over the signature
    register("cautious", my_bot.Cautious, [Param("risk", float, 0.9, "risk", 0, 1)], "mine")
    assert registry()["cautious"].description == "mine"
    assert parse_spec("cautious") == ("cautious", {"risk": 0.9})
    # and the spec goes through a run's config like a built-in's
    assert RunConfig(specs=("cautious:risk=0.5", "random")).specs == ("cautious:risk=0.5", "random")


@pytest.mark.parametrize("name, factory, message", [
    ("greedy", "Cautious", "'greedy' is a built-in bot; choose another name"),
    ("my bot", "Cautious", "a bot name is a lower-case word"),
    ("x.y", "Cautious", "a bot name is a lower-case word"),
    ("fine", "INSTANCE", "is not a class or a function that makes a bot"),
])
def test_register_refuses_what_cannot_be_a_name_or_a_bot(bot_dir, registered, name, factory, message):
    import my_bot

    registered.append(name)
    with pytest.raises(SpecError, match=message.replace("(", r"\(")):
        register(name, getattr(my_bot, factory))


def test_register_refuses_bad_parameter_declarations(bot_dir, registered):
    import my_bot

    registered.append("p")
    with pytest.raises(SpecError, match="params must be a list of glory_ai.bots.Param"):
        register("p", my_bot.Cautious, params=["risk"])


def test_an_entry_point_bot_is_listed_and_works_by_name(installed_plugin, capsys):
    info = registry()["scorer"]
    assert info.origin == "entry point of glory-ai-example-plugin 0.1.0"
    assert [p.name for p in info.params] == ["greed", "explore"]
    assert parse_spec("scorer:greed=2") == ("scorer", {"greed": 2.0, "explore": 0.0})
    with pytest.raises(SpecError, match="out of range"):
        parse_spec("scorer:explore=3")
    state = glory_ai.Game(3).new_initial_state(1)
    bot = make_bot("scorer:greed=2", seed=5)
    assert bot.step(state) in state.legal_actions()
    assert cli_main(["bots"]) == 0
    out = capsys.readouterr().out
    assert "scorer [entry point of glory-ai-example-plugin 0.1.0]: One-ply lookahead on VP" in out
    assert "greed=1.0 (float 0..10)" in out
