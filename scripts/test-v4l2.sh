#!/bin/sh
# test-v4l2.sh - `make test-v4l2`: kifucam's V4L2 code against a real kernel driver. Boots the kernel
# that Debian's linux-image-amd64 currently points to (looked up with apt-cache, fetched with
# apt-get download, cached in BUILD/v4l2vm) under qemu with TCG (no KVM needed), loads the vivid
# virtual camera from that kernel's own modules, and runs BUILD/cap-grab-static (kifucam's capture
# code, cameras only) on /dev/video0 in several formats, sizes and rates. Prints one line per check
# and "N passed, N failed"; exits 1 if any check failed, 2 if the guest could not be built or booted.
# Usage: sh scripts/test-v4l2.sh [BUILD]   (BUILD defaults to build)
set -eu

BUILD=${1:-build}
VM=$BUILD/v4l2vm
GRAB=$BUILD/cap-grab-static
TIMEOUT=${KIFUCAM_V4L2_TIMEOUT:-420}

die() { echo "test-v4l2: $*" >&2; exit 2; }

[ -x "$GRAB" ] || die "$GRAB missing (make $GRAB)"
for t in qemu-system-x86_64 busybox cpio depmod modprobe apt-cache dpkg-deb gzip; do
    command -v "$t" >/dev/null 2>&1 || [ -x "/sbin/$t" ] || [ -x "/usr/sbin/$t" ] || die "$t not found (make deps)"
done
PATH=$PATH:/sbin:/usr/sbin

# 1. The kernel: the package linux-image-amd64 depends on, looked up now.
KPKG=$(apt-cache depends linux-image-amd64 2>/dev/null | sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*\)$/\1/p' | head -n1)
if [ -z "$KPKG" ]; then
    apt-get update -qq >/dev/null 2>&1 || true
    KPKG=$(apt-cache depends linux-image-amd64 2>/dev/null | sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*\)$/\1/p' | head -n1)
fi
[ -n "$KPKG" ] || die "cannot find the kernel package behind linux-image-amd64 (apt-get update?)"
mkdir -p "$VM"
DEB=$(ls "$VM"/"$KPKG"_*.deb 2>/dev/null | head -n1 || true)
if [ -z "$DEB" ]; then
    (cd "$VM" && apt-get download "$KPKG" >/dev/null 2>&1) || die "apt-get download $KPKG failed"
    DEB=$(ls "$VM"/"$KPKG"_*.deb | head -n1)
fi
KVER=${KPKG#linux-image-}
echo "test-v4l2: kernel $KPKG ($(basename "$DEB"))"
if [ ! -f "$VM/kernel/.done-$KVER" ]; then
    rm -rf "$VM/kernel"
    mkdir -p "$VM/kernel"
    dpkg-deb -x "$DEB" "$VM/kernel"
    depmod -b "$VM/kernel" "$KVER"
    touch "$VM/kernel/.done-$KVER"
fi
VMLINUZ=$VM/kernel/boot/vmlinuz-$KVER
[ -f "$VMLINUZ" ] || die "$VMLINUZ missing in $DEB"

# 2. The initramfs: static busybox, the vivid module and what it needs, cap-grab, /init.
ROOT=$VM/root
rm -rf "$ROOT"
mkdir -p "$ROOT/bin" "$ROOT/proc" "$ROOT/sys" "$ROOT/dev" "$ROOT/tmp" "$ROOT/mod"
cp "$(command -v busybox)" "$ROOT/bin/busybox"
file "$ROOT/bin/busybox" 2>/dev/null | grep -q dynamic && die "busybox is not static (install busybox-static)"
cp "$GRAB" "$ROOT/bin/cap-grab"
: >"$ROOT/modules"
for m in $(modprobe --show-depends -d "$VM/kernel" -S "$KVER" vivid | awk '$1 == "insmod" {print $2}'); do
    cp "$m" "$ROOT/mod/"
    echo "/mod/$(basename "$m")" >>"$ROOT/modules"
done
[ -s "$ROOT/modules" ] || die "vivid module not found in $KPKG"
cat >"$ROOT/init" <<'EOF'
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
for m in $(cat /modules); do
    case $m in
    */vivid.ko) insmod "$m" n_devs=1 node_types=0x1 num_inputs=1 input_types=0x0 || echo "GUEST insmod $m failed" ;;
    *) insmod "$m" || echo "GUEST insmod $m failed" ;;
    esac
