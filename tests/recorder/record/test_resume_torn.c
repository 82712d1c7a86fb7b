/* test_resume_torn.c - `kifucam record --resume` after a power cut in the middle of an events.jsonl line.
 * tests/data/record-clip.mp4 (12 moves, record-clip.usi) is recorded once; its log's last line (move 12)
 * is then cut at every byte, from nothing of it to all of it but its newline, and the folder resumed:
 * never an error, never a wrong move. A cut line must be dropped (the file cut back to the line before,
 * so that the next event starts a line of its own), a line whole but for its newline kept and ended.
 * Every cut inside the line leaves the same folder (that is checked at each byte), so the recording is
 * resumed end to end on the clip at three of them (none of the line, half of it, all but the newline):
 * move 12 must be read again from the video, the game whole and right, nothing uncertain. Skipped (with
 * a line) when models/squares.onnx is absent. */
#include <CUnit/CUnit.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "recorder/output/output.h"
#include "recorder/record/record.h"
#include "tests/tests.h"

static void rm_tree(const char *dir) {
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
}

/* A whole file into a new malloc'd, NUL-terminated buffer (*len bytes); NULL if unreadable. */
static char *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    size_t cap = 1 << 16, n = 0, got;
    char *buf = malloc(cap + 1);
    while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            char *b = realloc(buf, 2 * cap + 1);
            if (b == NULL) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = b;
            cap *= 2;
        }
    }
    fclose(f);
    if (buf) {
        buf[n] = '\0';
        *len = n;
    }
    return buf;
}

static void put(const char *dir, const char *name, const char *data, size_t len) {
    char p[4200];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "wb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT(fwrite(data, 1, len, f) == len);
    CU_ASSERT(fclose(f) == 0);
}

/* The moves of game 1 in events.jsonl text, space-separated, into out; *uncertain counts uncertain
 * events. */
static void log_moves(const char *text, char *out, size_t size, int *uncertain) {
    size_t len = 0;
    out[0] = '\0';
    *uncertain = 0;
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        json_t *o = json_loadb(p, n, 0, NULL);
        const char *type = json_string_value(json_object_get(o, "type"));
        const char *mv = json_string_value(json_object_get(o, "move"));
        if (type && !strcmp(type, "uncertain"))
            (*uncertain)++;
        if (type && mv && json_integer_value(json_object_get(o, "game")) == 1 &&
            (!strcmp(type, "move") || !strcmp(type, "illegal_move")) && len + 8 < size)
            len += (size_t)snprintf(out + len, size - len, "%s%s", len ? " " : "", mv);
        json_decref(o);
        p += n + (nl != NULL);
    }
}

/* The tracker's moves of game 1, space-separated, into out. */
static void tracker_moves(const rec_trk_t *t, char *out, size_t size) {
    size_t len = 0;
    out[0] = '\0';
    for (int i = 0; i < rec_trk_nevents(t); i++) {
        const rec_trk_event_t *e = rec_trk_event(t, i);
        if (e->game == 1 && (e->type == REC_TEV_MOVE || e->type == REC_TEV_ILLEGAL) && len + 8 < size)
            len += (size_t)snprintf(out + len, size - len, "%s%s", len ? " " : "", e->usi);
    }
}

/* The moves of tests/data/record-clip.usi, space-separated, into want. */
static void clip_truth(char *want, size_t size) {
    char path[4096], *text, *m;
    size_t n;
    CU_ASSERT_FATAL(tests_project_path(path, sizeof path, "tests/data/record-clip.usi") == 0);
    text = slurp(path, &n);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    m = strstr(text, " moves ");
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    snprintf(want, size, "%s", m + 7);
    n = strlen(want);
    while (n && (want[n - 1] == '\n' || want[n - 1] == ' '))
        want[--n] = '\0';
    free(text);
}

/* 1 if b (space-separated moves) begins with all of a's. */
static int is_prefix(const char *a, const char *b) {
    size_t n = strlen(a);
    return strncmp(a, b, n) == 0 && (b[n] == '\0' || b[n] == ' ' || n == 0);
}

/* Resumes dir (events.jsonl: head, then cut bytes of last) in-process and checks what it read and
 * left: the events before the line, the line's event too when only its newline was cut, and a prefix
 * of the true game. */
