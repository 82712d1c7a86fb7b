/* test_record.c - `kifucam record` end to end (recorder/record/record.c): a short rendered clip of a real
 * game (tests/data/record-clip.mp4, made by samples/make_clip.py, its moves in record-clip.usi) is recorded
 * with the committed square classifier and the moves found must be the game's; the kifu files and the
 * logs must be there. Also: a source that does not exist, a clip with no board, an `abort` command on
 * the command descriptor, the stop flag. Skipped (with a line) when models/squares.onnx is absent. */
#include <CUnit/CUnit.h>
#include <jansson.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "recorder/output/output.h"
#include "recorder/record/record.h"
#include "tests/tests.h"

static int model_path(char *buf, size_t size) {
    struct stat sb;
    const char *env = getenv("KIFUCAM_MODEL"); /* another model (e.g. one being trained) */
    if (env && env[0]) {
        snprintf(buf, size, "%s", env);
        return 0;
    }
    if (tests_project_path(buf, size, "models/squares.onnx") != 0 || stat(buf, &sb) != 0) {
        printf("\n    skipped: models/squares.onnx not found (record end to end)\n");
        return -1;
    }
    return 0;
}

/* Options that record tests/data/record-clip.mp4 into a new temporary folder made from the mkdtemp
 * template dir, with the committed model: model and clip are the caller's buffers of size bytes.
 * Returns -1 when there is no model (the test is skipped), else 0. */
