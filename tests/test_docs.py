"""The documentation says what the code does: the README's examples run, every action string
the engine produces fits the grammar of docs/notation.md, every key of a position or an
observation is documented there, and its table of action ids is the generated one.

    python3 tests/test_docs.py --write     # rewrite the action-id table of docs/notation.md
"""
from __future__ import annotations

import contextlib
import doctest
import io
import json
import random
import re
import sys
from pathlib import Path

import pytest

import glory_ai
import glory_ai.game
from glory_ai import actions
from glory_ai.core import engine

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
NOTATION = ROOT / "docs" / "notation.md"
ENGINE_DOC = ROOT / "docs" / "engine.md"

TABLE_BEGIN = "<!-- action-ids:begin (generated from glory_ai.actions.BLOCKS: do not edit by hand) -->"
TABLE_END = "<!-- action-ids:end -->"


def test_game_module_doctests():
    result = doctest.testmod(glory_ai.game)
    assert result.attempted > 0 and result.failed == 0


def test_actions_module_doctests():
    result = doctest.testmod(actions)
    assert result.attempted > 0 and result.failed == 0


# ---- (a) the README -------------------------------------------------------------------------

def _python_blocks(text: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", text, re.S)


def test_readme_python_examples_run():
    blocks = _python_blocks(README.read_text())
    assert len(blocks) >= 2
    namespace: dict = {}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        for i, code in enumerate(blocks):
            exec(compile(code, f"README.md python block {i + 1}", "exec"), namespace)
    printed = out.getvalue().splitlines()
    # the first example shows a real game: a dozen decisions of several kinds and players
    moves = [line for line in printed if re.match(r"turn \d+, P\d: ", line)]
    assert len(moves) == 12
    assert len({line.split(": ", 1)[1].split(" ")[0] for line in moves}) >= 4   # lead, think, ...
    assert len({re.match(r"turn \d+, (P\d)", line).group(1) for line in moves}) == 3   # every player
    assert namespace["same"].to_dict() == namespace["position"]
    assert namespace["copy"]._raw_bytes() == namespace["state"]._raw_bytes()


def test_readme_commented_results_are_true():
    # the numbers the README's comments promise are the ones its code prints
    text = README.read_text()
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(_python_blocks(text)[0], "README.md", "exec"), {})
    printed = out.getvalue()
    promises = (re.findall(r"# ([\d ]+): P1 leads turn 2", text)
                + re.findall(r"# (\[[\d, ]+\] \[[\d, ]*\] \w+)", text))
    assert len(promises) == 2
    for promised in promises:
        assert promised in printed, promised
    first_move = re.search(r'# "(turn 2, P\d: [^"]+)"', text).group(1)
    assert first_move in printed


def test_readme_says_how_long_the_shipped_experiments_took():
    # the range the README gives is that of the shipped manifests' seconds
    seconds = [json.loads(m.read_text())["seconds"] for m in sorted(ROOT.glob("results/*/manifest.json"))
               if (m.parent / "experiment.toml").exists()]
    assert len(seconds) >= 6
    said = re.search(r"each took from (\d+) min (\d+) s to (\d+) min (\d+) s", README.read_text())
    assert said, "the README's sentence on the experiments' duration"
    low, high = int(said[1]) * 60 + int(said[2]), int(said[3]) * 60 + int(said[4])
    assert (low, high) == (round(min(seconds)), round(max(seconds)))


def _links(path: Path) -> list[str]:
    return [target for target in re.findall(r"\]\(([^)\s]+)\)", path.read_text())
            if not re.match(r"[a-z]+:", target)]


