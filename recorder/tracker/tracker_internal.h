/* tracker_internal.h - what the tracker's files share: the averaged view, candidate sets, hypotheses,
 * struct rec_trk, and the functions one file calls in another. Not part of the tracker's contract
 * (tracker.h); the design is in docs/tracker.md. Every function takes a tracker the caller owns; none
 * allocates except rec_trk_ev_push (the event log). Functions returning int give REC_OK or a negative
 * REC_E* code unless said otherwise.
 */
#ifndef KIFUCAM_TRACKER_INTERNAL_H
#define KIFUCAM_TRACKER_INTERNAL_H

#include "recorder/tracker/tracker.h"

/* The averaged view as log probabilities. */
typedef struct {
    float lp[RUL_SQ_NB][REC_OBS_CLASS_NB];                  /* log p, floored */
    float avg[RUL_SQ_NB][REC_OBS_CLASS_NB];                 /* averaged p */
    uint8_t known[RUL_SQ_NB];                               /* square read in some frame */
    float hlp[RUL_COLOR_NB][RUL_HAND_NB][REC_OBS_COUNT_NB]; /* log p of counts */
    uint8_t hknown[RUL_COLOR_NB];                           /* komadai read */
    double best;                                            /* loglik of the best reading */
    double hbest;                                           /* the komadai's part of best */
} view_t;

#define CS_CAP 48
/* A set of candidates, one per position reached (the best way there), with the number of other
 * sequences of the same length reaching it (order ambiguity). */
typedef struct {
    rec_trk_cand_t c[CS_CAP];
    int nalt[CS_CAP];
    int n;
} candset_t;

/* ---------------------------------------------------------------- hypotheses (the beam) */

#define BEAM_CAP 8 /* hypotheses kept while views are ambiguous: more and the view is not used */
#define HYP_MAX 24 /* moves a hypothesis may hold beyond the game's position */
#define DMG_MAX 64 /* moves read from one stretch of damaged frames at most (then it is frozen) */

/* One move of a hypothesis, with what the view that showed it said. */
typedef struct {
    rul_move_t move;
    int kind;            /* rec_cand_kind_t of the explanation it belongs to */
    int why;             /* illegal kinds: the reason */
    int hidden;          /* one of 2-3 moves found in one view */
    int order_ambiguous; /* hidden, and another order reaches the same position */
    int damaged;         /* read from frames decoded from damaged data (damaged.c) */
    int merged;          /* another way within the margin reaches the same position by other moves from
                            this step on (a promotion then captured): no later view can tell them apart */
    int64_t ts;          /* start of the view that showed it (µs) */
    double fit;          /* deficit of that explanation (nats) */
    char ref_before[96]; /* evidence refs of that view */
    char ref_after[96];
} step_t;

/* A way the game may have gone since the game's position: the moves, the position they leave, and
 * the cost of explaining every view since by them. */
typedef struct {
    rul_pos_t pos; /* position after st[0..n-1] */
    int n;
    step_t st[HYP_MAX];
    double cost;     /* summed cost (nats) of the views explained, the best hypothesis at 0 */
    double last_def; /* deficit of the last view explained (the same board seen again is charged the
                        worse of the two, not both: twice the board is not twice the evidence) */
    int stepped;     /* 1: a hypothesis of the beam (explains a view); 0: the game's position */
} hyp_t;

/* A candidate from one hypothesis, in the evaluation of a view over the beam. */
typedef struct {
    int h;        /* hypothesis index */
    int ok;       /* 1: that hypothesis explained the view (only then may the candidate be chosen) */
    int nalt;     /* other sequences of the same length reaching the same position */
    int amb_at;   /* first move (0-based, of the len) where another way to the same position, from
                     another hypothesis and within the margin, differs; -1: none */
    int len;      /* moves in all: the hypothesis's and the candidate's */
    double total; /* the hypothesis's cost with this candidate's */
    rec_trk_cand_t c;
} comb_t;

#define COMB_CAP (BEAM_CAP * CS_CAP)

