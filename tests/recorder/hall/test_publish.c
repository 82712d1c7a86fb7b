/* test_publish.c - recorder/hall/publish.c against a real mosquitto broker started on a loopback port:
 * a game recorded while the broker is stopped and started again mid-game, and while it is not up at
 * the start; a subscriber (libmosquitto) sees every event's seq, in order, and the retained state; a
 * recorder that freezes (its process stopped) or stops cleanly shows as offline in the hall. */
#include <CUnit/CUnit.h>
#include <arpa/inet.h>
#include <jansson.h>
#include <mosquitto.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "recorder/hall/hall.h"
#include "recorder/output/output.h"
#include "tests/recorder/hall/hall_test_util.h"
#include "tests/recorder/tracker/tracker_test_util.h"
#include "tests/tests.h"

static const char *const GAME =
    "position startpos moves 2g2f 8c8d 2f2e 8d8e 7g7f 4a3b 8h7g 3c3d 7i8h 2b7g+ 8h7g 3a2b 6i7h 2b3c 3i3h "
    "7c7d 3g3f 7a6b 4g4f 5a4b 3h4g 1c1d 1g1f 9c9d 9g9f 8a7c 5i6h 6c6d 2i3g 6b6c";

typedef struct {
    rec_out_t *out;
    rec_pub_t *pub;
    ht_broker_t *broker;
    int stop_at, start_at; /* tracker events at which the broker is stopped / started (0: never) */
    int errors;
} rec_sink_t;

static void after_feed(void *user, rec_trk_t *t, const rec_obs_t *obs) {
    rec_sink_t *s = user;
    if (rec_out_update(s->out, t, obs) != REC_OK)
        s->errors++;
    int n = rec_trk_nevents(t);
    if (s->stop_at && n >= s->stop_at && s->broker->pid > 0) {
        ht_broker_stop(s->broker, SIGTERM);
        s->stop_at = 0;
    }
    if (s->start_at && n >= s->start_at && s->broker->pid <= 0) {
        CU_ASSERT(ht_broker_start(s->broker) == 0);
        s->start_at = 0;
    }
    if (rec_pub_update(s->pub, t, "stable") != REC_OK)
        s->errors++;
}

/* Records GAME into dir publishing as board "b7", the broker stopped and started at those events (or,
 * with late_start, started only at start_at); returns the events written and the tracker in *tp. */
static int record_game(const char *dir, ht_broker_t *b, int stop_at, int start_at, rec_trk_t **tp) {
    char url[128], err[256];
    rec_sink_t s = {0};
    rec_out_meta_t m;
    memset(&m, 0, sizeof m);
    snprintf(m.board, sizeof m.board, "b7");
    snprintf(m.sente, sizeof m.sente, "羽生善治");
    snprintf(url, sizeof url, "mqtt://127.0.0.1:%d/test", b->port);
    CU_ASSERT_FATAL(rec_out_open(dir, 80, &s.out, err, sizeof err) == REC_OK);
    CU_ASSERT_FATAL(rec_out_set_meta(s.out, &m) == REC_OK);
    TESTS_CHECK(rec_pub_open(url, dir, &m, &s.pub, err, sizeof err) == REC_OK, "pub_open: %s", err);
    s.broker = b;
    s.stop_at = stop_at;
    s.start_at = start_at;
    tt_game_t g;
    tt_result_t r;
    tt_stream_params_t sp;
    tt_game_from_usi(&g, GAME);
    tt_stream_params_default(&sp);
    sp.seed = 5;
    sp.after_feed = after_feed;
    sp.user = &s;
    tt_run(&g, &sp, tp, &r);
    CU_ASSERT(s.errors == 0);
    int last = (*tp && rec_trk_nevents(*tp) > 0) ? rec_trk_event(*tp, rec_trk_nevents(*tp) - 1)->seq : 0;
    /* the end of the recording: everything acknowledged once the broker is back */
    rec_pub_stats_t st;
    for (int i = 0; i < 3000; i++) { /* up to 60 s: the reconnect delay grows to 5 s */
        rec_pub_update(s.pub, *tp, "stable");
        rec_pub_stats(s.pub, &st);
        if (st.acked_seq == last)
            break;
        ht_sleep_ms(20);
    }
    TESTS_CHECK(st.acked_seq == last, "acknowledged up to seq %d of %d (%d published, %d connects)",
                st.acked_seq, last, st.published, st.connects);
    CU_ASSERT(rec_pub_close(s.pub, 2000) == 1);
    rec_out_close(s.out);
    return last;
}

