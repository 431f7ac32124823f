/* test-size.c — right-sizing: the SLO's terms, the node groups and their steps, the nodes a
 * step keeps, a search whose answer is known by hand, and the bisection against a search of
 * every size on a bundled trace. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "import.h"
#include "size.h"
#include "verdict.h"

static void slo_text(const struct size_slo *slo, char *buf, size_t len)
{
	struct sbuf b = SBUF_INIT;
	sbuf_init(&b);
	size_slo_text(slo, &b);
	snprintf(buf, len, "%s", b.s);
	sbuf_release(&b);
}

static void test_slo_parse(void **state)
{
	(void)state;
	struct size_slo slo = {0};
	struct err e;
	char buf[256];

	assert_int_equal(size_slo_parse("wait_p95<=15m", &slo, &e), 0);
	assert_int_equal(slo.n, 1);
	assert_int_equal(slo.t[0].col, RUNREC_WAIT_P95);
	assert_int_equal(slo.t[0].ge, 0);
	assert_int_equal(slo.t[0].full, 0);
	assert_true(slo.t[0].bound == 900);
	/* terms add up over calls; full keys, >=, plain numbers, 'full' */
	assert_int_equal(size_slo_parse("slowdown_mean<=1.5,alloc_mean>=0.1,wait_mean_s<=90,"
					"carried_over_jobs<=full,jct_mean<=2d",
					&slo, &e),
			 0);
	assert_int_equal(slo.n, 6);
	assert_int_equal(slo.t[1].col, RUNREC_SLOWDOWN);
	assert_true(slo.t[1].bound == 1.5);
	assert_int_equal(slo.t[2].ge, 1);
	assert_int_equal(slo.t[3].col, RUNREC_WAIT);
	assert_true(slo.t[3].bound == 90);
	assert_int_equal(slo.t[4].full, 1);
	assert_true(slo.t[5].bound == 2 * 86400);
	slo_text(&slo, buf, sizeof buf);
	assert_string_equal(buf, "wait_p95<=15m,slowdown_mean<=1.5,alloc_mean>=0.1,"
				 "wait_mean<=90s,carried_over_jobs<=full,jct_mean<=2d");
	assert_int_equal(size_slo_check(&slo, SIM_TIMED, &e), 0);
	assert_int_equal(size_slo_check(&slo, SIM_INFLATE, &e), VF_EINPUT);
	assert_non_null(strstr(e.msg, "'wait_p95<=15m'"));
	assert_non_null(strstr(e.msg, "inflate"));

	/* what is refused, and how it is said */
	static const struct {
		const char *s, *says;
	} bad[] = {
		{"wait_p95=15m", "not NAME<=VALUE"},
		{"<=3", "not NAME<=VALUE"},
		{"wait_p95<=", "not NAME<=VALUE"},
		{"wait_p99<=15m", "'wait_p99' is not a run figure"},
		{"wait_p99<=15m", "wait_p95, "},
		{"wait_p95<=soon", "'soon' is not a duration"},
		{"wait_p95<=-5m", "is not a duration"},
		{"slowdown_mean<=x", "'x' is not a number or 'full'"},
		{"slowdown_mean<=inf", "not a number"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		struct size_slo s = {0};
		assert_int_equal(size_slo_parse(bad[i].s, &s, &e), VF_EINPUT);
		if (!strstr(e.msg, bad[i].says))
			fail_msg("'%s': message '%s' lacks '%s'", bad[i].s, e.msg, bad[i].says);
	}
	/* at most SIZE_MAX_TERMS terms */
	struct size_slo many = {0};
	for (int i = 0; i < SIZE_MAX_TERMS; i++)
		assert_int_equal(size_slo_parse("wait_p95<=1h", &many, &e), 0);
	assert_int_equal(size_slo_parse("wait_p95<=1h", &many, &e), VF_EINPUT);
	assert_non_null(strstr(e.msg, "more than 16 terms"));
}

static struct node mk_node(const char *name, const char *model, int ngpu, int64_t cpu)
{
	struct node n;
	node_init(&n);
	snprintf(n.name, sizeof n.name, "%s", name);
	n.ngpu = ngpu;
	n.model = (int16_t)(model ? gpumodel_find(model) : -1);
	int64_t cap[DIM_N] = {cpu, 65536, ngpu * 1000, ngpu * 16384, 1000, 1000, 1000};
	memcpy(n.cap, cap, sizeof cap);
	return n;
}

/* 10 A100 x 8, 5 T4 x 4, 2 T4 x 4 with more CPU, 3 CPU-only, interleaved. */
static size_t mixed_cluster(struct node *out)
{
	size_t n = 0;
	char name[32];
	for (int i = 0; i < 10; i++) {
		snprintf(name, sizeof name, "a%d", i);
		out[n++] = mk_node(name, "A100", 8, 64000);
		if (i < 5) {
			snprintf(name, sizeof name, "t%d", i);
			out[n++] = mk_node(name, "T4", 4, 32000);
		}
		if (i < 2) {
			snprintf(name, sizeof name, "u%d", i);
			out[n++] = mk_node(name, "T4", 4, 96000);
		}
		if (i < 3) {
			snprintf(name, sizeof name, "c%d", i);
			out[n++] = mk_node(name, NULL, 0, 32000);
		}
	}
	return n;
}

