/* test-enrich.c — enrichment profiles: parsing and its errors, filling only what is missing,
 * determinism by (profile, seed, id), io_pressure, node capacities, the summary line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "enrich.h"
#include "gpumodel.h"

static int setup_builtin(void **state)
{
	struct enrich_profile *p = NULL;
	struct err e = {0};
	if (enrich_load(NULL, &p, &e))
		return -1;
	*state = p;
	return 0;
}

static int teardown_profile(void **state)
{
	enrich_free(*state);
	return 0;
}

static struct job mkjob(int64_t id, enum job_class c, int ngpu, int milli)
{
	struct job j;
	job_init(&j);
	j.id = id;
	j.cls = (uint8_t)c;
	j.num_gpu = ngpu;
	j.gpu_milli = milli;
	return j;
}

static struct node mknode(const char *name, const char *model, int ngpu)
{
	struct node n;
	node_init(&n);
	snprintf(n.name, sizeof n.name, "%s", name);
	n.model = (int16_t)(model ? gpumodel_find(model) : -1);
	n.ngpu = ngpu;
	return n;
}

/* Parse text; on failure return NULL and leave the message in e. */
static struct enrich_profile *parse(const char *text, struct err *e)
{
	struct enrich_profile *p = NULL;
	int rc = enrich_parse(text, strlen(text), "t.profile", &p, e);
	assert_int_equal(rc == 0, p != NULL);
	return p;
}

#define COVER                                                                                      \
	"name t\nversion 3\n"                                                                      \
	"job * net fixed value=10\njob * sto fixed value=20\njob * iocpu fixed value=30\n"         \
	"node * net fixed value=1000\nnode * sto fixed value=2000\n"                               \
	"node * iocpu fixed value=3000\nnode * cpu fixed value=4000\n"                             \
	"node * mem fixed value=5000\n"

static void test_builtin_identity(void **state)
{
	const struct enrich_profile *p = *state;
	assert_string_equal(enrich_name(p), "default");
	assert_int_equal(enrich_version(p), 2);
	assert_non_null(strstr(enrich_text(p), "job train"));
}

static void test_fills_only_missing(void **state)
{
	const struct enrich_profile *p = *state;
	struct job_set s = {0};
	struct job j = mkjob(0, JOB_TRAIN, 2, 1000);
	j.dem[DIM_CPU] = 4000;
	j.dem[DIM_STO] = 0; /* recorded zero stays zero */
	job_set_add_job(&s, &j);
	struct node n = mknode("n0", "T4", 2);
	n.cap[DIM_CPU] = 64000;
	n.cap[DIM_NET] = 777;
	job_set_add_node(&s, &n);
	enrich_apply(p, 1, 1.0, &s);
	const struct job *o = &s.jobs[0];
	assert_int_equal(o->dem[DIM_CPU], 4000);
	assert_int_equal(o->dem[DIM_MEM], 2 * 4096); /* the default: 4 GiB per GPU, fixed */
	assert_int_equal(o->dem[DIM_STO], 0);
	assert_true(o->dem[DIM_NET] > 0);
	assert_true(o->dem[DIM_IOCPU] > 0);
	assert_int_equal(o->enriched, DIM_BIT(DIM_MEM) | DIM_BIT(DIM_NET) | DIM_BIT(DIM_IOCPU));
	const struct node *m = &s.nodes[0];
	assert_int_equal(m->cap[DIM_CPU], 64000);
	assert_int_equal(m->cap[DIM_NET], 777);
	assert_int_equal(m->cap[DIM_GPU], 2000);
	assert_int_equal(m->cap[DIM_HBM], 2 * 16384);
	assert_int_equal(m->cap[DIM_STO], 2000); /* '*' rule of the default */
	assert_int_equal(m->cap[DIM_MEM], 393216);
	assert_int_equal(m->enriched, DIM_BIT(DIM_MEM) | DIM_BIT(DIM_GPU) | DIM_BIT(DIM_HBM) |
					      DIM_BIT(DIM_STO) | DIM_BIT(DIM_IOCPU));
	job_set_release(&s);
}

