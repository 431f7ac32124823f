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
#include "gpumodel.h"
#include "store.h"

static int exec_export(int argc, char **argv);

const struct cmd_entry cmd_export_entry = {
	.name = "export",
	.usage = "(--raw -d DIR | --jobs | --nodes) [--trace TRACE] [-o FILE] [--force] "
		 "[--wait SECONDS] STORE",
	.summary = "write imported files back byte for byte, or jobs or nodes as CSV",
	.help = "  --raw          write each imported file, under its name, into DIR\n"
		"  -d, --dir DIR  where --raw writes (created if missing)\n"
		"  --jobs         write the trace's jobs as voidfit-native CSV\n"
		"  --nodes        write the trace's nodes as voidfit-native CSV\n"
		"  --trace TRACE  the trace (name or id); default: the newest for --jobs and\n"
		"                 --nodes, every trace for --raw\n"
		"  -o FILE        where --jobs or --nodes writes (default: standard output)\n"
		"  --force        overwrite existing files\n"
		"  --wait SECONDS how long to wait for a store another voidfit is writing\n"
		"                 (default 60; 0: fail at once)\n",
	.exec = exec_export,
};

enum { OPT_RAW = 256, OPT_JOBS, OPT_NODES, OPT_TRACE, OPT_FORCE, OPT_WAIT };

static void say_waiting(void *ctx, const char *msg)
{
	(void)ctx;
	fprintf(stderr, "voidfit export: %s\n", msg);
}

/* "" for an unrecorded (-1) value, else the number. */
static void cell(FILE *f, int64_t v)
{
	if (v >= 0)
		fprintf(f, "%lld", (long long)v);
}

