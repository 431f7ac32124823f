/* test-dash.c — the dashboard's model without a terminal: what each panel shows on a
 * hand-made cluster, the ticker against metrics_compute at the same moment, keyframes and
 * going back equal to a straight run, what-if forks, times and filters. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "dash.h"

struct fx {
	struct scenario sc;
};

static void add_node(struct job_set *js, const char *name, int64_t sto)
{
	struct node n;
	node_init(&n);
	snprintf(n.name, sizeof n.name, "%s", name);
	n.ngpu = 2;
	n.model = (int16_t)gpumodel_find("A100");
	int64_t cap[DIM_N] = {16000, 131072, 2000, 81920, 1000, sto, 1000};
	memcpy(n.cap, cap, sizeof cap);
	job_set_add_node(js, &n);
}

static void add_job(struct job_set *js, int64_t arrival, int64_t dur, int milli, int64_t sto)
{
	struct job j;
	job_init(&j);
	j.id = (int64_t)js->njobs;
	j.arrival = arrival;
	j.duration = dur;
	j.num_gpu = 1;
	j.gpu_milli = milli;
	j.cls = JOB_TRAIN;
	int64_t dem[DIM_N] = {1000, 1024, milli, -1, 0, sto, 0};
	memcpy(j.dem, dem, sizeof dem);
	job_set_add_job(js, &j);
}

/* n0 and n1, two A100 each; n1 has 1000 MB/s of storage. At 0 a whole-GPU job and at 10 a
 * half-GPU job go to n0 (first-fit); at 20 two whole-GPU jobs wanting 800 MB/s of storage
 * each fill n1 and stall at rate 1000 / 1600; at 30 a fifth waits. */
static int setup_small(void **state)
{
	struct fx *f = calloc(1, sizeof *f);
	struct err e;
	scenario_init(&f->sc);
	add_node(&f->sc.base, "n0", 4000);
	add_node(&f->sc.base, "n1", 1000);
	add_job(&f->sc.base, 0, 1000, 1000, 0);
	add_job(&f->sc.base, 10, 1000, 500, 0);
	add_job(&f->sc.base, 20, 1000, 1000, 800);
	add_job(&f->sc.base, 20, 1000, 1000, 800);
	add_job(&f->sc.base, 30, 100, 1000, 0);
	assert_int_equal(enrich_load(NULL, &f->sc.profile, &e), 0);
	sbuf_adds(&f->sc.trace_name, "small");
	f->sc.trace_id = 1;
	*state = f;
	return 0;
}

/* Four nodes and 400 jobs of mixed shapes, arrivals and storage demand, from a fixed LCG:
 * enough events for several keyframes and for contention. */
static int setup_big(void **state)
{
	struct fx *f = calloc(1, sizeof *f);
	struct err e;
	uint64_t x = 12345;
	scenario_init(&f->sc);
	for (int i = 0; i < 4; i++) {
		char nm[8];
		snprintf(nm, sizeof nm, "n%d", i);
		add_node(&f->sc.base, nm, i % 2 ? 1000 : 3000);
	}
	int64_t t = 0;
	for (int i = 0; i < 400; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		t += (int64_t)(x >> 60);
		int milli = (x >> 40) % 3 == 0 ? 500 : 1000;
		add_job(&f->sc.base, t, 20 + (int64_t)((x >> 20) % 200), milli,
			(int64_t)((x >> 10) % 4) * 300);
	}
	assert_int_equal(enrich_load(NULL, &f->sc.profile, &e), 0);
	sbuf_adds(&f->sc.trace_name, "big");
	f->sc.trace_id = 1;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	scenario_release(&f->sc);
	free(f);
	return 0;
}

static struct dash *new_dash(struct fx *f, const char *pol, size_t kf)
{
	struct dash *d;
	struct err e = {0};
	assert_int_equal(dash_new(&f->sc, policy_find(pol), 1, kf, &d, &e), 0);
	return d;
}

