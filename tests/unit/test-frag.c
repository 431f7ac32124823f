/* test-frag.c — the FGD fragmentation measure, its multi-dim extension, the target workload. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdlib.h>
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
#include "frag.h"
#include "rng.h"

#define HBM_GPU 16000 /* MiB per GPU of the test nodes */

/* Node 0: 4 GPUs of model 1; node 1: CPU only. */
struct fx {
	struct node nodes[2];
	struct cluster c;
	struct frag_workload w;
};

static void mknode(struct node *n, int ngpu, int model)
{
	node_init(n);
	n->ngpu = ngpu;
	n->model = (int16_t)model;
	int64_t cap[DIM_N] = {32000, 256000, ngpu * 1000, (int64_t)ngpu * HBM_GPU,
			      1000,  1000,   1000};
	memcpy(n->cap, cap, sizeof cap);
}

static void mkjob(struct job *j, int64_t cpu, int ngpu, int milli)
{
	job_init(j);
	j->num_gpu = ngpu;
	j->gpu_milli = milli;
	j->dem[DIM_CPU] = cpu;
	j->dem[DIM_MEM] = 1000;
	j->dem[DIM_GPU] = (int64_t)ngpu * milli;
	j->dem[DIM_NET] = j->dem[DIM_STO] = j->dem[DIM_IOCPU] = 0;
}

/* A placement of milli on GPU gpu of node n (gpu < 0: none), with cpu and net taken. */
static struct placement put(struct cluster *c, int n, int gpu, int milli, int64_t cpu, int64_t net)
{
	struct placement p;
	memset(&p, 0, sizeof p);
	p.node = n;
	if (gpu >= 0) {
		p.gpus = 1u << gpu;
		p.milli = milli;
		p.hbm = (int64_t)HBM_GPU * milli / 1000;
	}
	p.dem[DIM_CPU] = cpu;
	p.dem[DIM_GPU] = gpu >= 0 ? milli : 0;
	p.dem[DIM_HBM] = p.hbm;
	p.dem[DIM_NET] = net;
	(void)c;
	return p;
}

/* Workload: 3 jobs of shape A (1 GPU x 500, cpu 1000), 1 of shape B (1 x 1000, cpu 2000).
 * State of node 0: GPU free = {1000, 300, 600, 0}, cpu used 4000. */
static int setup(void **state)
{
	static struct fx f;
	memset(&f, 0, sizeof f);
	mknode(&f.nodes[0], 4, 1);
	mknode(&f.nodes[1], 0, -1);
	cluster_init(&f.c, f.nodes, 2);
	struct job jobs[4];
	mkjob(&jobs[0], 1000, 1, 500);
	mkjob(&jobs[1], 2000, 1, 1000);
	mkjob(&jobs[2], 1000, 1, 500);
	mkjob(&jobs[3], 1000, 1, 500);
	frag_workload_build(&f.w, jobs, 4, 1.0);
	struct placement p;
	p = put(&f.c, 0, 1, 700, 0, 0);
	cluster_place(&f.c, &p, 0);
	p = put(&f.c, 0, 2, 400, 0, 0);
	cluster_place(&f.c, &p, 1);
	p = put(&f.c, 0, 3, 1000, 0, 0);
	cluster_place(&f.c, &p, 2);
	p = put(&f.c, 0, -1, 0, 4000, 0);
	cluster_place(&f.c, &p, 3);
	*state = &f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	cluster_release(&f->c);
	frag_workload_release(&f->w);
	frag_workload_release(NULL);
	return 0;
}

static void test_workload_shapes(void **state)
{
	struct fx *f = *state;
	assert_int_equal(f->w.n, 2);
	assert_int_equal(f->w.shapes[0].gpu_milli, 500);
	assert_int_equal(f->w.shapes[0].dem[DIM_CPU], 1000);
	assert_true(f->w.shapes[0].p == 0.75);
	assert_int_equal(f->w.shapes[1].gpu_milli, 1000);
	assert_true(f->w.shapes[1].p == 0.25);
	assert_int_equal(f->w.shapes[1].dem[DIM_GPU], 1000);
	double s = 0;
	for (int d = 0; d < DIM_N; d++)
		s += f->w.price_share[d];
	assert_true(s > 0.999999 && s < 1.000001);
	assert_true(f->w.price_share[DIM_GPU] == 0.70);
}

