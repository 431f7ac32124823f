/*
 * test-policy.c — every placement policy on small hand-made clusters where the rule's choice
 * is known, run through the simulator's score loop (and pick() where a policy has one).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <math.h>
#include <string.h>

#include <cmocka.h>

/* cmocka's assert_float_equal compares floats; these checks need doubles. */
#define assert_near(a, b, eps) assert_near_((a), (b), (eps), __FILE__, __LINE__)
static void assert_near_(double a, double b, double eps, const char *file, int line)
{
	if (!(fabs(a - b) <= eps)) {
		print_error("%.17g != %.17g (within %g)\n", a, b, eps);
		_fail(file, line);
	}
}

#include "cluster.h"
#include "fault.h"
#include "frag.h"
#include "gpumodel.h"
#include "policy.h"
#include "sim.h"

#define HBM_GPU 16000

/* A test cluster of up to 4 nodes, the jobs placed on it, and a policy context. */
struct tc {
	struct node nodes[4];
	struct cluster c;
	struct job jobs[32]; /* jobs[i] was placed as job index i */
	int njobs;
	struct frag_workload wl;
	double nf[4];
	struct rng rng;
	struct policy_ctx ctx;
};

static void mkjob(struct job *j, int64_t cpu, int ngpu, int milli, int64_t net)
{
	job_init(j);
	j->id = 7;
	j->num_gpu = ngpu;
	j->gpu_milli = ngpu ? milli : 0;
	j->dem[DIM_CPU] = cpu;
	j->dem[DIM_MEM] = 1000;
	j->dem[DIM_GPU] = (int64_t)ngpu * milli;
	j->dem[DIM_NET] = net;
	j->dem[DIM_STO] = j->dem[DIM_IOCPU] = 0;
}

static const struct job *job_of(const void *u, int32_t idx)
{
	const struct tc *t = u;
	assert_true(idx >= 0 && idx < t->njobs);
	return &t->jobs[idx];
}

/* n nodes, node i with ngpu[i] GPUs of model 1, cpu cap cpu[i] (0: 32000). */
static void tc_init(struct tc *t, int n, const int *ngpu, const int64_t *cpu)
{
	memset(t, 0, sizeof *t);
	for (int i = 0; i < n; i++) {
		struct node *nd = &t->nodes[i];
		node_init(nd);
		nd->ngpu = ngpu[i];
		nd->model = ngpu[i] ? 1 : -1;
		int64_t cap[DIM_N] = {cpu && cpu[i] ? cpu[i] : 32000,
				      256000,
				      ngpu[i] * 1000,
				      (int64_t)ngpu[i] * HBM_GPU,
				      1000,
				      1000,
				      1000};
		memcpy(nd->cap, cap, sizeof cap);
	}
	cluster_init(&t->c, t->nodes, (size_t)n);
	rng_seed(&t->rng, 42);
	/* Default workload: the FGD test's A (1 x 500, cpu 1000) x3 and B (1 x 1000, cpu 2000). */
	struct job w[4];
	mkjob(&w[0], 1000, 1, 500, 0);
	mkjob(&w[1], 2000, 1, 1000, 0);
	mkjob(&w[2], 1000, 1, 500, 0);
	mkjob(&w[3], 1000, 1, 500, 0);
	frag_workload_build(&t->wl, w, 4, 1.0);
	t->ctx.c = &t->c;
	t->ctx.wl = &t->wl;
	t->ctx.node_frag = t->nf;
	policy_param_init(t->ctx.param);
	t->ctx.rng = &t->rng;
	t->ctx.job_of = job_of;
	t->ctx.job_of_u = t;
}

static void tc_release(struct tc *t)
{
	cluster_release(&t->c);
	frag_workload_release(&t->wl);
}

/* Place a job of milli on each GPU in gpus of node n (gpus 0: CPU only), with cpu and net. */
static void tc_put(struct tc *t, int n, uint32_t gpus, int milli, int64_t cpu, int64_t net)
{
	struct placement p;
	memset(&p, 0, sizeof p);
	int k = __builtin_popcount(gpus);
	struct job *j = &t->jobs[t->njobs];
	mkjob(j, cpu, k, k ? milli : 0, net);
	p.node = n;
	p.gpus = gpus;
	p.milli = k ? milli : 0;
	p.hbm = k ? (int64_t)HBM_GPU * milli / 1000 : 0;
	p.dem[DIM_CPU] = cpu;
	p.dem[DIM_MEM] = 1000;
	p.dem[DIM_GPU] = (int64_t)k * p.milli;
	p.dem[DIM_HBM] = (int64_t)k * p.hbm;
	p.dem[DIM_NET] = net;
	cluster_place(&t->c, &p, t->njobs++);
}

/* The score loop: the lowest score wins, ties to the lowest node, then its first choice.
 * skipped, if not NULL, is the loop as a bound lets the simulator search: node by node in
 * order, a node skipped (and counted) when its bound is not below the best score so far (a
 * later node wins no tie), so the choice is the same whenever the bound never exceeds a
 * choice's score. */
static int decide_bounded(struct tc *t, const struct policy_ops *ops, const struct job *j,
			  struct placement *out, long *skipped)
{
	struct placement ch[CLUSTER_MAX_GPUS];
	double best = 0;
	int node = -1;
	for (size_t n = 0; n < t->c.n; n++) {
		if (skipped && node >= 0 && ops->bound(&t->ctx, j, n) >= best) {
			++*skipped;
			continue;
		}
		int k = cluster_choices(&t->c, n, j, ch, CLUSTER_MAX_GPUS);
		for (int i = 0; i < k; i++) {
			double s = ops->score(&t->ctx, j, &ch[i]);
			if (node < 0 || s < best) {
				best = s;
				node = (int)n;
				*out = ch[i];
			}
		}
	}
	return node;
}

/* The simulator's loop, node_frag refreshed first. Returns the node, or -1 if j fits
 * nowhere. */
static int decide(struct tc *t, const struct policy_ops *ops, const struct job *j,
		  struct placement *out)
{
	for (size_t n = 0; n < t->c.n; n++)
		t->nf[n] = frag_node(&t->c, n, &t->wl);
	return decide_bounded(t, ops, j, out, NULL);
}

/* decide() under policy name with its own dims. */
static int run(struct tc *t, const char *name, const struct job *j, struct placement *out)
{
	const struct policy_ops *ops = policy_find(name);
	assert_non_null(ops);
	t->ctx.dims = ops->dims;
	return decide(t, ops, j, out);
}

static void test_table(void **state)
{
	(void)state;
	static const char *const names[] = {"random",  "first-fit",  "best-fit", "scalar",
					    "packing", "clustering", "dotprod",  "tetris",
					    "fgd",     "fgd-pack",   "ragp5",    "ragp7"};
	int n = 0;
	for (const struct policy_ops *const *p = policy_table; *p; p++, n++) {
		assert_true(n < 12);
		assert_string_equal((*p)->name, names[n]);
		assert_ptr_equal(policy_find(names[n]), *p);
		assert_non_null((*p)->score);
		assert_true((*p)->summary && *(*p)->summary);
		assert_true((*p)->dims && !((*p)->dims & ~DIMS_ALL));
	}
	assert_int_equal(n, 12);
	assert_null(policy_find("nope"));
	assert_null(policy_find(NULL));
	assert_int_equal(policy_find("ragp7")->dims, DIMS_ALL);
	assert_int_equal(policy_find("ragp5")->dims, DIM_BIT(DIM_CPU) | DIM_BIT(DIM_MEM) |
							     DIM_BIT(DIM_GPU) | DIM_BIT(DIM_HBM) |
							     DIM_BIT(DIM_NET));
	assert_int_equal(policy_find("tetris")->dims,
			 DIM_BIT(DIM_CPU) | DIM_BIT(DIM_MEM) | DIM_BIT(DIM_GPU) | DIM_BIT(DIM_NET));
	assert_non_null(policy_find("first-fit")->pick);
	assert_non_null(policy_find("random")->pick);
	assert_false(policy_find("random")->flags & POLICY_F_BY_STATE);
	assert_false(policy_find("clustering")->flags & POLICY_F_BY_STATE);
	assert_true(policy_find("fgd")->flags & POLICY_F_BY_STATE);
}

static void test_first_fit(void **state)
{
	(void)state;
	struct tc t;
	int g[3] = {2, 2, 2};
	tc_init(&t, 3, g, NULL);
	tc_put(&t, 0, 3, 1000, 0, 0); /* node 0 full */
	struct job j;
	struct placement p, q;
	mkjob(&j, 1000, 1, 1000, 0);
	assert_int_equal(run(&t, "first-fit", &j, &p), 1);
	assert_int_equal(policy_find("first-fit")->pick(&t.ctx, &j, &q), 1);
	assert_int_equal(q.node, 1);
	assert_int_equal(q.gpus, p.gpus);
	/* Seeing net: node 1 would be oversubscribed, node 2 not. */
	tc_put(&t, 1, 0, 0, 0, 950);
	mkjob(&j, 1000, 1, 1000, 100);
	t.ctx.dims = DIMS_HARD | DIM_BIT(DIM_NET);
	assert_int_equal(policy_find("first-fit")->pick(&t.ctx, &j, &q), 1);
	assert_int_equal(q.node, 2);
	/* Nothing fits: 3 GPUs on 2-GPU nodes. */
	mkjob(&j, 1000, 3, 1000, 0);
	assert_int_equal(policy_find("first-fit")->pick(&t.ctx, &j, &q), 0);
	assert_int_equal(run(&t, "first-fit", &j, &p), -1);
	tc_release(&t);
}

