/*
 * store-answer.c — a verdict's answers on block resamples of a trace (resample_answers, a
 * table of task stores only), one row per resample and policy: what a task of a verdict's
 * sweep stores and what the verdict reads back from its sweep's directory (store.h).
 *
 * The table is not one a migration seals (a store never holds it; STORE_TASK_SCHEMA makes
 * it), so each row carries its own checksum in rsum, computed as a sealed row's is
 * (store_row_sum over its other cells), written with the row and checked at every read.
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "store-int.h"

#define ANSWER_COLS                                                                                \
	"id, trace_id, scen_key, verdict_key, resample, policy, usd_year, growth, buy_usd_year, "  \
	"rsum"

int store_answer_put(struct store *s, const struct store_answer *a, struct err *e)
{
	sqlite3_stmt *st = NULL, *rd = NULL;
	int rc = store_prep(s,
			    "INSERT INTO resample_answers(trace_id, scen_key, verdict_key, "
			    "resample, policy, usd_year, growth, buy_usd_year) VALUES "
			    "(?,?,?,?,?,?,?,?)",
			    &st, e);
	if (rc)
		return rc;
	/* a NaN is bound as NULL */
	STORE_BIND(st, STORE_I(a->trace_id), STORE_T(a->scen_key), STORE_T(a->verdict_key),
		   STORE_I(a->resample), STORE_T(a->policy), STORE_R(a->usd_year),
		   STORE_R(a->growth), STORE_R(a->buy_usd_year));
	if (sqlite3_step(st) != SQLITE_DONE)
		rc = store_sqlerr(s, e, "add resample answer");
	sqlite3_finalize(st);
	int64_t id = sqlite3_last_insert_rowid(s->db);
	/* its checksum, from the row as the store holds it */
	if (rc || (rc = store_prep(s, "SELECT " ANSWER_COLS " FROM resample_answers WHERE id = ?",
				   &rd, e)))
		return rc;
	sqlite3_bind_int64(rd, 1, id);
	int col = -1;
	uint64_t sum = 0;
	if (sqlite3_step(rd) == SQLITE_ROW)
		sum = store_row_sum(rd, 0, &col);
	sqlite3_finalize(rd);
	if (col < 0)
		return store_sqlerr(s, e, "seal resample answer");
	if ((rc = store_prep(s, "UPDATE resample_answers SET rsum = ? WHERE id = ?", &st, e)))
		return rc;
	STORE_BIND(st, STORE_I((int64_t)sum), STORE_I(id));
	if (sqlite3_step(st) != SQLITE_DONE)
		rc = store_sqlerr(s, e, "seal resample answer");
	sqlite3_finalize(st);
	return rc;
}

static double real_or_nan(sqlite3_stmt *st, int col)
{
	return sqlite3_column_type(st, col) == SQLITE_NULL ? NAN : sqlite3_column_double(st, col);
}

/* VF_ESTORE unless the row st is on matches its checksum. */
static int row_intact(struct store *s, sqlite3_stmt *st, struct err *e)
{
	int col = -1;
	uint64_t sum = store_row_sum(st, 0, &col);
	if (col < 0 || sqlite3_column_type(st, col) == SQLITE_NULL ||
	    (uint64_t)sqlite3_column_int64(st, col) != sum)
		return err_set(e, VF_ESTORE,
			       "%s: resample answer %" PRId64
			       " does not match its checksum: the task store was damaged or "
			       "changed outside voidfit (run its task again)",
			       s->path, (int64_t)sqlite3_column_int64(st, 0));
	return 0;
}

int store_answer_get(struct store *s, struct store_answer *a, int *found, struct err *e)
{
	sqlite3_stmt *st;
	*found = 0;
	int rc = store_prep(s,
			    "SELECT " ANSWER_COLS " FROM resample_answers WHERE trace_id = ? AND "
			    "scen_key = ? AND verdict_key = ? AND resample = ? AND policy = ?",
			    &st, e);
	if (rc)
		return rc;
	STORE_BIND(st, STORE_I(a->trace_id), STORE_T(a->scen_key), STORE_T(a->verdict_key),
		   STORE_I(a->resample), STORE_T(a->policy));
	int step = sqlite3_step(st);
	if (step == SQLITE_ROW && !(rc = row_intact(s, st, e))) {
		*found = 1;
		a->usd_year = real_or_nan(st, 6);
		a->growth = real_or_nan(st, 7);
		a->buy_usd_year = real_or_nan(st, 8);
	} else if (step != SQLITE_ROW && step != SQLITE_DONE) {
		rc = store_sqlerr(s, e, "read resample answers");
	}
	sqlite3_finalize(st);
	return rc;
}

int store_answers_count(struct store *s, int64_t *n, struct err *e)
{
	*n = 0;
	int rc = store_query_int(s,
				 "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND "
				 "name = 'resample_answers'",
				 n, e);
	if (!rc && *n)
		rc = store_query_int(s, "SELECT count(*) FROM resample_answers", n, e);
	return rc;
}

int store_answers_verify(struct store *s, int64_t *n, struct err *e)
{
	sqlite3_stmt *st;
	int64_t has = 0;
	*n = 0;
	int rc = store_answers_count(s, &has, e);
	if (rc || !has ||
	    (rc = store_prep(s, "SELECT " ANSWER_COLS " FROM resample_answers", &st, e)))
		return rc;
	int step;
	while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW)
		if (!(rc = row_intact(s, st, e)))
			(*n)++;
	if (!rc && step != SQLITE_DONE)
		rc = store_sqlerr(s, e, "read resample answers");
	sqlite3_finalize(st);
	return rc;
}
