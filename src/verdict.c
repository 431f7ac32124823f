/*
 * verdict.c — the two answers and the sentence (verdict.h).
 *
 *   the SLO      --slo, or the baseline on the full cluster at every seed (size_full_runs):
 *                wait_p95 <= its worst p95 (timed), unplaceable_jobs <= its most; the
 *                first answer's search takes those runs (size_opts.known), as it takes the
 *                caller's (verdict_opts.full_runs, a stored replay's) on the trace itself
 *   fewer GPUs   size_run for the baseline and every candidate at that SLO, in one search
 *                (the runs of all policies share its threads); answer = the baseline's
 *                smallest cluster minus the policy's, group by group
 *   headroom     per policy a bisection over growth steps 0..K (K = cap / step): lo meets
 *                (step 0 is the full cluster of the first answer), hi misses (K + 1 before
 *                any probe); one round probes every active policy's next step on threads;
 *                it starts where the policy's first answer points and gallops from there;
 *                a growth found stands once the two steps below it meet too (headroom)
 *   buy          for each growth a candidate absorbs beyond the baseline's, size_run of the
 *                baseline on the grown trace and a cluster of GPU nodes replicated
 *                (2 + floor(g) times), so that the search can find a cluster larger than
 *                today's; answer = its smallest cluster minus today's, group by group;
 *                a resample's starts at S k_b / k_p, from the smallest clusters (answer)
 *
 * Only the trace's own smallest clusters and purchases are checked a few steps above
 * (SIZE_ABOVE, so that a size that is a boundary, not a margin, is said): the resamples
 * read only the sizes, and the check was two of their five or six probes.
 *
 * A resample's sizes (its smallest clusters and its purchases) are found to within
 * 1 / RESAMPLE_TOL of the plan's steps (size_opts.tol): the last probes of a bisection over
 * a thousand steps narrow a bracket far finer than the resamples' spread, which on a
 * 2,000-node trace is hundreds of GPUs. A smallest cluster is the bracket's top, the
 * smallest known to meet the SLO, and a purchase its bottom, the step above the largest
 * known to miss, so that both a resample's saving and what the baseline must buy err low,
 * by at most that much. The trace's own answers are to the step (the two ends meet).
 *
 * A memo (verdict_opts.memo) holds the runs of the trace's own searches, each under its
 * search, growth, policy, step and seed (struct verdict_memo_entry): every search of the
 * trace hands it to size.h as size_opts.memo (memo_of), so that a verdict asked again under
 * the same verdict_memo_key judges them instead of replaying them, every answer and count
 * the same; the resamples' searches never see it. A run asked for twice in one verdict (a
 * step the check above a size runs that the bisection had run) is then replayed once. A
 * memo read back (verdict_memo.complete) holds every run the searches need, so that on
 * more threads than made it, a run a round would make ahead of need is not made.
 *
 * Headroom holds the SLO's terms but not its unplaceable one: an unplaceable job fits no
 * node even empty, so load does not make more of them, while growth copies some.
 *
 * Inflation (--mode inflate) has no time and draws until target x a GPU capacity is asked:
 * every size draws today's demand (size_opts.inflate_gpus), so that a smaller cluster is
 * asked what today's serves, and a draw that fits nowhere then fails, counted unplaceable.
 * The default SLO is then the baseline's failed draws on today's cluster (added to an --slo
 * that does not bound them, since size's own rule is off: see own_unplaceable), and headroom
 * keeps it as a share of the draws: growth g draws (1 + g) times today's demand from the
 * same trace (its jobs are not copied) on today's cluster, with 1 + g times as many draws
 * allowed to fail (demand_at), and the baseline's purchase is sized at that demand.
 */
#include <assert.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmt.h"
#include "replay.h"
#include "resample.h"
#include "rng.h"
#include "runrec.h"
#include "verdict.h"

/* ---- the grown trace ---- */

static int cmp_job(const void *a, const void *b)
{
	const struct job *x = a, *y = b;
	if (x->arrival != y->arrival)
		return x->arrival < y->arrival ? -1 : 1;
	return (x->id > y->id) - (x->id < y->id);
}

void verdict_grow(const struct job_set *base, double g, uint64_t seed, struct job_set *out)
{
	size_t nrun = 0, m = 0, k = 0, i = 0;
	int64_t a0 = INT64_MAX, a1 = INT64_MIN, maxid = -1;
	size_t *ran = xcalloc(base->njobs ? base->njobs : 1, sizeof *ran);
	assert(g >= 0);
	memset(out, 0, sizeof *out);
	for (size_t j = 0; j < base->njobs; j++) {
		const struct job *b = &base->jobs[j];
		a0 = b->arrival < a0 ? b->arrival : a0;
		a1 = b->arrival > a1 ? b->arrival : a1;
		maxid = b->id > maxid ? b->id : maxid;
		if (b->duration >= 0)
			ran[nrun++] = j;
	}
	if (nrun)
		m = (size_t)llround(g * (double)nrun);
	struct job *extra = xcalloc(m ? m : 1, sizeof *extra);
	struct rng r;
	rng_seed(&r, rng_hash(seed, 0x67726f77, 0)); /* "grow": its own stream */
	for (k = 0; k < m; k++) {
		/* two draws per job, in this order, whatever m: a larger g extends the sequence */
		extra[k] = base->jobs[ran[rng_below(&r, nrun)]];
		extra[k].arrival = a0 + (int64_t)rng_below(&r, (uint64_t)(a1 - a0) + 1);
		extra[k].id = maxid + 1 + (int64_t)k;
	}
	qsort(extra, m, sizeof *extra, cmp_job);
	job_set_reserve(out, base->njobs + m);
	for (k = 0; i < base->njobs || k < m;) /* a merge: trace jobs first at equal times */
		if (k == m || (i < base->njobs && base->jobs[i].arrival <= extra[k].arrival))
			job_set_add_job(out, &base->jobs[i++]);
		else
			job_set_add_job(out, &extra[k++]);
	for (size_t n = 0; n < base->nnodes; n++)
		job_set_add_node(out, &base->nodes[n]);
	free(extra);
	free(ran);
}

/* ---- the trace's runs (verdict_opts.memo) ---- */

static const char *const memo_search_names[VERDICT_M_N] = {"fewer", "headroom", "buy"};

const char *verdict_memo_search_name(int s)
{
	assert(s >= 0 && s < VERDICT_M_N);
	return memo_search_names[s];
}

int verdict_memo_search_find(const char *name)
{
	for (int s = 0; s < VERDICT_M_N; s++)
		if (!strcmp(memo_search_names[s], name))
			return s;
	return -1;
}

void verdict_memo_init(struct verdict_memo *m)
{
	memset(m, 0, sizeof *m);
	pthread_mutex_init(&m->mu, NULL);
}

void verdict_memo_release(struct verdict_memo *m)
{
	if (!m)
		return;
	free(m->e);
	pthread_mutex_destroy(&m->mu);
	memset(m, 0, sizeof *m);
}

/* The entry of m of search, growth, policy, step and seed, or NULL (under m->mu). */
static struct verdict_memo_entry *memo_find(struct verdict_memo *m, int search, double growth,
					    const struct policy_ops *policy, unsigned step,
					    uint64_t seed)
{
	for (size_t i = 0; i < m->n; i++) {
		struct verdict_memo_entry *x = &m->e[i];
		if (x->search == search && x->growth == growth && x->policy == policy &&
		    x->step == step && x->seed == seed)
			return x;
	}
	return NULL;
}

void verdict_memo_add(struct verdict_memo *m, const struct verdict_memo_entry *x)
{
	pthread_mutex_lock(&m->mu);
	struct verdict_memo_entry *y =
		memo_find(m, x->search, x->growth, x->policy, x->step, x->seed);
	if (!y) {
		xgrow(&m->e, &m->cap, m->n + 1, sizeof *m->e);
		y = &m->e[m->n++];
	}
	*y = *x;
	pthread_mutex_unlock(&m->mu);
}

/* One search's view of a memo: size_memo's u. */
struct memo_view {
	struct verdict_memo *m;
	int search;
	double growth;
};

static int memo_get(void *u, const struct policy_ops *policy, unsigned step, uint64_t seed,
		    struct size_memo_run *out)
{
	const struct memo_view *mv = u;
	pthread_mutex_lock(&mv->m->mu);
	const struct verdict_memo_entry *x =
		memo_find(mv->m, mv->search, mv->growth, policy, step, seed);
	if (x) {
		*out = x->run;
		mv->m->hits++;
	}
	pthread_mutex_unlock(&mv->m->mu);
	return x != NULL;
}

