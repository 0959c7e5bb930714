// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - `memreplay`, git-style: one binary, one table of subcommands. Each subcommand
 * turns argv into typed settings, makes library calls and prints; logic lives in the
 * libraries (storage/, traces/, policy/, replayer/, recorder/).
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/stat.h>
#include <string.h>

#include "cli.h"
#include "mr_util.h"

static int cmd_help(int argc, char **argv);
static int cmd_version(int argc, char **argv);

static const struct mr_cmd commands[] = {
	{ "info", cmd_info, "summarise a trace: duration, events by kind, pages, size",
	  "memreplay info TRACE.db [--json]",
	  "Prints what a trace holds: its time span, events by kind, pages, tasks, files,\n"
	  "cgroups, the bytes stored per event and the recording's metadata. The trace is\n"
	  "checked first, as query and replay check it.\n\n"
	  "  --json            one JSON object instead of text\n"
	  "  -h, --help        this help\n" },
	{ "record", cmd_record, "record what memory a command, processes or the host touch",
	  "memreplay record -o TRACE.db [--duration T] [--sources LIST] [--young-scan MODE]\n"
	  "       [--young-interval T] [--ring-size SIZE] [--anonymize] [--force] [--quiet]\n"
	  "       [--hw-event NAME[,NAME...]] [--hw-period N]\n"
	  "       (-- COMMAND ARGS... | -p PID[,PID...] | --cgroup PATH | -a)",
	  "Records the memory a command, running processes, a cgroup or the whole host touch\n"
	  "into a trace store (docs/record.md). Needs perf_event access (root or\n"
	  "perf_event_paranoid); `memreplay host` says what this host lets it see.\n\n"
	  "  -o, --output TRACE.db   the trace to write (an existing one needs --force)\n"
	  "  -p, --pid PID[,PID...]  record running processes\n"
	  "  --cgroup PATH           record the tasks of a cgroup (a path under the cgroup\n"
	  "                          mount, e.g. /sys/fs/cgroup/memory/mygroup)\n"
	  "  -a, --all-cpus          record the whole host\n"
	  "  --duration T            stop after T (a duration: 30s, 2m; at least 1ms)\n"
	  "  --sources LIST          what to record: a comma list of sources, NAME adds one,\n"
	  "                          -NAME takes one away (default,refault; default,-mmap)\n"
	  "  --young-scan MODE       young-bit scanner: auto (default), soft_dirty,\n"
	  "                          clear_refs, page_idle, damon or off\n"
	  "  --young-interval T      time between young-bit scans (default 100ms, 1s for\n"
	  "                          clear_refs; at least 1ms)\n"
	  "  --ring-size SIZE        perf ring per CPU, a power of two from 4K to 4G\n"
	  "                          (default 8M)\n"
	  "  --hw-event NAME[,NAME...]  hardware sampling events (libpfm4 names, up to 8)\n"
	  "  --hw-period N           one hardware sample every N events (default 100003)\n"
	  "  --anonymize             store keyed hashes of addresses, paths and task names\n"
	  "  --force                 replace TRACE.db if it exists\n"
	  "  -q, --quiet             no summary at the end\n"
	  "  -h, --help              this help\n"
	  "  -- COMMAND ARGS...      run COMMAND and record it until it exits\n\n"
	  "Durations take a unit (ns, us, ms, s, m, h; 1.5s); a bare number is nanoseconds.\n"
	  "Sizes are bytes with a binary suffix (64K, 8M, 1G) or a page count (2048).\n"
	  "Counts take decimal suffixes (100K = 100,000).\n" },
	{ "replay", cmd_replay, "replay a trace through reclaim policies into a results database",
	  "memreplay replay TRACE.db --policy SPEC [--policy SPEC ...] --memory SIZE[,SIZE...]\n"
	  "       [--memory LO..HI:N|LO..HI:xF|LO..HI:+STEP] [--memory CGROUP=SIZE] [-o RESULTS.db]\n"
	  "       [--script FILE] [--interval T] [--swap SIZE] [--threads N] [--plugin SO]\n"
	  "       [--vary N [--vary-p P]] [--sample 1/N [--sample-seed S] [--sample-unit SIZE]]\n"
	  "       memreplay replay --list-policies",
	  "Replays a trace through one or more reclaim policies at one or more memory sizes\n"
	  "in one pass, prints one line per run and writes the results database\n"
	  "(docs/replay.md, docs/results-schema.md).\n\n"
	  "  -P, --policy SPEC      name[:key=value,...], repeatable: all replay in one pass\n"
	  "  --variants NAME        add a preset of policies: seeds (mglru + each seed toggle),\n"
	  "                         classic (lru, mglru, opt)\n"
	  "  --memory SIZES         size of the whole trace (256M, 1G, 65536 pages), or several:\n"
	  "                         a list 32M,64M,128M or a range 16M..1G:8 (8 sizes in equal\n"
	  "                         ratios), 16M..1G:x2 (times 2), 16M..256M:+16M (linear);\n"
	  "                         every policy replays at every size in one pass, runs\n"
	  "                         ordered size by size (repeat --memory to add sizes)\n"
	  "  --memory CGROUP=SIZE   limit of one trace cgroup (repeatable): CGROUP is its id\n"
	  "                         or its path as the trace's cgroups table has it\n"
	  "  --reclaim MODE         memcg (default): --memory SIZE is a cgroup limit, reclaim\n"
	  "                         runs in the charging task (try_to_free_mem_cgroup_pages);\n"
	  "                         node: --memory SIZE is the machine's memory (split over\n"
	  "                         its nodes), with zone watermarks, kswapd (pgscan_kswapd)\n"
	  "                         and direct reclaim below min (pgscan_direct)\n"
	  "  --vary N               each policy also with N variation seeds (runs 'SPEC ~1'..):\n"
	  "                         what a trace cannot carry, drawn per seed: after a page-\n"
	  "                         table walk its task is switched back in (docs/replay.md)\n"
	  "  --vary-p P             that switch-in's probability (default 0.4)\n"
	  "  --sample 1/N           replay only 1 in N pages of each rank of heat (seeded),\n"
	  "                         every size scaled to them: a fast approximate curve,\n"
	  "                         marked sampled (docs/replay.md, \"Sampled replay\")\n"
	  "  --sample-seed S        the choice's seed (default 0); several (0,1,2 or 0..3):\n"
	  "                         a pass each, their runs in one results file, which\n"
	  "                         `memreplay curve` shows as each policy's mean and range\n"
	  "  --sample-unit SIZE     sample runs of pages whole: a power of two, 4K (default,\n"
	  "                         each page alone) to 2M (a PTE table's pages together)\n"
	  "  --fault-around SIZE    window a read fault of a file mapping maps resident pages\n"
	  "                         in (do_fault_around): a power of two, 4K..2M, or off;\n"
	  "                         default: the trace's fault_around_bytes, else 64K\n"
	  "  --shadow MODE          shadow entries (refault information) once stored: keep\n"
	  "                         (default: until the page comes back), kernel (the\n"
	  "                         shadow-node shrinker's limit, pages / 8 nodes of 64\n"
	  "                         slots per lruvec) or none (no refault recognised)\n"
	  "  --swap SIZE            swap space, 0 = none (default: the recorded host's, else\n"
	  "                         unlimited; docs/replay.md)\n"
	  "  -o, --output DB        results database (docs/results-schema.md)\n"
	  "  --script FILE          lru_gen debugfs commands at times: 'TIME|@MARKER CMD'\n"
	  "  --interval T           time series step (default 1% of the trace)\n"
	  "  --snapshot-every T     lru_gen snapshots every T of trace time\n"
	  "  --writeback-delay T    writeback ends T after it starts (default: with reclaim);\n"
	  "                         sync: inside pageout, like zram or pmem swap\n"
	  "  --threads N            worker threads (default: one per policy, up to the CPUs;\n"
	  "                         0 = all on one thread; auto); results do not depend on it\n"
	  "  --tmpdir DIR           temporary next-use files for opt (default $TMPDIR, else\n"
	  "                         /tmp)\n"
	  "  --nextuse-cache DIR    keep opt's next-use times and --sample's page counts\n"
	  "                         per trace there for later replays (default\n"
	  "                         $MEMREPLAY_CACHE, else $XDG_CACHE_HOME/memreplay or\n"
	  "                         ~/.cache/memreplay; at most 8 GiB, least recently\n"
	  "                         used first); off: none\n"
	  "  --check                run the policies' invariant checks after every reclaim\n"
	  "  --record-timing        add wall times to the results (not deterministic)\n"
	  "  --plugin SO            load a policy plugin first (repeatable; docs/plugins.md)\n"
	  "  --list-policies        describe every policy and its parameters\n"
	  "  --detail TABLES        per-page, file, cgroup and VMA counts in the results:\n"
	  "                         files,cgroups,vmas,pages (any of them) or all\n"
	  "                         (docs/results-schema.md, \"Detail tables\")\n"
	  "  -f, --format F         table (default), csv or json: the per-policy lines\n"
	  "  --csv, --json          the same as --format csv / --format json\n"
	  "  --no-timing            leave out wall times (M ev/s, seconds): output that\n"
	  "                         depends only on the trace and the options\n"
	  "  -q, --quiet            no progress line, coverage, assumptions or notes on stderr\n"
	  "                         (warnings and a sampled replay's rate still do; the\n"
	  "                         table of results still goes to stdout)\n"
	  "  -h, --help             this help\n\n"
	  "Sizes are bytes with a binary suffix (256M, 1G) or a page count (65536); durations\n"
	  "take a unit (500ms, 1.5s; a bare number is nanoseconds).\n" },
	{ "compare", cmd_compare, "policies side by side with deltas against a baseline",
	  "memreplay compare RESULTS.db [RESULTS.db ...] [--baseline RUN|SPEC] [--format table|csv|json] [--counters a,b]\n"
	  "       [--across-traces]",
	  "Prints every run of a results database side by side, each counter with its\n"
	  "absolute and percentage delta against a baseline run and the delta's 95 %\n"
	  "interval (a paired block bootstrap over the trace's segments; ~ = it contains 0);\n"
	  "on a sweep, whether each policy's delta keeps its sign across the sizes. Several\n"
	  "results files (recordings of one workload): the mean delta per run and its spread\n"
	  "between them (docs/results-schema.md, \"compare: intervals\").\n\n"
	  "  -b, --baseline RUN|SPEC  the run compared against: a run id or a policy spec\n"
	  "                           (then each size against that spec's run at the size);\n"
	  "                           default: the first run\n"
	  "  -c, --counters a,b       only these counters, in this order\n"
	  "  -f, --format F           table (default), csv or json\n"
	  "  --csv, --json            the same as --format csv / --format json\n"
	  "  --across-traces          each trace of the files (a merge of several\n"
	  "                           recordings' results) as a recording of its own\n"
	  "  -h, --help               this help\n" },
	{ "explain", cmd_explain, "why a page was evicted under one run and kept under another",
	  "memreplay explain RESULTS.db --runs A,B [--top N | --page ID[,ID...]] [--trace TRACE.db]\n"
	  "       [--format text|json]",
	  "For two runs of one trace in a results database, the pages whose refaults +\n"
	  "evictions differ most (A minus B), each with its history under both runs, interleaved\n"
	  "by trace event: every insertion (fault, readahead, refault, swap-in), its generation\n"
	  "(mglru: seq, min_seq, max_seq at each aging) or list (lru) and flags at each move,\n"
	  "each eviction (which reclaim, its priority and scan) and what the other run had the\n"
	  "page do then. The runs are replayed again from their runs rows, checked against\n"
	  "their stored counters (docs/replay.md, \"Why was this page evicted\").\n\n"
	  "  --runs A,B             the two runs (ids of the runs table)\n"
	  "  --top N                how many pages (default 5, at most 64)\n"
	  "  --page ID[,ID...]      explain these pages (the trace's pages.id) instead\n"
	  "  --trace TRACE.db       the trace, when it is no longer at the runs' path\n"
	  "  --tmpdir DIR           temporary next-use files for opt (default $TMPDIR, else /tmp)\n"
	  "  -f, --format F         text (default) or json\n"
	  "  -h, --help             this help\n" },
	{ "curve", cmd_curve, "miss ratio per policy and memory size (a sweep's curve)",
	  "memreplay curve RESULTS.db [--format table|csv|json] [-o CURVE.svg]",
	  "Prints the miss ratio of every run of a sweep (replay --memory LO..HI:N), per run\n"
	  "and as a memory x policy matrix. miss ratio = mr_misses / mr_references: pages\n"
	  "brought into memory per reference that could miss (an access, a page of a\n"
	  "read()/write(), a page a readahead or page-cache insertion named;\n"
	  "docs/results-schema.md, \"curve\").\n\n"
	  "  -f, --format F     table (default: per run, then a memory x policy matrix),\n"
	  "                     csv or json\n"
	  "  --csv, --json      the same as --format csv / --format json\n"
	  "  -o, --output FILE.svg  also draw the miss ratio over memory, one line per\n"
	  "                     policy (a self-contained SVG)\n"
	  "  -h, --help         this help\n" },
	{ "report", cmd_report, "one self-contained HTML report of a results database",
	  "memreplay report RESULTS.db -o REPORT.html [--baseline RUN|SPEC] [--force]",
	  "Writes one HTML file (inline SVG, no network) with the runs and their miss ratios,\n"
	  "the curve over memory sizes, the counters against the baseline per size, misses,\n"
	  "refaults, swap-ins and residency over the trace's time, generation sizes over\n"
	  "time (replay --snapshot-every) and the cgroups that refault most\n"
	  "(docs/report.md).\n\n"
	  "  -o, --output FILE      the report to write (an existing file must be one)\n"
	  "  -b, --baseline RUN|SPEC  the run compared against, as for compare (default:\n"
	  "                         the first run)\n"
	  "  --force                replace FILE even when it is not an HTML file\n"
	  "  -h, --help             this help\n" },
	{ "sweep", cmd_sweep, "many traces x policies x sizes from a manifest: a worker pool, Slurm or GNU parallel",
	  "memreplay sweep MANIFEST [-o DIR] [-j N] [--threads N] [--force] [--cell K] [--list] [-q]\n"
	  "       memreplay sweep MANIFEST [-o DIR] --emit slurm [--sbatch 'OPTIONS'] | --emit parallel",
	  "Replays the cells of a manifest (lines TRACE POLICY MEMORY, or traces: / policies: /\n"
	  "memory: paragraphs for a cross product; docs/sweep.md), each cell one replay pass\n"
	  "into DIR/cell-NNNN.db; a rerun skips the finished cells. `memreplay merge` joins\n"
	  "them.\n\n"
	  "  -o, --output DIR       the cells' directory (default MANIFEST.d)\n"
	  "  -j, --jobs N           cells replayed at once (default: the CPUs)\n"
	  "  --threads N            threads per cell's replay (default 1)\n"
	  "  --force                replay finished cells again\n"
	  "  --cell K               replay cell K only (what a Slurm array task runs)\n"
	  "  --list                 print the cells and exit\n"
	  "  --emit slurm|parallel  write DIR/sweep.sbatch, a Slurm job array with --mem per\n"
	  "                         cell, or print one command per cell for GNU parallel\n"
	  "  --sbatch 'OPTIONS'     more #SBATCH options for --emit slurm\n"
	  "  -q, --quiet            no progress\n"
	  "  -h, --help             this help\n" },
	{ "merge", cmd_merge, "join results files (a sweep's cells) into one results database",
	  "memreplay merge -o ALL.db RESULTS.db... [--keep-copies] [-q]",
	  "Joins results databases into one: run ids renumbered in input order, every table's\n"
	  "rows carried with them; the same inputs give the same file (docs/sweep.md). A run\n"
	  "that repeats one of an earlier input (same settings, counters and notes) is\n"
	  "refused: curve and compare would count it twice.\n\n"
	  "  -o, --output ALL.db    the database to write\n"
	  "  --keep-copies          keep such runs too (one cell replayed by two builds)\n"
	  "  -q, --quiet            no summary\n"
	  "  -h, --help             this help\n" },
	{ "gen", cmd_gen, "write a synthetic workload trace (deterministic, seeded)",
	  "memreplay gen GENERATOR -o OUT.db [--force] [--seed N] [--PARAM VALUE ...]\n"
	  "       memreplay gen --list | memreplay gen GENERATOR --help",
	  "Writes a trace from a workload generator: the same generator, parameters and seed\n"
	  "give the same file.\n\n"
	  "  -l, --list         list the generators\n"
	  "  -o, --output OUT.db  the trace to write\n"
	  "  --force            replace OUT.db if it exists (it may be a recorded trace)\n"
	  "  --seed N           random seed (a count; default 1)\n"
	  "  --PARAM VALUE      a parameter of the generator (also --PARAM=VALUE);\n"
	  "                     `memreplay gen GENERATOR --help` lists them\n"
	  "  -h, --help         this help\n" },
	{ "import", cmd_import, "another tool's output as a trace (perf, damo, lackey, oracleGeneral)",
	  "memreplay import FORMAT INPUT -o TRACE.db [--force] [--tick T] [--with-instr]\n"
	  "       [--file-pages] [--one-page] [--time-unit s|ms|us|ns]\n"
	  "       memreplay import --list",
	  "Writes a trace from another tool's output (docs/import.md): perf (perf script of\n"
	  "page-fault samples with addresses), damo (DAMON's JSON record), lackey (valgrind\n"
	  "--tool=lackey --trace-mem=yes) or oracleGeneral (libCacheSim). INPUT - is standard\n"
	  "input. The trace's meta says what the format cannot say (import.lacks).\n\n"
	  "  -l, --list         the formats, how to make each and what each lacks\n"
	  "  -o, --output TRACE.db  the trace to write\n"
	  "  --force            replace TRACE.db if it exists\n"
	  "  --tick T           lackey: trace time between records (a duration; default 1ns)\n"
	  "  --with-instr       lackey: instruction fetches too, as exec accesses\n"
	  "  --file-pages       oracleGeneral: objects are pages of one file read with read()\n"
	  "  --one-page         oracleGeneral: every object is one page, whatever its size\n"
	  "  --time-unit U      oracleGeneral: the timestamps' unit, s (default, as\n"
	  "                     libCacheSim's traces), ms, us or ns (export --time-unit)\n"
	  "  -h, --help         this help\n" },
	{ "export", cmd_export, "a trace's page references for libCacheSim (oracleGeneral)",
	  "memreplay export --format oracleGeneral TRACE.db -o OUT.bin [--time-unit s|ms|us|ns] [--force]",
	  "Writes one 24-byte oracleGeneral record per page reference of the trace (each\n"
	  "access, each page of a read() or write()), with the next reference of the same\n"
	  "page, for libCacheSim's cachesim (docs/import.md).\n\n"
	  "  --format oracleGeneral  the output format (the only one)\n"
	  "  -o, --output OUT.bin    the file to write\n"
	  "  --time-unit U      the records' timestamp unit: s (default), ms, us or ns\n"
	  "  --force            replace OUT.bin if it exists\n"
	  "  -h, --help         this help\n" },
	{ "query", cmd_query, "run SQL on a trace or results database",
	  "memreplay query DB [--format table|csv|json] SQL",
	  "Runs SQL read-only on a trace (its tables and the events virtual table) or a\n"
	  "results database, like the sqlite3 shell: every statement in turn, each result set\n"
	  "printed with its own header. ATTACH 'other.db' AS o opens another database\n"
	  "read-only, so one query can join a results database with a trace's pages and\n"
	  "files. A statement that would write is refused before any runs; an error names the\n"
	  "statement by number and text.\n\n"
	  "  -f, --format F     table (default: a header and tab-separated rows per result\n"
	  "                     set, a blank line between sets, NULL for null), csv\n"
	  "                     (RFC 4180 quoting) or json (an array of objects per result\n"
	  "                     set)\n"
	  "  --csv, --json      the same as --format csv / --format json\n"
	  "  -h, --help         this help\n" },
	{ "bench", cmd_bench, "measure the project's own speed (store codec, ...)",
	  "memreplay bench store [--events N] [--pages SIZE] [--dir DIR] [--keep]\n"
	  "       memreplay bench replay [--events N] [--pages SIZE] [--policy SPEC ...]\n"
	  "                              [--dir DIR] [--keep]\n"
	  "       memreplay bench record [--size SIZE] [--runs N] [--no-build] [--no-faults]\n"
	  "                              [--src DIR] [--workload PATH] [--dir DIR] [--keep]\n"
	  "                              [--perf PATH | --no-perf] [--no-fixed] [--sort]\n"
	  "       memreplay bench sample [--events N] [--pages SIZE] [--trace T.db ...]\n"
	  "                              [--no-zipf] [--rate 1/N] [--seeds K] [--unit SIZE]\n"
	  "                              [--dir DIR] [--keep]",
	  "store: encode/decode and write/read speed and bytes per event of the trace store\n"
	  "on generated traces. replay: events per second of each policy. record (root): what\n"
	  "recording costs a fault-bound program and a build, against raw perf sampling,\n"
	  "and its fixed cost (record -- /bin/true); --sort adds an external sort in a memory\n"
	  "cgroup.\n"
	  "sample: a sampled replay's 16-size curve (lru, mglru, opt) against the full one:\n"
	  "its error in miss-ratio points and its time (docs/replay.md, \"Sampled replay\").\n\n"
	  "  -e, --events N     events to generate (a count: 50M)\n"
	  "  --pages SIZE       pages the generated trace touches\n"
	  "  -P, --policy SPEC  a policy to measure (replay; repeatable)\n"
	  "  -s, --size SIZE    memory the fault-bound program touches (record; default 1G)\n"
	  "  -r, --runs N       runs of each case, the median is reported (record; default 3)\n"
	  "  --no-build         leave out the build case (record)\n"
	  "  --no-faults        leave out the fault-bound program (record)\n"
	  "  --no-fixed         leave out the fixed-cost case, /bin/true (record)\n"
	  "  --sort             add the sort case: sort -S 40M of a 192 MB file in a 100 MiB\n"
	  "                     memory cgroup (record; 10-30 s a run)\n"
	  "  --src DIR          the source tree the build case compiles (record)\n"
	  "  --workload PATH    the fault-bound program (record)\n"
	  "  --perf PATH        the perf binary for the raw-perf case (record)\n"
	  "  --no-perf          leave out the raw-perf case (record)\n"
	  "  --trace T.db       a trace to measure too (sample; repeatable)\n"
	  "  --no-zipf          only the --trace traces, no generated one (sample)\n"
	  "  --rate 1/N         the sampling rate (sample; default 1/16)\n"
	  "  --seeds K          sample with seeds 0..K-1, the error their mean and worst\n"
	  "                     (sample; default 1)\n"
	  "  --unit SIZE        the sample's unit, as replay --sample-unit (sample)\n"
	  "  -d, --dir DIR      temporary files (default $TMPDIR, else /tmp)\n"
	  "  -k, --keep         keep the temporary files\n"
	  "  -h, --help         this help\n" },
	{ "host", cmd_host, "what this host lets the recorder see (perf, tracepoints, young bits)",
	  "memreplay host",
	  "Probes perf events, tracepoints, young-bit interfaces, cgroups and hardware\n"
	  "sampling, and says which record sources would work here and why not.\n\n"
	  "  -h, --help         this help\n" },
	{ "help", cmd_help, "show help for a subcommand",
	  "memreplay help [SUBCOMMAND]\n"
	  "       memreplay help --man [SUBCOMMAND] | memreplay help --man-dir DIR",
	  "Without a subcommand, lists them; with one, prints what `memreplay SUBCOMMAND\n"
	  "--help` prints. The man pages are made from the same text.\n\n"
	  "  --man [SUBCOMMAND]  the page as man(7) source instead (memreplay(1) without one)\n"
	  "  --man-dir DIR       write memreplay.1 and memreplay-SUBCOMMAND.1 for every\n"
	  "                      subcommand into DIR\n"
	  "  -h, --help          this help\n" },
	{ "version", cmd_version, "print the version", "memreplay version",
	  "Prints the version (also `memreplay --version`).\n\n"
	  "  -h, --help         this help\n" },
};

