#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# test_hostile_replay.sh MEMREPLAY TOOL [asan] [CASE...] - hostile and broken input to
# replay, gen and record (issue 14): each case gives a trace, script, option or output
# path built to crash, hang, exhaust memory, mislead or lose data, and checks that the
# command exits 1 or 2 with a message naming the problem (or, for a next-use cache that
# cannot be trusted, ignores it with a note and gives the right numbers), within a time
# bound, with no sanitizer report, and leaves its input files as they were.
# TOOL is hostile_replay_tool (SQL edits, a trace with a 2^64 - 1 ns event, a forged
# next-use file). "asan": the sanitizer build, where address-space limits cannot be
# set. CASE names run only those cases (e.g. `... pages_sparse streams`).
set -u
MR=$1
TOOL=$2
shift 2
ASAN=0
if [ "${1:-}" = asan ]; then
	ASAN=1
	shift
fi
ONLY=" $* "
T=$(mktemp -d)
export MEMREPLAY_CACHE="$T/cache"
trap 'rm -rf "$T"' EXIT
pass=0
fail=0

# a case runs when no case was named or it was
want() { [ "$ONLY" = "  " ] || [[ $ONLY == *" $1 "* ]]; }
ok() { pass=$((pass + 1)); }
bad() {
	fail=$((fail + 1))
	echo "FAIL [$CASE]: $*"
}
sums() { md5sum "$@" 2>/dev/null; }

# run LIMIT_S CMD...: run with a time bound and, outside ASan, a 2 GiB address-space
# bound (a replay sized from a forged page id would otherwise take the machine down);
# sets OUT (stdout + stderr) and RC
run() {
	local limit=$1
	shift
	OUT=$(
		[ "$ASAN" = 1 ] || ulimit -v 2097152
		timeout -k 5 "$limit" "$@" 2>&1
	)
	RC=$?
}

# sane: no sanitizer report, no timeout, no signal in the last run
sane() {
	if [ "$RC" = 124 ] || [ "$RC" = 137 ]; then
		bad "timed out (hang): $*"
		return 1
	fi
	if [ "$RC" -gt 128 ]; then
		bad "killed by signal $((RC - 128)): $*"
		return 1
	fi
	if grep -qE "AddressSanitizer|LeakSanitizer|runtime error:" <<<"$OUT"; then
		bad "sanitizer report: $*"
		sed 's/^/    /' <<<"$OUT" | head -30
		return 1
	fi
	return 0
}

# refuse NEEDLE LIMIT_S FILES -- CMD...: CMD exits 1 or 2 naming NEEDLE, within LIMIT_S,
# and leaves FILES (space-separated) unchanged
refuse() {
	local needle=$1 limit=$2 files=$3 before after
	shift 4
	before=$(sums $files)
	run "$limit" "$@"
	after=$(sums $files)
	sane "$@" || return
	if [ "$RC" != 1 ] && [ "$RC" != 2 ]; then
		bad "exit $RC (want 1 or 2): $*"
		sed 's/^/    /' <<<"$OUT" | head -10
	elif ! grep -qF -- "$needle" <<<"$OUT"; then
		bad "message does not name the problem (wanted '$needle'): $*"
		sed 's/^/    /' <<<"$OUT" | head -10
	elif [ "$before" != "$after" ]; then
		bad "input changed: $*"
	else
		ok
	fi
}

# misses POLICY TRACE ARGS...: the misses column of one --no-timing CSV replay
misses() {
	local pol=$1 trace=$2
	shift 2
	run 60 "$MR" replay "$trace" --policy "$pol" --memory 64 --csv --no-timing "$@"
	sane replay "$trace" "$@" || return 1
	MISSES=$(awk -F, '/^"/ { print $6 }' <<<"$OUT") # the one CSV row, after any note
	[ "$RC" = 0 ] && [ -n "$MISSES" ]
}

CASE=setup
"$MR" gen loop -o "$T/a.db" --size 64K --passes 2 >/dev/null 2>&1 || bad "gen loop"
"$MR" gen zipf -o "$T/z.db" --pages 4000 --events 2M >/dev/null 2>&1 || bad "gen zipf"

