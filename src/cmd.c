/*
 * cmd.c — what every command shares: help and error printing, and an option parser that
 * takes long options (--name, --name=value, --name value), short clusters (-xvf, -o FILE)
 * and operands in any order, without getopt's global state.
 */
#include <assert.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "esc.h"
#include "fault.h"
#include "fmt.h"
#include "gpumodel.h"
#include "resample.h"
#include "runrec.h"
#include "size.h"
#include "table.h"
#include "util.h"

extern const struct cmd_entry cmd_import_entry, cmd_info_entry, cmd_export_entry, cmd_check_entry,
	cmd_gen_entry, cmd_replay_entry, cmd_compare_entry, cmd_policies_entry, cmd_runs_entry,
	cmd_size_entry, cmd_dash_entry, cmd_report_entry, cmd_sweep_entry, cmd_merge_entry,
	cmd_verdict_entry;

const struct cmd_entry *const cmd_table[] = {
	&cmd_import_entry, &cmd_info_entry,   &cmd_export_entry,  &cmd_check_entry,
	&cmd_gen_entry,    &cmd_replay_entry, &cmd_compare_entry, &cmd_policies_entry,
	&cmd_runs_entry,   &cmd_size_entry,   &cmd_report_entry,  &cmd_dash_entry,
	&cmd_sweep_entry,  &cmd_merge_entry,  &cmd_verdict_entry, NULL,
};

/* The column of the scenario's -h lines (SCENARIO_PARAMS writes them aligned), and so of a
 * command's by default. */
enum { HELP_COL = 25 };

/* The label of use u in layout lay, in buf: "-x, --name ARG", or "--name ARG" under (or,
 * flush, beside) the long names of the others; a scenario option's is its own help's. */
static void help_label(char *buf, size_t size, const struct cmd_use *u, struct cmd_help_layout lay)
{
	size_t row = (size_t)(u->row & ~CMD_OPT_BY_HOOK);
	const struct cmd_opt *o = &cmd_options[row];
	if (row >= CMD_NOPT) { /* "  -m, --mode M           timed ...": up to the gap */
		const char *h = scenario_params[row - CMD_NOPT].help + 2;
		const char *gap = strstr(h + strspn(h, " "), "  ");
		snprintf(buf, size, "%.*s", (int)(gap ? gap - h : 0), h);
		return;
	}
	const char *arg = u->arg ? u->arg : cmd_option_arg[row];
	if (*arg == '-') {
		snprintf(buf, size, "%s", arg);
		return;
	}
	int n = 0;
	if (o->key < CMD_LONG_ONLY)
		n = snprintf(buf, size, "-%c, ", o->key);
	else if (!lay.flush)
		n = snprintf(buf, size, "    ");
	snprintf(buf + n, size - (size_t)n, "--%s%s%s", o->name, *arg ? " " : "", arg);
}

/* The -h lines of use u, or nothing for an alias. */
static void help_option(FILE *f, const struct cmd_use *u, struct cmd_help_layout lay)
{
	size_t row = (size_t)(u->row & ~CMD_OPT_BY_HOOK);
	const char *help = u->help ? u->help : row < CMD_NOPT ? cmd_option_help[row] : NULL;
	if (!help && row >= CMD_NOPT) {
		fputs(scenario_params[row - CMD_NOPT].help, f); /* at HELP_COL already */
		return;
	}
	assert(help); /* test-cmd checks that every option of every command has one */
	if (!*help)
		return;
	int col = lay.col ? lay.col : HELP_COL;
	char label[128];
	help_label(label, sizeof label, u, lay);
	int w = 2 + (int)strlen(label);
	fprintf(f, "  %s", label);
	if (w < col)
		fprintf(f, "%*s", col - w, "");
	else
		fprintf(f, "\n%*s", col, "");
	for (const char *nl; (nl = strchr(help, '\n')); help = nl + 1)
		fprintf(f, "%.*s\n%*s", (int)(nl - help), help, col, "");
	fprintf(f, "%s\n", help);
}

