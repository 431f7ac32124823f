/*
 * enrich.c — enrichment profiles: parsing, and filling unrecorded demands and capacities.
 *
 * A loaded profile holds its rules and, per target and dim, the index of the rule at each
 * level of specificity (jobs: class, '*'; nodes: model, gpu/cpu kind, '*'), -1 when none.
 * Invariants once loaded: at most one rule per (level, target, dim); every job class is
 * covered on net, sto, iocpu and every node kind on cpu, mem, net, sto, iocpu at some level.
 * Draws hash (profile key, seed, job id or node-name hash, dim): no state, no order.
 */
#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "embed.h"
#include "enrich.h"
#include "gpumodel.h"
#include "rng.h"
#include "words.h"

#define BUILTIN_FILE "enrich-v2.profile"
#define PROFILE_MAX  (1 << 20) /* bytes: a profile is a short text */

enum dist { DIST_FIXED, DIST_UNIFORM, DIST_LOGNORMAL };

struct rule {
	int line;      /* line in the profile, for messages */
	int dist;      /* enum dist */
	double a, b;   /* fixed: value; uniform: lo, hi; lognormal: median, sigma */
	double lo, hi; /* clamp of the draw (before per=gpu scaling) */
	int per_gpu;   /* multiply by the job's / node's GPUs */
	int nlevels;   /* levels=: the values a request may take, ascending (0: any) */
	double levels[ENRICH_LEVELS_MAX];
};

struct enrich_profile {
	char *name;    /* "name" line */
	int version;   /* "version" line, > 0 */
	int name_line; /* where they were set, for a second one's message (0: not yet) */
	int version_line;
	char *text;         /* the whole profile text */
	struct rule *rules; /* nrules rules, in file order */
	size_t nrules, rulecap;
	int job_cls[JOB_NCLASS][DIM_N]; /* rule index for a class, or -1 */
	int job_any[DIM_N];             /* rule index for '*', or -1 */
	int node_model[GPUMODEL_MAX][DIM_N];
	int node_gpu[DIM_N], node_cpu[DIM_N], node_any[DIM_N];
};

/* Dims a rule may name, and the dims every job class / node kind must have a rule for. */
#define RULE_DIMS                                                                                  \
	(DIM_BIT(DIM_CPU) | DIM_BIT(DIM_MEM) | DIM_BIT(DIM_NET) | DIM_BIT(DIM_STO) |               \
	 DIM_BIT(DIM_IOCPU))
#define JOB_NEED  DIMS_SHARED
#define NODE_NEED RULE_DIMS

static uint64_t fnv1a(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h;
}

static void profile_init(struct enrich_profile *p)
{
	memset(p, 0, sizeof *p);
	for (int d = 0; d < DIM_N; d++) {
		for (int c = 0; c < JOB_NCLASS; c++)
			p->job_cls[c][d] = -1;
		for (int m = 0; m < GPUMODEL_MAX; m++)
			p->node_model[m][d] = -1;
		p->job_any[d] = p->node_gpu[d] = p->node_cpu[d] = p->node_any[d] = -1;
	}
}

void enrich_free(struct enrich_profile *p)
{
	if (!p)
		return;
	FREE_ALL(p->name, p->text, p->rules, p);
}

/* Put rule index ri into *slot; an error if a rule of the same level is there. */
static int claim(struct enrich_profile *p, int *slot, int ri, const char *fname, int line,
		 const char *what, enum dim d, struct err *e)
{
	if (*slot == ri)
		return err_set(e, VF_EINPUT, "%s:%d: %s named twice", fname, line, what);
	if (*slot >= 0)
		return err_set(e, VF_EINPUT, "%s:%d: rule for %s on '%s' repeats line %d", fname,
			       line, what, job_dim_name(d), p->rules[*slot].line);
	*slot = ri;
	return VF_OK;
}

