/* recognize.c - the recognize command: one photo to an SFEN (board and mochigoma). */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <libgen.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture/capture.h"
#include "recorder/record/record.h"
#include "rules/rules.h"
#include "vision/vision.h"

#include "recorder/cli/cli.h"

#define RECOGNIZE_USAGE                                                                                      \
    "kifucam recognize IMAGE [--json] [--overlay OUT.png] [--sente SIDE] [--handicap NAME] "                 \
    "[--reference START [--reference-sfen SFEN]] [--model FILE]"

/* What IMAGE must be, for the line that refuses anything else (a video, a camera, a text file). */
#define RECOGNIZE_READS_ONE                                                                                  \
    "recognize reads one photo (JPEG, PNG, BMP, TIFF, WebP, PPM or GIF); videos and cameras are for "        \
    "kifucam "                                                                                               \
    "record"

void recognize_help(void) {
    printf(
        "usage: " RECOGNIZE_USAGE "\n"
        "\n"
        "Finds the board in one photo and reads its 81 squares with the square classifier\n"
        "(models/squares.onnx, or $KIFUCAM_MODEL, or --model). Prints the SFEN: the board as seen with\n"
        "the image's lower side as sente's (a camera at the side: the better-reading quarter turn),\n"
        "the hands read from the two komadai (vis_komadai_read: the areas beside the board on each\n"
        "player's right; a stand out of view is unknown: a warning says so, and as an SFEN cannot say\n"
        "unknown its part of the hands field is left empty, '-' when neither hand is read; the JSON\n"
        "has null), side to move 'b' (a photo does not say whose turn it is).\n"
        "--json adds the grid corners, the pose score (\"found_by\": lines or pieces, \"grid_moved\": null "
        "or\n"
        "the row or file it was moved, \"off_board_strips\": the outer strips that are not the board,\n"
        "files first, and the move made for each), each square's class and confidence, and per stand\n"
        "and kind the count read, its probability and the distribution over counts (\"p\": [p0, p1, ...]);\n"
        "--overlay writes the photo with the grid and the read labels drawn on it.\n"
        "--sente SIDE (bottom, top, left, right: the side of the image where sente sits) turns the\n"
        "reading when the camera is elsewhere: the pieces show the axis, but a position seen from the\n"
        "other end is the same game with the colours swapped, so a photo alone cannot say which end is\n"
        "sente's.\n"
        "With both komadai in view the board and the stands are read as one set (40 pieces; --handicap\n"
        "NAME: that handicap game's set): each revision of a square or a stand count is a note on stderr\n"
        "and in the JSON's \"one_set\"; a reading too far from the set is kept and said so. A reading\n"
        "that is no possible position (two sente kings, 14 silvers, nifu...) is a warning and, in the\n"
        "JSON, \"possible_position\": {\"ok\": false, \"why\": ...}.\n"
        "--reference START (a photo of the same piece set set up for the game: the even start, or\n"
        "--handicap NAME's) learns the set from it as the recorder does at a game's start: each square\n"
        "of START labelled with the start's piece, a square that looks like another class's pieces left\n"
        "out; IMAGE's squares are then judged by their likeness to the set's pieces too (a note says how\n"
        "many squares were learned, pieces and empty squares alike, and that the others were left out\n"
        "unread, each looking more like another piece than the position's; the JSON's \"reference\").\n"
        "A START more than 8 squares off the\n"
        "start position is refused with one line. --reference-sfen SFEN: START shows that position\n"
        "instead (a board field alone will do), e.g. an earlier photo of the same game.\n"
        "--reference OUT_DIR (the --out folder of kifucam record): the set is learned from the frames\n"
        "of its start and moves, each square labelled with the recorded position's piece.\n"
        "An IMAGE whose name starts with '-' goes after '--' (kifucam recognize --json -- -1.jpg).\n"
        "Exit 1 with one line when IMAGE is not a photo (a video file, a camera: kifucam record reads\n"
        "those) or no board is found.\n");
    char names[256];
    cli_handicap_names(names, sizeof names);
    printf("Handicap names: %s.\n", names);
}

static const char *const image_side[4] = {"bottom", "right", "top", "left"};

/* Whether path can take the overlay picture: a file name OpenCV writes by its extension (PNG, JPEG,
 * BMP, TIFF, WebP, PPM/PGM) in an existing writable folder, not a folder itself, not the photo being
 * read (image: it would be overwritten), and that opens for writing (an empty file made for the test
 * is removed again). Checked before the photo is read, so a typo costs one line, not the reading. 0 or
 * -1 with the reason in why. */