static void test_workload_coverage_and_ties(void **state)
{
	(void)state;
	struct job jobs[7];
	/* Shapes: X (1 x 250) x3, Y (2 x 1000) x2, Z (0 GPU, cpu 4000) x2, mem 100/200/301. */
	mkjob(&jobs[0], 1000, 1, 250);
	mkjob(&jobs[1], 4000, 0, 0);
	mkjob(&jobs[2], 1000, 1, 250);
	mkjob(&jobs[3], 8000, 2, 1000);
	mkjob(&jobs[4], 4000, 0, 0);
	mkjob(&jobs[5], 8000, 2, 1000);
	mkjob(&jobs[6], 1000, 1, 250);
	jobs[0].dem[DIM_MEM] = 100;
	jobs[2].dem[DIM_MEM] = 200;
	jobs[6].dem[DIM_MEM] = 301;
	jobs[3].dem[DIM_HBM] = 64000; /* only one Y records HBM: the shape's stays derived */
	struct frag_workload w;
	/* 3/7 < 0.5, so X alone does not cover half; X + the first of the tied Z, Y. */
	frag_workload_build(&w, jobs, 7, 0.5);
	assert_int_equal(w.n, 2);
	assert_int_equal(w.shapes[0].gpu_milli, 250);
	assert_int_equal(w.shapes[0].dem[DIM_MEM], 200); /* (100 + 200 + 301) / 3 = 200.3 */
	assert_int_equal(w.shapes[1].num_gpu, 0);        /* tie 2 vs 2: fewer GPUs first */
	assert_true(w.shapes[0].p == 0.6 && w.shapes[1].p == 0.4);
	frag_workload_release(&w);
	frag_workload_build(&w, jobs, 7, 1.0);
	assert_int_equal(w.n, 3);
	assert_int_equal(w.shapes[2].num_gpu, 2);
	assert_int_equal(w.shapes[2].dem[DIM_HBM], -1);
	/* Y alone takes whole GPUs: it wants more than 0 and 1 of them, not 2 */
	assert_true(w.whole_over[0] == 4 && w.whole_over[1] == 4 && w.whole_over[2] == 0);
	frag_workload_release(&w);
	frag_workload_build(&w, jobs, 0, 0.95);
	assert_int_equal(w.n, 0);
	assert_null(w.shapes);
	frag_workload_release(&w);
}

/* Many distinct shapes, in no key order: grouped through the builder's hash table as it
 * grows, ranked by popularity, ties in key order, means per shape. */
static void test_workload_many_shapes(void **state)
{
	(void)state;
	enum { PAIRS = 1500, POP = 10, N = 2 * PAIRS + POP };
	struct job *jobs = calloc(N, sizeof *jobs);
	assert_non_null(jobs);
	for (int i = 0; i < 2 * PAIRS; i++) {
		int k = 2 * PAIRS - 1 - i; /* cpu falls as the index grows */
		mkjob(&jobs[i], 1000 + k % PAIRS, 1, 100);
		jobs[i].dem[DIM_MEM] = k; /* the two jobs of cpu 1000 + x: x and x + PAIRS */
	}
	for (int i = 2 * PAIRS; i < N; i++)
		mkjob(&jobs[i], 5000, 1, 100);
	struct frag_workload w;
	frag_workload_build(&w, jobs, N, 1.0);
	assert_int_equal(w.n, PAIRS + 1);
	assert_int_equal(w.shapes[0].dem[DIM_CPU], 5000);
	assert_true(w.shapes[0].p == (double)POP / N);
	for (int x = 0; x < PAIRS; x++) {
		assert_int_equal(w.shapes[1 + x].dem[DIM_CPU], 1000 + x);
		assert_int_equal(w.shapes[1 + x].dem[DIM_MEM], x + PAIRS / 2);
		assert_true(w.shapes[1 + x].p == 2.0 / N);
	}
	frag_workload_release(&w);
	/* coverage: the popular shape and the smallest cpus, just past half of the jobs */
	frag_workload_build(&w, jobs, N, 0.5);
	assert_int_equal(w.n, 1 + (N / 2 - POP + 1) / 2);
	assert_int_equal(w.shapes[w.n - 1].dem[DIM_CPU], 1000 + (int)w.n - 2);
	frag_workload_release(&w);
	free(jobs);
}

