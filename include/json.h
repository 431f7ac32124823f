/*
 * json.h — a small JSON writer into an sbuf, with comma and nesting bookkeeping.
 *
 *   struct json j; json_init(&j, &buf, 1);
 *   json_obj(&j); json_key(&j, "policy"); json_str(&j, "fgd");
 *   json_key(&j, "runs"); json_arr(&j); json_num(&j, 1.5); json_end(&j); json_end(&j);
 *
 * Numbers are written with the fewest digits that read back to the same double (NaN and
 * infinities, which JSON lacks, are written as null). Deterministic byte for byte.
 */
#ifndef VOIDFIT_JSON_H
#define VOIDFIT_JSON_H

#include <stdint.h>

#include "sbuf.h"

#define JSON_MAX_DEPTH 32

struct json {
	struct sbuf *out;           /* where text goes (not owned) */
	int pretty;                 /* 1: newlines and two-space indents */
	int depth;                  /* open objects/arrays */
	int count[JSON_MAX_DEPTH];  /* values written at each depth */
	char close[JSON_MAX_DEPTH]; /* the closing bracket of each depth */
	int after_key;              /* a key was written; its value comes next */
};

void json_init(struct json *j, struct sbuf *out, int pretty);
void json_obj(struct json *j);                /* { */
void json_arr(struct json *j);                /* [ */
void json_end(struct json *j);                /* } or ] */
void json_key(struct json *j, const char *k); /* "k": */
void json_str(struct json *j, const char *s); /* a string, escaped; NULL gives null */
void json_num(struct json *j, double v);
void json_int(struct json *j, int64_t v);
void json_bool(struct json *j, int v);
void json_null(struct json *j);
/* "k": and its value, the pair an object is made of. */
void json_key_str(struct json *j, const char *k, const char *s);
void json_key_num(struct json *j, const char *k, double v);
void json_key_int(struct json *j, const char *k, int64_t v);
void json_key_bool(struct json *j, const char *k, int v);
/* Append s, escaped as JSON string content (no quotes), to b. */
void json_escape(struct sbuf *b, const char *s);

#endif
