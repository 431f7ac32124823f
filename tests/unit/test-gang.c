/* test-gang.c — gangs and EASY backfill in the replay engine: a gang that fits only on one
 * exact set of nodes (packed and spread), the exact rollback of a gang that does not fit,
 * workers that start and end together, preemption of a whole gang, EASY backfill against a
 * brute-force schedule, the idle buckets of gangs and reservations summing exactly, and
 * switches: a gang kept under one, and the slowdown of one across them. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gpumodel.h"
#include "metrics.h"
#include "rng.h"
#include "sim.h"

/* Scores every choice 0: the lowest node wins (first fit); counts the choices it scored. */
static int nscored;
static double zero_score(const struct policy_ctx *ctx, const struct job *j,
			 const struct placement *p)
{
	(void)ctx, (void)j, (void)p;
	nscored++;
	return 0;
}
static const struct policy_ops ff_ops = {
	.name = "t-first", .summary = "", .dims = DIMS_HARD, .flags = 0, .score = zero_score};

static void add_node(struct job_set *js, const char *model, int ngpu)
{
	struct node n;
	node_init(&n);
	snprintf(n.name, sizeof n.name, "n%zu", js->nnodes);
	n.ngpu = ngpu;
	n.model = (int16_t)(model ? gpumodel_find(model) : -1);
	int64_t cap[DIM_N] = {64000, 1 << 20, ngpu * 1000, ngpu * 16384, 1000, 1000, 8000};
	memcpy(n.cap, cap, sizeof cap);
	job_set_add_node(js, &n);
}

static struct job *add_job(struct job_set *js, int64_t arrival, int64_t dur, int ngpu, int w,
			   int cls)
{
	struct job j;
	job_init(&j);
	j.id = (int64_t)js->njobs;
	j.arrival = arrival;
	j.duration = dur;
	j.num_gpu = ngpu;
	j.gpu_milli = ngpu ? 1000 : 0;
	j.workers = w;
	int64_t dem[DIM_N] = {1000, 1024, (int64_t)ngpu * 1000, -1, 0, 0, 0};
	memcpy(j.dem, dem, sizeof dem);
	j.cls = (uint8_t)cls;
	job_set_add_job(js, &j);
	return &js->jobs[js->njobs - 1];
}

static struct sim_job_result res(const struct sim *s, size_t i)
{
	struct sim_job_result r;
	sim_job_result(s, i, &r);
	return r;
}

/* GPUs in use on node n. */
static int64_t used_gpu(const struct sim *s, size_t n)
{
	return sim_cluster(s)->st[n].used[DIM_GPU];
}

/* Nodes of 2, 8, 2 and 4 GPUs: a gang of three 4-GPU workers fits only as two workers on n1
 * and one on n3 (packed); spread, no three nodes hold one each. */
static void exact_set(struct job_set *js)
{
	memset(js, 0, sizeof *js);
	add_node(js, "A100", 2);
	add_node(js, "A100", 8);
	add_node(js, "A100", 2);
	add_node(js, "A100", 4);
	add_job(js, 0, 100, 4, 3, JOB_TRAIN);
	add_job(js, 5, 10, 1, 1, JOB_TRAIN); /* a one-node job beside it */
}

