/*
 * test-k8s.c — the kube-scheduler score plugins (k8s.h) on hand-made nodes, against the FGD
 * artifact's formulas worked by hand (truncation included), and the k8s search of the
 * simulator: ties by node name, at random, and the weighted sum.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "cluster.h"
#include "frag.h"
#include "gpumodel.h"
#include "k8s.h"
#include "policy.h"
#include "sim.h"

#define HBM_GPU 16000

struct tc {
	struct node nodes[4];
	struct cluster c;
	struct job jobs[32];
	int njobs;
	struct frag_workload wl;
	double nf[4];
	struct policy_ctx ctx;
	struct k8s_spec spec;
};

static void mkjob(struct job *j, int64_t cpu, int ngpu, int milli)
{
	job_init(j);
	j->id = 1;
	j->num_gpu = ngpu;
	j->gpu_milli = ngpu ? milli : 0;
	j->dem[DIM_CPU] = cpu;
	j->dem[DIM_MEM] = 1000;
	j->dem[DIM_GPU] = (int64_t)ngpu * j->gpu_milli;
	j->dem[DIM_NET] = j->dem[DIM_STO] = j->dem[DIM_IOCPU] = 0;
}

static const struct job *job_of(const void *u, int32_t idx)
{
	const struct tc *t = u;
	return &t->jobs[idx];
}

/* n nodes: ngpu[i] GPUs, cpu[i] millicores. Workload: 3 x (1 x 500, cpu 1000) and
 * 1 x (1 x 1000, cpu 2000), as test-policy's. */
static void tc_init(struct tc *t, int n, const int *ngpu, const int64_t *cpu)
{
	memset(t, 0, sizeof *t);
	for (int i = 0; i < n; i++) {
		struct node *nd = &t->nodes[i];
		node_init(nd);
		snprintf(nd->name, sizeof nd->name, "n%d", i);
		nd->ngpu = ngpu[i];
		nd->model = ngpu[i] ? 1 : -1;
		int64_t cap[DIM_N] = {
			cpu[i], 256000, ngpu[i] * 1000, (int64_t)ngpu[i] * HBM_GPU, 1000,
			1000,   1000};
		memcpy(nd->cap, cap, sizeof cap);
	}
	cluster_init(&t->c, t->nodes, (size_t)n);
	struct job w[4];
	mkjob(&w[0], 1000, 1, 500);
	mkjob(&w[1], 2000, 1, 1000);
	mkjob(&w[2], 1000, 1, 500);
	mkjob(&w[3], 1000, 1, 500);
	frag_workload_build(&t->wl, w, 4, 1.0);
	t->ctx.c = &t->c;
	t->ctx.wl = &t->wl;
	t->ctx.node_frag = NULL;
	t->ctx.dims = DIM_BIT(DIM_GPU);
	policy_param_init(t->ctx.param);
	t->ctx.job_of = job_of;
	t->ctx.job_of_u = t;
	k8s_spec_of(&t->c, &t->spec);
}

static void tc_release(struct tc *t)
{
	cluster_release(&t->c);
	frag_workload_release(&t->wl);
}

/* A job of milli on each GPU in gpus of node n (gpus 0: CPU only), with cpu. */
static void tc_put(struct tc *t, int n, uint32_t gpus, int milli, int64_t cpu)
{
	struct placement p;
	memset(&p, 0, sizeof p);
	int k = __builtin_popcount(gpus);
	mkjob(&t->jobs[t->njobs], cpu, k, k ? milli : 0);
	p.node = n;
	p.gpus = gpus;
	p.milli = k ? milli : 0;
	p.hbm = k ? (int64_t)HBM_GPU * milli / 1000 : 0;
	p.dem[DIM_CPU] = cpu;
	p.dem[DIM_MEM] = 1000;
	p.dem[DIM_GPU] = (int64_t)k * p.milli;
	p.dem[DIM_HBM] = (int64_t)k * p.hbm;
	cluster_place(&t->c, &p, t->njobs++);
}

