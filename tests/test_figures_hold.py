"""Figures that hold: every figure README.md and docs/*.md quote from a folder of results/
either comes from game records that a test replays on this build, or from a measurement
kept under results/bench/ that names the build it measured; the figures a page quotes from
a measurement are in it; and a page quoting a measurement made on another build than this
one names that build beside it.

* Outcome folders (win rates, intervals, findings: functions of the records) hold on any
  build whose games replay to the stored records: the shipped experiments
  (tests/experiments/test_shipped_results.py replays them), results/learned_evaluation
  (tests/learn/test_shipped_learning.py) and results/learned_prior (tests/learn/test_shipped_prior.py).
* Measurements (results/bench: speeds, costs, ratios) are not replayed: each file names its
  build (``build <12 hex digits>``, the compiled sources' hash of ``glory_ai.build_info()``,
  written by ``glory_ai.bench.provenance``). A speed a page quotes (ns, µs, it/s, games or
  decisions per second, a ratio ``x1.85``) stands in a block marked
  ``<!-- figures: results/bench/FILE -->`` (the marker line, then the paragraph or table
  up to the next blank line), and every figure of the block with a unit is in that file, as
  printed or rounded. When a file's build is not this build's, every page that quotes it
  must say which build its figures hold for (the same 12 digits), or it must be measured
  again on this build (``glory-ai bench --compare --out results/bench``, and the
  ``python benchmarks/NAME.py ... > results/bench/NAME.txt`` its first line names).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import glory_ai

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md"] + sorted((ROOT / "docs").glob("*.md"))
MEASURED = "bench"
BUILD = re.compile(r"\bbuild `?([0-9a-f]{12})\b")
LINK = re.compile(r"\]\(((?:\.\./)?results/[^)#\s]+)")
MARKER = re.compile(r"<!--\s*figures:\s*(?P<files>[^>]*?)\s*-->")
NUMBER = r"\d[\d,]*(?:\.\d+)?"
#: "games per CPU second" and its kin ("random 2-player games per second")
PER_SECOND = (r"(?:random |two-player |four-player |\d-player )*"
              r"(?:games|decisions|iterations) per (?:CPU )?second")
#: a measured figure: a number with a unit of time or rate, a share, or a ratio
FIGURE = re.compile(
    rf"(?:[x×](?P<ratio>{NUMBER})\b)"
    rf"|(?P<value>{NUMBER})\s?(?P<unit>it/s|iterations/s|ns\b|µs|ms\b|games/s|decisions/s|%|M\b"
    rf"|{PER_SECOND})")
#: what makes a line a speed measurement that must stand in a marked block
SPEED = re.compile(
    rf"{NUMBER}\s?(?:it/s|iterations/s|ns\b|µs|games/s|decisions/s)|{NUMBER} {PER_SECOND}|[x×]\d+\.\d")
#: a figure in µs may be printed in µs or ns, one in millions (``6.5 M``) in units
SCALES = {"µs": (1.0, 1e3), "M": (1e6,)}


@dataclass
class Block:
    page: Path
    line: int                  # of the marker, 1-based
    files: list[Path]
    text: str


def _prose(page: Path) -> list[tuple[int, str]]:
    """(line number, line) of a page outside its fenced code blocks."""
    lines, fenced = [], False
    for number, line in enumerate(page.read_text().splitlines(), 1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
        elif not fenced:
            lines.append((number, line))
    return lines


def _blocks(page: Path) -> list[Block]:
    """The marked blocks of a page: a marker's files and the lines after it up to a blank one."""
    lines = page.read_text().splitlines()
    found = []
    for index, line in enumerate(lines):
        match = MARKER.search(line)
        if not match:
            continue
        body = []
        for following in lines[index + 1:]:
            if not following.strip():
                break
            body.append(following)
        files = [(page.parent / name).resolve() for name in match["files"].split()]
        found.append(Block(page, index + 1, files, "\n".join(body)))
    return found


