"""The project's rules reference (docs/rules.md) and card table stay self-contained.

* every rule id (``R-8.5.4``, ``R-6.5(c)``, ``R-11.1(2)``, ``R-4.x``, a section ``R-9.1``),
  ruling (``ruling A8``, ``§16 A11``, ``(A14)``), scenario (``S3``) and section (``§13``)
  cited by the package, the docs, the tests, the README, the benchmarks and the tools is an
  anchor of docs/rules.md;
* docs/rules.md itself is well formed: unique anchors, rulings and scenarios numbered without
  gaps, sections 1 to 18;
* csrc/cards.h is what tools/gen_cards.py makes of glory_ai/data/cards.csv;
* no file of the repository points outside it.

These tests only read files (and run tools/gen_cards.py): they never import glory_ai.
Run ``python tests/test_rules_reference.py`` to list every citation found and where.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
from collections import defaultdict
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "docs" / "rules.md"

# --------------------------------------------------------------------------- repository files

# what .gitignore leaves out (build products), for the walk without git
GENERATED_SUFFIXES = (".pyc", ".so", ".c", ".html")
SKIP_DIRS = {".git", "build", "dist", "__pycache__", ".pytest_cache", ".hypothesis", ".venv",
             "results"}


@cache
def repo_files() -> tuple[str, ...]:
    """Paths (relative, '/'-separated) of the files of the repository: tracked files plus
    untracked files git does not ignore; without git, a walk of the tree."""
    try:
        out = subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=ROOT, capture_output=True, check=True, timeout=60,
        ).stdout.decode("utf-8", "surrogateescape")
        names = [n for n in out.split("\0") if n]
        if names:
            return tuple(sorted(n for n in set(names) if (ROOT / n).is_file()))
    except (OSError, subprocess.SubprocessError):
        pass
    found = []
    for dirpath, dirnames, filenames in os.walk(ROOT):
        dirnames[:] = [d for d in dirnames if d not in SKIP_DIRS and not d.endswith(".egg-info")]
        for f in filenames:
            if not f.endswith(GENERATED_SUFFIXES):
                found.append((Path(dirpath) / f).relative_to(ROOT).as_posix())
    return tuple(sorted(found))


def read_text(rel: str) -> str | None:
    """The file's text, or None for a binary file (or one removed meanwhile)."""
    try:
        data = (ROOT / rel).read_bytes()
    except OSError:
        return None
    if b"\0" in data[:8192]:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


SOURCE_SUFFIXES = {".py", ".pyx", ".pxi", ".pxd", ".pyi"}
TEXT_SUFFIXES = SOURCE_SUFFIXES | {".md", ".txt", ".rst", ".h", ".cfg", ".toml", ".sh", ""}


def citing_files() -> list[str]:
    """The files whose rule citations must resolve: glory_ai/**/*.py|pyx|pxi|pxd|pyi,
    docs/*.md, tests/**/*.py, README.md, benchmarks/ and tools/."""
    chosen = []
    for rel in repo_files():
        p = Path(rel)
        top = p.parts[0]
        if top == "glory_ai" and p.suffix in SOURCE_SUFFIXES:
            chosen.append(rel)
        elif top == "docs" and len(p.parts) == 2 and p.suffix == ".md":
            chosen.append(rel)
        elif top == "tests" and p.suffix == ".py":
            chosen.append(rel)
        elif rel == "README.md":
            chosen.append(rel)
        elif top in ("benchmarks", "tools") and p.suffix in TEXT_SUFFIXES:
            chosen.append(rel)
    return chosen


# --------------------------------------------------------------------------- the anchors

RULE_ANCHOR = re.compile(r"\*\*(R-\d+(?:\.\d+)+)\*\*")
RULING_ANCHOR = re.compile(r"\*\*(A\d+)\*\*")
SCENARIO_HEADING = re.compile(r"^### (S\d+) — ", re.M)
SECTION_HEADING = re.compile(r"^#{2,3} §?(\d+(?:\.\d+)*)\.?\s", re.M)


@cache
def anchors() -> dict[str, list[str]]:
    text = RULES.read_text(encoding="utf-8")
    return {
        "rules": RULE_ANCHOR.findall(text),
        "rulings": RULING_ANCHOR.findall(text),
        "scenarios": SCENARIO_HEADING.findall(text),
        "sections": SECTION_HEADING.findall(text),
    }


def rule_targets() -> set[str]:
    """What an ``R-…`` citation may name: a rule, or a section (``R-8``, ``R-9.1``)."""
    a = anchors()
    return set(a["rules"]) | {"R-" + s for s in a["sections"]}


# --------------------------------------------------------------------------- the citations