static int overlay_path_ok(const char *path, const char *image, char *why, size_t size) {
    static const char *const ext[] = {".png",  ".jpg",  ".jpeg", ".bmp", ".tif",
                                      ".tiff", ".webp", ".ppm",  ".pgm"};
    const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
    int known = 0;
    for (size_t i = 0; dot && (!slash || dot > slash) && i < sizeof ext / sizeof ext[0]; i++)
        known |= strcasecmp(dot, ext[i]) == 0;
    if (!known) {
        snprintf(why, size, "give a picture file name ending in .png, .jpg, .bmp, .tif or .webp");
        return -1;
    }
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", path);
    const char *dir = dirname(buf); /* POSIX: "a/o.png" -> "a", "o.png" -> ".", "/o.png" -> "/" */
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(why, size, "the folder '%.200s' does not exist", dir);
        return -1;
    }
    if (access(dir, W_OK) != 0) {
        snprintf(why, size, "the folder '%.200s' is not writable", dir);
        return -1;
    }
    int exists = stat(path, &st) == 0;
    if (exists && S_ISDIR(st.st_mode)) {
        snprintf(why, size, "it is a folder");
        return -1;
    }
    struct stat in_st;
    if (exists && stat(image, &in_st) == 0 && in_st.st_dev == st.st_dev && in_st.st_ino == st.st_ino) {
        snprintf(why, size, "it is IMAGE itself: the photo would be overwritten");
        return -1;
    }
    /* the folder may say writable and still take no file (/proc, /sys, a read-only mount as root): open
     * it as the writer will, and remove what this made */
    int fd = open(path, (exists ? O_WRONLY : O_WRONLY | O_CREAT | O_EXCL) | O_NONBLOCK, 0644);
    if (fd < 0) {
        if (exists)
            snprintf(why, size, "it cannot be written (%s)", strerror(errno));
        else
            snprintf(why, size, "the folder '%.200s' takes no new file (%s)", dir, strerror(errno));
        return -1;
    }
    close(fd);
    if (!exists)
        unlink(path);
    return 0;
}

/* recognize's notes and warnings, held until a position is printed: a photo that turns out to hold no
 * board, or any other error, ends with its one error line only (main_help: "one line on stderr"). */
typedef struct {
    char text[16384]; /* the lines, each ending in '\n'; cut (with "...") when they would not fit */
    size_t len;
} said_t;

static void say(said_t *s, const char *fmt, ...) {
    if (s->len >= sizeof s->text - 1)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(s->text + s->len, sizeof s->text - s->len, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n >= sizeof s->text - s->len) { /* cut: end it as a line */
        s->len = sizeof s->text - 1;
        memcpy(s->text + s->len - 4, "...\n", 4);
    } else {
        s->len += (size_t)n;
    }
}

/* The options of recognize. */
typedef struct {
    const char *path, *overlay, *model, *reference, *reference_sfen;
    int json;
    vis_photo_params_t vp;
} recognize_opts_t;

/* Parses argv into *o. Returns 0, or the exit status with its line said. */
static int parse_args(int argc, char **argv, recognize_opts_t *o) {
    const char *cmd = "recognize", *val;
    int rc;
    for (int i = 1; i < argc; i++) {
        if ((rc = cli_opt_flag(cmd, argv, i, "--json")) != 0) {
            if (rc < 0)
                return EXIT_USER;
            o->json = 1;
        } else if ((rc = cli_opt_value(cmd, argc, argv, &i, "--overlay", &val)) != 0) {
            if (rc < 0)
                return EXIT_USER;
            o->overlay = val;
        } else if ((rc = cli_opt_value(cmd, argc, argv, &i, "--model", &val)) != 0) {
            if (rc < 0)
                return EXIT_USER;
            o->model = val;
        } else if ((rc = cli_opt_value(cmd, argc, argv, &i, "--reference", &val)) != 0) {
            if (rc < 0)
                return EXIT_USER;
            o->reference = val;
        } else if ((rc = cli_opt_value(cmd, argc, argv, &i, "--reference-sfen", &val)) != 0) {
            if (rc < 0)
                return EXIT_USER;
            o->reference_sfen = val;
        } else if ((rc = cli_opt_value(cmd, argc, argv, &i, "--handicap", &val)) != 0) {
            if (rc < 0)
                return EXIT_USER;
            if (rul_handicap_from_name(val, &o->vp.handicap) != RUL_OK) {
                char names[256];
                cli_handicap_names(names, sizeof names);
                return cli_user_error(cmd, "--handicap '%.40s': not a handicap (%s)", val, names);
            }
        } else if ((rc = cli_opt_value(cmd, argc, argv, &i, "--sente", &val)) != 0) {
            int side = 0;
            if (rc < 0)
                return EXIT_USER;
            while (side < 4 && strcmp(val, image_side[side]) != 0)
                side++;
            if (side == 4)
                return cli_user_error(
                    cmd,
                    "--sente '%.40s': give the side of the image where sente sits: bottom, top, left "
                    "or right",
                    val);
            o->vp.sente_side = side;
        } else if (strcmp(argv[i], "--") == 0 && i + 1 < argc && !o->path) { /* IMAGE may start with '-' */
            o->path = argv[++i];
            if (i + 1 < argc)
                return cli_user_error(cmd, "unexpected argument '%.80s' (usage: " RECOGNIZE_USAGE ")",
                                      argv[i + 1]);
        } else if (cli_is_option(argv[i])) {
            return cli_user_error(cmd, "unknown option '%.80s' (see kifucam recognize --help)", argv[i]);
        } else if (o->path) {
            return cli_user_error(cmd, "unexpected argument '%.80s' (usage: " RECOGNIZE_USAGE ")", argv[i]);
        } else {
            o->path = argv[i];
        }
    }
    if (o->path == NULL || o->path[0] == '\0') /* "" (an unset shell variable) names no file */
        return cli_user_error(cmd, "missing IMAGE (usage: " RECOGNIZE_USAGE ")");
    if (o->reference_sfen && !o->reference)
        return cli_user_error(cmd, "--reference-sfen needs --reference START");
    return 0;
}

