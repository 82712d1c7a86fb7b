/* test_output.c - recorder/output/output.c and review.c: the files of `kifucam record` written while a real
 * game is replayed as observations (kifu files that read back with the same moves, events.jsonl that
 * parses, evidence JPEGs, review.html), and --resume after a crash mid-game. */
#include <CUnit/CUnit.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "recorder/kifu/kifu.h"
#include "recorder/output/output_internal.h"
#include "recorder/tracker/tracker.h"
#include "tests/recorder/tracker/tracker_test_util.h"
#include "tests/tests.h"

static const char *const GAME =
    "position startpos moves 2g2f 8c8d 2f2e 8d8e 7g7f 4a3b 8h7g 3c3d 7i8h 2b7g+ 8h7g 3a2b 6i7h 2b3c 3i3h "
    "7c7d 3g3f 7a6b 4g4f 5a4b 3h4g 1c1d 1g1f 9c9d 9g9f 8a7c 5i6h 6c6d 2i3g 6b6c";

typedef struct {
    rec_out_t *out;
    int errors;
    char msg[256];
} sink_t;

static void after_feed(void *user, rec_trk_t *t, const rec_obs_t *obs) {
    sink_t *s = user;
    if (rec_out_update(s->out, t, obs) != REC_OK && s->errors++ == 0)
        snprintf(s->msg, sizeof s->msg, "%s", rec_out_errmsg(s->out));
}

static int exists(const char *dir, const char *name) {
    char p[4096];
    struct stat st;
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return stat(p, &st) == 0 && st.st_size > 0;
}

static void rm_rf(const char *dir) {
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        printf("could not remove %s\n", dir);
}

/* Records GAME into a fresh folder; returns the tracker (caller destroys) and the folder in dir. With
 * no_evidence, dir/evidence is a file (evidence JPEGs fail to write); *warn then gets the first warning of
 * rec_out_warning and *nwarn how many were given (warn may be NULL). */
static rec_trk_t *record_to(char *dir, size_t size, tt_game_t *g, tt_result_t *r, int with_images,
                            int no_evidence, char *warn, size_t warnsize, int *nwarn, int lost_from,
                            int lost_count);

static rec_trk_t *record(char *dir, size_t size, tt_game_t *g, tt_result_t *r, int with_images) {
    return record_to(dir, size, g, r, with_images, 0, NULL, 0, NULL, 0, 0);
}

typedef struct {
    sink_t *sink;
    char *warn;
    size_t warnsize;
    int nwarn;
} warn_sink_t;

static void after_feed_warn(void *user, rec_trk_t *t, const rec_obs_t *obs) {
    warn_sink_t *w = user;
    after_feed(w->sink, t, obs);
    const char *m = rec_out_warning(w->sink->out);
    if (m[0] && w->nwarn++ == 0 && w->warn)
        snprintf(w->warn, w->warnsize, "%s", m);
}