const struct mr_cmd *cli_find(const char *name)
{
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

int cli_out_ok(const char *path, const char *input, struct mr_error *err)
{
	struct stat sb;

	if (lstat(path, &sb))
		return errno == ENOENT ? 0 : mr_error_set(err, MR_EIO, "cannot write %s: %s", path,
							  strerror(errno));
	if (S_ISLNK(sb.st_mode))
		return mr_error_set(err, MR_EINVAL, "%s is a symbolic link: give the path of the "
				    "file itself (-o)", path);
	if (!S_ISREG(sb.st_mode))
		return mr_error_set(err, MR_EINVAL, "%s exists and is not a regular file: give "
				    "another -o", path);
	if (mr_same_file(input, path))
		return mr_error_set(err, MR_EINVAL, "-o %s is the input %s itself: give another -o",
				    path, input);
	return 0;
}

int cli_fail(const char *cmd, const struct mr_error *err)
{
	fprintf(stderr, "memreplay %s: %s\n", cmd,
		err->msg[0] ? err->msg : mr_strerror(err->code));
	return 1;
}

int cli_bad_option(const char *cmd, const struct mr_error *err)
{
	return cli_usage_error(cmd, "%s", err->msg[0] ? err->msg : mr_strerror(err->code));
}

int cli_parse_duration(const char *cmd, const char *opt, const char *arg, uint64_t min_ns,
		       uint64_t *ns)
{
	struct mr_error err = { 0 };

	if (mr_parse_duration(arg, ns, &err) == 0 && (!*ns || *ns >= min_ns))
		return 0;
	if (!err.code)
		mr_error_set(&err, MR_ERANGE, "%s is %llu ns, too short to be meant; a bare "
			     "number is nanoseconds: give a unit (%ss, %sms)", arg,
			     (unsigned long long)*ns, arg, arg);
	return cli_usage_error(cmd, "%s: %s", opt, err.msg);
}

void cli_json_string(const char *s)
{
	cli_json_stringn(s, strlen(s));
}

/* The length of the UTF-8 sequence at p (before end), or 0 where the bytes are not one:
 * a stray continuation byte, a sequence cut short, an overlong form, a UTF-16
 * surrogate, a code point past U+10FFFF (RFC 3629). */
static unsigned utf8_len(const unsigned char *p, const unsigned char *end)
{
	unsigned c = *p, len = c < 0x80 ? 1 : c >= 0xc2 && c <= 0xdf ? 2 :
				(c & 0xf0) == 0xe0 ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;

	if (len > (size_t)(end - p))
		return 0;
	for (unsigned k = 1; k < len; k++)
		if ((p[k] & 0xc0) != 0x80)
			return 0;
	if ((c == 0xe0 && p[1] < 0xa0) || (c == 0xed && p[1] > 0x9f) ||
	    (c == 0xf0 && p[1] < 0x90) || (c == 0xf4 && p[1] > 0x8f))
		return 0;
	return len;
}

void cli_json_stringn(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + n;

	putchar('"');
	while (p < end) {
		unsigned c = *p, len = utf8_len(p, end);

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20)
			printf("\\u%04x", c);
		else if (len)
			fwrite(p, 1, len, stdout);
		else /* not UTF-8, which a JSON string must be: the replacement character */
			fputs("\\ufffd", stdout);
		p += len ? len : 1;
	}
	putchar('"');
}

