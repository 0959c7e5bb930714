#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# test_cli_sweep.sh MEMREPLAY GOLDEN_DIR DEFAULT_TRACE [--update] - memory sweeps and
# curves on the command line: `replay --memory` lists and ranges (and their errors),
# `compare` on a sweep, `curve` (table, CSV, JSON, SVG) on DEFAULT_TRACE
# (traces/default.db), against expected output in GOLDEN_DIR (tests/golden/cli/). A
# difference fails and prints a diff; after reviewing a deliberate change, rewrite the
# files with
#   MR_GOLDEN_UPDATE=1 ctest -R cli_sweep
set -u
MR=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
GOLD=$2
DEFAULT=$(cd "$(dirname "$3")" && pwd)/$(basename "$3")
UPDATE=${4:-}
[ "${MR_GOLDEN_UPDATE:-0}" = 1 ] && UPDATE=--update
T=$(mktemp -d)
# opt's next-use times are cached per trace: here, not in the user's ~/.cache
export MEMREPLAY_CACHE="$T/cache"
trap 'rm -rf "$T"' EXIT
pass=0
fail=0

# expect STATUS NEEDLE -- CMD...: exit status and a message fragment on stderr/stdout.
expect() {
	local want=$1 needle=$2
	shift 3
	local out rc
	out=$("$@" 2>&1)
	rc=$?
	if [ "$rc" = "$want" ] && grep -qF -- "$needle" <<<"$out"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL: $* -> exit $rc (want $want), output:"
		sed 's/^/    /' <<<"$out"
		echo "    (wanted to see: $needle)"
	fi
}

# check NAME -- CMD...: run CMD in $T (so that paths it prints are relative), compare
# stdout with GOLD/NAME.txt.
check() {
	local name=$1
	shift 2
	if ! (cd "$T" && "$@") >"$T/$name.out" 2>"$T/$name.err"; then
		fail=$((fail + 1)); echo "FAIL: $name: $* exited non-zero: $(cat "$T/$name.err")"; return
	fi
	if [ "$UPDATE" = --update ]; then
		cp "$T/$name.out" "$GOLD/$name.txt" && echo "updated $GOLD/$name.txt"
		pass=$((pass + 1))
	elif [ ! -f "$GOLD/$name.txt" ]; then
		fail=$((fail + 1)); echo "FAIL: $GOLD/$name.txt missing (run with MR_GOLDEN_UPDATE=1 to create it)"
	elif diff -u "$GOLD/$name.txt" "$T/$name.out" >"$T/diff"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1)); echo "FAIL: $name output differs from $GOLD/$name.txt:"; head -40 "$T/diff"
	fi
}

if ! "$MR" gen loop -o "$T/a.db" --size 2M --passes 2 --seed 7 >/dev/null 2>"$T/err" ||
   ! "$MR" gen loop -o "$T/loop.db" --size 2M --passes 3 --seed 5 >/dev/null 2>"$T/err"; then
	echo "FAIL: gen: $(cat "$T/err")"; exit 1
fi

# Several memory sizes in one pass: lists, ranges, repeated --memory; cgroup limits take
# one size; the same size twice is an error, not a silently kept last value.
expect 0 "2 policies at 3 memory sizes (6 runs) in one pass" -- "$MR" replay "$T/a.db" --policy lru --policy opt --memory 512K,1M --memory 2M -q --no-timing -o "$T/sw.db"
expect 0 "1|lru|128,2|opt|128,3|lru|256,4|opt|256,5|lru|512,6|opt|512" -- "$MR" query "$T/sw.db" "SELECT group_concat(id || '|' || policy || '|' || memory_pages) FROM runs"
expect 0 "3 memory sizes" -- "$MR" replay "$T/a.db" --policy lru --memory 512K..2M:3 -q --no-timing
expect 0 "3 memory sizes" -- "$MR" replay "$T/a.db" --policy lru --memory 512K..2M:x2 -q --no-timing
expect 0 "4 memory sizes" -- "$MR" replay "$T/a.db" --policy lru --memory 512K..2M:+512K -q --no-timing
expect 0 "2 memory sizes" -- "$MR" replay "$T/a.db" --policy lru --memory 1M,2M --memory 1=1536K -q --no-timing
expect 2 "1M (256 pages) comes twice" -- "$MR" replay "$T/a.db" --policy lru --memory 1M --memory 1M
expect 2 "takes one size" -- "$MR" replay "$T/a.db" --policy lru --memory 1=1M,2M
expect 2 "cgroup 1 is given twice" -- "$MR" replay "$T/a.db" --policy lru --memory 1=1M --memory 1=2M
expect 2 "needs a count, factor or step" -- "$MR" replay "$T/a.db" --policy lru --memory 1M..2M
expect 2 "must go up" -- "$MR" replay "$T/a.db" --policy lru --memory 2M..1M:3

