/*
 * util.h — errors, allocation and small helpers shared by every module.
 *
 * Three kinds of failure, never mixed: a bug is an assert; out of memory dies in xmalloc
 * (after running the fatal hook, so the dashboard can restore the terminal); everything
 * else returns an error code and fills a caller's struct err.
 */
#ifndef VOIDFIT_UTIL_H
#define VOIDFIT_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* Return codes of every fallible function: 0 on success, one of these otherwise. */
enum {
	VF_OK = 0,
	VF_EINPUT = 1, /* bad input: file, row, value, flag */
	VF_EIO = 2,    /* reading or writing failed */
	VF_ESTORE = 3, /* the store is busy, corrupt, or of another version */
	VF_EDUP = 4,   /* already there (a file imported twice) */
	VF_ESTOP = 5,  /* stopped on request (a signal) */
};

/* An error message filled by the function that failed. Messages are lowercase, with no
 * final period, the failed thing first ("trace.csv:12: ..."), then the cause. */
struct err {
	int code;       /* VF_E* of the failure, 0 when none */
	char msg[1024]; /* the message, "" when none */
};

/* Set e (if not NULL) to code and a printf-style message; returns code. */
int err_set(struct err *e, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Prefix e's message with a printf-style context ("import: "); returns e->code. */
int err_prefix(struct err *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Allocation that never returns NULL: on failure, runs the fatal hook, prints and exits 1. */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* n bytes (contents undefined; freed with free) for a large array: where the system gives
 * huge pages on request, arrays of 1 MiB and more ask for them, since the first touch of
 * each 4 KiB page is a page fault, a dear one in a virtual machine (~10 us), where a 2 MiB
 * page faults once. Never NULL, as xmalloc. */
void *xmalloc_big(size_t n);

/* The same for the heap as a whole, for a process that allocates and frees many mid-sized
 * buffers: n bytes are allocated, the 2 MiB pages inside them advised huge, and freed
 * again. Later allocations are carved from that memory, huge pages and all, as long as
 * the allocator keeps it (the caller has raised M_TRIM_THRESHOLD and M_MMAP_THRESHOLD
 * above n). Memory becomes resident only as it is touched, 2 MiB at a time. Advice only:
 * without huge pages nothing changes. */
void heap_prefer_huge(size_t n);
/* Grow *p (an array of *cap elements of size sz) so it holds at least need elements. */
void xgrow(void *pp, size_t *cap, size_t need, size_t sz);
/* free() each of the n pointers of ps (NULL ones too, as free does). */
void free_all(void *const *ps, size_t n);
/* free_all of the pointers listed, so a release reads as the list of what its struct owns:
 * FREE_ALL(p->name, p->rules, p). Every pointer is read before the first is freed. */
#define FREE_ALL(...)                                                                              \
	free_all((void *const[]){__VA_ARGS__},                                                     \
		 sizeof((void *const[]){__VA_ARGS__}) / sizeof(void *))
/* Out of memory in a library that allocates itself (what: "zstd context"): as xmalloc,
 * runs the fatal hook, prints and exits 1. */
void util_die_oom(const char *what) __attribute__((noreturn));
/* A function run before a fatal exit (the dashboard restores the terminal); NULL clears. */
void util_set_fatal_hook(void (*hook)(void));

/* Parse the whole of s as a decimal integer / number: 0 on success, -1 if s is not one or
 * overflows. A number starts with a digit, a sign or (parse_double) a point and holds
 * nothing else: no blanks, no hex ("0x10", "0x1p3"), no "inf" or "nan". */
int parse_i64(const char *s, int64_t *out);
int parse_double(const char *s, double *out);
/* The same for an unsigned 64-bit integer, 0..18446744073709551615 (a seed): digits only. */
int parse_u64(const char *s, uint64_t *out);

/* The order of a and b for a comparator (qsort's): -1, 0 or 1 as a is below, equal to or
 * above b; no subtraction, so no overflow at the ends of the range. */
static inline int util_cmp_i64(int64_t a, int64_t b)
{
	return (a > b) - (a < b);
}
static inline int util_cmp_double(double a, double b)
{
	return (a > b) - (a < b);
}

/* Seconds since the epoch, as an integer, and a monotonic clock in seconds. */
int64_t util_now(void);
double util_mono(void);
/* The number of CPUs online (at least 1). */
unsigned util_ncpu(void);

#endif
