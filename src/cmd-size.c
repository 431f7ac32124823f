/*
 * cmd-size.c — 'voidfit size': for each policy, the smallest cluster on which the trace still
 * meets an SLO at every seed (size.h), the GPUs it lets you retire and their $ a year; the
 * result is stored as a sizing of the scenario (store_sizing_put) for the report.
 */
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "replay.h"
#include "size.h"
#include "sizerec.h"
#include "table.h"

/* What check works out of the options, and what exec makes. */
struct size_state {
	const struct policy_ops **pols;
	size_t npol;
	uint64_t lo, hi;         /* the seeds */
	struct size_slo slo;     /* --slo, or DEFAULT_SLO */
	int any_slo;             /* --slo given */
	struct sbuf slo_text;    /* slo as size_slo_text gives it */
	int shrink;              /* --shrink's model, or -1 */
	struct size_plan plan;   /* the node groups and steps */
	struct size_result *res; /* npol, from size_run */
	struct cmd_known known;  /* full-cluster runs read from the store (--no-reuse: none) */
};

static int opt_size(struct cmd_ctx *ctx, int key, const char *arg);
CMD_DECLARE_HOOKS(size);

/* The SLO without --slo (timed mode; inflation has no default). */
#define DEFAULT_SLO "wait_p95<=15m"

const struct cmd_entry cmd_size_entry = {
	.name = "size",
	.usage = "STORE --policy P[,P...] [--slo SLO]... [--seeds A-B] [--shrink MODEL] "
		 "[--threads N] [--no-store] [--no-reuse] [--json | --format F] " SCENARIO_USAGE,
	.summary = "right-size: the fewest GPUs each policy needs to meet an SLO, and their $/yr",
	.opts = CMD_USES({CMD_O_POLICY, NULL, "policies to size for, comma-separated, or 'all'"},
			 {CMD_O_POLICIES, NULL, ""}, /* as sweep and compare spell it */
			 {CMD_O_SLO | CMD_OPT_BY_HOOK, NULL,
			  "what the smaller cluster must still meet: terms\n"
			  "NAME<=VALUE or NAME>=VALUE, comma-separated\n"
			  "(repeatable); NAME a run figure (wait_p95, wait_mean,\n"
			  "slowdown_mean, carried_over_jobs, jct_mean, ...),\n"
			  "VALUE a number, a duration for a time (90, 15m, 6h, 2d)\n"
			  "or 'full' (the figure on the full cluster); default\n"
			  "wait_p95<=15m (timed)"},
			 {CMD_O_SEEDS, NULL, "the SLO must hold at every seed A..B (default 1)"},
			 {CMD_O_SHRINK, NULL,
			  "retire nodes of GPU model MODEL only (default: every\n"
			  "GPU node group, each in proportion)"},
			 {CMD_O_THREADS, NULL,
			  "runs at once (default: the number of CPUs; the result\n"
			  "does not depend on it)"},
			 {CMD_O_NO_STORE, NULL, "do not store the result"},
			 {CMD_O_NO_REUSE, NULL,
			  "replay the full cluster even where the store holds its\n"
			  "runs (the same scenario, policy, seed and voidfit\n"
			  "version: by default they are read, as replay stored them)"},
			 {CMD_O_JSON, NULL, NULL}, {CMD_O_FORMAT, NULL, NULL}),
	.help = "A node group is the nodes of one GPU model and capacity. Step k of S (S: the\n"
		"largest group's nodes) keeps ceil(k x n / S) of a group's n nodes, removed in a\n"
		"seeded order; CPU-only nodes stay. A bisection over k finds the smallest cluster\n"
		"that meets the SLO at every seed with no more unplaceable jobs than the full\n"
		"cluster; it assumes more nodes never miss what fewer meet (voidfit(7)), and\n"
		"the two next larger sizes are tried to check it. Saved $/yr = retired GPUs x\n"
		"price x 8760 h.\n",
	.scenario = 1,
	.operand = "STORE",
	.store = CMD_STORE_WRITE,
	.formats = 1,
	.opt = opt_size,
	CMD_HOOKS(size, size_state),
};

/* --slo, in argv order: each adds its terms. */
static int opt_size(struct cmd_ctx *ctx, int key, const char *arg)
{
	struct size_state *z = ctx->u;
	(void)key;
	return cmd_slo_opt(ctx, arg, &z->slo, &z->any_slo);
}

static int check_size(struct cmd_ctx *ctx)
{
	struct size_state *z = ctx->u;
	const struct cmd_entry *ce = ctx->ce;
	const char *policy = cmd_arg(ctx, 'p');
	struct err e = {0};

	sbuf_init(&z->slo_text);
	z->lo = z->hi = 1;
	z->shrink = -1;
	if (!policy)
		return cmd_usage_error(ce, "no --policy given");
	if (replay_parse_policies(policy, &z->pols, &z->npol, &e))
		return cmd_usage_error(ce, "--policy: %s", e.msg);
	if (scenario_check(&ctx->sc, &e) ||
	    replay_seed_opts(NULL, cmd_arg(ctx, CMD_K_SEEDS), &z->lo, &z->hi, &e))
		return cmd_usage_error(ce, "%s", e.msg);
	if (!z->any_slo && ctx->sc.mode != SIM_TIMED)
		return cmd_usage_error(ce,
				       "--mode %s has no default SLO: give --slo (e.g. "
				       "'unallocated_gpu_share<=0.1')",
				       sim_mode_name(ctx->sc.mode));
	if (!z->any_slo && size_slo_parse(DEFAULT_SLO, &z->slo, &e))
		return cmd_fail(ce, "%s", e.msg); /* a bug: the default parses */
	if (size_slo_check(&z->slo, ctx->sc.mode, &e))
		return cmd_usage_error(ce, "%s", e.msg);
	size_slo_text(&z->slo, &z->slo_text);
	if (cmd_has(ctx, 'n'))
		ctx->store_mode = CMD_STORE_READ;
	return CMD_OK;
}