/* The notes on how the grid was taken: by its pieces, turned across, moved, off-board strips. */
static void say_grid(said_t *said, const vis_photo_t *r, int sente_side) {
    if (r->by_pieces) {
        vis_pose_params_t pp;
        vis_pose_params_default(&pp);
        say(said,
            "kifucam recognize: warning: the grid scored %.2f, under the %.2f of a board found by its "
            "lines; taken as a board because %d of its squares read as pieces with at least %.0f %% "
            "confidence: check it with --overlay\n",
            r->pose.score, pp.min_score, r->npieces, 100 * VIS_BY_PIECES_MIN_CONF);
    }
    if (r->read_across)
        say(said, "kifucam recognize: note: the pieces point across; read with sente at the %s as told\n",
            image_side[sente_side]);
    if (r->shifted)
        say(said,
            "kifucam recognize: note: the grid found (pose confidence %.2f) reads no possible position; "
            "moved %s it reads one, with %d pieces on the board (%d before)\n",
            r->pose.confidence, r->shift.towards, r->shift.pieces, r->shift.pieces_before);
    for (int axis = 0; axis < 2; axis++) {
        if (!r->off_strip[axis])
            continue;
        if (r->off_moved[axis])
            say(said,
                "kifucam recognize: warning: the squares of %s do not look like the board (its edge or "
                "the table beyond it), and the board runs past the image on the other side: the grid was "
                "moved %s (check it with --overlay)\n",
                r->off_strip[axis], r->off_moved[axis]);
        else
            say(said,
                "kifucam recognize: warning: the squares of %s do not look like the board (its edge or "
                "the table beyond it): the grid may be one square over (check it with --overlay)\n",
                r->off_strip[axis]);
    }
}

/* The notes of the one-set reading: each revision of a square or a stand count, or why none. */
static void say_one_set(said_t *said, const vis_photo_t *r, rul_handicap_t handicap) {
    const vis_board_read_t *rd = &r->board;
    const vis_komadai_read_t *kr = &r->hands;
    const vis_position_fix_t *fix = &r->fix;
    if (r->decoded && fix->applied) {
        for (int i = 0; i < fix->nsquares; i++) {
            int sq = fix->squares[i];
            say(said,
                "kifucam recognize: note: %d%c read as '%s' taken as '%s' (p %.2f) so that the "
                "board and the komadai hold one set\n",
                sq / 9 + 1, 'a' + sq % 9, r->was_cls[sq] ? vis_class_sfen(r->was_cls[sq]) : "empty",
                rd->cls[sq] ? vis_class_sfen(rd->cls[sq]) : "empty", rd->conf[sq]);
        }
        for (int s = 0; s < 2; s++)
            for (int k = 0; k < VIS_HAND_KIND_NB; k++)
                if (fix->hand_delta[s][k])
                    say(said,
                        "kifucam recognize: note: %s's %c count read as %d taken as %d (p %.2f) "
                        "so that the board and the komadai hold one set\n",
                        s ? "gote" : "sente", "PLNSBRG"[k], r -> hands_read[s][k], kr -> count[s][k],
                        kr -> conf[s][k]);
    } else if (r->decoded && isfinite(fix->cost)) {
        say(said,
            "kifucam recognize: note: the board and the komadai cannot be made one set "
            "without changes costing %.1f nats of log-probability (at most 12 are taken): only a "
            "kind read more often than a set has it is revised\n",
            fix->cost);
    } else if (r->decoded) {
        say(said, "kifucam recognize: note: no revision the reading allows makes the board and "
                  "the komadai one set: only a kind read more often than a set has it is revised\n");
    }
    if (r->handicap_unused && handicap != RUL_HC_EVEN)
        say(said, "kifucam recognize: note: --handicap is not used: the set is judged only with both "
                  "komadai in view\n");
    for (int i = 0; i < r->nconstrained; i++) {
        int sq = r->constrained[i];
        say(said,
            "kifucam recognize: note: %d%c read as '%s' makes too many of a kind for one set; "
            "taken as '%s' (p %.2f)\n",
            sq / 9 + 1, 'a' + sq % 9, vis_class_sfen(r->was_cls[sq]),
            rd->cls[sq] ? vis_class_sfen(rd->cls[sq]) : "empty", rd->conf[sq]);
    }
}

/* The warnings of doubt: stands out of view or unsure, squares unsure or not seen, outer lines at the
 * image's edge, a reading that is no possible position. */
