/*
 * packed_encode.cu
 *	  Encode sorted keys already in device memory into a packed value
 *	  (engine/common/packed_format.h): byte for byte what the CPU encoder
 *	  (engine/cpu/packed_codec.c) makes of the same keys, header and
 *	  padding included (vl_len_ is 0, as there; the caller sets it).
 *
 * Three steps and one synchronisation:
 *   1. analyse: a warp per chunk (both key types) takes the chunk's
 *      differences and a histogram of their bit lengths (each lane counts
 *      into its own column of shared memory: no atomics, no bank
 *      conflicts), then the cost of every width, and picks the CPU's
 *      width: the cheapest, patches counted, the smallest on ties.  It
 *      writes the chunk's counts (words, patches, patched or not) and, for
 *      a patched chunk, where each FastLanes lane's patches start within
 *      the chunk (the histogram columns give each lane's count).
 *   2. an exclusive scan of the counts over chunks (CUB) gives each
 *      chunk's word_start, first patch and lane_offsets row; the scan's
 *      extra last element, the totals, comes to the host, which lays the
 *      value out with packed_layout() (the sections' places depend on the
 *      totals).
 *   3. write: a segment of L threads per chunk, a thread per FastLanes
 *      lane as in the decoder, takes the differences again and packs its
 *      column into its w words as they fill (the words of one row of
 *      words are consecutive across the segment: coalesced stores), and
 *      writes its patches in row order from its first one.  The segment's
 *      first thread writes the chunk's metadata; block 0 writes the
 *      header, the last word_start and the zero padding between sections.
 * Every byte of the value is written exactly once, so the output buffer
 * needs no clearing.
 *
 * Differences are taken in unsigned arithmetic, as on the CPU, so keys
 * out of order still encode the same bytes as there (they do not decode
 * to sorted keys, which is the caller's business).
 */
#include <cub/device/device_scan.cuh>
#include <limits.h>
#include <stdint.h>

#include "gpu_internal.h"