void cmd_print_help(const struct cmd_entry *ce, FILE *f)
{
	fprintf(f, "usage: voidfit %s %s\n", ce->name, ce->usage);
	if (ce->summary)
		fprintf(f, "\n%s\n", ce->summary);
	if (ce->opts && ce->opts[0].row >= 0)
		fputc('\n', f);
	for (const struct cmd_use *u = ce->opts; u && u->row >= 0; u++)
		help_option(f, u, ce->layout);
	if (ce->scenario)
		fprintf(f, "\n%s", SCENARIO_HELP);
	if (ce->help)
		fprintf(f, "\n%s", ce->help);
}

/* The message is one line, and what it quotes of a trace or a store is escaped with it. */
__attribute__((format(printf, 2, 0))) static void vsay(const struct cmd_entry *ce, const char *fmt,
						       va_list ap)
{
	va_list ap2;
	va_copy(ap2, ap);
	int n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	char *msg = xmalloc(n > 0 ? (size_t)n + 1 : 1);
	vsnprintf(msg, n > 0 ? (size_t)n + 1 : 1, fmt, ap);
	struct sbuf e = SBUF_INIT;
	fprintf(stderr, "voidfit %s: %s\n", ce->name, esc_text_s(&e, msg));
	sbuf_release(&e);
	free(msg);
}

int cmd_usage_error(const struct cmd_entry *ce, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsay(ce, fmt, ap);
	va_end(ap);
	fprintf(stderr, "see 'voidfit %s -h'\n", ce->name);
	return CMD_USAGE;
}

int cmd_opt_error(const struct cmd_entry *ce, const struct cmd_parser *p)
{
	return cmd_usage_error(ce, "'%s': %s", p->bad ? p->bad : "?",
			       p->why ? p->why : "unknown option");
}

int cmd_fail(const struct cmd_entry *ce, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsay(ce, fmt, ap);
	va_end(ap);
	return CMD_FAIL;
}

int cmd_wants_help(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			return 0;
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return 1;
	}
	return 0;
}

void cmd_parser_init(struct cmd_parser *p, int argc, char **argv)
{
	memset(p, 0, sizeof *p);
	p->argc = argc;
	p->argv = argv;
	p->ind = 1;
	p->operands = xcalloc((size_t)argc + 1, sizeof *p->operands);
}

void cmd_parser_release(struct cmd_parser *p)
{
	free(p->operands);
	p->operands = NULL;
	p->nops = 0;
}

static const struct cmd_opt *find_short(const struct cmd_opt *opts, int c)
{
	for (; opts->name; opts++)
		if (opts->key == c && c < 128)
			return opts;
	return NULL;
}

/* The argument of option o: the rest of the word, or the next word. */
static int take_arg(struct cmd_parser *p, const struct cmd_opt *o, const char *rest,
		    const char *word)
{
	if (rest && *rest)
		p->arg = rest;
	else if (p->ind < p->argc)
		p->arg = p->argv[p->ind++];
	else {
		p->bad = word;
		p->why = "needs an argument";
		return '?';
	}
	return o->key;
}

int cmd_getopt(struct cmd_parser *p, const struct cmd_opt *opts)
{
	p->arg = NULL;
	p->bad = NULL;
	p->why = NULL;
	if (p->pending && *p->pending) {
		const struct cmd_opt *o = find_short(opts, (unsigned char)*p->pending);
		p->shortbad[0] = '-';
		p->shortbad[1] = *p->pending;
		if (!o) {
			p->bad = p->shortbad;
			p->why = "unknown option";
			p->pending = NULL;
			return '?';
		}
		const char *rest = ++p->pending;
		if (!o->has_arg)
			return o->key;
		p->pending = NULL;
		return take_arg(p, o, rest, p->shortbad);
	}
	p->pending = NULL;
	while (p->ind < p->argc) {
		char *w = p->argv[p->ind++];
		if (p->dashdash || w[0] != '-' || w[1] == '\0') { /* an operand; "-" is stdin */
			p->operands[p->nops++] = w;
			continue;
		}
		if (!strcmp(w, "--")) {
			p->dashdash = 1;
			continue;
		}
		if (w[1] != '-') {
			p->pending = w + 1;
			return cmd_getopt(p, opts);
		}
		const char *name = w + 2, *eq = strchr(name, '=');
		size_t len = eq ? (size_t)(eq - name) : strlen(name);
		for (const struct cmd_opt *o = opts; o->name; o++) {
			if (strlen(o->name) != len || strncmp(o->name, name, len))
				continue;
			if (o->has_arg)
				return take_arg(p, o, eq ? eq + 1 : NULL, w);
			if (eq) {
				p->bad = w;
				p->why = "takes no argument";
				return '?';
			}
			return o->key;
		}
		p->bad = w;
		p->why = "unknown option";
		return '?';
	}
	return -1;
}