/* The subscriber's view of board b7 after the recording: every seq 1..last seen, the first sight of
 * each in order, the retained state at the last seq with the game's moves. */
static void check_seen(ht_sub_t *sub, int last, const rec_trk_t *t) {
    int got = ht_sub_wait_seq(sub, "test/board/b7/event", last, 20000);
    TESTS_CHECK(got == last, "the subscriber saw seq up to %d of %d", got, last);
    int dup = 0, order_ok = 1, missing = 0;
    ht_sub_seq_report(sub, "test/board/b7/event", last, &missing, &dup, &order_ok);
    TESTS_CHECK(missing == 0 && order_ok, "seq 1..%d: %d missing, first sights in order: %d (%d duplicates)",
                last, missing, order_ok, dup);
    char *state = ht_sub_last(sub, "test/board/b7/state");
    json_t *o = state ? json_loads(state, 0, NULL) : NULL;
    TESTS_CHECK(
        o && json_integer_value(json_object_get(o, "seq")) == last &&
            json_integer_value(json_object_get(o, "ply")) == rec_trk_game(t)->nply &&
            (int)json_array_size(json_object_get(o, "moves")) == rec_trk_game(t)->nply &&
            !strcmp(json_string_value(json_object_get(json_object_get(o, "meta"), "sente")), "羽生善治"),
        "state: %.300s", state ? state : "(none)");
    json_decref(o);
    free(state);
    char *kif = ht_sub_last(sub, "test/board/b7/kif");
    TESTS_CHECK(kif && strstr(kif, "#KIF"), "retained kif: %.80s", kif ? kif : "(none)");
    free(kif);
}

static void test_broker_restart(void) {
    ht_broker_t b;
    char dir[] = "/tmp/kifucam-pub-XXXXXX";
    if (ht_broker_init(&b) != 0) {
        printf("\n    skipped: mosquitto not installed (make deps)\n");
        return;
    }
    CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
    CU_ASSERT_FATAL(ht_broker_start(&b) == 0);
    ht_sub_t *sub = ht_sub_start(b.port, "test/#", "kifucam-test-sub");
    CU_ASSERT_FATAL(sub != NULL);
    rec_trk_t *t = NULL;
    /* stopped after 10 events, 10 more recorded while it is away, started again */
    int last = record_game(dir, &b, 10, 20, &t);
    CU_ASSERT(last >= 25);
    check_seen(sub, last, t);
    ht_sub_stop(sub);
    /* a hall started afterwards rebuilds the board from the retained messages alone */
    sub = ht_sub_start(b.port, "test/#", NULL);
    char *state = ht_sub_wait_last(sub, "test/board/b7/state", 10000);
    TESTS_CHECK(state && strstr(state, "\"status\":\"playing\""), "retained state: %.200s",
                state ? state : "(none)");
    free(state);
    ht_sub_stop(sub);
    rec_trk_destroy(t);
    ht_broker_stop(&b, SIGTERM);
    ht_broker_free(&b);
    ht_rm_rf(dir);
}

static void test_broker_late(void) {
    ht_broker_t b;
    char dir[] = "/tmp/kifucam-pub-XXXXXX";
    if (ht_broker_init(&b) != 0) {
        printf("\n    skipped: mosquitto not installed (make deps)\n");
        return;
    }
    CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
    rec_trk_t *t = NULL;
    /* no broker for the first 15 events: the recording goes on, the subscriber then sees all */
    CU_ASSERT_FATAL(ht_broker_start(&b) == 0);
    ht_sub_t *sub = ht_sub_start(b.port, "test/#", "kifucam-test-sub2");
    CU_ASSERT_FATAL(sub != NULL);
    ht_broker_stop(&b, SIGTERM); /* the subscriber's session is kept by the broker (persistence) */
    int last = record_game(dir, &b, 0, 15, &t);
    check_seen(sub, last, t);
    ht_sub_stop(sub);
    rec_trk_destroy(t);
    ht_broker_stop(&b, SIGTERM);
    ht_broker_free(&b);
    ht_rm_rf(dir);
}