static void test_frag_node_by_hand(void **state)
{
	struct fx *f = *state;
	/* Free {1000, 300, 600, 0}, total 1900.
	 * A (500): fits on GPU0/GPU2; too small: GPU1 300 + GPU3 0 = 300.
	 * B (1000): fits on GPU0; too small: 300 + 600 + 0 = 900.
	 * F = 0.75 * 300 + 0.25 * 900 = 450. */
	assert_near(frag_node(&f->c, 0, &f->w), 450.0, 1e-9);
	/* No GPUs, nothing to strand. */
	assert_near(frag_node(&f->c, 1, &f->w), 0.0, 1e-9);
}

static void test_frag_after_gpu_choice(void **state)
{
	struct fx *f = *state;
	struct placement p2 = put(&f->c, 0, 2, 500, 0, 0), p0 = put(&f->c, 0, 0, 500, 0, 0);
	struct job j;
	mkjob(&j, 0, 1, 500);
	/* On GPU2: free {1000, 300, 100, 0}: A small 300+100 = 400, B small 400: F = 400. */
	assert_near(frag_node_after(&f->c, &p2, &j, &f->w), 400.0, 1e-9);
	/* On GPU0: free {500, 300, 600, 0}: A small 300; B fits nowhere: all 1400.
	 * F = 0.75 * 300 + 0.25 * 1400 = 575. */
	assert_near(frag_node_after(&f->c, &p0, &j, &f->w), 575.0, 1e-9);
	/* The cluster itself is untouched. */
	assert_near(frag_node(&f->c, 0, &f->w), 450.0, 1e-9);
}

static void test_frag_cpu_blocks_everything(void **state)
{
	struct fx *f = *state;
	/* Take the cpu down to 1500 free: B (2000) no longer fits: all 1900 for it.
	 * F = 0.75 * 300 + 0.25 * 1900 = 700. Then to 500 free: nothing fits: 1900. */
	struct placement p = put(&f->c, 0, -1, 0, 26500, 0);
	struct job j;
	mkjob(&j, 26500, 0, 0);
	assert_near(frag_node_after(&f->c, &p, &j, &f->w), 700.0, 1e-9);
	p = put(&f->c, 0, -1, 0, 27500, 0);
	assert_near(frag_node_after(&f->c, &p, &j, &f->w), 1900.0, 1e-9);
}

static void test_frag_model_multi_gpu_cpu_only_hbm(void **state)
{
	struct fx *f = *state;
	struct frag_shape s;
	struct frag_workload w = {.shapes = &s, .n = 1};
	memset(&s, 0, sizeof s);
	for (int d = 0; d < DIM_N; d++)
		s.dem[d] = 0;
	s.p = 1;
	/* A share of model 2 only: node 0 has model 1: all free counts. */
	s.num_gpu = 1, s.gpu_milli = 100, s.gpu_spec = 1u << 2, s.dem[DIM_HBM] = -1;
	assert_near(frag_node(&f->c, 0, &w), 1900.0, 1e-9);
	/* Allowed model: GPUs under 100 free are too small: GPU3 only (0). */
	s.gpu_spec = (1u << 1) | (1u << 2);
	assert_near(frag_node(&f->c, 0, &w), 0.0, 1e-9);
	/* Two whole GPUs: only GPU0 is whole: does not fit: 1900. */
	s.num_gpu = 2, s.gpu_milli = 1000;
	assert_near(frag_node(&f->c, 0, &w), 1900.0, 1e-9);
	/* CPU only: every free GPU is stranded for it. */
	s.num_gpu = 0, s.gpu_milli = 0;
	assert_near(frag_node(&f->c, 0, &w), 1900.0, 1e-9);
	/* 200 milli but 10000 MiB of HBM per GPU: GPU1 has 300 milli but 16000*300/1000 =
	 * 4800 MiB: too small, as GPU3; fits on GPU0 and GPU2 (9600 MiB free: too small too).
	 * GPU0 hosts it, so F = 300 + 600 + 0 = 900. */
	s.num_gpu = 1, s.gpu_milli = 200, s.gpu_spec = 0, s.dem[DIM_HBM] = 10000;
	assert_near(frag_node(&f->c, 0, &w), 900.0, 1e-9);
}

