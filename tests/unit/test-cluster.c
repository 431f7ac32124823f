/* test-cluster.c — cluster state: feasibility, per-GPU placement, GPU models, clone. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cluster.h"

/* Node 0: 4 x model 1 GPUs, 32 GiB HBM each; node 1: CPU only; node 2: 2 x model 2. */
struct fx {
	struct node nodes[3];
	struct cluster c;
};

static void mknode(struct node *n, int ngpu, int model, int64_t cpu, int64_t mem, int64_t hbm)
{
	node_init(n);
	n->ngpu = ngpu;
	n->model = (int16_t)model;
	int64_t cap[DIM_N] = {cpu, mem, ngpu * 1000, hbm * ngpu, 1000, 500, 4000};
	memcpy(n->cap, cap, sizeof cap);
}

static void mkjob(struct job *j, int64_t cpu, int64_t mem, int ngpu, int milli)
{
	job_init(j);
	j->num_gpu = ngpu;
	j->gpu_milli = milli;
	j->dem[DIM_CPU] = cpu;
	j->dem[DIM_MEM] = mem;
	j->dem[DIM_GPU] = (int64_t)ngpu * milli;
	j->dem[DIM_NET] = 100;
	j->dem[DIM_STO] = 0;
	j->dem[DIM_IOCPU] = 0;
}

static int setup(void **state)
{
	static struct fx f;
	memset(&f, 0, sizeof f);
	mknode(&f.nodes[0], 4, 1, 64000, 256000, 32768);
	mknode(&f.nodes[1], 0, -1, 96000, 512000, 0);
	mknode(&f.nodes[2], 2, 2, 32000, 128000, 16384);
	cluster_init(&f.c, f.nodes, 3);
	*state = &f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	cluster_release(&f->c);
	cluster_release(NULL);
	return 0;
}

static void test_init_totals(void **state)
{
	struct fx *f = *state;
	assert_int_equal(f->c.total[DIM_GPU], 6000);
	assert_int_equal(f->c.total[DIM_CPU], 192000);
	assert_int_equal(f->c.free_gpu_milli, 6000);
	assert_int_equal(f->c.st[0].hbm_free[3], 32768);
	assert_int_equal(f->c.st[0].gpu_free[0], 1000);
}

static void test_cpu_job_fits_everywhere_with_room(void **state)
{
	struct fx *f = *state;
	struct job j;
	struct placement p[8];
	mkjob(&j, 40000, 1000, 0, 0);
	assert_int_equal(cluster_choices(&f->c, 0, &j, p, 8), 1);
	assert_int_equal(p[0].gpus, 0);
	assert_int_equal(p[0].dem[DIM_GPU], 0);
	assert_int_equal(cluster_choices(&f->c, 1, &j, p, 8), 1);
	assert_int_equal(cluster_choices(&f->c, 2, &j, p, 8), 0); /* 40 cores > 32 */
}

static void test_gpu_job_not_on_cpu_node(void **state)
{
	struct fx *f = *state;
	struct job j;
	struct placement p[8];
	mkjob(&j, 1000, 1000, 1, 500);
	assert_int_equal(cluster_choices(&f->c, 1, &j, p, 8), 0);
	mkjob(&j, 1000, 1000, 3, 1000);
	assert_int_equal(cluster_choices(&f->c, 2, &j, p, 8), 0); /* only 2 GPUs */
	assert_int_equal(cluster_choices(&f->c, 0, &j, p, 8), 1);
	assert_int_equal(p[0].gpus, 0x7u);
	assert_int_equal(p[0].dem[DIM_GPU], 3000);
	assert_int_equal(p[0].hbm, 32768);
}

static void test_gpu_spec_restricts_models(void **state)
{
	struct fx *f = *state;
	struct job j;
	struct placement p[8];
	mkjob(&j, 1000, 1000, 1, 1000);
	j.gpu_spec = 1u << 2;
	assert_int_equal(cluster_choices(&f->c, 0, &j, p, 8), 0);
	assert_int_equal(cluster_choices(&f->c, 2, &j, p, 8), 1);
	j.gpu_spec = (1u << 1) | (1u << 2);
	assert_int_equal(cluster_choices(&f->c, 0, &j, p, 8), 1);
}

