/* test-csvin.c — the CSV byte source: compression, BOM, line numbers, raw text, bad input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <zlib.h>
#include <zstd.h>

#include "csvin.h"

struct sink {
	char *buf;
	size_t len, cap;
};

static int sink_write(void *ctx, const void *p, size_t n, struct err *e)
{
	(void)e;
	struct sink *s = ctx;
	xgrow(&s->buf, &s->cap, s->len + n, 1);
	memcpy(s->buf + s->len, p, n);
	s->len += n;
	return 0;
}

static void write_file(const char *path, const void *data, size_t n)
{
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, n, f), n);
	fclose(f);
}

/* Read every record of path; returns csvin_next's final code; *nrec counts records. */
static int read_all(const char *path, struct sink *raw, int *nrec, struct err *e)
{
	struct csvin *c;
	int rc = csvin_open(path, NULL, &c, e);
	if (rc)
		return rc;
	if (raw)
		csvin_set_raw(c, sink_write, raw);
	struct csvin_rec *r;
	*nrec = 0;
	while (!(rc = csvin_next(c, &r, e)) && r)
		(*nrec)++;
	csvin_close(c);
	return rc;
}

static const char sample[] = "a,b,c\r\n"
			     "1,,\"\"\r\n"
			     "\r\n"
			     "\"multi\nline\",x,y\r\n"
			     "4,\"q\"\"uote\",z";

static void check_sample(const char *path)
{
	struct err e = {0};
	struct csvin *c;
	struct csvin_rec *r;
	struct sink raw = {0};
	assert_int_equal(csvin_open(path, NULL, &c, &e), 0);
	csvin_set_raw(c, sink_write, &raw);

	assert_int_equal(csvin_next(c, &r, &e), 0);
	assert_non_null(r);
	assert_int_equal(r->n, 3);
	assert_string_equal(r->field[0], "a");
	assert_int_equal(r->line, 1);
	assert_string_equal(r->raw, "a,b,c");

	assert_int_equal(csvin_next(c, &r, &e), 0);
	assert_non_null(r);
	assert_int_equal(r->line, 2);
	assert_int_equal(r->n, 3);
	assert_string_equal(r->field[0], "1");
	assert_null(r->field[1]);     /* empty unquoted: not recorded */
	assert_non_null(r->field[2]); /* "" quoted: an empty string */
	assert_int_equal(r->len[2], 0);

	assert_int_equal(csvin_next(c, &r, &e), 0);
	assert_non_null(r); /* the blank line 3 is no record */
	assert_int_equal(r->line, 4);
	assert_string_equal(r->field[0], "multi\nline");
	assert_string_equal(r->raw, "\"multi\nline\",x,y");

	assert_int_equal(csvin_next(c, &r, &e), 0);
	assert_non_null(r); /* last line, no line end */
	assert_int_equal(r->line, 6);
	assert_string_equal(r->field[1], "q\"uote");
	assert_null(r->bad);

	assert_int_equal(csvin_next(c, &r, &e), 0);
	assert_null(r);
	assert_int_equal(csvin_next(c, &r, &e), 0);
	assert_null(r);
	csvin_close(c);
	/* the raw sink got every original byte */
	FILE *f = fopen(path, "rb");
	char orig[4096];
	size_t n = fread(orig, 1, sizeof orig, f);
	fclose(f);
	assert_int_equal(raw.len, n);
	assert_memory_equal(raw.buf, orig, n);
	free(raw.buf);
}

static void test_plain_records(void **state)
{
	(void)state;
	write_file("plain.csv", sample, sizeof sample - 1);
	check_sample("plain.csv");
}

static void test_gzip_and_truncated_gzip(void **state)
{
	(void)state;
	gzFile g = gzopen("s.csv.gz", "wb");
	assert_non_null(g);
	gzwrite(g, sample, sizeof sample - 1);
	gzclose(g);
	check_sample("s.csv.gz");

	/* the same bytes without their last 10: truncated */
	FILE *f = fopen("s.csv.gz", "rb");
	char buf[4096];
	size_t n = fread(buf, 1, sizeof buf, f);
	fclose(f);
	write_file("t.csv.gz", buf, n - 10);
	struct err e = {0};
	int nrec;
	assert_int_equal(read_all("t.csv.gz", NULL, &nrec, &e), VF_EINPUT);
	assert_non_null(strstr(e.msg, "t.csv.gz: truncated gzip"));
}