struct rec_trk {
    rec_trk_params_t p; /* parameters, checked by rec_trk_create */
    /* the game */
    rul_game_t *game;     /* the game in progress (heap, ~150 KB, owned) */
    int state;            /* rec_trk_state_t */
    int game_no;          /* number of the current game, 1-based; 0 before the first */
    int last_reason;      /* rul_reason_t of the last game's end */
    int64_t last_move_ts; /* when the last move (or the game start) was seen, µs */
    /* the starts a setup may match */
    struct {
        int given;                    /* 1: pos[0] is the only start (given to rec_trk_create) */
        rul_pos_t pos[RUL_HC_NB + 1]; /* the starts, pos[0..n-1] */
        int hc[RUL_HC_NB + 1];        /* their rul_handicap_t, -1 for a given position */
        int n;                        /* 1 (given) or RUL_HC_NB */
    } starts;
    /* the setup stage */
    struct {
        uint64_t sig; /* signature of the last setup_error written, 0: none */
        /* squares of the start misread by the classifier, and squares a piece moved to and was read
         * on as another kind of its side (moves.c remember_misread): while the game's position has
         * mis_want[sq] there and the view still reads mis_seen[sq], the square counts as read right */
        int8_t mis_want[RUL_SQ_NB]; /* observation class 0..28 of the start, -1: none */
        int8_t mis_seen[RUL_SQ_NB]; /* the class 0..28 it was read as, -1: none */
    } setup;
    /* the observations' clock */
    struct {
        int have;        /* 1: last_ts is set */
        int64_t last_ts; /* last observation's timestamp, µs */
    } clock;
    /* the current stable view ("run"): its frames summed */
    struct {
        int frames;            /* stable frames summed so far, 0 = no run */
        int64_t start_ts;      /* the run's first frame, µs */
        int64_t stable_end_ts; /* the last frame of a view that was read, µs; -1: none yet */
        int64_t prev_end_ts;   /* stable_end_ts before this run: a run too short to be read leaves it */
        int read;              /* 1: the run was long enough to be read (rec_trk_view_build) */
        int64_t gap_us;        /* no view read for this long before the run, µs; INT64_MAX: unknown */
        float acc[RUL_SQ_NB][REC_OBS_CLASS_NB];                  /* summed square probabilities */
        int acc_n[RUL_SQ_NB];                                    /* frames that read square sq */
        float hacc[RUL_COLOR_NB][RUL_HAND_NB][REC_OBS_COUNT_NB]; /* summed hand count probabilities */
        int hacc_n[RUL_COLOR_NB];                                /* frames that read that komadai */
        char ref_prev[96]; /* evidence ref of the last stable frame before this run, "" none */
        char ref_cur[96];  /* evidence ref of the current stable frame, "" none */
    } run;
    view_t view; /* the run averaged, as log probabilities */
    /* how the current view is being read */
    struct {
        int finishing;        /* 1 inside rec_trk_finish: uncertain() does not wait */
        int seq_unlimited;    /* 1 while a view is read again with sequences longer than its gap allows
                                 (play_step: nothing shorter explains it) */
        int seq_deep;         /* 1 while a view is read again with sequences up to max_seq_deep */
        int64_t deep_next_ts; /* the run's next deep reading is due at this time, µs */
        int deep_hit;         /* 1: the run's last deep reading explained it */
    } read;
    /* views not explained since the last written move */
    struct {
        int64_t since;     /* first such view's run start, µs; -1: none */
        int said;          /* 1: an uncertain event was written since the last move */
        int away;          /* 1: one was clearly not the game's position (came_back) */
        char away_ref[96]; /* its evidence ref */
        int came_back_ply; /* moves of the game when the board was last seen changed and back, -1:
                              never in this game (the ply numbers written since may be short by
                              the moves of an unseen cycle) */
    } unexpl;
    /* a view noted to take a lost game up from (resync) */
    struct {
        int have;            /* 1: pos is noted */
        int side;            /* the side to move in pos when known (reached by moves, gap.c), -1: not known */
        int64_t searched_ts; /* the run last searched from the game's position (gap.c), -1: none */
        rul_pos_t pos;       /* the view's position (sente to move; the next view says) */
        int64_t run_ts;      /* its run's start, µs */
        char ref[96];        /* its evidence ref */
    } resync;
    /* explanations of the current view (scratch) */
    struct {
        candset_t cs;          /* candidates from one position */
        comb_t comb[COMB_CAP]; /* candidates over the beam, best first, comb[0..n-1] */
        int n;                 /* 0..COMB_CAP */
        double margin;         /* nats comb[0] beats the runner-up by */
    } expl;
    /* the hypotheses (the beam) */
    struct {
        hyp_t root;           /* scratch: the game's position as the only hypothesis */
        hyp_t h[BEAM_CAP];    /* hypotheses after an ambiguous view, h[0..n-1]; none: the game's position */
        int n;                /* 0..BEAM_CAP */
        hyp_t pend[BEAM_CAP]; /* what the current view leaves, made the beam when it ends */
        int npend;            /* 0..BEAM_CAP */
    } beam;
    /* frames decoded from damaged data since the last clean view read (damaged.c) */
    struct {
        int active;               /* 1: damaged frames came since the last clean view was read */
        int in_run;               /* 1: the current run is of damaged frames */
        int frozen;               /* 1: no more moves are read from this stretch's views */
        int n;                    /* moves held back, st[0..n-1] */
        rul_pos_t pos;            /* the game's position after them */
        step_t st[DMG_MAX];       /* the moves, as their views showed them */
        int64_t since;            /* first damaged frame of the stretch, µs */
        int64_t unexpl_since;     /* run start of the first damaged view not explained since the last
                                     one that was, µs; -1: none */
        int64_t stable_end_ts;    /* run.stable_end_ts when the stretch began (damaged frames leave it) */
        uint8_t stale[RUL_SQ_NB]; /* 1: square taken as stale in this stretch's pictures, not read */
        int nstale;               /* squares marked in stale[] */
    } dmg;
    /* the event log */
    struct {
        rec_trk_event_t *ev; /* ev[0..n-1] (heap, owned) */
        int n;               /* events logged */
        int cap;             /* ev's capacity */
    } log;
};

