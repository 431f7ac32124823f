/*
 * store-scen.c — scenarios, and the rows of a run that a query can select: its buckets (GPU
 * time per model, class and bucket) and its time series (store.h).
 */
#include <assert.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store-int.h"

/* Bind a real that may not apply (NaN: NULL), a text that may be NULL, an integer that may
 * not apply (-1: NULL). */
static void bind_real(sqlite3_stmt *st, int i, double v)
{
	if (isnan(v))
		sqlite3_bind_null(st, i);
	else
		sqlite3_bind_double(st, i, v);
}

static void bind_text(sqlite3_stmt *st, int i, const char *v)
{
	if (v)
		sqlite3_bind_text(st, i, v, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, i);
}

static void bind_int(sqlite3_stmt *st, int i, int64_t v)
{
	if (v < 0)
		sqlite3_bind_null(st, i);
	else
		sqlite3_bind_int64(st, i, v);
}

static double col_real(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

static int64_t col_int(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, i);
}

static const char *col_text(sqlite3_stmt *st, int i)
{
	return (const char *)sqlite3_column_text(st, i);
}

#define SCEN_COLS                                                                                  \
	"trace_id, key, mode, target, queue, preempt, dims, "                                      \
	"sample_nodes, faults, profile_name, profile_version, profile_path, profile_text, "        \
	"io_pressure, cluster_path, cluster_text, nodes, gpus, jobs, window_start, window_end, "   \
	"enriched, parent_run, fork_time, change, created_at, resample, block_s"

/* The columns of scenario parameters (scenario.h's table says which parameter fills each),
 * read and written after SCEN_COLS; a new one needs a migration. */
static const char *const param_cols[] = {"lambda", "mu", "coverage"};
#define NPARAM_COLS (sizeof param_cols / sizeof *param_cols)
static_assert(NPARAM_COLS <= STORE_SCEN_NPARAM, "a row holds every parameter column");

/* The index of column in param_cols, or -1. */
static int param_col(const char *column)
{
	for (size_t i = 0; i < NPARAM_COLS; i++)
		if (!strcmp(param_cols[i], column))
			return (int)i;
	return -1;
}

/* ", lambda, mu, coverage" */
static void param_list(struct sbuf *out)
{
	for (size_t i = 0; i < NPARAM_COLS; i++)
		sbuf_printf(out, ", %s", param_cols[i]);
}

int store_scenario_put(struct store *s, const struct store_scenario *sc, int64_t *id, struct err *e)
{
	sqlite3_stmt *st;
	int rc = store_prep(s, "SELECT id FROM scenarios WHERE trace_id = ? AND key = ?", &st, e);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, sc->trace_id);
	sqlite3_bind_text(st, 2, sc->key, -1, SQLITE_STATIC);
	int step = sqlite3_step(st);
	if (step == SQLITE_ROW)
		*id = sqlite3_column_int64(st, 0);
	else if (step != SQLITE_DONE)
		rc = store_sqlerr(s, e, "find scenario");
	sqlite3_finalize(st);
	if (rc || step == SQLITE_ROW)
		return rc;
	double pv[NPARAM_COLS];
	for (size_t k = 0; k < NPARAM_COLS; k++)
		pv[k] = NAN;
	for (size_t k = 0; k < sc->nparam; k++) {
		int c = param_col(sc->param[k].column);
		if (c < 0)
			return err_set(e, VF_ESTORE, "%s: scenarios: no column '%s'", s->path,
				       sc->param[k].column);
		pv[c] = sc->param[k].value;
	}
	struct sbuf sql = SBUF_INIT;
	sbuf_init(&sql);
	sbuf_adds(&sql, "INSERT INTO scenarios(" SCEN_COLS);
	param_list(&sql);
	sbuf_adds(&sql, ") VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?");
	for (size_t k = 0; k < NPARAM_COLS; k++)
		sbuf_adds(&sql, ",?");
	sbuf_adds(&sql, ")");
	rc = store_prep(s, sql.s, &st, e);
	sbuf_release(&sql);
	if (rc)
		return rc;
	int i = 1;
	sqlite3_bind_int64(st, i++, sc->trace_id);
	bind_text(st, i++, sc->key);
	bind_text(st, i++, sc->mode);
	bind_real(st, i++, sc->target);
	bind_text(st, i++, sc->queue);
	sqlite3_bind_int(st, i++, sc->preempt);
	bind_text(st, i++, sc->dims ? sc->dims : "");
	sqlite3_bind_int64(st, i++, sc->sample_nodes > 0 ? sc->sample_nodes : 0);
	bind_text(st, i++, sc->faults ? sc->faults : "");
	bind_text(st, i++, sc->profile_name);
	bind_int(st, i++, sc->profile_version);
	bind_text(st, i++, sc->profile_path);
	bind_text(st, i++, sc->profile_text);
	bind_real(st, i++, sc->io_pressure);
	bind_text(st, i++, sc->cluster_path);
	bind_text(st, i++, sc->cluster_text);
	bind_int(st, i++, sc->nodes);
	bind_int(st, i++, sc->gpus);
	bind_int(st, i++, sc->jobs);
	bind_int(st, i++, sc->window_start);
	bind_int(st, i++, sc->window_end);
	bind_text(st, i++, sc->enriched);
	bind_int(st, i++, sc->parent_run);
	bind_int(st, i++, sc->fork_time);
	bind_text(st, i++, sc->change);
	sqlite3_bind_int64(st, i++, sc->created_at > 0 ? sc->created_at : util_now());
	bind_int(st, i++, sc->resample > 0 ? sc->resample : -1);
	bind_int(st, i++, sc->resample > 0 ? sc->block_s : -1);
	for (size_t k = 0; k < NPARAM_COLS; k++)
		bind_real(st, i++, pv[k]);
	rc = store_insert(s, st, "scenarios", "scenario", id, e);
	sqlite3_finalize(st);
	return rc;
}

