/*
 * fault.c — parsing faults: "NODE:DIM=FRACTION@START+DURATION" (a capacity fault) or
 * "NODE:down@START+DURATION" (a node down) on the command line, one a line in a fault file
 * (fault.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fault.h"
#include "words.h"

int fault_parse_duration(const char *s, int64_t *out)
{
	static const struct {
		char suffix;
		int64_t mult;
	} units[] = {{'s', 1}, {'m', 60}, {'h', 3600}, {'d', 86400}};
	char buf[32];
	size_t n = strlen(s);
	int64_t mult = 1, v;
	if (n == 0 || n >= sizeof buf)
		return -1;
	memcpy(buf, s, n + 1);
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
		if (buf[n - 1] == units[i].suffix) {
			mult = units[i].mult;
			buf[--n] = '\0';
			break;
		}
	if (n == 0 || buf[0] == '+' || buf[0] == '-' || parse_i64(buf, &v) || v < 0 ||
	    v > INT64_MAX / mult)
		return -1;
	*out = v * mult;
	return 0;
}

/* The "@START+DURATION" at at (plus: its '+') into f. */
static int parse_when(const char *s, const char *at, const char *plus, struct fault *f,
		      struct err *e)
{
	char num[64];
	size_t nl = (size_t)(plus - at - 1);
	if (nl >= sizeof num)
		return err_set(e, VF_EINPUT, "'%s': bad start", s);
	memcpy(num, at + 1, nl);
	num[nl] = '\0';
	if (fault_parse_duration(num, &f->start))
		return err_set(e, VF_EINPUT, "'%s': start '%s' is not a time (90, 15m, 6h, 2d)", s,
			       num);
	if (fault_parse_duration(plus + 1, &f->duration) || f->duration == 0)
		return err_set(e, VF_EINPUT,
			       "'%s': duration '%s' is not a positive time (90, 15m, 6h, 2d)", s,
			       plus + 1);
	if (f->start > INT64_MAX - f->duration)
		return err_set(e, VF_EINPUT, "'%s': the fault ends too late", s);
	return VF_OK;
}

int fault_parse(const char *s, struct fault *f, struct err *e)
{
	const char *colon = strrchr(s, ':');
	const char *eq = colon ? strchr(colon, '=') : NULL;
	const char *at = colon ? strchr(colon, '@') : NULL;
	const char *plus = at ? strchr(at, '+') : NULL;
	char dim[16], num[64];
	memset(f, 0, sizeof *f);
	if (!plus || (eq && eq > at))
		return err_set(
			e, VF_EINPUT,
			"'%s': not NODE:DIM=FRACTION@START+DURATION nor NODE:down@START+DURATION",
			s);
	size_t tl = (size_t)(colon - s);
	if (tl == 0 || tl >= sizeof f->target)
		return err_set(e, VF_EINPUT, "'%s': the target must have 1 to %d characters", s,
			       (int)sizeof f->target - 1);
	memcpy(f->target, s, tl);
	if (!eq) { /* a whole node */
		if ((size_t)(at - colon - 1) != 4 || strncmp(colon + 1, "down", 4))
			return err_set(e, VF_EINPUT,
				       "'%s': not NODE:DIM=FRACTION@START+DURATION nor "
				       "NODE:down@START+DURATION",
				       s);
		f->down = 1;
		f->fraction = 0;
		return parse_when(s, at, plus, f, e);
	}
	size_t dl = (size_t)(eq - colon - 1);
	if (dl >= sizeof dim)
		return err_set(e, VF_EINPUT, "'%s': unknown dim", s);
	memcpy(dim, colon + 1, dl);
	dim[dl] = '\0';
	int d = job_dim_find(dim);
	if (d < 0)
		return err_set(e, VF_EINPUT, "'%s': unknown dim '%s'", s, dim);
	if (!(DIMS_SHARED & DIM_BIT(d)))
		return err_set(e, VF_EINPUT,
			       "'%s': dim '%s' is hard: only net, sto and iocpu can fault", s, dim);
	f->dim = (enum dim)d;
	size_t nl = (size_t)(at - eq - 1);
	if (nl >= sizeof num)
		return err_set(e, VF_EINPUT, "'%s': bad fraction", s);
	memcpy(num, eq + 1, nl);
	num[nl] = '\0';
	if (parse_double(num, &f->fraction) || f->fraction < 0 || f->fraction > 1)
		return err_set(e, VF_EINPUT, "'%s': fraction '%s' is not a number in [0, 1]", s,
			       num);
	return parse_when(s, at, plus, f, e);
}

int fault_parse_text(const char *text, size_t len, const char *fname, struct fault **faults,
		     size_t *n, struct err *e)
{
	struct words w;
	size_t cap = *n;
	int more = 0, rc = words_open(&w, text, len, fname, e);
	while (!rc && (more = words_next(&w, e)) > 0) {
		struct fault f;
		if (w.n > 1) {
			rc = err_set(e, VF_EINPUT, "%s:%d: one fault a line ('%s %s')", fname,
				     w.lineno, w.w[0], w.w[1]);
			break;
		}
		if ((rc = fault_parse(w.w[0], &f, e))) {
			err_prefix(e, "%s:%d: ", fname, w.lineno);
			break;
		}
		xgrow(faults, &cap, *n + 1, sizeof **faults);
		(*faults)[(*n)++] = f;
	}
	if (!rc && more < 0)
		rc = VF_EINPUT;
	words_close(&w);
	return rc;
}

int fault_format(const struct fault *f, char *buf, size_t len)
{
	if (f->down)
		return snprintf(buf, len, "%s:down@%" PRId64 "+%" PRId64, f->target, f->start,
				f->duration);
	return snprintf(buf, len, "%s:%s=%g@%" PRId64 "+%" PRId64, f->target, job_dim_name(f->dim),
			f->fraction, f->start, f->duration);
}