static void memo_put(void *u, const struct policy_ops *policy, unsigned step, uint64_t seed,
		     const struct size_memo_run *run)
{
	const struct memo_view *mv = u;
	struct verdict_memo_entry x = {.search = mv->search,
				       .growth = mv->growth,
				       .policy = policy,
				       .step = step,
				       .seed = seed,
				       .run = *run};
	verdict_memo_add(mv->m, &x);
	pthread_mutex_lock(&mv->m->mu);
	mv->m->made++;
	pthread_mutex_unlock(&mv->m->mu);
}

/* The size_memo of o's search (at growth g) into sm, through mv; NULL when o has no memo. */
static const struct size_memo *memo_of(const struct verdict_opts *o, int search, double g,
				       struct memo_view *mv, struct size_memo *sm)
{
	if (!o->memo)
		return NULL;
	*mv = (struct memo_view){o->memo, search, g};
	*sm = (struct size_memo){memo_get, memo_put, mv, o->memo->complete};
	return sm;
}

/* The part of a verdict's keys that its trace's answers depend on (o, and its growth
 * search's step and cap), into out. */
static void trace_key(const struct verdict_opts *o, double step, double cap, struct sbuf *out)
{
	struct sbuf slo = SBUF_INIT;
	sbuf_init(&slo);
	if (o->slo)
		size_slo_text(o->slo, &slo);
	const struct gpumodel *gm = o->shrink_model >= 0 ? gpumodel_get(o->shrink_model) : NULL;
	sbuf_printf(out,
		    "baseline=%s;seeds=%" PRIu64 "-%" PRIu64 ";slo=%s;shrink=%s;headroom=%d;"
		    "step=%.17g;cap=%.17g",
		    o->base->name, o->lo, o->hi, o->slo ? slo.s : "default", gm ? gm->name : "",
		    o->headroom, step, cap);
	sbuf_release(&slo);
}

void verdict_memo_key(const struct verdict_opts *o, struct sbuf *out)
{
	trace_key(o, o->growth_step > 0 ? o->growth_step : VERDICT_GROWTH_STEP,
		  o->growth_cap > 0 ? o->growth_cap : VERDICT_GROWTH_CAP, out);
	sbuf_printf(out, ";giveup=%d", o->giveup);
}

/* ---- the SLO ---- */

/* The baseline's service on the full cluster: wait_p95 and unplaceable_jobs bounds. Its
 * runs go to *k (their figures into fig, room for every seed's) for the first answer's
 * search to take, so that it does not run them again; kn (or NULL): the caller's runs of
 * the baseline, and then nothing is run. */
static int default_slo(const struct verdict_opts *o, const struct size_plan *plan,
		       const struct size_known *kn, double *fig, struct size_known *k,
		       struct size_slo *slo, struct verdict_work *w, struct err *e)
{
	size_t nseed = (size_t)(o->hi - o->lo) + 1;
	double p95 = 0, unpl = 0;
	struct size_slo none = {.n = 0};
	struct size_opts so = {.sc = o->sc,
			       .plan = plan,
			       .pols = &o->base,
			       .npol = 1,
			       .lo = o->lo,
			       .hi = o->hi,
			       .slo = &none,
			       .nthreads = 1,
			       .stop = o->stop};
	struct memo_view mv;
	struct size_memo sm;
	so.memo = memo_of(o, VERDICT_M_FEWER, 0, &mv, &sm);
	int64_t events = 0;
	int rc = VF_OK;
	if (kn) {
		*k = *kn;
	} else {
		rc = size_full_runs(&so, 0, fig, k, &events, e);
		w->probes++;
		w->events += rc ? 0 : events;
	}
	for (size_t q = 0; q < nseed && !rc; q++) {
		const double *v = k->fig + q * RUNREC_NCOL;
		p95 = isnan(v[RUNREC_WAIT_P95]) ? p95 : fmax(p95, v[RUNREC_WAIT_P95]);
		unpl = isnan(v[RUNREC_UNPLACEABLE]) ? unpl : fmax(unpl, v[RUNREC_UNPLACEABLE]);
	}
	if (!rc && o->sc->mode == SIM_INFLATE) { /* no wait: the draws that fail (see the top) */
		slo->n = 1;
		slo->t[0] = (struct size_term){RUNREC_UNPLACEABLE, 0, 0, unpl};
	} else if (!rc) {
		slo->n = 2;
		slo->t[0] = (struct size_term){RUNREC_WAIT_P95, 0, 0, p95};
		slo->t[1] = (struct size_term){RUNREC_UNPLACEABLE, 0, 0, unpl};
	}
	return rc;
}

/* Run fn(arg) on up to want threads (fn takes tasks from arg until none is left), or here
 * when want < 2 or no thread starts; returns when every one has returned. */
static void run_threads(unsigned want, void *(*fn)(void *), void *arg)
{
	pthread_t *th = xcalloc(want ? want : 1, sizeof *th);
	unsigned started = 0;
	if (want > 1)
		for (; started < want; started++)
			if (pthread_create(&th[started], NULL, fn, arg))
				break;
	if (!started)
		fn(arg);
	for (unsigned t = 0; t < started; t++)
		pthread_join(th[t], NULL);
	free(th);
}

/* ---- headroom ---- */

/* Demand grown by g as the searches ask it: into base (the caller's to release) the trace
 * grown by g (verdict_grow), or in inflation today's, whose demand grows instead (see the
 * top); into slo v->slo_grow, in inflation with its bounds on unplaceable jobs (the draws
 * that fail) times 1 + g, the draws of that demand, so that the same share of it may fail
 * as fails today (a draw that fits no node even empty fails at any size). Returns the GPUs
 * whose capacity inflation draws (size_opts.inflate_gpus: today's x (1 + g)), 0 when timed. */
static double demand_at(const struct verdict_opts *o, const struct verdict *v, double g,
			struct job_set *base, struct size_slo *slo)
{
	int inflate = o->sc->mode == SIM_INFLATE;
	*slo = v->slo_grow;
	for (size_t i = 0; inflate && i < slo->n; i++)
		if (slo->t[i].col == RUNREC_UNPLACEABLE && !slo->t[i].full && !slo->t[i].ge)
			slo->t[i].bound *= 1 + g;
	verdict_grow(&o->sc->base, inflate ? 0 : g, o->lo, base);
	return inflate ? (double)v->gpus * (1 + g) : 0;
}

/* Policy pol at growth g (demand_at) on today's full cluster, at every seed. */
static int probe_growth(const struct verdict_opts *o, const struct verdict *v,
			const struct policy_ops *pol, double g, struct size_check *c, struct err *e)
{
	struct scenario s = *o->sc; /* read only but for base, which is ours */
	struct size_slo slo;
	double ig = demand_at(o, v, g, &s.base, &slo);
	struct size_opts so = {.sc = &s,
			       .plan = &v->plan,
			       .pols = &pol,
			       .npol = 1,
			       .lo = o->lo,
			       .hi = o->hi,
			       .slo = &slo,
			       .nthreads = 1,
			       .stop = o->stop,
			       .giveup = o->giveup,
			       .inflate_gpus = ig,
			       .own_unplaceable = ig > 0};
	struct memo_view mv;
	struct size_memo sm;
	so.memo = memo_of(o, VERDICT_M_HEADROOM, g, &mv, &sm);
	int rc = size_probe(&so, 0, v->plan.steps, NULL, c, NULL, e);
	job_set_release(&s.base);
	return rc;
}

/* Where one policy's growth search stands. */
struct gsearch {
	unsigned lo, hi;   /* a step met and one missed (hi = K + 1: none missed yet) */
	unsigned probe;    /* this round's step */
	int dir;           /* a gallop from the hint: +1 up from lo, -1 down from hi; 0 bisecting */
	unsigned d;        /* the gallop's next distance */
	signed char *seen; /* per step 0..K: 1 met, -1 missed, 0 not probed */
	struct size_check *chk; /* per step 0..K + 1: the check of each probed */
	unsigned gave;          /* a step the search found, then gave up: one below it missed */
	unsigned gave_miss;     /* that miss */
	struct size_check c;
	int rc;
	struct err e;
};

struct gpool {
	pthread_mutex_t mu;
	const struct verdict_opts *o;
	struct verdict *v;
	struct gsearch *s;
	size_t *todo, n, next, done, total;
};

