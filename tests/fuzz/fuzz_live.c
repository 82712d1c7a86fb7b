/* fuzz_live.c - libFuzzer harness for the live feed's request handling (recorder/output/live.c behind
 * libmicrohttpd): its paths, its file names under /evidence/, its ?since= query. Each input gets a feed
 * of its own on a free TCP port of localhost, serving a folder with a recording's files in it, and one
 * connection. The first byte picks: bit 0 the rest is sent as it is (a whole request, headers and all,
 * as any client on the network may send); else it is the request target of "METHOD TARGET HTTP/1.1"
 * with the method of bits 1..2 (GET, HEAD, POST, OPTIONS). A long-poll (?since= a version not reached)
 * is answered when the feed closes, after 200 ms without an answer. A file outside the served folder must
 * never come back (its text in an answer aborts); nothing else is checked but the sanitizers. The folder is
 * temporary (fuzz_tmp_base), removed at exit. Every feed listens on one port, found free at
 * the start: a new port for each would soon find none, as the closed connections of thousands of inputs
 * a minute hold theirs for a minute (TIME_WAIT) and the feeds' ports come from the same range. FUZZ_VERBOSE=1
 * in the environment prints each status line. */
#define _GNU_SOURCE
#include <ftw.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "recorder/output/live.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define OUTSIDE_TEXT "KIFUCAM-FUZZ-OUTSIDE-THE-FOLDER"

static char g_top[256]; /* the temporary folder: outside.txt and rec/ */
static char g_dir[300]; /* the recording's folder, served */
static rec_trk_t *g_trk;
static int g_port; /* the feeds' port */

/* $TMPDIR, else /dev/shm, else /tmp. */
static const char *fuzz_tmp_base(void) {
    const char *t = getenv("TMPDIR");
    struct stat sb;
    if (t && t[0])
        return t;
    return stat("/dev/shm", &sb) == 0 && S_ISDIR(sb.st_mode) && access("/dev/shm", W_OK) == 0 ? "/dev/shm"
                                                                                              : "/tmp";
}

static int remove_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw) {
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static void cleanup(void) {
    rec_trk_destroy(g_trk);
    nftw(g_top, remove_one, 8, FTW_DEPTH | FTW_PHYS);
}

static void put(const char *dir, const char *name, const char *text) {
    char p[400];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    if (f == NULL || fputs(text, f) < 0 || fclose(f) != 0)
        abort();
}

/* The folder (a recording's files, and a file beside it that must never be served) and a game. */
static void setup(void) {
    snprintf(g_top, sizeof g_top, "%s/kifucam-fuzz-live-XXXXXX", fuzz_tmp_base());
    if (mkdtemp(g_top) == NULL)
        abort();
    atexit(cleanup);
    snprintf(g_dir, sizeof g_dir, "%s/rec", g_top);
    char ev[400];
    snprintf(ev, sizeof ev, "%s/evidence", g_dir);
    if (mkdir(g_dir, 0700) != 0 || mkdir(ev, 0700) != 0)
        abort();
    put(g_top, "outside.txt", OUTSIDE_TEXT "\n");
    put(g_dir, "game.kif", "#KIF version=2.0 encoding=UTF-8\n   1 ７六歩(77)\n");
    put(g_dir, "game.usi", "position startpos moves 7g7f\n");
    put(g_dir, "events.jsonl", "{\"seq\":1,\"type\":\"game_start\"}\n");
    put(ev, "0001-after.jpg", "\xff\xd8\xff\xd9");
    int p = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a;
    socklen_t alen = sizeof a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (p < 0 || bind(p, (struct sockaddr *)&a, sizeof a) != 0 ||
        getsockname(p, (struct sockaddr *)&a, &alen) != 0)
        abort();
    g_port = ntohs(a.sin_port);
    close(p);
    if (rec_trk_create(NULL, NULL, &g_trk) != REC_OK)
        abort();
    rec_trk_event_t e;
    memset(&e, 0, sizeof e);
    e.type = REC_TEV_GAME_START;
    e.game = 1;
    e.winner = REC_WINNER_NONE;
    snprintf(e.sfen, sizeof e.sfen, "%s", RUL_SFEN_STARTPOS);
    if (rec_trk_apply(g_trk, &e) != REC_OK)
        abort();
}

/* Reads what the feed answers until it closes the connection, or wait_ms pass with nothing more. */
static size_t drain(int c, char *buf, size_t cap, size_t n, int wait_ms) {
    for (;;) {
        struct pollfd p = {c, POLLIN, 0};
        if (poll(&p, 1, wait_ms) <= 0)
            return n;
        ssize_t r = read(c, buf + n, cap - 1 - n);
        if (r <= 0)
            return n;
        n += (size_t)r;
        if (n == cap - 1) { /* keep the last part: only the outside text is looked for */
            memmove(buf, buf + n / 2, n - n / 2);
            n -= n / 2;
        }
        buf[n] = '\0';
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static const char *const methods[] = {"GET", "HEAD", "POST", "OPTIONS"};
    if (size < 1)
        return 0;
    if (!g_dir[0])
        setup();
    rec_live_t *l = NULL;
    char err[256];
    if (rec_live_open(NULL, g_port, g_dir, &l, err, sizeof err) != REC_OK) {
        fprintf(stderr, "fuzz_live: %s\n", err);
        abort();
    }
    if (rec_live_publish(l, g_trk, "stable") != REC_OK)
        abort();
    int c = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)rec_live_port(l));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (c < 0 || connect(c, (struct sockaddr *)&a, sizeof a) != 0)
        abort();
    char *req = malloc(size + 128);
    size_t len;
    if (req == NULL)
        abort();
    if (data[0] & 1) {
        memcpy(req, data + 1, size - 1);
        len = size - 1;
    } else {
        int h = snprintf(req, 16, "%s ", methods[(data[0] >> 1) & 3]);
        memcpy(req + h, data + 1, size - 1);
        len = (size_t)h + size - 1;
        len += (size_t)snprintf(req + len, 96, " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
    }
    if (len > 0 && send(c, req, len, MSG_NOSIGNAL) < 0) {
    } /* the feed may close first on a request it refuses */
    free(req);
    shutdown(c, SHUT_WR);
    static char answer[1 << 16];
    size_t n = drain(c, answer, sizeof answer, 0, 200);
    rec_live_close(l); /* answers a long-poll at once */
    n = drain(c, answer, sizeof answer, n, 0);
    close(c);
    answer[n] = '\0';
    if (getenv("FUZZ_VERBOSE"))
        fprintf(stderr, "live: %.*s\n", (int)strcspn(answer, "\r\n"), answer);
    if (memmem(answer, n, OUTSIDE_TEXT, sizeof OUTSIDE_TEXT - 1) != NULL)
        abort(); /* a file outside the recording's folder was served */
    return 0;
}
