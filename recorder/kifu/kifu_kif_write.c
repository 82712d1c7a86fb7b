/* kifu_kif_write.c - KIF and KI2 writer (Kakinoki KIF; KI2 relative moves per the JSA notation page):
 * headers, board diagrams, moves, times, comments, bookmarks, variations, terminal words and the
 * "まで…" trailer. The reader: kifu_kif.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recorder/kifu/kifu_internal.h"

/* ---------------------------------------------------------------- writing */
static void put_hand(rec_kx_sb_t *sb, const rul_pos_t *p, int c) {
    static const rul_type_t order[7] = {RUL_ROOK,   RUL_BISHOP, RUL_GOLD, RUL_SILVER,
                                        RUL_KNIGHT, RUL_LANCE,  RUL_PAWN};
    int any = 0;
    for (int i = 0; i < 7; i++) {
        int n = rul_pos_hand(p, (rul_color_t)c, (rul_type_t)order[i]);
        if (!n)
            continue;
        any = 1;
        rec_kx_sb_puts(sb, rec_kx_ja_piece_name(order[i]));
        if (n > 1)
            rec_kx_sb_puts(sb, rec_kx_kanji_digit[n > 18 ? 18 : n]);
        rec_kx_sb_puts(sb, "　");
    }
    if (!any)
        rec_kx_sb_puts(sb, "なし");
    rec_kx_sb_puts(sb, "\n");
}

/* The board diagram; off > 0: the moves played before it, as BOD's caption "手数＝N" (Kakinoki's KIF
 * diagram) between the hands and the side to move, which numbers the first move N+1. */
static void put_board(rec_kx_sb_t *sb, const rul_pos_t *p, int hc, int off) {
    static const char *const one[RUL_TYPE_NB] = {"・", "歩", "香", "桂", "銀", "角", "飛", "金",
                                                 "玉", "と", "杏", "圭", "全", "馬", "龍"};
    rec_kx_sb_puts(sb, hc ? "上手の持駒：" : "後手の持駒：");
    put_hand(sb, p, 1);
    rec_kx_sb_puts(sb, "  ９ ８ ７ ６ ５ ４ ３ ２ １\n+---------------------------+\n");
    for (int r = 1; r <= 9; r++) {
        rec_kx_sb_puts(sb, "|");
        for (int f = 9; f >= 1; f--) {
            rul_piece_t pc = rul_pos_piece_at(p, RUL_SQ(f, r));
            rec_kx_sb_puts(sb, pc != RUL_PIECE_NONE && RUL_PIECE_COLOR(pc) == RUL_GOTE ? "v" : " ");
            rec_kx_sb_puts(sb, one[RUL_PIECE_TYPE(pc)]);
        }
        rec_kx_sb_printf(sb, "|%s\n", rec_kx_kanji_digit[r]);
    }
    rec_kx_sb_puts(sb, "+---------------------------+\n");
    rec_kx_sb_puts(sb, hc ? "下手の持駒：" : "先手の持駒：");
    put_hand(sb, p, 0);
    if (off > 0)
        rec_kx_sb_printf(sb, "手数＝%d\n", off);
    if (p->side == RUL_GOTE)
        rec_kx_sb_puts(sb, hc ? "上手番\n" : "後手番\n");
}

static void put_comment(rec_kx_sb_t *sb, const char *c) {
    while (c) { /* every line, an empty last one included */
        const char *e = strchr(c, '\n');
        size_t n = e ? (size_t)(e - c) : strlen(c);
        rec_kx_sb_puts(sb, "*");
        rec_kx_sb_putn(sb, c, n);
        rec_kx_sb_puts(sb, "\n");
        c = e ? e + 1 : NULL;
    }
}

static void put_time(rec_kx_sb_t *sb, int64_t t, int64_t tot) {
    if (t == REC_TIME_NONE)
        return;
    long s = (long)(t / 1000), T = tot == REC_TIME_NONE ? 0 : (long)(tot / 1000);
    rec_kx_sb_printf(sb, "   (%2ld:%02ld/%02ld:%02ld:%02ld)", s / 60, s % 60, T / 3600, (T / 60) % 60,
                     T % 60);
}

