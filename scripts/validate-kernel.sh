#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# validate-kernel.sh - the mglru model beside a real MGLRU kernel on the same accesses.
#
# Boots Debian's 6.12 kernel (MGLRU on) under QEMU with kernel-lab (a harness kept
# outside this repository: run-guest.sh, its memwalk walker and hooks), runs
# kernel-lab's `memwalk anon` workloads in a memory cgroup with zram swap, then builds the
# same access sequences with `memreplay gen memwalk` (touch for touch: same permutation
# from the same seed), replays them through mglru (and lru and opt for scale) with
# --memory set to the cgroup's memory.max, and prints the cgroup's memory.stat counters
# beside the model's (pgscan, pgsteal and pswpout without the reclaim of kernel-lab's
# debugfs eviction after the last pass, which the trace does not contain). See
# docs/validation.md for what to expect and why they differ.
#
#   scripts/validate-kernel.sh [OUT_DIR]
#
# Environment:
#   SCENARIOS  kernel-lab scenarios, anon only: "name:anon:size_mib:passes:pattern:seed:memory.max ..."
#              (pattern seq, rev, rand or randpass); default: three 192 MiB walks at 128M
#   KLAB_OUT   an earlier kernel-lab output folder to use instead of booting the guest
#   KERNEL_LAB the kernel-lab folder (default: a folder shared/kernel-lab beside this
#              repository's parent, where the project's machines keep it)
#   POLICIES   policies to replay (default "mglru lru opt"); specs may carry parameters,
#              e.g. "mglru mglru:kernel=6.12 lru opt" (a ratio column per mglru spec)
#   MEMREPLAY  the memreplay binary (default build/memreplay)
#   KERNEL_LRU mglru (default) or classic: boot with MGLRU switched off before the walks
#              (scripts/kernel-lab/classic-lru-hook.sh runs them after a 1 MiB warm-up
#              scenario), for the `lru` model; POLICIES then defaults to "lru" and the
#              ratio columns are for the lru specs
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
OUT=${1:-$ROOT/build/validate}
SCENARIOS=${SCENARIOS:-"r192:anon:192:3:rand:7:128M rp192:anon:192:3:randpass:7:128M s192:anon:192:2:seq:1:128M"}
KERNEL_LAB=${KERNEL_LAB:-$ROOT/../shared/kernel-lab}
KERNEL_LRU=${KERNEL_LRU:-mglru}
case $KERNEL_LRU in
mglru) POLICIES=${POLICIES:-"mglru lru opt"}; RATIO=mglru ;;
classic) POLICIES=${POLICIES:-"lru"}; RATIO=lru ;;
*) echo "validate-kernel: KERNEL_LRU=$KERNEL_LRU: use mglru or classic" >&2; exit 1 ;;
esac
MR=${MEMREPLAY:-$ROOT/build/memreplay}
mkdir -p "$OUT"

[ -x "$MR" ] || scripts/build.sh

if [ -z "${KLAB_OUT:-}" ]; then
	[ -x "$KERNEL_LAB/run-guest.sh" ] || {
		echo "validate-kernel: no kernel-lab at $KERNEL_LAB (set KERNEL_LAB)" >&2; exit 1; }
	KLAB_OUT=$OUT/kernel
	if [ "$KERNEL_LRU" = classic ]; then
		# kernel-lab's own scenarios run with MGLRU on: only a 1 MiB warm-up there; the
		# hook switches MGLRU off and runs ours
		extra=$OUT/classic-extra
		rm -rf "$extra" && mkdir -p "$extra"
		cp scripts/kernel-lab/classic-lru-hook.sh "$extra/hook.sh"
		for sc in $SCENARIOS; do echo "$sc"; done >"$extra/scenarios"
		echo "== booting the 6.12 kernel, MGLRU off (kernel-lab; 2-5 minutes) -> $KLAB_OUT" >&2
		OUT=$KLAB_OUT SCENARIOS="warm:anon:1:1:seq:1:64M" EXTRAS=0 GUEST_EXTRA=$extra \
			"$KERNEL_LAB/run-guest.sh" >"$OUT/kernel-lab.log" 2>&1 || {
			echo "validate-kernel: kernel-lab failed; see $OUT/kernel-lab.log" >&2; exit 1; }
	else
		echo "== booting the MGLRU kernel (kernel-lab; 2-5 minutes) -> $KLAB_OUT" >&2
		OUT=$KLAB_OUT SCENARIOS="$SCENARIOS" EXTRAS=0 "$KERNEL_LAB/run-guest.sh" >"$OUT/kernel-lab.log" 2>&1 || {
			echo "validate-kernel: kernel-lab failed; see $OUT/kernel-lab.log" >&2; exit 1; }
	fi
fi
RES=$KLAB_OUT/results.txt
[ -s "$RES" ] || { echo "validate-kernel: no $RES" >&2; exit 1; }

