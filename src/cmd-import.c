/*
 * cmd-import.c — 'voidfit import': read trace files into a store (import.h does the work;
 * this file parses options and prints).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "cmd.h"
#include "esc.h"
#include "gpumodel.h"
#include "import.h"
#include "json.h"
#include "sbuf.h"
#include "trace.h"

/* Bad rows printed as "file:line: reason" before the counts. */
#define IMPORT_SHOW_BAD 10

/* From this many input bytes on, the heap is asked for HUGE_HEAP bytes in huge pages. */
#define HUGE_HEAP_FROM ((int64_t)16 << 20)
#define HUGE_HEAP      ((size_t)24 << 20)

/* Each --format and where it began: the operands before it, and --nodes files. */
struct fmt_at {
	const char *format;
	int from;          /* operands seen before it */
	size_t nodes_from; /* --nodes files seen before it */
};

/* The import the options describe. */
struct import_cmd {
	struct import_opts o;
	struct import_input *in; /* n inputs; the --nodes files first at the end, as they come */
	size_t n, nnodes;
	struct fmt_at *fmts; /* nfmt */
	int nfmt;
	const char **node_fmt; /* each --nodes file's --format */
	int listed;            /* --format list: listed, nothing else done */
};

static void init_import(struct cmd_ctx *ctx);
static int opt_import(struct cmd_ctx *ctx, int key, const char *arg);
CMD_DECLARE_HOOKS(import);

const struct cmd_entry cmd_import_entry = {
	.name = "import",
	.usage = "[-q] [--json] [-o STORE] [--format FMT]... [--name NAME] [--cluster FILE] "
		 "[--nodes NODEFILE]... [--gpu-models FILE] [--new-trace] [--strict] [--tz ZONE] "
		 "[--node-procs N] [--wait SECONDS] FILE...",
	.summary = "read trace files (plain, .gz, .zst, - for stdin) into a store",
	.opts = CMD_USES(
		{CMD_O_OUTPUT, "STORE",
		 "the store to write (default voidfit.db; made if no file\n"
		 "is there, and put in place only if the import succeeds)"},
		{CMD_O_TRACE_FORMAT | CMD_OPT_BY_HOOK, "--format FMT",
		 "the format of the files after it (--nodes ones too), up\n"
		 "to the next --format, instead of detecting it (one\n"
		 "after every file: every file's); 'generic:NAME' maps\n"
		 "columns with schemas/NAME.map or a .map file: --format\n"
		 "generic:jobs.map J.csv --format generic:nodes.map N.csv;\n"
		 "'voidfit import --format list' lists formats"},
		{CMD_O_NODES | CMD_OPT_BY_HOOK, "--nodes NODEFILE",
		 "a node list (its format is detected); may be repeated"},
		{CMD_O_CLUSTER, "--cluster FILE", "add the nodes of a cluster-spec file"},
		{CMD_O_GPU_MODELS, NULL,
		 "GPU models and aliases the built-in table lacks, in the\n"
		 "layout of schemas/gpu-models.csv; kept with the trace,\n"
		 "so every command prices its GPUs by them"},
		{CMD_O_NAME, NULL, "the new trace's name (default: the first file's base name)"},
		{CMD_O_NEW_TRACE, NULL,
		 "import files the store already holds again, into the new\n"
		 "trace (with another --cluster, say); else they are skipped"},
		{CMD_O_STRICT, NULL, "fail on the first bad row (exit 1, store unchanged)"},
		{CMD_O_TZ | CMD_OPT_BY_HOOK, NULL,
		 "the zone of time strings that name none: UTC (default),\n"
		 "+08:00, -0530 ..."},
		{CMD_O_NODE_PROCS, NULL,
		 "swf: processors per node, instead of the log's MaxProcs /\n"
		 "MaxNodes; a job on more becomes a gang of ceil(procs / N)\n"
		 "workers"},
		{CMD_O_WAIT, NULL,
		 "how long to wait for a store another voidfit holds\n"
		 "(default 60; 0: fail at once)"},
		{CMD_O_JSON, NULL,
		 "write the outcome as one JSON object (keys: store, ok,\n"
		 "error, trace, trace_id, files, read, accepted,\n"
		 "quarantined, jobs, nodes)"},
		{CMD_O_QUIET, NULL, "print nothing but errors"}),
	.layout = {22, 1},
	.init = init_import,
	.opt = opt_import,
	CMD_HOOKS(import, import_cmd),
};

/* The outcome as JSON: on failure (error not NULL), how far the import went, with
 * nothing stored. */
