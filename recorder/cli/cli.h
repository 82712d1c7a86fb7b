/* cli.h - what the commands of the kifucam program share: exit statuses, messages, option parsing,
 * and one function per command (recorder/cli/<command>.c). Internal to the program. */
#ifndef KIFUCAM_CLI_H
#define KIFUCAM_CLI_H

#include <stdarg.h>
#include <stddef.h>

#include "recorder/kifu/kifu.h"
#include "recorder/output/output.h"
#include "rules/rules.h"

#define EXIT_USER 1     /* a user's error: one line on stderr */
#define EXIT_INTERNAL 2 /* an internal failure */

/* "kifucam CMD: message" on stderr; return EXIT_USER / EXIT_INTERNAL. cmd may be NULL. */
int cli_user_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int cli_internal_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

int cli_is_help(const char *a);            /* "--help" or "-h" */
int cli_wants_help(int argc, char **argv); /* 1 if an argument before "--" asks for help */
int cli_is_option(const char *a);          /* "-x" or "--name"; "-" and "-5" are operands */
/* --rule 27|24|count; prints the error ("--rule 'X': must be 27, 24 or count") and returns EXIT_USER on
 * a bad value. */
int cli_parse_rule(const char *cmd, const char *s, rul_impasse_rule_t *rule);
/* An SFEN (or "startpos") that rul_pos_validate(flags) accepts; EXIT_USER with its line on failure. */
int cli_load_sfen(const char *cmd, const char *sfen, int flags, rul_pos_t *pos);
/* cli_load_sfen for the value of option opt ("--sfen"): the line names it with the value as given,
 * "--sfen 'VALUE': bad SFEN: column 3: ..." or "--sfen 'VALUE': illegal position: ...". value is what
 * the user wrote, sfen what is read (the value completed, e.g. a board field with " b - 1" added). */
int cli_load_sfen_opt(const char *cmd, const char *opt, const char *value, const char *sfen, int flags,
                      rul_pos_t *pos);

/* Legal moves of pos with their USI strings, sorted by the string. */
typedef struct {
    char usi[6];
    rul_move_t move;
} usi_move_t;

typedef struct {
    usi_move_t m[RUL_MAX_MOVES];
    int count;
} sorted_moves_t;
void cli_sorted_legal(const rul_pos_t *pos, sorted_moves_t *out);

/* The whole of a file or of stdin ("-"); caller frees *out. EXIT_USER with its line on failure. */
int cli_read_input(const char *cmd, const char *path, char **out, size_t *len);
/* Prints a record's reader warnings, one line each, to stderr. */
void cli_print_warnings(const char *cmd, const char *path, const rec_kifu_t *k);
/* Prints a reader's error (line and column) and returns EXIT_USER. */
int cli_read_error(const char *cmd, const char *path, const rec_kifu_error_t *e);

/* The commands: each parses its options, calls the libraries, prints; returns the exit status. */
int cmd_perft(int argc, char **argv);
void perft_help(void);
int cmd_moves(int argc, char **argv);
void moves_help(void);
int cmd_replay(int argc, char **argv);
void replay_help(void);
int cmd_convert(int argc, char **argv);
void convert_help(void);
int cmd_impasse(int argc, char **argv);
void impasse_help(void);
int cmd_probe(int argc, char **argv);
void probe_help(void);
int cmd_recognize(int argc, char **argv);
void recognize_help(void);
int cmd_crops(int argc, char **argv);
void crops_help(void);

/* ---- a finished recording (recevents.c): what one events.jsonl line of OUT_DIR gives */
typedef struct {
    int seq, ply;
    char frame[4200], sfen[256]; /* the frame after the event (OUT_DIR/evidence/...), the position */
    double corners[4][2];        /* the grid's corners in it, as sente sees the board (board_px) */
    int w, h;                    /* the frame's size */
} cli_rec_event_t;

/* Reads line into *ev: a game_start or move event with an SFEN. Returns 1 usable, 0 not such an event,
 * -1 such an event without its frame (missing on disk) or the board's place. */
