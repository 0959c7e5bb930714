# SPDX-License-Identifier: GPL-2.0
# counters.sh - sourced by scripts/validate-kernel.sh, scripts/kernel-loop-report.sh and
# tests/test_kernel_loop.sh: a replay's counter as memory.stat names it.
#
#   replayed RESULTS COUNTER [RUN]   (RUN defaults to 1; needs $MR, the memreplay binary)
#
# memory.stat's pgscan and pgsteal are the sums of the results' _anon and _file counters;
# every other name is the results' own (machine-wide: memcg IS NULL).
replayed() {
	local q run=${3:-1}
	case $2 in
	pgscan | pgsteal) q="SELECT coalesce(sum(value),0) FROM counters WHERE run=$run AND memcg IS NULL AND name IN ('$2_anon','$2_file')" ;;
	*) q="SELECT coalesce(sum(value),0) FROM counters WHERE run=$run AND memcg IS NULL AND name='$2'" ;;
	esac
	"$MR" query "$1" --csv "$q" | tail -1
}
