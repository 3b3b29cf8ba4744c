/*
 * packed_decode_test.cu
 *	  Tests of the GPU decoder of packed values (engine/gpu/packed_decode.cu).
 *
 * Every case uploads a value that setops_packed_check accepts, decodes it
 * on the GPU into a buffer poisoned with 0xA5 bytes, and compares every key
 * exactly and the GUARD elements past n (the rest of the last chunk and
 * one more) still poisoned.
 *
 *   round trips  keys packed by the CPU encoder: every testgen shape at
 *                sizes around lane, row and chunk bounds; gaps of 0..3
 *                with 1%, 10% and 50% outliers (patches); the type's
 *                extremes and full-range jumps; large inputs up to 64M.
 *   widths       values built here, since the encoder never picks a width
 *                near the key's bits for sorted keys: every width from 0
 *                to 32 / 64 (alone, and mixed chunk by chunk, so that an
 *                int64 warp decodes two widths at once), random
 *                differences of that width, patches at random positions
 *                over garbage packed fields, garbage in the ignored first
 *                difference and in the padding, and patches on the first
 *                position.  Expected keys: the CPU decoder's arithmetic
 *                (base, then unsigned sums); where the result is sorted,
 *                the CPU decoder itself must agree.
 *
 * Usage: packed_decode_test [quick|full]   (quick: small sizes, for
 * compute-sanitizer).  Prints "N passed, N failed"; exits non-zero on
 * failure.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>

#include "../../engine/gpu/gpu_internal.h"
extern "C"
{
#include "../../engine/cpu/packed_codec.h"
}
#include "../common/testgen.h"
#include "../common/testcheck.h"

#include "cuda_ok.h"
#include "packed_inputs.h"

/* elements checked past n: the rest of a partial last chunk, and one more */
#define GUARD (PACKED_CHUNK + 1)

static bool quick;
static long cases;

template <typename Key> struct Codec;
template <> struct Codec<int32_t>
{
	typedef uint32_t Word;
	static size_t encode(const int32_t *k, int64_t n, void *buf)
	{
		return setops_packed_encode_i32(k, n, buf);
	}
	static const char *decode(const void *buf, int32_t *out)
	{
		return setops_packed_decode_i32(buf, out);
	}
	static const char *name()
	{
		return "int4";
	}
};
template <> struct Codec<int64_t>
{
	typedef uint64_t Word;
	static size_t encode(const int64_t *k, int64_t n, void *buf)
	{
		return setops_packed_encode_i64(k, n, buf);
	}
	static const char *decode(const void *buf, int64_t *out)
	{
		return setops_packed_decode_i64(buf, out);
	}
	static const char *name()
	{
		return "int8";
	}
};

/*
 * Decode the value in buf (size bytes) on the GPU and compare with expect.
 * offset8: place the value 8 bytes into its device allocation (the
 * decoder may assume 8-byte alignment only).
 */
template <typename Key>
static void
gpu_case(const void *buf, size_t size, const Key *expect, const char *what, bool offset8)
{
	const PackedHeader *h = (const PackedHeader *) buf;
	int64_t		n = h->n;
	const char *err = setops_packed_check(buf, size);
	char	   *d_alloc;
	Key		   *d_out;
	std::vector<Key> got(n + GUARD);
	cudaError_t e;

	cases++;
	CHECK(err == NULL, "%s n=%" PRId64 ": check refuses the value: %s", what, n, err);
	if (err)
		return;
	CUDA_OK(cudaMalloc(&d_alloc, size + (offset8 ? 8 : 0)));
	CUDA_OK(cudaMalloc(&d_out, (n + GUARD) * sizeof(Key)));
	CUDA_OK(cudaMemcpy(d_alloc + (offset8 ? 8 : 0), buf, size, cudaMemcpyHostToDevice));
	CUDA_OK(cudaMemset(d_out, 0xA5, (n + GUARD) * sizeof(Key)));
	e = packed_decode_enqueue(h, d_alloc + (offset8 ? 8 : 0), d_out, 0);
	CHECK(e == cudaSuccess, "%s n=%" PRId64 ": enqueue: %s", what, n, cudaGetErrorString(e));
	CUDA_OK(cudaDeviceSynchronize());
	CUDA_OK(cudaMemcpy(got.data(), d_out, (n + GUARD) * sizeof(Key), cudaMemcpyDeviceToHost));
	CUDA_OK(cudaFree(d_alloc));
	CUDA_OK(cudaFree(d_out));

	int64_t		bad = -1,
				nbad = 0;

	for (int64_t i = 0; i < n; i++)
		if (got[i] != expect[i])
		{
			if (bad < 0)
				bad = i;
			nbad++;
		}
	CHECK(bad < 0, "%s n=%" PRId64 ": %" PRId64 " keys differ, first at %" PRId64
		  " (chunk %" PRId64 " position %" PRId64 "): got %lld, want %lld", what, n, nbad, bad,
		  bad / PACKED_CHUNK, bad % PACKED_CHUNK, (long long) got[bad < 0 ? 0 : bad],
		  (long long) expect[bad < 0 ? 0 : bad]);

	std::vector<Key> poison(GUARD);

	memset(poison.data(), 0xA5, GUARD * sizeof(Key));
	CHECK(memcmp(got.data() + n, poison.data(), GUARD * sizeof(Key)) == 0,
		  "%s n=%" PRId64 ": written past n", what, n);
}

