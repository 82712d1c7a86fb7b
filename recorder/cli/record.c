/* record.c - the `kifucam record` command: parses its options, checks the output folder, runs the
 * recording (rec_record_run, record.h) with signal handlers and stdin commands, prints the summary;
 * and the messages and option parsing every command shares (cli.h). */
#include <dirent.h>
#include <errno.h>
#include <arpa/inet.h>
#include <libgen.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "recorder/hall/hall.h"
#include "recorder/kifu/kifu.h"
#include "recorder/record/record.h"
#include "rules/rules.h"

#include "recorder/cli/cli.h"

static volatile sig_atomic_t g_stop; /* set by SIGINT / SIGTERM / SIGHUP in `kifucam record` only */

static void on_signal(int sig) {
    (void)sig;
    g_stop = 1;
}

void cli_handicap_names(char *buf, size_t size) {
    size_t len = 0;
    if (buf == NULL || size == 0)
        return;
    buf[0] = 0;
    for (int h = 0; h < RUL_HC_NB; h++) {
        rul_handicap_info_t info;
        if (rul_handicap_info((rul_handicap_t)h, &info) != RUL_OK)
            continue;
        int n = snprintf(buf + len, size - len, "%s%s", len ? ", " : "", info.name);
        if (n < 0 || (size_t)n >= size - len)
            return;
        len += (size_t)n;
    }
}

void record_help(void) {
    printf(
        "usage: kifucam record --source URI [--out DIR] [--start SFEN | --handicap NAME] [--rule 27|24]\n"
        "                      [--model FILE] [--fps F] [--resume DIR] [--live [ADDR:]PORT] [--resync S]\n"
        "                      [--control SOCKET] [--no-adapt] [--no-turned] [--degrade D]\n"
        "                      [--event NAME] [--site NAME] [--round R] [--board B] [--sente-name NAME]\n"
        "                      [--gote-name NAME] [--pairings CSV] [--mqtt URL] [--realtime]\n"
        "\n"
        "Watches a shogi board through URI (a camera /dev/videoN or v4l2:/dev/videoN?width=..., a video\n"
        "file, a folder of numbered images) and writes the game record as it goes, into DIR (default\n"
        "kifucam-out): game.kif .ki2 .csa .jkf .usi after every move, events.jsonl (moves, illegal\n"
        "moves, uncertain reads, setup errors, game end), evidence/ JPEGs, review.html, and\n"
        "source.jsonl (board found/lost, camera lost/back, corrupt, damaged or missing frames).\n"
        "--start / --handicap: the expected start (default: any standard start, even or handicap).\n"
        "--rule 27|24: the impasse rule a `declare` command is judged by (default 27).\n"
        "--resync S: a game lost track of (no view explained by its moves for S seconds: moves made out\n"
        "of view) is taken up again from a view read with confidence once the next view is one move\n"
        "from it: its record stops and the next game (gameN files) continues from that position, with\n"
        "a warning; 0: never, the record stops there (default 3).\n"
        "--model: the square classifier (default $KIFUCAM_MODEL, else models/squares.onnx of the source\n"
        "tree or of the installation: share/kifucam/squares.onnx beside the program's bin/).\n"
        "--fps: frames per second of an image folder (default 30).\n"
        "--realtime: read a video file or image folder no faster than its frame times, as a camera gives\n"
        "them (tests and load measurements); a recorder too slow for that falls behind.\n"
        "--no-adapt: take the network's reading as it is; by default it is adapted to the piece set on\n"
        "the board (each square compared with the squares known to hold each kind: the start, then\n"
        "every recorded position).\n"
        "--no-turned: read each square once; by default a square is also read turned by 180 degrees\n"
        "(as the other player sees it) and the two readings are merged (test-time turn).\n"
        "--degrade D: for evaluation only: mix each square's probabilities with random ones, (1-D) p +\n"
        "D r (0..1): a classifier that misreads, to measure that the recorder still writes no wrong move.\n"
        "--event, --site, --round, --board, --sente-name, --gote-name: who plays where, into every kifu\n"
        "file's headers (KIF 棋戦 場所 回戦 盤番号 先手 後手, CSA $EVENT $SITE N+ N-, JKF header, USI\n"
        "'# KEY：VALUE' lines) and DIR/meta.json. --pairings CSV: the row of --board in a CSV file whose\n"
        "header line names its columns (board, sente, gote; round, event, site optional); an option\n"
        "given wins over the file.\n"
        "--mqtt mqtt://HOST[:PORT]/PREFIX (mqtts:// for TLS): publish the board (--board) to an MQTT\n"
        "broker as it is recorded: a retained state, every event at QoS 1, the kifu files; what the broker\n"
        "misses is sent again from events.jsonl. User and password from KIFUCAM_MQTT_USER and\n"
        "KIFUCAM_MQTT_PASSWORD or the file KIFUCAM_MQTT_CREDENTIALS (user:password), never the command "
        "line.\n");
    printf(
        "--resume DIR: continue the recording in DIR from its events.jsonl (after a crash); a video\n"
        "file or image folder is skipped up to the time of the last event logged.\n"
        "--live [ADDR:]PORT: serve the live feed on TCP PORT of ADDR (default 127.0.0.1, this machine only;\n"
        "0.0.0.0 every interface, [::1]:PORT an IPv6 one): a live page at /, the game\n"
        "as JSON at /state.json (?since=N waits for the next change), the kifu files, evidence frames.\n"
        "Operator commands on standard input, one a line: resign sente|gote, declare, flag sente|gote, "
        "abort.\n"
        "--control SOCKET: also take them from a Unix socket created at SOCKET (e.g. `echo 'resign gote' |\n"
        "nc -U SOCKET`); each line is answered 'ok: ...' or 'refused: ...: why'.\n"
        "Progress on standard error; a summary on standard output at the end. Ctrl-C, SIGTERM and SIGHUP\n"
        "end cleanly.\n"
        "Exit 0 at the end of the source or on abort; 1 with one line for a missing source or model,\n"
        "no board found, a bad option; 2 on an internal failure.\n");
    char names[256];
    cli_handicap_names(names, sizeof names);
    printf("Handicap names: %s.\n", names);
}

