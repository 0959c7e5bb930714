#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# test_record.sh - `memreplay record` from the command line: a recorded command gives a
# store that `info` and `replay` accept; SIGINT stops cleanly (exit 0, store complete);
# bad arguments exit 2 naming the problem; --cgroup checks its directory and records;
# --hw-event records through a libpfm4-encoded event, and the default hardware events fall
# back with one line when there is no PMU.
# Skips (77) when not root.
#   test_record.sh MEMREPLAY WORKLOAD_DIR
set -u
MR=$1
WL=$2
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (perf, tracefs)"; exit 77; }
T=$(mktemp -d "${TMPDIR:-/tmp}/mr-rec-sh.XXXXXX")
fail=0
check() { # check DESCRIPTION COMMAND...
	d=$1; shift
	if "$@"; then echo "ok   $d"; else echo "FAIL $d"; fail=1; fi
}

"$MR" record -o "$T/a.db" --quiet -- "$WL/wl_anon" 1000 "$T/a.out" >"$T/rec.log" 2>&1
check "record a command exits 0" [ $? = 0 ]
"$MR" info "$T/a.db" >"$T/info.log" 2>&1
check "info accepts the store" [ $? = 0 ]
check "info shows faults" grep -q "fault" "$T/info.log"
# root may open CPU-wide events: the rings are mapped on them while the first events
# open, and the events write there (recorder/perf.c, "Rings before the events")
check "the events wrote into CPU-wide rings mapped before them (meta perf.rings)" \
	sh -c "'$MR' query '$T/a.db' \"SELECT value FROM meta WHERE key = 'perf.rings'\" | grep -q 'cpu-wide, mapped before'"
check "... and every touch of the command is there (1000 pages, 1000 faults or more)" \
	[ "$("$MR" query "$T/a.db" --csv "SELECT count(*) FROM events WHERE kind = 'fault'" | tail -1)" -ge 1000 ]
"$MR" replay "$T/a.db" --policy lru --memory 64M -o "$T/r.db" >"$T/replay.log" 2>&1
check "replay --policy lru --memory 64M runs on it" [ $? = 0 ]

# the rings' CPU-wide events are opened beside the command's fork: its exec must not
# inherit them (recorder/perf.c, rec_fork_lock)
"$MR" record -o "$T/fd.db" --quiet -- sh -c 'ls -l /proc/$$/fd/' >"$T/fd.log" 2>&1
check "the recorded command holds no perf event fd of the recorder" \
	sh -c "grep -q ' -> ' '$T/fd.log' && ! grep -q perf_event '$T/fd.log'"

sum0=$(cksum <"$T/a.db")
"$MR" record -o "$T/a.db" --quiet -- sh -c ': > "$1"' sh "$T/ran" >"$T/exists.log" 2>&1
check "an existing output needs --force" [ $? != 0 ]
check "an existing output: the message names it" grep -q "a.db" "$T/exists.log"
check "an existing output: the command does not run" [ ! -e "$T/ran" ]
check "an existing output: it is left as it was" [ "$(cksum <"$T/a.db")" = "$sum0" ]

"$MR" record -o "$T/int.db" --quiet -- sleep 30 >"$T/int.log" 2>&1 &
pid=$!
sleep 1
kill -INT $pid
wait $pid
check "SIGINT stops the recording with exit 0" [ $? = 0 ]
"$MR" query "$T/int.db" "SELECT value FROM meta WHERE key = 'complete'" >"$T/q.log" 2>&1
check "the interrupted store is complete" grep -q 1 "$T/q.log"

"$MR" record -o "$T/x.db" >"$T/usage.log" 2>&1
check "no target: usage error (2)" [ $? = 2 ]
"$MR" record -o "$T/x.db" --sources bogus -- true >"$T/usage2.log" 2>&1
check "bad --sources: usage error (2)" [ $? = 2 ]
"$MR" record -o "$T/x.db" --sources default,-bogus -- true >"$T/usage2b.log" 2>&1
check "bad --sources -NAME: usage error (2)" [ $? = 2 ]
"$MR" record -o "$T/nr.db" -- true >"$T/nr.log" 2>&1
check "default sources: records" [ $? = 0 ]
check "default sources: the kernel refault labels are off, not asked for" \
	grep -q "refault    off: not asked for" "$T/nr.log"
"$MR" record -o "$T/wr.db" --sources default,refault -- true >"$T/wr.log" 2>&1
check "--sources default,refault: records" [ $? = 0 ]
check "--sources default,refault: the kernel labels are on (or say why not)" \
	grep -qE "refault    (on|off: memcg|off: .*tracepoint|off: cannot)" "$T/wr.log"