/* KIF move text: "７六歩(77)", "同　歩(23)", "５五角打", "２二角成(88)". */
static void kif_move_text(const rul_pos_t *pos, rul_move_t m, int prev_to, char *buf, size_t size) {
    int to = RUL_MOVE_TO(m);
    rul_type_t t = rec_kx_move_type(pos, m);
    char sq[32];
    const char *name = rec_kx_ja_piece_name(t);
    if (to == prev_to)
        snprintf(sq, sizeof sq, strlen(name) > 3 ? "同" : "同　");
    else
        snprintf(sq, sizeof sq, "%s%s", rec_kx_fw_digit[RUL_SQ_FILE(to)],
                 rec_kx_kanji_digit[RUL_SQ_RANK(to)]);
    if (RUL_MOVE_IS_DROP(m)) {
        snprintf(buf, size, "%s%s打", sq, name);
        return;
    }
    int from = RUL_MOVE_FROM(m);
    /* the origin says it all: no 不成 (Kifu for Windows and tsshogi read "角不成(22)" as a terminal) */
    const char *pr = RUL_MOVE_IS_PROMO(m) ? "成" : "";
    snprintf(buf, size, "%s%s%s(%d%d)", sq, name, pr, RUL_SQ_FILE(from), RUL_SQ_RANK(from));
}

static const char *side_name(int gote, int hc) {
    return gote ? (hc ? "上手" : "後手") : (hc ? "下手" : "先手");
}

static void put_trailer(rec_kx_sb_t *sb, rec_end_t e, int nmoves, int stm_gote, int hc) {
    const char *w = side_name(!stm_gote, hc), *s = side_name(stm_gote, hc);
    switch (e) {
    case REC_END_NONE: return;
    case REC_END_RESIGN: rec_kx_sb_printf(sb, "まで%d手で%sの勝ち\n", nmoves, w); break;
    case REC_END_TIME_UP: rec_kx_sb_printf(sb, "まで%d手で時間切れにより%sの勝ち\n", nmoves, w); break;
    case REC_END_ILLEGAL_WIN: rec_kx_sb_printf(sb, "まで%d手で%sの反則勝ち\n", nmoves, s); break;
    case REC_END_ILLEGAL_LOSS: rec_kx_sb_printf(sb, "まで%d手で%sの反則負け\n", nmoves, s); break;
    case REC_END_KACHI: rec_kx_sb_printf(sb, "まで%d手で%sの入玉勝ち\n", nmoves, s); break;
    case REC_END_SENNICHITE: rec_kx_sb_printf(sb, "まで%d手で千日手\n", nmoves); break;
    case REC_END_JISHOGI: rec_kx_sb_printf(sb, "まで%d手で持将棋\n", nmoves); break;
    case REC_END_ABORT: rec_kx_sb_printf(sb, "まで%d手で中断\n", nmoves); break;
    case REC_END_MATE: rec_kx_sb_printf(sb, "まで%d手で詰み\n", nmoves); break;
    default: rec_kx_sb_printf(sb, "まで%d手で%s\n", nmoves, rec_kx_end_to_kif(e)); break;
    }
}

/* Children of line `l`, ordered by start ply descending then index (the order KIF readers expect). */
static int children(const rec_kifu_t *k, int l, int *out) {
    int n = 0;
    for (int i = 1; i < k->nlines; i++)
        if (k->lines[i].parent == l)
            out[n++] = i;
    for (int i = 1; i < n; i++) {
        int v = out[i], j = i;
        while (j > 0 && k->lines[out[j - 1]].start_ply < k->lines[v].start_ply)
            out[j] = out[j - 1], j--;
        out[j] = v;
    }
    return n;
}

