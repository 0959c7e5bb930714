#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernel-loop-report.sh OUT KLAB_OUT... - the host half of scripts/kernel-loop.sh: takes
# the sections loop-hook.sh printed in each kernel-lab output folder, decodes the
# recorded traces into OUT/LABEL.db, replays each at its cgroup's memory.max and prints,
# per scenario and counter:
#   plain   median of the unrecorded runs [min-max] (the kernel's own spread)
#   rec     the kernel's count in the recorded run(s) (median)
#   perturb rec / plain median - 1
#   replay  the replay of the recorded trace (median over recorded runs)
#   r/k     replay / rec
#   ok      yes when r/k is within +-5 %, or inside the plain runs' range when that
#           range is wider than +-5 % of its median; "-" when the kernel counted < 1000
# and, for shipping, OUT/ship/: the first recorded run of each scenario (NAME.db) and
# kernel.tsv, its kernel's counters beside the unrecorded runs' and what its replay gives
# (tests/test_kernel_loop.sh reads that; expect is "target" where the replay meets it,
# "miss" where not).
#
# Environment: POLICY (default mglru:kernel=6.12.95), MEMREPLAY (default build/memreplay),
#              REPLAY_ARGS (extra replay options)
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=$1
shift
POLICY=${POLICY:-mglru:kernel=6.12.95}
MR=${MEMREPLAY:-build/memreplay}
REPLAY_ARGS=${REPLAY_ARGS:-}
COUNTERS="workingset_refault_anon workingset_refault_file workingset_activate_anon workingset_activate_file pswpin pswpout pgscan pgsteal pgactivate pgmajfault"
mkdir -p "$OUT/runs"

# Every run of every boot: OUT/runs/LABEL.b<boot>.stat ("counter value" lines)
b=0
for k in "$@"; do
	b=$((b + 1))
	res=$k/results.txt
	[ -s "$res" ] || res=$k/results.raw
	[ -s "$res" ] || { echo "kernel-loop: no results in $k" >&2; exit 1; }
	tr -d '\r' <"$res" | awk -v dir="$OUT/runs" -v boot="$b" '
		/^=== BEGIN scenario:/ { lab = substr($3, 10); sub(/ ===$/, "", lab); next }
		/^=== BEGIN (memory\.stat|vmstat_delta|trace|record):/ {
			split($3, a, ":"); sec = a[1]; next }
		/^=== END / { sec = ""; next }
		sec == "memory.stat" { st[lab] = st[lab] $1 " " $2 "\n"; next }
		sec == "vmstat_delta" && $1 ~ /^(pswpin|pswpout)$/ { st[lab] = st[lab] $1 " " $2 "\n"; next }
		sec == "trace" { print > (dir "/" lab ".b" boot ".b64"); next }
		sec == "record" { print > (dir "/" lab ".b" boot ".rec"); next }
		/^memory_max=/ { mm[lab] = substr($0, 12) }
		END { for (l in st) { f = dir "/" l ".b" boot ".stat"; printf "%s", st[l] > f
			print "memory_max " mm[l] > f } }'
done

value() { # value FILE COUNTER: memory.stat's total line, else the sum of its parts
	awk -v c="$2" '
		$1 == c { t = $2; ft = 1 }
		(c == "pgscan" || c == "pgsteal") && index($1, c "_") == 1 && $1 !~ /_(anon|file)$/ { s += $2; fs = 1 }
		END { print ft ? t : fs ? s : 0 }' "$1"
}
. scripts/kernel-lab/counters.sh # replayed RESULTS COUNTER
median() { sort -n | awk '{v[NR]=$1} END{ if (!NR) print ""; else if (NR%2) print v[(NR+1)/2]; else printf "%.0f\n", (v[NR/2]+v[NR/2+1])/2 }'; }