def _quoted() -> list[tuple[Path, Path]]:
    """(page, file or folder under results/) for every link of a page into results/ and
    every file a marker names."""
    found = []
    for page in PAGES:
        for target in LINK.findall(page.read_text()):
            path = (page.parent / target).resolve()
            if ROOT / "results" in path.parents:
                found.append((page, path))
        found += [(page, path) for block in _blocks(page) for path in block.files]
    return list(dict.fromkeys(found))


def _folder(path: Path) -> str:
    return path.relative_to(ROOT / "results").parts[0]


def _replayed(folder: str) -> bool:
    here = ROOT / "results" / folder
    if folder in ("learned_evaluation", "learned_prior"):     # tests/learn: test_shipped_learning, _prior
        return (here / "summary.json").exists() and (here / "experiment.toml").exists()
    if (here / "tune.toml").exists():        # a balance study: tests/tune/test_shipped_studies.py
        return (here / "manifest.json").exists() and (here / "validation.csv").exists()
    return (here / "experiment.toml").exists() and (here / "manifest.json").exists()


def _build_of(path: Path) -> str | None:
    match = BUILD.search(path.read_text())
    return match.group(1) if match else None


def _half_step(written: str) -> float:
    """Half a unit of the last significant digit of a figure as written (``18,700``: 50)."""
    digits = written.replace(",", "")
    if "." in digits:
        return 10.0 ** -len(digits.split(".")[1]) / 2
    return 10.0 ** (len(digits) - len(digits.rstrip("0"))) / 2 if digits.strip("0") else 0.5


