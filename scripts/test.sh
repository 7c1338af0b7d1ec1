#!/usr/bin/env bash
# Installs what is needed, builds, and runs the whole test suite (ctest; every SystemC test in
# its own process), then the install test (scripts/test_install.sh).  Exits non-zero if
# anything fails.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
build="${TRAINVP_BUILD_DIR:-build}"
jobs="$(nproc 2>/dev/null || echo 2)"
(cd "$build" && ctest -j "$jobs" --output-on-failure --timeout 600)
# The installed package: an out-of-tree IP plugin (examples/custom_ip) built against it and run.
bash scripts/test_install.sh
