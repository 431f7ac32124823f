/*
 * cmd.h — voidfit's subcommands. Each lives in src/cmd-NAME.c and exports one
 * const struct cmd_entry, listed in cmd_table (cmd.c). Only main.c and cmd-*.c print or
 * exit; a command returns its exit status: 0 success, 1 runtime failure, 2 usage error, 130
 * stopped by a signal (the shell's 128 + SIGINT, whichever signal it was).
 *
 * A command is a declaration, as tmux's cmd_entry is: its entry names its options (rows of
 * one registry, CMD_OPTIONS, which says once what kind of value each takes and what its
 * value is called) with what each means in it (or, where an option means the same in every
 * command, nothing: cmd_option_help says it), its operand, the access it needs to the store
 * the operand names and whether it prints a table in --format F. Its -h is assembled from
 * that list (cmd_print_help). cmd_run does what the entry says, in this order, so that
 * every command fails alike:
 *
 *   init      the command's state (ctx->u) set up
 *   options   read in argv order; a number or a whole number checked against its range,
 *             a scenario option handed to scenario_set, the rest to the entry's opt hook;
 *             the first bad one is the usage error
 *   operands  "no STORE given", "one STORE only" (or no operand at all)
 *   check     the checks that need every option (which may lower the store access)
 *   format    --json / --format F of table_format_find
 *   store     opened read-only or read-write (waiting as --wait says)
 *   exec      the command: it calls modules and prints what they return
 *   release   what check and exec left in ctx->u; then the store is closed
 */
#ifndef VOIDFIT_CMD_H
#define VOIDFIT_CMD_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>

#include "scenario.h"
#include "sim.h"

enum { CMD_OK = 0, CMD_FAIL = 1, CMD_USAGE = 2, CMD_STOPPED = 130 };

struct cmd_opt;
struct cmd_ctx;
struct table;
struct table_ops;
struct size_slo;

/* What a command does with the store named by its first operand; cmd_run opens it so
 * before exec (a command's check may lower CMD_STORE_WRITE to CMD_STORE_READ). */
enum cmd_store {
	CMD_STORE_NONE = 0, /* no store, or the command opens its own */
	CMD_STORE_READ,     /* STORE_RDONLY */
	CMD_STORE_WRITE,    /* read-write; the file must exist */
};

/* An option a command takes, and its line of 'voidfit NAME -h': "  -x, --name ARG" (the
 * registry's short option, name and ARG), then its meaning from the layout's column on,
 * each further line of it (split at '\n') indented to that column too. */
struct cmd_use {
	int row;          /* CMD_O_* (| CMD_OPT_BY_HOOK); -1 ends the list */
	const char *arg;  /* the value's name here instead of the registry's ("DIR"), or the
			     whole label when it starts with '-'; NULL: the registry's */
	const char *help; /* what the option does in this command; NULL: what it does in every
			     command (cmd_option_help, or a scenario option's own lines); "": no
			     line (an alias the help does not show) */
};
/* Where a command's option lines put their text: at column col (0: 25, the column of the
 * scenario's lines), after labels that start at column 2, a long-only option's under the
 * long names of the others ("      --json") or, flush, at 2 too ("  --json"). A label that
 * leaves no room for a space before col is a line of its own. */
struct cmd_help_layout {
	int col;
	int flush;
};

/* A command: what it is for 'voidfit -h', then its declared shape (the top of this file). */
struct cmd_entry {
	const char *name;    /* "import" */
	const char *usage;   /* arguments after "voidfit NAME", as in the man page SYNOPSIS */
	const char *summary; /* one line for 'voidfit -h' */
	/* The options it takes and their lines of 'voidfit NAME -h', in that order, as
	 * CMD_USES makes the list (NULL: none); with scenario, every scenario option after
	 * them, under a heading of their own. */
	const struct cmd_use *opts;
	int scenario;
	struct cmd_help_layout layout; /* where its option lines put their text */
	const char *help;              /* the text of -h after the option lines (NULL: none) */

