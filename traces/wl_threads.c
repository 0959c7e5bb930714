// SPDX-License-Identifier: GPL-2.0
/*
 * wl_threads.c - test workload: two threads and one forked child each touch K pages of
 * their own anonymous region. Writes one line per toucher to OUT: "tid base k".
 *   wl_threads K OUT
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

static unsigned long k, psize;

struct job {
	char *base;
	int tid;
};

static void touch(struct job *j)
{
	j->tid = gettid();
	for (unsigned long i = 0; i < k; i++)
		((volatile char *)j->base)[i * psize] = 1;
}

static void *thread_main(void *arg)
{
	touch(arg);
	return NULL;
}

static char *region(void)
{
	char *p = mmap(NULL, k * psize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);

	if (p == MAP_FAILED)
		exit(1);
	madvise(p, k * psize, MADV_NOHUGEPAGE);
	return p;
}

int main(int argc, char **argv)
{
	struct job j[3];
	pthread_t th[2];
	int pfd[2], status;
	pid_t child;
	FILE *f;

	if (argc < 3)
		return 2;
	k = strtoul(argv[1], NULL, 0);
	psize = (unsigned long)sysconf(_SC_PAGESIZE);
	for (int i = 0; i < 3; i++)
		j[i].base = region();
	for (int i = 0; i < 2; i++)
		if (pthread_create(&th[i], NULL, thread_main, &j[i]))
			return 1;
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	if (pipe(pfd))
		return 1;
	child = fork();
	if (child == 0) {
		touch(&j[2]);
		if (write(pfd[1], &j[2].tid, sizeof(int)) != sizeof(int))
			_exit(1);
		_exit(0);
	}
	if (read(pfd[0], &j[2].tid, sizeof(int)) != sizeof(int))
		return 1;
	waitpid(child, &status, 0);
	f = fopen(argv[2], "w");
	if (!f)
		return 1;
	for (int i = 0; i < 3; i++)
		fprintf(f, "%d %lx %lu\n", j[i].tid, (unsigned long)j[i].base, k);
	return fclose(f) ? 1 : 0;
}
