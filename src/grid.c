/*
 * grid.c — policies x seeds of one scenario, on a pool of threads (grid.h).
 *
 * One seed's policies run on several threads. Threads take the next policy while fewer than
 * `ahead` results wait to be kept: all of them when nothing is stored (a result is then a few
 * KB), else twice the threads (a stored run holds its series and per-job results). The
 * caller keeps (and stores) the results in policy order, so the store sees what a single
 * thread would give it. Progress goes through one lock, as the sum of the runs' shares (the
 * bar is drawn by one thread at a time).
 */
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "grid.h"

struct progress {
	const struct grid *g;
	size_t run, nruns;
	const char *policy;
	uint64_t seed;
};

static void one_progress(void *u, double done)
{
	struct progress *p = u;
	p->g->progress(p->g->u, p->run, p->nruns, p->policy, p->seed, done);
}

static int stopped(const struct grid *g)
{
	return g->stop && *g->stop;
}

/* Keep run r in row, and in the store unless there is none; releases r. */
static int keep_run(const struct grid *g, const struct replay_trace *t, struct grid_row *row,
		    struct replay_result *r, struct err *e)
{
	int rc = 0;
	runrec_from_result(r, &row->r);
	assert(r->nfaults == g->sc->nfaults);
	if (row->fault_jobs)
		memcpy(row->fault_jobs, r->fault_jobs, r->nfaults * sizeof *r->fault_jobs);
	if (g->st)
		rc = runrec_store(g->st, g->sc, t, r, &row->r.id, e);
	row->done = rc ? 0 : 1;
	replay_result_release(r);
	return rc;
}

struct pool {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	const struct grid *g;
	const struct replay_trace *t;
	const struct policy_ops *const *pols; /* the policies to run at this seed */
	size_t npol, next, kept, ahead;
	int stop; /* a run failed, or the caller stops: start no more */
	struct pool_run {
		struct replay_result r;
		struct err e;
		int rc, done;
		double share; /* of it run so far */
		struct pool *pool;
	} * run;
	struct progress *pr; /* NULL: no progress */
};

static void pool_progress(void *u, double done)
{
	struct pool_run *pr = u;
	struct pool *pl = pr->pool;
	pthread_mutex_lock(&pl->mu);
	pr->share = done;
	double sum = 0;
	for (size_t p = 0; p < pl->npol; p++)
		sum += pl->run[p].share;
	size_t whole = (size_t)sum < pl->npol ? (size_t)sum : pl->npol - 1;
	pl->g->progress(pl->g->u, pl->pr->run + whole, pl->pr->nruns, pl->pols[pr - pl->run]->name,
			pl->t->seed, sum - (double)whole);
	pthread_mutex_unlock(&pl->mu);
}

static void *pool_thread(void *arg)
{
	struct pool *pl = arg;
	pthread_mutex_lock(&pl->mu);
	for (;;) {
		while (!pl->stop && pl->next < pl->npol && pl->next >= pl->kept + pl->ahead)
			pthread_cond_wait(&pl->cv, &pl->mu);
		if (pl->stop || stopped(pl->g) || pl->next >= pl->npol)
			break;
		struct pool_run *pr = &pl->run[pl->next++];
		pthread_mutex_unlock(&pl->mu);
		int rc = replay_run(pl->t, pl->g->sc, pl->pols[pr - pl->run], pl->g->st != NULL,
				    pl->pr ? pool_progress : NULL, pr, pl->g->stop, &pr->r, &pr->e);
		pthread_mutex_lock(&pl->mu);
		pr->rc = rc;
		pr->done = 1;
		pl->stop |= rc != 0;
		pthread_cond_broadcast(&pl->cv);
	}
	pl->stop = 1; /* a thread that leaves wakes the caller, which may wait for nothing */
	pthread_cond_broadcast(&pl->cv);
	pthread_mutex_unlock(&pl->mu);
	return NULL;
}

/* Run pols on t with up to nthreads threads, keeping each result in rows[p * stride] in
 * policy order. */
static int run_pool(const struct grid *g, const struct replay_trace *t,
		    const struct policy_ops *const *pols, size_t npol, unsigned nthreads,
		    struct progress *pr, struct grid_row **rows, struct err *e)
{
	struct pool pl = {.g = g,
			  .t = t,
			  .pols = pols,
			  .npol = npol,
			  .ahead = g->st ? 2 * (size_t)nthreads : npol,
			  .pr = g->progress ? pr : NULL};
	pl.run = xcalloc(npol, sizeof *pl.run);
	for (size_t p = 0; p < npol; p++)
		pl.run[p].pool = &pl;
	pthread_mutex_init(&pl.mu, NULL);
	pthread_cond_init(&pl.cv, NULL);
	pthread_t *th = xcalloc(nthreads, sizeof *th);
	unsigned nth = 0;
	int rc = 0;
	for (; nth < nthreads; nth++)
		if (pthread_create(&th[nth], NULL, pool_thread, &pl))
			break;
	if (!nth)
		rc = err_set(e, VF_EIO, "cannot start a thread");
	for (size_t p = 0; p < npol && !rc; p++) {
		pthread_mutex_lock(&pl.mu);
		while (!pl.run[p].done && !(pl.stop && pl.next <= p))
			pthread_cond_wait(&pl.cv, &pl.mu);
		int done = pl.run[p].done;
		pthread_mutex_unlock(&pl.mu);
		if (!done) { /* stopped before it started */
			rc = VF_ESTOP;
			break;
		}
		if (pl.run[p].rc) {
			rc = pl.run[p].rc;
			*e = pl.run[p].e;
		} else {
			rc = keep_run(g, t, rows[p], &pl.run[p].r, e);
		}
		pthread_mutex_lock(&pl.mu);
		pl.kept = p + 1;
		pl.stop |= rc != 0;
		pthread_cond_broadcast(&pl.cv);
		pthread_mutex_unlock(&pl.mu);
	}
	pthread_mutex_lock(&pl.mu);
	pl.stop = 1;
	pthread_cond_broadcast(&pl.cv);
	pthread_mutex_unlock(&pl.mu);
	for (unsigned i = 0; i < nth; i++)
		pthread_join(th[i], NULL);
	for (size_t p = 0; p < npol; p++) /* what a failure or a stop left unkept */
		if (pl.run[p].done && !pl.run[p].rc && p >= pl.kept)
			replay_result_release(&pl.run[p].r);
	pthread_cond_destroy(&pl.cv);
	pthread_mutex_destroy(&pl.mu);
	free(th);
	free(pl.run);
	return rc;
}