/* Allowed-model-only: a shape that does not allow the node's GPU model has no term there; one
 * with more GPUs than the node has still strands all of it, as one that cannot fit now. */
static void test_frag_allowed_only(void **state)
{
	struct fx *f = *state;
	struct frag_shape s[3];
	struct frag_workload w = {.shapes = s, .n = 3};
	memset(s, 0, sizeof s);
	/* model 2 only (node 0 has model 1), 5 whole GPUs (node 0 has 4), 2 whole GPUs (node
	 * 0 has one whole free now) */
	s[0].num_gpu = 1, s[0].gpu_milli = 100, s[0].gpu_spec = 1u << 2, s[0].p = 0.5;
	s[1].num_gpu = 5, s[1].gpu_milli = 1000, s[1].p = 0.25;
	s[2].num_gpu = 2, s[2].gpu_milli = 1000, s[2].p = 0.25;
	for (int i = 0; i < 3; i++)
		s[i].dem[DIM_HBM] = -1, s[i].need = -1;
	double md, nofit, fnofit;
	/* the paper's measure: every shape strands node 0's 1900 free milli */
	assert_near(frag_node(&f->c, 0, &w), 1900.0, 1e-9);
	assert_near(frag_node_eval(&f->c, 0, &w, DIMS_ALL, &md, &nofit, &fnofit, NULL), 1900.0,
		    1e-9);
	assert_near(fnofit, 1.0, 1e-12);
	w.allowed_only = 1;
	assert_near(frag_node(&f->c, 0, &w), 0.5 * 1900.0, 1e-9);
	assert_near(frag_node_eval(&f->c, 0, &w, DIMS_ALL, &md, &nofit, &fnofit, NULL),
		    0.5 * 1900.0, 1e-9);
	assert_near(fnofit, 0.5, 1e-12);
	assert_near(nofit, 0.5, 1e-12);
	/* the same placement changes F_n by the other shapes' terms only */
	struct job j;
	mkjob(&j, 0, 1, 1000);
	struct placement p = put(&f->c, 0, 0, 1000, 0, 0);
	assert_near(frag_node_after(&f->c, &p, &j, &w), 0.5 * 900.0, 1e-9);
	w.allowed_only = 0;
	assert_near(frag_node_after(&f->c, &p, &j, &w), 900.0, 1e-9);
	/* the CPU node has no GPU model: the model-2 shape has no term there either (nor free
	 * GPU to strand) */
	w.allowed_only = 1;
	assert_near(frag_node(&f->c, 1, &w), 0.0, 1e-9);
}

static void test_frag_md_by_hand(void **state)
{
	struct fx *f = *state;
	/* mask cpu|gpu: both shapes fit, so no cpu is stranded; gpu: F / cap = 450 / 4000.
	 * md = 0.70 * 450 / 4000 = 0.07875. */
	uint32_t m = DIM_BIT(DIM_CPU) | DIM_BIT(DIM_GPU);
	assert_near(frag_node_md(&f->c, 0, &f->w, m), 0.07875, 1e-12);
	/* After a 500 share on GPU0: gpu stranded 575 (as F); B does not fit, so its share of
	 * the free cpu (32000 - 4000 = 28000) is stranded: 0.25 * 28000.
	 * md = 0.70 * 575 / 4000 + 0.10 * 7000 / 32000 = 0.100625 + 0.021875 = 0.1225. */
	struct placement p0 = put(&f->c, 0, 0, 500, 0, 0);
	struct job j;
	mkjob(&j, 0, 1, 500);
	double F = 0;
	assert_near(frag_node_md_after(&f->c, &p0, &j, &f->w, m, &F), 0.1225, 1e-12);
	assert_near(F, 575.0, 1e-9);
	assert_near(frag_node_md(&f->c, 0, &f->w, 0), 0.0, 0);
}

