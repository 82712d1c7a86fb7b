/* hall_internal.h - what server.c and pages.c share (not part of the module's API). */
#ifndef KIFUCAM_HALL_INTERNAL_H
#define KIFUCAM_HALL_INTERNAL_H

/* The tournament page and the board page: self-contained HTML (UTF-8) that read /boards.json or
 * state.json and follow /events. */
extern const char rec_hall_index_page[];
extern const char rec_hall_board_page[];

#endif