/* URLs, board ids and credentials: refused with the reason. */
static void test_url_board(void) {
    rec_mqtt_url_t u;
    char why[300];
    CU_ASSERT(rec_mqtt_url_parse("mqtt://127.0.0.1:1884/club/2026", &u, why, sizeof why) == REC_OK);
    CU_ASSERT(!strcmp(u.host, "127.0.0.1") && u.port == 1884 && !u.tls && !strcmp(u.prefix, "club/2026"));
    CU_ASSERT(rec_mqtt_url_parse("mqtts://broker.example/", &u, why, sizeof why) == REC_OK);
    CU_ASSERT(u.port == 8883 && u.tls && !strcmp(u.prefix, "kifucam"));
    CU_ASSERT(rec_mqtt_url_parse("mqtt://user:pw@host/x", &u, why, sizeof why) == REC_EPARSE &&
              strstr(why, "environment"));
    char shown[64]; /* an error line never repeats a password given in the URL */
    CU_ASSERT_STRING_EQUAL(rec_mqtt_url_shown("mqtt://user:pw@host/x", shown, sizeof shown),
                           "mqtt://***@host/x");
    CU_ASSERT_STRING_EQUAL(rec_mqtt_url_shown("u:p@h", shown, sizeof shown), "***@h");
    CU_ASSERT_STRING_EQUAL(rec_mqtt_url_shown("mqtt://h:1/x", shown, sizeof shown), "mqtt://h:1/x");
    CU_ASSERT(rec_mqtt_url_parse("http://host/x", &u, why, sizeof why) == REC_EPARSE);
    CU_ASSERT(rec_mqtt_url_parse("mqtt://host:99999/x", &u, why, sizeof why) == REC_EPARSE);
    CU_ASSERT(rec_mqtt_url_parse("mqtt://host/a/#", &u, why, sizeof why) == REC_EPARSE);
    CU_ASSERT(rec_hall_board_check("12") == 0 && rec_hall_board_check("A-3.b_1") == 0);
    CU_ASSERT(rec_hall_board_check("..") == -1 && rec_hall_board_check("a/b") == -1 &&
              rec_hall_board_check("") == -1 && rec_hall_board_check("盤1") == -1 &&
              rec_hall_board_check("+") == -1);
    char user[64], pass[64], path[] = "/tmp/kifucam-cred-XXXXXX";
    int fd = mkstemp(path);
    CU_ASSERT_FATAL(fd >= 0);
    CU_ASSERT(write(fd, "board7:s3cret\n", 14) == 14);
    close(fd);
    setenv("KIFUCAM_MQTT_CREDENTIALS", path, 1);
    CU_ASSERT(rec_mqtt_credentials(user, pass, sizeof user, why, sizeof why) == REC_OK);
    CU_ASSERT(!strcmp(user, "board7") && !strcmp(pass, "s3cret"));
    unlink(path);
    CU_ASSERT(rec_mqtt_credentials(user, pass, sizeof user, why, sizeof why) == REC_EIO && strstr(why, path));
    unsetenv("KIFUCAM_MQTT_CREDENTIALS");
    setenv("KIFUCAM_MQTT_USER", "b8", 1);
    setenv("KIFUCAM_MQTT_PASSWORD", "pw8", 1);
    CU_ASSERT(rec_mqtt_credentials(user, pass, sizeof user, why, sizeof why) == REC_OK);
    CU_ASSERT(!strcmp(user, "b8") && !strcmp(pass, "pw8"));
    unsetenv("KIFUCAM_MQTT_USER");
    unsetenv("KIFUCAM_MQTT_PASSWORD");
}

