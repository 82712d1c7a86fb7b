#!/bin/sh
# deps-graph.sh BUILD - prints the module dependency graph read from the static libraries' symbols
# (an arrow A -> B: a symbol A uses is defined in B) and fails on an arrow that runs back up the data
# flow. The layers, lowest first; an arrow may only point to a lower layer:
#   rules  capture  vision  rec_kifu  rec_tracker  rec_output  rec_hall  rec_record  cli
# (rules depend on nothing; vision never on the recorder; the tracker never on its outputs.)
set -eu
build=${1:-build}
layers="rules capture vision rec_kifu rec_tracker rec_output rec_hall rec_record"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rank() { i=0; for l in $layers cli; do [ "$l" = "$1" ] && { echo $i; return; }; i=$((i + 1)); done; echo 99; }
for l in $layers; do
    a="$build/lib$l.a"
    [ -f "$a" ] || { echo "deps-graph: $a not built (run make first)" >&2; exit 2; }
    nm -g --defined-only "$a" 2>/dev/null | awk 'NF >= 3 {print $3}' | sort -u >"$tmp/$l.def"
    nm -g --undefined-only "$a" 2>/dev/null | awk '{print $NF}' | sort -u >"$tmp/$l.und"
done
[ -f "$build/libcli.a" ] || { echo "deps-graph: $build/libcli.a not built (run make first)" >&2; exit 2; }
nm -g --undefined-only "$build/libcli.a" 2>/dev/null | awk '{print $NF}' | sort -u >"$tmp/cli.und"
bad=0
for from in $layers cli; do
    for to in $layers; do
        [ "$from" = "$to" ] && continue
        n=$(comm -12 "$tmp/$from.und" "$tmp/$to.def" | wc -l)
        [ "$n" -eq 0 ] && continue
        if [ "$(rank "$to")" -gt "$(rank "$from")" ]; then
            echo "$from -> $to ($n symbols) BACKWARDS: $(comm -12 "$tmp/$from.und" "$tmp/$to.def" | head -5 | tr '\n' ' ')"
            bad=1
        else
            echo "$from -> $to ($n symbols)"
        fi
    done
done
if [ "$bad" -ne 0 ]; then
    echo "deps-graph: an arrow runs back up the data flow" >&2
    exit 1
fi
echo "deps-graph: every arrow points down ($layers <- cli)"
