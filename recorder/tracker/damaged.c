/* damaged.c - views of frames decoded from damaged data (rec_obs_t.damaged): a video frame predicted
 * from a damaged or lost one shows the board right where the picture was coded again and stale or
 * smeared where it was not, so such a view may show a position the game never had. Its moves are read
 * one at a time (a clean, legal, fully explained change), held back, and written only once the first
 * clean view after the stretch confirms where they lead; a missing move is acceptable, a wrong one is
 * not. The reasoning and the measurements: docs/tracker.md, docs/EVALUATION.md. */
#include "recorder/tracker/tracker_internal.h"

#include <stdio.h>
#include <string.h>

/* A damaged view's move is taken only with twice the margin of a clean one. */
#define DMG_MARGIN_X 2.0
/* Squares one damaged view may leave contradicting the best single move (or no move), untouched by
 * it, to be taken as stale picture (a smear, a piece the picture kept) rather than the board, and
 * the most a stretch may take so. */
#define DMG_GHOST_MAX 2
#define DMG_STALE_MAX 4

/* The stretch begins: the current run ends as a lost view would end it, and the moves are read from
 * the game's position when it is the only hypothesis (else the stretch is frozen from the start). */
static int dmg_begin(rec_trk_t *t, int64_t ts) {
    int rc = REC_OK;
    if (t->run.frames > 0)
        rc = rec_trk_beam_settle(t);
    rec_trk_run_reset(t);
    t->dmg.active = 1;
    t->dmg.in_run = 0;
    t->dmg.n = 0;
    t->dmg.pos = t->game->pos;
    t->dmg.frozen = t->state != REC_TRK_PLAYING || t->beam.n > 0;
    t->dmg.since = ts;
    t->dmg.unexpl_since = -1;
    t->dmg.stable_end_ts = t->run.stable_end_ts;
    memset(t->dmg.stale, 0, sizeof t->dmg.stale);
    t->dmg.nstale = 0;
    return rc;
}

/* Forgets in t->view the squares taken as stale in this stretch (as squares not read). */
static void dmg_mask_view(rec_trk_t *t) {
    view_t *v = &t->view;
    for (int sq = 0; sq < RUL_SQ_NB; sq++) {
        if (!t->dmg.stale[sq] || !v->known[sq])
            continue;
        float mx = v->lp[sq][0];
        for (int c = 1; c < REC_OBS_CLASS_NB; c++)
            mx = v->lp[sq][c] > mx ? v->lp[sq][c] : mx;
        v->best -= mx;
        v->known[sq] = 0;
    }
}

/* The view is not explained, but the best candidate b (no move or one legal move) leaves only 1 to
 * DMG_GHOST_MAX squares it does not touch contradicting it: they are taken as stale (while the
 * stretch's total stays within DMG_STALE_MAX) and no more read. 1 if some were, 0 otherwise. A move
 * that was real there is then not seen: the first clean view, which reads every square, is not the
 * held-back position, and the stretch's moves are dropped. */
static int dmg_take_stale(rec_trk_t *t, const rec_trk_cand_t *b) {
    rul_pos_t q = t->dmg.pos;
    rul_undo_t u;
    uint8_t in[RUL_SQ_NB];
    if (!(b->kind == REC_CAND_NONE || (b->kind == REC_CAND_LEGAL && b->nmoves == 1)))
        return 0;
    if (b->kind == REC_CAND_LEGAL)
        rul_pos_do_move(&q, b->moves[0], &u);
    int k = rec_trk_changed_squares(t, &q, in);
    if (k < 1 || k > DMG_GHOST_MAX || t->dmg.nstale + k > DMG_STALE_MAX)
        return 0;
    if (b->kind == REC_CAND_LEGAL &&
        (in[RUL_MOVE_TO(b->moves[0])] || (!RUL_MOVE_IS_DROP(b->moves[0]) && in[RUL_MOVE_FROM(b->moves[0])])))
        return 0;
    for (int sq = 0; sq < RUL_SQ_NB; sq++)
        if (in[sq])
            t->dmg.stale[sq] = 1;
    t->dmg.nstale += k;
    dmg_mask_view(t);
    return 1;
}

/* The damaged view just built: no change, one legal move taken (held back), or not explained (the
 * stretch is frozen once that lasts illegal_after_us: the picture is wrong somewhere). */