/* random's pick() asks whether a job fits only where its draw can still win: with net in
 * view and nodes that the job would oversubscribe (score 1e9 + draw), it still agrees with the
 * score loop, job after job, and keeps off those nodes while another fits. */
static void test_random_pick_skips(void **state)
{
	(void)state;
	struct tc t;
	int g[4] = {2, 2, 2, 2};
	tc_init(&t, 4, g, NULL);
	tc_put(&t, 0, 0, 0, 0, 950);  /* net nearly full: a 100 Mb/s job oversubscribes */
	tc_put(&t, 2, 3, 1000, 0, 0); /* no GPU left */
	tc_put(&t, 3, 0, 0, 0, 960);
	const struct policy_ops *ops = policy_find("random");
	t.ctx.dims = ops->dims | DIM_BIT(DIM_NET);
	struct job j;
	int count[4] = {0};
	for (int id = 0; id < 2000; id++) {
		struct placement p, q;
		mkjob(&j, 1000, 1, id % 2 ? 1000 : 500, 100);
		j.id = id;
		int n = decide(&t, ops, &j, &p);
		assert_int_equal(ops->pick(&t.ctx, &j, &q), 1);
		assert_int_equal(q.node, n);
		assert_int_equal(q.gpus, p.gpus);
		count[n]++;
	}
	assert_int_equal(count[1], 2000); /* the one node it fits without oversubscribing */
	/* Node 1 full too: every feasible node oversubscribes; the draw still decides (it spans
	 * more than the overshoots differ), and pick() still agrees with the score loop. */
	tc_put(&t, 1, 3, 1000, 0, 0);
	memset(count, 0, sizeof count);
	for (int id = 0; id < 400; id++) {
		struct placement p, q;
		mkjob(&j, 1000, 1, 1000, 100);
		j.id = id;
		int n = decide(&t, ops, &j, &p);
		assert_int_equal(ops->pick(&t.ctx, &j, &q), 1);
		assert_int_equal(q.node, n);
		count[n]++;
	}
	assert_true(count[0] > 100 && count[3] > 100 && count[0] + count[3] == 400);
	tc_release(&t);
}

static void test_random(void **state)
{
	(void)state;
	struct tc t;
	int g[4] = {1, 1, 1, 1};
	tc_init(&t, 4, g, NULL);
	tc_put(&t, 2, 1, 1000, 0, 0); /* node 2 cannot host a GPU job */
	const struct policy_ops *ops = policy_find("random");
	t.ctx.dims = ops->dims;
	int count[4] = {0};
	struct job j;
	mkjob(&j, 1000, 1, 1000, 0);
	struct rng before = t.rng;
	for (int id = 0; id < 3000; id++) {
		struct placement p, q;
		j.id = id;
		int n = decide(&t, ops, &j, &p);
		assert_int_equal(ops->pick(&t.ctx, &j, &q), 1);
		assert_int_equal(q.node, n); /* pick agrees with the score loop */
		count[n]++;
	}
	assert_memory_equal(&before, &t.rng, sizeof before); /* read, never advanced */
	assert_int_equal(count[2], 0);
	/* Uniform over the 3 feasible nodes: 1000 each, sd about 26. */
	for (int n = 0; n < 4; n++)
		if (n != 2)
			assert_true(count[n] > 880 && count[n] < 1120);
	/* Another PRNG state gives other draws. */
	int differ = 0;
	for (int id = 0; id < 50; id++) {
		struct placement p;
		j.id = id;
		t.rng = before;
		int a = decide(&t, ops, &j, &p);
		rng_next(&t.rng);
		differ += decide(&t, ops, &j, &p) != a;
	}
	assert_true(differ > 10);
	tc_release(&t);
}

static void test_best_fit(void **state)
{
	(void)state;
	struct tc t;
	int g[2] = {2, 2};
	tc_init(&t, 2, g, NULL);
	tc_put(&t, 0, 2, 600, 0, 0); /* node 0: GPU free {1000, 400} */
	struct job j;
	struct placement p;
	/* cpu leftover equal; gpu leftover (1400 - 300) / 2000 < (2000 - 300) / 2000; on node 0
	 * GPU1 leaves 100, GPU0 700: the tightest GPU. */
	mkjob(&j, 1000, 1, 300, 0);
	assert_int_equal(run(&t, "best-fit", &j, &p), 0);
	assert_int_equal(p.gpus, 2u);
	/* 500 does not fit GPU1: node 0 still has less left. */
	mkjob(&j, 1000, 1, 500, 0);
	assert_int_equal(run(&t, "best-fit", &j, &p), 0);
	assert_int_equal(p.gpus, 1u);
	/* A whole GPU, with node 0's cpu at 30000 of 32000 and the job asking 1000: leftover
	 * 1/32 + 400/2000 at node 0, 31/32 + 1000/2000 at node 1: node 0. */
	tc_put(&t, 0, 0, 0, 30000, 0);
	mkjob(&j, 1000, 1, 1000, 0);
	assert_int_equal(run(&t, "best-fit", &j, &p), 0);
	tc_release(&t);
}

static void test_scalar(void **state)
{
	(void)state;
	struct tc t;
	int g[3] = {2, 2, 2};
	tc_init(&t, 3, g, NULL);
	tc_put(&t, 0, 1, 600, 0, 0);  /* node 0: GPU free {400, 1000}, share 0.3 */
	tc_put(&t, 1, 1, 1000, 0, 0); /* node 1: GPU free {0, 1000}, share 0.5 */
	tc_put(&t, 2, 3, 1000, 0, 0); /* node 2: full */
	struct job j;
	struct placement p;
	/* After a 300 share: node 0 at 0.45, node 1 at 0.65: node 0, on its emptiest GPU. */
	mkjob(&j, 1000, 1, 300, 0);
	assert_int_equal(run(&t, "scalar", &j, &p), 0);
	assert_int_equal(p.gpus, 2u);
	/* Equal GPU share: the cpu decides. */
	struct tc u;
	tc_init(&u, 2, g, NULL);
	tc_put(&u, 0, 0, 0, 8000, 0);
	mkjob(&j, 1000, 1, 1000, 0);
	assert_int_equal(run(&u, "scalar", &j, &p), 1);
	tc_release(&u);
	tc_release(&t);
}

static void test_packing(void **state)
{
	(void)state;
	struct tc t;
	int g[3] = {2, 2, 2};
	tc_init(&t, 3, g, NULL);
	tc_put(&t, 1, 1, 1000, 0, 0); /* node 1: GPU0 whole-used */
	tc_put(&t, 2, 1, 600, 0, 0);  /* node 2: GPU0 partly used, 400 free */
	struct job j;
	struct placement p;
	/* A 300 share: the partly used GPU (tier 0). */
	mkjob(&j, 1000, 1, 300, 0);
	assert_int_equal(run(&t, "packing", &j, &p), 2);
	assert_int_equal(p.gpus, 1u);
	/* A whole GPU: used nodes (tier 1); node 1 is left fuller (0 vs 400 of 2000 free). */
	mkjob(&j, 1000, 1, 1000, 0);
	assert_int_equal(run(&t, "packing", &j, &p), 1);
	/* A 500 share fits no partly used GPU: a free GPU on a used node, the fuller node 1
	 * (1.3125 vs 1.3625), never the idle node 0. */
	mkjob(&j, 1000, 1, 500, 0);
	assert_int_equal(run(&t, "packing", &j, &p), 1);
	/* Two GPUs: only the idle node. */
	mkjob(&j, 1000, 2, 1000, 0);
	assert_int_equal(run(&t, "packing", &j, &p), 0);
	tc_release(&t);
}

