"""Loading positions: to_dict() output or hand-written dicts (docs/notation.md).

Every refusal is a ValueError that names the offending field.
"""
from __future__ import annotations

from collections.abc import Mapping

from .cards import CARD_MATERIAL, CARD_NAMES, JACK, MATERIAL_VALUE, MATERIALS, card_id, material_id
from .config import GameConfig, is_int
from .core import engine
from .core.engine import CONCEDED_FLAG, State

_TOP_KEYS = {"format", "version", "num_players", "mode", "variant", "seed", "leader", "pool",
             "deck", "out_of_play", "jack_pile", "sites", "players", "turn", "functions_used", "rng"}
_PLAYER_ZONES = ("hand", "camp", "stockpile", "vault", "clientele")
_PLAYER_KEYS = set(_PLAYER_ZONES) | {"influence", "structures", "known_hand", "known_vault",
                                     "turn_state", "lacks"}
_STRUCTURE_KEYS = {"building", "site", "out_of_town", "materials", "complete", "stairway"}
_S_COMPLETE, _S_OUT_OF_TOWN = 1, 2
NUM_TYPES = len(CARD_NAMES)
# players[k].turn_state: per-turn counters and flags (P_* in engine.pxd: 1 led or followed,
# 2 thought, 4 crafted, 8 conceded)
_TURN_STATE_LIMITS = {"camp_units": 255, "flags": 15, "jacks_played": 6}


def _optional_mapping(d: Mapping, key: str, field: str, expected: str) -> Mapping:
    # an omitted (or null) field is empty; anything else must be a dict
    value = d.get(key)
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise ValueError(f"{field}: expected {expected}, got {value!r:.60}")
    return value


def _counts(names, field: str, jacks_allowed: bool) -> list[int]:
    if not isinstance(names, (list, tuple)):
        raise ValueError(f"{field}: expected a list of card names, got {type(names).__name__}")
    counts = [0] * NUM_TYPES
    for i, name in enumerate(names):
        card = card_id(name, f"{field}[{i}]")
        if card == JACK and not jacks_allowed:
            raise ValueError(f"{field}[{i}]: a Jack cannot be in {field.split('.')[-1]}")
        counts[card] += 1
        if counts[card] > 255:
            raise ValueError(f"{field}: more than 255 {CARD_NAMES[card]} cards")
    return counts


def _int(value, field: str, low: int, high: int) -> int:
    if not is_int(value) or not low <= value <= high:
        raise ValueError(f"{field}: expected an integer from {low} to {high}, got {value!r}")
    return value


def _check_keys(d: Mapping, allowed: set, field: str) -> None:
    unknown = sorted(set(d) - allowed)
    if unknown:
        raise ValueError(f"{field}: unknown field(s) {unknown}")


def _check_game_goes_on(conceded: list, n: int, decider: int, field: str) -> None:
    # a game in progress has at least two players left, and a conceded one decides nothing
    if n - len(conceded) < 2:
        raise ValueError(f"players[{conceded[-1]}].turn_state.flags: {len(conceded)} of {n} players "
                         f"conceded, so the game is over (R-11.1(5)); its turn must say so")
    if decider in conceded:
        raise ValueError(f"{field}: player {decider} has conceded and cannot decide")


def _check_format(d: Mapping) -> None:
    # hand-written positions may omit format and version; a saved one must be readable
    if "format" in d and d["format"] != engine.POSITION_FORMAT:
        raise ValueError(f"format: expected {engine.POSITION_FORMAT!r}, got {d['format']!r:.60}")
    if "version" in d and d["version"] != engine.POSITION_VERSION:
        raise ValueError(f"version: this build reads position format version {engine.POSITION_VERSION}, "
                         f"got {d['version']!r:.20} (version 1 kept the engine's internal turn fields; "
                         f"save the position again with a current build)")


def _functions_used(d: Mapping) -> int:
    names = d.get("functions_used", [])
    if not isinstance(names, list):
        raise ValueError("functions_used: expected a list of building names")
    mask = 0
    for i, name in enumerate(names):
        card = card_id(name, f"functions_used[{i}]")
        if card == JACK:
            raise ValueError(f"functions_used[{i}]: expected a building name")
        mask |= 1 << card
    return mask