static rec_trk_t *record_to(char *dir, size_t size, tt_game_t *g, tt_result_t *r, int with_images,
                            int no_evidence, char *warn, size_t warnsize, int *nwarn, int lost_from,
                            int lost_count) {
    static unsigned char px[48 * 64 * 3];
    cap_image_t img = {64, 48, 64 * 3, px};
    tt_stream_params_t sp;
    sink_t sink = {0};
    rec_trk_t *t = NULL;
    char err[256];
    snprintf(dir, size, "/tmp/kifucam-out-XXXXXX");
    if (mkdtemp(dir) == NULL)
        return NULL;
    for (size_t i = 0; i < sizeof px; i++)
        px[i] = (unsigned char)(i * 7);
    TESTS_CHECK(rec_out_open(dir, 80, &sink.out, err, sizeof err) == REC_OK, "open %s: %s", dir, err);
    warn_sink_t ws = {&sink, warn, warnsize, 0};
    if (no_evidence) { /* the evidence folder replaced by a file: every JPEG fails (ENOTDIR), even as root */
        char p[4200];
        snprintf(p, sizeof p, "%s/evidence", dir);
        FILE *f = rmdir(p) == 0 ? fopen(p, "w") : NULL;
        CU_ASSERT_PTR_NOT_NULL_FATAL(f);
        fclose(f);
    }
    tt_game_from_usi(g, GAME);
    tt_stream_params_default(&sp);
    sp.seed = 5;
    sp.blackout_max = 2; /* one move a side hidden: their order is known, the game is one file */
    sp.lost_from = lost_from;
    sp.lost_count = lost_count;
    if (lost_count)
        sp.blackout_rate = 0;
    sp.image = with_images ? &img : NULL;
    sp.after_feed = after_feed_warn;
    sp.user = &ws;
    tt_run(g, &sp, &t, r);
    if (nwarn)
        *nwarn = ws.nwarn;
    TESTS_CHECK(sink.errors == 0, "no output error (%d): %s", sink.errors, sink.msg);
    rec_out_close(sink.out);
    return t;
}

/* Evidence JPEGs that cannot be written (the folder replaced by a file: a full disk fails the same way)
 * do not stop the record: every move is in the kifu files, every event in events.jsonl without
 * evidence names, and one warning says so. */
static void test_evidence_unwritable(void) {
    char dir[256], warn[700] = "", p[4200], line[8192];
    tt_game_t g;
    tt_result_t r;
    int nwarn = 0;
    rec_trk_t *t = record_to(dir, sizeof dir, &g, &r, 1, 1, warn, sizeof warn, &nwarn, 0, 0);
    TESTS_CHECK(r.right == g.nmoves && r.wrong == 0, "moves %d/%d", r.right, g.nmoves);
    TESTS_CHECK(nwarn == 1 && strstr(warn, "evidence frames cannot be written") &&
                    strstr(warn, "/evidence/") && !strstr(warn, "rec_out_"),
                "%d warnings, the first '%s'", nwarn, warn);
    rec_kifu_t *k = NULL;
    rec_kifu_error_t ke;
    snprintf(p, sizeof p, "%s/game.usi", dir);
    TESTS_CHECK(rec_kifu_read_file(p, REC_FMT_UNKNOWN, &k, &ke) == REC_KIFU_OK &&
                    k->lines[0].nmoves == g.nmoves,
                "game.usi holds %d of %d moves", k ? k->lines[0].nmoves : -1, g.nmoves);
    rec_kifu_free(k);
    snprintf(p, sizeof p, "%s/events.jsonl", dir);
    FILE *f = fopen(p, "r");
    int moves = 0, named = 0;
    while (f && fgets(line, sizeof line, f)) {
        moves += strstr(line, "\"type\":\"move\"") != NULL;
        named += strstr(line, "evidence/") != NULL;
    }
    if (f)
        fclose(f);
    TESTS_CHECK(moves == g.nmoves && named == 0, "events.jsonl: %d moves, %d lines naming a frame", moves,
                named);
    rec_trk_destroy(t);
    rm_rf(dir);
}

/* Evidence names carry the move number (and the game after the first); other events their seq. */
static void test_evidence_names(void) {
    rec_trk_event_t e;
    char b[64];
    memset(&e, 0, sizeof e);
    e.type = REC_TEV_MOVE;
    e.game = 1;
    e.ply = 37;
    e.seq = 38;
    rec_out_evidence_name(&e, "after", b, sizeof b);
    CU_ASSERT_STRING_EQUAL(b, "evidence/move-037-after.jpg");
    e.game = 2;
    e.ply = 5;
    rec_out_evidence_name(&e, "before", b, sizeof b);
    CU_ASSERT_STRING_EQUAL(b, "evidence/game2-move-005-before.jpg");
    e.type = REC_TEV_UNCERTAIN;
    rec_out_evidence_name(&e, "after", b, sizeof b);
    CU_ASSERT_STRING_EQUAL(b, "evidence/event-0038-uncertain-after.jpg");
}