/* After a failed run that recorded nothing (no board found, say): removes what the run put in dir and was
 * not there before (the flags: made by this run): an empty events.jsonl, an empty evidence/, source.jsonl,
 * and dir itself, so that a failed command leaves nothing behind. Anything else (a frame kept as evidence)
 * keeps what holds it; source.jsonl goes only when nothing else of the run is left, and never with
 * keep_source (a warning sent the user to its lines of damaged or undecodable frames). */
static void remove_empty_recording(const char *dir, int made_dir, int made_events, int made_evidence,
                                   int made_source, int keep_source) {
    char p[4200];
    struct stat sb;
    int left = 0; /* something of this run's stays (a frame kept as evidence) */
    snprintf(p, sizeof p, "%s/events.jsonl", dir);
    if (made_events && stat(p, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size == 0) {
        unlink(p);
        snprintf(p, sizeof p, "%s/meta.json", dir); /* the metadata of the recording that was not made */
        unlink(p);
        snprintf(p, sizeof p, "%s/events.jsonl", dir);
    }
    left |= made_events && stat(p, &sb) == 0;
    snprintf(p, sizeof p, "%s/evidence", dir);
    if (made_evidence)
        rmdir(p);
    left |= made_evidence && stat(p, &sb) == 0;
    snprintf(p, sizeof p, "%s/source.jsonl", dir);
    if (keep_source)
        return; /* a warning named its lines (damaged or undecodable frames): they stay, and dir with them */
    if (!made_dir) {
        if (made_source && !left)
            unlink(p);
        return;
    }
    if (rmdir(dir) != 0 && errno == ENOTEMPTY) { /* source.jsonl only goes when it is all that is left */
        DIR *d = opendir(dir);
        int others = 0;
        struct dirent *e;
        while (d && (e = readdir(d)) != NULL)
            others += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0 &&
                      strcmp(e->d_name, "source.jsonl") != 0;
        if (d)
            closedir(d);
        if (d && others == 0 && unlink(p) == 0)
            rmdir(dir);
    }
}

/* 1 if dir holds a file an earlier recording wrote and this one would write over: game.kif .ki2 .csa
 * .jkf .usi or a later game's (game2.kif ...), review.html, or frames in evidence/ (an empty evidence/,
 * left by a run that recorded nothing, is not one). what (size >= 64) names the first found. */
static int earlier_recording(const char *dir, char *what, size_t size) {
    static const char *const kifu_ext[] = {"kif", "ki2", "csa", "jkf", "usi"};
    char p[4096];
    struct stat st;
    DIR *d;
    struct dirent *de;
    int found = 0;
    for (size_t k = 0; k < sizeof kifu_ext / sizeof *kifu_ext; k++) { /* game.kif first: named as before */
        snprintf(p, sizeof p, "%s/game.%s", dir, kifu_ext[k]);
        if (stat(p, &st) == 0) {
            snprintf(what, size, "game.%s", kifu_ext[k]);
            return 1;
        }
    }
    snprintf(p, sizeof p, "%s/review.html", dir);
    if (stat(p, &st) == 0) {
        snprintf(what, size, "review.html (an earlier recording's)");
        return 1;
    }
    if ((d = opendir(dir)) != NULL) { /* game2.kif, game3.csa ...: the later games of a recording */
        while (!found && (de = readdir(d)) != NULL) {
            const char *n = de->d_name, *q = n + 4;
            if (strncmp(n, "game", 4) != 0 || *q < '1' || *q > '9')
                continue;
            while (*q >= '0' && *q <= '9')
                q++;
            for (size_t k = 0; *q == '.' && k < sizeof kifu_ext / sizeof *kifu_ext; k++)
                if (strcmp(q + 1, kifu_ext[k]) == 0) {
                    snprintf(what, size, "%.60s", n);
                    found = 1;
                }
        }
        closedir(d);
    }
    snprintf(p, sizeof p, "%s/evidence", dir);
    if (!found && (d = opendir(p)) != NULL) {
        while (!found && (de = readdir(d)) != NULL)
            if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0) {
                snprintf(what, size, "evidence/%.60s (an earlier recording's frames)", de->d_name);
                found = 1;
            }
        closedir(d);
    }
    return found;
}

