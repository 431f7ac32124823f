/*
 * gen.c — the standard synthetic scenarios (parameters in the tables below, documented in
 * voidfit.1 under 'gen').
 *
 * Three independent PRNG streams, each seeded from (seed, scenario, stream): nodes, jobs and
 * faults, so changing --jobs does not change the nodes. The job stream is run twice: the
 * first pass sums GPU-seconds so that the arrival rate gives the scenario's offered GPU
 * load; the second writes. Arrivals are a Poisson process (exponential gaps) over a
 * horizon T = sum(GPUs x duration) / (load x cluster GPUs).
 */
#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "enrich.h"
#include "gen.h"
#include "gpumodel.h"
#include "job.h"
#include "outfile.h"
#include "rng.h"

/* A node group: a share (weight) of --nodes, all with the same capacities. */
struct group_def {
	const char *name;
	const char *model; /* NULL: no GPUs */
	int gpus;
	int64_t cpu, mem, net, sto, iocpu; /* millicores, MiB, MB/s, MB/s, millicores */
	int weight;
};

/* A lognormal: median, sigma, clamp [lo, hi]. */
struct logn {
	double med, sigma, lo, hi;
};

/* Per class: I/O per GPU (per job for CPU jobs) and duration in seconds. */
struct class_def {
	struct logn net, sto, iocpu, dur;
};

/* A weighted choice of an integer. */
struct pick {
	int value, weight;
};

/* A gpu_spec constraint: with probability prob (per job of class cls), the job allows only
 * the models of spec present in the cluster. */
struct spec_rule {
	int cls;
	double prob;
	const char *spec;
};

struct scenario_def {
	const char *name, *summary;
	const struct group_def *groups;
	int ngroups;
	double mix[JOB_NCLASS]; /* class shares, summing to 1 */
	double sto_scale;       /* multiplies the storage demand medians of class_defs */
	double load;            /* offered GPU load: GPU-seconds / (GPUs x horizon) */
	const struct spec_rule *specs;
	int nspecs;
	int faults; /* 1: write storage and network faults */
	int llm;    /* 1: the jobs are llm's kinds (draw_llm), with a workers column */
};

/* clang-format off */
static const struct group_def balanced_groups[] = {
	{"a100", "A100", 8, 128000, 1048576, 12500, 4000, 16000, 60},
	{"t4",   "T4",   4,  64000,  262144,  3125, 2000,  8000, 30},
	{"cpu",  NULL,   0,  96000,  393216,  3125, 1000,  4000, 10},
};
/* The same cluster with half the storage bandwidth: what a shared file system gives. */
static const struct group_def stress_groups[] = {
	{"a100", "A100", 8, 128000, 1048576, 12500, 2000, 16000, 60},
	{"t4",   "T4",   4,  64000,  262144,  3125, 1000,  8000, 30},
	{"cpu",  NULL,   0,  96000,  393216,  3125,  500,  4000, 10},
};
/* Shaped after the Alibaba gpu-v2023 cluster: many models, 1 to 8 GPUs a node. */
static const struct group_def irregular_groups[] = {
	{"v100m16-1", "V100M16", 1,   8000,   32768,  1250, 1000,  2000,  3},
	{"v100m16-4", "V100M16", 4,  32000,  131072,  3125, 2000,  4000,  4},
	{"v100m32-8", "V100M32", 8,  96000,  786432,  3125, 3000,  8000,  4},
	{"p100-2",    "P100",    2,  16000,  122880,  1250, 1000,  2000, 10},
	{"t4-2",      "T4",      2, 104000,  524288,  3125, 2000,  8000, 28},
	{"a10-1",     "A10",     1, 128000, 1048576,  3125, 2000,  8000,  2},
	{"g2-8",      "G2",      8,  96000,  393216,  3125, 3000,  8000, 35},
	{"g3-8",      "G3",      8, 128000,  786432, 12500, 4000, 16000,  4},
	{"h100-8",    "H100",    8, 192000, 2097152, 25000, 8000, 24000,  3},
	{"cpu",       NULL,      0,  96000,  524288,  3125, 1000,  4000,  7},
};

/* An LLM fleet: homogeneous nodes of eight A100s (Acme's clusters, Hu et al., NSDI 2024,
 * are of A100 nodes of 8 GPUs; the capacities besides the GPUs are assumed). */
static const struct group_def llm_groups[] = {
	{"a100-8", "A100", 8, 128000, 2097152, 25000, 8000, 16000, 1},
};

