#!/usr/bin/env bash
# trainvp report (issue 28): the demo run's and a NoC run's report.html are self-contained (no
# address to fetch: no http, no src=, no <link>), have their charts, and render in Debian's
# headless chromium with the page script run to its end and no script error on the console.
# Without chromium the browser half is skipped with exit 77 (scripts/setup.sh installs it).
# Usage: test_report.sh SOURCE_DIR TRAINVP_BIN [SCREENSHOT_DIR]
set -u
src=$1
bin=$2
shots=${3:-}
work=$(mktemp -d "${TMPDIR:-/tmp}/trainvp_report.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail=0
check() {  # check NAME CONFIG SVG_ID... : run with --report, check the page
    local name=$1 config=$2
    shift 2
    (cd "$src" && "$bin" run "$config" --quiet --report --out "$work/$name") > /dev/null || {
        echo "$name: the run failed"; fail=1; return; }
    local page="$work/$name/report.html"
    if grep -qiE 'https?://|src=|<link' "$page"; then
        echo "$name: report.html refers to something outside itself"; fail=1
    fi
    for id in "$@"; do
        grep -q "id=\"$id\"" "$page" || { echo "$name: no element $id"; fail=1; }
    done
    command -v chromium > /dev/null || return
    local dom="$work/$name.dom" log="$work/$name.log"
    timeout 120 chromium --headless --no-sandbox --disable-gpu --enable-logging=stderr --v=0 \
        --dump-dom "file://$page" > "$dom" 2> "$log"
    grep -q 'data-ready="yes"' "$dom" || { echo "$name: the page script did not run to its end"; fail=1; }
    if grep -E 'CONSOLE|Uncaught' "$log" | grep -qiE 'error|uncaught'; then
        echo "$name: script errors:"; grep -E 'CONSOLE|Uncaught' "$log"; fail=1
    fi
    for id in "$@"; do
        grep -q "<svg[^>]*id=\"$id\"\|<table[^>]*id=\"$id\"" "$dom" || {
            echo "$name: $id not in the rendered page"; fail=1; }
    done
    if [ -n "$shots" ]; then
        timeout 120 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars \
            --window-size=1200,1500 --screenshot="$shots/report_$name.png" "file://$page" \
            > /dev/null 2>&1
    fi
}
check demo configs/papers/inceptionn/inc_alexnet.yaml breakdown-bar gantt-chart heatmap-chart util-table stats-table
check noc configs/examples/noc_ring_allreduce.yaml gantt-chart util-table stats-table
command -v chromium > /dev/null || { echo "chromium not installed: the browser checks were skipped"; [ $fail -eq 0 ] && exit 77; }
exit $fail
