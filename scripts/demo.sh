#!/usr/bin/env bash
# Installs what is needed, builds, and runs the default demo platform: INCEPTIONN's 4-node
# cluster training AlexNet with the ring all-reduce of inceptionn.md Alg. 1.
#   scripts/demo.sh [CONFIG.yaml] [trainvp run options...]   (e.g. --vcd for waves.vcd)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
config="${1:-configs/papers/inceptionn/inc_alexnet.yaml}"
shift || true
build="${TRAINVP_BUILD_DIR:-build}"
"$build/sc_main/trainvp" run "$config" --force "$@"
