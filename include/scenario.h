/*
 * scenario.h — everything that defines a run but its policy and seed: the trace and its
 * cluster, the mode (timed or inflation, and its target), the queue discipline, faults, the
 * enrichment profile and io-pressure, the dims every policy sees, the RAGP weights, the target
 * workload's coverage, node sampling, the GPU-hour prices and the pricing window.
 *
 * Every policy and seed of one scenario replays the same jobs on the same nodes and is priced
 * over the same window, so their figures compare. replay, compare, report, size and dash all
 * take a scenario from the same options, parsed here, with each default written once
 * (scenario_init).
 *
 *   scenario_init   the defaults
 *   scenario_set    one option, by its key in SCENARIO_OPTS (-> VF_EINPUT with the reason)
 *   scenario_check  what needs all the options (--target only with --mode inflate, ...)
 *   scenario_load   the trace of a store, its cluster (or --cluster), the fault file and the
 *                   profile: a scenario ready to replay
 *   scenario_check_files  those files alone, without a store
 *   scenario_key    the canonical text that identifies a scenario (two runs with the same
 *                   key differ only in policy and seed)
 *
 * Nothing here prints.
 */
#ifndef VOIDFIT_SCENARIO_H
#define VOIDFIT_SCENARIO_H

#include <stddef.h>
#include <stdint.h>

#include "enrich.h"
#include "fault.h"
#include "job.h"
#include "metrics.h"
#include "sbuf.h"
#include "sim.h"
#include "store.h"
#include "util.h"

/* Largest file a scenario option reads (--cluster, --fault-file, --profile). */
#define SCENARIO_FILE_MAX ((size_t)16 << 20)
/* Largest --io-pressure: beyond it demand overflows the int64 bandwidth units. */
#define SCENARIO_IO_MAX 1e6

struct scenario {
	/* ---- as given (strings point into argv or are static) ---- */
	const char *trace_arg;         /* --trace NAME|ID, or NULL: the newest trace */
	enum sim_mode mode;            /* SIM_TIMED */
	double target;                 /* inflation target, share of GPU capacity (1.3) */
	enum sim_queue queue;          /* timed: SIM_FIFO */
	int preempt;                   /* priority queue: evict lower classes (0) */
	uint32_t dims;                 /* DIM_BIT()s every policy sees; 0: each policy's own */
	double lambda, mu;             /* RAGP weights (POLICY_LAMBDA, POLICY_MU) */
	double coverage;               /* target workload coverage (0.95) */
	unsigned sample_nodes;         /* nodes scored per placement at most; 0 = all */
	int io_admission;              /* --io-admission: 1 on, 0 off, -1 each policy's own */
	struct fault *faults;          /* --fault and --fault-file faults (owned), nfaults */
	size_t nfaults, faultcap;      /* how many, room */
	const char *fault_file;        /* --fault-file, or NULL */
	const char *profile_path;      /* --profile, or NULL: the built-in profile */
	double io_pressure;            /* multiplies net and sto demand (1) */
	struct metrics_opts prices;    /* tier and per-model overrides */
	const char **price_specs;      /* the --gpu-price words, for the record (owned array) */
	size_t nprice_specs, pricecap; /* how many, room */
	const char *cluster_path;      /* --cluster FILE, or NULL: the trace's nodes */
	int64_t win_start, win_end;    /* --window, or -1: the trace's span */
	enum sim_scoring scoring;      /* --scoring: SIM_SCORING_EXACT */
	int tie_random;                /* --tie-break random (k8s): 0, by name */
	const char *k8s_weights;       /* --k8s-weights NAME=W,..., or NULL */
	unsigned given;                /* SCENARIO_G_* of the options given */
	/* Set by a command that replays resamples (resample.h), not an option: 0 for the trace
	 * as recorded, r >= 1 for its r-th block resample, of blocks of block_s seconds. Each
	 * resample is a scenario of its own; its window is the recorded trace's, given. */
	uint32_t resample;
	int64_t block_s;
	/* ---- found by scenario_load ---- */
	int64_t trace_id;               /* its id in the store */
	struct sbuf trace_name;         /* its name */
	struct sbuf cluster_text;       /* --cluster's content, recorded with the runs */
	struct enrich_profile *profile; /* the loaded profile (owned) */
	struct job_set base;            /* the trace's jobs and (cluster's) nodes, not enriched */
};

