# Positions (docs/notation.md, "Positions"): the one home of the position format. The
# writer (State.to_dict) and the reader (State.from_dict), section by section: the top-level
# fields, the players and their structures, the cards placed nowhere (deck, out of play,
# Jack pile), the site stacks, and the turn in public terms (names of phases, roles, cards
# and materials; no internal codes). The reader refuses what cannot exist with a ValueError
# naming the field, and writes the struct directly. Python-level code (with the GIL).

POSITION_FORMAT = "glory_ai/state"
POSITION_VERSION = 2

_THINK_RETURNS = ("lead", "follow", "queue", "academy")
_SOURCES = ("main", "grant", "bath")
_PARTS = (("main", PART_MAIN), ("deck", PART_DECK), ("hand", PART_HAND))
_ENTRY_KINDS = {E_GRANT: "grant", E_BATH: "bath", E_PATRON_CONT: "patron_rest",
                E_STAIRWAY: "stairway", E_PRISON: "prison"}
_GIVE_KINDS = ("hand", "bridge", "colosseum", "domus_aurea", "done")
_END_STEPS = ("senate", "sewer", "done")
_END_REASON_NAMES = tuple(reason.value for reason in EndReason)
_END_CODE = {reason.value: code for code, reason in _END_REASON_OF.items()}
_TURN_KEYS = ("phase", "number", "decisions", "leader", "decider", "actor", "led_role",
              "seat_offset", "think_return", "petition", "action", "queue", "legionary",
              "pick_from", "fountain_card", "end_step", "pending_end", "end_reason", "winners")
_PETITION_KEYS = ("material", "picked", "from")
_ACTION_KEYS = ("role", "source", "parts", "stack_base")
_QUEUE_KEYS = ("ready", "clients", "front")
_ENTRY_KEYS = ("kind", "role", "count")
_LEGIONARY_KEYS = ("batch", "revealed_count", "revealed", "demand", "take_left", "give_left",
                   "victim_offset", "give_kind", "give_material", "extra_used")

_TOP_KEYS = {"format", "version", "num_players", "mode", "variant", "seed", "leader", "pool",
             "deck", "out_of_play", "jack_pile", "sites", "players", "turn", "functions_used", "rng"}
_PLAYER_ZONES = ("hand", "camp", "stockpile", "vault", "clientele")
_PLAYER_KEYS = set(_PLAYER_ZONES) | {"influence", "structures", "known_hand", "known_vault",
                                     "turn_state", "lacks"}
_STRUCTURE_KEYS = {"building", "site", "out_of_town", "materials", "complete", "stairway"}
# players[k].turn_state: per-turn counters and the P_* flags
_TURN_STATE_LIMITS = {"camp_units": 255,
                      "flags": P_LED_OR_FOLLOWED | P_THOUGHT | P_CRAFTED | P_CONCEDED,
                      "jacks_played": 6}


# ---------------------------------------------------------------------------------------
# The writer (State.to_dict)

cdef str _a(str name):
    """The name with its indefinite article ("a Bar", "an Insula", "a Rubble")."""
    return ("an " if name[:1] in "AEIOU" else "a ") + name


cdef list _zone(uint8_t* counts):
    # a zone of counts per card type as a sorted list of names
    out = []
    cdef int x
    for x in range(NUM_TYPES):
        if counts[x]:
            out.extend([_NAMES[x]] * counts[x])
    out.sort()
    return out


cdef list _materials(uint8_t* counts):
    out = []
    cdef int m
    for m in range(NMAT):
        out.extend([_MATERIALS[m]] * counts[m])
    return out


cdef object _card_or_none(int card):
    return _NAMES[card] if card else None


cdef dict turn_to_public(GameState* s):
    cdef Turn* t = &s.turn
    cdef int i
    front = [{"kind": _ENTRY_KINDS.get(t.stack_kind[i], str(t.stack_kind[i])),
              "role": _ROLES[t.stack_role[i]], "count": t.stack_count[i]}
             for i in range(t.stack_size)]
    return {
        "phase": _PHASE_LABEL[t.phase],
        "number": t.turn_number,
        "decisions": t.decisions,
        "leader": t.leader,
        "decider": t.decider,
        "actor": t.actor,
        "led_role": None if t.led_role == NO_ROLE else _ROLES[t.led_role],
        "seat_offset": t.seat_offset,
        "think_return": _THINK_RETURNS[t.think_return],
        "petition": {"material": _MATERIALS[t.petition_material], "picked": t.petition_picked,
                     "from": _card_or_none(t.petition_from)},
        "action": {"role": _ROLES[t.action_role], "source": _SOURCES[t.action_source],
                   "parts": [name for name, bit in _PARTS if t.action_parts & bit],
                   "stack_base": t.action_stack_base},
        "queue": {"ready": t.ready_actions, "clients": _zone(t.pending_clients), "front": front},
        "legionary": {
            "batch": t.legionary_batch, "revealed_count": t.legionary_revealed,
            "revealed": _zone(t.revealed), "demand": _materials(t.demand),
            "take_left": _materials(t.take_left), "give_left": _materials(t.give_left),
            "victim_offset": t.victim_offset, "give_kind": _GIVE_KINDS[t.give_kind],
            "give_material": None if t.give_material == NO_ROLE else _MATERIALS[t.give_material],
            "extra_used": bool(t.extra_used)},
        "pick_from": _card_or_none(t.pick_from),
        "fountain_card": _card_or_none(t.fountain_card),
        "end_step": _END_STEPS[t.end_step],
        "pending_end": t.pending_end == END_DECK,
        "end_reason": None if t.end_reason == END_NONE else _END_REASON_OF[t.end_reason].value,
        "winners": [p for p in range(s.cfg.num_players) if (t.winners_mask >> p) & 1],
    }