static void test_files(void) {
    char dir[256];
    tt_game_t g;
    tt_result_t r;
    rec_trk_t *t = record(dir, sizeof dir, &g, &r, 1);
    TESTS_CHECK(r.right == g.nmoves && r.wrong == 0, "moves %d/%d", r.right, g.nmoves);
    static const char *const F[] = {"game.kif", "game.ki2",     "game.csa",   "game.jkf",
                                    "game.usi", "events.jsonl", "review.html"};
    for (size_t i = 0; i < sizeof F / sizeof F[0]; i++)
        TESTS_CHECK(exists(dir, F[i]), "%s/%s written", dir, F[i]);
    /* every kifu reads back with the game's moves */
    static const char *const K[] = {"game.kif", "game.ki2", "game.csa", "game.jkf", "game.usi"};
    for (size_t i = 0; i < sizeof K / sizeof K[0]; i++) {
        char p[4096];
        rec_kifu_t *k = NULL;
        rec_kifu_error_t ke;
        snprintf(p, sizeof p, "%s/%s", dir, K[i]);
        int rc = rec_kifu_read_file(p, REC_FMT_UNKNOWN, &k, &ke);
        TESTS_CHECK(rc == REC_KIFU_OK, "%s reads: %s", K[i], ke.msg);
        if (rc != REC_KIFU_OK)
            continue;
        int same = k->lines[0].nmoves == g.nmoves;
        for (int m = 0; same && m < g.nmoves; m++)
            same = k->lines[0].moves[m].move == g.moves[m];
        TESTS_CHECK(same, "%s: the game's %d moves (%d read)", K[i], g.nmoves, k->lines[0].nmoves);
        if (i == 0)
            TESTS_CHECK(k->lines[0].moves[5].time_ms >= 0, "%s: times kept (%lld ms)", K[i],
                        (long long)k->lines[0].moves[5].time_ms);
        rec_kifu_free(k);
    }
    /* events.jsonl: one JSON object a line, one per tracker event, with evidence names that exist */
    char p[4096], line[8192];
    snprintf(p, sizeof p, "%s/events.jsonl", dir);
    FILE *f = fopen(p, "r");
    int n = 0, bad = 0, missing = 0, moves = 0;
    while (f && fgets(line, sizeof line, f)) {
        json_error_t je;
        json_t *o = json_loads(line, 0, &je);
        if (!json_is_object(o)) {
            bad++;
            continue;
        }
        n++;
        const char *ty = json_string_value(json_object_get(o, "type"));
        if (ty && !strcmp(ty, "move")) {
            moves++;
            json_t *ev = json_object_get(o, "evidence");
            if (json_array_size(ev) != 2)
                missing++;
            for (size_t k = 0; k < json_array_size(ev); k++)
                missing += !exists(dir, json_string_value(json_array_get(ev, k)));
            /* named by the move's number */
            char want[64];
            snprintf(want, sizeof want, "evidence/move-%03d-after.jpg",
                     (int)json_integer_value(json_object_get(o, "ply")));
            missing +=
                json_array_size(ev) != 2 || strcmp(json_string_value(json_array_get(ev, 1)), want) != 0;
        }
        json_decref(o);
    }
    if (f)
        fclose(f);
    TESTS_CHECK(bad == 0 && n == rec_trk_nevents(t), "events.jsonl: %d objects, %d bad, %d events", n, bad,
                rec_trk_nevents(t));
    TESTS_CHECK(moves == g.nmoves && missing == 0, "%d move lines, %d evidence files missing", moves,
                missing);
    /* review.html: an anchor per move, its frames named by move, the items as data */
    snprintf(p, sizeof p, "%s/review.html", dir);
    f = fopen(p, "r");
    static char page[1 << 20];
    size_t len = f ? fread(page, 1, sizeof page - 1, f) : 0;
    page[len] = '\0';
    if (f)
        fclose(f);
    TESTS_CHECK(strstr(page, "<tr id=\"m1\"") && strstr(page, "href=\"#m1\"") &&
                    strstr(page, "\"a\":\"evidence\\/move-001-after.jpg\"") &&
                    strstr(page, "\"b\":\"evidence\\/move-001-before.jpg\"") &&
                    !strstr(page, "frames missing"),
                "review.html lists moves with anchors and frames");
    /* its data: every event an item; a move's changed squares are its from and to squares */
    const char *d0 = strstr(page, "var D="), *d1 = d0 ? strstr(d0, ";</script>") : NULL;
    json_error_t je;
    json_t *items = d1 ? json_loadb(d0 + 6, (size_t)(d1 - d0 - 6), 0, &je) : NULL;
    int bad_ch = 0;
    for (size_t i = 0; i < json_array_size(items); i++) {
        json_t *it = json_array_get(items, i);
        if (strcmp(json_string_value(json_object_get(it, "k")), "move") == 0)
            bad_ch += json_array_size(json_object_get(it, "ch")) !=
                      (strchr(json_string_value(json_object_get(it, "u")), '*') ? 1u : 2u); /* a drop: 1 */
    }
    TESTS_CHECK(json_array_size(items) == (size_t)rec_trk_nevents(t) && bad_ch == 0,
                "review.html data: %zu items for %d events, %d moves with wrong changed squares",
                json_array_size(items), rec_trk_nevents(t), bad_ch);
    json_decref(items);
    rec_trk_destroy(t);
    rm_rf(dir);
}

