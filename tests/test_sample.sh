#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# test_sample.sh MEMREPLAY
#
# replay --sample 1/N (docs/replay.md, "Sampled replay"): on a generated Zipf trace
# lru, mglru and opt at four sizes, sampled 1/16 page by page, must give a curve within
# 1 percentage point of miss ratio of the full replay's on average per policy
# (measured: 0.33 / 0.68 / 0.07), the same bytes twice, and results that say they are
# sampled (meta, a note per run, curve's and compare's first line); 1/1 keeps every
# page and must give the full replay's counters; bad rates and units are refused. On
# traces/default.db (processes of very unequal heat) the curve must be within 1.5
# points (1.12 / 0.04), and with --sample-unit 2M the note must warn of the few regions
# sampled; on a recording whose machine counts references otherwise than the sampling
# pass (kernel-lab's write.db: host REFAULT events) opt must be within 1.5 points. On
# a mapped-file loop (mmapseq.db) fault-around must map 1/16 of the full replay's; on
# a copy-on-write loop (cow.db) sampled file pages must be unmapped for their unsampled
# copies, so that mglru fits at the size the full replay fits.
# bench sample --seeds / --unit must say its unit and seeds per row. The pre-pass's page
# counts are kept in the cache directory and reused with the same results; a damaged
# file is rebuilt, and one others could have written, or a link, is not trusted.
MR=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
check() { what=$1; shift; if "$@"; then echo "ok   $what"; else echo "FAIL $what"; fail=$((fail + 1)); fi; }
q() { "$MR" query "$1" --csv "$2" | tail -n +2; }
P="--policy lru --policy mglru --policy opt --memory 16M..256M:4 -q --no-timing --threads 0 --nextuse-cache off"

"$MR" gen zipf -o "$T/z.db" --pages 131072 --events 1M --seed 1 >/dev/null 2>&1 ||
	{ echo "FAIL gen"; exit 1; }
"$MR" replay "$T/z.db" $P -o "$T/full.db" >/dev/null 2>&1 || { echo "FAIL full replay"; exit 1; }
"$MR" replay "$T/z.db" $P --sample 1/16 -o "$T/a.db" >/dev/null 2>"$T/a.err"
check "--sample 1/16 exits 0" [ $? = 0 ]
"$MR" replay "$T/z.db" $P --sample 1/16 -o "$T/b.db" >/dev/null 2>&1
check "sampled twice: byte-identical results" cmp -s "$T/a.db" "$T/b.db"
check "replay says it is sampled, even with -q" grep -q "sampled 1/16 (seed 0)" "$T/a.err"

# the curve: mean |sampled - full| per policy, as `memreplay curve` prints both
# (--json: one run a line, its policy, size and ratio by name; a spec has commas)
points() {
	"$MR" curve "$1" --json | sed -n 's/.*"policy": "\([a-z]*\)".*"memory_pages": \([0-9]*\),.*"miss_ratio": \([0-9.]*\),.*/\1 \2 \3/p' |
		sort
}
# mae FULL SAMPLED: per policy, the mean absolute miss-ratio error in points
mae() {
	paste -d' ' "$1" "$2" | awk '
		{ d = $3 - $6; if (d < 0) d = -d; e[$1] += 100 * d; n[$1]++ }
		END { for (p in e) printf "%s %.3f\n", p, e[p] / n[p] }' | sort
}
points "$T/full.db" >"$T/f.txt"
points "$T/a.db" >"$T/s.txt"
check "the sampled curve has the full one's 12 points" \
	[ "$(cut -d' ' -f1,2 "$T/f.txt")" = "$(cut -d' ' -f1,2 "$T/s.txt")" ]
mae "$T/f.txt" "$T/s.txt" >"$T/mae.txt"
cat "$T/mae.txt"
check "three policies compared" [ "$(wc -l <"$T/mae.txt")" = 3 ]
check "mean error per policy at most 1 pp" \
	awk '$2 > 1 { bad = 1 } END { exit bad }' "$T/mae.txt"

# the results say so
check "meta sample_den = 16" [ "$(q "$T/a.db" "SELECT value FROM meta WHERE key = 'sample_den'")" = 16 ]
check "meta sample_seed = 0" [ "$(q "$T/a.db" "SELECT value FROM meta WHERE key = 'sample_seed'")" = 0 ]
check "meta sample_unit_pages = 1 (the default)" \
	[ "$(q "$T/a.db" "SELECT value FROM meta WHERE key = 'sample_unit_pages'")" = 1 ]
check "each run counts the sampled pages' references (mr_sample_references)" \
	[ "$(q "$T/a.db" "SELECT count(*) FROM counters WHERE name = 'mr_sample_references' AND memcg IS NULL AND value > 0")" = 12 ]
check "a note of kind sampled on each of the 12 runs" \
	[ "$(q "$T/a.db" "SELECT count(DISTINCT run) FROM notes WHERE kind = 'sampled' AND message LIKE 'sampled 1/16 (seed 0)%'")" = 12 ]
check "the runs keep the sizes asked for" \
	[ "$(q "$T/a.db" "SELECT group_concat(memory_pages) FROM runs")" = \
	  "$(q "$T/full.db" "SELECT group_concat(memory_pages) FROM runs")" ]