	/* ---- the declared shape ---- */
	const char *operand;  /* the one operand exec takes ("STORE"): "no STORE given" and
				 "one STORE only" are usage errors; NULL: any number */
	enum cmd_store store; /* opened from the operand before exec */
	int wait_key;         /* the --wait SECONDS option it is opened with (cmd_store_wait) */
	const char *one_only; /* the usage error for operands past the one (NULL: "one %s only") */
	int no_operand;       /* 1: an operand is a usage error ("'WORD': unexpected operand") */
	int formats;          /* 1: --json and --format F of table_format_find */
	const char *sub;      /* a first word that runs exec_sub instead */
	int (*exec_sub)(int argc, char **argv); /* argv[1] is sub ("status") */
	size_t state_size;                 /* bytes of ctx->u, zeroed, for the functions below */
	void (*init)(struct cmd_ctx *ctx); /* sets ctx->u up before the options are read */
	/* Option key of kind CMD_OPT_HOOK with its value, in argv order with the others: 0, or
	 * the exit status of what is wrong with it (the options after it are not read). */
	int (*opt)(struct cmd_ctx *ctx, int key, const char *arg);
	/* The checks that need every option, before the store is opened: 0 or an exit status. */
	int (*check)(struct cmd_ctx *ctx);
	int (*exec)(struct cmd_ctx *ctx);     /* the command: its exit status */
	void (*release)(struct cmd_ctx *ctx); /* frees what check and exec left in ctx->u */
};

extern const struct cmd_entry *const cmd_table[]; /* NULL-terminated */

/* The hooks most commands have, by the names cmd-NAME.c gives them (check_NAME, exec_NAME,
 * release_NAME): declared before the entry, then named in it with the size of the state
 * they share (struct STATE). */
#define CMD_DECLARE_HOOKS(name)                                                                    \
	static int check_##name(struct cmd_ctx *ctx);                                              \
	static int exec_##name(struct cmd_ctx *ctx);                                               \
	static void release_##name(struct cmd_ctx *ctx)
#define CMD_HOOKS(name, state)                                                                     \
	.state_size = sizeof(struct state), .check = check_##name, .exec = exec_##name,            \
	.release = release_##name

/* Print "usage: voidfit NAME USAGE", the summary, the option lines of ce (its layout's), the
 * scenario's and its help text to f, a blank line between each. */
void cmd_print_help(const struct cmd_entry *ce, FILE *f);
/* Print "voidfit NAME: " + message and then "see 'voidfit NAME -h'" to stderr (one line of
 * what is wrong, not the whole usage); returns CMD_USAGE. */
