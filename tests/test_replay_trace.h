/* SPDX-License-Identifier: GPL-2.0 */
/*
 * test_replay_trace.h - what the replay tests (test_replay.c, test_reclaim.c) share:
 * hand-made traces written with the ordinary store writer (tb_*), and small helpers.
 */
#ifndef MR_TEST_REPLAY_TRACE_H
#define MR_TEST_REPLAY_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "mr_replay.h"

struct tb;
struct tb *tb_create(const char *path, unsigned nodes);
void tb_cgroup(struct tb *b, uint32_t id, const char *path);
void tb_mm(struct tb *b, uint32_t id);
void tb_task(struct tb *b, uint32_t id, uint32_t mm, uint32_t cgroup);
void tb_file(struct tb *b, uint32_t id, uint64_t npages);
void tb_vma(struct tb *b, uint32_t id, uint32_t mm, uint64_t start, uint64_t npages,
	    uint32_t flags, uint32_t file, uint64_t pgoff);
void tb_page_anon(struct tb *b, uint32_t id, uint32_t mm, uint64_t vpage, uint32_t cgroup,
		  int node);
void tb_page_file(struct tb *b, uint32_t id, uint32_t file, uint64_t index, uint32_t cgroup,
		  int exec);
void tb_marker(struct tb *b, uint32_t id, uint64_t t);
void tb_ev(struct tb *b, uint64_t time, unsigned kind, uint32_t page, uint32_t task,
	   unsigned flags, uint32_t size, uint64_t arg);
int tb_finish(struct tb *b);
/* tb_create() with one process: cgroup 1 "/test", mm 1, task 1, and an anon read-write
 * VMA 1 of npages at base, its pages 0..npages-1 (cgroup 1, node 0), mapped at t_map */
struct tb *tb_anon_process(const char *path, uint64_t base, uint32_t npages, uint64_t t_map);

/* name inside the test's temporary directory (16 rotating buffers) */
char *path_in(const char *name);
/* A generated trace NAME in the test's directory (seed 3, the generator's defaults but
 * the n/2 KEY, VALUE pairs of kv), written once and reused; NULL with a failed check. */
const char *gen_trace(const char *gen, const char *name, const char *const *kv, size_t n);
/* counter name of run (machine-wide); UINT64_MAX with a message when absent */
uint64_t ctr(const struct mr_replay *r, size_t run, const char *name);
/* first column of the first row of sql on database db; -1 with a message on failure */
int64_t sql_int(const char *db, const char *sql);
/* a and b exist, are not empty and hold the same bytes */
int same_file(const char *a, const char *b);

#endif
