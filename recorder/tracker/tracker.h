/* tracker.h - the recorder's tracker (rec_trk_*): observations of the board from vision in, the
 * game's events out (game start, moves, illegal moves, uncertain views, game end).
 *
 * The tracker explains each stable view of the board by the likeliest legal move, hidden sequence or
 * illegal action (FESA 9.4) with a margin over the runner-up, keeps ambiguous views as a small beam of
 * hypotheses, and never invents or drops a move. How and why: docs/tracker.md.
 *
 * Conventions (as in recorder.h): functions return REC_OK (0) or a negative REC_E* code; handles are
 * opaque, created with _create and freed with _destroy (NULL accepted); no global mutable state; a
 * handle is used from one thread at a time.
 */
#ifndef KIFUCAM_TRACKER_H
#define KIFUCAM_TRACKER_H

#include <stddef.h>
#include <stdint.h>

#include "capture/capture.h"
#include "recorder/kifu/kifu.h"
#include "recorder/recorder.h"
#include "recorder/kifu/replay.h"
#include "rules/rules.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- observations (vision -> tracker) */

#define REC_OBS_CLASS_NB                                                                                     \
    29                      /* square classes: 0 empty, 1..14 sente P L N S B R G K +P +L +N +S +B +R,       \
                               15..28 gote the same (class = rul_type_t, + 14 for gote) */
#define REC_OBS_COUNT_NB 19 /* hand counts 0..18 (18 pawns is the most of one kind) */

/* Class of a piece (rul_piece_t) as an observation class 0..28. */
#define REC_OBS_CLASS(pc) ((pc) == RUL_PIECE_NONE ? 0 : RUL_PIECE_TYPE(pc) + (RUL_PIECE_COLOR(pc) ? 14 : 0))

/* Observation class c (0..28) seen from the other end of the board: the same piece, the other owner
 * (empty stays empty). */
#define REC_OBS_SWAP(c) ((c) == 0 ? 0 : (c) <= 14 ? (c) + 14 : (c)-14)

/* What vision says about the view as a whole. */
typedef enum {
    REC_VIEW_STABLE = 0, /* nothing moves over the board: the view may be read */
    REC_VIEW_HAND = 1,   /* a hand (or arm, head) is over the board: not read */
    REC_VIEW_MOVING = 2, /* motion without a hand (camera shake, a piece sliding): not read */
    REC_VIEW_LOST = 3    /* the board is not found, or no frame (camera blackout): not read */
} rec_view_t;

/* One observation of the board: plain data, filled by vision (or a test). About 10 KB: keep it on the
 * heap or in static storage of the caller, not in a deep stack. */
typedef struct {
    int64_t ts_us; /* frame timestamp in microseconds, monotonic (capture's ts_us), non-decreasing */
    int view;      /* rec_view_t; only REC_VIEW_STABLE observations are read */
    float sq_prob[RUL_SQ_NB][REC_OBS_CLASS_NB]; /* [sq][class]: probability (0..1, each row sums to
                                                   about 1) of each class on square sq (sq as rules.h:
                                                   (file-1)*9 + rank-1) */
    uint8_t sq_unknown[RUL_SQ_NB]; /* 1: square sq is not visible / not read (its row is ignored) */
    float hand_prob[RUL_COLOR_NB][RUL_HAND_NB][REC_OBS_COUNT_NB]; /* [colour][kind-1][n]: probability
                                                   that colour's komadai holds n pieces of kind (P L N S
                                                   B R G = 1..7); ignored where hand_known is 0 */
    uint8_t hand_known[RUL_COLOR_NB]; /* 1: that colour's komadai was read, 0: not visible */
    const cap_image_t *image;         /* optional BGR8 frame (borrowed for the call, may be NULL): the outputs
                                         write it as evidence JPEGs */
    const char *evidence_ref;         /* optional opaque reference of this frame (a frame number, a path),
                                         borrowed for the call, may be NULL: copied into events as is */
    float board_px[4][2];             /* optional: image pixels (x, y) of the grid's corners as sente sees
                                         the board: top left (9a), top right (1a), bottom right (1i),
                                         bottom left (9i); all 0 when unknown. Not read by the tracker:
                                         the outputs crop and mark evidence frames with it */
    uint8_t damaged;                  /* 1: the frame was decoded from lost or damaged data (a video frame
                                         predicted from a damaged one): its picture may be wrong anywhere.
                                         Such views never write an event at once; one legal move each,
                                         read with twice the margin and no square contradicting it, is held
                                         back until the first clean view after them is the position they
                                         reach or one legal move from it (then written, `damaged`), else
                                         dropped (an uncertain event lists them). 0: a clean frame */
} rec_obs_t;

