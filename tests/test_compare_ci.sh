#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# test_compare_ci.sh MEMREPLAY - the 95 % intervals of compare's deltas, on real replays
# of generated traces (docs/results-schema.md, "segments" and "compare: intervals").
set -u
MR=$1
T=$(mktemp -d)
# opt's next-use times are cached per trace: here, not in the user's ~/.cache
export MEMREPLAY_CACHE="$T/cache"
trap 'rm -rf "$T"' EXIT
pass=0
fail=0

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
# q DB SQL: one value
q() { "$MR" query "$1" "$2" | tail -n +2; }
# field CSV COUNTER RUN COLUMN: one field of compare --csv output (columns by header name)
field() {
	awk -F, -v c="$2" -v r="$3" -v col="$4" '
		NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
		{ n = split($0, f, ","); }
		$1 == c && $2 == r { print f[h[col] + (n - 13)]; exit }' "$1"
}

if ! "$MR" gen loop -o "$T/loop.db" --size 2M --passes 3 --seed 5 >/dev/null 2>"$T/err" ||
   ! "$MR" gen zipf -o "$T/z1.db" --pages 4096 --events 100K --skew 1.0 --seed 1 >/dev/null 2>>"$T/err" ||
   ! "$MR" gen zipf -o "$T/z2.db" --pages 4096 --events 100K --skew 1.0 --seed 2 >/dev/null 2>>"$T/err" ||
   ! "$MR" gen zipf -o "$T/z3.db" --pages 4096 --events 100K --skew 1.0 --seed 3 >/dev/null 2>>"$T/err"; then
	echo "FAIL: gen: $(cat "$T/err")"; exit 1
fi

# --- the replay's segments: 64 equal-event parts that add up to the run's counters
"$MR" replay "$T/z1.db" --policy lru --policy lru --policy opt --policy mglru --memory 6M -q --no-timing \
	-o "$T/r.db" >/dev/null 2>"$T/err" || bad "replay: $(cat "$T/err")"
[ "$(q "$T/r.db" "SELECT count(*) FROM segments WHERE run = 1")" = 64 ] && ok || bad "run 1 has not 64 segments"
# contiguous, covering every event, with times in order
[ "$(q "$T/r.db" "SELECT count(*) FROM segments a JOIN segments b ON b.run = a.run AND b.seg = a.seg + 1
	WHERE b.event_first <> a.event_end OR b.t_first_ns < a.t_last_ns OR a.t_last_ns < a.t_first_ns")" = 0 ] &&
	ok || bad "segments are not contiguous"
[ "$(q "$T/r.db" "SELECT min(event_first) || ' ' || max(event_end) FROM segments WHERE run = 2")" = \
  "0 $(q "$T/r.db" "SELECT trace_events FROM runs WHERE id = 2")" ] && ok || bad "segments do not cover the trace"
# equal parts: sizes differ by at most one event
[ "$(q "$T/r.db" "SELECT max(event_end - event_first) - min(event_end - event_first) <= 1 FROM segments")" = 1 ] &&
	ok || bad "segments are not equal-event"
# every counted counter: its increments sum to its final value; no gauge is kept
[ "$(q "$T/r.db" "SELECT count(*) FROM (SELECT run, name, sum(value) v FROM segment_counters GROUP BY run, name) s
	JOIN vmstat c ON c.run = s.run AND c.name = s.name WHERE s.v <> c.value")" = 0 ] && ok ||
	bad "segment increments do not add up to the counters"
# each segment counts its own events (a boundary falls inside a decode batch)
[ "$(q "$T/r.db" "SELECT count(*) || ' ' || sum(c.value <> s.event_end - s.event_first) FROM segments s
	JOIN segment_counters c ON c.run = s.run AND c.seg = s.seg AND c.name = 'mr_events'")" = "256 0" ] && ok ||
	bad "a segment's mr_events is not its events"
[ "$(q "$T/r.db" "SELECT count(*) FROM segment_counters WHERE name IN ('mr_misses', 'mr_refaults', 'pswpout')")" -gt 0 ] &&
	ok || bad "no segment increments of the misses"
