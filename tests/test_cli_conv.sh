#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# test_cli_conv.sh MEMREPLAY [CASE...] - one syntax per kind of value and one meaning per
# short option across subcommands (issue 16, item 5):
#   memory_path  --memory CGROUP=SIZE takes the cgroup's path as well as its id (as the
#                trace's cgroups table has it, or under /sys/fs/cgroup), with the same
#                results; a path no cgroup has is named with the ones there are
#   durations    generator times take the duration syntax (gen agetest --idle 50ms is
#                --idle 50000000, a bare number being ns); the old *_ms names are gone
#   counts       --hw-period takes a count like every count option (10K)
#   shorts       -q for record as for replay, -P/-f for replay as for bench/compare,
#                -h everywhere; bench's --pages has no -p (record's --pid)
set -u
MR=$1
shift
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export MEMREPLAY_CACHE="$T/cache"
fails=0
fail() { echo "FAIL [$case]: $*"; fails=$((fails + 1)); }
run() { out=$("$MR" "$@" 2>"$T/err"); rc=$?; err=$(cat "$T/err"); }
counters() { "$MR" query "$1" "SELECT run, memcg, name, value FROM counters ORDER BY 1, 2, 3"; }

case_memory_path() {
	"$MR" gen memwalk -o "$T/m.db" --seed 3 >/dev/null 2>&1 || { fail "gen memwalk"; return; }
	[ "$("$MR" query "$T/m.db" "SELECT id || ' ' || path FROM cgroups" | tail -1)" = "1 /memwalk" ] ||
		{ fail "memwalk's cgroup is not 1 /memwalk"; return; }
	run replay "$T/m.db" --policy lru --memory 1=1M -q --no-timing -o "$T/id.db"
	[ $rc = 0 ] || { fail "--memory 1=1M: $err"; return; }
	for p in /memwalk /memwalk/ /sys/fs/cgroup/memwalk /sys/fs/cgroup/memory/memwalk; do
		run replay "$T/m.db" --policy lru --memory "$p=1M" -q --no-timing -o "$T/p.db"
		[ $rc = 0 ] || { fail "--memory $p=1M exited $rc: $err"; continue; }
		[ "$(counters "$T/p.db")" = "$(counters "$T/id.db")" ] ||
			fail "--memory $p=1M does not give the results of --memory 1=1M"
	done
	run replay "$T/m.db" --policy lru --memory /nope=1M -q
	[ $rc = 1 ] && grep -qF "no cgroup of $T/m.db with pages charged to it has the path /nope (cgroups with pages: /memwalk (1))" <<<"$err" ||
		fail "--memory /nope=1M: exit $rc, $err"
	# a cgroup with a memory.max that no page is charged to (a trace recorded before
	# pages were charged to their cgroups): named, not "no cgroup has the path"
	cp "$T/m.db" "$T/u.db" &&
		sqlite3 "$T/u.db" "INSERT INTO cgroups(id, path, memory_max) VALUES (7, '/idle', 67108864)" 2>"$T/err" ||
		{ fail "adding a cgroups row: $(cat "$T/err")"; return; }
	run replay "$T/u.db" --policy lru --memory /idle=1M -q
	[ $rc = 1 ] && grep -qF "$T/u.db has a cgroup /idle (id 7), but no page is charged to it" <<<"$err" ||
		fail "--memory /idle=1M: exit $rc, $err"
	sqlite3 "$T/u.db" "UPDATE pages SET cgroup = 0; DELETE FROM meta WHERE key LIKE 'host.memcg%'" 2>"$T/err" ||
		{ fail "uncharging the pages: $(cat "$T/err")"; return; }
	run replay "$T/u.db" --policy lru -q
	[ $rc = 1 ] && grep -qF "its cgroups table has /idle (id 7, memory.max 64M), but no page is charged to it" <<<"$err" &&
		grep -qF "give --memory 64M" <<<"$err" || fail "no --memory, a limit on no page: exit $rc, $err"
	# under v2, /sys/fs/cgroup/x/memwalk is /x/memwalk, not /memwalk
	run replay "$T/m.db" --policy lru --memory /sys/fs/cgroup/x/memwalk=1M -q
	[ $rc = 1 ] || fail "--memory /sys/fs/cgroup/x/memwalk=1M was taken for /memwalk"
	run replay "$T/m.db" --policy lru --memory /memwalk=1M --memory 1=2M -q
	[ $rc = 1 ] && grep -qF "cgroup 1 (/memwalk) is given a limit twice" <<<"$err" ||
		fail "a limit by path and by id: exit $rc, $err"
	run replay "$T/m.db" --policy lru --memory memwalk=1M -q
	[ $rc = 2 ] && grep -qF "CGROUP a cgroup id or a path starting with /" <<<"$err" ||
		fail "--memory memwalk=1M: exit $rc, $err"
}