/* "L1,L2,..." (numbers >= 0, ascending, at most ENRICH_LEVELS_MAX) into r's levels. */
static int parse_levels(const char *v, struct rule *r, const char *fname, int line, struct err *e)
{
	char buf[1024];
	if (strlen(v) >= sizeof buf)
		return err_set(e, VF_EINPUT, "%s:%d: levels '%.40s...': too long", fname, line, v);
	strcpy(buf, v);
	r->nlevels = 0;
	for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		double x;
		if (parse_double(t, &x) || !isfinite(x) || x < 0)
			return err_set(e, VF_EINPUT, "%s:%d: level '%s' is not a number >= 0",
				       fname, line, t);
		if (r->nlevels == ENRICH_LEVELS_MAX)
			return err_set(e, VF_EINPUT, "%s:%d: more than %d levels", fname, line,
				       ENRICH_LEVELS_MAX);
		if (r->nlevels && x <= r->levels[r->nlevels - 1])
			return err_set(e, VF_EINPUT,
				       "%s:%d: level '%s' is not above the one before", fname, line,
				       t);
		r->levels[r->nlevels++] = x;
	}
	if (!r->nlevels)
		return err_set(e, VF_EINPUT, "%s:%d: levels= names no level", fname, line);
	return VF_OK;
}

/* Read "key=value" params into r; fname:line for messages. */
static int parse_params(char **w, int nw, struct rule *r, const char *fname, int line,
			struct err *e)
{
	double a = NAN, b = NAN;
	r->lo = 0;
	r->hi = INFINITY;
	for (int i = 0; i < nw; i++) {
		char *eq = strchr(w[i], '=');
		if (!eq)
			return err_set(e, VF_EINPUT, "%s:%d: '%s' is not PARAM=VALUE", fname, line,
				       w[i]);
		*eq = '\0';
		const char *k = w[i], *v = eq + 1;
		for (int j = 0; j < i; j++) /* their '=' is a NUL already: w[j] is the key */
			if (!strcmp(w[j], k))
				return err_set(e, VF_EINPUT, "%s:%d: '%s=' given twice", fname,
					       line, k);
		if (!strcmp(k, "levels")) {
			int rc = parse_levels(v, r, fname, line, e);
			if (rc)
				return rc;
			continue;
		}
		if (!strcmp(k, "per")) {
			if (strcmp(v, "gpu"))
				return err_set(e, VF_EINPUT, "%s:%d: per '%s': only per=gpu exists",
					       fname, line, v);
			r->per_gpu = 1;
			continue;
		}
		double x;
		if (parse_double(v, &x) || !isfinite(x) || x < 0)
			return err_set(e, VF_EINPUT, "%s:%d: %s '%s' is not a number >= 0", fname,
				       line, k, v);
		int ok = 1;
		if (!strcmp(k, "min"))
			r->lo = x;
		else if (!strcmp(k, "max"))
			r->hi = x;
		else if (r->dist == DIST_FIXED && !strcmp(k, "value"))
			a = x;
		else if (r->dist == DIST_UNIFORM && !strcmp(k, "lo"))
			a = x;
		else if (r->dist == DIST_UNIFORM && !strcmp(k, "hi"))
			b = x;
		else if (r->dist == DIST_LOGNORMAL && !strcmp(k, "median"))
			a = x;
		else if (r->dist == DIST_LOGNORMAL && !strcmp(k, "sigma"))
			b = x;
		else
			ok = 0;
		if (!ok)
			return err_set(e, VF_EINPUT, "%s:%d: '%s': no such parameter here", fname,
				       line, k);
	}
	if (isnan(a) || (r->dist != DIST_FIXED && isnan(b)))
		return err_set(e, VF_EINPUT, "%s:%d: %s", fname, line,
			       r->dist == DIST_FIXED     ? "fixed needs value="
			       : r->dist == DIST_UNIFORM ? "uniform needs lo= and hi="
							 : "lognormal needs median= and sigma=");
	if (r->dist == DIST_UNIFORM && a > b)
		return err_set(e, VF_EINPUT, "%s:%d: uniform lo= is above hi=", fname, line);
	if (r->dist == DIST_LOGNORMAL && !(a > 0))
		return err_set(e, VF_EINPUT, "%s:%d: lognormal median= must be above 0", fname,
			       line);
	if (r->lo > r->hi)
		return err_set(e, VF_EINPUT, "%s:%d: min= is above max=", fname, line);
	r->a = a;
	r->b = isnan(b) ? 0 : b;
	return VF_OK;
}