/* Sets *obs to "empty board, every square empty with probability 1, hands unknown, stable, ts 0". */
void rec_obs_clear(rec_obs_t *obs);

/* Sets the probabilities of obs to a certain reading of pos: each square's class of pos with
 * probability 1, both komadai read with pos's counts. Does not touch ts_us, view, image, evidence_ref.
 * For tests and for `kifucam` tools that build observations from SFEN. */
void rec_obs_from_pos(rec_obs_t *obs, const rul_pos_t *pos);

/* ---------------------------------------------------------------- tracker parameters */
/* What the tracker waits for and how sure it must be. Fill with rec_trk_params_default, then change
 * fields; rec_trk_create checks the ranges. Costs are in nats (natural log of a likelihood ratio);
 * times in µs of the observations' clock. docs/tracker.md says what each one trades. */
typedef struct {
    int min_frames;         /* stable frames of one view before it is read. >= 1; default 2 */
    int64_t min_run_us;     /* ... spanning at least this long (first stable frame of the view to the current
                               one), so a piece paused in mid-move is not read. µs >= 0; default 90 ms
                               (2 frames at 10 fps, 4 at 30 fps) */
    double prob_floor;      /* smallest probability taken in a log (a class vision rules out stays
                               possible). 1e-9..0.1; default 1e-3 */
    double fit_max;         /* an explanation must fit the view within this deficit (log likelihood of the
                               view's best reading minus its own). nats >= 0; default 3 */
    double margin;          /* nats the chosen explanation must beat the runner-up by. > 0; default 2 */
    double seq_penalty;     /* cost per move of a hidden sequence beyond the first. nats >= 0; default 2.5 */
    double nopromo_penalty; /* cost per move of a pawn, bishop or rook that could promote and does not
                               (the move's prior, about half its log odds in real games; the data:
                               docs/EVALUATION.md). nats >= 0; default 2.5 */
    int max_seq;            /* longest hidden sequence searched for every view. 1..REC_TRK_MAX_SEQ;
                               default 3 */
    int max_seq_deep;       /* longest hidden sequence of the deep reading (a view nothing shorter
                               explains, read again every illegal_after_us). max_seq..REC_TRK_MAX_SEQ
                               (max_seq: none); default 5 */
    int64_t min_move_us;    /* a hidden sequence of n moves needs (n - 1) x this without a stable frame
                               before the view (longer ones only for a view nothing else explains after
                               illegal_after_us). µs >= 0 (0: no limit); default 400 ms */
    int max_changed;        /* most changed squares for which sequences and illegal actions are searched
                               (a noisier view waits). 1..81; default 12 */
    double changed_prob;    /* a square is "changed" when the position's class has less than this
                               probability in the view. 0..1; default 0.5 */
    double agree_min;       /* precision first: an explanation whose position the view contradicts on
                               a square, the view giving that square's occupancy and owner (empty, a
                               sente piece, a gote piece) of the position less than this probability,
                               is charged fit_max + margin per such square, so it is never written
                               however it ranks; the kinds are left to the fit. 0..0.5, 0: off;
                               default 0.1 */
    int64_t illegal_after_us;        /* a view is explained by an illegal action only once stable this long
                                        (a half-made move is not an illegal one). µs >= 0; default 1 s */
    int64_t uncertain_after_us;      /* an unexplained view is reported "uncertain" after this long. µs >= 0;
                                        default 3 s */
    int64_t resync_after_us;         /* a game no view has explained for this long since the last move may
                                        be taken up again from a confident view one legal move before a later
                                        one (game_end reason none, then game_start with `continues`). µs >= 0
                                        (0: never); default 3 s */
    int64_t setup_after_us;          /* a wrong setup is reported once the view has been stable this long.
                                        µs >= 0; default 1 s */
    int max_misread;                 /* most board squares of the nearest start, read as another kind of
                                        piece (never a piece for none or the reverse; hands matching), taken
                                        as misread (a setup_error, then the game starts) when the pieces seen
                                        are the start's rearranged. 0..10 (0: never); default 3 */
    int max_misread_foreign;         /* the same when the kinds seen are no rearrangement of the start's
                                        pieces (a fifth gold: the classifier misreads the set). 0..10;
                                        default 6 */
    int max_misread_given;           /* the same for a start given to rec_trk_create, replacing max_misread.
                                        0..40; default 10 */
    int max_misread_occ;             /* occupancy and owner first: most board squares of a standard start
                                        read as a piece where it has none, none where it has one, or a
                                        piece of the other side, that may be taken as misread with the
                                        kinds above, when no other start is as near in occupancy and owner
                                        (a given start: none). 0..3; default 1 */
    int max_misread_owner;           /* the same for squares whose owner alone is read otherwise while the
                                        occupancy of every square is the start's (no moves give that: a
                                        move empties a square). 0..20; default 10 */
    rul_impasse_rule_t impasse_rule; /* rule judging `declare` (--rule 27|24); default RUL_IMPASSE_27 */
} rec_trk_params_t;

