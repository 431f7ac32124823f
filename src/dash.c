/*
 * dash.c — the dashboard's model (dash.h): lanes of sims stepped in lockstep, keyframes for
 * going back, and the numbers each panel shows. No curses here: ui*.c draws what this
 * answers, and the tests ask the same questions without a terminal.
 *
 * A lane's life:
 *
 *   lane_start (a sim at its first event, keyframe 0 taken)
 *     |
 *     +--> lane_step -----> one event; a keyframe when the clock passed the last one
 *     |                     by the interval (lane_keyframe; over budget: lane_thin)
 *     +--> lane_goto(t) --> t ahead: lane_step while the next event is at or before t
 *     |                     t behind: lane_restore(the last keyframe at or before t), ahead
 *     +--> lane_release
 *
 * Invariants: a lane's sim has handled exactly steps events since its start; every
 * keyframe is a sim_fork copy of the lane's sim after kf.steps of them, on the lane's one
 * trajectory (runs are deterministic), ascending in time; what the lane accumulates besides
 * the sim (the wait histogram, the fragmentation peak) is saved with each keyframe, and the
 * sparkline is cut back to the restored time, so going back and forth changes nothing the
 * panels show but the event log (refilled from the keyframe on) and events per second.
 */
#include <assert.h>
#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dash.h"
#include "fmt.h"

/* Wait histogram: bin 0 holds waits of 0 s, bin i >= 1 waits in [r^(i-1), r^i), r = 1.1. */
#define HIST_N     256
#define HIST_RATIO 1.1

struct hist {
	int64_t n;
	int64_t bin[HIST_N];
};

struct keyframe {
	struct sim *s;
	int64_t steps;
	struct hist h;
	double peak;
};

struct lane {
	struct dash *d;
	int idx;
	struct replay_trace *own; /* a trace of this lane's own (io-pressure what-if), or NULL */
	const struct replay_trace *t;
	const struct policy_ops *ops;
	struct sim *s;
	int64_t steps;       /* events handled since the lane's start */
	struct fault *fault; /* the what-if's faults (owned), or NULL */
	size_t nfault;
	double io;            /* the lane's io-pressure */
	char change[160];     /* what the what-if changed, "" for the main lane */
	struct sim_change ch; /* what the what-if changed of the scenario's options */
	int64_t fork_time;    /* trace second it was forked at, -1: from the start */
	struct keyframe *kf;  /* ascending in time; kf[0] is the lane's start */
	size_t nkf, kfcap;
	int64_t kf_iv;  /* trace seconds between keyframes */
	size_t kf_size; /* estimated bytes of one keyframe */
	struct hist h;  /* waits of the placements so far */
	double peak;    /* fragmentation peak so far */
	double spark[DASH_SPARK_N];
	size_t nspark;                       /* slices of spark reached */
	struct dash_event log[DASH_LOG_MAX]; /* a ring: the newest at (loghead - 1) */
	size_t nlog, loghead;
	double eps, eps_wall; /* events per wall second lately; when it was last measured */
	int64_t eps_events;   /* steps then */
	int stored;           /* the what-if was stored as a run (dash_set_stored) */
};

struct dash {
	dash_progress_fn progress; /* asked during long moves, or NULL */
	void *progress_u;
	const struct scenario *sc;
	uint64_t seed;
	struct replay_trace t; /* the main trace */
	size_t kf_bytes;
	int64_t view; /* the view's trace second */
	double frac;  /* playback: the fraction of a second the view is past view */
	int64_t t0, w0, w1;
	int nlanes;
	struct lane *lane[DASH_LANES]; /* on the heap: observers hold their address */
};

const char *dash_sort_name(enum dash_sort s)
{
	static const char *const names[DASH_NSORT] = {"name", "fragmentation", "free GPUs",
						      "stalled"};
	assert(s < DASH_NSORT);
	return names[s];
}

/* ---- the lane's accumulators ---- */

static int hist_bin(int64_t w)
{
	if (w <= 0)
		return 0;
	int b = 1 + (int)floor(log((double)w) / log(HIST_RATIO));
	return b < HIST_N ? b : HIST_N - 1;
}

/* The p-quantile of h: the geometric middle of its bin. */
static double hist_quantile(const struct hist *h, double p)
{
	if (!h->n)
		return 0;
	int64_t want = (int64_t)ceil(p * (double)h->n), sum = 0;
	for (int b = 0; b < HIST_N; b++) {
		sum += h->bin[b];
		if (sum >= want && b == 0)
			return 0;
		if (sum >= want)
			return pow(HIST_RATIO, (double)b - 0.5);
	}
	return pow(HIST_RATIO, HIST_N - 1);
}

static void log_add(struct lane *L, const struct dash_event *ev)
{
	L->log[L->loghead] = *ev;
	L->loghead = (L->loghead + 1) % DASH_LOG_MAX;
	if (L->nlog < DASH_LOG_MAX)
		L->nlog++;
}

static void obs_place(void *u, const struct sim *s, int64_t t, int32_t job,
		      const struct placement *p)
{
	struct lane *L = u;
	struct sim_job_result r;
	sim_job_result(s, (size_t)job, &r);
	L->h.bin[hist_bin(t - r.submit)]++;
	L->h.n++;
	struct dash_event ev = {
		.t = t, .kind = DASH_EV_PLACE, .job = job, .node = p->node, .workers = r.workers};
	for (int32_t w = 0; w < r.workers && w < DASH_EV_NODES; w++)
		ev.wnode[w] = p[w].node;
	log_add(L, &ev);
}

static void obs_preempt(void *u, const struct sim *s, int64_t t, int32_t job, int32_t by)
{
	struct sim_job_result r;
	sim_job_result(s, (size_t)job, &r);
	log_add(u, &(struct dash_event){
			   .t = t, .kind = DASH_EV_PREEMPT, .job = job, .node = r.node, .by = by});
}

static void obs_unplaceable(void *u, const struct sim *s, int64_t t, int32_t job)
{
	(void)s;
	log_add(u,
		&(struct dash_event){.t = t, .kind = DASH_EV_UNPLACEABLE, .job = job, .node = -1});
}

static void obs_fault(void *u, const struct sim *s, int64_t t, size_t fault, int begin)
{
	(void)s;
	log_add(u, &(struct dash_event){.t = t,
					.kind = DASH_EV_FAULT,
					.begin = (uint8_t)begin,
					.node = -1,
					.fault = (int32_t)fault});
}

static void lane_observe(struct lane *L)
{
	struct sim_observer o = {.u = L,
				 .on_place = obs_place,
				 .on_preempt = obs_preempt,
				 .on_unplaceable = obs_unplaceable,
				 .on_fault = obs_fault};
	sim_observe(L->s, &o);
}

static double frag_now(const struct sim *s)
{
	struct sim_sample smp;
	sim_sample_now(s, &smp);
	return smp.frag;
}

/* The sparkline slice of trace second t. */
static size_t spark_slice(const struct dash *d, int64_t t)
{
	int64_t span = d->w1 - d->w0;
	if (span <= 0 || t <= d->w0)
		return 0;
	int64_t i = (t - d->w0) * DASH_SPARK_N / span;
	return i >= DASH_SPARK_N ? DASH_SPARK_N - 1 : (size_t)i;
}

/* After an event: the sparkline and peak. */
static void lane_note(struct lane *L)
{
	double f = frag_now(L->s);
	size_t i = spark_slice(L->d, sim_counters(L->s)->now);
	while (L->nspark <= i)
		L->spark[L->nspark++] = f;
	L->spark[i] = f; /* the slice holds the state at its last event */
	if (f > L->peak)
		L->peak = f;
}

/* ---- keyframes ---- */

