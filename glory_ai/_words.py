"""Small words of the messages a user reads: "a" or "an" before a name, and a count with its
noun in the singular for one. (The engine, which imports nothing of the package, has its own.)

>>> article("Insula"), article("Bar"), article("Academy"), plural(1, "decision"), plural(3, "decision")
('an Insula', 'a Bar', 'an Academy', '1 decision', '3 decisions')
>>> plural(1200, "game"), plural(1, "run", "runs"), plural(0, "bot")
('1,200 games', '1 run', '0 bots')
"""
from __future__ import annotations

__all__ = ["article", "plural"]


def article(word: str) -> str:
    """The word with its indefinite article: "a Bar", "an Insula" (by its first letter: the
    names of the cards, bots and types this is used for have no silent h or sounded vowel)."""
    return f"{'an' if word[:1] in 'AEIOUaeiou' else 'a'} {word}"


def plural(n: int | float, word: str, word_plural: str | None = None) -> str:
    """A count (thousands separated) and its noun, singular for exactly one."""
    count = f"{int(n):,}" if float(n).is_integer() else f"{n:,.1f}"
    return f"{count} {word if n == 1 else word_plural or word + 's'}"
