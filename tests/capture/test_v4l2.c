/* test_v4l2.c - tests of capture/v4l2.c against the fake camera of tests/v4l2shim: build/cap-grab is
 * run with build/libv4l2shim.so preloaded (a child process, so the interposer never touches this
 * runner, and so it works under ASan too) and its per-read lines are checked: MJPEG and YUYV frames,
 * EAGAIN, EINTR, timeouts, corrupt/empty/error/truncated frames, bad first frames, sequence gaps,
 * ENODEV mid-stream and the camera's return, a device that is not a camera, a missing device. */
#define _GNU_SOURCE
#include <CUnit/CUnit.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture/capture.h"
#include "tests/tests.h"

#define MAXF 64

/* What one cap-grab run printed. */
typedef struct grab {
    int status;            /* exit status */
    char open_line[1024];  /* "open ..." */
    char first_line[1024]; /* first line of output (the error for a failed open) */
    int nframes;           /* frame lines */
    struct {
        unsigned long long seq;
        long long ts, blind;
        int w, h, dropped, flags, b, g, r;
    } f[MAXF];
    int again, nodev, eof, error; /* other per-read lines */
    unsigned long long delivered, dropped, corrupt, warnings, reconnects;
    long long blind;
} grab_t;

/* The folder of the running test binary (build/ or build-san/), where cap-grab and the shim are. */
static int bin_dir(char *buf, size_t len) {
    ssize_t n = readlink("/proc/self/exe", buf, len - 1);
    char *slash;
    if (n <= 0)
        return -1;
    buf[n] = 0;
    slash = strrchr(buf, '/');
    if (!slash)
        return -1;
    *slash = 0;
    return 0;
}

/* Runs cap-grab with env (extra VAR=value words), args, uri; fills *g. Returns 0 if it could run. */
static int run_grab(const char *env, const char *args, const char *uri, grab_t *g) {
    char dir[1024], cmd[8192], line[1024];
    const char *asan = getenv("ASAN_OPTIONS");
    FILE *p;
    int st;

    memset(g, 0, sizeof *g);
    if (bin_dir(dir, sizeof dir) != 0)
        return -1;
    /* The shim is preloaded ahead of the ASan runtime of a sanitizer build: tell ASan that is fine. */
    snprintf(cmd, sizeof cmd,
             "ASAN_OPTIONS='%s%sverify_asan_link_order=0' LD_PRELOAD='%s/libv4l2shim.so' %s "
             "'%s/cap-grab' %s '%s' 2>&1",
             asan ? asan : "", asan && *asan ? ":" : "", dir, env, dir, args, uri);
    p = popen(cmd, "r");
    if (!p)
        return -1;
    while (fgets(line, sizeof line, p)) {
        if (!g->first_line[0])
            snprintf(g->first_line, sizeof g->first_line, "%s", line);
        if (strncmp(line, "open ", 5) == 0) {
            snprintf(g->open_line, sizeof g->open_line, "%s", line);
        } else if (strncmp(line, "frame ", 6) == 0 && g->nframes < MAXF) {
            int k = g->nframes++;
            if (sscanf(line,
                       "frame seq=%llu ts=%lld w=%d h=%d stride=%*d dropped=%d flags=%d "
                       "blind=%lld bgr=%d,%d,%d",
                       &g->f[k].seq, &g->f[k].ts, &g->f[k].w, &g->f[k].h, &g->f[k].dropped, &g->f[k].flags,
                       &g->f[k].blind, &g->f[k].b, &g->f[k].g, &g->f[k].r) != 10)
                g->error++;
        } else if (strncmp(line, "again", 5) == 0) {
            g->again++;
        } else if (strncmp(line, "nodev", 5) == 0) {
            g->nodev++;
        } else if (strncmp(line, "eof", 3) == 0) {
            g->eof++;
        } else if (strncmp(line, "error", 5) == 0) {
            g->error++;
        } else if (strncmp(line, "stats ", 6) == 0) {
            sscanf(line,
                   "stats delivered=%llu dropped=%llu corrupt=%llu warnings=%llu reconnects=%llu "
                   "blind=%lld",
                   &g->delivered, &g->dropped, &g->corrupt, &g->warnings, &g->reconnects, &g->blind);
        }
    }
    st = pclose(p);
    g->status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    return 0;
}