static void lane_keyframe(struct lane *L)
{
	struct sim *c;
	int rc = sim_fork(L->s, NULL, NULL, &c, NULL);
	assert(!rc); /* no fault added: a fork cannot fail */
	(void)rc;
	xgrow(&L->kf, &L->kfcap, L->nkf + 1, sizeof *L->kf);
	L->kf[L->nkf++] = (struct keyframe){.s = c, .steps = L->steps, .h = L->h, .peak = L->peak};
	if (L->nkf > 2 && (L->nkf > DASH_KEYFRAME_MAX || L->nkf * L->kf_size > L->d->kf_bytes)) {
		/* keep the start and every other one: the interval doubles */
		size_t k = 1;
		for (size_t i = 1; i < L->nkf; i++) {
			if (i % 2 == 0 || i == L->nkf - 1)
				L->kf[k++] = L->kf[i];
			else
				sim_free(L->kf[i].s);
		}
		L->nkf = k;
		L->kf_iv *= 2;
	}
}

/* Handle the lane's next event if it is at time <= t. */
static int lane_step(struct lane *L, int64_t t)
{
	if (!sim_step_until(L->s, t))
		return 0;
	L->steps++;
	lane_note(L);
	int64_t now = sim_counters(L->s)->now;
	if (now >= sim_counters(L->kf[L->nkf - 1].s)->now + L->kf_iv)
		lane_keyframe(L);
	return 1;
}

static void lane_restore(struct lane *L, const struct keyframe *k)
{
	int rc;
	sim_free(L->s);
	rc = sim_fork(k->s, NULL, NULL, &L->s, NULL);
	assert(!rc);
	(void)rc;
	lane_observe(L);
	L->steps = k->steps;
	L->h = k->h;
	L->peak = k->peak;
	size_t i = spark_slice(L->d, sim_counters(L->s)->now);
	if (L->nspark > i + 1)
		L->nspark = i + 1;
	L->nlog = L->loghead = 0;
}

static void lane_goto(struct lane *L, int64_t t)
{
	if (sim_counters(L->s)->now > t) {
		size_t k = 0;
		while (k + 1 < L->nkf && sim_counters(L->kf[k + 1].s)->now <= t)
			k++;
		lane_restore(L, &L->kf[k]);
	}
	while (lane_step(L, t))
		;
}

static void lane_release(struct lane *L)
{
	for (size_t i = 0; i < L->nkf; i++)
		sim_free(L->kf[i].s);
	free(L->kf);
	sim_free(L->s);
	free(L->fault);
	if (L->own) {
		replay_trace_release(L->own);
		free(L->own);
	}
	memset(L, 0, sizeof *L);
	sim_change_init(&L->ch);
}

/* Set up lane l around sim s (taken) on trace t: observers, keyframe 0. */
static void lane_start(struct dash *d, int l, struct sim *s, const struct replay_trace *t,
		       const struct policy_ops *ops)
{
	struct lane *L = d->lane[l];
	L->d = d;
	L->idx = l;
	sim_change_init(&L->ch);
	L->t = t;
	L->ops = ops;
	L->s = s;
	L->io = d->sc->io_pressure;
	L->fork_time = -1;
	int64_t span = d->w1 - d->t0;
	L->kf_iv = span / 64 > 1 ? span / 64 : 1;
	/* a sim's state is mostly per job (instance, shape, arrival: ~48 bytes) and per node
	 * (its state, job list and derived arrays: ~700 bytes) */
	L->kf_size = t->js.njobs * 48 + t->js.nnodes * 700 + 4096;
	lane_observe(L);
	lane_note(L);
	lane_keyframe(L);
}

/* ---- life cycle ---- */

int dash_new(const struct scenario *sc, const struct policy_ops *ops, uint64_t seed,
	     size_t kf_bytes, struct dash **out, struct err *e)
{
	struct dash *d = xcalloc(1, sizeof *d);
	struct sim *s = NULL;
	int rc;
	d->sc = sc;
	d->seed = seed;
	d->kf_bytes = kf_bytes ? kf_bytes : DASH_KEYFRAME_BYTES;
	for (int l = 0; l < DASH_LANES; l++) {
		d->lane[l] = xcalloc(1, sizeof *d->lane[l]);
		sim_change_init(&d->lane[l]->ch);
	}
	replay_prepare(&d->t, &sc->base, sc, seed);
	if ((rc = replay_new(&d->t, sc, ops, &s, e))) {
		dash_free(d);
		*out = NULL;
		return rc;
	}
	const struct sim_counters *k = sim_counters(s);
	d->t0 = d->t.js.njobs ? d->t.js.jobs[0].arrival : 0;
	d->w0 = k->w0;
	d->w1 = k->w1 > k->w0 ? k->w1 : k->w0 + 1;
	d->view = d->t0;
	d->nlanes = 1;
	lane_start(d, 0, s, &d->t, ops);
	lane_goto(d->lane[0], d->view);
	*out = d;
	return VF_OK;
}

void dash_free(struct dash *d)
{
	if (!d)
		return;
	for (int l = 0; l < DASH_LANES; l++) {
		lane_release(d->lane[l]);
		free(d->lane[l]);
	}
	replay_trace_release(&d->t);
	free(d);
}

int dash_nlanes(const struct dash *d)
{
	return d->nlanes;
}

const struct sim *dash_sim(const struct dash *d, int l)
{
	assert(l >= 0 && l < d->nlanes);
	return d->lane[l]->s;
}

const struct replay_trace *dash_trace(const struct dash *d, int l)
{
	assert(l >= 0 && l < d->nlanes);
	return d->lane[l]->t;
}

const char *dash_change(const struct dash *d, int l)
{
	assert(l >= 0 && l < d->nlanes);
	return d->lane[l]->change[0] ? d->lane[l]->change : NULL;
}

int64_t dash_fork_time(const struct dash *d, int l)
{
	assert(l >= 0 && l < d->nlanes);
	return d->lane[l]->fork_time;
}

int64_t dash_time(const struct dash *d)
{
	return d->view;
}

int64_t dash_t0(const struct dash *d)
{
	return d->t0;
}

int64_t dash_tend(const struct dash *d)
{
	return d->w1;
}

int dash_over(const struct dash *d)
{
	for (int l = 0; l < d->nlanes; l++)
		if (!sim_done(d->lane[l]->s))
			return 0;
	return 1;
}

size_t dash_keyframes(const struct dash *d, int l, size_t *bytes)
{
	assert(l >= 0 && l < d->nlanes);
	if (bytes)
		*bytes = d->lane[l]->nkf * d->lane[l]->kf_size;
	return d->lane[l]->nkf;
}

/* ---- time ---- */

void dash_set_progress(struct dash *d, dash_progress_fn fn, void *u)
{
	d->progress = fn;
	d->progress_u = u;
}

/* A lane as it was before a move that may be cancelled: a copy of its sim and of the lane. */
struct undo {
	struct sim *s;
	struct lane saved;
};

static void undo_save(const struct lane *L, struct undo *u)
{
	int rc = sim_fork(L->s, NULL, NULL, &u->s, NULL);
	assert(!rc);
	(void)rc;
	u->saved = *L;
}

/* Put u back into L (restore: 1) or let it go. The keyframes taken meanwhile stay: they
 * are on the lane's one trajectory. */
static void undo_end(struct lane *L, struct undo *u, int restore)
{
	if (!restore) {
		sim_free(u->s);
		return;
	}
	struct lane now = *L;
	sim_free(L->s);
	*L = u->saved;
	L->s = u->s;
	L->kf = now.kf;
	L->nkf = now.nkf;
	L->kfcap = now.kfcap;
	L->kf_iv = now.kf_iv;
	lane_observe(L);
}

/* Slices of a long move: the lanes go through them together, so the share done (and the
 * estimate of what is left) stays true whatever each lane costs. */
