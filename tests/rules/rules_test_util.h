/* rules_test_util.h - helpers shared by the rules tests: files, TSV rows, USI position lines. */
#ifndef KIFUCAM_TESTS_RULES_TEST_UTIL_H
#define KIFUCAM_TESTS_RULES_TEST_UTIL_H

#include <stddef.h>

#include "rules/rules.h"

/* Reads the whole file at path into a NUL-terminated heap buffer (caller frees with free()).
 * Returns NULL if it cannot be read. */
char *rt_read_file(const char *path);

/* Splits the next line of *cursor (which it advances) in place at tabs into fields[0..max-1].
 * Returns the number of fields, 0 for a blank or '#' comment line, -1 at the end of the text.
 * The trailing '\r' of a CRLF line is removed. */
int rt_next_tsv_row(char **cursor, char **fields, int max);

/* A USI "position" line: "position startpos [moves M...]" or "position sfen B S H [N] [moves M...]"
 * (the word "position" may be left out). Fills *start and moves[0..*nmoves-1] (syntax only: each move
 * is parsed with rul_move_from_usi, legality is for the caller). Returns 0, or -1 with a message in
 * why (size bytes). */
int rt_parse_position(const char *usi, rul_pos_t *start, rul_move_t *moves, int max_moves, int *nmoves,
                      char *why, size_t size);

/* Parses sfen, failing the current test with a message naming it when the engine rejects it.
 * Returns 1 if *pos was set. */
int rt_pos_or_fail(rul_pos_t *pos, const char *sfen, const char *label);

/* 1 if move m is in list. */
int rt_list_has(const rul_movelist_t *list, rul_move_t m);

#endif