static void test_plan_groups(void **state)
{
	(void)state;
	struct node nodes[32];
	size_t n = mixed_cluster(nodes);
	struct size_plan p;
	struct err e;

	assert_int_equal(n, 20);
	assert_int_equal(size_plan_init(&p, nodes, n, -1, &e), 0);
	assert_int_equal(p.ng, 4);
	assert_int_equal(p.steps, 10);
	assert_int_equal(p.nnodes, 20);
	assert_int_equal(p.gpus, 10 * 8 + 7 * 4);
	/* groups in the order their first node comes: a, t, u, c */
	assert_int_equal(p.g[0].n, 10);
	assert_int_equal(p.g[1].n, 5);
	assert_int_equal(p.g[2].n, 2);
	assert_int_equal(p.g[3].n, 3);
	assert_int_equal(p.g[3].model, -1);
	assert_int_equal(p.g[3].shrinks, 0);
	/* ceil(k n / 10): every group in proportion, CPU-only nodes stay */
	static const size_t want[][4] = {
		{0, 0, 0, 3},  /* step 0 */
		{1, 1, 1, 3},  /* 1 */
		{4, 2, 1, 3},  /* 4: 2, 0.8 up */
		{5, 3, 1, 3},  /* 5: 2.5 up */
		{9, 5, 2, 3},  /* 9: 4.5, 1.8 up */
		{10, 5, 2, 3}, /* 10: the full cluster */
	};
	static const unsigned steps[] = {0, 1, 4, 5, 9, 10};
	for (size_t i = 0; i < 6; i++)
		for (size_t g = 0; g < 4; g++)
			assert_int_equal(size_plan_kept(&p, g, steps[i]), want[i][g]);
	size_plan_release(&p);

	/* one model alone: its groups shrink by its largest group, the rest stay */
	assert_int_equal(size_plan_init(&p, nodes, n, gpumodel_find("T4"), &e), 0);
	assert_int_equal(p.steps, 5);
	assert_int_equal(size_plan_kept(&p, 0, 2), 10);
	assert_int_equal(size_plan_kept(&p, 1, 2), 2);
	assert_int_equal(size_plan_kept(&p, 2, 2), 1);
	size_plan_release(&p);

	/* a model the cluster lacks: refused, naming the ones it has */
	assert_int_equal(size_plan_init(&p, nodes, n, gpumodel_find("V100M32"), &e), VF_EINPUT);
	assert_non_null(strstr(e.msg, "no V100M32 node"));
	assert_non_null(strstr(e.msg, "A100, T4"));
	/* no GPU at all: nothing to retire */
	struct node cpu = mk_node("c", NULL, 0, 32000);
	assert_int_equal(size_plan_init(&p, &cpu, 1, -1, &e), VF_EINPUT);
	assert_non_null(strstr(e.msg, "no GPU node"));
}

static void test_plan_nodes_nested(void **state)
{
	(void)state;
	struct node nodes[32], a[32], b[32];
	size_t n = mixed_cluster(nodes);
	struct size_plan p;
	struct err e;
	int differ = 0;

	assert_int_equal(size_plan_init(&p, nodes, n, -1, &e), 0);
	for (uint64_t seed = 1; seed <= 3; seed++)
		for (unsigned k = 0; k < p.steps; k++) {
			size_t na = size_plan_nodes(&p, nodes, k, seed, a);
			size_t nb = size_plan_nodes(&p, nodes, k + 1, seed, b);
			size_t want = 0;
			for (size_t g = 0; g < p.ng; g++)
				want += size_plan_kept(&p, g, k);
			assert_int_equal(na, want);
			/* a subset of the next step's nodes, both in the cluster's order */
			size_t j = 0;
			for (size_t i = 0; i < na; i++) {
				while (j < nb && strcmp(b[j].name, a[i].name))
					j++;
				if (j == nb)
					fail_msg("seed %d step %u: %s is not kept at step %u",
						 (int)seed, k, a[i].name, k + 1);
			}
			/* the same seed gives the same nodes */
			struct node c[32];
			assert_int_equal(size_plan_nodes(&p, nodes, k, seed, c), na);
			for (size_t i = 0; i < na; i++)
				assert_string_equal(c[i].name, a[i].name);
		}
	/* another seed, another order */
	for (unsigned k = 1; k < p.steps && !differ; k++) {
		size_t na = size_plan_nodes(&p, nodes, k, 1, a);
		size_plan_nodes(&p, nodes, k, 2, b);
		for (size_t i = 0; i < na; i++)
			differ |= strcmp(a[i].name, b[i].name) != 0;
	}
	assert_true(differ);
	assert_int_equal(size_plan_nodes(&p, nodes, p.steps, 5, a), n);
	size_plan_release(&p);
}

/* Four 1-GPU A100 nodes and four 1-GPU jobs of 100 s arriving at 0: on k nodes the waits
 * are 0 (k jobs), then 100, 200, ... — known by hand. Every dim recorded. */
struct fx {
	struct scenario sc;
	struct size_plan plan;
};

/* The fixture's jobs: burst one-GPU jobs of 100 s at second 0, then n more, one every gap
 * seconds (the give-up test's make more than 64 events a run, so that its test is asked). */
static void add_jobs(struct fx *f, int burst, int n, int64_t gap)
{
	f->sc.base.njobs = 0;
	for (int i = 0; i < burst + n; i++) {
		struct job j;
		job_init(&j);
		j.id = i;
		j.arrival = i < burst ? 0 : gap * (i - burst + 1);
		j.duration = 100;
		j.num_gpu = 1;
		j.gpu_milli = 1000;
		j.cls = JOB_TRAIN;
		int64_t dem[DIM_N] = {1000, 1024, 1000, 1024, 0, 0, 0};
		memcpy(j.dem, dem, sizeof dem);
		job_set_add_job(&f->sc.base, &j);
	}
}

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof *f);
	struct err e;
	scenario_init(&f->sc);
	for (int i = 0; i < 4; i++) {
		char name[16];
		snprintf(name, sizeof name, "n%d", i);
		struct node n = mk_node(name, "A100", 1, 8000);
		job_set_add_node(&f->sc.base, &n);
	}
	add_jobs(f, 4, 0, 0);
	assert_int_equal(enrich_load(NULL, &f->sc.profile, &e), 0);
	sbuf_adds(&f->sc.trace_name, "tiny");
	f->sc.trace_id = 1;
	assert_int_equal(size_plan_init(&f->plan, f->sc.base.nodes, 4, -1, &e), 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	size_plan_release(&f->plan);
	scenario_release(&f->sc);
	free(f);
	return 0;
}

/* A search of the fixture: npol policies, seeds 1-2, slo, on nthreads threads. */
static struct size_opts fx_opts(struct fx *f, const struct policy_ops *const *pols, size_t npol,
				const struct size_slo *slo, unsigned nthreads, int giveup)
{
	return (struct size_opts){.sc = &f->sc,
				  .plan = &f->plan,
				  .pols = pols,
				  .npol = npol,
				  .lo = 1,
				  .hi = 2,
				  .slo = slo,
				  .nthreads = nthreads,
				  .giveup = giveup};
}