/* KI2 names a move by its destination and a relative word (右 左 直 上 引 寄), never by its origin (JSA
 * notation page), so an illegal move has no KI2 form: its text would name another, legal move (7g6f as
 * "６六歩左", read back 6g6f) or none. The KI2 writer ends a line before its first illegal move. Returns
 * the index in line l of its first move that can be made but is not legal, or nmoves (none; a move that
 * cannot be made at all is the writer's error, as in every format), -1 when the line's position cannot
 * be rebuilt; *before (may be NULL) gets the position before that move. */
static int ki2_cut(const rec_kifu_t *k, int l, rul_pos_t *before) {
    const rec_kifu_line_t *L = &k->lines[l];
    rul_pos_t pos;
    if (rec_kifu_position_at(k, l, L->start_ply, &pos))
        return -1;
    int i;
    for (i = 0; i < L->nmoves; i++) {
        rul_move_t m = L->moves[i].move;
        if (!rec_kx_move_playable(&pos, m))
            return L->nmoves;
        if (!rul_is_legal(&pos, m))
            break;
        rul_undo_t u;
        rul_pos_do_move(&pos, m, &u);
    }
    if (before)
        *before = pos;
    return i;
}

/* Japanese name of why a move is illegal, for the KI2 comment (FESA 3.11 (a)-(c), 1.2, 3.2). */
static const char *why_ja(const rul_pos_t *pos, rul_move_t m) {
    switch (rul_why_illegal(pos, m)) {
    case RUL_WHY_NIFU: return "二歩";
    case RUL_WHY_PAWN_DROP_MATE: return "打ち歩詰め";
    case RUL_WHY_LEAVES_KING_IN_CHECK: return rul_pos_in_check(pos) ? "王手放置" : "自玉を王手にさらす手";
    case RUL_WHY_NO_FURTHER_MOVE: return "行き所のない駒";
    default: return "指せない手";
    }
}

/* The comment the KI2 writer puts where a line ends before its illegal move at index `cut` (pos: the
 * position before it; off as write_line's): "1手目の▲６六歩(77)は反則手（指せない手）", then
 * "以降のN手は省略" when moves followed it. */
static void ki2_cut_note(const rec_kifu_line_t *L, int cut, const rul_pos_t *pos, int off, char *buf,
                         size_t size) {
    char kt[96];
    kif_move_text(pos, L->moves[cut].move, -1, kt, sizeof kt);
    int n = snprintf(buf, size, "%d手目の%s%sは反則手（%s）", L->start_ply + cut + off, pos->side ? "△" : "▲",
                     kt, why_ja(pos, L->moves[cut].move));
    if (L->nmoves - cut > 1 && n > 0 && (size_t)n < size)
        snprintf(buf + n, size - (size_t)n, "\n以降の%d手は省略", L->nmoves - cut - 1);
}