int store_scenario_list(struct store *s, int64_t trace_id,
			int (*cb)(void *ctx, const struct store_scenario *sc), void *ctx,
			struct err *e)
{
	struct sbuf sql = SBUF_INIT;
	sbuf_init(&sql);
	sbuf_adds(&sql, "SELECT id, " SCEN_COLS ", (SELECT count(*) FROM runs r WHERE "
			"r.scenario_id = scenarios.id)");
	param_list(&sql);
	sbuf_adds(&sql, " FROM scenarios WHERE ?1 < 0 OR trace_id = ?1 ORDER BY id");
	struct store_rows q;
	int rc = store_rows_begin(s, &q, sql.s, &trace_id, e);
	sqlite3_stmt *st = q.st;
	sbuf_release(&sql);
	while (!rc && store_rows_next(&q)) {
		int i = 0;
		struct store_scenario sc;
		sc.id = sqlite3_column_int64(st, i++);
		sc.trace_id = sqlite3_column_int64(st, i++);
		sc.key = col_text(st, i++);
		sc.mode = col_text(st, i++);
		sc.target = col_real(st, i++);
		sc.queue = col_text(st, i++);
		sc.preempt = sqlite3_column_int(st, i++);
		sc.dims = col_text(st, i++);
		sc.sample_nodes = col_int(st, i++);
		sc.faults = col_text(st, i++);
		sc.profile_name = col_text(st, i++);
		sc.profile_version = col_int(st, i++);
		sc.profile_path = col_text(st, i++);
		sc.profile_text = col_text(st, i++);
		sc.io_pressure = col_real(st, i++);
		sc.cluster_path = col_text(st, i++);
		sc.cluster_text = col_text(st, i++);
		sc.nodes = col_int(st, i++);
		sc.gpus = col_int(st, i++);
		sc.jobs = col_int(st, i++);
		sc.window_start = col_int(st, i++);
		sc.window_end = col_int(st, i++);
		sc.enriched = col_text(st, i++);
		sc.parent_run = col_int(st, i++);
		sc.fork_time = col_int(st, i++);
		sc.change = col_text(st, i++);
		sc.created_at = sqlite3_column_int64(st, i++);
		sc.resample = col_int(st, i++);
		sc.resample = sc.resample > 0 ? sc.resample : 0;
		sc.block_s = col_int(st, i++);
		sc.nruns = sqlite3_column_int64(st, i++);
		sc.nparam = NPARAM_COLS;
		for (size_t k = 0; k < NPARAM_COLS; k++)
			sc.param[k] = (struct store_param){param_cols[k], col_real(st, i++)};
		rc = cb(ctx, &sc);
	}
	return store_rows_end(&q, rc, "list scenarios");
}

