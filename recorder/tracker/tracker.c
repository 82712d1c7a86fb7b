/* tracker.c - the recorder's tracker: explains each stable view of the board by legal moves, hidden
 * sequences or illegal actions (FESA 9.4), checks the setup (9.1), ends games (5.1, 5.2, 3.12, 9.5,
 * operator commands) and keeps the event log. Owns its rul_game_t and the event array.
 *
 * How a view is read: the stable frames of one view are averaged (a noisy frame counts less); the
 * log likelihood of the averaged view given a position is the sum over visible squares of
 * log p(square shows the position's class) plus, for each komadai read, log p(count) per kind. The
 * best possible reading of the view (every square and count at its most likely value) gives the
 * "deficit" of a position: how many nats it loses against the view's own best reading. A candidate
 * is accepted when its deficit is small (it explains the view) and it beats the runner-up (the best
 * candidate reaching a different position) by params.margin.
 *
 * How it resynchronises: a view left with several explanations within the margin is not guessed at;
 * when the view ends they become the beam (hyp_t: position, moves since the game's position, summed
 * cost), and every later view is explained from each hypothesis (play_step). Costs add over views
 * (deficits are relative to each view's own best reading, so they add up; the same board seen twice
 * counts once), and the hypotheses the view was read from stay at a charge in case the view was no
 * position of the game. Moves are written when one candidate beats all others by the margin, or when
 * a view ends, those every hypothesis begins with (beam_settle): in both cases every explanation the
 * views leave open (within the margin) agrees on them: no move is written that one of them denies. */
#include "recorder/tracker/tracker.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- internal types */

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

/* One move of a hypothesis, with what the view that showed it said. */
typedef struct {
    rul_move_t move;
    int kind;            /* rec_cand_kind_t of the explanation it belongs to */
    int why;             /* illegal kinds: the reason */
    int hidden;          /* one of 2-3 moves found in one view */
    int order_ambiguous; /* hidden, and another order reaches the same position */
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
    int len;      /* moves in all: the hypothesis's and the candidate's */
    double total; /* the hypothesis's cost with this candidate's */
    rec_trk_cand_t c;
} comb_t;

#define COMB_CAP (BEAM_CAP * CS_CAP)

struct rec_trk {
    rec_trk_params_t p;
    int has_start;                   /* 1: start_expected is the only start */
    rul_pos_t starts[RUL_HC_NB + 1]; /* the starts a setup may match */
    int start_hc[RUL_HC_NB + 1];     /* their rul_handicap_t, -1 for a given position */
    int nstarts;
    rul_game_t *game;     /* the game in progress (heap, ~150 KB) */
    int state;            /* rec_trk_state_t */
    int game_no;          /* 0 before the first game */
    int last_reason;      /* rec_reason_t of the last game's end */
    int64_t last_move_ts; /* when the last move (or the game start) was seen, µs */
    int64_t last_ts;      /* last observation's timestamp */
    int have_ts;
    /* the current stable view ("run") */
    int run_frames; /* stable frames averaged so far, 0 = no run */
    int64_t run_start_ts;
    int64_t stable_end_ts; /* timestamp of the last stable frame seen, -1: none yet */
    int64_t run_gap_us;    /* no stable frame for this long before the run, INT64_MAX: unknown */
    int finishing;         /* 1 inside rec_trk_finish: uncertain() does not wait */
    int seq_unlimited;     /* 1 while a view is read again with sequences longer than its gap
                              allows (play_step: nothing shorter explains it) */
    int seq_deep;          /* 1 while a view is read again with sequences up to max_seq_deep */
    int64_t deep_next_ts;  /* the current run's next deep reading is due at this time (µs) */
    int deep_hit;          /* 1: the current run's last deep reading explained it */
    int run_uncertain;     /* an uncertain event was written since the last move */
    int away;              /* a view since the last written move was unexplained and clearly
                              not the game's position (came_back) */
    char away_ref[96];     /* its evidence ref */
    int came_back_ply;     /* moves of the game when the board was last seen changed and back
                              (came_back), -1: never in this game: the ply numbers written
                              since may be short by the moves of an unseen cycle */
    int64_t pending_since; /* first view not explained since the last move, -1 none */
    int resync_have;       /* 1: resync_pos is a view to take a lost game up from */
    rul_pos_t resync_pos;  /* that view's position (sente to move; the next view says) */
    int64_t resync_run_ts; /* its run's start (µs) */
    char resync_ref[96];   /* its evidence ref */
    float acc[RUL_SQ_NB][REC_OBS_CLASS_NB];
    int acc_n[RUL_SQ_NB];
    float hacc[RUL_COLOR_NB][RUL_HAND_NB][REC_OBS_COUNT_NB];
    int hacc_n[RUL_COLOR_NB];
    char ref_prev[96];  /* evidence ref of the last stable frame before this run */
    char ref_cur[96];   /* evidence ref of the current stable frame */
    uint64_t setup_sig; /* signature of the last setup error written */
    /* squares of the start misread by the classifier (start_misread): while the game's position has
     * mis_want[sq] there and the view still reads mis_seen[sq], the square counts as read right */
    int8_t mis_want[RUL_SQ_NB]; /* observation class of the start, -1: none */
    int8_t mis_seen[RUL_SQ_NB]; /* the class it was read as */
    view_t view;
    candset_t cs;         /* scratch */
    hyp_t root;           /* scratch: the game's position as the only hypothesis */
    hyp_t beam[BEAM_CAP]; /* hypotheses after an ambiguous view; none: the game's position */
    int nbeam;
    hyp_t pend[BEAM_CAP]; /* what the current view leaves, made the beam when it ends */
    int npend;
    comb_t comb[COMB_CAP]; /* scratch: candidates of the view over the beam, best first */
    int ncomb;
    double comb_margin;  /* margin of comb[0] over the runner-up */
    rec_trk_event_t *ev; /* the event log */
    int nev, capev;
};

/* ---------------------------------------------------------------- names */

static const char *const EVENT_NAMES[REC_TEV_NB] = {"game_start",    "setup_error", "move",    "illegal_move",
                                                    "king_captured", "uncertain",   "game_end"};

const char *rec_trk_event_name(int type) {
    return type >= 0 && type < REC_TEV_NB ? EVENT_NAMES[type] : "unknown";
}

const char *rec_trk_why_name(int why) {
    if (why == REC_WHY_TWO_IN_A_ROW)
        return "two_moves_in_a_row";
    if (why >= RUL_WHY_LEGAL && why <= RUL_WHY_NOT_A_LEGAL_MOVE)
        return rul_why_name((rul_why_t)why);
    return "unknown";
}

/* FESA article broken by an illegal action (RULES.md). */
static const char *why_article(int why) {
    switch (why) {
    case RUL_WHY_NIFU: return "FESA 3.11(a), 9.4";
    case RUL_WHY_PAWN_DROP_MATE: return "FESA 3.11(c), 9.4";
    case RUL_WHY_LEAVES_KING_IN_CHECK: return "FESA 1.2, 9.4";
    case RUL_WHY_NO_FURTHER_MOVE: return "FESA 3.2, 3.11(b), 9.4";
    case REC_WHY_TWO_IN_A_ROW: return "FESA 9.4 (moving twice)";
    default: return "FESA 3.3-3.10, 9.4";
    }
}

static const char *color_name(int c) { return c == RUL_SENTE ? "sente" : "gote"; }

static const char *const CLASS_NAMES[REC_OBS_CLASS_NB] = {
    "empty",   "sente P",  "sente L",  "sente N",  "sente S",  "sente B",  "sente R",  "sente G",
    "sente K", "sente +P", "sente +L", "sente +N", "sente +S", "sente +B", "sente +R", "gote P",
    "gote L",  "gote N",   "gote S",   "gote B",   "gote R",   "gote G",   "gote K",   "gote +P",
    "gote +L", "gote +N",  "gote +S",  "gote +B",  "gote +R"};

/* ---------------------------------------------------------------- observations */

void rec_obs_clear(rec_obs_t *obs) {
    memset(obs, 0, sizeof *obs);
    for (int sq = 0; sq < RUL_SQ_NB; sq++)
        obs->sq_prob[sq][0] = 1.0f;
}

void rec_obs_from_pos(rec_obs_t *obs, const rul_pos_t *pos) {
    for (int sq = 0; sq < RUL_SQ_NB; sq++) {
        memset(obs->sq_prob[sq], 0, sizeof obs->sq_prob[sq]);
        obs->sq_prob[sq][REC_OBS_CLASS(rul_pos_piece_at(pos, sq))] = 1.0f;
        obs->sq_unknown[sq] = 0;
    }
    memset(obs->hand_prob, 0, sizeof obs->hand_prob);
    for (int c = 0; c < RUL_COLOR_NB; c++) {
        for (int k = 0; k < RUL_HAND_NB; k++) {
            int n = pos->hand[c][k];
            obs->hand_prob[c][k][n < REC_OBS_COUNT_NB ? n : REC_OBS_COUNT_NB - 1] = 1.0f;
        }
        obs->hand_known[c] = 1;
    }
}

/* ---------------------------------------------------------------- parameters, life cycle */

void rec_trk_params_default(rec_trk_params_t *p) {
    p->min_frames = 2;
    p->min_run_us = 90000;
    p->prob_floor = 1e-3;
    p->fit_max = 3.0;
    p->margin = 2.0;
    p->seq_penalty = 2.5;
    p->nopromo_penalty = 2.5;
    p->max_seq = 3;
    p->max_seq_deep = 5;
    p->min_move_us = 400000;
    p->max_changed = 12;
    p->changed_prob = 0.5;
    p->illegal_after_us = 1000000;
    p->uncertain_after_us = 3000000;
    p->resync_after_us = 3000000;
    p->setup_after_us = 1000000;
    p->max_misread = 3;
    p->max_misread_foreign = 6;
    p->max_misread_given = 10;
    p->impasse_rule = RUL_IMPASSE_27;
}

static int params_ok(const rec_trk_params_t *p) {
    return p->min_frames >= 1 && p->min_run_us >= 0 && p->prob_floor >= 1e-9 && p->prob_floor <= 0.1 &&
           p->fit_max >= 0 && p->margin > 0 && p->seq_penalty >= 0 && p->nopromo_penalty >= 0 &&
           p->max_seq >= 1 && p->max_seq <= REC_TRK_MAX_SEQ && p->max_seq_deep >= p->max_seq &&
           p->max_seq_deep <= REC_TRK_MAX_SEQ && p->min_move_us >= 0 && p->max_changed >= 1 &&
           p->max_changed <= RUL_SQ_NB && p->changed_prob >= 0 && p->changed_prob <= 1 &&
           p->illegal_after_us >= 0 && p->uncertain_after_us >= 0 && p->setup_after_us >= 0 &&
           p->resync_after_us >= 0 && p->max_misread >= 0 && p->max_misread <= 10 &&
           p->max_misread_foreign >= 0 && p->max_misread_foreign <= 10 && p->max_misread_given >= 0 &&
           p->max_misread_given <= 40 && (unsigned)p->impasse_rule <= RUL_IMPASSE_COUNT;
}

int rec_trk_create(const rec_trk_params_t *params, const rul_pos_t *start, rec_trk_t **out) {
    rec_trk_t *t;
    if (out == NULL)
        return REC_ERANGE;
    *out = NULL;
    t = calloc(1, sizeof *t);
    if (t == NULL)
        return REC_ENOMEM;
    if (params)
        t->p = *params;
    else
        rec_trk_params_default(&t->p);
    if (!params_ok(&t->p)) {
        free(t);
        return REC_ERANGE;
    }
    t->game = calloc(1, sizeof *t->game);
    if (t->game == NULL) {
        free(t);
        return REC_ENOMEM;
    }
    memset(t->mis_want, -1, sizeof t->mis_want);
    memset(t->mis_seen, -1, sizeof t->mis_seen);
    t->stable_end_ts = -1;
    t->came_back_ply = -1;
    t->run_gap_us = INT64_MAX;
    if (start) {
        if (rul_pos_validate(start, RUL_VALIDATE_BOTH_KINGS, NULL) != RUL_VALID) {
            rec_trk_destroy(t);
            return REC_EINVALID;
        }
        t->has_start = 1;
        t->starts[0] = *start;
        t->start_hc[0] = -1;
        for (int h = 0; h < RUL_HC_NB; h++) {
            rul_pos_t q;
            rul_pos_set_handicap(&q, (rul_handicap_t)h);
            if (rul_pos_same(&q, start))
                t->start_hc[0] = h;
        }
        t->nstarts = 1;
    } else {
        for (int h = 0; h < RUL_HC_NB; h++) {
            rul_pos_set_handicap(&t->starts[h], (rul_handicap_t)h);
            t->start_hc[h] = h;
        }
        t->nstarts = RUL_HC_NB;
    }
    rul_game_init(t->game, &t->starts[0]);
    t->state = REC_TRK_SETUP;
    t->pending_since = -1;
    *out = t;
    return REC_OK;
}

