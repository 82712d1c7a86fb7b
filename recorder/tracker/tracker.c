/* tracker.c - the tracker's public face: parameters, life cycle, accessors, the event log, feeding
 * observations and re-applying logged events (resume). Owns the rul_game_t and the event array. */
#include "recorder/tracker/tracker_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- names */

static const char *const EVENT_NAMES[REC_TEV_NB] = {"game_start",   "setup_error",   "move",
                                                    "illegal_move", "king_captured", "uncertain",
                                                    "game_end",     "frames_lost",   "resumed"};

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

const char *rec_trk_color_name(int c) { return c == RUL_SENTE ? "sente" : "gote"; }

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
    p->agree_min = 0.1;
    p->illegal_after_us = 1000000;
    p->uncertain_after_us = 3000000;
    p->resync_after_us = 3000000;
    p->setup_after_us = 1000000;
    p->max_misread = 3;
    p->max_misread_foreign = 6;
    p->max_misread_given = 10;
    p->max_misread_occ = 1;
    p->max_misread_owner = 10;
    p->impasse_rule = RUL_IMPASSE_27;
}

static int params_ok(const rec_trk_params_t *p) {
    return p->min_frames >= 1 && p->min_run_us >= 0 && p->prob_floor >= 1e-9 && p->prob_floor <= 0.1 &&
           p->fit_max >= 0 && p->margin > 0 && p->seq_penalty >= 0 && p->nopromo_penalty >= 0 &&
           p->max_seq >= 1 && p->max_seq <= REC_TRK_MAX_SEQ && p->max_seq_deep >= p->max_seq &&
           p->max_seq_deep <= REC_TRK_MAX_SEQ && p->min_move_us >= 0 && p->max_changed >= 1 &&
           p->max_changed <= RUL_SQ_NB && p->changed_prob >= 0 && p->changed_prob <= 1 && p->agree_min >= 0 &&
           p->agree_min <= 0.5 && p->illegal_after_us >= 0 && p->uncertain_after_us >= 0 &&
           p->setup_after_us >= 0 && p->resync_after_us >= 0 && p->max_misread >= 0 && p->max_misread <= 10 &&
           p->max_misread_foreign >= 0 && p->max_misread_foreign <= 10 && p->max_misread_given >= 0 &&
           p->max_misread_given <= 40 && p->max_misread_occ >= 0 && p->max_misread_occ <= 3 &&
           p->max_misread_owner >= 0 && p->max_misread_owner <= 20 &&
           (unsigned)p->impasse_rule <= RUL_IMPASSE_COUNT;
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
    memset(t->setup.mis_want, -1, sizeof t->setup.mis_want);
    memset(t->setup.mis_seen, -1, sizeof t->setup.mis_seen);
    t->run.stable_end_ts = -1;
    t->unexpl.came_back_ply = -1;
    t->run.gap_us = INT64_MAX;
    t->resync.searched_ts = -1;
    t->dmg.unexpl_since = -1;
    if (start) {
        if (rul_pos_validate(start, RUL_VALIDATE_BOTH_KINGS, NULL) != RUL_VALID) {
            rec_trk_destroy(t);
            return REC_EINVALID;
        }
        t->starts.given = 1;
        t->starts.pos[0] = *start;
        t->starts.hc[0] = -1;
        for (int h = 0; h < RUL_HC_NB; h++) {
            rul_pos_t q;
            rul_pos_set_handicap(&q, (rul_handicap_t)h);
            if (rul_pos_same(&q, start))
                t->starts.hc[0] = h;
        }
        t->starts.n = 1;
    } else {
        for (int h = 0; h < RUL_HC_NB; h++) {
            rul_pos_set_handicap(&t->starts.pos[h], (rul_handicap_t)h);
            t->starts.hc[h] = h;
        }
        t->starts.n = RUL_HC_NB;
    }
    rul_game_init(t->game, &t->starts.pos[0]);
    t->state = REC_TRK_SETUP;
    t->unexpl.since = -1;
    *out = t;
    return REC_OK;
}

void rec_trk_destroy(rec_trk_t *t) {
    if (t == NULL)
        return;
    free(t->log.ev);
    free(t->game);
    free(t);
}

