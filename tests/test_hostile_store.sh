#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# test_hostile_store.sh MEMREPLAY [CASE...] - hostile and broken trace stores.
#
# Each case builds one bad store from a small generated trace with the sqlite3 shell and
# runs the commands that read it (info, query on the events table, replay). Every
# command must end with exit status 1 or 2 and a message naming the problem (a pattern
# per case, usually "table row N, column C"), within a timeout (no hang), with no
# sanitizer report (this runs in the ASan+UBSan build too), and must leave the input as
# it was: the same checksum, and no -wal, -shm or -journal file created beside it.
# Cases that must succeed (read-only media, escapes, several statements) check their
# output instead. `test_hostile_store.sh MEMREPLAY --list` prints the case names; CTest
# runs each as hostile.CASE.
set -uo pipefail

MR=$(realpath "$1")
shift
TIMEOUT=${MR_TEST_TIMEOUT:-60}
command -v sqlite3 >/dev/null || { echo "test_hostile_store: needs the sqlite3 shell (apt-get install sqlite3)" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/mr-hostile.XXXXXX")
chmod 755 "$work" # the read-only cases read it as another user
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
failures=0

fail() {
	echo "FAIL [$case]: $*" >&2
	failures=$((failures + 1))
}

# base NAME GENERATOR ARGS...: a fresh trace NAME.db from a generator
base() {
	local name=$1
	shift
	rm -f "$name.db" "$name.db-wal" "$name.db-shm" "$name.db-journal"
	"$MR" gen "$@" -o "$name.db" >/dev/null 2>&1 || { fail "gen $* failed"; return 1; }
}

side_files() { ls -1 "$1"-wal "$1"-shm "$1"-journal 2>/dev/null | tr '\n' ' '; }

# run_cmd DB CMD...: run memreplay with a timeout; sets rc, out, errtxt
run_cmd() {
	local db=$1
	shift
	timeout -k 5 "$TIMEOUT" "$MR" "$@" >"$work/out" 2>"$work/err"
	rc=$?
	out=$(cat "$work/out")
	errtxt=$(cat "$work/err")
	if [ $rc = 124 ] || [ $rc = 137 ]; then
		fail "$* hung (killed after ${TIMEOUT}s)"
	fi
	if grep -qE "AddressSanitizer|LeakSanitizer|runtime error:|UndefinedBehaviorSanitizer" "$work/err"; then
		fail "$* drew a sanitizer report: $(head -5 "$work/err")"
	fi
}

# refuse DB PATTERN CMD...: exit 1 or 2 with stderr matching PATTERN (grep -E), DB and
# its side files as they were
refuse() {
	local db=$1 pattern=$2 sum sides
	shift 2
	sum=$(sha256sum <"$db")
	sides=$(side_files "$db")
	run_cmd "$db" "$@"
	if [ $rc != 1 ] && [ $rc != 2 ]; then
		fail "$* exited $rc (want 1 or 2); stderr: $(head -c 400 "$work/err")"
	elif ! grep -qE -- "$pattern" "$work/err"; then
		fail "$* did not say /$pattern/; stderr: $(head -c 400 "$work/err")"
	fi
	[ "$(sha256sum <"$db")" = "$sum" ] || fail "$* changed $db"
	[ "$(side_files "$db")" = "$sides" ] || fail "$* left $(side_files "$db")beside $db"
}

# refuse_all DB PATTERN: info, a query of the events and a replay all refuse
refuse_all() {
	refuse "$1" "$2" info "$1"
	refuse "$1" "$2" query "$1" "SELECT count(*) FROM events"
	refuse "$1" "$2" replay "$1" --policy lru --memory 1M -o "$work/res.db"
}

# accept DB CMD...: exit 0, no sanitizer report, DB unchanged
accept() {
	local db=$1 sum
	shift
	sum=$(sha256sum <"$db")
	run_cmd "$db" "$@"
	[ $rc = 0 ] || fail "$* exited $rc; stderr: $(head -c 400 "$work/err")"
	[ "$(sha256sum <"$db")" = "$sum" ] || fail "$* changed $db"
}

sql() { sqlite3 "$@" >/dev/null || fail "sqlite3 $1 failed"; }

# ---- item 1: objects that are not the format's tables ----

case_view_chunks() {
	base t loop --size 2M --passes 3 || return
	sql t.db "DROP TABLE chunks; CREATE VIEW chunks(id, stream, t_first, t_last, n_events,
		kind_counts, payload_bytes, crc, data) AS SELECT 1, 0, time, time, 1, NULL, 0, 0, x'' FROM events"
	refuse_all t.db "chunks is a view"
}

