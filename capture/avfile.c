/* avfile.c - video files (and non-JPEG stills) through FFmpeg's libavformat/libavcodec/libswscale:
 * demux, decode, convert to BGR8; timestamps from the container, relative to the stream start. */
#define _GNU_SOURCE
#include "capture/capture_internal.h"

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/imgutils.h>
#include <libavutil/log.h>
#include <libswscale/swscale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct av_src {
    AVFormatContext *fmt;   /* demuxer */
    AVCodecContext *dec;    /* decoder of the video stream */
    AVPacket *pkt;          /* packet being fed */
    AVFrame *frm;           /* decoded frame */
    struct SwsContext *sws; /* converter to BGR24 */
    int stream;             /* index of the video stream */
    int64_t start;          /* stream start time, stream time base (0 if unknown) */
    AVRational tb;          /* stream time base */
    int eof_sent;           /* 1 once the decoder was flushed */
    int read_err;           /* the demuxer's error that ended the file early (not AVERROR_EOF), or 0 */
    uint64_t refused;       /* packets the decoder refused as invalid data (each a frame lost) since the
                               video source last counted them (video_read) */
    int64_t bad_ts;         /* us from the stream start of the last packet the decoder refused or failed
                               on (its pts, else its dts), -1 when it has neither or a frame failed */
    int damaged;            /* 1 from a refused packet, a failed frame or a frame decoded with errors up
                               to the next keyframe: the frames between are predicted from a picture
                               that was lost or wrong (FFmpeg only logs "reference picture missing"
                               and conceals; libavcodec 59 flags none of them) */
    int64_t clean_pts;      /* pts (stream time base) of the keyframe that ended the last damaged
                               stretch, AV_NOPTS_VALUE before any: a frame shown before it but decoded
                               after it (an open GOP's leading B-frames) may still refer to the damage */
    uint64_t index;         /* frames delivered */
    int64_t last_ts;        /* timestamp of the last frame, us (to keep them increasing) */
    double fps;             /* the stream's average rate, for frames with no timestamp */
    cap_image_t img;        /* BGR pixels of the last frame (owned) */
    char path[CAPI_DESCLEN];
} av_src_t;

static void av_fmt_err(char *buf, size_t len, const char *fn, const char *path, const char *what, int averr) {
    char e[AV_ERROR_MAX_STRING_SIZE] = {0};
    av_strerror(averr, e, sizeof e);
    capi_fmt_err(buf, len, fn, "%s: %s: %s", path, what, e);
}

static void av_state_free(av_src_t *s) {
    sws_freeContext(s->sws);
    av_frame_free(&s->frm);
    av_packet_free(&s->pkt);
    avcodec_free_context(&s->dec);
    avformat_close_input(&s->fmt);
    free(s->img.data);
    memset(&s->img, 0, sizeof s->img);
}

/* Reads the first size bytes of the file at path into b; returns how many were read (0 if it cannot be
 * opened). */
static size_t read_head(const char *path, unsigned char *b, size_t size) {
    FILE *f = fopen(path, "rb");
    size_t n = f ? fread(b, 1, size, f) : 0;
    if (f)
        fclose(f);
    return n;
}

/* 1 if the file at path starts with the signature of a video container (ISO BMFF / MP4 / MOV: "ftyp" at
 * byte 4, ISO/IEC 14496-12 4.3; Matroska / WebM: EBML 1A 45 DF A3; AVI: "RIFF" .. "AVI "; FLV: "FLV";
 * MPEG program stream: 00 00 01 BA; MPEG-TS: sync byte 0x47 at 0 and 188), 0 otherwise or when it
 * cannot be read. Tells a video cut short (an MP4 whose recording stopped before its index, the moov
 * box, was written) from a file that is no video at all. */