/* The command line of one `kifucam record`, what its checks found, and its outcome. */
typedef struct {
    rec_record_opts_t o;
    rul_pos_t start;                        /* --start / --handicap's position */
    char live_addr[64];                     /* --live's address, "" for the default */
    const char *sfen, *hcap, *resume, *out; /* the options as given, NULL: absent */
    off_t source_size;                      /* bytes of the folder's source.jsonl before this run, -1: none */
    int existed;                            /* 1: the output folder was there before this run */
    int had_source, had_evidence, had_events; /* 1: source.jsonl, evidence/, events.jsonl were there */
    char model[4096];                         /* the default model's path (rec_model_default) */
    rec_record_stats_t st;
    rec_out_meta_t meta;  /* --event ... --gote-name, --pairings */
    const char *pairings; /* --pairings FILE, NULL: none */
    char err[4900];
} record_cmd_t;

static int live_option(record_cmd_t *c, const char *val);

/* Reads the options into *c; 0, or the exit status after the error line. */
static int parse_options(record_cmd_t *c, int argc, char **argv) {
    const char *val;
    int r;
    for (int i = 1; i < argc; i++) {
        if ((r = cli_opt_value("record", argc, argv, &i, "--source", &val)) != 0) {
            if (r < 0)
                return 1;
            c->o.source = val;
        } else if ((r = cli_opt_value("record", argc, argv, &i, "--out", &val)) != 0) {
            if (r < 0)
                return 1;
            c->out = val;
        } else if ((r = cli_opt_value("record", argc, argv, &i, "--start", &val)) != 0) {
            if (r < 0)
                return 1;
            c->sfen = val;
        } else if ((r = cli_opt_value("record", argc, argv, &i, "--handicap", &val)) != 0) {
            if (r < 0)
                return 1;
            c->hcap = val;
        } else if ((r = cli_opt_value("record", argc, argv, &i, "--rule", &val)) != 0) {
            if (r < 0)
                return 1;
            if (strcmp(val, "27") == 0)
                c->o.trk.impasse_rule = RUL_IMPASSE_27;
            else if (strcmp(val, "24") == 0)
                c->o.trk.impasse_rule = RUL_IMPASSE_24;
            else
                return cli_user_error("record", "--rule '%.40s': must be 27 or 24", val);
        } else if ((r = cli_opt_value("record", argc, argv, &i, "--resync", &val)) != 0) {
            char *end;
            double sec;
            if (r < 0)
                return 1;
            sec = strtod(val, &end);
            if (*end || end == val || !(val[0] >= '0' && val[0] <= '9') || strchr(val, 'x') ||
                strchr(val, 'X') || !(sec == 0 || (sec >= 0.1 && sec <= 3600)))
                return cli_user_error(
                    "record", "--resync '%.40s': must be 0 (never) or a number of seconds, 0.1-3600", val);
            c->o.trk.resync_after_us = (int64_t)(sec * 1e6);
        } else if ((r = cli_opt_value("record", argc, argv, &i, "--model", &val)) != 0) {
            if (r < 0)
                return 1;
            c->o.model = val;
        } else if ((r = cli_opt_value("record", argc, argv, &i, "--fps", &val)) != 0) {
            char *end;
            if (r < 0)
                return 1;
            c->o.fps = strtod(val, &end);
            if (*end || !(c->o.fps >= 0.1 && c->o.fps <= 1000))
                return cli_user_error("record",
                                      "--fps '%.40s': must be a number of frames per second, 0.1-1000", val);
        } else if ((r = cli_opt_value("record", argc, argv, &i, "--control", &val)) != 0) {
            if (r < 0)
                return 1;
            c->o.control_path = val;
        } else if ((r = cli_opt_value("record", argc, argv, &i, "--live", &val)) != 0) {
            if (r < 0)
                return 1;
            if ((r = live_option(c, val)) != 0)
                return r;
        } else if ((r = cli_opt_flag("record", argv, i, "--no-adapt")) != 0) {
            if (r < 0)
                return 1;
            c->o.adapt = 0;
        } else if ((r = cli_opt_flag("record", argv, i, "--realtime")) != 0) {
            if (r < 0)
                return 1;
            c->o.realtime = 1;
        } else if ((r = cli_opt_flag("record", argv, i, "--no-turned")) != 0) {
            if (r < 0)
                return 1;
            c->o.turned = 0;
        } else if ((r = cli_opt_value("record", argc, argv, &i, "--degrade", &val)) != 0) {
            char *end;
            if (r < 0)
                return 1;
            c->o.degrade = strtod(val, &end);
            if (end == val || *end || !(val[0] >= '0' && val[0] <= '9') || strchr(val, 'x') ||
                strchr(val, 'X') || !(c->o.degrade >= 0 && c->o.degrade <= 1))
                return cli_user_error("record", "--degrade '%.40s': must be a number from 0 to 1", val);
        } else if ((r = cli_opt_value("record", argc, argv, &i, "--mqtt", &val)) != 0) {
            if (r < 0)
                return 1;
            c->o.mqtt_url = val;
        } else if ((r = cli_meta_option("record", argc, argv, &i, &c->meta, &c->pairings)) != 0) {
            if (r < 0)
                return 1;
        } else if ((r = cli_opt_value("record", argc, argv, &i, "--resume", &val)) != 0) {
            if (r < 0)
                return 1;
            c->resume = val;
        } else if (argv[i][0] == '-') {
            return cli_user_error("record", "unknown option '%.80s' (see kifucam record --help)", argv[i]);
        } else {
            return cli_user_error(
                "record", "unexpected argument '%.80s' (usage: kifucam record --source URI [--out DIR] ...)",
                argv[i]);
        }
    }
    return 0;
}

