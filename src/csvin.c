/*
 * csvin.c — a trace file as CSV records: byte source (plain, gzip, zstd, stdin), BOM, NUL
 * and size checks, libcsv parsing with line numbers and raw text per record.
 *
 * Data flow:   file ──fread──▶ in[] ──raw sink (original bytes)
 *                               │ inflate / ZSTD_decompressStream into out[] (plain: in[] itself)
 *                               ▼
 *                             text ──split at '\n'──▶ csv_parse, one physical line at a time
 *
 * Feeding libcsv one physical line at a time is what gives each record its line number and
 * raw text: a record ends (callback end_record) inside the line that holds its terminator,
 * and rec_raw accumulates the lines since the record began.
 *
 * Invariants:
 *   - line is the physical line of the next byte of out[] to be parsed;
 *   - rec_raw holds the text of the current record so far, never more than
 *     CSVIN_RECORD_MAX bytes (checked before appending);
 *   - nfield fields are in fbuf at foff[i], flen[i] (fnull[i] when NULL);
 *   - ready is 1 when a complete record waits to be returned.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <csv.h>
#if defined(__SSE2__) && defined(__GNUC__)
#include <emmintrin.h>
#endif
#include <zlib.h>
#include <zstd.h>

#include "csvin.h"
#include "sha256.h"

#define IN_BLOCK  (128 * 1024)
#define OUT_BLOCK (256 * 1024)

struct csvin {
	char *name;
	FILE *f;
	int own_f;
	enum csvin_comp comp;
	int started; /* magic bytes looked at */
	int in_eof;  /* fread hit the end */
	int z_end;   /* the last gzip member / zstd frame ended cleanly */
	z_stream z;
	int z_live;
	ZSTD_DCtx *zd;
	unsigned char *in;
	size_t inlen, inpos;
	unsigned char *out;    /* decompressed text */
	unsigned char *text;   /* the text being parsed: out, or in a plain file in[] */
	size_t outlen, outpos; /* text's length, and the next byte to parse */
	int64_t bytes;         /* original bytes read */
	int64_t textbytes;     /* decompressed bytes seen */
	int bom, bom_checked;
	csvin_raw_fn raw;
	void *rawctx;

	struct csv_parser p;
	unsigned char delim; /* the field delimiter: ',' unless csvin_set_delim */
	int64_t line;        /* line of the next byte to parse */
	int64_t rec_line;    /* line where the current record began */
	char *rec_raw;
	size_t rawlen, rawcap;
	char *fbuf;
	size_t fblen, fbcap;
	size_t *foff, *flen;
	unsigned char *fnull;
	size_t nfield, fcap;
	int ends;      /* records ended during the current line */
	int skip_line; /* after a parse error: ignore the rest of this line */
	const char *bad;
	int ready, eof, finied;
	int fast;  /* the record came through fast_line: fptr is set already */
	int lines; /* line mode (csvin_set_lines): a record is one physical line, not parsed */

	const char **fptr;
	size_t fpcap;
	struct csvin_rec rec;
};

static void on_field(void *s, size_t len, void *data)
{
	struct csvin *c = data;
	if (c->nfield + 1 > c->fcap) {
		xgrow(&c->foff, &c->fcap, c->nfield + 1, sizeof *c->foff);
		c->flen = xrealloc(c->flen, c->fcap * sizeof *c->flen);
		c->fnull = xrealloc(c->fnull, c->fcap);
	}
	xgrow(&c->fbuf, &c->fbcap, c->fblen + len + 1, 1);
	c->foff[c->nfield] = c->fblen;
	c->flen[c->nfield] = s ? len : 0;
	c->fnull[c->nfield] = s == NULL;
	if (s)
		memcpy(c->fbuf + c->fblen, s, len);
	c->fblen += (s ? len : 0);
	c->fbuf[c->fblen++] = '\0';
	c->nfield++;
}

static void on_record(int term, void *data)
{
	struct csvin *c = data;
	(void)term;
	c->ends++;
}

static void parser_init(struct csvin *c)
{
	if (csv_init(&c->p, CSV_STRICT | CSV_STRICT_FINI | CSV_APPEND_NULL | CSV_EMPTY_IS_NULL))
		util_die_oom("csv parser"); /* csv_init fails only when out of memory */
	/* libcsv grows its field buffer by this much: the default 128 makes a long field
	 * quadratic */
	csv_set_blk_size(&c->p, 16384);
	csv_set_delim(&c->p, c->delim);
}

