/*
 * size.c — right-sizing: the SLO, the node groups and their steps, and the search (size.h).
 *
 * The search keeps, per policy, a step that misses (lo; -1 before any, as if an empty
 * cluster missed) and one that meets the SLO (hi; the full cluster to begin with):
 *
 *   round 0                 every policy at step S, every seed: full_ok, or not searched
 *                           (a policy of size_opts.known is not run: its runs are judged
 *                           as if just made, full_cluster, so the search goes on alike,
 *                           but counted in reused, not in probes)
 *   round 1, with a hint h  h - t and h (size_opts.hint; t = tol, 1 at least): hi = the
 *                           smaller that meets it, lo = the one below that (hint_bracket)
 *   where both meet         a gallop down: hi - 2t, then 4t... below each new hi, while
 *   (both miss: up, lo + t, they meet (bisect; next_step); the bracket left is bisected
 *   then 2t... above lo)
 *   while hi - lo > 1       the midpoint m of lo and hi, every seed (next_steps); hi = m
 *   (> tol, size_opts.tol)  if it meets the SLO, else lo = m (bisect)
 *   done                    min = hi, below = lo
 *
 * Where the threads outnumber the runs of a round (policies x seeds), each policy's round
 * runs k = threads / runs steps: m, and ahead of need the midpoints of the two brackets m
 * may leave, then theirs, breadth first. bisect then takes the steps one at a time as a
 * single thread would, as far as the round's runs reach, and drops the others unseen: the
 * answer, the probes and the runs that gave up are the same on any number of threads,
 * also where the SLO is not monotone in the size (a k-ary search would find another of
 * its boundaries there). Three threads take a policy at one seed two steps a round.
 *
 * Every run, of every round, of size_probe and of size_full_runs, goes through one lookup
 * first (run_known): a full-cluster run of size_opts.known where the run would not give up,
 * else a run of size_opts.memo, the caller's from an earlier search of the same question;
 * only a run found in neither is replayed (and put to the memo). A run found is judged
 * exactly as the run it records, so the search takes the same path.
 *
 * Each run is a replay of its own: the trace's jobs on the nodes the step keeps, enriched
 * for its seed (enrichment is a hash of the node's name and the seed, so a node kept has
 * the values it has in the full cluster), with the faults whose node, group or model is
 * still there. The jobs, their target workload and the enriched nodes are those of the full
 * cluster's trace at that seed, made once for the whole search (seed_trace).
 */
#include <assert.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "replay.h"
#include "rng.h"
#include "size.h"

/* ---- the SLO ---- */

/* A column in seconds: its key ends in "_s". */
static int in_seconds(int col)
{
	const char *k = runrec_col_key((enum runrec_col)col);
	size_t n = strlen(k);
	return n > 2 && !strcmp(k + n - 2, "_s");
}

/* The short name of column col (its key, without "_s") into buf (64 bytes). */
static const char *short_name(int col, char *buf)
{
	const char *k = runrec_col_key((enum runrec_col)col);
	size_t n = strlen(k) - (in_seconds(col) ? 2 : 0);
	assert(n < 64);
	memcpy(buf, k, n);
	buf[n] = '\0';
	return buf;
}

void size_term_name(const struct size_term *t, struct sbuf *out)
{
	char buf[64];
	sbuf_adds(out, short_name(t->col, buf));
}

/* The figure named name (a key, or a *_s key without "_s"), or -1. */
static int find_col(const char *name)
{
	char buf[64];
	int c = runrec_col_find(name);
	for (int i = 0; i < RUNREC_NCOL && c < 0; i++)
		if (in_seconds(i) && !strcmp(short_name(i, buf), name))
			c = i;
	return c;
}

static void figure_names(struct sbuf *out)
{
	char buf[64];
	for (int c = 0; c < RUNREC_NCOL; c++)
		sbuf_printf(out, "%s%s", c ? ", " : "", short_name(c, buf));
}

/* One term of len bytes at s. */
static int parse_term(const char *s, size_t len, struct size_term *t, struct err *e)
{
	char *w = xstrndup(s, len), *op = strstr(w, "<="), *val;
	int rc = VF_OK;
	if (!op)
		op = strstr(w, ">=");
	if (!op || op == w || !op[2]) {
		rc = err_set(e, VF_EINPUT,
			     "--slo '%s': not NAME<=VALUE or NAME>=VALUE (wait_p95<=15m)", w);
		goto out;
	}
	t->ge = op[0] == '>';
	*op = '\0';
	val = op + 2;
	if ((t->col = find_col(w)) < 0) {
		struct sbuf names = SBUF_INIT;
		sbuf_init(&names);
		figure_names(&names);
		*op = t->ge ? '>' : '<';
		rc = err_set(e, VF_EINPUT, "--slo '%s': '%.*s' is not a run figure (%s)", w,
			     (int)(op - w), w, names.s);
		sbuf_release(&names);
		goto out;
	}
	*op = t->ge ? '>' : '<';
	t->full = !strcmp(val, "full");
	t->bound = NAN;
	if (t->full)
		goto out;
	if (in_seconds(t->col)) {
		int64_t d;
		if (fault_parse_duration(val, &d))
			rc = err_set(
				e, VF_EINPUT,
				"--slo '%s': '%s' is not a duration (90, 15m, 6h, 2d) or 'full'", w,
				val);
		else
			t->bound = (double)d;
	} else if (parse_double(val, &t->bound) || !isfinite(t->bound)) {
		rc = err_set(e, VF_EINPUT, "--slo '%s': '%s' is not a number or 'full'", w, val);
	}
out:
	free(w);
	return rc;
}

int size_slo_parse(const char *s, struct size_slo *slo, struct err *e)
{
	for (const char *w = s;;) {
		size_t len = strcspn(w, ",");
		if (slo->n == SIZE_MAX_TERMS)
			return err_set(e, VF_EINPUT, "--slo '%s': more than %d terms", s,
				       SIZE_MAX_TERMS);
		int rc = parse_term(w, len, &slo->t[slo->n], e);
		if (rc)
			return rc;
		slo->n++;
		if (!w[len])
			return VF_OK;
		w += len + 1;
	}
}

int size_slo_bounds_wait(const struct size_slo *slo, enum sim_mode mode)
{
	static const enum runrec_col waits[] = {RUNREC_WAIT_P95,  RUNREC_WAIT_P50, RUNREC_WAIT,
						RUNREC_SLOWDOWN,  RUNREC_JCT,      RUNREC_CARRY,
						RUNREC_CARRY_JOBS};
	if (mode != SIM_TIMED)
		return 1;
	for (size_t i = 0; i < slo->n; i++)
		for (size_t k = 0; k < sizeof waits / sizeof *waits; k++)
			if (!slo->t[i].ge && slo->t[i].col == (int)waits[k])
				return 1;
	return 0;
}

