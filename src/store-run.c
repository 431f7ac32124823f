/*
 * store-run.c — replay runs: a row in runs (parameters and summary as JSON), a row in
 * run_blobs (the series and per-job results as sealed ZBLK_BYTES blocks) and one
 * run_metrics row per metric. The blocks are a table of their own so that listing,
 * choosing and pricing runs reads none of them (schemas/006-seal-runs.sql).
 */
#include <stdlib.h>
#include <string.h>

#include "store-int.h"

/* Bind a sealed block of p[0..n) to parameter i (NULL when n is 0). */
static int bind_bytes(struct store *s, sqlite3_stmt *st, int i, const void *p, size_t n,
		      struct zblk_buf *tmp, struct err *e)
{
	if (!n)
		return sqlite3_bind_null(st, i), 0;
	zblk_buf_reset(tmp);
	int rc = zblk_seal(s->z, ZBLK_BYTES, n, p, n, tmp, e);
	if (!rc)
		sqlite3_bind_blob64(st, i, tmp->p, tmp->len, SQLITE_TRANSIENT);
	return rc;
}

int store_run_add(struct store *s, struct store_run *r, const struct store_metric *m, size_t nm,
		  struct err *e)
{
	sqlite3_stmt *st;
	struct zblk_buf tmp = {0};
	int rc = store_prep(s,
			    "INSERT INTO runs(trace_id, policy, mode, seed, params_json, "
			    "summary_json, created_at, scenario_id, dims, voidfit_version) "
			    "VALUES (?,?,?,?,?,?,?,?,?,?)",
			    &st, e);
	if (rc)
		return rc;
	STORE_BIND(st, STORE_I(r->trace_id), STORE_T(r->policy), STORE_T(r->mode), STORE_I(r->seed),
		   STORE_T(r->params_json ? r->params_json : "{}"),
		   STORE_T(r->summary_json ? r->summary_json : "{}"), STORE_I(util_now()),
		   r->scenario_id > 0 ? STORE_I(r->scenario_id) : STORE_T(NULL), STORE_T(r->dims),
		   STORE_T(r->voidfit_version));
	rc = store_insert(s, st, "runs", "run", &r->id, e);
	sqlite3_finalize(st);
	if (rc || (rc = store_prep(s, "INSERT INTO run_blobs(run_id, series, jobs) VALUES (?,?,?)",
				   &st, e)))
		return rc;
	sqlite3_bind_int64(st, 1, r->id);
	if (!(rc = bind_bytes(s, st, 2, r->series, r->series_len, &tmp, e)) &&
	    !(rc = bind_bytes(s, st, 3, r->jobs, r->jobs_len, &tmp, e)) &&
	    sqlite3_step(st) != SQLITE_DONE)
		rc = store_sqlerr(s, e, "add run blocks");
	sqlite3_finalize(st);
	zblk_buf_release(&tmp);
	if (rc || (rc = store_seal(s, "run_blobs", r->id, e)) ||
	    (rc = store_prep(s, "INSERT INTO run_metrics(run_id, key, value) VALUES (?,?,?)", &st,
			     e)))
		return rc;
	for (size_t i = 0; i < nm && !rc; i++) {
		sqlite3_bind_int64(st, 1, r->id);
		sqlite3_bind_text(st, 2, m[i].key, -1, SQLITE_STATIC);
		sqlite3_bind_double(st, 3, m[i].value);
		rc = store_insert(s, st, "run_metrics", "run metric", NULL, e);
	}
	sqlite3_finalize(st);
	return rc;
}