# 2: one page row with a huge id. Machines are sized from the rows, not the largest id.
CASE=pages_sparse
if want $CASE; then
	cp "$T/a.db" "$T/p.db"
	"$TOOL" sql "$T/p.db" "UPDATE pages SET id = 1000000000 WHERE id = 15" || bad "edit"
	# the store's opener refuses it (storage/store_check.c); the replayer's own check,
	# "page ids must be dense", stands behind it
	refuse "page ids are dense" 60 "$T/p.db" -- "$MR" replay "$T/p.db" --policy lru --memory 8 -q
fi

# a page charged to a cgroup, or of a file, the trace has no row of (as tasks and vmas
# may not name one): it was modelled as a memcg of path '?' or a file of nothing
CASE=pages_dangling
if want $CASE; then
	cp "$T/a.db" "$T/pc.db"
	"$TOOL" sql "$T/pc.db" "UPDATE pages SET cgroup = 999 WHERE id = 3" || bad "edit"
	refuse "pages row 3, column cgroup: 999 is neither 0" 60 "$T/pc.db" -- \
		"$MR" replay "$T/pc.db" --policy lru --memory 8 -q
	cp "$T/a.db" "$T/pf.db"
	"$TOOL" sql "$T/pf.db" "UPDATE pages SET type = 1, file = 777, idx = 0, mm = NULL, vpage = NULL WHERE id = 4" || bad "edit"
	refuse "pages row 4, column file: 777 is not the id of a row of files" 60 "$T/pf.db" -- \
		"$MR" replay "$T/pf.db" --policy lru --memory 8 -q
fi

# 3: a time of 2^64 - 1 ns, in a chunk row or in an event, must not equal "nothing
# pending" and loop for ever.
CASE=time_max
if want $CASE; then
	cp "$T/a.db" "$T/t.db"
	"$TOOL" sql "$T/t.db" "UPDATE chunks SET t_last = -1" || bad "edit"
	refuse "column t_last: -1 is not a time" 20 "$T/t.db" -- "$MR" replay "$T/t.db" --policy lru --memory 8 -q
	# the store's writer refuses an event at 2^64 - 1 ns (storage/writer.c), so such a
	# trace cannot be written through it; the replayer's own per-event check stays
	if "$TOOL" maxtime "$T/m.db" 2>"$T/maxtime.err"; then
		refuse "beyond 2^63 - 1 ns" 20 "$T/m.db" -- "$MR" replay "$T/m.db" --policy mglru --memory 2 -q
	elif grep -qF "past the largest a trace holds" "$T/maxtime.err"; then
		ok
	else
		bad "maxtime: $(cat "$T/maxtime.err")"
	fi
	refuse "beyond 2^63 - 1 ns" 20 "$T/a.db" -- \
		"$MR" replay "$T/a.db" --policy mglru --memory 8 -q --writeback-delay 10000000000000000000
	printf '9223372036854775808 + 0 0 1\n' >"$T/late.txt"
	refuse "beyond 2^63 - 1 ns" 20 "$T/a.db $T/late.txt" -- \
		"$MR" replay "$T/a.db" --policy mglru --memory 8 -q --script "$T/late.txt"
	# the chunk row says the trace ends at 3 us; the event still says 2^64 - 1
	if [ -s "$T/m.db" ]; then
		"$TOOL" sql "$T/m.db" "UPDATE chunks SET t_last = 3000" || bad "edit"
		run 20 "$MR" replay "$T/m.db" --policy mglru --memory 2 -q
		sane replay m.db && { [ "$RC" = 0 ] || [ "$RC" = 1 ]; } && ok || bad "event at 2^64 - 1 ns: exit $RC"
	fi
fi

# 4: a script command far after the trace: samples every interval until then, with no
# room left for them. Sampling stops where the series is full, and says so; snapshots,
# all of which would be kept, are refused.
CASE=script_far
if want $CASE; then
	printf '1000000000000000 + 0 0 1\n' >"$T/far.txt"
	before=$(sums "$T/a.db" "$T/far.txt")
	run 20 "$MR" replay "$T/a.db" --policy mglru --memory 8 -q --script "$T/far.txt" -o "$T/far.db"
	n=$("$TOOL" rows "$T/far.db" "SELECT count(DISTINCT t_ns) FROM timeseries" 2>/dev/null)
	if sane replay far.txt && [ "$RC" = 0 ] && grep -qF "the time series stops at" <<<"$OUT" &&
		[ "${n:-0}" -ge 100 ] && [ "${n:-0}" -le 110 ] && [ "$before" = "$(sums "$T/a.db" "$T/far.txt")" ]; then
		ok
	else
		bad "script at 10^15 ns: exit $RC, $n samples"
		sed 's/^/    /' <<<"$OUT" | head -5
	fi
	refuse "snapshots every" 20 "$T/a.db $T/far.txt" -- \
		"$MR" replay "$T/a.db" --policy mglru --memory 8 -q --script "$T/far.txt" \
		--interval 1s --snapshot-every 1us
