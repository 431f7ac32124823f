/*
 * store-merge.c — task stores, and folding them into a store (store.h).
 *
 * A task store is what one task of a sweep writes: an ordinary store holding the task's
 * scenarios and runs (with their metrics, buckets, series and per-job blocks) and, of the
 * trace it replayed, only the trace row and its files' provenance rows (no bytes, no jobs,
 * no nodes: njobs and nnodes are 0). Its 'task' table says the task finished:
 *
 *   store_task_init   (in the task's transaction) the trace row and file rows, copied from
 *                     the store the task reads and sealed; the 'task' row: the trace's
 *                     digests, the voidfit that makes the runs, no runs or end yet
 *   ... runs are stored as by any replay ...
 *   store_task_seal   the task row's runs and end; a task store without them is unfinished
 *
 * A trace is known by two digests, not its id or name, which differ between stores: its
 * files' (store_trace_digest, the sha256 of their sha256s) and its content's
 * (store_trace_content, the sha256 of its jobs and nodes as loaded), so that the same files
 * imported with another mapping or format are another trace.
 *
 * store_merge_task checks a task store (every sealed table it reads, as every reader does:
 * store-seal.c; SQLite quick_check, the task row, the files' digest recomputed from its file
 * rows, the voidfit version, the count of runs, every block's checksum), finds the trace of
 * the same digests in the store and copies each run that the store lacks (same scenario key, policy
 * and seed) byte for byte: run row, metrics in their order, buckets, series and per-job blocks.
 * Runs land in the scenario a replay in the store would have used (store_scenario_put: by trace and
 * key).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpumodel.h"
#include "sha256.h"
#include "store-int.h"

int store_trace_digest(struct store *s, int64_t trace_id, char hex[65], struct err *e)
{
	sqlite3_stmt *st;
	struct sha256 c;
	uint8_t d[32];
	int rc = store_prep(s, "SELECT sha256 FROM files WHERE trace_id = ? ORDER BY sha256", &st,
			    e);
	int step, n = 0;
	if (rc)
		return rc;
	sha256_init(&c);
	sqlite3_bind_int64(st, 1, trace_id);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		const char *h = (const char *)sqlite3_column_text(st, 0);
		sha256_update(&c, h, strlen(h));
		sha256_update(&c, "\n", 1);
		n++;
	}
	if (step != SQLITE_DONE)
		rc = store_sqlerr(s, e, "trace digest");
	else if (!n)
		rc = err_set(e, VF_ESTORE, "%s: trace %" PRId64 ": no file rows", s->path,
			     trace_id);
	sqlite3_finalize(st);
	sha256_final(&c, d);
	sha256_hex(d, hex);
	return rc;
}

static void put_i64(struct sha256 *h, int64_t v)
{
	uint8_t b[8];
	for (int i = 0; i < 8; i++)
		b[i] = (uint8_t)((uint64_t)v >> (8 * i));
	sha256_update(h, b, 8);
}

static void put_str(struct sha256 *h, const char *p)
{
	sha256_update(h, p, strlen(p) + 1);
}

int store_trace_content(struct store *s, int64_t trace_id, char hex[65], struct err *e)
{
	struct job_set js = {0};
	struct sha256 h;
	uint8_t d[32];
	int rc = store_trace_load(s, trace_id, &js, e);
	if (rc)
		return rc;
	sha256_init(&h);
	put_i64(&h, (int64_t)js.njobs);
	for (size_t i = 0; i < js.njobs; i++) {
		const struct job *j = &js.jobs[i];
		put_i64(&h, j->id);
		put_i64(&h, j->arrival);
		put_i64(&h, j->duration);
		for (int k = 0; k < DIM_N; k++)
			put_i64(&h, j->dem[k]);
		put_i64(&h, j->num_gpu);
		put_i64(&h, j->gpu_milli);
		put_i64(&h, j->gpu_spec);
		put_i64(&h, j->cls);
		put_i64(&h, j->enriched);
		put_i64(&h, j->flags);
		/* W only where it is not 1: a trace of one-worker jobs keeps the digest it had
		 * before jobs had workers, and a gang is another trace than its worker alone */
		if (job_is_gang(j))
			put_i64(&h, -(int64_t)job_workers(j));
	}
	put_i64(&h, (int64_t)js.nnodes);
	for (size_t i = 0; i < js.nnodes; i++) {
		const struct node *n = &js.nodes[i];
		const struct gpumodel *gm = n->model >= 0 ? gpumodel_get(n->model) : NULL;
		put_str(&h, n->name);
		put_str(&h, n->group);
		put_str(&h, gm ? gm->name : "");
		for (int k = 0; k < DIM_N; k++)
			put_i64(&h, n->cap[k]);
		put_i64(&h, n->ngpu);
		put_i64(&h, n->enriched);
		/* the rack only where one is said: a rackless trace keeps the digest it had
		 * before nodes had racks */
		if (n->rack[0])
			put_str(&h, n->rack);
	}
	job_set_release(&js);
	sha256_final(&h, d);
	sha256_hex(d, hex);
	return 0;
}

