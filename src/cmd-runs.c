/*
 * cmd-runs.c — 'voidfit runs': the runs a store holds, grouped by scenario (what defines it,
 * then each policy's seeds, run ids and when), as text or JSON; 'voidfit runs rm' deletes
 * runs, all or none.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd.h"
#include "esc.h"
#include "json.h"
#include "runrec.h"
#include "store.h"

static int check_runs(struct cmd_ctx *ctx);
static int exec_runs(struct cmd_ctx *ctx);

const struct cmd_entry cmd_runs_entry = {
	.name = "runs",
	.usage = "STORE [--trace T] [--json] | rm STORE ID...",
	.summary = "list the stored runs by scenario, or delete runs",
	.opts = CMD_USES(
		{CMD_O_TRACE, NULL, "only the scenarios of trace T, by name or id (default: all)"},
		{CMD_O_JSON, NULL,
		 "write one JSON object (keys: store, scenarios; each scenario:\n"
		 "id, trace, mode, ..., partial, policies, sizings)"}),
	.layout = {18, 0},
	.help = "A scenario is what a run is but its policy and seed (trace, cluster, faults,\n"
		"io-pressure, profile, mode, ...). Each line under it is a policy: its seeds, its\n"
		"run ids and when its newest run was made; 'partial' marks a scenario whose\n"
		"policies lack seeds another has. 'rm STORE ID...' deletes runs (IDs such as 3\n"
		"or 5-9) with their figures, buckets and series in one transaction, and the\n"
		"scenarios left without runs (but those a sizing rests on); an ID that is not\n"
		"there deletes nothing.\n",
	.store = CMD_STORE_READ, /* the listing's; rm opens its own to write */
	.check = check_runs,
	.exec = exec_runs,
};

/* ---- reading the store ---- */

struct prun { /* a run, as listed */
	int64_t id, created_at;
	uint64_t seed;
	char *policy;
};

struct scen { /* a scenario and its runs */
	int64_t id, trace_id, created_at;
	char *trace;
	struct store_scenario row; /* its strings owned by strs */
	char *strs[10];
	struct prun *runs;
	size_t nruns, cap;
	struct sizing {
		char *policy, *slo, *shrink;
		uint64_t lo, hi;
		int64_t gpus_full, gpus_retired;
		double usd;
	} * sz;
	size_t nsz, szcap;
};

struct listing {
	struct scen *v;
	size_t n, cap;
	struct trace { /* the store's traces */
		int64_t id;
		char *name;
	} * traces;
	size_t ntraces, tcap;
};

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

static int trace_cb(void *ctx, const struct store_trace_info *t)
{
	struct listing *l = ctx;
	xgrow(&l->traces, &l->tcap, l->ntraces + 1, sizeof *l->traces);
	l->traces[l->ntraces++] = (struct trace){t->id, xstrdup(t->name)};
	return 0;
}

static int scen_cb(void *ctx, const struct store_scenario *sc)
{
	struct listing *l = ctx;
	xgrow(&l->v, &l->cap, l->n + 1, sizeof *l->v);
	struct scen *s = &l->v[l->n++];
	memset(s, 0, sizeof *s);
	s->id = sc->id;
	s->trace_id = sc->trace_id;
	s->created_at = sc->created_at;
	s->row = *sc;
	const char **f[] = {&s->row.key,          &s->row.mode,         &s->row.queue,
			    &s->row.dims,         &s->row.faults,       &s->row.profile_name,
			    &s->row.profile_path, &s->row.cluster_path, &s->row.enriched,
			    &s->row.change};
	for (size_t i = 0; i < sizeof f / sizeof *f; i++)
		*f[i] = s->strs[i] = dup_or_null(*f[i]);
	s->row.profile_text = s->row.cluster_text = NULL;
	for (size_t i = 0; i < l->ntraces; i++)
		if (l->traces[i].id == sc->trace_id)
			s->trace = l->traces[i].name;
	return 0;
}

static int run_cb(void *ctx, const struct store_run *r)
{
	struct scen *s = ctx;
	xgrow(&s->runs, &s->cap, s->nruns + 1, sizeof *s->runs);
	s->runs[s->nruns++] = (struct prun){r->id, r->created_at, r->seed, xstrdup(r->policy)};
	return 0;
}

