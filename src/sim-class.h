/*
 * sim-class.h — classes of identical nodes, and per job shape an index of their scores;
 * private to the simulator (sim*.c).
 *
 * Two nodes are in one class when they have the same spec (capacities, GPUs, model) and the
 * same state (capacity now, used, free milli and HBM of each GPU). A policy flagged
 * POLICY_F_BY_STATE scores every node of a class alike, so the simulator scores one node of
 * each class — the lowest-indexed, which is the one the score loop's tie-break would take —
 * and picks exactly what the full loop picks.
 *
 * A class's state never changes while it lives (a node that changes moves to another
 * class), so its best score for a job shape never changes either. For each recent job shape
 * (struct sim_key) a heap of (score, lowest node) over the classes answers "which class is
 * best" by evaluating only the classes created since the shape was last asked (and those
 * whose lowest node went down, which changes the tie-break), or every live class again when
 * more than four times as many changed since as there are. A shape asked for the first time
 * gets no index (a shape seen once costs none): every class that may fit is bounded, the one
 * with the least bound is scored, and only the classes whose bound is not above that score
 * are put in order. Shapes asked before are known by a tag of their hash per slot of a
 * table (SIM_SEEN slots), so tens of thousands of distinct shapes stay told apart.
 *
 * For a policy whose bound reads a per-node record (policy_ops.prep and bound_recs: ragp),
 * each live class keeps a copy of its nodes' record (they are all the same), in live order
 * beside lrep and lfree, taken again whenever a member is updated: bounding every class
 * that may fit then reads the records in the order they lie, in one call for all. With keys
 * as well (policy_ops.bound_keys: cheaper lower bounds of those bounds), such a search first
 * scores the class with the least key and bounds only the classes whose key is not above
 * that score (sim_classes_best's keys).
 */
#ifndef VOIDFIT_SIM_CLASS_H
#define VOIDFIT_SIM_CLASS_H

#include <stddef.h>
#include <stdint.h>

#include "cluster.h"

struct sim_class;
struct sim_kidx;

/*
 * What a BY_STATE policy's choice on a class can depend on besides the class: the job's
 * demand on the dims the policy sees and on the hard dims (feasibility), its GPU count,
 * share, allowed models and class. (Not its id, arrival or duration: a BY_STATE policy must
 * not look at those.)
 */
struct sim_key {
	int64_t dem[DIM_N]; /* -2 on dims outside the mask */
	int32_t num_gpu, gpu_milli;
	uint32_t gpu_spec;
	uint32_t cls;
	uint64_t hash;
};
/* The key of j for a policy seeing the dims in mask. */
void sim_key_make(struct sim_key *key, const struct job *j, uint32_t mask);

struct sim_classes {
	const struct cluster *c;
	int32_t *node_cls;     /* class of each node */
	int32_t *spec_cls;     /* spec class of each node (static) */
	struct sim_class *cls; /* class records, live and free */
	size_t ncls, clscap;
	struct {
		uint32_t gen;    /* = cls[id].gen */
		int32_t livepos; /* = cls[id].livepos, -1 when dead */
	} * hot;                 /* per record, dense: what the indexes look at most */
	size_t hotcap;
	int32_t *freeids; /* ids of dead records, for reuse */
	size_t nfree, freecap;
	int32_t *live;       /* ids of the live classes (any order) */
	int32_t *lrep;       /* per live position: the class's lowest-indexed node */
	int64_t (*lfree)[3]; /* per live position: free cpu, mem, gpu of its nodes */
	/* per live position: a copy of the policy's prep record of its nodes (they all have
	 * the same), recsize bytes each, so that bounding the classes reads them in order;
	 * NULL without records */
	unsigned char *lrec;
	size_t nlive, livecap;
	const unsigned char *prep; /* the policy's per-node records (sim_classes_init), or NULL */
	size_t recsize;
	int32_t *tab;           /* open-addressing hash of live classes: -1 empty, -2 deleted */
	size_t tabcap, tabused; /* tabused counts deleted slots too */
	uint32_t *mark;         /* per node, for de-duplicating a heap (compaction) */
	uint32_t gen;
	/* Classes to (re)evaluate for every key: created, or their lowest node went down. */
	struct {
		int32_t id;
		uint32_t gen;
	} * log;
	size_t nlog, logcap;
	struct sim_kidx *keys; /* the per-shape indexes (maxkeys of them at most) */
	size_t maxkeys;        /* at most so many (sim_classes_init) */
	uint64_t *khash;       /* their keys' hashes (parallel to keys: a short scan) */
	struct sim_kidx *scan; /* scratch heap of a bounded scan (owned, made on first use) */
	size_t nkeys;
	int32_t *fit;   /* scratch: live positions that may fit a job (fit_list) */
	double *fitval; /* scratch: their bounds (with records) */
	size_t fitcap, fitvalcap;
	uint64_t tick;            /* for evicting the least recently used index */
	uint64_t queries, reuses; /* when shapes never repeat, indexes are pure cost */
	/* Shapes asked before: per slot (hash mod SIM_SEEN) the high half of the last hash
	 * asked there, or 1 bit set so that 0 is empty. A shape gets an index on its second
	 * query, so one-off shapes cost no index; a shape whose slot another took since looks
	 * new again (made on first use, SIM_SEEN x 4 bytes). */
	uint32_t *seen;
};

