/*
 * engine_bench.c
 *	  Microbenchmark of the CPU engine's paths on one core, outside
 *	  PostgreSQL: branch-free merge, SIMD windows, galloping, sorting.
 *
 * Inputs are random sorted int32/int64 keys (never all zero) at a chosen
 * density; each figure is the median of several runs.  Every path's answer
 * is compared with the branch-free merge's (and the radix sort's with
 * qsort's); a difference fails the run (exit 1).  Usage:
 *   engine_bench [n] [runs]        (test/bench/smoke.sh: 20000 1)
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../engine/cpu/engine.h"
#include "../common/testclock.h"

static uint64_t rng = 0x9E3779B97F4A7C15ULL;

static uint64_t
rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 2685821657736338717ULL;
}

static int
cmp_double(const void *x, const void *y)
{
	double		a = *(const double *) x,
				b = *(const double *) y;

	return (a > b) - (a < b);
}

static int
cmp_i32(const void *x, const void *y)
{
	int32_t		a = *(const int32_t *) x,
				b = *(const int32_t *) y;

	return (a > b) - (a < b);
}

/* n sorted keys drawn from [0, range) with repeats */
static int32_t *
sorted_keys(int64_t n, int64_t range)
{
	int32_t    *v = malloc((n + 1) * sizeof(int32_t));
	int64_t		i;

	for (i = 0; i < n; i++)
		v[i] = (int32_t) (rnd() % (uint64_t) range);
	qsort(v, n, sizeof(int32_t), cmp_i32);
	return v;
}

/* n distinct sorted keys, about one in every 'spread' values of [0, n*spread) */
static int32_t *
distinct_keys(int64_t n, int64_t spread)
{
	int32_t    *v = malloc((n + 1) * sizeof(int32_t));
	int64_t		i;

	for (i = 0; i < n; i++)
		v[i] = (int32_t) (i * spread + (int64_t) (rnd() % (uint64_t) spread));
	return v;
}

static int64_t sink;
static int	failures;

/* the first path's answer of a case, which every later path must give */
static int32_t *want;
static int64_t want_n = -1;

static void
check_answer(const char *what, const int32_t *out, int64_t n)
{
	if (want_n < 0)
	{
		memcpy(want, out, n * sizeof(int32_t));
		want_n = n;
	}
	else if (n != want_n || memcmp(out, want, n * sizeof(int32_t)) != 0)
	{
		printf("DIFFERENT: %s gave %" PRId64 " keys, the merge %" PRId64 "\n", what, n, want_n);
		failures++;
	}
}

static double
time_setop(SetopsOp op, SetopsCpuPath path, SetopsSimdLevel simd,
		   const int32_t *a, int64_t na, const int32_t *b, int64_t nb,
		   int32_t *out, int runs)
{
	double		t[32];
	int			r;
	int64_t		n = 0;

	setops_cpu_set_simd_level(simd);
	setops_cpu_force_path(path);
	for (r = 0; r < runs; r++)
	{
		double		t0 = now_ms();

		n = setops_cpu_setop_i32(op, a, na, b, nb, out, NULL);
		t[r] = now_ms() - t0;
		sink += n;
	}
	check_answer(path == SETOPS_PATH_MERGE ? "merge" : path == SETOPS_PATH_SIMD ? "simd" :
				 path == SETOPS_PATH_GALLOP ? "gallop" : "auto", out, n);
	setops_cpu_force_path(SETOPS_PATH_AUTO);
	setops_cpu_set_simd_level(SETOPS_SIMD_AVX2);
	qsort(t, runs, sizeof(double), cmp_double);
	return t[runs / 2];
}

