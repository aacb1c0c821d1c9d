"""The terminal screen: a table view (glory_ai.interactive.view) drawn with rich.

On a terminal the screen has colours (each card in its material's colour, as on the
cards), panels and a cleared screen per decision; when the output is not a terminal (a
pipe, a file, the tests) the same content is written as plain text: no colour codes, no
box drawing, nothing cleared.
"""
from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping, Sequence
from typing import IO, Any

from rich import box
from rich.console import Console, Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from ..cards import MATERIAL_VALUE, MATERIALS, ROLES
from .view import card_info

__all__ = ["Screen", "render_view", "phase_words", "MATERIAL_STYLE"]

#: each material in its card colour (docs/rules.md 2.1)
MATERIAL_STYLE = {"Rubble": "yellow", "Wood": "green", "Concrete": "bright_black", "Brick": "red",
                  "Stone": "cyan", "Marble": "magenta", None: "bold"}

_PHASE_WORDS = {
    "lead": "to lead a role or think",
    "follow": "to follow the led role or think",
    "petition": "to pick the petition's cards",
    "pay_more": "to add action units (Palace) or stop",
    "think": "to choose how to think",
    "think_choice": "to choose how to think",
    "tribunal": "to take a Jack with the Tribunal or not",
    "legionary_reveal": "to reveal cards for a Legionary demand",
    "legionary_take": "to take demanded materials from the pool",
    "legionary_give": "to give to the Legionary",
    "legionary_extra": "to use Bridge, Colosseum or Domus Aurea or not",
    "fountain": "to use the Fountain card",
    "prison": "to use the Prison or not",
    "stairway": "to use the Stairway or not",
    "sewer": "to move camp cards with the Sewer",
    "senate": "to take the Jacks with the Senate or not",
}


def phase_words(turn: dict[str, Any]) -> str:
    phase = turn["phase"]
    if phase == "action":
        role = turn.get("action_role") or "role"
        return f"to perform {'an' if role[0] in 'AEIOU' else 'a'} {role} action"
    return _PHASE_WORDS.get(phase, f"to decide ({phase})")


# `materials` below: the view's "card_materials", the cards a variant game makes of
# another material (docs/rules.md R-V.1), by name; empty under the published rules

def _material(name: str, materials: Mapping[str, str]) -> str | None:
    return materials.get(name, card_info(name)["material"])


def _card(name: str, plain: bool, materials: Mapping[str, str]) -> Text:
    if plain:
        return Text(name)
    return Text(name, style=MATERIAL_STYLE[_material(name, materials)])


def _cards(names: Iterable[str], plain: bool, materials: Mapping[str, str], empty: str = "-") -> Text:
    """Cards as "Bath, Road x2" (copies counted), each in its colour."""
    counted: dict[str, int] = {}
    for name in names:
        counted[name] = counted.get(name, 0) + 1
    if not counted:
        return Text(empty, style="dim")
    out = Text()
    for i, (name, count) in enumerate(counted.items()):
        if i:
            out.append(", ")
        out.append_text(_card(name, plain, materials))
        if count > 1:
            out.append(f" x{count}")
    return out


def _seat_title(view: dict[str, Any], p: dict[str, Any]) -> Text:
    turn = view["turn"]
    title = Text(f"P{p['seat']}", style="bold")
    if p["you"]:
        title.append(" (you)", style="bold green")
    elif p["name"] != f"P{p['seat']}":
        title.append(f" {p['name']}", style="dim")
    marks = []
    if p["seat"] == turn["leader"]:
        marks.append("leader")
    if p["seat"] == turn["decider"]:
        marks.append("deciding")
    if p["conceded"]:
        marks.append("conceded")
    if p["seat"] in view.get("winners", ()):
        marks.append("WINNER")
    if marks:
        title.append(f"  [{', '.join(marks)}]", style="bold yellow")
    return title


