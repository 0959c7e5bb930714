#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# test_import.sh MEMREPLAY SAMPLES - memreplay import / export (docs/import.md).
# Counts are computed here from the samples with python3, independently of the importers.
set -u
MR=$1
S=$2
T=$(mktemp -d)
export MEMREPLAY_CACHE="$T/cache"
trap 'rm -rf "$T"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# expect STATUS NEEDLE -- CMD...: exit status and a message fragment on stderr/stdout.
expect() {
	local want=$1 needle=$2
	shift 3
	local out rc
	out=$("$@" 2>&1)
	rc=$?
	if [ "$rc" = "$want" ] && grep -qF -- "$needle" <<<"$out"; then
		ok
	else
		bad "$* -> exit $rc (want $want), output:"
		sed 's/^/    /' <<<"$out"
		echo "    (wanted to see: $needle)"
	fi
}

# same WHAT GOT WANT
same() {
	if [ "$2" = "$3" ]; then ok; else bad "$1: got '$2', want '$3'"; fi
}

# q DB SQL: the result rows, without the header line
q() { "$MR" query "$1" "$2" 2>&1 | tail -n +2; }

# counts DB: "events pages tasks accesses" as the trace says them
counts() {
	echo "$(q "$1" "SELECT count(*) FROM events") $(q "$1" "SELECT count(*) FROM pages")" \
	     "$(q "$1" "SELECT count(*) FROM tasks")" \
	     "$(q "$1" "SELECT coalesce(sum(CASE kind_id WHEN 0 THEN 1 WHEN 1 THEN size END), 0) FROM events")"
}

# replays DB: lru (and mglru) run on it and count every reference
replays() {
	local refs
	expect 0 "lru" -- "$MR" replay "$1" --policy lru --policy mglru --memory 16 -o "$T/r.db"
	refs=$(q "$1" "SELECT coalesce(sum(CASE kind_id WHEN 0 THEN 1 WHEN 1 THEN size END), 0) FROM events")
	same "$1: lru references" "$(q "$T/r.db" "SELECT value FROM counters c JOIN runs r ON r.id = c.run
		WHERE r.policy = 'lru' AND c.name = 'mr_references' AND c.memcg IS NULL")" "$refs"
	rm -f "$T/r.db"
}

no_leftovers() {
	local left
	left=$(ls "$T" | grep -E "^$1|tmp-" || true)
	same "no file left after a refused import ($1)" "$left" ""
}

# ---- perf script ----
want=$(python3 - "$S/perf-touch.txt" <<'PY'
import sys, re
pages, tasks, procs, n = set(), set(), set(), 0
for line in open(sys.argv[1]):
    t = line.split()
    if not t or t[0].startswith('#'):
        continue
    ti = next(i for i, x in enumerate(t) if re.fullmatch(r'\d+\.\d+:', x))
    pid, tid = t[ti - 1].split('/')
    addr = int(t[ti + 2], 16)
    n += 1
    pages.add((pid, addr >> 12)); tasks.add((pid, tid)); procs.add(pid)
# a FAULT and an ACCESS per sample, a MAP per process
print(2 * n + len(procs), len(pages), len(tasks), n)
PY
)
expect 0 "cannot say" -- "$MR" import perf "$S/perf-touch.txt" -o "$T/perf.db"
same "perf: events pages tasks accesses" "$(counts "$T/perf.db")" "$want"
same "perf: import.format" "$(q "$T/perf.db" "SELECT value FROM meta WHERE key = 'import.format'")" perf
expect 0 "read/write" -- "$MR" query "$T/perf.db" "SELECT value FROM meta WHERE key = 'import.lacks'"
replays "$T/perf.db"
# perf's default fields with the address added, and a comm with a space
printf '%s\n' \
	'   my prog 100 10.000001:          1 page-faults:     7f0000001010 foo+0x0 (/bin/x)     7f0000001010 foo+0x0 (/bin/x)' \
	'   my prog 100 10.000002:          1 page-faults:     7f0000005000 [unknown] ([heap])     401000 main+0x10 (/bin/x)' \
	>"$T/default.txt"
