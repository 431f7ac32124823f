/* test-job.c — job sets: reserving room keeps the jobs, huge-page arrays and heap, names. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "job.h"
#include "util.h"

static void add(struct job_set *s, int64_t id)
{
	struct job j;
	job_init(&j);
	j.id = id;
	j.arrival = 10 * id;
	job_set_add_job(s, &j);
}

static void test_reserve_keeps_jobs(void **state)
{
	(void)state;
	struct job_set s = {0};
	for (int64_t i = 0; i < 5; i++)
		add(&s, i);
	job_set_reserve(&s, 3); /* smaller than held: nothing changes */
	assert_int_equal(s.njobs, 5);
	assert_true(s.jobcap >= 5);
	job_set_reserve(&s, 100000);
	assert_int_equal(s.njobs, 5);
	assert_true(s.jobcap >= 100000);
	for (int64_t i = 0; i < 5; i++) {
		assert_int_equal(s.jobs[i].id, i);
		assert_int_equal(s.jobs[i].arrival, 10 * i);
		assert_int_equal(s.jobs[i].dem[DIM_CPU], -1);
	}
	/* adding within the reserved room does not move the array */
	const struct job *before = s.jobs;
	for (int64_t i = 5; i < 100000; i++)
		add(&s, i);
	assert_ptr_equal(s.jobs, before);
	assert_int_equal(s.jobs[99999].id, 99999);
	job_set_release(&s);
	assert_null(s.jobs);
	assert_int_equal(s.njobs, 0);
	job_set_release(NULL);
}

static void test_reserve_empty_set(void **state)
{
	(void)state;
	struct job_set s = {0};
	job_set_reserve(&s, 0);
	assert_int_equal(s.njobs, 0);
	job_set_reserve(&s, 1);
	assert_true(s.jobcap >= 1);
	add(&s, 7);
	assert_int_equal(s.jobs[0].id, 7);
	job_set_release(&s);
}

static void test_array_alloc_sizes(void **state)
{
	(void)state;
	/* small (plain malloc), zero, and large (huge-page aligned where offered): all usable
	 * to their last byte and freed with free */
	size_t sizes[] = {0, 1, 4096, (size_t)1 << 20, ((size_t)5 << 20) + 3};
	for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
		unsigned char *p = xmalloc_big(sizes[k]);
		assert_non_null(p);
		if (sizes[k]) {
			memset(p, 0xab, sizes[k]);
			assert_int_equal(p[sizes[k] - 1], 0xab);
		}
		free(p);
	}
}

/* Whether the mapping that holds address a is advised huge ("hg" in its VmFlags); -1 when
 * the system cannot say (no /proc/self/smaps, or transparent huge pages off). */
static int advised_huge(uintptr_t a)
{
	char line[512];
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
	int on = f && fgets(line, sizeof line, f) && !strstr(line, "[never]");
	if (f)
		fclose(f);
	if (!on || !(f = fopen("/proc/self/smaps", "r")))
		return -1;
	int in = 0, r = -1;
	while (r < 0 && fgets(line, sizeof line, f)) {
		unsigned long lo, hi;
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2)
			in = a >= lo && a < hi;
		else if (in && !strncmp(line, "VmFlags:", 8))
			r = strstr(line, " hg") != NULL;
	}
	fclose(f);
	return r;
}

static void test_heap_prefer_huge(void **state)
{
	(void)state;
#if defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__) /* ASan has its own heap */
	const size_t mb = (size_t)1 << 20;
	mallopt(M_TRIM_THRESHOLD, 32 << 20); /* as the import sets them */
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	/* heap memory as it comes without the advice, kept while the rest is asked */
	char *plain = malloc(8 * mb);
	assert_non_null(plain);
	int was = advised_huge(((uintptr_t)plain + 2 * mb) & ~(2 * mb - 1));
	heap_prefer_huge(24 * mb);
	char *p = malloc(8 * mb); /* comes from the memory just advised */
	assert_non_null(p);
	memset(p, 1, 8 * mb);
	int now = advised_huge(((uintptr_t)p + 2 * mb) & ~(2 * mb - 1));
	free(p);
	free(plain);
	if (was != 0) {
		print_message("skipped: %s\n", was < 0 ? "no transparent huge pages here"
						       : "the heap is advised huge already");
		return;
	}
	assert_int_equal(now, 1);
#endif
}

static void test_dims_parse(void **state)
{
	(void)state;
	uint32_t m = 0;
	assert_int_equal(job_dims_parse("cpu,gpu", &m), 0);
	assert_int_equal(m, DIM_BIT(DIM_CPU) | DIM_BIT(DIM_GPU));
	assert_int_equal(job_dims_parse("hard,net", &m), 0);
	assert_int_equal(m, DIMS_HARD | DIM_BIT(DIM_NET));
	assert_int_equal(job_dims_parse("all", &m), 0);
	assert_int_equal(m, DIMS_ALL);
	m = 5;
	assert_int_equal(job_dims_parse("cpu,disk", &m), -1);
	assert_int_equal(m, 5); /* untouched on failure */
	assert_int_equal(job_dims_parse("", &m), -1);
	assert_int_equal(job_dims_parse(NULL, &m), -1);
	assert_int_equal(job_dim_find("iocpu"), DIM_IOCPU);
	assert_int_equal(job_dim_find("gpus"), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_heap_prefer_huge), /* first: before xmalloc_big's advice */
		cmocka_unit_test(test_reserve_keeps_jobs), cmocka_unit_test(test_reserve_empty_set),
		cmocka_unit_test(test_array_alloc_sizes),  cmocka_unit_test(test_dims_parse),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