/* The raw score of the plugin of policy name for j on node n, and the GPUs it takes. */
static int64_t score(struct tc *t, const char *name, const struct job *j, int n, uint32_t *gpus)
{
	struct k8s_plugin pl;
	struct placement ch[CLUSTER_MAX_GPUS];
	int k = cluster_choices(&t->c, (size_t)n, j, ch, CLUSTER_MAX_GPUS), pick = -1;
	assert_true(k > 0);
	k8s_plugin_of(policy_find(name), &pl);
	int64_t v = k8s_node_score(&pl, &t->ctx, &t->spec, j, (size_t)n, ch, k, &pick);
	assert_true(pick >= 0 && pick < k);
	if (gpus)
		*gpus = ch[pick].gpus;
	return v;
}

static void test_fgd_truncation(void **state)
{
	(void)state;
	/* trunc(100 / (1 + e^(dF / 1000))): worked with a calculator */
	assert_int_equal(k8s_fgd_of(0), 50);
	assert_int_equal(k8s_fgd_of(-40), 50); /* 50.9999: a drop of 40 milli ties with none */
	assert_int_equal(k8s_fgd_of(-41), 51); /* 51.0249 */
	assert_int_equal(k8s_fgd_of(40), 49);  /* 49.0001 */
	assert_int_equal(k8s_fgd_of(41), 48);  /* 48.9751 */
	assert_int_equal(k8s_fgd_of(-5000), 99);
	assert_int_equal(k8s_fgd_of(5000), 0); /* 0.669: every big increase ties at 0 */
	assert_int_equal(k8s_fgd_of(-1e9), 100);
}

static void test_fgd_plugin(void **state)
{
	(void)state;
	struct tc t;
	int g[2] = {4, 4};
	int64_t cpu[2] = {32000, 32000};
	tc_init(&t, 2, g, cpu);
	/* node 0: GPU free {1000, 300, 600, 0}, cpu 4000 used; node 1 idle */
	tc_put(&t, 0, 2, 700, 0);
	tc_put(&t, 0, 4, 400, 0);
	tc_put(&t, 0, 8, 1000, 0);
	tc_put(&t, 0, 0, 0, 4000);
	struct job j;
	uint32_t gpus;
	/* A 500 share: GPU 2 of node 0 lowers F_n by 50 (sigmoid(0.05) = 0.5125: 51), GPU 0
	 * raises it by 125 (0.4688: 46); node 1 by 125 (46). The node's score is its best GPU's. */
	mkjob(&j, 0, 1, 500);
	assert_int_equal(score(&t, "fgd", &j, 0, &gpus), 51);
	assert_int_equal(gpus, 4u);
	assert_int_equal(score(&t, "fgd", &j, 1, &gpus), 46);
	/* A whole GPU: F_n does not change on either node: 50 and 50, a tie. */
	mkjob(&j, 0, 1, 1000);
	assert_int_equal(score(&t, "fgd", &j, 0, NULL), 50);
	assert_int_equal(score(&t, "fgd", &j, 1, NULL), 50);
	tc_release(&t);
}

static void test_dotprod_max_norm(void **state)
{
	(void)state;
	struct tc t;
	int g[2] = {8, 2};
	int64_t cpu[2] = {128000, 32000};
	tc_init(&t, 2, g, cpu);
	assert_int_equal(t.spec.cpu, 128000);
	assert_int_equal(t.spec.gpu, 8000);
	struct job j;
	mkjob(&j, 8000, 1, 1000);
	/* big node: (1 x 8/128 + 1 x 1/8) / 2 = 0.09375 -> trunc(90.625) = 90;
	 * small node: (1/4 x 1/16 + 1/4 x 1/8) / 2 = 0.0234375 -> trunc(97.66) = 97: the
	 * small node wins, where normalising by each node's capacity picks the big one */
	assert_int_equal(score(&t, "dotprod", &j, 0, NULL), 90);
	assert_int_equal(score(&t, "dotprod", &j, 1, NULL), 97);
	struct placement p0, p1;
	assert_int_equal(cluster_first_choice(&t.c, 0, &j, &p0), 1);
	assert_int_equal(cluster_first_choice(&t.c, 1, &j, &p1), 1);
	t.ctx.dims = policy_find("dotprod")->dims;
	assert_true(policy_find("dotprod")->score(&t.ctx, &j, &p0) <
		    policy_find("dotprod")->score(&t.ctx, &j, &p1));
	tc_release(&t);
}