static void test_shared_gpu_choices_and_hbm(void **state)
{
	struct fx *f = *state;
	struct job j;
	struct placement p[8];
	mkjob(&j, 1000, 1000, 1, 500);
	/* All four GPUs identical: one choice, GPU 0; HBM is the share of 32 GiB. */
	assert_int_equal(cluster_choices(&f->c, 0, &j, p, 8), 1);
	assert_int_equal(p[0].gpus, 1u);
	assert_int_equal(p[0].hbm, 16384);
	cluster_place(&f->c, &p[0], 7);
	assert_int_equal(f->c.st[0].gpu_free[0], 500);
	assert_int_equal(f->c.free_gpu_milli, 5500);
	/* Now GPU 0 has 500 free and GPUs 1..3 are whole: two distinct choices. */
	assert_int_equal(cluster_choices(&f->c, 0, &j, p, 8), 2);
	assert_int_equal(p[0].gpus, 1u);
	assert_int_equal(p[1].gpus, 2u);
	/* max = 1 still counts both but writes one. */
	struct placement one[1];
	assert_int_equal(cluster_choices(&f->c, 0, &j, one, 1), 2);
	/* A 600-milli job does not fit on GPU 0 any more. */
	mkjob(&j, 1000, 1000, 1, 600);
	assert_int_equal(cluster_choices(&f->c, 0, &j, p, 8), 1);
	assert_int_equal(p[0].gpus, 2u);
	/* A trace-given HBM larger than what is left on a GPU excludes that GPU. */
	mkjob(&j, 1000, 1000, 1, 100);
	j.dem[DIM_HBM] = 20000;
	assert_int_equal(cluster_choices(&f->c, 0, &j, p, 8), 1);
	assert_int_equal(p[0].gpus, 2u);
	assert_int_equal(p[0].hbm, 20000);
}

static void test_hard_dims_refused_shared_allowed(void **state)
{
	struct fx *f = *state;
	struct job j;
	struct placement p[8];
	mkjob(&j, 30000, 1000, 0, 0);
	j.dem[DIM_NET] = 900; /* the node has 1000 MB/s */
	assert_int_equal(cluster_choices(&f->c, 2, &j, p, 8), 1);
	cluster_place(&f->c, &p[0], 1);
	assert_int_equal(cluster_choices(&f->c, 2, &j, p, 8), 0); /* cpu would be 60 > 32 cores */
	mkjob(&j, 1000, 1000, 0, 0);
	j.dem[DIM_NET] = 900;
	assert_int_equal(cluster_choices(&f->c, 2, &j, p, 8), 1);
	cluster_place(&f->c, &p[0], 2);
	assert_true(f->c.st[2].used[DIM_NET] > f->c.st[2].cap[DIM_NET]); /* contention allowed */
	assert_int_equal(f->c.st[2].njobs, 2);
}

static void test_remove_restores_and_keeps_order(void **state)
{
	struct fx *f = *state;
	struct job j;
	struct placement p[3], q[1];
	struct node_state before = f->c.st[0];
	mkjob(&j, 1000, 2000, 1, 1000);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(cluster_choices(&f->c, 0, &j, q, 1), 1);
		p[i] = q[0];
		cluster_place(&f->c, &p[i], 10 + i);
	}
	assert_int_equal(f->c.st[0].gpu_free[2], 0);
	cluster_remove(&f->c, &p[1], 11);
	assert_int_equal(f->c.st[0].njobs, 2);
	assert_int_equal(f->c.st[0].jobs[0], 10);
	assert_int_equal(f->c.st[0].jobs[1], 12);
	assert_int_equal(f->c.st[0].gpu_free[1], 1000);
	cluster_remove(&f->c, &p[0], 10);
	cluster_remove(&f->c, &p[2], 12);
	assert_memory_equal(f->c.st[0].used, before.used, sizeof before.used);
	assert_memory_equal(f->c.st[0].gpu_free, before.gpu_free, sizeof before.gpu_free);
	assert_memory_equal(f->c.st[0].hbm_free, before.hbm_free, sizeof before.hbm_free);
	assert_int_equal(f->c.free_gpu_milli, 6000);
}

static void test_clone_is_independent(void **state)
{
	struct fx *f = *state;
	struct job j;
	struct placement p[1];
	struct cluster d;
	mkjob(&j, 1000, 1000, 2, 1000);
	assert_int_equal(cluster_choices(&f->c, 0, &j, p, 1), 1);
	cluster_place(&f->c, &p[0], 5);
	cluster_clone(&d, &f->c);
	cluster_remove(&f->c, &p[0], 5);
	assert_int_equal(d.st[0].njobs, 1);
	assert_int_equal(d.st[0].jobs[0], 5);
	assert_int_equal(d.st[0].gpu_free[0], 0);
	assert_int_equal(d.free_gpu_milli, 4000);
	assert_int_equal(f->c.st[0].njobs, 0);
	cluster_release(&d);
}