int size_slo_check(const struct size_slo *slo, enum sim_mode mode, struct err *e)
{
	for (size_t i = 0; i < slo->n; i++)
		if (!runrec_col_applies((enum runrec_col)slo->t[i].col, mode)) {
			struct sbuf b = SBUF_INIT;
			char buf[64];
			sbuf_init(&b);
			size_term_text(&slo->t[i], &b);
			err_set(e, VF_EINPUT, "--slo '%s': %s is not measured in --mode %s", b.s,
				short_name(slo->t[i].col, buf), sim_mode_name(mode));
			sbuf_release(&b);
			return VF_EINPUT;
		}
	return VF_OK;
}

void size_term_text(const struct size_term *t, struct sbuf *out)
{
	static const struct {
		const char *unit;
		int64_t s;
	} units[] = {{"d", 86400}, {"h", 3600}, {"m", 60}};
	size_term_name(t, out);
	sbuf_adds(out, t->ge ? ">=" : "<=");
	if (t->full) {
		sbuf_adds(out, "full");
		return;
	}
	if (in_seconds(t->col)) {
		int64_t v = (int64_t)t->bound;
		for (size_t i = 0; i < sizeof units / sizeof *units; i++)
			if (v && v % units[i].s == 0) {
				sbuf_printf(out, "%lld%s", (long long)(v / units[i].s),
					    units[i].unit);
				return;
			}
		sbuf_printf(out, "%llds", (long long)v);
		return;
	}
	/* the fewest digits that read back the same: 0.1, not 0.10000000000000001 */
	char buf[32];
	double back;
	snprintf(buf, sizeof buf, "%.15g", t->bound);
	if (parse_double(buf, &back) || back != t->bound)
		snprintf(buf, sizeof buf, "%.17g", t->bound);
	sbuf_adds(out, buf);
}

void size_slo_text(const struct size_slo *slo, struct sbuf *out)
{
	for (size_t i = 0; i < slo->n; i++) {
		if (i)
			sbuf_addc(out, ',');
		size_term_text(&slo->t[i], out);
	}
}

/* ---- groups and steps ---- */

static int same_group(const struct size_group *g, const struct node *first, const struct node *n)
{
	int model = n->ngpu > 0 ? n->model : -1;
	return g->model == model && g->ngpu == n->ngpu &&
	       !memcmp(first->cap, n->cap, sizeof n->cap);
}

int size_plan_init(struct size_plan *p, const struct node *nodes, size_t n, int shrink_model,
		   struct err *e)
{
	size_t cap = 0;
	memset(p, 0, sizeof *p);
	p->nnodes = n;
	for (size_t i = 0; i < n; i++) {
		size_t k = 0;
		while (k < p->ng && !same_group(&p->g[k], &nodes[p->g[k].idx[0]], &nodes[i]))
			k++;
		if (k == p->ng) {
			xgrow(&p->g, &cap, p->ng + 1, sizeof *p->g);
			struct size_group *g = &p->g[p->ng++];
			memset(g, 0, sizeof *g);
			g->model = nodes[i].ngpu > 0 ? nodes[i].model : -1;
			g->ngpu = nodes[i].ngpu;
			g->idx = xcalloc(n, sizeof *g->idx);
			g->shrinks = g->ngpu > 0 && (shrink_model < 0 || g->model == shrink_model);
		}
		p->g[k].idx[p->g[k].n++] = i;
		p->gpus += nodes[i].ngpu;
	}
	for (size_t k = 0; k < p->ng; k++)
		if (p->g[k].shrinks && p->g[k].n > p->steps)
			p->steps = (unsigned)p->g[k].n;
	if (p->steps)
		return VF_OK;
	if (shrink_model < 0)
		err_set(e, VF_EINPUT, "the cluster has no GPU node to retire");
	else {
		struct sbuf have = SBUF_INIT;
		uint32_t seen = 0;
		sbuf_init(&have);
		for (size_t k = 0; k < p->ng; k++)
			if (p->g[k].model >= 0 && !(seen & (1u << p->g[k].model))) {
				seen |= 1u << p->g[k].model;
				sbuf_printf(&have, "%s%s", have.len ? ", " : "",
					    gpumodel_get(p->g[k].model)->name);
			}
		err_set(e, VF_EINPUT, "the cluster has no %s node (its GPU models: %s)",
			gpumodel_get(shrink_model)->name, have.len ? have.s : "none");
		sbuf_release(&have);
	}
	size_plan_release(p);
	return VF_EINPUT;
}

void size_plan_release(struct size_plan *p)
{
	if (!p)
		return;
	for (size_t k = 0; k < p->ng; k++)
		free(p->g[k].idx);
	free(p->g);
	memset(p, 0, sizeof *p);
}

size_t size_plan_kept(const struct size_plan *p, size_t g, unsigned step)
{
	const struct size_group *gr = &p->g[g];
	assert(g < p->ng && step <= p->steps);
	if (!gr->shrinks)
		return gr->n;
	return ((size_t)step * gr->n + p->steps - 1) / p->steps;
}

size_t size_plan_nodes(const struct size_plan *p, const struct node *all, unsigned step,
		       uint64_t seed, struct node *out)
{
	unsigned char *keep = xcalloc(p->nnodes ? p->nnodes : 1, 1);
	size_t *perm = xcalloc(p->nnodes ? p->nnodes : 1, sizeof *perm), n = 0;
	for (size_t k = 0; k < p->ng; k++) {
		const struct size_group *g = &p->g[k];
		size_t kept = size_plan_kept(p, k, step);
		struct rng r;
		/* The first `kept` of one seeded order: a smaller step keeps a subset. */
		memcpy(perm, g->idx, g->n * sizeof *perm);
		rng_seed(&r, rng_hash(seed, k, 0x73697a65 /* "size" */));
		for (size_t i = 0; i + 1 < g->n; i++) {
			size_t j = i + (size_t)rng_below(&r, g->n - i), t = perm[i];
			perm[i] = perm[j];
			perm[j] = t;
		}
		for (size_t i = 0; i < kept; i++)
			keep[perm[i]] = 1;
	}
	for (size_t i = 0; i < p->nnodes; i++)
		if (keep[i])
			out[n++] = all[i];
	free(keep);
	free(perm);
	return n;
}

/* ---- one run ---- */

/* Does fault f name one of nodes (a node, a group, or a GPU model, as the sim reads it)? */
static int fault_hits(const struct fault *f, const struct node *nodes, size_t n)
{
	int model = gpumodel_find(f->target);
	for (size_t i = 0; i < n; i++)
		if (!strcmp(nodes[i].name, f->target) ||
		    (nodes[i].group[0] && !strcmp(nodes[i].group, f->target)) ||
		    (model >= 0 && nodes[i].model == model && nodes[i].ngpu > 0))
			return 1;
	return 0;
}

