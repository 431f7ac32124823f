/*
 * store-int.h — what the store's source files (store.c, store-raw.c, store-jobs.c,
 * store-run.c) share; not part of the public contract.
 */
#ifndef VOIDFIT_STORE_INT_H
#define VOIDFIT_STORE_INT_H

#include <sqlite3.h>
#include <sys/types.h>

#include "sha256.h"
#include "store.h"
#include "zblk.h"

/* application_id "VFIT". */
#define STORE_APP_ID 0x56464954
/* zstd levels: blocks of a file up to STORE_SMALL_FILE bytes are compressed hard (level 19
 * costs well under a second there and takes ~10% off the store); bigger files at level 1:
 * their blocks are columns already coded small, which level 3 shrinks only 0.3-1 % more
 * for 5-30 % more import time (40 MB of DLRM and openb pods, 60 MB of 'voidfit gen'). */
#define STORE_ZLEVEL       1
#define STORE_ZLEVEL_SMALL 19
#define STORE_SMALL_FILE   (4 << 20)

/* A new store of at most STORE_SMALL_STORE bytes after its first commit, an import, is
 * rewritten with pages of STORE_SMALL_PAGE bytes (store.c, compact_small). */
#define STORE_SMALL_STORE (1 << 20)
#define STORE_SMALL_PAGE  512

/* Sealed tables (store-seal.c) a connection keeps statements for. */
#define STORE_MAX_SEALED 16

/* A sealed table's statements and the changes to its row_sums row not yet written. */
struct store_sealtab {
	char name[32];
	sqlite3_stmt *sel, *upd; /* a row by rowid; set its rsum */
	int64_t dn;              /* rows added */
	uint64_t dtotal;         /* added to the total, mod 2^64 */
	int dirty;               /* dn or dtotal changed since the last flush */
};

/* A wait for a busy store says so only once it has lasted this long (a commit passing by
 * is not worth a message). */
#define STORE_WAIT_QUIET_MS 200

struct store {
	sqlite3 *db;
	char *path;         /* as given to store_open, for messages */
	struct zblk_ctx *z; /* the one compression context of this store */
	int rdonly;         /* opened with STORE_RDONLY */
	int intx;           /* inside store_begin .. commit/rollback */
	sqlite3_stmt *qins; /* the quarantine insert, prepared once (bad rows can be many) */
	/* A new store until its first commit: the temporary file it is built in (NULL once
	 * in place, or for an existing store), which file that is, and the next such store
	 * of this process (store.c removes them all at exit). */
	char *tmp;
	dev_t tmp_dev;
	ino_t tmp_ino;
	size_t swept; /* leftovers of killed imports removed when it was made (sweep_temps) */
	struct store *next_pending;
	/* Waiting for a store another process holds: how long, whom to tell (once), when
	 * the current wait began (ms, monotonic). */
	double wait_s;
	void (*waiting)(void *ctx, const char *msg);
	void *wait_ctx;
	int told;
	int64_t busy_since;
	struct store_sealtab seal[STORE_MAX_SEALED]; /* the sealed tables written so far */
	size_t nseal;
	/* Reading what the seals cover (store-seal.c): the tables the migrations seal (from
	 * the reference schema), which of them the statement being prepared reads (bits set
	 * by the authorizer), which were verified in the snapshot of data_version vdv. */
	char sealed[STORE_MAX_SEALED][32];
	size_t nsealed;
	unsigned touched, verified;
	int64_t vdv;
	int verifying; /* inside store_read_verify: reads are not recorded */
	int checking;  /* opened with STORE_CHECK: nothing refused, nothing verified */
	int inread;    /* inside store_read_begin .. store_read_end */
	int foreign;   /* STORE_CHECK: the schema objects voidfit does not make */
};

/* The tables of a task store alone (store-merge.c): the schema objects the migrations make
 * and these are a store's (store_schema_foreign). task: its one row; resample_answers: a
 * verdict's task's answers (store-answer.c); trace_probes and trace_probe_figures: the runs
 * of a verdict's searches on its trace, in its sweep's trace.db (store-answer.c), a row a
 * run and a row a figure of it. Each row carries its own checksum, rsum, as a sealed
 * table's row does (voidfit(5)), checked whenever it is read. */
