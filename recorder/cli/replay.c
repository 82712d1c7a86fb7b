/* replay.c - the replay command: a record in any format replayed to its result, with the shared record
 * readers of the commands. */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <libgen.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture/capture.h"
#include "recorder/kifu/kifu.h"
#include "recorder/record/record.h"
#include "recorder/kifu/replay.h"
#include "rules/rules.h"
#include "vision/vision.h"

#include "recorder/cli/cli.h"

/* ---------------------------------------------------------------- replay */

void replay_help(void) {
    printf(
        "usage: kifucam replay FILE|- [--json] [--rule 27|24|count]\n"
        "\n"
        "Replays a game record (FILE, or standard input for '-'): KIF, KI2, CSA, JKF or Western,\n"
        "found from the content (Shift_JIS, EUC-JP or UTF-8), or one USI line:\n"
        "    position startpos|sfen BOARD SIDE HANDS [PLY] [moves M1 M2 ... [resign|win]]\n"
        "In a USI file blank lines and lines starting with '#' are skipped. A final 'resign' means the side "
        "to move\n"
        "resigned; 'win' is an impasse declaration by the side to move, judged by --rule (default 27).\n"
        "Prints the result (who won and why, at which move), the final SFEN, and the events: checks,\n"
        "repetitions (sennichite FESA 5.2, perpetual check 3.12), mate (5.1), no legal move (1.2), and an\n"
        "illegal move (nifu, pawn_drop_mate, leaves_king_in_check, no_further_move, not_a_legal_move),\n"
        "which ends the replay: the mover loses (FESA 9.4) and the exit status is 1.\n"
        "\n"
        "  --json          print one JSON object: {\"moves\": N, \"final_sfen\": ..., \"result\": "
        "{\"winner\": ...,\n"
        "                  \"reason\": ..., \"ply\": N}, \"events\": [{\"ply\": N, \"type\": ..., "
        "\"detail\": ...}]}\n"
        "  --rule RULE     impasse rule for a 'win' token: 27 (FESA 5.3), 24 or count\n"
        "\n"
        "example: kifucam replay samples/sample-game.usi --json\n");
}

/* Reads all of path ("-": stdin) into a NUL-terminated heap buffer with the kifu library's one reader
 * (rec_kifu_slurp: REC_KIFU_MAX_INPUT bytes at most, directories refused). Returns 0, EXIT_USER or
 * EXIT_INTERNAL (after printing the error). Caller frees *out. */
int cli_read_input(const char *cmd, const char *path, char **out, size_t *len) {
    rec_kifu_error_t e;
    int r = rec_kifu_slurp(path, out, len, &e);
    if (r == REC_KIFU_ENOMEM)
        return cli_internal_error(cmd, "out of memory");
    if (r != REC_KIFU_OK)
        return cli_user_error(cmd, "%s: %s", path, e.msg);
    return 0;
}

/* 1 if s[0..len-1] is well-formed UTF-8 (binary files and Shift_JIS kifu are not). */
static int valid_utf8(const char *s, size_t len) {
    const unsigned char *p = (const unsigned char *)s, *end = p + len;
    while (p < end) {
        int n = *p < 0x80             ? 0
                : (*p & 0xE0) == 0xC0 ? 1
                : (*p & 0xF0) == 0xE0 ? 2
                : (*p & 0xF8) == 0xF0 ? 3
                                      : -1;
        if (n < 0 || (n == 1 && *p < 0xC2) || end - p <= n)
            return 0;
        for (int k = 1; k <= n; k++)
            if ((p[k] & 0xC0) != 0x80)
                return 0;
        p += n + 1;
    }
    return 1;
}

#define MAX_WARNINGS_SHOWN 10 /* a file of another format gives a warning a line: the rest are counted */

/* Prints a record's warnings, one line each (before any error, so that none is lost), the first
 * MAX_WARNINGS_SHOWN of them and then how many more there are. */
void cli_print_warnings(const char *cmd, const char *path, const rec_kifu_t *k) {
    if (k->nwarnings > MAX_WARNINGS_SHOWN)
        fprintf(stderr,
                "kifucam %s: warning: %s: %d warnings, the first %d shown (is the file in the format "
                "it was read as?)\n",
                cmd, path, k->nwarnings, MAX_WARNINGS_SHOWN);
    for (int i = 0; i < k->nwarnings && i < MAX_WARNINGS_SHOWN; i++) {
        if (k->warnings[i].line > 0)
            fprintf(stderr, "kifucam %s: warning: %s: line %d: %s\n", cmd, path, k->warnings[i].line,
                    k->warnings[i].msg);
        else
            fprintf(stderr, "kifucam %s: warning: %s: %s\n", cmd, path, k->warnings[i].msg);
    }
}

