/*
 * metrics.c — turning a replay's counters and job results into the numbers of DESIGN.md
 * section 7 (metrics.h). Buckets are kept per GPU model and class in integer
 * GPU-milli-seconds, so provisioned is their exact sum.
 */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "frag.h"
#include "gang.h"
#include "metrics.h"

#define MS_PER_HOUR 3.6e6 /* GPU-milli-seconds in one GPU-hour */

void metrics_opts_init(struct metrics_opts *o)
{
	o->tier = GPUMODEL_ON_DEMAND;
	for (int m = 0; m < GPUMODEL_MAX; m++)
		o->price[m] = -1;
}

int metrics_price_split(const char *s, char name[METRICS_MODEL_NAME], double *usd, struct err *e)
{
	const char *eq = strchr(s, '=');
	if (!eq || eq == s || (size_t)(eq - s) >= METRICS_MODEL_NAME)
		return err_set(e, VF_EINPUT, "'%s': not MODEL=USD", s);
	memcpy(name, s, (size_t)(eq - s));
	name[eq - s] = '\0';
	if (parse_double(eq + 1, usd) || *usd < 0)
		return err_set(e, VF_EINPUT, "'%s': price '%s' is not a number >= 0", s, eq + 1);
	return VF_OK;
}

int metrics_price_parse(struct metrics_opts *o, const char *s, struct err *e)
{
	char name[METRICS_MODEL_NAME];
	double usd;
	int rc = metrics_price_split(s, name, &usd, e);
	if (rc)
		return rc;
	int m = gpumodel_find(name);
	if (m < 0)
		return err_set(e, VF_EINPUT, "'%s': unknown GPU model '%s'", s, name);
	o->price[m] = usd;
	return VF_OK;
}

static const struct gpumodel *model_row(int model)
{
	return model >= 0 && model < gpumodel_count() ? gpumodel_get(model)
						      : gpumodel_get(gpumodel_unknown());
}

double metrics_price(const struct metrics_opts *o, int model)
{
	if (o && model >= 0 && model < GPUMODEL_MAX && o->price[model] >= 0)
		return o->price[model];
	return model_row(model)->usd[o ? o->tier : GPUMODEL_ON_DEMAND];
}

const char *metrics_price_source(const struct metrics_opts *o, int model)
{
	if (o && model >= 0 && model < GPUMODEL_MAX && o->price[model] >= 0)
		return "--gpu-price";
	return model_row(model)->source[o ? o->tier : GPUMODEL_ON_DEMAND];
}

void metrics_prices_note(const struct metrics_opts *o, uint32_t assumed, struct sbuf *out)
{
	sbuf_adds(out, gpumodel_tier_name(o ? o->tier : GPUMODEL_ON_DEMAND));
	int over = 0;
	for (int m = 0; o && m < GPUMODEL_MAX; m++)
		over |= o->price[m] >= 0;
	if (over)
		sbuf_adds(out, " with --gpu-price overrides");
	if (assumed) {
		sbuf_adds(out, "; assumed (not a list price): ");
		const char *sep = "";
		for (int m = 0; m < gpumodel_count(); m++)
			if (assumed >> m & 1) {
				sbuf_printf(out, "%s%s", sep, gpumodel_get(m)->name);
				sep = ", ";
			}
	}
}

int metrics_by_placement(enum sim_bucket b)
{
	return b == SIM_B_STALLED || b == SIM_B_LOST || (b >= SIM_B_IDLE0 && b < SIM_B_FULL) ||
	       b == SIM_B_RESERVED || b == SIM_B_GANG;
}

