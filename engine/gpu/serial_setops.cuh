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
 * The order check that rides on the walk: every slot reads the head of
 * each input, and a head smaller than the key read before it on the same
 * side is an order break (down: bit 0 A, bit 1 B).  Heads only move
 * forward one key at a time, so a walk compares every adjacent pair of the
 * keys it takes; the pair before its first key is the caller's
 * (tile_thread_range), the pair after its last the next walk's.
 */
template <typename Key>
struct OrderWatch
{
	Key			last_a,
				last_b;
	bool		down_a,			/* kept apart: each a predicate the compare */
				down_b;			/* accumulates into */

	/* the flags as the kernels report them (bit 0 A, bit 1 B) */
	__device__ __forceinline__ unsigned down(void) const
	{
		return (unsigned) down_a | ((unsigned) down_b << 1);
	}
};

template <typename Key>
__device__ __forceinline__ OrderWatch<Key>
order_watch_start(const Key *keys, int ai, int bi)
{
	OrderWatch<Key> w;

	w.last_a = keys[ai];
	w.last_b = keys[bi];
	w.down_a = false;
	w.down_b = false;
	return w;
}

/*
 * The walks address the tile by 32-bit shared-memory addresses, one
 * register and one add a side a slot (an index would cost its address
 * again each slot, a C++ pointer a 64-bit generic one besides).  The load
 * is volatile so that the compiler keeps it between the barriers around
 * the walk.
 */
template <typename Key>
__device__ __forceinline__ Key
load_shared(unsigned addr);

template <>
__device__ __forceinline__ int32_t
load_shared<int32_t>(unsigned addr)
{
	int32_t		v;

	asm volatile("ld.shared.s32 %0, [%1];\n" : "=r"(v) : "r"(addr));
	return v;
}

template <>
__device__ __forceinline__ int64_t
load_shared<int64_t>(unsigned addr)
{
	int64_t		v;

	asm volatile("ld.shared.s64 %0, [%1];\n" : "=l"(v) : "r"(addr));
	return v;
}

/*
 * One slot's heads x = A's, y = B's (at addresses pa, pb) and advance
 * flags: take_a = (x <= y), take_b = (y <= x); a match sets both, a lone A
 * key only take_a, a lone B key only take_b.  At the ends of the tile
 * (RangeCheck) an exhausted side never advances and is not checked (its
 * head is not a key of the tile).
 */
template <bool RangeCheck, typename Key>
__device__ __forceinline__ void
serial_step(unsigned pa, unsigned a_end, unsigned pb, unsigned b_end, Key &x, Key &y,
			bool &take_a, bool &take_b, OrderWatch<Key> &w)
{
	x = load_shared<Key>(pa);
	y = load_shared<Key>(pb);
	if (RangeCheck)
	{
		bool		a_in = pa < a_end;
		bool		b_in = pb < b_end;

		take_a = a_in && (!b_in || x <= y);
		take_b = b_in && (!a_in || y <= x);
		w.down_a = w.down_a || (a_in && x < w.last_a);
		w.down_b = w.down_b || (b_in && y < w.last_b);
	}
	else
	{
		take_a = x <= y;
		take_b = y <= x;
		w.down_a = w.down_a || x < w.last_a;
		w.down_b = w.down_b || y < w.last_b;
	}
	w.last_a = x;
	w.last_b = y;
}

/* A walk's heads, as shared addresses, and its end (their sum's). */
template <typename Key>
struct WalkHeads
{
	unsigned	base,
				pa,
				pb,
				a_end,
				b_end,
				end;

	__device__ __forceinline__ WalkHeads(const Key *keys, int ai, int a_last, int bi, int b_last,
										 int end_index)
	{
		base = shared_address(keys);
		pa = base + ai * (unsigned) sizeof(Key);
		pb = base + bi * (unsigned) sizeof(Key);
		a_end = base + a_last * (unsigned) sizeof(Key);
		b_end = base + b_last * (unsigned) sizeof(Key);
		end = 2 * base + end_index * (unsigned) sizeof(Key);
	}
	__device__ __forceinline__ bool before_end(void) const
	{
		return pa + pb < end;
	}
	__device__ __forceinline__ int index(unsigned p) const
	{
		return (int) ((p - base) / sizeof(Key));
	}
	__device__ __forceinline__ void advance(bool take_a, bool take_b)
	{
		pa += take_a ? (unsigned) sizeof(Key) : 0;
		pb += take_b ? (unsigned) sizeof(Key) : 0;
	}
};