/*
 * The trace of each seed on the full cluster, made once, by the first run that needs it:
 * every step at that seed runs on its jobs, its target workload and its enriched nodes
 * (enrichment draws from the job's id or the node's name and the seed, the target workload
 * is of the jobs alone), so a run copies the nodes it keeps, not the trace (a copy, its
 * enrichment and its workload cost a seventh of a run).
 */
struct seed_traces {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct replay_trace *t; /* per seed, lo first */
	int *made;              /* per seed: 0 not yet, 1 being made, 2 made */
};

static void seed_traces_init(struct seed_traces *st, const struct size_opts *o)
{
	size_t nseed = (size_t)(o->hi - o->lo) + 1;
	pthread_mutex_init(&st->mu, NULL);
	pthread_cond_init(&st->cv, NULL);
	st->t = xcalloc(nseed, sizeof *st->t);
	st->made = xcalloc(nseed, sizeof *st->made);
}

static void seed_traces_release(struct seed_traces *st, const struct size_opts *o)
{
	for (size_t k = 0; k < (size_t)(o->hi - o->lo) + 1; k++)
		if (st->made[k])
			replay_trace_release(&st->t[k]);
	FREE_ALL(st->t, st->made);
	pthread_cond_destroy(&st->cv);
	pthread_mutex_destroy(&st->mu);
}

/* The full cluster's trace at seed, made now if no run has made it. */
static const struct replay_trace *seed_trace(struct seed_traces *st, const struct size_opts *o,
					     uint64_t seed)
{
	size_t k = (size_t)(seed - o->lo);
	pthread_mutex_lock(&st->mu);
	if (!st->made[k]) {
		st->made[k] = 1;
		pthread_mutex_unlock(&st->mu);
		replay_prepare(&st->t[k], &o->sc->base, o->sc, seed);
		pthread_mutex_lock(&st->mu);
		st->made[k] = 2;
		pthread_cond_broadcast(&st->cv);
	}
	while (st->made[k] != 2)
		pthread_cond_wait(&st->cv, &st->mu);
	pthread_mutex_unlock(&st->mu);
	return &st->t[k];
}

/*
 * The give-up test of a probe (size_opts.giveup): the figures that only grow as a run goes
 * on, against the SLO's bounds at its seed. Unplaceable jobs: a job found unplaceable stays
 * so, so the count so far is a lower bound of the run's. Wait p95 (metrics.c's nearest rank:
 * the ceil(0.95 n)-th smallest of the n jobs that started): a job's wait is fixed when it
 * starts, or grows when it is preempted and starts again, and n is at most N, the trace's
 * jobs; once `need` = N - ceil(0.95 N) + 1 jobs are certain to have waited more than the
 * bound B, at least n - ceil(0.95 n) + 1 of any n <= N values exceed B (that count grows
 * with n), so p95 > B whatever the rest of the run does. Either way the probe misses: giving
 * up there changes no answer.
 *
 * A job is certain to wait more than B once it started after waiting more than B, or once it
 * is still waiting B after its submission where the run cannot end with it waiting (`late`,
 * below): an undersized cluster's queue may then be given up on before its jobs start. The
 * jobs are in submit order (the sim's arrivals), so a pointer over them counts, in O(1)
 * amortised a test, the jobs submitted before now - B that are neither started in time,
 * nor unplaceable, nor skipped: each of them starts later than B after its submission.
 * A timed run ends with jobs waiting only when it is stuck (sim.c), which takes a running
 * job that never ends: a fault, or a node failure; so `late` is on without faults and
 * drawn failures only.
 */
struct giveup {
	double unpl_max;     /* the most unplaceable jobs the SLO allows (INFINITY: no bound) */
	double wait_max;     /* the smallest wait p95 bound (INFINITY: none) */
	size_t need;         /* jobs certain to wait more than wait_max that break it */
	size_t over;         /* started jobs that waited more than wait_max, so far */
	double over_min;     /* the smallest of their waits: a lower bound of the run's p95 */
	unsigned char *seen; /* per job: GU_* flags */
	const struct job *jobs;
	size_t njobs;
	int late;      /* count the jobs still waiting past wait_max (see above) */
	size_t next;   /* the first job not yet passed by now - wait_max, in submit order */
	size_t queued; /* passed jobs, not started, placeable: certain to start late */
};

enum { GU_OVER = 1, GU_STARTED = 2, GU_PASSED = 4, GU_GONE = 8 /* unplaceable */ };

static void giveup_place(void *u, const struct sim *s, int64_t t, int32_t job,
			 const struct placement *p)
{
	struct giveup *g = u;
	double w = (double)(t - g->jobs[job].arrival);
	unsigned char *f = &g->seen[job];
	(void)s;
	(void)p;
	if ((*f & (GU_PASSED | GU_STARTED | GU_GONE)) == GU_PASSED)
		g->queued--; /* counted in over now, if not already */
	*f |= GU_STARTED;
	if (w > g->wait_max && !(*f & GU_OVER)) {
		*f |= GU_OVER;
		g->over++;
		g->over_min = fmin(g->over_min, w);
	}
}

static void giveup_unplaceable(void *u, const struct sim *s, int64_t t, int32_t job)
{
	struct giveup *g = u;
	unsigned char *f = &g->seen[job];
	(void)s;
	(void)t;
	if ((*f & (GU_PASSED | GU_STARTED | GU_GONE)) == GU_PASSED)
		g->queued--;
	*f |= GU_GONE;
}

static int giveup_test(void *u, const struct sim *s)
{
	struct giveup *g = u;
	if (g->late) { /* pass the jobs submitted before now - wait_max */
		double T = (double)sim_counters(s)->now - g->wait_max;
		for (; g->next < g->njobs && (double)g->jobs[g->next].arrival < T; g->next++) {
			const struct job *j = &g->jobs[g->next];
			unsigned char *f = &g->seen[g->next];
			*f |= GU_PASSED;
			if (!(*f & (GU_STARTED | GU_GONE)) && !(j->flags & JOB_F_NOTRAN) &&
			    j->duration >= 0)
				g->queued++;
		}
	}
	double unpl = (double)sim_counters(s)->unplaceable;
	if (unpl > g->unpl_max)
		return 1;
	if (!g->need || g->over + g->queued < g->need)
		return 0;
	if (g->queued) {
		/* q of the jobs counted waiting may yet be found unplaceable (a fifo queue checks
		 * a job when it reaches the head): they never start, but leave n <= N - q, and
		 * q <= slack, or the unplaceable bound breaks; the worst q is the largest */
		double room = g->unpl_max - unpl;
		size_t slack = room < (double)g->queued ? (size_t)room : g->queued, n = g->njobs;
		if (g->over + g->queued < n - (size_t)ceil(0.95 * (double)(n - slack)) + 1)
			return 0;
		/* each waits at least as long as the last job passed has */
		g->over_min = fmin(g->over_min,
				   (double)(sim_counters(s)->now - g->jobs[g->next - 1].arrival));
	}
	return 1;
}

