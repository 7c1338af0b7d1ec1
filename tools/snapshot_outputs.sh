#!/bin/bash
# Runs a fixed set of example and paper configs and keeps each run's stats.json and
# timeline.json under DIR/<name>/, to compare a change's outputs with those before it:
#
#   tools/snapshot_outputs.sh /tmp/before            # on the old build
#   tools/snapshot_outputs.sh /tmp/after             # on the new build
#   tools/snapshot_outputs.sh --compare /tmp/before /tmp/after
#
# TRAINVP (default build/sc_main/trainvp) is the binary.  ~15 s on 2 cores.
set -u
cd "$(dirname "$0")/.."
if [ "${1:-}" = "--compare" ]; then
    [ $# -eq 3 ] || { echo "usage: $0 --compare DIR_A DIR_B" >&2; exit 2; }
    rc=0
    for d in "$2"/*/; do
        n=$(basename "$d")
        for f in stats.json timeline.json; do
            if ! cmp -s "$2/$n/$f" "$3/$n/$f"; then echo "differs: $n/$f"; rc=1; fi
        done
    done
    [ $rc -eq 0 ] && echo "all outputs identical"
    exit $rc
fi
[ $# -eq 1 ] || { echo "usage: $0 DIR | --compare DIR_A DIR_B" >&2; exit 2; }
B=${TRAINVP:-build/sc_main/trainvp}
OUT=$1
mkdir -p "$OUT"
run() {
    local name=$1
    shift
    "$B" run "$@" --quiet --out "$OUT/$name" --force > "$OUT/$name.log" 2>&1
    echo "$name: exit $?"
}
for c in host_gpu incast pcie_dma star5 training_ring training_ring_inceptionn \
    training_wa two_nodes traffic_to_memory noc_aries_bw_ring noc_aries_bypass collective_bench \
    noc_aries_tree_allreduce noc_chiplet_training noc_mesh_uniform noc_ring_allreduce; do
    run "ex_$c" "configs/examples/$c.yaml"
done
for c in inc_hdc inc_c_hdc wa_hdc wa_c_hdc inc_alexnet inc8_hdc wa8_hdc; do
    run "$c" "configs/papers/inceptionn/$c.yaml"
done
run inc_hdc_msg configs/papers/inceptionn/inc_hdc.yaml --set simulation.granularity=message
run wa_c_hdc_msg configs/papers/inceptionn/wa_c_hdc.yaml --set simulation.granularity=message
for c in baseline smartnic; do run "sn_$c" "configs/papers/smartnic/$c.yaml"; done
run paleo configs/papers/paleo/titanx_alexnet.yaml
