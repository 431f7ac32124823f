/*
 * store-check.c — store_check: verify everything a store holds can be read back and
 * matches what was recorded when it was written: the header, schema objects the migrations
 * do not make (then nothing else is read), SQLite's integrity, a task store's task row, the
 * schema objects against those the migrations make, foreign keys, the row checksums of
 * the sealed tables (store-seal.c) and their counts, every file's bytes, every trace's
 * jobs and nodes, every run's blocks, and the import counts of every file.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sha256.h"
#include "store-int.h"

/* Problems of one table reported one by one; past this many, one line counts the rest. */
#define CHECK_SHOW_ROWS 10

struct checker {
	struct store *s;
	void (*report)(void *ctx, int ok, const char *what, const char *detail);
	void *ctx;
	int nbad;
};

static void say(struct checker *c, int ok, const char *what, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void say(struct checker *c, int ok, const char *what, const char *fmt, ...)
{
	char msg[1400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	c->nbad += !ok;
	if (c->report)
		c->report(c->ctx, ok, what, msg);
}

/* Prepare sql into *st: 0, or 1 when it cannot be, said as a problem of what. */
static int check_prep(struct checker *c, const char *what, const char *sql, sqlite3_stmt **st)
{
	struct err e = {0};
	if (!store_prep(c->s, sql, st, &e))
		return 0;
	say(c, 0, what, "%s", e.msg);
	return 1;
}

/* A statement that failed while stepping (during names it in SQLite's terms), said as a
 * problem of what. */
static void say_sqlerr(struct checker *c, const char *what, const char *during)
{
	struct err e = {0};
	store_sqlerr(c->s, &e, during);
	say(c, 0, what, "%s", e.msg);
}

static void check_integrity(struct checker *c)
{
	sqlite3_stmt *st;
	if (check_prep(c, "sqlite integrity_check", "PRAGMA integrity_check", &st))
		return;
	int step, n = 0, ok = 0;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		const char *r = (const char *)sqlite3_column_text(st, 0);
		if (n++ == 0 && r && !strcmp(r, "ok"))
			ok = 1;
		else if (n <= CHECK_SHOW_ROWS)
			say(c, 0, "sqlite integrity_check", "%s", r ? r : "?");
	}
	if (step != SQLITE_DONE) {
		say_sqlerr(c, "sqlite integrity_check", "integrity_check");
	} else if (ok) {
		say(c, 1, "sqlite integrity_check", "ok");
	}
	sqlite3_finalize(st);
}

static void check_header(struct checker *c)
{
	sqlite3_stmt *st;
	if (check_prep(c, "store header",
		       "SELECT (SELECT application_id FROM pragma_application_id), "
		       "(SELECT user_version FROM pragma_user_version)",
		       &st))
		return;
	if (sqlite3_step(st) == SQLITE_ROW) {
		int64_t app = sqlite3_column_int64(st, 0), ver = sqlite3_column_int64(st, 1);
		say(c, app == STORE_APP_ID, "application_id", "0x%08llx%s", (long long)app,
		    app == STORE_APP_ID ? " (voidfit)" : ", not voidfit's");
		say(c, ver == store_schema_version(), "schema version", "%lld%s", (long long)ver,
		    ver == store_schema_version() ? "" : ", not this voidfit's");
	} else {
		say_sqlerr(c, "store header", "header");
	}
	sqlite3_finalize(st);
}

/* store_file_list: the file's bytes are there, as many as were imported, with its sha256
 * (ctx: a struct filecheck). */
struct filecheck {
	struct checker *c;
	int task; /* a task store: provenance only, no bytes */
};

static int check_file(void *ctx, const struct store_file *f)
{
	const struct filecheck *k = ctx;
	struct checker *c = k->c;
	struct err e = {0};
	uint8_t sha[32];
	int64_t len;
	char hex[65], what[300];
	snprintf(what, sizeof what, "file '%s'", f->name);
	if (k->task)
		say(c, 1, what, "provenance only: a task store keeps no bytes");
	else if (store_raw_digest(c->s, f->id, sha, &len, &e))
		say(c, 0, what, "%s", e.msg);
	else if (len != f->size)
		say(c, 0, what, "%lld bytes stored, %lld imported", (long long)len,
		    (long long)f->size);
	else if (memcmp(sha, f->sha256, 32))
		say(c, 0, what, "sha256 of the stored bytes does not match");
	else
		say(c, 1, what, "%lld bytes, sha256 %.12s", (long long)len,
		    (sha256_hex(sha, hex), hex));
	return 0;
}

static void check_files(struct checker *c, int task)
{
	struct filecheck k = {c, task};
	struct err e = {0};
	if (store_file_list(c->s, -1, check_file, &k, &e))
		say(c, 0, "files", "%s", e.msg);
}

/* store_trace_list: the trace's jobs and nodes load, as many as were recorded. */
static int check_trace(void *ctx, const struct store_trace_info *t)
{
	struct checker *c = ctx;
	struct err e = {0};
	struct job_set js = {0};
	char what[300];
	snprintf(what, sizeof what, "trace '%s'", t->name);
	if (store_trace_load(c->s, t->id, &js, &e))
		say(c, 0, what, "%s", e.msg);
	else if ((int64_t)js.njobs != t->njobs || (int64_t)js.nnodes != t->nnodes)
		say(c, 0, what, "%zu jobs and %zu nodes stored, %lld and %lld recorded", js.njobs,
		    js.nnodes, (long long)t->njobs, (long long)t->nnodes);
	else
		say(c, 1, what, "%zu jobs, %zu nodes", js.njobs, js.nnodes);
	job_set_release(&js);
	return 0;
}

static void check_traces(struct checker *c)
{
	struct err e = {0};
	if (store_trace_list(c->s, check_trace, c, &e))
		say(c, 0, "traces", "%s", e.msg);
}

static void check_runs(struct checker *c)
{
	sqlite3_stmt *st;
	struct err e = {0};
	if (check_prep(c, "runs", "SELECT id FROM runs ORDER BY id", &st))
		return;
	int step, n = 0, bad = 0;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0);
		for (int which = 0; which < 2; which++) {
			void *p;
			size_t len;
			if (store_run_data(c->s, id, which, &p, &len, &e)) {
				char what[64];
				snprintf(what, sizeof what, "run %lld", (long long)id);
				say(c, 0, what, "%s", e.msg);
				bad++;
			}
			free(p);
		}
		n++;
	}
	if (step != SQLITE_DONE) {
		say_sqlerr(c, "runs", "runs");
	} else if (!bad) {
		say(c, 1, "runs", "%d, their series and results readable", n);
	}
	sqlite3_finalize(st);
}