[ "$(q "$T/r.db" "SELECT count(*) FROM segment_counters WHERE name LIKE 'nr\_%' ESCAPE '\' AND name <> 'nr_vmscan_immediate_reclaim'
	OR name IN ('mr_resident', 'mr_usage_max', 'mr_swap_used', 'mr_swap_max')")" = 0 ] && ok || bad "gauges in segment_counters"

# --- compare: bounds present and ordered
"$MR" compare "$T/r.db" --csv >"$T/r.csv" || bad "compare --csv failed"
head -1 "$T/r.csv" | grep -q ",delta_lo,delta_hi,delta_pct_lo,delta_pct_hi,noise$" && ok || bad "CSV header lacks the bounds"
n=$(awk -F, 'NR > 1 && $(NF-4) != "" { k++; if ($(NF-4) + 0 > $(NF-3) + 0) bad++ } END { print k + 0, bad + 0 }' "$T/r.csv")
[ "${n% *}" -gt 20 ] && [ "${n#* }" = 0 ] && ok || bad "bounds missing or lo > hi ($n)"
for r in 3 4; do
	lo=$(field "$T/r.csv" mr_misses $r delta_lo); hi=$(field "$T/r.csv" mr_misses $r delta_hi)
	d=$(field "$T/r.csv" mr_misses $r delta)
	[ -n "$lo" ] && [ -n "$hi" ] && awk -v l="$lo" -v h="$hi" -v d="$d" 'BEGIN { exit !(l <= d && d <= h) }' &&
		ok || bad "run $r: mr_misses delta $d not inside its interval [$lo, $hi]"
done
# a gauge has no interval
[ -z "$(field "$T/r.csv" mr_resident 3 delta_lo)" ] && [ -n "$(field "$T/r.csv" mr_resident 3 delta)" ] &&
	ok || bad "mr_resident (a gauge) got an interval"
# identical specs: delta 0, interval [0, 0], noise
for c in mr_misses mr_refaults pswpout mr_evictions; do
	[ "$(field "$T/r.csv" $c 2 delta),$(field "$T/r.csv" $c 2 delta_lo),$(field "$T/r.csv" $c 2 delta_hi),$(field "$T/r.csv" $c 2 noise)" = "0,0,0,1" ] &&
		ok || bad "identical specs: $c of run 2 is not 0 in [0,0] marked noise"
done
# a real, large delta: opt against lru at a size that does not hold the working set
[ "$(field "$T/r.csv" mr_misses 3 noise)" = 0 ] && awk -v h="$(field "$T/r.csv" mr_misses 3 delta_hi)" 'BEGIN { exit !(h < 0) }' &&
	ok || bad "opt's fewer misses than lru are inside noise"
"$MR" compare "$T/r.db" --counters mr_misses,mr_refaults >"$T/r.txt" || bad "compare (table) failed"
grep -q "^mr_misses .*(+0, +0.0% \[+0.0,+0.0\]~)" "$T/r.txt" && ok || bad "table: identical specs not shown as [+0.0,+0.0]~"
grep -q "paired block" "$T/r.txt" && ok || bad "table: no word on what the interval is"
"$MR" compare "$T/r.db" --json >"$T/r.json" || bad "compare --json failed"
grep -q '"intervals": {"level": 0.95, "method": "paired circular block bootstrap", "segments": 64, "block": 4, "resamples": 1999' "$T/r.json" &&
	grep -q '"delta_lo": \[' "$T/r.json" && grep -q '"noise": \[true, true, false' "$T/r.json" && ok || bad "JSON lacks the intervals"

# --- determinism: the same compare twice, and the same replay twice, byte for byte
for f in --csv --json ""; do
	"$MR" compare "$T/r.db" $f >"$T/a.out"; "$MR" compare "$T/r.db" $f >"$T/b.out"
	cmp -s "$T/a.out" "$T/b.out" && ok || bad "compare $f is not byte-identical"
done
"$MR" replay "$T/z1.db" --policy lru --policy lru --policy opt --policy mglru --memory 6M -q --no-timing --threads 2 \
	-o "$T/r2.db" >/dev/null 2>&1