#define MOVE_SLICES 64

/* Lanes [a, b) to trace second t, asking d->progress (when set) every 50 ms or so: 0, or
 * DASH_CANCELLED when it said stop, the lanes then where they stopped. */
static int lanes_move(struct dash *d, int a, int b, int64_t t)
{
	int64_t from = INT64_MAX;
	for (int l = a; l < b; l++) {
		struct lane *L = d->lane[l];
		if (sim_counters(L->s)->now > t) {
			size_t k = 0;
			while (k + 1 < L->nkf && sim_counters(L->kf[k + 1].s)->now <= t)
				k++;
			lane_restore(L, &L->kf[k]);
		}
		int64_t now = sim_counters(L->s)->now;
		from = now < from ? now : from;
	}
	if (!d->progress) {
		for (int l = a; l < b; l++)
			while (lane_step(d->lane[l], t))
				;
		return 0;
	}
	double start = util_mono(), last = start - 1; /* the first time at once */
	int64_t span = t > from ? t - from : 1, n = 0;
	for (int k = 1; k <= MOVE_SLICES; k++) {
		int64_t mk =
			k == MOVE_SLICES ? t : from + (int64_t)((double)span * k / MOVE_SLICES);
		for (int l = a; l < b; l++) {
			struct lane *L = d->lane[l];
			while (lane_step(L, mk)) {
				if (++n % 64)
					continue;
				double now = util_mono();
				if (now - last < 0.05)
					continue;
				last = now;
				/* done: the lanes' mean share of the trace time to cover */
				double done = 0;
				for (int q = a; q < b; q++) {
					int64_t c = sim_counters(d->lane[q]->s)->now - from;
					done += (double)(c < 0      ? 0
							 : c > span ? span
								    : c) /
						(double)span;
				}
				if (d->progress(d->progress_u, done / (b - a), now - start))
					return DASH_CANCELLED;
			}
		}
	}
	return 0;
}

int dash_goto(struct dash *d, int64_t t)
{
	struct undo *u = NULL;
	if (t < d->t0)
		t = d->t0;
	if (d->progress) {
		u = xcalloc((size_t)d->nlanes, sizeof *u);
		for (int l = 0; l < d->nlanes; l++)
			undo_save(d->lane[l], &u[l]);
	}
	int rc = lanes_move(d, 0, d->nlanes, t);
	if (u) {
		for (int l = 0; l < d->nlanes; l++)
			undo_end(d->lane[l], &u[l], rc == DASH_CANCELLED);
		free(u);
	}
	if (rc)
		return rc;
	d->view = t;
	d->frac = 0;
	return 0;
}

int dash_step(struct dash *d)
{
	struct lane *L = d->lane[0];
	int64_t ev = sim_counters(L->s)->events;
	int stepped;
	/* a sample is not an event of the run: step past it */
	while ((stepped = lane_step(L, INT64_MAX)) && sim_counters(L->s)->events == ev)
		;
	if (!stepped) {
		/* the main run is over: the what-ifs may go on */
		int64_t nt = -1;
		for (int l = 1; l < d->nlanes; l++) {
			int64_t x = sim_next_time(d->lane[l]->s);
			if (x >= 0 && (nt < 0 || x < nt))
				nt = x;
		}
		if (nt < 0)
			return 0;
		d->view = nt > d->view ? nt : d->view;
	} else if (sim_counters(L->s)->now > d->view) {
		d->view = sim_counters(L->s)->now;
	}
	d->frac = 0;
	for (int l = 1; l < d->nlanes; l++)
		lane_goto(d->lane[l], d->view);
	return 1;
}

static void eps_update(struct lane *L)
{
	double now = util_mono();
	if (L->eps_wall == 0) {
		L->eps_wall = now;
		L->eps_events = L->steps;
	} else if (now - L->eps_wall >= 0.5) {
		L->eps = (double)(L->steps - L->eps_events) / (now - L->eps_wall);
		L->eps_wall = now;
		L->eps_events = L->steps;
	}
}

int64_t dash_advance(struct dash *d, double dt, int64_t max_events)
{
	return dash_advance_until(d, dt, max_events, 0);
}

int64_t dash_advance_until(struct dash *d, double dt, int64_t max_events, double deadline)
{
	double to = (double)d->view + d->frac + (dt > 0 ? dt : 0);
	int64_t target = (int64_t)floor(to), n = 0;
	struct lane *M = d->lane[0];
	int capped = 0;
	/* the budget, checked before each event: the wall clock every 16 events */
#define SPENT()                                                                                    \
	(capped = (max_events && n >= max_events) ||                                               \
		  (deadline > 0 && n && !(n & 15) && util_mono() > deadline))
	/* the main lane event by event, each what-if following it to its clock, so that every
	 * lane costs the frame its share and none is left to catch up at once */
	while (!SPENT() && lane_step(M, target)) {
		n++;
		int64_t now = sim_counters(M->s)->now;
		for (int l = 1; l < d->nlanes && !capped; l++)
			while (!SPENT() && lane_step(d->lane[l], now))
				n++;
		if (capped)
			break;
	}
	/* the main run over (or its events done): the what-ifs go on to the target */
	for (int l = 1; l < d->nlanes && !capped; l++)
		while (!SPENT() && lane_step(d->lane[l], target))
			n++;
#undef SPENT
	if (capped) {
		/* the view stops at the last event handled: no lane is past it */
		int64_t v = d->view;
		for (int l = 0; l < d->nlanes; l++) {
			int64_t now = sim_counters(d->lane[l]->s)->now;
			v = now > v ? now : v;
		}
		d->view = v < target ? v : target;
		d->frac = 0;
	} else {
		d->view = target;
		d->frac = to - (double)target;
	}
	if (!capped && dash_over(d) && d->view > d->w1) {
		/* every run over: the view stops at the window's end (or the last event) */
		int64_t v = d->w1;
		for (int l = 0; l < d->nlanes; l++) {
			int64_t now = sim_counters(d->lane[l]->s)->now;
			v = now > v ? now : v;
		}
		d->view = v < d->view ? v : d->view;
		d->frac = 0;
	}
	for (int l = 0; l < d->nlanes; l++)
		eps_update(d->lane[l]);
	return n;
}

int dash_parse_time(const struct dash *d, const char *s, int64_t *t)
{
	size_t len = strlen(s);
	if (!len)
		return -1;
	if (s[len - 1] == '%') {
		char *w = xstrndup(s, len - 1);
		double p;
		int bad = parse_double(w, &p) || p < 0 || p > 100;
		free(w);
		if (bad)
			return -1;
		*t = d->w0 + (int64_t)llround((double)(d->w1 - d->w0) * p / 100);
		return 0;
	}
	/* digits with units, "3d12h30m", or plain seconds */
	int64_t sum = 0;
	const char *p = s;
	while (*p) {
		if (!isdigit((unsigned char)*p))
			return -1;
		int64_t v = 0;
		while (isdigit((unsigned char)*p)) {
			if (v > INT64_MAX / 10 - 10)
				return -1;
			v = v * 10 + (*p++ - '0');
		}
		int64_t unit = 1;
		switch (*p) {
		case 'd':
			unit = 86400;
			break;
		case 'h':
			unit = 3600;
			break;
		case 'm':
			unit = 60;
			break;
		case 's':
		case '\0':
			break;
		default:
			return -1;
		}
		if (*p)
			p++;
		if (v > (INT64_MAX - sum) / unit)
			return -1;
		sum += v * unit;
	}
	*t = sum;
	return 0;
}

