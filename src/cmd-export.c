/*
 * cmd-export.c — 'voidfit export': write a store's data back out: the imported files byte
 * for byte (--raw), or a trace's normalised jobs (--jobs) or nodes (--nodes) as CSV in the
 * voidfit-native formats.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd.h"
#include "esc.h"
#include "gpumodel.h"
#include "outfile.h"
#include "store.h"

/* What the options ask for. */
struct export_cmd {
	int what;  /* CMD_K_RAW, CMD_K_JOBS_TABLE or CMD_K_NODES_TABLE */
	int flags; /* of the files written (outfile.h) */
};

static int opt_export(struct cmd_ctx *ctx, int key, const char *arg);
static int check_export(struct cmd_ctx *ctx);
static int exec_export(struct cmd_ctx *ctx);

const struct cmd_entry cmd_export_entry = {
	.name = "export",
	.usage = "(--raw -d DIR | --jobs | --nodes) [--trace TRACE] [-o FILE] [--force] "
		 "[--follow] [--wait SECONDS] STORE",
	.summary = "write imported files back byte for byte, or jobs or nodes as CSV",
	.opts = CMD_USES(
		{CMD_O_RAW | CMD_OPT_BY_HOOK, NULL,
		 "write each imported file, under its name, into DIR (into\n"
		 "DIR/TRACE/ when the store holds several traces and no\n"
		 "--trace is given)"},
		{CMD_O_DIR, NULL, "where --raw writes (created if missing)"},
		{CMD_O_JOBS_TABLE | CMD_OPT_BY_HOOK, NULL,
		 "write the trace's jobs as voidfit-native CSV"},
		{CMD_O_NODES_TABLE | CMD_OPT_BY_HOOK, NULL,
		 "write the trace's nodes as voidfit-native CSV"},
		{CMD_O_TRACE, "TRACE",
		 "the trace (name or id); default: the newest for --jobs and\n"
		 "--nodes, every trace for --raw"},
		{CMD_O_OUTPUT, "-o FILE",
		 "where --jobs or --nodes writes (default: standard output)"},
		{CMD_O_FORCE, NULL,
		 "replace existing regular files (a FIFO or a device is\n"
		 "written through, never replaced)"},
		{CMD_O_FOLLOW, NULL, "write to what a symbolic link points to (else refused)"},
		{CMD_O_WAIT, NULL, NULL}),
	.layout = {17, 1},
	.store = CMD_STORE_READ, /* check has seen the one STORE */
	.wait_key = CMD_K_WAIT,
	.state_size = sizeof(struct export_cmd),
	.opt = opt_export,
	.check = check_export,
	.exec = exec_export,
};

/* "" for an unrecorded (-1) value, else the number. */
static void cell(FILE *f, int64_t v)
{
	if (v >= 0)
		fprintf(f, "%lld", (long long)v);
}

/* The HBM of one of ngpu GPUs, then net, sto and iocpu, of v (a job's demand or a node's
 * capacity), as comma-separated cells: the columns jobs and nodes share. */
static void hbm_io_cells(FILE *f, const int64_t *v, int ngpu)
{
	int64_t hbm = v[DIM_HBM];
	if (hbm >= 0 && ngpu > 1)
		hbm /= ngpu;
	cell(f, hbm);
	for (int d = DIM_NET; d <= DIM_IOCPU; d++) {
		fputc(',', f);
		cell(f, v[d]);
	}
}

/* A CSV field, quoted when it needs to be (read back as data: not esc_csv's). */
static void text(FILE *f, const char *s)
{
	struct sbuf b = SBUF_INIT;
	sbuf_init(&b);
	esc_csv_quote(&b, s);
	fputs(b.s, f);
	sbuf_release(&b);
}

/* The workers column is written only for a trace with a gang: one of one-worker jobs is
 * exported as it was before jobs had workers. */