/* I/O per GPU in MB/s (net, sto) and millicores (iocpu); durations in seconds. */
static const struct class_def classes[JOB_NCLASS] = {
	[JOB_INFER] = {{20, 1.0, 1, 1000}, {5, 1.0, 0, 200}, {200, 0.5, 50, 2000},
		       {3 * 3600, 1.0, 600, 3 * 86400}},
	[JOB_TRAIN] = {{100, 1.0, 5, 3000}, {100, 0.8, 10, 2000}, {500, 0.5, 100, 4000},
		       {2 * 3600, 1.2, 300, 3 * 86400}},
	[JOB_BATCH] = {{30, 1.0, 1, 1000}, {60, 1.0, 5, 1500}, {300, 0.5, 50, 3000},
		       {40 * 60, 1.0, 60, 86400}},
	[JOB_CPU]   = {{10, 1.0, 1, 500}, {20, 1.0, 1, 500}, {100, 0.5, 20, 1000},
		       {20 * 60, 1.0, 30, 86400}},
};

/* GPU shares of one-GPU inference and batch jobs (Alibaba-like fractional GPUs), and GPUs
 * of training jobs (whole GPUs). */
static const struct pick infer_milli[] = {{1000, 30}, {750, 10}, {500, 20}, {300, 10},
					  {250, 15}, {200, 10}, {100, 5}};
static const struct pick batch_milli[] = {{1000, 50}, {500, 30}, {250, 20}};
static const struct pick train_gpus[] = {{1, 45}, {2, 20}, {4, 20}, {8, 15}};
/* CPU per whole GPU (scaled by the share, at least 1000) and GiB of memory per core. */
static const struct pick cpu_per_gpu[] = {{4000, 30}, {6000, 30}, {8000, 25}, {12000, 15}};
static const struct pick cpu_only_cpu[] = {{1000, 20}, {2000, 30}, {4000, 30}, {8000, 15},
					   {16000, 5}};
static const struct pick gib_per_core[] = {{2, 30}, {4, 50}, {8, 20}};

/*
 * llm's jobs, by kind (shares of the job count). What the published fleets say and we take:
 * a few pretraining jobs, each a gang of whole 8-GPU nodes, hold most of the GPU time, while
 * evaluation jobs are most of the jobs and short (Acme, Hu et al., NSDI 2024, its workload
 * characterisation);
 * a large training job spans from a few nodes to thousands (Meta's Llama 3 report: 16,384
 * H100s). The shares, the gang sizes' weights and the duration medians below are ours,
 * assumed in that shape, not measured: see voidfit(7).
 */
enum { LLM_PRETRAIN, LLM_FINETUNE, LLM_INFER, LLM_EVAL, LLM_NKIND };
static const struct {
	int cls, weight;   /* job class; share of jobs, in percent */
	struct logn dur;   /* seconds */
	const struct pick *gpus; /* GPUs of a worker */
	int ngpus;
} llm_kinds[LLM_NKIND] = {
	[LLM_PRETRAIN] = {JOB_TRAIN, 6, {8 * 3600, 1.0, 1800, 7 * 86400}, NULL, 0},
	[LLM_FINETUNE] = {JOB_TRAIN, 24, {3 * 3600, 1.0, 600, 2 * 86400}, NULL, 0},
	[LLM_INFER] = {JOB_INFER, 20, {12 * 3600, 1.0, 3600, 7 * 86400}, NULL, 0},
	[LLM_EVAL] = {JOB_BATCH, 50, {15 * 60, 1.2, 60, 12 * 3600}, NULL, 0},
};
/* Pretraining gangs: nodes of 8 GPUs, 2 to 64 of them. */
static const struct pick llm_gang_nodes[] = {{2, 30}, {4, 25}, {8, 20}, {16, 12}, {32, 8},
					     {64, 5}};
/* One-node jobs: GPUs of fine-tuning, inference replicas and evaluation. */
static const struct pick llm_finetune_gpus[] = {{8, 60}, {4, 25}, {2, 10}, {1, 5}};
static const struct pick llm_infer_gpus[] = {{1, 40}, {2, 20}, {4, 20}, {8, 20}};
static const struct pick llm_eval_gpus[] = {{1, 50}, {2, 15}, {4, 15}, {8, 20}};

static const struct spec_rule balanced_specs[] = {
	{JOB_TRAIN, 0.10, "A100"},
	{JOB_INFER, 0.10, "T4"},
};
static const struct spec_rule irregular_specs[] = {
	{JOB_TRAIN, 0.15, "V100M32|G3|H100"},
	{JOB_INFER, 0.10, "T4|A10"},
	{JOB_BATCH, 0.05, "P100|V100M16"},
};

