// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_script.c - fuzz target for the replay script parser (replayer/script.c): any
 * bytes are a script that is parsed or refused with a message, never a crash, and what
 * it accepts keeps the parser's promises (times in order and in range, every command
 * still valid when written back). Built with libFuzzer by run_replay_fuzz.sh; in every
 * build fuzz_replay_main.c replays the committed corpus through it as a CTest test.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rp_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A broken promise: abort, so that libFuzzer keeps the input and CTest fails. */
#define EXPECT(cond)                                                                   \
	do {                                                                           \
		if (!(cond)) {                                                         \
			fprintf(stderr, "fuzz_script: %s:%d: %s\n", __FILE__, __LINE__, #cond); \
			abort();                                                       \
		}                                                                      \
	} while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mr_error err = { 0 };
	struct rp_script s;
	int rc;

	if (size > 1 << 16)
		return 0; /* the engine reads scripts up to 64 MiB; longer inputs add nothing */
	rc = rp_script_parse((const char *)data, size, "fuzz", &s, &err);
	if (rc) {
		EXPECT(rc < 0 && err.msg[0]);
		EXPECT(!s.cmds && !s.n);
		return 0;
	}
	EXPECT(s.n_timed <= s.n);
	for (size_t i = 0; i < s.n; i++) {
		const struct rp_script_cmd *c = &s.cmds[i];
		struct rp_script again;
		char line[160];

		EXPECT((i < s.n_timed) == !c->at_marker);
		EXPECT(c->at_marker || c->time <= RP_TIME_MAX);
		if (i && i < s.n_timed)
			EXPECT(s.cmds[i - 1].time <= c->time);
		EXPECT(c->line >= 1);
		EXPECT(memchr(c->text, 0, sizeof(c->text)) && strlen(c->text) > 0);
		/* the normalised command is itself a command the parser accepts, unchanged */
		snprintf(line, sizeof(line), "0 %s\n", c->text);
		EXPECT(rp_script_parse_text(line, "again", &again, &err) == 0);
		EXPECT(again.n == 1 && !strcmp(again.cmds[0].text, c->text));
		rp_script_free(&again);
	}
	rp_script_free(&s);
	return 0;
}
