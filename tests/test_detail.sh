#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# test_detail.sh MEMREPLAY [CASE...] - detail tables and explain (issue 15, item 6):
# `replay --detail` writes per page, file, cgroup and VMA counts whose sums are the run's
# counters, keyed by the trace's ids so that ATTACH joins them; they change nothing else
# and are deterministic; `explain` names the pages that differ between two runs with a
# timeline that shows the eviction under one run and the page resident under the other;
# bad input is refused with a message and exit 1 or 2. Without CASE all run.
set -u
MR=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
shift
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export MEMREPLAY_CACHE="$T/cache"
fails=0
fail() { echo "FAIL [$case]: $*"; fails=$((fails + 1)); }

# run CMD...: $out (stdout), $err (stderr), $rc
run() {
	out=$("$@" 2>"$T/err")
	rc=$?
	err=$(cat "$T/err")
}
q() { "$MR" query "$@" 2>&1 | tail -n +2; }

setup() {
	cd "$T" || exit 1
	# runs 1 lru, 2 mglru, 3 opt at a memory well below the working set
	"$MR" gen zipf -o z.db --pages 4M --events 60K >/dev/null 2>&1 &&
		"$MR" replay z.db -P lru -P mglru -P opt --memory 2M -o r.db --detail all -q \
			--no-timing --nextuse-cache off >/dev/null 2>&1 ||
		{ echo "setup failed"; exit 1; }
}

# name in detail_pages -> counter name
PAIRS="faults:pgfault majfaults:pgmajfault misses:mr_misses refaults:mr_refaults
shadow_refaults:mr_shadow_refaults evictions:mr_evictions freed:mr_freed pswpin:pswpin
writebacks:mr_writebacks"

