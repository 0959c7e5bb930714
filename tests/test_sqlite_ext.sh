#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# test_sqlite_ext.sh MEMREPLAY LIBMEMREPLAY_SO DEFAULT_DB [ASAN_RUNTIME]
#
# The SQLite extension (storage/ext.c) in the programs people open traces with: the
# sqlite3 shell and Python's sqlite3 module see the same `events` table as `memreplay
# query` (the same rows, unique rowids under an OR, the time range handed to the
# reader), and loading it where there is no trace, or on a hostile one, fails with a
# message that names the problem.
set -uo pipefail
MR=$(realpath "$1")
EXT=$(realpath "$2")
DB=$(realpath "$3")
ASAN=${4:-}
EXT=${EXT%.so}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
ok() { echo "ok   $*"; }

command -v sqlite3 >/dev/null || { echo "test_sqlite_ext: needs the sqlite3 shell (apt-get install sqlite3)"; exit 1; }
# Python with extension loading: Debian's python3 has it; a self-built one may not
PY=
for p in python3 /usr/bin/python3; do
	if command -v "$p" >/dev/null &&
		"$p" -c 'import sqlite3, sys; sys.exit(not hasattr(sqlite3.Connection, "enable_load_extension"))' 2>/dev/null; then
		PY=$p
		break
	fi
done
[ -n "$PY" ] || { echo "test_sqlite_ext: no python3 whose sqlite3 module loads extensions (apt-get install python3)"; exit 1; }
if [ -n "$ASAN" ]; then
	# the extension is instrumented, its hosts are not
	export LD_PRELOAD=$ASAN ASAN_OPTIONS=detect_leaks=0
fi

sq() { sqlite3 -batch -csv "$1" -cmd ".load $EXT" "$2"; }
mrq() { "$MR" query "$1" --csv "$2" | tail -n +2; }

# 1. the same rows as memreplay query, whole-table and with a time range
for q in "SELECT kind, count(*), sum(page), sum(size) FROM events GROUP BY kind ORDER BY kind" \
	"SELECT count(*), min(time), max(time), sum(task) FROM events WHERE time BETWEEN 2000000000 AND 3000000000" \
	"SELECT count(*) FROM events WHERE time < 1000000 OR time > 7000000000" \
	"SELECT count(DISTINCT rowid), count(*) FROM events"; do
	a=$(sq "$DB" "$q" 2>&1)
	b=$(mrq "$DB" "$q" 2>&1)
	if [ -n "$a" ] && [ "$a" = "$b" ]; then ok "sqlite3: $q"; else bad "sqlite3 '$q': '$a', memreplay query: '$b'"; fi
done
a=$(sq "$DB" "SELECT count(*) FROM events WHERE time < 1000000 OR time > 7000000000")
[ "$a" = 1069 ] || bad "the OR query gave $a rows, not 1069 (rowids must be unique per event)"

# 2. Python, the same grouping
q="SELECT kind, count(*), sum(page), sum(size) FROM events GROUP BY kind ORDER BY kind"
a=$("$PY" - "$DB" "$EXT" "$q" <<'PYEOF' 2>&1
import sqlite3, sys
con = sqlite3.connect("file:" + sys.argv[1] + "?mode=ro", uri=True)
con.enable_load_extension(True)
con.load_extension(sys.argv[2])
for row in con.execute(sys.argv[3]):
    print(",".join("" if v is None else str(v) for v in row))
PYEOF
)
b=$(mrq "$DB" "$q")
if [ -n "$a" ] && [ "$a" = "$b" ]; then ok "python3 ($PY): $q"; else bad "python3: '$a', memreplay query: '$b'"; fi

# 3. where there is no trace, or the trace is not one: a message naming it, exit != 0
expect_refusal() { # what DB pattern
	local out rc
	out=$(sqlite3 -batch "$2" -cmd ".load $EXT" "SELECT count(*) FROM events" 2>&1)
	rc=$?
	if [ "$rc" -ne 0 ] && printf '%s' "$out" | grep -q "memreplay: .*$3"; then
		ok "$1 refused: $(printf '%s' "$out" | head -1)"
	else
		bad "$1: exit $rc, '$out' (wanted a refusal matching '$3')"
	fi
}
expect_refusal "an in-memory database" ":memory:" "no trace open"
sqlite3 "$T/plain.db" "CREATE TABLE t(x); INSERT INTO t VALUES (1)"
expect_refusal "a database that is not a trace" "$T/plain.db" "not a memreplay"
"$MR" gen loop -o "$T/h.db" --size 2M --passes 2 >/dev/null 2>&1 || bad "gen failed"
sqlite3 "$T/h.db" "ALTER TABLE chunks RENAME TO c2; CREATE VIEW chunks AS SELECT * FROM c2"
expect_refusal "a trace whose chunks is a view" "$T/h.db" "chunks"

echo "test_sqlite_ext: $fail failed"
[ "$fail" -eq 0 ]
