/*
 * compact.cuh
 *	  Compaction of a tile's outputs: each thread's committed registers go
 *	  to shared memory at the thread's scanned offset, then the whole tile
 *	  is stored to its final place with coalesced writes.
 *
 * Values of pairs are gathered here, after compaction, by source index:
 * src >= 0 is a position in A's values, ~src one in B's.  Values move in
 * words of Word bytes, value_words words per element.
 */
#ifndef SETOPS_COMPACT_CUH
#define SETOPS_COMPACT_CUH

namespace setops
{

template <int VT, typename Key>
__device__ __forceinline__ void
compact_to_shared(unsigned commit, const Key (&results)[VT], const int (&src)[VT],
				  int offset, Key *s_keys, int *s_src, bool with_src)
{
#pragma unroll
	for (int i = 0; i < VT; ++i)
		if (commit & (1u << i))
		{
			s_keys[offset] = results[i];
			if (with_src)
				s_src[offset] = src[i];
			++offset;
		}
}

template <int NT, typename T>
__device__ __forceinline__ void
store_shared_to_global(const T *s, int count, T *out)
{
	for (int i = threadIdx.x; i < count; i += NT)
		out[i] = s[i];
}

template <int NT, typename Word>
__device__ __forceinline__ void
gather_values(const int *s_src, int count, const Word *a_vals, const Word *b_vals,
			  int value_words, Word *out_vals)
{
	for (int i = threadIdx.x; i < count * value_words; i += NT)
	{
		int			e = i / value_words;
		int			w = i - e * value_words;
		int			g = s_src[e];
		const Word *from = g >= 0 ? a_vals + (size_t) g * value_words
			: b_vals + (size_t) (~g) * value_words;

		out_vals[i] = from[w];
	}
}

}								/* namespace setops */

#endif							/* SETOPS_COMPACT_CUH */
