#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# test_report.sh MEMREPLAY
#
# `memreplay report` (cli/cmd_report.c) in a real browser: a replay of a generated build
# trace (lru, mglru and opt at two sizes, generation snapshots over time) becomes one HTML
# file that loads nothing from anywhere; headless Chromium lays it out, and every mark it
# drew (the curve's points, the time series, the generation sizes) must sit where a
# linear axis puts its value and carry the value the results database holds; every
# table cell must equal the database's counter. The same results give the same bytes;
# bad input is refused with a message. Chromium comes from scripts/setup.sh; where it
# is missing the browser half fails, naming the package.
set -uo pipefail
MR=$(realpath "$1")
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
ok() { echo "ok   $*"; }
check() { local what=$1; shift; if "$@"; then ok "$what"; else bad "$what"; fi; }

"$MR" gen kbuild -o "$T/kb.db" --tasks 40 --memory_max 64M >/dev/null || exit 1
"$MR" replay "$T/kb.db" --policy lru --policy mglru --policy opt --memory 16M,32M \
	--snapshot-every 5ms -q -o "$T/r.db" >/dev/null || exit 1

"$MR" report "$T/r.db" -o "$T/a.html" 2>"$T/err"
check "report exits 0" [ $? = 0 ]
check "report is an HTML file" grep -q '^<!DOCTYPE html>' "$T/a.html"
"$MR" report "$T/r.db" -o "$T/b.html" 2>/dev/null
check "same results, same bytes" cmp -s "$T/a.html" "$T/b.html"
check "nothing loaded from elsewhere (no src= or href=, no url())" \
	sh -c "! grep -Eq '(src|href)=|url\\(' '$T/a.html'"
check "curve drawn (two sizes)" grep -q 'data-chart="curve"' "$T/a.html"
check "generation charts drawn (--snapshot-every)" grep -q 'data-chart="gen-' "$T/a.html"
check "time series drawn, a chart per size" grep -q 'data-chart="ts-mr_refaults-16M"' "$T/a.html"
check "cgroup table" grep -q 'id="cgroups"' "$T/a.html"

# bad input
"$MR" report "$T/kb.db" -o "$T/c.html" 2>"$T/err"
check "a trace is not a results database: non-zero" [ $? != 0 ]
check "... and says so" grep -qi "results" "$T/err"
check "... and leaves no file" [ ! -e "$T/c.html" ]
"$MR" report "$T/r.db" -o "$T/kb.db" 2>"$T/err"
check "-o onto a non-HTML file: non-zero" [ $? != 0 ]
check "... names it" grep -q "not an HTML file" "$T/err"
check "... and the trace is intact" "$MR" info "$T/kb.db" >/dev/null
"$MR" report "$T/r.db" 2>"$T/err"
check "no -o: usage error (2)" [ $? = 2 ]

# the browser: layout of every mark, and the numbers against the database
CHROME=
for c in chromium chromium-browser google-chrome; do
	command -v "$c" >/dev/null && { CHROME=$c; break; }
done
if [ -z "$CHROME" ]; then
	bad "no Chromium to load the report in (apt-get install chromium; scripts/setup.sh does)"
	echo "$fail failed"
	exit 1
fi
# root needs --no-sandbox; a private profile keeps runs apart
B=("$CHROME" --headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir="$T/profile")
timeout 120 "${B[@]}" --virtual-time-budget=5000 --dump-dom "file://$T/a.html#selfcheck" \
	>"$T/dom" 2>"$T/chrome.err"
check "Chromium loaded the report" grep -q 'id="selfcheck"' "$T/dom"
timeout 120 "${B[@]}" --window-size=1000,2400 --screenshot="$T/shot.png" "file://$T/a.html" \
	>/dev/null 2>>"$T/chrome.err"
check "Chromium drew a screenshot" sh -c "head -c 8 '$T/shot.png' | od -An -c | grep -q 'P   N   G'"

