/*
 * store-size.c — sizings: the smallest cluster 'voidfit size' found per policy, scenario
 * and SLO, with its nodes and GPUs per GPU model (store.h).
 */
#include <stdlib.h>
#include <string.h>

#include "store-int.h"

int store_sizing_put(struct store *s, struct store_sizing *z, struct err *e)
{
	sqlite3_stmt *st;
	int64_t old = 0;
	int rc = store_prep(s,
			    "SELECT id FROM sizings WHERE scenario_id = ?1 AND policy = ?2 AND "
			    "slo = ?3 AND seed_lo = ?4 AND seed_hi = ?5 AND shrink = ?6",
			    &st, e);
	if (rc)
		return rc;
	STORE_BIND(st, STORE_I(z->scenario_id), STORE_T(z->policy), STORE_T(z->slo),
		   STORE_I(z->seed_lo), STORE_I(z->seed_hi), STORE_T(z->shrink ? z->shrink : ""));
	int step = sqlite3_step(st);
	if (step == SQLITE_ROW)
		old = sqlite3_column_int64(st, 0);
	else if (step != SQLITE_DONE)
		rc = store_sqlerr(s, e, "replace sizing");
	sqlite3_finalize(st);
	/* the same sizing again replaces its rows; they leave the sealed counts first */
	static const struct {
		const char *table, *where;
	} del[] = {{"sizing_models", "sizing_id = ?1"}, {"sizings", "id = ?1"}};
	for (size_t i = 0; i < sizeof del / sizeof *del && old && !rc; i++) {
		char sql[96];
		snprintf(sql, sizeof sql, "DELETE FROM %s WHERE %s", del[i].table, del[i].where);
		if ((rc = store_unseal(s, del[i].table, del[i].where, old, e)) ||
		    (rc = store_prep(s, sql, &st, e)))
			break;
		sqlite3_bind_int64(st, 1, old);
		if (sqlite3_step(st) != SQLITE_DONE)
			rc = store_sqlerr(s, e, "replace sizing");
		sqlite3_finalize(st);
	}
	if (rc ||
	    (rc = store_prep(s,
			     "INSERT INTO sizings(scenario_id, policy, slo, seed_lo, seed_hi, "
			     "shrink, nodes_full, nodes_min, gpus_full, gpus_min, "
			     "gpus_retired, usd_per_year, price_tier, prices, probes, "
			     "created_at, checked_above, miss_above_nodes, miss_above) VALUES "
			     "(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
			     &st, e)))
		return rc;
	STORE_BIND(st, STORE_I(z->scenario_id), STORE_T(z->policy), STORE_T(z->slo),
		   STORE_I(z->seed_lo), STORE_I(z->seed_hi), STORE_T(z->shrink ? z->shrink : ""),
		   STORE_I(z->nodes_full), STORE_I(z->nodes_min), STORE_I(z->gpus_full),
		   STORE_I(z->gpus_min), STORE_I(z->gpus_retired), STORE_R(z->usd_per_year),
		   STORE_T(z->price_tier), STORE_T(z->prices ? z->prices : ""), STORE_I(z->probes),
		   STORE_I(z->created_at > 0 ? z->created_at : util_now()),
		   STORE_I(z->checked_above), STORE_I(z->miss_above_nodes),
		   STORE_T(z->miss_above ? z->miss_above : ""));
	rc = store_insert(s, st, "sizings", "sizing", &z->id, e);
	sqlite3_finalize(st);
	if (rc || (rc = store_prep(s,
				   "INSERT INTO sizing_models(sizing_id, model, nodes_full, "
				   "nodes_min, gpus_full, gpus_min) VALUES (?,?,?,?,?,?)",
				   &st, e)))
		return rc;
	for (size_t m = 0; m < z->nmodels && !rc; m++) {
		const struct store_sizing_model *zm = &z->models[m];
		STORE_BIND(st, STORE_I(z->id), STORE_T(zm->model), STORE_I(zm->nodes_full),
			   STORE_I(zm->nodes_min), STORE_I(zm->gpus_full), STORE_I(zm->gpus_min));
		rc = store_insert(s, st, "sizing_models", "sizing model", NULL, e);
	}
	sqlite3_finalize(st);
	return rc;
}

