/*
 * sweep.c — a sweep written as tasks for GNU parallel and Slurm, the task stores the tasks
 * write, and what a sweep directory says about them (sweep.h).
 *
 * Task N is line N of DIR/tasks; the engines run each line with DIR as the working
 * directory, so a task names its store runs/N.db and its log is logs/N.log. Tasks are in
 * the order trace, what-if, target, seed: the runs of one scenario are neighbours.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outfile.h"
#include "sha256.h"
#include "sweep.h"
#include "words.h"

void sweep_init(struct sweep *w)
{
	memset(w, 0, sizeof *w);
	w->lo = w->hi = 1;
}

void sweep_release(struct sweep *w)
{
	if (!w)
		return;
	for (size_t i = 0; i < w->ntargets; i++)
		free(w->targets[i]);
	for (size_t i = 0; i < w->nwi; i++) {
		for (size_t k = 0; k < w->wi[i].n; k++)
			free(w->wi[i].words[k]);
		free(w->wi[i].words);
	}
	FREE_ALL(w->targets, w->traces, w->wi, w->store);
	memset(w, 0, sizeof *w);
}

/* Decimals written after the point of a number's text ("0.05": 2). */
static int decimals(const char *s, size_t n)
{
	const char *dot = memchr(s, '.', n);
	return dot ? (int)(n - (size_t)(dot - s) - 1) : 0;
}

static void add_target(struct sweep *w, double v, int dec)
{
	char buf[64];
	snprintf(buf, sizeof buf, "%.*f", dec, v);
	w->targets = xrealloc(w->targets, (w->ntargets + 1) * sizeof *w->targets);
	w->targets[w->ntargets++] = xstrdup(buf);
}

/* One item of --targets: X or LO..HI/STEP. */
static int add_target_item(struct sweep *w, const char *s, size_t n, struct err *e)
{
	char *t = xstrndup(s, n), *dots = strstr(t, ".."), *slash = strchr(t, '/');
	double lo, hi, step;
	int rc = 0;
	if (!dots && !slash) {
		if (parse_double(t, &lo) || !(lo > 0))
			rc = err_set(e, VF_EINPUT, "'%s': not a number > 0", t);
		else
			add_target(w, lo, decimals(t, n));
		free(t);
		return rc;
	}
	if (!dots || !slash || slash < dots) {
		rc = err_set(e, VF_EINPUT, "'%s': not X or LO..HI/STEP", t);
		free(t);
		return rc;
	}
	*dots = *slash = '\0';
	if (parse_double(t, &lo) || parse_double(dots + 2, &hi) || parse_double(slash + 1, &step) ||
	    !(lo > 0) || !(hi >= lo) || !(step > 0)) {
		rc = err_set(e, VF_EINPUT, "'%.*s': not LO..HI/STEP with 0 < LO <= HI and STEP > 0",
			     (int)n, s);
	} else if ((hi - lo) / step > 10000) {
		rc = err_set(e, VF_EINPUT, "'%.*s': more than 10000 targets", (int)n, s);
	} else {
		int dec = decimals(t, strlen(t));
		int d2 = decimals(slash + 1, strlen(slash + 1));
		dec = d2 > dec ? d2 : dec;
		/* i * step, not a running sum: no drift; HI counts when within rounding */
		for (long i = 0; lo + (double)i * step <= hi + step * 1e-9; i++)
			add_target(w, lo + (double)i * step, dec);
	}
	free(t);
	return rc;
}

int sweep_add_targets(struct sweep *w, const char *spec, struct err *e)
{
	const char *p = spec;
	if (!*spec)
		return err_set(e, VF_EINPUT, "'': no target");
	for (;;) {
		const char *c = strchr(p, ',');
		size_t n = c ? (size_t)(c - p) : strlen(p);
		int rc = add_target_item(w, p, n, e);
		if (rc)
			return rc;
		if (!c)
			return 0;
		p = c + 1;
	}
}

int sweep_add_whatif(struct sweep *w, const char *path, struct err *e)
{
	struct sbuf text = SBUF_INIT;
	struct words r;
	size_t nlines = 0;
	int rc;
	sbuf_init(&text);
	if ((rc = words_read_file(path, SWEEP_WHATIF_MAX, "a what-if file", &text, e)) ||
	    (rc = words_open(&r, text.s, text.len, path, e))) {
		sbuf_release(&text);
		return rc;
	}
	while ((rc = words_next(&r, e)) > 0) {
		struct sweep_whatif wi = {xcalloc((size_t)r.n, sizeof(char *)), (size_t)r.n, ""};
		for (int i = 0; i < r.n; i++)
			wi.words[i] = xstrdup(r.w[i]);
		snprintf(wi.where, sizeof wi.where, "%s:%d", path, r.lineno);
		w->wi = xrealloc(w->wi, (w->nwi + 1) * sizeof *w->wi);
		w->wi[w->nwi++] = wi;
		nlines++;
	}
	words_close(&r);
	sbuf_release(&text);
	if (rc < 0)
		return -rc;
	if (!nlines)
		return err_set(e, VF_EINPUT, "%s: no what-if line", path);
	return 0;
}

size_t sweep_ntasks(const struct sweep *w)
{
	size_t nt = w->ntraces ? w->ntraces : 1, nw = w->nwi ? w->nwi : 1;
	size_t ng = w->ntargets ? w->ntargets : 1;
	uint64_t ns = w->hi - w->lo + 1;
	double n = (double)nt * (double)nw * (double)ng * (double)ns *
		   (double)(w->split ? w->npol : 1);
	return n > SWEEP_MAX_TASKS ? SWEEP_MAX_TASKS + 1 : (size_t)n;
}

/* s as one word for sh: as it is when it is made of safe characters, else single-quoted. */
static void sh_quote(struct sbuf *b, const char *s)
{
	int safe = *s != '\0';
	for (const char *p = s; *p && safe; p++)
		safe = strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
			      "_-+=.,:/@%",
			      *p) != NULL;
	if (safe) {
		sbuf_adds(b, s);
		return;
	}
	sbuf_addc(b, '\'');
	for (const char *p = s; *p; p++)
		if (*p == '\'')
			sbuf_adds(b, "'\\''");
		else
			sbuf_addc(b, *p);
	sbuf_addc(b, '\'');
}

/* A blank, then s as one word for sh. */
void sweep_add_word(struct sbuf *b, const char *s)
{
	sbuf_addc(b, ' ');
	sh_quote(b, s);
}

