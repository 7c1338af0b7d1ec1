#!/usr/bin/env bash
# The installed package, as an outside project uses it: installs trainvp from the build folder
# into a temporary prefix, copies examples/custom_ip/ out of the tree, builds its plugin against
# the installed package (find_package(trainvp)), runs the example's tests and its 4-node
# training ring config with the installed command, and checks the plugin's statistics in
# stats.json.  Called by scripts/test.sh after ctest; needs a built build/ (or
# $TRAINVP_BUILD_DIR).  No network.
set -euo pipefail
cd "$(dirname "$0")/.."
build="${TRAINVP_BUILD_DIR:-build}"
jobs="$(nproc 2>/dev/null || echo 2)"
work="$(mktemp -d "${TMPDIR:-/tmp}/trainvp_install.XXXXXX")"
trap 'rm -rf "$work"' EXIT

prefix="$work/prefix"
cmake --install "$build" --prefix "$prefix" >/dev/null
echo "test_install: installed into $prefix"

cp -r examples/custom_ip "$work/custom_ip"
cd "$work/custom_ip"
rm -rf build
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_PREFIX_PATH="$prefix" \
    >/dev/null
cmake --build build -j "$jobs"
SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1 ctest --test-dir build --output-on-failure

# The config's `plugins:` list loads build/sparse_nic.so (relative to the config).
"$prefix/bin/trainvp" run sparse_ring.yaml --out out --force --quiet
/usr/bin/env python3 - out/stats.json <<'PY'
import json, sys
stats = json.load(open(sys.argv[1]))
assert stats["run"]["status"] == "finished", stats["run"]
for n in range(4):
    s = stats["blocks"][f"node[{n}].nic"]["stats"]
    assert s["frames_sparsified"]["value"] > 0, (n, s)
    assert s["sparse_bytes"]["value"] * 10 < s["dense_bytes"]["value"], (n, s)
    assert s["frames_densified"]["value"] > 0, (n, s)
s = stats["blocks"]["node[0].nic"]["stats"]
print("test_install: nic.sparse plugin ran: iteration %.1f ms, %d frames sparsified, "
      "%d B dense -> %d B sparse (ratio %.2f)" % (
          stats["run"]["sim_time_ps"] / 1e9, s["frames_sparsified"]["value"],
          s["dense_bytes"]["value"], s["sparse_bytes"]["value"], s["sparsity_ratio"]["value"]))
PY
"$prefix/bin/trainvp" describe nic.sparse --plugin build/sparse_nic.so >/dev/null
# The bash completion is installed where bash-completion looks for it, and completes from the
# installed command.
completion="$prefix/share/bash-completion/completions/trainvp"
test -f "$completion"
bash -c 'source "$1"; COMP_WORDS=("$2" describe nic.inc); COMP_CWORD=2; _trainvp;
         [ "${COMPREPLY[*]}" = nic.inceptionn ]' _ "$completion" "$prefix/bin/trainvp"
echo "test_install: ok"