static void test_node_rule_specificity(void **state)
{
	const struct enrich_profile *p = *state;
	struct job_set s = {0};
	struct node n[] = {mknode("a", "H100", 8), mknode("b", "V100M32", 8), mknode("c", NULL, 0),
			   mknode("d", "G3", 8), mknode("e", "B200?", 4)};
	for (size_t i = 0; i < 5; i++)
		job_set_add_node(&s, &n[i]);
	enrich_apply(p, 9, 1.0, &s);
	assert_int_equal(s.nodes[0].cap[DIM_NET], 25000); /* model rule */
	assert_int_equal(s.nodes[0].cap[DIM_HBM], 8 * 81920);
	assert_int_equal(s.nodes[1].cap[DIM_STO], 3000); /* model list rule */
	assert_int_equal(s.nodes[1].cap[DIM_NET], 3125); /* '*' */
	assert_int_equal(s.nodes[2].cap[DIM_STO], 1000); /* cpu kind */
	assert_int_equal(s.nodes[2].cap[DIM_GPU], 0);
	assert_int_equal(s.nodes[2].cap[DIM_HBM], 0);
	assert_int_equal(s.nodes[3].cap[DIM_CPU], 128000);
	/* An unknown model (-1 with GPUs) takes the UNKNOWN row's HBM. */
	assert_int_equal(s.nodes[4].cap[DIM_HBM], 4 * gpumodel_get(gpumodel_unknown())->hbm_mib);
	job_set_release(&s);
}

/* Values depend on (profile, seed, id), not on row order or the other jobs. */
static void test_order_independent(void **state)
{
	const struct enrich_profile *p = *state;
	struct job_set a = {0}, b = {0};
	for (int i = 0; i < 50; i++) {
		struct job j = mkjob(i, (enum job_class)(i % JOB_NCLASS), i % 3, 1000);
		job_set_add_job(&a, &j);
	}
	for (int i = 49; i >= 0; i -= 2) { /* reversed, half of them */
		struct job j = mkjob(i, (enum job_class)(i % JOB_NCLASS), i % 3, 1000);
		job_set_add_job(&b, &j);
	}
	enrich_apply(p, 42, 1.0, &a);
	enrich_apply(p, 42, 1.0, &b);
	for (size_t k = 0; k < b.njobs; k++) {
		const struct job *x = &b.jobs[k], *y = &a.jobs[x->id];
		assert_memory_equal(x->dem, y->dem, sizeof x->dem);
	}
	job_set_release(&a);
	job_set_release(&b);
}

static void test_seed_changes_values(void **state)
{
	const struct enrich_profile *p = *state;
	struct job_set a = {0}, b = {0};
	for (int i = 0; i < 100; i++) {
		struct job j = mkjob(i, JOB_TRAIN, 1, 1000);
		job_set_add_job(&a, &j);
		job_set_add_job(&b, &j);
	}
	enrich_apply(p, 1, 1.0, &a);
	enrich_apply(p, 2, 1.0, &b);
	/* on request levels one dim often agrees; the three rarely do */
	int same = 0;
	for (int i = 0; i < 100; i++)
		same += !memcmp(&a.jobs[i].dem[DIM_NET], &b.jobs[i].dem[DIM_NET],
				3 * sizeof a.jobs[i].dem[0]);
	assert_true(same < 25);
	job_set_release(&a);
	job_set_release(&b);
}

/* Lognormal median and clamps: 4001 training jobs on one whole GPU each. */
static void test_lognormal_median_and_clamp(void **state)
{
	const struct enrich_profile *p = *state;
	struct job_set s = {0};
	enum { N = 4001 };
	for (int i = 0; i < N; i++) {
		struct job j = mkjob(i, JOB_TRAIN, 1, 1000);
		job_set_add_job(&s, &j);
	}
	enrich_apply(p, 7, 1.0, &s);
	int below = 0;
	for (int i = 0; i < N; i++) {
		int64_t v = s.jobs[i].dem[DIM_STO];
		assert_true(v >= 10 && v <= 2000); /* min=10 max=2000 of the default */
		below += v < 150;
	}
	/* median=150: about half below; 3 sigma of a binomial(4001, 1/2) is ~95. */
	assert_in_range(below, N / 2 - 100, N / 2 + 100);
	job_set_release(&s);
}

