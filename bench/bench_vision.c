/* bench_vision.c - vision timings on one core: the per-frame stability test on a 1920x1080 frame, the
 * board pose search, a full read (the 81 squares in one batched dnn call, plus both komadai) against the
 * naive one-dnn-call-per-square baseline, in the same run. usage: bench-vision PHOTO [MODEL [KOMADAI_PHOTO]]
 * (make bench; PHOTO is ../shared/data's sample_board.jpg, MODEL models/squares.onnx, KOMADAI_PHOTO a photo
 * with pieces on the stands, a frame of samples/sample-clip.mp4: the komadai are timed there, PHOTO's stands
 * being bare). Run it pinned to one core (make bench uses taskset -c 0); it also sets OpenCV to one thread
 * (vis_threads_set). Every timing is the median of several runs after a warm-up; the spread (min..max) is
 * printed beside it, since the machine may be shared. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "capture/capture.h"
#include "vision/vision.h"

#define STAB_ROUNDS 9       /* rounds of the stability test */
#define STAB_FRAMES 400     /* frames a round */
#define READ_WARMUP 3       /* reads before timing (the dnn allocates its buffers on the first call) */
#define READ_REPS 15        /* timed reads of each kind */
#define TARGET_STAB_MS 3.0  /* issue 5: stability test under 3 ms a 1080p frame on one core */
#define TARGET_READ_MS 20.0 /* issue 5: 81 squares + both komadai under 20 ms on one core */

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

/* CPU time of the whole process (all its threads), ms: unlike the wall clock, not inflated when other
 * jobs share the core. */
static double cpu_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Sorts v[0..n-1] and returns its median. */
static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* One timed span: wall and CPU milliseconds. */
typedef struct {
    double wall, cpu;
} span_t;

static span_t span_start(void) {
    span_t s = {now_ms(), cpu_ms()};
    return s;
}

static void span_stop(span_t start, double div, double *wall, double *cpu) {
    *wall = (now_ms() - start.wall) / div;
    *cpu = (cpu_ms() - start.cpu) / div;
}

/* Times vis_komadai_read on the photo at path (board found with the default parameters and oriented,
 * as kifucam recognize does): READ_WARMUP reads, then READ_REPS timed ones into wall[] and cpu[] (ms);
 * *windows = the windows classified. Returns 0, or -1 with the reason in err. */
static int time_komadai(vis_classifier_t *clf, const char *path, vis_komadai_read_t *kr, double *wall,
                        double *cpu, int *windows, char *err, size_t errlen) {
    cap_image_t img;
    vis_pose_t pose;
    vis_board_read_t *rd = malloc(sizeof *rd);
    int rc = -1;
    if (rd == NULL || cap_image_load(path, &img, err, errlen) != 0) {
        free(rd);
        return -1;
    }
    if (vis_pose_find(&img, NULL, &pose, err, errlen) != 0)
        goto out;
    if (!pose.found) {
        snprintf(err, errlen, "no board found (score %.2f)", pose.score);
        goto out;
    }
    if (vis_classifier_orient(clf, &img, &pose, rd) != 0) {
        snprintf(err, errlen, "%s", vis_classifier_errmsg(clf));
        goto out;
    }
    for (int i = 0; i < READ_WARMUP + READ_REPS; i++) {
        span_t sp = span_start();
        if (vis_komadai_read(clf, &img, &pose, NULL, kr) != 0) {
            snprintf(err, errlen, "%s", vis_classifier_errmsg(clf));
            goto out;
        }
        if (i >= READ_WARMUP)
            span_stop(sp, 1, &wall[i - READ_WARMUP], &cpu[i - READ_WARMUP]);
    }
    *windows = kr->windows;
    rc = 0;
out:
    cap_image_free(&img);
    free(rd);
    return rc;
}

