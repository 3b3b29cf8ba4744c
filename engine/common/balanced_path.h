/*
 * balanced_path.h
 *	  Key-rank-consistent split points of two sorted arrays (Balanced Path).
 *
 * A split (ai, bi) of sorted arrays A and B is key-rank consistent when no
 * key-rank pair (the r-th copy of a key in A with the r-th copy in B)
 * straddles it.  A set operation run on A[0,ai) x B[0,bi) and on the rest,
 * with the two outputs concatenated, then equals the operation on the whole
 * arrays, for every operation and including which copies (and so which
 * values) are emitted.  That is what lets the CPU engine stop for
 * interrupts between chunks, the GPU hand tiles to blocks independently,
 * and each GPU thread work alone.
 *
 * The split for cross-diagonal d (ai + bi = d, or d + 1 when "starred") is
 * found by:
 *   1. Merge Path: the intersection of the diagonal with the stable merge
 *      path (ties go to A first);
 *   2. the start of the duplicate run of the key x at the cut, in A and in
 *      B (biased binary searches: the run start is usually just left of the
 *      cut, so the first probes are placed 511/512, 127/128, 31/32 and 15/16
 *      of the way right, with 64-bit midpoints);
 *   3. the x-copies before the cut are redistributed as the Balanced Path
 *      takes them: alternately A, B, A, B... while both sides have copies,
 *      then the rest from the longer side;
 *   4. if that leaves the A copy of a pair on the left and its B partner on
 *      the right, the diagonal is starred: the left side takes the partner,
 *      so partitions are the target size +-1.
 *
 * This header compiles as C (CPU engine) and as CUDA C++ (kernels); the
 * functions are generated per key and index type by SETOPS_DEFINE_SEARCHES.
 * No PostgreSQL or CUDA headers.
 */
#ifndef SETOPS_BALANCED_PATH_H
#define SETOPS_BALANCED_PATH_H

#include <stdint.h>

#ifdef __CUDACC__
#define SETOPS_HD __host__ __device__ __forceinline__
#else
#define SETOPS_HD static inline
#endif

/* Probe placed (2^shift - 1) / 2^shift of the way from lo to hi. */
#define SETOPS_BIASED_PROBE(IDX, lo, hi, shift) \
	((IDX) (((int64_t) (lo) + (((int64_t) 1 << (shift)) - 1) * (int64_t) (hi)) >> (shift)))

/*
 * SETOPS_DEFINE_SEARCHES(SFX, KEY, IDX) defines, for keys of type KEY and
 * positions of type IDX:
 *
 *   setops_lower_bound_SFX(a, n, x)      first i with a[i] >= x
 *   setops_upper_bound_SFX(a, n, x)      first i with a[i] > x
 *   setops_biased_lower_bound_SFX(a, n, x, levels)
 *                                        lower bound expected near n: up
 *                                        to four biased probes, or with
 *                                        levels < 0 galloping from n
 *   setops_merge_path_SFX(a, na, b, nb, d)
 *                                        A elements among the first d of
 *                                        the merge (ties to A)
 *   setops_merge_path_within_SFX(a, b, d, lo, hi)
 *                                        the same, known to be in [lo, hi]
 *   setops_balanced_split_SFX(a, na, b, nb, d, ai, levels, &star)
 *                                        steps 2-4 from merge path's ai
 *   setops_balanced_path_SFX(a, na, b, nb, d, levels, &star)
 *                                        ai of the consistent split on
 *                                        diagonal d; bi = d - ai + star
 */
#define SETOPS_DEFINE_SEARCHES(SFX, KEY, IDX)										\
SETOPS_HD IDX																		\
setops_lower_bound_##SFX(const KEY *a, IDX n, KEY x)								\
{																					\
	IDX			lo = 0, hi = n;														\
	while (lo < hi)																	\
	{																				\
		IDX			mid = lo + ((hi - lo) >> 1);									\
		if (a[mid] < x) lo = mid + 1; else hi = mid;								\
	}																				\
	return lo;																		\
}																					\
																					\
SETOPS_HD IDX																		\
setops_upper_bound_##SFX(const KEY *a, IDX n, KEY x)								\
{																					\
	IDX			lo = 0, hi = n;														\
	while (lo < hi)																	\
	{																				\
		IDX			mid = lo + ((hi - lo) >> 1);									\
		if (x < a[mid]) hi = mid; else lo = mid + 1;								\
	}																				\
	return lo;																		\
}																					\
																					\
