/* main.c - the kifucam program: reads the command line and runs one subcommand (replay, moves, perft,
 * impasse). Owns the process exit status: 0 ok, 1 user error (one line on stderr), 2 internal failure. */
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
#include "recorder/kifu.h"
#include "recorder/record.h"
#include "recorder/recorder.h"
#include "rules/rules.h"
#include "vision/vision.h"

#ifndef KIFUCAM_VERSION
#define KIFUCAM_VERSION "0.1.0" /* the program's version (kifucam --version) */
#endif
#define EXIT_USER 1
#define EXIT_INTERNAL 2

/* ---------------------------------------------------------------- messages */

/* A user's error (bad input: exit 1): "kifucam CMD: message" without library function names. */
static int user_error(const char *cmd, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    rec_vsay(cmd, 1, fmt, ap);
    va_end(ap);
    return EXIT_USER;
}

static int internal_error(const char *cmd, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    rec_vsay(cmd, 0, fmt, ap);
    va_end(ap);
    return EXIT_INTERNAL;
}

/* ---------------------------------------------------------------- arguments */

static int is_help(const char *a) { return strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0; }

/* 1 if some argument before "--" asks for help. */
static int wants_help(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0)
            return 0;
        if (is_help(argv[i]))
            return 1;
    }
    return 0;
}

/* An option: "-x" or "--name" (a lone "-" is stdin, "-5" a negative number: both are operands). */
static int is_option(const char *a) { return a[0] == '-' && a[1] && !(a[1] >= '0' && a[1] <= '9'); }

static int parse_rule(const char *cmd, const char *s, rul_impasse_rule_t *rule) {
    if (strcmp(s, "27") == 0)
        *rule = RUL_IMPASSE_27;
    else if (strcmp(s, "24") == 0)
        *rule = RUL_IMPASSE_24;
    else if (strcmp(s, "count") == 0)
        *rule = RUL_IMPASSE_COUNT;
    else
        return user_error(cmd, "--rule must be 27, 24 or count (got '%s')", s);
    return 0;
}

/* Parses an SFEN (or "startpos") and checks the position could arise (FESA 9.4); flags as for
 * rul_pos_validate. Prints the error and returns EXIT_USER on failure. */
static int load_sfen(const char *cmd, const char *sfen, int flags, rul_pos_t *pos) {
    rul_error_t err;
    rul_invalid_t why;
    memset(&err, 0, sizeof err);
    if (rul_pos_from_sfen(pos, sfen, &err) != RUL_OK)
        return user_error(cmd, "bad SFEN '%.100s': %s", sfen, err.msg[0] ? err.msg : "malformed");
    memset(&err, 0, sizeof err);
    why = rul_pos_validate(pos, flags, &err);
    if (why != RUL_VALID)
        return user_error(cmd, "illegal position: %s%s%s", rul_invalid_name(why), err.msg[0] ? ": " : "",
                          err.msg);
    return 0;
}

/* Legal moves of pos with their USI strings, sorted by the string. */
typedef struct {
    char usi[6];
    rul_move_t move;
} usi_move_t;

typedef struct {
    usi_move_t m[RUL_MAX_MOVES];
    int count;
} sorted_moves_t;

static int cmp_usi(const void *a, const void *b) {
    return strcmp(((const usi_move_t *)a)->usi, ((const usi_move_t *)b)->usi);
}

static void sorted_legal(const rul_pos_t *pos, sorted_moves_t *out) {
    rul_movelist_t list;
    rul_gen_legal(pos, &list);
    out->count = list.count;
    for (int i = 0; i < list.count; i++) {
        out->m[i].move = list.moves[i];
        rul_move_to_usi(list.moves[i], out->m[i].usi);
    }
    qsort(out->m, (size_t)out->count, sizeof out->m[0], cmp_usi);
}

/* ---------------------------------------------------------------- perft */

static void perft_help(void) {
    printf("usage: kifucam perft [--sfen SFEN] [--divide] DEPTH\n"
           "\n"
           "Counts the leaf nodes of the legal-move tree to DEPTH (1..%d) from the start position or SFEN,\n"
           "the standard check of move generation (every legal move, promotions and non-promotions, drops;\n"
           "no pawn-drop mate). The node count is printed alone on the last line.\n"
           "\n"
           "  --sfen SFEN   position to start from (quote it: \"BOARD SIDE HANDS PLY\"); default startpos\n"
           "  --divide      first print each legal root move with its node count, sorted\n"
           "\n"
           "example: kifucam perft 4            -> 719731\n"
           "         kifucam perft --sfen \"8k/9/7+R1/9/9/9/9/9/9 b P 1\" 1   -> 90\n",
           RUL_PERFT_MAX_DEPTH);
}

static int cmd_perft(int argc, char **argv) {
    const char *cmd = "perft", *sfen = NULL, *depth_arg = NULL, *val;
    int divide = 0, depth, r;
    rul_pos_t pos;
    char *end;
    long d;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0) {
            for (i++; i < argc; i++) {
                if (depth_arg)
                    return user_error(cmd, "unexpected argument '%s' (one DEPTH only)", argv[i]);
                depth_arg = argv[i];
            }
            break;
        }
        if (!is_option(a)) {
            if (depth_arg)
                return user_error(cmd, "unexpected argument '%s' (one DEPTH only; quote the SFEN)", a);
            depth_arg = a;
        } else if ((r = rec_opt_value(cmd, argc, argv, &i, "--sfen", &val)) != 0) {
            if (r < 0)
                return EXIT_USER;
            sfen = val;
        } else if (strcmp(a, "--divide") == 0) {
            divide = 1;
        } else {
            return user_error(cmd, "unknown option '%s' (see kifucam perft --help)", a);
        }
    }
    if (!depth_arg)
        return user_error(cmd, "missing DEPTH (usage: kifucam perft [--sfen SFEN] [--divide] DEPTH)");
    errno = 0;
    d = strtol(depth_arg, &end, 10);
    if (errno || end == depth_arg || *end || d < 1 || d > RUL_PERFT_MAX_DEPTH)
        return user_error(cmd, "depth must be between 1 and %d (got '%s')", RUL_PERFT_MAX_DEPTH, depth_arg);
    depth = (int)d;
    r = load_sfen(cmd, sfen ? sfen : "startpos", 0, &pos);
    if (r)
        return r;

    if (divide) {
        sorted_moves_t *ms = malloc(sizeof *ms);
        uint64_t total = 0;
        if (!ms)
            return internal_error(cmd, "out of memory");
        sorted_legal(&pos, ms);
        for (int i = 0; i < ms->count; i++) {
            rul_undo_t undo;
            uint64_t n = 1;
            rul_pos_do_move(&pos, ms->m[i].move, &undo);
            if (depth > 1)
                n = rul_perft(&pos, depth - 1);
            rul_pos_undo_move(&pos, &undo);
            printf("%s: %llu\n", ms->m[i].usi, (unsigned long long)n);
            total += n;
        }
        free(ms);
        printf("%llu\n", (unsigned long long)total);
    } else {
        printf("%llu\n", (unsigned long long)rul_perft(&pos, depth));
    }
    return 0;
}

/* ---------------------------------------------------------------- moves */

static void moves_help(void) {
    printf("usage: kifucam moves [--sfen SFEN | --usi \"position ...\"]\n"
           "\n"
           "Prints every legal move of the side to move, one USI move a line (7g7f, P*5e, 8h2b+), sorted;\n"
           "nothing when there is none. Promotions and non-promotions are both listed where both are legal;\n"
           "nifu, dead-square drops and pawn-drop mate are excluded (FESA 1.2, 3.2, 3.11).\n"
           "\n"
           "  --sfen SFEN               the position (quoted); default: the start position\n"
           "  --usi \"position ...\"      a USI position line; its moves are played first\n"
           "\n"
           "example: kifucam moves --usi \"position startpos moves 7g7f 3c3d\"\n");
}

static int cmd_moves(int argc, char **argv) {
    const char *cmd = "moves", *sfen = NULL, *usi = NULL, *val;
    rec_replay_t *rep = NULL;
    sorted_moves_t *ms = NULL;
    rul_pos_t pos;
    int rc = 0, r;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!is_option(a)) {
            rc = user_error(cmd, "unexpected argument '%s' (use --sfen \"SFEN\" or --usi \"position ...\")",
                            a);
            goto out;
        } else if ((r = rec_opt_value(cmd, argc, argv, &i, "--sfen", &val)) != 0) {
            if (r < 0) {
                rc = EXIT_USER;
                goto out;
            }
            sfen = val;
        } else if ((r = rec_opt_value(cmd, argc, argv, &i, "--usi", &val)) != 0) {
            if (r < 0) {
                rc = EXIT_USER;
                goto out;
            }
            usi = val;
        } else {
            rc = user_error(cmd, "unknown option '%s' (see kifucam moves --help)", a);
            goto out;
        }
    }
    if (sfen && usi) {
        rc = user_error(cmd, "give --sfen or --usi, not both");
        goto out;
    }
    if (usi) {
        rec_replay_params_t params;
        rec_error_t err;
        rec_replay_params_default(&params);
        params.validate_flags = 0; /* problems (one king) are welcome here */
        if (rec_replay_create(&rep) != REC_OK) {
            rc = internal_error(cmd, "out of memory");
            goto out;
        }
        r = rec_replay_usi(rep, usi, &params, &err);
        if (r == REC_ENOMEM || r == REC_ERANGE) {
            rc = internal_error(cmd, "%s", err.msg);
            goto out;
        }
        if (r != REC_OK) {
            rc = user_error(cmd, "--usi: %s", err.msg);
            goto out;
        }
        if (rep->result.reason == REC_REASON_ILLEGAL_MOVE) {
            char m[6];
            rul_move_to_usi(rep->illegal_move, m);
            rc = user_error(cmd, "--usi: move %d (%s) is illegal: %s", rep->result.ply + rep->first_move - 1, m,
                            rul_why_name(rep->illegal_why));
            goto out;
        }
        if (rep->moves < rep->moves_written) {
            rc = user_error(cmd, "--usi: the game ended at move %d (%s); %d later move(s) not played",
                            rep->result.ply + rep->first_move - 1, rec_reason_name(rep->result.reason),
                            rep->moves_written - rep->moves);
            goto out;
        }
        if (rep->result.reason != REC_REASON_NONE) { /* resign, win, mate, sennichite...: no next move */
            rc = user_error(cmd, "--usi: the game is over after move %d (%s): no move is to be made",
                            rep->result.ply + rep->first_move - 1, rec_reason_name(rep->result.reason));
            goto out;
        }
        pos = rep->game.pos;
    } else {
        rc = load_sfen(cmd, sfen ? sfen : "startpos", 0, &pos);
        if (rc)
            goto out;
    }
    ms = malloc(sizeof *ms);
    if (!ms) {
        rc = internal_error(cmd, "out of memory");
        goto out;
    }
    sorted_legal(&pos, ms);
    for (int i = 0; i < ms->count; i++)
        puts(ms->m[i].usi);