int cli_rec_event_read(const char *out_dir, const char *line, cli_rec_event_t *ev);
/* The `kifucam record` command: parses argv (argv[0] = "record"), installs SIGINT/SIGTERM handlers
 * that stop the recording cleanly, reads commands from standard input, shows progress on standard
 * error, prints a summary on standard output. Returns the exit status: 0, 1 (user error, one line on
 * stderr), 2 (internal failure). */
int cmd_record(int argc, char **argv);
void record_help(void); /* the help of `kifucam record` on standard output */
/* The `kifucam hall` command (hall.c): serves the boards of an MQTT prefix until SIGINT/SIGTERM. */
int cmd_hall(int argc, char **argv);
void hall_help(void);

/* ---- who plays where (meta.c) */

/* Matches one metadata option of `record` at argv[*i] (--event --site --round --board --sente-name
 * --gote-name VALUE, checked by rec_out_meta_check into m; --pairings FILE into *pairings): 1 taken,
 * 0 another argument, -1 after one error line. */
int cli_meta_option(const char *cmd, int argc, char **argv, int *i, rec_out_meta_t *m, const char **pairings);

/* Fills m's fields not given yet from the row of pairings CSV file path whose 'board' column is
 * m->board (a header line names the columns: board, sente, gote, and optionally round, event, site;
 * RFC 4180 quoting). 0, or EXIT_USER after one error line (no file, no such row, a bad value). */
int cli_meta_pairings(const char *cmd, const char *path, rec_out_meta_t *m);

/* ---- messages and option parsing (record.c) */

/* Prints an error of a kifucam command on stderr as one line, "kifucam CMD: message" ("kifucam:
 * message" for a NULL cmd): fmt and ap formatted (at most 8 KiB), control characters shown as '?', and
 * when plain (a user's error: bad input, exit 1) the library function names removed
 * (rec_plain_message); an internal failure (exit 2) keeps them for a bug report. */
void cli_vsay(const char *cmd, int plain, const char *fmt, va_list ap);

/* 1 if option name (such as "--overlay") was already given among argv[1..i-1], as "--name VALUE" or
 * "--name=VALUE"; 0 otherwise (also for NULL arguments). The command-line parsers of kifucam refuse an
 * option with a value given twice (which one was meant cannot be told) instead of letting the last win.
 * argv is not changed; nothing is allocated. */
int cli_opt_repeated(char *const *argv, int i, const char *name);

/* Matches option name ("--overlay") at argv[*i], as "--name VALUE" or "--name=VALUE", for command cmd
 * ("recognize"): 1 with *val set (pointing into argv; *i moved past a separate value), 0 if argv[*i] is
 * another argument, -1 after one error line on stderr ("kifucam CMD: option --name needs a value", also
 * when the next argument is itself an option such as "--fps" (the value was forgotten; "--name=--fps"
 * passes one that starts so) or empty ("--out ''", an unset shell variable), or "... given twice":
 * cli_opt_repeated). The one option parser of every kifucam command. */
int cli_opt_value(const char *cmd, int argc, char **argv, int *i, const char *name, const char **val);

/* Matches flag name ("--json", an option without a value) at argv[i] for command cmd: 1 if it is that
 * flag, 0 if argv[i] is another argument, -1 after one error line on stderr ("kifucam CMD: option --json
 * given twice": cli_opt_repeated) when it was given before. A flag twice is refused like an option with
 * a value given twice, so that every command treats a repeated option the same way. */
int cli_opt_flag(const char *cmd, char **argv, int i, const char *name);

/* Writes the English names of the handicaps --handicap takes ("even, lance, right-lance, ..., 10-piece",
 * rul_handicap_info's, FESA / JSA order) into buf (size bytes, NUL-terminated, cut if too small; 200
 * bytes is enough), for the one error line of a name that is not one. */
void cli_handicap_names(char *buf, size_t size);

#endif /* KIFUCAM_CLI_H */