cdef dict _structure_of(Structure* st):
    d = {"building": _NAMES[st.building], "site": _MATERIALS[st.site],
         "out_of_town": bool(st.flags & S_OUT_OF_TOWN),
         "materials": [_NAMES[st.materials[k]] for k in range(st.nmat)],
         "complete": bool(st.flags & S_COMPLETE)}
    if st.stairway:
        d["stairway"] = _NAMES[st.stairway]
    return d


cdef dict _player_of(GameState* s, int p):
    cdef Player* pl = &s.players[p]
    cdef int i
    return {
        "hand": _zone(pl.hand), "camp": _zone(pl.camp), "stockpile": _zone(pl.stockpile),
        "vault": _zone(pl.vault), "clientele": _zone(pl.clientele),
        "influence": _materials(pl.influence_sites),
        "structures": [_structure_of(&s.structures[i]) for i in range(s.nstruct)
                       if s.structures[i].owner == p],
        "known_hand": _zone(pl.hand_known), "known_vault": _zone(pl.vault_known),
        "turn_state": {"camp_units": pl.camp_units, "flags": pl.flags,
                       "jacks_played": pl.jacks_played},
        "lacks": [_MATERIALS[m] for m in range(NMAT) if (pl.lacks >> m) & 1],
    }


cdef dict position_of(State st):
    # State.to_dict: a JSON-safe dict that _read_position turns back into this exact state
    cdef GameState* s = st.s
    cdef int m
    return {
        "format": POSITION_FORMAT, "version": POSITION_VERSION,
        "num_players": s.cfg.num_players,
        "mode": st._config.mode,
        "variant": st._config.variant(),
        "leader": s.turn.leader,
        "pool": _zone(s.pool),
        "deck": [_NAMES[s.deck[i]] for i in range(s.deck_size - 1, -1, -1)],
        "out_of_play": _zone(s.out_of_play),
        "jack_pile": s.jack_pile,
        "sites": {"in_town": {_MATERIALS[m]: s.in_town[m] for m in range(NMAT)},
                  "out_of_town": {_MATERIALS[m]: s.out_town[m] for m in range(NMAT)}},
        "players": [_player_of(s, p) for p in range(s.cfg.num_players)],
        "turn": turn_to_public(s),
        "functions_used": st.functions_used(),
        "rng": str(s.rng),
    }


# ---------------------------------------------------------------------------------------
# The reader (State.from_dict): top-level fields

cdef inline bint is_int(value):
    # bool is an int subclass, but True is never a count
    return isinstance(value, int) and not isinstance(value, bool)


def _optional_mapping(d, key, field, expected):
    # an omitted (or null) field is empty; anything else must be a dict
    value = d.get(key)
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise ValueError(f"{field}: expected {expected}, got {value!r:.60}")
    return value


def _int(value, field, low, high):
    if not is_int(value) or not low <= value <= high:
        raise ValueError(f"{field}: expected an integer from {low} to {high}, got {value!r}")
    return value


def _check_keys(d, allowed, field):
    unknown = sorted(set(d) - allowed)
    if unknown:
        raise ValueError(f"{field}: unknown field(s) {unknown}")


def _counts(names, field, jacks_allowed):
    # a zone: a list of card names, as counts per card type
    if not isinstance(names, (list, tuple)):
        raise ValueError(f"{field}: expected a list of card names, got {type(names).__name__}")
    counts = [0] * NUM_TYPES
    for i, name in enumerate(names):
        card = card_id(name, f"{field}[{i}]")
        if card == JACK and not jacks_allowed:
            raise ValueError(f"{field}[{i}]: a Jack cannot be in {field.rpartition('.')[2]}")
        counts[card] += 1
        if counts[card] > 255:
            raise ValueError(f"{field}: more than 255 {_NAMES[card]} cards")
    return counts