/* The rule size adds to o's SLO: no more unplaceable jobs than the full cluster (or none
 * with own_unplaceable: a bound never passed). */
static struct size_term unplaceable_rule(const struct size_opts *o)
{
	if (o->own_unplaceable)
		return (struct size_term){RUNREC_UNPLACEABLE, 0, 0, INFINITY};
	return (struct size_term){RUNREC_UNPLACEABLE, 0, 1, NAN};
}

/* The bounds of o's SLO at a seed whose full-cluster figures are fullv (NULL: its "full"
 * terms are met), for a run of the jobs of js; 0 when nothing can be given up on. */
static int giveup_init(struct giveup *g, const struct size_opts *o, const double *fullv,
		       const struct job_set *js)
{
	size_t njobs = js->njobs;
	memset(g, 0, sizeof *g);
	g->unpl_max = g->wait_max = g->over_min = INFINITY;
	for (size_t i = 0; i <= o->slo->n; i++) {
		struct size_term u = unplaceable_rule(o);
		const struct size_term *t = i < o->slo->n ? &o->slo->t[i] : &u;
		double b = !t->full ? t->bound : fullv ? fullv[t->col] : NAN;
		if (t->ge || isnan(b))
			continue;
		if (t->col == RUNREC_UNPLACEABLE)
			g->unpl_max = fmin(g->unpl_max, b);
		else if (t->col == RUNREC_WAIT_P95 && o->sc->mode == SIM_TIMED)
			g->wait_max = fmin(g->wait_max, b);
	}
	if (g->wait_max < INFINITY && njobs)
		g->need = njobs - (size_t)ceil(0.95 * (double)njobs) + 1;
	g->jobs = js->jobs;
	g->njobs = njobs;
	g->late = g->need && !o->sc->nfaults && !(o->sc->node_mtbf > 0);
	for (size_t j = 1; j < njobs && g->late; j++)
		g->late = js->jobs[j - 1].arrival <= js->jobs[j].arrival; /* as the sim has them */
	return g->unpl_max < INFINITY || g->need;
}

/* Policy p of o at step and seed: its figures into v (RUNREC_NCOL), *nodes the nodes it
 * ran on, w[0..1] its pricing window; all NaN, not run, when the step keeps no node. fullv:
 * the policy's full-cluster figures at seed, or NULL (the SLO's "full" bounds are met);
 * with giveup, a run that can no longer meet the SLO stops there (*gave_up = 1), its
 * figures NaN but the one that gave up, which holds a lower bound past its bound. */
static int run_one(const struct size_opts *o, struct seed_traces *st, size_t p, unsigned step,
		   uint64_t seed, const double *fullv, int giveup, double *v, size_t *nodes,
		   int64_t *w, int *gave_up, int64_t *events, replay_progress_fn progress, void *u,
		   struct err *e)
{
	const struct scenario *sc = o->sc;
	struct node *kept = xcalloc(o->plan->nnodes ? o->plan->nnodes : 1, sizeof *kept);
	struct fault *faults = xcalloc(sc->nfaults ? sc->nfaults : 1, sizeof *faults);
	size_t n = size_plan_nodes(o->plan, sc->base.nodes, step, seed, kept), nf = 0;
	int rc = VF_OK;

	/* inflation: the demand of inflate_gpus (or the full plan's) GPUs, whatever n keep */
	double target = sc->target;
	int run = n > 0;
	if (run && sc->mode == SIM_INFLATE) {
		int64_t gk = 0;
		for (size_t i = 0; i < n; i++)
			gk += kept[i].ngpu;
		double ref = o->inflate_gpus > 0 ? o->inflate_gpus : (double)o->plan->gpus;
		run = gk > 0; /* else no GPU to place a draw on: a miss (figures NaN) */
		target = run ? sc->target * ref / (double)gk : target;
	}
	*nodes = n;
	for (int c = 0; c < RUNREC_NCOL; c++)
		v[c] = NAN;
	if (run) {
		/* a retired node has no fault: drop those that named only retired nodes (one
		 * that names nothing at all stays, for the sim to refuse as replay does) */
		for (size_t i = 0; i < sc->nfaults; i++)
			if (fault_hits(&sc->faults[i], kept, n) ||
			    !fault_hits(&sc->faults[i], sc->base.nodes, sc->base.nnodes))
				faults[nf++] = sc->faults[i];
		struct scenario s = *sc; /* read only: nothing of it is released */
		s.faults = faults;
		s.nfaults = nf;
		s.target = target;
		const struct replay_trace *full = seed_trace(st, o, seed);
		size_plan_nodes(o->plan, full->js.nodes, step, seed, kept); /* enriched */
		struct replay_trace t = *full; /* its jobs and workload, read only */
		t.js.nodes = kept;
		t.js.nnodes = n;
		struct replay_result r;
		struct giveup gs = {0};
		struct replay_giveup g = {.obs = {.u = &gs},
					  .test = giveup_test,
					  .u = &gs,
					  .every = SIZE_GIVEUP_EVERY};
		int giving = giveup && giveup_init(&gs, o, fullv, &t.js);
		/* the waits, per job of the trace, only with a wait bound: never in inflation,
		 * whose draws are not the trace's jobs (the counters give its unplaceable) */
		if (giving && gs.need) {
			gs.seen = xcalloc(t.js.njobs ? t.js.njobs : 1, 1);
			g.obs.on_place = giveup_place;
			g.obs.on_unplaceable = giveup_unplaceable;
		}
		rc = replay_run_giveup(&t, &s, o->pols[p], 0, progress, u, giving ? &g : NULL,
				       o->stop, &r, e);
		free(gs.seen);
		if (!rc)
			*events += r.events;
		if (!rc && r.gave_up) {
			*gave_up = 1;
			if (gs.need && gs.over + gs.queued >= gs.need)
				v[RUNREC_WAIT_P95] = gs.over_min;
			else
				v[RUNREC_UNPLACEABLE] = gs.unpl_max + 1;
			replay_result_release(&r);
		} else if (!rc) {
			struct runrec *rec = xmalloc(sizeof *rec);
			runrec_from_result(&r, rec);
			memcpy(v, rec->v, sizeof rec->v);
			w[0] = rec->w0;
			w[1] = rec->w1;
			free(rec);
			replay_result_release(&r);
		}
	}
	free(kept);
	free(faults);
	return rc;
}

