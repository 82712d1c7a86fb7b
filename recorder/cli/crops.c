/* crops.c - the crops command: the labelled square crops of a finished recording, for training. */
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture/capture.h"
#include "recorder/record/record.h"
#include "rules/rules.h"
#include "vision/vision.h"

#include "recorder/cli/cli.h"

#define CROPS_USAGE "kifucam crops OUT_DIR DEST [--model FILE]"
#define CROP_SIDE 48
#define CROP_BYTES (CROP_SIDE * CROP_SIDE * 3)

void crops_help(void) {
    printf("usage: " CROPS_USAGE "\n"
           "\n"
           "Writes the labelled square crops of a finished recording (OUT_DIR, the --out folder of\n"
           "kifucam record) into DEST, in the layout models/train.py reads (--data DEST): for the start\n"
           "and every move of events.jsonl, the frame after it (evidence/) is cut at the grid the\n"
           "recorder saw (its board_px) into the 81 crops the square classifier reads (48 x 48 PNG,\n"
           "sente's pieces pointing up), each labelled with the piece the recorded position holds there\n"
           "(its SFEN). DEST/squares/e0002-77.png is square 7g after event 2; DEST/labels.csv has one\n"
           "line a crop: file, class (0..28, models/README.md), piece (SFEN letters, empty for an empty\n"
           "square), square, event, ply. The pieces on each komadai (DEST/komadai/, square sente-stand\n"
           "or gote-stand, turned to point up, labelled as sente's kind) are written when the pieces\n"
           "read there are exactly the recorded hand; else that stand is left out and counted.\n"
           "DEST must be new or empty; nothing else is written.\n"
           "Only what the recorder wrote is used: an event without its frame or the board's place is\n"
           "left out and counted; a frame that cannot be decoded (a damaged or cut JPEG) is left out,\n"
           "counted apart on the summary line and named in one warning line on stderr. The crops show\n"
           "the organiser's own pieces and games: they are the organiser's to share or keep (README,\n"
           "\"Licence\").\n"
           "--model FILE: the square classifier whose crop geometry is used (default as record's).\n");
}

/* Undoes what a failed run wrote into dest (new or empty before it): the two sub-folders and their
 * files, labels.csv, and dest itself when the run made it. */
static void dest_undo(const char *dest, int made) {
    char sub[4200], f[4500];
    for (int i = 0; i < 2; i++) {
        snprintf(sub, sizeof sub, "%s/%s", dest, i ? "komadai" : "squares");
        DIR *d = opendir(sub);
        struct dirent *e;
        while (d && (e = readdir(d)) != NULL)
            if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
                snprintf(f, sizeof f, "%s/%s", sub, e->d_name);
                unlink(f);
            }
        if (d)
            closedir(d);
        rmdir(sub);
    }
    snprintf(f, sizeof f, "%s/labels.csv", dest);
    unlink(f);
    if (made)
        rmdir(dest);
}

/* DEST new (made: *made set) or an empty folder. 0 or the exit status with its line said. */
static int dest_ready(const char *cmd, const char *dest, int *made) {
    struct stat st;
    char sub[4200];
    if (stat(dest, &st) == 0) {
        if (!S_ISDIR(st.st_mode))
            return cli_user_error(cmd, "%s: exists and is not a folder", dest);
        DIR *d = opendir(dest);
        struct dirent *e;
        int empty = 1;
        while (d && (e = readdir(d)) != NULL)
            empty &= strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0;
        if (d)
            closedir(d);
        if (!empty)
            return cli_user_error(cmd, "%s: not empty (give a new folder: nothing is written over)", dest);
    } else if (mkdir(dest, 0777) != 0) {
        return cli_user_error(cmd, "%s: cannot make the folder (%s)", dest, strerror(errno));
    } else {
        *made = 1;
    }
    for (int i = 0; i < 2; i++) {
        snprintf(sub, sizeof sub, "%s/%s", dest, i ? "komadai" : "squares");
        if (mkdir(sub, 0777) != 0) {
            int st = cli_user_error(cmd, "%s: cannot make the folder (%s)", sub, strerror(errno));
            dest_undo(dest, *made);
            return st;
        }
    }
    return 0;
}

/* Writes one crop as dest/name and its labels.csv line. 0, or -1 with its line said. */
static int write_crop(const char *cmd, const char *dest, const char *name, unsigned char *pix, int cls,
                      const char *where, const cli_rec_event_t *ev, FILE *csv) {
    char path[4300], err[512] = "";
    cap_image_t crop = {CROP_SIDE, CROP_SIDE, 3 * CROP_SIDE, pix};
    snprintf(path, sizeof path, "%s/%s", dest, name);
    if (vis_image_write(&crop, path, err, sizeof err) != VIS_OK ||
        fprintf(csv, "%s,%d,%s,%s,%d,%d\n", name, cls, vis_class_sfen(cls), where, ev->seq, ev->ply) < 0)
        return cli_user_error(cmd, "%s: cannot be written (%s)", path, err[0] ? err : strerror(errno)), -1;
    return 0;
}

