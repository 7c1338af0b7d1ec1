#!/usr/bin/env bash
# tools/chakra_writer.py reproduces the committed Chakra traces and op lists byte for byte
# (configs/examples/chakra/, configs/examples/chakra_*_ops.yaml and chakra_noc_*_ops.yaml,
# tests/configs/bad/chakra/).
# Exits 77 (skipped) without python3-protobuf or protoc.
set -euo pipefail
src="$(cd "$(dirname "$0")/../.." && pwd)"
/usr/bin/python3 -c "import google.protobuf" 2>/dev/null && command -v protoc >/dev/null || exit 77
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
w="/usr/bin/python3 $src/tools/chakra_writer.py"
cd "$src/configs/examples"
for x in dp tp pp moe; do
    $w $x "$tmp/$x" --yaml "$tmp/chakra_${x}_ops.yaml" --include chakra/cluster4.yaml \
        --description "The Chakra trace chakra/$x written as op lists (the same iteration time)"
    for r in 0 1 2 3; do cmp "$tmp/$x.$r.et" "chakra/$x.$r.et"; done
    cmp "$tmp/chakra_${x}_ops.yaml" "chakra_${x}_ops.yaml"
done
for x in dp tp pp moe; do
    $w $x "$tmp/noc_$x" --yaml "$tmp/chakra_noc_${x}_ops.yaml" --include chakra/noc4.yaml \
        --hosts "noc.chiplet[{}]" \
        --description "The Chakra trace chakra/$x written as op lists for a 2x2 chiplet package (the same iteration time)"
    cmp "$tmp/chakra_noc_${x}_ops.yaml" "chakra_noc_${x}_ops.yaml"
done
$w tp_dp "$tmp/tp_dp" --ranks 8 --yaml "$tmp/chakra_noc_tp_dp_ops.yaml" \
    --include chakra/noc16.yaml --hosts "noc.chiplet[{}]" \
    --description "The Chakra trace chakra/tp_dp written as op lists for 8 chiplets of a 4x4 package (the same iteration time)"
for r in 0 1 2 3 4 5 6 7; do cmp "$tmp/tp_dp.$r.et" "chakra/tp_dp.$r.et"; done
cmp "$tmp/chakra_noc_tp_dp_ops.yaml" "chakra_noc_tp_dp_ops.yaml"
bad="$src/tests/configs/bad/chakra"
for f in "$bad"/*.0.et; do
    n="$(basename "$f" .0.et)"
    if [ "$n" = three_ranks ]; then $w dp "$tmp/$n" --ranks 3; else $w "bad:$n" "$tmp/$n" --ranks 2; fi
    for g in "$bad/$n".*.et; do cmp "$tmp/$(basename "$g")" "$g"; done
done
echo "chakra_writer: all committed traces reproduced"