int store_task_init(struct store *task, struct store *from, int64_t trace_id, struct err *e)
{
	sqlite3_stmt *rd = NULL, *wr = NULL;
	char files[65], content[65];
	int rc, step;

	if ((rc = store_trace_digest(from, trace_id, files, e)) ||
	    (rc = store_trace_content(from, trace_id, content, e)) ||
	    (rc = store_exec(task, STORE_TASK_SCHEMA, e)) ||
	    (rc = store_prep(from, "SELECT id, name, created_at FROM traces WHERE id = ?", &rd,
			     e)) ||
	    (rc = store_prep(task,
			     "INSERT INTO traces(id, name, created_at, njobs, nnodes) "
			     "VALUES (?, ?, ?, 0, 0)",
			     &wr, e)))
		goto out;
	sqlite3_bind_int64(rd, 1, trace_id);
	if ((step = sqlite3_step(rd)) != SQLITE_ROW) {
		rc = step == SQLITE_DONE
			     ? err_set(e, VF_EINPUT, "%s: no trace %" PRId64, from->path, trace_id)
			     : store_sqlerr(from, e, "read trace");
		goto out;
	}
	for (int i = 0; i < 3; i++)
		sqlite3_bind_value(wr, i + 1, sqlite3_column_value(rd, i));
	if (sqlite3_step(wr) != SQLITE_DONE || (rc = store_seal(task, "traces", trace_id, e))) {
		rc = rc ? rc : store_sqlerr(task, e, "add trace");
		goto out;
	}
	sqlite3_finalize(rd);
	sqlite3_finalize(wr);
	rd = wr = NULL;
#define FILE_COLS                                                                                  \
	"id, trace_id, name, format, size, sha256, rows_read, rows_accepted, rows_quarantined, "   \
	"imported_at, voidfit_version"
	if ((rc = store_prep(from, "SELECT " FILE_COLS " FROM files WHERE trace_id = ? ORDER BY id",
			     &rd, e)) ||
	    (rc = store_prep(task,
			     "INSERT INTO files(" FILE_COLS ") VALUES (?,?,?,?,?,?,?,?,?,?,?)", &wr,
			     e)))
		goto out;
	sqlite3_bind_int64(rd, 1, trace_id);
	while (!rc && (step = sqlite3_step(rd)) == SQLITE_ROW) {
		for (int i = 0; i < 11; i++)
			sqlite3_bind_value(wr, i + 1, sqlite3_column_value(rd, i));
		if (sqlite3_step(wr) != SQLITE_DONE)
			rc = store_sqlerr(task, e, "add file");
		else
			rc = store_seal(task, "files", sqlite3_column_int64(rd, 0), e);
		sqlite3_reset(wr);
	}
	if (!rc && step != SQLITE_DONE)
		rc = store_sqlerr(from, e, "read files");
	sqlite3_finalize(wr);
	wr = NULL;
	if (!rc && !(rc = store_prep(task,
				     "INSERT INTO task(trace_id, trace_sha256, content_sha256, "
				     "voidfit_version) VALUES (?, ?, ?, ?)",
				     &wr, e))) {
		sqlite3_bind_int64(wr, 1, trace_id);
		sqlite3_bind_text(wr, 2, files, -1, SQLITE_STATIC);
		sqlite3_bind_text(wr, 3, content, -1, SQLITE_STATIC);
		sqlite3_bind_text(wr, 4, VOIDFIT_VERSION, -1, SQLITE_STATIC);
		if (sqlite3_step(wr) != SQLITE_DONE)
			rc = store_sqlerr(task, e, "add task");
	}
out:
	sqlite3_finalize(rd);
	sqlite3_finalize(wr);
	return rc;
}