static void test_panels(void **state)
{
	struct fx *f = *state;
	struct dash *d = new_dash(f, "first-fit", 0);
	struct dash_node n0, n1;
	struct dash_ticker t;

	dash_goto(d, 25);
	assert_int_equal(dash_time(d), 25);
	dash_node(d, 0, 0, &n0);
	dash_node(d, 0, 1, &n1);
	assert_string_equal(n0.name, "n0");
	assert_int_equal(n0.ngpu, 2);
	assert_int_equal(n0.cell[0], DASH_CELL_FULL);
	assert_int_equal(n0.cell[1], DASH_CELL_PART);
	assert_int_equal(n1.cell[0], DASH_CELL_STALLED);
	assert_int_equal(n1.cell[1], DASH_CELL_STALLED);
	assert_int_equal(n1.cells[DASH_CELL_STALLED], 2);
	assert_int_equal(n1.full, 1);
	assert_int_equal(n0.njobs, 2);
	/* n1's storage is oversubscribed (1600 of 1000): no free share */
	assert_true(n1.free[DIM_STO] == 0);
	assert_true(fabs(n0.free[DIM_GPU] - 0.25) < 1e-12);
	assert_true(fabs(n0.free[DIM_CPU] - 14000.0 / 16000) < 1e-12);

	/* a range of both nodes */
	int32_t both[2] = {0, 1};
	struct dash_node g;
	dash_group(d, 0, both, 2, &g);
	assert_int_equal(g.nnodes, 2);
	assert_int_equal(g.ngpu, 4);
	assert_int_equal(g.cells[DASH_CELL_STALLED], 2);
	assert_int_equal(g.cells[DASH_CELL_FULL], 1);
	assert_int_equal(g.cells[DASH_CELL_PART], 1);
	assert_string_equal(g.name, "n0..n1");

	dash_ticker(d, 0, &t);
	assert_true(fabs(t.gpus - 4) < 1e-12);
	assert_true(fabs(t.gpu_alloc - 3.5) < 1e-12);
	assert_true(fabs(t.gpu_stalled - 2 * (1 - 1000.0 / 1600)) < 1e-9);
	assert_int_equal(t.running, 4);
	assert_int_equal(t.queued, 0);
	/* waits: none of the four placements waited */
	assert_true(t.wait_p95 == 0);

	/* the fifth job waits: the event log has the four placements, newest first */
	dash_goto(d, 30);
	dash_ticker(d, 0, &t);
	assert_int_equal(t.queued, 1);
	assert_true(t.gpu_blocked > 0 && t.gpu_unneeded == 0);
	struct dash_event ev;
	char buf[200];
	size_t nplace = 0;
	for (size_t i = 0; dash_log(d, 0, i, &ev); i++)
		nplace += ev.kind == DASH_EV_PLACE;
	assert_int_equal(nplace, 4);
	assert_int_equal(dash_log(d, 0, 0, &ev), 1);
	dash_event_text(d, 0, &ev, buf, sizeof buf);
	assert_non_null(strstr(buf, "place job 3"));
	assert_non_null(strstr(buf, "on n1"));

	/* filters and orders */
	int32_t ord[2];
	assert_int_equal(dash_order(d, 0, "full", DASH_SORT_NAME, ord), 1);
	assert_int_equal(ord[0], 1);
	assert_int_equal(dash_order(d, 0, "N0", DASH_SORT_NAME, ord), 1);
	assert_int_equal(ord[0], 0);
	assert_int_equal(dash_order(d, 0, "a100", DASH_SORT_NAME, ord), 2);
	assert_int_equal(dash_order(d, 0, "faulted", DASH_SORT_NAME, ord), 0);
	assert_int_equal(dash_order(d, 0, NULL, DASH_SORT_STALLED, ord), 2);
	assert_int_equal(ord[0], 1);
	assert_int_equal(dash_order(d, 0, NULL, DASH_SORT_FREE, ord), 2);
	assert_int_equal(ord[0], 0);
	dash_free(d);
}

/* The ticker's $ equal what metrics_compute says at the same moment: its $/yr over the whole
 * window are the $ so far annualised over that window. */
static void test_ticker_vs_metrics(void **state)
{
	struct fx *f = *state;
	struct dash *d = new_dash(f, "best-fit", 0);
	int64_t at[] = {600, 1500, 100000};
	for (size_t i = 0; i < sizeof at / sizeof at[0]; i++) {
		struct dash_ticker t;
		struct metrics m;
		dash_goto(d, at[i]);
		dash_ticker(d, 0, &t);
		metrics_compute(dash_sim(d, 0), &f->sc.prices, &m);
		double tot = 0;
		for (int b = 0; b < SIM_NBUCKET; b++) {
			double so_far = m.usd_year[b] * m.window_hours / 8760;
			assert_true(fabs(t.usd[b] - so_far) <= 1e-9 * (1 + fabs(so_far)));
			tot += t.usd[b];
		}
		assert_true(fabs(tot - m.usd_year_provisioned * m.window_hours / 8760) <=
			    1e-9 * (1 + tot));
		assert_true(fabs(t.usd_productive + t.usd_wasted - tot) <= 1e-9 * (1 + tot));
		struct sim_sample smp;
		sim_sample_now(dash_sim(d, 0), &smp);
		assert_true(fabs(t.frag - smp.frag) < 1e-12);
		assert_true(fabs(t.gpu_alloc - smp.alloc_share * t.gpus) < 1e-9);
		assert_int_equal(t.queued, smp.queued);
		assert_int_equal(t.running, smp.running);
		/* wait p95 from the histogram: within its 10 % bins of the exact one */
		double w = m.all.wait_p95;
		assert_true(fabs(t.wait_p95 - w) <= 0.1 * w + 1);
		assert_true(t.frag_peak >= t.frag);
	}
	struct dash_ticker t;
	dash_ticker(d, 0, &t);
	assert_true(t.over);
	assert_true(fabs(t.window_share - 1) < 1e-12);
	dash_free(d);
}

/* The state a lane is in: every counter, node and job, as a straight run has it. */
static void assert_same_state(const struct sim *a, const struct sim *b)
{
	struct sim_snapshot x, y;
	sim_snapshot(a, &x);
	sim_snapshot(b, &y);
	assert_int_equal(x.now, y.now);
	assert_int_equal(x.nnodes, y.nnodes);
	assert_memory_equal(x.free, y.free, x.nnodes * sizeof *x.free);
	assert_memory_equal(x.cap, y.cap, x.nnodes * sizeof *x.cap);
	assert_memory_equal(x.frag, y.frag, x.nnodes * sizeof *x.frag);
	assert_int_equal(x.nqueued, y.nqueued);
	assert_memory_equal(x.queue, y.queue, x.nqueued * sizeof *x.queue);
	assert_int_equal(x.nrunning, y.nrunning);
	assert_memory_equal(x.running, y.running, x.nrunning * sizeof *x.running);
	assert_memory_equal(&x.counters, &y.counters, sizeof x.counters);
	assert_int_equal(sim_njobs(a), sim_njobs(b));
	for (size_t i = 0; i < sim_njobs(a); i++) {
		struct sim_job_result p, q;
		sim_job_result(a, i, &p);
		sim_job_result(b, i, &q);
		assert_memory_equal(&p, &q, sizeof p);
	}
	sim_snapshot_release(&x);
	sim_snapshot_release(&y);
}

