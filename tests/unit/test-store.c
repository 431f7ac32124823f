/* test-store.c — the store: create and migrate, refuse what is not a store, keep files
 * byte for byte (tricky bytes and the real samples), jobs and runs round trips, damage
 * found by store_check, a killed import leaves no trace, a busy store is an error. */
#include <dirent.h>
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "gpumodel.h"
#include "sha256.h"
#include "store.h"
#include "../../src/store-int.h" /* the connection, for its pragmas */

struct fx {
	char dir[64];
	char path[96];
	struct store *s;
	struct err e;
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof *f);
	snprintf(f->dir, sizeof f->dir, "store-test.XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	snprintf(f->path, sizeof f->path, "%s/t.db", f->dir);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	store_close(f->s);
	char p[128];
	const char *names[] = {"t.db", "t.db-journal", "x.db", "junk"};
	for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
		snprintf(p, sizeof p, "%s/%s", f->dir, names[i]);
		remove(p);
	}
	rmdir(f->dir);
	free(f);
	return 0;
}

/* A new store, put in place by its first commit. */
static void open_new(struct fx *f)
{
	assert_int_equal(store_open(f->path, STORE_CREATE, &f->s, &f->e), 0);
	assert_int_equal(store_begin(f->s, &f->e), 0);
	assert_int_equal(store_commit(f->s, &f->e), 0);
}

/* Entries of dir other than . and .. */
static int dir_entries(const char *dir)
{
	DIR *d = opendir(dir);
	int n = 0;
	assert_non_null(d);
	for (struct dirent *de; (de = readdir(d));)
		n += strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
	closedir(d);
	return n;
}

static int64_t sql_int(const char *path, const char *sql)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	int64_t v = -999;
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return v;
}

static void sql_exec(const char *path, const char *sql)
{
	sqlite3 *db;
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
}

static void test_create_and_reopen(void **state)
{
	struct fx *f = *state;
	assert_int_not_equal(store_open(f->path, 0, &f->s, &f->e), 0); /* no file, no create */
	assert_null(f->s);
	open_new(f);
	store_close(f->s);
	f->s = NULL;
	assert_int_equal(sql_int(f->path, "PRAGMA application_id"), 0x56464954);
	assert_int_equal(sql_int(f->path, "PRAGMA user_version"), store_schema_version());
	assert_int_equal(sql_int(f->path, "SELECT count(*) FROM sqlite_master WHERE name IN "
					  "('traces','files','quarantine','nodes','runs',"
					  "'run_metrics','raw_blocks','job_blocks','row_sums')"),
			 9);
	assert_int_equal(store_open(f->path, STORE_RDONLY, &f->s, &f->e), 0);
	int64_t id;
	assert_int_equal(store_trace_find(f->s, NULL, &id, &f->e), VF_EINPUT); /* empty store */
}

/* A fresh store's schema is written without syncs; the connection syncs again after. */
static void test_fresh_store_syncs_after_schema(void **state)
{
	struct fx *f = *state;
	sqlite3_stmt *st;
	for (int round = 0; round < 2; round++) { /* a fresh file, then the same one again */
		open_new(f);
		assert_int_equal(sqlite3_prepare_v2(f->s->db, "PRAGMA synchronous", -1, &st, NULL),
				 SQLITE_OK);
		assert_int_equal(sqlite3_step(st), SQLITE_ROW);
		assert_int_equal(sqlite3_column_int(st, 0), 2); /* FULL, SQLite's default */
		sqlite3_finalize(st);
		store_close(f->s);
		f->s = NULL;
	}
	assert_int_equal(sql_int(f->path, "PRAGMA user_version"), store_schema_version());
}

static void test_not_a_store(void **state)
{
	struct fx *f = *state;
	char p[128];
	snprintf(p, sizeof p, "%s/junk", f->dir);
	FILE *j = fopen(p, "w");
	fputs("name,cpu\nthis is not sqlite at all, not even close........................\n", j);
	fclose(j);
	assert_int_equal(store_open(p, STORE_CREATE, &f->s, &f->e), VF_ESTORE);
	assert_non_null(strstr(f->e.msg, "not a voidfit store"));
	assert_non_null(strstr(f->e.msg, "junk"));
	/* Another program's SQLite file. */
	snprintf(p, sizeof p, "%s/x.db", f->dir);
	sql_exec(p, "CREATE TABLE t(x)");
	assert_int_equal(store_open(p, STORE_CREATE, &f->s, &f->e), VF_ESTORE);
	assert_non_null(strstr(f->e.msg, "not a voidfit store"));
	/* A store from a newer voidfit. */
	open_new(f);
	store_close(f->s);
	f->s = NULL;
	sql_exec(f->path, "PRAGMA user_version = 999");
	assert_int_equal(store_open(f->path, 0, &f->s, &f->e), VF_ESTORE);
	assert_non_null(strstr(f->e.msg, "newer"));
}

/* A file of n bytes (each 'x') at p; its sha256 in sha. */
static void write_bytes(const char *p, const void *data, size_t n, uint8_t sha[32])
{
	FILE *j = fopen(p, "wb");
	assert_non_null(j);
	assert_int_equal(fwrite(data, 1, n, j), n);
	fclose(j);
	sha256_buf(data, n, sha);
}

static void file_sha(const char *p, uint8_t sha[32])
{
	static char buf[1 << 16];
	FILE *j = fopen(p, "rb");
	assert_non_null(j);
	size_t n = fread(buf, 1, sizeof buf, j);
	fclose(j);
	sha256_buf(buf, n, sha);
}

/* Only import makes a store: an empty file, an empty SQLite file and another program's
 * SQLite file are refused by every kind of open and left byte for byte as they were. */
static void test_open_refuses_and_leaves_untouched(void **state)
{
	struct fx *f = *state;
	char p[128];
	uint8_t want[32], got[32];
	const int flags[] = {STORE_CREATE, 0, STORE_RDONLY};
	snprintf(p, sizeof p, "%s/x.db", f->dir);
	for (int kind = 0; kind < 3; kind++) {
		remove(p);
		if (kind == 0) {
			write_bytes(p, "", 0, want);
		} else {
			sql_exec(p, kind == 1 ? "VACUUM"
					      : "CREATE TABLE t(x); INSERT INTO t VALUES (1)");
			file_sha(p, want);
		}
		for (int i = 0; i < 3; i++) {
			assert_int_equal(store_open(p, flags[i], &f->s, &f->e), VF_ESTORE);
			assert_null(f->s);
			assert_non_null(strstr(f->e.msg, "not a voidfit store"));
			assert_non_null(strstr(f->e.msg, "x.db"));
			file_sha(p, got);
			assert_memory_equal(got, want, 32);
		}
	}
	remove(p);
	assert_int_equal(dir_entries(f->dir), 0); /* no journal, no temporary file */
}

/* A new store is not at its path before its first commit, and a store closed before that
 * leaves nothing behind. */
static void test_new_store_appears_at_commit(void **state)
{
	struct fx *f = *state;
	struct stat sb;
	int64_t id;
	assert_int_equal(store_open(f->path, STORE_CREATE, &f->s, &f->e), 0);
	assert_int_equal(stat(f->path, &sb), -1);
	assert_int_equal(store_begin(f->s, &f->e), 0);
	assert_int_equal(store_trace_new(f->s, "t", &id, &f->e), 0);
	store_close(f->s); /* no commit */
	f->s = NULL;
	assert_int_equal(dir_entries(f->dir), 0);
	assert_int_equal(store_open(f->path, STORE_CREATE, &f->s, &f->e), 0);
	assert_int_equal(store_begin(f->s, &f->e), 0);
	assert_int_equal(store_trace_new(f->s, "t", &id, &f->e), 0);
	assert_int_equal(store_commit(f->s, &f->e), 0);
	assert_int_equal(stat(f->path, &sb), 0);
	assert_int_equal(dir_entries(f->dir), 1);
	/* the store goes on at its path: another transaction, then a reader sees both */
	assert_int_equal(store_begin(f->s, &f->e), 0);
	assert_int_equal(store_trace_new(f->s, "u", &id, &f->e), 0);
	assert_int_equal(store_commit(f->s, &f->e), 0);
	store_close(f->s);
	f->s = NULL;
	assert_int_equal(sql_int(f->path, "SELECT count(*) FROM traces"), 2);
	assert_int_equal(dir_entries(f->dir), 1);
}

/* Two new stores at one path: the first commit puts its store there; the second is
 * refused, and removes only its own file. */
static void test_new_store_refused_if_path_taken(void **state)
{
	struct fx *f = *state;
	struct store *a, *b;
	int64_t id;
	assert_int_equal(store_open(f->path, STORE_CREATE, &a, &f->e), 0);
	assert_int_equal(store_open(f->path, STORE_CREATE, &b, &f->e), 0);
	assert_int_equal(store_begin(a, &f->e), 0);
	assert_int_equal(store_begin(b, &f->e), 0);
	assert_int_equal(store_trace_new(a, "first", &id, &f->e), 0);
	assert_int_equal(store_trace_new(b, "second", &id, &f->e), 0);
	assert_int_equal(store_commit(b, &f->e), 0);
	assert_int_equal(store_commit(a, &f->e), VF_ESTORE);
	assert_non_null(strstr(f->e.msg, "another process"));
	store_close(a);
	store_close(b);
	assert_int_equal(dir_entries(f->dir), 1);
	assert_int_equal(sql_int(f->path, "SELECT count(*) FROM traces WHERE name = 'second'"), 1);
}

