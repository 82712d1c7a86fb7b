/* tests.h - what every test file shares: the suite registration list, data paths, checks with messages. */
#ifndef KIFUCAM_TESTS_H
#define KIFUCAM_TESTS_H

#include <stddef.h>

/* ---------------------------------------------------------------- suites
 * One registration function per test file. Each adds its suite(s) to the CUnit registry and returns
 * 0, or -1 if CUnit refused (the runner then stops). To add a test file: declare its function here
 * and add it to TESTS_REGISTER_LIST below; tests/main.c needs no change. */
int tests_register_sfen(void);             /* tests/rules/test_sfen.c */
int tests_register_movegen(void);          /* tests/rules/test_movegen.c */
int tests_register_mate(void);             /* tests/rules/test_mate.c */
int tests_register_validate(void);         /* tests/rules/test_validate.c */
int tests_register_impasse(void);          /* tests/rules/test_impasse.c */
int tests_register_repetition(void);       /* tests/rules/test_repetition.c */
int tests_register_rules_cases(void);      /* tests/rules/test_rules_cases.c */
int tests_register_kifu(void);             /* tests/recorder/kifu/test_kifu.c */
int tests_register_replay(void);           /* tests/recorder/kifu/test_replay.c */
int tests_register_kifu_fixtures(void);    /* tests/recorder/kifu/test_kifu_fixtures.c */
int tests_register_kifu_errors(void);      /* tests/recorder/kifu/test_kifu_errors.c */
int tests_register_tracker(void);          /* tests/recorder/tracker/test_tracker.c */
int tests_register_setup_occ(void);        /* tests/recorder/tracker/test_setup_occ.c */
int tests_register_tracker_damaged(void);  /* tests/recorder/tracker/test_damaged.c */
int tests_register_output(void);           /* tests/recorder/output/test_output.c */
int tests_register_record(void);           /* tests/recorder/record/test_record.c */
int tests_register_live(void);             /* tests/recorder/output/test_live.c */
int tests_register_resume_torn(void);      /* tests/recorder/record/test_resume_torn.c */
int tests_register_adapt(void);            /* tests/recorder/record/test_adapt.c */
int tests_register_recognize(void);        /* tests/recorder/cli/test_recognize.c */
int tests_register_record_meta(void);      /* tests/recorder/cli/test_record_meta.c */
int tests_register_real_sets(void);        /* tests/recorder/cli/test_real_sets.c */
int tests_register_crops(void);            /* tests/recorder/cli/test_crops.c */
int tests_register_hall_publish(void);     /* tests/recorder/hall/test_publish.c */
int tests_register_hall(void);             /* tests/recorder/hall/test_hall.c */
int tests_register_capture_files(void);    /* tests/capture/test_image.c */
int tests_register_capture_v4l2(void);     /* tests/capture/test_v4l2.c */
int tests_register_vision_pose(void);      /* tests/vision/test_pose.c */
int tests_register_vision_stability(void); /* tests/vision/test_stability.c */
int tests_register_vision_threads(void);   /* tests/vision/test_threads.c */
int tests_register_vision_decode(void);    /* tests/vision/test_decode.c */
int tests_register_vision_classify(void);  /* tests/vision/test_classify.c */
int tests_register_vision_komadai(void);   /* tests/vision/test_komadai.c */

/* The runner calls these in this order (one name a line, each followed by a comma). */
/* clang-format off */
#define TESTS_REGISTER_LIST \
    tests_register_sfen, \
    tests_register_movegen, \
    tests_register_mate, \
    tests_register_validate, \
    tests_register_impasse, \
    tests_register_repetition, \
    tests_register_rules_cases, \
    tests_register_kifu, \
    tests_register_replay, \
    tests_register_kifu_fixtures, \
    tests_register_kifu_errors, \
    tests_register_tracker, \
    tests_register_setup_occ, \
    tests_register_tracker_damaged, \
    tests_register_output, \
    tests_register_record, \
    tests_register_live, \
    tests_register_resume_torn, \
    tests_register_adapt, \
    tests_register_recognize, \
    tests_register_record_meta, \
    tests_register_real_sets, \
    tests_register_crops, \
    tests_register_hall_publish, \
    tests_register_hall, \
    tests_register_capture_files, \
    tests_register_capture_v4l2, \
    tests_register_vision_pose, \
    tests_register_vision_stability, \
    tests_register_vision_threads, \
    tests_register_vision_decode, \
    tests_register_vision_classify, \
    tests_register_vision_komadai,
/* clang-format on */

/* ---------------------------------------------------------------- data
 * The project root is the current directory (`make test` runs the binary from it); KIFUCAM_ROOT
 * overrides it. ../shared/data is found as $KIFUCAM_SHARED/data (or $KIFUCAM_SHARED itself when it
 * already is the data folder), else ../shared/data from the project root. */

/* Writes the path of rel (e.g. "tests/data/x.tsv") under the project root into buf (size bytes).
 * Returns 0, or -1 if it does not fit. */
int tests_project_path(char *buf, size_t size, const char *rel);

/* Writes the path of rel (e.g. "fixtures/perft/perft_cases.tsv") under ../shared/data into buf.
 * Returns 0, or -1 if the data folder is absent or the path does not fit. */
int tests_shared_path(char *buf, size_t size, const char *rel);

/* Runs "kifucam ARGS" (the program next to the test binary: build/kifucam or build-san/kifucam) in
 * dir through the shell; its stdout, and its stderr too when with_stderr, go to out (size bytes, cut
 * short if longer, always terminated). Returns the exit status, -1 if it could not be run. */
int tests_run_kifucam(const char *dir, const char *args, int with_stderr, char *out, size_t size);

/* Copies the file src to dst with count bytes from byte offset on replaced by a fixed pattern (byte i
 * of the run is (i * 151 + 7) & 0xff): damage that is the same on every run, as a disk or a transfer
 * might make it (tests of damaged video). Returns 0, or -1 if src cannot be read, is not longer than
 * offset + count bytes, or dst cannot be written. */
int tests_damage_copy(const char *src, const char *dst, long offset, long count);

/* Prints "skipped: ../shared/data not found (<what>)" once per call; tests that need the shared
 * data call it and return without failing. */
void tests_skip_shared(const char *what);

/* ---------------------------------------------------------------- checks
 * TESTS_CHECK(cond, fmt, ...) is a non-fatal CUnit assertion whose failure message is the printf-style
 * text (CUnit keeps a copy), so that a failing table row names itself ("R07: P*1b must be illegal").
 * The text is formatted only when the check fails. */
#define TESTS_CHECK(cond, ...) tests_check((cond) ? 1 : 0, __FILE__, __LINE__, __VA_ARGS__)
#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
int tests_check(int ok, const char *file, unsigned line, const char *fmt, ...);

#endif /* KIFUCAM_TESTS_H */