expect 0 "2 page references of 2 pages" -- "$MR" import perf "$T/default.txt" -o "$T/default.db"
same "perf default fields: comm" "$(q "$T/default.db" "SELECT comm FROM tasks")" "my prog"
same "perf default fields: exec when the IP is on the page" \
	"$(q "$T/default.db" "SELECT exec FROM pages ORDER BY id" | tr '\n' ' ')" "1 0 "
# threads of one process share its address space; a [CPU] field; perf script --ns times
printf '%s\n' \
	'  w 200/200 [000] 5.000000001: page-faults: 7f0000001000 401000' \
	'  w 200/201 [001] 5.000000010: page-faults: 7f0000001008 401000' \
	'  w 200/201 [001] 5.000000020: major-faults: 7f0000002000 401000' \
	'  v 300/300 [001] 5.000000030: page-faults: 7f0000001000 401000' >"$T/threads.txt"
expect 0 "wrote" -- "$MR" import perf "$T/threads.txt" -o "$T/threads.db"
same "perf threads: events pages tasks accesses" "$(counts "$T/threads.db")" "10 3 3 4"
same "perf threads: address spaces" "$(q "$T/threads.db" "SELECT count(*) FROM mms")" 2
same "perf threads: times (ns)" "$(q "$T/threads.db" "SELECT group_concat(time, ' ') FROM events WHERE kind_id = 0")" "0 9 19 29"
same "perf threads: major fault" "$(q "$T/threads.db" "SELECT count(*) FROM events WHERE kind_id = 2 AND flags & 8")" 1
# without the address: perf's default fields print only the IP
printf '%s\n' '   prog 100 10.000001:          1 page-faults:  ffffffff8177819a elf_load+0x28a ([kernel.kallsyms])' >"$T/noaddr.txt"
expect 1 "noaddr.txt:1: one address in a line of perf's default fields" -- "$MR" import perf "$T/noaddr.txt" -o "$T/noaddr.db"
# input without a newline is refused at 1 MiB, not read whole into memory (/dev/zero took
# 2-4 GB a second until killed): under a 256 MiB address-space bound (not for an
# ASan build, whose shadow memory needs terabytes of it) and 20 s
lim="ulimit -v 262144;"
ldd "$MR" 2>/dev/null | grep -q libasan && lim=
for f in perf lackey; do
	expect 1 "a line of more than 1048576 bytes" -- sh -c "$lim exec timeout 20 '$MR' import $f /dev/zero -o '$T/zero.db'"
done
expect 1 "a line of more than 64 KiB" -- sh -c "$lim exec timeout 20 '$MR' sweep /dev/zero --list"
no_leftovers noaddr.db
{ head -3 "$S/perf-touch.txt"; echo "this is not perf output"; } >"$T/bad.txt"
expect 1 "bad.txt:4: expected a sample line with a time field" -- "$MR" import perf "$T/bad.txt" -o "$T/bad.db"
no_leftovers bad.db
printf '%s\n' '   prog 100/100 10.000001: cycles:     7f0000001010 7f0000001010' >"$T/cyc.txt"
expect 1 "cyc.txt:1: event 'cycles' is not a page-fault event" -- "$MR" import perf "$T/cyc.txt" -o "$T/cyc.db"

# ---- valgrind lackey ----
lackey_want() {
	python3 - "$S/lackey-touch.txt" "$1" <<'PY'
import sys
instr = sys.argv[2] == '1'
pages, exe, n = set(), set(), 0
for line in open(sys.argv[1]):
    line = line.rstrip('\n')
    if line.startswith('==') or not line:
        continue
    kind = line[:2].strip()
    if kind == 'I' and not instr:
        continue
    a, sz = line[2:].strip().split(',')
    a, sz = int(a, 16), int(sz)
    for p in range(a >> 12, ((a + sz - 1) >> 12) + 1):
        n += 1; pages.add(p)
        if kind == 'I': exe.add(p)
print(n + 1, len(pages), 1, n, len(exe))
PY
}
want=$(lackey_want 0)
expect 0 "lackey cannot say" -- "$MR" import lackey "$S/lackey-touch.txt" -o "$T/lackey.db"
same "lackey: events pages tasks accesses" "$(counts "$T/lackey.db")" "${want% *}"
same "lackey: comm from the Command: line" "$(q "$T/lackey.db" "SELECT comm FROM tasks")" "touch_nolibc"
same "lackey: loads, stores, modifies" \
	"$(q "$T/lackey.db" "SELECT flags & 3, count(*) FROM events WHERE kind_id = 0 GROUP BY 1 ORDER BY 1" | tr '\n' ' ')" \
	"$(grep -E '^ [LSM] ' "$S/lackey-touch.txt" | cut -c2 | sort | uniq -c | awk '{f = $2 == "L" ? 1 : $2 == "S" ? 2 : 3; print f "\t" $1}' | sort | tr '\n' ' ')"
