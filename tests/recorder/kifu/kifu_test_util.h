/* kifu_test_util.h - helpers shared by the kifu test suites (test_kifu.c, test_kifu_fixtures.c). */
#ifndef KIFUCAM_KIFU_TEST_UTIL_H
#define KIFUCAM_KIFU_TEST_UTIL_H

#include "recorder/kifu/kifu.h"
#include "recorder/kifu/replay.h"

/* The identity of line l of k from the root, as text: "|start:usi usi ...|start:usi ..." (each
 * ancestor line, then this one). Caller owns the result, free with free(); NULL if memory ran out. */
char *kifu_test_line_sig(const rec_kifu_t *k, int l);

/* The record check of rec_replay_kifu (replay.h) of k into *out (zeroed when memory ran out). */
void kifu_test_replay(const rec_kifu_t *k, rec_replay_record_t *out);

#endif
