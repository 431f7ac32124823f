/*
 * cmd-sweep.c — 'voidfit sweep': write a grid of replays (traces x what-ifs x targets x
 * seeds, every policy in each) as a task list with a GNU parallel script and a Slurm job
 * array; 'voidfit sweep status DIR' says which tasks are done, failed or missing.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "replay.h"
#include "scenario.h"
#include "sweep.h"

/* The sweep the options describe, and what it takes from the store. */
struct sweep_cmd {
	struct sweep w;
	const struct policy_ops **pols;
	const char **polnames, **sbopt; /* the sweep's pointers into them */
	size_t nsbopt;
	int64_t *ids;        /* the traces' */
	char (*digests)[65]; /* the traces' */
	char *bindir;
	char mem[32], tim[32]; /* the estimates */
};

static void init_sweep(struct cmd_ctx *ctx);
static int opt_sweep(struct cmd_ctx *ctx, int key, const char *arg);
CMD_DECLARE_HOOKS(sweep);
static int exec_status(int argc, char **argv);

const struct cmd_entry cmd_sweep_entry = {
	.name = "sweep",
	.usage = "STORE --policies P[,P...] [--split-policies] [--seeds A-B] [--targets LIST] "
		 "[--what-if FILE]... [--trace T]... [--cells-per-task N] [--mem SIZE] [--time T] "
		 "[--sbatch-opt OPT]... -o DIR | status [--todo] DIR",
	.summary = "write a grid of replays as tasks for GNU parallel or Slurm job arrays",
	.opts = CMD_USES(
		{CMD_O_POLICIES, NULL, "policies every task runs, comma-separated, or 'all'"},
		{CMD_O_POLICY, NULL, ""}, /* as replay spells it */
		{CMD_O_SPLIT, NULL, "one task per policy (else every policy in each task)"},
		{CMD_O_SEEDS, NULL, "one task per seed A..B (default 1)"},
		{CMD_O_TARGETS | CMD_OPT_BY_HOOK, NULL,
		 "inflation targets, one task each: X[,X...], X a number\n"
		 "or LO..HI/STEP (e.g. 0.5..1.3/0.05); none: timed runs"},
		{CMD_O_WHATIF | CMD_OPT_BY_HOOK, NULL,
		 "scenario variations, one a line, each line scenario\n"
		 "options ('--io-pressure 2', '--fault n1:sto=0.5@0+6h');\n"
		 "one task per line (repeatable; files add up); a bad\n"
		 "line fails the sweep by FILE:LINE"},
		{CMD_O_TRACE | CMD_OPT_BY_HOOK, NULL,
		 "a trace of the store, by name or id (repeatable;\n"
		 "default: the newest)"},
		{CMD_O_CELLS, NULL,
		 "Slurm: each array task runs N tasks one after another\n"
		 "(default 1; fewer, longer array tasks)"},
		{CMD_O_MEM | CMD_OPT_BY_HOOK, NULL,
		 "Slurm: memory an array task asks for (--mem; default:\n"
		 "estimated from the traces' jobs and nodes, see man 1)"},
		{CMD_O_TIME | CMD_OPT_BY_HOOK, NULL,
		 "Slurm: its time limit (--time; default: estimated too)"},
		{CMD_O_SBATCH | CMD_OPT_BY_HOOK, NULL,
		 "Slurm: one more sbatch option for the array job, as\n"
		 "'--partition=gpu' (repeatable)"},
		{CMD_O_OUTPUT, "DIR",
		 "the sweep directory to create (or the same sweep's, to\n"
		 "write its scripts anew)"}),
	.help = "DIR gets 'tasks' (one voidfit command a line; task N writes its own task store\n"
		"runs/N.db), 'sweep.id' (the sweep's identity), 'parallel.sh' (GNU parallel: -j "
		"N,\n"
		"--sshloginfile FILE, --transfer) and 'slurm.sh' (submits slurm.sbatch as job "
		"arrays\n"
		"within the cluster's MaxArraySize, then the merge after them; sbatch options\n"
		"pass through; --transfer[=HOST] for nodes without a shared file system: rsync\n"
		"over ssh to HOST). Both run the tasks 'sweep status' calls not done: run again, "
		"they\n"
		"rerun what failed, was killed or lost; a stopped task resumes after its runs.\n"
		"'voidfit merge STORE DIR/runs/*.db' folds the task stores into STORE.\n"
		"'voidfit sweep status DIR' checks each task store and lists the tasks done,\n"
		"failed (with the last line of their log), invalid, killed and missing, then "
		"those\n"
		"not done as a list 'sbatch --array' takes; it exits 0 only when every task is\n"
		"done. --todo prints only the tasks not done, one a line.\n",
	.operand = "STORE",
	.store = CMD_STORE_READ,
	.sub = "status",
	.exec_sub = exec_status,
	.init = init_sweep,
	.opt = opt_sweep,
	CMD_HOOKS(sweep, sweep_cmd),
};