#define STORE_TASK_SCHEMA                                                                          \
	"CREATE TABLE task ("                                                                      \
	"trace_id INTEGER NOT NULL REFERENCES traces(id), "                                        \
	"trace_sha256 TEXT NOT NULL, "                                                             \
	"content_sha256 TEXT NOT NULL, "                                                           \
	"voidfit_version TEXT NOT NULL, "                                                          \
	"runs INTEGER, "                                                                           \
	"finished_at INTEGER);"                                                                    \
	"CREATE TABLE resample_answers ("                                                          \
	"id INTEGER PRIMARY KEY, "                                                                 \
	"trace_id INTEGER NOT NULL REFERENCES traces(id), "                                        \
	"scen_key TEXT NOT NULL, "                                                                 \
	"verdict_key TEXT NOT NULL, "                                                              \
	"resample INTEGER NOT NULL, "                                                              \
	"policy TEXT NOT NULL, "                                                                   \
	"usd_year REAL, "                                                                          \
	"growth REAL, "                                                                            \
	"buy_usd_year REAL, "                                                                      \
	"rsum INTEGER);"                                                                           \
	"CREATE TABLE trace_probes ("                                                              \
	"id INTEGER PRIMARY KEY, "                                                                 \
	"trace_id INTEGER NOT NULL REFERENCES traces(id), "                                        \
	"scen_key TEXT NOT NULL, "                                                                 \
	"verdict_key TEXT NOT NULL, "                                                              \
	"search TEXT NOT NULL, "                                                                   \
	"growth REAL NOT NULL, "                                                                   \
	"policy TEXT NOT NULL, "                                                                   \
	"step INTEGER NOT NULL, "                                                                  \
	"seed INTEGER NOT NULL, "                                                                  \
	"w0 INTEGER NOT NULL, "                                                                    \
	"w1 INTEGER NOT NULL, "                                                                    \
	"gave_up INTEGER NOT NULL, "                                                               \
	"events INTEGER NOT NULL, "                                                                \
	"figures INTEGER NOT NULL, "                                                               \
	"rsum INTEGER);"                                                                           \
	"CREATE TABLE trace_probe_figures ("                                                       \
	"id INTEGER PRIMARY KEY, "                                                                 \
	"probe_id INTEGER NOT NULL REFERENCES trace_probes(id), "                                  \
	"key TEXT NOT NULL, "                                                                      \
	"value REAL, "                                                                             \
	"rsum INTEGER)"

/* An in-memory database holding what migrations 1..version make (and the task table), into
 * *out (the caller closes it, also on failure). */
int store_reference_schema(int version, sqlite3 **out, struct err *e);
/* Compare s's schema objects with those migrations 1..version make: call cb for each
 * object the store holds that they do not make, or makes otherwise (why: "not made by
 * voidfit", "differs from what voidfit makes"); the count of those in *n. Reads
 * sqlite_master only. */
int store_schema_foreign(struct store *s, int version,
			 void (*cb)(void *ctx, const char *type, const char *name, const char *why),
			 void *ctx, int *n, struct err *e);

/* The zstd level for the blocks of a file of size bytes (unknown: < 0). */
int store_zlevel(int64_t size);

/* Fill e from db's last error: "PATH: WHAT: sqlite message"; busy maps to a clear
 * message; returns VF_ESTORE. */
int store_sqlerr(struct store *s, struct err *e, const char *what);
/* Prepare sql; VF_ESTORE on failure. */
int store_prep(struct store *s, const char *sql, sqlite3_stmt **st, struct err *e);
/* A query read row by row, the loop every list function has:
 *
 *   struct store_rows q;
 *   int rc = store_rows_begin(s, &q, sql, &id, e);
 *   while (!rc && store_rows_next(&q))
 *           rc = ... q.st's columns ...;
 *   return store_rows_end(&q, rc, "list things");
 *
 * begin prepares sql and binds ?1 to *id (id NULL: no parameter); next steps, 1 while there
 * is a row; end finalizes and, when rc is 0 but the rows did not end cleanly, returns
 * store_sqlerr's VF_ESTORE for what; otherwise rc. */
struct store_rows {
	struct store *s;
	sqlite3_stmt *st; /* the statement, its columns the current row's */
	int step;         /* what the last sqlite3_step returned */
	struct err *e;
};
int store_rows_begin(struct store *s, struct store_rows *q, const char *sql, const int64_t *id,
		     struct err *e);