"$MR" record -o "$T/mr.db" --sources default,refault,-refault -- true >"$T/mr.log" 2>&1
check "--sources default,refault,-refault: -NAME takes it away again" \
	grep -q "refault    off: not asked for" "$T/mr.log"
# pagecache needs tracefs, which record mounts privately when the host has none; only
# where even that is refused (root without CAP_SYS_ADMIN, in a container) is it off,
# and then the summary must say so and name the fix.
if grep -q "tracefs      tracefs not mounted .*mounting it privately failed.*fix: " "$T/mr.log"; then
	echo "note: this host refuses a private tracefs mount: $(grep "tracefs  " "$T/mr.log")"
	check "--sources ...,-refault: the other default sources stay on (pagecache off, said why)" \
		grep -q "pagecache  off: tracefs not mounted" "$T/mr.log"
else
	check "--sources ...,-refault: the other default sources stay on" \
		grep -q "pagecache  on" "$T/mr.log"
fi
check "the summary says where the tracepoint formats were read" \
	grep -qE "^  tracefs      (/sys/kernel/(debug/)?tracing|not mounted on the host|tracefs not mounted)" "$T/mr.log"
# A host as a fresh machine starts, tracefs unmounted (here in a private mount namespace,
# whatever the host has): record mounts one for its setup only and leaves it unmounted.
if command -v unshare >/dev/null && unshare -m true 2>/dev/null; then
	unshare -m --propagation private sh -c '
		umount -l /sys/kernel/debug/tracing 2>/dev/null
		while umount -l /sys/kernel/tracing 2>/dev/null; do :; done
		"$1" record -o "$2/um.db" --sources faults,mmap,pagecache -- true >"$2/um.log" 2>&1
		echo "rc=$?" >>"$2/um.log"
		grep -q " /sys/kernel/tracing tracefs " /proc/self/mounts && echo "left mounted" >>"$2/um.log"
		true' sh "$MR" "$T"
	check "tracefs unmounted: record exits 0" grep -q "^rc=0" "$T/um.log"
	check "tracefs unmounted: pagecache on" grep -q "pagecache  on" "$T/um.log"
	check "tracefs unmounted: the summary says it was mounted privately" \
		grep -q "tracefs      not mounted on the host: mounted at /sys/kernel/tracing in a private mount namespace" "$T/um.log"
	check "tracefs unmounted: left unmounted" sh -c "! grep -q 'left mounted' '$T/um.log'"
else
	echo "note: unshare -m not allowed here: the unmounted-tracefs case is test_record's"
fi
"$MR" record -o "$T/x.db" --ring-size 12K -- true >"$T/usage3.log" 2>&1
check "ring size not a power of two: error" [ $? != 0 ]
"$MR" record -o "$T/cg.db" --cgroup "$T/no-such-cgroup" >"$T/cg.log" 2>&1
check "--cgroup that does not exist: exit 1" [ $? = 1 ]
check "--cgroup that does not exist: says so" grep -q "not a directory" "$T/cg.log"
"$MR" record -o "$T/cg2.db" --quiet --duration 300ms --cgroup /sys/fs/cgroup/memory >"$T/cg2.log" 2>&1
check "--cgroup of the v1 memory root with --duration: exit 0" [ $? = 0 ]

# Charges: a command recorded inside a memory cgroup has its pages charged to that
# cgroup, so a replay can limit that cgroup alone. (The recorder reads a task's cgroup
# from /proc when it decodes the task's first event and its execs; a command that moves
# itself and execs, as kernel-lab's runs do, is followed when the recorder reads the exec
# before the command ends. Here the recorder starts inside the cgroup, so the answer does
# not depend on how far behind the decoding runs.)
CGD=""
for root in /sys/fs/cgroup/memory /sys/fs/cgroup/unified /sys/fs/cgroup; do
	if [ -e "$root/cgroup.procs" ] && mkdir "$root/mr-rec-sh-$$" 2>/dev/null; then
		CGD=$root/mr-rec-sh-$$
		break
	fi
