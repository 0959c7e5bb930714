#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# test_cli.sh MEMREPLAY - command-line behaviour: errors name the problem and exit non-zero,
# gen writes a trace info can read, gen is deterministic.
set -u
MR=$1
T=$(mktemp -d)
# opt's next-use times are cached per trace: here, not in the user's ~/.cache
export MEMREPLAY_CACHE="$T/cache"
trap 'rm -rf "$T"' EXIT
pass=0
fail=0

# expect STATUS NEEDLE -- CMD...: exit status and a message fragment on stderr/stdout.
expect() {
	local want=$1 needle=$2
	shift 3
	local out rc
	out=$("$@" 2>&1)
	rc=$?
	if [ "$rc" = "$want" ] && grep -qF -- "$needle" <<<"$out"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL: $* -> exit $rc (want $want), output:"
		sed 's/^/    /' <<<"$out"
		echo "    (wanted to see: $needle)"
	fi
}

expect 2 "unknown subcommand 'frobnicate'" -- "$MR" frobnicate
expect 2 "usage: memreplay SUBCOMMAND" -- "$MR"
expect 0 "info" -- "$MR" help
expect 1 "give a directory that exists (mkdir -p $T/none)" -- "$MR" help --man-dir "$T/none"
expect 1 "No such file" -- "$MR" info "$T/missing.db"
expect 2 "expected exactly one trace file" -- "$MR" info
echo "hello" >"$T/text.db"
expect 1 "not a memreplay trace" -- "$MR" info "$T/text.db"
expect 2 "unknown generator 'nope'" -- "$MR" gen nope -o "$T/x.db"
expect 2 "bad size '12Q'" -- "$MR" gen loop -o "$T/x.db" --size 12Q
expect 2 "-3M" -- "$MR" gen loop -o "$T/x.db" --size -3M
expect 2 "bogus" -- "$MR" gen loop -o "$T/x.db" --bogus 1
expect 2 "missing -o" -- "$MR" gen loop --size 1M
expect 0 "zipf" -- "$MR" gen --list