static void test_per_gpu_and_uniform(void **state)
{
	(void)state;
	struct err e = {0};
	struct enrich_profile *p = parse(COVER "job train sto fixed value=100 per=gpu\n"
					       "job batch sto uniform lo=5 hi=6 max=5.5\n"
					       "node gpu net fixed value=500 per=gpu\n"
					       "job cpu mem fixed value=64\n",
					 &e);
	assert_non_null(p);
	struct job_set s = {0};
	struct job j[] = {mkjob(0, JOB_TRAIN, 4, 1000), mkjob(1, JOB_TRAIN, 1, 250),
			  mkjob(2, JOB_TRAIN, 0, 0), mkjob(3, JOB_BATCH, 1, 1000),
			  mkjob(4, JOB_CPU, 0, 0)};
	for (size_t i = 0; i < 5; i++)
		job_set_add_job(&s, &j[i]);
	struct node n = mknode("g", "A10", 4);
	job_set_add_node(&s, &n);
	enrich_apply(p, 0, 1.0, &s);
	assert_int_equal(s.jobs[0].dem[DIM_STO], 400);
	assert_int_equal(s.jobs[1].dem[DIM_STO], 25);  /* a quarter of one GPU */
	assert_int_equal(s.jobs[2].dem[DIM_STO], 100); /* no GPU: factor 1 */
	assert_true(s.jobs[3].dem[DIM_STO] == 5 || s.jobs[3].dem[DIM_STO] == 6);
	assert_int_equal(s.jobs[4].dem[DIM_MEM], 64);
	assert_int_equal(s.jobs[4].dem[DIM_STO], 20);
	assert_int_equal(s.jobs[0].dem[DIM_MEM], -1);
	assert_int_equal(s.nodes[0].cap[DIM_NET], 2000);
	job_set_release(&s);
	enrich_free(p);
}

static void test_io_pressure(void **state)
{
	(void)state;
	struct err e = {0};
	struct enrich_profile *p = parse(COVER, &e);
	assert_non_null(p);
	struct job_set s = {0};
	struct job a = mkjob(0, JOB_TRAIN, 1, 1000), b = mkjob(1, JOB_INFER, 1, 1000);
	a.dem[DIM_STO] = 101; /* recorded: scaled too */
	a.dem[DIM_NET] = 0;
	job_set_add_job(&s, &a);
	job_set_add_job(&s, &b);
	enrich_apply(p, 0, 2.5, &s);
	assert_int_equal(s.jobs[0].dem[DIM_STO], 253); /* 252.5 rounds away from zero */
	assert_int_equal(s.jobs[0].dem[DIM_NET], 0);
	assert_int_equal(s.jobs[0].dem[DIM_IOCPU], 30); /* iocpu is not scaled */
	assert_int_equal(s.jobs[1].dem[DIM_NET], 25);
	assert_int_equal(s.jobs[1].dem[DIM_STO], 50);
	assert_int_equal(s.jobs[0].enriched, DIM_BIT(DIM_IOCPU));
	job_set_release(&s);
	enrich_free(p);
}

static void expect_error(const char *text, const char *msg)
{
	struct err e = {0};
	struct enrich_profile *p = parse(text, &e);
	assert_null(p);
	assert_int_equal(e.code, VF_EINPUT);
	assert_string_equal(e.msg, msg);
}