def _figures(text: str) -> list[tuple[str, float, float, tuple[float, ...]]]:
    """(as written, value, half a unit of its last significant digit, the scales a file
    may print it in) of the measured figures of a block's text (inline code left out:
    options are not figures)."""
    text = re.sub(r"`[^`]*`", "", text)
    found = []
    for match in FIGURE.finditer(text):
        written = match["ratio"] or match["value"]
        scales = SCALES.get(match["unit"] or "", (1.0,))
        found.append((match.group(0).strip(), float(written.replace(",", "")), _half_step(written), scales))
    # a table's cells that hold a measured number alone, the unit in the row's or the
    # column's name (thousands or decimals: a count of players or states is no figure)
    cells = [c.strip() for line in text.splitlines() if line.startswith("|") for c in line.split("|")]
    found += [(c, float(c.replace(",", "")), _half_step(c), (1.0,)) for c in cells
              if re.fullmatch(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+\.\d+", c)]
    return found


def _numbers(path: Path) -> list[float]:
    """Every number a measurement file prints."""
    return [float(n.replace(",", "")) for n in re.findall(NUMBER, path.read_text())]


def _in(value: float, tolerance: float, numbers: list[float], scales: tuple[float, ...] = (1.0,)) -> bool:
    return any(abs(n / scale - value) <= tolerance * (1 + 1e-9) + 1e-12 for n in numbers for scale in scales)


def test_pages_quote_results():
    assert {_folder(p) for _, p in _quoted()} >= {MEASURED, "strategy_ladder", "learned_evaluation"}


def test_every_quoted_results_folder_is_replayed_or_a_measurement_naming_its_build():
    problems = []
    for page, path in _quoted():
        folder = _folder(path)
        where = f"{page.relative_to(ROOT)} quotes {path.relative_to(ROOT)}"
        if not path.exists():
            problems.append(f"{where}: no such file")
        elif folder == MEASURED:
            if path.is_dir() or _build_of(path) is None:
                problems.append(f"{where}: a measurement that does not name its build")
        elif not _replayed(folder):
            problems.append(f"{where}: neither game records a test replays nor a measurement")
    assert not problems, "\n".join(problems)


def test_a_measurement_of_another_build_is_quoted_with_that_build():
    current = str(glory_ai.build_info()["source_hash"])[:12]
    problems = []
    for page, path in _quoted():
        if _folder(path) != MEASURED or not path.is_file():
            continue
        build = _build_of(path)
        if build is not None and build != current and build not in page.read_text():
            problems.append(f"{page.relative_to(ROOT)} quotes {path.relative_to(ROOT)}, measured on build "
                            f"{build}, not this build {current}: measure it again on this build, or say "
                            f"beside the figures which build they hold for ({build})")
    assert not problems, "\n".join(problems)


def test_every_speed_a_page_quotes_stands_in_a_block_marked_with_its_measurement():
    problems = []
    for page in PAGES:
        marked = {b.line + 1 + i for b in _blocks(page) for i in range(b.text.count("\n") + 1)}
        for number, line in _prose(page):
            if number not in marked and SPEED.search(re.sub(r"`[^`]*`", "", line)):
                problems.append(f"{page.relative_to(ROOT)}:{number}: a measured speed outside a "
                                f"<!-- figures: results/bench/FILE --> block: {line.strip()[:90]}")
    assert not problems, "\n".join(problems)


def test_the_figures_of_a_marked_block_are_in_its_measurement():
    problems = []
    blocks = [b for page in PAGES for b in _blocks(page)]
    assert len(blocks) >= 8
    for block in blocks:
        where = f"{block.page.relative_to(ROOT)}:{block.line}"
        missing = [f for f in block.files if not f.is_file() or _folder(f) != MEASURED]
        if missing or not block.text:
            problems.append(f"{where}: a marker without a block, or naming no file of results/bench: "
                            f"{missing}")
            continue
        numbers = [n for f in block.files for n in _numbers(f)]
        figures = _figures(block.text)
        if not figures:
            problems.append(f"{where}: a marked block without a figure")
        for written, value, tolerance, scales in figures:
            if not _in(value, tolerance, numbers, scales):
                problems.append(f"{where}: {written!r} is not in "
                                f"{', '.join(str(f.relative_to(ROOT)) for f in block.files)}")
    assert not problems, "\n".join(problems)


def test_the_check_reads_builds_figures_and_markers(tmp_path):
    note = tmp_path / "x.md"
    note.write_text("Written by `glory-ai bench --compare` (glory_ai 0.1.0, build 0238545f86b0; ...)")
    assert _build_of(note) == "0238545f86b0"
    note.write_text("no build here")
    assert _build_of(note) is None
    assert _replayed("strategy_ladder") and _replayed("learned_evaluation") and not _replayed(MEASURED)
    figures = _figures("clone 54 ns, about 23,000 random 2-player games per CPU second, 0.42 µs, ×1.85, "
                       "6.5 M decisions, `iters=200` 3.0%")
    assert [(w, round(v, 6), round(t, 6), s) for w, v, t, s in figures] == [
        ("54 ns", 54, 0.5, (1,)), ("23,000 random 2-player games per CPU second", 23000, 500, (1,)),
        ("0.42 µs", 0.42, 0.005, (1, 1e3)), ("×1.85", 1.85, 0.005, (1,)), ("6.5 M", 6.5, 0.05, (1e6,)),
        ("3.0%", 3.0, 0.05, (1,))]
    assert _in(23000, 500, [23089.7]) and not _in(23000, 500, [23600.0])
    assert _in(0.42, 0.005, [418.0], (1, 1e3)) and _in(0.42, 0.005, [0.42], (1, 1e3))
    assert not _in(1.85, 0.005, [1.86]) and _in(6.5, 0.05, [6_520_060.0], (1e6,))
    page = tmp_path / "page.md"
    assert [(w, v) for w, v, _, _ in _figures("| 2 | 18,700 | x |\n| 4 | 1.5 | 3 players |")] == [
        ("18,700", 18700), ("1.5", 1.5)]
    page.write_text("a\n<!-- figures: ../results/bench/x.txt -->\n| 2 | 18,700 it/s |\n\nnot marked 5 ns\n")
    (block,) = _blocks(page)
    assert block.line == 2 and block.text == "| 2 | 18,700 it/s |" and block.files[0].name == "x.txt"
    assert [n for n, line in _prose(page) if SPEED.search(line)] == [3, 5]