static int has_video_magic(const char *path) {
    unsigned char b[189] = {0};
    size_t n = read_head(path, b, sizeof b);
    if (n < 12)
        return 0;
    return memcmp(b + 4, "ftyp", 4) == 0 || memcmp(b, "\x1A\x45\xDF\xA3", 4) == 0 ||
           (memcmp(b, "RIFF", 4) == 0 && memcmp(b + 8, "AVI ", 4) == 0) || memcmp(b, "FLV", 3) == 0 ||
           memcmp(b, "\0\0\x01\xBA", 4) == 0 || (n == sizeof b && b[0] == 0x47 && b[188] == 0x47);
}

/* The error of a file libav could not open or read the streams of: "damaged video" when it has a video
 * container's signature, else "not an image or video file". */
static int av_open_failed(const char *path, const char *fn, char *err, size_t errlen) {
    if (has_video_magic(path)) {
        capi_fmt_err(err, errlen, fn,
                     "%s: damaged video: its container could not be read (truncated or corrupt "
                     "file; an MP4 cut off while recording has no index)",
                     path);
        return CAP_E_DECODE;
    }
    capi_fmt_err(err, errlen, fn, "%s: not an image or video file", path);
    return CAP_E_FORMAT;
}

/* Opens path with libav and prepares the decoder of its best video stream. */
static int av_state_open(av_src_t *s, const char *path, const char *fn, char *err, size_t errlen) {
    const AVCodec *codec = NULL;
    AVStream *st;
    int r;

    snprintf(s->path, sizeof s->path, "%s", path);
    av_log_set_level(AV_LOG_QUIET); /* errors are reported through our messages instead */
    if ((r = avformat_open_input(&s->fmt, path, NULL, NULL)) < 0 ||
        (r = avformat_find_stream_info(s->fmt, NULL)) < 0)
        return av_open_failed(path, fn, err, errlen);
    r = av_find_best_stream(s->fmt, AVMEDIA_TYPE_VIDEO, -1, -1, &codec, 0);
    /* libav's text-art decoders (its "tty" demuxer) would show any .txt or .ans file as a "video":
     * a camera recording is never text, so those count as not a video. */
    if (r >= 0 && codec &&
        (codec->id == AV_CODEC_ID_ANSI || codec->id == AV_CODEC_ID_BINTEXT || codec->id == AV_CODEC_ID_XBIN ||
         codec->id == AV_CODEC_ID_IDF)) {
        capi_fmt_err(err, errlen, fn, "%s: not an image or video file (text)", path);
        return CAP_E_FORMAT;
    }
    if (r < 0 || !codec) {
        capi_fmt_err(err, errlen, fn, "%s: no video stream that can be decoded", path);
        return CAP_E_FORMAT;
    }
    s->stream = r;
    st = s->fmt->streams[r];
    s->tb = st->time_base;
    s->start = st->start_time != AV_NOPTS_VALUE ? st->start_time : 0;
    s->fps = st->avg_frame_rate.num > 0 ? av_q2d(st->avg_frame_rate) : 0;
    if (!(s->dec = avcodec_alloc_context3(codec)) || !(s->pkt = av_packet_alloc()) ||
        !(s->frm = av_frame_alloc())) {
        capi_fmt_err(err, errlen, fn, "out of memory");
        return CAP_E_NOMEM;
    }
    if ((r = avcodec_parameters_to_context(s->dec, st->codecpar)) < 0 ||
        (r = avcodec_open2(s->dec, codec, NULL)) < 0) {
        av_fmt_err(err, errlen, fn, path, "cannot open decoder", r);
        return CAP_E_FORMAT;
    }
    s->last_ts = -1;
    s->bad_ts = -1;
    s->clean_pts = AV_NOPTS_VALUE;
    return 0;
}

/* The time of packet p in us from the stream start (as the frames' timestamps): its pts, else its dts,
 * else -1. */
static int64_t av_packet_ts(const av_src_t *s, const AVPacket *p) {
    int64_t t = p->pts != AV_NOPTS_VALUE ? p->pts : p->dts;
    return t != AV_NOPTS_VALUE ? av_rescale_q(t - s->start, s->tb, (AVRational){1, 1000000}) : -1;
}

