/* command.c - operator commands: resign, declare, flag, abort (FESA 5.1, 5.3, 8). */
#include "recorder/tracker/tracker_internal.h"

#include <stdio.h>
#include <string.h>

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
                w1, w2, rec_trk_color_name(t->game->pos.side));
        return REC_ESTATE;
    }
    if (is_resign) {
        snprintf(d, sizeof d, "%s resigns, %s wins (FESA 5.1)", rec_trk_color_name(side),
                 rec_trk_color_name(side ^ 1));
        return rec_trk_end_game(t, side ^ 1, REC_REASON_RESIGN, ts_us, d);
    }
    if (is_flag) {
        snprintf(d, sizeof d, "%s's flag fell, %s wins on time (FESA 8)", rec_trk_color_name(side),
                 rec_trk_color_name(side ^ 1));
        return rec_trk_end_game(t, side ^ 1, REC_REASON_TIME, ts_us, d);
    }
    if (is_abort)
        return rec_trk_end_game(t, REC_WINNER_NONE, REC_REASON_ABORT, ts_us, "game aborted by the operator");
    rul_impasse_t im;
    rul_impasse_judge(&t->game->pos, t->p.impasse_rule, &im);
    int winner = im.verdict == RUL_VERDICT_WIN    ? (int)im.declarer
                 : im.verdict == RUL_VERDICT_LOSE ? (int)im.declarer ^ 1
                                                  : REC_WINNER_NONE;
    snprintf(
        d, sizeof d,
        "%s declares an impasse (%s): %d points (needed %d), %d pieces in the camp, king %s the camp, %s: %s "
        "(FESA 5.3)",
        rec_trk_color_name(im.declarer),
        t->p.impasse_rule == RUL_IMPASSE_27 ? "27-point rule" : "24-point rule", im.points, im.needed,
        im.pieces_in_zone, im.king_in_zone ? "in" : "not in", im.in_check ? "in check" : "not in check",
        im.verdict == RUL_VERDICT_WIN    ? "wins"
        : im.verdict == RUL_VERDICT_LOSE ? "loses"
                                         : "draw");
    return rec_trk_end_game(t, winner, REC_REASON_IMPASSE, ts_us, d);
}
