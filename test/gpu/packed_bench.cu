/*
 * packed_bench.cu
 *	  Throughput of the GPU decoder of packed values (engine/gpu/packed_decode.cu),
 *	  device memory in, device memory out.
 *
 * Inputs: sorted keys with random gaps of 0..3 (never all zero), and 0%,
 * 1% or 10% outliers that the encoder stores as patches; int32 and int64,
 * 16M and 64M keys.  The decode is timed with CUDA events around the
 * launch, median of RUNS runs after a warm-up; in the same runs, a
 * device-to-device cudaMemcpy of the output's size.  Reported: the share
 * of keys patched, the mean chunk width, packed and output bytes, decode
 * ms, decoded output in TB/s (key bytes written per second), the copy's
 * ms and bandwidth (bytes read + written, the usual figure), and copy ms /
 * decode ms (above 1: decoding the value is faster than copying the
 * decoded keys).  The output is compared with the input once.
 *
 * Then the GPU encoder (engine/gpu/packed_encode.cu) on the same inputs, device
 * keys in, device bytes out: events around packed_encode (its analysis,
 * scan, the totals' round trip to the host and the bytes' kernel), median
 * of RUNS runs after a warm-up; reported in keys/s and in GB/s of input
 * keys, and the bytes compared with the CPU encoder's once.
 *
 * Usage: packed_bench [max_keys]   (default 64M)
 */
#include <algorithm>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <type_traits>
#include <vector>

#include "../../engine/gpu/gpu_internal.h"
extern "C"
{
#include "../../engine/cpu/packed_codec.h"
}
#include "../common/testgen.h"

#include "cuda_ok.h"

#define RUNS 7

static double
median(std::vector<double> v)
{
	std::sort(v.begin(), v.end());
	return v[v.size() / 2];
}

/* Gaps of 0..3 from the type's minimum (plus one: never all zero), a
 * share of outliers wide enough that the encoder patches them. */
template <typename Key>
static void
make_keys(std::vector<Key> &v, int64_t n, int pct)
{
	typedef typename std::conditional<sizeof(Key) == 4, uint32_t, uint64_t>::type Word;
	Word		x = ((Word) 1 << (sizeof(Key) * 8 - 1)) + 1;

	v.resize(n);
	for (int64_t i = 0; i < n; i++)
	{
		bool		outlier = (int) (testgen_rnd() % 100) < pct;

		/* int32: 9-bit outliers keep 64M keys inside the type's range */
		if (outlier)
			x += sizeof(Key) == 4 ? (Word) (testgen_rnd() % 256 + 256) :
				(Word) (testgen_rnd() % ((uint64_t) 1 << 40));
		else
			x += (Word) (testgen_rnd() % 4);
		v[i] = (Key) x;
	}
}

template <typename Key>
static void
bench(int64_t n, int pct)
{
	std::vector<Key> keys;
	std::vector<char> buf;
	size_t		size;
	char	   *d_packed;
	Key		   *d_out,
			   *d_copy;
	cudaEvent_t e0,
				e1;
	std::vector<double> t_dec,
				t_copy;
	size_t		out_bytes = (size_t) n * sizeof(Key);
	const PackedHeader *h;

	make_keys<Key>(keys, n, pct);
	buf.resize(setops_packed_bound(sizeof(Key), n));
	size = sizeof(Key) == 4 ? setops_packed_encode_i32((const int32_t *) keys.data(), n, buf.data()) :
		setops_packed_encode_i64((const int64_t *) keys.data(), n, buf.data());
	if (size == 0 || setops_packed_check(buf.data(), size) != NULL)
	{
		fprintf(stderr, "packed_bench: encode failed\n");
		exit(2);
	}
	h = (const PackedHeader *) buf.data();

	CUDA_OK(cudaMalloc(&d_packed, size));
	CUDA_OK(cudaMalloc(&d_out, out_bytes));
	CUDA_OK(cudaMalloc(&d_copy, out_bytes));
	CUDA_OK(cudaMemcpy(d_packed, buf.data(), size, cudaMemcpyHostToDevice));
	CUDA_OK(cudaMemset(d_out, 0xA5, out_bytes));
	CUDA_OK(cudaMemset(d_copy, 0x5A, out_bytes));
	CUDA_OK(cudaEventCreate(&e0));
	CUDA_OK(cudaEventCreate(&e1));

	/* run 0 warms up */
	for (int r = 0; r <= RUNS; r++)
	{
		float		ms;

		CUDA_OK(cudaEventRecord(e0));
		CUDA_OK(packed_decode_enqueue(h, d_packed, d_out, 0));
		CUDA_OK(cudaEventRecord(e1));
		CUDA_OK(cudaEventSynchronize(e1));
		CUDA_OK(cudaEventElapsedTime(&ms, e0, e1));
		if (r > 0)
			t_dec.push_back(ms);

		CUDA_OK(cudaEventRecord(e0));
		CUDA_OK(cudaMemcpyAsync(d_copy, d_out, out_bytes, cudaMemcpyDeviceToDevice, 0));
		CUDA_OK(cudaEventRecord(e1));
		CUDA_OK(cudaEventSynchronize(e1));
		CUDA_OK(cudaEventElapsedTime(&ms, e0, e1));
		if (r > 0)
			t_copy.push_back(ms);
	}
	CUDA_OK(cudaGetLastError());

	/* the copy holds the last decode's output */
	std::vector<Key> got(n);

	CUDA_OK(cudaMemcpy(got.data(), d_copy, out_bytes, cudaMemcpyDeviceToHost));
	bool		same = got == keys;

	double		md = median(t_dec),
				mc = median(t_copy);

	printf("%-4s %10" PRId64 " %4d%% %7.3f%% %5.2f %9.1f %9.1f %8.3f %7.3f %8.3f %7.3f %7.2f  %s\n",
		   sizeof(Key) == 4 ? "int4" : "int8", n, pct, 100.0 * h->npatches / (n ? n : 1),
		   8.0 * sizeof(Key) * h->nwords / ((double) h->nchunks * PACKED_CHUNK),
		   size / 1e6, out_bytes / 1e6, md, out_bytes / (md * 1e9), mc,
		   2.0 * out_bytes / (mc * 1e9), mc / md, same ? "same" : "DIFFERENT");
	fflush(stdout);
	CUDA_OK(cudaEventDestroy(e0));
	CUDA_OK(cudaEventDestroy(e1));
	CUDA_OK(cudaFree(d_packed));
	CUDA_OK(cudaFree(d_out));
	CUDA_OK(cudaFree(d_copy));
	if (!same)
		exit(1);
}

