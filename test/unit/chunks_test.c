/*
 * chunks_test.c
 *	  Unit tests of the chunk walk (engine/common/chunks.h) that every path
 *	  cutting its inputs uses.
 *
 *   walk      every op, both key types, the input shapes of testgen.h
 *             (long duplicate runs, all-equal, int extremes...), sizes
 *             from empty to a few thousand and steps from 1 to more than
 *             the inputs: the textbook loops run piece by piece and
 *             concatenated equal the textbook loops on the whole inputs;
 *             pieces move forward, cover the inputs once, hold at most
 *             step + 1 elements; sorted inputs never flag disorder;
 *   cuts      pieces ending at arbitrary diagonals, repeated ones and
 *             ones past the end included (a split over several GPUs):
 *             empty pieces where the diagonal does not move, the same
 *             concatenation;
 *   empty     empty inputs give no piece, or one empty piece when asked;
 *   disorder  a descent exactly where two pieces meet is flagged for the
 *             right input; unsorted inputs (shuffled) never lead the walk
 *             outside the inputs (run under AddressSanitizer), and any
 *             piece given lies within them.
 *
 * Prints "N passed, N failed"; exits non-zero on failure.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../engine/common/chunks.h"
#include "../common/testgen.h"
#include "../common/testcheck.h"
#include "../common/textbook.h"

static const char *const op_names[] = {"intersect", "union", "difference", "symdiff", "merge"};

static const int64_t sizes[] = {0, 1, 2, 3, 31, 32, 33, 255, 256, 257, 1000, 4095};
static const int64_t steps[] = {1, 2, 3, 7, 64, 255, 1000, 0, 100000};

#define DEFINE_WALK_TESTS(SFX, KEY, KTYPE)											\
/* The pieces of c's walk (next, or cut at diags when given), run and		\
 * concatenated; the count of outputs, or -1 when a piece was malformed. */	\
static int64_t																	\
walk_##SFX(SetopsChunks *c, const int64_t *diags, int ndiags, KEY *out,			\
		   int64_t *pieces, const char *what)										\
{																				\
	const KEY  *a = (const KEY *) c->a,											\
			   *b = (const KEY *) c->b;											\
	int64_t		k = 0,															\
				prev_a = 0,														\
				prev_b = 0;														\
	int			d = 0;															\
																				\
	*pieces = 0;																\
	while (diags ? (d < ndiags && setops_chunks_cut(c, diags[d++])) : setops_chunks_next(c))	\
	{																			\
		int64_t		len = c->a_end - c->ai + c->b_end - c->bi;					\
																				\
		(*pieces)++;															\
		if (c->ai != prev_a || c->bi != prev_b || c->a_end < c->ai ||			\
			c->b_end < c->bi || c->a_end > c->na || c->b_end > c->nb ||		\
			(!diags && c->step > 0 && len > c->step + 1))						\
		{																		\
			CHECK(0, "%s: piece %" PRId64 " [%" PRId64 ",%" PRId64 ")x[%" PRId64	\
				  ",%" PRId64 ") after [..%" PRId64 ")x[..%" PRId64 ")",		\
				  what, *pieces, c->ai, c->a_end, c->bi, c->b_end, prev_a, prev_b);	\
			return -1;															\
		}																		\
		k += textbook_##SFX(c->op, a + c->ai, c->a_end - c->ai, b + c->bi,		\
							c->b_end - c->bi, out + k);							\
		prev_a = c->a_end;														\
		prev_b = c->b_end;														\
	}																			\
	return k;																	\
}																				\
																				\
