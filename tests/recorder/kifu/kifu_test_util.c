/* kifu_test_util.c - helpers shared by the kifu test suites. */
#include "tests/recorder/kifu/kifu_test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *kifu_test_line_sig(const rec_kifu_t *k, int l) {
    size_t cap = 64 + (size_t)k->lines[l].nmoves * 6;
    char *parent = k->lines[l].parent >= 0 ? kifu_test_line_sig(k, k->lines[l].parent) : NULL;
    if (parent)
        cap += strlen(parent);
    char *s = malloc(cap);
    if (!s) {
        free(parent);
        return NULL;
    }
    size_t n = (size_t)snprintf(s, cap, "%s|%d:", parent ? parent : "", k->lines[l].start_ply);
    free(parent);
    for (int i = 0; i < k->lines[l].nmoves; i++) {
        char u[8];
        rul_move_to_usi(k->lines[l].moves[i].move, u);
        n += (size_t)snprintf(s + n, cap - n, " %s", u);
    }
    return s;
}

void kifu_test_replay(const rec_kifu_t *k, rec_replay_record_t *out) {
    rec_replay_t *r = NULL;
    memset(out, 0, sizeof *out);
    if (rec_replay_create(&r) != REC_OK)
        return;
    rec_replay_kifu(r, k, NULL, NULL);
    *out = r->record;
    rec_replay_destroy(r);
}
