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
	double param[POLICY_NPARAM];   /* policy parameters (policy_param_init) */
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
	enum sim_tie tie;              /* --tie-break (k8s): SIM_TIE_NAME */
	const char *k8s_weights;       /* --k8s-weights NAME=W,..., or NULL */
	double node_mtbf, node_repair; /* --node-mtbf, --node-repair, seconds (0: none) */
	double ckpt_every, ckpt_cost;  /* --checkpoint-every, --checkpoint-cost, seconds (0) */
	int gang_spread;               /* --gang-spread: one worker of a gang per node (0) */
	double runtime_over;           /* --runtime-overestimate: EASY's expected ends (1) */
	double xswitch;                /* --cross-switch-slowdown: a gang across switches (1) */
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
	SCENARIO_G_OVERESTIMATE = 1 << 7,
};

/* ---- the scenario parameters: one table ----
 *
 * Every scenario option is one row of SCENARIO_PARAMS, in the order of the scenario's key:
 *
 *   X(ID, SHORT, NAME, ARG, USAGE, HELP, TYPE, FIELD, LO, HI, DEF, UNIT, KEY, COLUMN, POL) S()
 *
 *   ID      SCENARIO_K_ID, the option's key in a command's table (cmd.h)
 *   SHORT   its short option ('m'), or 0: long only
 *   NAME    the long option without "--"; ARG 1 if it takes a value
 *   USAGE   its words in a command's usage line; HELP its lines of -h
 *   TYPE    REAL: a number in [LO, HI] (no upper limit when HI <= LO), default DEF, in
 *           struct scenario's FIELD, written to the key as ";KEY=%.17g" and to the scenarios
 *           table's COLUMN (NULL: the key only; a new column needs a migration), told
 *           apart in 'voidfit runs' and 'compare' by NAME. SCENARIO_FN: scenario.c parses
 *           it and writes its part of the key itself (FIELD, LO, HI, DEF unused). REAL_IF:
 *           a REAL in the key only when it is not DEF (a number added after runs were
 *           stored: their keys stay as they were)
 *   UNIT    of a REAL, for a reader ("" for a share or a weight)
 *   POL     the policy parameter (policy.h, POLICY_P_*) a REAL fills, its FIELD then
 *           param[POL]: replay copies every such row into sim_opts, and the dashboard's
 *           what-ifs set them by NAME; -1: none
 *
 * The option tables (SCENARIO_OPTS), the usage and -h texts (SCENARIO_USAGE, SCENARIO_HELP),
 * the parser (scenario_set), the defaults (scenario_init), the key (scenario_key, which the
 * run's JSON carries), the store's columns (runrec.c) and a man-page check (test-scenario)
 * all iterate it: a new number a policy reads is one POLICY_P_* index and default
 * (policy.h), one REAL_IF row naming it, its use, and its lines in voidfit(1) and (7).
 */