double dash_cost(const struct dash *d, int l, double budget_s)
{
	const struct lane *L = d->lane[l];
	struct sim *c;
	int rc = sim_fork(L->s, NULL, NULL, &c, NULL);
	assert(!rc);
	(void)rc;
	double start = util_mono(), spent = 0;
	int n = 0;
	while (n < 256 && sim_step(c)) {
		n++;
		if (!(n & 15) && (spent = util_mono() - start) > budget_s)
			break;
	}
	spent = util_mono() - start;
	sim_free(c);
	if (!n)
		return -1;
	return spent / n * 2.0 * (double)L->t->js.njobs;
}

/* ---- what-if ---- */

int dash_fork(struct dash *d, const struct policy_ops *ops, const struct fault *fault,
	      struct err *e)
{
	return dash_fork_with(d, ops, fault, NULL, e);
}

/* "dims cpu,gpu, queue backfill, lambda 2" of what ch changes, appended to out. */
static void change_text(const struct sim_change *ch, char *out, size_t len)
{
	size_t n = strlen(out);
	if (ch->dims) {
		n += (size_t)snprintf(out + n, len - n, "%sdims ", n ? ", " : "");
		for (int k = 0, first = 1; k < DIM_N && n < len; k++)
			if (ch->dims & DIM_BIT(k)) {
				n += (size_t)snprintf(out + n, len - n, "%s%s", first ? "" : ",",
						      job_dim_name((enum dim)k));
				first = 0;
			}
	}
	for (int i = 0; i < SCENARIO_NPARAM; i++) {
		const struct scenario_param *p = &scenario_params[i];
		if (p->pol >= 0 && !isnan(ch->param[p->pol]) && n < len)
			n += (size_t)snprintf(out + n, len - n, "%s%s %g", n ? ", " : "", p->name,
					      ch->param[p->pol]);
	}
	if (ch->queue >= 0 && n < len)
		n += (size_t)snprintf(out + n, len - n, "%squeue %s%s", n ? ", " : "",
				      sim_queue_name((enum sim_queue)ch->queue),
				      ch->preempt > 0 ? " with preemption" : "");
}

static int fork_lane(struct dash *d, const struct policy_ops *ops, const struct fault *faults,
		     size_t nf, const struct sim_change *ch, struct err *e);

int dash_fork_with(struct dash *d, const struct policy_ops *ops, const struct fault *fault,
		   const struct sim_change *ch, struct err *e)
{
	return fork_lane(d, ops, fault, fault ? 1 : 0, ch, e);
}

int dash_fork_faults(struct dash *d, const struct fault *faults, size_t n, struct err *e)
{
	return fork_lane(d, NULL, faults, n, NULL, e);
}

static int lanes_full(const struct dash *d, struct err *e)
{
	if (d->nlanes < DASH_LANES)
		return VF_OK;
	return err_set(e, VF_EINPUT, "%d what-ifs already: drop one first", DASH_LANES - 1);
}

/* A what-if lane forked from the main one now, with nf faults added (nf may be 0). */
static int fork_lane(struct dash *d, const struct policy_ops *ops, const struct fault *faults,
		     size_t nf, const struct sim_change *ch, struct err *e)
{
	struct lane *M = d->lane[0];
	struct sim *s;
	int rc;
	if ((rc = lanes_full(d, e)) ||
	    (rc = sim_fork_with(M->s, ops, nf ? &faults[0] : NULL, ch, &s, e)))
		return rc;
	for (size_t i = 1; i < nf; i++) {
		/* one fault a fork: a fork of the fork for each more */
		struct sim *t;
		rc = sim_fork(s, NULL, &faults[i], &t, e);
		sim_free(s);
		if (rc)
			return rc;
		s = t;
	}
	int l = d->nlanes++;
	lane_start(d, l, s, &d->t, ops ? ops : M->ops);
	struct lane *L = d->lane[l];
	L->fork_time = sim_counters(s)->now;
	L->h = M->h;
	L->peak = M->peak;
	L->steps = M->steps;
	L->kf[0].steps = L->steps;
	L->kf[0].h = L->h;
	L->kf[0].peak = L->peak;
	memcpy(L->spark, M->spark, sizeof L->spark);
	L->nspark = M->nspark;
	if (nf) {
		L->fault = xmalloc(nf * sizeof *L->fault);
		memcpy(L->fault, faults, nf * sizeof *L->fault);
		L->nfault = nf;
		size_t all;
		sim_faults(s, &all);
		int64_t now = sim_counters(s)->now;
		for (size_t i = 0; i < nf; i++) {
			char buf[120];
			fault_format(&faults[i], buf, sizeof buf);
			size_t n = strlen(L->change);
			snprintf(L->change + n, sizeof L->change - n, "%s%s", i ? ", " : "fault ",
				 buf);
			/* a fault that begins now began inside sim_fork, before the lane observed
			 * it */
			if (faults[i].start <= now && now < faults[i].start + faults[i].duration)
				log_add(L, &(struct dash_event){.t = now,
								.kind = DASH_EV_FAULT,
								.begin = 1,
								.node = -1,
								.fault = (int32_t)(all - nf + i)});
		}
	}
	if (ops && ops != M->ops)
		snprintf(L->change + strlen(L->change), sizeof L->change - strlen(L->change),
			 "%spolicy %s", L->change[0] ? ", " : "", ops->name);
	if (ch) {
		L->ch = *ch;
		change_text(ch, L->change, sizeof L->change);
	}
	if (!L->change[0])
		snprintf(L->change, sizeof L->change, "policy %s", L->ops->name);
	return VF_OK;
}

/* A second lane from the start on trace t (owned when own), then to the view. */
static int lane_fresh(struct dash *d, struct replay_trace *own, const struct replay_trace *t,
		      const struct scenario *sc, const struct policy_ops *ops, struct err *e)
{
	struct sim *s;
	int rc = lanes_full(d, e);
	if (!rc)
		rc = replay_new(t, sc, ops, &s, e);
	if (rc) {
		if (own) {
			replay_trace_release(own);
			free(own);
		}
		return rc;
	}
	int l = d->nlanes++;
	lane_start(d, l, s, t, ops);
	d->lane[l]->own = own;
	if (lanes_move(d, l, l + 1, d->view)) {
		dash_drop_lane(d, l);
		return DASH_CANCELLED;
	}
	return VF_OK;
}

int dash_fork_io(struct dash *d, double x, struct err *e)
{
	if (!(x >= 0 && x <= SCENARIO_IO_MAX))
		return err_set(e, VF_EINPUT, "io-pressure '%g': not in 0..%g", x, SCENARIO_IO_MAX);
	struct scenario sc = *d->sc; /* shallow: only io_pressure differs */
	sc.io_pressure = x;
	struct replay_trace *t = xcalloc(1, sizeof *t);
	replay_prepare(t, &d->sc->base, &sc, d->seed);
	int rc = lane_fresh(d, t, t, &sc, d->lane[0]->ops, e);
	if (!rc) {
		struct lane *L = d->lane[d->nlanes - 1];
		L->io = x;
		snprintf(L->change, sizeof L->change, "io-pressure %g", x);
	}
	return rc;
}

int dash_compare(struct dash *d, const struct policy_ops *ops, struct err *e)
{
	int rc = lane_fresh(d, NULL, &d->t, d->sc, ops, e);
	if (!rc)
		snprintf(d->lane[d->nlanes - 1]->change, sizeof d->lane[0]->change, "policy %s",
			 ops->name);
	return rc;
}

void dash_drop_lane(struct dash *d, int l)
{
	assert(l >= 1 && l < d->nlanes);
	struct lane *L = d->lane[l];
	lane_release(L);
	for (int k = l; k + 1 < d->nlanes; k++) {
		d->lane[k] = d->lane[k + 1];
		d->lane[k]->idx = k;
	}
	d->lane[--d->nlanes] = L; /* released: ready for the next what-if */
}

void dash_drop(struct dash *d)
{
	while (d->nlanes > 1)
		dash_drop_lane(d, d->nlanes - 1);
}