"$MR" compare "$T/r.db" --format csv >"$T/compare.csv" || bad "compare --format csv"
/usr/bin/env python3 - "$T/dom" "$T/r.db" "$T/compare.csv" <<'PY'
import csv, html, re, sqlite3, sys
dom = open(sys.argv[1]).read()
db = sqlite3.connect(sys.argv[2])
cmp_rows = list(csv.DictReader(open(sys.argv[3])))
fails = 0
def check(what, ok):
    global fails
    print(("ok   " if ok else "FAIL: ") + what)
    fails += not ok
m = re.search(r'<pre id="selfcheck">(.*?)</pre>', dom, re.S)
lines = [l.split() for l in html.unescape(m.group(1)).strip().split('\n')] if m else []
charts, ticks = {}, {}
for kind, a, b, x, v, px, py in [l if l[0] != 'tick' else l + [''] for l in lines]:
    if kind == 'tick':
        # tick CHART AXIS VALUE CX CY: the browser's place of an axis value
        ticks.setdefault((a, b), []).append((float(x), float(v) if b == 'x' else float(px)))
        continue
    charts.setdefault(kind, []).append((a, int(b), float(x), float(v), float(px), float(py)))
check("marks laid out: %d in %d charts" % (len(lines), len(charts)), len(charts) >= 3)
def axis(chart, a):
    # value -> pixel along one axis, from the ticks the browser laid out (least squares)
    t = ticks.get((chart, a), [])
    n = len(t); sx = sum(p[0] for p in t); sy = sum(p[1] for p in t)
    sxx = sum(p[0] * p[0] for p in t); sxy = sum(p[0] * p[1] for p in t)
    d = n * sxx - sx * sx
    if n < 2 or d == 0: return None
    k = (n * sxy - sx * sy) / d
    return lambda v: k * v + (sy - k * sx) / n
for chart, marks in sorted(charts.items()):
    fx, fy = axis(chart, 'x'), axis(chart, 'y')
    check("%s: axes laid out (%d x, %d y ticks)" % (chart, len(ticks.get((chart, 'x'), [])),
          len(ticks.get((chart, 'y'), []))), fx is not None and fy is not None)
    if fx is None or fy is None: continue
    dy = max(abs(fy(m[3]) - m[5]) for m in marks)
    dx = max(abs(fx(m[2]) - m[4]) for m in marks)
    check("%s: every mark at its value on the y axis (largest miss %.2f px)" % (chart, dy), dy < 0.6)
    check("%s: every mark at its value on the x axis (largest miss %.2f px)" % (chart, dx), dx < 0.6)
# the numbers drawn are the database's
curve = {r: 100.0 * mr for r, mr in db.execute(
    "SELECT run, miss_ratio FROM curve WHERE miss_ratio IS NOT NULL")}
cm = charts.get('curve', [])
check("curve: one point per run (%d of %d)" % (len(cm), len(curve)), len(cm) == len(curve))
check("curve: each point's value is the run's miss ratio",
      all(abs(m[3] - curve[m[1]]) < 1e-6 for m in cm))
for name in ('mr_misses', 'mr_refaults', 'pswpin', 'mr_resident'):
    # a chart per memory size: ts-NAME-16M, ts-NAME-32M
    ms = [m for c in charts if c.startswith('ts-' + name + '-') for m in charts[c]]
    rows = {}
    for run, t, val, t0 in db.execute(
            "SELECT t.run, t.t_ns, t.value, r.trace_t_first FROM timeseries t JOIN runs r "
            "ON r.id = t.run WHERE t.name = ?", (name,)):
        rows[(run, round((t - t0) / 1e9, 6))] = val
    good = sum(1 for m in ms if abs(rows.get((m[1], round(m[2], 6)), float('nan')) - m[3]) < 1e-6 * max(1, abs(m[3])))
    check("ts-%s: %d marks, each a timeseries row's value at its time" % (name, len(ms)),
          len(ms) > 0 and good == len(ms))