cmp -s "$T/r.db" "$T/r2.db" && ok || bad "results with segments are not byte-identical across --threads"
# a machine per thread decodes short batches (16384 events), several per thread one
# batch of the whole trace here (replayer/replay.c, batch_events()): same bytes
for n in 4 1; do
	"$MR" replay "$T/z1.db" --policy lru --policy lru --policy opt --policy mglru --memory 6M -q --no-timing \
		--threads $n -o "$T/r3-$n.db" >/dev/null 2>"$T/err" || bad "replay --threads $n: $(cat "$T/err")"
done
cmp -s "$T/r3-4.db" "$T/r3-1.db" && cmp -s "$T/r.db" "$T/r3-1.db" && ok ||
	bad "results are not byte-identical across batch sizes (--threads 4 and 1)"

# --- across recordings: three traces of one workload
for i in 1 2 3; do
	"$MR" replay "$T/z$i.db" --policy mglru --policy lru --policy opt --memory 4M,6M -q --no-timing \
		-o "$T/m$i.db" >/dev/null 2>"$T/err" || bad "replay z$i: $(cat "$T/err")"
done
"$MR" compare "$T/m1.db" "$T/m2.db" "$T/m3.db" --baseline mglru >"$T/m.txt" 2>"$T/m.err" || bad "compare of three files failed: $(cat "$T/m.err")"
grep -q "^across 3 results files" "$T/m.txt" && ok || bad "no across-files header"
grep -Eq "^mr_misses +opt +4M +3 +-[0-9.]+% +[0-9.]+% +-[0-9.]+% +-[0-9.]+% +\[-[0-9.]+%,[-+][0-9.]+%\] +3 of 3$" "$T/m.txt" &&
	ok || bad "opt at 4M: no mean, sd, min, max, t interval over 3 files (outside noise in all)"
"$MR" compare "$T/m1.db" "$T/m2.db" "$T/m3.db" --baseline mglru --csv >"$T/m.csv"
# mean, min and max agree with the three files' own deltas
want=$(for i in 1 2 3; do "$MR" compare "$T/m$i.db" --baseline mglru --csv | awk -F, '$1 == "mr_misses" && $2 == 3 { print $7 }'; done |
	awk '{ s += $1; if (NR == 1 || $1 < lo) lo = $1; if (NR == 1 || $1 > hi) hi = $1 } END { printf "%.4f %.4f %.4f", s / NR, lo, hi }')
got=$(awk -F, '$1 == "\"mr_misses\"" && $2 == "\"opt\"" && $3 == 1024 { printf "%.4f %.4f %.4f", $6, $8, $9 }' "$T/m.csv")
[ -n "$want" ] && [ "$want" = "$got" ] && ok || bad "across files: mean/min/max '$got', the files say '$want'"
"$MR" compare "$T/m1.db" "$T/m1.db" --baseline mglru >/dev/null 2>"$T/m.err"
[ $? = 2 ] && grep -q "is given twice" "$T/m.err" && ok || bad "the same file twice is not refused"
# two sampling seeds in one file: each pass cuts its own segments (their counts can
# differ); every run still has its interval against its own seed's baseline
"$MR" replay "$T/z1.db" --policy lru --policy mglru --memory 1M,2M --sample 1/4 --sample-seed 0,1 -q \
	--no-timing -o "$T/s01.db" >/dev/null 2>"$T/err" || bad "replay --sample-seed 0,1: $(cat "$T/err")"
segs=$("$MR" query "$T/s01.db" --csv "SELECT count(DISTINCT n) FROM (SELECT count(*) n FROM segments GROUP BY run)" | tail -1)
noci=$("$MR" compare "$T/s01.db" --counters mr_misses --csv | awk -F, 'NR > 1 && $NF == ""' | wc -l)
[ "$noci" = 0 ] && ok || bad "a sampled file of two seeds ($segs segment counts): $noci runs without an interval"
# two recordings sampled with two seeds each: across them, a row per seed
"$MR" replay "$T/z2.db" --policy lru --policy mglru --memory 1M,2M --sample 1/4 --sample-seed 0,1 -q \
	--no-timing -o "$T/s01b.db" >/dev/null 2>"$T/err" || bad "replay z2 --sample-seed 0,1: $(cat "$T/err")"
