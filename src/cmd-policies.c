/*
 * cmd-policies.c — 'voidfit policies': list the placement policies, the dims each sees by
 * default and a one-line summary, as an aligned table or as JSON.
 */
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "json.h"
#include "policy.h"
#include "sbuf.h"

static int exec_policies(struct cmd_ctx *ctx);

const struct cmd_entry cmd_policies_entry = {
	.name = "policies",
	.usage = "[--json]",
	.summary = "list placement policies and the dimensions each sees",
	.opts = CMD_USES(
		{CMD_O_JSON, NULL, "write a JSON array of {name, dims, summary, by_state}"}),
	.layout = {14, 1},
	.no_operand = 1,
	.exec = exec_policies,
};

/* "cpu,mem,gpu" for mask into b. */
static void dims_text(struct sbuf *b, uint32_t mask)
{
	for (int d = 0; d < DIM_N; d++)
		if (mask & DIM_BIT(d)) {
			if (b->len)
				sbuf_addc(b, ',');
			sbuf_adds(b, job_dim_name((enum dim)d));
		}
}

static void print_table(void)
{
	int wname = (int)strlen("NAME"), wdims = (int)strlen("DIMS");
	struct sbuf b;
	sbuf_init(&b);
	for (const struct policy_ops *const *p = policy_table; *p; p++) {
		int l = (int)strlen((*p)->name);
		wname = l > wname ? l : wname;
		sbuf_reset(&b);
		dims_text(&b, (*p)->dims);
		wdims = (int)b.len > wdims ? (int)b.len : wdims;
	}
	printf("%-*s  %-*s  %s\n", wname, "NAME", wdims, "DIMS", "SUMMARY");
	for (const struct policy_ops *const *p = policy_table; *p; p++) {
		sbuf_reset(&b);
		dims_text(&b, (*p)->dims);
		printf("%-*s  %-*s  %s\n", wname, (*p)->name, wdims, b.s, (*p)->summary);
	}
	sbuf_release(&b);
}

static void print_json(void)
{
	struct sbuf out;
	struct json j;
	sbuf_init(&out);
	json_init(&j, &out, 1);
	json_arr(&j);
	for (const struct policy_ops *const *p = policy_table; *p; p++) {
		json_obj(&j);
		json_key_str(&j, "name", (*p)->name);
		json_key(&j, "dims");
		json_arr(&j);
		for (int d = 0; d < DIM_N; d++)
			if ((*p)->dims & DIM_BIT(d))
				json_str(&j, job_dim_name((enum dim)d));
		json_end(&j);
		json_key_str(&j, "summary", (*p)->summary);
		json_key_bool(&j, "by_state", ((*p)->flags & POLICY_F_BY_STATE) != 0);
		json_end(&j);
	}
	json_end(&j);
	fputs(out.s, stdout); /* the pretty writer ends the document with a newline */
	sbuf_release(&out);
}

static int exec_policies(struct cmd_ctx *ctx)
{
	if (cmd_has(ctx, CMD_K_JSON))
		print_json();
	else
		print_table();
	if (fflush(stdout) != 0 || ferror(stdout))
		return cmd_fail(ctx->ce, "standard output: write failed");
	return CMD_OK;
}