/* A CSV field, quoted when it needs to be. */
static void text(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static void write_jobs(FILE *f, const struct job_set *js)
{
	fputs("job,arrival,duration,class,cpu_milli,mem_mib,num_gpu,gpu_milli,hbm_mib,net_mbps,"
	      "sto_mbps,iocpu_milli,gpu_spec\n",
	      f);
	for (size_t i = 0; i < js->njobs; i++) {
		const struct job *j = &js->jobs[i];
		int64_t hbm = j->dem[DIM_HBM];
		if (hbm >= 0 && j->num_gpu > 1)
			hbm /= j->num_gpu;
		fprintf(f, "%lld,%lld,", (long long)j->id, (long long)j->arrival);
		cell(f, j->duration);
		fprintf(f, ",%s,", job_class_name((enum job_class)j->cls));
		cell(f, j->dem[DIM_CPU]);
		fputc(',', f);
		cell(f, j->dem[DIM_MEM]);
		fprintf(f, ",%d,%d,", j->num_gpu, j->gpu_milli);
		cell(f, hbm);
		fputc(',', f);
		cell(f, j->dem[DIM_NET]);
		fputc(',', f);
		cell(f, j->dem[DIM_STO]);
		fputc(',', f);
		cell(f, j->dem[DIM_IOCPU]);
		fputc(',', f);
		for (int m = 0, first = 1; m < 32; m++)
			if (j->gpu_spec & (1u << m) && m < gpumodel_count()) {
				fprintf(f, "%s%s", first ? "" : "|", gpumodel_get(m)->name);
				first = 0;
			}
		fputc('\n', f);
	}
}

static void write_nodes(FILE *f, const struct job_set *js)
{
	fputs("node,group,model,cpu_milli,mem_mib,gpu,hbm_mib,net_mbps,sto_mbps,iocpu_milli\n", f);
	for (size_t i = 0; i < js->nnodes; i++) {
		const struct node *n = &js->nodes[i];
		int64_t hbm = n->cap[DIM_HBM];
		if (hbm >= 0 && n->ngpu > 1)
			hbm /= n->ngpu;
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
		cell(f, hbm);
		fputc(',', f);
		cell(f, n->cap[DIM_NET]);
		fputc(',', f);
		cell(f, n->cap[DIM_STO]);
		fputc(',', f);
		cell(f, n->cap[DIM_IOCPU]);
		fputc('\n', f);
	}
}

struct rawjob {
	struct store *s;
	const char *dir;
	int force;
	int64_t trace; /* -1: every trace */
	int nfiles;
	struct err e;
};

static int export_file(void *ctx, const struct store_file *f)
{
	struct rawjob *r = ctx;
	if (!*f->name || strchr(f->name, '/') || !strcmp(f->name, ".") || !strcmp(f->name, ".."))
		return err_set(&r->e, VF_EINPUT, "file %lld: name '%s' is not a plain file name",
			       (long long)f->id, f->name);
	size_t len = strlen(r->dir) + strlen(f->name) + 2;
	char *path = xmalloc(len);
	snprintf(path, len, "%s/%s", r->dir, f->name);
	/* "x": refuse to replace an existing file unless --force. */
	FILE *out = fopen(path, r->force ? "wb" : "wbx");
	int rc = 0;
	if (!out) {
		rc = err_set(&r->e, VF_EIO, "%s: %s%s", path, strerror(errno),
			     errno == EEXIST ? " (--force overwrites)" : "");
	} else {
		rc = store_raw_export(r->s, f->id, out, &r->e);
		if (fclose(out) && !rc)
			rc = err_set(&r->e, VF_EIO, "%s: %s", path, strerror(errno));
		else if (rc)
			err_prefix(&r->e, "%s: ", path);
		if (rc)
			remove(path);
	}
	free(path);
	r->nfiles += !rc;
	return rc;
}

static int exec_export(int argc, char **argv)
{
	static const struct cmd_opt opts[] = {
		{"raw", OPT_RAW, 0},     {"jobs", OPT_JOBS, 0}, {"nodes", OPT_NODES, 0},
		{"dir", 'd', 1},         {"output", 'o', 1},    {"trace", OPT_TRACE, 1},
		{"force", OPT_FORCE, 0}, {"wait", OPT_WAIT, 1}, {NULL, 0, 0},
	};
	struct cmd_parser p;
	struct store_wait w = {STORE_WAIT_DEFAULT, say_waiting, NULL};
	int what = 0, force = 0, c, rc = CMD_OK;
	const char *dir = NULL, *outpath = NULL, *trace = NULL;
	cmd_parser_init(&p, argc, argv);
	while ((c = cmd_getopt(&p, opts)) != -1) {
		switch (c) {
		case OPT_RAW:
		case OPT_JOBS:
		case OPT_NODES:
			if (what && what != c) {
				rc = cmd_usage_error(
					&cmd_export_entry,
					"--raw, --jobs and --nodes exclude each other");
				goto out;
			}
			what = c;
			break;
		case 'd':
			dir = p.arg;
			break;
		case 'o':
			outpath = p.arg;
			break;
		case OPT_TRACE:
			trace = p.arg;
			break;
		case OPT_FORCE:
			force = 1;
			break;
		case OPT_WAIT:
			if ((rc = cmd_num_opt(&cmd_export_entry, "wait", p.arg, 0, 0, &w.seconds)))
				goto out;
			break;
		default:
			rc = cmd_usage_error(&cmd_export_entry,
					     "unknown option or missing argument '%s'", p.bad);
			goto out;
		}
	}
	if (!what) {
		rc = cmd_usage_error(&cmd_export_entry,
				     "say what to export: --raw, --jobs or --nodes");
		goto out;
	}
	if (p.nops != 1) {
		rc = cmd_usage_error(&cmd_export_entry,
				     p.nops ? "one store at a time" : "no store given");
		goto out;
	}
	if (what == OPT_RAW && (!dir || outpath)) {
		rc = cmd_usage_error(&cmd_export_entry,
				     "--raw writes into a directory: give -d DIR");
		goto out;
	}
	if (what != OPT_RAW && dir) {
		rc = cmd_usage_error(&cmd_export_entry,
				     "-d is for --raw; --jobs and --nodes take -o");
		goto out;
	}
	struct err e = {0};
	struct store *s = NULL;
	int64_t tid = -1;
	if (store_open_wait(p.operands[0], STORE_RDONLY, &w, &s, &e) ||
	    ((what != OPT_RAW || trace) && store_trace_find(s, trace, &tid, &e))) {
		rc = cmd_fail(&cmd_export_entry, "%s", e.msg);
		goto done;
	}
	if (what == OPT_RAW) {
		if (mkdir(dir, 0777) && errno != EEXIST) {
			rc = cmd_fail(&cmd_export_entry, "%s: %s", dir, strerror(errno));
			goto done;
		}
		struct rawjob r = {s, dir, force, tid, 0, {0}};
		if (store_file_list(s, tid, export_file, &r, &r.e))
			rc = cmd_fail(&cmd_export_entry, "%s", r.e.msg);
		goto done;
	}
	struct job_set js = {0};
	if (store_trace_load(s, tid, &js, &e)) {
		rc = cmd_fail(&cmd_export_entry, "%s", e.msg);
		goto done;
	}
	FILE *f = stdout;
	if (outpath && !(f = fopen(outpath, force ? "w" : "wx"))) {
		rc = cmd_fail(&cmd_export_entry, "%s: %s%s", outpath, strerror(errno),
			      errno == EEXIST ? " (--force overwrites)" : "");
		job_set_release(&js);
		goto done;
	}
	if (what == OPT_JOBS)
		write_jobs(f, &js);
	else
		write_nodes(f, &js);
	if ((f != stdout ? fclose(f) : fflush(f)) != 0)
		rc = cmd_fail(&cmd_export_entry, "%s: %s", outpath ? outpath : "standard output",
			      strerror(errno));
	job_set_release(&js);
done:
	store_close(s);
out:
	cmd_parser_release(&p);
	return rc;
}