/* Every table and index the migrations make is there, as they make it. */
static void check_schema(struct checker *c, sqlite3 *ref)
{
	sqlite3_stmt *want, *have;
	if (sqlite3_prepare_v2(ref,
			       "SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE "
			       "'sqlite_%' ORDER BY type DESC, name",
			       -1, &want, NULL) != SQLITE_OK) {
		say(c, 0, "schema", "%s", sqlite3_errmsg(ref));
		return;
	}
	if (check_prep(c, "schema", "SELECT sql FROM sqlite_master WHERE type = ? AND name = ?",
		       &have)) {
		sqlite3_finalize(want);
		return;
	}
	int n = 0, bad = 0;
	while (sqlite3_step(want) == SQLITE_ROW) {
		const char *type = (const char *)sqlite3_column_text(want, 0);
		const char *name = (const char *)sqlite3_column_text(want, 1);
		const char *sql = (const char *)sqlite3_column_text(want, 2);
		char what[160];
		snprintf(what, sizeof what, "schema %s '%s'", type, name);
		sqlite3_bind_text(have, 1, type, -1, SQLITE_STATIC);
		sqlite3_bind_text(have, 2, name, -1, SQLITE_STATIC);
		int step = sqlite3_step(have);
		const char *got =
			step == SQLITE_ROW ? (const char *)sqlite3_column_text(have, 0) : NULL;
		if (step == SQLITE_DONE &&
		    (!strcmp(name, "task") || !strcmp(name, "resample_answers") ||
		     !strcmp(name, "trace_probes") ||
		     !strcmp(name, "trace_probe_figures"))) { /* a task store's only */
			sqlite3_reset(have);
			continue;
		}
		n++;
		if (step != SQLITE_ROW && step != SQLITE_DONE) {
			say_sqlerr(c, what, "schema");
			bad++;
		} else if (step == SQLITE_DONE) {
			say(c, 0, what, "missing");
			bad++;
		} else if (!got || !sql || !store_sql_same(got, sql)) {
			say(c, 0, what, "differs from schema version %d", store_schema_version());
			bad++;
		}
		sqlite3_reset(have);
	}
	if (!bad)
		say(c, 1, "schema", "%d tables and indexes, as schema version %d makes them", n,
		    store_schema_version());
	sqlite3_finalize(want);
	sqlite3_finalize(have);
}

