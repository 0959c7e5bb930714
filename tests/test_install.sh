#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# test_install.sh BUILD SRC CC SANFLAGS CASE - `cmake --install` into a temporary prefix
# (issue 16, item 3), then use only what it installed:
#   files       the binary, the SQLite extension, libmemreplay-store.a, the headers,
#               memreplay.pc and a man page per subcommand are there
#   plugin      tests/test_plugin.c, copied out of the tree, builds with
#               `pkg-config --cflags memreplay` alone and the installed binary replays
#               with it (--plugin); policy_abi in memreplay.pc is the header's ABI
#   library     tests/install_reader.c links with `pkg-config --cflags --libs --static`
#               and reads a trace: the same events and pages as `memreplay query`
#   sqlite_ext  the installed extension loads in the sqlite3 shell
#   man         `man -l` renders every page without a warning, and every line of
#               `memreplay help X` is in the rendered memreplay-X(1)
# SANFLAGS: the sanitizer flags of the build, for a program linked with its library.
set -u
BUILD=$1 SRC=$2 CC=$3 SANFLAGS=$4 CASE=$5
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export MEMREPLAY_CACHE="$T/cache"
P=$T/prefix
fails=0
fail() { echo "FAIL [$CASE]: $*"; fails=$((fails + 1)); }

cmake --install "$BUILD" --prefix "$P" >"$T/install.log" 2>&1 ||
	{ cat "$T/install.log"; echo "FAIL: cmake --install"; exit 1; }
# the libdir GNUInstallDirs chose (lib, lib64 or lib/<triplet>): where memreplay.pc is
pc=$(cd "$P" && find . -name memreplay.pc -path '*/pkgconfig/*' | head -1)
[ -n "$pc" ] || { echo "FAIL: no memreplay.pc installed"; exit 1; }
LIBDIR=$P/$(dirname "$(dirname "$pc")")
export PKG_CONFIG_PATH=$LIBDIR/pkgconfig PKG_CONFIG_LIBDIR=$LIBDIR/pkgconfig:/usr/lib/x86_64-linux-gnu/pkgconfig:/usr/lib/pkgconfig:/usr/share/pkgconfig
MR=$P/bin/memreplay
subcommands() { "$MR" help | sed -n '/^subcommands:/,/^$/p' | awk 'NF > 1 { print $1 }'; }

case_files() {
	local f
	for f in bin/memreplay share/man/man1/memreplay.1 include/memreplay/mr_policy.h \
		include/memreplay/mr_err.h include/memreplay/mr_vm.h include/memreplay/mr_store.h; do
		[ -e "$P/$f" ] || fail "$f not installed"
	done
	for f in libmemreplay.so libmemreplay-store.a pkgconfig/memreplay.pc; do
		[ -e "$LIBDIR/$f" ] || fail "$f not installed in $LIBDIR"
	done
	[ "$(subcommands | wc -l)" -ge 5 ] || fail "memreplay help lists no subcommands"
	for f in $(subcommands); do
		[ -s "$P/share/man/man1/memreplay-$f.1" ] || fail "no man page memreplay-$f.1"
	done
	[ "$(pkg-config --variable=sqlite_extension memreplay)" -ef "$LIBDIR/libmemreplay.so" ] ||
		fail "sqlite_extension in memreplay.pc is not the installed extension"
}

case_plugin() {
	local abi
	mkdir -p "$T/plug"
	cp "$SRC/tests/test_plugin.c" "$T/plug/myplug.c"
	# only the prefix: no -I into the tree; the header alone must compile
	(cd "$T/plug" && $CC -shared -fPIC -O2 -Wall -Wextra -Werror -Wstrict-prototypes \
		$(pkg-config --cflags memreplay) -o myplug.so myplug.c) 2>"$T/cc.log" ||
		{ fail "the example plugin does not build against the prefix: $(head -5 "$T/cc.log")"; return; }
	abi=$(sed -n 's/^#define MR_POLICY_ABI \([0-9]*\)u.*/\1/p' "$(pkg-config --variable=includedir memreplay)/mr_policy.h")
	[ -n "$abi" ] && [ "$(pkg-config --variable=policy_abi memreplay)" = "$abi" ] ||
		fail "policy_abi '$(pkg-config --variable=policy_abi memreplay)' is not the header's '$abi'"
	"$MR" replay --plugin "$T/plug/myplug.so" --list-policies >"$T/list" 2>&1 &&
		grep -q '^testplug ' "$T/list" || fail "the installed binary does not list the plugin's policy: $(head -3 "$T/list")"
	"$MR" gen loop -o "$T/t.db" --size 1M --passes 2 >/dev/null 2>&1 || { fail "gen"; return; }
	"$MR" replay "$T/t.db" --plugin "$T/plug/myplug.so" --policy testplug:knob=3 --policy lru \
		--memory 64M -q --no-timing -o "$T/r.db" >"$T/rep" 2>&1 ||
		{ fail "replay --plugin failed: $(head -3 "$T/rep")"; return; }
	[ "$("$MR" query "$T/r.db" "SELECT spec FROM runs ORDER BY id" | tail -n +2 | tr '\n' ' ')" = "testplug:knob=3 lru:swappiness=60 " ] ||
		fail "the results do not hold the plugin's run: $("$MR" query "$T/r.db" "SELECT spec FROM runs")"
}