static int clip_opts(rec_record_opts_t *o, char *model, char *clip, size_t size, char *dir) {
    if (model_path(model, size) != 0)
        return -1;
    CU_ASSERT_FATAL(tests_project_path(clip, size, "tests/data/record-clip.mp4") == 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    rec_record_opts_default(o);
    o->source = clip;
    o->out_dir = dir;
    o->model = model;
    return 0;
}

static void rm_tree(const char *dir) {
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
}

static int exists(const char *dir, const char *name) {
    char p[4200];
    struct stat sb;
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return stat(p, &sb) == 0 && sb.st_size > 0;
}

/* The moves of a `position ... moves ...` line, space-separated, into out. */
static int truth_moves(const char *path, char *out, size_t size) {
    char line[8192];
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return -1;
    int ok = fgets(line, sizeof line, f) != NULL;
    fclose(f);
    const char *m = ok ? strstr(line, " moves ") : NULL;
    if (m == NULL)
        return -1;
    snprintf(out, size, "%s", m + 7);
    size_t n = strlen(out);
    while (n && (out[n - 1] == '\n' || out[n - 1] == ' '))
        out[--n] = '\0';
    return 0;
}

/* The moves of the test clip's game (tests/data/record-clip.usi), space-separated, into want. */
static void clip_truth(char *want, size_t size) {
    char usi[4096];
    CU_ASSERT_FATAL(tests_project_path(usi, sizeof usi, "tests/data/record-clip.usi") == 0);
    CU_ASSERT_FATAL(truth_moves(usi, want, size) == 0);
}

/* Events of type `type` in dir's events.jsonl whose detail holds `detail` (NULL: any); -1 unreadable. */
static int count_events(const char *dir, const char *type, const char *detail) {
    char p[4200], line[16384];
    int n = 0;
    snprintf(p, sizeof p, "%s/events.jsonl", dir);
    FILE *f = fopen(p, "r");
    if (f == NULL)
        return -1;
    while (fgets(line, sizeof line, f)) {
        json_t *o = json_loads(line, 0, NULL);
        const char *ty = json_string_value(json_object_get(o, "type"));
        const char *d = json_string_value(json_object_get(o, "detail"));
        n += ty && !strcmp(ty, type) && (detail == NULL || (d && strstr(d, detail)));
        json_decref(o);
    }
    fclose(f);
    return n;
}

/* The moves of game 1 in dir/events.jsonl, space-separated; *uncertain counts uncertain events. */
static int found_moves(const char *dir, char *out, size_t size, int *uncertain) {
    char p[4200], line[16384];
    snprintf(p, sizeof p, "%s/events.jsonl", dir);
    FILE *f = fopen(p, "r");
    size_t len = 0;
    out[0] = '\0';
    *uncertain = 0;
    if (f == NULL)
        return -1;
    while (fgets(line, sizeof line, f)) {
        json_t *o = json_loads(line, 0, NULL);
        const char *type = json_string_value(json_object_get(o, "type"));
        const char *mv = json_string_value(json_object_get(o, "move"));
        if (type && !strcmp(type, "uncertain"))
            (*uncertain)++;
        if (type && mv && json_integer_value(json_object_get(o, "game")) == 1 &&
            (!strcmp(type, "move") || !strcmp(type, "illegal_move")) && len + 8 < size)
            len += (size_t)snprintf(out + len, size - len, "%s%s", len ? " " : "", mv);
        json_decref(o);
    }
    fclose(f);
    return 0;
}

/* The move events of the games of dir/events.jsonl that take a game up again (game_start with
 * "continues"), against the true moves (space-separated, want): a continuation's ply k is the game's
 * ply n - 1 + k, n the move number of its start's SFEN. *right and *wrong count them. */
static void continued_moves(const char *dir, const char *want, int *right, int *wrong) {
    char p[4300], line[16384];
    const char *truth[1024];
    static char w[8192];
    int ntruth = 0, base[64] = {0};
    char *sv = NULL;
    snprintf(w, sizeof w, "%s", want);
    for (char *m = strtok_r(w, " ", &sv); m && ntruth < 1024; m = strtok_r(NULL, " ", &sv))
        truth[ntruth++] = m;
    *right = *wrong = 0;
    snprintf(p, sizeof p, "%s/events.jsonl", dir);
    FILE *f = fopen(p, "r");
    while (f && fgets(line, sizeof line, f)) {
        json_t *o = json_loads(line, 0, NULL);
        const char *type = json_string_value(json_object_get(o, "type"));
        const char *mv = json_string_value(json_object_get(o, "move"));
        const char *sfen = json_string_value(json_object_get(o, "sfen"));
        long long g = json_integer_value(json_object_get(o, "game")),
                  ply = json_integer_value(json_object_get(o, "ply"));
        if (type && !strcmp(type, "game_start") && g > 1 && g < 64 && json_object_get(o, "continues") &&
            sfen) {
            const char *sp = strrchr(sfen, ' ');
            base[g] = sp ? atoi(sp + 1) - 1 : 0;
        } else if (type && mv && !strcmp(type, "move") && g > 1 && g < 64 && base[g] > 0) {
            long long k = base[g] + ply - 1;
            (*(k >= 0 && k < ntruth && !strcmp(truth[k], mv) ? right : wrong))++;
        }
        json_decref(o);
    }
    if (f)
        fclose(f);
}

/* Move events of dir/events.jsonl whose board_px (the grid's corners, then the frame's size) lies in
 * the frame, of *moves move events. */
static int moves_with_board_px(const char *dir, int *moves) {
    char p[4200], line[16384];
    int n = 0;
    snprintf(p, sizeof p, "%s/events.jsonl", dir);
    FILE *f = fopen(p, "r");
    *moves = 0;
    while (f && fgets(line, sizeof line, f)) {
        json_t *o = json_loads(line, 0, NULL), *px = json_object_get(o, "board_px");
        const char *type = json_string_value(json_object_get(o, "type"));
        if (type && !strcmp(type, "move")) {
            int in = json_array_size(px) == 10;
            double w = json_number_value(json_array_get(px, 8)), h = json_number_value(json_array_get(px, 9));
            for (size_t i = 0; in && i < 8; i++) {
                double v = json_number_value(json_array_get(px, i));
                in = v > 0 && v < (i % 2 ? h : w);
            }
            (*moves)++;
            n += in;
        }
        json_decref(o);
    }
    if (f)
        fclose(f);
    return n;
}

static void test_record_clip(void) {
    char model[4096], clip[4096], dir[] = "/tmp/kifucam-test-record-XXXXXX", err[512];
    char want[8192], got[8192];
    rec_record_opts_t o;
    rec_record_stats_t st;
    int uncertain;
    if (clip_opts(&o, model, clip, sizeof model, dir) != 0)
        return;
    clip_truth(want, sizeof want);
    int rc = rec_record_run(&o, &st, err, sizeof err);
    TESTS_CHECK(rc == REC_OK, "record: %d %s", rc, err);
    CU_ASSERT_EQUAL(st.board_found, 1);
    CU_ASSERT_EQUAL(st.board_lost, 0);
    CU_ASSERT_EQUAL(st.games, 1);
    CU_ASSERT(st.frames > 50);
    CU_ASSERT(found_moves(dir, got, sizeof got, &uncertain) == 0);
    TESTS_CHECK(strcmp(got, want) == 0, "moves found '%s', game '%s'", got, want);
    TESTS_CHECK(uncertain == 0, "%d uncertain reads", uncertain);
    CU_ASSERT(exists(dir, "game.kif") && exists(dir, "game.csa") && exists(dir, "game.usi") &&
              exists(dir, "game.jkf") && exists(dir, "game.ki2") && exists(dir, "review.html") &&
              exists(dir, "source.jsonl") && exists(dir, "evidence/move-001-after.jpg"));
    int moves, placed = moves_with_board_px(dir, &moves); /* review.html crops and marks the frames with it */
    TESTS_CHECK(moves > 0 && placed == moves, "%d of %d moves say where the board lies", placed, moves);
    rm_tree(dir);
}

static void test_record_bad_input(void) {
    char model[4096], clip[4096], dir[] = "/tmp/kifucam-test-record-XXXXXX", err[512];
    rec_record_opts_t o;
    rec_record_stats_t st;
    if (model_path(model, sizeof model) != 0)
        return;
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    rec_record_opts_default(&o);
    o.out_dir = dir;
    o.model = model;
    o.source = "/nonexistent/clip.mp4";
    CU_ASSERT_EQUAL(rec_record_run(&o, &st, err, sizeof err), REC_ESOURCE);
    TESTS_CHECK(strstr(err, "/nonexistent/clip.mp4") != NULL, "message '%s'", err);

    CU_ASSERT_FATAL(tests_project_path(clip, sizeof clip, "tests/data/record-noboard.mp4") == 0);
    o.source = clip;
    CU_ASSERT_EQUAL(rec_record_run(&o, &st, err, sizeof err), REC_ENOBOARD);
    TESTS_CHECK(strstr(err, "no board found") != NULL, "message '%s'", err);
    CU_ASSERT(st.frames > 0 && st.pose_searches >= 2);

    o.model = "/nonexistent/model.onnx";
    CU_ASSERT_EQUAL(rec_record_run(&o, &st, err, sizeof err), REC_EMODEL);
    o.model = NULL;
    CU_ASSERT_EQUAL(rec_record_run(&o, &st, err, sizeof err), REC_ERANGE);
    rm_tree(dir);
}

static void test_record_abort_and_stop(void) {
    char model[4096], clip[4096], dir[] = "/tmp/kifucam-test-record-XXXXXX", err[512];
    rec_record_opts_t o;
    rec_record_stats_t st;
    int fds[2];
    volatile sig_atomic_t stop = 1;
    if (clip_opts(&o, model, clip, sizeof model, dir) != 0)
        return;
    /* `abort` before any frame: a clean stop, exit 0 */
    CU_ASSERT_FATAL(pipe(fds) == 0);
    CU_ASSERT(write(fds[1], "  \nabort\n", 9) == 9);
    close(fds[1]);
    o.cmd_fd = fds[0];
    CU_ASSERT_EQUAL(rec_record_run(&o, &st, err, sizeof err), REC_OK);
    CU_ASSERT_EQUAL(st.aborted, 1);
    CU_ASSERT_EQUAL(st.frames, 0);
    close(fds[0]);
    /* the stop flag (SIGINT in the command) */
    o.cmd_fd = -1;
    o.stop = &stop;
    CU_ASSERT_EQUAL(rec_record_run(&o, &st, err, sizeof err), REC_OK);
    CU_ASSERT_EQUAL(st.aborted, 2);
    /* a frame limit, then --resume continues from the log without losing a move */
    o.stop = NULL;
    o.max_frames = 40;
    CU_ASSERT_EQUAL(rec_record_run(&o, &st, err, sizeof err), REC_OK);
    int before = st.moves;
    o.max_frames = 1;
    o.resume = 1;
    TESTS_CHECK(rec_record_run(&o, &st, err, sizeof err) == REC_OK, "resume: %s", err);
    int unc;
    char got[8192];
    CU_ASSERT(found_moves(dir, got, sizeof got, &unc) == 0);
    int n = got[0] ? 1 : 0;
    for (const char *p = got; *p; p++)
        n += *p == ' ';
    TESTS_CHECK(n == before, "%d moves in the log after resume, %d before", n, before);
    /* the interruption is an event of the log (and so a row of review.html) */
    TESTS_CHECK(count_events(dir, "resumed", "the recording was interrupted after event") == 1,
                "one resumed event (%d)", count_events(dir, "resumed", NULL));
    rm_tree(dir);
}

/* Evidence frames dir's events.jsonl calls for (an event's ref_before, ref_after) and how many of them
 * are in evidence/ (*have). */
static int evidence_wanted(const char *dir, int *have) {
    char p[4200], line[16384], name[64];
    int n = 0;
    snprintf(p, sizeof p, "%s/events.jsonl", dir);
    FILE *f = fopen(p, "r");
    *have = 0;
    while (f && fgets(line, sizeof line, f)) {
        json_t *o = json_loads(line, 0, NULL);
        rec_trk_event_t e;
        memset(&e, 0, sizeof e);
        const char *type = json_string_value(json_object_get(o, "type"));
        e.type = type && !strcmp(type, "move") ? REC_TEV_MOVE : REC_TEV_NB;
        for (int t = 0; t < REC_TEV_NB; t++)
            if (type && !strcmp(type, rec_trk_event_name(t)))
                e.type = t;
        e.seq = (int)json_integer_value(json_object_get(o, "seq"));
        e.game = (int)json_integer_value(json_object_get(o, "game"));
        e.ply = (int)json_integer_value(json_object_get(o, "ply"));
        static const char *const which[] = {"before", "after"}, *const ref[] = {"ref_before", "ref_after"};
        for (int w = 0; w < 2; w++) {
            const char *r = json_string_value(json_object_get(o, ref[w]));
            if (r == NULL || r[0] == '\0')
                continue;
            rec_out_evidence_name(&e, which[w], name, sizeof name);
            n++;
            *have += exists(dir, name);
        }
        json_decref(o);
    }
    if (f)
        fclose(f);
    return n;
}

/* A full disk (here the real write failure of a file-size limit, RLIMIT_FSIZE, on every file of the
 * folder: the evidence JPEGs fail first, then review.html): the run stops with as many moves counted
 * as events.jsonl holds, and --resume with room again writes the missing evidence frames from the
 * replayed source and records the rest of the game. */
static void test_record_full_disk(void) {
    char model[4096], clip[4096], dir[] = "/tmp/kifucam-test-record-XXXXXX", err[512], want[8192], got[8192];
    rec_record_opts_t o;
    rec_record_stats_t st;
    int unc, have;
    if (clip_opts(&o, model, clip, sizeof model, dir) != 0)
        return;
    clip_truth(want, sizeof want);
    pid_t pid = fork();
    CU_ASSERT_FATAL(pid >= 0);
    if (pid == 0) {
        struct rlimit rl = {14000, 14000}; /* bytes a file may hold: a JPEG frame is ~50 KB */
        signal(SIGXFSZ, SIG_IGN);          /* a write past it fails with EFBIG instead */
        setrlimit(RLIMIT_FSIZE, &rl);
        int rc = rec_record_run(&o, &st, err, sizeof err);
        _exit(rc == REC_EIO ? st.moves : 255);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    int counted = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    CU_ASSERT(found_moves(dir, got, sizeof got, &unc) == 0);
    int logged = got[0] ? 1 : 0;
    for (const char *p = got; *p; p++)
        logged += *p == ' ';
    TESTS_CHECK(counted > 0 && counted < 12 && counted == logged,
                "stopped by the full disk after %d moves counted, %d in events.jsonl", counted, logged);
    int wanted = evidence_wanted(dir, &have);
    TESTS_CHECK(wanted > 0 && have == 0, "before resume: %d of %d evidence frames", have, wanted);
    o.resume = 1;
    TESTS_CHECK(rec_record_run(&o, &st, err, sizeof err) == REC_OK, "resume: %s", err);
    CU_ASSERT(found_moves(dir, got, sizeof got, &unc) == 0);
    TESTS_CHECK(!strcmp(got, want), "moves after resume '%s', want '%s'", got, want);
    int wanted2 = evidence_wanted(dir, &have);
    TESTS_CHECK(have == wanted2 && st.evidence_refilled == wanted,
                "after resume: %d of %d evidence frames, %d written again (of %d missing)", have, wanted2,
                st.evidence_refilled, wanted);
    rm_tree(dir);
}

/* On a terminal the progress line is rewritten in place; its last state is drawn once (drawn again
 * after the end-of-source line, it showed twice in a log of the terminal, or when wrapped). */
static void test_record_progress_once(void) {
    char model[4096], clip[4096], dir[] = "/tmp/kifucam-test-record-XXXXXX", err[512], want[64];
    rec_record_opts_t o;
    rec_record_stats_t st;
    if (clip_opts(&o, model, clip, sizeof model, dir) != 0)
        return;
    FILE *log = tmpfile();
    CU_ASSERT_PTR_NOT_NULL_FATAL(log);
    o.log = log;
    o.log_tty = 1;
    TESTS_CHECK(rec_record_run(&o, &st, err, sizeof err) == REC_OK, "record: %s", err);
    snprintf(want, sizeof want, "frame %llu  moves %d ", (unsigned long long)st.frames, st.moves);
    rewind(log);
    static char text[1 << 20];
    size_t n = fread(text, 1, sizeof text - 1, log);
    text[n] = '\0';
    fclose(log);
    int shown = 0;
    for (const char *p = text; (p = strstr(p, want)) != NULL; p++)
        shown++;
    TESTS_CHECK(shown == 1, "the last progress line '%s' drawn %d times", want, shown);
    rm_tree(dir);
}

/* Timestamp (µs) of the n-th move event (1-based) of game 1 in dir's events.jsonl, or -1. */
static int64_t move_ts(const char *dir, int n) {
    char p[4200], line[16384];
    snprintf(p, sizeof p, "%s/events.jsonl", dir);
    FILE *f = fopen(p, "r");
    int64_t ts = -1;
    if (f == NULL)
        return -1;
    while (ts < 0 && fgets(line, sizeof line, f)) {
        json_t *o = json_loads(line, 0, NULL);
        const char *type = json_string_value(json_object_get(o, "type"));
        if (type && !strcmp(type, "move") && --n == 0)
            ts = json_integer_value(json_object_get(o, "ts_us"));
        json_decref(o);
    }
    fclose(f);
    return ts;
}

/* Records o->source into o->out_dir for max_frames frames (want_moves moves must be written by then),
 * then resumes it to the end: the moves of game 1 must be want, none uncertain. */
static void stop_and_resume(rec_record_opts_t *o, int64_t max_frames, int want_moves, const char *want) {
    rec_record_stats_t st;
    char err[512], got[8192];
    int unc;
    o->max_frames = max_frames;
    CU_ASSERT_EQUAL_FATAL(rec_record_run(o, &st, err, sizeof err), REC_OK);
    TESTS_CHECK(st.moves == want_moves, "stopped after %d moves (%d)", want_moves, st.moves);
    o->max_frames = 0;
    o->resume = 1;
    TESTS_CHECK(rec_record_run(o, &st, err, sizeof err) == REC_OK, "resume: %s", err);
    CU_ASSERT(found_moves(o->out_dir, got, sizeof got, &unc) == 0);
    TESTS_CHECK(!strcmp(got, want) && unc == 0, "moves after resume '%s', want '%s' (%d uncertain)", got,
                want, unc);
}

/* --resume at a position that looks the same from both ends (after 2g2f 8c8d 2f2e 8d8e, the clip's
 * 4th move): the game's position cannot tell which end is sente's, the next move does; the resumed
 * recording has all 12 moves right (it used to take the far end for sente's and write the rest of the
 * game turned round: found by a fresh user on the sample clip's symmetric move 30). */
static void test_record_resume_symmetric(void) {
    char model[4096], clip[4096], dir[] = "/tmp/kifucam-test-record-XXXXXX", err[512];
    char want[8192];
    rec_record_opts_t o;
    rec_record_stats_t st;
    if (clip_opts(&o, model, clip, sizeof model, dir) != 0)
        return;
    clip_truth(want, sizeof want);
    CU_ASSERT_EQUAL_FATAL(rec_record_run(&o, &st, err, sizeof err), REC_OK);
    int64_t t4 = move_ts(dir, 4), t5 = move_ts(dir, 5);
    CU_ASSERT_FATAL(t4 > 0 && t5 > t4);
    rm_tree(dir);
    strcpy(dir, "/tmp/kifucam-test-record-XXXXXX");
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    stop_and_resume(&o, (t4 + t5) / 2 / 100000, 4, want); /* 10 fps from 0: between moves 4 and 5 */
    rm_tree(dir);
}

/* --resume on samples/sample-clip.mp4 (the held-out piece set, which the network alone misreads: the
 * recorder keeps it by learning the set from the views it accepts) after move 20: the log keeps the
 * moves, not the looks, so the resumed recording learns the set again from the first view that places
 * the pieces as the game's position does. All 80 moves right (before: 20, the game stalled at move
 * 21 with one uncertain event). */
static void test_record_resume_learns_set(void) {
    char model[4096], clip[4096], usi[4096], dir[] = "/tmp/kifucam-test-record-XXXXXX";
    char want[8192];
    rec_record_opts_t o;
    if (clip_opts(&o, model, clip, sizeof model, dir) != 0)
        return;
    CU_ASSERT_FATAL(tests_project_path(clip, sizeof clip, "samples/sample-clip.mp4") == 0);
    CU_ASSERT_FATAL(tests_project_path(usi, sizeof usi, "samples/sample-clip.usi") == 0);
    CU_ASSERT_FATAL(truth_moves(usi, want, sizeof want) == 0);
    stop_and_resume(&o, 218, 20, want); /* 10 fps: move 20 is written at 21.3 s, move 21 at 22.3 s */
    rm_tree(dir);
}

/* The test clip with 2.5 s cut out of the middle (ffmpeg, the timestamps kept): source.jsonl gets a
 * frames_dropped event for the gap although no frame number is missing; the whole clip gets none. */
static void test_record_timestamp_gap(void) {
    char model[4096], clip[4096], dir[] = "/tmp/kifucam-test-record-XXXXXX", err[512], cmd[9000], p[4400];
    char line[4096];
    rec_record_opts_t o;
    rec_record_stats_t st;
    if (system("ffmpeg -version >/dev/null 2>&1") != 0) {
        printf("\n    skipped: ffmpeg not installed (make deps)\n");
        return;
    }
    if (clip_opts(&o, model, clip, sizeof model, dir) != 0)
        return;
    for (int cut = 0; cut < 2; cut++) {
        char src[4200];
        snprintf(src, sizeof src, "%s/%s.mp4", dir, cut ? "gap" : "whole");
        if (cut)
            snprintf(
                cmd, sizeof cmd,
                "ffmpeg -loglevel error -y -i '%s' -vf \"select='not(between(t,5,7.5))'\" -vsync vfr '%s'",
                clip, src);
        else
            snprintf(cmd, sizeof cmd, "cp '%s' '%s'", clip, src);
        CU_ASSERT_EQUAL_FATAL(system(cmd), 0);
        char out[4300];
        snprintf(out, sizeof out, "%s/out-%d", dir, cut);
        o.source = src;
        o.out_dir = out;
        CU_ASSERT_EQUAL_FATAL(rec_record_run(&o, &st, err, sizeof err), REC_OK);
        snprintf(p, sizeof p, "%s/source.jsonl", out);
        FILE *f = fopen(p, "r");
        int gaps = 0;
        long long ts = -1;
        while (f && fgets(line, sizeof line, f))
            if (strstr(line, "frames_dropped") && strstr(line, "gap in the source's timestamps")) {
                const char *t = strstr(line, "\"ts_us\": ");
                ts = t ? atoll(t + 9) : -1;
                gaps++;
            }
        if (f)
            fclose(f);
        TESTS_CHECK(gaps == cut, "%s clip: %d timestamp-gap events (want %d)", cut ? "cut" : "whole", gaps,
                    cut);
        /* stamped with the first frame after the gap ("no frame ... before this one"), not the last before */
        if (cut)
            TESTS_CHECK(ts >= 7400000 && ts <= 7700000,
                        "the gap's event at %lld us (want the frame at 7.5 s)", ts);
    }
    rm_tree(dir);
}

/* `kifucam record` of tests/data/record-clip.mp4 with 3000 bytes from byte 60000 overwritten by a fixed
 * pattern (tests_damage_copy; the capture test video_damaged reads the same copy): the packets the H.264
 * decoder refuses are corrupt_frames lines in source.jsonl, counted and placed in the clip's time, the
 * frame decoded with errors a frames_damaged line, and stderr says once that frames were skipped. (The
 * refused packets had been dropped unseen: exit 0 and a source.jsonl with neither; found by a fresh
 * user on the sample clip.) */
/* The sample clip (into sample, 4096 bytes) copied to dir/damaged.mp4 (into bad, 4200 bytes) with 3000
 * bytes from byte offset damaged (tests_damage_copy); out (4200 bytes) gets dir/out. 0 or -1. */
static int damaged_sample(const char *dir, long offset, char *sample, char *bad, char *out) {
    if (tests_project_path(sample, 4096, "samples/sample-clip.mp4") != 0)
        return -1;
    snprintf(bad, 4200, "%s/damaged.mp4", dir);
    snprintf(out, 4200, "%s/out", dir);
    return tests_damage_copy(sample, bad, offset, 3000);
}

/* The sample clip damaged at 5 s (3000 bytes from byte 50000): the frames up to the keyframe at 10 s are
 * lost or not read (predicted from lost ones), the moves made then are more than a hidden route
 * explains, and no move is recorded after move 3. With --resync 0 the end of the run says so on stderr
 * (a record that stops short of the game is not to be taken for the whole of it). By default the game
 * is taken up again (tracker resync_after_us): stderr says so, and game2.usi starts from a position of
 * the game and holds the game's moves from there. Damage at byte 510000, which the decoder does not
 * flag, loses the game 23 s before the end: said too. (Damage at byte 150000 was this test's until the
 * frames predicted from lost ones were no longer read: it now loses no move.) */
static void test_record_lost_track(void) {
    char model[4096], clip[4096], sample[4096], dir[] = "/tmp/kifucam-test-record-XXXXXX", bad[4200],
                                                out[4200];
    char args[13000];
    static char text[65536];
    rec_record_opts_t o;
    if (clip_opts(&o, model, clip, sizeof model, dir) != 0)
        return;
    CU_ASSERT_EQUAL_FATAL(damaged_sample(dir, 50000, sample, bad, out), 0);
    snprintf(args, sizeof args, "record --source '%s' --out '%s' --model '%s' --resync 0", bad, out, model);
    int rc = tests_run_kifucam(".", args, 1, text, sizeof text);
    const char *w = strstr(text, "kifucam record: warning: no move was recorded in the last ");
    TESTS_CHECK(rc == 0 && w != NULL && strstr(w, "the record may stop short of the game") != NULL,
                "kifucam %s: exit %d: %.2000s", args, rc, text);
    /* taken up again: game 2 from a position of the game, with the game's moves from there */
    snprintf(args, sizeof args, "record --source '%s' --out '%s/again' --model '%s'", bad, dir, model);
    rc = tests_run_kifucam(".", args, 1, text, sizeof text);
    /* the frames not read are an event of the log (events.jsonl, review.html), with where they were */
    char again[4200];
    snprintf(again, sizeof again, "%s/again", dir);
    TESTS_CHECK(count_events(again, "frames_lost", "frames lost or damaged from 4.7 s to 10.0 s") == 1 &&
                    count_events(again, "frames_lost", "moves made then were not seen") == 1,
                "one frames_lost event from 4.7 s (%d)", count_events(again, "frames_lost", NULL));
    TESTS_CHECK(rc == 0 && strstr(text, "warning: game 1 was lost track of after move 3") &&
                    strstr(text, "game 2 takes it up again") && strstr(text, "no move was recorded") == NULL,
                "kifucam %s: exit %d: %.2000s", args, rc, text);
    static char want[8192], got[8192];
    char g2[4200];
    snprintf(g2, sizeof g2, "%s/again/game2.usi", dir);
    char usi[4096];
    CU_ASSERT_FATAL(tests_project_path(usi, sizeof usi, "samples/sample-clip.usi") == 0);
    CU_ASSERT_FATAL(truth_moves(usi, want, sizeof want) == 0);
    FILE *f = fopen(g2, "r");
    int n = f && fgets(got, sizeof got, f) ? 1 : 0;
    if (f)
        fclose(f);
    got[strcspn(got, "\n")] = '\0';
    const char *mv = n ? strstr(got, " moves ") : NULL;
    int nm = 0;
    for (const char *c = mv; c && *c; c++)
        nm += *c == ' ';
    /* the moves of game 2 are a stretch of the game's, ending with its last move */
    size_t lw = strlen(want), lm = mv ? strlen(mv + 7) : 0;
    TESTS_CHECK(mv && nm >= 40 && lm < lw && strcmp(want + lw - lm, mv + 7) == 0 && want[lw - lm - 1] == ' ',
                "game2.usi holds the game's last %d moves: %.300s", nm - 1, got);
    /* damage the decoder does not flag (3000 zero bytes at 510000): the game is lost 23 s before the end,
     * with no damaged frame after the last move; the end of the run says so however short that is */
    CU_ASSERT_EQUAL_FATAL(tests_damage_copy(sample, bad, 510000, 3000), 0);
    static const char zeros[3000];
    f = fopen(bad, "r+b"); /* zeros, where tests_damage_copy's pattern is flagged by the decoder */
    CU_ASSERT_FATAL(f != NULL && fseek(f, 510000, SEEK_SET) == 0 &&
                    fwrite(zeros, 1, sizeof zeros, f) == sizeof zeros);
    fclose(f);
    snprintf(args, sizeof args, "record --source '%s' --out '%s/late' --model '%s'", bad, dir, model);
    rc = tests_run_kifucam(".", args, 1, text, sizeof text);
    TESTS_CHECK(rc == 0 && strstr(text, "warning: no move was recorded in the last") != NULL,
                "kifucam %s: exit %d: %.2000s", args, rc, text);
    /* the whole clip: no such warning */
    snprintf(args, sizeof args, "record --source '%s' --out '%s/whole' --model '%s'", sample, dir, model);
    rc = tests_run_kifucam(".", args, 1, text, sizeof text);
    TESTS_CHECK(rc == 0 && strstr(text, "no move was recorded") == NULL &&
                    strstr(text, "frames were lost") == NULL,
                "whole clip: exit %d: %.600s", rc, text);
    rm_tree(dir);
}

/* Compares the moves of game 1 in dir/events.jsonl with the true moves in the `position` line of
 * truth_usi, ply by ply (the tracker writes plies in order, never skipping one): *right and *wrong count
 * the moves found equal to or other than the game's at their ply, *uncertain the uncertain events. */
static void compare_with_truth(const char *dir, const char *truth_usi, int *right, int *wrong,
                               int *uncertain) {
    static char want[8192], got[8192];
    char *sw = NULL, *sg = NULL;
    *right = *wrong = 0;
    CU_ASSERT_FATAL(truth_moves(truth_usi, want, sizeof want) == 0);
    CU_ASSERT(found_moves(dir, got, sizeof got, uncertain) == 0);
    char *w = strtok_r(want, " ", &sw), *g = strtok_r(got, " ", &sg);
    for (; w != NULL && g != NULL; w = strtok_r(NULL, " ", &sw), g = strtok_r(NULL, " ", &sg))
        (*(strcmp(w, g) == 0 ? right : wrong))++;
    for (; g != NULL; g = strtok_r(NULL, " ", &sg))
        (*wrong)++; /* a move past the game's end */
}

/* The sample clip (80 moves, keyframes every 10 s) damaged in three places (3000 bytes, the pattern of
 * tests_damage_copy): the frames decoded after the packets the decoder refuses, up to the next keyframe,
 * are predicted from pictures that were lost, and carried no flag: read as clean views of the board,
 * they gave wrong moves (damage at byte 148575, 18 s: move 17 written B*6b for 3g3f, then the game
 * lost; 50000 and 300000 gave 3 and 1 wrong moves). Flagged damaged now, their moves held back until
 * a clean view confirms them (tracker damaged.c): no wrong move, and either every move written but
 * those whose order no view shows (148575: the 2 s up to the keyframe hid moves 17-19, and sente's two
 * could have been made in either order: game 1 stops after move 16 and game 2 takes it up with the
 * game's moves 20-80) or,
 * where the gap hid more than it can explain, an uncertain event or the game taken up again after
 * the gap (game 2 continuing game 1: test_record_lost_track checks its moves). */
static void test_record_predicted_frames(void) {
    static const long offsets[] = {148575, 50000, 300000};
    char model[4096], clip[4096], sample[4096], usi[4096], dir[] = "/tmp/kifucam-test-record-XXXXXX";
    char bad[4200], out[4200], err[512];
    rec_record_opts_t o;
    rec_record_stats_t st;
    if (clip_opts(&o, model, clip, sizeof model, dir) != 0)
        return;
    CU_ASSERT_FATAL(tests_project_path(sample, sizeof sample, "samples/sample-clip.mp4") == 0);
    CU_ASSERT_FATAL(tests_project_path(usi, sizeof usi, "samples/sample-clip.usi") == 0);
    for (size_t k = 0; k < sizeof offsets / sizeof offsets[0]; k++) {
        int right, wrong, uncertain;
        snprintf(bad, sizeof bad, "%s/damaged-%ld.mp4", dir, offsets[k]);
        snprintf(out, sizeof out, "%s/out-%ld", dir, offsets[k]);
        CU_ASSERT_EQUAL_FATAL(tests_damage_copy(sample, bad, offsets[k], 3000), 0);
        o.source = bad;
        o.out_dir = out;
        int rc = rec_record_run(&o, &st, err, sizeof err);
        TESTS_CHECK(rc == REC_OK, "damage at %ld: record: %d %s", offsets[k], rc, err);
        compare_with_truth(out, usi, &right, &wrong, &uncertain);
        TESTS_CHECK(wrong == 0, "damage at %ld: %d wrong moves (%d right, %d uncertain)", offsets[k], wrong,
                    right, uncertain);
        if (offsets[k] == 148575) {
            char want[8192];
            int right2, wrong2;
            CU_ASSERT_FATAL(truth_moves(usi, want, sizeof want) == 0);
            continued_moves(out, want, &right2, &wrong2);
            TESTS_CHECK(right == 16 && uncertain == 0 && st.taken_up == 1 && right2 == 61 && wrong2 == 0,
                        "damage at 148575: game 1 %d of 80 moves right, %d uncertain, %d taken up, game 2 %d "
                        "right, %d wrong (want 16, 0, 1, 61, 0)",
                        right, uncertain, st.taken_up, right2, wrong2);
        } else
            TESTS_CHECK(right >= 3 && (uncertain >= 1 || st.taken_up >= 1),
                        "damage at %ld: %d moves right, %d uncertain, %d taken up (want one)", offsets[k],
                        right, uncertain, st.taken_up);
        TESTS_CHECK(st.last_damage_us > 0, "damage at %ld: last_damage_us %lld", offsets[k],
                    (long long)st.last_damage_us);
    }
    rm_tree(dir);
}

/* Overwrites count bytes of the file path from byte offset with a fixed pseudo-random sequence (xorshift32
 * from seed; byte i is the low byte of its i-th number): random damage that is the same on every run.
 * 0 or -1. */
static int damage_random(const char *path, long offset, long count, uint32_t seed) {
    FILE *f = fopen(path, "r+b");
    uint32_t x = seed ? seed : 1;
    int ok = f != NULL && fseek(f, offset, SEEK_SET) == 0;
    for (long i = 0; ok && i < count; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        ok = fputc((int)(x & 0xff), f) != EOF;
    }
    if (f && fclose(f) != 0)
        ok = 0;
    return ok ? 0 : -1;
}

/* The repro: 5000 random bytes (seed 27) over the sample clip at byte 350000, inside the
 * keyframe at 40 s: that picture is decoded with errors and the 99 frames up to the next keyframe are
 * predicted from it, moves 39-49 made while they last. They were not read at all: 69/80 right (game 2
 * taking the game up at 51.4 s), 11 missed. They are read now, their moves held back until the first
 * clean view (50 s) shows where they lead: at least 78 of 80 right in game 1, none wrong, no game
 * taken up again, the moves read from them flagged "damaged" in events.jsonl. */
static void test_record_damaged_keyframe(void) {
    char model[4096], clip[4096], sample[4096], usi[4096], dir[] = "/tmp/kifucam-test-record-XXXXXX";
    char bad[4200], out[4200], err[512];
    rec_record_opts_t o;
    rec_record_stats_t st;
    int right, wrong, uncertain;
    if (clip_opts(&o, model, clip, sizeof model, dir) != 0)
        return;
    CU_ASSERT_FATAL(tests_project_path(usi, sizeof usi, "samples/sample-clip.usi") == 0);
    CU_ASSERT_EQUAL_FATAL(damaged_sample(dir, 350000, sample, bad, out), 0);
    CU_ASSERT_EQUAL_FATAL(damage_random(bad, 350000, 5000, 27), 0);
    o.source = bad;
    o.out_dir = out;
    int rc = rec_record_run(&o, &st, err, sizeof err);
    TESTS_CHECK(rc == REC_OK, "record: %d %s", rc, err);
    compare_with_truth(out, usi, &right, &wrong, &uncertain);
    TESTS_CHECK(wrong == 0 && right >= 78 && st.taken_up == 0,
                "damage at 350000: %d right, %d wrong, %d uncertain, %d taken up (want >= 78, 0, -, 0)",
                right, wrong, uncertain, st.taken_up);
    char p[4300], line[16384];
    int flagged = 0;
    snprintf(p, sizeof p, "%s/events.jsonl", out);
    FILE *f = fopen(p, "r");
    while (f && fgets(line, sizeof line, f))
        flagged += strstr(line, "\"type\":\"move\"") != NULL && strstr(line, "\"damaged\":true") != NULL;
    if (f)
        fclose(f);
    TESTS_CHECK(flagged >= 5 && count_events(out, "frames_lost", "from 40.0 s to 50.0 s") == 1,
                "%d moves flagged damaged, %d frames_lost events from 40.0 s", flagged,
                count_events(out, "frames_lost", "from 40.0 s to 50.0 s"));
    rm_tree(dir);
}

/* The sample clip damaged at byte 650000 (76 s): the frames up to the keyframe at 80 s are lost or
 * damaged, and moves 74-80 with them; the source ends 2 s later, too soon for the "no move was
 * recorded in the last 30 s" warning, and nothing was said (exit 0, 73 moves, as if the game were
 * whole). The end of the run now says that frames were lost after the last move and the record may
 * stop short; no move is written wrong. */
static void test_record_damaged_end(void) {
    char model[4096], clip[4096], sample[4096], usi[4096], dir[] = "/tmp/kifucam-test-record-XXXXXX";
    char bad[4200], out[4200], args[13000];
    static char text[65536];
    rec_record_opts_t o;
    int right, wrong, uncertain;
    if (clip_opts(&o, model, clip, sizeof model, dir) != 0)
        return;
    CU_ASSERT_FATAL(tests_project_path(usi, sizeof usi, "samples/sample-clip.usi") == 0);
    CU_ASSERT_EQUAL_FATAL(damaged_sample(dir, 650000, sample, bad, out), 0);
    snprintf(args, sizeof args, "record --source '%s' --out '%s' --model '%s'", bad, out, model);
    int rc = tests_run_kifucam(".", args, 1, text, sizeof text);
    char line[1024] = ""; /* the warning's line */
    const char *w = strstr(text, "kifucam record: warning: frames were lost or damaged after move ");
    if (w != NULL)
        snprintf(line, sizeof line, "%.*s", (int)strcspn(w, "\n"), w);
    TESTS_CHECK(rc == 0 && strstr(line, "after move 73 at ") != NULL &&
                    strstr(line, "may stop short of the game"),
                "kifucam %s: exit %d: %.3000s", args, rc, text);
    compare_with_truth(out, usi, &right, &wrong, &uncertain);
    TESTS_CHECK(wrong == 0 && right >= 70 && right < 80, "damage at 650000: %d right, %d wrong, %d uncertain",
                right, wrong, uncertain);
    rm_tree(dir);
}

/* The camera placements of the design (../shared/DESIGN.md, issue 25), one small rendered clip each
 * (tests/data/placement-*.mp4: 10 moves of a real game, 1280x720, the training style; how each was made,
 * and from which game, in tests/data/README.md): each recorded end to end, and the moves of game 1 must
 * be the clip's (placement-*.usi), none uncertain. A clip the recorder does not yet get right (short:
 * 1) must still have no wrong move (every move written is the game's at its ply), and prints
 * "placement X: N/M moves (issue 25)". Every clip is recorded right now (none short). */
static void test_record_placements(void) {
    static const struct {
        const char *name; /* tests/data/placement-NAME.mp4 and .usi */
        int short_of;     /* 1: not all moves found yet (issue 25): only no wrong move is required */
    } clips[] = {{"overhead", 0}, {"end-sente", 0}, {"end-gote", 0}, {"side-left", 0}, {"side-right", 0}};
    char model[4096], clip[4096], usi[4096], rel[256], dir[] = "/tmp/kifucam-test-record-XXXXXX";
    char out[4200], err[512], want[8192], got[8192];
    rec_record_opts_t o;
    if (clip_opts(&o, model, clip, sizeof model, dir) != 0)
        return;
    for (size_t k = 0; k < sizeof clips / sizeof clips[0]; k++) {
        rec_record_stats_t st;
        int right = 0, wrong = 0, uncertain = 0, total = 0;
        snprintf(rel, sizeof rel, "tests/data/placement-%s.mp4", clips[k].name);
        CU_ASSERT_FATAL(tests_project_path(clip, sizeof clip, rel) == 0);
        snprintf(rel, sizeof rel, "tests/data/placement-%s.usi", clips[k].name);
        CU_ASSERT_FATAL(tests_project_path(usi, sizeof usi, rel) == 0);
        CU_ASSERT_FATAL(truth_moves(usi, want, sizeof want) == 0);
        for (const char *c = want; *c; c++)
            total += *c == ' ';
        total += want[0] != '\0';
        snprintf(out, sizeof out, "%s/%s", dir, clips[k].name);
        o.source = clip;
        o.out_dir = out;
        int rc = rec_record_run(&o, &st, err, sizeof err);
        if (!clips[k].short_of) {
            TESTS_CHECK(rc == REC_OK, "placement %s: record: %d %s", clips[k].name, rc, err);
            CU_ASSERT(found_moves(out, got, sizeof got, &uncertain) == 0);
            TESTS_CHECK(strcmp(got, want) == 0 && uncertain == 0 && st.games == 1,
                        "placement %s: moves found '%s', game '%s' (%d uncertain, %d games)", clips[k].name,
                        got, want, uncertain, st.games);
            continue;
        }
        TESTS_CHECK(rc == REC_OK || rc == REC_ENOBOARD, "placement %s: record: %d %s", clips[k].name, rc,
                    err);
        if (rc == REC_OK)
            compare_with_truth(out, usi, &right, &wrong, &uncertain);
        TESTS_CHECK(wrong == 0, "placement %s: %d wrong moves (%d right)", clips[k].name, wrong, right);
        printf("\n    placement %s: %d/%d moves (issue 25)%s%s\n", clips[k].name, right, total,
               rc == REC_OK ? "" : ": ", rc == REC_OK ? "" : err);
    }
    rm_tree(dir);
}

/* tests/data/handicap-side-left45.mp4 (tests/data/README.md): the right 7-piece handicap seen 45
 * degrees from the left side, a third of the frame, warm light, a piece set the network never saw
 * (lishogi kanji_red_wood). The network reads these pieces so badly that which way they point chose
 * the wrong axis: the start's ranks lay along files, no start matched and no game began. The setup's
 * occupancy turns the grid by a quarter; all 10 moves must then be the game's. */
static void test_record_handicap_turned(void) {
    char model[4096], clip[4096], usi[4096], dir[] = "/tmp/kifucam-test-record-XXXXXX", out[4200], err[512];
    char want[8192], got[8192], p[4300];
    static char text[65536];
    rec_record_opts_t o;
    rec_record_stats_t st;
    rul_pos_t start;
    int uncertain = 0;
    if (clip_opts(&o, model, clip, sizeof model, dir) != 0)
        return;
    CU_ASSERT_FATAL(tests_project_path(clip, sizeof clip, "tests/data/handicap-side-left45.mp4") == 0);
    CU_ASSERT_FATAL(tests_project_path(usi, sizeof usi, "tests/data/handicap-side-left45.usi") == 0);
    CU_ASSERT_FATAL(truth_moves(usi, want, sizeof want) == 0);
    CU_ASSERT_EQUAL_FATAL(rul_pos_set_handicap(&start, RUL_HC_RIGHT_7), RUL_OK);
    snprintf(out, sizeof out, "%s/rec", dir);
    o.source = clip;
    o.out_dir = out;
    o.start = &start;
    int rc = rec_record_run(&o, &st, err, sizeof err);
    TESTS_CHECK(rc == REC_OK, "record: %d %s", rc, err);
    CU_ASSERT(found_moves(out, got, sizeof got, &uncertain) == 0);
    TESTS_CHECK(strcmp(got, want) == 0 && uncertain == 0 && st.games == 1,
                "moves found '%s', game '%s' (%d uncertain, %d games)", got, want, uncertain, st.games);
    snprintf(p, sizeof p, "%s/source.jsonl", out);
    FILE *f = fopen(p, "r");
    size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
    text[n] = '\0';
    if (f)
        fclose(f);
    TESTS_CHECK(strstr(text, "grid turned by a quarter") != NULL, "source.jsonl: %.2000s", text);
    rm_tree(dir);
}

static void test_record_damaged_clip(void) {
    char model[4096], clip[4096], dir[] = "/tmp/kifucam-test-record-XXXXXX", bad[4200], out[4200], p[4300];
    char args[13000], line[4096];
    static char text[65536];
    rec_record_opts_t o;
    if (clip_opts(&o, model, clip, sizeof model, dir) != 0)
        return;
    snprintf(bad, sizeof bad, "%s/damaged.mp4", dir);
    snprintf(out, sizeof out, "%s/out", dir);
    CU_ASSERT_EQUAL_FATAL(tests_damage_copy(clip, bad, 60000, 3000), 0);
    snprintf(args, sizeof args, "record --source '%s' --out '%s' --model '%s'", bad, out, model);
    int rc = tests_run_kifucam(".", args, 1, text, sizeof text);
    TESTS_CHECK(rc == 0, "kifucam %s: exit %d: %s", args, rc, text);
    int warned = 0; /* lines "kifucam record: warning: ... could not be decoded ..." */
    for (char *t = strtok(text, "\n"); t != NULL; t = strtok(NULL, "\n"))
        warned +=
            strncmp(t, "kifucam record: warning: ", 25) == 0 && strstr(t, "could not be decoded") != NULL;
    TESTS_CHECK(warned == 1, "%d stderr warnings of frames that could not be decoded (want 1)", warned);
    snprintf(p, sizeof p, "%s/source.jsonl", out);
    FILE *f = fopen(p, "r");
    unsigned long long corrupt = 0;
    int corrupt_lines = 0, damaged_lines = 0, placed = 1;
    while (f && fgets(line, sizeof line, f)) {
        json_t *j = json_loads(line, 0, NULL);
        const char *type = json_string_value(json_object_get(j, "type"));
        const char *detail = json_string_value(json_object_get(j, "detail"));
        long long ts = json_integer_value(json_object_get(j, "ts_us"));
        if (type && detail && !strcmp(type, "corrupt_frames")) {
            corrupt_lines++;
            corrupt += strtoull(detail, NULL, 10);
            const char *at = strstr(detail, "the last at ");
            double last = at ? atof(at + 12) : -1;
            placed &= ts > 0 && ts < 14000000 && last > 0 && last < 14.0;
        }
        damaged_lines += type && !strcmp(type, "frames_damaged");
        json_decref(j);
    }
    if (f)
        fclose(f);
    TESTS_CHECK(corrupt_lines > 0 && corrupt > 0, "source.jsonl: %d corrupt_frames lines, %llu frames",
                corrupt_lines, corrupt);
    TESTS_CHECK(placed, "a corrupt_frames line without its place in the 14 s clip");
    TESTS_CHECK(damaged_lines >= 1, "source.jsonl: %d frames_damaged lines", damaged_lines);
    rm_tree(dir);
}

/* A control client: connects to path as soon as it exists (10 s at most), sends "bogus" and "abort",
 * and keeps the answers. */
typedef struct {
    char path[4200];
    char answers[1024];
    int hang_up; /* 1: close right after sending, reading no answer */
} ctl_client_t;

static void *control_client(void *arg) {
    ctl_client_t *c = arg;
    struct sockaddr_un a;
    memset(&a, 0, sizeof a);
    a.sun_family = AF_UNIX;
    if (strlen(c->path) >= sizeof a.sun_path)
        return NULL;
    memcpy(a.sun_path, c->path, strlen(c->path) + 1);
    for (int tries = 0; tries < 1000; tries++) {
        int fd = socket(AF_UNIX, SOCK_STREAM, 0);
        if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof a) == 0) {
            size_t n = 0;
            ssize_t r;
            if (write(fd, "bogus\nabort\n", 12) == 12 && !c->hang_up)
                while (n < sizeof c->answers - 1 &&
                       (r = read(fd, c->answers + n, sizeof c->answers - 1 - n)) > 0)
                    n += (size_t)r;
            c->answers[n] = '\0';
            close(fd);
            return NULL;
        }
        if (fd >= 0)
            close(fd);
        struct timespec d = {0, 10 * 1000 * 1000};
        nanosleep(&d, NULL);
    }
    return NULL;
}

