/* perft.c - the perft and moves commands: legal-move tree counts and legal-move lists. */
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

/* ---------------------------------------------------------------- perft */

void perft_help(void) {
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

int cmd_perft(int argc, char **argv) {
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
                    return cli_user_error(cmd, "unexpected argument '%s' (one DEPTH only)", argv[i]);
                depth_arg = argv[i];
            }
            break;
        }
        if (!cli_is_option(a)) {
            if (depth_arg)
                return cli_user_error(cmd, "unexpected argument '%s' (one DEPTH only; quote the SFEN)", a);
            depth_arg = a;
        } else if ((r = cli_opt_value(cmd, argc, argv, &i, "--sfen", &val)) != 0) {
            if (r < 0)
                return EXIT_USER;
            sfen = val;
        } else if ((r = cli_opt_flag(cmd, argv, i, "--divide")) != 0) {
            if (r < 0)
                return EXIT_USER;
            divide = 1;
        } else {
            return cli_user_error(cmd, "unknown option '%s' (see kifucam perft --help)", a);
        }
    }
    if (!depth_arg)
        return cli_user_error(cmd, "missing DEPTH (usage: kifucam perft [--sfen SFEN] [--divide] DEPTH)");
    errno = 0;
    d = strtol(depth_arg, &end, 10);
    if (errno || end == depth_arg || *end || d < 1 || d > RUL_PERFT_MAX_DEPTH)
        return cli_user_error(cmd, "depth must be between 1 and %d (got '%s')", RUL_PERFT_MAX_DEPTH,
                              depth_arg);
    depth = (int)d;
    r = sfen ? cli_load_sfen_opt(cmd, "--sfen", sfen, sfen, 0, &pos)
             : cli_load_sfen(cmd, "startpos", 0, &pos);
    if (r)
        return r;

    if (divide) {
        sorted_moves_t *ms = malloc(sizeof *ms);
        uint64_t total = 0;
        if (!ms)
            return cli_internal_error(cmd, "out of memory");
        cli_sorted_legal(&pos, ms);
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

void moves_help(void) {
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

int cmd_moves(int argc, char **argv) {
    const char *cmd = "moves", *sfen = NULL, *usi = NULL, *val;
    rec_replay_t *rep = NULL;
    sorted_moves_t *ms = NULL;
    rul_pos_t pos;
    int rc = 0, r;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!cli_is_option(a)) {
            rc = cli_user_error(
                cmd, "unexpected argument '%s' (use --sfen \"SFEN\" or --usi \"position ...\")", a);
            goto out;
        } else if ((r = cli_opt_value(cmd, argc, argv, &i, "--sfen", &val)) != 0) {
            if (r < 0) {
                rc = EXIT_USER;
                goto out;
            }
            sfen = val;
        } else if ((r = cli_opt_value(cmd, argc, argv, &i, "--usi", &val)) != 0) {
            if (r < 0) {
                rc = EXIT_USER;
                goto out;
            }
            usi = val;
        } else {
            rc = cli_user_error(cmd, "unknown option '%s' (see kifucam moves --help)", a);
            goto out;
        }
    }
    if (sfen && usi) {
        rc = cli_user_error(cmd, "give --sfen or --usi, not both");
        goto out;
    }
    if (usi) {
        rec_replay_params_t params;
        rec_error_t err;
        rec_replay_params_default(&params);
        params.validate_flags = 0; /* problems (one king) are welcome here */
        if (rec_replay_create(&rep) != REC_OK) {
            rc = cli_internal_error(cmd, "out of memory");
            goto out;
        }
        r = rec_replay_usi(rep, usi, &params, &err);
        if (r == REC_ENOMEM || r == REC_ERANGE) {
            rc = cli_internal_error(cmd, "%s", err.msg);
            goto out;
        }
        if (r != REC_OK) {
            rc = cli_user_error(cmd, "--usi: %s", err.msg);
            goto out;
        }
        if (rep->result.reason == RUL_REASON_ILLEGAL_MOVE) {
            char m[6];
            rul_move_to_usi(rep->illegal_move, m);
            rc = cli_user_error(cmd, "--usi: move %d (%s) is illegal: %s",
                                rep->result.ply + rep->first_move - 1, m, rul_why_name(rep->illegal_why));
            goto out;
        }
        if (rep->moves < rep->moves_written) {
            rc = cli_user_error(cmd, "--usi: the game ended at move %d (%s); %d later move(s) not played",
                                rep->result.ply + rep->first_move - 1, rul_reason_name(rep->result.reason),
                                rep->moves_written - rep->moves);
            goto out;
        }
        if (rep->result.reason != RUL_REASON_NONE) { /* resign, win, mate, sennichite...: no next move */
            rc = cli_user_error(cmd, "--usi: the game is over after move %d (%s): no move is to be made",
                                rep->result.ply + rep->first_move - 1, rul_reason_name(rep->result.reason));
            goto out;
        }
        pos = rep->game.pos;
    } else {
        rc = sfen ? cli_load_sfen_opt(cmd, "--sfen", sfen, sfen, 0, &pos)
                  : cli_load_sfen(cmd, "startpos", 0, &pos);
        if (rc)
            goto out;
    }
    ms = malloc(sizeof *ms);
    if (!ms) {
        rc = cli_internal_error(cmd, "out of memory");
        goto out;
    }
    cli_sorted_legal(&pos, ms);
    for (int i = 0; i < ms->count; i++)
        puts(ms->m[i].usi);
out:
    free(ms);
    rec_replay_destroy(rep);
    return rc;
}