void rec_trk_destroy(rec_trk_t *t) {
    if (t == NULL)
        return;
    free(t->ev);
    free(t->game);
    free(t);
}

void rec_trk_turn_board(rec_trk_t *t) {
    int8_t want[RUL_SQ_NB], seen[RUL_SQ_NB];
    if (t == NULL)
        return;
    for (int sq = 0; sq < RUL_SQ_NB; sq++) {
        int w = t->mis_want[RUL_SQ_NB - 1 - sq], v = t->mis_seen[RUL_SQ_NB - 1 - sq];
        want[sq] = (int8_t)(w < 0 ? w : REC_OBS_SWAP(w));
        seen[sq] = (int8_t)(w < 0 || v < 0 ? v : REC_OBS_SWAP(v));
    }
    memcpy(t->mis_want, want, sizeof want);
    memcpy(t->mis_seen, seen, sizeof seen);
}

int rec_trk_hypotheses(const rec_trk_t *t) { return t ? t->nbeam : 0; }

rec_trk_state_t rec_trk_state(const rec_trk_t *t) { return (rec_trk_state_t)t->state; }
const rul_game_t *rec_trk_game(const rec_trk_t *t) { return t->game; }
int rec_trk_game_number(const rec_trk_t *t) { return t->game_no; }
int rec_trk_nevents(const rec_trk_t *t) { return t->nev; }
const rec_trk_event_t *rec_trk_event(const rec_trk_t *t, int i) {
    return i >= 0 && i < t->nev ? &t->ev[i] : NULL;
}

/* ---------------------------------------------------------------- events */

/* A zeroed event of type `type` for the current game and ply, at ts. */
static void ev_init(const rec_trk_t *t, rec_trk_event_t *e, int type, int64_t ts) {
    memset(e, 0, sizeof *e);
    e->type = type;
    e->game = t->game_no;
    e->ply = t->game->nply;
    e->ts_us = ts;
    e->time_ms = REC_TIME_NONE;
    e->winner = REC_WINNER_NONE;
    e->reason = REC_REASON_NONE;
    e->handicap = -1;
    snprintf(e->ref_before, sizeof e->ref_before, "%s", t->ref_prev);
    snprintf(e->ref_after, sizeof e->ref_after, "%s", t->ref_cur);
}

/* Appends *e (sfen filled from the current position, seq numbered). */
static int ev_push(rec_trk_t *t, rec_trk_event_t *e) {
    if (t->nev == t->capev) {
        int cap = t->capev ? t->capev * 2 : 64;
        rec_trk_event_t *n = realloc(t->ev, sizeof *n * (size_t)cap);
        if (n == NULL)
            return REC_ENOMEM;
        t->ev = n;
        t->capev = cap;
    }
    if (e->sfen[0] == '\0')
        rul_pos_to_sfen(&t->game->pos, e->sfen, sizeof e->sfen);
    e->seq = t->nev + 1;
    t->ev[t->nev++] = *e;
    return REC_OK;
}

static int end_game(rec_trk_t *t, int winner, int reason, int64_t ts, const char *detail) {
    rec_trk_event_t e;
    ev_init(t, &e, REC_TEV_GAME_END, ts);
    e.winner = winner;
    e.reason = reason;
    snprintf(e.detail, sizeof e.detail, "%s", detail);
    t->state = REC_TRK_ENDED;
    t->last_reason = reason;
    t->nbeam = t->npend = 0; /* no hypothesis outlives the game */
    return ev_push(t, &e);
}

/* ---------------------------------------------------------------- the view */

static void run_reset(rec_trk_t *t) {
    if (t->run_frames > 0)
        memcpy(t->ref_prev, t->ref_cur, sizeof t->ref_prev);
    t->run_frames = 0;
}

static void run_add(rec_trk_t *t, const rec_obs_t *o) {
    if (t->run_frames == 0) {
        memset(t->acc, 0, sizeof t->acc);
        memset(t->acc_n, 0, sizeof t->acc_n);
        memset(t->hacc, 0, sizeof t->hacc);
        memset(t->hacc_n, 0, sizeof t->hacc_n);
        t->run_start_ts = o->ts_us;
        t->deep_next_ts = INT64_MIN;
        t->deep_hit = 0;
        t->run_gap_us = t->stable_end_ts >= 0 ? o->ts_us - t->stable_end_ts : INT64_MAX;
    }
    t->stable_end_ts = o->ts_us;
    for (int sq = 0; sq < RUL_SQ_NB; sq++) {
        if (o->sq_unknown[sq])
            continue;
        for (int c = 0; c < REC_OBS_CLASS_NB; c++)
            t->acc[sq][c] += o->sq_prob[sq][c];
        t->acc_n[sq]++;
    }
    for (int c = 0; c < RUL_COLOR_NB; c++) {
        if (!o->hand_known[c])
            continue;
        for (int k = 0; k < RUL_HAND_NB; k++)
            for (int n = 0; n < REC_OBS_COUNT_NB; n++)
                t->hacc[c][k][n] += o->hand_prob[c][k][n];
        t->hacc_n[c]++;
    }
    t->run_frames++;
    snprintf(t->ref_cur, sizeof t->ref_cur, "%s", o->evidence_ref ? o->evidence_ref : "");
}

/* 1 if o shows, with confidence, a class on some square that the run so far rules out: the view
 * changed without a non-stable frame in between (vision missed the hand), so a new run starts. */
static int run_jump(const rec_trk_t *t, const rec_obs_t *o) {
    for (int sq = 0; sq < RUL_SQ_NB; sq++) {
        if (o->sq_unknown[sq] || t->acc_n[sq] == 0)
            continue;
        int a = 0;
        for (int c = 1; c < REC_OBS_CLASS_NB; c++)
            if (o->sq_prob[sq][c] > o->sq_prob[sq][a])
                a = c;
        if (o->sq_prob[sq][a] > 0.8f && t->acc[sq][a] / (float)t->acc_n[sq] < 0.2f)
            return 1;
    }
    return 0;
}

static void view_build(rec_trk_t *t) {
    view_t *v = &t->view;
    const float floor_p = (float)t->p.prob_floor;
    v->best = 0;
    v->hbest = 0;
    for (int sq = 0; sq < RUL_SQ_NB; sq++) {
        v->known[sq] = t->acc_n[sq] > 0;
        if (!v->known[sq])
            continue;
        float mx = -1e30f, sum = 0;
        for (int c = 0; c < REC_OBS_CLASS_NB; c++)
            sum += t->acc[sq][c];
        if (sum <= 0)
            sum = 1;
        for (int c = 0; c < REC_OBS_CLASS_NB; c++) {
            float p = t->acc[sq][c] / sum;
            v->avg[sq][c] = p;
            v->lp[sq][c] = logf(p > floor_p ? p : floor_p);
            if (v->lp[sq][c] > mx)
                mx = v->lp[sq][c];
        }
        v->best += mx;
    }
    for (int c = 0; c < RUL_COLOR_NB; c++) {
        v->hknown[c] = t->hacc_n[c] > 0;
        if (!v->hknown[c])
            continue;
        for (int k = 0; k < RUL_HAND_NB; k++) {
            float mx = -1e30f, sum = 0;
            for (int n = 0; n < REC_OBS_COUNT_NB; n++)
                sum += t->hacc[c][k][n];
            if (sum <= 0)
                sum = 1;
            for (int n = 0; n < REC_OBS_COUNT_NB; n++) {
                float p = t->hacc[c][k][n] / sum;
                v->hlp[c][k][n] = logf(p > floor_p ? p : floor_p);
                if (v->hlp[c][k][n] > mx)
                    mx = v->hlp[c][k][n];
            }
            v->best += mx;
            v->hbest += mx;
        }
    }
}

/* Forgets the komadai of the view (as if they were not read). */
static void view_drop_hands(view_t *v) {
    v->best -= v->hbest;
    v->hbest = 0;
    v->hknown[RUL_SENTE] = v->hknown[RUL_GOTE] = 0;
}

/* The most probable class of square sq in view v. */
static int view_argmax(const view_t *v, int sq) {
    int seen = 0;
    for (int c = 1; c < REC_OBS_CLASS_NB; c++)
        if (v->avg[sq][c] > v->avg[sq][seen])
            seen = c;
    return seen;
}

/* The class under which square sq of pos is scored: pos's class, or, on a square of the start that the
 * classifier misreads (t->mis_*) and still reads the same way with the start's piece on it, the class
 * it is read as. t may be NULL (no misreads). */
static int scored_class(const rec_trk_t *t, const view_t *v, const rul_pos_t *pos, int sq) {
    int c = REC_OBS_CLASS(rul_pos_piece_at(pos, sq));
    if (t && t->mis_want[sq] >= 0 && c == t->mis_want[sq] && view_argmax(v, sq) == t->mis_seen[sq])
        return t->mis_seen[sq];
    return c;
}

/* The komadai's part of view_loglik: log p of pos's hand counts on the stands that were read. */
static double hands_loglik(const view_t *v, const rul_pos_t *pos) {
    double s = 0;
    for (int c = 0; c < RUL_COLOR_NB; c++) {
        if (!v->hknown[c])
            continue;
        for (int k = 0; k < RUL_HAND_NB; k++) {
            int n = pos->hand[c][k];
            s += v->hlp[c][k][n < REC_OBS_COUNT_NB ? n : REC_OBS_COUNT_NB - 1];
        }
    }
    return s;
}

static double view_loglik(const rec_trk_t *t, const view_t *v, const rul_pos_t *pos) {
    double s = 0;
    for (int sq = 0; sq < RUL_SQ_NB; sq++)
        if (v->known[sq])
            s += v->lp[sq][scored_class(t, v, pos, sq)];
    return s + hands_loglik(v, pos);
}

/* Squares where pos's class has less than changed_prob in the view: in[sq] = 1. Returns how many. */
static int changed_squares(const rec_trk_t *t, const rul_pos_t *pos, uint8_t in[RUL_SQ_NB]) {
    int n = 0;
    for (int sq = 0; sq < RUL_SQ_NB; sq++) {
        in[sq] = 0;
        if (!t->view.known[sq])
            continue;
        if (t->view.avg[sq][scored_class(t, &t->view, pos, sq)] < (float)t->p.changed_prob) {
            in[sq] = 1;
            n++;
        }
    }
    return n;
}

/* ---------------------------------------------------------------- candidate sets */

static void cs_clear(candset_t *cs) { cs->n = 0; }

static void cs_add(candset_t *cs, const rec_trk_cand_t *c) {
    for (int i = 0; i < cs->n; i++) {
        if (cs->c[i].key != c->key)
            continue;
        if (cs->c[i].nmoves == c->nmoves && cs->c[i].kind == c->kind)
            cs->nalt[i]++;
        if (c->cost < cs->c[i].cost)
            cs->c[i] = *c;
        return;
    }
    if (cs->n < CS_CAP) {
        cs->nalt[cs->n] = 0;
        cs->c[cs->n++] = *c;
        return;
    }
    int worst = 0;
    for (int i = 1; i < cs->n; i++)
        if (cs->c[i].cost > cs->c[worst].cost)
            worst = i;
    if (c->cost < cs->c[worst].cost) {
        cs->c[worst] = *c;
        cs->nalt[worst] = 0;
    }
}

/* Sorts by cost (best first; ties keep the simpler kind first). */
static void cs_sort(candset_t *cs) {
    for (int i = 1; i < cs->n; i++) {
        rec_trk_cand_t c = cs->c[i];
        int a = cs->nalt[i], j = i;
        while (j > 0 &&
               (cs->c[j - 1].cost > c.cost || (cs->c[j - 1].cost == c.cost && cs->c[j - 1].kind > c.kind))) {
            cs->c[j] = cs->c[j - 1];
            cs->nalt[j] = cs->nalt[j - 1];
            j--;
        }
        cs->c[j] = c;
        cs->nalt[j] = a;
    }
}

/* Margin of the best candidate over the runner-up (which reaches another position: one entry per
 * position). Large when there is no runner-up. When a komadai was not read, another explanation that
 * leaves the very same board with a different number of moves (a drop taken back at once: P*8e 8f8e
 * against 8f8e alone) differs from the best only in hands and whose turn it is, which the view cannot
 * show: the margin is then 0, so the tracker waits and says "uncertain" rather than pick the shorter
 * one and lose the turn order (it would later have to invent moves to get it back). */
