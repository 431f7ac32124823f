/*
 * sim.c — the discrete-event replay engine (sim.h): its event loop and life cycle.
 *
 * A job instance's life; the function behind each transition in brackets, with its file
 * when it is not this one:
 *
 *   PENDING --arrive [on_arrive]--> QUEUED --fits [sim_start_job]--> RUNNING
 *                                    ^  |   (a pass: sim_schedule,      |  ^ rate < 1: stalled,
 *                                    |  |    sim-queue.c)               |  | rate = 1 again
 *                                    |  | never fits                    |  | [sim_set_rate, from
 *                                    |  v [sim_never_fits]              |  |  sim_node_refresh,
 *                                    | UNPLACEABLE                      |--+  sim-node.c]
 *                                    |                                  |
 *                                    +-- preempted [preempt_for, -------+
 *                                        sim-queue.c; sim_stop_job]     | work done [on_finish]
 *                                                                       v
 *                                                                    FINISHED
 *   A trace job that never ran (JOB_F_NOTRAN) goes PENDING -> SKIPPED in timed mode.
 *   Inflation: QUEUED is skipped: a drawn job either starts or fails (UNPLACEABLE, no room),
 *   and never finishes.
 *
 * Time and events: the clock is an integer second. Events are (time, prio, seq): finishes
 * first (they free room), then fault ends, fault starts, arrivals, samples. The queue of
 * waiting jobs is tried once the last event of a second is handled (schedule), so all
 * departures and arrivals of a second are seen together. Timed arrivals are not queued: the
 * next one is read from the job set (in arrival order) and comes before the queue's top when
 * (time, prio) says so; in inflation only the next draw is queued. So the queue stays as
 * small as the running set.
 *
 * Contention: on a node whose summed demand on a shared dim exceeds its capacity, every job
 * with a demand there runs at r = min over such dims of C / sum(d) (= a/d with a = d C/sum).
 * Work left is kept in seconds (double) with the time it was last brought up to date; when
 * a rate changes the work is brought up to date and the completion moves to
 * now + ceil(work / r) (1e-9 s slack for rounding) through a new event: the job's version
 * stamp goes up, so the old event is recognised as stale and dropped. Rates change only at
 * events on that node (sim_node_refresh), never by a sweep of the cluster.
 *
 * Placement search: a policy with pick() chooses itself. Otherwise every feasible node (from
 * cluster_next_fit, which skips nodes without enough free cpu, mem or GPU, or of a GPU model
 * the job does not allow, in O(log n)) and
 * each of its choices (cluster_choices) is scored; the lowest score wins, ties to the lowest
 * node, then its first choice. For a POLICY_F_BY_STATE policy only the lowest-indexed node
 * of each class of identical nodes is scored, and per job shape the classes' scores are
 * kept in an index, so a placement scores only the classes that changed (sim-class.h); the
 * choice is the same as the full loop's (tests check it against the full loop). A policy
 * with a bound() (fgd, ragp) has classes entered in its index by their cheap lower bound and
 * scored only when one comes to the top, so classes that cannot beat the best are never
 * scored; another policy's bound() (clustering's) skips in the full loop a node whose bound
 * is not below the best so far, since a later node wins no tie. The sim keeps per node F_n, the
 * multi-dim measure over all dims, the share of the target workload that no longer fits, the share
 * whose F_n(m) is all free GPU, and which shapes fit (policy_ctx node_frag, node_md, node_nofit,
 * node_fnofit, node_fits): the bounds' cheap per-node data, and the policy's own record of each
 * node (policy_ops.prep: ragp's), refreshed with them. A policy's own state (policy_ops.state:
 * fgd-pack's own target workload, which its context's F_n and all-free share are then over while
 * the run's metrics stay over the scenario's; clustering's GPU jobs per type on each node) is told
 * of every node change there too, made with the run, cloned or made anew by a fork. With
 * o.sample_nodes, a search scores only the first nodes where the job fits on a seeded random
 * walk over the nodes (find_sampled), node by node, in bound order when there is a bound.
 *
 * The waiting queue: a full pass (after room was freed) walks it in order, but a job whose
 * fit shape already failed in the pass is not searched again, and under fifo the pass stops
 * at the blocked head. Without freed room only the newly arrived jobs are tried
 * (schedule_fresh), with preemption too; a preemption there resumes a full pass.
 *
 * Decisions:
 *   - fifo: the queue head must start before anything behind it; backfill: every waiting
 *     job is tried in arrival order and starts if it fits (no reservation for the head);
 *     priority: tried by class (infer, train, batch, cpu), then arrival, backfilling.
 *   - preemption (priority only, optional): a waiting job that fits nowhere evicts, on the
 *     lowest-indexed node where evicting all lower-class jobs would let it fit, the lower
 *     classes lowest class first, latest start first, until it fits. The evicted jobs go
 *     back to the queue and restart from scratch: their GPU time so far is lost (counted in
 *     lost_ms, and in the stalled bucket). A pass that evicts is followed by another in the
 *     same second until one evicts nothing (maybe_schedule).
 *   - a job is unplaceable when it fits no node of the cluster even empty (checked once,
 *     the first time it cannot start); it leaves the queue, so it never blocks fifo.
 *   - trace jobs that never ran (JOB_F_NOTRAN or duration < 0) are skipped in timed mode
 *     (counted), but are part of the inflation pool: the FGD paper samples from all pods,
 *     and they are demand the cluster had to face.
 *   - faults lower a shared dim's capacity only (fault.h); the capacity is
 *     floor(spec x lowest active fraction).
 *   - node failures (timed only): a down fault or a drawn failure (o.node_mtbf, sim-node.c)
 *     takes a node's whole capacity away; every job on it is killed (sim_kill: the one
 *     place a kill gives back what a job holds, all of a gang's workers once gangs are
 *     placed), keeps the work of its last checkpoint (floor(work done / o.ckpt_every) x
 *     o.ckpt_every; none without checkpoints) and queues again. Its progress since then is
 *     lost (k.fail_ms, bucket failed, as window_lost counts a preemption's), the GPUs of
 *     down nodes idle in the bucket down. A run after a kill starts with a slot (its work
 *     is not its duration). A checkpoint's pause o.ckpt_cost is a rate, f = every / (every
 *     + cost), on every run from its start (a slot each): of the stall g (1 - r) of a job
 *     at rate r, g r (1 / f - 1) is the checkpoints' (bucket checkpoint), the rest stalled.
 *   - the time series is sampled every (last arrival - first arrival) / series_points
 *     seconds in timed mode, and at each whole percent of arrived load in inflation.
 *
 * Ending: a timed run ends when every job has finished, is unplaceable or skipped; or when
 * nothing can change any more (stuck): no arrival is left, no fault starts or ends, and no
 * running job has a completion to come. A job never goes where its node's spec lacks a
 * shared dim it uses (cluster_choices), but a fault to 0 that outlasts the run leaves it at
 * rate 0, and a rate tiny enough puts its end past the horizon t_max (t0 + INT64_MAX / 4 /
 * the cluster's GPU-milli: far past any trace, near enough that no time wraps and no GPU-ms
 * integral leaves an int64); such a job has no completion queued (SJ_NOEND, push_finish).
 * A stuck run moves the clock to the window's end (nothing changes until then) and carries
 * what runs or waits over (end_stuck, counted in k.stuck); it no longer samples on for ever.
 * The window ends at t_max at the latest. Inflation draws until its target (inflate_check
 * refuses a trace whose jobs ask for no GPU, or that would need more than SIM_MAX_DRAWS).
 *
 * Memory: O(jobs + nodes + faults) for a run, bounded whatever it simulates: one sjob (32
 * bytes) and, once slowed or preempted, a run slot and a preemption record per instance
 * (inflation: at most SIM_MAX_DRAWS instances, 40 bytes each with their draw); the event
 * queue holds at most 2 x (running + 2 + 2 x faults) + 1024 events (stale completions are
 * purged past that, sim_step); the waiting queue and the fit shapes at most one entry per
 * instance; the time series 2 x series_points samples per doubling of the cadence, so at
 * most 2 x series_points x 62 however long the run (test_series_bounded_in_a_long_run).
 *
 * Invariants: every RUNNING instance is in its node's job list and holds its placement; the
 * cluster's hard dims are never overcommitted (cluster.c asserts); counters' integrals run
 * over [t0, now]; node_frag[n] is frag_node() of node n's current state.
 *
 * Layout: struct sim is the event loop's scalars and one part per concern (sim-int.h,
 * which has the rule for owned memory). This file keeps the loop (sim_step: an event, its
 * handler, then a schedule once the instant is over), the instances (struct sim_insts:
 * start, stop, rates, preemptions), the time integrals, sim_new, sim_free and the fork,
 * which copies the scalars and then each part through its clone. The other parts:
 * sim-queue.c the waiting queue and its passes, sim-place.c the policy and the placement
 * search, sim-k8s.c the kube-scheduler scoring, sim-node.c the per-node measures and the
 * faults, sim-idle.c why free GPUs idle and the buckets, sim-class.c the classes of
 * identical nodes. A policy's own state is the policy's (policy_ops.state).
 */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim-int.h"

