/* impasse.c - the impasse command: judges a jishogi (nyugyoku) declaration by the side to move. */
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

/* ---------------------------------------------------------------- impasse */

void impasse_help(void) {
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

int cmd_impasse(int argc, char **argv) {
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
        if (!cli_is_option(a)) {
            /* The SFEN may be quoted (one argument) or not (four). */
            size_t k = strlen(a);
            if (n + k + 2 > sizeof sfen)
                return cli_user_error(cmd, "SFEN too long");
            if (n)
                sfen[n++] = ' ';
            memcpy(sfen + n, a, k + 1);
            n += k;
            nargs++;
        } else if ((r = cli_opt_flag(cmd, argv, i, "--json")) != 0) {
            if (r < 0)
                return EXIT_USER;
            json = 1;
        } else if ((r = cli_opt_value(cmd, argc, argv, &i, "--rule", &val)) != 0) {
            if (r < 0 || cli_parse_rule(cmd, val, &rule))
                return EXIT_USER;
        } else {
            return cli_user_error(cmd, "unknown option '%s' (see kifucam impasse --help)", a);
        }
    }
    if (!nargs)
        return cli_user_error(cmd,
                              "missing SFEN (usage: kifucam impasse SFEN [--rule 27|24|count] [--json])");
    r = cli_load_sfen(cmd, sfen, RUL_VALIDATE_BOTH_KINGS, &pos);
    if (r)
        return r;
    memset(&imp, 0, sizeof imp);
    if (rul_impasse_judge(&pos, rule, &imp) != RUL_OK)
        return cli_internal_error(cmd, "the position could not be judged");

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