int store_task_seal(struct store *task, int64_t trace_id, struct err *e)
{
	char sql[160];
	snprintf(sql, sizeof sql,
		 "UPDATE task SET runs = (SELECT count(*) FROM runs) + (SELECT count(*) FROM "
		 "resample_answers), finished_at = %" PRId64 " WHERE trace_id = %" PRId64,
		 util_now(), trace_id);
	int rc = store_exec(task, sql, e);
	if (!rc && sqlite3_changes(task->db) != 1)
		rc = err_set(e, VF_ESTORE, "%s: no task row of trace %" PRId64, task->path,
			     trace_id);
	return rc;
}

int store_task_digest(const char *path, char hex[65], struct err *e)
{
	struct store *t = NULL;
	sqlite3_stmt *st = NULL;
	int rc = store_open(path, STORE_RDONLY, &t, e);
	if (!rc && (store_prep(t, "SELECT trace_sha256 FROM task", &st, e) ||
		    sqlite3_step(st) != SQLITE_ROW || !sqlite3_column_text(st, 0)))
		rc = err_set(e, VF_ESTORE, "%s: not a finished task store", path);
	if (!rc)
		snprintf(hex, 65, "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	store_close(t);
	return rc;
}

/* ---- merging ----
 *
 * The runs a store has are looked up in a hash set of (scenario, policy, seed) read once
 * (store_merge_begin) and kept up to date: a query of runs by scenario has no index to use.
 */
struct run_key {
	int64_t sid, seed;
	char *policy; /* owned; NULL: an empty slot */
};
struct store_merge {
	struct store *s;
	struct run_key *set; /* open addressing, cap slots (a power of 2), n used */
	size_t cap, n;
	/* the content digests of the store's traces worked out so far (store_trace_content
	 * loads a whole trace) */
	int64_t *ctid;
	char (*chex)[65];
	size_t nc, ccap;
};

static size_t key_hash(int64_t sid, const char *policy, int64_t seed)
{
	uint64_t h = 1469598103934665603u ^ (uint64_t)sid;
	h = (h ^ (uint64_t)seed) * 1099511628211u;
	for (const char *p = policy; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211u;
	return (size_t)(h ^ h >> 29);
}

/* The slot of the key, or the empty slot where it would go. */
static struct run_key *key_slot(struct store_merge *m, int64_t sid, const char *policy,
				int64_t seed)
{
	size_t i = key_hash(sid, policy, seed) & (m->cap - 1);
	while (m->set[i].policy &&
	       (m->set[i].sid != sid || m->set[i].seed != seed || strcmp(m->set[i].policy, policy)))
		i = (i + 1) & (m->cap - 1);
	return &m->set[i];
}

/* Add the key; 0 if it was there already. */
static int key_add(struct store_merge *m, int64_t sid, const char *policy, int64_t seed)
{
	if (2 * (m->n + 1) > m->cap) {
		struct store_merge old = *m;
		m->cap = m->cap ? 2 * m->cap : 1024;
		m->set = xcalloc(m->cap, sizeof *m->set);
		for (size_t i = 0; i < old.cap; i++)
			if (old.set[i].policy)
				*key_slot(m, old.set[i].sid, old.set[i].policy, old.set[i].seed) =
					old.set[i];
		free(old.set);
	}
	struct run_key *k = key_slot(m, sid, policy, seed);
	if (k->policy)
		return 0;
	*k = (struct run_key){sid, seed, xstrdup(policy)};
	m->n++;
	return 1;
}

int store_merge_begin(struct store *s, struct store_merge **out, struct err *e)
{
	struct store_merge *m = xcalloc(1, sizeof *m);
	sqlite3_stmt *st;
	int rc = store_prep(s, "SELECT scenario_id, policy, seed FROM runs", &st, e), step;
	m->s = s;
	*out = NULL;
	/* Rows this merge adds are sealed at its end (store_seal_all): the store must hold
	 * no row without its checksum before, or that row would be sealed as voidfit's. */
	if (!rc && (rc = store_verify_all(s, e)))
		sqlite3_finalize(st);
	if (rc) {
		store_merge_end(m);
		return rc;
	}
	while ((step = sqlite3_step(st)) == SQLITE_ROW)
		if (sqlite3_column_type(st, 0) != SQLITE_NULL)
			key_add(m, sqlite3_column_int64(st, 0),
				(const char *)sqlite3_column_text(st, 1),
				sqlite3_column_int64(st, 2));
	if (step != SQLITE_DONE)
		rc = store_sqlerr(s, e, "list runs");
	sqlite3_finalize(st);
	if (rc)
		store_merge_end(m);
	else
		*out = m;
	return rc;
}

void store_merge_end(struct store_merge *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->cap; i++)
		free(m->set[i].policy);
	FREE_ALL(m->set, m->ctid, m->chex, m);
}

/* SQLite's quick check of t: 0, or VF_ESTORE naming the first problem. */
static int quick_check(struct store *t, struct err *e)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(t->db, "PRAGMA quick_check", -1, &st, NULL) != SQLITE_OK)
		return err_set(e, VF_ESTORE, "%s: damaged: %s", t->path, sqlite3_errmsg(t->db));
	int rc = 0, step = sqlite3_step(st);
	const char *r = step == SQLITE_ROW ? (const char *)sqlite3_column_text(st, 0) : NULL;
	if (step != SQLITE_ROW)
		rc = err_set(e, VF_ESTORE, "%s: damaged: %s", t->path, sqlite3_errmsg(t->db));
	else if (!r || strcmp(r, "ok"))
		rc = err_set(e, VF_ESTORE, "%s: damaged: %s", t->path, r ? r : "?");
	sqlite3_finalize(st);
	return rc;
}

