/*
 * words.c — directive files, a line at a time.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "words.h"

int words_open(struct words *r, const char *text, size_t len, const char *fname, struct err *e)
{
	memset(r, 0, sizeof *r);
	r->fname = fname;
	if (memchr(text, '\0', len))
		return err_set(e, VF_EINPUT, "%s: not a text file (NUL byte)", fname);
	r->buf = xstrndup(text, len);
	r->next = r->buf;
	return VF_OK;
}

int words_next(struct words *r, struct err *e)
{
	while (r->next) {
		char *s = r->next, *nl = strchr(s, '\n'), *hash;
		if (nl)
			*nl++ = '\0';
		r->next = nl;
		r->lineno++;
		if ((hash = strchr(s, '#')))
			*hash = '\0';
		r->n = 0;
		for (char *save = NULL, *t = strtok_r(s, " \t\r", &save); t;
		     t = strtok_r(NULL, " \t\r", &save)) {
			if (r->n == WORDS_MAX)
				return -err_set(e, VF_EINPUT, "%s:%d: too many words", r->fname,
						r->lineno);
			r->w[r->n++] = t;
		}
		if (r->n)
			return 1;
	}
	return 0;
}

void words_close(struct words *r)
{
	if (!r)
		return;
	free(r->buf);
	r->buf = r->next = NULL;
}

int words_read_file(const char *path, size_t max, const char *what, struct sbuf *out, struct err *e)
{
	FILE *f = fopen(path, "rb");
	char buf[8192];
	size_t n, total = 0;
	int rc = VF_OK;
	if (!f)
		return err_set(e, VF_EIO, "%s: %s", path, strerror(errno));
	errno = 0;
	while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
		if ((total += n) > max) {
			rc = err_set(e, VF_EINPUT, "%s: larger than %zu bytes: not %s", path, max,
				     what);
			break;
		}
		sbuf_add(out, buf, n);
	}
	if (!rc && ferror(f))
		rc = err_set(e, VF_EIO, "%s: %s", path, errno ? strerror(errno) : "read failed");
	fclose(f);
	return rc;
}
