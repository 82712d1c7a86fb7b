/* test_live.c - the live feed (recorder/output/live.c) over real HTTP on a loopback port: state.json after
 * four moves of a game fed to the tracker, the recording's files, the live page, long-polling, refusals
 * (unknown paths, path tricks, POST), and a port already in use. */
#define _DEFAULT_SOURCE
#include <CUnit/CUnit.h>
#include <arpa/inet.h>
#include <jansson.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "recorder/output/live.h"
#include "rules/rules.h"
#include "tests/recorder/tracker/tracker_test_util.h"
#include "tests/tests.h"

/* One HTTP/1.0 request to 127.0.0.1:port; returns the status code (or -1) and the body in body
 * (size bytes, NUL-terminated). */
static int http(int port, const char *method, const char *path, char *body, size_t size) {
    int s = socket(AF_INET, SOCK_STREAM, 0), status = -1;
    struct sockaddr_in a = {0};
    static char buf[1 << 16];
    size_t n = 0;
    if (s < 0)
        return -1;
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(s, (struct sockaddr *)&a, sizeof a) != 0)
        goto out;
    char req[512];
    int len = snprintf(req, sizeof req, "%s %s HTTP/1.0\r\nHost: localhost\r\n\r\n", method, path);
    if (write(s, req, (size_t)len) != len)
        goto out;
    ssize_t r;
    while (n < sizeof buf - 1 && (r = read(s, buf + n, sizeof buf - 1 - n)) > 0)
        n += (size_t)r;
    buf[n] = '\0';
    if (sscanf(buf, "HTTP/1.%*d %d", &status) != 1)
        status = -1;
    const char *b = strstr(buf, "\r\n\r\n");
    snprintf(body, size, "%s", b ? b + 4 : "");
out:
    close(s);
    return status;
}

typedef struct {
    rec_live_t *l;
    rec_trk_t *t;
} pub_arg_t;

static void *publish_later(void *p) {
    pub_arg_t *a = p;
    struct timespec d = {0, 300 * 1000 * 1000};
    nanosleep(&d, NULL);
    rec_live_publish(a->l, a->t, "hand in view");
    return NULL;
}