mkdir -p "$OUT/ship"
tsv=$OUT/ship/kernel.tsv
printf 'scenario\tcounter\tplain_min\tplain_median\tplain_max\trec\tmemory_max\texpect\treplay\n' >"$tsv"
for sc in $(ls "$OUT/runs" | sed -n 's/\.[pr][0-9]*\.b[0-9]*\.stat$//p' | sort -u); do
	# replay every recorded run
	for f in "$OUT/runs/$sc".r*.b*.b64 "$OUT/runs/$sc".q*.b*.b64; do
		[ -e "$f" ] || continue
		run=$(basename "$f" .b64)
		db=$OUT/$run.db
		if [ ! -s "$db" ]; then
			base64 -d "$f" >"$db.tmp" && mv "$db.tmp" "$db"
		fi
		mmax=$(awk '$1=="memory_max"{print $2}' "$OUT/runs/$run.stat")
		rm -f "$OUT/$run.results.db"
		# shellcheck disable=SC2086
		"$MR" replay "$db" --policy "$POLICY" --memory "$mmax" --writeback-delay sync \
			-o "$OUT/$run.results.db" -q --no-timing $REPLAY_ARGS >/dev/null
	done
	mmax=$(awk '$1=="memory_max"{print $2; exit}' "$OUT/runs/$sc".*.stat)
	echo "== $sc (memory.max $mmax): $( (ls "$OUT/runs/$sc".p*.stat 2>/dev/null || true) | wc -l) plain runs, $( (ls "$OUT/runs/$sc".r*.stat 2>/dev/null || true) | wc -l) recorded, replayed with $POLICY"
	printf '%-26s %10s %17s %10s %8s %10s %7s %4s\n' counter plain "[min-max]" rec perturb replay r/k ok
	for c in $COUNTERS; do
		pl=$(for f in "$OUT/runs/$sc".p*.stat; do [ -e "$f" ] || continue; value "$f" "$c"; done | sort -n)
		rc=$(for f in "$OUT/runs/$sc".r*.stat; do [ -e "$f" ] || continue; value "$f" "$c"; done | median)
		rp=$(for f in "$OUT/$sc".r*.results.db; do [ -e "$f" ] || continue; replayed "$f" "$c"; done | median)
		pmed=$(echo "$pl" | median)
		pmin=$(echo "$pl" | head -1)
		pmax=$(echo "$pl" | tail -1)
		# the shipped run: the first recorded one
		first=$(ls "$OUT/runs/$sc".r*.stat 2>/dev/null | sort | head -1 || true)
		if [ -n "$first" ]; then
			run=$(basename "$first" .stat)
			k1=$(value "$first" "$c")
			r1=$(replayed "$OUT/$run.results.db" "$c")
			ex=$(awk -v g="$r1" -v k="$k1" -v lo="$pmin" -v med="$pmed" -v hi="$pmax" 'BEGIN {
				if (k < 1000) print "-"
				else if (g >= k * 0.95 && g <= k * 1.05) print "target"
				else if ((lo < med * 0.95 || hi > med * 1.05) && g >= lo && g <= hi) print "target"
				else print "miss" }')
			printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$sc" "$c" "$pmin" "$pmed" "$pmax" \
				"$k1" "$mmax" "$ex" "$r1" >>"$tsv"
			cp "$OUT/$run.db" "$OUT/ship/$sc.db"
		fi
		awk -v c="$c" -v pmin="$pmin" -v pmed="$pmed" -v pmax="$pmax" -v rc="$rc" -v rp="$rp" 'BEGIN {
			pert = (pmed != "" && pmed > 0 && rc != "") ? sprintf("%+.1f%%", (rc / pmed - 1) * 100) : "-"
			rk = (rc != "" && rc > 0 && rp != "") ? sprintf("%.3f", rp / rc) : "-"
			ok = "-"
			if (rc != "" && rc >= 1000 && rp != "") {
				ok = (rp >= rc * 0.95 && rp <= rc * 1.05) ? "yes" : "no"
				if (ok == "no" && pmed > 0 && (pmin < pmed * 0.95 || pmax > pmed * 1.05) &&
				    rp >= pmin && rp <= pmax) ok = "yes*"
			}
			printf "%-26s %10s %17s %10s %8s %10s %7s %4s\n", c, pmed, "[" pmin "-" pmax "]", rc, pert, rp, rk, ok }'
	done
done
echo "(ok: replay within +-5 % of the recorded kernel; yes*: inside the unrecorded runs' range, which is wider than +-5 %)"

# runs recorded the second way (RECOPTS_B, labels LABEL.qN), beside the first
for sc in $(ls "$OUT/runs" | sed -n 's/\.q[0-9]*\.b[0-9]*\.stat$//p' | sort -u); do
	echo "== $sc recorded with RECOPTS_B: kernel and replay, medians"
	printf '%-26s %10s %10s %10s %10s %10s\n' counter plain rec rec_b replay replay_b
	for c in $COUNTERS; do
		pm=$(for f in "$OUT/runs/$sc".p*.stat; do [ -e "$f" ] || continue; value "$f" "$c"; done | median)
		rm_=$(for f in "$OUT/runs/$sc".r*.stat; do [ -e "$f" ] || continue; value "$f" "$c"; done | median)
		qm=$(for f in "$OUT/runs/$sc".q*.stat; do [ -e "$f" ] || continue; value "$f" "$c"; done | median)
		rr=$(for f in "$OUT/$sc".r*.results.db; do [ -e "$f" ] || continue; replayed "$f" "$c"; done | median)
		qr=$(for f in "$OUT/$sc".q*.results.db; do [ -e "$f" ] || continue; replayed "$f" "$c"; done | median)
		printf '%-26s %10s %10s %10s %10s %10s\n' "$c" "$pm" "$rm_" "$qm" "$rr" "$qr"
	done
done