case_library() {
	local got want
	cp "$SRC/tests/install_reader.c" "$T/reader.c"
	(cd "$T" && $CC -O2 -Wall -Werror $SANFLAGS $(pkg-config --cflags memreplay) -o reader reader.c \
		$(pkg-config --libs --static memreplay)) 2>"$T/cc.log" ||
		{ fail "a program does not link with libmemreplay-store: $(head -5 "$T/cc.log")"; return; }
	"$MR" gen zipf -o "$T/z.db" --seed 7 >/dev/null 2>&1 || { fail "gen"; return; }
	got=$("$T/reader" "$T/z.db") || { fail "reader failed: $got"; return; }
	want=$(printf 'events %s\npages %s' \
		"$("$MR" query "$T/z.db" "SELECT count(*) FROM events" | tail -1)" \
		"$("$MR" query "$T/z.db" "SELECT count(DISTINCT page) FROM events WHERE page IS NOT NULL" | tail -1)")
	[ "$got" = "$want" ] || fail "reader says '$got', query says '$want'"
	echo "not a trace" >"$T/bad.db"
	"$T/reader" "$T/bad.db" 2>"$T/bad.err" && fail "reader accepted a text file"
	grep -q "not a memreplay trace" "$T/bad.err" || fail "reader's error: $(cat "$T/bad.err")"
}

case_sqlite_ext() {
	command -v sqlite3 >/dev/null || { echo "SKIP: no sqlite3 shell (scripts/setup.sh installs it)"; exit 77; }
	[ -n "$SANFLAGS" ] && { echo "SKIP: the sqlite3 shell cannot load a sanitizer-built extension (test_sqlite_ext covers it with the runtime preloaded)"; exit 77; }
	"$MR" gen loop -o "$T/t.db" --size 1M --passes 2 >/dev/null 2>&1 || { fail "gen"; return; }
	[ "$(sqlite3 -cmd ".load $(pkg-config --variable=sqlite_extension memreplay)" "$T/t.db" \
		"SELECT count(*) FROM events")" = "$("$MR" query "$T/t.db" "SELECT count(*) FROM events" | tail -1)" ] ||
		fail "the installed extension does not read the events"
}

case_man() {
	local x page missing
	command -v man >/dev/null || { echo "SKIP: no man (scripts/setup.sh installs man-db)"; exit 77; }
	for x in "" $(subcommands); do
		page=$P/share/man/man1/memreplay${x:+-$x}.1
		MANWIDTH=200 MANPAGER=cat LC_ALL=C.UTF-8 man --warnings -l "$page" >"$T/page" 2>"$T/warn" ||
			{ fail "man -l $page failed: $(head -3 "$T/warn")"; continue; }
		[ -s "$T/warn" ] && fail "man -l memreplay${x:+-$x}.1 warns: $(head -3 "$T/warn")"
		norm() { sed 's/^[ \t]*//; s/[ \t]*$//' | grep -v '^$'; }
		if [ -z "$x" ]; then
			for s in $(subcommands); do
				grep -q "^ *$s\b" "$T/page" || fail "memreplay(1) lacks the subcommand $s"
			done
			continue
		fi
		# every line help prints (usage: is the SYNOPSIS) is a line of the page
		"$MR" help "$x" | tail -n +2 | sed 's/^usage: //' | norm >"$T/help"
		norm <"$T/page" >"$T/pagen"
		missing=$(grep -vxF -f "$T/pagen" "$T/help")
		[ -z "$missing" ] || fail "memreplay-$x(1) lacks the lines: $missing"
		# and so every option
		"$MR" help "$x" | grep -oE -- '(^|[ [(|,])--?[A-Za-z][A-Za-z0-9-]*' |
			sed 's/^[ [(|,]//' | sort -u >"$T/opts"
		[ "$(wc -l <"$T/opts")" -ge 1 ] || fail "no option found in help $x"
		missing=$(grep -oE -- '--?[A-Za-z][A-Za-z0-9-]*' "$T/page" | sort -u | comm -23 "$T/opts" -)
		[ -z "$missing" ] || fail "memreplay-$x(1) lacks the options: $missing"
	done
}

"case_$CASE"
if [ $fails -gt 0 ]; then
	echo "$fails failures"
	exit 1
fi
echo "install.$CASE passed"
