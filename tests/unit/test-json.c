/* test-json.c — the JSON writer and sbuf. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>

#include <cmocka.h>

#include "json.h"

static void test_compact(void **state)
{
	(void)state;
	struct sbuf b;
	struct json j;
	sbuf_init(&b);
	json_init(&j, &b, 0);
	json_obj(&j);
	json_key(&j, "policy");
	json_str(&j, "fgd \"x\"\n");
	json_key(&j, "v");
	json_arr(&j);
	json_num(&j, 0.1);
	json_num(&j, 3);
	json_num(&j, 3000);
	json_num(&j, -2.5e-7);
	json_num(&j, NAN);
	json_int(&j, -7);
	json_bool(&j, 1);
	json_end(&j);
	json_key(&j, "e");
	json_obj(&j);
	json_end(&j);
	json_end(&j);
	assert_string_equal(b.s,
			    "{\"policy\":\"fgd "
			    "\\\"x\\\"\\n\",\"v\":[0.1,3,3000,-2.5e-07,null,-7,true],\"e\":{}}");
	sbuf_release(&b);
}

static void test_pretty(void **state)
{
	(void)state;
	struct sbuf b = SBUF_INIT;
	struct json j;
	sbuf_init(&b);
	json_init(&j, &b, 1);
	json_arr(&j);
	json_obj(&j);
	json_key(&j, "a");
	json_int(&j, 1);
	json_end(&j);
	json_end(&j);
	assert_string_equal(b.s, "[\n  {\n    \"a\": 1\n  }\n]\n");
	sbuf_release(&b);
}

/* A key and its value in one call write what the two calls write. */
static void test_key_pairs(void **state)
{
	(void)state;
	struct sbuf b;
	struct json j;
	sbuf_init(&b);
	json_init(&j, &b, 1);
	json_obj(&j);
	json_key_str(&j, "s", "a");
	json_key_num(&j, "n", 0.5);
	json_key_int(&j, "i", -3);
	json_key_bool(&j, "b", 0);
	json_key_str(&j, "z", NULL);
	json_end(&j);
	assert_string_equal(b.s,
			    "{\n  \"s\": \"a\",\n  \"n\": 0.5,\n  \"i\": -3,\n  \"b\": false,\n"
			    "  \"z\": null\n}\n");
	sbuf_release(&b);
}

static void test_sbuf_grows(void **state)
{
	(void)state;
	struct sbuf b;
	sbuf_init(&b);
	assert_string_equal(b.s, "");
	for (int i = 0; i < 1000; i++)
		sbuf_printf(&b, "%03d", i % 1000);
	assert_int_equal(b.len, 3000);
	assert_memory_equal(b.s + 2997, "999", 4);
	sbuf_reset(&b);
	assert_int_equal(b.len, 0);
	assert_string_equal(b.s, "");
	sbuf_release(&b);
	sbuf_release(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_compact),
		cmocka_unit_test(test_pretty),
		cmocka_unit_test(test_key_pairs),
		cmocka_unit_test(test_sbuf_grows),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
