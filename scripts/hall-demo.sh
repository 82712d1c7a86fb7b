#!/bin/sh
# hall-demo.sh BUILD - make hall-demo: a local mosquitto (loopback, a free port), `kifucam hall` on
# HALL_PORT (default 8090) and 8 recorders of the shipped clips publishing boards 1..8 with the names of
# contrib/pairings-example.csv. Prints the hall's URL, takes screenshots of the tournament page while
# the games are played and of board 1 at the end (BUILD/hall-demo/*.png, with chromium), and how many
# moves each board's retained state holds. HALL_DEMO_KEEP=1 keeps the broker and the hall serving
# until Ctrl-C. Everything it starts is stopped at the end, by process id.
set -u
build=${1:-build}
kc=$build/kifucam
dir=$build/hall-demo
port=${HALL_PORT:-8090}
rm -rf "$dir"
mkdir -p "$dir"
chmod 777 "$dir" # mosquitto started as root runs as its own user
bport=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
printf 'listener %s 127.0.0.1\nallow_anonymous true\npersistence false\n' "$bport" >"$dir/mosquitto.conf"
pids=""
cleanup() { for p in $pids; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; }
trap cleanup EXIT INT TERM
/usr/sbin/mosquitto -c "$dir/mosquitto.conf" >"$dir/mosquitto.log" 2>&1 &
pids="$pids $!"
sleep 0.5
url="mqtt://127.0.0.1:$bport/demo"
"$kc" hall --mqtt "$url" --port "$port" >"$dir/hall.log" 2>&1 &
hall=$!
pids="$pids $hall"
sleep 0.5
cat "$dir/hall.log"
clips="samples/sample-clip.mp4"
[ -f tests/data/record-clip.mp4 ] && clips="$clips tests/data/record-clip.mp4"
recs=""
t0=$(date +%s)
for b in 1 2 3 4 5 6 7 8; do
    set -- $clips
    n=$#
    i=$(( (b - 1) % n + 1 ))
    eval clip=\${$i}
    "$kc" record --source "$clip" --out "$dir/board$b" --pairings contrib/pairings-example.csv --board "$b" \
        --mqtt "$url" </dev/null >"$dir/record$b.log" 2>&1 &
    recs="$recs $!"
done
pids="$pids $recs"
shot() { # shot NAME URL
    command -v chromium >/dev/null 2>&1 || return 0
    timeout 90 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1200,1000 \
        --virtual-time-budget=5000 --screenshot="$dir/$1.png" "$2?once" >/dev/null 2>&1 &&
        echo "screenshot: $dir/$1.png"
}
sleep 12
shot tournament-mid "http://127.0.0.1:$port/"
for p in $recs; do wait "$p"; done
t1=$(date +%s)
echo "8 recorders ended after $((t1 - t0)) s on $(nproc) cores"
sleep 1
shot tournament "http://127.0.0.1:$port/"
shot board1 "http://127.0.0.1:$port/board/1"
curl -s "http://127.0.0.1:$port/boards.json" | python3 -c '
import json, sys
d = json.load(sys.stdin)
print("board  moves  status        sente / gote")
for s in d["boards"]:
    m = s["meta"]
    print("%-6s %5d  %-12s  %s / %s" % (s["board"], s["ply"], s["status"], m["sente"], m["gote"]))'
for b in 1 2 3 4 5 6 7 8; do tail -1 "$dir/record$b.log" | cut -c1-110; done
if [ "${HALL_DEMO_KEEP:-0}" = 1 ]; then
    echo "serving http://127.0.0.1:$port/ until Ctrl-C"
    wait "$hall"
fi
