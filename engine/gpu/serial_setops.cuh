/*
 * serial_setops.cuh
 *	  The per-thread multiset logic: one thread walks its VT key-rank slots
 *	  in shared memory and reports which slots produce an output.
 *
 * A slot holds one element of A, one of B, or a matched pair of both.  Each
 * iteration compares the two heads.  The candidate output goes to a register
 * (results[i], with its source) whatever happens, and bit i of the
 * returned commit mask says whether it is kept; outputs are compacted later
 * by the tile.  Indices stay in registers because the loop is unrolled.
 *
 * Each thread's range ends on a key-rank-consistent split, so a head that
 * runs past the range (into the next thread's keys) can never match what is
 * left on the other side: comparisons there are harmless, and only the
 * ends of the tile itself need range checks (RangeCheck), when the tile
 * could not load one extra element of each input as a sentinel.
 */
#ifndef SETOPS_SERIAL_SETOPS_CUH
#define SETOPS_SERIAL_SETOPS_CUH

#include "../common/setop_kind.h"

namespace setops
{

/*
 * keys: the tile in shared memory, A at [.., a_end), B at [.., b_end).
 * ai and bi index keys directly; the thread stops when ai + bi reaches end.
 * src[i] receives the shared-memory index of slot i's candidate.
 *
 * Each slot computes two advance flags, take_a = (x <= y) and take_b =
 * (y <= x): a match sets both, a lone A key only take_a, a lone B key only
 * take_b.  Every operation's output follows from them without branches.
 * At the ends of the tile (RangeCheck) an exhausted side never advances.
 *
 * In a full tile (RangeCheck false) every thread has at least VT - 1
 * elements, so at least (VT - 1) / 2 slots: those iterations skip the end
 * test.
 */
template <SetopsOp Op, int VT, bool RangeCheck, typename Key>
__device__ __forceinline__ unsigned
serial_setop(const Key *keys, int ai, int a_end, int bi, int b_end, int end,
			 Key (&results)[VT], int (&src)[VT])
{
	const int	min_slots = Op == SETOPS_OP_MERGE ? VT - 1 : (VT - 1) / 2;
	unsigned	commit = 0;

#pragma unroll
	for (int i = 0; i < VT; ++i)
	{
		if ((!RangeCheck && i < min_slots) || ai + bi < end)
		{
			Key			x = keys[ai];
			Key			y = keys[bi];
			unsigned	take_a,
						take_b;

			if (RangeCheck)
			{
				unsigned	a_in = ai < a_end;
				unsigned	b_in = bi < b_end;

				take_a = a_in & ((b_in ^ 1u) | (unsigned) (x <= y));
				take_b = b_in & ((a_in ^ 1u) | (unsigned) (y <= x));
			}
			else
			{
				take_a = (unsigned) (x <= y);
				take_b = (unsigned) (y <= x);
			}

			switch (Op)
			{
				case SETOPS_OP_INTERSECT:
					results[i] = x;
					src[i] = ai;
					commit |= (take_a & take_b) << i;
					break;
				case SETOPS_OP_DIFFERENCE:
					results[i] = x;
					src[i] = ai;
					commit |= (take_a & (take_b ^ 1u)) << i;
					break;
				case SETOPS_OP_UNION:
				case SETOPS_OP_MERGE:
					/* ties take A */
					results[i] = take_a ? x : y;
					src[i] = take_a ? ai : bi;
					commit |= 1u << i;
					break;
				case SETOPS_OP_SYMDIFF:
					results[i] = take_a ? x : y;
					src[i] = take_a ? ai : bi;
					commit |= (take_a ^ take_b) << i;
					break;
			}

			/* a matched pair fills one slot; a merge keeps both copies */
			ai += take_a;
			bi += Op == SETOPS_OP_MERGE ? take_a ^ 1u : take_b;
		}
	}
	return commit;
}

}								/* namespace setops */

#endif							/* SETOPS_SERIAL_SETOPS_CUH */