#define N(a) (int)(sizeof(a) / sizeof *(a))
static const struct scenario_def scenarios[GEN_NSCENARIO] = {
	[GEN_BALANCED] = {"balanced",
		"A100x8 and T4x4 nodes plus CPU nodes; storage sized for the demand",
		balanced_groups, N(balanced_groups), {0.30, 0.35, 0.20, 0.15}, 1.0, 0.85,
		balanced_specs, N(balanced_specs), 0, 0},
	[GEN_IRREGULAR] = {"irregular",
		"ten heterogeneous node groups (1-8 GPUs, eight models) as in Alibaba gpu-v2023",
		irregular_groups, N(irregular_groups), {0.40, 0.25, 0.22, 0.13}, 1.0, 0.85,
		irregular_specs, N(irregular_specs), 0, 0},
	[GEN_STORAGE_STRESS] = {"storage-stress",
		"balanced's jobs with 4x storage demand on nodes with half the storage bandwidth",
		stress_groups, N(stress_groups), {0.30, 0.35, 0.20, 0.15}, 4.0, 0.85,
		balanced_specs, N(balanced_specs), 0, 0},
	[GEN_HARD] = {"hard",
		"storage-stress plus faults: storage halved for 6h on 10% of GPU nodes, NIC flaps",
		stress_groups, N(stress_groups), {0.30, 0.35, 0.20, 0.15}, 4.0, 0.90,
		balanced_specs, N(balanced_specs), 1, 0},
	[GEN_LLM] = {"llm",
		"A100x8 nodes; training gangs of 2-64 nodes, fine-tuning, inference, evaluation",
		llm_groups, N(llm_groups), {0.20, 0.30, 0.50, 0}, 1.0, 0.85, NULL, 0, 0, 1},
};
/* clang-format on */

enum { STREAM_NODES = 1, STREAM_JOBS = 2, STREAM_FAULTS = 3, STREAM_TEMPLATES = 4 };

const char *gen_scenario_name(int s)
{
	assert(s >= 0 && s < GEN_NSCENARIO);
	return scenarios[s].name;
}

const char *gen_scenario_summary(int s)
{
	assert(s >= 0 && s < GEN_NSCENARIO);
	return scenarios[s].summary;
}

int gen_scenario_find(const char *name)
{
	for (int s = 0; s < GEN_NSCENARIO; s++)
		if (!strcmp(name, scenarios[s].name))
			return s;
	return -1;
}

static void stream(struct rng *r, const struct gen_params *p, int which)
{
	rng_seed(r, rng_hash(p->seed, (uint64_t)p->scenario + 1, (uint64_t)which));
}

static int pick(struct rng *r, const struct pick *t, int n)
{
	int total = 0;
	for (int i = 0; i < n; i++)
		total += t[i].weight;
	int x = (int)rng_below(r, (uint64_t)total);
	for (int i = 0; i < n; i++) {
		if (x < t[i].weight)
			return t[i].value;
		x -= t[i].weight;
	}
	assert(0);
	return t[n - 1].value;
}
#define PICK(r, t) pick(r, t, N(t))

/* A standard normal draw (Box-Muller, one of the pair). */
static double normal(struct rng *r)
{
	static const double two_pi = 6.283185307179586476925;
	double u1 = ((double)(rng_next(r) >> 11) + 0.5) * 0x1.0p-53;
	double u2 = rng_unit(r);
	return sqrt(-2 * log(u1)) * cos(two_pi * u2);
}

static double lognormal(struct rng *r, const struct logn *l, double scale)
{
	double x = exp(log(l->med * scale) + l->sigma * normal(r));
	return x < l->lo ? l->lo : x > l->hi * scale ? l->hi * scale : x;
}

#define GROUPS_MAX 16 /* node groups of a scenario */

/* Node counts per group (count has GROUPS_MAX slots): cumulative rounding of the weights,
 * so they sum to nnodes. */
static void group_counts(const struct scenario_def *sc, int64_t nnodes, int64_t *count)
{
	int wsum = 0, wcum = 0;
	assert(sc->ngroups <= GROUPS_MAX);
	for (int g = 0; g < sc->ngroups; g++)
		wsum += sc->groups[g].weight;
	int64_t prev = 0;
	for (int g = 0; g < sc->ngroups; g++) {
		wcum += sc->groups[g].weight;
		int64_t upto = (int64_t)llround((double)nnodes * wcum / wsum);
		count[g] = upto - prev;
		prev = upto;
	}
}

/* What the nodes of p add up to, for the jobs: GPUs, cores, the biggest node's GPUs, and
 * which GPU models are present (a mask of model ids). */
struct cluster_shape {
	int64_t gpus, cpu_milli;
	int max_gpus;
	int64_t max_gpu_nodes; /* nodes with max_gpus GPUs: the most workers a gang of them gets */
	uint32_t models;
	const struct group_def *present[GROUPS_MAX]; /* the groups with nodes */
	int npresent;
};