fi

# 6: two replays writing one results file at once (each takes far longer than starting
# both does, so they overlap): one writes and says so, the other fails saying why; the
# file holds exactly the one that succeeded. Never both "results in c.db".
# A results file is untrusted input too: a recursive view in place of counters made
# `compare` loop for ever; a trigger or a view it does not write is refused, naming it.
CASE=results_schema
if want $CASE; then
	"$MR" replay "$T/a.db" --policy lru --policy mglru --memory 8 -q --no-timing \
		-o "$T/rv.db" >/dev/null 2>&1 || bad "replay -o"
	cp "$T/rv.db" "$T/rt.db"
	cp "$T/rv.db" "$T/rs.db"
	cp "$T/rv.db" "$T/rs2.db"
	"$TOOL" sql "$T/rv.db" "DROP VIEW vmstat" || bad "edit"
	"$TOOL" sql "$T/rv.db" "DROP VIEW memory_stat" || bad "edit"
	"$TOOL" sql "$T/rv.db" "ALTER TABLE counters RENAME TO c0" || bad "edit"
	"$TOOL" sql "$T/rv.db" "CREATE VIEW counters AS WITH RECURSIVE r(run, memcg, name, value) AS (SELECT * FROM c0 UNION ALL SELECT run, memcg, name, value + 1 FROM r) SELECT * FROM r" || bad "edit"
	refuse "schema object 'counters' is a view" 20 "$T/rv.db" -- "$MR" compare "$T/rv.db"
	"$TOOL" sql "$T/rt.db" "CREATE TRIGGER t AFTER INSERT ON notes BEGIN SELECT 1; END" || bad "edit"
	refuse "schema object 't' is a trigger" 20 "$T/rt.db" -- "$MR" compare "$T/rt.db"
	# the segments compare resamples: a view in their place is refused; rows changed by
	# hand (segments that no longer add up to the counter, a segment far past the
	# others) cost the runs concerned their intervals, nothing else
	"$TOOL" sql "$T/rs.db" "ALTER TABLE segment_counters RENAME TO s0" || bad "edit"
	"$TOOL" sql "$T/rs.db" "CREATE VIEW segment_counters AS WITH RECURSIVE r(run, seg, name, value) AS (SELECT * FROM s0 UNION ALL SELECT run, seg, name, value + 1 FROM r) SELECT * FROM r" || bad "edit"
	refuse "schema object 'segment_counters' is a view" 20 "$T/rs.db" -- "$MR" compare "$T/rs.db"
	"$TOOL" sql "$T/rs2.db" "UPDATE segment_counters SET value = value + 7 WHERE run = 2 AND name = 'mr_misses'" || bad "edit"
	"$TOOL" sql "$T/rs2.db" "INSERT INTO segments VALUES(2, 4000000000, 0, 1, 0, 0)" || bad "edit"
	out=$("$MR" compare "$T/rs2.db" --csv --counters mr_misses,mr_events 2>&1)
	rc=$?
	if [ $rc = 0 ] && grep -q '^mr_misses,2,.*,,,,,$' <<<"$out" && grep -q '^mr_events,1,.*,0,0,.*,1$' <<<"$out"; then
		pass=$((pass + 1))
	else
		bad "hand-edited segments: exit $rc, $out"
	fi
fi

