/* output.c - the files of `kifucam record` (DESIGN.md "Outputs of record"): events.jsonl (appended,
 * fsync'd), game.kif .ki2 .csa .jkf .usi (rewritten atomically after every move), evidence JPEGs,
 * review.html (recorder/review.c), and --resume from events.jsonl. Owns its folder path, a JPEG codec
 * and copies of the last stable frames. */
#include "recorder/output/output_internal.h"
#include "recorder/kifu/kifu_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct rec_out {
    char dir[3072];
    int quality;
    int written;          /* events of the tracker already in events.jsonl */
    cap_codec_t *codec;   /* created on the first frame */
    rec_out_frame_t prev; /* last stable frame before the current stable view */
    rec_out_frame_t cur;  /* last stable frame of the current view */
    char err[512];
    char warn[600];       /* rec_out_warning: evidence that could not be written */
    int warn_pending;     /* 1 until rec_out_warning has given warn */
    int evidence_failing; /* 1 while evidence JPEGs fail (one warning when they start failing) */
    rec_out_geom_t *geom; /* [seq]: where the board lies in that event's frames (review.html) */
    int ngeom;            /* entries allocated at geom */
    struct refill {       /* rec_out_refill: evidence frames of logged events that are missing */
        char ref[96];     /* the frame's evidence_ref */
        char name[64];    /* its evidence name */
    } * refill;
    int nrefill;         /* entries at refill, -1 before the log was looked through */
    rec_out_meta_t meta; /* the game's metadata (rec_out_set_meta), all "" when none */
    int meta_dirty;      /* 1: the kifu files are rewritten with it at the next rec_out_update */
};

/* Records g for event seq, growing o->geom. 0, or -1 out of memory. */
static int geom_set(rec_out_t *o, int seq, const rec_out_geom_t *g) {
    if (seq < 0)
        return 0;
    if (seq >= o->ngeom) {
        int n = o->ngeom ? o->ngeom : 64;
        while (n <= seq)
            n *= 2;
        rec_out_geom_t *p = realloc(o->geom, (size_t)n * sizeof *p);
        if (p == NULL)
            return -1;
        memset(p + o->ngeom, 0, (size_t)(n - o->ngeom) * sizeof *p);
        o->geom = p;
        o->ngeom = n;
    }
    o->geom[seq] = *g;
    return 0;
}

static int fail(rec_out_t *o, int rc, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(o->err, sizeof o->err, fmt, ap);
    va_end(ap);
    return rc;
}

const char *rec_out_errmsg(const rec_out_t *o) { return o ? o->err : "out of memory"; }

int rec_out_logged(const rec_out_t *o) { return o ? o->written : 0; }

/* ---------------------------------------------------------------- files */

static int mkdir_p(const char *path) {
    char buf[3072];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(buf, 0777) != 0 && errno != EEXIST)
            return -1;
        *p = '/';
    }
    return mkdir(buf, 0777) != 0 && errno != EEXIST ? -1 : 0;
}

static int fsync_path(const char *path, int dir) {
    int fd = open(path, dir ? O_RDONLY | O_DIRECTORY : O_RDONLY);
    if (fd < 0)
        return -1;
    int rc = fsync(fd);
    close(fd);
    return rc;
}