static int sizing_cb(void *ctx, const struct store_sizing *z)
{
	struct listing *l = ctx;
	for (size_t i = 0; i < l->n; i++) {
		struct scen *s = &l->v[i];
		if (s->id != z->scenario_id)
			continue;
		xgrow(&s->sz, &s->szcap, s->nsz + 1, sizeof *s->sz);
		s->sz[s->nsz++] = (struct sizing){
			xstrdup(z->policy), xstrdup(z->slo), xstrdup(z->shrink), z->seed_lo,
			z->seed_hi,         z->gpus_full,    z->gpus_retired,    z->usd_per_year};
	}
	return 0;
}

static void listing_release(struct listing *l)
{
	for (size_t i = 0; i < l->n; i++) {
		struct scen *s = &l->v[i];
		for (size_t k = 0; k < sizeof s->strs / sizeof *s->strs; k++)
			free(s->strs[k]);
		for (size_t k = 0; k < s->nruns; k++)
			free(s->runs[k].policy);
		for (size_t k = 0; k < s->nsz; k++)
			FREE_ALL(s->sz[k].policy, s->sz[k].slo, s->sz[k].shrink);
		FREE_ALL(s->runs, s->sz);
	}
	for (size_t i = 0; i < l->ntraces; i++)
		free(l->traces[i].name);
	FREE_ALL(l->traces, l->v);
}

/* Runs of one scenario by policy (in the policy table's order, unknown names after), then
 * seed, then id. */
static int policy_rank(const char *name)
{
	const struct policy_ops *ops = policy_find(name);
	for (int i = 0; ops && policy_table[i]; i++)
		if (policy_table[i] == ops)
			return i;
	return 1000;
}

static int by_policy(const void *a, const void *b)
{
	const struct prun *x = a, *y = b;
	int rx = policy_rank(x->policy), ry = policy_rank(y->policy), c;
	if (rx != ry)
		return rx < ry ? -1 : 1;
	if ((c = strcmp(x->policy, y->policy)))
		return c;
	if (x->seed != y->seed)
		return x->seed < y->seed ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

static int load(struct store *st, const char *trace, struct listing *l, struct err *e)
{
	int64_t trace_id = -1;
	int rc;
	if (trace && (rc = store_trace_find(st, trace, &trace_id, e)))
		return rc;
	if ((rc = store_trace_list(st, trace_cb, l, e)) ||
	    (rc = store_scenario_list(st, trace_id, scen_cb, l, e)))
		return rc;
	for (size_t i = 0; i < l->n && !rc; i++) {
		struct scen *s = &l->v[i];
		rc = store_run_list_scenario(st, s->id, run_cb, s, e);
		if (s->nruns)
			qsort(s->runs, s->nruns, sizeof *s->runs, by_policy);
	}
	return rc ? rc : store_sizing_list(st, -1, sizing_cb, l, e);
}

/* ---- what a scenario is ---- */

/* The policies of s: run index ranges [b[i], b[i+1]). Returns how many. */
static size_t policy_spans(const struct scen *s, size_t *b)
{
	size_t n = 0;
	for (size_t i = 0; i < s->nruns; i++)
		if (!i || strcmp(s->runs[i].policy, s->runs[i - 1].policy))
			b[n++] = i;
	b[n] = s->nruns;
	return n;
}

/* Does every policy of s have the same seeds? */
static int complete(const struct scen *s, const size_t *b, size_t np)
{
	for (size_t p = 1; p < np; p++) {
		size_t i = b[0], k = b[p];
		for (; i < b[1] && k < b[p + 1]; i++, k++) {
			while (i + 1 < b[1] && s->runs[i + 1].seed == s->runs[i].seed)
				i++; /* a seed run twice counts once */
			while (k + 1 < b[p + 1] && s->runs[k + 1].seed == s->runs[k].seed)
				k++;
			if (s->runs[i].seed != s->runs[k].seed)
				return 0;
		}
		if (i < b[1] || k < b[p + 1])
			return 0;
	}
	return 1;
}

/* Ascending values v[0..n) as ranges: "1-3,5". */
static void ranges(const uint64_t *v, size_t n, struct sbuf *out)
{
	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j + 1 < n && (v[j + 1] == v[j] + 1 || v[j + 1] == v[j]))
			j++;
		if (out->len && out->s[out->len - 1] != ' ')
			sbuf_addc(out, ',');
		if (v[j] == v[i])
			sbuf_printf(out, "%" PRIu64, v[i]);
		else
			sbuf_printf(out, "%" PRIu64 "-%" PRIu64, v[i], v[j]);
		i = j + 1;
	}
}