static void test_traces_and_files(void **state)
{
	struct fx *f = *state;
	int64_t a, b, id;
	open_new(f);
	assert_int_equal(store_begin(f->s, &f->e), 0);
	assert_int_equal(store_trace_new(f->s, "alpha", &a, &f->e), 0);
	assert_int_equal(store_trace_new(f->s, "beta", &b, &f->e), 0);
	assert_int_equal(store_trace_new(f->s, "alpha", &id, &f->e), VF_EDUP);
	struct store_file sf = {.trace_id = a,
				.name = "x.csv",
				.format = "openb",
				.size = 3,
				.imported_at = 1700000000};
	sha256_buf("abc", 3, sf.sha256);
	assert_int_equal(store_file_add(f->s, &sf, &f->e), 0);
	sf.rows_read = 10;
	sf.rows_accepted = 8;
	sf.rows_quarantined = 2;
	assert_int_equal(store_file_finish(f->s, &sf, &f->e), 0);
	assert_int_equal(store_quarantine_add(f->s, sf.id, 12, "column 'cpu': 'x' is not a number",
					      "a,x\r", 4, &f->e),
			 0);
	assert_int_equal(store_commit(f->s, &f->e), 0);
	assert_int_equal(store_trace_find(f->s, NULL, &id, &f->e), 0);
	assert_int_equal(id, b);
	assert_int_equal(store_trace_find(f->s, "alpha", &id, &f->e), 0);
	assert_int_equal(id, a);
	char num[16];
	snprintf(num, sizeof num, "%lld", (long long)b);
	assert_int_equal(store_trace_find(f->s, num, &id, &f->e), 0);
	assert_int_equal(id, b);
	assert_int_equal(store_trace_find(f->s, "gamma", &id, &f->e), VF_EINPUT);
	assert_non_null(strstr(f->e.msg, "gamma"));
	char tn[16];
	uint8_t other[32];
	sha256_buf("abd", 3, other);
	assert_int_equal(store_file_seen(f->s, sf.sha256, tn, sizeof tn, &f->e), 1);
	assert_string_equal(tn, "alpha");
	assert_int_equal(store_file_seen(f->s, other, tn, sizeof tn, &f->e), 0);
	store_close(f->s);
	f->s = NULL;
	assert_int_equal(sql_int(f->path, "SELECT rows_quarantined FROM files"), 2);
	assert_int_equal(sql_int(f->path, "SELECT line FROM quarantine"), 12);
	assert_int_equal(sql_int(f->path, "SELECT length(raw) FROM quarantine"), 4);
}

/* Store bytes p[0..n) as a file of a new trace, written in chunks of `chunk` bytes (0: all at
 * once), and check export and digest give them back. Returns the file id. */
static int64_t keep_and_compare(struct fx *f, const char *name, const void *p, size_t n,
				size_t chunk, int opaque)
{
	int64_t tid;
	struct store_file sf = {.name = name, .format = "csv", .size = (int64_t)n};
	sha256_buf(p, n, sf.sha256);
	assert_int_equal(store_begin(f->s, &f->e), 0);
	char tname[64];
	snprintf(tname, sizeof tname, "%s-%zu-%d", name, chunk, opaque);
	assert_int_equal(store_trace_new(f->s, tname, &tid, &f->e), 0);
	sf.trace_id = tid;
	assert_int_equal(store_file_add(f->s, &sf, &f->e), 0);
	struct store_raw *w;
	assert_int_equal(store_raw_begin(f->s, sf.id, opaque, &w, &f->e), 0);
	const char *c = p;
	for (size_t off = 0; off < n;) {
		size_t k = chunk && chunk < n - off ? chunk : n - off;
		assert_int_equal(store_raw_write(w, c + off, k, &f->e), 0);
		off += k;
	}
	assert_int_equal(store_raw_end(w, &f->e), 0);
	assert_int_equal(store_commit(f->s, &f->e), 0);
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);
	assert_int_equal(store_raw_export(f->s, sf.id, mem, &f->e), 0);
	fclose(mem);
	assert_int_equal(len, n);
	if (n)
		assert_memory_equal(buf, p, n);
	free(buf);
	uint8_t d[32];
	int64_t dl;
	assert_int_equal(store_raw_digest(f->s, sf.id, d, &dl, &f->e), 0);
	assert_int_equal(dl, (int64_t)n);
	assert_memory_equal(d, sf.sha256, 32);
	return sf.id;
}

/* Text blocks end after 512 lines for a file's first block (the coding thread starts
 * sooner), after 8192 for the others: the count of blocks for files around those sizes,
 * each given back byte for byte. */
static void test_raw_first_block_short(void **state)
{
	struct fx *f = *state;
	open_new(f);
	static const struct {
		int lines, blocks;
	} cases[] = {{1, 1}, {512, 1}, {513, 2}, {512 + 8192, 2}, {512 + 8193, 3}};
	size_t cap = 20000 * 24;
	char *p = malloc(cap);
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		size_t n = 0;
		for (int l = 0; l < cases[i].lines; l++)
			n += (size_t)sprintf(p + n, "job-%d,%d,%d\n", l, l * 3, l % 7);
		char name[32];
		snprintf(name, sizeof name, "lines-%d", cases[i].lines);
		int64_t id = keep_and_compare(f, name, p, n, 1000, 0);
		sqlite3_stmt *st;
		assert_int_equal(
			sqlite3_prepare_v2(f->s->db,
					   "SELECT count(*) FROM raw_blocks WHERE file_id = ?", -1,
					   &st, NULL),
			SQLITE_OK);
		sqlite3_bind_int64(st, 1, id);
		assert_int_equal(sqlite3_step(st), SQLITE_ROW);
		assert_int_equal(sqlite3_column_int(st, 0), cases[i].blocks);
		sqlite3_finalize(st);
	}
	free(p);
}

/* store_raw_finish gives the sha256 and size of every byte written, whichever thread hashed
 * each text block (the caller while it waits for the worker, or the worker): a one-block
 * file, many blocks written in small chunks and at once, an opaque file. */
static void test_raw_finish_hash(void **state)
{
	struct fx *f = *state;
	open_new(f);
	size_t cap = 70000 * 40, n = 0;
	char *p = malloc(cap);
	n += (size_t)sprintf(p + n, "name,start,end,mem\n");
	for (int l = 0; l < 70000; l++)
		n += (size_t)sprintf(p + n, "pod-%d,%d,%d,%d.5\n", l * 7, l * 13, l * 13 + l % 97,
				     l % 1024);
	static const struct {
		size_t len, chunk;
		int opaque;
	} cases[] = {{300, 0, 0}, {0, 4093, 0}, {0, 0, 0}, {0, 1 << 16, 1}};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		size_t len = cases[i].len ? cases[i].len : n;
		int64_t tid;
		char name[32];
		snprintf(name, sizeof name, "hash-%zu", i);
		struct store_file sf = {.name = name, .format = "csv", .size = (int64_t)len};
		assert_int_equal(store_begin(f->s, &f->e), 0);
		assert_int_equal(store_trace_new(f->s, name, &tid, &f->e), 0);
		sf.trace_id = tid;
		assert_int_equal(store_file_add(f->s, &sf, &f->e), 0);
		struct store_raw *w;
		assert_int_equal(store_raw_begin(f->s, sf.id, cases[i].opaque, &w, &f->e), 0);
		for (size_t off = 0, k; off < len; off += k) {
			k = cases[i].chunk && cases[i].chunk < len - off ? cases[i].chunk
									 : len - off;
			assert_int_equal(store_raw_write(w, p + off, k, &f->e), 0);
		}
		uint8_t got[32], want[32];
		int64_t size = -1;
		assert_int_equal(store_raw_finish(w, got, &size, &f->e), 0);
		assert_int_equal(store_commit(f->s, &f->e), 0);
		sha256_buf(p, len, want);
		assert_memory_equal(got, want, 32);
		assert_int_equal(size, (int64_t)len);
	}
	free(p);
}

static void test_raw_tricky_bytes(void **state)
{
	struct fx *f = *state;
	static const struct {
		const char *name, *text;
		size_t len; /* 0: strlen */
	} cases[] = {
		{"empty", "", 0},
		{"plain", "a,b,c\n1,2,3\n4,5,6\n", 0},
		{"crlf", "a,b\r\n1,2\r\n3,4\r\n", 0},
		{"mixed-endings", "a,b\r\n1,2\n3,4\r\n5,6\n\n\r\n", 0},
		{"quotes", "a,b\n\"x,y\",2\n\"he said \"\"hi\"\"\",3\n1,\"multi\nline\"\n", 0},
		{"no-final-newline", "a,b\n1,2\n3,4", 0},
		{"bom",
		 "\xef\xbb\xbf"
		 "a,b\n1,2\n",
		 0},
		{"nul-bytes", "a,b\n1,\0\0x\n\0,2\n", 15},
		{"empty-fields", "a,b,c\n,,\n1,,\n,,3\n,,\n", 0},
		{"odd-spacing", "a , b\n 1,2 \n  -3 ,  007\n-0,+5\n", 0},
		{"numbers",
		 "n,x\n0,00\n-1,-01\n9223372036854775807,99999999999999999999\n"
		 "2057225.0000000002,1e5\n-9223372036854775808,0x10\n",
		 0},
		{"ragged", "a,b,c\n1,2\n1,2,3,4\n5,6,7\n", 0},
		{"lone-cr", "a,b\r1,2\r3,4\n", 0},
		{"only-newlines", "\n\n\n", 0},
		{"cr-at-end", "a,b\n1,2\r", 0},
	};
	open_new(f);
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		size_t n = cases[i].len ? cases[i].len : strlen(cases[i].text);
		for (size_t chunk = 0; chunk < 4; chunk++)
			for (int opaque = 0; opaque < 2; opaque++) {
				int64_t id = keep_and_compare(f, cases[i].name, cases[i].text, n,
							      chunk, opaque);
				if (strcmp(cases[i].name, "crlf") || opaque)
					continue;
				/* a "\r\n" cut between two writes is still one line ending */
				char q[160];
				snprintf(q, sizeof q,
					 "SELECT raw_eol = 'crlf' AND raw_lines = 3 AND "
					 "raw_exceptions = 0 FROM files WHERE id = %lld",
					 (long long)id);
				assert_int_equal(sql_int(f->path, q), 1);
			}
	}
}

/* Fields of letters, then 0 to 20 digits, then letters, at every length up to 30, each line
 * given back byte for byte: a number taken from past a field's end, or a digit dropped,
 * shows. */
