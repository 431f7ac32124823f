/*
 * store-int.h — what the store's source files (store.c, store-raw.c, store-jobs.c,
 * store-run.c) share; not part of the public contract.
 */
#ifndef VOIDFIT_STORE_INT_H
#define VOIDFIT_STORE_INT_H

#include <sqlite3.h>

#include "store.h"
#include "zblk.h"

/* application_id "VFIT". */
#define STORE_APP_ID 0x56464954
/* zstd levels: blocks of a file up to STORE_SMALL_FILE bytes are compressed hard (level 19
 * costs well under a second there and takes ~10% off the store); bigger files at level 3,
 * which keeps the store writing at tens of MB/s. */
#define STORE_ZLEVEL       3
#define STORE_ZLEVEL_SMALL 19
#define STORE_SMALL_FILE   (4 << 20)

struct store {
	sqlite3 *db;
	char *path;         /* as given to store_open, for messages */
	struct zblk_ctx *z; /* the one compression context of this store */
	int rdonly;         /* opened with STORE_RDONLY */
	int intx;           /* inside store_begin .. commit/rollback */
	sqlite3_stmt *qins; /* the quarantine insert, prepared once (bad rows can be many) */
};

/* The zstd level for the blocks of a file of size bytes (unknown: < 0). */
int store_zlevel(int64_t size);

/* Fill e from db's last error: "PATH: WHAT: sqlite message"; busy maps to a clear
 * message; returns VF_ESTORE. */
int store_sqlerr(struct store *s, struct err *e, const char *what);
/* Prepare sql; VF_ESTORE on failure. */
int store_prep(struct store *s, const char *sql, sqlite3_stmt **st, struct err *e);
/* Run a statement with no result rows; VF_ESTORE on failure. */
int store_exec(struct store *s, const char *sql, struct err *e);

/* Append the nodes of trace_id to out, in idx order (store.c). */
int store_nodes_load(struct store *s, int64_t trace_id, struct job_set *out, struct err *e);

/* Code the job blocks staged in this transaction into job_blocks, against the raw file
 * their jobs came from (or alone, if that was smaller for a trace's first block), on two
 * threads (store-jobs.c); run by store_commit. */
int store_jobs_settle(struct store *s, struct err *e);

/* A forward-only reader of the numbers in a text file's simple lines (store-raw.c), so job
 * blocks can be coded against the columns they were parsed from. */
struct raw_cursor;
int raw_cursor_open(struct store *s, int64_t file_id, struct raw_cursor **out, struct err *e);
/* Fields of the file's simple lines. */
size_t raw_cursor_ncols(const struct raw_cursor *c);
/* The numbers of simple lines [row0, row0 + n), column-major (ncols x n) into num and nul;
 * lines past the end read as NULL. row0 must not go back between calls. */
int raw_cursor_numbers(struct raw_cursor *c, int64_t row0, size_t n, int64_t *num, uint8_t *nul,
		       struct err *e);
void raw_cursor_close(struct raw_cursor *c);

#endif
