/* cmd-gen.c — 'voidfit gen': write a synthetic trace of a standard scenario. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "gen.h"
#include "json.h"
#include "sbuf.h"

static void init_gen(struct cmd_ctx *ctx);
static int opt_gen(struct cmd_ctx *ctx, int key, const char *arg);
static int exec_gen(struct cmd_ctx *ctx);

/* -s and -n would mean seed and no-store, as in the other commands: long options only. */
const struct cmd_entry cmd_gen_entry = {
	.name = "gen",
	.usage = "[--scenario NAME] [-j N] [--nodes N] [--seed S] [--templates N] [--json] -o DIR",
	.summary = "generate a synthetic trace of a standard scenario",
	.opts = CMD_USES({CMD_O_SCENARIO | CMD_OPT_BY_HOOK, "NAME",
			  "balanced (default), irregular, storage-stress, hard or\n"
			  "llm"},
			 {CMD_O_JOBS | CMD_OPT_BY_HOOK, NULL,
			  "jobs to generate (default 2000; at most 100000000)"},
			 {CMD_O_NODE_COUNT | CMD_OPT_BY_HOOK, NULL,
			  "nodes of the cluster (default 64; at most 1000000)"},
			 {CMD_O_GEN_SEED | CMD_OPT_BY_HOOK, NULL,
			  "seed, 0..18446744073709551615 (default 1): the same\n"
			  "arguments write the same bytes"},
			 {CMD_O_TEMPLATES | CMD_OPT_BY_HOOK, NULL,
			  "the jobs take their requests (class, GPUs, cpu, mem,\n"
			  "HBM, net, sto, iocpu, GPU models) from N templates, the\n"
			  "k-th of popularity 1/k, as real traces repeat requests;\n"
			  "durations and arrivals stay each job's own (default:\n"
			  "every job drawn on its own)"},
			 {CMD_O_JSON, NULL,
			  "print what was written as one JSON object (keys:\n"
			  "scenario, jobs, nodes, seed, templates, files)"},
			 {CMD_O_OUTPUT, "DIR",
			  "write DIR/jobs.csv, DIR/nodes.csv and, for hard,\n"
			  "DIR/faults.txt (DIR is created if missing; a\n"
			  "faults.txt there is removed for other scenarios)"}),
	.layout = {24, 0},
	.help = "Scenarios:\n"
		"  balanced        60% A100x8, 30% T4x4, 10% CPU nodes; jobs 30% infer, 35% "
		"train,\n"
		"                  20% batch, 15% cpu; offered GPU load 0.85; storage sized for "
		"the\n"
		"                  demand\n"
		"  irregular       ten node groups shaped after Alibaba gpu-v2023 (V100M16, "
		"V100M32,\n"
		"                  P100, T4, A10, G2, G3, H100; 1-8 GPUs; CPU nodes); jobs 40% "
		"infer,\n"
		"                  25% train, 22% batch, 13% cpu; load 0.85\n"
		"  storage-stress  balanced's cluster with half the storage bandwidth and jobs "
		"with\n"
		"                  4x the storage demand\n"
		"  hard            storage-stress at load 0.90 plus faults.txt: storage halved for "
		"6h\n"
		"                  on 10% of GPU nodes, NICs at a quarter for 30m on 5% of nodes, "
		"one\n"
		"                  group's storage halved for 2h\n"
		"  llm             A100x8 nodes only; jobs 6% pretraining gangs of 2-64 whole\n"
		"                  nodes (8 h median), 24% fine-tuning on one node (3 h), 20%\n"
		"                  inference replicas of 1-8 GPUs (12 h), 50% evaluation of 1-8\n"
		"                  GPUs (15 min); load 0.85; jobs.csv has a workers column.\n"
		"                  The shape (a few gangs hold most GPU time, evaluation is most\n"
		"                  jobs and short) is Acme's (Hu et al., NSDI 2024); the shares,\n"
		"                  gang sizes and medians are assumed (voidfit(7))\n",
	.no_operand = 1,
	.state_size = sizeof(struct gen_params),
	.init = init_gen,
	.opt = opt_gen,
	.exec = exec_gen,
};