void rec_trk_turn_board(rec_trk_t *t) {
    int8_t want[RUL_SQ_NB], seen[RUL_SQ_NB];
    if (t == NULL)
        return;
    for (int sq = 0; sq < RUL_SQ_NB; sq++) {
        int w = t->setup.mis_want[RUL_SQ_NB - 1 - sq], v = t->setup.mis_seen[RUL_SQ_NB - 1 - sq];
        want[sq] = (int8_t)(w < 0 ? w : REC_OBS_SWAP(w));
        seen[sq] = (int8_t)(w < 0 || v < 0 ? v : REC_OBS_SWAP(v));
    }
    memcpy(t->setup.mis_want, want, sizeof want);
    memcpy(t->setup.mis_seen, seen, sizeof seen);
}

int rec_trk_hypotheses(const rec_trk_t *t) { return t ? t->beam.n : 0; }

rec_trk_state_t rec_trk_state(const rec_trk_t *t) { return (rec_trk_state_t)t->state; }
const rul_game_t *rec_trk_game(const rec_trk_t *t) { return t->game; }
int rec_trk_game_number(const rec_trk_t *t) { return t->game_no; }
int rec_trk_nevents(const rec_trk_t *t) { return t->log.n; }
const rec_trk_event_t *rec_trk_event(const rec_trk_t *t, int i) {
    return i >= 0 && i < t->log.n ? &t->log.ev[i] : NULL;
}

/* ---------------------------------------------------------------- events */

/* A zeroed event of type `type` for the current game and ply, at ts. */
void rec_trk_ev_init(const rec_trk_t *t, rec_trk_event_t *e, int type, int64_t ts) {
    memset(e, 0, sizeof *e);
    e->type = type;
    e->game = t->game_no;
    e->ply = t->game->nply;
    e->ts_us = ts;
    e->time_ms = REC_TIME_NONE;
    e->winner = REC_WINNER_NONE;
    e->reason = RUL_REASON_NONE;
    e->handicap = -1;
    snprintf(e->ref_before, sizeof e->ref_before, "%s", t->run.ref_prev);
    snprintf(e->ref_after, sizeof e->ref_after, "%s", t->run.ref_cur);
}

/* Appends *e (sfen filled from the current position, seq numbered). */
int rec_trk_ev_push(rec_trk_t *t, rec_trk_event_t *e) {
    if (t->log.n == t->log.cap) {
        int cap = t->log.cap ? t->log.cap * 2 : 64;
        rec_trk_event_t *n = realloc(t->log.ev, sizeof *n * (size_t)cap);
        if (n == NULL)
            return REC_ENOMEM;
        t->log.ev = n;
        t->log.cap = cap;
    }
    if (e->sfen[0] == '\0')
        rul_pos_to_sfen(&t->game->pos, e->sfen, sizeof e->sfen);
    e->seq = t->log.n + 1;
    t->log.ev[t->log.n++] = *e;
    return REC_OK;
}

int rec_trk_end_game(rec_trk_t *t, int winner, int reason, int64_t ts, const char *detail) {
    rec_trk_event_t e;
    rec_trk_ev_init(t, &e, REC_TEV_GAME_END, ts);
    e.winner = winner;
    e.reason = reason;
    snprintf(e.detail, sizeof e.detail, "%s", detail);
    t->state = REC_TRK_ENDED;
    t->last_reason = reason;
    t->beam.n = t->beam.npend = 0; /* no hypothesis outlives the game */
    return rec_trk_ev_push(t, &e);
}

/* ---------------------------------------------------------------- feeding */

