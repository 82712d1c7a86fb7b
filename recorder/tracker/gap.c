/* gap.c - the position after a long gap: the fewest legal moves from the game's position that leave
 * exactly the board the view shows (a pruned iterative-deepening search), so that the game can be
 * taken up again from a position whose pieces in hand and side to move the moves determine. */
#include "recorder/tracker/tracker_internal.h"

#include <stdlib.h>
#include <string.h>

/* The search's state: the board wanted, the count of positions visited, the positions reached. */
typedef struct {
    rul_piece_t want[RUL_SQ_NB];
    long nodes, max_nodes;
    int found;      /* sequences found at the current depth (at most 2 counted apart) */
    int split;      /* 1: two of them leave different positions (hands or side differ) */
    rul_pos_t end;  /* the position the first one leaves */
    uint64_t *seen; /* (position, moves left) already searched at this depth: open addressing, 0 free */
} gap_search_t;

#define GAP_SEEN_BITS 20 /* 2^20 entries (8 MB): the positions of one search, transpositions folded */

/* 1 when (pos, left) was searched before in this pass (the moves after it are the same whatever order
 * led there); else notes it and returns 0. A full table notes nothing (the search goes on, slower). */
static int gap_seen(gap_search_t *s, const rul_pos_t *pos, int left) {
    uint64_t k = (pos->key ^ ((uint64_t)(left + 1) * 0x9E3779B97F4A7C15ull)) | 1u;
    size_t mask = ((size_t)1 << GAP_SEEN_BITS) - 1, i = (size_t)(k >> 7) & mask;
    for (int probe = 0; probe < 16; probe++, i = (i + 1) & mask) {
        if (s->seen[i] == k)
            return 1;
        if (s->seen[i] == 0) {
            s->seen[i] = k;
            return 0;
        }
    }
    return 0;
}

/* Moves each side needs at least to turn pos's board into the wanted one: each of its moves puts a
 * piece on one square (a square that must hold one of its pieces) and empties at most one (a square
 * of its own that must be empty). need[c] for colour c; returns 1 when the boards are the same. */
static int gap_need(const gap_search_t *s, const rul_pos_t *pos, int need[RUL_COLOR_NB]) {
    int put[RUL_COLOR_NB] = {0, 0}, leave[RUL_COLOR_NB] = {0, 0}, same = 1;
    for (int sq = 0; sq < RUL_SQ_NB; sq++) {
        rul_piece_t cur = rul_pos_piece_at(pos, sq), want = s->want[sq];
        if (cur == want)
            continue;
        same = 0;
        if (want != RUL_PIECE_NONE)
            put[RUL_PIECE_COLOR(want)]++;
        else
            leave[RUL_PIECE_COLOR(cur)]++;
    }
    for (int c = 0; c < RUL_COLOR_NB; c++)
        need[c] = put[c] > leave[c] ? put[c] : leave[c];
    return same;
}

/* Depth-first search of every sequence of exactly `left` more moves from pos that leaves the wanted
 * board. Returns -1 when the node budget ran out, else 0. */
static int gap_dfs(gap_search_t *s, rul_pos_t *pos, int left) {
    int need[RUL_COLOR_NB];
    if (++s->nodes > s->max_nodes)
        return -1;
    int same = gap_need(s, pos, need);
    if (left == 0) {
        if (same) {
            if (s->found == 0)
                s->end = *pos;
            else if (s->end.key != pos->key)
                s->split = 1;
            s->found += s->found < 2;
        }
        return 0;
    }
    int mover = pos->side, mine = (left + 1) / 2, theirs = left / 2;
    if (need[mover] > mine || need[!mover] > theirs || gap_seen(s, pos, left))
        return 0;
    rul_movelist_t list;
    rul_gen_legal(pos, &list);
    for (int i = 0; i < list.count; i++) {
        rul_undo_t u;
        rul_pos_do_move(pos, list.moves[i], &u);
        int rc = gap_dfs(s, pos, left - 1);
        rul_pos_undo_move(pos, &u);
        if (rc < 0)
            return rc;
    }
    return 0;
}

int rec_trk_gap_reach(const rul_pos_t *from, const rul_piece_t want[RUL_SQ_NB], int max_plies, long max_nodes,
                      rul_pos_t *out, int *plies) {
    gap_search_t s;
    gap_search_t *g = &s;
    rul_pos_t pos = *from;
    int need[RUL_COLOR_NB], rc = 0;
    memset(g, 0, sizeof *g);
    memcpy(g->want, want, sizeof g->want);
    g->max_nodes = max_nodes;
    if (gap_need(g, &pos, need))
        return 0; /* the same board: no move to find */
    g->seen = malloc(sizeof *g->seen << GAP_SEEN_BITS);
    if (g->seen == NULL)
        return 0;
    for (int d = 1; d <= max_plies; d++) {
        g->found = g->split = 0;
        memset(g->seen, 0, sizeof *g->seen << GAP_SEEN_BITS);
        if (gap_dfs(g, &pos, d) < 0) {
            break; /* the budget ran out before the shortest sequences were all seen */
        }
        if (g->found > 0) {
            if (g->split) {
                break; /* sequences of the same length leave different positions */
            }
            *out = g->end;
            *plies = d;
            rc = 1;
            break;
        }
    }
    free(g->seen);
    return rc;
}