def _read_header(d):
    """The GameConfig of a position, from format, version, num_players, mode and variant."""
    from glory_ai.core.config import GameConfig     # here: glory_ai.core.config imports the engine
    if not isinstance(d, Mapping):
        raise ValueError(f"a position is a dict, got {type(d).__name__}")
    _check_keys(d, _TOP_KEYS, "position")
    # hand-written positions may omit format and version; a saved one must be readable
    if "format" in d and d["format"] != POSITION_FORMAT:
        raise ValueError(f"format: expected {POSITION_FORMAT!r}, got {d['format']!r:.60}")
    if "version" in d and d["version"] != POSITION_VERSION:
        raise ValueError(f"version: this build reads position format version {POSITION_VERSION}, "
                         f"got {d['version']!r:.20} (version 1 kept the engine's internal turn fields; "
                         f"save the position again with a current build)")
    if "num_players" not in d:
        raise ValueError("num_players: missing")
    n = _int(d["num_players"], "num_players", 2, 5)
    variant = _optional_mapping(d, "variant", "variant", "a dict of variant options")
    mode = d.get("mode", "republic")
    if not isinstance(mode, str):
        raise ValueError(f"mode: expected 'republic' or 'imperium', got {mode!r}")
    try:
        return GameConfig.from_options(n, mode.lower(), **variant)
    except TypeError as exc:       # a position is data: every flaw in it is a ValueError
        raise ValueError(f"variant: {exc}") from None


def _functions_used(d, config):
    names = d.get("functions_used", [])
    if not isinstance(names, list):
        raise ValueError("functions_used: expected a list of building names")
    mask = 0
    for i, name in enumerate(names):
        card = card_id(name, f"functions_used[{i}]")
        if card == JACK:
            raise ValueError(f"functions_used[{i}]: expected a building name")
        if not config.power_on(card):
            raise ValueError(f"functions_used[{i}]: the function of {_NAMES[card]} is switched "
                             f"off in this game (powers_off, R-V.3)")
        mask |= 1 << card
    return mask


def _rng(d):
    value = d["rng"]                      # to_dict writes it as a decimal string
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value)
    if not is_int(value):
        raise ValueError(f"rng: expected an integer, got {d['rng']!r:.60}")
    if not 0 <= value < 2 ** 64:
        raise ValueError("rng: out of range")
    return value


