/*
 * stats.h — the spread of a figure over seeds: mean and the half-width of its 95 %
 * confidence interval (Student t), and the same for differences paired by seed.
 */
#ifndef VOIDFIT_STATS_H
#define VOIDFIT_STATS_H

#include <stddef.h>

/* The 0.975 quantile of Student's t with df degrees of freedom (df >= 1): exact to 3
 * decimals from a table for df <= 30, then the Cornish-Fisher expansion. */
double stats_t975(int df);

/* Mean of v[0..n) into *mean (NaN when n is 0) and the half-width of its 95 % confidence
 * interval, t975(n-1) x sd / sqrt(n), into *hw (NaN when n < 2). NaN values are skipped. */
void stats_mean_ci(const double *v, size_t n, double *mean, double *hw);

#endif
