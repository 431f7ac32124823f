/*
 * cmd-replay.c — 'voidfit replay': replay a trace of a store under one or more policies and
 * seeds, store each run, print the summary table (text, JSON, CSV or Markdown).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "replay.h"

static int exec_replay(int argc, char **argv);

const struct cmd_entry cmd_replay_entry = {
	.name = "replay",
	.usage = "STORE --policy P[,P...] [--mode timed|inflate] [--target X] [--seed N | --seeds "
		 "A-B] [--queue Q] [--preempt] [--trace T] [--dims D] [--lambda L] [--mu M] "
		 "[--coverage C] "
		 "[--fault SPEC]... [--fault-file FILE] [--profile FILE] [--io-pressure X] "
		 "[--gpu-price MODEL=USD]... [--cluster FILE] [--sample-nodes K] [--threads N] "
		 "[--no-store] "
		 "[--json | --format F]",
	.summary = "replay a trace under placement policies; store the runs; print a summary",
	.help = "  -p, --policy P[,P...]  policies to run, comma-separated, or 'all'\n"
		"  -m, --mode M           timed (default: arrivals, queue, departures) or inflate\n"
		"                         (sample jobs until --target x GPU capacity is "
		"requested)\n"
		"  -t, --target X         inflation target, share of GPU capacity (default 1.3)\n"
		"  -s, --seed N           PRNG and enrichment seed (default 1)\n"
		"      --seeds A-B        one run per seed A..B, then the mean per policy\n"
		"  -q, --queue Q          timed queue: fifo (default), backfill, priority\n"
		"      --preempt          with --queue priority: a waiting job may evict lower "
		"classes\n"
		"      --trace T          trace of the store, by name or id (default: the newest)\n"
		"      --dims D           dims every policy sees (cpu,mem,gpu,hbm,net,sto,iocpu; "
		"all;\n"
		"                         hard), instead of each policy's own\n"
		"      --lambda L         RAGP weight of residual-shape irregularity (default "
		"0.5)\n"
		"      --mu M             RAGP weight of bandwidth congestion (default 0.25)\n"
		"      --coverage C       target workload: the most frequent job shapes covering\n"
		"                         this share of jobs (0 < C <= 1, default 0.95)\n"
		"      --fault SPEC       NODE:DIM=FRACTION@START+DURATION, e.g. "
		"n7:sto=0.5@3600+6h\n"
		"                         (repeatable; NODE may be a node, a group or a GPU "
		"model)\n"
		"      --fault-file FILE  faults, one a line\n"
		"      --profile FILE     enrichment profile (default: the built-in one)\n"
		"      --io-pressure X    multiply net and sto demand by X (default 1)\n"
		"      --gpu-price M=USD  price of one GPU-hour of model M (repeatable)\n"
		"      --cluster FILE     replace the trace's nodes by a cluster-spec file\n"
		"      --sample-nodes K   score at most K feasible nodes per placement, met in a\n"
		"                         seeded random order (default 0: every node); faster on\n"
		"                         big clusters, but an approximation of each policy\n"
		"      --threads N        run up to N policies at once (default: the number of "
		"CPUs;\n"
		"                         the results do not depend on it)\n"
		"  -n, --no-store         do not store the runs; print only\n"
		"      --json             print JSON (same as --format json)\n"
		"  -f, --format F         text (default), json, csv or md\n"
		"\n"
		"Figures that rest on enrichment (net, sto, iocpu and capacities the trace "
		"lacks):\n"
		"md frag, stalled, productive, wait, slowdown and $/yr, and the placements of\n"
		"policies that see net, sto or iocpu; the line under the table says which values\n"
		"were enriched. $/yr wasted = (stalled + idle-fragmented GPU-hours) x price x\n"
		"8760 / replayed hours.\n",
	.exec = exec_replay,
};

enum {
	O_SEEDS = 256,
	O_PREEMPT,
	O_TRACE,
	O_DIMS,
	O_LAMBDA,
	O_MU,
	O_FAULT,
	O_FAULT_FILE,
	O_PROFILE,
	O_IO,
	O_PRICE,
	O_CLUSTER,
	O_JSON,
	O_COVERAGE,
	O_THREADS,
	O_SAMPLE,
};

static const struct cmd_opt opts[] = {
	{"policy", 'p', 1},
	{"mode", 'm', 1},
	{"target", 't', 1},
	{"seed", 's', 1},
	{"seeds", O_SEEDS, 1},
	{"queue", 'q', 1},
	{"preempt", O_PREEMPT, 0},
	{"trace", O_TRACE, 1},
	{"dims", O_DIMS, 1},
	{"lambda", O_LAMBDA, 1},
	{"mu", O_MU, 1},
	{"fault", O_FAULT, 1},
	{"fault-file", O_FAULT_FILE, 1},
	{"profile", O_PROFILE, 1},
	{"io-pressure", O_IO, 1},
	{"gpu-price", O_PRICE, 1},
	{"cluster", O_CLUSTER, 1},
	{"no-store", 'n', 0},
	{"json", O_JSON, 0},
	{"format", 'f', 1},
	{"coverage", O_COVERAGE, 1},
	{"threads", O_THREADS, 1},
	{"sample-nodes", O_SAMPLE, 1},
	{NULL, 0, 0},
};

/* The progress bar: on stderr, only when it is a terminal, and only once a run has taken
 * a moment (short runs stay quiet). */