/* Task numbers of state st as "3,5-9" on f: every one, as sbatch --array takes a list. */
static void print_tasks(FILE *f, const struct sweep_status *s, enum sweep_state st)
{
	unsigned char *in = xcalloc(s->n + 1, 1);
	for (size_t i = 0; i < s->n; i++)
		in[i] = s->state[i] == st;
	cmd_print_ranges(f, in, s->n);
	free(in);
	fputc('\n', f);
}

static int exec_status(int argc, char **argv)
{
	struct sweep_status s;
	struct sbuf todo = SBUF_INIT;
	struct err e = {0};
	int only = argc >= 3 && !strcmp(argv[2], "--todo");
	const char *dir = argv[2 + only];
	if (argc != 3 + only)
		return cmd_usage_error(&cmd_sweep_entry, argc < 3 + only ? "status: no DIR given"
									 : "status: one DIR only");
	if (sweep_status_read(dir, &s, &e))
		return cmd_fail(&cmd_sweep_entry, "%s", e.msg);
	if (only) { /* for the scripts: the tasks not done, one a line */
		for (size_t i = 0; i < s.n; i++)
			if (s.state[i] != SWEEP_DONE)
				printf("%zu\n", i + 1);
		sweep_status_release(&s);
		if (fflush(stdout) || ferror(stdout))
			return cmd_fail(&cmd_sweep_entry, "stdout: write error");
		return CMD_OK;
	}
	printf("%s: %zu tasks: %zu done, %zu failed, %zu invalid, %zu running or killed, %zu "
	       "missing\n",
	       dir, s.n, s.count[SWEEP_DONE], s.count[SWEEP_FAILED], s.count[SWEEP_INVALID],
	       s.count[SWEEP_PARTIAL], s.count[SWEEP_MISSING]);
	for (size_t i = 0; i < s.n; i++)
		if (s.state[i] == SWEEP_FAILED || s.state[i] == SWEEP_PARTIAL)
			printf("%s task %zu (no runs/%zu.db), its log ends: %s\n",
			       s.state[i] == SWEEP_FAILED ? "failed" : "running or killed", i + 1,
			       i + 1, s.last[i] ? s.last[i] : "(empty log)");
		else if (s.state[i] == SWEEP_INVALID)
			printf("invalid task %zu: %s\n", i + 1, s.last[i]);
	if (s.count[SWEEP_MISSING]) {
		printf("missing: ");
		print_tasks(stdout, &s, SWEEP_MISSING);
	}
	sbuf_init(&todo);
	sweep_status_todo(&s, &todo);
	if (todo.len)
		printf("not done: %s\n", todo.s);
	sbuf_release(&todo);
	int rc = s.count[SWEEP_DONE] == s.n ? CMD_OK : CMD_FAIL;
	sweep_status_release(&s);
	if (fflush(stdout) || ferror(stdout))
		return cmd_fail(&cmd_sweep_entry, "stdout: write error");
	return rc;
}

/* The scenario's options, which a what-if takes. */
static const struct cmd_opt *const whatif_opts = cmd_options + CMD_NOPT;

/* The option name of key in whatif_opts. */
static const char *whatif_name(int key)
{
	for (const struct cmd_opt *o = whatif_opts; o->name; o++)
		if (o->key == key)
			return o->name;
	return "?";
}

