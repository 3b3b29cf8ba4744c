/*
 * kernel_bench.cu
 *	  The setops multiset kernels against thrust::set_intersection,
 *	  set_union, set_difference and set_symmetric_difference, side by side
 *	  on the same device buffers (device in, device out).
 *
 * Inputs: random sorted keys with about two copies per key (an ascending
 * walk with steps of 0 or 1), never all zero.  Both sides are timed with
 * CUDA events around the whole operation including reading back the output
 * count (both need it to know the result size).  Ours is read back the way
 * the real API reads it (engine/gpu/setops_api.cu): cudaMemcpyAsync into pinned
 * host memory, then a stream synchronize; Thrust reads its own back inside
 * the call.  Thrust gets a caching allocator, so its time does not include
 * cudaMalloc.  Every figure is the median of RUNS runs after a warm-up, and
 * the two results are compared.
 * The fraction reported is (input bytes + output bytes) / time over the
 * measured device-to-device copy bandwidth (bytes read + written).
 *
 * Before the table: the launch floor (measure_launch_floor), what any
 * operation pays before doing work under this timing.
 *
 * After each size's four operations, the intersection count
 * (bench_count): against building the intersection, ours and Thrust's,
 * and its input bytes over the measured read bandwidth.
 *
 * Then sizes far apart (bench_skew), each operation with the smaller side
 * as A and as B, ours also with the inputs known to be in order (the
 * larger side's order pass skipped, as for the device cache's arrays),
 * and the intersection count of each pair both ways round, with the order
 * unknown and known.
 *
 * Usage: kernel_bench [max_elements_per_side [counts|skew|noskew]]
 * (default 256M; counts: only the count rows; skew: only sizes far apart)
 */
#include <algorithm>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>

#include <thrust/execution_policy.h>
#include <thrust/set_operations.h>

#include "../../engine/gpu/gpu_internal.h"
#include "../common/testgen.h"

#define RUNS 7

#include "cuda_ok.h"

/* Thrust's temporary storage from one preallocated block. */
struct BumpAllocator
{
	typedef char value_type;
	char	   *base;
	size_t		cap;
	size_t		used;

	char	   *allocate(std::ptrdiff_t n)
	{
		size_t		want = ((size_t) n + 255) & ~(size_t) 255;

		if (used + want > cap)
		{
			fprintf(stderr, "bump allocator exhausted\n");
			exit(2);
		}
		used += want;
		return base + used - want;
	}
	void		deallocate(char *, size_t)
	{
	}
};

static double
median(std::vector<double> v)
{
	std::sort(v.begin(), v.end());
	return v[v.size() / 2];
}

static double copy_gbps;
static bool count_only;			/* "counts": only the count rows */
static bool skew_only;			/* "skew": only sizes far apart */
static bool no_skew;			/* "noskew": all but those */

static void
measure_copy_bandwidth(void)
{
	size_t		bytes = (size_t) 1 << 30;
	char	   *x,
			   *y;
	cudaEvent_t e0,
				e1;
	std::vector<double> t;

	CUDA_OK(cudaMalloc(&x, bytes));
	CUDA_OK(cudaMalloc(&y, bytes));
	CUDA_OK(cudaMemset(x, 1, bytes));
	cudaEventCreate(&e0);
	cudaEventCreate(&e1);
	for (int r = 0; r < RUNS; r++)
	{
		float		ms;

		cudaEventRecord(e0);
		cudaMemcpy(y, x, bytes, cudaMemcpyDeviceToDevice);
		cudaEventRecord(e1);
		cudaEventSynchronize(e1);
		cudaEventElapsedTime(&ms, e0, e1);
		t.push_back(ms);
	}
	copy_gbps = 2.0 * bytes / (median(t) * 1e6);
	printf("device-to-device copy: %.0f GB/s (bytes read + written), median of %d\n", copy_gbps, RUNS);
	cudaFree(x);
	cudaFree(y);
}