def _seat_lines(view: dict[str, Any], p: dict[str, Any], plain: bool) -> list[Text]:
    materials = view.get("card_materials", {})
    lines = []
    vp = p["score"]["total"] if "score" in p else p["vp"]["total"]
    hidden_vault = p["vault"] is None and p["vault_size"] > len(p["known_vault"])
    vp_text = f"{vp} VP" if "score" in p else f"{vp} VP" + ("+" if hidden_vault else "") + " so far"
    head = Text(f"{vp_text} · influence {p['influence']} · hand {p['hand_size']}")
    if p["hand"] is None and p["known_hand"]:
        head.append(" (known: ")
        head.append_text(_cards(p["known_hand"], plain, materials))
        head.append(")")
    if p["lacks"]:
        head.append(f" (holds no {', '.join(p['lacks'])})")
    head.append(f" · vault {p['vault_size']}/{p['vault_limit']}")
    shown_vault = p["vault"] if p["vault"] is not None else p["known_vault"]
    if shown_vault:
        head.append(" (" if p["vault"] is not None else " (known: ")
        head.append_text(_cards(shown_vault, plain, materials))
        head.append(")")
    lines.append(head)
    for label, key in (("camp", "camp"), ("stockpile", "stockpile")):
        line = Text()
        line.append(f"{label}: ", style="dim")
        line.append_text(_cards(p[key], plain, materials))
        lines.append(line)
    line = Text()
    line.append(f"clientele {len(p['clientele'])}/{p['clientele_limit']}: ", style="dim")
    line.append_text(_cards(p["clientele"], plain, materials))
    lines.append(line)
    line = Text()
    line.append("structures: ", style="dim")
    if not p["structures"]:
        line.append("-", style="dim")
    for i, s in enumerate(p["structures"]):
        if i:
            line.append(" · ")
        line.append_text(_card(s["building"], plain, materials))
        where = f"{s['site']}{', out of town' if s['out_of_town'] else ''}"
        if s["complete"]:
            line.append(f" ({where}) done", style="bold")
        else:
            line.append(f" ({where}) {s['placed']}/{s['needed']}")
        if s.get("stairway"):
            line.append(" +Stairway")
    lines.append(line)
    if "score" in p:
        sc = p["score"]
        buildings = f" + buildings {sc['buildings']}" if "buildings" in sc else ""
        lines.append(Text(f"score: influence {sc['influence']} + vault {sc['vault']} + merchant bonus "
                          f"{sc['merchant_bonus']} + statue {sc['statue']} + wall {sc['wall']}{buildings} "
                          f"= {sc['total']}", style="bold"))
    return lines


def _hand_table(hand: Sequence[str], plain: bool, materials: Mapping[str, str]) -> Table:
    table = Table(box=None if plain else box.SIMPLE_HEAD, show_edge=False, pad_edge=False,
                  header_style="bold" if not plain else "")
    for column in ("card", "material", "role", "value"):
        table.add_column(column, justify="right" if column == "value" else "left")
    for name in hand:
        material = _material(name, materials)
        if material is None:
            table.add_row(_card(name, plain, materials), "-", "any role", "-")
        else:
            m = MATERIALS.index(material)
            table.add_row(_card(name, plain, materials), material, ROLES[m], str(MATERIAL_VALUE[m]))
    return table


