/*
 * policy.h — placement policies. Each policy is one file pol-NAME.c exporting one
 * const struct policy_ops, listed in the NULL-terminated table policy_table.
 *
 * The simulator asks cluster_choices() for every feasible placement on every node, asks the
 * policy to score each, and takes the lowest score; ties go to the lowest node index, then to
 * the first choice. A policy may instead implement pick() to search faster; it must choose
 * exactly what the score loop would.
 */
#ifndef VOIDFIT_POLICY_H
#define VOIDFIT_POLICY_H

#include <stdint.h>

#include "cluster.h"
#include "frag.h"
#include "job.h"
#include "rng.h"

/* The numbers a policy reads that a run may set (--lambda, --fgd-pack-tol, ...): one array
 * in sim_opts and policy_ctx, filled from the scenario table's rows that name an index
 * (scenario.h, POL) and changed by index in a fork (sim_change). A new one is an index here,
 * its default below and in policy_param_init, and a row of SCENARIO_PARAMS. */
enum policy_param {
	POLICY_P_LAMBDA,           /* ragp: weight of residual-shape irregularity */
	POLICY_P_MU,               /* ragp: weight of bandwidth congestion */
	POLICY_P_FGD_PACK_TOL,     /* fgd-pack: bin width, a share of the job's GPUs */
	POLICY_P_FGD_PACK_RESERVE, /* fgd-pack: weight of the scarce-model term */
	POLICY_NPARAM
};

/* What a policy may look at when it scores. */
struct policy_ctx {
	const struct cluster *c;        /* the cluster now */
	const struct frag_workload *wl; /* the target workload (fgd, ragp) */
	const double *node_frag;        /* F_n of every node now (frag_node), kept by the sim */
	uint32_t dims;                  /* DIM_BIT()s the policy sees (its own, or --dims) */
	/* Shared dims (of dims) under I/O admission: the simulator never places a job where
	 * one of them would be oversubscribed (sim.h, io_admission), so such a placement is
	 * not offered to score() */
	uint32_t admit;
	double param[POLICY_NPARAM]; /* the run's policy parameters (enum policy_param) */
	struct rng *rng;             /* the simulation's PRNG */
	/* The job behind an index in node_state.jobs (clustering); NULL: clustering infers job
	 * types from the GPU state. job_of_u is passed back to it. */
	const struct job *(*job_of)(const void *job_of_u, int32_t jobidx);
	const void *job_of_u;
	/* frag_node_md(c, n, wl, dims) of every node now, kept by the sim for a policy flagged
	 * POLICY_F_NODE_MD (ragp); NULL: the policy computes it. */
	const double *node_md;
	/* With node_md: per node, the summed popularity of the target workload's shapes that do
	 * not fit on it now over dims (frag_node_both), for ragp's bound; NULL: none. */
	const double *node_nofit;
	/* Per node, the summed popularity of the target workload's shapes whose F_n(m) is all of
	 * the node's free GPU now (frag_node_eval: CPU-only shapes and GPU shapes that do not
	 * fit on the hard dims), for fgd's and ragp's bounds; kept by the sim whenever it has a
	 * workload, NULL otherwise. */
	const double *node_fnofit;
	/* Per node, the shapes (bit i: shape i < 64) of the target workload that fit on it now:
	 * [0] on the hard dims, [1] over dims as node_nofit judges (frag_node_eval), for ragp's
	 * bound; kept by the sim whenever it has a workload, NULL otherwise. */
	const uint64_t (*node_fits)[2];
	/* Per node, prep_size bytes (policy_ops.prep) the policy's bound reads, at
	 * node_prep + n * prep_size, kept by the sim; NULL for a policy without prep(). */
	const void *node_prep;
	/* The policy's own state for this run (policy_ops.state), or NULL (none, or a context
	 * made outside a simulation) */
	const void *state;
};

/*
 * State a policy keeps per run, owned by its own file: the simulator creates it with the
 * run (and for a fork that switches to the policy), tells it of every change of a node,
 * clones it for a fork that keeps the policy, and releases it with the run. A stateful
 * policy is then one file: its state, these hooks, and its score reading ctx->state.
 */
struct policy_state_ops {
	/* A state for a run of jobs (the job set, in index order) on ctx->c: the simulator calls
	 * node() for every node before any score. */
	void *(*create)(const struct policy_ctx *ctx, const struct job *jobs, size_t njobs);
	/* Optional: a copy of st for a fork (its nodes as st's). NULL: create() and node() for
	 * every node. */
	void *(*clone)(const void *st);
	void (*release)(void *st);
	/* Optional: point ctx's fields at what st keeps (ctx->state is set already); called
	 * whenever the simulator sets ctx up, after its own fields. */
	void (*bind)(void *st, struct policy_ctx *ctx);
	/* Node n changed (a job came or went, a fault): bring st up to date. Called before the
	 * simulator's prep() of n, with ctx->job_of set. */
	void (*node)(void *st, const struct policy_ctx *ctx, size_t n);
};

