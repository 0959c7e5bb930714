#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# demo.sh - the README's main job: install what is missing, build, and replay the shipped
# default trace (traces/default.db: gcc compiling 19 of this project's files in a 256 MiB
# memory cgroup, recorded on a VM without a hardware PMU) through the classic LRU, the
# optimal bound, MGLRU and MGLRU with each seed patch as a toggle at 16 MiB, then print the
# comparison.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh build
echo
echo "== memreplay info traces/default.db"
./build/memreplay info traces/default.db | sed -n '1,16p'
echo
echo "== memreplay replay traces/default.db --policy lru --policy opt --variants seeds --memory 16M"
echo "(the classic LRU, the optimal bound, MGLRU and MGLRU with each seed patch as a toggle:"
echo " inc_min_seq=v3 (seed 000), pud_filter=1 (001), ra_placement=B and C (003: the fix and the"
echo " revert), exec_promote=1 (004); all eight in one pass over one decode of the trace."
echo " Recorded without a PMU: accesses are first-touch faults plus young-bit scans every second,"
echo " which the replay's 'trace too coarse' note points out; traces from PEBS/IBS hosts are finer)"
./build/memreplay replay traces/default.db --policy lru --policy opt --variants seeds \
	--memory 16M -q -o build/default-results.db
echo
echo "== memreplay compare build/default-results.db --baseline 3   (deltas against mglru)"
./build/memreplay compare build/default-results.db --baseline 3 \
	--counters workingset_refault_file,workingset_refault_anon,pgmajfault,pswpin,pswpout,pgscan_file,pgscan_anon,pgsteal_file,pgsteal_anon,pgactivate,nr_vmscan_immediate_reclaim,mr_oom,host_workingset_refault_file,host_refault_file
echo
echo "ra_placement=B puts a folio that reclaim rejected back into the oldest generation (R1/R2"
echo "in its review). Here the rejected folios are the build's dirty files waiting for the"
echo "flusher, so reclaim finds them again at once: 190 million rescans, and charges fail"
echo "(mr_oom: each failed charge is let through over the limit, which is why its refault"
echo "and swap-in counts look low). ra_placement=C, the revert, activates far fewer folios"
echo "than mglru; seeds 000 and 001 change how aging does its work, not what it decides, so"
echo "their counters are mglru's; exec_promote=1 finds few executable file pages to promote"
echo "in this trace (docs/seeds.md has a workload for each seed)."
echo
./build/memreplay report build/default-results.db --baseline 3 -o build/default-report.html --force
echo "Report:       build/default-report.html (one self-contained page: open it in a browser; docs/report.md)"
echo "All counters: ./build/memreplay compare build/default-results.db"
echo "SQL:          ./build/memreplay query build/default-results.db 'SELECT * FROM counters LIMIT 10'"
