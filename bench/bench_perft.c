/* bench_perft.c - times rul_perft on one position and checks its node count (used by bench/bench.sh).
 *
 * usage: bench-perft NAME SFEN DEPTH EXPECTED
 * Prints one line: "kifucam NAME dDEPTH: nodes N time S s nps R"; exit 0 when N == EXPECTED, 1 when the
 * count is wrong or an argument is bad. Single-threaded, wall-clock time (CLOCK_MONOTONIC). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rules/rules.h"

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    rul_pos_t pos;
    rul_error_t err;
    unsigned long long expected, nodes;
    double t0, dt;
    char *end;
    long depth;

    if (argc != 5) {
        fprintf(stderr, "usage: bench-perft NAME SFEN DEPTH EXPECTED\n");
        return 1;
    }
    memset(&err, 0, sizeof err);
    if (rul_pos_from_sfen(&pos, argv[2], &err) != RUL_OK) {
        fprintf(stderr, "bench-perft: bad SFEN: %s\n", err.msg);
        return 1;
    }
    depth = strtol(argv[3], &end, 10);
    if (*end || depth < 1 || depth > RUL_PERFT_MAX_DEPTH) {
        fprintf(stderr, "bench-perft: depth must be between 1 and %d\n", RUL_PERFT_MAX_DEPTH);
        return 1;
    }
    expected = strtoull(argv[4], &end, 10);
    if (*end) {
        fprintf(stderr, "bench-perft: bad EXPECTED '%s'\n", argv[4]);
        return 1;
    }
    t0 = now_s();
    nodes = (unsigned long long)rul_perft(&pos, (int)depth);
    dt = now_s() - t0;
    printf("kifucam %s d%ld: nodes %llu time %.3f s nps %.0f\n", argv[1], depth, nodes, dt,
           dt > 0 ? (double)nodes / dt : 0.0);
    if (nodes != expected) {
        printf("kifucam %s d%ld: WRONG node count %llu, expected %llu\n", argv[1], depth, nodes, expected);
        return 1;
    }
    return 0;
}
