// cvseam.cpp - the project's only C++: OpenCV 4.6 calls behind the pure-C vision/cvseam.h.
// Each entry point wraps its body in try/catch(...) and turns any exception into VIS_CV_E_EXCEPTION
// with the message in the caller's buffer; no exception ever crosses into C. Images are wrapped in
// cv::Mat headers over the caller's memory (no copies unless OpenCV needs one).
#include "vision/cvseam.h"

#include <cerrno>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <exception>
#include <fstream>
#include <iterator>
#include <memory>
#include <new>
#include <string>
#include <vector>
#include <sys/stat.h>

#include <opencv2/core.hpp>
#include <opencv2/core/utils/logger.hpp>
#include <opencv2/dnn.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

// OpenCV's dnn re-plans and re-allocates every layer's buffers whenever the input's shape changes. For a
// large batch that costs more than the forward pass itself (measured: 81 squares took 108 ms when one Net
// alternated between batches of 81, 62 and 1, 40 ms when it did not); for a small one it is cheap, and
// more Nets only cost memory and cache (the recorder's few changed squares a frame ran 10 % slower with a
// Net per size). So a handle keeps one Net for all batches under NET_SMALL (re-planned as their size
// changes) and one Net per larger batch size, up to NET_SLOTS - 1 of them, the least recently used one
// re-planned for a new size.
enum { NET_SLOTS = 5, NET_SMALL = 32 };

struct net_slot {
    int n = 0;              // batch size this Net is planned for; 0: not used yet
    unsigned long used = 0; // the handle's clock at the last forward
    cv::dnn::Net net;
};

struct vis_cv_net {
    std::vector<uchar> onnx; // the model file's bytes, to load more Nets from
    std::vector<net_slot> slots;
    unsigned long clock = 0;
};

namespace {

void set_err(char *err, size_t errlen, const char *fn, const char *fmt, ...) {
    if (err == nullptr || errlen == 0)
        return;
    char msg[4400];
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    std::snprintf(err, errlen, "%s: %s", fn, msg);
    // OpenCV messages span lines; callers print one line
    for (char *p = err; *p; p++)
        if (*p == '\n' || *p == '\r')
            *p = ' ';
}

// Runs f() and maps exceptions to codes. f returns a VIS_CV_* code itself.
template <class F> int guarded(const char *fn, char *err, size_t errlen, F f) {
    try {
        return f();
    } catch (const cv::Exception &e) {
        set_err(err, errlen, fn, "opencv: %s", e.what());
    } catch (const std::bad_alloc &) {
        set_err(err, errlen, fn, "out of memory");
    } catch (const std::exception &e) {
        set_err(err, errlen, fn, "%s", e.what());
    } catch (...) {
        set_err(err, errlen, fn, "unknown C++ exception");
    }
    return VIS_CV_E_EXCEPTION;
}

/* One short clause from an OpenCV exception's text for an error line: the operator an ONNX importer could
 * not take ("> Node [FooBar@ai.onnx]:(...) parse error: OpenCV(4.6.0) ...": "operator FooBar"), else the
 * text's first line without OpenCV's file, line and version, at most 120 characters. */
static std::string short_reason(const std::string &e) {
    size_t node = e.find("Node [");
    if (node != std::string::npos) {
        size_t b = node + 6, end = e.find_first_of("@]", b);
        if (end != std::string::npos && end > b)
            return "operator " + e.substr(b, end - b) + " is not supported";
    }
    std::string line = e.substr(0, e.find('\n'));
    size_t cv = line.find("OpenCV(");
    if (cv != std::string::npos) {
        size_t msg = line.find("error: ", cv);
        line = msg != std::string::npos ? line.substr(msg + 7) : line.substr(0, cv);
    }
    while (!line.empty() && (line[0] == '>' || line[0] == ' '))
        line.erase(0, 1);
    if (line.size() > 120)
        line = line.substr(0, 117) + "...";
    return line;
}

// OpenCV's log silenced while it lives (its level before is put back however the scope is left).
struct quiet_log {
    cv::utils::logging::LogLevel level = cv::utils::logging::getLogLevel();
    quiet_log() { cv::utils::logging::setLogLevel(cv::utils::logging::LOG_LEVEL_SILENT); }
    ~quiet_log() { cv::utils::logging::setLogLevel(level); }
    quiet_log(const quiet_log &) = delete;
    quiet_log &operator=(const quiet_log &) = delete;
};

// One Net from the model's bytes, on OpenCV's own CPU backend. Throws cv::Exception when OpenCV cannot
// read the model.
cv::dnn::Net load_net(const std::vector<uchar> &onnx) {
    cv::dnn::Net net = cv::dnn::readNetFromONNX(onnx);
    net.setPreferableBackend(cv::dnn::DNN_BACKEND_OPENCV);
    net.setPreferableTarget(cv::dnn::DNN_TARGET_CPU);
    return net;
}

// The Net for batches of nb: slot 0 for small batches; for a large one, its own slot, a new one, or the
// least recently used large one.
cv::dnn::Net &net_for(vis_cv_net *h, int nb) {
    net_slot *pick = nullptr;
    if (nb < NET_SMALL) {
        pick = &h->slots[0];
    } else {
        for (size_t i = 1; i < h->slots.size() && pick == nullptr; i++)
            if (h->slots[i].n == nb)
                pick = &h->slots[i];
        if (pick == nullptr && h->slots.size() < NET_SLOTS) {
            net_slot s;
            s.net = load_net(h->onnx);
            h->slots.push_back(std::move(s));
            pick = &h->slots.back();
        }
        if (pick == nullptr) {
            pick = &h->slots[1];
            for (size_t i = 2; i < h->slots.size(); i++)
                if (h->slots[i].used < pick->used)
                    pick = &h->slots[i];
        }
    }
    pick->n = nb;
    pick->used = ++h->clock;
    return pick->net;
}

bool bad_view(const void *p, int w, int h, int stride, int bpp) {
    return p == nullptr || w <= 0 || h <= 0 || stride < w * bpp;
}

} // namespace

