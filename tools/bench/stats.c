// SPDX-License-Identifier: GPL-2.0
/* Medians over trials, percentiles over probes. */
#include <stdlib.h>
#include <string.h>
#include "driver.h"

void series_add(struct series *s, double v)
{
	if (s->n < TRIALS_MAX)
		s->v[s->n++] = v;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

void sort_doubles(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
}

double series_median(const struct series *s)
{
	double v[TRIALS_MAX];

	if (!s->n)
		return 0;
	memcpy(v, s->v, s->n * sizeof(v[0]));
	sort_doubles(v, s->n);
	if (s->n % 2)
		return v[s->n / 2];
	return (v[s->n / 2 - 1] + v[s->n / 2]) / 2;
}

double series_min(const struct series *s)
{
	double m = s->n ? s->v[0] : 0;

	for (int i = 1; i < s->n; i++)
		if (s->v[i] < m)
			m = s->v[i];
	return m;
}

double series_max(const struct series *s)
{
	double m = s->n ? s->v[0] : 0;

	for (int i = 1; i < s->n; i++)
		if (s->v[i] > m)
			m = s->v[i];
	return m;
}

double percentile_sorted(const double *sorted, size_t n, double p)
{
	size_t rank;

	if (!n)
		return 0;
	/* Nearest rank: the smallest value with at least p% at or below it. */
	rank = (size_t)(p / 100.0 * n + 0.999999);
	if (rank < 1)
		rank = 1;
	if (rank > n)
		rank = n;
	return sorted[rank - 1];
}