int
main(int argc, char **argv)
{
	int64_t		n = argc > 1 ? atoll(argv[1]) : 4000000;
	int			runs = argc > 2 ? atoi(argv[2]) : 5;
	static const char *ops[] = {"intersect", "union", "difference", "symdiff"};
	/* range = n * density with repeats; negative: distinct, spread 4 */
	static const int64_t densities[] = {1, 2, 8, -4};
	int			d,
				op;

	if (runs > 32)
		runs = 32;
	printf("engine_bench: n=%" PRId64 " per side, median of %d, SIMD detected: %s\n",
		   n, runs, setops_cpu_simd_detected() ? "avx2" : "none");
	printf("%-10s %-8s %10s %10s %10s %8s\n", "op", "range", "merge ms", "simd ms",
		   "auto ms", "Melem/s");
	for (d = 0; d < 4; d++)
	{
		int32_t    *a = densities[d] > 0 ? sorted_keys(n, n * densities[d]) : distinct_keys(n, -densities[d]);
		int32_t    *b = densities[d] > 0 ? sorted_keys(n, n * densities[d]) : distinct_keys(n, -densities[d]);
		int32_t    *out = malloc((2 * n + SETOPS_CPU_OUTPUT_SLACK) * sizeof(int32_t));

		want = malloc((2 * n + SETOPS_CPU_OUTPUT_SLACK) * sizeof(int32_t));
		for (op = 0; op < 4; op++)
		{
			double		tm,
						ts,
						ta;

			want_n = -1;
			tm = time_setop((SetopsOp) op, SETOPS_PATH_MERGE, SETOPS_SIMD_NONE, a, n, b, n, out, runs);
			ts = time_setop((SetopsOp) op, SETOPS_PATH_SIMD, SETOPS_SIMD_AVX2, a, n, b, n, out, runs);
			ta = time_setop((SetopsOp) op, SETOPS_PATH_AUTO, SETOPS_SIMD_AVX2, a, n, b, n, out, runs);

			printf("%-10s %-8s %10.2f %10.2f %10.2f %8.0f\n", ops[op],
				   densities[d] == 1 ? "n" : densities[d] == 2 ? "2n" :
				   densities[d] == 8 ? "8n" : "distinct",
				   tm, ts, ta, 2.0 * n / ta / 1e3);
		}
		free(a);
		free(b);
		free(out);
		free(want);
	}

	/* the intersection count against building the intersection */
	for (d = 0; d < 4; d++)
	{
		int32_t    *a = densities[d] > 0 ? sorted_keys(n, n * densities[d]) : distinct_keys(n, -densities[d]);
		int32_t    *b = densities[d] > 0 ? sorted_keys(n, n * densities[d]) : distinct_keys(n, -densities[d]);
		int32_t    *out = malloc((n + SETOPS_CPU_COUNT_SCRATCH) * sizeof(int32_t));
		double		t[32];
		int64_t		c = 0;
		int			r;

		want = malloc((n + SETOPS_CPU_OUTPUT_SLACK) * sizeof(int32_t));
		want_n = -1;
		for (r = 0; r < runs; r++)
		{
			double		t0 = now_ms();

			c = setops_cpu_intersect_count_i32(a, n, b, n, out);
			t[r] = now_ms() - t0;
		}
		qsort(t, runs, sizeof(double), cmp_double);
		{
			double		tb = time_setop(SETOPS_OP_INTERSECT, SETOPS_PATH_AUTO, SETOPS_SIMD_AVX2,
										a, n, b, n, out, runs);

			printf("count      %-8s count %.2f ms, build %.2f ms (%.1fx)\n",
				   densities[d] == 1 ? "n" : densities[d] == 2 ? "2n" :
				   densities[d] == 8 ? "8n" : "distinct", t[runs / 2], tb, tb / t[runs / 2]);
			if (c != want_n)
			{
				printf("DIFFERENT: count %" PRId64 ", built %" PRId64 "\n", c, want_n);
				failures++;
			}
		}
		free(a);
		free(b);
		free(out);
		free(want);
	}

	/* skewed: 1K against n, galloping versus merging */
	{
		int32_t    *a = sorted_keys(1000, 8 * n);
		int32_t    *b = sorted_keys(n, 8 * n);
		int32_t    *out = malloc((n + 1000 + SETOPS_CPU_OUTPUT_SLACK) * sizeof(int32_t));

		want = malloc((n + 1000 + SETOPS_CPU_OUTPUT_SLACK) * sizeof(int32_t));
		for (op = 0; op < 4; op++)
		{
			double		tm,
						tg;

			want_n = -1;
			tm = time_setop((SetopsOp) op, SETOPS_PATH_MERGE, SETOPS_SIMD_AVX2, a, 1000, b, n, out, runs);
			tg = time_setop((SetopsOp) op, SETOPS_PATH_GALLOP, SETOPS_SIMD_AVX2, a, 1000, b, n, out, runs);
			printf("%-10s 1K-vs-n  merge %.3f ms, gallop %.3f ms\n", ops[op], tm, tg);
		}
		free(a);
		free(b);
		free(out);
		free(want);
	}

	/* sort: radix versus qsort on a shuffled copy */
	{
		int32_t    *v = sorted_keys(n, 8 * n);
		int32_t    *w = malloc(n * sizeof(int32_t));
		int32_t    *tmp = malloc(n * sizeof(int32_t));
		int64_t		i;
		double		t0,
					tr,
					tq;

		for (i = n - 1; i > 0; i--)
		{
			int64_t		r = (int64_t) (rnd() % (uint64_t) (i + 1));
			int32_t		x = v[i];

			v[i] = v[r];
			v[r] = x;
		}
		memcpy(w, v, n * sizeof(int32_t));
		t0 = now_ms();
		setops_cpu_sort_i32(v, n, tmp);
		tr = now_ms() - t0;
		t0 = now_ms();
		qsort(w, n, sizeof(int32_t), cmp_i32);
		tq = now_ms() - t0;
		printf("sort       radix %.1f ms, qsort %.1f ms (%s)\n", tr, tq,
			   memcmp(v, w, n * sizeof(int32_t)) == 0 ? "same" : "DIFFERENT");
		if (memcmp(v, w, n * sizeof(int32_t)) != 0)
			failures++;
		free(v);
		free(w);
		free(tmp);
	}
	if (failures > 0)
	{
		printf("engine_bench: %d answers differ\n", failures);
		return 1;
	}
	return sink == 42 ? 2 : 0;
}
