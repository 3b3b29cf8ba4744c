/*
 * packed_encode_test.cu
 *	  Tests of the GPU encoder of packed values (engine/gpu/packed_encode.cu): its
 *	  bytes must be the CPU encoder's, every one of them.
 *
 * Every case encodes keys on the GPU into a buffer poisoned with 0xA5
 * bytes (scratch poisoned too), compares the size and the whole value with
 * setops_packed_encode_i32/i64 (memcmp: header, padding and all), and
 * checks the bytes past the value still poisoned.
 *
 *   shapes       every testgen shape at sizes 0, 1, around lanes, rows and
 *                chunks, and chunk multiples +-1
 *   patches      gaps of 0..3 with 0%, 1%, 10% and 50% outliers
 *   extremes     the type's extremes and full-range steps
 *   bit lengths  chunks whose differences have one bit length, with a
 *                count of wider outliers: every width, and the counts
 *                where two widths cost the same (the tie goes to the
 *                smaller one), and random unsorted keys (full widths);
 *                keys wrap around freely: the encoder takes unsigned
 *                differences, as the CPU's does
 *   large        up to 64M keys (full mode)
 *   API          setops_gpu_setop with out_packed, packed and plain
 *                arguments, every operation: the bytes of the CPU encoding
 *                of the std:: algorithm's result
 *
 * Usage: packed_encode_test [quick|full]   (quick: small sizes, for
 * compute-sanitizer).  Prints "N passed, N failed"; exits non-zero on
 * failure.
 */
#include <algorithm>
#include <inttypes.h>
#include <iterator>
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

/*
 * Poisoned bytes checked past the value.  Also room for keys out of order
 * (the bit-length cases wrap around): a chunk may then take a patched
 * width that costs as much as the full one, and the sections' padding
 * takes the value a few bytes past setops_packed_bound.
 */
#define TAIL 64

static bool quick;
static long cases;

template <typename Key> struct Codec;
template <> struct Codec<int32_t>
{
	typedef uint32_t Word;
	static const SetopsKeyType type = SETOPS_KEY_INT32;
	static size_t encode(const int32_t *k, int64_t n, void *buf)
	{
		return setops_packed_encode_i32(k, n, buf);
	}
	static const char *name()
	{
		return "int4";
	}
};
template <> struct Codec<int64_t>
{
	typedef uint64_t Word;
	static const SetopsKeyType type = SETOPS_KEY_INT64;
	static size_t encode(const int64_t *k, int64_t n, void *buf)
	{
		return setops_packed_encode_i64(k, n, buf);
	}
	static const char *name()
	{
		return "int8";
	}
};

/* First differing byte of two values, for messages: which section. */
static const char *
section_of(const void *buf, size_t at)
{
	PackedLayout lay;

	if (at < sizeof(PackedHeader))
		return "header";
	if (!packed_layout((const PackedHeader *) buf, &lay))
		return "?";
	if (at >= lay.patch_diff)
		return "patch_diff";
	if (at >= lay.patch_pos)
		return "patch_pos";
	if (at >= lay.words)
		return "words";
	if (at >= lay.lane_offsets)
		return "lane_offsets";
	if (at >= lay.patch_row)
		return "patch_row";
	if (at >= lay.word_start)
		return "word_start";
	if (at >= lay.widths)
		return "widths";
	return "bases";
}

/*
 * Encode keys[0, n) on the GPU and compare with the CPU.  Alternate cases
 * put the keys 1 key and the value 8 bytes into their allocations (the
 * encoder may assume the key's and 8-byte alignment only).
 */
