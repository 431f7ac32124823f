/*
 * stats.c — means and 95 % confidence intervals over seeds (stats.h).
 */
#include <math.h>

#include "stats.h"

double stats_t975(int df)
{
	/* t(0.975, df) for df = 1..30 (any table of Student's t) */
	static const double t[30] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306,
				     2.262,  2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120,
				     2.110,  2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
				     2.060,  2.056, 2.052, 2.048, 2.045, 2.042};
	if (df < 1)
		return NAN;
	if (df <= 30)
		return t[df - 1];
	/* Cornish-Fisher: z + (z^3 + z) / 4df + (5z^5 + 16z^3 + 3z) / 96df^2 */
	double z = 1.959963984540054, n = (double)df;
	return z + (z * z * z + z) / (4 * n) +
	       (5 * pow(z, 5) + 16 * z * z * z + 3 * z) / (96 * n * n);
}

void stats_mean_ci(const double *v, size_t n, double *mean, double *hw)
{
	double sum = 0, ss = 0;
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (!isnan(v[i])) {
			sum += v[i];
			k++;
		}
	*mean = k ? sum / (double)k : NAN;
	*hw = NAN;
	if (k < 2)
		return;
	for (size_t i = 0; i < n; i++)
		if (!isnan(v[i]))
			ss += (v[i] - *mean) * (v[i] - *mean);
	double sd = sqrt(ss / (double)(k - 1));
	*hw = stats_t975((int)k - 1) * sd / sqrt((double)k);
}