case_sums() {
	local col ctr tab
	for run in 1 2 3; do
		for p in $PAIRS; do
			col=${p%%:*} ctr=${p#*:}
			want=$(q r.db "SELECT value FROM counters WHERE run = $run AND memcg IS NULL AND name = '$ctr'")
			[ -n "$want" ] || fail "run $run has no counter $ctr"
			for tab in detail_pages detail_cgroups; do
				got=$(q r.db "SELECT coalesce(sum($col), 0) FROM $tab WHERE run = $run")
				[ "$got" = "$want" ] || fail "run $run: sum($col) over $tab = $got, $ctr = $want"
			done
		done
		# per cgroup: the memcg's own counters
		bad=$(q r.db "SELECT count(*) FROM detail_cgroups d JOIN counters c ON c.run = d.run AND
			c.memcg = d.cgroup AND c.name = 'pgfault' WHERE d.run = $run AND c.value != d.faults")
		[ "$bad" = 0 ] || fail "run $run: $bad cgroups whose faults are not their pgfault"
		for p in faults:pgfault majfaults:pgmajfault evictions:mr_evictions refaults:mr_refaults; do
			col=${p%%:*} ctr=${p#*:}
			want=$(q r.db "SELECT value FROM counters WHERE run = $run AND memcg IS NULL AND name = '$ctr'")
			got=$(q r.db "SELECT coalesce(sum($col), 0) FROM detail_vmas WHERE run = $run")
			[ "$got" = "$want" ] || fail "run $run: sum($col) over detail_vmas = $got, $ctr = $want"
		done
		# files: the file pages' share
		want=$(q r.db "ATTACH 'z.db' AS t; SELECT sum(d.evictions) FROM detail_pages d JOIN t.pages p
			ON p.id = d.page WHERE d.run = $run AND p.type = 1")
		got=$(q r.db "SELECT sum(evictions) FROM detail_files WHERE run = $run")
		[ "$got" = "$want" ] || fail "run $run: detail_files evictions $got, file pages' $want"
		[ "${got:-0}" -gt 0 ] || fail "run $run evicted no file page: the test trace is too small"
	done
}

case_attach() {
	# every detail row names a row of the trace, through memreplay query's ATTACH
	for j in "detail_pages d JOIN t.pages x ON x.id = d.page" \
		"detail_files d JOIN t.files x ON x.id = d.file" \
		"detail_vmas d JOIN t.vmas x ON x.id = d.vma" \
		"detail_cgroups d JOIN t.cgroups x ON x.id = d.cgroup"; do
		tab=${j%% *}
		joined=$(q r.db "ATTACH 'z.db' AS t; SELECT count(*) FROM $j")
		if [ "$tab" = detail_vmas ]; then
			all=$(q r.db "SELECT count(*) FROM detail_vmas WHERE vma IS NOT NULL AND derived = 0")
		else
			all=$(q r.db "SELECT count(*) FROM $tab")
		fi
		[ "${all:-0}" -gt 0 ] || fail "$tab is empty"
		[ "$joined" = "$all" ] || fail "$tab: $joined of $all rows join the trace"
	done
	# a question people ask: refaults per file path
	run "$MR" query r.db "ATTACH 'z.db' AS t; SELECT f.path, d.refaults FROM detail_files d
		JOIN t.files f ON f.id = d.file WHERE d.run = 1 ORDER BY d.refaults DESC LIMIT 1"
	[ "$rc" = 0 ] && grep -q '/data/zipf/' <<<"$out" || fail "refaults by file path: $out $err"
}

case_sampled() {
	# a sampled replay renumbers its pages: detail_pages is keyed by the trace's ids, so
	# the join by page type gives the run's refaults and evictions of each type
	"$MR" replay z.db -P lru -P mglru --memory 2M --sample 1/4 -o s.db --detail pages -q \
		--no-timing >/dev/null 2>&1 || { fail "replay --sample 1/4 --detail pages failed"; return; }
	for c in "0:workingset_refault_anon:refaults" "1:workingset_refault_file:refaults" \
		"0:mr_evict_anon:evictions" "1:mr_evict_file:evictions"; do
		type=${c%%:*} rest=${c#*:}
		name=${rest%%:*} col=${rest#*:}
		want=$(q s.db "SELECT value FROM counters WHERE run = 1 AND memcg IS NULL AND name = '$name'")
		got=$(q s.db "ATTACH 'z.db' AS t; SELECT coalesce(sum(d.$col), 0) FROM detail_pages d
			JOIN t.pages x ON x.id = d.page WHERE d.run = 1 AND x.type = $type")
		[ -n "$want" ] && [ "$got" = "$want" ] || fail "sampled: $col of type $type pages $got, counter $name $want"
	done
	[ "$(q s.db "SELECT max(page) > count(DISTINCT page) FROM detail_pages")" = 1 ] ||
		fail "sampled detail_pages look renumbered (ids 0..n-1)"
	run "$MR" replay z.db -P lru --memory 2M --sample 1/4 --sample-seed 0,1 -o s2.db --detail pages -q
	[ "$rc" = 2 ] && grep -q "detail tables do not survive the seeds' merge" <<<"$err" && [ ! -e s2.db ] ||
		fail "--detail with two seeds: $rc $err"
	run "$MR" explain s.db --runs 1,2
	[ "$rc" = 1 ] && grep -q "run 1 of s.db is a sampled run (sampled 1/4 (seed 0)): explain follows pages through a full replay" <<<"$err" ||
		fail "explain of sampled runs: $rc $err"
}

case_subset() {
	"$MR" replay z.db -P lru --memory 2M -o f.db --detail files,cgroups -q --no-timing >/dev/null 2>&1 ||
		fail "replay --detail files,cgroups failed"
	tabs=$(q f.db "SELECT group_concat(name, ' ') FROM (SELECT name FROM sqlite_master WHERE
		type = 'table' AND name LIKE 'detail%' ORDER BY name)")
	[ "$tabs" = "detail_cgroups detail_files" ] || fail "--detail files,cgroups made: $tabs"
	"$MR" replay z.db -P lru --memory 2M -o n.db -q --no-timing >/dev/null 2>&1
	tabs=$(q n.db "SELECT count(*) FROM sqlite_master WHERE name LIKE 'detail%'")
	[ "$tabs" = 0 ] || fail "a replay without --detail has $tabs detail tables"
}

case_determinism() {
	# the same replay twice: the same bytes; with or without detail: the same counters
	"$MR" replay z.db -P lru -P mglru -P opt --memory 2M -o r2.db --detail all -q --no-timing \
		--threads 0 --nextuse-cache off >/dev/null 2>&1 || fail "second replay failed"
	cmp -s r.db r2.db || fail "two replays with --detail differ"
	"$MR" replay z.db -P lru -P mglru -P opt --memory 2M -o n.db -q --no-timing \
		--nextuse-cache off >/dev/null 2>&1 || fail "replay without --detail failed"
	a=$(q r.db "SELECT group_concat(run || name || coalesce(memcg, '') || '=' || value, ',') FROM counters")
	b=$(q n.db "SELECT group_concat(run || name || coalesce(memcg, '') || '=' || value, ',') FROM counters")
	[ "$a" = "$b" ] || fail "--detail changed the counters"
}

case_bad_detail() {
	run "$MR" replay z.db -P lru --memory 2M -o x.db --detail files,pagez
	[ "$rc" = 2 ] || fail "--detail files,pagez: exit $rc, want 2"
	grep -q "'pagez' is no detail table" <<<"$err" || fail "--detail files,pagez: $err"
	run "$MR" replay z.db -P lru --memory 2M --detail pages
	[ "$rc" = 2 ] && grep -q "give -o" <<<"$err" || fail "--detail without -o: exit $rc, $err"
}

case_explain_diff() {
	# lru against opt: the page lru evicts most that opt keeps
	run "$MR" explain r.db --runs 1,3 --top 3 -f json
	[ "$rc" = 0 ] || { fail "explain exit $rc: $err"; return; }
	printf '%s' "$out" >x.json
	python3 - x.json <<'EOF' || fail "explain's JSON: see above"
import json, sys
x = json.load(open(sys.argv[1]))
assert [r["id"] for r in x["runs"]] == [1, 3], x["runs"]
assert x["differing"] > 0 and len(x["pages"]) == 3, (x["differing"], len(x["pages"]))
# by page type: the types' pages add up to the differing ones
bt = x["differing_by_type"]
assert sum(v["pages"] for v in bt.values()) == x["differing"], bt
assert bt["anon"]["pages"] > 0 and bt["file"]["pages"] > 0, bt
p = x["pages"][0]
a, b = p["history"]
ca, cb = p["counts"]
assert p["score"] == ca["refaults"] + ca["evictions"] - cb["refaults"] - cb["evictions"] > 0
assert sum(e["kind"] == "evict" for e in a) == ca["evictions"], "A's evictions in its history"
assert sum(e["kind"] == "insert" for e in a) == ca["misses"], "A's insertions in its history"
# an eviction under A at a moment when B has the page in memory
def state(h, ev):
    last = None
    for e in h:
        if e["ev"] <= ev:
            last = e
    return last
ok = [e for e in a if e["kind"] == "evict" and e["reclaim"] == "memcg" and
      "priority" in e and state(b, e["ev"]) and state(b, e["ev"])["resident"]]
assert ok, "no eviction under A with the page resident under B"
assert all(e["list"] in ("queue", "") for e in b), "opt's places are its queue"
EOF
	# the text says it too: "N pages differ (...): A anon (...), F file (...)"
	run "$MR" explain r.db --runs 1,3 --top 1
	grep -Eq "^[0-9]+ pages differ \(the results' detail_pages\): [0-9]+ anon \(refaults \+ evictions A - B [-+][0-9]+\), [0-9]+ file" <<<"$out" ||
		fail "explain's text lacks the differing pages by type: $(head -3 <<<"$out")"
	# ranked from detail_pages (r.db has them) or by replaying to count: the same pages
	"$MR" replay z.db -P lru -P mglru -P opt --memory 2M -o p.db -q --no-timing \
		--nextuse-cache off >/dev/null 2>&1 || fail "replay without --detail failed"
	"$MR" explain p.db --runs 1,3 --top 3 -f json >y.json 2>"$T/err" || fail "explain p.db: $(cat "$T/err")"
	python3 - x.json y.json <<'EOF' || fail "explain from detail_pages and from a replay differ"
import json, sys
x, y = (json.load(open(f)) for f in sys.argv[1:])
assert x["ranked_from"] == "detail_pages" and y["ranked_from"] == "replay", (x["ranked_from"], y["ranked_from"])
assert x["differing"] == y["differing"] and x["pages"] == y["pages"]
EOF
	# the text says the same
	run "$MR" explain r.db --runs 1,3 --top 1
	[ "$rc" = 0 ] || fail "text explain exit $rc: $err"
	grep -qE '^  [0-9]+ +[0-9.]+ +A +EVICTED by memcg reclaim \(priority [0-9]+.*\| B: queued' <<<"$out" ||
		fail "no line with A's eviction while B holds the page: $(head -20 <<<"$out")"
	# mglru's generations show, and a page named by --page is explained even when equal
	run "$MR" explain r.db --runs 2,1 --page 3,4
	[ "$rc" = 0 ] || fail "--page exit $rc: $err"
	grep -q '^page 3: ' <<<"$out" && grep -q '^page 4: ' <<<"$out" || fail "--page 3,4: $out"
	grep -qE 'A +in by .*-> gen seq [0-9]+ \(min_seq [0-9]+, max_seq [0-9]+\)' <<<"$out" ||
		fail "no mglru generation in the timeline: $(head -20 <<<"$out")"
}

case_explain_errors() {
	run "$MR" explain r.db --runs 1,9
	[ "$rc" = 1 ] && grep -q "has no run 9 (its runs: 1, 2, 3)" <<<"$err" || fail "unknown run: $rc $err"
	run "$MR" explain r.db --runs 1,2 --page 99999999
	[ "$rc" = 1 ] && grep -q "page 99999999 is not in z.db" <<<"$err" || fail "unknown page: $rc $err"
	run "$MR" explain r.db --runs 1
	[ "$rc" = 2 ] || fail "--runs 1: exit $rc"
	run "$MR" explain r.db --runs 2,2
	[ "$rc" = 1 ] && grep -q "one run twice" <<<"$err" || fail "--runs 2,2: $rc $err"
	run "$MR" explain r.db
	[ "$rc" = 2 ] && grep -q -- "--runs A,B" <<<"$err" || fail "no --runs: $rc $err"
	run "$MR" explain nosuch.db --runs 1,2
	[ "$rc" = 1 ] || fail "missing results: exit $rc"
	# runs of two traces (a merged file)
	"$MR" gen zipf -o y.db --pages 4M --events 20K --seed 2 >/dev/null 2>&1
	"$MR" replay y.db -P lru --memory 2M -o y-r.db -q --no-timing >/dev/null 2>&1
	"$MR" merge -o m.db r.db y-r.db >/dev/null 2>&1 || fail "merge failed"
	run "$MR" explain m.db --runs 1,4
	[ "$rc" = 1 ] && grep -q "replayed different traces" <<<"$err" || fail "two traces: $rc $err"
	# the trace is not where the runs say (a relative path, from elsewhere)
	mkdir -p sub && cd sub || return
	run "$MR" explain ../r.db --runs 1,2
	cd .. || return
	[ "$rc" = 1 ] && grep -q "give it with --trace" <<<"$err" || fail "trace moved: $rc $err"
	# the trace given is another one
	run "$MR" explain r.db --runs 1,2 --trace y.db
	[ "$rc" = 1 ] && grep -q "is not the trace run 1 replayed" <<<"$err" || fail "other trace: $rc $err"
	# a run id past 2^63 is not read as 2^63 - 1
	run "$MR" explain r.db --runs 99999999999999999999,1
	[ "$rc" = 2 ] && grep -q "give two run ids" <<<"$err" || fail "--runs 10^20,1: $rc $err"
	# a runs row changed by hand: its settings, not the trace, are named as the cause
	cp r.db rs.db
	python3 -c "import sqlite3; c = sqlite3.connect('rs.db'); c.execute(\"UPDATE runs SET spec = 'lru:swappiness=999' WHERE id = 1\"); c.commit()"
	run "$MR" explain rs.db --runs 1,2
	[ "$rc" = 1 ] && grep -q "from run 1's row of runs in rs.db" <<<"$err" && ! grep -q -- "--trace" <<<"$err" ||
		fail "a changed spec: $rc $err"
	# its counters gone: nothing to check the replay against, said
	cp r.db rc.db
	python3 -c "import sqlite3; c = sqlite3.connect('rc.db'); c.execute('DELETE FROM counters'); c.commit()"
	run "$MR" explain rc.db --runs 1,2
	[ "$rc" = 1 ] && grep -q "run 1 has none of the counters" <<<"$err" || fail "no counters: $rc $err"
}

setup
cases=${*:-sums attach sampled subset determinism bad_detail explain_diff explain_errors}
for case in $cases; do
	"case_$case"
done
if [ $fails -gt 0 ]; then
	echo "$fails failures"
	exit 1
fi
echo "detail: $cases ok"
