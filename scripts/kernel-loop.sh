#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernel-loop.sh - the closed loop on a real MGLRU kernel: record workloads inside
# kernel-lab's 6.12 guest with `memreplay record`, bring the traces back, replay each at
# its cgroup's memory.max and print the kernel's counters beside the replay's. Every
# scenario also runs without the recorder (RUNS times), which gives the kernel's own
# spread and what recording perturbs. See docs/validation.md ("The closed loop").
#
#   scripts/kernel-loop.sh [OUT_DIR]
#
# Environment:
#   SCENARIOS  "label:memory.max:program:arg,arg,..." (default: the anon walks rand,
#              randpass, seq and rev; file mmap with and without MADV_RANDOM; fread; a
#              build-like mix; a private file mapping written and read back, cow); programs are kernel-lab's memwalk or traces/wl_mix.c;
#              /mnt/data.bin is kernel-lab's 256 MiB file on an ext4 disk
#   RUNS       plain (unrecorded) runs per scenario (default 3)
#   RECRUNS    recorded runs per scenario (default 1)
#   RECOPTS    extra `memreplay record` options (default none: the default recording)
#   RECRUNS_B  runs recorded with RECOPTS_B instead (default 0; labels LABEL.qN), to set
#              two ways of recording side by side in one boot
#   POLICY     the replay policy (default mglru:kernel=6.12.95, the guest's kernel)
#   KLAB_OUT   an earlier kernel-lab output folder to use instead of booting the guest
#   KERNEL_LAB the kernel-lab folder (default: shared/kernel-lab beside the repository)
#   BOOTS      boot the guest this many times (default 1), into OUT_DIR/kernel.N
#   KPROBES    1: count MGLRU's agings and page-table walks per run with two kprobes;
#              2: also each aging's return value and the workload's switches, in time
#              (section kprobes:LABEL of the guest's output)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
OUT=${1:-$ROOT/build/kernel-loop}
DEF="rand:128M:memwalk:anon,192,3,rand,7 randpass:128M:memwalk:anon,192,3,randpass,7"
DEF+=" seq:128M:memwalk:anon,192,2,seq,1 rev:128M:memwalk:anon,192,3,rev,1"
DEF+=" mmaprand:128M:wl_mix:mmap,/mnt/data.bin,2,rand,3,random"
DEF+=" mmapnorm:128M:wl_mix:mmap,/mnt/data.bin,2,rand,3,normal"
DEF+=" fread:128M:memwalk:fread,/mnt/data.bin,2,seq,1 build:64M:wl_mix:build,/mnt/data.bin,40,5"
DEF+=" cow:128M:wl_mix:cow,/mnt/data.bin,2"
SCENARIOS=${SCENARIOS:-$DEF}
RUNS=${RUNS:-3}
RECRUNS=${RECRUNS:-1}
RECOPTS=${RECOPTS:-}
RECRUNS_B=${RECRUNS_B:-0}
RECOPTS_B=${RECOPTS_B:-}
POLICY=${POLICY:-mglru:kernel=6.12.95}
KERNEL_LAB=${KERNEL_LAB:-$ROOT/../shared/kernel-lab}
BOOTS=${BOOTS:-1}
MR=$ROOT/build/memreplay
mkdir -p "$OUT"

[ -x "$MR" ] || scripts/build.sh >/dev/null

# The guest: memreplay with the shared libraries it was linked against (and their loader),
# the workloads built static, the hook, the plan.
extra=$OUT/extra
rm -rf "$extra" && mkdir -p "$extra/lib"
cp "$MR" "$extra/memreplay"
ldd "$MR" | awk '/=> \//{print $3} /^\t\/lib/{print $1}' | while read -r lib; do
	cp -L "$lib" "$extra/lib/"
done
gcc -O2 -static -o "$extra/wl_mix" traces/wl_mix.c
cp scripts/kernel-lab/loop-hook.sh "$extra/hook.sh"
printf '%s\n' "$RECOPTS" >"$extra/recopts"
printf '%s\n' "$RECOPTS_B" >"$extra/recopts-b"
[ "${KPROBES:-0}" != 0 ] && echo "$KPROBES" >"$extra/kprobes"
{
	for sc in $SCENARIOS; do
		IFS=: read -r label mmax prog args <<<"$sc"
		# interleaved, so that a drift of the guest over the boot hits both alike
		r=0 p=0 q=0
		while [ $p -lt "$RUNS" ] || [ $r -lt "$RECRUNS" ] || [ $q -lt "$RECRUNS_B" ]; do
			[ $p -lt "$RUNS" ] && { echo "$label.p$p $mmax plain $prog ${args//,/ }"; p=$((p + 1)); }
			[ $r -lt "$RECRUNS" ] && { echo "$label.r$r $mmax rec $prog ${args//,/ }"; r=$((r + 1)); }
			[ $q -lt "$RECRUNS_B" ] && { echo "$label.q$q $mmax recb $prog ${args//,/ }"; q=$((q + 1)); }
		done
	done
} >"$extra/plan"

if [ -z "${KLAB_OUT:-}" ]; then
	[ -x "$KERNEL_LAB/run-guest.sh" ] || {
		echo "kernel-loop: no kernel-lab at $KERNEL_LAB (set KERNEL_LAB)" >&2; exit 1; }
	for b in $(seq 1 "$BOOTS"); do
		ko=$OUT/kernel.$b
		echo "== boot $b/$BOOTS: $(wc -l <"$extra/plan") runs in the 6.12 guest -> $ko" >&2
		OUT=$ko SCENARIOS="warm:anon:1:1:seq:1:64M" EXTRAS=0 GUEST_EXTRA=$extra MEM=${MEM:-2G} \
			QEMU_TIMEOUT=${QEMU_TIMEOUT:-7200} "$KERNEL_LAB/run-guest.sh" >"$OUT/kernel-lab.$b.log" 2>&1 || {
			echo "kernel-loop: kernel-lab failed; see $OUT/kernel-lab.$b.log" >&2; exit 1; }
	done
	KLAB_OUT=$(for b in $(seq 1 "$BOOTS"); do printf '%s ' "$OUT/kernel.$b"; done)
fi
exec scripts/kernel-loop-report.sh "$OUT" $KLAB_OUT