/* The pieces detected on each stand of the frame (present with probability 0.5 or more), labelled when
 * their kinds (each detection's likeliest) are exactly the recorded hand's: then the reading is the hand,
 * piece for piece; otherwise that stand is left out (*left), since which detection is which piece is not
 * known (a stack seen as one piece, a kind misread). Returns the crops written, or -1 on a write error
 * (said). */
static int write_stands(const char *cmd, vis_classifier_t *clf, const cli_rec_event_t *ev, const char *dest,
                        FILE *csv, const cap_image_t *img, const vis_pose_t *pose, const rul_pos_t *pos,
                        unsigned char *kcrops, int *left) {
    vis_komadai_read_t kr;
    int n = 0;
    if (vis_komadai_read_crops(clf, img, pose, NULL, &kr, kcrops) != VIS_OK)
        return 0;
    for (int s = 0; s < 2; s++) {
        int kind[VIS_KOMADAI_PIECES_MAX], got[VIS_HAND_KIND_NB] = {0}, same = kr.known[s];
        for (int i = 0; i < kr.pieces[s]; i++) {
            kind[i] = -1; /* a detection as likely no piece as a piece: not counted, not written */
            if (kr.piece_present[s][i] < 0.5f)
                continue;
            kind[i] = 0;
            for (int k = 1; k < VIS_HAND_KIND_NB; k++)
                kind[i] = kr.piece_kind[s][i][k] > kr.piece_kind[s][i][kind[i]] ? k : kind[i];
            got[kind[i]]++;
        }
        for (int k = 0; k < VIS_HAND_KIND_NB; k++)
            same &= got[k] == rul_pos_hand(pos, (rul_color_t)s, (rul_type_t)(k + 1));
        if (!same) {
            *left += kr.known[s] ? 1 : 0;
            continue;
        }
        for (int i = 0; i < kr.pieces[s]; i++) {
            char name[64];
            if (kind[i] < 0)
                continue;
            snprintf(name, sizeof name, "komadai/e%04d-%s-%02d.png", ev->seq, s ? "gote" : "sente", i + 1);
            /* a piece in hand is unpromoted; the crop points up, as a sente piece on the board */
            if (write_crop(cmd, dest, name,
                           kcrops + ((size_t)s * VIS_KOMADAI_PIECES_MAX + (size_t)i) * CROP_BYTES,
                           kind[i] + 1, s ? "gote-stand" : "sente-stand", ev, csv) != 0)
                return -1;
            n++;
        }
    }
    return n;
}

/* Cuts and writes the 81 crops of one event and its stands' pieces, one labels.csv line each. Returns the
 * square crops written (the stands' are added to *kn), 0 if the frame's grid or position cannot be used,
 * -2 if the frame cannot be decoded (why in err, errlen bytes: a damaged or cut JPEG), -1 on a write error
 * (said). */
static int write_event(const char *cmd, vis_classifier_t *clf, const cli_rec_event_t *ev, const char *dest,
                       FILE *csv, unsigned char *crops, unsigned char *kcrops, int *kn, int *kleft, char *err,
                       size_t errlen) {
    cap_image_t img = {0, 0, 0, NULL};
    vis_pose_t pose;
    rul_pos_t pos;
    rul_error_t rerr;
    memset(&rerr, 0, sizeof rerr);
    if (rul_pos_from_sfen(&pos, ev->sfen, &rerr) != RUL_OK)
        return 0;
    if (cap_image_load(ev->frame, &img, err, errlen) != 0)
        return -2;
    int n = 0;
    if (img.width == ev->w && img.height == ev->h &&
        vis_pose_from_corners(ev->corners, img.width, img.height, &pose) == VIS_OK &&
        vis_classifier_crops(clf, &img, &pose, crops) == VIS_OK) {
        for (int sq = 0; sq < VIS_SQUARE_NB && n >= 0; sq++) {
            char name[64], where[24];
            snprintf(name, sizeof name, "squares/e%04d-%d%d.png", ev->seq, sq / 9 + 1, sq % 9 + 1);
            snprintf(where, sizeof where, "%d%d", sq / 9 + 1, sq % 9 + 1);
            n = write_crop(cmd, dest, name, crops + (size_t)sq * CROP_BYTES,
                           REC_OBS_CLASS(rul_pos_piece_at(&pos, sq)), where, ev, csv) != 0
                    ? -1
                    : n + 1;
        }
        int k = n > 0 ? write_stands(cmd, clf, ev, dest, csv, &img, &pose, &pos, kcrops, kleft) : 0;
        if (k < 0)
            n = -1;
        else
            *kn += k;
    }
    cap_image_free(&img);
    return n;
}