/* The horizon (struct sim's t_max): t0 + SIM_SPAN_MAX / the cluster's GPU-milli, at most
 * SIM_T_MAX. Far past any trace's end, and near enough that a time plus an interval never
 * wraps and no GPU-milli-second integral (the cluster's GPU-milli x the span at most) leaves
 * an int64. */
#define SIM_T_MAX    (INT64_MAX / 4)
#define SIM_SPAN_MAX (INT64_MAX / 4)
/* Inflation draws at most this many jobs (40 bytes each: 1.3 GB): sim_new refuses a target
 * that would take more on average, and a run stops drawing there. A 100,000-node cluster of
 * 8-GPU nodes at 1.3 takes about 1.5 M draws of jobs of 0.7 GPU on average. */
#define SIM_MAX_DRAWS ((size_t)1 << 25)

void sim_opts_init(struct sim_opts *o)
{
	memset(o, 0, sizeof *o);
	o->mode = SIM_TIMED;
	o->queue = SIM_FIFO;
	o->seed = 1;
	o->target = 1.3;
	policy_param_init(o->param);
	o->contention = 1;
	o->series_points = 200;
	o->win_start = o->win_end = -1;
	o->io_admission = -1;
	o->runtime_over = 1;
	o->xswitch = 1;
}

static const char *const queue_names[] = {"fifo", "backfill", "priority", "easy"};

int sim_queue_parse(const char *s, enum sim_queue *q)
{
	for (int i = 0; i < 4; i++)
		if (!strcmp(s, queue_names[i])) {
			*q = (enum sim_queue)i;
			return 0;
		}
	return -1;
}

const char *sim_queue_name(enum sim_queue q)
{
	return (unsigned)q < 4 ? queue_names[q] : "?";
}

const char *sim_mode_name(enum sim_mode m)
{
	return m == SIM_INFLATE ? "inflate" : "timed";
}

const char *sim_job_state_name(enum sim_job_state st)
{
	static const char *const n[] = {"pending",  "queued",      "running",
					"finished", "unplaceable", "skipped"};
	return (unsigned)st < 6 ? n[st] : "?";
}

const char *sim_why_name(enum sim_why w)
{
	static const char *const n[] = {"", "gpu model", "too big", "no room", "gang"};
	return (unsigned)w < 5 ? n[w] : "?";
}

/* ---- small helpers ---- */

static void job_assert_enriched(const struct job *j)
{
	for (int d = 0; d < DIM_N; d++)
		assert((j->dem[d] >= 0 || d == DIM_HBM) &&
		       "enrichment fills every demand before a replay");
	(void)j;
}

/* ---- time integrals ---- */

/* The window's integrals over [a, b), a part of the window in which nothing changes. */
static void advance_window(struct sim *s, int64_t a, int64_t b)
{
	int64_t dt = b - a;
	if (s->idle.stale)
		sim_classify_idle(s);
	for (int i = 0; i < s->node.nmodels; i++) {
		int m = s->node.models[i];
		for (int c = 0; c < JOB_NCLASS; c++) {
			s->k.win_alloc_ms[m][c] += s->k.alloc_cls[m][c] * dt;
			s->k.win_stall_ms[m][c] += s->inst.stall_cls[m][c] * (double)dt;
			s->k.win_ckpt_ms[m][c] += s->inst.ckpt_cls[m][c] * (double)dt;
		}
		s->k.win_down_ms[m] += s->fault.down_now[m] * dt;
		int64_t idle = (s->k.gpu_cap[m] - s->node.alloc_now[m] - s->fault.down_now[m]) * dt;
		int cause = s->idle.cause;
		if (cause != SIM_B_UNNEEDED && s->idle.mask && !((s->idle.mask >> m) & 1))
			cause = SIM_B_MODEL;
		int cls = cause == SIM_B_UNNEEDED ? SIM_CLS_NONE : s->idle.cls;
		s->k.win_idle_ms[m][cls][cause - SIM_B_IDLE0] += idle;
	}
}

static void advance(struct sim *s, int64_t t)
{
	if (t <= s->k.now)
		return;
	int64_t dt = t - s->k.now;
	if (s->o.mode == SIM_TIMED) {
		int64_t a = s->k.now > s->k.w0 ? s->k.now : s->k.w0;
		int64_t b = t < s->k.w1 ? t : s->k.w1;
		if (a < b)
			advance_window(s, a, b);
		if (s->k.now <= s->k.w1 && t > s->k.w1 && s->k.carry_jobs < 0)
			sim_carry_over(s);
	}
	for (int i = 0; i < s->node.nmodels; i++) {
		int m = s->node.models[i];
		s->k.alloc_ms[m] += s->node.alloc_now[m] * dt;
		s->k.down_ms[m] += s->fault.down_now[m] * dt;
		s->k.frag_ms[m] += s->node.sum_frag[m] * (double)dt;
	}
	s->k.frag_md_s += s->node.sum_md * (double)dt;
	s->k.whole_free_s += (double)s->node.nwfree * (double)dt;
	s->k.whole_want_s += (double)s->wq.want * (double)dt;
	s->k.stall_ms += s->inst.stall_now * (double)dt;
	for (int d = 0; d < DIM_N; d++)
		s->k.stranded_s[d] += (double)s->node.sum_str[d] * (double)dt;
	s->k.now = t;
}

/* ---- instances: progress and rates (struct sim_insts) ---- */

/* Queue running instance sj's completion in x seconds (whole, as a double: it may be
 * infinite), unless that is past the horizon: then it never finishes in this run (SJ_NOEND),
 * like a job at rate 0. A completion queued before must be stale already (ver bumped). */
static void push_finish(struct sim *s, struct sjob *sj, int32_t idx, double x)
{
	int noend = !(x <= (double)(s->t_max - s->k.now));
	if (noend != !!(sj->flags & SJ_NOEND)) {
		sj->flags ^= SJ_NOEND;
		s->inst.nnoend += noend ? 1 : -1;
	}
	if (noend)
		return;
	struct evq_event ev = {.time = s->k.now + (int64_t)(x > 0 ? x : 0),
			       .prio = EV_FINISH,
			       .kind = EV_FINISH,
			       .ver = sj->ver,
			       .arg = idx,
			       .aux = sj->node};
	evq_push(&s->q, &ev);
}