static void test_parse_errors(void **state)
{
	(void)state;
	expect_error(COVER "job train sto fixed value=1 levels=5,2\n",
		     "t.profile:11: level '2' is not above the one before");
	expect_error(COVER "job train sto fixed value=1 levels=5,x\n",
		     "t.profile:11: level 'x' is not a number >= 0");
	expect_error(COVER "job train sto fixed value=1 levels=,\n",
		     "t.profile:11: levels= names no level");
	expect_error(COVER "job train sto fixed value=1 levels=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,"
			   "16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33\n",
		     "t.profile:11: more than 32 levels");
	expect_error(COVER "job train sto fixed value=1\njob train sto fixed value=2\n",
		     "t.profile:12: rule for job 'train' on 'sto' repeats line 11");
	expect_error(COVER "job trian sto fixed value=1\n",
		     "t.profile:11: job class 'trian': want infer, train, batch, cpu or '*'");
	expect_error(COVER "node B300 sto fixed value=1\n",
		     "t.profile:11: node type 'B300': not a GPU model, 'gpu', 'cpu' or '*'");
	expect_error(COVER "job * gpu fixed value=1\n",
		     "t.profile:11: dim 'gpu': rules take net, sto, iocpu, cpu, mem");
	expect_error(COVER "job * cpu normal mean=1\n",
		     "t.profile:11: distribution 'normal': want fixed, uniform or lognormal");
	expect_error(COVER "job * cpu lognormal median=1\n",
		     "t.profile:11: lognormal needs median= and sigma=");
	expect_error(COVER "job * cpu lognormal median=0 sigma=1\n",
		     "t.profile:11: lognormal median= must be above 0");
	expect_error(COVER "job * cpu uniform lo=3 hi=2\n",
		     "t.profile:11: uniform lo= is above hi=");
	expect_error(COVER "job * cpu fixed value=-1\n",
		     "t.profile:11: value '-1' is not a number >= 0");
	expect_error(COVER "job * cpu fixed value=1 hi=2\n",
		     "t.profile:11: 'hi': no such parameter here");
	expect_error(COVER "job * cpu fixed value=1 per=node\n",
		     "t.profile:11: per 'node': only per=gpu exists");
	expect_error(COVER "job * cpu fixed value=1 min=5 max=4\n",
		     "t.profile:11: min= is above max=");
	expect_error(COVER "job * cpu fixed\n", "t.profile:11: fixed needs value=");
	expect_error(COVER "version 4\n", "t.profile:11: 'version' repeats line 2");
	expect_error(COVER "\n# again\nname u\n", "t.profile:13: 'name' repeats line 1");
	/* a parameter, or a target, given twice in one rule: never the last one silently */
	expect_error(COVER "job train sto fixed value=1 value=2\n",
		     "t.profile:11: 'value=' given twice");
	expect_error(COVER "job train sto uniform lo=1 hi=4 lo=2\n",
		     "t.profile:11: 'lo=' given twice");
	expect_error(COVER "job train sto fixed max=9 value=1 max=8\n",
		     "t.profile:11: 'max=' given twice");
	expect_error(COVER "job train sto fixed per=gpu value=1 per=gpu\n",
		     "t.profile:11: 'per=' given twice");
	expect_error(COVER "job train|infer|train sto fixed value=1\n",
		     "t.profile:11: job 'train' named twice");
	expect_error(COVER "node T4|gpu|T4 sto fixed value=1\n",
		     "t.profile:11: node 'T4' named twice");
	expect_error(COVER "colour blue\n",
		     "t.profile:11: 'colour': want name, version, job or node");
	expect_error("version 1\njob * net fixed value=1\n", "t.profile: no 'name' line");
	expect_error("name x\nversion 0\n", "t.profile:2: version '0' is not a positive integer");
	expect_error("name x\nversion 1\njob * net fixed value=1\n",
		     "t.profile: no job rule covers class 'infer' on 'sto'");
	expect_error("name x\nversion 1\njob * net|sto|iocpu fixed value=1\n",
		     "t.profile:3: dim 'net|sto|iocpu': rules take net, sto, iocpu, cpu, mem");
	expect_error("name t\nversion 3\njob * net fixed value=10\njob * sto fixed value=20\n"
		     "job * iocpu fixed value=30\nnode gpu|cpu net|sto fixed value=1\n",
		     "t.profile:6: dim 'net|sto': rules take net, sto, iocpu, cpu, mem");
	expect_error("name t\nversion 3\njob * net fixed value=10\njob * sto fixed value=20\n"
		     "job * iocpu fixed value=30\nnode gpu net fixed value=1\n",
		     "t.profile: no node rule covers 'gpu' nodes on 'cpu'");
	expect_error("name t\nversion 3\njob * net fixed value=10\njob * sto fixed value=20\n"
		     "job * iocpu fixed value=30\nnode gpu cpu fixed value=1\n"
		     "node gpu mem fixed value=1\nnode gpu net fixed value=1\n"
		     "node gpu sto fixed value=1\nnode gpu iocpu fixed value=1\n"
		     "node cpu cpu fixed value=1\n",
		     "t.profile: no node rule covers 'cpu' nodes on 'mem'");
}

static void test_comments_and_coverage_by_class(void **state)
{
	(void)state;
	struct err e = {0};
	/* Class rules alone cover, without '*'; comments anywhere; CRLF line ends. */
	struct enrich_profile *p =
		parse("# a profile\r\nname x # trailing\r\nversion 2\r\n"
		      "job infer|train|batch|cpu net fixed value=1\n"
		      "job infer|train|batch|cpu sto fixed value=1\n"
		      "job infer|train|batch|cpu iocpu fixed value=1\n"
		      "node gpu|cpu cpu fixed value=1\nnode gpu|cpu mem fixed value=1\n"
		      "node gpu|cpu net fixed value=1\nnode gpu|cpu sto fixed value=1\n"
		      "node gpu|cpu iocpu fixed value=1\n",
		      &e);
	assert_non_null(p);
	assert_string_equal(enrich_name(p), "x");
	assert_int_equal(enrich_version(p), 2);
	enrich_free(p);
	enrich_free(NULL);
}

