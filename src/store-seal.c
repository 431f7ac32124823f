/*
 * store-seal.c — row checksums of the plain SQL tables (schema version 2 on).
 *
 * A sealed table (one listed in row_sums) has a column rsum: the first 8 bytes, as a
 * little-endian signed 64-bit integer, of the SHA-256 of the row's other cells in column
 * order, NULL cells skipped, each cell as its column name, a NUL, its type (1 integer,
 * 2 real, 3 text, 4 blob) and its value (an integer or a real as 8 little-endian bytes;
 * text or a blob as its 8-byte little-endian length and its bytes). The rowid is not
 * hashed (it is a cell only where a table names it: id INTEGER PRIMARY KEY), so VACUUM
 * keeps every sum.
 *
 * row_sums holds, per sealed table, the rows voidfit wrote (nrows) and the sum mod 2^64 of
 * their rsum (total): a row changed outside voidfit no longer matches its rsum, and one
 * deleted or added changes the count or the total.
 *
 * Writing: every insert or update of a sealed row is followed by store_seal(table, rowid),
 * which rewrites its rsum and adds the change to the table's pending count and total (a
 * row inserted often, a quarantined one, is hashed from its values and inserted with its
 * rsum instead: store_rowhash_*, store_seal_added);
 * store_seal_flush adds those to row_sums just before COMMIT, store_seal_discard drops
 * them on ROLLBACK. A migration ends with store_seal_all, which seals every row it left
 * without an rsum.
 */
#include <stdlib.h>
#include <string.h>

#include "sha256.h"
#include "store-int.h"

static void put_u64(struct sha256 *h, uint64_t v)
{
	uint8_t b[8];
	for (int i = 0; i < 8; i++)
		b[i] = (uint8_t)(v >> (8 * i));
	sha256_update(h, b, 8);
}

void store_rowhash_init(struct store_rowhash *r)
{
	sha256_init(&r->h);
}

static void put_head(struct store_rowhash *r, const char *name, int type)
{
	uint8_t t = (uint8_t)type;
	sha256_update(&r->h, name, strlen(name) + 1);
	sha256_update(&r->h, &t, 1);
}

void store_rowhash_int(struct store_rowhash *r, const char *name, int64_t v)
{
	put_head(r, name, SQLITE_INTEGER);
	put_u64(&r->h, (uint64_t)v);
}

void store_rowhash_bytes(struct store_rowhash *r, const char *name, int type, const void *p,
			 size_t len)
{
	put_head(r, name, type);
	put_u64(&r->h, len);
	sha256_update(&r->h, p, len);
}

uint64_t store_rowhash_end(struct store_rowhash *r)
{
	uint8_t d[32];
	uint64_t v = 0;
	sha256_final(&r->h, d);
	for (int i = 0; i < 8; i++)
		v |= (uint64_t)d[i] << (8 * i);
	return v;
}

/* store_row_sum from a hash state just initialised (sha256_init asks the CPU what it can
 * do: copying one state is much cheaper, row after row of a table). */
static uint64_t row_sum_from(sqlite3_stmt *st, int from, int *rsum_col, const struct sha256 *iv)
{
	struct store_rowhash r = {*iv};
	int n = sqlite3_column_count(st);
	*rsum_col = -1;
	for (int i = from; i < n; i++) {
		const char *name = sqlite3_column_name(st, i);
		int type = sqlite3_column_type(st, i);
		if (!strcmp(name, "rsum")) {
			*rsum_col = i;
		} else if (type == SQLITE_INTEGER) {
			store_rowhash_int(&r, name, sqlite3_column_int64(st, i));
		} else if (type == SQLITE_FLOAT) {
			double v = sqlite3_column_double(st, i);
			uint64_t u;
			memcpy(&u, &v, 8);
			put_head(&r, name, SQLITE_FLOAT);
			put_u64(&r.h, u);
		} else if (type == SQLITE_TEXT || type == SQLITE_BLOB) {
			const void *p = type == SQLITE_TEXT
						? (const void *)sqlite3_column_text(st, i)
						: sqlite3_column_blob(st, i);
			store_rowhash_bytes(&r, name, type, p, (size_t)sqlite3_column_bytes(st, i));
		}
	}
	return store_rowhash_end(&r);
}