/* Running instance sj takes a slot of runs, with progress cur. */
static void take_slot(struct sim *s, struct sjob *sj, struct srun cur)
{
	int32_t k;
	if (s->inst.nrfree) {
		k = s->inst.rfree[--s->inst.nrfree];
	} else {
		xgrow(&s->inst.runs, &s->inst.runcap, s->inst.nruns + 1, sizeof *s->inst.runs);
		k = (int32_t)s->inst.nruns++;
	}
	s->inst.runs[k] = cur;
	sj->run = k;
	sj->flags |= SJ_SLOWED;
}

/* The rate checkpoints leave a job: ckpt_every seconds of work in every ckpt_every +
 * ckpt_cost seconds (1 without checkpoints or when they cost nothing). */
static double ckpt_rate(const struct sim *s)
{
	double c = s->o.ckpt_every, p = s->o.ckpt_cost;
	return s->o.mode == SIM_TIMED && c > 0 && p > 0 ? c / (c + p) : 1;
}

/* The rate of a gang across switches (SJ_XSWITCH): 1 / o.xswitch of what it would be. */
static double xswitch_rate(const struct sim *s, const struct sjob *sj)
{
	return sj->flags & SJ_XSWITCH ? 1 / s->o.xswitch : 1;
}

/* Of the stall g (1 - r) of a job at rate r = r_c x f (r_c: contention's, x: xswitch_rate,
 * f: ckpt_rate), the checkpoints' pauses are g r_c x (1 - f) = g r (1 / f - 1): the factor
 * of g r here; the rest, contention's and the switches', is stalled. */
static double ckpt_share(const struct sim *s)
{
	return 1 / ckpt_rate(s) - 1;
}

/* Running instance sj (idx) runs at rate r (times the checkpoints' rate) from now: its work
 * is brought up to date, its completion moves (its version goes up), the stall sums follow.
 */
void sim_set_rate(struct sim *s, struct sjob *sj, int32_t idx, double r)
{
	struct srun cur = run_now(s, sj);
	r *= ckpt_rate(s) * xswitch_rate(s, sj);
	if (r == cur.rate)
		return;
	if (!(sj->flags & SJ_SLOWED)) /* its first change: it gets a slot */
		take_slot(s, sj, cur);
	struct srun *ru = &s->inst.runs[sj->run];
	const struct job *j = src_job(s, sj);
	double g = (double)inst_gpu(j);
	ru->work = work_now(s, sj);
	ru->t_upd = s->k.now;
	s->inst.stall_now += g * (ru->rate - r);
	int m = node_model(s, (size_t)sj->node);
	if (m >= 0) {
		s->inst.stall_cls[m][cls_of(j)] += g * (ru->rate - r);
		s->inst.ckpt_cls[m][cls_of(j)] += g * (r - ru->rate) * ckpt_share(s);
	}
	ru->rate = r;
	sj->ver++;
	push_finish(s, sj, idx, r > 0 ? ceil(ru->work / r - 1e-9) : INFINITY);
}

/* ---- observers ---- */

void sim_sample_now(const struct sim *s, struct sim_sample *smp)
{
	memset(smp, 0, sizeof *smp);
	double gcap = (double)s->c.total[DIM_GPU];
	smp->t = s->k.now;
	if (s->o.mode == SIM_INFLATE && gcap > 0)
		smp->load = (double)s->k.requested_gpu / gcap;
	double alloc = 0, frag = 0;
	for (int m = 0; m < GPUMODEL_MAX; m++) {
		alloc += (double)s->node.alloc_now[m];
		frag += s->node.sum_frag[m];
	}
	if (gcap > 0) {
		smp->alloc_share = alloc / gcap;
		smp->frag = frag / gcap;
		smp->stall_share = s->inst.stall_now / gcap;
	}
	smp->frag_md = s->c.n ? s->node.sum_md / (double)s->c.n : 0;
	for (int d = 0; d < DIM_N; d++)
		smp->stranded[d] =
			s->c.total[d] > 0 ? (double)s->node.sum_str[d] / (double)s->c.total[d] : 0;
	smp->queued = s->wq.queued;
	smp->running = s->inst.running;
	smp->finished = s->k.finished;
	smp->failed = s->k.failed;
	smp->whole_free = s->node.nwfree;
	smp->whole_want = s->wq.want;
}

static void emit_sample(struct sim *s)
{
	struct sim_sample smp;
	if (!s->nobs)
		return;
	sim_sample_now(s, &smp);
	NOTIFY(s, on_sample, &smp);
}

/* ---- instances: start, stop, never fits (placement: sim-place.c, sim-k8s.c) ---- */

/* Room in the per-instance array *pp (cap long, elements of sz bytes) for instance idx:
 * it grows to the instances so far, zero-filled. */
static void inst_room(struct sim *s, void *pp, size_t *cap, int32_t idx, size_t sz)
{
	if ((size_t)idx < *cap)
		return;
	size_t old = *cap;
	xgrow(pp, cap, s->inst.njobs > (size_t)idx ? s->inst.njobs : (size_t)idx + 1, sz);
	char *base;
	memcpy(&base, pp, sizeof base);
	memset(base + old * sz, 0, (*cap - old) * sz);
}

/* Instance idx starts now at its W placements p (on the cluster already): one instance,
 * one completion, its workers' GPUs allocated together. */
static void start_run(struct sim *s, int32_t idx, const struct placement *p, int W)
{
	struct sjob *sj = &s->inst.jobs[idx];
	const struct job *j = src_job(s, sj);
	sj->state = SIM_JOB_RUNNING;
	sj->node = p[0].node;
	sj->start = s->k.now;
	sj->run = -1; /* until its rate changes (sim_set_rate) */
	sj->gpus = p[0].gpus;
	sj->flags &= (uint8_t) ~(SJ_SLOWED | SJ_NOEND | SJ_XSWITCH);
	sj->ver++;
	if (W > 1 && s->o.xswitch > 1 && s->o.mode == SIM_TIMED && sim_gang_spans(s, p, W))
		sj->flags |= SJ_XSWITCH;
	for (int w = 0; w < W; w++) {
		int m = node_model(s, (size_t)p[w].node);
		if (m >= 0) {
			s->node.alloc_now[m] += p[w].dem[DIM_GPU];
			s->k.alloc_cls[m][cls_of(j)] += p[w].dem[DIM_GPU];
		}
		if (s->fault.on && s->fault.on[p[w].node])
			sim_fault_hits(s, p[w].node, j);
	}
	s->inst.running++;
	s->k.placed++;
	if (s->o.mode == SIM_TIMED) {
		/* a run after a failure starts at its last checkpoint, and checkpoints that
		 * pause, or switches a gang spans, slow every run from its start: a slot says
		 * so (the checkpoints' share of the stall g x (1 - f): sim_set_rate) */
		double saved = saved_of(s, idx), f = ckpt_rate(s), x = xswitch_rate(s, sj);
		double r = f * x, work = (double)(j->duration > 0 ? j->duration : 0) - saved;
		if (saved > 0 || r < 1) {
			int64_t g = 0;
			for (int w = 0; w < W; w++)
				g += p[w].dem[DIM_GPU];
			double st = (double)g * (1 - r);
			int m = node_model(s, (size_t)p[0].node); /* a gang's: one model */
			take_slot(s, sj, (struct srun){.t_upd = s->k.now, .work = work, .rate = r});
			s->inst.stall_now += st;
			if (m >= 0) {
				s->inst.stall_cls[m][cls_of(j)] += st;
				s->inst.ckpt_cls[m][cls_of(j)] += (double)g * x * (1 - f);
			}
		}
		push_finish(s, sj, idx, r < 1 ? ceil(work / r - 1e-9) : work);
	}
	if (s->o.queue == SIM_EASY && s->o.mode == SIM_TIMED)
		sim_easy_track(s, idx, 1);
	for (int w = 0; w < W; w++) /* (a gang's rates now: its trial left them) */
		sim_node_refresh(s, (size_t)p[w].node);
	NOTIFY(s, on_place, s->k.now, idx, &p[0]);
}