static void seeds_text(const struct scen *s, size_t b0, size_t b1, struct sbuf *out)
{
	uint64_t *v = xcalloc(b1 - b0 + 1, sizeof *v);
	for (size_t i = b0; i < b1; i++)
		v[i - b0] = s->runs[i].seed;
	ranges(v, b1 - b0, out);
	free(v);
}

static void ids_text(const struct scen *s, size_t b0, size_t b1, struct sbuf *out)
{
	uint64_t *v = xcalloc(b1 - b0 + 1, sizeof *v);
	for (size_t i = b0; i < b1; i++)
		v[i - b0] = (uint64_t)s->runs[i].id;
	for (size_t i = 1; i < b1 - b0; i++) /* sorted by seed: sort the ids */
		for (size_t k = i; k > 0 && v[k - 1] > v[k]; k--) {
			uint64_t t = v[k];
			v[k] = v[k - 1];
			v[k - 1] = t;
		}
	ranges(v, b1 - b0, out);
	free(v);
}

static void when_text(int64_t t, char *buf, size_t len)
{
	time_t tt = (time_t)t;
	struct tm tm;
	snprintf(buf, len, "-");
	if (gmtime_r(&tt, &tm))
		strftime(buf, len, "%Y-%m-%d %H:%M", &tm);
}

/* ---- writing ---- */

/* Are a and b sizings to the same SLO, seeds and shrink (one line of the listing)? */
static int same_sizing(const struct sizing *a, const struct sizing *b)
{
	return !strcmp(a->slo, b->slo) && !strcmp(a->shrink, b->shrink) && a->lo == b->lo &&
	       a->hi == b->hi;
}

/* Every string below comes from the store: each is printed escaped (e). */
static void write_text(const struct listing *l, struct sbuf *out)
{
	struct sbuf b = SBUF_INIT, e = SBUF_INIT;
	char when[64];
	sbuf_init(&b);
	for (size_t i = 0; i < l->n; i++) {
		const struct scen *s = &l->v[i];
		size_t *bd = xcalloc(s->nruns + 2, sizeof *bd), np = policy_spans(s, bd);
		sbuf_reset(&b);
		runrec_describe(&s->row, NULL, &b);
		sbuf_printf(out, "%sscenario %" PRId64 "  trace ", i ? "\n" : "", s->id);
		esc_text(out, s->trace ? s->trace : "?");
		sbuf_printf(out, "  %s", esc_text_s(&e, b.s));
		if (s->row.nodes >= 0)
			sbuf_printf(out,
				    "  (%" PRId64 " nodes, %" PRId64 " GPUs, %" PRId64 " jobs)",
				    s->row.nodes, s->row.gpus, s->row.jobs);
		if (!complete(s, bd, np))
			sbuf_adds(out, "  partial: the policies' seeds differ");
		sbuf_addc(out, '\n');
		for (size_t p = 0; p < np; p++) {
			int64_t newest = 0;
			for (size_t k = bd[p]; k < bd[p + 1]; k++)
				newest = s->runs[k].created_at > newest ? s->runs[k].created_at
									: newest;
			sbuf_reset(&b);
			seeds_text(s, bd[p], bd[p + 1], &b);
			sbuf_printf(out, "  %-11s seeds %-8s runs ",
				    esc_text_s(&e, s->runs[bd[p]].policy), b.s);
			sbuf_reset(&b);
			ids_text(s, bd[p], bd[p + 1], &b);
			when_text(newest, when, sizeof when);
			sbuf_printf(out, "%-12s %sZ\n", b.s, when);
		}
		if (!s->nruns)
			sbuf_adds(out, "  no runs\n");
		/* the sizings, one line per SLO, seeds and shrink */
		for (size_t k = 0; k < s->nsz; k++) {
			const struct sizing *z = &s->sz[k];
			int seen = 0;
			for (size_t q = 0; q < k && !seen; q++)
				seen = same_sizing(&s->sz[q], z);
			if (seen)
				continue;
			sbuf_printf(out, "  sized to meet %s%sat seed%s %" PRIu64,
				    esc_text_s(&e, z->slo), *z->slo ? " " : "",
				    z->lo == z->hi ? "" : "s", z->lo);
			if (z->hi != z->lo)
				sbuf_printf(out, "-%" PRIu64, z->hi);
			if (*z->shrink)
				sbuf_printf(out, ", %s only", esc_text_s(&e, z->shrink));
			sbuf_printf(out, ", GPUs retired of %" PRId64 ":\n   ", z->gpus_full);
			size_t col = 3; /* a line of policies wraps before 80 columns */
			for (size_t q = k; q < s->nsz; q++) {
				if (!same_sizing(&s->sz[q], z))
					continue;
				sbuf_reset(&b);
				sbuf_printf(&b, " %s %" PRId64, esc_text_s(&e, s->sz[q].policy),
					    s->sz[q].gpus_retired);
				if (col + b.len + 1 > 79) {
					sbuf_adds(out, "\n   ");
					col = 3;
				}
				sbuf_printf(out, "%s%s", b.s, q + 1 < s->nsz ? "," : "");
				col += b.len + 1;
			}
			while (out->len && out->s[out->len - 1] == ',')
				out->s[--out->len] = '\0';
			sbuf_adds(out, "\n");
		}
		free(bd);
	}
	if (!l->n)
		sbuf_adds(out, "no runs\n");
	sbuf_release(&b);
	sbuf_release(&e);
}