int dash_stored(const struct dash *d, int l)
{
	assert(l >= 0 && l < d->nlanes);
	return d->lane[l]->stored;
}

void dash_set_stored(struct dash *d, int l)
{
	assert(l >= 0 && l < d->nlanes);
	d->lane[l]->stored = 1;
}

void dash_lane_scenario(const struct dash *d, int l, struct scenario *out, struct fault **faults)
{
	const struct lane *L = d->lane[l];
	*out = *d->sc;
	out->io_pressure = L->io;
	if (l > 0 && L->ch.dims)
		out->dims = L->ch.dims;
	for (int i = 0; l > 0 && i < POLICY_NPARAM; i++)
		if (!isnan(L->ch.param[i]))
			out->param[i] = L->ch.param[i];
	if (l > 0 && L->ch.queue >= 0)
		out->queue = (enum sim_queue)L->ch.queue;
	if (l > 0 && L->ch.preempt >= 0)
		out->preempt = L->ch.preempt;
	*faults = NULL;
	if (L->nfault) {
		*faults = xmalloc((d->sc->nfaults + L->nfault) * sizeof **faults);
		if (d->sc->nfaults)
			memcpy(*faults, d->sc->faults, d->sc->nfaults * sizeof **faults);
		memcpy(*faults + d->sc->nfaults, L->fault, L->nfault * sizeof **faults);
		out->faults = *faults;
		out->nfaults = out->faultcap = d->sc->nfaults + L->nfault;
	}
}

void dash_result(const struct dash *d, int l, struct replay_result *r)
{
	const struct lane *L = d->lane[l];
	struct sim *s;
	int rc = sim_fork(L->s, NULL, NULL, &s, NULL);
	assert(!rc);
	(void)rc;
	double t_start = util_mono();
	sim_run(s);
	memset(r, 0, sizeof *r);
	sbuf_init(&r->jobs);
	r->policy = L->ops;
	r->seed = d->seed;
	r->mode = d->sc->mode;
	r->dims = d->sc->dims ? d->sc->dims : L->ops->dims;
	r->unalloc_at_100 = NAN;
	metrics_compute(s, &d->sc->prices, &r->m);
	r->wall_s = util_mono() - t_start;
	r->events = sim_counters(s)->events;
	r->placed = sim_counters(s)->placed;
	size_t nf;
	sim_faults(s, &nf);
	r->nfaults = nf;
	r->fault_jobs = xcalloc(nf ? nf : 1, sizeof *r->fault_jobs);
	for (size_t i = 0; i < nf; i++)
		r->fault_jobs[i] = sim_fault_jobs(s, i);
	sim_free(s);
}

/* ---- the panels ---- */

void dash_ticker(const struct dash *d, int l, struct dash_ticker *t)
{
	const struct lane *L = d->lane[l];
	const struct sim_counters *k = sim_counters(L->s);
	struct sim_bucket_ms ms;
	struct metrics_cost cost;
	struct sim_now n;
	int over = sim_done(L->s);

	memset(t, 0, sizeof *t);
	sim_now(L->s, &n);
	t->now = k->now;
	t->t0 = k->t0;
	t->w0 = k->w0;
	t->w1 = k->w1;
	int64_t to = over ? k->w1 : k->now < k->w0 ? k->w0 : k->now > k->w1 ? k->w1 : k->now;
	double hours = (double)(to - k->w0) / 3600;
	t->window_share = k->w1 > k->w0 ? (double)(to - k->w0) / (double)(k->w1 - k->w0) : 1;
	t->frag = n.gpu_cap > 0 ? n.frag / (double)n.gpu_cap : 0;
	t->frag_peak = L->peak > t->frag ? L->peak : t->frag;
	t->gpus = (double)n.gpu_cap / 1000;
	t->gpu_alloc = (double)n.alloc / 1000;
	t->gpu_stalled = n.stalled / 1000;
	double idle = (double)(n.gpu_cap - n.alloc) / 1000;
	t->idle_cause = n.idle_cause;
	if (n.idle_cause == SIM_B_UNNEEDED)
		t->gpu_unneeded = idle;
	else
		t->gpu_blocked = idle;

	sim_buckets(k, over, &ms);
	metrics_cost(&ms, &d->sc->prices, -1, -1, hours, &cost);
	memcpy(t->usd, cost.usd, sizeof t->usd);
	memcpy(t->usd_year, cost.usd_year, sizeof t->usd_year);
	for (int b = 0; b < SIM_NBUCKET; b++) {
		if (b == SIM_B_PRODUCTIVE)
			t->usd_productive += t->usd[b];
		else
			t->usd_wasted += t->usd[b];
	}
	t->usd_year_placement = cost.usd_year_placement;
	t->usd_year_sizing = cost.usd_year_sizing;
	t->queued = n.queued;
	t->running = n.running;
	t->finished = k->finished;
	t->unplaceable = k->unplaceable;
	t->preemptions = k->preemptions;
	t->events = k->events;
	t->wait_p95 = hist_quantile(&L->h, 0.95);
	t->events_per_s = L->eps;
	t->over = over;
}

/* Is fault f of s active now and on node n? */
static int fault_on(const struct sim *s, const struct fault *f, size_t n)
{
	const struct node *sp = &sim_cluster(s)->spec[n];
	int64_t now = sim_counters(s)->now;
	if (now < f->start || now >= f->start + f->duration)
		return 0;
	int model = gpumodel_find(f->target);
	return !strcmp(sp->name, f->target) || (sp->group[0] && !strcmp(sp->group, f->target)) ||
	       (model >= 0 && sp->model == model && sp->ngpu > 0);
}

static int node_faults(const struct sim *s, size_t n)
{
	size_t nf;
	sim_faults(s, &nf);
	int k = 0;
	for (size_t i = 0; i < nf; i++)
		k += fault_on(s, sim_fault(s, i), n);
	return k;
}

/* Node n of s added into out (a row of one or more nodes). */
static void node_add(const struct sim *s, size_t n, struct dash_node *out, double wsum[DIM_N])
{
	const struct cluster *c = sim_cluster(s);
	const struct node_state *st = &c->st[n];
	const struct node *sp = &c->spec[n];
	const int64_t(*str)[DIM_N] = sim_node_stranded(s);
	uint8_t cell[CLUSTER_MAX_GPUS];

	for (int d = 0; d < DIM_N; d++) {
		if (st->cap[d] <= 0)
			continue;
		int64_t fr = st->cap[d] - st->used[d];
		out->free[d] += fr > 0 ? (double)fr / (double)st->cap[d] : 0;
		wsum[d] += 1;
		if (str[n][d] > 0)
			out->stranded |= DIM_BIT(d);
	}
	int anystr = 0;
	for (int d = 0; d < DIM_N; d++)
		anystr |= str[n][d] > 0;
	out->nstranded += anystr;
	int ng = sp->ngpu < CLUSTER_MAX_GPUS ? sp->ngpu : CLUSTER_MAX_GPUS, nfree = 0;
	for (int g = 0; g < ng; g++) {
		int32_t f = st->gpu_free[g];
		cell[g] = f >= 1000 ? DASH_CELL_FREE : f <= 0 ? DASH_CELL_FULL : DASH_CELL_PART;
		nfree += f > 0;
	}
	/* a job at rate < 1 can only be on a node whose shared dims are oversubscribed */
	int contended = 0;
	for (int d = DIM_NET; d <= DIM_IOCPU; d++)
		contended |= st->used[d] > st->cap[d];
	if (contended && ng) {
		struct sim_job_result r;
		for (int32_t i = 0; i < st->njobs; i++) {
			sim_job_result(s, (size_t)st->jobs[i], &r);
			if (r.rate < 1)
				for (int g = 0; g < ng; g++)
					if ((r.gpus >> g) & 1)
						cell[g] = DASH_CELL_STALLED;
		}
	}
	for (int g = 0; g < ng; g++)
		out->cells[cell[g]]++;
	if (out->nnodes == 0)
		memcpy(out->cell, cell, (size_t)ng);
	out->ngpu += ng;
	out->full += ng > 0 && nfree == 0;
	out->faults += node_faults(s, n);
	out->njobs += st->njobs;
	out->frag += sim_node_frag(s)[n];
	if (out->nnodes == 0)
		out->model = ng ? sp->model : -1;
	else if (out->model != (ng ? sp->model : -1))
		out->model = -1;
	out->nnodes++;
}