/* A reader's error: one line with the path, and the line and column when known. */
int cli_read_error(const char *cmd, const char *path, const rec_kifu_error_t *e) {
    if (e->line > 0)
        return cli_user_error(cmd, "%s: line %d, column %d: %s", path, e->line, e->column, e->msg);
    return cli_user_error(cmd, "%s: %s", path, e->msg);
}

/* Reads a record in any kifu format (recorder/kifu.h), printing its warnings. Returns 0, EXIT_USER or
 * EXIT_INTERNAL (printed). */
static int read_record(const char *cmd, const char *path, const char *text, size_t len, rec_kifu_t **out) {
    rec_kifu_error_t e;
    rec_kifu_t *part = NULL;
    int r = rec_kifu_read_keep(text, len, REC_FMT_UNKNOWN, out, &e, &part);
    if (r == REC_KIFU_ENOMEM)
        return cli_internal_error(cmd, "out of memory");
    if (r == REC_KIFU_OK || part)
        cli_print_warnings(cmd, path, r == REC_KIFU_OK ? *out : part);
    rec_kifu_free(part);
    if (r != REC_KIFU_OK)
        return cli_read_error(cmd, path, &e);
    return 0;
}

/* The record's own ending next to the replay (for `replay` of a kifu file), as text. */
static void print_record_text(const rec_kifu_t *k, const rec_replay_record_t *kr, FILE *f) {
    const int off = rec_kifu_start_number(k) - 1; /* moves are named by the record's own numbers (KIF's) */
    fprintf(f, "format:          %s\n", rec_kifu_format_name(k->format));
    for (int i = 0; i < k->nheaders; i++)
        fprintf(f, "header:          %s: %s\n", k->headers[i].key, k->headers[i].value);
    if (k->result.end == REC_END_NONE)
        fprintf(f, "record ends:     none: no ending written, the record just stops after move %d%s%s\n",
                k->lines[0].start_ply + k->lines[0].nmoves - 1 + off, kr->claim_ok ? "" : "; ",
                kr->claim_ok ? "" : kr->claim_msg);
    else
        fprintf(f, "record ends:     %s%s%s at move %d%s%s\n", rec_kifu_end_name(k->result.end),
                k->result.word[0] ? " " : "", k->result.word, k->result.ply + off, kr->claim_ok ? "" : "; ",
                kr->claim_ok ? "" : kr->claim_msg);
    if (kr->illegal_ply)
        fprintf(f, "illegal move:    %d %s: %s\n", kr->illegal_ply + off, kr->illegal_usi,
                rul_why_name(kr->illegal_why));
}

/* The record's own ending next to the replay, as the JSON fields written before the replay object's
 * closing brace. */
static void print_record_json(const rec_kifu_t *k, const rec_replay_t *rep, FILE *f) {
    const rec_replay_record_t *kr = &rep->record;
    const int off = rec_kifu_start_number(k) - 1;
    fprintf(f, ", \"format\": \"%s\", \"headers\": {", rec_kifu_format_name(k->format));
    for (int i = 0; i < k->nheaders; i++) {
        fprintf(f, "%s", i ? ", " : "");
        rec_json_write_string(f, k->headers[i].key);
        fprintf(f, ": ");
        rec_json_write_string(f, k->headers[i].value);
    }
    fprintf(f, "}, \"record_result\": {\"end\": \"%s\", \"word\": ", rec_kifu_end_name(k->result.end));
    rec_json_write_string(f, k->result.word);
    fprintf(f, ", \"ply\": %d, \"move\": %d, \"winner\": \"%s\", \"agrees\": %s, \"detail\": ", k->result.ply,
            k->result.ply ? k->result.ply + off : 0,
            k->result.winner == 0   ? "sente"
            : k->result.winner == 1 ? "gote"
                                    : "none",
            kr->claim_ok && (k->result.winner < 0 || rep->result.winner == REC_WINNER_NONE ||
                             (int)rep->result.winner == k->result.winner)
                ? "true"
                : "false");
    rec_json_write_string(f, kr->claim_msg);
    if (kr->illegal_ply)
        fprintf(f, ", \"illegal_move\": {\"ply\": %d, \"number\": %d, \"move\": \"%s\", \"reason\": \"%s\"}",
                kr->illegal_ply, kr->illegal_ply + off, kr->illegal_usi, rul_why_name(kr->illegal_why));
    else
        fprintf(f, ", \"illegal_move\": null");
    fprintf(f, "}, \"warnings\": [");
    for (int i = 0; i < k->nwarnings; i++) {
        fprintf(f, "%s{\"line\": %d, \"message\": ", i ? ", " : "", k->warnings[i].line);
        rec_json_write_string(f, k->warnings[i].msg);
        fprintf(f, "}");
    }
    fprintf(f, "]");
}

