/*
 * esc.h — untrusted text made inert, one escaper per output kind.
 *
 * Names and values from traces and stores (trace, file, node, model and policy names,
 * quarantined raw text, messages quoting them) are bytes anyone may have written: an
 * escape sequence retitles or clears a terminal, a newline forges a line or a Markdown
 * heading, a cell starting with '=' runs as a spreadsheet formula. Every writer passes such
 * text through the escaper of its kind. JSON has its own (json_escape, json.h), built on
 * esc_utf8_len.
 *
 * What is made visible, in every kind (man 5 voidfit, ESCAPING):
 *   - C0 controls (tab, newline and carriage return included) and DEL: \xNN ("\x1b");
 *   - C1 controls (U+0080..U+009F) and the format characters that break or reorder a line
 *     (U+2028, U+2029, U+202A..U+202E, U+2066..U+2069): \uNNNN ("\u202e");
 *   - each byte that does not start a valid UTF-8 sequence: \xNN ("\xff").
 * Valid UTF-8 is kept as is, and so is a backslash: the form is for reading, not for
 * parsing back.
 */
#ifndef VOIDFIT_ESC_H
#define VOIDFIT_ESC_H

#include <stddef.h>
#include <stdint.h>

#include "sbuf.h"

/* The bytes of the valid UTF-8 sequence at s (1 to 4; shortest form, no surrogate, at most
 * U+10FFFF), 0 when s does not start one or is at its NUL. */
size_t esc_utf8_len(const char *s);
/* The code point of the valid n-byte sequence at s (n from esc_utf8_len). */
uint32_t esc_code_point(const char *s, size_t n);
/* Is code point cp one that the escapers make visible (the list above)? */
int esc_is_control(uint32_t cp);

/* Text for a terminal or a plain-text file: s (NULL as "") appended to out with the
 * characters above made visible. */
void esc_text(struct sbuf *out, const char *s);
/* The same into b, emptied first; returns b->s (for a printf argument). */
const char *esc_text_s(struct sbuf *b, const char *s);

/* Markdown (CommonMark and GitHub's tables): esc_text, then a backslash before each
 * character that is markup inside a line (\ ` * _ [ ] < > | $ # & ~), and before the last
 * character of a list marker that starts s ("- ", "+ ", "1. ", "1) "), so s stays one
 * paragraph or table cell of plain text whatever it holds. */
void esc_md(struct sbuf *out, const char *s);

/* HTML and SVG (XML 1.0): esc_text, then & < > " ' as references; fit for text and
 * attribute values. */
void esc_xml(struct sbuf *out, const char *s);

/* One CSV cell (RFC 4180), for a spreadsheet: esc_text, then a leading apostrophe when
 * the cell starts with = + - or @ and is not a plain number ("-3" stays; "-2+3" and
 * "=HYPERLINK(...)" become "'-2+3" and "'=HYPERLINK(...)"), then quoted when it holds a
 * comma or a double quote. NULL appends nothing (an empty cell). */
void esc_csv(struct sbuf *out, const char *s);
/* The quoting of RFC 4180 alone, for a CSV that is read back as data (export): s appended
 * to out as is, in double quotes (each inner one doubled) when it holds a comma, a double
 * quote, a carriage return or a newline. esc_csv quotes through it. */
void esc_csv_quote(struct sbuf *out, const char *s);

#endif
