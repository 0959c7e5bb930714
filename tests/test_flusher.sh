#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# test_flusher.sh MEMREPLAY - the flusher reclaim wakes (docs/replay.md, "Dirty file
# folios"): dirty file folios that reclaim leaves to the flushers are written back and
# then freed, so a policy that puts them back into the oldest generation (seed 003's
# ra_placement=B) does not spin in reclaim and fits its limit; kernel=6.12.95, whose
# evict_folios() woke no flushers, has only the background and periodic writeback.
set -u
MR=$1
T=$(mktemp -d)
export MEMREPLAY_CACHE="$T/cache"
trap 'rm -rf "$T"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
v() { "$MR" query "$1" --format csv "SELECT value FROM vmstat WHERE run = $2 AND name = '$3'" | tail -1; }

"$MR" gen kbuild -o "$T/kb.db" --tasks 20 >/dev/null 2>"$T/err" || { echo "FAIL: gen: $(cat "$T/err")"; exit 1; }
# a bound, not a timing: without the flusher this replay took 20 s (370 M file scans)
timeout 60 "$MR" replay "$T/kb.db" --policy mglru:ra_placement=B --policy lru --policy opt \
	--policy mglru:kernel=6.12.95 --memory 8M -q --no-timing -o "$T/r.db" >/dev/null 2>"$T/err"
rc=$?
[ $rc = 0 ] && ok || bad "replay exited $rc: $(cat "$T/err")"
for run in 1 2 3; do
	w=$(v "$T/r.db" $run mr_flusher_wakeups)
	[ "${w:-0}" -gt 0 ] && ok || bad "run $run: reclaim never woke the flusher ($w)"
	[ "$(v "$T/r.db" $run mr_oom)" = 0 ] && ok || bad "run $run: charged past the limit ($(v "$T/r.db" $run mr_oom))"
	s=$(v "$T/r.db" $run pgscan_file)
	[ "${s:-0}" -lt 200000 ] && ok || bad "run $run: $s file folios scanned for 106 k events"
done
[ "$(v "$T/r.db" 4 mr_flusher_wakeups)" = 0 ] && ok || bad "kernel=6.12.95's reclaim woke the flusher"
[ "$(v "$T/r.db" 4 mr_flusher_background)" -gt 0 ] && ok || bad "kernel=6.12.95: no background writeback"
# deterministic, and the flusher's writebacks are among all writebacks
"$MR" replay "$T/kb.db" --policy mglru:ra_placement=B --policy lru --policy opt \
	--policy mglru:kernel=6.12.95 --memory 8M -q --no-timing -o "$T/r2.db" >/dev/null 2>&1
a=$("$MR" query "$T/r.db" --format csv "SELECT run, name, value FROM vmstat ORDER BY 1, 2")
b=$("$MR" query "$T/r2.db" --format csv "SELECT run, name, value FROM vmstat ORDER BY 1, 2")
[ -n "$a" ] && [ "$a" = "$b" ] && ok || bad "two replays differ"
[ "$(v "$T/r.db" 2 mr_flusher_writebacks)" -le "$(v "$T/r.db" 2 mr_writebacks)" ] && ok || bad "more flusher writebacks than writebacks"
echo "test_flusher: $pass passed, $fail failed"
[ "$fail" = 0 ]
