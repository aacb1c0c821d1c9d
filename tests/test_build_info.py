"""glory_ai.build_info(): the hash of the compiled sources written at build time, and the
stale-build check that compares it with the sources beside an in-place build."""
import re
import shutil
from pathlib import Path

import glory_ai
from glory_ai._source_hash import compiled_sources, source_hash

PACKAGE = Path(glory_ai.__file__).parent
CHECKOUT = PACKAGE.parent


def test_the_build_under_test_was_made_from_these_sources():
    info = glory_ai.build_info()
    assert re.fullmatch(r"[0-9a-f]{64}", info["source_hash"]), info
    assert info["debug"] in (True, False)
    # the suite runs against an in-place build of this tree: it must not be stale
    assert info["stale"] is False, "rebuild the extensions: pip install -e ."
    assert info["source_hash"] == source_hash(PACKAGE)


def test_compiled_sources_cover_the_engine_and_the_search():
    names = {p.relative_to(CHECKOUT).as_posix() for p in compiled_sources(PACKAGE)}
    for expected in ("glory_ai/core/engine.pyx", "glory_ai/core/engine.pxd", "glory_ai/core/_turn.pxi",
                     "csrc/cards.h", "csrc/tables.h", "csrc/rng.h", "glory_ai/bots/_search.pyx",
                     "glory_ai/bots/_policy.pxi", "glory_ai/arena/_loop.pyx"):
        assert expected in names
    assert not any(name.endswith((".py", ".so")) for name in names)
    # the copy of the headers that a build places in the package is not a source
    assert not any(name.startswith("glory_ai/core/include/") for name in names)
    assert not any(name.endswith(".c") and not name.startswith("csrc/") for name in names)


def test_any_edit_of_a_compiled_source_changes_the_hash(tmp_path):
    copy = tmp_path / "glory_ai"
    for path in compiled_sources(PACKAGE):
        target = tmp_path / path.relative_to(CHECKOUT)
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
    (tmp_path / "csrc" / "extra.h").write_text("")
    assert source_hash(copy) != original
    (tmp_path / "csrc" / "extra.h").unlink()
    header = tmp_path / "csrc" / "rng.h"
    header.write_bytes(header.read_bytes() + b"\n")
    assert source_hash(copy) != original


def test_the_packaged_copy_of_the_headers_is_not_hashed(tmp_path):
    # glory_ai/core/include/ is written by every build: hashing it would make a build stale
    copy = tmp_path / "glory_ai"
    for path in compiled_sources(PACKAGE):
        target = tmp_path / path.relative_to(CHECKOUT)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)
    original = source_hash(copy)
    (copy / "core" / "include").mkdir()
    (copy / "core" / "include" / "cards.h").write_text("/* an old copy */")
    assert source_hash(copy) == original


def test_no_sources_no_hash(tmp_path):
    # an installed wheel ships no .pyx (only the .pxd and a copy of the headers): nothing to
    # compare, so stale is None there
    package = tmp_path / "glory_ai"
    (package / "core" / "include").mkdir(parents=True)
    (package / "core" / "engine.pxd").write_text("")
    (package / "core" / "include" / "cards.h").write_text("")
    assert source_hash(package) is None