/* The runs where column col (trace_id or scenario_id) is id (any when id < 0). */
static int list_runs(struct store *s, const char *sql, int64_t id,
		     int (*cb)(void *ctx, const struct store_run *r), void *ctx, struct err *e)
{
	struct store_rows q;
	int rc = store_rows_begin(s, &q, sql, &id, e);
	sqlite3_stmt *st = q.st;
	while (!rc && store_rows_next(&q)) {
		struct store_run r = {
			.id = sqlite3_column_int64(st, 0),
			.trace_id = sqlite3_column_int64(st, 1),
			.policy = (const char *)sqlite3_column_text(st, 2),
			.mode = (const char *)sqlite3_column_text(st, 3),
			.seed = (uint64_t)sqlite3_column_int64(st, 4),
			.params_json = (const char *)sqlite3_column_text(st, 5),
			.summary_json = (const char *)sqlite3_column_text(st, 6),
			.scenario_id = sqlite3_column_int64(st, 7),
			.dims = (const char *)sqlite3_column_text(st, 8),
			.voidfit_version = (const char *)sqlite3_column_text(st, 9),
			.created_at = sqlite3_column_int64(st, 10),
		};
		rc = cb(ctx, &r);
	}
	return store_rows_end(&q, rc, "list runs");
}

#define RUN_COLS                                                                                   \
	"SELECT id, trace_id, policy, mode, seed, params_json, summary_json, scenario_id, dims, "  \
	"voidfit_version, created_at FROM runs "

int store_run_list(struct store *s, int64_t trace_id,
		   int (*cb)(void *ctx, const struct store_run *r), void *ctx, struct err *e)
{
	return list_runs(s, RUN_COLS "WHERE ?1 < 0 OR trace_id = ?1 ORDER BY id", trace_id, cb, ctx,
			 e);
}

int store_run_list_scenario(struct store *s, int64_t scenario_id,
			    int (*cb)(void *ctx, const struct store_run *r), void *ctx,
			    struct err *e)
{
	return list_runs(s, RUN_COLS "WHERE scenario_id = ?1 ORDER BY id", scenario_id, cb, ctx, e);
}

int store_run_metrics(struct store *s, int64_t run_id,
		      int (*cb)(void *ctx, const struct store_metric *m), void *ctx, struct err *e)
{
	struct store_rows q;
	int rc = store_rows_begin(
		s, &q, "SELECT key, value FROM run_metrics WHERE run_id = ? ORDER BY rowid",
		&run_id, e);
	sqlite3_stmt *st = q.st;
	while (!rc && store_rows_next(&q)) {
		struct store_metric m = {(const char *)sqlite3_column_text(st, 0),
					 sqlite3_column_double(st, 1)};
		rc = cb(ctx, &m);
	}
	return store_rows_end(&q, rc, "list run metrics");
}

int store_run_data(struct store *s, int64_t run_id, int which, void **out, size_t *n, struct err *e)
{
	*out = NULL;
	*n = 0;
	sqlite3_stmt *st;
	int rc = store_prep(s,
			    which ? "SELECT b.run_id, b.jobs FROM runs r LEFT JOIN run_blobs b "
				    "ON b.run_id = r.id WHERE r.id = ?"
				  : "SELECT b.run_id, b.series FROM runs r LEFT JOIN run_blobs b "
				    "ON b.run_id = r.id WHERE r.id = ?",
			    &st, e);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, run_id);
	int step = sqlite3_step(st);
	if (step == SQLITE_ROW && sqlite3_column_type(st, 0) == SQLITE_NULL) {
		rc = err_set(e, VF_ESTORE,
			     "%s: run %lld: its blocks are not in the store (the store is damaged: "
			     "'voidfit check' tells more)",
			     s->path, (long long)run_id);
	} else if (step == SQLITE_ROW && sqlite3_column_type(st, 1) != SQLITE_NULL) {
		struct zblk_buf raw = {0};
		struct zblk_info info;
		rc = zblk_open(s->z, sqlite3_column_blob(st, 1),
			       (size_t)sqlite3_column_bytes(st, 1), &info, &raw, e);
		if (!rc && info.kind != ZBLK_BYTES)
			rc = err_set(e, VF_ESTORE, "block of kind %d", info.kind);
		if (rc) {
			err_prefix(e, "%s: run %lld: ", s->path, (long long)run_id);
			zblk_buf_release(&raw);
		} else {
			*out = raw.p;
			*n = raw.len;
		}
	} else if (step == SQLITE_DONE) {
		rc = err_set(e, VF_EINPUT, "run %lld: not in %s", (long long)run_id, s->path);
	} else if (step != SQLITE_ROW) {
		rc = store_sqlerr(s, e, "read run");
	}
	sqlite3_finalize(st);
	return rc;
}