void csvin_set_delim(struct csvin *c, unsigned char delim)
{
	c->delim = delim;
	csv_set_delim(&c->p, delim);
}

int csvin_open(const char *name, FILE *f, struct csvin **out, struct err *e)
{
	*out = NULL;
	FILE *fp = f;
	int own = 0;
	if (!fp) {
		if (!strcmp(name, "-")) {
			fp = stdin;
		} else {
			fp = fopen(name, "rb");
			if (!fp)
				return err_set(e, VF_EIO, "%s: cannot open: %s", name,
					       strerror(errno));
			own = 1;
		}
	}
	struct csvin *c = xcalloc(1, sizeof *c);
	c->name = xstrdup(strcmp(name, "-") ? name : "stdin");
	c->f = fp;
	c->own_f = own;
	c->in = xmalloc(IN_BLOCK);
	c->out = xmalloc(OUT_BLOCK);
	c->text = c->out;
	c->line = 1;
	c->rec_line = 1;
	c->delim = ',';
	parser_init(c);
	*out = c;
	return 0;
}

void csvin_set_raw(struct csvin *c, csvin_raw_fn fn, void *ctx)
{
	c->raw = fn;
	c->rawctx = ctx;
}

void csvin_set_lines(struct csvin *c)
{
	c->lines = 1;
}

enum csvin_comp csvin_compression(const struct csvin *c)
{
	return c->comp;
}

int64_t csvin_bytes(const struct csvin *c)
{
	return c->bytes;
}

int csvin_had_bom(const struct csvin *c)
{
	return c->bom;
}

void csvin_close(struct csvin *c)
{
	if (!c)
		return;
	if (!c->finied)
		csv_fini(&c->p, NULL, NULL, NULL);
	csv_free(&c->p);
	if (c->z_live)
		inflateEnd(&c->z);
	ZSTD_freeDCtx(c->zd);
	if (c->own_f)
		fclose(c->f);
	FREE_ALL(c->name, c->in, c->out, c->rec_raw);
	FREE_ALL(c->fbuf, c->foff, c->flen, c->fnull, c->fptr, c);
}

/* Read more original bytes into in[] (when it is used up); 0, or VF_EIO. */
static int read_in(struct csvin *c, struct err *e)
{
	if (c->inpos < c->inlen || c->in_eof)
		return 0;
	size_t n = fread(c->in, 1, IN_BLOCK, c->f);
	if (n < IN_BLOCK) {
		if (ferror(c->f))
			return err_set(e, VF_EIO, "%s: read error: %s", c->name, strerror(errno));
		c->in_eof = 1;
	}
	c->inpos = 0;
	c->inlen = n;
	c->bytes += (int64_t)n;
	if (n && c->raw) {
		int rc = c->raw(c->rawctx, c->in, n, e);
		if (rc)
			return rc;
	}
	return 0;
}

/* Why a compressed file that ends outside a stream's end is cut short. */
static const char *const truncated[] = {
	[CSVIN_GZIP] = "gzip data (the file ends inside a compressed stream)",
	[CSVIN_ZSTD] = "zstd data (the file ends inside a frame)",
};

/* Refill out[] with decompressed text; at the end of the data leaves outlen == 0.
 * Returns 0, or VF_EINPUT for corrupt or truncated compressed data, or VF_EIO. */