/*
 * Check what-if line wi as its tasks will read it, after the sweep's own options (a target
 * makes them inflation runs), so that a bad line fails here, by FILE:LINE, and not in each
 * of its tasks later: scenario options of replay only (not --trace: the sweep's), each valid,
 * valid together, and the files they name readable and well formed. The line is rewritten
 * as long options, the files by absolute path (a relative one is taken from the directory
 * sweep runs in; tasks run in the sweep's).
 */
static int check_whatif(const struct sweep *w, struct sweep_whatif *wi)
{
	static char name[] = "what-if";
	char **argv = xcalloc(wi->n + 2, sizeof *argv), **out = xcalloc(2 * wi->n + 1, sizeof *out);
	size_t nout = 0;
	struct cmd_parser p;
	struct scenario sc;
	struct err e = {0};
	int c, rc = CMD_OK;

	argv[0] = name;
	for (size_t i = 0; i < wi->n; i++)
		argv[i + 1] = wi->words[i];
	cmd_parser_init(&p, (int)wi->n + 1, argv);
	scenario_init(&sc);
	if (w->ntargets && (scenario_set(&sc, SCENARIO_K_MODE, "inflate", &e) ||
			    scenario_set(&sc, SCENARIO_K_TARGET, w->targets[0], &e)))
		rc = cmd_fail(&cmd_sweep_entry, "--targets: %s", e.msg);
	while (rc == CMD_OK && (c = cmd_getopt(&p, whatif_opts)) != -1) {
		char *arg = p.arg ? xstrdup(p.arg) : NULL;
		if (c == '?')
			rc = cmd_fail(&cmd_sweep_entry, "%s: '%s': %s", wi->where, p.bad, p.why);
		else if (c == SCENARIO_K_TRACE)
			rc = cmd_fail(&cmd_sweep_entry,
				      "%s: --trace: not in a what-if line (give sweep --trace)",
				      wi->where);
		else if (c == SCENARIO_K_CLUSTER || c == SCENARIO_K_FAULT_FILE ||
			 c == SCENARIO_K_PROFILE) {
			char *abs = realpath(arg, NULL);
			if (!abs)
				rc = cmd_fail(&cmd_sweep_entry, "%s: --%s %s: %s", wi->where,
					      whatif_name(c), arg, strerror(errno));
			free(arg);
			arg = abs;
		}
		if (rc == CMD_OK && scenario_set(&sc, c, arg, &e))
			rc = cmd_fail(&cmd_sweep_entry, "%s: %s", wi->where, e.msg);
		if (rc == CMD_OK) {
			size_t len = strlen(whatif_name(c)) + 3;
			out[nout] = xmalloc(len);
			snprintf(out[nout++], len, "--%s", whatif_name(c));
			if (arg)
				out[nout++] = arg;
		} else {
			free(arg);
		}
	}
	if (rc == CMD_OK && p.nops)
		rc = cmd_fail(&cmd_sweep_entry,
			      "%s: '%s': not an option (a what-if line holds scenario options of "
			      "replay)",
			      wi->where, p.operands[0]);
	if (rc == CMD_OK && (scenario_check(&sc, &e) || scenario_check_files(&sc, &e)))
		rc = cmd_fail(&cmd_sweep_entry, "%s: %s", wi->where, e.msg);
	if (rc == CMD_OK) {
		for (size_t i = 0; i < wi->n; i++)
			free(wi->words[i]);
		free(wi->words);
		wi->words = out;
		wi->n = nout;
		out = NULL;
	}
	scenario_release(&sc); /* before the words it points into */
	for (size_t i = 0; out && i < nout; i++)
		free(out[i]);
	free(out);
	cmd_parser_release(&p);
	free(argv);
	return rc;
}

/* The traces' sizes, for the estimates. */
struct sizes {
	const int64_t *ids;
	size_t n;
	int64_t jobs, nodes; /* the largest of those traces */
};

static int take_size(void *ctx, const struct store_trace_info *t)
{
	struct sizes *z = ctx;
	for (size_t i = 0; i < z->n; i++)
		if (z->ids[i] == t->id) {
			z->jobs = t->njobs > z->jobs ? t->njobs : z->jobs;
			z->nodes = t->nnodes > z->nodes ? t->nnodes : z->nodes;
		}
	return 0;
}

