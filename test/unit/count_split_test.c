/*
 * count_split_test.c
 *	  A count cut into parts (engine/common/count_split.h) against the whole:
 *	  split points taken piece by piece are key starts on aligned positions,
 *	  parts cover A exactly and start aligned, and the parts' key-rank
 *	  intersection counts add up to the whole's, computed here from the
 *	  definition (the sum over keys of min(ca, cb)).  Inputs of every
 *	  testgen shape, pieces of random sizes, two to five parts, int4 and
 *	  int8, with the types' extremes.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../engine/common/count_split.h"
#include "../common/testgen.h"
#include "../common/testcheck.h"


/* The key-rank intersection count of two sorted runs of keys, by definition. */
static int64_t
intersect_count(SetopsKeyType t, const void *a, int64_t na, const void *b, int64_t nb)
{
	int64_t		i = 0,
				j = 0,
				total = 0;

	while (i < na && j < nb)
	{
		int64_t		ka = setops_split_key(t, a, i),
					kb = setops_split_key(t, b, j),
					ca = 0,
					cb = 0;

		if (ka < kb)
		{
			i++;
			continue;
		}
		if (kb < ka)
		{
			j++;
			continue;
		}
		while (i < na && setops_split_key(t, a, i) == ka)
			i++, ca++;
		while (j < nb && setops_split_key(t, b, j) == kb)
			j++, cb++;
		total += ca < cb ? ca : cb;
	}
	return total;
}