case_durations() {
	"$MR" gen agetest -o "$T/a1.db" --size 2M --idle 50ms --markers 4 >/dev/null 2>&1 &&
		"$MR" gen agetest -o "$T/a2.db" --size 2M --idle 50000000 --markers 4 >/dev/null 2>&1 ||
		{ fail "gen agetest --idle"; return; }
	[ "$("$MR" query "$T/a1.db" "SELECT max(time) FROM events")" = \
	  "$("$MR" query "$T/a2.db" "SELECT max(time) FROM events")" ] || fail "--idle 50ms and --idle 50000000 differ"
	[ "$("$MR" query "$T/a1.db" "SELECT max(time) >= 50000000 FROM events" | tail -1)" = 1 ] ||
		fail "--idle 50ms does not last 50 ms"
	run gen agetest -o "$T/a3.db" --idle_ms 50
	[ $rc = 2 ] && grep -qF "unknown parameter 'idle_ms'" <<<"$err" || fail "--idle_ms: exit $rc, $err"
	run gen agetest -o "$T/a3.db" --idle 5x
	[ $rc = 2 ] && grep -qF "parameter 'idle'" <<<"$err" || fail "--idle 5x: exit $rc, $err"
	run gen numa -o "$T/n.db" --workers 2 --size_per_worker 256K --rounds 2 --round 5ms --age_interval 1ms
	[ $rc = 0 ] || fail "gen numa --round 5ms --age_interval 1ms: $err"
	run gen numa -o "$T/n2.db" --round 10us
	[ $rc = 2 ] && grep -qF "out of range" <<<"$err" || fail "--round 10us (below 1ms): exit $rc, $err"
	# each parameter in range, their quotient not: 10^9 markers were written until killed
	out=$(timeout 20 "$MR" gen numa -o "$T/n3.db" --age_interval 1ns 2>"$T/err"); rc=$?; err=$(cat "$T/err")
	[ $rc = 1 ] && grep -qF "1000000000 aging markers, more than 10000000" <<<"$err" && [ ! -e "$T/n3.db" ] ||
		fail "--age_interval 1ns: exit $rc, $err"
	run gen agetest --help
	grep -qE -- "--idle +time" <<<"$out" || fail "gen agetest --help does not call idle a time"
}

case_counts() {
	# parsed as a count: the parse passes and the next check (no target) speaks
	run record -o "$T/x.db" --hw-period 10K
	[ $rc = 2 ] && grep -qF "give exactly one of" <<<"$err" || fail "--hw-period 10K: exit $rc, $err"
	run record -o "$T/x.db" --hw-period 1.5 -- true
	[ $rc = 2 ] && grep -qF "bad --hw-period '1.5'" <<<"$err" || fail "--hw-period 1.5: exit $rc, $err"
}

case_shorts() {
	run record -q -o "$T/x.db"
	[ $rc = 2 ] && grep -qF "give exactly one of" <<<"$err" || fail "record -q: exit $rc, $err"
	"$MR" gen loop -o "$T/l.db" --size 1M --passes 2 >/dev/null 2>&1 || { fail "gen"; return; }
	run replay "$T/l.db" -P lru -f csv --memory 512K -q --no-timing
	[ $rc = 0 ] && [ "$(head -1 <<<"$out" | cut -d, -f1)" = policy ] ||
		fail "replay -P lru -f csv: exit $rc, $out $err"
	run bench store -p 1M
	[ $rc = 2 ] || fail "bench store -p was accepted (it is record's --pid)"
	for x in record replay compare curve query info bench gen host; do
		run "$x" -h
		[ $rc = 0 ] && grep -q "^usage: memreplay $x" <<<"$out" || fail "$x -h: exit $rc"
	done
}

cases=${*:-memory_path durations counts shorts}
for case in $cases; do
	"case_$case"
done
if [ $fails -gt 0 ]; then
	echo "$fails failures"
	exit 1
fi
echo "all convention cases passed"
