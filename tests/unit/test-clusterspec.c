/* test-clusterspec.c — cluster-spec files: nodes, names, capacities, file:line errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "clusterspec.h"
#include "gpumodel.h"

static int parse(const char *text, struct job_set *s, struct err *e)
{
	return clusterspec_parse(text, strlen(text), "c.spec", s, e);
}

static void test_groups(void **state)
{
	(void)state;
	struct job_set s = {0};
	struct err e = {0};
	const char *text = "# group count model gpus ...\n"
			   "h100 3 H100 8 cpu=192000 mem=2097152 net=50000 sto=8000 iocpu=16000\n"
			   "\n"
			   "cpu-only 2 - 0 cpu=96000   # a comment\r\n"
			   "t4 1 t4 2 hbm=15000\n";
	assert_int_equal(parse(text, &s, &e), 0);
	assert_int_equal(s.nnodes, 6);
	const struct node *n = &s.nodes[0];
	assert_string_equal(n->name, "h100-0000");
	assert_string_equal(s.nodes[2].name, "h100-0002");
	assert_string_equal(n->group, "h100");
	assert_int_equal(n->model, gpumodel_find("H100"));
	assert_int_equal(n->ngpu, 8);
	assert_int_equal(n->cap[DIM_CPU], 192000);
	assert_int_equal(n->cap[DIM_MEM], 2097152);
	assert_int_equal(n->cap[DIM_GPU], 8000);
	assert_int_equal(n->cap[DIM_HBM], 8 * 81920);
	assert_int_equal(n->cap[DIM_NET], 50000);
	assert_int_equal(n->cap[DIM_STO], 8000);
	assert_int_equal(n->cap[DIM_IOCPU], 16000);
	n = &s.nodes[3];
	assert_string_equal(n->name, "cpu-only-0000");
	assert_int_equal(n->model, -1);
	assert_int_equal(n->ngpu, 0);
	assert_int_equal(n->cap[DIM_CPU], 96000);
	assert_int_equal(n->cap[DIM_MEM], -1); /* left for enrichment */
	assert_int_equal(n->cap[DIM_NET], -1);
	assert_int_equal(n->cap[DIM_GPU], 0);
	assert_int_equal(n->cap[DIM_HBM], 0);
	n = &s.nodes[5];
	assert_string_equal(n->name, "t4-0000");
	assert_int_equal(n->cap[DIM_HBM], 2 * 15000);
	assert_int_equal(n->enriched, 0);
	assert_string_equal(n->rack, ""); /* no rack= */
	job_set_release(&s);
}

static void expect_error(const char *text, const char *msg);

/* rack=K: the group's nodes under switches of K nodes each, in order. */
static void test_racks(void **state)
{
	(void)state;
	struct job_set s = {0};
	struct err e = {0};
	assert_int_equal(parse("a100 5 A100 8 rack=2\nt4 1 T4 1\n", &s, &e), 0);
	assert_int_equal(s.nnodes, 6);
	const char *want[] = {"a100-r000", "a100-r000", "a100-r001", "a100-r001", "a100-r002", ""};
	for (int i = 0; i < 6; i++)
		assert_string_equal(s.nodes[i].rack, want[i]);
	job_set_release(&s);
	expect_error("a 2 T4 1 rack=0\n", "c.spec:1: rack '0' is not an integer in 1..100000");
	expect_error("a 2 T4 1 rack=1 rack=2\n", "c.spec:1: rack is given twice");
}

static void test_appends(void **state)
{
	(void)state;
	struct job_set s = {0};
	struct err e = {0};
	assert_int_equal(parse("a 1 T4 1\n", &s, &e), 0);
	/* A second spec may reuse a group name of an earlier one; names stay as written. */
	assert_int_equal(parse("b 10001 - 0\n", &s, &e), 0);
	assert_int_equal(s.nnodes, 10002);
	assert_string_equal(s.nodes[10001].name, "b-10000");
	job_set_release(&s);
}

static void expect_error(const char *text, const char *msg)
{
	struct job_set s = {0};
	struct err e = {0};
	struct node keep;
	node_init(&keep);
	job_set_add_node(&s, &keep);
	assert_int_equal(parse(text, &s, &e), VF_EINPUT);
	assert_string_equal(e.msg, msg);
	assert_int_equal(s.nnodes, 1); /* untouched on failure */
	job_set_release(&s);
}