static void json_seed(struct json *j, uint64_t v)
{
	if (v <= INT64_MAX)
		json_int(j, (int64_t)v);
	else {
		char buf[32];
		snprintf(buf, sizeof buf, "%" PRIu64, v);
		json_str(j, buf);
	}
}

static void write_json(const struct listing *l, const char *path, struct sbuf *out)
{
	struct json j;
	struct sbuf b = SBUF_INIT;
	sbuf_init(&b);
	json_init(&j, out, 1);
	json_obj(&j);
	json_key_str(&j, "store", path);
	json_key(&j, "scenarios");
	json_arr(&j);
	for (size_t i = 0; i < l->n; i++) {
		const struct scen *s = &l->v[i];
		const struct store_scenario *r = &s->row;
		size_t *bd = xcalloc(s->nruns + 2, sizeof *bd), np = policy_spans(s, bd);
		json_obj(&j);
		json_key_int(&j, "id", s->id);
		json_key_str(&j, "trace", s->trace);
		json_key_int(&j, "trace_id", s->trace_id);
		json_key_str(&j, "mode", r->mode);
		json_key_num(&j, "target", r->target);
		json_key_str(&j, "queue", r->queue);
		json_key_bool(&j, "preempt", r->preempt);
		json_key_str(&j, "cluster", r->cluster_path);
		json_key_str(&j, "faults", r->faults);
		json_key_num(&j, "io_pressure", r->io_pressure);
		json_key_str(&j, "profile", r->profile_path ? r->profile_path : r->profile_name);
		json_key_str(&j, "dims", r->dims);
		json_key_int(&j, "sample_nodes", r->sample_nodes > 0 ? r->sample_nodes : 0);
		json_key_int(&j, "nodes", r->nodes);
		json_key_int(&j, "gpus", r->gpus);
		json_key_int(&j, "jobs", r->jobs);
		json_key_int(&j, "created_at", s->created_at);
		json_key_bool(&j, "partial", !complete(s, bd, np));
		json_key(&j, "policies");
		json_arr(&j);
		for (size_t p = 0; p < np; p++) {
			int64_t newest = 0;
			json_obj(&j);
			json_key_str(&j, "policy", s->runs[bd[p]].policy);
			json_key(&j, "seeds");
			json_arr(&j);
			for (size_t k = bd[p]; k < bd[p + 1]; k++)
				if (k == bd[p] || s->runs[k].seed != s->runs[k - 1].seed)
					json_seed(&j, s->runs[k].seed);
			json_end(&j);
			json_key(&j, "runs");
			json_arr(&j);
			for (size_t k = bd[p]; k < bd[p + 1]; k++) {
				json_int(&j, s->runs[k].id);
				newest = s->runs[k].created_at > newest ? s->runs[k].created_at
									: newest;
			}
			json_end(&j);
			json_key_int(&j, "created_at", newest);
			json_end(&j);
		}
		json_end(&j);
		json_key(&j, "sizings");
		json_arr(&j);
		for (size_t k = 0; k < s->nsz; k++) {
			json_obj(&j);
			json_key_str(&j, "policy", s->sz[k].policy);
			json_key_str(&j, "slo", s->sz[k].slo);
			json_key(&j, "seed_lo");
			json_seed(&j, s->sz[k].lo);
			json_key(&j, "seed_hi");
			json_seed(&j, s->sz[k].hi);
			json_key_int(&j, "gpus_retired", s->sz[k].gpus_retired);
			json_key_num(&j, "usd_per_year", s->sz[k].usd);
			json_end(&j);
		}
		json_end(&j);
		json_end(&j);
		free(bd);
	}
	json_end(&j);
	json_end(&j);
	sbuf_addc(out, '\n');
	sbuf_release(&b);
}