static void test_record_control_socket(void) {
    char model[4096], clip[4096], dir[] = "/tmp/kifucam-test-ctl-XXXXXX", err[512], file[4200];
    rec_record_opts_t o;
    rec_record_stats_t st;
    static ctl_client_t c;
    pthread_t th;
    struct stat sb;
    if (clip_opts(&o, model, clip, sizeof model, dir) != 0)
        return;
    snprintf(c.path, sizeof c.path, "%s/ctl.sock", dir);
    c.answers[0] = '\0';
    o.control_path = c.path;
    CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, control_client, &c), 0);
    TESTS_CHECK(rec_record_run(&o, &st, err, sizeof err) == REC_OK, "%s", err);
    pthread_join(th, NULL);
    CU_ASSERT_EQUAL(st.aborted, 1);
    TESTS_CHECK(strncmp(c.answers, "refused: bogus: ", 16) == 0 && strstr(c.answers, "\nok: abort\n") != NULL,
                "answers: '%s'", c.answers);
    CU_ASSERT_NOT_EQUAL(stat(c.path, &sb), 0); /* removed at the end */
    /* a client that sends and hangs up at once: its answers go nowhere, and the recording is not
     * killed by SIGPIPE (it was: exit 141, no summary, the socket left behind) */
    c.hang_up = 1;
    c.answers[0] = '\0';
    CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, control_client, &c), 0);
    TESTS_CHECK(rec_record_run(&o, &st, err, sizeof err) == REC_OK, "%s", err);
    pthread_join(th, NULL);
    CU_ASSERT_EQUAL(st.aborted, 1);
    CU_ASSERT_NOT_EQUAL(stat(c.path, &sb), 0);
    c.hang_up = 0;
    /* a path that is a plain file is not replaced: one error */
    snprintf(file, sizeof file, "%s/plain", dir);
    FILE *f = fopen(file, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fclose(f);
    o.control_path = file;
    CU_ASSERT_EQUAL(rec_record_run(&o, &st, err, sizeof err), REC_EIO);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "not a socket"));
    CU_ASSERT_EQUAL(stat(file, &sb), 0);
    rm_tree(dir);
}