/* A straight run of pol to every event at or before t. */
static struct sim *straight(struct fx *f, const struct replay_trace *tr, const char *pol, int64_t t)
{
	struct sim *s;
	struct err e;
	assert_int_equal(replay_new(tr, &f->sc, policy_find(pol), &s, &e), 0);
	while (sim_step_until(s, t))
		;
	return s;
}

static void test_scrub(void **state)
{
	struct fx *f = *state;
	/* a budget of a few keyframes: they thin out as the run goes */
	struct dash *d = new_dash(f, "fgd", 4 * 48 * 400 + 4 * 4 * 700 + 4 * 4096);
	int64_t t0 = dash_t0(d), span = dash_tend(d) - t0;
	dash_goto(d, t0 + span * 9 / 10);
	size_t bytes, nkf = dash_keyframes(d, 0, &bytes);
	assert_true(nkf >= 2 && nkf <= 5);
	struct dash_ticker before, after;
	dash_ticker(d, 0, &before);
	double sp1[DASH_SPARK_N], sp2[DASH_SPARK_N];
	dash_spark(d, 0, sp1);
	int64_t back[] = {t0 + span / 3, t0 + span / 2, t0, t0 + span * 9 / 10};
	for (size_t i = 0; i < sizeof back / sizeof back[0]; i++) {
		dash_goto(d, back[i]);
		/* never past the view: a moved completion's stale event is not a step */
		assert_true(sim_counters(dash_sim(d, 0))->now <= back[i]);
		struct sim *s = straight(f, dash_trace(d, 0), "fgd", back[i]);
		assert_same_state(dash_sim(d, 0), s);
		sim_free(s);
	}
	/* back where it was: the same figures and sparkline */
	dash_ticker(d, 0, &after);
	before.events_per_s = after.events_per_s = 0;
	assert_memory_equal(&before, &after, sizeof before);
	dash_spark(d, 0, sp2);
	assert_memory_equal(sp1, sp2, sizeof sp1);
	/* stepping one event, then going back to where it was */
	int64_t at = dash_time(d);
	struct sim *c;
	struct err e;
	assert_int_equal(sim_fork(dash_sim(d, 0), NULL, NULL, &c, &e), 0);
	int64_t steps = sim_counters(c)->events;
	assert_int_equal(dash_step(d), 1);
	assert_int_equal(sim_counters(dash_sim(d, 0))->events, steps + 1);
	assert_true(dash_time(d) >= at);
	dash_goto(d, at - 1);
	dash_goto(d, at);
	assert_same_state(dash_sim(d, 0), c);
	sim_free(c);
	dash_free(d);
}

static void test_advance(void **state)
{
	struct fx *f = *state;
	struct dash *d = new_dash(f, "first-fit", 0);
	int64_t t0 = dash_time(d);
	/* at most 3 events per frame: the view stops at the third */
	int64_t n = dash_advance(d, 1e9, 3);
	assert_int_equal(n, 3);
	assert_int_equal(dash_time(d), sim_counters(dash_sim(d, 0))->now);
	/* second by second to the end: the lanes never pass the view, though contention
	 * moves completions (their old events stay queued, stale) */
	struct err e;
	assert_int_equal(dash_fork(d, policy_find("best-fit"), NULL, &e), 0);
	while (!dash_over(d)) {
		dash_advance(d, 7, 0);
		assert_true(sim_counters(dash_sim(d, 0))->now <= dash_time(d));
		assert_true(sim_counters(dash_sim(d, 1))->now <= dash_time(d));
	}
	/* over: a long step leaves the view at the window's end, not a year past it */
	dash_advance(d, 1e12, 0);
	int64_t end = dash_tend(d);
	for (int l = 0; l < dash_nlanes(d); l++)
		if (sim_counters(dash_sim(d, l))->now > end)
			end = sim_counters(dash_sim(d, l))->now;
	assert_true(dash_time(d) <= end);
	dash_drop(d);
	/* half seconds add up */
	dash_goto(d, t0);
	dash_advance(d, 0.5, 0);
	assert_int_equal(dash_time(d), t0);
	dash_advance(d, 0.5, 0);
	assert_int_equal(dash_time(d), t0 + 1);
	dash_free(d);
}

