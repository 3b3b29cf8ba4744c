/*
 * cache_put_bench.cu
 *	  What putting a batch's rows into the device cache costs on the GPU,
 *	  the calls the GPU service makes, without PostgreSQL: ROWS rows of
 *	  ROW_BYTES from registered (pinned) host memory, as the service's
 *	  transfer arena is, PER rows a request.
 *
 *	  each     an allocation (cudaMallocAsync, the pool) and a copy a row:
 *	           the device cache's put until 5c1c95d
 *	  alloc    the allocations alone;  copies  the copies alone
 *	  batched  the copies as one cudaMemcpyBatchAsync a request
 *	  span     one copy of a request's rows as they lie (one buffer a
 *	           request, device_cache.c put_rows_together)
 *
 *	  Prints each of REPS repetitions and the median.  Build and run:
 *	  make test/gpu/cache_put_bench && test/gpu/cache_put_bench
 *	  (log: test/bench/results/h200/issue34_similarity_20261129.log, call 9)
 */
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
	fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_)); exit(1); } } while (0)

static const int ROWS = 100000;
static const int PER = 1024;
static const size_t ROW_BYTES = 22000;	/* 5,500 int4 keys */
static const int REPS = 5;

static double
now_ms()
{
	return std::chrono::duration<double, std::milli>(
		std::chrono::steady_clock::now().time_since_epoch()).count();
}

static double
median(std::vector<double> v)
{
	std::sort(v.begin(), v.end());
	return v[v.size() / 2];
}

/*
 * Every row copied on its own (alloc: into a buffer allocated for it
 * first), a request's rows waited for together, as the service's put did.
 */
static void
put_each(std::vector<void *> &row, const char *host, cudaStream_t s, bool alloc)
{
	for (int i = 0; i < ROWS; i++)
	{
		if (alloc)
			CK(cudaMallocAsync(&row[i], ROW_BYTES, s));
		CK(cudaMemcpyAsync(row[i], host + (size_t) (i % PER) * ROW_BYTES, ROW_BYTES,
						   cudaMemcpyHostToDevice, s));
		if (i % PER == PER - 1)
			CK(cudaStreamSynchronize(s));
	}
	CK(cudaStreamSynchronize(s));
}

int
main()
{
	size_t		slot = (size_t) PER * ROW_BYTES;
	char	   *host = (char *) aligned_alloc(4096, slot);
	cudaStream_t s;
	cudaMemPool_t pool;
	uint64_t	keep = ~(uint64_t) 0;
	std::vector<void *> row(ROWS), dst(PER);
	std::vector<const void *> src(PER);
	std::vector<size_t> size(PER, ROW_BYTES);
	std::vector<double> t_each, t_alloc, t_copies, t_batched, t_span;
	cudaMemcpyAttributes attr;
	size_t		attr_idx = 0;
	char	   *span_buf;

	for (size_t i = 0; i < slot; i++)
		host[i] = (char) (i * 2654435761u >> 13);	/* not all zero */
	CK(cudaHostRegister(host, slot, cudaHostRegisterPortable));
	CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	CK(cudaDeviceGetDefaultMemPool(&pool, 0));
	CK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
	memset(&attr, 0, sizeof(attr));
	attr.srcAccessOrder = cudaMemcpySrcAccessOrderStream;
	attr.srcLocHint.type = cudaMemLocationTypeHost;
	attr.dstLocHint.type = cudaMemLocationTypeDevice;
	CK(cudaMallocAsync((void **) &span_buf, slot, s));

	for (int rep = 0; rep < REPS; rep++)
	{
		double		t0 = now_ms();

		put_each(row, host, s, true);
		t_each.push_back(now_ms() - t0);
		for (int i = 0; i < ROWS; i++)
			CK(cudaFreeAsync(row[i], s));
		CK(cudaStreamSynchronize(s));

		t0 = now_ms();
		for (int i = 0; i < ROWS; i++)
			CK(cudaMallocAsync(&row[i], ROW_BYTES, s));
		CK(cudaStreamSynchronize(s));
		t_alloc.push_back(now_ms() - t0);

		t0 = now_ms();
		put_each(row, host, s, false);
		t_copies.push_back(now_ms() - t0);

		t0 = now_ms();
		for (int i = 0; i < ROWS; i += PER)
		{
			int			m = std::min(PER, ROWS - i);

			for (int j = 0; j < m; j++)
			{
				dst[j] = row[i + j];
				src[j] = host + (size_t) j * ROW_BYTES;
			}
			CK(cudaMemcpyBatchAsync(dst.data(), src.data(), size.data(), m, &attr, &attr_idx, 1, s));
			CK(cudaStreamSynchronize(s));
		}
		t_batched.push_back(now_ms() - t0);

		t0 = now_ms();
		for (int i = 0; i < ROWS; i += PER)
		{
			CK(cudaMemcpyAsync(span_buf, host, (size_t) std::min(PER, ROWS - i) * ROW_BYTES,
							   cudaMemcpyHostToDevice, s));
			CK(cudaStreamSynchronize(s));
		}
		t_span.push_back(now_ms() - t0);

		for (int i = 0; i < ROWS; i++)
			CK(cudaFreeAsync(row[i], s));
		CK(cudaStreamSynchronize(s));
		printf("rep %d: %d rows of %zu bytes, %d a request: each %.1f ms | alloc %.1f | copies %.1f | "
			   "batched %.1f | span %.1f ms (%.1f GB/s)\n", rep, ROWS, ROW_BYTES, PER,
			   t_each.back(), t_alloc.back(), t_copies.back(), t_batched.back(), t_span.back(),
			   ROWS * (double) ROW_BYTES / t_span.back() / 1e6);
	}
	printf("median of %d: each %.1f ms | alloc %.1f | copies %.1f | batched %.1f | span %.1f ms\n",
		   REPS, median(t_each), median(t_alloc), median(t_copies), median(t_batched), median(t_span));
	CK(cudaFreeAsync(span_buf, s));
	CK(cudaStreamSynchronize(s));
	return 0;
}
