#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# test_record_crash.sh - `memreplay record` when it is killed or cannot write (issue 14:
# no crash, no hang, no silent wrong answer, no lost data). One case per run:
#   kill     100 SIGKILLs of the recorder at pseudo-random moments (fixed seed): every
#            store left behind opens and holds exactly its committed chunks
#   enospc   the output directory fills up: the recording stops, the workload runs to
#            its end undisturbed, its exit status is passed through, stderr says what
#            failed and what was kept, and the store opens with what was committed
#   full_late the disk fills once every chunk is committed, while the finish folds the
#            WAL in: stderr says the disk is full and what was kept, which all reads
#   nofile   a record that fails before committing any event leaves no file, so a
#            retry to the same path works without --force
#   retry    a record SIGKILLed before its first commit leaves an empty store that a
#            retry replaces without --force (saying so); a store with events, a finished
#            one, another file or a live recording's store stays; stale temporary files
#            of dead creations go
# Skips (77) when not root.
#   test_record_crash.sh MEMREPLAY WORKLOAD_DIR CASE
set -u
MR=$1
WL=$2
CASE=$3
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (perf, tracefs, mounts)"; exit 77; }
T=$(mktemp -d "${TMPDIR:-/tmp}/mr-rec-crash.XXXXXX")
fail=0
check() { # check DESCRIPTION COMMAND...
	d=$1; shift
	if "$@"; then echo "ok   $d"; else echo "FAIL $d"; fail=1; fi
}

# The store at $1 opens and its events table yields exactly the events its chunk rows
# count: nothing committed is lost, nothing half-written is read. Prints "N" events.
store_intact() {
	"$MR" info "$1" >"$T/info.log" 2>&1 || { echo "info failed: $(head -3 "$T/info.log")"; return 1; }
	# query prints a header line, then the value; anything on stderr is a failure
	"$MR" query "$1" "SELECT count(*) FROM events" >"$T/q1.out" 2>"$T/q1.err" &&
		[ ! -s "$T/q1.err" ] || { echo "events query failed: $(head -3 "$T/q1.err")"; return 1; }
	"$MR" query "$1" "SELECT coalesce(sum(n_events), 0) FROM chunks" >"$T/q2.out" 2>"$T/q2.err" &&
		[ ! -s "$T/q2.err" ] || { echo "chunks query failed: $(head -3 "$T/q2.err")"; return 1; }
	n_ev=$(tail -1 "$T/q1.out")
	n_ch=$(tail -1 "$T/q2.out")
	[ "$n_ev" = "$n_ch" ] || { echo "events $n_ev != sum(chunks.n_events) $n_ch"; return 1; }
	echo "$n_ev"
}

case_kill() {
	# A short recording (about 0.6 s: setup, 18000 fault events, the finish) so that
	# 100 runs fit well under a minute and the kills land in every phase. The odd runs
	# count the delay from the start (setup, the store's creation and rename), the even
	# ones from the store's appearance at its path (recording, the chunk commits, the
	# finish: the last commit, the switch out of WAL mode). wl_faultbench dies with the
	# recorder (PR_SET_PDEATHSIG).
	seed=14
	n=0 stores=0 empty=0 complete=0 bad=0 absent=0 temps=0 maxev=0
	start=$(date +%s)
	while [ $n -lt 100 ]; do
		n=$((n + 1))
		# a fixed LCG: the same 100 delays on every run
		seed=$(((seed * 1103515245 + 12345) % 2147483648))
		ms=$((seed / 65536 % 301))
		D=$T/k$n
		mkdir "$D"
		"$MR" record -o "$D/t.db" --quiet --sources faults -- "$WL/wl_faultbench" 9000 \
			>"$D/rec.log" 2>&1 &
		pid=$!
		if [ $((n % 2)) = 0 ]; then
			i=0
			while [ ! -e "$D/t.db" ] && [ $i -lt 300 ] && kill -0 $pid 2>/dev/null; do
				sleep 0.01
				i=$((i + 1))
			done
		fi
		# from the store's appearance: 0-600 ms, the whole recording to past its end
		# (on a loaded machine it runs 0.5-0.8 s)
		[ $((n % 2)) = 0 ] && ms=$((ms * 2))
		sleep "$(printf '%d.%03d' $((ms / 1000)) $((ms % 1000)))"
		kill -KILL $pid 2>/dev/null
		wait $pid 2>/dev/null
		# a store built but not yet renamed into place is PATH.tmp-PID-N (documented)
		for f in "$D"/t.db.tmp-*; do [ -e "$f" ] && temps=$((temps + 1)); done
		if [ ! -e "$D/t.db" ]; then
			absent=$((absent + 1))
		elif ev=$(store_intact "$D/t.db"); then
			stores=$((stores + 1))
			[ "$ev" = 0 ] && empty=$((empty + 1))
			[ "$ev" -gt "$maxev" ] && maxev=$ev
			[ "$("$MR" query "$D/t.db" "SELECT count(*) FROM meta WHERE key = 'complete'" |
			     tail -1)" = 1 ] && complete=$((complete + 1))
		else
			bad=$((bad + 1))
			echo "FAIL kill $n after $ms ms: $ev"
		fi
		rm -rf "$D"
	done
	echo "kills: 100; stores left: $stores ($empty with no event committed, $complete" \
	     "finished, the largest $maxev events); absent: $absent (temporary files left:" \
	     "$temps); broken: $bad; $(($(date +%s) - start)) s"
	check "every store left by 100 SIGKILLs opens with its committed chunks intact" [ $bad = 0 ]
	check "some kills left a store with events (the test reaches the recording)" \
		[ "$maxev" -gt 0 ]
}