/* The store's side of the inputs: the shrink model, the prices, the scenario, that the
 * store takes the result before the search begins, and the node groups. */
static int load_size(struct cmd_ctx *ctx, struct size_state *z)
{
	const struct cmd_entry *ce = ctx->ce;
	const char *shrink = cmd_arg(ctx, CMD_K_SHRINK);
	struct err e = {0};
	int rc;
	if ((rc = cmd_scenario_load(ctx, CMD_K_SHRINK, &z->shrink)))
		return rc;
	if (!cmd_has(ctx, 'n') && sizerec_can_store(ctx->st, &e))
		return cmd_fail(ce, "%s", e.msg);
	if (size_plan_init(&z->plan, ctx->sc.base.nodes, ctx->sc.base.nnodes, z->shrink, &e)) {
		if (shrink)
			return cmd_fail(ce, "--shrink %s: %s", shrink, e.msg);
		return cmd_fail(ce, "trace %s: %s", ctx->sc.trace_name.s, e.msg);
	}
	return CMD_OK;
}

/* The policies whose full cluster itself misses the SLO, on stderr; how many meet it. */
static size_t say_full_misses(const struct cmd_ctx *ctx, const struct size_state *z)
{
	size_t nok = 0;
	for (size_t i = 0; i < z->npol; i++) {
		const struct size_result *r = &z->res[i];
		struct sbuf why = SBUF_INIT;
		if (r->full_ok) {
			nok++;
			continue;
		}
		sbuf_init(&why);
		sizerec_miss(&z->slo, &r->full, &r->full, &why);
		cmd_fail(ctx->ce,
			 "%s: the full cluster itself misses the SLO (%s): nothing to retire; "
			 "loosen --slo",
			 r->policy->name, why.s);
		sbuf_release(&why);
	}
	return nok;
}

/* What the search found, on stdout, and stored unless --no-store: the exit status. */
static int print_sizes(struct cmd_ctx *ctx, struct size_state *z, const struct size_opts *o)
{
	struct sbuf w = SBUF_INIT;
	struct err e = {0};
	int64_t scenario_id = 0;
	size_t nstored = 0, nok = say_full_misses(ctx, z);
	int rc = nok < z->npol ? CMD_FAIL : CMD_OK;
	if (!nok)
		return rc;
	sbuf_init(&w);
	sizerec_warning(o, z->res, &w);
	if (w.len)
		fprintf(stderr, "voidfit size: %s\n", w.s);
	sbuf_release(&w);
	struct table *tab = sizerec_table(o, z->res, z->slo_text.s);
	int prc = cmd_print_table(ctx, tab);
	table_free(tab);
	if (prc || cmd_has(ctx, 'n'))
		return prc ? prc : rc;
	if (sizerec_store(ctx->st, o, z->res, z->slo_text.s,
			  z->shrink >= 0 ? gpumodel_get(z->shrink)->name : "", &scenario_id,
			  &nstored, &e))
		return cmd_fail(ctx->ce, "%s", e.msg);
	fprintf(stderr, "stored %zu sizing%s of scenario %" PRId64 " in %s\n", nstored,
		nstored == 1 ? "" : "s", scenario_id, ctx->p.operands[0]);
	return rc;
}

static int exec_size(struct cmd_ctx *ctx)
{
	struct size_state *z = ctx->u;
	struct err e = {0};
	struct cmd_long lg;
	int rc;

	if ((rc = load_size(ctx, z)) ||
	    (rc = cmd_known_runs(ctx, z->pols, z->npol, z->lo, z->hi, &z->known)))
		return rc;
	struct size_opts o = {.sc = &ctx->sc,
			      .plan = &z->plan,
			      .pols = z->pols,
			      .npol = z->npol,
			      .lo = z->lo,
			      .hi = z->hi,
			      .slo = &z->slo,
			      .nthreads = (unsigned)cmd_num(ctx, CMD_K_THREADS, util_ncpu()),
			      .progress = cmd_bar_step,
			      .u = &lg.bar,
			      .stop = &cmd_stop_signal,
			      .known = z->known.k,
			      .nknown = z->known.n};
	cmd_long_begin(&lg);
	int src = size_run(&o, &z->res, &e);
	cmd_long_end(&lg);
	if (src == VF_ESTOP) {
		cmd_fail(ctx->ce, "stopped; nothing stored");
		return CMD_STOPPED;
	}
	if (src)
		return cmd_fail(ctx->ce, "%s", e.msg);
	return print_sizes(ctx, z, &o);
}

static void release_size(struct cmd_ctx *ctx)
{
	struct size_state *z = ctx->u;
	size_results_free(z->res, z->npol);
	size_plan_release(&z->plan);
	cmd_known_release(&z->known);
	sbuf_release(&z->slo_text);
	free(z->pols);
}