static void test_fork(void **state)
{
	struct fx *f = *state;
	struct dash *d = new_dash(f, "first-fit", 0);
	struct err e = {0};
	int64_t mid = dash_t0(d) + (dash_tend(d) - dash_t0(d)) / 2;
	dash_goto(d, mid);
	assert_int_equal(dash_fork(d, policy_find("best-fit"), NULL, &e), 0);
	assert_int_equal(dash_nlanes(d), 2);
	assert_string_equal(dash_change(d, 1), "policy best-fit");
	int64_t ft = dash_fork_time(d, 1);
	assert_true(ft <= mid);
	/* both lanes move in lockstep; the what-if is a straight run forked at mid */
	int64_t later = mid + (dash_tend(d) - mid) / 2;
	dash_goto(d, later);
	struct sim *s = straight(f, dash_trace(d, 0), "first-fit", mid), *w;
	assert_int_equal(sim_fork(s, policy_find("best-fit"), NULL, &w, &e), 0);
	while (sim_step_until(w, later))
		;
	assert_same_state(dash_sim(d, 1), w);
	/* back before the fork: the what-if waits at its start, the main lane goes back */
	dash_goto(d, dash_t0(d));
	assert_true(sim_counters(dash_sim(d, 1))->now == ft);
	dash_goto(d, later);
	assert_same_state(dash_sim(d, 1), w);
	sim_free(w);
	sim_free(s);

	/* a fault on n1: it shows on n1, and n1's storage capacity is halved */
	struct fault fl = {.dim = DIM_STO, .fraction = 0.5, .start = later, .duration = 3600};
	snprintf(fl.target, sizeof fl.target, "n1");
	dash_drop(d);
	assert_int_equal(dash_fork(d, NULL, &fl, &e), 0);
	assert_non_null(strstr(dash_change(d, 1), "fault n1:sto=0.5"));
	struct dash_node n1, n0;
	dash_node(d, 1, 1, &n1);
	dash_node(d, 1, 0, &n0);
	assert_int_equal(n1.faults, 1);
	assert_int_equal(n0.faults, 0);
	assert_int_equal(sim_cluster(dash_sim(d, 1))->st[1].cap[DIM_STO], 500);
	assert_int_equal(sim_cluster(dash_sim(d, 0))->st[1].cap[DIM_STO], 1000);
	int32_t ord[4];
	assert_int_equal(dash_order(d, 1, "faulted", DASH_SORT_NAME, ord), 1);
	assert_int_equal(ord[0], 1);
	/* the log has the fault's beginning, and keeps it as both lanes play on */
	struct dash_event ev;
	assert_int_equal(dash_log(d, 1, 0, &ev), 1);
	assert_int_equal(ev.kind, DASH_EV_FAULT);
	dash_advance(d, 50, 3);
	dash_advance(d, 50, 0);
	size_t nlog = 0, nfault = 0;
	for (; dash_log(d, 1, nlog, &ev); nlog++)
		nfault += ev.kind == DASH_EV_FAULT;
	assert_true(nfault == 1 && nlog > 1);
	struct scenario lsc;
	struct fault *fs;
	dash_lane_scenario(d, 1, &lsc, &fs);
	assert_int_equal(lsc.nfaults, 1);
	assert_string_equal(lsc.faults[0].target, "n1");
	free(fs);
	/* a fault on no node is refused, and the what-if there was stays */
	snprintf(fl.target, sizeof fl.target, "nope");
	assert_int_equal(dash_fork(d, NULL, &fl, &e), VF_EINPUT);
	assert_non_null(strstr(e.msg, "'nope'"));
	assert_int_equal(dash_nlanes(d), 2);

	/* io-pressure: a fresh trace, replayed from the start to the view */
	dash_drop(d);
	assert_int_equal(dash_fork_io(d, 2, &e), 0);
	assert_string_equal(dash_change(d, 1), "io-pressure 2");
	assert_true(dash_trace(d, 1) != dash_trace(d, 0));
	assert_int_equal(dash_trace(d, 1)->js.jobs[5].dem[DIM_STO],
			 2 * dash_trace(d, 0)->js.jobs[5].dem[DIM_STO]);
	assert_true(sim_counters(dash_sim(d, 1))->now <= dash_time(d));
	assert_int_equal(dash_fork_io(d, -1, &e), VF_EINPUT);

	/* the queue discipline, the dims and the RAGP weights: a fork that says what it
	 * changed, and whose scenario records it (a what-if stored from it is one) */
	struct sim_change ch;
	sim_change_init(&ch);
	ch.queue = SIM_BACKFILL;
	ch.param[POLICY_P_LAMBDA] = 2;
	ch.dims = DIMS_HARD;
	dash_drop(d);
	assert_int_equal(dash_fork_with(d, NULL, NULL, &ch, &e), 0);
	assert_string_equal(dash_change(d, 1), "dims cpu,mem,gpu,hbm, lambda 2, queue backfill");
	assert_int_equal(sim_options(dash_sim(d, 1))->queue, SIM_BACKFILL);
	assert_int_equal(sim_options(dash_sim(d, 0))->queue, SIM_FIFO);
	dash_lane_scenario(d, 1, &lsc, &fs);
	assert_int_equal(lsc.queue, SIM_BACKFILL);
	assert_true(lsc.param[POLICY_P_LAMBDA] == 2 &&
		    lsc.param[POLICY_P_MU] == f->sc.param[POLICY_P_MU] && lsc.dims == DIMS_HARD);
	free(fs);
	dash_lane_scenario(d, 0, &lsc, &fs);
	assert_int_equal(lsc.queue, SIM_FIFO);
	assert_true(lsc.param[POLICY_P_LAMBDA] == f->sc.param[POLICY_P_LAMBDA] &&
		    lsc.dims == f->sc.dims);
	free(fs);
	/* any policy parameter by its option's name, within the option's range */
	struct dash_cmd_arg ca;
	dash_drop(d);
	assert_int_equal(dash_command(d, "fgd-pack-tol 0", &ca, &e), DASH_CMD_ERROR);
	assert_string_equal(e.msg, "fgd-pack-tol '0': not a value for it");
	assert_int_equal(dash_command(d, "fgd-pack-reserve 0", &ca, &e), DASH_CMD_FORKED);
	assert_string_equal(dash_change(d, 1), "fgd-pack-reserve 0");
	assert_true(sim_options(dash_sim(d, 1))->param[POLICY_P_FGD_PACK_RESERVE] == 0);
	assert_true(sim_options(dash_sim(d, 1))->param[POLICY_P_LAMBDA] == POLICY_LAMBDA);
	dash_lane_scenario(d, 1, &lsc, &fs);
	assert_true(lsc.param[POLICY_P_FGD_PACK_RESERVE] == 0);
	free(fs);
	dash_advance(d, 50, 0);
	assert_true(sim_counters(dash_sim(d, 1))->now <= dash_time(d));

	/* --compare: another policy from the start, the same as its straight run */
	dash_drop(d);
	assert_int_equal(dash_compare(d, policy_find("fgd"), &e), 0);
	s = straight(f, dash_trace(d, 0), "fgd", dash_time(d));
	assert_same_state(dash_sim(d, 1), s);
	sim_free(s);

	/* the result of a lane: the main one run to the end is the straight run's */
	struct replay_result r, q;
	dash_result(d, 0, &r);
	assert_int_equal(replay_run(dash_trace(d, 0), &f->sc, policy_find("first-fit"), 0, NULL,
				    NULL, NULL, &q, &e),
			 0);
	assert_int_equal(r.events, q.events);
	assert_true(r.m.usd_year_placement == q.m.usd_year_placement);
	assert_memory_equal(&r.m.buckets, &q.m.buckets, sizeof r.m.buckets);
	replay_result_release(&r);
	replay_result_release(&q);
	dash_drop(d);
	assert_int_equal(dash_nlanes(d), 1);
	dash_free(d);
}