/* The models of sizing id into *out (*n of them, names in (*names)[0..*n), both grown as
 * needed and owned by the caller). */
static int list_models(struct store *s, int64_t id, struct store_sizing_model **out, size_t *n,
		       char ***names, struct err *e)
{
	struct store_rows q;
	size_t cap = 0, ncap = 0;
	int rc = store_rows_begin(s, &q,
				  "SELECT model, nodes_full, nodes_min, gpus_full, gpus_min FROM "
				  "sizing_models WHERE sizing_id = ? ORDER BY model",
				  &id, e);
	sqlite3_stmt *st = q.st;
	*n = 0;
	while (!rc && store_rows_next(&q)) {
		xgrow(out, &cap, *n + 1, sizeof **out);
		xgrow(names, &ncap, *n + 1, sizeof **names);
		(*names)[*n] = xstrdup((const char *)sqlite3_column_text(st, 0));
		(*out)[*n] = (struct store_sizing_model){
			(*names)[*n], sqlite3_column_int64(st, 1), sqlite3_column_int64(st, 2),
			sqlite3_column_int64(st, 3), sqlite3_column_int64(st, 4)};
		(*n)++;
	}
	return store_rows_end(&q, rc, "list sizing models");
}

int store_sizing_list(struct store *s, int64_t scenario_id,
		      int (*cb)(void *ctx, const struct store_sizing *z), void *ctx, struct err *e)
{
	struct store_rows q;
	struct store_sizing_model *models = NULL;
	char **names = NULL;
	size_t nnames = 0;
	int rc =
		store_rows_begin(s, &q,
				 "SELECT z.id, z.scenario_id, c.trace_id, z.policy, z.slo, "
				 "z.seed_lo, z.seed_hi, z.shrink, z.nodes_full, z.nodes_min, "
				 "z.gpus_full, z.gpus_min, z.gpus_retired, z.usd_per_year, "
				 "z.price_tier, z.prices, z.probes, z.created_at, z.checked_above, "
				 "z.miss_above_nodes, z.miss_above FROM sizings z "
				 "JOIN scenarios c ON c.id = z.scenario_id WHERE ?1 < 0 OR "
				 "z.scenario_id = ?1 ORDER BY z.id",
				 &scenario_id, e);
	sqlite3_stmt *st = q.st;
	while (!rc && store_rows_next(&q)) {
		int i = 0;
		struct store_sizing z;
		z.id = sqlite3_column_int64(st, i++);
		z.scenario_id = sqlite3_column_int64(st, i++);
		z.trace_id = sqlite3_column_int64(st, i++);
		z.policy = (const char *)sqlite3_column_text(st, i++);
		z.slo = (const char *)sqlite3_column_text(st, i++);
		z.seed_lo = (uint64_t)sqlite3_column_int64(st, i++);
		z.seed_hi = (uint64_t)sqlite3_column_int64(st, i++);
		z.shrink = (const char *)sqlite3_column_text(st, i++);
		z.nodes_full = sqlite3_column_int64(st, i++);
		z.nodes_min = sqlite3_column_int64(st, i++);
		z.gpus_full = sqlite3_column_int64(st, i++);
		z.gpus_min = sqlite3_column_int64(st, i++);
		z.gpus_retired = sqlite3_column_int64(st, i++);
		z.usd_per_year = sqlite3_column_double(st, i++);
		z.price_tier = (const char *)sqlite3_column_text(st, i++);
		z.prices = (const char *)sqlite3_column_text(st, i++);
		z.probes = sqlite3_column_int64(st, i++);
		z.created_at = sqlite3_column_int64(st, i++);
		z.checked_above = sqlite3_column_int64(st, i++);
		z.miss_above_nodes = sqlite3_column_int64(st, i++);
		z.miss_above = (const char *)sqlite3_column_text(st, i++);
		for (size_t k = 0; k < nnames; k++)
			free(names[k]);
		rc = list_models(s, z.id, &models, &z.nmodels, &names, e);
		nnames = z.nmodels;
		z.models = models;
		if (!rc)
			rc = cb(ctx, &z);
	}
	for (size_t k = 0; k < nnames; k++)
		free(names[k]);
	free(names);
	free(models);
	return store_rows_end(&q, rc, "list sizings");
}