/* Slots of the table of shapes asked before (sim_classes.seen): a power of two, several
 * times the distinct shapes of a long trace (15 k in 50 k generated jobs) so that few
 * evict each other. */
#define SIM_SEEN (1u << 16)

/* Shape indexes kept by default, and with a dear bound (POLICY_F_DEAR_BOUND); they hold
 * at most SIM_KEY_ENTRIES entries together (about one per live class each: ~100 MB). */
#define SIM_KEYS        128
#define SIM_KEYS_DEAR   512
#define SIM_KEY_ENTRIES (4u << 20)

/* Build the classes of c's nodes in their current state, keeping at most maxkeys shape
 * indexes (SIM_KEYS, or SIM_KEYS_DEAR for a policy whose bound is dear). prep, if not NULL,
 * holds recsize bytes per node (the policy's records, policy_ops.prep, by node index): each
 * class keeps a copy of its nodes' record, taken again at each sim_classes_update of a
 * member, so prep must outlive k and a node's record must be brought up to date before
 * sim_classes_update of the node. */
void sim_classes_init(struct sim_classes *k, const struct cluster *c, size_t maxkeys,
		      const void *prep, size_t recsize);
/* Free what k owns; k may be NULL. */
void sim_classes_release(struct sim_classes *k);
/* Node n's state or record changed: move it to the class of its new state, and take its
 * record as its class's. */
void sim_classes_update(struct sim_classes *k, size_t n);
/* The record kept of live class i (< sim_classes_count), or NULL without records. */
static inline const void *sim_classes_rec(const struct sim_classes *k, size_t i)
{
	return k->lrec ? k->lrec + i * k->recsize : NULL;
}
/* Number of live classes, and the lowest-indexed node of live class i (< that number). */
size_t sim_classes_count(const struct sim_classes *k);
static inline int32_t sim_classes_rep(const struct sim_classes *k, size_t i)
{
	return k->lrep[i];
}

/* The best score of the job being placed on node n: 1 and *score, or 0 if it fits there in
 * no way. */
typedef int (*sim_class_eval)(void *u, int32_t n, double *score);
/* Lower bounds of the job's score on m classes at once, from their records: out[i] for the
 * class whose record is at recs + pos[i] * recsize (pos increasing). */
typedef void (*sim_class_bounds)(void *u, const void *recs, const int32_t *pos, size_t m,
				 double *out);
/*
 * The class whose lowest-indexed node has the lowest (score, node index) for a job of key,
 * scoring with ev: returns 1 and that node (and its score), or 0 if the job fits on no
 * class. A class whose free cpu, mem or GPU is below need (cpu, mem, gpu) is skipped
 * without scoring. bd, if not NULL, gives a lower bound of ev's score on a node (it must
 * never exceed it); classes are then scored in bound order, only until no bound left can
 * beat the best score. bds, if not NULL where k keeps records (sim_classes_init's prep),
 * gives the same bounds from the classes' records, many classes in one call, instead of bd.
 * keys, if not NULL with bds, gives cheap lower bounds of bds's bounds from the same records
 * (policy_ops.bound_keys): a search that would bound every class that may fit scores the
 * class with the least key first, and bounds only the classes whose key is not above that
 * score.
 */
int sim_classes_best(struct sim_classes *k, const struct sim_key *key, const int64_t need[3],
		     sim_class_eval ev, sim_class_eval bd, sim_class_bounds bds,
		     sim_class_bounds keys, void *u, int32_t *node, double *score);

#endif