/* Pack keys with the CPU encoder, then gpu_case. */
template <typename Key>
static void
round_trip(const Key *keys, int64_t n, const char *what)
{
	std::vector<char> buf(setops_packed_bound(sizeof(Key), n));
	size_t		size = Codec<Key>::encode(keys, n, buf.data());

	CHECK(size > 0, "%s %s n=%" PRId64 ": encode failed", Codec<Key>::name(), what, n);
	if (size == 0)
		return;

	char		label[96];

	snprintf(label, sizeof(label), "%s %s", Codec<Key>::name(), what);
	gpu_case<Key>(buf.data(), size, keys, label, (cases & 1) != 0);
}

/* The shared inputs (packed_inputs.h) go through round_trip. */
static const auto each_input = [](auto *keys, int64_t n, const char *what) { round_trip(keys, n, what); };


/* ---- values built here, a width forced per chunk ---- */

/*
 * Build a value of n keys: chunk c at width widths[c], differences diff
 * (every position of every chunk, padding included; garbage where the
 * decoder must ignore it), patched where patched[i] or where the
 * difference does not fit.  A patch's packed field gets garbage bits.
 * Bases chain each chunk after the previous one's last key.  Returns the
 * bytes; expect gets the keys.
 */
template <typename Key>
static std::vector<char>
build(int64_t n, const std::vector<int> &widths, const std::vector<typename Codec<Key>::Word> &diff,
	  const std::vector<bool> &patched, std::vector<Key> &expect)
{
	typedef typename Codec<Key>::Word Word;
	const int	WB = sizeof(Word) * 8;
	const int	L = sizeof(Key) == 4 ? 32 : 16;
	const int	R = PACKED_CHUNK / L;
	PackedHeader h;
	PackedLayout lay;
	uint32_t	nchunks = (uint32_t) ((n + PACKED_CHUNK - 1) / PACKED_CHUNK);
	std::vector<bool> is_patch(diff.size());

	memset(&h, 0, sizeof(h));
	h.version = PACKED_VERSION;
	h.key_bytes = sizeof(Key);
	h.n = n;
	h.nchunks = nchunks;
	for (uint32_t c = 0; c < nchunks; c++)
	{
		int			w = widths[c];
		bool		any = false;

		h.nwords += (int64_t) L * w;
		for (int i = 0; i < PACKED_CHUNK; i++)
		{
			size_t		k = (size_t) c * PACKED_CHUNK + i;

			is_patch[k] = patched[k] || (w < WB && (diff[k] >> w) != 0);
			h.npatches += is_patch[k];
			any |= is_patch[k];
		}
		h.npatched_chunks += any;
	}
	if (!packed_layout(&h, &lay))
	{
		fprintf(stderr, "build: counts out of range\n");
		exit(2);
	}

	std::vector<char> buf(lay.total, 0);
	char	   *b = buf.data();
	Key		   *bases = (Key *) (b + lay.bases);
	uint8_t    *wid = (uint8_t *) (b + lay.widths);
	uint32_t   *word_start = (uint32_t *) (b + lay.word_start);
	uint32_t   *patch_row = (uint32_t *) (b + lay.patch_row);
	uint32_t   *lane_offsets = (uint32_t *) (b + lay.lane_offsets);
	Word	   *words = (Word *) (b + lay.words);
	uint16_t   *patch_pos = (uint16_t *) (b + lay.patch_pos);
	Word	   *patch_diff = (Word *) (b + lay.patch_diff);
	uint32_t	wpos = 0,
				ppos = 0,
				prow = 0;
	Word		last = (Word) testgen_rnd() >> 2;	/* sorted keys stay sorted */

	memcpy(b, &h, sizeof(h));
	expect.resize(n);
	for (uint32_t c = 0; c < nchunks; c++)
	{
		int			w = widths[c];
		Word		mask = w == WB ? ~(Word) 0 : ((Word) 1 << w) - 1;
		const size_t first = (size_t) c * PACKED_CHUNK;
		bool		any = false;

		for (int i = 0; i < PACKED_CHUNK; i++)
			any |= is_patch[first + i];
		wid[c] = (uint8_t) w;
		word_start[c] = wpos;
		patch_row[c] = any ? prow : PACKED_NO_PATCHES;
		for (int l = 0; l < L; l++)
		{
			if (any)
				lane_offsets[prow * (L + 1) + l] = ppos;
			for (int r = 0; r < R; r++)
			{
				int			pos = r * L + l;
				Word		f = diff[first + pos] & mask;
				int			bit = r * w,
							j = bit / WB,
							sh = bit % WB;

				if (is_patch[first + pos])
				{
					patch_pos[ppos] = (uint16_t) pos;
					patch_diff[ppos] = diff[first + pos];
					ppos++;
					f = (Word) testgen_rnd() & mask;	/* the decoder must not use it */
				}
				if (w == 0)
					continue;
				words[wpos + j * L + l] |= f << sh;
				if (sh + w > WB)
					words[wpos + (j + 1) * L + l] |= f >> (WB - sh);
			}
		}
		if (any)
		{
			lane_offsets[prow * (L + 1) + L] = ppos;
			prow++;
		}
		wpos += L * w;

		/* expected keys: the base, then unsigned sums (diff[first] ignored) */
		Word		k = last + (Word) (testgen_rnd() % 1000);

		bases[c] = (Key) k;
		for (int i = 0; i < PACKED_CHUNK && first + i < (size_t) n; i++)
		{
			if (i > 0)
				k += diff[first + i];
			expect[first + i] = (Key) k;
			last = k;
		}
	}
	word_start[nchunks] = wpos;
	return buf;
}

