/* test-fault.c — fault specs: the command-line form, durations, fault files. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fault.h"

static void test_parse_full_form(void **state)
{
	(void)state;
	struct fault f;
	struct err e = {0};
	assert_int_equal(fault_parse("node-17:sto=0.5@3600+6h", &f, &e), 0);
	assert_string_equal(f.target, "node-17");
	assert_int_equal(f.dim, DIM_STO);
	assert_true(f.fraction == 0.5);
	assert_int_equal(f.start, 3600);
	assert_int_equal(f.duration, 6 * 3600);
	assert_int_equal(fault_parse("A100:net=0@2d+90", &f, &e), 0);
	assert_int_equal(f.start, 2 * 86400);
	assert_int_equal(f.duration, 90);
	assert_true(f.fraction == 0);
	/* A target may hold a colon: the last one separates the dim. */
	assert_int_equal(fault_parse("rack:1:iocpu=1@15m+1s", &f, &e), 0);
	assert_string_equal(f.target, "rack:1");
	assert_int_equal(f.start, 900);
}

static void test_durations(void **state)
{
	(void)state;
	int64_t v;
	assert_int_equal(fault_parse_duration("90", &v), 0);
	assert_int_equal(v, 90);
	assert_int_equal(fault_parse_duration("15m", &v), 0);
	assert_int_equal(v, 900);
	assert_int_equal(fault_parse_duration("0s", &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(fault_parse_duration("", &v), -1);
	assert_int_equal(fault_parse_duration("h", &v), -1);
	assert_int_equal(fault_parse_duration("-5", &v), -1);
	assert_int_equal(fault_parse_duration("5x", &v), -1);
	assert_int_equal(fault_parse_duration("1.5h", &v), -1);
	assert_int_equal(fault_parse_duration("999999999999999999d", &v), -1);
}

static void test_parse_errors(void **state)
{
	(void)state;
	struct fault f;
	struct err e = {0};
	assert_int_equal(fault_parse("n1:gpu=0.5@0+1h", &f, &e), VF_EINPUT);
	assert_non_null(strstr(e.msg, "dim 'gpu' is hard"));
	assert_int_equal(fault_parse("n1:cpu=0.5@0+1h", &f, &e), VF_EINPUT);
	assert_int_equal(fault_parse("n1:disk=0.5@0+1h", &f, &e), VF_EINPUT);
	assert_non_null(strstr(e.msg, "unknown dim 'disk'"));
	assert_int_equal(fault_parse("n1:sto=1.5@0+1h", &f, &e), VF_EINPUT);
	assert_non_null(strstr(e.msg, "fraction '1.5'"));
	assert_int_equal(fault_parse("n1:sto=abc@0+1h", &f, &e), VF_EINPUT);
	assert_int_equal(fault_parse("n1:sto=0.5@x+1h", &f, &e), VF_EINPUT);
	assert_non_null(strstr(e.msg, "start 'x'"));
	assert_int_equal(fault_parse("n1:sto=0.5@0+0", &f, &e), VF_EINPUT);
	assert_non_null(strstr(e.msg, "positive"));
	assert_int_equal(fault_parse("n1:sto=0.5@0", &f, &e), VF_EINPUT);
	assert_int_equal(fault_parse("n1:dawn@0+1h", &f, &e), VF_EINPUT);
	assert_non_null(strstr(e.msg, "nor NODE:down@START+DURATION"));
	assert_int_equal(fault_parse("n1:down@0+0", &f, &e), VF_EINPUT);
	assert_non_null(strstr(e.msg, "positive"));
	assert_int_equal(fault_parse("n1:down=0.5@0+1h", &f, &e), VF_EINPUT);
	assert_int_equal(fault_parse(":sto=0.5@0+1", &f, &e), VF_EINPUT);
	assert_int_equal(fault_parse("sto=0.5@0+1", &f, &e), VF_EINPUT);
	assert_int_equal(e.code, VF_EINPUT);
	assert_int_equal(strncmp(e.msg, "'sto=0.5@0+1'", 13), 0); /* the failed thing first */
}

static void test_format_round_trip(void **state)
{
	(void)state;
	struct fault f, g;
	char buf[128];
	assert_int_equal(fault_parse("g1:net=0.25@1h+30m", &f, NULL), 0);
	fault_format(&f, buf, sizeof buf);
	assert_string_equal(buf, "g1:net=0.25@3600+1800");
	assert_int_equal(fault_parse(buf, &g, NULL), 0);
	assert_memory_equal(&f, &g, sizeof f);
	/* a node down */
	assert_int_equal(fault_parse("rack:7:down@2h+15m", &f, NULL), 0);
	assert_true(f.down);
	assert_string_equal(f.target, "rack:7");
	assert_int_equal(f.start, 7200);
	assert_int_equal(f.duration, 900);
	fault_format(&f, buf, sizeof buf);
	assert_string_equal(buf, "rack:7:down@7200+900");
	assert_int_equal(fault_parse(buf, &g, NULL), 0);
	assert_memory_equal(&f, &g, sizeof f);
}

static void test_text(void **state)
{
	(void)state;
	static const char ok[] = "# RAID rebuild\n\n  n1:sto=0.5@0+6h   # halves it\r\n"
				 "G2:net=0.1@10+10\n";
	struct fault *fs = NULL;
	size_t n = 0;
	struct err e = {0};
	assert_int_equal(fault_parse_text(ok, strlen(ok), "f.faults", &fs, &n, &e), 0);
	assert_int_equal(n, 2);
	assert_string_equal(fs[0].target, "n1");
	assert_int_equal(fs[0].duration, 6 * 3600);
	assert_string_equal(fs[1].target, "G2");
	assert_int_equal(fs[1].start, 10);
	/* A bad line: the error names the file and line, and what came before is kept. */
	static const char bad[] = "n2:sto=0.5@0+1\n# ok\nn3:hbm=0.5@0+1\n";
	assert_int_equal(fault_parse_text(bad, strlen(bad), "f.faults", &fs, &n, &e), VF_EINPUT);
	assert_int_equal(strncmp(e.msg, "f.faults:3: 'n3:hbm", 19), 0);
	assert_int_equal(n, 3);
	/* Two faults on a line, and a NUL byte, are errors too. */
	static const char two[] = "n2:sto=0.5@0+1 n3:sto=0.5@0+1\n";
	assert_int_equal(fault_parse_text(two, strlen(two), "g", &fs, &n, &e), VF_EINPUT);
	assert_non_null(strstr(e.msg, "g:1: one fault a line"));
	assert_int_equal(fault_parse_text("a\0b", 3, "z", &fs, &n, &e), VF_EINPUT);
	assert_non_null(strstr(e.msg, "NUL"));
	assert_int_equal(n, 3);
	free(fs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_full_form),
		cmocka_unit_test(test_durations),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_format_round_trip),
		cmocka_unit_test(test_text),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
