/* capture.h - kifucam's capture module: every image source (V4L2 camera, video file, image folder,
 * single photo) behind one interface, plus the JPEG codec used for frames and evidence.
 *
 * Life cycle: cap_params_default() -> cap_source_open() -> cap_source_read()... -> cap_source_close().
 * Pixels are always BGR8 (3 bytes per pixel, B first); rows are `stride` bytes apart, stride >= 3*width.
 * Times are microseconds, sizes pixels unless said otherwise.
 * Errors: a function returning int returns 0 (CAP_OK) on success or a negative CAP_* code, never a
 * positive one; CAP_AGAIN means "no frame yet, call again". A source handle keeps the message of its
 * last error (cap_errmsg), one line starting with the name of the API function that failed.
 * Threads: no global mutable state; one handle is used from one thread at a time.
 * Nothing else in the project calls V4L2 directly. How the recorder uses the frame flags and counters:
 * docs/recording.md. */
#ifndef KIFUCAM_CAPTURE_H
#define KIFUCAM_CAPTURE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Return codes: 0 is success, every other code is negative. */
enum {
    CAP_OK = 0,
    CAP_AGAIN = -1,         /* no frame yet (poll timed out, camera reconnecting): call read again */
    CAP_EOF = -2,           /* end of a file, folder or single image: no more frames */
    CAP_E_ARG = -3,         /* bad argument or URI (message says which) */
    CAP_E_NOMEM = -4,       /* out of memory */
    CAP_E_NOTFOUND = -5,    /* path does not exist */
    CAP_E_FORMAT = -6,      /* not a camera / not an image or video / no images in folder / bad data */
    CAP_E_IO = -7,          /* system call failed (message has errno text) */
    CAP_E_NODEV = -8,       /* camera went away (ENODEV/EIO); keep calling read, it is being reopened */
    CAP_E_DECODE = -9,      /* a compressed frame or image could not be decoded */
    CAP_E_UNSUPPORTED = -10 /* a format or size the device or codec cannot give */
};

/* Pixel formats a camera can be asked for (cap_params_t.format). */
enum {
    CAP_FMT_ANY = 0, /* MJPEG if the device has it, else YUYV */
    CAP_FMT_MJPEG,   /* motion JPEG, decoded with TurboJPEG */
    CAP_FMT_YUYV,    /* YUV 4:2:2 packed, converted to BGR (BT.601, limited range) */
    CAP_FMT_NB
};

/* Frame flags (cap_frame_t.flags). */
enum {
    CAP_FRAME_WARNING = 1u << 0, /* decoded with warnings (e.g. truncated JPEG: bottom rows grey) */
    CAP_FRAME_RESUMED = 1u << 1, /* first frame after the camera came back; blind_us says how long */
    CAP_FRAME_DROPPED = 1u << 2, /* frames were lost just before this one; dropped says how many */
    CAP_FRAME_DAMAGED = 1u << 3  /* (with CAP_FRAME_WARNING) the picture may be wrong anywhere, and is
                                  * not evidence of what is in view: a video frame decoded with errors,
                                  * or predicted from a frame that was lost or damaged (every frame
                                  * after a packet the decoder refused, up to the next keyframe) */
};

/* A view of pixels owned by someone else: nothing is copied when it is passed around. */
typedef struct cap_image {
    int width;           /* pixels, >= 1 */
    int height;          /* pixels, >= 1 */
    int stride;          /* bytes from one row to the next, >= 3 * width (from the source) */
    unsigned char *data; /* BGR8 pixels, row 0 first; owner is stated by whoever hands it out */
} cap_image_t;

/* One captured frame. */
typedef struct cap_frame {
    cap_image_t image; /* pixels, borrowed: valid until the next read or close of the source */
    int64_t ts_us;     /* timestamp in microseconds: V4L2 = driver CLOCK_MONOTONIC time of capture;
                        * video file = container time from the stream start; folder = from --fps or the
                        * file names; single image = 0 */
    uint64_t seq;      /* sequence number: V4L2 = driver sequence (gaps = drops), video = frame index,
                        * folder = the last number in the file name minus the first file's (gaps =
                        * drops), or the index when the names are not numbered in increasing order */
    uint32_t dropped;  /* frames lost between the previous delivered frame and this one, >= 0 */
    uint32_t flags;    /* CAP_FRAME_* bits */
    int64_t blind_us;  /* with CAP_FRAME_RESUMED: microseconds between the last frame before the camera
                        * went away and this one; else 0 */
} cap_frame_t;

/* Options for cap_source_open. Fill with cap_params_default(), then change what you need; URI query
 * parameters (v4l2:/dev/video0?width=1280&height=720&fps=30&format=mjpeg) override these fields. */