done
i=0
while [ ! -e /dev/video0 ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
run() { # name, then cap-grab arguments
    name=$1; shift
    echo "GUEST BEGIN $name"
    cap-grab "$@" 2>&1
    echo "GUEST END $name rc=$?"
}
run list --list /dev/video0
run default --frames 5 --reads 30 --timeout-ms 5000 /dev/video0
run yuyv640 --frames 8 --reads 30 --timeout-ms 5000 'v4l2:/dev/video0?format=yuyv&width=640&height=480&fps=30'
run yuyv1280 --frames 5 --reads 30 --timeout-ms 5000 'v4l2:/dev/video0?format=yuyv&width=1280&height=720&fps=10'
run yuyvhalf --frames 4 --reads 30 --timeout-ms 5000 'v4l2:/dev/video0?format=yuyv&width=1280&height=720&scale=2'
run yuyv320 --frames 8 --reads 30 --timeout-ms 5000 'v4l2:/dev/video0?format=yuyv&width=320&height=180&fps=60'
# The camera goes away mid-stream (driver unbound: ENODEV on the open fd, /dev/video0 gone) and
# comes back (bound again): kifucam must say so once, reopen with backoff, and go on.
echo "GUEST BEGIN unplug"
cap-grab --frames 100 --reads 4000 --timeout-ms 200 --reopen-ms 50 'v4l2:/dev/video0?width=320&height=180&fps=30' >/tmp/unplug.txt 2>&1 &
pid=$!
sleep 1
echo vivid.0 >/sys/bus/platform/drivers/vivid/unbind && echo "GUEST unbound"
sleep 1
echo vivid.0 >/sys/bus/platform/drivers/vivid/bind && echo "GUEST bound"
wait $pid
echo "GUEST unplug rc=$?"
cat /tmp/unplug.txt
echo "GUEST END unplug rc=0"
run mjpeg --frames 1 --reads 3 --timeout-ms 2000 'v4l2:/dev/video0?format=mjpeg'
run missing --frames 1 /dev/video9
run notcam --frames 1 /dev/null
echo "GUEST DONE"
poweroff -f
EOF
chmod +x "$ROOT/init"
(cd "$ROOT" && find . | cpio -o -H newc --quiet | gzip -1) >"$VM/initrd.gz"

# 3. Boot and collect the console.
LOG=$VM/console.log
echo "test-v4l2: booting under qemu (TCG), log in $LOG"
start=$(date +%s)
timeout "$TIMEOUT" qemu-system-x86_64 -machine pc -accel tcg -cpu max -smp 2 -m 768 \
    -nographic -no-reboot -monitor none -serial stdio \
    -kernel "$VMLINUZ" -initrd "$VM/initrd.gz" \
    -append "console=ttyS0 quiet loglevel=3 panic=-1 rdinit=/init" </dev/null >"$LOG" 2>&1 || true
echo "test-v4l2: guest ran $(( $(date +%s) - start )) s"
tr -d '\r' <"$LOG" >"$LOG.txt"
grep -q "GUEST DONE" "$LOG.txt" || { tail -n 30 "$LOG.txt" >&2; die "the guest did not finish (see $LOG)"; }

# 4. Checks.
pass=0
fail=0
section() { awk -v n="$1" '$0 ~ ("GUEST BEGIN " n "$") {on = 1; next} $1 == "GUEST" && $2 == "END" && $3 == n {on = 0} on' "$LOG.txt"; }
rc_of() { sed -n "s/^GUEST END $1 rc=\([0-9]*\)$/\1/p" "$LOG.txt"; }
check() { # name, condition text, result (0 = ok)
    if [ "$3" = 0 ]; then pass=$((pass + 1)); echo "ok   $1: $2"; else fail=$((fail + 1)); echo "FAIL $1: $2"; section "$1" | head -n 12 | sed 's/^/     | /'; fi
}
# frames: name, count wanted, WxH wanted
frames() {
    section "$1" | awk -v want="$2" -v size="$3" '
        /^frame / { n++; split($0, a, " "); for (i in a) { split(a[i], kv, "="); v[kv[1]] = kv[2] }
                    if (v["w"] "x" v["h"] != size) bad = bad " size " v["w"] "x" v["h"];
                    if (n > 1 && v["ts"] + 0 <= last) bad = bad " ts not increasing";
                    if (v["ts"] + 0 <= 0) bad = bad " no timestamp";
                    last = v["ts"] + 0 }
        END { if (n < want) bad = bad " only " n " frames"; if (bad != "") { print bad; exit 1 } }'
}
section list | grep -q "YUYV" && r=0 || r=1
check list "lists vivid with YUYV and its frame sizes" $r
section list | grep -q "1280x720:" && r=0 || r=1
check list "lists 1280x720 with its rates" $r
[ "$(rc_of default)" = 0 ] && frames default 5 "$(section default | sed -n 's/^open .* \([0-9]*x[0-9]*\) @.*/\1/p')" >/dev/null && r=0 || r=1
check default "5 frames at the driver's size, format chosen by kifucam" $r
for t in "yuyv640 8 640x480" "yuyv1280 5 1280x720" "yuyv320 8 320x180" "yuyvhalf 4 640x360"; do
    set -- $t
    [ "$(rc_of "$1")" = 0 ] && frames "$1" "$2" "$3" >/dev/null && r=0 || r=1
    check "$1" "$2 frames of $3 YUYV with increasing driver timestamps" $r
done
section yuyv320 | grep -q "@ 60.000 fps" && r=0 || r=1
check yuyv320 "60 fps asked at 320x180, set and read back" $r
section yuyv640 | grep -q "@ 25.000 fps" && r=0 || r=1
check yuyv640 "30 fps asked at 640x480, where vivid's webcam stops at 25: 25 read back" $r
section yuyv640 | awk '/^frame /{ for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] + 0 }
    if (n++ && (v["seq"] <= last || v["seq"] - last - 1 != v["dropped"])) bad = 1; last = v["seq"] }
    END { exit bad || n < 2 }' && r=0 || r=1
