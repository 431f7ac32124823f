/*
 * trace.c — the table of trace formats, format detection, the reader every format runs in,
 * and the field helpers the trace-*.c files share.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpumodel.h"
#include "trace.h"

extern const struct trace_format trace_native_jobs, trace_native_nodes, trace_openb_pods,
	trace_openb_nodes, trace_dlrm, trace_pai_task, trace_pai_job, trace_pai_instance,
	trace_pai_machine, trace_ali2017_task, trace_ali2017_server, trace_ali2018_task,
	trace_ali2018_machine, trace_google_task, trace_google_machine, trace_swf,
	trace_slurm_sacct, trace_slurm_nodes, trace_k8s;

/* Header-less formats are tried in this order: a later one only sees what the earlier
 * ones' sniffs refused. */
const struct trace_format *const trace_formats[] = {
	&trace_native_jobs,
	&trace_native_nodes,
	&trace_openb_pods,
	&trace_openb_nodes,
	&trace_dlrm,
	&trace_pai_task,
	&trace_pai_job,
	&trace_pai_instance,
	&trace_pai_machine,
	&trace_ali2017_task,
	&trace_ali2017_server,
	&trace_ali2018_task,
	&trace_ali2018_machine,
	&trace_google_task,
	&trace_google_machine,
	&trace_swf,
	&trace_slurm_sacct,
	&trace_slurm_nodes,
	&trace_k8s,
	&trace_generic,
	NULL,
};

const struct trace_format *trace_format_find(const char *name)
{
	for (const struct trace_format *const *f = trace_formats; *f; f++)
		if (!strcmp((*f)->name, name))
			return *f;
	return NULL;
}

static size_t ncolumns(const struct trace_format *f)
{
	size_t n = 0;
	while (f->columns && f->columns[n])
		n++;
	return n;
}

static int has_field(const struct csvin_rec *r, const char *name)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->field[i] && !strcmp(r->field[i], name))
			return 1;
	return 0;
}

/* How r, as a header, covers fmt's columns: *present of its nrequired required ones are
 * there; returns the number of its columns there, required or optional. */
static size_t header_hits(const struct trace_format *fmt, const struct csvin_rec *r,
			  size_t *present)
{
	size_t hits = 0, n = ncolumns(fmt);
	*present = 0;
	for (size_t k = 0; k < n; k++) {
		int h = has_field(r, fmt->columns[k]);
		hits += (size_t)h;
		if ((int)k < fmt->nrequired)
			*present += (size_t)h;
	}
	return hits;
}

/* The required columns of fmt that header r lacks, quoted and comma-separated, into buf. */
static void missing_columns(const struct trace_format *fmt, const struct csvin_rec *r, char *buf,
			    size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	for (int k = 0; k < fmt->nrequired && used < len; k++) {
		if (has_field(r, fmt->columns[k]))
			continue;
		int w = snprintf(buf + used, len - used, "%s'%s'", used ? ", " : "",
				 fmt->columns[k]);
		used += w < 0 ? 0 : (size_t)w;
	}
}

int trace_header_matches(const struct trace_format *fmt, const struct csvin_rec *r)
{
	size_t present;
	if (r->bad || !fmt->columns)
		return 0;
	size_t hits = header_hits(fmt, r, &present);
	return present == (size_t)fmt->nrequired ? (int)hits : 0;
}

/* Does record r hold what cells (trace_format's) says of each of its columns? */
static int cells_match(const struct csvin_rec *r, const char *cells)
{
	for (size_t k = 0; cells && cells[k] && k < r->n; k++) {
		const char *f = r->field[k];
		int ok = 1;
		switch (cells[k]) {
		case 'n':
			ok = trace_is_number(f, 0);
			break;
		case 'o':
			ok = trace_is_number(f, 1);
			break;
		case 'w':
			ok = f && *f && !trace_is_number(f, 0);
			break;
		case 't':
			ok = !trace_is_number(f, 0);
			break;
		}
		if (!ok)
			return 0;
	}
	return 1;
}