/* Judge the figures of every seed (fig: nseed x RUNREC_NCOL) against o's SLO; full as in
 * size_probe. */
static void judge(const struct size_opts *o, const double *full, const double *fig, unsigned step,
		  size_t nodes, struct size_check *c)
{
	const struct size_slo *slo = o->slo;
	size_t nseed = (size_t)(o->hi - o->lo) + 1, nt = slo->n + 1;
	memset(c, 0, sizeof *c);
	c->step = step;
	c->nodes = nodes;
	c->pass = 1;
	c->term = 0;
	for (size_t i = 0; i < nt; i++)
		c->worst[i] = NAN;
	for (size_t k = 0; k < nseed; k++) {
		const double *v = fig + k * RUNREC_NCOL, *f = full ? full + k * RUNREC_NCOL : v;
		if (!nodes) {
			if (c->pass)
				c->pass = 0, c->term = -1, c->seed = o->lo + k, c->value = NAN;
			continue;
		}
		for (size_t i = 0; i < nt; i++) {
			struct size_term u = unplaceable_rule(o);
			const struct size_term *t = i < slo->n ? &slo->t[i] : &u;
			double x = v[t->col], b = t->full ? f[t->col] : t->bound;
			int ok = !isnan(x) && (t->ge ? x >= b : x <= b);
			if (!isnan(x) &&
			    (isnan(c->worst[i]) || (t->ge ? x < c->worst[i] : x > c->worst[i])))
				c->worst[i] = x;
			if (!ok && c->pass) {
				c->pass = 0;
				c->term = (int)i;
				c->seed = o->lo + k;
				c->value = x;
			}
		}
	}
}

/* Nodes kept at step. */
static size_t nodes_at(const struct size_plan *p, unsigned step)
{
	size_t n = 0;
	for (size_t g = 0; g < p->ng; g++)
		n += size_plan_kept(p, g, step);
	return n;
}

/* The runs of o->known for policy p, or NULL. */
static const struct size_known *known_runs(const struct size_opts *o, size_t p)
{
	for (size_t i = 0; o->known && i < o->nknown; i++)
		if (o->known[i].policy == o->pols[p])
			return &o->known[i];
	return NULL;
}

/*
 * Policy p at step and seed, as run_one gives it (its arguments but *reused), from what the
 * caller has if it can: o->known's full-cluster runs (made without giving up, so only for a
 * run that would not give up either; *reused = 1), else o->memo's; else run, and the run put
 * to o->memo; but a run ahead of need that a complete memo lacks is not made (*reused = -1).
 * *gave_up and *events are added to as run_one does.
 */
static int run_known(const struct size_opts *o, struct seed_traces *st, size_t p, unsigned step,
		     uint64_t seed, const double *fullv, int giveup, int ahead, double *v,
		     size_t *nodes, int64_t *w, int *gave_up, int64_t *events, int *reused,
		     replay_progress_fn progress, void *u, struct err *e)
{
	const struct size_known *kn = !giveup && step == o->plan->steps ? known_runs(o, p) : NULL;
	struct size_memo_run m = {.w0 = 0};
	int rc;
	*reused = kn != NULL;
	if (kn) {
		memcpy(m.fig, kn->fig + (size_t)(seed - o->lo) * RUNREC_NCOL, sizeof m.fig);
		m.w0 = kn->w0;
		m.w1 = kn->w1;
	}
	if (kn || (o->memo && o->memo->get(o->memo->u, o->pols[p], step, seed, &m))) {
		*nodes = nodes_at(o->plan, step);
		memcpy(v, m.fig, sizeof m.fig);
		w[0] = m.w0;
		w[1] = m.w1;
		*gave_up |= m.gave_up;
		*events += m.events;
		return VF_OK;
	}
	w[0] = w[1] = 0; /* a run that gives up sets none */
	if (ahead && o->memo && o->memo->complete) {
		*reused = -1;
		return VF_OK;
	}
	rc = run_one(o, st, p, step, seed, fullv, giveup, v, nodes, w, &m.gave_up, &m.events,
		     progress, u, e);
	if (!rc && o->memo && o->memo->put) {
		memcpy(m.fig, v, sizeof m.fig);
		m.w0 = w[0];
		m.w1 = w[1];
		o->memo->put(o->memo->u, o->pols[p], step, seed, &m);
	}
	*gave_up |= m.gave_up;
	*events += m.events;
	return rc;
}

int size_probe(const struct size_opts *o, size_t p, unsigned step, const double *full,
	       struct size_check *out, double *fig, struct err *e)
{
	size_t nseed = (size_t)(o->hi - o->lo) + 1, nodes = 0;
	double *v = xcalloc(nseed * RUNREC_NCOL, sizeof *v);
	int64_t w[2] = {0, 0}, events = 0;
	int rc = VF_OK, gave_up = 0, reused;
	struct seed_traces st;
	seed_traces_init(&st, o);
	for (size_t k = 0; k < nseed && !rc; k++)
		rc = run_known(o, &st, p, step, o->lo + k, full ? full + k * RUNREC_NCOL : NULL,
			       o->giveup, 0, v + k * RUNREC_NCOL, &nodes, w, &gave_up, &events,
			       &reused, NULL, NULL, e);
	seed_traces_release(&st, o);
	if (!rc) {
		judge(o, full, v, step, nodes, out);
		out->events = events;
		if (fig)
			memcpy(fig, v, nseed * RUNREC_NCOL * sizeof *v);
	}
	free(v);
	return rc;
}

/* ---- the search ---- */

int size_full_runs(const struct size_opts *o, size_t p, double *fig, struct size_known *k,
		   int64_t *events, struct err *e)
{
	size_t nseed = (size_t)(o->hi - o->lo) + 1, nodes = 0;
	int64_t w[2] = {0, 0}, wq[2], ev = 0;
	int rc = VF_OK, gave_up = 0, reused;
	struct seed_traces st;
	seed_traces_init(&st, o);
	for (size_t q = 0; q < nseed && !rc; q++) /* no "full" bound, no give-up: round 0's */
		rc = run_known(o, &st, p, o->plan->steps, o->lo + q, NULL, 0, 0,
			       fig + q * RUNREC_NCOL, &nodes, q ? wq : w, &gave_up, &ev, &reused,
			       NULL, NULL, e);
	seed_traces_release(&st, o);
	*k = (struct size_known){.policy = o->pols[p], .fig = fig, .w0 = w[0], .w1 = w[1]};
	if (events)
		*events = ev;
	return rc;
}