"$MR" compare "$T/s01.db" "$T/s01b.db" --baseline lru --counters mr_misses >"$T/s01x.txt" 2>&1
a0=$(grep "^mr_misses  *mglru (sampled 1/4 seed 0)  *1M " "$T/s01x.txt" | tr -s ' ' | cut -d' ' -f8-)
a1=$(grep "^mr_misses  *mglru (sampled 1/4 seed 1)  *1M " "$T/s01x.txt" | tr -s ' ' | cut -d' ' -f8-)
want1=$(for f in s01 s01b; do "$MR" compare "$T/$f.db" --baseline lru --counters mr_misses --csv |
	awk -F, '$1 == "mr_misses" && $3 ~ /^"mglru/ && $8 == 256 { print $7 }' | sed -n 2p; done | tr '\n' ' ')
[ -n "$a0" ] && [ -n "$a1" ] && [ "$a0" != "$a1" ] && ok ||
	bad "across two sampled recordings: seeds 0 and 1 not two rows ($a0 / $a1; seed 1's deltas: $want1): $(cat "$T/s01x.txt" | head -8)"
# the three recordings merged into one file: --across-traces gives the same table,
# each trace named after its file
"$MR" merge -q -o "$T/mall.db" "$T/m1.db" "$T/m2.db" "$T/m3.db" 2>"$T/err" || bad "merge: $(cat "$T/err")"
"$MR" compare "$T/mall.db" --across-traces --baseline mglru >"$T/ma.txt" 2>"$T/err"
diff <(sed -n '5,$p' "$T/m.txt") <(sed -n '5,$p' "$T/ma.txt") >/dev/null &&
	grep -Eq "mall.db \(.*z2.db\)" "$T/ma.txt" && ok || bad "--across-traces of the merge differs from the files: $(diff "$T/m.txt" "$T/ma.txt" | head -5) $(cat "$T/err")"
"$MR" compare "$T/mall.db" --across-traces --baseline 1 >/dev/null 2>"$T/err"
[ $? = 1 ] && grep -Eq "mall.db, trace .*z2.db: no run matches baseline '1'" "$T/err" && ok ||
	bad "--across-traces --baseline 1 does not name the trace without run 1: $(cat "$T/err")"
"$MR" compare "$T/m1.db" --across-traces >/dev/null 2>"$T/err"
[ $? = 1 ] && grep -q "holds one trace" "$T/err" && ok || bad "--across-traces of one trace: $(cat "$T/err")"
# a file whose baseline is 0 for a counter has no percentage: out of n and of the
# "outside noise" count alike (mglru's mr_misses at 4M zeroed with its segments)
cp "$T/m3.db" "$T/m3z.db"
sqlite3 "$T/m3z.db" "UPDATE counters SET value = 0 WHERE name = 'mr_misses' AND run IN
	(SELECT id FROM runs WHERE policy = 'mglru' AND memory_pages = 1024);
	UPDATE segment_counters SET value = 0 WHERE name = 'mr_misses' AND run IN
	(SELECT id FROM runs WHERE policy = 'mglru' AND memory_pages = 1024)" 2>"$T/err" || bad "zeroing: $(cat "$T/err")"
"$MR" compare "$T/m1.db" "$T/m2.db" "$T/m3z.db" --baseline mglru >"$T/mz.txt" 2>"$T/err"
grep -Eq "^mr_misses +opt +4M +2 +.* [0-9] of 2$" "$T/mz.txt" && ok ||
	bad "a zero baseline: n and outside noise disagree: $(grep '^mr_misses *opt *4M' "$T/mz.txt")"
# a baseline no run matches: the runs as people write them, not canonical specs
"$MR" compare "$T/m1.db" --baseline nosuch >/dev/null 2>"$T/m.err"
grep -q "no run matches baseline 'nosuch' (runs: 1=[a-z]" "$T/m.err" && ! grep -q "swappiness=60" "$T/m.err" &&
	ok || bad "--baseline nosuch: $(cat "$T/m.err")"
# --baseline as the runs list shows it: a parameter that is not the first, defaults left
# out; and a bare policy name is that policy at its defaults, not the first run it prefixes
"$MR" replay "$T/z1.db" --policy lru --policy mglru:inc_min_seq=v3,lru_gen_stats=1 --policy mglru \
	--memory 4M -q --no-timing -o "$T/bs.db" >/dev/null 2>"$T/err" || bad "replay for --baseline: $(cat "$T/err")"
