/*
 * k8s.h — policies as kube-scheduler score plugins (--scoring k8s), the way the Kubernetes
 * scheduler framework and the FGD artifact (Weng et al., ATC 2023; its simulator
 * kubernetes-scheduler-simulator) score nodes.
 *
 * A plugin gives each feasible node an integer score, higher better. A plugin with
 * NormalizeScore then maps its scores min-max onto 0..100 over the feasible nodes (integer
 * arithmetic: (s - lo) * 100 / (hi - lo), all 0 when hi = lo); the others return 0..100
 * themselves. The node with the highest weighted sum of its plugins' scores wins; ties go to
 * the node whose name sorts first (the artifact) or to a seeded random one (upstream).
 *
 * The FGD paper's six baselines are the artifact's plugins (K8S_NATIVE):
 *   fgd        trunc(100 sigmoid(-dF / 1000)), dF = F_n after - F_n before in GPU-milli;
 *              a shared job's node score is its best GPU's; no NormalizeScore
 *   dotprod    trunc(100 (1 - (d_cpu f_cpu / C^2 + d_gpu f_gpu / G^2) / 2)), d the demand and
 *              f the free amount before placement (node totals), C and G the largest node's
 *              cpu and GPU-milli in the cluster ("-dimext merge -norm max")
 *   packing    CPU-only jobs 0; an idle node max(33 - k, k) (k its GPUs); a node that must
 *              give idle GPUs max(50 - (idle GPUs taken), 33); else max(100 - s / 10, 50),
 *              s = sum over the GPUs taken (least free first) of trunc(free * 100 / 1000)
 *   clustering CPU-only jobs 0; else base + trunc(25 (G - free GPU-milli) / G), base 75
 *              when the node's GPU jobs are all of the job's type, 50 when some are, 25 on a
 *              node without GPU jobs, 0 otherwise (types: share of one GPU, or k GPUs)
 *   best-fit   trunc(100 (1 - (f_cpu - d_cpu) / 2C - (f_gpu - d_gpu) / 2G)), NormalizeScore
 *   random     100 on one feasible node drawn uniformly, 0 on the others
 * and the GPU a shared job takes is fgd's best GPU (the first of equal scores), random's a
 * random one, and for the others the one with the least free milli that fits (best fit).
 * Every other policy is K8S_DERIVED: its exact score s (lower better) becomes the integer
 * llround(-s * 10^6) with NormalizeScore, and its GPU is its exact choice.
 */
#ifndef VOIDFIT_K8S_H
#define VOIDFIT_K8S_H

#include <stddef.h>
#include <stdint.h>

#include "cluster.h"
#include "job.h"
#include "policy.h"

#define K8S_MAX_SCORE   100
#define K8S_MAX_PLUGINS 8

enum k8s_kind {
	K8S_DERIVED,    /* from the policy's exact score */
	K8S_FGD,        /* the artifact's FGDScore */
	K8S_DOTPROD,    /* DotProductScore, merge / max */
	K8S_PACKING,    /* GpuPackingScore */
	K8S_CLUSTERING, /* GpuClusteringScore */
	K8S_BEST_FIT,   /* BestFitScore */
	K8S_RANDOM,     /* RandomScore */
};

/* How a plugin chooses among a node's GPU choices (cluster_choices). */
enum k8s_gpusel {
	K8S_GPU_SCORE,  /* the choice with the best score, the first of equal ones */
	K8S_GPU_BEST,   /* the least free milli that fits, the first of equal ones */
	K8S_GPU_RANDOM, /* a GPU drawn uniformly among those that fit */
};

/* One score plugin and its weight. */
struct k8s_plugin {
	const struct policy_ops *ops; /* the policy it scores for */
	enum k8s_kind kind;
	int normalize;          /* NormalizeScore: min-max over the feasible nodes */
	enum k8s_gpusel gpusel; /* how it picks the GPU of a shared job */
	int64_t weight;         /* > 0 */
	int by_state;           /* its score depends on the node's state only */
};

/* The largest node's cpu (millicores) and GPU-milli in c: the artifact's MaxSpecCpu and
 * MaxSpecGpu (128,000 and 8,000 on openb). */
struct k8s_spec {
	int64_t cpu, gpu;
};
void k8s_spec_of(const struct cluster *c, struct k8s_spec *out);

/* The plugin of policy ops, weight 1. */
void k8s_plugin_of(const struct policy_ops *ops, struct k8s_plugin *out);

/* The artifact's FGD score of a fragmentation change dF (GPU-milli): trunc(100 sigmoid(-dF /
 * 1000)); 50 for 0, one step per about 40 milli near it. Non-increasing in dF. */
int64_t k8s_fgd_of(double dfrag);
/* A derived plugin's integer of an exact score s: llround(-s * 10^6), clamped to +-2^62.
 * Non-increasing in s. */
int64_t k8s_derived_of(double s);

/*
 * The raw score (higher better) of plugin pl for j on node n, whose choices (cluster_choices,
 * k >= 1 of them) are ch; *pick gets the index of the choice its GPU selection takes
 * (K8S_GPU_RANDOM: the caller draws, *pick is 0). ctx is the run's policy context (cluster,
 * workload, node F_n, job_of). spec from k8s_spec_of. K8S_RANDOM gives 0: the caller gives
 * 100 to the node it draws.
 */
int64_t k8s_node_score(const struct k8s_plugin *pl, const struct policy_ctx *ctx,
		       const struct k8s_spec *spec, const struct job *j, size_t n,
		       const struct placement *ch, int k, int *pick);

/* The artifact's NormalizeScore over v[0..n): min-max onto 0..K8S_MAX_SCORE in integers;
 * all 0 when they are equal. */
void k8s_normalize(int64_t *v, size_t n);

/* How many GPUs of node n are in the state of the GPU choice p takes (its first GPU): a
 * random GPU is this choice with that weight. */
int k8s_gpu_weight(const struct cluster *c, size_t n, const struct placement *p);

/* Shuffle the ranks rank[0..n) (a permutation of 0..n-1, each node's place in name order)
 * into a random permutation drawn from seed: node i then ranks where rank[i] was in that
 * permutation. The same seed gives the same order. */
void k8s_shuffle_ranks(int32_t *rank, size_t n, uint64_t seed);

/* Parse "NAME=W,..." (policy names, integer weights 1..10^6) into pl[0..*n), at most max;
 * 0, or -1 with *bad pointing at the word that is wrong. */
int k8s_weights_parse(const char *s, struct k8s_plugin *pl, size_t max, size_t *n,
		      const char **bad);

#endif