out:
    free(ms);
    rec_replay_destroy(rep);
    return rc;
}

/* ---------------------------------------------------------------- replay */

static void replay_help(void) {
    printf(
        "usage: kifucam replay FILE|- [--json] [--rule 27|24|count]\n"
        "\n"
        "Replays a game record (FILE, or standard input for '-'): KIF, KI2, CSA, JKF or Western,\n"
        "found from the content (Shift_JIS, EUC-JP or UTF-8), or one USI line:\n"
        "    position startpos|sfen BOARD SIDE HANDS [PLY] [moves M1 M2 ... [resign|win]]\n"
        "In a USI file blank lines and lines starting with '#' are skipped. A final 'resign' means the side to move\n"
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
static int read_input(const char *cmd, const char *path, char **out, size_t *len) {
    rec_kifu_error_t e;
    int r = rec_kifu_slurp(path, out, len, &e);
    if (r == REC_KIFU_ENOMEM)
        return internal_error(cmd, "out of memory");
    if (r != REC_KIFU_OK)
        return user_error(cmd, "%s: %s", path, e.msg);
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
static void print_warnings(const char *cmd, const char *path, const rec_kifu_t *k) {
    if (k->nwarnings > MAX_WARNINGS_SHOWN)
        fprintf(stderr, "kifucam %s: warning: %s: %d warnings, the first %d shown (is the file in the format "
                        "it was read as?)\n", cmd, path, k->nwarnings, MAX_WARNINGS_SHOWN);
    for (int i = 0; i < k->nwarnings && i < MAX_WARNINGS_SHOWN; i++) {
        if (k->warnings[i].line > 0)
            fprintf(stderr, "kifucam %s: warning: %s: line %d: %s\n", cmd, path, k->warnings[i].line,
                    k->warnings[i].msg);
        else
            fprintf(stderr, "kifucam %s: warning: %s: %s\n", cmd, path, k->warnings[i].msg);
    }
}

/* A reader's error: one line with the path, and the line and column when known. */
static int read_error(const char *cmd, const char *path, const rec_kifu_error_t *e) {
    if (e->line > 0)
        return user_error(cmd, "%s: line %d, column %d: %s", path, e->line, e->column, e->msg);
    return user_error(cmd, "%s: %s", path, e->msg);
}

/* A record in any kifu format (recorder/kifu.h) as the USI line rec_replay_usi takes: the main line,
 * with "resign" / "win" when the record ends so. Returns 0, EXIT_USER or EXIT_INTERNAL (printed). */
static int record_to_usi(const char *cmd, const char *path, const char *text, size_t len, rec_kifu_t **out,
                         char **line) {
    rec_kifu_error_t e;
    rec_kifu_t *part = NULL;
    size_t n;
    int r = rec_kifu_read_keep(text, len, REC_FMT_UNKNOWN, out, &e, &part);
    if (r == REC_KIFU_ENOMEM)
        return internal_error(cmd, "out of memory");
    if (r == REC_KIFU_OK || part)
        print_warnings(cmd, path, r == REC_KIFU_OK ? *out : part);
    rec_kifu_free(part);
    if (r != REC_KIFU_OK)
        return read_error(cmd, path, &e);
    if ((*out)->lines[0].nmoves > RUL_GAME_MAX_PLY)
        return user_error(cmd, "%s: more than %d moves (%d): longer than any game the rules engine replays", path,
                          RUL_GAME_MAX_PLY, (*out)->lines[0].nmoves);
    /* the USI writer ends the line with "resign" / "win" when the record ends so */
    if (rec_kifu_write(*out, REC_FMT_USI, line, &n, &e) != REC_KIFU_OK)
        return internal_error(cmd, "%s: %s", path, e.msg);
    return 0;
}

/* The record's own ending next to the replay (for `replay` of a kifu file). */
static void print_record(const rec_kifu_t *k, const rec_replay_t *rep, int json, FILE *f) {
    rec_kifu_replay_t kr;
    const int off = rec_kifu_start_number(k) - 1; /* moves are named by the record's own numbers (KIF's) */
    rec_kifu_replay(k, &kr);
    if (!json) {
        fprintf(f, "format:          %s\n", rec_kifu_format_name(k->format));
        for (int i = 0; i < k->nheaders; i++)
            fprintf(f, "header:          %s: %s\n", k->headers[i].key, k->headers[i].value);
        if (k->result.end == REC_END_NONE)
            fprintf(f, "record ends:     none: no ending written, the record just stops after move %d%s%s\n",
                    k->lines[0].start_ply + k->lines[0].nmoves - 1 + off, kr.claim_ok ? "" : "; ",
                    kr.claim_ok ? "" : kr.claim_msg);
        else
            fprintf(f, "record ends:     %s%s%s at move %d%s%s\n", rec_kifu_end_name(k->result.end),
                    k->result.word[0] ? " " : "", k->result.word, k->result.ply + off, kr.claim_ok ? "" : "; ",
                    kr.claim_ok ? "" : kr.claim_msg);
        if (kr.illegal_ply)
            fprintf(f, "illegal move:    %d %s: %s\n", kr.illegal_ply + off, kr.illegal_usi,
                    rul_why_name(kr.illegal_why));
        return;
    }
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
            k->result.winner == 0 ? "sente" : k->result.winner == 1 ? "gote" : "none",
            kr.claim_ok && (k->result.winner < 0 || rep->result.winner == REC_WINNER_NONE ||
                            (int)rep->result.winner == k->result.winner)
                ? "true"
                : "false");
    rec_json_write_string(f, kr.claim_msg);
    if (kr.illegal_ply)
        fprintf(f, ", \"illegal_move\": {\"ply\": %d, \"number\": %d, \"move\": \"%s\", \"reason\": \"%s\"}",
                kr.illegal_ply, kr.illegal_ply + off, kr.illegal_usi, rul_why_name(kr.illegal_why));
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

static int cmd_replay(int argc, char **argv) {
    const char *cmd = "replay", *path = NULL, *val;
    rec_replay_params_t params;
    rec_replay_t *rep = NULL;
    rec_error_t err;
    char *text = NULL, *line = NULL, *p, *usi = NULL;
    size_t len = 0;
    int json = 0, rc = 0, r, lineno = 0, found_line = 0;
    rec_kifu_t *kifu = NULL;
    rec_format_t fmt;

    rec_replay_params_default(&params);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0) {
            for (i++; i < argc; i++) {
                if (path) {
                    rc = user_error(cmd, "unexpected argument '%s' (one FILE only)", argv[i]);
                    goto out;
                }
                path = argv[i];
            }
            break;
        }
        if (!is_option(a)) {
            if (path) {
                rc = user_error(cmd, "unexpected argument '%s' (one FILE only)", a);
                goto out;
            }
            path = a;
        } else if (strcmp(a, "--json") == 0) {
            json = 1;
        } else if ((r = rec_opt_value(cmd, argc, argv, &i, "--rule", &val)) != 0) {
            if (r < 0 || (rc = parse_rule(cmd, val, &params.impasse_rule)) != 0) {
                rc = EXIT_USER;
                goto out;
            }
        } else {
            rc = user_error(cmd, "unknown option '%s' (see kifucam replay --help)", a);
            goto out;
        }
    }
    if (!path) {
        rc = user_error(cmd, "missing FILE (usage: kifucam replay FILE|- [--json] [--rule 27|24|count])");
        goto out;
    }
    rc = read_input(cmd, path, &text, &len);
    if (rc)
        goto out;
    fmt = rec_kifu_detect(text, len); /* KIF, KI2, CSA, JKF, Western: through the kifu reader */
    if (fmt != REC_FMT_USI && fmt != REC_FMT_UNKNOWN) {
        if ((rc = record_to_usi(cmd, path, text, len, &kifu, &usi)) != 0)
            goto out;
        line = usi;
        found_line = 1;
        goto have_line;
    }
    if (len == 0) {
        rc = user_error(cmd, "%s: empty file: no game record", path);
        goto out;
    }
    if (len >= 2 && (((unsigned char)text[0] == 0xFF && (unsigned char)text[1] == 0xFE) ||
                     ((unsigned char)text[0] == 0xFE && (unsigned char)text[1] == 0xFF))) {
        rc = user_error(cmd, "%s: UTF-16 text; kifucam reads game records in UTF-8, Shift_JIS or EUC-JP", path);
        goto out;
    }
    if (memchr(text, '\0', len)) {
        rc = user_error(cmd, "%s: a binary file (NUL bytes), not a game record (KIF, KI2, CSA, JKF, Western, USI)",
                        path);
        goto out;
    }
    if (!valid_utf8(text, len)) {
        rc = user_error(cmd, "%s: not a game record (KIF, KI2, CSA, JKF, Western or a USI line) in UTF-8, "
                        "Shift_JIS or EUC-JP", path);
        goto out;
    }
    /* Find the one game line: skip a UTF-8 BOM, blank lines and '#' comments. */
    p = text;
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
            if (line) {
                rc = user_error(cmd,
                                "%s: line %d: a second game line (line %d was the first); one game per file",
                                path, n, found_line);
                goto out;
            }
            if (strncmp(s, "position", 8) != 0 && strncmp(s, "startpos", 8) != 0 &&
                strncmp(s, "sfen", 4) != 0) {
                rc = user_error(cmd,
                                "%s: line %d: not a game record (KIF, KI2, CSA, JKF, Western) nor a USI game line "
                                "('position startpos' or 'position sfen ...')",
                                path, n);
                goto out;
            }
            line = p;
            found_line = n;
        }
        if (!nl)
            break;
        p = nl + 1;
    }
    if (!line) {
        rc = user_error(cmd, "%s: no game record (KIF, KI2, CSA, JKF, Western or a USI 'position' line), only "
                        "blank lines and comments", path);
        goto out;
    }
