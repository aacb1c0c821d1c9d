"""glory_ai.build_info(): the hash of the compiled sources written at build time, and the
stale-build check that compares it with the sources beside an in-place build."""
import re
import shutil
from pathlib import Path

import glory_ai
from glory_ai._source_hash import compiled_sources, source_hash

PACKAGE = Path(glory_ai.__file__).parent


def test_the_build_under_test_was_made_from_these_sources():
    info = glory_ai.build_info()
    assert re.fullmatch(r"[0-9a-f]{64}", info["source_hash"]), info
    assert info["debug"] in (True, False)
    # the suite runs against an in-place build of this tree: it must not be stale
    assert info["stale"] is False, "rebuild the extensions: pip install -e ."
    assert info["source_hash"] == source_hash(PACKAGE)


def test_compiled_sources_cover_the_engine_and_the_search():
    names = {p.relative_to(PACKAGE).as_posix() for p in compiled_sources(PACKAGE)}
    for expected in ("core/engine.pyx", "core/engine.pxd", "core/_turn.pxi", "core/include/cards.h",
                     "core/include/tables.h", "bots/_search.pyx", "bots/_policy.pxi"):
        assert expected in names
    assert not any(name.endswith((".py", ".c", ".so")) for name in names)


def test_any_edit_of_a_compiled_source_changes_the_hash(tmp_path):
    copy = tmp_path / "glory_ai"
    for path in compiled_sources(PACKAGE):
        target = copy / path.relative_to(PACKAGE)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)
    original = source_hash(copy)
    assert original == source_hash(PACKAGE)
    rules = copy / "core" / "_building.pxi"
    rules.write_bytes(rules.read_bytes() + b"\n")
    assert source_hash(copy) != original
    # a renamed file with the same bytes is a different source set too
    rules.write_bytes(rules.read_bytes()[:-1])
    assert source_hash(copy) == original
    (copy / "core" / "include" / "extra.h").write_text("")
    assert source_hash(copy) != original


def test_no_sources_no_hash(tmp_path):
    # an installed wheel ships no .pyx: nothing to compare, so stale is None there
    (tmp_path / "core").mkdir()
    (tmp_path / "core" / "engine.pxd").write_text("")
    assert source_hash(tmp_path) is None