"$MR" compare "$T/bs.db" --baseline mglru:lru_gen_stats=1,inc_min_seq=v3 2>"$T/err" | grep -q '^  \*#2 ' &&
	ok || bad "--baseline by short spec (parameters in another order): $(cat "$T/err")"
"$MR" compare "$T/bs.db" --baseline mglru 2>"$T/err" | grep -q '^  \*#3  mglru$' &&
	ok || bad "--baseline mglru did not pick mglru at its defaults"
cp "$T/m1.db" "$T/m1c.db"
"$MR" compare "$T/m1.db" "$T/m1c.db" --baseline mglru >/dev/null 2>"$T/m.err"
grep -q "replay the same trace" "$T/m.err" && ok || bad "a copy of a file is not flagged"
"$MR" compare "$T/m1.db" "$T/m2.db" --baseline lru --json | grep -q '"sd_pct": ' && ok || bad "across files: JSON"

# --- the sign of a delta across sizes: on a kernel build the classic LRU refaults more
# than MGLRU when memory is tight and less when it is not (the question linux-mm asks:
# where does MGLRU do worse)
"$MR" gen kbuild -o "$T/kb.db" --tasks 20 >/dev/null 2>"$T/err" || bad "gen kbuild: $(cat "$T/err")"
"$MR" replay "$T/kb.db" --policy mglru --policy lru --memory 8M,32M -q --no-timing \
	-o "$T/kb-r.db" >/dev/null 2>"$T/err" || bad "replay kbuild: $(cat "$T/err")"
"$MR" compare "$T/kb-r.db" --baseline mglru >"$T/kb.txt"
grep -Eq "^  lru  mr_refaults  flips +\+[0-9.]+% at 8M, -[0-9.]+% at 32M$" "$T/kb.txt" &&
	ok || { bad "no sign flip of lru's refaults between 8M and 32M:"; sed -n '/^sign/,$p' "$T/kb.txt"; }
"$MR" compare "$T/kb-r.db" --baseline mglru --json | grep -q '"counter": "mr_refaults", "status": "flips", "sizes": \[{"run": 2, "memory_pages": 2048' &&
	ok || bad "JSON signs lack the flip"
# one that keeps its sign: opt against lru over sizes of the loop trace, and ~ where the
# interval contains 0
"$MR" replay "$T/loop.db" --policy lru --policy opt --memory 512K,1M,2M -q --no-timing -o "$T/l.db" >/dev/null 2>&1
"$MR" compare "$T/l.db" >"$T/l.txt"
grep -Eq "^  opt  mr_misses    keeps - +-[0-9.]+% at 512K, -[0-9.]+% at 1M, \+0.0%~ at 2M$" "$T/l.txt" && ok ||
	{ bad "opt against lru does not keep its sign:"; sed -n '/^sign/,$p' "$T/l.txt"; }

# --- a results file from before segments: compares, without intervals, said once
cp "$T/r.db" "$T/old.db"
sqlite3 "$T/old.db" "DROP TABLE segments; DROP TABLE segment_counters; VACUUM;" || bad "sqlite3"
"$MR" compare "$T/old.db" >"$T/old.txt" 2>"$T/old.err" && ok || bad "compare of a file without segments failed"
[ "$(grep -c "has no segments" "$T/old.err")" = 1 ] && ok || bad "no single note about the missing segments: $(cat "$T/old.err")"
grep -q "^mr_misses .*(-[0-9]*, -[0-9.]*%)" "$T/old.txt" && ! grep -q "\[" "$T/old.txt" && ok || bad "old file: deltas or stray intervals"
"$MR" compare "$T/old.db" --csv 2>/dev/null | awk -F, 'NR > 1 && $(NF-4) != "" { e = 1 } END { exit e }' && ok || bad "old file: CSV has bounds"
"$MR" compare "$T/old.db" --json 2>/dev/null | grep -q '"intervals": null' && ok || bad "old file: JSON intervals not null"

echo "test_compare_ci: $pass passed, $fail failed"
[ "$fail" = 0 ]