def load_position(d) -> State:
    if not isinstance(d, Mapping):
        raise ValueError(f"a position is a dict, got {type(d).__name__}")
    _check_keys(d, _TOP_KEYS, "position")
    _check_format(d)
    if "num_players" not in d:
        raise ValueError("num_players: missing")
    n = _int(d["num_players"], "num_players", 2, 5)
    variant = _optional_mapping(d, "variant", "variant", "a dict of variant options")
    mode = d.get("mode", "republic")
    if not isinstance(mode, str):
        raise ValueError(f"mode: expected 'republic' or 'imperium', got {mode!r}")
    try:
        config = GameConfig.from_options(n, mode.lower(), **variant)
    except TypeError as exc:       # a position is data: every flaw in it is a ValueError
        raise ValueError(f"variant: {exc}") from None
    copies = config.deck_copies()

    players = d.get("players")
    if not isinstance(players, list) or len(players) != n:
        raise ValueError(f"players: expected a list of {n} player dicts")

    seed = d.get("seed", 0)
    if not is_int(seed) or not 0 <= seed < 2 ** 64:
        raise ValueError(f"seed: expected an integer from 0 to 2**64 - 1, got {seed!r}")
    state = engine._new_blank_state(config, seed)

    used = [0] * NUM_TYPES
    conceded = []
    sites_used = [0] * 6
    out_town_used = [0] * 6

    def place(counts):
        for x in range(NUM_TYPES):
            used[x] += counts[x]

    pool = _counts(d.get("pool", []), "pool", False)
    place(pool)
    engine._set_zone(state, "pool", 0, pool)

    for p, pd in enumerate(players):
        field = f"players[{p}]"
        if pd is None:
            pd = {}
        if not isinstance(pd, Mapping):
            raise ValueError(f"{field}: expected a dict")
        _check_keys(pd, _PLAYER_KEYS, field)
        zones = {}
        for zone in _PLAYER_ZONES:
            zones[zone] = _counts(pd.get(zone, []), f"{field}.{zone}", zone in ("hand", "camp"))
            place(zones[zone])
            engine._set_zone(state, zone, p, zones[zone])
        if "known_hand" in pd:
            known_hand = _counts(pd["known_hand"], f"{field}.known_hand", True)
        else:
            known_hand = [0] * NUM_TYPES
            known_hand[JACK] = zones["hand"][JACK]       # Jacks are taken in view of all
        known_vault = _counts(pd.get("known_vault", []), f"{field}.known_vault", False)
        for x in range(NUM_TYPES):
            if known_hand[x] > zones["hand"][x]:
                raise ValueError(f"{field}.known_hand: more {CARD_NAMES[x]} than in the hand")
            if known_vault[x] > zones["vault"][x]:
                raise ValueError(f"{field}.known_vault: more {CARD_NAMES[x]} than in the vault")
        engine._set_zone(state, "known_hand", p, known_hand)
        engine._set_zone(state, "known_vault", p, known_vault)

        structures = pd.get("structures", [])
        if not isinstance(structures, list):
            raise ValueError(f"{field}.structures: expected a list")
        parsed = []
        names_seen = set()
        completed_sites = []
        for i, sd in enumerate(structures):
            sfield = f"{field}.structures[{i}]"
            if not isinstance(sd, Mapping):
                raise ValueError(f"{sfield}: expected a dict")
            _check_keys(sd, _STRUCTURE_KEYS, sfield)
            if "building" not in sd:
                raise ValueError(f"{sfield}.building: missing")
            building = card_id(sd["building"], f"{sfield}.building")
            if building == JACK:
                raise ValueError(f"{sfield}.building: a Jack cannot be a foundation")
            if building in names_seen:
                raise ValueError(f"{sfield}.building: player already owns a {CARD_NAMES[building]} (R-9.1.2)")
            names_seen.add(building)
            if "site" in sd:
                site = material_id(sd["site"], f"{sfield}.site")
            else:
                site = CARD_MATERIAL[building]
            if site != CARD_MATERIAL[building] and CARD_NAMES[building] != "Statue":
                raise ValueError(f"{sfield}.site: a {CARD_NAMES[building]} is built on a "
                                 f"{MATERIALS[CARD_MATERIAL[building]]} site")
            out_of_town = sd.get("out_of_town", False)
            complete = sd.get("complete", False)
            if not isinstance(out_of_town, bool):
                raise ValueError(f"{sfield}.out_of_town: expected true or false")
            if not isinstance(complete, bool):
                raise ValueError(f"{sfield}.complete: expected true or false")
            materials = sd.get("materials", [])
            mat_counts = _counts(materials, f"{sfield}.materials", False)
            materials = [card_id(m) for m in materials]
            need = MATERIAL_VALUE[site]
            if len(materials) > need or (not complete and len(materials) >= need):
                raise ValueError(f"{sfield}.materials: {len(materials)} materials on a "
                                 f"{'complete' if complete else 'incomplete'} structure whose site "
                                 f"needs {need}")
            stairway = 0
            if sd.get("stairway") is not None:
                stairway = card_id(sd["stairway"], f"{sfield}.stairway")
                if stairway == JACK or not complete:
                    raise ValueError(f"{sfield}.stairway: a Stairway material is an Order card "
                                     "on a complete structure")
            used[building] += 1
            place(mat_counts)
            if stairway:
                used[stairway] += 1
            if complete:
                completed_sites.append(site)
            else:
                sites_used[site] += 1
            if out_of_town:
                out_town_used[site] += 1
            flags = (_S_COMPLETE if complete else 0) | (_S_OUT_OF_TOWN if out_of_town else 0)
            parsed.append((building, site, flags, materials, stairway))
        if "influence" in pd:
            if not isinstance(pd["influence"], list):
                raise ValueError(f"{field}.influence: expected a list of site materials")
            influence = [material_id(m, f"{field}.influence[{i}]") for i, m in enumerate(pd["influence"])]
        else:
            influence = completed_sites
        influence_sites = [0] * 6
        for m in influence:
            influence_sites[m] += 1
            sites_used[m] += 1
            if influence_sites[m] > 6:
                raise ValueError(f"{field}.influence: more than the 6 {MATERIALS[m]} sites")
        turn_state = _optional_mapping(pd, "turn_state", f"{field}.turn_state", "a dict")
        _check_keys(turn_state, set(_TURN_STATE_LIMITS), f"{field}.turn_state")
        for key, high in _TURN_STATE_LIMITS.items():
            _int(turn_state.get(key, 0), f"{field}.turn_state.{key}", 0, high)
        if turn_state.get("flags", 0) & CONCEDED_FLAG:
            conceded.append(p)
        lacks_list = pd.get("lacks", [])
        if not isinstance(lacks_list, list):
            raise ValueError(f"{field}.lacks: expected a list of materials")
        lacks = 0
        for i, name in enumerate(lacks_list):
            m = material_id(name, f"{field}.lacks[{i}]")
            if any(CARD_MATERIAL[x] == m and zones["hand"][x] for x in range(1, NUM_TYPES)):
                raise ValueError(f"{field}.lacks: the hand holds {MATERIALS[m]}")
            lacks |= 1 << m
        engine._set_player(state, p, influence_sites, parsed, turn_state, lacks)

    # A card held by the turn (the Fountain's drawn card) is in play too.
    # It is there exactly while its owner decides what to do with it.
    turn_given = d.get("turn")
    if turn_given is not None and not isinstance(turn_given, Mapping):
        raise ValueError("turn: expected a dict (as written by to_dict)")
    turn_given = dict(turn_given) if turn_given is not None else None
    phase_given = turn_given.get("phase") if turn_given else None
    if turn_given and turn_given.get("fountain_card") is not None:
        if phase_given != "fountain":
            raise ValueError("turn.fountain_card: a Fountain holds a card only in the fountain phase")
        held = card_id(turn_given["fountain_card"], "turn.fountain_card")
        if held == JACK:
            raise ValueError("turn.fountain_card: a Fountain draws an Order card")
        used[held] += 1
        if used[held] > copies[held]:
            raise ValueError(f"turn.fountain_card: {CARD_NAMES[held]}: {used[held]} copies placed "
                             f"but the {config.mode} deck has {copies[held]}")

    # Jacks
    jacks_placed = used[JACK]
    if jacks_placed > 6:
        raise ValueError(f"Jack: {jacks_placed} Jacks placed but there are 6")
    jack_pile = _int(d.get("jack_pile", 6 - jacks_placed), "jack_pile", 0, 6 - jacks_placed)
    used[JACK] += jack_pile

    # Orders: deck and out of play
    for x in range(1, NUM_TYPES):
        if used[x] > copies[x]:
            where = "is not in the deck of this mode" if copies[x] == 0 else f"has {copies[x]}"
            raise ValueError(f"{CARD_NAMES[x]}: {used[x]} copies placed but the {config.mode} deck {where}")
    out_of_play = _counts(d.get("out_of_play", []), "out_of_play", True)
    given_out_of_play = list(out_of_play) if "out_of_play" in d else None
    if "deck" in d:
        deck_list = d["deck"]
        deck_counts = _counts(deck_list, "deck", False)
        deck = [card_id(name) for name in deck_list]
        for x in range(1, NUM_TYPES):
            if used[x] + deck_counts[x] > copies[x]:
                raise ValueError(f"deck: {CARD_NAMES[x]}: {used[x] + deck_counts[x]} copies placed "
                                 f"but the {config.mode} deck has {copies[x]}")
            out_of_play[x] = copies[x] - used[x] - deck_counts[x]
        shuffle = False
    else:
        deck = []
        for x in range(1, NUM_TYPES):
            if used[x] + out_of_play[x] > copies[x]:
                raise ValueError(f"out_of_play: {CARD_NAMES[x]}: too many copies placed")
            deck.extend([x] * (copies[x] - used[x] - out_of_play[x]))
        shuffle = True
    out_of_play[JACK] = 6 - used[JACK]
    # R-11.1(1): the game ends when the deck runs out (at once, or after the current
    # action: turn.pending_end), so only a finished or ending game has an empty deck
    if not deck and not (turn_given and (phase_given == "over" or turn_given.get("pending_end"))):
        raise ValueError("deck: the deck is empty, so the game would already be over (R-11.1)")
    if given_out_of_play is not None and given_out_of_play != out_of_play:
        wrong = next(x for x in range(NUM_TYPES) if given_out_of_play[x] != out_of_play[x])
        raise ValueError(f"out_of_play: lists {given_out_of_play[wrong]} {CARD_NAMES[wrong]} but the "
                         f"rest of the position leaves {out_of_play[wrong]} out of play")
    if len(deck) > 255:
        raise ValueError("deck: at most 255 cards")
    engine._set_zone(state, "out_of_play", 0, out_of_play)
    engine._set_deck(state, deck, shuffle)

    # Sites
    in_town, out_town = [], []
    sites = _optional_mapping(d, "sites", "sites", "{'in_town': {...}, 'out_of_town': {...}}")
    _check_keys(sites, {"in_town", "out_of_town"}, "sites")
    given_in = _optional_mapping(sites, "in_town", "sites.in_town", "a dict of material: count")
    given_out = _optional_mapping(sites, "out_of_town", "sites.out_of_town", "a dict of material: count")
    for label, given in (("in_town", given_in), ("out_of_town", given_out)):
        for key in given:
            material_id(key, f"sites.{label}")
    given_in = {material_id(k): v for k, v in given_in.items()}
    given_out = {material_id(k): v for k, v in given_out.items()}
    for m in range(6):
        in_used = sites_used[m] - out_town_used[m]
        default_in = config.in_town - max(in_used, 0)
        default_out = (6 - config.in_town) - out_town_used[m]
        if default_in < 0:   # more in-town sites used than the stack had: take them from out of town
            default_out += default_in
            default_in = 0
        if default_out < 0 and m not in given_out:
            raise ValueError(f"players: {sites_used[m]} {MATERIALS[m]} sites are in structures and "
                             f"influence ({out_town_used[m]} from out of town), but there are 6, "
                             f"{6 - config.in_town} of them out of town")
        i_count = _int(given_in.get(m, default_in), f"sites.in_town.{MATERIALS[m]}", 0, 6)
        o_count = _int(given_out.get(m, default_out), f"sites.out_of_town.{MATERIALS[m]}", 0, 6)
        if i_count + o_count + sites_used[m] != 6:
            raise ValueError(f"sites: {MATERIALS[m]} has {i_count} in town + {o_count} out of town + "
                             f"{sites_used[m]} in structures and influence; there are 6 {MATERIALS[m]} sites")
        in_town.append(i_count)
        out_town.append(o_count)

    leader = _int(d.get("leader", 0), "leader", 0, n - 1)
    engine._set_misc(state, jack_pile, in_town, out_town, leader, _functions_used(d))
    if "rng" in d:
        rng_value = d["rng"]                      # to_dict writes it as a decimal string
        if isinstance(rng_value, str) and rng_value.strip().isdigit():
            rng_value = int(rng_value)
        if not is_int(rng_value):
            raise ValueError(f"rng: expected an integer, got {d['rng']!r:.60}")
        if not 0 <= rng_value < 2 ** 64:
            raise ValueError("rng: out of range")
        engine._set_rng(state, rng_value)

    if turn_given is not None:
        engine._set_turn(state, turn_given)
        if state.leader() != leader:
            raise ValueError("turn.leader: differs from leader")
        if not state.is_terminal():
            _check_game_goes_on(conceded, n, state.current_player(), "turn.decider")
        code = state._probe_code()
        if code:
            raise ValueError(f"turn: the turn (phase {phase_given!r}, player {state.current_player()}) "
                             f"does not fit the position: {engine.INVARIANT_TEXT.get(code, code)}")
    else:
        _check_game_goes_on(conceded, n, leader, "leader")
        engine._begin(state)
    try:
        state._check_invariants()
    except AssertionError as exc:
        raise ValueError(f"position: {exc}") from None
    return state
