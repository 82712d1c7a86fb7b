/* convert.c - the convert command: a record from one kifu format to another. */
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

/* ---------------------------------------------------------------- convert */

void convert_help(void) {
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

int cmd_convert(int argc, char **argv) {
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
                return cli_user_error(cmd, "unexpected argument '%.80s' (usage: kifucam convert IN OUT)",
                                      argv[i]);
        } else if ((r = cli_opt_value(cmd, argc, argv, &i, "--from", &val)) != 0 ||
                   (which = &to, r = cli_opt_value(cmd, argc, argv, &i, "--to", &val)) != 0) {
            if (r < 0)
                return EXIT_USER;
            *which = rec_kifu_format_from_name(val);
            if (*which == REC_FMT_UNKNOWN)
                return cli_user_error(cmd, "%s '%.40s': unknown format (kif ki2 csa jkf usi western)",
                                      which == &to ? "--to" : "--from", val);
        } else if (cli_is_option(argv[i]) && strcmp(argv[i], "-") != 0) {
            return cli_user_error(cmd, "unknown option '%.80s' (see kifucam convert --help)", argv[i]);
        } else if (!in) {
            in = argv[i];
        } else if (!outp) {
            outp = argv[i];
        } else {
            return cli_user_error(cmd, "unexpected argument '%.80s' (usage: kifucam convert IN OUT)",
                                  argv[i]);
        }
    }
    if (!in || !outp)
        return cli_user_error(cmd, "missing IN or OUT (usage: kifucam convert IN OUT [--from F] [--to F])");
    if (strcmp(in, "-") != 0 && strcmp(outp, "-") != 0) {
        /* writing over the input would lose what the writer does not keep (comments, unknown headers) */
        struct stat si, so;
        if (stat(in, &si) == 0 && stat(outp, &so) == 0 && si.st_dev == so.st_dev && si.st_ino == so.st_ino)
            return cli_user_error(cmd, "%s: IN and OUT are the same file; write to another name", outp);
    }
    if (to == REC_FMT_UNKNOWN)
        to = rec_kifu_format_from_path(outp);
    if (to == REC_FMT_UNKNOWN)
        return cli_user_error(cmd, "%s: no output format from the extension; give --to FORMAT", outp);
    {
        char *text = NULL;
        size_t len = 0;
        rec_kifu_t *part = NULL;
        if ((rc = cli_read_input(cmd, in, &text, &len)) != 0)
            return rc;
        r = rec_kifu_read_keep(text, len, from, &k, &e, &part);
        free(text);
        if (r == REC_KIFU_ENOMEM)
            return cli_internal_error(cmd, "out of memory");
        if (r == REC_KIFU_OK || part)
            cli_print_warnings(cmd, in, r == REC_KIFU_OK ? k : part);
        rec_kifu_free(part);
        if (r != REC_KIFU_OK)
            return cli_read_error(cmd, in, &e);
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
                fprintf(stderr,
                        "kifucam %s: warning: %s: the start position is illegal (%s%s%s): written as it is, "
                        "but replay refuses it\n",
                        cmd, in, rul_invalid_name(why), ve.msg[0] ? ": " : "", ve.msg);
        }
    }
    if (to == REC_FMT_USI && k->result.end != REC_END_NONE && k->result.end != REC_END_RESIGN &&
        k->result.end != REC_END_KACHI && k->result.end != REC_END_TIME_UP)
        fprintf(stderr,
                "kifucam %s: warning: %s: the ending '%s' has no USI form (only resign, win and timeout): "
                "not written\n",
                cmd, outp, rec_kifu_end_name(k->result.end));
    {
        /* KI2 cannot state an illegal move: its line ends before it, said here in one line */
        char note[512];
        if (rec_kifu_write_cuts(k, to, note, sizeof note) > 0)
            fprintf(stderr, "kifucam %s: warning: %s: %s\n", cmd, outp, note);
    }
    r = rec_kifu_write_file(k, outp, to, &e);
    if (r == REC_KIFU_ENOMEM)
        rc = cli_internal_error(cmd, "out of memory");
    else if (r != REC_KIFU_OK)
        rc = cli_user_error(cmd, "%s: %s", outp, e.msg);
    rec_kifu_free(k);
    return rc;
}