static void *gpool_thread(void *arg)
{
	struct gpool *pl = arg;
	for (;;) {
		pthread_mutex_lock(&pl->mu);
		size_t i = pl->next < pl->n ? pl->todo[pl->next++] : (size_t)-1;
		pthread_mutex_unlock(&pl->mu);
		if (i == (size_t)-1 || (pl->o->stop && *pl->o->stop))
			break;
		struct gsearch *gs = &pl->s[i];
		double g = gs->probe * pl->v->step;
		gs->rc = probe_growth(pl->o, pl->v, pl->v->p[i].policy, g, &gs->c, &gs->e);
		pthread_mutex_lock(&pl->mu);
		pl->done++;
		if (pl->o->progress)
			pl->o->progress(pl->o->u, fmin((double)pl->done / (double)pl->total, 1),
					pl->v->p[i].policy->name, pl->v->plan.steps,
					pl->v->plan.nnodes);
		pthread_mutex_unlock(&pl->mu);
	}
	return NULL;
}

/* Policy gs's probe of step m met the SLO (pass) or missed it (first: the round's first,
 * which sets the gallop's side): into its bracket. A miss below lo (a step checked below
 * a growth found) moves the search below it: hi that miss, lo the largest step under it
 * known to meet (step 0 is). */
static void headroom_take(struct gsearch *gs, unsigned m, int pass, int first)
{
	gs->seen[m] = pass ? 1 : -1;
	if (m < gs->lo && !pass) {
		if (!gs->gave)
			gs->gave = gs->lo, gs->gave_miss = m;
		gs->hi = m;
		gs->lo = m;
		while (gs->lo > 0 && gs->seen[--gs->lo] <= 0)
			;
		gs->dir = 0;
		return;
	}
	if (m < gs->lo)
		return;
	if (pass)
		gs->lo = m;
	else
		gs->hi = m;
	/* a gallop goes on while its probes do as the hint's did */
	if (first && gs->dir)
		gs->dir = pass ? 1 : -1;
	else if (gs->dir && (gs->dir > 0) != pass)
		gs->dir = 0;
	else
		gs->d *= 2;
}

/* The steps below a growth found that must meet the SLO too (headroom). */
#define HEADROOM_BELOW 2

/* The step policy gs probes next (round, hint h, K steps), or 0 for none: the search's while
 * it has a bracket (hi - lo > 1), the steps it knows (seen) taken as they went without a
 * probe; then the HEADROOM_BELOW steps below lo not yet probed. A step already missed
 * below lo moves the search below it (headroom_take). */
static unsigned headroom_next(struct gsearch *gs, size_t round, int h, unsigned K)
{
	for (;;) {
		if (gs->hi - gs->lo > 1) {
			unsigned m = (gs->lo + gs->hi) / 2;
			if (round == 0 && h >= 0 && (unsigned)h <= K) {
				m = h ? (unsigned)h : 1; /* step 0 is met */
				gs->dir = 1, gs->d = 1;
			} else if (gs->dir > 0 && gs->lo + gs->d < gs->hi) {
				m = gs->lo + gs->d;
			} else if (gs->dir < 0 && gs->hi > gs->lo + gs->d) {
				m = gs->hi - gs->d;
			} else {
				gs->dir = 0;
			}
			if (!gs->seen[m])
				return m;
			headroom_take(gs, m, gs->seen[m] > 0, round == 0);
			continue;
		}
		unsigned b = 0;
		for (unsigned j = 1; j <= HEADROOM_BELOW && j < gs->lo && !b; j++)
			if (gs->seen[gs->lo - j] <= 0)
				b = gs->lo - j;
		if (!b || !gs->seen[b])
			return b;
		headroom_take(gs, b, 0, 0);
	}
}

/* The growth step policy p's search starts from, where its first answer points: a policy
 * that meets the SLO on a share x of today's GPUs likely absorbs about 1 / x - 1 more
 * demand on all of them (on 20k jobs x 2,000 nodes the answer or next to it for most
 * policies, and nearer a resample's answer than the trace's growth); -1 for none. */
static int growth_start(const struct verdict *v, const struct verdict_pol *p,
			const struct size_result *r, unsigned K)
{
	double x = p->ok && r->gpus > 0 ? (double)v->gpus / (double)r->gpus - 1 : -1;
	return x < 0 ? -1 : (int)fmin(llround(x / v->step), K);
}

/* Per policy, from growth_start, a gallop away from it on the side it leaves open, 1, 2,
 * 4... steps past the last probe, while the probes do as the hint's did, then bisection in what is
 * left. A step found (it meets the SLO, the one above misses) stands once the HEADROOM_BELOW steps
 * below it meet too; where one misses, the policy is not monotone in demand there, and the
 * search goes on below that miss: the headroom is growth the policy absorbs with every
 * growth just below it, not one it meets between two that it misses. */
static int headroom(const struct verdict_opts *o, struct verdict *v, struct err *e)
{
	unsigned K = (unsigned)llround(v->cap / v->step);
	struct gsearch *s = xcalloc(v->np, sizeof *s);
	size_t *todo = xcalloc(v->np, sizeof *todo);
	int rc = VF_OK;
	unsigned nth = o->nthreads;
	size_t total = v->np * (size_t)(ceil(log2((double)K + 2)) + 1);

	for (size_t i = 0; i < v->np; i++) {
		s[i].lo = 0, s[i].hi = K + 1;
		s[i].seen = xcalloc((size_t)K + 2, 1);
		s[i].chk = xcalloc((size_t)K + 2, sizeof *s[i].chk);
		s[i].seen[0] = 1;
	}
	for (size_t done = 0, round = 0; !rc; round++) {
		size_t n = 0;
		for (size_t i = 0; i < v->np; i++)
			if (v->p[i].ok &&
			    (s[i].probe = headroom_next(
				     &s[i], round, growth_start(v, &v->p[i], &v->sizes[i], K), K)))
				todo[n++] = i;
		if (!n)
			break;
		struct gpool pl = {.o = o,
				   .v = v,
				   .s = s,
				   .todo = todo,
				   .n = n,
				   .done = done,
				   .total = total > done + n ? total : done + n};
		for (size_t j = 0; j < n; j++)
			s[todo[j]].rc = -1; /* not run */
		pthread_mutex_init(&pl.mu, NULL);
		run_threads(nth < n ? nth : (unsigned)n, gpool_thread, &pl);
		pthread_mutex_destroy(&pl.mu);
		done = pl.done;
		v->runs += n * (size_t)(o->hi - o->lo + 1);
		for (size_t j = 0; j < n && !rc; j++) {
			struct gsearch *gs = &s[todo[j]];
			if (gs->rc == -1)
				rc = err_set(e, VF_ESTOP, "stopped");
			else if (gs->rc)
				*e = gs->e, rc = gs->rc;
			if (rc)
				break;
			v->work[VERDICT_W_HEADROOM].probes++;
			v->work[VERDICT_W_HEADROOM].events += gs->c.events;
			gs->chk[gs->probe] = gs->c;
			headroom_take(gs, gs->probe, gs->c.pass, round == 0);
		}
	}
	for (size_t i = 0; i < v->np && !rc; i++) {
		struct verdict_pol *p = &v->p[i];
		p->growth = p->ok ? s[i].lo * v->step : -1;
		p->capped = p->ok && s[i].hi == K + 1;
		p->miss_at = p->ok && !p->capped ? s[i].hi * v->step : NAN;
		if (p->ok && !p->capped)
			p->miss = s[i].chk[s[i].hi];
		p->gave_growth = p->ok && s[i].gave ? s[i].gave * v->step : NAN;
		p->gave_miss = p->ok && s[i].gave ? s[i].gave_miss * v->step : NAN;
	}
	for (size_t i = 0; i < v->np; i++) {
		free(s[i].seen);
		free(s[i].chk);
	}
	free(todo);
	free(s);
	return rc;
}

/* Does node n shrink under o (a GPU node, of the shrink model if one is given)? */
static int shrinks(const struct verdict_opts *o, const struct node *n)
{
	return n->model >= 0 && n->ngpu > 0 && (o->shrink_model < 0 || n->model == o->shrink_model);
}

/* A resample's sizes are found to within 1 / RESAMPLE_TOL of the steps (see the top). */
#define RESAMPLE_TOL 100

/* What the baseline buys to absorb growth g: into the buy fields of p; resample: to within
 * RESAMPLE_TOL (see the top), its search started from hint (a step of the plan of copies,
 * where each step is one of today's; 0 for none). */