static void test_gang_on_the_one_set_that_fits(void **state)
{
	(void)state;
	struct job_set js;
	struct sim_opts o;
	struct sim *s;
	exact_set(&js);
	sim_opts_init(&o);
	assert_int_equal(sim_new(&js, &ff_ops, NULL, &o, &s, NULL), 0);
	assert_int_equal(sim_run_until(s, 1), 1);
	assert_int_equal(used_gpu(s, 0), 0);
	assert_int_equal(used_gpu(s, 1), 8000);
	assert_int_equal(used_gpu(s, 2), 0);
	assert_int_equal(used_gpu(s, 3), 4000);
	struct sim_job_result r = res(s, 0);
	assert_int_equal(r.state, SIM_JOB_RUNNING);
	assert_int_equal(r.gpu_milli, 12000);
	assert_int_equal(r.workers, 3);
	sim_run(s);
	r = res(s, 0);
	assert_int_equal(r.start, 0);
	assert_int_equal(r.end, 100); /* all workers end together */
	assert_int_equal(res(s, 1).start, 5);
	for (size_t n = 0; n < 4; n++)
		assert_int_equal(used_gpu(s, n), 0);
	sim_free(s);

	o.gang_spread = 1; /* one worker a node: n1 and n3, and no third */
	assert_int_equal(sim_new(&js, &ff_ops, NULL, &o, &s, NULL), 0);
	sim_run(s);
	r = res(s, 0);
	assert_int_equal(r.state, SIM_JOB_UNPLACEABLE);
	assert_int_equal(r.why, SIM_WHY_GANG);
	assert_string_equal(sim_why_name(SIM_WHY_GANG), "gang");
	sim_free(s);

	/* spread, a fourth node of 4 GPUs gives three: n1, n3, n4 */
	add_node(&js, "A100", 4);
	assert_int_equal(sim_new(&js, &ff_ops, NULL, &o, &s, NULL), 0);
	assert_int_equal(sim_run_until(s, 1), 1);
	assert_int_equal(used_gpu(s, 1), 4000);
	assert_int_equal(used_gpu(s, 3), 4000);
	assert_int_equal(used_gpu(s, 4), 4000);
	sim_free(s);
	job_set_release(&js);
}

/* The node states of c, but for the address and room of each job list (a list may have
 * grown while the workers were tried: its content is what counts). */
static void node_bytes(const struct cluster *c, unsigned char *out, size_t *len)
{
	size_t k = 0;
	for (size_t n = 0; n < c->n; n++) {
		struct node_state st = c->st[n];
		st.jobs = NULL;
		st.jobcap = 0;
		memcpy(out + k, &st, sizeof st);
		k += sizeof st;
		if (c->st[n].njobs)
			memcpy(out + k, c->st[n].jobs, (size_t)c->st[n].njobs * sizeof(int32_t));
		k += (size_t)c->st[n].njobs * sizeof(int32_t);
	}
	memcpy(out + k, c->tree, 2 * c->tsize * sizeof *c->tree);
	k += 2 * c->tsize * sizeof *c->tree;
	memcpy(out + k, &c->free_gpu_milli, sizeof c->free_gpu_milli);
	*len = k + sizeof c->free_gpu_milli;
}

/* A spread gang of three 1-GPU workers on nodes of 1, 1 and 2 GPUs where n0 is taken: the
 * free GPUs would do, two workers are placed, the third finds no node of its own, and the
 * cluster is back byte for byte. */
static void test_rollback_byte_identical(void **state)
{
	(void)state;
	struct job_set js;
	struct sim_opts o;
	struct sim *s;
	memset(&js, 0, sizeof js);
	add_node(&js, "T4", 1);
	add_node(&js, "T4", 1);
	add_node(&js, "T4", 2);
	add_job(&js, 0, 100, 1, 1, JOB_TRAIN);
	add_job(&js, 10, 100, 1, 3, JOB_TRAIN);
	add_job(&js, 20, 5, 1, 1, JOB_TRAIN); /* backfills after the failed gang */
	sim_opts_init(&o);
	o.gang_spread = 1;
	o.queue = SIM_BACKFILL;
	assert_int_equal(sim_new(&js, &ff_ops, NULL, &o, &s, NULL), 0);
	assert_int_equal(sim_run_until(s, 5), 1);
	static unsigned char before[1 << 16], after[1 << 16];
	size_t nb, na;
	node_bytes(sim_cluster(s), before, &nb);
	nscored = 0;
	assert_int_equal(sim_run_until(s, 10), 1); /* the gang arrives, is tried, waits */
	assert_true(nscored >= 3);                 /* two workers were placed, then none */
	assert_int_equal(res(s, 1).state, SIM_JOB_QUEUED);
	node_bytes(sim_cluster(s), after, &na);
	assert_int_equal(na, nb);
	assert_memory_equal(before, after, nb);
	sim_run(s);
	assert_int_equal(res(s, 2).start, 20);
	assert_int_equal(res(s, 1).start, 100);
	assert_int_equal(res(s, 1).end, 200);
	sim_free(s);
	job_set_release(&js);
}

