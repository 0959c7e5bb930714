// SPDX-License-Identifier: GPL-2.0
/*
 * import_lackey.c - valgrind --tool=lackey --trace-mem=yes output.
 *
 * Lackey prints one line per memory operation of the guest program
 * (valgrind lackey/lk_main.c, --trace-mem):
 *   I  ADDR,SIZE     instruction fetch
 *    L ADDR,SIZE     load
 *    S ADDR,SIZE     store
 *    M ADDR,SIZE     modify (a load and a store of the same location)
 * ADDR hexadecimal, SIZE decimal bytes; valgrind's own messages start "==PID==" and
 * "==PID== Command: PROG ..." names the program. Each L/S/M (and with with_instr each
 * I) becomes an ACCESS of every page it covers - read, write, read+write, exec - of
 * one task, tick_ns apart: lackey has no clock. Nothing is sampled, so the source is
 * the generators' (0): every access is in the trace.
 */
#include <stdlib.h>
#include <string.h>

#include "import_priv.h"

#define LACKEY_MAX_SIZE 65536u /* the largest single access lackey prints is far below */

struct lackey_state {
	uint32_t stream, task, mm;
	int32_t pid;
	char comm[16];
	uint64_t n; /* memory records turned into events */
};

static void header_line(struct lackey_state *ls, const char *line)
{
	const char *p = line + 2, *cmd;
	long pid = strtol(p, NULL, 10);

	if (pid > 0 && pid <= INT32_MAX && !ls->pid)
		ls->pid = (int32_t)pid;
	cmd = strstr(line, "== Command: ");
	if (cmd && !ls->comm[0]) {
		const char *prog = cmd + 12, *end = prog, *slash;
		size_t n;

		while (*end && *end != ' ')
			end++;
		for (slash = prog; slash < end; slash++)
			if (*slash == '/')
				prog = slash + 1;
		n = (size_t)(end - prog) < sizeof(ls->comm) - 1 ? (size_t)(end - prog) :
								   sizeof(ls->comm) - 1;
		memcpy(ls->comm, prog, n); /* a task's comm: 15 bytes, as the kernel keeps */
		ls->comm[n] = 0;
	}
}

static int lackey_line(struct imp_ctx *c, struct lackey_state *ls, const char *line)
{
	const char *p = line, *comma, *end;
	uint64_t addr, size = 0, t;
	uint8_t rwx;
	char kind;
	int rc;

	if (!strncmp(line, "==", 2)) {
		header_line(ls, line);
		return 0;
	}
	if (!*line)
		return 0;
	if (p[0] == 'I' && p[1] == ' ')
		kind = 'I';
	else if (p[0] == ' ' && (p[1] == 'L' || p[1] == 'S' || p[1] == 'M') && p[2] == ' ')
		kind = p[1];
	else
		return imp_fail(c, "expected a lackey record 'I  ADDR,SIZE' or ' L|S|M ADDR,SIZE', "
				"found '%.40s' (valgrind --tool=lackey --trace-mem=yes "
				"--log-file=FILE keeps the program's own output out of it)", line);
	p += 2;
	while (*p == ' ')
		p++;
	comma = strchr(p, ',');
	if (!comma || imp_hex(p, (size_t)(comma - p), &addr))
		return imp_fail(c, "expected a hexadecimal address then ',SIZE' in '%.40s'", line);
	for (end = comma + 1; *end >= '0' && *end <= '9' && size <= LACKEY_MAX_SIZE; end++)
		size = size * 10 + (uint64_t)(*end - '0');
	while (*end == ' ')
		end++;
	if (end == comma + 1 || *end || !size || size > LACKEY_MAX_SIZE)
		return imp_fail(c, "expected a size in bytes (1 .. %u) after the address in '%.40s'",
				LACKEY_MAX_SIZE, line);
	if (kind == 'I' && !c->o->with_instr) {
		c->st.skipped++;
		return 0;
	}
	if (addr >= IMP_VA_END || size > IMP_VA_END - addr) {
		c->st.skipped++;
		return 0;
	}
	rwx = kind == 'I' ? MR_ACC_EXEC : kind == 'L' ? MR_ACC_READ : kind == 'S' ? MR_ACC_WRITE :
	      (uint8_t)(MR_ACC_READ | MR_ACC_WRITE);
	t = ls->n++ * (c->o->tick_ns ? c->o->tick_ns : 1);
	if (!ls->task) {
		rc = imp_task(c, ls->stream, t, ls->pid, ls->pid, ls->comm[0] ? ls->comm : "lackey",
			      &ls->task, &ls->mm);
		if (rc)
			return rc;
	}
	for (uint64_t vp = addr >> IMP_PAGE_SHIFT; vp <= (addr + size - 1) >> IMP_PAGE_SHIFT; vp++) {
		uint32_t page;

		rc = imp_page(c, ls->mm, vp, kind == 'I', &page);
		if (!rc)
			rc = imp_emit(c, ls->stream, t, MR_EV_ACCESS, page, ls->task,
				      MR_ACC_FLAGS(rwx, MR_SRC_SYNTH), 0, 0);
		if (rc)
			return rc;
	}
	return 0;
}

static int lackey_run(struct imp_ctx *c)
{
	struct lackey_state ls = { 0 };
	char *buf = NULL;
	size_t cap = 0;
	int rc = imp_stream(c, "lackey", &ls.stream);

	while (!rc && (rc = imp_getline(c, &buf, &cap)) > 0)
		rc = lackey_line(c, &ls, buf);
	free(buf);
	return rc;
}

const struct mr_importer_ops imp_lackey_ops = { .run = lackey_run };
