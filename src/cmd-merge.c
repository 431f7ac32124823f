/*
 * cmd-merge.c — 'voidfit merge': fold the task stores of a sweep into the store, in one
 * transaction: every task store is checked (store_merge_task) and, if one is refused, nothing
 * is merged; if the store cannot be written (a full disk), the merge stops at once and puts
 * the store back as it was. Then it lists the tasks of each sweep that have no task store, to
 * run again.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "sweep.h"

struct seen;

/* The merge under way. */
struct merge_cmd {
	struct store_merge *m;
	struct seen *sw; /* nsw sweeps the task stores are of */
	size_t nsw;
	int64_t added, skipped;
};

CMD_DECLARE_HOOKS(merge);

const struct cmd_entry cmd_merge_entry = {
	.name = "merge",
	.usage = "STORE TASKSTORE...",
	.summary = "fold the task stores of a sweep into the store",
	.help = "Each TASKSTORE (DIR/runs/N.db of 'voidfit sweep') must be a finished task\n"
		"store of a trace STORE holds (the same sha256 of its files' sha256s), made by\n"
		"this version of voidfit. Its runs join the scenario a replay in STORE would\n"
		"have used; a run STORE has already (same scenario, policy and seed) is not\n"
		"added again. One transaction: when a task store is refused (damaged, unfinished,\n"
		"another trace or version), or STORE's disk is full, nothing is merged and STORE\n"
		"is as it was. A task store of a sweep directory (DIR/runs/N.db) is checked\n"
		"against the sweep's identity (DIR/sweep.id: its task list, traces and runs a\n"
		"task); the tasks of a sweep with no task store among those given are listed,\n"
		"to run again.\n",
	.store = CMD_STORE_WRITE, /* check has seen STORE and a TASKSTORE */
	CMD_HOOKS(merge, merge_cmd),
};

/* A sweep met among the task stores: its directory, identity and which of its tasks were
 * given. */
struct seen {
	char *dir;
	size_t n;           /* its tasks */
	uint8_t *given;     /* n flags */
	struct sweep_id id; /* ok: read and its task list checks */
	int ok;
	char *why; /* else why not (owned) */
};

/* The task store at path, if it is task N of a sweep directory (DIR/runs/N.db): checked
 * against the sweep's identity (sweep_task_check), the sweep noted in sw. Returns 0 or
 * VF_ESTORE (e set). */
static int note_task(struct seen **sw, size_t *nsw, const char *path, struct err *e)
{
	struct sbuf dir = SBUF_INIT, line = SBUF_INIT;
	struct err e2 = {0};
	size_t k, i, n;
	int rc = 0;
	sbuf_init(&dir);
	sbuf_init(&line);
	if (!sweep_task_of(path, &dir, &k))
		goto out;
	for (i = 0; i < *nsw && strcmp((*sw)[i].dir, dir.s); i++)
		;
	if (i == *nsw) {
		if (sweep_count_tasks(dir.s, &n, &e2))
			goto out;
		*sw = xrealloc(*sw, (*nsw + 1) * sizeof **sw);
		struct seen *s = &(*sw)[i];
		memset(s, 0, sizeof *s);
		s->dir = xstrdup(dir.s);
		s->n = n;
		s->given = xcalloc(n + 1, 1);
		s->ok = !sweep_id_read(dir.s, &s->id, &e2);
		if (!s->ok)
			s->why = xstrdup(e2.msg);
		(*nsw)++;
	}
	struct seen *s = &(*sw)[i];
	if (!s->ok)
		rc = err_set(e, VF_ESTORE, "%s: of the sweep %s, which does not check: %s", path,
			     s->dir, s->why);
	else if (k < 1 || k > s->n)
		rc = err_set(e, VF_ESTORE, "%s: the sweep %s has no task %zu", path, s->dir, k);
	else if (!(rc = sweep_task_check(&s->id, path,
					 sweep_task_line(dir.s, k, &line) ? NULL : line.s, e)))
		s->given[k - 1] = 1;
out:
	sbuf_release(&dir);
	sbuf_release(&line);
	return rc;
}