/* Four lanes: the main one and three what-ifs, each a straight run of its own; a fifth is
 * refused; dropping one in the middle moves the next down, which goes on as before (its
 * events still reach its log). */
static void test_lanes(void **state)
{
	struct fx *f = *state;
	struct dash *d = new_dash(f, "first-fit", 0);
	struct err e = {0};
	int64_t t0 = dash_t0(d), span = dash_tend(d) - t0, mid = t0 + span / 3;
	static const char *const pol[] = {"best-fit", "fgd", "ragp7"};
	dash_goto(d, mid);
	for (int i = 0; i < 3; i++)
		assert_int_equal(dash_fork(d, policy_find(pol[i]), NULL, &e), 0);
	assert_int_equal(dash_nlanes(d), 4);
	assert_int_equal(dash_fork(d, policy_find("fgd"), NULL, &e), VF_EINPUT);
	assert_non_null(strstr(e.msg, "3 what-ifs already"));
	assert_int_equal(dash_compare(d, policy_find("fgd"), &e), VF_EINPUT);
	assert_int_equal(dash_nlanes(d), 4);
	int64_t later = mid + span / 3;
	while (dash_time(d) < later)
		dash_advance(d, (double)(later - dash_time(d)), 7);
	for (int i = 0; i < 3; i++) {
		struct sim *s = straight(f, dash_trace(d, 0), "first-fit", mid), *w;
		assert_int_equal(sim_fork(s, policy_find(pol[i]), NULL, &w, &e), 0);
		while (sim_step_until(w, later))
			;
		assert_same_state(dash_sim(d, 1 + i), w);
		sim_free(w);
		sim_free(s);
	}
	assert_int_equal(dash_stored(d, 2), 0);
	dash_set_stored(d, 3);
	dash_drop_lane(d, 2);
	assert_int_equal(dash_nlanes(d), 3);
	assert_string_equal(dash_change(d, 2), "policy ragp7");
	assert_int_equal(dash_stored(d, 2), 1);
	struct dash_event ev;
	dash_goto(d, later + span / 10);
	assert_int_equal(dash_log(d, 2, 0, &ev), 1);
	assert_true(ev.t > later);
	dash_free(d);
}

/* A node's detail: its jobs by class add up, the fragmentation shares add up to the whole,
 * GPUs by index, and figures carry units. */