static int fill_out(struct csvin *c, struct err *e)
{
	int rc;
	c->outpos = c->outlen = 0;
	if (!c->started) {
		if ((rc = read_in(c, e)))
			return rc;
		c->started = 1;
		const unsigned char *m = c->in;
		if (c->inlen >= 2 && m[0] == 0x1f && m[1] == 0x8b) {
			c->comp = CSVIN_GZIP;
			if (inflateInit2(&c->z, 15 + 16) != Z_OK)
				util_die_oom("gzip stream"); /* its only failure here */
			c->z_live = 1;
		} else if (c->inlen >= 4 &&
			   ((m[0] == 0x28 && m[1] == 0xb5 && m[2] == 0x2f && m[3] == 0xfd) ||
			    ((m[0] & 0xf0) == 0x50 && m[1] == 0x2a && m[2] == 0x4d &&
			     m[3] == 0x18))) {
			/* a zstd frame, or a skippable frame (magic 0x184D2A50..5F), which
			 * pzstd writes first: the decompressor skips it */
			c->comp = CSVIN_ZSTD;
			c->zd = ZSTD_createDCtx();
			if (!c->zd)
				util_die_oom("zstd context");
		}
	}
	while (c->outlen == 0) {
		if ((rc = read_in(c, e)))
			return rc;
		size_t avail = c->inlen - c->inpos;
		if (!avail) { /* the end of the file: a compressed one must end a stream there */
			if (c->comp != CSVIN_PLAIN && !c->z_end)
				return err_set(e, VF_EINPUT, "%s: truncated %s", c->name,
					       truncated[c->comp]);
			return 0;
		}
		if (c->comp == CSVIN_PLAIN) {
			/* parsed where it was read: in[] is read again only once it is */
			c->text = c->in + c->inpos;
			c->outlen = avail;
			c->inpos = c->inlen;
		} else if (c->comp == CSVIN_GZIP) {
			if (c->z_end) { /* another gzip member follows */
				inflateReset(&c->z);
				c->z_end = 0;
			}
			c->z.next_in = c->in + c->inpos;
			c->z.avail_in = (uInt)avail;
			c->text = c->out;
			c->z.next_out = c->out;
			c->z.avail_out = OUT_BLOCK;
			int zr = inflate(&c->z, Z_NO_FLUSH);
			if (zr != Z_OK && zr != Z_STREAM_END && zr != Z_BUF_ERROR)
				return err_set(e, VF_EINPUT, "%s: corrupt gzip data: %s", c->name,
					       c->z.msg ? c->z.msg : "inflate failed");
			c->inpos = c->inlen - c->z.avail_in;
			c->outlen = OUT_BLOCK - c->z.avail_out;
			if (zr == Z_STREAM_END)
				c->z_end = 1;
		} else {
			ZSTD_inBuffer zi = {c->in, c->inlen, c->inpos};
			c->text = c->out;
			ZSTD_outBuffer zo = {c->out, OUT_BLOCK, 0};
			size_t zr = ZSTD_decompressStream(c->zd, &zo, &zi);
			if (ZSTD_isError(zr))
				return err_set(e, VF_EINPUT, "%s: corrupt zstd data: %s", c->name,
					       ZSTD_getErrorName(zr));
			c->inpos = zi.pos;
			c->outlen = zo.pos;
			c->z_end = zr == 0;
		}
	}
	c->textbytes += (int64_t)c->outlen;
	return 0;
}

static int append_raw(struct csvin *c, const unsigned char *s, size_t n, struct err *e)
{
	if (c->rawlen + n > CSVIN_RECORD_MAX)
		return err_set(e, VF_EINPUT,
			       "%s:%lld: record longer than %zu bytes (a field this long is not "
			       "trace data)",
			       c->name, (long long)c->rec_line, CSVIN_RECORD_MAX);
	xgrow(&c->rec_raw, &c->rawcap, c->rawlen + n + 1, 1);
	memcpy(c->rec_raw + c->rawlen, s, n);
	c->rawlen += n;
	return 0;
}

/* Start a new record at the current line. */
static void reset_record(struct csvin *c)
{
	c->rawlen = 0;
	c->fblen = 0;
	c->nfield = 0;
	c->ends = 0;
	c->bad = NULL;
	c->fast = 0;
	c->rec_line = c->line;
}

/* Fill c->rec from the record just completed: its raw text is rec_raw, or for a fast line
 * the line where it was read (raw, n: its end, already parsed, becomes the NUL). */
static void publish(struct csvin *c, unsigned char *raw, size_t n)
{
	if (!c->fast) {
		while (c->rawlen &&
		       (c->rec_raw[c->rawlen - 1] == '\n' || c->rec_raw[c->rawlen - 1] == '\r'))
			c->rawlen--;
		raw = (unsigned char *)c->rec_raw;
		n = c->rawlen;
		xgrow(&c->fptr, &c->fpcap, c->nfield + 1, sizeof *c->fptr);
		for (size_t i = 0; i < c->nfield; i++)
			c->fptr[i] = c->fnull[i] ? NULL : c->fbuf + c->foff[i];
	}
	c->rec.n = c->bad ? 0 : c->nfield;
	c->rec.field = c->fptr;
	c->rec.len = c->flen;
	c->rec.line = c->rec_line;
	raw[n] = '\0';
	c->rec.raw = (const char *)raw;
	c->rec.rawlen = n;
	c->rec.bad = c->bad;
	c->ready = 1;
}

