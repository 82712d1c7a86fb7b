#!/bin/sh
# bench_capture.sh - MJPEG decode speed of kifucam's capture path against OpenCV's imdecode, on the
# same 1080p frame, one core, in the same run; prints frames per second and the ratios, and whether
# the full per-frame path keeps up with a 1080p 60 fps camera.
# usage: sh bench/bench_capture.sh BUILD_DIR   (make bench)
set -u
BUILD=${1:-build}
BENCH="$BUILD/bench-capture"
SECS=${KIFUCAM_BENCH_SECONDS:-2}
JPG="$BUILD/bench-1080p.jpg"
PHOTO=../shared/data/photos/sanjaykumar695/normal.jpg
PIN=""
command -v taskset >/dev/null 2>&1 && PIN="taskset -c 0"
[ -x "$BENCH" ] || { echo "bench: $BENCH not built (run make bench)" >&2; exit 2; }
[ -f "$PHOTO" ] || { echo "skipped: ../shared/data not found (frame content is synthetic)"; PHOTO=""; }

echo "capture: MJPEG decode to BGR, frames per second on one core, $(uname -m), $(date -u +%Y-%m-%dT%H:%MZ)"
out=$($PIN "$BENCH" "$JPG" "$SECS" $PHOTO) || { echo "bench: bench-capture failed" >&2; exit 1; }
echo "$out"
half=$(echo "$out" | awk '/mjpeg half/{print $(NF-1)}')
full=$(echo "$out" | awk '/mjpeg full/{print $(NF-1)}')

# OpenCV through Debian's python3-opencv (the system interpreter, where the package installs).
PY=/usr/bin/python3
if $PY -c 'import cv2' >/dev/null 2>&1; then
    cv=$($PIN $PY - "$JPG" "$SECS" <<'PYEOF'
import sys, time
import numpy as np
import cv2
cv2.setNumThreads(1)
data = np.frombuffer(open(sys.argv[1], "rb").read(), dtype=np.uint8)
secs = float(sys.argv[2])
def rate(flag):
    n, t0 = 0, time.perf_counter()
    while True:
        img = cv2.imdecode(data, flag)
        n += 1
        t = time.perf_counter() - t0
        if t >= secs:
            return n / t, img.shape
for name, flag in (("full", cv2.IMREAD_COLOR), ("half", cv2.IMREAD_REDUCED_COLOR_2)):
    r, shape = rate(flag)
    print("opencv %s imdecode %s %dx%d: %.1f fps" % (cv2.__version__, name, shape[1], shape[0], r))
PYEOF
)
    echo "$cv"
    cvfull=$(echo "$cv" | awk '/ full /{print $(NF-1)}')
    cvhalf=$(echo "$cv" | awk '/ half /{print $(NF-1)}')
    echo "$full $cvfull $half $cvhalf" | awk '{ if ($2 > 0 && $4 > 0) printf "ratio kifucam/opencv imdecode: full %.2f, half %.2f\n", $1 / $2, $3 / $4 }'
else
    echo "skipped: OpenCV (python3-opencv) not installed: no imdecode comparison (make deps)"
fi
echo "$full" | awk '{ printf "1080p60 on one core: full-scale decode %s (%.1f fps, needs 60)\n", ($1 >= 60 ? "keeps up" : "does NOT keep up"), $1 }'
