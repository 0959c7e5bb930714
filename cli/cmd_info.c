// SPDX-License-Identifier: GPL-2.0
/* cmd_info.c - `memreplay info TRACE`: what a user wants to know about a trace first, once
 * every event in it has been decoded and checked. */
#include <getopt.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "mr_store.h"
#include "mr_util.h"

static const char *const page_type_names[MR_PAGE_NR_TYPES] = { "anon", "file", "shmem" };

static void print_meta(struct mr_store *s, int json)
{
	sqlite3_stmt *st;
	int first = 1;

	if (sqlite3_prepare_v2(mr_store_db(s), "SELECT key, value FROM meta ORDER BY key", -1, &st,
			       NULL) != SQLITE_OK)
		return;
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *k = (const char *)sqlite3_column_text(st, 0);
		const char *v = (const char *)sqlite3_column_text(st, 1);

		/* keys and values are the file's text: escaped, never printed as they are */
		if (json) {
			printf("%s\n    ", first ? "" : ",");
			cli_json_string(k ? k : "");
			fputs(": ", stdout);
			cli_json_string(v ? v : "");
		} else {
			int w = 0;

			fputs("  ", stdout);
			for (const char *p = k ? k : ""; *p; p++)
				w++;
			cli_print_text(k ? k : "", 0);
			printf("%*s ", w < 22 ? 22 - w : 0, "");
			cli_print_text(v ? v : "", 0);
			putchar('\n');
		}
		first = 0;
	}
	sqlite3_finalize(st);
}

static void print_text(struct mr_store *s, const struct mr_store_summary *m)
{
	char b1[32], b2[32];
	double dur = (double)(m->t_last - m->t_first) / 1e9;

	fputs("trace        ", stdout);
	cli_print_text(mr_store_path(s), 0);
	printf(" (format v%d)\n", m->version);
	printf("duration     %.3f s (%llu .. %llu ns)\n", dur, (unsigned long long)m->t_first,
	       (unsigned long long)m->t_last);
	printf("events       %llu in %llu chunks, %llu streams\n", (unsigned long long)m->n_events,
	       (unsigned long long)m->n_chunks, (unsigned long long)m->n_streams);
	for (int k = 0; k < MR_EV_NR_KINDS; k++)
		if (m->by_kind[k])
			printf("  %-12s %12llu  %5.1f%%\n", mr_event_kind_name(k),
			       (unsigned long long)m->by_kind[k],
			       100.0 * (double)m->by_kind[k] / (double)m->n_events);
	printf("pages        %llu distinct", (unsigned long long)m->n_pages);
	for (int t = 0; t < MR_PAGE_NR_TYPES; t++)
		printf(", %s %llu", page_type_names[t], (unsigned long long)m->pages_by_type[t]);
	printf(" (%s)\n", mr_format_bytes(m->n_pages * MR_PAGE_SIZE, b1, sizeof(b1)));
	printf("tasks        %llu in %llu address spaces; %llu files, %llu vmas, %llu cgroups\n",
	       (unsigned long long)m->n_tasks, (unsigned long long)m->n_mms,
	       (unsigned long long)m->n_files, (unsigned long long)m->n_vmas,
	       (unsigned long long)m->n_cgroups);
	printf("lost events  %llu%s\n", (unsigned long long)m->lost,
	       m->lost ? "  (the recording missed events: see `memreplay query TRACE 'SELECT * FROM streams'`)" : "");
	printf("size         %s on disk, events %s in chunks\n",
	       mr_format_bytes(m->file_bytes, b1, sizeof(b1)),
	       mr_format_bytes(m->stored_bytes, b2, sizeof(b2)));
	if (m->n_events)
		printf("bytes/event  %.2f in chunks, %.2f for the whole file\n",
		       (double)m->stored_bytes / (double)m->n_events,
		       (double)m->file_bytes / (double)m->n_events);
	if (m->stored_bytes)
		printf("compression  %.1fx vs %zu-byte events, LZ4 %.2fx over column encoding\n",
		       (double)m->n_events * sizeof(struct mr_event) / (double)m->stored_bytes,
		       sizeof(struct mr_event), (double)m->payload_bytes / (double)m->stored_bytes);
	printf("metadata\n");
	print_meta(s, 0);
}