/* A crash mid-game: events.jsonl cut after the 12th move, with half a line after it. --resume
 * rebuilds the game (no move lost, none invented) and the recording goes on to the end. */
static void test_resume(void) {
    char dir[256], p[4096], line[8192];
    tt_game_t g;
    tt_result_t r;
    rec_trk_t *t = record(dir, sizeof dir, &g, &r, 0);
    rec_trk_destroy(t);
    snprintf(p, sizeof p, "%s/events.jsonl", dir);
    FILE *f = fopen(p, "r");
    char *keep = calloc(1, 1 << 20);
    size_t klen = 0;
    int moves = 0;
    while (f && fgets(line, sizeof line, f) && moves < 12) {
        if (strstr(line, "\"type\":\"move\""))
            moves++;
        memcpy(keep + klen, line, strlen(line));
        klen += strlen(line);
    }
    if (f && fgets(line, sizeof line, f)) { /* half of the next line: the crash */
        memcpy(keep + klen, line, strlen(line) / 2);
        klen += strlen(line) / 2;
    }
    if (f)
        fclose(f);
    f = fopen(p, "w");
    fwrite(keep, 1, klen, f);
    fclose(f);
    free(keep);
    rec_out_t *out = NULL;
    char err[256];
    int rc = rec_out_resume(dir, NULL, NULL, &t, &out, err, sizeof err);
    TESTS_CHECK(rc == REC_OK, "resume: %s", err);
    if (rc != REC_OK) {
        rm_rf(dir);
        return;
    }
    TESTS_CHECK(rec_trk_game(t)->nply == 12 && rec_trk_state(t) == REC_TRK_PLAYING, "12 moves back (%d)",
                rec_trk_game(t)->nply);
    /* the rest of the game, seen by the resumed recorder (a new process: its clock starts again) */
    rul_pos_t pos = rec_trk_game(t)->pos;
    rec_obs_t *o = calloc(1, sizeof *o);
    int64_t ts = 0;
    for (int m = 12; m < g.nmoves; m++) {
        rul_undo_t u;
        o->view = REC_VIEW_HAND;
        for (int i = 0; i < 2; i++, ts += 100000) {
            o->ts_us = ts;
            rec_trk_feed(t, o, NULL);
            rec_out_update(out, t, o);
        }
        rul_pos_do_move(&pos, g.moves[m], &u);
        rec_obs_from_pos(o, &pos);
        o->view = REC_VIEW_STABLE;
        for (int i = 0; i < 3; i++, ts += 100000) {
            o->ts_us = ts;
            rec_trk_feed(t, o, NULL);
            TESTS_CHECK(rec_out_update(out, t, o) == REC_OK, "update: %s", rec_out_errmsg(out));
        }
    }
    free(o);
    rec_out_close(out);
    rec_trk_destroy(t);
    /* a second crash: the log must still read whole (the cut line was dropped, not written after) */
    rc = rec_out_resume(dir, NULL, NULL, &t, &out, err, sizeof err);
    TESTS_CHECK(rc == REC_OK && rec_trk_game(t)->nply == g.nmoves, "second resume: %s (%d of %d moves)", err,
                rc == REC_OK ? rec_trk_game(t)->nply : -1, g.nmoves);
    if (rc == REC_OK) {
        rec_out_close(out);
        rec_trk_destroy(t);
    }
    rec_kifu_t *k = NULL;
    snprintf(p, sizeof p, "%s/game.usi", dir);
    rc = rec_kifu_read_file(p, REC_FMT_UNKNOWN, &k, NULL);
    int same = rc == REC_KIFU_OK && k->lines[0].nmoves == g.nmoves;
    for (int m = 0; same && m < g.nmoves; m++)
        same = k->lines[0].moves[m].move == g.moves[m];
    TESTS_CHECK(same, "after resume the record has the game's %d moves (%d)", g.nmoves,
                rc == REC_KIFU_OK ? k->lines[0].nmoves : -1);
    rec_kifu_free(k);
    rm_rf(dir);
}

