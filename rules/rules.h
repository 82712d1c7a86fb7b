/* rules.h - public interface of the shogi rules engine (pure C11, no heap, no dependency on the rest).
 *
 * Rules follow the FESA Laws of Shogi (2017, amended 2024); article numbers are cited next to each
 * function ("FESA 3.11(c)"). Notation: SFEN and USI as defined by the USI protocol (Norman Schmidt's
 * "USI protocol" document), squares as in kifu notation (file 1..9 from sente's right, rank 1..9 = a..i
 * from gote's side).
 *
 * Conventions:
 *  - Every function returns 0 (RUL_OK) or a negative RUL_E* code; results come through out-parameters.
 *  - All storage is fixed size and owned by the caller; nothing here allocates.
 *  - No global mutable state: the engine is reentrant and thread-safe on distinct objects.
 */
#ifndef KIFUCAM_RULES_H
#define KIFUCAM_RULES_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- error codes */
enum {
    RUL_OK = 0,
    RUL_EPARSE = -1,   /* malformed SFEN / USI text; the message names the offending character */
    RUL_EILLEGAL = -2, /* a well-formed move that is not legal in the position */
    RUL_ERANGE = -3,   /* an argument out of its documented range */
    RUL_EFULL = -4,    /* a fixed-size store (game history) is full */
    RUL_EINVALID = -5, /* a position that breaks the rules (see rul_pos_validate) */
};

/* The name of a return code ("RUL_EPARSE", ...), for logs; "RUL_E?" for any other value. Never NULL. */
const char *rul_strerror(int code);

/* ---------------------------------------------------------------- colours, pieces, squares */
typedef enum { RUL_SENTE = 0, RUL_GOTE = 1, RUL_COLOR_NB = 2 } rul_color_t;

/* Piece types. Unpromoted kinds 1..8 (hand kinds are 1..7), promoted = kind + RUL_PROMOTED.
 * Same order as YaneuraOu/Bonanza: P L N S B R G K, then +P +L +N +S +B(horse) +R(dragon). */
typedef enum {
    RUL_NO_TYPE = 0,
    RUL_PAWN = 1,
    RUL_LANCE = 2,
    RUL_KNIGHT = 3,
    RUL_SILVER = 4,
    RUL_BISHOP = 5,
    RUL_ROOK = 6,
    RUL_GOLD = 7,
    RUL_KING = 8,
    RUL_PRO_PAWN = 9,
    RUL_PRO_LANCE = 10,
    RUL_PRO_KNIGHT = 11,
    RUL_PRO_SILVER = 12,
    RUL_HORSE = 13,
    RUL_DRAGON = 14,
    RUL_TYPE_NB = 15
} rul_type_t;

#define RUL_PROMOTED 8    /* type + RUL_PROMOTED = promoted type (P, L, N, S, B, R only) */
#define RUL_HAND_NB 7     /* kinds that can be in hand: P L N S B R G = types 1..7 */
#define RUL_GOTE_BIT 16   /* piece = type | (colour ? RUL_GOTE_BIT : 0) */
#define RUL_PIECE_NONE 0  /* an empty square */
#define RUL_SQ_NB 81      /* squares */
#define RUL_SQ_NONE 81    /* "no square" (e.g. no king on the board) */
#define RUL_MAX_MOVES 600 /* legal moves in any position are at most 593 */

/* A piece on the board: RUL_PIECE_NONE, or type | RUL_GOTE_BIT for gote's pieces. */
typedef uint8_t rul_piece_t;
#define RUL_PIECE(color, type) ((rul_piece_t)((type) | ((color) ? RUL_GOTE_BIT : 0)))
#define RUL_PIECE_TYPE(pc) ((int)((pc)&15))          /* a rul_type_t value */
#define RUL_PIECE_COLOR(pc) ((int)(((pc) >> 4) & 1)) /* a rul_color_t value */

/* Squares 0..80: sq = (file - 1) * 9 + (rank - 1), so 1a (１一) = 0, 9i (９九) = 80 (YaneuraOu). */
#define RUL_SQ(file, rank) (((file)-1) * 9 + ((rank)-1))
#define RUL_SQ_FILE(sq) ((sq) / 9 + 1)
#define RUL_SQ_RANK(sq) ((sq) % 9 + 1)