/* --live [ADDR:]PORT, [V6ADDR]:PORT: the feed's address (an IP literal; default 127.0.0.1) and port into
 * c->o (the address kept in c->live_addr). 0, or the exit status. */
static int live_option(record_cmd_t *c, const char *val) {
    const char *ps = val, *colon = strrchr(val, ':');
    char *end;
    if (val[0] == '[') { /* [v6]:PORT */
        const char *close = strchr(val, ']');
        if (close == NULL || close[1] != ':' || (size_t)(close - val - 1) >= sizeof c->live_addr)
            return cli_user_error("record", "--live '%.60s': an IPv6 address is written [ADDR]:PORT", val);
        memcpy(c->live_addr, val + 1, (size_t)(close - val - 1));
        c->live_addr[close - val - 1] = '\0';
        ps = close + 2;
    } else if (colon != NULL) {
        if (strchr(val, ':') != colon)
            return cli_user_error("record", "--live '%.60s': an IPv6 address is written [ADDR]:PORT", val);
        if ((size_t)(colon - val) >= sizeof c->live_addr)
            return cli_user_error("record", "--live '%.60s': not an IP address", val);
        memcpy(c->live_addr, val, (size_t)(colon - val));
        c->live_addr[colon - val] = '\0';
        ps = colon + 1;
    }
    long port = strtol(ps, &end, 10);
    if (*end || end == ps || port < 1 || port > 65535)
        return cli_user_error("record", "--live '%.60s': must be [ADDR:]PORT, a TCP port 1-65535", val);
    if (c->live_addr[0]) {
        unsigned char buf[16];
        if (strcmp(c->live_addr, "localhost") == 0)
            snprintf(c->live_addr, sizeof c->live_addr, "127.0.0.1");
        if (inet_pton(AF_INET, c->live_addr, buf) != 1 && inet_pton(AF_INET6, c->live_addr, buf) != 1)
            return cli_user_error(
                "record",
                "--live '%.60s': '%.60s' is not an IP address (0.0.0.0 for every interface, "
                "[::] for every IPv6 one)",
                val, c->live_addr);
        c->o.live_addr = c->live_addr;
    }
    c->o.live_port = (int)port;
    return 0;
}

