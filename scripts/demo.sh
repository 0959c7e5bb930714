#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# demo.sh - the README's main job: install what is missing, build, and replay the shipped
# default trace (traces/default.db: gcc compiling 19 of this project's files in a 256 MiB
# memory cgroup, recorded on a VM without a hardware PMU) through the classic LRU, MGLRU
# and the optimal bound at 16 MiB, then print the comparison.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh build
echo
echo "== memreplay info traces/default.db"
./build/memreplay info traces/default.db | sed -n '1,16p'
echo
echo "== memreplay replay traces/default.db --policy lru --policy mglru --policy opt --memory 16M"
echo "(recorded without a PMU: accesses are first-touch faults plus young-bit scans every second,"
echo " which the replay's 'trace too coarse' note points out; traces from PEBS/IBS hosts are finer)"
./build/memreplay replay traces/default.db --policy lru --policy mglru --policy opt \
	--memory 16M -q -o build/default-results.db
echo
echo "== memreplay compare build/default-results.db"
./build/memreplay compare build/default-results.db \
	--counters workingset_refault_file,workingset_refault_anon,pgmajfault,pswpin,pswpout,pgscan_file,pgscan_anon,pgsteal_file,pgsteal_anon,pgactivate,workingset_activate_file,workingset_restore_file,host_workingset_refault_file,host_refault_file
echo
echo "All counters: ./build/memreplay compare build/default-results.db"
echo "SQL:          ./build/memreplay query build/default-results.db 'SELECT * FROM counters LIMIT 10'"