/* A count option: an integer in 1..max into *out; else a usage error. */
static int count_opt(const struct cmd_entry *ce, const char *name, const char *arg, int max,
		     int64_t *out)
{
	int64_t v;
	if (parse_i64(arg, &v) || v < 1 || v > max)
		return cmd_usage_error(ce, "%s '%s': want an integer in 1..%d", name, arg, max);
	*out = v;
	return 0;
}

/* What gen_write wrote, as one JSON object; the seed is a string, as in the runs'
 * parameters: a uint64 does not fit a JSON number. */
static void print_json(const struct gen_params *p, const char *dir)
{
	const char *names[GEN_MAX_FILES];
	size_t n = gen_files(p->scenario, names);
	struct sbuf b, path;
	struct json j;
	char seed[24];
	sbuf_init(&b);
	sbuf_init(&path);
	json_init(&j, &b, 1);
	json_obj(&j);
	json_key_str(&j, "scenario", gen_scenario_name(p->scenario));
	json_key_int(&j, "jobs", p->njobs);
	json_key_int(&j, "nodes", p->nnodes);
	json_key(&j, "seed");
	snprintf(seed, sizeof seed, "%" PRIu64, p->seed);
	json_str(&j, seed);
	json_key_int(&j, "templates", p->templates);
	json_key(&j, "files");
	json_arr(&j);
	for (size_t i = 0; i < n; i++) {
		sbuf_reset(&path);
		sbuf_printf(&path, "%s/%s", dir, names[i]);
		json_str(&j, path.s);
	}
	json_end(&j);
	json_end(&j);
	fputs(b.s, stdout);
	sbuf_release(&b);
	sbuf_release(&path);
}

static void init_gen(struct cmd_ctx *ctx)
{
	struct gen_params *p = ctx->u;
	*p = (struct gen_params){.scenario = GEN_BALANCED, .njobs = 2000, .nnodes = 64, .seed = 1};
}

/* The parameters of the trace, each checked as it comes. */
static int opt_gen(struct cmd_ctx *ctx, int key, const char *arg)
{
	struct gen_params *p = ctx->u;
	const struct cmd_entry *ce = ctx->ce;
	switch (key) {
	case CMD_K_SCENARIO:
		if ((p->scenario = gen_scenario_find(arg)) < 0)
			return cmd_usage_error(
				ce,
				"scenario '%s': want balanced, irregular, storage-stress, hard or "
				"llm",
				arg);
		break;
	case 'j':
		return count_opt(ce, "jobs", arg, GEN_MAX_JOBS, &p->njobs);
	case CMD_K_NODE_COUNT:
		return count_opt(ce, "nodes", arg, GEN_MAX_NODES, &p->nnodes);
	case CMD_K_GEN_SEED:
		if (parse_u64(arg, &p->seed))
			return cmd_usage_error(
				ce, "seed '%s': want an integer in 0..18446744073709551615", arg);
		break;
	case CMD_K_TEMPLATES:
		return count_opt(ce, "templates", arg, GEN_MAX_TEMPLATES, &p->templates);
	}
	return CMD_OK;
}

static int exec_gen(struct cmd_ctx *ctx)
{
	const struct gen_params *p = ctx->u;
	const char *dir = cmd_arg(ctx, 'o');
	struct err e = {0};
	if (!dir || !*dir)
		return cmd_usage_error(ctx->ce, "-o DIR is required");
	if (gen_write(p, dir, &e))
		return cmd_fail(ctx->ce, "%s", e.msg);
	if (cmd_has(ctx, CMD_K_JSON))
		print_json(p, dir);
	return CMD_OK;
}