/* Writes line l and its variations; off: moves played before the start (a move's number is ply + off). */
static int write_line(const rec_kifu_t *k, int l, int ki2, int hc, int off, rec_kx_sb_t *sb,
                      rec_kifu_error_t *err, int depth) {
    const rec_kifu_line_t *L = &k->lines[l];
    rul_pos_t pos;
    if (depth > 200)
        return REC_KIFU_OK;
    int rc = rec_kifu_position_at(k, l, L->start_ply, &pos);
    if (rc) {
        rec_kx_err(err, 0, 0, "line %d: cannot rebuild its position", l);
        return rc;
    }
    int prev_to = -1;
    rul_move_t pm;
    if (L->start_ply > 1 && rec_kx_move_at(k, l, L->start_ply - 1, &pm))
        prev_to = RUL_MOVE_TO(pm);
    if (l > 0) {
        rec_kx_sb_printf(sb, "\n変化：%d手\n", L->start_ply + off);
        put_comment(sb, L->comment);
    }
    int col_n = 0,
        cut = ki2 ? ki2_cut(k, l, NULL) : L->nmoves; /* KI2: the line ends before an illegal move */
    if (cut < 0)
        cut = L->nmoves;
    for (int i = 0; i < cut; i++) {
        const rec_kifu_move_t *mv = &L->moves[i];
        char buf[96];
        int ply = L->start_ply + i;
        if (!rec_kx_move_playable(&pos, mv->move)) {
            rec_kx_err(err, 0, 0, "line %d move %d cannot be written", l, ply);
            return REC_KIFU_EMOVE;
        }
        if (ki2) {
            if (rec_kifu_move_to_ki2(&pos, mv->move, prev_to, buf, sizeof buf))
                return REC_KIFU_EMOVE;
            rec_kx_sb_puts(sb, pos.side == RUL_GOTE ? "△" : "▲");
            rec_kx_sb_puts(sb, buf);
            col_n++;
            if (mv->comment || mv->bookmark || col_n == 6 || i == cut - 1) {
                rec_kx_sb_puts(sb, "\n");
                col_n = 0;
            } else {
                int w = rec_kx_u8_cols(buf, strlen(buf));
                for (int s = w; s < 6; s++)
                    rec_kx_sb_puts(sb, "　");
            }
        } else {
            kif_move_text(&pos, mv->move, prev_to, buf, sizeof buf);
            rec_kx_sb_printf(sb, "%4d %s", ply + off, buf);
            put_time(sb, mv->time_ms, mv->total_ms);
            rec_kx_sb_puts(sb, "\n");
        }
        if (mv->bookmark)
            rec_kx_sb_printf(sb, "&%s\n", mv->bookmark);
        put_comment(sb, mv->comment);
        rul_undo_t u;
        rul_pos_do_move(&pos, mv->move, &u);
        prev_to = RUL_MOVE_TO(mv->move);
    }
    if (cut < L->nmoves) {
        /* the mover of the illegal move loses (FESA 9.4): "まで0手で先手の反則負け", which readers (ours,
           tsshogi) take as the side to move's loss; the comment names the move in KIF notation */
        char note[320];
        ki2_cut_note(L, cut, &pos, off, note, sizeof note);
        put_comment(sb, note);
        put_trailer(sb, REC_END_ILLEGAL_LOSS, L->start_ply + cut - 1 + off, pos.side == RUL_GOTE, hc);
    } else if (L->end != REC_END_NONE) {
        const char *w = rec_kx_end_to_kif(L->end);
        if (!ki2 && w) {
            rec_kx_sb_printf(sb, "%4d %s", L->start_ply + L->nmoves + off, w);
            if (L->end_time_ms != REC_TIME_NONE)
                put_time(sb, L->end_time_ms, REC_TIME_NONE);
            rec_kx_sb_puts(sb, "\n");
        }
        if (l == 0 || ki2)
            put_trailer(sb, L->end, L->start_ply + L->nmoves - 1 + off, pos.side == RUL_GOTE, hc);
    }
    int ch[256];
    int n = children(k, l, ch);
    for (int i = 0; i < n && i < 256; i++) {
        if (k->lines[ch[i]].start_ply >= L->start_ply + cut && cut < L->nmoves)
            continue; /* after the cut */
        rc = write_line(k, ch[i], ki2, hc, off, sb, err, depth + 1);
        if (rc)
            return rc;
    }
    return REC_KIFU_OK;
}

