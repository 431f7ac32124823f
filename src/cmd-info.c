/*
 * cmd-info.c — 'voidfit info': what a store holds: its traces, their files (with import
 * counts), nodes and GPUs by model, jobs by class, gang jobs (W > 1) by worker count, runs, and
 * the store's size against the bytes imported. Plain text, or JSON with --json.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd.h"
#include "esc.h"
#include "gpumodel.h"
#include "json.h"
#include "sbuf.h"
#include "sha256.h"
#include "store.h"

static int exec_info(struct cmd_ctx *ctx);

const struct cmd_entry cmd_info_entry = {
	.name = "info",
	.usage = "[--json] [--wait SECONDS] STORE",
	.summary = "show what a store holds: traces, files, nodes, jobs, runs, sizes",
	.opts = CMD_USES({CMD_O_JSON, NULL,
			  "write one JSON object (keys: store, traces, files, nodes,\n"
			  "gpus, gpus_by_model, jobs, jobs_by_class, runs, store_bytes,\n"
			  "raw_bytes, ratio; each trace's gang_jobs and workers: its\n"
			  "jobs of W > 1 workers, and how many of each W)"},
			 {CMD_O_WAIT, NULL, NULL}),
	.layout = {18, 1},
	.operand = "store",
	.one_only = "one store at a time",
	.store = CMD_STORE_READ,
	.wait_key = CMD_K_WAIT,
	.exec = exec_info,
};

/* How many gang jobs have W workers. */
struct info_w {
	int64_t w, jobs;
};

/* What one trace holds, as counted for the report. */
struct trace_sum {
	int64_t id;
	char *name;
	int64_t created_at;
	size_t nfiles;
	struct store_file *files; /* names and formats owned */
	int64_t nodes, gpus, jobs;
	int64_t gpus_by_model[GPUMODEL_MAX];
	int64_t jobs_by_class[JOB_NCLASS];
	int64_t gangs;          /* jobs of W > 1 workers */
	struct info_w *workers; /* their worker counts, W ascending (nworkers of them) */
	size_t nworkers;
	int64_t runs;
};

struct info {
	struct store *s;
	struct trace_sum *t;
	size_t n, cap;
	struct err e;
};

static int add_trace(void *ctx, const struct store_trace_info *ti)
{
	struct info *in = ctx;
	xgrow(&in->t, &in->cap, in->n + 1, sizeof *in->t);
	struct trace_sum *t = &in->t[in->n++];
	memset(t, 0, sizeof *t);
	t->id = ti->id;
	t->name = xstrdup(ti->name);
	t->created_at = ti->created_at;
	return 0;
}

static int add_file(void *ctx, const struct store_file *f)
{
	struct trace_sum *t = ctx;
	t->files = xrealloc(t->files, (t->nfiles + 1) * sizeof *t->files);
	struct store_file *c = &t->files[t->nfiles++];
	*c = *f;
	c->name = xstrdup(f->name);
	c->format = xstrdup(f->format ? f->format : "");
	return 0;
}

static int cmp_i32(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
	return (x > y) - (x < y);
}

/* t's gang jobs among js's, counted by W. */
static void count_gangs(struct trace_sum *t, const struct job_set *js)
{
	int32_t *w = NULL;
	size_t n = 0, cap = 0;
	for (size_t i = 0; i < js->njobs; i++)
		if (job_is_gang(&js->jobs[i])) {
			xgrow(&w, &cap, n + 1, sizeof *w);
			w[n++] = job_workers(&js->jobs[i]);
		}
	if (n) /* (qsort of no array: NULL is undefined) */
		qsort(w, n, sizeof *w, cmp_i32);
	for (size_t i = 0; i < n; i++) {
		if (!t->nworkers || t->workers[t->nworkers - 1].w != w[i]) {
			t->workers = xrealloc(t->workers, (t->nworkers + 1) * sizeof *t->workers);
			t->workers[t->nworkers++] = (struct info_w){w[i], 0};
		}
		t->workers[t->nworkers - 1].jobs++;
	}
	t->gangs = (int64_t)n;
	free(w);
}

static int count_run(void *ctx, const struct store_run *r)
{
	(void)r;
	((struct trace_sum *)ctx)->runs++;
	return 0;
}

/* Count t's files, nodes, GPUs, jobs and runs. */
static int sum_trace(struct store *s, struct trace_sum *t, struct err *e)
{
	struct job_set js = {0};
	int rc;
	if ((rc = store_file_list(s, t->id, add_file, t, e)) ||
	    (rc = store_run_list(s, t->id, count_run, t, e)) ||
	    (rc = store_trace_load(s, t->id, &js, e)))
		return rc;
	t->nodes = (int64_t)js.nnodes;
	t->jobs = (int64_t)js.njobs;
	for (size_t i = 0; i < js.nnodes; i++) {
		const struct node *n = &js.nodes[i];
		t->gpus += n->ngpu;
		if (n->ngpu > 0 && n->model >= 0 && n->model < GPUMODEL_MAX)
			t->gpus_by_model[n->model] += n->ngpu;
	}
	for (size_t i = 0; i < js.njobs; i++)
		if (js.jobs[i].cls < JOB_NCLASS)
			t->jobs_by_class[js.jobs[i].cls]++;
	count_gangs(t, &js);
	job_set_release(&js);
	return 0;
}