void metrics_cost(const struct sim_bucket_ms *b, const struct metrics_opts *o, int model, int cls,
		  double window_hours, struct metrics_cost *out)
{
	double prov = 0;
	memset(out, 0, sizeof *out);
	for (int g = 0; g < GPUMODEL_MAX; g++) {
		if (model >= 0 && g != model)
			continue;
		int64_t sum = 0;
		double price = metrics_price(o, g) / MS_PER_HOUR;
		for (int c = 0; c <= JOB_NCLASS; c++)
			if (cls < 0 || c == cls)
				for (int k = 0; k < SIM_NBUCKET; k++) {
					out->usd[k] += (double)b->ms[g][c][k] * price;
					sum += b->ms[g][c][k];
				}
		prov += (double)sum * price;
		if (sum && strcmp(metrics_price_source(o, g), "--gpu-price") &&
		    gpumodel_price_assumed(metrics_price_source(o, g)))
			out->assumed_models |= 1u << g;
	}
	for (int k = 0; k < SIM_NBUCKET; k++) {
		out->usd_year[k] = metrics_per_year(out->usd[k], window_hours);
		if (metrics_by_placement((enum sim_bucket)k))
			out->usd_year_placement += out->usd_year[k];
	}
	out->usd_year_sizing = out->usd_year[SIM_B_UNNEEDED];
	out->usd_year_provisioned = metrics_per_year(prov, window_hours);
}

void metrics_price_all(struct metrics *m, const struct metrics_opts *o)
{
	struct metrics_cost c;
	metrics_cost(&m->buckets, o, -1, -1, m->window_hours, &c);
	memcpy(m->usd_year, c.usd_year, sizeof m->usd_year);
	m->usd_year_placement = c.usd_year_placement;
	m->usd_year_sizing = c.usd_year_sizing;
	m->usd_year_provisioned = c.usd_year_provisioned;
	m->assumed_models = c.assumed_models;
}

double metrics_per_year(double usd, double hours)
{
	return hours > 0 ? usd * 8760.0 / hours : 0;
}

/* The k-th smallest (0-based) of v[0..n), k < n; v is reordered. Quickselect (Hoare's
 * partition around the median of three), O(n) expected: a full sort of a million values
 * took most of metrics_compute. The median of three is never the unique largest value, so
 * every partition leaves both sides non-empty. */
static double select_kth(double *v, size_t n, size_t k)
{
	size_t lo = 0, hi = n - 1;
	while (lo < hi) {
		double a = v[lo], b = v[lo + (hi - lo) / 2], c = v[hi];
		double piv = a < b ? (b < c ? b : a < c ? c : a) : (a < c ? a : b < c ? c : b);
		size_t i = lo, j = hi;
		for (;;) {
			while (v[i] < piv)
				i++;
			while (v[j] > piv)
				j--;
			if (i >= j)
				break;
			double t = v[i];
			v[i++] = v[j];
			v[j--] = t;
		}
		/* now v[lo..j] <= piv <= v[j+1..hi] */
		if (k <= j)
			hi = j;
		else
			lo = j + 1;
	}
	return v[k];
}

/* Nearest-rank percentile q (0..1] of v[0..n), reordered in place; 0 when n is 0. */
static double pct(double *v, size_t n, double q)
{
	if (!n)
		return 0;
	size_t k = (size_t)ceil(q * (double)n);
	return select_kth(v, n, k ? k - 1 : 0);
}

/* Value arrays for percentiles, one per class and one overall. The classes' arrays are
 * consecutive parts of the overall one (each class's values in job order), so a million
 * jobs fill 24 MB, not 48: the overall percentile is taken after the classes', over the
 * parts closed up (a k-th smallest value does not depend on the order the values are in). */
struct acc {
	double *wait, *jct, *slow;
	size_t nwait, njct, nslow;
	double swait, sjct, sslow;
};

static void jobs_finish(struct metrics_jobs *mj, struct acc *a, double hours)
{
	mj->wait_mean = a->nwait ? a->swait / (double)a->nwait : 0;
	mj->jct_mean = a->njct ? a->sjct / (double)a->njct : 0;
	mj->slowdown_mean = a->nslow ? a->sslow / (double)a->nslow : 0;
	mj->wait_p50 = pct(a->wait, a->nwait, 0.5);
	mj->wait_p95 = pct(a->wait, a->nwait, 0.95);
	mj->jct_p95 = pct(a->jct, a->njct, 0.95);
	mj->slowdown_p95 = pct(a->slow, a->nslow, 0.95);
	mj->throughput_per_hour = hours > 0 ? (double)mj->finished / hours : 0;
}