static void print_json(const char *store, const struct import_result *res, const char *error)
{
	struct sbuf b = {0};
	struct json j;
	json_init(&j, &b, 1);
	json_obj(&j);
	json_key_str(&j, "store", store);
	json_key_bool(&j, "ok", !error && res->trace_id);
	json_key_str(&j, "error", error ? error : res->trace_id ? NULL : "nothing new");
	json_key_str(&j, "trace", res->trace_id ? res->trace : NULL);
	json_key(&j, "trace_id");
	if (res->trace_id)
		json_int(&j, res->trace_id);
	else
		json_null(&j);
	json_key(&j, "files");
	json_arr(&j);
	for (size_t i = 0; i < res->nfiles; i++) {
		const struct import_file *f = &res->files[i];
		json_obj(&j);
		json_key_str(&j, "name", f->name);
		json_key_str(&j, "format", *f->format ? f->format : NULL);
		json_key_int(&j, "read", f->read);
		json_key_int(&j, "accepted", f->accepted);
		json_key_int(&j, "quarantined", f->quarantined);
		json_key_str(&j, "duplicate_of", f->dup_of);
		json_key_str(&j, "skipped", f->skipped);
		json_end(&j);
	}
	json_end(&j);
	json_key_int(&j, "read", res->read);
	json_key_int(&j, "accepted", res->accepted);
	json_key_int(&j, "quarantined", res->quarantined);
	json_key_int(&j, "jobs", res->trace_id ? res->jobs : 0);
	json_key_int(&j, "nodes", res->trace_id ? res->nodes : 0);
	json_end(&j);
	fputs(b.s, stdout);
	fputc('\n', stdout);
	fflush(stdout);
	sbuf_release(&b);
}

/* A warning for each GPU model the table does not know: what it covered, and what it is
 * taken as (the UNKNOWN row's labelled default). */
static void warn_unknown(const struct import_result *res)
{
	const struct gpumodel *u = gpumodel_get(gpumodel_unknown());
	for (size_t i = 0; i < res->nunknown; i++) {
		const struct trace_model_note *m = &res->unknown[i];
		char what[160], name[120];
		if (!strcmp(m->name, "-"))
			snprintf(name, sizeof name, "GPU nodes that name no GPU model");
		else if (!*m->name)
			snprintf(name, sizeof name, "other GPU models the table does not know");
		else
			snprintf(name, sizeof name, "GPU model '%s' is not in the table", m->name);
		int o = 0;
		what[0] = '\0';
		if (m->nodes)
			o = snprintf(what, sizeof what, "%lld GPU%s on %lld node%s",
				     (long long)m->gpus, m->gpus == 1 ? "" : "s",
				     (long long)m->nodes, m->nodes == 1 ? "" : "s");
		if (m->jobs)
			snprintf(what + o, sizeof what - (size_t)o, "%s%lld job%s naming it",
				 o ? ", " : "", (long long)m->jobs, m->jobs == 1 ? "" : "s");
		fprintf(stderr,
			"voidfit import: warning: %s: %s, taken as %s (%lld MiB a GPU, %.2f USD/h "
			"on demand: a placeholder, not a price)%s\n",
			name, what, u->name, (long long)u->hbm_mib, u->usd[GPUMODEL_ON_DEMAND],
			*m->name && strcmp(m->name, "-") ? "; --gpu-models FILE adds it" : "");
	}
}

static void list_formats(void)
{
	for (const struct trace_format *const *f = trace_formats; *f; f++)
		printf("%-16s %s\n", (*f)->name, (*f)->summary);
}

#ifdef __GLIBC__
/* The summed size of the inputs that are regular files (stdin and the unreadable: 0). */
static int64_t input_bytes(const struct import_input *in, size_t n)
{
	int64_t sum = 0;
	struct stat st;
	for (size_t i = 0; i < n; i++)
		if (strcmp(in[i].path, "-") && stat(in[i].path, &st) == 0 && S_ISREG(st.st_mode))
			sum += (int64_t)st.st_size;
	return sum;
}
#endif

static void init_import(struct cmd_ctx *ctx)
{
	struct import_cmd *t = ctx->u;
	size_t n = (size_t)ctx->argc + 1;
	t->o = (struct import_opts){
		.store = "voidfit.db", .max_bad = IMPORT_SHOW_BAD, .stop = &cmd_stop_signal};
	t->in = xcalloc(n, sizeof *t->in);
	t->fmts = xcalloc(n, sizeof *t->fmts);
	t->node_fmt = xcalloc(n, sizeof *t->node_fmt);
}