/* ---- rm ---- */

static int do_rm(const char *path, char **ids, int nids)
{
	struct store *st = NULL;
	struct err e = {0};
	int64_t *all = NULL;
	size_t n = 0, cap = 0;
	int rc = CMD_OK;

	for (int i = 0; i < nids; i++) {
		int64_t *v;
		size_t nv;
		if (runrec_parse_ids(ids[i], &v, &nv, &e)) {
			free(all);
			return cmd_usage_error(&cmd_runs_entry, "rm: %s", e.msg);
		}
		xgrow(&all, &cap, n + nv, sizeof *all);
		memcpy(all + n, v, nv * sizeof *v);
		n += nv;
		free(v);
	}
	if (store_open(path, 0, &st, &e) || store_begin(st, &e)) {
		rc = cmd_fail(&cmd_runs_entry, "%s", e.msg);
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		int dup = 0;
		for (size_t k = 0; k < i; k++)
			dup |= all[k] == all[i];
		if (!dup && store_run_delete(st, all[i], &e)) {
			store_rollback(st);
			rc = cmd_fail(&cmd_runs_entry, "%s; nothing deleted", e.msg);
			goto out;
		}
	}
	if (store_commit(st, &e)) {
		rc = cmd_fail(&cmd_runs_entry, "%s; nothing deleted", e.msg);
		goto out;
	}
	size_t ndel = 0;
	for (size_t i = 0; i < n; i++) {
		int dup = 0;
		for (size_t k = 0; k < i; k++)
			dup |= all[k] == all[i];
		ndel += !dup;
	}
	fprintf(stderr, "deleted %zu run%s from %s\n", ndel, ndel == 1 ? "" : "s", path);
out:
	store_close(st);
	free(all);
	return rc;
}

static int check_runs(struct cmd_ctx *ctx)
{
	const struct cmd_entry *ce = ctx->ce;
	int nops = ctx->p.nops;
	if (nops >= 1 && !strcmp(ctx->p.operands[0], "rm")) {
		ctx->store_mode = CMD_STORE_NONE;
		if (cmd_arg(ctx, CMD_K_TRACE) || cmd_has(ctx, CMD_K_JSON))
			return cmd_usage_error(ce, "rm takes no --trace or --json");
		if (nops < 3)
			return cmd_usage_error(ce, nops < 2 ? "rm: no STORE given"
							    : "rm: no run ID given");
		return CMD_OK;
	}
	if (nops != 1)
		return cmd_usage_error(ce, nops ? "one STORE only" : "no STORE given");
	return CMD_OK;
}

static int exec_runs(struct cmd_ctx *ctx)
{
	struct err e = {0};
	struct listing l = {0};
	struct sbuf out = SBUF_INIT;
	int rc = CMD_OK;

	if (!ctx->st) /* rm */
		return do_rm(ctx->p.operands[1], ctx->p.operands + 2, ctx->p.nops - 2);
	sbuf_init(&out);
	if (load(ctx->st, cmd_arg(ctx, CMD_K_TRACE), &l, &e)) {
		rc = cmd_fail(ctx->ce, "%s", e.msg);
	} else {
		if (cmd_has(ctx, CMD_K_JSON))
			write_json(&l, ctx->p.operands[0], &out);
		else
			write_text(&l, &out);
		fwrite(out.s, 1, out.len, stdout);
		if (fflush(stdout) || ferror(stdout))
			rc = cmd_fail(ctx->ce, "stdout: write error");
	}
	listing_release(&l);
	sbuf_release(&out);
	return rc;
}