static void test_set_cap_on_shared_dim(void **state)
{
	struct fx *f = *state;
	cluster_set_cap(&f->c, 0, DIM_STO, 250);
	assert_int_equal(f->c.st[0].cap[DIM_STO], 250);
	assert_int_equal(f->c.total[DIM_STO], 1500); /* the spec total is unchanged */
}

/* A node whose spec has 0 of a shared dim takes no job that uses it (it would run at rate 0
 * for ever), and every other job; a fault that lowers the capacity to 0 does not count: it
 * ends. */
static void test_node_without_a_shared_dim(void **state)
{
	struct fx *f = *state;
	struct node nodes[1];
	struct cluster c;
	struct job j;
	struct placement p[8];
	mknode(&nodes[0], 4, 1, 64000, 256000, 32768);
	nodes[0].cap[DIM_STO] = 0;
	cluster_init(&c, nodes, 1);
	mkjob(&j, 1000, 1000, 1, 1000);
	assert_int_equal(cluster_choices(&c, 0, &j, p, 8), 1); /* no storage demand */
	for (int d = DIM_NET; d < DIM_N; d++) {
		mkjob(&j, 1000, 1000, 1, 1000);
		j.dem[DIM_NET] = 0;
		j.dem[d] = 1;
		int want = d != DIM_STO;
		assert_int_equal(cluster_choices(&c, 0, &j, p, 8), want);
		assert_int_equal(cluster_first_choice(&c, 0, &j, p), want);
	}
	cluster_release(&c);
	/* a fault to 0 on node 0 of the fixture (500 MB/s of storage in its spec) */
	cluster_set_cap(&f->c, 0, DIM_STO, 0);
	mkjob(&j, 1000, 1000, 1, 1000);
	j.dem[DIM_STO] = 10;
	assert_int_equal(cluster_first_choice(&f->c, 0, &j, p), 1);
}

static void test_next_fit_skips_full_nodes(void **state)
{
	struct fx *f = *state;
	struct job j;
	struct placement p[1];
	mkjob(&j, 1000, 1000, 1, 1000);
	assert_int_equal(cluster_next_fit(&f->c, 0, &j), 0);
	assert_int_equal(cluster_next_fit(&f->c, 1, &j), 2); /* node 1 has no GPU */
	assert_int_equal(cluster_next_fit(&f->c, 3, &j), 3); /* past the end: c->n */
	/* Fill node 0's GPUs: the next candidate is node 2; then fill node 2: none. */
	for (int i = 0; i < 4; i++) {
		assert_int_equal(cluster_choices(&f->c, 0, &j, p, 1), 1);
		cluster_place(&f->c, p, i);
	}
	assert_int_equal(cluster_next_fit(&f->c, 0, &j), 2);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(cluster_choices(&f->c, 2, &j, p, 1), 1);
		cluster_place(&f->c, p, 10 + i);
	}
	assert_int_equal(cluster_next_fit(&f->c, 0, &j), 3);
	/* A CPU job still finds node 0 (cpu left), and node 1 after it. */
	mkjob(&j, 1000, 1000, 0, 0);
	assert_int_equal(cluster_next_fit(&f->c, 0, &j), 0);
	assert_int_equal(cluster_next_fit(&f->c, 1, &j), 1);
	mkjob(&j, 90000, 1000, 0, 0); /* only node 1 has 90 cores */
	assert_int_equal(cluster_next_fit(&f->c, 0, &j), 1);
	/* A removal makes node 0 a candidate again; a clone keeps the tree. */
	mkjob(&j, 1000, 1000, 1, 1000);
	struct cluster d;
	cluster_clone(&d, &f->c);
	assert_int_equal(cluster_choices(&f->c, 0, &j, p, 1), 0);
	struct placement q;
	memset(&q, 0, sizeof q);
	q.node = 0;
	q.gpus = 1u << 2;
	q.milli = 1000;
	q.hbm = 32768;
	q.dem[DIM_CPU] = 1000;
	q.dem[DIM_MEM] = 1000;
	q.dem[DIM_GPU] = 1000;
	q.dem[DIM_HBM] = 32768;
	q.dem[DIM_NET] = 100;
	cluster_remove(&f->c, &q, 2);
	assert_int_equal(cluster_next_fit(&f->c, 0, &j), 0);
	assert_int_equal(cluster_next_fit(&d, 0, &j), 3);
	cluster_release(&d);
}