static int buy_for(const struct verdict_opts *o, struct verdict *v, double g, int resample,
		   unsigned hint, struct verdict_pol *p, struct err *e)
{
	struct scenario s = *o->sc;
	struct job_set grown;
	unsigned r = 2 + (unsigned)floor(g); /* copies of each GPU node: room to grow */
	struct size_plan plan = {0};
	struct size_result *res = NULL;
	int rc;

	struct size_slo slo;
	double ig = demand_at(o, v, g, &grown, &slo);
	s.base = grown;
	s.base.nodes = NULL;
	s.base.nnodes = s.base.nodecap = 0;
	for (size_t n = 0; n < grown.nnodes; n++)
		job_set_add_node(&s.base, &grown.nodes[n]);
	for (unsigned c = 1; c < r; c++)
		for (size_t n = 0; n < grown.nnodes; n++) {
			struct node x = grown.nodes[n];
			if (!shrinks(o, &x))
				continue;
			char name[64]; /* c < 12: it fits NODE_NAME_MAX */
			snprintf(name, sizeof name, "%.38s+copy%u", grown.nodes[n].name, c);
			memcpy(x.name, name, sizeof x.name - 1);
			x.name[sizeof x.name - 1] = '\0';
			job_set_add_node(&s.base, &x);
		}
	rc = size_plan_init(&plan, s.base.nodes, s.base.nnodes, o->shrink_model, e);
	if (!rc) {
		struct size_opts so = {.sc = &s,
				       .plan = &plan,
				       .pols = &o->base,
				       .npol = 1,
				       .lo = o->lo,
				       .hi = o->hi,
				       .slo = &slo,
				       .nthreads = o->nthreads,
				       .progress = o->progress,
				       .u = o->u,
				       .stop = o->stop,
				       .giveup = o->giveup,
				       .no_above = resample,
				       .tol = resample ? plan.steps / RESAMPLE_TOL : 0,
				       .inflate_gpus = ig,
				       .own_unplaceable = ig > 0};
		if (resample && hint)
			so.hint = &hint;
		struct memo_view mv;
		struct size_memo sm;
		so.memo = memo_of(o, VERDICT_M_BUY, g, &mv, &sm);
		rc = size_run(&so, &res, e);
	}
	if (!rc) {
		v->gave_up += res->gave_up;
		v->work[VERDICT_W_BUY].probes += res->probes;
		v->work[VERDICT_W_BUY].events += res->events;
		/* the replicated plan has today's groups, in today's order, r times as large */
		assert(plan.ng == v->plan.ng);
		/* to within tol, the bracket's bottom: the purchase errs low, as the saving does */
		unsigned st = res->has_smaller ? res->below.step + 1 : res->min.step;
		p->buy_over = !res->full_ok;
		p->buy_above = res->above_miss ? res->above.nodes - res->min.nodes : 0;
		p->buy = 0;
		p->buy_usd_year = 0;
		for (size_t k = 0; k < plan.ng; k++) {
			const struct size_group *gr = &v->plan.g[k];
			size_t kept = res->full_ok ? size_plan_kept(&plan, k, st) : plan.g[k].n;
			int64_t more = kept > gr->n ? (int64_t)(kept - gr->n) * gr->ngpu : 0;
			if (gr->model < 0 || !more)
				continue;
			p->buy += more;
			p->buy_model[gr->model] += more;
			p->buy_usd_year +=
				(double)more * metrics_price(&o->sc->prices, gr->model) * 8760;
		}
	}
	size_results_free(res, 1);
	size_plan_release(&plan);
	job_set_release(&s.base);
	free(grown.nodes); /* its jobs moved into s.base, its nodes were copied */
	return rc;
}

/* ---- both answers ---- */

size_t verdict_policies(const struct policy_ops *base, const struct policy_ops *const *cand,
			size_t ncand, const struct policy_ops **out)
{
	size_t np = 0;
	out[np++] = base;
	for (size_t i = 0; i < ncand; i++) {
		int dup = 0;
		for (size_t j = 0; j < np; j++)
			dup |= out[j] == cand[i];
		if (!dup)
			out[np++] = cand[i];
	}
	return np;
}

/* The share of an answer's work each search takes, as its progress shows it (the sim
 * events of each, measured: 37/41/22 % on the demo trace with its resamples, 40/40/20 % in
 * a resample of 20,000 jobs): fewer GPUs, then headroom, then the purchases. */
#define PROGRESS_FEWER    0.4
#define PROGRESS_HEADROOM 0.4

/* One search's progress (0..1) as a span of its answer's: base + span x done. */
struct phase {
	size_progress_fn fn;
	void *u;
	double base, span;
};

static void phase_fn(void *u, double done, const char *policy, unsigned step, size_t nodes)
{
	const struct phase *ph = u;
	ph->fn(ph->u, ph->base + ph->span * fmin(fmax(done, 0), 1), policy, step, nodes);
}

/* Whose purchase candidate i takes: its own (i) when it absorbs more than the baseline,
 * an earlier candidate's at the same growth (the first), 0 when it needs none. */
static size_t buy_owner(const struct verdict *v, size_t i)
{
	const struct verdict_pol *p = &v->p[i];
	if (!p->ok || p->growth <= v->p[0].growth)
		return 0;
	for (size_t j = 1; j < i; j++)
		if (v->p[j].ok && v->p[j].growth == p->growth)
			return j;
	return i;
}

/* Both answers on o->sc's trace; hint (or NULL): per policy (the baseline first, the
 * candidates after it as verdict_run orders them) the size step to probe first. A
 * resample's answer is given them (the trace's answers), the trace's is not: they also tell
 * how exact its searches are (see the top). The growth searches start from each policy's
 * own first answer, the trace's as a resample's. */
static int answer(const struct verdict_opts *o, const unsigned *hint, struct verdict *v,
		  struct err *e)
{
	const struct scenario *sc = o->sc;
	const struct policy_ops **pols = xcalloc(o->npol + 1, sizeof *pols);
	int rc, resample = hint != NULL; /* only a resample is given hints */
	/* each search's progress as its share of the answer's (phase_fn) */
	struct phase ph = {o->progress, o->u, 0, PROGRESS_FEWER};
	struct verdict_opts po = *o;
	po.progress = o->progress ? phase_fn : NULL;
	po.u = &ph;
	/* the full-cluster runs known: the caller's (not on a resample), the default SLO's */
	size_t nruns = resample || !o->full_runs ? 0 : o->nfull_runs;
	struct size_known *runs = xcalloc(nruns + 1, sizeof *runs), *base_runs = NULL;
	double *base_fig = xcalloc(((size_t)(o->hi - o->lo) + 1) * RUNREC_NCOL, sizeof *base_fig);
	for (size_t i = 0; i < nruns; i++)
		runs[i] = o->full_runs[i];
	for (size_t i = 0; i < nruns; i++)
		base_runs = runs[i].policy == o->base ? &runs[i] : base_runs;

	assert(o->lo <= o->hi && o->nthreads > 0);
	memset(v, 0, sizeof *v);
	v->step = o->growth_step > 0 ? o->growth_step : VERDICT_GROWTH_STEP;
	v->cap = o->growth_cap > 0 ? o->growth_cap : VERDICT_GROWTH_CAP;
	size_t np = verdict_policies(o->base, o->pols, o->npol, pols);
	if ((rc = size_plan_init(&v->plan, sc->base.nodes, sc->base.nnodes, o->shrink_model, e)))
		goto out;
	v->gpus = v->plan.gpus;
	/* in inflation the failed draws are the service (size's own rule is off: see the top):
	 * an --slo without a bound on them gets the baseline's */
	int unpl = 0;
	for (size_t i = 0; o->slo && i < o->slo->n; i++)
		unpl |= o->slo->t[i].col == RUNREC_UNPLACEABLE && !o->slo->t[i].ge &&
			!o->slo->t[i].full;
	if (o->slo)
		v->slo = *o->slo;
	if (!o->slo || (sc->mode == SIM_INFLATE && !unpl)) {
		struct size_slo d;
		if ((rc = default_slo(o, &v->plan, base_runs, base_fig, &runs[nruns], &d,
				      &v->work[VERDICT_W_FEWER], e)))
			goto out;
		nruns += !base_runs;
		if (!o->slo) {
			v->slo_default = 1;
			v->slo = d;
		} else if (v->slo.n < SIZE_MAX_TERMS) {
			v->slo.t[v->slo.n++] = d.t[d.n - 1]; /* its unplaceable term */
		} else {
			rc = err_set(
				e, VF_EINPUT,
				"--slo: at most %d terms in inflation, where the verdict adds the "
				"baseline's failed draws",
				SIZE_MAX_TERMS - 1);
			goto out;
		}
	}
	if ((rc = size_slo_check(&v->slo, sc->mode, e)))
		goto out;
	/* a grown trace has more jobs that fit no node; a larger inflation demand, more draws
	 * that fail, which is its service (see the top) */
	for (size_t i = 0; i < v->slo.n; i++)
		if (v->slo.t[i].col != RUNREC_UNPLACEABLE || sc->mode == SIM_INFLATE)
			v->slo_grow.t[v->slo_grow.n++] = v->slo.t[i];