/* The options together and the start position (--start, --handicap); 0, or the exit status. */
static int check_options(record_cmd_t *c) {
    if (c->o.source == NULL)
        return cli_user_error("record",
                              "missing --source URI (usage: kifucam record --source URI [--out DIR] ...)");
    if (c->sfen && c->hcap)
        return cli_user_error("record", "--start and --handicap cannot both be given");
    if (c->resume && (c->sfen || c->hcap))
        return cli_user_error("record",
                              "--resume continues a recording from its own start: %s cannot be given with it",
                              c->sfen ? "--start" : "--handicap");
    if (c->pairings && cli_meta_pairings("record", c->pairings, &c->meta) != 0)
        return 1;
    if (!rec_out_meta_empty(&c->meta))
        c->o.meta = &c->meta;
    if (c->o.mqtt_url) { /* checked before anything is written; a resumed folder's meta.json may name the
                            board */
        rec_mqtt_url_t u;
        rec_out_meta_t kept;
        char why[300], user[256], pass[256], shown[256];
        if (rec_mqtt_url_parse(c->o.mqtt_url, &u, why, sizeof why) != REC_OK)
            return cli_user_error("record", "--mqtt %.200s: %s",
                                  rec_mqtt_url_shown(c->o.mqtt_url, shown, sizeof shown), why);
        const char *board = c->meta.board[0] || !c->resume || rec_out_meta_load(c->resume, &kept) != REC_OK
                                ? c->meta.board
                                : kept.board;
        if (rec_hall_board_check(board) != 0)
            return cli_user_error(
                "record",
                "--mqtt needs --board B: letters, digits, '-', '_' or '.', at most %d (got '%.80s')",
                REC_HALL_BOARD_MAX, board);
        if (rec_mqtt_credentials(user, pass, sizeof user, why, sizeof why) != REC_OK)
            return cli_user_error("record", "%s", why);
        memset(pass, 0, sizeof pass);
    }
    if (c->resume && c->out && strcmp(c->resume, c->out) != 0)
        return cli_user_error("record",
                              "--resume DIR writes into DIR: --out must be the same folder or absent");
    if (c->sfen) {
        rul_error_t re;
        memset(&re, 0, sizeof re);
        if (rul_pos_from_sfen(&c->start, strcmp(c->sfen, "startpos") == 0 ? RUL_SFEN_STARTPOS : c->sfen,
                              &re) != RUL_OK)
            return cli_user_error("record", "--start '%.100s': bad SFEN: %s", c->sfen,
                                  strncmp(re.msg, "sfen: ", 6) == 0 ? re.msg + 6
                                  : re.msg[0]                       ? re.msg
                                                                    : "malformed");
        memset(&re, 0, sizeof re);
        rul_invalid_t why = rul_pos_validate(&c->start, RUL_VALIDATE_BOTH_KINGS, &re);
        if (why != RUL_VALID) /* FESA 9.1 / 9.4: a game cannot start there */
            return cli_user_error("record", "--start '%.100s': not a position a game can start from: %s%s%s",
                                  c->sfen, rul_invalid_name(why), re.msg[0] ? ": " : "", re.msg);
        /* the kifu numbers its moves from the SFEN's move number; the longest game (RUL_GAME_MAX_PLY moves)
           must not carry it past the number SFEN can hold (rules.h, RUL_SFEN_MAX_NUMBER): every reader
           refuses a record that does */
        if (c->start.ply > RUL_SFEN_MAX_NUMBER - RUL_GAME_MAX_PLY)
            return cli_user_error(
                "record",
                "--start '%.100s': move number %d leaves no room for a game (%d moves) under SFEN's "
                "last move number %d: at most %d",
                c->sfen, c->start.ply, RUL_GAME_MAX_PLY, RUL_SFEN_MAX_NUMBER,
                RUL_SFEN_MAX_NUMBER - RUL_GAME_MAX_PLY);
        c->o.start = &c->start;
    } else if (c->hcap) {
        rul_handicap_t h;
        if (rul_handicap_from_name(c->hcap, &h) != RUL_OK || rul_pos_set_handicap(&c->start, h) != RUL_OK) {
            char names[256];
            cli_handicap_names(names, sizeof names);
            return cli_user_error("record", "--handicap '%.40s': not a handicap (%s)", c->hcap, names);
        }
        c->o.start = &c->start;
    }
    return 0;
}

