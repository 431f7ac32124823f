/*
 * util.c — errors, allocation that dies cleanly, number parsing, clocks.
 */
#if defined(__linux__) && !defined(_DEFAULT_SOURCE)
#define _DEFAULT_SOURCE /* madvise(MADV_HUGEPAGE): see xmalloc_big */
#endif
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "util.h"

static void (*fatal_hook)(void);

void util_set_fatal_hook(void (*hook)(void))
{
	fatal_hook = hook;
}

static void die_oom(size_t n)
{
	if (fatal_hook)
		fatal_hook();
	fprintf(stderr, "voidfit: out of memory (asked for %zu bytes)\n", n);
	exit(1);
}

void util_die_oom(const char *what)
{
	if (fatal_hook)
		fatal_hook();
	fprintf(stderr, "voidfit: out of memory (%s)\n", what);
	exit(1);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		die_oom(n);
	return p;
}

void *xmalloc_big(size_t n)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
	const size_t huge = (size_t)2 << 20;
	if (n >= huge / 2) {
		size_t r = (n + huge - 1) & ~(huge - 1);
		void *p = aligned_alloc(huge, r);
		if (p) {
			(void)madvise(p, r, MADV_HUGEPAGE); /* advice: refused, it costs nothing */
			return p;
		}
	}
#endif
	return xmalloc(n);
}

void heap_prefer_huge(size_t n)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
	const uintptr_t huge = (uintptr_t)2 << 20;
	char *p = malloc(n);
	if (!p)
		return;
	uintptr_t a = ((uintptr_t)p + huge - 1) & ~(huge - 1);
	uintptr_t z = ((uintptr_t)p + n) & ~(huge - 1);
	if (z > a)
		(void)madvise((void *)a, z - a, MADV_HUGEPAGE); /* advice: refused, no harm */
	free(p);
#else
	(void)n;
#endif
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		die_oom(n * size);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		die_oom(n);
	return q;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

void xgrow(void *pp, size_t *cap, size_t need, size_t sz)
{
	void **p = pp;
	if (need <= *cap)
		return;
	size_t c = *cap ? *cap : 16;
	while (c < need)
		c *= 2;
	*p = xrealloc(*p, c * sz);
	*cap = c;
}

void free_all(void *const *ps, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(ps[i]);
}

int err_set(struct err *e, int code, const char *fmt, ...)
{
	if (!e)
		return code;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof e->msg, fmt, ap);
	va_end(ap);
	e->code = code;
	return code;
}

int err_prefix(struct err *e, const char *fmt, ...)
{
	if (!e)
		return 0;
	char head[512];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(head, sizeof head, fmt, ap);
	va_end(ap);
	size_t hl = n < 0 ? 0 : (size_t)n >= sizeof head ? sizeof head - 1 : (size_t)n;
	size_t ol = strlen(e->msg);
	if (hl + ol >= sizeof e->msg)
		ol = sizeof e->msg - 1 - hl;
	memmove(e->msg + hl, e->msg, ol);
	memcpy(e->msg, head, hl);
	e->msg[hl + ol] = '\0';
	return e->code;
}

/* Does s start a number as written in a trace or on a command line: a digit, a sign or a
 * point? strtol and strtod would also skip leading blanks. */
static int starts_number(const char *s)
{
	return (*s >= '0' && *s <= '9') || *s == '-' || *s == '+' || *s == '.';
}

int parse_i64(const char *s, int64_t *out)
{
	char *end;
	if (!s || !starts_number(s) || *s == '.')
		return -1;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (errno || *end || end == s)
		return -1;
	*out = v;
	return 0;
}

int parse_u64(const char *s, uint64_t *out)
{
	char *end;
	if (!s || *s < '0' || *s > '9') /* strtoull would take "-1" as 2^64 - 1 */
		return -1;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

int parse_double(const char *s, double *out)
{
	char *end;
	if (!s || !starts_number(s))
		return -1;
	/* Only the characters of a decimal number: strtod also reads hex floats ("0x1p3"),
	 * "inf" and "nan", which no trace or option means. */
	if (s[strspn(s, "0123456789+-.eE")])
		return -1;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || *end || end == s || !isfinite(v))
		return -1;
	*out = v;
	return 0;
}

int64_t util_now(void)
{
	return (int64_t)time(NULL);
}

double util_mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

unsigned util_ncpu(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (unsigned)n : 1;
}