static void cluster_shape(const struct gen_params *p, struct cluster_shape *cs)
{
	const struct scenario_def *sc = &scenarios[p->scenario];
	int64_t count[GROUPS_MAX];
	group_counts(sc, p->nnodes, count);
	memset(cs, 0, sizeof *cs);
	for (int g = 0; g < sc->ngroups; g++) {
		const struct group_def *gd = &sc->groups[g];
		if (!count[g])
			continue;
		cs->present[cs->npresent++] = gd;
		cs->gpus += count[g] * gd->gpus;
		cs->cpu_milli += count[g] * gd->cpu;
		if (gd->gpus > cs->max_gpus) {
			cs->max_gpus = gd->gpus;
			cs->max_gpu_nodes = 0;
		}
		if (gd->gpus == cs->max_gpus)
			cs->max_gpu_nodes += count[g];
		if (gd->model)
			cs->models |= 1u << gpumodel_find(gd->model);
	}
}

static int write_failed(FILE *f, const char *fname, struct err *e)
{
	if (ferror(f))
		return err_set(e, VF_EIO, "%s: write failed: %s", fname, strerror(errno));
	return VF_OK;
}

int gen_write_nodes(const struct gen_params *p, FILE *f, const char *fname, struct err *e)
{
	const struct scenario_def *sc = &scenarios[p->scenario];
	int64_t count[GROUPS_MAX], k = 0;
	group_counts(sc, p->nnodes, count);
	fputs(GEN_NODES_HEADER "\n", f);
	for (int g = 0; g < sc->ngroups; g++) {
		const struct group_def *gd = &sc->groups[g];
		int64_t hbm = gd->model ? gpumodel_get(gpumodel_find(gd->model))->hbm_mib : 0;
		for (int64_t i = 0; i < count[g]; i++, k++)
			fprintf(f, "n%04lld,%s,%s,%lld,%lld,%d,%lld,%lld,%lld,%lld\n", (long long)k,
				gd->name, gd->model ? gd->model : "", (long long)gd->cpu,
				(long long)gd->mem, gd->gpus, (long long)hbm, (long long)gd->net,
				(long long)gd->sto, (long long)gd->iocpu);
	}
	return write_failed(f, fname, e);
}

/* One generated job, before its arrival time is known. */
struct gjob {
	int cls, num_gpu, milli;
	int workers;                                      /* W, each worker with the demand below */
	const struct logn *dur;                           /* what its duration is drawn from */
	int64_t duration, cpu, mem, hbm, net, sto, iocpu; /* hbm -1: share of the model's */
	char spec[64];
};

/* The models of spec that are present in the cluster, '|'-joined into out ("" if none). */
static void present_models(const char *spec, uint32_t present, char *out, size_t len)
{
	size_t o = 0;
	out[0] = '\0';
	for (const char *s = spec; *s;) {
		size_t n = strcspn(s, "|");
		char name[32];
		snprintf(name, sizeof name, "%.*s", (int)n, s);
		int id = gpumodel_find(name);
		assert(id >= 0);
		if (present & (1u << id)) {
			int w = snprintf(out + o, len - o, "%s%s", o ? "|" : "", name);
			assert(w > 0 && (size_t)w < len - o);
			o += (size_t)w;
		}
		s += n + (s[n] == '|');
	}
}

/* 1 if group gd can hold a job of num_gpu GPUs allowed on the models of spec. */
static int group_suits(const struct group_def *gd, int num_gpu, const char *spec)
{
	if (gd->gpus < num_gpu)
		return 0;
	if (!*spec || !num_gpu)
		return 1;
	uint32_t mask = 0;
	int rc = gpumodel_mask(spec, &mask, NULL);
	assert(rc == 0);
	(void)rc;
	return gd->model && (mask & (1u << gpumodel_find(gd->model)));
}

/* Make j fit at least one node of the cluster, so no job waits forever: drop a spec no
 * group of enough GPUs satisfies, and cut cpu and mem to the roomiest suitable group. */
static void make_feasible(const struct cluster_shape *cs, struct gjob *j)
{
	const struct group_def *best = NULL;
	for (int pass = 0; pass < 2 && !best; pass++) {
		for (int g = 0; g < cs->npresent; g++) {
			const struct group_def *gd = cs->present[g];
			if (!group_suits(gd, j->num_gpu, j->spec))
				continue;
			if (gd->cpu >= j->cpu && gd->mem >= j->mem)
				return;
			if (!best || gd->cpu + gd->mem / 8 > best->cpu + best->mem / 8)
				best = gd;
		}
		if (!best)
			j->spec[0] = '\0';
	}
	if (!best)
		return; /* no group has enough GPUs: only with no GPU nodes at all */
	if (j->cpu > best->cpu)
		j->cpu = best->cpu;
	if (j->mem > best->mem)
		j->mem = best->mem;
}

/* Cut j's bandwidth and I/O CPU demand to the most any suitable group offers: a job alone on
 * a node runs at full speed, so stalls come from sharing, not from a demand no node meets. */
