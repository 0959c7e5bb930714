// SPDX-License-Identifier: GPL-2.0
/*
 * gen_execbuild.c - seed 004's exec-text-heavy build under a memory limit.
 *
 * `tasks` compiler processes, `jobs` at a time, each mapping a large executable text
 * VM_EXEC - cc1 (half of text_size) and `libs` shared libraries (the other half) - and
 * executing a hot core of it (hot_ratio of every text file, the same pages in every
 * task) plus `cold_touches` random text pages. Between its text accesses each task
 * streams its share of `data_size` input through read() once (readahead, use-once
 * page cache), works in an anonymous scratch area, and writes an output file. Under a
 * limit, the hot text competes with the streaming data: seed 004 promotes mapped
 * executable file folios after their first use so the text stays resident.
 */
#include <stdio.h>
#include <stdlib.h>

#include "gen_priv.h"

enum { P_JOBS, P_TASKS, P_MAX, P_TEXT, P_LIBS, P_HOT, P_COLD, P_DATA, P_SCRATCH, P_NR };

static const struct mr_gen_param execbuild_params[P_NR] = {
	[P_JOBS] = { "jobs", MR_GP_COUNT, 1, 256, "8", "processes at a time" },
	[P_TASKS] = { "tasks", MR_GP_COUNT, 1, 100000, "100", "processes in total" },
	[P_MAX] = { "memory_max", MR_GP_PAGES, 0, 268435456, "256M",
		    "cgroup memory.max (0 = none)" },
	[P_TEXT] = { "text_size", MR_GP_PAGES, 16, 4194304, "64M",
		     "executable text: cc1 plus shared libraries" },
	[P_LIBS] = { "libs", MR_GP_COUNT, 0, 64, "6", "shared libraries sharing half the text" },
	[P_HOT] = { "hot_ratio", MR_GP_DOUBLE, 0, 1, "0.15",
		    "share of each text file every task executes" },
	[P_COLD] = { "cold_touches", MR_GP_COUNT, 0, 1000000, "200",
		     "random text page touches per task" },
	[P_DATA] = { "data_size", MR_GP_PAGES, 1, 16777216, "512M",
		     "input data read once, split over the tasks" },
	[P_SCRATCH] = { "scratch", MR_GP_PAGES, 1, 1048576, "2M", "anonymous scratch per task" },
};

#define EB_RA_PAGES 32
#define EB_CHUNK 8 /* pages per read() */
#define EB_MAX_TEXT 65

struct execbuild {
	const struct mr_gen_values *v;
	uint32_t cg, ntext;
	struct gen_file text[EB_MAX_TEXT];
	uint32_t *hot[EB_MAX_TEXT]; /* hot page list per text file */
	uint64_t nhot[EB_MAX_TEXT];
	struct gen_file *in, *out; /* per task */
	uint64_t text_pages;
};

static int eb_build(void *arg, struct gen_ctx *c, struct gen_proc *p, uint32_t k, uint32_t slot,
		    uint64_t t)
{
	struct execbuild *eb = arg;
	const struct mr_gen_values *v = eb->v;
	uint64_t ntasks = v->v[P_TASKS].u, data = v->v[P_DATA].u;
	uint64_t in_pages = data / ntasks + (k < data % ntasks), scratch = v->v[P_SCRATCH].u;
	uint64_t chunks, cold = v->v[P_COLD].u, cold_done = 0, sp = 0, hcur = 0, hfile = 0;
	uint32_t vt[EB_MAX_TEXT], vs;
	char path[96];
	int rc;

	gen_proc_reset(c, p, (int32_t)(20000 + k), (uint16_t)slot, eb->cg, "cc1plus", t);
	snprintf(path, sizeof(path), "/work/data/input%05u.dat", k);
	rc = gen_file_open(c, &eb->in[k], path, in_pages ? in_pages : 1, EB_RA_PAGES, eb->cg);
	if (rc)
		return rc;
	snprintf(path, sizeof(path), "/work/out/output%05u.o", k);
	rc = gen_file_open(c, &eb->out[k], path, eb->in[k].npages / 4 + 1, EB_RA_PAGES, eb->cg);
	if (rc)
		return rc;

	/* exec: map the text, run the hot core once (faults, in-fault read-around) */
	for (uint32_t i = 0, addr_gb = 0; i < eb->ntext; i++, addr_gb++) {
		uint64_t base = i ? 0x7f0000000000ull + ((uint64_t)addr_gb << 30) : 0x555555554000ull;

		rc = gen_proc_vma(c, p, base, eb->text[i].npages, MR_VMA_READ | MR_VMA_EXEC,
				  &eb->text[i], 0, 0, &vt[i]);
		if (rc)
			return rc;
	}
	rc = gen_proc_vma(c, p, 0x555556000000ull, scratch, MR_VMA_READ | MR_VMA_WRITE, NULL, 0,
			  0, &vs);
	if (rc)
		return rc;
	p->t += 300000;
	for (uint32_t i = 0; i < eb->ntext; i++) {
		for (uint64_t j = 0; j < eb->nhot[i]; j++) {
			rc = gen_proc_touch(c, p, vt[i], eb->hot[i][j], MR_ACC_EXEC);
			if (rc)
				return rc;
			p->t += 1000;
		}
	}

	/* stream the input; hot text, scratch and the odd cold text page in between */
	chunks = (eb->in[k].npages + EB_CHUNK - 1) / EB_CHUNK;
	for (uint64_t ch = 0; ch < chunks; ch++) {
		uint64_t off = ch * EB_CHUNK, rest = eb->in[k].npages - off;
		uint64_t cold_due = cold * (ch + 1) / chunks;

		rc = gen_proc_read(c, p, &eb->in[k], off,
				   (uint32_t)(rest < EB_CHUNK ? rest : EB_CHUNK));
		if (rc)
			return rc;
		p->t += 20000;
		for (int i = 0; i < 8; i++) { /* hot text, round robin over the files */
			while (hfile < eb->ntext && !eb->nhot[hfile])
				hfile++;
			if (hfile == eb->ntext) {
				hfile = 0;
				break;
			}
			rc = gen_proc_touch(c, p, vt[hfile], eb->hot[hfile][hcur], MR_ACC_EXEC);
			if (rc)
				return rc;
			p->t += 2000;
			if (++hcur == eb->nhot[hfile]) {
				hcur = 0;
				if (++hfile == eb->ntext)
					hfile = 0;
			}
		}
		for (int i = 0; i < 4; i++, sp = (sp + 1) % scratch) { /* one burst */
			rc = gen_proc_touch(c, p, vs, sp, MR_ACC_WRITE);
			if (rc)
				return rc;
		}
		p->t += 4000;
		for (; cold_done < cold_due; cold_done++) {
			uint64_t x = gen_rng_below(&c->rng, eb->text_pages);
			uint32_t i = 0;

			while (x >= eb->text[i].npages)
				x -= eb->text[i++].npages;
			rc = gen_proc_touch(c, p, vt[i], x, MR_ACC_EXEC);
			if (rc)
				return rc;
			p->t += 2000;
		}
	}

	for (uint64_t off = 0; off < eb->out[k].npages; off += EB_CHUNK) {
		uint64_t rest = eb->out[k].npages - off;

		rc = gen_proc_write(c, p, &eb->out[k], off,
				    (uint32_t)(rest < EB_CHUNK ? rest : EB_CHUNK));
		if (rc)
			return rc;
		p->t += 10000;
	}
	p->t += 10000;
	return gen_proc_exit(c, p);
}

