/* replay.c - replays a USI "position ... moves ..." line through the rules engine and judges how the
 * game ended (rec_replay_usi), and writes the result as JSON or text. Owns nothing beyond the
 * caller's rec_replay_t. */
#include "recorder/kifu/replay.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- names */

static const char *const winner_names[] = {"sente", "gote", "none"};

static const char *const event_names[REC_EV_NB] = {
    "check",         "repetition", "sennichite", "perpetual_check", "illegal_move", "mate",
    "no_legal_move", "resign",     "impasse",    "ignored_moves",   "time_up",
};

const char *rec_winner_name(rec_winner_t w) {
    return (unsigned)w <= REC_WINNER_NONE ? winner_names[w] : "unknown";
}

const char *rec_event_type_name(rec_event_type_t t) {
    return (unsigned)t < REC_EV_NB ? event_names[t] : "unknown";
}

static const char *color_name(rul_color_t c) { return c == RUL_SENTE ? "sente" : "gote"; }

/* The FESA article an illegal move breaks (RULES.md). */
static const char *why_article(rul_why_t why) {
    switch (why) {
    case RUL_WHY_NIFU: return "FESA 3.11(a)";
    case RUL_WHY_PAWN_DROP_MATE: return "FESA 3.11(c)";
    case RUL_WHY_LEAVES_KING_IN_CHECK: return "FESA 1.2";
    case RUL_WHY_NO_FURTHER_MOVE: return "FESA 3.2, 3.11(b)";
    default: return "FESA 3";
    }
}

/* ---------------------------------------------------------------- create / destroy */

void rec_replay_params_default(rec_replay_params_t *p) {
    if (!p)
        return;
    p->validate_flags = 0; /* a tsume record has one king (gote's); piece counts, nifu, dead pieces and
                              the side not to move in check are still refused */
    p->impasse_rule = RUL_IMPASSE_27;
}

int rec_replay_create(rec_replay_t **out) {
    if (!out)
        return REC_ERANGE;
    *out = calloc(1, sizeof **out);
    return *out ? REC_OK : REC_ENOMEM;
}

void rec_replay_destroy(rec_replay_t *r) { free(r); }

/* ---------------------------------------------------------------- tokens */

/* One whitespace-separated token of the input line: line[start .. start+len-1]. */
typedef struct {
    size_t start;
    size_t len;
} token_t;

static int is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

/* Finds the token at or after *pos; returns 0 at the end of the line. */
static int next_token(const char *line, size_t *pos, token_t *t) {
    size_t i = *pos;
    while (line[i] && is_blank(line[i]))
        i++;
    if (!line[i])
        return 0;
    t->start = i;
    while (line[i] && !is_blank(line[i]))
        i++;
    t->len = i - t->start;
    *pos = i;
    return 1;
}

static int tok_is(const char *line, const token_t *t, const char *word) {
    size_t n = strlen(word);
    return t->len == n && memcmp(line + t->start, word, n) == 0;
}