uint64_t store_row_sum(sqlite3_stmt *st, int from, int *rsum_col)
{
	struct sha256 iv;
	sha256_init(&iv);
	return row_sum_from(st, from, rsum_col, &iv);
}

/* The cached statements and pending changes of a table; NULL if there is no room. */
static struct store_sealtab *tab(struct store *s, const char *table, struct err *e)
{
	for (size_t i = 0; i < s->nseal; i++)
		if (!strcmp(s->seal[i].name, table))
			return &s->seal[i];
	if (s->nseal == STORE_MAX_SEALED || strlen(table) >= sizeof s->seal[0].name ||
	    strspn(table, "abcdefghijklmnopqrstuvwxyz_0123456789") != strlen(table)) {
		err_set(e, VF_ESTORE, "%s: table '%s' cannot be sealed", s->path, table);
		return NULL;
	}
	struct store_sealtab *t = &s->seal[s->nseal];
	memset(t, 0, sizeof *t);
	snprintf(t->name, sizeof t->name, "%s", table);
	char sql[128];
	snprintf(sql, sizeof sql, "SELECT * FROM %s WHERE rowid = ?", table);
	if (store_prep(s, sql, &t->sel, e))
		return NULL;
	snprintf(sql, sizeof sql, "UPDATE %s SET rsum = ? WHERE rowid = ?", table);
	if (store_prep(s, sql, &t->upd, e)) {
		sqlite3_finalize(t->sel);
		return NULL;
	}
	s->nseal++;
	return t;
}

int store_seal(struct store *s, const char *table, int64_t rowid, struct err *e)
{
	struct store_sealtab *t = tab(s, table, e);
	if (!t)
		return VF_ESTORE;
	sqlite3_bind_int64(t->sel, 1, rowid);
	int rc = 0, step = sqlite3_step(t->sel), col;
	if (step != SQLITE_ROW) {
		rc = step == SQLITE_DONE ? err_set(e, VF_ESTORE, "%s: %s row %lld is not there",
						   s->path, table, (long long)rowid)
					 : store_sqlerr(s, e, "seal");
		sqlite3_reset(t->sel);
		return rc;
	}
	uint64_t sum = store_row_sum(t->sel, 0, &col);
	if (col < 0) {
		sqlite3_reset(t->sel);
		return err_set(e, VF_ESTORE, "%s: table %s has no rsum column", s->path, table);
	}
	int fresh = sqlite3_column_type(t->sel, col) == SQLITE_NULL;
	uint64_t old = (uint64_t)sqlite3_column_int64(t->sel, col);
	sqlite3_reset(t->sel);
	sqlite3_bind_int64(t->upd, 1, (int64_t)sum);
	sqlite3_bind_int64(t->upd, 2, rowid);
	if (sqlite3_step(t->upd) != SQLITE_DONE)
		rc = store_sqlerr(s, e, "seal");
	sqlite3_reset(t->upd);
	if (!rc) {
		t->dn += fresh;
		t->dtotal += sum - (fresh ? 0 : old);
		t->dirty = 1;
	}
	return rc;
}

int store_insert(struct store *s, sqlite3_stmt *st, const char *table, const char *what,
		 int64_t *id, struct err *e)
{
	char msg[64];
	int64_t rowid = 0;
	int rc = 0;
	if (sqlite3_step(st) != SQLITE_DONE) {
		snprintf(msg, sizeof msg, "add %s", what);
		rc = store_sqlerr(s, e, msg);
	} else {
		rowid = sqlite3_last_insert_rowid(s->db);
	}
	sqlite3_reset(st);
	if (rc)
		return rc;
	if (id)
		*id = rowid;
	return store_seal(s, table, rowid, e);
}

