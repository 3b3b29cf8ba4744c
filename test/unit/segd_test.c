/*
 * segd_test.c
 *	  Unit tests of segment descriptors (engine/common/segd.h) and the CPU
 *	  engine's segmented batches (engine/cpu/segmented.c).
 *
 *   locate     every element of descriptors with empty segments (leading,
 *              trailing, runs of them), one huge segment among tiny ones,
 *              a single segment, all empty: the segment and offset found
 *              by binary search equal a walk's; block starts at every
 *              block size split the work so that each element belongs to
 *              exactly one block;
 *   batches    every op, both key types, batches of many tiny pairs, one
 *              huge pair among tiny ones, empty pairs and input shapes of
 *              testgen.h: the concatenated output and its lengths equal the
 *              textbook std::set_* loops run pair by pair.
 *
 * Prints "N passed, N failed"; exits non-zero on failure.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../engine/cpu/engine.h"
#include "../common/testgen.h"
#include "../common/testcheck.h"
#include "../common/textbook.h"

/* ---- descriptors ---- */

typedef enum SegdShape
{
	SEGD_TINY,					/* lengths 0..3 */
	SEGD_HUGE_AMONG_TINY,		/* one of 50,000, the rest 0..2 */
	SEGD_EMPTY_EDGES,			/* runs of empty segments at both ends */
	SEGD_SINGLE,
	SEGD_ALL_EMPTY,
	SEGD_SHAPES
} SegdShape;

static const char *const segd_shape_names[] = {"tiny", "huge-among-tiny", "empty-edges",
"single", "all-empty"};

static int64_t
make_lengths(int64_t *lengths, int64_t nsegs, SegdShape shape)
{
	int64_t		i;

	for (i = 0; i < nsegs; i++)
	{
		switch (shape)
		{
			case SEGD_TINY:
				lengths[i] = testgen_range(0, 3);
				break;
			case SEGD_HUGE_AMONG_TINY:
				lengths[i] = i == nsegs / 3 ? 50000 : testgen_range(0, 2);
				break;
			case SEGD_EMPTY_EDGES:
				lengths[i] = i < nsegs / 4 || i >= nsegs - nsegs / 4 ? 0 : testgen_range(0, 40);
				break;
			case SEGD_SINGLE:
				lengths[i] = i == 0 ? 12345 : 0;
				break;
			default:
				lengths[i] = 0;
		}
	}
	return shape == SEGD_SINGLE ? 1 : nsegs;
}

static void
test_locate(void)
{
	for (int shape = 0; shape < SEGD_SHAPES; shape++)
	{
		int64_t		nsegs = 5000;
		int64_t    *lengths = malloc(nsegs * sizeof(int64_t));
		int64_t    *starts = malloc(nsegs * sizeof(int64_t));
		SetopsSegd	s;
		int64_t		e = 0,
					seg = 0,
					bad = 0;

		nsegs = make_lengths(lengths, nsegs, (SegdShape) shape);
		s.nsegs = nsegs;
		s.lengths = lengths;
		s.starts = starts;
		s.total = setops_segd_scan(lengths, nsegs, starts);

		/* walk: element e is in the first segment not yet exhausted */
		for (seg = 0; seg < nsegs; seg++)
			for (int64_t off = 0; off < lengths[seg]; off++, e++)
			{
				int64_t		got_seg,
							got_off;

				setops_segd_locate(&s, e, &got_seg, &got_off);
				if (got_seg != seg || got_off != off)
					bad++;
			}
		CHECK(e == s.total && bad == 0, "locate %s: %" PRId64 " elements misplaced of %" PRId64,
			  segd_shape_names[shape], bad, s.total);
		{
			int64_t		got_seg,
						got_off;

			setops_segd_locate(&s, s.total, &got_seg, &got_off);
			CHECK(got_seg == nsegs && got_off == 0, "locate %s: the end is (%" PRId64 ", %" PRId64 ")",
				  segd_shape_names[shape], got_seg, got_off);
		}

		/* blocks of epb elements: each starts where the previous ended */
		for (int64_t epb = 1; epb <= 4097; epb = epb * 3 + 1)
		{
			int64_t		covered = 0;

			for (int64_t first = 0; first < s.total; first += epb)
			{
				int64_t		b_seg,
							b_off,
							end = first + epb < s.total ? first + epb : s.total;

				setops_segd_locate(&s, first, &b_seg, &b_off);
				/* the block's elements, walked from its start */
				for (int64_t x = first; x < end; x++)
				{
					while (b_off >= lengths[b_seg])
					{
						b_seg++;
						b_off = 0;
					}
					if (starts[b_seg] + b_off != x)
						bad++;
					b_off++;
					covered++;
				}
			}
			CHECK(bad == 0 && covered == s.total,
				  "blocks of %" PRId64 " over %s: %" PRId64 " of %" PRId64 " covered, %" PRId64 " wrong",
				  epb, segd_shape_names[shape], covered, s.total, bad);
		}
		free(lengths);
		free(starts);
	}
}

