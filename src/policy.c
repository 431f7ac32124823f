/*
 * policy.c — the table of placement policies (policy.h); each lives in its pol-*.c file.
 */
#include <string.h>

#include "policy.h"

extern const struct policy_ops pol_random_ops, pol_first_fit_ops, pol_best_fit_ops, pol_scalar_ops,
	pol_packing_ops, pol_clustering_ops, pol_dotprod_ops, pol_tetris_ops, pol_fgd_ops,
	pol_ragp5_ops, pol_ragp7_ops, pol_fgd_pack_ops;

const struct policy_ops *const policy_table[] = {
	&pol_random_ops,
	&pol_first_fit_ops,
	&pol_best_fit_ops,
	&pol_scalar_ops,
	&pol_packing_ops,
	&pol_clustering_ops,
	&pol_dotprod_ops,
	&pol_tetris_ops,
	&pol_fgd_ops,
	&pol_fgd_pack_ops,
	&pol_ragp5_ops,
	&pol_ragp7_ops,
	NULL,
};

const struct policy_ops *policy_find(const char *name)
{
	if (!name)
		return NULL;
	for (const struct policy_ops *const *p = policy_table; *p; p++)
		if (!strcmp((*p)->name, name))
			return *p;
	return NULL;
}

void policy_param_init(double param[POLICY_NPARAM])
{
	param[POLICY_P_LAMBDA] = POLICY_LAMBDA;
	param[POLICY_P_MU] = POLICY_MU;
	param[POLICY_P_FGD_PACK_TOL] = POLICY_FGD_PACK_TOL;
	param[POLICY_P_FGD_PACK_RESERVE] = POLICY_FGD_PACK_RESERVE;
}