static double cs_margin_view(const candset_t *cs, const view_t *v) {
    if (cs->n == 0)
        return 0;
    if (cs->n == 1)
        return 1e9;
    if (!v->hknown[RUL_SENTE] || !v->hknown[RUL_GOTE])
        for (int i = 1; i < cs->n; i++)
            if (cs->c[i].board_key == cs->c[0].board_key && cs->c[i].nmoves != cs->c[0].nmoves &&
                cs->c[i].kind == REC_CAND_LEGAL && cs->c[0].kind == REC_CAND_LEGAL)
                return 0;
    return cs->c[1].cost - cs->c[0].cost;
}

/* Moves of c->moves[0..nmoves-1], played from before, in which a pawn, bishop or rook that could
 * promote (FESA 3.2: it starts or ends in the mover's promotion zone, the far three ranks) does not. */
static int forgone_promotions(const rec_trk_cand_t *c, const rul_pos_t *before) {
    if (before == NULL || c->nmoves == 0)
        return 0;
    rul_pos_t q = *before;
    int n = 0;
    for (int i = 0; i < c->nmoves; i++) {
        rul_move_t m = c->moves[i];
        if (!RUL_MOVE_IS_DROP(m) && !RUL_MOVE_IS_PROMO(m)) {
            rul_piece_t pc = rul_pos_piece_at(&q, RUL_MOVE_FROM(m));
            int ty = RUL_PIECE_TYPE(pc);
            if (pc != RUL_PIECE_NONE && (ty == RUL_PAWN || ty == RUL_BISHOP || ty == RUL_ROOK)) {
                int rf = RUL_SQ_RANK(RUL_MOVE_FROM(m)), rt = RUL_SQ_RANK(RUL_MOVE_TO(m));
                int gote = RUL_PIECE_COLOR(pc) == RUL_GOTE;
                if (gote ? (rf >= 7 || rt >= 7) : (rf <= 3 || rt <= 3))
                    n++;
            }
        }
        if (i + 1 < c->nmoves) {
            rul_undo_t u;
            rul_pos_do_move(&q, m, &u);
        }
    }
    return n;
}

/* Scores candidate c (moves played from before, NULL for "no move") on the position after it. */
static void cand_score(const rec_trk_t *t, rec_trk_cand_t *c, const rul_pos_t *before,
                       const rul_pos_t *after) {
    c->loglik = view_loglik(t, &t->view, after);
    c->deficit = t->view.best - c->loglik;
    if (c->deficit < 0)
        c->deficit = 0;
    c->cost = c->deficit + t->p.seq_penalty * (c->nmoves > 1 ? c->nmoves - 1 : 0) +
              t->p.nopromo_penalty * forgone_promotions(c, before);
    c->key = after->key;
    uint64_t h = 1469598103934665603ull; /* FNV-1a over the 81 squares */
    for (int sq = 0; sq < RUL_SQ_NB; sq++)
        h = (h ^ rul_pos_piece_at(after, sq)) * 1099511628211ull;
    c->board_key = h;
}

/* 1 if move m starts or ends on a changed square. */
static int touches(rul_move_t m, const uint8_t in[RUL_SQ_NB]) {
    if (in[RUL_MOVE_TO(m)])
        return 1;
    return !RUL_MOVE_IS_DROP(m) && in[RUL_MOVE_FROM(m)];
}

/* A lower bound of the deficit (nats) of any position that r more moves can reach from pos: each move
 * changes what stands on at most 2 squares, so the squares still read wrong beyond the 2r worst stay
 * wrong. The komadai are left out (their part of a deficit is >= 0): the bound stays a bound. */
static double deficit_bound(const rec_trk_t *t, const rul_pos_t *pos, int r) {
    double top[2 * REC_TRK_MAX_SEQ] = {0}, sum = 0;
    int ntop = 2 * r < 2 * REC_TRK_MAX_SEQ ? 2 * r : 2 * REC_TRK_MAX_SEQ;
    const view_t *v = &t->view;
    for (int sq = 0; sq < RUL_SQ_NB; sq++) {
        if (!v->known[sq])
            continue;
        float mx = v->lp[sq][0];
        for (int c = 1; c < REC_OBS_CLASS_NB; c++)
            if (v->lp[sq][c] > mx)
                mx = v->lp[sq][c];
        double d = mx - v->lp[sq][scored_class(t, v, pos, sq)];
        if (d <= 0)
            continue;
        sum += d;
        for (int i = 0; i < ntop; i++) /* keep the ntop largest, largest first */
            if (d > top[i]) {
                double x = top[i];
                top[i] = d;
                d = x;
            }
    }
    for (int i = 0; i < ntop; i++)
        sum -= top[i];
    return sum;
}

/* Legal sequences of mind..maxd moves from pos (reached from root by seq[0..depth-1]), every move
 * touching a changed square, added to t->cs. prune (the deep reading): a branch is left as soon as
 * deficit_bound says that no position at its end can fit the view (fit_max). *budget counts the
 * positions visited down to 0, where the search stops (a view with many changed squares and drops). */
static void search_seq(rec_trk_t *t, const rul_pos_t *root, const rul_pos_t *pos, rul_move_t *seq, int depth,
                       int mind, int maxd, const uint8_t in[RUL_SQ_NB], int prune, long *budget) {
    rul_movelist_t list;
    rul_gen_legal(pos, &list);
    for (int i = 0; i<list.count && * budget> 0; i++) {
        rul_move_t m = list.moves[i];
        if (!touches(m, in))
            continue;
        rul_pos_t q = *pos;
        rul_undo_t u;
        rul_pos_do_move(&q, m, &u);
        if (RUL_PIECE_TYPE(u.captured) == RUL_KING)
            continue; /* a king capture is never a legal move (FESA 9.5 is handled apart) */
        (*budget)--;
        seq[depth] = m;
        int left = maxd - depth - 1;
        if (prune && deficit_bound(t, &q, left) > t->p.fit_max)
            continue;
        if (depth + 1 >= mind) {
            rec_trk_cand_t c;
            memset(&c, 0, sizeof c);
            c.kind = REC_CAND_LEGAL;
            c.nmoves = depth + 1;
            memcpy(c.moves, seq, sizeof(rul_move_t) * (size_t)(depth + 1));
            cand_score(t, &c, root, &q);
            cs_add(&t->cs, &c);
        }
        if (left > 0)
            search_seq(t, root, &q, seq, depth + 1, mind, maxd, in, prune, budget);
    }
}

/* Adds the illegal action m by the side to move of pos as a candidate, scored on the position it
 * leaves, with its reason (FESA 9.4 via rul_why_illegal). */
static void add_illegal(rec_trk_t *t, const rul_pos_t *pos, rul_move_t m) {
    rec_trk_cand_t c;
    memset(&c, 0, sizeof c);
    c.kind = REC_CAND_ILLEGAL;
    c.nmoves = 1;
    c.moves[0] = m;
    c.why = (int)rul_why_illegal(pos, m);
    rul_pos_t q = *pos;
    rul_undo_t u;
    rul_pos_do_move(&q, m, &u);
    cand_score(t, &c, pos, &q);
    cs_add(&t->cs, &c);
}

/* One illegal action by the side to move (a piece moved where it cannot go, a forbidden drop, a
 * move leaving the king in check, a missing compulsory promotion), or one legal move by the side
 * that just moved (two in a row), each touching changed squares. */
static void search_illegal(rec_trk_t *t, const rul_pos_t *pos, const uint8_t in[RUL_SQ_NB]) {
    const int us = pos->side;
    for (int from = 0; from < RUL_SQ_NB; from++) {
        rul_piece_t pc = rul_pos_piece_at(pos, from);
        if (!in[from] || pc == RUL_PIECE_NONE || RUL_PIECE_COLOR(pc) != us)
            continue;
        int ty = RUL_PIECE_TYPE(pc);
        for (int to = 0; to < RUL_SQ_NB; to++) {
            rul_piece_t tp = rul_pos_piece_at(pos, to);
            if (!in[to] || to == from || (tp != RUL_PIECE_NONE && RUL_PIECE_COLOR(tp) == us))
                continue;
            for (int promo = 0; promo < 2; promo++) {
                if (promo && !(ty >= RUL_PAWN && ty <= RUL_ROOK))
                    continue;
                rul_move_t m = RUL_MOVE_MAKE(from, to, promo);
                if (rul_is_legal(pos, m) && RUL_PIECE_TYPE(tp) != RUL_KING)
                    continue;
                add_illegal(t, pos, m);
            }
        }
    }
    for (int to = 0; to < RUL_SQ_NB; to++) {
        if (!in[to] || rul_pos_piece_at(pos, to) != RUL_PIECE_NONE)
            continue;
        for (int k = 1; k <= RUL_HAND_NB; k++) {
            if (pos->hand[us][k - 1] == 0)
                continue;
            rul_move_t m = RUL_MOVE_DROP(k, to);
            if (rul_is_legal(pos, m))
                continue;
            add_illegal(t, pos, m);
        }
    }
    /* two in a row: the side that just moved moves again */
    rul_pos_t w = *pos;
    w.side = (uint8_t)(us ^ 1);
    rul_pos_rehash(&w);
    rul_movelist_t list;
    rul_gen_legal(&w, &list);
    for (int i = 0; i < list.count; i++) {
        rul_move_t m = list.moves[i];
        if (!touches(m, in))
            continue;
        rec_trk_cand_t c;
        memset(&c, 0, sizeof c);
        c.kind = REC_CAND_WRONG_SIDE;
        c.nmoves = 1;
        c.moves[0] = m;
        c.why = REC_WHY_TWO_IN_A_ROW;
        rul_pos_t q = w;
        rul_undo_t u;
        rul_pos_do_move(&q, m, &u);
        cand_score(t, &c, &w, &q);
        cs_add(&t->cs, &c);
    }
}

/* ---------------------------------------------------------------- playing moves */

/* Plays m in the game whatever its legality (illegal actions are facts of the game); flip: the side
 * that just moved moves again. The rules engine's do_move handles any move of a piece that is on its
 * square; a king taken never goes in hand (FESA 9.5). */
static int game_force(rul_game_t *g, rul_move_t m, int flip) {
    if (g->nply >= RUL_GAME_MAX_PLY)
        return REC_EFULL;
    if (flip) {
        g->pos.side ^= 1;
        rul_pos_rehash(&g->pos);
    }
    rul_pos_do_move(&g->pos, m, &g->undo[g->nply]);
    g->nply++;
    g->keys[g->nply] = g->pos.key;
    g->check[g->nply] = (uint8_t)rul_pos_in_check(&g->pos);
    return REC_OK;
}

/* After a legal move: repetition (FESA 5.2, 3.12), mate (5.1), no legal move (1.2). */
static int check_end(rec_trk_t *t, int64_t ts) {
    rul_rep_info_t ri;
    char d[200];
    const int mover = t->game->pos.side ^ 1;
    rul_game_repetition(t->game, &ri);
    if (ri.verdict == RUL_REP_SENNICHITE) {
        snprintf(d, sizeof d,
                 "sennichite: the position occurred for the 4th time (first after move %d), draw (FESA 5.2)",
                 ri.first_ply);
        return end_game(t, REC_WINNER_NONE, REC_REASON_SENNICHITE, ts, d);
    }
    if (ri.verdict == RUL_REP_PERPETUAL_SENTE || ri.verdict == RUL_REP_PERPETUAL_GOTE) {
        int checker = ri.verdict == RUL_REP_PERPETUAL_SENTE ? RUL_SENTE : RUL_GOTE;
        snprintf(d, sizeof d,
                 "perpetual check by %s: 4th occurrence (first after move %d), %s loses (FESA 3.12)",
                 color_name(checker), ri.first_ply, color_name(checker));
        return end_game(t, checker ^ 1, REC_REASON_PERPETUAL_CHECK, ts, d);
    }
    if (rul_pos_is_mate(&t->game->pos)) {
        snprintf(d, sizeof d, "%s is checkmated, %s wins (FESA 5.1)", color_name(mover ^ 1),
                 color_name(mover));
        return end_game(t, mover, REC_REASON_MATE, ts, d);
    }
    if (rul_pos_no_legal_move(&t->game->pos)) {
        snprintf(d, sizeof d, "%s has no legal move and loses (FESA 1.2)", color_name(mover ^ 1));
        return end_game(t, mover, REC_REASON_NO_LEGAL_MOVE, ts, d);
    }
    return REC_OK;
}

