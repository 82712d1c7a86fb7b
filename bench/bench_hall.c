/* bench_hall.c - the hall under load (bench/bench_hall.sh, make bench-hall): BOARDS simulated boards
 * replay a recorded game (the first MOVES moves of samples/sample-game.usi) at game speed, each move
 * going through the recorder's real tracker log, outputs (events.jsonl, kifu files) and MQTT publisher
 * (rec_trk_apply, rec_out_update, rec_pub_update) to the broker at URL; CLIENTS server-sent-event
 * clients follow the running `kifucam hall` (HALL_PORT, process HALL_PID) for SECONDS. Each board plays
 * a move every SECONDS / MOVES seconds, the boards evenly staggered. Prints whether every move reached
 * every client, the delay from the publish to each client (p50, p95, p99, max), and the hall's memory
 * (VmRSS) at the start, the middle and the end, as a table.
 *
 * ROUNDS (default 1): each board plays ROUNDS games one after another, SECONDS each, as a tournament
 * does: round r has meta.round "r", its own recording folder (DIR/b<i>-r<r>; round 1 alone: DIR/b<i>)
 * and a new tracker, outputs and publisher (the previous round's publisher closed cleanly first), so
 * its events' seq start again at 1. A client counts each round's moves apart (by the card's
 * meta.round). With ROUNDS > 1 "middle" is the middle of round (ROUNDS + 1) / 2, and a second table
 * gives each round's deliveries and the hall's VmRSS at its end (every move of the round delivered or
 * 30 s waited): flat over the rounds is the hall's memory bounded over a tournament.
 *
 * usage: bench-hall URL HALL_PORT HALL_PID DIR BOARDS CLIENTS SECONDS MOVES [ROUNDS]
 * DIR: the boards' recording folders (made). Exit 0 when every move of every round reached every
 * client. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "recorder/hall/hall.h"
#include "recorder/output/output.h"
#include "recorder/tracker/tracker.h"
#include "rules/rules.h"

#define MAXMOVES 256
#define HIST_MS 120000 /* delays counted per millisecond up to 2 min */

static int nboards, nclients, nmoves, nrounds;
static double *pub_t; /* [((round - 1) * nboards + board) * (nmoves + 1) + ply]: handed to the publisher */
static unsigned char *seen; /* [(((round - 1) * nclients + client) * nboards + board) * (nmoves + 1) + ply] */
static unsigned *hist;      /* delays, ms */
static long long over, firsts, *round_firsts; /* delays over HIST_MS; first sights, all and per round */
static volatile int stop;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void sleep_until(double t) {
    double d = t - now();
    if (d > 0) {
        struct timespec ts = {(time_t)d, (long)((d - (double)(time_t)d) * 1e9)};
        nanosleep(&ts, NULL);
    }
}

static long rss_kib(int pid) {
    char path[64], line[256];
    long kib = -1;
    snprintf(path, sizeof path, "/proc/%d/status", pid);
    FILE *f = fopen(path, "r");
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "VmRSS:", 6) == 0)
            kib = atol(line + 6);
    if (f)
        fclose(f);
    return kib;
}

static double cpu_s(int pid) { /* utime + stime of the process, seconds */
    char path[64], buf[2048];
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f)
        fclose(f);
    buf[n] = '\0';
    char *p = strrchr(buf, ')');
    unsigned long ut = 0, st = 0;
    if (p && sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) == 2)
        return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
    return -1;
}

/* ---------------------------------------------------------------- the page clients */

typedef struct {
    int fd, id;
    char buf[1 << 16];
    size_t len;
} client_t;

static void take_line(client_t *c, const char *line, double t) {
    const char *b = strstr(line, "\"board\":\"b"), *p = strstr(line, "\"ply\":"),
               *r = strstr(line, "\"round\":\"");
    if (strncmp(line, "data: ", 6) != 0 || b == NULL || p == NULL || r == NULL)
        return;
    int board = atoi(b + 10), ply = atoi(p + 6), round = atoi(r + 9);
    if (board < 0 || board >= nboards || ply < 1 || ply > nmoves || round < 1 || round > nrounds)
        return;
    size_t bp = (size_t)(round - 1) * (size_t)nboards + (size_t)board;
    size_t k = (((size_t)(round - 1) * (size_t)nclients + (size_t)c->id) * (size_t)nboards + (size_t)board) *
                   (size_t)(nmoves + 1) +
               (size_t)ply;
    if (seen[k])
        return;
    seen[k] = 1;
    double d = (t - pub_t[bp * (size_t)(nmoves + 1) + (size_t)ply]) * 1000;
    pthread_mutex_lock(&mu);
    firsts++;
    round_firsts[round - 1]++;
    if (d < 0)
        d = 0;
    if (d < HIST_MS)
        hist[(int)d]++;
    else
        over++;
    pthread_mutex_unlock(&mu);
}

