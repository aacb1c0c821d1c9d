# The C-level game state and the nogil engine entry points.
# One GameState is a flat struct of fixed-size arrays: no pointers, no Python objects,
# so a copy is one memcpy and bots can keep millions of them.
from libc.stdint cimport uint8_t, uint16_t, uint32_t, uint64_t

cdef extern from "cards.h":
    enum:
        GR_NUM_TYPES
        GR_JACK
        B_ACADEMY, B_AMPHITHEATRE, B_AQUEDUCT, B_ARCHWAY, B_ATRIUM, B_BAR, B_BASILICA
        B_BATH, B_BRIDGE, B_CATACOMB, B_CIRCUS, B_CIRCUS_MAXIMUS, B_COLOSSEUM, B_CRANE
        B_DOCK, B_DOMUS_AUREA, B_FORUM, B_FORUM_ROMANUM, B_FOUNDRY, B_FOUNTAIN, B_GARDEN
        B_GATE, B_INSULA, B_LATRINE, B_LUDUS_MAGNUS, B_MARKET, B_PALACE, B_PALISADE
        B_PRISON, B_ROAD, B_SCHOOL, B_SCRIPTORIUM, B_SENATE, B_SEWER, B_SHRINE, B_STAIRWAY
        B_STATUE, B_STOREROOM, B_TEMPLE, B_TOWER, B_TRIBUNAL, B_VILLA, B_VOMITORIUM, B_WALL
    const char* GR_CARD_NAME[]
    const uint8_t GR_CARD_MATERIAL[]
    const uint8_t GR_CARD_COPIES[]
    const uint8_t GR_CARD_MODE[]

cdef extern from "rng.h":
    uint64_t gr_rng_next(uint64_t* state) noexcept nogil
    uint32_t gr_rng_below(uint64_t* state, uint32_t n) noexcept nogil
    uint64_t gr_rng_seed(uint64_t seed) noexcept nogil

cdef enum:
    NUM_TYPES = 45
    JACK = 0
    NMAT = 6
    MAX_PLAYERS = 5
    DECK_CAP = 256
    MAX_STRUCTURES = 40
    STACK_CAP = 64        # front-of-queue entries: Bath->Patron nesting needs one per Marble hire
    MAX_LEGAL = 4096
    NO_ROLE = 255

# Materials; the role of a card is the role of its material (Rubble = Laborer, ...).
cdef enum:
    RUBBLE = 0
    WOOD = 1
    CONCRETE = 2
    BRICK = 3
    STONE = 4
    MARBLE = 5

cdef enum:
    LABORER = 0
    CRAFTSMAN = 1
    ARCHITECT = 2
    LEGIONARY = 3
    MERCHANT = 4
    PATRON = 5
    THINKER = 6     # only as the role of granted School / Academy actions

cdef enum:
    MODE_REPUBLIC = 0
    MODE_IMPERIUM = 1

# Action ids: a dense, fixed action space (docs/notation.md). Card-indexed blocks take the
# Order type 1..44 at offset type-1; A_THINK_LATRINE takes the type 0..44 (Jack included).
cdef enum:
    A_SKIP = 0
    A_THINK_JACK = 1
    A_THINK_DRAW = 2
    A_THINK_VOMITORIUM = 3
    A_THINK_LATRINE = 4
    A_PLAY_CARD = 49
    A_PLAY_JACK = 93
    A_PLAY_PETITION = 99
    A_PLAY_CRANE = 135
    A_PETITION_PICK = 179
    A_HIRE_POOL = 223
    A_HIRE_DECK = 267
    A_HIRE_HAND = 268
    A_TAKE_POOL = 312
    A_DOCK_HAND = 356
    A_LAY = 400
    A_LAY_STATUE = 444
    A_ADD = 450
    A_ADD_POOL = 2386
    A_VAULT_STOCKPILE = 4322
    A_VAULT_DECK = 4366
    A_VAULT_HAND = 4367
    A_REVEAL = 4411
    A_LEG_TAKE = 4455
    A_GIVE = 4499
    A_FOUNTAIN_DRAW = 4543
    A_FOUNTAIN_KEEP = 4544
    A_GIVE_STOCKPILE = 4545     # Bridge
    A_GIVE_CLIENT = 4589        # Colosseum
    A_GIVE_STRUCTURE = 4633     # Domus Aurea (by building type)
    A_PRISON = 4677             # + owner * 44 + building - 1
    A_STAIRWAY = 4897           # + ((owner * 44 + building - 1) * 44 + card - 1) * 2 + from_pool
    A_SEWER = 24257             # + card - 1
    A_SENATE = 24301
    A_USE_EXTRA = 24302         # the legionary applies Bridge/Colosseum/Domus Aurea to a victim
    NUM_DISTINCT_ACTIONS = 24303