static void clamp_io(const struct cluster_shape *cs, struct gjob *j)
{
	int64_t net = 0, sto = 0, iocpu = 0;
	for (int g = 0; g < cs->npresent; g++) {
		const struct group_def *gd = cs->present[g];
		if (!group_suits(gd, j->num_gpu, j->spec))
			continue;
		net = gd->net > net ? gd->net : net;
		sto = gd->sto > sto ? gd->sto : sto;
		iocpu = gd->iocpu > iocpu ? gd->iocpu : iocpu;
	}
	if (!net && !sto && !iocpu)
		return; /* no suitable group: make_feasible said so already */
	j->net = j->net > net ? net : j->net;
	j->sto = j->sto > sto ? sto : j->sto;
	j->iocpu = j->iocpu > iocpu ? iocpu : j->iocpu;
}

/* cpu, mem, HBM and I/O of j (class, GPUs and share set) as every scenario draws them. */
static void draw_demand(struct rng *r, const struct scenario_def *sc,
			const struct cluster_shape *cs, struct gjob *j);

/* An llm job: its kind, then its workers and GPUs; duration by kind; the rest as draw_job. */
static void draw_llm(struct rng *r, const struct scenario_def *sc, const struct cluster_shape *cs,
		     struct gjob *j)
{
	int x = (int)rng_below(r, 100), k = 0;
	while (k < LLM_NKIND - 1 && x >= llm_kinds[k].weight)
		x -= llm_kinds[k++].weight;
	j->cls = llm_kinds[k].cls;
	j->dur = &llm_kinds[k].dur;
	j->workers = 1;
	j->milli = 1000;
	switch (k) {
	case LLM_PRETRAIN: /* whole nodes, no more than the cluster has */
		j->num_gpu = cs->max_gpus;
		j->workers = PICK(r, llm_gang_nodes);
		if (j->workers > cs->max_gpu_nodes)
			j->workers = cs->max_gpu_nodes > 1 ? (int)cs->max_gpu_nodes : 1;
		break;
	case LLM_FINETUNE:
		j->num_gpu = PICK(r, llm_finetune_gpus);
		break;
	case LLM_INFER:
		j->num_gpu = PICK(r, llm_infer_gpus);
		break;
	default:
		j->num_gpu = PICK(r, llm_eval_gpus);
		break;
	}
	if (j->num_gpu > cs->max_gpus)
		j->num_gpu = cs->max_gpus > 0 ? cs->max_gpus : 1;
	draw_demand(r, sc, cs, j);
}

static void draw_job(struct rng *r, const struct scenario_def *sc, const struct cluster_shape *cs,
		     struct gjob *j)
{
	if (sc->llm) {
		draw_llm(r, sc, cs, j);
		return;
	}
	double u = rng_unit(r), acc = 0;
	j->cls = JOB_CPU;
	j->workers = 1;
	for (int c = 0; c < JOB_NCLASS; c++) {
		acc += sc->mix[c];
		if (u < acc) {
			j->cls = c;
			break;
		}
	}
	j->dur = &classes[j->cls].dur;
	j->num_gpu = 0;
	j->milli = 0;
	if (j->cls == JOB_TRAIN) {
		j->num_gpu = PICK(r, train_gpus);
		if (j->num_gpu > cs->max_gpus)
			j->num_gpu = cs->max_gpus > 0 ? cs->max_gpus : 1;
		j->milli = 1000;
	} else if (j->cls != JOB_CPU) {
		j->num_gpu = 1;
		j->milli = j->cls == JOB_INFER ? PICK(r, infer_milli) : PICK(r, batch_milli);
	}
	draw_demand(r, sc, cs, j);
}

static void draw_demand(struct rng *r, const struct scenario_def *sc,
			const struct cluster_shape *cs, struct gjob *j)
{
	const struct class_def *cd = &classes[j->cls];
	double gpus = j->num_gpu ? j->num_gpu * (j->milli / 1000.0) : 1.0;
	if (j->num_gpu) {
		int64_t c = (int64_t)(PICK(r, cpu_per_gpu) * gpus);
		j->cpu = c < 1000 ? 1000 : c / 500 * 500;
	} else
		j->cpu = PICK(r, cpu_only_cpu);
	j->mem = j->cpu * PICK(r, gib_per_core) * 1024 / 1000;
	/* Half the inference jobs state their HBM: around their share of a 16 GiB GPU. */
	j->hbm = -1;
	if (j->cls == JOB_INFER && rng_unit(r) < 0.5) {
		int64_t h = (int64_t)((0.5 + rng_unit(r)) * j->milli / 1000.0 * 16384) / 256 * 256;
		j->hbm = h < 1024 ? 1024 : h > 16384 ? 16384 : h;
	}
	j->duration = (int64_t)llround(lognormal(r, j->dur, 1.0));
	/* on request levels, as the built-in profile: real requests take few values */
	j->net = (int64_t)enrich_snap(enrich_bw_levels, ENRICH_BW_NLEVELS,
				      lognormal(r, &cd->net, 1.0) * gpus);
	j->sto = (int64_t)enrich_snap(enrich_bw_levels, ENRICH_BW_NLEVELS,
				      lognormal(r, &cd->sto, sc->sto_scale) * gpus);
	j->iocpu = (int64_t)enrich_snap(enrich_core_levels, ENRICH_CORE_NLEVELS,
					lognormal(r, &cd->iocpu, 1.0) * gpus);
	j->spec[0] = '\0';
	for (int k = 0; k < sc->nspecs; k++) {
		if (sc->specs[k].cls != j->cls)
			continue;
		if (rng_unit(r) < sc->specs[k].prob)
			present_models(sc->specs[k].spec, cs->models, j->spec, sizeof j->spec);
	}
	make_feasible(cs, j);
	clamp_io(cs, j);
}