check "a full replay has no sampling" \
	[ "$(q "$T/full.db" "SELECT count(*) FROM notes WHERE kind = 'sampled'")" = 0 ]
"$MR" curve "$T/a.db" >"$T/curve.txt"
check "curve says sampled 1/16 before the table" \
	[ "$(grep -n '^sampled 1/16 (seed 0): 12 of the 12 runs' "$T/curve.txt" | cut -d: -f1)" = 3 ]
check "curve --csv has the rate per run" \
	[ "$("$MR" curve "$T/a.db" --csv | head -2 | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "sample_den") k = i } NR == 2 { print $k }')" = 16 ]
"$MR" compare "$T/a.db" >"$T/compare.txt"
check "compare says sampled first" grep -q "^sampled 1/16 (seed 0) in 12 of 12 runs" "$T/compare.txt"
check "compare says a sampled delta carries the sampling's error, not in its interval" grep -q "^a delta between sampled runs also carries the sampling's error" "$T/compare.txt"
check "a full replay's curve does not" sh -c "! \"$MR\" curve \"$T/full.db\" | grep -q sampled"

# another seed, other pages
"$MR" replay "$T/z.db" $P --sample 1/16 --sample-seed 7 -o "$T/c.db" >/dev/null 2>&1
check "--sample-seed 7 is recorded" [ "$(q "$T/c.db" "SELECT value FROM meta WHERE key = 'sample_seed'")" = 7 ]
# (each stratum gives one of its 16 pages, so the count of pages is the same: the
# references kept, in the note, differ)
N1="SELECT message FROM notes WHERE run = 1 AND kind = 'sampled'"
check "another seed samples other pages" \
	[ "$(q "$T/a.db" "$N1" | sed 's/(seed [0-9]*)//')" != "$(q "$T/c.db" "$N1" | sed 's/(seed [0-9]*)//')" ]

# two seeds merged (docs/sweep.md): curve's matrix gives each policy one column of both
# seeds, their mean and range at each size, not the first seed's value alone; the full
# replay merged beside them keeps a column of its own
"$MR" merge -q -o "$T/ac.db" "$T/a.db" "$T/c.db" "$T/full.db" >/dev/null 2>&1
# the same in one command: --sample-seed 0,7 runs a pass per seed and merges them
"$MR" replay "$T/z.db" $P --sample 1/16 --sample-seed 0,7 -o "$T/ac1.db" >/dev/null 2>"$T/ac1.err"
check "--sample-seed 0,7: exits 0, says where the two seeds' runs are" \
	sh -c "[ $? = 0 ] && grep -q '2 seeds, 24 runs, in $T/ac1.db' '$T/ac1.err'"
"$MR" merge -q -o "$T/ac0.db" "$T/a.db" "$T/c.db" >/dev/null 2>&1
check "--sample-seed 0,7 gives the merge of the two seeds' replays, byte for byte" cmp -s "$T/ac1.db" "$T/ac0.db"
check "... and leaves no partial file" sh -c "! ls '$T'/ac1.db.seed-* 2>/dev/null"
# two sampling units of one rate and seed merged: compare tells them apart (its header
# line and each run's source name the unit; both read "sampled 1/16 seed 0" before)
"$MR" replay "$T/z.db" $P --sample 1/16 --sample-unit 64K -o "$T/u64.db" >/dev/null 2>&1
"$MR" merge -q -o "$T/units.db" "$T/a.db" "$T/u64.db" >/dev/null 2>&1
"$MR" compare "$T/units.db" >"$T/units.txt" 2>&1
check "compare of two units: a sampled line each, runs named 'unit 64K' and another unit" \
	sh -c "[ \"\$(grep -c '^sampled 1/16 (seed 0) in 12 of 24 runs of [0-9]*K units' '$T/units.txt')\" = 2 ] &&
	       grep -q 'sampled 1/16 seed 0 unit 64K' '$T/units.txt' &&
	       grep 'sampled 1/16 seed 0 unit ' '$T/units.txt' | grep -qv 'unit 64K'"
# a seed replayed at fewer sizes: its column says x3, and a cell of two seeds says so
"$MR" replay "$T/z.db" --policy lru --policy mglru --policy opt --memory 16M -q --no-timing \
	--threads 0 --nextuse-cache off --sample 1/16 --sample-seed 9 -o "$T/s9.db" >/dev/null 2>&1
"$MR" merge -q -o "$T/ac9.db" "$T/a.db" "$T/c.db" "$T/s9.db" >/dev/null 2>&1
"$MR" curve "$T/ac9.db" >"$T/ac9.txt" 2>&1
check "a seed at one size of four: 'lru 1/16 x3', three seeds at 16M, '2/3' at 256M, said why" \
	sh -c "grep -q 'lru 1/16 x3' '$T/ac9.txt' && ! grep '^ *16M ' '$T/ac9.txt' | grep -q ' [0-9]/3' &&
	       grep '^ *256M ' '$T/ac9.txt' | grep -q ') 2/3' && grep -q '^k/N: the mean and range of only k' '$T/ac9.txt'"
