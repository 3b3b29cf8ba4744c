/*
 * runsgen.h
 *	  Sorted inputs whose duplicate runs straddle chosen cut points: for
 *	  tests of whatever cuts two inputs at diagonals of their merged
 *	  sequence (the GPU's launches, the CPU engine's chunks, the parts of a
 *	  split over GPUs, the GPU service's slots).
 *
 * runsgen_SFX(a, na, b, nb, cuts, kinds, ncuts, len, seed) fills a[0, na)
 * and b[0, nb) in one ascending pass.  Between the cuts each key takes 1
 * to 4 copies, each going to A or B in proportion to what each side has
 * left (so both end together, and most keys sit in both with differing
 * counts); keys step by 1 or 2 (int32, from INT32_MIN) or by up to 2^33
 * (int64, from INT64_MIN: keys no int32 holds).  At each cut d (ascending
 * diagonals: d elements of the merged sequence before it) one key takes
 * len copies, placed so that the diagonal falls in their middle, on the
 * side(s) kinds[m] names:
 *	 RUNS_A		 all len in A (none in B)
 *	 RUNS_B		 all in B
 *	 RUNS_BOTH_A both, A with more (5/8 of len): union, difference and
 *				 symmetric difference take A's extra copies
 *	 RUNS_BOTH_B both, B with more: union and symdiff take B's
 * Returns how many runs straddle their cut as asked (fewer: sizes too
 * small for the cuts, or a side exhausted).
 *
 * runsgen_every_SFX(a, na, b, nb, step, len, first_kind, every, kind, seed):
 * the same with a cut at each multiple of step that leaves room for the
 * run (up to na + nb - len), kinds in turn from first_kind, but `kind` at
 * the multiples of `every` (> 0: the boundaries of the cutter under test).
 * Returns the number of cuts, or -1 - those straddled when some were not.
 * Plain C, header-only.
 */
#ifndef SETOPS_RUNSGEN_H
#define SETOPS_RUNSGEN_H

#include <stdint.h>
#include <stdlib.h>

#define RUNS_A 0
#define RUNS_B 1
#define RUNS_BOTH_A 2
#define RUNS_BOTH_B 3
#define RUNS_KINDS 4

static const char *const runsgen_kind_names[] = {"in A", "in B", "in both, A more", "in both, B more"};

/* splitmix64: the generator's own sequence, apart from testgen.h's */
static inline uint64_t
runsgen_next(uint64_t *s)
{
	uint64_t	z = (*s += 0x9E3779B97F4A7C15ULL);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

#define RUNSGEN_DEFINE(SFX, KEY, KMIN, STEP_MASK)									\
static inline int																	\
runsgen_##SFX(KEY *a, int64_t na, KEY *b, int64_t nb, const int64_t *cuts,			\
			  const int *kinds, int ncuts, int64_t len, uint64_t seed)				\
{																					\
	int64_t		ia = 0,																\
				ib = 0;																\
	uint64_t	s = seed;															\
	KEY			key = KMIN;															\
	int			m = 0,																\
				straddled = 0;														\
																					\
	while (ia < na || ib < nb)														\
	{																				\
		int64_t		p = ia + ib,													\
					ca = 0,															\
					cb = 0,															\
					c;																\
																					\
		/* skip cuts already passed (too close together) */							\
		while (m < ncuts && cuts[m] <= p)											\
			m++;																	\
		if (m < ncuts && p + 4 >= cuts[m] - len / 2)								\
		{																			\
			int			kind = kinds[m % ncuts];									\
																					\
			ca = kind == RUNS_A ? len : kind == RUNS_B ? 0 :						\
				kind == RUNS_BOTH_A ? len - len * 3 / 8 : len * 3 / 8;				\
			cb = len - ca;															\
			ca = ca < na - ia ? ca : na - ia;										\
			cb = cb < nb - ib ? cb : nb - ib;										\
			straddled += p < cuts[m] && p + ca + cb > cuts[m] &&					\
				ca + cb == len;														\
			m++;																	\
		}																			\
		else																		\
		{																			\
			uint64_t	r = runsgen_next(&s);										\
			int64_t		left = na - ia + nb - ib;									\
																					\
			for (c = 1 + (int64_t) (r & 3); c > 0; c--)								\
			{																		\
				r = runsgen_next(&s);												\
				if ((int64_t) (r % (uint64_t) left) < na - ia - ca)					\
					ca++;															\
				else if (cb < nb - ib)												\
					cb++;															\
				else if (ca < na - ia)												\
					ca++;															\
				left--;																\
				if (left <= 0)														\
					break;															\
			}																		\
		}																			\
		for (c = 0; c < ca; c++)													\
			a[ia++] = key;															\
		for (c = 0; c < cb; c++)													\
			b[ib++] = key;															\
		key = (KEY) (key + 1 + (KEY) (runsgen_next(&s) & (STEP_MASK)));				\
	}																				\
	return straddled;																\
}

RUNSGEN_DEFINE(i32, int32_t, INT32_MIN, 1)
RUNSGEN_DEFINE(i64, int64_t, INT64_MIN, (((uint64_t) 1 << 33) - 1))

#define RUNSGEN_EVERY_DEFINE(SFX, KEY)												\
static inline int64_t																\
runsgen_every_##SFX(KEY *a, int64_t na, KEY *b, int64_t nb, int64_t step, int64_t len,	\
					int first_kind, int64_t every, int kind, uint64_t seed)			\
{																					\
	int64_t		ncuts = na + nb > len ? (na + nb - len) / step : 0,					\
				m;																	\
	int64_t    *cuts = (int64_t *) malloc((ncuts + 1) * sizeof(int64_t));			\
	int		   *kinds = (int *) malloc((ncuts + 1) * sizeof(int));					\
	int			straddled;															\
																					\
	for (m = 0; m < ncuts; m++)														\
	{																				\
		cuts[m] = (m + 1) * step;													\
		kinds[m] = every > 0 && cuts[m] % every == 0 ? kind :						\
			(int) ((first_kind + m) % RUNS_KINDS);									\
	}																				\
	straddled = runsgen_##SFX(a, na, b, nb, cuts, kinds, (int) ncuts, len, seed);	\
	free(cuts);																		\
	free(kinds);																	\
	return straddled == ncuts ? ncuts : -1 - straddled;								\
}
RUNSGEN_EVERY_DEFINE(i32, int32_t)
RUNSGEN_EVERY_DEFINE(i64, int64_t)

#endif							/* SETOPS_RUNSGEN_H */