int cmd_num_opt(const struct cmd_entry *ce, const char *name, const char *s, double lo, double hi,
		double *out)
{
	if (!parse_double(s, out) && *out >= lo && (hi <= lo || *out <= hi))
		return 0;
	if (hi > lo)
		return cmd_usage_error(ce, "--%s '%s': not a number in [%g, %g]", name, s, lo, hi);
	return cmd_usage_error(ce, "--%s '%s': not a number >= %g", name, s, lo);
}

int cmd_whole_opt(const struct cmd_entry *ce, const char *name, const char *s, double lo, double hi,
		  unsigned *out)
{
	double v;
	int rc = cmd_num_opt(ce, name, s, lo, hi, &v);
	if (!rc && v != floor(v))
		rc = cmd_usage_error(ce, "--%s '%s': not a whole number", name, s);
	*out = rc ? 0 : (unsigned)v;
	return rc;
}

int cmd_model_opt(const struct cmd_entry *ce, const char *name, const char *s, int *out)
{
	if ((*out = gpumodel_find(s)) >= 0)
		return CMD_OK;
	return cmd_usage_error(ce,
			       "--%s '%s': not a GPU model (see schemas/gpu-models.csv, or the "
			       "store's own models)",
			       name, s);
}

int cmd_resample_opts(const struct cmd_entry *ce, const char *nres_arg, const char *block_arg,
		      enum sim_mode mode, uint32_t *nres, int64_t *block_s)
{
	unsigned n = 0;
	int rc = 0;
	*nres = 0;
	*block_s = 0;
	if (nres_arg && (rc = cmd_whole_opt(ce, "resamples", nres_arg, 1, RESAMPLE_MAX, &n)))
		return rc;
	if (block_arg && !nres_arg)
		return cmd_usage_error(ce, "--block is for --resamples");
	if (block_arg && (fault_parse_duration(block_arg, block_s) || *block_s < 1))
		return cmd_usage_error(ce,
				       "--block '%s': not a duration of 1 s or more (90, 15m, "
				       "1h, 1d)",
				       block_arg);
	if (n && mode == SIM_INFLATE)
		return cmd_usage_error(ce, "--resamples: timed mode only (inflation already draws "
					   "its jobs with replacement from the trace's mix)");
	*nres = n;
	return 0;
}

/* ---- a command as a declaration ---- */