static void free_info(struct info *in)
{
	for (size_t i = 0; i < in->n; i++) {
		for (size_t j = 0; j < in->t[i].nfiles; j++) {
			free((char *)in->t[i].files[j].name);
			free((char *)in->t[i].files[j].format);
		}
		FREE_ALL(in->t[i].files, in->t[i].name, in->t[i].workers);
	}
	free(in->t);
}

static void gpu_text(struct sbuf *b, const int64_t *by_model)
{
	int first = 1;
	for (int m = 0; m < gpumodel_count() && m < GPUMODEL_MAX; m++) {
		if (!by_model[m])
			continue;
		sbuf_adds(b, first ? "" : ", ");
		esc_text(b, gpumodel_get(m)->name);
		sbuf_printf(b, " %lld", (long long)by_model[m]);
		first = 0;
	}
}

static void print_text(const char *path, const struct info *in, const struct store_sizes *z)
{
	struct sbuf b = SBUF_INIT, e1 = SBUF_INIT, e2 = SBUF_INIT;
	printf("store %s: %lld bytes, %lld bytes imported", esc_text_s(&e1, path),
	       (long long)z->store_bytes, (long long)z->raw_bytes);
	if (z->store_bytes > 0 && z->raw_bytes > 0)
		printf(" (ratio %.2f)", (double)z->raw_bytes / (double)z->store_bytes);
	printf("\n%zu trace%s\n", in->n, in->n == 1 ? "" : "s");
	sbuf_init(&b);
	for (size_t i = 0; i < in->n; i++) {
		const struct trace_sum *t = &in->t[i];
		char when[32] = "";
		time_t tt = (time_t)t->created_at;
		struct tm tm;
		if (gmtime_r(&tt, &tm))
			strftime(when, sizeof when, "%Y-%m-%d %H:%M:%SZ", &tm);
		printf("\ntrace %lld '%s' (imported %s)\n", (long long)t->id,
		       esc_text_s(&e1, t->name), when);
		for (size_t j = 0; j < t->nfiles; j++) {
			const struct store_file *f = &t->files[j];
			char hex[65];
			sha256_hex(f->sha256, hex);
			printf("  file %s: format %s, %lld bytes, rows read %lld, accepted %lld, "
			       "quarantined %lld, sha256 %.12s\n",
			       esc_text_s(&e1, f->name), esc_text_s(&e2, f->format),
			       (long long)f->size, (long long)f->rows_read,
			       (long long)f->rows_accepted, (long long)f->rows_quarantined, hex);
		}
		sbuf_reset(&b);
		gpu_text(&b, t->gpus_by_model);
		printf("  nodes %lld, GPUs %lld%s%s%s\n", (long long)t->nodes, (long long)t->gpus,
		       b.len ? " (" : "", b.s, b.len ? ")" : "");
		printf("  jobs %lld:", (long long)t->jobs);
		for (int c = 0; c < JOB_NCLASS; c++)
			printf(" %s %lld%s", job_class_name((enum job_class)c),
			       (long long)t->jobs_by_class[c], c + 1 < JOB_NCLASS ? "," : "");
		if (t->gangs) { /* said only where there are: a store without keeps its text */
			printf("\n  gang jobs %lld (W workers started together), by W:",
			       (long long)t->gangs);
			for (size_t k = 0; k < t->nworkers; k++)
				printf(" %lld x%lld%s", (long long)t->workers[k].w,
				       (long long)t->workers[k].jobs,
				       k + 1 < t->nworkers ? "," : "");
		}
		printf("\n  runs %lld\n", (long long)t->runs);
	}
	sbuf_release(&b);
	sbuf_release(&e1);
	sbuf_release(&e2);
}

static void json_models(struct json *j, const int64_t *by_model)
{
	json_obj(j);
	for (int m = 0; m < gpumodel_count() && m < GPUMODEL_MAX; m++)
		if (by_model[m]) {
			json_key(j, gpumodel_get(m)->name);
			json_int(j, by_model[m]);
		}
	json_end(j);
}

static void json_classes(struct json *j, const int64_t *by_class)
{
	json_obj(j);
	for (int c = 0; c < JOB_NCLASS; c++) {
		json_key(j, job_class_name((enum job_class)c));
		json_int(j, by_class[c]);
	}
	json_end(j);
}

