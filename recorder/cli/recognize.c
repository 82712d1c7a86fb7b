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
#include "recorder/kifu/kifu.h"
#include "recorder/record/record.h"
#include "recorder/kifu/replay.h"
#include "rules/rules.h"
#include "vision/vision.h"

#include "recorder/cli/cli.h"

#define RECOGNIZE_USAGE                                                                                      \
    "kifucam recognize IMAGE [--json] [--overlay OUT.png] [--sente SIDE] [--handicap NAME] [--model FILE]"

/* The median confidence a grid's squares read as pieces need, when the reading is no possible position,
 * for recognize to take the grid as a shogi board: on the 50 held-out rendered boards and 50 komadai
 * scenes of models/eval.py the lowest medians are 0.36 and 0.46, on the real photos 0.70-0.89; a drawn
 * grid with letters in it reads 0.15. */
#define REC_NOT_PIECES_CONF 0.25

/* A reading that is no possible position is also no board when its squares read as pieces are both more
 * than a set holds, by over REC_NOT_PIECES_EXCESS (FESA 1.1: 18 pawns, 4 lances, knights, silvers and
 * golds, 2 bishops, rooks and kings; a promoted piece counts as its unpromoted kind), and mostly one class
 * (over REC_NOT_PIECES_SHARE of them): one mark repeated over a ruled grid, as a drawn grid with letters
 * (v16 reads its 39 letters as 32 tokins and 7 bishops: 19 beyond a set, 82 % one class). The real
 * photos of ../shared/data show 0-3 beyond a set; the held-out rendered boards of models/eval.py, random
 * pieces of every class, up to 30 beyond a set but no class over 21 % of them, and are boards. */
#define REC_NOT_PIECES_EXCESS 8
#define REC_NOT_PIECES_SHARE 0.5

/* Where the grid's outer line on `side` lies (0: u = 0, the line beyond file 9; 1: u = 9, beyond file
 * 1; 2: v = 0, beyond rank 1; 3: v = 9, beyond rank 9; canonical grid units of pose), judged at 19
 * points along it: OUTER_IN (in view: at least half of them lie in the image with the image going on
 * 0.15 square beyond them), OUTER_PAST (past the edge: at least half of the points a tenth of a square in
 * from the line lie outside the image) or OUTER_EDGE (on the image's edge: a straightened photo cut at
 * its outer lines). */
enum { OUTER_IN, OUTER_EDGE, OUTER_PAST };

/* 1 if the grid point (u, v) (canonical grid units of pose) maps into img. */
static int grid_point_in_image(const vis_pose_t *pose, const cap_image_t *img, double u, double v) {
    double x, y;
    return vis_pose_to_image(pose, u, v, &x, &y) == VIS_OK && x >= 0 && y >= 0 && x < img->width &&
           y < img->height;
}

static int outer_line_where(const vis_pose_t *pose, const cap_image_t *img, int side) {
    int in = 0, past = 0;
    double c = side % 2 ? 9 : 0, out = side % 2 ? 1 : -1; /* out: the direction away from the grid */
    for (int j = 0; j <= 18; j++) {
        double t = 0.5 * j, at[3] = {c, c + 0.15 * out, c - 0.1 * out};
        int inside[3];
        for (int k = 0; k < 3; k++)
            inside[k] = grid_point_in_image(pose, img, side < 2 ? at[k] : t, side < 2 ? t : at[k]);
        in += inside[0] && inside[1];
        past += !inside[2];
    }
    return 2 * in >= 19 ? OUTER_IN : 2 * past >= 19 ? OUTER_PAST : OUTER_EDGE;
}

/* Pieces on the board read rd beyond what one set holds, summed over the kinds (see REC_NOT_PIECES_EXCESS);
 * *top gets how many squares the most frequent piece class (kind and owner) holds. */
static int set_excess(const vis_board_read_t *rd, int *top) {
    static const int set[8] = {18, 4, 4, 4, 2, 2, 4, 2}; /* P L N S B R G K, the order of vis_class_sfen */
    int n[8] = {0}, per_class[VIS_CLASS_NB] = {0}, ex = 0;
    *top = 0;
    for (int sq = 0; sq < VIS_SQUARE_NB; sq++) {
        int c = rd->cls[sq];
        if (c <= 0 || c >= VIS_CLASS_NB)
            continue;
        int k = (c - 1) % 14; /* sente 1..14, gote 15..28: P L N S B R G K +P +L +N +S +B +R */
        n[k < 8 ? k : k - 8]++;
        if (++per_class[c] > *top)
            *top = per_class[c];
    }
    for (int k = 0; k < 8; k++)
        ex += n[k] > set[k] ? n[k] - set[k] : 0;
    return ex;
}