case_recursive_view() {
	base t loop --size 2M --passes 3 || return
	sql t.db "DROP TABLE chunks; CREATE VIEW chunks(id, stream, t_first, t_last, n_events,
		kind_counts, payload_bytes, crc, data) AS WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL
		SELECT i + 1 FROM r) SELECT i, 0, i, i, 1, NULL, 0, 0, x'' FROM r"
	refuse_all t.db "chunks is a view"
}

case_events_table() {
	base t loop --size 2M --passes 3 || return
	sql t.db "CREATE TABLE events(time, kind, kind_id, page, task, cpu, flags, size, arg);
		INSERT INTO events VALUES(1, 'access', 0, 0, 0, 0, 0, 0, 0)"
	refuse_all t.db "named events would hide"
}

case_redefined_pages() {
	base t loop --size 2M --passes 3 || return
	# no primary key: duplicate ids fit
	sql t.db "CREATE TABLE p2 AS SELECT * FROM pages; DROP TABLE pages; ALTER TABLE p2 RENAME TO pages;
		INSERT INTO pages SELECT * FROM pages WHERE id < 5"
	refuse_all t.db "table pages, column 1 is not the format's"
}

case_trigger_ignored() {
	base t loop --size 2M --passes 3 || return
	sql t.db "CREATE TRIGGER tr AFTER INSERT ON markers BEGIN DELETE FROM chunks; END"
	accept t.db query t.db "SELECT count(*) FROM events"
	[ "$out" = "$(printf 'count(*)\n2049')" ] || fail "query with a trigger in the file: $out"
}

# ---- items 3 and 12: chunk rows ----

case_chunk_time_negative() {
	base t loop --size 2M --passes 3 || return
	sql t.db "UPDATE chunks SET t_first = -5 WHERE id = 1" # a time >= 2^63 stored as it was
	refuse_all t.db "chunks row 1, column t_first: -5 is not a time"
}

case_chunk_t_last_max() {
	base t loop --size 2M --passes 3 || return
	sql t.db "UPDATE chunks SET t_last = -1 WHERE id = 1" # 2^64-1 ns
	refuse_all t.db "chunks row 1, column t_last: -1 is not a time"
}

case_chunk_text_stream() {
	base t loop --size 2M --passes 3 || return
	sql t.db "UPDATE chunks SET stream = 'zero' WHERE id = 1"
	refuse_all t.db "chunks row 1, column stream: a text value is not the id of a row of streams"
}

case_chunk_negative_stream() {
	base t loop --size 2M --passes 3 || return
	sql t.db "UPDATE chunks SET stream = -1 WHERE id = 1"
	refuse_all t.db "chunks row 1, column stream: -1 is not the id"
}

case_chunk_text_time() {
	base t loop --size 2M --passes 3 || return
	sql t.db "UPDATE chunks SET t_first = 'soon' WHERE id = 1"
	refuse_all t.db "chunks row 1, column t_first: a text value is not a time"
}

case_chunk_n_events() {
	base t loop --size 2M --passes 3 || return
	# info added this up to "events 9223372036854775808"
	sql t.db "UPDATE chunks SET n_events = 9223372036854775807 WHERE id = 1"
	refuse_all t.db "chunks row 1, column n_events: 9223372036854775807 is not a chunk size"
}

case_chunk_row_vs_blob() {
	base t loop --size 2M --passes 3 || return
	sql t.db "UPDATE chunks SET n_events = n_events - 1 WHERE id = 1"
	refuse_all t.db "chunks row 1, column (kind_counts|n_events)"
	base t loop --size 2M --passes 3 || return
	sql t.db "UPDATE chunks SET crc = (crc + 1) % 4294967296 WHERE id = 1"
	refuse_all t.db "chunks row 1, column crc: the row says"
}

case_chunk_kind_counts() {
	base t loop --size 2M --passes 3 || return
	sql t.db "UPDATE chunks SET kind_counts = zeroblob(72) WHERE id = 1"
	refuse_all t.db "chunks row 1, column kind_counts"
}

case_stream_order() {
	# two chunks of one stream; the second's row claims to start first, so its events come
	# before the first chunk's: times go back within the stream
	base t seq --size 64M --passes 1 || return
	sql t.db "UPDATE chunks SET id = 100 WHERE id = 1; UPDATE chunks SET t_first = 0 WHERE id = 2"
	refuse_all t.db "chunks row 100 \(stream 0\), event 0 \([a-z_]+\), column time: 0 ns is before the stream's previous event"
}