int rec_out_write_atomic(const char *dir, const char *name, const char *data, size_t len) {
    char path[4096], tmp[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    snprintf(tmp, sizeof tmp, "%s/.%s.tmp", dir, name);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    if (fd < 0)
        return -1;
    size_t off = 0;
    while (off < len) {
        ssize_t n = write(fd, data + off, len - off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            close(fd);
            return -1;
        }
        off += (size_t)n;
    }
    if (fsync(fd) != 0 || close(fd) != 0 || rename(tmp, path) != 0)
        return -1;
    return fsync_path(dir, 1);
}

/* ---------------------------------------------------------------- events as JSON */

static json_t *event_json(const rec_trk_event_t *e, const char *ev_before, const char *ev_after,
                          const rec_out_geom_t *g) {
    json_t *o = json_object(), *cands = json_array(), *evid = json_array();
    json_object_set_new(o, "seq", json_integer(e->seq));
    json_object_set_new(o, "type", json_string(rec_trk_event_name(e->type)));
    json_object_set_new(o, "game", json_integer(e->game));
    json_object_set_new(o, "ply", json_integer(e->ply));
    json_object_set_new(o, "ts_us", json_integer(e->ts_us));
    if (e->move != RUL_MOVE_NONE) {
        json_object_set_new(o, "move", json_string(e->usi));
        json_object_set_new(o, "notation", json_string(e->notation));
        json_object_set_new(o, "mover", json_string(e->mover == RUL_SENTE ? "sente" : "gote"));
    }
    if (e->time_ms != REC_TIME_NONE)
        json_object_set_new(o, "time_ms", json_integer(e->time_ms));
    if (e->type == REC_TEV_ILLEGAL)
        json_object_set_new(o, "why", json_string(rec_trk_why_name(e->why)));
    if (e->hidden)
        json_object_set_new(o, "hidden", json_true());
    if (e->order_ambiguous)
        json_object_set_new(o, "order_ambiguous", json_true());
    if (e->late)
        json_object_set_new(o, "late", json_true());
    if (e->damaged)
        json_object_set_new(o, "damaged", json_true());
    json_object_set_new(o, "confidence", json_real(e->confidence > 1e6 ? 1e6 : e->confidence));
    json_object_set_new(o, "fit", json_real(e->fit));
    for (int i = 0; i < e->ncand; i++) {
        json_t *c = json_object();
        char ms[40] = "";
        size_t len = 0;
        for (int j = 0; j < e->cand[i].nmoves; j++) {
            char u[6];
            rul_move_to_usi(e->cand[i].moves[j], u);
            len += (size_t)snprintf(ms + len, sizeof ms - len, "%s%s", j ? " " : "", u);
        }
        static const char *const kinds[] = {"none", "legal", "illegal", "wrong_side", "start"};
        json_object_set_new(c, "moves", json_string(ms));
        json_object_set_new(c, "kind", json_string(kinds[e->cand[i].kind % 5]));
        json_object_set_new(c, "cost", json_real(e->cand[i].cost));
        json_array_append_new(cands, c);
    }
    json_object_set_new(o, "candidates", cands);
    if (e->type == REC_TEV_GAME_END) {
        json_object_set_new(o, "winner", json_string(rec_winner_name((rec_winner_t)e->winner)));
        json_object_set_new(o, "reason", json_string(rul_reason_name((rul_reason_t)e->reason)));
    }
    if (e->type == REC_TEV_SETUP_ERROR && e->handicap >= 0)
        json_object_set_new(o, "handicap", json_integer(e->handicap));
    if (e->type == REC_TEV_GAME_START) {
        json_object_set_new(o, "handicap", json_integer(e->handicap));
        json_object_set_new(o, "colours_reversed", json_boolean(e->colours_reversed));
        if (e->continues)
            json_object_set_new(o, "continues", json_integer(e->continues));
    }
    json_object_set_new(o, "sfen", json_string(e->sfen));
    json_object_set_new(o, "detail", json_string(e->detail));
    json_object_set_new(o, "ref_before", json_string(e->ref_before));
    json_object_set_new(o, "ref_after", json_string(e->ref_after));
    if (ev_before && ev_before[0])
        json_array_append_new(evid, json_string(ev_before));
    if (ev_after && ev_after[0])
        json_array_append_new(evid, json_string(ev_after));
    json_object_set_new(o, "evidence", evid);
    if (g && g->known) {
        json_t *px = json_array();
        for (int i = 0; i < 8; i++)
            json_array_append_new(px, json_real((double)(int)(g->px[i / 2][i % 2] * 10 + 0.5f) / 10));
        json_array_append_new(px, json_integer(g->width));
        json_array_append_new(px, json_integer(g->height));
        json_object_set_new(o, "board_px", px);
    }
    return o;
}

static int name_index(const char *s, const char *(*name)(int), int n) {
    for (int i = 0; i < n; i++)
        if (s && !strcmp(s, name(i)))
            return i;
    return -1;
}
static const char *winner_name_i(int i) { return rec_winner_name((rec_winner_t)i); }
static const char *reason_name_i(int i) { return rul_reason_name((rul_reason_t)i); }
static const char *why_name_i(int i) { return rec_trk_why_name(i == 6 ? REC_WHY_TWO_IN_A_ROW : i); }

void rec_out_geom_from_json(const char *line, rec_out_geom_t *g) {
    json_error_t je;
    json_t *o = json_loads(line, 0, &je), *px = json_object_get(o, "board_px");
    memset(g, 0, sizeof *g);
    if (json_array_size(px) == 10) {
        for (int i = 0; i < 8; i++)
            g->px[i / 2][i % 2] = (float)json_number_value(json_array_get(px, (size_t)i));
        g->width = (int)json_integer_value(json_array_get(px, 8));
        g->height = (int)json_integer_value(json_array_get(px, 9));
        g->known = g->width > 0 && g->height > 0;
    }
    json_decref(o);
}

int rec_out_event_from_json(const char *line, rec_trk_event_t *e) {
    json_error_t je;
    json_t *o = json_loads(line, 0, &je);
    const char *s;
    int rc = -1;
    memset(e, 0, sizeof *e);
    e->time_ms = REC_TIME_NONE;
    e->winner = REC_WINNER_NONE;
    e->handicap = -1;
    if (!json_is_object(o))
        goto out;
    e->type = name_index(json_string_value(json_object_get(o, "type")), rec_trk_event_name, REC_TEV_NB);
    if (e->type < 0)
        goto out;
    e->seq = (int)json_integer_value(json_object_get(o, "seq"));
    e->game = (int)json_integer_value(json_object_get(o, "game"));
    e->ply = (int)json_integer_value(json_object_get(o, "ply"));
    e->ts_us = json_integer_value(json_object_get(o, "ts_us"));
    if (json_object_get(o, "time_ms"))
        e->time_ms = json_integer_value(json_object_get(o, "time_ms"));
    if ((s = json_string_value(json_object_get(o, "move"))) != NULL) {
        if (rul_move_from_usi(s, &e->move, NULL) != RUL_OK)
            goto out;
        snprintf(e->usi, sizeof e->usi, "%s", s);
    }
    if ((s = json_string_value(json_object_get(o, "notation"))) != NULL)
        snprintf(e->notation, sizeof e->notation, "%s", s);
    s = json_string_value(json_object_get(o, "mover"));
    e->mover = s && !strcmp(s, "gote") ? RUL_GOTE : RUL_SENTE;
    if ((s = json_string_value(json_object_get(o, "why"))) != NULL) {
        int w = name_index(s, why_name_i, 7);
        e->why = w == 6 ? REC_WHY_TWO_IN_A_ROW : w;
    }
    e->hidden = json_is_true(json_object_get(o, "hidden"));
    e->order_ambiguous = json_is_true(json_object_get(o, "order_ambiguous"));
    e->late = json_is_true(json_object_get(o, "late"));
    e->damaged = json_is_true(json_object_get(o, "damaged"));
    e->confidence = json_number_value(json_object_get(o, "confidence"));
    e->fit = json_number_value(json_object_get(o, "fit"));
    if (e->type == REC_TEV_GAME_END) {
        e->winner = name_index(json_string_value(json_object_get(o, "winner")), winner_name_i, 3);
        e->reason = name_index(json_string_value(json_object_get(o, "reason")), reason_name_i, RUL_REASON_NB);
        if (e->winner < 0 || e->reason < 0)
            goto out;
    }
    if (json_object_get(o, "handicap"))
        e->handicap = (int)json_integer_value(json_object_get(o, "handicap"));
    e->colours_reversed = json_is_true(json_object_get(o, "colours_reversed"));
    if (json_object_get(o, "continues"))
        e->continues = (int)json_integer_value(json_object_get(o, "continues"));
    if ((s = json_string_value(json_object_get(o, "sfen"))) != NULL)
        snprintf(e->sfen, sizeof e->sfen, "%s", s);
    if ((s = json_string_value(json_object_get(o, "detail"))) != NULL)
        snprintf(e->detail, sizeof e->detail, "%s", s);
    if ((s = json_string_value(json_object_get(o, "ref_before"))) != NULL)
        snprintf(e->ref_before, sizeof e->ref_before, "%s", s);
    if ((s = json_string_value(json_object_get(o, "ref_after"))) != NULL)
        snprintf(e->ref_after, sizeof e->ref_after, "%s", s);
    rc = 0;
out:
    json_decref(o);
    return rc;
}

/* ---------------------------------------------------------------- kifu */

static rec_end_t end_of(const rec_trk_event_t *e, int stm) {
    switch (e->reason) {
    case RUL_REASON_RESIGN: return REC_END_RESIGN;
    case RUL_REASON_MATE:
    case RUL_REASON_NO_LEGAL_MOVE: return REC_END_MATE;
    case RUL_REASON_SENNICHITE: return REC_END_SENNICHITE;
    case RUL_REASON_PERPETUAL_CHECK:
    case RUL_REASON_ILLEGAL_MOVE: return e->winner == stm ? REC_END_ILLEGAL_WIN : REC_END_ILLEGAL_LOSS;
    case RUL_REASON_IMPASSE:
        return e->winner == stm               ? REC_END_KACHI
               : e->winner == REC_WINNER_NONE ? REC_END_JISHOGI
                                              : REC_END_ILLEGAL_LOSS;
    case RUL_REASON_TIME: return REC_END_TIME_UP;
    case RUL_REASON_ABORT: return REC_END_ABORT;
    default: return REC_END_NONE;
    }
}

/* Builds game `game`; truncate_illegal: stop before the first illegal move (for formats that cannot
 * write one), with the illegal-move result. */
static int build_kifu(const rec_trk_t *t, int game, int truncate_illegal, const rec_out_meta_t *meta,
                      rec_kifu_t **out) {
    rec_kifu_t *k = rec_kifu_new();
    rul_pos_t start;
    int found = 0, nm = 0;
    char title[64];
    if (k == NULL)
        return REC_ENOMEM;
    for (int i = 0; i < rec_trk_nevents(t); i++) {
        const rec_trk_event_t *e = rec_trk_event(t, i);
        if (e->game != game)
            continue;
        int stm = found ? (start.side + nm) & 1 : 0;
        if (e->type == REC_TEV_GAME_START) {
            found = 1;
            rec_kifu_set_start(k, e->sfen);
            rul_pos_from_sfen(&start, e->sfen, NULL);
            if (e->continues) {
                snprintf(title, sizeof title, "kifucam record, game %d (game %d taken up again)", game,
                         e->continues);
                free(k->comment); /* what the record cannot show: the moves before this position */
                k->comment = rec_kx_strdup(e->detail);
            } else {
                snprintf(title, sizeof title, "kifucam record, game %d", game);
            }
            rec_kifu_header_set(k, "棋戦", title);
            if (rec_out_meta_headers(k, meta) != 0) /* the event given replaces kifucam's title */
                goto nomem;
        } else if (!found) {
            continue;
        } else if (e->type == REC_TEV_MOVE) {
            if (rec_kifu_add_move(k, 0, e->move, e->time_ms) != REC_KIFU_OK)
                goto nomem;
            if (e->order_ambiguous) { /* what events.jsonl flags, the record says too */
                static const char AMB[] =
                    "kifucam: made out of view; another order of these moves reaches the same "
                    "position, and the order written is one of them";
                k->lines[0].moves[k->lines[0].nmoves - 1].comment = rec_kx_strdup(AMB);
            }
            nm++;
        } else if (e->type == REC_TEV_ILLEGAL) {
            if (e->why == REC_WHY_TWO_IN_A_ROW || truncate_illegal) {
                /* the record cannot hold it: the game ends there, the mover loses (FESA 9.4) */
                rec_kifu_set_result(k, e->mover == stm ? REC_END_ILLEGAL_LOSS : REC_END_ILLEGAL_WIN, NULL);
                break;
            }
            if (rec_kifu_add_move(k, 0, e->move, e->time_ms) != REC_KIFU_OK)
                goto nomem;
            rec_kifu_move_t *mv = &k->lines[0].moves[k->lines[0].nmoves - 1];
            mv->flags |= REC_MOVE_ILLEGAL;
            mv->comment = rec_kx_strdup(e->detail);
            nm++;
        } else if (e->type == REC_TEV_KING_CAPTURED) {
            rec_kifu_set_result(k, REC_END_ILLEGAL_WIN, NULL); /* the capturer, to move, wins (9.5) */
            break;
        } else if (e->type == REC_TEV_GAME_END) {
            rec_kifu_set_result(k, end_of(e, stm), NULL);
            if (e->reason == RUL_REASON_NONE && e->detail[0]) {
                /* the record stops with the game not over (lost track of): said after its last move */
                rec_kx_append_text(k->lines[0].nmoves > 0 ? &k->lines[0].moves[k->lines[0].nmoves - 1].comment
                                                          : &k->comment,
                                   e->detail);
            }
            break;
        }
    }
    if (!found) {
        rec_kifu_free(k);
        return REC_ERANGE;
    }
    *out = k;
    return REC_OK;
nomem:
    rec_kifu_free(k);
    return REC_ENOMEM;
}

int rec_out_build_kifu(const rec_trk_t *t, int game, rec_kifu_t **out) {
    if (t == NULL || out == NULL)
        return REC_ERANGE;
    *out = NULL;
    return build_kifu(t, game, 0, NULL, out);
}

/* game.usi: when metadata was given, its headers as "# KEY：VALUE" comment lines (USI has no headers;
 * replay and the kifu reader skip them, the reader takes them back as headers), then the one USI line
 * (alone without metadata, as before). 0, or -1 (ke says). */
static int write_usi(const rec_kifu_t *k, const rec_out_meta_t *meta, const char *path,
                     rec_kifu_error_t *ke) {
    char *line = NULL;
    size_t n = 0;
    if (rec_kifu_write(k, REC_FMT_USI, &line, &n, ke) != REC_KIFU_OK)
        return -1;
    FILE *f = fopen(path, "w");
    int bad = f == NULL;
    for (int i = 0; !bad && !rec_out_meta_empty(meta) && i < k->nheaders; i++)
        if (!strchr(k->headers[i].value, '\n'))
            bad = fprintf(f, "# %s：%s\n", k->headers[i].key, k->headers[i].value) < 0;
    if (!bad)
        bad = fwrite(line, 1, n, f) != n;
    if (f != NULL)
        bad |= fclose(f) != 0;
    free(line);
    if (bad)
        snprintf(ke->msg, sizeof ke->msg, "%.150s: %.40s", path, strerror(errno));
    return bad ? -1 : 0;
}

static int write_kifu(rec_out_t *o, const rec_trk_t *t, int game) {
    static const struct {
        const char *ext;
        rec_format_t fmt;
    } F[] = {{"kif", REC_FMT_KIF},
             {"ki2", REC_FMT_KI2},
             {"csa", REC_FMT_CSA},
             {"jkf", REC_FMT_JKF},
             {"usi", REC_FMT_USI}};
    for (size_t f = 0; f < sizeof F / sizeof F[0]; f++) {
        char name[64], tmp[80], path[4096], tpath[4096];
        rec_kifu_error_t ke;
        int done = 0;
        if (game <= 1)
            snprintf(name, sizeof name, "game.%s", F[f].ext);
        else
            snprintf(name, sizeof name, "game%d.%s", game, F[f].ext);
        snprintf(tmp, sizeof tmp, ".new-%s", name);
        snprintf(path, sizeof path, "%s/%s", o->dir, name);
        snprintf(tpath, sizeof tpath, "%s/%s", o->dir, tmp);
        for (int trunc = 0; trunc < 2 && !done; trunc++) {
            rec_kifu_t *k = NULL;
            int rc = build_kifu(t, game, trunc, &o->meta, &k);
            if (rc != REC_OK)
                return rc == REC_ERANGE ? REC_OK : fail(o, rc, "rec_out_update: out of memory");
            /* written through rec_kifu_write_file (Shift_JIS for .kif/.ki2) to a temporary, fsync'd,
             * then renamed over the old file and the folder fsync'd */
            if (F[f].fmt == REC_FMT_USI ? write_usi(k, &o->meta, tpath, &ke) == 0
                                        : rec_kifu_write_file(k, tpath, F[f].fmt, &ke) == REC_KIFU_OK)
                done = 1;
            rec_kifu_free(k);
        }
        if (!done)
            return fail(o, REC_EIO, "rec_out_update: %s: %s", name, ke.msg);
        if (fsync_path(tpath, 0) != 0 || rename(tpath, path) != 0 || fsync_path(o->dir, 1) != 0)
            return fail(o, REC_EIO, "rec_out_update: %s: %s", path, strerror(errno));
    }
    return REC_OK;
}

/* ---------------------------------------------------------------- frames */

void rec_out_evidence_name(const rec_trk_event_t *e, const char *which, char *buf, size_t len) {
    if (e->type == REC_TEV_MOVE && e->game > 1)
        snprintf(buf, len, "evidence/game%d-move-%03d-%s.jpg", e->game, e->ply, which);
    else if (e->type == REC_TEV_MOVE)
        snprintf(buf, len, "evidence/move-%03d-%s.jpg", e->ply, which);
    else
        snprintf(buf, len, "evidence/event-%04d-%s-%s.jpg", e->seq, rec_trk_event_name(e->type), which);
}

static int frame_copy(rec_out_frame_t *f, const cap_image_t *img) {
    size_t need = (size_t)img->width * 3 * (size_t)img->height;
    if (need > f->cap) {
        unsigned char *d = realloc(f->data, need);
        if (d == NULL)
            return -1;
        f->data = d;
        f->cap = need;
    }
    for (int y = 0; y < img->height; y++)
        memcpy(f->data + (size_t)y * (size_t)img->width * 3, img->data + (size_t)y * (size_t)img->stride,
               (size_t)img->width * 3);
    f->img.width = img->width;
    f->img.height = img->height;
    f->img.stride = img->width * 3;
    f->img.data = f->data;
    f->valid = 1;
    return 0;
}

static int write_jpeg(rec_out_t *o, const cap_image_t *img, const char *name) {
    char path[4096];
    if (o->codec == NULL && cap_codec_create(&o->codec) != CAP_OK)
        return fail(o, REC_ENOMEM, "rec_out_update: cannot create a JPEG codec");
    snprintf(path, sizeof path, "%s/%s", o->dir, name);
    if (cap_jpeg_write(o->codec, img, o->quality, path) != CAP_OK)
        return fail(o, REC_EIO, "rec_out_update: %s: %s", path, cap_codec_errmsg(o->codec));
    return REC_OK;
}

/* After an event's evidence frames were written or not (bad_before, bad_after: that frame failed, its
 * reason in o->err): a frame that cannot be written (a full disk, the folder gone) must not stop the
 * game's record, so the event is logged without it, and the first failure after a success becomes the
 * warning rec_out_warning gives once. */
static void evidence_failed(rec_out_t *o, int bad_before, int bad_after) {
    if (!bad_before && !bad_after) {
        o->evidence_failing = 0;
        return;
    }
    const char *why = strncmp(o->err, "rec_out_update: ", 16) == 0 ? o->err + 16 : o->err; /* path: reason */
    if (!o->evidence_failing) {
        snprintf(o->warn, sizeof o->warn,
                 "evidence frames cannot be written (%.500s); the record goes on without "
                 "them",
                 why);
        o->warn_pending = 1;
    }
    o->evidence_failing = 1;
    o->err[0] = '\0';
}

int rec_out_refill(rec_out_t *o, const rec_trk_t *t, const char *ref, const cap_image_t *img) {
    static const char *const which[] = {"before", "after"};
    char path[4200];
    int n = 0;
    if (o == NULL || t == NULL || ref == NULL || img == NULL)
        return REC_ERANGE;
    if (o->nrefill < 0) { /* first call: the logged events' frames that are not there */
        int cap = 0;
        o->nrefill = 0;
        for (int i = 0; i < rec_trk_nevents(t); i++) {
            const rec_trk_event_t *e = rec_trk_event(t, i);
            for (int w = 0; w < 2; w++) {
                const char *r = w ? e->ref_after : e->ref_before;
                struct refill f;
                rec_out_evidence_name(e, which[w], f.name, sizeof f.name);
                snprintf(path, sizeof path, "%s/%s", o->dir, f.name);
                if (r[0] == '\0' || access(path, F_OK) == 0)
                    continue;
                if (o->nrefill == cap) {
                    cap = cap ? 2 * cap : 64;
                    struct refill *p = realloc(o->refill, (size_t)cap * sizeof *p);
                    if (p == NULL)
                        return fail(o, REC_ENOMEM, "rec_out_refill: out of memory");
                    o->refill = p;
                }
                snprintf(f.ref, sizeof f.ref, "%s", r);
                o->refill[o->nrefill++] = f;
            }
        }
    }
    for (int i = 0; i < o->nrefill; i++) {
        if (o->refill[i].name[0] == '\0' || strcmp(o->refill[i].ref, ref) != 0)
            continue;
        if (write_jpeg(o, img, o->refill[i].name) != REC_OK)
            return REC_EIO; /* o->err says why; what is missing stays listed */
        o->refill[i].name[0] = '\0';
        n++;
    }
    if (n > 0 && rec_out_write_review(o->dir, t, o->geom, o->ngeom) != 0)
        return fail(o, REC_EIO, "rec_out_refill: review.html: %s", strerror(errno));
    return n;
}

const char *rec_out_warning(rec_out_t *o) {
    if (o == NULL || !o->warn_pending)
        return "";
    o->warn_pending = 0;
    return o->warn;
}

/* ---------------------------------------------------------------- the handle */

int rec_out_open(const char *dir, int jpeg_quality, rec_out_t **out, char *err, size_t errlen) {
    char ev[4096];
    if (err && errlen)
        err[0] = '\0';
    if (out == NULL || dir == NULL || jpeg_quality < 0 || jpeg_quality > 100 || strlen(dir) >= 3000)
        return REC_ERANGE;
    *out = NULL;
    snprintf(ev, sizeof ev, "%s/evidence", dir);
    int bad_dir =
        mkdir_p(dir) != 0; /* the folder itself, then its evidence/: the error names the one that failed */
    if (bad_dir || mkdir_p(ev) != 0) {
        if (err && errlen)
            snprintf(err, errlen, "rec_out_open: %s: %s", bad_dir ? dir : ev, strerror(errno));
        return REC_EIO;
    }
    rec_out_t *o = calloc(1, sizeof *o);
    if (o == NULL)
        return REC_ENOMEM;
    snprintf(o->dir, sizeof o->dir, "%s", dir);
    o->quality = jpeg_quality ? jpeg_quality : 85;
    o->nrefill = -1;
    *out = o;
    return REC_OK;
}

int rec_out_set_meta(rec_out_t *o, const rec_out_meta_t *m) {
    if (o == NULL || m == NULL)
        return REC_ERANGE;
    rec_out_meta_t n = o->meta;
    static const size_t off[] = {offsetof(rec_out_meta_t, event), offsetof(rec_out_meta_t, site),
                                 offsetof(rec_out_meta_t, round), offsetof(rec_out_meta_t, board),
                                 offsetof(rec_out_meta_t, sente), offsetof(rec_out_meta_t, gote)};
    for (size_t i = 0; i < sizeof off / sizeof off[0]; i++) {
        const char *v = (const char *)m + off[i];
        if (!v[0])
            continue;
        if (memchr(v, 0, REC_META_LEN + 1) == NULL || rec_out_meta_check(v, NULL, 0) != 0)
            return fail(o, REC_ERANGE, "rec_out_set_meta: a field that cannot be written");
        memcpy((char *)&n + off[i], v, strlen(v) + 1);
    }
    if (rec_out_meta_save(o->dir, &n) != 0)
        return fail(o, REC_EIO, "rec_out_set_meta: %s/meta.json: %s", o->dir, strerror(errno));
    o->meta = n;
    o->meta_dirty = 1;
    return REC_OK;
}

const rec_out_meta_t *rec_out_meta(const rec_out_t *o) { return o ? &o->meta : NULL; }

void rec_out_close(rec_out_t *o) {
    if (o == NULL)
        return;
    cap_codec_destroy(o->codec);
    free(o->prev.data);
    free(o->cur.data);
    free(o->geom);
    free(o->refill);
    free(o);
}

int rec_out_update(rec_out_t *o, const rec_trk_t *t, const rec_obs_t *obs) {
    int n, kifu_dirty = 0, rc = REC_OK, game = 0, game0 = 0;
    char path[4096];
    if (o == NULL || t == NULL)
        return REC_ERANGE;
    o->err[0] = '\0';
    const cap_image_t *img = obs && obs->image && obs->image->data ? obs->image : NULL;
    if (obs && obs->view != REC_VIEW_STABLE && o->cur.valid) {
        rec_out_frame_t tmp = o->prev; /* the view ended: its last frame is "before" for what comes */
        o->prev = o->cur;
        o->cur = tmp;
        o->cur.valid = 0;
    }
    n = rec_trk_nevents(t);
    if (o->written < n) {
        snprintf(path, sizeof path, "%s/events.jsonl", o->dir);
        int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0666);
        if (fd < 0)
            return fail(o, REC_EIO, "rec_out_update: %s: %s", path, strerror(errno));
        for (int i = o->written; i < n && rc == REC_OK; i++) {
            const rec_trk_event_t *e = rec_trk_event(t, i);
            char before[64] = "", after[64] = "";
            rec_out_geom_t g = {0};
            if (img && obs->view == REC_VIEW_STABLE) {
                g.width = img->width;
                g.height = img->height;
                memcpy(g.px, obs->board_px, sizeof g.px);
                for (int k = 0; k < 4; k++)
                    g.known |= g.px[k][0] != 0 || g.px[k][1] != 0;
                if (geom_set(o, e->seq, &g) != 0) {
                    rc = fail(o, REC_ENOMEM, "rec_out_update: out of memory");
                    break;
                }
                const cap_image_t *b = o->cur.valid ? &o->cur.img : o->prev.valid ? &o->prev.img : NULL;
                if (b) {
                    rec_out_evidence_name(e, "before", before, sizeof before);
                    if (write_jpeg(o, b, before) != REC_OK)
                        before[0] = '\0'; /* not named in the event; the record goes on (evidence_failed) */
                }
                rec_out_evidence_name(e, "after", after, sizeof after);
                if (write_jpeg(o, img, after) != REC_OK)
                    after[0] = '\0';
                evidence_failed(o, before[0] == '\0' && b != NULL, after[0] == '\0');
            }
            json_t *j = event_json(e, before, after, &g);
            char *line = json_dumps(j, JSON_COMPACT);
            json_decref(j);
            if (line == NULL) {
                rc = fail(o, REC_ENOMEM, "rec_out_update: out of memory");
                break;
            }
            size_t len = strlen(line);
            line[len] = '\n'; /* json_dumps's NUL becomes the line end */
            ssize_t wr = write(fd, line, len + 1);
            if (wr !=
                (ssize_t)(len + 1)) /* a short write (a full disk) leaves a cut line: --resume drops it */
                rc = fail(o, REC_EIO, "rec_out_update: %s: %s", path, wr < 0 ? strerror(errno) : "disk full");
            free(line);
            if (rc != REC_OK)
                break;
            if (e->type == REC_TEV_GAME_START || e->type == REC_TEV_MOVE || e->type == REC_TEV_ILLEGAL ||
                e->type == REC_TEV_KING_CAPTURED || e->type == REC_TEV_GAME_END) {
                if (!kifu_dirty || e->game < game0)
                    game0 =
                        e->game; /* a game that ended in the same update (taken up again) is written too */
                kifu_dirty = 1;
                game = e->game;
            }
            o->written = i + 1;
        }
        if (fsync(fd) != 0 && rc == REC_OK)
            rc = fail(o, REC_EIO, "rec_out_update: %s: %s", path, strerror(errno));
        close(fd);
        for (int g = game0; rc == REC_OK && kifu_dirty && g <= game; g++)
            rc = write_kifu(o, t, g);
        if (rc == REC_OK)
            rc = rec_out_write_review(o->dir, t, o->geom, o->ngeom) == 0
                     ? REC_OK
                     : fail(o, REC_EIO, "rec_out_update: review.html: %s", strerror(errno));
    }
    if (o->meta_dirty && rc == REC_OK) { /* new metadata: every game's files */
        for (int g = 1; rc == REC_OK && g <= rec_trk_game_number(t); g++)
            rc = write_kifu(o, t, g);
        o->meta_dirty = rc != REC_OK;
    }
    if (img && obs->view == REC_VIEW_STABLE && frame_copy(&o->cur, img) != 0 && rc == REC_OK)
        rc = fail(o, REC_ENOMEM, "rec_out_update: out of memory");
    return rc;
}