/* The directory of this voidfit, for the tasks' PATH (NULL if unknown; the caller frees). */
char *sweep_bin_dir(void)
{
	char buf[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	char *slash = strrchr(buf, '/');
	if (!slash)
		return NULL;
	*slash = '\0';
	return xstrdup(*buf ? buf : "/");
}

/* dir/name, whole or not at all, never through a link planted there (outfile.h): a file
 * left by an earlier sweep that failed before its task list is replaced, a new task list
 * never replaces one. */
static int write_file(const char *dir, const char *name, const char *text, int flags, struct err *e)
{
	struct sbuf path = SBUF_INIT;
	sbuf_init(&path);
	sbuf_printf(&path, "%s/%s", dir, name);
	int rc = outfile_put(path.s, flags, text, strlen(text), e);
	sbuf_release(&path);
	return rc;
}

/* A directory at path, made if missing. Unless follow (the directory the user names), a
 * link there is refused: the tasks would write wherever it points. */
static int make_dir(const char *path, int follow, struct err *e)
{
	struct stat sb;
	if (mkdir(path, 0777) == 0)
		return 0;
	if (errno != EEXIST)
		return err_set(e, VF_EIO, "%s: %s", path, strerror(errno));
	if ((follow ? stat(path, &sb) : lstat(path, &sb)) != 0)
		return err_set(e, VF_EIO, "%s: %s", path, strerror(errno));
	if (!S_ISDIR(sb.st_mode))
		return err_set(e, VF_EIO, "%s: %s", path,
			       S_ISLNK(sb.st_mode) ? "a symbolic link, not followed"
						   : "not a directory");
	return 0;
}

/* The scripts: '@' placeholders are filled by fill(). */
static const char parallel_sh[] =
	"#!/bin/sh\n"
	"# Run the tasks of this sweep (one a line in 'tasks') that 'voidfit sweep status' calls\n"
	"# not done (failed, invalid, killed, not run: all, the first time) with GNU parallel;\n"
	"# written by 'voidfit sweep'. Task N writes runs/N.db, its output goes to logs/N.log.\n"
	"# Run it again to run what is still not done. It exits with the number of tasks that\n"
	"# failed, or 1 when every task exited 0 but some task store is not here or not whole.\n"
	"#\n"
	"#   ./parallel.sh [-j N] [--sshloginfile FILE [--transfer]] [PARALLEL-OPTION...]\n"
	"#\n"
	"# -j N: N tasks at once on each host (default: one per CPU). --sshloginfile FILE: run\n"
	"# on the hosts of FILE (see parallel(1)); each needs the same voidfit on its PATH.\n"
	"# --transfer: for hosts that share no file system with this one (rsync on each): the\n"
	"# store is copied to each host once, to the same path (--basefile), the tasks run in\n"
	"# this directory's path there, and each task's store and log come back (--return).\n"
	"# Nothing is removed there afterwards (no --cleanup: on a host that does share the\n"
	"# file system, that would remove the store and the task stores here).\n"
	"set -eu\n"
	"@PATH@"
	"jobs=100%\n"
	"transfer=\n"
	"# the options, in order; a relative --sshloginfile is taken from where this is run\n"
	"n=$#\n"
	"while [ $n -gt 0 ]; do\n"
	"\ta=$1; shift; n=$((n - 1))\n"
	"\tcase $a in\n"
	"\t-j) jobs=$1; shift; n=$((n - 1)) ;;\n"
	"\t-j*) jobs=${a#-j} ;;\n"
	"\t--transfer) transfer=1 ;;\n"
	"\t--sshloginfile | --slf)\n"
	"\t\tf=$1; shift; n=$((n - 1))\n"
	"\t\tcase $f in /* | - | ..) ;; *) f=$(pwd)/$f ;; esac\n"
	"\t\tset -- \"$@\" \"$a\" \"$f\" ;;\n"
	"\t*) set -- \"$@\" \"$a\" ;;\n"
	"\tesac\n"
	"done\n"
	"cd @DIR@\n"
	"mkdir -p runs logs\n"
	"if [ -n \"$transfer\" ]; then\n"
	"\tset -- --basefile @STORE@ --workdir . --return 'runs/{1}.db' --return 'logs/{1}.log' "
	"\"$@\"\n"
	"fi\n"
	"# the tasks not done, by number, and their lines\n"
	"todo=.todo.$$\n"
	"trap 'rm -f \"$todo\" \"$todo.tasks\"' EXIT\n"
	"voidfit sweep status --todo \"$(pwd)\" >\"$todo\"\n"
	"awk 'NR == FNR { want[$1]; next } FNR in want' \"$todo\" tasks >\"$todo.tasks\"\n"
	"rc=0\n"
	"if [ -s \"$todo\" ]; then\n"
	"\tparallel --will-cite --joblog joblog -j \"$jobs\" \"$@\" \\\n"
	"\t\t'mkdir -p runs logs && sh -c {2} >logs/{1}.log 2>&1' \\\n"
	"\t\t:::: \"$todo\" ::::+ \"$todo.tasks\" || rc=$?\n"
	"fi\n"
	"# every task exited 0: each task store must be here, and whole (a task whose store did\n"
	"# not come back, or was removed or damaged since, is not done: say so and fail)\n"
	"if [ $rc -eq 0 ]; then\n"
	"\ts=$(voidfit sweep status \"$(pwd)\" 2>&1) || {\n"
	"\t\tprintf '%s\\n' \"$s\" >&2\n"
	"\t\techo 'parallel.sh: every task exited 0, but task stores are missing or invalid "
	"here' >&2\n"
	"\t\trc=1\n"
	"\t}\n"
	"fi\n"
	"exit $rc\n";

static const char slurm_sh[] =
	"#!/bin/sh\n"
	"# Submit this sweep to Slurm; written by 'voidfit sweep'. The tasks 'voidfit sweep\n"
	"# status' calls not done (all, the first time) go as job arrays of slurm.sbatch, each\n"
	"# array task running @C@ task(s) one after another: as many arrays as the cluster's\n"
	"# MaxArraySize (scontrol show config) needs. Then '@LAST@' is submitted to run\n"
	"# once they all succeed (--dependency=afterok). Run it again to run what is still not\n"
	"# done (failed, killed by a time limit: it resumes, cancelled, lost, damaged).\n"
	"#\n"
	"#   ./slurm.sh [--no-merge] [--transfer[=HOST] [--ssh CMD]] [SBATCH-OPTION...]\n"
	"#\n"
	"# --transfer: for nodes that share no file system with this host (HOST, default this\n"
	"# one's name; rsync on each): an array task fetches the store, the task list and what a\n"
	"# stopped run of its tasks kept from HOST by rsync over ssh (CMD, default ssh) into\n"
	"# node-local storage ($TMPDIR, else /tmp), runs there, and sends each task's store and\n"
	"# log back; the merge runs on HOST, through ssh. The SBATCH-OPTIONs go to each sbatch as\n"
	"# they are, over those of slurm.sbatch: --mem=4G, --time=2:00:00, --partition=P...\n"
	"set -eu\n"
	"@PATH@"
	"cd @DIR@\n"
	"dir=$(pwd)\n"
	"merge=1\n"
	"VOIDFIT_TRANSFER=\n"
	"VOIDFIT_SSH=ssh\n"
	"while [ $# -gt 0 ]; do\n"
	"\tcase $1 in\n"
	"\t--no-merge) merge= ;;\n"
	"\t--transfer) VOIDFIT_TRANSFER=$(hostname) ;;\n"
	"\t--transfer=*) VOIDFIT_TRANSFER=${1#--transfer=} ;;\n"
	"\t--ssh) [ $# -ge 2 ] || { echo 'slurm.sh: --ssh: no CMD' >&2; exit 2; }\n"
	"\t\tVOIDFIT_SSH=$2; shift ;;\n"
	"\t--ssh=*) VOIDFIT_SSH=${1#--ssh=} ;;\n"
	"\t*) break ;;\n"
	"\tesac\n"
	"\tshift\n"
	"done\n"
	"# the jobs get them with the rest of this environment (sbatch --export=ALL)\n"
	"export VOIDFIT_TRANSFER VOIDFIT_SSH\n"
	"if [ -n \"$VOIDFIT_TRANSFER\" ]; then\n"
	"\t# nothing of this directory on the nodes: Slurm's output goes nowhere (slurm.sbatch\n"
	"\t# writes its own and sends it back), and the merge runs here, through ssh\n"
	"\twd=/ out=/dev/null mout=/dev/null wrap=@MERGE_FAR@\n"
	"else\n"
	"\twd=$dir out=$dir/logs/slurm-%A_%a.out mout=$dir/logs/merge-%j.out wrap=@MERGE@\n"
	"fi\n"
	"mkdir -p runs logs submit\n"
	"todo=submit/todo.$(date +%Y%m%d%H%M%S).$$\n"
	"voidfit sweep status --todo \"$dir\" >\"$todo\"\n"
	"n=$(wc -l <\"$todo\")\n"
	"if [ \"$n\" -eq 0 ]; then\n"
	"\trm -f \"$todo\"\n"
	"\techo 'slurm.sh: every task is done'\n"
	"\texit 0\n"
	"fi\n"
	"c=@C@\n"
	"units=$(((n + c - 1) / c))\n"
	"# array indices go from 1 to MaxArraySize - 1 (default 1001)\n"
	"max=$(scontrol show config 2>/dev/null | awk '$1 == \"MaxArraySize\" { print $3 }')\n"
	"per=$((${max:-1001} - 1))\n"
	"[ \"$per\" -ge 1 ] || { echo \"slurm.sh: MaxArraySize $max\" >&2; exit 1; }\n"
	"deps=\n"
	"off=0\n"
	"while [ $off -lt $units ]; do\n"
	"\tm=$((units - off))\n"
	"\t[ $m -le $per ] || m=$per\n"
	"\tk=$m\n"
	"\t[ $k -le 64 ] || k=64\n"
	"\tj=$(sbatch --parsable --array=1-$m%$k --chdir=\"$wd\" --output=\"$out\" \\\n"
	"\t\t--export=ALL,VOIDFIT_TODO=$todo,VOIDFIT_OFFSET=$off \"$@\" slurm.sbatch)\n"
	"\tj=${j%%;*}\n"
	"\techo \"slurm.sh: job $j: array tasks 1-$m run $(((off * c) + 1))-$(((off + m) * c > n ? "
	"n "
	": (off + m) * c)) of the $n tasks not done\"\n"
	"\tdeps=$deps:$j\n"
	"\toff=$((off + m))\n"
	"done\n"
	"if [ -n \"$merge\" ]; then\n"
	"\tj=$(sbatch --parsable --job-name=voidfit-merge --dependency=afterok$deps "
	"--chdir=\"$wd\" \\\n"
	"\t\t--output=\"$mout\" --ntasks=1 \"$@\" --wrap=\"$wrap\")\n"
	"\techo \"slurm.sh: job ${j%%;*}: @LAST@, once every array succeeds\"\n"
	"fi\n";

static const char slurm_sbatch[] =
	"#!/bin/sh\n"
	"# The Slurm array job of this sweep; written by 'voidfit sweep'. Submit it with\n"
	"# ./slurm.sh, which gives each array the list of tasks to run (VOIDFIT_TODO, a file of\n"
	"# task numbers; without it, tasks 1..@N@) and its place in it (VOIDFIT_OFFSET): array\n"
	"# task I runs the tasks at places (OFFSET + I - 1) * @C@ + 1 .. (OFFSET + I) * @C@ of "
	"the\n"
	"# list, one after another. Task N writes runs/N.db; its log is logs/N.log.\n"
	"#SBATCH --job-name=voidfit-sweep\n"
	"#SBATCH --ntasks=1\n"
	"#SBATCH --cpus-per-task=1\n"
	"@SBATCH@"
	"set -eu\n"
	"@PATH@"
	"dir=@DIR@\n"
	"far=${VOIDFIT_TRANSFER:-}\n"
	"if [ -n \"$far\" ]; then\n"
	"\t# slurm.sh --transfer: this node shares no file system with host $far. Work in\n"
	"\t# node-local storage, kept for the other tasks of the sweep that run here (the store\n"
	"\t# is fetched once, then only checked); the store, the task list and the list to run\n"
	"\t# come from $far by rsync over ssh, each task's store and log go back.\n"
	"\tw=${TMPDIR:-/tmp}/voidfit-sweep-@ID@\n"
	"\tmkdir -p \"$w/runs\" \"$w/logs\" \"$w/submit\"\n"
	"\tcd \"$w\"\n"
	"\tout=logs/slurm-${SLURM_ARRAY_JOB_ID:-0}_${SLURM_ARRAY_TASK_ID}.out\n"
	"\texec >\"$out\" 2>&1\n"
	"\trs() { rsync -s -t -e \"${VOIDFIT_SSH:-ssh}\" \"$@\"; }\n"
	"\trs \"$far:$dir/tasks\" tasks\n"
	"\t[ -z \"${VOIDFIT_TODO:-}\" ] || rs \"$far:$dir/$VOIDFIT_TODO\" \"$VOIDFIT_TODO\"\n"
	"\tif command -v flock >/dev/null 2>&1; then\n"
	"\t\tflock store.lock rsync -s -t -e \"${VOIDFIT_SSH:-ssh}\" \"$far:\"@STORE@ store.db\n"
	"\telse\n"
	"\t\trs \"$far:\"@STORE@ store.db\n"
	"\tfi\n"
	"\t# a task line names the store by its path on $far: here it is store.db\n"
	"\tpre=@PRE@\n"
	"\t# stopped (a time limit, scancel: SIGTERM to every process): the task keeps its runs,\n"
	"\t# they are sent back, and no other task starts\n"
	"\tstop=\n"
	"\ttrap 'stop=1' TERM\n"
	"else\n"
	"\tcd \"$dir\"\n"
	"fi\n"
	"c=@C@\n"
	"i=$((${VOIDFIT_OFFSET:-0} + SLURM_ARRAY_TASK_ID))\n"
	"rc=0\n"
	"k=$(((i - 1) * c + 1))\n"
	"while [ $k -le $((i * c)) ]; do\n"
	"\tif [ -n \"${VOIDFIT_TODO:-}\" ]; then n=$(sed -n \"${k}p\" \"$VOIDFIT_TODO\"); else "
	"n=$k; fi\n"
	"\t[ -n \"$n\" ] || break\n"
	"\tk=$((k + 1))\n"
	"\tline=$(sed -n \"${n}p\" tasks)\n"
	"\t[ -n \"$line\" ] || { echo \"no task $n in tasks\" >&2; rc=1; continue; }\n"
	"\tif [ -z \"$far\" ]; then\n"
	"\t\tsh -c \"$line\" >\"logs/$n.log\" 2>&1 || { echo \"task $n failed: logs/$n.log\" >&2; "
	"rc=1; }\n"
	"\t\tcontinue\n"
	"\tfi\n"
	"\trest=${line#\"$pre\"}\n"
	"\t[ \"$rest\" != \"$line\" ] || { echo \"task $n: not a @VERB@ of the store\" >&2; rc=1; "
	"continue; }\n"
	"\t# what a stopped run of the task kept, to resume after it\n"
	"\trs -r --include=\"$n.db.part\" --exclude='*' \"$far:$dir/runs/\" runs/ || rc=1\n"
	"\tsh -c \"voidfit @VERB@ \\\"\\$0\\\" $rest\" \"$w/store.db\" >\"logs/$n.log\" 2>&1 ||\n"
	"\t\t{ echo \"task $n failed: logs/$n.log\" >&2; rc=1; }\n"
	"\t# back: its log, and its store (or the runs it kept when stopped) in place of what\n"
	"\t# $far has of it (a task that made neither leaves $far's as they are)\n"
	"\tset -- --include=/logs/ --include=\"/logs/$n.log\" --include=\"/$out\"\n"
	"\tif [ -f \"runs/$n.db\" ] || [ -f \"runs/$n.db.part\" ]; then\n"
	"\t\tset -- \"$@\" --include=/runs/ --include=\"/runs/$n.db\" "
	"--include=\"/runs/$n.db.part\"\n"
	"\tfi\n"
	"\tif rs -r --delete \"$@\" --exclude='*' ./ \"$far:$dir/\"; then\n"
	"\t\trm -f \"runs/$n.db\" \"runs/$n.db.part\" \"logs/$n.log\"\n"
	"\telse\n"
	"\t\techo \"task $n: its store and log did not go back to $far\" >&2\n"
	"\t\trc=1\n"
	"\tfi\n"
	"\t[ -z \"$stop\" ] || break\n"
	"done\n"
	"exit $rc\n";

/* What Slurm runs once every task succeeded, as words for sh, into out: a check of the
 * task stores, then the merge into the store storeq (sh-quoted) unless nomerge. */
static void last_step(int nomerge, const struct sbuf *storeq, struct sbuf *out)
{
	sbuf_adds(out, "voidfit sweep status \"$(pwd)\"");
	if (!nomerge)
		sbuf_printf(out, " && voidfit merge %s runs/*.db", storeq->s);
}

/* The command of w's task lines. */
static const char *sweep_verb(const struct sweep *w)
{
	return w->verb ? w->verb : "replay";
}

/* tmpl with each @NAME@ replaced by the value of NAME in names/vals. */
static void fill(const char *tmpl, const char *const *names, const char *const *vals, size_t n,
		 struct sbuf *out)
{
	for (const char *p = tmpl; *p;) {
		size_t i = 0;
		if (*p == '@') /* the whole name: MERGE is not MERGE_FAR */
			while (i < n && (strncmp(p + 1, names[i], strlen(names[i])) ||
					 p[1 + strlen(names[i])] != '@'))
				i++;
		if (*p != '@' || i == n) {
			sbuf_addc(out, *p++);
			continue;
		}
		sbuf_adds(out, vals[i]);
		p += strlen(names[i]) + 2;
	}
}

/* The task lines of w into tasks; returns how many. */
static size_t task_lines(const struct sweep *w, struct sbuf *tasks)
{
	size_t nt = w->ntraces ? w->ntraces : 1, nw = w->nwi ? w->nwi : 1;
	size_t ng = w->ntargets ? w->ntargets : 1, np = w->split ? w->npol : 1, ntask = 0;
	/* the policies by name ('all' as the names it stands for now): status checks a task
	 * store's runs against them */
	struct sbuf pl = SBUF_INIT;
	sbuf_init(&pl);
	for (size_t i = 0; i < w->npol; i++)
		sbuf_printf(&pl, "%s%s", i ? "," : "", w->pols[i]);
	const char *polist = pl.s;
	for (size_t ti = 0; ti < nt; ti++)
		for (size_t wi = 0; wi < nw; wi++)
			for (size_t gi = 0; gi < ng; gi++)
				for (uint64_t s = w->lo;; s++) {
					for (size_t pi = 0; pi < np; pi++) {
						char buf[64];
						sbuf_adds(tasks, "voidfit replay");
						sweep_add_word(tasks, w->store);
						snprintf(buf, sizeof buf, "runs/%zu.db", ++ntask);
						sbuf_adds(tasks, " --into");
						sweep_add_word(tasks, buf);
						/* the file there is this task's: a store that did
						 * not check is replaced */
						sbuf_adds(tasks, " --force --threads 1 --policy");
						if (w->split)
							sweep_add_word(tasks, w->pols[pi]);
						else
							sweep_add_word(tasks, polist);
						sbuf_printf(tasks, " --seed %" PRIu64, s);
						if (w->ntraces) {
							sbuf_adds(tasks, " --trace");
							sweep_add_word(tasks, w->traces[ti]);
						}
						if (w->ntargets) {
							sbuf_adds(tasks,
								  " --mode inflate --target");
							sweep_add_word(tasks, w->targets[gi]);
						}
						for (size_t k = 0; w->nwi && k < w->wi[wi].n; k++)
							sweep_add_word(tasks, w->wi[wi].words[k]);
						if (w->nwi) { /* for the reader: whence the line */
							sbuf_adds(tasks, " #");
							sweep_add_word(tasks, w->wi[wi].where);
						}
						sbuf_addc(tasks, '\n');
					}
					if (s == w->hi)
						break;
				}
	sbuf_release(&pl);
	return ntask;
}

static void hex_of(const void *p, size_t n, char hex[65])
{
	uint8_t d[32];
	sha256_buf(p, n, d);
	sha256_hex(d, hex);
}

/* The identity of sweep w whose task list is tasks into id, and its file into out. */
static void id_text(const struct sweep *w, const struct sbuf *tasks, char id[65], struct sbuf *out)
{
	struct sha256 c;
	uint8_t d[32];
	char th[65];
	size_t nt = w->ntraces ? w->ntraces : 1;
	hex_of(tasks->s, tasks->len, th);
	sha256_init(&c);
	sha256_update(&c, th, 64);
	for (size_t i = 0; i < nt; i++)
		sha256_update(&c, w->digests[i], 64);
	sha256_final(&c, d);
	sha256_hex(d, id);
	sbuf_printf(out,
		    "# the identity of this sweep (voidfit sweep): 'sweep status' and 'merge'\n"
		    "# check the task list and the task stores against it\n"
		    "sweep %s\ntasks %s\nruns-per-task %zu\n",
		    id, th,
		    w->lines   ? w->per_task
		    : w->split ? (size_t)1
			       : w->npol);
	for (size_t i = 0; i < nt; i++)
		sbuf_printf(out, "trace %s\n", w->digests[i]);
}

/*
 * What slurm.sh --transfer needs written in the scripts, from the sweep directory real, the
 * store and the PATH line, each as sh reads it (storeq, pathline): into pre the start of a
 * task line up to the store's path ("voidfit replay STORE "), which an array task replaces
 * by its copy of the store; into mfar the merge job's command, which runs the merge on the
 * host the sweep is on through ssh, its output in logs/merge-JOB.out there.
 */
static void far_lines(const char *verb, int nomerge, const char *real, const struct sbuf *storeq,
		      const struct sbuf *pathline, struct sbuf *pre, struct sbuf *mfar)
{
	struct sbuf t = SBUF_INIT, head = SBUF_INIT;
	sbuf_init(&t);
	sbuf_init(&head);
	sbuf_printf(&t, "voidfit %s %s ", verb, storeq->s);
	sh_quote(pre, t.s);
	/* the remote command, before and after the job's id: words for the shell there */
	sbuf_reset(&t);
	sbuf_adds(&t, pathline->s);
	sbuf_adds(&t, "cd ");
	sh_quote(&t, real);
	sbuf_adds(&t, " && { ");
	last_step(nomerge, storeq, &t);
	sbuf_adds(&t, "; } >logs/merge-");
	sbuf_adds(&head, "exec ${VOIDFIT_SSH:-ssh} \"$VOIDFIT_TRANSFER\" ");
	sh_quote(&head, t.s);
	sbuf_adds(&head, "\"$SLURM_JOB_ID\"");
	sh_quote(&head, ".out 2>&1");
	sh_quote(mfar, head.s);
	sbuf_release(&t);
	sbuf_release(&head);
}

/* Does dir hold what a sweep left, though no task list: a joblog, task stores or logs? */
static const char *leftovers(const char *dir, struct sbuf *path)
{
	static const char *const what[] = {"joblog", "sweep.id", "runs", "logs"};
	for (size_t i = 0; i < sizeof what / sizeof *what; i++) {
		struct stat sb;
		sbuf_reset(path);
		sbuf_printf(path, "%s/%s", dir, what[i]);
		if (lstat(path->s, &sb) != 0 || S_ISLNK(sb.st_mode))
			continue; /* a link is refused when written through (make_dir) */
		if (!S_ISDIR(sb.st_mode))
			return what[i];
		DIR *d = opendir(path->s);
		struct dirent *de;
		int empty = 1;
		while (d && empty && (de = readdir(d)))
			empty = !strcmp(de->d_name, ".") || !strcmp(de->d_name, "..");
		if (d)
			closedir(d);
		if (!empty)
			return what[i];
	}
	return NULL;
}

int sweep_write(const struct sweep *w, const char *dir, int *same, struct err *e)
{
	struct sbuf tasks = SBUF_INIT, path = SBUF_INIT, text = SBUF_INIT, pathline = SBUF_INIT,
		    store = SBUF_INIT, idt = SBUF_INIT, sb_lines = SBUF_INIT, dirq = SBUF_INIT,
		    merge = SBUF_INIT, mq = SBUF_INIT, pre = SBUF_INIT, mfar = SBUF_INIT;
	struct sweep_id old = {0};
	struct err e2 = {0};
	char *real = NULL, newid[65];
	const char *left;
	int rc = 0;
	struct stat sb;

	sbuf_init(&tasks);
	sbuf_init(&path);
	sbuf_init(&text);
	sbuf_init(&pathline);
	sbuf_init(&store);
	sbuf_init(&idt);
	sbuf_init(&sb_lines);
	sbuf_init(&dirq);
	sbuf_init(&merge);
	sbuf_init(&mq);
	sbuf_init(&pre);
	sbuf_init(&mfar);
	*same = 0;
	size_t ntask = w->lines ? w->nlines : task_lines(w, &tasks);
	if (w->lines)
		sbuf_adds(&tasks, w->lines);
	id_text(w, &tasks, newid, &idt);
	sbuf_printf(&path, "%s/tasks", dir);
	if (lstat(path.s, &sb) == 0) {
		if (S_ISLNK(sb.st_mode)) {
			rc = err_set(e, VF_EINPUT, "%s: a symbolic link, not followed", path.s);
			goto out;
		}
		/* the same sweep again: its scripts are written anew, its runs kept */
		if (sweep_id_read(dir, &old, &e2) || strcmp(old.id, newid)) {
			rc = err_set(
				e, VF_EINPUT,
				"%s: holds a sweep already (%s), not this one: give another -o",
				dir, path.s);
			goto out;
		}
		*same = 1;
	} else if ((left = leftovers(dir, &path))) {
		rc = err_set(e, VF_EINPUT,
			     "%s: holds what another sweep left (%s/%s) and no task list: give "
			     "another -o, or remove it",
			     dir, dir, left);
		goto out;
	}
	if ((rc = make_dir(dir, 1, e)))
		goto out;
	real = realpath(dir, NULL);
	if (!real) {
		rc = err_set(e, VF_EIO, "%s: %s", dir, strerror(errno));
		goto out;
	}
	if (w->bindir) {
		sbuf_adds(&pathline, "PATH=");
		sh_quote(&pathline, w->bindir);
		sbuf_adds(&pathline, ":$PATH\nexport PATH\n");
	}
	sh_quote(&store, w->store);
	sh_quote(&dirq, real);
	/* the merge job's command, one word for its --wrap */
	sbuf_adds(&merge, pathline.s);
	last_step(w->no_merge, &store, &merge);
	sh_quote(&mq, merge.s);
	far_lines(sweep_verb(w), w->no_merge, real, &store, &pathline, &pre, &mfar);
	if (w->mem)
		sbuf_printf(&sb_lines, "#SBATCH --mem=%s\n", w->mem);
	if (w->time)
		sbuf_printf(&sb_lines, "#SBATCH --time=%s\n", w->time);
	for (size_t i = 0; i < w->nsbopt; i++)
		sbuf_printf(&sb_lines, "#SBATCH %s\n", w->sbopt[i]);
	char nbuf[32], cbuf[32];
	snprintf(nbuf, sizeof nbuf, "%zu", ntask);
	snprintf(cbuf, sizeof cbuf, "%zu", w->cells ? w->cells : 1);
	char idbuf[17];
	snprintf(idbuf, sizeof idbuf, "%.16s", newid);
	const char *names[] = {"PATH",  "STORE", "N",   "C",         "DIR",  "SBATCH",
			       "MERGE", "ID",    "PRE", "MERGE_FAR", "VERB", "LAST"};
	const char *vals[] = {
		pathline.s, store.s,       nbuf,
		cbuf,       dirq.s,        sb_lines.s,
		mq.s,       idbuf,         pre.s,
		mfar.s,     sweep_verb(w), w->no_merge ? "voidfit sweep status" : "voidfit merge"};
	const size_t nnames = sizeof names / sizeof *names;
	sbuf_reset(&path);
	sbuf_printf(&path, "%s/runs", dir);
	if ((rc = make_dir(path.s, 0, e)))
		goto out;
	sbuf_reset(&path);
	sbuf_printf(&path, "%s/logs", dir);
	if ((rc = make_dir(path.s, 0, e)))
		goto out;
	static const struct {
		const char *name, *tmpl;
	} scripts[] = {{"parallel.sh", parallel_sh},
		       {"slurm.sh", slurm_sh},
		       {"slurm.sbatch", slurm_sbatch}};
	for (size_t i = 0; i < sizeof scripts / sizeof *scripts; i++) {
		sbuf_reset(&text);
		fill(scripts[i].tmpl, names, vals, nnames, &text);
		if ((rc = write_file(dir, scripts[i].name, text.s, OUTFILE_REPLACE | OUTFILE_EXEC,
				     e)))
			goto out;
	}
	if (*same)
		goto out;
	/* the identity, then the task list last: a directory with tasks is a whole sweep */
	if ((rc = write_file(dir, "sweep.id", idt.s, OUTFILE_REPLACE, e)))
		goto out;
	if ((rc = write_file(dir, "tasks", tasks.s, 0, e))) {
		sbuf_reset(&path);
		sbuf_printf(&path, "%s/sweep.id", dir);
		unlink(path.s);
	}
out:
	sweep_id_release(&old);
	free(real);
	sbuf_release(&tasks);
	sbuf_release(&path);
	sbuf_release(&text);
	sbuf_release(&pathline);
	sbuf_release(&store);
	sbuf_release(&idt);
	sbuf_release(&sb_lines);
	sbuf_release(&dirq);
	sbuf_release(&merge);
	sbuf_release(&mq);
	sbuf_release(&pre);
	sbuf_release(&mfar);
	return rc;
}

/* ---- task stores ---- */

static int same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* May a task store of trace_id of from go to path (and path + SWEEP_PART, part)? Sets
 * k->replace and what is replaced. */
static int check_into(struct store *from, const char *from_path, int64_t trace_id, const char *path,
		      const char *part, int force, struct sweep_task *k, struct err *e)
{
	struct stat ss, sp;
	char want[65], have[65];
	struct err te = {0};
	if (stat(from_path, &ss) != 0)
		return err_set(e, VF_EIO, "%s: %s", from_path, strerror(errno));
	if (stat(path, &sp) == 0 && same_file(&sp, &ss))
		return err_set(e, VF_EINPUT,
			       "%s: the same file as %s, the store read; give a new file", path,
			       from_path);
	if (stat(part, &sp) == 0 && same_file(&sp, &ss))
		return err_set(e, VF_EINPUT,
			       "%s: its temporary %s is %s, the store read; give another file",
			       path, part, from_path);
	if (lstat(path, &sp) != 0) {
		if (errno != ENOENT)
			return err_set(e, VF_EIO, "%s: %s", path, strerror(errno));
		return 0;
	}
	if (!S_ISREG(sp.st_mode))
		return err_set(e, VF_EINPUT, "%s: %s, not replaced", path,
			       S_ISLNK(sp.st_mode)   ? "a symbolic link"
			       : S_ISDIR(sp.st_mode) ? "a directory"
						     : "not a regular file");
	if (!force && (store_task_digest(path, have, &te) ||
		       store_trace_digest(from, trace_id, want, &te) || strcmp(have, want)))
		return err_set(e, VF_EINPUT,
			       "%s: a file is there, not a finished task store of this trace "
			       "(--force replaces it)",
			       path);
	k->replace = 1;
	k->dev = sp.st_dev;
	k->ino = sp.st_ino;
	return 0;
}

/* Reopen the task store a stopped or killed run of this task left at part, if it is an
 * unfinished task store of the trace digest want, whole: its runs are kept and the task
 * resumes after them. Opening it read-write first rolls back a transaction the kill cut
 * (its journal is hot). NULL when there is none to resume: anything else there is removed. */
static struct store *reopen_part(const char *part, const char *want, int64_t *runs)
{
	struct store *t = NULL;
	struct store_task_info info;
	struct err te = {0};
	struct stat sb;
	if (lstat(part, &sb) != 0 || !S_ISREG(sb.st_mode))
		return NULL;
	int bad = store_open(part, 0, &t, &te) || store_task_verify(t, &info, &te) ||
		  info.finished || strcmp(info.sha256, want);
	free(t ? info.pairs : NULL);
	if (bad) {
		store_close(t);
		return NULL;
	}
	*runs = info.runs;
	return t;
}

int sweep_task_begin(struct store *from, const char *from_path, int64_t trace_id, const char *path,
		     int force, struct sweep_task *k, struct err *e)
{
	struct sbuf part = SBUF_INIT;
	struct store *t = NULL;
	char want[65];
	int rc;
	memset(k, 0, sizeof *k);
	sbuf_init(&part);
	sbuf_printf(&part, "%s" SWEEP_PART, path);
	if ((rc = check_into(from, from_path, trace_id, path, part.s, force, k, e)) ||
	    (rc = store_trace_digest(from, trace_id, want, e))) {
		sbuf_release(&part);
		return rc;
	}
	if ((t = reopen_part(part.s, want, &k->resumed))) {
		k->t = t;
		k->path = xstrdup(path);
		sbuf_release(&part);
		return 0;
	}
	unlink(part.s); /* what a killed run of this task left, not to be resumed */
	sbuf_adds(&part, "-journal");
	unlink(part.s);
	part.s[part.len -= 8] = '\0';
	if (!(rc = store_open(part.s, STORE_CREATE, &t, e)) && !(rc = store_begin(t, e)) &&
	    !(rc = store_task_init(t, from, trace_id, e)))
		rc = store_commit(t, e);
	if (rc) {
		store_close(t);
		unlink(part.s);
	} else {
		k->t = t;
		k->path = xstrdup(path);
	}
	sbuf_release(&part);
	return rc;
}

int sweep_task_end(struct sweep_task *k, int64_t trace_id, enum sweep_end how, struct err *e)
{
	struct sbuf part = SBUF_INIT;
	struct stat sb;
	int rc = 0, ok = how == SWEEP_END_DONE;
	if (!k->t)
		return 0;
	sbuf_init(&part);
	sbuf_printf(&part, "%s" SWEEP_PART, k->path);
	/* compacted before it is sealed: a sealed task store is never written again */
	if (ok && !(rc = store_task_compact(k->t, e)) && !(rc = store_begin(k->t, e)) &&
	    !(rc = store_task_seal(k->t, trace_id, e)))
		rc = store_commit(k->t, e);
	store_close(k->t);
	if (ok && !rc && k->replace) {
		if (lstat(k->path, &sb) != 0 || !S_ISREG(sb.st_mode) || sb.st_dev != k->dev ||
		    sb.st_ino != k->ino)
			rc = err_set(e, VF_EIO, "%s: changed while the task ran; left as it is",
				     k->path);
		else if (rename(part.s, k->path))
			rc = err_set(e, VF_EIO, "%s: %s", k->path, strerror(errno));
	} else if (ok && !rc && link(part.s, k->path)) {
		int err = errno;
		rc = err_set(e, VF_EIO, "%s: %s%s", k->path, strerror(err),
			     err == EEXIST ? " (a file appeared there while the task ran; left "
					     "as it is)"
					   : "");
	}
	if (how != SWEEP_END_KEEP)
		unlink(part.s); /* after a link, or a failure */
	sbuf_release(&part);
	free(k->path);
	memset(k, 0, sizeof *k);
	return rc;
}

/* ---- status ---- */

void sweep_id_release(struct sweep_id *id)
{
	if (!id)
		return;
	free(id->traces);
	memset(id, 0, sizeof *id);
}

/* A 64-digit lowercase hex digest at the start of s into hex; 0 if there is none. */
static int take_hex(const char *s, char hex[65])
{
	size_t n = strspn(s, "0123456789abcdef");
	if (n != 64 || (s[64] && s[64] != '\n'))
		return 0;
	memcpy(hex, s, 64);
	hex[64] = '\0';
	return 1;
}

int sweep_id_read(const char *dir, struct sweep_id *out, struct err *e)
{
	struct sbuf path = SBUF_INIT, text = SBUF_INIT, tasks = SBUF_INIT;
	char th[65];
	int rc = 0, have = 0;
	memset(out, 0, sizeof *out);
	sbuf_init(&path);
	sbuf_init(&text);
	sbuf_init(&tasks);
	sbuf_printf(&path, "%s/tasks", dir);
	if ((rc = words_read_file(path.s, (size_t)1 << 30, "a task list", &tasks, e))) {
		sbuf_reset(&path);
		sbuf_printf(&path, "%s/tasks", dir);
		if (access(path.s, F_OK))
			rc = err_set(e, VF_EINPUT, "%s: not a sweep directory: no %s", dir, path.s);
		goto out;
	}
	sbuf_reset(&path);
	sbuf_printf(&path, "%s/sweep.id", dir);
	if (words_read_file(path.s, (size_t)1 << 20, "a sweep identity", &text, e)) {
		rc = err_set(e, VF_EINPUT,
			     "%s: no sweep identity (%s): a sweep of an older voidfit, or not "
			     "written whole; write the sweep anew",
			     dir, path.s);
		goto out;
	}
	for (char *p = text.s; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		long long v;
		if (!strncmp(p, "sweep ", 6) && take_hex(p + 6, out->id))
			have |= 1;
		else if (!strncmp(p, "tasks ", 6) && take_hex(p + 6, out->tasks))
			have |= 2;
		else if (sscanf(p, "runs-per-task %lld", &v) == 1 && v > 0) {
			out->runs = v;
			have |= 4;
		} else if (!strncmp(p, "trace ", 6)) {
			out->traces =
				xrealloc(out->traces, (out->ntraces + 1) * sizeof *out->traces);
			if (take_hex(p + 6, out->traces[out->ntraces]))
				out->ntraces++;
		}
	}
	if (have != 7 || !out->ntraces) {
		rc = err_set(e, VF_EINPUT,
			     "%s: not a sweep identity (sweep, tasks, runs-per-task, "
			     "trace lines)",
			     path.s);
		goto out;
	}
	hex_of(tasks.s, tasks.len, th);
	if (strcmp(th, out->tasks))
		rc = err_set(e, VF_EINPUT,
			     "%s/tasks: changed since the sweep was written (its sha256 is not the "
			     "one of %s): write the sweep anew",
			     dir, path.s);
out:
	if (rc)
		sweep_id_release(out);
	sbuf_release(&path);
	sbuf_release(&text);
	sbuf_release(&tasks);
	return rc;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The (policy, seed) pairs task line line runs, as store_task_verify lists a store's:
 * "POLICY SEED" lines, sorted; for a verdict's task (--resample R), whose policies are
 * those of its --hints, "POLICY resample R". Empty when the line does not say (not written
 * by sweep). */
static void line_pairs(const char *line, struct sbuf *out)
{
	const char *p = strstr(line, " --policy "), *s = strstr(line, " --seed ");
	const char *r = strstr(line, " --resample "), *h = strstr(line, " --hints ");
	if (r && h)
		p = h + 9, s = r + 12;
	else if (p && s)
		p += 10, s += 8;
	else
		return;
	char *list = xstrndup(p, strcspn(p, " ")), **names = NULL, *save = NULL;
	unsigned long long seed = strtoull(s, NULL, 10);
	size_t n = 0;
	for (char *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		names = xrealloc(names, (n + 1) * sizeof *names);
		names[n++] = t;
		if (r && h) /* NAME:STEP */
			t[strcspn(t, ":")] = '\0';
	}
	qsort(names, n, sizeof *names, cmp_str);
	for (size_t i = 0; i < n; i++)
		sbuf_printf(out, "%s %s%llu\n", names[i], r && h ? "resample " : "", seed);
	free(names);
	free(list);
}

int sweep_task_check(const struct sweep_id *id, const char *path, const char *line, struct err *e)
{
	struct store *t = NULL;
	struct store_task_info info = {0};
	struct sbuf want = SBUF_INIT;
	size_t i = 0;
	int rc = store_open(path, STORE_RDONLY, &t, e);
	sbuf_init(&want);
	if (line)
		line_pairs(line, &want);
	if (rc)
		rc = e->code = VF_ESTORE;
	else if (!(rc = store_task_verify(t, &info, e))) {
		while (i < id->ntraces && strcmp(id->traces[i], info.sha256))
			i++;
		if (!info.finished)
			rc = err_set(e, VF_ESTORE, "%s: not a finished task store", path);
		else if (i == id->ntraces)
			rc = err_set(
				e, VF_ESTORE,
				"%s: trace sha256 %s, not a trace of this sweep (its task store "
				"is another sweep's)",
				path, info.sha256);
		else if (strcmp(info.version, VOIDFIT_VERSION))
			rc = err_set(e, VF_ESTORE, "%s: made by voidfit %s; this is voidfit %s",
				     path, info.version, VOIDFIT_VERSION);
		else if (info.runs != id->runs)
			rc = err_set(e, VF_ESTORE,
				     "%s: %" PRId64 " runs; a task of this sweep stores %" PRId64,
				     path, info.runs, id->runs);
		else if (want.len && strcmp(want.s, info.pairs))
			rc = err_set(e, VF_ESTORE,
				     "%s: not the runs of its task (policies and seed): another "
				     "task's store",
				     path);
	}
	free(info.pairs);
	sbuf_release(&want);
	store_close(t);
	return rc;
}

int sweep_task_line(const char *dir, size_t n, struct sbuf *out)
{
	struct sbuf path = SBUF_INIT;
	char *line = NULL;
	size_t cap = 0, k = 0;
	ssize_t len = -1;
	sbuf_init(&path);
	sbuf_printf(&path, "%s/tasks", dir);
	FILE *f = fopen(path.s, "r");
	while (f && k < n && (len = getline(&line, &cap, f)) >= 0)
		k++;
	if (f)
		fclose(f);
	sbuf_reset(out);
	if (k == n && len >= 0)
		sbuf_add(out, line, (size_t)len);
	free(line);
	sbuf_release(&path);
	return k == n && len >= 0 ? 0 : -1;
}

/* The last line of file path that says something (NULL if none or unreadable; the caller
 * frees): not empty, and not the "see 'voidfit CMD -h'" after a usage error. */
static char *last_line(const char *path)
{
	FILE *f = fopen(path, "r");
	char *line = NULL, *last = NULL;
	size_t cap = 0;
	ssize_t n;
	if (!f)
		return NULL;
	while ((n = getline(&line, &cap, f)) >= 0) {
		while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			line[--n] = '\0';
		if (n && strncmp(line, "see 'voidfit ", 13)) {
			free(last);
			last = xstrdup(line);
		}
	}
	free(line);
	fclose(f);
	return last;
}

static int exists(const char *path)
{
	struct stat sb;
	return stat(path, &sb) == 0;
}

int sweep_count_tasks(const char *dir, size_t *n, struct err *e)
{
	struct sbuf path = SBUF_INIT;
	sbuf_init(&path);
	sbuf_printf(&path, "%s/tasks", dir);
	FILE *f = fopen(path.s, "r");
	int c, rc = 0;
	*n = 0;
	if (!f)
		rc = err_set(e, errno == ENOENT ? VF_EINPUT : VF_EIO, "%s: %s%s", dir,
			     errno == ENOENT ? "not a sweep directory: no " : "", path.s);
	while (f && (c = getc(f)) != EOF)
		*n += c == '\n';
	if (f)
		fclose(f);
	sbuf_release(&path);
	return rc;
}

int sweep_status_read(const char *dir, struct sweep_status *out, struct err *e)
{
	struct sbuf path = SBUF_INIT;
	struct sweep_id id;
	memset(out, 0, sizeof *out);
	int rc = sweep_id_read(dir, &id, e);
	if (rc || (rc = sweep_count_tasks(dir, &out->n, e))) {
		sweep_id_release(&id);
		return rc;
	}
	sbuf_init(&path);
	sbuf_printf(&path, "%s/tasks", dir);
	FILE *tf = fopen(path.s, "r");
	char *line = NULL;
	size_t cap = 0;
	out->state = xcalloc(out->n ? out->n : 1, sizeof *out->state);
	out->last = xcalloc(out->n ? out->n : 1, sizeof *out->last);
	for (size_t i = 0; i < out->n; i++) {
		enum sweep_state s = SWEEP_MISSING;
		struct err te = {0};
		int have = tf && getline(&line, &cap, tf) >= 0;
		sbuf_reset(&path);
		sbuf_printf(&path, "%s/runs/%zu.db", dir, i + 1);
		if (exists(path.s)) {
			s = SWEEP_DONE;
			if (sweep_task_check(&id, path.s, have ? line : NULL, &te)) {
				s = SWEEP_INVALID;
				out->last[i] = xstrdup(te.msg);
				/* SQLite's check says one problem a line: one line here */
				for (char *c = out->last[i]; (c = strchr(c, '\n'));)
					*c = ' ';
			}
		} else {
			sbuf_adds(&path, SWEEP_PART);
			int part = exists(path.s);
			sbuf_reset(&path);
			sbuf_printf(&path, "%s/logs/%zu.log", dir, i + 1);
			out->last[i] = last_line(path.s);
			if (part)
				s = SWEEP_PARTIAL;
			else if (exists(path.s))
				s = SWEEP_FAILED;
		}
		out->state[i] = s;
		out->count[s]++;
	}
	if (tf)
		fclose(tf);
	free(line);
	sweep_id_release(&id);
	sbuf_release(&path);
	return 0;
}

void sweep_status_todo(const struct sweep_status *s, struct sbuf *out)
{
	for (size_t i = 0; i < s->n; i++) {
		if (s->state[i] == SWEEP_DONE)
			continue;
		size_t j = i;
		while (j + 1 < s->n && s->state[j + 1] != SWEEP_DONE)
			j++;
		sbuf_printf(out, "%s%zu", out->len ? "," : "", i + 1);
		if (j > i)
			sbuf_printf(out, "-%zu", j + 1);
		i = j;
	}
}

void sweep_status_release(struct sweep_status *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n && s->last; i++)
		free(s->last[i]);
	FREE_ALL(s->last, s->state);
	memset(s, 0, sizeof *s);
}

int sweep_task_of(const char *path, struct sbuf *dir, size_t *n)
{
	const char *base = strrchr(path, '/');
	const char *stem = base ? base + 1 : path;
	size_t k = 0, digits = 0;
	for (const char *p = stem; *p >= '0' && *p <= '9'; p++, digits++)
		k = k * 10 + (size_t)(*p - '0');
	if (!digits || digits > 9 || *stem == '0' || strcmp(stem + digits, ".db"))
		return 0;
	sbuf_reset(dir);
	if (base)
		sbuf_add(dir, path, (size_t)(base - path));
	else
		sbuf_adds(dir, ".");
	/* DIR/runs: the sweep is its parent */
	const char *r = strrchr(dir->s, '/');
	const char *last = r ? r + 1 : dir->s;
	if (strcmp(last, "runs"))
		return 0;
	if (r) {
		dir->len = (size_t)(r - dir->s);
		dir->s[dir->len] = '\0';
		if (!dir->len)
			sbuf_adds(dir, "/");
	} else {
		sbuf_reset(dir);
		sbuf_adds(dir, ".");
	}
	sbuf_adds(dir, "/tasks");
	int ok = exists(dir->s);
	dir->len -= 6;
	dir->s[dir->len] = '\0';
	*n = k;
	return ok;
}
