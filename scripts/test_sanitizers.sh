#!/usr/bin/env bash
# Builds trainvp with AddressSanitizer + UndefinedBehaviorSanitizer into build-asan/ and runs
# the unit, integration and validation tests under them (leak checking on).  Called by .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs="$(nproc 2>/dev/null || echo 2)"
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTRAINVP_SANITIZE=ON \
    -DTRAINVP_BUILD_BENCH=OFF >/dev/null
cmake --build build-asan -j "$jobs"
cd build-asan
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    ctest -j "$jobs" --output-on-failure --timeout 900 -L "unit|integration|validation"