void sim_start_job(struct sim *s, int32_t idx, const struct placement *p)
{
	cluster_place(&s->c, p, idx);
	start_run(s, idx, p, 1);
}

void sim_start_gang(struct sim *s, int32_t idx, const struct placement *p)
{
	int W = job_workers(src_job(s, &s->inst.jobs[idx]));
	inst_room(s, &s->inst.gw, &s->inst.gwcap, idx, sizeof *s->inst.gw);
	assert(!s->inst.gw[idx]);
	s->inst.gw[idx] = sim_copy_of(p, (size_t)W, (size_t)W, sizeof *p);
	start_run(s, idx, p, W);
}

int sim_try_place(struct sim *s, int32_t idx, struct placement *pl)
{
	const struct job *j = src_job(s, &s->inst.jobs[idx]);
	return job_is_gang(j) ? sim_place_gang(s, idx, pl) : sim_find_place(s, j, pl);
}

void sim_start_placed(struct sim *s, int32_t idx, const struct placement *pl)
{
	if (job_is_gang(src_job(s, &s->inst.jobs[idx])))
		sim_start_gang(s, idx, pl);
	else
		sim_start_job(s, idx, pl);
}

int sim_job_never_fits(struct sim *s, int32_t idx)
{
	struct sjob *sj = &s->inst.jobs[idx];
	return job_is_gang(src_job(s, sj)) ? sim_gang_never_fits(s, sj) : sim_never_fits(s, sj);
}

/* Take sj off its node, every worker of a gang off theirs (finish, preemption; a kill
 * would be the same): returns the GPU-milli it held. */
int64_t sim_stop_job(struct sim *s, int32_t idx)
{
	struct sjob *sj = &s->inst.jobs[idx];
	struct placement p;
	const struct placement *pw = &p;
	int W = 1;
	if (s->inst.gw && (size_t)idx < s->inst.gwcap && s->inst.gw[idx]) {
		pw = s->inst.gw[idx];
		W = job_workers(src_job(s, sj));
	} else {
		job_placement(s, sj, &p);
	}
	int m = node_model(s, (size_t)pw[0].node), c = cls_of(src_job(s, sj));
	int64_t g = 0;
	for (int w = 0; w < W; w++)
		g += pw[w].dem[DIM_GPU];
	if (sj->flags & SJ_SLOWED) { /* (at rate 1 it stalls nothing: stall_now - 0) */
		double r = s->inst.runs[sj->run].rate, st = (double)g * (1 - r);
		s->inst.stall_now -= st;
		if (m >= 0) {
			s->inst.stall_cls[m][c] -= st;
			s->inst.ckpt_cls[m][c] -= (double)g * r * ckpt_share(s);
		}
		xgrow(&s->inst.rfree, &s->inst.rfreecap, s->inst.nrfree + 1, sizeof *s->inst.rfree);
		s->inst.rfree[s->inst.nrfree++] = sj->run; /* the slot is free */
	}
	if (sj->flags & SJ_NOEND) {
		sj->flags &= (uint8_t)~SJ_NOEND;
		s->inst.nnoend--;
	}
	if (s->o.queue == SIM_EASY && s->o.mode == SIM_TIMED)
		sim_easy_track(s, idx, 0);
	sj->ver++;
	s->inst.running--;
	for (int w = 0; w < W; w++) {
		int mw = node_model(s, (size_t)pw[w].node);
		cluster_remove(&s->c, &pw[w], idx);
		if (mw >= 0) {
			s->node.alloc_now[mw] -= pw[w].dem[DIM_GPU];
			s->k.alloc_cls[mw][c] -= pw[w].dem[DIM_GPU];
		}
	}
	for (int w = 0; w < W; w++)
		sim_node_refresh(s, (size_t)pw[w].node);
	if (pw != &p) {
		free(s->inst.gw[idx]);
		s->inst.gw[idx] = NULL;
	}
	s->dirty = 1;
	s->freed = 1;
	(void)m;
	return g;
}

/* Can j never run on this cluster, even empty? Sets sj's why. */
int sim_never_fits(struct sim *s, struct sjob *sj)
{
	const struct job *j = src_job(s, sj);
	struct placement p;
	sj->flags |= SJ_CHECKED;
	for (size_t k = 0; k < s->node.empty.n; k++)
		if (admits(s->pol.admit, &s->node.empty.st[k], j) &&
		    cluster_first_choice(&s->node.empty, k, j, &p))
			return 0;
	sj->why = SIM_WHY_TOO_BIG;
	sj->why_dim = -1;
	if (j->num_gpu > 0) {
		int model_ok = 0;
		for (size_t k = 0; k < s->node.empty.n && !model_ok; k++) {
			const struct node *sp = &s->node.empty.spec[k];
			model_ok = sp->ngpu >= j->num_gpu &&
				   (!j->gpu_spec ||
				    (sp->model >= 0 && (j->gpu_spec >> sp->model) & 1));
		}
		if (!model_ok) {
			sj->why = SIM_WHY_MODEL;
			return 1;
		}
	}
	/* The first dim no allowed node has enough of: a hard dim, or a shared dim j uses that
	 * every allowed node lacks (cluster_choices). */
	for (int d = 0; d < DIM_N && sj->why_dim < 0; d++) {
		int ok = 0;
		for (size_t k = 0; k < s->node.empty.n && !ok; k++) {
			const struct node *sp = &s->node.empty.spec[k];
			if (j->num_gpu > 0 && (sp->ngpu < j->num_gpu || sp->model < 0 ||
					       (j->gpu_spec && !((j->gpu_spec >> sp->model) & 1))))
				continue;
			int64_t need = d == DIM_GPU ? job_gpu(j)
				       : d == DIM_HBM
					       ? (int64_t)j->num_gpu *
							 cluster_job_hbm(&s->node.empty, k, j)
					       : (j->dem[d] > 0 ? j->dem[d] : 0);
			ok = DIMS_HARD & DIM_BIT(d) ? need <= sp->cap[d] : !need || sp->cap[d] > 0;
		}
		if (!ok)
			sj->why_dim = (int8_t)d;
	}
	return 1;
}

void sim_mark_unplaceable(struct sim *s, int32_t idx)
{
	s->inst.jobs[idx].state = SIM_JOB_UNPLACEABLE;
	s->k.unplaceable++;
	NOTIFY(s, on_unplaceable, s->k.now, idx);
}

/* Instance idx's record of preemptions and kills (s->inst.pre grows zero-filled). */
static struct spre *pre_of(struct sim *s, int32_t idx)
{
	inst_room(s, &s->inst.pre, &s->inst.precap, idx, sizeof *s->inst.pre);
	return &s->inst.pre[idx];
}

/* Count a preemption of instance idx that lost lost GPU-milli-s. */
void sim_add_preempt(struct sim *s, int32_t idx, int64_t lost)
{
	struct spre *pr = pre_of(s, idx);
	pr->lost_ms += lost;
	pr->n++;
}

/* Kill running instance idx: its node went down. Every placement it holds is given back
 * (one today; a gang's W workers, all of them, once gangs are placed: this is the one place
 * a kill releases them), the work it did since its last checkpoint (a multiple of
 * o.ckpt_every of its work; without checkpoints all of it) is lost, and it queues again in
 * its arrival order with the rest of its work. The stall it met stays stalled, as a
 * preemption's does; the lost progress counts in k.fail_ms and the window's failed bucket. */