int store_task_verify(struct store *t, struct store_task_info *out, struct err *e)
{
	sqlite3_stmt *st = NULL;
	int rc, step;
	memset(out, 0, sizeof *out);
	if ((rc = quick_check(t, e)))
		return rc;
	/* a task store has the task table from its start (store_task_init) */
	if (store_prep(t, "SELECT id FROM traces", &st, e) || sqlite3_step(st) != SQLITE_ROW) {
		sqlite3_finalize(st);
		return err_set(e, VF_ESTORE, "%s: not a task store (no trace row)", t->path);
	}
	int64_t tid = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	st = NULL;
	if ((rc = store_trace_digest(t, tid, out->sha256, e)))
		return rc;
	struct sbuf pairs = SBUF_INIT;
	sbuf_init(&pairs);
	rc = store_prep(t, "SELECT policy, seed FROM runs ORDER BY policy, seed", &st, e);
	while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
		sbuf_printf(&pairs, "%s %" PRId64 "\n", (const char *)sqlite3_column_text(st, 0),
			    (int64_t)sqlite3_column_int64(st, 1));
		out->runs++;
	}
	sqlite3_finalize(st);
	st = NULL;
	/* a verdict's task: its answers, one a policy of its resample (a task store made
	 * before they were has no such table) */
	int64_t has = 0;
	if (!rc && step == SQLITE_DONE && !(rc = store_answers_count(t, &has, e)) && has)
		rc = store_prep(t,
				"SELECT policy, resample FROM resample_answers ORDER BY policy, "
				"resample",
				&st, e);
	while (!rc && has && (step = sqlite3_step(st)) == SQLITE_ROW) {
		sbuf_printf(&pairs, "%s resample %" PRId64 "\n",
			    (const char *)sqlite3_column_text(st, 0),
			    (int64_t)sqlite3_column_int64(st, 1));
		out->runs++;
	}
	sqlite3_finalize(st);
	st = NULL;
	out->pairs = pairs.cap ? pairs.s : xstrdup(""); /* the caller frees (none: not static) */
	if (rc || step != SQLITE_DONE)
		return err_set(e, VF_ESTORE, "%s: not a task store (its runs cannot be read)",
			       t->path);
	/* the task row is there from the start; finished_at says the task ended */
	if (store_prep(t,
		       "SELECT trace_sha256, voidfit_version, runs, finished_at IS NOT NULL "
		       "FROM task",
		       &st, e)) {
		e->code = rc = VF_ESTORE;
		err_prefix(e, "%s: not a task store: ", t->path);
		return rc;
	}
	if ((step = sqlite3_step(st)) == SQLITE_ROW && sqlite3_column_int(st, 3)) {
		const char *h = (const char *)sqlite3_column_text(st, 0);
		const char *v = (const char *)sqlite3_column_text(st, 1);
		out->finished = 1;
		snprintf(out->version, sizeof out->version, "%s", v ? v : "");
		if (!h || strcmp(h, out->sha256))
			rc = err_set(e, VF_ESTORE, "%s: damaged: trace sha256 %s, its files say %s",
				     t->path, h ? h : "(none)", out->sha256);
		else if (sqlite3_column_int64(st, 2) != out->runs)
			rc = err_set(e, VF_ESTORE,
				     "%s: damaged: %" PRId64 " runs, its task row says %" PRId64,
				     t->path, out->runs, (int64_t)sqlite3_column_int64(st, 2));
	} else if (step != SQLITE_DONE && step != SQLITE_ROW) {
		rc = store_sqlerr(t, e, "read task");
	}
	sqlite3_finalize(st);
	return rc;
}