/* Priority with preemption: a batch gang on both nodes; an inference job that needs one
 * node's GPUs evicts the gang, and both of its workers leave. */
static void test_preempting_a_worker_preempts_the_gang(void **state)
{
	(void)state;
	struct job_set js;
	struct sim_opts o;
	struct sim *s;
	memset(&js, 0, sizeof js);
	add_node(&js, "T4", 2);
	add_node(&js, "T4", 2);
	add_job(&js, 0, 100, 2, 2, JOB_BATCH);
	add_job(&js, 10, 50, 2, 1, JOB_INFER);
	sim_opts_init(&o);
	o.queue = SIM_PRIORITY;
	o.preempt = 1;
	assert_int_equal(sim_new(&js, &ff_ops, NULL, &o, &s, NULL), 0);
	assert_int_equal(sim_run_until(s, 10), 1);
	assert_int_equal(res(s, 1).state, SIM_JOB_RUNNING);
	assert_int_equal(res(s, 0).state, SIM_JOB_QUEUED);
	assert_int_equal(res(s, 0).npreempt, 1);
	assert_int_equal(used_gpu(s, 0), 2000); /* the inference job, nothing of the gang */
	assert_int_equal(used_gpu(s, 1), 0);
	assert_int_equal(sim_counters(s)->preemptions, 1);
	assert_float_equal(res(s, 0).lost_gpu_s, 4 * 10, 1e-9);
	sim_run(s);
	assert_int_equal(res(s, 0).start, 60); /* restarts from scratch when room is back */
	assert_int_equal(res(s, 0).end, 160);
	sim_free(s);
	job_set_release(&js);
}

/* ---- EASY backfill against a brute-force schedule ---- */

/* One node of G whole GPUs; n jobs (GPUs, arrival, duration). EASY by hand, second by
 * second: finishes, arrivals, then the queue in arrival order; the first job that does not
 * fit is the head, reserved at the first expected end after which it fits (all ends of that
 * second released), with extra = free then - its need; a later job that fits starts if it
 * ends by then, or if it needs no more than extra (which it then takes). start[i] out. */
static void easy_by_hand(int G, int n, const int *g, const int64_t *arr, const int64_t *dur,
			 int64_t *start)
{
	int64_t end[64], horizon = 1;
	for (int i = 0; i < n; i++) {
		start[i] = end[i] = -1;
		horizon += arr[i] + dur[i];
	}
	for (int64_t t = 0; t <= horizon; t++) {
		int free = G;
		for (int i = 0; i < n; i++)
			if (start[i] >= 0 && end[i] > t)
				free -= g[i];
		int head = -1, extra = 0;
		int64_t t_res = -1;
		for (int i = 0; i < n; i++) {
			if (start[i] >= 0 || arr[i] > t)
				continue;
			if (head < 0) {
				if (g[i] <= free) {
					start[i] = t;
					end[i] = t + dur[i];
					free -= g[i];
					continue;
				}
				head = i;
				/* the reservation: release running jobs in order of their end */
				int f = free;
				for (int64_t u = t + 1; f < g[i]; u++)
					for (int k = 0; k < n; k++)
						if (start[k] >= 0 && end[k] == u) {
							f += g[k];
							t_res = u;
						}
				extra = f - g[i];
				continue;
			}
			if (g[i] > free)
				continue;
			if (t + dur[i] <= t_res) {
				start[i] = t;
			} else if (g[i] <= extra) {
				start[i] = t;
				extra -= g[i];
			} else {
				continue;
			}
			end[i] = t + dur[i];
			free -= g[i];
		}
	}
}