/* The step found for one policy under slo, on nthreads threads. */
static struct size_result *search(struct fx *f, const char *slo_s, unsigned nthreads)
{
	static const struct size_slo empty;
	static struct size_slo slo;
	struct size_result *r;
	struct err e;
	static const struct policy_ops *pols[1];
	pols[0] = policy_find("first-fit");
	slo = empty;
	assert_int_equal(size_slo_parse(slo_s, &slo, &e), 0);
	struct size_opts o = fx_opts(f, pols, 1, &slo, nthreads, 0);
	assert_int_equal(size_run(&o, &r, &e), 0);
	return r;
}

static void test_search_by_hand(void **state)
{
	struct fx *f = *state;
	double a100 = metrics_price(&f->sc.prices, gpumodel_find("A100"));
	for (unsigned th = 1; th <= 3; th++) {
		/* waits 0,0,100,100 on 2 nodes; 0,100,200,300 on 1 */
		struct size_result *r = search(f, "wait_p95<=100", th);
		assert_true(r->full_ok);
		assert_int_equal(r->min.step, 2);
		assert_int_equal(r->min.nodes, 2);
		assert_int_equal(r->gpus, 2);
		assert_int_equal(r->kept[0], 2);
		assert_true(r->has_smaller);
		assert_int_equal(r->below.step, 1);
		assert_int_equal(r->below.term, 0);
		assert_true(r->below.value == 300);
		assert_true(r->below.seed == 1);
		assert_true(r->min.worst[0] == 100);
		assert_true(r->full.worst[0] == 0);
		assert_true(fabs(r->usd_year - 2 * a100 * 8760) < 1e-6);
		size_results_free(r, 1);

		/* nothing waits: all four stay */
		r = search(f, "wait_p95<=0", th);
		assert_true(r->full_ok);
		assert_int_equal(r->min.step, 4);
		assert_int_equal(r->gpus, 4);
		assert_true(r->usd_year == 0);
		assert_int_equal(r->below.step, 3);
		size_results_free(r, 1);

		/* the full cluster's own figure as the bound */
		r = search(f, "wait_mean<=full", th);
		assert_int_equal(r->min.step, 4);
		size_results_free(r, 1);

		/* one node does it (mean wait 150) */
		r = search(f, "wait_mean<=150", th);
		assert_int_equal(r->min.step, 1);
		assert_int_equal(r->below.step, 0);
		assert_int_equal(r->below.term, -1); /* no node left */
		size_results_free(r, 1);

		/* the full cluster misses: not searched */
		r = search(f, "jct_mean<=50", th);
		assert_false(r->full_ok);
		assert_int_equal(r->full.term, 0);
		assert_true(r->full.value == 100);
		assert_int_equal(r->probes, 1);
		size_results_free(r, 1);
	}
}

/* A fault on a node the search retires goes with it; one that names nothing is refused. */
static void test_faults_follow_nodes(void **state)
{
	struct fx *f = *state;
	struct size_slo slo = {0};
	struct size_check c;
	struct err e;
	const struct policy_ops *pols[] = {policy_find("first-fit")};
	struct size_opts o = fx_opts(f, pols, 1, &slo, 1, 0);
	o.hi = 1;
	assert_int_equal(size_slo_parse("wait_p95<=1d", &slo, &e), 0);
	f->sc.faults = calloc(1, sizeof *f->sc.faults);
	f->sc.nfaults = 1;
	assert_int_equal(fault_parse("n2:sto=0.5@0+1h", &f->sc.faults[0], &e), 0);
	for (unsigned k = 1; k <= 4; k++)
		assert_int_equal(size_probe(&o, 0, k, NULL, &c, NULL, &e), 0);
	assert_int_equal(fault_parse("n9:sto=0.5@0+1h", &f->sc.faults[0], &e), 0);
	assert_int_equal(size_probe(&o, 0, 4, NULL, &c, NULL, &e), VF_EINPUT);
	assert_non_null(strstr(e.msg, "'n9'"));
}

/* size_run for slo against a probe of every step: see test_bisection_vs_every_size. */
static void check_every_size(struct scenario *sc, struct size_plan *plan_in, const char *slo_s)
{
	struct size_plan plan = *plan_in;
	struct size_slo slo = {0};
	struct err e;
	assert_int_equal(size_slo_parse(slo_s, &slo, &e), 0);

	const struct policy_ops *pols[] = {policy_find("fgd"), policy_find("first-fit"),
					   policy_find("best-fit")};
	size_t npol = sizeof pols / sizeof *pols;
	struct size_opts o = {.sc = sc,
			      .plan = &plan,
			      .pols = pols,
			      .npol = npol,
			      .lo = 1,
			      .hi = 2,
			      .slo = &slo,
			      .nthreads = 2};
	struct size_result *r, *q;
	assert_int_equal(size_run(&o, &r, &e), 0);
	/* without the check above: the same sizes, nothing checked above, its probes fewer */
	o.no_above = 1;
	assert_int_equal(size_run(&o, &q, &e), 0);
	o.no_above = 0;
	for (size_t p = 0; p < npol; p++) {
		unsigned tried = 0;
		for (unsigned j = 1; j <= SIZE_ABOVE && r[p].min.step + j < plan.steps; j++)
			tried++;
		assert_int_equal(q[p].min.step, r[p].min.step);
		assert_int_equal(q[p].above_checked, 0);
		assert_int_equal(q[p].above_miss, 0);
		assert_int_equal(q[p].probes + tried, r[p].probes);
	}
	size_results_free(q, npol);
	/* to within 4 steps: a size that meets it, a miss at most 4 below, no more probes */
	o.tol = 4;
	assert_int_equal(size_run(&o, &q, &e), 0);
	o.tol = 0;
	struct size_result *coarse = q;
	for (size_t p = 0; p < npol; p++) {
		int pass[64], last_miss = -1, first_pass = -1;
		double *full = calloc(2 * RUNREC_NCOL, sizeof *full);
		struct size_check c;
		assert_int_equal(size_probe(&o, p, plan.steps, NULL, &c, full, &e), 0);
		assert_true(c.pass);
		for (unsigned k = 0; k <= plan.steps; k++) {
			assert_int_equal(size_probe(&o, p, k, full, &c, NULL, &e), 0);
			pass[k] = c.pass;
			if (!c.pass)
				last_miss = (int)k;
			else if (first_pass < 0)
				first_pass = (int)k;
		}
		free(full);
		/* to within tol: it meets it, and so does every larger one on a monotone
		 * policy; the miss below is at most 4 steps down */
		const struct size_result *c4 = &coarse[p];
		assert_true(pass[c4->min.step]);
		assert_true(c4->probes <= r[p].probes);
		if (r[p].has_smaller) /* the last probes of the bisection are the ones left out */
			assert_true(c4->probes < r[p].probes);
		if (c4->has_smaller) {
			assert_false(pass[c4->below.step]);
			assert_true(c4->min.step - c4->below.step <= 4);
		}
		if (first_pass == last_miss + 1)
			assert_true(c4->min.step >= (unsigned)first_pass &&
				    c4->min.step <= (unsigned)first_pass + 3);
		/* the step found meets it, the one below misses */
		unsigned found = r[p].min.step;
		assert_true(pass[found]);
		assert_true(found == 0 || !pass[found - 1]);
		/* the steps above it that were checked, and the first of them that misses */
		unsigned checked = 0;
		int miss = 0;
		for (unsigned j = 1; j <= SIZE_ABOVE && found + j < plan.steps && !miss; j++) {
			checked = j;
			miss = !pass[found + j];
		}
		assert_int_equal(r[p].above_checked, checked);
		assert_int_equal(r[p].above_miss, miss);
		if (miss)
			assert_int_equal(r[p].above.step, found + checked);
		if (first_pass == last_miss + 1) {
			/* monotone: the bisection found the smallest size */
			assert_int_equal(found, first_pass);
			continue;
		}
		printf("%s, %s: not monotone in the size (bisection found step %u; smallest "
		       "step that meets the SLO %d; largest that misses %d):",
		       slo_s, pols[p]->name, found, first_pass, last_miss);
		for (int k = first_pass; k <= last_miss; k++)
			printf(" %d%s", k, pass[k] ? "+" : "-");
		printf("\n");
	}
	size_results_free(coarse, npol);
	size_results_free(r, npol);
}