/* ---------------------------------------------------------------- tracker.c: names and the event log */

/* "sente" or "gote" for colour c. Static string. */
const char *rec_trk_color_name(int c);
/* Zeroes *e as an event of type `type` for the current game and ply at ts (µs), refs of the run. */
void rec_trk_ev_init(const rec_trk_t *t, rec_trk_event_t *e, int type, int64_t ts);
/* Appends a copy of *e to the log (sfen from the game's position when empty, seq numbered).
 * Errors: REC_ENOMEM. */
int rec_trk_ev_push(rec_trk_t *t, rec_trk_event_t *e);
/* Ends the game (state ENDED, beam dropped) with a game_end event: winner rec_winner_t, reason
 * rul_reason_t, detail one line copied. */
int rec_trk_end_game(rec_trk_t *t, int winner, int reason, int64_t ts, const char *detail);

/* ---------------------------------------------------------------- view.c: the run and the view */

/* Ends the current run (its last frame's ref becomes ref_prev). */
void rec_trk_run_reset(rec_trk_t *t);
/* Adds stable observation o to the current run (starts one when there is none). */
void rec_trk_run_add(rec_trk_t *t, const rec_obs_t *o);
/* 1 if o confidently shows a class the run rules out on some square (a new view without a hand). */
int rec_trk_run_jump(const rec_trk_t *t, const rec_obs_t *o);
/* Builds t->view (log probabilities, best reading) from the run. */
void rec_trk_view_build(rec_trk_t *t);
/* Forgets the komadai of v, as if they were not read. */
void rec_trk_view_drop_hands(view_t *v);
/* The most probable class (0..REC_OBS_CLASS_NB-1) of square sq in v. */
int rec_trk_view_argmax(const view_t *v, int sq);
/* The view's probability of the channel of class c on square sq: empty, a sente piece, a gote piece. */
float rec_trk_channel_prob(const view_t *v, int sq, int c);
/* The class square sq of pos is scored under: pos's, or the class a misread start square is read as
 * (t->setup.mis_*). t NULL: no misreads. */
int rec_trk_scored_class(const rec_trk_t *t, const view_t *v, const rul_pos_t *pos, int sq);
/* Squares whose occupancy and owner in pos the view v contradicts: the view's probability of the
 * channel (empty, a sente piece, a gote piece) of pos's scored class is below t->p.agree_min. */