const struct trace_format *trace_detect(const struct csvin_rec *first, int *header)
{
	const struct trace_format *best = NULL;
	int best_hits = 0;
	*header = 0;
	for (const struct trace_format *const *f = trace_formats; *f; f++)
		if ((*f)->lines && (*f)->sniff_line && (*f)->sniff_line(first->raw, first->rawlen))
			return *f;
	if (first->bad)
		return NULL;
	for (const struct trace_format *const *f = trace_formats; *f; f++) {
		if (!(*f)->has_header || !(*f)->columns)
			continue;
		int hits = trace_header_matches(*f, first);
		if (hits > best_hits) {
			best = *f;
			best_hits = hits;
		}
	}
	if (best) {
		*header = 1;
		return best;
	}
	for (const struct trace_format *const *f = trace_formats; *f; f++) {
		if ((*f)->has_header == 1 || !(*f)->columns)
			continue;
		if (first->n == ncolumns(*f) && cells_match(first, (*f)->cells) &&
		    (!(*f)->sniff || (*f)->sniff(first)))
			return *f;
	}
	return NULL;
}

const struct trace_format *trace_closest(const struct csvin_rec *first, char *buf, size_t len)
{
	const struct trace_format *best = NULL;
	size_t best_present = 0, best_hits = 0;
	buf[0] = '\0';
	if (first->bad)
		return NULL;
	for (const struct trace_format *const *f = trace_formats; *f; f++) {
		if (!(*f)->has_header || !(*f)->columns || (*f)->nrequired <= 0)
			continue;
		size_t present, hits = header_hits(*f, first, &present);
		/* the largest share of the required columns (present / nrequired), then the
		 * most columns in all */
		size_t a = present * (size_t)(best ? best->nrequired : 1),
		       b = best_present * (size_t)(*f)->nrequired;
		if (present && (!best || a > b || (a == b && hits > best_hits))) {
			best = *f;
			best_present = present;
			best_hits = hits;
		}
	}
	if (best) {
		char miss[512];
		missing_columns(best, first, miss, sizeof miss);
		snprintf(buf, len, "%s, which lacks %s", best->name, miss);
	}
	return best;
}

int trace_reader_new(const struct trace_format *fmt, struct trace_map *map,
		     const struct trace_sink *sink, struct trace_reader **out, struct err *e)
{
	struct trace_reader *rd = xcalloc(1, sizeof *rd);
	rd->fmt = fmt;
	rd->sink = *sink;
	rd->map = map;
	*out = NULL;
	if (fmt->state_size)
		rd->state = xcalloc(1, fmt->state_size);
	if (fmt->open) {
		int rc = fmt->open(rd, e);
		if (rc) {
			trace_reader_free(rd);
			return rc;
		}
	}
	*out = rd;
	return 0;
}

int trace_reader_start(struct trace_reader *rd, const struct csvin_rec *header, struct err *e)
{
	const struct trace_format *f = rd->fmt;
	if (f->start)
		return f->start(rd, header, e);
	size_t n = ncolumns(f);
	rd->colname = f->columns;
	free(rd->col);
	rd->col = xcalloc(n, sizeof *rd->col);
	rd->ncol = n;
	if (!header) {
		for (size_t k = 0; k < n; k++)
			rd->col[k] = (int)k;
		rd->nfields = n;
		return 0;
	}
	rd->nfields = header->n;
	int lacks = 0;
	for (size_t k = 0; k < n; k++) {
		rd->col[k] = -1;
		for (size_t i = 0; i < header->n; i++)
			if (header->field[i] && !strcmp(header->field[i], f->columns[k])) {
				rd->col[k] = (int)i;
				break;
			}
		lacks |= rd->col[k] < 0 && (int)k < f->nrequired;
	}
	if (lacks) {
		char miss[512];
		missing_columns(f, header, miss, sizeof miss);
		return err_set(e, VF_EINPUT, "header lacks %s of format %s", miss, f->name);
	}
	return 0;
}

