"""A readable text rendering of a state (str(state), State.observation_string)."""
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


def render(state, observer: int | None = None) -> str:
    """The position as text; with `observer`, only what that player knows (other hands and
    vaults as their sizes and public parts, the deck as its size)."""
    d = state.to_dict() if observer is None else state.observation(observer)
    turn = d["turn"]
    led = state.led_role()
    title = (f"Glory to Rome ({d['mode']}, {d['num_players']} players), turn {turn['number'] + 1}, "
             f"leader P{d['leader']}" + (f", led role {led}" if led else ""))
    if observer is not None:
        title += f" (as seen by P{observer})"
    lines = [title]
    if state.is_terminal():
        winners = state.winners()
        names = ", ".join(f"P{p}" for p in winners)
        lines.append(f"GAME OVER ({state.end_reason()}): winner{'s' if len(winners) > 1 else ''} {names}")
    else:
        lines.append(f"phase {state.phase()}, P{state.current_player()} to decide")
    deck_size = d["deck_size"] if observer is not None else len(d["deck"])
    lines.append(f"deck {deck_size}  jacks {d['jack_pile']}  pool: {_cards(d['pool'])}")
    sites = " ".join(f"{m[:2]} {d['sites']['in_town'][m]}/{d['sites']['out_of_town'][m]}"
                     for m in d["sites"]["in_town"])
    lines.append(f"sites in/out of town: {sites}")
    scores = state.scores()
    for p, pd in enumerate(d["players"]):
        status = ", CONCEDED" if state.has_conceded(p) else ""
        if "hand" in pd:
            hand = f"hand {len(pd['hand'])}: {_cards(pd['hand'])}"
        else:
            known = f" (known: {_cards(pd['known_hand'])})" if pd["known_hand"] else ""
            hand = f"hand {pd['hand_size']}{known}"
        vp = f"{scores[p]} VP" if observer is None or p == observer else "VP hidden"
        lines.append(f"P{p}{status}: {vp}, influence {state.influence(p)}, {hand}")
        for key in ("camp", "stockpile", "vault", "clientele"):
            if key == "vault" and "vault" not in pd:
                if pd["vault_size"]:
                    known = f" (known: {_cards(pd['known_vault'])})" if pd["known_vault"] else ""
                    size = pd["vault_size"]
                    lines.append(f"    vault: {size} card{'' if size == 1 else 's'}{known}")
                continue
            if pd[key]:
                lines.append(f"    {key}: {_cards(pd[key])}")
        for s in pd["structures"]:
            count = len(s["materials"])
            status = "complete" if s["complete"] else f"{count} material{'' if count == 1 else 's'}"
            where = " out of town" if s["out_of_town"] else ""
            lines.append(f"    {s['building']} on {s['site']}{where}: {status}")
    return "\n".join(lines)
