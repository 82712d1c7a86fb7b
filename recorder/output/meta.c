/* meta.c - the game's metadata (output.h, rec_out_meta_t): checked, kept in OUT/meta.json, written
 * into the kifu headers. */
#include "recorder/kifu/kifu_internal.h"
#include "recorder/output/output_internal.h"

#include <errno.h>
#include <jansson.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The fields, their meta.json keys and their KIF header names. */
static const struct {
    const char *json, *kif;
    size_t off;
} FIELDS[] = {
    {"event", "棋戦", offsetof(rec_out_meta_t, event)}, {"site", "場所", offsetof(rec_out_meta_t, site)},
    {"round", "回戦", offsetof(rec_out_meta_t, round)}, {"board", "盤番号", offsetof(rec_out_meta_t, board)},
    {"sente", "先手", offsetof(rec_out_meta_t, sente)}, {"gote", "後手", offsetof(rec_out_meta_t, gote)}};
#define NFIELDS (sizeof FIELDS / sizeof FIELDS[0])

static char *field(rec_out_meta_t *m, size_t i) { return (char *)m + FIELDS[i].off; }
static const char *cfield(const rec_out_meta_t *m, size_t i) { return (const char *)m + FIELDS[i].off; }

int rec_out_meta_check(const char *value, char *why, size_t size) {
    const char *r = NULL;
    char *enc = NULL;
    size_t elen = 0;
    if (value == NULL)
        r = "missing";
    else if (strlen(value) > REC_META_LEN)
        r = "longer than 200 bytes";
    else {
        for (const unsigned char *p = (const unsigned char *)value; *p && !r; p++)
            if (*p < 0x20 || *p == 0x7f)
                r = "has a control character";
        if (!r && rec_kx_utf8_to_cp932(value, strlen(value), &enc, &elen) != REC_KIFU_OK)
            r = "is not UTF-8 text with a Shift_JIS form (the .kif file's encoding)";
        free(enc);
    }
    if (r && why && size)
        snprintf(why, size, "%s", r);
    return r ? -1 : 0;
}

int rec_out_meta_empty(const rec_out_meta_t *m) {
    for (size_t i = 0; m && i < NFIELDS; i++)
        if (cfield(m, i)[0])
            return 0;
    return 1;
}

int rec_out_meta_load(const char *dir, rec_out_meta_t *m) {
    char path[4096];
    if (dir == NULL || m == NULL)
        return REC_ERANGE;
    memset(m, 0, sizeof *m);
    snprintf(path, sizeof path, "%s/meta.json", dir);
    struct stat sb;
    if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode))
        return REC_EIO;
    json_error_t je;
    json_t *o = json_load_file(path, 0, &je);
    if (o == NULL)
        return REC_EPARSE;
    int rc = json_is_object(o) ? REC_OK : REC_EPARSE;
    for (size_t i = 0; rc == REC_OK && i < NFIELDS; i++) {
        json_t *v = json_object_get(o, FIELDS[i].json);
        if (v == NULL)
            continue;
        if (!json_is_string(v) || rec_out_meta_check(json_string_value(v), NULL, 0) != 0)
            rc = REC_EPARSE;
        else
            snprintf(field(m, i), REC_META_LEN + 1, "%s", json_string_value(v));
    }
    json_decref(o);
    if (rc != REC_OK)
        memset(m, 0, sizeof *m);
    return rc;
}

int rec_out_meta_save(const char *dir, const rec_out_meta_t *m) {
    json_t *o = json_object();
    for (size_t i = 0; o && i < NFIELDS; i++)
        if (cfield(m, i)[0])
            json_object_set_new(o, FIELDS[i].json, json_string(cfield(m, i)));
    char *text = o ? json_dumps(o, JSON_INDENT(1) | JSON_PRESERVE_ORDER) : NULL;
    json_decref(o);
    if (text == NULL) {
        errno = ENOMEM;
        return -1;
    }
    size_t len = strlen(text);
    char *line = realloc(text, len + 2);
    if (line == NULL) {
        free(text);
        errno = ENOMEM;
        return -1;
    }
    line[len] = '\n';
    line[len + 1] = '\0';
    int r = rec_out_write_atomic(dir, "meta.json", line, len + 1);
    free(line);
    return r;
}

int rec_out_meta_headers(rec_kifu_t *k, const rec_out_meta_t *m) {
    for (size_t i = 0; m && i < NFIELDS; i++)
        if (cfield(m, i)[0] && rec_kifu_header_set(k, FIELDS[i].kif, cfield(m, i)) != REC_KIFU_OK)
            return -1;
    return 0;
}