static void resume_cut(const char *dir, const char *head, size_t head_len, const char *last, size_t last_len,
                       size_t cut, int head_events, const char *want) {
    char path[4200], err[512], got[8192];
    size_t n;
    char *buf = malloc(head_len + cut + 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
    memcpy(buf, head, head_len);
    memcpy(buf + head_len, last, cut);
    put(dir, "events.jsonl", buf, head_len + cut);
    free(buf);
    rec_trk_t *t = NULL;
    rec_out_t *o = NULL;
    int rc = rec_out_resume(dir, NULL, NULL, &t, &o, err, sizeof err);
    TESTS_CHECK(rc == REC_OK, "cut at byte %zu of %zu: resume: %s", cut, last_len, err);
    if (rc != REC_OK)
        return;
    int whole = cut + 1 >= last_len; /* all of the line, or all but its newline */
    TESTS_CHECK(rec_trk_nevents(t) == head_events + whole, "cut at byte %zu: %d events, want %d", cut,
                rec_trk_nevents(t), head_events + whole);
    tracker_moves(t, got, sizeof got);
    TESTS_CHECK(is_prefix(got, want), "cut at byte %zu: moves '%s' are not the game's '%s'", cut, got, want);
    rec_out_close(o);
    rec_trk_destroy(t);
    /* the log as the resume left it: the line before, or the whole line with its newline */
    snprintf(path, sizeof path, "%s/events.jsonl", dir);
    char *after = slurp(path, &n);
    CU_ASSERT_PTR_NOT_NULL_FATAL(after);
    size_t want_len = head_len + (whole ? last_len : 0);
    TESTS_CHECK(n == want_len && memcmp(after, head, head_len) == 0 &&
                    (!whole || memcmp(after + head_len, last, last_len) == 0),
                "cut at byte %zu: the log left is %zu bytes, want %zu", cut, n, want_len);
    free(after);
}

/* Resumes the recording of clip in dir (its log: head, then cut bytes of last) end to end. */
static void resume_run(const char *model, const char *clip, const char *head, size_t head_len,
                       const char *last, size_t last_len, size_t cut, const char *want) {
    char dir[] = "/tmp/kifucam-test-torn-XXXXXX", err[512], got[8192];
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    char *buf = malloc(head_len + cut + 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
    memcpy(buf, head, head_len);
    memcpy(buf + head_len, last, cut);
    put(dir, "events.jsonl", buf, head_len + cut);
    free(buf);
    rec_record_opts_t o;
    rec_record_stats_t st;
    rec_record_opts_default(&o);
    o.source = clip;
    o.out_dir = dir;
    o.model = model;
    o.resume = 1;
    int rc = rec_record_run(&o, &st, err, sizeof err);
    TESTS_CHECK(rc == REC_OK, "cut at byte %zu of %zu: record --resume: %s", cut, last_len, err);
    char path[4200];
    size_t n;
    snprintf(path, sizeof path, "%s/events.jsonl", dir);
    char *text = slurp(path, &n);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    int unc;
    log_moves(text, got, sizeof got, &unc);
    free(text);
    TESTS_CHECK(strcmp(got, want) == 0 && unc == 0,
                "cut at byte %zu of %zu: moves after --resume '%s', the game's '%s' (%d uncertain)", cut,
                last_len, got, want, unc);
    rm_tree(dir);
}

static void test_resume_torn_every_byte(void) {
    char model[4096], clip[4096], want[8192], got[8192], err[512], path[4200];
    char dir[] = "/tmp/kifucam-test-torn-XXXXXX", cuts[64];
    const char *env = getenv("KIFUCAM_MODEL");
    struct stat sb;
    if (env && env[0])
        snprintf(model, sizeof model, "%s", env);
    else if (tests_project_path(model, sizeof model, "models/squares.onnx") != 0 || stat(model, &sb) != 0) {
        printf("\n    skipped: models/squares.onnx not found (torn events.jsonl)\n");
        return;
    }
    CU_ASSERT_FATAL(tests_project_path(clip, sizeof clip, "tests/data/record-clip.mp4") == 0);
    clip_truth(want, sizeof want);
    /* the recording whose last line the power cut tears */
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    rec_record_opts_t o;
    rec_record_stats_t st;
    rec_record_opts_default(&o);
    o.source = clip;
    o.out_dir = dir;
    o.model = model;
    TESTS_CHECK(rec_record_run(&o, &st, err, sizeof err) == REC_OK, "record: %s", err);
    snprintf(path, sizeof path, "%s/events.jsonl", dir);
    size_t len;
    char *log = slurp(path, &len);
    rm_tree(dir);
    CU_ASSERT_PTR_NOT_NULL_FATAL(log);
    int unc;
    log_moves(log, got, sizeof got, &unc);
    TESTS_CHECK(strcmp(got, want) == 0 && unc == 0, "recorded '%s', want '%s'", got, want);
    /* the last line: a move's (the clip ends in the middle of the game) */
    CU_ASSERT_FATAL(len > 1 && log[len - 1] == '\n');
    size_t start = len - 1;
    while (start > 0 && log[start - 1] != '\n')
        start--;
    int head_events = 0;
    for (size_t i = 0; i < start; i++)
        head_events += log[i] == '\n';
    const char *last = log + start;
    size_t last_len = len - start;
    CU_ASSERT_FATAL(strstr(last, "\"type\":\"move\"") != NULL && last_len > 100);
    /* every byte, in-process, in memory when /dev/shm is there (each resume fsyncs the kifu files) */
    snprintf(cuts, sizeof cuts, "%s/kifucam-test-torn-XXXXXX",
             access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(cuts));
    for (size_t cut = 0; cut <= last_len; cut++)
        resume_cut(cuts, log, start, last, last_len, cut, head_events, want);
    rm_tree(cuts);
    /* end to end at one cut of each kind: move 12 read again from the video, or kept */
    resume_run(model, clip, log, start, last, last_len, 0, want);
    resume_run(model, clip, log, start, last, last_len, last_len / 2, want);
    resume_run(model, clip, log, start, last, last_len, last_len - 1, want);
    free(log);
}

int tests_register_resume_torn(void) {
    CU_pSuite s = CU_add_suite("resume_torn", NULL, NULL);
    if (s == NULL || CU_add_test(s, "events.jsonl torn at every byte of its last line, then --resume",
                                 test_resume_torn_every_byte) == NULL)
        return -1;
    return 0;
}