int store_run_buckets_add(struct store *s, int64_t run_id, const struct store_bucket *b, size_t nb,
			  struct err *e)
{
	sqlite3_stmt *st;
	int rc = store_prep(s,
			    "INSERT INTO run_buckets(run_id, model, class, bucket, gpu_ms, rsum) "
			    "VALUES (?,?,?,?,?,?)",
			    &st, e);
	if (rc)
		return rc;
	for (size_t i = 0; i < nb && !rc; i++) {
		/* hashed from its cells, as store_seal would read them back (a run has many) */
		struct store_rowhash h;
		store_rowhash_init(&h);
		store_rowhash_int(&h, "run_id", run_id);
		store_rowhash_bytes(&h, "model", SQLITE_TEXT, b[i].model, strlen(b[i].model));
		store_rowhash_bytes(&h, "class", SQLITE_TEXT, b[i].cls, strlen(b[i].cls));
		store_rowhash_bytes(&h, "bucket", SQLITE_TEXT, b[i].bucket, strlen(b[i].bucket));
		store_rowhash_int(&h, "gpu_ms", b[i].gpu_ms);
		uint64_t sum = store_rowhash_end(&h);
		STORE_BIND(st, STORE_I(run_id), STORE_T(b[i].model), STORE_T(b[i].cls),
			   STORE_T(b[i].bucket), STORE_I(b[i].gpu_ms), STORE_I(sum));
		if (sqlite3_step(st) != SQLITE_DONE)
			rc = store_sqlerr(s, e, "add run bucket");
		sqlite3_reset(st);
		if (!rc)
			rc = store_seal_added(s, "run_buckets", sum, e);
	}
	sqlite3_finalize(st);
	return rc;
}

#define SERIES_HEAD "t,load,alloc_share,frag,frag_md,stall_share,queued,running,finished,failed\n"

void store_series_text(const struct store_point *p, size_t n, struct sbuf *out)
{
	sbuf_adds(out, SERIES_HEAD);
	for (size_t i = 0; i < n; i++)
		sbuf_printf(out,
			    "%" PRId64 ",%.17g,%.17g,%.17g,%.17g,%.17g,%" PRId64 ",%" PRId64
			    ",%" PRId64 ",%" PRId64 "\n",
			    p[i].t, p[i].load, p[i].alloc_share, p[i].frag, p[i].frag_md,
			    p[i].stall_share, p[i].queued, p[i].running, p[i].finished,
			    p[i].failed);
}

int store_run_buckets(struct store *s, int64_t run_id,
		      int (*cb)(void *ctx, const struct store_bucket *b), void *ctx, struct err *e)
{
	struct store_rows q;
	int rc = store_rows_begin(s, &q,
				  "SELECT model, class, bucket, gpu_ms FROM run_buckets WHERE "
				  "run_id = ? ORDER BY model, class, bucket",
				  &run_id, e);
	sqlite3_stmt *st = q.st;
	while (!rc && store_rows_next(&q)) {
		struct store_bucket b = {col_text(st, 0), col_text(st, 1), col_text(st, 2),
					 sqlite3_column_int64(st, 3)};
		rc = cb(ctx, &b);
	}
	return store_rows_end(&q, rc, "read run buckets");
}