/* Every row's trace, file and run is there. */
static void check_foreign_keys(struct checker *c)
{
	sqlite3_stmt *st;
	if (check_prep(c, "foreign keys", "PRAGMA foreign_key_check", &st))
		return;
	int step, n = 0;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		if (++n > CHECK_SHOW_ROWS)
			continue;
		char what[160];
		snprintf(what, sizeof what, "table %s row %lld", sqlite3_column_text(st, 0),
			 (long long)sqlite3_column_int64(st, 1));
		say(c, 0, what, "refers to a row of %s that is not there",
		    sqlite3_column_text(st, 2));
	}
	if (step != SQLITE_DONE) {
		say_sqlerr(c, "foreign keys", "foreign_key_check");
	} else if (n > CHECK_SHOW_ROWS) {
		say(c, 0, "foreign keys", "%d more rows refer to rows that are not there",
		    n - CHECK_SHOW_ROWS);
	} else if (!n) {
		say(c, 1, "foreign keys", "every row's trace, file and run is there");
	}
	sqlite3_finalize(st);
}

/* "row R (col v, col v, col v)": a row of st (rowid in column 0) named for a message. */
static void row_name(sqlite3_stmt *st, char *buf, size_t len)
{
	int n = snprintf(buf, len, "row %lld (", (long long)sqlite3_column_int64(st, 0));
	for (int i = 1, k = 0; i < sqlite3_column_count(st) && k < 3 && n < (int)len; i++) {
		int type = sqlite3_column_type(st, i);
		if (type == SQLITE_BLOB || type == SQLITE_NULL ||
		    !strcmp(sqlite3_column_name(st, i), "rsum"))
			continue;
		n += snprintf(buf + n, len - (size_t)n,
			      type == SQLITE_TEXT ? "%s%s '%.40s'" : "%s%s %s", k++ ? ", " : "",
			      sqlite3_column_name(st, i), (const char *)sqlite3_column_text(st, i));
	}
	if (n < (int)len)
		snprintf(buf + n, len - (size_t)n, ")");
}

struct badrows {
	struct checker *c;
	const char *what;
	int64_t n;
};

static void bad_row(void *ctx, sqlite3_stmt *st, int sealed)
{
	struct badrows *b = ctx;
	if (++b->n <= CHECK_SHOW_ROWS) {
		char row[300];
		row_name(st, row, sizeof row);
		say(b->c, 0, b->what, "%s: %s", row,
		    sealed ? "its checksum does not match" : "has no checksum");
	}
}

/* The rows of one sealed table against their checksums and the table's count and total. */
static void check_table(struct checker *c, const char *table, int64_t nrows, uint64_t total)
{
	struct err e = {0};
	char what[64];
	int64_t n;
	uint64_t sum;
	snprintf(what, sizeof what, "table %s", table);
	struct badrows b = {c, what, 0};
	if (store_seal_scan(c->s, table, 1, bad_row, &b, &n, &sum, &e))
		say(c, 0, what, "%s", e.msg);
	else if (b.n > CHECK_SHOW_ROWS)
		say(c, 0, what, "%lld more rows do not match their checksum",
		    (long long)(b.n - CHECK_SHOW_ROWS));
	if (e.code) {
	} else if (n != nrows) {
		say(c, 0, what, "%lld rows, %lld written by voidfit (rows were %s)", (long long)n,
		    (long long)nrows, n < nrows ? "deleted" : "added");
	} else if (sum != total) {
		say(c, 0, what, "%lld rows, but not those voidfit wrote (rows were replaced)",
		    (long long)n);
	} else if (!b.n) {
		say(c, 1, what, "%lld rows, checksums match", (long long)n);
	}
}