	/* 1. fewer GPUs */
	struct size_opts so = {.sc = sc,
			       .plan = &v->plan,
			       .pols = pols,
			       .npol = np,
			       .lo = o->lo,
			       .hi = o->hi,
			       .slo = &v->slo,
			       .nthreads = o->nthreads,
			       .progress = po.progress,
			       .u = po.u,
			       .stop = o->stop,
			       .giveup = o->giveup,
			       .hint = hint,
			       .no_above = resample,
			       .tol = resample ? v->plan.steps / RESAMPLE_TOL : 0,
			       .known = runs,
			       .nknown = nruns,
			       .own_unplaceable = sc->mode == SIM_INFLATE};
	struct memo_view mv;
	struct size_memo sm;
	so.memo = memo_of(o, VERDICT_M_FEWER, 0, &mv, &sm);
	if ((rc = size_run(&so, &v->sizes, e)))
		goto out;
	for (size_t i = 0; i < np; i++) {
		v->gave_up += v->sizes[i].gave_up;
		v->work[VERDICT_W_FEWER].probes += v->sizes[i].probes;
		v->work[VERDICT_W_FEWER].events += v->sizes[i].events;
	}
	v->np = np;
	v->p = xcalloc(np, sizeof *v->p);
	v->w0 = v->sizes[0].w0;
	v->w1 = v->sizes[0].w1;
	for (size_t i = 0; i < np; i++) {
		struct verdict_pol *p = &v->p[i];
		const struct size_result *b = &v->sizes[0], *r = &v->sizes[i];
		p->policy = pols[i];
		p->is_base = i == 0;
		p->size = r;
		p->ok = r->full_ok;
		p->size_above = r->above_miss ? r->above.nodes - r->min.nodes : 0;
		p->growth = -1;
		p->miss_at = p->gave_growth = p->gave_miss = NAN;
		if (!p->ok || !b->full_ok)
			continue;
		for (size_t g = 0; g < v->plan.ng; g++) {
			const struct size_group *gr = &v->plan.g[g];
			int64_t d = ((int64_t)b->kept[g] - (int64_t)r->kept[g]) * gr->ngpu;
			if (gr->model < 0 || !d)
				continue;
			p->fewer += d;
			p->fewer_model[gr->model] += d;
			p->usd_year += (double)d * metrics_price(&sc->prices, gr->model) * 8760;
		}
	}

	/* 2. headroom, and what the baseline buys for the growth each absorbs */
	ph.base = PROGRESS_FEWER;
	ph.span = PROGRESS_HEADROOM;
	if (o->headroom && (rc = headroom(&po, v, e)))
		goto out;
	/* a resample's searches start where the first answer points: the growth the candidate
	 * absorbs on today's S steps asks of the baseline about S k_b / k_p steps (k the
	 * smallest clusters' steps), or (1 + g) k_b where the candidate has none. One step of
	 * the plan of copies is one of today's (a share of each group's nodes today). Not from
	 * another candidate's purchase, so that a candidate's answers do not depend on the
	 * others. */
	unsigned kb = v->sizes[0].full_ok ? v->sizes[0].min.step : 0;
	size_t nbuy = 0, kbuy = 0; /* the purchases searched, and those begun */
	for (size_t i = 1; o->headroom && i < np; i++)
		nbuy += buy_owner(v, i) == i;
	for (size_t i = 1; o->headroom && i < np && !rc; i++) {
		struct verdict_pol *p = &v->p[i];
		size_t same = buy_owner(v, i);
		if (same && same < i) {
			memcpy(p->buy_model, v->p[same].buy_model, sizeof p->buy_model);
			p->buy = v->p[same].buy;
			p->buy_usd_year = v->p[same].buy_usd_year;
			p->buy_over = v->p[same].buy_over;
			p->buy_above = v->p[same].buy_above;
		} else if (same) {
			unsigned kp = v->sizes[i].min.step;
			unsigned h = (unsigned)ceil(kp ? (double)v->plan.steps * kb / kp
						       : kb * (1 + p->growth));
			double rest = 1 - PROGRESS_FEWER - PROGRESS_HEADROOM;
			ph.span = rest / (double)nbuy;
			ph.base = PROGRESS_FEWER + PROGRESS_HEADROOM + ph.span * (double)kbuy++;
			rc = buy_for(&po, v, p->growth, resample, h, p, e);
		}
	}
out:
	free(pols);
	free(runs);
	free(base_fig);
	return rc;
}

/* ---- over resamples ---- */

/* Progress of resample r of n (0: the trace itself) scaled into the whole's: the share
 * done of each resample (sh->done, under sh->mu when resamples run at once) summed, the
 * trace's as PROGRESS_TRACE resamples (its sizes are exact and checked above, a resample's
 * to 1 %: 1.9 and 2.3 resamples' CPU time, measured on 20,000 and 200,000 jobs). */
#define PROGRESS_TRACE 2.0
struct rshare {
	pthread_mutex_t mu;
	const struct verdict_opts *o;
	uint32_t n;
	double *done; /* per resample, 0 the trace itself */
};

struct rprog {
	struct rshare *sh;
	uint32_t r;
};

static void rprog_fn(void *u, double done, const char *policy, unsigned step, size_t nodes)
{
	const struct rprog *rp = u;
	struct rshare *sh = rp->sh;
	double sum = 0;
	pthread_mutex_lock(&sh->mu);
	sh->done[rp->r] = done;
	for (uint32_t r = 0; r <= sh->n; r++)
		sum += (r ? 1 : PROGRESS_TRACE) * sh->done[r];
	sh->o->progress(sh->o->u, sum / ((double)sh->n + PROGRESS_TRACE), policy, step, nodes);
	pthread_mutex_unlock(&sh->mu);
}

/* The resamples, run as independent tasks: each answers on its own threads (nth), so
 * that no thread waits for a round's last run, nor runs steps ahead that are dropped. */
struct rpool {
	pthread_mutex_t mu;
	const struct verdict_opts *o;
	struct verdict *v;
	struct rshare *sh;
	const unsigned *hint;
	int64_t t0, t1;
	unsigned nth;         /* threads of each resample's answer */
	const uint32_t *todo; /* the resamples to search, n of them */
	size_t n, next;       /* the next of todo to take */
	int *rc;              /* per resample: its error, -1 not run */
	struct err *e;        /* per resample */
};

/* Resample r: both answers into the r_* arrays of pl->v (row r - 1). */
static int one_resample(struct rpool *pl, uint32_t r, struct err *e)
{
	const struct verdict_opts *o = pl->o;
	const struct scenario *sc = o->sc;
	struct verdict *v = pl->v;
	struct scenario rs = *sc; /* a view: it shares what sc owns, never released */
	struct verdict rv = {0};
	struct verdict_opts ro = *o;
	struct rprog rp = {pl->sh, r};
	memset(&rs.base, 0, sizeof rs.base);
	rs.resample = r;
	rs.block_s = v->block_s;
	rs.win_start = pl->t0;
	rs.win_end = pl->t1;
	ro.sc = &rs;
	ro.nres = 0;
	ro.only = 0;
	ro.memo = NULL; /* the trace's runs only */
	ro.nthreads = pl->nth;
	ro.progress = o->progress ? rprog_fn : NULL;
	ro.u = &rp;
	int rc = resample_jobs(&sc->base, pl->t0, pl->t1, v->block_s, resample_seed(o->lo, r),
			       &rs.base, e);
	if (!rc)
		rc = answer(&ro, pl->hint, &rv, e);
	for (size_t i = 0; !rc && i < v->np; i++) {
		const struct verdict_pol *q = &rv.p[i];
		struct verdict_pol *p = &v->p[i];
		int base_ok = rv.p[0].ok;
		assert(q->policy == p->policy);
		p->r_usd[r - 1] = !base_ok ? NAN : q->ok ? q->usd_year : 0;
		p->r_growth[r - 1] = q->growth >= 0 ? q->growth : NAN;
		p->r_buy[r - 1] = !base_ok ? NAN : q->ok ? q->buy_usd_year : 0;
	}
	if (!rc) {
		pthread_mutex_lock(&pl->mu);
		v->runs += rv.runs;
		v->gave_up += rv.gave_up;
		for (int k = 0; k < VERDICT_NWORK; k++) {
			v->work[k].probes += rv.work[k].probes;
			v->work[k].events += rv.work[k].events;
		}
		pthread_mutex_unlock(&pl->mu);
	}
	verdict_release(&rv);
	job_set_release(&rs.base);
	return rc;
}

