/* main.c - the kifucam program: reads the command line and runs one command (recorder/cli/<command>.c).
 * Owns the process exit status: 0 ok, 1 user error (one line on stderr), 2 internal failure. */
#include <stdio.h>
#include <string.h>

#include "recorder/cli/cli.h"
#include "recorder/record/record.h"

#ifndef KIFUCAM_VERSION
#define KIFUCAM_VERSION "0.1.0" /* the program's version (kifucam --version) */
#endif

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
    {"crops", cmd_crops, crops_help},
    {"record", cmd_record, record_help},
    {"hall", cmd_hall, hall_help},
};

static void main_help(void) {
    printf(
        "kifucam - a shogi game recorder: watches a board through a camera and writes the kifu\n"
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
        "  crops OUT_DIR DEST [--model FILE]           a recording's labelled square crops, for training\n"
        "  record --source URI [--out DIR] ...         watch a game through a camera or video, write its "
        "kifu\n"
        "  hall --mqtt URL [--bind ADDR] [--port P]    serve every board a broker carries on one page\n"
        "\n"
        "'kifucam COMMAND --help' describes each command; kifucam --version prints the version.\n"
        "Exit status: 0 success, 1 user error (one line on stderr), 2 internal failure.\n");
}

int main(int argc, char **argv) {
    int rc;
    if (argc < 2)
        return cli_user_error(NULL, "missing command (commands: replay, convert, moves, perft, impasse, "
                                    "probe, recognize, crops, record, hall; see kifucam --help)");
    if (cli_is_help(argv[1])) {
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
        if (cli_wants_help(argc - 1, argv + 1)) {
            commands[i].help();
            rc = 0;
        } else {
            rc = commands[i].run(argc - 1, argv + 1);
        }
        if (fflush(stdout) != 0 && rc == 0)
            rc = cli_internal_error(commands[i].name, "cannot write the output");
        return rc;
    }
    if (argv[1][0] == '-')
        return cli_user_error(NULL, "unknown option '%.40s' (kifucam COMMAND ...: see kifucam --help)",
                              argv[1]);
    return cli_user_error(NULL,
                          "unknown command '%.40s' (commands: replay, convert, moves, perft, impasse, probe, "
                          "recognize, crops, record, hall; see "
                          "kifucam --help)",
                          argv[1]);
}