static void test_detail(void **state)
{
	struct fx *f = *state;
	struct dash *d = new_dash(f, "first-fit", 0);
	dash_goto(d, dash_t0(d) + (dash_tend(d) - dash_t0(d)) / 3);
	const struct cluster *c = sim_cluster(dash_sim(d, 0));
	double share = 0;
	int jobs = 0;
	for (size_t n = 0; n < c->n; n++) {
		struct dash_detail dd;
		dash_detail(d, 0, n, &dd);
		int sum = 0;
		for (int k = 0; k < JOB_NCLASS; k++)
			sum += dd.jobs_by_class[k];
		assert_int_equal(sum, dd.njobs);
		assert_int_equal(dd.njobs, c->st[n].njobs);
		for (int g = 0; g < dd.ngpu; g++)
			assert_true(dd.gpu_used[g] == (1000 - c->st[n].gpu_free[g]) / 1000.0);
		share += dd.frag_share;
		jobs += dd.njobs;
		for (int i = 0; i < dd.njobs; i++) {
			struct sim_job_result r;
			dash_detail_job(d, 0, n, i, &r);
			assert_int_equal(r.node, (int32_t)n);
		}
	}
	assert_true(jobs > 0);
	assert_true(share == 0 || fabs(share - 1) < 1e-9);
	/* the cost of a replay of the window: some, then none left at the end, the lane
	 * unmoved */
	int64_t ev = sim_counters(dash_sim(d, 0))->events;
	assert_true(dash_cost(d, 0, 1) > 0);
	assert_int_equal(sim_counters(dash_sim(d, 0))->events, ev);
	dash_goto(d, INT64_MAX / 4);
	assert_true(dash_cost(d, 0, 1) < 0);
	char b[32];
	dash_dim_text(DIM_CPU, 128000, b, sizeof b);
	assert_string_equal(b, "128 cores");
	dash_dim_text(DIM_MEM, 1536, b, sizeof b);
	assert_string_equal(b, "1.5 GiB");
	dash_dim_text(DIM_NET, 12500, b, sizeof b);
	assert_string_equal(b, "12500 MB/s");
	dash_dim_text(DIM_GPU, 6500, b, sizeof b);
	assert_string_equal(b, "6.5 GPU");
	dash_free(d);
}

/* The RAID story: the three nodes whose storage is the most used lose it, as one what-if
 * with three faults; each shows its own fault (sim_fault, not the first one three times),
 * the log names each, and the names filter the panel to them. */
static void test_story(void **state)
{
	struct fx *f = *state;
	struct dash *d = new_dash(f, "first-fit", 0);
	struct err e = {0};
	char names[256];
	dash_goto(d, dash_t0(d) + (dash_tend(d) - dash_t0(d)) / 3);
	int32_t top[3];
	assert_int_equal(dash_busiest(d, 0, DIM_STO, 3, top), 3);
	const struct cluster *c = sim_cluster(dash_sim(d, 0));
	for (int i = 0; i + 1 < 3; i++) /* the busiest first */
		assert_true((double)c->st[top[i]].used[DIM_STO] /
				    (double)c->st[top[i]].cap[DIM_STO] >=
			    (double)c->st[top[i + 1]].used[DIM_STO] /
				    (double)c->st[top[i + 1]].cap[DIM_STO]);
	assert_int_equal(dash_story_raid(d, names, sizeof names, &e), 0);
	assert_int_equal(dash_nlanes(d), 2);
	assert_non_null(strstr(dash_change(d, 1), "RAID rebuild on "));
	int32_t ord[8];
	assert_int_equal(dash_order(d, 1, "faulted", DASH_SORT_NAME, ord), 3);
	assert_int_equal(dash_order(d, 1, names, DASH_SORT_NAME, ord), 3);
	assert_int_equal(dash_order(d, 0, "faulted", DASH_SORT_NAME, ord), 0);
	for (int i = 0; i < 3; i++) {
		struct dash_node dn;
		dash_node(d, 1, (size_t)top[i], &dn);
		assert_int_equal(dn.faults, 1);
		assert_int_equal(sim_cluster(dash_sim(d, 1))->st[top[i]].cap[DIM_STO],
				 (int64_t)(c->spec[top[i]].cap[DIM_STO] * DASH_RAID_FRACTION));
	}
	struct dash_event ev;
	char buf[256];
	int seen = 0;
	for (size_t i = 0; dash_log(d, 1, i, &ev); i++) {
		if (ev.kind != DASH_EV_FAULT)
			continue;
		dash_event_text(d, 1, &ev, buf, sizeof buf);
		for (int k = 0; k < 3; k++) {
			char want[64];
			snprintf(want, sizeof want, "begins %s:sto=0.2", c->spec[top[k]].name);
			seen |= strstr(buf, want) ? 1 << k : 0;
		}
	}
	assert_int_equal(seen, 7);
	dash_free(d);
}

/* A gang's start is one entry of the log naming its workers and their nodes (it was one
 * placement, the first worker's); a run whose nodes fail has the failed and down buckets
 * the metrics panel shows rows for. */
static void test_gang(void **state)
{
	struct fx *f = *state;
	struct job_set *js = &f->sc.base;
	/* the last job: a gang of three workers of two GPUs, a node each */
	add_job(js, js->jobs[js->njobs - 1].arrival + 1, 5000, 1000, 0);
	struct job *j = &js->jobs[js->njobs - 1];
	j->num_gpu = 2;
	j->dem[DIM_GPU] = 2000;
	j->workers = 3;
	for (int i = 0; i < 4; i++) {
		char nm[8];
		snprintf(nm, sizeof nm, "g%d", i);
		add_node(js, nm, 4000);
	}
	struct dash *d = new_dash(f, "first-fit", 0);
	struct dash_event ev;
	char buf[256];
	int found = 0;
	while (!found && dash_step(d))
		for (size_t i = 0; !found && dash_log(d, 0, i, &ev); i++)
			found = ev.kind == DASH_EV_PLACE && ev.workers == 3;
	assert_true(found);
	assert_true(ev.wnode[0] != ev.wnode[1] && ev.wnode[1] != ev.wnode[2] &&
		    ev.wnode[0] != ev.wnode[2]);
	dash_event_text(d, 0, &ev, buf, sizeof buf);
	assert_non_null(strstr(buf, "place gang job"));
	assert_non_null(strstr(buf, "3 workers x 2 GPU"));
	for (int w = 0; w < 3; w++) {
		char want[16];
		snprintf(want, sizeof want, " %s", dash_node_name(d, (size_t)ev.wnode[w]));
		assert_non_null(strstr(buf, want));
	}
	dash_free(d);

	/* nodes failing every hour or so, down for 10 min: failed and down $ */
	f->sc.node_mtbf = 3600;
	f->sc.node_repair = 600;
	d = new_dash(f, "first-fit", 0);
	struct dash_ticker t;
	dash_goto(d, INT64_MAX / 4);
	dash_ticker(d, 0, &t);
	assert_true(t.usd[SIM_B_DOWN] > 0);
	assert_true(t.usd[SIM_B_FAILED] > 0);
	dash_free(d);
}