/*
 * Where the jobs' requests come from: each job drawn on its own, or, with p->templates,
 * from templates drawn once (from a stream of their own, so they do not depend on --jobs),
 * the k-th picked with weight 1/k, each job then drawing its duration alone. Real traces
 * repeat requests this way: openb's 8,152 pods have 151 shapes.
 */
struct job_source {
	const struct scenario_def *sc;
	const struct cluster_shape *cs;
	struct gjob *tpl;
	double *cum; /* cumulative weights of the templates */
	int64_t n;
};

static void source_init(struct job_source *src, const struct gen_params *p,
			const struct cluster_shape *cs)
{
	memset(src, 0, sizeof *src);
	src->sc = &scenarios[p->scenario];
	src->cs = cs;
	if (p->templates <= 0)
		return;
	struct rng r;
	stream(&r, p, STREAM_TEMPLATES);
	src->n = p->templates;
	src->tpl = xmalloc((size_t)src->n * sizeof *src->tpl);
	src->cum = xmalloc((size_t)src->n * sizeof *src->cum);
	double acc = 0;
	for (int64_t k = 0; k < src->n; k++) {
		draw_job(&r, src->sc, cs, &src->tpl[k]);
		acc += 1.0 / (double)(k + 1);
		src->cum[k] = acc;
	}
}

static void source_release(struct job_source *src)
{
	FREE_ALL(src->tpl, src->cum);
}

static void source_next(struct job_source *src, struct rng *r, struct gjob *j)
{
	if (!src->n) {
		draw_job(r, src->sc, src->cs, j);
		return;
	}
	double u = rng_unit(r) * src->cum[src->n - 1];
	int64_t lo = 0, hi = src->n - 1;
	while (lo < hi) { /* the first template whose cumulative weight passes u */
		int64_t mid = lo + (hi - lo) / 2;
		if (src->cum[mid] > u)
			hi = mid;
		else
			lo = mid + 1;
	}
	*j = src->tpl[lo];
	j->duration = (int64_t)llround(lognormal(r, j->dur, 1.0));
}

/* GPU-seconds (or core-seconds when the cluster has no GPUs) of all jobs: the first pass. */
static double total_work(const struct gen_params *p, const struct cluster_shape *cs)
{
	struct job_source src;
	struct rng r;
	struct gjob j;
	double work = 0;
	source_init(&src, p, cs);
	stream(&r, p, STREAM_JOBS);
	for (int64_t i = 0; i < p->njobs; i++) {
		source_next(&src, &r, &j);
		if (cs->gpus > 0)
			work += j.workers * j.num_gpu * (j.milli / 1000.0) * (double)j.duration;
		else
			work += j.workers * (double)j.cpu / 1000 * (double)j.duration;
	}
	source_release(&src);
	return work;
}

/* Seconds over which the jobs arrive. */
static double horizon(const struct gen_params *p, const struct cluster_shape *cs)
{
	double cap = cs->gpus > 0 ? (double)cs->gpus : (double)cs->cpu_milli / 1000;
	double t = total_work(p, cs) / (scenarios[p->scenario].load * (cap > 0 ? cap : 1));
	return t > 1 ? t : 1;
}

static char *fmt_i64(char *end, int64_t v)
{
	uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
	*--end = '\0';
	do
		*--end = (char)('0' + u % 10);
	while (u /= 10);
	if (v < 0)
		*--end = '-';
	return end;
}

/* fputs of an integer then c: fprintf is the bottleneck for a million rows. */
static void put_i64(FILE *f, int64_t v, int c)
{
	char buf[24];
	fputs(fmt_i64(buf + sizeof buf, v), f);
	putc(c, f);
}

