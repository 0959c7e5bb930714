#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# test_vary.sh MEMREPLAY REV_TRACE
#
# replay --vary N (docs/replay.md, "--vary"): each policy also runs with N variation
# seeds, drawing after each page-table walk whether the walked task is switched back in.
# On kernel-lab's rev recording (traces/kernel-lab/loop-2026-12-02-rev/rev.db, whose
# kernel runs take five levels of pgscan) the seeds must reach more than one level, the
# run without a seed must be the plain replay's, and the same seeds must give the same
# results. Bad values are refused.
MR=$1
TR=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
check() { what=$1; shift; if "$@"; then echo "ok   $what"; else echo "FAIL $what"; fail=$((fail + 1)); fi; }
P="--policy mglru:kernel=6.12.95 --memory 128M --writeback-delay sync -q"
q() { "$MR" query "$1" --csv "$2" | tail -n +2; }

"$MR" replay "$TR" $P -o "$T/plain.db" >/dev/null 2>&1 || { echo "FAIL plain replay"; exit 1; }
"$MR" replay "$TR" $P --vary 8 -o "$T/a.db" >"$T/a.out" 2>&1
check "--vary 8 exits 0" [ $? = 0 ]
"$MR" replay "$TR" $P --vary 8 -o "$T/b.db" >"$T/b.out" 2>&1
check "nine runs: the policy, then seeds 1-8" \
	[ "$(q "$T/a.db" "SELECT group_concat(coalesce(vary_seed, 0), '-') FROM runs")" = "0-1-2-3-4-5-6-7-8" ]
check "the seeds' runs are labelled SPEC ~SEED" grep -q "^mglru:kernel=6.12.95 ~8 " "$T/a.out"
COUNTERS="SELECT run, name, value FROM counters ORDER BY run, memcg, name"
check "same seeds, same counters" [ "$(q "$T/a.db" "$COUNTERS")" = "$(q "$T/b.db" "$COUNTERS")" ]
check "the run without a seed is the plain replay" \
	[ "$(q "$T/a.db" "SELECT name, value FROM counters WHERE run = 1 ORDER BY memcg, name")" = \
	  "$(q "$T/plain.db" "SELECT name, value FROM counters WHERE run = 1 ORDER BY memcg, name")" ]
levels=$(q "$T/a.db" "SELECT count(DISTINCT value) FROM counters WHERE name = 'pgscan_anon' AND memcg IS NULL")
check "the seeds spread pgscan over several values ($levels)" [ "$levels" -ge 3 ]
"$MR" compare "$T/a.db" >"$T/cmp.txt" 2>&1
check "compare names each seed's run SPEC ~SEED" grep -q '^   #9  mglru:kernel=6.12.95 ~8$' "$T/cmp.txt"
"$MR" curve "$T/a.db" >"$T/curve.txt" 2>&1
check "curve names each seed's run SPEC ~SEED" grep -q '^mglru:kernel=6.12.95 ~8 ' "$T/curve.txt"
check "vary_p is stored with each seed" \
	[ "$(q "$T/a.db" "SELECT count(*) FROM runs WHERE vary_seed IS NOT NULL AND vary_p = 0.4")" = 8 ]
"$MR" replay "$TR" $P --vary 0 -o "$T/c.db" >/dev/null 2>"$T/err"
check "--vary 0 is refused (2)" [ $? = 2 ]
"$MR" replay "$TR" $P --vary 2 --vary-p 1.5 -o "$T/c.db" >/dev/null 2>"$T/err"
check "--vary-p 1.5 is refused (2) naming the range" sh -c "[ $? = 2 ] && grep -q '(0, 1\]' '$T/err'"
"$MR" replay "$TR" $P --vary-p 0.5 -o "$T/c.db" >/dev/null 2>"$T/err"
check "--vary-p without --vary is refused (2)" [ $? = 2 ]
exit $((fail != 0))
