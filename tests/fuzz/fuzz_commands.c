/* fuzz_commands.c - libFuzzer harness for the operator commands of `kifucam record` (resign, declare,
 * flag, abort, one a line) as the recording loop reads them: from standard input (a pipe polled by
 * rec_loop_poll_commands) or from a client of the control socket (rec_loop_poll_control, which answers
 * each line). The first byte picks: bit 0 the control socket (else standard input), bit 1 a game in
 * progress (else none started), bits 2..3 the moves played in it (0..3); the rest is what is sent.
 * Each input gets a new tracker and output folder (a temporary folder, removed at exit); the commands
 * run through the real tracker and output files. FUZZ_VERBOSE=1 in the environment shows the log. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "recorder/record/record_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Where the temporary folder goes: $TMPDIR, else /dev/shm (memory: the outputs fsync every file),
 * else /tmp. */
static const char *fuzz_tmp_base(void) {
    const char *t = getenv("TMPDIR");
    struct stat sb;
    if (t && t[0])
        return t;
    return stat("/dev/shm", &sb) == 0 && S_ISDIR(sb.st_mode) && access("/dev/shm", W_OK) == 0 ? "/dev/shm"
                                                                                              : "/tmp";
}

static char g_dir[256];  /* the output folder (fuzz_tmp_base) */
static char g_sock[300]; /* the control socket's path */
static int g_listen = -1;
static FILE *g_log;

static int remove_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw) {
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static void cleanup(void) {
    if (g_listen >= 0)
        close(g_listen);
    nftw(g_dir, remove_one, 8, FTW_DEPTH | FTW_PHYS);
}

static int setup(void) {
    if (g_dir[0])
        return 0;
    snprintf(g_dir, sizeof g_dir, "%s/kifucam-fuzz-commands-XXXXXX", fuzz_tmp_base());
    if (mkdtemp(g_dir) == NULL)
        return -1;
    snprintf(g_sock, sizeof g_sock, "%s/control.sock", g_dir);
    g_log = getenv("FUZZ_VERBOSE") ? stderr : fopen("/dev/null", "w"); /* FUZZ_VERBOSE=1: the log shown */
    atexit(cleanup);
    return g_log ? 0 : -1;
}

/* A tracker with game 1 started from the even position and `moves` opening moves played. */
static rec_trk_t *new_tracker(int started, int moves) {
    static const char *const opening[] = {"7g7f", "3c3d", "2g2f"};
    rec_trk_t *t = NULL;
    if (rec_trk_create(NULL, NULL, &t) != REC_OK)
        abort();
    if (!started)
        return t;
    rec_trk_event_t e;
    memset(&e, 0, sizeof e);
    e.type = REC_TEV_GAME_START;
    e.game = 1;
    e.move = RUL_MOVE_NONE;
    e.winner = REC_WINNER_NONE;
    snprintf(e.sfen, sizeof e.sfen, "%s", RUL_SFEN_STARTPOS);
    if (rec_trk_apply(t, &e) != REC_OK)
        abort();
    rul_pos_t pos;
    rul_pos_from_sfen(&pos, RUL_SFEN_STARTPOS, NULL);
    for (int i = 0; i < moves; i++) {
        e.type = REC_TEV_MOVE;
        e.ply = i + 1;
        e.mover = pos.side;
        e.ts_us = (i + 1) * 1000000;
        rul_move_from_usi(opening[i], &e.move, NULL);
        snprintf(e.usi, sizeof e.usi, "%s", opening[i]);
        rul_undo_t u;
        rul_pos_do_move(&pos, e.move, &u);
        rul_pos_to_sfen(&pos, e.sfen, sizeof e.sfen);
        if (rec_trk_apply(t, &e) != REC_OK)
            abort();
    }
    return t;
}

/* Standard input: the bytes in a pipe, its end closed, polled until the loop has read them all. */
static void via_stdin(rec_loop_t *L, rec_record_opts_t *o, const uint8_t *data, size_t size, int *quit) {
    int p[2];
    if (pipe(p) != 0)
        abort();
    if (size > 0 && write(p[1], data, size) != (ssize_t)size) /* inputs are far below a pipe's 64 KiB */
        abort();
    close(p[1]);
    o->cmd_fd = p[0];
    L->cmd.open = 1;
    for (int i = 0; L->cmd.open && !*quit && i < 100000; i++)
        if (rec_loop_poll_commands(L, quit) != REC_OK)
            break;
    close(p[0]);
}

/* The control socket: one client connects, sends the bytes and closes its writing side; the loop
 * serves it until it has read them all; the client reads its answers. */
static void via_control(rec_loop_t *L, const uint8_t *data, size_t size, int *quit) {
    if (g_listen < 0) {
        if (rec_loop_control_open(L, g_sock) != REC_OK)
            abort();
        g_listen = L->ctl.fd;
    }
    L->ctl.fd = g_listen;
    int c = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un a;
    memset(&a, 0, sizeof a);
    a.sun_family = AF_UNIX;
    snprintf(a.sun_path, sizeof a.sun_path, "%s", g_sock);
    if (c < 0 || connect(c, (struct sockaddr *)&a, sizeof a) != 0)
        abort();
    if (size > 0 && write(c, data, size) != (ssize_t)size)
        abort();
    shutdown(c, SHUT_WR);
    fcntl(c, F_SETFL, O_NONBLOCK);
    char answers[4096];
    for (int i = 0; !*quit && i < 100000; i++) {
        if (rec_loop_poll_control(L, quit) != REC_OK)
            break;
        while (read(c, answers, sizeof answers) > 0) {
        }
        int open = 0;
        for (int k = 0; k < REC_CTL_CLIENTS; k++)
            open |= L->ctl.client[k].fd >= 0;
        if (!open)
            break;
    }
    for (int k = 0; k < REC_CTL_CLIENTS; k++)
        if (L->ctl.client[k].fd >= 0) { /* after abort: the loop ends and closes it */
            close(L->ctl.client[k].fd);
            L->ctl.client[k].fd = -1;
        }
    close(c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1 || setup() != 0)
        return 0;
    char p[400];
    snprintf(p, sizeof p, "%s/events.jsonl", g_dir);
    unlink(p); /* each input starts a recording of its own */
    rec_record_opts_t o;
    rec_record_stats_t st;
    memset(&o, 0, sizeof o);
    memset(&st, 0, sizeof st);
    o.out_dir = g_dir;
    o.log = g_log;
    o.cmd_fd = -1;
    static rec_loop_t L; /* large: not on the stack */
    memset(&L, 0, sizeof L);
    L.o = &o;
    L.st = &st;
    L.ts0 = L.log_base = L.skip_until = -1;
    L.ts = 5000000;
    L.stats.moved_ts = -1;
    L.ctl.fd = -1;
    for (int k = 0; k < REC_CTL_CLIENTS; k++)
        L.ctl.client[k].fd = -1;
    L.trk = new_tracker(data[0] & 2, (data[0] >> 2) & 3);
    if (rec_out_open(g_dir, 0, &L.out, L.err, sizeof L.err) != REC_OK)
        abort();
    int quit = 0;
    if (data[0] & 1)
        via_control(&L, data + 1, size - 1, &quit);
    else
        via_stdin(&L, &o, data + 1, size - 1, &quit);
    rec_out_close(L.out);
    rec_trk_destroy(L.trk);
    free(L.stats.lat_ms);
    return 0;
}