int store_seal_intact(struct store *s, const char *table, int64_t rowid, struct err *e)
{
	struct store_sealtab *t = tab(s, table, e);
	if (!t)
		return VF_ESTORE;
	sqlite3_bind_int64(t->sel, 1, rowid);
	int step = sqlite3_step(t->sel), col, rc = 0;
	if (step == SQLITE_ROW) {
		uint64_t sum = store_row_sum(t->sel, 0, &col);
		if (col < 0 || sqlite3_column_type(t->sel, col) != SQLITE_INTEGER ||
		    (uint64_t)sqlite3_column_int64(t->sel, col) != sum)
			rc = err_set(
				e, VF_ESTORE,
				"%s: table %s: row %lld does not match its checksum: the store "
				"was damaged or changed outside voidfit ('voidfit check %s' "
				"tells more)",
				s->path, table, (long long)rowid, s->path);
	} else if (step != SQLITE_DONE) {
		rc = store_sqlerr(s, e, "seal");
	}
	sqlite3_reset(t->sel);
	return rc;
}

int store_unseal(struct store *s, const char *table, const char *where, int64_t id, struct err *e)
{
	struct store_sealtab *t = tab(s, table, e);
	sqlite3_stmt *st;
	char sql[256];
	int rc, step;
	if (!t)
		return VF_ESTORE;
	snprintf(sql, sizeof sql, "SELECT rsum FROM %s WHERE %s", table, where);
	if ((rc = store_prep(s, sql, &st, e)))
		return rc;
	sqlite3_bind_int64(st, 1, id);
	while ((step = sqlite3_step(st)) == SQLITE_ROW)
		if (sqlite3_column_type(st, 0) != SQLITE_NULL) {
			t->dn--;
			t->dtotal -= (uint64_t)sqlite3_column_int64(st, 0);
			t->dirty = 1;
		}
	if (step != SQLITE_DONE)
		rc = store_sqlerr(s, e, "unseal");
	sqlite3_finalize(st);
	return rc;
}

int store_seal_added(struct store *s, const char *table, uint64_t sum, struct err *e)
{
	struct store_sealtab *t = tab(s, table, e);
	if (!t)
		return VF_ESTORE;
	t->dn++;
	t->dtotal += sum;
	t->dirty = 1;
	return 0;
}

int store_seal_all(struct store *s, struct err *e)
{
	sqlite3_stmt *tabs;
	int64_t has;
	int rc = store_query_int(
		s, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'row_sums'",
		&has, e);
	if (rc || !has) /* before schema version 2, nothing is sealed */
		return rc;
	int step;
	if ((rc = store_prep(s, "SELECT tbl FROM row_sums ORDER BY tbl", &tabs, e)))
		return rc;
	while (!rc && (step = sqlite3_step(tabs)) == SQLITE_ROW) {
		char sql[128];
		snprintf(sql, sizeof sql, "SELECT rowid FROM %s WHERE rsum IS NULL",
			 (const char *)sqlite3_column_text(tabs, 0));
		/* Sealing a row takes it out of the query: read the rowids first. */
		int64_t *ids = NULL;
		size_t n = 0;
		rc = store_ids(s, sql, NULL, &ids, &n, "seal", e);
		for (size_t i = 0; i < n && !rc; i++)
			rc = store_seal(s, (const char *)sqlite3_column_text(tabs, 0), ids[i], e);
		free(ids);
	}
	if (!rc && step != SQLITE_DONE)
		rc = store_sqlerr(s, e, "seal");
	sqlite3_finalize(tabs);
	return rc;
}