int cmd_usage_error(const struct cmd_entry *ce, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Print "voidfit NAME: " + message to stderr; returns CMD_FAIL. */
int cmd_fail(const struct cmd_entry *ce, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* 1 if argv has -h or --help before any "--"; commands call this first. */
int cmd_wants_help(int argc, char **argv);

/* Options: commands parse with cmd_getopt (long and short options, operands in any order,
 * no global state).
 *
 * A short option means one thing in every command: a printable key is the short option of
 * this long option and of no other, wherever it appears (test-cmd walks every command's
 * table against this list):
 *   -C --cluster   -d --dir      -F --format (a trace's)   -f --format (a report's)
 *   -j --jobs      -m --mode     -N --nodes                -n --no-store
 *   -o --output    -p --policy (or --policies)             -q --quiet
 *   -s --seed      -t --target
 * Every other option is long only: its key is CMD_LONG_ONLY or above (not a character). A
 * new short option is added here and in test-cmd's list, for every command at once. */
enum { CMD_LONG_ONLY = 256 };
/* What cmd_run makes of an option's value, in argv order (the first bad one is the usage
 * error): a number in [lo, hi] (cmd_num_opt), a whole number (cmd_whole_opt), or the
 * entry's opt hook's (an entry lists the option | CMD_OPT_BY_HOOK). Any other option is
 * kept as given, and a scenario key goes to scenario_set. */
enum cmd_opt_kind { CMD_OPT_STR = 0, CMD_OPT_NUM, CMD_OPT_WHOLE, CMD_OPT_HOOK };
struct cmd_opt {
	const char *name;       /* long name without "--", e.g. "format" */
	int key;                /* returned value; a printable char doubles as the short option */
	int has_arg;            /* 0 none, 1 required */
	enum cmd_opt_kind kind; /* what cmd_run does with the value */
	double lo, hi;          /* CMD_OPT_NUM, CMD_OPT_WHOLE: the range (hi <= lo: no upper) */
};

/* Every option of every command, once (the scenario's are SCENARIO_PARAMS'): a command's
 * entry lists the rows it takes. An option spelt alike in two commands is one row when it
 * means the same there; --policies shares -p with --policy, so rows and keys differ.
 * X(ID, SHORT, NAME, ARG, KIND, LO, HI): row CMD_O_ID of key CMD_K_ID (SHORT, or a long
 * only key when 0), its value named ARG in -h ("": it takes none). */
/* clang-format off */
#define CMD_OPTIONS(X) \
	X(POLICY, 'p', "policy", "P[,P...]", STR, 0, 0) \
	X(POLICIES, 'p', "policies", "P,...", STR, 0, 0) \
	X(SEED, 's', "seed", "N", STR, 0, 0) \
	X(SEEDS, 0, "seeds", "A-B", STR, 0, 0) \
	X(THREADS, 0, "threads", "N", WHOLE, 1, 1024) \
	X(NO_STORE, 'n', "no-store", "", STR, 0, 0) \
	X(NO_REUSE, 0, "no-reuse", "", STR, 0, 0) \
	X(RESAMPLES, 0, "resamples", "N", STR, 0, 0) \
	X(BLOCK, 0, "block", "DURATION", STR, 0, 0) \
	X(JSON, 0, "json", "", STR, 0, 0) \
	X(FORMAT, 'f', "format", "F", STR, 0, 0) \
	X(OUTPUT, 'o', "output", "FILE", STR, 0, 0) \
	X(QUIET, 'q', "quiet", "", STR, 0, 0) \
	X(WAIT, 0, "wait", "SECONDS", NUM, 0, 0) \
	X(FORCE, 0, "force", "", STR, 0, 0) \
	X(FOLLOW, 0, "follow", "", STR, 0, 0) \
	X(BASELINE, 0, "baseline", "P", STR, 0, 0) \
	X(TRACE, 0, "trace", "T", STR, 0, 0) \
	X(SCENARIO, 0, "scenario", "ID", NUM, 1, 0) \
	X(RUNS, 0, "runs", "IDS", STR, 0, 0) \
	X(SLO, 0, "slo", "SLO", STR, 0, 0) \
	X(SHRINK, 0, "shrink", "MODEL", STR, 0, 0) \
	X(RESUME, 0, "resume", "", STR, 0, 0) \
	X(INTO, 0, "into", "TASKSTORE", STR, 0, 0) \
	X(COMPARE, 0, "compare", "P", STR, 0, 0) \
	X(AT, 0, "at", "TIME", STR, 0, 0) \
	X(SPEED, 0, "speed", "X", NUM, 1e-3, 1e9) \
	X(PAUSED, 0, "paused", "", STR, 0, 0) \
	X(MONO, 0, "mono", "", STR, 0, 0) \
	X(ASCII, 0, "ascii", "", STR, 0, 0) \
	X(FRAME_LOG, 0, "frame-log", "F", STR, 0, 0) \
	X(STORY, 0, "story", "raid", STR, 0, 0) \
	X(RAW, 0, "raw", "", STR, 0, 0) \
	X(JOBS_TABLE, 0, "jobs", "", STR, 0, 0) \
	X(NODES_TABLE, 0, "nodes", "", STR, 0, 0) \
	X(DIR, 'd', "dir", "DIR", STR, 0, 0) \
	X(JOBS, 'j', "jobs", "N", STR, 0, 0) \
	X(NODE_COUNT, 0, "nodes", "N", STR, 0, 0) \
	X(GEN_SEED, 0, "seed", "S", STR, 0, 0) \
	X(TEMPLATES, 0, "templates", "N", STR, 0, 0) \
	X(TRACE_FORMAT, 'F', "format", "FMT", STR, 0, 0) \
	X(NODES, 'N', "nodes", "NODEFILE", STR, 0, 0) \
	X(CLUSTER, 'C', "cluster", "FILE", STR, 0, 0) \
	X(NAME, 0, "name", "NAME", STR, 0, 0) \
	X(STRICT, 0, "strict", "", STR, 0, 0) \
	X(TZ, 0, "tz", "ZONE", STR, 0, 0) \
	X(NEW_TRACE, 0, "new-trace", "", STR, 0, 0) \
	X(GPU_MODELS, 0, "gpu-models", "FILE", STR, 0, 0) \
	X(NODE_PROCS, 0, "node-procs", "N", WHOLE, 1, 1e6) \
	X(API, 0, "api-price", "USD", NUM, 0, 0) \
	X(TOKENS, 0, "tokens-per-gpu-hour", "N", NUM, 0, 0) \
	X(TARGETS, 0, "targets", "LIST", STR, 0, 0) \
	X(WHATIF, 0, "what-if", "FILE", STR, 0, 0) \
	X(SPLIT, 0, "split-policies", "", STR, 0, 0) \
	X(CELLS, 0, "cells-per-task", "N", WHOLE, 1, 1000000) \
	X(MEM, 0, "mem", "SIZE", STR, 0, 0) \
	X(TIME, 0, "time", "T", STR, 0, 0) \
	X(SBATCH, 0, "sbatch-opt", "OPT", STR, 0, 0) \
	X(CAP, 0, "growth-cap", "G", STR, 0, 0) \
	X(NO_HEADROOM, 0, "no-headroom", "", STR, 0, 0) \
	X(NO_GIVE_UP, 0, "no-give-up", "", STR, 0, 0) \
	X(SWEEP, 0, "sweep", "DIR", STR, 0, 0) \
	X(RESAMPLE, 0, "resample", "R", WHOLE, 1, 1000000) \
	X(HINTS, 0, "hints", "H", STR, 0, 0)
#define CMD_X_ROW(ID, ...) CMD_O_##ID,
#define CMD_X_KEY(ID, SHORT, ...) CMD_K_##ID = (SHORT) ? (SHORT) : CMD_LONG_ONLY + CMD_O_##ID,
/* clang-format on */
enum cmd_row { CMD_OPTIONS(CMD_X_ROW) CMD_NOPT };
enum cmd_key { CMD_OPTIONS(CMD_X_KEY) };
/* The row of scenario option ID (SCENARIO_PARAMS), for an entry that takes only some. */
#define CMD_O_SC(ID) (CMD_NOPT + SCENARIO_I_##ID)
/* An entry's rows: its opt hook reads this one's value (CMD_OPT_HOOK). */
enum { CMD_OPT_BY_HOOK = 0x10000 };
/* The list an entry's opts points to: CMD_USES({CMD_O_ID, ARG, HELP}, ...). */
#define CMD_USES(...) ((const struct cmd_use[]){__VA_ARGS__, {-1, NULL, NULL}})
/* The rows, CMD_NOPT of the commands' and then SCENARIO_NPARAM of the scenario's, then a
 * {NULL} row. */
extern const struct cmd_opt cmd_options[];
/* Per row of the commands' (CMD_NOPT): its value's name in -h (CMD_OPTIONS' ARG, "" for an
 * option without one), and its meaning where it means the same in every command that
 * takes it (NULL: each command says its own). */
extern const char *const cmd_option_arg[];
extern const char *const cmd_option_help[];
/* The options ce takes, in its order, with their kinds, ending with a {NULL} row, in *out
 * (free it); returns how many. */
size_t cmd_entry_opts(const struct cmd_entry *ce, struct cmd_opt **out);
struct cmd_parser {
	int argc;
	char **argv;
	int ind;             /* next argv index to read */
	const char *arg;     /* the current option's argument */
	const char *bad;     /* the offending word ("--nope", "-x"), after '?' */
	const char *why;     /* what is wrong with it, after '?': "unknown option", ... */
	char **operands;     /* operands in order (owned; freed by cmd_parser_release) */
	int nops;            /* number of operands */
	int dashdash;        /* "--" seen: the rest are operands */
	const char *pending; /* rest of a short-option cluster */
	char shortbad[3];    /* "-x" for an unknown short option */
};
/* Start parsing argv[1..]. */
void cmd_parser_init(struct cmd_parser *p, int argc, char **argv);
/* Next option's key; -1 at the end (then p->operands holds the operands); '?' for an
 * unknown option or a missing argument (p->bad names it). */
int cmd_getopt(struct cmd_parser *p, const struct cmd_opt *opts);
/* Free p's operand array. */
void cmd_parser_release(struct cmd_parser *p);
/* The usage error for the option cmd_getopt answered '?' for: "'WORD': WHY". */
int cmd_opt_error(const struct cmd_entry *ce, const struct cmd_parser *p);

/* s, the value of option --name of ce, as a number in [lo, hi] (no upper limit when
 * hi <= lo) in *out: 0, or a usage error naming the option and the range. */
int cmd_num_opt(const struct cmd_entry *ce, const char *name, const char *s, double lo, double hi,
		double *out);
/* The same for a whole number (an error too if it has a fraction). */
int cmd_whole_opt(const struct cmd_entry *ce, const char *name, const char *s, double lo, double hi,
		  unsigned *out);
/* The GPU model named s (an option NAME's value) in *out: 0, or a usage error. Call it once
 * the store is open: a store's own models (import --gpu-models) are known from then on. */
int cmd_model_opt(const struct cmd_entry *ce, const char *name, const char *s, int *out);

/* --resamples N and --block DURATION of ce (either argument may be NULL: not given) into
 * *nres (0: none) and *block_s (0: resample_block_default's), for a scenario of mode:
 * 0, or a usage error (a bad number or duration, --block without --resamples, resamples in
 * inflation mode, whose draws already sample the trace). */
int cmd_resample_opts(const struct cmd_entry *ce, const char *nres_arg, const char *block_arg,
		      enum sim_mode mode, uint32_t *nres, int64_t *block_s);

/* A parsed command, as cmd_run hands it to check and exec. */
struct cmd_ctx {
	const struct cmd_entry *ce;
	int argc;
	char **argv;                 /* the command's words, argv[0] its name */
	struct cmd_parser p;         /* p.operands, p.nops: the operands */
	struct scenario sc;          /* the scenario options given (scenario_init's otherwise) */
	struct cmd_opt *opts;        /* the options ce takes (cmd_entry_opts) */
	const char **val;            /* per entry of opts: the last value given, or NULL */
	unsigned *seen;              /* per entry of opts: how many times given */
	double *num;                 /* per entry of opts: a numeric option's value */
	enum cmd_store store_mode;   /* ce->store, unless check lowers it */
	struct store *st;            /* the store of the operand, open in store_mode for exec */
	const struct table_ops *fmt; /* the table format (ce->formats), set before exec */
	void *u;                     /* ce->state_size bytes of the command's own */
};

/* Run ce on argv (argv[0] its name): parse the options as ce->opts declare, check the
 * operands, call ce->check, choose the format, open the store, call ce->exec, release.
 * Returns the exit status. */
int cmd_run(const struct cmd_entry *ce, int argc, char **argv);
/* The last value of option key (NULL: not given). */
const char *cmd_arg(const struct cmd_ctx *ctx, int key);
/* How many times option key was given. */
unsigned cmd_has(const struct cmd_ctx *ctx, int key);
/* The value of numeric option key, or dflt when it was not given. */
double cmd_num(const struct cmd_ctx *ctx, int key, double dflt);
/* Choose ctx->fmt from --json and --format (text by default): 0, or the usage error.
 * cmd_run calls it after check; a check that must report a bad format first calls it. */
int cmd_format(struct cmd_ctx *ctx);
/* How a store another voidfit holds is waited for: --wait SECONDS, option key of ctx
 * (default STORE_WAIT_DEFAULT), said on stderr as "voidfit NAME: waiting for ...". */
struct store_wait cmd_store_wait(const struct cmd_ctx *ctx, int key);
/* Write tab in ctx->fmt to stdout: 0, or the failure ("stdout: write error"). */
int cmd_print_table(struct cmd_ctx *ctx, struct table *tab);

/* The scenario of ctx's store, once open: the model of option shrink_key (0: none) into
 * *model (-1 when not given; a model of the store's own table is known only now), the
 * --gpu-price models, then scenario_load. 0, or the usage error or failure said. */
int cmd_scenario_load(struct cmd_ctx *ctx, int shrink_key, int *model);

/* The numbers i + 1 of the i < n with in[i] set, on f as "3,5-9" (runs of them joined, as
 * sbatch --array takes a list); nothing for none. */
void cmd_print_ranges(FILE *f, const unsigned char *in, size_t n);

/* --slo SLO of a command that sizes (size, verdict): adds its terms to *slo and sets *given;
 * 0, or the usage error. */
int cmd_slo_opt(const struct cmd_ctx *ctx, const char *arg, struct size_slo *slo, int *given);

/* The full-cluster runs a search takes from the store instead of replaying them
 * (size_opts.known), and what they are made of. */
struct cmd_known {
	struct size_known *k; /* n, each policy's found at every seed */
	size_t n;
	double *fig;  /* the figures k points into (owned) */
	size_t nruns; /* runs read */
};
/* For a command that sizes (size, verdict): the runs of ctx->sc's scenario in ctx's store
 * by each of the npol policies at every seed lo..hi (runrec_find_full), into *kn (release
 * with cmd_known_release), unless --no-reuse; when some are found, a line on stderr says
 * how many and which ("voidfit size: 4 full-cluster runs read from the store, not
 * replayed: runs 3-6 (--no-reuse replays them)"). 0, or cmd_fail's status. */
int cmd_known_runs(struct cmd_ctx *ctx, const struct policy_ops *const *pols, size_t npol,
		   uint64_t lo, uint64_t hi, struct cmd_known *kn);
/* Free what kn owns; kn may be NULL. */
void cmd_known_release(struct cmd_known *kn);
/* The runs of policy pol that kn holds (every seed's), 0 when none. */
size_t cmd_known_count(const struct cmd_known *kn, const struct policy_ops *pol, size_t nseed);

/* --runs IDS of a command that reads chosen runs (compare, report): the run ids ("3,5-9") in
 * *ids (freed first: the last --runs counts; free it) and *n; 0, or the usage error. */
int cmd_runs_opt(const struct cmd_ctx *ctx, const char *arg, int64_t **ids, size_t *n);

/* Stopping a long command: between cmd_stop_catch and cmd_stop_release, SIGINT, SIGTERM
 * and SIGHUP set cmd_stop_signal to the signal's number (the command stops at its next
 * check), but those ignored when it started (nohup, a background job of a script) stay
 * ignored. No SA_RESTART: a read waiting on a pipe or a terminal returns at once. */
extern volatile sig_atomic_t cmd_stop_signal;
struct cmd_stop {
	struct sigaction old[3];
};
void cmd_stop_catch(struct cmd_stop *s);
void cmd_stop_release(struct cmd_stop *s);

/* A progress bar on stderr, drawn only when it is a terminal and once the work has taken
 * half a second (short runs stay quiet), at most ten times a second. */
struct cmd_bar {
	int on;       /* stderr is a terminal */
	double start; /* monotonic time the work began */
	double last;  /* when the bar was last drawn */
	int width;    /* characters on the line (0: nothing drawn) */
};
void cmd_bar_start(struct cmd_bar *b);
/* "[####      ]  40%  ", the formatted text and the time taken, with the time left once
 * there is a guess of it (cmd_bar_time), if due; done in [0, 1]. */
void cmd_bar_draw(struct cmd_bar *b, double done, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The time a bar shows after elapsed seconds at done (in [0, 1]): "2m 5s", and from
 * CMD_BAR_ETA_DONE done and CMD_BAR_ETA_AFTER seconds on, the rest at the same pace: "2m
 * 5s, about 14m left". Returns buf. */
#define CMD_BAR_ETA_DONE  0.01
#define CMD_BAR_ETA_AFTER 3.0
char *cmd_bar_time(double elapsed, double done, char *buf, size_t len);
/* Blank what the bar drew, so the next line starts clean. */
void cmd_bar_clear(struct cmd_bar *b);
/* A step of a search (size.h's and verdict.h's progress callback; bar a struct cmd_bar):
 * "POLICY on N nodes (step K)". Called from the search's threads under its lock. */
void cmd_bar_step(void *bar, double done, const char *policy, unsigned step, size_t nodes);

/* A long run: its progress bar and its stop signals, begun and ended together. */
struct cmd_long {
	struct cmd_bar bar;
	struct cmd_stop stop;
};
/* cmd_bar_start, then cmd_stop_catch. */
void cmd_long_begin(struct cmd_long *l);
/* cmd_stop_release, then cmd_bar_clear. */
void cmd_long_end(struct cmd_long *l);

#endif