# record_full SIZE: record the workload into a SIZE tmpfs (a private mount namespace);
# leaves rec.log, rc, marker and what the filesystem kept in $T/kept.
record_full() {
	rm -rf "$T/kept" "$T/marker" "$T/rc"
	mkdir -p "$T/kept"
	unshare -m --propagation private sh -c '
		mount -t tmpfs -o size=$3 mr-full "$2/full" || exit 100
		"$1" record -o "$2/full/t.db" -- "$2/wl.sh" >"$2/rec.log" 2>&1
		echo "rc=$?" >"$2/rc"
		# what the full filesystem kept, to read after it is gone with the namespace
		cp -a "$2/full/." "$2/kept/"
		true' sh "$MR" "$T" "$1"
	cat "$T/rec.log"
}

# skip (77), saying why, where a private tmpfs cannot be mounted
need_tmpfs() {
	command -v unshare >/dev/null && unshare -m true 2>/dev/null ||
		{ echo "SKIP: unshare -m not allowed here (a private mount namespace is needed for a small tmpfs)"; exit 77; }
	mkdir -p "$T/full"
	unshare -m --propagation private sh -c 'mount -t tmpfs -o size=64k mr-probe "$1"' sh "$T/full" 2>"$T/mount.err" ||
		{ echo "SKIP: cannot mount a tmpfs here ($(head -1 "$T/mount.err")): a full disk needs one"; exit 77; }
}

case_enospc() {
	need_tmpfs
	# The workload: 2-3 s of page touches (a ring's first chunk fills while it runs,
	# and 100 KB cannot hold it with its page rows), then
	# a marker written outside it, then exit 3 (passed through).
	cat >"$T/wl.sh" <<-EOF
	#!/bin/sh
	"$WL/wl_anon" 14000 "$T/wl.out" 50 || exit 9
	echo done >"$T/marker"
	exit 3
	EOF
	chmod +x "$T/wl.sh"
	# 64 KB: too small for a new store: the recorder says the disk is full (SQLite may
	# report the refused write as an I/O error) and leaves nothing behind
	record_full 64k
	check "64k: record fails (exit 1)" grep -qx "rc=1" "$T/rc"
	check "64k: stderr says the disk is full" grep -q "disk full writing " "$T/rec.log"
	check "64k: no store is left" [ -z "$(ls "$T/kept")" ]
	# 100 KB: full at the first commit, while the workload runs. A new store needs 72-80 KB
	# here; the first commit adds a chunk and its page rows. (300 KB held a first chunk
	# when a loaded machine made half its events context switches.)
	record_full 100k
	check "100k: the workload ran to its end (marker written)" [ -e "$T/marker" ]
	check "100k: its exit status (3) is passed through" grep -qx "rc=3" "$T/rc"
	check "100k: stderr says writing failed and why" \
		grep -qE "writing .*t.db failed: .*(disk full|No space left on device)" "$T/rec.log"
	check "100k: stderr says the recording stopped and the workload was left running" \
		grep -q "recording stopped, its perf events closed, the command was left running to its end" "$T/rec.log"
	check "100k: stderr says nothing was kept" \
		grep -q "kept: 0 events in 0 chunks (nothing was committed: no store is left)" "$T/rec.log"
	check "100k: no store is left (nothing was committed)" [ -z "$(ls "$T/kept")" ]
	# A disk full after some commits: see the full_late case.
}