@cython.auto_pickle(False)      # a reader is never pickled (and holds a C pointer)
cdef class _PositionReader:
    # One position being read into a fresh State, one section at a time. It counts the
    # cards placed so far (`used`) and the sites that structures and influence hold, so that
    # the deck, the cards out of play and the site stacks can be derived once every zone
    # is in.
    cdef State state
    cdef GameState* s
    cdef object config, copies, used, conceded, sites_used, out_town_used

    def __init__(self, config, seed):
        self.config = config
        self.copies = config.deck_copies()
        self.state = _new_blank_state(config, seed)
        self.s = self.state.s
        self.used = [0] * NUM_TYPES
        self.conceded = []
        self.sites_used = [0] * NMAT          # sites in structures and influence
        self.out_town_used = [0] * NMAT       # of which came from out of town

    cdef _place(self, counts):
        cdef int x
        for x in range(NUM_TYPES):
            self.used[x] += counts[x]

    cdef _write_zone(self, uint8_t* zone, counts):
        cdef int x
        for x in range(NUM_TYPES):
            zone[x] = counts[x]

    def read_pool(self, d):
        pool = _counts(d.get("pool", []), "pool", False)
        self._place(pool)
        self._write_zone(self.s.pool, pool)

    # ---- a player --------------------------------------------------------------------

    def read_player(self, int p, pd):
        cdef Player* pl = &self.s.players[p]
        field = f"players[{p}]"
        if pd is None:
            pd = {}
        if not isinstance(pd, Mapping):
            raise ValueError(f"{field}: expected a dict")
        _check_keys(pd, _PLAYER_KEYS, field)
        zones = {}
        for zone in _PLAYER_ZONES:
            zones[zone] = _counts(pd.get(zone, []), f"{field}.{zone}", zone in ("hand", "camp"))
            if sum(zones[zone]) > 255:
                raise ValueError(f"{field}.{zone}: more than 255 cards")
            self._place(zones[zone])
        self._write_zone(pl.hand, zones["hand"])
        self._write_zone(pl.camp, zones["camp"])
        self._write_zone(pl.stockpile, zones["stockpile"])
        self._write_zone(pl.vault, zones["vault"])
        self._write_zone(pl.clientele, zones["clientele"])
        pl.hand_count = sum(zones["hand"])
        pl.stockpile_count = sum(zones["stockpile"])
        pl.vault_count = sum(zones["vault"])
        pl.clientele_count = sum(zones["clientele"])
        self._read_known_parts(pl, pd, zones, field)
        completed_sites = self._read_structures(p, pd, field)
        self._read_influence(pl, pd, completed_sites, field)
        self._read_turn_state(p, pl, pd, field)
        self._read_lacks(pl, pd, zones["hand"], field)

    cdef _read_known_parts(self, Player* pl, pd, zones, field):
        if "known_hand" in pd:
            known_hand = _counts(pd["known_hand"], f"{field}.known_hand", True)
        else:
            known_hand = [0] * NUM_TYPES
            known_hand[JACK] = zones["hand"][JACK]       # Jacks are taken in view of all
        known_vault = _counts(pd.get("known_vault", []), f"{field}.known_vault", False)
        for x in range(NUM_TYPES):
            if known_hand[x] > zones["hand"][x]:
                raise ValueError(f"{field}.known_hand: more {_NAMES[x]} than in the hand")
            if known_vault[x] > zones["vault"][x]:
                raise ValueError(f"{field}.known_vault: more {_NAMES[x]} than in the vault")
        self._write_zone(pl.hand_known, known_hand)
        self._write_zone(pl.vault_known, known_vault)

    cdef list _read_structures(self, int p, pd, field):
        # the player's structures, appended to the table (which stays grouped by owner:
        # players are read in seat order); returns the sites of the completed ones
        cdef Structure* st
        cdef int k
        structures = pd.get("structures", [])
        if not isinstance(structures, list):
            raise ValueError(f"{field}.structures: expected a list")
        names_seen = set()
        parsed = [_read_structure(sd, f"{field}.structures[{i}]", names_seen, self.config)
                  for i, sd in enumerate(structures)]
        if self.s.nstruct + len(parsed) > MAX_STRUCTURES:
            raise ValueError(f"players[{p}].structures: at most {MAX_STRUCTURES} structures in all")
        completed_sites = []
        for building, site, flags, materials, stairway in parsed:
            self.used[building] += 1
            for x in materials:
                self.used[x] += 1
            if stairway:
                self.used[stairway] += 1
            if flags & S_COMPLETE:
                completed_sites.append(site)
            else:
                self.sites_used[site] += 1
            if flags & S_OUT_OF_TOWN:
                self.out_town_used[site] += 1
            st = &self.s.structures[self.s.nstruct]
            self.s.nstruct += 1
            st.owner = p
            st.building = building
            st.site = site
            st.flags = flags
            st.nmat = len(materials)
            for k in range(st.nmat):
                st.materials[k] = materials[k]
            st.stairway = stairway
        return completed_sites

    cdef _read_influence(self, Player* pl, pd, completed_sites, field):
        cdef int m
        if "influence" in pd:
            if not isinstance(pd["influence"], list):
                raise ValueError(f"{field}.influence: expected a list of site materials")
            influence = [material_id(name, f"{field}.influence[{i}]")
                         for i, name in enumerate(pd["influence"])]
        else:
            influence = completed_sites
        for m in influence:
            pl.influence_sites[m] += 1
            self.sites_used[m] += 1
            if pl.influence_sites[m] > 6:
                raise ValueError(f"{field}.influence: more than the 6 {_MATERIALS[m]} sites")

    cdef _read_turn_state(self, int p, Player* pl, pd, field):
        turn_state = _optional_mapping(pd, "turn_state", f"{field}.turn_state", "a dict")
        _check_keys(turn_state, set(_TURN_STATE_LIMITS), f"{field}.turn_state")
        for key, high in _TURN_STATE_LIMITS.items():
            _int(turn_state.get(key, 0), f"{field}.turn_state.{key}", 0, high)
        if turn_state.get("flags", 0) & P_CONCEDED:
            self.conceded.append(p)
        pl.camp_units = turn_state.get("camp_units", 0)
        pl.flags = turn_state.get("flags", 0)
        pl.jacks_played = turn_state.get("jacks_played", 0)

    cdef _read_lacks(self, Player* pl, pd, hand, field):
        lacks_list = pd.get("lacks", [])
        if not isinstance(lacks_list, list):
            raise ValueError(f"{field}.lacks: expected a list of materials")
        lacks = 0
        for i, name in enumerate(lacks_list):
            m = material_id(name, f"{field}.lacks[{i}]")
            if any(mat_of(self.s, x) == m and hand[x] for x in range(1, NUM_TYPES)):
                raise ValueError(f"{field}.lacks: the hand holds {_MATERIALS[m]}")
            lacks |= 1 << m
        pl.lacks = lacks

    def check_completed_sites(self):
        """A completed structure moved its site into influence (R-9.3.1; a Prison exchange
        moves it to another player's), so the players' influence holds at least as many
        sites as there are completed structures."""
        cdef int i, m, p, completed = 0, influence = 0
        for i in range(self.s.nstruct):
            completed += (self.s.structures[i].flags & S_COMPLETE) != 0
        for p in range(self.s.cfg.num_players):
            for m in range(NMAT):
                influence += self.s.players[p].influence_sites[m]
        if completed > influence:
            raise ValueError(f"players: {completed} completed structures but {influence} sites in "
                             f"influence; a completed structure's site is in a player's influence "
                             f"(R-9.3.1)")

    # ---- the cards placed nowhere: the Fountain's card, Jacks, deck, out of play ---------

    def read_fountain_card(self, turn):
        # A card held by the turn (the Fountain's drawn card) is in play too.
        # It is there exactly while its owner decides what to do with it.
        if turn and turn.get("fountain_card") is not None:
            if turn.get("phase") != "fountain":
                raise ValueError("turn.fountain_card: a Fountain holds a card only in the fountain phase")
            held = card_id(turn["fountain_card"], "turn.fountain_card")
            if held == JACK:
                raise ValueError("turn.fountain_card: a Fountain draws an Order card")
            self.used[held] += 1
            if self.used[held] > self.copies[held]:
                raise ValueError(f"turn.fountain_card: {_NAMES[held]}: {self.used[held]} copies placed "
                                 f"but the {self.config.mode} deck has {self.copies[held]}")

    def read_unplaced_cards(self, d, turn):
        """The Jack pile, the deck and the cards out of play: what the zones left."""
        cdef int i, j, tmp
        used, copies, mode = self.used, self.copies, self.config.mode
        jacks_placed = used[JACK]
        if jacks_placed > 6:
            raise ValueError(f"Jack: {jacks_placed} Jacks placed but there are 6")
        self.s.jack_pile = _int(d.get("jack_pile", 6 - jacks_placed), "jack_pile", 0, 6 - jacks_placed)
        used[JACK] += self.s.jack_pile
        for x in range(1, NUM_TYPES):
            if used[x] > copies[x]:
                where = "is not in the deck of this mode" if copies[x] == 0 else f"has {copies[x]}"
                raise ValueError(f"{_NAMES[x]}: {used[x]} copies placed but the {mode} deck {where}")
        out_of_play = _counts(d.get("out_of_play", []), "out_of_play", True)
        given_out_of_play = list(out_of_play) if "out_of_play" in d else None
        if "deck" in d:
            deck_counts = _counts(d["deck"], "deck", False)
            deck = [card_id(name) for name in d["deck"]]
            for x in range(1, NUM_TYPES):
                if used[x] + deck_counts[x] > copies[x]:
                    raise ValueError(f"deck: {_NAMES[x]}: {used[x] + deck_counts[x]} copies placed "
                                     f"but the {mode} deck has {copies[x]}")
                out_of_play[x] = copies[x] - used[x] - deck_counts[x]
            shuffle = False
        else:
            deck = []
            for x in range(1, NUM_TYPES):
                if used[x] + out_of_play[x] > copies[x]:
                    raise ValueError(f"out_of_play: {_NAMES[x]}: too many copies placed")
                deck.extend([x] * (copies[x] - used[x] - out_of_play[x]))
            shuffle = True
        out_of_play[JACK] = 6 - used[JACK]
        # R-11.1(1): the game ends when the deck runs out (at once, or after the current
        # action: turn.pending_end), so only a finished or ending game has an empty deck
        if not deck and not (turn and (turn.get("phase") == "over" or turn.get("pending_end"))):
            raise ValueError("deck: the deck is empty, so the game would already be over (R-11.1)")
        if given_out_of_play is not None and given_out_of_play != out_of_play:
            wrong = next(x for x in range(NUM_TYPES) if given_out_of_play[x] != out_of_play[x])
            raise ValueError(f"out_of_play: lists {given_out_of_play[wrong]} {_NAMES[wrong]} but the "
                             f"rest of the position leaves {out_of_play[wrong]} out of play")
        if len(deck) > 255:
            raise ValueError("deck: at most 255 cards")
        self._write_zone(self.s.out_of_play, out_of_play)
        # deck[deck_size - 1] is the top; an unlisted deck is shuffled from the seed
        self.s.deck_size = len(deck)
        for i, x in enumerate(reversed(deck)):
            self.s.deck[i] = x
        if shuffle:
            for i in range(self.s.deck_size - 1, 0, -1):
                j = gr_rng_below(&self.s.rng, i + 1)
                tmp = self.s.deck[i]
                self.s.deck[i] = self.s.deck[j]
                self.s.deck[j] = tmp

    # ---- the site stacks ---------------------------------------------------------------

    def read_sites(self, d):
        """The in-town and out-of-town stacks: given, or the standard counts (R-4.2) less the
        sites that structures and influence hold."""
        cdef int m
        sites = _optional_mapping(d, "sites", "sites", "{'in_town': {...}, 'out_of_town': {...}}")
        _check_keys(sites, {"in_town", "out_of_town"}, "sites")
        given_in = _optional_mapping(sites, "in_town", "sites.in_town", "a dict of material: count")
        given_out = _optional_mapping(sites, "out_of_town", "sites.out_of_town", "a dict of material: count")
        for label, given in (("in_town", given_in), ("out_of_town", given_out)):
            for key in given:
                material_id(key, f"sites.{label}")
        given_in = {material_id(k): v for k, v in given_in.items()}
        given_out = {material_id(k): v for k, v in given_out.items()}
        in_town = self.config.in_town
        for m in range(NMAT):
            used, out_used = self.sites_used[m], self.out_town_used[m]
            default_in = in_town - max(used - out_used, 0)
            default_out = (6 - in_town) - out_used
            if default_in < 0:   # more in-town sites used than the stack had: take them from out of town
                default_out += default_in
                default_in = 0
            if default_out < 0 and m not in given_out:
                raise ValueError(f"players: {used} {_MATERIALS[m]} sites are in structures and "
                                 f"influence ({out_used} from out of town), but there are 6, "
                                 f"{6 - in_town} of them out of town")
            i_count = _int(given_in.get(m, default_in), f"sites.in_town.{_MATERIALS[m]}", 0, 6)
            o_count = _int(given_out.get(m, default_out), f"sites.out_of_town.{_MATERIALS[m]}", 0, 6)
            if i_count + o_count + used != 6:
                raise ValueError(f"sites: {_MATERIALS[m]} has {i_count} in town + {o_count} out of town + "
                                 f"{used} in structures and influence; there are 6 {_MATERIALS[m]} sites")
            self.s.in_town[m] = i_count
            self.s.out_town[m] = o_count

    # ---- the rest of the table, and the turn ---------------------------------------------

    def read_table(self, d):
        """The leader, the functions used so far and the generator."""
        leader = _int(d.get("leader", 0), "leader", 0, self.s.cfg.num_players - 1)
        self.s.turn.leader = leader
        self.s.functions_used = _functions_used(d, self.config)
        if "rng" in d:
            self.s.rng = _rng(d)

    def read_turn(self, turn):
        """The turn in progress (its public form), or the start of the leader's turn."""
        cdef int n = self.s.cfg.num_players
        cdef int leader = self.s.turn.leader
        if turn is None:
            _check_game_goes_on(self.conceded, n, leader, "leader")
            refresh_active(self.s)
            begin_turn(self.s)
            return
        turn_from_public(self.s, turn)
        refresh_active(self.s)
        if self.s.turn.leader != leader:
            raise ValueError("turn.leader: differs from leader")
        if self.s.turn.phase != PH_OVER:
            _check_game_goes_on(self.conceded, n, self.s.turn.decider, "turn.decider")
        code = self.state._probe_code()
        if code:
            raise ValueError(f"turn: the turn (phase {turn.get('phase')!r}, player "
                             f"{self.state.current_player()}) does not fit the position: "
                             f"{INVARIANT_TEXT.get(code, code)}")


