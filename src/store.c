/*
 * store.c — the store file: opening, schema migrations, transactions, and the plain SQL
 * tables (traces, files, quarantine). Raw bytes are in store-raw.c, jobs in
 * store-jobs.c, nodes in store-nodes.c, runs in store-run.c, row checksums in store-seal.c,
 * verification in store-check.c.
 *
 * A store is an SQLite file with PRAGMA application_id = STORE_APP_ID and user_version = the
 * number of the last migration applied. Opening:
 *
 *   no file, STORE_CREATE --make_temp()--> empty db under a temporary name in the same
 *        folder --page_size, migrate()--> current; store_commit() rewrites a small
 *        import with smaller pages (compact_small()) and links it into place
 *        (publish(), refused if a file appeared there meanwhile); store_close() before
 *        that removes it (remove_temp())
 *   no file, other flags ---------------------------------------------> VF_EIO
 *   an empty file, or SQLite without voidfit's application_id --------> VF_ESTORE, untouched
 *   app id ours, user_version < ours ----------migrate()---------------> current
 *   not SQLite, or user_version > ours -------------------------------> VF_ESTORE
 *   schema objects the migrations do not make (refuse_foreign, before any
 *        table is read or any migration runs; STORE_CHECK opens it) ----> VF_ESTORE
 *
 * A store comes from others, so the connection is defensive, trusts no function a schema
 * names, and verifies every sealed table before a statement reads it (store-seal.c).
 *
 * Only a new store is ever created, and only where no file is: whatever this process finds
 * at the path is another's, and it never removes it. Each migration runs in the transaction
 * that bumps user_version (and seals the rows it leaves without a checksum), so a store is
 * always at a version some migration produced. Pages are 1 KiB (most data is in a few large
 * blobs; small pages keep the many small tables of a small store small; 512 bytes in a
 * store made by a small import) and the journal is
 * the default rollback journal: an import writes to fresh pages, so the journal stays
 * small, and a killed import is rolled back on the next open. Job blocks are coded and
 * written as the import goes (store-jobs.c).
 */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cluster.h"
#include "embed.h"
#include "gpumodel.h"
#include "outfile.h"
#include "sha256.h"
#include "store-int.h"

int store_zlevel(int64_t size)
{
	return size >= 0 && size <= STORE_SMALL_FILE ? STORE_ZLEVEL_SMALL : STORE_ZLEVEL;
}

/* Who holds the lock s waits for: inside a write transaction it is readers (a commit needs
 * them gone), otherwise a writer. */
static const char *busy_who(const struct store *s)
{
	return s->intx ? "another voidfit is reading it" : "another voidfit is writing it";
}

/* Why path cannot be written: the file itself, or its folder (where the journal goes). */
static void write_cause(const char *path, char *buf, size_t len)
{
	if (access(path, W_OK) != 0) {
		snprintf(buf, len, "the file cannot be written: %s", strerror(errno));
		return;
	}
	char *dir = xstrdup(path), *slash = strrchr(dir, '/');
	if (slash)
		slash[slash == dir] = '\0';
	if (access(slash ? dir : ".", W_OK) != 0)
		snprintf(buf, len, "its folder cannot be written (the journal goes there): %s",
			 strerror(errno));
	else
		snprintf(buf, len, "read-only");
	free(dir);
}

int store_sqlerr(struct store *s, struct err *e, const char *what)
{
	int code = sqlite3_errcode(s->db), sys = sqlite3_system_errno(s->db);
	char cause[300];
	if (code == SQLITE_BUSY || code == SQLITE_LOCKED)
		return err_set(e, VF_ESTORE, "%s: store is busy: %s (gave up after %g s)", s->path,
			       busy_who(s), s->wait_s);
	if (code == SQLITE_NOTADB)
		return err_set(e, VF_ESTORE, "%s: not a voidfit store", s->path);
	if (code == SQLITE_READONLY || (code == SQLITE_CANTOPEN && !s->rdonly)) {
		write_cause(s->path, cause, sizeof cause);
		return err_set(e, VF_EIO, "%s: %s: %s", s->path, what, cause);
	}
	if (code == SQLITE_FULL)
		return err_set(e, VF_EIO, "%s: %s: the disk is full", s->path, what);
	if (sys && (code == SQLITE_IOERR || code == SQLITE_CANTOPEN))
		return err_set(e, VF_EIO, "%s: %s: %s (%s)", s->path, what, sqlite3_errmsg(s->db),
			       strerror(sys));
	return err_set(e, VF_ESTORE, "%s: %s: %s", s->path, what, sqlite3_errmsg(s->db));
}

int store_rows_begin(struct store *s, struct store_rows *q, const char *sql, const int64_t *id,
		     struct err *e)
{
	q->s = s;
	q->e = e;
	q->step = SQLITE_DONE;
	int rc = store_prep(s, sql, &q->st, e);
	if (!rc && id)
		sqlite3_bind_int64(q->st, 1, *id);
	return rc;
}

int store_rows_next(struct store_rows *q)
{
	return (q->step = sqlite3_step(q->st)) == SQLITE_ROW;
}