static void *rpool_thread(void *arg)
{
	struct rpool *pl = arg;
	for (;;) {
		pthread_mutex_lock(&pl->mu);
		uint32_t r = pl->next < pl->n ? pl->todo[pl->next++] : 0;
		pthread_mutex_unlock(&pl->mu);
		if (!r || (pl->o->stop && *pl->o->stop))
			break;
		pl->rc[r - 1] = one_resample(pl, r, &pl->e[r - 1]);
	}
	return NULL;
}

/* The steps a resample's size searches start from, per policy of v: the trace's smallest
 * cluster (0: none). */
static void hints_of(const struct verdict *v, unsigned *hint)
{
	for (size_t i = 0; i < v->np; i++)
		hint[i] = v->p[i].ok ? v->p[i].size->min.step : 0;
}

/* v->hints from hint. */
static void hints_text(struct verdict *v, const unsigned *hint)
{
	sbuf_reset(&v->hints);
	for (size_t i = 0; i < v->np; i++)
		sbuf_printf(&v->hints, "%s%s:%u", i ? "," : "", v->p[i].policy->name, hint[i]);
}

/* Read text, as hints_text writes it for v's policies (in v's order), into hint: 0, or
 * VF_EINPUT saying what does not match. */
static int hints_parse(const struct verdict *v, const char *text, unsigned *hint, struct err *e)
{
	const char *p = text;
	for (size_t i = 0; i < v->np; i++) {
		const char *name = v->p[i].policy->name;
		size_t n = strlen(name);
		char *end;
		if (i && *p++ != ',')
			return err_set(e, VF_EINPUT, "--hints '%s': %zu policies, not %zu", text, i,
				       v->np);
		if (strncmp(p, name, n) || p[n] != ':')
			return err_set(e, VF_EINPUT,
				       "--hints '%s': policy %zu is not %s (the baseline first, "
				       "then each candidate once, in the order given)",
				       text, i + 1, name);
		p += n + 1;
		unsigned long h = *p >= '0' && *p <= '9' ? strtoul(p, &end, 10) : 0;
		if (!(*p >= '0' && *p <= '9') || h > UINT32_MAX || (*end && *end != ','))
			return err_set(e, VF_EINPUT, "--hints '%s': %s: not a step", text, name);
		p = end;
		hint[i] = (unsigned)h;
	}
	if (*p)
		return err_set(e, VF_EINPUT, "--hints '%s': more than the %zu policies", text,
			       v->np);
	return 0;
}

/* v->key: what decides a resample's answers besides the scenario and the resample. */
static void key_text(const struct verdict_opts *o, struct verdict *v)
{
	sbuf_reset(&v->key);
	trace_key(o, v->step, v->cap, &v->key);
	sbuf_printf(&v->key, ";block=%" PRId64 ";hints=%s", v->block_s, v->hints.s);
}

/* Are the answers of every policy of v on resample r known (o->known)? Then into the r_*
 * arrays of v. */
static int known(const struct verdict_opts *o, struct verdict *v, uint32_t r)
{
	double(*got)[3] = xcalloc(v->np, sizeof *got);
	size_t i = 0;
	while (o->known && i < v->np &&
	       o->known->get(o->known->u, v->key.s, r, v->p[i].policy->name, got[i]))
		i++;
	int all = o->known && i == v->np;
	for (i = 0; all && i < v->np; i++) {
		v->p[i].r_usd[r - 1] = got[i][0];
		v->p[i].r_growth[r - 1] = got[i][1];
		v->p[i].r_buy[r - 1] = got[i][2];
	}
	free(got);
	return all;
}

/* Both answers on each of o->nres resamples (o->only alone when set), into the r_* arrays
 * and intervals of v, each size search starting from hint (the trace's answers, or a
 * task's --hints); sh: the progress shared with the trace's answer. */
static int over_resamples(const struct verdict_opts *o, struct rshare *sh, struct verdict *v,
			  const unsigned *hint, struct err *e)
{
	const struct scenario *sc = o->sc;
	int64_t t0, t1;
	int rc = resample_window(&sc->base, sc->win_start, sc->win_end, &t0, &t1, e);
	if (rc)
		return rc;
	v->nres = o->nres;
	v->block_s = o->block_s ? o->block_s : resample_block_default(t0, t1);
	hints_text(v, hint);
	key_text(o, v);
	for (size_t i = 0; i < v->np; i++) {
		struct verdict_pol *p = &v->p[i];
		p->r_usd = xcalloc(o->nres, sizeof *p->r_usd);
		p->r_growth = xcalloc(o->nres, sizeof *p->r_growth);
		p->r_buy = xcalloc(o->nres, sizeof *p->r_buy);
		for (uint32_t r = 0; r < o->nres; r++)
			p->r_usd[r] = p->r_growth[r] = p->r_buy[r] = NAN;
		p->usd_lo = p->usd_hi = p->growth_lo = p->growth_hi = p->buy_lo = p->buy_hi = NAN;
	}
	v->rmissing = xcalloc(o->nres, 1);
	uint32_t *todo = xcalloc(o->nres, sizeof *todo);
	size_t n = 0;
	for (uint32_t r = 1; r <= o->nres; r++) {
		if (o->only && r != o->only)
			continue;
		if (known(o, v, r))
			v->nknown++;
		else if (o->known && !o->known->compute)
			v->rmissing[r - 1] = 1, v->nmissing++;
		else
			todo[n++] = r;
	}
	unsigned nw = n ? (o->nthreads < n ? o->nthreads : (unsigned)n) : 1;
	struct rpool pl = {.o = o,
			   .v = v,
			   .sh = sh,
			   .hint = hint,
			   .t0 = t0,
			   .t1 = t1,
			   .nth = o->nthreads / nw,
			   .todo = todo,
			   .n = n,
			   .rc = xcalloc(o->nres, sizeof *pl.rc),
			   .e = xcalloc(o->nres, sizeof *pl.e)};
	for (size_t k = 0; k < n; k++)
		pl.rc[todo[k] - 1] = -1;
	pthread_mutex_init(&pl.mu, NULL);
	if (n)
		run_threads(nw, rpool_thread, &pl);
	pthread_mutex_destroy(&pl.mu);
	for (size_t k = 0; k < n && !rc; k++) { /* the first error, in resample order */
		uint32_t r = todo[k];
		if (pl.rc[r - 1] == -1)
			rc = err_set(e, VF_ESTOP, "stopped");
		else if (pl.rc[r - 1])
			*e = pl.e[r - 1], rc = pl.rc[r - 1];
	}
	for (size_t i = 0; i < v->np && !rc && !o->only && !v->nmissing; i++) {
		struct verdict_pol *p = &v->p[i];
		resample_interval(p->r_usd, o->nres, VERDICT_LEVEL, &p->usd_lo, &p->usd_hi);
		resample_interval(p->r_growth, o->nres, VERDICT_LEVEL, &p->growth_lo,
				  &p->growth_hi);
		resample_interval(p->r_buy, o->nres, VERDICT_LEVEL, &p->buy_lo, &p->buy_hi);
	}
	free(pl.rc);
	free(pl.e);
	free(todo);
	return rc;
}

/* A task's verdict (o->only): the policies, the growth search's step, and the hints. */
static int task_start(const struct verdict_opts *o, struct verdict *v, unsigned **hint,
		      struct err *e)
{
	const struct policy_ops **pols = xcalloc(o->npol + 1, sizeof *pols);
	v->step = o->growth_step > 0 ? o->growth_step : VERDICT_GROWTH_STEP;
	v->cap = o->growth_cap > 0 ? o->growth_cap : VERDICT_GROWTH_CAP;
	v->np = verdict_policies(o->base, o->pols, o->npol, pols);
	v->p = xcalloc(v->np, sizeof *v->p);
	for (size_t i = 0; i < v->np; i++) {
		v->p[i].policy = pols[i];
		v->p[i].is_base = i == 0;
		v->p[i].growth = -1;
		v->p[i].gave_growth = v->p[i].gave_miss = NAN;
	}
	free(pols);
	*hint = xcalloc(v->np, sizeof **hint);
	if (!o->hints)
		return err_set(e, VF_EINPUT,
			       "a resample alone needs the trace's answers (--hints)");
	if (o->only > o->nres)
		return err_set(e, VF_EINPUT, "resample %u of %u", o->only, o->nres);
	return hints_parse(v, o->hints, *hint, e);
}

