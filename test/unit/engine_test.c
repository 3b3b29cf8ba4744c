/*
 * engine_test.c
 *	  Unit tests of the CPU engine against an independent reference.
 *
 * The reference is the textbook formulation of std::set_intersection,
 * set_union, set_difference, set_symmetric_difference and std::merge
 * (branchy loops, one element at a time, no chunks, no galloping, no SIMD),
 * recording which source position each output came from.  Every engine path
 * (merge, gallop, SIMD, automatic; SIMD on and off; several chunk sizes) must
 * reproduce keys and positions exactly, on random and adversarial inputs.
 * Output buffers are poisoned and guarded: a write past the documented bound
 * fails the test.
 *
 * Prints "N passed, N failed"; exits non-zero on any failure.
 *
 *   engine_test [--mutate[=unique|parts]] [rounds]
 *
 * --mutate (or SETOPS_TEST_MUTATE=1, =unique, =parts) plants a defect in
 * the reference of the distinct check and/or of the count in parts: the
 * run must then fail, which shows those checks can.
 */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../engine/cpu/engine.h"
#include "../common/testgen.h"
#include "../common/testcheck.h"

static const char *op_names[] = {"intersect", "union", "difference", "symdiff", "merge"};
static const char *path_names[] = {"auto", "merge", "gallop", "simd"};

#define GUARD 64
#define POISON32 0x5A5A5A5A
#define POISON64 0x5A5A5A5A5A5A5A5ALL

/* --mutate: the defects to plant */
#define MUTATE_UNIQUE 1
#define MUTATE_PARTS 2
static int	mutate = 0;

/* the SIMD level in effect, which says where the count in parts applies */
static SetopsSimdLevel simd_level = SETOPS_SIMD_NONE;

/* cases where the count in parts really ran and was compared */
static long parts_checked = 0;
static long parts_breaks = 0;

/* ---- reference: the textbook loops, instantiated per key type ---- */

#define DEFINE_REFERENCE(SFX, KEY)												\
static int64_t																	\
ref_##SFX(SetopsOp op, const KEY *a, int64_t na, const KEY *b, int64_t nb,		\
		  KEY *out, int64_t *pos)												\
{																				\
	int64_t		i = 0, j = 0, k = 0;											\
	while (i < na && j < nb)													\
	{																			\
		if (a[i] < b[j])														\
		{																		\
			if (op != SETOPS_OP_INTERSECT)											\
			{ out[k] = a[i]; pos[k] = i; k++; }									\
			i++;																\
		}																		\
		else if (b[j] < a[i])													\
		{																		\
			if (op == SETOPS_OP_UNION || op == SETOPS_OP_SYMDIFF || op == SETOPS_OP_MERGE)	\
			{ out[k] = b[j]; pos[k] = na + j; k++; }							\
			j++;																\
		}																		\
		else if (op == SETOPS_OP_MERGE)												\
		{ out[k] = a[i]; pos[k] = i; k++; i++; }								\
		else																	\
		{																		\
			if (op == SETOPS_OP_INTERSECT || op == SETOPS_OP_UNION)						\
			{ out[k] = a[i]; pos[k] = i; k++; }									\
			i++;																\
			j++;																\
		}																		\
	}																			\
	if (op != SETOPS_OP_INTERSECT)													\
		for (; i < na; i++)														\
		{ out[k] = a[i]; pos[k] = i; k++; }										\
	if (op == SETOPS_OP_UNION || op == SETOPS_OP_SYMDIFF || op == SETOPS_OP_MERGE)			\
		for (; j < nb; j++)														\
		{ out[k] = b[j]; pos[k] = na + j; k++; }								\
	return k;																	\
}

DEFINE_REFERENCE(i32, int32_t)
DEFINE_REFERENCE(i64, int64_t)

/* Count-based check, independent of the loops: with ca and cb copies of a
 * key, min / max / ca-cb / |ca-cb| / ca+cb copies. */
#define DEFINE_COUNT_CHECK(SFX, KEY)											\
static int																		\
count_check_##SFX(SetopsOp op, const KEY *a, int64_t na, const KEY *b,		\
				  int64_t nb, const KEY *out, int64_t n)						\
{																				\
	int64_t		i = 0, j = 0, k = 0;											\
	while (i < na || j < nb)													\
	{																			\
		KEY			x;															\
		int64_t		ca = 0, cb = 0, co = 0, want;								\
		if (j >= nb || (i < na && a[i] <= b[j])) x = a[i]; else x = b[j];		\
		while (i < na && a[i] == x) { i++; ca++; }								\
		while (j < nb && b[j] == x) { j++; cb++; }								\
		switch (op)																\
		{																		\
			case SETOPS_OP_INTERSECT: want = ca < cb ? ca : cb; break;				\
			case SETOPS_OP_UNION: want = ca > cb ? ca : cb; break;					\
			case SETOPS_OP_DIFFERENCE: want = ca > cb ? ca - cb : 0; break;			\
			case SETOPS_OP_SYMDIFF: want = ca > cb ? ca - cb : cb - ca; break;		\
			default: want = ca + cb; break;										\
		}																		\
		while (k < n && out[k] == x) { k++; co++; }								\
		if (co != want) return 0;												\
	}																			\
	return k == n;																\
}