extern "C" int vis_cv_set_threads(int n, char *err, size_t errlen) {
    return guarded("vis_cv_set_threads", err, errlen, [&] {
        cv::setNumThreads(n <= 1 ? 0 : n);
        return VIS_CV_OK;
    });
}

extern "C" int vis_cv_bgr_to_grey(const unsigned char *src, int w, int h, int stride, unsigned char *dst,
                                  int dw, int dh, int dstride, char *err, size_t errlen) {
    const char *fn = "vis_cv_bgr_to_grey";
    if (bad_view(src, w, h, stride, 3) || bad_view(dst, dw, dh, dstride, 1)) {
        set_err(err, errlen, fn, "bad image view");
        return VIS_CV_E_ARG;
    }
    return guarded(fn, err, errlen, [&] {
        cv::Mat s(h, w, CV_8UC3, const_cast<unsigned char *>(src), (size_t)stride);
        cv::Mat d(dh, dw, CV_8UC1, dst, (size_t)dstride);
        cv::Mat g;
        cv::cvtColor(s, g, cv::COLOR_BGR2GRAY);
        if (dw == w && dh == h)
            g.copyTo(d);
        else
            cv::resize(g, d, d.size(), 0, 0, (dw < w) ? cv::INTER_AREA : cv::INTER_LINEAR);
        return VIS_CV_OK;
    });
}

extern "C" int vis_cv_blur_grey(unsigned char *img, int w, int h, int stride, double sigma, char *err,
                                size_t errlen) {
    const char *fn = "vis_cv_blur_grey";
    if (bad_view(img, w, h, stride, 1) || !(sigma > 0 && sigma < 100)) {
        set_err(err, errlen, fn, "bad image view or sigma");
        return VIS_CV_E_ARG;
    }
    return guarded(fn, err, errlen, [&] {
        cv::Mat m(h, w, CV_8UC1, img, (size_t)stride);
        cv::GaussianBlur(m, m, cv::Size(0, 0), sigma);
        return VIS_CV_OK;
    });
}