void dash_group(const struct dash *d, int l, const int32_t *order, size_t n, struct dash_node *out)
{
	const struct sim *s = d->lane[l]->s;
	const struct cluster *c = sim_cluster(s);
	double wsum[DIM_N] = {0};
	assert(n >= 1);
	memset(out, 0, sizeof *out);
	for (size_t i = 0; i < n; i++)
		node_add(s, (size_t)order[i], out, wsum);
	for (int k = 0; k < DIM_N; k++)
		out->free[k] = wsum[k] > 0 ? out->free[k] / wsum[k] : -1;
	out->frag = out->ngpu ? out->frag / (out->ngpu * 1000.0) : 0;
	if (n == 1)
		snprintf(out->name, sizeof out->name, "%s", c->spec[order[0]].name);
	else
		snprintf(out->name, sizeof out->name, "%.28s..%.28s", c->spec[order[0]].name,
			 c->spec[order[n - 1]].name);
}

void dash_node(const struct dash *d, int l, size_t n, struct dash_node *out)
{
	int32_t one = (int32_t)n;
	dash_group(d, l, &one, 1, out);
}

void dash_detail(const struct dash *d, int l, size_t n, struct dash_detail *out)
{
	const struct sim *s = d->lane[l]->s;
	const struct cluster *c = sim_cluster(s);
	const struct node_state *st = &c->st[n];
	const struct node *sp = &c->spec[n];
	struct dash_node dn;
	memset(out, 0, sizeof *out);
	snprintf(out->name, sizeof out->name, "%s", sp->name);
	out->ngpu = sp->ngpu < CLUSTER_MAX_GPUS ? sp->ngpu : CLUSTER_MAX_GPUS;
	out->model = out->ngpu ? sp->model : -1;
	memcpy(out->cap, st->cap, sizeof out->cap);
	memcpy(out->spec, sp->cap, sizeof out->spec);
	memcpy(out->used, st->used, sizeof out->used);
	for (int g = 0; g < out->ngpu; g++)
		out->gpu_used[g] = (1000 - st->gpu_free[g]) / 1000.0;
	dash_node(d, l, n, &dn);
	memcpy(out->cell, dn.cell, sizeof out->cell);
	out->faults = dn.faults;
	out->njobs = st->njobs;
	for (int32_t i = 0; i < st->njobs; i++) {
		struct sim_job_result r;
		sim_job_result(s, (size_t)st->jobs[i], &r);
		if (r.cls < JOB_NCLASS)
			out->jobs_by_class[r.cls]++;
		out->slowed += r.rate < 1;
	}
	size_t nf;
	sim_faults(s, &nf);
	int64_t now = sim_counters(s)->now;
	for (size_t i = 0; i < nf; i++) {
		const struct fault *ft = sim_fault(s, i);
		if (strcmp(ft->target, sp->name) &&
		    (!sp->group[0] || strcmp(ft->target, sp->group)) &&
		    !(sp->ngpu && gpumodel_find(ft->target) == sp->model))
			continue;
		if (out->nfault < DASH_DETAIL_FAULTS) {
			char fb[120];
			fault_format(ft, fb, sizeof fb);
			snprintf(out->fault[out->nfault], sizeof out->fault[0], "%s%s", fb,
				 now >= ft->start && now < ft->start + ft->duration ? " (active)"
										    : "");
		}
		out->nfault++;
	}
	const double *f = sim_node_frag(s);
	double all = 0;
	for (size_t k = 0; k < c->n; k++)
		all += f[k];
	out->frag = f[n] / 1000;
	out->frag_share = all > 0 ? f[n] / all : 0;
}

void dash_detail_job(const struct dash *d, int l, size_t n, int i, struct sim_job_result *r)
{
	const struct sim *s = d->lane[l]->s;
	const struct node_state *st = &sim_cluster(s)->st[n];
	assert(i >= 0 && i < st->njobs);
	sim_job_result(s, (size_t)st->jobs[i], r);
}

void dash_dim_text(enum dim k, double v, char *buf, size_t len)
{
	double x = v;
	const char *unit = "MB/s";
	switch (k) {
	case DIM_CPU:
	case DIM_IOCPU:
		x = v / 1000, unit = "cores";
		break;
	case DIM_MEM:
	case DIM_HBM:
		x = v / 1024, unit = "GiB";
		break;
	case DIM_GPU:
		x = v / 1000, unit = "GPU";
		break;
	default:
		break;
	}
	/* whole numbers in full ("12500 MB/s", not "1.25e+04") */
	if (fabs(x) >= 1000 || x == floor(x))
		snprintf(buf, len, "%.0f %s", x, unit);
	else
		snprintf(buf, len, "%.3g %s", x, unit);
}

size_t dash_busiest(const struct dash *d, int l, enum dim k, size_t n, int32_t *out)
{
	const struct cluster *c = sim_cluster(d->lane[l]->s);
	size_t m = 0;
	/* n is small: keep the best n so far, by insertion */
	for (size_t i = 0; i < c->n; i++) {
		if (c->spec[i].ngpu <= 0 || c->st[i].cap[k] <= 0)
			continue;
		double v = (double)c->st[i].used[k] / (double)c->st[i].cap[k];
		size_t j = m < n ? m++ : n;
		while (j > 0) {
			const struct node_state *p = &c->st[out[j - 1]];
			if ((double)p->used[k] / (double)p->cap[k] >= v)
				break;
			if (j < n)
				out[j] = out[j - 1];
			j--;
		}
		if (j < n)
			out[j] = (int32_t)i;
	}
	return m;
}

int dash_story_raid(struct dash *d, char *names, size_t len, struct err *e)
{
	int32_t top[DASH_RAID_NODES];
	size_t n = dash_busiest(d, 0, DIM_STO, DASH_RAID_NODES, top);
	struct fault f[DASH_RAID_NODES];
	const struct cluster *c = sim_cluster(d->lane[0]->s);
	if (!n)
		return err_set(e, VF_EINPUT,
			       "story 'raid': no GPU node of this trace has storage bandwidth");
	names[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		memset(&f[i], 0, sizeof f[i]);
		snprintf(f[i].target, sizeof f[i].target, "%s", c->spec[top[i]].name);
		f[i].dim = DIM_STO;
		f[i].fraction = DASH_RAID_FRACTION;
		f[i].start = sim_counters(d->lane[0]->s)->now;
		f[i].duration = DASH_RAID_SECONDS;
		size_t k = strlen(names);
		snprintf(names + k, len - k, "%s%s", i ? "," : "", f[i].target);
	}
	int rc = dash_fork_faults(d, f, n, e);
	if (!rc)
		snprintf(d->lane[d->nlanes - 1]->change, sizeof d->lane[0]->change,
			 "RAID rebuild on %s: sto=%g for %gh", names, DASH_RAID_FRACTION,
			 DASH_RAID_SECONDS / 3600.0);
	return rc;
}

/* ---- the cluster panel's rows ---- */

static int row_model(const struct cluster *c, int32_t n)
{
	return c->spec[n].ngpu ? c->spec[n].model : -1;
}