static void say_doubts(said_t *said, const vis_photo_t *r) {
    const vis_board_read_t *rd = &r->board;
    const vis_komadai_read_t *kr = &r->hands;
    char list[81 * 4 + 1];
    size_t n = 0;
    int count = 0;
    for (int s = 0; s < 2; s++) {
        if (!kr->known[s]) {
            say(said,
                "kifucam recognize: warning: %s's komadai is not in view: %s's hand is unknown (an SFEN "
                "cannot "
                "say so: its hands field leaves %s's pieces out, '-' when no hand is read, which here does "
                "not "
                "mean none in hand)\n",
                s ? "gote" : "sente", s ? "gote" : "sente", s ? "gote" : "sente");
            continue;
        }
        for (int k = 0; k < VIS_HAND_KIND_NB; k++)
            if (kr->conf[s][k] < 0.6f)
                say(said, "kifucam recognize: warning: %s's %c count read as %d with %.0f %% confidence\n",
                    s ? "gote" : "sente", "PLNSBRG"[k], kr -> count[s][k], 100.0 * kr -> conf[s][k]);
    }
    list[0] = '\0';
    for (int sq = 0; sq < VIS_SQUARE_NB; sq++)
        if (rd->conf[sq] < 0.6f) {
            count++;
            n += (size_t)snprintf(list + n, sizeof list - n, " %d%c", sq / 9 + 1, 'a' + sq % 9);
        }
    if (count)
        say(said, "kifucam recognize: warning: %d square%s read with less than 60 %% confidence:%s\n", count,
            count == 1 ? "" : "s", list);
    for (int dir = 0; dir < 2; dir++) {
        int a = r->outer[2 * dir], b = r->outer[2 * dir + 1];
        if ((a == VIS_OUTER_IN) == (b == VIS_OUTER_IN) && (a != VIS_OUTER_PAST && b != VIS_OUTER_PAST))
            continue; /* both in view, or both on the edge (a straightened photo) */
        static const char *const name[4] = {"beyond file 9", "beyond file 1", "beyond rank 1",
                                            "beyond rank 9"};
        char which[64];
        if (a != VIS_OUTER_IN && b != VIS_OUTER_IN)
            snprintf(which, sizeof which, "lines %s and %s lie", name[2 * dir], name[2 * dir + 1]);
        else
            snprintf(which, sizeof which, "line %s lies", name[a == VIS_OUTER_IN ? 2 * dir + 1 : 2 * dir]);
        say(said,
            "kifucam recognize: warning: the grid's outer %s on the image's edge or past it: if the "
            "board is cut there, every %s may be read one or more over (check it with --overlay)\n",
            which, dir ? "rank" : "file");
    }
    n = 0;
    count = 0;
    list[0] = '\0';
    for (int sq = 0; sq < VIS_SQUARE_NB; sq++)
        if (r->unseen[sq]) {
            n += (size_t)snprintf(list + n, sizeof list - n, " %d%c", sq / 9 + 1, 'a' + sq % 9);
            count++;
        }
    if (count)
        say(said,
            "kifucam recognize: warning: %d square%s of the grid lie outside the image or across its "
            "edge, not seen (read as what the image shows there; the grid may be misplaced):%s\n",
            count, count == 1 ? "" : "s", list);
    if (r->impossible[0]) {
        say(said, "kifucam recognize: warning: the board read is not a possible position: %s\n",
            r->impossible);
        if (r->pose.confidence < 0.6 && !r->shifted)
            say(said,
                "kifucam recognize: warning: the grid may be misplaced by a row or a file (pose "
                "confidence %.2f): check it with --overlay before using this position\n",
                r->pose.confidence);
    }
}

/* JSON: the hands, per stand and kind the count, its confidence and the distribution over counts. */
static void json_hands(const vis_komadai_read_t *kr) {
    for (int s = 0; s < 2; s++) {
        printf("%s\"%s\": ", s ? ", " : "", s ? "gote" : "sente");
        if (!kr->known[s]) {
            printf("null");
            continue;
        }
        printf("{\"pieces_seen\": %d, \"min_confidence\": %.3f, \"counts\": {", kr->pieces[s],
               kr->min_conf[s]);
        for (int k = 0; k < VIS_HAND_KIND_NB; k++) {
            int last = kr->count[s][k];
            for (int n = 0; n < VIS_HAND_COUNT_NB; n++)
                if (kr->prob[s][k][n] >= 0.0005f && n > last)
                    last = n;
            printf("%s\"%c\": {\"n\": %d, \"confidence\": %.3f, \"p\": [", k ? ", " : "", "PLNSBRG"[k],
                   kr -> count[s][k], kr -> conf[s][k]);
            for (int n = 0; n <= last; n++)
                printf("%s%.3f", n ? ", " : "", kr->prob[s][k][n]);
            printf("]}");
        }
        printf("}}");
    }
}