int store_run_series(struct store *s, int64_t run_id,
		     int (*cb)(void *ctx, const struct store_point *p), void *ctx, struct err *e)
{
	void *data;
	size_t n;
	int rc = store_run_data(s, run_id, 0, &data, &n, e);
	if (rc || !data)
		return rc;
	const char *t = data, *end = t + n;
	if (n < strlen(SERIES_HEAD) || memcmp(t, SERIES_HEAD, strlen(SERIES_HEAD)))
		rc = err_set(e, VF_ESTORE, "%s: run %lld: its series has no header", s->path,
			     (long long)run_id);
	else
		t += strlen(SERIES_HEAD);
	for (int line = 2; !rc && t < end; line++) {
		const char *nl = memchr(t, '\n', (size_t)(end - t));
		struct store_point p;
		char buf[512];
		size_t len = nl ? (size_t)(nl - t) : (size_t)(end - t);
		if (len >= sizeof buf ||
		    (memcpy(buf, t, len), buf[len] = '\0',
		     sscanf(buf,
			    "%" SCNd64 ",%lf,%lf,%lf,%lf,%lf,%" SCNd64 ",%" SCNd64 ",%" SCNd64
			    ",%" SCNd64,
			    &p.t, &p.load, &p.alloc_share, &p.frag, &p.frag_md, &p.stall_share,
			    &p.queued, &p.running, &p.finished, &p.failed) != 10)) {
			rc = err_set(e, VF_ESTORE, "%s: run %lld: series line %d is damaged",
				     s->path, (long long)run_id, line);
			break;
		}
		rc = cb(ctx, &p);
		t = nl ? nl + 1 : end;
	}
	free(data);
	return rc;
}

/* Run sql with ?1 = id in s; VF_ESTORE on failure. changes: the rows it changed (NULL:
 * not wanted). */
static int run_sql(struct store *s, const char *sql, int64_t id, int *changes, struct err *e)
{
	sqlite3_stmt *st;
	int rc = store_prep(s, sql, &st, e);
	if (rc)
		return rc;
	if (sqlite3_bind_parameter_count(st) > 0)
		sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) != SQLITE_DONE)
		rc = store_sqlerr(s, e, "delete run");
	else if (changes)
		*changes = sqlite3_changes(s->db);
	sqlite3_finalize(st);
	return rc;
}

/* The scenarios forked from run id lose their parent: each is sealed again, once it is found
 * as it was sealed. */
static int orphan_forks(struct store *s, int64_t id, struct err *e)
{
	int64_t *ids = NULL;
	size_t n = 0;
	int rc = store_ids(s, "SELECT id FROM scenarios WHERE parent_run = ?", &id, &ids, &n,
			   "delete run", e);
	for (size_t i = 0; i < n && !rc; i++)
		rc = store_seal_intact(s, "scenarios", ids[i], e);
	if (!rc && n)
		rc = run_sql(s, "UPDATE scenarios SET parent_run = NULL WHERE parent_run = ?1", id,
			     NULL, e);
	for (size_t i = 0; i < n && !rc; i++)
		rc = store_seal(s, "scenarios", ids[i], e);
	free(ids);
	return rc;
}

int store_run_delete(struct store *s, int64_t id, struct err *e)
{
	/* the rows a step deletes leave their table's count and total first (store-seal.c) */
	static const struct {
		const char *table, *where;
	} rows[] = {
		{"run_metrics", "run_id = ?1"},
		{"run_buckets", "run_id = ?1"},
		{"run_blobs", "run_id = ?1"},
		{"runs", "id = ?1"},
	};
	static const char *const orphans =
		"NOT EXISTS (SELECT 1 FROM runs r WHERE r.scenario_id = scenarios.id) AND NOT "
		"EXISTS (SELECT 1 FROM sizings z WHERE z.scenario_id = scenarios.id)";
	char sql[300];
	int rc = 0, changes = 0;
	for (size_t i = 0; i < sizeof rows / sizeof *rows && !rc; i++) {
		if (i == 3 && (rc = orphan_forks(s, id, e)))
			break;
		snprintf(sql, sizeof sql, "DELETE FROM %s WHERE %s", rows[i].table, rows[i].where);
		if (!(rc = store_unseal(s, rows[i].table, rows[i].where, id, e)))
			rc = run_sql(s, sql, id, &changes, e);
	}
	if (!rc && changes == 0)
		return err_set(e, VF_EINPUT, "%s: no run %lld", s->path, (long long)id);
	snprintf(sql, sizeof sql, "DELETE FROM scenarios WHERE %s", orphans);
	if (!rc && !(rc = store_unseal(s, "scenarios", orphans, id, e)))
		rc = run_sql(s, sql, id, NULL, e);
	return rc;
}