/* One "job ..." or "node ..." line, split into nw words. */
static int parse_rule(struct enrich_profile *p, char **w, int nw, const char *fname, int line,
		      struct err *e)
{
	int is_job = !strcmp(w[0], "job");
	if (nw < 4)
		return err_set(e, VF_EINPUT, "%s:%d: want '%s TARGETS DIM DIST PARAM=VALUE...'",
			       fname, line, w[0]);
	int d = job_dim_find(w[2]);
	if (d < 0 || !(RULE_DIMS & DIM_BIT(d)))
		return err_set(e, VF_EINPUT,
			       "%s:%d: dim '%s': rules take net, sto, iocpu, cpu, mem", fname, line,
			       w[2]);
	struct rule r = {.line = line};
	if (!strcmp(w[3], "fixed"))
		r.dist = DIST_FIXED;
	else if (!strcmp(w[3], "uniform"))
		r.dist = DIST_UNIFORM;
	else if (!strcmp(w[3], "lognormal"))
		r.dist = DIST_LOGNORMAL;
	else
		return err_set(e, VF_EINPUT,
			       "%s:%d: distribution '%s': want fixed, uniform or "
			       "lognormal",
			       fname, line, w[3]);
	int rc = parse_params(w + 4, nw - 4, &r, fname, line, e);
	if (rc)
		return rc;
	int ri = (int)p->nrules;
	xgrow(&p->rules, &p->rulecap, p->nrules + 1, sizeof *p->rules);
	p->rules[p->nrules++] = r;
	/* Each target of the '|' list claims its slot. */
	for (char *save = NULL, *t = strtok_r(w[1], "|", &save); t;
	     t = strtok_r(NULL, "|", &save)) {
		int *slot = NULL;
		if (!strcmp(t, "*"))
			slot = is_job ? &p->job_any[d] : &p->node_any[d];
		else if (is_job) {
			for (int c = 0; c < JOB_NCLASS; c++)
				if (!strcmp(t, job_class_name((enum job_class)c)))
					slot = &p->job_cls[c][d];
			if (!slot)
				return err_set(e, VF_EINPUT,
					       "%s:%d: job class '%s': want infer, "
					       "train, batch, cpu or '*'",
					       fname, line, t);
		} else if (!strcmp(t, "gpu"))
			slot = &p->node_gpu[d];
		else if (!strcmp(t, "cpu"))
			slot = &p->node_cpu[d];
		else {
			int m = gpumodel_find(t);
			if (m < 0)
				return err_set(e, VF_EINPUT,
					       "%s:%d: node type '%s': not a GPU model, "
					       "'gpu', 'cpu' or '*'",
					       fname, line, t);
			slot = &p->node_model[m][d];
		}
		char what[64];
		snprintf(what, sizeof what, "%s '%s'", w[0], t);
		rc = claim(p, slot, ri, fname, line, what, (enum dim)d, e);
		if (rc)
			return rc;
	}
	return VF_OK;
}

static int check_coverage(const struct enrich_profile *p, const char *fname, struct err *e)
{
	if (!p->name)
		return err_set(e, VF_EINPUT, "%s: no 'name' line", fname);
	if (!p->version)
		return err_set(e, VF_EINPUT, "%s: no 'version' line", fname);
	for (int c = 0; c < JOB_NCLASS; c++)
		for (int d = 0; d < DIM_N; d++)
			if ((JOB_NEED & DIM_BIT(d)) && p->job_cls[c][d] < 0 && p->job_any[d] < 0)
				return err_set(e, VF_EINPUT,
					       "%s: no job rule covers class '%s' on '%s'", fname,
					       job_class_name((enum job_class)c),
					       job_dim_name((enum dim)d));
	for (int kind = 0; kind < 2; kind++)
		for (int d = 0; d < DIM_N; d++) {
			int slot = kind ? p->node_cpu[d] : p->node_gpu[d];
			if ((NODE_NEED & DIM_BIT(d)) && slot < 0 && p->node_any[d] < 0)
				return err_set(e, VF_EINPUT,
					       "%s: no node rule covers '%s' nodes on '%s'", fname,
					       kind ? "cpu" : "gpu", job_dim_name((enum dim)d));
		}
	return VF_OK;
}