static void write_jobs(FILE *f, const struct job_set *js)
{
	int gangs = 0;
	for (size_t i = 0; i < js->njobs && !gangs; i++)
		gangs = job_is_gang(&js->jobs[i]);
	fputs("job,arrival,duration,class,cpu_milli,mem_mib,num_gpu,gpu_milli,hbm_mib,net_mbps,"
	      "sto_mbps,iocpu_milli,gpu_spec",
	      f);
	fputs(gangs ? ",workers\n" : "\n", f);
	for (size_t i = 0; i < js->njobs; i++) {
		const struct job *j = &js->jobs[i];
		fprintf(f, "%lld,%lld,", (long long)j->id, (long long)j->arrival);
		cell(f, j->duration);
		fprintf(f, ",%s,", job_class_name((enum job_class)j->cls));
		cell(f, j->dem[DIM_CPU]);
		fputc(',', f);
		cell(f, j->dem[DIM_MEM]);
		fprintf(f, ",%d,%d,", j->num_gpu, j->gpu_milli);
		hbm_io_cells(f, j->dem, j->num_gpu);
		fputc(',', f);
		for (int m = 0, first = 1; m < 32; m++)
			if (j->gpu_spec & (1u << m) && m < gpumodel_count()) {
				fprintf(f, "%s%s", first ? "" : "|", gpumodel_get(m)->name);
				first = 0;
			}
		if (gangs)
			fprintf(f, ",%d", (int)job_workers(j));
		fputc('\n', f);
	}
}

static void write_nodes(FILE *f, const struct job_set *js)
{
	int racks = 0; /* a rack column only when a node has one: rackless exports unchanged */
	for (size_t i = 0; i < js->nnodes && !racks; i++)
		racks = js->nodes[i].rack[0] != 0;
	fprintf(f,
		"node,group,model,cpu_milli,mem_mib,gpu,hbm_mib,net_mbps,sto_mbps,iocpu_milli%s\n",
		racks ? ",rack" : "");
	for (size_t i = 0; i < js->nnodes; i++) {
		const struct node *n = &js->nodes[i];
		text(f, n->name);
		fputc(',', f);
		text(f, n->group);
		fputc(',', f);
		if (n->model >= 0 && n->ngpu > 0)
			fputs(gpumodel_get(n->model)->name, f);
		fputc(',', f);
		cell(f, n->cap[DIM_CPU]);
		fputc(',', f);
		cell(f, n->cap[DIM_MEM]);
		fprintf(f, ",%d,", n->ngpu);
		hbm_io_cells(f, n->cap, n->ngpu);
		if (racks) {
			fputc(',', f);
			text(f, n->rack);
		}
		fputc('\n', f);
	}
}

/* Add to e's message, for a refusal of outfile.h (rc), the option that lifts it. */
static int hint(struct err *e, int rc)
{
	size_t n = strlen(e->msg);
	snprintf(e->msg + n, sizeof e->msg - n, "%s",
		 rc == VF_EDUP     ? " (--force overwrites)"
		 : rc == VF_EINPUT ? " (--follow writes to what it points to)"
				   : "");
	return rc;
}

/* Open path as outfile.h says, with export's options; the message says what lifts a
 * refusal. */
static int open_out(struct outfile *o, const char *path, int flags, struct err *e)
{
	int rc = outfile_open(o, path, flags, e);
	return rc ? hint(e, rc) : 0;
}

/* Write o through fn (ctx its data), then put it in place; a stop signal (SIGINT, SIGTERM)
 * received meanwhile leaves the path as it was. */
static int write_whole(struct outfile *o, int (*fn)(void *ctx, FILE *f, struct err *e), void *ctx,
		       struct err *e)
{
	int rc = cmd_stop_signal ? err_set(e, VF_ESTOP, "%s: stopped", o->path) : fn(ctx, o->f, e);
	if (!rc && cmd_stop_signal)
		rc = err_set(e, VF_ESTOP, "%s: stopped", o->path);
	if (!rc && (rc = outfile_close(o, e)) == 0 && cmd_stop_signal)
		rc = err_set(e, VF_ESTOP, "%s: stopped", o->path);
	if (rc) {
		outfile_abort(o);
		return rc;
	}
	rc = outfile_commit(o, e);
	return rc ? hint(e, rc) : 0;
}

/* One imported file to write back: which, and where. */
struct rawfile {
	int64_t id, trace_id;
	char *name; /* as imported */
	char *path; /* where it goes */
};

struct rawplan {
	struct rawfile *f;
	size_t n, cap;
	struct store_trace_info *t; /* every trace (names owned) */
	size_t nt, tcap;
};