/* Reads n int4 vectors once, grid-stride, eight in flight per thread. */
__global__ void
read_kernel(const int4 *in, int64_t n, int *out)
{
	int			acc = 0;
	int64_t		stride = (int64_t) gridDim.x * blockDim.x;

	for (int64_t i = blockIdx.x * (int64_t) blockDim.x + threadIdx.x; i < n; i += 8 * stride)
	{
		int4		v[8];

#pragma unroll
		for (int u = 0; u < 8; u++)
			if (i + u * stride < n)
				v[u] = __ldg(in + i + u * stride);
#pragma unroll
		for (int u = 0; u < 8; u++)
			if (i + u * stride < n)
				acc ^= v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;
	}
	if (acc == 0x7fffffff)
		*out = acc;				/* never: keeps the loads */
}

static double read_gbps;

/* The device's read bandwidth: a large buffer read once, nothing written. */
static void
measure_read_bandwidth(void)
{
	size_t		bytes = (size_t) 2 << 30;
	int4	   *x;
	int		   *sink;
	cudaEvent_t e0,
				e1;
	cudaDeviceProp prop;
	std::vector<double> t;

	cudaGetDeviceProperties(&prop, 0);
	CUDA_OK(cudaMalloc(&x, bytes));
	CUDA_OK(cudaMalloc(&sink, sizeof(int)));
	CUDA_OK(cudaMemset(x, 1, bytes));
	cudaEventCreate(&e0);
	cudaEventCreate(&e1);
	for (int r = 0; r <= RUNS; r++)
	{
		float		ms;

		cudaEventRecord(e0);
		read_kernel<<<prop.multiProcessorCount * 8, 256>>>(x, bytes / sizeof(int4), sink);
		cudaEventRecord(e1);
		cudaEventSynchronize(e1);
		cudaEventElapsedTime(&ms, e0, e1);
		if (r > 0)
			t.push_back(ms);
	}
	CUDA_OK(cudaGetLastError());
	read_gbps = bytes / (median(t) * 1e6);
	printf("device read bandwidth: %.0f GB/s (2 GiB read once), median of %d\n", read_gbps, RUNS);
	cudaFree(x);
	cudaFree(sink);
}

__global__ void
empty_kernel(int *x)
{
	if (x != NULL && threadIdx.x == 1000)
		*x = 0;
}

/* Reads n int4 vectors of in and writes the first half to out: one pass over
 * the bytes of a 1M + 1M operation, with no set logic. */
__global__ void
stream_kernel(const int4 *in, int64_t n, int4 *out)
{
	for (int64_t i = blockIdx.x * (int64_t) blockDim.x + threadIdx.x; i < n;
		 i += (int64_t) gridDim.x * blockDim.x)
	{
		int4		v = in[i];

		if (i < n / 2)
			out[i] = v;
		else if (v.x == 0x7fffffff && v.y == 0x7fffffff)
			out[0] = v;			/* never: keeps the load */
	}
}

/*
 * What any operation pays before doing work, timed the way bench() times
 * ours (events around the launches, the 16-byte count read back to pinned
 * memory, a stream synchronize): one empty launch; a memset and two empty
 * launches (our pipeline's shape); one launch streaming the bytes of a
 * 1M + 1M int4 operation.
 */