static void test_easy_matches_brute_force(void **state)
{
	(void)state;
	struct rng r;
	rng_seed(&r, 7);
	int differ_from_backfill = 0;
	for (int rep = 0; rep < 300; rep++) {
		struct job_set js;
		int n = 3 + (int)rng_below(&r, 10), G = 8, g[64];
		int64_t arr[64], dur[64], want[64], t = 0;
		memset(&js, 0, sizeof js);
		add_node(&js, "T4", G);
		for (int i = 0; i < n; i++) {
			t += (int64_t)rng_below(&r, 6);
			arr[i] = t;
			g[i] = 1 + (int)rng_below(&r, (uint64_t)G);
			dur[i] = 1 + (int64_t)rng_below(&r, 30);
			add_job(&js, arr[i], dur[i], g[i], 1, JOB_TRAIN);
		}
		easy_by_hand(G, n, g, arr, dur, want);
		struct sim_opts o;
		struct sim *s;
		sim_opts_init(&o);
		o.queue = SIM_EASY;
		o.contention = 0;
		assert_int_equal(sim_new(&js, &ff_ops, NULL, &o, &s, NULL), 0);
		sim_run(s);
		for (int i = 0; i < n; i++)
			if (res(s, (size_t)i).start != want[i])
				fail_msg("case %d job %d: started at %lld, by hand %lld", rep, i,
					 (long long)res(s, (size_t)i).start, (long long)want[i]);
		sim_free(s);
		o.queue = SIM_BACKFILL; /* the cases do tell EASY from plain backfill */
		assert_int_equal(sim_new(&js, &ff_ops, NULL, &o, &s, NULL), 0);
		sim_run(s);
		for (int i = 0; i < n; i++)
			differ_from_backfill += res(s, (size_t)i).start != want[i];
		sim_free(s);
		job_set_release(&js);
	}
	assert_true(differ_from_backfill > 0);
}

/* The over-estimate moves the reservation: a head of 8 GPUs behind a job of 4 GPUs ending
 * at 100; a 4-GPU job of 60 s arriving at 50 ends after 100 and waits, unless the running
 * job is expected to take twice its time (reservation at 200). */
static void test_easy_overestimate(void **state)
{
	(void)state;
	struct job_set js;
	memset(&js, 0, sizeof js);
	add_node(&js, "T4", 8);
	add_job(&js, 0, 100, 4, 1, JOB_TRAIN);
	add_job(&js, 10, 10, 8, 1, JOB_TRAIN);
	add_job(&js, 50, 60, 4, 1, JOB_TRAIN);
	struct sim_opts o;
	struct sim *s;
	sim_opts_init(&o);
	o.queue = SIM_EASY;
	assert_int_equal(sim_new(&js, &ff_ops, NULL, &o, &s, NULL), 0);
	sim_run(s);
	assert_int_equal(res(s, 1).start, 100);
	assert_int_equal(res(s, 2).start, 110);
	sim_free(s);
	o.runtime_over = 2;
	assert_int_equal(sim_new(&js, &ff_ops, NULL, &o, &s, NULL), 0);
	sim_run(s);
	assert_int_equal(res(s, 2).start, 50);
	assert_int_equal(res(s, 1).start, 110); /* delayed: the estimate was wrong */
	sim_free(s);
	job_set_release(&js);
}

/* Three 4-GPU nodes and three 2-GPU jobs to 100 (first fit: two on n0, one on n1): a gang
 * of two 3-GPU workers finds 6 GPUs free but no second node with 3, so those 6 idle in the gang
 * bucket from its arrival at 10 to 100; the rest of the window nothing waits. The whole-node
 * measure: free nodes against the nodes the waiting gang wants. */
static void test_gang_waits_for_nodes(void **state)
{
	(void)state;
	struct job_set js;
	struct sim_opts o;
	struct sim *s;
	memset(&js, 0, sizeof js);
	for (int i = 0; i < 3; i++)
		add_node(&js, "A100", 4);
	for (int i = 0; i < 3; i++)
		add_job(&js, 0, 100, 2, 1, JOB_TRAIN);
	add_job(&js, 10, 100, 3, 2, JOB_TRAIN);
	sim_opts_init(&o);
	o.queue = SIM_BACKFILL;
	o.win_start = 0;
	o.win_end = 200;
	assert_int_equal(sim_new(&js, &ff_ops, NULL, &o, &s, NULL), 0);
	sim_run(s);
	assert_int_equal(res(s, 3).start, 100);
	struct metrics m;
	metrics_compute(s, NULL, &m);
	assert_int_equal(m.bucket_ms[SIM_B_GANG], 6000 * 90);
	assert_int_equal(m.bucket_ms[SIM_B_SHAPE], 0);
	assert_int_equal(m.bucket_ms[SIM_B_UNNEEDED], 6000 * 10 + 6000 * 100);
	assert_int_equal(m.bucket_ms[SIM_B_PRODUCTIVE], 6000 * 100 + 6000 * 100);
	/* whole nodes: first fit packs two of the jobs on n0, so n2 is free to 100 (the gang
	 * still finds no node for its second worker), and beside the gang to 200; the gang
	 * wanted two from 10 to 100 */
	assert_int_equal(sim_counters(s)->now, 200);
	assert_float_equal(m.whole_free_mean, 1, 1e-12);
	assert_float_equal(m.whole_want_mean, 2 * 90.0 / 200, 1e-12);
	sim_free(s);
	job_set_release(&js);
}