const char *cli_trace_name(const char *trace, const char *trace_id, const char *traces,
			   size_t tstride, const char *ids, size_t istride, size_t n)
{
	const char *base = strrchr(trace, '/');

	base = base ? base + 1 : trace;
	for (size_t i = 0; i < n; i++) {
		const char *t = traces + i * tstride, *o = strrchr(t, '/');

		if (!strcmp(o ? o + 1 : t, base) && strcmp(ids + i * istride, trace_id))
			return trace;
	}
	return base;
}

void cli_csv_field(const char *s)
{
	putchar('"');
	cli_print_text(s, CLI_TEXT_CSV);
	putchar('"');
}

void cli_print_text(const char *s, unsigned flags)
{
	cli_print_textn(s, strlen(s), flags);
}

void cli_print_textn(const char *s, size_t n, unsigned flags)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + n;

	while (p < end) {
		unsigned c = *p, len = utf8_len(p, end);

		if ((flags & CLI_TEXT_CSV) && (c == '\n' || c == '\r' || c == '\t' || c == '"')) {
			if (c == '"')
				putchar('"');
			putchar(c); /* the quotes around the field keep these in it */
			p++;
			continue;
		}
		if (c == '\\' && !(flags & CLI_TEXT_CSV)) {
			fputs("\\\\", stdout);
			p++;
			continue;
		}
		if (c == '\n' || c == '\t' || c == '\r') {
			printf("\\%c", c == '\n' ? 'n' : c == '\t' ? 't' : 'r');
			p++;
			continue;
		}
		/* a whole UTF-8 sequence that is not a C1 control (U+0080..U+009F) stays */
		if (len == 1 ? c >= 0x20 && c != 0x7f : len && !(c == 0xc2 && p[1] < 0xa0)) {
			fwrite(p, 1, len, stdout);
			p += len;
			continue;
		}
		printf("\\x%02x", c);
		p++;
	}
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
	const struct mr_cmd *c = cli_find(cmd);
	va_list ap;

	fprintf(stderr, "memreplay %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	if (c)
		fprintf(stderr, "usage: %s\n", c->usage);
	return 2;
}

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static void print_overview(FILE *f)
{
	fprintf(f, "usage: memreplay SUBCOMMAND [ARGS...]\n\n"
		   "Record what memory a host touches, replay it through reclaim policies.\n\n"
		   "subcommands:\n");
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\n`memreplay help SUBCOMMAND` or `memreplay SUBCOMMAND --help` shows its usage.\n");
}