/* One data record through the format's own mapping. */
static int map_row(struct trace_reader *rd, const struct csvin_rec *r, struct err *e)
{
	const struct trace_format *f = rd->fmt;
	int rc;
	if (f->job) {
		struct job j;
		job_init(&j);
		return (rc = f->job(rd, r, &j)) ? rc : trace_emit_job(rd, &j, e);
	}
	if (f->node) {
		struct node n;
		node_init(&n);
		return (rc = f->node(rd, r, &n)) ? rc : trace_emit_node(rd, &n, e);
	}
	if (f->node_cols)
		return trace_node_row(rd, r, f->node_cols, e);
	return f->row ? f->row(rd, r, e) : 0; /* none: a table kept raw */
}

int trace_reader_row(struct trace_reader *rd, const struct csvin_rec *r, struct err *e)
{
	rd->rows++;
	rd->why[0] = '\0';
	rd->row_line = 0;
	rd->row_raw = NULL;
	rd->row_rawlen = 0;
	if (!rd->fmt->lines && r->bad)
		return trace_bad(rd, "%s", r->bad);
	if (!rd->fmt->lines && r->n != rd->nfields)
		return trace_bad(rd, "%zu columns, expected %zu", r->n, rd->nfields);
	return map_row(rd, r, e);
}

int trace_reader_finish(struct trace_reader *rd, struct err *e)
{
	return rd->fmt->finish ? rd->fmt->finish(rd, e) : 0;
}

void trace_reader_free(struct trace_reader *rd)
{
	if (!rd)
		return;
	if (rd->fmt->close)
		rd->fmt->close(rd);
	if (rd->fmt->state_size)
		free(rd->state);
	trace_map_free(rd->map);
	FREE_ALL(rd->col, rd);
}

/* trace_field, and the field's length into *len. */
static inline const char *field_len(const struct trace_reader *rd, const struct csvin_rec *r, int k,
				    size_t *len)
{
	if (k < 0 || (size_t)k >= rd->ncol || rd->col[k] < 0 || (size_t)rd->col[k] >= r->n)
		return NULL;
	size_t c = (size_t)rd->col[k];
	const char *s = r->field[c];
	*len = r->len[c];
	return s && *s ? s : NULL;
}

const char *trace_field(const struct trace_reader *rd, const struct csvin_rec *r, int k)
{
	size_t len;
	return field_len(rd, r, k, &len);
}

static const char *col_name(const struct trace_reader *rd, int k)
{
	return rd->colname ? rd->colname[k] : "?";
}

int trace_name(struct trace_reader *rd, const struct csvin_rec *r, int k, char *dst, size_t size,
	       int required)
{
	const char *s = trace_field(rd, r, k);
	if (!s)
		return required ? trace_bad(rd, "column '%s' is empty", col_name(rd, k)) : 1;
	size_t len = strlen(s);
	if (len >= size)
		return trace_bad(rd, "column '%s': name longer than %zu bytes", col_name(rd, k),
				 size - 1);
	memcpy(dst, s, len + 1);
	return 0;
}

/* A plain decimal "-?D+(.D+)?" of at most 15 digits in all: 0 and *v, or -1 for anything
 * else (then parse_double decides). Its digits as an integer and 10^(fraction digits) are
 * both exact in a double, so one division gives the correctly rounded value, the same as
 * strtod's, several times faster (Clinger's fast path). */
