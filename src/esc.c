/*
 * esc.c — untrusted text made inert (esc.h): one pass that makes controls and broken UTF-8
 * visible, and the markup of each output kind on top of it.
 */
#include <stdint.h>
#include <string.h>

#include "esc.h"
#include "util.h"

size_t esc_utf8_len(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n;
	uint32_t cp;
	if (p[0] < 0x80)
		return p[0] != 0;
	if (p[0] >= 0xC2 && p[0] <= 0xDF)
		n = 2, cp = p[0] & 0x1Fu;
	else if (p[0] >= 0xE0 && p[0] <= 0xEF)
		n = 3, cp = p[0] & 0x0Fu;
	else if (p[0] >= 0xF0 && p[0] <= 0xF4)
		n = 4, cp = p[0] & 0x07u;
	else
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((p[i] & 0xC0) != 0x80) /* a NUL ends the loop here too */
			return 0;
		cp = cp << 6 | (p[i] & 0x3Fu);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || cp > 0x10FFFF ||
	    (cp >= 0xD800 && cp <= 0xDFFF))
		return 0;
	return n;
}

uint32_t esc_code_point(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	static const unsigned char lead_mask[5] = {0, 0x7F, 0x1F, 0x0F, 0x07};
	uint32_t cp = p[0] & lead_mask[n];
	for (size_t i = 1; i < n; i++)
		cp = cp << 6 | (p[i] & 0x3Fu);
	return cp;
}

int esc_is_control(uint32_t cp)
{
	return cp < 0x20 || (cp >= 0x7F && cp <= 0x9F) || cp == 0x2028 || cp == 0x2029 ||
	       (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
}

void esc_text(struct sbuf *out, const char *s)
{
	if (!s)
		return;
	while (*s) {
		size_t n = esc_utf8_len(s);
		if (!n) /* a byte that is not UTF-8 */
			sbuf_printf(out, "\\x%02x", (unsigned char)*s++);
		else if (!esc_is_control(esc_code_point(s, n)))
			sbuf_add(out, s, n), s += n;
		else if (n == 1)
			sbuf_printf(out, "\\x%02x", (unsigned char)*s++);
		else
			sbuf_printf(out, "\\u%04x", (unsigned)esc_code_point(s, n)), s += n;
	}
}

const char *esc_text_s(struct sbuf *b, const char *s)
{
	sbuf_reset(b);
	esc_text(b, s);
	return b->s;
}

/* The length of a list marker that starts s ("- ", "+ ", "12. " or "3) ") up to its last
 * character before the blank, 0 when there is none ("-3" is no marker). */
static size_t list_marker(const char *s)
{
	size_t d = strspn(s, "0123456789");
	if (*s == '-' || *s == '+')
		d = 0;
	else if (!d || d > 9 || (s[d] != '.' && s[d] != ')'))
		return 0;
	return s[d + 1] == ' ' ? d + 1 : 0;
}

void esc_md(struct sbuf *out, const char *s)
{
	struct sbuf t = SBUF_INIT;
	sbuf_init(&t);
	esc_text(&t, s);
	size_t mark = list_marker(t.s);
	/* emphasis, code, links, HTML, a table's bars, headings, entities, strikethrough,
	 * and '$', which some renderers take for mathematics */
	for (size_t i = 0; i < t.len; i++) {
		if ((mark && i == mark - 1) || strchr("\\`*_[]<>|$#&~", t.s[i]))
			sbuf_addc(out, '\\');
		sbuf_addc(out, t.s[i]);
	}
	sbuf_release(&t);
}

/* The entity of each character XML text and attributes cannot hold as itself. */
static const char *const xml_entity[256] = {
	['&'] = "&amp;", ['<'] = "&lt;", ['>'] = "&gt;", ['"'] = "&quot;", ['\''] = "&#39;",
};

void esc_xml(struct sbuf *out, const char *s)
{
	struct sbuf t = SBUF_INIT;
	sbuf_init(&t);
	esc_text(&t, s);
	for (size_t i = 0; i < t.len; i++) {
		const char *ent = xml_entity[(unsigned char)t.s[i]];
		if (ent)
			sbuf_adds(out, ent);
		else
			sbuf_addc(out, t.s[i]);
	}
	sbuf_release(&t);
}

void esc_csv_quote(struct sbuf *out, const char *s)
{
	int quote = strpbrk(s, ",\"\r\n") != NULL;
	if (quote)
		sbuf_addc(out, '"');
	for (; *s; s++) {
		if (*s == '"')
			sbuf_addc(out, '"');
		sbuf_addc(out, *s);
	}
	if (quote)
		sbuf_addc(out, '"');
}

void esc_csv(struct sbuf *out, const char *s)
{
	double v;
	if (!s)
		return;
	struct sbuf t = SBUF_INIT, cell = SBUF_INIT;
	sbuf_init(&t);
	sbuf_init(&cell);
	esc_text(&t, s);
	/* a spreadsheet runs a cell starting with one of these as a formula, unless it reads
	 * as a number; OWASP's advice on CSV injection: a leading apostrophe */
	if (t.s[0] && strchr("=+-@", t.s[0]) && parse_double(t.s, &v))
		sbuf_addc(&cell, '\'');
	sbuf_add(&cell, t.s, t.len);
	esc_csv_quote(out, cell.s);
	sbuf_release(&t);
	sbuf_release(&cell);
}