int cli_help(const char *name)
{
	const struct mr_cmd *c = cli_find(name);

	if (!c)
		return cli_usage_error("help", "unknown subcommand '%s'", name);
	/* a table line without its help text still prints (test_cli_help fails on it) */
	printf("%s - %s\nusage: %s\n\n%s", c->name, c->summary, c->usage, c->help ? c->help : "");
	return 0;
}

/* Text as man(7) source: a backslash, a minus (which groff would print as a hyphen,
 * so that searching the page for an option would not find it) and a line starting
 * with a control character are escaped; everything else is as the CLI prints it. */
static void roff_text(FILE *f, const char *s)
{
	int bol = 1;

	for (; *s; s++) {
		if (bol && (*s == '.' || *s == '\''))
			fputs("\\&", f);
		bol = *s == '\n';
		if (*s == '\\')
			fputs("\\e", f);
		else if (*s == '-')
			fputs("\\-", f);
		else
			fputc(*s, f);
	}
	if (!bol)
		fputc('\n', f);
}

/* The page of subcommand c, or memreplay(1) itself when c is NULL. The same strings as
 * cli_help() and print_overview(), so the page and --help cannot disagree. No date:
 * the same tree makes the same pages. */
static void write_man(FILE *f, const struct mr_cmd *c)
{
	char title[64];

	snprintf(title, sizeof(title), "memreplay%s%s", c ? "-" : "", c ? c->name : "");
	fputs(".TH ", f);
	for (const char *p = title; *p; p++)
		if (*p == '-')
			fputs("\\-", f);
		else
			fputc(toupper((unsigned char)*p), f);
	fprintf(f, " 1 \"\" \"memreplay %s\" \"memreplay manual\"\n.SH NAME\n", MR_VERSION_STRING);
	roff_text(f, title);
	fputs("\\- ", f);
	roff_text(f, c ? c->summary : "record what memory a Linux host touches, replay it "
					"through page-reclaim policy models");
	fputs(".SH SYNOPSIS\n.nf\n", f);
	roff_text(f, c ? c->usage : "memreplay SUBCOMMAND [ARGS...]\nmemreplay SUBCOMMAND --help");
	fputs(".fi\n.SH DESCRIPTION\n", f);
	if (c) {
		fputs(".nf\n", f);
		roff_text(f, c->help ? c->help : "");
		fputs(".fi\n.SH SEE ALSO\n.BR memreplay (1)\n", f);
		return;
	}
	roff_text(f, "Record what memory a host touches, replay it through reclaim policies.");
	fputs(".SH SUBCOMMANDS\n", f);
	for (size_t i = 0; i < NCOMMANDS; i++) {
		fputs(".TP\n.B ", f);
		roff_text(f, commands[i].name);
		roff_text(f, commands[i].summary);
	}
	fputs(".SH SEE ALSO\n", f);
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(f, ".BR memreplay\\-%s (1)%s\n", commands[i].name, i + 1 < NCOMMANDS ? "," : "");
}