/* clang-format off */
#define SCENARIO_PARAMS(X, S) \
	X(TRACE, 0, "trace", 1, "[--trace T]", \
	  "      --trace T          trace of the store, by name or id (default: the newest)\n", \
	  FN, trace_arg, 0, 0, 0, "", "trace", NULL, -1) S() \
	X(MODE, 'm', "mode", 1, "[--mode timed|inflate]", \
	  "  -m, --mode M           timed (default: arrivals, queue, departures) or inflate\n" \
	  "                         (sample jobs until --target x GPU capacity is requested)\n", \
	  FN, mode, 0, 0, 0, "", "mode", NULL, -1) S() \
	X(TARGET, 't', "target", 1, "[--target X]", \
	  "  -t, --target X         inflation target, share of GPU capacity (default 1.3)\n", \
	  FN, target, 0, 0, 0, "", "target", NULL, -1) S() \
	X(QUEUE, 0, "queue", 1, "[--queue Q]", \
	  "      --queue Q          timed queue: fifo (default), backfill, priority, easy\n" \
	  "                         (backfill that keeps a reservation for the first job)\n", \
	  FN, queue, 0, 0, 0, "", "queue", NULL, -1) S() \
	X(PREEMPT, 0, "preempt", 0, "[--preempt]", \
	  "      --preempt          with --queue priority: a waiting job may evict lower classes\n", \
	  FN, preempt, 0, 0, 0, "", "preempt", NULL, -1) S() \
	X(DIMS, 0, "dims", 1, "[--dims D]", \
	  "      --dims D           dims every policy sees (cpu,mem,gpu,hbm,net,sto,iocpu; all;\n" \
	  "                         hard), instead of each policy's own\n", \
	  FN, dims, 0, 0, 0, "", "dims", NULL, -1) S() \
	X(LAMBDA, 0, "lambda", 1, "[--lambda L]", \
	  "      --lambda L         RAGP weight of residual-shape irregularity (default 0.5)\n", \
	  REAL, param[POLICY_P_LAMBDA], 0, 0, POLICY_LAMBDA, "", "lambda", "lambda", \
	  POLICY_P_LAMBDA) S() \
	X(MU, 0, "mu", 1, "[--mu M]", \
	  "      --mu M             RAGP weight of bandwidth congestion (default 0.25)\n", \
	  REAL, param[POLICY_P_MU], 0, 0, POLICY_MU, "", "mu", "mu", POLICY_P_MU) S() \
	X(COVERAGE, 0, "coverage", 1, "[--coverage C]", \
	  "      --coverage C       target workload: the most frequent job shapes covering\n" \
	  "                         this share of jobs (0 < C <= 1, default 0.95); fgd-pack\n" \
	  "                         places by its own (every shape)\n", \
	  REAL, coverage, 0.01, 1, 0.95, "", "coverage", "coverage", -1) S() \
	X(SAMPLE, 0, "sample-nodes", 1, "[--sample-nodes K]", \
	  "      --sample-nodes K   score at most K feasible nodes per placement, met in a\n" \
	  "                         seeded random order (default 0: every node); faster on\n" \
	  "                         big clusters, but an approximation of each policy\n", \
	  FN, sample_nodes, 0, 0, 0, "nodes", "sample_nodes", NULL, -1) S() \
	X(FAULT, 0, "fault", 1, "[--fault SPEC]...", \
	  "      --fault SPEC       NODE:DIM=FRACTION@START+DURATION, e.g. n7:sto=0.5@3600+6h\n" \
	  "                         (repeatable; NODE may be a node, a group or a GPU model)\n", \
	  FN, faults, 0, 0, 0, "", "faults", NULL, -1) S() \
	X(FAULT_FILE, 0, "fault-file", 1, "[--fault-file FILE]", \
	  "      --fault-file FILE  faults, one a line\n", \
	  FN, fault_file, 0, 0, 0, "", "faults", NULL, -1) S() \
	X(PROFILE, 0, "profile", 1, "[--profile FILE]", \
	  "      --profile FILE     enrichment profile (default: the built-in one)\n", \
	  FN, profile_path, 0, 0, 0, "", "profile", NULL, -1) S() \
	X(IO, 0, "io-pressure", 1, "[--io-pressure X]", \
	  "      --io-pressure X    multiply net and sto demand by X (0..1e6, default 1)\n", \
	  FN, io_pressure, 0, 0, 0, "", "io_pressure", NULL, -1) S() \
	X(PRICE, 0, "gpu-price", 1, "[--gpu-price MODEL=USD]...", \
	  "      --gpu-price M=USD  price of one GPU-hour of model M (repeatable)\n", \
	  FN, price_specs, 0, 0, 0, "USD", NULL, NULL, -1) S() \
	X(TIER, 0, "price-tier", 1, "[--price-tier T]", \
	  "      --price-tier T     on-demand (default), reserved, spot or owned\n", \
	  FN, prices, 0, 0, 0, "", NULL, NULL, -1) S() \
	X(CLUSTER, 0, "cluster", 1, "[--cluster FILE]", \
	  "      --cluster FILE     replace the trace's nodes by a cluster-spec file\n", \
	  FN, cluster_path, 0, 0, 0, "", "cluster", NULL, -1) S() \
	X(WINDOW, 0, "window", 1, "[--window START..END]", \
	  "      --window S..E      price the runs over trace seconds S to E (units s, m, h, d;\n" \
	  "                         default: first to last arrival)\n", \
	  FN, win_start, 0, 0, 0, "s", "window", NULL, -1) S() \
	X(ADMIT, 0, "io-admission", 1, "[--io-admission on|off]", \
	  "      --io-admission A   on: every policy waits rather than oversubscribe a shared\n" \
	  "                         dim it sees; off: none does (default: ragp7 on sto, iocpu)\n", \
	  FN, io_admission, 0, 0, 0, "", "io_admission", NULL, -1) S() \
	X(SCORING, 0, "scoring", 1, "[--scoring exact|k8s]", \
	  "      --scoring S        exact (default: each policy's formula) or k8s (as\n" \
	  "                         kube-scheduler score plugins: integers 0-100, weighted sum)\n", \
	  FN, scoring, 0, 0, 0, "", "scoring", NULL, -1) S() \
	X(TIE, 0, "tie-break", 1, "[--tie-break name|shuffled|random]", \
	  "      --tie-break T      k8s ties: name (default: first node name), shuffled (first\n" \
	  "                         in a seeded random order of the names, as the FGD\n" \
	  "                         artifact) or random (seeded, as upstream Kubernetes)\n", \
	  FN, tie, 0, 0, 0, "", "tie", NULL, -1) S() \
	X(WEIGHTS, 0, "k8s-weights", 1, "[--k8s-weights NAME=W,...]", \
	  "      --k8s-weights W    k8s: NAME=WEIGHT,... plugins added to the policy's own\n" \
	  "                         (weight 1 unless named), e.g. packing=1\n", \
	  FN, k8s_weights, 0, 0, 0, "", "weights", NULL, -1) S() \
	X(MTBF, 0, "node-mtbf", 1, "[--node-mtbf D]", \
	  "      --node-mtbf D      timed: every node fails after a random time of mean D\n" \
	  "                         (exponential, seeded; units s, m, h, d), then is down for\n" \
	  "                         --node-repair; its jobs are killed and queue again\n", \
	  FN, node_mtbf, 0, 0, 0, "s", "failures", NULL, -1) S() \
	X(REPAIR, 0, "node-repair", 1, "[--node-repair D]", \
	  "      --node-repair D    how long a failed node stays down (with --node-mtbf)\n", \
	  FN, node_repair, 0, 0, 0, "s", "failures", NULL, -1) S() \
	X(CKPT, 0, "checkpoint-every", 1, "[--checkpoint-every D]", \
	  "      --checkpoint-every D  a job saves its work every D of work; a killed job\n" \
	  "                         resumes there (default: none, it starts again)\n", \
	  FN, ckpt_every, 0, 0, 0, "s", "checkpoint", NULL, -1) S() \
	X(CKPT_COST, 0, "checkpoint-cost", 1, "[--checkpoint-cost D]", \
	  "      --checkpoint-cost D   each save pauses the job for D (bucket checkpoint)\n", \
	  FN, ckpt_cost, 0, 0, 0, "s", "checkpoint", NULL, -1) S() \
	X(SPREAD, 0, "gang-spread", 0, "[--gang-spread]", \
	  "      --gang-spread      one worker of a gang per node (default: packed, workers\n" \
	  "                         share a node where they fit)\n", \
	  FN, gang_spread, 0, 0, 0, "", "gang_spread", NULL, -1) S() \
	X(OVERESTIMATE, 0, "runtime-overestimate", 1, "[--runtime-overestimate X]", \
	  "      --runtime-overestimate X  --queue easy: a running job is expected to end at\n" \
	  "                         its start + duration x X, as users' time limits (default 1)\n", \
	  FN, runtime_over, 0, 0, 0, "", "runtime_overestimate", NULL, -1) S() \
	X(FP_TOL, 0, "fgd-pack-tol", 1, "[--fgd-pack-tol T]", \
	  "      --fgd-pack-tol T   fgd-pack: width of its fragmentation bins, a share of the\n" \
	  "                         job's GPUs (default 0.08; smaller favours multi-GPU jobs)\n", \
	  REAL_IF, param[POLICY_P_FGD_PACK_TOL], 0.001, 100, POLICY_FGD_PACK_TOL, "", \
	  "fgd_pack_tol", NULL, POLICY_P_FGD_PACK_TOL) S() \
	X(FP_RESERVE, 0, "fgd-pack-reserve", 1, "[--fgd-pack-reserve W]", \
	  "      --fgd-pack-reserve W  fgd-pack: weight of keeping nodes of scarce GPU models\n" \
	  "                         for the jobs that need them (default 8; 0: none)\n", \
	  REAL_IF, param[POLICY_P_FGD_PACK_RESERVE], 0, 0, POLICY_FGD_PACK_RESERVE, "", \
	  "fgd_pack_reserve", NULL, POLICY_P_FGD_PACK_RESERVE) S() \
	X(XSWITCH, 0, "cross-switch-slowdown", 1, "[--cross-switch-slowdown F]", \
	  "      --cross-switch-slowdown F  timed: a gang whose workers are under more than\n" \
	  "                         one rack or switch of the node list runs F times slower\n" \
	  "                         (1..100, default 1: no slower; the rest is stalled)\n", \
	  REAL_IF, xswitch, 1, 100, 1, "", "cross_switch_slowdown", NULL, -1)

