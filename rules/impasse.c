/* impasse.c - impasse (jishogi / nyugyoku) declaration points and verdicts (FESA 5.3, 24-point rule,
 * the French regulation's count). */
#include "rules/rules_internal.h"

#include <string.h>

/* Points of everything colour c owns on the board (all squares, or only the enemy camp when
 * zone_only) and in hand; *in_zone gets the count of c's non-king pieces in the enemy camp. */
static int count_points(const rul_pos_t *pos, int c, int zone_only, int *in_zone) {
    int pts = 0, n = 0;
    for (int file = 1; file <= 9; file++)
        for (int rank = 1; rank <= 9; rank++) {
            rul_piece_t pc = pos->mb[MB(file, rank)];
            if (!pc || RUL_PIECE_COLOR(pc) != c)
                continue;
            int t = RUL_PIECE_TYPE(pc), zone = rel_rank(c, rank) <= 3;
            if (zone && t != RUL_KING)
                n++;
            if (zone || !zone_only)
                pts += IMPASSE_POINTS[t];
        }
    for (int t = 1; t <= RUL_HAND_NB; t++)
        pts += rul_pos_hand(pos, (rul_color_t)c, (rul_type_t)t) * IMPASSE_POINTS[t];
    if (in_zone)
        *in_zone = n;
    return pts;
}

/* Points of the pieces missing from the full set of 40: the pieces removed in a handicap game,
 * which count for uwate (gote) (RULES.md "Handicaps"; JSA and tsshogi count them the same way). */
static int handicap_points(const rul_pos_t *pos) {
    int have[9] = {0};
    for (int c = 0; c < 2; c++)
        for (int t = 1; t <= RUL_HAND_NB; t++)
            have[t] += rul_pos_hand(pos, (rul_color_t)c, (rul_type_t)t);
    for (int sq = 0; sq < RUL_SQ_NB; sq++) {
        rul_piece_t pc = pos->mb[cell_of_sq(sq)];
        if (pc)
            have[type_base(RUL_PIECE_TYPE(pc))]++;
    }
    int pts = 0;
    for (int t = 1; t <= RUL_GOLD; t++)
        if (have[t] < SET_COUNT[t])
            pts += (SET_COUNT[t] - have[t]) * IMPASSE_POINTS[t];
    return pts;
}

int rul_impasse_judge(const rul_pos_t *pos, rul_impasse_rule_t rule, rul_impasse_t *out) {
    memset(out, 0, sizeof *out);
    if ((int)rule < RUL_IMPASSE_27 || rule > RUL_IMPASSE_COUNT)
        return RUL_ERANGE;
    const int us = pos->side, them = us ^ 1;
    int kc = pos->king_mb[us];
    out->declarer = (rul_color_t)us;
    out->king_in_zone = kc && rel_rank(us, MB_RANK(kc)) <= 3;
    out->in_check = rul_pos_in_check(pos);
    out->handicap_points = handicap_points(pos);
    int zone_only = rule != RUL_IMPASSE_COUNT;
    int their_zone;
    out->points = count_points(pos, us, zone_only, &out->pieces_in_zone);
    out->opponent_points = count_points(pos, them, zone_only, &their_zone);
    if (us == RUL_GOTE)
        out->points += out->handicap_points;
    else
        out->opponent_points += out->handicap_points;

    if (rule == RUL_IMPASSE_COUNT) {
        /* French regulation / professional rule once both kings have entered: both >= 24 is a
         * draw, otherwise the higher count wins. */
        out->needed = 24;
        if ((out->points >= 24 && out->opponent_points >= 24) || out->points == out->opponent_points)
            out->verdict = RUL_VERDICT_DRAW;
        else
            out->verdict = out->points > out->opponent_points ? RUL_VERDICT_WIN : RUL_VERDICT_LOSE;
        return RUL_OK;
    }
    /* FESA 5.3 (1) king in the zone, (4) ten other pieces there, (6) not in check. */
    int conditions = out->king_in_zone && out->pieces_in_zone >= 10 && !out->in_check;
    if (rule == RUL_IMPASSE_27) {
        out->needed = us == RUL_SENTE ? 28 : 27; /* FESA 5.3 (2) */
        out->verdict = conditions && out->points >= out->needed ? RUL_VERDICT_WIN : RUL_VERDICT_LOSE;
    } else {
        out->needed = 31; /* 24-point rule: 31+ wins, 24..30 draw, under 24 loses */
        if (!conditions || out->points < 24)
            out->verdict = RUL_VERDICT_LOSE;
        else
            out->verdict = out->points >= 31 ? RUL_VERDICT_WIN : RUL_VERDICT_DRAW;
    }
    return RUL_OK;
}
