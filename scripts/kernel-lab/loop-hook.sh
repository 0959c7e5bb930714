#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# loop-hook.sh - runs inside kernel-lab's guest (as /extra/hook.sh) for
# scripts/kernel-loop.sh: every line of /extra/plan is one run of a workload in a fresh
# memory cgroup, either alone ("plain") or under `memreplay record` ("rec"):
#
#   LABEL MEMORY_MAX plain|rec|recb PROGRAM ARGS...
#
# ("recb": recorded with the options of /extra/recopts-b instead of /extra/recopts, for
# comparing two ways of recording in one boot.)
# PROGRAM is looked up in /extra (the loop's static workloads) and then /bin (kernel-lab's
# memwalk). Per run it prints the sections memory.stat:LABEL, vmstat_delta:LABEL and
# memory.events:LABEL, and for "rec" the recorder's summary (record:LABEL) and the trace
# itself, base64 (trace:LABEL), which the host decodes. The recorder runs outside the
# cgroup (its rings and its store are not charged to it) and starts the workload through
# a shell that moves itself into the cgroup first, as a user would.
P=/extra/plan
MR="/extra/lib/ld-linux-x86-64.so.2 --library-path /extra/lib /extra/memreplay"
RECOPTS=$(cat /extra/recopts 2>/dev/null)
RECOPTS_B=$(cat /extra/recopts-b 2>/dev/null)
VMSTAT_RE='^(pgfault|pgmajfault|pswpin|pswpout|pgscan_|pgsteal_|pgrefill|pgdeactivate|pgactivate|pgrotated|workingset_|pgpgin|pgpgout)'

# /extra/kprobes present: count, per run, MGLRU's agings (try_to_inc_max_seq()) and its
# page-table walks (walk_page_range() from the workload's own reclaim: walk_mm() calls
# it only when mmap_read_trylock() and the memcg lock succeed), mm/vmscan.c
KP=/sys/kernel/tracing
kp_on() {
	[ -f /extra/kprobes ] || return 0
	[ -d $KP/events ] || mount -t tracefs nodev $KP 2>/dev/null
	echo 0 > $KP/tracing_on
	echo > $KP/trace
	echo > $KP/kprobe_events
	echo 'p:mrl/inc try_to_inc_max_seq' >> $KP/kprobe_events || return 0
	echo 'p:mrl/walk walk_page_range' >> $KP/kprobe_events
	KPE="inc walk"
	if [ "$(cat /extra/kprobes)" = 2 ]; then
		# detail: each aging's outcome, and when the workload was switched in and out
		# (lru_gen_use_mm() sets the mm's bit at a switch to it; get_next_mm() clears it)
		echo 'r:mrl/incr try_to_inc_max_seq ret=$retval' >> $KP/kprobe_events && KPE="$KPE incr"
		for f in evict_folios lru_gen_look_around; do
			grep -qw "$f" /proc/kallsyms && echo "p:mrl/$f $f" >> $KP/kprobe_events &&
				KPE="$KPE $f"
		done
		echo 20000 > $KP/buffer_size_kb
		c=$(basename "$1" | cut -c1-15)
		echo "next_comm == \"$c\" || prev_comm == \"$c\"" > $KP/events/sched/sched_switch/filter
		echo 1 > $KP/events/sched/sched_switch/enable
	fi
	for e in $KPE; do
		echo "comm == \"$(basename "$1" | cut -c1-15)\"" > $KP/events/mrl/$e/filter
		echo 1 > $KP/events/mrl/$e/enable
	done
	echo 1 > $KP/tracing_on
}
kp_off() {
	[ -f /extra/kprobes ] || return 0
	echo 0 > $KP/tracing_on
	echo "=== BEGIN kprobes:$1 ==="
	echo "agings=$(grep -c ' inc:' $KP/trace)"
	echo "walks=$(grep -c ' walk:' $KP/trace)"
	# the sequence: I = an aging, W = a walk in it
	grep -o ' inc:\| walk:' $KP/trace | tr -d ' :' | sed 's/inc/I/;s/walk/W/' | tr -d '\n'
	echo
	if [ "$(cat /extra/kprobes)" = 2 ]; then
		echo "=== BEGIN ktrace:$1 ==="
		grep -v '^#' $KP/trace | grep -v ' evict_folios:\| lru_gen_look_around:' |
			sed 's/^ *//' | cut -c1-160
		echo "evict_folios=$(grep -c ' evict_folios:' $KP/trace)"
		echo "look_around=$(grep -c ' lru_gen_look_around:' $KP/trace)"
		echo "=== END ktrace:$1 ==="
		echo 0 > $KP/events/sched/sched_switch/enable
		echo 0 > $KP/events/sched/sched_switch/filter
	fi
	echo "=== END kprobes:$1 ==="
	for e in $KPE; do echo 0 > $KP/events/mrl/$e/enable; done
	echo > $KP/kprobe_events
}