DEFINE_COUNT_CHECK(i32, int32_t)
DEFINE_COUNT_CHECK(i64, int64_t)

/* ---- one comparison of the engine with the reference ---- */

#define DEFINE_RUN_CASE(SFX, KEY, POISON)										\
static void																		\
run_case_##SFX(SetopsOp op, const KEY *a, int64_t na, const KEY *b,			\
			   int64_t nb, const char *what)									\
{																				\
	int64_t		bound = setop_output_bound(op, na, nb);							\
	int64_t		cap = bound + SETOPS_CPU_OUTPUT_SLACK;							\
	KEY		   *ref = malloc((bound + 1) * sizeof(KEY));						\
	int64_t    *ref_pos = malloc((bound + 1) * sizeof(int64_t));				\
	KEY		   *out = malloc((cap + GUARD) * sizeof(KEY));						\
	int64_t    *pos = malloc((cap + GUARD) * sizeof(int64_t));					\
	int64_t		nref = ref_##SFX(op, a, na, b, nb, ref, ref_pos);				\
	int			path, with_pos, g;												\
																				\
	CHECK(count_check_##SFX(op, a, na, b, nb, ref, nref),						\
		  "reference disagrees with counts: %s %s", op_names[op], what);		\
	for (path = SETOPS_PATH_AUTO; path <= SETOPS_PATH_SIMD; path++)				\
		for (with_pos = 0; with_pos < 2; with_pos++)							\
		{																		\
			int64_t		n, t, bad = -1, guard_ok = 1;							\
			for (t = 0; t < cap + GUARD; t++) { out[t] = (KEY) POISON; pos[t] = -7; }	\
			setops_cpu_force_path((SetopsCpuPath) path);						\
			n = setops_cpu_setop_##SFX(op, a, na, b, nb, out,					\
									   with_pos ? pos : NULL);					\
			setops_cpu_force_path(SETOPS_PATH_AUTO);							\
			for (t = 0; t < n && t < nref && bad < 0; t++)						\
				if (out[t] != ref[t] || (with_pos && pos[t] != ref_pos[t]))		\
					bad = t;													\
			for (g = 0; g < GUARD; g++)											\
				if (out[cap + g] != (KEY) POISON || pos[cap + g] != -7)			\
					guard_ok = 0;												\
			CHECK(n == nref && bad < 0 && guard_ok,								\
				  "%s %s path=%s pos=%d na=%" PRId64 " nb=%" PRId64				\
				  ": n=%" PRId64 " want %" PRId64 ", first bad %" PRId64 "%s",	\
				  op_names[op], what, path_names[path], with_pos, na, nb,		\
				  n, nref, bad, guard_ok ? "" : ", wrote past the bound");		\
		}																		\
	free(ref); free(ref_pos); free(out); free(pos);								\
}

DEFINE_RUN_CASE(i32, int32_t, POISON32)
DEFINE_RUN_CASE(i64, int64_t, POISON64)

/*
 * Counts and predicates against the reference's outputs: every op's count
 * (from the intersection count) equals the length of the reference's
 * result; overlaps is "the reference intersection is not empty", contains
 * "it is all of b" (both ways round), on every forced path.
 */
/*
 * The count in parts (as helper threads run it, here one after another):
 * the sum of the parts, -1 at an order break, or -2 where the parts do not
 * apply (the caller then counts in one piece).
 */
#define DEFINE_PARTS_COUNT(SFX, KEY)											\
static int64_t																	\
parts_count_##SFX(const KEY *a, int64_t na, const KEY *b, int64_t nb, int parts)	\
{																				\
	int64_t		a_cut[17], b_cut[17], sum = 0;									\
	int			p, split = setops_cpu_count_split_##SFX(a, na, b, nb, parts, a_cut, b_cut);	\
																				\
	if (split <= 0)																\
		return split == 0 ? -2 : -1;											\
	for (p = 0; p < parts; p++)													\
	{																			\
		int64_t		k = setops_cpu_count_part_##SFX(a, b, a_cut, b_cut, p);	\
		if (k < 0)																\
			return -1;															\
		sum += k;																\
	}																			\
	return sum;																	\
}

DEFINE_PARTS_COUNT(i32, int32_t)
DEFINE_PARTS_COUNT(i64, int64_t)

/*
 * Whether the count in parts must apply: 1 on the forced SIMD path with
 * AVX2 in effect (both sides non-empty), 0 on the forced scalar paths and
 * without AVX2, -1 (either) on the automatic path, which chooses by the
 * keys.  A split missing where it must apply fails instead of passing
 * unchecked.
 */