/*
 * n keys; chunk c at width width_of(c); differences random below 2^w (or
 * small, with small_diffs, so that the keys stay sorted), a patch at each
 * position with probability pct / 100 (and on position 0 of every third
 * chunk), garbage in the first difference and the padding.
 */
template <typename Key, typename WidthOf>
static void
width_case(int64_t n, WidthOf width_of, int pct, bool small_diffs, const char *what)
{
	typedef typename Codec<Key>::Word Word;
	const int	WB = sizeof(Word) * 8;
	uint32_t	nchunks = (uint32_t) ((n + PACKED_CHUNK - 1) / PACKED_CHUNK);
	size_t		slots = (size_t) nchunks * PACKED_CHUNK;
	std::vector<int> widths(nchunks);
	std::vector<Word> diff(slots);
	std::vector<bool> patched(slots);
	std::vector<Key> expect;

	for (uint32_t c = 0; c < nchunks; c++)
		widths[c] = width_of(c);
	for (size_t i = 0; i < slots; i++)
	{
		int			w = widths[i / PACKED_CHUNK];
		Word		mask = w == WB ? ~(Word) 0 : ((Word) 1 << w) - 1;
		bool		pad = i % PACKED_CHUNK == 0 || i >= (size_t) n;

		if (small_diffs)
			mask &= (Word) 1023;
		patched[i] = (int) (testgen_rnd() % 100) < pct ||
			(i % PACKED_CHUNK == 0 && (i / PACKED_CHUNK) % 3 == 0);
		/* a patch's difference is wider than w where possible */
		if (patched[i] && !small_diffs)
			diff[i] = (Word) testgen_rnd();
		else
			diff[i] = (Word) testgen_rnd() & mask;
		if (pad)
			diff[i] = (Word) testgen_rnd();
	}

	std::vector<char> buf = build<Key>(n, widths, diff, patched, expect);
	char		label[96];

	snprintf(label, sizeof(label), "%s %s, %d%% patches", Codec<Key>::name(), what, pct);
	gpu_case<Key>(buf.data(), buf.size(), expect.data(), label, (cases & 1) != 0);

	/* the layout built here is the codec's: where sorted, its decoder agrees */
	std::vector<Key> cpu(n + 1);
	const char *err = Codec<Key>::decode(buf.data(), cpu.data());

	if (small_diffs || err == NULL)
		CHECK(err == NULL && memcmp(cpu.data(), expect.data(), n * sizeof(Key)) == 0,
			  "%s n=%" PRId64 ": the CPU decoder disagrees with this test's builder: %s",
			  label, n, err ? err : "keys differ");
}