static void test_clustering(void **state)
{
	(void)state;
	struct tc t;
	int g[4] = {2, 2, 2, 2};
	tc_init(&t, 4, g, NULL);
	tc_put(&t, 0, 1, 1000, 0, 0); /* node 0: a whole-GPU job */
	tc_put(&t, 1, 1, 500, 0, 0);  /* node 1: a 500 share */
	tc_put(&t, 3, 1, 1000, 0, 0); /* node 3: both types */
	tc_put(&t, 3, 2, 500, 0, 0);
	struct job j;
	struct placement p;
	mkjob(&j, 1000, 1, 500, 0);
	assert_int_equal(run(&t, "clustering", &j, &p), 1); /* same type only, not mixed 3 */
	mkjob(&j, 1000, 1, 1000, 0);
	assert_int_equal(run(&t, "clustering", &j, &p), 0);
	mkjob(&j, 1000, 2, 1000, 0); /* a type nobody runs: the idle node, not a mixed one */
	assert_int_equal(run(&t, "clustering", &j, &p), 2);
	mkjob(&j, 1000, 1, 250, 0); /* every share is one type: with the 500 share, node 1 */
	assert_int_equal(run(&t, "clustering", &j, &p), 1);
	/* A CPU-only job has no type, so no affinity: the lowest node that fits, whatever
	 * runs there (it used to go to the idle node, then to one running CPU jobs). */
	mkjob(&j, 1000, 0, 0, 0);
	assert_int_equal(run(&t, "clustering", &j, &p), 0);
	tc_put(&t, 1, 0, 0, 1000, 0); /* node 1 runs a CPU job too: still node 0 */
	assert_int_equal(run(&t, "clustering", &j, &p), 0);
	mkjob(&j, 1000, 1, 250, 0);
	/* Without the job list, types come from the GPU state, with the same answers. */
	t.ctx.job_of = NULL;
	assert_int_equal(run(&t, "clustering", &j, &p), 1);
	mkjob(&j, 1000, 0, 0, 0);
	assert_int_equal(run(&t, "clustering", &j, &p), 0);
	mkjob(&j, 1000, 1, 1000, 0);
	assert_int_equal(run(&t, "clustering", &j, &p), 0);
	tc_release(&t);
}

/* CPU-only jobs on a node are of no type: a GPU job sees a node that runs only them as
 * idle (tier 2, then the lowest node), not as a node of other types (tier 3). */
static void test_clustering_cpu_jobs_no_type(void **state)
{
	(void)state;
	struct tc t;
	int g[3] = {2, 2, 2};
	tc_init(&t, 3, g, NULL);
	tc_put(&t, 0, 0, 0, 4000, 0); /* node 0: a CPU-only job */
	tc_put(&t, 1, 1, 1000, 0, 0); /* node 1: a whole-GPU job */
	struct job j;
	struct placement p;
	mkjob(&j, 1000, 1, 250, 0);
	assert_int_equal(run(&t, "clustering", &j, &p), 0);
	t.ctx.job_of = NULL; /* the same from the GPU state alone */
	assert_int_equal(run(&t, "clustering", &j, &p), 0);
	tc_release(&t);
}

/* A random job for the clustering tests: CPU only, a share of one GPU or of several, or
 * whole GPUs; its HBM known at random, not in proportion to its share. */
static void cl_random_job(struct rng *r, struct job *j)
{
	static const int gpus[] = {0, 1, 1, 1, 1, 2, 4};
	int k = gpus[rng_below(r, 7)];
	int32_t milli = rng_below(r, 2) ? 1000 : 1 + (int32_t)rng_below(r, 999);
	mkjob(j, (int64_t)rng_below(r, 6000), k, milli, (int64_t)rng_below(r, 400));
	j->dem[DIM_STO] = (int64_t)rng_below(r, 300);
	if (k && rng_below(r, 2))
		j->dem[DIM_HBM] = k * (int64_t)rng_below(r, HBM_GPU / 2);
}

/*
 * clustering's bound on random clusters of mixed job types, with the policy's state, with
 * the job list only, and with neither (types guessed from the GPU state): never above the
 * score of any choice on the node, equal to it for a CPU-only job and whole GPUs; and the
 * search that skips nodes by it chooses the node and GPUs the plain loop chooses. The states
 * repeat nodes (two of 8 GPUs), so ties are met.
 */
static void test_clustering_bound(void **state)
{
	(void)state;
	const struct policy_ops *ops = policy_find("clustering");
	assert_non_null(ops->bound);
	assert_non_null(ops->state);
	/* Two nodes apart only in the tie term: node 0's shares leave 750 on two GPUs, node 1's
	 * 500 on one, so a 200 share packs best on node 1; a bound from the GPU that leaves the
	 * most (800 on node 1) would skip it. */
	struct tc h;
	struct job sh;
	struct placement a, c;
	long skipped = 0;
	int g2[2] = {8, 8};
	tc_init(&h, 2, g2, NULL);
	tc_put(&h, 0, 1, 250, 0, 0);
	tc_put(&h, 0, 2, 250, 0, 0);
	tc_put(&h, 1, 1, 500, 0, 0);
	mkjob(&sh, 1000, 1, 200, 0);
	h.ctx.dims = ops->dims;
	assert_int_equal(decide(&h, ops, &sh, &a), 1);
	assert_int_equal(decide_bounded(&h, ops, &sh, &c, &skipped), 1);
	assert_int_equal(c.gpus, 1);
	tc_release(&h);
	static const int ngpu[4] = {8, 8, 4, 0};
	struct rng r;
	rng_seed(&r, 11);
	long checked = 0, exact = 0, same = 0;
	skipped = 0;
	for (int round = 0; round < 300; round++) {
		struct tc t;
		int64_t cpu[4] = {32000, 32000, 16000, 8000};
		tc_init(&t, 4, ngpu, cpu);
		int want = (int)rng_below(&r, 24);
		for (int tries = 0; tries < 64 && t.njobs < want; tries++) {
			struct job *j = &t.jobs[t.njobs];
			struct placement ch[CLUSTER_MAX_GPUS];
			cl_random_job(&r, j);
			size_t n = (size_t)rng_below(&r, 4);
			int nc = cluster_choices(&t.c, n, j, ch, CLUSTER_MAX_GPUS);
			if (nc)
				cluster_place(&t.c, &ch[rng_below(&r, (uint64_t)nc)], t.njobs++);
		}
		void *st = ops->state->create(&t.ctx, t.jobs, (size_t)t.njobs);
		for (size_t n = 0; n < 4; n++)
			ops->state->node(st, &t.ctx, n);
		for (int x = 0; x < 12; x++) {
			struct job j;
			cl_random_job(&r, &j);
			for (int how = 0; how < 3; how++) { /* state, job list, GPU state only */
				t.ctx.state = how == 0 ? st : NULL;
				t.ctx.job_of = how < 2 ? job_of : NULL;
				t.ctx.dims = rng_below(&r, 2) ? ops->dims : DIMS_ALL;
				for (size_t n = 0; n < 4; n++) {
					struct placement ch[CLUSTER_MAX_GPUS];
					int nc = cluster_choices(&t.c, n, &j, ch, CLUSTER_MAX_GPUS);
					double b = ops->bound(&t.ctx, &j, n), best = 0;
					for (int i = 0; i < nc; i++) {
						double sc = ops->score(&t.ctx, &j, &ch[i]);
						assert_true(b <= sc);
						best = !i || sc < best ? sc : best;
						checked++;
					}
					if (nc && (j.num_gpu == 0 || j.gpu_milli == 1000)) {
						assert_true(b == best);
						exact++;
					}
				}
				int na = decide(&t, ops, &j, &a),
				    nb = decide_bounded(&t, ops, &j, &c, &skipped);
				assert_int_equal(na, nb);
				if (na >= 0) {
					assert_int_equal(a.gpus, c.gpus);
					same++;
				}
			}
		}
		ops->state->release(st);
		t.ctx.state = NULL;
		tc_release(&t);
	}
	assert_true(checked > 20000 && exact > 10000 && same > 5000 && skipped > 5000);
}

static void test_dotprod_and_tetris(void **state)
{
	(void)state;
	struct tc t;
	int g[2] = {2, 2};
	tc_init(&t, 2, g, NULL);
	tc_put(&t, 1, 1, 1000, 16000, 0); /* node 1: half its cpu and GPUs used */
	struct job j;
	struct placement p;
	/* Dot products (cpu, gpu): node 0: 4000/32000 * 1 + 1000/2000 * 1 = 0.625;
	 * node 1: 0.125 * 0.5 + 0.5 * 0.5 = 0.3125. DotProd takes the smallest, Tetris the
	 * largest. */
	mkjob(&j, 4000, 1, 1000, 100);
	assert_int_equal(run(&t, "dotprod", &j, &p), 1);
	assert_near(policy_find("dotprod")->score(&t.ctx, &j, &p), 0.3125, 1e-9);
	assert_int_equal(cluster_choices(&t.c, 0, &j, &p, 1), 1);
	assert_near(policy_find("dotprod")->score(&t.ctx, &j, &p), 0.625, 1e-9);
	assert_int_equal(run(&t, "tetris", &j, &p), 0);
	/* Tetris sees net: node 0's net is nearly full, so the job would oversubscribe it. */
	tc_put(&t, 0, 0, 0, 0, 950);
	assert_int_equal(run(&t, "tetris", &j, &p), 1);
	/* --dims cpu,gpu: net unseen, alignment wins again. */
	t.ctx.dims = DIM_BIT(DIM_CPU) | DIM_BIT(DIM_GPU);
	assert_int_equal(decide(&t, policy_find("tetris"), &j, &p), 0);
	tc_release(&t);
}

/*
 * The bounds of scalar, tetris, best-fit, dotprod and packing on random node states and jobs:
 * never above the score of any choice on the node, and equal to the best one's for a CPU-only
 * job, whole GPUs and one share of a GPU (each distinct GPU is a choice). The states mix
 * shares whose HBM is not in proportion to their milli, so a GPU with the most (scalar) or
 * least (the others) milli left may lack the HBM a share needs; packing's least tier comes
 * with the least left (a partly used GPU has less free than an idle one).
 */