static void set_err(rec_error_t *err, int column, const char *fmt, ...) {
    va_list ap;
    if (!err)
        return;
    err->column = column;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    /* Keep the message on one line whatever the input held. */
    for (char *p = err->msg; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = '?';
}

/* Token text for messages: at most 24 characters, "..." after. */
static void tok_show(const char *line, const token_t *t, char out[32]) {
    size_t n = t->len > 24 ? 24 : t->len;
    memcpy(out, line + t->start, n);
    strcpy(out + n, t->len > 24 ? "..." : "");
}

static int tok_column(const token_t *t) { return (int)t->start + 1; }

/* Parses a move token (syntax only). */
static int parse_move(const char *line, const token_t *t, rul_move_t *m, rec_error_t *err) {
    char buf[8], show[32];
    rul_error_t rerr;
    memset(&rerr, 0, sizeof rerr);
    tok_show(line, t, show);
    if (t->len >= sizeof buf) {
        set_err(err, tok_column(t),
                "column %d: bad move '%s': a USI move is 4 or 5 characters (7g7f, P*5e, 8h2b+)",
                tok_column(t), show);
        return REC_EPARSE;
    }
    memcpy(buf, line + t->start, t->len);
    buf[t->len] = '\0';
    if (rul_move_from_usi(buf, m, &rerr) != RUL_OK) {
        set_err(err, tok_column(t), "column %d: bad move '%s': %s", tok_column(t), show,
                rerr.msg[0] ? rerr.msg : "not a USI move (7g7f, P*5e, 8h2b+)");
        return REC_EPARSE;
    }
    return REC_OK;
}

/* ---------------------------------------------------------------- the start position */

/* Parses "startpos" or "sfen BOARD SIDE HANDS [PLY]" at *pos into *start. */
static int parse_start(const char *line, size_t *pos, rul_pos_t *start, rec_error_t *err) {
    token_t t, f[4];
    char sfen[256], show[32];
    size_t off[4], n = 0, save;
    int nf = 0, rc = REC_OK;
    rul_error_t rerr;

    if (!next_token(line, pos, &t)) {
        set_err(err, (int)*pos + 1, "column %d: expected 'startpos' or 'sfen' after 'position'",
                (int)*pos + 1);
        rc = REC_EPARSE;
        goto out;
    }
    if (tok_is(line, &t, "startpos")) {
        rc = rul_pos_from_sfen(start, RUL_SFEN_STARTPOS, NULL) == RUL_OK ? REC_OK : REC_EPARSE;
        if (rc != REC_OK)
            set_err(err, 0, "internal: the start position does not parse");
        goto out;
    }
    if (!tok_is(line, &t, "sfen")) {
        tok_show(line, &t, show);
        set_err(err, tok_column(&t), "column %d: expected 'startpos' or 'sfen', got '%s'", tok_column(&t),
                show);
        rc = REC_EPARSE;
        goto out;
    }
    /* Up to four fields, stopping before "moves". */
    for (nf = 0; nf < 4; nf++) {
        save = *pos;
        if (!next_token(line, pos, &f[nf]))
            break;
        if (tok_is(line, &f[nf], "moves") ||
            (nf == 3 && !(line[f[nf].start] >= '0' && line[f[nf].start] <= '9'))) {
            *pos = save;
            break;
        }
    }
    if (nf < 3) {
        set_err(err, tok_column(&t), "column %d: 'sfen' needs BOARD SIDE HANDS [PLY], got %d field%s",
                tok_column(&t), nf, nf == 1 ? "" : "s");
        rc = REC_EPARSE;
        goto out;
    }
    for (int i = 0; i < nf; i++) {
        if (n + f[i].len + 2 > sizeof sfen) {
            set_err(err, tok_column(&f[i]), "column %d: SFEN too long", tok_column(&f[i]));
            rc = REC_EPARSE;
            goto out;
        }
        if (i)
            sfen[n++] = ' ';
        off[i] = n;
        memcpy(sfen + n, line + f[i].start, f[i].len);
        n += f[i].len;
    }
    sfen[n] = '\0';
    memset(&rerr, 0, sizeof rerr);
    if (rul_pos_from_sfen(start, sfen, &rerr) != RUL_OK) {
        /* Map the engine's column in our rebuilt SFEN back to a column of the line. */
        int col = tok_column(&f[0]);
        if (rerr.column > 0) {
            size_t c = (size_t)rerr.column - 1;
            for (int i = nf - 1; i >= 0; i--)
                if (c >= off[i]) {
                    size_t in = c - off[i];
                    col = (int)(f[i].start + (in < f[i].len ? in : f[i].len)) + 1;
                    break;
                }
        }
        {
            /* the engine's "sfen: column N: " counts in the SFEN alone: the line's column is given instead */
            const char *m = rerr.msg[0] ? rerr.msg : "malformed";
            if (!strncmp(m, "sfen: column ", 13)) {
                const char *q = m + 13;
                while (*q >= '0' && *q <= '9')
                    q++;
                if (q[0] == ':' && q[1] == ' ')
                    m = q + 2;
            }
            set_err(err, col, "column %d: bad SFEN: %s", col, m);
        }
        rc = REC_EPARSE;
        goto out;
    }
out:
    return rc;
}

/* ---------------------------------------------------------------- replay */

static void add_event(rec_replay_t *r, int ply, rec_event_type_t type, const char *fmt, ...) {
    va_list ap;
    rec_event_t *ev;
    if (r->nevents >= REC_MAX_EVENTS) /* cannot happen: see REC_MAX_EVENTS */
        return;
    ev = &r->events[r->nevents++];
    ev->ply = ply;
    ev->type = type;
    va_start(ap, fmt);
    vsnprintf(ev->detail, sizeof ev->detail, fmt, ap);
    va_end(ap);
}

static void set_result(rec_replay_t *r, rec_winner_t w, rul_reason_t reason, int ply) {
    r->result.winner = w;
    r->result.reason = reason;
    r->result.ply = ply;
}

static rec_winner_t winner_of(rul_color_t c) { return c == RUL_SENTE ? REC_WINNER_SENTE : REC_WINNER_GOTE; }

static rul_color_t other(rul_color_t c) { return c == RUL_SENTE ? RUL_GOTE : RUL_SENTE; }

/* Judges a "win" token: the side to move declares an impasse (FESA 5.3 or the chosen rule). */
static void declare_impasse(rec_replay_t *r, rul_impasse_rule_t rule) {
    rul_game_t *g = &r->game;
    rul_color_t me = (rul_color_t)g->pos.side;
    rul_impasse_t imp;
    rec_winner_t w;
    const char *verdict;

    memset(&imp, 0, sizeof imp);
    rul_impasse_judge(&g->pos, rule, &imp);
    if (imp.verdict == RUL_VERDICT_WIN) {
        w = winner_of(me);
        verdict = "win";
    } else if (imp.verdict == RUL_VERDICT_DRAW) {
        w = REC_WINNER_NONE;
        verdict = "draw";
    } else {
        w = winner_of(other(me));
        verdict = "lose";
    }
    if (rule == RUL_IMPASSE_COUNT)
        add_event(r, g->nply, REC_EV_IMPASSE, "%s declares, count rule: %d points against %d: %s",
                  color_name(me), imp.points, imp.opponent_points, verdict);
    else
        add_event(r, g->nply, REC_EV_IMPASSE,
                  "%s declares, %s rule: %d/%d points, %d pieces in zone, king %s, %s: %s", color_name(me),
                  rule == RUL_IMPASSE_24 ? "24-point" : "27-point", imp.points, imp.needed,
                  imp.pieces_in_zone, imp.king_in_zone ? "in zone" : "not in zone",
                  imp.in_check ? "in check" : "no check", verdict);
    set_result(r, w, RUL_REASON_IMPASSE, g->nply);
}

/* If the side to move is mated (FESA 5.1) or has no legal move (FESA 1.2), records the end and
 * returns 1; else 0. */
static int judge_end(rec_replay_t *r) {
    rul_game_t *g = &r->game;
    rul_color_t stm = (rul_color_t)g->pos.side;
    rul_game_end_t end;
    rul_game_judge(g, &end);
    if (end.reason == RUL_REASON_MATE)
        add_event(r, g->nply, REC_EV_MATE, "%s is checkmated (FESA 5.1)", color_name(stm));
    else if (end.reason == RUL_REASON_NO_LEGAL_MOVE)
        add_event(r, g->nply, REC_EV_NO_LEGAL_MOVE, "%s has no legal move (FESA 1.2)", color_name(stm));
    else
        return 0;
    set_result(r, (rec_winner_t)end.winner, end.reason, g->nply);
    return 1;
}

/* The terminal token t names: 1 "resign", 2 "win", 3 "timeout", 0 none. */
static int terminal_of(const char *line, const token_t *t) {
    return tok_is(line, t, "resign") ? 1 : tok_is(line, t, "win") ? 2 : tok_is(line, t, "timeout") ? 3 : 0;
}

/* Checks the syntax of every move token from *pos (a terminal may only be last) and counts them in
 * r->moves_written; refuses a move that would number a position past RUL_SFEN_MAX_NUMBER. */
static int check_moves(rec_replay_t *r, const char *line, size_t pos, const rul_pos_t *start,
                       rec_error_t *err) {
    token_t t;
    char show[32];
    while (next_token(line, &pos, &t)) {
        rul_move_t m;
        if (terminal_of(line, &t)) {
            token_t after;
            size_t p2 = pos;
            if (next_token(line, &p2, &after)) {
                tok_show(line, &t, show);
                set_err(err, tok_column(&t), "column %d: '%s' must be the last token", tok_column(&t), show);
                return REC_EPARSE;
            }
            continue;
        }
        int rc = parse_move(line, &t, &m, err);
        if (rc != REC_OK)
            return rc;
        r->moves_written++;
        /* the position after each move must have an SFEN move number, 1..RUL_SFEN_MAX_NUMBER, as the
           SFEN reader takes (kifu.h): a game taken up near the limit cannot go past it */
        if ((long)start->ply + r->moves_written > RUL_SFEN_MAX_NUMBER) {
            tok_show(line, &t, show);
            set_err(err, tok_column(&t),
                    "column %d: move %ld '%s' would leave a position numbered past %d, SFEN's last move "
                    "number: a game from move %d has room for %ld moves",
                    tok_column(&t), (long)start->ply + r->moves_written - 1, show, RUL_SFEN_MAX_NUMBER,
                    start->ply, (long)RUL_SFEN_MAX_NUMBER - start->ply);
            return REC_EPARSE;
        }
    }
    return REC_OK;
}

/* Reads "[position] startpos|sfen ... [moves ...]" into *start and checks every token; *moves_at gets
 * the offset of the first move. The start must be one that can arise in a game (FESA 9.1, 9.4). */
static int read_line(rec_replay_t *r, const char *line, const rec_replay_params_t *params, rul_pos_t *start,
                     size_t *moves_at, rec_error_t *err) {
    token_t t;
    size_t pos = 0;
    char show[32];
    rul_error_t verr;
    int rc;

    if (!next_token(line, &pos, &t)) {
        set_err(err, 0, "empty line: expected 'position startpos|sfen ... [moves ...]'");
        return REC_EPARSE;
    }
    if (!tok_is(line, &t, "position")) /* the keyword is optional */
        pos = t.start;
    if ((rc = parse_start(line, &pos, start, err)) != REC_OK)
        return rc;
    if (next_token(line, &pos, &t) && !tok_is(line, &t, "moves")) {
        tok_show(line, &t, show);
        set_err(err, tok_column(&t), "column %d: expected 'moves', got '%s'", tok_column(&t), show);
        return REC_EPARSE;
    }
    *moves_at = pos;
    if ((rc = check_moves(r, line, pos, start, err)) != REC_OK)
        return rc;
    memset(&verr, 0, sizeof verr);
    rul_invalid_t why = rul_pos_validate(start, params->validate_flags, &verr);
    if (why != RUL_VALID) {
        set_err(err, 0, "start position is illegal: %s%s%s", rul_invalid_name(why), verr.msg[0] ? ": " : "",
                verr.msg);
        return REC_EINVALID;
    }
    return REC_OK;
}

/* Records the illegal move m by mover: FESA 9.4, the opponent of the player who made it wins. */
static void illegal_move(rec_replay_t *r, rul_move_t m, rul_color_t mover, rul_why_t why) {
    rul_game_t *g = &r->game;
    /* A move written after a mate (or with no legal move left) is itself illegal: say both, so that
     * the record's own move is judged, as arbiters and other readers do (014.kif). */
    if (rul_pos_no_legal_move(&g->pos))
        judge_end(r);
    r->illegal_move = m;
    r->illegal_why = why;
    add_event(r, g->nply + 1, REC_EV_ILLEGAL_MOVE, "%s", rul_why_name(why));
    set_result(r, winner_of(other(mover)), RUL_REASON_ILLEGAL_MOVE, g->nply + 1);
}

/* After the legal move m by mover: the check and repetition events, and the end of the game by
 * repetition (rul_game_judge: FESA 5.2, 3.12). Returns 1 when the game ends there. */
static int after_move(rec_replay_t *r, rul_move_t m, rul_color_t mover) {
    rul_game_t *g = &r->game;
    const int ply = g->nply;
    rul_game_end_t end;
    char usi[6];
    rul_move_to_usi(m, usi);
    if (g->check[ply])
        add_event(r, ply, REC_EV_CHECK, "%s gives check to %s", usi, color_name(other(mover)));
    rul_game_judge(g, &end);
    if (end.rep.count >= 2)
        add_event(r, ply, REC_EV_REPETITION, "position occurred %d times", end.rep.count);
    if (end.reason == RUL_REASON_SENNICHITE) { /* FESA 5.2 */
        add_event(r, ply, REC_EV_SENNICHITE,
                  "fourth occurrence of the position after move %d: draw (FESA 5.2)",
                  end.rep.first_ply + r->first_move - 1);
        set_result(r, REC_WINNER_NONE, RUL_REASON_SENNICHITE, ply);
        return 1;
    }
    if (end.reason == RUL_REASON_PERPETUAL_CHECK) { /* FESA 3.12 */
        rul_color_t checker = other((rul_color_t)end.winner);
        add_event(r, ply, REC_EV_PERPETUAL, "%s checked on every move since move %d: %s loses (FESA 3.12)",
                  color_name(checker), end.rep.first_ply + r->first_move - 1, color_name(checker));
        set_result(r, (rec_winner_t)end.winner, RUL_REASON_PERPETUAL_CHECK, ply);
        return 1;
    }
    return 0;
}

/* Plays the move token t. *ended is set when the game ends with it (an illegal move, a repetition).
 * Returns REC_OK or REC_EFULL. */
static int play_token(rec_replay_t *r, const char *line, const token_t *t, int *ended, rec_error_t *err) {
    rul_game_t *g = &r->game;
    rul_move_t m;
    int rc = parse_move(line, t, &m, err);
    if (rc != REC_OK) /* checked before */
        return rc;
    rul_color_t mover = (rul_color_t)g->pos.side;
    rul_why_t why = rul_why_illegal(&g->pos, m);
    if (why == RUL_WHY_LEGAL) {
        int prc = rul_game_play(g, m);
        if (prc == RUL_EFULL) {
            set_err(err, tok_column(t), "column %d: more than %d moves", tok_column(t), RUL_GAME_MAX_PLY);
            return REC_EFULL;
        }
        if (prc != RUL_OK)
            why = RUL_WHY_NOT_A_LEGAL_MOVE;
    }
    if (why != RUL_WHY_LEGAL) {
        illegal_move(r, m, mover, why);
        *ended = 1;
    } else {
        *ended = after_move(r, m, mover);
    }
    return REC_OK;
}

/* The end after the last move played: mate or no legal move, else the terminal token (1 resign, FESA
 * 5.1; 2 win, 5.3; 3 timeout, 8.x), then an event for what was written after the end. */
static void finish(rec_replay_t *r, const rec_replay_params_t *params, int ended, int terminal, int ignored) {
    rul_game_t *g = &r->game;
    if (!ended) {
        rul_color_t stm = (rul_color_t)g->pos.side;
        if (judge_end(r)) {
            ; /* a terminal after the end is reported below */
        } else if (terminal == 1) {
            add_event(r, g->nply, REC_EV_RESIGN, "%s resigns", color_name(stm));
            set_result(r, winner_of(other(stm)), RUL_REASON_RESIGN, g->nply);
            terminal = 0;
        } else if (terminal == 2) {
            declare_impasse(r, params->impasse_rule);
            terminal = 0;
        } else if (terminal == 3) { /* the side to move's flag fell */
            add_event(r, g->nply, REC_EV_TIME_UP, "%s lost on time", color_name(stm));
            set_result(r, winner_of(other(stm)), RUL_REASON_TIME, g->nply);
            terminal = 0;
        }
    }
    if (ignored)
        add_event(r, r->result.ply, REC_EV_IGNORED_MOVES,
                  "%d move%s%s after the end of the game not replayed", ignored, ignored == 1 ? "" : "s",
                  terminal == 1   ? " and 'resign'"
                  : terminal == 2 ? " and 'win'"
                  : terminal == 3 ? " and 'timeout'"
                                  : "");
    else if (terminal)
        add_event(r, r->result.ply, REC_EV_IGNORED_MOVES, "'%s' after the end of the game ignored",
                  terminal == 1   ? "resign"
                  : terminal == 2 ? "win"
                                  : "timeout");
    if (r->result.reason == RUL_REASON_NONE)
        r->result.ply = g->nply;
    r->moves = g->nply;
    rul_pos_to_sfen(&g->pos, r->final_sfen, sizeof r->final_sfen);
}

int rec_replay_usi(rec_replay_t *r, const char *line, const rec_replay_params_t *params, rec_error_t *err) {
    rec_replay_params_t defaults;
    rul_pos_t start;
    token_t t;
    size_t pos = 0;
    int rc, ended = 0, ignored = 0, terminal = 0;

    if (err) {
        err->msg[0] = '\0';
        err->column = 0;
    }
    if (!r || !line) {
        set_err(err, 0, "rec_replay_usi: NULL argument");
        return REC_ERANGE;
    }
    if (!params) {
        rec_replay_params_default(&defaults);
        params = &defaults;
    }
    memset(r, 0, sizeof *r);
    rc = read_line(r, line, params, &start, &pos, err);
    if (rc != REC_OK)
        goto out;
    rul_game_init(&r->game, &start);
    rul_pos_to_sfen(&r->game.start, r->start_sfen, sizeof r->start_sfen);
    r->first_move = r->game.start.ply > 0 ? r->game.start.ply : 1;
    r->illegal_move = RUL_MOVE_NONE;
    r->illegal_why = RUL_WHY_LEGAL;
    set_result(r, REC_WINNER_NONE, RUL_REASON_NONE, 0);
    while (next_token(line, &pos, &t)) {
        if ((terminal = terminal_of(line, &t)) != 0)
            break;
        if (ended)
            ignored++;
        else if ((rc = play_token(r, line, &t, &ended, err)) != REC_OK)
            goto out;
    }
    finish(r, params, ended, terminal, ignored);
out:
    if (rc != REC_OK)
        memset(&r->result, 0, sizeof r->result);
    return rc;
}

/* ---------------------------------------------------------------- replay of a record */

/* Plays k's main line in g to its last move or its first illegal move, into *out. */
static void walk_line(const rec_kifu_t *k, rul_game_t *g, rec_replay_record_t *out) {
    const rec_kifu_line_t *L = &k->lines[0];
    rul_game_end_t end;
    rul_game_judge(g, &end);
    for (int i = 0; i < L->nmoves; i++) {
        rul_move_t m = L->moves[i].move;
        if (g->nply >= RUL_GAME_MAX_PLY)
            break;
        if (!rul_is_legal(&g->pos, m)) {
            out->illegal_ply = L->start_ply + i;
            out->illegal_why = rul_why_illegal(&g->pos, m);
            if (out->illegal_why == RUL_WHY_LEGAL)
                out->illegal_why = RUL_WHY_NOT_A_LEGAL_MOVE;
            rul_move_to_usi(m, out->illegal_usi);
            break;
        }
        rul_game_play(g, m);
        out->plies++;
        rul_game_judge(g, &end);
        if (end.rep.count > out->max_repetition)
            out->max_repetition = end.rep.count;
        if (end.rep.verdict != RUL_REP_NONE && !out->sennichite_ply) {
            out->sennichite_ply = L->start_ply + i;
            out->repetition = end.rep.verdict;
        }
    }
    out->in_check = rul_pos_in_check(&g->pos);
    out->mate = end.reason == RUL_REASON_MATE;
    rul_pos_to_sfen(&g->pos, out->final_sfen, sizeof out->final_sfen);
}

/* The record's own ending (sennichite, mate, an impasse win) against the position it ends in. */
static void judge_claim(const rec_kifu_t *k, const rul_pos_t *pos, rec_replay_record_t *out) {
    rec_end_t claim = k->result.end;
    if (out->illegal_ply)
        return;
    if (claim == REC_END_SENNICHITE && out->repetition == RUL_REP_NONE) {
        out->claim_ok = 0;
        snprintf(out->claim_msg, sizeof out->claim_msg,
                 "record claims sennichite but no position occurred four times (most: %d)",
                 out->max_repetition);
    } else if (claim == REC_END_MATE && !out->mate) {
        out->claim_ok = 0;
        snprintf(out->claim_msg, sizeof out->claim_msg, "record claims mate but the side to move is %s",
                 out->in_check ? "in check, not mated" : "not in check");
    } else if (claim == REC_END_KACHI) {
        rul_impasse_t im;
        rul_impasse_judge(pos, RUL_IMPASSE_27, &im);
        if (im.verdict != RUL_VERDICT_WIN) {
            out->claim_ok = 0;
            snprintf(out->claim_msg, sizeof out->claim_msg,
                     "record claims an impasse win but the declaration fails (%d points, %d in zone%s)",
                     im.points, im.pieces_in_zone, im.in_check ? ", in check" : "");
        }
    }
}

/* Checks k's main line move by move into *out (rules engine: legality, repetition over the whole
 * game, mate at the end) and its claimed ending. REC_OK, REC_EPARSE (bad start SFEN), REC_ENOMEM. */
static int check_record(const rec_kifu_t *k, rec_replay_record_t *out) {
    rul_pos_t start;
    memset(out, 0, sizeof *out);
    out->claim_ok = 1;
    out->max_repetition = 1;
    if (rul_pos_from_sfen(&start, k->start_sfen, NULL) != RUL_OK)
        return REC_EPARSE;
    rul_game_t *g = malloc(sizeof *g);
    if (!g)
        return REC_ENOMEM;
    rul_game_init(g, &start);
    walk_line(k, g, out);
    judge_claim(k, &g->pos, out);
    free(g);
    return REC_OK;
}

int rec_replay_kifu(rec_replay_t *r, const rec_kifu_t *k, const rec_replay_params_t *params,
                    rec_error_t *err) {
    rec_replay_record_t rec;
    rec_kifu_error_t e;
    char *usi = NULL;
    size_t n;
    int rc;

    if (err) {
        err->msg[0] = '\0';
        err->column = 0;
    }
    if (!r || !k) {
        set_err(err, 0, "rec_replay_kifu: NULL argument");
        return REC_ERANGE;
    }
    memset(r, 0, sizeof *r);
    if (check_record(k, &rec) == REC_ENOMEM) {
        set_err(err, 0, "out of memory");
        return REC_ENOMEM;
    }
    if (k->lines[0].nmoves > RUL_GAME_MAX_PLY) {
        set_err(err, 0, "more than %d moves (%d): longer than any game the rules engine replays",
                RUL_GAME_MAX_PLY, k->lines[0].nmoves);
        rc = REC_EFULL;
    } else if ((rc = rec_kifu_write(k, REC_FMT_USI, &usi, &n, &e)) != REC_KIFU_OK) {
        /* the USI writer ends the line with "resign" / "win" when the record ends so */
        set_err(err, 0, "%s", e.msg);
        rc = rc == REC_KIFU_ENOMEM ? REC_ENOMEM : REC_ERANGE;
    } else {
        rc = rec_replay_usi(r, usi, params, err);
    }
    free(usi);
    r->record = rec;
    return rc;
}

/* ---------------------------------------------------------------- output */

int rec_json_write_string(FILE *f, const char *s) {
    if (!f || !s)
        return REC_ERANGE;
    putc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"': fputs("\\\"", f); break;
        case '\\': fputs("\\\\", f); break;
        case '\n': fputs("\\n", f); break;
        case '\r': fputs("\\r", f); break;
        case '\t': fputs("\\t", f); break;
        default:
            if (*p < 0x20 || *p == 0x7f)
                fprintf(f, "\\u%04x", *p);
            else
                putc(*p, f);
        }
    }
    putc('"', f);
    return ferror(f) ? REC_ERANGE : REC_OK;
}