static int cmp_float(const void *a, const void *b) {
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* Median of v[0..n-1] (sorted in place), 0 for n = 0. */
static double median_of(float *v, int n) {
    if (n == 0)
        return 0;
    qsort(v, (size_t)n, sizeof *v, cmp_float);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

void recognize_help(void) {
    printf(
        "usage: " RECOGNIZE_USAGE "\n"
        "\n"
        "Finds the board in one photo and reads its 81 squares with the square classifier\n"
        "(models/squares.onnx, or $KIFUCAM_MODEL, or --model). Prints the SFEN: the board as seen with\n"
        "the image's lower side as sente's (a camera at the side: the better-reading quarter turn),\n"
        "the hands read from the two komadai (vis_komadai_read: the areas beside the board on each\n"
        "player's right; a stand out of view is unknown: a warning, and its part of the hands field is\n"
        "left empty), side to move 'b' (a photo does not say whose turn it is).\n"
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
        "An IMAGE whose name starts with '-' goes after '--' (kifucam recognize --json -- -1.jpg).\n"
        "Exit 1 with one line when IMAGE is not an image or no board is found.\n");
    char names[256];
    rec_handicap_names(names, sizeof names);
    printf("Handicap names: %s.\n", names);
}

static const char *const image_side[4] = {"bottom", "right", "top", "left"};

/* The pieces of each kind P L N S B R G that handicap h's game has in all (board and hands): those of
 * its starting position (rul_handicap_info), kings left out. Returns 0, -1 for an unknown h. */
static int handicap_set(rul_handicap_t h, int set[VIS_HAND_KIND_NB]) {
    rul_handicap_info_t info;
    if (rul_handicap_info(h, &info) != RUL_OK)
        return -1;
    memset(set, 0, sizeof(int) * VIS_HAND_KIND_NB);
    for (const char *p = info.sfen; *p && *p != ' '; p++) {
        const char *k = strchr("PLNSBRG", *p >= 'a' ? *p - 32 : *p);
        if (k)
            set[k - "PLNSBRG"]++;
    }
    return 0;
}

/* The side of the image (index into image_side) where sente's edge of the board (canonical v = 9) lies
 * once pose is turned by q more quarter turns: the larger image coordinate of the board centre to that
 * edge's middle. */
static int pose_sente_side(const vis_pose_t *pose, int q) {
    vis_pose_t p = *pose;
    double cx, cy, ex, ey;
    vis_pose_rotate(&p, q);
    if (vis_pose_to_image(&p, 4.5, 4.5, &cx, &cy) != 0 || vis_pose_to_image(&p, 4.5, 9, &ex, &ey) != 0)
        return -1;
    ex -= cx;
    ey -= cy;
    return fabs(ey) >= fabs(ex) ? (ey > 0 ? 0 : 2) : (ex > 0 ? 1 : 3);
}

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

int cmd_recognize(int argc, char **argv) {
    const char *cmd = "recognize", *path = NULL, *overlay = NULL, *val;
    static char model_buf[4096];
    const char *model = rec_model_default(model_buf, sizeof model_buf);
    int json = 0, rc, status = 0, sente_end = -1, decoded = 0, shifted = 0, set[VIS_HAND_KIND_NB];
    /* vis_board_off_strips: the strip of files and of ranks flagged, and the move made for each */
    const char *off_strip[2] = {NULL, NULL}, *off_moved[2] = {NULL, NULL};
    char impossible[256] = ""; /* why the reading is not a possible position ("" if it is one) */
    unsigned char unseen[VIS_SQUARE_NB] = {0}; /* 1: the square's middle is not wholly in the image */
    int outer[4] = {OUTER_IN, OUTER_IN, OUTER_IN, OUTER_IN}; /* beyond file 9, file 1, rank 1, rank 9 */
    rul_handicap_t handicap = RUL_HC_EVEN;
    vis_position_fix_t fix = {0};
    rec_grid_shift_t gs;
    char err[4800], sfen[VIS_SFEN_BOARD_MAX];
    cap_image_t img = {0, 0, 0, NULL};
    vis_pose_t pose;
    vis_classifier_t *clf = NULL;
    vis_board_read_t *rd = NULL;
    vis_komadai_read_t *kr = NULL;
    char hands[80] = "-";
    static said_t said;
    said.len = 0;
    said.text[0] = '\0';

    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0) {
            json = 1;
        } else if ((rc = rec_opt_value(cmd, argc, argv, &i, "--overlay", &val)) != 0) {
            if (rc < 0)
                return EXIT_USER;
            overlay = val;
        } else if ((rc = rec_opt_value(cmd, argc, argv, &i, "--model", &val)) != 0) {
            if (rc < 0)
                return EXIT_USER;
            model = val;
        } else if ((rc = rec_opt_value(cmd, argc, argv, &i, "--handicap", &val)) != 0) {
            if (rc < 0)
                return EXIT_USER;
            if (rul_handicap_from_name(val, &handicap) != RUL_OK) {
                char names[256];
                rec_handicap_names(names, sizeof names);
                return cli_user_error(cmd, "--handicap '%.40s': not a handicap (%s)", val, names);
            }
        } else if ((rc = rec_opt_value(cmd, argc, argv, &i, "--sente", &val)) != 0) {
            if (rc < 0)
                return EXIT_USER;
            for (sente_end = 0; sente_end < 4 && strcmp(val, image_side[sente_end]) != 0; sente_end++)
                ;
            if (sente_end == 4)
                return cli_user_error(
                    cmd,
                    "--sente '%.40s': give the side of the image where sente sits: bottom, top, left "
                    "or right",
                    val);
        } else if (strcmp(argv[i], "--") == 0 && i + 1 < argc && !path) { /* IMAGE may start with '-' */
            path = argv[++i];
            if (i + 1 < argc)
                return cli_user_error(cmd, "unexpected argument '%.80s' (usage: " RECOGNIZE_USAGE ")",
                                      argv[i + 1]);
        } else if (cli_is_option(argv[i])) {
            return cli_user_error(cmd, "unknown option '%.80s' (see kifucam recognize --help)", argv[i]);
        } else if (path) {
            return cli_user_error(cmd, "unexpected argument '%.80s' (usage: " RECOGNIZE_USAGE ")", argv[i]);
        } else {
            path = argv[i];
        }
    }
    if (path == NULL || path[0] == '\0') /* "" (an unset shell variable) names no file */
        return cli_user_error(cmd, "missing IMAGE (usage: " RECOGNIZE_USAGE ")");
    if (overlay && overlay_path_ok(overlay, path, err, sizeof err) != 0)
        return cli_user_error(cmd, "--overlay '%.200s': %s", overlay, err);
    rc = cap_image_load(path, &img, err, sizeof err);
    if (rc != 0)
        return rc == CAP_E_NOMEM ? cli_internal_error(cmd, "%s", err) : cli_user_error(cmd, "%s", err);
    if ((double)(img.width < img.height ? img.width : img.height) * 64 <
        (img.width > img.height ? img.width : img.height)) {
        status = cli_user_error(cmd, "%s: no board found (the image, %dx%d, is too thin to hold a 9x9 board)",
                                path, img.width, img.height);
        goto out;
    }
    /* the model before the search: a missing or wrong model file is said whatever the photo shows */
    if ((rc = vis_classifier_open(model, &clf)) != 0) { /* a missing or wrong model file is the user's */
        status =
            rc == VIS_E_NOMEM
                ? cli_internal_error(cmd, "%s", vis_classifier_errmsg(clf))
                : cli_user_error(cmd, "%s; the square classifier is given by --model FILE or KIFUCAM_MODEL",
                                 vis_classifier_errmsg(clf));
        goto out;
    }
    if (vis_pose_find(&img, NULL, &pose, err, sizeof err) != 0) {
        status = cli_internal_error(cmd, "%s", err);
        goto out;
    }
    if (!pose.found && (img.width > 1536 || img.height > 1536)) {
        /* a board small in a large photo (a phone's 4000 x 3000 from across the table) has squares of a
         * few pixels at the default work size: searched again at twice it (1-2 s more) */
        vis_pose_params_t pp;
        vis_pose_t big;
        vis_pose_params_default(&pp);
        pp.work_size = 2048;
        if (vis_pose_find(&img, &pp, &big, err, sizeof err) != 0) {
            status = cli_internal_error(cmd, "%s", err);
            goto out;
        }
        if (big.found || big.score > pose.score)
            pose = big;
    }
    if (!pose.found && !(pose.score >= REC_BY_PIECES_MIN_SCORE)) {
        status = cli_user_error(cmd, "%s: no board found (best grid score %.2f)", path, pose.score);
        goto out;
    }
    rd = malloc(sizeof *rd);
    if (rd == NULL) {
        status = cli_internal_error(cmd, "out of memory");
        goto out;
    }
    int by_pieces = !pose.found; /* read by rec_board_by_pieces: pose and rd are oriented already */
    if (by_pieces) {
        /* the best grid scored under the threshold (blur, a dim board, pieces over many lines): it is a
         * board only if its squares say so (rec_board_by_pieces); otherwise nothing is made up */
        int npieces = 0;
        if ((rc = rec_board_by_pieces(clf, &img, &pose, rd, &npieces)) < 0) {
            status = cli_internal_error(cmd, "%s", vis_classifier_errmsg(clf));
            goto out;
        }
        if (rc == 0) {
            status = cli_user_error(cmd, "%s: no board found (best grid score %.2f)", path, pose.score);
            goto out;
        }
        vis_pose_params_t pp;
        vis_pose_params_default(&pp);
        say(&said,
            "kifucam recognize: warning: the grid scored %.2f, under the %.2f of a board found by its "
            "lines; taken as a board because %d of its squares read as pieces with at least %.0f %% "
            "confidence: check it with --overlay\n",
            pose.score, pp.min_score, npieces, 100 * REC_BY_PIECES_MIN_CONF);
    }
    if ((!by_pieces && vis_classifier_orient(clf, &img, &pose, rd) != 0) ||
        (shifted = rec_grid_shift(clf, &img, &pose, rd, &gs)) < 0) {
        status = cli_internal_error(cmd, "%s", vis_classifier_errmsg(clf));
        goto out;
    }
    vis_pose_t at_shift = pose; /* the words of a move are said for the grid as finally turned */
    if (sente_end >= 0) {
        /* told where sente sits: the pieces only give the axis (turned by 180 degrees the position is the
         * same game with the colours swapped), so the reading is turned, or read again across */
        int q = 0;
        while (q < 4 && pose_sente_side(&pose, q) != sente_end)
            q++;
        if (q == 2) {
            vis_pose_rotate(&pose, 2);
            vis_board_read_turn(rd);
        } else if (q == 1 || q == 3) {
            int o = rd->orientation;
            vis_pose_rotate(&pose, q);
            if (vis_classifier_read(clf, &img, &pose, rd) != 0) {
                status = cli_internal_error(cmd, "%s", vis_classifier_errmsg(clf));
                goto out;
            }
            rd->orientation = (o + q) % 4;
            say(&said,
                "kifucam recognize: note: the pieces point across; read with sente at the %s as told\n",
                image_side[sente_end]);
        }
    }
    if (shifted) {
        gs.towards = rec_grid_shift_towards(&gs, &at_shift, &pose);
        say(&said,
            "kifucam recognize: note: the grid found (pose confidence %.2f) reads no possible position; "
            "moved %s it reads one, with %d pieces on the board (%d before)\n",
            pose.confidence, gs.towards, gs.pieces, gs.pieces_before);
    }
    /* a grid one file or rank over with its outer line on the table or a border beyond the board (its
     * lines all there, its pieces a possible position): the strip of squares past the board's edge is not
     * the board's surface (vis_board_off_strips). Moved one square away from that strip when the board
     * runs past the image's edge on the other side (the cut the grid was pushed off by); else said */
    {
        int off[4];
        if (vis_board_off_strips(&img, &pose, rd, off, err, sizeof err) != 0) {
            status = cli_internal_error(cmd, "%s", err);
            goto out;
        }
        static const char *const strip_name[4] = {"file 9", "file 1", "rank 1", "rank 9"};
        static const char *const away[4] = {"one file towards file 1", "one file towards file 9",
                                            "one row towards rank 9", "one row towards rank 1"};
        for (int axis = 0; axis < 2; axis++) { /* files, then ranks: a photo cut at a corner can need both */
            int side = 2 * axis + (off[2 * axis] ? 0 : 1), opp = side ^ 1;
            if (!off[side])
                continue;
            off_strip[axis] = strip_name[side];
            vis_pose_t moved = pose;
            vis_pose_shift(&moved, side == 0 ? 1 : side == 1 ? -1 : 0, side == 2 ? 1 : side == 3 ? -1 : 0);
            if (!off[opp] && outer_line_where(&moved, &img, opp) != OUTER_IN) {
                pose = moved;
                off_moved[axis] = away[side];
                say(&said,
                    "kifucam recognize: warning: the squares of %s do not look like the board (its edge or "
                    "the table beyond it), and the board runs past the image on the other side: the grid was "
                    "moved %s (check it with --overlay)\n",
                    off_strip[axis], off_moved[axis]);
            } else {
                say(&said,
                    "kifucam recognize: warning: the squares of %s do not look like the board (its edge or "
                    "the table beyond it): the grid may be one square over (check it with --overlay)\n",
                    off_strip[axis]);
            }
        }
        if (off_moved[0] || off_moved[1]) {
            /* moved: the squares are read again where they are, merged with their turned reading as
             * vis_classifier_orient reads them */
            int o = rd->orientation;
            vis_pose_t turned_pose = pose;
            vis_board_read_t *turned = malloc(sizeof *turned);
            vis_pose_rotate(&turned_pose, 2);
            if (turned == NULL || vis_classifier_read(clf, &img, &pose, rd) != 0 ||
                vis_classifier_read(clf, &img, &turned_pose, turned) != 0) {
                status = cli_internal_error(cmd, "%s", turned ? vis_classifier_errmsg(clf) : "out of memory");
                free(turned);
                goto out;
            }
            vis_board_read_merge_turned(rd, turned);
            free(turned);
            rd->orientation = o;
        }
    }
    /* one photo, no hurry: the squares read again at two more crop sizes (test-time scales) */
    if (vis_classifier_read_scales(clf, &img, &pose, rd) != 0) {
        status = cli_internal_error(cmd, "%s", vis_classifier_errmsg(clf));
        goto out;
    }
    if ((kr = malloc(sizeof *kr)) == NULL) {
        status = cli_internal_error(cmd, "out of memory");
        goto out;
    }
    if (vis_komadai_read(clf, &img, &pose, NULL, kr) != 0) {
        status = cli_internal_error(cmd, "%s", vis_classifier_errmsg(clf));
        goto out;
    }
    {
        /* one position, not 81 guesses. Both stands in view: the board and the stands must hold one set
         * (vis_position_decode: 40 pieces, or a handicap's, one king a side, no dead piece or nifu).
         * Otherwise, or when no set is near: a kind read more often than a set has it gives up its
         * least sure squares (vis_board_constrain, FESA 1.2). Every change is said. */
        int changed[VIS_SQUARE_NB], nch = 0, done = 0;
        char was[VIS_SQUARE_NB][4];
        int had[2][VIS_HAND_KIND_NB];
        for (int sq = 0; sq < VIS_SQUARE_NB; sq++)
            snprintf(was[sq], sizeof was[sq], "%s", vis_class_sfen(rd->cls[sq]));
        memcpy(had, kr->count, sizeof had);
        if (kr->known[0] && kr->known[1]) {
            if (handicap_set(handicap, set) == 0 && vis_position_decode(rd, kr, set, 12.0, &fix) == VIS_OK &&
                fix.applied) {
                done = 1;
                for (int i = 0; i < fix.nsquares; i++) {
                    int sq = fix.squares[i];
                    say(&said,
                        "kifucam recognize: note: %d%c read as '%s' taken as '%s' (p %.2f) so that the "
                        "board and the komadai hold one set\n",
                        sq / 9 + 1, 'a' + sq % 9, was[sq][0] ? was[sq] : "empty",
                        rd->cls[sq] ? vis_class_sfen(rd->cls[sq]) : "empty", rd->conf[sq]);
                }
                for (int s = 0; s < 2; s++)
                    for (int k = 0; k < VIS_HAND_KIND_NB; k++)
                        if (fix.hand_delta[s][k])
                            say(&said,
                                "kifucam recognize: note: %s's %c count read as %d taken as %d (p %.2f) "
                                "so that the board and the komadai hold one set\n",
                                s ? "gote" : "sente", "PLNSBRG"[k], had[s][k], kr -> count[s][k],
                                kr -> conf[s][k]);
            } else {
                if (isfinite(fix.cost))
                    say(&said,
                        "kifucam recognize: note: the board and the komadai cannot be made one set "
                        "without changes costing %.1f nats of log-probability (at most 12 are taken): only a "
                        "kind read more often than a set has it is revised\n",
                        fix.cost);
                else
                    say(&said,
                        "kifucam recognize: note: no revision the reading allows makes the board and "
                        "the komadai one set: only a kind read more often than a set has it is revised\n");
            }
            decoded = 1;
        }
        if (!(kr->known[0] && kr->known[1]) && handicap != RUL_HC_EVEN)
            say(&said, "kifucam recognize: note: --handicap is not used: the set is judged only with both "
                       "komadai in view\n");
        if (!done && vis_board_constrain(rd, 0.08, changed, &nch) == VIS_OK)
            for (int i = 0; i < nch; i++) {
                int sq = changed[i];
                say(&said,
                    "kifucam recognize: note: %d%c read as '%s' makes too many of a kind for one set; "
                    "taken as '%s' (p %.2f)\n",
                    sq / 9 + 1, 'a' + sq % 9, was[sq], rd->cls[sq] ? vis_class_sfen(rd->cls[sq]) : "empty",
                    rd->conf[sq]);
            }
    }
    if (vis_board_sfen(rd, sfen, sizeof sfen) != 0) {
        status = cli_internal_error(cmd, "SFEN does not fit");
        goto out;
    }
    {
        /* the hands field: a stand out of view is unknown, never "no pieces"; it is said on stderr and
         * its part of the field stays empty ('-' only when both are known and empty) */
        vis_komadai_read_t k2 = *kr;
        for (int s = 0; s < 2; s++)
            if (!kr->known[s]) {
                say(&said, "kifucam recognize: warning: %s's komadai is not in view: its hand is unknown\n",
                    s ? "gote" : "sente");
                k2.known[s] = 1; /* counts all 0: nothing is written for it */
            } else {
                for (int k = 0; k < VIS_HAND_KIND_NB; k++)
                    if (kr->conf[s][k] < 0.6f)
                        say(&said,
                            "kifucam recognize: warning: %s's %c count read as %d with %.0f %% confidence\n",
                            s ? "gote" : "sente", "PLNSBRG"[k], kr -> count[s][k], 100.0 * kr -> conf[s][k]);
            }
        if (vis_komadai_sfen(&k2, hands, sizeof hands) != 0) {
            status = cli_internal_error(cmd, "hands do not fit");
            goto out;
        }
    }
    if (overlay && vis_overlay_write(&img, &pose, rd, overlay, err, sizeof err) != 0) {
        status = cli_user_error(cmd, "%s", err);
        goto out;
    }
    {
        /* Never pass off a doubtful read as a position: say which squares are unsure and whether the
         * board read could be a real position at all (piece counts, kings, nifu, dead pieces, FESA 9.4). */
        char full[256], unsure[81 * 4 + 1] = "";
        size_t nu = 0;
        int nunsure = 0, nout = 0;
        rul_pos_t rp;
        rul_error_t re;
        snprintf(full, sizeof full, "%s b %s 1", sfen, hands);
        for (int sq = 0; sq < VIS_SQUARE_NB; sq++)
            if (rd->conf[sq] < 0.6f) {
                nunsure++;
                nu += (size_t)snprintf(unsure + nu, sizeof unsure - nu, " %d%c", sq / 9 + 1, 'a' + sq % 9);
            }
        if (nunsure)
            say(&said, "kifucam recognize: warning: %d square%s read with less than 60 %% confidence:%s\n",
                nunsure, nunsure == 1 ? "" : "s", unsure);
        /* a grid reaching past the image: the squares whose middles (0.6 of a square) do not lie wholly
         * in it were not seen (vis_pose_square_seen) */
        char outside[81 * 4 + 1] = "";
        size_t no = 0;
        for (int sq = 0; sq < VIS_SQUARE_NB; sq++) {
            int file = sq / 9 + 1, rank = sq % 9 + 1; /* canonical: u = 9 - file, v = rank - 1 */
            if (!vis_pose_square_seen(&pose, img.width, img.height, 9 - file, rank - 1)) {
                no += (size_t)snprintf(outside + no, sizeof outside - no, " %d%c", file, 'a' + rank - 1);
                nout++;
                unseen[sq] = 1;
            }
        }
        /* an outer line on the image's edge or past it while the opposite one is in view: the board may
         * run past the frame there, and nothing in view fixes which 9 ranks (files) these are */
        for (int side = 0; side < 4; side++)
            outer[side] = outer_line_where(&pose, &img, side);
        for (int dir = 0; dir < 2; dir++) {
            int a = outer[2 * dir], b = outer[2 * dir + 1];
            if ((a == OUTER_IN) == (b == OUTER_IN) && (a != OUTER_PAST && b != OUTER_PAST))
                continue; /* both in view, or both on the edge (a straightened photo) */
            static const char *const name[4] = {"beyond file 9", "beyond file 1", "beyond rank 1",
                                                "beyond rank 9"};
            char which[64];
            if (a != OUTER_IN && b != OUTER_IN)
                snprintf(which, sizeof which, "lines %s and %s lie", name[2 * dir], name[2 * dir + 1]);
            else
                snprintf(which, sizeof which, "line %s lies", name[a == OUTER_IN ? 2 * dir + 1 : 2 * dir]);
            say(&said,
                "kifucam recognize: warning: the grid's outer %s on the image's edge or past it: if the "
                "board is cut there, every %s may be read one or more over (check it with --overlay)\n",
                which, dir ? "rank" : "file");
        }
        if (nout)
            say(&said,
                "kifucam recognize: warning: %d square%s of the grid lie outside the image or across its "
                "edge, not seen (read as what the image shows there; the grid may be misplaced):%s\n",
                nout, nout == 1 ? "" : "s", outside);
        if (rul_pos_from_sfen(&rp, full, &re) != RUL_OK ||
            rul_pos_validate(&rp, RUL_VALIDATE_BOTH_KINGS, &re) != RUL_VALID) {
            /* the SFEN is ours: its parser's "sfen: column N: " says nothing to the user */
            const char *why = re.msg,
                       *after = strncmp(why, "sfen: column ", 13) == 0 ? strstr(why + 13, ": ") : NULL;
            if (after != NULL)
                why = after + 2;
            say(&said, "kifucam recognize: warning: the board read is not a possible position: %s\n", why);
            snprintf(impossible, sizeof impossible, "%s", why);
            /* a grid found barely (a printed border taken for the outer line, a board small in the frame)
             * can sit a row or a file off: then the reading is no position at all */
            if (pose.confidence < 0.6 && !shifted)
                say(&said,
                    "kifucam recognize: warning: the grid may be misplaced by a row or a file (pose "
                    "confidence %.2f): check it with --overlay before using this position\n",
                    pose.confidence);
            /* a grid that is no shogi board (ruled paper, a drawn grid with letters): its "pieces" are read
             * with little confidence. No position is made of it */
            float conf[VIS_SQUARE_NB];
            int npc = 0;
            for (int sq = 0; sq < VIS_SQUARE_NB; sq++)
                if (rd->cls[sq] != 0)
                    conf[npc++] = rd->conf[sq];
            double med = median_of(conf, npc);
            int top, excess = set_excess(rd, &top);
            if (excess > REC_NOT_PIECES_EXCESS && top > REC_NOT_PIECES_SHARE * npc) {
                status = cli_user_error(
                    cmd,
                    "%s: no board found: a 9x9 grid was found (grid score %.2f), but its squares "
                    "read as %d pieces more than a shogi set holds, %d of the %d as one class (one mark "
                    "repeated): not taken as a board",
                    path, pose.score, excess, top, npc);
                goto out;
            }
            if (npc > 0 && med < REC_NOT_PIECES_CONF) {
                status = cli_user_error(
                    cmd,
                    "%s: no board found: a 9x9 grid was found (grid score %.2f), but the %d squares "
                    "read as pieces have a median confidence of %.2f (a shogi board's, %.2f or more): "
                    "not taken as a board",
                    path, pose.score, npc, med, REC_NOT_PIECES_CONF);
                goto out;
            }
        }
    }
    fputs(said.text, stderr); /* a position is printed: its notes and warnings first */
    if (!json) {
        printf("%s b %s 1\n", sfen, hands);
    } else {
        printf("{\"sfen\": \"%s b %s 1\", \"side_to_move\": \"b (assumed)\", \"hands\": {", sfen, hands);
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
        rul_handicap_info_t hc_info;
        rul_handicap_info(handicap, &hc_info);
        printf("}, \"one_set\": ");
        if (!decoded) {
            printf("null");
        } else {
            printf("{\"applied\": %s, \"cost_nats\": ", fix.applied ? "true" : "false");
            if (isfinite(fix.cost))
                printf("%.2f", fix.cost);
            else
                printf("null"); /* the set cannot be reached at all */
            printf(", \"set\": \"%s\", \"squares_revised\": [", hc_info.name);
            for (int i = 0; fix.applied && i < fix.nsquares; i++)
                printf("%s\"%d%c\"", i ? ", " : "", fix.squares[i] / 9 + 1, 'a' + fix.squares[i] % 9);
            printf("], \"hands_revised\": {");
            for (int s = 0; s < 2; s++) {
                printf("%s\"%s\": {", s ? ", " : "", s ? "gote" : "sente");
                for (int k = 0, first = 1; fix.applied && k < VIS_HAND_KIND_NB; k++)
                    if (fix.hand_delta[s][k]) {
                        printf("%s\"%c\": %d", first ? "" : ", ", "PLNSBRG"[k], fix.hand_delta[s][k]);
                        first = 0;
                    }
                printf("}");
            }
            printf("}}");
        }
        printf(", \"possible_position\": ");
        if (impossible[0]) { /* the reason, JSON-escaped by jansson */
            json_t *why = json_string(impossible);
            char *t = why ? json_dumps(why, JSON_ENCODE_ANY) : NULL;
            printf("{\"ok\": false, \"why\": %s}", t ? t : "null");
            free(t);
            json_decref(why);
        } else {
            printf("{\"ok\": true, \"why\": null}");
        }
        /* how the grid was taken: by its lines, or by its pieces (rec_board_by_pieces), and whether it was
         * moved a row or a file to read a possible position (rec_grid_shift) */
        printf(", \"pose\": {\"found_by\": \"%s\", \"grid_moved\": ", by_pieces ? "pieces" : "lines");
        if (shifted)
            printf("{\"towards\": \"%s\", \"pieces\": %d, \"pieces_before\": %d}", gs.towards, gs.pieces,
                   gs.pieces_before);
        else
            printf("null");
        /* an outer strip of squares that is not the board's surface (vis_board_off_strips), and the move
         * made for it (null: only said) */
        printf(", \"off_board_strips\": [");
        for (int axis = 0, n = 0; axis < 2; axis++)
            if (off_strip[axis]) {
                printf("%s{\"strip\": \"%s\", \"moved\": ", n++ ? ", " : "", off_strip[axis]);
                if (off_moved[axis])
                    printf("\"%s\"}", off_moved[axis]);
                else
                    printf("null}");
            }
        printf("]");
        static const char *const where[3] = {"in view", "on the edge", "past the edge"};
        printf(", \"outer_lines\": {\"beyond_file9\": \"%s\", \"beyond_file1\": \"%s\", \"beyond_rank1\": "
               "\"%s\", "
               "\"beyond_rank9\": \"%s\"}",
               where[outer[0]], where[outer[1]], where[outer[2]], where[outer[3]]);
        printf(", \"score\": %.3f, \"confidence\": %.3f, \"rms_px\": %.2f, \"orientation\": %d, "
               "\"corners\": [[%.1f, %.1f], [%.1f, %.1f], [%.1f, %.1f], [%.1f, %.1f]]}, \"min_confidence\": "
               "%.3f, "
               "\"squares\": [",
               pose.score, pose.confidence, pose.rms_px, rd->orientation, pose.corners[0][0],
               pose.corners[0][1], pose.corners[1][0], pose.corners[1][1], pose.corners[2][0],
               pose.corners[2][1], pose.corners[3][0], pose.corners[3][1], rd->min_conf);
        /* a square outside the image is unknown: its piece null, what the image's edge read as beside it */
        for (int sq = 0; sq < VIS_SQUARE_NB; sq++) {
            printf("%s{\"square\": \"%d%d\", ", sq ? ", " : "", sq / 9 + 1, sq % 9 + 1);
            if (unseen[sq])
                printf("\"piece\": null, \"seen\": false, \"read_as\": \"%s\", ",
                       vis_class_sfen(rd->cls[sq]));
            else
                printf("\"piece\": \"%s\", \"seen\": true, ", vis_class_sfen(rd->cls[sq]));
            printf("\"confidence\": %.3f}", rd->conf[sq]);
        }
        printf("], \"unseen\": [");
        for (int sq = 0, first = 1; sq < VIS_SQUARE_NB; sq++)
            if (unseen[sq]) {
                printf("%s\"%d%d\"", first ? "" : ", ", sq / 9 + 1, sq % 9 + 1);
                first = 0;
            }
        printf("]}\n");
    }
out:
    free(rd);
    free(kr);
    vis_classifier_destroy(clf);
    cap_image_free(&img);
    return status;
}
