"""A readable text rendering of a state (str(state))."""
from __future__ import annotations


def _cards(names) -> str:
    if not names:
        return "-"
    out, last, count = [], None, 0
    for name in names + [None]:
        if name == last:
            count += 1
            continue
        if last is not None:
            out.append(f"{last} x{count}" if count > 1 else last)
        last, count = name, 1
    return ", ".join(out)


def render(state) -> str:
    d = state.to_dict()
    lines = [f"Glory to Rome ({d['mode']}, {d['num_players']} players), turn {d['turn']['turn_number'] + 1}, "
             f"leader P{d['leader']}" + (f", led role {state.led_role}" if state.led_role else "")]
    if state.is_terminal():
        lines.append(f"GAME OVER ({state.end_reason()}): winners {['P%d' % p for p in state.winners()]}")
    else:
        lines.append(f"phase {state.phase()}, P{state.current_player()} to decide")
    lines.append(f"deck {len(d['deck'])}  jacks {d['jack_pile']}  pool: {_cards(d['pool'])}")
    sites = " ".join(f"{m[:2]} {d['sites']['in_town'][m]}/{d['sites']['out_of_town'][m]}"
                     for m in d["sites"]["in_town"])
    lines.append(f"sites in/out of town: {sites}")
    scores = state.scores()
    for p, pd in enumerate(d["players"]):
        lines.append(f"P{p}: {scores[p]} VP, influence {state.influence(p)}, hand {len(pd['hand'])}: {_cards(pd['hand'])}")
        for key in ("camp", "stockpile", "vault", "clientele"):
            if pd[key]:
                lines.append(f"    {key}: {_cards(pd[key])}")
        for s in pd["structures"]:
            count = len(s["materials"])
            status = "complete" if s["complete"] else f"{count} material{'' if count == 1 else 's'}"
            where = " out of town" if s["out_of_town"] else ""
            lines.append(f"    {s['building']} on {s['site']}{where}: {status}")
    return "\n".join(lines)