/* The game's number of the first move (1 for a replay made before first_move existed: zeroed). */
static int first_move(const rec_replay_t *r) { return r->first_move > 0 ? r->first_move : 1; }

/* The game's move number of ply p (1-based in the line), as the KIF writer numbers it. */
static int move_number(const rec_replay_t *r, int ply) { return ply + first_move(r) - 1; }

int rec_replay_write_json(const rec_replay_t *r, FILE *f) {
    if (!r || !f)
        return REC_ERANGE;
    fprintf(f, "{\"moves\": %d, \"first_move\": %d, \"final_sfen\": ", r->moves, first_move(r));
    rec_json_write_string(f, r->final_sfen);
    fprintf(
        f, ", \"result\": {\"winner\": \"%s\", \"reason\": \"%s\", \"ply\": %d, \"move\": %d}, \"events\": [",
        rec_winner_name(r->result.winner), rul_reason_name(r->result.reason), r->result.ply,
        move_number(r, r->result.ply));
    for (int i = 0; i < r->nevents; i++) {
        const rec_event_t *ev = &r->events[i];
        fprintf(f, "%s{\"ply\": %d, \"move\": %d, \"type\": \"%s\", \"detail\": ", i ? ", " : "", ev->ply,
                move_number(r, ev->ply), rec_event_type_name(ev->type));
        rec_json_write_string(f, ev->detail);
        putc('}', f);
    }
    fputs("]}\n", f);
    return ferror(f) ? REC_ERANGE : REC_OK;
}