static void
measure_launch_floor(SetopResults *pinned, void *scratch)
{
	const int64_t vecs = (int64_t) 2 << 20 >> 2;	/* 2M int4 = 8 MB */
	int4	   *in,
			   *out;
	cudaEvent_t e0,
				e1;
	std::vector<double> t[3];

	CUDA_OK(cudaMalloc(&in, vecs * sizeof(int4)));
	CUDA_OK(cudaMalloc(&out, vecs * sizeof(int4)));
	CUDA_OK(cudaMemset(in, 1, vecs * sizeof(int4)));
	cudaEventCreate(&e0);
	cudaEventCreate(&e1);
	for (int r = 0; r <= 4 * RUNS; r++)
		for (int k = 0; k < 3; k++)
		{
			float		ms;

			cudaEventRecord(e0);
			if (k == 0)
				empty_kernel<<<1, 32>>>(NULL);
			else if (k == 1)
			{
				CUDA_OK(cudaMemsetAsync(scratch, 0, 64, 0));
				empty_kernel<<<1, 128>>>(NULL);
				empty_kernel<<<1, 128>>>(NULL);
			}
			else
				stream_kernel<<<132 * 8, 256>>>(in, vecs, out);
			CUDA_OK(cudaMemcpyAsync(pinned, scratch, sizeof(SetopResults),
									cudaMemcpyDeviceToHost, 0));
			CUDA_OK(cudaStreamSynchronize(0));
			cudaEventRecord(e1);
			cudaEventSynchronize(e1);
			cudaEventElapsedTime(&ms, e0, e1);
			if (r > 0)
				t[k].push_back(ms);
		}
	CUDA_OK(cudaGetLastError());
	printf("launch floor (count read back, medians of %d): one empty launch %.4f ms; "
		   "memset + two empty launches %.4f ms; one launch streaming 1M+1M int4 (8 MB in, 4 MB out) %.4f ms\n",
		   4 * RUNS, median(t[0]), median(t[1]), median(t[2]));
	cudaEventDestroy(e0);
	cudaEventDestroy(e1);
	cudaFree(in);
	cudaFree(out);
}

/* A launch of op on device buffers: duplicates kept, order unknown. */
template <typename Key>
static SetopLaunch
launch_on(SetopsOp op, const Key *d_a, int64_t na, const Key *d_b, int64_t nb, Key *d_out,
		  void *scratch)
{
	SetopLaunch l;

	memset(&l, 0, sizeof(l));
	l.op = op;
	l.key_type = sizeof(Key) == 8 ? SETOPS_KEY_INT64 : SETOPS_KEY_INT32;
	l.duplicates = true;
	l.a = d_a;
	l.na = (int) na;
	l.b = d_b;
	l.nb = (int) nb;
	l.out = d_out;
	l.scratch = scratch;
	return l;
}

/*
 * Ours, timed as the API runs it (engine/gpu/setops_api.cu): enqueue, the
 * results into pinned host memory, a stream synchronize, the results read
 * (into *res).  Milliseconds between e0 and e1.
 */
static float
time_ours(const SetopLaunch *l, SetopResults *pinned, SetopResults *res, cudaEvent_t e0,
		  cudaEvent_t e1)
{
	float		ms;

	cudaEventRecord(e0);
	CUDA_OK(setop_enqueue(l, 0));
	CUDA_OK(cudaMemcpyAsync(pinned, setop_results(l->scratch), sizeof(SetopResults),
							cudaMemcpyDeviceToHost, 0));
	CUDA_OK(cudaStreamSynchronize(0));
	*res = *pinned;
	cudaEventRecord(e1);
	cudaEventSynchronize(e1);
	cudaEventElapsedTime(&ms, e0, e1);
	return ms;
}