int verdict_run(const struct verdict_opts *o, struct verdict *v, struct err *e)
{
	int rc;
	memset(v, 0, sizeof *v);
	if (o->nres && o->sc->mode != SIM_TIMED)
		return err_set(e, VF_EINPUT,
			       "--resamples: timed mode only (inflation already "
			       "draws its jobs with replacement from the trace's mix)");
	struct verdict_opts oo = *o;
	struct rshare sh = {.o = o, .n = o->nres, .done = xcalloc(o->nres + 1, sizeof *sh.done)};
	struct rprog rp = {&sh, 0};
	unsigned *hint = NULL;
	pthread_mutex_init(&sh.mu, NULL);
	if (o->nres && o->progress) {
		oo.progress = rprog_fn;
		oo.u = &rp;
	}
	if (o->only) {
		rc = task_start(o, v, &hint, e);
	} else {
		rc = answer(&oo, NULL, v, e);
		if (!rc && o->nres) {
			hint = xcalloc(v->np, sizeof *hint);
			hints_of(v, hint);
		}
	}
	if (!rc && o->nres)
		rc = over_resamples(o, &sh, v, hint, e);
	pthread_mutex_destroy(&sh.mu);
	free(sh.done);
	free(hint);
	return rc;
}

void verdict_release(struct verdict *v)
{
	if (!v)
		return;
	for (size_t i = 0; v->p && i < v->np; i++)
		FREE_ALL(v->p[i].r_usd, v->p[i].r_growth, v->p[i].r_buy);
	size_results_free(v->sizes, v->np);
	free(v->p);
	free(v->rmissing);
	sbuf_release(&v->hints);
	sbuf_release(&v->key);
	size_plan_release(&v->plan);
	memset(v, 0, sizeof *v);
}

size_t verdict_best(const struct verdict *v)
{
	size_t best = 0;
	for (size_t i = 1; i < v->np; i++) {
		const struct verdict_pol *p = &v->p[i], *b = &v->p[best];
		if (!p->ok || p->usd_year < 0)
			continue;
		if (p->usd_year > (best ? b->usd_year : 0) ||
		    (best && p->usd_year == b->usd_year && p->growth > b->growth) ||
		    (!best && p->usd_year == 0 && p->growth > v->p[0].growth))
			best = i;
	}
	return best;
}

/* ---- the sentence ---- */

void verdict_usd_words(double x, struct sbuf *out)
{
	char buf[32];
	sbuf_adds(out, fmt_usd_short(x, FMT_USD_WORDS, buf, sizeof buf));
}

/* A term's bound (or a figure of its column) in words. */
static void say_value(int col, double x, struct sbuf *out)
{
	const char *k = runrec_col_key((enum runrec_col)col);
	size_t n = strlen(k);
	char buf[32];
	if (n > 2 && !strcmp(k + n - 2, "_s"))
		sbuf_adds(out, fmt_duration(x, FMT_DUR_WORDS, buf, sizeof buf));
	else
		sbuf_printf(out, "%g", x);
}

static void say_term(const struct size_term *t, enum sim_mode mode, struct sbuf *out)
{
	char buf[32];
	/* in inflation, an unplaceable job is a draw that found no room */
	const char *one = mode == SIM_INFLATE ? "failed draw" : "unplaceable job";
	if (t->col == RUNREC_UNPLACEABLE && !t->ge && !t->full && t->bound == 0) {
		sbuf_printf(out, "no %s", one);
		return;
	}
	if (t->col == RUNREC_UNPLACEABLE && !t->ge && !t->full) {
		sbuf_printf(out, "no more than %.0f %s%s", t->bound, one, t->bound == 1 ? "" : "s");
		return;
	}
	if (t->col == RUNREC_WAIT_P95 && !t->full) {
		sbuf_adds(out, t->ge ? "wait p95 >= " : "wait p95 <= ");
		sbuf_adds(out, fmt_duration(t->bound, FMT_DUR_WORDS, buf, sizeof buf));
		return;
	}
	size_term_text(t, out);
}

void verdict_slo_words(const struct size_slo *slo, enum sim_mode mode, struct sbuf *out)
{
	for (size_t i = 0; i < slo->n; i++) {
		if (i)
			sbuf_adds(out, i + 1 == slo->n ? " and " : ", ");
		say_term(&slo->t[i], mode, out);
	}
}

/* "96 fewer A100s and 8 more T4s" (sign: 1 fewer, -1 more) from per-model GPUs. */
static void say_gpus(const int64_t *by_model, int sign, struct sbuf *out)
{
	int any = 0;
	for (int m = 0; m < GPUMODEL_MAX; m++) {
		int64_t d = by_model[m], a = d < 0 ? -d : d;
		if (!d)
			continue;
		sbuf_printf(out, "%s%" PRId64 " %s %s%s", any ? " and " : "", a,
			    d * sign > 0 ? "fewer" : "more", gpumodel_get(m)->name,
			    a == 1 ? "" : "s");
		any = 1;
	}
	if (!any)
		sbuf_adds(out, "no GPU fewer");
}

/* "$2.50/GPU-h on-demand" or "on-demand prices ($2.50/GPU-h A100, $0.35 T4)". */
static void say_prices(const struct scenario *sc, const int64_t *a, const int64_t *b,
		       struct sbuf *out)
{
	int models[GPUMODEL_MAX], n = 0;
	for (int m = 0; m < GPUMODEL_MAX; m++)
		if ((a && a[m]) || (b && b[m]))
			models[n++] = m;
	const char *tier = gpumodel_tier_name(sc->prices.tier);
	if (n == 1) {
		sbuf_printf(out, "$%.2f/GPU-h %s", metrics_price(&sc->prices, models[0]), tier);
		if (gpumodel_price_assumed(metrics_price_source(&sc->prices, models[0])))
			sbuf_adds(out, " (an assumed price)");
		return;
	}
	sbuf_printf(out, "%s prices (", tier);
	for (int i = 0; i < n; i++)
		sbuf_printf(out, "%s$%.2f/GPU-h %s", i ? ", " : "",
			    metrics_price(&sc->prices, models[i]), gpumodel_get(models[i])->name);
	sbuf_adds(out, ")");
}

/* A trace's span of hours in words: "45 min" under 2 h, else "34 h". */
static void say_span(double hours, struct sbuf *out)
{
	char buf[32];
	if (hours < 2)
		sbuf_adds(out, fmt_duration(hours * 3600, FMT_DUR_WORDS, buf, sizeof buf));
	else
		sbuf_printf(out, "%.0f h", hours);
}

void verdict_resample_words(uint32_t nres, int64_t block_s, struct sbuf *out)
{
	if (block_s == RESAMPLE_DAY || block_s == RESAMPLE_HOUR) {
		sbuf_printf(out, "%" PRIu32 " %s-resample%s", nres,
			    block_s == RESAMPLE_DAY ? "day" : "hour", nres == 1 ? "" : "s");
		return;
	}
	char buf[32];
	sbuf_printf(out, "%" PRIu32 " resample%s of %s blocks", nres, nres == 1 ? "" : "s",
		    fmt_duration((double)block_s, FMT_DUR_WORDS, buf, sizeof buf));
}

/* "20 day-resamples of 34 h of trace". */
static void say_resamples(const struct verdict *v, struct sbuf *out)
{
	double hours = (double)(v->w1 - v->w0) / 3600;
	verdict_resample_words(v->nres, v->block_s, out);
	sbuf_adds(out, " of ");
	say_span(hours, out);
	sbuf_adds(out, " of trace");
}

/* x as the sentence shows it: a $ figure in words, else a growth share in whole %. */
static void say_figure(double x, int usd, struct sbuf *out)
{
	if (usd)
		verdict_usd_words(x, out);
	else
		sbuf_printf(out, "%.0f %%", 100 * x);
}

/* Is x outside [lo, hi] as shown, so that a reader sees it outside too? (20 % against an
 * interval whose top 19.6 % reads "20 %" is not.) */
static int shown_outside(double x, double lo, double hi, int usd)
{
	if (x >= lo && x <= hi)
		return 0;
	struct sbuf a, b;
	sbuf_init(&a);
	sbuf_init(&b);
	say_figure(x, usd, &a);
	say_figure(x > hi ? hi : lo, usd, &b);
	int out = strcmp(a.s, b.s) != 0;
	sbuf_release(&a);
	sbuf_release(&b);
	return out;
}

