/* test-esc.c — the escapers of untrusted text: controls and broken UTF-8 made visible,
 * valid UTF-8 kept, and each output kind's markup (Markdown, XML, CSV, JSON) made inert. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "esc.h"
#include "json.h"

typedef void (*escaper)(struct sbuf *, const char *);

static void is(escaper f, const char *in, const char *want)
{
	struct sbuf b = SBUF_INIT;
	sbuf_init(&b);
	f(&b, in);
	assert_string_equal(b.s, want);
	sbuf_release(&b);
}

static void test_utf8(void **state)
{
	(void)state;
	assert_int_equal(esc_utf8_len("a"), 1);
	assert_int_equal(esc_utf8_len(""), 0);
	assert_int_equal(esc_utf8_len("\xc3\xa9"), 2);         /* é */
	assert_int_equal(esc_utf8_len("\xe2\x82\xac"), 3);     /* € */
	assert_int_equal(esc_utf8_len("\xf0\x9f\x98\x80"), 4); /* an emoji */
	assert_int_equal(esc_utf8_len("\xc3"), 0);             /* cut short */
	assert_int_equal(esc_utf8_len("\xc0\xaf"), 0);         /* overlong '/' */
	assert_int_equal(esc_utf8_len("\xe0\x80\xaf"), 0);     /* overlong too */
	assert_int_equal(esc_utf8_len("\xed\xa0\x80"), 0);     /* a surrogate */
	assert_int_equal(esc_utf8_len("\xf4\x90\x80\x80"), 0); /* past U+10FFFF */
	assert_int_equal(esc_utf8_len("\x80"), 0);             /* a lone continuation */
	assert_int_equal(esc_code_point("\xe2\x80\xae", 3), 0x202E);
	assert_true(esc_is_control(0x1B) && esc_is_control(0x7F) && esc_is_control(0x9B));
	assert_true(esc_is_control(0x202E) && esc_is_control(0x2028) && esc_is_control(0x2069));
	assert_false(esc_is_control(' ') || esc_is_control(0xA0) || esc_is_control(0x20AC));
}

static void test_text(void **state)
{
	(void)state;
	is(esc_text, "n0\x1b]0;pwned\x07\x1b[2J", "n0\\x1b]0;pwned\\x07\\x1b[2J");
	is(esc_text, "a\nb\rc\td\x7f", "a\\x0ab\\x0dc\\x09d\\x7f");
	is(esc_text, "caf\xc3\xa9 \xe2\x82\xac 5", "caf\xc3\xa9 \xe2\x82\xac 5"); /* kept */
	is(esc_text,
	   "x\xc2\x9b"
	   "31m",
	   "x\\u009b31m"); /* C1 CSI */
	is(esc_text,
	   "abc\xe2\x80\xae"
	   "fed",
	   "abc\\u202efed"); /* bidi override */
	is(esc_text, "bad\xff\xc3", "bad\\xff\\xc3");
	is(esc_text, "back\\slash", "back\\slash");
	is(esc_text, NULL, "");
	struct sbuf b = SBUF_INIT;
	assert_string_equal(esc_text_s(&b, "\x1b"), "\\x1b");
	assert_string_equal(esc_text_s(&b, "ok"), "ok"); /* emptied first */
	sbuf_release(&b);
}

static void test_md(void **state)
{
	(void)state;
	/* a newline cannot start a heading: it is shown, and '#' is escaped anyway */
	is(esc_md, "evil\n# Verdict", "evil\\\\x0a\\# Verdict");
	is(esc_md, "a|b *c* _d_ `e` [f](g) <h> $i & ~j~ \\",
	   "a\\|b \\*c\\* \\_d\\_ \\`e\\` \\[f\\](g) \\<h\\> \\$i \\& \\~j\\~ \\\\");
	is(esc_md, "- item", "\\- item");
	is(esc_md, "+ item", "\\+ item");
	is(esc_md, "12. item", "12\\. item");
	is(esc_md, "3) item", "3\\) item");
	is(esc_md, "-3.5", "-3.5"); /* numbers stay as they are */
	is(esc_md, "-", "-");
	is(esc_md, "a - b 1. c", "a - b 1. c");
}

static void test_xml(void **state)
{
	(void)state;
	is(esc_xml, "a<b & \"c\" 'd'>", "a&lt;b &amp; &quot;c&quot; &#39;d&#39;&gt;");
	/* XML 1.0 has no way to carry most C0 controls, even as references */
	is(esc_xml, "t\x1b[2J\x0c\xff", "t\\x1b[2J\\x0c\\xff");
}

static void test_csv(void **state)
{
	(void)state;
	is(esc_csv, "plain", "plain");
	is(esc_csv, "a,b", "\"a,b\"");
	is(esc_csv, "say \"hi\"", "\"say \"\"hi\"\"\"");
	is(esc_csv, "=HYPERLINK(\"http://x\",\"y\")",
	   "\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\"");
	is(esc_csv, "=1+2", "'=1+2");
	is(esc_csv, "+cmd", "'+cmd");
	is(esc_csv, "-2+3", "'-2+3");
	is(esc_csv, "@SUM(A1)", "'@SUM(A1)");
	is(esc_csv, "-3", "-3"); /* numbers are not formulas */
	is(esc_csv, "+4.5", "+4.5");
	is(esc_csv, "-1e-05", "-1e-05");
	is(esc_csv, "a\r\nb", "a\\x0d\\x0ab");
	is(esc_csv, "", "");
	is(esc_csv, NULL, "");
	/* the quoting alone keeps every byte, for a CSV read back as data */
	is(esc_csv_quote, "plain", "plain");
	is(esc_csv_quote, "a,b", "\"a,b\"");
	is(esc_csv_quote, "say \"hi\"", "\"say \"\"hi\"\"\"");
	is(esc_csv_quote, "a\r\nb", "\"a\r\nb\"");
	is(esc_csv_quote, "line\n", "\"line\n\"");
	is(esc_csv_quote, "=1+2", "=1+2");
	is(esc_csv_quote, "", "");
}

static void test_json(void **state)
{
	(void)state;
	/* RFC 8259's escapes for C0; DEL, C1 and bidi as \u too; not UTF-8 as esc_text shows it */
	is(json_escape, "a\"b\\c\n\r\t\x1b", "a\\\"b\\\\c\\n\\r\\t\\u001b");
	is(json_escape, "\x7f\xc2\x9b\xe2\x80\xae", "\\u007f\\u009b\\u202e");
	is(json_escape, "caf\xc3\xa9 \xff", "caf\xc3\xa9 \\\\xff");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_utf8), cmocka_unit_test(test_text),
		cmocka_unit_test(test_md),   cmocka_unit_test(test_xml),
		cmocka_unit_test(test_csv),  cmocka_unit_test(test_json),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