/* A walk (cluster_walk) from a node and by a step both drawn from x, taken 5 nodes at a time, meets
 * each node that passes next_fit's test once (so every feasible node), and no other. */
static void check_walk(const struct cluster *c, const struct job *j, uint32_t x)
{
	size_t n = c->n;
	struct cluster_walk w = cluster_walk_start(c, x, x >> 4);
	int met[64] = {0};
	int32_t out[5];
	struct placement p[1];
	assert_true(n <= 64);
	for (size_t k; (k = cluster_walk(c, j, &w, out, 5)) > 0;) {
		assert_true(k <= 5);
		for (size_t i = 0; i < k; i++)
			met[out[i]]++;
	}
	assert_int_equal(w.left, 0);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(met[i], cluster_next_fit(c, i, j) == i);
		if (cluster_choices(c, i, j, p, 1))
			assert_int_equal(met[i], 1);
	}
}

static void test_next_fit_matches_choices_on_many_nodes(void **state)
{
	(void)state;
	enum { N = 37 };
	struct node nodes[N];
	struct cluster c;
	struct job j;
	struct placement p[1];
	for (int i = 0; i < N; i++)
		mknode(&nodes[i], 1 + i % 4, 1, 8000, 64000, 16384);
	cluster_init(&c, nodes, N);
	/* Place pseudo-random jobs; after each, next_fit must never skip a feasible node, nor a
	 * walk miss one. */
	uint32_t x = 12345;
	for (int step = 0; step < 300; step++) {
		x = x * 1103515245u + 12345u;
		int ngpu = (int)(x >> 16) % 3;
		mkjob(&j, 1000 * (1 + (int)((x >> 8) % 3)), 1000, ngpu,
		      ngpu ? 250 * (1 + (int)(x % 4)) : 0);
		size_t want = N;
		for (size_t n = 0; n < N && want == N; n++)
			if (cluster_choices(&c, n, &j, p, 1))
				want = n;
		size_t n = cluster_next_fit(&c, 0, &j);
		while (n < N && !cluster_choices(&c, n, &j, p, 1))
			n = cluster_next_fit(&c, n + 1, &j);
		assert_int_equal(n, want);
		check_walk(&c, &j, x);
		if (want < N) {
			cluster_choices(&c, want, &j, p, 1);
			cluster_place(&c, p, step);
		}
	}
	cluster_release(&c);
}

/* Nodes of three models and CPU nodes, interleaved: next_fit skips the models a GPU job does
 * not allow (and only those: a CPU job or a job allowing any model sees every node), and
 * the next_fit loop still finds the first feasible node, on the cluster and on a clone. */
static void test_next_fit_skips_other_models(void **state)
{
	(void)state;
	enum { N = 45 };
	struct node nodes[N];
	struct cluster c, d;
	struct job j;
	struct placement p[1];
	for (int i = 0; i < N; i++)
		mknode(&nodes[i], i % 5 == 4 ? 0 : 2, i % 5 == 4 ? -1 : i % 3, 8000, 64000, 16384);
	cluster_init(&c, nodes, N);
	mkjob(&j, 1000, 1000, 1, 1000);
	j.gpu_spec = 1u << 2;
	assert_int_equal(cluster_next_fit(&c, 0, &j), 2);
	assert_int_equal(cluster_next_fit(&c, 3, &j), 5);
	assert_int_equal(cluster_next_fit(&c, 42, &j), N); /* 44 is a CPU node */
	j.gpu_spec = 0;
	assert_int_equal(cluster_next_fit(&c, 3, &j), 3);
	mkjob(&j, 1000, 1000, 0, 0);
	j.gpu_spec = 1u << 2; /* a CPU job: its models do not matter */
	assert_int_equal(cluster_next_fit(&c, 4, &j), 4);
	uint32_t x = 777;
	for (int step = 0; step < 400; step++) {
		x = x * 1103515245u + 12345u;
		int ngpu = (int)(x >> 16) % 3;
		mkjob(&j, 1000 * (1 + (int)((x >> 8) % 3)), 1000, ngpu,
		      ngpu ? 250 * (1 + (int)(x % 4)) : 0);
		j.gpu_spec = (x >> 20) % 8; /* any subset of the three models, 0 = any */
		size_t want = N;
		for (size_t n = 0; n < N && want == N; n++)
			if (cluster_choices(&c, n, &j, p, 1))
				want = n;
		for (int k = 0; k < 2; k++) {
			if (k)
				cluster_clone(&d, &c);
			const struct cluster *q = k ? &d : &c;
			size_t n = cluster_next_fit(q, 0, &j);
			while (n < N && !cluster_choices(q, n, &j, p, 1)) {
				if (ngpu && j.gpu_spec)
					assert_true(nodes[n].model >= 0 &&
						    ((j.gpu_spec >> nodes[n].model) & 1));
				n = cluster_next_fit(q, n + 1, &j);
			}
			assert_int_equal(n, want);
			check_walk(q, &j, x);
			if (k)
				cluster_release(&d);
		}
		if (want < N) {
			cluster_choices(&c, want, &j, p, 1);
			cluster_place(&c, p, step);
		}
	}
	cluster_release(&c);
}