def _read_structure(sd, field, names_seen, config):
    """(building, site, flags, materials, stairway) of one structure dict (the building's
    material and Statue's function as the game's rules have them, R-V)."""
    if not isinstance(sd, Mapping):
        raise ValueError(f"{field}: expected a dict")
    _check_keys(sd, _STRUCTURE_KEYS, field)
    if "building" not in sd:
        raise ValueError(f"{field}.building: missing")
    building = card_id(sd["building"], f"{field}.building")
    if building == JACK:
        raise ValueError(f"{field}.building: a Jack cannot be a foundation")
    if building in names_seen:
        raise ValueError(f"{field}.building: player already owns {_a(_NAMES[building])} (R-9.1.2)")
    names_seen.add(building)
    own = config.material_of(building)
    site = material_id(sd["site"], f"{field}.site") if "site" in sd else own
    if site != own and (building != B_STATUE or not config.power_on(B_STATUE)):
        raise ValueError(f"{field}.site: {_a(_NAMES[building])} is built on {_a(_MATERIALS[own])} site")
    out_of_town = sd.get("out_of_town", False)
    complete = sd.get("complete", False)
    if not isinstance(out_of_town, bool):
        raise ValueError(f"{field}.out_of_town: expected true or false")
    if not isinstance(complete, bool):
        raise ValueError(f"{field}.complete: expected true or false")
    names = sd.get("materials", [])
    _counts(names, f"{field}.materials", False)
    materials = [card_id(name) for name in names]
    need = material_value(site)
    if len(materials) > need or (not complete and len(materials) >= need):
        raise ValueError(f"{field}.materials: {len(materials)} materials on a "
                         f"{'complete' if complete else 'incomplete'} structure whose site "
                         f"needs {need}")
    stairway = 0
    if sd.get("stairway") is not None:
        stairway = card_id(sd["stairway"], f"{field}.stairway")
        if stairway == JACK or not complete:
            raise ValueError(f"{field}.stairway: a Stairway material is an Order card "
                             "on a complete structure")
    flags = (S_COMPLETE if complete else 0) | (S_OUT_OF_TOWN if out_of_town else 0)
    return building, site, flags, materials, stairway


