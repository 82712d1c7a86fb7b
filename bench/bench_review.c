/* bench_review.c - builds the review.html of a long game, for timing the page in a browser
 * (bench/bench_review.sh). Usage: bench-review OUT_DIR NMOVES FRAMES_DIR: OUT_DIR gets a game of NMOVES
 * legal moves (drawn by a fixed pseudo-random sequence, never one that ends the game), every move's
 * evidence frames hard-linked from FRAMES_DIR/evidence/move-001-before.jpg and -after.jpg (a folder
 * `kifucam record` wrote), with that event's board_px, and review.html as rec_out_update writes it.
 * Prints the time the page took to write, ms. */
#include "recorder/output/output_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* The board_px of FRAMES_DIR's move 1. */
static int frames_geom(const char *frames, rec_out_geom_t *g) {
    char p[4200], line[16384];
    snprintf(p, sizeof p, "%s/events.jsonl", frames);
    FILE *f = fopen(p, "r");
    memset(g, 0, sizeof *g);
    while (f && fgets(line, sizeof line, f) && !g->known)
        if (strstr(line, "\"type\":\"move\""))
            rec_out_geom_from_json(line, g);
    if (f)
        fclose(f);
    return g->known ? 0 : -1;
}

int main(int argc, char **argv) {
    if (argc != 4 || atoi(argv[2]) < 1 || atoi(argv[2]) > 1000) {
        fprintf(stderr, "usage: bench-review OUT_DIR NMOVES(1..1000) FRAMES_DIR\n");
        return 2;
    }
    const char *dir = argv[1], *frames = argv[3];
    int n = atoi(argv[2]);
    rec_trk_params_t prm;
    rul_pos_t start;
    rec_trk_t *t = NULL;
    rec_out_geom_t g0, *geom = calloc((size_t)n + 2, sizeof *geom);
    char p[4200], src[4200], ev[4200];
    if (geom == NULL || frames_geom(frames, &g0) != 0) {
        fprintf(stderr, "bench-review: %s/events.jsonl: no move with board_px\n", frames);
        return 1;
    }
    rec_trk_params_default(&prm);
    rul_pos_from_sfen(&start, "startpos", NULL);
    snprintf(ev, sizeof ev, "%s/evidence", dir);
    if (rec_trk_create(&prm, &start, &t) != REC_OK || (mkdir(dir, 0777) != 0) || mkdir(ev, 0777) != 0) {
        fprintf(stderr, "bench-review: cannot make %s (it must not exist)\n", dir);
        return 1;
    }
    rec_trk_event_t e;
    memset(&e, 0, sizeof e);
    e.type = REC_TEV_GAME_START;
    e.game = 1;
    e.time_ms = REC_TIME_NONE;
    e.handicap = 0;
    snprintf(e.sfen, sizeof e.sfen, "%s", RUL_SFEN_STARTPOS);
    rec_trk_apply(t, &e);
    rul_pos_t pos = start;
    unsigned seed = 12345;
    for (int ply = 1; ply <= n; ply++) {
        rul_movelist_t ml;
        rul_undo_t u;
        rul_gen_legal(&pos, &ml);
        rul_move_t m = RUL_MOVE_NONE;
        for (int tries = 0; tries < ml.count && m == RUL_MOVE_NONE; tries++) {
            seed = seed * 1103515245u + 12345u;
            rul_move_t c = ml.moves[(seed >> 8) % (unsigned)ml.count];
            rul_pos_do_move(&pos, c, &u);
            if (rul_count_legal(&pos) > 0)
                m = c;
            else
                rul_pos_undo_move(&pos, &u);
        }
        if (m == RUL_MOVE_NONE)
            break;
        memset(&e, 0, sizeof e);
        e.type = REC_TEV_MOVE;
        e.game = 1;
        e.ply = ply;
        e.seq = ply + 1;
        e.move = m;
        e.mover = ply % 2 ? RUL_SENTE : RUL_GOTE;
        e.time_ms = 1000 + ply;
        e.ts_us = (int64_t)ply * 1000000;
        e.confidence = 18.5;
        rul_move_to_usi(m, e.usi);
        snprintf(e.notation, sizeof e.notation, "%s", e.usi);
        rul_pos_to_sfen(&pos, e.sfen, sizeof e.sfen);
        snprintf(e.detail, sizeof e.detail, "%d. %s", ply, e.usi);
        snprintf(e.ref_before, sizeof e.ref_before, "frame %d", ply * 10);
        snprintf(e.ref_after, sizeof e.ref_after, "frame %d", ply * 10 + 3);
        if (rec_trk_apply(t, &e) != REC_OK) {
            fprintf(stderr, "bench-review: the tracker refused move %d\n", ply);
            return 1;
        }
        const rec_trk_event_t *le = rec_trk_event(t, rec_trk_nevents(t) - 1);
        if (le->seq <= n + 1)
            geom[le->seq] = g0;
        static const char *const which[] = {"before", "after"};
        for (int i = 0; i < 2; i++) {
            char name[64];
            rec_out_evidence_name(le, which[i], name, sizeof name);
            snprintf(src, sizeof src, "%s/evidence/move-001-%s.jpg", frames, which[i]);
            snprintf(p, sizeof p, "%s/%s", dir, name);
            if (link(src, p) != 0) {
                perror(src);
                return 1;
            }
        }
    }
    double t0 = now_ms();
    int rc = rec_out_write_review(dir, t, geom, n + 2);
    printf("review.html of %d moves written in %.1f ms\n", rec_trk_nevents(t) - 1, now_ms() - t0);
    rec_trk_destroy(t);
    free(geom);
    return rc == 0 ? 0 : 1;
}