int rec_trk_view_disagrees(const rec_trk_t *t, const view_t *v, const rul_pos_t *pos);
/* Log likelihood (nats, <= 0) of pos's hand counts on the komadai v read. */
double rec_trk_hands_loglik(const view_t *v, const rul_pos_t *pos);
/* Log likelihood (nats, <= 0) of v given pos: squares read plus komadai read. t NULL: no misreads. */
double rec_trk_view_loglik(const rec_trk_t *t, const view_t *v, const rul_pos_t *pos);
/* Marks in[sq] = 1 where pos's class has less than changed_prob in t->view; returns how many. */
int rec_trk_changed_squares(const rec_trk_t *t, const rul_pos_t *pos, uint8_t in[RUL_SQ_NB]);
/* Scores c (moves played from before; NULL for no move) on the position after: loglik, deficit, cost,
 * key, board_key. */
void rec_trk_cand_score(const rec_trk_t *t, rec_trk_cand_t *c, const rul_pos_t *before,
                        const rul_pos_t *after);

/* ---------------------------------------------------------------- search.c: explanations from a position */

/* Empties cs. */
void rec_trk_cs_clear(candset_t *cs);
/* Adds c, keeping one candidate per position (the cheaper) and at most CS_CAP (the cheapest). */
void rec_trk_cs_add(candset_t *cs, const rec_trk_cand_t *c);
/* Sorts cs by cost, best first (ties: the simpler kind first). */
void rec_trk_cs_sort(candset_t *cs);
/* Margin (nats) of cs's best over the runner-up; 0 when a komadai is unread and another legal
 * explanation leaves the same board; 1e9 without a runner-up. */
double rec_trk_cs_margin_view(const candset_t *cs, const view_t *v);
/* Adds to t->cs every illegal action by pos's side to move and every move by the other side (two in
 * a row) that touches a square marked in in[]. */
void rec_trk_search_illegal(rec_trk_t *t, const rul_pos_t *pos, const uint8_t in[RUL_SQ_NB]);

/* What rec_trk_stage_one and rec_trk_stage_two say of a position. */
enum {
    HS_NOFIT = 0, /* no candidate explains the view */
    HS_FIT,       /* the best candidate explains it */
    HS_SAME       /* the position as it is explains it outright (no move can do better) */
};
/* t->cs = no move and every legal move from pos, sorted. Returns HS_*. */
int rec_trk_stage_one(rec_trk_t *t, const rul_pos_t *pos);
/* After stage one found nothing: hidden sequences, the deep reading, illegal actions, added to t->cs
 * (sorted). ts: the current frame's time (µs). Returns HS_FIT or HS_NOFIT. */
int rec_trk_stage_two(rec_trk_t *t, const rul_pos_t *pos, int64_t ts);
/* 1 when the time unseen before the run is too short for max_seq moves (min_move_us each). */
int rec_trk_seq_gap_limited(const rec_trk_t *t);

/* ---------------------------------------------------------------- moves.c: writing moves */

/* Plays m in g whatever its legality; flip: the side that just moved moves again. Errors: REC_EFULL. */
int rec_trk_game_force(rul_game_t *g, rul_move_t m, int flip);
/* Plays step s in the game and writes its event(s), then judges the game's end after a legal move.
 * *stop = 1 when no later move of the same explanation may follow. */
int rec_trk_commit_step(rec_trk_t *t, const step_t *s, double margin, const rec_trk_cand_t *cand, int ncand,
                        int late, const char *resolved_ref, int *stop);
/* Fills out[0..c->nmoves-1] with c's moves as seen in the current run; returns c->nmoves. */
int rec_trk_cand_steps(const rec_trk_t *t, const rec_trk_cand_t *c, int nalt, step_t *out);
/* Drops the beam and what the current view leaves: the game's position is the only hypothesis. */
void rec_trk_beam_clear(rec_trk_t *t);
/* Writes hypothesis h's moves (late; h may be NULL) then candidate c's; clears the beam. From the
 * first merged step (amb_at, counted over both, or a step of h marked merged; -1: none), or the first
 * step of a hidden sequence whose order is ambiguous, on nothing is written: the game's record stops
 * and the next game takes it up from the position they reach. */
int rec_trk_commit_path(rec_trk_t *t, const hyp_t *h, const rec_trk_cand_t *c, double margin, int nalt,
                        int amb_at, const rec_trk_cand_t *cand, int ncand);
/* Plays candidate c from the game's position (won by margin) and writes its events; cs: the
 * candidates listed in them. */