/* Random gangs and one-node jobs on a mixed cluster, under every discipline: every job ends
 * finished or unplaceable, the buckets sum exactly to provisioned, EASY's reservation shows
 * in its bucket (and only EASY's), and a fork taken half way ends as the run itself. */
static void test_gang_buckets_sum(void **state)
{
	(void)state;
	struct job_set js;
	struct rng r;
	memset(&js, 0, sizeof js);
	rng_seed(&r, 3);
	for (int i = 0; i < 6; i++)
		add_node(&js, "A100", 8);
	for (int i = 0; i < 4; i++)
		add_node(&js, "T4", 4);
	int64_t t = 0;
	for (int i = 0; i < 400; i++) {
		t += (int64_t)rng_below(&r, 12);
		int gang = rng_below(&r, 5) == 0;
		int w = gang ? 2 + (int)rng_below(&r, 4) : 1;
		int ngpu = gang ? 4 + 4 * (int)rng_below(&r, 2) : 1 + (int)rng_below(&r, 4);
		int64_t dur = 10 + (int64_t)rng_below(&r, 600);
		int cls = (int)rng_below(&r, 3);
		add_job(&js, t, dur, ngpu, w, cls);
	}
	const enum sim_queue qs[] = {SIM_FIFO, SIM_BACKFILL, SIM_PRIORITY, SIM_EASY};
	for (int q = 0; q < 4; q++)
		for (int spread = 0; spread < 2; spread++) {
			struct sim_opts o;
			struct sim *s, *f;
			sim_opts_init(&o);
			o.queue = qs[q];
			o.preempt = qs[q] == SIM_PRIORITY;
			o.gang_spread = spread;
			assert_int_equal(sim_new(&js, &ff_ops, NULL, &o, &s, NULL), 0);
			sim_run_until(s, t / 2);
			assert_int_equal(sim_fork(s, NULL, NULL, &f, NULL), 0);
			sim_run(s);
			sim_run(f);
			struct metrics m;
			metrics_compute(s, NULL, &m);
			int64_t sum = 0;
			for (int b = 0; b < SIM_NBUCKET; b++) {
				assert_true(m.bucket_ms[b] >= 0);
				sum += m.bucket_ms[b];
			}
			assert_int_equal(sum, m.provisioned_ms);
			if (qs[q] == SIM_EASY)
				assert_true(m.bucket_ms[SIM_B_RESERVED] > 0);
			else
				assert_int_equal(m.bucket_ms[SIM_B_RESERVED], 0);
			for (size_t i = 0; i < sim_njobs(s); i++) {
				struct sim_job_result a = res(s, i), b = res(f, i);
				assert_true(a.state == SIM_JOB_FINISHED ||
					    a.state == SIM_JOB_UNPLACEABLE);
				assert_int_equal(a.start, b.start);
				assert_int_equal(a.end, b.end);
			}
			for (size_t n = 0; n < sim_cluster(s)->n; n++)
				assert_int_equal(used_gpu(s, n), 0);
			sim_free(s);
			sim_free(f);
		}
	job_set_release(&js);
}

/* Nodes of 8, 4 GPUs under switch a and 8, 8 under switch b. */
static void two_switches(struct job_set *js)
{
	memset(js, 0, sizeof *js);
	const int gpus[] = {8, 4, 8, 8};
	for (int i = 0; i < 4; i++) {
		add_node(js, "A100", gpus[i]);
		snprintf(js->nodes[i].rack, sizeof js->nodes[i].rack, "%s", i < 2 ? "a" : "b");
	}
}