static int execbuild_run(const struct mr_gen_values *v, struct mr_writer *w,
			 struct mr_error *err)
{
	uint64_t text = v->v[P_TEXT].u, libs = v->v[P_LIBS].u, ntasks = v->v[P_TASKS].u;
	struct execbuild eb = { .v = v, .text_pages = 0 };
	uint32_t *perm = NULL;
	char path[96];
	struct gen_ctx c;
	int rc;

	rc = gen_begin(&c, "execbuild", v, w, err, 1);
	if (rc)
		return rc;
	if (libs > text / 2)
		libs = text / 2;
	eb.ntext = (uint32_t)(1 + libs);
	eb.in = calloc(ntasks, sizeof(*eb.in));
	eb.out = calloc(ntasks, sizeof(*eb.out));
	perm = malloc(text * sizeof(*perm));
	if (!eb.in || !eb.out || !perm) {
		rc = gen_nomem(&c, "the build's files");
		goto out;
	}
	rc = gen_add_cgroup(&c, "/execbuild.slice", v->v[P_MAX].u, &eb.cg);
	if (rc)
		goto out;
	for (uint32_t i = 0; i < eb.ntext; i++) {
		uint64_t np = libs ? (i ? (text - text / 2) / libs + (i - 1 < (text - text / 2) % libs)
					: text / 2)
				   : text;

		if (i)
			snprintf(path, sizeof(path), "/usr/lib/x86_64-linux-gnu/libcc%u.so.1", i);
		else
			snprintf(path, sizeof(path), "/usr/lib/gcc/x86_64-linux-gnu/12/cc1plus");
		rc = gen_file_open(&c, &eb.text[i], path, np, EB_RA_PAGES, eb.cg);
		if (rc)
			goto out;
		eb.text[i].exec = 1;
		eb.text_pages += eb.text[i].npages;
		/* the hot core: a fixed random subset, in execution (random) order */
		eb.nhot[i] = (uint64_t)(v->v[P_HOT].d * (double)eb.text[i].npages);
		eb.hot[i] = malloc((eb.nhot[i] ? eb.nhot[i] : 1) * sizeof(uint32_t));
		if (!eb.hot[i]) {
			rc = gen_nomem(&c, "the hot text");
			goto out;
		}
		gen_shuffle_u32(perm, (uint32_t)eb.text[i].npages, &c.rng);
		for (uint64_t j = 0; j < eb.nhot[i]; j++)
			eb.hot[i][j] = perm[j];
	}
	rc = gen_run_procs(&c, (uint32_t)v->v[P_JOBS].u, (uint32_t)ntasks, 1000000, eb_build, &eb);
out:
	for (uint32_t i = 0; i < eb.ntext; i++) {
		gen_file_release(&eb.text[i]);
		free(eb.hot[i]);
	}
	for (uint64_t k = 0; eb.in && eb.out && k < ntasks; k++) {
		gen_file_release(&eb.in[k]);
		gen_file_release(&eb.out[k]);
	}
	free(eb.in);
	free(eb.out);
	free(perm);
	return rc;
}

const struct mr_gen mr_gen_execbuild = {
	.name = "execbuild",
	.help = "build with large executable text competing with streamed data",
	.models = "seed 004: promote mapped executable folios after first use",
	.params = execbuild_params,
	.nparams = P_NR,
	.run = execbuild_run,
};