/*
 * What an array task asks Slurm for, from the largest trace (jobs, nodes), the runs an array
 * task makes and the largest inflation target (it scales the jobs): memory 128 MB + 2 x
 * (8 MB + 0.22 KB a job + 3 KB a node), the peak resident size of one replay --threads 1
 * measured at 20k-200k jobs and 200-4000 nodes, doubled; time 10 min + 3 x 0.2 ms a job
 * x (1 + nodes / 2000) per run, a run's CPU time at those sizes some 3 to 10 times over
 * (a congested trace is slower; a task stopped by its limit resumes where it stopped).
 */
static void estimate(int64_t jobs, int64_t nodes, double scale, size_t runs, char *mem, size_t nmem,
		     char *tim, size_t ntim)
{
	double j = (double)jobs * (scale > 1 ? scale : 1), n = (double)nodes;
	double mb = 128 + 2 * (8 + j * 0.22 / 1024 + n * 3.0 / 1024);
	double sec = 600 + 3 * (double)runs * j * 0.2e-3 * (1 + n / 2000);
	unsigned long min = (unsigned long)ceil(sec / 60);
	snprintf(mem, nmem, "%.0fM", ceil(mb));
	snprintf(tim, ntim, "%lu:%02lu:00", min / 60, min % 60);
}

static void init_sweep(struct cmd_ctx *ctx)
{
	struct sweep_cmd *t = ctx->u;
	sweep_init(&t->w);
}

/* The options that add up or are checked as they come. */
static int opt_sweep(struct cmd_ctx *ctx, int key, const char *arg)
{
	struct sweep_cmd *t = ctx->u;
	struct sweep *w = &t->w;
	struct err e = {0};
	switch (key) {
	case CMD_K_TARGETS:
		if (sweep_add_targets(w, arg, &e))
			return cmd_usage_error(ctx->ce, "--targets %s", e.msg);
		break;
	case CMD_K_WHATIF:
		if (sweep_add_whatif(w, arg, &e))
			return cmd_fail(ctx->ce, "--what-if %s", e.msg);
		break;
	case CMD_K_TRACE:
		w->traces = xrealloc(w->traces, (w->ntraces + 1) * sizeof *w->traces);
		w->traces[w->ntraces++] = arg;
		break;
	case CMD_K_MEM:
	case CMD_K_TIME:
		/* one word of an #SBATCH line: Slurm reads no quotes there */
		if (!*arg || strpbrk(arg, " \t\n\r'\"\\"))
			return cmd_usage_error(ctx->ce, "--%s '%s': one word, no blank or quote",
					       key == CMD_K_MEM ? "mem" : "time", arg);
		*(key == CMD_K_MEM ? &w->mem : &w->time) = arg;
		break;
	case CMD_K_SBATCH:
		if (arg[0] != '-' || strpbrk(arg, "\n\r"))
			return cmd_usage_error(
				ctx->ce, "--sbatch-opt '%s': not an sbatch option (--NAME=VALUE)",
				arg);
		t->sbopt = xrealloc(t->sbopt, (t->nsbopt + 1) * sizeof *t->sbopt);
		t->sbopt[t->nsbopt++] = arg;
		break;
	}
	return CMD_OK;
}

