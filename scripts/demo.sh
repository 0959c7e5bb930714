#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# demo.sh - the README's main job: install what is missing, build, and run memreplay on
# the shipped default trace (traces/default.db).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh build
echo
echo "== memreplay info traces/default.db"
./build/memreplay info traces/default.db
