#!/bin/sh
# deps-graph-selftest.sh - proves that scripts/deps-graph.sh fails on an arrow that runs back: it builds
# tiny static libraries in a temporary folder, one per layer, where rules calls into the tracker, and
# expects deps-graph.sh to exit 1 naming that arrow; then the same libraries with the call turned round
# (the tracker calling rules), which must pass.
set -eu
cc=${CC:-cc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/recorder/cli"
lib() { # lib NAME 'C source'
    printf '%s\n' "$2" >"$tmp/$1.c"
    $cc -c -o "$tmp/$1.o" "$tmp/$1.c"
    ar rcs "$tmp/lib$1.a" "$tmp/$1.o"
}
make_layers() { # make_layers 'rules source' 'tracker source'
    lib rules "$1"
    lib rec_tracker "$2"
    for l in capture vision rec_kifu rec_output rec_hall rec_record cli; do lib "$l" "int ${l}_fn(void) { return 0; }"; done
}
make_layers 'int rec_trk_fn(void); int rul_fn(void) { return rec_trk_fn(); }' 'int rec_trk_fn(void) { return 1; }'
if out=$(sh "$(dirname "$0")/deps-graph.sh" "$tmp" 2>&1); then
    echo "deps-graph-selftest: FAILED: rules -> rec_tracker was not refused"
    exit 1
fi
echo "$out" | grep -q 'rules -> rec_tracker.*BACKWARDS' || { echo "deps-graph-selftest: FAILED: $out"; exit 1; }
make_layers 'int rul_fn(void) { return 1; }' 'int rul_fn(void); int rec_trk_fn(void) { return rul_fn(); }'
sh "$(dirname "$0")/deps-graph.sh" "$tmp" >/dev/null || { echo "deps-graph-selftest: FAILED: a forward arrow refused"; exit 1; }
echo "deps-graph-selftest: a back arrow (rules -> rec_tracker) fails, a forward one passes"