# ---- item 12 (and 2): pages and VMAs the events name ----

case_page_id_huge() {
	base t loop --size 2M --passes 3 || return
	# replay sized its page arrays by the largest id: ~24 GB for this row
	sql t.db "INSERT INTO pages(id, type, exec) VALUES(1000000000, 0, 0)"
	refuse_all t.db "pages row 1000000000, column id: page ids are dense from 0"
}

case_pages_empty() {
	base t loop --size 2M --passes 3 || return
	sql t.db "DELETE FROM pages"
	refuse_all t.db "column page: page [0-9]+ is not a row of pages \(which has 0 rows\)"
}

case_pages_short() {
	base t loop --size 2M --passes 3 || return
	sql t.db "DELETE FROM pages WHERE id >= 100"
	refuse_all t.db "column page: page [0-9]+ is not a row of pages \(which has 100 rows\)"
}

case_page_type() {
	base t loop --size 2M --passes 3 || return
	sql t.db "UPDATE pages SET type = 7 WHERE id = 3"
	refuse t.db "pages row 3, column type" info t.db
	refuse t.db "pages row 3, column type" replay t.db --policy lru --memory 1M -o "$work/res.db"
}

case_page_text_column() {
	base t loop --size 2M --passes 3 || return
	sql t.db "UPDATE pages SET mm = 'one' WHERE id = 4"
	refuse t.db "pages row 4, column mm: a text value" replay t.db --policy lru --memory 1M -o "$work/res.db"
}

case_vma_unknown() {
	base t loop --size 2M --passes 3 || return
	sql t.db "DELETE FROM vmas"
	refuse_all t.db "event 0 \(map\), column arg: VMA 1 is not a row of vmas"
}

# vmas, tasks and mms rows: replay built its machines from them and passed over a row it
# could not use (a VMA of an unknown mm or file, start >= end: its pages went to derived
# VMAs, its MAP events to nothing), exit 0 without a word

case_vma_unknown_mm() {
	base t loop --size 2M --passes 3 || return
	sql t.db "UPDATE vmas SET mm = 99 WHERE id = 1"
	refuse_all t.db "vmas row 1, column mm: 99 is not the id of a row of mms"
}

case_vma_unknown_file() {
	base t loop --size 2M --passes 3 || return
	sql t.db "UPDATE vmas SET file = 42 WHERE id = 1"
	refuse_all t.db "vmas row 1, column file: 42 is neither 0 \(anonymous\) nor the id of a row of files"
}

case_vma_empty_range() {
	base t loop --size 2M --passes 3 || return
	sql t.db "UPDATE vmas SET \"end\" = start WHERE id = 1"
	refuse_all t.db "vmas row 1, column end: [0-9]+ is not an address above start"
}

case_vma_end_last_page() {
	base t loop --size 2M --passes 3 || return
	# 2^64 - 1 as SQLite stores it: rounded up to a page it wrapped to 0
	sql t.db "UPDATE vmas SET \"end\" = -1 WHERE id = 1"
	refuse_all t.db "vmas row 1, column end: -1 is not an address above start"
}

case_vma_text_start() {
	base t loop --size 2M --passes 3 || return
	sql t.db "UPDATE vmas SET start = 'low' WHERE id = 1"
	refuse_all t.db "vmas row 1, column start: a text value is not an address"
}

case_vma_unmap_before_map() {
	base t loop --size 2M --passes 3 || return
	sql t.db "UPDATE vmas SET map_ns = 5000, unmap_ns = 10 WHERE id = 1"
	refuse_all t.db "vmas row 1, column unmap_ns: 10 is before map_ns"
}

case_vma_id_huge() {
	base t loop --size 2M --passes 3 || return
	sql t.db "UPDATE vmas SET id = 4294967296 WHERE id = 1"
	refuse_all t.db "vmas row 4294967296, column id: 4294967296 is not a VMA id"
}

case_vma_high_address() {
	base t loop --size 2M --passes 3 || return
	# the format allows any 64-bit address (--anonymize hashes them); such a row was
	# passed over above 2^57 and is used now: its pages get derived VMAs, as they did
	sql t.db "UPDATE vmas SET start = -8796093022208, \"end\" = -4096 WHERE id = 1"
	accept t.db replay t.db --policy lru --memory 1M -o "$work/res.db"
}

case_task_unknown_mm() {
	base t loop --size 2M --passes 3 || return
	sql t.db "UPDATE tasks SET mm = 7 WHERE id = 1"
	refuse_all t.db "tasks row 1, column mm: 7 is neither 0 \(no address space\) nor the id of a row of mms"
}