typedef struct cap_params {
    int width;         /* camera: wanted width in pixels, 0 = keep the driver's; default 0 */
    int height;        /* camera: wanted height in pixels, 0 = keep the driver's; default 0 */
    double fps;        /* camera: wanted frames per second (0 = driver's); folder: frame rate that
                        * turns file numbers into timestamps (default 0 = 30 fps); files: unused */
    int format;        /* camera: CAP_FMT_*; default CAP_FMT_ANY */
    int scale_denom;   /* frames at 1/scale_denom size: 1, 2, 4 or 8 (JPEG: scaled decode; YUYV:
                        * every n-th pixel; video: scaled); default 1 */
    int timeout_ms;    /* camera: longest wait in one read before CAP_AGAIN, ms, >= 0; default 1000 */
    int skip_first;    /* camera: frames discarded after each stream start (often bad); default 1 */
    int reopen_min_ms; /* camera: first delay before reopening a lost camera, ms; default 100 */
    int reopen_max_ms; /* camera: longest delay between reopen attempts (doubling), ms; default 5000 */
    int nbuffers;      /* camera: mmap buffers to request, 2..32; default 4 */
} cap_params_t;

/* Counters of a source since it was opened (cap_source_stats). */
typedef struct cap_stats {
    uint64_t delivered;    /* frames returned by read */
    uint64_t dropped;      /* frames lost (sequence gaps), summed */
    uint64_t corrupt;      /* frames skipped because they could not be decoded or were empty (a video
                            * file: also each packet the decoder refused as invalid data) */
    uint64_t warnings;     /* frames delivered with CAP_FRAME_WARNING */
    uint64_t reconnects;   /* times the camera came back after going away */
    int64_t blind_us;      /* total microseconds without frames while the camera was away */
    int64_t corrupt_ts_us; /* time of the last corrupt frame, on the clock of cap_frame_t.ts_us, where the
                            * source knows it (a video file: the damaged packet's container time); -1
                            * before any, or when not known (camera, folder) */
} cap_stats_t;

typedef struct cap_source cap_source_t; /* opaque: one open source */
typedef struct cap_codec cap_codec_t;   /* opaque: a JPEG encoder/decoder with its buffers */

/* Fills *p with the defaults given above. p must not be NULL. */
void cap_params_default(cap_params_t *p);

/* Opens a source. uri is one of: "/dev/videoN" or "v4l2:/dev/videoN[?width=W&height=H&fps=F&
 * format=mjpeg|yuyv&scale=1|2|4|8]"; a folder of images (.jpg .jpeg .png .bmp .ppm .pgm .pnm .tif .tiff
 * .webp, any case, read in numeric order of the names); one image file (JPEG EXIF orientation applied); a
 * video file (any container and codec FFmpeg's libavformat reads). params may be NULL for the defaults. A
 * camera is configured and streaming when this returns; what the driver really set is in cap_source_describe.
 * On success *out is a new handle, and the caller closes it with cap_source_close. On failure the code
 * is returned and *out is still a handle, holding only the reason (cap_errmsg, one line such as
 * "cap_source_open: /dev/video9: No such file or directory"), which the caller must also close; *out
 * is NULL only when memory ran out. Errors: CAP_E_ARG, CAP_E_NOTFOUND, CAP_E_FORMAT (not a camera, not
 * an image or video, no images in the folder), CAP_E_IO, CAP_E_UNSUPPORTED, CAP_E_NOMEM. */
int cap_source_open(const char *uri, const cap_params_t *params, cap_source_t **out);

/* Reads the next frame into *frame (pixels borrowed until the next read or close).
 * Returns 0 with a frame; CAP_AGAIN when none came within timeout_ms or the camera is being
 * reopened; CAP_EOF after the last frame of a file/folder/image (for a video file whose frames end
 * over 1 s before the duration its container states, or on a read error, cap_errmsg then says so, e.g.
 * "cap_source_read: game.mp4: the frames end at 39.9 s of the 82.0 s the file states: cut short or
 * damaged (...)"; otherwise it is ""); CAP_E_NODEV once when a camera goes
 * away (keep calling: it is reopened with backoff, and the first frame after has CAP_FRAME_RESUMED);
 * other negative codes for errors that will not go away. Corrupt and empty frames are counted
 * (cap_source_stats) and skipped, never returned as errors. */
int cap_source_read(cap_source_t *src, cap_frame_t *frame);

/* Closes the source and frees everything it owns, including frames it handed out. NULL is allowed. */
void cap_source_close(cap_source_t *src);

/* The last error message of src, never NULL ("" if none; "out of memory" for NULL src): of
 * cap_source_open, or of the last cap_source_read (which clears it first). Borrowed: valid until the
 * next call on src. */
const char *cap_errmsg(const cap_source_t *src);

/* One line saying what the source is and what was set, e.g. "v4l2 /dev/video0 (vivid) MJPEG 1280x720
 * @ 30.000 fps, 4 buffers". Borrowed: valid until the next call on src. */
const char *cap_source_describe(const cap_source_t *src);

/* Copies the counters of src into *stats (src NULL: zeros, corrupt_ts_us -1). */
void cap_source_stats(const cap_source_t *src, cap_stats_t *stats);