/* Separators and pickers for SCENARIO_PARAMS. */
#define SCENARIO_SEP_NONE()
#define SCENARIO_SEP_COMMA()                 ,
#define SCENARIO_SEP_SPACE()                 " "
#define SCENARIO_X_INDEX(ID, ...)            SCENARIO_I_##ID
#define SCENARIO_X_KEY(ID, SHORT, ...)       SCENARIO_K_##ID = (SHORT) ? (SHORT) : SCENARIO_K_FIRST + SCENARIO_I_##ID
#define SCENARIO_X_OPT(ID, SHORT, NAME, ARG, ...) {NAME, SCENARIO_K_##ID, ARG, 0, 0, 0}
#define SCENARIO_X_USAGE(ID, SHORT, NAME, ARG, USAGE, ...) USAGE
#define SCENARIO_X_HELP(ID, SHORT, NAME, ARG, USAGE, HELP, ...) HELP
/* clang-format on */

/* Rows of the table by position. */
enum { SCENARIO_PARAMS(SCENARIO_X_INDEX, SCENARIO_SEP_COMMA), SCENARIO_NPARAM };

/* Keys of the scenario options, rows of the commands' option registry (cmd.h's cmd_options):
 * 'm' and 't' are also -m and -t; the rest are long only. */
enum scenario_key {
	SCENARIO_K_FIRST = 0x1000,
	SCENARIO_PARAMS(SCENARIO_X_KEY, SCENARIO_SEP_COMMA),
	SCENARIO_K_LAST = SCENARIO_K_FIRST + SCENARIO_NPARAM
};