# The exact output of a sweep (the same trace and policies as test_cli_golden.sh).
P=(--policy lru --policy mglru --policy opt)
check replay_sweep_table -- "$MR" replay loop.db "${P[@]}" --memory 512K..2M:3 -q --no-timing -o s.db
# compare within a size: mglru is each size's baseline
check compare_sweep_table -- "$MR" compare s.db --baseline mglru --counters pgfault,mr_misses,mr_evictions
expect 0 "memory_pages" -- "$MR" compare "$T/s.db" --csv
expect 0 "\"baseline\": 4" -- "$MR" compare "$T/s.db" --json
# the same command twice: the same results file, byte for byte
(cd "$T" && "$MR" replay loop.db "${P[@]}" --memory 512K..2M:3 -q --no-timing -o s2.db >/dev/null)
if cmp -s "$T/s.db" "$T/s2.db"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: sweep results not byte-identical"; fi

# The curve of traces/default.db: lru, mglru, opt at 8 sizes, and its formats.
cp "$DEFAULT" "$T/default.db"
check curve_default_replay -- "$MR" replay default.db "${P[@]}" --memory 4M..128M:x2 --memory 96M -q --no-timing -o c.db
check curve_default_table -- "$MR" curve c.db
expect 0 "run,policy,spec,memory_pages,references,misses,miss_ratio" -- "$MR" curve "$T/c.db" --csv
expect 0 "\"miss_ratio\": 0." -- "$MR" curve "$T/c.db" --json
# more memory, more misses: mglru on default.db from 23200K to 23400K (marked ^)
(cd "$T" && "$MR" replay default.db --policy mglru --memory 23200K,23400K -q --no-timing -o up.db >/dev/null 2>&1)
expect 0 "23400K    72.175^" -- "$MR" curve "$T/up.db"
# ... also where another column has a size in between (merged beside it)
(cd "$T" && "$MR" replay default.db --policy lru --memory 23300K -q --no-timing -o mid.db >/dev/null 2>&1 &&
	"$MR" merge -q -o um.db up.db mid.db)
expect 0 "23400K    72.175^          -" -- "$MR" curve "$T/um.db"
expect 0 "^: above the miss ratio at the next smaller size" -- "$MR" curve "$T/up.db"
expect 0 "\"miss_ratio_mean\": 0.721747, \"miss_ratio_min\": 0.721747, \"miss_ratio_max\": 0.721747, \"oom\": false, \"rises\": true" -- "$MR" curve "$T/up.db" --json
# the view gives the same ratios to sqlite3 users
a=$("$MR" curve "$T/c.db" --json | sed -n 's/.*"run": \([0-9]*\),.*"miss_ratio": \([0-9.]*\),.*/\1 \2/p' | sort -n)
b=$("$MR" query "$T/c.db" "SELECT run, printf('%.6f', miss_ratio) FROM curve ORDER BY run" | tail -n +2 | tr '\t' ' ')
if [ -n "$a" ] && [ "$a" = "$b" ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: the curve view differs from curve --csv:"; diff <(echo "$a") <(echo "$b") | head; fi
# misses never exceed the references they come from
expect 0 "0" -- "$MR" query "$T/c.db" "SELECT count(*) FROM curve WHERE misses > refs OR miss_ratio > 1"
# the plot: self-contained, one line per policy, the same bytes each time
expect 0 "" -- "$MR" curve "$T/c.db" -o "$T/c.svg"
"$MR" curve "$T/c.db" -o "$T/c2.svg" >/dev/null
if [ "$(grep -c '<polyline' "$T/c.svg")" = 3 ] && grep -q '</svg>' "$T/c.svg" &&
   ! grep -qi 'href\|<script\|http://[^w]' "$T/c.svg" && cmp -s "$T/c.svg" "$T/c2.svg"; then
	pass=$((pass + 1))
else
	fail=$((fail + 1)); echo "FAIL: curve -o: not a self-contained, deterministic SVG with 3 lines"
fi
if command -v xmllint >/dev/null; then
	expect 0 "" -- xmllint --noout "$T/c.svg"
fi
expect 1 "exists and is not an SVG" -- "$MR" curve "$T/c.db" -o "$T/default.db"
expect 1 "not a memreplay results database" -- "$MR" curve "$T/default.db"
expect 2 "name one results database" -- "$MR" curve

# A toggle whose code never ran says so: replay prints it, compare shows it by its run.
expect 0 "note: run 4 (mglru:inc_min_seq=v3 at 128M): inc_min_seq=v3 never acted: no aging pass ran at this size" -- \
	"$MR" replay "$T/default.db" --policy mglru --policy mglru:inc_min_seq=v3 --memory 32M,128M --no-timing -o "$T/t.db"
check compare_toggle_table -- "$MR" compare t.db --counters mr_misses,workingset_refault_file,model:mglru_aging_passes,model:mglru_toggle_acted_inc_min_seq
expect 0 "\"kind\": \"toggle_idle\"" -- "$MR" compare "$T/t.db" --json
if "$MR" replay "$T/default.db" --policy mglru:inc_min_seq=v3 --memory 128M -q --no-timing 2>&1 | grep -q "note:"; then
	fail=$((fail + 1)); echo "FAIL: replay -q printed a note"
else
	pass=$((pass + 1))
fi

echo "test_cli_sweep: $pass passed, $fail failed"
[ "$fail" = 0 ]