static void test_zstd_and_truncated_zstd(void **state)
{
	(void)state;
	char z[4096];
	size_t n = ZSTD_compress(z, sizeof z, sample, sizeof sample - 1, 3);
	assert_false(ZSTD_isError(n));
	write_file("s.zst", z, n); /* no .zst suffix needed: magic bytes decide */
	check_sample("s.zst");
	write_file("t.zst", z, n - 4);
	struct err e = {0};
	int nrec;
	assert_int_equal(read_all("t.zst", NULL, &nrec, &e), VF_EINPUT);
	assert_non_null(strstr(e.msg, "truncated zstd"));
}

static void test_bom_is_stripped(void **state)
{
	(void)state;
	const char text[] = "\xef\xbb\xbfname,x\n1,2\n";
	write_file("bom.csv", text, sizeof text - 1);
	struct err e = {0};
	struct csvin *c;
	struct csvin_rec *r;
	assert_int_equal(csvin_open("bom.csv", NULL, &c, &e), 0);
	assert_int_equal(csvin_next(c, &r, &e), 0);
	assert_non_null(r);
	assert_string_equal(r->field[0], "name");
	assert_true(csvin_had_bom(c));
	csvin_close(c);
}

static void test_nul_byte_fails_with_line(void **state)
{
	(void)state;
	const char text[] = "a,b\n1,2\n3,\0\n";
	write_file("nul.csv", text, sizeof text - 1);
	struct err e = {0};
	int nrec;
	assert_int_equal(read_all("nul.csv", NULL, &nrec, &e), VF_EINPUT);
	assert_string_equal(e.msg, "nul.csv:3: NUL byte (not a text CSV file)");
}

/* A file cut inside a quoted field: the records before stand, the one it began (to the end
 * of the file, several lines here) comes back bad with its line and raw text. */
static void test_unterminated_quote_at_end(void **state)
{
	(void)state;
	const char text[] = "a,b\n1,2\n3,\"open\nmore,4\n";
	write_file("open.csv", text, sizeof text - 1);
	struct err e = {0};
	struct csvin *c;
	struct csvin_rec *r;
	assert_int_equal(csvin_open("open.csv", NULL, &c, &e), 0);
	assert_int_equal(csvin_next(c, &r, &e), 0);
	assert_non_null(r);
	assert_int_equal(csvin_next(c, &r, &e), 0);
	assert_non_null(r);
	assert_null(r->bad);
	assert_string_equal(r->field[1], "2");
	assert_int_equal(csvin_next(c, &r, &e), 0);
	assert_non_null(r);
	assert_string_equal(r->bad, "unterminated quoted field at the end of the file");
	assert_int_equal(r->line, 3);
	assert_int_equal(r->n, 0);
	assert_string_equal(r->raw, "3,\"open\nmore,4");
	assert_int_equal(csvin_next(c, &r, &e), 0);
	assert_null(r);
	assert_int_equal(csvin_next(c, &r, &e), 0);
	assert_null(r);
	csvin_close(c);
	/* without a final line end, and as the only record */
	int nrec;
	write_file("open2.csv", "a,b\n\"x", 6);
	assert_int_equal(read_all("open2.csv", NULL, &nrec, &e), 0);
	assert_int_equal(nrec, 2);
	write_file("open3.csv", "\"", 1);
	assert_int_equal(read_all("open3.csv", NULL, &nrec, &e), 0);
	assert_int_equal(nrec, 1);
}

/* pzstd begins its files with a skippable frame (magic 0x184D2A50..5F); one of each magic,
 * with or without content, is skipped, and a skippable frame alone is an empty file. */
static void test_zstd_skippable_frames(void **state)
{
	(void)state;
	unsigned char z[4096];
	for (unsigned magic = 0; magic < 16; magic++) {
		size_t k = magic % 3 ? 4 : 0; /* content of the skippable frame */
		unsigned char head[] = {(unsigned char)(0x50 | magic),
					0x2a,
					0x4d,
					0x18,
					(unsigned char)k,
					0,
					0,
					0,
					1,
					2,
					3,
					4};
		size_t h = 8 + k;
		memcpy(z, head, h);
		size_t n = ZSTD_compress(z + h, sizeof z - h, sample, sizeof sample - 1, 3);
		assert_false(ZSTD_isError(n));
		write_file("skip.zst", z, h + n);
		check_sample("skip.zst");
	}
	struct err e = {0};
	int nrec;
	write_file("only-skip.zst", "\x50\x2a\x4d\x18\x00\x00\x00\x00", 8);
	assert_int_equal(read_all("only-skip.zst", NULL, &nrec, &e), 0);
	assert_int_equal(nrec, 0);
	/* a skippable frame that promises more than the file holds: truncated */
	write_file("short-skip.zst",
		   "\x5f\x2a\x4d\x18\x10\x00\x00\x00"
		   "ab",
		   10);
	assert_int_equal(read_all("short-skip.zst", NULL, &nrec, &e), VF_EINPUT);
	assert_non_null(strstr(e.msg, "short-skip.zst: truncated zstd"));
}