static void test_raw_numbers_at_every_offset(void **state)
{
	struct fx *f = *state;
	open_new(f);
	char *text = xmalloc(1 << 20);
	size_t n = (size_t)sprintf(text, "a,b,c\n");
	for (int pre = 0; pre <= 10; pre++)
		for (int dig = 0; dig <= 20; dig++)
			for (int suf = 0; suf <= 2; suf++) {
				char fld[40];
				int k = 0;
				for (int i = 0; i < pre; i++)
					fld[k++] = (char)('a' + i);
				for (int i = 0; i < dig; i++)
					fld[k++] = (char)('0' + (i * 7 + pre) % 10);
				for (int i = 0; i < suf; i++)
					fld[k++] = 'x';
				fld[k] = '\0';
				n += (size_t)sprintf(text + n, "%s,%d%s,-%s\n", fld, dig, fld, fld);
			}
	for (size_t chunk = 0; chunk < 2; chunk++)
		keep_and_compare(f, "numbers-at-offsets", text, n, chunk ? 4093 : 0, 0);
	free(text);
}

static void test_raw_big_and_long(void **state)
{
	struct fx *f = *state;
	open_new(f);
	/* A 10 MB single field (cut into fragments inside), between ordinary lines. */
	size_t big = 10u << 20;
	char *p = malloc(big + 64);
	size_t n = (size_t)sprintf(p, "a,b\n1,");
	memset(p + n, 'x', big);
	n += big;
	n += (size_t)sprintf(p + n, "\r\n2,3\n");
	keep_and_compare(f, "long-line", p, n, 1 << 16, 0);
	free(p);
	/* Many lines: several blocks, numbers that need references and widths. */
	size_t cap = 4u << 20;
	p = malloc(cap);
	n = (size_t)sprintf(p, "name,created,scheduled,deleted,mem\n");
	for (int i = 0; n + 100 < cap && i < 50000; i++)
		n += (size_t)sprintf(p + n, "pod-%05d,%d,%d,%s,%d.0\n", i, i * 37, i * 37 + i % 5,
				     i % 11 ? "" : "12902960", (i * 7) % 1024);
	int64_t id = keep_and_compare(f, "many", p, n, 4093, 0);
	store_close(f->s);
	f->s = NULL;
	char sql[128];
	snprintf(sql, sizeof sql, "SELECT count(*) FROM raw_blocks WHERE file_id = %lld",
		 (long long)id);
	assert_true(sql_int(f->path, sql) >= 6); /* 50001 lines: blocks of 8192 */
	snprintf(sql, sizeof sql, "SELECT sum(length(data)) FROM raw_blocks WHERE file_id = %lld",
		 (long long)id);
	assert_true(sql_int(f->path, sql) * 20 < (int64_t)n);
	free(p);
}

/* A file of lines whose request fields follow one of 60 shapes (a class, cpu, memory with a
 * suffix, GPUs that may be empty or negative, a zero-padded code), between a job name and a
 * time, with a quoted line now and then: given back byte for byte. The same fields drawn
 * each on its own (the same values, as often, but no shape holding them together) cost the
 * column coder as much as before; held together by their shape, they cost far less. */
static size_t shape_lines(char *p, size_t cap, int joint)
{
	static const char *cls[] = {"train", "infer", "batch", "dev"};
	size_t n = (size_t)sprintf(p, "job,t,class,cpu,mem,gpu,code\n");
	uint64_t r = 12345;
	for (int i = 0; i < 30000 && n + 200 < cap; i++) {
		int s[5];
		for (int c = 0; c < 5; c++) {
			r = r * 6364136223846793005ULL + 1442695040888963407ULL;
			int u = (int)(r >> 40) % 60;
			s[c] = joint && c ? s[0] : u * u / 60; /* skewed: small shapes more often */
		}
		if (i % 997 == 5) {
			n += (size_t)sprintf(p + n, "\"q,%d\",x\n", i);
			continue;
		}
		char gpu[16] = "";
		if (s[3] % 3)
			sprintf(gpu, "%d", s[3] % 5 == 1 ? -1 : s[3] % 9);
		n += (size_t)sprintf(p + n, "j%06d,%d,%s,%d,%d.5Gi,%s,c%03d\n", i, 7 * i + i % 3,
				     cls[s[0] % 4], 500 * (1 + s[1] % 13), 1024 * (s[2] % 17 + 1),
				     gpu, (s[4] * 37) % 1000);
	}
	return n;
}

static void test_raw_shapes(void **state)
{
	struct fx *f = *state;
	open_new(f);
	size_t cap = 2u << 20;
	char *p = xmalloc(cap);
	int64_t bytes[2];
	for (int joint = 0; joint < 2; joint++) {
		size_t n = shape_lines(p, cap, joint);
		int64_t id = keep_and_compare(f, joint ? "joint" : "apart", p, n, 4093, 0);
		char sql[128];
		snprintf(sql, sizeof sql,
			 "SELECT sum(length(data)) FROM raw_blocks WHERE file_id = %lld",
			 (long long)id);
		store_close(f->s);
		f->s = NULL;
		bytes[joint] = sql_int(f->path, sql);
		assert_int_equal(store_open(f->path, 0, &f->s, &f->e), 0);
	}
	/* the fields apart cost what a column at a time costs; together well under */
	assert_true(bytes[1] * 2 < bytes[0]);
	free(p);
}

/* A text block made by hand, as voidfit(5) lays it out, with two of its three fields coded
 * jointly: 20 lines, shape 0 = ("a1", "x") and shape 1 = ("b2", "y"), line i of shape
 * (i % 3 == 1), its third field i. bad picks a damage: 1 a line of shape 2, 2 a shape of one
 * field, 3 a field past the last, 4 no shapes, 5 more shapes than lines. */
static void put_forged(struct fx *f, const char *sql, int kind, size_t rows, struct zblk_buf *b);

static void forge_shapes(struct fx *f, int bad)
{
	struct zblk_buf b = {0};
	int64_t idx[20], num[20], zero[20] = {0};
	struct zblk_str none[20], pre[2] = {{(const uint8_t *)"a", 1}, {(const uint8_t *)"b", 1}},
				  pre2[2] = {{(const uint8_t *)"x", 1}, {(const uint8_t *)"y", 1}};
	uint8_t nul2[2] = {1, 1};
	int64_t g1[2] = {1, 2}, g2[2] = {0, 0};
	for (int i = 0; i < 20; i++) {
		idx[i] = i % 3 == 1;
		num[i] = i;
		none[i] = (struct zblk_str){(const uint8_t *)"", 0};
	}
	if (bad == 1)
		idx[7] = 2;
	zblk_put_varint(&b, 20);
	zblk_put_varint(&b, 3 | 2048);
	zblk_put_varint(&b, 0);
	zblk_put_i64(&b, zero, NULL, 0, NULL, NULL, 0); /* no exceptions */
	zblk_put_str(&b, none, 0);
	zblk_put_varint(&b, bad == 2 ? 1 : 2);
	zblk_put_varint(&b, 0);
	if (bad != 2)
		zblk_put_varint(&b, bad == 3 ? 5 : 0);
	zblk_put_varint(&b, bad == 4 ? 0 : bad == 5 ? 21 : 2);
	zblk_put_i64(&b, idx, NULL, 20, NULL, NULL, 0);
	zblk_put_str(&b, pre, 2); /* field 1: "a1", "b2" */
	zblk_put_i64(&b, g1, NULL, 2, NULL, NULL, 0);
	zblk_put_i64(&b, g2, NULL, 2, NULL, NULL, 0);
	zblk_put_str(&b, none, 2);
	zblk_put_str(&b, pre2, 2); /* field 2: "x", "y" */
	zblk_put_i64(&b, g2, nul2, 2, NULL, NULL, 0);
	zblk_put_i64(&b, g2, NULL, 2, NULL, NULL, 0);
	zblk_put_str(&b, none, 2);
	zblk_put_str(&b, none, 20); /* field 3: the line's number */
	zblk_put_i64(&b, num, NULL, 20, NULL, NULL, 0);
	zblk_put_i64(&b, zero, NULL, 20, NULL, NULL, 0);
	zblk_put_str(&b, none, 20);
	put_forged(f, "UPDATE raw_blocks SET data = ?", ZBLK_RAWTEXT, 20, &b);
}

/* The hand-made block gives its lines back (the writer's own choice of shapes aside), and
 * each damage to its shapes is refused by name. */
static void test_raw_forged_shapes(void **state)
{
	struct fx *f = *state;
	char text[512];
	size_t n = 0;
	for (int i = 0; i < 20; i++)
		n += (size_t)sprintf(text + n, "%s,%d\n", i % 3 == 1 ? "b2,y" : "a1,x", i);
	for (int bad = 0; bad <= 5; bad++) {
		open_new(f);
		int64_t id = keep_and_compare(f, "forged", text, n, 0, 0);
		forge_shapes(f, bad);
		char *buf = NULL;
		size_t len = 0;
		FILE *mem = open_memstream(&buf, &len);
		int rc = store_raw_export(f->s, id, mem, &f->e);
		fclose(mem);
		if (!bad) {
			assert_int_equal(rc, 0);
			assert_int_equal(len, n);
			assert_memory_equal(buf, text, n);
		} else {
			assert_int_equal(rc, VF_ESTORE);
			assert_non_null(strstr(f->e.msg, "text block: bad shapes"));
		}
		free(buf);
		store_close(f->s);
		f->s = NULL;
		remove(f->path);
	}
}

/* Long lines (the splitter looks at 16 bytes a step) with a quote, a comma too many or one
 * too few at every position: exactly those lines are kept verbatim, and all come back. */
