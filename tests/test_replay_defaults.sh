#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# test_replay_defaults.sh MEMREPLAY - replay defaults from the recorded host: --swap 0,
# and the swap, writeback and memory size a trace's meta rows give (recorder/meta.c
# writes swap.total_bytes, swap.kind and, with --cgroup, cgroup.memory.max).
set -u
MR=$1
T=$(mktemp -d)
export MEMREPLAY_CACHE="$T/cache"
trap 'rm -rf "$T"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
q() { "$MR" query "$1" "$2" | tail -n +2; }
# counters of every run, machine-wide, for comparing two results files
counters() { q "$1" "SELECT run, name, value FROM vmstat ORDER BY run, name"; }

"$MR" gen loop -o "$T/a.db" --size 2M --passes 3 --seed 5 >/dev/null 2>"$T/err" || { echo "FAIL: gen: $(cat "$T/err")"; exit 1; }

# --- --swap 0: no swap; anon pages cannot be reclaimed, the run ends and says why
"$MR" replay "$T/a.db" --policy lru --policy mglru --memory 1M --swap 0 --no-timing -o "$T/s0.db" >"$T/out" 2>"$T/err"
rc=$?
[ $rc = 0 ] && ok || bad "--swap 0 exited $rc: $(cat "$T/err")"
grep -q "assumed: no swap: anonymous pages cannot be reclaimed (--swap)" "$T/err" && ok || bad "--swap 0: not said: $(cat "$T/err")"
grep -q "warning: no swap: reclaim could not free enough in 2 of 2 runs" "$T/err" && ok || bad "--swap 0: no outcome warning"
[ "$(q "$T/s0.db" "SELECT group_concat(swap_pages) FROM runs")" = "0,0" ] && ok || bad "runs.swap_pages is not 0"
[ "$(q "$T/s0.db" "SELECT sum(value) FROM vmstat WHERE name IN ('pswpout', 'pswpin', 'mr_evict_anon')")" = 0 ] && ok || bad "pages went to swap without swap"
[ "$(q "$T/s0.db" "SELECT min(value) FROM vmstat WHERE name = 'mr_oom'")" -gt 0 ] && ok || bad "no mr_oom without swap"
# -q keeps the warning (the counters are not a fit), drops the assumptions
"$MR" replay "$T/a.db" --policy lru --memory 1M --swap 0 -q --no-timing >/dev/null 2>"$T/err"
grep -q "warning: no swap" "$T/err" && ! grep -q "assumed:" "$T/err" && ok || bad "-q: $(cat "$T/err")"
# with room for every page, no swap changes nothing and warns of nothing
"$MR" replay "$T/a.db" --policy lru --memory 4M --swap 0 --no-timing >/dev/null 2>"$T/err"
! grep -q "warning: no swap" "$T/err" && ok || bad "no-swap warning where nothing had to go"

# --- a trace without host rows: unlimited swap, said; no --memory is an error naming the fix
"$MR" replay "$T/a.db" --policy lru --memory 1M --no-timing -o "$T/u.db" >/dev/null 2>"$T/err"
grep -q "assumed: unlimited swap: the trace does not record the host's (--swap sets it)" "$T/err" && ok || bad "unlimited swap not said"
[ "$(q "$T/u.db" "SELECT swap_pages IS NULL FROM runs")" = 1 ] && ok || bad "unlimited swap: runs.swap_pages not NULL"
"$MR" replay "$T/a.db" --policy lru --no-timing >/dev/null 2>"$T/err"
rc=$?
[ $rc = 1 ] && grep -q "no memory size given, and .*a.db records no cgroup memory.max to default to (recorded without --cgroup, or before memreplay kept it): give --memory SIZE" "$T/err" &&
	ok || bad "no --memory on a trace without memory.max: exit $rc, $(cat "$T/err")"

# --- a recorded host with 1M of zram swap, the command in a cgroup with memory.max 1M
cp "$T/a.db" "$T/h.db"
sqlite3 "$T/h.db" "INSERT OR REPLACE INTO meta VALUES('swap.total_bytes', '1048576'), ('swap.kind', 'zram'),
	('swap.devices', '1'), ('cgroup.memory.max', '1048576')" || bad sqlite3
"$MR" replay "$T/h.db" --policy lru --policy mglru --no-timing -o "$T/h1.db" >/dev/null 2>"$T/err" || bad "replay with host defaults: $(cat "$T/err")"
for s in "assumed: swap of 1M, zram, as the recorded host had (--swap sets it)" \
	 "assumed: swap writeback ends inside pageout, as on the recorded host's zram (--writeback-delay sets it)" \
	 "assumed: memory 1M, the recorded cgroup's memory.max (--memory sets it)"; do
	grep -qF "$s" "$T/err" && ok || bad "not said: $s"