int store_rows_end(struct store_rows *q, int rc, const char *what)
{
	if (!rc && q->step != SQLITE_DONE)
		rc = store_sqlerr(q->s, q->e, what);
	sqlite3_finalize(q->st);
	q->st = NULL;
	return rc;
}

int store_ids(struct store *s, const char *sql, const int64_t *id, int64_t **ids, size_t *n,
	      const char *what, struct err *e)
{
	struct store_rows q;
	size_t cap = *n;
	int rc = store_rows_begin(s, &q, sql, id, e);
	while (!rc && store_rows_next(&q)) {
		xgrow(ids, &cap, *n + 1, sizeof **ids);
		(*ids)[(*n)++] = sqlite3_column_int64(q.st, 0);
	}
	return store_rows_end(&q, rc, what);
}

void store_bind(sqlite3_stmt *st, const struct store_val *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int k = (int)i + 1;
		if (v[i].type == STORE_V_INT)
			sqlite3_bind_int64(st, k, v[i].i);
		else if (v[i].type == STORE_V_REAL)
			sqlite3_bind_double(st, k, v[i].r);
		else
			sqlite3_bind_text(st, k, v[i].s, -1, SQLITE_STATIC);
	}
}

int store_prep(struct store *s, const char *sql, sqlite3_stmt **st, struct err *e)
{
	if (sqlite3_prepare_v2(s->db, sql, -1, st, NULL) != SQLITE_OK) {
		*st = NULL;
		s->touched = 0;
		return store_sqlerr(s, e, "prepare");
	}
	/* The sealed tables it reads are verified before it reads a row. */
	int rc = s->touched ? store_read_verify(s, e) : 0;
	if (rc) {
		sqlite3_finalize(*st);
		*st = NULL;
	}
	return rc;
}