/* Decodes the next frame into s->frm. Returns 0, CAP_EOF, or CAP_E_DECODE (s->bad_ts says when).
 * A packet the decoder refuses as invalid data (AVERROR_INVALIDDATA: a damaged H.264 slice, say) is a
 * frame lost: it is counted in s->refused, its time kept in s->bad_ts, and decoding goes on. */
static int av_next(av_src_t *s, const char *fn, char *err, size_t errlen) {
    int r;
    for (;;) {
        r = avcodec_receive_frame(s->dec, s->frm);
        if (r == 0)
            return 0;
        if (r == AVERROR_EOF)
            return CAP_EOF;
        if (r != AVERROR(EAGAIN)) {
            s->bad_ts = -1;
            s->damaged = 1;
            av_fmt_err(err, errlen, fn, s->path, "decode", r);
            return CAP_E_DECODE;
        }
        if (s->eof_sent)
            return CAP_EOF;
        r = av_read_frame(s->fmt, s->pkt);
        if (r < 0) { /* end of file (or unreadable tail): drain the decoder */
            s->eof_sent = 1;
            if (r != AVERROR_EOF)
                s->read_err = r;
            avcodec_send_packet(s->dec, NULL);
            continue;
        }
        if (s->pkt->stream_index == s->stream) {
            r = avcodec_send_packet(s->dec, s->pkt);
            if (r == AVERROR_INVALIDDATA) {
                s->refused++;
                s->damaged = 1;
                s->bad_ts = av_packet_ts(s, s->pkt);
            } else if (r < 0 && r != AVERROR(EAGAIN)) {
                s->damaged = 1;
                s->bad_ts = av_packet_ts(s, s->pkt);
                av_packet_unref(s->pkt);
                av_fmt_err(err, errlen, fn, s->path, "decode", r);
                return CAP_E_DECODE;
            }
        }
        av_packet_unref(s->pkt);
    }
}

/* Converts s->frm to BGR8 in s->img (reallocated when the size changes). */
static int av_to_bgr(av_src_t *s, int scale, const char *fn, char *err, size_t errlen) {
    int w = (s->frm->width + scale - 1) / scale, h = (s->frm->height + scale - 1) / scale;
    uint8_t *dst[4] = {0};
    int dst_stride[4] = {0};
    if (s->img.width != w || s->img.height != h) {
        free(s->img.data);
        /* swscale's vector code may write past the last pixel of small frames (36 bytes at 4x4, none at
         * ordinary sizes, measured): a row and 256 bytes of slack keep that inside the buffer */
        s->img.data = malloc((size_t)w * (size_t)h * 3 + (size_t)w * 3 + 256);
        if (!s->img.data) {
            memset(&s->img, 0, sizeof s->img);
            capi_fmt_err(err, errlen, fn, "out of memory");
            return CAP_E_NOMEM;
        }
        s->img.width = w;
        s->img.height = h;
        s->img.stride = w * 3;
    }
    s->sws = sws_getCachedContext(s->sws, s->frm->width, s->frm->height, s->frm->format, w, h,
                                  AV_PIX_FMT_BGR24, SWS_BILINEAR, NULL, NULL, NULL);
    if (!s->sws) {
        capi_fmt_err(err, errlen, fn, "%s: cannot convert pixel format %d", s->path, s->frm->format);
        return CAP_E_UNSUPPORTED;
    }
    dst[0] = s->img.data;
    dst_stride[0] = s->img.stride;
    sws_scale(s->sws, (const uint8_t *const *)s->frm->data, s->frm->linesize, 0, s->frm->height, dst,
              dst_stride);
    return 0;
}

/* 1 if the file at path starts with the signature of a picture format libavformat reads as a still (PNG,
 * JPEG, GIF, BMP, TIFF, WebP: their specifications' magic numbers), 0 otherwise or when it cannot be read.
 * Tells a truncated picture from a text file given a picture's extension. */