int rec_trk_feed(rec_trk_t *t, const rec_obs_t *obs, int *nnew) {
    int n0, rc = REC_OK;
    if (nnew)
        *nnew = 0;
    if (t == NULL || obs == NULL)
        return REC_ERANGE;
    if (t->clock.have && obs->ts_us < t->clock.last_ts)
        return REC_ERANGE;
    t->clock.have = 1;
    t->clock.last_ts = obs->ts_us;
    n0 = t->log.n;
    if (obs->damaged) {
        rc = rec_trk_dmg_feed(t, obs);
        if (nnew)
            *nnew = t->log.n - n0;
        return rc;
    }
    if (t->dmg.in_run) { /* the damaged frames' run is no view of the clean ones */
        rec_trk_run_reset(t);
        t->dmg.in_run = 0;
    }
    if (obs->view != REC_VIEW_STABLE) {
        if (t->run.frames > 0)
            rc = rec_trk_beam_settle(t);
        rec_trk_run_reset(t);
        if (nnew)
            *nnew = t->log.n - n0;
        return rc;
    }
    if (t->run.frames > 0 && rec_trk_run_jump(t, obs)) {
        rc = rec_trk_beam_settle(t);
        rec_trk_run_reset(t);
        if (rc != REC_OK)
            return rc;
    }
    rec_trk_run_add(t, obs);
    if (t->run.frames >= t->p.min_frames && obs->ts_us - t->run.start_ts >= t->p.min_run_us) {
        rec_trk_view_build(t);
        t->run.read = 1;
        if (t->dmg.active && (rc = rec_trk_dmg_confirm(t, obs->ts_us)) != REC_OK)
            return rc;
        if (t->state == REC_TRK_SETUP)
            rc = rec_trk_setup_step(t, obs->ts_us);
        else
            rc = rec_trk_play_step(t, obs->ts_us);
    }
    if (nnew)
        *nnew = t->log.n - n0;
    return rc;
}

int rec_trk_finish(rec_trk_t *t, int64_t ts_us, int *nnew) {
    int rc = REC_OK, n0;
    if (t == NULL)
        return REC_ERANGE;
    n0 = t->log.n;
    int damaged_run = t->dmg.in_run; /* the last view is of damaged frames: not read as a clean one */
    if (t->dmg.active)
        rc = rec_trk_dmg_drop(t, ts_us > t->clock.last_ts ? ts_us : t->clock.last_ts,
                              "the source ended before a clean view confirmed them");
    if (rc != REC_OK || damaged_run) {
        if (damaged_run)
            rec_trk_run_reset(t);
    } else if (t->state == REC_TRK_PLAYING && t->run.frames > 0 && t->unexpl.since >= 0 && !t->unexpl.said) {
        t->read.finishing = 1; /* the view as last read, explained again with no time left to wait */
        rc = rec_trk_play_step(t, ts_us > t->clock.last_ts ? ts_us : t->clock.last_ts);
        t->read.finishing = 0;
    } else if (t->state == REC_TRK_SETUP && t->run.frames > 0) {
        t->read.finishing = 1; /* a setup seen too briefly to be judged: judged now (nothing else will) */
        rc = rec_trk_setup_step(t, ts_us > t->clock.last_ts ? ts_us : t->clock.last_ts);
        t->read.finishing = 0;
    }
    if (nnew)
        *nnew = t->log.n - n0;
    return rc;
}

int rec_trk_note(rec_trk_t *t, int type, int64_t ts_us, const char *detail, const char *ref) {
    rec_trk_event_t e;
    if (t == NULL || (type != REC_TEV_FRAMES_LOST && type != REC_TEV_RESUMED))
        return REC_ERANGE;
    rec_trk_ev_init(t, &e, type, ts_us);
    e.ref_before[0] = '\0';
    snprintf(e.ref_after, sizeof e.ref_after, "%s", ref ? ref : "");
    snprintf(e.detail, sizeof e.detail, "%s", detail ? detail : "");
    return rec_trk_ev_push(t, &e);
}

/* ---------------------------------------------------------------- resume */

int rec_trk_apply(rec_trk_t *t, const rec_trk_event_t *ev) {
    rec_trk_event_t e;
    rul_pos_t start;
    int rc;
    if (t == NULL || ev == NULL)
        return REC_ERANGE;
    e = *ev;
    rec_trk_beam_clear(t); /* a logged event is a fact: what was pending before it is gone */
    t->dmg.active = t->dmg.in_run = t->dmg.n = 0;
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
            rc = rec_trk_game_force(t->game, ev->move, flip);
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
    case REC_TEV_UNCERTAIN:
    case REC_TEV_FRAMES_LOST:
    case REC_TEV_RESUMED: break;
    default: return REC_EPARSE;
    }
    if (ev->ts_us > t->clock.last_ts) {
        t->clock.last_ts = ev->ts_us;
    }
    e.sfen[0] = '\0';
    if (ev->type == REC_TEV_SETUP_ERROR)
        snprintf(e.sfen, sizeof e.sfen, "%s", ev->sfen);
    return rec_trk_ev_push(t, &e);
}
