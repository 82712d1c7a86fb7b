/* common.c - messages and option parsing shared by the commands of the kifucam program. */
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

/* ---------------------------------------------------------------- messages */

/* A user's error (bad input: exit 1): "kifucam CMD: message" without library function names. */
int cli_user_error(const char *cmd, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    cli_vsay(cmd, 1, fmt, ap);
    va_end(ap);
    return EXIT_USER;
}

int cli_internal_error(const char *cmd, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    cli_vsay(cmd, 0, fmt, ap);
    va_end(ap);
    return EXIT_INTERNAL;
}

/* ---------------------------------------------------------------- arguments */

int cli_is_help(const char *a) { return strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0; }

/* 1 if some argument before "--" asks for help. */
int cli_wants_help(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0)
            return 0;
        if (cli_is_help(argv[i]))
            return 1;
    }
    return 0;
}

/* An option: "-x" or "--name" (a lone "-" is stdin, "-5" a negative number: both are operands). */
int cli_is_option(const char *a) { return a[0] == '-' && a[1] && !(a[1] >= '0' && a[1] <= '9'); }

int cli_parse_rule(const char *cmd, const char *s, rul_impasse_rule_t *rule) {
    if (strcmp(s, "27") == 0)
        *rule = RUL_IMPASSE_27;
    else if (strcmp(s, "24") == 0)
        *rule = RUL_IMPASSE_24;
    else if (strcmp(s, "count") == 0)
        *rule = RUL_IMPASSE_COUNT;
    else
        return cli_user_error(cmd, "--rule '%.40s': must be 27, 24 or count", s);
    return 0;
}

/* Parses an SFEN (or "startpos") and checks the position could arise (FESA 9.4); flags as for
 * rul_pos_validate. Prints the error and returns EXIT_USER on failure. */
int cli_load_sfen(const char *cmd, const char *sfen, int flags, rul_pos_t *pos) {
    return cli_load_sfen_opt(cmd, NULL, sfen, sfen, flags, pos);
}

/* cli_load_sfen_opt: cli.h. An operand (opt NULL) keeps its old line, "bad SFEN 'X': sfen: ...". */
int cli_load_sfen_opt(const char *cmd, const char *opt, const char *value, const char *sfen, int flags,
                      rul_pos_t *pos) {
    rul_error_t err;
    rul_invalid_t why;
    memset(&err, 0, sizeof err);
    if (rul_pos_from_sfen(pos, sfen, &err) != RUL_OK) {
        const char *msg = err.msg[0] ? err.msg : "malformed";
        if (opt == NULL)
            return cli_user_error(cmd, "bad SFEN '%.100s': %s", sfen, msg);
        if (strncmp(msg, "sfen: ", 6) == 0) /* "bad SFEN: column 3: ...", not "bad SFEN: sfen: ..." */
            msg += 6;
        if (value != sfen && err.column > (int)strlen(value)) /* in what was added to value, not written */
            msg = "the board field ends too soon (9 ranks of 9 squares, '/' between them)";
        return cli_user_error(cmd, "%s '%.100s': bad SFEN: %s", opt, value, msg);
    }
    memset(&err, 0, sizeof err);
    why = rul_pos_validate(pos, flags, &err);
    if (why != RUL_VALID) {
        if (opt == NULL)
            return cli_user_error(cmd, "illegal position: %s%s%s", rul_invalid_name(why),
                                  err.msg[0] ? ": " : "", err.msg);
        return cli_user_error(cmd, "%s '%.100s': illegal position: %s%s%s", opt, value, rul_invalid_name(why),
                              err.msg[0] ? ": " : "", err.msg);
    }
    return 0;
}

static int cmp_usi(const void *a, const void *b) {
    return strcmp(((const usi_move_t *)a)->usi, ((const usi_move_t *)b)->usi);
}

void cli_sorted_legal(const rul_pos_t *pos, sorted_moves_t *out) {
    rul_movelist_t list;
    rul_gen_legal(pos, &list);
    out->count = list.count;
    for (int i = 0; i < list.count; i++) {
        out->m[i].move = list.moves[i];
        rul_move_to_usi(list.moves[i], out->m[i].usi);
    }
    qsort(out->m, (size_t)out->count, sizeof out->m[0], cmp_usi);
}

/* cli_vsay: cli.h. */
void cli_vsay(const char *cmd, int plain, const char *fmt, va_list ap) {
    char msg[8192]; /* a path may be 4096 bytes: the reason after it is kept */
    vsnprintf(msg, sizeof msg, fmt, ap);
    if (plain)
        rec_plain_message(msg);
    for (char *p = msg; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = '?';
    if (cmd)
        fprintf(stderr, "kifucam %s: %s\n", cmd, msg);
    else
        fprintf(stderr, "kifucam: %s\n", msg);
}

int cli_opt_repeated(char *const *argv, int i, const char *name) {
    if (argv == NULL || name == NULL)
        return 0;
    size_t n = strlen(name);
    for (int j = 1; j < i; j++) {
        if (argv[j] == NULL)
            return 0;
        if (strncmp(argv[j], name, n) == 0 && argv[j][n] == '=')
            return 1;
        if (strcmp(argv[j], name) == 0)
            return 1;
    }
    return 0;
}

/* cli_opt_value: cli.h. */
int cli_opt_value(const char *cmd, int argc, char **argv, int *i, const char *name, const char **val) {
    const char *a = argv[*i];
    size_t n = strlen(name);
    if (strncmp(a, name, n) != 0 || (a[n] != '=' && a[n] != '\0'))
        return 0;
    if (cli_opt_repeated(argv, *i, name)) {
        cli_user_error(cmd, "option %s given twice", name);
        return -1;
    }
    if (a[n] == '=')
        *val = a + n + 1;
    else if (*i + 1 >= argc) {
        cli_user_error(cmd, "option %s needs a value", name);
        return -1;
    } else if (strncmp(argv[*i + 1], "--", 2) == 0) { /* "--out --fps 5": the value was forgotten */
        cli_user_error(cmd,
                       "option %s needs a value, not the option '%.80s' (write %s=%.80s if that is the "
                       "value)",
                       name, argv[*i + 1], name, argv[*i + 1]);
        return -1;
    } else
        *val = argv[++*i];
    if (**val == '\0') { /* --out "" (an unset shell variable): no file has an empty name */
        cli_user_error(cmd, "option %s needs a value, not an empty one", name);
        return -1;
    }
    return 1;
}

/* cli_opt_flag: cli.h. */
int cli_opt_flag(const char *cmd, char **argv, int i, const char *name) {
    if (strcmp(argv[i], name) != 0)
        return 0;
    if (cli_opt_repeated(argv, i, name)) {
        cli_user_error(cmd, "option %s given twice", name);
        return -1;
    }
    return 1;
}