# R-6.5(c), R-11.1(2), R-4.x; continuations R-8.5.4/5/7, R-12.1/12.2, R-8.1-8.4
RULE_CITE = re.compile(
    r"(?<![\w-])R-(\d+(?:\.\d+)*)((?:\.x)*)(?:\(\w{1,2}\))?"
    r"((?:[/-]\d+(?:\.\d+)*(?:\(\w{1,2}\))?)*)"
)
CONTINUATION = re.compile(r"[/-](\d+(?:\.\d+)*)")
# test_R_8_5_4_..., test_R_11_1_2_...: the last numbers may be a list item or a review item
TEST_NAME_CITE = re.compile(r"\bdef (test_R_(\d+(?:_\d+)*))(?=_[A-Za-z]|\()")
SECTION_CITE = re.compile(r"§\s?(\d+(?:\.\d+)*)")
# A ruling or a scenario: the letter, a number, and nothing word-like on either side
# (so A_SKIP, 0x1A2, PH_A1, A1B2 never count).
RULING_TOKEN = re.compile(r"(?<![\w.$#])A([1-9]\d?)(?![\w])")
SCENARIO_TOKEN = re.compile(r"(?<![\w.$#])S([1-9]\d?)(?![\w])")
# a citation context near the token: another rule id, a section sign, the words
# ruling/scenario, or another ruling/scenario token
NEARBY_MARKER = re.compile(r"R-\d|§|\bruling|\bscenario|(?<![\w.$#])[AS][1-9]\d?(?![\w])", re.I)
BEFORE_TOKEN = re.compile(
    r"(?:\bruling[s]?\s+|§16\s+|\(|/|\bA\d+-|#\s|\*\*|\bvs\.?\s+|\bdefault (?:of )?)$", re.I)
AFTER_TOKEN = re.compile(r"^(?:[:)]|/A\d|-A\d)")


def in_rule_context(text: str, start: int, end: int) -> bool:
    """Whether a ruling token is a citation: it comes right after "ruling", "§16", "(",
    "/" (A11/A18), a range (A13-A16), a comment sign, "**" (an anchor), "vs" or "default
    (of)"; or right before ":" or ")"; or near another rule id, a section sign, the word
    ruling/scenario or another ruling/scenario token."""
    before, after = text[max(0, start - 200):start], text[end:end + 60]
    if BEFORE_TOKEN.search(before) or AFTER_TOKEN.match(after):
        return True
    return bool(NEARBY_MARKER.search(before) or NEARBY_MARKER.search(after))