/* ---------------------------------------------------------------- moves
 * A move is a 32-bit integer:
 *   bits  0..6   to square (0..80)
 *   bits  7..13  from square (0..80) for a board move; the dropped type (1..7) for a drop
 *   bit   14     promotion
 *   bit   15     drop
 * RUL_MOVE_NONE (0) is no move (a board move from 1a to 1a is impossible). */
typedef uint32_t rul_move_t;
#define RUL_MOVE_NONE 0u
#define RUL_MOVE_TO(m) ((int)((m)&127u))
#define RUL_MOVE_FROM(m) ((int)(((m) >> 7) & 127u))
#define RUL_MOVE_IS_PROMO(m) (((m) >> 14) & 1u)
#define RUL_MOVE_IS_DROP(m) (((m) >> 15) & 1u)
#define RUL_MOVE_DROP_TYPE(m) ((rul_type_t)(((m) >> 7) & 127u))
#define RUL_MOVE_MAKE(from, to, promo) ((rul_move_t)((to) | ((from) << 7) | ((promo) ? 1u << 14 : 0u)))
#define RUL_MOVE_DROP(type, to) ((rul_move_t)((to) | ((unsigned)(type) << 7) | (1u << 15)))

/* A list of moves in fixed storage. */
typedef struct {
    rul_move_t moves[RUL_MAX_MOVES]; /* moves[0..count-1] */
    int count;                       /* 0..RUL_MAX_MOVES */
} rul_movelist_t;

/* ---------------------------------------------------------------- position
 * Internally the board is an 11 x 13 mailbox with wall sentinels (files 0 and 10, two wall ranks at
 * each end so that knight jumps stay inside the array). Read squares with rul_pos_piece_at(). */
#define RUL_MB_W 13               /* mailbox column height: ranks 1..9 live at rows 2..10 */
#define RUL_MB_NB (11 * RUL_MB_W) /* 143 cells */
#define RUL_MB_WALL 0xFFu         /* a cell outside the board */

typedef struct {
    uint8_t mb[RUL_MB_NB];                   /* mailbox: rul_piece_t, or RUL_MB_WALL outside the board */
    uint8_t hand[RUL_COLOR_NB][RUL_HAND_NB]; /* pieces in hand, [colour][type - 1], 0..18 */
    uint8_t king_mb[RUL_COLOR_NB];           /* mailbox cell of each king, 0 when the king is absent */
    uint8_t side;                            /* rul_color_t: the side to move */
    int ply;                                 /* SFEN move number: 1 at the start, +1 after each move */
    uint64_t key;                            /* Zobrist key of board + hands + side to move */
} rul_pos_t;

/* Undo record for rul_pos_do_move / rul_pos_undo_move; caller-owned, one per move made. */
typedef struct {
    rul_move_t move;      /* the move made */
    rul_piece_t moved;    /* the piece that moved (before promotion) */
    rul_piece_t captured; /* the piece taken, RUL_PIECE_NONE if none */
    uint64_t key;         /* the position's key before the move */
} rul_undo_t;

/* The standard starting position (平手). */
#define RUL_SFEN_STARTPOS "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"

/* Error detail: a fixed buffer filled by parsers and validators ("sfen: column 12: unknown piece 'x'"). */
typedef struct {
    char msg[160]; /* NUL-terminated English message, empty when none */
    int column;    /* 1-based column of the offending character in the input, 0 when not applicable */
} rul_error_t;

/* The largest SFEN move number (the 4th field) rul_pos_from_sfen takes. Readers and replays refuse a
 * record whose moves would carry the position past it (a start numbered N has room for
 * RUL_SFEN_MAX_NUMBER - N moves), so that every SFEN written can be read back. */
#define RUL_SFEN_MAX_NUMBER 99999999

/* Sets *pos to an empty board (no pieces, no kings, empty hands), sente to move, ply 1. */
void rul_pos_clear(rul_pos_t *pos);

/* Parses SFEN text "BOARD SIDE HANDS [PLY]" into *pos (ply defaults to 1). Accepts the word "startpos".
 * Returns RUL_OK or RUL_EPARSE with err (may be NULL) naming the offending character and its column.
 * The parser itself refuses only what the position struct cannot hold: a second king of one colour
 * (reported at its column) and more than 18 of a kind in one hand. Everything else (piece counts,
 * nifu, dead pieces, checks) is left to rul_pos_validate. */
