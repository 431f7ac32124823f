/*
 * cmd-compare.c — 'voidfit compare': every policy on one trace as one table, the best per
 * column marked, and each policy's saving in $ per year against scalar.
 *
 * It reads the stored runs of the trace: the newest run of the chosen mode sets the
 * scenario (every parameter but policy and seed), and each policy contributes its newest
 * run at each seed of that scenario (the mean when there are several seeds). When the trace
 * has no runs of that mode, it runs every policy itself and stores nothing.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "replay.h"

static int exec_compare(int argc, char **argv);
extern const struct cmd_opt cmd_compare_opts[]; /* below */

const struct cmd_entry cmd_compare_entry = {
	.name = "compare",
	.usage = "STORE [--trace T] [--policies P[,P...]] [--mode timed|inflate] [--seed N | "
		 "--seeds A-B] [--target X] [--sample-nodes K] [--json | --format F]",
	.summary = "compare policies on one trace: one table, best marked, $ saved vs scalar",
	.help = "      --trace T          trace of the store, by name or id (default: the newest)\n"
		"  -p, --policies P,...   only these policies (default: every policy with runs)\n"
		"  -m, --mode M           compare runs of mode timed or inflate (default: the mode "
		"of\n"
		"                         the newest run)\n"
		"  -s, --seed N           only runs of seed N\n"
		"      --seeds A-B        only runs of seeds A..B (several: the mean per policy)\n"
		"  -t, --target X         inflation target when compare runs the policies itself\n"
		"      --sample-nodes K   only runs made with --sample-nodes K (0: full "
		"searches);\n"
		"                         when compare runs the policies itself, run them so\n"
		"      --json             print JSON (same as --format json)\n"
		"  -f, --format F         text (default), json, csv or md\n"
		"\n"
		"Reads the newest stored runs of the trace; when it has none (of that mode), runs\n"
		"every policy itself with the built-in enrichment profile and stores nothing.\n"
		"'saving vs scalar' is scalar's wasted $/yr minus the policy's.\n",
	.exec = exec_compare,
	.opts = cmd_compare_opts,
};

enum { O_SEEDS = 256, O_TRACE, O_JSON, O_SAMPLE };

const struct cmd_opt cmd_compare_opts[] = {
	{"trace", O_TRACE, 1}, {"policies", 'p', 1},
	{"policy", 'p', 1},    {"mode", 'm', 1},
	{"seed", 's', 1},      {"seeds", O_SEEDS, 1},
	{"target", 't', 1},    {"json", O_JSON, 0},
	{"format", 'f', 1},    {"sample-nodes", O_SAMPLE, 1},
	{NULL, 0, 0},
};

/* A stored run, as listed. */
struct srun {
	int64_t id;
	int pol;     /* index in policy_table */
	int inflate; /* mode */
	uint64_t seed;
	char *key;      /* scenario key */
	char *enriched; /* the summary's "enriched" text, or NULL */
};

struct listing {
	struct srun *v;
	size_t n, cap;
};

static int policy_index(const char *name)
{
	for (int i = 0; policy_table[i]; i++)
		if (!strcmp(policy_table[i]->name, name))
			return i;
	return -1;
}

/* The string value of "key":"..." in compact JSON (no escapes expected), or NULL. */
static char *json_field(const char *json, const char *key)
{
	char pat[64];
	snprintf(pat, sizeof pat, "\"%s\":\"", key);
	const char *p = strstr(json, pat);
	if (!p)
		return NULL;
	p += strlen(pat);
	const char *q = strchr(p, '"');
	return q ? xstrndup(p, (size_t)(q - p)) : NULL;
}

static int list_cb(void *ctx, const struct store_run *r)
{
	struct listing *l = ctx;
	int pol = policy_index(r->policy);
	if (pol < 0) /* a policy this build does not know */
		return 0;
	struct sbuf key = SBUF_INIT;
	sbuf_init(&key);
	replay_scenario_key(r->params_json, &key);
	xgrow(&l->v, &l->cap, l->n + 1, sizeof *l->v);
	l->v[l->n++] = (struct srun){r->id,   pol,   !strcmp(r->mode, "inflate"),
				     r->seed, key.s, json_field(r->summary_json, "enriched")};
	return 0;
}

struct mctx {
	double *v;
};

static int metric_cb(void *ctx, const struct store_metric *m)
{
	struct mctx *c = ctx;
	int col = replay_col_find(m->key);
	if (col >= 0)
		c->v[col] = m->value;
	return 0;
}

static int by_policy_seed(const void *a, const void *b)
{
	const struct replay_row *x = a, *y = b;
	int px = policy_index(x->policy), py = policy_index(y->policy);
	if (px != py)
		return px < py ? -1 : 1;
	return x->seed < y->seed ? -1 : x->seed > y->seed;
}