/* The bisection against every size, on traces/storage-stress (38 A100, 20 T4, 6 CPU-only
 * nodes: 39 steps) at two seeds. Where a policy's figures are not monotone in the size,
 * the steps that break it are printed, and the bisection must still have found a boundary:
 * a step that meets the SLO with the one below missing it; and the SIZE_ABOVE steps above
 * it that the search checks say what every step's own run says. */
/* traces/storage-stress's scenario and plan into sc and plan: 0, or 1 when VOIDFIT_TOP is
 * not set (the test is skipped). */
static int load_storage_stress(struct scenario *sc, struct size_plan *plan)
{
	const char *top = getenv("VOIDFIT_TOP");
	char jobs[1024], nodes[1024], path[] = "test-size-XXXXXX";
	struct import_result ir;
	struct store *st;
	struct err e;
	if (!top || !*top)
		return 1;
	snprintf(jobs, sizeof jobs, "%s/traces/storage-stress/jobs.csv", top);
	snprintf(nodes, sizeof nodes, "%s/traces/storage-stress/nodes.csv", top);
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	unlink(path);
	struct import_input in[] = {{.path = jobs}, {.path = nodes, .nodes = 1}};
	struct import_opts io = {.store = path};
	assert_int_equal(import_run(&io, in, 2, &ir, &e), 0);
	import_result_release(&ir);
	assert_int_equal(store_open(path, STORE_RDONLY, &st, &e), 0);
	scenario_init(sc);
	assert_int_equal(scenario_load(sc, st, &e), 0);
	store_close(st);
	unlink(path);
	assert_int_equal(size_plan_init(plan, sc->base.nodes, sc->base.nnodes, -1, &e), 0);
	assert_int_equal(plan->steps, 38);
	return 0;
}

static void test_bisection_vs_every_size(void **state)
{
	(void)state;
	struct scenario sc;
	struct size_plan plan;
	if (load_storage_stress(&sc, &plan))
		skip();
	/* a wait bound, and a slowdown no worse than the full cluster's (best-fit and tetris
	 * are not monotone in it on this trace) */
	static const char *const slos[] = {"wait_p95<=6h", "slowdown_mean<=full"};
	for (size_t si = 0; si < sizeof slos / sizeof *slos; si++)
		check_every_size(&sc, &plan, slos[si]);
	size_plan_release(&plan);
	scenario_release(&sc);
}

/* The verdict's headroom against a probe of every growth step: on storage-stress, where
 * best-fit, fgd, packing and tetris meet and miss the SLO in turn as demand grows (tetris
 * meets it at +10 %, misses at +12 %, meets at +14 % and at +18 %), each policy's headroom
 * is the growth below its first miss: every step up to it meets the SLO (verdict_grow,
 * judged by the verdict's own slo_grow on today's cluster), the next misses; and a policy
 * whose search first found a growth above a miss says so (gave_growth, gave_miss). */
static void test_headroom_first_miss(void **state)
{
	(void)state;
	struct scenario sc;
	struct size_plan plan;
	struct err e;
	if (load_storage_stress(&sc, &plan))
		skip();
	static const char *const names[] = {"tetris", "packing", "fgd", "best-fit", "clustering"};
	size_t np = sizeof names / sizeof *names;
	const struct policy_ops *pols[sizeof names / sizeof *names];
	for (size_t i = 0; i < np; i++)
		pols[i] = policy_find(names[i]);
	struct verdict_opts o = {.sc = &sc,
				 .base = policy_find("scalar"),
				 .pols = pols,
				 .npol = np,
				 .lo = 1,
				 .hi = 1,
				 .shrink_model = -1,
				 .headroom = 1,
				 .nthreads = 2,
				 .giveup = 1};
	struct verdict v;
	assert_int_equal(verdict_run(&o, &v, &e), 0);
	int gave = 0;
	for (size_t i = 1; i < v.np; i++) {
		const struct verdict_pol *p = &v.p[i];
		assert_true(p->ok && p->growth >= 0 && !p->capped);
		unsigned k = (unsigned)llround(p->growth / v.step), first = 0;
		for (unsigned j = 0; j <= k + 1; j++) {
			struct scenario g = sc;
			const struct policy_ops *one[] = {p->policy};
			verdict_grow(&sc.base, j * v.step, 1, &g.base);
			struct size_opts so = {.sc = &g,
					       .plan = &plan,
					       .pols = one,
					       .npol = 1,
					       .lo = 1,
					       .hi = 1,
					       .slo = &v.slo_grow,
					       .nthreads = 1};
			struct size_check c;
			assert_int_equal(size_probe(&so, 0, plan.steps, NULL, &c, NULL, &e), 0);
			job_set_release(&g.base);
			if (!c.pass && !first)
				first = j;
		}
		if (first != k + 1)
			fail_msg("%s: headroom %u steps, but the first miss is at step %u",
				 p->policy->name, k, first);
		if (!isnan(p->gave_growth)) {
			gave = 1;
			assert_true(p->gave_growth > p->gave_miss && p->gave_miss > p->growth);
		}
	}
	assert_true(gave); /* tetris's search first found +18 %, above its miss at +16 % */
	verdict_release(&v);
	size_plan_release(&plan);
	scenario_release(&sc);
}

