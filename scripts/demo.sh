#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# demo.sh - the README's main job: install what is missing, build, and replay the shipped
# default trace (traces/default.db: a kernel-build-like workload) through the classic LRU,
# MGLRU and the optimal bound at 32 MiB, then print the comparison.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh build
echo
echo "== memreplay info traces/default.db"
./build/memreplay info traces/default.db | sed -n '1,16p'
echo
echo "== memreplay replay traces/default.db --policy lru --policy mglru --policy opt --memory 16M"
./build/memreplay replay traces/default.db --policy lru --policy mglru --policy opt \
	--memory 16M -q -o build/default-results.db
echo
echo "== memreplay compare build/default-results.db"
./build/memreplay compare build/default-results.db \
	--counters workingset_refault_file,workingset_refault_anon,pgmajfault,pswpin,pswpout,pgscan_file,pgscan_anon,pgsteal_file,pgsteal_anon,pgactivate,workingset_activate_file,workingset_restore_file
echo
echo "All counters: ./build/memreplay compare build/default-results.db"
echo "SQL:          ./build/memreplay query build/default-results.db 'SELECT * FROM counters LIMIT 10'"