int main(int argc, char **argv) {
    char err[512] = "";
    cap_image_t photo, frame, moved;
    vis_pose_t pose;
    vis_stability_t *st = NULL;
    vis_view_t v;
    int rc = 0;

    if (argc < 2) {
        fprintf(stderr, "usage: bench-vision PHOTO [MODEL [KOMADAI_PHOTO]]\n");
        return 2;
    }
    if (vis_threads_set(1, err, sizeof err) != 0) {
        fprintf(stderr, "bench-vision: %s\n", err);
        return 2;
    }
    if (cap_image_load(argv[1], &photo, err, sizeof err) != 0) {
        fprintf(stderr, "bench-vision: %s\n", err);
        return 2;
    }
    /* a 1080p frame with the photo in it (cropped to fit), the rest grey; and the same frame with a
     * "hand" (a dark block over a corner of the board) so the stability test sees change too */
    frame.width = moved.width = 1920;
    frame.height = moved.height = 1080;
    frame.stride = moved.stride = 1920 * 3;
    frame.data = malloc((size_t)frame.stride * frame.height);
    moved.data = malloc((size_t)moved.stride * moved.height);
    if (frame.data == NULL || moved.data == NULL)
        return 2;
    memset(frame.data, 90, (size_t)frame.stride * frame.height);
    int ch = photo.height < 1080 ? photo.height : 1080, cw = photo.width < 1620 ? photo.width : 1620;
    for (int y = 0; y < ch; y++)
        memcpy(frame.data + (size_t)y * frame.stride + 300 * 3, photo.data + (size_t)y * photo.stride,
               (size_t)cw * 3);
    memcpy(moved.data, frame.data, (size_t)frame.stride * frame.height);
    for (int y = 0; y < 300; y++)
        memset(moved.data + (size_t)y * moved.stride + 300 * 3, 30, 300 * 3);

    vis_pose_params_t pp;
    vis_pose_params_default(&pp);
    pp.work_size = 2048; /* the board covers 1000 of 1920 pixels: keep its lines sharp */
    pp.min_score = 0.5;  /* timing only: this pasted frame scores 0.58 (the photo alone 0.70) */
    double t0 = now_ms(), c0 = cpu_ms();
    if (vis_pose_find(&frame, &pp, &pose, err, sizeof err) != 0 || !pose.found) {
        fprintf(stderr, "bench-vision: no board in the 1080p frame (score %.2f %s)\n", pose.score, err);
        return 2;
    }
    double t_pose = now_ms() - t0, c_pose = cpu_ms() - c0;
    if (vis_stability_create(&pose, NULL, &st, err, sizeof err) != 0) {
        fprintf(stderr, "bench-vision: %s\n", err);
        return 2;
    }
    /* warm-up, then rounds of STAB_FRAMES frames: 3 of every 4 the still frame, 1 the changed one */
    int64_t ts = 0;
    for (int i = 0; i < 100; i++, ts += 33333)
        vis_stability_update(st, i % 4 == 3 ? &moved : &frame, ts, &v);
    double stab[STAB_ROUNDS], stab_cpu[STAB_ROUNDS];
    for (int r = 0; r < STAB_ROUNDS; r++) {
        span_t sp = span_start();
        for (int i = 0; i < STAB_FRAMES; i++, ts += 33333)
            vis_stability_update(st, i % 4 == 3 ? &moved : &frame, ts, &v);
        span_stop(sp, STAB_FRAMES, &stab[r], &stab_cpu[r]);
    }
    double t_stab = median(stab, STAB_ROUNDS), c_stab = median(stab_cpu, STAB_ROUNDS);
    printf(
        "vision bench: 1920x1080 frame, one core (pinned; OpenCV set to 1 thread); wall ms = median after a\n"
        "warm-up (min..max), cpu ms = the process's CPU time, median (the fairer number on a shared "
        "machine)\n");
    printf("%-16s %9s %9s  %-22s %s\n", "step", "wall ms", "cpu ms", "target (on cpu ms)", "what");
    printf("%-16s %9.1f %9.1f  %-22s %s\n", "pose search", t_pose, c_pose, "-",
           "one run, work size 2048; once per board placement");
    printf("%-16s %9.3f %9.3f  %-22s %d rounds of %d frames (wall %.3f..%.3f), 1 in 4 with a hand\n",
           "stability test", t_stab, c_stab,
           c_stab < TARGET_STAB_MS ? "< 3 ms a frame  PASS" : "< 3 ms a frame  MISS", STAB_ROUNDS,
           STAB_FRAMES, stab[0], stab[STAB_ROUNDS - 1]);
    vis_stability_destroy(st);

    const char *model = argc > 2 ? argv[2] : "models/squares.onnx", *kphoto = argc > 3 ? argv[3] : NULL;
    vis_classifier_t *clf = NULL;
    vis_board_read_t *rd = malloc(sizeof *rd), *rn = malloc(sizeof *rn);
    vis_komadai_read_t *kr = malloc(sizeof *kr);
    if (rd && rn && kr && vis_classifier_open(model, &clf) == 0) {
        /* wall[k][i], cpu[k][i]: k = 0 the batched 81-square read, 1 both komadai, 2 the naive read */
        double wall[3][READ_REPS], cpu[3][READ_REPS], mw[3], mc[3];
        int same = 1, windows = 0, known[2] = {0, 0}, pieces[2] = {0, 0};
        for (int i = 0; i < READ_WARMUP && rc == 0; i++) {
            rc |= vis_classifier_read(clf, &frame, &pose, rd);
            rc |= vis_classifier_read_naive(clf, &frame, &pose, rn);
            rc |= vis_komadai_read(clf, &frame, &pose, NULL, kr);
        }
        /* batched, komadai and naive interleaved, so that load from other jobs hits all alike */
        for (int i = 0; i < READ_REPS && rc == 0; i++) {
            span_t sp = span_start();
            rc |= vis_classifier_read(clf, &frame, &pose, rd);
            span_stop(sp, 1, &wall[0][i], &cpu[0][i]);
            sp = span_start();
            rc |= vis_komadai_read(clf, &frame, &pose, NULL, kr);
            span_stop(sp, 1, &wall[1][i], &cpu[1][i]);
            sp = span_start();
            rc |= vis_classifier_read_naive(clf, &frame, &pose, rn);
            span_stop(sp, 1, &wall[2][i], &cpu[2][i]);
        }
        if (rc != 0) {
            fprintf(stderr, "bench-vision: read failed: %s\n", vis_classifier_errmsg(clf));
            rc = 2;
        } else {
            for (int sq = 0; sq < VIS_SQUARE_NB; sq++)
                same &= rd->cls[sq] == rn->cls[sq];
            for (int k = 0; k < 3; k++) {
                mw[k] = median(wall[k], READ_REPS);
                mc[k] = median(cpu[k], READ_REPS);
            }
            windows = kr->windows;
            if (kphoto != NULL) {
                /* the stands of the 1080p frame above are bare wood and grey: time both komadai on a
                 * photo whose stands hold pieces (found and oriented as kifucam recognize does) */
                rc = time_komadai(clf, kphoto, kr, wall[1], cpu[1], &windows, err, sizeof err);
                if (rc != 0) {
                    fprintf(stderr, "bench-vision: %s: %s\n", kphoto, err);
                    rc = 2;
                    goto done;
                }
                mw[1] = median(wall[1], READ_REPS);
                mc[1] = median(cpu[1], READ_REPS);
            }
            for (int p = 0; p < 2; p++) {
                known[p] = kr->known[p];
                pieces[p] = kr->pieces[p];
            }
            printf("%-16s %9.2f %9.2f  %-22s one batched dnn call, median of %d (wall %.2f..%.2f)\n",
                   "81 squares", mw[0], mc[0], "", READ_REPS, wall[0][0], wall[0][READ_REPS - 1]);
            printf("%-16s %9.2f %9.2f  %-22s both stands, %d windows in one dnn call, median of %d (wall "
                   "%.2f..%.2f); %s: stands read %s/%s, pieces %d/%d\n",
                   "komadai", mw[1], mc[1], "", windows, READ_REPS, wall[1][0], wall[1][READ_REPS - 1],
                   kphoto ? kphoto : "the 1080p frame (no pieces on its stands)", known[0] ? "yes" : "no",
                   known[1] ? "yes" : "no", pieces[0], pieces[1]);
            printf("%-16s %9.2f %9.2f  %-22s %s\n", "full read", mw[0] + mw[1], mc[0] + mc[1],
                   mc[0] + mc[1] < TARGET_READ_MS ? "< 20 ms  PASS" : "< 20 ms  MISS",
                   "81 squares + both komadai (sum of the medians)");
            printf(
                "%-16s %9.2f %9.2f  %-22s 81 dnn calls of one square each, median of %d (wall %.2f..%.2f)\n",
                "naive 81 squares", mw[2], mc[2], "", READ_REPS, wall[2][0], wall[2][READ_REPS - 1]);
            printf("ratio naive/batched, 81 squares: %.2f (cpu), %.2f (wall); same class on all 81 squares: "
                   "%s\n",
                   mc[2] / mc[0], mw[2] / mw[0], same ? "yes" : "NO");
        }
    } else {
        printf("full read: skipped (%s)\n", vis_classifier_errmsg(clf));
    }
done:
    vis_classifier_destroy(clf);
    free(kr);
    free(rd);
    free(rn);
    free(frame.data);
    free(moved.data);
    cap_image_free(&photo);
    return rc;
}
