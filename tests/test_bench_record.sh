#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# test_bench_record.sh - `memreplay bench record` smoke test: a small fault-bound run
# (16 MiB, one run, no build) prints the alone / raw perf / record rows, the fixed-cost
# rows (record -- /bin/true) with the time of each recorder step, and the targets
# footer (the sort case's line says it was not run: it needs --sort). Where the CLI runs the perf tool baseline (a "perf record" row: perf found, or
# "skipped: <why>" when not), that row and its target line are checked too; with
# --perf /nonexistent the row must say why it was skipped and the rest still run.
# Without root it must fail naming perf_event_paranoid and root, then skips (77).
#   test_bench_record.sh MEMREPLAY
set -u
MR=$1
T=$(mktemp -d "${TMPDIR:-/tmp}/mr-bench-rec.XXXXXX")
trap 'rm -rf "$T"' EXIT
fail=0
check() { # check DESCRIPTION COMMAND...
	d=$1; shift
	if "$@"; then echo "ok   $d"; else echo "FAIL $d"; fail=1; fi
}

if [ "$(id -u)" != 0 ]; then
	"$MR" bench record --size 16M --runs 1 --no-build --dir "$T" >"$T/out" 2>"$T/err"
	rc=$?
	check "without root: exit status 1" [ $rc = 1 ]
	check "without root: the message names perf_event_paranoid" \
		grep -q "perf_event_paranoid" "$T/err"
	check "without root: the message says to run as root" grep -q "root" "$T/err"
	[ $fail = 0 ] || exit 1
	echo "SKIP: the measurements need root (perf rings, tracepoints, clear_refs)"
	exit 77
fi

"$MR" bench record --size 16M --runs 1 --no-build --dir "$T" >"$T/out" 2>"$T/err"
rc=$?
cat "$T/out"
check "exit status 0" [ $rc = 0 ]
check "header row" grep -q "^case .*mode .*wall s" "$T/out"
check "alone row" grep -q "^faults 16.0 MiB  *alone " "$T/out"
check "raw perf row" grep -q "^faults 16.0 MiB  *raw perf " "$T/out"
check "record row" grep -q "^faults 16.0 MiB  *record " "$T/out"
check "record row has bytes/event" \
	grep -Eq "^faults 16.0 MiB  *record .* [0-9]+\.[0-9]+ +[0-9]+\.[0-9]+ +[0-9]+\.[0-9]+$" "$T/out"
check "no build row with --no-build" sh -c "! grep -q '^build' '$T/out'"
check "targets footer" grep -q "^targets:" "$T/out"
check "byte/event target line" grep -q "byte/event" "$T/out"
check "raw perf target line" grep -q "no worse than raw perf" "$T/out"
check "fixed-cost rows" grep -q "^fixed (true)  *record " "$T/out"
check "fixed-cost target line" grep -Eq "^  fixed cost <= 20 ms: +[0-9]+\.[0-9] ms +(met|NOT met)" "$T/out"
check "fixed cost by step, every step of the recorder" grep -Eq \
	"^fixed cost by step, ms \(median of each\): setup [0-9.]+ store [0-9.]+ open [0-9.]+ prepare [0-9.]+ start [0-9.]+ loop [0-9.]+ finish [0-9.]+ teardown [0-9.]+$" \
	"$T/out"
check "sort target line: not run without --sort" \
	grep -Eq "^  sort \(in 100 MiB\), wall overhead <= 2 %: +not run \(--sort runs it\)" "$T/out"
if grep -q "^faults 16.0 MiB  *perf record " "$T/out"; then
	if grep -q "^faults 16.0 MiB  *perf record  *skipped: " "$T/out"; then
		echo "note: the perf tool baseline was skipped: $(grep -o 'skipped: .*' "$T/out")"
		check "perf record target line says not run" \
			grep -q "no worse than perf record: *not run: " "$T/out"
	else
		check "perf record row has figures and bytes/event" \
			grep -Eq "^faults 16.0 MiB  *perf record  *[0-9]+\.[0-9]+ .* [0-9]+\.[0-9]+ +[0-9]+\.[0-9]+ +[0-9]+\.[0-9]+$" "$T/out"
		check "perf record target line" \
			grep -Eq "no worse than perf record: +wall .* (met|NOT met)" "$T/out"
		check "no perf.data left behind" sh -c "! ls '$T'/memreplay-bench-record.*/*.perf.data 2>/dev/null"
	fi
	"$MR" bench record --size 4M --runs 1 --no-build --no-fixed --dir "$T" --perf /nonexistent/perf \
		>"$T/out2" 2>"$T/err2"
	check "--perf /nonexistent: still exit 0" [ $? = 0 ]
	check "--perf /nonexistent: the row says why" \
		grep -q "^faults 4.0 MiB  *perf record  *skipped: /nonexistent/perf: " "$T/out2"
	check "--perf /nonexistent: the record row is there" grep -q "^faults 4.0 MiB  *record " "$T/out2"
else
	echo "note: this memreplay's CLI does not run the perf tool baseline (no 'perf record' row)"
fi
check "temporary directory removed" sh -c "! ls -d '$T'/memreplay-bench-record.* 2>/dev/null"
# this script's workloads only (16M and 4M: 4096 and 1024 pages): test_record_crash runs
# its own wl_faultbench at the same time under ctest -j2
check "no workload left running" sh -c "! pgrep -f 'wl_faultbench (4096|1024)\$' >/dev/null"

"$MR" bench record --runs 0 >"$T/usage" 2>&1
check "--runs 0 is a usage error (exit 2)" [ $? = 2 ]
"$MR" bench record --no-build --no-faults --no-fixed >"$T/usage" 2>&1
check "nothing to run is a usage error (exit 2)" [ $? = 2 ]
[ $fail = 0 ] || { cat "$T/err"; exit 1; }
exit 0
