#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# test_query.sh MEMREPLAY [CASE...] - `memreplay query` like the sqlite3 shell (issue 16,
# item 2): every statement runs, each result set with its header; ATTACH of a results
# database is read-only and joins with the trace's tables; table, CSV and JSON output;
# an empty, failing or writing statement is named and refused. Without CASE all run.
set -u
MR=$1
shift
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export MEMREPLAY_CACHE="$T/cache"
fails=0
fail() { echo "FAIL [$case]: $*"; fails=$((fails + 1)); }

# q ARGS...: run query; $out (stdout), $err (stderr), $rc
q() {
	out=$("$MR" query "$@" 2>"$T/err")
	rc=$?
	err=$(cat "$T/err")
}
want() { # want RC STDOUT [STDERR-REGEX]
	[ "$rc" = "$1" ] || fail "exit $rc, want $1 (stderr: $err)"
	[ "$out" = "$2" ] || fail "stdout: '$out', want '$2'"
	if [ $# -gt 2 ]; then grep -qE -- "$3" <<<"$err" || fail "stderr '$err' lacks /$3/"; fi
}

setup() {
	"$MR" gen loop -o "$T/t.db" --size 2M --passes 3 >/dev/null 2>&1 &&
		"$MR" replay "$T/t.db" --policy lru --policy opt --memory 1M -o "$T/r.db" -q \
			--no-timing >/dev/null 2>&1 || { echo "setup failed"; exit 1; }
	cd "$T" || exit 1
}

case_every_statement() {
	q t.db "SELECT 1 AS a; SELECT 'x' AS b, NULL AS c; SELECT count(*) AS n FROM pages"
	want 0 "$(printf 'a\n1\n\nb\tc\nx\tNULL\n\nn\n512')"
	# a statement without result columns prints nothing, and is no empty set
	q t.db "BEGIN; SELECT 2 AS z; COMMIT; SELECT 3 AS y"
	want 0 "$(printf 'z\n2\n\ny\n3')"
}

case_attach_join() {
	local sum
	sum=$(sha256sum <r.db)
	q t.db "ATTACH 'r.db' AS r;
		SELECT r.runs.id, r.runs.policy, count(p.id) AS pages
		FROM r.runs JOIN pages p ON p.type = 0 GROUP BY r.runs.id ORDER BY r.runs.id"
	want 0 "$(printf 'id\tpolicy\tpages\n1\tlru\t512\n2\topt\t512')"
	# the other way round: a results database attaches the trace
	q r.db "ATTACH 't.db' AS t; SELECT count(*) AS n FROM t.pages, runs WHERE runs.id = 2"
	want 0 "$(printf 'n\n512')"
	# a results file's view, from a trace opened first: refused, saying the way round
	q t.db "ATTACH 'r.db' AS r; SELECT count(*) FROM r.curve"
	want 1 "" 'access to view "curve" prohibited \(a trace opened first turns views off.*open the results file first and ATTACH the trace'
	q r.db "ATTACH 't.db' AS t; SELECT count(*) AS n FROM curve WHERE run = 2"
	want 0 "$(printf 'n\n1')"
	[ "$(sha256sum <r.db)" = "$sum" ] || fail "query changed r.db"
	[ ! -e r.db-journal ] && [ ! -e r.db-wal ] || fail "query left side files of r.db"
}

case_attach_readonly() {
	local sum
	sum=$(sha256sum <r.db)
	q t.db "ATTACH 'r.db' AS r; INSERT INTO r.runs(id, policy) VALUES (99, 'x')"
	want 1 "" "statement 2 \(INSERT INTO r\.runs\(id, policy\) VALUES \(99, 'x'\)\) would write"
	q t.db "ATTACH 'r.db' AS r; DELETE FROM r.counters"
	want 1 "" "statement 2 \(DELETE FROM r\.counters\) would write"
	q t.db "ATTACH 'file:r.db?mode=rw' AS r; SELECT 1"
	want 1 "" "statement 1 \(ATTACH 'file:r\.db\?mode=rw' AS r\): access mode not allowed"
	[ "$(sha256sum <r.db)" = "$sum" ] || fail "r.db changed"
	q t.db "ATTACH 'nothere.db' AS n; SELECT 1"
	want 1 "" "statement 1 \(ATTACH 'nothere\.db' AS n\): unable to open database"
	[ ! -e nothere.db ] || fail "ATTACH created nothere.db"
	q t.db "ATTACH 'r.db' AS r; DETACH r"
	want 1 "" "statement 2 \(DETACH r\): DETACH is refused"
}

case_formats() {
	local sql="SELECT 1 AS i, 2.5 AS f, 'a,\"b\"' AS s, NULL AS n; SELECT 7 AS k WHERE 0"
	q t.db "$sql"
	want 0 "$(printf 'i\tf\ts\tn\n1\t2.5\ta,"b"\tNULL\n\nk')"
	q t.db --format csv "$sql"
	want 0 "$(printf 'i,f,s,n\n1,2.5,"a,""b""",\n\nk')"
	q t.db --csv "$sql"
	want 0 "$(printf 'i,f,s,n\n1,2.5,"a,""b""",\n\nk')"
	q t.db --format json "$sql"
	want 0 "$(printf '[{"i":1,"f":2.5,"s":"a,\\"b\\"","n":null}]\n[]')"
	q t.db --json "SELECT 0.1 AS a, 1e300 * 1e300 AS inf, 3.0 AS r, x'0102' AS b"
	want 0 '[{"a":0.1,"inf":null,"r":3.0,"b":"<blob 2 bytes>"}]'
	# text holding a NUL, a byte that is not UTF-8 and a cut sequence: all of it shown
	local odd="SELECT 'ab' || char(0) || 'cd' AS a, CAST(x'6162ff' AS TEXT) AS b, CAST(x'e282' AS TEXT) AS c"
	q t.db "$odd"
	want 0 "$(printf 'a\tb\tc\nab\\x00cd\tab\\xff\t\\xe2\\x82')"
	q t.db --csv "$odd"
	want 0 "$(printf 'a,b,c\nab\\x00cd,ab\\xff,\\xe2\\x82')"
	q t.db --json "$odd"
	want 0 '[{"a":"ab\u0000cd","b":"ab\ufffd","c":"\ufffd\ufffd"}]'
	# overlong, surrogate and beyond U+10FFFF: not UTF-8 (a strict decoder refuses them)
	q t.db --json "SELECT 'x' || $(printf "CAST(x'%s' AS TEXT) || " e08080 eda080 f4908080 c0af)'y' AS a, 'é€😀' AS b"
	printf '%s' "$out" | python3 -c 'import json, sys; json.loads(sys.stdin.buffer.read().decode("utf-8", "strict"))' ||
		fail "--json of text that is not UTF-8 is not JSON: $out"
	printf '%s' "$out" | grep -q '"b":"é€😀"' || fail "--json: UTF-8 text not kept: $out"
	# every result set is a JSON document of its own
	q t.db -f json "SELECT id, type FROM pages ORDER BY id LIMIT 3; SELECT key FROM meta"
	printf '%s\n' "$out" | python3 -c '
import json, sys
text = sys.stdin.read()
dec, i, docs = json.JSONDecoder(), 0, []
while i < len(text):
    if text[i].isspace():
        i += 1
        continue
    d, i = dec.raw_decode(text, i)
    docs.append(d)
assert len(docs) == 2, docs
assert docs[0] == [{"id": 0, "type": 0}, {"id": 1, "type": 0}, {"id": 2, "type": 0}], docs[0]
assert all(set(r) == {"key"} for r in docs[1]) and docs[1], docs[1]
' || fail "--format json is not two JSON arrays of the rows"
	q t.db --format xml "SELECT 1"
	want 2 "" "--format 'xml': use table, csv or json"
}

case_errors() {
	# SQL that starts with a comment reads as an option: say how to give it
	q t.db "-- only a comment"
	want 2 "" "'-- only a comment' is read as an option: put -- before SQL"
	q t.db -- "-- a comment
		SELECT 1 AS a"
	want 0 "$(printf 'a\n1')"
	q t.db "SELECT 1 AS a;
		SELECT * FROM no_such_table WHERE x = 1"
	want 1 "" "statement 2 \(SELECT \* FROM no_such_table WHERE x = 1\): SQL error: no such table: no_such_table"
	q t.db "SELECT 1 AS a; SELECT abs(-9223372036854775807 - 1)"
	want 1 "$(printf 'a\n1\n\nabs(-9223372036854775807 - 1)')" "statement 2 \(SELECT abs\(.*\)\): integer overflow"
	q t.db ""
	want 2 "" "no SQL statement given \(the SQL is empty or only comments\)"
	q t.db " -- a comment ; /* another */ ;"
	want 2 "" "no SQL statement given"
	q t.db "SELECT '$(printf 'x%.0s' $(seq 100))'"
	[ "$rc" = 0 ] || fail "a long statement: exit $rc"
	q t.db "SELECT * FROM nope_$(printf 'y%.0s' $(seq 100))"
	grep -qE "statement 1 \(SELECT \* FROM nope_y+\.\.\.\)" <<<"$err" ||
		fail "a long failing statement is not shortened in the message: $err"
}

setup
cases=${*:-every_statement attach_join attach_readonly formats errors}
for case in $cases; do
	"case_$case"
done
if [ $fails -gt 0 ]; then
	echo "$fails failures"
	exit 1
fi
echo "all query cases passed"