static void move_text(const rul_pos_t *before, rul_move_t m, rec_trk_event_t *e) {
    rul_move_to_usi(m, e->usi);
    if (rec_kifu_move_to_western(before, m, e->notation, sizeof e->notation) != REC_KIFU_OK)
        snprintf(e->notation, sizeof e->notation, "%s", e->usi);
}

/* Plays one move and writes its event(s). s: what the view that showed it said; margin: by how much
 * the explanation won; cand/ncand: the candidates listed in the event; late: written after later
 * views resolved an ambiguity (resolved_ref names the frame that did). *stop = 1 when no later move
 * of the same explanation may follow (the game ended, a king was taken). */
static int commit_step(rec_trk_t *t, const step_t *s, double margin, const rec_trk_cand_t *cand, int ncand,
                       int late, const char *resolved_ref, int *stop) {
    rul_move_t m = s->move;
    rul_pos_t before = t->game->pos;
    rec_trk_event_t e;
    int flip = s->kind == REC_CAND_WRONG_SIDE, rc;
    *stop = 0;
    ev_init(t, &e, s->kind == REC_CAND_LEGAL ? REC_TEV_MOVE : REC_TEV_ILLEGAL, s->ts);
    snprintf(e.ref_before, sizeof e.ref_before, "%s", s->ref_before);
    snprintf(e.ref_after, sizeof e.ref_after, "%s", s->ref_after);
    e.mover = flip ? before.side ^ 1 : before.side;
    e.move = m;
    if (flip) {
        before.side ^= 1;
        rul_pos_rehash(&before);
    }
    move_text(&before, m, &e);
    if (s->kind == REC_CAND_LEGAL)
        rc = rul_game_play(t->game, m) == RUL_OK ? REC_OK : REC_EFULL;
    else
        rc = game_force(t->game, m, flip);
    if (rc != REC_OK) {
        *stop = 1;
        return rc;
    }
    e.ply = t->game->nply;
    e.hidden = s->hidden;
    e.order_ambiguous = s->order_ambiguous;
    e.late = late;
    /* a clock that went back (a resumed recording in a new process) gives no time */
    e.time_ms = s->hidden || s->ts < t->last_move_ts ? REC_TIME_NONE : (s->ts - t->last_move_ts) / 1000;
    t->last_move_ts = s->ts;
    e.confidence = margin;
    e.fit = s->fit;
    e.ncand = cand == NULL ? 0 : ncand < REC_TRK_MAX_CAND ? ncand : REC_TRK_MAX_CAND;
    if (e.ncand > 0)
        memcpy(e.cand, cand, sizeof(rec_trk_cand_t) * (size_t)e.ncand);
    rul_piece_t cap = t->game->undo[t->game->nply - 1].captured;
    if (RUL_PIECE_TYPE(cap) == RUL_KING) {
        e.type = REC_TEV_KING_CAPTURED;
        snprintf(e.detail, sizeof e.detail, "%s %s captures %s's king, which was left in check (FESA 9.5)",
                 color_name(e.mover), e.notation, color_name(e.mover ^ 1));
        rc = ev_push(t, &e);
        if (rc == REC_OK && t->state == REC_TRK_PLAYING)
            rc = end_game(t, e.mover, REC_REASON_ILLEGAL_MOVE, s->ts,
                          "a king left in check was captured: the capturer wins (FESA 9.5)");
        *stop = 1;
        return rc;
    }
    size_t len;
    if (s->kind == REC_CAND_LEGAL) {
        len = (size_t)snprintf(
            e.detail, sizeof e.detail, "%d. %s %s%s", e.ply, color_name(e.mover), e.notation,
            e.hidden ? (e.order_ambiguous ? " (made while the board was hidden; order uncertain)"
                                          : " (made while the board was hidden)")
                     : "");
    } else {
        e.why = s->why;
        len = (size_t)snprintf(e.detail, sizeof e.detail, "illegal move %d. %s %s: %s (%s); the game goes on",
                               e.ply, color_name(e.mover), e.notation, rec_trk_why_name(s->why),
                               why_article(s->why));
    }
    if (late && len < sizeof e.detail)
        len += (size_t)snprintf(
            e.detail + len, sizeof e.detail - len,
            "; resolved late: the view that showed it had other explanations, the view of %s left this one",
            resolved_ref && resolved_ref[0] ? resolved_ref : "a later frame");
    if (t->came_back_ply >= 0 && len < sizeof e.detail)
        snprintf(
            e.detail + len, sizeof e.detail - len,
            "; the ply number may be short: the board was seen changed and back after move %d (moves of an "
            "unseen cycle are not counted)",
            t->came_back_ply);
    rc = ev_push(t, &e);
    if (rc == REC_OK && s->kind == REC_CAND_LEGAL)
        rc = check_end(t, s->ts);
    if (t->state != REC_TRK_PLAYING)
        *stop = 1;
    return rc;
}

/* The steps of candidate c as seen in the current view (the run). */
static int cand_steps(const rec_trk_t *t, const rec_trk_cand_t *c, int nalt, step_t *out) {
    for (int i = 0; i < c->nmoves; i++) {
        step_t *s = &out[i];
        memset(s, 0, sizeof *s);
        s->move = c->moves[i];
        s->kind = c->kind;
        s->why = c->why;
        s->hidden = c->nmoves > 1;
        s->order_ambiguous = c->nmoves > 2 && nalt > 0;
        s->ts = t->run_start_ts;
        s->fit = c->deficit;
        snprintf(s->ref_before, sizeof s->ref_before, "%s", t->ref_prev);
        snprintf(s->ref_after, sizeof s->ref_after, "%s", t->ref_cur);
    }
    return c->nmoves;
}

/* The hypotheses are gone: the game's position is again the only one, nothing is pending. */
static void beam_clear(rec_trk_t *t) {
    t->nbeam = 0;
    t->npend = 0;
}

/* Writes the moves of hypothesis h (the earlier views' moves, late) and then of candidate c (this
 * view's), chosen with margin `margin`; the beam is cleared. */
static int commit_path(rec_trk_t *t, const hyp_t *h, const rec_trk_cand_t *c, double margin, int nalt,
                       const rec_trk_cand_t *cand, int ncand) {
    step_t cs[REC_TRK_MAX_SEQ];
    int rc = REC_OK, stop = 0, nc = cand_steps(t, c, nalt, cs), nev = t->nev;
    for (int i = 0; h && i < h->n && rc == REC_OK && !stop; i++)
        rc =
            commit_step(t, &h->st[i], margin, cand, ncand, h->st[i].ts != t->run_start_ts, t->ref_cur, &stop);
    for (int i = 0; i < nc && rc == REC_OK && !stop; i++)
        rc = commit_step(t, &cs[i], margin, cand, ncand, 0, NULL, &stop);
    beam_clear(t);
    t->pending_since = -1;
    t->run_uncertain = 0;
    if (t->nev != nev)
        t->away = 0; /* something was written: the board is explained again */
    return rc;
}

/* Plays candidate c (accepted with margin `margin`) from the game's position and writes its events. */
static int accept(rec_trk_t *t, const rec_trk_cand_t *c, double margin, int nalt, const candset_t *cs) {
    return commit_path(t, NULL, c, margin, nalt, cs->c, cs->n);
}

/* ---------------------------------------------------------------- setup and new games */

/* Starts game number game_no+1 from starts[i]. */
static int start_game_at(rec_trk_t *t, const rul_pos_t *start, int hc, double fit, double margin, int64_t ts,
                         int continues);

static int start_game(rec_trk_t *t, const rul_pos_t *start, int hc, double fit, double margin) {
    return start_game_at(t, start, hc, fit, margin, t->run_start_ts, 0);
}

/* Starts game number game_no+1 from start at time ts; continues: the game it takes up again (0: none). */
static int start_game_at(rec_trk_t *t, const rul_pos_t *start, int hc, double fit, double margin, int64_t ts,
                         int continues) {
    rec_trk_event_t e;
    int reversed = t->game_no > 0 && t->last_reason == REC_REASON_SENNICHITE;
    t->game_no++;
    rul_game_init(t->game, start);
    t->state = REC_TRK_PLAYING;
    t->last_move_ts = t->run_start_ts;
    t->setup_sig = 0;
    t->pending_since = -1;
    t->run_uncertain = 0;
    t->away = 0;
    t->came_back_ply = -1;
    memset(t->mis_want, -1, sizeof t->mis_want);
    memset(t->mis_seen, -1, sizeof t->mis_seen);
    beam_clear(t);
    t->resync_have = 0;
    ev_init(t, &e, REC_TEV_GAME_START, ts);
    e.handicap = hc;
    e.colours_reversed = reversed;
    e.fit = fit;
    e.confidence = margin;
    e.continues = continues;
    if (continues) { /* the position is the noted view's */
        e.ref_before[0] = '\0';
        snprintf(e.ref_after, sizeof e.ref_after, "%s", t->resync_ref);
    }
    rul_handicap_info_t hi;
    if (continues)
        snprintf(e.detail, sizeof e.detail,
                 "game %d takes up game %d again from the position seen here: the board showed no position "
                 "game %d could reach (moves made out of view), and the next view is one move from this one; "
                 "the moves in between are not known",
                 t->game_no, continues, continues);
    else
        snprintf(e.detail, sizeof e.detail, "game %d: the setup matches the %s start (FESA 9.1)%s",
                 t->game_no,
                 hc >= 0 && rul_handicap_info((rul_handicap_t)hc, &hi) == RUL_OK ? hi.name : "given",
                 reversed ? "; colours reversed after the draw (FESA 12.2)" : "");
    return ev_push(t, &e);
}

/* Scores every start; best index, its deficit and its margin over the next. board_only: the komadai
 * are left out (the board's squares alone). */
static int best_start(const rec_trk_t *t, int board_only, double *def, double *margin) {
    int best = -1;
    double b = 1e30, second = 1e30;
    for (int i = 0; i < t->nstarts; i++) {
        double d = t->view.best - view_loglik(NULL, &t->view, &t->starts[i]);
        if (board_only)
            d -= t->view.hbest - hands_loglik(&t->view, &t->starts[i]);
        if (d < b) {
            second = b;
            b = d;
            best = i;
        } else if (d < second) {
            second = d;
        }
    }
    *def = b;
    *margin = second - b;
    return best;
}

static int play_step(rec_trk_t *t, int64_t ts);
static int resync(rec_trk_t *t, int64_t ts, int *done);

#define SETUP_RESERVE                                                                                        \
    150 /* room kept at the end of a setup_error's detail for its last difference,                           \
         * " and N more;" and the verdict (80 characters at most) */

/* Appends to e's detail (at *len) each hand count of s that the view's komadai read otherwise (" sente
 * hand B: expected 1, seen 0;") while room is left (SETUP_RESERVE; *shown counts those written),
 * folding each into *sig. Returns how many differ. */
static int hand_diffs(const rec_trk_t *t, const rul_pos_t *s, rec_trk_event_t *e, size_t *len, uint64_t *sig,
                      int *shown) {
    int nd = 0;
    for (int c = 0; c < RUL_COLOR_NB; c++) {
        if (!t->view.hknown[c])
            continue;
        for (int k = 0; k < RUL_HAND_NB; k++) {
            int seen = 0;
            for (int n = 1; n < REC_OBS_COUNT_NB; n++)
                if (t->view.hlp[c][k][n] > t->view.hlp[c][k][seen])
                    seen = n;
            if (seen == s->hand[c][k])
                continue;
            nd++;
            *sig = (*sig ^ (uint64_t)(1000 + c * 200 + k * 20 + seen)) * 1099511628211ull;
            if (*len + SETUP_RESERVE < sizeof e->detail) {
                *len += (size_t)snprintf(e->detail + *len, sizeof e->detail - *len,
                                         " %s hand %s: expected %d, seen %d;", color_name(c),
                                         CLASS_NAMES[k + 1] + 6, s->hand[c][k], seen);
                ++*shown;
            }
        }
    }
    return nd;
}

/* Begins e as a setup_error about start i (a handicap's name, or "given"); returns its detail's length. */
static size_t setup_event(const rec_trk_t *t, int i, rec_trk_event_t *e) {
    rul_handicap_info_t hi;
    ev_init(t, e, REC_TEV_SETUP_ERROR, t->run_start_ts);
    return (size_t)snprintf(
        e->detail, sizeof e->detail, "setup differs from the %s start (FESA 9.1):",
        t->start_hc[i] >= 0 && rul_handicap_info((rul_handicap_t)t->start_hc[i], &hi) == RUL_OK ? hi.name
                                                                                                : "given");
}

/* Ends a setup_error's list (at len) with " and N more;" when fewer than nd differences were shown.
 * Returns the new length. */