static int
parts_expected(int path, int64_t na, int64_t nb)
{
	if (na == 0 || nb == 0 || simd_level < SETOPS_SIMD_AVX2)
		return 0;
	if (path == SETOPS_PATH_SIMD)
		return 1;
	return path == SETOPS_PATH_AUTO ? -1 : 0;
}

#define DEFINE_COUNT_CASE(SFX, KEY)												\
static void																		\
count_case_##SFX(const KEY *a, int64_t na, const KEY *b, int64_t nb,			\
				 const char *what)												\
{																				\
	int64_t		cap = na + nb + 1;												\
	KEY		   *ref = malloc(cap * sizeof(KEY));								\
	int64_t    *ref_pos = malloc(cap * sizeof(int64_t));						\
	int64_t		want[SETOPS_OP_COUNT];											\
	KEY		   *scratch = malloc(SETOPS_CPU_COUNT_SCRATCH * sizeof(KEY));		\
	int			path, op;														\
																				\
	for (op = 0; op < SETOPS_OP_COUNT; op++)									\
		want[op] = ref_##SFX((SetopsOp) op, a, na, b, nb, ref, ref_pos);		\
	for (path = SETOPS_PATH_AUTO; path <= SETOPS_PATH_SIMD; path++)				\
	{																			\
		int64_t		i;															\
		int			ov, ca, cb;													\
		setops_cpu_force_path((SetopsCpuPath) path);							\
		i = setops_cpu_intersect_count_##SFX(a, na, b, nb, scratch);			\
		{																		\
			int			parts;													\
			for (parts = 2; parts <= 5; parts += 3)								\
			{																	\
				int64_t		pc = parts_count_##SFX(a, na, b, nb, parts);		\
				int64_t		wp = want[SETOPS_OP_INTERSECT];						\
				int			ex = parts_expected(path, na, nb);					\
				if (mutate & MUTATE_PARTS)										\
					wp++;		/* planted: the reference one off */			\
				CHECK(ex < 0 || (pc != -2) == ex,								\
					  "count in %d parts %s path=%s na=%" PRId64 " nb=%" PRId64	\
					  ": split %s", parts, what, path_names[path], na, nb,		\
					  ex ? "did not apply" : "applied unexpectedly");			\
				if (pc != -2)													\
				{																\
					parts_checked++;											\
					CHECK(pc == wp,												\
						  "count in %d parts %s path=%s: %" PRId64 " want %" PRId64,	\
						  parts, what, path_names[path], pc, wp);				\
				}																\
			}																	\
		}																		\
		ov = setops_cpu_overlaps_##SFX(a, na, b, nb);							\
		ca = setops_cpu_contains_##SFX(a, na, b, nb);							\
		cb = setops_cpu_contains_##SFX(b, nb, a, na);							\
		setops_cpu_force_path(SETOPS_PATH_AUTO);								\
		for (op = 0; op < SETOPS_OP_COUNT; op++)								\
			CHECK(setop_count_from_intersect((SetopsOp) op, na, nb, i) == want[op],	\
				  "%s count %s path=%s na=%" PRId64 " nb=%" PRId64				\
				  ": %lld want %" PRId64, op_names[op], what, path_names[path],	\
				  na, nb, setop_count_from_intersect((SetopsOp) op, na, nb, i), want[op]);	\
		CHECK(ov == (want[SETOPS_OP_INTERSECT] > 0), "overlaps %s path=%s: %d",	\
			  what, path_names[path], ov);										\
		/* a step budget: the answer, or "not decided" */					\
		ov = setops_cpu_overlaps_within_##SFX(a, na, b, nb, 1 + path);		\
		CHECK(ov == -1 || ov == (want[SETOPS_OP_INTERSECT] > 0),			\
			  "overlaps within %d steps %s: %d", 1 + path, what, ov);			\
		CHECK(ca == (want[SETOPS_OP_INTERSECT] == nb), "contains(a, b) %s path=%s: %d",	\
			  what, path_names[path], ca);										\
		CHECK(cb == (want[SETOPS_OP_INTERSECT] == na), "contains(b, a) %s path=%s: %d",	\
			  what, path_names[path], cb);										\
	}																			\
	free(ref); free(ref_pos); free(scratch);									\
}

DEFINE_COUNT_CASE(i32, int32_t)
DEFINE_COUNT_CASE(i64, int64_t)

/*
 * The intersection count checks the order as it reads: a key lowered
 * below its predecessor at position p (of a, or of b) must give -1 on
 * every path, never a count.  p is chosen near SIMD window edges, the
 * stream splits, the ends, and at random.
 */
