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
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outfile.h"
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
	free(w->targets);
	free(w->traces);
	free(w->wi);
	free(w->store);
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
	double n = (double)nt * (double)nw * (double)ng * (double)ns;
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
static void add_word(struct sbuf *b, const char *s)
{
	sbuf_addc(b, ' ');
	sh_quote(b, s);
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
	"# Run the tasks of this sweep (one a line in 'tasks') with GNU parallel; written by\n"
	"# 'voidfit sweep'. Task N writes runs/N.db, its output goes to logs/N.log, and the\n"
	"# joblog records its exit status: run this again to run only the tasks that failed or\n"
	"# did not run (--resume-failed). It exits with the number of tasks that failed, or 1\n"
	"# when every task exited 0 but some task store is not here.\n"
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
	"cd \"$(dirname \"$0\")\"\n"
	"mkdir -p runs logs\n"
	"if [ -n \"$transfer\" ]; then\n"
	"\tset -- --basefile @STORE@ --workdir . --return 'runs/{#}.db' --return 'logs/{#}.log' "
	"\"$@\"\n"
	"fi\n"
	"rc=0\n"
	"parallel --will-cite --joblog joblog --resume-failed -j \"$jobs\" \"$@\" \\\n"
	"\t'mkdir -p runs logs && sh -c {} >logs/{#}.log 2>&1' <tasks || rc=$?\n"
	"# every task exited 0: each task store must be here too (a task whose store did not\n"
	"# come back, or was removed since, is missing: say so and fail)\n"
	"if [ $rc -eq 0 ]; then\n"
	"\ts=$(voidfit sweep status \"$(pwd)\" 2>&1) || {\n"
	"\t\tprintf '%s\\n' \"$s\" >&2\n"
	"\t\techo 'parallel.sh: every task exited 0, but task stores are missing here' >&2\n"
	"\t\trc=1\n"
	"\t}\n"
	"fi\n"
	"exit $rc\n";

static const char slurm_sbatch[] =
	"#!/bin/sh\n"
	"# A Slurm job array of this sweep's tasks; written by 'voidfit sweep'. Submit it with\n"
	"# 'sbatch slurm.sbatch'. Array task N runs line N of 'tasks' (it writes runs/N.db; its\n"
	"# log is logs/N.log); at most @K@ run at once. 'voidfit sweep status' names the tasks\n"
	"# that failed or did not run; 'sbatch --array=3,7 slurm.sbatch' runs them again.\n"
	"#SBATCH --job-name=voidfit-sweep\n"
	"#SBATCH --array=1-@N@%@K@\n"
	"#SBATCH --ntasks=1\n"
	"#SBATCH --cpus-per-task=1\n"
	"#SBATCH --chdir=@DIR@\n"
	"#SBATCH --output=logs/%a.log\n"
	"set -eu\n"
	"@PATH@"
	"line=$(sed -n \"${SLURM_ARRAY_TASK_ID}p\" tasks)\n"
	"[ -n \"$line\" ] || { echo \"no task ${SLURM_ARRAY_TASK_ID} in tasks\" >&2; exit 1; }\n"
	"exec sh -c \"$line\"\n";

/* tmpl with each @NAME@ replaced by the value of NAME in names/vals. */
static void fill(const char *tmpl, const char *const *names, const char *const *vals, size_t n,
		 struct sbuf *out)
{
	for (const char *p = tmpl; *p;) {
		size_t i = 0;
		if (*p == '@')
			while (i < n && strncmp(p + 1, names[i], strlen(names[i])))
				i++;
		if (*p != '@' || i == n) {
			sbuf_addc(out, *p++);
			continue;
		}
		sbuf_adds(out, vals[i]);
		p += strlen(names[i]) + 2;
	}
}

int sweep_write(const struct sweep *w, const char *dir, struct err *e)
{
	struct sbuf tasks = SBUF_INIT, path = SBUF_INIT, text = SBUF_INIT, pathline = SBUF_INIT,
		    store = SBUF_INIT;
	size_t nt = w->ntraces ? w->ntraces : 1, nw = w->nwi ? w->nwi : 1;
	size_t ng = w->ntargets ? w->ntargets : 1, ntask = 0;
	char *real = NULL;
	int rc = 0;
	struct stat sb;

	sbuf_init(&tasks);
	sbuf_init(&path);
	sbuf_init(&text);
	sbuf_init(&pathline);
	sbuf_init(&store);
	sbuf_printf(&path, "%s/tasks", dir);
	if (lstat(path.s, &sb) == 0) {
		rc = S_ISLNK(sb.st_mode)
			     ? err_set(e, VF_EINPUT, "%s: a symbolic link, not followed", path.s)
			     : err_set(e, VF_EINPUT,
				       "%s: holds a sweep already (%s): give another -o", dir,
				       path.s);
		goto out;
	}
	for (size_t ti = 0; ti < nt; ti++)
		for (size_t wi = 0; wi < nw; wi++)
			for (size_t gi = 0; gi < ng; gi++)
				for (uint64_t s = w->lo;; s++) {
					char buf[64];
					sbuf_adds(&tasks, "voidfit replay");
					add_word(&tasks, w->store);
					snprintf(buf, sizeof buf, "runs/%zu.db", ++ntask);
					sbuf_adds(&tasks, " --into");
					add_word(&tasks, buf);
					sbuf_adds(&tasks, " --threads 1 --policy");
					add_word(&tasks, w->policies);
					sbuf_printf(&tasks, " --seed %" PRIu64, s);
					if (w->ntraces) {
						sbuf_adds(&tasks, " --trace");
						add_word(&tasks, w->traces[ti]);
					}
					if (w->ntargets) {
						sbuf_adds(&tasks, " --mode inflate --target");
						add_word(&tasks, w->targets[gi]);
					}
					for (size_t k = 0; w->nwi && k < w->wi[wi].n; k++)
						add_word(&tasks, w->wi[wi].words[k]);
					if (w->nwi) { /* a comment for the reader: whence the line
						       */
						sbuf_adds(&tasks, " #");
						add_word(&tasks, w->wi[wi].where);
					}
					sbuf_addc(&tasks, '\n');
					if (s == w->hi)
						break;
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
	char nbuf[32], kbuf[32];
	snprintf(nbuf, sizeof nbuf, "%zu", ntask);
	snprintf(kbuf, sizeof kbuf, "%zu", ntask < 64 ? ntask : (size_t)64);
	const char *names[] = {"PATH", "STORE", "N", "K", "DIR"};
	const char *vals[] = {pathline.s, store.s, nbuf, kbuf, real};
	sbuf_reset(&path);
	sbuf_printf(&path, "%s/runs", dir);
	if ((rc = make_dir(path.s, 0, e)))
		goto out;
	sbuf_reset(&path);
	sbuf_printf(&path, "%s/logs", dir);
	if ((rc = make_dir(path.s, 0, e)))
		goto out;
	fill(parallel_sh, names, vals, 5, &text);
	if ((rc = write_file(dir, "parallel.sh", text.s, OUTFILE_REPLACE | OUTFILE_EXEC, e)))
		goto out;
	sbuf_reset(&text);
	fill(slurm_sbatch, names, vals, 5, &text);
	if ((rc = write_file(dir, "slurm.sbatch", text.s, OUTFILE_REPLACE | OUTFILE_EXEC, e)))
		goto out;
	/* the task list last: a directory with tasks is a whole sweep */
	rc = write_file(dir, "tasks", tasks.s, 0, e);
out:
	free(real);
	sbuf_release(&tasks);
	sbuf_release(&path);
	sbuf_release(&text);
	sbuf_release(&pathline);
	sbuf_release(&store);
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
	if (store_open(part, 0, &t, &te) || store_task_verify(t, &info, &te) || info.finished ||
	    strcmp(info.sha256, want)) {
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
	memset(out, 0, sizeof *out);
	int rc = sweep_count_tasks(dir, &out->n, e);
	if (rc)
		return rc;
	sbuf_init(&path);
	out->state = xcalloc(out->n ? out->n : 1, sizeof *out->state);
	out->last = xcalloc(out->n ? out->n : 1, sizeof *out->last);
	for (size_t i = 0; i < out->n; i++) {
		enum sweep_state s = SWEEP_MISSING;
		sbuf_reset(&path);
		sbuf_printf(&path, "%s/runs/%zu.db", dir, i + 1);
		if (exists(path.s)) {
			s = SWEEP_DONE;
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
	sbuf_release(&path);
	return 0;
}

void sweep_status_release(struct sweep_status *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n && s->last; i++)
		free(s->last[i]);
	free(s->last);
	free(s->state);
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