/* One run of a round. */
struct task {
	size_t p;           /* policy */
	unsigned step;      /* step */
	uint64_t seed;      /* seed */
	size_t nodes;       /* nodes it ran on */
	double share;       /* of it done */
	int rc;             /* its error */
	struct err e;       /* and the message */
	double *v;          /* its figures (RUNREC_NCOL, in the round's array) */
	const double *full; /* the policy's full-cluster figures at seed, or NULL */
	int gave_up;        /* its run gave up (size_opts.giveup) */
	int ahead;          /* run ahead of need (size_memo.complete) */
	int reused;         /* its run is size_opts.known's, not made (nor counted); -1: not
			     * made, ahead of need (size_memo.complete) */
	int64_t events;     /* sim events its run handled */
	int64_t w[2];       /* its pricing window */
	struct pool *pl;    /* the pool it runs in */
};

struct pool {
	pthread_mutex_t mu;
	const struct size_opts *o;
	struct seed_traces *st;
	struct task *t;
	size_t n, next;
	double before, total; /* runs done before this round; all the search will make (est.) */
};

static void task_progress(void *u, double done)
{
	struct task *t = u;
	struct pool *pl = t->pl;
	pthread_mutex_lock(&pl->mu);
	t->share = done;
	double sum = pl->before;
	for (size_t i = 0; i < pl->n; i++)
		sum += pl->t[i].share;
	pl->o->progress(pl->o->u, fmin(sum / pl->total, 1), pl->o->pols[t->p]->name, t->step,
			t->nodes);
	pthread_mutex_unlock(&pl->mu);
}

static void *pool_thread(void *arg)
{
	struct pool *pl = arg;
	for (;;) {
		pthread_mutex_lock(&pl->mu);
		struct task *t = pl->next < pl->n ? &pl->t[pl->next++] : NULL;
		pthread_mutex_unlock(&pl->mu);
		if (!t || (pl->o->stop && *pl->o->stop))
			break;
		t->rc = run_known(pl->o, pl->st, t->p, t->step, t->seed, t->full,
				  pl->o->giveup && t->full, t->ahead, t->v, &t->nodes, t->w,
				  &t->gave_up, &t->events, &t->reused,
				  pl->o->progress ? task_progress : NULL, t, &t->e);
		pthread_mutex_lock(&pl->mu);
		t->share = 1;
		pthread_mutex_unlock(&pl->mu);
	}
	return NULL;
}