int store_seal_flush(struct store *s, struct err *e)
{
	sqlite3_stmt *get = NULL, *put = NULL;
	int rc = 0;
	for (size_t i = 0; i < s->nseal && !rc; i++) {
		struct store_sealtab *t = &s->seal[i];
		if (!t->dirty)
			continue;
		if ((!get &&
		     (rc = store_prep(s, "SELECT total FROM row_sums WHERE tbl = ?", &get, e))) ||
		    (!put && (rc = store_prep(s,
					      "UPDATE row_sums SET nrows = nrows + ?, total = ? "
					      "WHERE tbl = ?",
					      &put, e))))
			break;
		sqlite3_bind_text(get, 1, t->name, -1, SQLITE_STATIC);
		int step = sqlite3_step(get);
		if (step != SQLITE_ROW) {
			rc = step == SQLITE_DONE
				     ? err_set(e, VF_ESTORE, "%s: table %s is not in row_sums",
					       s->path, t->name)
				     : store_sqlerr(s, e, "row sums");
			break;
		}
		uint64_t total = (uint64_t)sqlite3_column_int64(get, 0) + t->dtotal;
		sqlite3_reset(get);
		sqlite3_bind_int64(put, 1, t->dn);
		sqlite3_bind_int64(put, 2, (int64_t)total);
		sqlite3_bind_text(put, 3, t->name, -1, SQLITE_STATIC);
		if (sqlite3_step(put) != SQLITE_DONE)
			rc = store_sqlerr(s, e, "row sums");
		sqlite3_reset(put);
	}
	sqlite3_finalize(get);
	sqlite3_finalize(put);
	if (!rc)
		store_seal_discard(s);
	return rc;
}

void store_seal_discard(struct store *s)
{
	for (size_t i = 0; i < s->nseal; i++) {
		s->seal[i].dn = 0;
		s->seal[i].dtotal = 0;
		s->seal[i].dirty = 0;
	}
}

void store_seal_forget(struct store *s)
{
	for (size_t i = 0; i < s->nseal; i++) {
		sqlite3_finalize(s->seal[i].sel);
		sqlite3_finalize(s->seal[i].upd);
	}
	s->nseal = 0;
}

/* ---- reading: verify what the seals cover before it is read ----
 *
 * The authorizer sees, while a statement is prepared, every table it reads; store_prep then
 * verifies those of them that are sealed, once per snapshot (PRAGMA data_version changes
 * when another connection commits): each row against its checksum (a row changed), the
 * rows and the sum of their checksums against row_sums (a row deleted or added). The rows
 * of a table a reader uses are read anyway; this reads them once more, as a whole table,
 * so that what a reader answers rests on rows voidfit wrote. */

int store_seal_scan(struct store *s, const char *table, int with_rowid,
		    void (*bad)(void *ctx, sqlite3_stmt *st, int sealed), void *ctx, int64_t *n,
		    uint64_t *sum, struct err *e)
{
	sqlite3_stmt *st;
	char sql[128];
	int step, col, rc;
	snprintf(sql, sizeof sql, "SELECT %s* FROM %s", with_rowid ? "rowid AS vf_rowid, " : "",
		 table);
	struct sha256 iv;
	*n = 0;
	*sum = 0;
	if ((rc = store_prep(s, sql, &st, e)))
		return rc;
	sha256_init(&iv);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		uint64_t h = row_sum_from(st, with_rowid, &col, &iv);
		int sealed = col >= 0 && sqlite3_column_type(st, col) == SQLITE_INTEGER;
		(*n)++;
		*sum += h;
		if ((!sealed || (uint64_t)sqlite3_column_int64(st, col) != h) && bad)
			bad(ctx, st, sealed);
	}
	if (step != SQLITE_DONE)
		rc = store_sqlerr(s, e, "row sums");
	sqlite3_finalize(st);
	return rc;
}

int store_read_auth(void *ctx, int action, const char *a, const char *b, const char *db,
		    const char *trigger)
{
	struct store *s = ctx;
	(void)b;
	(void)db;
	(void)trigger;
	if (action == SQLITE_READ && a && !s->verifying)
		for (size_t i = 0; i < s->nsealed; i++)
			if (!strcmp(s->sealed[i], a))
				s->touched |= 1u << i;
	return SQLITE_OK;
}

static void count_bad(void *ctx, sqlite3_stmt *st, int sealed)
{
	(void)st;
	(void)sealed;
	++*(int64_t *)ctx;
}

/* SQLite's integrity check of one table and its indexes: a reader that looks rows up by an
 * index (a run's buckets, its metrics) reads what the index points to, and a damaged index
 * hides rows a scan of the table, and so the checksums, still sees. The first problem into
 * what (empty if none). */
