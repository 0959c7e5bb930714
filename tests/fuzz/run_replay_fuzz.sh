#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# run_replay_fuzz.sh [SECONDS [TARGET...]] - fuzz the replay side's targets (script,
# parse; default both) with libFuzzer for SECONDS each (default 60), on one core, then
# merge what was found into the committed corpus, minimised (tests/fuzz/corpus/TARGET):
# review and commit the change. Needs clang with libFuzzer; builds into
# $MR_FUZZ_BUILD (default build-fuzz-replay) from the sources directly, with
# AddressSanitizer and UndefinedBehaviorSanitizer. A crash leaves its input in that
# directory (crash-*) and stops with exit status 1.
set -euo pipefail
cd "$(dirname "$0")/../.."
secs=${1:-60}
shift || true
targets=${*:-script parse}
out=${MR_FUZZ_BUILD:-build-fuzz-replay}
cc=${CC:-clang}
mkdir -p "$out"
flags=(-g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
       -fno-omit-frame-pointer -Ibase -Istorage -Ireplayer -DMR_DEBUG_CHECKS=1)
for t in $targets; do
	case $t in
	script) srcs=(replayer/script.c base/util.c base/err.c) ;;
	parse) srcs=(base/util.c base/err.c) ;;
	*) echo "run_replay_fuzz.sh: unknown target '$t' (script, parse)" >&2; exit 2 ;;
	esac
	"$cc" "${flags[@]}" "tests/fuzz/fuzz_$t.c" "${srcs[@]}" -lm -o "$out/fuzz_$t"
	corpus=tests/fuzz/corpus/$t
	rm -rf "$out/new_$t" "$out/min_$t"
	mkdir -p "$out/new_$t" "$out/min_$t"
	# new inputs go to new_$t; the committed corpus is read, not written
	(cd "$out" && "./fuzz_$t" -max_total_time="$secs" -print_final_stats=1 -max_len=4096 \
		"new_$t" "../$corpus") 2>&1 | tee "$out/fuzz_$t.log" | grep -E "^#[0-9]+ +DONE|stat::|ERROR|SUMMARY" || true
	if ls "$out"/crash-* "$out"/leak-* "$out"/timeout-* >/dev/null 2>&1; then
		echo "run_replay_fuzz.sh: $t: a finding, see $out/fuzz_$t.log" >&2
		exit 1
	fi
	# the smallest set of inputs with the same coverage, as the new corpus
	"$out/fuzz_$t" -merge=1 "$out/min_$t" "$corpus" "$out/new_$t" >"$out/merge_$t.log" 2>&1
	rm -f "$corpus"/*
	cp "$out/min_$t"/* "$corpus"/
	echo "run_replay_fuzz.sh: $t: corpus $(ls "$corpus" | wc -l) inputs"
done