static void test_frag_md_shared_dim(void **state)
{
	struct fx *f = *state;
	/* Shape A wants net 100 (its jobs' mean); the node has 950 of 1000 net used. Seen net:
	 * A does not fit: all 1900 GPU milli and the 50 free net are stranded for it; B (net 0)
	 * fits: 900 stranded.
	 * md = 0.70 * (0.75 * 1900 + 0.25 * 900) / 4000 + 0.03 * 0.75 * 50 / 1000
	 *    = 0.28875 + 0.001125 = 0.289875. Net unseen: the gpu part is F / 4000 = 0.07875. */
	f->w.shapes[0].dem[DIM_NET] = 100;
	struct placement p = put(&f->c, 0, -1, 0, 0, 950);
	cluster_place(&f->c, &p, 9);
	uint32_t m = DIM_BIT(DIM_GPU) | DIM_BIT(DIM_NET);
	assert_near(frag_node_md(&f->c, 0, &f->w, m), 0.289875, 1e-12);
	assert_near(frag_node_md(&f->c, 0, &f->w, DIM_BIT(DIM_GPU)), 0.07875, 1e-12);
	/* FGD's F looks at hard dims only. */
	assert_near(frag_node(&f->c, 0, &f->w), 450.0, 1e-9);
	cluster_remove(&f->c, &p, 9);
	f->w.shapes[0].dem[DIM_NET] = 0;
}

/* frag_node_both: F_n and md in one pass, and the share of the workload that no longer fits
 * (the same node as test_frag_md_shared_dim). */
static void test_frag_node_both(void **state)
{
	struct fx *f = *state;
	double md = -1, nofit = -1;
	f->w.shapes[0].dem[DIM_NET] = 100;
	struct placement p = put(&f->c, 0, -1, 0, 0, 950);
	cluster_place(&f->c, &p, 9);
	uint32_t m = DIM_BIT(DIM_GPU) | DIM_BIT(DIM_NET);
	assert_near(frag_node_both(&f->c, 0, &f->w, m, &md, &nofit), 450.0, 1e-9);
	assert_near(md, 0.289875, 1e-12);
	assert_near(nofit, 0.75, 1e-12); /* shape A lacks net */
	assert_near(frag_node_both(&f->c, 0, &f->w, DIM_BIT(DIM_GPU), &md, &nofit), 450.0, 1e-9);
	assert_near(md, 0.07875, 1e-12);
	assert_near(nofit, 0.0, 0); /* net unseen: both fit */
	assert_near(frag_node_both(&f->c, 0, &f->w, 0, &md, NULL), 450.0, 1e-9);
	assert_near(md, 0.0, 0);
	cluster_remove(&f->c, &p, 9);
	f->w.shapes[0].dem[DIM_NET] = 0;
}

/* frag_node_eval: the share of the workload whose F_n(m) is all free GPU (CPU-only shapes and
 * shapes that do not fit on the hard dims), and which shapes fit over the mask. */
static void test_frag_node_eval_shares(void **state)
{
	struct fx *f = *state;
	double md, nofit, fnofit = -1;
	uint64_t fits[2] = {7, 7};
	/* Node 0 (free GPU 1000, 300, 600, 0): A and B fit. */
	assert_near(frag_node_eval(&f->c, 0, &f->w, 0, &md, &nofit, &fnofit, fits), 450.0, 1e-9);
	assert_near(fnofit, 0.0, 0);
	assert_true(fits[0] == 3 && fits[1] == 0); /* no mask: not judged over it */
	/* A wants net the node lacks: it no longer fits over net, but still on the hard dims. */
	f->w.shapes[0].dem[DIM_NET] = 100;
	struct placement p = put(&f->c, 0, -1, 0, 0, 950);
	cluster_place(&f->c, &p, 9);
	uint32_t m = DIM_BIT(DIM_GPU) | DIM_BIT(DIM_NET);
	frag_node_eval(&f->c, 0, &f->w, m, &md, &nofit, &fnofit, fits);
	assert_near(nofit, 0.75, 1e-12);
	assert_near(fnofit, 0.0, 0);
	assert_true(fits[0] == 3 && fits[1] == 2); /* over net: shape 1 (B) only */
	cluster_remove(&f->c, &p, 9);
	f->w.shapes[0].dem[DIM_NET] = 0;
	/* B takes the idle GPU: B fits no more, and its F_n(B) is all the free GPU. */
	p = put(&f->c, 0, 0, 1000, 2000, 0);
	cluster_place(&f->c, &p, 8);
	assert_near(frag_node_eval(&f->c, 0, &f->w, DIMS_ALL, &md, &nofit, &fnofit, fits),
		    0.75 * 300 + 0.25 * 900, 1e-9);
	assert_near(fnofit, 0.25, 1e-12);
	assert_true(fits[0] == 1 && fits[1] == 1);
	cluster_remove(&f->c, &p, 8);
	/* Node 1 has no GPU: neither shape fits. */
	frag_node_eval(&f->c, 1, &f->w, DIMS_ALL, &md, &nofit, &fnofit, fits);
	assert_near(fnofit, 1.0, 1e-12);
	assert_true(fits[0] == 0 && fits[1] == 0);
}