extern "C" int vis_cv_blackhat(const unsigned char *src, int w, int h, int stride, int ksize,
                               unsigned char *dst, int dstride, char *err, size_t errlen) {
    const char *fn = "vis_cv_blackhat";
    if (bad_view(src, w, h, stride, 1) || bad_view(dst, w, h, dstride, 1) || ksize < 3 || ksize > 63 ||
        (ksize & 1) == 0) {
        set_err(err, errlen, fn, "bad image view or kernel size %d", ksize);
        return VIS_CV_E_ARG;
    }
    return guarded(fn, err, errlen, [&] {
        cv::Mat s(h, w, CV_8UC1, const_cast<unsigned char *>(src), (size_t)stride);
        cv::Mat d(h, w, CV_8UC1, dst, (size_t)dstride);
        cv::Mat k = cv::getStructuringElement(cv::MORPH_RECT, cv::Size(ksize, ksize));
        cv::morphologyEx(s, d, cv::MORPH_BLACKHAT, k, cv::Point(-1, -1), 1, cv::BORDER_CONSTANT,
                         cv::morphologyDefaultBorderValue());
        return VIS_CV_OK;
    });
}

extern "C" int vis_cv_hough_lines(const unsigned char *bin, int w, int h, int stride, double rho_res,
                                  double theta_res, int threshold, double *out, int max, int *n, char *err,
                                  size_t errlen) {
    const char *fn = "vis_cv_hough_lines";
    if (bad_view(bin, w, h, stride, 1) || out == nullptr || n == nullptr || max <= 0 || rho_res <= 0 ||
        theta_res <= 0 || threshold < 1) {
        set_err(err, errlen, fn, "bad argument");
        return VIS_CV_E_ARG;
    }
    *n = 0;
    return guarded(fn, err, errlen, [&] {
        cv::Mat s(h, w, CV_8UC1, const_cast<unsigned char *>(bin), (size_t)stride);
        std::vector<cv::Vec3f> lines;
        cv::HoughLines(s, lines, rho_res, theta_res, threshold);
        int k = 0;
        for (const cv::Vec3f &l : lines) {
            if (k >= max)
                break;
            out[3 * k] = l[0];
            out[3 * k + 1] = l[1];
            out[3 * k + 2] = l[2];
            k++;
        }
        *n = k;
        return VIS_CV_OK;
    });
}

extern "C" int vis_cv_warp(const unsigned char *src, int w, int h, int stride, int channels,
                           const double H[9], unsigned char *dst, int dw, int dh, int dstride, char *err,
                           size_t errlen) {
    const char *fn = "vis_cv_warp";
    if ((channels != 1 && channels != 3) || H == nullptr || bad_view(src, w, h, stride, channels) ||
        bad_view(dst, dw, dh, dstride, channels)) {
        set_err(err, errlen, fn, "bad argument");
        return VIS_CV_E_ARG;
    }
    return guarded(fn, err, errlen, [&] {
        int type = channels == 1 ? CV_8UC1 : CV_8UC3;
        cv::Mat s(h, w, type, const_cast<unsigned char *>(src), (size_t)stride);
        cv::Mat d(dh, dw, type, dst, (size_t)dstride);
        cv::Mat m(3, 3, CV_64F, const_cast<double *>(H));
        cv::warpPerspective(s, d, m, d.size(), cv::INTER_LINEAR | cv::WARP_INVERSE_MAP, cv::BORDER_CONSTANT,
                            cv::Scalar::all(0));
        return VIS_CV_OK;
    });
}

extern "C" int vis_cv_resize_bgr(const unsigned char *src, int w, int h, int stride, unsigned char *dst,
                                 int dw, int dh, int dstride, char *err, size_t errlen) {
    const char *fn = "vis_cv_resize_bgr";
    if (bad_view(src, w, h, stride, 3) || bad_view(dst, dw, dh, dstride, 3)) {
        set_err(err, errlen, fn, "bad image view");
        return VIS_CV_E_ARG;
    }
    return guarded(fn, err, errlen, [&] {
        cv::Mat s(h, w, CV_8UC3, const_cast<unsigned char *>(src), (size_t)stride);
        cv::Mat d(dh, dw, CV_8UC3, dst, (size_t)dstride);
        cv::resize(s, d, d.size(), 0, 0, (dw < w && dh < h) ? cv::INTER_AREA : cv::INTER_LINEAR);
        return VIS_CV_OK;
    });
}