/* Every table the migrations seal has its row in row_sums, and its rows match it. */
static void check_row_sums(struct checker *c, sqlite3 *ref)
{
	sqlite3_stmt *want, *have;
	if (sqlite3_prepare_v2(ref, "SELECT tbl FROM row_sums ORDER BY rowid", -1, &want, NULL) !=
	    SQLITE_OK) {
		say(c, 0, "row sums", "%s", sqlite3_errmsg(ref));
		return;
	}
	if (check_prep(c, "row sums", "SELECT nrows, total FROM row_sums WHERE tbl = ?", &have)) {
		sqlite3_finalize(want);
		return;
	}
	while (sqlite3_step(want) == SQLITE_ROW) {
		const char *table = (const char *)sqlite3_column_text(want, 0);
		sqlite3_bind_text(have, 1, table, -1, SQLITE_STATIC);
		int step = sqlite3_step(have);
		if (step == SQLITE_ROW) {
			check_table(c, table, sqlite3_column_int64(have, 0),
				    (uint64_t)sqlite3_column_int64(have, 1));
		} else {
			char what[64];
			snprintf(what, sizeof what, "table %s", table);
			if (step == SQLITE_DONE)
				say(c, 0, what, "not in row_sums: its rows cannot be checked");
			else
				say_sqlerr(c, what, "row sums");
		}
		sqlite3_reset(have);
	}
	sqlite3_finalize(want);
	sqlite3_finalize(have);
}

/* Every file's rows read = accepted + quarantined, and its quarantined rows are there. */
static void check_counts(struct checker *c)
{
	sqlite3_stmt *st;
	if (check_prep(c, "counts",
		       "SELECT f.name, f.rows_read, f.rows_accepted, f.rows_quarantined, "
		       "(SELECT count(*) FROM quarantine q WHERE q.file_id = f.id) "
		       "FROM files f ORDER BY f.id",
		       &st))
		return;
	int step, n = 0, bad = 0;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t rd = sqlite3_column_int64(st, 1), acc = sqlite3_column_int64(st, 2),
			q = sqlite3_column_int64(st, 3), inq = sqlite3_column_int64(st, 4);
		char what[300];
		snprintf(what, sizeof what, "file '%s'", sqlite3_column_text(st, 0));
		n++;
		if (rd != acc + q)
			say(c, 0, what, "%lld rows read, but %lld accepted + %lld quarantined",
			    (long long)rd, (long long)acc, (long long)q);
		else if (inq != q)
			say(c, 0, what, "%lld rows quarantined, %lld in the quarantine table",
			    (long long)q, (long long)inq);
		else
			continue;
		bad++;
	}
	if (step != SQLITE_DONE) {
		say_sqlerr(c, "counts", "counts");
	} else if (!bad) {
		say(c, 1, "counts",
		    "%d files: rows read = accepted + quarantined, quarantined rows all there", n);
	}
	sqlite3_finalize(st);
}

static void say_foreign(void *ctx, const char *type, const char *name, const char *why)
{
	char what[160];
	snprintf(what, sizeof what, "schema %s '%.100s'", type, name);
	say(ctx, 0, what, "%s", why);
}

/* Objects voidfit does not make: listed, and nothing else is read (a view in a table's
 * place can loop forever, a trigger can rewrite what is read). 1 if there are any. */
static int check_foreign(struct checker *c)
{
	struct err e = {0};
	int64_t ver = 0;
	int n = 0;
	if (store_query_int(c->s, "PRAGMA user_version", &ver, &e) ||
	    store_schema_foreign(c->s, (int)ver, say_foreign, c, &n, &e)) {
		say(c, 0, "schema", "%s", e.msg);
		return 1;
	}
	if (n)
		say(c, 0, "store", "holds %d schema object%s voidfit does not make: no table read",
		    n, n == 1 ? "" : "s");
	return n > 0;
}