/* Two moves change the occupancy (a piece or none) of at most 4 squares: a board that differs from a
 * start in occupancy on more than this many squares is no start with its first moves unseen, most
 * likely a game already under way (the tracker's setup_error says so; the recorder does not wait for a
 * first move to tell the ends of such a board). */
#define REC_TRK_MIDGAME_OCC 6

/* Fills *p with the defaults above. */
void rec_trk_params_default(rec_trk_params_t *p);

/* ---------------------------------------------------------------- events (tracker -> outputs) */
typedef enum {
    REC_TEV_GAME_START = 0, /* "game_start": the setup matches a start position (FESA 9.1); sfen is it */
    REC_TEV_SETUP_ERROR,    /* "setup_error": the board differs from every start (FESA 9.1); detail
                               lists the squares ("5g: expected sente P, seen empty; ...") */
    REC_TEV_MOVE,           /* "move": a legal move */
    REC_TEV_ILLEGAL,        /* "illegal_move": an illegal action (FESA 9.4), why says which; the game
                               goes on from the position after it */
    REC_TEV_KING_CAPTURED,  /* "king_captured": a king left in check was taken (FESA 9.5): game over */
    REC_TEV_UNCERTAIN,      /* "uncertain": a view no candidate explains with the margin; cand lists
                               the best ones (a candidate's moves are its first REC_TRK_MAX_SEQ moves
                               since the game's position; detail lists them all); the game stays where
                               it was and the candidates are kept: a later view that leaves one of them
                               writes its moves (late = 1). Said once until a view is explained. */
    REC_TEV_GAME_END,       /* "game_end": winner and reason (mate, sennichite, perpetual check, no
                               legal move, resign, impasse, time, abort, illegal move) */
    REC_TEV_FRAMES_LOST,    /* "frames_lost": frames lost or damaged, not read (rec_trk_note): moves
                               made then were not seen; detail says from when and how long */
    REC_TEV_RESUMED,        /* "resumed": the recording was interrupted and taken up again from its
                               log (--resume, rec_trk_note); moves made meanwhile were not seen */
    REC_TEV_NB
} rec_trk_event_type_t;

/* Illegal-action reasons: the rul_why_t values (nifu ... not_a_legal_move), plus: */
#define REC_WHY_TWO_IN_A_ROW 100 /* the side that just moved moved again (FESA 9.4, "moving twice") */

#define REC_TRK_MAX_SEQ 6  /* longest hidden sequence (rec_trk_params_t.max_seq_deep) */
#define REC_TRK_MAX_CAND 5 /* candidates kept in an event */

/* Kinds of explanation. */
typedef enum {
    REC_CAND_NONE = 0,   /* the position as it is (no move) */
    REC_CAND_LEGAL,      /* legal moves */
    REC_CAND_ILLEGAL,    /* one illegal move by the side to move */
    REC_CAND_WRONG_SIDE, /* one move by the side that just moved (two in a row) */
    REC_CAND_START       /* a start position (a new game) */
} rec_cand_kind_t;

/* One explanation of a view and how well it fits. */
typedef struct {
    rul_move_t moves[REC_TRK_MAX_SEQ]; /* moves[0..nmoves-1], in order */
    int nmoves;                        /* 0..REC_TRK_MAX_SEQ */
    int kind;                          /* rec_cand_kind_t */
    int why;                           /* illegal kinds: rul_why_t or REC_WHY_TWO_IN_A_ROW; else 0 */
    double loglik;                     /* log likelihood (nats) of the view given the position after */
    double deficit;                    /* best possible loglik of the view minus loglik, >= 0 (nats):
                                          how badly the position after explains the view */
    double cost;                       /* deficit + seq_penalty per move beyond the first
                                          + nopromo_penalty per forgone P/B/R promotion: candidates
                                          are ranked by cost */
    uint64_t key;                      /* Zobrist key of the position after (to tell positions apart) */
    uint64_t board_key;                /* hash of the board alone after (no hands, no side to move) */
    int unseen;                        /* 1: a hidden sequence in which one side's moves leave no trace
                                          on the board (a drop captured at once, a piece moved and moved
                                          back) and the komadai do not both read as its hands: kept as a rival,
                                          never written from this view alone */
} rec_trk_cand_t;