static int small_decimal(const char *s, double *v)
{
	static const double pow10[] = {1e0, 1e1, 1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
				       1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
	int neg = *s == '-';
	const char *p = s + neg;
	int64_t x = 0;
	int n = 0, frac = 0;
	for (; *p >= '0' && *p <= '9' && n < 16; p++, n++)
		x = x * 10 + (*p - '0');
	if (!n)
		return -1;
	if (*p == '.') {
		const char *q = ++p;
		for (; *p >= '0' && *p <= '9' && n < 16; p++, n++)
			x = x * 10 + (*p - '0');
		frac = (int)(p - q);
		if (!frac)
			return -1;
	}
	if (*p || n > 15)
		return -1;
	double d = (double)x / pow10[frac];
	*v = neg ? -d : d;
	return 0;
}

int trace_num(struct trace_reader *rd, const struct csvin_rec *r, int k, double *v)
{
	const char *s = trace_field(rd, r, k);
	if (!s)
		return 1;
	double d;
	if (small_decimal(s, &d) && parse_double(s, &d)) {
		/* a very long cell makes a short reason */
		return trace_bad(rd, "column '%s': '%.40s' is not a number", col_name(rd, k), s);
	}
	*v = d;
	return 0;
}

/* A plain decimal integer of at most 15 digits (so exact in a double too): 0 and *v, or
 * -1 for anything else (then parse_double decides). The common case of trace numbers,
 * about five times faster than strtod. */
static int small_int(const char *s, int64_t *v)
{
	int neg = *s == '-';
	const char *p = s + neg;
	int64_t x = 0;
	int n = 0;
	for (; *p >= '0' && *p <= '9' && n < 16; p++, n++)
		x = x * 10 + (*p - '0');
	if (*p || !n || n > 15)
		return -1;
	*v = neg ? -x : x;
	return 0;
}

/* The fast path of trace_amount for a plain unsigned "D+" or "D+.D+" with at most 15
 * integer digits: 0 and *out when it gives the amount (exactly what strtod, the scale and
 * trace_round give), -1 for anything else. One pass over the digits:
 *   - at most 15 digits in all: the value is exact (an integer, or Clinger's fast path as
 *     in small_decimal), scaled and rounded as the slow path does;
 *   - a longer fraction at scale 1 ("475.00000000000006"): below 1e15 a double's spacing is
 *     at most 1/8, and strtod rounds monotonically onto doubles, which hold every integer
 *     there, so a value in [I, I + 0.4) rounds to I and one in [I + 0.6, I + 1) to I + 1
 *     (by its first fraction digit); a digit 4 or 5 is left to strtod. */
static int fast_amount(const char *s, size_t len, double scale, int64_t *out)
{
	static const double pow10[] = {1e0, 1e1, 1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
				       1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
	const char *p = s;
	int64_t x = 0;
	int n = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (len >= 8) { /* 8 digits first in one word, as the loop below would read them */
		uint64_t w;
		memcpy(&w, s, 8);
		if (((w & UINT64_C(0xF0F0F0F0F0F0F0F0)) |
		     (((w + UINT64_C(0x0606060606060606)) & UINT64_C(0xF0F0F0F0F0F0F0F0)) >> 4)) ==
		    UINT64_C(0x3333333333333333)) {
			w = (w & UINT64_C(0x0F0F0F0F0F0F0F0F)) * 2561 >> 8;
			w = (w & UINT64_C(0x00FF00FF00FF00FF)) * 6553601 >> 16;
			x = (int64_t)((w & UINT64_C(0x0000FFFF0000FFFF)) *
					      UINT64_C(42949672960001) >>
				      32);
			p += 8;
			n = 8;
		}
	}
#else
	(void)len;
#endif
	for (; (unsigned)(*p - '0') <= 9 && n < 16; p++, n++)
		x = x * 10 + (*p - '0');
	if (!n || n > 15)
		return -1;
	double v;
	if (!*p) {
		if (scale == 1) {
			*out = x;
			return 0;
		}
		v = (double)x;
	} else if (*p == '.') {
		int64_t ip = x;
		const char *q = ++p;
		for (; (unsigned)(*p - '0') <= 9 && n < 16; p++, n++)
			x = x * 10 + (*p - '0');
		int frac = (int)(p - q);
		if (!frac)
			return -1;
		if (!*p && n <= 15) {
			v = (double)x / pow10[frac];
		} else {
			if (scale != 1 || *q == '4' || *q == '5')
				return -1;
			while ((unsigned)(*p - '0') <= 9)
				p++;
			if (*p)
				return -1;
			*out = *q < '4' ? ip : ip + 1;
			return 0;
		}
	} else {
		return -1;
	}
	if (v * scale > 9e15)
		return -1;
	*out = trace_round(v * scale);
	return 0;
}

int trace_amount(struct trace_reader *rd, const struct csvin_rec *r, int k, double scale,
		 int64_t *out)
{
	size_t len;
	const char *s = field_len(rd, r, k, &len);
	int64_t iv;
	double v;
	if (!s) {
		*out = -1;
		return 0;
	}
	if (!fast_amount(s, len, scale, out))
		return 0;
	if (!small_int(s, &iv)) {
		if (iv < 0)
			return trace_bad(rd, "column '%s': negative value %s", col_name(rd, k), s);
		if (scale == 1) {
			*out = iv;
			return 0;
		}
		v = (double)iv; /* exact: at most 15 digits */
	} else if (small_decimal(s, &v) && parse_double(s, &v)) {
		return trace_bad(rd, "column '%s': '%.40s' is not a number", col_name(rd, k), s);
	}
	if (v < 0)
		return trace_bad(rd, "column '%s': negative value %s", col_name(rd, k),
				 trace_field(rd, r, k));
	if (v * scale > 9e15)
		return trace_bad(rd, "column '%s': %s is out of range", col_name(rd, k),
				 trace_field(rd, r, k));
	*out = trace_round(v * scale);
	return 0;
}

int trace_amounts(struct trace_reader *rd, const struct csvin_rec *r,
		  const struct trace_amount_of *a, size_t n)
{
	int rc;
	for (size_t i = 0; i < n; i++)
		if ((rc = trace_amount(rd, r, a[i].k, a[i].scale, a[i].out)))
			return rc;
	return 0;
}

/* n digits of s as a number into *v: the digits read, 0 if fewer than n. */
static int digits(const char *s, int n, int *v)
{
	int x = 0;
	for (int i = 0; i < n; i++) {
		if ((unsigned)(s[i] - '0') > 9)
			return 0;
		x = x * 10 + (s[i] - '0');
	}
	*v = x;
	return n;
}

/* "+08:00", "-0530", "+8", "Z", "UTC" at s (the whole rest of it) into seconds east. */
static int zone_parse(const char *s, int64_t *off)
{
	int h = 0, m = 0;
	if (!strcmp(s, "Z") || !strcmp(s, "UTC") || !strcmp(s, "GMT")) {
		*off = 0;
		return 0;
	}
	if (*s != '+' && *s != '-')
		return -1;
	const char *p = s + 1;
	if (digits(p, 2, &h))
		p += 2;
	else if (digits(p, 1, &h))
		p += 1;
	else
		return -1;
	if (*p == ':')
		p++;
	if (*p && !digits(p, 2, &m))
		return -1;
	if (*p && p[2])
		return -1;
	if (h > 14 || m > 59)
		return -1;
	*off = (*s == '-' ? -1 : 1) * (int64_t)(h * 3600 + m * 60);
	return 0;
}

int trace_tz_parse(const char *s, int64_t *offset)
{
	return zone_parse(s, offset);
}

int trace_time_parse(const char *s, int64_t tz_offset, int64_t *out)
{
	int y, mo, d, h = 0, mi = 0, sec = 0;
	if (!digits(s, 4, &y) || s[4] != '-' || !digits(s + 5, 2, &mo) || s[7] != '-' ||
	    !digits(s + 8, 2, &d))
		return -1;
	const char *p = s + 10;
	double frac = 0;
	if (*p == 'T' || (*p == ' ' && (unsigned)(p[1] - '0') <= 9)) {
		if (!digits(p + 1, 2, &h) || p[3] != ':' || !digits(p + 4, 2, &mi))
			return -1;
		p += 6;
		if (*p == ':') {
			if (!digits(p + 1, 2, &sec))
				return -1;
			p += 3;
			if (*p == '.' || *p == ',') {
				double scale = 0.1;
				for (p++; (unsigned)(*p - '0') <= 9; p++, scale /= 10)
					frac += (*p - '0') * scale;
			}
		}
	}
	static const int mdays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	if (mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] || h > 23 || mi > 59 || sec > 60)
		return -1;
	int64_t off = tz_offset;
	if (*p == ' ')
		p++;
	if (*p && zone_parse(p, &off))
		return -1;
	/* Days from 1970-01-01 to y-mo-d in the proleptic Gregorian calendar (Howard
	 * Hinnant's days_from_civil). */
	int64_t yy = y - (mo <= 2);
	int64_t era = (yy >= 0 ? yy : yy - 399) / 400;
	int64_t yoe = yy - era * 400;
	int64_t doy = (153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	int64_t days = era * 146097 + doe - 719468;
	*out = days * 86400 + h * 3600 + mi * 60 + sec + (frac >= 0.5) - off;
	return 0;
}

int trace_is_number(const char *s, int empty_ok)
{
	double d;
	if (!s || !*s)
		return empty_ok;
	return parse_double(s, &d) == 0;
}

struct trace_nameset {
	char **slot; /* open addressing, linear probing; NULL = empty; "name\0value\0" */
	size_t cap, n;
};

static uint64_t name_hash(const char *s)
{
	uint64_t h = 1469598103934665603u; /* FNV-1a */
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211u;
	return h;
}

int trace_nameset_put(struct trace_nameset **setp, const char *name, const char *value,
		      const char **first)
{
	struct trace_nameset *s = *setp;
	if (!s)
		s = *setp = xcalloc(1, sizeof *s);
	if (2 * (s->n + 1) > s->cap) { /* keep the load under one half */
		size_t cap = s->cap ? 2 * s->cap : 64;
		char **slot = xcalloc(cap, sizeof *slot);
		for (size_t i = 0; i < s->cap; i++) {
			if (!s->slot[i])
				continue;
			size_t j = name_hash(s->slot[i]) & (cap - 1);
			while (slot[j])
				j = (j + 1) & (cap - 1);
			slot[j] = s->slot[i];
		}
		free(s->slot);
		s->slot = slot;
		s->cap = cap;
	}
	size_t j = name_hash(name) & (s->cap - 1);
	size_t nl = strlen(name);
	for (; s->slot[j]; j = (j + 1) & (s->cap - 1))
		if (!strcmp(s->slot[j], name)) {
			if (first)
				*first = s->slot[j] + nl + 1;
			return 0;
		}
	if (!value)
		value = "";
	size_t vl = strlen(value);
	char *e = xmalloc(nl + vl + 2);
	memcpy(e, name, nl + 1);
	memcpy(e + nl + 1, value, vl + 1);
	s->slot[j] = e;
	s->n++;
	return 1;
}

int trace_nameset_add(struct trace_nameset **set, const char *name)
{
	return trace_nameset_put(set, name, NULL, NULL);
}

void trace_nameset_free(struct trace_nameset *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->cap; i++)
		free(s->slot[i]);
	FREE_ALL(s->slot, s);
}

int trace_bad(struct trace_reader *rd, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(rd->why, sizeof rd->why, fmt, ap);
	va_end(ap);
	return TRACE_BAD;
}

int64_t trace_round(double v)
{
	/* Most amounts are whole already: llround only for the rest (and out-of-range). */
	if (v > -9e15 && v < 9e15) {
		int64_t t = (int64_t)v;
		if ((double)t == v)
			return t;
	}
	return (int64_t)llround(v);
}

int trace_emit_job(struct trace_reader *rd, const struct job *j, struct err *e)
{
	return rd->sink.job ? rd->sink.job(rd->sink.ctx, j, e) : 0;
}

int trace_emit_node(struct trace_reader *rd, const struct node *n, struct err *e)
{
	return rd->sink.node ? rd->sink.node(rd->sink.ctx, n, e) : 0;
}

void trace_node_gpus(struct node *n, const char *model, int64_t ngpu, int64_t hbm_per_gpu)
{
	n->ngpu = (int32_t)ngpu;
	n->cap[DIM_GPU] = ngpu * 1000;
	if (ngpu == 0) {
		n->model = -1;
		n->cap[DIM_HBM] = 0;
		return;
	}
	/* GPUs with no model named are GPUs all the same: the labelled default prices them,
	 * never $0 (a node mapping without a model column, PAI's "CPU" with GPUs). */
	int id = model && *model ? gpumodel_find(model) : -1;
	if (id < 0)
		id = gpumodel_unknown();
	n->model = (int16_t)id;
	n->cap[DIM_HBM] = ngpu * (hbm_per_gpu > 0 ? hbm_per_gpu : gpumodel_get(id)->hbm_mib);
}

/* The note of name in rd->unknown, made if new (the last slot takes the overflow). */
static struct trace_model_note *model_note(struct trace_reader *rd, const char *name, size_t len)
{
	for (size_t i = 0; i < rd->nunknown; i++)
		if (strlen(rd->unknown[i].name) == len && !strncmp(rd->unknown[i].name, name, len))
			return &rd->unknown[i];
	if (rd->nunknown == TRACE_MODELS_MAX)
		return &rd->unknown[TRACE_MODELS_MAX - 1];
	struct trace_model_note *m = &rd->unknown[rd->nunknown++];
	memset(m, 0, sizeof *m);
	snprintf(m->name, sizeof m->name, "%.*s", (int)(len < 47 ? len : 47), name);
	if (rd->nunknown == TRACE_MODELS_MAX)
		m->name[0] = '\0';
	return m;
}

void trace_node_model(struct trace_reader *rd, struct node *n, const char *model, int64_t ngpu,
		      int64_t hbm_per_gpu)
{
	trace_node_gpus(n, model, ngpu, hbm_per_gpu);
	if (ngpu > 0 && (!model || !*model || gpumodel_find(model) < 0)) {
		const char *name = model && *model ? model : "-";
		struct trace_model_note *m = model_note(rd, name, strlen(name));
		m->nodes++;
		m->gpus += ngpu;
	}
}

int trace_job_spec(struct trace_reader *rd, struct job *j, const char *spec)
{
	uint32_t mask = 0;
	const char *p = spec ? spec : "";
	while (*p) {
		const char *bar = strchr(p, '|');
		size_t len = bar ? (size_t)(bar - p) : strlen(p);
		char name[64];
		if (len == 0 || len >= sizeof name)
			return trace_bad(rd, "gpu spec '%.60s': '%.*s' is not a GPU model name",
					 spec, (int)(len < 60 ? len : 60), p);
		memcpy(name, p, len);
		name[len] = '\0';
		int id = gpumodel_find(name);
		if (id < 0) {
			id = gpumodel_unknown();
			model_note(rd, name, len)->jobs++;
		}
		mask |= 1u << id;
		p += len;
		if (bar && !*++p)
			return trace_bad(rd, "gpu spec '%.60s': ends with '|'", spec);
	}
	j->gpu_spec = mask;
	return 0;
}

int trace_job_gpus(struct trace_reader *rd, struct job *j, int64_t num_gpu, int64_t gpu_milli)
{
	if (num_gpu < 0)
		return trace_bad(rd, "negative GPU count %lld", (long long)num_gpu);
	if (num_gpu == 0) {
		j->num_gpu = 0;
		j->gpu_milli = 0;
		j->dem[DIM_GPU] = 0;
		return 0;
	}
	if (num_gpu > 32) /* CLUSTER_MAX_GPUS */
		return trace_bad(rd, "%lld GPUs in one job (more than a node holds)",
				 (long long)num_gpu);
	if (gpu_milli <= 0 || gpu_milli > 1000)
		return trace_bad(rd, "GPU share %lld outside 1..1000", (long long)gpu_milli);
	if (num_gpu > 1 && gpu_milli != 1000)
		return trace_bad(rd, "%lld GPUs at share %lld: a multi-GPU job takes whole GPUs",
				 (long long)num_gpu, (long long)gpu_milli);
	j->num_gpu = (int32_t)num_gpu;
	j->gpu_milli = (int32_t)gpu_milli;
	j->dem[DIM_GPU] = num_gpu * gpu_milli;
	return 0;
}

int trace_job_workers_set(struct trace_reader *rd, const char *name, double w, struct job *j)
{
	if (!(w >= 1) || w != floor(w))
		return trace_bad(rd, "column '%s': %g workers (a job has 1 or more)", name, w);
	if (w > JOB_WORKERS_MAX)
		return trace_bad(rd, "column '%s': %.0f workers, more than %d", name, w,
				 JOB_WORKERS_MAX);
	j->workers = (int32_t)w;
	return 0;
}

int trace_job_span(struct trace_reader *rd, struct job *j, int64_t start, int64_t end,
		   const char *start_name, const char *end_name)
{
	if (end < start)
		return trace_bad(rd, "%s %lld before %s %lld", end_name, (long long)end, start_name,
				 (long long)start);
	j->duration = end - start;
	return 0;
}

int trace_node_row(struct trace_reader *rd, const struct csvin_rec *r,
		   const struct trace_node_cols *c, struct err *e)
{
	struct node n;
	int64_t cpu, mem, ngpu;
	int rc;
	node_init(&n);
	if (trace_name(rd, r, c->name, n.name, sizeof n.name, 1))
		return TRACE_BAD;
	const struct trace_amount_of a[] = {
		{c->cpu, c->cpu_scale, &cpu}, {c->mem, c->mem_scale, &mem}, {c->gpu, 1, &ngpu}};
	if ((rc = trace_amounts(rd, r, a, sizeof a / sizeof *a)))
		return rc;
	if (ngpu > 32) /* CLUSTER_MAX_GPUS */
		return trace_bad(rd, "%lld GPUs on one node", (long long)ngpu);
	n.cap[DIM_CPU] = cpu;
	n.cap[DIM_MEM] = mem;
	trace_node_model(rd, &n, trace_field(rd, r, c->model), ngpu < 0 ? 0 : ngpu, -1);
	return trace_emit_node(rd, &n, e);
}

int trace_cpu_node(struct trace_reader *rd, const char *name, const char *what, int add,
		   int64_t cpu, int64_t mem, struct err *e)
{
	struct node n;
	node_init(&n);
	if (strlen(name) >= sizeof n.name)
		return trace_bad(rd, "%s longer than %zu bytes", what, sizeof n.name - 1);
	if (!add || !trace_nameset_add((struct trace_nameset **)&rd->state, name))
		return 0;
	strcpy(n.name, name);
	n.cap[DIM_CPU] = cpu;
	n.cap[DIM_MEM] = mem;
	n.cap[DIM_GPU] = 0;
	n.cap[DIM_HBM] = 0;
	return trace_emit_node(rd, &n, e);
}

int trace_job_workers(struct trace_reader *rd, const struct csvin_rec *r, int k, struct job *j)
{
	double w;
	int rc = trace_num(rd, r, k, &w);
	if (rc == 1) {
		j->workers = 1;
		return 0;
	}
	if (rc)
		return rc;
	return trace_job_workers_set(rd, col_name(rd, k), w, j);
}
