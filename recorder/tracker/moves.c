/* moves.c - writing moves: a candidate's moves played in the game with their events, and the
 * game-end judgement after a legal move (FESA 5.1, 5.2, 3.12, 1.2, 9.5). */
#include "recorder/tracker/tracker_internal.h"

#include <stdio.h>
#include <string.h>

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

/* ---------------------------------------------------------------- playing moves */

/* Plays m in the game whatever its legality (illegal actions are facts of the game); flip: the side
 * that just moved moves again. The rules engine's do_move handles any move of a piece that is on its
 * square; a king taken never goes in hand (FESA 9.5). */
int rec_trk_game_force(rul_game_t *g, rul_move_t m, int flip) {
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

/* After a legal move: the game's end as rules/ judges it (rul_game_judge: repetition, FESA 5.2 and
 * 3.12; mate, 5.1; no legal move, 1.2), written with its reason in words. */
static int check_end(rec_trk_t *t, int64_t ts) {
    rul_game_end_t e;
    char d[200];
    const int mover = t->game->pos.side ^ 1;
    rul_game_judge(t->game, &e);
    switch (e.reason) {
    case RUL_REASON_SENNICHITE:
        snprintf(d, sizeof d,
                 "sennichite: the position occurred for the 4th time (first after move %d), draw (FESA 5.2)",
                 e.rep.first_ply);
        break;
    case RUL_REASON_PERPETUAL_CHECK:
        snprintf(d, sizeof d,
                 "perpetual check by %s: 4th occurrence (first after move %d), %s loses (FESA 3.12)",
                 rec_trk_color_name(e.winner ^ 1), e.rep.first_ply, rec_trk_color_name(e.winner ^ 1));
        break;
    case RUL_REASON_MATE:
        snprintf(d, sizeof d, "%s is checkmated, %s wins (FESA 5.1)", rec_trk_color_name(mover ^ 1),
                 rec_trk_color_name(mover));
        break;
    case RUL_REASON_NO_LEGAL_MOVE:
        snprintf(d, sizeof d, "%s has no legal move and loses (FESA 1.2)", rec_trk_color_name(mover ^ 1));
        break;
    default: return REC_OK;
    }
    return rec_trk_end_game(t, e.winner, (int)e.reason, ts, d);
}

static void move_text(const rul_pos_t *before, rul_move_t m, rec_trk_event_t *e) {
    rul_move_to_usi(m, e->usi);
    if (rec_kifu_move_to_western(before, m, e->notation, sizeof e->notation) != REC_KIFU_OK)
        snprintf(e->notation, sizeof e->notation, "%s", e->usi);
}

/* Kinds second (moved_kind_free in view.c): a piece moved by board move m (from before, now played)
 * that could not promote, read on its new square as another kind of its side, is taken as
 * misread there while the view reads it so (t->setup.mis_*, as a start's misread squares are); the
 * squares it left and came to forget what they held before. */
static void remember_misread(rec_trk_t *t, const rul_pos_t *before, rul_move_t m, int legal) {
    int to = RUL_MOVE_TO(m);
    if (!RUL_MOVE_IS_DROP(m))
        t->setup.mis_want[RUL_MOVE_FROM(m)] = t->setup.mis_seen[RUL_MOVE_FROM(m)] = -1;
    t->setup.mis_want[to] = t->setup.mis_seen[to] = -1;
    if (!legal || RUL_MOVE_IS_DROP(m) || rec_trk_promotion_choice(before, m) || !t->view.known[to])
        return;
    int want = REC_OBS_CLASS(rul_pos_piece_at(&t->game->pos, to)), seen = rec_trk_view_argmax(&t->view, to);
    if (want != 0 && seen != 0 && seen != want && (want <= 14) == (seen <= 14)) {
        t->setup.mis_want[to] = (int8_t)want;
        t->setup.mis_seen[to] = (int8_t)seen;
    }
}

/* Plays one move and writes its event(s). s: what the view that showed it said; margin: by how much
 * the explanation won; cand/ncand: the candidates listed in the event; late: written after later
 * views resolved an ambiguity (resolved_ref names the frame that did). *stop = 1 when no later move
 * of the same explanation may follow (the game ended, a king was taken). */
int rec_trk_commit_step(rec_trk_t *t, const step_t *s, double margin, const rec_trk_cand_t *cand, int ncand,
                        int late, const char *resolved_ref, int *stop) {
    rul_move_t m = s->move;
    rul_pos_t before = t->game->pos;
    rec_trk_event_t e;
    int flip = s->kind == REC_CAND_WRONG_SIDE, rc;
    *stop = 0;
    rec_trk_ev_init(t, &e, s->kind == REC_CAND_LEGAL ? REC_TEV_MOVE : REC_TEV_ILLEGAL, s->ts);
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
        rc = rec_trk_game_force(t->game, m, flip);
    if (rc != REC_OK) {
        *stop = 1;
        return rc;
    }
    remember_misread(t, &before, m, s->kind == REC_CAND_LEGAL);
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
                 rec_trk_color_name(e.mover), e.notation, rec_trk_color_name(e.mover ^ 1));
        rc = rec_trk_ev_push(t, &e);
        if (rc == REC_OK && t->state == REC_TRK_PLAYING)
            rc = rec_trk_end_game(t, e.mover, RUL_REASON_ILLEGAL_MOVE, s->ts,
                                  "a king left in check was captured: the capturer wins (FESA 9.5)");
        *stop = 1;
        return rc;
    }
    size_t len;
    if (s->kind == REC_CAND_LEGAL) {
        len = (size_t)snprintf(
            e.detail, sizeof e.detail, "%d. %s %s%s", e.ply, rec_trk_color_name(e.mover), e.notation,
            e.hidden ? (e.order_ambiguous ? " (made while the board was hidden; order uncertain)"
                                          : " (made while the board was hidden)")
                     : "");
    } else {
        e.why = s->why;
        len = (size_t)snprintf(e.detail, sizeof e.detail, "illegal move %d. %s %s: %s (%s); the game goes on",
                               e.ply, rec_trk_color_name(e.mover), e.notation, rec_trk_why_name(s->why),
                               why_article(s->why));
    }
    e.damaged = s->damaged;
    if (s->damaged && len < sizeof e.detail)
        len += (size_t)snprintf(e.detail + len, sizeof e.detail - len,
                                "; read from a frame decoded from damaged data (%s), written once the "
                                "clean view of %s showed where the moves seen then lead",
                                s->ref_after[0] ? s->ref_after : "a damaged frame",
                                resolved_ref && resolved_ref[0] ? resolved_ref : "a later frame");
    else if (late && len < sizeof e.detail)
        len += (size_t)snprintf(
            e.detail + len, sizeof e.detail - len,
            "; resolved late: the view that showed it had other explanations, the view of %s left this one",
            resolved_ref && resolved_ref[0] ? resolved_ref : "a later frame");
    if (t->unexpl.came_back_ply >= 0 && len < sizeof e.detail)
        snprintf(
            e.detail + len, sizeof e.detail - len,
            "; the ply number may be short: the board was seen changed and back after move %d (moves of an "
            "unseen cycle are not counted)",
            t->unexpl.came_back_ply);
    rc = rec_trk_ev_push(t, &e);
    if (rc == REC_OK && s->kind == REC_CAND_LEGAL)
        rc = check_end(t, s->ts);
    if (t->state != REC_TRK_PLAYING)
        *stop = 1;
    return rc;
}