#define DEV "v4l2:/dev/kifucam-shim0"

/* Every frame's grey level must be the one the shim wrote for its sequence number. */
static int levels_match(const grab_t *g, int tol) {
    int i;
    for (i = 0; i < g->nframes; i++) {
        int want = 20 + 10 * (int)(g->f[i].seq % 20);
        if (g->f[i].flags & 1)
            continue; /* damaged frames are allowed to differ */
        if (abs(g->f[i].g - want) > tol || abs(g->f[i].b - want) > tol || abs(g->f[i].r - want) > tol)
            return 0;
    }
    return 1;
}

static void test_mjpeg_stream(void) {
    grab_t g;
    int i, mono = 1;
    CU_ASSERT_EQUAL_FATAL(
        run_grab("KIFUCAM_SHIM_SCRIPT=ok,ok,ok,ok,ok,ok", "--frames 5 --reads 20 --timeout-ms 50", DEV, &g),
        0);
    CU_ASSERT_EQUAL(g.status, 0);
    TESTS_CHECK(strstr(g.open_line, "MJPG 64x48 @ 30.000 fps") != NULL, "open line: %s", g.first_line);
    /* the first frame of a stream is skipped (skip_first 1) */
    TESTS_CHECK(g.nframes == 5 && g.f[0].seq == 1 && g.f[4].seq == 5, "%d frames, first seq %llu", g.nframes,
                g.f[0].seq);
    for (i = 1; i < g.nframes; i++)
        if (g.f[i].ts <= g.f[i - 1].ts)
            mono = 0;
    CU_ASSERT(mono);
    CU_ASSERT(g.nframes > 0 && g.f[0].w == 64 && g.f[0].h == 48 && g.f[0].ts > 0);
    CU_ASSERT(levels_match(&g, 3));
    CU_ASSERT(g.delivered == 5 && g.corrupt == 0 && g.dropped == 0);
}

static void test_yuyv_and_size(void) {
    grab_t g;
    CU_ASSERT_EQUAL_FATAL(run_grab("KIFUCAM_SHIM_SCRIPT=ok,ok,ok,ok", "--frames 3 --timeout-ms 50",
                                   DEV "?format=yuyv&width=160&height=120&fps=15", &g),
                          0);
    CU_ASSERT_EQUAL(g.status, 0);
    TESTS_CHECK(strstr(g.open_line, "YUYV 160x120 @ 15.000 fps") != NULL, "open line: %s", g.first_line);
    TESTS_CHECK(g.nframes == 3 && g.f[0].w == 160 && g.f[0].h == 120, "%d frames", g.nframes);
    CU_ASSERT(levels_match(&g, 3));
    /* the cheap path at half scale, in YUYV and in MJPEG */
    CU_ASSERT_EQUAL_FATAL(run_grab("KIFUCAM_SHIM_SCRIPT=ok,ok,ok", "--frames 2 --timeout-ms 50",
                                   DEV "?format=yuyv&width=160&scale=2", &g),
                          0);
    TESTS_CHECK(g.nframes == 2 && g.f[0].w == 80 && g.f[0].h == 60 && levels_match(&g, 3), "yuyv half: %s",
                g.first_line);
    CU_ASSERT_EQUAL_FATAL(
        run_grab("KIFUCAM_SHIM_SCRIPT=ok,ok,ok", "--frames 2 --timeout-ms 50", DEV "?width=160&scale=4", &g),
        0);
    TESTS_CHECK(g.nframes == 2 && g.f[0].w == 40 && g.f[0].h == 30 && levels_match(&g, 3),
                "mjpeg quarter: %s", g.first_line);
    /* a camera that has only YUYV is used in YUYV when nothing was asked */
    CU_ASSERT_EQUAL_FATAL(run_grab("KIFUCAM_SHIM_FORMATS=yuyv KIFUCAM_SHIM_SCRIPT=ok,ok",
                                   "--frames 1 --timeout-ms 50", DEV, &g),
                          0);
    TESTS_CHECK(strstr(g.open_line, "YUYV 64x48") != NULL, "open line: %s", g.first_line);
    /* asking for MJPEG from it is a clear error */
    CU_ASSERT_EQUAL_FATAL(run_grab("KIFUCAM_SHIM_FORMATS=yuyv", "--frames 1", DEV "?format=mjpeg", &g), 0);
    TESTS_CHECK(g.status == 1 && strstr(g.first_line, "no MJPEG format"), "got: %s", g.first_line);
}

