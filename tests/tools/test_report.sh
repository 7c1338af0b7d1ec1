#!/usr/bin/env bash
# trainvp report (issue 28): the demo run's, two NoC runs' (a mesh, and an ARIES interposer
# with bypass links) and a sweep's report.html are self-contained (no address to fetch: no
# http, no src=, no <link>), have their charts, and render in Debian's headless chromium with
# the page script run to its end and no script error on the console.
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
    check_page "$name" "$@"
}
check_sweep() {  # check_sweep NAME SWEEP SVG_ID... : sweep, trainvp report, check the page
    local name=$1 sweep=$2
    shift 2
    (cd "$src" && "$bin" sweep "$sweep" --jobs 1 --out "$work/$name" &&
        "$bin" report "$work/$name") > /dev/null || {
        echo "$name: the sweep or its report failed"; fail=1; return; }
    check_page "$name" "$@"
}
check_page() {  # check_page NAME SVG_ID...
    local name=$1
    shift
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
check demo configs/papers/inceptionn/inc_alexnet.yaml breakdown-bar gantt-chart \
    link-heatmap-chart heatmap-chart util-table stats-table
check noc configs/examples/noc_ring_allreduce.yaml gantt-chart noc-heatmap util-table stats-table
check noc_aries configs/examples/noc_aries_bypass.yaml noc-heatmap util-table stats-table
# The bypass segments are drawn (8 rows, both directions: 16 dashed arcs).
if [ -f "$work/noc_aries/report.html" ]; then
    arcs=$(grep -o 'class="link bypass"' "$work/noc_aries/report.html" | wc -l)
    [ "$arcs" -eq 16 ] || { echo "noc_aries: $arcs bypass arcs, expected 16"; fail=1; }
fi
cat > "$work/sweep.yaml" << EOF
description: ring all-reduce iteration vs node count (report test)
base: $src/configs/examples/training_ring.yaml
set:
  workload.training.model: hdc
grid:
  - zip:
      components.node.count: [2, 4]
      switch.ports: [2, 4]
EOF
check_sweep sweep "$work/sweep.yaml" sweep-plot sweep-table
# The plot has its line and points once the script ran (in the rendered page): one line, as
# switch.ports moves with the node count (zipped), and the y axis in readable units.
if [ -f "$work/sweep.dom" ]; then
    [ "$(grep -o '<polyline[^>]*class="series"' "$work/sweep.dom" | wc -l)" -eq 1 ] ||
        { echo "sweep: not one line in the rendered plot"; fail=1; }
    grep -q 'id="sweep-ylabel">iteration.time \[ms\]<' "$work/sweep.dom" ||
        { echo "sweep: the y axis is not iteration.time [ms]"; fail=1; }
    [ "$(grep -o '<circle' "$work/sweep.dom" | wc -l)" -eq 2 ] ||
        { echo "sweep: not 2 points in the rendered plot"; fail=1; }
fi
command -v chromium > /dev/null || { echo "chromium not installed: the browser checks were skipped"; [ $fail -eq 0 ] && exit 77; }
exit $fail