struct bar {
	int on;       /* stderr is a terminal */
	double start; /* monotonic time the runs began */
	double last;  /* when the bar was last drawn */
	int shown;    /* something is on the line */
};

static void bar_update(void *u, size_t run, size_t nruns, const char *policy, uint64_t seed,
		       double done)
{
	struct bar *b = u;
	if (!b->on)
		return;
	double now = util_mono();
	if (now - b->start < 0.5 || now - b->last < 0.1) /* quiet when short; 10 draws/s */
		return;
	b->last = now;
	double all = ((double)run + fmin(fmax(done, 0), 1)) / (double)nruns;
	int fill = (int)(all * 30);
	fprintf(stderr, "\r[%.*s%*s] %3d%%  run %zu/%zu  %s seed %llu ", fill,
		"##############################", 30 - fill, "", (int)(all * 100), run + 1, nruns,
		policy, (unsigned long long)seed);
	b->shown = 1;
}

static void bar_clear(struct bar *b)
{
	if (b->on && b->shown)
		fprintf(stderr, "\r%*s\r", 79, "");
	b->shown = 0;
}

static int exec_replay(int argc, char **argv)
{
	struct cmd_parser p;
	struct replay_spec sp = {0};
	struct metrics_opts prices;
	struct err e = {0};
	const struct policy_ops **pols = NULL;
	size_t npol = 0;
	const char *policy_arg = NULL, *seeds_arg = NULL, *seed_arg = NULL, *trace = NULL;
	const char *mode_arg = NULL, *target_arg = NULL, *queue_arg = NULL, *fmt = "text";
	const char *fault_file = NULL;
	const char **price_specs = xcalloc((size_t)argc + 1, sizeof *price_specs);
	struct fault *faults = NULL;
	size_t nfaults = 0, faultcap = 0, nprices = 0;
	int no_store = 0, json = 0, c, rc = CMD_OK;
	uint64_t lo = 1, hi = 1;
	unsigned nthreads = util_ncpu();
	struct store *st = NULL;
	struct job_set js = {0};
	struct enrich_profile *prof = NULL;
	struct sbuf cluster_text = SBUF_INIT, out = SBUF_INIT, note = SBUF_INIT, tname = SBUF_INIT;
	struct replay_row *rows = NULL;
	struct enrich_summary enr = {0};
	struct report *rep = NULL;
	struct bar bar = {isatty(STDERR_FILENO), util_mono(), 0, 0};

	sbuf_init(&cluster_text);
	sbuf_init(&out);
	sbuf_init(&note);
	sbuf_init(&tname);
	metrics_opts_init(&prices);
	sp.mode = SIM_TIMED;
	sp.target = 1.3;
	sp.queue = SIM_FIFO;
	sp.lambda = POLICY_LAMBDA;
	sp.mu = POLICY_MU;
	sp.coverage = 0.95;
	sp.io_pressure = 1;
	sp.prices = &prices;

	cmd_parser_init(&p, argc, argv);
	while ((c = cmd_getopt(&p, opts)) != -1 && rc == CMD_OK) {
		switch (c) {
		case 'p':
			policy_arg = p.arg;
			break;
		case 'm':
			mode_arg = p.arg;
			break;
		case 't':
			target_arg = p.arg;
			rc = cmd_num_opt(&cmd_replay_entry, "target", p.arg, 0.01, 10, &sp.target);
			break;
		case 's':
			seed_arg = p.arg;
			break;
		case O_SEEDS:
			seeds_arg = p.arg;
			break;
		case 'q':
			queue_arg = p.arg;
			break;
		case O_PREEMPT:
			sp.preempt = 1;
			break;
		case O_TRACE:
			trace = p.arg;
			break;
		case O_DIMS:
			if (job_dims_parse(p.arg, &sp.dims) || !sp.dims)
				rc = cmd_usage_error(
					&cmd_replay_entry,
					"--dims '%s': not a list of dims (cpu, mem, gpu, "
					"hbm, net, sto, iocpu; all; hard)",
					p.arg);
			break;
		case O_LAMBDA:
			rc = cmd_num_opt(&cmd_replay_entry, "lambda", p.arg, 0, 0, &sp.lambda);
			break;
		case O_MU:
			rc = cmd_num_opt(&cmd_replay_entry, "mu", p.arg, 0, 0, &sp.mu);
			break;
		case O_COVERAGE:
			rc = cmd_num_opt(&cmd_replay_entry, "coverage", p.arg, 0.01, 1,
					 &sp.coverage);
			break;
		case O_THREADS:
			rc = cmd_whole_opt(&cmd_replay_entry, "threads", p.arg, 1, 1024, &nthreads);
			break;
		case O_SAMPLE:
			rc = cmd_whole_opt(&cmd_replay_entry, "sample-nodes", p.arg, 0, 1e9,
					   &sp.sample_nodes);
			break;
		case O_FAULT:
			xgrow(&faults, &faultcap, nfaults + 1, sizeof *faults);
			if (fault_parse(p.arg, &faults[nfaults], &e))
				rc = cmd_usage_error(&cmd_replay_entry, "--fault: %s", e.msg);
			else
				nfaults++;
			break;
		case O_FAULT_FILE:
			fault_file = p.arg;
			break;
		case O_PROFILE:
			sp.profile_path = p.arg;
			break;
		case O_IO:
			rc = cmd_num_opt(&cmd_replay_entry, "io-pressure", p.arg, 0, 0,
					 &sp.io_pressure);
			break;
		case O_PRICE:
			if (metrics_price_parse(&prices, p.arg, &e))
				rc = cmd_usage_error(&cmd_replay_entry, "--gpu-price: %s", e.msg);
			price_specs[nprices++] = p.arg;
			break;
		case O_CLUSTER:
			sp.cluster_path = p.arg;
			break;
		case 'n':
			no_store = 1;
			break;
		case O_JSON:
			json = 1;
			break;
		case 'f':
			fmt = p.arg;
			break;
		default:
			rc = cmd_usage_error(&cmd_replay_entry,
					     "unknown option or missing argument: %s", p.bad);
		}
	}
	if (rc != CMD_OK)
		goto out;

	/* ---- checks that need all the options ---- */
	if (p.nops != 1) {
		rc = cmd_usage_error(&cmd_replay_entry,
				     p.nops ? "one STORE only" : "no STORE given");
		goto out;
	}
	if (!policy_arg) {
		rc = cmd_usage_error(&cmd_replay_entry, "no --policy given");
		goto out;
	}
	if (replay_parse_policies(policy_arg, &pols, &npol, &e)) {
		rc = cmd_usage_error(&cmd_replay_entry, "--policy: %s", e.msg);
		goto out;
	}
	if (mode_arg && !strcmp(mode_arg, "inflate"))
		sp.mode = SIM_INFLATE;
	else if (mode_arg && strcmp(mode_arg, "timed")) {
		rc = cmd_usage_error(&cmd_replay_entry, "--mode '%s': not timed or inflate",
				     mode_arg);
		goto out;
	}
	if (target_arg && sp.mode != SIM_INFLATE) {
		rc = cmd_usage_error(&cmd_replay_entry, "--target applies to --mode inflate only");
		goto out;
	}
	if (queue_arg && sp.mode != SIM_TIMED) {
		rc = cmd_usage_error(&cmd_replay_entry, "--queue applies to --mode timed only");
		goto out;
	}
	if (queue_arg && sim_queue_parse(queue_arg, &sp.queue)) {
		rc = cmd_usage_error(&cmd_replay_entry,
				     "--queue '%s': not fifo, backfill or priority", queue_arg);
		goto out;
	}
	if (sp.preempt && sp.queue != SIM_PRIORITY) {
		rc = cmd_usage_error(&cmd_replay_entry, "--preempt needs --queue priority");
		goto out;
	}
	if (seed_arg && seeds_arg) {
		rc = cmd_usage_error(&cmd_replay_entry, "give --seed or --seeds, not both");
		goto out;
	}
	if (seed_arg && (replay_parse_seeds(seed_arg, &lo, &hi, &e) || lo != hi)) {
		rc = cmd_usage_error(&cmd_replay_entry,
				     "--seed '%s': not a seed (a whole number >= 0)", seed_arg);
		goto out;
	}
	if (seeds_arg && replay_parse_seeds(seeds_arg, &lo, &hi, &e)) {
		rc = cmd_usage_error(&cmd_replay_entry, "--seeds %s", e.msg);
		goto out;
	}
	if (json)
		fmt = "json";
	const struct report_ops *fops = report_format_find(fmt);
	if (!fops) {
		rc = cmd_usage_error(&cmd_replay_entry, "--format '%s': not text, json, csv or md",
				     fmt);
		goto out;
	}

	/* ---- inputs ---- */
	if (fault_file && fault_parse_file(fault_file, &faults, &nfaults, &e)) {
		rc = cmd_fail(&cmd_replay_entry, "%s", e.msg);
		goto out;
	}
	/* A store the runs cannot go into fails now, not after computing them. */
	if (store_open(p.operands[0], no_store ? STORE_RDONLY : 0, &st, &e) ||
	    (!no_store && store_can_write(st, &e)) ||
	    store_trace_find(st, trace, &sp.trace_id, &e) ||
	    store_trace_load(st, sp.trace_id, &js, &e)) {
		rc = cmd_fail(&cmd_replay_entry, "%s", e.msg);
		goto out;
	}
	replay_trace_name(st, sp.trace_id, &tname);
	sp.trace_name = tname.s;
	if (sp.cluster_path) {
		if (replay_read_file(sp.cluster_path, &cluster_text, &e) ||
		    replay_use_cluster(&js, cluster_text.s, cluster_text.len, sp.cluster_path,
				       &e)) {
			rc = cmd_fail(&cmd_replay_entry, "%s", e.msg);
			goto out;
		}
		sp.cluster_text = cluster_text.s;
	}
	if (!js.nnodes) {
		rc = cmd_fail(&cmd_replay_entry, "%s: the trace has no nodes (give --cluster FILE)",
			      p.operands[0]);
		goto out;
	}
	if (enrich_load(sp.profile_path, &prof, &e)) {
		rc = cmd_fail(&cmd_replay_entry, "%s", e.msg);
		goto out;
	}
	sp.profile = prof;
	sp.faults = faults;
	sp.nfaults = nfaults;
	sp.price_specs = price_specs;
	sp.nprice_specs = nprices;

	/* ---- the runs ---- */
	int grc = replay_grid(&js, &sp, pols, npol, lo, hi, nthreads, no_store ? NULL : st,
			      bar_update, &bar, &rows, &enr, &e);
	bar_clear(&bar);
	if (grc) {
		rc = cmd_fail(&cmd_replay_entry, "%s", e.msg);
		goto out;
	}
	size_t nrows = npol * (size_t)(hi - lo + 1);
	rep = replay_table(rows, nrows, sp.mode, 0, tname.s);
	enrich_describe(&enr, &note);
	replay_enrich_note(rep, note.s);
	replay_sample_note(rep, sp.sample_nodes);
	fops->write(rep, &out);
	fwrite(out.s, 1, out.len, stdout);
	if (fflush(stdout) || ferror(stdout)) {
		rc = cmd_fail(&cmd_replay_entry, "stdout: write error");
		goto out;
	}
	if (!no_store && nrows) {
		int64_t idlo = rows[0].run_id, idhi = rows[0].run_id;
		for (size_t i = 1; i < nrows; i++) {
			idlo = rows[i].run_id < idlo ? rows[i].run_id : idlo;
			idhi = rows[i].run_id > idhi ? rows[i].run_id : idhi;
		}
		fprintf(stderr, "stored %zu run%s in %s (ids %lld-%lld)\n", nrows,
			nrows == 1 ? "" : "s", p.operands[0], (long long)idlo, (long long)idhi);
	}
out:
	report_free(rep);
	free(rows);
	enrich_free(prof);
	job_set_release(&js);
	store_close(st);
	sbuf_release(&cluster_text);
	sbuf_release(&out);
	sbuf_release(&note);
	sbuf_release(&tname);
	free(faults);
	free(pols);
	free(price_specs);
	cmd_parser_release(&p);
	return rc;
}