int store_rows_next(struct store_rows *q);
int store_rows_end(struct store_rows *q, int rc, const char *what);
/* The integers of the first column of sql's rows (?1 bound to *id unless id is NULL),
 * appended to *ids (grown, the caller frees) and counted in *n: 0, or as store_rows_end. */
int store_ids(struct store *s, const char *sql, const int64_t *id, int64_t **ids, size_t *n,
	      const char *what, struct err *e);
/* A value for a statement's parameter: STORE_I an integer, STORE_R a real, STORE_T a text
 * (NULL: null; bound SQLITE_STATIC, so it must outlive the statement's step). */
struct store_val {
	enum { STORE_V_INT, STORE_V_REAL, STORE_V_TEXT } type;
	int64_t i;
	double r;
	const char *s;
};
#define STORE_I(x) ((struct store_val){STORE_V_INT, (int64_t)(x), 0, NULL})
#define STORE_R(x) ((struct store_val){STORE_V_REAL, 0, (x), NULL})
#define STORE_T(x) ((struct store_val){STORE_V_TEXT, 0, 0, (x)})
/* Bind v[0..n) to st's parameters 1..n. */
void store_bind(sqlite3_stmt *st, const struct store_val *v, size_t n);
/* store_bind of the values listed: STORE_BIND(st, STORE_I(id), STORE_T(name)). */
#define STORE_BIND(st, ...)                                                                        \
	store_bind((st), (const struct store_val[]){__VA_ARGS__},                                  \
		   sizeof((const struct store_val[]){__VA_ARGS__}) / sizeof(struct store_val))
/* Run a statement with no result rows; VF_ESTORE on failure. */
int store_exec(struct store *s, const char *sql, struct err *e);
/* A single integer from sql (a PRAGMA or a count). */
int store_query_int(struct store *s, const char *sql, int64_t *out, struct err *e);
/* The schema version this voidfit makes (the highest migration number), and the SQL of
 * migration v (NULL if there is none). */
int store_schema_version(void);
const char *store_migration(int v);
/* sql with its comments dropped and its white space cut to what SQLite needs (none next to
 * ( ) , ; and one space elsewhere; quoted text as written), appended to out. SQLite keeps a
 * schema object's text as it was written, comments included: the migrations are run tidied,
 * so a store's schema takes a few KB less (most of a small store's), and a store's schema is
 * compared with the migrations' tidied on both sides (store_sql_same), so that one made
 * before, with the text as written, is the same. */
void store_sql_tidy(const char *sql, struct sbuf *out);
/* Are a and b the same statement once tidied (both NULL: the same)? */
int store_sql_same(const char *a, const char *b);
/* COMMIT without putting a new store in place (store_commit does that too). */
int store_commit_migration(struct store *s, struct err *e);

/* ---- row checksums (store-seal.c) ---- */

/* A row's checksum from its cells, in column order (NULL cells left out, rsum too). */
struct store_rowhash {
	struct sha256 h;
};
void store_rowhash_init(struct store_rowhash *r);
void store_rowhash_int(struct store_rowhash *r, const char *name, int64_t v);
/* A text (type SQLITE_TEXT) or blob (SQLITE_BLOB) cell. */
void store_rowhash_bytes(struct store_rowhash *r, const char *name, int type, const void *p,
			 size_t len);
uint64_t store_rowhash_end(struct store_rowhash *r);
/* Count a row of table that voidfit inserted with its rsum sum already in it. */
int store_seal_added(struct store *s, const char *table, uint64_t sum, struct err *e);
/* The checksum of the row st is on, over its columns from index from on (a column named
 * rsum is skipped, and its index put in *rsum_col, else -1 there). */
uint64_t store_row_sum(sqlite3_stmt *st, int from, int *rsum_col);
/* Add the store's GPU models to the process's table (store-models.c; see
 * store_gpu_models_add). */
int store_gpu_models_load(struct store *s, struct err *e);
/* Rewrite the rsum of row rowid of table (after voidfit inserted or updated it). */
int store_seal(struct store *s, const char *table, int64_t rowid, struct err *e);
/* Step st, an INSERT of one row into table whose values are bound, and seal the row (its
 * rowid into *id when id is not NULL); st is reset either way, for the next row's values:
 * 0, or VF_ESTORE ("PATH: add WHAT: ...", as store_sqlerr says it). */
int store_insert(struct store *s, sqlite3_stmt *st, const char *table, const char *what,
		 int64_t *id, struct err *e);
