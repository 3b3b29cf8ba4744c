/*
 * setop_kind.h
 *	  The operations setops implements, shared by every layer.
 *
 * Plain C with no PostgreSQL or CUDA headers: included by the CPU engine,
 * the PostgreSQL layer and the CUDA kernels alike.
 */
#ifndef SETOPS_SETOP_KIND_H
#define SETOPS_SETOP_KIND_H

#include <stddef.h>

/*
 * Multiset operations with std::set_* semantics on sorted input: the i-th
 * copy of a key in A pairs with the i-th copy in B (key-rank matching).
 * With ca and cb copies of a key, the output holds
 *   INTERSECT  min(ca, cb) copies, taken from A
 *   UNION      max(ca, cb): A's ca copies, then B's copies ca..cb-1
 *   DIFFERENCE max(ca - cb, 0): A's copies cb..ca-1
 *   SYMDIFF    |ca - cb|: the unmatched copies of whichever side has more
 *   MERGE      ca + cb: A's copies, then B's (a stable merge; used by
 *              array_merge_agg)
 */
typedef enum SetopsOp
{
	SETOPS_OP_INTERSECT = 0,
	SETOPS_OP_UNION = 1,
	SETOPS_OP_DIFFERENCE = 2,
	SETOPS_OP_SYMDIFF = 3,
	SETOPS_OP_MERGE = 4
} SetopsOp;

#define SETOPS_OP_COUNT 5

/* Key types the engines handle; the PostgreSQL layer maps int4/int8 here. */
typedef enum SetopsKeyType
{
	SETOPS_KEY_INT32 = 0,
	SETOPS_KEY_INT64 = 1
} SetopsKeyType;

/* Bytes of one key of type. */
static inline size_t
setops_key_size(SetopsKeyType type)
{
	return type == SETOPS_KEY_INT64 ? 8 : 4;
}

/*
 * Most outputs an operation can produce from na and nb inputs.  Outputs are
 * written straight into buffers of this size (plus the engine's slack), so
 * no operation ever counts first and writes second.
 */
static inline long long
setop_output_bound(SetopsOp op, long long na, long long nb)
{
	switch (op)
	{
		case SETOPS_OP_INTERSECT:
			return na < nb ? na : nb;
		case SETOPS_OP_DIFFERENCE:
			return na;
		default:
			return na + nb;
	}
}

/*
 * The size of op's result from the key-rank intersection count i = sum over
 * keys of min(ca, cb): union max(ca, cb) = ca + cb - min, difference
 * ca - min, symmetric difference ca + cb - 2 min.  So one count (the
 * intersection's) answers every count, on every engine.
 */
static inline long long
setop_count_from_intersect(SetopsOp op, long long na, long long nb, long long i)
{
	switch (op)
	{
		case SETOPS_OP_INTERSECT:
			return i;
		case SETOPS_OP_UNION:
			return na + nb - i;
		case SETOPS_OP_DIFFERENCE:
			return na - i;
		case SETOPS_OP_SYMDIFF:
			return na + nb - 2 * i;
		case SETOPS_OP_MERGE:
			return na + nb;
	}
	return -1;
}

/*
 * Multiset Jaccard similarity |A ∩ B| / |A ∪ B| from the intersection
 * count.  Two empty multisets are equal, so their similarity is 1, as for
 * any two equal inputs.
 */
static inline double
setop_jaccard_from_intersect(long long na, long long nb, long long i)
{
	long long	u = setop_count_from_intersect(SETOPS_OP_UNION, na, nb, i);

	return u == 0 ? 1.0 : (double) i / (double) u;
}

/* A's multiset lies within B's: every copy in A found its copy in B. */
static inline int
setop_contained_from_intersect(long long na, long long i)
{
	return i == na;
}

#endif							/* SETOPS_SETOP_KIND_H */
