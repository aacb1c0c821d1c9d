"""How the report names a spec: without the parameters left at the bot's defaults."""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

__all__ = ["spec_labels"]


def spec_labels(specs: Iterable[str]) -> dict[str, str]:
    """The label each spec is shown by: the spec without the parameters that are at the
    bot's default in every spec of that bot here (a parameter that sets one spec apart is
    kept in all of them). A spec this build cannot read keeps its text, and so do specs
    that would share a label.

    >>> from glory_ai.bots import registry
    >>> at_default = f"ismcts:iters=500,c={registry()['ismcts'].defaults()['c']}"
    >>> spec_labels(["ismcts:iters=250", at_default, "greedy"])[at_default]
    'ismcts:iters=500'
    >>> list(spec_labels(["ismcts:iters=250", "ismcts:iters=500,c=9.5", "pimc:iters=500"]).values())
    ['ismcts:iters=250', 'ismcts:iters=500,c=9.5', 'pimc:iters=500']
    """
    from ...bots import SpecError, parse_spec, registry

    specs = list(dict.fromkeys(str(s) for s in specs))
    parsed: dict[str, tuple[str, dict[str, Any], list[tuple[str, str]]]] = {}
    for spec in specs:
        head, colon, rest = spec.partition(":")
        try:
            bot, params = parse_spec(spec)
            defaults = registry()[bot].defaults()
        except (SpecError, KeyError):
            continue
        if not colon or ":" in rest or head.strip().lower() != bot:
            continue                    # a user's bot (a path or module), or no parameters
        written = [(part.partition("=")[0].strip().lower(), part.strip())
                   for part in rest.split(",") if part.strip()]
        parsed[spec] = (bot, {k: params[k] != defaults.get(k) for k in params}, written)
    # the parameters that set some spec of a bot apart from the bot's defaults
    shown: dict[str, set[str]] = {}
    for bot, differs, _ in parsed.values():
        shown.setdefault(bot, set()).update(k for k, d in differs.items() if d)
    labels = {}
    for spec in specs:
        if spec not in parsed:
            labels[spec] = spec
            continue
        bot, _, written = parsed[spec]
        kept = [text for key, text in written if key in shown[bot]]
        labels[spec] = spec.partition(":")[0].strip() + (":" + ",".join(kept) if kept else "")
    taken: dict[str, int] = {}
    for label in labels.values():
        taken[label] = taken.get(label, 0) + 1
    return {spec: label if taken[label] == 1 else spec for spec, label in labels.items()}