replays "$T/lackey.db"
want=$(lackey_want 1)
expect 0 "wrote" -- "$MR" import lackey "$S/lackey-touch.txt" --with-instr --tick 10ns -o "$T/lackey-i.db"
same "lackey --with-instr: events pages tasks accesses" "$(counts "$T/lackey-i.db")" "${want% *}"
same "lackey --with-instr: exec pages" "$(q "$T/lackey-i.db" "SELECT count(*) FROM pages WHERE exec = 1")" "${want##* }"
same "lackey --tick: import.options" "$(q "$T/lackey-i.db" "SELECT value FROM meta WHERE key = 'import.options'")" \
	"tick_ns=10 with_instr=1"
same "lackey --tick: last event time" "$(q "$T/lackey-i.db" "SELECT max(time) FROM events")" \
	"$(( ($(echo "${want% *}" | cut -d' ' -f4) - 1) * 10 ))"
{ head -20 "$S/lackey-touch.txt"; echo "hello from the program"; } >"$T/mixed.txt"
expect 1 "mixed.txt:21: expected a lackey record" -- "$MR" import lackey "$T/mixed.txt" -o "$T/mixed.db"
no_leftovers mixed.db
printf ' L 0400zz,4\n' >"$T/hex.txt"
expect 1 "hex.txt:1: expected a hexadecimal address" -- "$MR" import lackey "$T/hex.txt" -o "$T/hex.db"
printf ' S 04001000,\n' >"$T/size.txt"
expect 1 "size.txt:1: expected a size in bytes" -- "$MR" import lackey "$T/size.txt" -o "$T/size.db"

# ---- damo JSON ----
want=$(python3 - "$S/damon-paddr.json" <<'PY'
import sys, json
num = lambda v: int(str(v).replace(',', ''))
recs = json.load(open(sys.argv[1]))
pages, n, tasks = set(), 0, 0
for k, r in enumerate(recs):
    used = False
    for s in r['snapshots']:
        for g in s['regions']:
            if g['nr_accesses']['samples'] > 0:
                for p in range(num(g['start']) >> 12, ((num(g['end']) - 1) >> 12) + 1):
                    n += 1; pages.add((k, p)); used = True
    tasks += used
print(n + tasks, len(pages), tasks, n)
PY
)
expect 0 "damo cannot say" -- "$MR" import damo "$S/damon-paddr.json" -o "$T/damo.db"
same "damo: events pages tasks accesses" "$(counts "$T/damo.db")" "$want"
same "damo: one time per snapshot" "$(q "$T/damo.db" "SELECT count(DISTINCT time) FROM events WHERE kind_id = 0")" \
	"$(python3 -c "import json,sys; print(sum(1 for r in json.load(open(sys.argv[1])) for s in r['snapshots'] if any(g['nr_accesses']['samples'] for g in s['regions'])))" "$S/damon-paddr.json")"