int rec_kx_write_kif(const rec_kifu_t *k, int ki2, rec_kx_sb_t *sb, rec_kifu_error_t *err) {
    rul_pos_t start;
    rul_error_t e;
    if (rul_pos_from_sfen(&start, k->start_sfen, &e)) {
        rec_kx_err(err, 0, 0, "bad start position: %s", e.msg);
        return REC_KIFU_EPARSE;
    }
    int hc = k->handicap > RUL_HC_EVEN;
    if (!ki2)
        rec_kx_sb_puts(sb, "#KIF version=2.0 encoding=UTF-8\n");
    int wrote_hc = 0;
    for (int i = 0; i < k->nheaders; i++) {
        const char *key = k->headers[i].key, *v = k->headers[i].value;
        if (!strcmp(key, "手合割") && k->handicap >= 0) {
            rul_handicap_t h;
            char vv[128];
            snprintf(vv, sizeof vv, "%s", v);
            rec_kx_rstrip(vv);
            if (rul_handicap_from_name(vv, &h) != RUL_OK || (int)h != k->handicap) {
                rul_handicap_info_t info;
                rul_handicap_info((rul_handicap_t)k->handicap, &info);
                v = info.name_ja;
            }
            wrote_hc = 1;
        }
        rec_kx_sb_printf(sb, "%s：%s\n", key, v);
    }
    if (k->handicap >= 0 && !wrote_hc) {
        rul_handicap_info_t info;
        rul_handicap_info((rul_handicap_t)k->handicap, &info);
        rec_kx_sb_printf(sb, "手合割：%s\n", info.name_ja);
    }
    /* a game taken up at move off+1: 手数＝off (the moves before the diagram), the moves numbered from off+1
     */
    int off = start.ply - 1;
    if (k->handicap < 0)
        put_board(sb, &start, 0, off);
    else if (off > 0)
        rec_kx_sb_printf(sb, "手数＝%d\n", off);
    put_comment(sb, k->comment);
    if (!ki2)
        rec_kx_sb_puts(sb, "手数----指手---------消費時間--\n");
    return write_line(k, 0, ki2, hc, off, sb, err, 0);
}

/* Walks the lines the KI2 writer writes (write_line's order), counting those it ends before an illegal
 * move (*ncut) and the variations it leaves out after such an end (*nskip); msg names the first cut. */
static void cuts_walk(const rec_kifu_t *k, int l, int hc, int off, int depth, int *ncut, int *nskip,
                      char *msg, size_t size) {
    const rec_kifu_line_t *L = &k->lines[l];
    rul_pos_t pos;
    if (depth > 200)
        return;
    int cut = ki2_cut(k, l, &pos);
    if (cut < 0)
        return;
    if (cut < L->nmoves && (*ncut)++ == 0) {
        rul_move_t m = L->moves[cut].move;
        char kt[96], usi[8];
        kif_move_text(&pos, m, -1, kt, sizeof kt);
        rul_move_to_usi(m, usi);
        char later[96] = "";
        if (L->nmoves - cut > 1)
            snprintf(later, sizeof later,
                     "; %d later move%s left out (KIF, CSA, JKF, USI and Western keep them)",
                     L->nmoves - cut - 1, L->nmoves - cut > 2 ? "s" : "");
        snprintf(msg, size,
                 "move %d %s%s (%s)%s is illegal (%s) and KI2 cannot state its origin: the moves end before "
                 "it with "
                 "the mover's loss (まで%d手で%sの反則負け) and a comment naming it%s",
                 L->start_ply + cut + off, pos.side ? "△" : "▲", kt, usi, l ? " in a variation" : "",
                 rul_why_name(rul_why_illegal(&pos, m)), L->start_ply + cut - 1 + off,
                 side_name(pos.side == RUL_GOTE, hc), later);
    }
    int ch[256];
    int n = children(k, l, ch);
    for (int i = 0; i < n && i < 256; i++) {
        if (k->lines[ch[i]].start_ply >= L->start_ply + cut && cut < L->nmoves)
            (*nskip)++;
        else
            cuts_walk(k, ch[i], hc, off, depth + 1, ncut, nskip, msg, size);
    }
}

int rec_kifu_write_cuts(const rec_kifu_t *k, rec_format_t fmt, char *msg, size_t size) {
    if (msg && size)
        msg[0] = 0;
    if (!k || !msg || size == 0 || fmt != REC_FMT_KI2)
        return 0;
    int ncut = 0, nskip = 0;
    cuts_walk(k, 0, k->handicap > RUL_HC_EVEN, rec_kifu_start_number(k) - 1, 0, &ncut, &nskip, msg, size);
    size_t len = strlen(msg);
    if (ncut + nskip > 1 && len < size)
        snprintf(msg + len, size - len, "; %d more line%s ended or left out the same way", ncut + nskip - 1,
                 ncut + nskip > 2 ? "s" : "");
    return ncut + nskip;
}
