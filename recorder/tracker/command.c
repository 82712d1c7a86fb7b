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

/* The commands. */
enum { CMD_RESIGN, CMD_FLAG, CMD_DECLARE, CMD_ABORT };

/* Splits buf (the caller's copy of the line, cut in place) into *w1, the command, and *w2, its
 * argument (NULL: none); *cmd gets CMD_*, *side the side of resign and flag. Errors: REC_EPARSE (err's
 * message says why; err may be NULL). */
static int parse_command(char *buf, char **w1, char **w2, int *cmd, int *side, rec_error_t *err) {
    char *w3, *save = NULL;
    *w1 = strtok_r(buf, " \t\r\n", &save);
    *w2 = strtok_r(NULL, " \t\r\n", &save);
    w3 = strtok_r(NULL, " \t\r\n", &save);
    if (*w1 == NULL || w3 != NULL) {
        if (err)
            snprintf(err->msg, sizeof err->msg,
                     "command: expected one of resign sente|gote, declare, flag "
                     "sente|gote, abort");
        return REC_EPARSE;
    }
    *cmd = !strcmp(*w1, "resign")    ? CMD_RESIGN
           : !strcmp(*w1, "flag")    ? CMD_FLAG
           : !strcmp(*w1, "declare") ? CMD_DECLARE
           : !strcmp(*w1, "abort")   ? CMD_ABORT
                                     : -1;
    if (*cmd < 0) {
        if (err)
            snprintf(err->msg, sizeof err->msg, "command: unknown command '%s'", *w1);
        return REC_EPARSE;
    }
    if ((*cmd == CMD_RESIGN || *cmd == CMD_FLAG) && !parse_side(*w2, side)) {
        if (err)
            snprintf(err->msg, sizeof err->msg, "command: %s: expected sente or gote, got '%s'", *w1,
                     *w2 ? *w2 : "");
        return REC_EPARSE;
    }
    if ((*cmd == CMD_DECLARE || *cmd == CMD_ABORT) && *w2 != NULL) {
        if (err)
            snprintf(err->msg, sizeof err->msg, "command: %s takes no argument, got '%s'", *w1, *w2);
        return REC_EPARSE;
    }
    return REC_OK;
}

/* The side to move declares an impasse (FESA 5.3), judged by params.impasse_rule; the game ends. */
static int declare_impasse(rec_trk_t *t, int64_t ts_us) {
    char d[200];
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
    return rec_trk_end_game(t, winner, RUL_REASON_IMPASSE, ts_us, d);
}

int rec_trk_command(rec_trk_t *t, const char *line, int64_t ts_us, rec_error_t *err) {
    char buf[128], *w1, *w2;
    char d[200];
    int cmd, side = RUL_SENTE, rc;
    if (err) {
        err->msg[0] = '\0';
        err->column = 0;
    }
    if (t == NULL || line == NULL)
        return REC_ERANGE;
    snprintf(buf, sizeof buf, "%s", line);
    rc = parse_command(buf, &w1, &w2, &cmd, &side, err);
    if (rc != REC_OK)
        return rc;
    if (t->state != REC_TRK_PLAYING) {
        if (err)
            snprintf(err->msg, sizeof err->msg, "command: %s: no game in progress", w1);
        return REC_ESTATE;
    }
    /* KIF (投了, 切れ負け), CSA (%TORYO, %TIME_UP) and USI (resign) record a resignation or a fallen
     * flag as the side to move's; a command for the other side almost always means the record is
     * behind the board (the last move not yet written) or the wrong side was typed: refused, so that
     * the files never name a winner other than the event's. */
    if ((cmd == CMD_RESIGN || cmd == CMD_FLAG) && side != t->game->pos.side) {
        if (err)
            snprintf(
                err->msg, sizeof err->msg,
                "command: %s %s: %s is to move in the record (a resignation or a fallen flag is the side to "
                "move's): send it again once the last move is written, or check the side",
                w1, w2, rec_trk_color_name(t->game->pos.side));
        return REC_ESTATE;
    }
    switch (cmd) {
    case CMD_RESIGN:
        snprintf(d, sizeof d, "%s resigns, %s wins (FESA 5.1)", rec_trk_color_name(side),
                 rec_trk_color_name(side ^ 1));
        return rec_trk_end_game(t, side ^ 1, RUL_REASON_RESIGN, ts_us, d);
    case CMD_FLAG:
        snprintf(d, sizeof d, "%s's flag fell, %s wins on time (FESA 8)", rec_trk_color_name(side),
                 rec_trk_color_name(side ^ 1));
        return rec_trk_end_game(t, side ^ 1, RUL_REASON_TIME, ts_us, d);
    case CMD_ABORT:
        return rec_trk_end_game(t, REC_WINNER_NONE, RUL_REASON_ABORT, ts_us, "game aborted by the operator");
    default: return declare_impasse(t, ts_us);
    }
}