/* The first position of keys (n of them) holding p or more. */
static int64_t
lower_bound(SetopsKeyType t, const void *keys, int64_t n, int64_t p)
{
	int64_t		lo = 0,
				hi = n;

	while (lo < hi)
	{
		int64_t		mid = lo + (hi - lo) / 2;

		if (setops_split_key(t, keys, mid) < p)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* keys' split points, taken piece by piece (pieces of random sizes) */
static void
take_points(SetopsSplitPoints *sp, SetopsKeyType t, const void *keys, int64_t n)
{
	size_t		ks = t == SETOPS_KEY_INT64 ? 8 : 4;
	int64_t		off = 0;

	memset(sp, 0, sizeof(*sp));
	while (off < n)
	{
		int64_t		piece = testgen_range(1, n / 3 + 1);

		if (piece > n - off)
			piece = n - off;
		setops_split_points_take(sp, t, (const char *) keys + off * ks, off, piece, n);
		off += piece;
	}
}

/* every point a key start on an aligned position, ascending, with its key */
static void
check_points(const SetopsSplitPoints *sp, SetopsKeyType t, const void *keys, int64_t n,
			 const char *what)
{
	int64_t		prev = 0;
	int			j;

	for (j = 0; j < SETOPS_SPLIT_POINTS; j++)
	{
		int64_t		p = sp->pos[j];

		if (p == 0)
			continue;
		CHECK(p > prev && p < n && p % SETOPS_SPLIT_ALIGN == 0,
			  "%s: point %d at %lld (previous %lld, n %lld)", what, j, (long long) p,
			  (long long) prev, (long long) n);
		if (p <= 0 || p >= n)
			return;
		CHECK(setops_split_key(t, keys, p - 1) < setops_split_key(t, keys, p) &&
			  sp->key[j] == setops_split_key(t, keys, p),
			  "%s: point %d at %lld is not where key %lld starts", what, j, (long long) p,
			  (long long) sp->key[j]);
		prev = p;
	}
}

/* returns the parts planned (0: no split) */
static int
check_split(SetopsKeyType t, const void *a, int64_t na, const void *b, int64_t nb, int nparts,
			const char *what)
{
	size_t		ks = t == SETOPS_KEY_INT64 ? 8 : 4;
	SetopsSplitPoints pa,
				pb;
	SetopsCountPart parts[SETOPS_SPLIT_MAX_PARTS];
	int64_t		whole = intersect_count(t, a, na, b, nb),
				sum = 0,
				next_a = 0;
	int			n,
				k;

	take_points(&pa, t, a, na);
	take_points(&pb, t, b, nb);
	check_points(&pa, t, a, na, what);
	check_points(&pb, t, b, nb, what);
	n = setops_count_split_plan(&pa, na, &pb, nb, nparts, parts);
	for (k = 0; k < n; k++)
	{
		const SetopsCountPart *q = &parts[k];
		int64_t		p_lo = q->a_off > 0 ? setops_split_key(t, a, q->a_off) : INT64_MIN,
					p_hi = q->a_off + q->na < na ? setops_split_key(t, a, q->a_off + q->na) : INT64_MAX;

		/* no part more than three quarters of the work: else the cut is not worth it */
		CHECK(4 * (q->na + q->nb) <= 3 * (na + nb), "%s: part %d of %d reads %lld of %lld keys",
			  what, k, n, (long long) (q->na + q->nb), (long long) (na + nb));
		CHECK(q->a_off == next_a && q->na > 0 && q->a_off % SETOPS_SPLIT_ALIGN == 0 &&
			  q->b_off % SETOPS_SPLIT_ALIGN == 0 && q->b_off >= 0 && q->nb > 0 &&
			  q->b_off + q->nb <= nb,
			  "%s: part %d of %d: a [%lld, +%lld), b [%lld, +%lld)", what, k, n,
			  (long long) q->a_off, (long long) q->na, (long long) q->b_off, (long long) q->nb);
		/* A's part: all of A's keys in [p_lo, p_hi); B's: a bracket around B's */
		CHECK((q->a_off == 0 || setops_split_key(t, a, q->a_off - 1) < p_lo) &&
			  (q->b_off == 0 || q->b_off <= lower_bound(t, b, nb, p_lo)) &&
			  (p_hi == INT64_MAX || q->b_off + q->nb >= lower_bound(t, b, nb, p_hi)),
			  "%s: part %d's keys are not those of [%lld, %lld)", what, k, (long long) p_lo,
			  (long long) p_hi);
		sum += intersect_count(t, (const char *) a + q->a_off * ks, q->na,
							   (const char *) b + q->b_off * ks, q->nb);
		next_a = q->a_off + q->na;
	}
	if (n > 0)
		CHECK(n == nparts && next_a == na && sum == whole, "%s: parts cover %lld of %lld keys and count %lld, the whole %lld",
			  what, (long long) next_a, (long long) na, (long long) sum, (long long) whole);
	return n;
}

#define RUN_SHAPES(SFX, KEY, TYPE)																\
static void																						\
run_##SFX(void)																					\
{																								\
	static const int64_t sizes[] = {0, 3, 64, 1000, 4095, 4096, 4097, 65535, 65536, 200003};	\
	int			sa, sb, shape_a, shape_b;														\
																								\
	for (sa = 0; sa < (int) (sizeof(sizes) / sizeof(sizes[0])); sa++)							\
		for (sb = 0; sb < (int) (sizeof(sizes) / sizeof(sizes[0])); sb += 2)					\
			for (shape_a = 0; shape_a < SHAPE_COUNT; shape_a++)								\
				for (shape_b = 0; shape_b < SHAPE_COUNT; shape_b += 3)							\
				{																				\
					int64_t		na = sizes[sa], nb = sizes[sb];									\
					KEY		   *a = malloc(sizeof(KEY) * (na + 1)),								\
							   *b = malloc(sizeof(KEY) * (nb + 1));							\
					char		what[160];														\
					int			nparts = 2 + (sa + shape_a) % 4;								\
																								\
					testgen_##SFX(a, na, (TestShape) shape_a, sa * 31 + shape_a);				\
					testgen_##SFX(b, nb, (TestShape) shape_b, sb * 17 + shape_b + 7);			\
					snprintf(what, sizeof(what), #SFX " %s %lld x %s %lld, %d parts",			\
							 testgen_shape_names[shape_a], (long long) na,						\
							 testgen_shape_names[shape_b], (long long) nb, nparts);			\
					check_split(TYPE, a, na, b, nb, nparts, what);								\
					/* either array may be A */													\
					check_split(TYPE, b, nb, a, na, nparts, what);								\
					free(a);																	\
					free(b);																	\
				}																				\
}
RUN_SHAPES(i32, int32_t, SETOPS_KEY_INT32)
RUN_SHAPES(i64, int64_t, SETOPS_KEY_INT64)

/*
 * Spread inputs split: a planner that never cuts passes every check above,
 * so large uniform inputs (and long duplicate runs across every target)
 * must get their parts, each within three quarters of the work.
 */
static void
must_split(void)
{
	int64_t		n = 1 << 18,
				i;
	int32_t    *a = malloc(sizeof(int32_t) * n),
			   *b = malloc(sizeof(int32_t) * n);
	int64_t    *c = malloc(sizeof(int64_t) * n),
			   *d = malloc(sizeof(int64_t) * n);
	int			parts;

	testgen_i32(a, n, SHAPE_UNIFORM_WIDE, 1);
	testgen_i32(b, n, SHAPE_UNIFORM_NARROW, 2);
	for (parts = 2; parts <= 5; parts++)
		CHECK(check_split(SETOPS_KEY_INT32, a, n, b, n, parts, "i32 wide x narrow") == parts,
			  "i32 wide x narrow: no split into %d parts", parts);
	/* runs of 1000 copies, every target inside one; a shorter B far from even */
	for (i = 0; i < n; i++)
		a[i] = (int32_t) (i / 1000) * 3 + INT32_MIN;
	for (i = 0; i < n / 3; i++)
		b[i] = (int32_t) (i / 7) * 2 + INT32_MIN;
	CHECK(check_split(SETOPS_KEY_INT32, a, n, b, n / 3, 2, "i32 runs") == 2, "i32 runs: no split");
	/* int8 extremes at both ends */
	for (i = 0; i < n; i++)
	{
		c[i] = i < n / 8 ? INT64_MIN : i >= n - n / 8 ? INT64_MAX : (i - n / 2) * 5;
		d[i] = i < n / 4 ? INT64_MIN : i >= n - n / 4 ? INT64_MAX : (i - n / 2) * 3;
	}
	CHECK(check_split(SETOPS_KEY_INT64, c, n, d, n, 2, "i64 extremes") == 2, "i64 extremes: no split");
	/* one run of one key: no point, no split, and the count is whole */
	for (i = 0; i < n; i++)
		a[i] = 42, b[i] = 42;
	CHECK(check_split(SETOPS_KEY_INT32, a, n, b, n, 2, "i32 all equal") == 0,
		  "i32 all equal: split with no key start");
	free(a);
	free(b);
	free(c);
	free(d);
}

int
main(void)
{
	run_i32();
	run_i64();
	must_split();
	printf("count_split_test: %ld passed, %ld failed\n", passed, failed);
	return failed > 0;
}