case_task_unknown_cgroup() {
	base t loop --size 2M --passes 3 || return
	sql t.db "UPDATE tasks SET cgroup = 5 WHERE id = 1"
	refuse_all t.db "tasks row 1, column cgroup: 5 is neither 0 \(unknown\) nor the id of a row of cgroups"
}

case_task_id_zero() {
	base t loop --size 2M --passes 3 || return
	sql t.db "UPDATE tasks SET id = 0 WHERE id = 1"
	refuse_all t.db "tasks row 0, column id: 0 is not a task id"
}

case_mm_id_negative() {
	base t loop --size 2M --passes 3 || return
	sql t.db "INSERT INTO mms VALUES(-3, 1, 'x')"
	refuse_all t.db "mms row -3, column id: -3 is not an address space id"
}

# ---- item 13: query, printing, side files ----

case_query_statements() {
	base t loop --size 2M --passes 3 || return
	accept t.db query t.db "SELECT count(*) AS a FROM pages; SELECT count(*) AS b FROM vmas"
	[ "$out" = "$(printf 'a\n512\n\nb\n1')" ] || fail "two statements printed: $out"
	refuse t.db "no SQL statement given" query t.db ""
	refuse t.db "no SQL statement given" query t.db "  -- nothing"
	refuse t.db "statement 1 \\(VACUUM INTO .*\\) would write" query t.db "VACUUM INTO '$work/copy.db'"
	[ ! -e "$work/copy.db" ] || fail "VACUUM INTO wrote $work/copy.db"
	# nothing runs when a later statement is refused
	refuse t.db "statement 2 \\(PRAGMA user_version = 3\\) would write" query t.db "SELECT 'ran'; PRAGMA user_version = 3"
	[ -z "$out" ] || fail "statement 1 ran before statement 2 was refused: $out"
	# ATTACH opens read-only: a file that is not there is not created
	refuse t.db "statement 1 \\(ATTACH .*\\): unable to open" query t.db "ATTACH '$work/attached.db' AS o"
	[ ! -e "$work/attached.db" ] || fail "ATTACH created $work/attached.db"
}

case_escapes() {
	base t loop --size 2M --passes 3 || return
	sql t.db "INSERT INTO meta VALUES('note', 'a' || char(27) || '[2J' || char(10) || 'fake line' || char(155) || 'x')"
	accept t.db info t.db
	if printf '%s' "$out" | grep -q "$(printf '\033')"; then fail "info printed an escape character"; fi
	printf '%s' "$out" | grep -qF 'a\x1b[2J\nfake line\xc2\x9bx' || fail "info did not show the escaped value: $(printf '%s' "$out" | grep note)"
	accept t.db info --json t.db
	printf '%s' "$out" | grep -qF '"note": "a\u001b[2J\u000afake line' || fail "info --json: $(printf '%s' "$out" | grep note)"
	accept t.db query t.db "SELECT value FROM meta WHERE key = 'note'"
	if printf '%s' "$out" | grep -q "$(printf '\033')"; then fail "query printed an escape character"; fi
	# a results database's stored spec, through compare
	accept t.db replay t.db --policy lru --memory 1M -o "$work/res.db"
	sql "$work/res.db" "UPDATE runs SET spec = spec || char(27) || ']0;title' || char(7)"
	accept "$work/res.db" compare "$work/res.db"
	if printf '%s' "$out" | grep -q "$(printf '\033')"; then fail "compare printed an escape character: $out"; fi
	accept "$work/res.db" compare "$work/res.db" --format csv
	if printf '%s' "$out" | grep -q "$(printf '\033')"; then fail "compare --format csv printed an escape character"; fi
}