/* One event. All text is NUL-terminated UTF-8 (ASCII here). */
typedef struct {
    int seq;             /* 1-based number of the event in the whole recording (evidence files) */
    int type;            /* rec_trk_event_type_t */
    int game;            /* 1-based game number in this recording */
    int ply;             /* move events: the move's number (1 = first move of the game); others:
                            moves played in the game so far */
    rul_move_t move;     /* move, illegal_move, king_captured: the move; RUL_MOVE_NONE otherwise */
    int mover;           /* rul_color_t of the side that made the move */
    int why;             /* illegal_move: rul_why_t or REC_WHY_TWO_IN_A_ROW; else 0 */
    int hidden;          /* 1: one of 2..max_seq_deep moves recovered from one view (made while the board was
                            not seen); 0 otherwise */
    int order_ambiguous; /* hidden moves: other orders of the same moves reach the same position
                            (the order written is one of them) */
    int damaged;         /* 1: read from frames decoded from damaged data (rec_obs_t.damaged) and
                            written once a clean view confirmed it (late is 1 too); 0 otherwise */
    int late;            /* 1: the view that showed this move (ts_us, ref_after) had more than one
                            explanation within the margin; the move was written when later views
                            left one (detail names the frame that did), so it is right but not
                            live; 0 otherwise */
    int64_t ts_us;       /* start of the stable view that showed it (µs, as the observations) */
    int64_t time_ms;     /* move events: thinking time in ms (since the previous move was seen),
                            REC_TIME_NONE for hidden moves */
    double confidence;   /* nats by which the explanation beat the runner-up (0 if none) */
    double fit;          /* the explanation's deficit (nats; 0 = the view's best reading) */
    int ncand;           /* cand[0..ncand-1]: best explanations, best first (uncertain, moves) */
    rec_trk_cand_t cand[REC_TRK_MAX_CAND];
    int winner;           /* game_end: rec_winner_t; else REC_WINNER_NONE */
    int reason;           /* game_end: rul_reason_t; else RUL_REASON_NONE */
    int colours_reversed; /* game_start: 1 when the players swapped colours (after a draw, 12.2) */
    int handicap;         /* game_start: rul_handicap_t of the start, -1 for another position;
                             setup_error: the standard start the board matches when another start was
                             given to rec_trk_create (a wrong --handicap), -1 otherwise */
    int continues;        /* game_start: the number of the game this one takes up again after the
                             board showed no position it could reach (resync_after_us; the moves in
                             between are not known), 0 for a new game */
    char usi[8];          /* the move in USI ("7g7f", "P*5e"), "" if none */
    char notation[24];    /* the move in Western notation ("P-7f"), "" if none */
    char sfen[128];       /* position after the event */
    char detail[400];     /* one line of English: what happened and why (rule article) */
    char ref_before[96];  /* evidence_ref of the last stable frame before, "" if none */
    char ref_after[96];   /* evidence_ref of the frame that showed it, "" if none */
} rec_trk_event_t;

/* Stable names of event types ("move", ...) and of illegal reasons (rul_why_name, or
 * "two_moves_in_a_row"). Static strings; out-of-range values give "unknown". */
const char *rec_trk_event_name(int type);
const char *rec_trk_why_name(int why);

/* ---------------------------------------------------------------- the tracker */
typedef struct rec_trk rec_trk_t;

/* Game state of the tracker. */
typedef enum {
    REC_TRK_SETUP = 0, /* waiting for a correct starting setup (FESA 9.1) */
    REC_TRK_PLAYING,   /* a game in progress */
    REC_TRK_ENDED      /* the game is over; a board set up again starts the next game */
} rec_trk_state_t;

/* Creates a tracker. params NULL: defaults. start: the expected starting position (copied), or NULL
 * for any standard start (even or one of the 15 handicaps, rules.h). On success *out is a new
 * tracker, freed with rec_trk_destroy. Errors: REC_ERANGE (out NULL, bad params), REC_EINVALID (start
 * breaks the rules: rul_pos_validate with both kings), REC_ENOMEM. */
int rec_trk_create(const rec_trk_params_t *params, const rul_pos_t *start, rec_trk_t **out);

/* Frees t and everything it owns; NULL accepted. */
void rec_trk_destroy(rec_trk_t *t);