/* Two checks alike, NaN equal to NaN. */
static void assert_same_check(const struct size_check *a, const struct size_check *b)
{
	assert_int_equal(a->step, b->step);
	assert_int_equal(a->nodes, b->nodes);
	assert_int_equal(a->pass, b->pass);
	assert_int_equal(a->term, b->term);
	assert_int_equal(a->seed, b->seed);
	assert_true(a->value == b->value || (isnan(a->value) && isnan(b->value)));
	for (size_t i = 0; i <= SIZE_MAX_TERMS; i++)
		assert_true(a->worst[i] == b->worst[i] ||
			    (isnan(a->worst[i]) && isnan(b->worst[i])));
}

/* The search's answer does not depend on its threads: on storage-stress, where tetris,
 * best-fit, fgd and first-fit are not monotone in the size under slowdown_mean<=full (a
 * k-ary search found other sizes for tetris and best-fit on 2, 3 or 4 threads), one policy
 * at one seed (so that every thread past the first runs a probe ahead) finds on 2, 3 and 6
 * threads what it finds on one: the same size, the step below, the steps above, the
 * probes and the runs that gave up; with a hint too. */
static void test_threads_same_answer(void **state)
{
	(void)state;
	struct scenario sc;
	struct size_plan plan;
	struct size_slo slo = {0};
	struct err e;
	if (load_storage_stress(&sc, &plan))
		skip();
	assert_int_equal(size_slo_parse("slowdown_mean<=full", &slo, &e), 0);
	static const char *const names[] = {"tetris", "best-fit", "fgd", "first-fit"};
	static const unsigned threads[] = {2, 3, 6};
	unsigned hint[1];
	for (size_t pi = 0; pi < sizeof names / sizeof *names; pi++)
		for (unsigned h = 0; h <= 20; h += 20) {
			const struct policy_ops *pols[] = {policy_find(names[pi])};
			struct size_opts o = {.sc = &sc,
					      .plan = &plan,
					      .pols = pols,
					      .npol = 1,
					      .lo = 1,
					      .hi = 1,
					      .slo = &slo,
					      .nthreads = 1,
					      .giveup = 1,
					      .hint = h ? hint : NULL};
			struct size_result *one, *r;
			hint[0] = h;
			assert_int_equal(size_run(&o, &one, &e), 0);
			for (size_t ti = 0; ti < sizeof threads / sizeof *threads; ti++) {
				o.nthreads = threads[ti];
				assert_int_equal(size_run(&o, &r, &e), 0);
				if (r->min.step != one->min.step)
					fail_msg("%s, hint %u: step %u on %u threads, %u on one",
						 names[pi], h, r->min.step, threads[ti],
						 one->min.step);
				assert_same_check(&r->min, &one->min);
				assert_int_equal(r->has_smaller, one->has_smaller);
				assert_same_check(&r->below, &one->below);
				assert_int_equal(r->gpus, one->gpus);
				assert_true(r->usd_year == one->usd_year);
				assert_int_equal(r->probes, one->probes);
				assert_int_equal(r->above_checked, one->above_checked);
				assert_int_equal(r->above_miss, one->above_miss);
				assert_same_check(&r->above, &one->above);
				assert_int_equal(r->gave_up, one->gave_up);
				size_results_free(r, 1);
			}
			size_results_free(one, 1);
		}
	size_plan_release(&plan);
	scenario_release(&sc);
}

/* A hint's gallop: 64 one-GPU nodes and a burst of 41 one-GPU jobs at 0, so that no job
 * waits on 41 nodes or more and some wait on fewer (by hand: the smallest cluster that
 * meets wait_mean<=0 keeps 41 nodes). From any hint, near or far, above or below, the
 * search finds that size (to within tol, the miss at most tol below it), on 1 and 3
 * threads alike; from the answer itself (or within tol above it) it takes the full
 * cluster and the hint's two probes, no more. */
static void test_hint_gallop(void **state)
{
	(void)state;
	struct fx f = {0};
	struct size_slo slo = {0};
	struct err e;
	scenario_init(&f.sc);
	for (int i = 0; i < 64; i++) {
		char name[16];
		snprintf(name, sizeof name, "n%02d", i);
		struct node n = mk_node(name, "A100", 1, 8000);
		job_set_add_node(&f.sc.base, &n);
	}
	add_jobs(&f, 41, 0, 0);
	assert_int_equal(enrich_load(NULL, &f.sc.profile, &e), 0);
	sbuf_adds(&f.sc.trace_name, "burst");
	f.sc.trace_id = 1;
	assert_int_equal(size_plan_init(&f.plan, f.sc.base.nodes, 64, -1, &e), 0);
	assert_int_equal(f.plan.steps, 64);
	assert_int_equal(size_slo_parse("wait_mean<=0", &slo, &e), 0);
	const struct policy_ops *pols[] = {policy_find("first-fit")};
	static const unsigned hints[] = {1, 2, 10, 37, 40, 41, 42, 44, 45, 52, 63, 64};
	static const unsigned tols[] = {0, 4};
	for (size_t ti = 0; ti < 2; ti++)
		for (size_t hi = 0; hi < sizeof hints / sizeof *hints; hi++) {
			unsigned hint[1] = {hints[hi]}, tol = tols[ti], t = tol > 1 ? tol : 1;
			struct size_result *r[2];
			for (unsigned th = 0; th < 2; th++) {
				struct size_opts o = fx_opts(&f, pols, 1, &slo, th ? 3 : 1, 1);
				o.hint = hint;
				o.tol = tol;
				o.no_above = 1;
				assert_int_equal(size_run(&o, &r[th], &e), 0);
			}
			struct size_result *a = r[0];
			assert_true(a->full_ok);
			assert_true(a->min.pass);
			size_t kept = size_plan_kept(&f.plan, 0, a->min.step);
			if (kept < 41 || kept > 41 + t - 1)
				fail_msg("tol %u, hint %u: %zu nodes, not 41 to %u", tol, hint[0],
					 kept, 41 + t - 1);
			assert_true(a->has_smaller);
			assert_false(a->below.pass);
			assert_true(size_plan_kept(&f.plan, 0, a->below.step) < 41);
			assert_true(a->min.step - a->below.step <= t);
			if (hint[0] >= 41 && hint[0] <= 41 + t - 1)
				assert_int_equal(a->probes, 3);
			/* the threads change nothing */
			assert_int_equal(r[1]->min.step, a->min.step);
			assert_int_equal(r[1]->below.step, a->below.step);
			assert_int_equal(r[1]->probes, a->probes);
			size_results_free(r[0], 1);
			size_results_free(r[1], 1);
		}
	size_plan_release(&f.plan);
	scenario_release(&f.sc);
}

