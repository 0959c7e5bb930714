#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# test_exports.sh - an executable that loads policy plugins exports exactly the plugin API
# (policy/plugin-api.sym): every name listed, and no other symbol of ours (the engine,
# the models' kernel-named helpers, libperf's and SQLite's functions stay private).
#   test_exports.sh BINARY SYMFILE
set -u
BIN=$1
SYM=$2
command -v nm >/dev/null || { echo "SKIP: no nm (binutils)"; exit 77; }
T=$(mktemp -d "${TMPDIR:-/tmp}/mr-exports.XXXXXX")
trap 'rm -rf "$T"' EXIT
# the list: names between the braces, one per "name;"
sed -n 's/^[[:space:]]*\([A-Za-z_][A-Za-z0-9_]*\);$/\1/p' "$SYM" | sort >"$T/want"
# defined dynamic symbols, less the C library's copy relocations (stdout@GLIBC_2.2.5) and
# the linker's own (_edata, _end, __bss_start, _IO_stdin_used, ...)
nm -D --defined-only "$BIN" | awk '{print $3}' | grep -v '@' | grep -v '^_' | sort >"$T/got"
n=$(wc -l <"$T/want")
if [ "$n" -lt 10 ]; then
	echo "FAIL: $SYM lists only $n names"
	exit 1
fi
if ! diff -u "$T/want" "$T/got"; then
	echo "FAIL: $BIN exports other than the plugin API ($SYM); lines with - are missing, + extra"
	exit 1
fi
echo "ok: $BIN exports the $n symbols of the plugin API and nothing else of ours"
echo "1 passed, 0 failed"
