// SPDX-License-Identifier: GPL-2.0
/*
 * overlap.c - setup work of a recording that runs beside the recorder's own
 * thread, so that the fixed cost of a recording (`record -- /bin/true`, docs/record.md
 * "memreplay bench record") is the longest of these paths, not their sum:
 *
 *   rec_job_start()/_wait()   run one function on a thread of its own, or inline where
 *                             no thread can be made
 *   rec_sched_key_open()      pay the kernel's perf_sched_events switch early (below)
 *
 * What runs beside what is chosen in record.c; nothing here changes what is recorded.
 */
#define _GNU_SOURCE
#include <linux/perf_event.h>

#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rec_int.h"

static void *job_main(void *arg)
{
	struct rec_job *j = arg;

	j->rc = j->fn(j->arg);
	return NULL;
}

void rec_job_start(struct rec_job *j, int (*fn)(void *), void *arg)
{
	j->fn = fn;
	j->arg = arg;
	j->rc = 0;
	j->threaded = pthread_create(&j->th, NULL, job_main, j) == 0;
	j->started = 1;
	if (!j->threaded) /* no thread to be had: the work is done all the same */
		j->rc = fn(arg);
}

int rec_job_wait(struct rec_job *j)
{
	if (!j->started)
		return 0;
	if (j->threaded)
		pthread_join(j->th, NULL);
	j->started = j->threaded = 0;
	return j->rc;
}

/*
 * The first perf event bound to a task while no other exists turns the scheduler's perf
 * hooks on and then waits for an RCU grace period, under perf_sched_mutex
 * (kernel/events/core.c: account_event(): static_branch_enable(&perf_sched_events);
 * synchronize_rcu()): 7-10 ms on the machines of docs/record.md, the largest single wait
 * of a recording's setup, and a sleep, not work. A disabled dummy event on the calling
 * thread is such an event; opened on a job thread at the very start of a recording it
 * takes that wait while the recorder reads tracefs and creates its store, and the
 * recorder's own first open then finds the hooks on (or waits on perf_sched_mutex for
 * the rest of the grace period only). The count it holds keeps them on until the
 * recorder's events are open; closing it after that changes nothing (the recorder's
 * events hold the count, and a count back at 0 is only acted on a second later,
 * perf_sched_delayed()).
 *
 * arg: an int * that receives the event's fd, or -1 when it did not open (perf not
 * allowed, seccomp): then the recorder pays the wait itself, as before. Returns 0.
 */
int rec_sched_key_open(void *arg)
{
	struct perf_event_attr a;
	int *fd = arg;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_DUMMY;
	a.disabled = 1;
	a.exclude_kernel = 1; /* allowed up to perf_event_paranoid 2 for one's own thread */
	a.exclude_hv = 1;
	*fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	return 0;
}