static void test_packing_tiers(void **state)
{
	(void)state;
	struct tc t;
	int g[3] = {8, 2, 4};
	int64_t cpu[3] = {64000, 64000, 64000};
	tc_init(&t, 3, g, cpu);
	tc_put(&t, 2, 1, 500, 1000); /* node 2: GPU 0 free 500, GPU 1 free 1000 ... */
	tc_put(&t, 2, 2, 800, 1000); /* ... GPU 1 free 200 */
	struct job j;
	uint32_t gpus;
	mkjob(&j, 1000, 0, 0); /* CPU-only: the minimum everywhere */
	assert_int_equal(score(&t, "packing", &j, 0, NULL), 0);
	assert_int_equal(score(&t, "packing", &j, 2, NULL), 0);
	mkjob(&j, 1000, 1, 300);
	assert_int_equal(score(&t, "packing", &j, 0, NULL), 25); /* idle: max(33 - 8, 8) */
	assert_int_equal(score(&t, "packing", &j, 1, NULL), 31); /* idle: max(33 - 2, 2) */
	/* on a partly used GPU: the least free first that fits is GPU 0 (free 500; GPU 1 has
	 * 200), 500 * 100 / 1000 = 50, 100 - 50 / 10 = 95; best fit takes GPU 0 too */
	assert_int_equal(score(&t, "packing", &j, 2, &gpus), 95);
	assert_int_equal(gpus, 1u);
	mkjob(&j, 1000, 1, 600); /* no partly used GPU has room: an idle one, 50 - 1 */
	assert_int_equal(score(&t, "packing", &j, 2, &gpus), 49);
	assert_int_equal(gpus, 4u);
	mkjob(&j, 1000, 2, 1000); /* two idle GPUs of a used node: 50 - 2 */
	assert_int_equal(score(&t, "packing", &j, 2, NULL), 48);
	tc_release(&t);
}

static void test_clustering_tiers(void **state)
{
	(void)state;
	struct tc t;
	int g[4] = {8, 2, 8, 8};
	int64_t cpu[4] = {64000, 64000, 64000, 64000};
	tc_init(&t, 4, g, cpu);
	tc_put(&t, 0, 1, 500, 1000);  /* node 0: shares only, 7500 free */
	tc_put(&t, 2, 1, 500, 1000);  /* node 2: a share ... */
	tc_put(&t, 2, 6, 1000, 1000); /* ... and a 2-GPU job: 5500 free */
	tc_put(&t, 3, 3, 1000, 1000); /* node 3: a 2-GPU job only: 6000 free */
	struct job j;
	mkjob(&j, 1000, 0, 0);
	assert_int_equal(score(&t, "clustering", &j, 0, NULL), 0);
	mkjob(&j, 1000, 1, 300);
	/* 25 (8000 - free) / 8000 in integers, + 75 same type only, + 50 mixed, + 25 idle */
	assert_int_equal(score(&t, "clustering", &j, 0, NULL), 1 + 75);  /* 25 * 500 / 8000 */
	assert_int_equal(score(&t, "clustering", &j, 1, NULL), 18 + 25); /* 25 * 6000 / 8000 */
	assert_int_equal(score(&t, "clustering", &j, 2, NULL), 7 + 50);  /* 25 * 2500 / 8000 */
	assert_int_equal(score(&t, "clustering", &j, 3, NULL), 6);       /* 25 * 2000 / 8000 */
	mkjob(&j, 1000, 2, 1000); /* the 2-GPU type: node 3 is its own */
	assert_int_equal(score(&t, "clustering", &j, 3, NULL), 6 + 75);
	assert_int_equal(score(&t, "clustering", &j, 0, NULL), 1);
	tc_release(&t);
}