int enrich_parse(const char *text, size_t len, const char *fname, struct enrich_profile **out,
		 struct err *e)
{
	int rc;
	struct enrich_profile *p = xmalloc(sizeof *p);
	struct words r;
	profile_init(p);
	*out = NULL;
	if ((rc = words_open(&r, text, len, fname, e)))
		goto out;
	p->text = xstrndup(text, len);
	while ((rc = words_next(&r, e)) > 0) {
		char **w = r.w;
		int nw = r.n, lineno = r.lineno;
		rc = VF_OK;
		if (!strcmp(w[0], "name") || !strcmp(w[0], "version")) {
			int is_name = w[0][0] == 'n';
			int64_t v = 0;
			if (nw != 2)
				rc = err_set(e, VF_EINPUT, "%s:%d: want '%s VALUE'", fname, lineno,
					     w[0]);
			else if (is_name ? p->name_line : p->version_line)
				rc = err_set(e, VF_EINPUT, "%s:%d: '%s' repeats line %d", fname,
					     lineno, w[0],
					     is_name ? p->name_line : p->version_line);
			else if (!is_name && (parse_i64(w[1], &v) || v <= 0 || v > 1000000000))
				rc = err_set(e, VF_EINPUT,
					     "%s:%d: version '%s' is not a positive "
					     "integer",
					     fname, lineno, w[1]);
			if (rc)
				goto out;
			if (is_name) {
				p->name = xstrdup(w[1]);
				p->name_line = lineno;
			} else {
				p->version = (int)v;
				p->version_line = lineno;
			}
		} else if (!strcmp(w[0], "job") || !strcmp(w[0], "node")) {
			rc = parse_rule(p, w, nw, fname, lineno, e);
			if (rc)
				goto out;
		} else {
			rc = err_set(e, VF_EINPUT, "%s:%d: '%s': want name, version, job or node",
				     fname, lineno, w[0]);
			goto out;
		}
	}
	if (rc < 0)
		rc = -rc;
	else
		rc = check_coverage(p, fname, e);
out:
	words_close(&r);
	if (rc)
		enrich_free(p);
	else
		*out = p;
	return rc;
}

int enrich_load(const char *path, struct enrich_profile **out, struct err *e)
{
	*out = NULL;
	if (!path) {
		for (const struct embed_file *f = embed_files; f->name; f++)
			if (!strcmp(f->name, BUILTIN_FILE))
				return enrich_parse(f->data, f->len, BUILTIN_FILE, out, e);
		assert(!"the built-in profile is compiled in");
		return err_set(e, VF_EIO, "%s: not compiled in", BUILTIN_FILE);
	}
	struct sbuf b;
	sbuf_init(&b);
	int rc = words_read_file(path, PROFILE_MAX, "a profile", &b, e);
	if (!rc)
		rc = enrich_parse(b.s, b.len, path, out, e);
	sbuf_release(&b);
	return rc;
}

const char *enrich_name(const struct enrich_profile *p)
{
	return p->name;
}

int enrich_version(const struct enrich_profile *p)
{
	return p->version;
}

const char *enrich_text(const struct enrich_profile *p)
{
	return p->text;
}

/* A uniform double in (0, 1) from a hash. */
static double unit(uint64_t h)
{
	return ((double)(h >> 11) + 0.5) * 0x1.0p-53;
}

