/*
 * evq.h — the simulator's event queue: a binary min-heap ordered by (time, priority,
 * insertion sequence), so events at equal times come out in a fixed, documented order.
 *
 * An event carries a kind and two small integers for the simulator; stale events (a job's
 * completion moved by contention) are not removed but carry a version the simulator
 * compares with the job's current one when the event comes out.
 */
#ifndef VOIDFIT_EVQ_H
#define VOIDFIT_EVQ_H

#include <stddef.h>
#include <stdint.h>

struct evq_event {
	int64_t time; /* simulation second */
	uint64_t seq; /* insertion sequence, set by evq_push: the last tie-break */
	uint8_t prio; /* lower first at equal times */
	uint8_t kind; /* the simulator's event kind */
	uint32_t ver; /* version stamp of arg's job when pushed */
	int32_t arg;  /* job or fault index */
	int32_t aux;  /* a second integer for the simulator (a finish: the job's node) */
};

struct evq {
	struct evq_event *h; /* heap array, h[0] the next event */
	size_t n, cap;
	uint64_t seq; /* next insertion sequence */
};

/* An empty queue. */
void evq_init(struct evq *q);
/* Free q's array; q may be NULL; leaves q empty. */
void evq_release(struct evq *q);
/* Make dst an independent copy of src (same order, same next sequence). */
void evq_clone(struct evq *dst, const struct evq *src);
/* Add ev (its seq is overwritten with the next sequence number). Never fails. */
void evq_push(struct evq *q, const struct evq_event *ev);
/* Remove the next event into *out; returns 1, or 0 if q is empty. */
int evq_pop(struct evq *q, struct evq_event *out);
/* The next event, or NULL if q is empty; valid until the next push or pop. */
const struct evq_event *evq_peek(const struct evq *q);
/* Drop every event for which keep(ev, u) returns 0, keeping the order of the others (their
 * sequence numbers do not change). O(n); for purging stale events in bulk. */
void evq_filter(struct evq *q, int (*keep)(const struct evq_event *ev, void *u), void *u);
/* Number of events held (stale ones included). */
static inline size_t evq_len(const struct evq *q)
{
	return q->n;
}

#endif