template <typename Key>
static void
width_cases(void)
{
	const int	WB = sizeof(Key) * 8;
	static const int64_t sizes[] = {1, 2, 31, 32, 33, 1023, 1024, 1025, 3 * 1024 - 1};
	static const int pcts[] = {0, 1, 10, 50};
	char		what[64];

	/* each width alone */
	for (int w = 0; w <= WB; w++)
		for (int64_t n : sizes)
		{
			if (quick && n != 1 && n != 1025 && n != 3 * 1024 - 1)
				continue;
			snprintf(what, sizeof(what), "width %d", w);
			width_case<Key>(n, [w](uint32_t) { return w; }, pcts[(w + n) % 4], false, what);
		}
	/* every width, one per chunk, in either order: neighbours differ */
	for (int pct : pcts)
	{
		int64_t		n = (int64_t) (WB + 1) * PACKED_CHUNK - 3;

		width_case<Key>(n, [](uint32_t c) { return (int) c; }, pct, false, "widths ascending");
		width_case<Key>(n, [](uint32_t c) { return WB - (int) c; }, pct, false, "widths descending");
		width_case<Key>(n + 5, [](uint32_t c) { return (int) ((c * 37) % (WB + 1)); }, pct,
						false, "widths mixed");
	}
	/* sorted values the CPU decoder accepts: checks the builder */
	width_case<Key>(5 * PACKED_CHUNK + 100, [](uint32_t c) { return (int) (c * 2); }, 10, true,
					"sorted");
	width_case<Key>(5 * PACKED_CHUNK + 100, [](uint32_t c) { return (int) (c + 10); }, 1, true,
					"sorted");
}

/* The decoder refuses what it cannot decode rather than reading wild. */
static void
argument_cases(void)
{
	std::vector<int32_t> v;
	std::vector<char> buf;
	char	   *d_packed;
	int32_t    *d_out;

	packed_gen(v, 3000, SHAPE_UNIFORM_WIDE, 9);
	buf.resize(setops_packed_bound(4, 3000));
	Codec<int32_t>::encode(v.data(), 3000, buf.data());
	CUDA_OK(cudaMalloc(&d_packed, buf.size() + 8));
	CUDA_OK(cudaMalloc(&d_out, 4 * 3001));

	PackedHeader h = *(const PackedHeader *) buf.data();

	CHECK(packed_decode_enqueue(&h, d_packed + 4, d_out, 0) == cudaErrorInvalidValue,
		  "a value not 8-byte aligned is refused");
	CHECK(packed_decode_enqueue(&h, d_packed, (char *) d_out + 2, 0) == cudaErrorInvalidValue,
		  "an output not aligned to the key is refused");
	h.key_bytes = 3;
	CHECK(packed_decode_enqueue(&h, d_packed, d_out, 0) == cudaErrorInvalidValue,
		  "a bad key size is refused");
	CUDA_OK(cudaDeviceSynchronize());
	CUDA_OK(cudaFree(d_packed));
	CUDA_OK(cudaFree(d_out));
}

int
main(int argc, char **argv)
{
	int			count = 0;

	quick = argc > 1 && strcmp(argv[1], "quick") == 0;
	if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0)
	{
		printf("packed_decode_test: no GPU\n");
		return 2;
	}
	printf("packed_decode_test: %s mode\n", quick ? "quick" : "full");
	argument_cases();
	packed_common_inputs(quick, each_input);
	width_cases<int32_t>();
	width_cases<int64_t>();
	if (!quick)
		packed_large_inputs(each_input);
	printf("packed_decode_test: %ld values decoded\n", cases);
	printf("%ld passed, %ld failed\n", passed, failed);
	return failed ? 1 : 0;
}