def _anchors(path: Path) -> set[str]:
    # GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens
    anchors = set()
    for heading in re.findall(r"^#+ (.+)$", path.read_text(), re.M):
        anchors.add(re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-"))
    return anchors


def test_links_resolve_inside_the_repository():
    missing = []
    for doc in (README, NOTATION, ENGINE_DOC):
        for target in _links(doc):
            file_part, _, anchor = target.partition("#")
            resolved = (doc.parent / file_part).resolve() if file_part else doc
            assert ROOT in resolved.parents or resolved == ROOT, f"{doc.name}: {target} leaves the repository"
            if not resolved.exists():
                missing.append(f"{doc.relative_to(ROOT)}: {target}")
            elif anchor and resolved.suffix == ".md":
                assert anchor in _anchors(resolved), \
                    f"{doc.name}: no heading for #{anchor} in {file_part or doc.name}"
    assert not missing


def test_docs_cite_no_file_outside_the_repository():
    for doc in (README, NOTATION, ENGINE_DOC):
        text = doc.read_text()
        for stale in ("../" + "shared", "RULES" + ".md", "_rules.pxi"):
            assert stale not in text, f"{doc.name} still cites {stale}"
        assert not re.search(r"(?<![/\w])cards\.csv", text.replace("glory_ai/data/cards.csv", "")), \
            f"{doc.name}: cite the card table as glory_ai/data/cards.csv"


def test_readme_documentation_table_lists_every_page():
    text = README.read_text()
    table = {m.group(1) for m in re.finditer(r"^\| \[(docs/[\w-]+\.md)\]", text, flags=re.MULTILINE)}
    pages = {f"docs/{p.name}" for p in (README.parent / "docs").glob("*.md")}
    assert table == pages, f"README's table misses {sorted(pages - table)}, names {sorted(table - pages)}"


# ---- (b) every action string fits the grammar -----------------------------------------------

_ROLE_NAMES = ("Laborer", "Craftsman", "Architect", "Legionary", "Merchant", "Patron")


def _alternation(words) -> str:
    return "(?:" + "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True)) + ")"


PLACEHOLDERS = {
    "<Card>": _alternation(glory_ai.CARD_NAMES),
    "<Building>": _alternation(glory_ai.CARD_NAMES[1:]),
    "<Role>": _alternation(_ROLE_NAMES),
    "<Role2>": _alternation(_ROLE_NAMES),
    "<role>": _alternation(["patron", "laborer", "architect", "craftsman", "merchant"]),
    "<Material>": _alternation(glory_ai.MATERIALS),
    "<k>": "[0-4]",
}


def _section(text: str, start: str, end: str) -> str:
    begin = text.index(start)
    return text[begin:text.index(end, begin)]


def grammar_tables(text: str | None = None) -> dict[str, list[str]]:
    """{'legal': [...], 'other': [...]}: the backticked patterns in the first column of the
    grammar tables of docs/notation.md (tables whose first header cell is "string").
    Tables whose second column is "when" describe texts of ids that are not legal."""
    text = NOTATION.read_text() if text is None else text
    grammar = _section(text, "### Grammar", "## Action ids")
    out: dict[str, list[str]] = {"legal": [], "other": []}
    kind = None
    for line in grammar.splitlines():
        if not line.startswith("|"):
            kind = None
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cells[0] == "string":
            kind = "other" if cells[1] == "when" else "legal"
            continue
        if kind is None or set(cells[0]) <= {"-", ":", " "}:
            continue
        out[kind].extend(re.findall(r"`([^`]+)`", cells[0]))
    return out


def pattern_regex(pattern: str) -> re.Pattern:
    parts = re.split(r"(<[A-Za-z0-9]+>)", pattern)
    regex = ""
    for part in parts:
        if part.startswith("<") and part.endswith(">"):
            assert part in PLACEHOLDERS, f"notation.md: unknown placeholder {part} in `{pattern}`"
            regex += PLACEHOLDERS[part]
        else:
            regex += re.escape(part)
    return re.compile(regex)


# Blocks a builder-biased player prefers, so that building functions come into play.
_BUILDER_BLOCKS = ("hire_pool", "hire_deck", "hire_hand", "dock_hand", "lay", "lay_statue", "add",
                   "add_pool", "vault_deck", "vault_hand", "fountain_draw", "fountain_keep",
                   "give_stockpile", "give_client", "give_structure", "prison", "stairway", "sewer",
                   "senate", "use_extra", "think_vomitorium", "think_latrine", "play_crane")
