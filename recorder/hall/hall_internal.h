/* hall_internal.h - what server.c, pages.c and route.c share (not part of the module's API; the tests
 * and the fuzz target use the router). */
#ifndef KIFUCAM_HALL_INTERNAL_H
#define KIFUCAM_HALL_INTERNAL_H

#include "recorder/hall/hall.h"

/* The tournament page and the board page: self-contained HTML (UTF-8) that read /boards.json or
 * state.json and follow /events. */
extern const char rec_hall_index_page[];
extern const char rec_hall_board_page[];

#define REC_HALL_URL_MAX 200 /* bytes of a URL path served; a longer one is not found */

/* What a URL path of the hall names (hall.h, rec_hall_open, lists them). */
typedef enum {
    REC_HALL_ROUTE_NONE,        /* not found (404) */
    REC_HALL_ROUTE_INDEX,       /* / or /index.html */
    REC_HALL_ROUTE_BOARDS,      /* /boards.json */
    REC_HALL_ROUTE_EVENTS,      /* /events */
    REC_HALL_ROUTE_BOARD_PAGE,  /* /board/B or /board/B/ */
    REC_HALL_ROUTE_BOARD_STATE, /* /board/B/state.json */
    REC_HALL_ROUTE_BOARD_KIFU,  /* /board/B/game.kif .csa .jkf */
    REC_HALL_ROUTE_ROUND_KIFU,  /* /round/R/games.kif .csa .jkf */
    REC_HALL_ROUTE_NB
} rec_hall_route_kind_t;

typedef struct {
    rec_hall_route_kind_t kind;
    int kifu;                        /* _KIFU routes: 0 kif, 1 csa, 2 jkf; -1 otherwise */
    char id[REC_HALL_BOARD_MAX + 1]; /* the board B or round R, passing rec_hall_board_check; "" none */
} rec_hall_route_t;

/* Maps path (the URL's path as the HTTP server decoded it, without the query) to a route in *r and
 * returns r->kind. Pure: no state, no allocation. REC_HALL_ROUTE_NONE for a NULL path, one over
 * REC_HALL_URL_MAX bytes or not starting with '/', a byte outside '!'..'~' (a space, a control
 * character, any byte over 0x7e), a "." or ".." segment, an empty or unknown segment, an id that
 * rec_hall_board_check refuses (over REC_HALL_BOARD_MAX bytes, a character other than letters,
 * digits, '-', '_', '.'), or anything after the file name. */
rec_hall_route_kind_t rec_hall_route(const char *path, rec_hall_route_t *r);

#endif