static int has_image_magic(const char *path) {
    unsigned char b[12] = {0};
    size_t n = read_head(path, b, sizeof b);
    if (n < 4)
        return 0;
    return memcmp(b, "\x89PNG", 4) == 0 || (b[0] == 0xFF && b[1] == 0xD8 && b[2] == 0xFF) ||
           memcmp(b, "GIF8", 4) == 0 || memcmp(b, "BM", 2) == 0 || memcmp(b, "II*\0", 4) == 0 ||
           memcmp(b, "MM\0*", 4) == 0 ||
           (n == 12 && memcmp(b, "RIFF", 4) == 0 && memcmp(b + 8, "WEBP", 4) == 0);
}

/* The width and height a PNG (IHDR, ISO/IEC 15948 11.2.2: big-endian at bytes 16-23), GIF (logical screen,
 * GIF89a: little-endian 16-bit at 6-9) or BMP (BITMAPINFOHEADER: little-endian 32-bit at 18-25) states in
 * its header, before any decoding: 1 with *w, *h set, or 0 for another format or an unreadable file. */
static int header_size(const char *path, long *w, long *h) {
    unsigned char b[26] = {0};
    size_t n = read_head(path, b, sizeof b);
    if (n >= 24 && memcmp(b, "\x89PNG", 4) == 0 && memcmp(b + 12, "IHDR", 4) == 0) {
        *w = (long)((unsigned long)b[16] << 24 | (unsigned long)b[17] << 16 | (unsigned long)b[18] << 8 |
                    b[19]);
        *h = (long)((unsigned long)b[20] << 24 | (unsigned long)b[21] << 16 | (unsigned long)b[22] << 8 |
                    b[23]);
        return 1;
    }
    if (n >= 10 && memcmp(b, "GIF8", 4) == 0) {
        *w = b[6] | b[7] << 8;
        *h = b[8] | b[9] << 8;
        return 1;
    }
    if (n >= 26 && memcmp(b, "BM", 2) == 0) {
        uint32_t uw = (uint32_t)b[18] | (uint32_t)b[19] << 8 | (uint32_t)b[20] << 16 | (uint32_t)b[21] << 24;
        uint32_t uh = (uint32_t)b[22] | (uint32_t)b[23] << 8 | (uint32_t)b[24] << 16 | (uint32_t)b[25] << 24;
        *w = (long)(int32_t)uw;
        *h = labs((long)(int32_t)uh); /* negative: rows top-down */
        return *w > 0;
    }
    return 0;
}

/* 1 if libavformat's demuxer named name reads still pictures: its image2 demuxer (by extension), the
 * "*_pipe" ones (by content: png_pipe, bmp_pipe, tiff_pipe, webp_pipe, ppm_pipe...), gif and apng (whose
 * first picture is a still); 0 for a video container (mov,mp4,..., matroska,webm, avi, a raw stream). */
static int still_demuxer(const char *name) {
    size_t n = strlen(name);
    return strcmp(name, "image2") == 0 || strcmp(name, "gif") == 0 || strcmp(name, "apng") == 0 ||
           (n > 5 && strcmp(name + n - 5, "_pipe") == 0);
}