template <typename Key>
static void
encode_case(const Key *keys, int64_t n, const char *what)
{
	SetopsKeyType type = Codec<Key>::type;
	size_t		bound = setops_packed_bound(sizeof(Key), n);
	size_t		cap = bound + TAIL;
	size_t		scratch_bytes = packed_encode_scratch_bytes(type, n);
	bool		shift = (cases & 1) != 0;
	std::vector<char> cpu(cap),
				got(cap);
	size_t		cpu_size,
				size = 0;
	char	   *d_keys,
			   *d_out,
			   *d_scratch;
	void	   *pinned;
	cudaError_t e;
	char		label[128];

	cases++;
	snprintf(label, sizeof(label), "%s %s n=%" PRId64, Codec<Key>::name(), what, n);
	cpu_size = Codec<Key>::encode(keys, n, cpu.data());
	CHECK(cpu_size > 0 && cpu_size <= bound + 24, "%s: the CPU encoder failed", label);
	CHECK(packed_encode_bound(type, n) == bound, "%s: bounds differ", label);
	if (cpu_size == 0)
		return;

	CUDA_OK(cudaMalloc(&d_keys, (n + 1) * sizeof(Key)));
	CUDA_OK(cudaMalloc(&d_out, cap + 8));
	CUDA_OK(cudaMalloc(&d_scratch, scratch_bytes));
	CUDA_OK(cudaMallocHost(&pinned, 64));
	CUDA_OK(cudaMemcpy(d_keys + (shift ? sizeof(Key) : 0), keys, n * sizeof(Key),
					   cudaMemcpyHostToDevice));
	CUDA_OK(cudaMemset(d_out, 0xA5, cap + 8));
	CUDA_OK(cudaMemset(d_scratch, 0xA5, scratch_bytes));
	e = packed_encode(type, d_keys + (shift ? sizeof(Key) : 0), n, d_out + (shift ? 8 : 0), cap,
					  d_scratch, scratch_bytes, pinned, 0, &size);
	CHECK(e == cudaSuccess, "%s: packed_encode: %s", label, cudaGetErrorString(e));
	CUDA_OK(cudaDeviceSynchronize());
	CUDA_OK(cudaMemcpy(got.data(), d_out + (shift ? 8 : 0), cap, cudaMemcpyDeviceToHost));
	CUDA_OK(cudaFree(d_keys));
	CUDA_OK(cudaFree(d_out));
	CUDA_OK(cudaFree(d_scratch));
	CUDA_OK(cudaFreeHost(pinned));
	if (e != cudaSuccess)
		return;

	CHECK(size == cpu_size, "%s: %zu bytes, the CPU's %zu", label, size, cpu_size);
	if (size == cpu_size)
	{
		size_t		at = 0;

		while (at < size && got[at] == cpu[at])
			at++;
		CHECK(at == size, "%s: bytes differ, first at %zu (%s): got 0x%02x, want 0x%02x",
			  label, at, section_of(cpu.data(), at), (unsigned char) got[at < size ? at : 0],
			  (unsigned char) cpu[at < size ? at : 0]);
	}
	for (size_t i = size; i < cap; i++)
		if ((unsigned char) got[i] != 0xA5)
		{
			CHECK(false, "%s: written past the value's %zu bytes, at %zu", label, size, i);
			break;
		}
}

/* The shared inputs (packed_inputs.h) go through encode_case. */
static const auto each_input = [](auto *keys, int64_t n, const char *what) { encode_case(keys, n, what); };


/* ---- bit lengths chosen per chunk ---- */

/* A random difference of exactly b bits. */
template <typename Word>
static Word
diff_of_bits(int b)
{
	const int	WB = sizeof(Word) * 8;
	Word		x = (Word) testgen_rnd();

	if (b == 0)
		return 0;
	if (b < WB)
		x &= ((Word) 1 << b) - 1;
	return x | ((Word) 1 << (b - 1));
}

/*
 * n keys; in each chunk, differences of b0 bits but `outliers` of b1 bits at
 * random positions (keys wrap around as they will).
 */
template <typename Key>
static void
bits_case(int64_t n, int b0, int b1, int outliers, const char *what)
{
	typedef typename Codec<Key>::Word Word;
	std::vector<Key> v(n);
	Word		x = (Word) testgen_rnd();
	char		label[96];

	for (int64_t first = 0; first < n; first += PACKED_CHUNK)
	{
		int			m = (int) std::min((int64_t) PACKED_CHUNK, n - first);
		std::vector<int> pos;
		std::vector<bool> wide(m, false);

		/* exactly min(outliers, m - 1) distinct positions past the first */
		for (int i = 1; i < m; i++)
			pos.push_back(i);
		for (int k = 0; k < outliers && k < m - 1; k++)
		{
			int			j = k + (int) (testgen_rnd() % (uint64_t) (m - 1 - k));

			std::swap(pos[k], pos[j]);
			wide[pos[k]] = true;
		}
		for (int i = 0; i < m; i++)
		{
			x += i == 0 ? (Word) testgen_rnd() : diff_of_bits<Word>(wide[i] ? b1 : b0);
			v[first + i] = (Key) x;
		}
	}
	snprintf(label, sizeof(label), "%s (%d bits, %d of %d)", what, b0, outliers, b1);
	encode_case<Key>(v.data(), n, label);
}