_BUILDER_IDS = frozenset(a for name in _BUILDER_BLOCKS for a in actions.block_range(name))


def _play_and_collect(state, rng, strings, states=None, sample_every=0):
    """Play to the end, 90% of the time among the builder-preferred actions when there are
    any; add every legal action's string of every state to `strings` (checking that they
    are unique in the state), and every `sample_every`-th state to `states`."""
    step = 0
    while not state.is_terminal():
        legal = state.legal_actions()
        texts = [state.action_to_string(a) for a in legal]
        assert len({t.lower() for t in texts}) == len(texts), f"strings not unique: {texts}"
        for a, t in zip(legal, texts, strict=True):
            strings.setdefault(t, (state.phase(), actions.block_of(a)))
        if states is not None and sample_every and step % sample_every == 0:
            states.append(state.clone())
        preferred = [a for a in legal if a in _BUILDER_IDS]
        pool = preferred if preferred and rng.random() < 0.9 else legal
        state.apply_action(rng.choice(pool))
        step += 1


_COLLECTED: dict = {}


def collected():
    """Every distinct legal action string (with its phase and block) over seeded
    builder-biased games, 2-5 players, both modes; and a sample of states. Cached."""
    if not _COLLECTED:
        strings: dict[str, tuple] = {}
        states: list = []
        for mode in ("republic", "imperium"):
            for num_players in (2, 3, 4, 5):
                game = glory_ai.Game(num_players, mode=mode)
                for seed in range(60):
                    rng = random.Random(seed * 7 + num_players)
                    _play_and_collect(game.new_initial_state(seed), rng, strings, states,
                                      sample_every=40 if seed < 6 else 0)
        _COLLECTED.update(strings=strings, states=states)
    return _COLLECTED


def test_grammar_tables_parse():
    tables = grammar_tables()
    assert len(tables["legal"]) > 60 and tables["other"]
    for pattern in tables["legal"] + tables["other"]:
        pattern_regex(pattern)
    assert "petition: done" in tables["legal"]


@pytest.mark.slow
def test_every_action_string_fits_the_grammar():
    tables = grammar_tables()
    regexes = [(p, pattern_regex(p)) for p in tables["legal"]]
    strings = dict(collected()["strings"])
    strings.update(rare_strings())
    unmatched = {s: where for s, where in strings.items() if not any(r.fullmatch(s) for _, r in regexes)}
    assert not unmatched, f"action strings missing from docs/notation.md's grammar: {unmatched}"
    # and the grammar is not stale: play reaches every pattern
    unused = [p for p, r in regexes if not any(r.fullmatch(s) for s in strings)]
    assert not unused, f"docs/notation.md patterns no game produced: {unused}"


# Positions for strings that seeded random games reach too rarely for a quick test: each is
# played by the moves given, collecting the legal strings of every state on the way.
_FILL = ["Bar", "Insula", "Latrine", "Road", "Bar", "Insula", "Latrine", "Road", "Bar", "Insula"]


def _complete(building: str, *materials: str) -> dict:
    return {"building": building, "materials": list(materials), "complete": True}