int rec_trk_accept(rec_trk_t *t, const rec_trk_cand_t *c, double margin, int nalt, const candset_t *cs);

/* ---------------------------------------------------------------- setup.c: the setup and new games */

/* Starts game number game_no+1 from start (hc: rul_handicap_t, -1 for another position) at ts (µs);
 * continues: the game it takes up again, 0 for a new game. Writes game_start. */
int rec_trk_start_game_at(rec_trk_t *t, const rul_pos_t *start, int hc, double fit, double margin, int64_t ts,
                          int continues);
/* Reads the view in the SETUP state: a start matched, taken as misread, or a setup_error. */
int rec_trk_setup_step(rec_trk_t *t, int64_t ts);
/* In or after a game: when the view shows a start (by the margin, also over best_other, the best
 * deficit of the game's explanations), ends the game if it is on and starts the next (*done = 1). */
int rec_trk_try_new_game(rec_trk_t *t, double best_other, int64_t ts, int *done);

/* ---------------------------------------------------------------- beam.c: the hypotheses */

/* Candidate i of t->comb as an event candidate (moves since the game's position, cost = total). */
void rec_trk_comb_cand(const rec_trk_t *t, const hyp_t *hs, int i, rec_trk_cand_t *out);
/* Adds t->cs, the candidates from hypothesis hs[hi] (ok: it explained the view), to t->comb. */
void rec_trk_comb_add_cs(rec_trk_t *t, const hyp_t *hs, int hi, int ok);
/* Sorts t->comb by total cost, best first. */
void rec_trk_comb_sort(rec_trk_t *t);
/* 1 if t->comb[i] is as likely as t->comb[0] as far as the view can tell. */
int rec_trk_comb_rival(const rec_trk_t *t, int i);
/* 1 when board move m from pos may or must promote (FESA 3.2, 3.3). */
int rec_trk_promotion_choice(const rul_pos_t *pos, rul_move_t m);
/* *out = h followed by e's candidate; -1 when that is more than HYP_MAX moves, else 0. */
int rec_trk_hyp_extend(const rec_trk_t *t, const hyp_t *h, const comb_t *e, hyp_t *out);
/* The current view ends: what it left becomes the beam and the moves all hypotheses begin with are
 * written. */
int rec_trk_beam_settle(rec_trk_t *t);

/* ---------------------------------------------------------------- gap.c */

/* The fewest legal moves (1..max_plies) from `from` that leave exactly the board want (piece per
 * square, RUL_PIECE_NONE empty), searched depth by depth with each side's moves bounded below by the
 * squares it must fill or empty, visiting at most max_nodes positions. Returns 1 and *out, *plies when
 * every shortest sequence leaves the same position (board, hands, side to move: the moves may differ
 * in order or kind, the position does not); 0 when the boards are the same, no sequence is found, the
 * budget runs out first, or the shortest sequences leave different positions. */
int rec_trk_gap_reach(const rul_pos_t *from, const rul_piece_t want[RUL_SQ_NB], int max_plies, long max_nodes,
                      rul_pos_t *out, int *plies);

/* ---------------------------------------------------------------- damaged.c */

/* Feeds an observation of a frame decoded from damaged data (o->damaged): its views are read from the
 * position the stretch's held-back moves reach, one legal move at a time, and nothing is written. */
int rec_trk_dmg_feed(rec_trk_t *t, const rec_obs_t *o);
/* A clean view is read after damaged frames: the held-back moves are written when the view is their
 * position or one legal move from it, else dropped with an uncertain event; the stretch ends. */
int rec_trk_dmg_confirm(rec_trk_t *t, int64_t ts);
/* The source ends inside a stretch: its held-back moves are dropped with an uncertain event. */
int rec_trk_dmg_drop(rec_trk_t *t, int64_t ts, const char *why);

/* ---------------------------------------------------------------- play.c, resync.c */

/* Reads the view in the PLAYING or ENDED state (ts: the current frame's time, µs). */
int rec_trk_play_step(rec_trk_t *t, int64_t ts);
/* Takes a lost game up again from a noted view when this one is one move from it (*done = 1), or
 * notes this view. */
int rec_trk_resync(rec_trk_t *t, int64_t ts, int *done);

#endif /* KIFUCAM_TRACKER_INTERNAL_H */