static void test_raw_long_lines_split(void **state)
{
	struct fx *f = *state;
	open_new(f);
	size_t cap = 1u << 20, n = 0, bad = 0;
	char *p = malloc(cap);
	const int ncols = 9;
	uint32_t x = 5;
	for (int i = 0; i < 3000; i++) {
		x = x * 1103515245u + 12345u;
		int kind =
			(int)((x >> 16) % 8); /* 1 a quote, 2 a comma more, 3 less, else simple */
		if (kind > 3)
			kind = 0;
		size_t start = n;
		for (int c = 0; c < ncols - (kind == 3); c++) {
			x = x * 1103515245u + 12345u;
			size_t len = (x >> 16) % 13;
			for (size_t k = 0; k < len; k++)
				p[n++] = (char)('a' + (x >> (k % 16)) % 26);
			p[n++] = ',';
		}
		n--; /* no comma after the last field */
		size_t at = start + (x >> 8) % (n - start + 1);
		if (kind == 1 || kind == 2) { /* insert at any position, 16-byte steps included */
			memmove(p + at + 1, p + at, n - at);
			p[at] = kind == 1 ? '"' : ',';
			n++;
		}
		bad += kind != 0;
		p[n++] = '\n';
	}
	int64_t id = keep_and_compare(f, "long-lines", p, n, 777, 0);
	store_close(f->s);
	f->s = NULL;
	char sql[128];
	snprintf(sql, sizeof sql, "SELECT raw_exceptions FROM files WHERE id = %lld",
		 (long long)id);
	assert_int_equal(sql_int(f->path, sql), (int64_t)bad);
	snprintf(sql, sizeof sql, "SELECT raw_ncols FROM files WHERE id = %lld", (long long)id);
	assert_int_equal(sql_int(f->path, sql), ncols);
	free(p);
}

static char *slurp(const char *path, size_t *n)
{
	FILE *in = fopen(path, "rb");
	if (!in)
		return NULL;
	fseek(in, 0, SEEK_END);
	long len = ftell(in);
	rewind(in);
	char *p = malloc((size_t)len + 1);
	*n = fread(p, 1, (size_t)len, in);
	fclose(in);
	return p;
}

static void test_raw_real_samples(void **state)
{
	struct fx *f = *state;
	const char *top = getenv("VOIDFIT_TRACES");
	if (!top || !*top)
		skip();
	/* The xz -9e sizes of the two samples whose bytes the store must keep in less
	 * (measured with xz 5.4): what the store grows by, past its empty tables (a store of
	 * an import is checked whole by tests/e2e/store-size.sh). */
	static const struct {
		const char *rel;
		int64_t xz;
	} files[] = {
		{"clusterdata/cluster-trace-gpu-v2023/csv/openb_pod_list_default.csv", 79788},
		{"clusterdata/cluster-trace-gpu-v2025/disaggregated_DLRM_trace.csv", 164360},
		{"clusterdata/cluster-trace-gpu-v2023/csv/openb_node_list_gpu_node.csv", 0},
		{"clusterdata-cluster-trace-gpu-v2020-data/pai_machine_spec.csv", 0},
		{"Workload-Prediction-of-Alibaba-Cluster-Dataset/batch_task.csv", 0},
	};
	for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
		char path[1024];
		size_t n = 0;
		snprintf(path, sizeof path, "%s/%s", top, files[i].rel);
		char *p = slurp(path, &n);
		assert_non_null(p);
		remove(f->path);
		open_new(f);
		struct store_sizes empty, z;
		assert_int_equal(store_sizes(f->s, &empty, &f->e), 0);
		keep_and_compare(f, strrchr(files[i].rel, '/') + 1, p, n, 65536, 0);
		assert_int_equal(store_sizes(f->s, &z, &f->e), 0);
		assert_int_equal(z.raw_bytes, (int64_t)n);
		if (files[i].xz)
			assert_true(z.store_bytes - empty.store_bytes < files[i].xz);
		store_close(f->s);
		f->s = NULL;
		free(p);
	}
}

static void some_job(struct job *j, int64_t i)
{
	job_init(j);
	j->id = i;
	uint64_t h = (uint64_t)(i + 1) * 0x9E3779B97F4A7C15ull; /* values that cost bytes */
	j->arrival = (int64_t)(h >> 44);
	j->duration = i % 13 ? (int64_t)(h >> 20 & 0xfffff) : -1;
	j->dem[DIM_CPU] = 1000 * (1 + i % 64);
	j->dem[DIM_MEM] = i % 9 ? 1024 * (i % 100) : -1;
	j->num_gpu = (int32_t)(i % 9);
	j->gpu_milli = j->num_gpu ? (i % 3 ? 1000 : 250) : 0;
	j->dem[DIM_GPU] = (int64_t)j->num_gpu * j->gpu_milli;
	j->dem[DIM_HBM] = i % 5 ? j->num_gpu * 16384 : -1;
	j->dem[DIM_NET] = i == 17 ? INT64_MAX : i % 4 ? -1 : i;
	j->gpu_spec = (uint32_t)(i % 3 ? 0 : 1u << (i % 7));
	j->cls = (uint8_t)(i % JOB_NCLASS);
	j->enriched = (uint8_t)(i % 2 ? DIM_BIT(DIM_NET) : 0);
	j->flags = (uint16_t)(j->duration < 0 ? JOB_F_NOTRAN : 0);
	/* gangs in the first block only: a later block has none, and no workers column */
	j->workers = i < STORE_BLOCK_ROWS && i % 97 == 5 ? (int32_t)(2 + i % 63) : 1;
}

static int job_cmp(const void *a, const void *b)
{
	const struct job *x = a, *y = b;
	if (x->arrival != y->arrival)
		return x->arrival < y->arrival ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

static void assert_same_job(const struct job *a, const struct job *b)
{
	assert_true(a->id == b->id && a->arrival == b->arrival && a->duration == b->duration);
	for (int d = 0; d < DIM_N; d++)
		assert_true(a->dem[d] == b->dem[d]);
	assert_int_equal(a->num_gpu, b->num_gpu);
	assert_int_equal(a->gpu_milli, b->gpu_milli);
	assert_int_equal(a->gpu_spec, b->gpu_spec);
	assert_int_equal(a->cls, b->cls);
	assert_int_equal(a->enriched, b->enriched);
	assert_int_equal(a->flags, b->flags);
	assert_int_equal(job_workers(a), job_workers(b));
}

/* Write n jobs (from some_job) to a new trace, with a CSV file of the same rows when
 * with_file: its bytes go to the raw writer in chunks ahead of the jobs, as an importer's
 * do, and each job names its line (so its block is coded against that line); every 1000th
 * line is odd (kept verbatim) and makes no job, as a quarantined row would; with_file 2:
 * 0 to 3 lines that make no job come before each job too. Load them back and compare. */
static void jobs_roundtrip(struct fx *f, size_t n, int with_file)
{
	int64_t tid;
	struct job *mine = calloc(n + 1, sizeof *mine);
	struct store_raw *w = NULL;
	char *text = NULL;
	size_t len = 0, fed = 0, *end = calloc(n + 1, sizeof *end);
	int64_t *line = calloc(n + 1, sizeof *line);
	assert_int_equal(store_begin(f->s, &f->e), 0);
	assert_int_equal(store_trace_new(f->s, with_file ? "with-file" : "jobs", &tid, &f->e), 0);
	if (with_file) {
		struct store_file sf = {.trace_id = tid, .name = "j.csv", .format = "csv"};
		assert_int_equal(store_file_add(f->s, &sf, &f->e), 0);
		assert_int_equal(store_raw_begin(f->s, sf.id, 0, &w, &f->e), 0);
		text = malloc(64 * (n + n / 1000 + 2) + (with_file == 2 ? 16 * 4 * n : 0));
		len = (size_t)sprintf(text, "id,arrival,duration,cpu,mem\n");
		int64_t ln = 1;
		for (size_t i = 0; i < n; i++) {
			struct job j;
			some_job(&j, (int64_t)i);
			if (i % 1000 == 999) {
				len += (size_t)sprintf(text + len, "\"odd\",line\n");
				ln++;
			}
			/* 2: lines that make no job between jobs, 0 to 3 of them */
			for (size_t k = 0; with_file == 2 && k < (i * 7919) % 4; k++) {
				len += (size_t)sprintf(text + len, "skip,%zu,,,\n", i * 4 + k);
				ln++;
			}
			len += (size_t)sprintf(
				text + len, "%lld,%lld,%lld,%lld,%lld\n", (long long)i,
				(long long)j.arrival, (long long)j.duration,
				(long long)j.dem[DIM_CPU] / 1000, (long long)j.dem[DIM_MEM]);
			line[i] = ++ln;
			end[i] = len;
		}
	}
	struct store_jobs *jw;
	assert_int_equal(store_jobs_begin(f->s, tid, &jw, &f->e), 0);
	for (size_t i = 0; i < n; i++) {
		some_job(&mine[i], (int64_t)i);
		if (w) {
			while (fed < end[i]) { /* the line's bytes reach the writer first */
				size_t k = len - fed < 65536 ? len - fed : 65536;
				assert_int_equal(store_raw_write(w, text + fed, k, &f->e), 0);
				fed += k;
			}
		}
		assert_int_equal(store_jobs_add_line(jw, &mine[i], w, line[i], &f->e), 0);
	}
	if (w) {
		assert_int_equal(store_raw_write(w, text + fed, len - fed, &f->e), 0);
		assert_int_equal(store_raw_end(w, &f->e), 0);
	}
	assert_int_equal(store_jobs_end(jw, &f->e), 0);
	free(text);
	free(end);
	free(line);
	struct node nd;
	node_init(&nd);
	snprintf(nd.name, sizeof nd.name, "node-1");
	nd.ngpu = 8;
	nd.model = -1;
	nd.cap[DIM_CPU] = 96000;
	assert_int_equal(store_nodes_add(f->s, tid, &nd, 1, &f->e), 0);
	assert_int_equal(store_commit(f->s, &f->e), 0);
	struct job_set js = {0};
	assert_int_equal(store_trace_load(f->s, tid, &js, &f->e), 0);
	assert_int_equal(js.njobs, n);
	assert_int_equal(js.nnodes, 1);
	assert_string_equal(js.nodes[0].name, "node-1");
	assert_true(js.nodes[0].cap[DIM_CPU] == 96000 && js.nodes[0].cap[DIM_MEM] == -1);
	qsort(mine, n, sizeof *mine, job_cmp);
	for (size_t i = 0; i < n; i++)
		assert_same_job(&js.jobs[i], &mine[i]);
	job_set_release(&js);
	free(mine);
}

static void test_jobs_roundtrip(void **state)
{
	struct fx *f = *state;
	open_new(f);
	jobs_roundtrip(f, 0, 0);
	store_close(f->s);
	remove(f->path);
	open_new(f);
	jobs_roundtrip(f, 3 * STORE_BLOCK_ROWS + 17, 0);
}

static void test_jobs_against_their_file(void **state)
{
	struct fx *f = *state;
	int64_t with[3];
	/* alone, then against the file (a line without a job every 1000 jobs), then against
	 * a file with 0 to 3 lines that make no job before each job */
	for (int layout = 0; layout < 3; layout++) {
		open_new(f);
		jobs_roundtrip(f, 2 * STORE_BLOCK_ROWS + 5, layout);
		store_close(f->s);
		f->s = NULL;
		with[layout] = sql_int(f->path, "SELECT sum(length(data)) FROM job_blocks");
		assert_int_equal(sql_int(f->path, "PRAGMA freelist_count"), 0);
		remove(f->path);
	}
	/* Coded against their lines, the jobs cost a fraction of what they did alone, where
	 * lines between them make no job too. */
	assert_true(with[1] * 2 < with[0]);
	assert_true(with[2] * 2 < with[0]);
}

/* Seal b (kind, rows) as a forger would, its checksum made anew, and put it in the store by
 * sql (one blob parameter); b is released. */
static void put_forged(struct fx *f, const char *sql, int kind, size_t rows, struct zblk_buf *b)
{
	struct zblk_buf sealed = {0};
	assert_int_equal(zblk_seal(f->s->z, kind, rows, b->p, b->len, &sealed, &f->e), 0);
	sqlite3_stmt *st;
	assert_int_equal(sqlite3_prepare_v2(f->s->db, sql, -1, &st, NULL), SQLITE_OK);
	sqlite3_bind_blob(st, 1, sealed.p, (int)sealed.len, SQLITE_STATIC);
	assert_int_equal(sqlite3_step(st), SQLITE_DONE);
	sqlite3_finalize(st);
	zblk_buf_release(b);
	zblk_buf_release(&sealed);
}

/* A job block (300 jobs, all 0) claiming the gaps of its lines, into the store's only block:
 * the gaps' column, then 16 of the jobs' columns, against file 1 (rawfile 0: alone). */
static void forge_gaps(struct fx *f, uint64_t rawfile, int64_t bad_gap)
{
	struct zblk_buf b = {0};
	int64_t v[300] = {0};
	zblk_put_varint(&b, 16 | 64);
	zblk_put_varint(&b, rawfile);
	if (rawfile) {
		zblk_put_varint(&b, 0);
		zblk_put_varint(&b, 0);
	}
	v[5] = bad_gap;
	zblk_put_i64(&b, v, NULL, 300, NULL, NULL, 0);
	v[5] = 0;
	for (int c = 0; c < 16; c++)
		zblk_put_i64(&b, v, NULL, 300, NULL, NULL, 0);
	put_forged(f, "UPDATE job_blocks SET data = ?", ZBLK_JOBS, 300, &b);
}

/* A block whose jobs' lines go back, or that claims gaps without a file, is damaged: the
 * load says so, naming what. */
static void test_jobs_bad_gaps(void **state)
{
	struct fx *f = *state;
	struct {
		uint64_t rawfile;
		int64_t gap;
		const char *msg;
	} cases[] = {{1, -2, "job 5: bad line gap"}, {0, 0, "jobs block: bad header"}};
	for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
		open_new(f);
		jobs_roundtrip(f, 300, 2);
		assert_int_equal(sql_int(f->path, "SELECT count(*) FROM job_blocks"), 1);
		forge_gaps(f, cases[k].rawfile, cases[k].gap);
		struct job_set js = {0};
		assert_int_equal(store_trace_load(f->s, 1, &js, &f->e), VF_ESTORE);
		assert_non_null(strstr(f->e.msg, cases[k].msg));
		job_set_release(&js);
		store_close(f->s);
		f->s = NULL;
		remove(f->path);
	}
	/* a gap of -1 (two jobs of one line) reads */
	open_new(f);
	jobs_roundtrip(f, 300, 2);
	forge_gaps(f, 1, -1);
	struct job_set js = {0};
	assert_int_equal(store_trace_load(f->s, 1, &js, &f->e), 0);
	assert_int_equal(js.njobs, 300);
	job_set_release(&js);
}