def _check_game_goes_on(conceded, n, decider, field):
    # a game in progress has at least two players left, and a conceded one decides nothing
    if n - len(conceded) < 2:
        raise ValueError(f"players[{conceded[len(conceded) - 1]}].turn_state.flags: {len(conceded)} of {n} players "
                         f"conceded, so the game is over (R-11.1(5)); its turn must say so")
    if decider in conceded:
        raise ValueError(f"{field}: player {decider} has conceded and cannot decide")


def _read_position(d):
    # State.from_dict: the position `d` as a State, section by section
    config = _read_header(d)
    players = d.get("players")
    if not isinstance(players, list) or len(players) != config.num_players:
        raise ValueError(f"players: expected a list of {config.num_players} player dicts")
    try:
        seed = check_seed(d.get("seed", 0))
    except TypeError as error:            # a position's every fault is a ValueError
        raise ValueError(str(error)) from None
    reader = _PositionReader(config, seed)
    reader.read_pool(d)
    for p, pd in enumerate(players):
        reader.read_player(p, pd)
    turn = d.get("turn")
    if turn is not None and not isinstance(turn, Mapping):
        raise ValueError("turn: expected a dict (as written by to_dict)")
    turn = dict(turn) if turn is not None else None
    reader.read_fountain_card(turn)
    reader.read_unplaced_cards(d, turn)
    reader.read_sites(d)
    reader.check_completed_sites()
    reader.read_table(d)
    reader.read_turn(turn)
    state = reader.state
    try:
        state._check_invariants()
    except AssertionError as exc:
        raise ValueError(f"position: {exc}") from None
    return state