static int table_integrity(struct store *s, const char *table, char *what, size_t len,
			   struct err *e)
{
	sqlite3_stmt *st;
	char sql[96];
	snprintf(sql, sizeof sql, "PRAGMA integrity_check(%s)", table);
	int rc = store_prep(s, sql, &st, e);
	if (rc)
		return rc;
	what[0] = 0;
	if (sqlite3_step(st) == SQLITE_ROW) {
		const char *r = (const char *)sqlite3_column_text(st, 0), *nl;
		if (r && !strncmp(r, "*** ", 4) && (nl = strchr(r, '\n'))) /* "*** in database" */
			r = nl + 1;
		if (!r || strcmp(r, "ok"))
			snprintf(what, len, "its pages or indexes are damaged (%.100s)",
				 r ? r : "?");
	} else {
		rc = store_sqlerr(s, e, "integrity check");
	}
	sqlite3_finalize(st);
	return rc;
}

/* Verify one sealed table as a whole. */
static int verify_table(struct store *s, const char *table, struct err *e)
{
	sqlite3_stmt *st;
	int64_t n, bad = 0, nrows = 0;
	uint64_t sum, total = 0;
	int rc = store_prep(s, "SELECT nrows, total FROM row_sums WHERE tbl = ?", &st, e), step;
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	if ((step = sqlite3_step(st)) == SQLITE_ROW) {
		nrows = sqlite3_column_int64(st, 0);
		total = (uint64_t)sqlite3_column_int64(st, 1);
	} else if (step != SQLITE_DONE) {
		rc = store_sqlerr(s, e, "row sums");
	}
	sqlite3_finalize(st);
	if (rc || (rc = store_seal_scan(s, table, 0, count_bad, &bad, &n, &sum, e)))
		return rc;
	char what[160];
	if ((rc = table_integrity(s, table, what, sizeof what, e)))
		return rc;
	if (what[0]) /* first: a damaged page or index may be why rows do not match */
		goto damaged;
	if (step == SQLITE_DONE)
		snprintf(what, sizeof what, "not in row_sums: its rows cannot be verified");
	else if (bad)
		snprintf(what, sizeof what, "%lld of its %lld rows do not match their checksum",
			 (long long)bad, (long long)n);
	else if (n != nrows)
		snprintf(what, sizeof what, "%lld rows, %lld written by voidfit (rows were %s)",
			 (long long)n, (long long)nrows, n < nrows ? "deleted" : "added");
	else if (sum != total)
		snprintf(what, sizeof what, "%lld rows, but not those voidfit wrote", (long long)n);
	else
		return 0;
damaged:
	return err_set(e, VF_ESTORE,
		       "%s: table %s: %s: the store was damaged or changed outside voidfit "
		       "('voidfit check %s' tells more)",
		       s->path, table, what, s->path);
}

int store_read_verify(struct store *s, struct err *e)
{
	unsigned want = s->touched;
	int rc = 0;
	s->touched = 0;
	if (!want || s->intx || s->checking || s->verifying)
		return 0;
	s->verifying = 1;
	if (s->verified) {
		int64_t dv;
		if ((rc = store_query_int(s, "PRAGMA data_version", &dv, e)))
			goto out;
		if (dv != s->vdv)
			s->verified = 0;
	}
	if (!(want & ~s->verified))
		goto out;
	if (!s->verified && (rc = store_query_int(s, "PRAGMA data_version", &s->vdv, e)))
		goto out;
	for (size_t i = 0; i < s->nsealed && !rc; i++)
		if ((want & ~s->verified) & (1u << i) && !(rc = verify_table(s, s->sealed[i], e)))
			s->verified |= 1u << i;
out:
	s->verifying = 0;
	return rc;
}

int store_verify_all(struct store *s, struct err *e)
{
	int rc = 0;
	s->verifying = 1;
	for (size_t i = 0; i < s->nsealed && !rc; i++)
		rc = verify_table(s, s->sealed[i], e);
	s->verifying = 0;
	return rc;
}
