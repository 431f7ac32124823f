/*
 * store-check.c — store_check: verify everything a store holds can be read back and
 * matches what was recorded when it was written.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sha256.h"
#include "store-int.h"

struct checker {
	struct store *s;
	void (*report)(void *ctx, int ok, const char *what);
	void *ctx;
	int nbad;
};

static void say(struct checker *c, int ok, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void say(struct checker *c, int ok, const char *fmt, ...)
{
	char msg[1400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	c->nbad += !ok;
	if (c->report)
		c->report(c->ctx, ok, msg);
}

static void check_integrity(struct checker *c)
{
	sqlite3_stmt *st;
	struct err e = {0};
	if (store_prep(c->s, "PRAGMA integrity_check", &st, &e)) {
		say(c, 0, "sqlite integrity_check: %s", e.msg);
		return;
	}
	int step, n = 0, ok = 0;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		const char *r = (const char *)sqlite3_column_text(st, 0);
		if (n++ == 0 && r && !strcmp(r, "ok"))
			ok = 1;
		else if (n <= 10)
			say(c, 0, "sqlite integrity_check: %s", r ? r : "?");
	}
	if (step != SQLITE_DONE) {
		store_sqlerr(c->s, &e, "integrity_check");
		say(c, 0, "sqlite integrity_check: %s", e.msg);
	} else if (ok) {
		say(c, 1, "sqlite integrity_check");
	}
	sqlite3_finalize(st);
}

static void check_header(struct checker *c)
{
	sqlite3_stmt *st;
	struct err e = {0};
	if (store_prep(c->s,
		       "SELECT (SELECT application_id FROM pragma_application_id), "
		       "(SELECT user_version FROM pragma_user_version)",
		       &st, &e)) {
		say(c, 0, "store header: %s", e.msg);
		return;
	}
	if (sqlite3_step(st) == SQLITE_ROW) {
		int64_t app = sqlite3_column_int64(st, 0), ver = sqlite3_column_int64(st, 1);
		say(c, app == STORE_APP_ID, "application_id 0x%08llx%s", (long long)app,
		    app == STORE_APP_ID ? " (voidfit)" : ", not voidfit's");
		say(c, ver >= 1, "schema version %lld", (long long)ver);
	} else {
		store_sqlerr(c->s, &e, "header");
		say(c, 0, "store header: %s", e.msg);
	}
	sqlite3_finalize(st);
}

struct fileinfo {
	int64_t id;
	char *name;
	int64_t size;
	uint8_t sha[32];
};

struct filelist {
	struct fileinfo *f;
	size_t n, cap;
};

static int collect_file(void *ctx, const struct store_file *f)
{
	struct filelist *l = ctx;
	xgrow(&l->f, &l->cap, l->n + 1, sizeof *l->f);
	struct fileinfo *fi = &l->f[l->n++];
	fi->id = f->id;
	fi->name = xstrdup(f->name);
	fi->size = f->size;
	memcpy(fi->sha, f->sha256, 32);
	return 0;
}

static void check_files(struct checker *c)
{
	struct filelist l = {0};
	struct err e = {0};
	if (store_file_list(c->s, -1, collect_file, &l, &e))
		say(c, 0, "files: %s", e.msg);
	for (size_t i = 0; i < l.n; i++) {
		struct fileinfo *f = &l.f[i];
		uint8_t sha[32];
		int64_t len;
		char hex[65];
		if (store_raw_digest(c->s, f->id, sha, &len, &e))
			say(c, 0, "file '%s': %s", f->name, e.msg);
		else if (len != f->size)
			say(c, 0, "file '%s': %lld bytes stored, %lld imported", f->name,
			    (long long)len, (long long)f->size);
		else if (memcmp(sha, f->sha, 32))
			say(c, 0, "file '%s': sha256 of the stored bytes does not match", f->name);
		else
			say(c, 1, "file '%s': %lld bytes, sha256 %.12s", f->name, (long long)len,
			    (sha256_hex(sha, hex), hex));
		free(f->name);
	}
	free(l.f);
}

struct tracelist {
	struct store_trace_info *t;
	size_t n, cap;
};

static int collect_trace(void *ctx, const struct store_trace_info *t)
{
	struct tracelist *l = ctx;
	xgrow(&l->t, &l->cap, l->n + 1, sizeof *l->t);
	l->t[l->n] = *t;
	l->t[l->n++].name = xstrdup(t->name);
	return 0;
}

static void check_traces(struct checker *c)
{
	struct tracelist l = {0};
	struct err e = {0};
	if (store_trace_list(c->s, collect_trace, &l, &e))
		say(c, 0, "traces: %s", e.msg);
	for (size_t i = 0; i < l.n; i++) {
		struct store_trace_info *t = &l.t[i];
		struct job_set js = {0};
		if (store_trace_load(c->s, t->id, &js, &e))
			say(c, 0, "trace '%s': %s", t->name, e.msg);
		else if ((int64_t)js.njobs != t->njobs || (int64_t)js.nnodes != t->nnodes)
			say(c, 0,
			    "trace '%s': %zu jobs and %zu nodes stored, %lld and %lld recorded",
			    t->name, js.njobs, js.nnodes, (long long)t->njobs,
			    (long long)t->nnodes);
		else
			say(c, 1, "trace '%s': %zu jobs, %zu nodes", t->name, js.njobs, js.nnodes);
		job_set_release(&js);
		free((char *)t->name);
	}
	free(l.t);
}

static void check_runs(struct checker *c)
{
	sqlite3_stmt *st;
	struct err e = {0};
	if (store_prep(c->s, "SELECT id FROM runs ORDER BY id", &st, &e)) {
		say(c, 0, "runs: %s", e.msg);
		return;
	}
	int step, n = 0, bad = 0;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0);
		for (int which = 0; which < 2; which++) {
			void *p;
			size_t len;
			if (store_run_data(c->s, id, which, &p, &len, &e)) {
				say(c, 0, "run %lld: %s", (long long)id, e.msg);
				bad++;
			}
			free(p);
		}
		n++;
	}
	if (step != SQLITE_DONE) {
		store_sqlerr(c->s, &e, "runs");
		say(c, 0, "runs: %s", e.msg);
	} else if (!bad) {
		say(c, 1, "runs: %d, their series and results readable", n);
	}
	sqlite3_finalize(st);
}

int store_check(struct store *s, void (*report)(void *ctx, int ok, const char *what), void *ctx,
		int *nbad, struct err *e)
{
	(void)e;
	struct checker c = {s, report, ctx, 0};
	check_integrity(&c);
	check_header(&c);
	check_files(&c);
	check_traces(&c);
	check_runs(&c);
	*nbad = c.nbad;
	return 0;
}
