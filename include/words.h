/*
 * words.h — reading the small text files voidfit takes (cluster specs, enrichment profiles,
 * column mappings): one directive a line, '#' starts a comment, words split on blanks.
 *
 *   struct words r;
 *   if (words_open(&r, text, len, "x.spec", e)) return ...;
 *   while ((rc = words_next(&r, e)) > 0) use r.w[0..r.n-1], r.lineno;
 *   words_close(&r);
 */
#ifndef VOIDFIT_WORDS_H
#define VOIDFIT_WORDS_H

#include <stddef.h>

#include "sbuf.h"
#include "util.h"

#define WORDS_MAX 64 /* words on one line; more is an input error */

struct words {
	char *buf;          /* a NUL-terminated copy of the text (owned) */
	char *next;         /* start of the next line, NULL after the last */
	const char *fname;  /* names the text in messages (not owned) */
	int lineno;         /* 1-based number of the line last returned */
	int n;              /* words on that line */
	char *w[WORDS_MAX]; /* the words, pointing into buf */
};

/* Start reading text (len bytes, not NUL-terminated) named fname. A NUL byte in it is an
 * input error ("FNAME: not a text file (NUL byte)"); r then owns nothing. */
int words_open(struct words *r, const char *text, size_t len, const char *fname, struct err *e);
/* Move to the next line that has words: 1 and r->w, r->n, r->lineno set; 0 at the end; or
 * VF_EINPUT negated (-VF_EINPUT) with e set ("FNAME:LINE: too many words"). */
int words_next(struct words *r, struct err *e);
/* Append the whole file at path to out. A file over max bytes is an input error
 * ("PATH: larger than MAX bytes: not WHAT"); one that cannot be opened or read, VF_EIO ("PATH: Is a
 * directory"). */
int words_read_file(const char *path, size_t max, const char *what, struct sbuf *out,
		    struct err *e);
/* Free what r owns; r may be NULL. */
void words_close(struct words *r);

#endif
