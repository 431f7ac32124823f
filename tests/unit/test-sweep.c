/* test-sweep.c — sweep targets (ranges without drift, the decimals given), the task count,
 * what-if lines, and which paths are task stores of a sweep. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "sweep.h"

static void test_targets(void **state)
{
	(void)state;
	struct sweep w;
	struct err e = {0};
	sweep_init(&w);
	/* 17 targets; 0.5 + 3 * 0.05 is 0.65000000000000002 as a double: written as given */
	assert_int_equal(sweep_add_targets(&w, "0.5..1.3/0.05", &e), 0);
	assert_int_equal(w.ntargets, 17);
	assert_string_equal(w.targets[0], "0.50");
	assert_string_equal(w.targets[3], "0.65");
	assert_string_equal(w.targets[16], "1.30");
	assert_int_equal(sweep_add_targets(&w, "1.5,2", &e), 0);
	assert_int_equal(w.ntargets, 19);
	assert_string_equal(w.targets[17], "1.5");
	assert_string_equal(w.targets[18], "2");
	/* 0.1 steps do not lose the last one to rounding (0.1 * 3 > 0.3) */
	assert_int_equal(sweep_add_targets(&w, "0.1..0.3/0.1", &e), 0);
	assert_int_equal(w.ntargets, 22);
	assert_string_equal(w.targets[21], "0.3");
	w.lo = 1;
	w.hi = 10;
	assert_int_equal(sweep_ntasks(&w), 220);
	sweep_release(&w);

	sweep_init(&w);
	assert_int_equal(sweep_add_targets(&w, "0.5,x", &e), VF_EINPUT);
	assert_string_equal(e.msg, "'x': not a number > 0");
	assert_int_equal(sweep_add_targets(&w, "1..0.5/0.1", &e), VF_EINPUT);
	assert_int_equal(sweep_add_targets(&w, "0.5..1/0", &e), VF_EINPUT);
	assert_int_equal(sweep_add_targets(&w, "0.5/0.1..1", &e), VF_EINPUT);
	assert_int_equal(sweep_add_targets(&w, "", &e), VF_EINPUT);
	assert_int_equal(sweep_add_targets(&w, "0.001..100/0.001", &e), VF_EINPUT);
	assert_string_equal(e.msg, "'0.001..100/0.001': more than 10000 targets");
	sweep_release(&w);
	sweep_release(NULL);
}

static void test_whatif(void **state)
{
	(void)state;
	struct sweep w;
	struct err e = {0};
	FILE *f = fopen("wi.txt", "w");
	assert_non_null(f);
	fputs("# variations\n--io-pressure 2\n\n  --fault n1:sto=0.5@0+6h  # half\n", f);
	fclose(f);
	sweep_init(&w);
	assert_int_equal(sweep_add_whatif(&w, "wi.txt", &e), 0);
	assert_int_equal(w.nwi, 2);
	assert_int_equal(w.wi[0].n, 2);
	assert_string_equal(w.wi[0].words[1], "2");
	assert_string_equal(w.wi[0].where, "wi.txt:2");
	assert_int_equal(w.wi[1].n, 2);
	assert_string_equal(w.wi[1].words[1], "n1:sto=0.5@0+6h");
	assert_string_equal(w.wi[1].where, "wi.txt:4");
	w.hi = 3;
	assert_int_equal(sweep_ntasks(&w), 6);
	f = fopen("empty.txt", "w");
	assert_non_null(f);
	fputs("# nothing\n\n", f);
	fclose(f);
	assert_int_equal(sweep_add_whatif(&w, "empty.txt", &e), VF_EINPUT);
	assert_string_equal(e.msg, "empty.txt: no what-if line");
	assert_int_equal(sweep_add_whatif(&w, "nosuch.txt", &e), VF_EIO);
	sweep_release(&w);
	unlink("wi.txt");
	unlink("empty.txt");
}

static void test_task_of(void **state)
{
	(void)state;
	struct sbuf dir = SBUF_INIT;
	size_t n = 0;
	sbuf_init(&dir);
	assert_int_equal(mkdir("sw", 0777) || mkdir("sw/runs", 0777), 0);
	FILE *f = fopen("sw/tasks", "w");
	assert_non_null(f);
	fclose(f);
	assert_int_equal(sweep_task_of("sw/runs/17.db", &dir, &n), 1);
	assert_string_equal(dir.s, "sw");
	assert_int_equal(n, 17);
	assert_int_equal(chdir("sw"), 0);
	assert_int_equal(sweep_task_of("runs/3.db", &dir, &n), 1);
	assert_string_equal(dir.s, ".");
	assert_int_equal(n, 3);
	assert_int_equal(chdir(".."), 0);
	/* not a task store of a sweep */
	assert_int_equal(sweep_task_of("sw/runs/17.db.part", &dir, &n), 0);
	assert_int_equal(sweep_task_of("sw/runs/017.db", &dir, &n), 0);
	assert_int_equal(sweep_task_of("sw/runs/x.db", &dir, &n), 0);
	assert_int_equal(sweep_task_of("sw/17.db", &dir, &n), 0);
	assert_int_equal(sweep_task_of("other/runs/1.db", &dir, &n), 0);
	unlink("sw/tasks");
	rmdir("sw/runs");
	rmdir("sw");
	sbuf_release(&dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_targets),
		cmocka_unit_test(test_whatif),
		cmocka_unit_test(test_task_of),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