template <typename Key>
static void
bits_cases(void)
{
	const int	WB = sizeof(Key) * 8;
	const int	L = sizeof(Key) == 4 ? 32 : 16;
	const int	KB = sizeof(Key);
	int64_t		n = quick ? 3 * PACKED_CHUNK - 5 : 7 * PACKED_CHUNK + 3;

	/* every width alone, and with a few or many outliers above it */
	for (int b = 0; b <= WB; b++)
	{
		bits_case<Key>(n, b, b, 0, "one width");
		if (b < WB)
		{
			bits_case<Key>(n, b, WB, 1 + b % 7, "outliers");
			bits_case<Key>(n, b, std::min(WB, b + 1 + b % 5), 40 + 11 * b, "outliers");
		}
	}

	/*
	 * Ties: b0-bit differences with `a` outliers of b1 bits cost as much at
	 * width b0 (patched) as at b1 when L (b1 - b0) KB = (L + 1) 4 + a (2 + KB);
	 * the smaller width must win.  Also one outlier fewer and more.
	 */
	for (int b0 = 0; b0 < WB; b0++)
		for (int b1 = b0 + 1; b1 <= WB && b1 <= b0 + 4; b1++)
		{
			int			num = L * (b1 - b0) * KB - (L + 1) * 4;

			if (num <= 0 || num % (2 + KB) != 0 || num / (2 + KB) >= PACKED_CHUNK)
				continue;
			if (quick && b0 % 5 != 0)
				continue;
			for (int da = -1; da <= 1; da++)
				bits_case<Key>(n, b0, b1, num / (2 + KB) + da, "tie");
		}

	/* random keys, unsorted: widths at or near the key's bits */
	{
		std::vector<Key> v(n);

		for (int64_t i = 0; i < n; i++)
			v[i] = (Key) testgen_rnd();
		encode_case<Key>(v.data(), n, "random unsorted");
		std::sort(v.begin(), v.end());
		encode_case<Key>(v.data(), n, "random sorted");
	}
}

/* The encoder refuses what it cannot do rather than writing wild. */
static void
argument_cases(void)
{
	size_t		scratch_bytes = packed_encode_scratch_bytes(SETOPS_KEY_INT32, 3000);
	size_t		cap = packed_encode_bound(SETOPS_KEY_INT32, 3000);
	char	   *d_keys,
			   *d_out,
			   *d_scratch;
	size_t		size;
	char		host[64];

	CUDA_OK(cudaMalloc(&d_keys, 4 * 3001));
	CUDA_OK(cudaMalloc(&d_out, cap + 8));
	CUDA_OK(cudaMalloc(&d_scratch, scratch_bytes));
	CUDA_OK(cudaMemset(d_keys, 0, 4 * 3001));
	CHECK(packed_encode(SETOPS_KEY_INT32, d_keys, 3000, d_out + 4, cap, d_scratch, scratch_bytes,
						host, 0, &size) == cudaErrorInvalidValue,
		  "an output not 8-byte aligned is refused");
	CHECK(packed_encode(SETOPS_KEY_INT32, d_keys + 2, 3000, d_out, cap, d_scratch, scratch_bytes,
						host, 0, &size) == cudaErrorInvalidValue,
		  "keys not aligned to their size are refused");
	CHECK(packed_encode(SETOPS_KEY_INT32, d_keys, 3000, d_out, cap, d_scratch, scratch_bytes - 1,
						host, 0, &size) == cudaErrorInvalidValue,
		  "too little scratch is refused");
	CHECK(packed_encode(SETOPS_KEY_INT32, d_keys, 3000, d_out, sizeof(PackedHeader), d_scratch, scratch_bytes,
						host, 0, &size) == cudaErrorInvalidValue,
		  "too small an output is refused");
	CHECK(packed_encode_scratch_bytes(SETOPS_KEY_INT64, (int64_t) INT_MAX + 1) == 0,
		  "more than INT_MAX keys: no scratch size");
	CUDA_OK(cudaDeviceSynchronize());
	CUDA_OK(cudaFree(d_keys));
	CUDA_OK(cudaFree(d_out));
	CUDA_OK(cudaFree(d_scratch));
}

/* ---- through the API ---- */

template <typename Key>
static std::vector<Key>
expected(SetopsOp op, const std::vector<Key> &a, const std::vector<Key> &b)
{
	std::vector<Key> r;

	switch (op)
	{
		case SETOPS_OP_INTERSECT:
			std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(r));
			break;
		case SETOPS_OP_UNION:
			std::set_union(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(r));
			break;
		case SETOPS_OP_DIFFERENCE:
			std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(r));
			break;
		case SETOPS_OP_SYMDIFF:
			std::set_symmetric_difference(a.begin(), a.end(), b.begin(), b.end(),
										  std::back_inserter(r));
			break;
		case SETOPS_OP_MERGE:
			std::merge(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(r));
			break;
	}
	return r;
}

