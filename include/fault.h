/*
 * fault.h — capacity faults: a node's (or a group's) capacity on a shared dimension drops to
 * a fraction of its spec for a while. "node-17:sto=0.5@3600+6h" halves node-17's storage
 * bandwidth from second 3600 for six hours.
 *
 * Only shared dims (net, sto, iocpu) can fault: lowering a hard dim under running jobs would
 * have to evict them, and voidfit's model never overcommits hard dims. Overlapping faults on
 * one node and dim do not compound: the lowest active fraction wins.
 *
 * A whole node can fail instead: "node-17:down@3600+2h" takes node-17 down (all its
 * capacity gone, every job on it killed) for two hours; a group or a GPU model as the target
 * takes each of its nodes down.
 */
#ifndef VOIDFIT_FAULT_H
#define VOIDFIT_FAULT_H

#include <stddef.h>
#include <stdint.h>

#include "job.h"
#include "util.h"

struct fault {
	char target[NODE_NAME_MAX]; /* a node name, a node group, or a GPU model name */
	int down;                   /* 1: the whole node is down (dim and fraction unused) */
	enum dim dim;               /* DIM_NET, DIM_STO or DIM_IOCPU */
	double fraction;            /* capacity left during the fault, in [0, 1] */
	int64_t start;              /* first second of the fault */
	int64_t duration;           /* seconds, > 0; the capacity is back at start + duration */
};

/*
 * Parse "NODE:DIM=FRACTION@START+DURATION" or "NODE:down@START+DURATION". START and DURATION are
 * integer seconds or carry a suffix s, m, h or d. Returns 0, or VF_EINPUT with e saying what is
 * wrong
 * ("'x:gpu=0.5@0+1h': dim 'gpu' is hard: only net, sto and iocpu can fault").
 */
int fault_parse(const char *s, struct fault *f, struct err *e);
/* Parse the text of a fault file (len bytes, named fname in errors): one fault a line, blank
 * lines and # comments ignored. Appends to *faults (*n of them, realloc'd; the caller frees
 * *faults). Errors carry "fname:line: ". */
int fault_parse_text(const char *text, size_t len, const char *fname, struct fault **faults,
		     size_t *n, struct err *e);
/* Write f back in the form fault_parse reads (for a run's recorded parameters). Returns
 * what snprintf returns. */
int fault_format(const struct fault *f, char *buf, size_t len);
/* Parse a duration: "90", "90s", "15m", "6h", "2d"; 0 on success, -1 if bad or negative. */
int fault_parse_duration(const char *s, int64_t *out);

#endif
