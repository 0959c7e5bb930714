#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# test_validation.sh MEMREPLAY SRC_DIR
#
# The mglru model as the kernel-lab kernel (kernel=6.12.95) against that real kernel's
# counters shipped in traces/kernel-lab (docs/validation.md): on the repeated random walk
# and the sequential walk of 192 MiB in a 128M cgroup (run a), and on the repeated random
# walk of 128 MiB in 96M and the reverse walk of 160 MiB in 128M (run c), the model's anon
# refaults, activations, pgscan and pgsteal are within 5 % of the kernel's; on run a's
# two walks it counts no pgactivate, like the kernel; on the randpass walks (run a rp192,
# run c p256) refaults and pgscan within 5 % and activations within 10 %. And
# kernel=6.12 (Debian's 6.12.117 source) against a boot of the 6.12.117 binary: refaults
# and activations within 5 % on rand, randpass and seq, randpass pgactivate within 5 %.
# The lru model against the same kernel with MGLRU off (classic-a and -b): on the rand,
# seq and rev walks refaults, pgscan and pgsteal within 2 % and no workingset
# activations, as in the kernel; on the randpass walks refaults and pgscan within 5 %
# (its activations are not yet close; see docs/validation.md). A model change that moves
# these fails here; if it is deliberate, re-run scripts/validate-kernel.sh and update
# docs/validation.md with the new comparison.
set -u
MR=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
SRC=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0
fail=0
check() { # NAME CONDITION-COMMAND...
	local name=$1
	shift
	if "$@"; then pass=$((pass + 1)); echo "ok   $name"; else fail=$((fail + 1)); echo "FAIL $name"; fi
}
MEMREPLAY=$MR KLAB_OUT=$SRC/traces/kernel-lab/2026-11-30-a \
	SCENARIOS="r192:anon:192:3:rand:7:128M rp192:anon:192:3:randpass:7:128M s192:anon:192:2:seq:1:128M" \
	POLICIES="mglru:kernel=6.12.95" "$SRC/scripts/validate-kernel.sh" "$T" >"$T/out.txt" 2>"$T/err.txt"
check "validate-kernel.sh runs on the shipped kernel results (run a)" [ $? = 0 ]
MEMREPLAY=$MR KLAB_OUT=$SRC/traces/kernel-lab/2026-11-30-c \
	SCENARIOS="p256:anon:256:4:randpass:3:160M r128:anon:128:4:rand:5:96M v160:anon:160:3:rev:1:128M" \
	POLICIES="mglru:kernel=6.12.95" "$SRC/scripts/validate-kernel.sh" "$T" >>"$T/out.txt" 2>>"$T/err.txt"
check "validate-kernel.sh runs on the shipped kernel results (run c)" [ $? = 0 ]
MEMREPLAY=$MR KERNEL_LRU=classic KLAB_OUT=$SRC/traces/kernel-lab/2026-11-30-classic-a \
	SCENARIOS="c-r192:anon:192:3:rand:7:128M c-rp192:anon:192:3:randpass:7:128M c-s192:anon:192:2:seq:1:128M" \
	POLICIES="lru" "$SRC/scripts/validate-kernel.sh" "$T" >>"$T/out.txt" 2>>"$T/err.txt"
check "validate-kernel.sh runs on the shipped classic-LRU results (classic-a)" [ $? = 0 ]
MEMREPLAY=$MR KERNEL_LRU=classic KLAB_OUT=$SRC/traces/kernel-lab/2026-11-30-classic-b \
	SCENARIOS="c-p256:anon:256:4:randpass:3:160M c-r128:anon:128:4:rand:5:96M c-v160:anon:160:3:rev:1:128M" \
	POLICIES="lru" "$SRC/scripts/validate-kernel.sh" "$T" >>"$T/out.txt" 2>>"$T/err.txt"
check "validate-kernel.sh runs on the shipped classic-LRU results (classic-b)" [ $? = 0 ]
# the package's own kernel (6.12.117) against kernel=6.12: scenario names get a k117-
# prefix in the output so the checks below can tell them from run a's
MEMREPLAY=$MR KLAB_OUT=$SRC/traces/kernel-lab/2026-11-30-k117-a \
	SCENARIOS="r192:anon:192:3:rand:7:128M rp192:anon:192:3:randpass:7:128M s192:anon:192:2:seq:1:128M" \
	POLICIES="mglru:kernel=6.12" "$SRC/scripts/validate-kernel.sh" "$T/k117" 2>>"$T/err.txt" |
	sed 's/^== /== k117-/' >>"$T/out.txt"
check "validate-kernel.sh runs on the shipped 6.12.117 results" [ "${PIPESTATUS[0]}" = 0 ]
cat "$T/out.txt"
# row: counter kernel model ratio
within() { # SCENARIO COUNTER LO HI
	awk -v s="$1" -v c="$2" -v lo="$3" -v hi="$4" '
		/^== / { cur = $2; sub(":", "", cur) }
		cur == s && $1 == c { found = 1; ok = ($4 + 0 >= lo && $4 + 0 <= hi) }
		END { exit !(found && ok) }' "$T/out.txt"
}
model_is() { # SCENARIO COUNTER VALUE
	awk -v s="$1" -v c="$2" -v v="$3" '
		/^== / { cur = $2; sub(":", "", cur) }
		cur == s && $1 == c { found = 1; ok = ($3 == v) }
		END { exit !(found && ok) }' "$T/out.txt"
}
for s in r192 s192 r128 v160; do
	check "$s: refaults within 5 % of the kernel's" within $s workingset_refault_anon 0.95 1.05
	check "$s: activations within 5 % of the kernel's" within $s workingset_activate_anon 0.95 1.05
	check "$s: pgscan within 5 % of the kernel's" within $s pgscan 0.95 1.05
	check "$s: pgsteal within 5 % of the kernel's" within $s pgsteal 0.95 1.05
done
for s in r192 s192; do
	check "$s: no pgactivate, as in the kernel" model_is $s pgactivate 0
done
for s in rp192 p256; do
	check "$s: refaults within 5 % of the kernel's" within $s workingset_refault_anon 0.95 1.05
	check "$s: activations within 10 % of the kernel's" within $s workingset_activate_anon 0.90 1.10
	check "$s: pgscan within 5 % of the kernel's" within $s pgscan 0.95 1.05
done
for s in c-r192 c-s192 c-r128 c-v160; do
	for c in workingset_refault_anon pgscan pgsteal; do
		check "$s (classic LRU): lru's $c within 2 % of the kernel's" within $s $c 0.98 1.02
	done
	check "$s (classic LRU): no workingset activations, as in the kernel" model_is $s workingset_activate_anon 0
done
for s in c-rp192 c-p256; do
	for c in workingset_refault_anon pgscan; do
		check "$s (classic LRU): lru's $c within 5 % of the kernel's" within $s $c 0.95 1.05
	done
done
for s in k117-r192 k117-rp192 k117-s192; do
	check "$s (6.12.117, kernel=6.12): refaults within 5 %" within $s workingset_refault_anon 0.95 1.05
	check "$s (6.12.117, kernel=6.12): activations within 5 %" within $s workingset_activate_anon 0.95 1.05
done
check "k117-rp192 (6.12.117, kernel=6.12): pgactivate within 5 %" within k117-rp192 pgactivate 0.95 1.05
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