/* op on a and b, packed (or plain) arguments, a packed result. */
template <typename Key>
static void
api_case(SetopsOp op, const std::vector<Key> &a, const std::vector<Key> &b, bool packed_args,
		 const char *what)
{
	std::vector<Key> want = expected<Key>(op, a, b);
	int64_t		bound = setop_output_bound(op, (long long) a.size(), (long long) b.size());
	size_t		cap = setops_packed_bound(sizeof(Key), bound);
	std::vector<char> pa(setops_packed_bound(sizeof(Key), a.size())),
				pb(setops_packed_bound(sizeof(Key), b.size())),
				cpu(setops_packed_bound(sizeof(Key), want.size())),
				out(cap + TAIL, (char) 0xA5);
	size_t		cpu_size = Codec<Key>::encode(want.data(), want.size(), cpu.data());
	SetopsGpuSetopArgs args;
	char		errbuf[SETOPS_GPU_ERRLEN];
	char		label[160];

	cases++;
	snprintf(label, sizeof(label), "API %s %s op %d, %zu x %zu keys, %s arguments",
			 Codec<Key>::name(), what, (int) op, a.size(), b.size(),
			 packed_args ? "packed" : "plain");
	memset(&args, 0, sizeof(args));
	args.op = op;
	args.key_type = Codec<Key>::type;
	args.na = a.size();
	args.nb = b.size();
	if (packed_args)
	{
		args.a_packed = pa.data();
		args.a_packed_size = Codec<Key>::encode(a.data(), a.size(), pa.data());
		args.b_packed = pb.data();
		args.b_packed_size = Codec<Key>::encode(b.data(), b.size(), pb.data());
	}
	else
	{
		args.a = a.data();
		args.b = b.data();
	}
	args.out_packed = out.data();
	args.out_packed_cap = cap;

	SetopsGpuStatus st = setops_gpu_setop(&args, errbuf, sizeof(errbuf));

	CHECK(st == SETOPS_GPU_OK, "%s: status %d: %s", label, (int) st, errbuf);
	if (st != SETOPS_GPU_OK)
		return;
	CHECK(args.unsorted_arg == 0, "%s: sorted arguments reported unsorted", label);
	CHECK(args.out_count == (int64_t) want.size(), "%s: %" PRId64 " keys, want %zu", label,
		  args.out_count, want.size());
	CHECK(args.out_packed_size == cpu_size && memcmp(out.data(), cpu.data(), cpu_size) == 0,
		  "%s: packed result differs (%zu bytes, the CPU's %zu)", label, args.out_packed_size,
		  cpu_size);
	for (size_t i = args.out_packed_size; i < out.size(); i++)
		if ((unsigned char) out[i] != 0xA5)
		{
			CHECK(false, "%s: written past the value's %zu bytes, at %zu", label,
				  args.out_packed_size, i);
			break;
		}
}

template <typename Key>
static void
api_cases(void)
{
	static const int64_t sizes[][2] = {{0, 0}, {0, 5}, {1, 1}, {1000, 3000}, {5000, 4000},
		{100000, 70000}, {3000000, 2000000}, {20000000, 17000000}};
	std::vector<Key> a,
				b;

	for (auto s : sizes)
	{
		if (quick && s[0] > 5000)
			continue;
		for (int shape = 0; shape < SHAPE_COUNT; shape++)
		{
			/* large, or under the sanitizer: fewer shapes */
			if ((s[0] > 100000 || quick) && shape != SHAPE_UNIFORM_NARROW &&
				shape != SHAPE_CLUSTERED && shape != SHAPE_ALL_EQUAL)
				continue;
			packed_gen(a, s[0], (TestShape) shape, 2 * s[0] + shape);
			packed_gen(b, s[1], (TestShape) shape, 2 * s[1] + shape + 1);
			for (int op = 0; op < SETOPS_OP_COUNT; op++)
				for (int packed_args = 0; packed_args <= 1; packed_args++)
					api_case<Key>((SetopsOp) op, a, b, packed_args != 0,
								  testgen_shape_names[shape]);
		}
	}
}

int
main(int argc, char **argv)
{
	int			count = 0;

	quick = argc > 1 && strcmp(argv[1], "quick") == 0;
	if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0)
	{
		printf("packed_encode_test: no GPU\n");
		return 2;
	}
	printf("packed_encode_test: %s mode\n", quick ? "quick" : "full");
	argument_cases();
	packed_common_inputs(quick, each_input);
	bits_cases<int32_t>();
	bits_cases<int64_t>();
	api_cases<int32_t>();
	api_cases<int64_t>();
	if (!quick)
		packed_large_inputs(each_input);
	printf("packed_encode_test: %ld values encoded\n", cases);
	printf("%ld passed, %ld failed\n", passed, failed);
	return failed ? 1 : 0;
}