/* An illegal move is kept in the KIF (flagged, with its reason as a comment); formats that cannot
 * write it end at it with the illegal-move result. */
static void test_illegal_kifu(void) {
    rec_trk_t *t = NULL;
    rec_trk_event_t e;
    rec_kifu_t *k = NULL;
    rec_trk_create(NULL, NULL, &t);
    memset(&e, 0, sizeof e);
    e.type = REC_TEV_GAME_START;
    e.game = 1;
    snprintf(e.sfen, sizeof e.sfen, "%s", RUL_SFEN_STARTPOS);
    rec_trk_apply(t, &e);
    static const char *const M[] = {"7g7f", "3c3d", "2h3c"}; /* a rook jumping like a bishop */
    for (int i = 0; i < 3; i++) {
        memset(&e, 0, sizeof e);
        e.type = i < 2 ? REC_TEV_MOVE : REC_TEV_ILLEGAL;
        e.why = RUL_WHY_NOT_A_LEGAL_MOVE;
        e.game = 1;
        e.ply = i + 1;
        e.time_ms = 1000;
        rul_move_from_usi(M[i], &e.move, NULL);
        TESTS_CHECK(rec_trk_apply(t, &e) == REC_OK, "apply %s", M[i]);
    }
    TESTS_CHECK(rec_out_build_kifu(t, 1, &k) == REC_OK && k->lines[0].nmoves == 3 &&
                    (k->lines[0].moves[2].flags & REC_MOVE_ILLEGAL),
                "the illegal move is in the record, flagged");
    rec_kifu_free(k);
    rec_trk_destroy(t);
}

/* kifucam record --start with a move number (a game taken up at move 30): the tracker starts from that
 * position, its game-start event carries the SFEN with 30, and the record built from the events keeps it
 * (game.usi said "... w Bb 1", game.kif numbered the first move 1). */