have_line:
    if (rec_replay_create(&rep) != REC_OK) {
        rc = internal_error(cmd, "out of memory");
        goto out;
    }
    r = rec_replay_usi(rep, line, &params, &err);
    if (r == REC_ENOMEM || r == REC_ERANGE) {
        rc = internal_error(cmd, "%s: %s", path, err.msg);
        goto out;
    }
    if (r != REC_OK) {
        if (err.column > 0)
            rc = user_error(cmd, "%s: line %d, %s", path, found_line, err.msg);
        else
            rc = user_error(cmd, "%s: line %d: %s", path, found_line, err.msg);
        goto out;
    }
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
            print_record(kifu, rep, 1, stdout);
            fputs("}\n", stdout);
        }
        free(buf);
    } else {
        r = json ? rec_replay_write_json(rep, stdout) : rec_replay_write_text(rep, stdout);
        if (kifu && r == REC_OK)
            print_record(kifu, rep, 0, stdout);
    }
    if (r != REC_OK || fflush(stdout) != 0) {
        rc = internal_error(cmd, "cannot write the result: %s", strerror(errno));
        goto out;
    }
    if (kifu && rep->result.reason != REC_REASON_ILLEGAL_MOVE) {
        /* a record may go on after the end the replay finds (a move written after a mate) */
        rec_kifu_replay_t kr;
        rec_kifu_replay(kifu, &kr);
        if (kr.illegal_ply)
            rc = user_error(cmd, "%s: move %d (%s) is illegal: %s", path,
                            kr.illegal_ply + rec_kifu_start_number(kifu) - 1, kr.illegal_usi,
                            rul_why_name(kr.illegal_why));
    }
    if (rep->result.reason == REC_REASON_ILLEGAL_MOVE) {
        char m[6];
        rul_move_to_usi(rep->illegal_move, m);
        rc = user_error(cmd, "%s: move %d (%s) is illegal: %s; %s wins", path,
                        rep->result.ply + rep->first_move - 1, m,
                        rul_why_name(rep->illegal_why), rec_winner_name(rep->result.winner));
    }
out:
    rec_replay_destroy(rep);
    rec_kifu_free(kifu);
    free(usi);
    free(text);
    return rc;
}

/* ---------------------------------------------------------------- convert */

static void convert_help(void) {
    printf("usage: kifucam convert IN OUT [--from FORMAT] [--to FORMAT]\n"
           "\n"
           "Converts a game record between formats: kif (.kif Shift_JIS, .kifu UTF-8), ki2 (.ki2, .ki2u),\n"
           "csa (CSA standard v3.0), jkf (JSON kifu format, .jkf .json), usi (.usi: one 'position' line)\n"
           "and western (.txt: Hodges notation, P-7f Bx2b+ N*5e). The input format comes from its content\n"
           "(encoding too: UTF-8, Shift_JIS, EUC-JP), the output format from OUT's extension; '-' is\n"
           "standard input or output, with --from / --to naming the format. KIF, KI2 and JKF keep\n"
           "variations; CSA, USI and Western write the main line. An illegal move is written as it is\n"
           "(Western with its origin: P7g-6f), except in KI2, which cannot name its origin: the KI2 line\n"
           "ends before it with the mover's loss and a comment naming it, and a warning says so. A start\n"
           "SFEN's move number is kept (KIF/KI2: 手数＝N-1). After '--' every argument is a file\n"
           "name, even one that starts with '-'.\n"
           "\n"
           "example: kifucam convert game.csa game.kifu\n");
}

static int cmd_convert(int argc, char **argv) {
    const char *cmd = "convert", *in = NULL, *outp = NULL, *val;
    rec_format_t from = REC_FMT_UNKNOWN, to = REC_FMT_UNKNOWN;
    rec_kifu_t *k = NULL;
    rec_kifu_error_t e;
    int rc = 0, r, opts = 1; /* opts: 0 after "--" (the rest are file names, even those starting with '-') */
    for (int i = 1; i < argc; i++) {
        rec_format_t *which = &from;
        if (opts && strcmp(argv[i], "--") == 0) {
            opts = 0;
        } else if (!opts) {
            if (!in)
                in = argv[i];
            else if (!outp)
                outp = argv[i];
            else
                return user_error(cmd, "unexpected argument '%.80s' (usage: kifucam convert IN OUT)", argv[i]);
        } else if ((r = rec_opt_value(cmd, argc, argv, &i, "--from", &val)) != 0 ||
            (which = &to, r = rec_opt_value(cmd, argc, argv, &i, "--to", &val)) != 0) {
            if (r < 0)
                return EXIT_USER;
            *which = rec_kifu_format_from_name(val);
            if (*which == REC_FMT_UNKNOWN)
                return user_error(cmd, "unknown format '%.40s' (kif ki2 csa jkf usi western)", val);
        } else if (is_option(argv[i]) && strcmp(argv[i], "-") != 0) {
            return user_error(cmd, "unknown option '%.80s' (see kifucam convert --help)", argv[i]);
        } else if (!in) {
            in = argv[i];
        } else if (!outp) {
            outp = argv[i];
        } else {
            return user_error(cmd, "unexpected argument '%.80s' (usage: kifucam convert IN OUT)", argv[i]);
        }
    }
    if (!in || !outp)
        return user_error(cmd, "missing IN or OUT (usage: kifucam convert IN OUT [--from F] [--to F])");
    if (to == REC_FMT_UNKNOWN)
        to = rec_kifu_format_from_path(outp);
    if (to == REC_FMT_UNKNOWN)
        return user_error(cmd, "%s: no output format from the extension; give --to FORMAT", outp);
    {
        char *text = NULL;
        size_t len = 0;
        rec_kifu_t *part = NULL;
        if ((rc = read_input(cmd, in, &text, &len)) != 0)
            return rc;
        r = rec_kifu_read_keep(text, len, from, &k, &e, &part);
        free(text);
        if (r == REC_KIFU_ENOMEM)
            return internal_error(cmd, "out of memory");
        if (r == REC_KIFU_OK || part)
            print_warnings(cmd, in, r == REC_KIFU_OK ? k : part);
        rec_kifu_free(part);
        if (r != REC_KIFU_OK)
            return read_error(cmd, in, &e);
    }
    {
        /* a start position replay refuses (FESA 9.1, 9.4: 3 bishops, nifu, the side not to move in check):
           converted as it is, said in one line with replay's own reason */
        rec_replay_params_t vp;
        rul_pos_t sp;
        rul_error_t ve;
        rec_replay_params_default(&vp);
        memset(&ve, 0, sizeof ve);
        if (rul_pos_from_sfen(&sp, k->start_sfen, NULL) == RUL_OK) {
            rul_invalid_t why = rul_pos_validate(&sp, vp.validate_flags, &ve);
            if (why != RUL_VALID)
                fprintf(stderr, "kifucam %s: warning: %s: the start position is illegal (%s%s%s): written as it is, "
                        "but replay refuses it\n", cmd, in, rul_invalid_name(why), ve.msg[0] ? ": " : "", ve.msg);
        }
    }
    if (to == REC_FMT_USI && k->result.end != REC_END_NONE && k->result.end != REC_END_RESIGN &&
        k->result.end != REC_END_KACHI && k->result.end != REC_END_TIME_UP)
        fprintf(stderr, "kifucam %s: warning: %s: the ending '%s' has no USI form (only resign, win and timeout): not written\n",
                cmd, outp, rec_kifu_end_name(k->result.end));
    {
        /* KI2 cannot state an illegal move: its line ends before it, said here in one line */
        char note[512];
        if (rec_kifu_write_cuts(k, to, note, sizeof note) > 0)
            fprintf(stderr, "kifucam %s: warning: %s: %s\n", cmd, outp, note);
    }
    r = rec_kifu_write_file(k, outp, to, &e);
    if (r == REC_KIFU_ENOMEM)
        rc = internal_error(cmd, "out of memory");
    else if (r != REC_KIFU_OK)
        rc = user_error(cmd, "%s: %s", outp, e.msg);
    rec_kifu_free(k);
    return rc;
}

/* ---------------------------------------------------------------- impasse */

