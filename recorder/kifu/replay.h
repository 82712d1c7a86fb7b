/* replay.h - a game replayed to its result: a USI "position ... moves ..." line through the rules
 * engine (rec_replay_usi), with the events found on the way, and its JSON and text forms.
 *
 * Functions return REC_OK or a negative REC_E* code (recorder/recorder.h); errors in text input name
 * the offending token and its 1-based column in a rec_error_t. No global mutable state; a
 * rec_replay_t is the only allocation and its owner frees it.
 */
#ifndef KIFUCAM_REPLAY_H
#define KIFUCAM_REPLAY_H

#include <stdio.h>

#include "recorder/kifu/kifu.h"
#include "recorder/recorder.h"
#include "rules/rules.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- game results */
/* The winner; the same numbers as rul_game_end_t.winner (RUL_SENTE, RUL_GOTE, RUL_COLOR_NB). */
typedef enum { REC_WINNER_SENTE = 0, REC_WINNER_GOTE = 1, REC_WINNER_NONE = 2 } rec_winner_t;

/* Why a game ended: rules.h's rul_reason_t, the one vocabulary of results. */

typedef struct {
    rec_winner_t winner; /* REC_WINNER_NONE for a draw or an unfinished game */
    rul_reason_t reason; /* see rul_reason_t */
    int ply;             /* moves played when the game ended (0..RUL_GAME_MAX_PLY); for an illegal move,
                            the number of that move (moves played + 1) */
} rec_result_t;

/* Events found while replaying; the type names (rec_event_type_name) are stable strings. */
typedef enum {
    REC_EV_CHECK = 0,     /* "check": the move at ply gave check; detail "7g7f gives check to gote" */
    REC_EV_REPETITION,    /* "repetition": detail "position occurred N times" (N >= 2) */
    REC_EV_SENNICHITE,    /* "sennichite": fourth occurrence, draw (FESA 5.2) */
    REC_EV_PERPETUAL,     /* "perpetual_check": the checking side loses (FESA 3.12) */
    REC_EV_ILLEGAL_MOVE,  /* "illegal_move": detail is exactly the rul_why_name reason ("nifu", ...) */
    REC_EV_MATE,          /* "mate": the side to move is checkmated (FESA 5.1) */
    REC_EV_NO_LEGAL_MOVE, /* "no_legal_move": the side to move cannot move (FESA 1.2) */
    REC_EV_RESIGN,        /* "resign": the side to move resigned (the "resign" token) */
    REC_EV_IMPASSE,       /* "impasse": the side to move declared (the "win" token), with the counts */
    REC_EV_IGNORED_MOVES, /* "ignored_moves": moves written after the end of the game, not replayed */
    REC_EV_TIME_UP,       /* "time_up": the side to move lost on time (the "timeout" token, FESA 8.x) */
    REC_EV_NB
} rec_event_type_t;

typedef struct {
    int ply;               /* the move the event belongs to (1-based); 0 for the start position */
    rec_event_type_t type; /* see rec_event_type_t */
    char detail[96];       /* NUL-terminated English text, one line */
} rec_event_t;

/* At most one check and one repetition event per move, plus a few at the end. */
#define REC_MAX_EVENTS (2 * RUL_GAME_MAX_PLY + 16)

/* ---------------------------------------------------------------- replay of a USI line */

/* Tunables of rec_replay_usi. */
typedef struct {
    int validate_flags;              /* flags for rul_pos_validate of the start position; default 0:
                                        a tsume record has only gote's king; set
                                        RUL_VALIDATE_BOTH_KINGS to require both */
    rul_impasse_rule_t impasse_rule; /* rule that judges a "win" declaration token; default RUL_IMPASSE_27 */
} rec_replay_params_t;

/* Fills *p with the defaults above. */
void rec_replay_params_default(rec_replay_params_t *p);

/* A record's main line checked move by move to its last move (rec_replay_kifu), past the end the
 * replay stops at, and the record's own ending (rec_kifu_t.result.end) against what the rules find. */
typedef struct {
    int plies;             /* legal moves played */
    int illegal_ply;       /* ply of the first illegal move (1 = the record's first move), 0 if none */
    rul_why_t illegal_why; /* why it is illegal (RUL_WHY_LEGAL if none) */
    char illegal_usi[8];   /* the illegal move in USI, "" if none */
    rul_rep_t repetition;  /* the first fourth occurrence's verdict (FESA 5.2, 3.12), RUL_REP_NONE */
    int max_repetition;    /* most occurrences of any position along the line (1 = none repeated) */
    int sennichite_ply;    /* ply at which a fourth occurrence arose, 0 if none */
    int in_check;          /* 1 if the side to move at the end is in check */
    int mate;              /* 1 if the side to move at the end is checkmated */
    int claim_ok;          /* 1 if the record's ending agrees with the rules (or cannot be checked:
                              resign, time-up...), 0 if it claims what is not there */
    char claim_msg[160];   /* why the claim is rejected, "" when claim_ok */
    char final_sfen[160];  /* position after the last legal move of the line */
} rec_replay_record_t;

/* A replayed game: the rul_game_t and what the replay found. Large (about 940 KB): get one with
 * rec_replay_create, never put one on the stack. */