static void test_tie_term_bounds(void **state)
{
	(void)state;
	static const char *const names[] = {"scalar", "tetris", "best-fit", "dotprod", "packing"};
	static const int ngpu[4] = {8, 4, 2, 0};
	static const uint32_t dims[] = {0, DIMS_ALL, DIM_BIT(DIM_CPU) | DIM_BIT(DIM_GPU),
					DIM_BIT(DIM_CPU) | DIM_BIT(DIM_NET) | DIM_BIT(DIM_STO)};
	struct rng r;
	rng_seed(&r, 7);
	long checked = 0, exact = 0, keyed = 0;
	for (int round = 0; round < 300; round++) {
		struct tc t;
		int64_t cpu[4] = {16000, 32000, 8000, 4000};
		tc_init(&t, 4, ngpu, cpu);
		for (int k = 0; k < 16; k++) { /* random shares, HBM at random, as fits */
			int n = (int)rng_below(&r, 4),
			    g = ngpu[n] ? (int)rng_below(&r, (uint64_t)ngpu[n]) : 0;
			const struct node_state *st = &t.c.st[n];
			int32_t milli =
				ngpu[n] ? 1 + (int32_t)rng_below(&r, (uint64_t)st->gpu_free[g] + 1)
					: 0;
			struct placement p;
			memset(&p, 0, sizeof p);
			p.node = n;
			if (ngpu[n] && milli <= st->gpu_free[g]) {
				p.gpus = 1u << g;
				p.milli = milli;
				p.hbm = (int64_t)rng_below(&r, (uint64_t)st->hbm_free[g] + 1);
			}
			p.dem[DIM_CPU] = (int64_t)rng_below(
				&r, (uint64_t)(st->cap[DIM_CPU] - st->used[DIM_CPU]) / 2 + 1);
			p.dem[DIM_MEM] = 1000;
			p.dem[DIM_GPU] = p.milli;
			p.dem[DIM_HBM] = p.hbm;
			p.dem[DIM_NET] = (int64_t)rng_below(&r, 600);
			p.dem[DIM_STO] = (int64_t)rng_below(&r, 600);
			if (t.c.st[n].used[DIM_MEM] + 1000 <= t.c.st[n].cap[DIM_MEM])
				cluster_place(&t.c, &p, 0);
		}
		for (int x = 0; x < 12; x++) {
			static const int gpus[] = {0, 1, 1, 1, 2, 4};
			struct job j;
			int k = gpus[rng_below(&r, 6)];
			int32_t milli = rng_below(&r, 3) ? 1000 : 1 + (int32_t)rng_below(&r, 999);
			mkjob(&j, (int64_t)rng_below(&r, 6000), k, milli,
			      (int64_t)rng_below(&r, 500));
			j.dem[DIM_STO] = (int64_t)rng_below(&r, 300);
			if (k && rng_below(&r, 2)) /* HBM known, not in proportion */
				j.dem[DIM_HBM] = k * (int64_t)rng_below(&r, HBM_GPU);
			for (size_t o = 0; o < sizeof names / sizeof *names; o++) {
				const struct policy_ops *ops = policy_find(names[o]);
				assert_non_null(ops->bound);
				for (size_t d = 0; d < sizeof dims / sizeof *dims; d++) {
					t.ctx.dims = dims[d] ? dims[d] : ops->dims;
					for (size_t n = 0; n < 4; n++) {
						struct placement ch[CLUSTER_MAX_GPUS];
						int nc = cluster_choices(&t.c, n, &j, ch,
									 CLUSTER_MAX_GPUS);
						double b = ops->bound(&t.ctx, &j, n), best = 0;
						if (ops->bound_recs && ops->prep) {
							/* from a record: the very same double */
							unsigned char rec[1024];
							int32_t pos = 0;
							double br;
							assert_true(ops->prep_size <= sizeof rec);
							memset(rec, 0xa5, sizeof rec);
							ops->prep(&t.ctx, n, rec);
							ops->bound_recs(&t.ctx, &j, rec, &pos, 1,
									&br);
							assert_memory_equal(&br, &b, sizeof b);
							if (ops->bound_keys) { /* never above */
								double key;
								ops->bound_keys(&t.ctx, &j, rec,
										&pos, 1, &key);
								assert_true(key <= br);
								keyed++;
							}
						}
						for (int i = 0; i < nc; i++) {
							double sc = ops->score(&t.ctx, &j, &ch[i]);
							assert_true(b <= sc);
							best = !i || sc < best ? sc : best;
							checked++;
						}
						if (nc && (k <= 1 || milli == 1000)) {
							assert_true(b == best);
							exact++;
						}
					}
				}
			}
		}
		tc_release(&t);
	}
	assert_true(checked > 10000 && exact > 5000 && keyed > 2000);
}

/*
 * The bounds from a record read the GPU a share favours off the node's distinct free milli
 * (each with the most free HBM of a GPU with that much free): the very doubles bound()
 * gives by a pass over the GPUs, where GPUs share a free milli but not their free HBM, and
 * where the HBM a GPU has free or a job asks for is past what the record holds (2^31 MiB).
 */
static void test_bound_recs_distinct_free(void **state)
{
	(void)state;
	static const char *const names[] = {"scalar", "tetris", "best-fit", "dotprod"};
	static const int32_t millis[] = {1, 100, 300, 399, 400, 401, 600, 700, 701, 999};
	static const int64_t hbms[] = {0,     900,   1000,  1001,  4000,      9000,
				       14999, 15000, 15001, 16000, 1LL << 31, 3LL << 31};
	/* per GPU of node 0: milli and HBM taken (GPU 5 idle, 6 full) */
	static const int32_t took[8] = {300, 300, 600, 600, 990, 0, 1000, 300};
	static const int64_t hbm[8] = {15000, 1000, 100, 9000, 16000, 0, 16000, 15000};
	static const int ngpu[1] = {8};
	for (int big = 0; big < 2; big++) {
		struct tc t;
		tc_init(&t, 1, ngpu, NULL);
		if (big) { /* GPUs with more free HBM than an int32 holds */
			cluster_release(&t.c);
			t.nodes[0].cap[DIM_HBM] = 8 * (3LL << 31);
			cluster_init(&t.c, t.nodes, 1);
		}
		for (int g = 0; g < 8; g++) {
			struct placement p;
			memset(&p, 0, sizeof p);
			if (!took[g])
				continue;
			p.gpus = 1u << g;
			p.milli = took[g];
			p.hbm = hbm[g];
			p.dem[DIM_GPU] = p.milli;
			p.dem[DIM_HBM] = p.hbm;
			p.dem[DIM_MEM] = 1000;
			cluster_place(&t.c, &p, 0);
		}
		int exact = 0;
		for (size_t o = 0; o < sizeof names / sizeof *names; o++) {
			const struct policy_ops *ops = policy_find(names[o]);
			t.ctx.dims = ops->dims;
			for (size_t mi = 0; mi < sizeof millis / sizeof *millis; mi++)
				for (size_t hi = 0; hi < sizeof hbms / sizeof *hbms; hi++) {
					struct job j;
					struct placement ch[CLUSTER_MAX_GPUS];
					unsigned char rec[1024];
					int32_t pos = 0;
					double b, br, best = 0;
					mkjob(&j, 1000, 1, millis[mi], 0);
					j.dem[DIM_HBM] = hbms[hi];
					assert_true(ops->prep_size <= sizeof rec);
					memset(rec, 0xa5, sizeof rec);
					ops->prep(&t.ctx, 0, rec);
					ops->bound_recs(&t.ctx, &j, rec, &pos, 1, &br);
					b = ops->bound(&t.ctx, &j, 0);
					assert_memory_equal(&br, &b, sizeof b);
					int nc = cluster_choices(&t.c, 0, &j, ch, CLUSTER_MAX_GPUS);
					for (int i = 0; i < nc; i++) {
						double sc = ops->score(&t.ctx, &j, &ch[i]);
						best = !i || sc < best ? sc : best;
					}
					if (nc) { /* one share: each distinct GPU is a choice */
						assert_memory_equal(&br, &best, sizeof b);
						exact++;
					}
				}
		}
		assert_true(exact > 100);
		tc_release(&t);
	}
}

/* Node 0 as in test-frag: GPU free {1000, 300, 600, 0}, cpu 4000 used; node 1 idle. */
static void fgd_cluster(struct tc *t)
{
	int g[2] = {4, 4};
	tc_init(t, 2, g, NULL);
	tc_put(t, 0, 2, 700, 0, 0);
	tc_put(t, 0, 4, 400, 0, 0);
	tc_put(t, 0, 8, 1000, 0, 0);
	tc_put(t, 0, 0, 0, 4000, 0);
}

