#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# test_sweep_pool.sh MEMREPLAY
#
# `memreplay sweep` on the local worker pool and through GNU parallel, and `memreplay
# merge` (cli/cmd_sweep.c, replayer/merge.c, docs/sweep.md), on small generated traces:
# the manifest becomes the documented cells; every cell's file holds what a single
# replay of that trace writes, counter for counter; merging gives the single-pass
# counters and the same bytes twice; a rerun skips finished cells, redoes a corrupt or
# partial one, and --force redoes all; a cell that fails or is killed is reported with
# its command while the others finish; bad manifests and bad merge inputs are refused
# with a message. GNU parallel comes from scripts/setup.sh; where it is missing that
# part fails, naming the package.
set -uo pipefail
MR=$(realpath "$1")
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
ok() { echo "ok   $*"; }
check() { local what=$1; shift; if "$@"; then ok "$what"; else bad "$what"; fi; }
# expect STATUS-TEST PATTERN -- CMD...: the exit status is (not) 0 and stderr has PATTERN
refuse() {
	local pat=$1; shift
	"$@" >"$T/out" 2>"$T/err"
	local rc=$?
	if [ $rc != 0 ] && grep -q -- "$pat" "$T/err"; then ok "refused ($pat)"
	else bad "expected a refusal with '$pat', got exit $rc: $(head -3 "$T/err")"; fi
}
# the counters of every run of a results file, without run ids: spec, size, name, value
counters() {
	"$MR" query "$1" --csv "SELECT r.trace, r.spec, r.memory_pages, c.memcg, c.name, c.value
		FROM counters c JOIN runs r ON r.id = c.run ${2:-} ORDER BY 1, 2, 3, 4, 5"
}
inode() { stat -c %i "$1"; }
q() { "$MR" query "$1" --csv "$2" | tail -n +2; } # one value, without the CSV header

cd "$T" || exit 1
"$MR" gen zipf -o z.db --pages 16M --events 200K --seed 1 >/dev/null 2>&1 || exit 1
"$MR" gen loop -o l.db --size 8M --passes 2 --seed 2 >/dev/null 2>&1 || exit 1
mkdir m
mv z.db l.db m/
cat >m/sweep.txt <<'EOF'
# a cross product: each trace with every policy at every size is one cell
traces: z.db l.db
policies: lru mglru mglru:swappiness=200
memory: 2M,4M

# lines: these join the first cell (same trace, same sizes)
z.db opt 2M
z.db opt 4M   # a comment after a line
EOF

# ---- cells ----
"$MR" sweep m/sweep.txt --list >"$T/list" 2>&1
check "--list: two cells" [ "$(grep -c '^cell ' "$T/list")" = 2 ]
check "--list: cell 0 is z.db with its 4 policies at 2M,4M, relative to the manifest" \
	grep -q '^cell 0000  m/z.db  --memory 2M,4M  --policy lru --policy mglru --policy mglru:swappiness=200 --policy opt   (8 runs' "$T/list"
check "--list: cell 1 is l.db" grep -q '^cell 0001  m/l.db .*(6 runs' "$T/list"

# ---- the pool ----
"$MR" sweep m/sweep.txt -o D -j 2 >"$T/run1" 2>&1
check "sweep exits 0" [ $? = 0 ]
check "a results file per cell" [ -s D/cell-0000.db ] && [ -s D/cell-0001.db ]
check "no partial files left" sh -c '! ls D | grep -q part'
check "sweep says what ran" grep -q '2 of 2 cell(s) done (0 skipped, 0 failed)' "$T/run1"

# each cell equals its single replay
"$MR" replay m/z.db --policy lru --policy mglru --policy mglru:swappiness=200 --policy opt \
	--memory 2M,4M --threads 1 -q -o single_z.db >/dev/null 2>&1
"$MR" replay m/l.db --policy lru --policy mglru --policy mglru:swappiness=200 \
	--memory 2M,4M --threads 1 -q -o single_l.db >/dev/null 2>&1
check "cell 0 is byte for byte the replay of z.db" cmp -s D/cell-0000.db single_z.db
check "cell 1 is byte for byte the replay of l.db" cmp -s D/cell-0001.db single_l.db

