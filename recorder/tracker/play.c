/* play.c - the play stage: a view during a game (or after its end) explained from the beam,
 * with "uncertain" events and the board seen changed and back. */
#include "recorder/tracker/tracker_internal.h"

#include <stdio.h>
#include <string.h>

/* ---------------------------------------------------------------- reading a view during a game */

/* The view is not explained (or not with the margin): once it has stayed so for uncertain_after_us,
 * one "uncertain" event with the best candidates over the beam (hs[0..nh-1]); then nothing more
 * until a view is explained. */
static int uncertain(rec_trk_t *t, const hyp_t *hs, int64_t ts) {
    rec_trk_event_t e;
    size_t len;
    if (!t->unexpl.away && t->beam.n == 0 && t->state == REC_TRK_PLAYING) {
        rec_trk_cand_t none;
        memset(&none, 0, sizeof none);
        none.kind = REC_CAND_NONE;
        rec_trk_cand_score(t, &none, NULL, &t->game->pos);
        if (none.deficit > t->p.fit_max + t->p.margin) {
            t->unexpl.away = 1; /* the board is not as the game left it: something was done */
            snprintf(t->unexpl.away_ref, sizeof t->unexpl.away_ref, "%s", t->run.ref_cur);
        }
    }
    if (t->unexpl.since < 0)
        t->unexpl.since = t->run.start_ts;
    if (t->unexpl.said || (!t->read.finishing && ts - t->unexpl.since < t->p.uncertain_after_us))
        return REC_OK;
    t->unexpl.said = 1;
    rec_trk_ev_init(t, &e, REC_TEV_UNCERTAIN, t->run.start_ts);
    e.ncand = t->expl.n < REC_TRK_MAX_CAND ? t->expl.n : REC_TRK_MAX_CAND;
    for (int i = 0; i < e.ncand; i++)
        rec_trk_comb_cand(t, hs, i, &e.cand[i]);
    e.confidence = t->expl.n ? t->expl.margin : 0;
    e.fit = t->expl.n ? t->expl.comb[0].c.deficit : 0;
    len = (size_t)snprintf(
        e.detail, sizeof e.detail,
        "after move %d the view is not explained with the margin; candidates:", t->game->nply);
    for (int i = 0; i < e.ncand && len + 48 < sizeof e.detail; i++) {
        const comb_t *c = &t->expl.comb[i];
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
    return rec_trk_ev_push(t, &e);
}

/* The view shows the game's position again (nothing to write). When an earlier view since the last
 * written move was unexplained and clearly not this position (t->unexpl.away), the board was changed and
 * put back: moves made and taken back, or a whole repetition cycle (4 plies or more) made while no
 * view could be read. The moves are not known, so none is written, but it is said once, as an
 * "uncertain" event: a sennichite count (FESA 10) would miss them. */
static int came_back(rec_trk_t *t) {
    rec_trk_event_t e;
    int away = t->unexpl.away;
    t->beam.npend = 0;
    t->unexpl.since = -1;
    t->unexpl.said = 0;
    t->unexpl.away = 0;
    if (!away)
        return REC_OK;
    t->unexpl.came_back_ply = t->game->nply;
    rec_trk_ev_init(t, &e, REC_TEV_UNCERTAIN, t->run.start_ts);
    snprintf(e.detail, sizeof e.detail,
             "after move %d the board was seen changed (%s) and is back at this position: moves may have "
             "been made and taken back, or a repetition cycle made while no view could be read (FESA 10 "
             "counts it); none is recorded",
             t->game->nply, t->unexpl.away_ref[0] ? t->unexpl.away_ref : "an earlier view");
    snprintf(e.ref_before, sizeof e.ref_before, "%s", t->unexpl.away_ref);
    return rec_trk_ev_push(t, &e);
}

/* A view after the game's end: the final position as it was, a board set up again (a new game), or
 * a move made after a mate the players did not see, an illegal move (the game was over, FESA 5.1),
 * written as such, as a replay does. */
static int ended_step(rec_trk_t *t, int64_t ts) {
    const rul_pos_t *pos = &t->game->pos;
    uint8_t in[RUL_SQ_NB];
    int rc, done;
    rec_trk_cand_t c;
    memset(&c, 0, sizeof c);
    c.kind = REC_CAND_NONE;
    rec_trk_cand_score(t, &c, NULL, pos);
    if (c.deficit < 0.5 * t->p.margin && c.deficit < 0.5 * t->p.fit_max)
        return REC_OK; /* the final position as it was */
    rc = rec_trk_try_new_game(t, c.deficit, ts, &done);
    if (rc != REC_OK || done)
        return rc;
    rec_trk_cs_clear(&t->expl.cs);
    rec_trk_cs_add(&t->expl.cs, &c);
    if ((t->last_reason == RUL_REASON_MATE || t->last_reason == RUL_REASON_NO_LEGAL_MOVE) &&
        ts - t->run.start_ts >= t->p.illegal_after_us &&
        rec_trk_changed_squares(t, pos, in) <= t->p.max_changed) {
        rec_trk_search_illegal(t, pos, in);
        rec_trk_cs_sort(&t->expl.cs);
        if (t->expl.cs.c[0].deficit <= t->p.fit_max &&
            rec_trk_cs_margin_view(&t->expl.cs, &t->view) >= t->p.margin &&
            t->expl.cs.c[0].kind == REC_CAND_ILLEGAL)
            return rec_trk_accept(t, &t->expl.cs.c[0], rec_trk_cs_margin_view(&t->expl.cs, &t->view), 0,
                                  &t->expl.cs);
    }
    return REC_OK;
}

/* Explains the view from each hypothesis hs[0..nh-1]: stage one from all, then (when none fits, and
 * the view is no start set up again) stage two from those stage one left unexplained; t->expl.comb
 * gets the candidates over the beam, sorted, and t->expl.margin the best one's margin. *done = 1 when
 * the step ends here: the game's position as it was (came_back) or a new game. */
static int read_beam(rec_trk_t *t, const hyp_t *hs, int nh, int64_t ts, int *done) {
    int st[BEAM_CAP], anyfit = 0, rc;
    double best1 = 1e300;
    *done = 0;
    t->expl.n = 0;
    for (int i = 0; i < nh; i++) {
        st[i] = rec_trk_stage_one(t, &hs[i].pos);
        if (st[i] == HS_SAME && !hs[i].stepped) {
            *done = 1;
            return came_back(t); /* the game's position as it was */
        }
        if (st[i] != HS_NOFIT) {
            anyfit = 1;
            rec_trk_comb_add_cs(t, hs, i, 1);
        } else if (t->expl.cs.c[0].deficit < best1) {
            best1 = t->expl.cs.c[0].deficit;
        }
    }
    if (!anyfit) {
        rc = rec_trk_try_new_game(t, best1, ts, done);
        if (rc != REC_OK || *done)
            return rc;
    }
    for (int i = 0; i < nh; i++) {
        if (st[i] != HS_NOFIT)
            continue;
        rec_trk_stage_one(t, &hs[i].pos);
        st[i] = rec_trk_stage_two(t, &hs[i].pos, ts);
        rec_trk_comb_add_cs(t, hs, i, st[i] != HS_NOFIT);
    }
    rec_trk_comb_sort(t);
    t->expl.margin = t->expl.n > 1 ? t->expl.comb[1].total - t->expl.comb[0].total : 1e9;
    return REC_OK;
}

/* No hypothesis explains the view: read it again without the komadai, with longer hidden sequences,
 * or deeply; else the view is not used, may take a lost game up again (resync), and "uncertain" is
 * said if that lasts. */
static int unexplained(rec_trk_t *t, const hyp_t *hs, int64_t ts) {
    int rc, done;
    if (t->view.hknown[RUL_SENTE] || t->view.hknown[RUL_GOTE]) {
        /* The komadai contradict every explanation (a count misread, a captured piece not yet
         * on its stand): the board is the surer evidence, so the view is read again without them. */
        rec_trk_view_drop_hands(&t->view);
        return rec_trk_play_step(t, ts);
    }
    if (!t->read.seq_unlimited && rec_trk_seq_gap_limited(t) &&
        ts - t->run.start_ts >= t->p.illegal_after_us) {
        /* Nothing that fits the time the board went unseen explains the view, not even an
         * illegal action once the view has stayed illegal_after_us: longer hidden sequences after
         * all (frames the camera never delivered, a stable view too short to count) rather than
         * no explanation. */
        t->read.seq_unlimited = 1;
        rc = rec_trk_play_step(t, ts);
        t->read.seq_unlimited = 0;
        return rc;
    }
    if (!t->read.seq_deep && t->p.max_seq_deep > t->p.max_seq &&
        (ts >= t->read.deep_next_ts || t->read.finishing || t->read.deep_hit)) {
        /* Still nothing: the board may have been hidden for more moves than max_seq (a
         * spectator, frames lost), read once more with the longer sequences the time allows;
         * while they explain the view, at every frame of it (what it leaves is made the beam
         * when it ends); else again every illegal_after_us while the view stays. */
        t->read.deep_next_ts = ts + (t->p.illegal_after_us > 0 ? t->p.illegal_after_us : 1);
        t->read.seq_deep = 1;
        rc = rec_trk_play_step(t, ts);
        t->read.seq_deep = 0;
        t->read.deep_hit = t->expl.n > 0 && t->expl.comb[0].ok && t->expl.comb[0].c.deficit <= t->p.fit_max;
        return rc;
    }
    t->beam.npend = 0; /* not explained: the view is not used */
    rc = rec_trk_resync(t, ts, &done);
    if (rc != REC_OK || done)
        return rc;
    return uncertain(t, hs, ts);
}

/* The best explanation t->expl.comb[0] is left alone: its moves (and its hypothesis's) are written. */
static int commit_best(rec_trk_t *t, const hyp_t *hs) {
    const comb_t *b = &t->expl.comb[0];
    rec_trk_cand_t cand[REC_TRK_MAX_CAND];
    int nc = t->expl.n < REC_TRK_MAX_CAND ? t->expl.n : REC_TRK_MAX_CAND;
    for (int i = 0; i < nc; i++)
        rec_trk_comb_cand(t, hs, i, &cand[i]);
    hyp_t h = hs[b->h]; /* hs may be the beam, which the commit clears */
    rec_trk_cand_t c = b->c;
    return rec_trk_commit_path(t, &h, &c, t->expl.margin, b->nalt, b->amb_at, cand, nc);
}

/* Several explanations (the best and rivals[0..nr-1] of t->expl.comb; ok: all of them explain the
 * view): they are what this view leaves (t->beam.pend), if they all fit in the beam. */
static void leave_pending(rec_trk_t *t, const hyp_t *hs, int nh, const int *rivals, int nr, int ok) {
    const comb_t *b = &t->expl.comb[0];
    t->beam.npend = 0;
    if (!ok || rec_trk_hyp_extend(t, &hs[b->h], b, &t->beam.pend[0]) != 0)
        return;
    t->beam.npend = 1;
    for (int r = 0; r < nr && ok; r++)
        ok = rec_trk_hyp_extend(t, &hs[t->expl.comb[rivals[r]].h], &t->expl.comb[rivals[r]],
                                &t->beam.pend[t->beam.npend++]) == 0;
    if (!ok)
        t->beam.npend = 0;
    /* The view may not have been a position of the game at all (a piece still wobbling, a
     * shadow): the hypotheses it was read from stay, charged fit_max + margin (what a view that
     * nothing explains costs at least), while there is room; they are never rivals, so they
     * hold nothing back, but the next views can still be explained from them. */
    for (int i = 0; t->beam.npend > 0 && i < nh && t->beam.npend < BEAM_CAP; i++) {
        t->beam.pend[t->beam.npend] = hs[i];
        t->beam.pend[t->beam.npend].cost += t->p.fit_max + t->p.margin;
        t->beam.pend[t->beam.npend++].stepped = 1;
    }
}

/* A view during a game: explained from each hypothesis (the game's position when there is none) by
 * no move, one legal move, a hidden sequence or an illegal action; the candidates of all of them
 * ranked by total cost. One explanation left (by the margin): its moves are written. Several: they
 * are what this view leaves (pend), and "uncertain" is said if that lasts. None: the view is not
 * used (the beam stays as it was), and "uncertain" is said if that lasts. */
int rec_trk_play_step(rec_trk_t *t, int64_t ts) {
    int rc, done;
    if (t->state == REC_TRK_ENDED)
        return ended_step(t, ts);
    const hyp_t *hs = t->beam.h;
    int nh = t->beam.n;
    if (nh == 0) {
        memset(&t->beam.root, 0, sizeof t->beam.root);
        t->beam.root.pos = t->game->pos;
        hs = &t->beam.root;
        nh = 1;
    }
    rc = read_beam(t, hs, nh, ts, &done);
    if (rc != REC_OK || done)
        return rc;
    if (t->expl.n == 0 || !t->expl.comb[0].ok || t->expl.comb[0].c.deficit > t->p.fit_max)
        return unexplained(t, hs, ts);
    const comb_t *b = &t->expl.comb[0];
    if (b->c.kind == REC_CAND_NONE && !hs[b->h].stepped)
        return came_back(t); /* the position as it was: noise or a nudged piece (FESA 9.2) */
    int rivals[BEAM_CAP], nr = 0, ok = 1;
    for (int i = 1; i < t->expl.n; i++) {
        if (!rec_trk_comb_rival(t, i))
            continue;
        if (nr == BEAM_CAP - 1 || !t->expl.comb[i].ok) {
            ok = 0;
            break;
        }
        rivals[nr++] = i;
    }
    if (nr > 0 && t->expl.margin >= t->p.margin)
        t->expl.margin = 0; /* a rival by the same-board rule */
    if (nr == 0 && !b->c.unseen)
        return commit_best(t, hs);
    leave_pending(t, hs, nh, rivals, nr, ok);
    return uncertain(t, hs, ts);
}