static void																		\
walk_tests_##SFX(void)															\
{																				\
	KEY		   *a = malloc(4096 * sizeof(KEY)),									\
			   *b = malloc(4096 * sizeof(KEY)),									\
			   *want = malloc(2 * 4096 * sizeof(KEY)),							\
			   *got = malloc(2 * 4096 * sizeof(KEY));							\
	int			op,																\
				shape;															\
	size_t		ia,																\
				ib,																\
				is;																\
																				\
	for (op = 0; op < 5; op++)													\
		for (shape = 0; shape < SHAPE_COUNT; shape++)							\
			for (ia = 0; ia < sizeof(sizes) / sizeof(sizes[0]); ia++)			\
				for (ib = 0; ib < sizeof(sizes) / sizeof(sizes[0]); ib += 3)	\
				{																\
					int64_t		na = sizes[ia],									\
								nb = sizes[(ia + ib) % (sizeof(sizes) / sizeof(sizes[0]))],	\
								n;												\
																				\
					testgen_##SFX(a, na, (TestShape) shape, ia);				\
					testgen_##SFX(b, nb, (TestShape) shape, ib + 1);			\
					n = textbook_##SFX((SetopsOp) op, a, na, b, nb, want);		\
					for (is = 0; is < sizeof(steps) / sizeof(steps[0]); is++)	\
					{															\
						SetopsChunks c;											\
						int64_t		pieces,										\
									m;											\
						char		what[128];									\
																				\
						snprintf(what, sizeof(what), #SFX " %s %s %" PRId64 "+%" PRId64 " step %" PRId64,	\
								 op_names[op], testgen_shape_names[shape], na, nb, steps[is]);	\
						setops_chunks_begin(&c, (SetopsOp) op, KTYPE, a, na, b, nb, steps[is]);	\
						m = walk_##SFX(&c, NULL, 0, got, &pieces, what);		\
						if (m < 0)												\
							continue;											\
						CHECK(m == n && memcmp(got, want, n * sizeof(KEY)) == 0,	\
							  "%s: %" PRId64 " outputs, textbook %" PRId64, what, m, n);	\
						CHECK(c.disorder == 0 && c.a_end == na && c.b_end == nb,	\
							  "%s: ends at %" PRId64 "+%" PRId64 ", disorder %d", what,	\
							  c.a_end, c.b_end, c.disorder);					\
						CHECK(na + nb == 0 ? pieces == 0 :						\
							  steps[is] <= 0 ? pieces == 1 :					\
							  pieces >= (na + nb + steps[is]) / (steps[is] + 1) &&	\
							  pieces <= (na + nb + steps[is] - 1) / steps[is],	\
							  "%s: %" PRId64 " pieces", what, pieces);			\
					}															\
																				\
					/* pieces at arbitrary diagonals: repeated, past the end */	\
					{															\
						int64_t		diags[8],									\
									pieces,										\
									m;											\
						int			nd = 0,										\
									j;											\
						SetopsChunks c;											\
																				\
						for (j = 0; j < 6; j++)									\
							diags[nd++] = testgen_range(0, na + nb + 2);		\
						for (j = 1; j < nd; j++)	/* ascending */				\
						{														\
							int64_t		x = diags[j];							\
							int			i = j - 1;								\
																				\
							for (; i >= 0 && diags[i] > x; i--)					\
								diags[i + 1] = diags[i];						\
							diags[i + 1] = x;									\
						}														\
						diags[nd] = diags[nd - 1];	/* the same again */		\
						nd++;													\
						diags[nd++] = na + nb;									\
						setops_chunks_begin(&c, (SetopsOp) op, KTYPE, a, na, b, nb, 0);	\
						m = walk_##SFX(&c, diags, nd, got, &pieces, "cuts");	\
						if (m >= 0)												\
							CHECK(m == n && memcmp(got, want, n * sizeof(KEY)) == 0 &&	\
								  c.a_end == na && c.b_end == nb && c.disorder == 0,	\
								  #SFX " cuts %s %s %" PRId64 "+%" PRId64 ": %" PRId64	\
								  " outputs, textbook %" PRId64,				\
								  op_names[op], testgen_shape_names[shape], na, nb, m, n);	\
					}															\
				}																\
	free(a);																	\
	free(b);																	\
	free(want);																	\
	free(got);																	\
}																				\
																				\
/* An eighth of v's keys swapped with others. */								\
static void																		\
shuffle_some_##SFX(KEY *v, int64_t n)											\
{																				\
	int64_t		i;																\
																				\
	for (i = 0; i < n / 8; i++)													\
	{																			\
		int64_t		x = testgen_range(0, n - 1),								\
					y = testgen_range(0, n - 1);								\
		KEY			t = v[x];													\
																				\
		v[x] = v[y];															\
		v[y] = t;																\
	}																			\
}																				\
																				\