/* The broker of contrib/mosquitto (its ACL, with the test's prefix): a recorder logged in as b7
 * publishes board b7 and the hall reads it; a client logged in as b8 publishing as board b7 is
 * refused by the ACL (the hall never sees it); a recorder with a wrong password never connects and
 * records on. */
static void test_acl(void) {
    ht_broker_t b;
    char dir[] = "/tmp/kifucam-pub-XXXXXX", acl_src[4096], pw[300], acl[300], cmd[1600], line[256];
    if (access("/usr/bin/mosquitto_passwd", X_OK) != 0 || ht_broker_init(&b) != 0) {
        printf("\n    skipped: mosquitto not installed (make deps)\n");
        return;
    }
    ht_broker_free(&b);
    CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
    chmod(dir, 0755);
    snprintf(pw, sizeof pw, "%s/passwd", dir);
    snprintf(acl, sizeof acl, "%s/acl", dir);
    snprintf(cmd, sizeof cmd,
             "mosquitto_passwd -c -b %s b7 pw7 && mosquitto_passwd -b %s b8 pw8 && mosquitto_passwd -b %s "
             "hall pwh "
             "&& chmod 644 %s",
             pw, pw, pw, pw);
    CU_ASSERT_FATAL(system(cmd) == 0);
    CU_ASSERT_FATAL(tests_project_path(acl_src, sizeof acl_src, "contrib/mosquitto/kifucam.acl") == 0);
    FILE *in = fopen(acl_src, "r"), *out = fopen(acl, "w");
    CU_ASSERT_FATAL(in && out);
    while (fgets(line, sizeof line, in)) { /* the contrib ACL with the prefix "test" */
        char *k = strstr(line, "kifucam/");
        if (k && line[0] != '#')
            fprintf(out, "%.*stest/%s", (int)(k - line), line, k + 8);
        else
            fputs(line, out);
    }
    fclose(in);
    fclose(out);
    chmod(acl, 0644);
    CU_ASSERT_FATAL(ht_broker_init_acl(&b, pw, acl) == 0 && ht_broker_start(&b) == 0);
    ht_sub_t *hall = ht_sub_start_user(b.port, "test/#", NULL, "hall", "pwh");
    CU_ASSERT_FATAL(hall != NULL);
    /* the impostor: user b8 writes board b7's state */
    ht_sub_t *rogue = ht_sub_start_user(b.port, "test/board/b8/#", NULL, "b8", "pw8");
    CU_ASSERT_FATAL(rogue != NULL);
    ht_sub_publish(rogue, "test/board/b7/state",
                   "{\"board\":\"b7\",\"seq\":999,\"sfen\":\"x\",\"status\":\"ended\"}");
    /* the recorder of board b7 */
    setenv("KIFUCAM_MQTT_USER", "b7", 1);
    setenv("KIFUCAM_MQTT_PASSWORD", "pw7", 1);
    rec_trk_t *t = NULL;
    char rdir[] = "/tmp/kifucam-pub-XXXXXX";
    CU_ASSERT_FATAL(mkdtemp(rdir) != NULL);
    int last = record_game(rdir, &b, 0, 0, &t);
    CU_ASSERT(ht_sub_wait_seq(hall, "test/board/b7/event", last, 20000) == last);
    int top = ht_sub_wait_seq(hall, "test/board/b7/state", last, 5000); /* the highest seq of any b7 state */
    TESTS_CHECK(top == last, "b7 states the hall saw go up to seq %d (the recorder's last: %d; 999: b8's)",
                top, last);
    rec_trk_destroy(t);
    ht_rm_rf(rdir);
    /* a wrong password: no connection, the recording goes on */
    setenv("KIFUCAM_MQTT_PASSWORD", "wrong", 1);
    rec_out_meta_t m;
    memset(&m, 0, sizeof m);
    snprintf(m.board, sizeof m.board, "b7");
    char url[100], err[256];
    snprintf(url, sizeof url, "mqtt://127.0.0.1:%d/test", b.port);
    rec_pub_t *p = NULL;
    CU_ASSERT_FATAL(rec_pub_open(url, dir, &m, &p, err, sizeof err) == REC_OK);
    rec_pub_stats_t ps;
    for (int i = 0; i < 100; i++) {
        rec_pub_update(p, NULL, NULL);
        ht_sleep_ms(20);
    }
    rec_pub_stats(p, &ps);
    TESTS_CHECK(ps.connects == 0 && ps.published == 0 && strstr(ps.refused, "not authorised"),
                "%d connects, %d published, refused: '%s'", ps.connects, ps.published, ps.refused);
    rec_pub_close(p, 0);
    unsetenv("KIFUCAM_MQTT_USER");
    unsetenv("KIFUCAM_MQTT_PASSWORD");
    ht_sub_stop(rogue);
    ht_sub_stop(hall);
    ht_broker_free(&b);
    ht_rm_rf(dir);
}

