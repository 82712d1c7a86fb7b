/* main.c - the one CUnit runner for every test suite of kifucam, and the helpers of tests/tests.h. */
#include <CUnit/Basic.h>
#include <CUnit/CUnit.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/tests.h"

int tests_project_path(char *buf, size_t size, const char *rel) {
    const char *root = getenv("KIFUCAM_ROOT");
    int n;

    if (root == NULL || root[0] == '\0')
        root = ".";
    n = snprintf(buf, size, "%s/%s", root, rel);
    return (n < 0 || (size_t)n >= size) ? -1 : 0;
}

static int is_dir(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The shared data folder into buf; 0 if found, -1 otherwise. */
static int shared_data_dir(char *buf, size_t size) {
    const char *env = getenv("KIFUCAM_SHARED");
    char probe[4096];
    int n;

    if (env != NULL && env[0] != '\0') {
        n = snprintf(buf, size, "%s/data", env);
        if (n >= 0 && (size_t)n < size && is_dir(buf))
            return 0;
        /* KIFUCAM_SHARED may name the data folder itself */
        n = snprintf(probe, sizeof probe, "%s/fixtures", env);
        if (n >= 0 && (size_t)n < sizeof probe && is_dir(probe)) {
            n = snprintf(buf, size, "%s", env);
            return (n >= 0 && (size_t)n < size) ? 0 : -1;
        }
    }
    if (tests_project_path(buf, size, "../shared/data") == 0 && is_dir(buf))
        return 0;
    return -1;
}

int tests_shared_path(char *buf, size_t size, const char *rel) {
    char dir[4096];
    int n;

    if (shared_data_dir(dir, sizeof dir) != 0)
        return -1;
    n = snprintf(buf, size, "%s/%s", dir, rel);
    return (n < 0 || (size_t)n >= size) ? -1 : 0;
}

int tests_damage_copy(const char *src, const char *dst, long offset, long count) {
    FILE *in = fopen(src, "rb"), *out = in ? fopen(dst, "wb") : NULL;
    long pos = 0;
    int c, ok = in != NULL && out != NULL && offset >= 0 && count > 0;
    while (ok && (c = fgetc(in)) != EOF) {
        if (pos >= offset && pos < offset + count)
            c = (int)(((pos - offset) * 151 + 7) & 0xff);
        ok = fputc(c, out) != EOF;
        pos++;
    }
    ok = ok && pos > offset + count && !ferror(in);
    if (in)
        fclose(in);
    if (out && fclose(out) != 0)
        ok = 0;
    return ok ? 0 : -1;
}

void tests_skip_shared(const char *what) { printf("\n    skipped: ../shared/data not found (%s)\n", what); }

/* The kifucam program next to this test binary (build/kifucam or build-san/kifucam). */
static int kifucam_path(char *buf, size_t size) {
    char self[4000];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return -1;
    self[n] = 0;
    char *slash = strrchr(self, '/');
    if (!slash)
        return -1;
    *slash = 0;
    snprintf(buf, size, "%s/kifucam", self);
    return access(buf, X_OK);
}

int tests_run_kifucam(const char *dir, const char *args, int with_stderr, char *out, size_t size) {
    char bin[4096], cmd[9000];
    out[0] = 0;
    if (kifucam_path(bin, sizeof bin) != 0)
        return -1;
    snprintf(cmd, sizeof cmd, "cd '%s' && '%s' %s %s", dir, bin, args, with_stderr ? "2>&1" : "2>/dev/null");
    FILE *p = popen(cmd, "r");
    if (!p)
        return -1;
    size_t n = fread(out, 1, size - 1, p);
    out[n] = 0;
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int tests_check(int ok, const char *file, unsigned line, const char *fmt, ...) {
    char msg[1024];
    va_list ap;

    if (ok) {
        CU_assertImplementation(CU_TRUE, line, "ok", file, "", CU_FALSE);
        return 1;
    }
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    CU_assertImplementation(CU_FALSE, line, msg, file, "", CU_FALSE);
    return 0;
}

static void usage(const char *argv0) {
    fprintf(stderr, "usage: %s [SUITE [TEST]]   (no argument: run every suite)\n", argv0);
}

int main(int argc, char **argv) {
    static int (*const registers[])(void) = {TESTS_REGISTER_LIST};
    unsigned failures, suites_failed, tests_failed;
    int status = 2;
    size_t i;

    if (argc > 3 || (argc > 1 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0))) {
        usage(argv[0]);
        return argc > 3 ? 1 : 0;
    }
    if (CU_initialize_registry() != CUE_SUCCESS) {
        fprintf(stderr, "kifucam-tests: cannot initialise CUnit: %s\n", CU_get_error_msg());
        return 2;
    }
    for (i = 0; i < sizeof registers / sizeof registers[0]; i++) {
        if (registers[i]() != 0) {
            fprintf(stderr, "kifucam-tests: registering suite %zu failed: %s\n", i, CU_get_error_msg());
            goto out;
        }
    }
    CU_basic_set_mode(CU_BRM_VERBOSE);
    if (argc == 1) {
        CU_basic_run_tests();
    } else {
        CU_pSuite suite = CU_get_suite(argv[1]);
        if (suite == NULL) {
            fprintf(stderr, "kifucam-tests: no suite named '%s'\n", argv[1]);
            status = 1;
            goto out;
        }
        if (argc == 3) {
            CU_pTest test = CU_get_test(suite, argv[2]);
            if (test == NULL) {
                fprintf(stderr, "kifucam-tests: no test '%s' in suite '%s'\n", argv[2], argv[1]);
                status = 1;
                goto out;
            }
            CU_basic_run_test(suite, test);
        } else {
            CU_basic_run_suite(suite);
        }
    }
    failures = CU_get_number_of_failures();
    suites_failed = CU_get_number_of_suites_failed();
    tests_failed = CU_get_number_of_tests_failed();
    printf("\n");
    status = (failures || suites_failed || tests_failed || CU_get_error() != CUE_SUCCESS) ? 1 : 0;
out:
    CU_cleanup_registry();
    return status;
}