/* frag_share_small: the shapes a GPU with at least (milli, hbm) free may be too small for;
 * frag_share_cpu: the CPU-only shapes. The builder's per-need sums give what a workload
 * without need[] (shape by shape) gives. */
static void test_frag_shares(void **state)
{
	struct fx *f = *state;
	struct frag_workload hand = f->w;
	hand.need = NULL;
	hand.nneed = 0;
	hand.need_all = 0;
	const struct frag_workload *ws[] = {&f->w, &hand};
	for (int i = 0; i < 2; i++) {
		/* A: 1 x 500 (HBM 8000 per GPU, the model's share), p 0.75; B: 1 x 1000, p 0.25 */
		assert_near(frag_share_small(cluster_gpu_hbm(&f->c, 0), ws[i], 300, 4800), 1.0,
			    1e-12);
		assert_near(frag_share_small(cluster_gpu_hbm(&f->c, 0), ws[i], 500, 8000), 0.25,
			    1e-12);
		assert_near(frag_share_small(cluster_gpu_hbm(&f->c, 0), ws[i], 500, 7999), 1.0,
			    1e-12);
		assert_near(frag_share_small(cluster_gpu_hbm(&f->c, 0), ws[i], 1000, 16000), 0.0,
			    0);
		assert_near(frag_share_cpu(ws[i]), 0.0, 0);
	}
	struct job jobs[4];
	struct frag_workload w;
	mkjob(&jobs[0], 1000, 0, 0);
	for (int i = 1; i < 4; i++)
		mkjob(&jobs[i], 1000, 1, 500);
	frag_workload_build(&w, jobs, 4, 1.0);
	assert_true(w.need_all);
	assert_near(frag_share_cpu(&w), 0.25, 1e-12);
	w.need_all = 0;
	assert_near(frag_share_cpu(&w), 0.25, 1e-12);
	assert_near(frag_share_small(cluster_gpu_hbm(&f->c, 0), &w, 400, 6400), 0.75, 1e-12);
	frag_workload_release(&w);
}

/* The per-need counting (sorted merge, or a scan when jobs state their own HBM) must give
 * what a shape-by-shape evaluation gives (a workload without need[]), on random states. */