/* memreplay.1 and memreplay-NAME.1 for every subcommand, into dir (the build's man/). */
static int write_man_dir(const char *dir)
{
	char path[4096];
	struct stat sb;

	/* a directory that exists: the build makes it (man/), a user names one */
	int missing = stat(dir, &sb);

	if (missing || !S_ISDIR(sb.st_mode)) {
		if (missing)
			fprintf(stderr, "memreplay help: --man-dir %s: %s: give a directory that "
				"exists (mkdir -p %s)\n", dir, strerror(errno), dir);
		else
			fprintf(stderr, "memreplay help: --man-dir %s: not a directory\n", dir);
		return 1;
	}
	for (size_t i = 0; i <= NCOMMANDS; i++) {
		const struct mr_cmd *c = i < NCOMMANDS ? &commands[i] : NULL;
		FILE *f;
		int bad;

		snprintf(path, sizeof(path), "%s/memreplay%s%s.1", dir, c ? "-" : "", c ? c->name : "");
		f = fopen(path, "w");
		if (!f) {
			fprintf(stderr, "memreplay help: cannot write %s: %s\n", path, strerror(errno));
			return 1;
		}
		write_man(f, c);
		bad = ferror(f);
		if (fclose(f) || bad) {
			fprintf(stderr, "memreplay help: writing %s failed\n", path);
			return 1;
		}
	}
	return 0;
}