/* The columns (first varint, without its flags 64 and 128) of each job block of the store's
 * only trace, decoded, into ncols[0..8), and that varint into flags[0..8) if not NULL;
 * returns the blocks' total bytes, sealed. */
static int64_t job_block_cols(struct fx *f, uint64_t *ncols, int *nblocks, uint64_t *flags)
{
	sqlite3_stmt *st;
	struct zblk_buf raw = {0};
	int64_t bytes = 0;
	*nblocks = 0;
	assert_int_equal(sqlite3_prepare_v2(f->s->db, "SELECT data FROM job_blocks ORDER BY seq",
					    -1, &st, NULL),
			 SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW) {
		struct zblk_info info;
		struct zblk_reader r;
		size_t n = (size_t)sqlite3_column_bytes(st, 0);
		assert_int_equal(
			zblk_open(f->s->z, sqlite3_column_blob(st, 0), n, &info, &raw, &f->e), 0);
		zblk_reader_init(&r, raw.p, raw.len);
		assert_true(*nblocks < 8);
		assert_int_equal(zblk_get_varint(&r, &ncols[*nblocks]), 0);
		if (flags)
			flags[*nblocks] = ncols[*nblocks];
		ncols[(*nblocks)++] &= 63;
		bytes += (int64_t)n;
	}
	sqlite3_finalize(st);
	zblk_buf_release(&raw);
	return bytes;
}

/* n jobs of some_job into a new store's trace, each with W from workers(i). */
static void put_jobs(struct fx *f, size_t n, int32_t (*workers)(size_t i))
{
	int64_t tid;
	struct store_jobs *jw;
	open_new(f);
	assert_int_equal(store_begin(f->s, &f->e), 0);
	assert_int_equal(store_trace_new(f->s, "w", &tid, &f->e), 0);
	assert_int_equal(store_jobs_begin(f->s, tid, &jw, &f->e), 0);
	for (size_t i = 0; i < n; i++) {
		struct job j;
		some_job(&j, (int64_t)i);
		j.workers = workers(i);
		assert_int_equal(store_jobs_add(jw, &j, &f->e), 0);
	}
	assert_int_equal(store_jobs_end(jw, &f->e), 0);
	assert_int_equal(store_commit(f->s, &f->e), 0);
}

static int32_t w_one(size_t i)
{
	(void)i;
	return 1;
}
static int32_t w_unset(size_t i) /* a job made with memset, as before jobs had workers */
{
	(void)i;
	return 0;
}
static int32_t w_gang_in_second(size_t i)
{
	return i == STORE_BLOCK_ROWS + 3 ? 512 : 1;
}

static void tidy_is(const char *in, const char *want)
{
	struct sbuf b = {0};
	store_sql_tidy(in, &b);
	assert_string_equal(b.s ? b.s : "", want);
	assert_true(store_sql_same(in, want));
	sbuf_release(&b);
}

/* Migrations run tidied (no comments, white space only where SQLite needs it), quoted text
 * kept as written; a store's schema compares equal to the migrations' however it was
 * written, and a new store keeps no comment in its schema. */
static void test_sql_tidy(void **state)
{
	struct fx *f = *state;
	tidy_is("CREATE TABLE t (\n\ta INTEGER, -- a comment\n\tb TEXT DEFAULT 'x -- y  z'\n);",
		"CREATE TABLE t(a INTEGER,b TEXT DEFAULT 'x -- y  z');");
	tidy_is("SELECT 'it''s  ok' /* c */ , \"a  \"\"b\" , [c  d] FROM  x ; ",
		"SELECT 'it''s  ok',\"a  \"\"b\",[c  d] FROM x;");
	tidy_is("a - -1", "a - -1");
	assert_false(store_sql_same("CREATE TABLE t(a)", "CREATE TABLE u(a)"));
	assert_false(store_sql_same("CREATE TABLE t(a)", "CREATE TABLE t(a, b)"));
	assert_true(store_sql_same(NULL, NULL));
	assert_false(store_sql_same(NULL, "x"));
	for (int v = 1; v <= store_schema_version(); v++) {
		struct sbuf once = {0}, twice = {0};
		store_sql_tidy(store_migration(v), &once);
		store_sql_tidy(once.s ? once.s : "", &twice);
		assert_int_equal(once.len, twice.len);
		assert_true(!once.len || !memcmp(once.s, twice.s, once.len));
		sbuf_release(&once);
		sbuf_release(&twice);
	}
	open_new(f);
	assert_int_equal(sql_int(f->path,
				 "SELECT count(*) FROM sqlite_master WHERE sql LIKE '%--%' "
				 "OR sql LIKE '%'||char(10)||'%'"),
			 0);
}

/* js holds nodes mine[0..n), field by field. */
static void nodes_equal(const struct job_set *js, const struct node *mine, size_t n)
{
	assert_int_equal(js->nnodes, n);
	for (size_t i = 0; i < n; i++) {
		const struct node *a = &js->nodes[i], *b = &mine[i];
		assert_string_equal(a->name, b->name);
		assert_string_equal(a->group, b->group);
		assert_string_equal(a->rack, b->rack);
		assert_int_equal(a->ngpu, b->ngpu);
		assert_int_equal(a->model, b->model);
		assert_int_equal(a->enriched, b->enriched);
		for (int d = 0; d < DIM_N; d++)
			assert_true(a->cap[d] == b->cap[d]);
	}
}

/* Nodes go to blocks of at most STORE_BLOCK_ROWS and come back as they went, names, groups,
 * models (none, known, unknown) and racks included; a forged block (its checksum made anew)
 * with a node of more GPUs than a node holds is refused by name. */