static int check_sweep(struct cmd_ctx *ctx)
{
	struct sweep_cmd *t = ctx->u;
	struct sweep *w = &t->w;
	const struct cmd_entry *ce = ctx->ce;
	const char *seeds = cmd_arg(ctx, CMD_K_SEEDS);
	struct err e = {0};
	int rc = CMD_OK;

	w->policies = cmd_arg(ctx, 'p');
	w->split = cmd_has(ctx, CMD_K_SPLIT) > 0;
	if (!w->policies)
		return cmd_usage_error(ce, "no --policies given");
	if (replay_parse_policies(w->policies, &t->pols, &w->npol, &e))
		return cmd_usage_error(ce, "--policies: %s", e.msg);
	t->polnames = xcalloc(w->npol, sizeof *t->polnames);
	for (size_t i = 0; i < w->npol; i++)
		t->polnames[i] = t->pols[i]->name;
	w->pols = t->polnames;
	w->cells = (unsigned)cmd_num(ctx, CMD_K_CELLS, 1);
	w->sbopt = t->sbopt;
	w->nsbopt = t->nsbopt;
	if (seeds && replay_parse_seeds(seeds, &w->lo, &w->hi, &e))
		return cmd_usage_error(ce, "--seeds %s", e.msg);
	if (!cmd_arg(ctx, 'o'))
		return cmd_usage_error(ce, "no -o DIR given");
	for (size_t i = 0; i < w->nwi && rc == CMD_OK; i++)
		rc = check_whatif(w, &w->wi[i]);
	if (rc == CMD_OK && sweep_ntasks(w) > SWEEP_MAX_TASKS)
		rc = cmd_usage_error(ce, "more than %d tasks", SWEEP_MAX_TASKS);
	return rc;
}

/* The store and its traces are the sweep's: a bad one fails here, not in each task. The
 * traces' digests, and the estimates of an array task's memory and time from their sizes. */
static int read_traces(struct cmd_ctx *ctx, struct sweep_cmd *t)
{
	struct sweep *w = &t->w;
	struct err e = {0};
	size_t nt = w->ntraces ? w->ntraces : 1;
	t->ids = xcalloc(nt, sizeof *t->ids);
	t->digests = xcalloc(nt, sizeof *t->digests);
	for (size_t i = 0; i < nt; i++)
		if (store_trace_find(ctx->st, w->ntraces ? w->traces[i] : NULL, &t->ids[i], &e) ||
		    store_trace_digest(ctx->st, t->ids[i], t->digests[i], &e))
			return cmd_fail(ctx->ce, "%s", e.msg);
	w->digests = t->digests;
	struct sizes z = {t->ids, nt, 0, 0};
	if (store_trace_list(ctx->st, take_size, &z, &e))
		return cmd_fail(ctx->ce, "%s", e.msg);
	double scale = 1;
	for (size_t i = 0; i < w->ntargets; i++)
		scale = fmax(scale, atof(w->targets[i]));
	estimate(z.jobs, z.nodes, scale, (w->split ? 1 : w->npol) * w->cells, t->mem, sizeof t->mem,
		 t->tim, sizeof t->tim);
	if (!w->mem)
		w->mem = t->mem;
	if (!w->time)
		w->time = t->tim;
	return CMD_OK;
}

static int exec_sweep(struct cmd_ctx *ctx)
{
	struct sweep_cmd *t = ctx->u;
	struct sweep *w = &t->w;
	const char *dir = cmd_arg(ctx, 'o'), *store = ctx->p.operands[0];
	struct err e = {0};
	int rc, same = 0;

	if ((rc = read_traces(ctx, t)))
		return rc;
	if (!(w->store = realpath(store, NULL)))
		return cmd_fail(ctx->ce, "%s: cannot resolve its path", store);
	w->bindir = t->bindir = sweep_bin_dir();
	if (sweep_write(w, dir, &same, &e))
		return cmd_fail(ctx->ce, "%s", e.msg);
	size_t n = sweep_ntasks(w);
	if (same)
		fprintf(stderr, "%s holds this sweep already: its scripts are written anew\n", dir);
	else
		fprintf(stderr, "wrote %zu task%s (%zu runs) to %s/tasks\n", n, n == 1 ? "" : "s",
			n * (w->split ? 1 : w->npol), dir);
	fprintf(stderr,
		"slurm: --mem=%s --time=%s an array task of %u task%s\n"
		"run them: %s/parallel.sh [-j N] | %s/slurm.sh [SBATCH-OPTION...]\n"
		"then: voidfit merge %s %s/runs/*.db\n",
		w->mem, w->time, (unsigned)w->cells, w->cells == 1 ? "" : "s", dir, dir, store,
		dir);
	return CMD_OK;
}

static void release_sweep(struct cmd_ctx *ctx)
{
	struct sweep_cmd *t = ctx->u;
	sweep_release(&t->w);
	FREE_ALL(t->bindir, t->pols, t->polnames, t->sbopt, t->ids, t->digests);
}
