/*
 * store-answer.c — what a verdict's sweep keeps in task stores (store.h): its answers on
 * block resamples of a trace (resample_answers), one row per resample and policy, what a
 * task of the sweep stores and the verdict reads back from the sweep's directory; and the
 * runs of its searches on the trace itself (trace_probes, a row a run, and
 * trace_probe_figures, a row a figure of one), which the verdict keeps in the directory's
 * trace.db so that, asked again, it replays none of them.
 *
 * These tables are not ones a migration seals (a store never holds them; STORE_TASK_SCHEMA
 * makes them), so each row carries its own checksum in rsum, computed as a sealed row's is
 * (store_row_sum over its other cells), written with the row (seal_row) and checked at every
 * read (row_intact).
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "store-int.h"

#define ANSWER_COLS                                                                                \
	"id, trace_id, scen_key, verdict_key, resample, policy, usd_year, growth, buy_usd_year, "  \
	"rsum"

/* Set the checksum of the row of table just inserted, from the row as the store holds it
 * (its columns cols, id first and rsum among them); what names the row in an error. */
static int seal_row(struct store *s, const char *table, const char *cols, const char *what,
		    struct err *e)
{
	int64_t id = sqlite3_last_insert_rowid(s->db);
	struct sbuf sql = SBUF_INIT, why = SBUF_INIT;
	sqlite3_stmt *st = NULL;
	uint64_t sum = 0;
	int col = -1, rc;
	sbuf_init(&sql);
	sbuf_init(&why);
	sbuf_printf(&why, "seal %s", what);
	sbuf_printf(&sql, "SELECT %s FROM %s WHERE id = ?", cols, table);
	if ((rc = store_prep(s, sql.s, &st, e)))
		goto out;
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) == SQLITE_ROW)
		sum = store_row_sum(st, 0, &col);
	sqlite3_finalize(st);
	if (col < 0) {
		rc = store_sqlerr(s, e, why.s);
		goto out;
	}
	sbuf_reset(&sql);
	sbuf_printf(&sql, "UPDATE %s SET rsum = ? WHERE id = ?", table);
	if ((rc = store_prep(s, sql.s, &st, e)))
		goto out;
	STORE_BIND(st, STORE_I((int64_t)sum), STORE_I(id));
	if (sqlite3_step(st) != SQLITE_DONE)
		rc = store_sqlerr(s, e, why.s);
	sqlite3_finalize(st);
out:
	sbuf_release(&sql);
	sbuf_release(&why);
	return rc;
}

int store_answer_put(struct store *s, const struct store_answer *a, struct err *e)
{
	sqlite3_stmt *st = NULL;
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
	return rc ? rc : seal_row(s, "resample_answers", ANSWER_COLS, "resample answer", e);
}

static double real_or_nan(sqlite3_stmt *st, int col)
{
	return sqlite3_column_type(st, col) == SQLITE_NULL ? NAN : sqlite3_column_double(st, col);
}

/* Does the row st is on (its id first) match its checksum? */
static int row_sum_ok(sqlite3_stmt *st)
{
	int col = -1;
	uint64_t sum = store_row_sum(st, 0, &col);
	return col >= 0 && sqlite3_column_type(st, col) != SQLITE_NULL &&
	       (uint64_t)sqlite3_column_int64(st, col) == sum;
}

