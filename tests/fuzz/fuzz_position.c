/* fuzz_position.c - libFuzzer harness for the position parsers: SFEN (rul_pos_from_sfen, as
 * `--start`, `--sfen` and every reader's start take it), one USI move (rul_move_from_usi, as
 * events.jsonl's "move" is read) and a USI "position ... moves ..." line (rec_replay_usi, as
 * `kifucam replay` reads it). The first byte picks the parser, the rest is the text (cut at a NUL).
 * What parses is checked: an SFEN is validated, written back and read again to the same position,
 * and its legal moves are made and taken back; a move is judged on the position of the first SFEN
 * seed; a replayed line is written as JSON and text. A disagreement aborts (a finding, like a crash). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recorder/kifu/replay.h"
#include "rules/rules.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The text after the selector byte, NUL-terminated (a NUL inside ends it: the parsers take C strings). */
static char *text_of(const uint8_t *data, size_t size) {
    char *s = malloc(size);
    if (s == NULL)
        return NULL;
    memcpy(s, data + 1, size - 1);
    s[size - 1] = '\0';
    return s;
}

static void check_sfen(const char *s) {
    rul_pos_t pos, back;
    rul_error_t err;
    if (rul_pos_from_sfen(&pos, s, &err) != RUL_OK)
        return;
    rul_pos_validate(&pos, RUL_VALIDATE_BOTH_KINGS, &err);
    char out[160];
    if (rul_pos_to_sfen(&pos, out, sizeof out) != RUL_OK)
        abort(); /* 128 bytes always fit (rules.h) */
    if (rul_pos_from_sfen(&back, out, &err) != RUL_OK || !rul_pos_same(&pos, &back) || back.ply != pos.ply)
        abort(); /* what we write must read back as the same position */
    if (rul_pos_validate(&pos, RUL_VALIDATE_BOTH_KINGS, NULL) != RUL_VALID)
        return; /* moves of an impossible position are not asked for */
    rul_movelist_t list;
    rul_gen_legal(&pos, &list);
    for (int i = 0; i < list.count; i++) {
        rul_undo_t u;
        uint64_t key = pos.key;
        rul_pos_do_move(&pos, list.moves[i], &u);
        rul_pos_undo_move(&pos, &u);
        if (pos.key != key)
            abort(); /* a move taken back leaves the position as it was */
    }
    rul_pos_is_mate(&pos);
}

static void check_move(const char *s) {
    rul_move_t m;
    rul_error_t err;
    if (rul_move_from_usi(s, &m, &err) != RUL_OK)
        return;
    char usi[6];
    rul_move_to_usi(m, usi);
    rul_pos_t pos;
    rul_pos_from_sfen(&pos, RUL_SFEN_STARTPOS, NULL);
    if (rul_is_legal(&pos, m)) {
        rul_undo_t u;
        rul_pos_do_move(&pos, m, &u);
    } else {
        rul_why_illegal(&pos, m);
    }
}

static void check_line(const char *s) {
    static rec_replay_t *r; /* about 940 KB: made once */
    if (r == NULL && rec_replay_create(&r) != REC_OK)
        abort();
    rec_error_t err;
    if (rec_replay_usi(r, s, NULL, &err) != REC_OK)
        return;
    FILE *null = fopen("/dev/null", "w");
    if (null == NULL)
        return;
    rec_replay_write_json(r, null);
    rec_replay_write_text(r, null);
    fclose(null);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1)
        return 0;
    char *s = text_of(data, size);
    if (s == NULL)
        return 0;
    switch (data[0] % 3) {
    case 0: check_sfen(s); break;
    case 1: check_move(s); break;
    default: check_line(s); break;
    }
    free(s);
    return 0;
}