int rul_pos_from_sfen(rul_pos_t *pos, const char *sfen, rul_error_t *err);

/* Writes the SFEN of pos into buf (size bytes, NUL-terminated). Hands are written in the USI order
 * R B G S N L P, sente first. Returns RUL_OK or RUL_ERANGE if buf is too small (128 bytes always fit). */
int rul_pos_to_sfen(const rul_pos_t *pos, char *buf, size_t size);

/* Piece on square sq (0..80); RUL_PIECE_NONE if empty or sq out of range. */
rul_piece_t rul_pos_piece_at(const rul_pos_t *pos, int sq);

/* Puts piece pc (RUL_PIECE_NONE to clear) on square sq and keeps the key and king squares right.
 * For building positions (vision, tests); returns RUL_ERANGE for a bad square or piece. */
int rul_pos_set_piece(rul_pos_t *pos, int sq, rul_piece_t pc);

/* Square (0..80) of colour c's king, RUL_SQ_NONE when it has none. */
int rul_pos_king_sq(const rul_pos_t *pos, rul_color_t c);

/* Pieces of type t (RUL_PAWN..RUL_GOLD) in colour c's hand, 0..18; 0 for an out-of-range c or t. */
static inline int rul_pos_hand(const rul_pos_t *pos, rul_color_t c, rul_type_t t) {
    return (unsigned)c < RUL_COLOR_NB && t >= RUL_PAWN && t <= RUL_GOLD ? pos->hand[c][t - 1] : 0;
}

/* Sets colour c's count of type t (RUL_PAWN..RUL_GOLD) in hand to n (0..18) and keeps pos->key right
 * (no rul_pos_rehash needed). Returns RUL_OK or RUL_ERANGE (c, t or n out of range; pos unchanged). */
int rul_pos_set_hand(rul_pos_t *pos, rul_color_t c, rul_type_t t, int n);

/* Recomputes pos->key and the king squares from scratch (after editing the board by hand). */
void rul_pos_rehash(rul_pos_t *pos);

/* Zobrist key of pos as rul_pos_do_move maintains it: board + hands (count x per-piece key) + side to
 * move (a sum mod 2^64 of per-square, count x per-hand-piece and side keys), from fixed constants (splitmix64
 * of a fixed seed), identical across runs and machines. */
uint64_t rul_pos_compute_key(const rul_pos_t *pos);

/* 1 if the two positions have the same board, hands and side to move (the ply is ignored). */
int rul_pos_same(const rul_pos_t *a, const rul_pos_t *b);

/* ---------------------------------------------------------------- handicaps (FESA, JSA 駒落ち) */
typedef enum {
    RUL_HC_EVEN = 0,    /* 平手 */
    RUL_HC_LANCE,       /* 香落ち */
    RUL_HC_RIGHT_LANCE, /* 右香落ち */
    RUL_HC_BISHOP,      /* 角落ち */
    RUL_HC_ROOK,        /* 飛車落ち */
    RUL_HC_ROOK_LANCE,  /* 飛香落ち */
    RUL_HC_2,           /* 二枚落ち */
    RUL_HC_3,           /* 三枚落ち */
    RUL_HC_4,           /* 四枚落ち */
    RUL_HC_5,           /* 五枚落ち */
    RUL_HC_LEFT_5,      /* 左五枚落ち */
    RUL_HC_6,           /* 六枚落ち */
    RUL_HC_LEFT_7,      /* 左七枚落ち */
    RUL_HC_RIGHT_7,     /* 右七枚落ち */
    RUL_HC_8,           /* 八枚落ち */
    RUL_HC_10,          /* 十枚落ち */
    RUL_HC_NB
} rul_handicap_t;

/* Fills *info for handicap h: English name ("lance", "right-lance", "2-piece", ...), Japanese name
 * (UTF-8, e.g. "香落ち"), and starting SFEN (uwate = gote moves first, RULES.md "Handicaps").
 * Returns RUL_ERANGE for an unknown h. The strings are static and must not be freed. */
typedef struct {
    const char *name;    /* English name accepted by rul_handicap_from_name */
    const char *name_ja; /* Japanese name as written in KIF 手合割 */
    const char *sfen;    /* starting position */
} rul_handicap_info_t;
int rul_handicap_info(rul_handicap_t h, rul_handicap_info_t *info);