# ---------------------------------------------------------------------------------------
# The turn (format version 2): fields by name, checked one by one

def _section(d, key, keys, field):
    value = d.get(key)
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ValueError(f"{field}: expected a dict, got {value!r:.60}")
    unknown = sorted(set(value) - set(keys))
    if unknown:
        raise ValueError(f"{field}: unknown field(s) {unknown}; known: {list(keys)}")
    return value


def _name_index(value, names, field, allow_none=False):
    if value is None and allow_none:
        return None
    if isinstance(value, str):
        lowered = [n.lower() for n in names]
        if value.strip().lower() in lowered:
            return lowered.index(value.strip().lower())
    raise ValueError(f"{field}: expected one of {list(names)}{' or null' if allow_none else ''}, "
                     f"got {value!r:.60}")


def _small_int(value, field, high):
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= high:
        raise ValueError(f"{field}: expected an integer from 0 to {high}, got {value!r:.60}")
    return value


def _card_field(value, field):
    # a card name or null (0)
    if value is None:
        return 0
    if not isinstance(value, str) or value.strip().lower() not in _CARD_INDEX:
        raise ValueError(f"{field}: expected a card name or null, got {value!r:.60}")
    return _CARD_INDEX[value.strip().lower()]


def _card_counts(value, field, jacks):
    if not isinstance(value, list):
        raise ValueError(f"{field}: expected a list of card names")
    counts = [0] * NUM_TYPES
    for i, name in enumerate(value):
        x = _card_field(name, f"{field}[{i}]")
        if x == 0 and not jacks:
            raise ValueError(f"{field}[{i}]: expected an Order card name, got {name!r:.60}")
        counts[x] += 1
        if counts[x] > 255:
            raise ValueError(f"{field}: too many {name}")
    return counts


def _material_counts(value, field):
    if not isinstance(value, list):
        raise ValueError(f"{field}: expected a list of material names")
    counts = [0] * NMAT
    for i, name in enumerate(value):
        counts[_name_index(name, _MATERIALS, f"{field}[{i}]")] += 1
    if max(counts) > 255:
        raise ValueError(f"{field}: too many")
    return counts



