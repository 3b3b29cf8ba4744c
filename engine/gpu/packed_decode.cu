/*
 * packed_decode.cu
 *	  Decode a packed value (engine/common/packed_format.h) already in device
 *	  memory into its keys.
 *
 * A segment of L threads decodes one chunk, a thread per FastLanes lane
 * (L = 32 for int32: a warp per chunk; L = 16 for int64: the two halves of
 * a warp decode two chunks side by side).  A thread walks its lane's
 * column row by row:
 *   - a streaming bit window gives the row's difference (a funnel shift
 *     of its two words and a mask) while a third word is in flight from
 *     global memory; the words of one row are consecutive across the
 *     segment, so each load is coalesced, and a lane loads only its w
 *     words;
 *   - a cursor over the thread's own range of the chunk's lane_offsets row
 *     replaces the difference by the patch when the next patch is at this
 *     row (patches are sorted by chunk, lane and row: no search);
 *   - an inclusive shuffle scan over the segment turns the row's
 *     differences, which are consecutive in key order, into offsets from
 *     the carry (base plus every earlier row's sum), and the segment stores
 *     the row's L keys with one coalesced store.
 * No shared memory, no atomics, no barrier but the shuffles.  Differences
 * are summed in unsigned arithmetic, as the CPU decoder does; the order of
 * the result is not checked here (its consumers check it).
 */
#include <stdint.h>

#include "gpu_internal.h"