/* The ':' interpreter and the panel's rows, without a screen. */
static void test_command(void **state)
{
	struct fx *f = *state;
	struct dash *d = new_dash(f, "first-fit", 0);
	struct dash_cmd_arg a;
	struct err e = {0};
	assert_int_equal(dash_command(d, "", &a, &e), DASH_CMD_NONE);
	assert_int_equal(dash_command(d, "policy nope", &a, &e), DASH_CMD_ERROR);
	assert_non_null(strstr(e.msg, "policy 'nope': no such policy"));
	assert_int_equal(dash_command(d, "goto 50%", &a, &e), DASH_CMD_GOTO);
	int64_t t;
	assert_int_equal(dash_parse_time(d, "50%", &t), 0);
	assert_int_equal(a.t, t);
	assert_int_equal(dash_command(d, "io x", &a, &e), DASH_CMD_ERROR);
	assert_int_equal(dash_command(d, "io 2", &a, &e), DASH_CMD_IO);
	assert_true(a.x == 2);
	assert_int_equal(dash_command(d, "compare fgd", &a, &e), DASH_CMD_COMPARE);
	assert_ptr_equal(a.ops, policy_find("fgd"));
	assert_int_equal(dash_nlanes(d), 1);
	assert_int_equal(dash_command(d, "dims cpu,gpu", &a, &e), DASH_CMD_FORKED);
	assert_int_equal(dash_command(d, "fault n1 sto=0.5 1h", &a, &e), DASH_CMD_FORKED);
	assert_int_equal(dash_nlanes(d), 3);
	assert_non_null(strstr(dash_change(d, 2), "fault n1:sto=0.5@"));
	assert_int_equal(dash_command(d, "fault n1 sto=0.5", &a, &e), DASH_CMD_ERROR);
	/* a node down: the what-if kills its jobs and they queue again */
	dash_goto(d, 300);
	int32_t on_n0 = sim_cluster(dash_sim(d, 0))->st[0].njobs;
	assert_true(on_n0 > 0);
	assert_int_equal(dash_command(d, "fault n0 down 1h", &a, &e), DASH_CMD_FORKED);
	assert_int_equal(dash_nlanes(d), 4);
	assert_non_null(strstr(dash_change(d, 3), "fault n0:down@"));
	assert_int_equal(sim_counters(dash_sim(d, 3))->node_failures, 1);
	assert_int_equal(sim_counters(dash_sim(d, 3))->killed, on_n0);
	assert_int_equal(sim_cluster(dash_sim(d, 3))->st[0].njobs, 0);
	assert_int_equal(sim_counters(dash_sim(d, 0))->node_failures, 0);
	/* a node that goes down later, while the lane is watched: its log says the jobs were
	 * killed (by -1, no job they made room for) */
	struct fault dn = {.down = 1, .start = 400, .duration = 600};
	snprintf(dn.target, sizeof dn.target, "n2");
	dash_drop_lane(d, 1); /* room for one more what-if */
	assert_int_equal(dash_fork(d, NULL, &dn, &e), 0);
	dash_goto(d, 500);
	int l = dash_nlanes(d) - 1, kills = 0;
	struct dash_event ev;
	char text[256];
	for (size_t i = 0; dash_log(d, l, i, &ev); i++)
		if (ev.kind == DASH_EV_PREEMPT && ev.by < 0) {
			dash_event_text(d, l, &ev, text, sizeof text);
			assert_non_null(strstr(text, "(node down)"));
			kills++;
		}
	assert_true(kills > 0);
	assert_int_equal(kills, sim_counters(dash_sim(d, l))->killed);
	assert_int_equal(dash_command(d, "queue nope", &a, &e), DASH_CMD_ERROR);
	assert_int_equal(dash_command(d, "drop", &a, &e), DASH_CMD_DROP);
	assert_int_equal(dash_command(d, "q", &a, &e), DASH_CMD_QUIT);
	assert_int_equal(dash_command(d, "frob", &a, &e), DASH_CMD_ERROR);
	assert_non_null(strstr(e.msg, "'frob': not a command"));
	/* rows: 4 nodes of one model in 2 rows, then a node a row */
	struct dash_rows r = {0};
	char name[64];
	dash_rows(d, "", DASH_SORT_NAME, 0, 2, &r);
	assert_int_equal(r.nrows, 2);
	assert_int_equal(dash_row_name(d, &r, 0, name, sizeof name), gpumodel_find("A100"));
	assert_string_equal(name, "n0..n1");
	dash_rows(d, "n1,n3", DASH_SORT_NAME, 1, 10, &r);
	assert_int_equal(r.nrows, 2);
	dash_row_name(d, &r, 1, name, sizeof name);
	assert_string_equal(name, "n3");
	dash_rows_release(&r);
	dash_free(d);
}

