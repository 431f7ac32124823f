/*
 * csvin.h — reading one trace file as CSV records, whatever it came in.
 *
 * A csvin reads a plain, gzip or zstd file (told apart by their magic bytes, not their
 * names; a zstd file may begin with a skippable frame, as pzstd writes it) or a stream
 * such as stdin, hands every original byte to a raw sink (so the store
 * can give the file back byte for byte), strips a UTF-8 BOM, and parses the text with
 * libcsv in strict mode. Each record comes with its 1-based physical line number and its
 * raw text, so a bad row can be quarantined as it was written.
 *
 * Whole-file errors (VF_EINPUT, message "NAME:LINE: cause"): a NUL byte, a record longer
 * than CSVIN_RECORD_MAX, truncated or corrupt compressed data. A row with broken quoting
 * is not a file error: it comes back with rec->bad set, and reading goes on at the next
 * line. So does a quoted field still open at the end of the file (a file cut short): the
 * record it began, to the end, is the last one, bad.
 */
#ifndef VOIDFIT_CSVIN_H
#define VOIDFIT_CSVIN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "util.h"

/* The longest record (raw text, so also the longest field) a file may hold: 1 MiB. Longer
 * fails the file, so memory stays bounded whatever the input. */
#define CSVIN_RECORD_MAX ((size_t)1 << 20)

enum csvin_comp { CSVIN_PLAIN, CSVIN_GZIP, CSVIN_ZSTD };

/* One record, valid until the next csvin_next or csvin_close. */
struct csvin_rec {
	size_t n;                 /* number of fields */
	const char *const *field; /* field[i]: NUL-terminated; NULL for an empty unquoted cell */
	const size_t *len;        /* len[i]: length of field[i] (0 when NULL) */
	int64_t line;             /* 1-based physical line where the record starts */
	const char *raw; /* the record's text as written, without its line end; NUL-terminated */
	size_t rawlen;
	const char *bad; /* NULL, or why the record could not be parsed ("malformed quoting") */
};

/* Where the original bytes go: called with every byte of the file, in order, in chunks.
 * A nonzero return stops the reading with that error. */
typedef int (*csvin_raw_fn)(void *ctx, const void *buf, size_t n, struct err *e);

struct csvin;

/* Open path for reading ("-" is stdin), or read f if not NULL (then name only names it in
 * messages and f stays the caller's). Returns 0, or VF_EIO if the file cannot be opened. */
int csvin_open(const char *name, FILE *f, struct csvin **out, struct err *e);
/* Send the original bytes to fn(ctx, ...) from now on (set it before the first read). */
void csvin_set_raw(struct csvin *c, csvin_raw_fn fn, void *ctx);
/* Split fields at delim (',' by default; a tab, ';', '|' ...) from now on: set it before
 * the first read. */
void csvin_set_delim(struct csvin *c, unsigned char delim);
/* Line mode, from the next record on: each physical line is one record of one field, its
 * text as written (without its line end), not parsed as CSV; blank lines are no record.
 * For formats whose text is not CSV (sacct's '|', SWF's blanks, JSON). */
void csvin_set_lines(struct csvin *c);
/* The next record in *rec (NULL at the end of the file): returns 0, or a VF_E* code with e
 * filled (the csvin is then unusable). */
int csvin_next(struct csvin *c, struct csvin_rec **rec, struct err *e);
/* The compression of the file; valid after the first csvin_next. */
enum csvin_comp csvin_compression(const struct csvin *c);
/* Original bytes read so far (compressed bytes for a compressed file). */
int64_t csvin_bytes(const struct csvin *c);
/* Did the text start with a UTF-8 BOM (stripped before parsing)? */
int csvin_had_bom(const struct csvin *c);
/* Close c (and its file, if csvin_open opened it); c may be NULL. */
void csvin_close(struct csvin *c);

/* SHA-256 (sha256.h) of the rest of f (from its current position) into out, and its
 * length into *size; VF_EIO on a read error (name names f in the message). */
int csvin_hash_stream(FILE *f, const char *name, uint8_t out[32], int64_t *size, struct err *e);

#endif