enum {
	/* The score depends only on the node's spec, its free state and the job — not on the
	 * node's index or on which jobs it runs — so the simulator may score one node of each
	 * class of identical nodes and take that class's lowest index. Nor may it depend on the
	 * job's id, arrival or duration: jobs alike in everything else share the scores the
	 * simulator keeps (it asserts that a kept score is what score() returns again). */
	POLICY_F_BY_STATE = 1,
	/* The policy reads ctx->node_md and ctx->node_nofit: the simulator keeps them over the
	 * policy's dims (they are NULL for other policies). */
	POLICY_F_NODE_MD = 2,
	/* I/O admission by default (RAGP-I/O): sto and iocpu, where seen, are feasibility, so
	 * a job waits rather than oversubscribe them; --io-admission on|off overrides it
	 * (sim.h's io_admission). */
	POLICY_F_IO_ADMIT = 4,
	/* bound() costs several heap operations (ragp's does): the search then keeps more
	 * shape indexes (sim-class.h), each catching up with the classes that changed, where
	 * scanning every class costs more (fgd's cheap bound scans faster than it indexes). */
	POLICY_F_DEAR_BOUND = 8,
};

struct policy_ops {
	const char *name;    /* "ragp7" */
	const char *summary; /* one line for 'voidfit policies' */
	uint32_t dims;       /* DIM_BIT()s it sees by default */
	unsigned flags;      /* POLICY_F_* */
	/* Score placing j at p (feasible on the hard dims). Lower is better. */
	double (*score)(const struct policy_ctx *ctx, const struct job *j,
			const struct placement *p);
	/* Optional: choose the placement for j directly; returns 1 and fills *out, or 0 if j
	 * fits nowhere. NULL: the simulator runs the score loop. */
	int (*pick)(const struct policy_ctx *ctx, const struct job *j, struct placement *out);
	/* Optional, for policies without pick(): a lower bound of score() over every placement
	 * of j on node n (j may not fit there), from cheap per-node data. It must hold as
	 * computed in floating point: never above what score() returns. For a
	 * POLICY_F_BY_STATE policy the simulator then scores classes of nodes in bound order
	 * and stops once the next bound is past the best score so far; for another it skips a
	 * node whose bound is not below the best so far; the sampled search uses it too. The
	 * choice is the score loop's. NULL: every node is scored. */
	double (*bound)(const struct policy_ctx *ctx, const struct job *j, size_t n);
	/* Optional: the state the policy keeps per run (struct policy_state_ops); NULL: none. */
	const struct policy_state_ops *state;
	/* Optional, with bound(): what bound() needs of node n that does not depend on the job
	 * (its scales, free shares, ctx's per-node data), put into rec (prep_size bytes). The
	 * simulator calls it after every change of n and of ctx's per-node data, so a bound
	 * asked for many shapes reads one record instead of the node's state. */
	void (*prep)(const struct policy_ctx *ctx, size_t n, void *rec);
	size_t prep_size;
	/* Optional, with prep(): bound() of j on m nodes at once, from their records: out[i]
	 * is the double bound() returns on the node whose record (as prep() fills it) is at
	 * recs + pos[i] * prep_size. What depends on the job only is then worked out once. The
	 * simulator's class search bounds every class that may fit through it, from a copy of
	 * the classes' records kept in the order of the classes (sim-class.h). NULL: bound()
	 * is called node by node. */
	void (*bound_recs)(const struct policy_ctx *ctx, const struct job *j, const void *recs,
			   const int32_t *pos, size_t m, double *out);
	/* Optional, with bound_recs: keys of j on m records, as bound_recs takes them, each
	 * never above the bound bound_recs gives there (as computed), and far cheaper (no
	 * division: products of what the record keeps). The class search then scores first the
	 * class with the least key and bounds only the classes whose key is not above that
	 * score: the others cannot beat it. NULL: every class that may fit is bounded. */
	void (*bound_keys)(const struct policy_ctx *ctx, const struct job *j, const void *recs,
			   const int32_t *pos, size_t m, double *out);
};

extern const struct policy_ops *const policy_table[]; /* NULL-terminated */

/* The policy named name, or NULL. */
const struct policy_ops *policy_find(const char *name);

/* Defaults of the policy parameters. */
#define POLICY_LAMBDA           0.5
#define POLICY_MU               0.25
#define POLICY_FGD_PACK_TOL     0.08
#define POLICY_FGD_PACK_RESERVE 8.0

/* Every policy parameter at its default. */
void policy_param_init(double param[POLICY_NPARAM]);

#endif