cdef void turn_from_public(GameState* s, d) except *:
    # Fill s.turn from the public `turn` dict (omitted fields: zero / empty / none);
    # ValueError naming the field for anything malformed. Consistency with the rest of the
    # position is checked afterwards by the caller (the invariant checker and a probe).
    cdef Turn* t = &s.turn
    cdef int n = s.cfg.num_players, i, m, x
    if not isinstance(d, dict):
        raise ValueError("turn: expected a dict (as written by to_dict)")
    unknown = sorted(set(d) - set(_TURN_KEYS))
    if unknown:
        raise ValueError(f"turn: unknown field(s) {unknown}; known: {list(_TURN_KEYS)}")
    if "phase" not in d:
        raise ValueError("turn.phase: missing")
    decision_labels = [_PHASE_LABEL[p] for p in range(GR_NUM_DECISION_PHASES)] + ["over"]
    phase = _name_index(d["phase"], decision_labels, "turn.phase")
    memset(t, 0, sizeof(Turn))
    t.phase = PH_OVER if phase == GR_NUM_DECISION_PHASES else phase
    t.turn_number = _small_int(d.get("number", 0), "turn.number", 2 ** 31)
    t.decisions = _small_int(d.get("decisions", 0), "turn.decisions", 2 ** 31)
    t.leader = _small_int(d.get("leader", 0), "turn.leader", n - 1)
    t.decider = _small_int(d.get("decider", t.leader), "turn.decider", n - 1)
    t.actor = _small_int(d.get("actor", t.leader), "turn.actor", n - 1)
    role = _name_index(d.get("led_role"), _ROLES[:6], "turn.led_role", allow_none=True)
    t.led_role = NO_ROLE if role is None else role
    t.seat_offset = _small_int(d.get("seat_offset", 0), "turn.seat_offset", n)
    t.think_return = _name_index(d.get("think_return", "lead"), _THINK_RETURNS, "turn.think_return")

    petition = _section(d, "petition", _PETITION_KEYS, "turn.petition")
    t.petition_material = _name_index(petition.get("material", "Rubble"), _MATERIALS, "turn.petition.material")
    t.petition_picked = _small_int(petition.get("picked", 0), "turn.petition.picked", 3)
    t.petition_from = _card_field(petition.get("from"), "turn.petition.from")

    action = _section(d, "action", _ACTION_KEYS, "turn.action")
    t.action_role = _name_index(action.get("role", "Laborer"), _ROLES, "turn.action.role")
    t.action_source = _name_index(action.get("source", "main"), _SOURCES, "turn.action.source")
    parts = action.get("parts", [])
    if not isinstance(parts, list):
        raise ValueError("turn.action.parts: expected a list of 'main', 'deck', 'hand'")
    for i, part in enumerate(parts):
        t.action_parts |= _PARTS[_name_index(part, [p for p, _ in _PARTS], f"turn.action.parts[{i}]")][1]
    t.action_stack_base = _small_int(action.get("stack_base", 0), "turn.action.stack_base", STACK_CAP)

    queue = _section(d, "queue", _QUEUE_KEYS, "turn.queue")
    t.ready_actions = _small_int(queue.get("ready", 0), "turn.queue.ready", 255)
    clients = _card_counts(queue.get("clients", []), "turn.queue.clients", False)
    for x in range(NUM_TYPES):
        t.pending_clients[x] = clients[x]
    front = queue.get("front", [])
    if not isinstance(front, list) or len(front) > STACK_CAP:
        raise ValueError(f"turn.queue.front: expected a list of at most {STACK_CAP} entries")
    kinds = list(_ENTRY_KINDS.values())
    for i, entry in enumerate(front):
        field = f"turn.queue.front[{i}]"
        if not isinstance(entry, dict) or sorted(entry) != sorted(_ENTRY_KEYS):
            raise ValueError(f"{field}: expected a dict with {list(_ENTRY_KEYS)}")
        t.stack_kind[i] = list(_ENTRY_KINDS)[_name_index(entry["kind"], kinds, f"{field}.kind")]
        t.stack_role[i] = _name_index(entry["role"], _ROLES, f"{field}.role")
        t.stack_count[i] = _small_int(entry["count"], f"{field}.count", 255)
    t.stack_size = len(front)

    legionary = _section(d, "legionary", _LEGIONARY_KEYS, "turn.legionary")
    t.legionary_batch = _small_int(legionary.get("batch", 0), "turn.legionary.batch", 255)
    t.legionary_revealed = _small_int(legionary.get("revealed_count", 0), "turn.legionary.revealed_count", 255)
    revealed = _card_counts(legionary.get("revealed", []), "turn.legionary.revealed", False)
    for x in range(NUM_TYPES):
        t.revealed[x] = revealed[x]
    for key in ("demand", "take_left", "give_left"):
        counts = _material_counts(legionary.get(key, []), f"turn.legionary.{key}")
        for m in range(NMAT):
            if key == "demand":
                t.demand[m] = counts[m]
            elif key == "take_left":
                t.take_left[m] = counts[m]
            else:
                t.give_left[m] = counts[m]
    t.victim_offset = _small_int(legionary.get("victim_offset", 0), "turn.legionary.victim_offset", n)
    t.give_kind = _name_index(legionary.get("give_kind", "hand"), _GIVE_KINDS, "turn.legionary.give_kind")
    material = _name_index(legionary.get("give_material"), _MATERIALS, "turn.legionary.give_material",
                           allow_none=True)
    t.give_material = NO_ROLE if material is None else material
    extra_used = legionary.get("extra_used", False)
    if not isinstance(extra_used, bool):
        raise ValueError("turn.legionary.extra_used: expected true or false")
    t.extra_used = extra_used

    t.pick_from = _card_field(d.get("pick_from"), "turn.pick_from")
    t.fountain_card = _card_field(d.get("fountain_card"), "turn.fountain_card")
    t.end_step = _name_index(d.get("end_step", "senate"), _END_STEPS, "turn.end_step")
    pending_end = d.get("pending_end", False)
    if not isinstance(pending_end, bool):
        raise ValueError("turn.pending_end: expected true or false")
    t.pending_end = END_DECK if pending_end else END_NONE
    reason = d.get("end_reason")
    t.end_reason = (END_NONE if reason is None
                    else _END_CODE[_END_REASON_NAMES[_name_index(reason, _END_REASON_NAMES, "turn.end_reason")]])
    winners = d.get("winners", [])
    if not isinstance(winners, list):
        raise ValueError("turn.winners: expected a list of players")
    for i, p in enumerate(winners):
        t.winners_mask |= 1 << _small_int(p, f"turn.winners[{i}]", n - 1)
    if (t.phase == PH_OVER) != (t.end_reason != END_NONE) or (t.phase == PH_OVER) != (t.winners_mask != 0):
        raise ValueError("turn: a finished game (phase 'over') has an end_reason and winners, "
                         "and only a finished game has them")


# ---------------------------------------------------------------------------------------
# Zones by name (State.zone)

cdef uint8_t* _zone_array(State st, str name, int player) except NULL:
    cdef Player* pl
    if name == "pool":
        return st.s.pool
    if name == "out_of_play":
        return st.s.out_of_play
    pl = &st.s.players[player]
    if name == "hand":
        return pl.hand
    if name == "camp":
        return pl.camp
    if name == "stockpile":
        return pl.stockpile
    if name == "vault":
        return pl.vault
    if name == "clientele":
        return pl.clientele
    if name == "known_hand":
        return pl.hand_known
    if name == "known_vault":
        return pl.vault_known
    raise ValueError(f"unknown zone {name!r}")
