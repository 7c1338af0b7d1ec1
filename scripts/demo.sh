#!/usr/bin/env bash
# Installs what is needed, builds, and runs the default demo platform.
#   scripts/demo.sh [CONFIG.yaml] [trainvp run options...]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
config="${1:-configs/examples/two_nodes.yaml}"
shift || true
build="${TRAINVP_BUILD_DIR:-build}"
"$build/sc_main/trainvp" run "$config" --vcd --force "$@"