/* The option-table entries ({name, key, has_arg}) of every scenario option, to put in a
 * command's table. */
#define SCENARIO_OPTS SCENARIO_PARAMS(SCENARIO_X_OPT, SCENARIO_SEP_COMMA)

/* The usage words and the -h lines of the scenario options. */
#define SCENARIO_USAGE SCENARIO_PARAMS(SCENARIO_X_USAGE, SCENARIO_SEP_SPACE)
#define SCENARIO_HELP                                                                              \
	"scenario (what every policy and seed of a comparison share):\n" SCENARIO_PARAMS(          \
		SCENARIO_X_HELP, SCENARIO_SEP_NONE)

/* One row of SCENARIO_PARAMS at run time. */
enum scenario_type { SCENARIO_FN, SCENARIO_REAL, SCENARIO_REAL_IF };
struct scenario_param {
	const char *name;        /* the long option, "lambda" */
	int key;                 /* SCENARIO_K_* */
	int has_arg;             /* 1 if it takes a value */
	const char *help;        /* its -h lines */
	enum scenario_type type; /* SCENARIO_REAL, _REAL_IF: the fields below apply */
	size_t offset;           /* of its double in struct scenario */
	double lo, hi, def;      /* its range (no upper limit when hi <= lo) and default */
	const char *unit;        /* "" for a share or a weight */
	const char *key_name;    /* in scenario_key, or NULL */
	const char *column;      /* of the scenarios table, or NULL */
	int pol;                 /* the POLICY_P_* it fills, or -1 */
};
/* The rows, SCENARIO_NPARAM of them, in key order. */
extern const struct scenario_param scenario_params[SCENARIO_NPARAM];
/* The row of a long option's name, or NULL. */
const struct scenario_param *scenario_param_find(const char *name);
/* The REAL value of row p in sc. */
double scenario_real(const struct scenario *sc, const struct scenario_param *p);

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
/* The value of field name ("window") of a key scenario_key wrote, into out (NULL: not
 * wanted): 1 if the key has the field, 0 if not. */
int scenario_key_value(const char *key, const char *name, struct sbuf *out);

/* Parse "START..END" (each integer seconds or with a suffix s, m, h, d; END > START) into
 * *start, *end. Returns 0 or VF_EINPUT. */
int scenario_parse_window(const char *s, int64_t *start, int64_t *end, struct err *e);

#endif