int cmd_crops(int argc, char **argv) {
    const char *cmd = "crops", *out_dir = NULL, *dest = NULL, *val;
    static char model_buf[4096];
    const char *model = rec_model_default(model_buf, sizeof model_buf);
    int rc;
    for (int i = 1; i < argc; i++) {
        if ((rc = cli_opt_value(cmd, argc, argv, &i, "--model", &val)) != 0) {
            if (rc < 0)
                return EXIT_USER;
            model = val;
        } else if (cli_is_option(argv[i])) {
            return cli_user_error(cmd, "unknown option '%.80s' (see kifucam crops --help)", argv[i]);
        } else if (!out_dir) {
            out_dir = argv[i];
        } else if (!dest) {
            dest = argv[i];
        } else {
            return cli_user_error(cmd, "unexpected argument '%.80s' (usage: " CROPS_USAGE ")", argv[i]);
        }
    }
    if (!out_dir || !dest || !out_dir[0] || !dest[0])
        return cli_user_error(cmd, "missing %s (usage: " CROPS_USAGE ")",
                              !out_dir || !out_dir[0] ? "OUT_DIR" : "DEST");
    char path[4200];
    snprintf(path, sizeof path, "%s/events.jsonl", out_dir);
    FILE *ev_f = fopen(path, "r");
    if (ev_f == NULL)
        return cli_user_error(cmd, "%s: %s (OUT_DIR is the --out folder of kifucam record)", path,
                              strerror(errno));
    vis_classifier_t *clf = NULL;
    if ((rc = vis_classifier_open(model, &clf)) != 0) {
        fclose(ev_f);
        int st = cli_user_error(cmd, "%s; the square classifier is given by --model FILE or KIFUCAM_MODEL",
                                vis_classifier_errmsg(clf));
        vis_classifier_destroy(clf);
        return st;
    }
    int made = 0, status = dest_ready(cmd, dest, &made), ready = status == 0, frames = 0, left = 0,
        crops_n = 0, kn = 0, kleft = 0, undecoded = 0;
    char *bad = NULL; /* the undecodable frames' reasons, one a line, said once the run has succeeded */
    size_t bad_len = 0;
    FILE *csv = NULL;
    unsigned char *crops = malloc((size_t)VIS_SQUARE_NB * CROP_BYTES);
    unsigned char *kcrops = malloc((size_t)2 * VIS_KOMADAI_PIECES_MAX * CROP_BYTES);
    cli_rec_event_t *ev = malloc(sizeof *ev);
    char *line = NULL;
    size_t cap = 0;
    if (status == 0 && (crops == NULL || kcrops == NULL || ev == NULL))
        status = cli_internal_error(cmd, "out of memory");
    if (status == 0) {
        snprintf(path, sizeof path, "%s/labels.csv", dest);
        if ((csv = fopen(path, "w")) == NULL || fprintf(csv, "file,class,piece,square,event,ply\n") < 0)
            status = cli_user_error(cmd, "%s: cannot be written (%s)", path, strerror(errno));
    }
    while (status == 0 && getline(&line, &cap, ev_f) > 0) {
        char why[4800] = "";
        int u = cli_rec_event_read(out_dir, line, ev),
            n = u > 0 ? write_event(cmd, clf, ev, dest, csv, crops, kcrops, &kn, &kleft, why, sizeof why) : 0;
        if (n == -2) { /* a frame on disk that cannot be decoded: left out, named, counted apart */
            size_t k = strlen(why);
            char *more = realloc(bad, bad_len + k + 2);
            if (more == NULL) {
                status = cli_internal_error(cmd, "out of memory");
                break;
            }
            bad = more;
            memcpy(bad + bad_len, why, k);
            bad[bad_len + k] = '\n';
            bad[bad_len + k + 1] = '\0';
            bad_len += k + 1;
            undecoded++;
        } else if (n < 0)
            status = EXIT_USER;
        else if (u != 0 && n == 0)
            left++;
        else if (n > 0)
            frames++, crops_n += n;
    }
    if (csv && fclose(csv) != 0 && status == 0)
        status = cli_user_error(cmd, "%s/labels.csv: cannot be written (%s)", dest, strerror(errno));
    if (status == 0 && frames == 0)
        status =
            cli_user_error(cmd,
                           "%s: no start or move with its frame and board place in events.jsonl (%d frames "
                           "cannot be decoded)",
                           out_dir, undecoded);
    if (status != 0 && ready)
        dest_undo(dest, made); /* a failed run leaves DEST as it found it */
    for (char *p = bad, *nl; status == 0 && p && (nl = strchr(p, '\n')) != NULL; p = nl + 1) {
        *nl = '\0'; /* one warning a frame, naming its file (the reason starts with the path) */
        (void)cli_user_error(cmd, "warning: %s: left out", p); /* said as a user line: no function names */
    }
    if (status == 0)
        printf(
            "%d square crops and %d komadai crops of %d frames (the start and the moves) written to %s; left "
            "out: %d frames (no frame or board place), %d frames that cannot be decoded (named on stderr), "
            "%d stands (the pieces read are not the hand recorded)\n",
            crops_n, kn, frames, dest, left, undecoded, kleft);
    free(bad);
    free(line);
    free(crops);
    free(kcrops);
    free(ev);
    fclose(ev_f);
    vis_classifier_destroy(clf);
    return status;
}