/* Row rowid of table (if it is there) is as voidfit sealed it, else VF_ESTORE naming it: a
 * row a writer is about to change and seal again, inside its transaction where reads are
 * not verified, must not carry a change made outside voidfit into its new seal. */
int store_seal_intact(struct store *s, const char *table, int64_t rowid, struct err *e);
/* The rows of table matching where (an SQL condition on ?1 = id) are about to be deleted by
 * voidfit: take them out of the table's count and total. */
int store_unseal(struct store *s, const char *table, const char *where, int64_t id, struct err *e);
/* Seal every row without an rsum in every table of row_sums (after a migration; nothing
 * before schema version 2). */
int store_seal_all(struct store *s, struct err *e);
/* Add the pending counts and totals to row_sums (before COMMIT), or drop them (after
 * ROLLBACK); release the statements (before closing the connection). */
int store_seal_flush(struct store *s, struct err *e);
void store_seal_discard(struct store *s);
void store_seal_forget(struct store *s);

/* Every row of table, its checksum against its rsum (bad is called with st on each row
 * that does not match, sealed = 0 when it has no rsum); the rows and the sum of their
 * checksums into *n and *sum. with_rowid: column 0 of st is the rowid, then the table's
 * columns. Returns 0 or VF_ESTORE when the table cannot be read. */
int store_seal_scan(struct store *s, const char *table, int with_rowid,
		    void (*bad)(void *ctx, sqlite3_stmt *st, int sealed), void *ctx, int64_t *n,
		    uint64_t *sum, struct err *e);
/* Verify the sealed tables the statement just prepared reads (s->touched) that are not
 * verified in this snapshot yet: each row against its checksum, the count and total
 * against row_sums, SQLite's integrity check of the table and its indexes. Nothing inside a write
 * transaction (its own rows are being written) or on a store opened with STORE_CHECK. VF_ESTORE
 * names the table and what is wrong. */
int store_read_verify(struct store *s, struct err *e);
/* Verify every sealed table of s now, in or out of a transaction (at the start of one,
 * before it writes). */
int store_verify_all(struct store *s, struct err *e);
/* The authorizer of s's connection: records the sealed tables a statement reads. */
int store_read_auth(void *ctx, int action, const char *a, const char *b, const char *db,
		    const char *trigger);

/* A table of a trace's blocks (job_blocks, node_blocks): each row a sealed zblk block of
 * kind, of at most STORE_BLOCK_ROWS rows, numbered by seq from 0. */
struct store_blocks {
	const char *table;                    /* "job_blocks" */
	const char *what, *rows;              /* for messages: "job" (block 3), "jobs" */
	int kind;                             /* ZBLK_* */
	uint64_t (*max_bytes)(uint64_t rows); /* the most bytes rows take, inflated */
	/* append the rows of one inflated block (0, or an error) */
	int (*decode)(void *u, const struct zblk_buf *raw, size_t rows, struct err *e);
	void *u;
};
/* Decode trace_id's blocks of b in seq order, each checked first (seq, its claimed size,
 * checksum, kind and rows): 0, or VF_ESTORE naming the store, trace and block (store-jobs.c). */
int store_blocks_read(struct store *s, int64_t trace_id, const struct store_blocks *b,
		      struct err *e);
/* Append the nodes of trace_id to out, in trace order (store-nodes.c). */
int store_nodes_load(struct store *s, int64_t trace_id, struct job_set *out, struct err *e);

/* ---- job blocks coded against the lines their jobs came from ----
 *
 * A block of jobs parsed from lines of a text file (store_jobs_add_line) is handed, once
 * ended, to that file's raw writer (raw_queue_jobs), which codes it once the text block
 * holding its lines is coded (so the numbers of its lines are at hand, not decoded again)
 * and inserts it (store-raw.c). Blocks of jobs from no text file are coded alone by the
 * jobs writer. */
#define JOBS_MAX_RAW 47 /* raw columns a block may refer to: refs fit in a byte */

struct jobs_task {
	int64_t trace_id, seq;       /* where it goes in job_blocks */
	int64_t line0;               /* 0-based physical line of its first job's line */
	int64_t *lines;              /* 0-based line of each job's line, non-decreasing (owned),
				      * or NULL: job i's is line0 + i */
	size_t n;                    /* jobs */
	int64_t *cols;               /* the jobs' columns, column-major (owned) */
	int ncols;                   /* columns in cols: the workers column only if a gang */
	struct jobs_task *next;      /* in a raw writer's list */
	uint64_t upto;               /* the raw writer's last text block it may refer to */
	struct zblk_buf enc, sealed; /* out: coded, then sealed */
	int rc;                      /* out: 0 or the zblk_seal error (err) */
	struct err err;
};
/* The choices that carry from one block to the next of one file's jobs: column plans, and
 * whether the file's blocks are coded against its lines or alone (tried on the first). */