static void test_fast_path_matches_shape_by_shape(void **state)
{
	(void)state;
	struct node nodes[3];
	for (int i = 0; i < 3; i++)
		mknode(&nodes[i], 8, 1);
	struct job jobs[40];
	struct rng r;
	rng_seed(&r, 5);
	static const int milli[] = {100, 250, 300, 500, 700, 1000};
	for (int i = 0; i < 40; i++) {
		int whole = rng_below(&r, 3) == 0;
		mkjob(&jobs[i], 1000 * (int64_t)(1 + rng_below(&r, 4)),
		      whole ? 1 + (int)rng_below(&r, 3) : 1,
		      whole ? 1000 : milli[rng_below(&r, 5)]);
		if (i % 7 == 0)
			jobs[i].dem[DIM_HBM] = 3000 * jobs[i].num_gpu; /* a stated HBM */
	}
	/* Workload 0: no shape states HBM (the sorted merge); 1: some do (the scan). Placements
	 * in round 1 state HBM too, so GPUs can have less than their share of HBM free. */
	for (int wv = 0; wv < 2; wv++) {
		struct job wj[40];
		memcpy(wj, jobs, sizeof wj);
		for (int i = 0; i < 40 && wv == 0; i++)
			wj[i].dem[DIM_HBM] = -1;
		struct frag_workload fast, slow;
		frag_workload_build(&fast, wj, 40, 1.0);
		frag_workload_build(&slow, wj, 40, 1.0);
		assert_non_null(fast.need);
		int stated = 0;
		for (size_t t = 0; t < fast.nneed; t++)
			stated |= fast.need[t].hbm >= 0;
		assert_int_equal(stated, wv);
		free(slow.need);
		slow.need = NULL;
		slow.nneed = 0;
		for (int round = 0; round < 2; round++) {
			struct cluster c;
			cluster_init(&c, nodes, 3);
			for (int step = 0; step < 60; step++) {
				struct job j = jobs[rng_below(&r, 40)];
				if (round == 0)
					j.dem[DIM_HBM] = -1;
				size_t n = rng_below(&r, 3);
				struct placement ch[CLUSTER_MAX_GPUS];
				int k = cluster_choices(&c, n, &j, ch, CLUSTER_MAX_GPUS);
				if (k > 0)
					cluster_place(&c, &ch[rng_below(&r, (uint64_t)k)], step);
				for (size_t m = 0; m < 3; m++) {
					assert_near(frag_node(&c, m, &fast),
						    frag_node(&c, m, &slow), 1e-6);
					assert_near(frag_node_md(&c, m, &fast, DIMS_ALL),
						    frag_node_md(&c, m, &slow, DIMS_ALL), 1e-12);
				}
			}
			cluster_release(&c);
		}
		frag_workload_release(&fast);
		frag_workload_release(&slow);
	}
}

/* Bitwise equality of doubles: replay results are compared byte for byte across versions, so
 * the per-need counting must give the shape-by-shape sums bit for bit. */
static int same_bits(double a, double b)
{
	return memcmp(&a, &b, sizeof a) == 0;
}

/* frag_node_eval over the builder's workload (GPUs counted once per need) gives what the
 * shape-by-shape evaluation (the same workload without need[]) gives, bit for bit, in
 * every output, for every mask and with or without the optional outputs: CPU-only shapes,
 * shapes bound to a GPU model, nodes of other models and without GPU, bandwidth demands,
 * nodes filling up and emptying. */