#define DEFINE_ORDER_BREAK_CASE(SFX, KEY)										\
static void																		\
order_break_case_##SFX(KEY *a, int64_t na, KEY *b, int64_t nb, const char *what)	\
{																				\
	KEY		   *scratch = malloc(SETOPS_CPU_COUNT_SCRATCH * sizeof(KEY));		\
	int64_t		cand[64];														\
	int			nc = 0, c, side, path, s;										\
																				\
	for (side = 0; side < 2; side++)											\
	{																			\
		KEY		   *v = side ? b : a;											\
		int64_t		n = side ? nb : na;											\
																				\
		if (n < 2)																\
			continue;															\
		nc = 0;																	\
		cand[nc++] = 1;															\
		cand[nc++] = n - 1;														\
		for (c = 7; c <= 18; c++)												\
			cand[nc++] = c;														\
		for (s = 1; s < 4; s++)													\
		{																		\
			int64_t		sa, sb;													\
			setops_split_##SFX(SETOPS_OP_INTERSECT, a, na, b, nb,			\
								   (na + nb) * s / 4, &sa, &sb);				\
			cand[nc++] = (side ? sb : sa) - 1;									\
			cand[nc++] = side ? sb : sa;										\
			cand[nc++] = (side ? sb : sa) + 1;									\
		}																		\
		for (c = 0; c < 12; c++)												\
			cand[nc++] = 1 + (int64_t) (testgen_rnd() % (uint64_t) (n - 1));	\
		for (c = 0; c < nc; c++)												\
		{																		\
			int64_t		p = cand[c];											\
			KEY			keep;													\
																				\
			if (p < 1 || p >= n ||												\
				v[p - 1] == (sizeof(KEY) == 8 ? (KEY) INT64_MIN : (KEY) INT32_MIN))	\
				continue;														\
			keep = v[p];														\
			v[p] = v[p - 1] - 1;												\
			for (path = SETOPS_PATH_AUTO; path <= SETOPS_PATH_SIMD; path++)		\
			{																	\
				int64_t		r;													\
				int			ex = parts_expected(path, na, nb);					\
				setops_cpu_force_path((SetopsCpuPath) path);					\
				r = setops_cpu_intersect_count_##SFX(a, na, b, nb, scratch);	\
				CHECK(r == -1, "order break %s in %c at %" PRId64 " path=%s: %" PRId64,	\
					  what, side ? 'b' : 'a', p, path_names[path], r);			\
				r = parts_count_##SFX(a, na, b, nb, 2 + (int) (p % 4));		\
				setops_cpu_force_path(SETOPS_PATH_AUTO);						\
				/* -2 (not split) only where the split need not apply */		\
				CHECK(ex < 0 ? r == -1 || r == -2 : r == (ex ? -1 : -2),		\
					  "order break in parts %s in %c at %" PRId64 " path=%s: %" PRId64,	\
					  what, side ? 'b' : 'a', p, path_names[path], r);			\
				if (r != -2)													\
					parts_breaks++;												\
			}																	\
			v[p] = keep;														\
		}																		\
	}																			\
	free(scratch);																\
}

DEFINE_ORDER_BREAK_CASE(i32, int32_t)
DEFINE_ORDER_BREAK_CASE(i64, int64_t)

/* Every split on every diagonal must be consistent: the op on the two
 * halves, concatenated, equals the op on the whole. */
#define DEFINE_SPLIT_CASE(SFX, KEY)												\
static void																		\
split_case_##SFX(const KEY *a, int64_t na, const KEY *b, int64_t nb,			\
				 const char *what)												\
{																				\
	int64_t		d, step = (na + nb) / 97 + 1;									\
	int			op;																\
	KEY		   *whole = malloc((na + nb + SETOPS_CPU_OUTPUT_SLACK) * sizeof(KEY));	\
	KEY		   *parts = malloc((na + nb + SETOPS_CPU_OUTPUT_SLACK) * sizeof(KEY));	\
	int64_t    *wpos = malloc((na + nb + SETOPS_CPU_OUTPUT_SLACK) * sizeof(int64_t)); \
	int64_t    *ppos = malloc((na + nb + SETOPS_CPU_OUTPUT_SLACK) * sizeof(int64_t)); \
	for (d = 0; d <= na + nb; d += (d < 40 ? 1 : step))							\
		for (op = 0; op < SETOPS_OP_COUNT; op++)								\
		{																		\
			int64_t		ai, bi, nw, n1, n2, t, same;							\
			int			ok_bounds;												\
			setops_split_##SFX((SetopsOp) op, a, na, b, nb, d, &ai, &bi);	\
			ok_bounds = ai >= 0 && ai <= na && bi >= 0 && bi <= nb &&			\
				(ai + bi == d || (ai + bi == d + 1 && op != SETOPS_OP_MERGE));		\
			CHECK(ok_bounds, "split %s %s d=%" PRId64 ": (%" PRId64 ", %" PRId64 ")", \
				  what, op_names[op], d, ai, bi);								\
			if (!ok_bounds)														\
				continue;														\
			nw = ref_##SFX((SetopsOp) op, a, na, b, nb, whole, wpos);			\
			n1 = ref_##SFX((SetopsOp) op, a, ai, b, bi, parts, ppos);			\
			n2 = ref_##SFX((SetopsOp) op, a + ai, na - ai, b + bi, nb - bi,	\
						   parts + n1, ppos + n1);								\
			same = (n1 + n2 == nw);												\
			for (t = 0; same && t < nw; t++)									\
			{																	\
				int64_t		p = ppos[t];										\
				/* map the halves' positions back to whole-array positions */	\
				if (t < n1)														\
					p = p < ai ? p : na + (p - ai);								\
				else															\
					p = p < na - ai ? ai + p : na + bi + (p - (na - ai));		\
				same = parts[t] == whole[t] && p == wpos[t];					\
			}																	\
			CHECK(same, "split %s %s d=%" PRId64 " (%" PRId64 ", %" PRId64 ") not consistent", \
				  what, op_names[op], d, ai, bi);								\
		}																		\
	free(whole); free(parts); free(wpos); free(ppos);							\
}