namespace setops
{

/*
 * Launch shape.  A chunk is little work (32 or 64 rows of about 30 or 55
 * instructions) behind two or three dependent loads (chunk metadata, then
 * words and lane offsets, then the first patch), so throughput comes from
 * many resident warps, each with its own loads in flight, rather than from
 * work per warp.  The kernels take 32 and 39 registers: with small blocks
 * of PACKED_DECODE_WARPS warps an SM holds 64 (int32) or 48 (int64) warps,
 * and a value of a few thousand chunks still spreads over every SM.  Each
 * warp decodes PACKED_DECODE_GROUPS consecutive groups of 32 / L chunks.
 * -D overrides are for sweeps with test/gpu/packed_bench.
 */
#ifndef PACKED_DECODE_WARPS
#define PACKED_DECODE_WARPS 4
#endif
#ifndef PACKED_DECODE_GROUPS
#define PACKED_DECODE_GROUPS 1
#endif
/* rows per loop iteration: enough for the scheduler to overlap one row's
 * scan with the next row's unpack, without a kernel too big for the
 * instruction cache */
#ifndef PACKED_DECODE_UNROLL
#define PACKED_DECODE_UNROLL 8
#endif

const int	DECODE_THREADS = PACKED_DECODE_WARPS * 32;
const int	DECODE_UNROLL = PACKED_DECODE_UNROLL;
const unsigned FULL_MASK = 0xffffffffu;

/* Device pointers to the sections of one value. */
template <typename Word>
struct DecodeParams
{
	const Word *bases;
	const uint8_t *widths;
	const uint32_t *word_start;
	const uint32_t *patch_row;
	const uint32_t *lane_offsets;
	const Word *words;
	const uint16_t *patch_pos;
	const Word *patch_diff;
	Word	   *out;
	int64_t		n;
	uint32_t	nchunks;
};

/*
 * Bits [s, s + word bits) of the two-word window hi:lo, 0 <= s < word bits.
 * For 64-bit words, the window's four 32-bit limbs are picked by s >= 32
 * (selects, not a branch: the two chunks of an int64 warp may disagree).
 */
static __device__ __forceinline__ uint32_t
window_bits(uint32_t lo, uint32_t hi, int s)
{
	return __funnelshift_r(lo, hi, s);
}

static __device__ __forceinline__ unsigned long long
window_bits(unsigned long long lo, unsigned long long hi, int s)
{
	uint32_t	a0 = (uint32_t) lo,
				a1 = (uint32_t) (lo >> 32),
				a2 = (uint32_t) hi,
				a3 = (uint32_t) (hi >> 32);
	bool		up = s >= 32;
	uint32_t	x = up ? a1 : a0,
				y = up ? a2 : a1,
				z = up ? a3 : a2;

	/* __funnelshift_r shifts by s & 31 */
	return ((unsigned long long) __funnelshift_r(y, z, s) << 32) | __funnelshift_r(x, y, s);
}

/*
 * v, opaque to the compiler, which would otherwise compute it again in
 * every row (six instructions a row for a 64-bit mask) to save a register.
 */
static __device__ __forceinline__ uint32_t
keep_in_register(uint32_t v)
{
	asm("" : "+r"(v));
	return v;
}

static __device__ __forceinline__ unsigned long long
keep_in_register(unsigned long long v)
{
	asm("" : "+l"(v));
	return v;
}

/*
 * One step of the inclusive scan over segments of width lanes: v plus the
 * value of the lane d below, where that lane is in the segment.  The
 * shuffle's own in-range predicate guards the add (with __shfl_up_sync,
 * the compiler makes a select and an add of it).
 */
template <int Width>
static __device__ __forceinline__ uint32_t
scan_step(uint32_t v, int d)
{
	uint32_t	r;

	asm volatile("{\n\t"
		".reg .u32 r0;\n\t"
		".reg .pred p;\n\t"
		"shfl.sync.up.b32 r0|p, %1, %2, %3, %4;\n\t"
		"@p add.u32 r0, r0, %1;\n\t"
		"mov.u32 %0, r0;\n\t"
		"}"
		: "=r"(r) : "r"(v), "r"(d), "r"((32 - Width) << 8), "r"(FULL_MASK));
	return r;
}

template <int Width>
static __device__ __forceinline__ unsigned long long
scan_step(unsigned long long v, int d)
{
	unsigned long long r;

	asm volatile("{\n\t"
		".reg .u32 vlo, vhi, lo, hi;\n\t"
		".reg .pred p;\n\t"
		"mov.b64 {vlo, vhi}, %1;\n\t"
		"shfl.sync.up.b32 lo|p, vlo, %2, %3, %4;\n\t"
		"shfl.sync.up.b32 hi|p, vhi, %2, %3, %4;\n\t"
		"@p add.cc.u32 lo, lo, vlo;\n\t"
		"@p addc.u32 hi, hi, vhi;\n\t"
		"mov.b64 %0, {lo, hi};\n\t"
		"}"
		: "=l"(r) : "l"(v), "r"(d), "r"((32 - Width) << 8), "r"(FULL_MASK));
	return r;
}

/*
 * Decode chunk c (its lane l) with the other L - 1 threads of the segment.
 * Every thread of the warp calls this the same number of times, so the
 * shuffles see full warps; a thread whose c is past the last chunk (the
 * second half of the last int64 warp) runs with width 0 and stores nothing.
 */
template <typename Word, int L>
static __device__ __forceinline__ void
decode_chunk(const DecodeParams<Word> &p, uint32_t c, int l)
{
	const int	WB = sizeof(Word) * 8;		/* bits per word = rows per lane */
	const int	R = PACKED_CHUNK / L;
	const Word *cw = p.words;
	Word		carry = 0,
				mask,
				lo = 0,
				hi = 0,
				nxt = 0,
				pdiff = 0;
	uint32_t	prow_index = PACKED_NO_PATCHES,
				pnext = 0,
				pend = 0;
	int			w = 0,
				rem = 0,
				s = 0,
				j = 3,			/* the next word to load */
				prow = R;		/* row of the next patch; R: none */
	Word	   *dst = p.out;

	if (c < p.nchunks)
	{
		int64_t		first = (int64_t) c * PACKED_CHUNK;

		carry = __ldg(p.bases + c);
		w = __ldg(p.widths + c);
		cw = p.words + __ldg(p.word_start + c) + l;
		prow_index = __ldg(p.patch_row + c);
		rem = (int) min(p.n - first, (int64_t) PACKED_CHUNK);
		dst = p.out + first + l;
	}
	mask = keep_in_register(w == WB ? ~(Word) 0 : ((Word) 1 << w) - 1);

	/* the window: words 0 and 1 of the column, word 2 in flight */
	if (w > 0)
		lo = __ldg(cw);
	if (w > 1)
		hi = __ldg(cw + L);
	if (w > 2)
		nxt = __ldg(cw + 2 * L);

	if (prow_index != PACKED_NO_PATCHES)
	{
		const uint32_t *lo_row = p.lane_offsets + (size_t) prow_index * (L + 1) + l;

		pnext = __ldg(lo_row);
		pend = __ldg(lo_row + 1);
		if (pnext < pend)
		{
			int			pos = __ldg(p.patch_pos + pnext);

			/* the chunk's first difference is ignored, patched or not */
			if (pos == 0 && ++pnext < pend)
				pos = __ldg(p.patch_pos + pnext);
			if (pnext < pend)
			{
				prow = pos / L;
				pdiff = __ldg(p.patch_diff + pnext);
			}
		}
	}
	/* ... and so is its packed field: key 0 is the base */
	if (l == 0)
		lo &= ~mask;

#pragma unroll DECODE_UNROLL
	for (int r = 0; r < R; r++)
	{
		Word		v = window_bits(lo, hi, s) & mask;
		Word		total;
		bool		advance;

		/* slide the window by a word once its low word is used up */
		s += w;
		advance = s >= WB;
		s = advance ? s - WB : s;
		lo = advance ? hi : lo;
		hi = advance ? nxt : hi;
		if (advance)
		{
			nxt = j < w ? __ldg(cw + j * L) : 0;
			j++;
		}

		if (r == prow)
		{
			v = pdiff;
			if (++pnext < pend)
			{
				prow = __ldg(p.patch_pos + pnext) / L;
				pdiff = __ldg(p.patch_diff + pnext);
			}
			else
				prow = R;
		}

		/* the row's keys in key order: an inclusive scan over the segment */
#pragma unroll
		for (int d = 1; d < L; d *= 2)
			v = scan_step<L>(v, d);
		total = __shfl_sync(FULL_MASK, v, L - 1, L);
		if (r * L + l < rem)
			dst[r * L] = carry + v;
		carry += total;
	}
}

template <typename Word, int L>
__global__ void __launch_bounds__(DECODE_THREADS)
packed_decode_kernel(DecodeParams<Word> p)
{
	const int	G = 32 / L;		/* chunks per warp at a time */
	int			lane = threadIdx.x & 31;
	int64_t		warp = (int64_t) blockIdx.x * PACKED_DECODE_WARPS + threadIdx.x / 32;

	for (int k = 0; k < PACKED_DECODE_GROUPS; k++)
	{
		int64_t		c0 = (warp * PACKED_DECODE_GROUPS + k) * G;

		if (c0 >= p.nchunks)	/* the same for the whole warp */
			break;
		decode_chunk<Word, L>(p, (uint32_t) c0 + lane / L, lane % L);
	}
}

template <typename Word, int L>
static cudaError_t
launch_decode(const PackedHeader *h, const PackedLayout *lay, const char *packed,
			  void *keys, cudaStream_t stream)
{
	const int	G = 32 / L;
	const int64_t per_block = (int64_t) PACKED_DECODE_WARPS * PACKED_DECODE_GROUPS * G;
	DecodeParams<Word> p;
	int64_t		blocks = ((int64_t) h->nchunks + per_block - 1) / per_block;

	p.bases = (const Word *) (packed + lay->bases);
	p.widths = (const uint8_t *) (packed + lay->widths);
	p.word_start = (const uint32_t *) (packed + lay->word_start);
	p.patch_row = (const uint32_t *) (packed + lay->patch_row);
	p.lane_offsets = (const uint32_t *) (packed + lay->lane_offsets);
	p.words = (const Word *) (packed + lay->words);
	p.patch_pos = (const uint16_t *) (packed + lay->patch_pos);
	p.patch_diff = (const Word *) (packed + lay->patch_diff);
	p.out = (Word *) keys;
	p.n = h->n;
	p.nchunks = h->nchunks;
	packed_decode_kernel<Word, L><<<(unsigned) blocks, DECODE_THREADS, 0, stream>>>(p);
	return cudaGetLastError();
}

}								/* namespace setops */

cudaError_t
packed_decode_enqueue(const PackedHeader *h, const void *packed_dev, void *keys_dev,
					  cudaStream_t stream)
{
	PackedLayout lay;

	/* sections are 8-byte aligned relative to the value's start */
	if (h->version != PACKED_VERSION || !packed_layout(h, &lay) ||
		((uintptr_t) packed_dev & 7) != 0 || ((uintptr_t) keys_dev & (h->key_bytes - 1)) != 0)
		return cudaErrorInvalidValue;
	if (h->nchunks == 0)
		return cudaSuccess;
	if (h->key_bytes == 4)
		return setops::launch_decode<uint32_t, 32>(h, &lay, (const char *) packed_dev,
												   keys_dev, stream);
	return setops::launch_decode<unsigned long long, 16>(h, &lay, (const char *) packed_dev,
														 keys_dev, stream);
}