/* JSON: the one-set reading (null when both stands were not in view) and whether it is a position. */
static void json_one_set(const vis_photo_t *r, rul_handicap_t handicap) {
    const vis_position_fix_t *fix = &r->fix;
    rul_handicap_info_t hc_info;
    rul_handicap_info(handicap, &hc_info);
    printf("}, \"one_set\": ");
    if (!r->decoded) {
        printf("null");
    } else {
        printf("{\"applied\": %s, \"cost_nats\": ", fix->applied ? "true" : "false");
        if (isfinite(fix->cost))
            printf("%.2f", fix->cost);
        else
            printf("null"); /* the set cannot be reached at all */
        printf(", \"set\": \"%s\", \"squares_revised\": [", hc_info.name);
        for (int i = 0; fix->applied && i < fix->nsquares; i++)
            printf("%s\"%d%c\"", i ? ", " : "", fix->squares[i] / 9 + 1, 'a' + fix->squares[i] % 9);
        printf("], \"hands_revised\": {");
        for (int s = 0; s < 2; s++) {
            printf("%s\"%s\": {", s ? ", " : "", s ? "gote" : "sente");
            for (int k = 0, first = 1; fix->applied && k < VIS_HAND_KIND_NB; k++)
                if (fix->hand_delta[s][k]) {
                    printf("%s\"%c\": %d", first ? "" : ", ", "PLNSBRG"[k], fix -> hand_delta[s][k]);
                    first = 0;
                }
            printf("}");
        }
        printf("}}");
    }
    printf(", \"possible_position\": ");
    if (r->impossible[0]) { /* the reason, JSON-escaped by jansson */
        json_t *why = json_string(r->impossible);
        char *t = why ? json_dumps(why, JSON_ENCODE_ANY) : NULL;
        printf("{\"ok\": false, \"why\": %s}", t ? t : "null");
        free(t);
        json_decref(why);
    } else {
        printf("{\"ok\": true, \"why\": null}");
    }
}

/* JSON: how the grid was taken (by its lines or its pieces, moved, off-board strips, outer lines). */
static void json_pose(const vis_photo_t *r) {
    const vis_pose_t *pose = &r->pose;
    printf(", \"pose\": {\"found_by\": \"%s\", \"grid_moved\": ", r->by_pieces ? "pieces" : "lines");
    if (r->shifted)
        printf("{\"towards\": \"%s\", \"pieces\": %d, \"pieces_before\": %d}", r->shift.towards,
               r->shift.pieces, r->shift.pieces_before);
    else
        printf("null");
    printf(", \"off_board_strips\": [");
    for (int axis = 0, n = 0; axis < 2; axis++)
        if (r->off_strip[axis]) {
            printf("%s{\"strip\": \"%s\", \"moved\": ", n++ ? ", " : "", r->off_strip[axis]);
            if (r->off_moved[axis])
                printf("\"%s\"}", r->off_moved[axis]);
            else
                printf("null}");
        }
    printf("]");
    static const char *const where[3] = {"in view", "on the edge", "past the edge"};
    printf(", \"outer_lines\": {\"beyond_file9\": \"%s\", \"beyond_file1\": \"%s\", \"beyond_rank1\": "
           "\"%s\", "
           "\"beyond_rank9\": \"%s\"}",
           where[r->outer[0]], where[r->outer[1]], where[r->outer[2]], where[r->outer[3]]);
    printf(", \"score\": %.3f, \"confidence\": %.3f, \"rms_px\": %.2f, \"orientation\": %d, "
           "\"corners\": [[%.1f, %.1f], [%.1f, %.1f], [%.1f, %.1f], [%.1f, %.1f]]}",
           pose->score, pose->confidence, pose->rms_px, r->board.orientation, pose->corners[0][0],
           pose->corners[0][1], pose->corners[1][0], pose->corners[1][1], pose->corners[2][0],
           pose->corners[2][1], pose->corners[3][0], pose->corners[3][1]);
}

/* JSON: each square's class and confidence; a square outside the image is unknown: its piece null,
 * what the image's edge read as beside it. */
static void json_squares(const vis_photo_t *r) {
    const vis_board_read_t *rd = &r->board;
    printf(", \"min_confidence\": %.3f, \"squares\": [", rd->min_conf);
    for (int sq = 0; sq < VIS_SQUARE_NB; sq++) {
        printf("%s{\"square\": \"%d%d\", ", sq ? ", " : "", sq / 9 + 1, sq % 9 + 1);
        if (r->unseen[sq])
            printf("\"piece\": null, \"seen\": false, \"read_as\": \"%s\", ", vis_class_sfen(rd->cls[sq]));
        else
            printf("\"piece\": \"%s\", \"seen\": true, ", vis_class_sfen(rd->cls[sq]));
        printf("\"confidence\": %.3f}", rd->conf[sq]);
    }
    printf("], \"unseen\": [");
    for (int sq = 0, first = 1; sq < VIS_SQUARE_NB; sq++)
        if (r->unseen[sq]) {
            printf("%s\"%d%d\"", first ? "" : ", ", sq / 9 + 1, sq % 9 + 1);
            first = 0;
        }
    printf("]}\n");
}