/* The child of test_offline: records GAME into dir as board b7, waits until every event is
 * acknowledged, says so on fd and waits to be stopped and killed. Never returns. */
static void record_and_hold(const char *dir, int port, int fd) {
    char url[128], err[256];
    rec_sink_t s = {0};
    rec_out_meta_t m;
    memset(&m, 0, sizeof m);
    snprintf(m.board, sizeof m.board, "b7");
    snprintf(m.sente, sizeof m.sente, "Alice");
    snprintf(url, sizeof url, "mqtt://127.0.0.1:%d/test", port);
    if (rec_out_open(dir, 80, &s.out, err, sizeof err) != REC_OK || rec_out_set_meta(s.out, &m) != REC_OK ||
        rec_pub_open(url, dir, &m, &s.pub, err, sizeof err) != REC_OK)
        _exit(1);
    tt_game_t g;
    tt_result_t r;
    tt_stream_params_t sp;
    rec_trk_t *t = NULL;
    tt_game_from_usi(&g, GAME);
    tt_stream_params_default(&sp);
    sp.seed = 5;
    sp.after_feed = after_feed;
    sp.user = &s;
    tt_run(&g, &sp, &t, &r);
    int last = t && rec_trk_nevents(t) > 0 ? rec_trk_event(t, rec_trk_nevents(t) - 1)->seq : 0;
    rec_pub_stats_t st = {0};
    for (int i = 0; i < 1000 && (st.acked_seq != last || last == 0); i++) {
        rec_pub_update(s.pub, t, "stable");
        rec_pub_stats(s.pub, &st);
        ht_sleep_ms(20);
    }
    char ply = (char)(t ? rec_trk_game(t)->nply : 0);
    if (st.acked_seq != last || last == 0 || write(fd, &ply, 1) != 1)
        _exit(1);
    for (;;)
        pause();
}

/* Waits up to timeout_ms for board b7's state.json on the hall at port to hold want ("\"offline\":true"
 * ...); the milliseconds it took, -1 if it never did. *state: the last answer (free). */
static int wait_state(int port, const char *want, int timeout_ms, char **state) {
    *state = NULL;
    for (int waited = 0;; waited += 50) {
        free(*state);
        *state = ht_http(port, "GET", "/board/b7/state.json");
        if (*state && strstr(*state, want))
            return waited;
        if (waited >= timeout_ms)
            return -1;
        ht_sleep_ms(50);
    }
}

/* A recorder process frozen by SIGSTOP (its connection open, silent: a dead computer or network as the
 * broker sees it) with a 5 s keepalive: the broker publishes its last will once 1.5 keepalives passed
 * without a packet (mosquitto 2.0 looks every 6 s: at most 16 s) and the hall shows the board offline
 * with its position and moves; a recorder that then records the
 * board again is online, and offline again after its clean stop. */