static size_t said_more(rec_trk_event_t *e, size_t len, int nd, int shown) {
    if (nd > shown)
        len += (size_t)snprintf(e->detail + len, sizeof e->detail - len, " and %d more;", nd - shown);
    return len;
}

/* Starts the game from start i although nd differences were read (none: no event): the setup_error e,
 * its list at len, gets the verdict and is pushed first. */
static int start_despite(rec_trk_t *t, int i, rec_trk_event_t *e, size_t len, int nd, const char *verdict,
                         double def, double margin) {
    if (nd > 0) {
        snprintf(e->detail + len, sizeof e->detail - len, "%s", verdict);
        e->fit = def;
        rul_pos_to_sfen(&t->starts[i], e->sfen, sizeof e->sfen);
        int rc = ev_push(t, e);
        if (rc != REC_OK)
            return rc;
    }
    return start_game(t, &t->starts[i], t->start_hc[i], def, margin);
}

static int setup_step(rec_trk_t *t, int64_t ts) {
    double def, margin, bdef, bmargin;
    int i = best_start(t, 0, &def, &margin), hands_misread = 0;
    if (def <= t->p.fit_max && margin >= t->p.margin) {
        /* The start fits; hands read otherwise than the start's (within the fit: the komadai are read
         * weakly) are still said, for an arbiter or an operator whose --start has the wrong hands. */
        rec_trk_event_t e;
        uint64_t sig = 0;
        int shown = 0;
        size_t len = setup_event(t, i, &e);
        int nd = hand_diffs(t, &t->starts[i], &e, &len, &sig, &shown);
        len = said_more(&e, len, nd, shown);
        return start_despite(
            t, i, &e, len, nd,
            " the board matches; the komadai read otherwise (a misread, or hands other than the"
            " start's): the game starts",
            def, margin);
    }
    /* The board's squares fit a start and only the komadai do not: a stand is read far less surely
     * than a square (pieces overlap and lie at angles; `make eval` counts both stands exactly on a
     * minority of held-out scenes), so the board decides. The game starts at once; the hands that
     * differ are said in a setup_error event for the arbiter (FESA 9.1). */
    if (def > t->p.fit_max && (t->view.hknown[RUL_SENTE] || t->view.hknown[RUL_GOTE])) {
        int j = best_start(t, 1, &bdef, &bmargin);
        if (bdef <= t->p.fit_max && bmargin >= t->p.margin) {
            hands_misread = 1;
            i = j;
            margin = bmargin;
        }
    }
    if (def > t->p.fit_max && !hands_misread) {
        /* The first moves may have been made before the setup was seen clearly (a late camera, a
         * short look): the game starts from the nearest start if moves from it explain the view. */
        uint64_t sig = t->setup_sig;
        int n0 = t->nev, rc = start_game(t, &t->starts[i], t->start_hc[i], def, margin);
        if (rc != REC_OK)
            return rc;
        int64_t pend = t->pending_since;
        t->run_uncertain = 1; /* no uncertain event from this trial */
        rc = play_step(t, ts);
        t->run_uncertain = 0;
        t->pending_since = pend;
        if (rc != REC_OK)
            return rc;
        if (t->nev > n0 + 1 && t->game->nply > 0)
            return REC_OK;
        t->nev = n0; /* nothing explained: back to waiting for the setup */
        beam_clear(t);
        t->game_no--;
        t->setup_sig = sig;
        t->state = REC_TRK_SETUP;
    }
    if (ts - t->run_start_ts < t->p.setup_after_us && !hands_misread && !t->finishing)
        return REC_OK;
    /* FESA 9.1: say square by square how the board differs from the nearest start. */
    const rul_pos_t *s = &t->starts[i];
    rec_trk_event_t e;
    uint64_t sig = 1469598103934665603ull;
    int nd = 0, nd_board = 0, nd_occ = 0, kind_only = 1, shown = 0, misread[RUL_SQ_NB];
    int moved[REC_OBS_CLASS_NB] = {0}; /* per class: squares seen with it minus squares the start has it on */
    size_t len = setup_event(t, i, &e);
    for (int sq = 0; sq < RUL_SQ_NB; sq++)
        misread[sq] = -1;
    for (int sq = 0; sq < RUL_SQ_NB; sq++) {
        if (!t->view.known[sq])
            continue;
        int want = REC_OBS_CLASS(rul_pos_piece_at(s, sq)), seen = view_argmax(&t->view, sq);
        if (seen == want || t->view.avg[sq][want] >= (float)t->p.changed_prob)
            continue;
        nd++;
        nd_board++;
        misread[sq] = seen;
        kind_only &= (want == 0) == (seen == 0) && (want > 14) == (seen > 14);
        moved[seen]++;
        moved[want]--;
        nd_occ += (want == 0) != (seen == 0);
        sig = (sig ^ (uint64_t)(sq * 32 + seen)) * 1099511628211ull;
        if (len + SETUP_RESERVE < sizeof e.detail) {
            len += (size_t)snprintf(e.detail + len, sizeof e.detail - len, " %d%c: expected %s, seen %s;",
                                    RUL_SQ_FILE(sq), 'a' + RUL_SQ_RANK(sq) - 1, CLASS_NAMES[want],
                                    CLASS_NAMES[seen]);
            shown++;
        }
    }
    nd += hand_diffs(t, s, &e, &len, &sig, &shown);
    len = said_more(&e, len, nd, shown);
    if (hands_misread)
        return start_despite(t, i, &e, len, nd,
                             " the board matches: the komadai taken as misread, the game starts", def,
                             margin);
    if (nd == 0 || sig == t->setup_sig)
        return REC_OK; /* not one clear difference (a noisy view), or already said */
    t->setup_sig = sig;
    e.fit = def;
    /* No start with its first moves unseen (REC_TRK_MIDGAME_OCC): most likely a game already under
     * way when the recording began. */
    if (nd_occ > REC_TRK_MIDGAME_OCC)
        snprintf(e.detail + len, sizeof e.detail - len,
                 " not a start: give a game under way as the start (kifucam record --start SFEN)");
    snprintf(e.sfen, sizeof e.sfen, "%s", "");
    rul_pos_to_sfen(s, e.sfen, sizeof e.sfen);
    /* A few board squares off a start that is clearly the nearest: far more often the classifier
     * misreading an unusual piece set than a wrong setup. The game starts (the difference stays in the
     * log for the arbiter) and those squares count as read right while they keep the start's piece
     * and look as they did; hands must match. */
    int board_only = nd_board == nd;
    /* Only misread kinds: a piece where the start has none, or none where it has one, is not how this
     * classifier errs (empty squares are read right), so it is a wrong setup or a wrong --start /
     * --handicap, never taken as misread. */
    /* The pieces seen are the start's rearranged (a gold and a silver swapped, FESA 9.1's wrong setup):
     * max_misread. Kinds no rearrangement of the start's pieces gives (a fifth gold, a third rook, a
     * pawn too few): the set's pieces cannot be where they are read, the classifier misreads this set,
     * max_misread_foreign. */
    int rearranged = 1;
    for (int c = 0; c < REC_OBS_CLASS_NB; c++)
        rearranged &= moved[c] == 0;
    int limit = !kind_only           ? 0
                : t->start_hc[i] < 0 ? t->p.max_misread_given
                : rearranged         ? t->p.max_misread
                                     : t->p.max_misread_foreign;
    if (board_only && nd_board <= limit && margin >= t->p.margin && t->state == REC_TRK_SETUP) {
        char verdict[64];
        snprintf(verdict, sizeof verdict, " taken as misread (%d square%s): the game starts", nd_board,
                 nd_board == 1 ? "" : "s");
        int rc = start_despite(t, i, &e, len, nd, verdict, def, margin);
        if (rc != REC_OK)
            return rc;
        for (int sq = 0; sq < RUL_SQ_NB; sq++)
            if (misread[sq] >= 0) {
                t->mis_want[sq] = (int8_t)REC_OBS_CLASS(rul_pos_piece_at(s, sq));
                t->mis_seen[sq] = (int8_t)misread[sq];
            }
        return REC_OK;
    }
    return ev_push(t, &e);
}

/* ---------------------------------------------------------------- reading a view during a game */

/* Candidate i of the view over the beam as an event candidate: its first REC_TRK_MAX_SEQ moves since
 * the game's position, cost = total. */
static void comb_cand(const rec_trk_t *t, const hyp_t *hs, int i, rec_trk_cand_t *out) {
    const comb_t *e = &t->comb[i];
    const hyp_t *h = &hs[e->h];
    *out = e->c;
    out->nmoves = 0;
    for (int j = 0; j < h->n && out->nmoves < REC_TRK_MAX_SEQ; j++)
        out->moves[out->nmoves++] = h->st[j].move;
    for (int j = 0; j < e->c.nmoves && out->nmoves < REC_TRK_MAX_SEQ; j++)
        out->moves[out->nmoves++] = e->c.moves[j];
    out->cost = e->total;
}

/* The view is not explained (or not with the margin): once it has stayed so for uncertain_after_us,
 * one "uncertain" event with the best candidates over the beam (hs[0..nh-1]); then nothing more
 * until a view is explained. */
static int uncertain(rec_trk_t *t, const hyp_t *hs, int64_t ts) {
    rec_trk_event_t e;
    size_t len;
    if (!t->away && t->nbeam == 0 && t->state == REC_TRK_PLAYING) {
        rec_trk_cand_t none;
        memset(&none, 0, sizeof none);
        none.kind = REC_CAND_NONE;
        cand_score(t, &none, NULL, &t->game->pos);
        if (none.deficit > t->p.fit_max + t->p.margin) {
            t->away = 1; /* the board is not as the game left it: something was done */
            snprintf(t->away_ref, sizeof t->away_ref, "%s", t->ref_cur);
        }
    }
    if (t->pending_since < 0)
        t->pending_since = t->run_start_ts;
    if (t->run_uncertain || (!t->finishing && ts - t->pending_since < t->p.uncertain_after_us))
        return REC_OK;
    t->run_uncertain = 1;
    ev_init(t, &e, REC_TEV_UNCERTAIN, t->run_start_ts);
    e.ncand = t->ncomb < REC_TRK_MAX_CAND ? t->ncomb : REC_TRK_MAX_CAND;
    for (int i = 0; i < e.ncand; i++)
        comb_cand(t, hs, i, &e.cand[i]);
    e.confidence = t->ncomb ? t->comb_margin : 0;
    e.fit = t->ncomb ? t->comb[0].c.deficit : 0;
    len = (size_t)snprintf(
        e.detail, sizeof e.detail,
        "after move %d the view is not explained with the margin; candidates:", t->game->nply);
    for (int i = 0; i < e.ncand && len + 48 < sizeof e.detail; i++) {
        const comb_t *c = &t->comb[i];
        const hyp_t *h = &hs[c->h];
        char u[6];
        len += (size_t)snprintf(e.detail + len, sizeof e.detail - len, " [");
        if (c->len == 0)
            len += (size_t)snprintf(e.detail + len, sizeof e.detail - len, "no move");
        for (int j = 0; j < c->len && len + 16 < sizeof e.detail; j++) {
            rul_move_to_usi(j < h->n ? h->st[j].move : c->c.moves[j - h->n], u);
            len += (size_t)snprintf(e.detail + len, sizeof e.detail - len, "%s%s", j ? " " : "", u);
        }
        if (len + 16 < sizeof e.detail)
            len += (size_t)snprintf(e.detail + len, sizeof e.detail - len, "] %.1f;", c->total);
    }
    return ev_push(t, &e);
}

/* In a game, or after it: does the view show a start position (the board set up again)? */
static int try_new_game(rec_trk_t *t, double best_other, int64_t ts, int *done) {
    double def, margin;
    int i = best_start(t, 0, &def, &margin);
    *done = 0;
    if (t->game->nply == 0 || def > t->p.fit_max || margin < t->p.margin || best_other - def < t->p.margin)
        return REC_OK;
    *done = 1;
    if (t->state == REC_TRK_PLAYING) {
        int rc = end_game(t, REC_WINNER_NONE, REC_REASON_ABORT, ts,
                          "the board was set up again before the game ended: game stopped");
        if (rc != REC_OK)
            return rc;
    }
    return start_game(t, &t->starts[i], t->start_hc[i], def, margin);
}

/* Candidates from pos: no move, then every legal move, into t->cs (sorted). HS_SAME: the position as
 * it is explains the view outright (no move can do better); HS_FIT: the best candidate explains it;
 * HS_NOFIT: none does. */
enum { HS_NOFIT = 0, HS_FIT, HS_SAME };