#define CMD_X_OPT(ID, SHORT, NAME, ARG, KIND, LO, HI)                                              \
	{NAME, CMD_K_##ID, sizeof(ARG) > 1, CMD_OPT_##KIND, LO, HI},
const struct cmd_opt cmd_options[] = {CMD_OPTIONS(CMD_X_OPT) SCENARIO_OPTS, {NULL, 0, 0, 0, 0, 0}};
#define CMD_X_ARG(ID, SHORT, NAME, ARG, ...) ARG,
const char *const cmd_option_arg[] = {CMD_OPTIONS(CMD_X_ARG)};

const char *const cmd_option_help[CMD_NOPT] = {
	[CMD_O_SEED] = "PRNG and enrichment seed (default 1)",
	[CMD_O_JSON] = "print JSON (same as --format json)",
	[CMD_O_FORMAT] = "text (default), json, csv or md",
	[CMD_O_WAIT] = "how long to wait for a store another voidfit is writing\n"
		       "(default 60; 0: fail at once)",
	[CMD_O_SCENARIO] = "the runs of scenario ID ('voidfit runs' lists them)",
	[CMD_O_RUNS] = "these runs (\"3,5-9\"), all of one scenario",
	[CMD_O_BASELINE] = "the policy savings are measured against (default scalar)",
};

size_t cmd_entry_opts(const struct cmd_entry *ce, struct cmd_opt **out)
{
	size_t n = 0, nsc = ce->scenario ? SCENARIO_NPARAM : 0;
	while (ce->opts && ce->opts[n].row >= 0)
		n++;
	struct cmd_opt *o = xcalloc(n + nsc + 1, sizeof *o);
	for (size_t i = 0; i < n; i++) {
		o[i] = cmd_options[ce->opts[i].row & ~CMD_OPT_BY_HOOK];
		if (ce->opts[i].row & CMD_OPT_BY_HOOK)
			o[i].kind = CMD_OPT_HOOK;
	}
	for (size_t i = 0; i < nsc; i++)
		o[n + i] = cmd_options[CMD_NOPT + i];
	*out = o;
	return n + nsc;
}

/* The index of option key in ctx's table; an option cmd_run read is always there. */
static size_t opt_index(const struct cmd_ctx *ctx, int key)
{
	size_t i = 0;
	while (ctx->opts[i].name && ctx->opts[i].key != key)
		i++;
	assert(ctx->opts[i].name);
	return i;
}

const char *cmd_arg(const struct cmd_ctx *ctx, int key)
{
	return ctx->val[opt_index(ctx, key)];
}

unsigned cmd_has(const struct cmd_ctx *ctx, int key)
{
	return ctx->seen[opt_index(ctx, key)];
}

double cmd_num(const struct cmd_ctx *ctx, int key, double dflt)
{
	size_t i = opt_index(ctx, key);
	return ctx->seen[i] ? ctx->num[i] : dflt;
}

/* One option cmd_getopt returned, as its kind says: 0 or a usage error. Options sharing a
 * key (--policy, --policies) share the first entry's slot. */
static int take_opt(struct cmd_ctx *ctx, int key)
{
	const struct cmd_entry *ce = ctx->ce;
	const char *arg = ctx->p.arg;
	size_t i = opt_index(ctx, key);
	const struct cmd_opt *o = &ctx->opts[i];
	struct err e = {0};
	unsigned whole;
	ctx->seen[i]++;
	ctx->val[i] = arg;
	switch (o->kind) {
	case CMD_OPT_NUM:
		return cmd_num_opt(ce, o->name, arg, o->lo, o->hi, &ctx->num[i]);
	case CMD_OPT_WHOLE: {
		int rc = cmd_whole_opt(ce, o->name, arg, o->lo, o->hi, &whole);
		ctx->num[i] = whole;
		return rc;
	}
	case CMD_OPT_HOOK:
		return ce->opt(ctx, key, arg);
	default:
		break;
	}
	if (scenario_is_key(key) && scenario_set(&ctx->sc, key, arg, &e))
		return cmd_usage_error(ce, "%s", e.msg);
	return CMD_OK;
}

int cmd_format(struct cmd_ctx *ctx)
{
	const char *fmt = "text";
	for (size_t i = 0; ctx->opts[i].name; i++)
		if (!strcmp(ctx->opts[i].name, "format") && ctx->val[i])
			fmt = ctx->val[i];
	for (size_t i = 0; ctx->opts[i].name; i++)
		if (!strcmp(ctx->opts[i].name, "json") && ctx->seen[i])
			fmt = "json";
	if (!(ctx->fmt = table_format_find(fmt)))
		return cmd_usage_error(ctx->ce, "--format '%s': not text, json, csv or md", fmt);
	return CMD_OK;
}

static void say_waiting(void *u, const char *msg)
{
	const struct cmd_entry *ce = u;
	fprintf(stderr, "voidfit %s: %s\n", ce->name, msg);
}

struct store_wait cmd_store_wait(const struct cmd_ctx *ctx, int key)
{
	return (struct store_wait){cmd_num(ctx, key, STORE_WAIT_DEFAULT), say_waiting,
				   (void *)ctx->ce};
}

int cmd_print_table(struct cmd_ctx *ctx, struct table *tab)
{
	struct sbuf out = SBUF_INIT;
	sbuf_init(&out);
	ctx->fmt->write(tab, &out);
	fwrite(out.s, 1, out.len, stdout);
	sbuf_release(&out);
	if (fflush(stdout) || ferror(stdout))
		return cmd_fail(ctx->ce, "stdout: write error");
	return CMD_OK;
}

int cmd_scenario_load(struct cmd_ctx *ctx, int shrink_key, int *model)
{
	const char *shrink = shrink_key ? cmd_arg(ctx, shrink_key) : NULL;
	struct err e = {0};
	int rc;
	if (model)
		*model = -1;
	if (shrink && (rc = cmd_model_opt(ctx->ce, "shrink", shrink, model)))
		return rc;
	if (scenario_prices(&ctx->sc, &e))
		return cmd_usage_error(ctx->ce, "%s", e.msg);
	if (scenario_load(&ctx->sc, ctx->st, &e))
		return cmd_fail(ctx->ce, "%s", e.msg);
	return CMD_OK;
}

/* Parse, check, open: what the entry declares, before exec. */
static int prepare(struct cmd_ctx *ctx)
{
	const struct cmd_entry *ce = ctx->ce;
	struct err e = {0};
	int c, rc = CMD_OK;
	while (rc == CMD_OK && (c = cmd_getopt(&ctx->p, ctx->opts)) != -1)
		rc = c == '?' ? cmd_opt_error(ce, &ctx->p) : take_opt(ctx, c);
	if (rc != CMD_OK)
		return rc;
	if (ce->operand && ctx->p.nops > 1)
		return ce->one_only ? cmd_usage_error(ce, "%s", ce->one_only)
				    : cmd_usage_error(ce, "one %s only", ce->operand);
	if (ce->operand && !ctx->p.nops)
		return cmd_usage_error(ce, "no %s given", ce->operand);
	if (ce->no_operand && ctx->p.nops)
		return cmd_usage_error(ce, "'%s': unexpected operand", ctx->p.operands[0]);
	if (ce->check && (rc = ce->check(ctx)))
		return rc;
	if (ce->formats && !ctx->fmt && (rc = cmd_format(ctx)))
		return rc;
	if (ctx->store_mode == CMD_STORE_NONE)
		return CMD_OK;
	struct store_wait w =
		ce->wait_key ? cmd_store_wait(ctx, ce->wait_key) : (struct store_wait){0};
	if (store_open_wait(ctx->p.operands[0],
			    ctx->store_mode == CMD_STORE_READ ? STORE_RDONLY : 0,
			    ce->wait_key ? &w : NULL, &ctx->st, &e))
		return cmd_fail(ce, "%s", e.msg);
	return CMD_OK;
}

int cmd_run(const struct cmd_entry *ce, int argc, char **argv)
{
	if (ce->sub && argc >= 2 && !strcmp(argv[1], ce->sub))
		return ce->exec_sub(argc, argv);
	struct cmd_ctx ctx = {.ce = ce, .argc = argc, .argv = argv, .store_mode = ce->store};
	size_t nopts = cmd_entry_opts(ce, &ctx.opts);
	ctx.val = xcalloc(nopts + 1, sizeof *ctx.val);
	ctx.seen = xcalloc(nopts + 1, sizeof *ctx.seen);
	ctx.num = xcalloc(nopts + 1, sizeof *ctx.num);
	ctx.u = ce->state_size ? xcalloc(1, ce->state_size) : NULL;
	scenario_init(&ctx.sc);
	cmd_parser_init(&ctx.p, argc, argv);
	if (ce->init)
		ce->init(&ctx);
	int rc = prepare(&ctx);
	if (rc == CMD_OK)
		rc = ce->exec(&ctx);
	if (ce->release)
		ce->release(&ctx);
	store_close(ctx.st);
	scenario_release(&ctx.sc);
	cmd_parser_release(&ctx.p);
	free(ctx.u);
	free(ctx.val);
	free(ctx.seen);
	free(ctx.num);
	free(ctx.opts);
	return rc;
}

void cmd_print_ranges(FILE *f, const unsigned char *in, size_t n)
{
	const char *sep = "";
	for (size_t i = 0; i < n; i++) {
		if (!in[i])
			continue;
		size_t j = i;
		while (j + 1 < n && in[j + 1])
			j++;
		fprintf(f, "%s%zu", sep, i + 1);
		if (j > i)
			fprintf(f, "-%zu", j + 1);
		sep = ",";
		i = j;
	}
}

int cmd_slo_opt(const struct cmd_ctx *ctx, const char *arg, struct size_slo *slo, int *given)
{
	struct err e = {0};
	*given = 1;
	if (size_slo_parse(arg, slo, &e))
		return cmd_usage_error(ctx->ce, "%s", e.msg);
	return CMD_OK;
}

/* ids (n, ascending) as runrec_parse_ids reads them: "3-6,9". */
static void ids_text(const int64_t *ids, size_t n, struct sbuf *out)
{
	for (size_t i = 0; i < n; i++) {
		size_t j = i;
		while (j + 1 < n && ids[j + 1] == ids[j] + 1)
			j++;
		sbuf_printf(out, "%s%lld", i ? "," : "", (long long)ids[i]);
		if (j > i)
			sbuf_printf(out, "-%lld", (long long)ids[j]);
		i = j;
	}
}

static int cmp_id(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

int cmd_known_runs(struct cmd_ctx *ctx, const struct policy_ops *const *pols, size_t npol,
		   uint64_t lo, uint64_t hi, struct cmd_known *kn)
{
	size_t nseed = (size_t)(hi - lo) + 1;
	int64_t *ids = xcalloc(npol * nseed, sizeof *ids);
	struct err e = {0};
	int rc = CMD_OK;
	memset(kn, 0, sizeof *kn);
	if (cmd_has(ctx, CMD_K_NO_REUSE) || !ctx->st) {
		free(ids);
		return CMD_OK;
	}
	kn->k = xcalloc(npol, sizeof *kn->k);
	kn->fig = xcalloc(npol * nseed * RUNREC_NCOL, sizeof *kn->fig);
	for (size_t p = 0; p < npol && !rc; p++) {
		struct size_known *k = &kn->k[kn->n];
		double *fig = kn->fig + kn->n * nseed * RUNREC_NCOL;
		int found = 0;
		if (runrec_find_full(ctx->st, &ctx->sc, pols[p], lo, hi, ids + kn->nruns, fig,
				     &k->w0, &k->w1, &found, &e))
			rc = cmd_fail(ctx->ce, "%s: %s", ctx->p.operands[0], e.msg);
		else if (found) {
			k->policy = pols[p];
			k->fig = fig;
			kn->n++;
			kn->nruns += nseed;
		}
	}
	if (!rc && kn->nruns) {
		struct sbuf b = SBUF_INIT;
		sbuf_init(&b);
		qsort(ids, kn->nruns, sizeof *ids, cmp_id);
		ids_text(ids, kn->nruns, &b);
		fprintf(stderr,
			"voidfit %s: %zu full-cluster run%s read from the store, not replayed: "
			"run%s %s (--no-reuse replays them)\n",
			ctx->ce->name, kn->nruns, kn->nruns == 1 ? "" : "s",
			kn->nruns == 1 ? "" : "s", b.s);
		sbuf_release(&b);
	}
	free(ids);
	return rc;
}

void cmd_known_release(struct cmd_known *kn)
{
	if (!kn)
		return;
	FREE_ALL(kn->k, kn->fig);
	memset(kn, 0, sizeof *kn);
}

size_t cmd_known_count(const struct cmd_known *kn, const struct policy_ops *pol, size_t nseed)
{
	for (size_t i = 0; kn && i < kn->n; i++)
		if (kn->k[i].policy == pol)
			return nseed;
	return 0;
}

int cmd_runs_opt(const struct cmd_ctx *ctx, const char *arg, int64_t **ids, size_t *n)
{
	struct err e = {0};
	free(*ids);
	*ids = NULL;
	if (runrec_parse_ids(arg, ids, n, &e))
		return cmd_usage_error(ctx->ce, "--runs %s", e.msg);
	return CMD_OK;
}

/* ---- stopping and progress ---- */

volatile sig_atomic_t cmd_stop_signal;

static const int stop_signals[] = {SIGINT, SIGTERM, SIGHUP};

static void on_stop(int sig)
{
	cmd_stop_signal = sig;
}

void cmd_stop_catch(struct cmd_stop *s)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof stop_signals / sizeof *stop_signals; i++) {
		sigaction(stop_signals[i], &sa, &s->old[i]);
		if (s->old[i].sa_handler == SIG_IGN)
			sigaction(stop_signals[i], &s->old[i], NULL);
	}
}

