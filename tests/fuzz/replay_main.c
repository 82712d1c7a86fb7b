/* replay_main.c - runs a libFuzzer target's LLVMFuzzerTestOneInput once on each file named on the command
 * line (a folder: each plain file in it, sorted by name), so that the saved inputs replay in `make test`
 * without libFuzzer. Linked with a tests/fuzz/fuzz_*.c and the sanitizers: a crash aborts the program
 * (exit status non-zero, the sanitizer's report on stderr). Prints "NAME: N inputs" on success; exit 1 if
 * a file cannot be read, 2 on bad usage. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

static int run_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "fuzz-replay: cannot open %s\n", path);
        return -1;
    }
    size_t cap = 4096, n = 0;
    uint8_t *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            uint8_t *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
    }
    fclose(f);
    if (!buf) {
        fprintf(stderr, "fuzz-replay: out of memory reading %s\n", path);
        return -1;
    }
    /* an exact-size copy, so that a read one byte past the input is caught as libFuzzer would */
    uint8_t *exact = malloc(n ? n : 1);
    if (!exact) {
        free(buf);
        return -1;
    }
    memcpy(exact, buf, n);
    free(buf);
    LLVMFuzzerTestOneInput(exact, n);
    free(exact);
    return 0;
}

static int cmp_names(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int run_dir(const char *dir, int *count) {
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "fuzz-replay: cannot open %s\n", dir);
        return -1;
    }
    char **names = NULL;
    size_t nn = 0, cap = 0;
    struct dirent *e;
    int rc = 0;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        if (nn == cap) {
            cap = cap ? cap * 2 : 64;
            char **nb = realloc(names, cap * sizeof *names);
            if (!nb) {
                rc = -1;
                break;
            }
            names = nb;
        }
        size_t len = strlen(dir) + strlen(e->d_name) + 2;
        names[nn] = malloc(len);
        if (!names[nn]) {
            rc = -1;
            break;
        }
        snprintf(names[nn++], len, "%s/%s", dir, e->d_name);
    }
    closedir(d);
    if (nn)
        qsort(names, nn, sizeof *names, cmp_names);
    for (size_t i = 0; i < nn; i++) {
        struct stat st;
        if (rc == 0 && stat(names[i], &st) == 0 && S_ISREG(st.st_mode)) {
            if (run_file(names[i]))
                rc = -1;
            else
                (*count)++;
        }
        free(names[i]);
    }
    free(names);
    return rc;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE|DIR...\n", argv[0]);
        return 2;
    }
    if (LLVMFuzzerInitialize)
        LLVMFuzzerInitialize(&argc, &argv);
    int count = 0, rc = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "fuzz-replay: cannot open %s\n", argv[i]);
            rc = 1;
        } else if (S_ISDIR(st.st_mode)) {
            if (run_dir(argv[i], &count))
                rc = 1;
        } else if (run_file(argv[i])) {
            rc = 1;
        } else {
            count++;
        }
    }
    const char *name = strrchr(argv[0], '/');
    printf("%s: %d inputs\n", name ? name + 1 : argv[0], count);
    return rc;
}