/* The value of rule r for (key, id, dim), before rounding: draw, clamp, scale. */
static double draw(const struct rule *r, uint64_t key, uint64_t id, enum dim d, double gpus)
{
	static const double two_pi = 6.283185307179586476925;
	double x = r->a;
	uint64_t h1 = rng_hash(key, id, 2 * (uint64_t)d);
	if (r->dist == DIST_UNIFORM)
		x = r->a + (r->b - r->a) * unit(h1);
	else if (r->dist == DIST_LOGNORMAL) {
		double u2 = unit(rng_hash(key, id, 2 * (uint64_t)d + 1));
		double z = sqrt(-2 * log(unit(h1))) * cos(two_pi * u2); /* Box-Muller */
		x = exp(log(r->a) + r->b * z);
	}
	x = x < r->lo ? r->lo : x > r->hi ? r->hi : x;
	x = r->per_gpu ? x * gpus : x;
	return r->nlevels ? enrich_snap(r->levels, (size_t)r->nlevels, x) : x;
}

const double enrich_bw_levels[ENRICH_BW_NLEVELS] = {1,   2,    5,    10,   20,    50,    100,  200,
						    500, 1000, 2000, 5000, 10000, 20000, 50000};
const double enrich_core_levels[ENRICH_CORE_NLEVELS] = {0,    1000,  2000,  3000,  4000, 6000,
							8000, 12000, 16000, 24000, 32000};