/* VF_ESTORE unless the row st is on matches its checksum. */
static int row_intact(struct store *s, sqlite3_stmt *st, struct err *e)
{
	if (!row_sum_ok(st))
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

/* ---- the runs of a verdict's searches on its trace ---- */

#define PROBE_COLS                                                                                 \
	"id, trace_id, scen_key, verdict_key, search, growth, policy, step, seed, w0, w1, "        \
	"gave_up, events, figures, rsum"
#define FIGURE_COLS "id, probe_id, key, value, rsum"

int store_probe_put(struct store *s, const struct store_probe *p, struct err *e)
{
	sqlite3_stmt *st = NULL;
	int rc = store_prep(s,
			    "INSERT INTO trace_probes(trace_id, scen_key, verdict_key, search, "
			    "growth, policy, step, seed, w0, w1, gave_up, events, figures) VALUES "
			    "(?,?,?,?,?,?,?,?,?,?,?,?,?)",
			    &st, e);
	if (rc)
		return rc;
	STORE_BIND(st, STORE_I(p->trace_id), STORE_T(p->scen_key), STORE_T(p->verdict_key),
		   STORE_T(p->search), STORE_R(p->growth), STORE_T(p->policy), STORE_I(p->step),
		   STORE_I((int64_t)p->seed), STORE_I(p->w0), STORE_I(p->w1), STORE_I(p->gave_up),
		   STORE_I(p->events), STORE_I((int64_t)p->nfig));
	if (sqlite3_step(st) != SQLITE_DONE)
		rc = store_sqlerr(s, e, "add trace probe");
	sqlite3_finalize(st);
	if (rc || (rc = seal_row(s, "trace_probes", PROBE_COLS, "trace probe", e)))
		return rc;
	int64_t id = sqlite3_last_insert_rowid(s->db);
	if ((rc = store_prep(s,
			     "INSERT INTO trace_probe_figures(probe_id, key, value) VALUES (?,?,?)",
			     &st, e)))
		return rc;
	for (size_t i = 0; i < p->nfig && !rc; i++) {
		/* a NaN is bound as NULL */
		STORE_BIND(st, STORE_I(id), STORE_T(p->fig_key[i]), STORE_R(p->fig[i]));
		if (sqlite3_step(st) != SQLITE_DONE)
			rc = store_sqlerr(s, e, "add trace probe figure");
		sqlite3_reset(st);
		if (!rc)
			rc = seal_row(s, "trace_probe_figures", FIGURE_COLS, "trace probe figure",
				      e);
	}
	sqlite3_finalize(st);
	return rc;
}

int store_probes_clear(struct store *s, struct err *e)
{
	int rc = store_exec(s, "DELETE FROM trace_probe_figures", e);
	return rc ? rc : store_exec(s, "DELETE FROM trace_probes", e);
}

/* Has s the table name? */
static int has_table(struct store *s, const char *name, int64_t *has, struct err *e)
{
	sqlite3_stmt *st;
	int rc = store_prep(
		s, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?", &st, e);
	if (rc)
		return rc;
	STORE_BIND(st, STORE_T(name));
	*has = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
	sqlite3_finalize(st);
	return 0;
}

int store_probe_list(struct store *s, int (*cb)(void *ctx, const struct store_probe *p), void *ctx,
		     struct err *e)
{
	sqlite3_stmt *pr = NULL, *fr = NULL;
	const char **keys = NULL;
	double *fig = NULL;
	size_t cap = 0;
	int64_t has = 0;
	int rc = has_table(s, "trace_probes", &has, e), pstep = SQLITE_DONE, fstep = SQLITE_DONE;
	if (rc || !has)
		return rc;
	if ((rc = store_prep(s, "SELECT " PROBE_COLS " FROM trace_probes ORDER BY id", &pr, e)) ||
	    (rc = store_prep(
		     s, "SELECT " FIGURE_COLS " FROM trace_probe_figures ORDER BY probe_id, id",
		     &fr, e)))
		goto out;
	fstep = sqlite3_step(fr);
	while (!rc && (pstep = sqlite3_step(pr)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(pr, 0), nfig = sqlite3_column_int64(pr, 13);
		size_t n = 0;
		if (!row_sum_ok(pr) || nfig < 0) {
			rc = err_set(e, VF_ESTORE,
				     "%s: trace probe %" PRId64 " does not match its checksum",
				     s->path, id);
			break;
		}
		/* its figures: the rows of probe_id id, each intact, as many as it says */
		for (; fstep == SQLITE_ROW && sqlite3_column_int64(fr, 1) <= id;
		     fstep = sqlite3_step(fr)) {
			if (!row_sum_ok(fr) || sqlite3_column_int64(fr, 1) < id ||
			    sqlite3_column_type(fr, 2) != SQLITE_TEXT) {
				rc = err_set(e, VF_ESTORE,
					     "%s: trace probe figure %" PRId64
					     " does not match its checksum or its probe",
					     s->path, (int64_t)sqlite3_column_int64(fr, 0));
				break;
			}
			xgrow(&keys, &cap, n + 1, sizeof *keys);
			fig = xrealloc(fig, cap * sizeof *fig);
			keys[n] = xstrdup((const char *)sqlite3_column_text(fr, 2));
			fig[n++] = real_or_nan(fr, 3);
		}
		if (!rc && n != (size_t)nfig)
			rc = err_set(e, VF_ESTORE,
				     "%s: trace probe %" PRId64 " has %zu of its %" PRId64
				     " figures",
				     s->path, id, n, nfig);
		if (!rc) {
			struct store_probe p = {
				.trace_id = sqlite3_column_int64(pr, 1),
				.scen_key = (const char *)sqlite3_column_text(pr, 2),
				.verdict_key = (const char *)sqlite3_column_text(pr, 3),
				.search = (const char *)sqlite3_column_text(pr, 4),
				.growth = sqlite3_column_double(pr, 5),
				.policy = (const char *)sqlite3_column_text(pr, 6),
				.step = sqlite3_column_int64(pr, 7),
				.seed = (uint64_t)sqlite3_column_int64(pr, 8),
				.w0 = sqlite3_column_int64(pr, 9),
				.w1 = sqlite3_column_int64(pr, 10),
				.gave_up = (int)sqlite3_column_int64(pr, 11),
				.events = sqlite3_column_int64(pr, 12),
				.nfig = n,
				.fig_key = keys,
				.fig = fig};
			rc = cb(ctx, &p);
		}
		for (size_t i = 0; i < n; i++)
			free((char *)keys[i]);
	}
	if (!rc && (pstep != SQLITE_DONE || (fstep != SQLITE_DONE && fstep != SQLITE_ROW)))
		rc = store_sqlerr(s, e, "read trace probes");
	else if (!rc && fstep == SQLITE_ROW)
		rc = err_set(e, VF_ESTORE, "%s: trace probe figure %" PRId64 " of no probe",
			     s->path, (int64_t)sqlite3_column_int64(fr, 0));
out:
	sqlite3_finalize(pr);
	sqlite3_finalize(fr);
	free(keys);
	free(fig);
	return rc;
}