/* ---- batches against the textbook loops ---- */


static const char *const op_names[] = {"intersect", "union", "difference", "symdiff", "merge"};

#define DEFINE_BATCH_TEST(SFX, KEY)												\
static void																		\
batch_##SFX(SetopsOp op, int shape, int segd_shape)								\
{																				\
	int64_t		nsegs = 600;													\
	int64_t    *la = malloc(nsegs * sizeof(int64_t)),							\
			   *lb = malloc(nsegs * sizeof(int64_t)),							\
			   *sa = malloc(nsegs * sizeof(int64_t)),							\
			   *sb = malloc(nsegs * sizeof(int64_t)),							\
			   *lo = malloc(nsegs * sizeof(int64_t));							\
	SetopsSegd	as,																\
				bs;																\
	KEY		   *a,																\
			   *b,																\
			   *out,															\
			   *want;															\
	int64_t		bound = 0,														\
				k = 0,															\
				total,															\
				i,																\
				bad = 0;														\
																				\
	nsegs = make_lengths(la, nsegs, (SegdShape) segd_shape);					\
	make_lengths(lb, nsegs, (SegdShape) segd_shape);							\
	/* b's lengths differ from a's: swap some to empty, some to longer */		\
	for (i = 0; i < nsegs; i++)													\
		if (i % 7 == 3)															\
			lb[i] = 0;															\
		else if (i % 11 == 5)													\
			lb[i] += 30;														\
	as.nsegs = bs.nsegs = nsegs;												\
	as.lengths = la;															\
	bs.lengths = lb;															\
	as.starts = sa;																\
	bs.starts = sb;																\
	as.total = setops_segd_scan(la, nsegs, sa);									\
	bs.total = setops_segd_scan(lb, nsegs, sb);									\
	a = malloc((as.total + 1) * sizeof(KEY));									\
	b = malloc((bs.total + 1) * sizeof(KEY));									\
	for (i = 0; i < nsegs; i++)													\
	{																			\
		testgen_##SFX(a + sa[i], la[i], (TestShape) shape, 2 * i);				\
		testgen_##SFX(b + sb[i], lb[i], (TestShape) shape, 2 * i + 1);			\
		bound += setop_output_bound(op, la[i], lb[i]);							\
	}																			\
	out = malloc((bound + SETOPS_CPU_OUTPUT_SLACK) * sizeof(KEY));				\
	want = malloc((bound + 1) * sizeof(KEY));									\
	total = setops_cpu_setop_segmented_##SFX(op, a, &as, b, &bs, out, lo, NULL);		\
	for (i = 0; i < nsegs; i++)													\
	{																			\
		int64_t		n = textbook_##SFX(op, a + sa[i], la[i], b + sb[i], lb[i], want + k);	\
																				\
		if (n != lo[i])															\
			bad++;																\
		k += n;																	\
	}																			\
	CHECK(total == k && bad == 0 && memcmp(out, want, k * sizeof(KEY)) == 0,	\
		  "batch %s %s keys over %s pairs (%" PRId64 " pairs, %" PRId64 " + %" PRId64 " keys): "	\
		  "%" PRId64 " outputs, textbook %" PRId64 ", %" PRId64 " lengths wrong",	\
		  #SFX, testgen_shape_names[shape], segd_shape_names[segd_shape], nsegs,	\
		  as.total, bs.total, total, k, bad);									\
	free(la); free(lb); free(sa); free(sb); free(lo);							\
	free(a); free(b); free(out); free(want);									\
}

DEFINE_BATCH_TEST(i32, int32_t)
DEFINE_BATCH_TEST(i64, int64_t)

int
main(void)
{
	test_locate();
	for (int op = 0; op <= SETOPS_OP_MERGE; op++)
		for (int shape = 0; shape < SHAPE_COUNT; shape++)
			for (int segd_shape = 0; segd_shape < SEGD_SHAPES; segd_shape++)
			{
				batch_i32((SetopsOp) op, shape, segd_shape);
				batch_i64((SetopsOp) op, shape, segd_shape);
			}
	printf("segd_test: every op (%s .. %s): %ld passed, %ld failed\n", op_names[0],
		   op_names[SETOPS_OP_MERGE], passed, failed);
	return failed > 0;
}