template <typename Key>
static void
bench(SetopsOp op, int64_t na, int64_t nb, const Key *d_a, const Key *d_b, Key *d_out,
	  Key *d_tout, void *scratch, BumpAllocator &alloc, SetopResults *pinned, bool skewed)
{
	static const char *names[] = {"intersect", "union", "difference", "symdiff"};
	cudaEvent_t e0,
				e1;
	std::vector<double> ours,
				ours_sorted,
				theirs;
	SetopLaunch l = launch_on(op, d_a, na, d_b, nb, d_out, scratch);
	int64_t		our_n = 0,
				their_n = 0;

	cudaEventCreate(&e0);
	cudaEventCreate(&e1);

	for (int r = 0; r <= RUNS; r++)
	{
		float		ms;
		SetopResults res;

		/* skewed: also with the inputs known in order (no pass over the larger) */
		for (int known = 0; known <= (int) skewed; known++)
		{
			l.inputs_sorted = known;
			ms = time_ours(&l, pinned, &res, e0, e1);
			if (r > 0)
				(known ? ours_sorted : ours).push_back(ms);
			if (res.unsorted || (known && res.total != our_n))
				our_n = -1;
			else if (!known)
				our_n = res.total;
		}

		Key		   *end = NULL;

		alloc.used = 0;
		cudaEventRecord(e0);
		switch (op)
		{
			case SETOPS_OP_INTERSECT:
				end = thrust::set_intersection(thrust::cuda::par(alloc), d_a, d_a + na, d_b, d_b + nb, d_tout);
				break;
			case SETOPS_OP_UNION:
				end = thrust::set_union(thrust::cuda::par(alloc), d_a, d_a + na, d_b, d_b + nb, d_tout);
				break;
			case SETOPS_OP_DIFFERENCE:
				end = thrust::set_difference(thrust::cuda::par(alloc), d_a, d_a + na, d_b, d_b + nb, d_tout);
				break;
			default:
				end = thrust::set_symmetric_difference(thrust::cuda::par(alloc), d_a, d_a + na, d_b, d_b + nb, d_tout);
				break;
		}
		cudaEventRecord(e1);
		cudaEventSynchronize(e1);
		cudaEventElapsedTime(&ms, e0, e1);
		if (r > 0)
			theirs.push_back(ms);
		their_n = end - d_tout;
	}
	CUDA_OK(cudaGetLastError());

	/* same answer? compare the whole output */
	bool		same = our_n == their_n;

	if (same)
	{
		std::vector<Key> x(our_n),
					y(our_n);

		cudaMemcpy(x.data(), d_out, our_n * sizeof(Key), cudaMemcpyDeviceToHost);
		cudaMemcpy(y.data(), d_tout, our_n * sizeof(Key), cudaMemcpyDeviceToHost);
		same = x == y;
	}
	double		mo = median(ours),
				mt = median(theirs);
	double		bytes = ((double) na + nb + our_n) * sizeof(Key);

	printf("%-5s %-10s %10lld+%-10lld %10.3f %10.3f %7.2fx %8.0f GB/s %5.1f%%  %s",
		   sizeof(Key) == 8 ? "int8" : "int4", names[op], (long long) na, (long long) nb,
		   mo, mt, mt / mo, bytes / (mo * 1e6), 100.0 * bytes / (mo * 1e6) / copy_gbps,
		   same ? "same" : "DIFFERENT");
	if (skewed)
		printf("; known in order %.3f ms (%.2fx thrust)", median(ours_sorted),
			   mt / median(ours_sorted));
	printf("\n");
	fflush(stdout);
	cudaEventDestroy(e0);
	cudaEventDestroy(e1);
}

/*
 * The intersection count (count_kernel.cu) against building the
 * intersection (ours and Thrust's, each then read for its size), side by
 * side, medians; the count's share of the read bandwidth is the input
 * bytes over its time.
 */