/* Options given (scenario.given), for the checks that need several. */
enum {
	SCENARIO_G_MODE = 1 << 0,
	SCENARIO_G_TARGET = 1 << 1,
	SCENARIO_G_QUEUE = 1 << 2,
	SCENARIO_G_PREEMPT = 1 << 3,
	SCENARIO_G_WINDOW = 1 << 4,
	SCENARIO_G_SAMPLE = 1 << 5,
	SCENARIO_G_K8S = 1 << 6, /* --tie-break or --k8s-weights */
};

/* Keys of the scenario options, for a command's option table (cmd.h's struct cmd_opt):
 * 'm' and 't' are also -m and -t; the rest are long only. */
enum scenario_key {
	SCENARIO_K_MODE = 'm',
	SCENARIO_K_TARGET = 't',
	SCENARIO_K_FIRST = 0x1000,
	SCENARIO_K_QUEUE = SCENARIO_K_FIRST,
	SCENARIO_K_PREEMPT,
	SCENARIO_K_TRACE,
	SCENARIO_K_DIMS,
	SCENARIO_K_LAMBDA,
	SCENARIO_K_MU,
	SCENARIO_K_COVERAGE,
	SCENARIO_K_SAMPLE,
	SCENARIO_K_FAULT,
	SCENARIO_K_FAULT_FILE,
	SCENARIO_K_PROFILE,
	SCENARIO_K_IO,
	SCENARIO_K_PRICE,
	SCENARIO_K_TIER,
	SCENARIO_K_CLUSTER,
	SCENARIO_K_WINDOW,
	SCENARIO_K_ADMIT,
	SCENARIO_K_SCORING,
	SCENARIO_K_TIE,
	SCENARIO_K_WEIGHTS,
	SCENARIO_K_LAST
};

/* The option-table entries ({name, key, has_arg}) of every scenario option, to put in a
 * command's table. */
#define SCENARIO_OPTS                                                                              \
	{"mode", SCENARIO_K_MODE, 1}, {"target", SCENARIO_K_TARGET, 1},                            \
		{"queue", SCENARIO_K_QUEUE, 1}, {"preempt", SCENARIO_K_PREEMPT, 0},                \
		{"trace", SCENARIO_K_TRACE, 1}, {"dims", SCENARIO_K_DIMS, 1},                      \
		{"lambda", SCENARIO_K_LAMBDA, 1}, {"mu", SCENARIO_K_MU, 1},                        \
		{"coverage", SCENARIO_K_COVERAGE, 1}, {"sample-nodes", SCENARIO_K_SAMPLE, 1},      \
		{"fault", SCENARIO_K_FAULT, 1}, {"fault-file", SCENARIO_K_FAULT_FILE, 1},          \
		{"profile", SCENARIO_K_PROFILE, 1}, {"io-pressure", SCENARIO_K_IO, 1},             \
		{"gpu-price", SCENARIO_K_PRICE, 1}, {"price-tier", SCENARIO_K_TIER, 1},            \
		{"cluster", SCENARIO_K_CLUSTER, 1}, {"io-admission", SCENARIO_K_ADMIT, 1},         \
		{"scoring", SCENARIO_K_SCORING, 1}, {"tie-break", SCENARIO_K_TIE, 1},              \
		{"k8s-weights", SCENARIO_K_WEIGHTS, 1},                                            \
	{                                                                                          \
		"window", SCENARIO_K_WINDOW, 1                                                     \
	}

/* The usage words and the -h lines of the scenario options. */
#define SCENARIO_USAGE                                                                             \
	"[--mode timed|inflate] [--target X] [--queue Q] [--preempt] [--trace T] [--dims D] "      \
	"[--lambda L] [--mu M] [--coverage C] [--fault SPEC]... [--fault-file FILE] "              \
	"[--profile FILE] [--io-pressure X] [--gpu-price MODEL=USD]... [--price-tier T] "          \
	"[--cluster FILE] [--sample-nodes K] [--window START..END] [--io-admission on|off] "       \
	"[--scoring exact|k8s] [--tie-break name|random] [--k8s-weights NAME=W,...]"