/* The piece set learned from --reference (rec_adapt_learn_start), for vis_photo_params_t.reweigh. */
typedef struct {
    rec_adapt_t *set;
    rec_ref_t ref;
    int frames; /* --reference OUT_DIR: the recording's frames learned (0: a photo) */
} reference_t;

#define REF_FRAMES_MAX 400 /* frames of a recording learned at most (the start and the first moves) */

/* --reference OUT_DIR (a finished recording, the --out folder of kifucam record): the set learned from
 * the frame after its start and each move (events.jsonl, evidence/), every square labelled with the
 * piece the recorded position holds there: labels as sure as the kifu, promoted pieces included once
 * the game made them. Returns 0, or the exit status with its one line said. */
static int reference_learn_recording(vis_classifier_t *clf, const recognize_opts_t *o, reference_t *rf) {
    const char *cmd = "recognize";
    char path[4200], err[512], *line = NULL;
    size_t cap = 0;
    int status = 0, cls[VIS_SQUARE_NB];
    snprintf(path, sizeof path, "%s/events.jsonl", o->reference);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return cli_user_error(cmd,
                              "--reference %s: a folder without events.jsonl (give a photo of the start "
                              "position, or the --out folder of kifucam record)",
                              o->reference);
    cli_rec_event_t *ev = malloc(sizeof *ev);
    vis_board_read_t *rd = malloc(sizeof *rd);
    if (ev == NULL || rd == NULL)
        status = cli_internal_error(cmd, "out of memory");
    while (status == 0 && rf->frames < REF_FRAMES_MAX && getline(&line, &cap, f) > 0) {
        cap_image_t img = {0, 0, 0, NULL};
        vis_pose_t pose;
        rul_pos_t pos;
        rul_error_t rerr;
        memset(&rerr, 0, sizeof rerr);
        if (cli_rec_event_read(o->reference, line, ev) != 1 ||
            rul_pos_from_sfen(&pos, ev->sfen, &rerr) != RUL_OK ||
            cap_image_load(ev->frame, &img, err, sizeof err) != 0)
            continue;
        if (img.width == ev->w && img.height == ev->h &&
            vis_pose_from_corners((const double(*)[2])ev->corners, img.width, img.height, &pose) == VIS_OK) {
            if (vis_classifier_read(clf, &img, &pose, rd) != VIS_OK)
                status = cli_internal_error(cmd, "%s", vis_classifier_errmsg(clf));
            else if (!rd->has_feat)
                status = cli_user_error(
                    cmd, "--reference: the model %s gives no embeddings to learn a piece set from", o->model);
            else {
                for (int sq = 0; sq < VIS_SQUARE_NB; sq++)
                    cls[sq] = REC_OBS_CLASS(rul_pos_piece_at(&pos, sq));
                if (rec_adapt_learn(rf->set, (const float(*)[REC_FEAT_NB])rd->feat, cls, VIS_SQUARE_NB) ==
                        REC_OK &&
                    rec_adapt_learn_red(rf->set, rd->red, cls, VIS_SQUARE_NB) == REC_OK)
                    rf->frames++;
            }
        }
        cap_image_free(&img);
    }
    if (status == 0 && rf->frames == 0)
        status = cli_user_error(cmd, "--reference %s: no start or move with its frame in events.jsonl",
                                o->reference);
    rf->ref.learned = rf->frames * VIS_SQUARE_NB;
    free(line);
    free(ev);
    free(rd);
    fclose(f);
    return status;
}

static void reference_reweigh(vis_board_read_t *read, void *user) {
    const reference_t *rf = user;
    if (read->has_feat) {
        rec_adapt_apply(rf->set, (const float(*)[REC_FEAT_NB])read->feat, read->prob, VIS_SQUARE_NB, NULL);
        rec_adapt_apply_red(rf->set, read->red, read->prob, VIS_SQUARE_NB);
    }
}

/* Reads the photo o->reference with clf and learns its piece set into rf (the start of o->vp.handicap).
 * Returns 0, or the exit status with its one line said. */