static void test_eagain_eintr_timeout(void) {
    grab_t g;
    CU_ASSERT_EQUAL_FATAL(run_grab("KIFUCAM_SHIM_SCRIPT=ok,ok,eagain,eintr,ok,timeout,ok,eagain,eagain,ok",
                                   "--frames 4 --reads 20 --timeout-ms 50", DEV, &g),
                          0);
    CU_ASSERT_EQUAL(g.status, 0);
    TESTS_CHECK(g.nframes == 4 && g.error == 0, "%d frames, %d errors", g.nframes, g.error);
    TESTS_CHECK(g.again >= 1, "a poll timeout gives CAP_AGAIN (%d)", g.again);
    CU_ASSERT(g.corrupt == 0 && levels_match(&g, 3));
    /* EAGAIN from DQBUF does not cost a frame number */
    CU_ASSERT(g.nframes == 4 && g.f[0].seq == 1 && g.f[3].seq == 4);
}

static void test_corrupt_frames(void) {
    grab_t g;
    CU_ASSERT_EQUAL_FATAL(run_grab("KIFUCAM_SHIM_SCRIPT=ok,ok,bad,ok,empty,err,ok,trunc,ok,nohuff,ok",
                                   "--frames 20 --reads 20 --timeout-ms 50", DEV, &g),
                          0);
    CU_ASSERT_EQUAL(g.status, 0);
    /* bad, empty, err skipped and counted; trunc delivered with a warning; nohuff decoded */
    TESTS_CHECK(g.corrupt == 3 && g.warnings == 1 && g.delivered == 7 && g.error == 0,
                "corrupt %llu warnings %llu delivered %llu", g.corrupt, g.warnings, g.delivered);
    CU_ASSERT(levels_match(&g, 3));
    {
        int i, warned = 0;
        for (i = 0; i < g.nframes; i++)
            if (g.f[i].flags & 1)
                warned = (int)g.f[i].seq;
        CU_ASSERT_EQUAL(warned, 7);
    }
    /* the same in YUYV: short frames are corrupt */
    CU_ASSERT_EQUAL_FATAL(run_grab("KIFUCAM_SHIM_SCRIPT=ok,ok,bad,ok,empty,ok",
                                   "--frames 20 --reads 10 --timeout-ms 50", DEV "?format=yuyv", &g),
                          0);
    TESTS_CHECK(g.corrupt == 2 && g.delivered == 3, "yuyv: corrupt %llu delivered %llu", g.corrupt,
                g.delivered);
}

static void test_first_frames_bad(void) {
    grab_t g;
    CU_ASSERT_EQUAL_FATAL(run_grab("KIFUCAM_SHIM_SCRIPT=bad,empty,bad,ok,ok",
                                   "--skip-first 0 --frames 5 --reads 10 --timeout-ms 50", DEV, &g),
                          0);
    TESTS_CHECK(g.nframes == 2 && g.f[0].seq == 3 && g.corrupt == 3, "%d frames, first %llu, corrupt %llu",
                g.nframes, g.nframes ? g.f[0].seq : 0ULL, g.corrupt);
    /* with the default skip of one frame the first good one is skipped instead */
    CU_ASSERT_EQUAL_FATAL(
        run_grab("KIFUCAM_SHIM_SCRIPT=ok,ok,ok", "--frames 5 --reads 10 --timeout-ms 50", DEV, &g), 0);
    CU_ASSERT(g.nframes == 2 && g.f[0].seq == 1 && g.corrupt == 0);
}

