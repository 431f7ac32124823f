/*
 * evq.c — the event queue (evq.h): a 4-ary min-heap on (time, prio, seq).
 *
 * Invariant: for every i > 0, h[(i - 1) / 4] comes before h[i]; seq grows by one per push,
 * so no two events compare equal and the order of equal (time, prio) is insertion order.
 * Four children per node: half the depth of a binary heap, and a node's children share one
 * or two cache lines, which matters once the queue outgrows the cache (a run with many
 * thousand jobs running).
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "evq.h"
#include "util.h"

#define ARITY 4

/* (prio, seq) as one number: seq stays below 2^56 (asserted in evq_push). */
static uint64_t rank(const struct evq_event *e)
{
	return (uint64_t)e->prio << 56 | e->seq;
}

/* Without branches: which child is earliest is a coin toss to the branch predictor, and a
 * mispredicted branch per comparison cost more than the comparisons. */
static int before(const struct evq_event *a, const struct evq_event *b)
{
	return (a->time < b->time) | ((a->time == b->time) & (rank(a) < rank(b)));
}

void evq_init(struct evq *q)
{
	memset(q, 0, sizeof *q);
}

void evq_release(struct evq *q)
{
	if (!q)
		return;
	free(q->h);
	memset(q, 0, sizeof *q);
}

void evq_clone(struct evq *dst, const struct evq *src)
{
	*dst = *src;
	dst->h = xmalloc((src->cap ? src->cap : 1) * sizeof *dst->h);
	memcpy(dst->h, src->h, src->n * sizeof *dst->h);
}

/* Where e goes, from the hole at i up: the parents it comes before move down into the
 * hole, one level at a time. */
static size_t sift_up(struct evq *q, size_t i, const struct evq_event *e)
{
	while (i > 0) {
		size_t p = (i - 1) / ARITY;
		if (!before(e, &q->h[p]))
			break;
		q->h[i] = q->h[p];
		i = p;
	}
	return i;
}

void evq_push(struct evq *q, const struct evq_event *ev)
{
	xgrow(&q->h, &q->cap, q->n + 1, sizeof *q->h);
	struct evq_event e = *ev;
	assert(q->seq < (uint64_t)1 << 56);
	e.seq = q->seq++;
	size_t i = q->n++;
	q->h[sift_up(q, i, &e)] = e;
}

/* The earliest of the children l .. l + ARITY - 1 (those below n). */
static size_t min_child(const struct evq *q, size_t l, size_t n)
{
	size_t m = l, end = l + ARITY < n ? l + ARITY : n;
	for (size_t c = l + 1; c < end; c++)
		m = before(&q->h[c], &q->h[m]) ? c : m;
	return m;
}

int evq_pop(struct evq *q, struct evq_event *out)
{
	if (!q->n)
		return 0;
	*out = q->h[0];
	struct evq_event last = q->h[--q->n];
	size_t i = 0, n = q->n;
	/* Bottom-up: move the hole to a leaf along the smallest children, then sift the last
	 * event up from there (it usually belongs near the bottom): fewer comparisons than the
	 * top-down sift. The order is total, so pops are the same. */
	for (;;) {
		size_t l = ARITY * i + 1;
		if (l >= n)
			break;
		size_t m = min_child(q, l, n);
		q->h[i] = q->h[m];
		i = m;
	}
	i = sift_up(q, i, &last);
	if (n)
		q->h[i] = last;
	return 1;
}

const struct evq_event *evq_peek(const struct evq *q)
{
	return q->n ? &q->h[0] : NULL;
}

static void sift_down(struct evq *q, size_t i)
{
	struct evq_event e = q->h[i];
	size_t n = q->n;
	for (;;) {
		size_t l = ARITY * i + 1;
		if (l >= n)
			break;
		size_t m = min_child(q, l, n);
		if (!before(&q->h[m], &e))
			break;
		q->h[i] = q->h[m];
		i = m;
	}
	q->h[i] = e;
}

void evq_filter(struct evq *q, int (*keep)(const struct evq_event *ev, void *u), void *u)
{
	size_t w = 0;
	for (size_t i = 0; i < q->n; i++)
		if (keep(&q->h[i], u))
			q->h[w++] = q->h[i];
	q->n = w;
	for (size_t i = (w + ARITY - 2) / ARITY; i-- > 0;)
		sift_down(q, i);
}