static void test_nodes_blocks(void **state)
{
	struct fx *f = *state;
	int64_t tid;
	size_t n = STORE_BLOCK_ROWS + 5;
	struct node *mine = calloc(n, sizeof *mine);
	for (size_t i = 0; i < n; i++) {
		node_init(&mine[i]);
		if (i % 5 == 4) /* names with no number, a zero-padded one, a sign, 20 digits */
			snprintf(mine[i].name, sizeof mine[i].name, "%s%c",
				 i % 3 ? "gpu-node-" : "", (char)('a' + i % 26));
		else
			snprintf(mine[i].name, sizeof mine[i].name,
				 i % 5 == 0   ? "node-%zu"
				 : i % 5 == 1 ? "n%06zu.x"
				 : i % 5 == 2 ? "rack-%zu"
					      : "%zu00000000000000000000",
				 i * 7);
		snprintf(mine[i].group, sizeof mine[i].group, "%s", i % 3 ? "a100" : "");
		snprintf(mine[i].rack, sizeof mine[i].rack, "%s", i % 5 ? "r1" : "");
		mine[i].ngpu = (int32_t)(i % 9);
		mine[i].model = (int16_t)(i % 9 == 0 ? -1
					  : i % 4    ? gpumodel_find("A100")
						     : gpumodel_unknown());
		mine[i].cap[DIM_CPU] = 1000 * (int64_t)(1 + i % 128);
		mine[i].cap[DIM_GPU] = 1000 * (int64_t)mine[i].ngpu;
		mine[i].cap[DIM_NET] = i % 2 ? -1 : (int64_t)i;
		mine[i].enriched = (uint8_t)(i % 2 ? DIM_BIT(DIM_NET) : 0);
	}
	open_new(f);
	assert_int_equal(store_begin(f->s, &f->e), 0);
	assert_int_equal(store_trace_new(f->s, "n", &tid, &f->e), 0);
	assert_int_equal(store_nodes_add(f->s, tid, mine, n, &f->e), 0);
	assert_int_equal(store_commit(f->s, &f->e), 0);
	assert_int_equal(sql_int(f->path, "SELECT count(*) FROM node_blocks"), 2);
	assert_int_equal(sql_int(f->path, "SELECT count(*) FROM nodes"), 0);
	struct job_set js = {0};
	assert_int_equal(store_trace_load(f->s, tid, &js, &f->e), 0);
	nodes_equal(&js, mine, n);
	job_set_release(&js);
	free(mine);
	/* the first block forged: one node of 40 GPUs */
	struct zblk_buf b = {0};
	struct zblk_str str[4] = {{(const uint8_t *)"big", 3},
				  {(const uint8_t *)"", 0},
				  {(const uint8_t *)"A100", 4},
				  {(const uint8_t *)"", 0}};
	int64_t v[1] = {40};
	zblk_put_varint(&b, 1);
	for (int c = 0; c < 4; c++)
		zblk_put_str(&b, &str[c], 1);
	for (int c = 0; c < 2 + DIM_N; c++) {
		zblk_put_i64(&b, v, NULL, 1, NULL, NULL, 0);
		v[0] = 0;
	}
	put_forged(f, "UPDATE node_blocks SET data = ?, nrows = 1 WHERE seq = 0", ZBLK_NODES, 1,
		   &b);
	assert_int_equal(store_trace_load(f->s, tid, &js, &f->e), VF_ESTORE);
	assert_non_null(strstr(f->e.msg, "node block 0: node 0 'big': 40 GPUs, at most"));
	job_set_release(&js);
	/* in version 2 with names split (flag 1), a name whose number would be 25 digits wide */
	int64_t w[1] = {25};
	zblk_put_varint(&b, 2);
	zblk_put_varint(&b, 1);
	zblk_put_str(&b, &str[0], 1);
	zblk_put_i64(&b, v, NULL, 1, NULL, NULL, 0);
	zblk_put_i64(&b, w, NULL, 1, NULL, NULL, 0);
	zblk_put_str(&b, &str[1], 1);
	for (int c = 1; c < 4; c++)
		zblk_put_str(&b, &str[c], 1);
	for (int c = 0; c < 2 + DIM_N; c++)
		zblk_put_i64(&b, v, NULL, 1, NULL, NULL, 0);
	put_forged(f, "UPDATE node_blocks SET data = ?, nrows = 1 WHERE seq = 0", ZBLK_NODES, 1,
		   &b);
	assert_int_equal(store_trace_load(f->s, tid, &js, &f->e), VF_ESTORE);
	assert_non_null(strstr(f->e.msg, "node block 0: the names are damaged"));
	job_set_release(&js);
}

/* The bytes of node_blocks for n nodes of seven types, named "node-0042" or by hashes, and
 * checked to come back as they went. */
static int64_t node_bytes(struct fx *f, size_t n, int hashed)
{
	int64_t tid;
	struct node *mine = calloc(n, sizeof *mine);
	uint64_t r = 99;
	for (size_t i = 0; i < n; i++) {
		node_init(&mine[i]);
		if (hashed) { /* 24 hex digits, as the PAI machine table names its machines */
			for (int c = 0; c < 24; c++) {
				r = r * 6364136223846793005ULL + 1442695040888963407ULL;
				mine[i].name[c] = "0123456789abcdef"[r >> 60];
			}
		} else {
			snprintf(mine[i].name, sizeof mine[i].name, "node-%04zu", i);
		}
		size_t t = i % 7; /* seven types of node */
		snprintf(mine[i].group, sizeof mine[i].group, "g%zu", t % 3);
		snprintf(mine[i].rack, sizeof mine[i].rack, "%s", t % 2 ? "r1" : "");
		mine[i].ngpu = (int32_t)t;
		mine[i].model = (int16_t)(t ? gpumodel_find(t % 2 ? "A100" : "T4") : -1);
		mine[i].cap[DIM_CPU] = 96000 + 1000 * (int64_t)t;
		mine[i].cap[DIM_GPU] = 1000 * (int64_t)t;
		mine[i].enriched = (uint8_t)(t == 3 ? DIM_BIT(DIM_NET) : 0);
	}
	open_new(f);
	assert_int_equal(store_begin(f->s, &f->e), 0);
	assert_int_equal(store_trace_new(f->s, hashed ? "h" : "n", &tid, &f->e), 0);
	assert_int_equal(store_nodes_add(f->s, tid, mine, n, &f->e), 0);
	assert_int_equal(store_commit(f->s, &f->e), 0);
	struct job_set js = {0};
	assert_int_equal(store_trace_load(f->s, tid, &js, &f->e), 0);
	nodes_equal(&js, mine, n);
	job_set_release(&js);
	free(mine);
	store_close(f->s);
	f->s = NULL;
	int64_t bytes = sql_int(f->path, "SELECT sum(length(data)) FROM node_blocks");
	remove(f->path);
	return bytes;
}

/* Numbered names cost next to nothing (their numbers, not their text), and so do nodes of a
 * few types (a type and its columns once); names that are hashes cost about their 12 bytes
 * of randomness, not the more a split of them would. */
static void test_nodes_names(void **state)
{
	struct fx *f = *state;
	int64_t numbered = node_bytes(f, 4000, 0), hashed = node_bytes(f, 4000, 1);
	assert_true(numbered * 2 < 4000);
	assert_true(hashed < 4000 * 27 / 2);
}

/* The gpu column is coded against num_gpu x gpu_milli (flag 128), and a job whose gpu demand
 * is not that product, or overflows it, comes back as it was. */
static void test_jobs_gpu_product(void **state)
{
	struct fx *f = *state;
	uint64_t ncols[8], flags[8];
	int nb;
	int64_t tid;
	struct store_jobs *jw;
	size_t n = STORE_BLOCK_ROWS + 40;
	struct job *mine = calloc(n, sizeof *mine);
	open_new(f);
	assert_int_equal(store_begin(f->s, &f->e), 0);
	assert_int_equal(store_trace_new(f->s, "g", &tid, &f->e), 0);
	assert_int_equal(store_jobs_begin(f->s, tid, &jw, &f->e), 0);
	for (size_t i = 0; i < n; i++) {
		some_job(&mine[i], (int64_t)i);
		if (i % 11 == 3) /* not the product */
			mine[i].dem[DIM_GPU] += (int64_t)(i % 7) - 3;
		if (i == 40) { /* a product past 2^63 */
			mine[i].num_gpu = INT32_MAX;
			mine[i].gpu_milli = INT32_MAX;
			mine[i].dem[DIM_GPU] = INT64_MIN;
		}
		assert_int_equal(store_jobs_add(jw, &mine[i], &f->e), 0);
	}
	assert_int_equal(store_jobs_end(jw, &f->e), 0);
	assert_int_equal(store_commit(f->s, &f->e), 0);
	job_block_cols(f, ncols, &nb, flags);
	assert_int_equal(nb, 2);
	for (int k = 0; k < nb; k++)
		assert_true(flags[k] & 128);
	struct job_set js = {0};
	assert_int_equal(store_trace_load(f->s, tid, &js, &f->e), 0);
	assert_int_equal(js.njobs, n);
	qsort(mine, n, sizeof *mine, job_cmp);
	for (size_t i = 0; i < n; i++)
		assert_same_job(&js.jobs[i], &mine[i]);
	job_set_release(&js);
	free(mine);
}

/* A block of one-worker jobs has the 16 columns it had before jobs had workers (the same
 * bytes whether W is 1 or unset); only a block holding a gang carries the workers column. */