int capi_av_load_still(const char *path, cap_image_t *img, char *err, size_t errlen) {
    av_src_t s;
    int rc;
    memset(&s, 0, sizeof s);
    memset(img, 0, sizeof *img);
    if ((rc = av_state_open(&s, path, "cap_image_load", err, errlen)) != 0)
        goto out;
    if (!still_demuxer(s.fmt->iformat->name)) { /* a video's first frame is no photo of what was meant */
        capi_fmt_err(err, errlen, "cap_image_load", "%s: a video file, not a still image", path);
        rc = CAP_E_FORMAT;
        goto out;
    }
    if ((rc = av_next(&s, "cap_image_load", err, errlen)) != 0) {
        if (rc == CAP_EOF) {
            long w = 0, h = 0;
            if (header_size(path, &w, &h) && w > 0 && h > 0 &&
                av_image_check_size((unsigned)w, (unsigned)h, 0, NULL) < 0) {
                /* libavcodec's own limit, CAPI_MAX_PIXELS */
                capi_fmt_err(err, errlen, "cap_image_load",
                             "%s: image too large: %ldx%ld pixels (at most %lld "
                             "million are decoded)",
                             path, w, h, CAPI_MAX_PIXELS / 1000000);
                rc = CAP_E_UNSUPPORTED;
                goto out;
            }
            if (has_image_magic(path)) { /* a picture format's signature, but no whole picture in it */
                capi_fmt_err(err, errlen, "cap_image_load",
                             "%s: damaged image: no picture could be decoded "
                             "(truncated or corrupt file)",
                             path);
                rc = CAP_E_DECODE;
                goto out;
            }
            capi_fmt_err(err, errlen, "cap_image_load", "%s: not an image (no picture in it)", path);
            rc = CAP_E_FORMAT;
        }
        goto out;
    }
    if ((rc = av_to_bgr(&s, 1, "cap_image_load", err, errlen)) != 0)
        goto out;
    *img = s.img;
    memset(&s.img, 0, sizeof s.img);
out:
    av_state_free(&s);
    return rc;
}

/* ---- video file source ---- */

static int video_open(cap_source_t *src, const char *path) {
    av_src_t *s = calloc(1, sizeof *s);
    AVStream *st;
    int rc;
    if (!s)
        return capi_err(src, CAP_E_NOMEM, "cap_source_open", "out of memory");
    src->impl = s;
    if ((rc = av_state_open(s, path, "cap_source_open", src->err, sizeof src->err)) != 0)
        return rc;
    st = s->fmt->streams[s->stream];
    snprintf(src->desc, sizeof src->desc, "video %s: %s %dx%d, %.3f fps, %.3f s", path,
             avcodec_get_name(st->codecpar->codec_id), st->codecpar->width, st->codecpar->height, s->fps,
             s->fmt->duration > 0 ? (double)s->fmt->duration / AV_TIME_BASE : 0.0);
    return 0;
}

/* At the end of a video file: says in err (else leaves it "") when the frames stopped well before the
 * duration the container states (by more than 1 s and 3 frame intervals), when far fewer frames came
 * (decoded, or refused: corrupt, the count the caller passes) than the stream states (under 90 % and 3
 * frames short), or the demuxer stopped on an error: a file cut short (a copy interrupted, a recording
 * whose writer died) or damaged, whose end is not the game's. All the frames it states, but ending
 * early: its timestamps are wrong (a damaged timescale). The frame interval is taken from the stated
 * rate only between 1 and 1000 fps: a damaged mdhd timescale of 10 made it 102 s, and a clip of 1
 * frame in its 82 s passed for whole. */
static void video_ended_early(const av_src_t *s, uint64_t corrupt, char *err, size_t errlen) {
    double dur = s->fmt->duration > 0 ? (double)s->fmt->duration / AV_TIME_BASE : 0.0;
    double last = s->last_ts >= 0 ? (double)s->last_ts / 1e6 : 0.0;
    double slack = s->fps >= 1.0 && s->fps <= 1000.0 ? 3.0 / s->fps : 0.0;
    int64_t stated = s->fmt->streams[s->stream]->nb_frames;
    uint64_t got = s->index + corrupt;
    int time_short = dur > 0 && last + (slack > 1.0 ? slack : 1.0) < dur;
    int frames_short = stated > 0 && (double)got + 3 < 0.9 * (double)stated;
    err[0] = 0;
    if (time_short || frames_short) {
        char e[AV_ERROR_MAX_STRING_SIZE + 4] = "", n[96] = "";
        if (s->read_err) {
            strcpy(e, " (");
            av_strerror(s->read_err, e + 2, AV_ERROR_MAX_STRING_SIZE);
            strcat(e, ")");
        }
        if (stated > 0 && !frames_short)
            capi_fmt_err(
                err, errlen, "cap_source_read",
                "%s: the frames end at %.1f s of the %.1f s the file states, though all %lld frames it "
                "states were read: its timestamps are damaged (a wrong timescale?)%s",
                s->path, last, dur, (long long)stated, e);
        else {
            if (stated > 0)
                snprintf(n, sizeof n, ", %llu of the %lld frames it states", (unsigned long long)got,
                         (long long)stated);
            capi_fmt_err(
                err, errlen, "cap_source_read",
                "%s: the frames end at %.1f s of the %.1f s the file states%s: cut short or damaged%s",
                s->path, last, dur, n, e);
        }
    } else if (s->read_err) {
        av_fmt_err(err, errlen, "cap_source_read", s->path, "the file ends on a read error", s->read_err);
    }
}