/* The steps of candidate c as seen in the current view (the run). */
int rec_trk_cand_steps(const rec_trk_t *t, const rec_trk_cand_t *c, int nalt, step_t *out) {
    for (int i = 0; i < c->nmoves; i++) {
        step_t *s = &out[i];
        memset(s, 0, sizeof *s);
        s->move = c->moves[i];
        s->kind = c->kind;
        s->why = c->why;
        s->hidden = c->nmoves > 1;
        s->order_ambiguous = c->nmoves > 2 && nalt > 0;
        s->ts = t->run.start_ts;
        s->fit = c->deficit;
        snprintf(s->ref_before, sizeof s->ref_before, "%s", t->run.ref_prev);
        snprintf(s->ref_after, sizeof s->ref_after, "%s", t->run.ref_cur);
    }
    return c->nmoves;
}

/* The hypotheses are gone: the game's position is again the only one, nothing is pending. */
void rec_trk_beam_clear(rec_trk_t *t) {
    t->beam.n = 0;
    t->beam.npend = 0;
}

/* Writes the moves of hypothesis h (the earlier views' moves, late) and then of candidate c (this
 * view's), chosen with margin `margin`; the beam is cleared. */
/* The record of the game stops after its last written move: the moves from there to pos (a position
 * the view shows) are not known for sure, as several ways within the margin reach it (unordered: other
 * orders of hidden moves); the next game takes it up from pos at ts. */