/* The result in words: "gote wins by resignation after move 176". */
static void result_words(const rec_replay_t *r, char *buf, size_t size) {
    const rec_result_t *res = &r->result;
    const char *w = rec_winner_name(res->winner);
    const int n = move_number(r, res->ply); /* the game's number, as the KIF writer's */
    char usi[6];

    switch (res->reason) {
    case RUL_REASON_RESIGN:
        snprintf(buf, size, "%s wins by resignation after move %d (FESA 5.1)", w, n);
        break;
    case RUL_REASON_MATE: snprintf(buf, size, "%s wins by checkmate at move %d (FESA 5.1)", w, n); break;
    case RUL_REASON_SENNICHITE: snprintf(buf, size, "draw by sennichite at move %d (FESA 5.2)", n); break;
    case RUL_REASON_PERPETUAL_CHECK:
        snprintf(buf, size, "%s wins: perpetual check by %s at move %d (FESA 3.12)", w,
                 res->winner == REC_WINNER_SENTE ? "gote" : "sente", n);
        break;
    case RUL_REASON_IMPASSE:
        if (res->winner == REC_WINNER_NONE)
            snprintf(buf, size, "draw by impasse declaration after move %d", n);
        else
            snprintf(buf, size, "%s wins by impasse declaration after move %d (FESA 5.3)", w, n);
        break;
    case RUL_REASON_ILLEGAL_MOVE:
        rul_move_to_usi(r->illegal_move, usi);
        snprintf(buf, size, "%s wins: move %d (%s) by %s is illegal: %s (%s, claimed under FESA 9.4)", w, n,
                 usi, res->winner == REC_WINNER_SENTE ? "gote" : "sente", rul_why_name(r->illegal_why),
                 why_article(r->illegal_why));
        break;
    case RUL_REASON_NO_LEGAL_MOVE:
        snprintf(buf, size, "%s wins: %s has no legal move after move %d (FESA 1.2)", w,
                 res->winner == REC_WINNER_SENTE ? "gote" : "sente", n);
        break;
    case RUL_REASON_TIME: snprintf(buf, size, "%s wins on time after move %d", w, n); break;
    case RUL_REASON_ABORT: snprintf(buf, size, "game aborted after move %d", n); break;
    default:
        snprintf(buf, size, "no result: the record stops after move %d with %s to move", n,
                 color_name((rul_color_t)r->game.pos.side));
        break;
    }
}

int rec_replay_write_text(const rec_replay_t *r, FILE *f) {
    char words[192];
    if (!r || !f)
        return REC_ERANGE;
    result_words(r, words, sizeof words);
    fprintf(f, "start:  %s\n", r->start_sfen);
    fprintf(f, "moves:  %d\n", r->moves);
    fprintf(f, "result: %s\n", words);
    fprintf(f, "final:  %s\n", r->final_sfen);
    fprintf(f, "events: %d\n", r->nevents);
    for (int i = 0; i < r->nevents; i++)
        fprintf(f, "  move %4d  %-16s %s\n", move_number(r, r->events[i].ply),
                rec_event_type_name(r->events[i].type), r->events[i].detail);
    return ferror(f) ? REC_ERANGE : REC_OK;
}