static void test_offline(void) {
    ht_broker_t b;
    char dir[] = "/tmp/kifucam-pub-XXXXXX", dir2[] = "/tmp/kifucam-pub-XXXXXX", url[100], err[300];
    int fds[2];
    if (ht_broker_init(&b) != 0) {
        printf("\n    skipped: mosquitto not installed (make deps)\n");
        return;
    }
    CU_ASSERT_FATAL(mkdtemp(dir) != NULL && mkdtemp(dir2) != NULL);
    CU_ASSERT_FATAL(ht_broker_start(&b) == 0);
    CU_ASSERT_FATAL(pipe(fds) == 0);
    setenv("KIFUCAM_MQTT_KEEPALIVE", "5", 1);
    fflush(NULL);
    pid_t pid = fork(); /* before this process starts any thread */
    CU_ASSERT_FATAL(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        record_and_hold(dir, b.port, fds[1]);
    }
    close(fds[1]);
    char ply = 0;
    struct pollfd pf = {fds[0], POLLIN, 0};
    int ready = poll(&pf, 1, 60000) == 1 && read(fds[0], &ply, 1) == 1;
    close(fds[0]);
    TESTS_CHECK(ready && ply > 0, "the recorder process published its game: %d, %d moves", ready, ply);
    snprintf(url, sizeof url, "mqtt://127.0.0.1:%d/test", b.port);
    rec_hall_t *h = NULL;
    CU_ASSERT_FATAL(rec_hall_open(url, NULL, 0, NULL, &h, err, sizeof err) == REC_OK);
    int port = rec_hall_port(h);
    char want[64], *st = NULL;
    snprintf(want, sizeof want, "\"ply\":%d", ply);
    int ms = wait_state(port, want, 5000, &st);
    TESTS_CHECK(ms >= 0 && strstr(st, "\"offline\":false"), "the running recorder's board: %.300s",
                st ? st : "(none)");
    free(st);
    kill(pid, SIGSTOP);
    ms = wait_state(port, "\"offline\":true", 20000,
                    &st); /* 1.5 keepalives, and mosquitto 2.0 looks every 6 s */
    TESTS_CHECK(ms >= 0 && ms <= 16000 && strstr(st, want) && strstr(st, "\"moves\":[{") &&
                    strstr(st, "\"sente\":\"Alice\""),
                "offline %d ms after the recorder froze (keepalive 5 s), the position kept: %.300s", ms,
                st ? st : "(none)");
    printf("\n    the frozen recorder's board offline after %d ms (keepalive 5 s)", ms);
    free(st);
    char *all = ht_http(port, "GET", "/boards.json");
    CU_ASSERT(all && strstr(all, "\"offline\":true"));
    free(all);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    /* the board recorded again: online while it records, offline after its clean stop */
    ht_sub_t *sub = ht_sub_start(b.port, "test/board/b7/status", NULL);
    CU_ASSERT_FATAL(sub != NULL);
    rec_trk_t *t = NULL;
    record_game(dir2, &b, 0, 0, &t);
    char *last = ht_sub_wait_last(sub, "test/board/b7/status", 2000);
    int n = ht_sub_count(sub, "test/board/b7/status");
    TESTS_CHECK(last && strstr(last, "\"online\":false") && n >= 3,
                "statuses after a clean stop: %d, the last %s", n, last ? last : "(none)");
    free(last);
    ms = wait_state(port, "\"offline\":true", 3000, &st);
    TESTS_CHECK(ms >= 0 && strstr(st, "\"moves\":[{"), "after the clean stop: %.300s", st ? st : "(none)");
    free(st);
    ht_sub_stop(sub);
    rec_trk_destroy(t);
    rec_hall_close(h);
    unsetenv("KIFUCAM_MQTT_KEEPALIVE");
    ht_broker_free(&b);
    ht_rm_rf(dir);
    ht_rm_rf(dir2);
}

int tests_register_hall_publish(void) {
    CU_pSuite s = CU_add_suite("recorder/hall_publish", NULL, NULL);
    if (s == NULL)
        return -1;
    if (!CU_add_test(s, "MQTT URLs, board ids, credentials", test_url_board) ||
        !CU_add_test(s, "broker stopped mid-game and started again: every seq, in order",
                     test_broker_restart) ||
        !CU_add_test(s, "broker not up at the start: the recording goes on, all published later",
                     test_broker_late) ||
        !CU_add_test(s, "the contrib ACL: a board cannot publish as another; a wrong password", test_acl) ||
        !CU_add_test(s, "a frozen recorder's board goes offline within the keepalive; a clean stop too",
                     test_offline))
        return -1;
    return 0;
}