static void test_jobs_workers_column(void **state)
{
	struct fx *f = *state;
	uint64_t ncols[8];
	int nb;
	size_t n = 2 * STORE_BLOCK_ROWS + 9;
	put_jobs(f, n, w_one);
	int64_t one = job_block_cols(f, ncols, &nb, NULL);
	assert_int_equal(nb, 3);
	for (int k = 0; k < nb; k++)
		assert_int_equal(ncols[k], 16);
	store_close(f->s);
	remove(f->path);
	put_jobs(f, n, w_unset);
	assert_int_equal(job_block_cols(f, ncols, &nb, NULL), one);
	store_close(f->s);
	remove(f->path);
	put_jobs(f, n, w_gang_in_second);
	job_block_cols(f, ncols, &nb, NULL);
	assert_int_equal(ncols[0], 16);
	assert_int_equal(ncols[1], 17);
	assert_int_equal(ncols[2], 16);
	struct job_set js = {0};
	assert_int_equal(store_trace_load(f->s, 1, &js, &f->e), 0);
	int64_t gangs = 0;
	for (size_t i = 0; i < js.njobs; i++)
		if (job_is_gang(&js.jobs[i])) {
			gangs++;
			assert_int_equal(js.jobs[i].id, STORE_BLOCK_ROWS + 3);
			assert_int_equal(js.jobs[i].workers, 512);
		} else {
			assert_int_equal(js.jobs[i].workers, 1);
		}
	assert_int_equal(gangs, 1);
	job_set_release(&js);
}

struct runs_seen {
	int n;
	char policy[4][16];
	int nm;
	double sum;
};

static int on_run(void *ctx, const struct store_run *r)
{
	struct runs_seen *rs = ctx;
	snprintf(rs->policy[rs->n++ % 4], 16, "%s", r->policy);
	assert_null(r->series);
	return 0;
}

static int on_metric(void *ctx, const struct store_metric *m)
{
	struct runs_seen *rs = ctx;
	rs->nm++;
	rs->sum += m->value;
	assert_true(!strcmp(m->key, "a") || !strcmp(m->key, "b"));
	return 0;
}

static void test_runs(void **state)
{
	struct fx *f = *state;
	int64_t tid;
	open_new(f);
	assert_int_equal(store_begin(f->s, &f->e), 0);
	assert_int_equal(store_trace_new(f->s, "t", &tid, &f->e), 0);
	char series[5000];
	for (size_t i = 0; i < sizeof series; i++)
		series[i] = (char)(i % 251);
	struct store_run r1 = {.trace_id = tid,
			       .policy = "fgd",
			       .mode = "timed",
			       .seed = UINT64_MAX,
			       .params_json = "{\"x\":1}",
			       .summary_json = "{}",
			       .series = series,
			       .series_len = sizeof series};
	struct store_run r2 = {.trace_id = tid, .policy = "ragp7", .mode = "inflate", .seed = 2};
	struct store_metric m[] = {{"a", 1.5}, {"b", -2.25}};
	assert_int_equal(store_run_add(f->s, &r1, m, 2, &f->e), 0);
	assert_int_equal(store_run_add(f->s, &r2, m, 1, &f->e), 0);
	assert_int_equal(store_commit(f->s, &f->e), 0);
	assert_true(r2.id > r1.id);
	struct runs_seen rs = {0};
	assert_int_equal(store_run_list(f->s, tid, on_run, &rs, &f->e), 0);
	assert_int_equal(rs.n, 2);
	assert_string_equal(rs.policy[0], "fgd");
	assert_string_equal(rs.policy[1], "ragp7");
	assert_int_equal(store_run_metrics(f->s, r1.id, on_metric, &rs, &f->e), 0);
	assert_int_equal(rs.nm, 2);
	assert_true(rs.sum == -0.75);
	void *p;
	size_t n;
	assert_int_equal(store_run_data(f->s, r1.id, 0, &p, &n, &f->e), 0);
	assert_int_equal(n, sizeof series);
	assert_memory_equal(p, series, n);
	free(p);
	assert_int_equal(store_run_data(f->s, r2.id, 1, &p, &n, &f->e), 0);
	assert_null(p);
	assert_int_equal(n, 0);
	assert_int_equal(store_run_data(f->s, 999, 0, &p, &n, &f->e), VF_EINPUT);
}

struct tally {
	int ok, bad;
};

static void on_check(void *ctx, int ok, const char *what, const char *detail)
{
	struct tally *t = ctx;
	(void)what;
	(void)detail;
	if (ok)
		t->ok++;
	else
		t->bad++;
}

static void test_check_finds_damage(void **state)
{
	struct fx *f = *state;
	open_new(f);
	const char *csv = "a,b\n1,2\n3,4\n5,6\n";
	keep_and_compare(f, "small.csv", csv, strlen(csv), 0, 0);
	jobs_roundtrip(f, 100, 0);
	struct tally t = {0};
	int nbad = -1;
	assert_int_equal(store_check(f->s, on_check, &t, &nbad, &f->e), 0);
	assert_int_equal(nbad, 0);
	assert_true(t.ok >= 4);
	store_close(f->s);
	f->s = NULL;
	/* Flip a byte in the middle of the raw block. */
	sql_exec(f->path, "UPDATE raw_blocks SET data = substr(data, 1, length(data) / 2) || "
			  "x'ff' || substr(data, length(data) / 2 + 2)");
	assert_int_equal(store_open(f->path, STORE_RDONLY, &f->s, &f->e), 0);
	memset(&t, 0, sizeof t);
	assert_int_equal(store_check(f->s, on_check, &t, &nbad, &f->e), 0);
	assert_int_equal(nbad, 1);
	store_close(f->s);
	f->s = NULL;
	/* A jobs block gone: the trace's counts no longer match. */
	sql_exec(f->path, "DELETE FROM job_blocks");
	assert_int_equal(store_open(f->path, STORE_RDONLY, &f->s, &f->e), 0);
	assert_int_equal(store_check(f->s, on_check, &t, &nbad, &f->e), 0);
	assert_int_equal(nbad, 2);
}

/* A timed scenario of trace tid under key, every other parameter unset. */
static struct store_scenario timed_scenario(int64_t tid, const char *key)
{
	return (struct store_scenario){.trace_id = tid,
				       .key = key,
				       .mode = "timed",
				       .target = NAN,
				       .io_pressure = 1,
				       .sample_nodes = -1,
				       .profile_version = -1,
				       .nodes = -1,
				       .gpus = -1,
				       .jobs = -1,
				       .window_start = -1,
				       .window_end = -1,
				       .parent_run = -1,
				       .fork_time = -1};
}

/* Every row voidfit writes, changes or deletes of runs, scenarios, buckets and sizings
 * keeps the seals whole: a fork's scenario losing its parent run, a sizing replaced, a
 * scenario left without runs. */
static void test_runs_keep_seals(void **state)
{
	struct fx *f = *state;
	int64_t tid, s1, s2;
	struct tally t = {0};
	int nbad = -1;
	open_new(f);
	assert_int_equal(store_begin(f->s, &f->e), 0);
	assert_int_equal(store_trace_new(f->s, "t", &tid, &f->e), 0);
	struct store_scenario sc = timed_scenario(tid, "k1");
	assert_int_equal(store_scenario_put(f->s, &sc, &s1, &f->e), 0);
	struct store_run r1 = {.trace_id = tid,
			       .policy = "fgd",
			       .mode = "timed",
			       .scenario_id = s1,
			       .series = "t\n",
			       .series_len = 2};
	struct store_bucket b[] = {{"A100", "train", "productive", 7},
				   {"A100", "none", "unneeded", 3}};
	assert_int_equal(store_run_add(f->s, &r1, NULL, 0, &f->e), 0);
	assert_int_equal(store_run_buckets_add(f->s, r1.id, b, 2, &f->e), 0);
	sc.key = "k2";
	sc.parent_run = r1.id;
	sc.fork_time = 10;
	assert_int_equal(store_scenario_put(f->s, &sc, &s2, &f->e), 0);
	struct store_run r2 = {
		.trace_id = tid, .policy = "fgd", .mode = "timed", .scenario_id = s2};
	assert_int_equal(store_run_add(f->s, &r2, NULL, 0, &f->e), 0);
	struct store_sizing_model zm = {"A100", 4, 3, 32, 24};
	struct store_sizing z = {.scenario_id = s1,
				 .policy = "fgd",
				 .slo = "",
				 .price_tier = "x",
				 .models = &zm,
				 .nmodels = 1};
	assert_int_equal(store_sizing_put(f->s, &z, &f->e), 0);
	z.nodes_min = 2; /* the same sizing again replaces it */
	assert_int_equal(store_sizing_put(f->s, &z, &f->e), 0);
	assert_int_equal(store_commit(f->s, &f->e), 0);
	assert_int_equal(store_check(f->s, on_check, &t, &nbad, &f->e), 0);
	assert_int_equal(nbad, 0);
	/* run 1 goes: the fork keeps its scenario without a parent; then run 2 and its
	 * scenario go */
	for (int i = 0; i < 2; i++) {
		assert_int_equal(store_begin(f->s, &f->e), 0);
		assert_int_equal(store_run_delete(f->s, i ? r2.id : r1.id, &f->e), 0);
		assert_int_equal(store_commit(f->s, &f->e), 0);
		assert_int_equal(store_check(f->s, on_check, &t, &nbad, &f->e), 0);
		assert_int_equal(nbad, 0);
	}
	store_close(f->s);
	f->s = NULL;
	assert_int_equal(sql_int(f->path, "SELECT count(*) FROM scenarios"), 1);
	assert_int_equal(sql_int(f->path, "SELECT count(*) FROM run_blobs"), 0);
	assert_int_equal(sql_int(f->path, "SELECT count(*) FROM sizing_models"), 1);
	/* a bucket changed behind voidfit's back is found */
	assert_int_equal(store_open(f->path, 0, &f->s, &f->e), 0);
	assert_int_equal(store_begin(f->s, &f->e), 0);
	struct store_run r3 = {
		.trace_id = tid, .policy = "fgd", .mode = "timed", .scenario_id = s1};
	assert_int_equal(store_run_add(f->s, &r3, NULL, 0, &f->e), 0);
	assert_int_equal(store_run_buckets_add(f->s, r3.id, b, 2, &f->e), 0);
	assert_int_equal(store_commit(f->s, &f->e), 0);
	store_close(f->s);
	f->s = NULL;
	sql_exec(f->path, "UPDATE run_buckets SET gpu_ms = gpu_ms * 10");
	assert_int_equal(store_open(f->path, STORE_RDONLY, &f->s, &f->e), 0);
	assert_int_equal(store_check(f->s, on_check, &t, &nbad, &f->e), 0);
	assert_int_equal(nbad, 3); /* two rows, and the table's total */
}

