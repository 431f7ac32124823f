/*
 * frag.h — GPU fragmentation as the FGD paper measures it (Weng et al., ATC 2023), and its
 * multi-dimensional extension (DESIGN.md section 7).
 *
 * The target workload M is the set of the most frequent job shapes covering a share
 * (default 95 %) of the jobs, each with its popularity p_m. For node n and shape m:
 * if m fits on n, F_n(m) is the free GPU capacity on GPUs too small for m; otherwise all of
 * n's free GPU capacity. F_n = sum_m p_m F_n(m), in GPU-milli.
 */
#ifndef VOIDFIT_FRAG_H
#define VOIDFIT_FRAG_H

#include <stddef.h>
#include <stdint.h>

#include "cluster.h"
#include "job.h"

struct frag_shape {
	int64_t dem[DIM_N]; /* the shape's demand (hbm per job as in struct job) */
	int32_t num_gpu;    /* GPUs */
	int32_t gpu_milli;  /* share of each GPU */
	uint32_t gpu_spec;  /* allowed models, 0 = any */
	double p;           /* popularity: share of the jobs with this shape */
	int32_t need;       /* index in the workload's need[] (set by frag_workload_build) */
};

/* A distinct per-GPU need of the shapes: GPU-milli and HBM MiB per GPU (-1: the GPU's
 * share of its model's HBM). Shapes share few of them, so frag.c counts the GPUs that meet
 * each need once per node, not once per shape. */
struct frag_need {
	int32_t milli; /* GPU-milli on each GPU */
	int64_t hbm;   /* HBM MiB on each GPU, -1 for the model's share */
	double p;      /* summed popularity of the shapes with this need */
};

struct frag_workload {
	struct frag_shape *shapes; /* most popular first */
	size_t n;
	double price_share[DIM_N]; /* weight of each dim in the multi-dim measure, sums to 1 */
	/* Speed-ups filled by frag_workload_build; a workload built by hand leaves need NULL
	 * (every shape is then evaluated on its own). */
	struct frag_need *need; /* distinct needs of the GPU shapes (owned) */
	size_t nneed;
	double p_cpu; /* summed popularity of the CPU-only shapes */
	/* bit i of whole_over[k]: shape i (i < 64) takes whole GPUs, more than k of them
	 * (all 0 in a workload built by hand: its need is NULL) */
	uint64_t whole_over[CLUSTER_MAX_GPUS + 1];
	int need_all; /* every GPU shape has a need in need[] (their p sum theirs) */
	/* 0 (frag_workload_build's): a GPU shape that does not allow node n's GPU model
	 * strands all of n's free GPU, as the FGD paper counts it. 1: such a shape does not
	 * count on n at all (allowed-model-only, the measure fgd-pack places by; frag.c). */
	int allowed_only;
};

/* Build the target workload of jobs: the most frequent shapes covering coverage (0..1] of
 * them. Jobs that never ran count too (they are demand). Returns 0; never fails. */
int frag_workload_build(struct frag_workload *w, const struct job *jobs, size_t n, double coverage);
/* Free w's arrays; w may be NULL. */
void frag_workload_release(struct frag_workload *w);

/* F_n of node n in its current state, in GPU-milli. */
double frag_node(const struct cluster *c, size_t n, const struct frag_workload *w);
/* F_n of node p->node as it would be after placing j at p. */
double frag_node_after(const struct cluster *c, const struct placement *p, const struct job *j,
		       const struct frag_workload *w);
/* The multi-dimensional measure of node n: free capacity of the dims in mask that the target
 * workload cannot use, each as a share of the node's capacity, weighted by price_share. */
double frag_node_md(const struct cluster *c, size_t n, const struct frag_workload *w,
		    uint32_t mask);
/* F_n of node n (returned) and its frag_node_md over mask (in *md) in one pass over the
 * workload: the same values as the two calls. If nofit is not NULL it receives the summed
 * popularity of the shapes that do not fit on the node now (judged on the hard dims and the
 * shared dims of mask; 0 when mask is 0). A placement only takes room, so this share never
 * shrinks with it: node_nofit x free share after bounds each dim's stranded share after. */
double frag_node_both(const struct cluster *c, size_t n, const struct frag_workload *w,
		      uint32_t mask, double *md, double *nofit);
/* frag_node_both, and if fnofit is not NULL the summed popularity of the shapes m whose
 * F_n(m) is all of the node's free GPU-milli now: CPU-only shapes, and GPU shapes that do
 * not fit on the hard dims. A placement that takes g GPU-milli lowers those terms by
 * g p_m; the others only by what it takes from GPUs too small for m (frag_share_small).
 * If fits is not NULL, bit i of fits[0] says that shape i (i < 64) fits now on the hard
 * dims (as F_n judges), and of fits[1] that it fits as nofit judges (0 when mask is 0). */
double frag_node_eval(const struct cluster *c, size_t n, const struct frag_workload *w,
		      uint32_t mask, double *md, double *nofit, double *fnofit, uint64_t fits[2]);
/* The summed popularity of the GPU shapes of w for which a GPU with at least milli GPU-milli
 * and hbm MiB free, on a node whose GPUs have gpu_hbm MiB each (cluster_gpu_hbm), may still
 * be too small (they want more milli, or more HBM per GPU as frag.c reckons it on that
 * node). Placing a shared job on such a GPU lowers the stranded GPU (and HBM) of no other
 * shape: with (milli, hbm) the least free of the GPUs the job may take, this bounds how
 * much F_n and the stranded GPU and HBM of frag_node_md can drop. */
double frag_share_small(int64_t gpu_hbm, const struct frag_workload *w, int32_t milli, int64_t hbm);
/* The summed popularity of the CPU-only shapes of w. */
double frag_share_cpu(const struct frag_workload *w);
/* frag_node_md of node p->node as it would be after placing j at p; if gpu_frag is not NULL
 * it also receives frag_node_after (one pass over the workload for both). */
double frag_node_md_after(const struct cluster *c, const struct placement *p, const struct job *j,
			  const struct frag_workload *w, uint32_t mask, double *gpu_frag);

/* Default price_share (frag_workload_build sets it): gpu 0.70, cpu 0.10, mem 0.07, hbm 0.05,
 * net 0.03, sto 0.03, iocpu 0.02. */
extern const double frag_default_price_share[DIM_N];

#endif