static void test_best_fit_and_normalize(void **state)
{
	(void)state;
	struct tc t;
	int g[2] = {8, 2};
	int64_t cpu[2] = {128000, 32000};
	tc_init(&t, 2, g, cpu);
	struct job j;
	mkjob(&j, 8000, 1, 1000);
	/* 100 (1 - (120000 / 128000 + 7000 / 8000) / 2) = 9.375 -> 9;
	 * 100 (1 - (24000 / 128000 + 1000 / 8000) / 2) = 84.375 -> 84 */
	assert_int_equal(score(&t, "best-fit", &j, 0, NULL), 9);
	assert_int_equal(score(&t, "best-fit", &j, 1, NULL), 84);
	int64_t v[3] = {9, 84, 30};
	k8s_normalize(v, 3);
	assert_int_equal(v[0], 0);
	assert_int_equal(v[1], 100);
	assert_int_equal(v[2], 28); /* 21 * 100 / 75 = 28.0 */
	int64_t w[3] = {0, 1, 3};
	k8s_normalize(w, 3);
	assert_int_equal(w[1], 33); /* integer division truncates */
	int64_t e[2] = {7, 7};
	k8s_normalize(e, 2);
	assert_int_equal(e[0], 0);
	assert_int_equal(e[1], 0);
	struct k8s_plugin pl;
	k8s_plugin_of(policy_find("best-fit"), &pl);
	assert_true(pl.normalize);
	k8s_plugin_of(policy_find("fgd"), &pl);
	assert_false(pl.normalize);
	k8s_plugin_of(policy_find("tetris"), &pl); /* derived: the exact score, normalised */
	assert_int_equal(pl.kind, K8S_DERIVED);
	assert_true(pl.normalize);
	assert_int_equal(k8s_derived_of(0.25), -250000);
	assert_int_equal(k8s_derived_of(-1.0000004), 1000000);
	tc_release(&t);
}

static void test_gpu_weight_and_weights(void **state)
{
	(void)state;
	struct tc t;
	int g[1] = {4};
	int64_t cpu[1] = {32000};
	tc_init(&t, 1, g, cpu);
	tc_put(&t, 0, 1, 500, 0); /* GPU free {500, 1000, 1000, 1000} */
	struct job j;
	struct placement ch[CLUSTER_MAX_GPUS];
	mkjob(&j, 0, 1, 300);
	int k = cluster_choices(&t.c, 0, &j, ch, CLUSTER_MAX_GPUS);
	assert_int_equal(k, 2);
	assert_int_equal(k8s_gpu_weight(&t.c, 0, &ch[0]), 1); /* GPU 0 */
	assert_int_equal(k8s_gpu_weight(&t.c, 0, &ch[1]), 3); /* GPUs 1-3 alike */
	struct k8s_plugin pl[K8S_MAX_PLUGINS];
	size_t n = 0;
	const char *bad = NULL;
	assert_int_equal(k8s_weights_parse("packing=2,fgd=1000", pl, 7, &n, &bad), 0);
	assert_int_equal(n, 2);
	assert_int_equal(pl[0].kind, K8S_PACKING);
	assert_int_equal(pl[0].weight, 2);
	assert_int_equal(pl[1].weight, 1000);
	static const char *const wrong[] = {"",       "fgd",         "fgd=0",
					    "nope=1", "fgd=1,fgd=2", "fgd=1,",
					    "fgd=1x", "=3",          "fgd=1000001"};
	for (size_t i = 0; i < sizeof wrong / sizeof wrong[0]; i++)
		assert_int_equal(k8s_weights_parse(wrong[i], pl, 7, &n, &bad), -1);
	assert_int_equal(k8s_weights_parse("fgd=1,nope=2", pl, 7, &n, &bad), -1);
	assert_string_equal(bad, "nope=2");
	tc_release(&t);
}