static void test_errors(void **state)
{
	(void)state;
	expect_error("a 1 T4\n", "c.spec:1: want 'GROUP COUNT MODEL GPUS [DIM=VALUE...]'");
	expect_error("a 2 T4 1\n\na 1 T4 1\n", "c.spec:3: group 'a' is defined twice");
	expect_error("a/b 1 T4 1\n", "c.spec:1: group 'a/b': want 1-23 of A-Z a-z 0-9 _ . -");
	expect_error(
		"abcdefghijklmnopqrstuvwxyz 1 T4 1\n",
		"c.spec:1: group 'abcdefghijklmnopqrstuvwxyz': want 1-23 of A-Z a-z 0-9 _ . -");
	expect_error("a 0 T4 1\n", "c.spec:1: count '0' is not an integer in 1..100000");
	expect_error("a x T4 1\n", "c.spec:1: count 'x' is not an integer in 1..100000");
	expect_error("a 1 B300 8\n", "c.spec:1: model 'B300' is not a known GPU model (or '-')");
	expect_error("a 1 T4 33\n", "c.spec:1: gpus '33' is not an integer in 0..32");
	expect_error("a 1 T4 0\n", "c.spec:1: a GPU model needs GPUS above 0 (or model '-')");
	expect_error("a 1 - 2\n", "c.spec:1: nodes without a GPU model ('-') have 0 GPUs");
	expect_error("a 1 T4 1 cpu=4 cpu=5\n", "c.spec:1: cpu is given twice");
	expect_error("a 1 T4 1 gpu=4\n",
		     "c.spec:1: 'gpu=4': want cpu=, mem=, hbm=, net=, sto=, iocpu= or rack=");
	expect_error("a 1 T4 1 cpu\n",
		     "c.spec:1: 'cpu': want cpu=, mem=, hbm=, net=, sto=, iocpu= or rack=");
	expect_error("a 1 T4 1 net=-1\n", "c.spec:1: net '-1' is not an integer >= 0");
	expect_error("a 1 - 0 hbm=5\n", "c.spec:1: hbm= on nodes without GPUs");
	expect_error("# only comments\n\n", "c.spec: no node groups");
	/* a two-line spec of 10^9 nodes, then of 1.6 x 10^5: refused before a node is made */
	expect_error("a 1000000000 T4 1\n", "c.spec:1: count '1000000000' is not an integer in "
					    "1..100000");
	expect_error("a 80000 T4 1\nb 80000 T4 1\n",
		     "c.spec:2: more than 100000 nodes in the spec (memory grows with them)");
	expect_error("a 1 T4 1\nb 2 T4 1 net=1.5\n", "c.spec:2: net '1.5' is not an integer >= 0");
}

static void test_load(void **state)
{
	(void)state;
	struct job_set s = {0};
	struct err e = {0};
	assert_int_equal(clusterspec_load("no-such.spec", &s, &e), VF_EIO);
	assert_non_null(strstr(e.msg, "no-such.spec: "));
	FILE *f = fopen("t.spec", "w");
	assert_non_null(f);
	fputs("g 2 A100 8\nbad\n", f);
	fclose(f);
	assert_int_equal(clusterspec_load("t.spec", &s, &e), VF_EINPUT);
	assert_string_equal(e.msg, "t.spec:2: want 'GROUP COUNT MODEL GPUS [DIM=VALUE...]'");
	assert_int_equal(s.nnodes, 0);
	f = fopen("t.spec", "w");
	fputs("g 2 A100 8\n", f);
	fclose(f);
	assert_int_equal(clusterspec_load("t.spec", &s, &e), 0);
	assert_int_equal(s.nnodes, 2);
	assert_int_equal(s.nodes[1].cap[DIM_HBM], 8 * 40960);
	job_set_release(&s);
	remove("t.spec");
}

/* The bundled example (traces/cluster-example.spec) loads: 16 + 32 + 48 + 8 nodes. */
static void test_bundled_example(void **state)
{
	(void)state;
	const char *top = getenv("VOIDFIT_TOP");
	if (!top || !*top)
		skip();
	char path[4096];
	snprintf(path, sizeof path, "%s/traces/cluster-example.spec", top);
	struct job_set s = {0};
	struct err e = {0};
	assert_int_equal(clusterspec_load(path, &s, &e), 0);
	assert_int_equal(s.nnodes, 104);
	assert_string_equal(s.nodes[0].name, "h100-0000");
	assert_string_equal(s.nodes[103].name, "cpu-0007");
	assert_int_equal(s.nodes[60].cap[DIM_NET], -1); /* a t4 node: left for enrichment */
	job_set_release(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_groups),  cmocka_unit_test(test_racks),
		cmocka_unit_test(test_appends), cmocka_unit_test(test_errors),
		cmocka_unit_test(test_load),    cmocka_unit_test(test_bundled_example),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