# Phases: decision phases ask current_player(); automatic phases are run by advance().
cdef enum:
    PH_LEAD = 0          # leader: think or play the first action unit (chooses the role)
    PH_FOLLOW = 1        # a follower: think or play a unit of the led role
    PH_PETITION = 2      # picking the cards of a petition
    PH_PAY_MORE = 3      # Palace: more units or done
    PH_THINK = 4         # an optional granted Thinker action (School, Academy)
    PH_THINK_CHOICE = 5  # after a Latrine/Vomitorium discard: Jack or draw
    PH_TRIBUNAL = 6      # after a think: take a Jack or not
    PH_ACTION = 7        # the actor's current role action (its parts)
    PH_LEG_REVEAL = 8
    PH_LEG_TAKE = 9
    PH_LEG_GIVE = 10     # a victim chooses which demanded cards to give
    PH_FOUNTAIN = 11     # the actor uses or keeps the card a Fountain drew
    PH_PRISON = 12       # Prison's owner may exchange its site for a structure
    PH_STAIRWAY = 13     # the Stairway part of an Architect action
    PH_SEWER = 14        # end of turn: camp Orders to the stockpile
    PH_SENATE = 15       # end of turn: opponents' Jacks into hand
    PH_LEG_EXTRA = 24    # the legionary decides whether to use an extra on a victim
    PH_NEXT_FOLLOWER = 16
    PH_NEXT_ACTOR = 17
    PH_QUEUE = 18
    PH_LEG_VICTIMS = 19
    PH_END_TURN = 20
    PH_ACADEMY_NEXT = 21
    PH_NEW_TURN = 22
    PH_EOT = 23          # end of turn steps (a) Senate and (b) Sewer
    PH_OVER = 31

# Where a Thinker action returns to.
cdef enum:
    CTX_LEAD = 0
    CTX_FOLLOW = 1
    CTX_QUEUE = 2
    CTX_ACADEMY = 3

# Sources of an action (out-of-town pairing and batching depend on it).
cdef enum:
    SRC_MAIN = 0    # camp actions and client entries of the led role
    SRC_GRANT = 1   # upon-completion grants
    SRC_BATH = 2    # a Bath hire's single action

# Entries of the front-of-queue stack.
cdef enum:
    E_GRANT = 1         # role, count: upon-completion grants
    E_BATH = 2          # role: a Bath hire's action
    E_PATRON_CONT = 3   # count = parts done: the rest of a Patron action interrupted by Bath
    E_STAIRWAY = 4      # the Stairway part of an Architect action
    E_PRISON = 5        # Prison's exchange choice

# What a victim is giving (R-8.5.6, R-8.5.7).
cdef enum:
    GIVE_HAND = 0
    GIVE_STOCKPILE = 1
    GIVE_CLIENT = 2
    GIVE_STRUCTURE = 3
    GIVE_KINDS = 4

cdef enum:
    END_NONE = 0
    END_DECK = 1
    END_SITES = 2
    END_CATACOMB = 3
    END_FORUM = 4
    END_CONCESSION = 5

cdef enum:
    S_COMPLETE = 1
    S_OUT_OF_TOWN = 2

cdef enum:
    P_LED_OR_FOLLOWED = 1
    P_THOUGHT = 2
    P_CRAFTED = 4
    P_CONCEDED = 8

# Parts of the current action already done (multi-part Patron/Laborer/Merchant actions).
cdef enum:
    PART_MAIN = 1
    PART_DECK = 2
    PART_HAND = 4

