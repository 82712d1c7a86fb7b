/* game.c - a game's history: moves played, keys per ply, and repetition judgement (FESA 5.2, 3.12). */
#include "rules/rules_internal.h"

#include <string.h>

void rul_game_init(rul_game_t *g, const rul_pos_t *start) {
    g->start = *start;
    g->pos = *start;
    g->nply = 0;
    g->keys[0] = start->key;
    g->check[0] = (uint8_t)rul_pos_in_check(start);
}

int rul_game_play(rul_game_t *g, rul_move_t m) {
    if (g->nply >= RUL_GAME_MAX_PLY)
        return RUL_EFULL;
    if (!rul_is_legal(&g->pos, m))
        return RUL_EILLEGAL;
    rul_pos_do_move(&g->pos, m, &g->undo[g->nply]);
    g->nply++;
    g->keys[g->nply] = g->pos.key;
    g->check[g->nply] = (uint8_t)rul_pos_in_check(&g->pos);
    return RUL_OK;
}

int rul_game_undo(rul_game_t *g) {
    if (g->nply == 0)
        return RUL_ERANGE;
    g->nply--;
    rul_pos_undo_move(&g->pos, &g->undo[g->nply]);
    return RUL_OK;
}

void rul_game_repetition(const rul_game_t *g, rul_rep_info_t *out) {
    const int n = g->nply;
    const uint64_t key = g->keys[n];
    out->verdict = RUL_REP_NONE;
    out->count = 0;
    out->first_ply = n;
    /* The whole game, not an engine's 16-ply window; positions with the same side to move are
     * an even number of plies apart. */
    for (int i = n; i >= 0; i -= 2)
        if (g->keys[i] == key) {
            out->count++;
            out->first_ply = i;
        }
    if (out->count < 4)
        return;
    /* FESA 3.12: did one side check with every move since the first occurrence? The i-th move
     * (1-based) gave check when check[i] is set; its mover is start.side for odd i. */
    int all_checked[2] = {1, 1};
    for (int i = out->first_ply + 1; i <= n; i++) {
        int mover = (g->start.side + i - 1) & 1;
        if (!g->check[i])
            all_checked[mover] = 0;
    }
    if (all_checked[RUL_SENTE] && !all_checked[RUL_GOTE])
        out->verdict = RUL_REP_PERPETUAL_SENTE;
    else if (all_checked[RUL_GOTE] && !all_checked[RUL_SENTE])
        out->verdict = RUL_REP_PERPETUAL_GOTE;
    else
        out->verdict = RUL_REP_SENNICHITE;
}