template <typename Key>
static void
bench_count(int64_t n, const Key *d_a, const Key *d_b, Key *d_out, Key *d_tout, void *scratch,
			BumpAllocator &alloc, SetopResults *pinned)
{
	cudaEvent_t e0,
				e1;
	std::vector<double> t[3];
	int64_t		answer[3] = {0, 0, 0};

	cudaEventCreate(&e0);
	cudaEventCreate(&e1);
	for (int r = 0; r <= RUNS; r++)
		for (int k = 0; k < 3; k++)
		{
			SetopLaunch l = launch_on(SETOPS_OP_INTERSECT, d_a, n, d_b, n, k == 0 ? NULL : d_out,
									  scratch);
			SetopResults res;
			float		ms;

			l.count_mode = k == 0 ? SETOPS_GPU_COUNT_INTERSECT : SETOPS_GPU_COUNT_NONE;
			alloc.used = 0;
			if (k < 2)
			{
				ms = time_ours(&l, pinned, &res, e0, e1);
				answer[k] = res.total;
			}
			else
			{
				cudaEventRecord(e0);
				answer[k] = thrust::set_intersection(thrust::cuda::par(alloc), d_a, d_a + n, d_b,
													 d_b + n, d_tout) - d_tout;
				cudaEventRecord(e1);
				cudaEventSynchronize(e1);
				cudaEventElapsedTime(&ms, e0, e1);
			}
			if (r > 0)
				t[k].push_back(ms);
		}
	CUDA_OK(cudaGetLastError());

	double		mc = median(t[0]),
				in_bytes = 2.0 * n * sizeof(Key);

	printf("%-5s %-10s %10lld+%-10lld count %8.3f ms, build %8.3f ms (%5.2fx), thrust build %8.3f ms (%5.2fx); "
		   "count reads %6.0f GB/s = %5.1f%% of read bandwidth  %s\n",
		   sizeof(Key) == 8 ? "int8" : "int4", "count", (long long) n, (long long) n,
		   mc, median(t[1]), median(t[1]) / mc, median(t[2]), median(t[2]) / mc,
		   in_bytes / (mc * 1e6), 100.0 * in_bytes / (mc * 1e6) / read_gbps,
		   answer[0] == answer[1] && answer[1] == answer[2] ? "same" : "DIFFERENT");
	fflush(stdout);
	cudaEventDestroy(e0);
	cudaEventDestroy(e1);
}

/*
 * The intersection count of sizes far apart, ours only, side by side: with
 * the order unknown (below SETOPS_SKEW_CHECKED_RATIO the count kernel
 * merges both) and known (from skew_known_ratio, the skew path
 * searches the larger side); the answers compared.
 */
template <typename Key>
static void
bench_skew_count(int64_t na, int64_t nb, const Key *d_a, const Key *d_b, void *scratch,
				 SetopResults *pinned)
{
	cudaEvent_t e0,
				e1;
	std::vector<double> t[2];
	int64_t		answer[2] = {-1, -1};

	cudaEventCreate(&e0);
	cudaEventCreate(&e1);
	for (int r = 0; r <= RUNS; r++)
		for (int known = 0; known < 2; known++)
		{
			SetopLaunch l = launch_on(SETOPS_OP_INTERSECT, d_a, na, d_b, nb, (Key *) NULL, scratch);
			SetopResults res;
			float		ms;

			l.count_mode = SETOPS_GPU_COUNT_INTERSECT;
			l.inputs_sorted = known;
			ms = time_ours(&l, pinned, &res, e0, e1);
			answer[known] = res.unsorted ? -2 : res.total;
			if (r > 0)
				t[known].push_back(ms);
		}
	CUDA_OK(cudaGetLastError());
	printf("%-5s %-10s %10lld+%-10lld count %8.3f ms; known in order %8.3f ms (%5.2fx)  %s\n",
		   sizeof(Key) == 8 ? "int8" : "int4", "count", (long long) na, (long long) nb,
		   median(t[0]), median(t[1]), median(t[0]) / median(t[1]),
		   answer[0] == answer[1] && answer[0] >= 0 ? "same" : "DIFFERENT");
	fflush(stdout);
	cudaEventDestroy(e0);
	cudaEventDestroy(e1);
}