int store_task_compact(struct store *t, struct err *e)
{
	return store_exec(t, "VACUUM", e);
}

/* The content digest of the store's trace tid, worked out once per merge. */
static int content_of(struct store_merge *m, int64_t tid, const char **hex, struct err *e)
{
	for (size_t i = 0; i < m->nc; i++)
		if (m->ctid[i] == tid)
			return *hex = m->chex[i], 0;
	xgrow(&m->ctid, &m->ccap, m->nc + 1, sizeof *m->ctid);
	m->chex = xrealloc(m->chex, m->ccap * sizeof *m->chex);
	int rc = store_trace_content(m->s, tid, m->chex[m->nc], e);
	if (!rc) {
		m->ctid[m->nc] = tid;
		*hex = m->chex[m->nc++];
	}
	return rc;
}

/* The store's trace of the same files (digest hex) imported the same way (content
 * digest) into *id (0: none), and its traces with their digests into list ("'name' sha256
 * HEX", comma-separated) for the message when none; *same_files: a trace of the same files
 * was found, imported otherwise. */
static int find_trace(struct store_merge *m, const char *hex, const char *content, int64_t *id,
		      int *same_files, struct sbuf *list, struct err *e)
{
	struct store *s = m->s;
	sqlite3_stmt *st;
	int rc = store_prep(s, "SELECT id, name FROM traces ORDER BY id", &st, e);
	int step;
	char h[65];
	*id = 0;
	*same_files = 0;
	if (rc)
		return rc;
	while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t tid = sqlite3_column_int64(st, 0);
		struct err e2 = {0};
		const char *c;
		if (store_trace_digest(s, tid, h, &e2))
			continue; /* a trace without files cannot be the one */
		if (!strcmp(h, hex) && !*id) {
			*same_files = 1;
			if ((rc = content_of(m, tid, &c, e)))
				break;
			if (!strcmp(c, content))
				*id = tid;
		}
		sbuf_printf(list, "%s'%s' sha256 %s", list->len ? ", " : "",
			    (const char *)sqlite3_column_text(st, 1), h);
	}
	if (!rc && step != SQLITE_DONE)
		rc = store_sqlerr(s, e, "list traces");
	sqlite3_finalize(st);
	return rc;
}