void cmd_stop_release(struct cmd_stop *s)
{
	for (size_t i = 0; i < sizeof stop_signals / sizeof *stop_signals; i++)
		sigaction(stop_signals[i], &s->old[i], NULL);
}

void cmd_bar_start(struct cmd_bar *b)
{
	b->on = isatty(STDERR_FILENO);
	b->start = util_mono();
	b->last = 0;
	b->width = 0;
}

char *cmd_bar_time(double elapsed, double done, char *buf, size_t len)
{
	char a[32], l[32];
	fmt_duration(elapsed, FMT_DUR_ROUNDED, a, sizeof a);
	if (done >= CMD_BAR_ETA_DONE && done < 1 && elapsed >= CMD_BAR_ETA_AFTER) {
		fmt_duration(elapsed * (1 - done) / done, FMT_DUR_ROUNDED, l, sizeof l);
		snprintf(buf, len, "%s, about %s left", a, l);
	} else {
		snprintf(buf, len, "%s", a);
	}
	return buf;
}

void cmd_bar_draw(struct cmd_bar *b, double done, const char *fmt, ...)
{
	if (!b->on)
		return;
	double now = util_mono();
	if (now - b->start < 0.5 || now - b->last < 0.1)
		return;
	b->last = now;
	done = fmin(fmax(done, 0), 1);
	int fill = (int)(done * 30);
	char t[80];
	int w = fprintf(stderr, "\r[%.*s%*s] %3d%%  ", fill, "##############################",
			30 - fill, "", (int)(done * 100));
	va_list ap;
	va_start(ap, fmt);
	w += vfprintf(stderr, fmt, ap);
	va_end(ap);
	w += fprintf(stderr, " (%s)", cmd_bar_time(now - b->start, done, t, sizeof t));
	/* blank what a longer line before left */
	if (w - 1 < b->width)
		fprintf(stderr, "%*s", b->width - (w - 1), "");
	if (w - 1 > b->width)
		b->width = w - 1;
}

void cmd_bar_clear(struct cmd_bar *b)
{
	if (b->on && b->width)
		fprintf(stderr, "\r%*s\r", b->width, "");
	b->width = 0;
}

void cmd_bar_step(void *bar, double done, const char *policy, unsigned step, size_t nodes)
{
	cmd_bar_draw(bar, done, "%s on %zu nodes (step %u) ", policy, nodes, step);
}

void cmd_long_begin(struct cmd_long *l)
{
	cmd_bar_start(&l->bar);
	cmd_stop_catch(&l->stop);
}

void cmd_long_end(struct cmd_long *l)
{
	cmd_stop_release(&l->stop);
	cmd_bar_clear(&l->bar);
}