RARE_POSITIONS = {
    "a Fountain draws a Statue (out of town with a second Craftsman action)": (
        {"num_players": 2, "deck": ["Statue"] + _FILL,
         "sites": {"in_town": {"Rubble": 0}, "out_of_town": {"Rubble": 6}},
         "players": [{"hand": ["Dock"], "clientele": ["Palisade"],
                      "structures": [_complete("Fountain", "Temple", "Palace", "Villa")]},
                     {"hand": ["Temple"]}]},
        ["lead Craftsman with Dock", "think: take Jack", "craftsman: draw from deck (Fountain)"],
        ["fountain: lay Statue on Rubble out of town", "fountain: lay Statue on Wood",
         "fountain: keep Statue"]),
    "Colosseum: the victim chooses which client": (
        {"num_players": 2, "mode": "imperium", "deck": _FILL,
         "players": [{"hand": ["Bath", "Road"],
                      "structures": [_complete("Colosseum", "Villa", "Garden", "Prison")]},
                     {"hand": ["Temple"], "clientele": ["Bar", "Insula"], "influence": ["Marble"]}]},
        ["lead Legionary with Bath", "think: take Jack", "legionary: reveal Road",
         "legionary: use Colosseum on P1"],
        ["legionary: spare P1 (Colosseum)", "give client Bar", "give client Insula"]),
    "Domus Aurea: the victim chooses which structure": (
        {"num_players": 2, "deck": _FILL[:6],
         "players": [{"hand": ["Bath", "Road"],
                      "structures": [_complete("Domus Aurea", "Villa", "Garden", "Prison")]},
                     {"hand": ["Temple"], "structures": [{"building": "Bar"}, {"building": "Insula"}]}]},
        ["lead Legionary with Bath", "think: take Jack", "legionary: reveal Road",
         "legionary: use Domus Aurea on P1"],
        ["legionary: spare P1 (Domus Aurea)", "give structure Bar", "give structure Insula"]),
    "Stairway with Archway: a material from the pool": (
        {"num_players": 2, "deck": _FILL[:6], "pool": ["Latrine"],
         "players": [{"hand": ["Tower"], "structures": [_complete("Stairway", "Villa", "Garden", "Prison"),
                                                       _complete("Archway", "Bath", "Gate")]},
                     {"hand": ["Temple"], "structures": [_complete("Road", "Bar")]}]},
        ["lead Architect with Tower", "think: take Jack"],
        ["stairway: add Latrine from pool to Road of P1", "stairway: skip"]),
}


def rare_strings() -> dict[str, tuple]:
    strings: dict[str, tuple] = {}
    for label, (position, moves, expected) in RARE_POSITIONS.items():
        state = glory_ai.State.from_dict(position)
        seen = []
        for move in moves + [None]:
            texts = state.legal_action_strings()
            seen.extend(texts)
            for text in texts:
                strings.setdefault(text, (label, state.phase()))
            if move is not None:
                state.apply_action_string(move)
        missing = [e for e in expected if e not in seen]
        assert not missing, f"{label}: {missing} not offered"
    return strings