/* Figure x's resample interval [lo, hi]: " (90 % interval $1.6-2.5 M over 20 day-resamples of
 * 34 h of trace" when words (the parenthesis left open), else " (90 % interval $1.6-2.5 M)";
 * a zero-width one is said to be deterministic on this trace, and an x outside its interval
 * is said to be so (the trace as traced is not a typical draw of its resamples: read the
 * range, not x, as the answer's spread). usd: a $ figure, else a growth share. Without
 * resamples, nothing. */
static void say_interval(const struct verdict *v, double x, double lo, double hi, int usd,
			 int words, struct sbuf *out)
{
	if (!v->nres)
		return;
	if (isnan(lo)) {
		sbuf_adds(out, " (no interval: the baseline misses its SLO on every one of ");
		say_resamples(v, out);
	} else if (lo == hi) {
		sbuf_adds(out, " (deterministic on this trace: ");
		if (words) {
			sbuf_adds(out, "each of ");
			say_resamples(v, out);
			sbuf_adds(out, " gives the same");
		} else {
			sbuf_adds(out, "every resample gives the same");
		}
	} else {
		sbuf_printf(out, " (%.0f %% interval ", 100 * VERDICT_LEVEL);
		char buf[64];
		if (usd)
			sbuf_adds(out, fmt_usd_range(lo, hi, buf, sizeof buf));
		else
			sbuf_printf(out, "%.0f-%.0f %%", 100 * lo, 100 * hi);
		if (words) {
			sbuf_adds(out, " over ");
			say_resamples(v, out);
		}
		if (shown_outside(x, lo, hi, usd)) {
			sbuf_adds(out, "; the trace as traced, ");
			say_figure(x, usd, out);
			sbuf_adds(out, x > hi ? ", lies above it" : ", lies below it");
		}
	}
	if (!words)
		sbuf_adds(out, ")");
}

/* " That smallest cluster is a boundary, not a margin: a cluster N nodes larger misses
 * the SLO." for a size found with a larger one that misses (the trace's sizes are checked
 * above, as size checks them), else nothing. */
static void say_boundary(const struct verdict_pol *p, struct sbuf *out)
{
	size_t n = p->size_above;
	if (!n)
		return;
	sbuf_printf(out,
		    " That smallest cluster is a boundary, not a margin: a cluster %zu node%s "
		    "larger misses the SLO.",
		    n, n > 1 ? "s" : "");
}

/* Why answer p's full cluster misses the SLO. */
static void say_miss(const struct verdict *v, const struct size_slo *slo,
		     const struct size_check *c, struct sbuf *out)
{
	if (c->term < 0) {
		sbuf_adds(out, "it has no node to run on");
		return;
	}
	if ((size_t)c->term == SIZE_UNPLACEABLE(slo)) {
		sbuf_printf(out, "it leaves %.0f jobs unplaceable (more than the full cluster)",
			    c->value);
		return;
	}
	const struct size_term *t = &slo->t[c->term];
	struct sbuf name = SBUF_INIT;
	sbuf_init(&name);
	size_term_name(t, &name);
	sbuf_printf(out, "its %s is ", name.s);
	say_value(t->col, c->value, out);
	sbuf_printf(out, " at seed %" PRIu64 " (bound ", c->seed);
	say_value(t->col, t->bound, out);
	sbuf_adds(out, ")");
	sbuf_release(&name);
	(void)v;
}

void verdict_sentence(const struct verdict *v, const struct scenario *sc, size_t i, uint64_t lo,
		      uint64_t hi, struct sbuf *out)
{
	const struct verdict_pol *b = &v->p[0], *p = &v->p[i];
	const char *bn = b->policy->name, *pn = p->policy->name;
	double hours = (double)(v->w1 - v->w0) / 3600;
	int said = 0; /* the interval's parenthesis is open */
	struct sbuf slo = SBUF_INIT;
	sbuf_init(&slo);
	verdict_slo_words(&v->slo, sc->mode, &slo);

	if (!b->ok) {
		sbuf_printf(out,
			    "The baseline %s itself misses the SLO (%s) on today's cluster: ", bn,
			    slo.s);
		say_miss(v, &v->slo, &b->size->full, out);
		sbuf_adds(out, "; loosen --slo.");
		sbuf_release(&slo);
		return;
	}
	if (i == 0) {
		sbuf_printf(out,
			    "No policy keeps %s (%s) on fewer GPUs than %s: it needs %" PRId64
			    " of today's %" PRId64 " GPUs",
			    slo.s, v->slo_default ? "the baseline's service today" : "--slo", bn,
			    b->size->gpus, v->gpus);
	} else if (!p->ok) {
		sbuf_printf(out, "Switching %s -> %s does not keep %s on today's cluster: ", bn, pn,
			    slo.s);
		say_miss(v, &v->slo, &p->size->full, out);
		sbuf_adds(out, "; no saving");
	} else {
		sbuf_printf(out, "Switching %s -> %s keeps %s ", bn, pn, slo.s);
		if (p->fewer == 0) {
			sbuf_printf(out, "with as many GPUs as %s: no saving", bn);
		} else {
			sbuf_adds(out, "with ");
			say_gpus(p->fewer_model, 1, out);
			sbuf_adds(out, ": ");
			verdict_usd_words(p->usd_year, out);
			sbuf_printf(out, "/yr %s at ", p->usd_year >= 0 ? "less" : "more");
			say_prices(sc, p->fewer_model, NULL, out);
		}
		said = v->nres > 0;
		say_interval(v, p->usd_year, p->usd_lo, p->usd_hi, 1, 1, out);
	}
	sbuf_adds(out, said ? "; " : " (");
	if (!v->nres && lo == hi)
		sbuf_printf(out, "deterministic at seed %" PRIu64, lo);
	else if (lo == hi)
		sbuf_printf(out, "the SLO held at seed %" PRIu64, lo);
	else
		sbuf_printf(out, "the SLO held at each of seeds %" PRIu64 "-%" PRIu64, lo, hi);
	if (!said && sc->mode == SIM_INFLATE) {
		sbuf_printf(out,
			    ", no resample interval; service measured on draws of %.0f %% of "
			    "today's GPU capacity",
			    100 * sc->target);
	} else if (!said) {
		sbuf_adds(out, v->nres ? "; service measured over "
				       : ", no resample interval; service measured over ");
		say_span(hours, out);
		sbuf_adds(out, " of trace");
	}
	sbuf_adds(out, ", GPUs priced x 8,760 h a year).");
	if (i == 0 || (p->ok && p->fewer))
		say_boundary(p, out);

	/* the second answer */
	if (b->growth < 0 && (i == 0 || p->growth < 0)) {
		sbuf_release(&slo);
		return;
	}
	if (i && p->ok && v->p[0].growth >= 0) {
		sbuf_printf(out, " On today's cluster %s absorbs %s%.0f %% more demand", pn,
			    p->capped ? "at least " : "", 100 * p->growth);
		say_interval(v, p->growth, p->growth_lo, p->growth_hi, 0, 0, out);
		sbuf_printf(out, " (%s: %s%.0f %%)", bn, b->capped ? "at least " : "",
			    100 * b->growth);
		if (p->growth > b->growth && p->buy > 0) {
			sbuf_printf(out, ", growth %s would need %s", bn,
				    p->buy_over ? "more than " : "");
			say_gpus(p->buy_model, -1, out);
			sbuf_adds(out, " to absorb: ");
			verdict_usd_words(p->buy_usd_year, out);
			sbuf_adds(out, "/yr of purchases deferred");
			say_interval(v, p->buy_usd_year, p->buy_lo, p->buy_hi, 1, 0, out);
			if (p->buy_above)
				sbuf_printf(
					out,
					", a boundary, not a margin: a cluster %zu node%s larger "
					"than that purchase misses the SLO",
					p->buy_above, p->buy_above > 1 ? "s" : "");
			sbuf_adds(out, ".");
		} else if (p->growth > b->growth) {
			sbuf_printf(out, ", which %s absorbs on today's GPUs too.", bn);
		} else {
			sbuf_adds(out, ": no purchase deferred.");
		}
	} else if (i == 0 && b->growth >= 0) {
		sbuf_printf(out, " On today's cluster %s absorbs %s%.0f %% more demand.", bn,
			    b->capped ? "at least " : "", 100 * b->growth);
	}
	sbuf_release(&slo);
}
