/* setup.c - the setup stage and new games: a view matched against the starts (FESA 9.1), a setup
 * taken as misread, setup_error events, and a board set up again during or after a game. */
#include "recorder/tracker/tracker_internal.h"

#include <stdio.h>
#include <string.h>

static const char *const CLASS_NAMES[REC_OBS_CLASS_NB] = {
    "empty",   "sente P",  "sente L",  "sente N",  "sente S",  "sente B",  "sente R",  "sente G",
    "sente K", "sente +P", "sente +L", "sente +N", "sente +S", "sente +B", "sente +R", "gote P",
    "gote L",  "gote N",   "gote S",   "gote B",   "gote R",   "gote G",   "gote K",   "gote +P",
    "gote +L", "gote +N",  "gote +S",  "gote +B",  "gote +R"};

/* ---------------------------------------------------------------- setup and new games */

static int start_game(rec_trk_t *t, const rul_pos_t *start, int hc, double fit, double margin) {
    return rec_trk_start_game_at(t, start, hc, fit, margin, t->run.start_ts, 0);
}

/* Starts game number game_no+1 from start at time ts; continues: the game it takes up again (0: none). */
int rec_trk_start_game_at(rec_trk_t *t, const rul_pos_t *start, int hc, double fit, double margin, int64_t ts,
                          int continues) {
    rec_trk_event_t e;
    int reversed = t->game_no > 0 && t->last_reason == RUL_REASON_SENNICHITE;
    t->game_no++;
    rul_game_init(t->game, start);
    t->state = REC_TRK_PLAYING;
    t->last_move_ts = t->run.start_ts;
    t->setup.sig = 0;
    t->unexpl.since = -1;
    t->unexpl.said = 0;
    t->unexpl.away = 0;
    t->unexpl.came_back_ply = -1;
    memset(t->setup.mis_want, -1, sizeof t->setup.mis_want);
    memset(t->setup.mis_seen, -1, sizeof t->setup.mis_seen);
    rec_trk_beam_clear(t);
    t->resync.have = 0;
    t->resync.searched_ts = -1;
    rec_trk_ev_init(t, &e, REC_TEV_GAME_START, ts);
    e.handicap = hc;
    e.colours_reversed = reversed;
    e.fit = fit;
    e.confidence = margin;
    e.continues = continues;
    if (continues) { /* the position is the noted view's */
        e.ref_before[0] = '\0';
        snprintf(e.ref_after, sizeof e.ref_after, "%s", t->resync.ref);
    }
    rul_handicap_info_t hi;
    if (continues)
        snprintf(e.detail, sizeof e.detail,
                 "game %d takes up game %d again from the position seen here; the moves in between are not "
                 "known (the end of game %d says why)",
                 t->game_no, continues, continues);
    else
        snprintf(e.detail, sizeof e.detail, "game %d: the setup matches the %s start (FESA 9.1)%s",
                 t->game_no,
                 hc >= 0 && rul_handicap_info((rul_handicap_t)hc, &hi) == RUL_OK ? hi.name : "given",
                 reversed ? "; colours reversed after the draw (FESA 12.2)" : "");
    return rec_trk_ev_push(t, &e);
}

/* Scores every start; best index, its deficit and its margin over the next. board_only: the komadai
 * are left out (the board's squares alone). */
