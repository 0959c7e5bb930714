#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# test_golden.sh MEMREPLAY GOLDEN_DIR [--update]
#
# Golden results: small generator traces x policies. Each case generates a trace
# (deterministic), replays it through every built-in policy in one pass, and compares the
# counters with tests/golden/<case>.csv. A difference fails the test and prints a diff;
# after reviewing a deliberate model change, rewrite the files with
#   MR_GOLDEN_UPDATE=1 ctest -R golden      (or: tests/test_golden.sh build/memreplay tests/golden --update)
# and commit them with the change that explains them.
set -u
MR=$1
GOLD=$2
UPDATE=${3:-}
[ "${MR_GOLDEN_UPDATE:-0}" = 1 ] && UPDATE=--update
T=$(mktemp -d)
# opt's next-use times are cached per trace: here, not in the user's ~/.cache
export MEMREPLAY_CACHE="$T/cache"
trap 'rm -rf "$T"' EXIT
pass=0
fail=0

POLICIES=(--policy lru --policy mglru --policy opt)
CASES=(
	"zipf|--pages 4096 --events 200K --skew 1.0|6M"
	"seq|--size 16M --passes 2|8M"
	"loop|--size 8M --passes 3|6M"
	"agetest|--size 16M --markers 10|12M"
	"numa|--workers 4 --size_per_worker 4M --rounds 3|12M"
	"filerefault|--size 16M --events 100K --jobs 4|8M"
	"kbuild|--tasks 20|24M"
	"execbuild|--tasks 10 --text_size 8M --data_size 32M|16M"
)

for c in "${CASES[@]}"; do
	IFS='|' read -r gen params mem <<<"$c"
	# shellcheck disable=SC2086
	if ! "$MR" gen "$gen" -o "$T/$gen.db" $params --seed 3 2>"$T/err"; then
		fail=$((fail + 1)); echo "FAIL: gen $gen: $(cat "$T/err")"; continue
	fi
	if ! "$MR" replay "$T/$gen.db" "${POLICIES[@]}" --memory "$mem" -q -o "$T/$gen.r.db" \
		>/dev/null 2>"$T/err"; then
		fail=$((fail + 1)); echo "FAIL: replay $gen: $(cat "$T/err")"; continue
	fi
	"$MR" compare "$T/$gen.r.db" --format csv >"$T/$gen.csv" 2>"$T/err"
	if [ "$UPDATE" = --update ]; then
		if cp "$T/$gen.csv" "$GOLD/$gen.csv"; then
			echo "updated $GOLD/$gen.csv"; pass=$((pass + 1))
		else
			fail=$((fail + 1))
		fi
	elif [ ! -f "$GOLD/$gen.csv" ]; then
		fail=$((fail + 1)); echo "FAIL: $GOLD/$gen.csv missing (run with MR_GOLDEN_UPDATE=1 to create it)"
	elif diff -u "$GOLD/$gen.csv" "$T/$gen.csv" >"$T/diff"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1)); echo "FAIL: $gen results differ from $GOLD/$gen.csv:"; head -40 "$T/diff"
	fi
done
echo "test_golden: $pass passed, $fail failed"
[ "$fail" = 0 ]