def line_of(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def expand_rule(base: str, continuations: str) -> list[str]:
    """R-8.5.4 + '/5/7' -> R-8.5.4, R-8.5.5, R-8.5.7; R-12.1 + '/12.2' -> R-12.1, R-12.2."""
    parts = base.split(".")
    ids = ["R-" + base]
    for cont in CONTINUATION.findall(continuations):
        c = cont.split(".")
        full = c if len(c) >= len(parts) else parts[: len(parts) - len(c)] + c
        ids.append("R-" + ".".join(full))
    return ids


@cache
def citations() -> dict[str, dict[str, list[str]]]:
    """kind -> cited id -> ['path:line', ...] over citing_files()."""
    found: dict[str, dict[str, list[str]]] = {
        k: defaultdict(list) for k in ("rules", "test_names", "rulings", "scenarios", "sections")
    }
    for rel in citing_files():
        text = read_text(rel)
        if text is None:
            continue
        for m in RULE_CITE.finditer(text):
            where = f"{rel}:{line_of(text, m.start())}"
            for rid in expand_rule(m.group(1), m.group(3)):
                found["rules"][rid].append(where)
        for m in TEST_NAME_CITE.finditer(text):
            found["test_names"][m.group(1)].append(f"{rel}:{line_of(text, m.start())}")
        for m in SECTION_CITE.finditer(text):
            found["sections"][m.group(1)].append(f"{rel}:{line_of(text, m.start())}")
        for m in RULING_TOKEN.finditer(text):
            if in_rule_context(text, m.start(), m.end()):
                found["rulings"]["A" + m.group(1)].append(f"{rel}:{line_of(text, m.start())}")
        for m in SCENARIO_TOKEN.finditer(text):      # a scenario token anywhere (no other use)
            found["scenarios"]["S" + m.group(1)].append(f"{rel}:{line_of(text, m.start())}")
    return {k: dict(v) for k, v in found.items()}


def unresolved(cited: dict[str, list[str]], targets: set[str]) -> list[str]:
    return [f"{cid} (cited at {', '.join(where[:3])}{' ...' if len(where) > 3 else ''})"
            for cid, where in sorted(cited.items()) if cid not in targets]


# --------------------------------------------------------------------------- docs/rules.md

def test_rules_reference_is_well_formed():
    a = anchors()
    for kind in ("rules", "rulings", "scenarios", "sections"):
        dups = sorted({x for x in a[kind] if a[kind].count(x) > 1})
        assert not dups, f"docs/rules.md: {kind} anchored more than once: {dups}"
    assert len(a["rules"]) >= 77, "docs/rules.md: rule anchors look like **R-8.5.4**"
    by_section: dict[str, list[int]] = defaultdict(list)
    for rid in a["rules"]:
        section, _, number = rid[2:].rpartition(".")
        by_section[section].append(int(number))
    for section, numbers in by_section.items():
        assert numbers == list(range(1, len(numbers) + 1)), \
            f"docs/rules.md: the rules of section {section} are not numbered 1, 2, ...: {numbers}"
    assert a["rulings"] == [f"A{i}" for i in range(1, len(a["rulings"]) + 1)], \
        "docs/rules.md: rulings numbered from A1 in order, no gaps"
    assert len(a["rulings"]) >= 34
    assert a["scenarios"] == [f"S{i}" for i in range(1, 13)], "scenarios S1 .. S12, in order"
    top = [s for s in a["sections"] if "." not in s]
    assert top == [str(i) for i in range(1, 19)], f"sections 1 .. 18 in order, got {top}"
    for rid in a["rules"]:
        section = rid[2:].split(".")
        assert ".".join(section[:-1]) in a["sections"], f"{rid} has no section {section[:-1]}"


# --------------------------------------------------------------------------- citations resolve

def test_cited_rule_ids_resolve():
    cited = citations()["rules"]
    assert len(cited) > 50, "the citation scan found almost nothing: is the file list right?"
    missing = unresolved(cited, rule_targets())
    assert not missing, "rule ids cited but not in docs/rules.md:\n  " + "\n  ".join(missing)


def test_rule_ids_in_test_names_resolve():
    """test_R_8_5_4_...: the numbers, or a prefix of at least two of them, name a rule or a
    section (trailing numbers may be a list item, test_R_11_1_1 = R-11.1(1), or a review
    item)."""
    targets = rule_targets()
    missing = []
    for name, where in sorted(citations()["test_names"].items()):
        nums = name[len("test_R_"):].split("_")
        prefixes = ("R-" + ".".join(nums[:k]) for k in range(min(2, len(nums)), len(nums) + 1))
        if not any(rid in targets for rid in prefixes):
            missing.append(f"{name} ({where[0]})")
    assert not missing, "test names citing rules docs/rules.md lacks:\n  " + "\n  ".join(missing)


def test_cited_rulings_resolve():
    cited = citations()["rulings"]
    assert cited, "no ruling citations found"
    missing = unresolved(cited, set(anchors()["rulings"]))
    assert not missing, "rulings cited but not in docs/rules.md §16:\n  " + "\n  ".join(missing)


def test_cited_scenarios_resolve():
    cited = citations()["scenarios"]
    assert cited, "no scenario citations found"
    missing = unresolved(cited, set(anchors()["scenarios"]))
    assert not missing, "scenarios cited but not in docs/rules.md §17:\n  " + "\n  ".join(missing)


def test_cited_sections_resolve():
    missing = unresolved(citations()["sections"], set(anchors()["sections"]))
    assert not missing, "sections cited but not in docs/rules.md:\n  " + "\n  ".join(missing)


@pytest.mark.parametrize("text, expected", [
    ("R-8.5.4/5/7", ["R-8.5.4", "R-8.5.5", "R-8.5.7"]),
    ("R-12.1/12.2/12.3", ["R-12.1", "R-12.2", "R-12.3"]),
    ("R-11.1(4)/(5)", ["R-11.1"]),
    ("R-6.5(c), R-4.x", ["R-6.5", "R-4"]),
    ("(R-8.1-8.4, R-8.6)", ["R-8.1", "R-8.4", "R-8.6"]),
    ("GR-1.2, PR-3", []),
])
def test_rule_citation_parsing(text, expected):
    got = [rid for m in RULE_CITE.finditer(text) for rid in expand_rule(m.group(1), m.group(3))]
    assert got == expected


@pytest.mark.parametrize("text, expected", [
    ("(R-6.6, ruling A1; default 2)", ["A1"]),
    ("§16 A11/A18): Amphitheatre", ["A11", "A18"]),
    ("rulings A13-A16, A25,", ["A13", "A16", "A25"]),
    ("the vault is below its limit (A14)", ["A14"]),
    ("PH_A1 = 3; A_SKIP = 0x1A2; A1B2; x.A3", []),
    ("column A1 of the sheet", []),
])
def test_ruling_citation_parsing(text, expected):
    got = ["A" + m.group(1) for m in RULING_TOKEN.finditer(text)
           if in_rule_context(text, m.start(), m.end())]
    assert got == expected


# --------------------------------------------------------------------------- generated header

def test_cards_header_matches_the_card_table():
    proc = subprocess.run([sys.executable, str(ROOT / "tools" / "gen_cards.py"), "--check"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr


# --------------------------------------------------------------------------- self-contained

OUTSIDE_PATHS = ("../" + "shared", "/work/" + "shared")


def test_no_file_refers_to_a_path_outside_the_repository():
    offenders = []
    for rel in repo_files():
        text = read_text(rel)
        if text is None:
            continue
        for n, line in enumerate(text.splitlines(), 1):
            if any(p in line for p in OUTSIDE_PATHS):
                offenders.append(f"{rel}:{n}: {line.strip()[:100]}")
    assert not offenders, "files pointing outside the repository:\n  " + "\n  ".join(offenders)


if __name__ == "__main__":
    for kind, cited in citations().items():
        print(f"== {kind}: {len(cited)} distinct")
        for cid, where in sorted(cited.items()):
            print(f"  {cid:24} {len(where):4}  {where[0]}")