/* Parses replay's arguments. Returns 0, or EXIT_USER (printed). */
static int parse_args(const char *cmd, int argc, char **argv, const char **path, int *json,
                      rec_replay_params_t *params) {
    const char *val;
    int r;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0) {
            for (i++; i < argc; i++) {
                if (*path)
                    return cli_user_error(cmd, "unexpected argument '%s' (one FILE only)", argv[i]);
                *path = argv[i];
            }
            break;
        }
        if (!cli_is_option(a)) {
            if (*path)
                return cli_user_error(cmd, "unexpected argument '%s' (one FILE only)", a);
            *path = a;
        } else if ((r = cli_opt_flag(cmd, argv, i, "--json")) != 0) {
            if (r < 0)
                return EXIT_USER;
            *json = 1;
        } else if ((r = cli_opt_value(cmd, argc, argv, &i, "--rule", &val)) != 0) {
            if (r < 0 || cli_parse_rule(cmd, val, &params->impasse_rule) != 0)
                return EXIT_USER;
        } else {
            return cli_user_error(cmd, "unknown option '%s' (see kifucam replay --help)", a);
        }
    }
    if (!*path)
        return cli_user_error(cmd,
                              "missing FILE (usage: kifucam replay FILE|- [--json] [--rule 27|24|count])");
    return 0;
}

/* Finds the one USI game line of text (in place: the line is NUL-terminated): a UTF-8 BOM, blank lines
 * and '#' comments are skipped. *found_line gets its 1-based number. Returns 0 or EXIT_USER (printed). */
static int find_usi_line(const char *cmd, const char *path, char *text, size_t len, char **line,
                         int *found_line) {
    int lineno = 0;
    char *p = text;
    if (len == 0)
        return cli_user_error(cmd, "%s: empty file: no game record", path);
    if (len >= 2 && (((unsigned char)text[0] == 0xFF && (unsigned char)text[1] == 0xFE) ||
                     ((unsigned char)text[0] == 0xFE && (unsigned char)text[1] == 0xFF)))
        return cli_user_error(
            cmd, "%s: UTF-16 text; kifucam reads game records in UTF-8, Shift_JIS or EUC-JP", path);
    if (memchr(text, '\0', len))
        return cli_user_error(
            cmd, "%s: a binary file (NUL bytes), not a game record (KIF, KI2, CSA, JKF, Western, USI)", path);
    if (!valid_utf8(text, len))
        return cli_user_error(cmd,
                              "%s: not a game record (KIF, KI2, CSA, JKF, Western or a USI line) in UTF-8, "
                              "Shift_JIS or EUC-JP",
                              path);
    if ((unsigned char)p[0] == 0xEF && (unsigned char)p[1] == 0xBB && (unsigned char)p[2] == 0xBF)
        p += 3;
    while (*p) {
        char *nl = strchr(p, '\n'), *s = p;
        int n = ++lineno;
        if (nl)
            *nl = '\0';
        while (*s == ' ' || *s == '\t' || *s == '\r')
            s++;
        if (*s && *s != '#') {
            if (*line)
                return cli_user_error(
                    cmd, "%s: line %d: a second game line (line %d was the first); one game per file", path,
                    n, *found_line);
            if (strncmp(s, "position", 8) != 0 && strncmp(s, "startpos", 8) != 0 &&
                strncmp(s, "sfen", 4) != 0)
                return cli_user_error(
                    cmd,
                    "%s: line %d: not a game record (KIF, KI2, CSA, JKF, Western) nor a USI "
                    "game line ('position startpos' or 'position sfen ...')",
                    path, n);
            *line = p;
            *found_line = n;
        }
        if (!nl)
            break;
        p = nl + 1;
    }
    if (!*line)
        return cli_user_error(
            cmd,
            "%s: no game record (KIF, KI2, CSA, JKF, Western or a USI 'position' line), only "
            "blank lines and comments",
            path);
    return 0;
}

/* Prints the replay (and the record's own ending for a kifu file) as text or JSON. REC_OK or an error
 * of the writes. */