/* Rows of at most per nodes of one model over r->order: their count, and their starts when
 * fill. */
static size_t rows_cut(const struct cluster *c, struct dash_rows *r, size_t per, int fill)
{
	size_t n = 0;
	for (size_t i = 0; i < r->norder;) {
		size_t j = i + 1;
		int m = row_model(c, r->order[i]);
		while (j < r->norder && j - i < per && row_model(c, r->order[j]) == m)
			j++;
		if (fill)
			r->start[n] = i;
		n++;
		i = j;
	}
	return n;
}

void dash_rows(const struct dash *d, const char *filter, enum dash_sort sort, int per, int rows,
	       struct dash_rows *r)
{
	const struct cluster *c = sim_cluster(d->lane[0]->s);
	xgrow(&r->order, &r->ordercap, c->n ? c->n : 1, sizeof *r->order);
	r->norder = dash_order(d, 0, filter, sort, r->order);
	size_t p = per > 0 ? (size_t)per : 1;
	if (per <= 0 && rows > 0) /* the fewest nodes a row that fit, each model a row of its own */
		for (p = (r->norder + (size_t)rows - 1) / (size_t)rows; p < r->norder; p++)
			if (rows_cut(c, r, p ? p : 1, 0) <= (size_t)rows)
				break;
	if (p < 1)
		p = 1;
	xgrow(&r->start, &r->startcap, r->norder + 2, sizeof *r->start);
	r->nrows = rows_cut(c, r, p, 1);
	r->start[r->nrows] = r->norder;
}

void dash_rows_release(struct dash_rows *r)
{
	FREE_ALL(r->order, r->start);
	memset(r, 0, sizeof *r);
}

int dash_row_name(const struct dash *d, const struct dash_rows *r, size_t i, char *buf, size_t len)
{
	const struct cluster *c = sim_cluster(d->lane[0]->s);
	size_t a = r->start[i], n = r->start[i + 1] - a;
	int m = row_model(c, r->order[a]);
	for (size_t q = a + 1; q < a + n; q++)
		if (row_model(c, r->order[q]) != m)
			m = -2;
	if (n == 1)
		snprintf(buf, len, "%s", c->spec[r->order[a]].name);
	else
		snprintf(buf, len, "%s..%s", c->spec[r->order[a]].name,
			 c->spec[r->order[a + n - 1]].name);
	return m;
}

const char *dash_node_name(const struct dash *d, size_t n)
{
	return sim_cluster(d->lane[0]->s)->spec[n].name;
}

const char *dash_policy(const struct dash *d, int l)
{
	assert(l >= 0 && l < d->nlanes);
	return d->lane[l]->ops->name;
}

int64_t dash_events(const struct dash *d, int l)
{
	assert(l >= 0 && l < d->nlanes);
	return sim_counters(d->lane[l]->s)->events;
}

/* ---- ':' commands ---- */

int dash_fork_node_fault(struct dash *d, const char *node, const char *spec, struct err *e)
{
	char buf[256], dimfrac[64], dur[32];
	struct fault f;
	int rc;
	if (sscanf(spec, "%63s %31s", dimfrac, dur) != 2)
		return err_set(e, VF_EINPUT,
			       "fault '%s': give DIM=FRACTION DURATION or down DURATION", spec);
	snprintf(buf, sizeof buf, "%s:%s@%" PRId64 "+%s", node, dimfrac,
		 sim_counters(d->lane[0]->s)->now, dur);
	if ((rc = fault_parse(buf, &f, e)))
		return rc;
	return dash_fork(d, NULL, &f, e);
}

/* The scenario row of policy parameter name ("lambda"), or NULL. */
static const struct scenario_param *policy_param_row(const char *name)
{
	const struct scenario_param *p = scenario_param_find(name);
	return p && p->pol >= 0 ? p : NULL;
}

/* dims, queue, a policy parameter (lambda, mu, ...): a what-if that changes the scenario's
 * options from now. */
static int command_change(struct dash *d, const char *w1, const char *w2, const char *rest, int n,
			  struct err *e)
{
	struct sim_change ch;
	double x = 0;
	enum sim_queue q = SIM_FIFO;
	int bad = 0;
	sim_change_init(&ch);
	if (!strcmp(w1, "dims"))
		bad = job_dims_parse(w2, &ch.dims) || !ch.dims;
	else if (!strcmp(w1, "queue")) {
		bad = sim_queue_parse(w2, &q);
		ch.queue = (int)q;
		ch.preempt = n >= 3 && !strcmp(rest, "preempt");
	} else {
		const struct scenario_param *p = policy_param_row(w1);
		bad = parse_double(w2, &x) || !isfinite(x) || x < p->lo ||
		      (p->hi > p->lo && x > p->hi);
		ch.param[p->pol] = x;
	}
	if (bad)
		return err_set(e, VF_EINPUT, "%s '%s': not a value for it", w1, w2);
	return dash_fork_with(d, NULL, NULL, &ch, e);
}

enum dash_cmd dash_command(struct dash *d, const char *line, struct dash_cmd_arg *a, struct err *e)
{
	char w1[64] = "", w2[64] = "", rest[128] = "";
	int n = sscanf(line, "%63s %63s %127[^\n]", w1, w2, rest);
	memset(a, 0, sizeof *a);
	if (n < 1)
		return DASH_CMD_NONE;
	if ((!strcmp(w1, "policy") || !strcmp(w1, "compare")) && n >= 2) {
		if (!(a->ops = policy_find(w2))) {
			err_set(e, VF_EINPUT, "policy '%s': no such policy (see voidfit policies)",
				w2);
			return DASH_CMD_ERROR;
		}
		if (!strcmp(w1, "compare"))
			return DASH_CMD_COMPARE;
		return dash_fork(d, a->ops, NULL, e) ? DASH_CMD_ERROR : DASH_CMD_FORKED;
	}
	if (!strcmp(w1, "fault") && n >= 3)
		return dash_fork_node_fault(d, w2, rest, e) ? DASH_CMD_ERROR : DASH_CMD_FORKED;
	if (!strcmp(w1, "goto") && n >= 2) {
		if (!dash_parse_time(d, w2, &a->t))
			return DASH_CMD_GOTO;
		err_set(e, VF_EINPUT, "goto '%s': not a time (3d12h, 90m, 50%%)", w2);
		return DASH_CMD_ERROR;
	}
	if (!strcmp(w1, "io") && n >= 2) {
		if (!parse_double(w2, &a->x))
			return DASH_CMD_IO;
		err_set(e, VF_EINPUT, "io '%s': not a number", w2);
		return DASH_CMD_ERROR;
	}
	if ((!strcmp(w1, "dims") || !strcmp(w1, "queue") || policy_param_row(w1)) && n >= 2)
		return command_change(d, w1, w2, rest, n, e) ? DASH_CMD_ERROR : DASH_CMD_FORKED;
	if (!strcmp(w1, "drop"))
		return DASH_CMD_DROP;
	if (!strcmp(w1, "store"))
		return DASH_CMD_STORE;
	if (!strcmp(w1, "quit") || !strcmp(w1, "q"))
		return DASH_CMD_QUIT;
	err_set(e, VF_EINPUT,
		"'%s': not a command (policy P, compare P, fault NODE DIM=F DUR, goto T, io X, "
		"dims D, lambda L, mu M, fgd-pack-tol T, fgd-pack-reserve W, queue Q [preempt], "
		"drop, store, quit)",
		line);
	return DASH_CMD_ERROR;
}

/* strstr without case. */
static int contains_nocase(const char *h, const char *n)
{
	size_t ln = strlen(n);
	for (; *h; h++) {
		size_t i = 0;
		while (i < ln && h[i] &&
		       tolower((unsigned char)h[i]) == tolower((unsigned char)n[i]))
			i++;
		if (i == ln)
			return 1;
	}
	return ln == 0;
}