case_full_late() {
	need_tmpfs
	# Every chunk commit fits, the finish does not: folding the WAL into the main file
	# writes its pages there while the WAL is still on disk, about the size of the
	# commits again. With D the size of the finished trace (measured on a disk with
	# room), the commits took about 1.45 D and the fold needs about 2.3 D: a tmpfs of
	# 1.9 D is full in the middle of the fold, whatever the timing. The finish said
	# "another process has it open" (MR_EBUSY) here.
	cat >"$T/wl.sh" <<-EOF
	#!/bin/sh
	"$WL/wl_faultbench" 60000 || exit 9
	exit 3
	EOF
	chmod +x "$T/wl.sh"
	"$MR" record -o "$T/m.db" --quiet -- "$T/wl.sh" >"$T/m.log" 2>&1
	[ $? = 0 ] || { echo "FAIL the measuring recording failed: $(head -3 "$T/m.log")"; exit 1; }
	dsize=$(stat -c %s "$T/m.db")
	chunks=$("$MR" query "$T/m.db" "SELECT count(*) FROM chunks" | tail -1)
	echo "measured: a finished trace of $dsize bytes, $chunks chunks; tmpfs $((dsize * 19 / 10 / 1024))k"
	check "the measured trace has several chunks (the case's premise)" [ "$chunks" -ge 3 ]
	record_full "$((dsize * 19 / 10 / 1024))k"
	check "late: the workload's exit status (3) is passed through" grep -qx "rc=3" "$T/rc"
	check "late: stderr says the disk is full, not that another process has the trace" \
		grep -q "finishing .*t.db failed: .*t.db: the disk is full folding the write-ahead log in" "$T/rec.log"
	check "late: stderr does not blame another process" \
		sh -c "! grep -q 'another process has it open' '$T/rec.log'"
	said=$(sed -n 's/.*what was committed is kept, \([0-9]*\) chunks (\([0-9]*\) events).*/\1 \2/p' "$T/rec.log")
	check "late: it says how many chunks and events were kept ($said)" [ -n "$said" ]
	check "late: and the recorder's count agrees" \
		grep -q "the recording had ended; kept: ${said#* } events in ${said% *} chunks, readable" "$T/rec.log"
	ev=$(store_intact "$T/kept/t.db")
	check "late: the store opens with every committed chunk ($ev events)" [ "${ev:-0}" -gt 0 ]
	kc=$("$MR" query "$T/kept/t.db" "SELECT count(*) FROM chunks" | tail -1)
	check "late: what it said was kept is what the store holds" [ "$said" = "$kc $ev" ]
	# the fix the message gives makes it one finished file
	sqlite3 "$T/kept/t.db" "PRAGMA journal_mode=DELETE" >/dev/null
	folded=$(store_intact "$T/kept/t.db")
	check "late: folded as the message says, it is one file with the same events ($folded)" \
		[ ! -e "$T/kept/t.db-wal" -a "$folded" = "$ev" ]
}

case_nofile() {
	"$MR" record -o "$T/a.db" --quiet -- /nonexistent/command >"$T/bad.log" 2>&1
	rc=$?
	check "a command that cannot run: record fails" [ $rc != 0 ]
	check "it says so" grep -q "cannot run '/nonexistent/command'" "$T/bad.log"
	check "it leaves no file" [ ! -e "$T/a.db" ]
	check "it leaves no side or temporary files" [ -z "$(ls "$T" | grep '^a\.db')" ]
	"$MR" record -o "$T/a.db" --quiet -- "$WL/wl_anon" 100 "$T/a.out" >"$T/retry.log" 2>&1
	check "the retry to the same path works without --force" [ $? = 0 ]
	check "the retry's store opens" sh -c "'$MR' info '$T/a.db' >/dev/null 2>&1"
	# A setup error after the store is created: a --cgroup scope that is not one
	# fails before it; a pid that is gone fails after, in set_targets().
	sleep 0 & gone=$!
	wait $gone
	"$MR" record -o "$T/p.db" --quiet -p $gone >"$T/pid.log" 2>&1
	check "a pid that is gone: record fails" [ $? != 0 ]
	check "a pid that is gone: no file left" [ -z "$(ls "$T" | grep '^p\.db')" ]
	# A record that committed events and then failed keeps them: see the enospc case;
	# here one interrupted by SIGINT after its events keeps them too.
	"$MR" record -o "$T/i.db" --quiet -- "$WL/wl_anon" 2000 "$T/i.out" 1000 >"$T/int.log" 2>&1 &
	pid=$!
	sleep 1
	kill -INT $pid
	wait $pid
	check "an interrupted record exits 0" [ $? = 0 ]
	ev=$(store_intact "$T/i.db")
	check "an interrupted record keeps its events ($ev)" [ "${ev:-0}" -gt 0 ]
}

