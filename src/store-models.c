/*
 * store-models.c — a trace's own GPU models (table gpu_models, schemas/007-gpu-models.sql):
 * written by an import given --gpu-models, and added to this process's model table
 * (gpumodel_add) when a store is opened, so that every command reading the store prices
 * and sizes those GPUs as the import did.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpumodel.h"
#include "store-int.h"

int store_gpu_models_add(struct store *s, int64_t trace_id, const struct gpumodel_def *d,
			 const int *ids, size_t n, struct err *e)
{
	sqlite3_stmt *st;
	int rc = store_prep(
		s,
		"INSERT INTO gpu_models(trace_id, name, aliases, id, hbm_mib, on_demand, "
		"on_demand_source, reserved, reserved_source, spot, spot_source, owned, "
		"owned_source) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
		&st, e);
	for (size_t i = 0; i < n && !rc; i++) {
		sqlite3_bind_int64(st, 1, trace_id);
		sqlite3_bind_text(st, 2, d[i].m.name, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, d[i].aliases ? d[i].aliases : "", -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 4, ids[i]);
		for (int c = 5; c <= 13; c++)
			sqlite3_bind_null(st, c);
		if (d[i].m.hbm_mib) {
			sqlite3_bind_int64(st, 5, d[i].m.hbm_mib);
			for (int t = 0; t < GPUMODEL_NTIER; t++) {
				sqlite3_bind_double(st, 6 + 2 * t, d[i].m.usd[t]);
				sqlite3_bind_text(st, 7 + 2 * t, d[i].m.source[t], -1,
						  SQLITE_STATIC);
			}
		}
		rc = store_insert(s, st, "gpu_models", "a GPU model", NULL, e);
	}
	sqlite3_finalize(st);
	return rc;
}

static const char *text_or_empty(sqlite3_stmt *st, int c)
{
	const char *v = (const char *)sqlite3_column_text(st, c);
	return v ? v : "";
}

int store_gpu_models_load(struct store *s, struct err *e)
{
	struct store_rows q;
	int rc = store_rows_begin(
		s, &q,
		"SELECT trace_id, name, aliases, id, hbm_mib, on_demand, "
		"on_demand_source, reserved, reserved_source, spot, spot_source, owned, "
		"owned_source FROM gpu_models ORDER BY rowid",
		NULL, e);
	sqlite3_stmt *st = q.st;
	while (!rc && store_rows_next(&q)) {
		struct gpumodel_def d;
		memset(&d, 0, sizeof d);
		int64_t trace_id = sqlite3_column_int64(st, 0), want = sqlite3_column_int64(st, 3);
		d.m.name = text_or_empty(st, 1);
		d.aliases = text_or_empty(st, 2);
		if (sqlite3_column_type(st, 4) != SQLITE_NULL) {
			d.m.hbm_mib = sqlite3_column_int64(st, 4);
			for (int t = 0; t < GPUMODEL_NTIER; t++) {
				d.m.usd[t] = sqlite3_column_double(st, 5 + 2 * t);
				d.m.source[t] = text_or_empty(st, 6 + 2 * t);
			}
		}
		int id = -1;
		if (d.m.hbm_mib < 0 || (d.m.hbm_mib && !(d.m.usd[0] > 0 && d.m.usd[1] > 0 &&
							 d.m.usd[2] > 0 && d.m.usd[3] > 0)))
			rc = err_set(
				e, VF_ESTORE,
				"%s: trace %lld: GPU model '%s' has no HBM or price (the store "
				"is damaged: 'voidfit check' tells more)",
				s->path, (long long)trace_id, d.m.name);
		else if ((rc = gpumodel_add(&d, &id, e)))
			err_prefix(e, "%s: trace %lld: ", s->path, (long long)trace_id);
		else if (id != want)
			rc = err_set(e, VF_ESTORE,
				     "%s: trace %lld: GPU model '%s' is model %lld of its jobs but "
				     "would be model %d here (this voidfit has %d built-in models, "
				     "or another store's models came first): not supported",
				     s->path, (long long)trace_id, d.m.name, (long long)want, id,
				     gpumodel_builtin_count());
	}
	return store_rows_end(&q, rc, "load GPU models");
}