/* Shuffled inputs: the walk stays within them, whatever it flags. */			\
static void																		\
unsorted_tests_##SFX(void)														\
{																				\
	KEY		   *a = malloc(2000 * sizeof(KEY)),									\
			   *b = malloc(2000 * sizeof(KEY));									\
	int			round,															\
				flagged = 0;													\
																				\
	for (round = 0; round < 2000; round++)										\
	{																			\
		int64_t		na = testgen_range(0, 2000),								\
					nb = testgen_range(0, 2000);								\
		SetopsChunks c;															\
		int			ok = 1;														\
																				\
		testgen_##SFX(a, na, (TestShape) (round % SHAPE_COUNT), round);			\
		testgen_##SFX(b, nb, (TestShape) ((round + 3) % SHAPE_COUNT), round + 1);	\
		shuffle_some_##SFX(a, na);												\
		shuffle_some_##SFX(b, nb);												\
		setops_chunks_begin(&c, (SetopsOp) (round % 5), KTYPE, a, na, b, nb,	\
							testgen_range(1, 300));								\
		while (setops_chunks_next(&c))											\
			if (c.ai > c.a_end || c.bi > c.b_end || c.a_end > na || c.b_end > nb)	\
				ok = 0;															\
		flagged += c.disorder != 0;												\
		CHECK(ok, #SFX " unsorted round %d: a piece outside the inputs", round);	\
	}																			\
	/* most shuffles are seen at some boundary (the rest inside a piece) */	\
	CHECK(flagged > 100, #SFX " unsorted: only %d of 2000 walks flagged", flagged);	\
	free(a);																	\
	free(b);																	\
}

DEFINE_WALK_TESTS(i32, int32_t, SETOPS_KEY_INT32)
DEFINE_WALK_TESTS(i64, int64_t, SETOPS_KEY_INT64)

/* Empty inputs, and descents placed exactly where two pieces meet. */
static void
edge_tests(void)
{
	SetopsChunks c;
	int32_t		a[] = {5, 6, 7, 1, 2, 3};
	int32_t		b[] = {10, 11, 12, 0, 1, 2};
	int			n;

	setops_chunks_begin(&c, SETOPS_OP_UNION, SETOPS_KEY_INT32, NULL, 0, NULL, 0, 16);
	for (n = 0; setops_chunks_next(&c); n++)
		;
	CHECK(n == 0, "empty inputs: %d pieces", n);
	setops_chunks_begin(&c, SETOPS_OP_UNION, SETOPS_KEY_INT32, NULL, 0, NULL, 0, 16);
	c.empty_piece = true;
	for (n = 0; setops_chunks_next(&c); n++)
		CHECK(c.ai == 0 && c.a_end == 0 && c.bi == 0 && c.b_end == 0, "empty piece not empty");
	CHECK(n == 1, "empty inputs, empty piece asked: %d pieces", n);

	/* B empty: the first piece is A's first three keys, then 1 < 7 */
	for (int op = 0; op < 5; op++)
	{
		setops_chunks_begin(&c, (SetopsOp) op, SETOPS_KEY_INT32, a, 6, b, 0, 3);
		CHECK(setops_chunks_next(&c) && c.a_end == 3 && c.disorder == 0,
			  "%s: first piece [0,%" PRId64 "), disorder %d", op_names[op], c.a_end, c.disorder);
		CHECK(setops_chunks_next(&c) && (c.disorder & SETOPS_CHUNKS_A_UNSORTED) &&
			  !(c.disorder & SETOPS_CHUNKS_B_UNSORTED),
			  "%s: A's descent at the boundary: disorder %d", op_names[op], c.disorder);
		/* the same for B with A empty */
		setops_chunks_begin(&c, (SetopsOp) op, SETOPS_KEY_INT32, a, 0, b, 6, 3);
		(void) setops_chunks_next(&c);
		CHECK(c.b_end == 3 && c.disorder == 0, "%s: B's first piece", op_names[op]);
		CHECK(setops_chunks_next(&c) && (c.disorder & SETOPS_CHUNKS_B_UNSORTED) &&
			  !(c.disorder & SETOPS_CHUNKS_A_UNSORTED),
			  "%s: B's descent at the boundary: disorder %d", op_names[op], c.disorder);
	}
}

/*
 * The run-start search's modes (biased probes, galloping back from n)
 * against a linear scan, on runs of every length up to 5000 ending at n
 * and keys absent, present first, or past the end.
 */
static void
biased_search_tests(void)
{
	static int32_t v[12000];
	int			round;

	for (round = 0; round < 400; round++)
	{
		int64_t		n = testgen_range(1, 12000),
					run = testgen_range(0, round % 4 == 0 ? n : (n < 5000 ? n : 5000)),
					i,
					want = n;
		int32_t		x = (int32_t) testgen_range(-3, 3);
		int			levels;

		/* keys below x, then run copies of x ending at n */
		for (i = 0; i < n - run; i++)
			v[i] = x - 1 - (int32_t) testgen_range(0, 2) - (int32_t) ((n - run - i) / 7);
		for (; i < n; i++)
			v[i] = x;
		for (i = 1; i < n; i++)
			if (v[i] < v[i - 1])
				v[i] = v[i - 1];
		for (i = 0; i < n; i++)
			if (v[i] >= x)
			{
				want = i;
				break;
			}
		for (levels = -1; levels <= 4; levels++)
		{
			int64_t		got = setops_biased_lower_bound_split32(v, n, x, levels);

			CHECK(got == want, "biased lower bound, levels %d, n %" PRId64 " run %" PRId64
				  ": got %" PRId64 ", want %" PRId64, levels, n, run, got, want);
		}
		CHECK(setops_biased_lower_bound_split32(v, n, x + 1, -1) == n,
			  "galloping lower bound past the end, n %" PRId64, n);
	}
}

int
main(void)
{
	walk_tests_i32();
	walk_tests_i64();
	unsorted_tests_i32();
	unsorted_tests_i64();
	edge_tests();
	biased_search_tests();
	printf("chunks_test: %ld passed, %ld failed\n", passed, failed);
	return failed ? 1 : 0;
}