/* A progress hook that stops the move the n-th time it is asked. */
struct stopper {
	int calls, stop_at;
	double last_done;
};

static int stop_hook(void *u, double done, double elapsed)
{
	struct stopper *st = u;
	(void)elapsed;
	assert_true(done >= 0 && done <= 1);
	st->last_done = done;
	return ++st->calls >= st->stop_at;
}

static void test_cancel(void **state)
{
	struct fx *f = *state;
	struct dash *d = new_dash(f, "first-fit", 0);
	struct err e = {0};
	int64_t t0 = dash_t0(d), span = dash_tend(d) - t0;
	dash_goto(d, t0 + span / 4);
	assert_int_equal(dash_fork(d, policy_find("best-fit"), NULL, &e), 0);
	struct sim *c0, *c1;
	assert_int_equal(sim_fork(dash_sim(d, 0), NULL, NULL, &c0, &e), 0);
	assert_int_equal(sim_fork(dash_sim(d, 1), NULL, NULL, &c1, &e), 0);
	struct dash_ticker before, after;
	dash_ticker(d, 1, &before);
	int64_t view = dash_time(d);
	/* cancelled: every lane and the view as they were */
	struct stopper st = {0, 1, -1};
	dash_set_progress(d, stop_hook, &st);
	assert_int_equal(dash_goto(d, t0 + span * 9 / 10), DASH_CANCELLED);
	assert_int_equal(st.calls, 1);
	assert_int_equal(dash_time(d), view);
	assert_same_state(dash_sim(d, 0), c0);
	assert_same_state(dash_sim(d, 1), c1);
	dash_ticker(d, 1, &after);
	before.events_per_s = after.events_per_s = 0;
	assert_memory_equal(&before, &after, sizeof before);
	/* not cancelled: asked at once (a share done short of all), and the move ends where asked
	 */
	st = (struct stopper){0, 1 << 30, -1};
	assert_int_equal(dash_goto(d, t0 + span * 9 / 10), 0);
	assert_true(st.calls >= 1 && st.last_done < 1);
	assert_int_equal(dash_time(d), t0 + span * 9 / 10);
	/* an io-pressure what-if cancelled on its way: no what-if */
	dash_drop(d);
	st = (struct stopper){0, 1, -1};
	assert_int_equal(dash_fork_io(d, 2, &e), DASH_CANCELLED);
	assert_int_equal(dash_nlanes(d), 1);
	sim_free(c0);
	sim_free(c1);
	dash_free(d);
}

static void test_parse_time(void **state)
{
	struct fx *f = *state;
	struct dash *d = new_dash(f, "first-fit", 0);
	int64_t t;
	assert_int_equal(dash_parse_time(d, "3d12h", &t), 0);
	assert_int_equal(t, 3 * 86400 + 12 * 3600);
	assert_int_equal(dash_parse_time(d, "90m", &t), 0);
	assert_int_equal(t, 5400);
	assert_int_equal(dash_parse_time(d, "3600", &t), 0);
	assert_int_equal(t, 3600);
	assert_int_equal(dash_parse_time(d, "1h30s", &t), 0);
	assert_int_equal(t, 3630);
	int64_t w0 = sim_counters(dash_sim(d, 0))->w0, w1 = sim_counters(dash_sim(d, 0))->w1;
	assert_int_equal(dash_parse_time(d, "50%", &t), 0);
	assert_int_equal(t, w0 + (w1 - w0) / 2);
	assert_int_equal(dash_parse_time(d, "3x", &t), -1);
	assert_int_equal(dash_parse_time(d, "", &t), -1);
	assert_int_equal(dash_parse_time(d, "101%", &t), -1);
	assert_int_equal(dash_parse_time(d, "-5", &t), -1);
	char buf[32];
	dash_time_text(d, 3 * 86400 + 4 * 3600 + 5 * 60 + 6, buf, sizeof buf);
	assert_string_equal(buf, "3d04:05:06");
	dash_free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_panels, setup_small, teardown),
		cmocka_unit_test_setup_teardown(test_ticker_vs_metrics, setup_big, teardown),
		cmocka_unit_test_setup_teardown(test_scrub, setup_big, teardown),
		cmocka_unit_test_setup_teardown(test_advance, setup_big, teardown),
		cmocka_unit_test_setup_teardown(test_fork, setup_big, teardown),
		cmocka_unit_test_setup_teardown(test_cancel, setup_big, teardown),
		cmocka_unit_test_setup_teardown(test_lanes, setup_big, teardown),
		cmocka_unit_test_setup_teardown(test_detail, setup_big, teardown),
		cmocka_unit_test_setup_teardown(test_story, setup_big, teardown),
		cmocka_unit_test_setup_teardown(test_command, setup_big, teardown),
		cmocka_unit_test_setup_teardown(test_parse_time, setup_small, teardown),
		cmocka_unit_test_setup_teardown(test_gang, setup_big, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