/* Run the n tasks on up to o->nthreads threads. */
static int run_tasks(const struct size_opts *o, struct seed_traces *st, struct task *t, size_t n,
		     double before, double total, struct err *e)
{
	struct pool pl = {.o = o, .st = st, .t = t, .n = n, .before = before, .total = total};
	unsigned nth = o->nthreads < n ? o->nthreads : (unsigned)n, started = 0;
	pthread_t *th = xcalloc(nth ? nth : 1, sizeof *th);
	int rc = VF_OK;

	pthread_mutex_init(&pl.mu, NULL);
	for (size_t i = 0; i < n; i++) {
		t[i].pl = &pl;
		t[i].rc = -1; /* not run */
	}
	if (nth == 1)
		pool_thread(&pl);
	else
		for (; started < nth; started++)
			if (pthread_create(&th[started], NULL, pool_thread, &pl))
				break;
	if (nth > 1 && !started)
		pool_thread(&pl); /* no thread: run them here */
	for (unsigned i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	for (size_t i = 0; i < n && !rc; i++) {
		if (t[i].rc == -1)
			rc = err_set(e, VF_ESTOP, "stopped");
		else if (t[i].rc)
			*e = t[i].e, rc = t[i].rc;
	}
	pthread_mutex_destroy(&pl.mu);
	free(th);
	return rc;
}

/* Where a policy's search stands. */
struct search {
	int lo;                  /* a step that misses, -1 for none yet */
	unsigned hi;             /* a step that meets the SLO */
	struct size_check below; /* lo's check (lo >= 0) */
	struct size_check min;   /* hi's check */
	size_t probes;
	int active;    /* searching */
	int bracketed; /* this round probes the hint's bracket (size_opts.hint) */
	int dir;       /* a gallop from the hint: -1 down from hi, +1 up from lo; 0 bisecting */
	unsigned d;    /* the gallop's next distance */
};

/* Rounds a search takes from lo to hi = lo + span with k steps a round (an estimate). */
static double rounds_left(unsigned span, unsigned k)
{
	return span > 1 ? ceil(log((double)span) / log((double)k + 1)) : 0;
}

/* The step the bisection probes between a miss lo and a pass hi (hi - lo > 1). */
static unsigned mid_step(int lo, unsigned hi)
{
	return (unsigned)(lo + (int)((hi - (unsigned)(lo + 1) + 1) / 2));
}

/* An interval of the bisection: lo misses, hi meets the SLO. */
struct interval {
	int lo;
	unsigned hi;
};

/* Is the bisection from (lo, hi) done: the two at most tol (size_opts.tol; 1 at least)
 * steps apart? */
static int narrow(const struct size_opts *o, int lo, unsigned hi)
{
	return hi - (unsigned)(lo + 1) < (o->tol > 1 ? o->tol : 1);
}

/* The step a search probes next from its bracket (lo, hi): while it gallops (dir), d below
 * hi going down or d above lo going up, as long as that falls inside the bracket; else the
 * midpoint, and *dir is 0 from then on. */
static unsigned next_step(int lo, unsigned hi, int *dir, unsigned d)
{
	if (*dir < 0 && hi >= d && (int)(hi - d) > lo)
		return hi - d;
	if (*dir > 0 && lo >= 0 && (unsigned)lo + d < hi)
		return (unsigned)lo + d;
	*dir = 0;
	return mid_step(lo, hi);
}

/* The next k steps the search sp may probe into out: its next step, then, while it
 * gallops, the steps of the gallop if each probe goes on as the hint's did; from a
 * bisection, the two it probes after that one (below it if it meets the SLO, above it if
 * not), and so on, breadth first (iv: room for 2 k + 1 intervals). Returns how many (k at
 * most, fewer when the bracket holds fewer). Only the first is sure to be needed: the
 * others are run ahead, on threads that would otherwise wait, so that bisect finds them
 * done. */
static unsigned next_steps(const struct size_opts *o, const struct search *sp, unsigned k,
			   unsigned *out, struct interval *iv)
{
	size_t head = 0, tail = 0;
	unsigned n = 0, d = sp->d;
	int lo = sp->lo, dir = sp->dir;
	unsigned hi = sp->hi;
	while (dir && n < k && !narrow(o, lo, hi)) {
		unsigned m = next_step(lo, hi, &dir, d);
		if (!dir)
			break;
		out[n++] = m;
		if (dir < 0)
			hi = m;
		else
			lo = (int)m;
		d *= 2;
	}
	iv[tail++] = (struct interval){lo, hi};
	while (head < tail && n < k) {
		struct interval b = iv[head++];
		if (narrow(o, b.lo, b.hi))
			continue;
		unsigned m = mid_step(b.lo, b.hi);
		out[n++] = m;
		iv[tail++] = (struct interval){b.lo, m};
		iv[tail++] = (struct interval){(int)m, b.hi};
	}
	return n;
}

/* The distance of a hint's bracket: tol steps (size_opts.tol), one at least. */
static unsigned hint_span(const struct size_opts *o)
{
	return o->tol > 1 ? o->tol : 1;
}

/* The steps policy p probes in round, k at most (but the hint's two), into steps (room
 * for k + 2): the full cluster in round 0; in round 1, where a hint h is given, h - t and
 * h (t = hint_span, h - t at least 0; sp->bracketed); else next_steps. Returns how many. */
static unsigned round_steps(const struct size_opts *o, struct search *sp, size_t p, int round,
			    unsigned k, unsigned *steps, struct interval *iv)
{
	unsigned S = o->plan->steps, h = o->hint ? o->hint[p] : 0, n = 0;
	sp->bracketed = 0;
	if (round == 0) {
		steps[n++] = S;
	} else if (round == 1 && h && h <= S) {
		steps[n++] = h > hint_span(o) ? h - hint_span(o) : 0;
		if (h < S)
			steps[n++] = h;
		sp->bracketed = 1;
	} else {
		n = next_steps(o, sp, k, steps, iv);
	}
	return n;
}

/* Round 0's judgement of policy r: its full cluster's figures fig (every seed; nodes kept,
 * seed lo's pricing window w0, w1), which become the policy's full ones. */
static void full_cluster(const struct size_opts *o, struct size_result *r, struct search *sp,
			 const double *fig, size_t nodes, int64_t w0, int64_t w1, double *full)
{
	size_t nseed = (size_t)(o->hi - o->lo) + 1;
	judge(o, NULL, fig, o->plan->steps, nodes, &r->full);
	memcpy(full, fig, nseed * RUNREC_NCOL * sizeof *full);
	sp->min = r->full;
	r->full_ok = r->full.pass;
	r->full_alloc = 0;
	for (size_t q = 0; q < nseed; q++)
		r->full_alloc += fig[q * RUNREC_NCOL + RUNREC_ALLOC] / (double)nseed;
	r->w0 = w0;
	r->w1 = w1;
	sp->hi = o->plan->steps;
	sp->lo = -1;
}

/* Round 0's full cluster of policy r run (t: its nseed tasks): judged, and its runs
 * counted. */
static void full_run(const struct size_opts *o, struct size_result *r, struct search *sp,
		     const struct task *t, double *full)
{
	size_t nseed = (size_t)(o->hi - o->lo) + 1;
	full_cluster(o, r, sp, t->v, t->nodes, t->w[0], t->w[1], full);
	if (t->reused > 0) { /* size_opts.known's (at every seed): counted apart */
		r->reused = nseed;
		return;
	}
	for (size_t q = 0; q < nseed; q++) {
		r->gave_up += (size_t)t[q].gave_up;
		r->events += t[q].events;
	}
	r->full.events = r->events;
	sp->probes++;
}

/* Judge the probe of t (its nseed tasks) and move the bracket of sp to it. */
static void take(const struct size_opts *o, struct size_result *r, struct search *sp,
		 const struct task *t, const double *full)
{
	size_t nseed = (size_t)(o->hi - o->lo) + 1;
	struct size_check c;
	judge(o, full, t->v, t->step, t->nodes, &c);
	for (size_t q = 0; q < nseed; q++)
		c.events += t[q].events;
	if (c.pass) {
		sp->hi = c.step;
		sp->min = c;
	} else {
		sp->lo = (int)c.step;
		sp->below = c;
	}
	sp->probes++;
	r->events += c.events;
	for (size_t q = 0; q < nseed; q++)
		r->gave_up += (size_t)t[q].gave_up;
}

/* The hint's bracket (nprobe probes, ascending): the smallest that meets the SLO is hi,
 * the one below it lo; both count as probes. Where both meet, the search gallops down from
 * the lower, 2 t, 4 t... steps below it; where both miss, up from the hint, t, 2 t...
 * above it (t = hint_span); then it bisects the bracket the gallop leaves. */
static void hint_bracket(const struct size_opts *o, struct size_result *r, struct search *sp,
			 const struct task *t, size_t nprobe, const double *full)
{
	size_t nseed = (size_t)(o->hi - o->lo) + 1;
	int met = 0;
	for (size_t i = 0; i < nprobe; i++) {
		const struct task *ti = t + i * nseed;
		if (met) { /* run, and so counted, but above the step that met it */
			sp->probes++;
			for (size_t q = 0; q < nseed; q++) {
				r->gave_up += (size_t)ti[q].gave_up;
				r->events += ti[q].events;
			}
			continue;
		}
		take(o, r, sp, ti, full);
		met = sp->hi == ti->step;
	}
	sp->dir = sp->lo < 0 ? -1 : sp->hi == o->plan->steps ? 1 : 0;
	sp->d = (sp->dir < 0 ? 2 : 1) * hint_span(o);
}

/* The bisection's steps, one at a time, as far as this round's probes (nprobe, of
 * next_steps) reach: each the midpoint of the bracket the ones before left. A probe off
 * that path is dropped unseen, so that the answer, the probes counted and the runs that
 * gave up are those of a search on one thread, whatever the threads. */
static void bisect(const struct size_opts *o, struct size_result *r, struct search *sp,
		   const struct task *t, size_t nprobe, const double *full)
{
	size_t nseed = (size_t)(o->hi - o->lo) + 1;
	while (!narrow(o, sp->lo, sp->hi)) {
		int dir = sp->dir;
		unsigned m = next_step(sp->lo, sp->hi, &dir, sp->d);
		size_t i = 0;
		while (i < nprobe && t[i * nseed].step != m)
			i++;
		int made = i < nprobe;
		for (size_t q = 0; made && q < nseed; q++)
			made = t[i * nseed + q].reused >= 0;
		if (!made) /* not run, or ahead of need and not made: asked for next round */
			break;
		take(o, r, sp, t + i * nseed, full);
		/* the gallop goes on while its probes do as the hint's did */
		sp->dir = dir && (dir < 0 ? sp->hi == m : sp->lo == (int)m) ? dir : 0;
		sp->d *= 2;
	}
}

int size_run(const struct size_opts *o, struct size_result **out, struct err *e)
{
	const struct size_plan *plan = o->plan;
	size_t nseed = (size_t)(o->hi - o->lo) + 1, npol = o->npol;
	struct size_result *res = xcalloc(npol, sizeof *res);
	struct search *s = xcalloc(npol, sizeof *s);
	double *full = xcalloc(npol * nseed * RUNREC_NCOL, sizeof *full);
	struct task *t = NULL;
	double *v = NULL, done = 0;
	size_t tcap = 0, vcap = 0;
	int rc = VF_OK;
	struct seed_traces st;
	unsigned *steps = xcalloc(o->nthreads + 2, sizeof *steps); /* a policy's in a round */
	struct interval *iv = xcalloc(2 * (size_t)o->nthreads + 1, sizeof *iv);

	assert(o->lo <= o->hi && npol > 0 && o->nthreads > 0 && plan->steps > 0);
	*out = res;
	seed_traces_init(&st, o);
	for (int round = 0; !rc; round++) {
		/* the steps of this round, per active policy */
		size_t n = 0, nactive = 0;
		for (size_t p = 0; p < npol; p++)
			nactive += round == 0 || s[p].active;
		if (!nactive)
			break;
		unsigned k = (unsigned)(o->nthreads / (nactive * nseed));
		k = k ? k : 1;
		for (size_t p = 0; p < npol; p++) {
			if (round && !s[p].active)
				continue;
			unsigned ns = round_steps(o, &s[p], p, round, k, steps, iv);
			for (unsigned i = 0; i < ns; i++) {
				xgrow(&t, &tcap, n + nseed, sizeof *t);
				for (size_t q = 0; q < nseed; q++)
					t[n++] = (struct task){
						.p = p,
						.step = steps[i],
						.seed = o->lo + q,
						.nodes = nodes_at(plan, steps[i]),
						.ahead = i > 0 && !s[p].bracketed,
						.full = round ? full + (p * nseed + q) * RUNREC_NCOL
							      : NULL};
			}
		}
		xgrow(&v, &vcap, n * RUNREC_NCOL, sizeof *v);
		for (size_t i = 0; i < n; i++)
			t[i].v = v + i * RUNREC_NCOL;

		/* the runs the whole search will make, as far as can be told now */
		double total = done;
		for (size_t p = 0; p < npol; p++) {
			if (round == 0) {
				total += (double)nseed *
					 (!known_runs(o, p) + (o->no_above ? 0 : SIZE_ABOVE) +
					  k * rounds_left(plan->steps + 1, k));
				continue;
			}
			if (s[p].active)
				total += (double)nseed * k *
					 rounds_left(s[p].hi - (unsigned)(s[p].lo + 1) + 1, k);
			if (res[p].full_ok && !o->no_above) /* the check above, at the end */
				total += (double)nseed * SIZE_ABOVE;
		}
		if ((rc = run_tasks(o, &st, t, n, done, fmax(total, 1), e)))
			break;
		done += (double)n;

		/* judge each policy's steps: the probes the bisection makes, in its order */
		for (size_t i = 0; i < n;) {
			size_t p = t[i].p, j = i;
			while (j < n && t[j].p == p)
				j += nseed;
			if (round == 0)
				full_run(o, &res[p], &s[p], t + i, full + p * nseed * RUNREC_NCOL);
			else if (s[p].bracketed)
				hint_bracket(o, &res[p], &s[p], t + i, (j - i) / nseed,
					     full + p * nseed * RUNREC_NCOL);
			else
				bisect(o, &res[p], &s[p], t + i, (j - i) / nseed,
				       full + p * nseed * RUNREC_NCOL);
			s[p].active = res[p].full_ok && !narrow(o, s[p].lo, s[p].hi);
			i = j;
		}
	}
	/* a last round: the SIZE_ABOVE steps just above each size found, where they are not the
	 * full cluster; the first that misses, if one does, shows the policy is not monotone
	 * there, and the size found is a boundary, not a margin */
	size_t n = 0;
	for (size_t p = 0; p < npol && !rc && !o->no_above; p++)
		for (unsigned j = 1; res[p].full_ok && j <= SIZE_ABOVE && s[p].hi + j < plan->steps;
		     j++) {
			xgrow(&t, &tcap, n + nseed, sizeof *t);
			for (size_t q = 0; q < nseed; q++)
				t[n++] =
					(struct task){.p = p,
						      .step = s[p].hi + j,
						      .seed = o->lo + q,
						      .nodes = nodes_at(plan, s[p].hi + j),
						      .full = full + (p * nseed + q) * RUNREC_NCOL};
		}
	if (n && !rc) {
		xgrow(&v, &vcap, n * RUNREC_NCOL, sizeof *v);
		for (size_t i = 0; i < n; i++)
			t[i].v = v + i * RUNREC_NCOL;
		rc = run_tasks(o, &st, t, n, done, done + (double)n, e);
		for (size_t i = 0; i < n && !rc; i++) {
			res[t[i].p].gave_up += (size_t)t[i].gave_up;
			res[t[i].p].events += t[i].events;
		}
	}
	for (size_t i = 0; i < n && !rc; i += nseed) { /* policy by policy, smallest step first */
		size_t p = t[i].p;
		struct size_check c;
		s[p].probes++;
		if (res[p].above_miss)
			continue;
		judge(o, full + p * nseed * RUNREC_NCOL, t[i].v, t[i].step, t[i].nodes, &c);
		res[p].above_checked = t[i].step - s[p].hi;
		if (!c.pass) {
			res[p].above_miss = 1;
			res[p].above = c;
		}
	}
	for (size_t p = 0; p < npol && !rc; p++) {
		struct size_result *r = &res[p];
		r->policy = o->pols[p];
		r->probes = s[p].probes;
		r->min = s[p].min;
		r->has_smaller = s[p].lo >= 0;
		if (r->has_smaller)
			r->below = s[p].below;
		r->kept = xcalloc(plan->ng, sizeof *r->kept);
		for (size_t g = 0; g < plan->ng; g++) {
			const struct size_group *gr = &plan->g[g];
			size_t kept = size_plan_kept(plan, g, r->min.step), gone = gr->n - kept;
			r->kept[g] = kept;
			r->gpus += (int64_t)kept * gr->ngpu;
			if (gone && gr->model >= 0) {
				r->usd_year += (double)gone * gr->ngpu *
					       metrics_price(&o->sc->prices, gr->model) * 8760;
				if (gpumodel_price_assumed(
					    metrics_price_source(&o->sc->prices, gr->model)))
					r->assumed |= 1u << gr->model;
			}
		}
	}
	seed_traces_release(&st, o);
	free(steps);
	free(iv);
	free(t);
	free(v);
	free(s);
	free(full);
	return rc;
}

void size_results_free(struct size_result *r, size_t n)
{
	if (!r)
		return;
	for (size_t i = 0; i < n; i++)
		free(r[i].kept);
	free(r);
}