static int stage_one(rec_trk_t *t, const rul_pos_t *pos) {
    rec_trk_cand_t c;
    memset(&c, 0, sizeof c);
    c.kind = REC_CAND_NONE;
    cand_score(t, &c, NULL, pos);
    cs_clear(&t->cs);
    cs_add(&t->cs, &c);
    /* Every square and count at its likeliest value: no move can do better than no move. */
    if (c.deficit < 0.5 * t->p.margin && c.deficit < 0.5 * t->p.fit_max)
        return HS_SAME;
    rul_movelist_t list;
    rul_gen_legal(pos, &list);
    for (int i = 0; i < list.count; i++) {
        rul_pos_t q = *pos;
        rul_undo_t u;
        rul_pos_do_move(&q, list.moves[i], &u);
        memset(&c, 0, sizeof c);
        /* taking a king left in check is not a move but the end of the game (FESA 9.5) */
        c.kind = RUL_PIECE_TYPE(u.captured) == RUL_KING ? REC_CAND_ILLEGAL : REC_CAND_LEGAL;
        c.nmoves = 1;
        c.moves[0] = list.moves[i];
        cand_score(t, &c, pos, &q);
        cs_add(&t->cs, &c);
    }
    cs_sort(&t->cs);
    return t->cs.c[0].deficit <= t->p.fit_max ? HS_FIT : HS_NOFIT;
}

/* 1 when the time the board went unseen before the current view (run_gap_us) is too short for
 * n moves (min_move_us each after the first); seq_gap_limited: for max_seq moves. */
static int seq_gap_limited_to(const rec_trk_t *t, int n) {
    return t->p.min_move_us > 0 && t->run_gap_us != INT64_MAX && 1 + t->run_gap_us / t->p.min_move_us < n;
}

static int seq_gap_limited(const rec_trk_t *t) { return seq_gap_limited_to(t, t->p.max_seq); }

#define DEEP_BUDGET 300000L /* positions a deep reading of one hypothesis visits at most */

/* The deep reading of pos: pruned sequences of max_seq+1..deep moves into t->cs. */
static void search_deep(rec_trk_t *t, const rul_pos_t *pos, int deep, const uint8_t in[RUL_SQ_NB]) {
    rul_move_t seq[REC_TRK_MAX_SEQ];
    long budget = DEEP_BUDGET;
    search_seq(t, pos, pos, seq, 0, t->p.max_seq + 1, deep, in, 1, &budget);
}

/* After stage_one found nothing that fits: sequences of 2-3 moves made while the board was hidden,
 * then, once the view has stayed long enough not to be a move being made, one illegal action (which
 * must also win by the margin). Adds to t->cs (sorted). */
static int stage_two(rec_trk_t *t, const rul_pos_t *pos, int64_t ts) {
    uint8_t in[RUL_SQ_NB];
    if (changed_squares(t, pos, in) > t->p.max_changed)
        return HS_NOFIT;
    int maxd = t->p.max_seq;
    if (!t->seq_unlimited && seq_gap_limited(t))
        maxd = (int)(1 + t->run_gap_us / t->p.min_move_us); /* no time for more moves while unseen */
    int deep =
        t->p.max_seq_deep; /* the deep reading's longest sequence: as many moves as the time unseen allows */
    if (seq_gap_limited_to(t, deep))
        deep = (int)(1 + t->run_gap_us / t->p.min_move_us);
    if (maxd >= 2) {
        rul_move_t seq[REC_TRK_MAX_SEQ];
        long all = LONG_MAX;
        search_seq(t, pos, pos, seq, 0, 2, maxd, in, 0, &all);
        cs_sort(&t->cs);
        if (!t->seq_deep && t->cs.c[0].deficit <= t->p.fit_max && t->cs.c[0].kind == REC_CAND_LEGAL) {
            /* a story as long as the search goes may be the start of a longer one that fits better (a
             * square the view misreads or does not see): those are its rivals */
            if (t->cs.c[0].nmoves >= maxd && maxd == t->p.max_seq && deep > t->p.max_seq) {
                search_deep(t, pos, deep, in);
                cs_sort(&t->cs);
            }
            return HS_FIT;
        }
    }
    if (t->seq_deep) {
        /* the deep reading (play_step): the longer sequences too; the shorter ones and the illegal
         * actions stay in the set as rivals */
        if (deep > t->p.max_seq)
            search_deep(t, pos, deep, in);
        if (ts - t->run_start_ts >= t->p.illegal_after_us)
            search_illegal(t, pos, in);
        cs_sort(&t->cs);
        const rec_trk_cand_t *b = &t->cs.c[0];
        return b->deficit <= t->p.fit_max &&
                       (b->kind == REC_CAND_LEGAL ||
                        (b->kind != REC_CAND_NONE && cs_margin_view(&t->cs, &t->view) >= t->p.margin))
                   ? HS_FIT
                   : HS_NOFIT;
    }
    if (ts - t->run_start_ts >= t->p.illegal_after_us) {
        search_illegal(t, pos, in);
        cs_sort(&t->cs);
        if (t->cs.c[0].deficit <= t->p.fit_max && cs_margin_view(&t->cs, &t->view) >= t->p.margin &&
            t->cs.c[0].kind != REC_CAND_NONE)
            return HS_FIT;
    }
    return HS_NOFIT;
}

/* Adds t->cs, the candidates from hypothesis h (index hi), to the view's list with their totals. A
 * hypothesis seen again without a move is charged the worse of its last view's deficit and this
 * one's, not both: the same board seen twice is not twice the evidence. Two ways to the same position
 * keep the cheaper (nalt counts same-length others). */
static void comb_add_cs(rec_trk_t *t, const hyp_t *h, int hi, int ok) {
    for (int i = 0; i < t->cs.n; i++) {
        const rec_trk_cand_t *c = &t->cs.c[i];
        double total = c->kind == REC_CAND_NONE && h->stepped
                           ? h->cost - h->last_def + (c->deficit > h->last_def ? c->deficit : h->last_def)
                           : h->cost + c->cost;
        int len = h->n + c->nmoves, j;
        for (j = 0; j < t->ncomb; j++)
            if (t->comb[j].c.key == c->key)
                break;
        if (j < t->ncomb) {
            if (t->comb[j].len == len && t->comb[j].h != hi)
                t->comb[j].nalt++;
            if (total >= t->comb[j].total)
                continue;
        } else if (t->ncomb < COMB_CAP) {
            j = t->ncomb++;
            t->comb[j].nalt = 0;
        } else {
            continue;
        }
        t->comb[j].h = hi;
        t->comb[j].ok = ok;
        t->comb[j].len = len;
        t->comb[j].total = total;
        t->comb[j].c = *c;
        if (h->stepped == 0)
            t->comb[j].nalt = t->cs.nalt[i];
    }
}

static void comb_sort(rec_trk_t *t) {
    for (int i = 1; i < t->ncomb; i++) {
        comb_t c = t->comb[i];
        int j = i;
        while (j > 0 && (t->comb[j - 1].total > c.total ||
                         (t->comb[j - 1].total == c.total && t->comb[j - 1].c.kind > c.c.kind))) {
            t->comb[j] = t->comb[j - 1];
            j--;
        }
        t->comb[j] = c;
    }
}

/* 1 if candidate i of the view's list is as likely as the best one as far as the view can tell: within
 * the margin, or (a komadai not read) the very same board after a different number of moves, which
 * differs only in hands and turn (cs_margin_view says why), when it is behind only by what the extra
 * moves are charged (seq_penalty each): a lead won on earlier views is evidence, not a charge. */
static int comb_rival(const rec_trk_t *t, int i) {
    const comb_t *b = &t->comb[0], *e = &t->comb[i];
    if (e->total - b->total < t->p.margin)
        return 1;
    int dlen = e->len > b->len ? e->len - b->len : b->len - e->len;
    return (!t->view.hknown[RUL_SENTE] || !t->view.hknown[RUL_GOTE]) && e->c.board_key == b->c.board_key &&
           dlen > 0 && e->c.kind == REC_CAND_LEGAL && b->c.kind == REC_CAND_LEGAL &&
           e->total - b->total < t->p.margin + t->p.seq_penalty * dlen;
}

/* hypothesis out = h followed by candidate c of the current view (cost total). 0, or -1 when it
 * would hold more than HYP_MAX moves. */
static int hyp_extend(const rec_trk_t *t, const hyp_t *h, const comb_t *e, hyp_t *out) {
    if (e->len > HYP_MAX)
        return -1;
    *out = *h;
    const rec_trk_cand_t *c = &e->c;
    for (int i = 0; i < c->nmoves; i++) {
        rul_undo_t u;
        if (c->kind == REC_CAND_WRONG_SIDE) {
            out->pos.side ^= 1;
            rul_pos_rehash(&out->pos);
        }
        rul_pos_do_move(&out->pos, c->moves[i], &u);
    }
    cand_steps(t, c, e->nalt, &out->st[h->n]);
    out->n = e->len;
    out->last_def =
        c->kind == REC_CAND_NONE && h->stepped && h->last_def > c->deficit ? h->last_def : c->deficit;
    out->cost = e->total;
    out->stepped = 1;
    return 0;
}

/* The current view ends (a hand, a new view): when it was ambiguous, what it left becomes the beam,
 * costs counted from the best; the moves every hypothesis begins with are written (they are certain
 * whichever hypothesis is right). */
static int beam_settle(rec_trk_t *t) {
    int rc = REC_OK, stop = 0, k;
    if (t->npend == 0 || t->state != REC_TRK_PLAYING)
        return REC_OK;
    memcpy(t->beam, t->pend, sizeof(hyp_t) * (size_t)t->npend);
    t->nbeam = t->npend;
    t->npend = 0;
    double m = t->beam[0].cost;
    for (int i = 1; i < t->nbeam; i++)
        m = t->beam[i].cost < m ? t->beam[i].cost : m;
    for (int i = 0; i < t->nbeam; i++)
        t->beam[i].cost -= m;
    for (k = 0; k < t->beam[0].n; k++) {
        int same = 1;
        /* a step of a hidden sequence that other sequences also explain is only one way there:
         * the hypotheses agreeing on it say nothing of the others' */
        for (int i = 0; i < t->nbeam && same; i++)
            same = k < t->beam[i].n && t->beam[i].st[k].move == t->beam[0].st[k].move &&
                   t->beam[i].st[k].kind == t->beam[0].st[k].kind && !t->beam[i].st[k].order_ambiguous;
        if (!same)
            break;
    }
    if (k == 0)
        return REC_OK;
    hyp_t *h0 = &t->beam[0];
    for (int i = 0; i < k && rc == REC_OK && !stop; i++)
        rc = commit_step(t, &h0->st[i], 0, NULL, 0, h0->st[i].ts != t->run_start_ts, t->ref_cur, &stop);
    if (t->state != REC_TRK_PLAYING || rc != REC_OK) {
        beam_clear(t);
        return rc;
    }
    for (int i = 0; i < t->nbeam; i++) {
        memmove(t->beam[i].st, t->beam[i].st + k, sizeof(step_t) * (size_t)(t->beam[i].n - k));
        t->beam[i].n -= k;
    }
    return REC_OK;
}

/* A view during a game: explained from each hypothesis (the game's position when there is none) by
 * no move, one legal move, a hidden sequence or an illegal action; the candidates of all of them
 * ranked by total cost. One explanation left (by the margin): its moves are written. Several: they
 * are what this view leaves (pend), and "uncertain" is said if that lasts. None: the view is not
 * used (the beam stays as it was), and "uncertain" is said if that lasts. */
/* The view shows the game's position again (nothing to write). When an earlier view since the last
 * written move was unexplained and clearly not this position (t->away), the board was changed and
 * put back: moves made and taken back, or a whole repetition cycle (4 plies or more) made while no
 * view could be read. The moves are not known, so none is written, but it is said once, as an
 * "uncertain" event: a sennichite count (FESA 10) would miss them. */
static int came_back(rec_trk_t *t) {
    rec_trk_event_t e;
    int away = t->away;
    t->npend = 0;
    t->pending_since = -1;
    t->run_uncertain = 0;
    t->away = 0;
    if (!away)
        return REC_OK;
    t->came_back_ply = t->game->nply;
    ev_init(t, &e, REC_TEV_UNCERTAIN, t->run_start_ts);
    snprintf(e.detail, sizeof e.detail,
             "after move %d the board was seen changed (%s) and is back at this position: moves may have "
             "been made and taken back, or a repetition cycle made while no view could be read (FESA 10 "
             "counts it); none is recorded",
             t->game->nply, t->away_ref[0] ? t->away_ref : "an earlier view");
    snprintf(e.ref_before, sizeof e.ref_before, "%s", t->away_ref);
    return ev_push(t, &e);
}