int gen_write_jobs(const struct gen_params *p, FILE *f, const char *fname, struct err *e)
{
	struct cluster_shape cs;
	struct job_source src;
	struct rng r, ra;
	struct gjob j;
	cluster_shape(p, &cs);
	double gap = horizon(p, &cs) / (double)p->njobs, t = 0;
	source_init(&src, p, &cs);
	stream(&r, p, STREAM_JOBS);
	rng_seed(&ra, rng_hash(p->seed, (uint64_t)p->scenario + 1, STREAM_JOBS + 100));
	int llm = scenarios[p->scenario].llm;
	fputs(llm ? GEN_JOBS_HEADER_GANG "\n" : GEN_JOBS_HEADER "\n", f);
	for (int64_t i = 0; i < p->njobs; i++) {
		source_next(&src, &r, &j);
		char name[24];
		snprintf(name, sizeof name, "j%06lld", (long long)i + 1);
		fputs(name, f);
		putc(',', f);
		put_i64(f, (int64_t)t, ',');
		put_i64(f, j.duration, ',');
		fputs(job_class_name((enum job_class)j.cls), f);
		putc(',', f);
		put_i64(f, j.cpu, ',');
		put_i64(f, j.mem, ',');
		put_i64(f, j.num_gpu, ',');
		put_i64(f, j.milli, ',');
		if (j.hbm >= 0)
			put_i64(f, j.hbm, ',');
		else
			putc(',', f);
		put_i64(f, j.net, ',');
		put_i64(f, j.sto, ',');
		put_i64(f, j.iocpu, ',');
		fputs(j.spec, f);
		if (llm) {
			putc(',', f);
			put_i64(f, j.workers, '\n');
		} else {
			putc('\n', f);
		}
		t += -log(((double)(rng_next(&ra) >> 11) + 0.5) * 0x1.0p-53) * gap;
		if (ferror(f))
			break;
	}
	source_release(&src);
	return write_failed(f, fname, e);
}

/* "6h" for whole hours, "30m" for whole minutes, else seconds. */
static void fmt_span(char *out, size_t len, int64_t s)
{
	if (s % 3600 == 0)
		snprintf(out, len, "%lldh", (long long)(s / 3600));
	else if (s % 60 == 0)
		snprintf(out, len, "%lldm", (long long)(s / 60));
	else
		snprintf(out, len, "%lld", (long long)s);
}

struct fault {
	int64_t start, dur;
	char who[48];
	const char *dim;
	double frac;
};

static int fault_cmp(const void *a, const void *b)
{
	const struct fault *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return strcmp(x->who, y->who);
}

int gen_write_faults(const struct gen_params *p, FILE *f, const char *fname, struct err *e)
{
	const struct scenario_def *sc = &scenarios[p->scenario];
	fprintf(f, "# faults of voidfit gen --scenario %s --jobs %lld --nodes %lld --seed %llu\n",
		sc->name, (long long)p->njobs, (long long)p->nnodes, (unsigned long long)p->seed);
	fputs("# NODE|GROUP:DIM=FRACTION@START+DURATION (FRACTION of the normal capacity)\n", f);
	if (!sc->faults)
		return write_failed(f, fname, e);
	struct cluster_shape cs;
	cluster_shape(p, &cs);
	int64_t span = (int64_t)horizon(p, &cs), count[GROUPS_MAX];
	group_counts(sc, p->nnodes, count);
	/* Node indices of GPU nodes, shuffled by a partial Fisher-Yates for the picks. */
	int64_t ngpu_nodes = 0, k = 0;
	int64_t *idx = xmalloc((size_t)p->nnodes * sizeof *idx);
	for (int g = 0; g < sc->ngroups; g++)
		for (int64_t i = 0; i < count[g]; i++, k++)
			if (sc->groups[g].gpus > 0)
				idx[ngpu_nodes++] = k;
	int64_t nsto = (ngpu_nodes + 9) / 10, nnet = (p->nnodes + 19) / 20;
	if (nsto > ngpu_nodes)
		nsto = ngpu_nodes;
	if (nnet > ngpu_nodes)
		nnet = ngpu_nodes;
	struct rng r;
	stream(&r, p, STREAM_FAULTS);
	size_t nf = 0;
	struct fault *fl = xcalloc((size_t)(nsto + nnet + 1), sizeof *fl);
	/* RAID rebuilds: storage at half for six hours on 10% of GPU nodes. */
	for (int64_t i = 0; i < nsto; i++) {
		int64_t jx = i + (int64_t)rng_below(&r, (uint64_t)(ngpu_nodes - i));
		int64_t tmp = idx[i];
		idx[i] = idx[jx];
		idx[jx] = tmp;
		struct fault *x = &fl[nf++];
		snprintf(x->who, sizeof x->who, "n%04lld", (long long)idx[i]);
		x->dim = "sto";
		x->frac = 0.5;
		x->start = (int64_t)rng_below(&r, (uint64_t)span);
		x->dur = 6 * 3600;
	}
	/* NIC flaps: network at a quarter for 30 minutes on 5% of nodes (GPU nodes). */
	for (int64_t i = 0; i < nnet; i++) {
		int64_t n = idx[rng_below(&r, (uint64_t)ngpu_nodes)];
		struct fault *x = &fl[nf++];
		snprintf(x->who, sizeof x->who, "n%04lld", (long long)n);
		x->dim = "net";
		x->frac = 0.25;
		x->start = (int64_t)rng_below(&r, (uint64_t)span);
		x->dur = 30 * 60;
	}
	/* One group-wide event: the shared storage of the second group degrades for 2 hours. */
	if (sc->ngroups > 1 && count[1] > 0) {
		struct fault *x = &fl[nf++];
		snprintf(x->who, sizeof x->who, "%s", sc->groups[1].name);
		x->dim = "sto";
		x->frac = 0.5;
		x->start = (int64_t)rng_below(&r, (uint64_t)span);
		x->dur = 2 * 3600;
	}
	qsort(fl, nf, sizeof *fl, fault_cmp);
	for (size_t i = 0; i < nf; i++) {
		char d[24];
		fmt_span(d, sizeof d, fl[i].dur);
		fprintf(f, "%s:%s=%g@%lld+%s\n", fl[i].who, fl[i].dim, fl[i].frac,
			(long long)fl[i].start, d);
	}
	free(fl);
	free(idx);
	return write_failed(f, fname, e);
}