done
[ "$(q "$T/h1.db" "SELECT DISTINCT memory_pages || ',' || swap_pages || ',' || writeback_delay_ns FROM runs")" = "256,256,-1" ] &&
	ok || bad "host defaults not in runs: $(q "$T/h1.db" "SELECT memory_pages, swap_pages, writeback_delay_ns FROM runs")"
# the same as saying it
"$MR" replay "$T/h.db" --policy lru --policy mglru --memory 1M --swap 1M --writeback-delay sync -q --no-timing -o "$T/h2.db" >/dev/null 2>&1
[ -n "$(counters "$T/h1.db")" ] && [ "$(counters "$T/h1.db")" = "$(counters "$T/h2.db")" ] && ok || bad "host defaults differ from the same options given"
# options win: --swap, --writeback-delay, --memory
"$MR" replay "$T/h.db" --policy lru --memory 2M --swap 512K --writeback-delay 1ms --no-timing -o "$T/h3.db" >/dev/null 2>"$T/err"
[ "$(q "$T/h3.db" "SELECT memory_pages || ',' || swap_pages || ',' || writeback_delay_ns FROM runs")" = "512,128,1000000" ] &&
	! grep -q "recorded host" "$T/err" && ok || bad "options do not override the host's: $(cat "$T/err")"
# --swap 0 on a host that had swap
"$MR" replay "$T/h.db" --policy lru --swap 0 -q --no-timing -o "$T/h4.db" >/dev/null 2>&1
[ "$(q "$T/h4.db" "SELECT memory_pages || ',' || swap_pages || ',' || writeback_delay_ns FROM runs")" = "256,0,0" ] && ok || bad "--swap 0 over the host's swap"

# --- a host without swap: none by default; a cgroup with memory.max = max: no default size
sqlite3 "$T/h.db" "UPDATE meta SET value = '0' WHERE key = 'swap.total_bytes'; UPDATE meta SET value = 'none' WHERE key = 'swap.kind'"
"$MR" replay "$T/h.db" --policy lru --no-timing -o "$T/h5.db" >/dev/null 2>"$T/err"
grep -q "assumed: no swap, as the recorded host had none" "$T/err" && [ "$(q "$T/h5.db" "SELECT swap_pages FROM runs")" = 0 ] &&
	ok || bad "a host without swap: $(cat "$T/err")"
sqlite3 "$T/h.db" "UPDATE meta SET value = 'max' WHERE key = 'cgroup.memory.max'"
"$MR" replay "$T/h.db" --policy lru --no-timing >/dev/null 2>"$T/err"
[ $? = 1 ] && grep -q "its cgroup had memory.max = max" "$T/err" && ok || bad "memory.max = max: $(cat "$T/err")"

# --- no cgroup.memory.max row, but the pages charged to a cgroup whose cgroups row has a
# memory.max (a command that moved itself into a limited cgroup, a whole-host recording):
# that cgroup keeps its limit, the rest is unlimited; the same as --memory /wl=1M
cp "$T/a.db" "$T/c.db"
sqlite3 "$T/c.db" "UPDATE cgroups SET path = '/wl', memory_max = 1048576 WHERE id = 1" || bad sqlite3
"$MR" replay "$T/c.db" --policy lru --policy mglru --swap 4M --no-timing -o "$T/c1.db" >/dev/null 2>"$T/err" ||
	bad "replay with the cgroups row's limit: $(cat "$T/err")"
grep -qF "assumed: memory.max as recorded for /wl 1M; the rest unlimited (--memory SIZE or CGROUP=SIZE sets it)" "$T/err" &&
	ok || bad "cgroups row limit not said: $(cat "$T/err")"
"$MR" replay "$T/c.db" --policy lru --policy mglru --swap 4M --memory /wl=1M -q --no-timing -o "$T/c2.db" >/dev/null 2>&1
[ -n "$(counters "$T/c1.db")" ] && [ "$(counters "$T/c1.db")" = "$(counters "$T/c2.db")" ] &&
	[ "$(q "$T/c1.db" "SELECT min(value) FROM vmstat WHERE name = 'pswpout'")" -gt 0 ] &&
	ok || bad "the cgroups row's limit is not --memory /wl=1M"
# the charge is the cgroup's: --memory ID=SIZE names it
"$MR" replay "$T/c.db" --policy lru --swap 4M --memory 1=1M -q --no-timing -o "$T/c3.db" >/dev/null 2>"$T/err" &&
	ok || bad "--memory 1=1M on pages charged to cgroup 1: $(cat "$T/err")"

echo "test_replay_defaults: $pass passed, $fail failed"
[ "$fail" = 0 ]