namespace setops
{

/*
 * Launch shapes.  Both kernels stream the keys once with little work per
 * key; small blocks let a few thousand chunks (a few million keys) still
 * cover every SM.  The analysis block's histograms take 4 * 33 * 32 * 4 =
 * 17 KB (int32) or 4 * 65 * 32 * 4 = 33 KB (int64) of shared memory.
 */
#ifndef PACKED_ENCODE_WARPS
#define PACKED_ENCODE_WARPS 4
#endif
#ifndef PACKED_ENCODE_UNROLL
#define PACKED_ENCODE_UNROLL 8
#endif

const int	ENC_THREADS = PACKED_ENCODE_WARPS * 32;
const int	ENC_UNROLL = PACKED_ENCODE_UNROLL;
const unsigned ENC_FULL = 0xffffffffu;

/* One chunk's share of the value, and (scanned) where it starts. */
struct EncodeCounts
{
	uint32_t	words;
	uint32_t	patches;
	uint32_t	rows;			/* lane_offsets rows: 1 when patched */
};

struct EncodeSum
{
	__host__ __device__ __forceinline__ EncodeCounts
	operator()(const EncodeCounts &x, const EncodeCounts &y) const
	{
		EncodeCounts s;

		s.words = x.words + y.words;
		s.patches = x.patches + y.patches;
		s.rows = x.rows + y.rows;
		return s;
	}
};

/* Scratch in the caller's device memory. */
struct EncodeScratch
{
	EncodeCounts *counts;		/* nchunks + 1; the last is 0 */
	EncodeCounts *offsets;		/* its exclusive scan: offsets[nchunks] = totals */
	uint32_t   *lane_first;		/* nchunks * L: a patched chunk's lanes' first patch */
	void	   *temp;			/* CUB's */
	size_t		temp_bytes;
	size_t		total;
};

static size_t
scan_temp_bytes(int64_t items)
{
	size_t		bytes = 0;
	EncodeCounts zero = {0, 0, 0};

	cub::DeviceScan::ExclusiveScan((void *) NULL, bytes, (const EncodeCounts *) NULL,
								   (EncodeCounts *) NULL, EncodeSum(), zero, (int) items);
	return bytes;
}

static void
scratch_layout(int key_bytes, int64_t n, char *base, EncodeScratch *s)
{
	int64_t		nchunks = (n + PACKED_CHUNK - 1) / PACKED_CHUNK;
	int			lanes = key_bytes == 4 ? 32 : 16;
	size_t		off_offsets = GPU_ALIGN((nchunks + 1) * sizeof(EncodeCounts));
	size_t		off_lanes = off_offsets + GPU_ALIGN((nchunks + 1) * sizeof(EncodeCounts));
	size_t		off_temp = off_lanes + GPU_ALIGN(nchunks * lanes * sizeof(uint32_t));

	s->counts = (EncodeCounts *) base;
	s->offsets = (EncodeCounts *) (base + off_offsets);
	s->lane_first = (uint32_t *) (base + off_lanes);
	s->temp = base + off_temp;
	s->temp_bytes = scan_temp_bytes(nchunks + 1);
	s->total = off_temp + GPU_ALIGN(s->temp_bytes);
}

/* Bits needed for x (0 for 0). */
static __device__ __forceinline__ int
bit_length(uint32_t x)
{
	return 32 - __clz(x);
}

static __device__ __forceinline__ int
bit_length(unsigned long long x)
{
	return 64 - __clzll(x);
}

/* ---- step 1: widths and counts ---- */

template <typename Word>
struct AnalyseParams
{
	const Word *keys;
	int64_t		n;
	uint32_t	nchunks;
	EncodeCounts *counts;
	uint32_t   *lane_first;
};

/*
 * Chunk c for warp lane t: key i of the chunk is lane i % 32's, row i / 32
 * (for int32 that is the FastLanes lane; for int64, FastLanes lane
 * i % 16 is warp lanes l and l + 16).
 */
template <typename Word>
__global__ void __launch_bounds__(ENC_THREADS)
packed_analyse_kernel(AnalyseParams<Word> p)
{
	const int	WB = sizeof(Word) * 8;	/* word bits; widths 0..WB */
	const int	L = WB == 32 ? 32 : 16;	/* FastLanes lanes */
	const int	K = WB / 32;	/* widths per warp lane, besides WB itself */
	const int	KB = sizeof(Word);
	__shared__ uint32_t hist_all[PACKED_ENCODE_WARPS][WB + 1][32];
	uint32_t	(*hist)[32] = hist_all[threadIdx.x / 32];
	int			t = threadIdx.x & 31;
	int64_t		c = (int64_t) blockIdx.x * PACKED_ENCODE_WARPS + threadIdx.x / 32;

	/* the scan's extra element, whose exclusive prefix is the totals */
	if (c == 0 && t == 0)
	{
		EncodeCounts zero = {0, 0, 0};

		p.counts[p.nchunks] = zero;
	}
	if (c >= p.nchunks)			/* the same for the whole warp */
		return;

	int64_t		first = c * PACKED_CHUNK;
	int			m = (int) min(p.n - first, (int64_t) PACKED_CHUNK);
	const Word *k = p.keys + first;
	Word		carry = 0;

	for (int b = 0; b <= WB; b++)
		hist[b][t] = 0;

	/* differences of keys 1..m-1; key 0 (the base) and padding count nothing */
#pragma unroll ENC_UNROLL
	for (int r = 0; r < PACKED_CHUNK / 32; r++)
	{
		int			i = r * 32 + t;
		Word		v = i < m ? __ldg(k + i) : 0;
		Word		prev = __shfl_up_sync(ENC_FULL, v, 1);
		Word		last = __shfl_sync(ENC_FULL, v, 31);

		if (t == 0)
			prev = carry;
		carry = last;
		if (i >= 1 && i < m)
			hist[bit_length((Word) (v - prev))][t]++;
	}
	__syncwarp();

	/*
	 * Lane t counts widths t + 32 j over the whole chunk (reading the
	 * columns in a rotated order: no bank conflicts); top counts width WB.
	 */
	uint32_t	cnt[K],
				above[K];
	uint32_t	top = __reduce_add_sync(ENC_FULL, hist[WB][t]);

#pragma unroll
	for (int j = 0; j < K; j++)
	{
		cnt[j] = 0;
		for (int u = 0; u < 32; u++)
			cnt[j] += hist[t + 32 * j][(u + t) & 31];
	}

	/* above[j]: differences wider than t + 32 j (suffix sums over lanes) */
	uint32_t	higher = top;

#pragma unroll
	for (int j = K - 1; j >= 0; j--)
	{
		uint32_t	s = cnt[j];

		for (int d = 1; d < 32; d *= 2)
		{
			uint32_t	y = __shfl_down_sync(ENC_FULL, s, d);

			if (t + d < 32)
				s += y;
		}
		above[j] = s - cnt[j] + higher;
		higher += __shfl_sync(ENC_FULL, s, 0);
	}

	/*
	 * The CPU's rule: the least cost, the smallest width among equals.  The
	 * cost (bytes, below 2^16) above the width (below 2^7) makes one key
	 * whose minimum is that choice.
	 */
	uint32_t	best = ((uint32_t) (L * WB * KB) << 7) | WB;	/* width WB: no patches */

#pragma unroll
	for (int j = 0; j < K; j++)
	{
		uint32_t	w = t + 32 * j;
		uint32_t	cost = L * w * KB +
			(above[j] > 0 ? (L + 1) * 4 + above[j] * (2 + KB) : 0);

		best = min(best, (cost << 7) | w);
	}
	best = __reduce_min_sync(ENC_FULL, best);

	int			w = best & 127;
	uint32_t	mine = 0;

#pragma unroll
	for (int j = 0; j < K; j++)
		if (t + 32 * j == w)
			mine = above[j];
	uint32_t	patches = __reduce_add_sync(ENC_FULL, mine);	/* 0 at width WB */

	if (t == 0)
	{
		EncodeCounts e;

		e.words = (uint32_t) (L * w);
		e.patches = patches;
		e.rows = patches > 0;
		p.counts[c] = e;
	}
	if (patches == 0)
		return;

	/* each FastLanes lane's first patch within the chunk */
	uint32_t	mine_p = 0;

	for (int b = w + 1; b <= WB; b++)
		mine_p += hist[b][t];
	if (L == 16)
	{
		mine_p += __shfl_down_sync(ENC_FULL, mine_p, 16);
		if (t >= 16)
			mine_p = 0;
	}

	uint32_t	incl = mine_p;

	for (int d = 1; d < 32; d *= 2)
	{
		uint32_t	y = __shfl_up_sync(ENC_FULL, incl, d);

		if (t >= d)
			incl += y;
	}
	if (t < L)
		p.lane_first[c * L + t] = incl - mine_p;
}

/* ---- step 3: the bytes ---- */

/* The zero gaps before each section but the first, and after the last. */
#define ENCODE_GAPS 9

template <typename Word>
struct WriteParams
{
	const Word *keys;
	int64_t		n;
	uint32_t	nchunks;
	const EncodeCounts *counts;
	const EncodeCounts *offsets;
	const uint32_t *lane_first;
	char	   *out;
	Word	   *bases;
	uint8_t    *widths;
	uint32_t   *word_start;
	uint32_t   *patch_row;
	uint32_t   *lane_offsets;
	Word	   *words;
	uint16_t   *patch_pos;
	Word	   *patch_diff;
	PackedHeader header;
	uint32_t	nwords;
	size_t		gap_start[ENCODE_GAPS];
	size_t		gap_end[ENCODE_GAPS];
};

/*
 * Write chunk c with the other L - 1 threads of the segment, this thread
 * its FastLanes lane l.  Every thread of the warp calls this (the
 * shuffles need full warps); one past the last chunk (the second half of
 * the last int64 warp) runs with no keys and writes nothing.
 */
template <typename Word, int L>
static __device__ __forceinline__ void
write_chunk(const WriteParams<Word> &p, uint32_t c, int l)
{
	const int	WB = sizeof(Word) * 8;
	const int	R = PACKED_CHUNK / L;	/* = WB: a lane's column fills w words */
	EncodeCounts cnt = {0, 0, 0},
				off = {0, 0, 0};
	const Word *k = p.keys;
	int			m = 0,
				w = 0;
	bool		patched = false;
	uint32_t	pnext = 0;

	if (c < p.nchunks)
	{
		int64_t		first = (int64_t) c * PACKED_CHUNK;

		cnt = p.counts[c];
		off = p.offsets[c];
		k = p.keys + first;
		m = (int) min(p.n - first, (int64_t) PACKED_CHUNK);
		w = cnt.words / L;
		patched = cnt.rows != 0;
		if (l == 0)
		{
			p.bases[c] = __ldg(k);
			p.widths[c] = (uint8_t) w;
			p.word_start[c] = off.words;
			p.patch_row[c] = patched ? off.rows : PACKED_NO_PATCHES;
		}
		if (patched)
		{
			uint32_t   *lo = p.lane_offsets + (size_t) off.rows * (L + 1);

			pnext = off.patches + p.lane_first[(size_t) c * L + l];
			lo[l] = pnext;
			if (l == L - 1)
				lo[L] = off.patches + cnt.patches;
		}
	}

	Word		mask = w == WB ? ~(Word) 0 : ((Word) 1 << w) - 1;
	Word		acc = 0,
				carry = 0;
	int			sh = 0;
	Word	   *dst = p.words + off.words + l;

#pragma unroll ENC_UNROLL
	for (int r = 0; r < R; r++)
	{
		int			i = r * L + l;
		Word		v = i < m ? __ldg(k + i) : 0;
		Word		prev = __shfl_up_sync(ENC_FULL, v, 1, L);
		Word		last = __shfl_sync(ENC_FULL, v, L - 1, L);
		Word		d,
					f;

		if (l == 0)
			prev = carry;
		carry = last;
		d = i >= 1 && i < m ? (Word) (v - prev) : 0;

		/* patched implies w < WB */
		if (patched && (d >> (w & (WB - 1))) != 0)
		{
			p.patch_pos[pnext] = (uint16_t) i;
			p.patch_diff[pnext] = d;
			pnext++;
		}

		/* the low w bits into the column; a full word goes out */
		f = d & mask;
		acc |= f << sh;
		sh += w;
		if (sh >= WB)
		{
			*dst = acc;
			dst += L;
			sh -= WB;
			acc = sh > 0 ? f >> (w - sh) : 0;
		}
	}
}

template <typename Word, int L>
__global__ void __launch_bounds__(ENC_THREADS)
packed_write_kernel(WriteParams<Word> p)
{
	const int	G = 32 / L;		/* chunks per warp */
	int			lane = threadIdx.x & 31;
	int64_t		warp = (int64_t) blockIdx.x * PACKED_ENCODE_WARPS + threadIdx.x / 32;
	int64_t		c0 = warp * G;

	if (blockIdx.x == 0)
	{
		/* the header, the end of word_start, and zeros between sections */
		if (threadIdx.x == 0)
		{
			*(PackedHeader *) p.out = p.header;
			p.word_start[p.nchunks] = p.nwords;
		}
		if (threadIdx.x < ENCODE_GAPS * 8)
		{
			int			g = threadIdx.x / 8;
			size_t		at = p.gap_start[g] + threadIdx.x % 8;

			if (at < p.gap_end[g])
				p.out[at] = 0;
		}
	}
	if (c0 >= p.nchunks)		/* the same for the whole warp */
		return;
	write_chunk<Word, L>(p, (uint32_t) c0 + lane / L, lane % L);
}

/* ---- the host side ---- */

template <typename Word, int L>
static cudaError_t
encode_typed(const Word *keys, int64_t n, char *out, size_t out_cap, const EncodeScratch *s,
			 void *host_totals, cudaStream_t stream, size_t *size)
{
	const int	G = 32 / L;
	uint32_t	nchunks = (uint32_t) ((n + PACKED_CHUNK - 1) / PACKED_CHUNK);
	EncodeCounts zero = {0, 0, 0},
				totals = zero;
	PackedHeader h;
	PackedLayout lay;
	WriteParams<Word> wp;
	cudaError_t err;

	if (nchunks > 0)
	{
		AnalyseParams<Word> ap;
		size_t		temp_bytes = s->temp_bytes;

		ap.keys = keys;
		ap.n = n;
		ap.nchunks = nchunks;
		ap.counts = s->counts;
		ap.lane_first = s->lane_first;
		packed_analyse_kernel<Word><<<(nchunks + PACKED_ENCODE_WARPS - 1) / PACKED_ENCODE_WARPS,
			ENC_THREADS, 0, stream>>>(ap);
		err = cudaGetLastError();
		if (err != cudaSuccess)
			return err;
		err = cub::DeviceScan::ExclusiveScan(s->temp, temp_bytes, s->counts, s->offsets,
											 EncodeSum(), zero, (int) nchunks + 1, stream);
		if (err != cudaSuccess)
			return err;
		/* the totals decide where the sections go */
		err = cudaMemcpyAsync(host_totals, s->offsets + nchunks, sizeof(EncodeCounts),
							  cudaMemcpyDeviceToHost, stream);
		if (err == cudaSuccess)
			err = cudaStreamSynchronize(stream);
		if (err != cudaSuccess)
			return err;
		totals = *(const EncodeCounts *) host_totals;
	}

	memset(&h, 0, sizeof(h));
	h.version = PACKED_VERSION;
	h.key_bytes = sizeof(Word);
	h.n = n;
	h.nwords = totals.words;
	h.npatches = totals.patches;
	h.nchunks = nchunks;
	h.npatched_chunks = totals.rows;
	if (!packed_layout(&h, &lay) || lay.total > out_cap)
		return cudaErrorInvalidValue;

	wp.keys = keys;
	wp.n = n;
	wp.nchunks = nchunks;
	wp.counts = s->counts;
	wp.offsets = s->offsets;
	wp.lane_first = s->lane_first;
	wp.out = out;
	wp.bases = (Word *) (out + lay.bases);
	wp.widths = (uint8_t *) (out + lay.widths);
	wp.word_start = (uint32_t *) (out + lay.word_start);
	wp.patch_row = (uint32_t *) (out + lay.patch_row);
	wp.lane_offsets = (uint32_t *) (out + lay.lane_offsets);
	wp.words = (Word *) (out + lay.words);
	wp.patch_pos = (uint16_t *) (out + lay.patch_pos);
	wp.patch_diff = (Word *) (out + lay.patch_diff);
	wp.header = h;
	wp.nwords = totals.words;
	/* each section's end to the next one's start, and the last to the total */
	{
		size_t		ends[ENCODE_GAPS] = {
			sizeof(PackedHeader),
			lay.bases + (size_t) nchunks * sizeof(Word),
			lay.widths + nchunks,
			lay.word_start + ((size_t) nchunks + 1) * 4,
			lay.patch_row + (size_t) nchunks * 4,
			lay.lane_offsets + (size_t) totals.rows * (L + 1) * 4,
			lay.words + (size_t) totals.words * sizeof(Word),
			lay.patch_pos + (size_t) totals.patches * 2,
			lay.patch_diff + (size_t) totals.patches * sizeof(Word)
		};
		size_t		starts[ENCODE_GAPS] = {
			lay.bases, lay.widths, lay.word_start, lay.patch_row, lay.lane_offsets,
			lay.words, lay.patch_pos, lay.patch_diff, lay.total
		};

		for (int g = 0; g < ENCODE_GAPS; g++)
		{
			wp.gap_start[g] = ends[g];
			wp.gap_end[g] = starts[g];
		}
	}

	{
		int64_t		per_block = (int64_t) PACKED_ENCODE_WARPS * G;
		int64_t		blocks = ((int64_t) nchunks + per_block - 1) / per_block;

		/* block 0 also writes the header: at least one block */
		packed_write_kernel<Word, L><<<(unsigned) (blocks > 0 ? blocks : 1), ENC_THREADS, 0,
			stream>>>(wp);
	}
	err = cudaGetLastError();
	if (err == cudaSuccess)
		*size = lay.total;
	return err;
}

}								/* namespace setops */