/* ---- the search ---- */

static void add_node(struct job_set *js, const char *name, int ngpu, int64_t cpu)
{
	struct node n;
	node_init(&n);
	snprintf(n.name, sizeof n.name, "%s", name);
	n.ngpu = ngpu;
	n.model = (int16_t)gpumodel_find("T4");
	int64_t cap[DIM_N] = {cpu, 1 << 20, ngpu * 1000, ngpu * 16384, 1000, 1000, 8000};
	memcpy(n.cap, cap, sizeof cap);
	job_set_add_node(js, &n);
}

static void add_job(struct job_set *js, int64_t cpu, int ngpu, int milli)
{
	struct job j;
	job_init(&j);
	j.id = (int64_t)js->njobs;
	j.arrival = (int64_t)js->njobs;
	j.duration = 1000000;
	j.num_gpu = ngpu;
	j.gpu_milli = ngpu ? milli : 0;
	int64_t dem[DIM_N] = {cpu, 1024, (int64_t)ngpu * j.gpu_milli, -1, 0, 0, 0};
	memcpy(j.dem, dem, sizeof dem);
	job_set_add_job(js, &j);
}

/* The node of job i after a timed run of js under policy name with o. */
static int32_t node_of(const struct job_set *js, const char *name, const struct sim_opts *o,
		       size_t i)
{
	struct sim *s;
	struct frag_workload wl;
	frag_workload_build(&wl, js->jobs, js->njobs, 1.0);
	assert_int_equal(sim_new(js, policy_find(name), &wl, o, &s, NULL), 0);
	sim_run(s);
	struct sim_job_result r;
	sim_job_result(s, i, &r);
	sim_free(s);
	frag_workload_release(&wl);
	return r.node;
}

/* Four identical idle nodes, named out of index order: alpha, the first name, is node 2. */
static void add_named_nodes(struct job_set *js)
{
	static const char *const names[] = {"zeta", "beta", "alpha", "gamma"};
	for (size_t i = 0; i < 4; i++)
		add_node(js, names[i], 4, 32000);
}

static void test_ties_by_name(void **state)
{
	(void)state;
	struct job_set js;
	memset(&js, 0, sizeof js);
	/* Identical idle nodes, named out of index order: an exact search takes the lowest
	 * index, k8s the first name. */
	add_named_nodes(&js);
	add_job(&js, 1000, 1, 500);
	struct sim_opts o;
	sim_opts_init(&o);
	assert_int_equal(node_of(&js, "fgd", &o, 0), 0);
	assert_int_equal(node_of(&js, "packing", &o, 0), 0);
	o.scoring = SIM_SCORING_K8S;
	assert_int_equal(node_of(&js, "fgd", &o, 0), 2);
	assert_int_equal(node_of(&js, "packing", &o, 0), 2);
	assert_int_equal(node_of(&js, "first-fit", &o, 0), 2);
	/* Random ties: seeded, so repeatable, and not always the first name. */
	o.k8s_tie = SIM_TIE_RANDOM;
	int seen[4] = {0}, again;
	for (uint64_t seed = 1; seed <= 24; seed++) {
		o.seed = seed;
		int32_t n = node_of(&js, "fgd", &o, 0);
		again = node_of(&js, "fgd", &o, 0);
		assert_int_equal(n, again);
		seen[n]++;
	}
	assert_true(seen[0] && seen[1] && seen[2] && seen[3]);
	job_set_release(&js);
}

