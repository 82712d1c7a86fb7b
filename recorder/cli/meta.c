/* meta.c - who plays where for `kifucam record`: --event --site --round --board --sente-name
 * --gote-name, and --pairings FILE (one CSV row chosen by --board); checked into a rec_out_meta_t. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "recorder/cli/cli.h"

static const struct {
    const char *opt, *col; /* the option and the pairings column */
    size_t off;
} META_OPTS[] = {{"--event", "event", offsetof(rec_out_meta_t, event)},
                 {"--site", "site", offsetof(rec_out_meta_t, site)},
                 {"--round", "round", offsetof(rec_out_meta_t, round)},
                 {"--board", "board", offsetof(rec_out_meta_t, board)},
                 {"--sente-name", "sente", offsetof(rec_out_meta_t, sente)},
                 {"--gote-name", "gote", offsetof(rec_out_meta_t, gote)}};
#define NOPTS (sizeof META_OPTS / sizeof META_OPTS[0])

static int set_field(const char *cmd, rec_out_meta_t *m, size_t f, const char *val, const char *from) {
    char why[128];
    if (rec_out_meta_check(val, why, sizeof why) != 0)
        return cli_user_error(cmd, "%s '%.60s': %s", from, val, why);
    snprintf((char *)m + META_OPTS[f].off, REC_META_LEN + 1, "%s", val);
    return 0;
}

int cli_meta_option(const char *cmd, int argc, char **argv, int *i, rec_out_meta_t *m,
                    const char **pairings) {
    const char *val;
    int r;
    if ((r = cli_opt_value(cmd, argc, argv, i, "--pairings", &val)) != 0) {
        if (r < 0)
            return -1;
        *pairings = val;
        return 1;
    }
    for (size_t f = 0; f < NOPTS; f++)
        if ((r = cli_opt_value(cmd, argc, argv, i, META_OPTS[f].opt, &val)) != 0) {
            if (r < 0 || set_field(cmd, m, f, val, META_OPTS[f].opt) != 0)
                return -1;
            return 1;
        }
    return 0;
}

/* Splits one CSV line (RFC 4180: quoted fields with "" inside; no line break inside a field) into at
 * most max fields written into line itself; returns the count, or -1 for a stray quote. */
static int csv_split(char *line, char **field, int max) {
    int n = 0;
    char *p = line, *w;
    line[strcspn(line, "\r\n")] = '\0';
    for (;;) {
        if (n == max)
            return n;
        field[n++] = w = p;
        if (*p == '"') {
            for (p++;; p++) {
                if (*p == '\0')
                    return -1;
                if (*p == '"' && p[1] == '"')
                    *w++ = *p++;
                else if (*p == '"')
                    break;
                else
                    *w++ = *p;
            }
            p++;
            if (*p != ',' && *p != '\0')
                return -1;
        } else {
            while (*p && *p != ',')
                *w++ = *p++;
        }
        int last = *p == '\0';
        *w = '\0';
        if (last)
            return n;
        p++;
    }
}

/* Trims spaces at both ends in place. */
static char *trim(char *s) {
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        s[--n] = '\0';
    return s;
}

int cli_meta_pairings(const char *cmd, const char *path, rec_out_meta_t *m) {
    enum { MAXF = 16 };
    char head[4096] = "", line[4096], *hf[MAXF], *rf[MAXF];
    int col[NOPTS], nh, lno = 1, found = 0;
    if (!m->board[0])
        return cli_user_error(cmd, "--pairings %.200s needs --board: the row of the board recorded", path);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return cli_user_error(cmd, "--pairings %.200s: %s", path, strerror(errno));
    if (fgets(head, sizeof head, f) != NULL && memcmp(head, "\xEF\xBB\xBF", 3) == 0)
        memmove(head, head + 3, strlen(head + 3) + 1); /* the UTF-8 BOM a spreadsheet writes */
    if (head[0] == '\0' || (nh = csv_split(head, hf, MAXF)) < 0) {
        fclose(f);
        return cli_user_error(cmd, "--pairings %.200s: no header line (board,sente,gote[,round,event,site])",
                              path);
    }
    for (size_t c = 0; c < NOPTS; c++) {
        col[c] = -1;
        for (int j = 0; j < nh; j++)
            if (strcasecmp(trim(hf[j]), META_OPTS[c].col) == 0)
                col[c] = j;
    }
    for (size_t c = 3; c < NOPTS; c++) /* board, sente, gote: a pairing names both players */
        if (col[c] < 0) {
            fclose(f);
            return cli_user_error(cmd,
                                  "--pairings %.200s: the header line has no '%s' column (board,sente,gote)",
                                  path, META_OPTS[c].col);
        }
    while (fgets(line, sizeof line, f) != NULL) {
        int n = csv_split(line, rf, MAXF);
        lno++;
        if (n < 0) {
            fclose(f);
            return cli_user_error(cmd, "--pairings %.200s: line %d: a quote that does not close", path, lno);
        }
        if (n <= col[3] || strcmp(trim(rf[col[3]]), m->board) != 0)
            continue;
        if (found || n != nh) {
            /* a board twice or a row cut short: which players sit there is not known */
            fclose(f);
            if (found)
                return cli_user_error(cmd, "--pairings %.200s: board '%.60s' on line %d and again on line %d",
                                      path, m->board, found, lno);
            return cli_user_error(cmd, "--pairings %.200s: line %d has %d fields, the header %d", path, lno,
                                  n, nh);
        }
        found = lno;
        for (size_t c = 0; c < NOPTS; c++) {
            char *dst = (char *)m + META_OPTS[c].off, from[300];
            if (col[c] < 0 || col[c] >= n || dst[0] || !trim(rf[col[c]])[0])
                continue; /* an option given on the command line wins over the file */
            snprintf(from, sizeof from, "--pairings %.200s line %d column %s", path, lno, META_OPTS[c].col);
            if (set_field(cmd, m, c, trim(rf[col[c]]), from) != 0) {
                fclose(f);
                return EXIT_USER;
            }
        }
    }
    fclose(f);
    if (!found)
        return cli_user_error(cmd, "--pairings %.200s: no row for board '%.60s'", path, m->board);
    return 0;
}