case_foreign_wal() {
	# a finished trace is in rollback mode: a -wal beside it is never its own
	base t loop --size 2M --passes 3 || return
	base o seq --size 8M --passes 1 || return
	sqlite3 o.db "PRAGMA journal_mode=WAL; PRAGMA wal_autocheckpoint=0; DELETE FROM chunks;" ".system cp o.db-wal t.db-wal" >/dev/null
	[ -s t.db-wal ] || { fail "could not make a WAL to place beside the trace"; return; }
	refuse_all t.db "write-ahead log beside it .* that it did not write"
	# a WAL-mode (unfinished) trace with another database's WAL: another page size
	base t loop --size 2M --passes 3 || return
	sql t.db "PRAGMA journal_mode=WAL"
	sqlite3 small.db "PRAGMA page_size=1024; PRAGMA journal_mode=WAL; PRAGMA wal_autocheckpoint=0;
		CREATE TABLE x(y); INSERT INTO x VALUES(1);" ".system cp small.db-wal t.db-wal" >/dev/null
	refuse_all t.db "1024-byte pages where the trace has 4096"
	# ... the same page size, but its first page is not a trace's
	base t loop --size 2M --passes 3 || return
	sql t.db "PRAGMA journal_mode=WAL"
	rm -f other.db*
	sqlite3 other.db "PRAGMA journal_mode=WAL; PRAGMA wal_autocheckpoint=0; PRAGMA application_id=7;
		CREATE TABLE x(y); INSERT INTO x VALUES(1);" ".system cp other.db-wal t.db-wal" >/dev/null
	refuse_all t.db "first page with application_id 0x00000007"
	# a hot journal of another program
	base t loop --size 2M --passes 3 || return
	{ printf '\331\325\005\371\040\241\143\327'; head -c 4096 /dev/zero; } >t.db-journal # magic, then no page of ours
	refuse_all t.db "rollback journal beside it"
}

# ---- item 10: traces where the reader may not write ----

# reader_cmd: the command prefix that runs as a user who cannot write the directory
# (nobody, when the tests run as root: root writes anywhere)
reader_cmd() {
	if [ "$(id -u)" = 0 ]; then
		echo setpriv --reuid=65534 --regid=65534 --clear-groups --
	fi
}

case_read_only() {
	if [ "$(id -u)" = 0 ] && ! command -v setpriv >/dev/null; then
		echo "SKIP [$case]: root without setpriv cannot drop write access"
		return
	fi
	mkdir -p ro scratch
	base ro/t loop --size 2M --passes 3 || return
	cp ro/t.db ro/w.db
	sql ro/w.db "PRAGMA journal_mode=WAL" # an unfinished trace whose WAL is empty
	# an unfinished trace with committed data in its WAL: copied while the WAL is live
	cp ro/t.db scratch/u.db
	sqlite3 scratch/u.db "PRAGMA journal_mode=WAL; PRAGMA wal_autocheckpoint=0;
		UPDATE meta SET value = 'x' WHERE key = 'format';" ".system cp scratch/u.db scratch/u.db-wal ro/" >/dev/null
	[ -s ro/u.db-wal ] || { fail "could not make a trace with a live WAL"; return; }
	chmod -R a+rX,a-w ro
	for db in ro/t.db ro/w.db ro/u.db; do
		sum=$(sha256sum <"$db")
		# shellcheck disable=SC2046
		timeout -k 5 "$TIMEOUT" $(reader_cmd) "$MR" info "$db" >out 2>err
		rc=$?
		if [ $db = ro/u.db ]; then
			{ [ $rc = 1 ] && grep -q "copy the trace with its -wal file to a writable directory" err; } ||
				fail "info on an unfinished trace with a WAL in a read-only directory: exit $rc: $(head -c 300 err)"
		else
			[ $rc = 0 ] || fail "info $db in a read-only directory exited $rc: $(head -c 300 err)"
			grep -q "^events       2049 in 1 chunks" out || fail "info $db in a read-only directory: $(head -3 out)"
		fi
		[ "$(sha256sum <"$db")" = "$sum" ] || fail "info changed $db"
	done
	chmod -R u+w ro
}

case_finished_mode() {
	# what the writer leaves: rollback mode (header bytes 18, 19 = 1), no side files
	base t loop --size 2M --passes 3 || return
	[ "$(od -An -tu1 -j18 -N2 t.db | tr -s ' ')" = " 1 1" ] || fail "a finished trace is not in rollback mode: $(od -An -tu1 -j18 -N2 t.db)"
	[ -z "$(side_files t.db)" ] || fail "gen left $(side_files t.db)"
	accept t.db info t.db
	[ -z "$(side_files t.db)" ] || fail "info left $(side_files t.db)"
}

cases=$(declare -F | awk '$3 ~ /^case_/ { sub(/^case_/, "", $3); print $3 }')
if [ "${1:-}" = --list ]; then
	echo "$cases"
	exit 0
fi
want=${*:-$cases}
for case in $want; do
	if ! declare -F "case_$case" >/dev/null; then
		echo "test_hostile_store: no case $case" >&2
		exit 2
	fi
	before=$failures
	"case_$case"
	[ $failures = "$before" ] && echo "ok [$case]"
done
if [ $failures != 0 ]; then
	echo "test_hostile_store: $failures failed" >&2
	exit 1
fi