static void test_start_number(void) {
    tt_game_t g;
    tt_stream_params_t sp;
    tt_result_t r;
    rec_trk_t *t = NULL;
    rec_kifu_t *k = NULL;
    tt_game_from_usi(
        &g, "position sfen l2g3nl/1r1s1kg2/2n1ppsp1/p1pp2p1p/1p5P1/P1P2PP1P/1PSPPSN2/2GK3R1/LN3G2L w Bb 30 "
            "moves 1a1b 1f1e 4b3a");
    tt_stream_params_default(&sp);
    tt_run(&g, &sp, &t, &r);
    TESTS_CHECK(t && r.right == 3, "3 moves recorded (%d)", r.right);
    if (!t)
        return;
    TESTS_CHECK(rec_out_build_kifu(t, 1, &k) == REC_OK, "built");
    char *text = NULL;
    size_t len;
    rec_kifu_error_t e;
    if (k && rec_kifu_write(k, REC_FMT_USI, &text, &len, &e) == REC_KIFU_OK)
        TESTS_CHECK(
            !strcmp(text,
                    "position sfen l2g3nl/1r1s1kg2/2n1ppsp1/p1pp2p1p/1p5P1/P1P2PP1P/1PSPPSN2/2GK3R1/LN3G2L "
                    "w Bb 30 moves 1a1b 1f1e 4b3a\n"),
            "game.usi: %s", text);
    free(text);
    text = NULL;
    if (k && rec_kifu_write(k, REC_FMT_KIF, &text, &len, &e) == REC_KIFU_OK)
        TESTS_CHECK(strstr(text, "手数＝29\n後手番\n") && strstr(text, "  30 １二香(11)") &&
                        strstr(text, "  32 ３一玉(42)"),
                    "game.kif: %s", text);
    free(text);
    rec_kifu_free(k);
    rec_trk_destroy(t);
}

/* A game lost for 8 moves and taken up again (tracker resync_after_us): events.jsonl says game 2
 * continues game 1 (and reads back so), game.kif ends after move 10 with no result and a comment
 * saying the record stops there (written in the same update as game 2's start), game2.kif starts
 * from the position taken up, with a comment saying so, and holds the game's moves from there. */
static void test_taken_up_again(void) {
    char dir[256], p[4200], line[8192];
    tt_game_t g;
    tt_result_t r;
    rec_trk_t *t = record_to(dir, sizeof dir, &g, &r, 0, 0, NULL, 0, NULL, 10, 8);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    rec_trk_destroy(t);
    snprintf(p, sizeof p, "%s/events.jsonl", dir);
    FILE *f = fopen(p, "r");
    int cont = 0, ended = 0;
    while (f && fgets(line, sizeof line, f)) {
        rec_trk_event_t e;
        if (rec_out_event_from_json(line, &e) != 0)
            continue;
        if (e.type == REC_TEV_GAME_START && e.game == 2)
            cont = e.continues;
        if (e.type == REC_TEV_GAME_END && e.game == 1)
            ended = e.ply == 10 && e.reason == RUL_REASON_NONE;
    }
    if (f)
        fclose(f);
    TESTS_CHECK(ended && cont == 1, "events.jsonl: game 1 stops after move 10 (%d), game 2 continues 1 (%d)",
                ended, cont);
    rec_kifu_t *k = NULL;
    snprintf(p, sizeof p, "%s/game.kif", dir);
    int rc = rec_kifu_read_file(p, REC_FMT_UNKNOWN, &k, NULL);
    const char *last = rc == REC_KIFU_OK && k->lines[0].nmoves > 0
                           ? k->lines[0].moves[k->lines[0].nmoves - 1].comment
                           : NULL;
    TESTS_CHECK(rc == REC_KIFU_OK && k->lines[0].nmoves == 10 && last && strstr(last, "stops after move 10"),
                "game.kif: the first 10 moves (%d), the last saying the record stops there (%s)",
                rc == REC_KIFU_OK ? k->lines[0].nmoves : -1, last ? last : "no comment");
    rec_kifu_free(k);
    k = NULL;
    snprintf(p, sizeof p, "%s/game2.kif", dir);
    rc = rec_kifu_read_file(p, REC_FMT_UNKNOWN, &k, NULL);
    int base = -1, same = 0;
    if (rc == REC_KIFU_OK) {
        rul_pos_t q, s2;
        rul_undo_t u;
        rul_pos_from_sfen(&q, g.start_sfen, NULL);
        rul_pos_from_sfen(&s2, k->start_sfen, NULL);
        for (int m = 0; m < g.nmoves && base < 0; m++) {
            rul_pos_do_move(&q, g.moves[m], &u);
            if (q.key == s2.key)
                base = m + 1;
        }
        same = base >= 18 && k->lines[0].nmoves == g.nmoves - base;
        for (int m = 0; same && m < k->lines[0].nmoves; m++)
            same = k->lines[0].moves[m].move == g.moves[base + m];
    }
    TESTS_CHECK(
        same && k->comment && strstr(k->comment, "takes up game 1"),
        "game2.kif: from the position after move %d, the game's moves from there (%d), a comment (%s)", base,
        rc == REC_KIFU_OK ? k->lines[0].nmoves : -1, rc == REC_KIFU_OK && k->comment ? k->comment : "none");
    rec_kifu_free(k);
    rm_rf(dir);
}

