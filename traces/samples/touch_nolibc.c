// SPDX-License-Identifier: GPL-2.0
/*
 * touch_nolibc.c - touch.c's pattern without libc (x86-64), so that a valgrind lackey
 * trace of it holds this program's own loads and stores and not the C library's start-up
 * (thousands of lines): 64 anonymous pages written once each, the first 16 read three
 * times, then each of those modified in place (one `incb`: lackey's M record). Build: gcc -O1 -static -nostdlib -fno-stack-protector -o touch_nolibc touch_nolibc.c
 */
#define NPAGES 64
#define PASSES 3

static long sys6(long nr, long a, long b, long c, long d, long e, long f)
{
	register long r10 __asm__("r10") = d, r8 __asm__("r8") = e, r9 __asm__("r9") = f;
	long ret;

	__asm__ volatile("syscall" : "=a"(ret) : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10),
			 "r"(r8), "r"(r9) : "rcx", "r11", "memory");
	return ret;
}

void _start(void) __attribute__((noreturn));
void _start(void)
{
	/* mmap(NULL, len, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0) */
	volatile char *p = (volatile char *)sys6(9, 0, NPAGES * 4096, 3, 0x22, -1, 0);
	unsigned long sum = 0;

	for (int i = 0; i < NPAGES; i++)
		p[i * 4096] = (char)i;
	for (int k = 0; k < PASSES; k++)
		for (int i = 0; i < NPAGES / 4; i++)
			sum += p[i * 4096];
	for (int i = 0; i < NPAGES / 4; i++)
		__asm__ volatile("incb %0" : "+m"(p[i * 4096]));
	sys6(60, (long)(sum & 1), 0, 0, 0, 0, 0); /* exit */
	__builtin_unreachable();
}