[ -f "$P" ] || { echo "no $P"; exit 1; }
echo "lru_gen_enabled=$(cat /sys/kernel/mm/lru_gen/enabled)"
# a workload that writes files (wl_mix write) needs a writable disk: kernel-lab's is
# read-only, so an ext2 file system (the ext4 driver, no journal) on a second zram device,
# at /wmnt: real block writeback, not charged to the workload's cgroup
if grep -q ' wl_mix write ' "$P"; then
	zd=$(cat /sys/class/zram-control/hot_add 2>/dev/null) &&
		echo 192M > "/sys/block/zram$zd/disksize" && mke2fs -q -b 4096 "/dev/zram$zd" &&
		mkdir -p /wmnt && { mount -t ext2 "/dev/zram$zd" /wmnt 2>/dev/null ||
		mount -t ext4 "/dev/zram$zd" /wmnt; } && echo "wmnt=/dev/zram$zd" || {
		echo "wmnt=none (no zram device for a file system)"; dmesg | tail -5; }
fi
echo "recopts=$RECOPTS"
echo "recopts_b=$RECOPTS_B"
while read -r label mmax how prog args; do
	case "$label" in ''|'#'*) continue ;; esac
	if [ -x "/extra/$prog" ]; then prog=/extra/$prog; else prog=/bin/$prog; fi
	sync
	echo 3 > /proc/sys/vm/drop_caches
	cg=/sys/fs/cgroup/$label
	rmdir "$cg" 2>/dev/null
	mkdir -p "$cg"
	echo "$mmax" > "$cg/memory.max"
	echo "=== BEGIN scenario:$label ==="
	echo "how=$how"; echo "memory_max=$mmax"; echo "command=$prog $args"
	grep -E "$VMSTAT_RE" /proc/vmstat > /tmp/l.before
	kp_on "$prog"
	t0=$(cut -d' ' -f1 /proc/uptime)
	case $how in
	plain)
		# shellcheck disable=SC2086 # ARGS are words
		/bin/sh -c 'echo $$ > '"$cg"'/cgroup.procs; exec "$@"' sh $prog $args >/dev/null 2>&1
		echo "exit_code=$?"
		;;
	rec | recb)
		rm -f /tmp/t.db
		opts=$RECOPTS
		[ "$how" = recb ] && opts=$RECOPTS_B
		# shellcheck disable=SC2086
		$MR record -o /tmp/t.db $opts -- /bin/sh -c \
			'echo $$ > '"$cg"'/cgroup.procs; exec "$@"' sh $prog $args \
			>/tmp/rec.out 2>&1
		echo "exit_code=$?"
		;;
	esac
	t1=$(cut -d' ' -f1 /proc/uptime)
	kp_off "$label"
	grep -E "$VMSTAT_RE" /proc/vmstat > /tmp/l.after
	echo "wall_s=$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.2f", b-a}')"
	echo "=== BEGIN vmstat_delta:$label ==="
	awk 'NR==FNR{b[$1]=$2;next}{d=$2-b[$1]; if(d!=0) print $1, d}' /tmp/l.before /tmp/l.after
	echo "=== END vmstat_delta:$label ==="
	echo "=== BEGIN memory.stat:$label ==="
	cat "$cg/memory.stat"
	echo "=== END memory.stat:$label ==="
	echo "=== BEGIN memory.events:$label ==="
	cat "$cg/memory.events"
	echo "=== END memory.events:$label ==="
	if [ "$how" != plain ]; then
		echo "=== BEGIN record:$label ==="
		cat /tmp/rec.out
		echo "=== END record:$label ==="
		echo "=== BEGIN trace:$label ==="
		[ -f /tmp/t.db ] && base64 /tmp/t.db
		echo "=== END trace:$label ==="
		rm -f /tmp/t.db /tmp/t.db-wal /tmp/t.db-shm
	fi
	echo "=== END scenario:$label ==="
	rmdir "$cg" 2>/dev/null
done < "$P"