typedef int (*writer_fn)(const struct gen_params *, FILE *, const char *, struct err *);

/* Write dir/name through writer, whole or not at all, never through a link planted there
 * (outfile.h: a temporary beside it, put in place once written). */
static int write_file(const struct gen_params *p, const char *dir, const char *name,
		      writer_fn writer, struct err *e)
{
	struct outfile o;
	size_t n = strlen(dir) + strlen(name) + 2;
	char *path = xmalloc(n);
	snprintf(path, n, "%s/%s", dir, name);
	int rc = outfile_open(&o, path, OUTFILE_REPLACE, e);
	if (!rc) {
		setvbuf(o.f, NULL, _IOFBF, 1 << 16);
		if ((rc = writer(p, o.f, path, e)))
			outfile_abort(&o);
		else
			rc = outfile_commit(&o, e);
	}
	free(path);
	return rc;
}

/* The files of a trace, in the order gen_write writes them. */
static const struct {
	const char *name;
	writer_fn writer;
	int faults; /* written only for a scenario with faults (else removed) */
} outputs[] = {
	{"nodes.csv", gen_write_nodes, 0},
	{"jobs.csv", gen_write_jobs, 0},
	{"faults.txt", gen_write_faults, 1},
};

size_t gen_files(int scenario, const char *names[GEN_MAX_FILES])
{
	static_assert(sizeof outputs / sizeof *outputs <= GEN_MAX_FILES, "GEN_MAX_FILES");
	size_t n = 0;
	for (size_t i = 0; i < sizeof outputs / sizeof *outputs; i++)
		if (!outputs[i].faults || scenarios[scenario].faults)
			names[n++] = outputs[i].name;
	return n;
}

int gen_write(const struct gen_params *p, const char *dir, struct err *e)
{
	if (p->scenario < 0 || p->scenario >= GEN_NSCENARIO)
		return err_set(e, VF_EINPUT, "scenario %d does not exist", p->scenario);
	if (p->njobs < 1 || p->njobs > GEN_MAX_JOBS)
		return err_set(e, VF_EINPUT, "jobs '%lld': want 1..%d", (long long)p->njobs,
			       GEN_MAX_JOBS);
	if (p->nnodes < 1 || p->nnodes > GEN_MAX_NODES)
		return err_set(e, VF_EINPUT, "nodes '%lld': want 1..%d", (long long)p->nnodes,
			       GEN_MAX_NODES);
	if (p->templates < 0 || p->templates > GEN_MAX_TEMPLATES)
		return err_set(e, VF_EINPUT, "templates '%lld': want 0..%d",
			       (long long)p->templates, GEN_MAX_TEMPLATES);
	if (mkdir(dir, 0777) && errno != EEXIST)
		return err_set(e, VF_EIO, "%s: %s", dir, strerror(errno));
	int rc = 0;
	for (size_t i = 0; !rc && i < sizeof outputs / sizeof *outputs; i++) {
		if (!outputs[i].faults || scenarios[p->scenario].faults) {
			rc = write_file(p, dir, outputs[i].name, outputs[i].writer, e);
			continue;
		}
		size_t n = strlen(dir) + strlen(outputs[i].name) + 2;
		char *path = xmalloc(n);
		snprintf(path, n, "%s/%s", dir, outputs[i].name);
		if (remove(path) && errno != ENOENT)
			rc = err_set(e, VF_EIO, "%s: %s", path, strerror(errno));
		free(path);
	}
	return rc;
}