static void *clients_run(void *arg) {
    client_t *cl = arg;
    int ep = epoll_create1(0);
    for (int i = 0; i < nclients; i++) {
        struct epoll_event e = {.events = EPOLLIN, .data.ptr = &cl[i]};
        epoll_ctl(ep, EPOLL_CTL_ADD, cl[i].fd, &e);
    }
    struct epoll_event ev[64];
    while (!stop) {
        int n = epoll_wait(ep, ev, 64, 200);
        double t = now();
        for (int i = 0; i < n; i++) {
            client_t *c = ev[i].data.ptr;
            ssize_t r = read(c->fd, c->buf + c->len, sizeof c->buf - 1 - c->len);
            if (r <= 0) {
                epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, NULL);
                continue;
            }
            c->len += (size_t)r;
            c->buf[c->len] = '\0';
            char *s = c->buf, *nl;
            while ((nl = strchr(s, '\n')) != NULL) {
                *nl = '\0';
                take_line(c, s, t);
                s = nl + 1;
            }
            c->len -= (size_t)(s - c->buf);
            memmove(c->buf, s, c->len);
        }
    }
    close(ep);
    return NULL;
}

static int connect_sse(int port) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons((unsigned short)port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    const char *req = "GET /events HTTP/1.0\r\nHost: bench\r\n\r\n";
    if (write(fd, req, strlen(req)) != (ssize_t)strlen(req)) {
        close(fd);
        return -1;
    }
    return fd;
}

/* ---------------------------------------------------------------- the boards */

typedef struct {
    rec_trk_t *t;
    rec_out_t *out;
    rec_pub_t *pub;
} board_t;

static int read_game(const char *path, char usi[][8], int max) {
    FILE *f = fopen(path, "r");
    char w[64];
    int n = -1;
    while (f && n < max && fscanf(f, "%63s", w) == 1) {
        if (n >= 0)
            snprintf(usi[n++], 8, "%.7s", w);
        else if (strcmp(w, "moves") == 0)
            n = 0;
    }
    if (f)
        fclose(f);
    return n;
}

/* Board i's round: its folder, tracker, outputs and publisher, the game started. */
static int board_open(board_t *b, int i, int round, const char *url, const char *dir) {
    char path[512], err[300] = "";
    rec_trk_params_t pr;
    rec_trk_params_default(&pr);
    if (nrounds == 1)
        snprintf(path, sizeof path, "%s/b%d", dir, i);
    else
        snprintf(path, sizeof path, "%s/b%d-r%d", dir, i, round);
    mkdir(path, 0755);
    rec_out_meta_t m;
    memset(&m, 0, sizeof m);
    snprintf(m.board, sizeof m.board, "b%d", i);
    snprintf(m.round, sizeof m.round, "%d", round);
    snprintf(m.event, sizeof m.event, "bench");
    snprintf(m.sente, sizeof m.sente, "Sente %d", i);
    snprintf(m.gote, sizeof m.gote, "Gote %d", i);
    static rec_trk_event_t ev; /* large: not on the stack */
    memset(&ev, 0, sizeof ev);
    ev.type = REC_TEV_GAME_START;
    ev.game = 1;
    ev.move = RUL_MOVE_NONE;
    snprintf(ev.sfen, sizeof ev.sfen, "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1");
    if (rec_trk_create(&pr, NULL, &b->t) != REC_OK || rec_trk_apply(b->t, &ev) != REC_OK ||
        rec_out_open(path, 80, &b->out, err, sizeof err) != REC_OK ||
        rec_out_set_meta(b->out, &m) != REC_OK || rec_out_update(b->out, b->t, NULL) != REC_OK ||
        rec_pub_open(url, path, &m, &b->pub, err, sizeof err) != REC_OK) {
        fprintf(stderr, "bench-hall: board %d: %s\n", i, err);
        return -1;
    }
    rec_pub_update(b->pub, b->t, "stable");
    return 0;
}