DEFINE_SPLIT_CASE(i32, int32_t)
DEFINE_SPLIT_CASE(i64, int64_t)

#define DEFINE_SORT_CASE(SFX, KEY)												\
static void																		\
sort_case_##SFX(int64_t n, TestShape shape)											\
{																				\
	KEY		   *v = malloc((n + 1) * sizeof(KEY));								\
	KEY		   *w = malloc((n + 1) * sizeof(KEY));								\
	KEY		   *tmp = malloc((n + 1) * sizeof(KEY));							\
	KEY		   *d = malloc((n + 1) * sizeof(KEY));								\
	int64_t		i, u, ref_u, first_bad;											\
	testgen_##SFX(v, n, shape, n);													\
	/* shuffle, keeping a sorted copy as the reference */						\
	memcpy(w, v, n * sizeof(KEY));												\
	for (i = n - 1; i > 0; i--)													\
	{																			\
		int64_t		r = (int64_t) (testgen_rnd() % (uint64_t) (i + 1));					\
		KEY			t = v[i]; v[i] = v[r]; v[r] = t;							\
	}																			\
	/* sortedness check agrees with a plain scan */								\
	first_bad = -1;																\
	for (i = 1; i < n && first_bad < 0; i++)									\
		if (v[i] < v[i - 1]) first_bad = i;										\
	CHECK(setops_cpu_first_unsorted_##SFX(v, n) == first_bad,					\
		  "first_unsorted %s n=%" PRId64, testgen_shape_names[shape], n);				\
	setops_cpu_sort_##SFX(v, n, tmp);											\
	CHECK(n == 0 || memcmp(v, w, n * sizeof(KEY)) == 0,							\
		  "sort %s n=%" PRId64, testgen_shape_names[shape], n);							\
	CHECK(setops_cpu_first_unsorted_##SFX(v, n) == -1,							\
		  "sorted output reported unsorted %s n=%" PRId64, testgen_shape_names[shape], n);	\
	/* the reference distinct: the first key of each run of the sorted copy */	\
	ref_u = 0;																	\
	for (i = 0; i < n; i++)														\
		if (i == 0 || w[i] != w[i - 1])											\
			d[ref_u++] = w[i];													\
	if ((mutate & MUTATE_UNIQUE) && ref_u > 0)									\
		d[ref_u / 2] ^= 1;		/* planted: one kept key off by one bit */		\
	u = setops_cpu_unique_##SFX(v, n);											\
	CHECK(u == ref_u, "unique count %s n=%" PRId64, testgen_shape_names[shape], n);		\
	/* the kept keys themselves, in order, not only how many */				\
	for (i = 0; i < u && i < ref_u && v[i] == d[i]; i++)						\
		;																		\
	CHECK(i == u && u == ref_u, "unique keys %s n=%" PRId64 ": first difference at %" PRId64,	\
		  testgen_shape_names[shape], n, i);									\
	for (i = 1; i < u; i++)														\
		if (!(v[i - 1] < v[i])) break;											\
	CHECK(u < 2 || i == u, "unique not strictly increasing %s", testgen_shape_names[shape]);	\
	free(v); free(w); free(tmp); free(d);										\
}

DEFINE_SORT_CASE(i32, int32_t)
DEFINE_SORT_CASE(i64, int64_t)

/* ---- the worked example and fixed cases ---- */

static void
worked_example(void)
{
	const int32_t a[] = {1, 1, 2, 3, 3, 3, 5, 6, 6, 6, 6, 7, 7, 8, 8, 9};
	const int32_t b[] = {1, 2, 2, 3, 3, 3, 3, 6, 6, 6, 6, 8};
	const int32_t want[] = {1, 2, 3, 3, 3, 6, 6, 6, 6, 8};
	int32_t		out[16 + 12 + SETOPS_CPU_OUTPUT_SLACK];
	int64_t		pos[16 + 12 + SETOPS_CPU_OUTPUT_SLACK];
	int64_t		n = setops_cpu_setop_i32(SETOPS_OP_INTERSECT, a, 16, b, 12, out, pos);

	CHECK(n == 10 && memcmp(out, want, sizeof(want)) == 0,
		  "worked example intersection");
	/* taken from A: the first copies of each key */
	CHECK(pos[0] == 0 && pos[1] == 2 && pos[2] == 3 && pos[9] == 13,
		  "worked example positions");
}