/* Move n values down from src to dst (<= src): a part of the arrays to the end of the ones
 * before it, which leaves it in place when they are full. */
static void close_up(double *dst, const double *src, size_t n)
{
	if (dst != src)
		memmove(dst, src, n * sizeof *dst);
}

/* The class a result counts under. */
static int result_class(const struct sim_job_result *r)
{
	return r->cls < JOB_NCLASS ? r->cls : JOB_BATCH;
}

/* Count r in mj and a; fill: store its values in a's arrays too. */
static void jobs_add(struct metrics_jobs *mj, struct acc *a, const struct sim_job_result *r,
		     int fill)
{
	/* the counter of each state a job can end the replay in (pending: none) */
	int64_t *const by_state[] = {
		[SIM_JOB_QUEUED] = &mj->queued,     [SIM_JOB_RUNNING] = &mj->running,
		[SIM_JOB_FINISHED] = &mj->finished, [SIM_JOB_UNPLACEABLE] = &mj->unplaceable,
		[SIM_JOB_SKIPPED] = &mj->skipped,
	};
	mj->jobs++;
	if ((size_t)r->state < sizeof by_state / sizeof *by_state && by_state[r->state])
		(*by_state[r->state])++;
	if (r->npreempt)
		mj->preempted++;
	mj->stalled_gpu_hours += r->stalled_gpu_s / 3600;
	mj->lost_gpu_hours += r->lost_gpu_s / 3600;
	if (r->start >= 0) {
		if (fill)
			a->wait[a->nwait] = (double)(r->start - r->submit);
		a->nwait++;
		a->swait += (double)(r->start - r->submit);
	}
	if (r->state == SIM_JOB_FINISHED) {
		if (fill)
			a->jct[a->njct] = (double)(r->end - r->submit);
		a->njct++;
		a->sjct += (double)(r->end - r->submit);
		if (r->t_alone > 0) {
			if (fill)
				a->slow[a->nslow] = r->slowdown;
			a->nslow++;
			a->sslow += r->slowdown;
		}
	}
}

/* Inflation: the final state held for one hour. Allocated GPUs are productive (per class of
 * the job); a node's free GPUs that the target workload's GPU shapes cannot use (F_n over
 * those shapes alone, their popularity made to sum to 1) are blocked, the rest unneeded. */
static void inflate_buckets(const struct sim *s, struct metrics *m)
{
	const struct sim_counters *k = sim_counters(s);
	const struct cluster *c = sim_cluster(s);
	const struct frag_workload *wl = sim_workload(s);
	struct frag_workload gw = {0};
	double psum = 0;
	if (wl) {
		gw.shapes = xcalloc(wl->n ? wl->n : 1, sizeof *gw.shapes);
		for (size_t i = 0; i < wl->n; i++)
			if (wl->shapes[i].num_gpu > 0) {
				gw.shapes[gw.n] = wl->shapes[i];
				gw.shapes[gw.n].need = -1;
				psum += gw.shapes[gw.n++].p;
			}
		for (size_t i = 0; i < gw.n; i++)
			gw.shapes[i].p /= psum;
		memcpy(gw.price_share, wl->price_share, sizeof gw.price_share);
	}
	double blocked[GPUMODEL_MAX] = {0};
	for (size_t n = 0; n < c->n && gw.n; n++) {
		int g = c->spec[n].model;
		if (g >= 0 && g < GPUMODEL_MAX)
			blocked[g] += frag_node(c, n, &gw);
	}
	m->w0 = m->w1 = k->now;
	m->window_hours = 1;
	for (int g = 0; g < GPUMODEL_MAX; g++) {
		if (!k->gpu_cap[g])
			continue;
		int64_t alloc = 0;
		for (int cl = 0; cl < JOB_NCLASS; cl++) {
			m->buckets.ms[g][cl][SIM_B_PRODUCTIVE] = k->alloc_cls[g][cl] * 3600;
			alloc += k->alloc_cls[g][cl];
		}
		int64_t idle = (k->gpu_cap[g] - alloc) * 3600;
		int64_t bl = llround(blocked[g] * 3600);
		bl = bl < 0 ? 0 : bl > idle ? idle : bl;
		m->buckets.ms[g][SIM_CLS_NONE][SIM_B_SHAPE] = bl;
		m->buckets.ms[g][SIM_CLS_NONE][SIM_B_UNNEEDED] = idle - bl;
	}
	free(gw.shapes);
}