static int take_up_merged(rec_trk_t *t, const rul_pos_t *pos, int unordered, double margin, int64_t ts) {
    char d[400];
    int old = t->game_no, nply = t->game->nply;
    snprintf(d, sizeof d,
             "the record of game %d stops after move %d: the moves after it reach the position seen in more "
             "than one way that no later view can tell apart (%s); game %d takes it up from that position",
             old, nply,
             unordered ? "moves made while the board was hidden, which other orders also explain"
                       : "a piece promoted or not, then captured",
             old + 1);
    int rc = rec_trk_end_game(t, REC_WINNER_NONE, RUL_REASON_NONE, ts, d);
    if (rc != REC_OK)
        return rc;
    snprintf(t->resync.ref, sizeof t->resync.ref, "%s", t->run.ref_cur);
    return rec_trk_start_game_at(t, pos, -1, 0, margin, ts, old);
}

int rec_trk_commit_path(rec_trk_t *t, const hyp_t *h, const rec_trk_cand_t *c, double margin, int nalt,
                        int amb_at, const rec_trk_cand_t *cand, int ncand) {
    step_t cs[REC_TRK_MAX_SEQ];
    int rc = REC_OK, stop = 0, nc = rec_trk_cand_steps(t, c, nalt, cs), nev = t->log.n, nh = h ? h->n : 0;
    int upto = amb_at >= 0 && amb_at < nh + nc ? amb_at : nh + nc;
    int unordered = 0; /* the stop is a hidden sequence's unknown order */
    for (int i = 0; i < nh && i < upto; i++)
        if (h->st[i].merged || h->st[i].order_ambiguous) {
            unordered = !h->st[i].merged;
            upto = i;
        }
    for (int i = 0; i < nc && nh + i < upto; i++)
        if (cs[i].order_ambiguous) {
            unordered = 1;
            upto = nh + i;
        }
    /* the position both ways reach: h's, then c's moves */
    rul_pos_t end = h ? h->pos : t->game->pos;
    for (int i = 0; upto < nh + nc && i < nc; i++) {
        rul_undo_t u;
        if (c->kind == REC_CAND_WRONG_SIDE) {
            end.side ^= 1;
            rul_pos_rehash(&end);
        }
        rul_pos_do_move(&end, c->moves[i], &u);
    }
    for (int i = 0; i < nh && i < upto && rc == REC_OK && !stop; i++)
        rc = rec_trk_commit_step(t, &h->st[i], margin, cand, ncand, h->st[i].ts != t->run.start_ts,
                                 t->run.ref_cur, &stop);
    for (int i = 0; i < nc && nh + i < upto && rc == REC_OK && !stop; i++)
        rc = rec_trk_commit_step(t, &cs[i], margin, cand, ncand, 0, NULL, &stop);
    if (rc == REC_OK && !stop && upto < nh + nc && t->state == REC_TRK_PLAYING)
        rc = take_up_merged(t, &end, unordered, margin, t->run.start_ts);
    rec_trk_beam_clear(t);
    t->unexpl.since = -1;
    t->unexpl.said = 0;
    if (t->log.n != nev)
        t->unexpl.away = 0; /* something was written: the board is explained again */
    return rc;
}

/* Plays candidate c (accepted with margin `margin`) from the game's position and writes its events. */
int rec_trk_accept(rec_trk_t *t, const rec_trk_cand_t *c, double margin, int nalt, const candset_t *cs) {
    return rec_trk_commit_path(t, NULL, c, margin, nalt, -1, cs->c, cs->n);
}