static int cmd_help(int argc, char **argv)
{
	if (argc < 2) {
		print_overview(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--man")) {
		const struct mr_cmd *c = argc > 2 ? cli_find(argv[2]) : NULL;

		if (argc > 3 || (argc > 2 && !c))
			return cli_usage_error("help", argc > 3 ? "--man takes one subcommand" :
					       "unknown subcommand '%s'", argv[2]);
		write_man(stdout, c);
		return 0;
	}
	if (!strcmp(argv[1], "--man-dir")) {
		if (argc != 3)
			return cli_usage_error("help", "--man-dir takes a directory");
		return write_man_dir(argv[2]);
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
		return cli_help("help");
	if (argc > 2)
		return cli_usage_error("help", "one subcommand at a time");
	return cli_help(argv[1]);
}

static int cmd_version(int argc, char **argv)
{
	if (argc > 1)
		return cli_usage_error("version", "takes no arguments");
	printf("memreplay %s\n", MR_VERSION_STRING);
	return 0;
}

/* What was printed reached standard output: a full disk or /dev/full lost it silently
 * (exit 0) otherwise. */
static int out_flushed(const char *name, int rc)
{
	errno = 0;
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "memreplay %s: writing standard output failed: %s\n", name,
			strerror(errno ? errno : EIO));
		return rc ? rc : 1;
	}
	return rc;
}

int main(int argc, char **argv)
{
	const struct mr_cmd *c;

	if (argc < 2) {
		print_overview(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
		return out_flushed("help", cmd_help(1, argv));
	if (!strcmp(argv[1], "--version"))
		return out_flushed("version", cmd_version(1, argv));
	c = cli_find(argv[1]);
	if (!c) {
		fprintf(stderr, "memreplay: unknown subcommand '%s'; run `memreplay help` for the list\n",
			argv[1]);
		return 2;
	}
	/* `X --help` is `help X` for every subcommand, whatever its own parser does */
	if (argc > 2 && (!strcmp(argv[2], "--help") || !strcmp(argv[2], "-h")))
		return out_flushed(c->name, cli_help(c->name));
	return out_flushed(c->name, c->fn(argc - 1, argv + 1));
}