/* Check that a block (NULL: none) opens: its header, checksum and inflation. */
static int check_block(struct store *t, sqlite3_stmt *st, int col, int64_t run, struct err *e)
{
	if (sqlite3_column_type(st, col) == SQLITE_NULL)
		return 0;
	struct zblk_buf raw = {0};
	struct zblk_info info;
	int rc = zblk_open(t->z, sqlite3_column_blob(st, col),
			   (size_t)sqlite3_column_bytes(st, col), &info, &raw, e);
	zblk_buf_release(&raw);
	if (rc)
		err_prefix(e, "%s: damaged: run %" PRId64 ": ", t->path, run);
	return rc;
}

/* Copy rows of run from (task store t) to run to (store s) with one SELECT and one INSERT of
 * ncol columns each (the first column of the INSERT is the run id). */
static int copy_rows(struct store *s, struct store *t, const char *sel, const char *ins, int ncol,
		     int64_t from, int64_t to, struct err *e)
{
	sqlite3_stmt *rd = NULL, *wr = NULL;
	int rc, step;
	if ((rc = store_prep(t, sel, &rd, e)) || (rc = store_prep(s, ins, &wr, e)))
		goto out;
	sqlite3_bind_int64(rd, 1, from);
	while (!rc && (step = sqlite3_step(rd)) == SQLITE_ROW) {
		sqlite3_bind_int64(wr, 1, to);
		for (int i = 0; i < ncol; i++)
			sqlite3_bind_value(wr, i + 2, sqlite3_column_value(rd, i));
		if (sqlite3_step(wr) != SQLITE_DONE)
			rc = store_sqlerr(s, e, "merge rows");
		sqlite3_reset(wr);
	}
	if (!rc && step != SQLITE_DONE)
		rc = store_sqlerr(t, e, "read rows");
out:
	sqlite3_finalize(rd);
	sqlite3_finalize(wr);
	return rc;
}

/* A scenario of t put in s (found by key, else added) into *id; key's "trace=ID;" prefix
 * names t's trace and is rewritten to s's (tid) into key. */
struct scen_map {
	struct store *s;
	int64_t task_tid, tid;
	int64_t *from, *to; /* n pairs */
	size_t n, cap;
	struct err *e;
};

/* The key of a scenario of the task's trace as the store's trace tid would key it: "trace="
 * the id, then the rest as it is. */
static int rekey(const char *key, int64_t task_tid, int64_t tid, struct sbuf *out)
{
	char head[40];
	int n = snprintf(head, sizeof head, "trace=%" PRId64 ";", task_tid);
	if (strncmp(key, head, (size_t)n))
		return -1;
	sbuf_printf(out, "trace=%" PRId64 ";%s", tid, key + n);
	return 0;
}

static int put_scenario(void *ctx, const struct store_scenario *sc)
{
	struct scen_map *m = ctx;
	struct store_scenario row = *sc;
	struct sbuf key = SBUF_INIT;
	int64_t id;
	int rc;
	sbuf_init(&key);
	if (sc->trace_id != m->task_tid || rekey(sc->key, m->task_tid, m->tid, &key)) {
		sbuf_release(&key);
		return err_set(m->e, VF_ESTORE, "%s: damaged: scenario %" PRId64 " of no trace",
			       m->s->path, sc->id);
	}
	row.trace_id = m->tid;
	row.key = key.s;
	row.parent_run = -1; /* a run of the task store: no id in this one */
	rc = store_scenario_put(m->s, &row, &id, m->e);
	sbuf_release(&key);
	if (rc)
		return rc;
	xgrow(&m->from, &m->cap, m->n + 1, sizeof *m->from);
	m->to = xrealloc(m->to, m->cap * sizeof *m->to);
	m->from[m->n] = sc->id;
	m->to[m->n++] = id;
	return 0;
}

int store_merge_task(struct store_merge *m, const char *path, struct store_merge_count *out,
		     struct err *e)
{
	struct store *s = m->s, *t = NULL;
	sqlite3_stmt *st = NULL, *ins = NULL;
	struct sbuf list = SBUF_INIT, key = SBUF_INIT;
	struct scen_map map = {0};
	int64_t task_tid = 0, nruns = 0, tid = 0, count = 0;
	char hex[65], content[65], ver[64] = "", h[65], name[256];
	int rc, step, same_files;