/* The end of board b's round: every event acknowledged (up to 3 s), the status offline, all freed. */
static void board_close(board_t *b) {
    rec_pub_close(b->pub, 3000);
    rec_out_close(b->out);
    rec_trk_destroy(b->t);
    memset(b, 0, sizeof *b);
}

static int board_move(board_t *b, int ply, const char *usi) {
    static rec_trk_event_t ev;
    rul_error_t e;
    memset(&ev, 0, sizeof ev);
    ev.type = REC_TEV_MOVE;
    ev.game = 1;
    ev.ply = ply;
    ev.mover = (ply - 1) % 2;
    ev.time_ms = 2500;
    snprintf(ev.usi, sizeof ev.usi, "%.7s", usi);
    if (rul_move_from_usi(usi, &ev.move, &e) != 0 || rec_trk_apply(b->t, &ev) != REC_OK ||
        rec_out_update(b->out, b->t, NULL) != REC_OK)
        return -1;
    return rec_pub_update(b->pub, b->t, "stable");
}

static double pmax(void) {
    for (int i = HIST_MS - 1; i >= 0; i--)
        if (hist[i])
            return i + 1;
    return 0;
}

static double pct(double q) {
    long long want = (long long)(q * (double)firsts), n = 0;
    for (int i = 0; i < HIST_MS; i++)
        if ((n += hist[i]) > want)
            return i + 1;
    return HIST_MS;
}

/* Deliveries of round r (1-based; 0: all rounds): clients with every move, moves missed. */
static void count(int r, int *complete, long long *missing) {
    *complete = 0;
    *missing = 0;
    for (int c = 0; c < nclients; c++) {
        long long got = 0, want = 0;
        for (int q = r ? r : 1; q <= (r ? r : nrounds); q++) {
            want += (long long)nboards * nmoves;
            for (int i = 0; i < nboards; i++)
                for (int k = 1; k <= nmoves; k++)
                    got += seen[(((size_t)(q - 1) * nclients + c) * nboards + i) * (size_t)(nmoves + 1) + k];
        }
        *complete += got == want;
        *missing += want - got;
    }
}