template <typename Key>
static void
bench_size(int64_t n)
{
	std::vector<Key> a(n + 1),
				b(n + 1);
	Key		   *d_a,
			   *d_b,
			   *d_out,
			   *d_tout;
	void	   *scratch;
	SetopResults *pinned;
	BumpAllocator alloc;

	if (sizeof(Key) == 8)
	{
		testgen_i64((int64_t *) a.data(), n, SHAPE_UNIFORM_NARROW, 1);
		testgen_i64((int64_t *) b.data(), n, SHAPE_UNIFORM_NARROW, 2);
	}
	else
	{
		testgen_i32((int32_t *) a.data(), n, SHAPE_UNIFORM_NARROW, 1);
		testgen_i32((int32_t *) b.data(), n, SHAPE_UNIFORM_NARROW, 2);
	}
	CUDA_OK(cudaMalloc(&d_a, n * sizeof(Key)));
	CUDA_OK(cudaMalloc(&d_b, n * sizeof(Key)));
	CUDA_OK(cudaMalloc(&d_out, 2 * n * sizeof(Key)));
	CUDA_OK(cudaMalloc(&d_tout, 2 * n * sizeof(Key)));
	CUDA_OK(cudaMalloc(&scratch, setop_scratch_bytes(sizeof(Key) == 8 ? SETOPS_KEY_INT64 : SETOPS_KEY_INT32,
													 (int) n, (int) n)));
	alloc.cap = (size_t) 64 << 20;
	alloc.cap += (size_t) n * 16;
	alloc.used = 0;
	CUDA_OK(cudaMalloc(&alloc.base, alloc.cap));
	CUDA_OK(cudaHostAlloc((void **) &pinned, sizeof(SetopResults), cudaHostAllocDefault));
	CUDA_OK(cudaMemcpy(d_a, a.data(), n * sizeof(Key), cudaMemcpyHostToDevice));
	CUDA_OK(cudaMemcpy(d_b, b.data(), n * sizeof(Key), cudaMemcpyHostToDevice));
	if (!count_only)
		for (int op = 0; op < 4; op++)
			bench<Key>((SetopsOp) op, n, n, d_a, d_b, d_out, d_tout, scratch, alloc, pinned, false);
	bench_count<Key>(n, d_a, d_b, d_out, d_tout, scratch, alloc, pinned);
	cudaFree(d_a);
	cudaFree(d_b);
	cudaFree(d_out);
	cudaFree(d_tout);
	cudaFree(scratch);
	cudaFree(alloc.base);
	cudaFreeHost(pinned);
}

/*
 * Sizes far apart: a larger side L of nl keys (about two copies a key) and
 * a smaller S of ns keys drawn from L's range, half of them L's own keys
 * and half L's keys plus one (which L may or may not hold), so that some
 * match and some do not; every operation with S as A and as B.
 */
template <typename Key>
static void
bench_skew(int64_t ns, int64_t nl)
{
	std::vector<Key> l(nl + 1),
				s(ns);
	Key		   *d_s,
			   *d_l,
			   *d_out,
			   *d_tout;
	void	   *scratch;
	SetopResults *pinned;
	BumpAllocator alloc;

	if (sizeof(Key) == 8)
		testgen_i64((int64_t *) l.data(), nl, SHAPE_UNIFORM_NARROW, 3);
	else
		testgen_i32((int32_t *) l.data(), nl, SHAPE_UNIFORM_NARROW, 3);
	for (int64_t i = 0; i < ns; i++)
		s[i] = l[testgen_range(0, nl - 1)] + (Key) (i & 1);
	std::sort(s.begin(), s.end());
	CUDA_OK(cudaMalloc(&d_s, ns * sizeof(Key)));
	CUDA_OK(cudaMalloc(&d_l, nl * sizeof(Key)));
	CUDA_OK(cudaMalloc(&d_out, (ns + nl) * sizeof(Key)));
	CUDA_OK(cudaMalloc(&d_tout, (ns + nl) * sizeof(Key)));
	CUDA_OK(cudaMalloc(&scratch, setop_scratch_bytes(sizeof(Key) == 8 ? SETOPS_KEY_INT64 : SETOPS_KEY_INT32,
													 (int) ns, (int) nl)));
	alloc.cap = ((size_t) 64 << 20) + (size_t) (ns + nl) * 8;
	alloc.used = 0;
	CUDA_OK(cudaMalloc(&alloc.base, alloc.cap));
	CUDA_OK(cudaHostAlloc((void **) &pinned, sizeof(SetopResults), cudaHostAllocDefault));
	CUDA_OK(cudaMemcpy(d_s, s.data(), ns * sizeof(Key), cudaMemcpyHostToDevice));
	CUDA_OK(cudaMemcpy(d_l, l.data(), nl * sizeof(Key), cudaMemcpyHostToDevice));
	for (int op = 0; op < 4; op++)
	{
		bench<Key>((SetopsOp) op, ns, nl, d_s, d_l, d_out, d_tout, scratch, alloc, pinned, true);
		bench<Key>((SetopsOp) op, nl, ns, d_l, d_s, d_out, d_tout, scratch, alloc, pinned, true);
	}
	bench_skew_count<Key>(ns, nl, d_s, d_l, scratch, pinned);
	bench_skew_count<Key>(nl, ns, d_l, d_s, scratch, pinned);
	cudaFree(d_s);
	cudaFree(d_l);
	cudaFree(d_out);
	cudaFree(d_tout);
	cudaFree(scratch);
	cudaFree(alloc.base);
	cudaFreeHost(pinned);
}