/* The output folder: --resume's, or --out's, never written over (made if missing, in a folder that
 * exists); notes what was there before, for a failed run to remove only its own. 0, or the status. */
static int check_folder(record_cmd_t *c) {
    if (c->resume) {
        struct stat sb;
        char p[4096];
        snprintf(p, sizeof p, "%s/events.jsonl", c->resume);
        if (stat(p, &sb) != 0)
            return cli_user_error("record", "--resume %.200s: no events.jsonl there", c->resume);
        c->o.out_dir = c->resume;
        c->o.resume = 1;
    } else if (c->out) {
        c->o.out_dir = c->out;
    }
    c->source_size = -1; /* size of a source.jsonl there before this run: a failed run cuts it back */
    {
        struct stat jb;
        char p[4096];
        snprintf(p, sizeof p, "%s/source.jsonl", c->o.out_dir);
        if (stat(p, &jb) == 0 && S_ISREG(jb.st_mode))
            c->source_size = jb.st_size;
    }
    c->existed = 1; /* the output folder was there before this run (a failed run removes only its own) */
    c->had_source = c->had_evidence = c->had_events = 1; /* ... and these in it */
    if (!c->o.resume) { /* never write over a recording: its kifu files would be replaced */
        struct stat eb;
        char p[4096];
        /* --out is a folder, made if missing, but only in a folder that exists (a typo makes no tree) */
        c->existed = stat(c->o.out_dir, &eb) == 0;
        if (c->existed && !S_ISDIR(eb.st_mode))
            return cli_user_error("record", "--out %.200s: exists and is not a folder", c->o.out_dir);
        snprintf(p, sizeof p, "%s", c->o.out_dir);
        const char *parent = dirname(p); /* POSIX: "a/b/" -> "a", "b" -> ".", "/b" -> "/" */
        if (!c->existed && stat(parent, &eb) != 0)
            return cli_user_error("record", "--out %.200s: the folder '%.200s' does not exist", c->o.out_dir,
                                  parent);
        if (!c->existed && !S_ISDIR(eb.st_mode))
            return cli_user_error("record", "--out %.200s: '%.200s' is not a folder", c->o.out_dir, parent);
        snprintf(p, sizeof p, "%s/events.jsonl", c->o.out_dir);
        if (stat(p, &eb) == 0 && eb.st_size > 0)
            return cli_user_error(
                "record",
                "%.200s already holds a recording (events.jsonl): continue it with --resume %.200s, "
                "or give another --out",
                c->o.out_dir, c->o.out_dir);
        /* what an earlier recording left (a kifu of another game, copied there or with its events.jsonl
         * removed; its review.html; its evidence/ frames) would be replaced by this one's: refused, not
         * overwritten */
        if (c->existed) {
            char what[300];
            if (earlier_recording(c->o.out_dir, what, sizeof what))
                return cli_user_error("record",
                                      "%.200s already holds %s, which this recording would write over: give "
                                      "another --out, or move the file away",
                                      c->o.out_dir, what);
        }
        c->had_source = c->source_size >= 0;
        snprintf(p, sizeof p, "%s/evidence", c->o.out_dir);
        c->had_evidence = c->existed && stat(p, &eb) == 0;
        snprintf(p, sizeof p, "%s/events.jsonl", c->o.out_dir);
        c->had_events = c->existed && stat(p, &eb) == 0;
    }
    return 0;
}