/* A task store (a sweep task's, store-merge.c): its task row says it finished, with as
 * many runs as it holds. 1 if s is one. */
static int count_probe(void *ctx, const struct store_probe *p)
{
	(void)p;
	(*(int64_t *)ctx)++;
	return 0;
}

static int check_task(struct checker *c)
{
	sqlite3_stmt *st;
	struct err e = {0};
	int64_t has = 0;
	if (store_query_int(c->s,
			    "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND "
			    "name = 'task'",
			    &has, &e) ||
	    !has)
		return 0;
	/* a verdict's task holds answers, each checked against its checksum */
	int64_t answers = 0;
	if (store_answers_verify(c->s, &answers, &e))
		say(c, 0, "resample answers", "%s", e.msg);
	else if (answers)
		say(c, 1, "resample answers", "%lld, checksums match", (long long)answers);
	/* a verdict's sweep's trace.db holds the runs of its searches, each checked alike */
	int64_t probes = 0;
	if (store_probe_list(c->s, count_probe, &probes, &e))
		say(c, 0, "trace probes", "%s", e.msg);
	else if (probes)
		say(c, 1, "trace probes", "%lld, checksums match", (long long)probes);
	if (check_prep(c, "task store",
		       "SELECT t.name, k.runs, k.finished_at, (SELECT count(*) FROM runs), "
		       "(SELECT count(*) FROM task) FROM task k JOIN traces t ON t.id = k.trace_id",
		       &st))
		return 1;
	if (sqlite3_step(st) != SQLITE_ROW)
		say(c, 0, "task store", "no task row of a trace it holds");
	else if (sqlite3_column_int64(st, 4) != 1)
		say(c, 0, "task store", "%lld task rows, one expected",
		    (long long)sqlite3_column_int64(st, 4));
	else if (sqlite3_column_type(st, 2) == SQLITE_NULL)
		say(c, 0, "task store", "unfinished (the task did not end): merge refuses it");
	else if (sqlite3_column_int64(st, 1) != sqlite3_column_int64(st, 3) + answers)
		say(c, 0, "task store", "%lld runs, its task row says %lld",
		    (long long)(sqlite3_column_int64(st, 3) + answers),
		    (long long)sqlite3_column_int64(st, 1));
	else if (answers)
		say(c, 1, "task store", "of trace '%s', finished, a verdict's task: %lld answers",
		    sqlite3_column_text(st, 0), (long long)answers);
	else
		say(c, 1, "task store", "of trace '%s', finished, %lld runs",
		    sqlite3_column_text(st, 0), (long long)sqlite3_column_int64(st, 3));
	sqlite3_finalize(st);
	return 1;
}

int store_check(struct store *s,
		void (*report)(void *ctx, int ok, const char *what, const char *detail), void *ctx,
		int *nbad, struct err *e)
{
	(void)e;
	struct checker c = {s, report, ctx, 0};
	struct err re = {0};
	sqlite3 *ref = NULL;
	/* Checking reads every table itself and says what is wrong with each: verifying a
	 * sealed table before it is read (a store opened without STORE_CHECK) would stop at
	 * its first bad row with one line and skip its count and total. */
	int checking = s->checking;
	s->checking = 1;
	check_header(&c);
	if (check_foreign(&c)) {
		*nbad = c.nbad;
		s->checking = checking;
		return 0;
	}
	check_integrity(&c);
	int task = check_task(&c);
	if (store_reference_schema(store_schema_version(), &ref, &re)) {
		say(&c, 0, "schema", "%s", re.msg);
	} else {
		check_schema(&c, ref);
		check_row_sums(&c, ref);
	}
	sqlite3_close(ref);
	check_foreign_keys(&c);
	check_counts(&c);
	check_files(&c, task);
	check_traces(&c);
	check_runs(&c);
	*nbad = c.nbad;
	s->checking = checking;
	return 0;
}