static void impasse_help(void) {
    printf(
        "usage: kifucam impasse SFEN [--rule 27|24|count] [--json]\n"
        "\n"
        "Judges an impasse (jishogi) declaration by the side to move in SFEN and prints the counts and the\n"
        "verdict for the declarer: win, lose or draw.\n"
        "  27     FESA 5.3 (default): king in the enemy camp, at least 10 other pieces there, not in check,\n"
        "         28 points as sente / 27 as gote (R, B 5; others 1; camp + hand); otherwise lose\n"
        "  24     the 24-point declaration: same conditions, 31+ win, 24-30 draw, less lose\n"
        "  count  both kings entered (French regulation): every piece on the board and in hand counts;\n"
        "         both 24 or more is a draw, otherwise the higher count wins\n"
        "In a handicap game the missing pieces count for gote (uwate).\n"
        "\n"
        "  --json   print one JSON object\n"
        "\n"
        "example: kifucam impasse \"5+B+P2/K+P1+P+R+P3/+P+P+NPP4/7g1/6gg1/5+n1s1/3+p+p4/1+p3+n1k1/9 b "
        "G2SNL3Psl4p 1\"\n");
}

static const char *verdict_name(rul_verdict_t v) {
    return v == RUL_VERDICT_WIN ? "win" : v == RUL_VERDICT_DRAW ? "draw" : "lose";
}

static int cmd_impasse(int argc, char **argv) {
    const char *cmd = "impasse", *val;
    rul_impasse_rule_t rule = RUL_IMPASSE_27;
    rul_impasse_t imp;
    rul_pos_t pos;
    char sfen[512];
    size_t n = 0;
    int json = 0, r, nargs = 0;

    sfen[0] = '\0';
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!is_option(a)) {
            /* The SFEN may be quoted (one argument) or not (four). */
            size_t k = strlen(a);
            if (n + k + 2 > sizeof sfen)
                return user_error(cmd, "SFEN too long");
            if (n)
                sfen[n++] = ' ';
            memcpy(sfen + n, a, k + 1);
            n += k;
            nargs++;
        } else if (strcmp(a, "--json") == 0) {
            json = 1;
        } else if ((r = rec_opt_value(cmd, argc, argv, &i, "--rule", &val)) != 0) {
            if (r < 0 || parse_rule(cmd, val, &rule))
                return EXIT_USER;
        } else {
            return user_error(cmd, "unknown option '%s' (see kifucam impasse --help)", a);
        }
    }
    if (!nargs)
        return user_error(cmd, "missing SFEN (usage: kifucam impasse SFEN [--rule 27|24|count] [--json])");
    r = load_sfen(cmd, sfen, RUL_VALIDATE_BOTH_KINGS, &pos);
    if (r)
        return r;
    memset(&imp, 0, sizeof imp);
    if (rul_impasse_judge(&pos, rule, &imp) != RUL_OK)
        return internal_error(cmd, "the position could not be judged");

    if (json) {
        printf("{\"rule\": \"%s\", \"declarer\": \"%s\", \"points\": %d, \"needed\": %d, "
               "\"opponent_points\": %d, "
               "\"pieces_in_zone\": %d, \"king_in_zone\": %s, \"in_check\": %s, \"handicap_points\": %d, "
               "\"verdict\": \"%s\"}\n",
               rule == RUL_IMPASSE_27   ? "27"
               : rule == RUL_IMPASSE_24 ? "24"
                                        : "count",
               imp.declarer == RUL_SENTE ? "sente" : "gote", imp.points, imp.needed, imp.opponent_points,
               imp.pieces_in_zone, imp.king_in_zone ? "true" : "false", imp.in_check ? "true" : "false",
               imp.handicap_points, verdict_name(imp.verdict));
    } else {
        printf("rule:            %s\n", rule == RUL_IMPASSE_27 ? "27-point declaration (FESA 5.3)"
                                        : rule == RUL_IMPASSE_24
                                            ? "24-point declaration"
                                            : "count, both kings entered (French regulation)");
        printf("declarer:        %s (the side to move)\n", imp.declarer == RUL_SENTE ? "sente" : "gote");
        if (rule == RUL_IMPASSE_COUNT)
            printf("points:          %d (opponent %d; both 24 or more: draw, otherwise more wins)\n",
                   imp.points, imp.opponent_points);
        else
            printf("points:          %d (needed %d; opponent %d)\n", imp.points, imp.needed,
                   imp.opponent_points);
        printf("pieces in zone:  %d (needed 10)\n", imp.pieces_in_zone);
        printf("king in zone:    %s\n", imp.king_in_zone ? "yes" : "no");
        printf("in check:        %s\n", imp.in_check ? "yes" : "no");
        printf("handicap points: %d\n", imp.handicap_points);
        printf("verdict:         %s\n", verdict_name(imp.verdict));
    }
    return 0;
}

/* ---------------------------------------------------------------- probe */

static void probe_help(void) {
    printf("usage: kifucam probe [URI] [--seconds S]\n"
           "\n"
           "Without URI: lists every camera (/dev/video*), its formats, sizes and rates, and measures\n"
           "the frame rate each really delivers. With URI (/dev/videoN, v4l2:/dev/videoN?width=W&height=H&\n"
           "fps=F&format=mjpeg|yuyv, a video file, an image folder or an image): what it offers, then\n"
           "reads it for S seconds (default 3) and prints the measured rate, drops and corrupt frames.\n");
}

static int cmd_probe(int argc, char **argv) {
    const char *cmd = "probe", *uri = NULL, *val;
    double seconds = 3;
    char err[4800];
    int rc;
    for (int i = 1; i < argc; i++) {
        if ((rc = rec_opt_value(cmd, argc, argv, &i, "--seconds", &val)) != 0) {
            char *end;
            if (rc < 0)
                return EXIT_USER;
            seconds = strtod(val, &end);
            if (*end || !(seconds > 0 && seconds <= 3600))
                return user_error(cmd, "--seconds wants a number of seconds in (0, 3600], not '%.40s'", val);
        } else if (strcmp(argv[i], "--") == 0 && i + 1 < argc && !uri) { /* a URI that starts with '-' */
            uri = argv[++i];
            if (i + 1 < argc)
                return user_error(cmd, "unexpected argument '%.80s' (usage: kifucam probe [URI] [--seconds S])",
                                  argv[i + 1]);
        } else if (is_option(argv[i])) {
            return user_error(cmd, "unknown option '%.80s' (see kifucam probe --help)", argv[i]);
        } else if (uri) {
            return user_error(cmd, "unexpected argument '%.80s' (usage: kifucam probe [URI] [--seconds S])",
                              argv[i]);
        } else {
            uri = argv[i];
        }
    }
    rc = cap_probe(uri, NULL, seconds, stdout, err, sizeof err);
    if (rc == CAP_E_NOMEM) /* a system call that failed (no permission, a device gone) is the user's to mend */
        return internal_error(cmd, "%s", err);
    return rc != 0 ? user_error(cmd, "%s", err) : 0;
}

#define RECOGNIZE_USAGE \
    "kifucam recognize IMAGE [--json] [--overlay OUT.png] [--sente SIDE] [--handicap NAME] [--model FILE]"

/* The median confidence a grid's squares read as pieces need, when the reading is no possible position,
 * for recognize to take the grid as a shogi board: on the 50 held-out rendered boards and 50 komadai
 * scenes of models/eval.py the lowest medians are 0.36 and 0.46, on the real photos 0.70-0.89; a drawn
 * grid with letters in it reads 0.15. */
#define REC_NOT_PIECES_CONF 0.25

/* A reading that is no possible position is also no board when its squares read as pieces are both more
 * than a set holds, by over REC_NOT_PIECES_EXCESS (FESA 1.1: 18 pawns, 4 lances, knights, silvers and
 * golds, 2 bishops, rooks and kings; a promoted piece counts as its unpromoted kind), and mostly one class
 * (over REC_NOT_PIECES_SHARE of them): one mark repeated over a ruled grid, as a drawn grid with letters
 * (v16 reads its 39 letters as 32 tokins and 7 bishops: 19 beyond a set, 82 % one class). The real
 * photos of ../shared/data show 0-3 beyond a set; the held-out rendered boards of models/eval.py, random
 * pieces of every class, up to 30 beyond a set but no class over 21 % of them, and are boards. */
#define REC_NOT_PIECES_EXCESS 8
#define REC_NOT_PIECES_SHARE 0.5

/* Where the grid's outer line on `side` lies (0: u = 0, the line beyond file 9; 1: u = 9, beyond file
 * 1; 2: v = 0, beyond rank 1; 3: v = 9, beyond rank 9; canonical grid units of pose), judged at 19
 * points along it: OUTER_IN (in view: at least half of them lie in the image with the image going on
 * 0.15 square beyond them), OUTER_PAST (past the edge: at least half of the points a tenth of a square in
 * from the line lie outside the image) or OUTER_EDGE (on the image's edge: a straightened photo cut at
 * its outer lines). */
enum { OUTER_IN, OUTER_EDGE, OUTER_PAST };

/* 1 if the grid point (u, v) (canonical grid units of pose) maps into img. */
static int grid_point_in_image(const vis_pose_t *pose, const cap_image_t *img, double u, double v) {
    double x, y;
    return vis_pose_to_image(pose, u, v, &x, &y) == VIS_OK && x >= 0 && y >= 0 && x < img->width && y < img->height;
}

static int outer_line_where(const vis_pose_t *pose, const cap_image_t *img, int side) {
    int in = 0, past = 0;
    double c = side % 2 ? 9 : 0, out = side % 2 ? 1 : -1; /* out: the direction away from the grid */
    for (int j = 0; j <= 18; j++) {
        double t = 0.5 * j, at[3] = {c, c + 0.15 * out, c - 0.1 * out};
        int inside[3];
        for (int k = 0; k < 3; k++)
            inside[k] = grid_point_in_image(pose, img, side < 2 ? at[k] : t, side < 2 ? t : at[k]);
        in += inside[0] && inside[1];
        past += !inside[2];
    }
    return 2 * in >= 19 ? OUTER_IN : 2 * past >= 19 ? OUTER_PAST : OUTER_EDGE;
}