/* The source exists (a camera named v4l2:... is opened by the run); --fps on a video file is ignored,
 * with a warning. 0, or the exit status. */
static int check_source(const record_cmd_t *c) {
    struct stat sb;
    if (strncmp(c->o.source, "v4l2:", 5) != 0 && stat(c->o.source, &sb) != 0)
        return cli_user_error("record", "%.200s: %s", c->o.source, strerror(errno));
    if (c->o.fps > 0 && strncmp(c->o.source, "v4l2:", 5) != 0 &&
        S_ISREG(sb.st_mode)) /* capture.h: files: unused */
        fprintf(stderr,
                "kifucam record: warning: --fps is for an image folder or a camera; %.200s is a video file, "
                "which carries its own frame times: --fps ignored\n",
                c->o.source);
    return 0;
}

/* Runs the recording with the signal handlers and standard input as the command source; a failed run
 * that recorded nothing leaves the folder as it was. Returns rec_record_run's code. */
static int run_recording(record_cmd_t *c) {
    c->o.cmd_fd = 0;
    c->o.verbose = getenv("KIFUCAM_VERBOSE") && getenv("KIFUCAM_VERBOSE")[0] == '1';
    c->o.log = stderr;
    c->o.log_tty = isatty(2);
    c->o.stop = &g_stop;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL); /* the terminal closed: end cleanly too (files flushed, `interrupted`) */
    int rc = rec_record_run(&c->o, &c->st, c->err, sizeof c->err);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGHUP, SIG_DFL);
    int damage_said = c->st.corrupt > 0 || c->st.last_damage_us >= 0; /* a warning pointed at source.jsonl */
    if (rc != REC_OK && !c->o.resume && c->st.moves == 0 && c->st.games == 0)
        remove_empty_recording(c->o.out_dir, !c->existed, !c->had_events, !c->had_evidence, !c->had_source,
                               damage_said);
    if (rc != REC_OK && c->st.moves == 0 && c->source_size >= 0 &&
        !damage_said) { /* its lines (end_of_source...) go too */
        char p[4096];
        snprintf(p, sizeof p, "%s/source.jsonl", c->o.out_dir);
        if (truncate(p, c->source_size) != 0 && errno != ENOENT)
            fprintf(stderr, "kifucam record: warning: %s: %s\n", p, strerror(errno));
    }
    return rc;
}

/* The one error line of a failed run; returns the exit status. */
static int report_error(const record_cmd_t *c, int rc) {
    const rec_record_stats_t *st = &c->st;
    int user = rc == REC_ESOURCE || rc == REC_ENOBOARD || rc == REC_EMODEL || rc == REC_EIO ||
               rc == REC_EPARSE || rc == REC_ESTATE;
    /* a write that failed mid-game (a full disk): what is written stands, and --resume goes on from it */
    if (rc == REC_EIO && (st->moves > 0 || st->games > 0))
        return cli_user_error("record",
                              "%s: the recording in %s stopped after %d moves (what is written there "
                              "stands); make room and continue it with --resume %s",
                              c->err, c->o.out_dir, st->moves, c->o.out_dir);
    /* the function names are for a bug report (exit 2), not for the user */
    return user ? cli_user_error("record", "%s", c->err) : cli_internal_error("record", "%s", c->err);
}

