/* stubs.c - stand-ins for the file sources of capture/, linked into build/cap-grab-static, the
 * camera-only cap-grab that `make test-v4l2` runs inside a qemu guest: without libav, libexif and their
 * hundred shared libraries the guest's initramfs is one static binary. Opening a file says so. */
#include "capture/capture_internal.h"

static int no_files(cap_source_t *src, const char *path) {
    return capi_err(src, CAP_E_UNSUPPORTED, "cap_source_open", "%s: this build reads cameras only", path);
}

static int no_read(cap_source_t *src, cap_frame_t *frame) {
    (void)frame;
    return capi_err(src, CAP_E_UNSUPPORTED, "cap_source_read", "camera-only build");
}

static void no_close(cap_source_t *src) { (void)src; }

const capi_backend_t capi_backend_image = {"image", no_files, no_read, no_close};
const capi_backend_t capi_backend_folder = {"folder", no_files, no_read, no_close};
const capi_backend_t capi_backend_video = {"video", no_files, no_read, no_close};