/* Deleting a run seals its forks' scenarios again (they lose their parent): a fork changed
 * behind voidfit's back is refused, not sealed as it is found. */
static void test_run_delete_keeps_damage(void **state)
{
	struct fx *f = *state;
	int64_t tid, s1, s2;
	struct tally t = {0};
	int nbad = -1;
	open_new(f);
	assert_int_equal(store_begin(f->s, &f->e), 0);
	assert_int_equal(store_trace_new(f->s, "t", &tid, &f->e), 0);
	struct store_scenario sc = timed_scenario(tid, "k1");
	assert_int_equal(store_scenario_put(f->s, &sc, &s1, &f->e), 0);
	struct store_run r1 = {
		.trace_id = tid, .policy = "fgd", .mode = "timed", .scenario_id = s1};
	assert_int_equal(store_run_add(f->s, &r1, NULL, 0, &f->e), 0);
	sc.key = "k2";
	sc.parent_run = r1.id;
	sc.fork_time = 10;
	assert_int_equal(store_scenario_put(f->s, &sc, &s2, &f->e), 0);
	assert_int_equal(store_commit(f->s, &f->e), 0);
	store_close(f->s);
	f->s = NULL;
	sql_exec(f->path, "UPDATE scenarios SET io_pressure = 5 WHERE key = 'k2'");
	assert_int_equal(store_open(f->path, 0, &f->s, &f->e), 0);
	assert_int_equal(store_begin(f->s, &f->e), 0);
	assert_int_equal(store_run_delete(f->s, r1.id, &f->e), VF_ESTORE);
	assert_non_null(strstr(f->e.msg, "table scenarios: row 2 does not match its checksum"));
	store_rollback(f->s);
	assert_int_equal(store_check(f->s, on_check, &t, &nbad, &f->e), 0);
	assert_int_equal(nbad, 2); /* the row, and the table's total */
}

static void test_killed_import_leaves_nothing(void **state)
{
	struct fx *f = *state;
	open_new(f);
	jobs_roundtrip(f, 10, 0);
	store_close(f->s);
	f->s = NULL;
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct store *s;
		struct err e;
		int64_t tid;
		if (store_open(f->path, 0, &s, &e) || store_begin(s, &e) ||
		    store_trace_new(s, "doomed", &tid, &e))
			_exit(3);
		struct store_jobs *jw;
		store_jobs_begin(s, tid, &jw, &e);
		for (int i = 0; i < 5 * STORE_BLOCK_ROWS; i++) {
			struct job j;
			some_job(&j, i);
			store_jobs_add(jw, &j, &e);
		}
		kill(getpid(), SIGKILL);
		_exit(4);
	}
	int status;
	waitpid(pid, &status, 0);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	/* A reader comes first: it must see the store as before (the hot journal rolled back). */
	assert_int_equal(store_open(f->path, STORE_RDONLY, &f->s, &f->e), 0);
	int64_t id;
	assert_int_equal(store_trace_find(f->s, "doomed", &id, &f->e), VF_EINPUT);
	struct tally t = {0};
	int nbad = -1;
	assert_int_equal(store_check(f->s, on_check, &t, &nbad, &f->e), 0);
	assert_int_equal(nbad, 0);
	store_close(f->s);
	f->s = NULL;
	assert_int_equal(sql_int(f->path, "SELECT count(*) FROM job_blocks"), 1);
}

static void test_busy_store(void **state)
{
	struct fx *f = *state;
	struct store *other;
	open_new(f);
	assert_int_equal(store_open(f->path, 0, &other, &f->e), 0);
	assert_int_equal(store_begin(f->s, &f->e), 0);
	assert_int_equal(store_begin(other, &f->e), VF_ESTORE);
	assert_non_null(strstr(f->e.msg, "busy"));
	store_rollback(f->s);
	assert_int_equal(store_begin(other, &f->e), 0);
	store_rollback(other);
	store_close(other);
}

/* A read transaction reads one state: a writer cannot commit under it (it would wait; here
 * it does not), and what the reader counts stays as it was until it ends. */
static void test_read_transaction(void **state)
{
	struct fx *f = *state;
	struct store *r, *w;
	struct store_wait now = {0, NULL, NULL};
	int64_t id, n;
	open_new(f);
	assert_int_equal(store_begin(f->s, &f->e), 0);
	assert_int_equal(store_trace_new(f->s, "a", &id, &f->e), 0);
	assert_int_equal(store_commit(f->s, &f->e), 0);
	assert_int_equal(store_open(f->path, STORE_RDONLY, &r, &f->e), 0);
	assert_int_equal(store_open_wait(f->path, 0, &now, &w, &f->e), 0);
	assert_int_equal(store_read_begin(r, &f->e), 0);
	assert_int_equal(store_begin(w, &f->e), 0);
	assert_int_equal(store_trace_new(w, "b", &id, &f->e), 0);
	assert_int_equal(store_commit(w, &f->e), VF_ESTORE);
	assert_non_null(strstr(f->e.msg, "busy"));
	assert_int_equal(store_query_int(r, "SELECT count(*) FROM traces", &n, &f->e), 0);
	assert_int_equal(n, 1);
	store_read_end(r);
	assert_int_equal(store_begin(w, &f->e), 0);
	assert_int_equal(store_trace_new(w, "b", &id, &f->e), 0);
	assert_int_equal(store_commit(w, &f->e), 0);
	assert_int_equal(store_query_int(r, "SELECT count(*) FROM traces", &n, &f->e), 0);
	assert_int_equal(n, 2);
	store_close(w);
	store_close(r);
}

/* A store at path holding one trace whose own model name has hbm_mib and id. */
static void store_with_model(const char *path, const char *name, int64_t hbm, int id)
{
	struct store *s;
	struct err e = {0};
	int64_t tid;
	struct gpumodel_def d = {.m = {.name = name, .hbm_mib = hbm}, .aliases = ""};
	for (int t = 0; t < GPUMODEL_NTIER; t++) {
		d.m.usd[t] = 1;
		d.m.source[t] = "assumed";
	}
	assert_int_equal(store_open(path, STORE_CREATE, &s, &e), 0);
	assert_int_equal(store_begin(s, &e), 0);
	assert_int_equal(store_trace_new(s, "t", &tid, &e), 0);
	assert_int_equal(store_gpu_models_add(s, tid, &d, &id, 1, &e), 0);
	assert_int_equal(store_commit(s, &e), 0);
	store_close(s);
}

/* Opening a store adds its models to the process's table; a second store of the same
 * process whose models clash, or would take other ids, is refused. Last: it adds models. */
static void test_gpu_models_of_two_stores(void **state)
{
	struct fx *f = *state;
	char x[128], junk[128];
	int id = gpumodel_count();
	snprintf(x, sizeof x, "%s/x.db", f->dir);
	snprintf(junk, sizeof junk, "%s/junk", f->dir);
	store_with_model(f->path, "MINE-1", 1024, id);
	store_with_model(x, "MINE-1", 2048, id);
	store_with_model(junk, "MINE-2", 1024, id);
	assert_int_equal(gpumodel_find("MINE-1"), -1);
	assert_int_equal(store_open(f->path, STORE_RDONLY, &f->s, &f->e), 0);
	assert_int_equal(gpumodel_find("MINE-1"), id);
	assert_int_equal(gpumodel_get(id)->hbm_mib, 1024);
	struct store *s2 = NULL;
	assert_int_equal(store_open(x, STORE_RDONLY, &s2, &f->e), VF_EINPUT);
	assert_null(s2);
	assert_non_null(strstr(f->e.msg, "x.db: trace 1: GPU model 'MINE-1' is known already"));
	assert_int_equal(store_open(junk, STORE_RDONLY, &s2, &f->e), VF_ESTORE);
	assert_non_null(strstr(f->e.msg, "GPU model 'MINE-2' is model"));
	assert_non_null(strstr(f->e.msg, "not supported"));
	/* the same store again: the same model */
	assert_int_equal(store_open(f->path, STORE_RDONLY, &s2, &f->e), 0);
	store_close(s2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_create_and_reopen, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fresh_store_syncs_after_schema, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_not_a_store, setup, teardown),
		cmocka_unit_test_setup_teardown(test_open_refuses_and_leaves_untouched, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_new_store_appears_at_commit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_new_store_refused_if_path_taken, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_traces_and_files, setup, teardown),
		cmocka_unit_test_setup_teardown(test_raw_tricky_bytes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_raw_first_block_short, setup, teardown),
		cmocka_unit_test_setup_teardown(test_raw_finish_hash, setup, teardown),
		cmocka_unit_test_setup_teardown(test_raw_long_lines_split, setup, teardown),
		cmocka_unit_test_setup_teardown(test_raw_numbers_at_every_offset, setup, teardown),
		cmocka_unit_test_setup_teardown(test_raw_big_and_long, setup, teardown),
		cmocka_unit_test_setup_teardown(test_raw_shapes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_raw_forged_shapes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_raw_real_samples, setup, teardown),
		cmocka_unit_test_setup_teardown(test_jobs_roundtrip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_jobs_workers_column, setup, teardown),
		cmocka_unit_test_setup_teardown(test_jobs_against_their_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_jobs_bad_gaps, setup, teardown),
		cmocka_unit_test_setup_teardown(test_jobs_gpu_product, setup, teardown),
		cmocka_unit_test_setup_teardown(test_nodes_blocks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_nodes_names, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sql_tidy, setup, teardown),
		cmocka_unit_test_setup_teardown(test_runs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_check_finds_damage, setup, teardown),
		cmocka_unit_test_setup_teardown(test_runs_keep_seals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_delete_keeps_damage, setup, teardown),
		cmocka_unit_test_setup_teardown(test_killed_import_leaves_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_busy_store, setup, teardown),
		cmocka_unit_test_setup_teardown(test_read_transaction, setup, teardown),
		cmocka_unit_test_setup_teardown(test_gpu_models_of_two_stores, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
