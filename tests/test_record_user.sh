#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# test_record_user.sh MEMREPLAY WORKLOADS_DIR
#
# `memreplay record` of one's own command without root (issue 16): at perf_event_paranoid
# <= 2 the faults, maps, tasks and switches of the command need no privilege, as for the
# perf tool; the recorder then samples user mode only (exclude_kernel, which paranoid 2
# requires) in rings that fit perf_event_mlock_kb, says so in the faults source, and
# turns the root-only sources off with the reason. At paranoid >= 3 (Debian's own
# kernels; upstream treats 3 as 2) perf may be closed to users: then the recording must
# fail naming the sysctl and leave no file. Run as root, which drops to nobody for the recording (77: not root).
MR=$(realpath "$1")
WL=$(realpath "$2")
[ "$(id -u)" = 0 ] || { echo "skip: needs root to drop to an unprivileged user"; exit 77; }
command -v setpriv >/dev/null || { echo "FAIL: setpriv (util-linux) missing"; exit 1; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
check() { what=$1; shift; if "$@"; then echo "ok   $what"; else echo "FAIL $what"; fail=$((fail + 1)); fi; }

# the build tree may sit under a directory nobody cannot enter: copies in a world-readable one
chmod 755 "$T"
cp "$MR" "$T/memreplay"
cp "$WL/wl_faultbench" "$T/wl_faultbench"
mkdir "$T/out" && chmod 777 "$T/out"
N=2000
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)
as_user() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }

as_user "$T/memreplay" record -o "$T/out/u.db" -- "$T/wl_faultbench" $N >"$T/out.txt" 2>"$T/err.txt"
rc=$?
if [ "$paranoid" -ge 3 ] && [ $rc != 0 ]; then
	# Debian's kernels close perf to users at 3 (upstream treats 3 as 2)
	echo "note: perf_event_paranoid is $paranoid and this kernel closes perf to unprivileged users"
	check "the message names perf_event_paranoid and the fix" \
		grep -q "perf_event_paranoid is $paranoid.*fix:" "$T/err.txt"
	check "no trace left behind" [ ! -e "$T/out/u.db" ]
	exit $((fail != 0))
fi
check "recorded as nobody (rc $rc)" [ $rc = 0 ]
[ $rc = 0 ] || { cat "$T/err.txt"; exit 1; }
q() { "$MR" query "$T/out/u.db" --csv "$1" | tail -n +2; }
faults=$(q "SELECT count(*) FROM events WHERE kind = 'fault'")
check "the command's faults are there ($faults, it touches $N pages)" [ "$faults" -ge $N ]
check "its maps are there (VMA rows)" [ "$(q "SELECT count(*) FROM vmas")" -gt 5 ]
check "its task is there" [ "$(q "SELECT count(*) FROM tasks WHERE comm = 'wl_faultbench'")" -ge 1 ]
check "the trace is complete" [ "$(q "SELECT value FROM meta WHERE key = 'complete'")" = 1 ]
if [ "$paranoid" -ge 2 ]; then
	check "user mode only, in the options" \
		sh -c "'$MR' query '$T/out/u.db' \"SELECT value FROM meta WHERE key = 'record.options'\" | grep -q user_only=1"
	check "... and the faults source says what is missing and the fix" \
		sh -c "'$MR' query '$T/out/u.db' \"SELECT value FROM meta WHERE key = 'source.faults'\" | grep -q 'user-mode faults only.*fix:'"
fi
# CPU-wide events need CAP_PERFMON or perf_event_paranoid <= 0: above that the rings are
# the events' own and the trace says why (recorder/perf.c, "Rings before the events")
if [ "$paranoid" -ge 1 ]; then
	check "the events' own rings, and why not CPU-wide ones (meta perf.rings)" \
		sh -c "'$MR' query '$T/out/u.db' \"SELECT value FROM meta WHERE key = 'perf.rings'\" | grep -q \"the events' own (CPU-wide ones: \""
else
	# allowed, but a user's rings are also held to perf_event_mlock_kb per CPU, which
	# the default rings exceed on more than one CPU: either, the fallback with its step
	check "CPU-wide rings at perf_event_paranoid $paranoid, or why not (meta perf.rings)" \
		sh -c "'$MR' query '$T/out/u.db' \"SELECT value FROM meta WHERE key = 'perf.rings'\" | grep -qE \"cpu-wide, mapped|the events' own \\(CPU-wide ones: [A-Za-z]\""
fi
check "root-only sources off with the reason (pagecache)" \
	sh -c "'$MR' query '$T/out/u.db' \"SELECT value FROM meta WHERE key = 'source.pagecache'\" | grep -q 'root\\|denied\\|Permission'"
check "the trace replays" "$MR" replay "$T/out/u.db" --policy lru --memory 4M -q -o "$T/r.db"
exit $((fail != 0))