static int best_start(const rec_trk_t *t, int board_only, double *def, double *margin) {
    int best = -1;
    double b = 1e30, second = 1e30;
    for (int i = 0; i < t->starts.n; i++) {
        double d = t->view.best - rec_trk_view_loglik(NULL, &t->view, &t->starts.pos[i]);
        if (board_only)
            d -= t->view.hbest - rec_trk_hands_loglik(&t->view, &t->starts.pos[i]);
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
                                         " %s hand %s: expected %d, seen %d;", rec_trk_color_name(c),
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
    rec_trk_ev_init(t, e, REC_TEV_SETUP_ERROR, t->run.start_ts);
    return (size_t)snprintf(
        e->detail, sizeof e->detail, "setup differs from the %s start (FESA 9.1):",
        t->starts.hc[i] >= 0 && rul_handicap_info((rul_handicap_t)t->starts.hc[i], &hi) == RUL_OK ? hi.name
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
        rul_pos_to_sfen(&t->starts.pos[i], e->sfen, sizeof e->sfen);
        int rc = rec_trk_ev_push(t, e);
        if (rc != REC_OK)
            return rc;
    }
    return start_game(t, &t->starts.pos[i], t->starts.hc[i], def, margin);
}

/* The start i fits the view (deficit def, won by margin): the game starts. Hands read otherwise than
 * the start's (within the fit: the komadai are read weakly) are still said, for an arbiter or an
 * operator whose --start has the wrong hands. */
static int start_matches(rec_trk_t *t, int i, double def, double margin) {
    rec_trk_event_t e;
    uint64_t sig = 0;
    int shown = 0;
    size_t len = setup_event(t, i, &e);
    int nd = hand_diffs(t, &t->starts.pos[i], &e, &len, &sig, &shown);
    len = said_more(&e, len, nd, shown);
    return start_despite(t, i, &e, len, nd,
                         " the board matches; the komadai read otherwise (a misread, or hands other than the"
                         " start's): the game starts",
                         def, margin);
}

/* The first moves may have been made before the setup was seen clearly (a late camera, a short
 * look): the game starts from start i if moves from it explain the view (*done = 1); else everything
 * the trial wrote is taken back and the tracker waits for the setup again. */
static int try_first_moves(rec_trk_t *t, int i, double def, double margin, int64_t ts, int *done) {
    uint64_t sig = t->setup.sig;
    int n0 = t->log.n, rc = start_game(t, &t->starts.pos[i], t->starts.hc[i], def, margin);
    *done = 0;
    if (rc != REC_OK)
        return rc;
    int64_t pend = t->unexpl.since;
    t->unexpl.said = 1; /* no uncertain event from this trial */
    rc = rec_trk_play_step(t, ts);
    t->unexpl.said = 0;
    t->unexpl.since = pend;
    if (rc != REC_OK)
        return rc;
    if (t->log.n > n0 + 1 && t->game->nply > 0) {
        *done = 1;
        return REC_OK;
    }
    t->log.n = n0; /* nothing explained: back to waiting for the setup */
    rec_trk_beam_clear(t);
    t->game_no--;
    t->setup.sig = sig;
    t->state = REC_TRK_SETUP;
    return REC_OK;
}

/* How the view differs from a start, square by square (FESA 9.1). */
typedef struct {
    int nd;                      /* differences in all (squares and hand counts) */
    int nd_board;                /* board squares that differ */
    int nd_occ;                  /* ... of which a piece against none or the reverse */
    int nd_chan;                 /* ... of which a piece against none, the reverse, or the other side's */
    int kind_only;               /* 1: every square differs in the kind of its piece only */
    int shown;                   /* differences written in the event's detail */
    int misread[RUL_SQ_NB];      /* class 0..28 read on each differing square, -1 elsewhere */
    int moved[REC_OBS_CLASS_NB]; /* per class: squares seen with it minus squares the start has it on */
    uint64_t sig;                /* signature of the differences (a setup_error is not said twice) */
    size_t len;                  /* length of the event's detail */
} setup_diff_t;

/* Begins e, a setup_error about start i, and lists in it how the view differs (*d). */
static void setup_diffs(const rec_trk_t *t, int i, rec_trk_event_t *e, setup_diff_t *d) {
    const rul_pos_t *s = &t->starts.pos[i];
    memset(d, 0, sizeof *d);
    d->sig = 1469598103934665603ull;
    d->kind_only = 1;
    d->len = setup_event(t, i, e);
    for (int sq = 0; sq < RUL_SQ_NB; sq++)
        d->misread[sq] = -1;
    for (int sq = 0; sq < RUL_SQ_NB; sq++) {
        if (!t->view.known[sq])
            continue;
        int want = REC_OBS_CLASS(rul_pos_piece_at(s, sq)), seen = rec_trk_view_argmax(&t->view, sq);
        if (seen == want || t->view.avg[sq][want] >= (float)t->p.changed_prob)
            continue;
        d->nd++;
        d->nd_board++;
        d->misread[sq] = seen;
        int chan = rec_trk_channel_prob(&t->view, sq, want) < 0.5f;
        d->kind_only &= !chan;
        d->nd_chan += chan;
        d->moved[seen]++;
        d->moved[want]--;
        d->nd_occ += (want == 0) != (seen == 0);
        d->sig = (d->sig ^ (uint64_t)(sq * 32 + seen)) * 1099511628211ull;
        if (d->len + SETUP_RESERVE < sizeof e->detail) {
            d->len += (size_t)snprintf(e->detail + d->len, sizeof e->detail - d->len,
                                       " %d%c: expected %s, seen %s;", RUL_SQ_FILE(sq),
                                       'a' + RUL_SQ_RANK(sq) - 1, CLASS_NAMES[want], CLASS_NAMES[seen]);
            d->shown++;
        }
    }
    d->nd += hand_diffs(t, s, e, &d->len, &d->sig, &d->shown);
    d->len = said_more(e, d->len, d->nd, d->shown);
}

/* Board squares whose occupancy or owner (empty, a sente piece, a gote piece) the view reads otherwise
 * than start i has them: squares setup_diffs lists on which the view gives the start's channel (all
 * the classes of its occupancy and owner together) less than 0.5. */
static int chan_diffs(const rec_trk_t *t, int i) {
    const rul_pos_t *s = &t->starts.pos[i];
    int n = 0;
    for (int sq = 0; sq < RUL_SQ_NB; sq++) {
        if (!t->view.known[sq])
            continue;
        int want = REC_OBS_CLASS(rul_pos_piece_at(s, sq)), seen = rec_trk_view_argmax(&t->view, sq);
        if (seen == want || t->view.avg[sq][want] >= (float)t->p.changed_prob)
            continue;
        n += rec_trk_channel_prob(&t->view, sq, want) < 0.5f;
    }
    return n;
}

/* Occupancy and owner first: start i, a standard one, differs from the view in occupancy or owner on
 * at most max_misread_occ squares (d->nd_chan), or in the owner alone on at most max_misread_owner
 * with every square's occupancy the start's, and every other start on more, so those squares are
 * taken as misread (the kinds are then limited as for kind_only differences). Moves change the
 * occupancy or owner of two squares each, and empty one: a board one such square off a start, or
 * off only in owners, is no start with a move made; the standard starts differ from each other on
 * one square at least (the lance handicap and the even start), hence the strict minimum. */
static int occ_misread_ok(const rec_trk_t *t, int i, const setup_diff_t *d) {
    int most = d->nd_occ == 0 ? t->p.max_misread_owner : t->p.max_misread_occ;
    if (t->starts.hc[i] < 0 || d->nd_chan > most)
        return 0;
    for (int j = 0; j < t->starts.n; j++)
        if (j != i && chan_diffs(t, j) <= d->nd_chan)
            return 0;
    return 1;
}

/* Most board squares of start i that may be taken as misread for the differences d. Misread kinds,
 * and occupancy or owner only as occ_misread_ok allows: a piece where the start has none, or none
 * where it has one, is rarely how this classifier errs (empty squares are read right), so more of
 * them, or any on a given start, are a wrong setup or a wrong --start / --handicap. The pieces seen are the
 * start's rearranged (a gold and a silver swapped, FESA 9.1's wrong setup): max_misread. Kinds no
 * rearrangement of the start's pieces gives (a fifth gold, a third rook, a pawn too few): the set's pieces
 * cannot be where they are read, the classifier misreads this set: max_misread_foreign, or any number
 * when occupancy and owner match the start on every square (occupancy and owner first, kinds second).
 * A given start: max_misread_given. */
static int misread_limit(const rec_trk_t *t, int i, const setup_diff_t *d) {
    int rearranged = 1;
    for (int c = 0; c < REC_OBS_CLASS_NB; c++)
        rearranged &= d->moved[c] == 0;
    if (!d->kind_only && !occ_misread_ok(t, i, d))
        return 0;
    if (t->starts.hc[i] < 0)
        return t->p.max_misread_given;
    if (rearranged)
        return t->p.max_misread;
    /* kinds second: occupancy the start's on every square and the owner on all but max_misread_occ
     * (which way a piece of an unseen set points is read less surely than whether a square holds
     * one), this start the only one so near, and kinds no rearrangement of its pieces gives: the set
     * is misread, however many squares */
    return d->nd_occ == 0 && occ_misread_ok(t, i, d) ? RUL_SQ_NB : t->p.max_misread_foreign;
}

/* A few board squares off a start that is clearly the nearest: far more often the classifier
 * misreading an unusual piece set than a wrong setup. The game starts (the setup_error e stays in the
 * log for the arbiter) and those squares count as read right while they keep the start's piece and
 * look as they did; hands must match. */
static int start_misread(rec_trk_t *t, int i, rec_trk_event_t *e, const setup_diff_t *d, double def,
                         double margin) {
    const rul_pos_t *s = &t->starts.pos[i];
    char verdict[64];
    snprintf(verdict, sizeof verdict, " taken as misread (%d square%s): the game starts", d->nd_board,
             d->nd_board == 1 ? "" : "s");
    int rc = start_despite(t, i, e, d->len, d->nd, verdict, def, margin);
    if (rc != REC_OK)
        return rc;
    for (int sq = 0; sq < RUL_SQ_NB; sq++)
        if (d->misread[sq] >= 0) {
            t->setup.mis_want[sq] = (int8_t)REC_OBS_CLASS(rul_pos_piece_at(s, sq));
            t->setup.mis_seen[sq] = (int8_t)d->misread[sq];
        }
    return REC_OK;
}

/* With a start given (rec_trk_create): the standard start (rul_handicap_t) other than the given one
 * that the view fits within fit_max and by the margin over the given one, or -1. */
static int other_start(const rec_trk_t *t) {
    if (!t->starts.given)
        return -1;
    double given = t->view.best - rec_trk_view_loglik(NULL, &t->view, &t->starts.pos[0]);
    for (int h = 0; h < RUL_HC_NB; h++) {
        rul_pos_t q;
        if (h == t->starts.hc[0] || rul_pos_set_handicap(&q, (rul_handicap_t)h) != RUL_OK)
            continue;
        double d = t->view.best - rec_trk_view_loglik(NULL, &t->view, &q);
        if (d <= t->p.fit_max && given - d >= t->p.margin)
            return h;
    }
    return -1;
}

int rec_trk_setup_step(rec_trk_t *t, int64_t ts) {
    double def, margin, bdef, bmargin;
    int i = best_start(t, 0, &def, &margin), hands_misread = 0, rc, done;
    if (def <= t->p.fit_max && margin >= t->p.margin)
        return start_matches(t, i, def, margin);
    /* The board's squares fit a start and only the komadai do not: a stand is read far less surely
     * than a square (pieces overlap and lie at angles; docs/EVALUATION.md), so the board decides. The game
     * starts at once; the hands that differ are said in a setup_error event for the arbiter (FESA 9.1). */
    if (def > t->p.fit_max && (t->view.hknown[RUL_SENTE] || t->view.hknown[RUL_GOTE])) {
        int j = best_start(t, 1, &bdef, &bmargin);
        if (bdef <= t->p.fit_max && bmargin >= t->p.margin) {
            hands_misread = 1;
            i = j;
            margin = bmargin;
        }
    }
    if (def > t->p.fit_max && !hands_misread) {
        rc = try_first_moves(t, i, def, margin, ts, &done);
        if (rc != REC_OK || done)
            return rc;
    }
    /* FESA 9.1: say square by square how the board differs from the nearest start. */
    rec_trk_event_t e;
    setup_diff_t d;
    setup_diffs(t, i, &e, &d);
    if (ts - t->run.start_ts < t->p.setup_after_us && !hands_misread && !t->read.finishing) {
        /* A view that misread_limit takes as the start misread (occupancy and owner first) starts the
         * game as soon as it is stable: waiting setup_after_us would decide the same later, when a first
         * move may already have hidden the start. */
        if (d.nd > 0 && d.nd_board == d.nd && d.nd_board <= misread_limit(t, i, &d) &&
            margin >= t->p.margin && t->state == REC_TRK_SETUP && other_start(t) < 0) {
            t->setup.sig = d.sig;
            e.fit = def;
            return start_misread(t, i, &e, &d, def, margin);
        }
        return REC_OK;
    }
    if (hands_misread)
        return start_despite(t, i, &e, d.len, d.nd,
                             " the board matches: the komadai taken as misread, the game starts", def,
                             margin);
    if (d.nd == 0 || d.sig == t->setup.sig)
        return REC_OK; /* not one clear difference (a noisy view), or already said */
    t->setup.sig = d.sig;
    e.fit = def;
    /* No start with its first moves unseen (REC_TRK_MIDGAME_OCC): most likely a game already under
     * way when the recording began. */
    if (d.nd_occ > REC_TRK_MIDGAME_OCC)
        snprintf(e.detail + d.len, sizeof e.detail - d.len,
                 " not a start: give a game under way as the start (kifucam record --start SFEN)");
    snprintf(e.sfen, sizeof e.sfen, "%s", "");
    rul_pos_to_sfen(&t->starts.pos[i], e.sfen, sizeof e.sfen);
    e.handicap = other_start(t);
    if (e.handicap >= 0) {
        rul_handicap_info_t hi;
        size_t len = strlen(e.detail);
        if (rul_handicap_info((rul_handicap_t)e.handicap, &hi) == RUL_OK && len + 100 < sizeof e.detail)
            snprintf(e.detail + len, sizeof e.detail - len,
                     " the board looks like the %s start, not the one given (--start / --handicap)", hi.name);
        return rec_trk_ev_push(t, &e); /* a wrong start given is no misread: the game does not start */
    }
    if (d.nd_board == d.nd && d.nd_board <= misread_limit(t, i, &d) && margin >= t->p.margin &&
        t->state == REC_TRK_SETUP)
        return start_misread(t, i, &e, &d, def, margin);
    return rec_trk_ev_push(t, &e);
}

/* In a game, or after it: does the view show a start position (the board set up again)? */
int rec_trk_try_new_game(rec_trk_t *t, double best_other, int64_t ts, int *done) {
    double def, margin;
    int i = best_start(t, 0, &def, &margin);
    *done = 0;
    if (t->game->nply == 0 || def > t->p.fit_max || margin < t->p.margin || best_other - def < t->p.margin)
        return REC_OK;
    *done = 1;
    if (t->state == REC_TRK_PLAYING) {
        int rc = rec_trk_end_game(t, REC_WINNER_NONE, RUL_REASON_ABORT, ts,
                                  "the board was set up again before the game ended: game stopped");
        if (rc != REC_OK)
            return rc;
    }
    return start_game(t, &t->starts.pos[i], t->starts.hc[i], def, margin);
}