replays "$T/damo.db"
head -c 3000 "$S/damon-paddr.json" >"$T/cut.json"
expect 1 "cut.json:" -- "$MR" import damo "$T/cut.json" -o "$T/cut.db"
no_leftovers cut.db
printf '[{"snapshots": [{"end_time": 10, "regions": [{"start": 4096, "end": 8192}]}]}]\n' >"$T/nonr.json"
expect 1 "nonr.json:1: a region without nr_accesses" -- "$MR" import damo "$T/nonr.json" -o "$T/nonr.db"
printf '[{"snapshots": [{"regions": [], "end_time": 10}]}]\n' >"$T/order.json"
expect 1 "regions before its end_time" -- "$MR" import damo "$T/order.json" -o "$T/order.db"
printf '[\n {"target_id": 0, "snapshots": [{"start_time": "1,000", "end_time": "2,000", "regions": [\n  {"start": "4,096", "end": "16,384", "nr_accesses": 3, "age": 1},\n  {"start": 16384, "end": "2 KiB", "nr_accesses": 1}]}]}]\n' >"$T/unit.json"
expect 1 "unit.json:4: region end: '2 KiB' is not a non-negative integer" -- "$MR" import damo "$T/unit.json" -o "$T/unit.db"
# two targets: two address spaces on two streams; a snapshot whose time goes back
printf '[{"target_id": 4, "snapshots": [{"start_time": 100, "end_time": 200, "regions": [{"start": 4096, "end": 12288, "nr_accesses": {"samples": 1, "percent": null}}]},\n{"start_time": 50, "end_time": 150, "regions": [{"start": 4096, "end": 8192, "nr_accesses": {"samples": null, "percent": 5}}]}]},\n {"target_id": 7, "snapshots": [{"start_time": 100, "end_time": 300, "regions": [{"start": 4096, "end": 8192, "nr_accesses": {"samples": 0, "percent": 0}}, {"start": 8192, "end": 8193, "nr_accesses": 2}]}]}]\n' >"$T/two.json"
expect 0 "adjusted: 1 records" -- "$MR" import damo "$T/two.json" -o "$T/two.db"
same "damo targets: events pages tasks accesses" "$(counts "$T/two.db")" "6 3 2 4"
same "damo targets: comms" "$(q "$T/two.db" "SELECT group_concat(comm, ' ') FROM tasks")" "damon-target-4 damon-target-7"
same "damo targets: streams" "$(q "$T/two.db" "SELECT count(*) FROM streams")" 2
same "damo targets: times" "$(q "$T/two.db" "SELECT group_concat(time, ' ') FROM events WHERE kind_id = 0")" "100 100 100 200"
printf 'x\234\003\000\000\000\000\001' >"$T/z.json"
expect 1 "damo convert_record_format --format json" -- "$MR" import damo "$T/z.json" -o "$T/z.db"