check yuyv640 "driver sequence numbers increase, gaps reported as dropped frames" $r
section unplug | grep -q "^GUEST bound" && section unplug | grep -q "^GUEST unplug rc=0" && r=0 || r=1
check unplug "cap-grab ran through an unbind and bind of the driver" $r
section unplug | grep -q "^nodev .*camera gone" && r=0 || r=1
check unplug "the loss was reported once as CAP_E_NODEV" $r
section unplug | awk '/^frame /{ for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] + 0 }
    if (v["flags"] % 4 >= 2 && v["blind"] >= 900000) ok = 1 }
    /^stats / { if ($0 ~ /reconnects=1 /) rec = 1; if ($0 ~ /delivered=100 /) all = 1 }
    END { exit !(ok && rec && all) }' && r=0 || r=1
check unplug "reopened: 100 frames in all, the first after it marked resumed, blind for >= 1 s" $r
section mjpeg | grep -q "no MJPEG format" && [ "$(rc_of mjpeg)" = 1 ] && r=0 || r=1
check mjpeg "asking vivid (no MJPEG) for MJPEG is one clear error" $r
section missing | grep -q "No such file or directory" && [ "$(rc_of missing)" = 1 ] && r=0 || r=1
check missing "a missing /dev/video9 is one clear error, exit 1" $r
section notcam | grep -q "not a V4L2 camera" && [ "$(rc_of notcam)" = 1 ] && r=0 || r=1
check notcam "/dev/null is not a camera, exit 1" $r
echo "test-v4l2: $pass passed, $fail failed"
[ "$fail" = 0 ]