/* The give-up test changes no answer: the same search with and without it (a queue that
 * grows on fewer nodes; a burst that waits long, then a load that does not, where fewer
 * than 5 % of the jobs wait past the bound on some sizes), and a probe that gave up says a
 * wait p95 past the bound and no larger than the run's own. */
static void test_giveup_same_answer(void **state)
{
	struct fx *f = *state;
	struct size_slo slo = {0};
	struct err e;
	const struct policy_ops *pols[] = {policy_find("first-fit"), policy_find("best-fit")};
	static const char *const slos[] = {"wait_p95<=60", "wait_p95<=10m", "wait_p95<=0",
					   "wait_p95<=60", "wait_p95<=150"};
	for (size_t si = 0; si < sizeof slos / sizeof *slos; si++) {
		if (si < 3)
			add_jobs(f, 0, 300, 30);
		else
			add_jobs(f, 8, 290, 200);
		struct size_result *r[2];
		slo.n = 0;
		assert_int_equal(size_slo_parse(slos[si], &slo, &e), 0);
		for (int g = 0; g < 2; g++) {
			struct size_opts o = fx_opts(f, pols, 2, &slo, 2, g);
			assert_int_equal(size_run(&o, &r[g], &e), 0);
		}
		for (size_t p = 0; p < 2; p++) {
			assert_int_equal(r[0][p].full_ok, r[1][p].full_ok);
			assert_int_equal(r[0][p].min.step, r[1][p].min.step);
			assert_int_equal(r[0][p].gpus, r[1][p].gpus);
			assert_int_equal(r[0][p].has_smaller, r[1][p].has_smaller);
			assert_int_equal(r[0][p].below.step, r[1][p].below.step);
			assert_int_equal(r[0][p].probes, r[1][p].probes);
			assert_int_equal(r[0][p].above_checked, r[1][p].above_checked);
			assert_int_equal(r[0][p].above_miss, r[1][p].above_miss);
			assert_int_equal(r[0][p].gave_up, 0);
		}
		/* the bounds that a queue on fewer nodes breaks early */
		if (si < 2)
			assert_true(r[1][0].gave_up > 0);
		size_results_free(r[0], 2);
		size_results_free(r[1], 2);
	}

	/* one node: a probe that gives up, its p95 a lower bound of the run's, past 60 s */
	add_jobs(f, 0, 300, 30);
	slo.n = 0;
	assert_int_equal(size_slo_parse("wait_p95<=60", &slo, &e), 0);
	double full[RUNREC_NCOL * 2], fig[2][RUNREC_NCOL * 2];
	struct size_check c[2], cf;
	for (int g = 0; g < 2; g++) {
		struct size_opts o = fx_opts(f, pols, 1, &slo, 1, g);
		assert_int_equal(size_probe(&o, 0, 4, NULL, &cf, full, &e), 0);
		assert_int_equal(size_probe(&o, 0, 1, full, &c[g], fig[g], &e), 0);
	}
	assert_false(c[0].pass);
	assert_false(c[1].pass);
	assert_true(isnan(fig[1][RUNREC_JCT])); /* not run to its end */
	double lb = fig[1][RUNREC_WAIT_P95], run = fig[0][RUNREC_WAIT_P95];
	assert_true(lb > 60 && lb <= run);

	/* a queue on one node, a job a second, 100 s each: 16 late of 300 break p95 <= 60,
	 * as many jobs wait past 60 s at t = 77, long before 16 of them have started late
	 * (t = 1,600, 316 events a seed): the probe gives up at the first test after that,
	 * at t = 96 (96 arrivals a seed) */
	add_jobs(f, 0, 300, 1);
	struct size_opts of = fx_opts(f, pols, 1, &slo, 1, 0);
	assert_int_equal(size_probe(&of, 0, 4, NULL, &cf, full, &e), 0); /* run to its end */
	for (int g = 0; g < 2; g++) {
		struct size_opts o = fx_opts(f, pols, 1, &slo, 1, g);
		assert_int_equal(size_probe(&o, 0, 1, full, &c[g], fig[g], &e), 0);
		assert_false(c[g].pass);
	}
	assert_int_equal(c[0].events, 2 * 600); /* every arrival and finish, both seeds */
	assert_int_equal(c[1].events, 2 * 96);
	lb = fig[1][RUNREC_WAIT_P95];
	assert_true(lb > 60 && lb <= fig[0][RUNREC_WAIT_P95]);
}

/* Full-cluster runs a caller already has (size_opts.known) change no answer: the search
 * that takes them finds what the one that runs them finds, bounds from "full" and give-ups
 * included, with one probe fewer and their events not counted; a policy not known is run,
 * and runs of a policy the search does not size are ignored. */