/* --format and --nodes, where they stand among the files; --tz. */
static int opt_import(struct cmd_ctx *ctx, int key, const char *arg)
{
	struct import_cmd *t = ctx->u;
	switch (key) {
	case 'F':
		t->fmts[t->nfmt++] = (struct fmt_at){arg, ctx->p.nops, t->nnodes};
		break;
	case 'N': /* after the operands, so the trace is named after a job file */
		t->node_fmt[t->nnodes] = t->nfmt ? t->fmts[t->nfmt - 1].format : NULL;
		t->in[ctx->argc - 1 - (int)t->nnodes++] = (struct import_input){arg, 1, NULL};
		break;
	case CMD_K_TZ:
		if (trace_tz_parse(arg, &t->o.tz_offset))
			return cmd_usage_error(ctx->ce,
					       "--tz '%s' is not a zone voidfit reads (valid: "
					       "UTC, Z, +08:00, -0530, +8)",
					       arg);
		t->o.tz_set = 1;
		break;
	}
	return CMD_OK;
}

/* Each --format is for the files after it: 0, or the usage error. --format list lists
 * the formats and sets t->listed. */
static int check_formats(struct cmd_ctx *ctx, struct import_cmd *t)
{
	for (int i = 0; i < t->nfmt; i++) {
		const char *f = t->fmts[i].format;
		if (!strcmp(f, "list")) {
			list_formats();
			t->listed = 1;
			return CMD_OK;
		}
		if (strncmp(f, "generic:", 8) && !trace_format_find(f))
			return cmd_usage_error(
				ctx->ce, "format '%s' is not known ('--format list' lists them)",
				f);
		/* Each is for the files after it, so one with none after it is a slip (the
		 * second of two once silently won); but one --format after every file is
		 * every file's, as it always was. */
		int next_ops = i + 1 < t->nfmt ? t->fmts[i + 1].from : ctx->p.nops;
		size_t next_nodes = i + 1 < t->nfmt ? t->fmts[i + 1].nodes_from : t->nnodes;
		if (t->nfmt > 1 && next_ops == t->fmts[i].from &&
		    next_nodes == t->fmts[i].nodes_from)
			return cmd_usage_error(
				ctx->ce,
				"--format '%s' is followed by no file: given more "
				"than once, each --format applies to the files after it",
				f);
	}
	return CMD_OK;
}

static int check_import(struct cmd_ctx *ctx)
{
	struct import_cmd *t = ctx->u;
	struct import_opts *o = &t->o;
	int rc;
	if (cmd_arg(ctx, 'o'))
		o->store = cmd_arg(ctx, 'o');
	o->cluster = cmd_arg(ctx, 'C');
	o->name = cmd_arg(ctx, CMD_K_NAME);
	o->gpu_models = cmd_arg(ctx, CMD_K_GPU_MODELS);
	o->again = cmd_has(ctx, CMD_K_NEW_TRACE) > 0;
	o->strict = cmd_has(ctx, CMD_K_STRICT) > 0;
	o->wait = cmd_store_wait(ctx, CMD_K_WAIT);
	o->node_procs = (int64_t)cmd_num(ctx, CMD_K_NODE_PROCS, 0);
	if ((rc = check_formats(ctx, t)) || t->listed)
		return rc;
	if (t->nfmt == 1 && t->fmts[0].from == ctx->p.nops && t->fmts[0].nodes_from == t->nnodes)
		o->format = t->fmts[0].format;
	for (int i = 0; i < ctx->p.nops; i++) {
		const char *f = NULL;
		for (int k = 0; !o->format && k < t->nfmt && t->fmts[k].from <= i; k++)
			f = t->fmts[k].format;
		t->in[t->n++] = (struct import_input){ctx->p.operands[i], 0, f};
	}
	for (size_t i = 0; i < t->nnodes; i++) { /* the --nodes files, in their order */
		t->in[t->n] = t->in[ctx->argc - 1 - (int)i];
		t->in[t->n++].format = t->node_fmt[i];
	}
	if (!t->n && !o->cluster)
		return cmd_usage_error(ctx->ce, "no file to import");
	return CMD_OK;
}

/* The bad rows shown, and how many more the quarantine holds. */
static void say_bad(const struct import_result *res)
{
	struct sbuf e1 = SBUF_INIT;
	for (size_t i = 0; i < res->nbad; i++)
		fprintf(stderr, "%s\n", esc_text_s(&e1, res->bad[i]));
	if (res->quarantined > (int64_t)res->nbad)
		fprintf(stderr, "... and %lld more bad rows (all in the quarantine table)\n",
			(long long)(res->quarantined - (int64_t)res->nbad));
	sbuf_release(&e1);
}