static int play_step(rec_trk_t *t, int64_t ts) {
    const rul_pos_t *pos = &t->game->pos;
    uint8_t in[RUL_SQ_NB];
    int rc, done;

    if (t->state == REC_TRK_ENDED) {
        rec_trk_cand_t c;
        memset(&c, 0, sizeof c);
        c.kind = REC_CAND_NONE;
        cand_score(t, &c, NULL, pos);
        if (c.deficit < 0.5 * t->p.margin && c.deficit < 0.5 * t->p.fit_max)
            return REC_OK; /* the final position as it was */
        rc = try_new_game(t, c.deficit, ts, &done);
        if (rc != REC_OK || done)
            return rc;
        /* The players may not have seen the mate: a move made after it is an illegal move (the game
         * was over, FESA 5.1), written as such, as a replay does. */
        cs_clear(&t->cs);
        cs_add(&t->cs, &c);
        if ((t->last_reason == REC_REASON_MATE || t->last_reason == REC_REASON_NO_LEGAL_MOVE) &&
            ts - t->run_start_ts >= t->p.illegal_after_us &&
            changed_squares(t, pos, in) <= t->p.max_changed) {
            search_illegal(t, pos, in);
            cs_sort(&t->cs);
            if (t->cs.c[0].deficit <= t->p.fit_max && cs_margin_view(&t->cs, &t->view) >= t->p.margin &&
                t->cs.c[0].kind == REC_CAND_ILLEGAL)
                return accept(t, &t->cs.c[0], cs_margin_view(&t->cs, &t->view), 0, &t->cs);
        }
        return REC_OK;
    }
    const hyp_t *hs = t->beam;
    int nh = t->nbeam, st[BEAM_CAP], anyfit = 0;
    double best1 = 1e300;
    if (nh == 0) {
        memset(&t->root, 0, sizeof t->root);
        t->root.pos = *pos;
        hs = &t->root;
        nh = 1;
    }
    t->ncomb = 0;
    for (int i = 0; i < nh; i++) {
        st[i] = stage_one(t, &hs[i].pos);
        if (st[i] == HS_SAME && !hs[i].stepped)
            return came_back(t); /* the game's position as it was */
        if (st[i] != HS_NOFIT) {
            anyfit = 1;
            comb_add_cs(t, &hs[i], i, 1);
        } else if (t->cs.c[0].deficit < best1) {
            best1 = t->cs.c[0].deficit;
        }
    }
    if (!anyfit) {
        rc = try_new_game(t, best1, ts, &done);
        if (rc != REC_OK || done)
            return rc;
    }
    for (int i = 0; i < nh; i++) {
        if (st[i] != HS_NOFIT)
            continue;
        stage_one(t, &hs[i].pos);
        st[i] = stage_two(t, &hs[i].pos, ts);
        comb_add_cs(t, &hs[i], i, st[i] != HS_NOFIT);
    }
    comb_sort(t);
    t->comb_margin = t->ncomb > 1 ? t->comb[1].total - t->comb[0].total : 1e9;
    if (t->ncomb == 0 || !t->comb[0].ok || t->comb[0].c.deficit > t->p.fit_max) {
        if (t->view.hknown[RUL_SENTE] || t->view.hknown[RUL_GOTE]) {
            /* The komadai contradict every explanation (a count misread, a captured piece not yet
             * on its stand): the board is the surer evidence, so the view is read again without them. */
            view_drop_hands(&t->view);
            return play_step(t, ts);
        }
        if (!t->seq_unlimited && seq_gap_limited(t) && ts - t->run_start_ts >= t->p.illegal_after_us) {
            /* Nothing that fits the time the board went unseen explains the view, not even an
             * illegal action once the view has stayed illegal_after_us: longer hidden sequences after
             * all (frames the camera never delivered, a stable view too short to count) rather than
             * no explanation. */
            t->seq_unlimited = 1;
            rc = play_step(t, ts);
            t->seq_unlimited = 0;
            return rc;
        }
        if (!t->seq_deep && t->p.max_seq_deep > t->p.max_seq &&
            (ts >= t->deep_next_ts || t->finishing || t->deep_hit)) {
            /* Still nothing: the board may have been hidden for more moves than max_seq (a
             * spectator, frames lost), read once more with the longer sequences the time allows;
             * while they explain the view, at every frame of it (what it leaves is made the beam
             * when it ends); else again every illegal_after_us while the view stays. */
            t->deep_next_ts = ts + (t->p.illegal_after_us > 0 ? t->p.illegal_after_us : 1);
            t->seq_deep = 1;
            rc = play_step(t, ts);
            t->seq_deep = 0;
            t->deep_hit = t->ncomb > 0 && t->comb[0].ok && t->comb[0].c.deficit <= t->p.fit_max;
            return rc;
        }
        t->npend = 0; /* not explained: the view is not used */
        rc = resync(t, ts, &done);
        if (rc != REC_OK || done)
            return rc;
        return uncertain(t, hs, ts);
    }
    const comb_t *b = &t->comb[0];
    if (b->c.kind == REC_CAND_NONE && !hs[b->h].stepped)
        return came_back(t); /* the position as it was: noise or a nudged piece (FESA 9.2) */
    int rivals[BEAM_CAP], nr = 0, ok = 1;
    for (int i = 1; i < t->ncomb; i++) {
        if (!comb_rival(t, i))
            continue;
        if (nr == BEAM_CAP - 1 || !t->comb[i].ok) {
            ok = 0;
            break;
        }
        rivals[nr++] = i;
    }
    if (nr > 0 && t->comb_margin >= t->p.margin)
        t->comb_margin = 0; /* a rival by the same-board rule */
    if (nr == 0) {
        rec_trk_cand_t cand[REC_TRK_MAX_CAND];
        int nc = t->ncomb < REC_TRK_MAX_CAND ? t->ncomb : REC_TRK_MAX_CAND;
        for (int i = 0; i < nc; i++)
            comb_cand(t, hs, i, &cand[i]);
        hyp_t h = hs[b->h]; /* hs may be the beam, which the commit clears */
        rec_trk_cand_t c = b->c;
        return commit_path(t, &h, &c, t->comb_margin, b->nalt, cand, nc);
    }
    /* several explanations: they are what this view leaves, if they all fit in the beam */
    t->npend = 0;
    if (ok && hyp_extend(t, &hs[b->h], b, &t->pend[0]) == 0) {
        t->npend = 1;
        for (int r = 0; r < nr && ok; r++)
            ok = hyp_extend(t, &hs[t->comb[rivals[r]].h], &t->comb[rivals[r]], &t->pend[t->npend++]) == 0;
        if (!ok)
            t->npend = 0;
        /* The view may not have been a position of the game at all (a piece still wobbling, a
         * shadow): the hypotheses it was read from stay, charged fit_max + margin (what a view that
         * nothing explains costs at least), while there is room; they are never rivals, so they
         * hold nothing back, but the next views can still be explained from them. */
        for (int i = 0; t->npend > 0 && i < nh && t->npend < BEAM_CAP; i++) {
            t->pend[t->npend] = hs[i];
            t->pend[t->npend].cost += t->p.fit_max + t->p.margin;
            t->pend[t->npend++].stepped = 1;
        }
    }
    return uncertain(t, hs, ts);
}

/* ---------------------------------------------------------------- taking a lost game up again */

#define RESYNC_SQ_CONF 0.6f /* every square of a view to take a game up from is read at least this sure */
#define RESYNC_CAPTURE                                                                                       \
    4.0 /* prior odds against each piece in hand that changed owner (was captured)                           \
         * since the game's last position, per piece */
#define RESYNC_HAND_RATIO                                                                                    \
    1.5 /* ... and the split of each kind's pieces in hand between the komadai this                          \
         * many times likelier than the next (recorder/record/record.c flattens the counts'                  \
         * distributions: sharpness 0.3) */

/* Pieces of each kind P L N S B R G (promoted ones as their kind) on pos's board, in board, and of
 * those sente's, in sente_board. Kings are left out. */
static void kind_on_board(const rul_pos_t *pos, int board[RUL_HAND_NB], int sente_board[RUL_HAND_NB]) {
    for (int k = 0; k < RUL_HAND_NB; k++)
        board[k] = sente_board[k] = 0;
    for (int sq = 0; sq < RUL_SQ_NB; sq++) {
        rul_piece_t pc = rul_pos_piece_at(pos, sq);
        int ty = RUL_PIECE_TYPE(pc);
        if (ty > RUL_PROMOTED)
            ty -= RUL_PROMOTED; /* +P..+R -> P..R */
        if (ty >= 1 && ty <= RUL_HAND_NB) {
            board[ty - 1]++;
            sente_board[ty - 1] += RUL_PIECE_COLOR(pc) == RUL_SENTE;
        }
    }
}

/* Notes the current view as a position to take the game up from (resync_after_us) when it is read
 * with confidence and can hold the game's pieces (a game never loses or gains one, FESA 1.1 and 3.1: a
 * captured piece goes to the captor's komadai): every square known at RESYNC_SQ_CONF, no kind more
 * often on the board than in the game, the rest of each kind split between the komadai as their
 * readings in the run say, alone and with a prior against changes of owner, the same split both ways
 * and RESYNC_HAND_RATIO times likelier than the next (no komadai needed for a kind all on the board);
 * and rul_pos_validate accepts it (with either side to move). Otherwise the view noted before, if
 * any, stays. */
static void resync_note(rec_trk_t *t) {
    const view_t *v = &t->view;
    rul_pos_t q;
    const rul_pos_t *g = &t->game->pos;
    int gboard[RUL_HAND_NB], gsente[RUL_HAND_NB], qboard[RUL_HAND_NB], qsente[RUL_HAND_NB];
    rul_pos_clear(&q);
    for (int sq = 0; sq < RUL_SQ_NB; sq++) {
        if (!v->known[sq])
            return;
        int c = view_argmax(v, sq);
        if (v->avg[sq][c] < RESYNC_SQ_CONF)
            return;
        if (c != 0)
            rul_pos_set_piece(&q, sq, RUL_PIECE(c > 14, c > 14 ? c - 14 : c));
    }
    kind_on_board(g, gboard, gsente);
    kind_on_board(&q, qboard, qsente);
    int komadai = t->hacc_n[RUL_SENTE] > 0 && t->hacc_n[RUL_GOTE] > 0;
    for (int k = 0; k < RUL_HAND_NB; k++) {
        /* the pieces of kind k off the board are in the hands (the game neither loses nor gains
         * one): split between the two komadai as the run's readings make likeliest (the view may
         * have been read again without them), by RESYNC_HAND_RATIO over the next split */
        int off = gboard[k] + g->hand[RUL_SENTE][k] + g->hand[RUL_GOTE][k] - qboard[k];
        if (off < 0 || off >= REC_OBS_COUNT_NB)
            return; /* more on the board than the game has: a piece misread */
        if (off == 0)
            continue;
        if (!komadai)
            return; /* pieces in hand, and no komadai read to say whose */
        /* prior: each piece that changed owner since the game's position (a capture) costs
         * RESYNC_CAPTURE; sente keeping the pieces of kind k it owned (board + hand) costs nothing */
        int keep = gsente[k] + g->hand[RUL_SENTE][k] - qsente[k];
        int bs = -1;
        for (int prior = 0; prior < 2; prior++) {
            /* the split the komadai make likeliest, on their own and with the prior: both must be
             * RESYNC_HAND_RATIO times likelier than the next, and the same (a pile read short on
             * one stand and long on the other is no evidence of whose the pieces are) */
            double best = -1, second = -1;
            int b = 0;
            for (int a = 0; a <= off; a++) {
                double l = (double)t->hacc[RUL_SENTE][k][a] * (double)t->hacc[RUL_GOTE][k][off - a] *
                           (prior ? pow(RESYNC_CAPTURE, -abs(a - keep)) : 1.0);
                if (l > best) {
                    second = best;
                    best = l;
                    b = a;
                } else if (l > second) {
                    second = l;
                }
            }
            if (!(best > 0) || best < RESYNC_HAND_RATIO * second || (bs >= 0 && b != bs))
                return;
            bs = b;
        }
        q.hand[RUL_SENTE][k] = (uint8_t)bs;
        q.hand[RUL_GOTE][k] = (uint8_t)(off - bs);
    }
    rul_pos_rehash(&q);
    if (rul_pos_validate(&q, RUL_VALIDATE_BOTH_KINGS, NULL) != RUL_VALID) {
        /* the side to move is not known yet: a king in check is fine either way round */
        q.side = RUL_GOTE;
        rul_pos_rehash(&q);
        if (rul_pos_validate(&q, RUL_VALIDATE_BOTH_KINGS, NULL) != RUL_VALID)
            return;
    }
    t->resync_pos = q;
    t->resync_have = 1;
    t->resync_run_ts = t->run_start_ts;
    snprintf(t->resync_ref, sizeof t->resync_ref, "%s", t->ref_cur);
}

