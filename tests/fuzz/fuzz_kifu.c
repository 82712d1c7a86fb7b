/* fuzz_kifu.c - libFuzzer harness for the kifu readers (recorder/kifu_*.c): the first byte picks the
 * reader (KIF, KI2, CSA, JKF, USI, Western, or detection), the rest is the input. Whatever reads is also
 * replayed and written back in every format, so the writers are fuzzed on every record a reader accepts.
 * Built and run by `make fuzz` (clang -fsanitize=fuzzer,address,undefined). */
#include <stdint.h>
#include <stdlib.h>

#include "recorder/kifu/kifu.h"
#include "recorder/kifu/replay.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1)
        return 0;
    rec_format_t fmt = (rec_format_t)(data[0] % REC_FMT_NB);
    rec_kifu_t *k = NULL;
    rec_kifu_error_t e;
    if (rec_kifu_read((const char *)data + 1, size - 1, fmt, &k, &e) != REC_KIFU_OK)
        return 0;
    rec_replay_t *r = NULL;
    if (rec_replay_create(&r) == REC_OK)
        rec_replay_kifu(r, k, NULL, NULL);
    rec_replay_destroy(r);
    for (int f = REC_FMT_KIF; f < REC_FMT_NB; f++) {
        char *out = NULL;
        size_t n;
        if (rec_kifu_write(k, (rec_format_t)f, &out, &n, &e) == REC_KIFU_OK) {
            rec_kifu_t *b = NULL;
            if (rec_kifu_read(out, n, (rec_format_t)f, &b, &e) == REC_KIFU_OK)
                rec_kifu_free(b);
        }
        free(out);
    }
    rec_kifu_free(k);
    return 0;
}
