/* route.c - the hall's URL paths to routes (hall_internal.h, rec_hall_route): the one place a path from
 * the network is read, kept pure so that the fuzz target (tests/fuzz/fuzz_hall.c) can run it alone. */
#include <string.h>

#include "recorder/hall/hall_internal.h"

static const char *const KIFU_EXT[3] = {"kif", "csa", "jkf"};

/* 0..2 if s is exactly STEM.kif / .csa / .jkf (stem "game" or "games"), else -1. */
static int kifu_name(const char *s, const char *stem) {
    size_t l = strlen(stem);
    if (strncmp(s, stem, l) != 0 || s[l] != '.')
        return -1;
    for (int i = 0; i < 3; i++)
        if (strcmp(s + l + 1, KIFU_EXT[i]) == 0)
            return i;
    return -1;
}

/* Copies the segment at s (up to '/' or the end) into id if it is a board id; the rest of the path
 * after it, or NULL. */
static const char *take_id(const char *s, char id[REC_HALL_BOARD_MAX + 1]) {
    size_t l = strcspn(s, "/");
    if (l == 0 || l > REC_HALL_BOARD_MAX)
        return NULL;
    memcpy(id, s, l);
    id[l] = '\0';
    return rec_hall_board_check(id) == 0 ? s + l : NULL;
}

rec_hall_route_kind_t rec_hall_route(const char *path, rec_hall_route_t *r) {
    rec_hall_route_t none = {REC_HALL_ROUTE_NONE, -1, ""};
    if (r == NULL)
        return REC_HALL_ROUTE_NONE;
    *r = none;
    if (path == NULL || path[0] != '/' || strlen(path) > REC_HALL_URL_MAX)
        return REC_HALL_ROUTE_NONE;
    for (const char *c = path; *c; c++) /* printable ASCII only: no space, control or 8-bit byte */
        if ((unsigned char)*c < 0x21 || (unsigned char)*c > 0x7e)
            return REC_HALL_ROUTE_NONE;
    for (const char *seg = path; seg; seg = strchr(seg + 1, '/')) { /* no "." or ".." segment */
        size_t l = strcspn(seg + 1, "/");
        if ((l == 1 && seg[1] == '.') || (l == 2 && seg[1] == '.' && seg[2] == '.'))
            return REC_HALL_ROUTE_NONE;
    }
    if (strcmp(path, "/") == 0 || strcmp(path, "/index.html") == 0)
        r->kind = REC_HALL_ROUTE_INDEX;
    else if (strcmp(path, "/boards.json") == 0)
        r->kind = REC_HALL_ROUTE_BOARDS;
    else if (strcmp(path, "/events") == 0)
        r->kind = REC_HALL_ROUTE_EVENTS;
    else if (strncmp(path, "/board/", 7) == 0) {
        const char *rest = take_id(path + 7, r->id);
        if (rest && (*rest == '\0' || strcmp(rest, "/") == 0))
            r->kind = REC_HALL_ROUTE_BOARD_PAGE;
        else if (rest && strcmp(rest, "/state.json") == 0)
            r->kind = REC_HALL_ROUTE_BOARD_STATE;
        else if (rest && *rest == '/' && (r->kifu = kifu_name(rest + 1, "game")) >= 0)
            r->kind = REC_HALL_ROUTE_BOARD_KIFU;
    } else if (strncmp(path, "/round/", 7) == 0) {
        const char *rest = take_id(path + 7, r->id);
        if (rest && *rest == '/' && (r->kifu = kifu_name(rest + 1, "games")) >= 0)
            r->kind = REC_HALL_ROUTE_ROUND_KIFU;
    }
    if (r->kind == REC_HALL_ROUTE_NONE)
        *r = none;
    return r->kind;
}