# Rows of a results file changed by hand: a negative or text size, a negative counter, a
# sampled run without its note or with one that does not say its rate and seed were
# read as sizes of 2^64 - 5 pages, ratios of 10^16, or a full run's unscaled ratio.
# Every reader (curve, compare, report, merge) refuses the file, naming the row.
CASE=results_rows
if want $CASE; then
	"$MR" replay "$T/a.db" --policy lru --memory 8,16 --sample 1/2 -q --no-timing \
		-o "$T/rr.db" >/dev/null 2>&1 || bad "sampled replay -o"
	for c in "memory_pages '-5'|UPDATE runs SET memory_pages = -5 WHERE id = 2" \
		 "memory_pages 'abc'|UPDATE runs SET memory_pages = 'abc' WHERE id = 1" \
		 "mr_misses is not a count|UPDATE counters SET value = -5 WHERE run = 1 AND name = 'mr_misses' AND memcg IS NULL" \
		 "but no 'sampled' note|DELETE FROM notes WHERE kind = 'sampled'" \
		 "does not say a rate 1/N|UPDATE notes SET message = replace(message, 'sampled 1/2 ', 'sampled 1/0 ') WHERE kind = 'sampled'" \
		 "does not say a rate 1/N|UPDATE notes SET message = replace(message, '(seed 0)', '(seed -1)') WHERE kind = 'sampled'"; do
		cp "$T/rr.db" "$T/rr2.db"
		"$TOOL" sql "$T/rr2.db" "${c#*|}" || bad "edit: ${c#*|}"
		for cmd in curve compare; do
			refuse "${c%%|*}" 20 "$T/rr2.db" -- "$MR" $cmd "$T/rr2.db"
		done
		refuse "${c%%|*}" 20 "$T/rr2.db" -- "$MR" report "$T/rr2.db" -o "$T/rr2.html"
		refuse "${c%%|*}" 20 "$T/rr2.db" -- "$MR" merge -o "$T/rr3.db" "$T/rr2.db" "$T/rr.db"
	done
	run 20 "$MR" curve "$T/rr.db"
	sane curve "$T/rr.db" && { [ "$RC" = 0 ] && ok || bad "curve of the untouched file: exit $RC"; }
fi

# Outputs and inputs that are not regular files, and output that cannot be written:
# `report --force` replaced the results file it read and /dev/full itself; a FIFO given
# as -o, results or --script hung; a full stdout exited 0; a long --memory list lost the
# message's reason past 512 bytes.
CASE=cli_paths
if want $CASE; then
	"$MR" replay "$T/a.db" --policy lru --policy mglru --memory 8,16 -q --no-timing \
		-o "$T/cp.db" >/dev/null 2>&1 || bad "replay -o"
	refuse "is the input" 20 "$T/cp.db" -- "$MR" report "$T/cp.db" -o "$T/cp.db" --force
	mkfifo "$T/cp.fifo"
	refuse "is not a regular file" 20 "$T/cp.db" -- "$MR" report "$T/cp.db" -o "$T/cp.fifo" --force
	refuse "is not a regular file" 20 "$T/cp.db" -- "$MR" curve "$T/cp.db" -o "$T/cp.fifo"
	ln -s "$T/nowhere.html" "$T/cp-link.html"
	refuse "is a symbolic link" 20 "$T/cp.db" -- "$MR" report "$T/cp.db" -o "$T/cp-link.html"
	for cmd in compare curve; do
		refuse "not a regular file" 20 "$T/cp.db" -- "$MR" $cmd "$T/cp.fifo"
	done
	refuse "not a regular file" 20 "$T/cp.db" -- "$MR" explain "$T/cp.fifo" --runs 1,2
	refuse "not a regular file" 20 "$T/cp.db" -- "$MR" query "$T/cp.fifo" "SELECT 1"
	refuse "cannot read script $T/cp.fifo: not a regular file" 20 "$T/a.db" -- \
		"$MR" replay "$T/a.db" --policy lru --memory 8 -q --script "$T/cp.fifo"
	if [ -c /dev/full ]; then
		for cmd in "info $T/a.db" "curve $T/cp.db" "compare $T/cp.db --json"; do
			run 20 sh -c "exec \"\$@\" >/dev/full" sh "$MR" $cmd
			sane $cmd && { [ "$RC" = 1 ] && grep -q "writing standard output failed" <<<"$OUT" &&
				ok || bad "$cmd >/dev/full: exit $RC, $OUT"; }
		done
	fi
	refuse "more than 64 sizes; give fewer" 20 "$T/a.db" -- \
		"$MR" replay "$T/a.db" --policy lru --memory "$(seq -s, 64 8 1656)" -q
fi