static int reference_learn(vis_classifier_t *clf, const recognize_opts_t *o, reference_t *rf) {
    const char *cmd = "recognize";
    char err[4800];
    cap_image_t img = {0, 0, 0, NULL};
    vis_photo_t *r = malloc(sizeof *r);
    vis_photo_params_t vp;
    rul_pos_t start;
    rul_handicap_info_t hc;
    char what[160], full[300];
    int rc, status = 0;
    vis_photo_params_default(&vp);
    vp.handicap = o->vp.handicap;
    rul_handicap_info(o->vp.handicap, &hc);
    snprintf(what, sizeof what,
             o->reference_sfen ? "the position of --reference-sfen" : "the %s start position", hc.name);
    if (o->reference_sfen) { /* a board field alone: sente to move, no hands (only the board is used) */
        snprintf(full, sizeof full, "%.250s%s", o->reference_sfen,
                 strchr(o->reference_sfen, ' ') ? "" : " b - 1");
        if ((status = cli_load_sfen_opt(cmd, "--reference-sfen", o->reference_sfen, full, 0, &start)) != 0) {
            free(r);
            return status;
        }
    } else if (rul_pos_set_handicap(&start, o->vp.handicap) != RUL_OK) {
        free(r);
        return cli_internal_error(cmd, "no start position for handicap %d", (int)o->vp.handicap);
    }
    if (r == NULL || rec_adapt_create(NULL, &rf->set) != REC_OK) {
        free(r);
        return cli_internal_error(cmd, "out of memory");
    }
    struct stat st;
    if (stat(o->reference, &st) == 0 && S_ISDIR(st.st_mode)) {
        free(r);
        if (o->reference_sfen)
            return cli_user_error(cmd, "--reference-sfen: a recording (%s) says its positions itself",
                                  o->reference);
        return reference_learn_recording(clf, o, rf);
    }
    if ((rc = cap_image_load(o->reference, &img, err, sizeof err)) != 0) {
        status = rc == CAP_E_NOMEM ? cli_internal_error(cmd, "%s", err)
                                   : cli_user_error(cmd, "--reference: %s", err);
    } else if (vis_photo_read(clf, &img, &vp, r, err, sizeof err) != 0) {
        status = cli_internal_error(cmd, "%s", err);
    } else if (r->outcome != VIS_PHOTO_BOARD) {
        status = cli_user_error(cmd, "--reference %s: no board found", o->reference);
    } else if ((rc = rec_adapt_learn_start(rf->set, &r->board, &start, &rf->ref)) == REC_EINVALID) {
        status = cli_user_error(cmd,
                                "--reference %s: not %s: %d squares hold a piece where it has none, or none "
                                "or the other player's where it has one (at most %d)",
                                o->reference, what, rf->ref.misses, REC_REF_MAX_MISS);
    } else if (rc == REC_ESTATE) {
        status = cli_user_error(
            cmd, "--reference: the model %s gives no embeddings to learn a piece set from", o->model);
    } else if (rc != REC_OK) {
        status = cli_internal_error(cmd, "learning the piece set of %s failed (%d)", o->reference, rc);
    }
    free(r);
    cap_image_free(&img);
    return status;
}

/* The user's line for a photo that holds no board (outcome other than VIS_PHOTO_BOARD). */
static int no_board(const char *path, const cap_image_t *img, const vis_photo_t *r) {
    const char *cmd = "recognize";
    if (r->outcome == VIS_PHOTO_THIN)
        return cli_user_error(cmd, "%s: no board found (the image, %dx%d, is too thin to hold a 9x9 board)",
                              path, img->width, img->height);
    if (r->outcome == VIS_PHOTO_ONE_MARK)
        return cli_user_error(cmd,
                              "%s: no board found: a 9x9 grid was found (grid score %.2f), but its squares "
                              "read as %d pieces more than a shogi set holds, %d of the %d as one class (one "
                              "mark repeated): not taken as a board",
                              path, r->pose.score, r->excess, r->top, r->npieces_read);
    if (r->outcome == VIS_PHOTO_NOT_PIECES)
        return cli_user_error(
            cmd,
            "%s: no board found: a 9x9 grid was found (grid score %.2f), but the %d squares "
            "read as pieces have a median confidence of %.2f (a shogi board's, %.2f or "
            "more): not taken as a board",
            path, r->pose.score, r->npieces_read, r->median_conf, VIS_PHOTO_NOT_PIECES_CONF);
    return cli_user_error(cmd, "%s: no board found (best grid score %.2f)", path, r->pose.score);
}

/* The note of what --reference START gave, in plain words: the squares learned (pieces and empty squares
 * alike), the others left out and why (rec_adapt_learn_start: a square that looks more like another class
 * than the position's piece there is not learned), the squares that are not the position's at all. */
static void say_reference(said_t *said, const char *start, const rec_ref_t *ref) {
    int other = VIS_SQUARE_NB - ref->learned;
    char learned[64], left[300] = "", miss[200] = "";
    if (other == 0)
        snprintf(learned, sizeof learned, "all %d of its squares", VIS_SQUARE_NB);
    else
        snprintf(learned, sizeof learned, "%d of its %d squares", ref->learned, VIS_SQUARE_NB);
    if (other > 0)
        snprintf(left, sizeof left,
                 "; %s left out, unread: %s more like another piece, or like an empty square, than like what "
                 "the position it shows has there (a misread or a piece out of place)",
                 other == 1 ? "the other square was" : "the other squares were",
                 other == 1 ? "it looked" : "each looked");
    if (other > 1) /* the count, for the reader who adds up */
        snprintf(
            left, sizeof left,
            "; the other %d were left out, unread: each looked more like another piece, or like an empty "
            "square, than like what the position it shows has there (a misread or a piece out of place)",
            other);
    if (ref->misses > 0)
        snprintf(miss, sizeof miss,
                 "; %d square%s not the position's at all (a piece where it has none, none where it has one, "
                 "or the other player's)",
                 ref->misses, ref->misses == 1 ? " is" : "s are");
    say(said,
        "kifucam recognize: note: --reference %s: the piece set learned from %s (pieces and empty squares "
        "alike)%s%s%s\n",
        start, learned, left, miss, ref->turned ? "; START read from gote's end" : "");
}