static void test_need_counts_bit_identical(void **state)
{
	(void)state;
	struct node nodes[5];
	mknode(&nodes[0], 8, 1);
	mknode(&nodes[1], 8, 2);
	mknode(&nodes[2], 4, 1);
	mknode(&nodes[3], 0, -1);
	mknode(&nodes[4], 2, 3);
	struct rng r;
	rng_seed(&r, 9);
	static const int milli[] = {100, 250, 300, 500, 700, 1000};
	struct job jobs[60];
	for (int i = 0; i < 60; i++) {
		int kind = (int)rng_below(&r, 6);
		int ng = kind == 0 ? 0 : kind == 1 ? 1 + (int)rng_below(&r, 4) : 1;
		mkjob(&jobs[i], 1000 * (int64_t)(1 + rng_below(&r, 8)), ng,
		      ng == 0     ? 0
		      : kind == 1 ? 1000
				  : milli[rng_below(&r, 6)]);
		jobs[i].dem[DIM_MEM] = 4000 * (int64_t)(1 + rng_below(&r, 16));
		jobs[i].dem[DIM_NET] = 50 * (int64_t)rng_below(&r, 8);
		jobs[i].dem[DIM_STO] = 100 * (int64_t)rng_below(&r, 4);
		jobs[i].dem[DIM_IOCPU] = 200 * (int64_t)rng_below(&r, 3);
		if (ng > 0 && rng_below(&r, 4) == 0)
			jobs[i].gpu_spec = 1u << (1 + rng_below(&r, 3));
	}
	struct frag_workload fast, slow;
	frag_workload_build(&fast, jobs, 60, 1.0);
	frag_workload_build(&slow, jobs, 60, 1.0);
	assert_true(fast.need_all && fast.need != NULL && fast.p_cpu > 0);
	free(slow.need);
	slow.need = NULL;
	slow.nneed = 0;
	const uint32_t masks[] = {0, DIMS_ALL, DIM_BIT(DIM_GPU) | DIM_BIT(DIM_NET),
				  DIM_BIT(DIM_CPU) | DIM_BIT(DIM_STO) | DIM_BIT(DIM_IOCPU)};
	struct cluster c;
	cluster_init(&c, nodes, 5);
	struct placement held[400];
	int alive[400] = {0}, nheld = 0, nfull = 0;
	for (int step = 0; step < 400; step++) {
		int x = (int)rng_below(&r, (uint64_t)(nheld + 1));
		if (x < nheld && alive[x] && rng_below(&r, 2) == 0) { /* a job leaves */
			cluster_remove(&c, &held[x], x);
			alive[x] = 0;
		} else {
			struct job j = jobs[rng_below(&r, 60)];
			size_t n = rng_below(&r, 5);
			struct placement ch[CLUSTER_MAX_GPUS];
			int k = cluster_choices(&c, n, &j, ch, CLUSTER_MAX_GPUS);
			if (k > 0) {
				held[nheld] = ch[rng_below(&r, (uint64_t)k)];
				cluster_place(&c, &held[nheld], nheld);
				alive[nheld++] = 1;
			} else {
				nfull++;
			}
		}
		for (size_t n = 0; n < 5; n++)
			for (size_t q = 0; q < 4; q++) {
				double md[2] = {-1, -1}, nf[2] = {-1, -1}, fn[2] = {-1, -1}, F[2];
				uint64_t fits[2][2] = {{9, 9}, {9, 9}};
				const struct frag_workload *ws[2] = {&fast, &slow};
				for (int v = 0; v < 2; v++)
					F[v] = frag_node_eval(&c, n, ws[v], masks[q], &md[v],
							      &nf[v], &fn[v], fits[v]);
				assert_true(same_bits(F[0], F[1]));
				assert_true(same_bits(md[0], md[1]));
				assert_true(same_bits(nf[0], nf[1]));
				assert_true(same_bits(fn[0], fn[1]));
				assert_true(fits[0][0] == fits[1][0] && fits[0][1] == fits[1][1]);
				/* without the optional outputs */
				double md1 = -1, md2 = -1;
				double F1 = frag_node_eval(&c, n, &fast, masks[q], &md1, NULL, NULL,
							   NULL);
				double F2 = frag_node_eval(&c, n, &fast, masks[q], &md2, &nf[0],
							   NULL, NULL);
				assert_true(same_bits(F1, F[1]) && same_bits(F2, F[1]));
				assert_true(same_bits(md1, md[1]) && same_bits(md2, md[1]));
				assert_true(same_bits(frag_node(&c, n, &fast), F[1]));
			}
	}
	assert_true(nfull > 0 && nheld > 0); /* the nodes did fill up */
	for (int v = 0; v < nheld; v++)
		if (alive[v])
			cluster_remove(&c, &held[v], v);
	cluster_release(&c);
	frag_workload_release(&fast);
	frag_workload_release(&slow);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_workload_shapes, setup, teardown),
		cmocka_unit_test(test_workload_coverage_and_ties),
		cmocka_unit_test(test_workload_many_shapes),
		cmocka_unit_test_setup_teardown(test_frag_node_by_hand, setup, teardown),
		cmocka_unit_test_setup_teardown(test_frag_after_gpu_choice, setup, teardown),
		cmocka_unit_test_setup_teardown(test_frag_cpu_blocks_everything, setup, teardown),
		cmocka_unit_test_setup_teardown(test_frag_model_multi_gpu_cpu_only_hbm, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_frag_allowed_only, setup, teardown),
		cmocka_unit_test_setup_teardown(test_frag_md_by_hand, setup, teardown),
		cmocka_unit_test_setup_teardown(test_frag_md_shared_dim, setup, teardown),
		cmocka_unit_test_setup_teardown(test_frag_node_both, setup, teardown),
		cmocka_unit_test_setup_teardown(test_frag_node_eval_shares, setup, teardown),
		cmocka_unit_test_setup_teardown(test_frag_shares, setup, teardown),
		cmocka_unit_test(test_fast_path_matches_shape_by_shape),
		cmocka_unit_test(test_need_counts_bit_identical),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
