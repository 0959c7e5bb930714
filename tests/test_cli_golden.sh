#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# test_cli_golden.sh MEMREPLAY GOLDEN_DIR [--update]
#
# The exact stdout of `memreplay replay` (table, --csv, --json; --no-timing leaves out the
# wall-clock columns) and `memreplay compare` (table, --csv, --json) on a small generated
# trace, against tests/golden/cli/<case>.txt. A difference fails the test and prints a
# diff; after reviewing a deliberate change, rewrite the files with
#   MR_GOLDEN_UPDATE=1 ctest -R cli_golden   (or: tests/test_cli_golden.sh build/memreplay tests/golden/cli --update)
set -u
MR=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
GOLD=$2
UPDATE=${3:-}
[ "${MR_GOLDEN_UPDATE:-0}" = 1 ] && UPDATE=--update
T=$(mktemp -d)
# opt's next-use times are cached per trace: here, not in the user's ~/.cache
export MEMREPLAY_CACHE="$T/cache"
trap 'rm -rf "$T"' EXIT
pass=0
fail=0

# check NAME -- CMD...: run CMD in $T (so that paths it prints are relative), compare stdout.
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

if ! "$MR" gen loop -o "$T/loop.db" --size 2M --passes 3 --seed 5 >/dev/null 2>"$T/err"; then
	echo "FAIL: gen: $(cat "$T/err")"; exit 1
fi
P=(--policy lru --policy mglru --policy opt)
check replay_table -- "$MR" replay loop.db "${P[@]}" --memory 1M -q --no-timing -o r.db
check replay_csv -- "$MR" replay loop.db "${P[@]}" --memory 1M -q --no-timing --csv
check replay_json -- "$MR" replay loop.db "${P[@]}" --memory 1M -q --no-timing --json -o r2.db
check replay_node_table -- "$MR" replay loop.db "${P[@]}" --memory 1M --reclaim node -q --no-timing -o n.db
check compare_table -- "$MR" compare r.db
check compare_csv -- "$MR" compare r.db --csv
check compare_json -- "$MR" compare r.db --json
check compare_node_csv -- "$MR" compare n.db --format csv --counters pgscan_kswapd,pgscan_direct,mr_kswapd_runs,mr_wmark_min,mr_wmark_low,mr_wmark_high,mr_evictions
# the timing column is the only part of the default output that changes between runs
if (cd "$T" && "$MR" replay loop.db --policy lru --memory 1M -q) | grep -q "M ev/s"; then
	pass=$((pass + 1))
else
	fail=$((fail + 1)); echo "FAIL: replay without --no-timing lost its M ev/s column"
fi

echo "test_cli_golden: $pass passed, $fail failed"
[ "$fail" = 0 ]