# a second replay to the same -o while the first is between its passes: refused before it
# runs, and the first one's partial files are not its to remove (it removed them all, and
# the first one then failed, after printing its seeds' tables as written)
touch "$T/held.db.seed-0.partial"
flock "$T/held.db.lock" sh -c "echo 4242 >'$T/held.db.lock'; \"$MR\" replay '$T/z.db' $P --sample 1/16 \
	--sample-seed 0,7 -o '$T/held.db' >/dev/null 2>'$T/held.err'; echo \$? >'$T/held.rc'"
check "--sample-seed 0,7 to a -o another replay holds: exit 1, naming the holder" \
	sh -c "[ \"\$(cat '$T/held.rc')\" = 1 ] && grep -q 'being written by another replay, pid 4242' '$T/held.err'"
check "... another replay's partial file left where it was" [ -e "$T/held.db.seed-0.partial" ]
check "... and no pass ran" sh -c "! grep -q 'sampled 1/16' '$T/held.err'"
# a file of the user's own at a partial file's name: refused before any pass, and kept
echo mine >"$T/own.db.seed-7.partial"
"$MR" replay "$T/z.db" $P --sample 1/16 --sample-seed 0,7 -o "$T/own.db" >/dev/null 2>"$T/own.err"
check "--sample-seed 0,7 with a file of its own at OUT.seed-7.partial: exit 1, said, the file kept" \
	sh -c "[ $? = 1 ] && grep -q 'own.db.seed-7.partial exists and is not a partial results file' '$T/own.err' &&
	       [ \"\$(cat '$T/own.db.seed-7.partial')\" = mine ] && ! grep -q 'sampled 1/16' '$T/own.err' &&
	       ! ls '$T'/own.db '$T'/own.db.seed-0.partial '$T'/own.db.lock 2>/dev/null"
# a FIFO at a partial file's name: refused at once (opening it blocked for ever), no lock
# left; and a reader that quits early (SIGPIPE) leaves neither partial files nor a lock
mkfifo "$T/fifo.db.seed-7.partial"
timeout 20 "$MR" replay "$T/z.db" $P --sample 1/16 --sample-seed 0,7 -o "$T/fifo.db" >/dev/null 2>"$T/fifo.err"
check "a FIFO at OUT.seed-7.partial: exit 1 at once, said, no lock left" \
	sh -c "[ $? = 1 ] && grep -q 'fifo.db.seed-7.partial exists and is not a partial results file' '$T/fifo.err' &&
	       ! ls '$T'/fifo.db.lock 2>/dev/null"
"$MR" replay "$T/z.db" $P --sample 1/16 --sample-seed 0..7 --csv -o "$T/pipe.db" 2>/dev/null |
	{ head -c 1 >/dev/null; exec 0<&-; sleep 1; }
check "--sample-seed 0..7 | a reader that quits: no partial file, no lock left" \
	sh -c "! ls '$T'/pipe.db.seed-* '$T'/pipe.db.lock 2>/dev/null"
# interrupted between its passes (SIGTERM once the first seed's file is there, seven
# passes before the end; a background job ignores SIGINT, and so does the replay then):
# the partial files and the lock go with it
"$MR" replay "$T/z.db" $P --sample 1/16 --sample-seed 0..7 -o "$T/int.db" >/dev/null 2>&1 &
pid=$!
for i in $(seq 200); do [ -e "$T/int.db.seed-0.partial" ] && break; sleep 0.05; done
kill -TERM $pid
wait $pid
rc=$?
check "--sample-seed 0..7 terminated: exit 143, no partial file, no lock, no results left" \
	sh -c "[ $rc = 143 ] && ! ls '$T'/int.db* 2>/dev/null"
# one JSON document and one CSV header over the seeds, each run with its seed
"$MR" replay "$T/z.db" $P --sample 1/16 --sample-seed 0,7 -q --json -o "$T/js.db" >"$T/js.json" 2>/dev/null
check "--sample-seed 0,7 --json: one document, 24 runs, their seeds, the results file" \
	python3 -c "import json, sys; d = json.load(open('$T/js.json'));
assert len(d['runs']) == 24, len(d['runs'])
assert [r['sample_seed'] for r in d['runs']] == [0] * 12 + [7] * 12
assert d['results'] == '$T/js.db'"
"$MR" replay "$T/z.db" $P --sample 1/16 --sample-seed 0,7 -q --csv >"$T/js.csv" 2>/dev/null
check "--sample-seed 0,7 --csv: one header, a sample_seed column, 24 rows" \
	sh -c "[ \"\$(grep -c '^policy,' '$T/js.csv')\" = 1 ] && head -1 '$T/js.csv' | grep -q ',sample_seed\$' &&
	       [ \"\$(tail -n +2 '$T/js.csv' | wc -l)\" = 24 ] && [ \"\$(grep -c ',7\$' '$T/js.csv')\" = 12 ]"
"$MR" curve "$T/ac.db" >"$T/ac.txt"
"$MR" curve "$T/ac.db" --csv >"$T/ac.csv"
check "two seeds: a column 'lru 1/16 x2' and one 'lru' of the full replay" \
	sh -c "grep -q 'lru 1/16 x2' '$T/ac.txt' && grep -q '^  memory  *lru ' '$T/ac.txt'"
# lru at the smallest size: the mean (min-max) of the two sampled runs, from --csv
CELL=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	$c["policy"] == "\"lru\"" && $c["sample_den"] == 16 {
		m = $c["memory_pages"]; v = 100 * $c["miss_ratio"]
		if (!(m in n) ) { n[m] = 0 }
		n[m]++; s[m] += v; if (n[m] == 1 || v < lo[m]) lo[m] = v; if (n[m] == 1 || v > hi[m]) hi[m] = v }
	END { best = -1; for (m in n) if (best < 0 || m + 0 < best + 0) best = m
		printf "%.3f (%.3f-%.3f)", s[best] / n[best], lo[best], hi[best] }' "$T/ac.csv")
check "two seeds: lru's cell at the smallest size is $CELL" \
	sh -c "sed -n '/by memory size/,\$p' '$T/ac.txt' | sed -n 3p | grep -qF '$CELL'"
# --json carries the same cell in its matrix (fractions)
JCELL=$("$MR" curve "$T/ac.db" --json | python3 -c '
import json, sys
m = [x for x in json.load(sys.stdin)["matrix"] if x["group"] == "lru 1/16 x2"]
x = min(m, key=lambda x: x["memory_pages"])
print("%.3f (%.3f-%.3f) n=%d of %d" % (100 * x["miss_ratio_mean"], 100 * x["miss_ratio_min"],
	100 * x["miss_ratio_max"], x["n"], x["seeds"]))')
check "two seeds: --json's matrix has that cell ($JCELL)" [ "$JCELL" = "$CELL n=2 of 2" ]
# compare pairs each run with the baseline's policy of its own seed (or the full
# replay's) at its size: never a sampled run with a full one, nor two seeds
"$MR" compare "$T/ac.db" --json 2>/dev/null >"$T/ac_cmp.json"
check "compare of two seeds and a full replay: 36 runs, each paired within its seed and size" \
	python3 -c '
import json, sys
runs = {r["id"]: r for r in json.load(open(sys.argv[1]))["runs"]}
key = lambda r: (r["memory_pages"], r["sample_den"], r["sample_seed"], r["trace"])
ok = len(runs) == 36 and all(r["baseline"] is not None and
	key(runs[r["baseline"]]) == key(r) and runs[r["baseline"]]["spec"].startswith("lru")
	for r in runs.values())
sys.exit(not ok)' "$T/ac_cmp.json"
"$MR" report "$T/ac.db" -o "$T/ac.html" >/dev/null 2>&1
check "report of the merge: each compared run's column names its seed or full" \
	sh -c "grep -q '<br>sampled 1/16 seed 7</th>' '$T/ac.html' && grep -q '<br>full</th>' '$T/ac.html'"
check "two seeds: the range is not empty (the seeds differ)" \
	sh -c "echo '$CELL' | awk -F'[ ()-]+' '{ exit !(\$2 < \$3) }'"

# a trace of few, unequal regions (traces/default.db: 832 regions, 568 of them under 16
# pages, a few holding most references): a 1/16 hash of regions kept about 52 of them
# and was 25-45 points off; stratified by heat, 2-9 points by seed; page by page 1.12
# for lru, 0.04 for opt over 8 sizes, and lru 0.39 since sampled machines keep the
# batch slack of memcg reclaim (replayer/machine.c, batch_slack(): lru's smallest sizes
# were 2.4-3.9 points high without it); opt frees one page a charge, so no slack
DB=$(dirname "$0")/../traces/default.db
P2="--policy lru --policy opt --memory 1850..59224:8 -q --no-timing --threads 0 --nextuse-cache off"
"$MR" replay "$DB" $P2 -o "$T/d-full.db" >/dev/null 2>&1 || { echo "FAIL default.db full replay"; exit 1; }
"$MR" replay "$DB" $P2 --sample 1/16 -o "$T/d-s.db" >/dev/null 2>"$T/d.err"
check "default.db --sample 1/16 exits 0" [ $? = 0 ]
points "$T/d-full.db" >"$T/df.txt"
points "$T/d-s.db" >"$T/ds.txt"
mae "$T/df.txt" "$T/ds.txt" >"$T/dmae.txt"
cat "$T/dmae.txt"
check "default.db: two policies compared" [ "$(wc -l <"$T/dmae.txt")" = 2 ]
check "default.db: lru within 0.6 pp (the batch slack)" \
	awk '$1 == "lru" && $2 <= 0.6 { ok = 1 } END { exit !ok }' "$T/dmae.txt"
check "default.db: opt within 0.3 pp" \
	awk '$1 == "opt" && $2 <= 0.3 { ok = 1 } END { exit !ok }' "$T/dmae.txt"
# the slack each run ended with: half lru's 32-47-page batches times 15/16 at the five
# sizes that reclaim (0 above them: no reclaim, no mean); opt frees what a charge needs
# (one page), so none; a full replay has no such counter
SL="SELECT r.policy, c.value FROM counters c JOIN runs r ON r.id = c.run
    WHERE c.name = 'mr_sample_batch_slack' ORDER BY r.id"
q "$T/d-s.db" "$SL" | tr , ' ' >"$T/slack.txt"
check "default.db: mr_sample_batch_slack on each of the 16 runs" [ "$(wc -l <"$T/slack.txt")" = 16 ]
check "default.db: lru's slack 15-23 pages at its five smallest sizes, opt's 0" \
	awk '$1 == "lru" && $2 { n++; if ($2 < 15 || $2 > 23) bad = 1 }
	     $1 == "opt" && $2 != 0 { bad = 1 } END { exit bad || n != 5 }' "$T/slack.txt"
check "default.db in full: no batch slack" [ -z "$(q "$T/d-full.db" "$SL")" ]
# the slack counts at most two 32-page chunks a reclaim (mglru may free a third of a
# small machine in one: that scales with it), so a sampled memcg stays within 32 pages
# of its limit; cow.db's mglru went 242 over before the cap
C2=$(dirname "$0")/../traces/kernel-lab/loop-2026-12-02-cow/cow.db
"$MR" replay "$C2" --policy lru --policy mglru --memory 150M --sample 1/8 -q --no-timing \
	--threads 0 --nextuse-cache off -o "$T/c-s.db" >/dev/null 2>&1
OVER="SELECT u.value - l.value FROM counters u JOIN counters l ON l.run = u.run
      AND l.memcg = u.memcg AND l.name = 'mr_limit' WHERE u.name = 'mr_usage_max'"
q "$T/c-s.db" "$OVER" >"$T/over.txt"
cat "$T/over.txt"
check "cow.db 1/8: two runs' memcg compared" [ "$(wc -l <"$T/over.txt")" = 2 ]
check "cow.db 1/8: usage_max within 32 pages of the limit" \
	awk '$1 > 32 { bad = 1 } END { exit bad }' "$T/over.txt"
# copy-on-write: cow.db writes a private file mapping page by page, and where the full
# replay maps a copy its PTE replaces the file page's. A sampled file page whose copy is
# not sampled must be unmapped there too (RP_EV_COW_BREAK): left mapped and young, mglru
# kept it, aged its anonymous pages out and swapped, where in full at 65605 pages it
# misses only on first touches (0.4344) and swaps nothing (0.490 / 0.487 and 1042 / 995
# pages swapped out at seeds 0 / 1 without it)
for s in 0 1; do
	"$MR" replay "$C2" --policy mglru --memory 65605 --sample 1/16 --sample-seed $s -q \
		--no-timing --threads 0 --nextuse-cache off -o "$T/cw$s.db" >/dev/null 2>&1
	check "cow.db 1/16 seed $s: sampled file pages unmapped for their unsampled copies" \
		[ "$(q "$T/cw$s.db" "SELECT value FROM counters WHERE name = 'mr_sample_cow_unmaps'")" -gt 3000 ]
	check "cow.db 1/16 seed $s: mglru swaps nothing at 65605 pages, as in full" \
		[ "$(q "$T/cw$s.db" "SELECT value FROM counters WHERE name = 'pswpout' AND memcg IS NULL")" = 0 ]
	check "cow.db 1/16 seed $s: mglru within 0.5 points of the full replay's 0.4344" \
		sh -c "\"$MR\" curve \"$T/cw$s.db\" --json | sed -n 's/.*\"miss_ratio\": \([0-9.]*\),.*/\1/p' |
			awk '{ d = \$1 - 0.4344; if (d < 0) d = -d; exit !(NR == 1 && d < 0.005) }'"
done
# an address range reused: an earlier private mapping of another file over the same
# range (and 20000 one-page ones below it) must not hide the copies' own file pages
# (the first covering mapping alone was looked at: 0 unmaps and 1042 pages swapped)
cp "$C2" "$T/cw-reuse.db"
sqlite3 "$T/cw-reuse.db" "INSERT INTO vmas SELECT 1000, mm, start - 4096, \"end\", flags, 2, 0, 1, 2
	FROM vmas WHERE id = 27; WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n
	WHERE i < 19999) INSERT INTO vmas SELECT 100000 + i, 3, 4096 * (1000 + i),
	4096 * (1001 + i), 19, 2, 0, 1, 2 FROM n" || echo "FAIL sqlite3 on the cow.db copy"
"$MR" replay "$T/cw-reuse.db" --policy mglru --memory 65605 --sample 1/16 -q --no-timing \
	--threads 0 --nextuse-cache off -o "$T/cwr.db" >/dev/null 2>&1
check "cow.db with a reused address range: the copies still unmap their file pages" \
	[ "$(q "$T/cwr.db" "SELECT value FROM counters WHERE name = 'mr_sample_cow_unmaps'")" -gt 3000 ]
check "cow.db with a reused address range: mglru swaps nothing at 65605 pages" \
	[ "$(q "$T/cwr.db" "SELECT value FROM counters WHERE name = 'pswpout' AND memcg IS NULL")" = 0 ]
check "default.db: the note says how many pages it took" \
	grep -q "sampled 1/16 (seed 0): 1 in 16 pages of each rank of heat, 3702 of 59224 pages" "$T/d.err"
check "default.db: no warning of too few" sh -c "! grep -q \"warning: only\" \"$T/d.err\""
# its three smallest sizes make machines of 116-311 pages, where the kernel's 32-page
# reclaim batches are a far larger share than in the full machine (lru ran 2-5 points
# high there, 0.5-1.7 with the batch slack): the note names them; one large size alone
# does not warn
check "default.db: the note warns of the machines under 512 pages" \
	grep -q "warning: at 19920K and below (3 of the 8 sizes) a sampled machine holds fewer than 512 pages" "$T/d.err"
"$MR" replay "$DB" --policy lru --memory 59224 --sample 1/16 -q --no-timing -o "$T/d-big.db" >/dev/null 2>"$T/dbig.err"
check "default.db at its largest size: no warning of small machines" \
	sh -c "grep -q 'sampled 1/16' \"$T/dbig.err\" && ! grep -q 'fewer than 512 pages' \"$T/dbig.err\""
# whole 2 MiB regions: few of them, and the note says so
"$MR" replay "$DB" $P2 --sample 1/16 --sample-unit 2M -o "$T/d-2m.db" >/dev/null 2>"$T/d2.err"
check "default.db --sample-unit 2M exits 0" [ $? = 0 ]
check "default.db 2M: the note says how many regions it took" \
	grep -q "sampled 1/16 (seed 0): 1 in 16 units of 512 pages (2048 KiB) of each rank of heat, 52 of 832 units" "$T/d2.err"
check "default.db 2M: it warns that they are few" \
	grep -q "warning: only 52 units sampled (fewer than 64)" "$T/d2.err"
check "default.db 2M: meta sample_unit_pages = 512" \
	[ "$(q "$T/d-2m.db" "SELECT value FROM meta WHERE key = 'sample_unit_pages'")" = 512 ]

# the page counts the choice ranks by depend on the trace alone: kept in the cache
# directory beside opt's next-use times, under the same trace identity, and reused; the
# results are those computed without a cache (d-s.db), byte for byte. A damaged file is
# rebuilt; one that others could have written, or a symbolic link, is never read.
PC="$T/pc"
# pc_run OUT: $P2 with the cache directory, and the notes (so not -q) into OUT.err
pc_run() {
	"$MR" replay "$DB" --policy lru --policy opt --memory 1850..59224:8 --no-timing --threads 0 \
		--sample 1/16 --nextuse-cache "$PC" -o "$1.db" >/dev/null 2>"$1.err"
}
pc_run "$T/pc1"
check "page counts: computed and kept in the cache directory" \
	grep -q "sampling's page counts computed in .* and kept in $PC/pagerefs-[0-9a-f]*\.mrpr" "$T/pc1.err"
check "page counts: the results computed without a cache" cmp -s "$T/pc1.db" "$T/d-s.db"
f=$(ls "$PC"/pagerefs-*.mrpr 2>/dev/null)
check "page counts: the file named by the identity opt's next-use file has" \
	[ -n "$f" -a "$(basename "$f" .mrpr | cut -d- -f2)" = \
	  "$(basename "$(ls "$PC"/nextuse-*.mrnu 2>/dev/null)" .mrnu | cut -d- -f2)" ]
pc_run "$T/pc2"
check "page counts: reused from the cache by a second replay" \
	grep -q "sampling's page counts reused from $f" "$T/pc2.err"
check "page counts: reused, the same results" cmp -s "$T/pc2.db" "$T/d-s.db"
# a flipped bit in the words (a block's CRC no longer matches): rebuilt, same results
off=$((128 + 8 * 1000 + 5))
b=$(od -An -tu1 -j $off -N1 "$f" | tr -d ' ')
printf "\\$(printf %03o $((b ^ 64)))" | dd of="$f" bs=1 seek=$off conv=notrunc 2>/dev/null
pc_run "$T/pc3"
check "page counts: a damaged file is rebuilt" \
	grep -q "sampling's page counts computed in .* the file there before was another build's or damaged" "$T/pc3.err"
check "page counts: rebuilt, the same results" cmp -s "$T/pc3.db" "$T/d-s.db"
pc_run "$T/pc4"
check "page counts: the rebuilt file is reused" grep -q "sampling's page counts reused from" "$T/pc4.err"
# pc_distrust LABEL NEEDLE: after the file was made untrustworthy, a replay must not
# read it, say why, give the same results and leave a file of its own (0600, regular)
pc_distrust() {
	pc_run "$T/pcd"
	check "page counts, $1: not trusted, replaced" \
		grep -q "sampling's page counts computed in .*; the file there was $2.*: not trusted, replaced" "$T/pcd.err"
	check "page counts, $1: the same results" cmp -s "$T/pcd.db" "$T/d-s.db"
	check "page counts, $1: replaced by a regular file of mode 600" \
		[ ! -L "$f" -a "$(stat -c %a "$f")" = 600 ]
}
chmod 666 "$f"
pc_distrust "writable by others" "writable by others (mode 0666)"
if [ "$(id -u)" = 0 ]; then
	chown 65534 "$f"
	pc_distrust "owned by another user" "owned by uid 65534"
fi
mv "$f" "$T/real.mrpr"
ln -s "$T/real.mrpr" "$f"
pc_distrust "a symbolic link" "not a regular file (a symbolic link)"

# the miss ratio's references: a recording whose host REFAULT events the sampling pass
# counts as references and the machine does not (12 % of them); taking the trace's
# count for the machine's put opt 4.5 points off, the pass's own share 0.94 (8 sizes)
W=$(dirname "$0")/../traces/kernel-lab/loop-2026-12-02-write/write.db
P3="--policy opt --memory 326..10440:8 -q --no-timing --threads 0 --nextuse-cache off"
"$MR" replay "$W" $P3 -o "$T/w-full.db" >/dev/null 2>&1 || { echo "FAIL write.db full replay"; exit 1; }
"$MR" replay "$W" $P3 --sample 1/16 -o "$T/w-s.db" >/dev/null 2>&1
points "$T/w-full.db" >"$T/wf.txt"
points "$T/w-s.db" >"$T/ws.txt"
mae "$T/wf.txt" "$T/ws.txt" >"$T/wmae.txt"
cat "$T/wmae.txt"
check "write.db: opt within 1.5 pp" awk '$1 == "opt" && $2 <= 1.5 { ok = 1 } END { exit !ok }' "$T/wmae.txt"
# two traces sampled at one rate and seed, merged: a line of each, naming it (both said
# "sampled 1/16 (seed 0) in N of M runs" alike)
"$MR" merge -q -o "$T/two.db" "$T/a.db" "$T/w-s.db" >/dev/null 2>&1
"$MR" compare "$T/two.db" >"$T/two.cmp" 2>&1
"$MR" curve "$T/two.db" >"$T/two.crv" 2>&1
check "compare and curve of two sampled traces: a 'sampled 1/16 (seed 0)' line per trace" \
	sh -c "grep -q '^sampled 1/16 (seed 0) in 12 of 20 runs (z.db)' '$T/two.cmp' &&
	       grep -q '^sampled 1/16 (seed 0) in 8 of 20 runs (write.db)' '$T/two.cmp' &&
	       grep -q '^sampled 1/16 (seed 0): 12 of the 20 runs of z.db ' '$T/two.crv' &&
	       grep -q '^sampled 1/16 (seed 0): 8 of the 20 runs of write.db ' '$T/two.crv'"

# a file read through a mapping (kernel-lab's mmapseq.db: a sequential loop over a
# mapped file): most of its pages are mapped by fault-around of their neighbours'
# faults. The faults of unsampled pages still map the sampled pages of their window, so
# a sampled machine maps about 1/16 of what the full one maps (measured 0.98-1.08 of it
# times 16; when only sampled pages' faults did, 0.03-0.06), and lru's curve is within
# 0.3 points (0.10; it was 0.72)
M=$(dirname "$0")/../traces/kernel-lab/loop-2026-12-02/mmapseq.db
P4="--policy lru --policy mglru --memory 2055..65786:8 -q --no-timing --threads 0 --nextuse-cache off"
"$MR" replay "$M" $P4 -o "$T/m-full.db" >/dev/null 2>&1 || { echo "FAIL mmapseq.db full replay"; exit 1; }
"$MR" replay "$M" $P4 --sample 1/16 -o "$T/m-s.db" >/dev/null 2>&1
FA="SELECT r.policy, r.memory_pages, c.value FROM counters c JOIN runs r ON r.id = c.run
    WHERE c.name = 'mr_fault_around' AND c.memcg IS NULL ORDER BY 1, 2"
q "$T/m-full.db" "$FA" | tr , ' ' >"$T/faf.txt"
q "$T/m-s.db" "$FA" | tr , ' ' >"$T/fas.txt"
paste -d' ' "$T/faf.txt" "$T/fas.txt" >"$T/fa.txt"
check "mmapseq.db: 16 runs' fault-around compared" [ "$(wc -l <"$T/fa.txt")" = 16 ]
check "mmapseq.db: a sampled machine maps by fault-around 0.9-1.1 of the full one's / 16" \
	awk '{ r = 16 * $6 / $3; if (r < 0.9 || r > 1.1) bad = 1 } END { exit bad }' "$T/fa.txt"
points "$T/m-full.db" >"$T/mf.txt"
points "$T/m-s.db" >"$T/ms.txt"
mae "$T/mf.txt" "$T/ms.txt" >"$T/mmae.txt"
cat "$T/mmae.txt"
check "mmapseq.db: lru within 0.3 pp" awk '$1 == "lru" && $2 <= 0.3 { ok = 1 } END { exit !ok }' "$T/mmae.txt"

# the adjusted miss ratio is at most 1: kernel-lab's seq.db at 2000 pages, seed 3, where
# mglru's sampled machine misses 0.975 of its references and has fewer than its share,
# scaled to 1.004 before
S=$(dirname "$0")/../traces/kernel-lab/loop-2026-12-01/seq.db
"$MR" replay "$S" --policy mglru --memory 2000 --sample 1/16 --sample-seed 3 -q --no-timing \
	--threads 0 -o "$T/seq3.db" >/dev/null 2>&1
"$MR" curve "$T/seq3.db" --json >"$T/seq3.json" 2>/dev/null
check "seq.db seed 3: the raw ratio under 1, the adjusted one 1 exactly, not above" \
	python3 -c "import json; r = json.load(open('$T/seq3.json'))['runs'][0]
assert 0.9 < r['miss_ratio_raw'] < 1 and r['miss_ratio'] == 1.0, r"

# bench sample --seeds: one row per policy with the unit and the seeds, the worst seed's
# mean at least the mean, the largest error at least the worst seed's mean
"$MR" bench sample --no-zipf --seeds 2 --dir "$T" --trace "$W" >"$T/bench.txt" 2>/dev/null
check "bench sample --seeds 2 exits 0" [ $? = 0 ]
check "bench sample: three rows of write.db, 4K units, 2 seeds" \
	[ "$(awk '$1 == "write.db" && $6 == "4K" && $7 == 2' "$T/bench.txt" | wc -l)" = 3 ]
check "bench sample: worst seed >= mean, largest >= worst seed" \
	awk '$1 == "write.db" { n++; if ($9 < $8 || $10 < $9) bad = 1 } END { exit bad || n != 3 }' "$T/bench.txt"
check "bench sample: the page counts' pass timed apart, +counts = (sampled + counts) / 1-size" \
	awk '$1 == "write.db" { n++; if ($16 < 0 || $19 < $18) bad = 1 } END { exit bad || n != 3 }' "$T/bench.txt"
# |mean of the seeds - full| <= the mean of |seed - full| (the triangle inequality)
check "bench sample: the seeds' mean curve's error at most each seed's mean error" \
	awk '$1 == "write.db" { n++; if ($12 > $8 + 0.0015 || $12 < 0) bad = 1 } END { exit bad || n != 3 }' "$T/bench.txt"
"$MR" bench sample --no-zipf --unit 2M --dir "$T" --trace "$W" >"$T/bench2.txt" 2>/dev/null
check "bench sample --unit 2M: its rows say 2048K" \
	[ "$(awk '$1 == "write.db" && $6 == "2048K" && $7 == 1' "$T/bench2.txt" | wc -l)" = 3 ]

# 1/1 keeps every page: the full replay's counters exactly (a smaller trace)
"$MR" gen zipf -o "$T/small.db" --pages 16384 --events 200K --seed 2 >/dev/null 2>&1
P1="--policy lru --policy mglru --policy opt --memory 8M,32M -q --no-timing --threads 0 --nextuse-cache off"
"$MR" replay "$T/small.db" $P1 -o "$T/small-full.db" >/dev/null 2>&1
"$MR" replay "$T/small.db" $P1 --sample 1/1 -o "$T/one.db" >/dev/null 2>&1
C="SELECT run, memcg, name, value FROM counters WHERE name NOT LIKE 'mr_sample_%' ORDER BY run, memcg, name"
check "--sample 1/1: the full replay's counters" [ "$(q "$T/one.db" "$C")" = "$(q "$T/small-full.db" "$C")" ]
S="SELECT run, seg, name, value FROM segment_counters ORDER BY run, name, seg"
check "--sample 1/1: the full replay's segments" [ "$(q "$T/one.db" "$S")" = "$(q "$T/small-full.db" "$S")" ]

# bad rates
for bad in 0 2/1 x 1/0 0.0625 1/ 1/65537; do
	"$MR" replay "$T/z.db" --policy lru --memory 64M --sample "$bad" -q >/dev/null 2>"$T/bad.err"
	rc=$?
	check "--sample $bad refused" [ $rc != 0 ]
	check "--sample $bad: the message says how to give it" grep -q "give the rate as 1/N" "$T/bad.err"
done
"$MR" replay "$T/z.db" --policy lru --memory 64M --sample-seed 3 -q >/dev/null 2>"$T/bad.err"
check "--sample-seed without --sample refused" [ $? != 0 ]
for bad in 1,1 3..1 0..64 x 0, -1 1.. 0x10; do
	"$MR" replay "$T/z.db" --policy lru --memory 64M --sample 1/16 --sample-seed "$bad" -q >/dev/null 2>"$T/bad.err"
	rc=$?
	check "--sample-seed $bad refused (2), saying the forms" \
		sh -c "[ $rc = 2 ] && grep -q 'a list 0,1,2 or a range 0..3' '$T/bad.err'"
done
# ... and what is wrong with it
for c in "1,1:seed 1 given twice" "3..1:the range 3..1 runs downwards" "0..64:more seeds than 64" \
	 "0x10:not a number where" "0,:a seed missing" "18446744073709551616:a seed above 2^64 - 1"; do
	"$MR" replay "$T/z.db" --policy lru --memory 64M --sample 1/16 --sample-seed "${c%%:*}" -q \
		>/dev/null 2>"$T/bad.err"
	check "--sample-seed ${c%%:*}: '${c#*:}'" grep -qF -- "${c#*:}" "$T/bad.err"
done
for bad in 0 12K 4M x 3K 6K; do # 3K and 6K ran as 4K and 8K
	"$MR" replay "$T/z.db" --policy lru --memory 64M --sample 1/16 --sample-unit "$bad" -q >/dev/null 2>"$T/bad.err"
	rc=$?
	check "--sample-unit $bad refused" [ $rc != 0 ]
	check "--sample-unit $bad: the message says what to give" grep -q "give a power of two from 4K" "$T/bad.err"
done
"$MR" replay "$T/z.db" --policy lru --memory 64M --sample-unit 2M -q >/dev/null 2>"$T/bad.err"
check "--sample-unit without --sample refused" [ $? != 0 ]
"$MR" replay "$T/z.db" --policy lru --memory 16M,16400K --sample 1/16 --sample-unit 2M -q >/dev/null 2>"$T/bad.err"
check "sizes that scale to one refused" grep -q "both scale to" "$T/bad.err"
"$MR" replay "$T/z.db" --policy lru --memory 64M --sample 1/65536 --sample-unit 2M -q >/dev/null 2>"$T/bad.err"
check "a rate that keeps no page refused" grep -q "keeps none of the" "$T/bad.err"

[ $fail = 0 ] && echo "all ok"
exit $fail