static void
random_cases(int rounds)
{
	/* sizes around the chunk, SIMD widths and small powers of two */
	static const int64_t sizes[] = {0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33,
		100, 255, 256, 257, 1000, 1023, 1024, 1025, 5000};
	int			nsizes = sizeof(sizes) / sizeof(sizes[0]);
	int			r;

	for (r = 0; r < rounds; r++)
	{
		int64_t		na = sizes[testgen_rnd() % nsizes],
					nb = sizes[testgen_rnd() % nsizes];
		TestShape	sa = (TestShape) (testgen_rnd() % SHAPE_COUNT),
					sb = testgen_rnd() % 3 == 0 ? sa : (TestShape) (testgen_rnd() % SHAPE_COUNT);
		int32_t    *a32,
				   *b32;
		int64_t    *a64,
				   *b64;
		char		what[96];
		int			op;

		/* skewed sizes send the automatic path to galloping */
		if (r % 5 == 0)
			nb = na * (SETOPS_CPU_GALLOP_RATIO + testgen_rnd() % 40) + 1;
		a32 = malloc((na + 1) * sizeof(int32_t));
		b32 = malloc((nb + 1) * sizeof(int32_t));
		a64 = malloc((na + 1) * sizeof(int64_t));
		b64 = malloc((nb + 1) * sizeof(int64_t));
		testgen_i32(a32, na, sa, r);
		testgen_i32(b32, nb, sb, r + 1);
		testgen_i64(a64, na, sa, r);
		testgen_i64(b64, nb, sb, r + 1);
		snprintf(what, sizeof(what), "round %d %s/%s", r, testgen_shape_names[sa], testgen_shape_names[sb]);

		/* small chunks put chunk boundaries inside duplicate runs */
		setops_cpu_set_chunk(r % 3 == 0 ? 1 + (int64_t) (testgen_rnd() % 64) : 0);
		count_case_i32(a32, na, b32, nb, what);
		count_case_i32(b32, nb, a32, na, what);
		count_case_i64(a64, na, b64, nb, what);
		count_case_i64(b64, nb, a64, na, what);
		if (r % 7 == 0)
		{
			order_break_case_i32(a32, na, b32, nb, what);
			order_break_case_i64(a64, na, b64, nb, what);
		}
		for (op = 0; op < SETOPS_OP_COUNT; op++)
		{
			run_case_i32((SetopsOp) op, a32, na, b32, nb, what);
			run_case_i32((SetopsOp) op, b32, nb, a32, na, what);
			run_case_i64((SetopsOp) op, a64, na, b64, nb, what);
			run_case_i64((SetopsOp) op, b64, nb, a64, na, what);
		}
		setops_cpu_set_chunk(0);
		if (r % 4 == 0 && na + nb < 20000)
		{
			split_case_i32(a32, na, b32, nb, what);
			split_case_i64(a64, na, b64, nb, what);
		}
		free(a32);
		free(b32);
		free(a64);
		free(b64);
	}
}

/* Duplicate runs far longer than a chunk, and all-equal inputs. */
static void
long_run_cases(void)
{
	int64_t		n = 3 * (int64_t) SETOPS_CPU_CHUNK + 5;
	int32_t    *a = malloc(n * sizeof(int32_t));
	int32_t    *b = malloc(n * sizeof(int32_t));
	int64_t		i;
	int			op;

	for (i = 0; i < n; i++)
	{
		a[i] = i < n / 2 ? 7 : 9;
		b[i] = i < n / 3 ? 7 : (i < n - 10 ? 8 : 9);
	}
	for (op = 0; op < SETOPS_OP_COUNT; op++)
	{
		run_case_i32((SetopsOp) op, a, n, b, n - 3, "runs longer than a chunk");
		run_case_i32((SetopsOp) op, a, n, a, n, "all-equal halves");
	}
	count_case_i32(a, n, b, n - 3, "runs longer than a chunk");
	count_case_i32(a, n, a, n, "all-equal halves");
	free(a);
	free(b);
}

/* Large random inputs: the chunked, SIMD and automatic paths agree with
 * the reference across many chunk boundaries. */