# section NAME: the lines between "=== BEGIN NAME ===" and "=== END NAME ===" of results.txt
section() { awk -v s="$1" '$0=="=== BEGIN " s " ==="{on=1;next} $0=="=== END " s " ==="{on=0} on' "$RES" | tr -d '\r'; }

pattern_no() {
	case "$1" in seq) echo 0 ;; rev) echo 1 ;; rand) echo 2 ;; randpass) echo 3 ;;
	*) echo "validate-kernel: pattern $1 has no memwalk generator equivalent" >&2; return 1 ;; esac
}

. scripts/kernel-lab/counters.sh # replayed RESULTS COUNTER RUN

COUNTERS="pgfault pgmajfault pswpin pswpout workingset_refault_anon workingset_activate_anon workingset_restore_anon pgscan pgsteal pgactivate pgdeactivate"

for sc in $SCENARIOS; do
	IFS=: read -r name mode size passes pat seed mmax <<<"$sc"
	[ "$mode" = anon ] || { echo "validate-kernel: $name: only anon scenarios are modelled" >&2; continue; }
	# the cgroup's memory.stat, and pswpin/pswpout from the /proc/vmstat delta around the
	# scenario (memory.stat has no swap counters in 6.12; the cgroup runs alone)
	{ section "memory.stat:$name"; section "vmstat_delta:$name" | grep -E '^pswp(in|out) '; } \
		>"$OUT/$name.kernel.stat"
	if [ ! -s "$OUT/$name.kernel.stat" ]; then
		echo "validate-kernel: $name: no memory.stat in $RES" >&2; continue
	fi
	# kernel-lab's snap runs the lru_gen debugfs commands after the last pass ('+' aging,
	# then '-' eviction of EVICT_PAGES) and memory.stat is read after them; the trace has
	# no such commands. Take their reclaim back out of pgscan, pgsteal and pswpout: the
	# difference between the memory.stat line printed after the commands and the one of
	# the last pass's snapshot (each page they stole was written to swap).
	last=$(section "lru_gen:$name:pass$((passes - 1))" | grep '^memory.stat:' || true)
	after=$(section "lru_gen_debugfs_cmds:$name" | { grep '^memory.stat:' || true; } | tail -1)
	if [ -n "$last" ] && [ -n "$after" ]; then
		awk -v last="$last" -v after="$after" '
			function get(line, key,   n, i, f) {
				n = split(line, f, " ")
				for (i = 1; i < n; i++) if (f[i] == key) return f[i + 1] + 0
				return 0
			}
			BEGIN { ds = get(after, "pgscan") - get(last, "pgscan")
				dt = get(after, "pgsteal") - get(last, "pgsteal") }
			$1 == "pgscan" { $2 -= ds }
			$1 == "pgsteal" || $1 == "pswpout" { $2 -= dt }
			{ print }' "$OUT/$name.kernel.stat" >"$OUT/$name.kernel.stat.tmp"
		mv "$OUT/$name.kernel.stat.tmp" "$OUT/$name.kernel.stat"
	fi
	trace=$OUT/$name.db
	rm -f "$trace" "$trace-wal" "$trace-shm" "$OUT/$name.results.db"
	"$MR" gen memwalk --size "${size}M" --passes "$passes" --pattern "$(pattern_no "$pat")" \
		--seed "$seed" -o "$trace" >/dev/null
	args=()
	for p in $POLICIES; do args+=(--policy "$p"); done
	# kernel-lab swaps to zram, a synchronous device: writeback ends inside pageout
	"$MR" replay "$trace" "${args[@]}" --memory "$mmax" --writeback-delay sync \
		-o "$OUT/$name.results.db" -q \
		--no-timing >/dev/null
	echo "== $name: memwalk anon ${size} MiB, $passes passes, $pat, seed $seed, memory.max $mmax"
	printf '%-26s %12s' counter kernel
	for p in $POLICIES; do printf ' %12s' "$p"; done
	# one ratio column per mglru spec (e.g. "mglru mglru:kernel=6.12"), or per lru spec
	# against a classic-LRU kernel
	for p in $POLICIES; do case $p in $RATIO|$RATIO:*) printf ' %9s' "${p#"$RATIO"}/k" ;; esac; done
	printf '\n'
	for c in $COUNTERS; do
		k=$(awk -v c="$c" '$1==c{print $2}' "$OUT/$name.kernel.stat")
		[ -n "$k" ] || continue
		printf '%-26s %12s' "$c" "$k"
		i=0; mg=()
		for p in $POLICIES; do
			i=$((i + 1))
			v=$(replayed "$OUT/$name.results.db" "$c" "$i")
			case $p in $RATIO|$RATIO:*) mg+=("$v") ;; esac
			printf ' %12s' "$v"
		done
		for v in "${mg[@]}"; do
			if [ "$k" -gt 0 ]; then
				awk -v a="$v" -v b="$k" 'BEGIN{printf " %9.3f", a/b}'
			else
				printf ' %9s' -
			fi
		done
		printf '\n'
	done
done