/* Who plays where: set on a recorded game's folder (as `record --resume DIR --sente-name ...` does), it
 * is in the headers of every kifu file read back, in meta.json, and kept by the next resume. */
static void test_meta_headers(void) {
    char dir[256], err[256], why[128], p[4200];
    tt_game_t g;
    tt_result_t r;
    rec_trk_t *t = record(dir, sizeof dir, &g, &r, 0);
    rec_trk_destroy(t);
    rec_out_t *out = NULL;
    CU_ASSERT_FATAL(rec_out_resume(dir, NULL, NULL, &t, &out, err, sizeof err) == REC_OK);
    rec_out_meta_t m;
    memset(&m, 0, sizeof m);
    snprintf(m.event, sizeof m.event, "第1回カメラ杯");
    snprintf(m.site, sizeof m.site, "Tokyo, Sendagaya");
    snprintf(m.round, sizeof m.round, "3");
    snprintf(m.board, sizeof m.board, "12");
    snprintf(m.sente, sizeof m.sente, "羽生善治");
    snprintf(m.gote, sizeof m.gote, "Fujii Sota");
    TESTS_CHECK(rec_out_set_meta(out, &m) == REC_OK, "set_meta: %s", rec_out_errmsg(out));
    TESTS_CHECK(rec_out_update(out, t, NULL) == REC_OK, "update: %s", rec_out_errmsg(out));
    rec_out_close(out);
    rec_trk_destroy(t);
    static const char *const F[] = {"game.kif", "game.ki2", "game.csa", "game.jkf", "game.usi"};
    static const char *const K[] = {"棋戦", "場所", "回戦", "盤番号", "先手", "後手"};
    const char *V[] = {m.event, m.site, m.round, m.board, m.sente, m.gote};
    for (size_t f = 0; f < sizeof F / sizeof F[0]; f++) {
        rec_kifu_t *k = NULL;
        snprintf(p, sizeof p, "%s/%s", dir, F[f]);
        int rc = rec_kifu_read_file(p, REC_FMT_UNKNOWN, &k, NULL);
        TESTS_CHECK(rc == REC_KIFU_OK && k->lines[0].nmoves == g.nmoves, "%s: %d moves of %d", F[f],
                    rc == REC_KIFU_OK ? k->lines[0].nmoves : -1, g.nmoves);
        for (size_t h = 0; rc == REC_KIFU_OK && h < sizeof K / sizeof K[0]; h++) {
            const char *v = rec_kifu_header_get(k, K[h]);
            TESTS_CHECK(v && strcmp(v, V[h]) == 0, "%s: %s is '%s', not '%s'", F[f], K[h], v ? v : "(none)",
                        V[h]);
        }
        rec_kifu_free(k);
    }
    snprintf(p, sizeof p, "%s/game.csa", dir); /* CSA's own fields, not comments */
    FILE *cf = fopen(p, "r");
    char csa[8192] = "";
    size_t n = cf ? fread(csa, 1, sizeof csa - 1, cf) : 0;
    csa[n] = '\0';
    if (cf)
        fclose(cf);
    TESTS_CHECK(strstr(csa, "\nN+羽生善治\nN-Fujii Sota\n") && strstr(csa, "\n$EVENT:第1回カメラ杯\n") &&
                    strstr(csa, "\n$SITE:Tokyo, Sendagaya\n"),
                "game.csa: %.300s", csa);
    /* a later resume keeps it (from meta.json); a field given then replaces only that field */
    CU_ASSERT_FATAL(rec_out_resume(dir, NULL, NULL, &t, &out, err, sizeof err) == REC_OK);
    TESTS_CHECK(strcmp(rec_out_meta(out)->gote, "Fujii Sota") == 0 &&
                    strcmp(rec_out_meta(out)->board, "12") == 0,
                "resumed meta: gote '%s', board '%s'", rec_out_meta(out)->gote, rec_out_meta(out)->board);
    rec_out_meta_t m2;
    memset(&m2, 0, sizeof m2);
    snprintf(m2.gote, sizeof m2.gote, "藤井聡太");
    CU_ASSERT(rec_out_set_meta(out, &m2) == REC_OK);
    rec_out_close(out);
    rec_trk_destroy(t);
    rec_out_meta_t back;
    CU_ASSERT(rec_out_meta_load(dir, &back) == REC_OK);
    TESTS_CHECK(strcmp(back.gote, "藤井聡太") == 0 && strcmp(back.sente, "羽生善治") == 0 &&
                    strcmp(back.event, "第1回カメラ杯") == 0,
                "meta.json: sente '%s' gote '%s' event '%s'", back.sente, back.gote, back.event);
    /* values that cannot be written: said why */
    CU_ASSERT(rec_out_meta_check("Board\n5", why, sizeof why) == -1 && strstr(why, "control character"));
    CU_ASSERT(rec_out_meta_check("\xF0\x9F\x98\x80", why, sizeof why) == -1 && strstr(why, "Shift_JIS"));
    CU_ASSERT(rec_out_meta_check("\xE6\x97", why, sizeof why) == -1);
    char longv[REC_META_LEN + 2];
    memset(longv, 'a', sizeof longv - 1);
    longv[sizeof longv - 1] = '\0';
    CU_ASSERT(rec_out_meta_check(longv, why, sizeof why) == -1 && strstr(why, "200 bytes"));
    CU_ASSERT(rec_out_meta_check(longv + 1, NULL, 0) == 0);
    CU_ASSERT(rec_out_meta_check("先手 Ａ-1", NULL, 0) == 0);
    rm_rf(dir);
}

int tests_register_output(void) {
    CU_pSuite s = CU_add_suite("output", NULL, NULL);
    if (s == NULL)
        return -1;
    if (!CU_add_test(s, "files of a recorded game", test_files) ||
        !CU_add_test(s, "evidence named by move number", test_evidence_names) ||
        !CU_add_test(s, "resume after a crash", test_resume) ||
        !CU_add_test(s, "evidence that cannot be written: the record goes on", test_evidence_unwritable) ||
        !CU_add_test(s, "illegal move in the kifu", test_illegal_kifu) ||
        !CU_add_test(s, "a game from --start keeps the start's move number", test_start_number) ||
        !CU_add_test(s, "a game lost for 8 moves and taken up again: game2 files", test_taken_up_again) ||
        !CU_add_test(s, "who plays where in every kifu file's headers", test_meta_headers))
        return -1;
    return 0;
}