case_retry() {
	# Killed before its first commit: the workload sleeps (a few hundred events, far
	# from a chunk), so the store is in place and empty when the SIGKILL lands.
	"$MR" record -o "$T/t.db" --quiet -- sleep 3 >"$T/k.log" 2>&1 &
	pid=$!
	i=0
	while [ ! -e "$T/t.db" ] && [ $i -lt 500 ]; do sleep 0.01; i=$((i + 1)); done
	sleep 0.3
	kill -KILL $pid
	wait $pid 2>/dev/null
	check "the killed recording left a store with no chunk (the case's premise)" \
		[ "$("$MR" query "$T/t.db" "SELECT count(*) FROM chunks" 2>/dev/null | tail -1)" = 0 ]
	"$MR" record -o "$T/t.db" --quiet -- "$WL/wl_anon" 100 "$T/a.out" >"$T/retry.log" 2>&1
	check "the retry to the same path works without --force" [ $? = 0 ]
	check "the retry says it replaced the empty trace" \
		grep -q "replacing $T/t.db: an empty trace left by a recording that ended before it committed any event" "$T/retry.log"
	ev=$(store_intact "$T/t.db")
	check "the retry's store holds its events ($ev)" [ "${ev:-0}" -gt 0 ]

	# What holds a recorded event stays, finished or not, and says why
	sum=$(sha256sum <"$T/t.db")
	"$MR" record -o "$T/t.db" --quiet -- true >"$T/again.log" 2>&1
	check "a finished trace at the path: record refuses" [ $? != 0 ]
	check "it says what the file holds and how to replace it" \
		grep -q "already exists and holds a finished trace (.* chunks of events): .*--force" "$T/again.log"
	check "the finished trace is as it was" [ "$(sha256sum <"$T/t.db")" = "$sum" ]
	cp "$T/t.db" "$T/u.db"
	sqlite3 "$T/u.db" "DELETE FROM meta WHERE key = 'complete'; PRAGMA journal_mode=WAL" >/dev/null
	sum=$(sha256sum <"$T/u.db")
	"$MR" record -o "$T/u.db" --quiet -- true >"$T/u.log" 2>&1
	check "an unfinished trace with events: record refuses" [ $? != 0 ]
	check "it says it holds a recorded trace" grep -q "holds a recorded trace" "$T/u.log"
	check "the unfinished trace is as it was" [ "$(sha256sum <"$T/u.db")" = "$sum" ]
	echo junk >"$T/j.db"
	"$MR" record -o "$T/j.db" --quiet -- true >"$T/j.log" 2>&1
	check "a file that is no trace: record refuses" [ $? != 0 ]
	check "a file that is no trace is as it was" [ "$(cat "$T/j.db")" = junk ]

	# A live recording's store, empty so far, is not replaced, and its recording goes on
	"$MR" record -o "$T/l.db" --quiet -- sh -c "sleep 1; '$WL/wl_anon' 100 '$T/l.out'" >"$T/l1.log" 2>&1 &
	pid=$!
	i=0
	while [ ! -e "$T/l.db" ] && [ $i -lt 500 ]; do sleep 0.01; i=$((i + 1)); done
	sleep 0.2
	"$MR" record -o "$T/l.db" --quiet -- true >"$T/l2.log" 2>&1
	check "a second record to a live recording's path fails" [ $? != 0 ]
	check "it says another process has it open" grep -q "another process has it open" "$T/l2.log"
	wait $pid
	check "the live recording ends well" [ $? = 0 ]
	ev=$(store_intact "$T/l.db")
	check "the live recording keeps its events ($ev)" [ "${ev:-0}" -gt 0 ]

	# Temporary files of creations killed before their rename: a dead PID's go at the
	# next create at that path, a live one's stay
	sleep 0 &
	dead=$!
	wait $dead
	: >"$T/s.db.tmp-$dead-0"
	: >"$T/s.db.tmp-$dead-0-wal"
	: >"$T/s.db.tmp-$$-1"
	"$MR" record -o "$T/s.db" --quiet -- true >"$T/s.log" 2>&1
	check "a record beside stale temporary files works" [ $? = 0 ]
	check "the dead process's temporary files are gone" \
		[ ! -e "$T/s.db.tmp-$dead-0" -a ! -e "$T/s.db.tmp-$dead-0-wal" ]
	check "a live process's temporary file stays" [ -e "$T/s.db.tmp-$$-1" ]
}

case_$CASE
[ $fail = 0 ] && rm -rf "$T"
exit $fail