int tests_register_record(void) {
    CU_pSuite s = CU_add_suite("record", NULL, NULL);
    if (s == NULL || CU_add_test(s, "a rendered game clip recorded end to end", test_record_clip) == NULL ||
        CU_add_test(s, "a handicap from the side, pieces read badly: the grid turned by a quarter",
                    test_record_handicap_turned) == NULL ||
        CU_add_test(s, "a clip of each camera placement recorded end to end", test_record_placements) ==
            NULL ||
        CU_add_test(s, "missing source, no board, missing model", test_record_bad_input) == NULL ||
        CU_add_test(s, "the last progress line on a terminal drawn once", test_record_progress_once) ==
            NULL ||
        CU_add_test(s, "a full disk: moves counted as logged, resume writes the missing frames",
                    test_record_full_disk) == NULL ||
        CU_add_test(s, "resume at a position the same from both ends", test_record_resume_symmetric) ==
            NULL ||
        CU_add_test(s, "a gap in a video file's timestamps is said", test_record_timestamp_gap) == NULL ||
        CU_add_test(s, "a damaged video's lost frames are logged", test_record_damaged_clip) == NULL ||
        CU_add_test(s, "a game lost track of is said at the end", test_record_lost_track) == NULL ||
        CU_add_test(s, "frames predicted from lost ones write no wrong move", test_record_predicted_frames) ==
            NULL ||
        CU_add_test(s, "a damaged keyframe: the frames predicted from it read with care",
                    test_record_damaged_keyframe) == NULL ||
        CU_add_test(s, "frames lost after the last move are said at the end", test_record_damaged_end) ==
            NULL ||
        CU_add_test(s, "resume learns the piece set again", test_record_resume_learns_set) == NULL ||
        CU_add_test(s, "abort command, stop flag, frame limit and resume", test_record_abort_and_stop) ==
            NULL ||
        CU_add_test(s, "commands on a control socket", test_record_control_socket) == NULL)
        return -1;
    return 0;
}