void sim_kill(struct sim *s, int32_t idx)
{
	struct sjob *sj = &s->inst.jobs[idx];
	const struct job *j = src_job(s, sj);
	int m = node_model(s, (size_t)sj->node), c = cls_of(j);
	double dur = (double)(j->duration > 0 ? j->duration : 0);
	double before = saved_of(s, idx), done = dur - work_now(s, sj);
	double keep = s->o.ckpt_every > 0 ? floor(done / s->o.ckpt_every) * s->o.ckpt_every : 0;
	keep = keep < before ? before : keep;
	int64_t g = sim_stop_job(s, idx);
	int64_t lost = llround((double)g * (done - keep));
	struct spre *pr = pre_of(s, idx);
	pr->nkill++;
	pr->fail_ms += lost;
	pr->saved = keep;
	if (m >= 0) {
		s->k.fail_ms[m] += lost;
		sim_window_lost(s, s->k.win_fail_ms, m, c, g, sj->start, done - keep);
	}
	s->k.killed++;
	NOTIFY(s, on_preempt, s->k.now, idx, -1);
	sim_wait_add(s, idx);
}

/* ---- events ---- */

/* Inflation: queue the next draw. Timed arrivals are not queued: they are read in order
 * from the job set (peek_event), which saves a push and a pop per job. */
static void push_arrival(struct sim *s)
{
	if (s->o.mode != SIM_INFLATE)
		return;
	double cap = (double)s->c.total[DIM_GPU];
	if ((double)s->k.requested_gpu >= s->o.target * cap || !s->js->njobs ||
	    s->inst.njobs >= SIM_MAX_DRAWS)
		return;
	struct evq_event ev = {
		.time = (int64_t)s->inst.njobs + 1, .prio = EV_ARRIVE, .kind = EV_ARRIVE};
	evq_push(&s->q, &ev);
}

/* The next event into *out: the queue's, or the next timed arrival when it comes first.
 * Only arrivals have prio EV_ARRIVE and at most one is pending, so (time, prio) orders them
 * against the queue as the queue would. Returns 0 if there is none, 1 from the queue, 2 the
 * arrival. */
static int peek_event(const struct sim *s, struct evq_event *out)
{
	const struct evq_event *top = evq_peek(&s->q);
	if (s->o.mode != SIM_INFLATE && s->next_arrival < s->js->njobs) {
		int64_t t = s->js->jobs[s->next_arrival].arrival;
		if (!top || t < top->time || (t == top->time && EV_ARRIVE < top->prio)) {
			*out = (struct evq_event){.time = t, .prio = EV_ARRIVE, .kind = EV_ARRIVE};
			return 2;
		}
	}
	if (!top)
		return 0;
	*out = *top;
	return 1;
}

/* peek_event, and take the event: an arrival is taken by on_arrive. */
static int pop_event(struct sim *s, struct evq_event *out)
{
	int r = peek_event(s, out);
	if (r == 1)
		evq_pop(&s->q, out);
	return r != 0;
}

static int32_t new_instance(struct sim *s, int32_t src)
{
	xgrow(&s->inst.jobs, &s->inst.jobcap, s->inst.njobs + 1, sizeof *s->inst.jobs);
	xgrow(&s->inst.isubmit, &s->inst.isubcap, s->inst.njobs + 1, sizeof *s->inst.isubmit);
	struct sjob *sj = &s->inst.jobs[s->inst.njobs];
	memset(sj, 0, sizeof *sj);
	sj->src = src;
	sj->why_dim = -1;
	sj->node = -1;
	s->inst.isubmit[s->inst.njobs] = s->k.now;
	if (s->js->jobs[src].cls < JOB_NCLASS)
		s->inst.ncls[s->js->jobs[src].cls]++;
	sj->start = sj->end = -1;
	return (int32_t)s->inst.njobs++;
}

static void on_arrive(struct sim *s)
{
	s->k.arrived++;
	if (s->o.mode == SIM_INFLATE) {
		int32_t src = (int32_t)rng_below(&s->rng, s->js->njobs);
		int32_t idx = new_instance(s, src);
		const struct job *j = &s->js->jobs[src];
		struct placement *p = sim_place_room(s, idx);
		s->k.requested_gpu += inst_gpu(j);
		if (sim_try_place(s, idx, p)) {
			sim_start_placed(s, idx, p);
		} else {
			s->inst.jobs[idx].why = SIM_WHY_NO_ROOM;
			s->k.failed++;
			sim_mark_unplaceable(s, idx);
		}
		double cap = (double)s->c.total[DIM_GPU];
		while (cap > 0 && s->next_pct <= (int)floor(s->o.target * 100 + 1e-9) &&
		       (double)s->k.requested_gpu * 100 >= (double)s->next_pct * cap) {
			emit_sample(s);
			s->next_pct++;
		}
	} else {
		int32_t idx = (int32_t)s->next_arrival++;
		const struct job *j = &s->js->jobs[idx];
		if ((j->flags & JOB_F_NOTRAN) || j->duration < 0) {
			s->inst.jobs[idx].state = SIM_JOB_SKIPPED;
			s->k.skipped++;
		} else {
			assert(s->k.now == j->arrival); /* the submit time sim_job_result gives */
			sim_wait_add(s, idx);
			xgrow(&s->wq.fresh, &s->wq.freshcap, s->wq.nfresh + 1, sizeof *s->wq.fresh);
			s->wq.fresh[s->wq.nfresh++] = idx;
		}
	}
	push_arrival(s);
}

static void on_finish(struct sim *s, int32_t idx)
{
	struct sjob *sj = &s->inst.jobs[idx];
	const struct job *j = src_job(s, sj);
	int m = node_model(s, (size_t)sj->node);
	int64_t g = sim_stop_job(s, idx);
	sj->state = SIM_JOB_FINISHED;
	sj->end = s->k.now;
	int64_t ran = sj->end - sj->start;
	double work = (double)j->duration - saved_of(s, idx);
	if (m >= 0)
		s->k.prod_ms[m] += llround((double)g * (work < (double)ran ? work : (double)ran));
	s->k.finished++;
	NOTIFY(s, on_finish, s->k.now, idx);
}

/* ---- life cycle ---- */

/* Can inflation reach its target in SIM_MAX_DRAWS draws, as an average draw asks? A trace
 * whose jobs ask for no GPU never would: it would draw until memory runs out. */
static int inflate_check(const struct sim *s, struct err *e)
{
	double need = s->o.target * (double)s->c.total[DIM_GPU], pool = 0;
	for (size_t i = 0; i < s->js->njobs; i++)
		pool += (double)job_gpu(&s->js->jobs[i]);
	if (need <= 0 || !s->js->njobs)
		return VF_OK; /* nothing to draw */
	if (pool <= 0)
		return err_set(e, VF_EINPUT,
			       "inflation: no job of the trace asks for a GPU, so no draw brings "
			       "the load nearer its target of %g",
			       s->o.target);
	double draws = need / (pool / (double)s->js->njobs);
	if (draws > (double)SIM_MAX_DRAWS)
		return err_set(e, VF_EINPUT,
			       "inflation: a target of %g takes about %.3g draws of this trace's "
			       "jobs (%.3g GPU each on average), more than %zu",
			       s->o.target, draws, pool / (double)s->js->njobs / 1000,
			       (size_t)SIM_MAX_DRAWS);
	return VF_OK;
}