/*
 * The walk every kind shares.  keys: the tile in shared memory, A at
 * [.., a_end), B at [.., b_end); ai and bi index keys; the thread stops
 * when ai + bi reaches end (ai and bi are left where the walk stopped).
 * slot(i, x, y, take_a, take_b, heads) sees each slot that runs, the heads
 * still on its keys.  A merge (Merge) keeps both copies of a match, one a
 * slot.
 *
 * In a full tile (RangeCheck false) every thread has at least VT - 1
 * elements, so at least MinSlots slots: those iterations skip the end
 * test.
 */
template <int VT, int MinSlots, bool RangeCheck, bool Merge, typename Key, typename Slot>
__device__ __forceinline__ void
serial_walk(const Key *keys, int &ai, int a_end, int &bi, int b_end, int end,
			OrderWatch<Key> &w, Slot &&slot)
{
	WalkHeads<Key> h(keys, ai, a_end, bi, b_end, end);

#pragma unroll
	for (int i = 0; i < VT; ++i)
	{
		if ((!RangeCheck && i < MinSlots) || h.before_end())
		{
			Key			x,
						y;
			bool		take_a,
						take_b;

			serial_step<RangeCheck>(h.pa, h.a_end, h.pb, h.b_end, x, y, take_a, take_b, w);
			slot(i, x, y, take_a, take_b, h);
			/* a matched pair fills one slot; a merge keeps both copies */
			h.advance(take_a, Merge ? !take_a : take_b);
		}
	}
	ai = h.index(h.pa);
	bi = h.index(h.pb);
}

/*
 * An operation's walk: slot i's candidate output goes to results[i] (and
 * src[i] its shared-memory index) whatever happens, and bit i of the
 * returned commit mask says whether it is kept.  Every operation's output
 * follows from the advance flags without branches.
 */
template <SetopsOp Op, int VT, bool RangeCheck, typename Key>
__device__ __forceinline__ unsigned
serial_setop(const Key *keys, int &ai, int a_end, int &bi, int b_end, int end,
			 Key (&results)[VT], int (&src)[VT], OrderWatch<Key> &w)
{
	const bool	Merge = Op == SETOPS_OP_MERGE;
	unsigned	commit = 0;

	serial_walk<VT, Merge ? VT - 1 : (VT - 1) / 2, RangeCheck, Merge>(
		keys, ai, a_end, bi, b_end, end, w,
		[&](int i, Key x, Key y, bool take_a, bool take_b, const WalkHeads<Key> &h)
		{
			switch (Op)
			{
				case SETOPS_OP_INTERSECT:
					results[i] = x;
					src[i] = h.index(h.pa);
					commit |= (unsigned) (take_a && take_b) << i;
					break;
				case SETOPS_OP_DIFFERENCE:
					results[i] = x;
					src[i] = h.index(h.pa);
					commit |= (unsigned) (take_a && !take_b) << i;
					break;
				case SETOPS_OP_UNION:
				case SETOPS_OP_MERGE:
					/* ties take A */
					results[i] = take_a ? x : y;
					src[i] = h.index(take_a ? h.pa : h.pb);
					commit |= 1u << i;
					break;
				case SETOPS_OP_SYMDIFF:
					results[i] = take_a ? x : y;
					src[i] = h.index(take_a ? h.pa : h.pb);
					commit |= (unsigned) (take_a != take_b) << i;
					break;
			}
		});
	return commit;
}

/*
 * The intersection's walk, counting its matches (no slot bound).  Every
 * slot takes one key of A, one of B, or a matched pair of both, so the
 * matches are the keys taken less the slots run: no count per slot.
 */
template <int VT, bool RangeCheck, typename Key>
__device__ __forceinline__ int
serial_count(const Key *keys, int &ai, int a_end, int &bi, int b_end, int end,
			 OrderWatch<Key> &w)
{
	int			slots = 0;
	int			taken = -(ai + bi);

	serial_walk<VT, (VT - 1) / 2, RangeCheck, false>(
		keys, ai, a_end, bi, b_end, end, w,
		[&](int, Key, Key, bool, bool, const WalkHeads<Key> &) { slots++; });
	taken += ai + bi;
	return taken - slots;
}

}								/* namespace setops */

#endif							/* SETOPS_SERIAL_SETOPS_CUH */