/* Pieces on the board read rd beyond what one set holds, summed over the kinds (see REC_NOT_PIECES_EXCESS);
 * *top gets how many squares the most frequent piece class (kind and owner) holds. */
static int set_excess(const vis_board_read_t *rd, int *top) {
    static const int set[8] = {18, 4, 4, 4, 2, 2, 4, 2}; /* P L N S B R G K, the order of vis_class_sfen */
    int n[8] = {0}, per_class[VIS_CLASS_NB] = {0}, ex = 0;
    *top = 0;
    for (int sq = 0; sq < VIS_SQUARE_NB; sq++) {
        int c = rd->cls[sq];
        if (c <= 0 || c >= VIS_CLASS_NB)
            continue;
        int k = (c - 1) % 14; /* sente 1..14, gote 15..28: P L N S B R G K +P +L +N +S +B +R */
        n[k < 8 ? k : k - 8]++;
        if (++per_class[c] > *top)
            *top = per_class[c];
    }
    for (int k = 0; k < 8; k++)
        ex += n[k] > set[k] ? n[k] - set[k] : 0;
    return ex;
}

static int cmp_float(const void *a, const void *b) {
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* Median of v[0..n-1] (sorted in place), 0 for n = 0. */
static double median_of(float *v, int n) {
    if (n == 0)
        return 0;
    qsort(v, (size_t)n, sizeof *v, cmp_float);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void recognize_help(void) {
    printf("usage: " RECOGNIZE_USAGE "\n"
           "\n"
           "Finds the board in one photo and reads its 81 squares with the square classifier\n"
           "(models/squares.onnx, or $KIFUCAM_MODEL, or --model). Prints the SFEN: the board as seen with\n"
           "the image's lower side as sente's (a camera at the side: the better-reading quarter turn),\n"
           "the hands read from the two komadai (vis_komadai_read: the areas beside the board on each\n"
           "player's right; a stand out of view is unknown: a warning, and its part of the hands field is\n"
           "left empty), side to move 'b' (a photo does not say whose turn it is).\n"
           "--json adds the grid corners, the pose score (\"found_by\": lines or pieces, \"grid_moved\": null or\n"
           "the row or file it was moved, \"off_board_strips\": the outer strips that are not the board,\n"
           "files first, and the move made for each), each square's class and confidence, and per stand\n"
           "and kind the count read, its probability and the distribution over counts (\"p\": [p0, p1, ...]);\n"
           "--overlay writes the photo with the grid and the read labels drawn on it.\n"
           "--sente SIDE (bottom, top, left, right: the side of the image where sente sits) turns the\n"
           "reading when the camera is elsewhere: the pieces show the axis, but a position seen from the\n"
           "other end is the same game with the colours swapped, so a photo alone cannot say which end is\n"
           "sente's.\n"
           "With both komadai in view the board and the stands are read as one set (40 pieces; --handicap\n"
           "NAME: that handicap game's set): each revision of a square or a stand count is a note on stderr\n"
           "and in the JSON's \"one_set\"; a reading too far from the set is kept and said so. A reading\n"
           "that is no possible position (two sente kings, 14 silvers, nifu...) is a warning and, in the\n"
           "JSON, \"possible_position\": {\"ok\": false, \"why\": ...}.\n"
           "An IMAGE whose name starts with '-' goes after '--' (kifucam recognize --json -- -1.jpg).\n"
           "Exit 1 with one line when IMAGE is not an image or no board is found.\n");
    char names[256];
    rec_handicap_names(names, sizeof names);
    printf("Handicap names: %s.\n", names);
}

static const char *const image_side[4] = {"bottom", "right", "top", "left"};

/* The pieces of each kind P L N S B R G that handicap h's game has in all (board and hands): those of
 * its starting position (rul_handicap_info), kings left out. Returns 0, -1 for an unknown h. */
static int handicap_set(rul_handicap_t h, int set[VIS_HAND_KIND_NB]) {
    rul_handicap_info_t info;
    if (rul_handicap_info(h, &info) != RUL_OK)
        return -1;
    memset(set, 0, sizeof(int) * VIS_HAND_KIND_NB);
    for (const char *p = info.sfen; *p && *p != ' '; p++) {
        const char *k = strchr("PLNSBRG", *p >= 'a' ? *p - 32 : *p);
        if (k)
            set[k - "PLNSBRG"]++;
    }
    return 0;
}

/* The side of the image (index into image_side) where sente's edge of the board (canonical v = 9) lies
 * once pose is turned by q more quarter turns: the larger image coordinate of the board centre to that
 * edge's middle. */
static int pose_sente_side(const vis_pose_t *pose, int q) {
    vis_pose_t p = *pose;
    double cx, cy, ex, ey;
    vis_pose_rotate(&p, q);
    if (vis_pose_to_image(&p, 4.5, 4.5, &cx, &cy) != 0 || vis_pose_to_image(&p, 4.5, 9, &ex, &ey) != 0)
        return -1;
    ex -= cx;
    ey -= cy;
    return fabs(ey) >= fabs(ex) ? (ey > 0 ? 0 : 2) : (ex > 0 ? 1 : 3);
}

/* Whether path can take the overlay picture: a file name OpenCV writes by its extension (PNG, JPEG,
 * BMP, TIFF, WebP, PPM/PGM) in an existing writable folder, not a folder itself, not the photo being
 * read (image: it would be overwritten), and that opens for writing (an empty file made for the test
 * is removed again). Checked before the photo is read, so a typo costs one line, not the reading. 0 or
 * -1 with the reason in why. */
static int overlay_path_ok(const char *path, const char *image, char *why, size_t size) {
    static const char *const ext[] = {".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp", ".ppm", ".pgm"};
    const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
    int known = 0;
    for (size_t i = 0; dot && (!slash || dot > slash) && i < sizeof ext / sizeof ext[0]; i++)
        known |= strcasecmp(dot, ext[i]) == 0;
    if (!known) {
        snprintf(why, size, "give a picture file name ending in .png, .jpg, .bmp, .tif or .webp");
        return -1;
    }
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", path);
    const char *dir = dirname(buf); /* POSIX: "a/o.png" -> "a", "o.png" -> ".", "/o.png" -> "/" */
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(why, size, "the folder '%.200s' does not exist", dir);
        return -1;
    }
    if (access(dir, W_OK) != 0) {
        snprintf(why, size, "the folder '%.200s' is not writable", dir);
        return -1;
    }
    int exists = stat(path, &st) == 0;
    if (exists && S_ISDIR(st.st_mode)) {
        snprintf(why, size, "it is a folder");
        return -1;
    }
    struct stat in_st;
    if (exists && stat(image, &in_st) == 0 && in_st.st_dev == st.st_dev && in_st.st_ino == st.st_ino) {
        snprintf(why, size, "it is IMAGE itself: the photo would be overwritten");
        return -1;
    }
    /* the folder may say writable and still take no file (/proc, /sys, a read-only mount as root): open
     * it as the writer will, and remove what this made */
    int fd = open(path, (exists ? O_WRONLY : O_WRONLY | O_CREAT | O_EXCL) | O_NONBLOCK, 0644);
    if (fd < 0) {
        if (exists)
            snprintf(why, size, "it cannot be written (%s)", strerror(errno));
        else
            snprintf(why, size, "the folder '%.200s' takes no new file (%s)", dir, strerror(errno));
        return -1;
    }
    close(fd);
    if (!exists)
        unlink(path);
    return 0;
}

/* recognize's notes and warnings, held until a position is printed: a photo that turns out to hold no
 * board, or any other error, ends with its one error line only (main_help: "one line on stderr"). */
typedef struct {
    char text[16384]; /* the lines, each ending in '\n'; cut (with "...") when they would not fit */
    size_t len;
} said_t;

static void say(said_t *s, const char *fmt, ...) {
    if (s->len >= sizeof s->text - 1)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(s->text + s->len, sizeof s->text - s->len, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n >= sizeof s->text - s->len) { /* cut: end it as a line */
        s->len = sizeof s->text - 1;
        memcpy(s->text + s->len - 4, "...\n", 4);
    } else {
        s->len += (size_t)n;
    }
}

static int cmd_recognize(int argc, char **argv) {
    const char *cmd = "recognize", *path = NULL, *overlay = NULL, *val;
    static char model_buf[4096];
    const char *model = rec_model_default(model_buf, sizeof model_buf);
    int json = 0, rc, status = 0, sente_end = -1, decoded = 0, shifted = 0, set[VIS_HAND_KIND_NB];
    /* vis_board_off_strips: the strip of files and of ranks flagged, and the move made for each */
    const char *off_strip[2] = {NULL, NULL}, *off_moved[2] = {NULL, NULL};
    char impossible[256] = ""; /* why the reading is not a possible position ("" if it is one) */
    unsigned char unseen[VIS_SQUARE_NB] = {0}; /* 1: the square's middle is not wholly in the image */
    int outer[4] = {OUTER_IN, OUTER_IN, OUTER_IN, OUTER_IN}; /* beyond file 9, file 1, rank 1, rank 9 */
    rul_handicap_t handicap = RUL_HC_EVEN;
    vis_position_fix_t fix = {0};
    rec_grid_shift_t gs;
    char err[4800], sfen[VIS_SFEN_BOARD_MAX];
    cap_image_t img = {0, 0, 0, NULL};
    vis_pose_t pose;
    vis_classifier_t *clf = NULL;
    vis_board_read_t *rd = NULL;
    vis_komadai_read_t *kr = NULL;
    char hands[80] = "-";
    static said_t said;
    said.len = 0;
    said.text[0] = '\0';

    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0) {
            json = 1;
        } else if ((rc = rec_opt_value(cmd, argc, argv, &i, "--overlay", &val)) != 0) {
            if (rc < 0)
                return EXIT_USER;
            overlay = val;
        } else if ((rc = rec_opt_value(cmd, argc, argv, &i, "--model", &val)) != 0) {
            if (rc < 0)
                return EXIT_USER;
            model = val;
        } else if ((rc = rec_opt_value(cmd, argc, argv, &i, "--handicap", &val)) != 0) {
            if (rc < 0)
                return EXIT_USER;
            if (rul_handicap_from_name(val, &handicap) != RUL_OK) {
                char names[256];
                rec_handicap_names(names, sizeof names);
                return user_error(cmd, "--handicap '%.40s': not a handicap (%s)", val, names);
            }
        } else if ((rc = rec_opt_value(cmd, argc, argv, &i, "--sente", &val)) != 0) {
            if (rc < 0)
                return EXIT_USER;
            for (sente_end = 0; sente_end < 4 && strcmp(val, image_side[sente_end]) != 0; sente_end++)
                ;
            if (sente_end == 4)
                return user_error(cmd, "--sente '%.40s': give the side of the image where sente sits: bottom, top, left "
                                  "or right", val);
        } else if (strcmp(argv[i], "--") == 0 && i + 1 < argc && !path) { /* IMAGE may start with '-' */
            path = argv[++i];
            if (i + 1 < argc)
                return user_error(cmd, "unexpected argument '%.80s' (usage: " RECOGNIZE_USAGE ")", argv[i + 1]);
        } else if (is_option(argv[i])) {
            return user_error(cmd, "unknown option '%.80s' (see kifucam recognize --help)", argv[i]);
        } else if (path) {
            return user_error(cmd, "unexpected argument '%.80s' (usage: " RECOGNIZE_USAGE ")", argv[i]);
        } else {
            path = argv[i];
        }
    }
    if (path == NULL || path[0] == '\0') /* "" (an unset shell variable) names no file */
        return user_error(cmd, "missing IMAGE (usage: " RECOGNIZE_USAGE ")");
    if (overlay && overlay_path_ok(overlay, path, err, sizeof err) != 0)
        return user_error(cmd, "--overlay '%.200s': %s", overlay, err);
    rc = cap_image_load(path, &img, err, sizeof err);
    if (rc != 0)
        return rc == CAP_E_NOMEM ? internal_error(cmd, "%s", err) : user_error(cmd, "%s", err);
    if ((double)(img.width < img.height ? img.width : img.height) * 64 < (img.width > img.height ? img.width : img.height)) {
        status = user_error(cmd, "%s: no board found (the image, %dx%d, is too thin to hold a 9x9 board)", path,
                            img.width, img.height);
        goto out;
    }
    /* the model before the search: a missing or wrong model file is said whatever the photo shows */
    if ((rc = vis_classifier_open(model, &clf)) != 0) { /* a missing or wrong model file is the user's */
        status = rc == VIS_E_NOMEM ? internal_error(cmd, "%s", vis_classifier_errmsg(clf))
                                   : user_error(cmd, "%s; the square classifier is given by --model FILE or KIFUCAM_MODEL",
                                                vis_classifier_errmsg(clf));
        goto out;
    }
    if (vis_pose_find(&img, NULL, &pose, err, sizeof err) != 0) {
        status = internal_error(cmd, "%s", err);
        goto out;
    }
    if (!pose.found && (img.width > 1536 || img.height > 1536)) {
        /* a board small in a large photo (a phone's 4000 x 3000 from across the table) has squares of a
         * few pixels at the default work size: searched again at twice it (1-2 s more) */
        vis_pose_params_t pp;
        vis_pose_t big;
        vis_pose_params_default(&pp);
        pp.work_size = 2048;
        if (vis_pose_find(&img, &pp, &big, err, sizeof err) != 0) {
            status = internal_error(cmd, "%s", err);
            goto out;
        }
        if (big.found || big.score > pose.score)
            pose = big;
    }
    if (!pose.found && !(pose.score >= REC_BY_PIECES_MIN_SCORE)) {
        status = user_error(cmd, "%s: no board found (best grid score %.2f)", path, pose.score);
        goto out;
    }
    rd = malloc(sizeof *rd);
    if (rd == NULL) {
        status = internal_error(cmd, "out of memory");
        goto out;
    }
    int by_pieces = !pose.found; /* read by rec_board_by_pieces: pose and rd are oriented already */
    if (by_pieces) {
        /* the best grid scored under the threshold (blur, a dim board, pieces over many lines): it is a
         * board only if its squares say so (rec_board_by_pieces); otherwise nothing is made up */
        int npieces = 0;
        if ((rc = rec_board_by_pieces(clf, &img, &pose, rd, &npieces)) < 0) {
            status = internal_error(cmd, "%s", vis_classifier_errmsg(clf));
            goto out;
        }
        if (rc == 0) {
            status = user_error(cmd, "%s: no board found (best grid score %.2f)", path, pose.score);
            goto out;
        }
        vis_pose_params_t pp;
        vis_pose_params_default(&pp);
        say(&said, "kifucam recognize: warning: the grid scored %.2f, under the %.2f of a board found by its "
                "lines; taken as a board because %d of its squares read as pieces with at least %.0f %% "
                "confidence: check it with --overlay\n", pose.score, pp.min_score, npieces, 100 * REC_BY_PIECES_MIN_CONF);
    }
    if ((!by_pieces && vis_classifier_orient(clf, &img, &pose, rd) != 0) ||
        (shifted = rec_grid_shift(clf, &img, &pose, rd, &gs)) < 0) {
        status = internal_error(cmd, "%s", vis_classifier_errmsg(clf));
        goto out;
    }
    vis_pose_t at_shift = pose; /* the words of a move are said for the grid as finally turned */
    if (sente_end >= 0) {
        /* told where sente sits: the pieces only give the axis (turned by 180 degrees the position is the
         * same game with the colours swapped), so the reading is turned, or read again across */
        int q = 0;
        while (q < 4 && pose_sente_side(&pose, q) != sente_end)
            q++;
        if (q == 2) {
            vis_pose_rotate(&pose, 2);
            vis_board_read_turn(rd);
        } else if (q == 1 || q == 3) {
            int o = rd->orientation;
            vis_pose_rotate(&pose, q);
            if (vis_classifier_read(clf, &img, &pose, rd) != 0) {
                status = internal_error(cmd, "%s", vis_classifier_errmsg(clf));
                goto out;
            }
            rd->orientation = (o + q) % 4;
            say(&said, "kifucam recognize: note: the pieces point across; read with sente at the %s as told\n",
                    image_side[sente_end]);
        }
    }
    if (shifted) {
        gs.towards = rec_grid_shift_towards(&gs, &at_shift, &pose);
        say(&said, "kifucam recognize: note: the grid found (pose confidence %.2f) reads no possible position; "
                "moved %s it reads one, with %d pieces on the board (%d before)\n", pose.confidence, gs.towards,
                gs.pieces, gs.pieces_before);
    }
    /* a grid one file or rank over with its outer line on the table or a border beyond the board (its
     * lines all there, its pieces a possible position): the strip of squares past the board's edge is not
     * the board's surface (vis_board_off_strips). Moved one square away from that strip when the board
     * runs past the image's edge on the other side (the cut the grid was pushed off by); else said */
    {
        int off[4];
        if (vis_board_off_strips(&img, &pose, rd, off, err, sizeof err) != 0) {
            status = internal_error(cmd, "%s", err);
            goto out;
        }
        static const char *const strip_name[4] = {"file 9", "file 1", "rank 1", "rank 9"};
        static const char *const away[4] = {"one file towards file 1", "one file towards file 9",
                                            "one row towards rank 9", "one row towards rank 1"};
        for (int axis = 0; axis < 2; axis++) { /* files, then ranks: a photo cut at a corner can need both */
            int side = 2 * axis + (off[2 * axis] ? 0 : 1), opp = side ^ 1;
            if (!off[side])
                continue;
            off_strip[axis] = strip_name[side];
            vis_pose_t moved = pose;
            vis_pose_shift(&moved, side == 0 ? 1 : side == 1 ? -1 : 0, side == 2 ? 1 : side == 3 ? -1 : 0);
            if (!off[opp] && outer_line_where(&moved, &img, opp) != OUTER_IN) {
                pose = moved;
                off_moved[axis] = away[side];
                say(&said, "kifucam recognize: warning: the squares of %s do not look like the board (its edge or "
                        "the table beyond it), and the board runs past the image on the other side: the grid was "
                        "moved %s (check it with --overlay)\n", off_strip[axis], off_moved[axis]);
            } else {
                say(&said, "kifucam recognize: warning: the squares of %s do not look like the board (its edge or "
                        "the table beyond it): the grid may be one square over (check it with --overlay)\n",
                        off_strip[axis]);
            }
        }
        if (off_moved[0] || off_moved[1]) {
            /* moved: the squares are read again where they are, merged with their turned reading as
             * vis_classifier_orient reads them */
            int o = rd->orientation;
            vis_pose_t turned_pose = pose;
            vis_board_read_t *turned = malloc(sizeof *turned);
            vis_pose_rotate(&turned_pose, 2);
            if (turned == NULL || vis_classifier_read(clf, &img, &pose, rd) != 0 ||
                vis_classifier_read(clf, &img, &turned_pose, turned) != 0) {
                status = internal_error(cmd, "%s", turned ? vis_classifier_errmsg(clf) : "out of memory");
                free(turned);
                goto out;
            }
            vis_board_read_merge_turned(rd, turned);
            free(turned);
            rd->orientation = o;
        }
    }
    /* one photo, no hurry: the squares read again at two more crop sizes (test-time scales) */
    if (vis_classifier_read_scales(clf, &img, &pose, rd) != 0) {
        status = internal_error(cmd, "%s", vis_classifier_errmsg(clf));
        goto out;
    }
    if ((kr = malloc(sizeof *kr)) == NULL) {
        status = internal_error(cmd, "out of memory");
        goto out;
    }
    if (vis_komadai_read(clf, &img, &pose, NULL, kr) != 0) {
        status = internal_error(cmd, "%s", vis_classifier_errmsg(clf));
        goto out;
    }
    {
        /* one position, not 81 guesses. Both stands in view: the board and the stands must hold one set
         * (vis_position_decode: 40 pieces, or a handicap's, one king a side, no dead piece or nifu).
         * Otherwise, or when no set is near: a kind read more often than a set has it gives up its
         * least sure squares (vis_board_constrain, FESA 1.2). Every change is said. */
        int changed[VIS_SQUARE_NB], nch = 0, done = 0;
        char was[VIS_SQUARE_NB][4];
        int had[2][VIS_HAND_KIND_NB];
        for (int sq = 0; sq < VIS_SQUARE_NB; sq++)
            snprintf(was[sq], sizeof was[sq], "%s", vis_class_sfen(rd->cls[sq]));
        memcpy(had, kr->count, sizeof had);
        if (kr->known[0] && kr->known[1]) {
            if (handicap_set(handicap, set) == 0 && vis_position_decode(rd, kr, set, 12.0, &fix) == VIS_OK &&
                fix.applied) {
                done = 1;
                for (int i = 0; i < fix.nsquares; i++) {
                    int sq = fix.squares[i];
                    say(&said, "kifucam recognize: note: %d%c read as '%s' taken as '%s' (p %.2f) so that the "
                            "board and the komadai hold one set\n", sq / 9 + 1, 'a' + sq % 9,
                            was[sq][0] ? was[sq] : "empty", rd->cls[sq] ? vis_class_sfen(rd->cls[sq]) : "empty",
                            rd->conf[sq]);
                }
                for (int s = 0; s < 2; s++)
                    for (int k = 0; k < VIS_HAND_KIND_NB; k++)
                        if (fix.hand_delta[s][k])
                            say(&said, "kifucam recognize: note: %s's %c count read as %d taken as %d (p %.2f) "
                                    "so that the board and the komadai hold one set\n", s ? "gote" : "sente",
                                    "PLNSBRG"[k], had[s][k], kr->count[s][k], kr->conf[s][k]);
            } else {
                if (isfinite(fix.cost))
                    say(&said, "kifucam recognize: note: the board and the komadai cannot be made one set "
                            "without changes costing %.1f nats of log-probability (at most 12 are taken): only a "
                            "kind read more often than a set has it is revised\n", fix.cost);
                else
                    say(&said, "kifucam recognize: note: no revision the reading allows makes the board and "
                            "the komadai one set: only a kind read more often than a set has it is revised\n");
            }
            decoded = 1;
        }
        if (!(kr->known[0] && kr->known[1]) && handicap != RUL_HC_EVEN)
            say(&said, "kifucam recognize: note: --handicap is not used: the set is judged only with both "
                    "komadai in view\n");
        if (!done && vis_board_constrain(rd, 0.08, changed, &nch) == VIS_OK)
            for (int i = 0; i < nch; i++) {
                int sq = changed[i];
                say(&said, "kifucam recognize: note: %d%c read as '%s' makes too many of a kind for one set; "
                        "taken as '%s' (p %.2f)\n", sq / 9 + 1, 'a' + sq % 9, was[sq],
                        rd->cls[sq] ? vis_class_sfen(rd->cls[sq]) : "empty", rd->conf[sq]);
            }
    }
    if (vis_board_sfen(rd, sfen, sizeof sfen) != 0) {
        status = internal_error(cmd, "SFEN does not fit");
        goto out;
    }
    {
        /* the hands field: a stand out of view is unknown, never "no pieces"; it is said on stderr and
         * its part of the field stays empty ('-' only when both are known and empty) */
        vis_komadai_read_t k2 = *kr;
        for (int s = 0; s < 2; s++)
            if (!kr->known[s]) {
                say(&said, "kifucam recognize: warning: %s's komadai is not in view: its hand is unknown\n",
                        s ? "gote" : "sente");
                k2.known[s] = 1; /* counts all 0: nothing is written for it */
            } else {
                for (int k = 0; k < VIS_HAND_KIND_NB; k++)
                    if (kr->conf[s][k] < 0.6f)
                        say(&said, "kifucam recognize: warning: %s's %c count read as %d with %.0f %% confidence\n",
                                s ? "gote" : "sente", "PLNSBRG"[k], kr->count[s][k], 100.0 * kr->conf[s][k]);
            }
        if (vis_komadai_sfen(&k2, hands, sizeof hands) != 0) {
            status = internal_error(cmd, "hands do not fit");
            goto out;
        }
    }
    if (overlay && vis_overlay_write(&img, &pose, rd, overlay, err, sizeof err) != 0) {
        status = user_error(cmd, "%s", err);
        goto out;
    }
    {
        /* Never pass off a doubtful read as a position: say which squares are unsure and whether the
         * board read could be a real position at all (piece counts, kings, nifu, dead pieces, FESA 9.4). */
        char full[256], unsure[81 * 4 + 1] = "";
        size_t nu = 0;
        int nunsure = 0, nout = 0;
        rul_pos_t rp;
        rul_error_t re;
        snprintf(full, sizeof full, "%s b %s 1", sfen, hands);
        for (int sq = 0; sq < VIS_SQUARE_NB; sq++)
            if (rd->conf[sq] < 0.6f) {
                nunsure++;
                nu += (size_t)snprintf(unsure + nu, sizeof unsure - nu, " %d%c", sq / 9 + 1, 'a' + sq % 9);
            }
        if (nunsure)
            say(&said, "kifucam recognize: warning: %d square%s read with less than 60 %% confidence:%s\n",
                    nunsure, nunsure == 1 ? "" : "s", unsure);
        /* a grid reaching past the image: the squares whose middles (0.6 of a square) do not lie wholly
         * in it were not seen (vis_pose_square_seen) */
        char outside[81 * 4 + 1] = "";
        size_t no = 0;
        for (int sq = 0; sq < VIS_SQUARE_NB; sq++) {
            int file = sq / 9 + 1, rank = sq % 9 + 1; /* canonical: u = 9 - file, v = rank - 1 */
            if (!vis_pose_square_seen(&pose, img.width, img.height, 9 - file, rank - 1)) {
                no += (size_t)snprintf(outside + no, sizeof outside - no, " %d%c", file, 'a' + rank - 1);
                nout++;
                unseen[sq] = 1;
            }
        }
        /* an outer line on the image's edge or past it while the opposite one is in view: the board may
         * run past the frame there, and nothing in view fixes which 9 ranks (files) these are */
        for (int side = 0; side < 4; side++)
            outer[side] = outer_line_where(&pose, &img, side);
        for (int dir = 0; dir < 2; dir++) {
            int a = outer[2 * dir], b = outer[2 * dir + 1];
            if ((a == OUTER_IN) == (b == OUTER_IN) && (a != OUTER_PAST && b != OUTER_PAST))
                continue; /* both in view, or both on the edge (a straightened photo) */
            static const char *const name[4] = {"beyond file 9", "beyond file 1", "beyond rank 1", "beyond rank 9"};
            char which[64];
            if (a != OUTER_IN && b != OUTER_IN)
                snprintf(which, sizeof which, "lines %s and %s lie", name[2 * dir], name[2 * dir + 1]);
            else
                snprintf(which, sizeof which, "line %s lies", name[a == OUTER_IN ? 2 * dir + 1 : 2 * dir]);
            say(&said, "kifucam recognize: warning: the grid's outer %s on the image's edge or past it: if the "
                    "board is cut there, every %s may be read one or more over (check it with --overlay)\n", which,
                    dir ? "rank" : "file");
        }
        if (nout)
            say(&said, "kifucam recognize: warning: %d square%s of the grid lie outside the image or across its "
                    "edge, not seen (read as what the image shows there; the grid may be misplaced):%s\n", nout,
                    nout == 1 ? "" : "s",
                    outside);
        if (rul_pos_from_sfen(&rp, full, &re) != RUL_OK ||
            rul_pos_validate(&rp, RUL_VALIDATE_BOTH_KINGS, &re) != RUL_VALID) {
            /* the SFEN is ours: its parser's "sfen: column N: " says nothing to the user */
            const char *why = re.msg, *after = strncmp(why, "sfen: column ", 13) == 0 ? strstr(why + 13, ": ") : NULL;
            if (after != NULL)
                why = after + 2;
            say(&said, "kifucam recognize: warning: the board read is not a possible position: %s\n", why);
            snprintf(impossible, sizeof impossible, "%s", why);
            /* a grid found barely (a printed border taken for the outer line, a board small in the frame)
             * can sit a row or a file off: then the reading is no position at all */
            if (pose.confidence < 0.6 && !shifted)
                say(&said, "kifucam recognize: warning: the grid may be misplaced by a row or a file (pose "
                        "confidence %.2f): check it with --overlay before using this position\n", pose.confidence);
            /* a grid that is no shogi board (ruled paper, a drawn grid with letters): its "pieces" are read
             * with little confidence. No position is made of it */
            float conf[VIS_SQUARE_NB];
            int npc = 0;
            for (int sq = 0; sq < VIS_SQUARE_NB; sq++)
                if (rd->cls[sq] != 0)
                    conf[npc++] = rd->conf[sq];
            double med = median_of(conf, npc);
            int top, excess = set_excess(rd, &top);
            if (excess > REC_NOT_PIECES_EXCESS && top > REC_NOT_PIECES_SHARE * npc) {
                status = user_error(cmd, "%s: no board found: a 9x9 grid was found (grid score %.2f), but its squares "
                                    "read as %d pieces more than a shogi set holds, %d of the %d as one class (one mark "
                                    "repeated): not taken as a board", path, pose.score, excess, top, npc);
                goto out;
            }
            if (npc > 0 && med < REC_NOT_PIECES_CONF) {
                status = user_error(cmd, "%s: no board found: a 9x9 grid was found (grid score %.2f), but the %d squares "
                                    "read as pieces have a median confidence of %.2f (a shogi board's, %.2f or more): "
                                    "not taken as a board", path, pose.score, npc, med, REC_NOT_PIECES_CONF);
                goto out;
            }
        }
    }
    fputs(said.text, stderr); /* a position is printed: its notes and warnings first */
    if (!json) {
        printf("%s b %s 1\n", sfen, hands);
    } else {
        printf("{\"sfen\": \"%s b %s 1\", \"side_to_move\": \"b (assumed)\", \"hands\": {", sfen, hands);
        for (int s = 0; s < 2; s++) {
            printf("%s\"%s\": ", s ? ", " : "", s ? "gote" : "sente");
            if (!kr->known[s]) {
                printf("null");
                continue;
            }
            printf("{\"pieces_seen\": %d, \"min_confidence\": %.3f, \"counts\": {", kr->pieces[s], kr->min_conf[s]);
            for (int k = 0; k < VIS_HAND_KIND_NB; k++) {
                int last = kr->count[s][k];
                for (int n = 0; n < VIS_HAND_COUNT_NB; n++)
                    if (kr->prob[s][k][n] >= 0.0005f && n > last)
                        last = n;
                printf("%s\"%c\": {\"n\": %d, \"confidence\": %.3f, \"p\": [", k ? ", " : "", "PLNSBRG"[k],
                       kr->count[s][k], kr->conf[s][k]);
                for (int n = 0; n <= last; n++)
                    printf("%s%.3f", n ? ", " : "", kr->prob[s][k][n]);
                printf("]}");
            }
            printf("}}");
        }
        rul_handicap_info_t hc_info;
        rul_handicap_info(handicap, &hc_info);
        printf("}, \"one_set\": ");
        if (!decoded) {
            printf("null");
        } else {
            printf("{\"applied\": %s, \"cost_nats\": ", fix.applied ? "true" : "false");
            if (isfinite(fix.cost))
                printf("%.2f", fix.cost);
            else
                printf("null"); /* the set cannot be reached at all */
            printf(", \"set\": \"%s\", \"squares_revised\": [", hc_info.name);
            for (int i = 0; fix.applied && i < fix.nsquares; i++)
                printf("%s\"%d%c\"", i ? ", " : "", fix.squares[i] / 9 + 1, 'a' + fix.squares[i] % 9);
            printf("], \"hands_revised\": {");
            for (int s = 0; s < 2; s++) {
                printf("%s\"%s\": {", s ? ", " : "", s ? "gote" : "sente");
                for (int k = 0, first = 1; fix.applied && k < VIS_HAND_KIND_NB; k++)
                    if (fix.hand_delta[s][k]) {
                        printf("%s\"%c\": %d", first ? "" : ", ", "PLNSBRG"[k], fix.hand_delta[s][k]);
                        first = 0;
                    }
                printf("}");
            }
            printf("}}");
        }
        printf(", \"possible_position\": ");
        if (impossible[0]) { /* the reason, JSON-escaped by jansson */
            json_t *why = json_string(impossible);
            char *t = why ? json_dumps(why, JSON_ENCODE_ANY) : NULL;
            printf("{\"ok\": false, \"why\": %s}", t ? t : "null");
            free(t);
            json_decref(why);
        } else {
            printf("{\"ok\": true, \"why\": null}");
        }
        /* how the grid was taken: by its lines, or by its pieces (rec_board_by_pieces), and whether it was
         * moved a row or a file to read a possible position (rec_grid_shift) */
        printf(", \"pose\": {\"found_by\": \"%s\", \"grid_moved\": ", by_pieces ? "pieces" : "lines");
        if (shifted)
            printf("{\"towards\": \"%s\", \"pieces\": %d, \"pieces_before\": %d}", gs.towards, gs.pieces,
                   gs.pieces_before);
        else
            printf("null");
        /* an outer strip of squares that is not the board's surface (vis_board_off_strips), and the move
         * made for it (null: only said) */
        printf(", \"off_board_strips\": [");
        for (int axis = 0, n = 0; axis < 2; axis++)
            if (off_strip[axis]) {
                printf("%s{\"strip\": \"%s\", \"moved\": ", n++ ? ", " : "", off_strip[axis]);
                if (off_moved[axis])
                    printf("\"%s\"}", off_moved[axis]);
                else
                    printf("null}");
            }
        printf("]");
        static const char *const where[3] = {"in view", "on the edge", "past the edge"};
        printf(", \"outer_lines\": {\"beyond_file9\": \"%s\", \"beyond_file1\": \"%s\", \"beyond_rank1\": \"%s\", "
               "\"beyond_rank9\": \"%s\"}", where[outer[0]], where[outer[1]], where[outer[2]], where[outer[3]]);
        printf(", \"score\": %.3f, \"confidence\": %.3f, \"rms_px\": %.2f, \"orientation\": %d, "
               "\"corners\": [[%.1f, %.1f], [%.1f, %.1f], [%.1f, %.1f], [%.1f, %.1f]]}, \"min_confidence\": %.3f, "
               "\"squares\": [",
               pose.score, pose.confidence, pose.rms_px, rd->orientation, pose.corners[0][0],
               pose.corners[0][1], pose.corners[1][0], pose.corners[1][1], pose.corners[2][0], pose.corners[2][1],
               pose.corners[3][0], pose.corners[3][1], rd->min_conf);
        /* a square outside the image is unknown: its piece null, what the image's edge read as beside it */
        for (int sq = 0; sq < VIS_SQUARE_NB; sq++) {
            printf("%s{\"square\": \"%d%d\", ", sq ? ", " : "", sq / 9 + 1, sq % 9 + 1);
            if (unseen[sq])
                printf("\"piece\": null, \"seen\": false, \"read_as\": \"%s\", ", vis_class_sfen(rd->cls[sq]));
            else
                printf("\"piece\": \"%s\", \"seen\": true, ", vis_class_sfen(rd->cls[sq]));
            printf("\"confidence\": %.3f}", rd->conf[sq]);
        }
        printf("], \"unseen\": [");
        for (int sq = 0, first = 1; sq < VIS_SQUARE_NB; sq++)
            if (unseen[sq]) {
                printf("%s\"%d%d\"", first ? "" : ", ", sq / 9 + 1, sq % 9 + 1);
                first = 0;
            }
        printf("]}\n");
    }