static void test_known_same_answer(void **state)
{
	struct fx *f = *state;
	struct size_slo slo = {0};
	struct err e;
	const struct policy_ops *pols[] = {policy_find("first-fit"), policy_find("best-fit")},
				*other = policy_find("random");
	static const char *const slos[] = {"wait_p95<=60", "wait_mean<=full,wait_p95<=10m",
					   "jct_mean<=50"};
	for (size_t si = 0; si < sizeof slos / sizeof *slos; si++) {
		add_jobs(f, si == 1 ? 8 : 0, 300, 30);
		slo.n = 0;
		assert_int_equal(size_slo_parse(slos[si], &slo, &e), 0);
		struct size_opts o = fx_opts(f, pols, 2, &slo, 2, 1);
		struct size_result *r, *q;
		assert_int_equal(size_run(&o, &r, &e), 0);
		double fig[2][2 * RUNREC_NCOL];
		struct size_known kn[2];
		int64_t events = 0;
		assert_int_equal(size_full_runs(&o, 0, fig[0], &kn[0], &events, &e), 0);
		assert_ptr_equal(kn[0].policy, pols[0]);
		assert_true(events ==
			    (int64_t)(fig[0][RUNREC_EVENTS] + fig[0][RUNREC_NCOL + RUNREC_EVENTS]));
		/* another policy's runs, under the name of one the search does not size */
		assert_int_equal(size_full_runs(&o, 1, fig[1], &kn[1], NULL, &e), 0);
		kn[1].policy = other;
		o.known = kn;
		o.nknown = 2;
		assert_int_equal(size_run(&o, &q, &e), 0);
		for (size_t p = 0; p < 2; p++) {
			assert_int_equal(q[p].full_ok, r[p].full_ok);
			assert_same_check(&q[p].full, &r[p].full);
			assert_same_check(&q[p].min, &r[p].min);
			assert_int_equal(q[p].has_smaller, r[p].has_smaller);
			if (r[p].has_smaller)
				assert_same_check(&q[p].below, &r[p].below);
			assert_int_equal(q[p].gpus, r[p].gpus);
			assert_true(q[p].usd_year == r[p].usd_year);
			assert_int_equal(q[p].above_checked, r[p].above_checked);
			assert_int_equal(q[p].above_miss, r[p].above_miss);
			assert_true(q[p].full_alloc == r[p].full_alloc);
			assert_int_equal(q[p].w0, r[p].w0);
			assert_int_equal(q[p].w1, r[p].w1);
			assert_int_equal(q[p].gave_up, r[p].gave_up);
		}
		/* first-fit's were known: not run, nor counted; best-fit's were run */
		assert_int_equal(q[0].reused, 2);
		assert_int_equal(q[0].probes + 1, r[0].probes);
		assert_true(q[0].events + events == r[0].events);
		assert_int_equal(q[1].reused, 0);
		assert_int_equal(q[1].probes, r[1].probes);
		assert_true(q[1].events == r[1].events);
		assert_int_equal(r[0].reused, 0);
		if (si == 2) /* the full cluster misses: nothing was run for first-fit */
			assert_int_equal(q[0].probes, 0);
		size_results_free(r, 2);
		size_results_free(q, 2);
	}
}

/* A memo of runs for test_memo_same_answer: every run put, looked up by policy, step and
 * seed; gets and puts counted. */
struct tmemo {
	pthread_mutex_t mu;
	struct tmemo_run {
		const struct policy_ops *pol;
		unsigned step;
		uint64_t seed;
		struct size_memo_run run;
	} r[512];
	size_t n, gets, puts;
};

static int tmemo_get(void *u, const struct policy_ops *pol, unsigned step, uint64_t seed,
		     struct size_memo_run *out)
{
	struct tmemo *m = u;
	int found = 0;
	pthread_mutex_lock(&m->mu);
	for (size_t i = 0; i < m->n && !found; i++)
		if (m->r[i].pol == pol && m->r[i].step == step && m->r[i].seed == seed) {
			*out = m->r[i].run;
			found = 1;
			m->gets++;
		}
	pthread_mutex_unlock(&m->mu);
	return found;
}

static void tmemo_put(void *u, const struct policy_ops *pol, unsigned step, uint64_t seed,
		      const struct size_memo_run *run)
{
	struct tmemo *m = u;
	pthread_mutex_lock(&m->mu);
	assert_true(m->n < sizeof m->r / sizeof *m->r);
	m->r[m->n++] = (struct tmemo_run){pol, step, seed, *run};
	m->puts++;
	pthread_mutex_unlock(&m->mu);
}

static void assert_same_result(const struct size_result *q, const struct size_result *r)
{
	assert_int_equal(q->full_ok, r->full_ok);
	assert_same_check(&q->full, &r->full);
	assert_same_check(&q->min, &r->min);
	assert_int_equal(q->has_smaller, r->has_smaller);
	if (r->has_smaller)
		assert_same_check(&q->below, &r->below);
	assert_int_equal(q->gpus, r->gpus);
	assert_int_equal(q->above_checked, r->above_checked);
	assert_int_equal(q->above_miss, r->above_miss);
	assert_true(q->full_alloc == r->full_alloc);
	assert_int_equal(q->w0, r->w0);
	assert_int_equal(q->w1, r->w1);
	assert_int_equal(q->probes, r->probes);
	assert_int_equal(q->gave_up, r->gave_up);
	assert_true(q->events == r->events);
	assert_int_equal(q->reused, r->reused);
}

/* A complete memo (size_memo.complete): one policy at one seed, so that on 4 threads each
 * round runs steps ahead of need. The memo of a search on one thread lacks those; given it
 * on 4 threads, the search makes none of them (nothing put) and finds every answer and
 * count of the search on one thread; not said complete, it makes them. */
static void test_memo_complete(void **state)
{
	struct fx *f = *state;
	struct size_slo slo = {0};
	struct err e;
	const struct policy_ops *pols[] = {policy_find("best-fit")};
	static struct tmemo m;
	struct size_memo sm = {tmemo_get, tmemo_put, &m, 0};
	add_jobs(f, 0, 300, 30);
	assert_int_equal(size_slo_parse("wait_p95<=60", &slo, &e), 0);
	pthread_mutex_init(&m.mu, NULL);
	struct size_opts o = fx_opts(f, pols, 1, &slo, 1, 1);
	o.hi = 1;
	o.memo = &sm;
	struct size_result *r, *q;
	assert_int_equal(size_run(&o, &r, &e), 0);
	size_t made = m.puts;
	assert_true(made == r->probes);
	for (int complete = 1; complete >= 0; complete--) {
		sm.complete = complete;
		m.n = made;
		m.gets = m.puts = 0;
		o.nthreads = 4;
		assert_int_equal(size_run(&o, &q, &e), 0);
		assert_same_result(q, r);
		if (complete)
			assert_int_equal(m.puts, 0);
		else
			assert_true(m.puts > 0); /* the runs ahead: the case above is one */
		size_results_free(q, 1);
	}
	size_results_free(r, 1);
	pthread_mutex_destroy(&m.mu);
}