static void test_live_feed(void) {
    static tt_game_t g;
    tt_stream_params_t sp;
    tt_result_t r;
    rec_trk_t *t = NULL;
    rec_live_t *l = NULL, *l2 = NULL;
    char dir[] = "/tmp/kifucam-live-XXXXXX", path[256], err[256] = "";
    static char body[1 << 16];

    CU_ASSERT_EQUAL_FATAL(tt_game_from_usi(&g, "position startpos moves 7g7f 3c3d 8h2b+ 3a2b"), 0);
    tt_stream_params_default(&sp);
    tt_run(&g, &sp, &t, &r);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT_EQUAL(r.right, 4);
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/game.usi", dir);
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs("position startpos moves 7g7f 3c3d 8h2b+ 3a2b\n", f);
    fclose(f);
    char ev[300], jpg[300];
    snprintf(ev, sizeof ev, "%s/evidence", dir);
    snprintf(jpg, sizeof jpg, "%s/evidence/move-001-after.jpg", dir);
    CU_ASSERT_EQUAL_FATAL(mkdir(ev, 0777), 0);
    f = fopen(jpg, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs("jpeg", f);
    fclose(f);

    CU_ASSERT_EQUAL_FATAL(rec_live_open(NULL, 0, dir, &l, err, sizeof err), REC_OK);
    int port = rec_live_port(l);
    CU_ASSERT(port > 0);
    /* bound to this machine only by default */
    char url[96], want[96];
    snprintf(want, sizeof want, "http://127.0.0.1:%d/", port);
    CU_ASSERT(rec_live_url(l, url, sizeof url) == strlen(want));
    CU_ASSERT_STRING_EQUAL(url, want);

    /* before the first publish: waiting, no position, no game */
    json_error_t je;
    CU_ASSERT_EQUAL(http(port, "GET", "/state.json", body, sizeof body), 200);
    json_t *s = json_loads(body, 0, &je);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(s, "state")), "waiting");
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(s, "game")), 0);
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(s, "sfen")), "");
    CU_ASSERT(json_is_null(json_object_get(s, "ended")));
    json_decref(s);

    CU_ASSERT_EQUAL(rec_live_publish(l, t, "stable"), REC_OK);

    /* state.json */
    CU_ASSERT_EQUAL(http(port, "GET", "/state.json", body, sizeof body), 200);
    s = json_loads(body, 0, &je);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(s, "version")), 1);
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(s, "ply")), 4);
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(s, "state")), "playing");
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(s, "view")), "stable");
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(s, "sfen")),
                           "lnsgkg1nl/1r5s1/pppppp1pp/6p2/9/2P6/PP1PPPPPP/7R1/LNSGKGSNL b Bb 5");
    json_t *moves = json_object_get(s, "moves");
    CU_ASSERT_EQUAL_FATAL(json_array_size(moves), 4);
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(json_array_get(moves, 2), "usi")), "8h2b+");
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(json_array_get(moves, 3), "move")), "Sx2b");
    CU_ASSERT(json_is_false(json_object_get(json_array_get(moves, 0), "illegal")));
    CU_ASSERT(json_is_null(json_object_get(s, "result")));
    json_decref(s);

    /* files, page, refusals */
    CU_ASSERT_EQUAL(http(port, "GET", "/game.usi", body, sizeof body), 200);
    CU_ASSERT_STRING_EQUAL(body, "position startpos moves 7g7f 3c3d 8h2b+ 3a2b\n");
    CU_ASSERT_EQUAL(http(port, "GET", "/game.kif", body, sizeof body), 404); /* not written yet */
    CU_ASSERT_EQUAL(http(port, "GET", "/", body, sizeof body), 200);
    CU_ASSERT_PTR_NOT_NULL(strstr(body, "state.json?since="));
    CU_ASSERT_EQUAL(http(port, "GET", "/../game.usi", body, sizeof body), 404);
    CU_ASSERT_EQUAL(http(port, "GET", "/evidence/../game.usi", body, sizeof body), 404);
    CU_ASSERT_EQUAL(http(port, "GET", "/evidence/12-after.jpg", body, sizeof body), 404);
    CU_ASSERT_EQUAL(http(port, "GET", "/evidence/move-001-after.jpg", body, sizeof body), 200);
    CU_ASSERT_EQUAL(http(port, "GET", "/evidence/move-001-after.png", body, sizeof body), 404);
    CU_ASSERT_EQUAL(http(port, "GET", "/evidence/Move-001-after.jpg", body, sizeof body), 404);
    CU_ASSERT_EQUAL(http(port, "GET", "/etc/passwd", body, sizeof body), 404);
    CU_ASSERT_EQUAL(http(port, "POST", "/state.json", body, sizeof body), 405);
    CU_ASSERT_EQUAL(http(port, "GET", "/state.json?since=x", body, sizeof body), 400);

    /* a long-poll for a version after 1 returns when the next one is published */
    pthread_t th;
    pub_arg_t pa = {l, t};
    CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, publish_later, &pa), 0);
    CU_ASSERT_EQUAL(http(port, "GET", "/state.json?since=1", body, sizeof body), 200);
    pthread_join(th, NULL);
    s = json_loads(body, 0, &je);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(s, "version")), 2);
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(s, "view")), "hand in view");
    json_decref(s);

    /* the recording ends: said once more, with why */
    CU_ASSERT_EQUAL(rec_live_end(l, t, "source ended"), REC_OK);
    CU_ASSERT_EQUAL(http(port, "GET", "/state.json?since=2", body, sizeof body), 200);
    s = json_loads(body, 0, &je);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(s, "version")), 3);
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(s, "ended")), "source ended");
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(s, "ply")), 4);
    json_decref(s);

    /* the same port twice: one clear error */
    CU_ASSERT_EQUAL(rec_live_open("127.0.0.1", port, dir, &l2, err, sizeof err), REC_EIO);
    CU_ASSERT_PTR_NULL(l2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "cannot serve on 127.0.0.1 port"));
    CU_ASSERT_EQUAL(rec_live_open(NULL, 70000, dir, &l2, err, sizeof err), REC_ERANGE);
    CU_ASSERT_EQUAL(rec_live_open("localhost.example", 0, dir, &l2, err, sizeof err), REC_ERANGE);
    /* an IPv6 literal: bound to it (where this machine has IPv6 loopback) */
    if (rec_live_open("::1", 0, dir, &l2, err, sizeof err) == REC_OK) {
        snprintf(want, sizeof want, "http://[::1]:%d/", rec_live_port(l2));
        rec_live_url(l2, url, sizeof url);
        CU_ASSERT_STRING_EQUAL(url, want);
        rec_live_close(l2);
    }

    rec_live_close(l);
    rec_trk_destroy(t);
    unlink(path);
    unlink(jpg);
    rmdir(ev);
    rmdir(dir);
}

int tests_register_live(void) {
    CU_pSuite s = CU_add_suite("recorder/live", NULL, NULL);
    if (s == NULL || CU_add_test(s, "live feed over HTTP", test_live_feed) == NULL)
        return -1;
    return 0;
}