out:
    free(rd);
    free(kr);
    vis_classifier_destroy(clf);
    cap_image_free(&img);
    return status;
}

/* ---------------------------------------------------------------- main */

typedef struct {
    const char *name;
    int (*run)(int argc, char **argv);
    void (*help)(void);
} command_t;

static const command_t commands[] = {
    {"replay", cmd_replay, replay_help},
    {"convert", cmd_convert, convert_help},
    {"moves", cmd_moves, moves_help},
    {"perft", cmd_perft, perft_help},
    {"impasse", cmd_impasse, impasse_help},
    {"probe", cmd_probe, probe_help},
    {"recognize", cmd_recognize, recognize_help},
    {"record", rec_record_main, rec_record_help},
};

static void main_help(void) {
    printf("kifucam - a shogi game recorder: watches a board through a camera and writes the kifu\n"
           "\n"
           "usage: kifucam COMMAND [ARGS]\n"
           "\n"
           "commands:\n"
           "  replay FILE|- [--json] [--rule R]           replay a record (any format): result, repetitions,\n"
           "                                              illegal moves (R: impasse rule 27|24|count)\n"
           "  convert IN OUT [--from F] [--to F]          convert a record: kif ki2 csa jkf usi western\n"
           "  moves [--sfen SFEN | --usi \"position ...\"]  list the legal moves, one USI move a line\n"
           "  perft [--sfen SFEN] [--divide] DEPTH        count the nodes of the legal-move tree\n"
           "  impasse SFEN [--rule 27|24|count] [--json]  judge an impasse declaration by the side to move\n"
           "  probe [URI] [--seconds S]                   list cameras and measure the frame rate they deliver\n"
           "  recognize IMAGE [--json] [--overlay OUT]    find the board in a photo and read it (SFEN)\n"
           "  record --source URI [--out DIR] ...         watch a game through a camera or video, write its kifu\n"
           "\n"
           "'kifucam COMMAND --help' describes each command; kifucam --version prints the version.\n"
           "Exit status: 0 success, 1 user error (one line on stderr), 2 internal failure.\n");
}

int main(int argc, char **argv) {
    int rc;
    if (argc < 2)
        return user_error(NULL,
                          "missing command (commands: replay, convert, moves, perft, impasse, probe, recognize, record; see kifucam --help)");
    if (is_help(argv[1])) {
        main_help();
        return 0;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("kifucam %s\n", KIFUCAM_VERSION);
        return fflush(stdout) == 0 ? 0 : 2;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        if (strcmp(argv[1], commands[i].name) != 0)
            continue;
        if (wants_help(argc - 1, argv + 1)) {
            commands[i].help();
            rc = 0;
        } else {
            rc = commands[i].run(argc - 1, argv + 1);
        }
        if (fflush(stdout) != 0 && rc == 0)
            rc = internal_error(commands[i].name, "cannot write the output");
        return rc;
    }
    if (argv[1][0] == '-')
        return user_error(NULL, "unknown option '%.40s' (kifucam COMMAND ...: see kifucam --help)", argv[1]);
    return user_error(NULL,
                      "unknown command '%.40s' (commands: replay, convert, moves, perft, impasse, probe, recognize, record; see "
                      "kifucam --help)",
                      argv[1]);
}