ctypedef struct Structure:
    uint8_t building      # card type of the foundation
    uint8_t site          # material of the site card
    uint8_t flags         # S_COMPLETE, S_OUT_OF_TOWN
    uint8_t nmat
    uint8_t materials[3]  # card types of the materials
    uint8_t stairway      # card type of a Stairway material, 0 = none
    uint8_t owner         # the player who owns the structure

ctypedef struct Player:
    uint8_t hand[45]
    uint8_t hand_known[45]    # the part of the hand every player has seen enter (public)
    uint8_t camp[45]
    uint8_t stockpile[45]
    uint8_t vault[45]
    uint8_t vault_known[45]   # vault cards every player saw enter (from the stockpile)
    uint8_t clientele[45]
    uint8_t influence_sites[6]
    uint8_t hand_count
    uint8_t stockpile_count
    uint8_t vault_count
    uint8_t clientele_count
    uint8_t camp_units        # action units played this turn
    uint8_t flags             # P_* flags (per turn, except P_CONCEDED)
    uint8_t jacks_played
    uint8_t lacks             # bit m: everyone saw that the hand holds no card of material m

ctypedef struct Turn:
    uint8_t phase
    uint8_t leader
    uint8_t decider
    uint8_t actor
    uint8_t led_role
    uint8_t pos            # offset from the leader of the follower / actor in turn
    uint8_t think_ctx
    uint8_t petition_role
    uint8_t petition_picked
    uint8_t petition_last
    uint8_t ready          # actions of the led role ready for the actor
    uint8_t stack_n
    uint8_t cur_role
    uint8_t cur_src
    uint8_t cur_parts
    uint8_t leg_k
    uint8_t leg_revealed
    uint8_t leg_last
    uint8_t victim_pos
    uint8_t give_mat
    uint8_t end_reason
    uint8_t winners_mask
    uint8_t give_kind
    uint8_t fountain_card  # the card a Fountain drew, held by the actor while deciding
    uint8_t pending_end    # END_DECK: a draw emptied the deck; the game ends after this action
    uint8_t eot_step
    uint8_t action_base    # stack size when the current action began (Stairway insertion)
    uint8_t extra_ok       # the legionary chose to apply the current extra to this victim
    uint8_t demand[6]
    uint8_t take_left[6]
    uint8_t give_left[6]
    uint8_t pending_clients[45]
    uint8_t revealed[45]      # cards the actor revealed to a Legionary demand this turn
    uint8_t stack_kind[64]
    uint8_t stack_role[64]
    uint8_t stack_count[64]
    uint32_t turn_number
    uint32_t decisions

ctypedef struct Config:
    uint8_t num_players
    uint8_t mode
    uint8_t petition_size      # Republic petition size (R-6.6, A1)
    uint8_t refill_base        # refill size before Shrine/Temple (5)
    uint8_t in_town_per_material
    uint8_t hand_orders        # Orders dealt to each hand
    uint8_t hand_jacks         # Jacks dealt to each hand
    uint8_t copies[45]         # the deck composition of this game (0 = not in play)

ctypedef struct GameState:
    Config cfg
    uint8_t pool[45]
    uint8_t out_of_play[45]
    uint8_t jack_pile
    uint8_t in_town[6]
    uint8_t out_town[6]
    uint16_t deck_size
    uint8_t deck[256]          # deck[deck_size - 1] is the top card
    uint64_t rng
    uint64_t active[5]         # bit b: building b's function is active for the player
    Turn turn
    uint8_t nstruct            # structures of all players (each holds or held a site: <= 36)
    Structure structures[40]
    Player players[5]

cdef int gen_legal(GameState* s, uint16_t* out) noexcept nogil
cdef int apply_action_c(GameState* s, int action) noexcept nogil
cdef int random_playout_c(GameState* s, uint64_t* rng, int max_decisions) noexcept nogil
cdef int score_of(GameState* s, int p) noexcept nogil
cdef void mask_hidden(GameState* s, int observer) noexcept nogil
cdef int determinize_c(GameState* s, int observer, uint64_t* rng) noexcept nogil