static void test_load_files(void **state)
{
	(void)state;
	struct enrich_profile *p = (void *)1;
	struct err e = {0};
	assert_int_equal(enrich_load("no-such.profile", &p, &e), VF_EIO);
	assert_null(p);
	assert_non_null(strstr(e.msg, "no-such.profile: "));
	FILE *f = fopen("t-enrich.profile", "w");
	assert_non_null(f);
	fputs(COVER "job train net lognormal median=1 sigma=oops\n", f);
	fclose(f);
	assert_int_equal(enrich_load("t-enrich.profile", &p, &e), VF_EINPUT);
	assert_string_equal(e.msg, "t-enrich.profile:11: sigma 'oops' is not a number >= 0");
	f = fopen("t-enrich.profile", "w");
	fputs(COVER, f);
	fclose(f);
	assert_int_equal(enrich_load("t-enrich.profile", &p, &e), 0);
	assert_string_equal(enrich_name(p), "t");
	assert_string_equal(enrich_text(p), COVER);
	enrich_free(p);
	remove("t-enrich.profile");
}

static void test_summary(void **state)
{
	const struct enrich_profile *p = *state;
	struct job_set s = {0};
	struct job a = mkjob(0, JOB_TRAIN, 1, 1000), b = mkjob(1, JOB_CPU, 0, 0);
	a.dem[DIM_NET] = a.dem[DIM_STO] = a.dem[DIM_IOCPU] = 5;
	b.dem[DIM_NET] = 5;
	a.dem[DIM_CPU] = a.dem[DIM_MEM] = b.dem[DIM_CPU] = b.dem[DIM_MEM] = 1000;
	job_set_add_job(&s, &a);
	job_set_add_job(&s, &b);
	struct node n = mknode("x", "T4", 1);
	for (int d = 0; d < DIM_N; d++)
		n.cap[d] = 1000;
	job_set_add_node(&s, &n);
	enrich_apply(p, 0, 1.0, &s);
	struct enrich_summary sum;
	enrich_summarize(&s, &sum);
	assert_int_equal(sum.jobs_any, 1);
	assert_int_equal(sum.jobs[DIM_STO], 1);
	assert_int_equal(sum.nodes_any, 0);
	struct sbuf sb;
	sbuf_init(&sb);
	enrich_describe(&sum, &sb);
	assert_string_equal(sb.s, "jobs: sto 1/2, iocpu 1/2; nodes: none of 1");
	sbuf_release(&sb);
	job_set_release(&s);
}

/* Every enriched net and sto of the built-in profile is on its 1-2-5 ladder of MB/s and
 * every iocpu a whole number of cores, whatever the class and GPUs; the same job id gives
 * the same values, in any set; and the demand vectors repeat. The ladders are
 * enrich.h's too (gen draws on them). */
static void test_builtin_request_levels(void **state)
{
	const struct enrich_profile *p = *state;
	static const int64_t bw[] = {1,   2,    5,    10,   20,    50,    100,  200,
				     500, 1000, 2000, 5000, 10000, 20000, 50000};
	static const int gpus[] = {0, 1, 1, 2, 4, 8};
	static const int milli[] = {0, 250, 1000, 1000, 1000, 1000};
	struct job_set a = {0}, b = {0};
	for (int i = 0; i < 3000; i++) {
		int k = i % 6;
		struct job j = mkjob(i, k ? (enum job_class)(i % 3) : JOB_CPU, gpus[k], milli[k]);
		job_set_add_job(&a, &j);
	}
	for (int i = 2999; i >= 0; i -= 7) { /* fewer jobs, another order */
		int k = i % 6;
		struct job j = mkjob(i, k ? (enum job_class)(i % 3) : JOB_CPU, gpus[k], milli[k]);
		job_set_add_job(&b, &j);
	}
	enrich_apply(p, 5, 1.0, &a);
	enrich_apply(p, 5, 1.0, &b);
	size_t distinct = 0;
	for (size_t i = 0; i < a.njobs; i++) {
		const struct job *j = &a.jobs[i];
		for (int d = DIM_NET; d <= DIM_STO; d++) {
			int on = 0;
			for (size_t l = 0; l < sizeof bw / sizeof *bw; l++)
				on |= j->dem[d] == bw[l];
			if (!on)
				fail_msg("job %zu: %s %lld is not on a level", i,
					 job_dim_name((enum dim)d), (long long)j->dem[d]);
		}
		assert_int_equal(j->dem[DIM_IOCPU] % 1000, 0);
		int seen = 0;
		for (size_t m = 0; m < i && !seen; m++)
			seen = a.jobs[m].cls == j->cls && a.jobs[m].num_gpu == j->num_gpu &&
			       a.jobs[m].gpu_milli == j->gpu_milli &&
			       !memcmp(&a.jobs[m].dem[DIM_NET], &j->dem[DIM_NET],
				       3 * sizeof j->dem[0]);
		distinct += !seen;
	}
	/* continuous draws: every job its own; here 533 of 3,000 over 6 shapes */
	assert_true(distinct < a.njobs / 4);
	for (size_t i = 0; i < b.njobs; i++) {
		const struct job *x = &b.jobs[i], *y = &a.jobs[x->id];
		assert_memory_equal(&x->dem[DIM_NET], &y->dem[DIM_NET], 3 * sizeof x->dem[0]);
	}
	job_set_release(&a);
	job_set_release(&b);
}