CASE=output_race
if want $CASE; then
	lost=0
	for round in 1 2 3 4; do
		rm -f "$T/c.db"
		"$MR" replay "$T/z.db" --policy lru --memory 100 -q --no-timing -o "$T/c.db" \
			>"$T/o1" 2>&1 &
		p1=$!
		"$MR" replay "$T/z.db" --policy mglru --memory 100 -q --no-timing -o "$T/c.db" \
			>"$T/o2" 2>&1 &
		p2=$!
		wait $p1
		r1=$?
		wait $p2
		r2=$?
		runs=$("$TOOL" rows "$T/c.db" "SELECT policy FROM runs" 2>/dev/null | tr '\n' ' ')
		if [ "$r1" = 0 ] && [ "$r2" = 0 ]; then
			why="both exit 0, the file holds '$runs'"
		elif [ "$r1" = 0 ] && [ "$r2" = 1 ] && [ "$runs" = "lru " ] &&
			grep -q "being written by another" "$T/o2" && grep -q "results in" "$T/o1"; then
			why=
		elif [ "$r2" = 0 ] && [ "$r1" = 1 ] && [ "$runs" = "mglru " ] &&
			grep -q "being written by another" "$T/o1" && grep -q "results in" "$T/o2"; then
			why=
		else
			why="exit $r1 / $r2, the file holds '$runs'"
		fi
		if [ -n "$why" ]; then
			lost=1
			echo "round $round: $why"
			sed 's/^/    lru: /' "$T/o1" | grep -v "^    lru: policy\|^    lru: lru " | head -3
			sed 's/^/    mglru: /' "$T/o2" | grep -v "^    mglru: policy\|^    mglru: mglru " | head -3
		fi
		ls "$T" | grep -q "^c\.db." && { lost=1; echo "round $round: files left: $(ls "$T" | grep "^c\.db.")"; }
	done
	[ $lost = 0 ] && ok || bad "two replays writing one -o at once"
fi

# 7: gen -o over an existing file (a recorded trace) without --force; 9: through a
# dangling symbolic link.
CASE=gen_overwrite
if want $CASE; then
	cp "$T/a.db" "$T/rec.db"
	refuse "already exists" 20 "$T/rec.db" -- "$MR" gen loop -o "$T/rec.db" --size 64K
	run 20 "$MR" gen loop -o "$T/rec.db" --size 64K --force
	sane gen --force && [ "$RC" = 0 ] && ok || bad "gen --force: exit $RC"
	ln -s "$T/target-g.db" "$T/link-g.db"
	refuse "symbolic link" 20 "" -- "$MR" gen loop -o "$T/link-g.db" --size 64K --force
	[ -e "$T/target-g.db" ] && bad "gen -o created the link's target" || ok
fi

# 8: a next-use cache that cannot be trusted is ignored with a note and recomputed;
# the numbers stay those of a computed run.
CASE=nextuse_trust
if want $CASE; then
	nc="$T/nc"
	mkdir -m 700 "$nc"
	misses opt "$T/z.db" --nextuse-cache off || bad "opt without a cache: exit $RC"
	want_m=$MISSES
	misses opt "$T/z.db" --nextuse-cache "$nc" || bad "opt building the cache"
	f=$(ls "$nc"/nextuse-*.mrnu 2>/dev/null | head -1)
	[ -n "$f" ] || bad "no cache file in $nc"
	# trust_check LABEL NEEDLE ARGS...: a replay that must not use the forged file
	trust_check() {
		local label=$1 needle=$2
		shift 2
		if ! misses opt "$T/z.db" "$@"; then
			bad "$label: exit $RC"
			sed 's/^/    /' <<<"$OUT" | head -5
		elif [ "$MISSES" != "$want_m" ]; then
			bad "$label: opt misses $MISSES, computed $want_m: forged values were used"
		elif ! grep -qF -- "$needle" <<<"$OUT"; then
			bad "$label: no note naming '$needle'"
			sed 's/^/    /' <<<"$OUT" | head -5
		else
			ok
		fi
	}
	# control: the forge works (a file we made and keep 0600 is trusted by design)
	if [ -n "$f" ]; then
		cp "$f" "$T/good.mrnu"
		"$TOOL" forge-nextuse "$f" || bad "forge"
		cp "$f" "$T/forged.mrnu"
		chmod 666 "$f"
		trust_check "mode 666" "writable by others" --nextuse-cache "$nc"
		if [ "$(id -u)" = 0 ]; then
			cp "$T/forged.mrnu" "$f"
			chmod 600 "$f"
			chown 65534 "$f"
			trust_check "owned by another user" "owned by uid 65534" --nextuse-cache "$nc"
		fi
		rm -f "$f"
		mkfifo "$f"
		trust_check "FIFO" "not a regular file" --nextuse-cache "$nc"
		rm -f "$f"
		ln -s "$T/forged.mrnu" "$f"
		trust_check "symlinked file" "not a regular file" --nextuse-cache "$nc"
		rm -f "$f"
		cp "$T/forged.mrnu" "$f"
		chmod 600 "$f"
		ln -s "$nc" "$T/nclink"
		trust_check "symlinked directory" "symbolic link" --nextuse-cache "$T/nclink"
		chmod 777 "$nc"
		trust_check "directory mode 777" "writable by others" --nextuse-cache "$nc"
		chmod 700 "$nc"
		[ "$(sums "$f" | cut -d' ' -f1)" = "$(sums "$T/forged.mrnu" | cut -d' ' -f1)" ] && ok ||
			bad "a refused directory's file was changed"
		rm -f "$f"
	fi