static int plan_file(void *ctx, const struct store_file *f)
{
	struct rawplan *pl = ctx;
	xgrow(&pl->f, &pl->cap, pl->n + 1, sizeof *pl->f);
	pl->f[pl->n++] = (struct rawfile){f->id, f->trace_id, xstrdup(f->name), NULL};
	return 0;
}

static int plan_trace(void *ctx, const struct store_trace_info *t)
{
	struct rawplan *pl = ctx;
	xgrow(&pl->t, &pl->tcap, pl->nt + 1, sizeof *pl->t);
	pl->t[pl->nt] = *t;
	pl->t[pl->nt++].name = xstrdup(t->name);
	return 0;
}

static void plan_release(struct rawplan *pl)
{
	for (size_t i = 0; i < pl->n; i++)
		FREE_ALL(pl->f[i].name, pl->f[i].path);
	for (size_t i = 0; i < pl->nt; i++)
		free((char *)pl->t[i].name);
	FREE_ALL(pl->f, pl->t);
}

/* A name that is one plain entry of a folder. */
static int plain_name(const char *s)
{
	return *s && !strchr(s, '/') && strcmp(s, ".") && strcmp(s, "..");
}

static const char *trace_name(const struct rawplan *pl, int64_t id)
{
	for (size_t i = 0; i < pl->nt; i++)
		if (pl->t[i].id == id)
			return pl->t[i].name;
	return "?";
}

struct rawout {
	struct store *s;
	int64_t id;
};

static int put_raw(void *ctx, FILE *f, struct err *e)
{
	const struct rawout *r = ctx;
	return store_raw_export(r->s, r->id, f, e);
}

/* --raw: every file of trace tid (-1: of every trace) into dir; where the store holds
 * several traces and tid is -1, each trace's files into a folder of dir named after it
 * (two traces of 'voidfit gen' both hold jobs.csv and nodes.csv). Where each file goes,
 * and that nothing is in the way, is settled before anything is written: every file is
 * opened (outfile_open) before the first is written. */
static int export_raw(struct store *s, int64_t tid, const char *dir, int flags, struct err *e)
{
	struct rawplan pl = {0};
	struct outfile *of = NULL;
	int rc = store_trace_list(s, plan_trace, &pl, e);
	if (!rc)
		rc = store_file_list(s, tid, plan_file, &pl, e);
	int folders = tid < 0 && pl.nt > 1;
	for (size_t i = 0; i < pl.n && !rc; i++) {
		struct rawfile *f = &pl.f[i];
		const char *tn = trace_name(&pl, f->trace_id);
		if (!plain_name(f->name)) {
			rc = err_set(e, VF_EINPUT, "file %lld: name '%s' is not a plain file name",
				     (long long)f->id, f->name);
			break;
		}
		if (folders && !plain_name(tn)) {
			rc = err_set(e, VF_EINPUT,
				     "trace '%s': not a folder name; export it alone with --trace",
				     tn);
			break;
		}
		size_t len = strlen(dir) + strlen(tn) + strlen(f->name) + 3;
		f->path = xmalloc(len);
		if (folders)
			snprintf(f->path, len, "%s/%s/%s", dir, tn, f->name);
		else
			snprintf(f->path, len, "%s/%s", dir, f->name);
		for (size_t k = 0; k < i && !rc; k++)
			if (!strcmp(pl.f[k].path, f->path))
				rc = err_set(e, VF_EINPUT,
					     "%s: files %lld and %lld of trace '%s' are both named "
					     "'%s'",
					     f->path, (long long)pl.f[k].id, (long long)f->id, tn,
					     f->name);
	}
	if (!rc && mkdir(dir, 0777) && errno != EEXIST)
		rc = err_set(e, VF_EIO, "%s: %s", dir, strerror(errno));
	of = xcalloc(pl.n ? pl.n : 1, sizeof *of);
	for (size_t i = 0; i < pl.n && !rc; i++) {
		struct rawfile *f = &pl.f[i];
		char *slash = strrchr(f->path, '/');
		*slash = '\0';
		if (folders && mkdir(f->path, 0777) && errno != EEXIST)
			rc = err_set(e, VF_EIO, "%s: %s", f->path, strerror(errno));
		*slash = '/';
		if (!rc)
			rc = open_out(&of[i], f->path, flags, e);
	}
	if (rc)
		err_prefix(e, "nothing written: ");
	for (size_t i = 0; i < pl.n && !rc; i++) {
		struct rawout r = {s, pl.f[i].id};
		if ((rc = write_whole(&of[i], put_raw, &r, e)) &&
		    strncmp(e->msg, pl.f[i].path, strlen(pl.f[i].path)))
			err_prefix(e, "%s: ", pl.f[i].path);
	}
	for (size_t i = 0; i < pl.n; i++)
		outfile_abort(&of[i]);
	free(of);
	plan_release(&pl);
	return rc;
}

