#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# build.sh [DIR [CMAKE ARGS...]] - configure and build into DIR (default: build).
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build}
shift || true
cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
cmake --build "$dir" -j"$(nproc)"
