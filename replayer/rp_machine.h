/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rp_machine.h - private to replayer/: one simulated machine driven by trace events, with
 * the policy it runs (semantics in mr_replay.h). Single-threaded: one machine is only
 * ever advanced by one thread at a time.
 */
#ifndef MR_RP_MACHINE_H
#define MR_RP_MACHINE_H

#include "mr_policy.h"
#include "mr_results.h"
#include "rp_int.h"

struct rp_machine;

/* What becomes of shadow entries once stored (--shadow; mr_replay.h MR_SHADOW_*). */
enum rp_shadow_mode { RP_SHADOW_KEEP = 0, RP_SHADOW_KERNEL = 1, RP_SHADOW_NONE = 2 };

struct rp_machine_opts {
	const struct mr_policy_ops *ops;
	const void *params;           /* parsed, ops->params_size bytes (copied) */
	const char *canon;            /* canonical spec */
	const uint64_t *memcg_limit;  /* [t->nr_memcgs] pages, 0 = unlimited */
	uint64_t global_limit;        /* pages over all memcgs, 0 = none */
	uint64_t swap_pages;          /* 0 = unlimited */
	int no_swap;                  /* no swap at all (swap_pages is then ignored) */
	uint64_t wb_delay_ns;         /* 0 = end of the reclaim invocation */
	uint64_t interval_ns;         /* time series step (> 0) */
	uint64_t snapshot_every_ns;   /* 0 = off */
	const struct rp_script *script;
	int check;
	int shadow;                   /* enum rp_shadow_mode (shadow.c, docs/replay.md) */
	uint32_t fault_around_pages;  /* read faults of file mappings map this many pages
				       * around (0 = the kernel's default, 16; 1 = off) */
	uint32_t vary_seed;           /* --vary: this run's seed, 0 = no variation */
	double vary_p;                /* its switch-in probability after a walk */
	uint32_t pte_den;             /* mr_machine.pte_den (0 = 1) */
	uint32_t sample_den;          /* a sampled replay's 1 in N (0 = in full): memcg
				       * charges keep the batch slack (machine.c, charge()) */
	uint64_t seg_events;          /* events the machine will see, for its segments'
				       * bounds; 0 = the trace's (a sampled replay sees
				       * fewer: replay.c estimates them) */
	const uint32_t *memcg_ids;    /* [t->nr_memcgs] */
	const char *const *memcg_paths;
	unsigned detail;              /* MR_DETAIL_* tables to count for (mr_detail.h) */
	const uint32_t *trace_pages;  /* pages whose history to keep, [ntrace_pages] */
	size_t ntrace_pages;
};

/* Size and initialise the machine and its policy (ops->init). */
int rp_machine_create(const struct rp_image *t, const struct rp_machine_opts *o,
		      struct rp_machine **out, struct mr_error *err);
/*
 * Node reclaim (--reclaim node): node_pages of memory split over the machine's nodes,
 * zone watermarks, kswapd and direct reclaim (machine.c). Call once after
 * rp_machine_create() (with no global limit), before any event. MR_ENOMEM.
 */
int rp_machine_set_node_reclaim(struct rp_machine *mach, uint64_t node_pages, struct mr_error *err);
void rp_machine_destroy(struct rp_machine *mach);
/* Does the policy want next-use positions (an access hook)? */
int rp_machine_wants_nextuse(const struct rp_machine *mach);
/* Replay n events in order. nu: next-use positions of their references (rp_event_refs),
 * or NULL when not wanted. 0, or negative with rp_machine_error() set (pool growth). */
int rp_machine_run(struct rp_machine *mach, const struct mr_event *ev, size_t n,
		   const uint64_t *nu);
/* After the last event: remaining script commands, final sample and snapshots. */
int rp_machine_finish(struct rp_machine *mach);
/* The run's results, pointing into memory the machine owns (valid until destroy). */
int rp_machine_result(struct rp_machine *mach, struct mr_run_result *r, struct mr_error *err);
const struct mr_error *rp_machine_error(const struct rp_machine *mach);
/* After finish: the time of the first sample the time series had no room for (script
 * commands long after the trace's end), from which on none was taken; 0 = none. */
uint64_t rp_machine_series_cut(const struct rp_machine *mach);
/* Accumulated worker time for this machine. */
void rp_machine_add_time(struct rp_machine *mach, double s);

#endif /* MR_RP_MACHINE_H */