static void test_fgd(void **state)
{
	(void)state;
	struct tc t;
	fgd_cluster(&t);
	struct job j;
	struct placement p;
	/* A 500 share: node 0 GPU2 takes F from 450 to 400 (-50); node 0 GPU0 to 575 (+125);
	 * node 1 from 0 to 0.25 * 500 = 125 (+125). GPU2 wins. */
	mkjob(&j, 0, 1, 500, 0);
	assert_int_equal(run(&t, "fgd", &j, &p), 0);
	assert_int_equal(p.gpus, 4u);
	assert_near(policy_find("fgd")->score(&t.ctx, &j, &p), -50.0, 1e-9);
	/* Without the cached F_n the same. */
	t.ctx.node_frag = NULL;
	assert_int_equal(decide(&t, policy_find("fgd"), &j, &p), 0);
	assert_int_equal(p.gpus, 4u);
	/* A whole GPU: node 0 goes 450 -> 450 (B no longer fits, A still does: 0.75 * 300 +
	 * 0.25 * 900), node 1 0 -> 0: a tie, the lowest index. */
	mkjob(&j, 0, 1, 1000, 0);
	assert_int_equal(run(&t, "fgd", &j, &p), 0);
	tc_release(&t);
}

/* fgd-pack: fgd's change of F_n in bins of 8 % of the job's GPU-milli (at least 80), ties to
 * packing tiers, then the least GPU left. */
static void test_fgd_pack(void **state)
{
	(void)state;
	struct tc t;
	int g[2] = {4, 4};
	tc_init(&t, 2, g, NULL);
	/* node 1 as test_fgd's node 0: GPU free {1000, 300, 600, 0}, cpu 4000 used, F = 450;
	 * node 0 idle, F = 0 */
	tc_put(&t, 1, 2, 700, 0, 0);
	tc_put(&t, 1, 4, 400, 0, 0);
	tc_put(&t, 1, 8, 1000, 0, 0);
	tc_put(&t, 1, 0, 0, 4000, 0);
	const struct policy_ops *fp = policy_find("fgd-pack");
	struct job j;
	struct placement p;
	/* A 500 share: -50 on GPU 2 of node 1 (bin -1, a partly used GPU, 100 left) beats
	 * +125 on node 1's GPU 0 and on node 0 (bin 1), as fgd. */
	mkjob(&j, 0, 1, 500, 0);
	assert_int_equal(run(&t, "fgd-pack", &j, &p), 1);
	assert_int_equal(p.gpus, 4u);
	assert_near(fp->score(&t.ctx, &j, &p), -1 + 0.1 / 3.5, 1e-12);
	assert_int_equal(run(&t, "fgd", &j, &p), 1);
	/* node 0: +125, floor(125 / 80) = 1, idle (tier 2), 500 left on the GPU */
	struct placement ch[CLUSTER_MAX_GPUS];
	int k = cluster_choices(&t.c, 0, &j, ch, CLUSTER_MAX_GPUS);
	assert_true(k > 0);
	assert_near(fp->score(&t.ctx, &j, &ch[0]), 1 + 2.5 / 3.5, 1e-12);
	/* Three GPUs x 500 on node 0: B (whole GPUs, p 0.25) loses 1500 milli, +375; the bin is
	 * 8 % of the job's 1500 milli: floor(375 / 120) = 3, not floor(375 / 80) = 4. */
	mkjob(&j, 0, 3, 500, 0);
	k = cluster_choices(&t.c, 0, &j, ch, CLUSTER_MAX_GPUS);
	assert_true(k > 0);
	assert_near(policy_find("fgd")->score(&t.ctx, &j, &ch[0]), 375.0, 1e-9);
	assert_near(fp->score(&t.ctx, &j, &ch[0]), 3 + 2.5 / 3.5, 1e-12);
	/* A whole GPU changes F_n on neither node: fgd takes the lowest index, the idle node 0;
	 * fgd-pack packs it onto the used node 1 (tier 1 before 2): 0 + (1 + 900 / 4000) / 3.5 */
	mkjob(&j, 0, 1, 1000, 0);
	assert_int_equal(run(&t, "fgd", &j, &p), 0);
	assert_int_equal(run(&t, "fgd-pack", &j, &p), 1);
	assert_near(fp->score(&t.ctx, &j, &p), 1.225 / 3.5, 1e-12);
	/* A 250 share: on GPU 1 of node 1 (300 free) F drops by 250, on GPU 2 it rises by 200. */
	mkjob(&j, 0, 1, 250, 0);
	assert_int_equal(run(&t, "fgd-pack", &j, &p), 1);
	assert_int_equal(p.gpus, 2u);
	/* The bound never exceeds the score of any choice, for shares and whole GPUs. */
	static const int shapes[][2] = {{1, 300}, {1, 250}, {1, 1000}, {2, 1000}, {3, 500}, {0, 0}};
	for (size_t x = 0; x < sizeof shapes / sizeof *shapes; x++) {
		mkjob(&j, 1000, shapes[x][0], shapes[x][1], 0);
		for (int n = 0; n < 2; n++) {
			k = cluster_choices(&t.c, (size_t)n, &j, ch, CLUSTER_MAX_GPUS);
			for (int i = 0; i < k; i++)
				assert_true(fp->bound(&t.ctx, &j, (size_t)n) <=
					    fp->score(&t.ctx, &j, &ch[i]));
		}
	}
	tc_release(&t);
}

static void test_ragp_fgd_limit_and_choice(void **state)
{
	(void)state;
	struct tc t;
	fgd_cluster(&t);
	struct job j;
	struct placement p;
	mkjob(&j, 0, 1, 500, 0);
	/* lambda = mu = 0, gpu only: plain FGD scaled by the node's GPU capacity. */
	t.ctx.param[POLICY_P_LAMBDA] = t.ctx.param[POLICY_P_MU] = 0;
	t.ctx.dims = DIM_BIT(DIM_GPU);
	assert_int_equal(decide(&t, policy_find("ragp5"), &j, &p), 0);
	assert_int_equal(p.gpus, 4u);
	assert_near(policy_find("ragp5")->score(&t.ctx, &j, &p), -50.0 / 4000, 1e-12);
	/* The same with the multi-dim measure cached as the simulator keeps it. */
	double md[2] = {frag_node_md(&t.c, 0, &t.wl, t.ctx.dims),
			frag_node_md(&t.c, 1, &t.wl, t.ctx.dims)};
	t.ctx.node_md = md;
	assert_near(policy_find("ragp5")->score(&t.ctx, &j, &p), -50.0 / 4000, 1e-12);
	t.ctx.node_md = NULL;
	/* With its defaults, ragp5 still leaves the residual with the least stranded GPU. */
	t.ctx.param[POLICY_P_LAMBDA] = POLICY_LAMBDA;
	t.ctx.param[POLICY_P_MU] = POLICY_MU;
	assert_int_equal(run(&t, "ragp5", &j, &p), 0);
	assert_int_equal(p.gpus, 4u);
	tc_release(&t);
}

static void test_ragp_residual_shape(void **state)
{
	(void)state;
	struct tc t;
	int g[2] = {2, 2};
	int64_t cpu[2] = {32000, 8000};
	tc_init(&t, 2, g, cpu);
	/* Workload = the job's own shape, which fits both nodes before and after: dF = 0.
	 * Residual (cpu, gpu): node 0 (28/32, 1/2): std 0.1875; node 1 (1/2, 1/2): 0. */
	struct job j;
	mkjob(&j, 4000, 1, 1000, 0);
	frag_workload_release(&t.wl);
	frag_workload_build(&t.wl, &j, 1, 1.0);
	t.ctx.param[POLICY_P_LAMBDA] = 1;
	t.ctx.param[POLICY_P_MU] = 0;
	t.ctx.dims = DIM_BIT(DIM_CPU) | DIM_BIT(DIM_GPU);
	struct placement p;
	assert_int_equal(decide(&t, policy_find("ragp5"), &j, &p), 1);
	assert_near(policy_find("ragp5")->score(&t.ctx, &j, &p), 0.0, 1e-12);
	assert_int_equal(cluster_choices(&t.c, 0, &j, &p, 1), 1);
	assert_near(policy_find("ragp5")->score(&t.ctx, &j, &p), 0.1875, 1e-12);
	tc_release(&t);
}

static void test_ragp_counts_the_irregularity_it_adds(void **state)
{
	(void)state;
	struct tc t;
	int g[1] = {2};
	tc_init(&t, 1, g, NULL);
	tc_put(&t, 0, 1, 1000, 0, 0); /* free shares: cpu 1, gpu 0.5: std 0.25 */
	/* Workload: CPU-only jobs of 1000 millicores: F_n = all free GPU, before and after a
	 * CPU job; nothing else strands while cpu is left. A CPU job of 16000 evens the residual
	 * to (0.5, 0.5): std 0, so the score is lambda * (0 - 0.25) = -0.25. */
	struct job w, j;
	mkjob(&w, 1000, 0, 0, 0);
	frag_workload_release(&t.wl);
	frag_workload_build(&t.wl, &w, 1, 1.0);
	t.ctx.param[POLICY_P_LAMBDA] = 1;
	t.ctx.param[POLICY_P_MU] = 0;
	t.ctx.dims = DIM_BIT(DIM_CPU) | DIM_BIT(DIM_GPU);
	t.nf[0] = frag_node(&t.c, 0, &t.wl);
	assert_near(t.nf[0], 1000, 1e-9);
	struct placement p;
	mkjob(&j, 16000, 0, 0, 0);
	assert_int_equal(cluster_choices(&t.c, 0, &j, &p, 1), 1);
	assert_near(policy_find("ragp5")->score(&t.ctx, &j, &p), -0.25, 1e-12);
	tc_release(&t);
}