/* enrich_snap: the nearest level, halfway up, the ends beyond the ladder; and a rule's
 * levels= snaps after per=gpu. */
static void test_snap_and_levels_rule(void **state)
{
	(void)state;
	static const double lv[] = {0, 1000, 2000, 4000};
	assert_true(enrich_snap(lv, 4, -5) == 0);
	assert_true(enrich_snap(lv, 4, 499) == 0);
	assert_true(enrich_snap(lv, 4, 500) == 1000);
	assert_true(enrich_snap(lv, 4, 2999) == 2000);
	assert_true(enrich_snap(lv, 4, 3000) == 4000);
	assert_true(enrich_snap(lv, 4, 1e9) == 4000);
	assert_true(enrich_snap(lv + 1, 1, 7) == 1000);
	assert_true(enrich_snap(enrich_bw_levels, ENRICH_BW_NLEVELS, 140) == 100);
	assert_true(enrich_snap(enrich_bw_levels, ENRICH_BW_NLEVELS, 150) == 200);
	assert_true(enrich_snap(enrich_bw_levels, ENRICH_BW_NLEVELS, 1e6) == 50000);
	assert_true(enrich_snap(enrich_core_levels, ENRICH_CORE_NLEVELS, 499) == 0);
	assert_true(enrich_snap(enrich_core_levels, ENRICH_CORE_NLEVELS, 5000) == 6000);
	struct err e = {0};
	struct enrich_profile *q =
		parse("name t\nversion 1\n"
		      "job * net fixed value=30 per=gpu levels=10,50,100,200\n"
		      "job * sto uniform lo=0 hi=1000 levels=100,500\n"
		      "job * iocpu fixed value=0\n"
		      "node * net fixed value=1000\nnode * sto fixed value=2000\n"
		      "node * iocpu fixed value=3000\nnode * cpu fixed value=4000\n"
		      "node * mem fixed value=5000\n",
		      &e);
	assert_non_null(q);
	struct job_set s = {0};
	for (int i = 0; i < 200; i++) {
		struct job j = mkjob(i, JOB_TRAIN, 1 + i % 8, 1000);
		job_set_add_job(&s, &j);
	}
	enrich_apply(q, 1, 1.0, &s);
	for (size_t i = 0; i < s.njobs; i++) {
		const struct job *j = &s.jobs[i];
		/* 30 x GPUs, then the nearest of 10, 50, 100, 200 */
		int64_t g = j->num_gpu, n = 30 * g;
		int64_t want = n < 30 ? 10 : n < 75 ? 50 : n < 150 ? 100 : 200;
		assert_int_equal(j->dem[DIM_NET], want);
		assert_true(j->dem[DIM_STO] == 100 || j->dem[DIM_STO] == 500);
	}
	job_set_release(&s);
	enrich_free(q);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_builtin_identity),
		cmocka_unit_test(test_fills_only_missing),
		cmocka_unit_test(test_node_rule_specificity),
		cmocka_unit_test(test_order_independent),
		cmocka_unit_test(test_seed_changes_values),
		cmocka_unit_test(test_builtin_request_levels),
		cmocka_unit_test(test_lognormal_median_and_clamp),
		cmocka_unit_test(test_per_gpu_and_uniform),
		cmocka_unit_test(test_io_pressure),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_comments_and_coverage_by_class),
		cmocka_unit_test(test_load_files),
		cmocka_unit_test(test_summary),
		cmocka_unit_test(test_snap_and_levels_rule),
	};
	return cmocka_run_group_tests(tests, setup_builtin, teardown_profile);
}
