/*
 * count_split.h
 *	  One count of two large sorted arrays cut into parts that run apart
 *	  (one a GPU) and add up.
 *
 * The key-rank intersection count is a sum over keys of min(ca, cb), so it
 * splits at any key p: the keys below p and the keys from p on count
 * apart.  Only one side's cuts must be exact.  When A's part holds exactly
 * A's keys in [p, q), B's part may hold more than B's keys in [p, q): a
 * key that A's part lacks matches nothing.  So A is cut where a new key
 * starts (split points), and B's part is a bracket from B's own split
 * points around its keys in [p, q).  The count is symmetric, so either
 * array may be A.
 *
 * Split points are taken from an array's keys as it is put into the
 * device cache: up to SETOPS_SPLIT_POINTS positions i with A[i-1] < A[i],
 * one near each of as many evenly spaced targets, each on a multiple of
 * SETOPS_SPLIT_ALIGN keys.  A part of the array then starts on a 16-byte
 * boundary (32 for int8), as the count kernel's tiles load it.  An array
 * of one long run of a key has none there.
 *
 * Plain C with no PostgreSQL or CUDA headers.
 */
#ifndef SETOPS_COUNT_SPLIT_H
#define SETOPS_COUNT_SPLIT_H

#include <stdint.h>

#include "setop_kind.h"

#define SETOPS_SPLIT_POINTS 15
#define SETOPS_SPLIT_ALIGN 4
/* arrays this large get split points (240 bytes for 64 KB of keys or more) */
#define SETOPS_SPLIT_MIN_KEYS ((int64_t) 1 << 14)
/* parts at most */
#define SETOPS_SPLIT_MAX_PARTS 16

typedef struct SetopsSplitPoints
{
	int64_t		pos[SETOPS_SPLIT_POINTS];	/* 0: none found near target j */
	int64_t		key[SETOPS_SPLIT_POINTS];	/* the key that starts at pos[j] */
} SetopsSplitPoints;

/* One part: keys [a_off, a_off + na) of A and [b_off, b_off + nb) of B. */
typedef struct SetopsCountPart
{
	int64_t		a_off;
	int64_t		na;
	int64_t		b_off;
	int64_t		nb;
} SetopsCountPart;

static inline int64_t
setops_split_key(SetopsKeyType type, const void *keys, int64_t i)
{
	return type == SETOPS_KEY_INT64 ? ((const int64_t *) keys)[i] :
		(int64_t) ((const int32_t *) keys)[i];
}

/*
 * Take the split points that keys [offset, offset + n) of an array of
 * total keys hold (piece holds those n keys).  Called for each piece of
 * the array in order; sp starts zeroed.  Target j is (j + 1) total /
 * (SETOPS_SPLIT_POINTS + 1); its point is the first aligned key start at
 * or after it and before target j + 1 (so points ascend).  A start that
 * straddles two pieces is not seen: the search goes on in the next piece.
 */
static inline void
setops_split_points_take(SetopsSplitPoints *sp, SetopsKeyType type, const void *piece,
						 int64_t offset, int64_t n, int64_t total)
{
	int64_t		step = total / (SETOPS_SPLIT_POINTS + 1);
	int			j;

	if (step < SETOPS_SPLIT_ALIGN)
		return;
	for (j = 0; j < SETOPS_SPLIT_POINTS; j++)
	{
		int64_t		want = (j + 1) * step,
					limit = want + step,
					i;

		if (sp->pos[j] > 0 || limit <= offset || want >= offset + n)
			continue;
		i = want > offset + 1 ? want : offset + 1;
		i = (i + SETOPS_SPLIT_ALIGN - 1) / SETOPS_SPLIT_ALIGN * SETOPS_SPLIT_ALIGN;
		for (; i < limit && i < offset + n; i += SETOPS_SPLIT_ALIGN)
		{
			int64_t		k = setops_split_key(type, piece, i - offset);

			if (setops_split_key(type, piece, i - 1 - offset) < k)
			{
				sp->pos[j] = i;
				sp->key[j] = k;
				break;
			}
		}
	}
}

/*
 * B's bracket around its keys from p on: lo at or before B's first key >= p
 * (the last split point whose key is below p, else 0), hi at or after it
 * (the first split point whose key is p or more, else nb).
 */
static inline void
setops_split_bracket(const SetopsSplitPoints *b, int64_t nb, int64_t p, int64_t *lo, int64_t *hi)
{
	int			j;

	*lo = 0;
	*hi = nb;
	for (j = 0; j < SETOPS_SPLIT_POINTS; j++)
	{
		if (b->pos[j] == 0)
			continue;
		if (b->key[j] < p)
			*lo = b->pos[j];
		else
		{
			*hi = b->pos[j];
			break;
		}
	}
}

/*
 * Cut a count of A (na keys, split points a) and B (nb, b) into nparts
 * parts of about equal work (keys read), A cut at its split points: the
 * number of parts (nparts), or 0 when no such cut leaves every part keys
 * of both arrays and none more than three quarters of the work.
 */
static inline int
setops_count_split_plan(const SetopsSplitPoints *a, int64_t na, const SetopsSplitPoints *b,
						int64_t nb, int nparts, SetopsCountPart *parts)
{
	int64_t		cut[SETOPS_SPLIT_MAX_PARTS + 1],
				lo[SETOPS_SPLIT_MAX_PARTS + 1],
				hi[SETOPS_SPLIT_MAX_PARTS + 1];
	int			last = -1,
				k,
				j;

	if (nparts < 2 || nparts > SETOPS_SPLIT_MAX_PARTS)
		return 0;
	cut[0] = lo[0] = 0;
	cut[nparts] = na;
	hi[nparts] = nb;
	for (k = 1; k < nparts; k++)
	{
		double		target = (double) k * (na + nb) / nparts,
					best_gap = -1;
		int			best = -1;

		for (j = last + 1; j < SETOPS_SPLIT_POINTS; j++)
		{
			int64_t		l,
						h;
			double		gap;

			if (a->pos[j] == 0)
				continue;
			setops_split_bracket(b, nb, a->key[j], &l, &h);
			gap = a->pos[j] + (l + h) / 2.0 - target;
			if (gap < 0)
				gap = -gap;
			if (best < 0 || gap < best_gap)
			{
				best = j;
				best_gap = gap;
			}
		}
		if (best < 0)
			return 0;
		last = best;
		cut[k] = a->pos[best];
		setops_split_bracket(b, nb, a->key[best], &lo[k], &hi[k]);
	}
	for (k = 0; k < nparts; k++)
	{
		parts[k].a_off = cut[k];
		parts[k].na = cut[k + 1] - cut[k];
		parts[k].b_off = lo[k];
		parts[k].nb = hi[k + 1] - lo[k];
		if (parts[k].na <= 0 || parts[k].nb <= 0 ||
			4 * (parts[k].na + parts[k].nb) > 3 * (na + nb))
			return 0;
	}
	return nparts;
}

#endif							/* SETOPS_COUNT_SPLIT_H */