# ---- oracleGeneral: export, and back ----
expect 0 "oracleGeneral requests" -- "$MR" export --format oracleGeneral "$T/lackey.db" -o "$T/lk.bin"
check_bin() { # BIN DB: the records are the trace's references, next access 1-based, -1 at the last
	python3 - "$1" "$(q "$2" "SELECT group_concat(r, ' ') FROM (SELECT CASE kind_id WHEN 0 THEN page END AS r FROM events WHERE kind_id = 0 ORDER BY rowid)")" <<'PY'
import sys, struct
d = open(sys.argv[1], 'rb').read()
assert len(d) % 24 == 0, 'size not a multiple of 24'
recs = [struct.unpack_from('<IQIq', d, i) for i in range(0, len(d), 24)]
want = [int(x) for x in sys.argv[2].split()]
assert [r[1] for r in recs] == want, 'object ids are not the trace page stream'
nxt, last = [-1] * len(recs), {}
for i, r in enumerate(recs):
    if r[1] in last: nxt[last[r[1]]] = i + 1
    last[r[1]] = i
assert [r[3] for r in recs] == nxt, 'next_access_vtime wrong'
assert all(r[2] == 4096 for r in recs), 'size not 4096'
print('ok')
PY
}
same "export: records of lackey.db" "$(check_bin "$T/lk.bin" "$T/lackey.db" 2>&1)" ok
expect 0 "128 page references of 64 pages" -- "$MR" import oracleGeneral "$T/lk.bin" -o "$T/lk.db"
same "oracle import: events pages tasks accesses" "$(counts "$T/lk.db")" "129 64 1 128"
expect 0 "wrote" -- "$MR" export --format oracleGeneral "$T/lk.db" -o "$T/lk2.bin"
if cmp -s "$T/lk.bin" "$T/lk2.bin"; then ok; else bad "export -> import -> export changed the records"; fi
replays "$T/lk.db"
expect 1 "already exists" -- "$MR" export --format oracleGeneral "$T/lk.db" -o "$T/lk2.bin"
expect 0 "wrote" -- "$MR" export --format oracleGeneral "$T/lk.db" -o "$T/lk2.bin" --force
# random bytes are not records (their sizes average 2 GiB: some 10^9 pages rows were
# written until the disk filled), an empty file imports nothing, and a record before the
# first one in time is clamped and counted as one
python3 -c "import random, sys; r = random.Random(7); sys.stdout.buffer.write(bytes(r.getrandbits(8) for _ in range(100000)))" >"$T/rand.bin"
expect 1 "this is not an oracleGeneral trace" -- timeout 60 "$MR" import oracleGeneral "$T/rand.bin" -o "$T/rand.db"
same "random bytes: no trace and no temporary file left" "$(ls "$T" | grep -c '^rand.db')" 0
: >"$T/empty.bin"
expect 1 "holds no oracleGeneral record with a page access" -- "$MR" import oracleGeneral "$T/empty.bin" -o "$T/empty.db"
python3 -c "import struct, sys; sys.stdout.buffer.write(b''.join(struct.pack('<IQIq', t, o, 4096, -1) for t, o in ((10, 1), (5, 2), (12, 3))))" >"$T/back.bin"
expect 0 "wrote" -- "$MR" import oracleGeneral "$T/back.bin" -o "$T/back.db"
same "a record before the first in time: clamped, counted" "$(q "$T/back.db" "SELECT value FROM meta WHERE key = 'import.clamped'")" 1
# -o naming the input itself, --force or not, under another name or not: refused, the
# input kept (it was replaced by the output: a recorded trace lost)
cp "$T/lk.db" "$T/self.db"
sum0=$(md5sum <"$T/self.db")
expect 1 "is the input" -- "$MR" export --format oracleGeneral "$T/self.db" -o "$T/./self.db" --force
same "export -o the input: the trace kept" "$(md5sum <"$T/self.db")" "$sum0"
cp "$T/lk.bin" "$T/self.bin"
sum0=$(md5sum <"$T/self.bin")
expect 1 "is the input" -- "$MR" import oracleGeneral "$T/self.bin" -o "$T/self.bin" --force
same "import -o the input: the input kept" "$(md5sum <"$T/self.bin")" "$sum0"
# a generated trace with read()s: FD_ACCESS pages are references too
expect 0 "wrote" -- "$MR" gen seq -o "$T/seq.db" --size 1M --passes 2
expect 0 "wrote" -- "$MR" export --format oracleGeneral "$T/seq.db" -o "$T/seq.bin" --time-unit us
same "export: requests of seq.db" "$(( $(stat -c %s "$T/seq.bin") / 24 ))" \
	"$(q "$T/seq.db" "SELECT sum(CASE kind_id WHEN 0 THEN 1 WHEN 1 THEN size END) FROM events WHERE kind_id IN (0, 1)")"
expect 2 "--time-unit 'h'" -- "$MR" export --format oracleGeneral "$T/seq.db" -o "$T/x.bin" --time-unit h
# read back in the unit it was written in: the same span, and the same bytes again
expect 0 "wrote" -- "$MR" import oracleGeneral "$T/seq.bin" -o "$T/seq-us.db" --time-unit us
same "import --time-unit us: the export's span in us" \
	"$(q "$T/seq-us.db" "SELECT max(time) / 1000 FROM events")" \
	"$(python3 -c "import struct, sys; d = open(sys.argv[1], 'rb').read(); ts = [struct.unpack_from('<I', d, i)[0] for i in range(0, len(d), 24)]; print(max(ts) - ts[0])" "$T/seq.bin")"
same "import --time-unit us: the unit in import.options" \
	"$(q "$T/seq-us.db" "SELECT value FROM meta WHERE key = 'import.options'")" "file_pages=0 one_page=0 time_unit_ns=1000"
expect 0 "wrote" -- "$MR" export --format oracleGeneral "$T/seq-us.db" -o "$T/seq-us.bin" --time-unit us
same "export --time-unit us -> import --time-unit us -> export: the same bytes" \
	"$(md5sum <"$T/seq-us.bin")" "$(md5sum <"$T/seq.bin")"