template <typename Key>
static void
bench_encode(int64_t n, int pct)
{
	SetopsKeyType type = sizeof(Key) == 4 ? SETOPS_KEY_INT32 : SETOPS_KEY_INT64;
	std::vector<Key> keys;
	std::vector<char> buf;
	size_t		size,
				gpu_size = 0,
				cap = packed_encode_bound(type, n),
				scratch_bytes = packed_encode_scratch_bytes(type, n);
	char	   *d_keys,
			   *d_enc,
			   *d_scratch;
	void	   *pinned;
	cudaEvent_t e0,
				e1;
	std::vector<double> t_enc;

	make_keys<Key>(keys, n, pct);
	buf.resize(setops_packed_bound(sizeof(Key), n));
	size = sizeof(Key) == 4 ? setops_packed_encode_i32((const int32_t *) keys.data(), n, buf.data()) :
		setops_packed_encode_i64((const int64_t *) keys.data(), n, buf.data());

	CUDA_OK(cudaMalloc(&d_keys, n * sizeof(Key)));
	CUDA_OK(cudaMalloc(&d_enc, cap));
	CUDA_OK(cudaMalloc(&d_scratch, scratch_bytes));
	CUDA_OK(cudaMallocHost(&pinned, 64));
	CUDA_OK(cudaMemcpy(d_keys, keys.data(), n * sizeof(Key), cudaMemcpyHostToDevice));
	CUDA_OK(cudaEventCreate(&e0));
	CUDA_OK(cudaEventCreate(&e1));
	for (int r = 0; r <= RUNS; r++)
	{
		float		ms;

		CUDA_OK(cudaEventRecord(e0));
		CUDA_OK(packed_encode(type, d_keys, n, d_enc, cap, d_scratch, scratch_bytes, pinned, 0,
							  &gpu_size));
		CUDA_OK(cudaEventRecord(e1));
		CUDA_OK(cudaEventSynchronize(e1));
		CUDA_OK(cudaEventElapsedTime(&ms, e0, e1));
		if (r > 0)
			t_enc.push_back(ms);
	}

	std::vector<char> got(gpu_size);

	CUDA_OK(cudaMemcpy(got.data(), d_enc, gpu_size, cudaMemcpyDeviceToHost));
	bool		same = gpu_size == size && memcmp(got.data(), buf.data(), size) == 0;
	double		me = median(t_enc);

	printf("%-4s %10" PRId64 " %4d%% %9.1f %9.1f %8.3f %8.2f %8.1f  %s\n",
		   sizeof(Key) == 4 ? "int4" : "int8", n, pct, n * sizeof(Key) / 1e6, size / 1e6,
		   me, n / (me * 1e6), n * sizeof(Key) / (me * 1e6), same ? "same" : "DIFFERENT");
	fflush(stdout);
	CUDA_OK(cudaEventDestroy(e0));
	CUDA_OK(cudaEventDestroy(e1));
	CUDA_OK(cudaFree(d_keys));
	CUDA_OK(cudaFree(d_enc));
	CUDA_OK(cudaFree(d_scratch));
	CUDA_OK(cudaFreeHost(pinned));
	if (!same)
		exit(1);
}

int
main(int argc, char **argv)
{
	int64_t		max_n = argc > 1 ? atoll(argv[1]) : ((int64_t) 64 << 20);
	cudaDeviceProp prop;

	CUDA_OK(cudaGetDeviceProperties(&prop, 0));
	printf("packed_bench on %s (%d SMs); medians of %d runs\n", prop.name,
		   prop.multiProcessorCount, RUNS);
	printf("%-4s %10s %5s %8s %5s %9s %9s %8s %7s %8s %7s %7s\n", "type", "keys", "outl",
		   "patches", "avg w", "packed MB", "out MB", "dec ms", "TB/s", "copy ms",
		   "TB/s", "copy/dec");
	for (int64_t n : {(int64_t) 16 << 20, (int64_t) 64 << 20})
		if (n <= max_n)
			for (int pct : {0, 1, 10})
			{
				bench<int32_t>(n, pct);
				bench<int64_t>(n, pct);
			}
	printf("\nencode (GPU), medians of %d runs\n", RUNS);
	printf("%-4s %10s %5s %9s %9s %8s %8s %8s\n", "type", "keys", "outl", "keys MB",
		   "packed MB", "enc ms", "Gkeys/s", "GB/s");
	for (int64_t n : {(int64_t) 1 << 20, (int64_t) 5 << 20, (int64_t) 16 << 20, (int64_t) 64 << 20})
		if (n <= max_n)
			for (int pct : {0, 1, 10})
			{
				bench_encode<int32_t>(n, pct);
				bench_encode<int64_t>(n, pct);
			}
	return 0;
}