typedef struct {
    rul_game_t game;                    /* start position and the legal moves played; game.pos is the
                                           final position */
    int moves;                          /* legal moves played (== game.nply) */
    int moves_written;                  /* move tokens in the input (including an illegal one and any
                                           ignored after the end) */
    char start_sfen[128];               /* SFEN of the start position */
    int first_move;                     /* number of the first move: the start SFEN's move number (1 for
                                           startpos, 30 for "... b - 30"); a ply p (1-based, as in
                                           result.ply and events[].ply) is the game's move number
                                           p + first_move - 1, the number a KIF writer gives it */
    char final_sfen[128];               /* SFEN of the final position (before an illegal move) */
    rec_result_t result;                /* how the game ended */
    rul_move_t illegal_move;            /* the illegal move when result.reason is ILLEGAL_MOVE, else NONE */
    rul_why_t illegal_why;              /* why it is illegal (RUL_WHY_LEGAL otherwise) */
    int nevents;                        /* events[0..nevents-1], in ply order */
    rec_event_t events[REC_MAX_EVENTS]; /* see rec_event_t */
    rec_replay_record_t record;         /* the record's own line (rec_replay_kifu); zero otherwise */
} rec_replay_t;

/* Allocates a zeroed rec_replay_t (one heap allocation). Caller owns *out, free with
 * rec_replay_destroy. Returns REC_OK, REC_ERANGE (out NULL) or REC_ENOMEM. */
int rec_replay_create(rec_replay_t **out);

/* Frees r; accepts NULL. */
void rec_replay_destroy(rec_replay_t *r);

/* Replays one USI line into *r (whatever r held before is overwritten):
 *     [position] (startpos | sfen BOARD SIDE HANDS [PLY]) [moves M1 M2 ... [resign | win | timeout]]
 * Tokens are separated by spaces or tabs; a trailing newline is allowed. "resign", "win" and "timeout"
 * may only be the last token: the side to move resigns (FESA 5.1), declares an impasse judged by
 * params->impasse_rule (FESA 5.3; a failed declaration loses), or lost on time (FESA 8.x).
 *
 * Rules applied, in order, after each move: the move must be legal (FESA 1.2, 3.2, 3.11(a)(b)(c)),
 * otherwise the replay stops with reason illegal_move at that move's number, the winner being the
 * mover's opponent (FESA 9.4) and the reason from rul_why_illegal; a check event; the repetition of
 * the position over the whole game: 2nd and 3rd occurrences are events, the 4th
 * ends the game as sennichite (draw, FESA 5.2) or perpetual check (the checking side loses, FESA 3.12).
 * After the last move: checkmate of the side to move (reason mate), or no legal move (no_legal_move,
 * FESA 1.2); rul_game_judge decides all of these. A move written after a mate is judged like any other:
 * a mate (or no_legal_move) event, then illegal_move at that move's number. Moves written after the end
 * of the game (an illegal move, a sennichite, a perpetual check) are not played (an ignored_moves
 * event). Design: docs/formats.md.
 *
 * params may be NULL for the defaults. The start position is validated with rul_pos_validate
 * (params->validate_flags).
 * Returns REC_OK (the result is in *r, including an illegal move, which is a result, not an error);
 * REC_EPARSE for malformed text, with err naming the token and its column (every token is checked,
 * even those after the end of the game); REC_EINVALID for a start position that breaks the rules
 * (err says why, e.g. "start position is illegal: opponent_in_check: ..."); REC_EFULL for more than
 * RUL_GAME_MAX_PLY moves; REC_ERANGE for a NULL r or line. err may be NULL. On an error *r holds no
 * result. */
int rec_replay_usi(rec_replay_t *r, const char *line, const rec_replay_params_t *params, rec_error_t *err);

/* Replays record k to its result: its main line with its ending ("resign", "win" and "timeout" as the
 * record's 投了 / 入玉勝ち / 切れ負け) as rec_replay_usi replays the same game written as a USI line, and
 * checks the whole main line into r->record (filled whenever the start SFEN parses, even when an error
 * is returned). params may be NULL for the defaults.
 * Returns what rec_replay_usi returns; REC_EFULL with err->column 0 and the message "more than 4096
 * moves (N): longer than any game the rules engine replays" for a main line longer than
 * RUL_GAME_MAX_PLY; REC_ENOMEM, or REC_ERANGE (k or r NULL, or k cannot be written as a USI line: err
 * says why). err may be NULL. */
int rec_replay_kifu(rec_replay_t *r, const rec_kifu_t *k, const rec_replay_params_t *params,
                    rec_error_t *err);

/* Writes the replay as one JSON object and a newline:
 *   {"moves": N, "first_move": F, "final_sfen": "...", "result": {"winner": "sente|gote|none",
 *    "reason": "...", "ply": N, "move": M}, "events": [{"ply": N, "move": M, "type": "...",
 *    "detail": "..."}, ...]}
 * "ply" counts the line's moves from 1; "move" is the game's move number, ply + first_move - 1 (they
 * differ only for a game taken up in the middle: a start SFEN with a move number).
 * Strings are escaped (quote, backslash, control characters). Returns REC_OK, or REC_ERANGE if a
 * write to f failed. */
int rec_replay_write_json(const rec_replay_t *r, FILE *f);

/* Writes a human-readable summary (start, moves, result in words, final SFEN, events) to f; moves
 * and events are named by the game's move number (ply + first_move - 1), as the KIF writer numbers them.
 * Returns REC_OK, or REC_ERANGE if a write to f failed. */
int rec_replay_write_text(const rec_replay_t *r, FILE *f);

/* Stable names: "sente" / "gote" / "none"; "check", ... (rec_event_type_t); reasons by
 * rul_reason_name. Out-of-range values give "unknown". Static strings, not to be freed. */
const char *rec_winner_name(rec_winner_t w);
const char *rec_event_type_name(rec_event_type_t t);

/* Writes s as a JSON string literal (with the quotes) to f: '"', '\\' and control characters are
 * escaped, other bytes (UTF-8) pass through. Returns REC_OK or REC_ERANGE on a write error. */
int rec_json_write_string(FILE *f, const char *s);

#ifdef __cplusplus
}
#endif
#endif /* KIFUCAM_REPLAY_H */