/* Random places and removes: every inner node of the max-tree stays the maximum of its
 * children (tree_update stops early when a level is unchanged), and cluster_first_choice
 * is cluster_choices' first choice on every node, or 0 where that has none. */
static void test_tree_and_first_choice_under_churn(void **state)
{
	(void)state;
	enum { N = 29, STEPS = 600 };
	struct node nodes[N];
	struct cluster c;
	struct job jobs[STEPS];
	struct placement held[STEPS], p[8], q;
	int live[STEPS] = {0};
	for (int i = 0; i < N; i++)
		mknode(&nodes[i], 1 + i % 4, 1, 8000, 64000, 16384);
	cluster_init(&c, nodes, N);
	uint32_t x = 777;
	int firsts = 0, none = 0;
	for (int step = 0; step < STEPS; step++) {
		x = x * 1103515245u + 12345u;
		if ((x >> 28) < 5) { /* remove a pseudo-random live job */
			int k = (int)((x >> 4) % (uint32_t)(step ? step : 1));
			if (live[k]) {
				cluster_remove(&c, &held[k], k);
				live[k] = 0;
			}
		}
		int ngpu = (int)(x >> 16) % 3;
		struct job *j = &jobs[step];
		mkjob(j, 1000 * (1 + (int)((x >> 8) % 3)), 1000, ngpu,
		      ngpu ? 250 * (1 + (int)(x % 4)) : 0);
		int placed = 0;
		for (size_t n = 0; n < N; n++) {
			int k = cluster_choices(&c, n, j, p, 8);
			memset(&q, 0xab, sizeof q);
			int got = cluster_first_choice(&c, n, j, &q);
			assert_int_equal(got, k > 0);
			if (!k) {
				none++;
				continue;
			}
			firsts++;
			assert_int_equal(q.node, p[0].node);
			assert_int_equal(q.gpus, p[0].gpus);
			assert_int_equal(q.milli, p[0].milli);
			assert_int_equal(q.hbm, p[0].hbm);
			for (int d = 0; d < DIM_N; d++)
				assert_int_equal(q.dem[d], p[0].dem[d]);
			if (!placed) {
				cluster_place(&c, &q, step);
				held[step] = q;
				live[step] = placed = 1;
			}
		}
		for (size_t i = 1; i < c.tsize; i++)
			for (int k = 0; k < 4; k++) {
				int64_t a = c.tree[2 * i][k], b = c.tree[2 * i + 1][k];
				assert_int_equal(c.tree[i][k], a > b ? a : b);
			}
	}
	assert_true(firsts > 100 && none > 100); /* both outcomes were exercised */
	cluster_release(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
		T(test_init_totals),
		T(test_cpu_job_fits_everywhere_with_room),
		T(test_gpu_job_not_on_cpu_node),
		T(test_gpu_spec_restricts_models),
		T(test_shared_gpu_choices_and_hbm),
		T(test_hard_dims_refused_shared_allowed),
		T(test_remove_restores_and_keeps_order),
		T(test_clone_is_independent),
		T(test_set_cap_on_shared_dim),
		T(test_node_without_a_shared_dim),
		T(test_next_fit_skips_full_nodes),
		T(test_next_fit_matches_choices_on_many_nodes),
		T(test_next_fit_skips_other_models),
		T(test_tree_and_first_choice_under_churn),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
