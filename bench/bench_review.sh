#!/bin/sh
# bench_review.sh BUILD - times a 300-move review.html in headless Chromium: a recording of the sample
# clip lends its frames (bench-review links them to every move), and a wrapper page times the load of
# review.html#m150 (iframe onload: the page, its script and the two frames shown) against an empty page.
set -e
B=${1:-build}
W=$(mktemp -d /tmp/kifucam-bench-review-XXXXXX)
trap 'rm -rf "$W"' EXIT
"$B/kifucam" record --source samples/sample-clip.mp4 --out "$W/clip" >/dev/null 2>&1
"$B/bench-review" "$W/page" 300 "$W/clip"
for target in review.html#m150 empty.html; do
  : > "$W/page/empty.html"
  cat > "$W/page/time.html" <<HTML
<!DOCTYPE html><html><body><script>var t0=performance.now();</script>
<iframe id="f" style="width:1280px;height:800px" src="$target" onload="document.title='LOADED '+(performance.now()-t0).toFixed(0)+' ms'"></iframe>
</body></html>
HTML
  ms=$(chromium --headless --no-sandbox --disable-gpu --dump-dom \
       "file://$W/page/time.html" 2>/dev/null | sed -n 's/.*<title>LOADED \([0-9]*\) ms.*/\1/p')
  echo "chromium: $target loaded in ${ms:-?} ms"
done