static int print_replay(const rec_kifu_t *kifu, const rec_replay_t *rep, int json) {
    int r;
    if (kifu && json) {
        /* the replay's JSON object, then the record's fields before its closing brace */
        char *buf = NULL;
        size_t blen = 0;
        FILE *mf = open_memstream(&buf, &blen);
        r = mf ? rec_replay_write_json(rep, mf) : REC_ENOMEM;
        if (mf)
            fclose(mf);
        if (r == REC_OK && buf) {
            while (blen && (buf[blen - 1] == '\n' || buf[blen - 1] == '}'))
                if (buf[--blen] == '}')
                    break;
            fwrite(buf, 1, blen, stdout);
            print_record_json(kifu, rep, stdout);
            fputs("}\n", stdout);
        }
        free(buf);
        return r;
    }
    r = json ? rec_replay_write_json(rep, stdout) : rec_replay_write_text(rep, stdout);
    if (kifu && r == REC_OK)
        print_record_text(kifu, &rep->record, stdout);
    return r;
}

/* The exit status of a replay: EXIT_USER (printed) for an illegal move, in the replay or further on in
 * the record (a move written after a mate), else 0. */
static int illegal_status(const char *cmd, const char *path, const rec_kifu_t *kifu,
                          const rec_replay_t *rep) {
    int rc = 0;
    if (kifu && rep->result.reason != RUL_REASON_ILLEGAL_MOVE && rep->record.illegal_ply)
        rc = cli_user_error(cmd, "%s: move %d (%s) is illegal: %s", path,
                            rep->record.illegal_ply + rec_kifu_start_number(kifu) - 1,
                            rep->record.illegal_usi, rul_why_name(rep->record.illegal_why));
    if (rep->result.reason == RUL_REASON_ILLEGAL_MOVE) {
        char m[6];
        rul_move_to_usi(rep->illegal_move, m);
        rc = cli_user_error(cmd, "%s: move %d (%s) is illegal: %s; %s wins", path,
                            rep->result.ply + rep->first_move - 1, m, rul_why_name(rep->illegal_why),
                            rec_winner_name(rep->result.winner));
    }
    return rc;
}

int cmd_replay(int argc, char **argv) {
    const char *cmd = "replay", *path = NULL;
    rec_replay_params_t params;
    rec_replay_t *rep = NULL;
    rec_error_t err;
    char *text = NULL, *line = NULL;
    size_t len = 0;
    int json = 0, rc, r, found_line = 1;
    rec_kifu_t *kifu = NULL;
    rec_format_t fmt;

    rec_replay_params_default(&params);
    if ((rc = parse_args(cmd, argc, argv, &path, &json, &params)) != 0 ||
        (rc = cli_read_input(cmd, path, &text, &len)) != 0)
        goto out;
    fmt = rec_kifu_detect(text, len); /* KIF, KI2, CSA, JKF, Western: through the kifu reader */
    if (fmt != REC_FMT_USI && fmt != REC_FMT_UNKNOWN)
        rc = read_record(cmd, path, text, len, &kifu);
    else
        rc = find_usi_line(cmd, path, text, len, &line, &found_line);
    if (rc)
        goto out;
    if (rec_replay_create(&rep) != REC_OK) {
        rc = cli_internal_error(cmd, "out of memory");
        goto out;
    }
    r = kifu ? rec_replay_kifu(rep, kifu, &params, &err) : rec_replay_usi(rep, line, &params, &err);
    if (r == REC_ENOMEM || r == REC_ERANGE) {
        rc = cli_internal_error(cmd, "%s: %s", path, err.msg);
        goto out;
    }
    if (r != REC_OK) {
        if (kifu && r == REC_EFULL && err.column == 0) /* a record longer than the rules engine replays */
            rc = cli_user_error(cmd, "%s: %s", path, err.msg);
        else if (err.column > 0)
            rc = cli_user_error(cmd, "%s: line %d, %s", path, found_line, err.msg);
        else
            rc = cli_user_error(cmd, "%s: line %d: %s", path, found_line, err.msg);
        goto out;
    }
    if (print_replay(kifu, rep, json) != REC_OK || fflush(stdout) != 0) {
        rc = cli_internal_error(cmd, "cannot write the result: %s", strerror(errno));
        goto out;
    }
    rc = illegal_status(cmd, path, kifu, rep);
out:
    rec_replay_destroy(rep);
    rec_kifu_free(kifu);
    free(text);
    return rc;
}