static void
large_cases(void)
{
	int64_t		n = 2500000;
	int32_t    *a = malloc(n * sizeof(int32_t));
	int32_t    *b = malloc(n * sizeof(int32_t));
	int64_t    *a64 = malloc(n * sizeof(int64_t));
	int64_t    *b64 = malloc(n * sizeof(int64_t));
	int64_t		i;
	int			op;

	testgen_i32(a, n, SHAPE_UNIFORM_NARROW, 1);
	testgen_i32(b, n - 1, SHAPE_UNIFORM_NARROW, 2);
	testgen_i64(a64, n, SHAPE_UNIFORM_NARROW, 1);
	testgen_i64(b64, n - 17, SHAPE_CLUSTERED, 2);
	for (op = 0; op < SETOPS_OP_COUNT; op++)
	{
		run_case_i32((SetopsOp) op, a, n, b, n - 1, "large narrow");
		run_case_i64((SetopsOp) op, a64, n, b64, n - 17, "large mixed");
	}
	count_case_i32(a, n, b, n - 1, "large narrow");
	count_case_i64(a64, n, b64, n - 17, "large mixed");
	order_break_case_i32(a, n, b, n - 1, "large narrow");
	order_break_case_i64(a64, n, b64, n - 17, "large mixed");
	/* few repeats: the automatic path takes the SIMD count windows */
	testgen_i32(a, n, SHAPE_UNIFORM_WIDE, 3);
	testgen_i32(b, n, SHAPE_UNIFORM_WIDE, 4);
	testgen_i64(a64, n, SHAPE_UNIFORM_WIDE, 3);
	testgen_i64(b64, n - 5, SHAPE_UNIFORM_WIDE, 4);
	count_case_i32(a, n, b, n, "large wide");
	count_case_i64(a64, n, b64, n - 5, "large wide");
	/* distinct keys, one in each 4-wide bucket: about a quarter common */
	for (i = 0; i < n; i++)
	{
		a[i] = (int32_t) (4 * i + testgen_rnd() % 4);
		b[i] = (int32_t) (4 * i + testgen_rnd() % 4);
		a64[i] = INT64_MAX / 2 + 4 * i + (int64_t) (testgen_rnd() % 4);
		b64[i] = INT64_MAX / 2 + 4 * i + (int64_t) (testgen_rnd() % 4);
	}
	count_case_i32(a, n, b, n, "large buckets");
	count_case_i64(a64, n, b64, n - 5, "large buckets");
	order_break_case_i32(a, n, b, n, "large buckets");
	order_break_case_i64(a64, n, b64, n - 5, "large buckets");
	free(a);
	free(b);
	free(a64);
	free(b64);
}

/*
 * Predicates where the answer hangs on one element: the only common key
 * first or last, a contained run one copy short, extremes of the key type.
 */
static void
predicate_cases(void)
{
	int64_t		n = 100000,
				i;
	int32_t    *a = malloc(n * sizeof(int32_t));
	int32_t    *b = malloc(n * sizeof(int32_t));
	int64_t    *a64 = malloc(n * sizeof(int64_t));
	int64_t    *b64 = malloc(n * sizeof(int64_t));

	/* a even, b odd: no common key, then one at the front, then at the back */
	for (i = 0; i < n; i++)
	{
		a[i] = (int32_t) (2 * i);
		b[i] = (int32_t) (2 * i + 1);
	}
	count_case_i32(a, n, b, n, "evens and odds");
	b[0] = 0;
	count_case_i32(a, n, b, n, "only the first key common");
	b[0] = 1;
	a[n - 1] = b[n - 1];
	count_case_i32(a, n, b, n, "only the last key common");
	/* b = a's keys with one run one copy longer than in a */
	for (i = 0; i < n; i++)
		a[i] = b[i] = (int32_t) (i / 3);
	count_case_i32(a, n, b, n, "equal");
	b[n - 1] = b[n - 2];		/* still sorted; the last run has 4 copies of... */
	b[n - 2] = b[n - 3];
	count_case_i32(a, n, b, n, "one run one copy longer");
	count_case_i32(a, n, b, 1000, "prefix");
	/* extremes */
	for (i = 0; i < n; i++)
	{
		a[i] = i < n / 2 ? INT32_MIN : INT32_MAX;
		b[i] = i < n / 4 ? INT32_MIN : INT32_MAX;
		a64[i] = i < n / 2 ? INT64_MIN : INT64_MAX;
		b64[i] = i < 3 * n / 4 ? INT64_MIN : INT64_MAX;
	}
	count_case_i32(a, n, b, n, "int4 extremes");
	count_case_i64(a64, n, b64, n, "int8 extremes");
	count_case_i32(a, n, b, 0, "empty b");
	count_case_i64(a64, 0, b64, 0, "both empty");
	free(a);
	free(b);
	free(a64);
	free(b64);
}

static int	hook_calls = 0;

static void
count_hook(void)
{
	hook_calls++;
}