@pytest.mark.slow
def test_texts_of_any_action_id_fit_the_grammar():
    # action_to_string accepts every id: in a few states, every id's text is a documented
    # form, with any lower-case role word for the ids that are not legal there
    tables = grammar_tables()
    loose = dict(PLACEHOLDERS)
    loose["<role>"] = _alternation(["patron", "laborer", "architect", "craftsman", "merchant",
                                    "legionary", "thinker", "action", "fountain"])

    def loose_regex(pattern):
        regex = ""
        for part in re.split(r"(<[A-Za-z0-9]+>)", pattern):
            regex += loose[part] if part in loose else re.escape(part)
        return re.compile(regex)

    generic = re.compile("|".join(
        f"(?:{loose_regex(re.sub(r'^(architect|craftsman|fountain): ', '<role>: ', p)).pattern})"
        for p in tables["legal"] + tables["other"]))
    states = collected()["states"]
    for state in states[:: max(1, len(states) // 12)]:
        for a in range(glory_ai.NUM_DISTINCT_ACTIONS):
            text = state.action_to_string(a)
            assert generic.fullmatch(text), (state.phase(), a, text)


def test_notation_position_example_loads():
    import json

    position = json.loads(_code_blocks(NOTATION.read_text(), "json")[0])
    state = glory_ai.State.from_dict(position)
    assert glory_ai.State.from_dict(state.to_dict()).to_dict() == state.to_dict()
    assert state.zone("deck") == position["deck"]


# ---- (c) every key of a position and an observation is documented ------------------------

def _key_paths(value, path=()):
    """(path, key) of every dict key, recursively; list items share their list's path."""
    if isinstance(value, dict):
        if path[-1:] == ("copies",):           # variant.copies maps card names to counts
            return
        for key, item in value.items():
            yield path, key
            yield from _key_paths(item, path + (key,))
    elif isinstance(value, list):
        for item in value:
            yield from _key_paths(item, path)


def _documented_keys_states():
    states = list(collected()["states"])
    game = glory_ai.Game(3, in_town_sites=2, copies={"Temple": 4}, removed=["Bath"])
    states.append(game.new_initial_state(5))
    position = {"num_players": 2, "players": [
        {"hand": ["Temple"], "structures": [
            {"building": "Road", "materials": ["Insula"], "complete": True, "stairway": "Bar"}]},
        {}]}
    states.append(glory_ai.State.from_dict(position))
    return states


def _turn_table(text: str) -> dict[str, str]:
    rows = {}
    for line in _section(text, "### The turn", "### Refusals").splitlines():
        match = re.match(r"\| `([a-z_]+)` \|(.*)\|$", line)
        if match:
            rows[match.group(1)] = match.group(2)
    return rows


@pytest.mark.slow
def test_every_position_and_observation_key_is_documented():
    text = NOTATION.read_text()
    turn_rows = _turn_table(text)
    seen: set = set()
    for state in _documented_keys_states():
        dicts = [state.to_dict()] + [state.observation(p) for p in range(state.num_players())]
        for d in dicts:
            seen.update(_key_paths(d))
    for path, key in sorted(seen):
        if path[:1] == ("sites",) and len(path) == 2:
            assert f"`{key}`" in text                # material names
            continue
        assert f"`{key}`" in text, f"notation.md does not document {'.'.join(path + (key,))}"
        if path[:1] == ("turn",):
            field = path[1] if len(path) > 1 else key
            assert field in turn_rows, f"turn.{field} has no row in notation.md's turn table"
            if len(path) > 1:
                assert f"`{key}`" in turn_rows[field], f"turn.{field}.{key} is not described in its row"
    # the keys the test relies on were all reached
    keys = {key for _, key in seen}
    for key in ("format", "version", "functions_used", "observer", "deck_size", "hand_size",
                "vault_size", "stairway", "in_town_sites", "copies", "removed", "kind", "count",
                "revealed_count", "give_material", "turn_state", "jacks_played"):
        assert key in keys, key


def test_turn_value_names_are_documented():
    rows = _turn_table(NOTATION.read_text())
    for phase in list(engine.PHASE_NAMES.values()):
        assert f"`{phase}`" in rows["phase"], phase
    for name in engine._THINK_RETURNS:
        assert f"`{name}`" in rows["think_return"], name
    for name in engine._SOURCES + tuple(p for p, _ in engine._PARTS):
        assert f"`{name}`" in rows["action"], name
    for name in engine._ENTRY_KINDS.values():
        assert f"`{name}`" in rows["queue"], name
    for name in engine._GIVE_KINDS:
        assert f"`{name}`" in rows["legionary"], name
    for name in engine._END_STEPS:
        assert f"`{name}`" in rows["end_step"], name
    for name in glory_ai.EndReason:
        assert f"`{name}`" in rows["end_reason"], name
    assert set(rows) == set(engine._TURN_KEYS)


# ---- docs/engine.md -----------------------------------------------------------------------

def test_engine_doc_covers_the_c_api_and_the_files():
    text = ENGINE_DOC.read_text()
    pxd = (ROOT / "glory_ai" / "core" / "engine.pxd").read_text()
    for name in re.findall(r"^cdef (?:inline )?[\w ]+?\*? ?(\w+)\(", pxd, re.M):
        assert f"`{name}(" in text or f"`{name}`" in text or f" {name}(" in text, \
            f"docs/engine.md does not describe {name} (engine.pxd)"
    core = ROOT / "glory_ai" / "core"
    for path in sorted(core.glob("*.pxi")) + sorted((ROOT / "csrc").glob("*.h")):
        assert f"`{path.relative_to(ROOT).as_posix()}`" in text, f"docs/engine.md's map lacks {path.name}"


def _code_blocks(text: str, language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", text, re.S)


@pytest.mark.slow
def test_engine_doc_cython_example_builds_and_runs(tmp_path):
    # the "Using the engine from Cython" example, compiled against this checkout
    pytest.importorskip("Cython")
    import shutil
    import subprocess
    import sysconfig

    compiler = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if not shutil.which(compiler):
        pytest.skip(f"no C compiler ({compiler})")
    text = ENGINE_DOC.read_text()
    (tmp_path / "my_search.pyx").write_text(_code_blocks(text, "cython")[0])
    setup_py, usage = _code_blocks(text, "python")[:2]
    (tmp_path / "setup.py").write_text(setup_py)
    build = subprocess.run([sys.executable, "setup.py", "build_ext", "--inplace", "-q"], cwd=tmp_path,
                           capture_output=True, text=True, timeout=600)
    assert build.returncode == 0, build.stdout[-3000:] + build.stderr[-3000:]
    check = usage + (
        "\nfrom concurrent.futures import ThreadPoolExecutor\n"
        "p = state.current_player()\n"
        "one = [my_search.win_rate(state, p, 300, k) for k in range(4)]\n"
        "with ThreadPoolExecutor(2) as pool:\n"
        "    two = list(pool.map(lambda k: my_search.win_rate(state, p, 300, k), range(4)))\n"
        "assert one == two and all(0 <= r <= 1 for r in one), (one, two)\n")
    run = subprocess.run([sys.executable, "-c", check], cwd=tmp_path, capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    assert 0 <= float(run.stdout.split()[0]) <= 1


# ---- (d) the action-id table is the generated one -------------------------------------------

def _argument_text(args) -> str:
    return " × ".join(f"{kind} {first}–{first + count - 1}" for kind, count, first in args) or "–"


def action_id_table() -> str:
    """The generated "Action ids" table of docs/notation.md, from glory_ai.actions.BLOCKS."""
    lines = [TABLE_BEGIN,
             "| block | first id | size | arguments (first most significant) | meaning |",
             "|---|---:|---:|---|---|"]
    for block in actions.BLOCKS.values():
        lines.append(f"| `{block.name}` | {block.start} | {block.size} | {_argument_text(block.args)} "
                     f"| {block.meaning} |")
    temple, road = glory_ai.CARD_NAMES.index("Temple"), glory_ai.CARD_NAMES.index("Road")
    add = actions.BLOCKS["add"]
    lines += ["",
              f"{actions.NUM_DISTINCT_ACTIONS} ids in all (`glory_ai.NUM_DISTINCT_ACTIONS`). For example "
              f'`encode("add", "Temple", "Road")` = {add.start} + ({temple} − 1)·44 + ({road} − 1) = '
              f'{actions.encode("add", "Temple", "Road")} (Temple is card {temple}, Road card {road}).',
              TABLE_END]
    return "\n".join(lines)


def _doc_table(text: str) -> str:
    begin = text.index(TABLE_BEGIN)
    end = text.index(TABLE_END, begin) + len(TABLE_END)
    return text[begin:end]


def test_action_id_table_matches_the_blocks():
    expected = action_id_table()
    assert _doc_table(NOTATION.read_text()) == expected, (
        "docs/notation.md's action-id table is out of date; run python3 tests/test_docs.py --write "
        "or paste:\n" + expected)
    temple, road = glory_ai.CARD_NAMES.index("Temple"), glory_ai.CARD_NAMES.index("Road")
    add = actions.BLOCKS["add"]
    assert actions.encode("add", "Temple", "Road") == add.start + (temple - 1) * 44 + road - 1
    starts = [b.start for b in actions.BLOCKS.values()]
    sizes = [b.size for b in actions.BLOCKS.values()]
    assert starts == [sum(sizes[:i]) for i in range(len(sizes))]
    assert sum(sizes) == glory_ai.NUM_DISTINCT_ACTIONS


def _write_table() -> None:
    text = NOTATION.read_text()
    NOTATION.write_text(text.replace(_doc_table(text), action_id_table()))


if __name__ == "__main__":
    if sys.argv[1:] == ["--write"]:
        _write_table()
    else:
        print(__doc__)
