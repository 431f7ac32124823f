/*
 * sbuf.h — a growable, always NUL-terminated string buffer.
 */
#ifndef VOIDFIT_SBUF_H
#define VOIDFIT_SBUF_H

#include <stddef.h>

struct sbuf {
	char *s;    /* the text, NUL-terminated (never NULL after sbuf_init) */
	size_t len; /* bytes before the NUL */
	size_t cap; /* allocated bytes */
};

#define SBUF_INIT                                                                                  \
	{                                                                                          \
		NULL, 0, 0                                                                         \
	}

/* Make b empty and usable. */
void sbuf_init(struct sbuf *b);
/* Free b's text; b may be NULL; leaves b as after sbuf_init without memory. */
void sbuf_release(struct sbuf *b);
/* Append n bytes / a string / a char / printf-style text. Never fail (xmalloc). */
void sbuf_add(struct sbuf *b, const void *p, size_t n);
void sbuf_adds(struct sbuf *b, const char *s);
void sbuf_addc(struct sbuf *b, char c);
void sbuf_printf(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Empty b, keeping its memory. */
void sbuf_reset(struct sbuf *b);

#endif