static void test_huge_field_fails(void **state)
{
	(void)state;
	size_t n = 10u << 20; /* a 10 MB field */
	char *big = malloc(n + 8);
	memcpy(big, "a,b\n1,", 6);
	memset(big + 6, 'x', n);
	big[n + 6] = '\n';
	write_file("big.csv", big, n + 7);
	free(big);
	struct err e = {0};
	int nrec;
	assert_int_equal(read_all("big.csv", NULL, &nrec, &e), VF_EINPUT);
	assert_non_null(strstr(e.msg, "big.csv:2: record longer than 1048576 bytes"));
}

static void test_bad_quoting_is_a_bad_row(void **state)
{
	(void)state;
	const char text[] = "a,b\n1,x\"y\n2,3\n";
	write_file("q.csv", text, sizeof text - 1);
	struct err e = {0};
	struct csvin *c;
	struct csvin_rec *r;
	assert_int_equal(csvin_open("q.csv", NULL, &c, &e), 0);
	assert_int_equal(csvin_next(c, &r, &e), 0);
	assert_non_null(r);
	assert_int_equal(csvin_next(c, &r, &e), 0);
	assert_non_null(r);
	assert_non_null(r->bad);
	assert_int_equal(r->line, 2);
	assert_string_equal(r->raw, "1,x\"y");
	assert_int_equal(csvin_next(c, &r, &e), 0);
	assert_non_null(r); /* reading resumes on the next line */
	assert_null(r->bad);
	assert_int_equal(r->line, 3);
	assert_string_equal(r->field[1], "3");
	assert_int_equal(csvin_next(c, &r, &e), 0);
	assert_null(r);
	csvin_close(c);
}

static void test_missing_file(void **state)
{
	(void)state;
	struct err e = {0};
	struct csvin *c;
	assert_int_equal(csvin_open("no-such.csv", NULL, &c, &e), VF_EIO);
	assert_non_null(strstr(e.msg, "no-such.csv: cannot open"));
	csvin_close(NULL);
}

/* Plain lines (split without libcsv) and lines libcsv parses give the fields libcsv's rules
 * give: empty cells NULL, spaces around unquoted cells trimmed, quoted cells kept, "\r\n"
 * not part of the record; line numbers and raw text stay right across both kinds. */
static void test_plain_and_libcsv_lines_agree(void **state)
{
	(void)state;
	static const char text[] = "a,b,,c\n"         /* 1 */
				   ",\n"              /* 2 */
				   "x,y\r\n"          /* 3 */
				   "\n"               /* 4: blank, no record */
				   " a , b \n"        /* 5 */
				   "a,b,\n"           /* 6 */
				   "\"q,1\",\"\",z\n" /* 7 */
				   "1,22,333\n"       /* 8 */
				   "p,q";             /* 9: no final newline */
	static const struct {
		int64_t line;
		size_t n;
		const char *f[4]; /* "-" stands for NULL */
		const char *raw;
	} want[] = {
		{1, 4, {"a", "b", "-", "c"}, "a,b,,c"},
		{2, 2, {"-", "-"}, ","},
		{3, 2, {"x", "y"}, "x,y"},
		{5, 2, {"a", "b"}, " a , b "},
		{6, 3, {"a", "b", "-"}, "a,b,"},
		{7, 3, {"q,1", "", "z"}, "\"q,1\",\"\",z"},
		{8, 3, {"1", "22", "333"}, "1,22,333"},
		{9, 2, {"p", "q"}, "p,q"},
	};
	write_file("mix.csv", text, sizeof text - 1);
	struct csvin *c;
	struct csvin_rec *r;
	struct err e = {0};
	assert_int_equal(csvin_open("mix.csv", NULL, &c, &e), 0);
	for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
		assert_int_equal(csvin_next(c, &r, &e), 0);
		assert_non_null(r);
		assert_null(r->bad);
		assert_int_equal(r->line, want[i].line);
		assert_int_equal(r->n, want[i].n);
		assert_int_equal(r->rawlen, strlen(want[i].raw));
		assert_memory_equal(r->raw, want[i].raw, r->rawlen);
		for (size_t k = 0; k < r->n; k++) {
			if (!strcmp(want[i].f[k], "-")) {
				assert_null(r->field[k]);
				assert_int_equal(r->len[k], 0);
			} else {
				assert_non_null(r->field[k]);
				assert_string_equal(r->field[k], want[i].f[k]);
				assert_int_equal(r->len[k], strlen(want[i].f[k]));
			}
		}
	}
	assert_int_equal(csvin_next(c, &r, &e), 0);
	assert_null(r);
	csvin_close(c);
}

