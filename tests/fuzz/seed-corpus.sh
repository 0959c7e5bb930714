#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# seed-corpus.sh MEMREPLAY OUT_DIR - the seed inputs the committed corpora grew from:
# OUT_DIR/chunk_decode gets chunk blobs of small generated traces and of traces/default.db
# (every column encoding, DBITS and NZDELTA included), OUT_DIR/store_open small stores
# rewritten with 512-byte pages (the mutations then fall on few pages). Seeds are
# minimized into tests/fuzz/corpus/ with libFuzzer's -merge=1 (see tests/fuzz.cmake).
set -euo pipefail
mr=$1 out=$2
src=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out/chunk_decode" "$out/store_open"
"$mr" gen loop -o "$tmp/loop.db" --size 64K --passes 2 >/dev/null 2>&1
"$mr" gen seq -o "$tmp/seq.db" --size 256K --passes 1 >/dev/null 2>&1
"$mr" gen kbuild -o "$tmp/kbuild.db" >/dev/null 2>&1 || true
cp "$src/traces/default.db" "$tmp/default.db"
for db in "$tmp"/*.db; do
	[ -s "$db" ] || continue
	b=$(basename "$db" .db)
	for id in $(sqlite3 "$db" "SELECT id FROM chunks WHERE length(data) < 100000 ORDER BY id LIMIT 2"); do
		sqlite3 "$db" "SELECT writefile('$out/chunk_decode/$b-$id', data) FROM chunks WHERE id = $id" >/dev/null
	done
done
for b in loop seq; do
	cp "$tmp/$b.db" "$tmp/$b-512.db"
	sqlite3 "$tmp/$b-512.db" "PRAGMA page_size=512; VACUUM;"
	cp "$tmp/$b-512.db" "$out/store_open/$b-512"
done
# column payloads for the 'P' inputs of fuzz_chunk_decode: 4 events, every column CONST
# (enc 0, one varint), then VARINT (enc 1, 4 varints) and RLE (enc 3) columns
printf 'P\003\000\000\000\000\001\005\000\001\000\000\001\003\000\001\001\000\001\000\000\001\000\000\001\000\000\001\007' >"$out/chunk_decode/payload-const"
printf 'P\003\000\000\000\001\004\001\002\003\004\001\004\000\000\000\000\003\002\007\004\001\004\001\001\001\001\000\001\000\000\001\000\000\001\000\000\001\000' >"$out/chunk_decode/payload-mixed"