struct csvout {
	const struct job_set *js;
	int jobs; /* 1: jobs, 0: nodes */
};

static int put_csv(void *ctx, FILE *f, struct err *e)
{
	const struct csvout *c = ctx;
	(void)e;
	if (c->jobs)
		write_jobs(f, c->js);
	else
		write_nodes(f, c->js);
	return 0;
}

/* Say why writing failed; the exit status: CMD_STOPPED when stopped by a signal. */
static int failed(const struct err *e)
{
	int rc = cmd_fail(&cmd_export_entry, "%s", e->msg);
	return cmd_stop_signal ? CMD_STOPPED : rc;
}

/* --raw, --jobs, --nodes: one of them. */
static int opt_export(struct cmd_ctx *ctx, int key, const char *arg)
{
	struct export_cmd *t = ctx->u;
	(void)arg;
	if (t->what && t->what != key)
		return cmd_usage_error(ctx->ce, "--raw, --jobs and --nodes exclude each other");
	t->what = key;
	return CMD_OK;
}

static int check_export(struct cmd_ctx *ctx)
{
	struct export_cmd *t = ctx->u;
	const struct cmd_entry *ce = ctx->ce;
	const char *dir = cmd_arg(ctx, 'd'), *outpath = cmd_arg(ctx, 'o');
	t->flags = (cmd_has(ctx, CMD_K_FORCE) ? OUTFILE_REPLACE : 0) |
		   (cmd_has(ctx, CMD_K_FOLLOW) ? OUTFILE_FOLLOW : 0);
	if (!t->what)
		return cmd_usage_error(ce, "say what to export: --raw, --jobs or --nodes");
	if (ctx->p.nops != 1)
		return cmd_usage_error(ce, ctx->p.nops ? "one store at a time" : "no store given");
	if (t->what == CMD_K_RAW && (!dir || outpath))
		return cmd_usage_error(ce, "--raw writes into a directory: give -d DIR");
	if (t->what != CMD_K_RAW && dir)
		return cmd_usage_error(ce, "-d is for --raw; --jobs and --nodes take -o");
	return CMD_OK;
}

/* The trace tid's jobs or nodes as CSV, whole, to -o or standard output. */
static int export_csv(struct cmd_ctx *ctx, struct export_cmd *t, int64_t tid)
{
	const char *outpath = cmd_arg(ctx, 'o');
	struct job_set js = {0};
	struct outfile o;
	struct err e = {0};
	int rc = CMD_OK;
	if (store_trace_load(ctx->st, tid, &js, &e))
		return cmd_fail(ctx->ce, "%s", e.msg);
	struct csvout co = {&js, t->what == CMD_K_JOBS_TABLE};
	if (open_out(&o, outpath ? outpath : "-", t->flags, &e) ||
	    write_whole(&o, put_csv, &co, &e))
		rc = failed(&e);
	job_set_release(&js);
	return rc;
}

static int exec_export(struct cmd_ctx *ctx)
{
	struct export_cmd *t = ctx->u;
	const char *trace = cmd_arg(ctx, CMD_K_TRACE);
	struct cmd_stop stop;
	struct err e = {0};
	int64_t tid = -1;
	int rc = CMD_OK;

	if ((t->what != CMD_K_RAW || trace) && store_trace_find(ctx->st, trace, &tid, &e))
		return cmd_fail(ctx->ce, "%s", e.msg);
	/* a stop signal leaves no half file (write_whole) */
	cmd_stop_catch(&stop);
	if (t->what != CMD_K_RAW)
		rc = export_csv(ctx, t, tid);
	else if (export_raw(ctx->st, tid, cmd_arg(ctx, 'd'), t->flags, &e))
		rc = failed(&e);
	cmd_stop_release(&stop);
	return rc;
}