static void test_dropped_frames(void) {
    grab_t g;
    CU_ASSERT_EQUAL_FATAL(run_grab("KIFUCAM_SHIM_SCRIPT=ok,ok,drop:3,ok,drop:1,ok",
                                   "--frames 10 --reads 10 --timeout-ms 50", DEV, &g),
                          0);
    /* drop:N skips N sequence numbers and then delivers a frame: 1, 5, 6, 8, 9 */
    TESTS_CHECK(g.nframes == 5 && g.dropped == 4, "%d frames, %llu dropped", g.nframes, g.dropped);
    if (g.nframes == 5) {
        CU_ASSERT(g.f[1].seq == 5 && g.f[1].dropped == 3 && (g.f[1].flags & 4));
        CU_ASSERT(g.f[2].dropped == 0 && g.f[2].flags == 0);
        CU_ASSERT(g.f[3].seq == 8 && g.f[3].dropped == 1);
    }
    CU_ASSERT(levels_match(&g, 3));
}

static void test_enodev_and_return(void) {
    grab_t g;
    int i, resumed = -1;
    CU_ASSERT_EQUAL_FATAL(run_grab("KIFUCAM_SHIM_SCRIPT=ok,ok,ok,gone:3,ok,ok,ok",
                                   "--frames 10 --reads 40 --timeout-ms 50 --reopen-ms 10", DEV, &g),
                          0);
    CU_ASSERT_EQUAL(g.status, 0);
    TESTS_CHECK(g.nodev == 1 && g.reconnects == 1, "nodev lines %d, reconnects %llu", g.nodev, g.reconnects);
    for (i = 0; i < g.nframes; i++)
        if (g.f[i].flags & 2)
            resumed = i;
    TESTS_CHECK(resumed == 2, "resumed frame index %d", resumed);
    if (resumed == 2) {
        /* three failed reopens at 10, 20, 40 ms: blind for at least 70 ms */
        TESTS_CHECK(g.f[2].blind >= 70000 && g.f[2].blind < 5000000, "blind %lld us", g.f[2].blind);
        CU_ASSERT(g.f[2].seq == 1); /* new stream: its first frame was skipped, no drops counted */
        CU_ASSERT(g.f[2].dropped == 0);
        CU_ASSERT(g.blind == g.f[2].blind);
    }
    CU_ASSERT(g.nframes == 4 && levels_match(&g, 3));
}

static void test_not_a_camera_and_missing(void) {
    grab_t g;
    CU_ASSERT_EQUAL_FATAL(run_grab("KIFUCAM_SHIM_NOTCAM=1", "", DEV, &g), 0);
    TESTS_CHECK(g.status == 1 && strstr(g.first_line, "is not a video capture device"), "got %d: %s",
                g.status, g.first_line);
    CU_ASSERT_EQUAL_FATAL(run_grab("", "", "v4l2:/dev/kifucam-no-such-camera", &g), 0);
    TESTS_CHECK(g.status == 1 && strstr(g.first_line, "No such file or directory"), "got %d: %s", g.status,
                g.first_line);
    /* the listing for probe */
    CU_ASSERT_EQUAL_FATAL(run_grab("", "--list", DEV, &g), 0);
    TESTS_CHECK(g.status == 0 && strstr(g.first_line, "kifucam fake camera"), "list: %s", g.first_line);
}