/* Looks a handicap up by English name (case-insensitive; "lance", "right-lance" or "right lance",
 * "bishop", "rook", "rook-lance", "2", "2-piece", "left-5", "10-piece", "even"...) or Japanese name.
 * Returns RUL_OK with *h set, or RUL_EPARSE. */
int rul_handicap_from_name(const char *name, rul_handicap_t *h);

/* Sets *pos to the starting position of handicap h. Returns RUL_OK or RUL_ERANGE. */
int rul_pos_set_handicap(rul_pos_t *pos, rul_handicap_t h);

/* ---------------------------------------------------------------- move generation (FESA 3, 1.2) */

/* Fills *list with every legal move of the side to move: board moves with and without promotion
 * wherever both are legal (FESA 3.2: promotion optional unless the piece could never move again),
 * and drops, excluding nifu (3.11a), dead squares (3.11b) and pawn-drop mate (3.11c); moves that
 * leave or put one's own king in check (1.2) are excluded. A side without a king has no check to
 * avoid. Order is unspecified. Never fails. */
void rul_gen_legal(const rul_pos_t *pos, rul_movelist_t *list);

/* Number of legal moves (same set as rul_gen_legal, without storing them). */
int rul_count_legal(const rul_pos_t *pos);

/* 1 if move m is legal in pos, else 0. Any 32-bit value may be passed. */
int rul_is_legal(const rul_pos_t *pos, rul_move_t m);

/* Why a move is not legal (RUL_WHY_LEGAL when it is). For replays and the recorder's events. */
typedef enum {
    RUL_WHY_LEGAL = 0,
    RUL_WHY_NIFU,                 /* FESA 3.11(a) two unpromoted pawns on a file */
    RUL_WHY_PAWN_DROP_MATE,       /* FESA 3.11(c) uchifuzume */
    RUL_WHY_LEAVES_KING_IN_CHECK, /* FESA 1.2 */
    RUL_WHY_NO_FURTHER_MOVE,      /* FESA 3.2 / 3.11(b) a piece left where it can never move */
    RUL_WHY_NOT_A_LEGAL_MOVE      /* anything else: no such piece, not its way of moving, ... */
} rul_why_t;
rul_why_t rul_why_illegal(const rul_pos_t *pos, rul_move_t m);

/* Stable machine name of a reason: "nifu", "pawn_drop_mate", "leaves_king_in_check",
 * "no_further_move", "not_a_legal_move", "legal". */
const char *rul_why_name(rul_why_t why);

/* Makes move m (which must be legal, or at least pseudo-legal) and fills *undo. */
void rul_pos_do_move(rul_pos_t *pos, rul_move_t m, rul_undo_t *undo);

/* Takes back the move recorded in *undo (the last one made on pos). */
void rul_pos_undo_move(rul_pos_t *pos, const rul_undo_t *undo);

/* 1 if the side to move is in check. */
int rul_pos_in_check(const rul_pos_t *pos);

/* 1 if square sq (0..80) is attacked by a piece of colour by. */
int rul_pos_attacked(const rul_pos_t *pos, int sq, rul_color_t by);

/* 1 if the side to move is checkmated (in check, no legal move). */
int rul_pos_is_mate(const rul_pos_t *pos);

/* 1 if the side to move has no legal move at all (FESA 1.2: this loses, checked or not). */
int rul_pos_no_legal_move(const rul_pos_t *pos);

/* Node count of the legal-move tree to depth (1..RUL_PERFT_MAX_DEPTH) from pos; pos is restored.
 * Returns 0 for an out-of-range depth. */
#define RUL_PERFT_MAX_DEPTH 20
uint64_t rul_perft(rul_pos_t *pos, int depth);

/* ---------------------------------------------------------------- USI text */

/* Writes m as USI ("7g7f", "P*5e", "8h2b+") into buf (at least 6 bytes). */
void rul_move_to_usi(rul_move_t m, char buf[6]);

/* Parses a USI move string (exactly the move, no spaces) into *m, syntax only (no legality check);
 * for a board move *m says nothing about promotion legality. Returns RUL_OK or RUL_EPARSE. */
int rul_move_from_usi(const char *s, rul_move_t *m, rul_error_t *err);