extern "C" int vis_cv_draw_line(unsigned char *img, int w, int h, int stride, double x0, double y0, double x1,
                                double y1, const unsigned char bgr[3], int thickness, char *err,
                                size_t errlen) {
    const char *fn = "vis_cv_draw_line";
    if (bad_view(img, w, h, stride, 3) || bgr == nullptr || thickness < 1) {
        set_err(err, errlen, fn, "bad argument");
        return VIS_CV_E_ARG;
    }
    return guarded(fn, err, errlen, [&] {
        cv::Mat m(h, w, CV_8UC3, img, (size_t)stride);
        const int sh = 4; // fixed-point bits for sub-pixel end points
        cv::Point a((int)std::lround(x0 * (1 << sh)), (int)std::lround(y0 * (1 << sh)));
        cv::Point b((int)std::lround(x1 * (1 << sh)), (int)std::lround(y1 * (1 << sh)));
        cv::line(m, a, b, cv::Scalar(bgr[0], bgr[1], bgr[2]), thickness, cv::LINE_AA, sh);
        return VIS_CV_OK;
    });
}

extern "C" int vis_cv_draw_text(unsigned char *img, int w, int h, int stride, double cx, double cy,
                                const char *text, double scale, const unsigned char bgr[3], char *err,
                                size_t errlen) {
    const char *fn = "vis_cv_draw_text";
    if (bad_view(img, w, h, stride, 3) || text == nullptr || bgr == nullptr || !(scale > 0)) {
        set_err(err, errlen, fn, "bad argument");
        return VIS_CV_E_ARG;
    }
    return guarded(fn, err, errlen, [&] {
        cv::Mat m(h, w, CV_8UC3, img, (size_t)stride);
        int thick = scale < 0.6 ? 1 : 2;
        int base = 0;
        cv::Size sz = cv::getTextSize(text, cv::FONT_HERSHEY_SIMPLEX, scale, thick, &base);
        cv::Point org((int)std::lround(cx - sz.width / 2.0), (int)std::lround(cy + sz.height / 2.0));
        cv::putText(m, text, org, cv::FONT_HERSHEY_SIMPLEX, scale, cv::Scalar(0, 0, 0), thick + 2,
                    cv::LINE_AA);
        cv::putText(m, text, org, cv::FONT_HERSHEY_SIMPLEX, scale, cv::Scalar(bgr[0], bgr[1], bgr[2]), thick,
                    cv::LINE_AA);
        return VIS_CV_OK;
    });
}

extern "C" int vis_cv_write_image(const char *path, const unsigned char *img, int w, int h, int stride,
                                  char *err, size_t errlen) {
    const char *fn = "vis_cv_write_image";
    if (path == nullptr || bad_view(img, w, h, stride, 3)) {
        set_err(err, errlen, fn, "bad argument");
        return VIS_CV_E_ARG;
    }
    return guarded(fn, err, errlen, [&] {
        cv::Mat m(h, w, CV_8UC3, const_cast<unsigned char *>(img), (size_t)stride);
        if (!cv::haveImageWriter(path)) {
            set_err(err, errlen, fn, "%s: not an image file name OpenCV can write (use .png or .jpg)", path);
            return (int)VIS_CV_E_IO;
        }
        /* OpenCV says why a write failed only in its log (a WARN line on stderr): quiet it, and ask the
         * system for the reason instead */
        bool ok;
        {
            quiet_log quiet;
            ok = cv::imwrite(path, m);
        }
        if (!ok) {
            errno = 0;
            std::FILE *f = std::fopen(path, "ab");
            int e = errno;
            if (f)
                std::fclose(f);
            set_err(err, errlen, fn, "%s: could not write (%s)", path,
                    f ? "the encoder failed" : std::strerror(e));
            return (int)VIS_CV_E_IO;
        }
        return (int)VIS_CV_OK;
    });
}