/* ---- camera listing (for `kifucam probe`) ---- */

/* Writes to f (one line each, human readable) what the V4L2 device at path offers: driver, card,
 * every pixel format with its frame sizes and intervals. Returns 0, CAP_E_NOTFOUND, CAP_E_FORMAT (not a
 * V4L2 capture device) or CAP_E_IO; on failure writes the one-line reason into err (errlen bytes,
 * always NUL-terminated when errlen > 0). f is a FILE * (void * here so stdio.h is not required). */
int cap_v4l2_list(const char *path, void *f, char *err, size_t errlen);

/* What `kifucam probe` prints, to f (a FILE *, void * here so stdio.h is not required):
 * with uri NULL, every /dev/video* device and what it offers (cap_v4l2_list), and the measured frame
 * rate of each capture device that opens; with a uri, what that source offers (for a camera, its
 * formats, sizes and rates), then it is opened with params (NULL: defaults) and read for `seconds`
 * (> 0; a file is read to its end or for `seconds`) to measure the real frame rate, the drops and the
 * corrupt frames; a file whose frames end before the duration it states gets a "warning:" line (cut
 * short or damaged, as `kifucam record` says it). Returns 0, or the cap_source_open / cap_v4l2_list error
 * with the one-line reason in err (errlen bytes, NUL-terminated when errlen > 0); with uri NULL and no
 * device, CAP_E_NOTFOUND. */
int cap_probe(const char *uri, const cap_params_t *params, double seconds, void *f, char *err, size_t errlen);

/* ---- JPEG codec (TurboJPEG) ---- */

/* Creates a codec. On success *out is a new handle, freed with cap_codec_destroy. Errors: CAP_E_NOMEM,
 * CAP_E_IO (TurboJPEG could not start). */
int cap_codec_create(cap_codec_t **out);

/* Frees the codec and its buffers. NULL is allowed. */
void cap_codec_destroy(cap_codec_t *c);

/* Last error message of c ("" if none, "out of memory" for NULL). Borrowed until the next call on c. */
const char *cap_codec_errmsg(const cap_codec_t *c);

/* Decodes a JPEG (jpeg[0..len)) to BGR8 at 1/scale_denom size (1, 2, 4 or 8; the size is rounded up as
 * libjpeg does). Accepts webcam MJPEG frames without Huffman tables. *img points into a buffer owned by
 * c, valid until the next decode or destroy of c. *warn (may be NULL) is set to 1 when the data was
 * damaged but an image was still produced (e.g. truncated), else 0.
 * Errors: CAP_E_ARG, CAP_E_DECODE (not a JPEG or too damaged), CAP_E_NOMEM. */
int cap_jpeg_decode(cap_codec_t *c, const unsigned char *jpeg, size_t len, int scale_denom, cap_image_t *img,
                    int *warn);

/* Encodes img (BGR8, any stride) as a baseline JPEG with 4:2:0 chroma at quality 1..100. *out points
 * to a buffer owned by c (valid until the next encode or destroy of c) of *outlen bytes.
 * Errors: CAP_E_ARG, CAP_E_IO (encoder failure), CAP_E_NOMEM. */
int cap_jpeg_encode(cap_codec_t *c, const cap_image_t *img, int quality, const unsigned char **out,
                    size_t *outlen);

/* Encodes img like cap_jpeg_encode and writes it to path (through path.tmp and rename, so a reader
 * never sees half a file). Errors: those of cap_jpeg_encode, CAP_E_IO. */
int cap_jpeg_write(cap_codec_t *c, const cap_image_t *img, int quality, const char *path);

/* Loads one image file (JPEG with EXIF orientation applied, or PNG/BMP/PPM/TIFF/WebP through libav)
 * into a new BGR8 buffer. On success img->data is owned by the caller, freed with cap_image_free.
 * Errors: CAP_E_NOTFOUND, CAP_E_FORMAT (not an image, or a video file: its first frame is no still),
 * CAP_E_DECODE, CAP_E_NOMEM; the reason is in
 * err (errlen bytes, NUL-terminated when errlen > 0). */
int cap_image_load(const char *path, cap_image_t *img, char *err, size_t errlen);

/* Frees pixels returned by cap_image_load and zeroes *img. NULL and already-freed images are allowed. */
void cap_image_free(cap_image_t *img);

/* Converts a packed YUYV 4:2:2 picture (BT.601, limited range, as webcams send) of width x height
 * pixels to BGR8. src_stride, dst_stride: bytes per row (>= 2*width and >= 3*width). dst is the
 * caller's (3 * width * height bytes at least, with dst_stride). An odd width uses its last Y alone. */
void cap_yuyv_to_bgr(const unsigned char *src, int src_stride, int width, int height, unsigned char *dst,
                     int dst_stride);

/* The name of a return code ("CAP_AGAIN", ...), for logs. Never NULL. */
const char *cap_strerror(int rc);

#ifdef __cplusplus
}
#endif

#endif /* KIFUCAM_CAPTURE_H */