def render_view(view: dict[str, Any], log: Sequence[str] = (), *, plain: bool, title: str = "",
                log_lines: int = 12) -> RenderableType:
    """The table, its recent log and (when there is one) nothing of the menu: one renderable."""
    turn = view["turn"]
    materials = view.get("card_materials", {})
    parts: list[RenderableType] = []
    head = Text(title or "Glory to Rome", style="bold")
    head.append(f" · {view['mode'].capitalize()} · {view['num_players']} players · turn {turn['number']}")
    parts.append(head)
    state_line = Text(f"leader P{turn['leader']}")
    if turn["led_role"]:
        state_line.append(" · led role ")
        state_line.append(turn["led_role"], style="bold")
    if view["over"]:
        state_line.append(" · the game is over", style="bold")
    else:
        addressed = any(p["you"] and p["seat"] == turn["decider"] for p in view["players"])
        who = "you" if addressed else f"P{turn['decider']}"
        state_line.append(f" · {who} {'are' if who == 'you' else 'is'} {phase_words(turn)}")
    parts.append(state_line)
    if "legionary" in turn:
        leg = turn["legionary"]
        line = Text("Rome demands: ")
        line.append_text(_cards(leg["demand"], plain, materials, empty="(nothing yet)"))
        if leg["revealed"]:
            line.append(" · revealed: ")
            line.append_text(_cards(leg["revealed"], plain, materials))
        parts.append(line)
    if "petition" in turn:
        petition = turn["petition"]
        parts.append(Text(f"petition of {petition['material']} cards: {petition['picked']} picked"))
    if "fountain_card" in turn:
        line = Text("the Fountain drew: ")
        line.append_text(_card(turn["fountain_card"], plain, materials))
        parts.append(line)
    sites = view["sites"]
    site_text = ", ".join(f"{m} {sites['in_town'][m]}/{sites['out_of_town'][m]}" for m in sites["in_town"])
    parts.append(Text(f"deck {view['deck']} · Jacks {view['jacks']}"))
    parts.append(Text(f"sites left in/out of town: {site_text}"))
    pool = Text()
    pool.append("pool: ", style="bold")
    pool.append_text(_cards(view["pool"], plain, materials))
    parts.append(pool)
    for p in view["players"]:
        body = Group(*_seat_lines(view, p, plain))
        if plain:
            parts.append(Text(""))
            parts.append(_seat_title(view, p))
            parts.append(Text("  ") + Text("\n  ").join(_seat_lines(view, p, plain)))
        else:
            style = "green" if p["you"] else ("yellow" if p["seat"] == turn["decider"] else "blue")
            parts.append(Panel(body, title=_seat_title(view, p), title_align="left", box=box.ROUNDED,
                               border_style=style, padding=(0, 1)))
    me = next((p for p in view["players"] if p["seat"] == view["viewer"]), None)
    if me is not None and me["hand"] is not None:
        parts.append(Text(""))
        whose = "Your" if me["you"] else f"P{me['seat']}'s"
        parts.append(Text(f"{whose} hand ({len(me['hand'])}):", style="bold"))
        if me["hand"]:
            parts.append(_hand_table(me["hand"], plain, materials))
    if log:
        parts.append(Text(""))
        parts.append(Text("What happened:", style="bold"))
        for entry in list(log)[-log_lines:]:
            parts.append(Text(f"  {entry}"))
    return Group(*parts)


class Screen:
    """Where a session writes: a rich Console on `out` (colours and panels on a terminal,
    plain text elsewhere) and the lines it reads from `inp`."""

    def __init__(self, out: IO[str] | None = None, inp: IO[str] | None = None, *,
                 plain: bool | None = None, width: int | None = None) -> None:
        self.out = out if out is not None else sys.stdout
        self.inp = inp if inp is not None else sys.stdin
        tty = _isatty(self.out)
        self.plain = (not tty) if plain is None else plain
        self.console = Console(file=self.out, force_terminal=not self.plain,
                               color_system=None if self.plain else "auto",
                               no_color=self.plain, highlight=False, emoji=False,
                               width=width or (100 if self.plain else None), soft_wrap=False)
        self.interactive = tty and _isatty(self.inp) and not self.plain

    def clear(self) -> None:
        """A fresh screen on a terminal (plain output keeps everything)."""
        if not self.plain:
            self.console.clear()

    def show(self, renderable: RenderableType) -> None:
        self.console.print(renderable)

    def say(self, text: str, style: str = "") -> None:
        """A message, never broken at the screen's width (commands in it stay whole)."""
        self.console.print(Text(text, style=style if not self.plain else ""), soft_wrap=True)

    def menu(self, entries: Sequence[tuple[int, str]], columns: bool = True) -> None:
        """The numbered legal choices: (number, action string)."""
        self.console.print(Text("\nYour choices:", style="bold"))
        for number, text in entries:
            line = Text()
            line.append(f"  {number:>3}. ", style="bold cyan" if not self.plain else "")
            line.append(text)
            self.console.print(line)

    def ask(self, prompt: str) -> str | None:
        """One line of input (without its newline), or None at the end of the input."""
        if self.interactive:
            try:
                return self.console.input(Text(prompt, style="bold"))
            except EOFError:
                return None
        self.out.write(prompt)
        self.out.flush()
        line = self.inp.readline()
        if not line:
            self.out.write("\n")
            return None
        if not _isatty(self.inp):
            self.out.write(line if line.endswith("\n") else line + "\n")   # echo scripted input
        return line.rstrip("\r\n")


def _isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False
