#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# test_sweep_slurm.sh MEMREPLAY SLURM_LOCAL
#
# `memreplay sweep --emit slurm` on a real Slurm: SLURM_LOCAL (scripts/slurm-local.sh)
# starts munged, slurmctld and slurmd on localhost in a temporary directory; the emitted
# job-array script is submitted with sbatch as it is, the test waits (bounded) for every
# cell's results file, merges them and compares the merge byte for byte with the local
# pool's. The daemons are stopped and their directory removed on exit, whatever
# happened, and the test checks that none of them is left running. Skips (77) with the
# reason where Slurm cannot start (not root, slurm-wlm or munge not installed).
set -uo pipefail
MR=$(realpath "$1")
SL=$(realpath "$2")
T=$(mktemp -d)
S=$(mktemp -d /tmp/mr-slurm.XXXXXX)
pids() { cat "$S"/munged.pid "$S"/slurmctld.pid "$S"/slurmd.pid 2>/dev/null; }
cleanup() {
	"$SL" stop "$S" >/dev/null 2>&1
	rm -rf "$T" "$S"
}
trap cleanup EXIT
fail=0
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
ok() { echo "ok   $*"; }
check() { local what=$1; shift; if "$@"; then ok "$what"; else bad "$what"; fi; }

env=$("$SL" start "$S")
rc=$?
if [ $rc = 77 ]; then
	echo "SKIP: Slurm cannot run here (see above)"
	exit 77
fi
[ $rc = 0 ] || { echo "FAIL: slurm-local.sh start: exit $rc"; exit 1; }
eval "$env"
ok "slurmctld and slurmd up on localhost ($SLURM_CONF)"

cd "$T" || exit 1
mkdir m
"$MR" gen zipf -o m/z.db --pages 16M --events 200K --seed 1 >/dev/null 2>&1 || exit 1
"$MR" gen loop -o m/l.db --size 8M --passes 2 --seed 2 >/dev/null 2>&1 || exit 1
cat >m/sweep.txt <<'EOF'
traces: z.db l.db
policies: lru mglru mglru:swappiness=200
memory: 2M,4M

z.db opt 2M
l.db opt 4M
EOF
"$MR" sweep m/sweep.txt -o local -j 2 -q >/dev/null 2>&1
check "the local pool ran the sweep" [ $? = 0 ]
"$MR" merge -o local.db local/cell-*.db -q

"$MR" sweep m/sweep.txt -o S --emit slurm >"$T/emit" 2>&1
check "--emit slurm exits 0" [ $? = 0 ]
B=S/sweep.sbatch
check "the script is for sbatch" grep -q '^#!/bin/sh' $B
check "one array task per cell (4 cells: 0-3)" grep -qx "#SBATCH --array=0-3" $B
# --mem: the largest cell's estimate; a cell of z.db (4096 pages, 3 policies x 2 sizes, 6
# machines): 16 MiB + 4096 x (40 + 6 x 64) bytes = 17.7 MiB, x 1.5 + 64 = 90 -> 128 MiB
check "--mem from the trace's pages and the cell's machines (128M)" grep -qx '#SBATCH --mem=128M' $B
check "each task runs sweep --cell \$SLURM_ARRAY_TASK_ID" \
	grep -q "^exec $MR sweep m/sweep.txt -o S --threads 1 --cell \"\$SLURM_ARRAY_TASK_ID\"\$" $B
sbatch --parsable $B >"$T/job" 2>"$T/err"
check "sbatch takes it" [ $? = 0 ]
job=$(cat "$T/job")
done=0
for _ in $(seq 240); do
	n=$(ls S/cell-*.db 2>/dev/null | grep -vc part)
	[ "$n" = 4 ] && { done=1; break; }
	sleep 0.5
done
check "all 4 array tasks wrote their cell within 120 s (job $job)" [ $done = 1 ]
for _ in $(seq 40); do # the tasks' output is complete once they left the queue
	[ -z "$(squeue -h -j "$job" 2>/dev/null)" ] && break
	sleep 0.5
done
check "each task's output says its cell is done" \
	[ "$(cat S/slurm-"$job"_*.out 2>/dev/null | grep -c "1 of 1 cell(s) done")" = 4 ]
"$MR" merge -o slurm.db S/cell-*.db -q
check "merge of Slurm's cells = merge of the local pool's, byte for byte" cmp -s slurm.db local.db
"$MR" compare slurm.db >/dev/null 2>&1
check "compare reads it" [ $? = 0 ]

# leave nothing running
p=$(pids)
"$SL" stop "$S"
left=
for x in $p; do kill -0 "$x" 2>/dev/null && left="$left $x"; done
check "munged, slurmctld, slurmd stopped" [ -z "$left" ]
[ $fail = 0 ] && echo "all passed" || { echo "$fail failed"; tail -5 "$S"/*.log 2>/dev/null; }
[ $fail = 0 ]