int store_exec(struct store *s, const char *sql, struct err *e)
{
	if (sqlite3_exec(s->db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return store_sqlerr(s, e, "exec");
	return 0;
}

int store_query_int(struct store *s, const char *sql, int64_t *out, struct err *e)
{
	sqlite3_stmt *st;
	int rc = store_prep(s, sql, &st, e);
	if (rc)
		return rc;
	int step = sqlite3_step(st);
	if (step == SQLITE_ROW)
		*out = sqlite3_column_int64(st, 0);
	else
		rc = store_sqlerr(s, e, "query");
	sqlite3_finalize(st);
	return rc;
}

/* Number of a migration file "NNN-name.sql", or -1 if f is not one. */
static int migration_number(const char *name)
{
	size_t n = strlen(name);
	if (n < 8 || strcmp(name + n - 4, ".sql") || name[3] != '-')
		return -1;
	for (int i = 0; i < 3; i++)
		if (name[i] < '0' || name[i] > '9')
			return -1;
	return (name[0] - '0') * 100 + (name[1] - '0') * 10 + (name[2] - '0');
}

int store_schema_version(void)
{
	int v = 0;
	for (const struct embed_file *f = embed_files; f->name; f++)
		if (migration_number(f->name) > v)
			v = migration_number(f->name);
	return v;
}

const char *store_migration(int v)
{
	for (const struct embed_file *f = embed_files; f->name; f++)
		if (migration_number(f->name) == v)
			return f->data;
	return NULL;
}

int store_sql_same(const char *a, const char *b)
{
	if (!a || !b)
		return !a && !b;
	struct sbuf x = {0}, y = {0};
	store_sql_tidy(a, &x);
	store_sql_tidy(b, &y);
	int same = x.len == y.len && (!x.len || !memcmp(x.s, y.s, x.len));
	sbuf_release(&x);
	sbuf_release(&y);
	return same;
}

void store_sql_tidy(const char *sql, struct sbuf *out)
{
	int gap = 0; /* white space or a comment since the last character kept */
	for (const char *p = sql; *p;) {
		if (p[0] == '-' && p[1] == '-') {
			p += strcspn(p, "\n");
			gap = 1;
			continue;
		}
		if (p[0] == '/' && p[1] == '*') {
			const char *q = strstr(p + 2, "*/");
			p = q ? q + 2 : p + strlen(p);
			gap = 1;
			continue;
		}
		if (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == '\f' ||
		    *p == '\v') {
			p++;
			gap = 1;
			continue;
		}
		char last = out->len ? out->s[out->len - 1] : '(';
		if (gap && !strchr("(),;", *p) && !strchr("(,;", last))
			sbuf_addc(out, ' ');
		gap = 0;
		if (*p == '\'' || *p == '"' || *p == '`' || *p == '[') { /* quoted: as written */
			char close = *p == '[' ? ']' : *p;
			sbuf_addc(out, *p++);
			while (*p) {
				sbuf_addc(out, *p);
				if (*p++ != close)
					continue;
				if (close == ']' || *p != close)
					break;
				sbuf_addc(out, *p++); /* a doubled quote stays inside */
			}
			continue;
		}
		sbuf_addc(out, *p++);
	}
}

/* Apply the migrations after version from, in order, each in its own transaction. */
static int migrate(struct store *s, int from, struct err *e)
{
	for (int v = from + 1; v <= store_schema_version(); v++) {
		const char *sql = store_migration(v);
		if (!sql)
			return err_set(e, VF_ESTORE, "%s: no migration to schema version %d",
				       s->path, v);
		char pragma[96];
		snprintf(pragma, sizeof pragma,
			 "PRAGMA user_version = %d; PRAGMA application_id = %d;", v, STORE_APP_ID);
		int rc = store_begin(s, e);
		if (rc)
			return rc;
		struct sbuf tidy = {0};
		store_sql_tidy(sql, &tidy);
		rc = store_exec(s, tidy.s ? tidy.s : "", e);
		sbuf_release(&tidy);
		if (rc || (rc = store_exec(s, pragma, e)) || (rc = store_seal_all(s, e))) {
			err_prefix(e, "migration to schema version %d: ", v);
			store_rollback(s);
			return rc;
		}
		if ((rc = store_commit_migration(s, e)))
			return rc;
	}
	return 0;
}

/* ---- waiting for a store another process holds ---- */

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* SQLite's busy handler: wait up to s->wait_s, saying so once (after a short while: a
 * commit in passing is not worth a message); prints nothing itself. */
static int on_busy(void *ctx, int count)
{
	struct store *s = ctx;
	int64_t now = now_ms();
	if (count == 0)
		s->busy_since = now;
	int64_t waited = now - s->busy_since, limit = (int64_t)(s->wait_s * 1000);
	if (waited >= limit)
		return 0;
	if (!s->told && s->waiting && waited >= STORE_WAIT_QUIET_MS) {
		char msg[1200];
		snprintf(msg, sizeof msg, "waiting for %s (%s)", s->path, busy_who(s));
		s->told = 1;
		s->waiting(s->wait_ctx, msg);
	}
	int64_t nap = count < 10 ? 5 : 50;
	sqlite3_sleep((int)(nap < limit - waited ? nap : limit - waited));
	return 1;
}

/* ---- a new store: built under a temporary name, put in place by its first commit ---- */

/* New stores not yet in place, so that an exit on the way (xmalloc's, out of memory)
 * removes their temporary files too. Stores are opened and closed by one thread. */
static struct store *pending;
static int pending_hooked;

/* Remove the temporary file of s (and SQLite's journal beside it), only if it is still
 * the file this process made. */
static void remove_temp(struct store *s)
{
	struct stat sb;
	if (!s->tmp || lstat(s->tmp, &sb) != 0 || sb.st_dev != s->tmp_dev ||
	    sb.st_ino != s->tmp_ino)
		return;
	size_t n = strlen(s->tmp) + 9;
	char *j = xmalloc(n);
	snprintf(j, n, "%s-journal", s->tmp);
	unlink(j);
	free(j);
	unlink(s->tmp);
}

static void remove_pending(void)
{
	for (struct store *s = pending; s; s = s->next_pending)
		remove_temp(s);
}

static void forget_pending(struct store *s)
{
	for (struct store **p = &pending; *p; p = &(*p)->next_pending)
		if (*p == s) {
			*p = s->next_pending;
			break;
		}
	free(s->tmp);
	s->tmp = NULL;
}

/* Make an empty file for a new store at s->path: ".NAME.HOST.PID-N.tmp" in the same folder
 * (so it can be linked into place), created exclusively, mode 0666 less the umask; first
 * remove what killed imports of this host left there (outfile_sweep). */
static int make_temp(struct store *s, struct err *e)
{
	s->swept = outfile_sweep(s->path);
	for (int i = 0;; i++) {
		free(s->tmp);
		s->tmp = outfile_temp_name(s->path, i);
		int fd = open(s->tmp, O_RDWR | O_CREAT | O_EXCL, 0666);
		if (fd >= 0) {
			struct stat sb;
			fstat(fd, &sb);
			close(fd);
			s->tmp_dev = sb.st_dev;
			s->tmp_ino = sb.st_ino;
			break;
		}
		if (errno != EEXIST || i == 99) {
			int err = errno;
			free(s->tmp);
			s->tmp = NULL;
			return err_set(e, VF_EIO, "%s: cannot make a new store in its folder: %s",
				       s->path, strerror(err));
		}
	}
	if (!pending_hooked && atexit(remove_pending) == 0)
		pending_hooked = 1;
	s->next_pending = pending;
	pending = s;
	return 0;
}

size_t store_swept(const struct store *s)
{
	return s->swept;
}

/* Open the connection to the file at name: defensive (no writing to the schema or pages
 * by SQL), trusting no function or virtual table a schema names, and watched by the
 * authorizer that tells which sealed tables a statement reads (store-seal.c). */
static int connect(struct store *s, const char *name, int oflags, struct err *e)
{
	if (sqlite3_open_v2(name, &s->db, oflags, NULL) != SQLITE_OK)
		return store_sqlerr(s, e, "open");
	sqlite3_busy_handler(s->db, on_busy, s);
	sqlite3_extended_result_codes(s->db, 0);
	if (sqlite3_db_config(s->db, SQLITE_DBCONFIG_DEFENSIVE, 1, (int *)NULL) != SQLITE_OK ||
	    sqlite3_db_config(s->db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, (int *)NULL) != SQLITE_OK ||
	    sqlite3_exec(s->db, "PRAGMA trusted_schema = OFF", NULL, NULL, NULL) != SQLITE_OK)
		return store_sqlerr(s, e, "open");
	sqlite3_set_authorizer(s->db, store_read_auth, s);
	return 0;
}

/* ---- the schema objects a store may hold ---- */

int store_reference_schema(int version, sqlite3 **out, struct err *e)
{
	if (sqlite3_open_v2(":memory:", out, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK)
		return err_set(e, VF_ESTORE, "cannot open an in-memory database");
	for (int v = 1; v <= version; v++) {
		const char *sql = store_migration(v);
		struct sbuf tidy = {0};
		if (sql)
			store_sql_tidy(sql, &tidy);
		int ok = sql &&
			 sqlite3_exec(*out, tidy.s ? tidy.s : "", NULL, NULL, NULL) == SQLITE_OK;
		sbuf_release(&tidy);
		if (!ok)
			return err_set(e, VF_ESTORE, "migration %d: %s", v,
				       sql ? sqlite3_errmsg(*out) : "missing");
	}
	if (sqlite3_exec(*out, STORE_TASK_SCHEMA, NULL, NULL, NULL) != SQLITE_OK)
		return err_set(e, VF_ESTORE, "task table: %s", sqlite3_errmsg(*out));
	return 0;
}

/* Is the object (type, name, sql) one ref holds, the same? sqlite_stat tables (ANALYZE's)
 * only steer the query planner: they are allowed. */
static int known_object(sqlite3_stmt *ref, const char *type, const char *name, const char *sql)
{
	if (!strncmp(name, "sqlite_stat", 11) && !strcmp(type, "table"))
		return 1;
	sqlite3_bind_text(ref, 1, type, -1, SQLITE_STATIC);
	sqlite3_bind_text(ref, 2, name, -1, SQLITE_STATIC);
	int known = -1;
	if (sqlite3_step(ref) == SQLITE_ROW)
		known = store_sql_same((const char *)sqlite3_column_text(ref, 0), sql);
	sqlite3_reset(ref);
	return known;
}

int store_schema_foreign(struct store *s, int version,
			 void (*cb)(void *ctx, const char *type, const char *name, const char *why),
			 void *ctx, int *n, struct err *e)
{
	sqlite3 *ref = NULL;
	sqlite3_stmt *want = NULL, *have = NULL;
	int rc = store_reference_schema(version, &ref, e), step;
	*n = 0;
	if (rc)
		goto out;
	if (sqlite3_prepare_v2(ref, "SELECT sql FROM sqlite_master WHERE type = ? AND name = ?", -1,
			       &want, NULL) != SQLITE_OK) {
		rc = err_set(e, VF_ESTORE, "reference schema: %s", sqlite3_errmsg(ref));
		goto out;
	}
	if ((rc = store_prep(s, "SELECT type, name, sql FROM sqlite_master ORDER BY rowid", &have,
			     e)))
		goto out;
	while ((step = sqlite3_step(have)) == SQLITE_ROW) {
		const char *type = (const char *)sqlite3_column_text(have, 0);
		const char *name = (const char *)sqlite3_column_text(have, 1);
		int k = known_object(want, type ? type : "", name ? name : "",
				     (const char *)sqlite3_column_text(have, 2));
		if (k == 1)
			continue;
		(*n)++;
		if (cb)
			cb(ctx, type ? type : "?", name ? name : "?",
			   k ? "not made by voidfit" : "differs from what voidfit makes");
	}
	if (step != SQLITE_DONE)
		rc = store_sqlerr(s, e, "read the schema");
out:
	sqlite3_finalize(want);
	sqlite3_finalize(have);
	sqlite3_close(ref);
	return rc;
}

/* The first few foreign objects, for the message that refuses a store. */
static void name_foreign(void *ctx, const char *type, const char *name, const char *why)
{
	struct sbuf *b = ctx;
	(void)why;
	if (b->len < 200)
		sbuf_printf(b, "%s%s '%s'", b->len ? ", " : "", type, name);
	else if (b->s[b->len - 1] != '.')
		sbuf_adds(b, ", ...");
}

/* Refuse a store holding objects the migrations to its version do not make, before any
 * table is read. */
static int refuse_foreign(struct store *s, int version, struct err *e)
{
	struct sbuf b = SBUF_INIT;
	int n, rc;
	sbuf_init(&b);
	rc = store_schema_foreign(s, version, name_foreign, &b, &n, e);
	if (!rc && n)
		rc = err_set(e, VF_ESTORE,
			     "%s: holds %d schema object%s voidfit does not make (%s): refused "
			     "unread; 'voidfit check %s' lists them",
			     s->path, n, n == 1 ? "" : "s", b.s, s->path);
	sbuf_release(&b);
	return rc;
}

/* The tables the migrations seal (their rows in the reference's row_sums). */
static int load_sealed(struct store *s, struct err *e)
{
	sqlite3 *ref = NULL;
	sqlite3_stmt *st = NULL;
	int rc = store_reference_schema(store_schema_version(), &ref, e);
	s->nsealed = 0;
	if (!rc && sqlite3_prepare_v2(ref, "SELECT tbl FROM row_sums ORDER BY rowid", -1, &st,
				      NULL) != SQLITE_OK)
		rc = err_set(e, VF_ESTORE, "reference schema: %s", sqlite3_errmsg(ref));
	while (!rc && sqlite3_step(st) == SQLITE_ROW) {
		const char *t = (const char *)sqlite3_column_text(st, 0);
		if (s->nsealed == STORE_MAX_SEALED || strlen(t) >= sizeof s->sealed[0])
			rc = err_set(e, VF_ESTORE, "reference schema: too many sealed tables");
		else
			snprintf(s->sealed[s->nsealed++], sizeof s->sealed[0], "%s", t);
	}
	sqlite3_finalize(st);
	sqlite3_close(ref);
	return rc;
}

/* The new store s holds its first commit: link it into place, unless a file appeared
 * there meanwhile (another import made a store: it is left alone, and this one is
 * dropped), then go on at its real name. */
static int publish(struct store *s, struct err *e)
{
	if (link(s->tmp, s->path) != 0) {
		int err = errno;
		if (err == EEXIST)
			return err_set(e, VF_ESTORE,
				       "%s: another process made a file there while this store "
				       "was being made; that file is left as it is",
				       s->path);
		return err_set(e, VF_EIO, "%s: cannot put the new store in place: %s", s->path,
			       strerror(err));
	}
	remove_temp(s);
	forget_pending(s);
	sqlite3_finalize(s->qins);
	s->qins = NULL;
	store_seal_forget(s);
	sqlite3_close_v2(s->db);
	s->db = NULL;
	return connect(s, s->path, SQLITE_OPEN_READWRITE, e);
}

int store_open(const char *path, int flags, struct store **out, struct err *e)
{
	return store_open_wait(path, flags, NULL, out, e);
}

int store_open_wait(const char *path, int flags, const struct store_wait *w, struct store **out,
		    struct err *e)
{
	*out = NULL;
	struct stat sb;
	int rdonly = !!(flags & STORE_RDONLY), rc = 0, exists = 1;
	if (stat(path, &sb) != 0) {
		exists = 0;
		if (errno != ENOENT || !(flags & STORE_CREATE) || rdonly)
			return err_set(e, VF_EIO, "%s: %s", path, strerror(errno));
	} else if (!S_ISREG(sb.st_mode)) {
		return err_set(e, VF_ESTORE, "%s: not a voidfit store (not a regular file)", path);
	} else if (sb.st_size == 0) {
		return err_set(e, VF_ESTORE, "%s: not a voidfit store (an empty file)", path);
	}
	struct store *s = xcalloc(1, sizeof *s);
	s->path = xstrdup(path);
	s->rdonly = rdonly;
	s->checking = !!(flags & STORE_CHECK);
	s->wait_s = w ? w->seconds : STORE_WAIT_DEFAULT;
	s->waiting = w ? w->waiting : NULL;
	s->wait_ctx = w ? w->ctx : NULL;
	/* A read-only store is still opened for writing when the file allows it, so a hot
	 * journal left by a killed import is rolled back instead of making the store
	 * unreadable, and an older schema is brought up to date; PRAGMA query_only then keeps
	 * the connection from writing. */
	int oflags = SQLITE_OPEN_READWRITE;
	if (s->rdonly && access(path, W_OK) != 0)
		oflags = SQLITE_OPEN_READONLY;
	if (sqlite3_initialize() != SQLITE_OK) {
		rc = err_set(e, VF_ESTORE, "%s: cannot start SQLite", path);
		goto fail;
	}
	if (!exists && (rc = make_temp(s, e)))
		goto fail;
	if ((rc = connect(s, s->tmp ? s->tmp : path, oflags, e)))
		goto fail;
	if (!s->rdonly && sqlite3_db_readonly(s->db, "main") == 1) {
		char cause[300];
		write_cause(path, cause, sizeof cause);
		rc = err_set(e, VF_EIO, "%s: %s", path, cause);
		goto fail;
	}
	int64_t app, ver;
	if ((rc = store_query_int(s, "PRAGMA application_id", &app, e)) ||
	    (rc = store_query_int(s, "PRAGMA user_version", &ver, e)))
		goto fail;
	if (!s->tmp && app != STORE_APP_ID) {
		rc = err_set(e, VF_ESTORE, "%s: not a voidfit store", path);
		goto fail;
	}
	if (ver > store_schema_version()) {
		rc = err_set(e, VF_ESTORE,
			     "%s: schema version %lld is newer than this voidfit knows (%d)", path,
			     (long long)ver, store_schema_version());
		goto fail;
	}
	/* A store to check is opened all the same, but not brought up to date: a migration
	 * would fire a foreign trigger. */
	if (!s->tmp && !s->checking && (rc = refuse_foreign(s, (int)ver, e)))
		goto fail;
	if (!s->tmp && s->checking &&
	    (rc = store_schema_foreign(s, (int)ver, NULL, NULL, &s->foreign, e)))
		goto fail;
	if ((rc = load_sealed(s, e)))
		goto fail;
	if (s->tmp && (rc = store_exec(s, "PRAGMA page_size = 1024", e)))
		goto fail;
	/* A new store holds nothing to lose: its schema is written without waiting for the
	 * disk (four syncs, milliseconds each, before an import can start). The first commit
	 * that follows syncs the file, schema pages included, before it is put in place. */
	if (s->tmp && (rc = store_exec(s, "PRAGMA synchronous = OFF", e)))
		goto fail;
	if (ver < store_schema_version() && !s->foreign) {
		if (sqlite3_db_readonly(s->db, "main") == 1) {
			rc = err_set(e, VF_ESTORE,
				     "%s: schema version %lld needs an upgrade to %d (open it "
				     "where it can be written)",
				     path, (long long)ver, store_schema_version());
			goto fail;
		}
		int ro = s->rdonly;
		s->rdonly = 0;
		rc = migrate(s, (int)ver, e);
		s->rdonly = ro;
		if (rc)
			goto fail;
	}
	if (s->tmp && (rc = store_exec(s, "PRAGMA synchronous = FULL", e)))
		goto fail;
	if (s->rdonly && (rc = store_exec(s, "PRAGMA query_only = 1", e)))
		goto fail;
	/* before anything reads a node's model or a job's allowed models */
	if (!s->tmp && !s->checking && (rc = store_gpu_models_load(s, e)))
		goto fail;
	s->z = zblk_ctx_new(STORE_ZLEVEL);
	*out = s;
	return 0;
fail:
	store_close(s);
	return rc;
}

void store_close(struct store *s)
{
	if (!s)
		return;
	if (s->intx)
		store_rollback(s);
	store_read_end(s);
	sqlite3_finalize(s->qins);
	store_seal_forget(s);
	sqlite3_close_v2(s->db);
	remove_temp(s);
	forget_pending(s);
	zblk_ctx_free(s->z);
	FREE_ALL(s->path, s);
}

int store_begin(struct store *s, struct err *e)
{
	assert(!s->intx);
	if (s->rdonly)
		return err_set(e, VF_ESTORE, "%s: opened read-only", s->path);
	int rc = store_exec(s, "BEGIN IMMEDIATE", e);
	if (!rc)
		s->intx = 1;
	return rc;
}

int store_commit_migration(struct store *s, struct err *e)
{
	assert(s->intx);
	int rc = store_seal_flush(s, e);
	if (!rc)
		rc = store_exec(s, "COMMIT", e);
	if (rc) {
		store_rollback(s);
		return rc;
	}
	s->intx = 0;
	return 0;
}

/* A new store whose first commit holds a small import is rewritten with pages of
 * STORE_SMALL_PAGE bytes before it is put in place: most of such a store is its schema and
 * one page per table and index, nearly all empty (the openb pod list: 0.91 of 'xz -9e' of
 * the file instead of 1.05). A bigger one keeps 1 KiB pages: a block is read a page at a
 * time, and smaller pages would mean more reads. */
static int compact_small(struct store *s, struct err *e)
{
	int64_t pages, jobs;
	int rc;
	if ((rc = store_query_int(s, "PRAGMA page_count", &pages, e)) ||
	    (rc = store_query_int(s, "SELECT count(*) FROM job_blocks", &jobs, e)))
		return rc;
	if (!jobs || pages * 1024 > STORE_SMALL_STORE)
		return 0;
	char sql[64];
	snprintf(sql, sizeof sql, "PRAGMA page_size = %d; VACUUM", STORE_SMALL_PAGE);
	return store_exec(s, sql, e);
}

int store_commit(struct store *s, struct err *e)
{
	int rc = store_commit_migration(s, e);
	if (!rc && s->tmp)
		rc = compact_small(s, e);
	return rc || !s->tmp ? rc : publish(s, e);
}

void store_rollback(struct store *s)
{
	if (!s || !s->intx)
		return;
	sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	store_seal_discard(s);
	s->intx = 0;
}

int store_read_begin(struct store *s, struct err *e)
{
	assert(!s->intx && !s->inread);
	int rc = store_exec(s, "BEGIN", e);
	/* a deferred BEGIN takes its snapshot at the first read: read now */
	int64_t v;
	if (!rc && (rc = store_query_int(s, "SELECT count(*) FROM sqlite_master", &v, e)))
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	s->inread = !rc;
	return rc;
}

void store_read_end(struct store *s)
{
	if (!s || !s->inread)
		return;
	sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	s->inread = 0;
}

int store_can_write(struct store *s, struct err *e)
{
	char sql[48];
	snprintf(sql, sizeof sql, "PRAGMA user_version = %d", store_schema_version());
	int rc = store_begin(s, e);
	if (!rc) {
		rc = store_exec(s, sql, e);
		store_rollback(s);
	}
	return rc;
}

/* ---- traces ---- */

int store_trace_new(struct store *s, const char *name, int64_t *id, struct err *e)
{
	sqlite3_stmt *st;
	int rc = store_prep(s, "INSERT INTO traces(name, created_at) VALUES (?, ?)", &st, e);
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, util_now());
	int step = sqlite3_step(st);
	if (step == SQLITE_CONSTRAINT)
		rc = err_set(e, VF_EDUP, "trace '%s': already in %s", name, s->path);
	else if (step != SQLITE_DONE)
		rc = store_sqlerr(s, e, "add trace");
	else
		*id = sqlite3_last_insert_rowid(s->db);
	sqlite3_finalize(st);
	return rc ? rc : store_seal(s, "traces", *id, e);
}

int store_trace_find(struct store *s, const char *name_or_id, int64_t *id, struct err *e)
{
	sqlite3_stmt *st;
	int newest = !name_or_id || !*name_or_id;
	int rc = store_prep(s,
			    newest ? "SELECT id FROM traces ORDER BY id DESC LIMIT 1"
				   : "SELECT id FROM traces WHERE name = ?1 UNION ALL "
				     "SELECT id FROM traces WHERE CAST(id AS TEXT) = ?1 LIMIT 1",
			    &st, e);
	if (rc)
		return rc;
	if (!newest)
		sqlite3_bind_text(st, 1, name_or_id, -1, SQLITE_STATIC);
	int step = sqlite3_step(st);
	if (step == SQLITE_ROW)
		*id = sqlite3_column_int64(st, 0);
	else if (step == SQLITE_DONE && newest)
		rc = err_set(e, VF_EINPUT, "%s: no trace in the store", s->path);
	else if (step == SQLITE_DONE)
		rc = err_set(e, VF_EINPUT, "trace '%s': not in %s", name_or_id, s->path);
	else
		rc = store_sqlerr(s, e, "find trace");
	sqlite3_finalize(st);
	return rc;
}

int store_trace_list(struct store *s, int (*cb)(void *ctx, const struct store_trace_info *t),
		     void *ctx, struct err *e)
{
	struct store_rows q;
	int rc = store_rows_begin(
		s, &q, "SELECT id, name, created_at, njobs, nnodes FROM traces ORDER BY id", NULL,
		e);
	sqlite3_stmt *st = q.st;
	while (!rc && store_rows_next(&q)) {
		struct store_trace_info t = {
			.id = sqlite3_column_int64(st, 0),
			.name = (const char *)sqlite3_column_text(st, 1),
			.created_at = sqlite3_column_int64(st, 2),
			.njobs = sqlite3_column_int64(st, 3),
			.nnodes = sqlite3_column_int64(st, 4),
		};
		rc = cb(ctx, &t);
	}
	return store_rows_end(&q, rc, "list traces");
}

/* ---- files ---- */

int store_file_add(struct store *s, struct store_file *f, struct err *e)
{
	char hex[65];
	sha256_hex(f->sha256, hex);
	sqlite3_stmt *st;
	int rc = store_prep(s,
			    "INSERT INTO files(trace_id, name, format, size, sha256, rows_read, "
			    "rows_accepted, rows_quarantined, imported_at, voidfit_version) "
			    "VALUES (?,?,?,?,?,?,?,?,?,?)",
			    &st, e);
	if (rc)
		return rc;
	STORE_BIND(st, STORE_I(f->trace_id), STORE_T(f->name), STORE_T(f->format ? f->format : ""),
		   STORE_I(f->size), STORE_T(hex), STORE_I(f->rows_read), STORE_I(f->rows_accepted),
		   STORE_I(f->rows_quarantined), STORE_I(f->imported_at), STORE_T(VOIDFIT_VERSION));
	rc = store_insert(s, st, "files", "file", &f->id, e);
	sqlite3_finalize(st);
	return rc;
}

int store_file_finish(struct store *s, const struct store_file *f, struct err *e)
{
	assert(f->rows_read == f->rows_accepted + f->rows_quarantined);
	sqlite3_stmt *st;
	char hex[65];
	sha256_hex(f->sha256, hex);
	int rc = store_prep(s,
			    "UPDATE files SET rows_read = ?, rows_accepted = ?, "
			    "rows_quarantined = ?, size = ?, sha256 = ? WHERE id = ?",
			    &st, e);
	if (rc)
		return rc;
	STORE_BIND(st, STORE_I(f->rows_read), STORE_I(f->rows_accepted),
		   STORE_I(f->rows_quarantined), STORE_I(f->size), STORE_T(hex), STORE_I(f->id));
	if (sqlite3_step(st) != SQLITE_DONE)
		rc = store_sqlerr(s, e, "update file");
	sqlite3_finalize(st);
	return rc ? rc : store_seal(s, "files", f->id, e);
}

int store_file_seen(struct store *s, const uint8_t sha256[32], char *trace_name, size_t len,
		    struct err *e)
{
	char hex[65];
	sha256_hex(sha256, hex);
	sqlite3_stmt *st;
	if (store_prep(s,
		       "SELECT t.name FROM files f JOIN traces t ON t.id = f.trace_id "
		       "WHERE f.sha256 = ? LIMIT 1",
		       &st, e))
		return 0;
	sqlite3_bind_text(st, 1, hex, -1, SQLITE_STATIC);
	int step = sqlite3_step(st), seen = step == SQLITE_ROW;
	if (seen && trace_name && len) {
		snprintf(trace_name, len, "%s", (const char *)sqlite3_column_text(st, 0));
	} else if (!seen && step != SQLITE_DONE) {
		store_sqlerr(s, e, "find file");
	}
	sqlite3_finalize(st);
	return seen;
}

int store_file_size_seen(struct store *s, int64_t size, struct err *e)
{
	sqlite3_stmt *st;
	if (store_prep(s, "SELECT 1 FROM files WHERE size = ? LIMIT 1", &st, e))
		return 0;
	sqlite3_bind_int64(st, 1, size);
	int step = sqlite3_step(st);
	if (step != SQLITE_ROW && step != SQLITE_DONE)
		store_sqlerr(s, e, "find file");
	sqlite3_finalize(st);
	return step == SQLITE_ROW;
}

int store_file_list(struct store *s, int64_t trace_id,
		    int (*cb)(void *ctx, const struct store_file *f), void *ctx, struct err *e)
{
	struct store_rows q;
	int rc = store_rows_begin(s, &q,
				  "SELECT id, trace_id, name, format, size, sha256, rows_read, "
				  "rows_accepted, rows_quarantined, imported_at FROM files "
				  "WHERE ?1 < 0 OR trace_id = ?1 ORDER BY id",
				  &trace_id, e);
	sqlite3_stmt *st = q.st;
	while (!rc && store_rows_next(&q)) {
		struct store_file f = {
			.id = sqlite3_column_int64(st, 0),
			.trace_id = sqlite3_column_int64(st, 1),
			.name = (const char *)sqlite3_column_text(st, 2),
			.format = (const char *)sqlite3_column_text(st, 3),
			.size = sqlite3_column_int64(st, 4),
			.rows_read = sqlite3_column_int64(st, 6),
			.rows_accepted = sqlite3_column_int64(st, 7),
			.rows_quarantined = sqlite3_column_int64(st, 8),
			.imported_at = sqlite3_column_int64(st, 9),
		};
		const char *hex = (const char *)sqlite3_column_text(st, 5);
		for (int i = 0; hex && i < 32 && hex[2 * i] && hex[2 * i + 1]; i++) {
			char t[3] = {hex[2 * i], hex[2 * i + 1], 0};
			f.sha256[i] = (uint8_t)strtoul(t, NULL, 16);
		}
		rc = cb(ctx, &f);
	}
	return store_rows_end(&q, rc, "list files");
}

/* ---- quarantine ---- */

int store_quarantine_add(struct store *s, int64_t file_id, int64_t line, const char *reason,
			 const char *raw, size_t rawlen, struct err *e)
{
	int rc = 0;
	if (!s->qins && (rc = store_prep(s,
					 "INSERT INTO quarantine(file_id, line, reason, raw, rsum) "
					 "VALUES (?,?,?,?,?)",
					 &s->qins, e)))
		return rc;
	/* Hashed from its cells, as store_seal would read them back (bad rows can be many). */
	struct store_rowhash h;
	store_rowhash_init(&h);
	store_rowhash_int(&h, "file_id", file_id);
	store_rowhash_int(&h, "line", line);
	store_rowhash_bytes(&h, "reason", SQLITE_TEXT, reason, strlen(reason));
	store_rowhash_bytes(&h, "raw", SQLITE_BLOB, raw, rawlen);
	uint64_t sum = store_rowhash_end(&h);
	sqlite3_stmt *st = s->qins;
	sqlite3_bind_int64(st, 1, file_id);
	sqlite3_bind_int64(st, 2, line);
	sqlite3_bind_text(st, 3, reason, -1, SQLITE_STATIC);
	sqlite3_bind_blob(st, 4, rawlen ? raw : "", (int)rawlen, SQLITE_STATIC);
	sqlite3_bind_int64(st, 5, (int64_t)sum);
	if (sqlite3_step(st) != SQLITE_DONE)
		rc = store_sqlerr(s, e, "add quarantined row");
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return rc ? rc : store_seal_added(s, "quarantine", sum, e);
}

/* ---- sizes ---- */

int store_sizes(struct store *s, struct store_sizes *out, struct err *e)
{
	int64_t pages, psize, freep, raw;
	int rc;
	if ((rc = store_query_int(s, "PRAGMA page_count", &pages, e)) ||
	    (rc = store_query_int(s, "PRAGMA page_size", &psize, e)) ||
	    (rc = store_query_int(s, "PRAGMA freelist_count", &freep, e)) ||
	    (rc = store_query_int(s, "SELECT coalesce(sum(size), 0) FROM files", &raw, e)))
		return rc;
	out->store_bytes = pages * psize;
	out->free_bytes = freep * psize;
	out->raw_bytes = raw;
	return 0;
}
