/*
 * sbuf.c — growable strings.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbuf.h"
#include "util.h"

static char empty[1];

void sbuf_init(struct sbuf *b)
{
	b->s = empty;
	b->len = 0;
	b->cap = 0;
}

void sbuf_release(struct sbuf *b)
{
	if (!b)
		return;
	if (b->cap)
		free(b->s);
	sbuf_init(b);
}

static void reserve(struct sbuf *b, size_t more)
{
	if (!b->s)
		sbuf_init(b);
	if (b->len + more + 1 <= b->cap)
		return;
	size_t cap = b->cap ? b->cap : 64;
	while (cap < b->len + more + 1)
		cap *= 2;
	char *s = b->cap ? xrealloc(b->s, cap) : xmalloc(cap);
	if (!b->cap)
		memcpy(s, b->s, b->len + 1);
	b->s = s;
	b->cap = cap;
}

void sbuf_add(struct sbuf *b, const void *p, size_t n)
{
	reserve(b, n);
	memcpy(b->s + b->len, p, n);
	b->len += n;
	b->s[b->len] = '\0';
}

void sbuf_adds(struct sbuf *b, const char *s)
{
	sbuf_add(b, s, strlen(s));
}

void sbuf_addc(struct sbuf *b, char c)
{
	sbuf_add(b, &c, 1);
}

void sbuf_printf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n <= 0)
		return;
	reserve(b, (size_t)n);
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

void sbuf_reset(struct sbuf *b)
{
	if (!b->s)
		sbuf_init(b);
	b->len = 0;
	if (b->cap)
		b->s[0] = '\0';
}