static void test_ragp_congestion_by_hand(void **state)
{
	(void)state;
	struct tc t;
	int g[1] = {0};
	tc_init(&t, 1, g, NULL);
	/* CPU-only node, net only seen, lambda 0, mu 1: score = g(u'), g(u) = u^2 / (1 - u). */
	struct job w;
	mkjob(&w, 0, 0, 0, 0);
	frag_workload_release(&t.wl);
	frag_workload_build(&t.wl, &w, 1, 1.0);
	t.ctx.dims = DIM_BIT(DIM_NET);
	t.ctx.param[POLICY_P_LAMBDA] = 0;
	t.ctx.param[POLICY_P_MU] = 1;
	t.nf[0] = 0;
	const struct policy_ops *r = policy_find("ragp7");
	struct job j;
	struct placement p;
	mkjob(&j, 0, 0, 0, 500);
	assert_int_equal(cluster_choices(&t.c, 0, &j, &p, 1), 1);
	assert_near(r->score(&t.ctx, &j, &p), 0.5, 1e-12); /* 0.25 / 0.5 */
	tc_put(&t, 0, 0, 0, 0, 490);                       /* u' = 0.99: 98.01 */
	assert_near(r->score(&t.ctx, &j, &p), 98.01, 1e-9);
	tc_put(&t, 0, 0, 0, 0, 10); /* u' = 1: the tangent: 98.01 + 9999 * 0.01 = 198 */
	assert_near(r->score(&t.ctx, &j, &p), 198.0, 1e-9);
	/* u' = 1.1: finite, above every non-oversubscribing score: 1e9 + 0.1 + 198.0. */
	tc_put(&t, 0, 0, 0, 0, 100);
	double s = r->score(&t.ctx, &j, &p);
	assert_true(s > 1e9 && s < 1e9 + 1000);
	assert_near(s - 1e9, 0.1 + 198.0, 1e-6);
	tc_release(&t);
}

/* ragp's first bound counts the whole-GPU shapes a whole-GPU job leaves short of idle GPUs:
 * on an idle 8-GPU node whose workload is half 8-GPU jobs, one GPU taken strands the rest
 * of the node for them. Without knowing which shapes fit, the bound cannot see it; with
 * it, the bound rises to the score itself (less its hair). */
static void test_ragp_bound_counts_idle_gpus_lost(void **state)
{
	(void)state;
	struct tc t;
	int ngpu[1] = {8};
	tc_init(&t, 1, ngpu, NULL);
	frag_workload_release(&t.wl);
	struct job w[2], j;
	mkjob(&w[0], 1000, 8, 1000, 0);
	mkjob(&w[1], 1000, 1, 1000, 0);
	frag_workload_build(&t.wl, w, 2, 1.0);
	t.ctx.dims = DIMS_ALL;
	double md, nofit;
	uint64_t fits[1][2];
	frag_node_eval(&t.c, 0, &t.wl, DIMS_ALL, &md, &nofit, NULL, fits[0]);
	assert_near(nofit, 0, 1e-12); /* both shapes fit the idle node */
	t.ctx.node_md = &md;
	t.ctx.node_nofit = &nofit;
	const struct policy_ops *r = policy_find("ragp7");
	struct placement p;
	mkjob(&j, 1000, 1, 1000, 0);
	assert_int_equal(cluster_first_choice(&t.c, 0, &j, &p), 1);
	double sc = r->score(&t.ctx, &j, &p);
	double blind = r->bound(&t.ctx, &j, 0);
	t.ctx.node_fits = (const uint64_t(*)[2])fits;
	double b = r->bound(&t.ctx, &j, 0);
	assert_true(b <= sc && blind <= sc);
	assert_true(sc - blind > 0.1);
	assert_near(b, sc, 1e-6);
	tc_release(&t);
}

/* The node's md, nofit and fits as the simulator keeps them for t's policy dims, into ctx. */
static void ragp_node_data(struct tc *t, int n, double *md, double *nofit, uint64_t (*fits)[2])
{
	for (int i = 0; i < n; i++)
		frag_node_eval(&t->c, (size_t)i, &t->wl, t->ctx.dims, &md[i], &nofit[i], NULL,
			       fits[i]);
	t->ctx.node_md = md;
	t->ctx.node_nofit = nofit;
	t->ctx.node_fits = (const uint64_t(*)[2])fits;
}

/* ragp's first bound also counts the shapes a job's GPUs leave too few GPUs for, when the
 * GPUs it takes are surely idle ones: a share of a GPU on a node whose only GPUs with room
 * are idle stops the 8-GPU shape; a whole GPU taken from the last two idle ones stops the
 * shape of two halves, which both of them met. Each time the shape stopped strands the
 * rest of the node, and it is all md after holds: the bound is the score less its hair. */
static void test_ragp_bound_counts_gpus_lost(void **state)
{
	(void)state;
	const struct policy_ops *r = policy_find("ragp7");
	for (int c = 0; c < 2; c++) {
		struct tc t;
		int ngpu[1] = {8};
		tc_init(&t, 1, ngpu, NULL);
		frag_workload_release(&t.wl);
		struct job w[2], j;
		if (c == 0) { /* all idle; a share of one GPU */
			mkjob(&w[0], 1000, 8, 1000, 0);
			mkjob(&w[1], 1000, 1, 500, 0);
			mkjob(&j, 1000, 1, 500, 0);
		} else { /* six GPUs full, two idle; a whole GPU */
			tc_put(&t, 0, 0x3f, 1000, 0, 0);
			mkjob(&w[0], 1000, 2, 500, 0);
			mkjob(&w[1], 1000, 1, 1000, 0);
			mkjob(&j, 1000, 1, 1000, 0);
		}
		frag_workload_build(&t.wl, w, 2, 1.0);
		t.ctx.dims = DIMS_ALL;
		double md, nofit;
		uint64_t fits[1][2];
		ragp_node_data(&t, 1, &md, &nofit, fits);
		assert_near(nofit, 0, 1e-12); /* both shapes fit now */
		assert_near(md, 0, 1e-12);    /* and strand nothing */
		struct placement p;
		assert_int_equal(cluster_first_choice(&t.c, 0, &j, &p), 1);
		double sc = r->score(&t.ctx, &j, &p), b = r->bound(&t.ctx, &j, 0);
		t.ctx.node_fits = NULL;
		double blind = r->bound(&t.ctx, &j, 0);
		assert_true(b <= sc);
		assert_true(sc - blind > 0.1); /* what the stopped shape strands */
		assert_near(b, sc, 1e-6);
		tc_release(&t);
	}
}

/* ops->bound_recs of j on the records of t's four nodes, in one call over 400 of them in a
 * random order (so that what it keeps from one record to the next is used), into b[n]: each
 * time the same double for the same node. */
static void ragp_bound_many(const struct policy_ctx *ctx, const struct policy_ops *ops,
			    const struct job *j, struct rng *r, double b[4])
{
	enum { NREC = 4, NPOS = 400 };
	static _Alignas(64) unsigned char recs[NREC * 2048];
	int32_t pos[NPOS];
	double out[NPOS];
	assert_true(ops->prep_size <= 2048);
	for (size_t n = 0; n < NREC; n++)
		ops->prep(ctx, n, recs + n * ops->prep_size);
	for (int i = 0; i < NPOS; i++)
		pos[i] = i < NREC ? i : (int32_t)rng_below(r, NREC);
	ops->bound_recs(ctx, j, recs, pos, NPOS, out);
	for (int i = 0; i < NPOS; i++) {
		if (i < NREC)
			b[i] = out[i];
		else
			assert_memory_equal(&out[i], &b[pos[i]], sizeof *out);
	}
}

/*
 * ragp's bound on random node states (shares of GPUs with HBM not in proportion, whole GPUs
 * taken, nodes left with few idle GPUs, the shared dims taken, at times past capacity) and
 * a random workload of whole and shared shapes of one to eight GPUs, for jobs that take of
 * iocpu or not: never above the score of any choice, for ragp5 and ragp7 and over every
 * dim; from a record the very same double, alone or among many.
 */