int cmd_recognize(int argc, char **argv) {
    const char *cmd = "recognize";
    static char model_buf[4096];
    recognize_opts_t o = {NULL, NULL, rec_model_default(model_buf, sizeof model_buf), NULL, NULL, 0, {0}};
    reference_t ref = {NULL, {0, 0, 0}, 0};
    char err[4800];
    cap_image_t img = {0, 0, 0, NULL};
    vis_classifier_t *clf = NULL;
    vis_photo_t *r = NULL;
    static said_t said;
    int rc, status;
    said.len = 0;
    said.text[0] = '\0';
    vis_photo_params_default(&o.vp);
    if ((status = parse_args(argc, argv, &o)) != 0)
        return status;
    if (o.overlay && overlay_path_ok(o.overlay, o.path, err, sizeof err) != 0)
        return cli_user_error(cmd, "--overlay '%.200s': %s", o.overlay, err);
    struct stat st;
    int found = stat(o.path, &st) == 0;
    if ((found && S_ISCHR(st.st_mode)) ||
        (!found && (strncmp(o.path, "v4l2:", 5) == 0 || strstr(o.path, "://") != NULL)))
        return cli_user_error(cmd, "%s: %s, not a photo file: " RECOGNIZE_READS_ONE, o.path,
                              found ? "a device" : "a camera or a stream");
    rc = cap_image_load(o.path, &img, err, sizeof err);
    if (rc == CAP_E_FORMAT) /* a video, a text file: recognize reads one photo */
        return cli_user_error(cmd, "%s: " RECOGNIZE_READS_ONE, err);
    if (rc != 0)
        return rc == CAP_E_NOMEM ? cli_internal_error(cmd, "%s", err) : cli_user_error(cmd, "%s", err);
    if (!vis_photo_fits(&img)) {
        status = no_board(o.path, &img, &(vis_photo_t){.outcome = VIS_PHOTO_THIN});
        goto out;
    }
    /* the model before the search: a missing or wrong model file is said whatever the photo shows */
    if ((rc = vis_classifier_open(o.model, &clf)) != 0) { /* a missing or wrong model file is the user's */
        status =
            rc == VIS_E_NOMEM
                ? cli_internal_error(cmd, "%s", vis_classifier_errmsg(clf))
                : cli_user_error(cmd, "%s; the square classifier is given by --model FILE or KIFUCAM_MODEL",
                                 vis_classifier_errmsg(clf));
        goto out;
    }
    if ((r = malloc(sizeof *r)) == NULL) {
        status = cli_internal_error(cmd, "out of memory");
        goto out;
    }
    if (o.reference) {
        if ((status = reference_learn(clf, &o, &ref)) != 0)
            goto out;
        o.vp.reweigh = reference_reweigh;
        o.vp.reweigh_user = &ref;
        if (ref.frames > 0)
            say(&said,
                "kifucam recognize: note: --reference %s: the piece set learned from %d frames of the "
                "recording\n",
                o.reference, ref.frames);
        else
            say_reference(&said, o.reference, &ref.ref);
    }
    if (vis_photo_read(clf, &img, &o.vp, r, err, sizeof err) != 0) {
        status = cli_internal_error(cmd, "%s", err);
        goto out;
    }
    if (r->outcome == VIS_PHOTO_NO_GRID || r->outcome == VIS_PHOTO_THIN) {
        status = no_board(o.path, &img, r);
        goto out;
    }
    /* the overlay is drawn before the reading is judged: a grid that is no board is drawn too */
    if (o.overlay && vis_overlay_write(&img, &r->pose, &r->board, o.overlay, err, sizeof err) != 0) {
        status = cli_user_error(cmd, "%s", err);
        goto out;
    }
    if (r->outcome != VIS_PHOTO_BOARD) {
        status = no_board(o.path, &img, r);
        goto out;
    }
    say_grid(&said, r, o.vp.sente_side);
    say_one_set(&said, r, o.vp.handicap);
    say_doubts(&said, r);
    fputs(said.text, stderr); /* a position is printed: its notes and warnings first */
    if (!o.json) {
        printf("%s b %s 1\n", r->sfen, r->hands_sfen);
    } else {
        printf("{\"sfen\": \"%s b %s 1\", \"side_to_move\": \"b (assumed)\", \"hands\": {", r->sfen,
               r->hands_sfen);
        json_hands(&r->hands);
        json_one_set(r, o.vp.handicap);
        if (o.reference)
            printf(", \"reference\": {\"learned\": %d, \"misses\": %d, \"turned\": %s}", ref.ref.learned,
                   ref.ref.misses, ref.ref.turned ? "true" : "false");
        json_pose(r);
        json_squares(r);
    }
out:
    free(r);
    rec_adapt_destroy(ref.set);
    vis_classifier_destroy(clf);
    cap_image_free(&img);
    return status;
}