expect 2 "--time-unit 'h': give s, ms, us or ns" -- "$MR" import oracleGeneral "$T/seq.bin" -o "$T/x.db" --time-unit h
expect 2 "are for oracleGeneral input" -- "$MR" import lackey "$T/seq.bin" -o "$T/x.db" --time-unit us
expect 2 "unknown format 'csv'" -- "$MR" export --format csv "$T/seq.db" -o "$T/x.bin"

# objects larger than a page, an object that grows, a timestamp that goes back
python3 - "$T/obj.bin" <<'PY'
import sys, struct
recs = [(5, 7, 10000), (6, 9, 0), (4, 7, 20000), (12, 9, 100)]
open(sys.argv[1], 'wb').write(b''.join(struct.pack('<IQIq', t, o, s, -1) for t, o, s in recs))
PY
expect 0 "adjusted: 2 records" -- "$MR" import oracleGeneral "$T/obj.bin" -o "$T/obj.db"
same "oracle spans: events pages tasks accesses" "$(counts "$T/obj.db")" "9 4 1 8"
same "oracle spans: times" "$(q "$T/obj.db" "SELECT group_concat(time, ' ') FROM events WHERE kind_id = 0")" \
	"0 0 0 1000000000 1000000000 1000000000 1000000000 7000000000"
expect 0 "wrote" -- "$MR" import oracleGeneral "$T/obj.bin" --one-page -o "$T/obj1.db"
same "oracle --one-page: events pages tasks accesses" "$(counts "$T/obj1.db")" "5 2 1 4"
expect 0 "wrote" -- "$MR" import oracleGeneral "$T/obj.bin" --file-pages -o "$T/objf.db"
same "oracle --file-pages: events pages tasks accesses" "$(counts "$T/objf.db")" "5 4 1 8"
same "oracle --file-pages: file pages" "$(q "$T/objf.db" "SELECT count(*) FROM pages WHERE type = 1")" 4
replays "$T/objf.db"
# 7 s of trace time is beyond 32 bits of nanoseconds
expect 1 "in ns (at most 4.294967 s): give --time-unit us or coarser" -- "$MR" export --format oracleGeneral "$T/obj.db" -o "$T/obj-ns.bin" --time-unit ns
no_leftovers obj-ns.bin
head -c 30 "$T/obj.bin" >"$T/short.bin"
expect 1 "short.bin:2: record cut short: 6 of its 24 bytes" -- "$MR" import oracleGeneral "$T/short.bin" -o "$T/short.db"
no_leftovers short.db
printf '\050\265\057\375 more bytes of a zstd frame.....' >"$T/z.bin"
expect 1 "zstd -d" -- "$MR" import oracleGeneral "$T/z.bin" -o "$T/zb.db"

# ---- the command line ----
expect 0 "oracleGeneral" -- "$MR" import --list
expect 2 "unknown format 'nope'" -- "$MR" import nope x -o "$T/x.db"
expect 2 "missing -o" -- "$MR" import perf "$S/perf-touch.txt"
expect 2 "for lackey input" -- "$MR" import perf "$S/perf-touch.txt" --with-instr -o "$T/x.db"
expect 2 "for oracleGeneral input" -- "$MR" import lackey "$S/lackey-touch.txt" --one-page -o "$T/x.db"
expect 1 "No such file" -- "$MR" import perf "$T/missing.txt" -o "$T/x.db"
expect 1 "already exists" -- "$MR" import perf "$S/perf-touch.txt" -o "$T/perf.db"
expect 0 "wrote" -- "$MR" import perf - -o "$T/perf-stdin.db" <"$S/perf-touch.txt"
printf '# only a comment\n\n' >"$T/empty.txt"
expect 1 "nothing to import" -- "$MR" import perf "$T/empty.txt" -o "$T/empty.db"
no_leftovers empty.db
# the same input gives the same trace, byte for byte in its event chunks
expect 0 "wrote" -- "$MR" import damo "$S/damon-paddr.json" -o "$T/damo2.db"
same "import is deterministic" "$(q "$T/damo.db" "SELECT hex(data) FROM chunks ORDER BY id" | md5sum)" \
	"$(q "$T/damo2.db" "SELECT hex(data) FROM chunks ORDER BY id" | md5sum)"

echo "test_import: $pass passed, $fail failed"
[ "$fail" = 0 ]
