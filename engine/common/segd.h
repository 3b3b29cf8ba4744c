/*
 * segd.h
 *	  Segment descriptors: many arrays concatenated, in the style of Data
 *	  Parallel Haskell's USegd (lengths, start indices, element total).
 *
 * A batch of set operations is two concatenations, A and B, with one
 * descriptor each: pair i is A's segment i with B's segment i.  Work is
 * divided element-wise, not segment-wise (the splitSegdOnElems idea): the
 * pairs' work is described by a third descriptor whose lengths are
 * na_i + nb_i, and a block that starts at work element e finds its first
 * pair and that pair's first diagonal with setops_segd_locate.  A long
 * pair then spans several blocks, and a block may hold the tail of one
 * pair and the heads of the next ones; within a pair, diagonals are split
 * by Balanced Path as for a single operation.
 *
 * Plain C, header-only: the CPU engine, the CUDA host code and the tests
 * share it.
 */
#ifndef SETOPS_SEGD_H
#define SETOPS_SEGD_H

#include <stdint.h>

typedef struct SetopsSegd
{
	int64_t		nsegs;
	const int64_t *lengths;		/* nsegs */
	const int64_t *starts;		/* nsegs: exclusive prefix sums of lengths */
	int64_t		total;			/* sum of lengths */
} SetopsSegd;

/*
 * Fill starts[0, nsegs) from lengths and return the total; -1 if a length
 * is negative.
 */
static inline int64_t
setops_segd_scan(const int64_t *lengths, int64_t nsegs, int64_t *starts)
{
	int64_t		total = 0,
				i;

	for (i = 0; i < nsegs; i++)
	{
		if (lengths[i] < 0)
			return -1;
		starts[i] = total;
		total += lengths[i];
	}
	return total;
}

/*
 * The segment holding element e (0 <= e < total), and e's offset in it.
 * Empty segments hold no element, so the answer is never one of them: it
 * is the last segment whose start is at most e.  e == total gives
 * (nsegs, 0).
 */
static inline void
setops_segd_locate(const SetopsSegd *s, int64_t e, int64_t *seg, int64_t *offset)
{
	int64_t		lo = 0,
				hi = s->nsegs;

	if (e >= s->total)
	{
		*seg = s->nsegs;
		*offset = 0;
		return;
	}
	/* the first segment whose start is greater than e, minus one */
	while (lo < hi)
	{
		int64_t		mid = lo + (hi - lo) / 2;

		if (s->starts[mid] <= e)
			lo = mid + 1;
		else
			hi = mid;
	}
	*seg = lo - 1;
	*offset = e - s->starts[lo - 1];
}

/*
 * The pairs of one round of a reduction over m runs held end to end
 * (lengths len): pair k is run 2k with run 2k+1, described by starts into
 * that one buffer.  Returns where the odd run out begins when m is odd
 * (else the end of the runs); the pairs number m / 2.
 */
static inline int64_t
setops_segd_round_pairs(const int64_t *len, int64_t m, int64_t *a_start, int64_t *a_len,
						int64_t *b_start, int64_t *b_len)
{
	int64_t		start = 0,
				k;

	for (k = 0; k < m / 2; k++)
	{
		a_start[k] = start;
		a_len[k] = len[2 * k];
		b_start[k] = start + len[2 * k];
		b_len[k] = len[2 * k + 1];
		start = b_start[k] + b_len[k];
	}
	return start;
}

#endif							/* SETOPS_SEGD_H */