/* ---------------------------------------------------------------- position validation (FESA 9.4) */
typedef enum {
    RUL_VALID = 0,
    RUL_INVALID_TOO_MANY_PIECES,  /* more than 40 pieces, or more of a kind than a set holds */
    RUL_INVALID_KING_COUNT,       /* more than one king of a colour, a king in hand */
    RUL_INVALID_NO_KING,          /* a colour without a king (only when both kings are required) */
    RUL_INVALID_NIFU,             /* FESA 9.4(b) two unpromoted pawns of one colour on a file */
    RUL_INVALID_DEAD_PIECE,       /* FESA 9.4(c) an unpromoted piece that can never move */
    RUL_INVALID_OPPONENT_IN_CHECK /* FESA 9.4(a) the side not to move is in check */
} rul_invalid_t;

/* Checks that pos could arise in a game. flags: RUL_VALIDATE_BOTH_KINGS requires a king of each
 * colour (a game; tsume positions have one). Returns the first reason found (RUL_VALID if none) and,
 * when err is not NULL, a message naming the square or piece ("nifu: sente pawns on file 7"). */
#define RUL_VALIDATE_BOTH_KINGS 1
rul_invalid_t rul_pos_validate(const rul_pos_t *pos, int flags, rul_error_t *err);

/* Stable machine name of a validation result ("valid", "nifu", "opponent_in_check", ...). */
const char *rul_invalid_name(rul_invalid_t r);

/* ---------------------------------------------------------------- impasse (jishogi / nyugyoku) */
typedef enum {
    RUL_IMPASSE_27 = 0,   /* FESA 5.3: sente 28 / gote 27 points, win or lose */
    RUL_IMPASSE_24 = 1,   /* 24-point declaration: 31+ win, 24..30 draw, under 24 lose */
    RUL_IMPASSE_COUNT = 2 /* both kings entered (French regulation / professional rule): count all */
} rul_impasse_rule_t;

typedef enum { RUL_VERDICT_LOSE = -1, RUL_VERDICT_DRAW = 0, RUL_VERDICT_WIN = 1 } rul_verdict_t;

/* Result of an impasse declaration by the side to move, with the counts behind it. */
typedef struct {
    rul_color_t declarer;  /* side to move */
    int points;            /* declarer's points under the rule (see rul_impasse_judge) */
    int opponent_points;   /* the opponent's points counted the same way */
    int pieces_in_zone;    /* declarer's pieces other than the king in the enemy camp (ranks 1-3 for
                              sente, 7-9 for gote) */
    int king_in_zone;      /* 1 if the declarer's king is in the enemy camp */
    int in_check;          /* 1 if the declarer is in check */
    int handicap_points;   /* points of pieces missing from the full set, given to gote (uwate) */
    int needed;            /* points needed to win (27-point: 28 sente / 27 gote; 24-point: 31) */
    rul_verdict_t verdict; /* for the declarer */
} rul_impasse_t;

/* Judges an impasse declaration by the side to move.
 *  - RUL_IMPASSE_27 (FESA 5.3): wins iff king in zone, >= 10 other pieces in zone, not in check and
 *    points >= 28 (sente) / 27 (gote); otherwise loses. Points: R, B (promoted or not) 5, other
 *    pieces 1, king 0, counting pieces in the enemy camp and in hand.
 *  - RUL_IMPASSE_24: same conditions and points; 31+ win, 24..30 draw, otherwise (or conditions
 *    unmet) lose.
 *  - RUL_IMPASSE_COUNT (French regulation, professional rule when both kings have entered): every
 *    piece each player owns on the board and in hand counts; both >= 24 is a draw, otherwise the
 *    higher count wins (equal counts under 24: draw).
 * Pieces missing from the full 40-piece set (a handicap game) are added to gote's (uwate's) points
 * under every rule. Returns RUL_OK; never fails for a parsed position. */
int rul_impasse_judge(const rul_pos_t *pos, rul_impasse_rule_t rule, rul_impasse_t *out);

/* ---------------------------------------------------------------- game history and repetition */
#define RUL_GAME_MAX_PLY 4096

/* A game: the starting position, every move made, and per-ply data for repetition (FESA 5.2, 3.12).
 * Large (about 150 KB): allocate it statically or on the heap. */