int sim_new(const struct job_set *js, const struct policy_ops *ops, const struct frag_workload *wl,
	    const struct sim_opts *o, struct sim **out, struct err *e)
{
	struct sim *s = xcalloc(1, sizeof *s);
	int rc = VF_OK;
	*out = NULL;
	assert(ops && ops->score);
	s->js = js;
	s->wl = wl;
	s->o = *o;
	s->o.faults = NULL;
	s->o.nfaults = 0;
	rng_seed(&s->rng, o->seed);
	cluster_init(&s->c, js->nodes, js->nnodes);
	evq_init(&s->q);
	sim_nodes_init(&s->node, &s->c, wl, s->k.gpu_cap);
	for (size_t i = 0; i < js->njobs; i++)
		if (job_is_gang(&js->jobs[i])) { /* "could W workers ever fit?" */
			cluster_init(&s->node.whole, js->nodes, js->nnodes);
			break;
		}
	sim_pol_setup(s, ops, NULL, 0);
	if ((rc = sim_k8s_setup(s, NULL, e)))
		goto fail;
	for (size_t n = 0; n < js->nnodes; n++)
		sim_node_refresh(s, n);
	if (o->mode != SIM_TIMED) /* timed: checked in the pass below */
		for (size_t i = 0; i < js->njobs; i++)
			job_assert_enriched(&js->jobs[i]);
	if (o->mode == SIM_TIMED) {
		s->inst.jobcap = js->njobs;
		s->inst.njobs = 0;
		s->inst.jobs = xmalloc_big((js->njobs ? js->njobs : 1) * sizeof *s->inst.jobs);
		s->wq.jshape = xmalloc_big((js->njobs ? js->njobs : 1) * sizeof *s->wq.jshape);
		/* new_instance() in one pass, without its growth check: every field written */
		for (size_t i = 0; i < js->njobs; i++) {
			assert(i == 0 || js->jobs[i].arrival >= js->jobs[i - 1].arrival);
			job_assert_enriched(&js->jobs[i]);
			if (js->jobs[i].cls < JOB_NCLASS)
				s->inst.ncls[js->jobs[i].cls]++;
			s->inst.jobs[i] = (struct sjob){.src = (int32_t)i,
							.why_dim = -1,
							.node = -1,
							.start = -1,
							.end = -1};
			s->wq.jshape[i] = -1;
		}
		s->inst.njobs = js->njobs;
		s->k.now = js->njobs ? js->jobs[0].arrival : 0;
		if (o->series_points > 0 && js->njobs) {
			int64_t span = js->jobs[js->njobs - 1].arrival - js->jobs[0].arrival;
			s->sample_iv = span / o->series_points;
			if (s->sample_iv < 1)
				s->sample_iv = 1;
			struct evq_event ev = {
				.time = s->k.now, .prio = EV_SAMPLE, .kind = EV_SAMPLE};
			evq_push(&s->q, &ev);
		}
	}
	s->k.t0 = s->k.now;
	int64_t span = SIM_SPAN_MAX / (s->c.total[DIM_GPU] > 0 ? s->c.total[DIM_GPU] : 1);
	s->t_max = s->k.t0 < SIM_T_MAX - span ? s->k.t0 + span : SIM_T_MAX;
	s->k.carry_jobs = -1;
	s->idle.stale = 1;
	if (o->mode == SIM_TIMED) {
		s->k.w0 = o->win_start >= 0 ? o->win_start : s->k.t0;
		s->k.w1 = o->win_end >= 0 ? o->win_end
					  : (js->njobs ? js->jobs[js->njobs - 1].arrival : s->k.t0);
		if (o->win_end < 0 && s->k.w1 <= s->k.w0) { /* all arrive at once */
			int64_t dmax = 1;
			for (size_t i = 0; i < js->njobs; i++)
				dmax = js->jobs[i].duration > dmax ? js->jobs[i].duration : dmax;
			s->k.w1 = dmax < s->t_max - s->k.w0 ? s->k.w0 + dmax : s->t_max;
		}
		if (s->k.w1 > s->t_max) /* the run never reaches past it */
			s->k.w1 = s->k.w0 < s->t_max ? s->t_max : s->k.w0;
	}
	int down = o->node_mtbf > 0;
	for (size_t i = 0; i < o->nfaults; i++)
		down |= o->faults[i].down;
	if (!(o->node_mtbf >= 0 && o->node_repair >= 0 && o->ckpt_every >= 0 && o->ckpt_cost >= 0))
		rc = err_set(e, VF_EINPUT, "node failures: a time is negative or not a number");
	else if (down && o->mode == SIM_INFLATE)
		rc = err_set(e, VF_EINPUT,
			     "node failures: inflation has no queue to put killed jobs back in; "
			     "they are for timed runs");
	else if (o->node_mtbf > 0 && !(o->node_repair > 0))
		rc = err_set(e, VF_EINPUT, "node failures: a mtbf needs a repair time above 0");
	else if (!(o->xswitch >= 1))
		rc = err_set(e, VF_EINPUT, "cross-switch slowdown: below 1 or not a number");
	for (size_t i = 0; i < o->nfaults && !rc; i++)
		rc = sim_fault_add(s, &o->faults[i], e);
	if (!rc)
		sim_failures_start(s);
	if (rc || (o->mode == SIM_INFLATE && (rc = inflate_check(s, e))))
		goto fail;
	push_arrival(s);
	*out = s;
	return VF_OK;
fail:
	sim_free(s);
	return rc;
}

void sim_free(struct sim *s)
{
	if (!s)
		return;
	cluster_release(&s->c);
	evq_release(&s->q);
	sim_insts_release(&s->inst);
	sim_wait_release(&s->wq);
	sim_nodes_release(&s->node);
	sim_faults_release(&s->fault);
	sim_pol_release(&s->pol);
	sim_k8s_release(s->k8s);
	free(s);
}

void sim_observe(struct sim *s, const struct sim_observer *obs)
{
	assert(s->nobs < SIM_MAX_OBSERVERS);
	s->obs[s->nobs++] = *obs;
}

/* Is there anything left to replay? */
static int work_left(const struct sim *s)
{
	if (s->o.mode == SIM_INFLATE)
		return evq_len(&s->q) > 0;
	return s->next_arrival < s->js->njobs || s->inst.running > 0 || s->wq.queued > 0;
}

/* Timed: can nothing change any more? No arrival is left, no fault starts or ends, no
 * running instance has a completion to come (each runs at rate 0, or ends past t_max), and
 * the last schedule pass has run: the waiting jobs would wait for ever. Only samples may be
 * queued, and they would go on to the horizon. */
static int stuck(const struct sim *s)
{
	return s->o.mode == SIM_TIMED && !s->dirty && s->next_arrival >= s->js->njobs &&
	       s->inst.running == s->inst.nnoend && !s->fault.nev;
}

/* End a stuck run: nothing changes to the window's end, so the clock goes there (the
 * window's integrals are those of the state now), and what runs or waits is carried over. */
static void end_stuck(struct sim *s)
{
	if (s->k.now < s->k.w1)
		advance(s, s->k.w1);
	if (s->k.carry_jobs < 0)
		sim_carry_over(s);
	s->k.stuck = s->inst.running + s->wq.queued;
	s->over = 1;
}

static int event_live(const struct evq_event *ev, void *u)
{
	const struct sim *s = u;
	return ev->kind != EV_FINISH || (s->inst.jobs[ev->arg].ver == ev->ver &&
					 s->inst.jobs[ev->arg].state == SIM_JOB_RUNNING);
}

/* Take the completions that moved (stale) off the top of the queue: what is next is then
 * a live event. */
static void drop_stale(struct sim *s)
{
	struct evq_event nx;
	while (peek_event(s, &nx) == 1 && !event_live(&nx, s))
		evq_pop(&s->q, &nx);
}

/*
 * Schedule once the queue has changed and every event of this instant is handled (the
 * next live one is later). A pass that preempts requeues the jobs it evicted, and they may
 * start in a pass of their own: passes repeat until one leaves nothing to do. Each
 * preemption trades running work of a lower class for a higher one, so this ends; the
 * bound is a guard. How many passes run depends on the state only, not on how the caller
 * steps nor on the stale events still queued.
 */