/* A node's name or GPU model contains filter, or one of its comma-separated parts. */
static int matches(const struct node *sp, int ng, const char *filter)
{
	char part[128];
	for (const char *p = filter; *p;) {
		size_t n = strcspn(p, ",");
		snprintf(part, sizeof part, "%.*s", (int)(n < sizeof part ? n : sizeof part - 1),
			 p);
		if (part[0] && (contains_nocase(sp->name, part) ||
				(ng && contains_nocase(gpumodel_get(sp->model)->name, part))))
			return 1;
		p += n + (p[n] == ',');
	}
	return 0;
}

struct okey {
	int model;
	double key;
	int32_t n;
};

static int okey_cmp(const void *a, const void *b)
{
	const struct okey *x = a, *y = b;
	if (x->model != y->model)
		return x->model < y->model ? -1 : 1;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return (x->n > y->n) - (x->n < y->n);
}

size_t dash_order(const struct dash *d, int l, const char *filter, enum dash_sort sort,
		  int32_t *out)
{
	const struct sim *s = d->lane[l]->s;
	const struct cluster *c = sim_cluster(s);
	const int64_t(*str)[DIM_N] = sim_node_stranded(s);
	struct okey *k = xmalloc((c->n ? c->n : 1) * sizeof *k);
	size_t m = 0;
	int want_fault = filter && !strcmp(filter, "faulted");
	int want_str = filter && !strcmp(filter, "stranded");
	int want_full = filter && !strcmp(filter, "full");
	for (size_t n = 0; n < c->n; n++) {
		const struct node *sp = &c->spec[n];
		const struct node_state *st = &c->st[n];
		int ng = sp->ngpu < CLUSTER_MAX_GPUS ? sp->ngpu : CLUSTER_MAX_GPUS;
		int nfree = 0;
		for (int g = 0; g < ng; g++)
			nfree += st->gpu_free[g] > 0;
		if (want_fault && !node_faults(s, n))
			continue;
		if (want_str) {
			int any = 0;
			for (int dd = 0; dd < DIM_N; dd++)
				any |= str[n][dd] > 0;
			if (!any)
				continue;
		}
		if (want_full && !(ng > 0 && nfree == 0))
			continue;
		if (filter && filter[0] && !want_fault && !want_str && !want_full &&
		    !matches(sp, ng, filter))
			continue;
		double key = 0;
		switch (sort) {
		case DASH_SORT_NAME:
			key = 0; /* node order, the trace's */
			break;
		case DASH_SORT_FRAG:
			key = -(ng ? sim_node_frag(s)[n] / (ng * 1000.0) : 0);
			break;
		case DASH_SORT_FREE:
			key = -(double)nfree;
			break;
		case DASH_SORT_STALLED: {
			struct dash_node dn;
			dash_node(d, l, n, &dn);
			key = -(double)dn.cells[DASH_CELL_STALLED];
			break;
		}
		default:
			assert(!"unknown sort");
		}
		k[m++] = (struct okey){ng ? sp->model : -1, key, (int32_t)n};
	}
	qsort(k, m, sizeof *k, okey_cmp);
	for (size_t i = 0; i < m; i++)
		out[i] = k[i].n;
	free(k);
	return m;
}

size_t dash_spark(const struct dash *d, int l, double *out)
{
	const struct lane *L = d->lane[l];
	for (size_t i = 0; i < DASH_SPARK_N; i++)
		out[i] = i < L->nspark ? L->spark[i] : -1;
	return L->nspark;
}

int dash_log(const struct dash *d, int l, size_t i, struct dash_event *ev)
{
	const struct lane *L = d->lane[l];
	if (i >= L->nlog)
		return 0;
	*ev = L->log[(L->loghead + DASH_LOG_MAX - 1 - i) % DASH_LOG_MAX];
	return 1;
}

void dash_time_text(const struct dash *d, int64_t t, char *buf, size_t len)
{
	(void)d;
	fmt_duration((double)t, FMT_DUR_CLOCK, buf, len);
}

/* A gang's start: one line naming its workers and their nodes ("n3 x2" for two on n3,
 * "+56" for the workers past the first DASH_EV_NODES). */
static void gang_text(const struct dash *d, int l, const struct dash_event *ev, const char *tb,
		      const struct sim_job_result *r, const struct job *j, char *buf, size_t len)
{
	const struct cluster *c = sim_cluster(d->lane[l]->s);
	int n = snprintf(buf, len, "%s place gang job %" PRId64 " (%s, %d workers x %.3g GPU) on",
			 tb, r->job_id, job_class_name((enum job_class)j->cls), (int)ev->workers,
			 (double)j->num_gpu * j->gpu_milli / 1000);
	int kept = ev->workers < DASH_EV_NODES ? ev->workers : DASH_EV_NODES;
	for (int w = 0; w < kept && n > 0 && (size_t)n < len;) {
		int32_t nd = ev->wnode[w];
		int same = 1;
		while (w + same < kept && ev->wnode[w + same] == nd)
			same++;
		const char *name = nd >= 0 && (size_t)nd < c->n ? c->spec[nd].name : "?";
		if (same > 1)
			n += snprintf(buf + n, len - (size_t)n, " %s x%d", name, same);
		else
			n += snprintf(buf + n, len - (size_t)n, " %s", name);
		w += same;
	}
	if (ev->workers > kept && n > 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, " +%d", (int)(ev->workers - kept));
}

void dash_event_text(const struct dash *d, int l, const struct dash_event *ev, char *buf,
		     size_t len)
{
	const struct sim *s = d->lane[l]->s;
	const struct cluster *c = sim_cluster(s);
	char tb[32];
	struct sim_job_result r = {0};
	dash_time_text(d, ev->t, tb, sizeof tb);
	if (ev->kind != DASH_EV_FAULT)
		sim_job_result(s, (size_t)ev->job, &r);
	const struct job *j = ev->kind != DASH_EV_FAULT ? &sim_jobs(s)->jobs[r.src] : NULL;
	const char *node = ev->node >= 0 && (size_t)ev->node < c->n ? c->spec[ev->node].name : "?";
	switch (ev->kind) {
	case DASH_EV_PLACE:
		if (ev->workers > 1) {
			gang_text(d, l, ev, tb, &r, j, buf, len);
			break;
		}
		snprintf(buf, len, "%s place job %" PRId64 " (%s, %.3g GPU) on %s", tb, r.job_id,
			 job_class_name((enum job_class)j->cls),
			 (double)j->num_gpu * j->gpu_milli / 1000, node);
		break;
	case DASH_EV_PREEMPT: {
		struct sim_job_result b;
		if (ev->by < 0) { /* its node failed */
			snprintf(buf, len, "%s kill job %" PRId64 " on %s (node down)", tb,
				 r.job_id, node);
			break;
		}
		sim_job_result(s, (size_t)ev->by, &b);
		snprintf(buf, len, "%s preempt job %" PRId64 " on %s for job %" PRId64, tb,
			 r.job_id, node, b.job_id);
		break;
	}
	case DASH_EV_UNPLACEABLE:
		snprintf(buf, len, "%s unplaceable job %" PRId64 " (%s)", tb, r.job_id,
			 sim_why_name((enum sim_why)r.why));
		break;
	case DASH_EV_FAULT: {
		size_t nf;
		sim_faults(s, &nf);
		char fb[160] = "?";
		if ((size_t)ev->fault < nf)
			fault_format(sim_fault(s, (size_t)ev->fault), fb, sizeof fb);
		snprintf(buf, len, "%s fault %s %s", tb, ev->begin ? "begins" : "ends", fb);
		break;
	}
	default:
		snprintf(buf, len, "%s ?", tb);
	}
}