extern "C" int vis_cv_net_load(const char *path, vis_cv_net_t **out, char *err, size_t errlen) {
    const char *fn = "vis_cv_net_load";
    if (path == nullptr || out == nullptr) {
        set_err(err, errlen, fn, "bad argument");
        return VIS_CV_E_ARG;
    }
    *out = nullptr;
    struct stat sb;
    if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        set_err(err, errlen, fn, "%s: %s", path,
                stat(path, &sb) != 0 ? "no such file" : "not a regular file");
        return VIS_CV_E_IO;
    }
    return guarded(fn, err, errlen, [&] {
        std::ifstream f(path, std::ios::binary);
        if (!f.good()) {
            set_err(err, errlen, fn, "%s: cannot open", path);
            return (int)VIS_CV_E_IO;
        }
        std::vector<uchar> onnx((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
        if (f.bad()) {
            set_err(err, errlen, fn, "%s: cannot read", path);
            return (int)VIS_CV_E_IO;
        }
        if (onnx.empty()) { /* a download or copy that failed: not a network, as any other non-ONNX file */
            set_err(err, errlen, fn, "%s: not an ONNX network (an empty file)", path);
            return (int)VIS_CV_E_EXCEPTION;
        }
        cv::dnn::Net first;
        {
            /* OpenCV logs its own parse errors on stderr before it throws: quiet while loading (the
             * exception's short text becomes our one error line) */
            quiet_log quiet;
            try {
                first = load_net(onnx);
            } catch (const cv::Exception &e) {
                if (e.err.find("Failed to parse") != std::string::npos) /* not ONNX at all */
                    set_err(err, errlen, fn, "%s: not an ONNX network", path);
                else
                    set_err(err, errlen, fn, "%s: not an ONNX network OpenCV can load (%s)", path,
                            short_reason(e.err).c_str());
                return (int)VIS_CV_E_EXCEPTION;
            }
        }
        if (first.empty()) {
            set_err(err, errlen, fn, "%s: empty network", path);
            return (int)VIS_CV_E_EXCEPTION;
        }
        std::unique_ptr<vis_cv_net> n(new vis_cv_net);
        n->onnx = std::move(onnx);
        n->slots.emplace_back();
        n->slots[0].net = first;
        *out = n.release();
        return (int)VIS_CV_OK;
    });
}

extern "C" void vis_cv_net_free(vis_cv_net_t *net) {
    try {
        delete net;
    } catch (...) {
    }
}

extern "C" const unsigned char *vis_cv_net_bytes(const vis_cv_net_t *net, size_t *len) {
    *len = net ? net->onnx.size() : 0;
    return net ? net->onnx.data() : nullptr;
}

extern "C" int vis_cv_net_forward(vis_cv_net_t *net, const float *in, int n, int c, int h, int w, float *out,
                                  int nout, int *got_nout, char *err, size_t errlen) {
    const char *fn = "vis_cv_net_forward";
    if (net == nullptr || in == nullptr || out == nullptr || n <= 0 || c <= 0 || h <= 0 || w <= 0 ||
        nout <= 0) {
        set_err(err, errlen, fn, "bad argument");
        return VIS_CV_E_ARG;
    }
    if (got_nout)
        *got_nout = 0;
    return guarded(fn, err, errlen, [&] {
        int sz[4] = {n, c, h, w};
        cv::Mat blob(4, sz, CV_32F, const_cast<float *>(in));
        cv::dnn::Net &dnn = net_for(net, n);
        dnn.setInput(blob);
        cv::Mat res = dnn.forward();
        if (!res.isContinuous())
            res = res.clone();
        size_t total = res.total();
        int per = (int)(total / (size_t)n);
        if (got_nout)
            *got_nout = per;
        if (res.type() != CV_32F || total != (size_t)n * (size_t)per || per != nout) {
            set_err(err, errlen, fn, "network gave %d values per sample (type %d), expected %d", per,
                    res.type(), nout);
            return (int)VIS_CV_E_ARG;
        }
        std::memcpy(out, res.ptr<float>(), total * sizeof(float));
        return (int)VIS_CV_OK;
    });
}