typedef struct {
    rul_pos_t start;                     /* position before the first move */
    rul_pos_t pos;                       /* current position */
    int nply;                            /* moves made, 0..RUL_GAME_MAX_PLY */
    rul_undo_t undo[RUL_GAME_MAX_PLY];   /* undo[i]: the (i+1)-th move */
    uint64_t keys[RUL_GAME_MAX_PLY + 1]; /* keys[i]: key of the position after i moves */
    uint8_t check[RUL_GAME_MAX_PLY + 1]; /* check[i]: 1 if the side to move after i moves is in check
                                            (so the (i)-th move gave check) */
} rul_game_t;

/* Repetition verdict after the last move (FESA 5.2 sennichite, 3.12 perpetual check). */
typedef enum {
    RUL_REP_NONE = 0,        /* no fourth occurrence */
    RUL_REP_SENNICHITE,      /* fourth occurrence: draw */
    RUL_REP_PERPETUAL_SENTE, /* fourth occurrence, sente checked on every move since the first
                                occurrence: sente loses */
    RUL_REP_PERPETUAL_GOTE   /* the same by gote: gote loses */
} rul_rep_t;

typedef struct {
    rul_rep_t verdict; /* see above */
    int count;         /* occurrences of the current position in the whole game (1 = new) */
    int first_ply;     /* ply after which the current position first occurred */
} rul_rep_info_t;

/* Starts game g from *start (copied). */
void rul_game_init(rul_game_t *g, const rul_pos_t *start);

/* Plays m in g if legal. Returns RUL_OK, RUL_EILLEGAL (g unchanged), or RUL_EFULL. */
int rul_game_play(rul_game_t *g, rul_move_t m);

/* Takes back the last move. Returns RUL_OK, or RUL_ERANGE at the start. */
int rul_game_undo(rul_game_t *g);

/* Judges repetition of the current position over the whole game: the fourth occurrence of the same
 * board, hands and side to move is sennichite (FESA 5.2), a draw; if one side gave check with every
 * one of its moves since the first occurrence, that side loses (3.12); if both did, it is a plain
 * draw. */
void rul_game_repetition(const rul_game_t *g, rul_rep_info_t *out);

/* ---------------------------------------------------------------- game end */

/* Why a game ended: the one vocabulary of the replay, the tracker and the record files. Names
 * (rul_reason_name) are stable strings of the JSON outputs. */
typedef enum {
    RUL_REASON_NONE = 0,        /* "none": the game is not over */
    RUL_REASON_RESIGN,          /* "resign": FESA 5.1 */
    RUL_REASON_MATE,            /* "mate": FESA 5.1, the side to move is checkmated */
    RUL_REASON_SENNICHITE,      /* "sennichite": FESA 5.2, fourth occurrence, draw */
    RUL_REASON_PERPETUAL_CHECK, /* "perpetual_check": FESA 3.12, the checking side loses */
    RUL_REASON_IMPASSE,         /* "impasse": FESA 5.3 declaration (or the 24-point / count rule) */
    RUL_REASON_ILLEGAL_MOVE,    /* "illegal_move": FESA 9.4, the mover loses */
    RUL_REASON_NO_LEGAL_MOVE,   /* "no_legal_move": FESA 1.2, the side to move cannot move and loses */
    RUL_REASON_TIME,            /* "time": FESA 8.x, flag fall */
    RUL_REASON_ABORT,           /* "abort": the game was stopped */
    RUL_REASON_NB
} rul_reason_t;

/* Stable name of r ("none", "resign", "mate", ...); "unknown" out of range. Static storage. */
const char *rul_reason_name(rul_reason_t r);

/* What the rules say of a game after its last move. */
typedef struct {
    rul_reason_t reason; /* NONE, SENNICHITE, PERPETUAL_CHECK, MATE or NO_LEGAL_MOVE */
    int winner;          /* RUL_SENTE or RUL_GOTE; RUL_COLOR_NB for a draw or a game that goes on */
    rul_rep_info_t rep;  /* the repetition of the current position (rul_game_repetition) */
} rul_game_end_t;

/* Judges whether game g ends with its last move, in this order: repetition (rul_game_repetition:
 * sennichite, FESA 5.2, a draw; perpetual check, FESA 3.12, the checking side loses), checkmate of
 * the side to move (FESA 5.1), no legal move for the side to move (FESA 1.2; it loses). Fills *out.
 * Design: docs/formats.md. */
void rul_game_judge(const rul_game_t *g, rul_game_end_t *out);

#ifdef __cplusplus
}
#endif
#endif /* KIFUCAM_RULES_H */