static void json_file(struct json *j, const struct store_file *f)
{
	char hex[65];
	sha256_hex(f->sha256, hex);
	json_obj(j);
	json_key_str(j, "name", f->name);
	json_key_int(j, "trace", f->trace_id);
	json_key_str(j, "format", f->format);
	json_key_int(j, "size", f->size);
	json_key_str(j, "sha256", hex);
	json_key_int(j, "rows_read", f->rows_read);
	json_key_int(j, "rows_accepted", f->rows_accepted);
	json_key_int(j, "rows_quarantined", f->rows_quarantined);
	json_key_int(j, "imported_at", f->imported_at);
	json_end(j);
}

static void print_json(const char *path, const struct info *in, const struct store_sizes *z)
{
	struct sbuf b = SBUF_INIT;
	struct json j;
	int64_t nodes = 0, gpus = 0, jobs = 0, runs = 0;
	int64_t by_model[GPUMODEL_MAX] = {0}, by_class[JOB_NCLASS] = {0};
	sbuf_init(&b);
	json_init(&j, &b, 1);
	json_obj(&j);
	json_key_str(&j, "store", path);
	json_key(&j, "traces");
	json_arr(&j);
	for (size_t i = 0; i < in->n; i++) {
		const struct trace_sum *t = &in->t[i];
		json_obj(&j);
		json_key_int(&j, "id", t->id);
		json_key_str(&j, "name", t->name);
		json_key_int(&j, "created_at", t->created_at);
		json_key(&j, "files");
		json_arr(&j);
		for (size_t k = 0; k < t->nfiles; k++)
			json_file(&j, &t->files[k]);
		json_end(&j);
		json_key_int(&j, "nodes", t->nodes);
		json_key_int(&j, "gpus", t->gpus);
		json_key(&j, "gpus_by_model");
		json_models(&j, t->gpus_by_model);
		json_key_int(&j, "jobs", t->jobs);
		json_key(&j, "jobs_by_class");
		json_classes(&j, t->jobs_by_class);
		json_key_int(&j, "gang_jobs", t->gangs);
		json_key(&j, "workers");
		json_obj(&j);
		for (size_t k = 0; k < t->nworkers; k++) {
			char w[24];
			snprintf(w, sizeof w, "%lld", (long long)t->workers[k].w);
			json_key(&j, w);
			json_int(&j, t->workers[k].jobs);
		}
		json_end(&j);
		json_key_int(&j, "runs", t->runs);
		json_end(&j);
		nodes += t->nodes;
		gpus += t->gpus;
		jobs += t->jobs;
		runs += t->runs;
		for (int m = 0; m < GPUMODEL_MAX; m++)
			by_model[m] += t->gpus_by_model[m];
		for (int c = 0; c < JOB_NCLASS; c++)
			by_class[c] += t->jobs_by_class[c];
	}
	json_end(&j);
	json_key(&j, "files");
	json_arr(&j);
	for (size_t i = 0; i < in->n; i++)
		for (size_t k = 0; k < in->t[i].nfiles; k++)
			json_file(&j, &in->t[i].files[k]);
	json_end(&j);
	json_key_int(&j, "nodes", nodes);
	json_key_int(&j, "gpus", gpus);
	json_key(&j, "gpus_by_model");
	json_models(&j, by_model);
	json_key_int(&j, "jobs", jobs);
	json_key(&j, "jobs_by_class");
	json_classes(&j, by_class);
	json_key_int(&j, "runs", runs);
	json_key_int(&j, "store_bytes", z->store_bytes);
	json_key_int(&j, "raw_bytes", z->raw_bytes);
	json_key(&j, "ratio");
	if (z->store_bytes > 0)
		json_num(&j, (double)(int64_t)((double)z->raw_bytes / (double)z->store_bytes * 100 +
					       0.5) /
				     100);
	else
		json_null(&j);
	json_end(&j);
	fputs(b.s, stdout);
	fputc('\n', stdout);
	sbuf_release(&b);
}

static int exec_info(struct cmd_ctx *ctx)
{
	struct info in = {.s = ctx->st};
	struct store_sizes z;
	int rc = CMD_OK;
	if (store_trace_list(in.s, add_trace, &in, &in.e))
		rc = cmd_fail(ctx->ce, "%s", in.e.msg);
	for (size_t i = 0; i < in.n && !rc; i++)
		if (sum_trace(in.s, &in.t[i], &in.e))
			rc = cmd_fail(ctx->ce, "%s", in.e.msg);
	if (!rc && store_sizes(in.s, &z, &in.e))
		rc = cmd_fail(ctx->ce, "%s", in.e.msg);
	if (!rc && cmd_has(ctx, CMD_K_JSON))
		print_json(ctx->p.operands[0], &in, &z);
	else if (!rc)
		print_text(ctx->p.operands[0], &in, &z);
	free_info(&in);
	return rc;
}