int
main(int argc, char **argv)
{
	int64_t		max_n = argc > 1 ? atoll(argv[1]) : ((int64_t) 256 << 20);
	cudaDeviceProp prop;

	count_only = argc > 2 && strcmp(argv[2], "counts") == 0;
	skew_only = argc > 2 && strcmp(argv[2], "skew") == 0;
	no_skew = argc > 2 && strcmp(argv[2], "noskew") == 0;
	if (skew_only)
		max_n = 0;

	cudaGetDeviceProperties(&prop, 0);
	printf("kernel_bench on %s (%d SMs); medians of %d runs\n", prop.name,
		   prop.multiProcessorCount, RUNS);
	measure_copy_bandwidth();
	measure_read_bandwidth();
	{
		SetopResults *pinned;
		void	   *scratch;

		CUDA_OK(cudaHostAlloc((void **) &pinned, sizeof(SetopResults), cudaHostAllocDefault));
		CUDA_OK(cudaMalloc(&scratch, 4096));
		measure_launch_floor(pinned, scratch);
		cudaFreeHost(pinned);
		cudaFree(scratch);
	}
	printf("%-5s %-10s %21s %10s %10s %8s %13s %6s\n", "type", "op", "elements",
		   "setops ms", "thrust ms", "speedup", "setops", "of copy");
	for (int64_t n : {(int64_t) 1 << 16, (int64_t) 1 << 20, (int64_t) 16 << 20,
		 (int64_t) 64 << 20, (int64_t) 256 << 20})
		if (n <= max_n)
			bench_size<int32_t>(n);
	for (int64_t n : {(int64_t) 1 << 20, (int64_t) 16 << 20, (int64_t) 64 << 20,
		 (int64_t) 256 << 20})
		if (n <= max_n)
			bench_size<int64_t>(n);
	if (!count_only && !no_skew)
	{
		printf("sizes far apart (the skew path: intersection, smaller A's difference; the tile kernel: the rest)\n");
		/* ratios 1024 down to 32: where the search stops paying */
		for (int64_t ns : {(int64_t) 64 << 10, (int64_t) 128 << 10, (int64_t) 256 << 10,
			 (int64_t) 512 << 10, (int64_t) 1 << 20, (int64_t) 2 << 20})
			if ((int64_t) 64 << 20 <= max_n || skew_only)
				bench_skew<int32_t>(ns, (int64_t) 64 << 20);
		for (int64_t ns : {(int64_t) 64 << 10, (int64_t) 256 << 10, (int64_t) 1 << 20,
			 (int64_t) 2 << 20})
			if ((int64_t) 64 << 20 <= max_n || skew_only)
				bench_skew<int64_t>(ns, (int64_t) 64 << 20);
	}
	return 0;
}