/* A gang of two 8-GPU workers fits under switch b alone: it goes there, though first fit
 * without switches takes n0 (switch a) and n2, and it is not slowed. */
static void test_gang_kept_under_one_switch(void **state)
{
	(void)state;
	struct job_set js;
	struct sim_opts o;
	struct sim *s;
	two_switches(&js);
	add_job(&js, 0, 100, 8, 2, JOB_TRAIN);
	sim_opts_init(&o);
	o.xswitch = 2;
	for (int spread = 0; spread < 2; spread++) {
		o.gang_spread = spread;
		assert_int_equal(sim_new(&js, &ff_ops, NULL, &o, &s, NULL), 0);
		assert_int_equal(sim_run_until(s, 1), 1);
		assert_int_equal(used_gpu(s, 0), 0);
		assert_int_equal(used_gpu(s, 1), 0);
		assert_int_equal(used_gpu(s, 2), 8000);
		assert_int_equal(used_gpu(s, 3), 8000);
		sim_run(s);
		assert_int_equal(res(s, 0).end, 100); /* under one switch: not slowed */
		sim_free(s);
	}
	/* the same nodes without switches: first fit, n0 and n2 */
	for (int i = 0; i < 4; i++)
		js.nodes[i].rack[0] = '\0';
	assert_int_equal(sim_new(&js, &ff_ops, NULL, &o, &s, NULL), 0);
	assert_int_equal(sim_run_until(s, 1), 1);
	assert_int_equal(used_gpu(s, 0), 8000);
	assert_int_equal(used_gpu(s, 2), 8000);
	sim_run(s);
	assert_int_equal(res(s, 0).end, 100); /* no switches, no slowdown */
	sim_free(s);
	job_set_release(&js);
}

/* A gang of three 8-GPU workers fits under no one switch: it spans a and b and runs F
 * times slower; its extra GPU time, W g D (F - 1), is stalled, and the buckets still sum
 * to provisioned. */
static void test_cross_switch_slowdown(void **state)
{
	(void)state;
	const double fs[] = {1, 1.5, 2, 3.25};
	for (size_t k = 0; k < sizeof fs / sizeof *fs; k++) {
		struct job_set js;
		struct sim_opts o;
		struct sim *s;
		two_switches(&js);
		const int64_t D = 100, W = 3, g = 8000;
		add_job(&js, 0, D, 8, (int)W, JOB_TRAIN);
		sim_opts_init(&o);
		o.xswitch = fs[k];
		o.win_start = 0;
		o.win_end = 1000;
		assert_int_equal(sim_new(&js, &ff_ops, NULL, &o, &s, NULL), 0);
		sim_run(s);
		struct sim_job_result r = res(s, 0);
		assert_int_equal(r.start, 0);
		assert_int_equal(r.end, (int64_t)ceil((double)D * fs[k] - 1e-9));
		struct metrics m;
		metrics_compute(s, NULL, &m);
		double want = (double)(W * g * D) * (fs[k] - 1); /* GPU-milli-s */
		assert_float_equal((double)m.bucket_ms[SIM_B_STALLED], want, 1);
		assert_float_equal((double)m.bucket_ms[SIM_B_PRODUCTIVE], (double)(W * g * D), 1);
		int64_t sum = 0;
		for (int b = 0; b < SIM_NBUCKET; b++)
			sum += m.bucket_ms[b];
		assert_int_equal(sum, m.provisioned_ms);
		sim_free(s);
		job_set_release(&js);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gang_on_the_one_set_that_fits),
		cmocka_unit_test(test_rollback_byte_identical),
		cmocka_unit_test(test_preempting_a_worker_preempts_the_gang),
		cmocka_unit_test(test_easy_matches_brute_force),
		cmocka_unit_test(test_easy_overestimate),
		cmocka_unit_test(test_gang_waits_for_nodes),
		cmocka_unit_test(test_gang_buckets_sum),
		cmocka_unit_test(test_gang_kept_under_one_switch),
		cmocka_unit_test(test_cross_switch_slowdown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
