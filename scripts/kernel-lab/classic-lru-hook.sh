#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# classic-lru-hook.sh - runs inside kernel-lab's guest (as /extra/hook.sh, after its own
# scenarios): switches MGLRU off (/sys/kernel/mm/lru_gen/enabled = n, so reclaim takes
# the classic active/inactive path of mm/vmscan.c) and runs the memwalk scenarios listed
# in /extra/scenarios (one "name:anon:size_mib:passes:pattern:seed:memory.max" per line)
# the way kernel-lab's init runs its own, printing the same sections (memory.stat:NAME,
# vmstat_delta:NAME), so scripts/validate-kernel.sh can set them beside memreplay's `lru`.
T=/extra/scenarios
VMSTAT_RE='^(pgfault|pgmajfault|pswpin|pswpout|pgscan_|pgsteal_|pgrefill|pgdeactivate|pgactivate|pgrotated|workingset_)'

echo n > /sys/kernel/mm/lru_gen/enabled
echo "lru_gen_enabled=$(cat /sys/kernel/mm/lru_gen/enabled)"
[ -f "$T" ] || { echo "no $T"; exit 1; }
while IFS=: read -r name mode size passes pat seed mmax; do
	[ -n "$name" ] || continue
	[ "$mode" = anon ] || { echo "skip $name: only anon walks"; continue; }
	sync
	echo 3 > /proc/sys/vm/drop_caches
	cg=/sys/fs/cgroup/$name
	mkdir -p "$cg"
	echo "$mmax" > "$cg/memory.max"
	echo "=== BEGIN scenario:$name ==="
	echo "mode=$mode"; echo "arg=$size"; echo "passes=$passes"; echo "pattern=$pat"
	echo "seed=$seed"; echo "memory_max=$mmax"; echo "lru=classic"
	grep -E "$VMSTAT_RE" /proc/vmstat > /tmp/c.before
	/bin/sh -c 'echo $$ > '"$cg"'/cgroup.procs; exec /bin/memwalk "$@"' sh \
		"$mode" "$size" "$passes" "$pat" "$seed" >/dev/null 2>&1
	echo "exit_code=$?"
	grep -E "$VMSTAT_RE" /proc/vmstat > /tmp/c.after
	echo "=== BEGIN vmstat_delta:$name ==="
	awk 'NR==FNR{b[$1]=$2;next}{d=$2-b[$1]; if(d!=0) print $1, d}' /tmp/c.before /tmp/c.after
	echo "=== END vmstat_delta:$name ==="
	echo "=== BEGIN memory.stat:$name ==="
	cat "$cg/memory.stat"
	echo "=== END memory.stat:$name ==="
	echo "=== END scenario:$name ==="
done < "$T"