# gen -> info round trip, and determinism of the written chunks.
expect 0 "wrote" -- "$MR" gen loop -o "$T/a.db" --size 2M --passes 2 --seed 7
expect 0 "wrote" -- "$MR" gen loop -o "$T/b.db" --size 2M --passes 2 --seed 7
expect 0 "events" -- "$MR" info "$T/a.db"
expect 0 "\"events\":" -- "$MR" info --json "$T/a.db"
a=$("$MR" query "$T/a.db" "SELECT hex(data) FROM chunks ORDER BY id" | md5sum)
b=$("$MR" query "$T/b.db" "SELECT hex(data) FROM chunks ORDER BY id" | md5sum)
if [ "$a" = "$b" ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: gen not deterministic"; fi
expect 0 "512" -- "$MR" query "$T/a.db" "SELECT count(*) FROM pages"
expect 1 "SQL error" -- "$MR" query "$T/a.db" "SELECT * FROM no_such_table"

# replay / compare: errors name the problem; a replay writes results compare can read.
expect 2 "unknown policy 'nosuch'" -- "$MR" replay "$T/a.db" --policy nosuch --memory 1M
expect 2 "swappiness" -- "$MR" replay "$T/a.db" --policy lru:swappiness=999 --memory 1M
expect 2 "bogus" -- "$MR" replay "$T/a.db" --policy lru:bogus=1 --memory 1M
expect 2 "bad size 'lots'" -- "$MR" replay "$T/a.db" --policy lru --memory lots
expect 1 "No such file" -- "$MR" replay "$T/missing.db" --policy lru --memory 1M
expect 1 "not a memreplay trace" -- "$MR" replay "$T/text.db" --policy lru --memory 1M
expect 0 "lru" -- "$MR" replay --list-policies
expect 0 "mglru:ra_placement=B" -- "$MR" replay "$T/a.db" --variants seeds --memory 1M -q
expect 2 "known: seeds" -- "$MR" replay "$T/a.db" --variants nope --memory 1M
expect 0 "results in" -- "$MR" replay "$T/a.db" --policy lru --policy opt --memory 1M -q -o "$T/r.db"
expect 0 "pswpout" -- "$MR" compare "$T/r.db"
expect 0 "counter," -- "$MR" compare "$T/r.db" --format csv
expect 0 "\"runs\"" -- "$MR" compare "$T/r.db" --format json
expect 1 "No such file" -- "$MR" compare "$T/none.db"
expect 0 "pswpout" -- "$MR" query "$T/r.db" "SELECT name FROM counters WHERE run = 1"
"$MR" replay "$T/a.db" --policy lru --policy opt --memory 1M -q -o "$T/r2.db" >/dev/null 2>&1
if cmp -s "$T/r.db" "$T/r2.db"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: replay results not byte-identical"; fi
# opt's next-use times: computed and kept by the first replay, reused by the second (the
# results above are byte-identical across the two); --nextuse-cache off keeps nothing.
expect 0 "next-use times reused from $T/cache/nextuse-" -- "$MR" replay "$T/a.db" --policy opt --memory 1M --no-timing
expect 0 "kept in $T/c2/nextuse-" -- "$MR" replay "$T/a.db" --policy opt --memory 1M --nextuse-cache "$T/c2"
expect 0 "next-use times computed in" -- "$MR" replay "$T/a.db" --policy opt --memory 1M --nextuse-cache off
expect 0 "not kept (cannot write to $T/a.db" -- "$MR" replay "$T/a.db" --policy opt --memory 1M --nextuse-cache "$T/a.db"
expect 2 "give a directory, or off" -- "$MR" replay "$T/a.db" --policy opt --memory 1M --nextuse-cache ""
a=$("$MR" replay "$T/a.db" --policy opt --memory 1M --no-timing -q --nextuse-cache off)
b=$("$MR" replay "$T/a.db" --policy opt --memory 1M --no-timing -q)
if [ "$a" = "$b" ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: opt differs with the next-use cache"; fi

# A future format version is refused with a message that says so.
cp "$T/a.db" "$T/future.db"
"$MR" query "$T/a.db" "SELECT 1" >/dev/null
if command -v sqlite3 >/dev/null; then
	sqlite3 "$T/future.db" "PRAGMA user_version=99" && \
		expect 1 "newer than this memreplay reads" -- "$MR" info "$T/future.db"
fi

# bench replay on a small trace: the memory probe, the ceiling, each policy and the
# one-pass rows; it leaves nothing behind, and an unknown policy is an error.
mkdir "$T/bench"
out=$("$MR" bench replay --events 100000 --pages 8192 --policy lru --policy opt --dir "$T/bench" 2>&1)
rc=$?
for needle in "a random cache-line load costs" "lru @100%, no reclaim" "lru @10%" "opt @10%" \
	"opt @50%" "2 in one pass, threads @50%" "ns/miss" "lru, memory" "B/frame"; do
	if [ "$rc" = 0 ] && grep -qF -- "$needle" <<<"$out"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL: bench replay (exit $rc) printed no '$needle':"
		sed 's/^/    /' <<<"$out"
	fi
done
if [ -z "$(ls -A "$T/bench")" ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: bench replay left $(ls -A "$T/bench")"; fi
expect 1 "unknown policy 'nope'" -- "$MR" bench replay --events 1000 --pages 4096 --policy nope --dir "$T/bench"
if [ -z "$(ls -A "$T/bench")" ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: a failed bench replay left $(ls -A "$T/bench")"; fi

# --fault-around: the window in pages is the runs table's, and off maps nothing around
"$MR" gen kbuild -o "$T/fa.db" --tasks 4 >/dev/null 2>&1
for fa in default:16 off:1 32K:8 2M:512; do
	arg=${fa%%:*} want=${fa##*:}
	opt=(--fault-around "$arg")
	[ "$arg" = default ] && opt=()
	rm -f "$T/fa.r.db"
	"$MR" replay "$T/fa.db" --policy mglru --memory 8M "${opt[@]}" -q -o "$T/fa.r.db" >/dev/null 2>&1
	got=$("$MR" query "$T/fa.r.db" --csv "SELECT r.fault_around_pages || ',' || (c.value > 0)
		FROM runs r JOIN counters c ON c.run = r.id AND c.memcg IS NULL AND c.name = 'mr_fault_around'" | tail -1 | tr -d '"')
	mapped=1
	[ "$want" = 1 ] && mapped=0
	if [ "$got" = "$want,$mapped" ]; then pass=$((pass + 1)); else
		fail=$((fail + 1)); echo "FAIL: --fault-around $arg: runs.fault_around_pages,mapped = '$got', want $want,$mapped"; fi
done
expect 2 "give a power of two from 4K (off) to 2M" -- "$MR" replay "$T/fa.db" --policy mglru --memory 8M --fault-around 12K
expect 2 "give a power of two from 4K (off) to 2M" -- "$MR" replay "$T/fa.db" --policy mglru --memory 8M --fault-around 4M
# bench: --events 0 ran the 50M-event default, an extra word was ignored
expect 2 "--events 0: give a count of 1 or more" -- "$MR" bench store --events 0
expect 2 "replay takes no 'extra'" -- "$MR" bench replay extra
# bytes that are not whole pages were rounded up (5K ran as 8K)
expect 2 "give a power of two from 4K (off) to 2M" -- "$MR" replay "$T/fa.db" --policy mglru --memory 8M --fault-around 5K
expect 0 "fault-around maps 64 KiB around each read fault of a file mapping (the kernel's default" -- "$MR" replay "$T/fa.db" --policy mglru --memory 8M --no-timing

echo "test_cli: $pass passed, $fail failed"
[ "$fail" = 0 ]