#define SCHED_MAX_PASSES 64
static void maybe_schedule(struct sim *s)
{
	struct evq_event nx;
	if (!s->dirty)
		return;
	drop_stale(s);
	if (peek_event(s, &nx) && nx.time <= s->k.now)
		return;
	for (int i = 0; s->dirty && i < SCHED_MAX_PASSES; i++)
		sim_schedule(s);
	s->dirty = 0;
}

/* A hint, no effect on results: ask for the records the next event will read while this
 * one is handled. A finish reads its job's instance and trace job, cold since it started
 * (a cache miss each on a large run; a timed instance's job is at its own index), and its
 * node's state (the event carries the node): the lines of used[], of the first GPUs'
 * free milli and HBM, and of the job list. */
static void prefetch_next(const struct sim *s)
{
#if defined(__GNUC__)
	const struct evq_event *top = evq_peek(&s->q);
	if (!top || top->kind != EV_FINISH)
		return;
	const char *sj = (const char *)&s->inst.jobs[top->arg];
	__builtin_prefetch(sj);
	__builtin_prefetch(sj + sizeof(struct sjob) - 1);
	if (s->o.mode == SIM_TIMED) {
		const char *j = (const char *)&s->js->jobs[top->arg];
		__builtin_prefetch(j);
		__builtin_prefetch(j + sizeof(struct job) - 1);
	}
	const struct node_state *st = &s->c.st[top->aux];
	__builtin_prefetch(&st->used);
	__builtin_prefetch(&st->gpu_free);
	__builtin_prefetch(&st->hbm_free);
	__builtin_prefetch(&st->hbm_free[8]);
	__builtin_prefetch(&st->jobs);
#else
	(void)s;
#endif
}

int sim_step(struct sim *s)
{
	/* Contention moves completions; the old events stay in the queue until popped. When
	 * they outnumber the live ones (at most one per running job, the next arrival, the
	 * next sample, two per fault), purge them so the queue stays small. */
	size_t live = (size_t)s->inst.running + 2 + 2 * s->fault.n + (size_t)s->fault.nproc;
	if (evq_len(&s->q) > 2 * live + 1024)
		evq_filter(&s->q, event_live, s);

	for (;;) {
		if (s->over)
			return 0;
		if (s->o.mode == SIM_INFLATE && s->next_pct == 0) {
			emit_sample(s); /* load 0 */
			s->next_pct = 1;
		}
		maybe_schedule(s);
		struct evq_event ev;
		if (work_left(s) && stuck(s)) {
			end_stuck(s);
			return 0;
		}
		if (!work_left(s) || !pop_event(s, &ev)) {
			s->over = 1;
			return 0;
		}
		prefetch_next(s);
		if (ev.kind == EV_FINISH && (s->inst.jobs[ev.arg].ver != ev.ver ||
					     s->inst.jobs[ev.arg].state != SIM_JOB_RUNNING))
			continue; /* stale: the job's completion moved */
		advance(s, ev.time);
		switch (ev.kind) {
		case EV_FINISH:
			on_finish(s, ev.arg);
			break;
		case EV_FAULT_END:
		case EV_FAULT_START:
			s->fault.nev--;
			sim_fault_switch(s, (size_t)ev.arg, ev.kind == EV_FAULT_START);
			break;
		case EV_NODE_DOWN:
		case EV_NODE_UP:
			sim_node_fail(s, (size_t)ev.arg, ev.kind == EV_NODE_DOWN);
			break;
		case EV_ARRIVE:
			on_arrive(s);
			break;
		case EV_SAMPLE:
			emit_sample(s);
			/* a bounded series however long the run: the cadence doubles every
			 * 2 x series_points samples */
			if (++s->nsamples % (2 * s->o.series_points) == 0 &&
			    s->sample_iv <= s->t_max / 2)
				s->sample_iv *= 2;
			if (work_left(s) && s->sample_iv <= s->t_max - s->k.now) {
				struct evq_event nx = {.time = s->k.now + s->sample_iv,
						       .prio = EV_SAMPLE,
						       .kind = EV_SAMPLE};
				evq_push(&s->q, &nx);
			}
			break;
		default:
			assert(!"unknown event");
		}
		if (ev.kind != EV_SAMPLE)
			s->k.events++;
		s->idle.stale = 1;
		maybe_schedule(s);
		return 1;
	}
}

int64_t sim_next_time(const struct sim *s)
{
	struct evq_event nx;
	return s->over || !work_left(s) || !peek_event(s, &nx) ? -1 : nx.time;
}

int sim_step_until(struct sim *s, int64_t t)
{
	/* the top may be a completion that moved (stale): sim_step would skip it and handle
	 * the next live event, which may be past t */
	drop_stale(s);
	int64_t nt = sim_next_time(s);
	return nt >= 0 && nt <= t && sim_step(s);
}

int sim_run_until(struct sim *s, int64_t t)
{
	while (sim_step_until(s, t))
		;
	if (!s->over && work_left(s)) {
		maybe_schedule(s);
		advance(s, t);
	}
	return !sim_done(s);
}

void sim_run(struct sim *s)
{
	while (sim_step(s))
		;
}

int sim_done(const struct sim *s)
{
	return s->over || !work_left(s);
}

void sim_insts_clone(struct sim_insts *f, const struct sim_insts *s, const struct job_set *js)
{
	*f = *s;
	f->jobs = sim_copy_of(s->jobs, s->njobs, s->jobcap, sizeof *f->jobs);
	f->isubmit = s->isubmit ? sim_copy_of(s->isubmit, s->njobs, s->isubcap, sizeof *f->isubmit)
				: NULL;
	f->runs = sim_copy_of(s->runs, s->nruns, s->runcap, sizeof *f->runs);
	f->rfree = sim_copy_of(s->rfree, s->nrfree, s->rfreecap, sizeof *f->rfree);
	f->pre = s->pre ? sim_copy_of(s->pre, s->precap, s->precap, sizeof *f->pre) : NULL;
	f->gw = s->gw ? sim_copy_of(s->gw, s->gwcap, s->gwcap, sizeof *f->gw) : NULL;
	for (size_t i = 0; f->gw && i < s->gwcap; i++)
		if (s->gw[i]) {
			size_t w = (size_t)job_workers(&js->jobs[s->jobs[i].src]);
			f->gw[i] = sim_copy_of(s->gw[i], w, w, sizeof *s->gw[i]);
		}
}

void sim_insts_release(struct sim_insts *in)
{
	for (size_t i = 0; in->gw && i < in->gwcap; i++)
		free(in->gw[i]);
	FREE_ALL(in->jobs, in->isubmit, in->runs, in->rfree, in->pre, in->gw);
}

void sim_change_init(struct sim_change *ch)
{
	ch->dims = 0;
	for (int i = 0; i < POLICY_NPARAM; i++)
		ch->param[i] = NAN;
	ch->queue = ch->preempt = -1;
}

int sim_fork(const struct sim *s, const struct policy_ops *ops, const struct fault *fault,
	     struct sim **out, struct err *e)
{
	return sim_fork_with(s, ops, fault, NULL, out, e);
}