static void dmg_step(rec_trk_t *t, int64_t ts) {
    if (t->dmg.frozen)
        return;
    dmg_mask_view(t);
    int r = rec_trk_stage_one(t, &t->dmg.pos);
    const rec_trk_cand_t *b = &t->expl.cs.c[0];
    if (r == HS_NOFIT && dmg_take_stale(t, b))
        r = rec_trk_stage_one(t, &t->dmg.pos);
    if (r == HS_SAME || (r == HS_FIT && b->kind == REC_CAND_NONE)) {
        t->dmg.unexpl_since = -1;
        return;
    }
    double m = rec_trk_cs_margin_view(&t->expl.cs, &t->view);
    if (r == HS_FIT && b->kind == REC_CAND_LEGAL && b->nmoves == 1 && !b->unseen &&
        m >= DMG_MARGIN_X * t->p.margin) {
        rul_pos_t q = t->dmg.pos;
        rul_undo_t u;
        rul_pos_do_move(&q, b->moves[0], &u);
        if (rec_trk_view_disagrees(t, &t->view, &q) == 0) {
            if (t->dmg.n == DMG_MAX) {
                t->dmg.frozen = 1;
                return;
            }
            step_t *s = &t->dmg.st[t->dmg.n++];
            rec_trk_cand_steps(t, b, 0, s);
            s->damaged = 1;
            t->dmg.pos = q;
            t->dmg.unexpl_since = -1;
            return;
        }
    }
    if (t->dmg.unexpl_since < 0)
        t->dmg.unexpl_since = t->run.start_ts;
    if (ts - t->dmg.unexpl_since >= t->p.illegal_after_us)
        t->dmg.frozen = 1;
}

int rec_trk_dmg_feed(rec_trk_t *t, const rec_obs_t *o) {
    int rc = REC_OK;
    if (!t->dmg.active)
        rc = dmg_begin(t, o->ts_us);
    else if (!t->dmg.in_run)
        rec_trk_run_reset(t); /* clean frames not read yet: they are no view of their own */
    t->dmg.in_run = 1;
    if (rc != REC_OK || o->view != REC_VIEW_STABLE) {
        rec_trk_run_reset(t);
        return rc;
    }
    if (t->run.frames > 0 && rec_trk_run_jump(t, o))
        rec_trk_run_reset(t);
    rec_trk_run_add(t, o);
    t->run.stable_end_ts = t->dmg.stable_end_ts; /* the board was not seen clean meanwhile */
    if (t->run.frames >= t->p.min_frames && o->ts_us - t->run.start_ts >= t->p.min_run_us) {
        rec_trk_view_build(t);
        dmg_step(t, o->ts_us);
    }
    return REC_OK;
}

/* The held-back moves are not written: said in one uncertain event (why, and the moves). */
static int dmg_say_dropped(rec_trk_t *t, int64_t ts, const char *why) {
    rec_trk_event_t e;
    rec_trk_ev_init(t, &e, REC_TEV_UNCERTAIN, ts);
    size_t len = (size_t)snprintf(e.detail, sizeof e.detail,
                                  "after move %d: %d move(s) read from frames decoded from damaged data "
                                  "(from %s) are not recorded: %s; they were:",
                                  t->game->nply, t->dmg.n, t->dmg.st[0].ref_after, why);
    for (int i = 0; i < t->dmg.n && len + 8 < sizeof e.detail; i++) {
        char u[6];
        rul_move_to_usi(t->dmg.st[i].move, u);
        len += (size_t)snprintf(e.detail + len, sizeof e.detail - len, " %s", u);
    }
    return rec_trk_ev_push(t, &e);
}

int rec_trk_dmg_drop(rec_trk_t *t, int64_t ts, const char *why) {
    int rc = REC_OK;
    if (t->dmg.active && t->dmg.n > 0 && t->state == REC_TRK_PLAYING)
        rc = dmg_say_dropped(t, ts, why);
    t->dmg.active = t->dmg.in_run = t->dmg.n = 0;
    return rc;
}

int rec_trk_dmg_confirm(rec_trk_t *t, int64_t ts) {
    int rc = REC_OK, stop = 0;
    if (!t->dmg.active)
        return REC_OK;
    if (t->dmg.n == 0 || t->state != REC_TRK_PLAYING || t->beam.n > 0) {
        t->dmg.active = t->dmg.in_run = t->dmg.n = 0;
        return REC_OK;
    }
    /* The clean view must be the held-back position or one legal move from it, by the margin and with
     * no square contradicting it: else the damaged views were not the game's after all. */
    int r = rec_trk_stage_one(t, &t->dmg.pos);
    const rec_trk_cand_t *b = &t->expl.cs.c[0];
    int ok = r == HS_SAME;
    if (!ok && r == HS_FIT && (b->kind == REC_CAND_NONE || (b->kind == REC_CAND_LEGAL && b->nmoves == 1)) &&
        rec_trk_cs_margin_view(&t->expl.cs, &t->view) >= t->p.margin) {
        rul_pos_t q = t->dmg.pos;
        rul_undo_t u;
        if (b->kind == REC_CAND_LEGAL)
            rul_pos_do_move(&q, b->moves[0], &u);
        ok = rec_trk_view_disagrees(t, &t->view, &q) == 0;
    }
    if (!ok)
        return rec_trk_dmg_drop(t, ts,
                                "the first clean view after them is not their position or one move from it");
    int nev = t->log.n;
    for (int i = 0; i < t->dmg.n && rc == REC_OK && !stop; i++)
        rc = rec_trk_commit_step(t, &t->dmg.st[i], 0, NULL, 0, 1, t->run.ref_cur, &stop);
    t->dmg.active = t->dmg.in_run = t->dmg.n = 0;
    if (t->log.n != nev) {
        t->unexpl.since = -1;
        t->unexpl.said = 0;
        t->unexpl.away = 0;
    }
    return rc;
}