fi

# 9: -o naming a dangling symbolic link: refused, its target not created (gen: under 7).
CASE=output_symlink
if want $CASE; then
	ln -s "$T/target-r.db" "$T/link-r.db"
	refuse "symbolic link" 20 "$T/a.db" -- "$MR" replay "$T/a.db" --policy lru --memory 8 -q -o "$T/link-r.db"
	[ -e "$T/target-r.db" ] && bad "replay -o created the link's target" || ok
fi

# 9: record -o through a dangling symbolic link, refused before anything is recorded.
CASE=record_symlink
if want $CASE; then
	ln -s "$T/target-c.db" "$T/link-c.db"
	refuse "symbolic link" 20 "" -- "$MR" record -o "$T/link-c.db" -- true
	[ -e "$T/target-c.db" ] && bad "record -o created the link's target" || ok
fi

# 11: one chunk row naming stream 1048575: per-stream state for a million streams.
CASE=streams
if want $CASE; then
	cp "$T/a.db" "$T/s.db"
	"$TOOL" sql "$T/s.db" "UPDATE chunks SET stream = 1048575" || bad "edit"
	refuse "column stream: 1048575 is not the id" 20 "$T/s.db" -- "$MR" replay "$T/s.db" --policy lru --memory 8 -q
	"$TOOL" sql "$T/s.db" "UPDATE chunks SET stream = -1" || bad "edit"
	refuse "column stream: -1 is not the id" 20 "$T/s.db" -- "$MR" replay "$T/s.db" --policy lru --memory 8 -q
fi

# 13: numbers that do not fit, and a script with a NUL byte.
CASE=overflow
if want $CASE; then
	refuse "too large" 20 "$T/a.db" -- "$MR" replay "$T/a.db" --policy lru --memory 18446744073709551615 -q
	refuse "too large" 20 "$T/a.db" -- "$MR" replay "$T/a.db" --policy lru --memory 8 --swap 18446744073709551615p -q
	printf '1000 + 0 0 99999999999999999999\n' >"$T/gen.txt"
	refuse "generation 99999999999999999999" 20 "$T/a.db $T/gen.txt" -- \
		"$MR" replay "$T/a.db" --policy mglru --memory 8 -q --script "$T/gen.txt"
	printf '1000 - 4294967296 0 1\n' >"$T/memcg.txt"
	refuse "memcg id 4294967296" 20 "$T/a.db $T/memcg.txt" -- \
		"$MR" replay "$T/a.db" --policy mglru --memory 8 -q --script "$T/memcg.txt"
	mkdir -p "$T/scriptdir"
	refuse "cannot read script" 20 "$T/a.db" -- \
		"$MR" replay "$T/a.db" --policy mglru --memory 8 -q --script "$T/scriptdir"
	printf '1000 + 0 0 1\n\0002000 - 0 0 1\n' >"$T/nul.txt"
	refuse "NUL byte at offset 13" 20 "$T/a.db $T/nul.txt" -- \
		"$MR" replay "$T/a.db" --policy mglru --memory 8 -q --script "$T/nul.txt"
fi

echo "test_hostile_replay: $pass passed, $fail failed"
[ "$fail" = 0 ]