int sim_fork_with(const struct sim *s, const struct policy_ops *ops, const struct fault *fault,
		  const struct sim_change *ch, struct sim **out, struct err *e)
{
	struct sim *f = xmalloc(sizeof *f);
	int rc = VF_OK;
	*f = *s; /* the scalars; every owned pointer is replaced below, part by part */
	f->nobs = 0;
	cluster_clone(&f->c, &s->c);
	evq_clone(&f->q, &s->q);
	sim_insts_clone(&f->inst, &s->inst, s->js);
	sim_wait_clone(&f->wq, &s->wq, s->inst.njobs, s->inst.jobcap);
	sim_nodes_clone(&f->node, &s->node, s->c.n);
	sim_faults_clone(&f->fault, &s->fault, s->c.n);
	int queue_was = f->o.queue;
	if (ch) {
		if (ch->dims)
			f->o.dims = ch->dims;
		for (int i = 0; i < POLICY_NPARAM; i++)
			if (!isnan(ch->param[i]))
				f->o.param[i] = ch->param[i];
		if (ch->queue >= 0)
			f->o.queue = (enum sim_queue)ch->queue;
		if (ch->preempt >= 0)
			f->o.preempt = ch->preempt;
		f->o.preempt &= f->o.queue == SIM_PRIORITY;
	}
	sim_pol_setup(f, ops ? ops : s->pol.ops, s, 1);
	if (f->pol.admit != s->pol.admit)
		sim_wait_reshape(f);
	if ((int)f->o.queue != queue_was) {
		sim_wait_requeue_all(f);
		sim_easy_rebuild(f);
	}
	if (ch) { /* the waiting jobs meet the new rules at the next schedule: a full pass */
		f->freed = 1;
		f->dirty = f->wq.nwait > 0;
		f->idle.stale = 1;
	}
	f->k8s = NULL;
	rc = sim_k8s_setup(f, s->k8s ? sim_k8s_rng(s->k8s) : NULL, e);
	if (rc || (fault && (rc = sim_fault_add(f, fault, e)))) {
		sim_free(f);
		f = NULL;
	}
	*out = f;
	return rc;
}

/* ---- read access ---- */

const struct sim_counters *sim_counters(const struct sim *s)
{
	return &s->k;
}

const struct cluster *sim_cluster(const struct sim *s)
{
	return &s->c;
}

const struct job_set *sim_jobs(const struct sim *s)
{
	return s->js;
}

const struct policy_ops *sim_policy(const struct sim *s)
{
	return s->pol.ops;
}

const struct sim_opts *sim_options(const struct sim *s)
{
	return &s->o;
}

const struct fault *sim_faults(const struct sim *s, size_t *n)
{
	*n = s->fault.n;
	return s->fault.n ? &s->fault.list[0].f : NULL;
}

const struct fault *sim_fault(const struct sim *s, size_t i)
{
	assert(i < s->fault.n);
	return &s->fault.list[i].f;
}

int64_t sim_fault_jobs(const struct sim *s, size_t i)
{
	assert(i < s->fault.n);
	return s->fault.list[i].jobs_hit;
}

const struct frag_workload *sim_workload(const struct sim *s)
{
	return s->wl;
}

const double *sim_node_frag(const struct sim *s)
{
	return s->node.frag;
}

size_t sim_njobs(const struct sim *s)
{
	return s->inst.njobs;
}

size_t sim_njobs_class(const struct sim *s, int cls)
{
	assert(cls >= 0 && cls < JOB_NCLASS);
	return s->inst.ncls[cls];
}

void sim_job_result(const struct sim *s, size_t i, struct sim_job_result *r)
{
	assert(i < s->inst.njobs);
	const struct sjob *sj = &s->inst.jobs[i];
	const struct job *j = src_job(s, sj);
	memset(r, 0, sizeof *r);
	r->job_id = j->id;
	r->src = sj->src;
	r->state = sj->state;
	r->why = sj->why;
	r->why_dim = sj->why_dim;
	r->cls = j->cls;
	r->node = sj->node;
	r->npreempt = i < s->inst.precap ? s->inst.pre[i].n : 0;
	r->submit = s->inst.isubmit ? s->inst.isubmit[i] : j->arrival;
	r->start = sj->start;
	r->end = sj->state == SIM_JOB_FINISHED ? sj->end : -1;
	r->t_alone = j->duration;
	r->gpu_milli = inst_gpu(j);
	r->workers = job_workers(j);
	r->gpus = sj->state == SIM_JOB_RUNNING ? sj->gpus : 0;
	r->lost_gpu_s = (double)(i < s->inst.precap ? s->inst.pre[i].lost_ms : 0) / 1000;
	if (i < s->inst.precap) {
		r->nkilled = s->inst.pre[i].nkill;
		r->fail_gpu_s = (double)s->inst.pre[i].fail_ms / 1000;
		r->saved = s->inst.pre[i].saved;
	}
	double g = (double)r->gpu_milli;
	if (sj->state == SIM_JOB_RUNNING && s->o.mode == SIM_INFLATE) {
		r->rate = 1; /* inflation has no durations: nothing progresses or stalls */
	} else if (sj->state == SIM_JOB_RUNNING) {
		r->work_left = work_now(s, sj);
		r->rate = run_now(s, sj).rate;
		double elapsed = (double)(s->k.now - sj->start);
		double done = (double)j->duration - saved_of(s, (int32_t)i) - r->work_left;
		r->stalled_gpu_s = elapsed > done ? g * (elapsed - done) / 1000 : 0;
	} else if (sj->state == SIM_JOB_FINISHED) {
		/* of its last run, which started from its last checkpoint */
		double ran = (double)(sj->end - sj->start), work = (double)j->duration - r->saved;
		r->slowdown = work > 0 ? ran / work : 1;
		r->stalled_gpu_s = ran > work ? g * (ran - work) / 1000 : 0;
	}
}

void sim_now(struct sim *s, struct sim_now *out)
{
	memset(out, 0, sizeof *out);
	if (s->idle.stale)
		sim_classify_idle(s); /* what advance_window would decide: the state is the same */
	out->gpu_cap = s->c.total[DIM_GPU];
	for (int i = 0; i < s->node.nmodels; i++) {
		out->alloc += s->node.alloc_now[s->node.models[i]];
		out->frag += s->node.sum_frag[s->node.models[i]];
	}
	out->stalled = s->inst.stall_now;
	out->frag_md = s->c.n ? s->node.sum_md / (double)s->c.n : 0;
	out->idle_cause = s->idle.cause;
	out->queued = s->wq.queued;
	out->running = s->inst.running;
}

const int64_t (*sim_node_stranded(const struct sim *s))[DIM_N]
{
	return (const int64_t(*)[DIM_N])s->node.str;
}

void sim_snapshot(const struct sim *s, struct sim_snapshot *out)
{
	size_t nn = s->c.n ? s->c.n : 1;
	memset(out, 0, sizeof *out);
	out->now = s->k.now;
	out->nnodes = s->c.n;
	out->free = xmalloc(nn * sizeof *out->free);
	out->cap = xmalloc(nn * sizeof *out->cap);
	out->frag = xmalloc(nn * sizeof *out->frag);
	for (size_t n = 0; n < s->c.n; n++) {
		for (int d = 0; d < DIM_N; d++) {
			out->cap[n][d] = s->c.st[n].cap[d];
			out->free[n][d] = s->c.st[n].cap[d] - s->c.st[n].used[d];
		}
		out->frag[n] = s->node.frag[n];
	}
	out->nqueued = s->wq.nwait;
	out->queue = xmalloc((s->wq.nwait ? s->wq.nwait : 1) * sizeof *out->queue);
	memcpy(out->queue, s->wq.wait, s->wq.nwait * sizeof *out->queue);
	out->running =
		xmalloc((size_t)(s->inst.running ? s->inst.running : 1) * sizeof *out->running);
	for (size_t i = 0; i < s->inst.njobs; i++)
		if (s->inst.jobs[i].state == SIM_JOB_RUNNING)
			out->running[out->nrunning++] = (int32_t)i;
	assert(out->nrunning == (size_t)s->inst.running);
	out->counters = s->k;
}

void sim_snapshot_release(struct sim_snapshot *snap)
{
	if (!snap)
		return;
	FREE_ALL(snap->free, snap->cap, snap->frag, snap->queue, snap->running);
	memset(snap, 0, sizeof *snap);
}