gens = [c for c in charts if c.startswith('gen-')]
snaps = db.execute("SELECT count(DISTINCT run) FROM lru_gen WHERE why = 'every'").fetchone()[0]
check("a generation chart per run with snapshots (%d of %d)" % (len(gens), snaps), len(gens) == snaps)
for g in gens:
    run = int(g[4:])
    ts = db.execute("SELECT count(*) FROM lru_gen WHERE run = ? AND why = 'every' AND full = 0",
                    (run,)).fetchone()[0]
    series = {}
    for m in charts[g]:
        series.setdefault(m[0], 0)
        series[m[0]] += 1
    check("%s: every snapshot drawn in each rank (%s of %d)" % (g, sorted(series.values()), ts),
          all(v == ts for v in series.values()))
    # pages per rank (0 = youngest), summed over the memcg/node lists of the debugfs text
    want = {}
    for t, t0, text in db.execute(
            "SELECT g.t_ns, r.trace_t_first, g.text FROM lru_gen g JOIN runs r ON r.id = g.run "
            "WHERE g.run = ? AND g.why = 'every' AND g.full = 0", (run,)):
        lists, cur = [], []
        for line in text.split('\n'):
            f = line.split()
            if line.startswith('memcg') or line.startswith(' node'):
                if cur: lists.append(cur)
                cur = []
            elif len(f) == 4 and all(x.isdigit() for x in f):
                cur.append(int(f[2]) + int(f[3]))
        if cur: lists.append(cur)
        for l in lists:
            for i, pages in enumerate(reversed(l)):
                key = (i, round((t - t0) / 1e9, 6))
                want[key] = want.get(key, 0) + pages
    wrong = [m for m in charts[g] if want.get((int(m[0]), round(m[2], 6))) != m[3]]
    check("%s: each mark is its snapshot's pages in that rank (%d wrong)" % (g, len(wrong)),
          not wrong)
# the table cells
cells = re.findall(r'<td data-run="(\d+)" data-name="([^"]+)" data-v="([^"]+)">', dom)
db_counters = {(r, n): v for r, n, v in db.execute(
    "SELECT run, name, value FROM counters WHERE memcg IS NULL")}
db_model = {(r, n): v for r, n, v in db.execute("SELECT run, name, value FROM model_counters")}
wrong = [c for c in cells if abs(db_counters.get((int(c[0]), html.unescape(c[1])),
         db_model.get((int(c[0]), html.unescape(c[1])), float('nan'))) - float(c[2])) > 1e-9 * max(1, abs(float(c[2])))]
check("compare tables: %d cells, each the database's value (%d wrong)" % (len(cells), len(wrong)),
      len(cells) > 50 and not wrong)
# the intervals drawn are compare's (the first table: the headline counters)
first = dom.split('id="compare-all', 1)[0]
cis = re.findall(r'<td data-run="(\d+)" data-name="([^"]+)" data-v="[^"]+">[^<]*<br><span[^>]*>[^<]*</span>'
                 r'<br><span class="ci" data-lo="([^"]+)" data-hi="([^"]+)">', first)
want = {(r['run'], r['counter']): (r['delta_lo'], r['delta_hi']) for r in cmp_rows if r['delta_lo']}
off = [c for c in cis if (c[0], c[1]) not in want or
       abs(float(want[(c[0], c[1])][0]) - float(c[2])) > 1e-6 or
       abs(float(want[(c[0], c[1])][1]) - float(c[3])) > 1e-6]
check("intervals: %d drawn, each compare's 95 %% bounds (%d off)" % (len(cis), len(off)),
      len(cis) > 10 and not off)
sys.exit(1 if fails else 0)
PY
[ $? = 0 ] || fail=$((fail + 1))
echo "$fail failed"
[ "$fail" = 0 ]