/* Feeds one observation. A non-stable view ends the current stable view: when that view was
 * ambiguous, its explanations become the hypotheses the next views are read from, and the moves they
 * all begin with are written (events). A stable view is averaged with the previous stable frames of
 * the same view and read (docs/tracker.md): it may add events (rec_trk_nevents grows). obs is read
 * during the call only. *nnew (may be NULL) gets the number of events added. Errors: REC_ERANGE (NULL
 * argument, a timestamp going backwards), REC_ENOMEM, REC_EFULL (game over RUL_GAME_MAX_PLY moves). */
int rec_trk_feed(rec_trk_t *t, const rec_obs_t *obs, int *nnew);

/* An operator's command (one line, spaces between words): "resign sente|gote" (FESA 5.1), "declare"
 * (the side to move declares an impasse, judged by params.impasse_rule, FESA 5.3: a failed
 * declaration loses), "flag sente|gote" (lost on time, FESA 8.x), "abort". ts_us: when (µs, the
 * observations' clock). Ends the game with a game_end event. Errors: REC_EPARSE (unknown command;
 * err says which word), REC_ESTATE (no game in progress, or resign / flag for the side not to move in
 * the record: KIF, CSA and USI write those as the side to move's, so the record is behind the board or
 * the side is wrong; err says which side is to move), REC_ENOMEM. err may be NULL. */
int rec_trk_command(rec_trk_t *t, const char *line, int64_t ts_us, rec_error_t *err);

/* The source has ended (a video file, an image folder): a view not explained yet is reported
 * "uncertain" now, with its candidates, instead of after uncertain_after_us (so the last move of a
 * recording is never dropped without a word); before any game, a setup seen too briefly for
 * setup_after_us is judged now (a setup_error). ts_us: the last frame's time (µs). *nnew (may be NULL)
 * gets the number of events added. Errors: REC_ERANGE (t NULL), REC_ENOMEM. */
int rec_trk_finish(rec_trk_t *t, int64_t ts_us, int *nnew);

/* Tells t that the observations from now on come turned by 180 degrees (square sq is read where
 * 80 - sq was, owners swapped): sente sits at the other end of the picture. The start's squares taken
 * as misread (max_misread) turn with the board. t NULL: nothing. */
void rec_trk_turn_board(rec_trk_t *t);

/* Number of hypotheses the tracker holds after an ambiguous view (its beam: moves not yet written),
 * 0..8; 0 when the game's position is the only one, or t is NULL. */
int rec_trk_hypotheses(const rec_trk_t *t);

/* State, game and events of t (not NULL). Pointers are borrowed: valid until the next feed, finish,
 * command, apply or destroy of t. rec_trk_game: the game in progress or the last one (before the first
 * game: the given start, or the even one). rec_trk_game_number: 1-based, 0 before the first game.
 * rec_trk_event: event i in 0..nevents-1 (the whole recording's log, in order), NULL otherwise. */
rec_trk_state_t rec_trk_state(const rec_trk_t *t);
const rul_game_t *rec_trk_game(const rec_trk_t *t);
int rec_trk_game_number(const rec_trk_t *t);
int rec_trk_nevents(const rec_trk_t *t);
const rec_trk_event_t *rec_trk_event(const rec_trk_t *t, int i);

/* Logs a note about the recording itself: type REC_TEV_FRAMES_LOST or REC_TEV_RESUMED, at ts_us (µs,
 * the observations' clock), with detail (one line, copied; may be NULL) and ref (the evidence ref of
 * the frame where it happened, copied into ref_after; may be NULL). The game is not changed. Errors:
 * REC_ERANGE (t NULL, another type), REC_ENOMEM. */
int rec_trk_note(rec_trk_t *t, int type, int64_t ts_us, const char *detail, const char *ref);

/* Re-applies a logged event (from events.jsonl, see rec_out_resume) without observations: game_start
 * starts the game from ev->sfen, move and illegal_move play ev->move (ev->why says whether it was by
 * the wrong side), king_captured and game_end end the game; setup_error, uncertain, frames_lost and resumed
 * are only logged. The event is appended to t's log as given (seq renumbered to follow). Errors: REC_ERANGE
 * (NULL), REC_EPARSE (bad sfen), REC_ESTATE (a move with no game, or not legal where a legal move is
 * claimed), REC_ENOMEM, REC_EFULL. */
int rec_trk_apply(rec_trk_t *t, const rec_trk_event_t *ev);

#ifdef __cplusplus
}
#endif
#endif /* KIFUCAM_TRACKER_H */