/* Long random lines (the fast path looks at 16 bytes a step): fields split as a plain
 * splitter does, whether a line goes the fast way or (a space, a tab, a quoted field, a
 * "\r\n" anywhere) through libcsv, which trims the space and unquotes. */
static void test_long_lines_fast_and_libcsv_agree(void **state)
{
	(void)state;
	enum { LINES = 2000, MAXF = 70 };
	static char want[LINES][MAXF][16];
	static size_t nwant[LINES];
	size_t cap = 4u << 20, n = 0;
	char *text = malloc(cap);
	uint32_t x = 3;
	for (int i = 0; i < LINES; i++) {
		x = x * 1103515245u + 12345u;
		size_t nf = 1 + (x >> 16) % MAXF;
		x = x * 1103515245u + 12345u;
		int odd = (int)((x >> 16) % 5); /* 1 a space, 2 a tab, 3 a quoted field, 4 CRLF */
		size_t where = (x >> 8) % nf;
		for (size_t k = 0; k < nf; k++) {
			x = x * 1103515245u + 12345u;
			size_t len = (x >> 16) % 12 + (k == 0); /* no blank line */
			char *w = want[i][k];
			for (size_t j = 0; j < len; j++)
				w[j] = (char)('0' + (x >> (j % 16)) % 43);
			w[len] = '\0';
			if (k == where && len && (odd == 1 || odd == 2))
				text[n++] = odd == 1 ? ' ' : '\t';
			if (k == where && odd == 3)
				text[n++] = '"';
			memcpy(text + n, w, len);
			n += len;
			if (k == where && odd == 3) {
				text[n++] = '"';
				if (!len) /* "" is an empty string, not NULL */
					strcpy(w, "\"\"");
			}
			text[n++] = k + 1 < nf ? ',' : '\n';
		}
		if (odd == 4) {
			text[n - 1] = '\r';
			text[n++] = '\n';
		}
		nwant[i] = nf;
	}
	write_file("long.csv", text, n);
	struct csvin *c;
	struct csvin_rec *r;
	struct err e = {0};
	assert_int_equal(csvin_open("long.csv", NULL, &c, &e), 0);
	for (int i = 0; i < LINES; i++) {
		assert_int_equal(csvin_next(c, &r, &e), 0);
		assert_non_null(r);
		assert_null(r->bad);
		assert_int_equal(r->line, i + 1);
		assert_int_equal(r->n, nwant[i]);
		for (size_t k = 0; k < r->n; k++) {
			const char *w = want[i][k];
			if (!*w) {
				assert_null(r->field[k]);
				assert_int_equal(r->len[k], 0);
			} else if (!strcmp(w, "\"\"")) {
				assert_string_equal(r->field[k], "");
			} else {
				assert_non_null(r->field[k]);
				assert_string_equal(r->field[k], w);
				assert_int_equal(r->len[k], strlen(w));
			}
		}
	}
	assert_int_equal(csvin_next(c, &r, &e), 0);
	assert_null(r);
	csvin_close(c);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain_records),
		cmocka_unit_test(test_gzip_and_truncated_gzip),
		cmocka_unit_test(test_zstd_and_truncated_zstd),
		cmocka_unit_test(test_bom_is_stripped),
		cmocka_unit_test(test_nul_byte_fails_with_line),
		cmocka_unit_test(test_unterminated_quote_at_end),
		cmocka_unit_test(test_zstd_skippable_frames),
		cmocka_unit_test(test_huge_field_fails),
		cmocka_unit_test(test_bad_quoting_is_a_bad_row),
		cmocka_unit_test(test_missing_file),
		cmocka_unit_test(test_plain_and_libcsv_lines_agree),
		cmocka_unit_test(test_long_lines_fast_and_libcsv_agree),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