static void print_json(struct mr_store *s, const struct mr_store_summary *m)
{
	fputs("{\n  \"trace\": ", stdout);
	cli_json_string(mr_store_path(s));
	printf(",\n  \"version\": %d,\n", m->version);
	printf("  \"t_first_ns\": %llu,\n  \"t_last_ns\": %llu,\n", (unsigned long long)m->t_first,
	       (unsigned long long)m->t_last);
	printf("  \"events\": %llu,\n  \"chunks\": %llu,\n  \"streams\": %llu,\n",
	       (unsigned long long)m->n_events, (unsigned long long)m->n_chunks,
	       (unsigned long long)m->n_streams);
	printf("  \"events_by_kind\": {");
	for (int k = 0, first = 1; k < MR_EV_NR_KINDS; k++) {
		if (!m->by_kind[k])
			continue;
		printf("%s\"%s\": %llu", first ? "" : ", ", mr_event_kind_name(k),
		       (unsigned long long)m->by_kind[k]);
		first = 0;
	}
	printf("},\n  \"pages\": {\"total\": %llu", (unsigned long long)m->n_pages);
	for (int t = 0; t < MR_PAGE_NR_TYPES; t++)
		printf(", \"%s\": %llu", page_type_names[t], (unsigned long long)m->pages_by_type[t]);
	printf("},\n  \"tasks\": %llu,\n  \"mms\": %llu,\n  \"files\": %llu,\n  \"vmas\": %llu,\n",
	       (unsigned long long)m->n_tasks, (unsigned long long)m->n_mms,
	       (unsigned long long)m->n_files, (unsigned long long)m->n_vmas);
	printf("  \"lost\": %llu,\n  \"file_bytes\": %llu,\n  \"chunk_bytes\": %llu,\n"
	       "  \"payload_bytes\": %llu,\n",
	       (unsigned long long)m->lost, (unsigned long long)m->file_bytes,
	       (unsigned long long)m->stored_bytes, (unsigned long long)m->payload_bytes);
	printf("  \"bytes_per_event\": %.4f,\n  \"meta\": {",
	       m->n_events ? (double)m->stored_bytes / (double)m->n_events : 0.0);
	print_meta(s, 1);
	printf("\n  }\n}\n");
}

int cmd_info(int argc, char **argv)
{
	/* --json has no short form: -j is sweep's --jobs, as for make and parallel */
	static const struct option opts[] = { { "json", no_argument, NULL, 'j' },
					      { "help", no_argument, NULL, 'h' },
					      { NULL, 0, NULL, 0 } };
	struct mr_error err = { 0 };
	struct mr_store_summary sum;
	struct mr_store *s;
	int c, json = 0, rc;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'j': json = 1; break;
		case 'h': return cli_help("info");
		default: return cli_usage_error("info", "bad option");
		}
	}
	if (optind != argc - 1)
		return cli_usage_error("info", "expected exactly one trace file");
	rc = mr_store_open(argv[optind], MR_STORE_RDONLY, &s, &err);
	if (rc)
		return cli_fail("info", &err);
	rc = mr_store_summarize(s, &sum, &err);
	/* the chunk rows alone would vouch for events no command can read (a page or VMA
	 * they name that is not a row): info says what query and replay would say */
	if (!rc)
		rc = mr_store_check_events(s, &err);
	if (!rc) {
		if (json)
			print_json(s, &sum);
		else
			print_text(s, &sum);
	}
	mr_store_close(s);
	return rc ? cli_fail("info", &err) : 0;
}
