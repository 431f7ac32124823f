/* test-evq.c — the event queue: order by (time, priority, sequence), clone, empty. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "evq.h"
#include "rng.h"

static void push(struct evq *q, int64_t t, int prio, int arg)
{
	struct evq_event e = {.time = t, .prio = (uint8_t)prio, .arg = arg};
	evq_push(q, &e);
}

static void test_empty(void **state)
{
	(void)state;
	struct evq q;
	struct evq_event e;
	evq_init(&q);
	assert_null(evq_peek(&q));
	assert_int_equal(evq_pop(&q, &e), 0);
	assert_int_equal(evq_len(&q), 0);
	evq_release(&q);
	evq_release(NULL);
}

static void test_time_then_priority_then_insertion(void **state)
{
	(void)state;
	struct evq q;
	struct evq_event e;
	evq_init(&q);
	push(&q, 10, 3, 0);
	push(&q, 5, 3, 1);
	push(&q, 10, 0, 2);
	push(&q, 10, 3, 3);
	push(&q, 5, 3, 4);
	push(&q, 10, 0, 5);
	int want[] = {1, 4, 2, 5, 0, 3};
	for (int i = 0; i < 6; i++) {
		assert_int_equal(evq_peek(&q)->arg, want[i]);
		assert_int_equal(evq_pop(&q, &e), 1);
		assert_int_equal(e.arg, want[i]);
	}
	assert_int_equal(evq_pop(&q, &e), 0);
	evq_release(&q);
}

static void test_random_against_sorted_order(void **state)
{
	(void)state;
	struct evq q;
	struct rng r;
	struct evq_event e, prev = {0};
	evq_init(&q);
	rng_seed(&r, 7);
	for (int i = 0; i < 5000; i++) {
		int64_t t = (int64_t)rng_below(&r, 100); /* one draw a statement */
		push(&q, t, (int)rng_below(&r, 4), i);
	}
	/* Interleave pops and pushes of later events: order must still hold. */
	for (int i = 0; i < 2000; i++) {
		assert_int_equal(evq_pop(&q, &e), 1);
		int64_t t = e.time + 1 + (int64_t)rng_below(&r, 50);
		push(&q, t, (int)rng_below(&r, 4), 9000 + i);
	}
	size_t n = 0;
	while (evq_pop(&q, &e)) {
		if (n++)
			assert_true(prev.time < e.time ||
				    (prev.time == e.time &&
				     (prev.prio < e.prio ||
				      (prev.prio == e.prio && prev.seq < e.seq))));
		prev = e;
	}
	assert_int_equal(n, 5000);
	evq_release(&q);
}

static void test_clone_is_independent(void **state)
{
	(void)state;
	struct evq q, c;
	struct evq_event e;
	evq_init(&q);
	push(&q, 3, 0, 1);
	push(&q, 1, 0, 2);
	evq_clone(&c, &q);
	assert_int_equal(c.seq, q.seq); /* later pushes get the same sequence numbers */
	assert_int_equal(evq_pop(&q, &e), 1);
	assert_int_equal(e.arg, 2);
	push(&c, 0, 0, 3);
	assert_int_equal(evq_len(&q), 1);
	assert_int_equal(evq_len(&c), 3);
	assert_int_equal(evq_pop(&c, &e), 1);
	assert_int_equal(e.arg, 3);
	evq_release(&q);
	evq_release(&c);
}

/* An event comes out with everything the simulator put in (but seq, which evq sets). */
static void test_payload_carried(void **state)
{
	(void)state;
	struct evq q;
	struct evq_event e, in = {.time = 7, .prio = 2, .kind = 5, .ver = 99, .arg = -3, .aux = 41};
	evq_init(&q);
	push(&q, 9, 0, 1);
	evq_push(&q, &in);
	assert_int_equal(evq_pop(&q, &e), 1);
	assert_int_equal(e.time, 7);
	assert_int_equal(e.prio, 2);
	assert_int_equal(e.kind, 5);
	assert_int_equal(e.ver, 99);
	assert_int_equal(e.arg, -3);
	assert_int_equal(e.aux, 41);
	assert_int_equal(e.seq, 1);
	evq_release(&q);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_time_then_priority_then_insertion),
		cmocka_unit_test(test_random_against_sorted_order),
		cmocka_unit_test(test_clone_is_independent),
		cmocka_unit_test(test_payload_carried),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
