/*
 * json.c — the JSON writer.
 */
#include <assert.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "esc.h"
#include "json.h"

void json_init(struct json *j, struct sbuf *out, int pretty)
{
	memset(j, 0, sizeof *j);
	j->out = out;
	j->pretty = pretty;
}

static void indent(struct json *j)
{
	sbuf_addc(j->out, '\n');
	for (int i = 0; i < j->depth; i++)
		sbuf_adds(j->out, "  ");
}

/* Before any value or key: a comma and a line break where needed. */
static void before_value(struct json *j)
{
	if (j->after_key) {
		j->after_key = 0;
		return;
	}
	if (j->depth > 0) {
		if (j->count[j->depth - 1]++)
			sbuf_addc(j->out, ',');
		if (j->pretty)
			indent(j);
	}
}

static void open_(struct json *j, char open, char close)
{
	before_value(j);
	assert(j->depth < JSON_MAX_DEPTH);
	sbuf_addc(j->out, open);
	j->close[j->depth] = close;
	j->count[j->depth++] = 0;
}

void json_obj(struct json *j)
{
	open_(j, '{', '}');
}

void json_arr(struct json *j)
{
	open_(j, '[', ']');
}

void json_end(struct json *j)
{
	assert(j->depth > 0 && !j->after_key);
	j->depth--;
	if (j->pretty && j->count[j->depth])
		indent(j);
	sbuf_addc(j->out, j->close[j->depth]);
	if (j->pretty && j->depth == 0)
		sbuf_addc(j->out, '\n');
}

void json_escape(struct sbuf *b, const char *s)
{
	while (*s) {
		size_t n = esc_utf8_len(s);
		if (!n) { /* not UTF-8, which JSON text must be: shown as esc_text shows it */
			sbuf_printf(b, "\\\\x%02x", (unsigned char)*s++);
			continue;
		}
		if (n == 1 && strchr("\"\\\n\r\t", *s)) {
			sbuf_addc(b, '\\');
			sbuf_addc(b, *s == '\n' ? 'n' : *s == '\r' ? 'r' : *s == '\t' ? 't' : *s);
		} else if (esc_is_control(esc_code_point(s, n))) {
			/* RFC 8259 asks this of C0 only; a terminal shows the others raw too */
			sbuf_printf(b, "\\u%04x", (unsigned)esc_code_point(s, n));
		} else {
			sbuf_add(b, s, n);
		}
		s += n;
	}
}

void json_key(struct json *j, const char *k)
{
	assert(j->depth > 0 && j->close[j->depth - 1] == '}' && !j->after_key);
	before_value(j);
	sbuf_addc(j->out, '"');
	json_escape(j->out, k);
	sbuf_adds(j->out, j->pretty ? "\": " : "\":");
	j->after_key = 1;
}

void json_str(struct json *j, const char *s)
{
	if (!s) {
		json_null(j);
		return;
	}
	before_value(j);
	sbuf_addc(j->out, '"');
	json_escape(j->out, s);
	sbuf_addc(j->out, '"');
}

void json_num(struct json *j, double v)
{
	if (!isfinite(v)) {
		json_null(j);
		return;
	}
	before_value(j);
	char buf[32];
	if (v == (double)(int64_t)v && fabs(v) < 1e15) { /* whole numbers read as such */
		snprintf(buf, sizeof buf, "%" PRId64, (int64_t)v);
		sbuf_adds(j->out, buf);
		return;
	}
	/* the shortest %.Ng that reads back exactly */
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(buf, sizeof buf, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	sbuf_adds(j->out, buf);
}

void json_int(struct json *j, int64_t v)
{
	before_value(j);
	sbuf_printf(j->out, "%" PRId64, v);
}

void json_bool(struct json *j, int v)
{
	before_value(j);
	sbuf_adds(j->out, v ? "true" : "false");
}

void json_null(struct json *j)
{
	before_value(j);
	sbuf_adds(j->out, "null");
}

void json_key_str(struct json *j, const char *k, const char *s)
{
	json_key(j, k);
	json_str(j, s);
}

void json_key_num(struct json *j, const char *k, double v)
{
	json_key(j, k);
	json_num(j, v);
}

void json_key_int(struct json *j, const char *k, int64_t v)
{
	json_key(j, k);
	json_int(j, v);
}

void json_key_bool(struct json *j, const char *k, int v)
{
	json_key(j, k);
	json_bool(j, v);
}
