#!/usr/bin/env bash
# Regenerates the documents that come from code: docs/ip-reference.md from the IP blocks' and
# the workload sections' declarations.  Usage: tools/gen_docs.sh [BUILD_DIR]   (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
"$build/sc_main/trainvp" describe --markdown > docs/ip-reference.md.tmp
mv docs/ip-reference.md.tmp docs/ip-reference.md
echo "wrote docs/ip-reference.md"