/* The tasks of sw that were not given, as "3,5-9" (every one: sbatch --array takes it). */
static size_t print_missing(const struct seen *sw)
{
	size_t miss = 0;
	for (size_t i = 0; i < sw->n; i++)
		miss += !sw->given[i];
	if (!miss)
		return 0;
	fprintf(stderr, "%s: %zu of %zu tasks have no task store here: ", sw->dir, miss, sw->n);
	unsigned char *in = xcalloc(sw->n + 1, 1);
	for (size_t i = 0; i < sw->n; i++)
		in[i] = !sw->given[i];
	cmd_print_ranges(stderr, in, sw->n);
	free(in);
	fprintf(stderr,
		"\nrun them again: %s/parallel.sh or %s/slurm.sh (each runs what is not done);\n"
		"'voidfit sweep status %s' says why\n",
		sw->dir, sw->dir, sw->dir);
	return miss;
}

/* The store at path could not be written (a full disk): say why, and put it back as it was.
 * After a failed write SQLite may leave the rollback to the next connection (the journal
 * stays hot, the file holds half-written pages): opening the store again rolls it back now,
 * so the file alone is whole again. Closes *st and ends *m. */
static int unchanged(const char *path, struct store **st, struct store_merge **m,
		     const struct err *e)
{
	struct err e2 = {0};
	cmd_fail(&cmd_merge_entry, "%s", e->msg);
	store_rollback(*st);
	store_merge_end(*m);
	store_close(*st);
	*m = NULL;
	*st = NULL;
	if (store_open(path, STORE_RDONLY, st, &e2))
		return cmd_fail(&cmd_merge_entry,
				"merged nothing: %s is rolled back when next opened (%s)", path,
				e2.msg);
	store_close(*st);
	*st = NULL;
	return cmd_fail(&cmd_merge_entry, "merged nothing: %s is unchanged", path);
}

static int check_merge(struct cmd_ctx *ctx)
{
	if (ctx->p.nops < 2)
		return cmd_usage_error(ctx->ce,
				       ctx->p.nops ? "no TASKSTORE given" : "no STORE given");
	return CMD_OK;
}

/* Each task store into the open merge: how many were refused (each said), or -1 when the
 * store cannot take the runs (a full disk: e says why; the task stores are not at fault,
 * and the next would fail the same way). */
static int merge_tasks(struct cmd_ctx *ctx, struct merge_cmd *t, struct err *e)
{
	int refused = 0;
	for (int i = 1; i < ctx->p.nops; i++) {
		struct store_merge_count n;
		int mrc = note_task(&t->sw, &t->nsw, ctx->p.operands[i], e);
		if (!mrc)
			mrc = store_merge_task(t->m, ctx->p.operands[i], &n, e);
		if (mrc == VF_EIO)
			return -1;
		if (mrc) {
			cmd_fail(ctx->ce, "%s", e->msg);
			refused++;
			continue;
		}
		t->added += n.added;
		t->skipped += n.skipped;
	}
	return refused;
}

static int exec_merge(struct cmd_ctx *ctx)
{
	struct merge_cmd *t = ctx->u;
	const char *store = ctx->p.operands[0];
	struct err e = {0};
	int ntask = ctx->p.nops - 1;

	if (store_begin(ctx->st, &e) || store_merge_begin(ctx->st, &t->m, &e))
		return cmd_fail(ctx->ce, "%s", e.msg);
	int refused = merge_tasks(ctx, t, &e);
	if (refused < 0)
		return unchanged(store, &ctx->st, &t->m, &e);
	if (refused) {
		store_rollback(ctx->st);
		return cmd_fail(ctx->ce,
				"merged nothing: %d of %d task stores refused (leave them out, or "
				"run their tasks again)",
				refused, ntask);
	}
	if (store_commit(ctx->st, &e))
		return unchanged(store, &ctx->st, &t->m, &e);
	fprintf(stderr, "merged %" PRId64 " run%s from %d task store%s into %s", t->added,
		t->added == 1 ? "" : "s", ntask, ntask == 1 ? "" : "s", store);
	if (t->skipped)
		fprintf(stderr, "; %" PRId64 " already there", t->skipped);
	fprintf(stderr, "\n");
	for (size_t i = 0; i < t->nsw; i++)
		print_missing(&t->sw[i]);
	return CMD_OK;
}

static void release_merge(struct cmd_ctx *ctx)
{
	struct merge_cmd *t = ctx->u;
	for (size_t i = 0; i < t->nsw; i++) {
		FREE_ALL(t->sw[i].dir, t->sw[i].given, t->sw[i].why);
		sweep_id_release(&t->sw[i].id);
	}
	free(t->sw);
	store_merge_end(t->m);
}