	sbuf_init(&list);
	sbuf_init(&key);
	memset(out, 0, sizeof *out);
	if ((rc = store_open(path, STORE_RDONLY, &t, e)) || (rc = quick_check(t, e))) {
		rc = e->code = VF_ESTORE; /* the task store is refused: VF_EIO is the store's */
		goto out;
	}
	if (store_prep(t,
		       "SELECT trace_id, trace_sha256, task.voidfit_version, runs, name, "
		       "content_sha256 FROM task JOIN traces ON traces.id = trace_id "
		       "WHERE finished_at IS NOT NULL",
		       &st, e) ||
	    sqlite3_step(st) != SQLITE_ROW) {
		rc = err_set(e, VF_ESTORE,
			     "%s: not a finished task store (no task row: the task did not end)",
			     path);
		goto out;
	}
	task_tid = sqlite3_column_int64(st, 0);
	snprintf(hex, sizeof hex, "%s", (const char *)sqlite3_column_text(st, 1));
	snprintf(ver, sizeof ver, "%s", (const char *)sqlite3_column_text(st, 2));
	nruns = sqlite3_column_int64(st, 3);
	snprintf(name, sizeof name, "%s", (const char *)sqlite3_column_text(st, 4));
	snprintf(content, sizeof content, "%s", (const char *)sqlite3_column_text(st, 5));
	sqlite3_finalize(st);
	st = NULL;
	int64_t answers = 0;
	if ((rc = store_answers_count(t, &answers, e)))
		goto out;
	if (answers) {
		rc = err_set(e, VF_EINPUT,
			     "%s: a task of a verdict's sweep: its answers are read from the "
			     "sweep's directory by 'voidfit verdict --sweep DIR', not merged",
			     path);
		goto out;
	}
	if ((rc = store_trace_digest(t, task_tid, h, e)))
		goto out;
	if (strcmp(h, hex)) {
		rc = err_set(e, VF_ESTORE, "%s: damaged: trace sha256 %s, its files say %s", path,
			     hex, h);
		goto out;
	}
	if (strcmp(ver, VOIDFIT_VERSION)) {
		rc = err_set(e, VF_ESTORE,
			     "%s: made by voidfit %s; this is voidfit %s (a merged scenario holds "
			     "runs of one version): run the task again with this one",
			     path, ver, VOIDFIT_VERSION);
		goto out;
	}
	if ((rc = find_trace(m, hex, content, &tid, &same_files, &list, e)))
		goto out;
	if (!tid && same_files) {
		rc = err_set(e, VF_EINPUT,
			     "%s: trace '%s' sha256 %s: %s holds these files imported otherwise "
			     "(another format, mapping or option: their jobs or nodes differ)",
			     path, name, hex, s->path);
		goto out;
	}
	if (!tid) {
		rc = err_set(e, VF_EINPUT, "%s: trace '%s' sha256 %s is not in %s (%s)", path, name,
			     hex, s->path, list.len ? list.s : "no trace");
		goto out;
	}
	out->trace_id = tid;

