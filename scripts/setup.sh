#!/usr/bin/env bash
# Installs trainvp's build and test dependencies from Debian's archive (idempotent).
# Only packages that are missing are installed; nothing is fetched from anywhere else.
set -euo pipefail

packages=(
    build-essential cmake pkg-config ninja-build
    libsystemc-dev libyaml-cpp-dev libboost-dev nlohmann-json3-dev
    libgtest-dev libgmock-dev libbenchmark-dev
    clang libclang-rt-14-dev clang-format python3 python3-matplotlib python3-yaml
    parallel
    libprotobuf-dev protobuf-compiler python3-protobuf  # Chakra traces (workloads/chakra)
    python3-torch python3-torchvision  # tools/import_torch_model.py (CPU; no weights fetched)
    chromium    # tools.report renders report.html headless (trainvp report)
)

missing=()
for p in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$p")
    fi
done

if [ ${#missing[@]} -eq 0 ]; then
    echo "setup: all ${#packages[@]} packages present"
    exit 0
fi

echo "setup: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
