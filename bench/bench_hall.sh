#!/bin/sh
# bench_hall.sh BUILD BOARDS CLIENTS MINUTES [ROUNDS] - make bench-hall: a local mosquitto (loopback, a
# free port), `kifucam hall` on a free port, and BUILD/bench-hall: BOARDS simulated boards replaying 120
# moves each at game speed (a move every MINUTES*60/120 s per board) and CLIENTS server-sent-event
# page clients; ROUNDS (default 1) rounds one after another, MINUTES each, every board a new recording
# each round; prints the table(s) of bench_hall.c. The boards' folders go to /dev/shm when it is there
# (the recorders are other computers in a hall: their disks are not what is measured). Everything it
# starts is stopped at the end, by process id.
set -u
build=${1:-build}
boards=${2:-200}
clients=${3:-500}
minutes=${4:-5}
rounds=${5:-1}
if [ ! -x /usr/sbin/mosquitto ]; then
    echo "bench-hall: skipped: mosquitto not installed (make deps)"
    exit 0
fi
top=$(mktemp -d "$( [ -d /dev/shm ] && echo /dev/shm || echo /tmp)/kifucam-bench-hall-XXXXXX")
chmod 777 "$top"
ulimit -n 8192 2>/dev/null || ulimit -n 4096 2>/dev/null
bport=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
hport=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
printf 'listener %s 127.0.0.1\nallow_anonymous true\npersistence false\nmax_queued_messages 100000\n' \
    "$bport" >"$top/mosquitto.conf"
pids=""
cleanup() { for p in $pids; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; rm -rf "$top"; }
trap cleanup EXIT INT TERM
/usr/sbin/mosquitto -c "$top/mosquitto.conf" >"$top/mosquitto.log" 2>&1 &
pids="$pids $!"
sleep 0.5
url="mqtt://127.0.0.1:$bport/bench"
"$build/kifucam" hall --mqtt "$url" --port "$hport" >"$top/hall.log" 2>&1 &
hall=$!
pids="$pids $hall"
sleep 1
secs=$(awk "BEGIN{print $minutes*60}")
"$build/bench-hall" "$url" "$hport" "$hall" "$top/boards" "$boards" "$clients" "$secs" 120 "$rounds"
rc=$?
grep -c "message refused" "$top/hall.log" | sed 's/^/bench-hall: messages the hall refused: /'
exit $rc