struct jobs_coder;
struct jobs_coder *jobs_coder_new(void);
void jobs_coder_free(struct jobs_coder *c); /* c may be NULL */
/* Code t into t->sealed with z (any thread: touches only t, c and z; t->cols is changed): against
 * the numbers rv, rn (nraw x t->n, column-major: field k of line t->line0 + i at [k * t->n + i],
 * NULL where rn is set) of text file rawfile, or alone if rawfile is 0 or nraw is 0. */
void jobs_task_code(struct jobs_task *t, struct jobs_coder *c, int64_t rawfile, const int64_t *rv,
		    const uint8_t *rn, size_t nraw, struct zblk_ctx *z);
/* Insert a coded t into job_blocks (t->rc is returned with t->err if coding failed). */
int jobs_task_insert(struct store *s, struct jobs_task *t, struct err *e);
void jobs_task_free(struct jobs_task *t); /* t may be NULL */

/* The raw writer side (store-raw.c). Is w a text file (its lines have numbers)? */
int raw_is_text(const struct store_raw *w);
/* jw adds jobs from w's lines: w tells it when it ends (store_jobs_src_end) or is
 * aborted (store_jobs_src_gone); NULL: forget it. */
void raw_attach_jobs(struct store_raw *w, struct store_jobs *jw);
/* Take t (owned from here on) to code after the next text block w hands over. */
void raw_queue_jobs(struct store_raw *w, struct jobs_task *t);
/* The jobs writer side (store-jobs.c): src is ending: hand it the block of jobs from its
 * lines that is still being filled, and forget src. */
int store_jobs_src_end(struct store_jobs *jw, struct store_raw *src, struct err *e);
/* src is being freed without ending: forget it (its jobs will be coded alone). */
void store_jobs_src_gone(struct store_jobs *jw, struct store_raw *src);

/* A forward-only reader of the numbers in a text file's lines (store-raw.c), so job blocks
 * can be coded against the columns they were parsed from. */
struct raw_cursor;
int raw_cursor_open(struct store *s, int64_t file_id, struct raw_cursor **out, struct err *e);
/* Fields of the file's simple lines. */
size_t raw_cursor_ncols(const struct raw_cursor *c);
/* The numbers of the first ncols (<= raw_cursor_ncols) fields of n physical lines (0-based):
 * lines[i] for row i, non-decreasing, or line0 + i when lines is NULL; column-major (ncols x
 * n) into num and nul; lines kept verbatim read as NULL; a line past the end, or a block
 * missing, is VF_ESTORE (a damaged store). The lines must not go back between calls. */
int raw_cursor_numbers(struct raw_cursor *c, int64_t line0, const int64_t *lines, size_t n,
		       size_t ncols, int64_t *num, uint8_t *nul, struct err *e);
void raw_cursor_close(struct raw_cursor *c);

/* The fields of a text block's simple lines coded jointly (store-shape.c): sel[0..nsel) in
 * column order (nsel 0: none, or at least 2), and each line's shape idx[i] < k, shape g
 * first met on line rep[g], the shapes most common first. The rest is scratch kept from one
 * block to the next. */
struct raw_shape {
	size_t nsel, k;
	size_t *sel;
	uint32_t *idx, *rep;
	uint32_t *tmp, *trep, *tcnt, *table; /* scratch */
	uint64_t *hash;
	size_t cap, selcap, tsize;
};
/* Choose the fields of the ns lines (field c of line i at field[c * stride + i]) to code
 * jointly (nsel 0: none worth it), and number the lines' shapes. */
void raw_shape_plan(struct raw_shape *sh, const struct zblk_str *field, size_t stride, size_t ns,
		    size_t ncols);
/* Number the shapes of the ns lines by the fields sh chose: 1, or 0 if there are none (no
 * fields, or more shapes than a quarter of the lines); sel is kept either way. */
int raw_shape_follow(struct raw_shape *sh, const struct zblk_str *field, size_t stride, size_t ns);
void raw_shape_free(struct raw_shape *sh);

#endif