void metrics_compute(const struct sim *s, const struct metrics_opts *o, struct metrics *m)
{
	const struct sim_counters *k = sim_counters(s);
	const struct cluster *c = sim_cluster(s);
	const struct sim_opts *so = sim_options(s);
	size_t nj = sim_njobs(s);
	int64_t span = k->now - k->t0;
	struct sim_job_result r;
	struct sim_sample now;

	memset(m, 0, sizeof *m);
	m->mode = so->mode;
	m->t0 = k->t0;
	m->t1 = k->now;
	m->makespan_s = (double)span;
	m->hours = (double)span / 3600;
	for (size_t n = 0; n < c->n; n++)
		m->gpus += c->spec[n].ngpu;

	/* Jobs: per class and overall; work done by running jobs counts as productive. Each
	 * class's values go to its part of the arrays, as long as its jobs (huge pages where
	 * offered: a part is as large as the values it may get, so no more than nj of each
	 * kind are touched). */
	struct acc acc[JOB_NCLASS + 1], all;
	size_t part[JOB_NCLASS], off = 0;
	memset(acc, 0, sizeof acc);
	memset(&all, 0, sizeof all);
	all.wait = xmalloc_big((nj ? nj : 1) * sizeof(double));
	all.jct = xmalloc_big((nj ? nj : 1) * sizeof(double));
	all.slow = xmalloc_big((nj ? nj : 1) * sizeof(double));
	for (int i = 0; i < JOB_NCLASS; i++)
		off += part[i] = sim_njobs_class(s, i);
	part[JOB_BATCH] += nj - off; /* classes past JOB_NCLASS count as batch */
	off = 0;
	for (int i = 0; i < JOB_NCLASS; i++) {
		acc[i].wait = all.wait + off;
		acc[i].jct = all.jct + off;
		acc[i].slow = all.slow + off;
		off += part[i];
	}
	for (size_t i = 0; i < nj; i++) {
		sim_job_result(s, i, &r);
		int cls = result_class(&r);
		jobs_add(&m->all, &acc[JOB_NCLASS], &r, 0);
		jobs_add(&m->cls[cls], &acc[cls], &r, 1);
		assert((size_t)m->cls[cls].jobs <= part[cls]);
	}
	for (int i = 0; i < JOB_NCLASS; i++)
		jobs_finish(&m->cls[i], &acc[i], m->hours);
	/* The overall values: the classes' parts closed up (the classes' percentiles reordered
	 * them, which no k-th smallest value depends on). */
	for (int i = 0; i < JOB_NCLASS; i++) {
		close_up(all.wait + all.nwait, acc[i].wait, acc[i].nwait);
		close_up(all.jct + all.njct, acc[i].jct, acc[i].njct);
		close_up(all.slow + all.nslow, acc[i].slow, acc[i].nslow);
		all.nwait += acc[i].nwait;
		all.njct += acc[i].njct;
		all.nslow += acc[i].nslow;
	}
	assert(acc[JOB_NCLASS].nwait == all.nwait && acc[JOB_NCLASS].njct == all.njct &&
	       acc[JOB_NCLASS].nslow == all.nslow);
	acc[JOB_NCLASS].wait = all.wait;
	acc[JOB_NCLASS].jct = all.jct;
	acc[JOB_NCLASS].slow = all.slow;
	jobs_finish(&m->all, &acc[JOB_NCLASS], m->hours);
	free(all.wait);
	free(all.jct);
	free(all.slow);

	/* Buckets over the window (timed) or of the final state held an hour (inflation). */
	double frag_all = 0;
	int64_t alloc_all = 0, cap_all = 0;
	if (so->mode == SIM_TIMED) {
		sim_buckets(k, sim_done(s), &m->buckets);
		m->w0 = k->w0;
		m->w1 = k->w1;
		m->window_hours = (double)(k->w1 - k->w0) / 3600;
		m->carry_jobs = k->carry_jobs > 0 ? k->carry_jobs : 0;
		m->carry_gpu_hours = k->carry_jobs > 0 ? k->carry_gpu_ms / MS_PER_HOUR : 0;
	} else {
		inflate_buckets(s, m);
	}
	for (int g = 0; g < GPUMODEL_MAX; g++) {
		for (int cl = 0; cl <= JOB_NCLASS; cl++)
			for (int b = 0; b < SIM_NBUCKET; b++) {
				m->bucket_ms[b] += m->buckets.ms[g][cl][b];
				m->provisioned_ms += m->buckets.ms[g][cl][b];
			}
		frag_all += k->frag_ms[g];
		alloc_all += k->alloc_ms[g];
		cap_all += k->gpu_cap[g];
	}
	for (int b = 0; b < SIM_NBUCKET; b++) {
		m->gpu_hours[b] = (double)m->bucket_ms[b] / MS_PER_HOUR;
		if (b >= SIM_B_IDLE0 && b != SIM_B_UNNEEDED)
			m->idle_blocked_gpu_hours += m->gpu_hours[b];
	}
	m->provisioned_gpu_hours = (double)m->provisioned_ms / MS_PER_HOUR;
	metrics_price_all(m, o);

	/* Time-weighted means; a replay of zero length reports the state now. */
	sim_sample_now(s, &now);
	if (span > 0 && cap_all > 0) {
		double den = (double)cap_all * (double)span;
		m->frag_mean = frag_all / den;
		m->alloc_mean = (double)alloc_all / den;
	} else {
		m->frag_mean = now.frag;
		m->alloc_mean = now.alloc_share;
	}
	m->frag_md_mean =
		span > 0 && c->n ? k->frag_md_s / ((double)c->n * (double)span) : now.frag_md;
	m->whole_free_mean = span > 0 ? k->whole_free_s / (double)span : (double)now.whole_free;
	m->whole_want_mean = span > 0 ? k->whole_want_s / (double)span : (double)now.whole_want;
	struct gang_count gc;
	gang_count(sim_jobs(s), &gc);
	m->gang_jobs = gc.jobs;
	for (int d = 0; d < DIM_N; d++)
		m->stranded_mean[d] =
			span > 0 && c->total[d] > 0
				? k->stranded_s[d] / ((double)c->total[d] * (double)span)
				: now.stranded[d];
	m->load = now.load;
	m->unalloc_share = 1 - now.alloc_share;
	m->failed = k->failed;
}

static void series_sample(void *u, const struct sim *s, const struct sim_sample *smp)
{
	struct metrics_series *ser = u;
	(void)s;
	xgrow(&ser->pts, &ser->cap, ser->n + 1, sizeof *ser->pts);
	ser->pts[ser->n++] = *smp;
}

struct sim_observer metrics_series_observer(struct metrics_series *ser)
{
	struct sim_observer o = {.u = ser, .on_sample = series_sample};
	return o;
}

void metrics_series_release(struct metrics_series *ser)
{
	if (!ser)
		return;
	free(ser->pts);
	memset(ser, 0, sizeof *ser);
}

size_t metrics_unalloc_curve(const struct metrics_series *ser, double target, double *out,
			     size_t max)
{
	size_t n = (size_t)floor(target * 100 + 1e-9) + 1, i = 0;
	double last = 1;
	for (size_t p = 0; p < n; p++) {
		while (i < ser->n && ser->pts[i].load * 100 < (double)p - 1e-9)
			i++;
		if (i < ser->n)
			last = 1 - ser->pts[i].alloc_share;
		else if (ser->n)
			last = 1 - ser->pts[ser->n - 1].alloc_share;
		if (p < max)
			out[p] = last;
	}
	return n;
}