using namespace setops;

size_t
packed_encode_bound(SetopsKeyType key_type, int64_t n)
{
	PackedHeader h;
	PackedLayout lay;

	/* as setops_packed_bound: every chunk at full width, no patches */
	memset(&h, 0, sizeof(h));
	h.key_bytes = setops_key_size(key_type);
	h.n = n;
	h.nchunks = (uint32_t) ((n + PACKED_CHUNK - 1) / PACKED_CHUNK);
	h.nwords = (int64_t) h.nchunks * PACKED_CHUNK;
	if (n < 0 || !packed_layout(&h, &lay))
		return 0;
	return lay.total;
}

size_t
packed_encode_scratch_bytes(SetopsKeyType key_type, int64_t n)
{
	EncodeScratch s;

	if (n < 0 || n > INT_MAX)
		return 0;
	scratch_layout(setops_key_size(key_type), n, NULL, &s);
	return s.total;
}

cudaError_t
packed_encode(SetopsKeyType key_type, const void *keys_dev, int64_t n, void *out_dev,
			  size_t out_cap, void *scratch, size_t scratch_bytes, void *host_totals,
			  cudaStream_t stream, size_t *size)
{
	int			kb = (int) setops_key_size(key_type);
	EncodeScratch s;

	*size = 0;
	/* the counts are uint32 (as the format's offsets): at most INT_MAX keys */
	if (n < 0 || n > INT_MAX || ((uintptr_t) out_dev & 7) != 0 ||
		((uintptr_t) keys_dev & (kb - 1)) != 0 || ((uintptr_t) scratch & 7) != 0)
		return cudaErrorInvalidValue;
	scratch_layout(kb, n, (char *) scratch, &s);
	if (s.total > scratch_bytes)
		return cudaErrorInvalidValue;
	if (kb == 4)
		return encode_typed<uint32_t, 32>((const uint32_t *) keys_dev, n, (char *) out_dev,
										  out_cap, &s, host_totals, stream, size);
	return encode_typed<unsigned long long, 16>((const unsigned long long *) keys_dev, n,
												(char *) out_dev, out_cap, &s, host_totals,
												stream, size);
}