/* Room for more fields after the nfield there are (fast lines check once per 16 bytes,
 * which hold at most 16 field ends, not once per field). */
static inline void fast_room(struct csvin *c, size_t more)
{
	if (c->nfield + more > c->fcap) {
		xgrow(&c->foff, &c->fcap, c->nfield + more, sizeof *c->foff);
		c->flen = xrealloc(c->flen, c->fcap * sizeof *c->flen);
		c->fnull = xrealloc(c->fnull, c->fcap);
	}
	if (c->nfield + more > c->fpcap)
		xgrow(&c->fptr, &c->fpcap, c->nfield + more, sizeof *c->fptr);
}

/* Add the next field of a fast line: [start, end) of its copy f in fbuf (fast_room made
 * room for it). */
static inline void fast_field(struct csvin *c, char *f, size_t start, size_t end)
{
	f[end] = '\0';
	c->flen[c->nfield] = end - start;
	c->fptr[c->nfield++] = end == start ? NULL : f + start;
}

/* The fast path of feed: a whole line that starts a record and holds no quote, space, tab
 * or carriage return (but a final "\r\n") is split at its commas here, exactly as libcsv
 * would (empty cells NULL), leaving libcsv where it would be after the line: between
 * records. The line is copied once into fbuf, its commas become the fields' NULs and the
 * field pointers are set here (publish need not). Returns 1 if it took the line (the record
 * is published), 0 if libcsv must. */
static int fast_line(struct csvin *c, unsigned char *s, size_t n)
{
	static const unsigned char special[256] = {
		['"'] = 1, [' '] = 1, ['\t'] = 1, ['\r'] = 1, [','] = 2};
	size_t len = n - 1; /* without the '\n' */
	if (len && s[len - 1] == '\r')
		len--;
	if (!len || c->nfield || c->rawlen || c->p.pstate != 0 || c->delim != ',')
		return 0;
	size_t base = c->fblen;
	xgrow(&c->fbuf, &c->fbcap, base + len + 1, 1);
	char *f = c->fbuf + base;
	memcpy(f, s, len);
	size_t start = 0, i = 0;
#if defined(__SSE2__) && defined(__GNUC__)
	/* 16 bytes a step: one mask of the special bytes, one of the commas */
	const __m128i quote = _mm_set1_epi8('"'), space = _mm_set1_epi8(' '),
		      tab = _mm_set1_epi8('\t'), cr = _mm_set1_epi8('\r'),
		      comma = _mm_set1_epi8(',');
	for (; i + 16 <= len; i += 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
		__m128i sp = _mm_or_si128(
			_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, space)),
			_mm_or_si128(_mm_cmpeq_epi8(v, tab), _mm_cmpeq_epi8(v, cr)));
		if (_mm_movemask_epi8(sp)) {
			c->nfield = 0;
			return 0;
		}
		unsigned m = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, comma));
		fast_room(c, 16);
		while (m) {
			size_t q = i + (size_t)__builtin_ctz(m);
			fast_field(c, f, start, q);
			start = q + 1;
			m &= m - 1;
		}
	}
#endif
	for (; i < len; i++) {
		unsigned char k = special[s[i]];
		if (k == 1) {
			c->nfield = 0;
			return 0;
		}
		if (k == 2) {
			fast_room(c, 1);
			fast_field(c, f, start, i);
			start = i + 1;
		}
	}
	fast_room(c, 1);
	fast_field(c, f, start, len);
	c->fblen = base + len + 1;
	c->ends = 1;
	c->fast = 1;
	c->line++;
	publish(c, s, len);
	return 1;
}

/* Line mode: the line in rec_raw (its end stripped) becomes a record of one field, the
 * line itself; a blank line is no record. */
static void publish_line(struct csvin *c)
{
	c->nfield = 0;
	publish(c, NULL, 0);
	if (!c->rec.rawlen) {
		c->ready = 0;
		reset_record(c);
		return;
	}
	c->rec.n = 1;
	c->rec.field = &c->rec.raw;
	c->rec.len = &c->rec.rawlen;
}

/* Parse one piece of a physical line (ending in '\n' or not); may complete a record. A
 * fast line's raw text is not copied: the record points at it where it was read. */
