/* rules_test_util.c - helpers shared by the rules tests (see rules_test_util.h). */
#include "tests/rules/rules_test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/tests.h"

char *rt_read_file(const char *path) {
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    long len;

    if (f == NULL)
        return NULL;
    if (fseek(f, 0, SEEK_END) != 0 || (len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0)
        goto out;
    buf = malloc((size_t)len + 1);
    if (buf == NULL)
        goto out;
    if (fread(buf, 1, (size_t)len, f) != (size_t)len) {
        free(buf);
        buf = NULL;
        goto out;
    }
    buf[len] = '\0';
out:
    fclose(f);
    return buf;
}

int rt_next_tsv_row(char **cursor, char **fields, int max) {
    char *line = *cursor, *end, *p;
    int n = 0;

    if (line == NULL || *line == '\0')
        return -1;
    end = strchr(line, '\n');
    if (end != NULL) {
        *end = '\0';
        *cursor = end + 1;
    } else {
        *cursor = line + strlen(line);
    }
    if (end != NULL && end > line && end[-1] == '\r')
        end[-1] = '\0';
    if (line[0] == '#' || line[0] == '\0')
        return 0;
    p = line;
    while (n < max) {
        fields[n++] = p;
        p = strchr(p, '\t');
        if (p == NULL)
            break;
        *p++ = '\0';
    }
    return n;
}

/* Copies the next space-separated word of *s into word (size bytes); returns its length, 0 at the end. */
static size_t next_word(const char **s, char *word, size_t size) {
    const char *p = *s;
    size_t n = 0;

    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
        p++;
    while (*p != '\0' && *p != ' ' && *p != '\t' && *p != '\n' && *p != '\r') {
        if (n + 1 < size)
            word[n] = *p;
        n++;
        p++;
    }
    word[n < size ? n : size - 1] = '\0';
    *s = p;
    return n;
}

int rt_parse_position(const char *usi, rul_pos_t *start, rul_move_t *moves, int max_moves, int *nmoves,
                      char *why, size_t size) {
    char word[256], sfen[512];
    const char *p = usi, *after;
    rul_error_t err;
    size_t n;

    *nmoves = 0;
    n = next_word(&p, word, sizeof word);
    if (n > 0 && strcmp(word, "position") == 0)
        n = next_word(&p, word, sizeof word);
    if (strcmp(word, "startpos") == 0) {
        if (rul_pos_from_sfen(start, RUL_SFEN_STARTPOS, &err) != RUL_OK) {
            snprintf(why, size, "startpos rejected: %s", err.msg);
            return -1;
        }
    } else if (strcmp(word, "sfen") == 0) {
        /* the SFEN runs up to " moves" or the end */
        const char *m = strstr(p, " moves");
        size_t len = m != NULL ? (size_t)(m - p) : strlen(p);
        while (len > 0 && (p[0] == ' ')) {
            p++;
            len--;
        }
        if (len == 0 || len >= sizeof sfen) {
            snprintf(why, size, "bad sfen length");
            return -1;
        }
        memcpy(sfen, p, len);
        sfen[len] = '\0';
        if (rul_pos_from_sfen(start, sfen, &err) != RUL_OK) {
            snprintf(why, size, "sfen rejected (column %d: %s): %s", err.column, err.msg, sfen);
            return -1;
        }
        p += len;
    } else {
        snprintf(why, size, "expected startpos or sfen, got '%s'", word);
        return -1;
    }
    after = p;
    n = next_word(&p, word, sizeof word);
    if (n == 0)
        return 0;
    if (strcmp(word, "moves") != 0) {
        snprintf(why, size, "expected 'moves' at '%s'", after);
        return -1;
    }
    while ((n = next_word(&p, word, sizeof word)) > 0) {
        if (*nmoves >= max_moves) {
            snprintf(why, size, "more than %d moves", max_moves);
            return -1;
        }
        if (rul_move_from_usi(word, &moves[*nmoves], &err) != RUL_OK) {
            snprintf(why, size, "move %d '%s' rejected: %s", *nmoves + 1, word, err.msg);
            return -1;
        }
        (*nmoves)++;
    }
    return 0;
}

int rt_pos_or_fail(rul_pos_t *pos, const char *sfen, const char *label) {
    rul_error_t err;
    int rc;

    memset(&err, 0, sizeof err);
    rc = rul_pos_from_sfen(pos, sfen, &err);
    TESTS_CHECK(rc == RUL_OK, "%s: SFEN rejected (rc %d, column %d: %s): %s", label, rc, err.column, err.msg,
                sfen);
    return rc == RUL_OK;
}

int rt_list_has(const rul_movelist_t *list, rul_move_t m) {
    int i;

    for (i = 0; i < list->count; i++)
        if (list->moves[i] == m)
            return 1;
    return 0;
}