/* --resume: read back the runs the store has of this scenario into the rows. */
static int read_back(const struct grid *g, struct grid_row *out, size_t nseed, struct err *e)
{
	struct sbuf key = SBUF_INIT;
	struct runrec_sel sel;
	int rc;
	int64_t id = 0;

	sbuf_init(&key);
	scenario_key(g->sc, &key);
	rc = runrec_find_scenario(g->st, g->sc->trace_id, key.s, &id, e);
	sbuf_release(&key);
	if (rc || !id)
		return rc;
	struct runrec_query q = {.scenario_id = id,
				 .mode = -1,
				 .pols = g->pols,
				 .npol = g->npol,
				 .seeds_given = 1,
				 .lo = g->lo,
				 .hi = g->hi};
	if ((rc = runrec_select(g->st, "the store", &q, &sel, e)))
		return rc;
	for (size_t i = 0; i < sel.n; i++)
		for (size_t p = 0; p < g->npol; p++)
			if (sel.runs[i].policy == g->pols[p]) {
				struct grid_row *r =
					&out[p * nseed + (size_t)(sel.runs[i].seed - g->lo)];
				r->r = sel.runs[i];
				r->done = 2;
				r->fault_jobs = NULL;
			}
	runrec_sel_release(&sel);
	return 0;
}

int grid_run(const struct grid *g, struct job_set *base, struct grid_row **rows,
	     struct enrich_summary *enr, struct err *e)
{
	size_t nseed = (size_t)(g->hi - g->lo) + 1, n = g->npol * nseed, nf = g->sc->nfaults;
	/* the rows, then each row's fault counts: one block the caller frees */
	struct grid_row *out = xcalloc(1, n * sizeof *out + n * nf * sizeof(int64_t));
	for (size_t i = 0; nf && i < n; i++)
		out[i].fault_jobs = (int64_t *)(void *)(out + n) + i * nf;
	struct progress pr = {g, 0, g->npol * nseed, NULL, 0};
	const struct policy_ops **todo = xcalloc(g->npol, sizeof *todo);
	struct grid_row **slot = xcalloc(g->npol, sizeof *slot);
	int rc = 0;

	assert(g->lo <= g->hi && g->npol > 0 && g->nthreads > 0);
	*rows = out;
	memset(enr, 0, sizeof *enr);
	if (g->resume && g->st)
		rc = read_back(g, out, nseed, e);
	for (size_t k = 0; k < nseed && !rc; k++) {
		struct replay_trace t;
		size_t ntodo = 0;
		for (size_t p = 0; p < g->npol; p++)
			if (!out[p * nseed + k].done) {
				slot[ntodo] = &out[p * nseed + k];
				todo[ntodo++] = g->pols[p];
			}
		if (!ntodo && k > 0)
			continue; /* all read back (the first seed's trace is prepared for enr) */
		if (stopped(g)) {
			rc = VF_ESTOP;
			break;
		}
		if (k + 1 < nseed)
			replay_prepare(&t, base, g->sc, g->lo + k);
		else
			replay_prepare_take(&t, base, g->sc, g->lo + k);
		if (k == 0)
			*enr = t.enr;
		pr.run = k * g->npol + (g->npol - ntodo);
		pr.seed = g->lo + k;
		if (g->nthreads > 1 && ntodo > 1) {
			rc = run_pool(g, &t, todo, ntodo,
				      g->nthreads < ntodo ? g->nthreads : (unsigned)ntodo, &pr,
				      slot, e);
		} else {
			for (size_t p = 0; p < ntodo && !rc; p++) {
				struct replay_result r;
				if (stopped(g)) {
					rc = VF_ESTOP;
					break;
				}
				pr.policy = todo[p]->name;
				rc = replay_run(&t, g->sc, todo[p], g->st != NULL,
						g->progress ? one_progress : NULL, &pr, g->stop, &r,
						e);
				if (!rc)
					rc = keep_run(g, &t, slot[p], &r, e);
				pr.run++;
			}
		}
		if (!rc && stopped(g))
			rc = VF_ESTOP;
		replay_trace_release(&t);
	}
	free(todo);
	free(slot);
	return rc;
}
