/*
 * chunks.h
 *	  The one chunk loop: two sorted inputs walked in pieces that end on
 *	  key-rank-consistent splits (balanced_path.h), so that an operation run
 *	  piece by piece, the outputs concatenated, is the whole operation.
 *
 * Every path that cuts its inputs walks them with this: the CPU engine
 * (chunks between interrupt checks), the values of pairs gathered a chunk
 * at a time, the GPU service's slot-sized requests, the GPU's launches,
 * and the parts of an operation split over several GPUs (cut at weighted
 * diagonals rather than in equal steps).
 *
 *	SetopsChunks c;
 *	setops_chunks_begin(&c, op, type, a, na, b, nb, step);
 *	while (setops_chunks_next(&c))
 *		run a[c.ai, c.a_end) x b[c.bi, c.b_end);
 *	if (c.disorder) ... an input is not sorted
 *
 * A split found by searching unsorted input can land anywhere: the walk
 * checks that each cut moves forward within the inputs (else it stops,
 * SETOPS_CHUNKS_LOST) and whether the keys descend where two pieces meet
 * (SETOPS_CHUNKS_A_UNSORTED / _B_UNSORTED: the piece is still given, for
 * callers whose answer does not depend on order, such as an overlap
 * found).  The order inside a piece is the runner's to check.
 *
 * C and CUDA C++ (host code); no PostgreSQL or CUDA headers.
 */
#ifndef SETOPS_CHUNKS_H
#define SETOPS_CHUNKS_H

#include <stdbool.h>
#include <stdint.h>

#include "setop_kind.h"
#include "balanced_path.h"

SETOPS_DEFINE_SEARCHES(split32, int32_t, int64_t)
SETOPS_DEFINE_SEARCHES(split64, int64_t, int64_t)

/*
 * The split on diagonal d: a[0, *ai) x b[0, *bi) before it.  A merge keeps
 * every copy and orders ties A first: its pieces end on the merge path
 * itself.  Set operations need Balanced Path (*ai + *bi is d or d + 1).
 */
#define SETOPS_DEFINE_SPLIT(SFX, KEY, SEARCH)										\
static inline void																	\
setops_split_##SFX(SetopsOp op, const KEY *a, int64_t na, const KEY *b, int64_t nb,	\
				   int64_t d, int64_t *ai, int64_t *bi)								\
{																					\
	int			star = 0;															\
																					\
	if (op == SETOPS_OP_MERGE)														\
		*ai = setops_merge_path_##SEARCH(a, na, b, nb, d);							\
	else																			\
		*ai = setops_balanced_path_##SEARCH(a, na, b, nb, d, 4, &star);				\
	*bi = d - *ai + star;															\
}
SETOPS_DEFINE_SPLIT(i32, int32_t, split32)
SETOPS_DEFINE_SPLIT(i64, int64_t, split64)

static inline void
setops_split(SetopsOp op, SetopsKeyType type, const void *a, int64_t na, const void *b,
			 int64_t nb, int64_t d, int64_t *ai, int64_t *bi)
{
	if (type == SETOPS_KEY_INT64)
		setops_split_i64(op, (const int64_t *) a, na, (const int64_t *) b, nb, d, ai, bi);
	else
		setops_split_i32(op, (const int32_t *) a, na, (const int32_t *) b, nb, d, ai, bi);
}

/* Why a walk stopped or flagged a piece (SetopsChunks.disorder bits). */
#define SETOPS_CHUNKS_A_UNSORTED	1	/* A descends where two pieces meet */
#define SETOPS_CHUNKS_B_UNSORTED	2
#define SETOPS_CHUNKS_LOST			4	/* a cut outside the inputs: unsorted input */

typedef struct SetopsChunks
{
	SetopsOp	op;
	SetopsKeyType type;
	const void *a;
	int64_t		na;
	const void *b;
	int64_t		nb;
	int64_t		step;			/* elements (a + b) a piece aims at; <= 0: one piece */
	int64_t		d;				/* the diagonal of the last cut */
	bool		started;
	bool		empty_piece;	/* empty inputs still give one (empty) piece */
	/* the current piece: a[ai, a_end) x b[bi, b_end) */
	int64_t		ai;
	int64_t		a_end;
	int64_t		bi;
	int64_t		b_end;
	int			disorder;		/* SETOPS_CHUNKS_* seen so far */
} SetopsChunks;

static inline void
setops_chunks_begin(SetopsChunks *c, SetopsOp op, SetopsKeyType type, const void *a,
					int64_t na, const void *b, int64_t nb, int64_t step)
{
	c->op = op;
	c->type = type;
	c->a = a;
	c->na = na;
	c->b = b;
	c->nb = nb;
	c->step = step;
	c->d = 0;
	c->started = false;
	c->empty_piece = false;
	c->ai = c->a_end = c->bi = c->b_end = 0;
	c->disorder = 0;
}

static inline bool
setops_chunks_key_less(const void *keys, int64_t i, int64_t j, SetopsKeyType type)
{
	return type == SETOPS_KEY_INT64 ? ((const int64_t *) keys)[i] < ((const int64_t *) keys)[j]
		: ((const int32_t *) keys)[i] < ((const int32_t *) keys)[j];
}

/*
 * The piece that ends on diagonal d (the last piece: d at or past the
 * inputs' end).  False when nothing is left, or the cut went astray
 * (disorder has SETOPS_CHUNKS_LOST).
 */
static inline bool
setops_chunks_cut(SetopsChunks *c, int64_t d)
{
	int64_t		total = c->na + c->nb;

	if (c->started)
	{
		c->ai = c->a_end;
		c->bi = c->b_end;
	}
	if ((c->disorder & SETOPS_CHUNKS_LOST) ||
		(c->ai >= c->na && c->bi >= c->nb && (c->started || !c->empty_piece)))
		return false;
	c->started = true;
	c->d = d;
	if (d >= total)
	{
		c->a_end = c->na;
		c->b_end = c->nb;
	}
	else
		setops_split(c->op, c->type, c->a, c->na, c->b, c->nb, d, &c->a_end, &c->b_end);
	if (c->a_end < c->ai || c->b_end < c->bi || c->a_end > c->na || c->b_end > c->nb)
	{
		c->disorder |= SETOPS_CHUNKS_LOST;
		return false;
	}
	if (c->ai > 0 && c->ai < c->a_end && setops_chunks_key_less(c->a, c->ai, c->ai - 1, c->type))
		c->disorder |= SETOPS_CHUNKS_A_UNSORTED;
	if (c->bi > 0 && c->bi < c->b_end && setops_chunks_key_less(c->b, c->bi, c->bi - 1, c->type))
		c->disorder |= SETOPS_CHUNKS_B_UNSORTED;
	return true;
}

/* The next piece of step elements (all that is left with step <= 0). */
static inline bool
setops_chunks_next(SetopsChunks *c)
{
	return setops_chunks_cut(c, c->step > 0 ? c->d + c->step : c->na + c->nb);
}

/* Whether this piece is the last. */
static inline bool
setops_chunks_last(const SetopsChunks *c)
{
	return c->a_end >= c->na && c->b_end >= c->nb;
}

#endif							/* SETOPS_CHUNKS_H */