static void test_ties_shuffled(void **state)
{
	(void)state;
	/* k8s_shuffle_ranks: a permutation of the ranks, the same for the same seed, not the
	 * same for every seed. */
	int32_t a[16], b[16];
	int moved = 0;
	for (uint64_t seed = 1; seed <= 8; seed++) {
		int seen[16] = {0};
		for (int32_t i = 0; i < 16; i++)
			a[i] = b[i] = 15 - i;
		k8s_shuffle_ranks(a, 16, seed);
		k8s_shuffle_ranks(b, 16, seed);
		for (int i = 0; i < 16; i++) {
			assert_int_equal(a[i], b[i]);
			seen[a[i]]++;
			moved += a[i] != 15 - i;
		}
		for (int i = 0; i < 16; i++)
			assert_int_equal(seen[i], 1);
	}
	assert_true(moved > 0);

	/* Identical idle nodes, and CPU-only jobs that packing scores 0 on every node: with
	 * shuffled ties each seed has its first name, the node every such job goes to (random
	 * ties scatter them), and over the seeds every node is first once in a while. */
	struct job_set js;
	memset(&js, 0, sizeof js);
	add_named_nodes(&js);
	for (int i = 0; i < 3; i++)
		add_job(&js, 1000, 0, 0);
	struct sim_opts o;
	sim_opts_init(&o);
	o.scoring = SIM_SCORING_K8S;
	o.k8s_tie = SIM_TIE_SHUFFLED;
	int first[4] = {0}, apart = 0;
	for (uint64_t seed = 1; seed <= 24; seed++) {
		o.seed = seed;
		int32_t n = node_of(&js, "packing", &o, 0);
		assert_int_equal(node_of(&js, "packing", &o, 0), n);
		assert_int_equal(node_of(&js, "packing", &o, 1), n);
		assert_int_equal(node_of(&js, "packing", &o, 2), n);
		first[n]++;
		o.k8s_tie = SIM_TIE_RANDOM;
		apart += node_of(&js, "packing", &o, 1) != node_of(&js, "packing", &o, 2);
		o.k8s_tie = SIM_TIE_SHUFFLED;
	}
	assert_true(first[0] && first[1] && first[2] && first[3]);
	assert_true(apart > 0);
	job_set_release(&js);
}

static void test_quantised_ties_pack(void **state)
{
	(void)state;
	struct job_set js;
	memset(&js, 0, sizeof js);
	/* Two idle nodes, n1 at index 0. A whole GPU lowers F_n by 500 on either (the CPU-only
	 * shape no longer strands that GPU): a tie, to the first name, n0. The CPU-only job
	 * after it changes no F_n: a tie again, so it packs onto n0 too. */
	add_node(&js, "n1", 2, 32000);
	add_node(&js, "n0", 2, 32000);
	add_job(&js, 1000, 1, 1000);
	add_job(&js, 1000, 0, 0);
	struct sim_opts o;
	sim_opts_init(&o);
	o.scoring = SIM_SCORING_K8S;
	assert_int_equal(node_of(&js, "fgd", &o, 0), 1);
	assert_int_equal(node_of(&js, "fgd", &o, 1), 1);
	/* Weighted sum: random's 100 on one drawn node outweighs fgd's 50-point scale only
	 * with a large weight; with weight 1000 the job follows the draw, which changes with the
	 * seed. */
	o.k8s_weights = "random=1000";
	int seen[2] = {0};
	for (uint64_t seed = 1; seed <= 16; seed++) {
		o.seed = seed;
		seen[node_of(&js, "fgd", &o, 0)]++;
	}
	assert_true(seen[0] && seen[1]);
	struct sim *s;
	o.k8s_weights = "fgd=1,nope=3";
	assert_int_not_equal(sim_new(&js, policy_find("fgd"), NULL, &o, &s, NULL), 0);
	job_set_release(&js);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fgd_truncation),
		cmocka_unit_test(test_fgd_plugin),
		cmocka_unit_test(test_dotprod_max_norm),
		cmocka_unit_test(test_packing_tiers),
		cmocka_unit_test(test_clustering_tiers),
		cmocka_unit_test(test_best_fit_and_normalize),
		cmocka_unit_test(test_gpu_weight_and_weights),
		cmocka_unit_test(test_ties_by_name),
		cmocka_unit_test(test_ties_shuffled),
		cmocka_unit_test(test_quantised_ties_pack),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