static void test_ragp_bound_random(void **state)
{
	(void)state;
	static const char *const names[] = {"ragp7", "ragp5"};
	static const int ngpu[4] = {8, 4, 8, 0};
	static const int gpus[] = {0, 1, 1, 1, 2, 4, 8};
	struct rng r;
	rng_seed(&r, 11);
	long checked = 0, tight = 0;
	for (int round = 0; round < 200; round++) {
		struct tc t;
		tc_init(&t, 4, ngpu, NULL);
		frag_workload_release(&t.wl);
		struct job w[24];
		for (int i = 0; i < 24; i++) {
			int k = gpus[rng_below(&r, 7)];
			int32_t milli = rng_below(&r, 2) ? 1000 : 1 + (int32_t)rng_below(&r, 999);
			mkjob(&w[i], 500 * (int64_t)rng_below(&r, 8), k, milli,
			      (int64_t)rng_below(&r, 300));
			if (k && rng_below(&r, 4) == 0)
				w[i].dem[DIM_HBM] = k * (int64_t)rng_below(&r, HBM_GPU);
		}
		frag_workload_build(&t.wl, w, 24, 1.0);
		for (int x = 0; x < 12; x++) { /* whole GPUs, or shares, HBM at random */
			int n = (int)rng_below(&r, 4), g = ngpu[n] ? (int)rng_below(&r, 8) : 0;
			const struct node_state *st = &t.c.st[n];
			struct placement p;
			memset(&p, 0, sizeof p);
			p.node = n;
			if (ngpu[n] && g < ngpu[n] && st->gpu_free[g] > 0) {
				int32_t milli =
					rng_below(&r, 2)
						? st->gpu_free[g]
						: 1 + (int32_t)rng_below(&r,
									 (uint64_t)st->gpu_free[g]);
				p.gpus = 1u << g;
				p.milli = milli;
				p.hbm = (int64_t)rng_below(&r, (uint64_t)st->hbm_free[g] + 1);
			}
			p.dem[DIM_CPU] = (int64_t)rng_below(
				&r, (uint64_t)(st->cap[DIM_CPU] - st->used[DIM_CPU]) / 3 + 1);
			p.dem[DIM_MEM] = 1000;
			p.dem[DIM_GPU] = p.milli;
			p.dem[DIM_HBM] = p.hbm;
			p.dem[DIM_NET] = (int64_t)rng_below(&r, 400);
			p.dem[DIM_STO] = (int64_t)rng_below(&r, 400);
			p.dem[DIM_IOCPU] = rng_below(&r, 2) ? 0 : (int64_t)rng_below(&r, 400);
			cluster_place(&t.c, &p, 0);
		}
		for (int x = 0; x < 16; x++) {
			struct job j = w[rng_below(&r, 24)]; /* a shape of the workload, or not */
			if (rng_below(&r, 2)) {
				int k = gpus[rng_below(&r, 7)];
				int32_t milli =
					rng_below(&r, 2) ? 1000 : 1 + (int32_t)rng_below(&r, 999);
				mkjob(&j, 500 * (int64_t)rng_below(&r, 8), k, milli,
				      (int64_t)rng_below(&r, 300));
			}
			/* the shared dims: sto, and iocpu or none of it (which the bound takes
			 * from the record) */
			j.dem[DIM_STO] = (int64_t)rng_below(&r, 300);
			j.dem[DIM_IOCPU] = rng_below(&r, 2) ? 0 : (int64_t)rng_below(&r, 300);
			for (size_t o = 0; o < sizeof names / sizeof *names; o++) {
				const struct policy_ops *ops = policy_find(names[o]);
				for (int d = 0; d < 2; d++) {
					double md[4], nofit[4], bn[4];
					uint64_t fits[4][2];
					t.ctx.dims = d ? DIMS_ALL : ops->dims;
					ragp_node_data(&t, 4, md, nofit, fits);
					ragp_bound_many(&t.ctx, ops, &j, &r, bn);
					for (size_t n = 0; n < 4; n++) {
						struct placement ch[CLUSTER_MAX_GPUS];
						int nc = cluster_choices(&t.c, n, &j, ch,
									 CLUSTER_MAX_GPUS);
						double b = ops->bound(&t.ctx, &j, n), br;
						unsigned char rec[2048];
						int32_t pos = 0;
						assert_true(ops->prep_size <= sizeof rec);
						memset(rec, 0xa5, sizeof rec);
						ops->prep(&t.ctx, n, rec);
						ops->bound_recs(&t.ctx, &j, rec, &pos, 1, &br);
						assert_memory_equal(&br, &b, sizeof b);
						assert_memory_equal(&bn[n], &b, sizeof b);
						for (int i = 0; i < nc; i++) {
							double sc = ops->score(&t.ctx, &j, &ch[i]);
							assert_true(b <= sc);
							tight += sc - b < 1e-6;
							checked++;
						}
					}
				}
			}
		}
		t.ctx.node_md = t.ctx.node_nofit = NULL;
		t.ctx.node_fits = NULL;
		tc_release(&t);
	}
	assert_true(checked > 5000 && tight > 500);
}

static void test_ragp_prefers_quiet_network(void **state)
{
	(void)state;
	struct tc t;
	int g[2] = {2, 2};
	tc_init(&t, 2, g, NULL);
	tc_put(&t, 0, 0, 0, 0, 800); /* node 0's net at 0.8 */
	tc_put(&t, 1, 0, 0, 0, 0);
	struct job j;
	struct placement p;
	mkjob(&j, 1000, 1, 1000, 100);
	assert_int_equal(run(&t, "ragp5", &j, &p), 1);
	assert_int_equal(run(&t, "ragp7", &j, &p), 1);
	/* Without net in view the nodes are equal: the lowest index. */
	t.ctx.dims = DIM_BIT(DIM_CPU) | DIM_BIT(DIM_GPU);
	assert_int_equal(decide(&t, policy_find("ragp5"), &j, &p), 0);
	tc_release(&t);
}

/* Every policy, made to see net, keeps off a node the job would oversubscribe. */
static void test_every_policy_respects_seen_shared_dims(void **state)
{
	(void)state;
	struct tc t;
	int g[2] = {2, 2};
	tc_init(&t, 2, g, NULL);
	tc_put(&t, 0, 0, 0, 0, 990);
	struct job j;
	mkjob(&j, 1000, 1, 1000, 100);
	for (const struct policy_ops *const *o = policy_table; *o; o++) {
		struct placement p, q;
		t.ctx.dims = (*o)->dims | DIM_BIT(DIM_NET);
		for (int id = 0; id < 20; id++) {
			j.id = id;
			assert_int_equal(decide(&t, *o, &j, &p), 1);
			if ((*o)->pick) {
				assert_int_equal((*o)->pick(&t.ctx, &j, &q), 1);
				assert_int_equal(q.node, 1);
			}
		}
	}
	tc_release(&t);
}

/* Ties go to the lowest node index: on identical idle nodes every deterministic policy
 * picks node 0, and a job restricted to a GPU model goes where that model is. */
static void test_ties_and_model_constraints(void **state)
{
	(void)state;
	struct tc t;
	int g[3] = {4, 4, 4};
	tc_init(&t, 3, g, NULL);
	struct job js[3];
	mkjob(&js[0], 1000, 1, 500, 10);
	mkjob(&js[1], 1000, 2, 1000, 10);
	mkjob(&js[2], 1000, 0, 0, 10);
	for (const struct policy_ops *const *o = policy_table; *o; o++) {
		if (!strcmp((*o)->name, "random"))
			continue;
		for (int k = 0; k < 3; k++) {
			struct placement p;
			assert_int_equal(run(&t, (*o)->name, &js[k], &p), 0);
			if (js[k].num_gpu == 1)
				assert_int_equal(p.gpus, 1u); /* and the lowest GPU */
		}
	}
	tc_release(&t);
	/* Node 1 has model 2; a job allowed only model 2 must land there under every policy. */
	tc_init(&t, 3, g, NULL);
	t.nodes[1].model = 2;
	cluster_release(&t.c); /* a cluster reads its nodes' models once */
	cluster_init(&t.c, t.nodes, 3);
	struct job j;
	mkjob(&j, 1000, 1, 500, 10);
	j.gpu_spec = 1u << 2;
	for (const struct policy_ops *const *o = policy_table; *o; o++) {
		struct placement p;
		assert_int_equal(run(&t, (*o)->name, &j, &p), 1);
		if ((*o)->pick) {
			assert_int_equal((*o)->pick(&t.ctx, &j, &p), 1);
			assert_int_equal(p.node, 1);
		}
	}
	tc_release(&t);
}

/* POLICY_F_BY_STATE: two identical nodes in the same state score the same. */
static void test_by_state_flag_holds(void **state)
{
	(void)state;
	struct tc t;
	int g[3] = {4, 4, 4};
	tc_init(&t, 3, g, NULL);
	tc_put(&t, 1, 1, 300, 2000, 50);
	tc_put(&t, 2, 1, 300, 2000, 50);
	tc_put(&t, 0, 3, 1000, 0, 0);
	struct job js[4];
	mkjob(&js[0], 1000, 1, 500, 10);
	mkjob(&js[1], 1000, 2, 1000, 10);
	mkjob(&js[2], 1000, 0, 0, 10);
	mkjob(&js[3], 1000, 1, 200, 10);
	for (int n = 0; n < 3; n++)
		t.nf[n] = frag_node(&t.c, (size_t)n, &t.wl);
	for (const struct policy_ops *const *o = policy_table; *o; o++) {
		if (!((*o)->flags & POLICY_F_BY_STATE))
			continue;
		t.ctx.dims = (*o)->dims;
		for (int k = 0; k < 4; k++) {
			struct placement a[CLUSTER_MAX_GPUS], b[CLUSTER_MAX_GPUS];
			int na = cluster_choices(&t.c, 1, &js[k], a, CLUSTER_MAX_GPUS);
			int nb = cluster_choices(&t.c, 2, &js[k], b, CLUSTER_MAX_GPUS);
			assert_int_equal(na, nb);
			for (int i = 0; i < na; i++)
				assert_true((*o)->score(&t.ctx, &js[k], &a[i]) ==
					    (*o)->score(&t.ctx, &js[k], &b[i]));
		}
	}
	tc_release(&t);
}