# ---- merge ----
"$MR" merge -o all.db D/cell-*.db >"$T/out" 2>&1
check "merge exits 0, 14 runs" grep -q 'merged 2 files, 14 runs' "$T/out"
"$MR" merge -o all2.db D/cell-*.db >/dev/null 2>&1
check "same inputs, same bytes" cmp -s all.db all2.db
check "run ids 1..14" [ "$(q all.db 'SELECT group_concat(id) FROM runs')" = \
	'"1,2,3,4,5,6,7,8,9,10,11,12,13,14"' ]
counters all.db "WHERE r.trace = 'm/z.db'" >"$T/mz"
counters single_z.db >"$T/sz"
check "merged counters of z.db = its single-pass replay's" cmp -s "$T/mz" "$T/sz"
counters all.db "WHERE r.trace = 'm/l.db'" >"$T/ml"
counters single_l.db >"$T/sl"
check "merged counters of l.db = its single-pass replay's" cmp -s "$T/ml" "$T/sl"
check "counters were compared (not empty)" [ "$(wc -l <"$T/mz")" -gt 100 ]
for t in memcgs model_counters timeseries lru_gen notes; do
	a=$(q all.db "SELECT count(*) FROM $t")
	b=$(( $(q single_z.db "SELECT count(*) FROM $t") + $(q single_l.db "SELECT count(*) FROM $t") ))
	check "table $t: every row carried over ($a)" [ "$a" = "$b" ]
done
check "rows follow their run: notes of run 9 are l.db's run 1" [ \
	"$(q all.db 'SELECT group_concat(kind || message) FROM notes WHERE run = 9')" = \
	"$(q single_l.db 'SELECT group_concat(kind || message) FROM notes WHERE run = 1')" ]
"$MR" compare all.db >"$T/cmp" 2>&1
check "compare reads the merge" [ $? = 0 ]
# the sign of a delta across sizes is each trace's own: one line per policy and trace,
# with that trace's two sizes (one line of both traces' four deltas, two of them "at
# 2M", was what a merge of two traces printed)
sg() { sed -n '/^sign of the delta/,/^(flips/p' "$T/cmp" | grep "^  $1 ($2 full)  *mr_misses "; }
check "compare: mglru's sign of z.db and of l.db on a line each, with their own two sizes" \
	[ "$(sg mglru z.db | grep -o ' at [0-9.]*[KMG]' | wc -l)" = 2 ] &&
	[ "$(sg mglru l.db | grep -o ' at [0-9.]*[KMG]' | wc -l)" = 2 ]