	/* scenarios, then runs */
	map = (struct scen_map){.s = s, .task_tid = task_tid, .tid = tid, .e = e};
	if ((rc = store_scenario_list(t, -1, put_scenario, &map, e)))
		goto out;
	if ((rc = store_prep(
		     t,
		     "SELECT id, trace_id, policy, mode, seed, params_json, summary_json, "
		     "created_at, b.series, b.jobs, scenario_id, dims, voidfit_version FROM runs "
		     "LEFT JOIN run_blobs b ON b.run_id = runs.id ORDER BY id",
		     &st, e)) ||
	    (rc = store_prep(s,
			     "INSERT INTO runs(trace_id, policy, mode, seed, params_json, "
			     "summary_json, created_at, scenario_id, dims, voidfit_version) "
			     "VALUES (?1, ?2, ?3, ?4, CASE WHEN ?13 IS NULL THEN ?5 ELSE "
			     "json_set(?5, '$.scenario', ?13) END, ?6, ?7, ?10, ?11, ?12)",
			     &ins, e)))
		goto out;
	while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t run = sqlite3_column_int64(st, 0), sid = sqlite3_column_int64(st, 10);
		size_t k = 0;
		const char *rv = (const char *)sqlite3_column_text(st, 12);
		count++;
		while (k < map.n && map.from[k] != sid)
			k++;
		if (k == map.n || sqlite3_column_int64(st, 1) != task_tid) {
			rc = err_set(e, VF_ESTORE, "%s: damaged: run %" PRId64 " of no scenario",
				     path, run);
			break;
		}
		if (!rv || strcmp(rv, VOIDFIT_VERSION)) {
			rc = err_set(e, VF_ESTORE,
				     "%s: run %" PRId64 " made by voidfit %s; this is %s", path,
				     run, rv ? rv : "(none)", VOIDFIT_VERSION);
			break;
		}
		if ((rc = check_block(t, st, 8, run, e)) || (rc = check_block(t, st, 9, run, e)))
			break;
		if (!key_add(m, map.to[k], (const char *)sqlite3_column_text(st, 2),
			     sqlite3_column_int64(st, 4))) {
			out->skipped++;
			continue;
		}
		sqlite3_bind_int64(ins, 1, tid);
		for (int i = 2; i <= 7; i++)
			sqlite3_bind_value(ins, i, sqlite3_column_value(st, i));
		sqlite3_bind_int64(ins, 10, map.to[k]);
		sqlite3_bind_value(ins, 11, sqlite3_column_value(st, 11));
		sqlite3_bind_value(ins, 12, sqlite3_column_value(st, 12));
		sqlite3_bind_null(ins, 13);
		if (task_tid != tid) { /* the key in the parameters names the trace by its id */
			sbuf_reset(&key);
			sqlite3_stmt *kq;
			if ((rc = store_prep(s, "SELECT key FROM scenarios WHERE id = ?", &kq, e)))
				break;
			sqlite3_bind_int64(kq, 1, map.to[k]);
			if (sqlite3_step(kq) == SQLITE_ROW)
				sbuf_adds(&key, (const char *)sqlite3_column_text(kq, 0));
			sqlite3_finalize(kq);
			sqlite3_bind_text(ins, 13, key.s, -1, SQLITE_STATIC);
		}
		if (sqlite3_step(ins) != SQLITE_DONE) {
			rc = store_sqlerr(s, e, "merge run");
			break;
		}
		sqlite3_reset(ins);
		int64_t nid = sqlite3_last_insert_rowid(s->db);
		if ((rc = copy_rows(s, t,
				    "SELECT key, value FROM run_metrics WHERE run_id = ? ORDER BY "
				    "rowid",
				    "INSERT INTO run_metrics(run_id, key, value) VALUES (?, ?, ?)",
				    2, run, nid, e)) ||
		    (rc = copy_rows(s, t, "SELECT series, jobs FROM run_blobs WHERE run_id = ?",
				    "INSERT INTO run_blobs(run_id, series, jobs) VALUES (?, ?, ?)",
				    2, run, nid, e)) ||
		    (rc = copy_rows(s, t,
				    "SELECT model, class, bucket, gpu_ms FROM run_buckets WHERE "
				    "run_id = ?",
				    "INSERT INTO run_buckets(run_id, model, class, bucket, gpu_ms) "
				    "VALUES (?, ?, ?, ?, ?)",
				    4, run, nid, e)))
			break;
		out->added++;
	}
	if (!rc && step != SQLITE_DONE)
		rc = store_sqlerr(t, e, "read runs");
	if (!rc && count != nruns)
		rc = err_set(e, VF_ESTORE,
			     "%s: damaged: %" PRId64 " runs, its task row says %" PRId64, path,
			     count, nruns);
	/* the rows merged get their checksums, as rows a replay stores do (store-seal.c) */
	if (!rc)
		rc = store_seal_all(s, e);
out:
	sqlite3_finalize(st);
	sqlite3_finalize(ins);
	store_close(t);
	free(map.from);
	free(map.to);
	sbuf_release(&list);
	sbuf_release(&key);
	return rc;
}