/* The current view is explained by no hypothesis of the game. Once that has lasted resync_after_us,
 * a noted earlier view (resync_note) one legal move from which explains this one, with the margin,
 * whichever side moved, takes the game up again: its record stops, the next game continues from
 * the noted position and the move is written (*done = 1). Else the view may be noted. */
static int resync(rec_trk_t *t, int64_t ts, int *done) {
    *done = 0;
    if (t->p.resync_after_us <= 0 || t->state != REC_TRK_PLAYING || t->finishing)
        return REC_OK;
    if (t->resync_have && t->resync_run_ts != t->run_start_ts && t->pending_since >= 0 &&
        ts - t->pending_since >= t->p.resync_after_us) {
        rec_trk_cand_t best[2], second[2];
        for (int side = 0; side < 2; side++) {
            rul_pos_t q = t->resync_pos;
            q.side = side;
            rul_pos_rehash(&q);
            stage_one(t, &q);
            best[side] = t->cs.c[0];
            second[side] = t->cs.n > 1 ? t->cs.c[1] : t->cs.c[0];
            if (t->cs.n < 2)
                second[side].cost = 1e9;
        }
        int w = best[1].cost < best[0].cost ? 1 : 0;
        double runner = second[w].cost < best[!w].cost ? second[w].cost : best[!w].cost;
        double margin = runner - best[w].cost;
        const rec_trk_cand_t *b = &best[w];
        if (b->kind == REC_CAND_LEGAL && b->nmoves == 1 && b->deficit <= t->p.fit_max &&
            margin >= t->p.margin) {
            rul_pos_t start = t->resync_pos;
            int old = t->game_no, nply = t->game->nply, rc;
            char d[200];
            start.side = w;
            rul_pos_rehash(&start);
            snprintf(d, sizeof d,
                     "the record of game %d stops after move %d: the board showed no position the game could "
                     "reach for %.1f s (moves made out of view); game %d takes it up again",
                     old, nply, (ts - t->pending_since) / 1e6, old + 1);
            rc = end_game(t, REC_WINNER_NONE, REC_REASON_NONE, t->resync_run_ts, d);
            if (rc == REC_OK)
                rc = start_game_at(t, &start, -1, 0, margin, t->resync_run_ts, old);
            if (rc != REC_OK)
                return rc;
            *done = 1;
            stage_one(t, &t->game->pos); /* the candidates from the position taken up */
            return accept(t, &t->cs.c[0], margin, t->cs.nalt[0], &t->cs);
        }
    }
    resync_note(t);
    return REC_OK;
}

/* ---------------------------------------------------------------- feeding */

int rec_trk_feed(rec_trk_t *t, const rec_obs_t *obs, int *nnew) {
    int n0, rc = REC_OK;
    if (nnew)
        *nnew = 0;
    if (t == NULL || obs == NULL)
        return REC_ERANGE;
    if (t->have_ts && obs->ts_us < t->last_ts)
        return REC_ERANGE;
    t->have_ts = 1;
    t->last_ts = obs->ts_us;
    n0 = t->nev;
    if (obs->view != REC_VIEW_STABLE) {
        if (t->run_frames > 0)
            rc = beam_settle(t);
        run_reset(t);
        if (nnew)
            *nnew = t->nev - n0;
        return rc;
    }
    if (t->run_frames > 0 && run_jump(t, obs)) {
        rc = beam_settle(t);
        run_reset(t);
        if (rc != REC_OK)
            return rc;
    }
    run_add(t, obs);
    if (t->run_frames >= t->p.min_frames && obs->ts_us - t->run_start_ts >= t->p.min_run_us) {
        view_build(t);
        if (t->state == REC_TRK_SETUP)
            rc = setup_step(t, obs->ts_us);
        else
            rc = play_step(t, obs->ts_us);
    }
    if (nnew)
        *nnew = t->nev - n0;
    return rc;
}

int rec_trk_finish(rec_trk_t *t, int64_t ts_us, int *nnew) {
    int rc = REC_OK, n0;
    if (t == NULL)
        return REC_ERANGE;
    n0 = t->nev;
    if (t->state == REC_TRK_PLAYING && t->run_frames > 0 && t->pending_since >= 0 && !t->run_uncertain) {
        t->finishing = 1; /* the view as last read, explained again with no time left to wait */
        rc = play_step(t, ts_us > t->last_ts ? ts_us : t->last_ts);
        t->finishing = 0;
    } else if (t->state == REC_TRK_SETUP && t->run_frames > 0) {
        t->finishing = 1; /* a setup seen too briefly to be judged: judged now (nothing else will) */
        rc = setup_step(t, ts_us > t->last_ts ? ts_us : t->last_ts);
        t->finishing = 0;
    }
    if (nnew)
        *nnew = t->nev - n0;
    return rc;
}

/* ---------------------------------------------------------------- commands */

static int parse_side(const char *w, int *c) {
    if (w && (!strcmp(w, "sente") || !strcmp(w, "black") || !strcmp(w, "b"))) {
        *c = RUL_SENTE;
        return 1;
    }
    if (w && (!strcmp(w, "gote") || !strcmp(w, "white") || !strcmp(w, "w"))) {
        *c = RUL_GOTE;
        return 1;
    }
    return 0;
}

int rec_trk_command(rec_trk_t *t, const char *line, int64_t ts_us, rec_error_t *err) {
    char buf[128], *w1, *w2, *w3, *save = NULL;
    char d[200];
    int side;
    if (err) {
        err->msg[0] = '\0';
        err->column = 0;
    }
    if (t == NULL || line == NULL)
        return REC_ERANGE;
    snprintf(buf, sizeof buf, "%s", line);
    w1 = strtok_r(buf, " \t\r\n", &save);
    w2 = strtok_r(NULL, " \t\r\n", &save);
    w3 = strtok_r(NULL, " \t\r\n", &save);
    if (w1 == NULL || w3 != NULL) {
        if (err)
            snprintf(err->msg, sizeof err->msg,
                     "command: expected one of resign sente|gote, declare, flag "
                     "sente|gote, abort");
        return REC_EPARSE;
    }
    int is_resign = !strcmp(w1, "resign"), is_flag = !strcmp(w1, "flag");
    int is_declare = !strcmp(w1, "declare"), is_abort = !strcmp(w1, "abort");
    if (!is_resign && !is_flag && !is_declare && !is_abort) {
        if (err)
            snprintf(err->msg, sizeof err->msg, "command: unknown command '%s'", w1);
        return REC_EPARSE;
    }
    if ((is_resign || is_flag) && !parse_side(w2, &side)) {
        if (err)
            snprintf(err->msg, sizeof err->msg, "command: %s: expected sente or gote, got '%s'", w1,
                     w2 ? w2 : "");
        return REC_EPARSE;
    }
    if ((is_declare || is_abort) && w2 != NULL) {
        if (err)
            snprintf(err->msg, sizeof err->msg, "command: %s takes no argument, got '%s'", w1, w2);
        return REC_EPARSE;
    }
    if (t->state != REC_TRK_PLAYING) {
        if (err)
            snprintf(err->msg, sizeof err->msg, "command: %s: no game in progress", w1);
        return REC_ESTATE;
    }
    /* KIF (投了, 切れ負け), CSA (%TORYO, %TIME_UP) and USI (resign) record a resignation or a fallen
     * flag as the side to move's; a command for the other side almost always means the record is
     * behind the board (the last move not yet written) or the wrong side was typed: refused, so that
     * the files never name a winner other than the event's. */
    if ((is_resign || is_flag) && side != t->game->pos.side) {
        if (err)
            snprintf(
                err->msg, sizeof err->msg,
                "command: %s %s: %s is to move in the record (a resignation or a fallen flag is the side to "
                "move's): send it again once the last move is written, or check the side",
                w1, w2, color_name(t->game->pos.side));
        return REC_ESTATE;
    }
    if (is_resign) {
        snprintf(d, sizeof d, "%s resigns, %s wins (FESA 5.1)", color_name(side), color_name(side ^ 1));
        return end_game(t, side ^ 1, REC_REASON_RESIGN, ts_us, d);
    }
    if (is_flag) {
        snprintf(d, sizeof d, "%s's flag fell, %s wins on time (FESA 8)", color_name(side),
                 color_name(side ^ 1));
        return end_game(t, side ^ 1, REC_REASON_TIME, ts_us, d);
    }
    if (is_abort)
        return end_game(t, REC_WINNER_NONE, REC_REASON_ABORT, ts_us, "game aborted by the operator");
    rul_impasse_t im;
    rul_impasse_judge(&t->game->pos, t->p.impasse_rule, &im);
    int winner = im.verdict == RUL_VERDICT_WIN    ? (int)im.declarer
                 : im.verdict == RUL_VERDICT_LOSE ? (int)im.declarer ^ 1
                                                  : REC_WINNER_NONE;
    snprintf(
        d, sizeof d,
        "%s declares an impasse (%s): %d points (needed %d), %d pieces in the camp, king %s the camp, %s: %s "
        "(FESA 5.3)",
        color_name(im.declarer), t->p.impasse_rule == RUL_IMPASSE_27 ? "27-point rule" : "24-point rule",
        im.points, im.needed, im.pieces_in_zone, im.king_in_zone ? "in" : "not in",
        im.in_check ? "in check" : "not in check",
        im.verdict == RUL_VERDICT_WIN    ? "wins"
        : im.verdict == RUL_VERDICT_LOSE ? "loses"
                                         : "draw");
    return end_game(t, winner, REC_REASON_IMPASSE, ts_us, d);
}

/* ---------------------------------------------------------------- resume */

int rec_trk_apply(rec_trk_t *t, const rec_trk_event_t *ev) {
    rec_trk_event_t e;
    rul_pos_t start;
    int rc;
    if (t == NULL || ev == NULL)
        return REC_ERANGE;
    e = *ev;
    beam_clear(t); /* a logged event is a fact: what was pending before it is gone */
    switch (ev->type) {
    case REC_TEV_GAME_START:
        if (rul_pos_from_sfen(&start, ev->sfen, NULL) != RUL_OK)
            return REC_EPARSE;
        t->game_no = ev->game > t->game_no ? ev->game - 1 : t->game_no;
        t->game_no++;
        rul_game_init(t->game, &start);
        t->state = REC_TRK_PLAYING;
        t->last_move_ts = ev->ts_us;
        break;
    case REC_TEV_MOVE:
    case REC_TEV_ILLEGAL:
    case REC_TEV_KING_CAPTURED:
        if (t->state != REC_TRK_PLAYING)
            return REC_ESTATE;
        if (ev->type == REC_TEV_MOVE) {
            rc = rul_game_play(t->game, ev->move);
            if (rc == RUL_EFULL)
                return REC_EFULL;
            if (rc != RUL_OK)
                return REC_ESTATE;
        } else {
            rul_pos_t *p = &t->game->pos;
            int flip = ev->why == REC_WHY_TWO_IN_A_ROW;
            int side = flip ? p->side ^ 1 : p->side;
            if (RUL_MOVE_IS_DROP(ev->move)
                    ? p->hand[side][RUL_MOVE_DROP_TYPE(ev->move) - 1] == 0
                    : (rul_pos_piece_at(p, RUL_MOVE_FROM(ev->move)) == RUL_PIECE_NONE ||
                       RUL_PIECE_COLOR(rul_pos_piece_at(p, RUL_MOVE_FROM(ev->move))) != side))
                return REC_ESTATE;
            rc = game_force(t->game, ev->move, flip);
            if (rc != REC_OK)
                return rc;
        }
        t->last_move_ts = ev->ts_us;
        break;
    case REC_TEV_GAME_END:
        t->state = REC_TRK_ENDED;
        t->last_reason = ev->reason;
        break;
    case REC_TEV_SETUP_ERROR:
    case REC_TEV_UNCERTAIN: break;
    default: return REC_EPARSE;
    }
    if (ev->ts_us > t->last_ts) {
        t->last_ts = ev->ts_us;
    }
    e.sfen[0] = '\0';
    if (ev->type == REC_TEV_SETUP_ERROR)
        snprintf(e.sfen, sizeof e.sfen, "%s", ev->sfen);
    return ev_push(t, &e);
}