"$MR" curve all.db >"$T/curve" 2>&1
check "curve reads the merge" [ $? = 0 ] && grep -q '^opt ' "$T/curve"
# the matrix keeps the two traces apart: a column of each policy per trace, its cells
# that trace's runs (lru at 4M: z.db's and l.db's own miss ratios)
mx() { "$MR" query "$1" --csv "SELECT printf('%.3f', 100.0 * miss_ratio) FROM curve
	WHERE policy = 'lru' AND memory_pages = 1024" | tail -n +2; }
check "curve of the merge: a column 'lru z.db' and one 'lru l.db'" \
	sh -c "grep -q '^  memory.* lru z.db .* lru l.db' '$T/curve'"
# runs of one policy and trace that differ in a setting (--swap 0) are two columns, not
# one averaged as if they were seeds
"$MR" replay m/z.db --policy lru --memory 2M,4M --swap 0 --threads 1 -q -o swap0_z.db >/dev/null 2>&1
"$MR" merge -q -o swaps.db single_z.db swap0_z.db >/dev/null 2>&1
"$MR" curve swaps.db >"$T/swaps" 2>&1
check "curve of two --swap settings: two lru columns, no mean of the two ($(mx swap0_z.db) with swap 0)" \
	sh -c "grep -q '^  memory .*lru #.*lru #' '$T/swaps' && ! sed -n '/by memory/,\$p' '$T/swaps' | grep '^ *[0-9.]*[KMG] ' | grep -q '(' &&
	       grep '^ *4M ' '$T/swaps' | grep -qF '$(mx swap0_z.db)' && grep '^ *4M ' '$T/swaps' | grep -qF '$(mx single_z.db)'"
# and compare pairs a --swap 0 run with the baseline's --swap 0 run, not the other's,
# and gives each setting its own sign line, naming what differs
"$MR" replay m/z.db --policy lru --policy mglru --memory 2M,4M --swap 0 --threads 1 -q \
	-o swap0b_z.db >/dev/null 2>&1
"$MR" merge -q -o swaps2.db single_z.db swap0b_z.db >/dev/null 2>&1
"$MR" compare swaps2.db --json >"$T/swaps2.json" 2>&1
"$MR" compare swaps2.db >"$T/swaps2.txt" 2>&1
check "compare of --swap settings merged: a swap-0 run's baseline is the swap-0 lru run" \
	python3 -c "import json; d = json.load(open('$T/swaps2.json'))
ids = {r['id']: r for r in d['runs']}
for r in d['runs']:
    b = ids[r['baseline']]
    assert b['settings'] == r['settings'] and b['memory_pages'] == r['memory_pages'], (r, b)
    assert b['spec'].startswith('lru'), b"
check "... and a sign line 'mglru (full swap 0)' beside 'mglru (full swap default)'" \
	sh -c "grep -q '^  mglru (full swap 0) .*mr_misses' '$T/swaps2.txt' && grep -q '^  mglru (full swap default)  .*mr_misses' '$T/swaps2.txt'"
check "... at 4M each with its trace's miss ratio ($(mx single_z.db), $(mx single_l.db))" \
	sh -c "grep '^ *4M ' '$T/curve' | grep -qF '$(mx single_z.db)' &&
	       grep '^ *4M ' '$T/curve' | grep -qF '$(mx single_l.db)'"

# ---- resumability ----
i0=$(inode D/cell-0000.db); i1=$(inode D/cell-0001.db)
"$MR" sweep m/sweep.txt -o D -j 2 >"$T/run2" 2>&1
check "rerun: exit 0, both skipped" grep -q '2 already done, running 0' "$T/run2"
check "rerun: files untouched" [ "$(inode D/cell-0000.db)" = "$i0" ] && [ "$(inode D/cell-0001.db)" = "$i1" ]
# a corrupt cell (garbage), and a partial one (its first pages only)
echo "not a database" >D/cell-0001.db
head -c 8192 single_z.db >D/cell-0000.db
"$MR" sweep m/sweep.txt -o D -j 2 >"$T/run3" 2>&1
check "corrupt and partial cells redone: exit 0" [ $? = 0 ]
check "each said why" [ "$(grep -c 'not this cell.s complete result' "$T/run3")" = 2 ]
check "redone cells equal the first run's" cmp -s D/cell-0000.db single_z.db && cmp -s D/cell-0001.db single_l.db
# a finished cell put there beforehand is skipped; the other runs
rm -rf D2 && mkdir D2 && cp single_l.db D2/cell-0001.db
i1=$(inode D2/cell-0001.db)
"$MR" sweep m/sweep.txt -o D2 -j 2 >"$T/run4" 2>&1
check "pre-made finished cell skipped" grep -q '1 already done, running 1' "$T/run4"
check "... and left as it was" [ "$(inode D2/cell-0001.db)" = "$i1" ]
check "... the other written" cmp -s D2/cell-0000.db single_z.db
# a results file of another cell is not this cell's
cp single_l.db D2/cell-0000.db
"$MR" sweep m/sweep.txt -o D2 >"$T/run5" 2>&1
check "another cell's results are redone" grep -q 'cell 0: .*has 0 runs of m/z.db' "$T/run5"
"$MR" sweep m/sweep.txt -o D2 --force >"$T/run6" 2>&1
check "--force reruns every cell" grep -q '0 already done, running 2' "$T/run6"
"$MR" sweep m/sweep.txt -o D2 --cell 1 --force >"$T/run7" 2>&1
check "--cell 1 runs only cell 1" grep -q '1 cell(s) (--cell), 0 already done, running 1' "$T/run7"

# ---- failures: reported, the others finish ----
cat >m/bad.txt <<'EOF'
z.db lru 2M
missing.db lru 2M
EOF
"$MR" sweep m/bad.txt -o D3 -j 2 >"$T/run8" 2>"$T/err8"
check "a failed cell: non-zero exit" [ $? != 0 ]
check "... reported with its command" grep -q "cell 1 failed (exit status 1); command:" "$T/err8" && \
	grep -q "replay m/missing.db --policy lru --memory 2M" "$T/err8"
check "... and the replay's own message" grep -q "missing.db" "$T/err8"
check "... the other cell done" [ -s D3/cell-0000.db ] && [ ! -e D3/cell-0001.db ]
# a crash: the cell's replay killed mid-run
"$MR" gen zipf -o m/big.db --pages 256M --events 3M --seed 3 >/dev/null 2>&1
printf 'traces: big.db\npolicies: lru mglru mglru:swappiness=200 opt\nmemory: 8M,16M,32M\n\nz.db lru 2M\n' >m/crash.txt
"$MR" sweep m/crash.txt -o D4 -j 2 >"$T/run9" 2>"$T/err9" &
sp=$!
victim=
for _ in $(seq 100); do
	victim=$(pgrep -P $sp -f 'replay m/big.db' | head -1)
	[ -n "$victim" ] && break
	sleep 0.05
done
sleep 0.3
[ -n "$victim" ] && kill -KILL "$victim"
wait $sp
rc=$?
check "a killed cell: non-zero exit" [ $rc != 0 ]
check "... reported as killed by signal 9, with its command" \
	grep -q 'cell 0 failed (killed by signal 9' "$T/err9"
check "... no cell file, no partial file" [ ! -e D4/cell-0000.db ] && [ ! -e D4/cell-0000.part.db ]
check "... the other cell done" [ -s D4/cell-0001.db ]

# ---- GNU parallel ----
if command -v parallel >/dev/null; then
	"$MR" sweep m/sweep.txt -o P --emit parallel >"$T/cmds" 2>&1
	check "--emit parallel: one line per cell" [ "$(wc -l <"$T/cmds")" = 2 ]
	check "... each a sweep --cell of the same binary" grep -q "^cd $T && $MR sweep m/sweep.txt -o P --threads 1 --cell 1\$" "$T/cmds"
	parallel -j2 <"$T/cmds" >"$T/par" 2>&1
	check "parallel runs them: exit 0" [ $? = 0 ]
	"$MR" merge -o par.db P/cell-*.db >/dev/null 2>&1
	check "parallel's merge = the pool's, byte for byte" cmp -s par.db all.db
else
	bad "GNU parallel is not installed (apt-get install parallel; scripts/setup.sh)"
fi

# ---- bad input ----
printf 'trace: z.db\n' >m/e1.txt
refuse "unknown key 'trace:'" "$MR" sweep m/e1.txt --list
printf 'z.db lru\n' >m/e2.txt
refuse "e2.txt:1: expected 'TRACE POLICY MEMORY'" "$MR" sweep m/e2.txt --list
printf 'z.db nosuch 2M\n' >m/e3.txt
refuse "e3.txt:1: .*nosuch" "$MR" sweep m/e3.txt --list
printf 'z.db lru 2Q\n' >m/e4.txt
refuse "e4.txt:1: --memory '2Q'" "$MR" sweep m/e4.txt --list
printf 'traces: z.db\npolicies: lru\n' >m/e5.txt
refuse "no 'memory:' line" "$MR" sweep m/e5.txt --list
printf 'z.db lru 2M\nz.db lru 2M\n' >m/e6.txt
refuse "comes twice" "$MR" sweep m/e6.txt --list
# the same run written another way, or in another line's list: 2M is 2048K and 512 pages
printf 'z.db lru 2M\nz.db lru 2048K\n' >m/e6b.txt
refuse "e6b.txt:2: policy 'lru' comes twice for this trace at 2M" "$MR" sweep m/e6b.txt --list
printf 'z.db lru 2M,4M\nz.db mglru 512\nz.db lru 512\n' >m/e6c.txt
refuse "e6c.txt:3: policy 'lru' comes twice for this trace at 2M" "$MR" sweep m/e6c.txt --list
printf '# nothing\n' >m/e7.txt
refuse "has no cells" "$MR" sweep m/e7.txt --list
refuse "cannot open manifest" "$MR" sweep m/none.txt
# a directory for the manifest, a file for -o: said before any cell runs
refuse "reading manifest m failed: Is a directory" "$MR" sweep m
echo x >notdir
refuse "-o notdir exists and is not a directory" "$MR" sweep m/sweep.txt -o notdir
refuse "cells 0..1" "$MR" sweep m/sweep.txt -o D --cell 2
refuse "give slurm or parallel" "$MR" sweep m/sweep.txt --emit pbs
refuse "-j '0'" "$MR" sweep m/sweep.txt -j 0
refuse "is not a memreplay results database" "$MR" merge -o x.db D/cell-0000.db m/z.db
check "... nothing written" [ ! -e x.db ]
cp single_l.db v2.db
sqlite3 v2.db 'PRAGMA user_version = 2' 2>/dev/null || "$MR" query v2.db 'PRAGMA user_version = 2' >/dev/null 2>&1
refuse "results format version 2" "$MR" merge -o x.db D/cell-0000.db v2.db
sum=$(md5sum <m/z.db)
# an older version-1 file (without runs.vary_p, without table notes): NULL, no rows
cp single_l.db old.db
sqlite3 old.db 'ALTER TABLE runs DROP COLUMN vary_p; DROP TABLE notes' 2>"$T/err"
"$MR" merge -o mo.db D/cell-0000.db old.db >/dev/null 2>"$T/err"
check "an older v1 file merges" [ $? = 0 ]
check "... its runs' missing column is NULL" [ "$(q mo.db 'SELECT count(*) FROM runs WHERE vary_p IS NULL AND id > 8')" = 6 ]
check "... its missing table has no rows" [ "$(q mo.db 'SELECT count(*) FROM notes WHERE run > 8')" = 0 ]
# a newer writer's column that this merge would drop
cp single_l.db new.db
sqlite3 new.db 'ALTER TABLE counters ADD COLUMN unit TEXT'
refuse "table counters has 1 column(s) this memreplay does not know" "$MR" merge -o x.db D/cell-0000.db new.db
# rows naming no run
cp single_l.db orph.db
sqlite3 orph.db 'UPDATE counters SET run = 99 WHERE rowid = 1'
refuse "1 row(s) of table counters name a run the file does not have" "$MR" merge -o x.db orph.db
check "... nothing written" [ ! -e x.db ]
refuse "exists and is not a memreplay results database" "$MR" merge -o m/z.db D/cell-0000.db
check "... the trace at -o left alone" [ "$(md5sum <m/z.db)" = "$sum" ]
refuse "both an input and the output" "$MR" merge -o all.db all.db D/cell-0000.db
refuse "is given twice" "$MR" merge -o x.db D/cell-0000.db D/cell-0000.db
if grep -q "merge: merge:" "$T/err"; then bad "... said 'merge: merge:'"; else ok "... said 'merge:' once"; fi
# the same runs in two files (a copy, or the cell replayed on its own): counted twice
cp D/cell-0000.db copy.db
refuse "run #1 of copy.db is run #1 of D/cell-0000.db again" "$MR" merge -o x.db D/cell-0000.db copy.db
check "... nothing written" [ ! -e x.db ]
refuse "run #1 of single_z.db is run #1 of D/cell-0000.db again" "$MR" merge -o x.db D/cell-0001.db D/cell-0000.db single_z.db
"$MR" merge -o x.db D/cell-0000.db copy.db --keep-copies >/dev/null 2>"$T/err"
check "... --keep-copies keeps both" [ "$(q x.db 'SELECT count(*) FROM runs')" = "$(( 2 * $(q D/cell-0000.db 'SELECT count(*) FROM runs') ))" ]
rm -f x.db
# a run with one counter of its own is another run (the counters are compared)
sqlite3 copy.db 'UPDATE counters SET value = value + 1 WHERE run = 1 AND name = "pgfault"'
refuse "run #2 of copy.db is run #2 of D/cell-0000.db again" "$MR" merge -o x.db D/cell-0000.db copy.db
sqlite3 copy.db 'UPDATE counters SET value = value + 1 WHERE run > 1 AND name = "pgfault"'
"$MR" merge -o x.db D/cell-0000.db copy.db >/dev/null 2>"$T/err"
check "... which merges when every run differs" [ $? = 0 ]
rm -f x.db
refuse "missing -o" "$MR" merge D/cell-0000.db

[ $fail = 0 ] && echo "all passed" || echo "$fail failed"
[ $fail = 0 ]