/* The warnings of a record that may stop short of the game and the summary line on standard output. */
static void report_summary(const record_cmd_t *c) {
    const rec_record_stats_t *st = &c->st;
    char adapt_line[96];
    if (st->adapt_off)
        snprintf(adapt_line, sizeof adapt_line, "piece-set adaptation off (%s)",
                 st->adapt_off == 1 ? "--no-adapt" : "the model gives no embeddings");
    else
        snprintf(adapt_line, sizeof adapt_line, "piece set learned from %d views (%d classes)",
                 st->adapt_learned, st->adapt_classes);
    char lat_line[96];
    if (st->latency_n > 0)
        snprintf(lat_line, sizeof lat_line, "latency median %.0f ms, p95 %.0f ms (%d live moves)",
                 st->latency_median_ms, st->latency_p95_ms, st->latency_n);
    else
        snprintf(lat_line, sizeof lat_line, "no live moves to time");
    const char *no_game = st->games > 0 || st->board_found == 0 ? ""
                          : st->setup_errors > 0 ? " (no game started: the board never matched a start; the "
                                                   "setup_error events in events.jsonl say how it differed)"
                                                 : " (no game started: no still view of a start was seen)";
    /* the game lost track of: an uncertain view after the last move, and the source ended with nothing
     * recorded since (moves made while the board could not be read, more than a hidden route can
     * explain; a fresh user lost moves 59-80 of the sample clip to damage its decoder did not flag,
     * with the 23 s left short of the 30 s this once needed): said, so that nobody takes the record
     * for the whole game */
    int damage_after =
        !st->game_over && st->games > 0 && st->last_damage_us >= 0 && st->last_damage_us > st->last_move_us;
    int64_t quiet_us = st->end_us - (st->last_move_us >= 0 ? st->last_move_us : st->last_uncertain_us);
    int lost_track = !st->game_over && st->games > 0 && st->last_uncertain_us >= 0 &&
                     st->last_uncertain_us >= st->last_move_us && (!damage_after || quiet_us >= 30000000);
    if (lost_track)
        fprintf(
            stderr,
            "kifucam record: warning: no move was recorded in the last %.0f s of the source (after move "
            "%d at %.1f s): from %.1f s the board showed what no move of the game explains (the uncertain "
            "event in events.jsonl lists the nearest); the record may stop short of the game (check "
            "the evidence frames)\n",
            quiet_us / 1e6, st->last_ply, st->last_move_us >= 0 ? st->last_move_us / 1e6 : 0.0,
            st->last_uncertain_us / 1e6);
    /* frames lost or damaged after the last move, however short the rest of the source: the moves made
     * then may never have been seen (damage near the end of a file lost its last 7 moves unsaid); the
     * warning above when the source went on 30 s or more after the last move */
    else if (damage_after) {
        char after[64] = "after the start of the game";
        if (st->last_move_us >= 0)
            snprintf(after, sizeof after, "after move %d at %.1f s", st->last_ply, st->last_move_us / 1e6);
        fprintf(
            stderr,
            "kifucam record: warning: frames were lost or damaged %s (the last at %.1f s of the "
            "source): moves made then may be missing, the record may stop short of the game (source.jsonl "
            "says where; check the evidence frames)\n",
            after, st->last_damage_us / 1e6);
    }
    char taken[48] = "";
    if (st->taken_up > 0)
        snprintf(taken, sizeof taken, " (%d taking a lost game up again)", st->taken_up);
    printf(
        "recorded %s: %llu frames, %d moves, %d uncertain, %d games%s%s%s; %.1f fps, %.1f ms per board read "
        "(%.1f squares through the network, komadai read %llu times); board found %d, lost %d; %s; %s\n",
        c->o.out_dir, (unsigned long long)st->frames, st->moves, st->uncertain, st->games, taken,
        st->game_over ? " (ended)" : "", no_game, st->fps, st->read_ms,
        st->reads ? (double)st->squares_read / (double)st->reads : 0.0, (unsigned long long)st->komadai_reads,
        st->board_found, st->board_lost, lat_line, adapt_line);
}

int cmd_record(int argc, char **argv) {
    record_cmd_t c;
    int rc;
    memset(&c, 0, sizeof c);
    rec_record_opts_default(&c.o);
    c.o.model = rec_model_default(c.model, sizeof c.model);
    if ((rc = parse_options(&c, argc, argv)) != 0 || (rc = check_options(&c)) != 0 ||
        (rc = check_folder(&c)) != 0 || (rc = check_source(&c)) != 0)
        return rc;
    if ((rc = run_recording(&c)) != REC_OK)
        return report_error(&c, rc);
    report_summary(&c);
    /* a wrong --handicap / --start: the board is another standard start, and no game was recorded */
    if (c.st.games == 0 && c.st.setup_other >= 0) {
        rul_handicap_info_t hi;
        if (rul_handicap_info((rul_handicap_t)c.st.setup_other, &hi) != RUL_OK)
            hi.name = "a standard";
        return cli_user_error("record",
                              "no game recorded: the board looks like the %s start, not the %s given; record "
                              "again with the right one, or without it (any standard start)",
                              hi.name, c.sfen ? "--start" : "--handicap");
    }
    return 0;
}
