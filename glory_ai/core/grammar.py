"""The grammar of action strings (docs/notation.md, "Grammar"), as a recognizer.

``State.string_to_action`` matches a text against the strings of the legal actions; when
none matches, this module tells the two failures apart: a string of the grammar that is not
legal now (``IllegalActionError``) and a string that is no action string at all
(``ActionParseError``). It accepts every text ``action_to_string`` can write, for any id in
any state (tests/test_api.py checks that), and compares as ``string_to_action`` does: case
and extra blanks ignored.

>>> from glory_ai.core.grammar import is_action_string
>>> is_action_string("Patron: hire  Temple from pool"), is_action_string("patron: hire Tmple from pool")
(True, False)
"""
from __future__ import annotations

import re
from functools import cache

from .cards import CARD_NAMES, MATERIALS, ROLES

# One template per line of the grammar's tables, in lower case, with placeholders:
# <card> a card name (Jack included), <role> a role name, <material> a material name,
# <seat> P0..P4, <word> the role word of an action (a role, "thinker" for a granted think,
# "fountain" for a Fountain's card; "action" stands in when there is no role), <extra> the
# Legionary extra named. Optional parts are regular expressions as written.
_TEMPLATES = (
    r"think: take jack", r"think: refill", r"think: draw 1", r"think: skip",
    r"think: discard hand \(vomitorium\)", r"think: discard <card> \(latrine\)",
    r"tribunal: take jack", r"tribunal: skip",
    r"(lead|follow) <role> with <card>",
    r"(lead|follow) architect with <card> \(crane\)",
    r"(lead|follow) <role> by petition of <role>",
    r"petition: <card>", r"petition: done", r"done",
    r"<word>: skip", r"<word>: done",
    r"patron: hire <card> from (pool|hand)", r"patron: hire top of deck",
    r"laborer: take <card> from pool", r"laborer: move <card> from hand",
    r"<word>: lay <card>( out of town)?", r"<word>: lay statue on <material>( out of town)?",
    r"<word>: add <card>( from pool)? to <card>",
    r"merchant: vault <card> from (stockpile|hand)", r"merchant: vault top of deck",
    r"legionary: reveal <card>", r"legionary: done revealing",
    r"legionary: take <card> from pool", r"legionary: done taking",
    r"legionary: use <extra> on <seat>", r"legionary: spare <seat> \(<extra>\)", r"legionary: use extra",
    r"give <card>", r"give <card> from stockpile", r"give client <card>", r"give structure <card>",
    r"craftsman: draw from deck \(fountain\)", r"fountain: keep <card>", r"fountain: keep the card",
    r"prison: take <card> from <seat>", r"prison: skip",
    r"stairway: add <card>( from pool)? to <card> of <seat>", r"stairway: skip",
    r"sewer: move <card> to stockpile", r"sewer: done",
    r"senate: take jacks", r"senate: skip",
)


def _alternatives(names) -> str:
    # longest first, so that "forum romanum" is tried before "forum"
    return "(?:" + "|".join(re.escape(name.lower()) for name in sorted(names, key=len, reverse=True)) + ")"


@cache
def _grammar() -> re.Pattern[str]:
    words = {
        "<card>": _alternatives(CARD_NAMES),
        "<role>": _alternatives(ROLES),
        "<material>": _alternatives(MATERIALS),
        "<seat>": r"p[0-4]",
        "<word>": _alternatives([*ROLES, "thinker", "fountain", "action"]),
        "<extra>": _alternatives(["hand", "bridge", "colosseum", "domus aurea"]),
    }
    alternatives = []
    for template in _TEMPLATES:
        for placeholder, pattern in words.items():
            template = template.replace(placeholder, pattern)
        alternatives.append(f"(?:{template})")
    return re.compile("|".join(alternatives))


def is_action_string(text: str) -> bool:
    """Whether `text` is an action string of the grammar (in some state), ignoring case and
    extra blanks as ``State.string_to_action`` does."""
    return _grammar().fullmatch(" ".join(text.split()).lower()) is not None


__all__ = ["is_action_string"]