static int exec_compare(int argc, char **argv)
{
	struct cmd_parser p;
	struct err e = {0};
	const char *trace = NULL, *pol_arg = NULL, *mode_arg = NULL, *fmt = "text";
	const char *seed_arg = NULL, *seeds_arg = NULL;
	int c, rc = CMD_OK, json = 0, want_mode = -1;
	uint64_t lo = 0, hi = UINT64_MAX;
	int seeds_given = 0, sample_given = 0;
	unsigned sample = 0;
	double target = 1.3;
	const struct policy_ops **pols = NULL;
	size_t npol = 0;
	struct store *st = NULL;
	int64_t trace_id;
	struct listing l = {0};
	struct replay_row *rows = NULL;
	size_t nrows = 0;
	struct report *rep = NULL;
	struct sbuf out = SBUF_INIT, tname = SBUF_INIT, note = SBUF_INIT;
	struct job_set js = {0};
	struct enrich_profile *prof = NULL;
	char *enriched = NULL;

	sbuf_init(&out);
	sbuf_init(&tname);
	sbuf_init(&note);
	cmd_parser_init(&p, argc, argv);
	while ((c = cmd_getopt(&p, cmd_compare_opts)) != -1 && rc == CMD_OK) {
		switch (c) {
		case O_TRACE:
			trace = p.arg;
			break;
		case 'p':
			pol_arg = p.arg;
			break;
		case 'm':
			mode_arg = p.arg;
			break;
		case 's':
			seed_arg = p.arg;
			break;
		case O_SEEDS:
			seeds_arg = p.arg;
			break;
		case 't':
			rc = cmd_num_opt(&cmd_compare_entry, "target", p.arg, 0.01, 10, &target);
			break;
		case O_SAMPLE:
			rc = cmd_whole_opt(&cmd_compare_entry, "sample-nodes", p.arg, 0, 1e9,
					   &sample);
			sample_given = 1;
			break;
		case O_JSON:
			json = 1;
			break;
		case 'f':
			fmt = p.arg;
			break;
		default:
			rc = cmd_opt_error(&cmd_compare_entry, &p);
		}
	}
	if (rc != CMD_OK)
		goto out;
	if (p.nops != 1) {
		rc = cmd_usage_error(&cmd_compare_entry,
				     p.nops ? "one STORE only" : "no STORE given");
		goto out;
	}
	if (pol_arg && replay_parse_policies(pol_arg, &pols, &npol, &e)) {
		rc = cmd_usage_error(&cmd_compare_entry, "--policies: %s", e.msg);
		goto out;
	}
	if (mode_arg && !strcmp(mode_arg, "inflate"))
		want_mode = 1;
	else if (mode_arg && !strcmp(mode_arg, "timed"))
		want_mode = 0;
	else if (mode_arg) {
		rc = cmd_usage_error(&cmd_compare_entry, "--mode '%s': not timed or inflate",
				     mode_arg);
		goto out;
	}
	if (seed_arg && seeds_arg) {
		rc = cmd_usage_error(&cmd_compare_entry, "give --seed or --seeds, not both");
		goto out;
	}
	if (seed_arg && (replay_parse_seeds(seed_arg, &lo, &hi, &e) || lo != hi)) {
		rc = cmd_usage_error(&cmd_compare_entry,
				     "--seed '%s': not a seed (a whole number >= 0)", seed_arg);
		goto out;
	}
	if (seeds_arg && replay_parse_seeds(seeds_arg, &lo, &hi, &e)) {
		rc = cmd_usage_error(&cmd_compare_entry, "--seeds %s", e.msg);
		goto out;
	}
	seeds_given = seed_arg || seeds_arg;
	if (json)
		fmt = "json";
	const struct report_ops *fops = report_format_find(fmt);
	if (!fops) {
		rc = cmd_usage_error(&cmd_compare_entry, "--format '%s': not text, json, csv or md",
				     fmt);
		goto out;
	}

	if (store_open(p.operands[0], STORE_RDONLY, &st, &e) ||
	    store_trace_find(st, trace, &trace_id, &e) ||
	    store_run_list(st, trace_id, list_cb, &l, &e)) {
		rc = cmd_fail(&cmd_compare_entry, "%s", e.msg);
		goto out;
	}
	replay_trace_name(st, trace_id, &tname);

	/* The scenario: the newest run of the mode (and seeds, policies) asked for. */
	const struct srun *ref = NULL;
	for (size_t i = l.n; i-- > 0 && !ref;) {
		const struct srun *r = &l.v[i];
		int pol_ok = !pols;
		for (size_t k = 0; k < npol; k++)
			pol_ok |= pols[k] == policy_table[r->pol];
		if ((want_mode < 0 || r->inflate == want_mode) && pol_ok &&
		    (!seeds_given || (r->seed >= lo && r->seed <= hi)) &&
		    (!sample_given || replay_params_sample_nodes(r->key) == sample))
			ref = r;
	}
	int inflate = ref ? ref->inflate : want_mode == 1;

	if (ref) {
		/* newest run per (policy, seed) of the scenario */
		rows = xcalloc(l.n, sizeof *rows);
		for (size_t i = l.n; i-- > 0;) {
			const struct srun *r = &l.v[i];
			int pol_ok = !pols;
			for (size_t k = 0; k < npol; k++)
				pol_ok |= pols[k] == policy_table[r->pol];
			if (r->inflate != inflate || strcmp(r->key, ref->key) || !pol_ok ||
			    (seeds_given && (r->seed < lo || r->seed > hi)))
				continue;
			int seen = 0;
			for (size_t k = 0; k < nrows && !seen; k++)
				seen = !strcmp(rows[k].policy, policy_table[r->pol]->name) &&
				       rows[k].seed == r->seed;
			if (seen)
				continue;
			struct replay_row *row = &rows[nrows++];
			row->policy = policy_table[r->pol]->name;
			row->seed = r->seed;
			row->run_id = r->id;
			for (int k = 0; k < REPLAY_NCOL; k++)
				row->v[k] = NAN;
			struct mctx mc = {row->v};
			if (store_run_metrics(st, r->id, metric_cb, &mc, &e)) {
				rc = cmd_fail(&cmd_compare_entry, "%s", e.msg);
				goto out;
			}
		}
		if (ref->enriched)
			enriched = xstrdup(ref->enriched);
		qsort(rows, nrows, sizeof *rows, by_policy_seed);
		fprintf(stderr, "%zu stored run%s of trace %s\n", nrows, nrows == 1 ? "" : "s",
			tname.s);
	} else {
		/* no runs: replay every (or every named) policy here, without storing */
		struct replay_spec sp = {0};
		struct metrics_opts prices;
		struct enrich_summary enr;
		if (!seeds_given)
			lo = hi = 1;
		if (!pols && replay_parse_policies("all", &pols, &npol, &e)) {
			rc = cmd_fail(&cmd_compare_entry, "%s", e.msg);
			goto out;
		}
		metrics_opts_init(&prices);
		sp.trace_name = tname.s;
		sp.trace_id = trace_id;
		sp.mode = inflate ? SIM_INFLATE : SIM_TIMED;
		sp.target = target;
		sp.queue = SIM_FIFO;
		sp.lambda = POLICY_LAMBDA;
		sp.mu = POLICY_MU;
		sp.coverage = 0.95;
		sp.sample_nodes = sample;
		sp.io_pressure = 1;
		sp.prices = &prices;
		if (store_trace_load(st, trace_id, &js, &e) || enrich_load(NULL, &prof, &e)) {
			rc = cmd_fail(&cmd_compare_entry, "%s", e.msg);
			goto out;
		}
		if (!js.nnodes) {
			rc = cmd_fail(&cmd_compare_entry,
				      "trace %s has no nodes: replay it with "
				      "--cluster FILE first",
				      tname.s);
			goto out;
		}
		sp.profile = prof;
		fprintf(stderr, "no stored %s runs of trace %s: running %zu polic%s (not stored)\n",
			sim_mode_name(sp.mode), tname.s, npol, npol == 1 ? "y" : "ies");
		if (replay_grid(&js, &sp, pols, npol, lo, hi, util_ncpu(), NULL, NULL, NULL, &rows,
				&enr, &e)) {
			rc = cmd_fail(&cmd_compare_entry, "%s", e.msg);
			goto out;
		}
		nrows = npol * (size_t)(hi - lo + 1);
		qsort(rows, nrows, sizeof *rows, by_policy_seed);
		enrich_describe(&enr, &note);
		enriched = xstrdup(note.s);
	}

	rep = replay_table(rows, nrows, inflate ? SIM_INFLATE : SIM_TIMED, 1, tname.s);
	int has_scalar = 0;
	for (size_t i = 0; i < nrows; i++)
		has_scalar |= !strcmp(rows[i].policy, "scalar");
	if (!has_scalar)
		report_add_note(rep, "no scalar run: no saving to show");
	replay_enrich_note(rep, enriched);
	replay_sample_note(rep, ref ? replay_params_sample_nodes(ref->key) : sample);
	fops->write(rep, &out);
	fwrite(out.s, 1, out.len, stdout);
	if (fflush(stdout) || ferror(stdout))
		rc = cmd_fail(&cmd_compare_entry, "stdout: write error");
out:
	for (size_t i = 0; i < l.n; i++) {
		free(l.v[i].key);
		free(l.v[i].enriched);
	}
	free(l.v);
	free(rows);
	free(pols);
	free(enriched);
	report_free(rep);
	enrich_free(prof);
	job_set_release(&js);
	store_close(st);
	sbuf_release(&out);
	sbuf_release(&tname);
	sbuf_release(&note);
	cmd_parser_release(&p);
	return rc;
}
