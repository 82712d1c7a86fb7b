/* game.c - a game's history: moves played, keys per ply, repetition (FESA 5.2, 3.12) and the judgement
 * of the game's end (FESA 1.2, 5.1). */
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

void rul_game_judge(const rul_game_t *g, rul_game_end_t *out) {
    const rul_color_t stm = (rul_color_t)g->pos.side;
    rul_game_repetition(g, &out->rep);
    out->reason = RUL_REASON_NONE;
    out->winner = RUL_COLOR_NB;
    switch (out->rep.verdict) {
    case RUL_REP_SENNICHITE: out->reason = RUL_REASON_SENNICHITE; return;
    case RUL_REP_PERPETUAL_SENTE:
        out->reason = RUL_REASON_PERPETUAL_CHECK;
        out->winner = RUL_GOTE;
        return;
    case RUL_REP_PERPETUAL_GOTE:
        out->reason = RUL_REASON_PERPETUAL_CHECK;
        out->winner = RUL_SENTE;
        return;
    case RUL_REP_NONE: break;
    }
    if (rul_pos_is_mate(&g->pos))
        out->reason = RUL_REASON_MATE;
    else if (rul_pos_no_legal_move(&g->pos))
        out->reason = RUL_REASON_NO_LEGAL_MOVE;
    else
        return;
    out->winner = stm == RUL_SENTE ? RUL_GOTE : RUL_SENTE;
}

static const char *const REASON_NAME[RUL_REASON_NB] = {
    "none",    "resign",       "mate",          "sennichite", "perpetual_check",
    "impasse", "illegal_move", "no_legal_move", "time",       "abort",
};

const char *rul_reason_name(rul_reason_t r) {
    return (unsigned)r < RUL_REASON_NB ? REASON_NAME[r] : "unknown";
}

const char *rul_strerror(int code) {
    switch (code) {
    case RUL_OK: return "RUL_OK";
    case RUL_EPARSE: return "RUL_EPARSE";
    case RUL_EILLEGAL: return "RUL_EILLEGAL";
    case RUL_ERANGE: return "RUL_ERANGE";
    case RUL_EFULL: return "RUL_EFULL";
    case RUL_EINVALID: return "RUL_EINVALID";
    default: return "RUL_E?";
    }
}