static void
interrupt_hook_case(void)
{
	int64_t		n = 4 * (int64_t) SETOPS_CPU_CHUNK;
	int32_t    *a = malloc(n * sizeof(int32_t));
	int32_t    *out = malloc((2 * n + SETOPS_CPU_OUTPUT_SLACK) * sizeof(int32_t));
	int32_t    *tmp = malloc(n * sizeof(int32_t));
	int64_t		i;

	for (i = 0; i < n; i++)
		a[i] = (int32_t) i;
	setops_cpu_set_interrupt_hook(count_hook);
	setops_cpu_setop_i32(SETOPS_OP_UNION, a, n, a, n, out, NULL);
	CHECK(hook_calls >= 7, "interrupt hook called %d times over 8 chunks", hook_calls);
	hook_calls = 0;
	for (i = 0; i < n; i++)
		a[i] = (int32_t) (testgen_rnd() & 0xffffff);
	setops_cpu_sort_i32(a, n, tmp);
	CHECK(hook_calls >= 4, "interrupt hook called %d times while sorting", hook_calls);
	setops_cpu_set_interrupt_hook(NULL);
	free(a);
	free(out);
	free(tmp);
}

/* overlaps within a step budget: decided early, or "not decided" (-1) */
static void
overlaps_budget_case(void)
{
	int64_t		n = 100000,
				i;
	int32_t    *evens = malloc(n * sizeof(int32_t));
	int32_t    *odds = malloc(n * sizeof(int32_t));

	for (i = 0; i < n; i++)
	{
		evens[i] = (int32_t) (2 * i);
		odds[i] = (int32_t) (2 * i + 1);
	}
	CHECK(setops_cpu_overlaps_within_i32(evens, n, odds, n, 64) == -1,
		  "interleaved, no key in both: undecided within 64 steps");
	CHECK(setops_cpu_overlaps_within_i32(evens, n, odds, n, 0) == 0,
		  "interleaved, no key in both: no, without a budget");
	odds[0] = 0;
	CHECK(setops_cpu_overlaps_within_i32(evens, n, odds, n, 1) == 1,
		  "the first keys match: yes within one step");
	odds[0] = 1;
	odds[40] = 80;				/* evens[40] */
	CHECK(setops_cpu_overlaps_within_i32(evens, n, odds, n, 200) == 1,
		  "a key in both after 80 steps: yes within 200");
	free(evens);
	free(odds);
}

static void
sort_cases(void)
{
	static const int64_t sizes[] = {0, 1, 2, 63, 64, 65, 1000, 100000};
	int			s,
				shape;

	for (s = 0; s < (int) (sizeof(sizes) / sizeof(sizes[0])); s++)
		for (shape = 0; shape < SHAPE_COUNT; shape++)
		{
			sort_case_i32(sizes[s], (TestShape) shape);
			sort_case_i64(sizes[s], (TestShape) shape);
		}
}

/* "unique" or "parts" plants that defect alone, "0" none, else both */
static int
mutate_flags(const char *how)
{
	if (strcmp(how, "unique") == 0)
		return MUTATE_UNIQUE;
	if (strcmp(how, "parts") == 0)
		return MUTATE_PARTS;
	if (strcmp(how, "0") == 0 || strcmp(how, "") == 0)
		return 0;
	return MUTATE_UNIQUE | MUTATE_PARTS;
}

int
main(int argc, char **argv)
{
	int			argi = 1;
	int			rounds;
	int			level;
	const char *env = getenv("SETOPS_TEST_MUTATE");

	if (env != NULL)
		mutate = mutate_flags(env);
	if (argc > argi && strncmp(argv[argi], "--mutate", 8) == 0)
	{
		mutate = mutate_flags(argv[argi][8] == '=' ? argv[argi] + 9 : "1");
		argi++;
	}
	rounds = argc > argi ? atoi(argv[argi]) : 400;
	if (mutate)
		printf("engine_test: MUTATED run (%s): it must fail\n",
			   mutate == MUTATE_UNIQUE ? "unique" :
			   mutate == MUTATE_PARTS ? "parts" : "unique, parts");

	printf("engine_test: CPU SIMD detected: %s\n",
		   setops_cpu_simd_detected() == SETOPS_SIMD_AVX2 ? "avx2" : "none");
	for (level = setops_cpu_simd_detected(); level >= SETOPS_SIMD_NONE; level--)
	{
		simd_level = setops_cpu_set_simd_level((SetopsSimdLevel) level);
		printf("engine_test: running with %s\n", setops_cpu_simd_name());
		worked_example();
		random_cases(rounds);
		long_run_cases();
		large_cases();
		predicate_cases();
		sort_cases();
	}
	interrupt_hook_case();
	overlaps_budget_case();
	/* the count in parts needs AVX2: say so rather than pass unchecked */
	if (setops_cpu_simd_detected() >= SETOPS_SIMD_AVX2)
		CHECK(parts_checked > 0 && parts_breaks > 0,
			  "count in parts never checked although AVX2 is here");
	printf("engine_test: count in parts compared in %ld cases, order breaks caught in parts in %ld%s\n",
		   parts_checked, parts_breaks,
		   setops_cpu_simd_detected() >= SETOPS_SIMD_AVX2 ? "" : " (no AVX2: not checked)");
	printf("%ld passed, %ld failed\n", passed, failed);
	return failed ? 1 : 0;
}