/* ---- I/O admission, through the simulator ---- */

/* One T4 node of 2 GPUs with 1000 MB/s of storage; jobs of one GPU, sto each. */
static void adm_set(struct job_set *js, int njobs, const int64_t *arrival, const int64_t *sto)
{
	struct node n;
	memset(js, 0, sizeof *js);
	node_init(&n);
	snprintf(n.name, sizeof n.name, "n0");
	n.ngpu = 2;
	n.model = (int16_t)gpumodel_find("T4");
	int64_t cap[DIM_N] = {16000, 1 << 20, 2000, 2 * HBM_GPU, 3000, 1000, 8000};
	memcpy(n.cap, cap, sizeof cap);
	job_set_add_node(js, &n);
	for (int i = 0; i < njobs; i++) {
		struct job j;
		mkjob(&j, 1000, 1, 1000, 10);
		j.id = i;
		j.arrival = arrival[i];
		j.duration = 100;
		j.cls = JOB_TRAIN;
		j.dem[DIM_HBM] = -1;
		j.dem[DIM_STO] = sto[i];
		j.dem[DIM_IOCPU] = 500;
		job_set_add_job(js, &j);
	}
}

/* Run js under policy name with io_admission adm (-1: the policy's own) and fault f (or
 * NULL), priced over [0, 300). */
static struct sim *adm_run(const struct job_set *js, const struct frag_workload *wl,
			   const char *name, int adm, const struct fault *f)
{
	struct sim_opts o;
	struct sim *s;
	sim_opts_init(&o);
	o.io_admission = adm;
	o.win_start = 0;
	o.win_end = 300;
	o.faults = f;
	o.nfaults = f ? 1 : 0;
	assert_int_equal(sim_new(js, policy_find(name), wl, &o, &s, NULL), 0);
	sim_run(s);
	return s;
}

static void expect_job(const struct sim *s, size_t i, int64_t start, int64_t end, double stalled)
{
	struct sim_job_result r;
	sim_job_result(s, i, &r);
	if (r.start != start || r.end != end || fabs(r.stalled_gpu_s - stalled) > 1e-6)
		fail_msg("%s job %zu: [%lld, %lld] stalled %g, wanted [%lld, %lld] stalled %g",
			 sim_policy(s)->name, i, (long long)r.start, (long long)r.end,
			 r.stalled_gpu_s, (long long)start, (long long)end, stalled);
}

/* The only node with a free GPU has its storage taken by the first job: ragp7 (admission on
 * sto and iocpu by default) holds the second job back, which then runs alone and unslowed,
 * and the GPU it waited for idles blocked on another dim; scalar (storage-blind) and
 * ragp7 with admission off start it at once, and both jobs stall. */
static void test_io_admission_waits_instead_of_stalling(void **state)
{
	(void)state;
	struct job_set js;
	struct frag_workload wl;
	const int64_t arrival[] = {0, 1}, sto[] = {1000, 1000};
	adm_set(&js, 2, arrival, sto);
	frag_workload_build(&wl, js.jobs, js.njobs, 0.95);
	int m = gpumodel_find("T4");

	struct sim *s = adm_run(&js, &wl, "ragp7", -1, NULL);
	expect_job(s, 0, 0, 100, 0);
	expect_job(s, 1, 100, 200, 0);
	/* one GPU idle from 1 to 100 while job 1 waits for storage alone: blocked_dim */
	const struct sim_counters *k = sim_counters(s);
	assert_int_equal(k->win_idle_ms[m][JOB_TRAIN][SIM_B_DIM - SIM_B_IDLE0], 99 * 1000);
	assert_int_equal(k->win_idle_ms[m][JOB_TRAIN][SIM_B_SHAPE - SIM_B_IDLE0], 0);
	assert_int_equal(k->win_idle_ms[m][JOB_TRAIN][SIM_B_FULL - SIM_B_IDLE0], 0);
	sim_free(s);

	/* both at rate 1/2 from 1: job 0 has 99 s left, done at 1 + 198; job 1 then has 1 s */
	static const char *const blind[][2] = {{"scalar", "-1"}, {"ragp7", "0"}};
	for (int i = 0; i < 2; i++) {
		s = adm_run(&js, &wl, blind[i][0], blind[i][1][0] == '0' ? 0 : -1, NULL);
		expect_job(s, 0, 0, 199, 99);
		expect_job(s, 1, 1, 200, 99);
		sim_free(s);
	}
	/* --io-admission on makes scalar's seen shared dims (none: cpu, gpu) no matter, and
	 * ragp5 admits on net only: job 1 (net 10 of 3000) goes in and stalls on sto */
	s = adm_run(&js, &wl, "ragp5", 1, NULL);
	expect_job(s, 1, 1, 200, 99);
	sim_free(s);
	frag_workload_release(&wl);
	job_set_release(&js);
}

/* A RAID rebuild halves the node's storage: the running job contends, and admission stops
 * there until it ends; a job wanting more than a node has runs where nothing else uses it. */
static void test_io_admission_under_a_fault(void **state)
{
	(void)state;
	struct job_set js;
	struct frag_workload wl;
	struct fault f;
	const int64_t arrival[] = {0, 20}, sto[] = {600, 300};
	adm_set(&js, 2, arrival, sto);
	frag_workload_build(&wl, js.jobs, js.njobs, 0.95);
	assert_int_equal(fault_parse("n0:sto=0.5@10+60", &f, NULL), 0);
	/* job 0: 10 s at rate 1, 60 s at 500/600 (50 s of work), 40 s left from 70 */
	struct sim *s = adm_run(&js, &wl, "ragp7", -1, &f);
	expect_job(s, 0, 0, 110, 10);
	expect_job(s, 1, 70, 170, 0);
	sim_free(s);
	/* without admission job 1 starts at 20 on the faulted node: 900 MB/s on 500 */
	s = adm_run(&js, &wl, "ragp7", 0, &f);
	struct sim_job_result r;
	sim_job_result(s, 1, &r);
	assert_int_equal(r.start, 20);
	assert_true(r.stalled_gpu_s > 0);
	sim_free(s);
	frag_workload_release(&wl);
	job_set_release(&js);

	/* 1500 MB/s on a 1000 MB/s node: admitted alone, never unplaceable */
	const int64_t arr2[] = {0, 0}, sto2[] = {1500, 100};
	adm_set(&js, 2, arr2, sto2);
	frag_workload_build(&wl, js.jobs, js.njobs, 0.95);
	s = adm_run(&js, &wl, "ragp7", -1, NULL);
	expect_job(s, 0, 0, 150, 50);
	expect_job(s, 1, 150, 250, 0);
	assert_int_equal(sim_counters(s)->unplaceable, 0);
	sim_free(s);
	frag_workload_release(&wl);
	job_set_release(&js);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_first_fit),
		cmocka_unit_test(test_random),
		cmocka_unit_test(test_random_pick_skips),
		cmocka_unit_test(test_best_fit),
		cmocka_unit_test(test_scalar),
		cmocka_unit_test(test_packing),
		cmocka_unit_test(test_clustering),
		cmocka_unit_test(test_clustering_cpu_jobs_no_type),
		cmocka_unit_test(test_clustering_bound),
		cmocka_unit_test(test_dotprod_and_tetris),
		cmocka_unit_test(test_tie_term_bounds),
		cmocka_unit_test(test_bound_recs_distinct_free),
		cmocka_unit_test(test_fgd),
		cmocka_unit_test(test_fgd_pack),
		cmocka_unit_test(test_ragp_fgd_limit_and_choice),
		cmocka_unit_test(test_ragp_residual_shape),
		cmocka_unit_test(test_ragp_counts_the_irregularity_it_adds),
		cmocka_unit_test(test_ragp_congestion_by_hand),
		cmocka_unit_test(test_ragp_bound_counts_idle_gpus_lost),
		cmocka_unit_test(test_ragp_bound_counts_gpus_lost),
		cmocka_unit_test(test_ragp_bound_random),
		cmocka_unit_test(test_ragp_prefers_quiet_network),
		cmocka_unit_test(test_every_policy_respects_seen_shared_dims),
		cmocka_unit_test(test_by_state_flag_holds),
		cmocka_unit_test(test_ties_and_model_constraints),
		cmocka_unit_test(test_io_admission_waits_instead_of_stalling),
		cmocka_unit_test(test_io_admission_under_a_fault),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