done
if [ -n "$CGD" ]; then
	sh -c 'echo $$ > "$1/cgroup.procs"; exec "$2" record -o "$3" --quiet -- "$4" 3000 "$5"' \
		sh "$CGD" "$MR" "$T/mv.db" "$WL/wl_anon" "$T/mv.out" >"$T/mv.log" 2>&1
	check "record a command inside $CGD: exit 0" [ $? = 0 ]
	"$MR" query "$T/mv.db" --format csv "SELECT count(*) FROM pages p JOIN cgroups g
		ON g.id = p.cgroup WHERE p.type = 0 AND g.path = '/mr-rec-sh-$$'" >"$T/mvq.log" 2>&1
	check "its anon pages are charged to that cgroup (3000 or more)" \
		[ "$(tail -1 "$T/mvq.log")" -ge 3000 ] 2>/dev/null
	"$MR" replay "$T/mv.db" --policy lru --memory "$CGD=4M" --swap 64M -o "$T/mvr.db" >"$T/mvr.log" 2>&1
	check "replay --memory $CGD=4M limits that cgroup: exit 0" [ $? = 0 ]
	"$MR" query "$T/mvr.db" --format csv "SELECT sum(value) FROM counters WHERE name = 'pswpout'" \
		>"$T/mvrq.log" 2>&1
	check "the limited cgroup swapped (3000 pages in 4M)" [ "$(tail -1 "$T/mvrq.log")" -gt 1000 ] 2>/dev/null
	# A shell that moves itself and forks (no exec): the move is followed as it happens
	# (cgroup:cgroup_attach_task), so the child it forks after the move is charged there.
	"$MR" record -o "$T/mv2.db" --quiet -- sh -c 'echo $$ > "$1/cgroup.procs"; "$2" 3000 "$3"; true' \
		sh "$CGD" "$WL/wl_anon" "$T/mv2.out" >"$T/mv2.log" 2>&1
	check "record a shell that moves itself into $CGD: exit 0" [ $? = 0 ]
	# (tracepoints readable: every kernel with them has cgroup's, kernel/cgroup/cgroup.c)
	if "$MR" query "$T/mv2.db" --format csv "SELECT value FROM meta WHERE key = 'tracepoint.filemap:mm_filemap_add_to_page_cache'" | grep -q ino@; then
		moves=$("$MR" query "$T/mv2.db" --format csv "SELECT value FROM meta WHERE key = 'cgroup.moves'" | tail -1)
		check "the move is followed ($moves)" [ "${moves:-0}" -ge 1 ] 2>/dev/null
		n=$("$MR" query "$T/mv2.db" --format csv "SELECT count(*) FROM pages p JOIN cgroups g
			ON g.id = p.cgroup WHERE p.type = 0 AND g.path = '/mr-rec-sh-$$'" | tail -1)
		check "its child's anon pages are charged to that cgroup ($n)" [ "${n:-0}" -ge 3000 ] 2>/dev/null
	else
		echo "note: no tracepoints readable here: moves are followed at exec only"
	fi
	rmdir "$CGD" 2>/dev/null
else
	echo "note: no memory cgroup could be made here: the charge case is skipped"
fi

# Writes: write() dirtying page-cache folios is recorded (writeback_dirty_folio) as
# FD_ACCESS events with the write bit and source 4 (MR_SRC_DIRTY), for every page of each
# folio; the file is written beside the workloads (a disk file system: tmpfs has no
# MAJOR:MINOR bdi to name it by).
"$MR" record -o "$T/dw.db" --quiet -- "$WL/wl_mix" write "$WL/dirty-$$.bin" 4 1 >"$T/dw.log" 2>&1
check "record a writer: exit 0" [ $? = 0 ]
rm -f "$WL/dirty-$$.bin"
dirtied=$("$MR" query "$T/dw.db" --format csv "SELECT value FROM meta WHERE key = 'pagecache.dirtied'" | tail -1)
unmatched=$("$MR" query "$T/dw.db" --format csv "SELECT value FROM meta WHERE key = 'pagecache.dirtied_unmatched'" | tail -1)
if [ "${dirtied:-0}" = 0 ] && [ "${unmatched:-0}" != 0 ]; then
	echo "note: the build directory's file system has no MAJOR:MINOR bdi: dirtying is counted only"
elif "$MR" query "$T/dw.db" --format csv "SELECT value FROM meta WHERE key = 'tracepoint.writeback:writeback_dirty_folio'" | grep -q ino@; then
	pages=$("$MR" query "$T/dw.db" --format csv "SELECT sum(size) FROM events WHERE kind = 'fd_access' AND flags = 66" | tail -1)
	check "the 1024 written pages are recorded dirtied ($pages)" [ "${pages:-0}" -ge 1024 ] 2>/dev/null
	"$MR" replay "$T/dw.db" --policy lru --memory 64M -o "$T/dwr.db" >/dev/null 2>&1
	d=$("$MR" query "$T/dwr.db" --format csv "SELECT value FROM vmstat WHERE name = 'mr_file_dirtied'" | tail -1)
	check "the replay dirties them ($d)" [ "${d:-0}" -ge 1024 ] 2>/dev/null
else
	echo "note: this kernel has no writeback:writeback_dirty_folio: writes are seen as inserts only"
fi

# Copy-on-write: writes to a private file mapping make anonymous copies (do_cow_fault(),
# wp_page_copy()): the trace has them as anon pages of the mm at those addresses, and a
# replay swaps them instead of dirtying and writing back the file. Half the pages are read
# before they are written (mapped read-only first), half are written first. The write bit
# of a fault comes from exceptions:page_fault_user: without it a fault is a read.
dd if=/dev/zero of="$WL/cow-$$.bin" bs=1M count=8 2>/dev/null
"$MR" record -o "$T/cow.db" --quiet -- "$WL/wl_mix" cow "$WL/cow-$$.bin" 1 >"$T/cow.log" 2>&1
check "record a private file mapping's writer: exit 0" [ $? = 0 ]
rm -f "$WL/cow-$$.bin"
paired=$("$MR" query "$T/cow.db" --format csv "SELECT value FROM meta WHERE key = 'fault_rw.paired'" | tail -1)
if [ "${paired:-0}" -ge 2048 ] 2>/dev/null; then
	cow=$("$MR" query "$T/cow.db" --format csv "SELECT value FROM meta WHERE key = 'cow.private_file_pages'" | tail -1)
	check "the 2048 copied pages are counted ($cow)" [ "${cow:-0}" -ge 2048 ] 2>/dev/null
	anon=$("$MR" query "$T/cow.db" --format csv "SELECT count(DISTINCT p.id) FROM pages p JOIN vmas v
		ON v.mm = p.mm AND p.vpage * 4096 >= v.start AND p.vpage * 4096 < v.\"end\"
		WHERE p.type = 0 AND v.file = (SELECT id FROM files WHERE path LIKE '%cow-$$.bin')" | tail -1)
	check "they are anon pages inside the file's mapping ($anon)" [ "${anon:-0}" -ge 2048 ] 2>/dev/null
	"$MR" replay "$T/cow.db" --policy lru --memory 4M --swap 64M -o "$T/cowr.db" >/dev/null 2>&1
	d=$("$MR" query "$T/cowr.db" --format csv "SELECT value FROM vmstat WHERE name = 'mr_flusher_writebacks'" | tail -1)
	check "the replay writes back none of the file's pages ($d)" [ "${d:-9}" -le 8 ] 2>/dev/null
	o=$("$MR" query "$T/cowr.db" --format csv "SELECT value FROM vmstat WHERE name = 'pswpout'" | tail -1)
	check "the replay swaps the copies out ($o pages in 4M)" [ "${o:-0}" -ge 1000 ] 2>/dev/null
else
	echo "note: no write bits on faults here (fault_rw.paired ${paired:-0}): the copy-on-write case is skipped"
fi

# Hardware sampling: a libpfm4-encoded software event stands in for the PMU these VMs lack.
"$MR" record -o "$T/hw.db" --quiet --sources mmap,hwsample --hw-event perf::PERF_COUNT_SW_PAGE_FAULTS \
	--hw-period 1 -- "$WL/wl_anon" 500 "$T/hw.out" >"$T/hw.log" 2>&1
check "--hw-event perf::PERF_COUNT_SW_PAGE_FAULTS --hw-period 1: exit 0" [ $? = 0 ]
"$MR" query "$T/hw.db" "SELECT value FROM meta WHERE key = 'hwsample.events'" >"$T/hwq.log" 2>&1
check "--hw-event: the metadata names the event" grep -q "^perf::PERF_COUNT_SW_PAGE_FAULTS$" "$T/hwq.log"
"$MR" record -o "$T/x.db" --hw-period 0 -- true >"$T/usage4.log" 2>&1
check "--hw-period 0: usage error (2)" [ $? = 2 ]
"$MR" record -o "$T/x.db" --sources faults --hw-event perf::PAGE-FAULTS -- true >"$T/usage5.log" 2>&1
check "--hw-event without hwsample in --sources: usage error (2)" [ $? = 2 ]
if [ ! -e /sys/bus/event_source/devices/cpu ] && [ ! -e /sys/bus/event_source/devices/ibs_op ]; then
	"$MR" record -o "$T/hwfb.db" --quiet --sources faults,hwsample -- true >"$T/hwfb.log" 2>&1
	check "no PMU: the default hardware events fall back, exit 0" [ $? = 0 ]
	check "no PMU: --quiet still says so once, with the errno" \
		[ "$(grep -c 'hwsample off: hardware event .*ENOENT' "$T/hwfb.log")" = 1 ]
fi

[ $fail = 0 ] && rm -rf "$T"
exit $fail