/* Runs looked up in a memo (size_opts.memo) are judged as if run: a search given the runs
 * an earlier one put there finds every answer and count of it and runs nothing, on one
 * thread or three; given half of them, it runs only the others; a run changed there
 * changes the answer (it is read, not run); known full-cluster runs are still counted
 * apart; size_probe reads it too. */
static void test_memo_same_answer(void **state)
{
	struct fx *f = *state;
	struct size_slo slo = {0};
	struct err e;
	const struct policy_ops *pols[] = {policy_find("first-fit"), policy_find("best-fit")};
	static struct tmemo m;
	struct size_memo sm = {tmemo_get, tmemo_put, &m, 0};
	add_jobs(f, 0, 300, 30);
	assert_int_equal(size_slo_parse("wait_p95<=60", &slo, &e), 0);
	pthread_mutex_init(&m.mu, NULL);

	struct size_opts o = fx_opts(f, pols, 2, &slo, 1, 1);
	struct size_result *r, *q;
	assert_int_equal(size_run(&o, &r, &e), 0);
	o.memo = &sm;
	assert_int_equal(size_run(&o, &q, &e), 0); /* an empty memo: every run made, put */
	size_t made = m.puts;
	assert_int_equal(m.gets, 0);
	assert_true(made >= 2 * (r[0].probes + r[1].probes)); /* every probe at both seeds */
	for (size_t p = 0; p < 2; p++)
		assert_same_result(&q[p], &r[p]);
	size_results_free(q, 2);
	for (unsigned th = 1; th <= 3; th += 2) { /* the memo whole: nothing run */
		m.gets = m.puts = 0;
		o.nthreads = th;
		assert_int_equal(size_run(&o, &q, &e), 0);
		assert_int_equal(m.puts, 0);
		assert_true(m.gets >= 2 * (r[0].probes + r[1].probes));
		for (size_t p = 0; p < 2; p++)
			assert_same_result(&q[p], &r[p]);
		size_results_free(q, 2);
	}
	/* half of it: the other half run again, the same answers */
	o.nthreads = 1;
	m.n = made / 2;
	m.gets = m.puts = 0;
	assert_int_equal(size_run(&o, &q, &e), 0);
	assert_int_equal(m.gets, made / 2);
	assert_int_equal(m.puts, made - made / 2);
	for (size_t p = 0; p < 2; p++)
		assert_same_result(&q[p], &r[p]);
	size_results_free(q, 2);
	/* the full cluster's runs of first-fit changed to miss the SLO: it is not searched */
	assert_true(r[0].full_ok);
	for (size_t i = 0; i < m.n; i++)
		if (m.r[i].pol == pols[0] && m.r[i].step == f->plan.steps)
			m.r[i].run.fig[RUNREC_WAIT_P95] = 1e6;
	assert_int_equal(size_run(&o, &q, &e), 0);
	assert_false(q[0].full_ok);
	assert_same_result(&q[1], &r[1]);
	size_results_free(q, 2);
	/* known runs come first, counted as reused, as without a memo */
	double fig[2 * RUNREC_NCOL];
	struct size_known kn;
	struct size_opts ok = fx_opts(f, pols, 2, &slo, 1, 1);
	assert_int_equal(size_full_runs(&ok, 0, fig, &kn, NULL, &e), 0);
	ok.known = &kn;
	ok.nknown = 1;
	assert_int_equal(size_run(&ok, &q, &e), 0);
	struct size_result *qk;
	ok.memo = &sm;
	assert_int_equal(size_run(&ok, &qk, &e), 0);
	assert_int_equal(qk[0].reused, 2);
	for (size_t p = 0; p < 2; p++)
		assert_same_result(&qk[p], &q[p]);
	size_results_free(q, 2);
	size_results_free(qk, 2);
	/* size_probe: a step's runs read, not run */
	struct size_check c0, c1;
	double full[2 * RUNREC_NCOL];
	o.memo = NULL;
	assert_int_equal(size_probe(&o, 1, f->plan.steps, NULL, &c0, full, &e), 0);
	assert_int_equal(size_probe(&o, 1, 1, full, &c0, NULL, &e), 0);
	o.memo = &sm;
	m.n = m.gets = m.puts = 0;
	assert_int_equal(size_probe(&o, 1, 1, full, &c1, NULL, &e), 0); /* run, put */
	assert_int_equal(m.puts, 2);
	assert_same_check(&c1, &c0);
	m.puts = 0;
	assert_int_equal(size_probe(&o, 1, 1, full, &c1, NULL, &e), 0); /* read */
	assert_int_equal(m.gets, 2);
	assert_int_equal(m.puts, 0);
	assert_same_check(&c1, &c0);
	assert_true(c1.events == c0.events);
	size_results_free(r, 2);
	pthread_mutex_destroy(&m.mu);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_slo_parse),
		cmocka_unit_test(test_plan_groups),
		cmocka_unit_test(test_plan_nodes_nested),
		cmocka_unit_test_setup_teardown(test_search_by_hand, setup, teardown),
		cmocka_unit_test_setup_teardown(test_faults_follow_nodes, setup, teardown),
		cmocka_unit_test(test_bisection_vs_every_size),
		cmocka_unit_test(test_threads_same_answer),
		cmocka_unit_test(test_headroom_first_miss),
		cmocka_unit_test(test_hint_gallop),
		cmocka_unit_test_setup_teardown(test_giveup_same_answer, setup, teardown),
		cmocka_unit_test_setup_teardown(test_known_same_answer, setup, teardown),
		cmocka_unit_test_setup_teardown(test_memo_same_answer, setup, teardown),
		cmocka_unit_test_setup_teardown(test_memo_complete, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