static int feed(struct csvin *c, unsigned char *s, size_t n, struct err *e)
{
	int rc;
	if (c->lines) {
		if (c->rawlen == 0)
			c->rec_line = c->line;
		if ((rc = append_raw(c, s, n, e)))
			return rc;
		if (n && s[n - 1] == '\n') {
			c->line++;
			publish_line(c);
		}
		return 0;
	}
	if (c->rawlen == 0 && c->nfield == 0 && !c->skip_line)
		c->rec_line = c->line;
	int eol = n && s[n - 1] == '\n';
	if (!c->skip_line && eol && fast_line(c, s, n))
		return 0;
	if ((rc = append_raw(c, s, n, e)))
		return rc;
	if (!c->skip_line) {
		size_t done = csv_parse(&c->p, s, n, on_field, on_record, c);
		if (done < n) {
			/* Strict mode refused the quoting: drop the record, resync after the
			 * line (a fresh parser), and report the row as bad. */
			c->bad = "malformed quoting (a quote inside an unquoted field, or text "
				 "after a closing quote)";
			csv_free(&c->p);
			parser_init(c);
			c->skip_line = 1;
		}
	}
	if (!eol)
		return 0;
	c->line++;
	if (c->skip_line) {
		c->skip_line = 0;
		publish(c, NULL, 0);
		return 0;
	}
	if (c->ends > 1)
		c->bad = "carriage return inside an unquoted field";
	if (c->ends) {
		publish(c, NULL, 0);
		return 0;
	}
	if (c->nfield == 0 && c->p.pstate == 0) /* a blank line: no record */
		reset_record(c);
	return 0;
}

int csvin_next(struct csvin *c, struct csvin_rec **rec, struct err *e)
{
	int rc;
	*rec = NULL;
	if (c->ready) {
		c->ready = 0;
		reset_record(c);
	}
	while (!c->ready) {
		if (c->eof)
			return 0;
		if (c->outpos >= c->outlen) {
			if ((rc = fill_out(c, e)))
				return rc;
			if (!c->bom_checked && c->outlen) {
				/* A BOM split across two blocks is not worth handling: the first
				 * block holds at least 3 bytes unless the whole file is tinier. */
				c->bom_checked = 1;
				if (c->outlen >= 3 && !memcmp(c->text, "\xef\xbb\xbf", 3)) {
					c->bom = 1;
					c->outpos = 3;
				}
			}
			/* a NUL anywhere in the block fails the file before any of its
			 * records, so a binary file is refused at once */
			const unsigned char *nul = memchr(c->text, '\0', c->outlen);
			if (nul) {
				int64_t line = c->line;
				for (const unsigned char *q = c->text + c->outpos; q < nul; q++)
					line += *q == '\n';
				return err_set(e, VF_EINPUT,
					       "%s:%lld: NUL byte (not a text CSV file)", c->name,
					       (long long)line);
			}
			if (c->outlen == 0) {
				c->eof = 1;
				c->finied = 1;
				if (c->lines) {
					if (c->rawlen)
						publish_line(c);
					break;
				}
				if (c->skip_line) {
					publish(c, NULL, 0);
					break;
				}
				if (csv_fini(&c->p, on_field, on_record, c) != 0) {
					/* the last record: a bad row, the ones before it stand */
					c->bad = "unterminated quoted field at the end of the file";
					publish(c, NULL, 0);
					break;
				}
				if (c->ends) {
					if (c->ends > 1)
						c->bad = "carriage return inside an unquoted field";
					publish(c, NULL, 0);
				}
				break;
			}
			continue;
		}
		unsigned char *s = c->text + c->outpos;
		size_t avail = c->outlen - c->outpos;
		const unsigned char *nl = memchr(s, '\n', avail);
		size_t n = nl ? (size_t)(nl - s) + 1 : avail;
		c->outpos += n;
		if ((rc = feed(c, s, n, e)))
			return rc;
	}
	if (c->ready)
		*rec = &c->rec;
	return 0;
}

int csvin_hash_stream(FILE *f, const char *name, uint8_t out[32], int64_t *size, struct err *e)
{
	struct sha256 s;
	unsigned char *buf = xmalloc(IN_BLOCK);
	size_t n;
	int64_t total = 0;
	sha256_init(&s);
	while ((n = fread(buf, 1, IN_BLOCK, f)) > 0) {
		sha256_update(&s, buf, n);
		total += (int64_t)n;
	}
	int bad = ferror(f);
	free(buf);
	if (bad)
		return err_set(e, VF_EIO, "%s: read error: %s", name, strerror(errno));
	sha256_final(&s, out);
	*size = total;
	return 0;
}
