#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# test_cli_help.sh MEMREPLAY SRC - one help per subcommand (issue 16, items 3 and 5):
#   - `memreplay help X`, `memreplay X --help` and `memreplay X -h` print the same, exit 0,
#     for every subcommand `memreplay help` lists;
#   - every option a subcommand's parser accepts (its getopt_long table and short-option
#     string, or the options it compares by name) is in that subcommand's help;
#   - a short option means the same long option in every subcommand that has it.
set -u
MR=$1 SRC=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

subs=$("$MR" help | sed -n '/^subcommands:/,/^$/p' | awk 'NF > 1 { print $1 }')
[ "$(wc -w <<<"$subs")" -ge 5 ] || fail "memreplay help lists too few subcommands: $subs"
for x in $subs; do
	"$MR" help "$x" >"$T/a" 2>&1 || fail "help $x exited $?"
	"$MR" "$x" --help >"$T/b" 2>&1 || fail "$x --help exited $?"
	"$MR" "$x" -h >"$T/c" 2>&1 || fail "$x -h exited $?"
	cmp -s "$T/a" "$T/b" || fail "help $x and $x --help differ: $(diff "$T/a" "$T/b" | head -5)"
	cmp -s "$T/a" "$T/c" || fail "help $x and $x -h differ"
	grep -q "^usage: memreplay $x" "$T/a" || fail "help $x has no usage line"
done
# the subcommands' own parsers, where --help comes after other arguments
"$MR" help replay >"$T/a"
"$MR" replay --no-timing --help >"$T/b" 2>&1
cmp -s "$T/a" "$T/b" || fail "replay --no-timing --help is not help replay"
"$MR" help bench >"$T/a"
"$MR" bench store --help >"$T/b" 2>&1
cmp -s "$T/a" "$T/b" || fail "bench store --help is not help bench"

# options in the sources: file cli/cmd_X*.c belongs to subcommand X
: >"$T/shorts"
for f in "$SRC"/cli/cmd_*.c; do
	x=$(basename "$f" .c)
	x=${x#cmd_}
	x=${x%%_*}
	"$MR" help "$x" >"$T/help" 2>/dev/null || { fail "$f: no subcommand '$x'"; continue; }
	longs=$(grep -oE '\{ *"[a-z][a-z0-9-]*", *(no|required|optional)_argument' "$f" |
		sed -E 's/\{ *"([^"]*)".*/--\1/')
	# options compared by name (gen parses its own argv)
	longs="$longs $(grep -oE 'strcmp\([a-z]+(\[[0-9]+\])?, "--?[a-z][a-z-]*"\)' "$f" |
		sed -E 's/.*"(--?[a-z-]*)".*/\1/')"
	shorts=$(grep -oE 'getopt_long\(argc, argv, "[^"]*"' "$f" | sed -E 's/.*"([^"]*)"$/\1/' |
		tr -d ':+' | grep -o . | sed 's/^/-/')
	[ -n "$longs$shorts" ] || continue
	for o in $longs $shorts; do
		grep -qE -- "(^|[ [(|,])$o([ ,=]|$)" "$T/help" || fail "$x accepts $o (in $(basename "$f")) but help $x does not list it"
	done
	# which long option each short one stands for: "-s, --long" in the help
	for o in $shorts; do
		l=$(grep -oE -- "(^| )$o, --[a-z-]+" "$T/help" | sed 's/.*, //' | head -1)
		[ "$o" = -h ] || [ -n "$l" ] || fail "help $x lists $o without its long name ($o, --name)"
		echo "$o $l $x" >>"$T/shorts"
	done
done
# one meaning per short option across subcommands
sort -u "$T/shorts" | awk '{ print $1, $2 }' | sort -u | awk '{ n[$1]++; l[$1] = l[$1] " " $2 }
	END { for (o in n) if (n[o] > 1) print o " stands for" l[o] }' >"$T/clash"
[ -s "$T/clash" ] && fail "short options with several meanings: $(cat "$T/clash")"

if [ $fails -gt 0 ]; then
	echo "$fails failures"
	exit 1
fi
echo "help: $(wc -w <<<"$subs") subcommands, help X = X --help, every option listed"