/* `kifucam probe` on the fake camera: the listing, then the measured rate (one line each). */
static void test_probe_command(void) {
    char dir[1024], cmd[4096], out[8192];
    const char *asan = getenv("ASAN_OPTIONS");
    size_t n;
    FILE *p;
    int st;
    CU_ASSERT_EQUAL_FATAL(bin_dir(dir, sizeof dir), 0);
    snprintf(cmd, sizeof cmd,
             "ASAN_OPTIONS='%s%sverify_asan_link_order=0' LD_PRELOAD='%s/libv4l2shim.so' "
             "KIFUCAM_SHIM_SCRIPT=ok,ok,ok,ok,ok,drop:2,ok,bad,ok '%s/kifucam' probe %s --seconds 0.3 2>&1",
             asan ? asan : "", asan && *asan ? ":" : "", dir, dir, DEV);
    p = popen(cmd, "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    n = fread(out, 1, sizeof out - 1, p);
    out[n] = 0;
    st = pclose(p);
    CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    TESTS_CHECK(strstr(out, "kifucam fake camera") && strstr(out, "160x120: 30.000 15.000 fps") &&
                    strstr(out, "measured: 7 frames 64x48") && strstr(out, "dropped 2, corrupt 1"),
                "probe printed:\n%s", out);
    snprintf(cmd, sizeof cmd, "'%s/kifucam' probe /dev/kifucam-no-such-camera 2>&1", dir);
    p = popen(cmd, "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    n = fread(out, 1, sizeof out - 1, p);
    out[n] = 0;
    st = pclose(p);
    TESTS_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 1 && strchr(out, '\n') == out + n - 1 &&
                    strstr(out, "No such file or directory"),
                "missing camera: '%s'", out);
}

/* YUYV to BGR (BT.601 limited range): white, black, the primaries, and an odd width. */
static void test_yuyv_colours(void) {
    /* Y U Y V for: white, black, red (81,90,240), green (145,54,34), blue (41,240,110) */
    static const unsigned char yuv[5][4] = {
        {235, 128, 235, 128}, {16, 128, 16, 128}, {81, 90, 81, 240}, {145, 54, 145, 34}, {41, 240, 41, 110}};
    static const int bgr[5][3] = {{255, 255, 255}, {0, 0, 0}, {0, 0, 255}, {0, 255, 0}, {255, 0, 0}};
    unsigned char src[4 * 2], dst[3 * 3 + 5];
    int k, c;
    for (k = 0; k < 5; k++) {
        memcpy(src, yuv[k], 4);
        memcpy(src + 4, yuv[k], 4);
        memset(dst, 0xAA, sizeof dst);
        cap_yuyv_to_bgr(src, 8, 3, 1, dst, 9); /* width 3: the last pair's second Y is not written */
        for (c = 0; c < 3; c++)
            TESTS_CHECK(abs(dst[c] - bgr[k][c]) <= 3 && abs(dst[6 + c] - bgr[k][c]) <= 3,
                        "colour %d channel %d: %d, want %d", k, c, dst[c], bgr[k][c]);
        CU_ASSERT(dst[9] == 0xAA); /* nothing written past width 3 */
    }
}

int tests_register_capture_v4l2(void) {
    CU_pSuite s = CU_add_suite("capture_v4l2", NULL, NULL);
    if (!s)
        return -1;
    if (!CU_add_test(s, "yuyv_colours", test_yuyv_colours) ||
        !CU_add_test(s, "mjpeg_stream", test_mjpeg_stream) ||
        !CU_add_test(s, "yuyv_and_size", test_yuyv_and_size) ||
        !CU_add_test(s, "eagain_eintr_timeout", test_eagain_eintr_timeout) ||
        !CU_add_test(s, "corrupt_frames", test_corrupt_frames) ||
        !CU_add_test(s, "first_frames_bad", test_first_frames_bad) ||
        !CU_add_test(s, "dropped_frames", test_dropped_frames) ||
        !CU_add_test(s, "enodev_and_return", test_enodev_and_return) ||
        !CU_add_test(s, "not_a_camera_and_missing", test_not_a_camera_and_missing) ||
        !CU_add_test(s, "probe_command", test_probe_command))
        return -1;
    return 0;
}