int main(int argc, char **argv) {
    if (argc != 9 && argc != 10) {
        fprintf(stderr,
                "usage: bench-hall URL HALL_PORT HALL_PID DIR BOARDS CLIENTS SECONDS MOVES [ROUNDS]\n");
        return 2;
    }
    const char *url = argv[1], *dir = argv[4];
    int port = atoi(argv[2]), pid = atoi(argv[3]);
    nboards = atoi(argv[5]);
    nclients = atoi(argv[6]);
    double secs = atof(argv[7]);
    nmoves = atoi(argv[8]);
    nrounds = argc == 10 ? atoi(argv[9]) : 1;
    static char usi[MAXMOVES][8];
    if (nboards < 1 || nclients < 1 || secs <= 0 || nmoves < 1 || nmoves > MAXMOVES || nrounds < 1 ||
        nrounds > 100 || read_game("samples/sample-game.usi", usi, nmoves) < nmoves) {
        fprintf(stderr, "bench-hall: bad arguments, or samples/sample-game.usi has fewer than %d moves\n",
                nmoves);
        return 2;
    }
    mkdir(dir, 0755);
    size_t nr = (size_t)nrounds;
    pub_t = calloc(nr * (size_t)nboards * (size_t)(nmoves + 1), sizeof *pub_t);
    seen = calloc(nr * (size_t)nclients * (size_t)nboards * (size_t)(nmoves + 1), 1);
    hist = calloc(HIST_MS, sizeof *hist);
    round_firsts = calloc(nr, sizeof *round_firsts);
    long *rss_round = calloc(nr, sizeof *rss_round);
    int *round_errors = calloc(nr, sizeof *round_errors);
    board_t *b = calloc((size_t)nboards, sizeof *b);
    client_t *cl = calloc((size_t)nclients, sizeof *cl);
    if (!pub_t || !seen || !hist || !round_firsts || !rss_round || !round_errors || !b || !cl)
        return 2;
    for (int i = 0; i < nboards; i++)
        if (board_open(&b[i], i, 1, url, dir) != 0)
            return 2;
    sleep_until(now() + 2); /* the boards connected, their first states with the hall */
    for (int i = 0; i < nclients; i++) {
        cl[i].id = i;
        if ((cl[i].fd = connect_sse(port)) < 0) {
            fprintf(stderr, "bench-hall: client %d cannot connect to the hall: %s\n", i, strerror(errno));
            return 2;
        }
    }
    pthread_t th;
    pthread_create(&th, NULL, clients_run, cl);
    sleep_until(now() + 1);
    long rss0 = rss_kib(pid), rss_mid = -1;
    double cpu0 = cpu_s(pid), t_start = now(), t_end = t_start, step = secs / nmoves;
    int errors = 0;
    printf("bench-hall: %d boards, a move every %.2f s each (%.0f moves/s in all), %d page clients, %.0f s",
           nboards, step, nboards / step, nclients, secs);
    if (nrounds > 1)
        printf(" a round, %d rounds", nrounds);
    printf("\n");
    fflush(stdout);
    for (int r = 1; r <= nrounds; r++) {
        if (r > 1) { /* the next round on every board: a new recording, its seq from 1 */
            for (int i = 0; i < nboards; i++)
                board_close(&b[i]);
            for (int i = 0; i < nboards; i++)
                if (board_open(&b[i], i, r, url, dir) != 0)
                    return 2;
            sleep_until(now() + 1);
        }
        double t0 = now();
        double *pt = pub_t + (size_t)(r - 1) * (size_t)nboards * (size_t)(nmoves + 1);
        for (int k = 1; k <= nmoves; k++) {
            for (int i = 0; i < nboards; i++) {
                sleep_until(t0 + ((k - 1) + (double)i / nboards) * step);
                pt[i * (nmoves + 1) + k] = now();
                int e = board_move(&b[i], k, usi[k - 1]) != REC_OK;
                errors += e;
                round_errors[r - 1] += e;
            }
            if (r == (nrounds + 1) / 2 && k == nmoves / 2)
                rss_mid = rss_kib(pid);
        }
        t_end = now();
        long long want = (long long)nclients * nboards * nmoves;
        for (int w = 0; w < 300; w++) { /* up to 30 s for the last moves, the acknowledgements */
            for (int i = 0; i < nboards; i++)
                rec_pub_update(b[i].pub, b[i].t, "stable");
            pthread_mutex_lock(&mu);
            long long got = round_firsts[r - 1];
            pthread_mutex_unlock(&mu);
            if (got >= want)
                break;
            sleep_until(now() + 0.1);
        }
        rss_round[r - 1] = rss_kib(pid);
        if (nrounds > 1) {
            printf("bench-hall: round %d of %d done, hall RSS %.1f MiB\n", r, nrounds,
                   rss_round[r - 1] / 1024.0);
            fflush(stdout);
        }
    }
    long rss_end = rss_round[nrounds - 1];
    double cpu = cpu_s(pid) - cpu0;
    stop = 1;
    pthread_join(th, NULL);
    int complete;
    long long missing;
    count(0, &complete, &missing);
    for (int i = 0; i < nboards; i++)
        board_close(&b[i]);
    printf("| boards | clients | minutes | moves published | clients with every move | moves missed | "
           "delay p50 | p95 | p99 | max | hall RSS start / middle / end | hall CPU |\n");
    printf("|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    printf("| %d | %d | %.1f | %d | %d of %d | %lld | %.0f ms | %.0f ms | %.0f ms | %s%.0f ms | %.1f / %.1f "
           "/ %.1f "
           "MiB | %.0f%% of a core |\n",
           nboards, nclients, (t_end - t_start) / 60, nboards * nmoves * nrounds - errors, complete, nclients,
           missing, pct(0.50), pct(0.95), pct(0.99), over ? "> " : "", over ? (double)HIST_MS : pmax(),
           rss0 / 1024.0, rss_mid / 1024.0, rss_end / 1024.0, 100 * cpu / (t_end - t_start));
    if (nrounds > 1) {
        printf(
            "\n| round | moves published | clients with every move | moves missed | hall RSS at its end |\n");
        printf("|---|---|---|---|---|\n");
        for (int r = 1; r <= nrounds; r++) {
            int c;
            long long m;
            count(r, &c, &m);
            printf("| %d | %d | %d of %d | %lld | %.1f MiB |\n", r, nboards * nmoves - round_errors[r - 1], c,
                   nclients, m, rss_round[r - 1] / 1024.0);
        }
    }
    if (errors)
        printf("bench-hall: %d moves could not be replayed\n", errors);
    return complete == nclients && errors == 0 ? 0 : 1;
}