SETOPS_HD IDX																		\
setops_biased_lower_bound_##SFX(const KEY *a, IDX n, KEY x, int levels)				\
{																					\
	IDX			lo = 0, hi = n, mid;												\
	if (levels < 0)																	\
	{																				\
		/* gallop from n: probes n - 8, n - 72, n - 584, ... */						\
		int64_t		step = 8;														\
		while (hi > 0)																\
		{																			\
			mid = (IDX) ((int64_t) hi > step ? (int64_t) hi - step : 0);			\
			if (a[mid] < x)															\
			{																		\
				lo = mid + 1;														\
				break;																\
			}																		\
			hi = mid;																\
			step *= 8;																\
		}																			\
	}																				\
	if (levels >= 4 && lo < hi)														\
	{																				\
		mid = SETOPS_BIASED_PROBE(IDX, lo, hi, 9);									\
		if (a[mid] < x) lo = mid + 1; else hi = mid;								\
	}																				\
	if (levels >= 3 && lo < hi)														\
	{																				\
		mid = SETOPS_BIASED_PROBE(IDX, lo, hi, 7);									\
		if (a[mid] < x) lo = mid + 1; else hi = mid;								\
	}																				\
	if (levels >= 2 && lo < hi)														\
	{																				\
		mid = SETOPS_BIASED_PROBE(IDX, lo, hi, 5);									\
		if (a[mid] < x) lo = mid + 1; else hi = mid;								\
	}																				\
	if (levels >= 1 && lo < hi)														\
	{																				\
		mid = SETOPS_BIASED_PROBE(IDX, lo, hi, 4);									\
		if (a[mid] < x) lo = mid + 1; else hi = mid;								\
	}																				\
	return lo + setops_lower_bound_##SFX(a + lo, hi - lo, x);						\
}																					\
																					\
/* The merge path's crossing of diagonal d, known to lie in [lo, hi]. */			\
SETOPS_HD IDX																		\
setops_merge_path_within_##SFX(const KEY *a, const KEY *b, IDX d, IDX lo, IDX hi)	\
{																					\
	while (lo < hi)																	\
	{																				\
		IDX			mid = lo + ((hi - lo) >> 1);									\
		/* a[mid] is among the first d unless b[d-1-mid] is strictly smaller */		\
		if (b[d - 1 - mid] < a[mid]) hi = mid; else lo = mid + 1;					\
	}																				\
	return lo;																		\
}																					\
																					\
SETOPS_HD IDX																		\
setops_merge_path_##SFX(const KEY *a, IDX na, const KEY *b, IDX nb, IDX d)			\
{																					\
	return setops_merge_path_within_##SFX(a, b, d, d > nb ? d - nb : 0, d < na ? d : na);	\
}																					\
																					\
/*																					\
 * Steps 2 to 4 from the merge path's crossing ai of diagonal d, the				\
 * run-start searches biased by levels (as setops_biased_lower_bound).				\
 */																					\
SETOPS_HD IDX																		\
setops_balanced_split_##SFX(const KEY *a, IDX na, const KEY *b, IDX nb, IDX d, IDX ai,	\
							int levels, int *star)									\
{																					\
	IDX			bi = d - ai;														\
																					\
	*star = 0;																		\
	/* With B exhausted, ties-to-A means no x-copy of A can wait for B;				\
	 * and unless a copy of x lies just left of the cut, no run straddles it. */	\
	if (bi < nb && ((ai > 0 && !(a[ai - 1] < b[bi])) ||								\
					(bi > 0 && !(b[bi - 1] < b[bi]))))								\
	{																				\
		KEY			x = b[bi];														\
		IDX			a_start = setops_biased_lower_bound_##SFX(a, ai, x, levels);	\
		IDX			b_start = setops_biased_lower_bound_##SFX(b, bi, x, levels);	\
		IDX			a_run = ai - a_start;											\
		IDX			b_run = bi - b_start;											\
		IDX			x_count = a_run + b_run;										\
																					\
		if (x_count > 0)															\
		{																			\
			IDX			a_total, b_total, pairs, a_adv, b_adv, lim;					\
																					\
			/*																		\
			 * Copies of x on each side, counted only as far as the split can		\
			 * need (x_count + 1 beyond the cut): a count at that cap is			\
			 * larger than any advance computed below.  If merge path took a		\
			 * B copy, it had taken every A copy first.								\
			 */																		\
			if (b_run > 0)															\
				a_total = a_run;													\
			else																	\
			{																		\
				lim = na - ai < x_count + 1 ? na - ai : x_count + 1;				\
				a_total = a_run + setops_upper_bound_##SFX(a + ai, lim, x);			\
			}																		\
			lim = nb - bi < x_count + 1 ? nb - bi : x_count + 1;					\
			b_total = b_run + setops_upper_bound_##SFX(b + bi, lim, x);				\
			pairs = a_total < b_total ? a_total : b_total;							\
			if (x_count <= 2 * pairs)												\
			{																		\
				a_adv = (x_count + 1) >> 1;											\
				b_adv = x_count >> 1;												\
			}																		\
			else if (a_total > b_total)												\
			{																		\
				b_adv = b_total;													\
				a_adv = x_count - b_total;											\
			}																		\
			else																	\
			{																		\
				a_adv = a_total;													\
				b_adv = x_count - a_total;											\
			}																		\
			ai = a_start + a_adv;													\
			/* A's last copy taken has its partner on the right: steal it */		\
			*star = (a_adv == b_adv + 1 && b_adv < b_total);						\
		}																			\
	}																				\
	return ai;																		\
}																					\
																					\
SETOPS_HD IDX																		\
setops_balanced_path_##SFX(const KEY *a, IDX na, const KEY *b, IDX nb, IDX d,		\
						   int levels, int *star)									\
{																					\
	return setops_balanced_split_##SFX(a, na, b, nb, d, setops_merge_path_##SFX(a, na, b, nb, d),	\
									   levels, star);								\
}

#endif							/* SETOPS_BALANCED_PATH_H */
