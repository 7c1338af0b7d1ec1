#!/usr/bin/env bash
# Configures and builds trainvp into build/ (or $TRAINVP_BUILD_DIR).  Extra arguments go to
# cmake's configure step, e.g. scripts/build.sh -DTRAINVP_SANITIZE=ON.
set -euo pipefail
cd "$(dirname "$0")/.."
build="${TRAINVP_BUILD_DIR:-build}"
jobs="$(nproc 2>/dev/null || echo 2)"
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
cmake --build "$build" -j "$jobs"