#define SCENARIO_HELP                                                                              \
	"scenario (what every policy and seed of a comparison share):\n"                           \
	"  -m, --mode M           timed (default: arrivals, queue, departures) or inflate\n"       \
	"                         (sample jobs until --target x GPU capacity is requested)\n"      \
	"  -t, --target X         inflation target, share of GPU capacity (default 1.3)\n"         \
	"      --queue Q          timed queue: fifo (default), backfill, priority\n"               \
	"      --preempt          with --queue priority: a waiting job may evict lower classes\n"  \
	"      --trace T          trace of the store, by name or id (default: the newest)\n"       \
	"      --dims D           dims every policy sees (cpu,mem,gpu,hbm,net,sto,iocpu; all;\n"   \
	"                         hard), instead of each policy's own\n"                           \
	"      --lambda L         RAGP weight of residual-shape irregularity (default 0.5)\n"      \
	"      --mu M             RAGP weight of bandwidth congestion (default 0.25)\n"            \
	"      --coverage C       target workload: the most frequent job shapes covering\n"        \
	"                         this share of jobs (0 < C <= 1, default 0.95); fgd-pack\n"       \
	"                         places by its own (every shape)\n"                               \
	"      --fault SPEC       NODE:DIM=FRACTION@START+DURATION, e.g. n7:sto=0.5@3600+6h\n"     \
	"                         (repeatable; NODE may be a node, a group or a GPU model)\n"      \
	"      --fault-file FILE  faults, one a line\n"                                            \
	"      --profile FILE     enrichment profile (default: the built-in one)\n"                \
	"      --io-pressure X    multiply net and sto demand by X (0..1e6, default 1)\n"          \
	"      --gpu-price M=USD  price of one GPU-hour of model M (repeatable)\n"                 \
	"      --price-tier T     on-demand (default), reserved, spot or owned\n"                  \
	"      --cluster FILE     replace the trace's nodes by a cluster-spec file\n"              \
	"      --sample-nodes K   score at most K feasible nodes per placement, met in a\n"        \
	"                         seeded random order (default 0: every node); faster on\n"        \
	"                         big clusters, but an approximation of each policy\n"             \
	"      --window S..E      price the runs over trace seconds S to E (units s, m, h, d;\n"   \
	"                         default: first to last arrival)\n"                               \
	"      --io-admission A   on: every policy waits rather than oversubscribe a shared\n"     \
	"                         dim it sees; off: none does (default: ragp7 on sto, iocpu)\n"    \
	"      --scoring S        exact (default: each policy's formula) or k8s (as\n"             \
	"                         kube-scheduler score plugins: integers 0-100, weighted sum)\n"   \
	"      --tie-break T      k8s ties: name (default: first node name, as the FGD\n"          \
	"                         artifact) or random (seeded, as upstream Kubernetes)\n"          \
	"      --k8s-weights W    k8s: NAME=WEIGHT,... plugins added to the policy's own\n"        \
	"                         (weight 1 unless named), e.g. packing=1\n"

/* The defaults. Release with scenario_release. */
void scenario_init(struct scenario *sc);
/* Free what sc owns; sc may be NULL. */
void scenario_release(struct scenario *sc);
/* 1 if key is one of enum scenario_key. */
int scenario_is_key(int key);
/* Set the option of key from arg (NULL for a flag). Returns 0, or VF_EINPUT with e naming
 * the option and what is wrong. */
int scenario_set(struct scenario *sc, int key, const char *arg, struct err *e);
/* The checks that need every option. Returns 0 or VF_EINPUT. */
int scenario_check(const struct scenario *sc, struct err *e);
/* Apply the --gpu-price words to sc->prices once a store is open (its GPU models known):
 * 0, or VF_EINPUT naming a model still unknown. scenario_load does it. */
int scenario_prices(struct scenario *sc, struct err *e);
/* Read what sc names from st: the trace (sc->trace_arg or the newest), its nodes or the
 * --cluster file, the --fault-file and the profile. Refuses a trace with no jobs or no nodes,
 * saying what to give. Returns 0, VF_EINPUT or the store's error, with e filled. */
int scenario_load(struct scenario *sc, struct store *st, struct err *e);
/* Read and parse the files sc names (--cluster, --fault-file, --profile) as scenario_load
 * does, without a store: a check before runs that will read them. Returns 0, VF_EIO or
 * VF_EINPUT with e naming the file (and its line). */
int scenario_check_files(struct scenario *sc, struct err *e);
/* The canonical text of sc's parameters into out (after scenario_load): two runs of the same
 * key differ only in policy and seed. */
void scenario_key(const struct scenario *sc, struct sbuf *out);

/* Parse "START..END" (each integer seconds or with a suffix s, m, h, d; END > START) into
 * *start, *end. Returns 0 or VF_EINPUT. */
int scenario_parse_window(const char *s, int64_t *start, int64_t *end, struct err *e);

#endif