/* 1 if the frame in s->frm may show a wrong picture: decoded with errors (decode_error_flags, the
 * corrupt flag), or decoded after a packet the decoder refused or failed on and before the next
 * keyframe (key_frame: an IDR or recovery point; or an I picture), or shown before that keyframe but
 * decoded after it (open GOP). A frame decoded with errors starts such a stretch itself: the frames
 * after it are predicted from its wrong picture. Measured on the sample clip with 3000 bytes zeroed
 * at byte 148575: 4 packets refused at 18.0-18.3 s, and the 16 frames decoded after them up to the
 * keyframe at 20.0 s carried no flag at all, though one showed a bishop on 6b that was never there. */
static int video_frame_damaged(av_src_t *s) {
    const AVFrame *f = s->frm;
    int64_t pts = f->best_effort_timestamp;
    int errors = f->decode_error_flags != 0 || (f->flags & AV_FRAME_FLAG_CORRUPT) != 0;
    int key = f->key_frame || f->pict_type == AV_PICTURE_TYPE_I, bad;
    if (s->damaged && key && !errors) {
        s->damaged = 0;
        s->clean_pts = pts;
    }
    bad = errors || s->damaged ||
          (s->clean_pts != AV_NOPTS_VALUE && pts != AV_NOPTS_VALUE && pts < s->clean_pts);
    if (errors)
        s->damaged = 1;
    return bad;
}

static int video_read(cap_source_t *src, cap_frame_t *frame) {
    av_src_t *s = src->impl;
    int64_t pts, ts;
    int rc;
    for (;;) {
        rc = av_next(s, "cap_source_read", src->err, sizeof src->err);
        if (s->refused > 0 || rc == CAP_E_DECODE) { /* damaged frames: counted and skipped */
            src->stats.corrupt += s->refused + (rc == CAP_E_DECODE);
            src->stats.corrupt_ts_us = s->bad_ts;
            s->refused = 0;
        }
        if (rc == CAP_E_DECODE)
            continue;
        if (rc == CAP_EOF)
            video_ended_early(s, src->stats.corrupt, src->err, sizeof src->err);
        if (rc != 0)
            return rc;
        if (video_frame_damaged(s))
            frame->flags |= CAP_FRAME_WARNING | CAP_FRAME_DAMAGED;
        break;
    }
    rc = av_to_bgr(s, src->params.scale_denom, "cap_source_read", src->err, sizeof src->err);
    if (rc != 0)
        return rc;
    pts = s->frm->best_effort_timestamp;
    if (pts != AV_NOPTS_VALUE)
        ts = av_rescale_q(pts - s->start, s->tb, (AVRational){1, 1000000});
    else if (s->fps > 0)
        ts = (int64_t)((double)s->index * 1e6 / s->fps + 0.5);
    else
        ts = s->last_ts + 1;
    if (ts <= s->last_ts) /* keep the documented monotonic promise on broken files */
        ts = s->last_ts + 1;
    s->last_ts = ts;
    frame->image = s->img;
    frame->ts_us = ts;
    frame->seq = s->index++;
    av_frame_unref(s->frm);
    return 0;
}

static void video_close(cap_source_t *src) {
    av_src_t *s = src->impl;
    if (!s)
        return;
    av_state_free(s);
    free(s);
    src->impl = NULL;
}

const capi_backend_t capi_backend_video = {"video", video_open, video_read, video_close};