double enrich_snap(const double *levels, size_t n, double x)
{
	assert(n > 0);
	size_t lo = 0, hi = n; /* the first level >= x */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (levels[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == n)
		return levels[n - 1];
	if (lo == 0)
		return levels[0];
	/* the nearer of the two around x; halfway goes up, as rounding does */
	return x - levels[lo - 1] < levels[lo] - x ? levels[lo - 1] : levels[lo];
}

static int64_t to_int(double x)
{
	return x <= 0 ? 0 : x >= 9e18 ? INT64_MAX : (int64_t)llround(x);
}

/* The rule for class c on dim d, or NULL. */
static const struct rule *job_rule(const struct enrich_profile *p, int c, int d)
{
	int ri = p->job_cls[c][d] >= 0 ? p->job_cls[c][d] : p->job_any[d];
	return ri >= 0 ? &p->rules[ri] : NULL;
}

static const struct rule *node_rule(const struct enrich_profile *p, const struct node *n, int d)
{
	int ri = -1;
	if (n->ngpu > 0) {
		int m = n->model >= 0 && n->model < GPUMODEL_MAX ? n->model : gpumodel_unknown();
		ri = p->node_model[m][d] >= 0 ? p->node_model[m][d] : p->node_gpu[d];
	} else
		ri = p->node_cpu[d];
	if (ri < 0)
		ri = p->node_any[d];
	return ri >= 0 ? &p->rules[ri] : NULL;
}

void enrich_apply(const struct enrich_profile *p, uint64_t seed, double io_pressure,
		  struct job_set *set)
{
	assert(p && set);
	assert(io_pressure >= 0 && isfinite(io_pressure));
	uint64_t pkey = rng_hash(fnv1a(p->name), (uint64_t)p->version, 0);
	uint64_t jkey = rng_hash(pkey, seed, 1), nkey = rng_hash(pkey, seed, 2);
	for (size_t i = 0; i < set->njobs; i++) {
		struct job *j = &set->jobs[i];
		int c = j->cls < JOB_NCLASS ? j->cls : JOB_BATCH;
		double gpus = j->num_gpu > 0 ? j->num_gpu * (j->gpu_milli / 1000.0) : 1.0;
		for (int d = 0; d < DIM_N; d++) {
			const struct rule *r;
			if (j->dem[d] >= 0 || !(RULE_DIMS & DIM_BIT(d)) || !(r = job_rule(p, c, d)))
				continue;
			j->dem[d] = to_int(draw(r, jkey, (uint64_t)j->id, (enum dim)d, gpus));
			j->enriched |= (uint8_t)DIM_BIT(d);
		}
		for (int d = DIM_NET; d <= DIM_STO; d++)
			if (j->dem[d] > 0 && io_pressure != 1.0)
				j->dem[d] = to_int((double)j->dem[d] * io_pressure);
	}
	for (size_t i = 0; i < set->nnodes; i++) {
		struct node *n = &set->nodes[i];
		uint64_t id = fnv1a(n->name);
		for (int d = 0; d < DIM_N; d++) {
			if (n->cap[d] >= 0)
				continue;
			if (d == DIM_GPU)
				n->cap[d] = (int64_t)n->ngpu * 1000;
			else if (d == DIM_HBM) {
				int m = n->model >= 0 ? n->model : gpumodel_unknown();
				n->cap[d] = n->ngpu > 0 ? n->ngpu * gpumodel_get(m)->hbm_mib : 0;
			} else {
				const struct rule *r = node_rule(p, n, d);
				assert(r && "a loaded profile covers every node kind");
				double gpus = n->ngpu > 0 ? n->ngpu : 1;
				n->cap[d] = to_int(draw(r, nkey, id, (enum dim)d, gpus));
			}
			n->enriched |= (uint8_t)DIM_BIT(d);
		}
	}
}

void enrich_summarize(const struct job_set *set, struct enrich_summary *s)
{
	memset(s, 0, sizeof *s);
	s->njobs = set->njobs;
	s->nnodes = set->nnodes;
	for (size_t i = 0; i < set->njobs; i++) {
		uint8_t b = set->jobs[i].enriched;
		s->jobs_any += b != 0;
		for (int d = 0; d < DIM_N; d++)
			s->jobs[d] += (b & DIM_BIT(d)) != 0;
	}
	for (size_t i = 0; i < set->nnodes; i++) {
		uint8_t b = set->nodes[i].enriched;
		s->nodes_any += b != 0;
		for (int d = 0; d < DIM_N; d++)
			s->nodes[d] += (b & DIM_BIT(d)) != 0;
	}
}

static void describe_part(struct sbuf *out, const char *what, const size_t *cnt, size_t any,
			  size_t total)
{
	sbuf_printf(out, "%s: ", what);
	if (!any) {
		sbuf_printf(out, "none of %zu", total);
		return;
	}
	const char *sep = "";
	for (int d = 0; d < DIM_N; d++) {
		if (!cnt[d])
			continue;
		sbuf_printf(out, "%s%s %zu/%zu", sep, job_dim_name((enum dim)d), cnt[d], total);
		sep = ", ";
	}
}

void enrich_describe(const struct enrich_summary *s, struct sbuf *out)
{
	describe_part(out, "jobs", s->jobs, s->jobs_any, s->njobs);
	sbuf_adds(out, "; ");
	describe_part(out, "nodes", s->nodes, s->nodes_any, s->nnodes);
}

/* One part of what describe_part wrote, after "WHAT: ", up to ';' or the end, into cnt, *any
 * and *total: 0, or -1 if it is not in that form. */
static int parse_part(const char **text, size_t *cnt, size_t *any, size_t *total)
{
	const char *t = *text;
	int used = 0;
	if (sscanf(t, "none of %zu%n", total, &used) == 1) {
		*text = t + used;
		return 0;
	}
	for (;;) {
		char name[16];
		size_t n, of;
		int d;
		if (sscanf(t, "%15[a-z] %zu/%zu%n", name, &n, &of, &used) != 3 ||
		    (d = job_dim_find(name)) < 0)
			return -1;
		cnt[d] = n;
		*total = of;
		*any = n > *any ? n : *any;
		t += used;
		if (strncmp(t, ", ", 2))
			break;
		t += 2;
	}
	*text = t;
	return 0;
}

int enrich_describe_parse(const char *text, struct enrich_summary *s)
{
	memset(s, 0, sizeof *s);
	if (strncmp(text, "jobs: ", 6))
		return -1;
	text += 6;
	if (parse_part(&text, s->jobs, &s->jobs_any, &s->njobs) || strncmp(text, "; nodes: ", 9))
		return -1;
	text += 9;
	if (parse_part(&text, s->nodes, &s->nodes_any, &s->nnodes) || *text)
		return -1;
	return 0;
}