/* A failed import: nothing changed; a signal that stopped it is raised again. */
static int say_failed(struct cmd_ctx *ctx, const char *store, const struct err *e)
{
	int rc = cmd_fail(ctx->ce, "%s", e->msg);
	/* The import changed nothing it did not make, and removed what it made. */
	fprintf(stderr, "voidfit import: nothing imported; %s %s\n", store,
		access(store, F_OK) == 0 ? "is unchanged" : "was not created");
	if (cmd_stop_signal) { /* die of it, as the caller expects */
		signal(cmd_stop_signal, SIG_DFL);
		raise(cmd_stop_signal);
	}
	return rc;
}

/* What became of each file and of the trace: the exit status. */
static int say_imported(struct cmd_ctx *ctx, const struct import_result *res, int loud)
{
	const char *store = ((struct import_cmd *)ctx->u)->o.store;
	struct sbuf e1 = SBUF_INIT, e2 = SBUF_INIT; /* names as printed (escaped) */
	int rc = CMD_OK;
	for (size_t i = 0; i < res->nfiles; i++) {
		const struct import_file *f = &res->files[i];
		const char *name = esc_text_s(&e1, f->name);
		if (f->skipped)
			fprintf(stderr, "%s: %s, skipped\n", name, esc_text_s(&e2, f->skipped));
		else if (f->dup_of)
			fprintf(stderr, "%s: already imported (trace '%s'), skipped\n", name,
				esc_text_s(&e2, f->dup_of));
		else if (loud)
			printf("%s: %s, %lld rows read, %lld accepted, %lld quarantined\n", name,
			       f->format, (long long)f->read, (long long)f->accepted,
			       (long long)f->quarantined);
	}
	if (res->trace_id)
		warn_unknown(res);
	if (!res->trace_id) {
		rc = cmd_fail(ctx->ce, "nothing new: every file is already in %s (or skipped)%s",
			      store, cmd_arg(ctx, 'C') ? "" : "; --new-trace imports them again");
	} else if (loud) {
		printf("trace '%s' (id %lld) in %s: %zu file%s, %lld rows read = %lld accepted + "
		       "%lld quarantined; %lld jobs, %lld nodes\n",
		       esc_text_s(&e1, res->trace), (long long)res->trace_id,
		       esc_text_s(&e2, store), res->nnew, res->nnew == 1 ? "" : "s",
		       (long long)res->read, (long long)res->accepted, (long long)res->quarantined,
		       (long long)res->jobs, (long long)res->nodes);
		if (res->others)
			printf("trace '%s' is the default now (commands take the newest trace; "
			       "--trace NAME picks one of the %lld other%s)\n",
			       esc_text_s(&e1, res->trace), (long long)res->others,
			       res->others == 1 ? "" : "s");
	}
	sbuf_release(&e1);
	sbuf_release(&e2);
	return rc;
}

static int exec_import(struct cmd_ctx *ctx)
{
	struct import_cmd *t = ctx->u;
	struct import_result res;
	struct err e = {0};
	struct cmd_stop stop; /* a signal stops the import at the next row: it rolls back and
			       * removes the store it was making, then the signal is raised again */
	int quiet = cmd_has(ctx, 'q') > 0, asjson = cmd_has(ctx, CMD_K_JSON) > 0, rc;

	if (t->listed)
		return CMD_OK;
#ifdef __GLIBC__
	/* An import allocates and frees the same few megabytes for every block, on two
	 * threads: glibc would give them back to the kernel each time (madvise, munmap: TLB
	 * shootdowns across cores) only to fault them in again. Keep them; peak memory is
	 * bounded by the blocks either way. */
	mallopt(M_TRIM_THRESHOLD, 32 << 20);
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	/* The blocks of a big file first touch some 12 MB of fresh heap: 3,000 page faults
	 * of 4 KiB, a tenth of the import's time in a virtual machine, where in huge pages
	 * they are a few. A small import stays in small pages (2 MiB pages for a few KB
	 * would only grow it). */
	if (input_bytes(t->in, t->n) >= HUGE_HEAP_FROM)
		heap_prefer_huge(HUGE_HEAP);
#endif
	cmd_stop_catch(&stop);
	int irc = import_run(&t->o, t->in, t->n, &res, &e);
	cmd_stop_release(&stop);
	if (res.swept)
		fprintf(stderr,
			"voidfit import: removed %zu temporary file%s that a killed import of %s "
			"left in its folder\n",
			res.swept, res.swept == 1 ? "" : "s", t->o.store);
	if (!quiet || irc)
		say_bad(&res);
	if (asjson)
		print_json(t->o.store, &res, irc ? e.msg : NULL);
	rc = irc ? say_failed(ctx, t->o.store, &e) : say_imported(ctx, &res, !quiet && !asjson);
	import_result_release(&res);
	return rc;
}

static void release_import(struct cmd_ctx *ctx)
{
	struct import_cmd *t = ctx->u;
	FREE_ALL(t->fmts, t->node_fmt, t->in);
}