/* ---------------------------------------------------------------- resume */

int rec_out_resume(const char *dir, const rec_trk_params_t *params, const rul_pos_t *start, rec_trk_t **trk,
                   rec_out_t **out, char *err, size_t errlen) {
    char path[4096];
    FILE *f;
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    int rc, lineno = 0, cut = 0, unterminated = 0;
    off_t good_end = 0; /* bytes of the log up to the end of its last whole event */
    rec_trk_event_t e;
    rec_out_geom_t *geom = NULL, g;
    int ngeom = 0;
    if (err && errlen)
        err[0] = '\0';
    if (dir == NULL || trk == NULL || out == NULL)
        return REC_ERANGE;
    *trk = NULL;
    *out = NULL;
    snprintf(path, sizeof path, "%s/events.jsonl", dir);
    f = fopen(path, "r");
    if (f == NULL) {
        if (err && errlen)
            snprintf(err, errlen, "rec_out_resume: %s: %s", path, strerror(errno));
        return REC_EIO;
    }
    rc = rec_trk_create(params, start, trk);
    while (rc == REC_OK && (len = getline(&line, &cap, f)) > 0) {
        lineno++;
        int complete = line[len - 1] == '\n';
        if (rec_out_event_from_json(line, &e) != 0) {
            if (!complete) {
                cut = 1; /* the last line, cut short by the crash: that event was not made */
                break;
            }
            if (err && errlen)
                snprintf(err, errlen, "rec_out_resume: %s: line %d: not an event", path, lineno);
            rc = REC_EPARSE;
            break;
        }
        good_end += (off_t)len;
        unterminated = !complete; /* a whole event whose newline the crash cut */
        rec_out_geom_from_json(line, &g);
        if (g.known && e.seq >= 0 && e.seq < 1000000) {
            if (e.seq >= ngeom) {
                int n2 = e.seq * 2 + 64;
                rec_out_geom_t *p2 = realloc(geom, (size_t)n2 * sizeof *p2);
                if (p2 == NULL) {
                    rc = REC_ENOMEM;
                    break;
                }
                memset(p2 + ngeom, 0, (size_t)(n2 - ngeom) * sizeof *p2);
                geom = p2;
                ngeom = n2;
            }
            geom[e.seq] = g;
        }
        rc = rec_trk_apply(*trk, &e);
        if (rc != REC_OK && err && errlen)
            snprintf(err, errlen, "rec_out_resume: %s: line %d: the game refuses the %s event (%s)", path,
                     lineno, rec_trk_event_name(e.type), e.usi);
    }
    free(line);
    fclose(f);
    /* the next event must start a line of its own: drop a cut last line, end an unterminated one */
    if (rc == REC_OK && cut && truncate(path, good_end) != 0) {
        if (err && errlen)
            snprintf(err, errlen, "rec_out_resume: %s: cannot drop the cut last line: %s", path,
                     strerror(errno));
        rc = REC_EIO;
    }
    if (rc == REC_OK && unterminated && !cut) {
        FILE *a = fopen(path, "a");
        int bad = a == NULL;
        if (a != NULL) {
            bad = fputc('\n', a) == EOF;
            bad |= fclose(a) != 0;
        }
        if (bad) {
            if (err && errlen)
                snprintf(err, errlen, "rec_out_resume: %s: %s", path, strerror(errno));
            rc = REC_EIO;
        }
    }
    if (rc == REC_OK)
        rc = rec_out_open(dir, 0, out, err, errlen);
    if (rc == REC_OK) {
        (*out)->written = rec_trk_nevents(*trk);
        (*out)->geom = geom; /* the board's place in the logged events' frames, for review.html */
        (*out)->ngeom = ngeom;
        geom = NULL;
        rec_out_meta_load(dir, &(*out)->meta); /* none (a recording without metadata) leaves it empty */
        /* the kifu of the current game is rewritten from the log (the crash may have hit its rename) */
        if (rec_trk_game_number(*trk) > 0 && write_kifu(*out, *trk, rec_trk_game_number(*trk)) != REC_OK) {
            if (err && errlen)
                snprintf(err, errlen, "%s", (*out)->err);
            rc = REC_EIO;
        }
        if (rc == REC_OK)
            rec_out_write_review(dir, *trk, (*out)->geom, (*out)->ngeom);
    }
    free(geom);
    if (rc != REC_OK) {
        rec_out_close(*out);
        rec_trk_destroy(*trk);
        *out = NULL;
        *trk = NULL;
    }
    return rc;
}
