/* fuzz_resume.c - libFuzzer harness for what `kifucam record --resume` reads: the output folder's
 * events.jsonl (rec_out_resume: every line an event, a last line torn by a power cut, garbage, a log of
 * another game). The first byte picks: bit 0 an expected start (the even position; else any standard
 * start), bit 1 a source.jsonl beside it holding the same bytes (the recorder only appends to that file
 * and cuts it back: it must never be what a resume trips on); the rest is events.jsonl.
 * A log that resumes must resume again, from the file as the first resume left it, to the same game:
 * the same events, game number and state (a torn last line dropped once stays dropped); a
 * disagreement aborts. The folder is temporary (fuzz_tmp_base), removed at exit. FUZZ_VERBOSE=1 in the
 * environment prints each resume's outcome. */
#define _GNU_SOURCE
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "recorder/output/output.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char g_dir[256];

/* $TMPDIR, else /dev/shm (memory: the outputs fsync every file), else /tmp. */
static const char *fuzz_tmp_base(void) {
    const char *t = getenv("TMPDIR");
    struct stat sb;
    if (t && t[0])
        return t;
    return stat("/dev/shm", &sb) == 0 && S_ISDIR(sb.st_mode) && access("/dev/shm", W_OK) == 0 ? "/dev/shm"
                                                                                              : "/tmp";
}

static int remove_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw) {
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static void remove_dir(void) { nftw(g_dir, remove_one, 8, FTW_DEPTH | FTW_PHYS); }

static void write_file(const char *name, const uint8_t *data, size_t size) {
    char p[400];
    snprintf(p, sizeof p, "%s/%s", g_dir, name);
    FILE *f = fopen(p, "wb");
    if (f == NULL || (size > 0 && fwrite(data, 1, size, f) != size) || fclose(f) != 0)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1)
        return 0;
    if (!g_dir[0]) {
        snprintf(g_dir, sizeof g_dir, "%s/kifucam-fuzz-resume-XXXXXX", fuzz_tmp_base());
        if (mkdtemp(g_dir) == NULL)
            abort();
        atexit(remove_dir);
    }
    /* a folder of its own for each input: what an earlier input left must not count */
    remove_dir();
    if (mkdir(g_dir, 0700) != 0)
        abort();
    write_file("events.jsonl", data + 1, size - 1);
    if (data[0] & 2)
        write_file("source.jsonl", data + 1, size - 1);
    rul_pos_t even;
    rul_pos_from_sfen(&even, RUL_SFEN_STARTPOS, NULL);
    const rul_pos_t *start = data[0] & 1 ? &even : NULL;
    rec_trk_t *t = NULL;
    rec_out_t *o = NULL;
    char err[512];
    int rc = rec_out_resume(g_dir, NULL, start, &t, &o, err, sizeof err);
    if (getenv("FUZZ_VERBOSE"))
        fprintf(stderr, "resume: %s\n", rc == REC_OK ? "resumed" : err);
    if (rc != REC_OK) {
        if (t != NULL || o != NULL || err[0] == '\0')
            abort(); /* a refusal leaves nothing open and says why */
        return 0;
    }
    int n = rec_trk_nevents(t), game = rec_trk_game_number(t);
    rec_trk_state_t state = rec_trk_state(t);
    if (game > 0) {
        rec_kifu_t *k = NULL;
        if (rec_out_build_kifu(t, game, &k) == REC_OK)
            rec_kifu_free(k);
    }
    rec_out_close(o);
    rec_trk_destroy(t);
    /* the second resume, from the file the first one left */
    if (rec_out_resume(g_dir, NULL, start, &t, &o, err, sizeof err) != REC_OK)
        abort();
    if (rec_trk_nevents(t) != n || rec_trk_game_number(t) != game || rec_trk_state(t) != state)
        abort();
    rec_out_close(o);
    rec_trk_destroy(t);
    return 0;
}
