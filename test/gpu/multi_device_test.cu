/*
 * multi_device_test.cu
 *	  One operation split over several GPUs (setops_gpu_setop_devices)
 *	  against the CPU engine, and its speed against one GPU.
 *
 *   test   every op, both key types, every input shape of testgen.h, sizes
 *          around the split points, weights even and uneven, 2 and 3 parts:
 *          outputs (count and keys, poisoned buffer) identical to the CPU
 *          engine's; an inversion placed at a part boundary is found at
 *          its exact position.  With one GPU the parts share it (the split
 *          and concatenation are what is tested); with two, they go to
 *          both.  Inputs with a duplicate run straddling each split point
 *          (in A, in B, in both), 5M elements and over the GPU's launch
 *          size (2^25).  Every answer and intersection count is also
 *          checked by the independent reference (test/common/keyrank_ref.h,
 *          no code shared with either engine); SETOPS_TEST_MUTATE set (not
 *          0) plants a defect in each answer before it does, and those
 *          checks must then fail.
 *   bench  first the host link's copy rates, each device alone and all at
 *          once; then N + N int4 keys (about two copies per key) in
 *          registered host memory, as the GPU service holds them: the four
 *          ops on one GPU and split over all GPUs, medians of 5, outputs
 *          compared, with the slowest part's phases.
 *
 * Usage: multi_device_test test | bench [N]
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <algorithm>
#include <vector>

#include "../../engine/gpu/setops_gpu.h"
extern "C"
{
#include "../../engine/cpu/engine.h"
}
#include "../common/testgen.h"
#include "../common/testcheck.h"
#include "../common/testclock.h"

#include <cuda_runtime.h>
#include "ref_check.h"


static const char *op_names[] = {"intersect", "union", "difference", "symdiff"};
static int	ndevices = 1;

/* answers compared in full (with the CPU engine, and with the reference) */
static long answers = 0;
static long ref_answers = 0;

template <typename Key>
static int64_t
cpu_run(SetopsOp op, const Key *a, int64_t na, const Key *b, int64_t nb, Key *out)
{
	if (sizeof(Key) == 8)
		return setops_cpu_setop_i64(op, (const int64_t *) a, na, (const int64_t *) b, nb,
									(int64_t *) out, NULL);
	return setops_cpu_setop_i32(op, (const int32_t *) a, na, (const int32_t *) b, nb,
								(int32_t *) out, NULL);
}

template <typename Key>
static void
gen(std::vector<Key> &v, int64_t n, TestShape shape, int64_t salt)
{
	v.resize(n + 1);
	if (sizeof(Key) == 8)
		testgen_i64((int64_t *) v.data(), n, shape, salt);
	else
		testgen_i32((int32_t *) v.data(), n, shape, salt);
	v.resize(n);
}

template <typename Key>
static void
one_case(SetopsOp op, const std::vector<Key> &a, const std::vector<Key> &b, int nparts,
		 const double *weights, const char *what)
{
	int64_t		bound = setop_output_bound(op, (int64_t) a.size(), (int64_t) b.size());
	std::vector<Key> want(bound + SETOPS_CPU_OUTPUT_SLACK);
	std::vector<Key> got(bound + 16, (Key) 0x5A5A5A5A);
	int64_t		n = cpu_run<Key>(op, a.data(), a.size(), b.data(), b.size(), want.data());
	SetopsGpuSetopArgs args;
	char		errbuf[SETOPS_GPU_ERRLEN] = "";
	int			devices[3];
	SetopsGpuStatus st;
	int			p;

	for (p = 0; p < nparts; p++)
		devices[p] = p % ndevices;
	memset(&args, 0, sizeof(args));
	args.op = op;
	args.key_type = sizeof(Key) == 8 ? SETOPS_KEY_INT64 : SETOPS_KEY_INT32;
	args.a = a.data();
	args.na = a.size();
	args.b = b.data();
	args.nb = b.size();
	args.out_keys = got.data();
	st = setops_gpu_setop_devices(&args, nparts, devices, weights, errbuf, sizeof(errbuf));
	CHECK(st == SETOPS_GPU_OK, "%s %s: status %d: %s", op_names[op], what, (int) st, errbuf);
	if (st != SETOPS_GPU_OK)
		return;
	CHECK(args.unsorted_arg == 0, "%s %s: reported unsorted", op_names[op], what);
	CHECK(args.out_count == n, "%s %s: %lld outputs, CPU %lld", op_names[op], what,
		  (long long) args.out_count, (long long) n);
	if (args.out_count == n)
	{
		CHECK(std::equal(want.begin(), want.begin() + n, got.begin()), "%s %s: keys differ",
			  op_names[op], what);
		answers++;
		CHECK(got[n] == (Key) 0x5A5A5A5A, "%s %s: written past the end", op_names[op], what);
	}

	KeyrankReport r;
	bool		ok = ref_check<Key>(op, a.data(), (int64_t) a.size(), b.data(), (int64_t) b.size(),
									got.data(), args.out_count, (int64_t) got.size(), NULL, NULL, NULL,
									0, NULL, &r);

	answers++;
	ref_answers++;
	CHECK(ok, "%s %s: against the reference: %s", op_names[op], what, r.msg);
}

/* The intersection count and overlaps split over the parts: no outputs. */
template <typename Key>
static void
count_case(const std::vector<Key> &a, const std::vector<Key> &b, int nparts,
		   const double *weights, const char *what)
{
	std::vector<Key> want(std::min(a.size(), b.size()) + SETOPS_CPU_OUTPUT_SLACK);
	int64_t		n = cpu_run<Key>(SETOPS_OP_INTERSECT, a.data(), a.size(), b.data(), b.size(),
								 want.data());
	int64_t		ref = ref_count(SETOPS_OP_INTERSECT, a.data(), (int64_t) a.size(), b.data(),
								(int64_t) b.size()) + (ref_mutating() ? 1 : 0);
	int			devices[3];

	for (int p = 0; p < nparts; p++)
		devices[p] = p % ndevices;
	for (int mode : {SETOPS_GPU_COUNT_INTERSECT, SETOPS_GPU_COUNT_OVERLAPS, SETOPS_GPU_COUNT_CONTAINS})
	{
		SetopsGpuSetopArgs args;
		char		errbuf[SETOPS_GPU_ERRLEN] = "";
		/* containment: 0 when b lies within a; a positive count otherwise */
		int64_t		expect = mode == SETOPS_GPU_COUNT_INTERSECT ? n :
			mode == SETOPS_GPU_COUNT_OVERLAPS ? n > 0 : n == (int64_t) b.size() ? 0 : -1;

		memset(&args, 0, sizeof(args));
		args.op = SETOPS_OP_INTERSECT;
		args.count_mode = mode;
		args.inputs_sorted = nparts == 3;	/* as the device cache's arrays are */
		args.key_type = sizeof(Key) == 8 ? SETOPS_KEY_INT64 : SETOPS_KEY_INT32;
		args.a = a.data();
		args.na = a.size();
		args.b = b.data();
		args.nb = b.size();
		SetopsGpuStatus st = setops_gpu_setop_devices(&args, nparts, devices, weights, errbuf,
													  sizeof(errbuf));

		answers++;
		CHECK(st == SETOPS_GPU_OK && args.unsorted_arg == 0 &&
			  (expect >= 0 ? args.out_count == expect : args.out_count > 0),
			  "count mode %d %s: status %d (%s), %lld, want %lld", mode, what, (int) st, errbuf,
			  (long long) args.out_count, (long long) expect);
		if (mode == SETOPS_GPU_COUNT_INTERSECT)
		{
			answers++;
			ref_answers++;
			CHECK(st == SETOPS_GPU_OK && args.out_count == ref,
				  "count %s: %lld, the reference %lld%s", what, (long long) args.out_count,
				  (long long) ref, ref_mutating() ? " (planted: one more)" : "");
		}
	}
}

/*
 * A duplicate run of len copies straddling each split point of nparts
 * parts at weights (the diagonals setops_gpu_setop_devices cuts at: the
 * weights' cumulative shares of na + nb), of kind `kind`; every operation
 * and the counts.
 */
template <typename Key>
static void
split_runs_case(int64_t na, int64_t nb, int nparts, const double *weights, int kind)
{
	std::vector<Key> a(na + 1),
				b(nb + 1);
	int64_t		total = na + nb,
				cuts[3];
	int			kinds[3];
	double		total_weight = 0,
				cum = 0;
	const int64_t len = 3001;
	char		what[160];
	int			straddled;

	for (int p = 0; p < nparts; p++)
		total_weight += weights[p];
	for (int p = 0; p + 1 < nparts; p++)
	{
		cum += weights[p];
		cuts[p] = (int64_t) (total * (cum / total_weight));
		kinds[p] = kind;
	}
	if (sizeof(Key) == 8)
		straddled = runsgen_i64((int64_t *) a.data(), na, (int64_t *) b.data(), nb, cuts, kinds,
								nparts - 1, len, (uint64_t) total + kind);
	else
		straddled = runsgen_i32((int32_t *) a.data(), na, (int32_t *) b.data(), nb, cuts, kinds,
								nparts - 1, len, (uint64_t) total + kind);
	a.resize(na);
	b.resize(nb);
	snprintf(what, sizeof(what), "%s %lld+%lld, %d parts (weights %g,%g,%g), a run %s across each split",
			 sizeof(Key) == 8 ? "int64" : "int32", (long long) na, (long long) nb, nparts, weights[0],
			 weights[1], nparts > 2 ? weights[2] : 0.0, runsgen_kind_names[kind]);
	CHECK(straddled == nparts - 1, "%s: %d runs straddle the splits", what, straddled);
	for (int op = 0; op < 4; op++)
		one_case<Key>((SetopsOp) op, a, b, nparts, weights, what);
	count_case<Key>(a, b, nparts, weights, what);
}

template <typename Key>
static void
split_runs_cases(void)
{
	static const double even[] = {1, 1, 1};
	static const double uneven[] = {1, 3, 2};
	const int64_t sizes[][2] = {{3000000, 2000001}, {gpu_chunk / 2 + 3000, gpu_chunk / 2 + 5001}};
	int			kind = 0;

	for (int si = 0; si < 2; si++)
		for (int parts = 2; parts <= 3; parts++)
			for (int w = 0; w < 2; w++)
				split_runs_case<Key>(sizes[si][0], sizes[si][1], parts, w ? uneven : even,
									 kind++ % RUNS_KINDS);
	printf("%s: runs across the split points checked\n", sizeof(Key) == 8 ? "int64" : "int32");
	fflush(stdout);
}

template <typename Key>
static void
test_type(void)
{
	static const int64_t sizes[] = {0, 1, 2, 1000, 4095, 4096, 4097, 100000, 1234567};
	static const double even[] = {1, 1, 1};
	static const double uneven[] = {1, 3, 2};
	const char *tname = sizeof(Key) == 8 ? "int64" : "int32";

	for (int shape = 0; shape < SHAPE_COUNT; shape++)
		for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++)
		{
			std::vector<Key> a,
						b;
			char		what[160];

			gen<Key>(a, sizes[si], (TestShape) shape, 1);
			gen<Key>(b, sizes[(si + 3) % (sizeof(sizes) / sizeof(sizes[0]))], (TestShape) shape, 2);
			for (int op = 0; op < 4; op++)
				for (int parts = 2; parts <= 3; parts++)
					for (int w = 0; w < 2; w++)
					{
						snprintf(what, sizeof(what), "%s %s %zu+%zu, %d parts, %s weights", tname,
								 testgen_shape_names[shape], a.size(), b.size(), parts,
								 w ? "uneven" : "even");
						one_case<Key>((SetopsOp) op, a, b, parts, w ? uneven : even, what);
						if (op == 0)
							count_case<Key>(a, b, parts, w ? uneven : even, what);
					}
		}

	/* an inversion at a part boundary (the middle, with even weights) */
	{
		std::vector<Key> a,
					b;
		SetopsGpuSetopArgs args;
		std::vector<Key> out;
		char		errbuf[SETOPS_GPU_ERRLEN];
		int			devices[2] = {0, 1 % ndevices};
		int64_t		n = 200000;

		gen<Key>(a, n, SHAPE_UNIFORM_WIDE, 3);
		gen<Key>(b, n, SHAPE_UNIFORM_WIDE, 4);
		std::swap(a[n / 2], a[n / 2 - 1]);
		if (a[n / 2] == a[n / 2 - 1])
			a[n / 2] = a[n / 2 - 1] - 1;
		out.resize(2 * n + 16);
		memset(&args, 0, sizeof(args));
		args.op = SETOPS_OP_UNION;
		args.key_type = sizeof(Key) == 8 ? SETOPS_KEY_INT64 : SETOPS_KEY_INT32;
		args.a = a.data();
		args.na = n;
		args.b = b.data();
		args.nb = n;
		args.out_keys = out.data();
		CHECK(setops_gpu_setop_devices(&args, 2, devices, (const double[]) {1, 1}, errbuf,
									   sizeof(errbuf)) == SETOPS_GPU_OK, "%s inversion: %s", tname, errbuf);
		CHECK(args.unsorted_arg == 1 && args.unsorted_pos == n / 2,
			  "%s inversion at %lld: reported arg %d pos %lld", tname, (long long) n / 2,
			  args.unsorted_arg, (long long) args.unsorted_pos);
	}
}

static double
median(std::vector<double> v)
{
	std::sort(v.begin(), v.end());
	return v[v.size() / 2];
}

/*
 * Host -> device copy rate from registered memory: each device alone, then
 * all at once.  If all at once is no faster than one, the devices share
 * the host link and no split of host-resident data can beat it.
 */
static void
link_rates(const char *host, size_t bytes)
{
	std::vector<void *> dev(ndevices);
	std::vector<cudaStream_t> streams(ndevices);
	double		t0;

	for (int d = 0; d < ndevices; d++)
	{
		cudaSetDevice(d);
		cudaMalloc(&dev[d], bytes);
		cudaStreamCreateWithFlags(&streams[d], cudaStreamNonBlocking);
		cudaMemcpyAsync(dev[d], host, bytes, cudaMemcpyHostToDevice, streams[d]);	/* warm */
		cudaStreamSynchronize(streams[d]);
	}
	for (int d = 0; d < ndevices; d++)
	{
		cudaSetDevice(d);
		t0 = now_ms();
		cudaMemcpyAsync(dev[d], host, bytes, cudaMemcpyHostToDevice, streams[d]);
		cudaStreamSynchronize(streams[d]);
		printf("host -> device %d alone: %.1f GB/s\n", d, bytes / (now_ms() - t0) / 1e6);
		t0 = now_ms();
		cudaMemcpyAsync((void *) host, dev[d], bytes, cudaMemcpyDeviceToHost, streams[d]);
		cudaStreamSynchronize(streams[d]);
		printf("device %d -> host alone: %.1f GB/s\n", d, bytes / (now_ms() - t0) / 1e6);
	}
	t0 = now_ms();
	for (int d = 0; d < ndevices; d++)
	{
		cudaSetDevice(d);
		cudaMemcpyAsync(dev[d], host, bytes, cudaMemcpyHostToDevice, streams[d]);
	}
	for (int d = 0; d < ndevices; d++)
	{
		cudaSetDevice(d);
		cudaStreamSynchronize(streams[d]);
	}
	printf("host -> all %d devices at once: %.1f GB/s in all\n", ndevices,
		   ndevices * bytes / (now_ms() - t0) / 1e6);
	for (int d = 0; d < ndevices; d++)
	{
		cudaSetDevice(d);
		cudaFree(dev[d]);
		cudaStreamDestroy(streams[d]);
	}
	cudaSetDevice(0);
}

static int
bench(int64_t n)
{
	size_t		bytes = n * sizeof(int32_t);
	/* one host block for inputs and outputs, registered as the service
	 * registers its arena */
	char	   *host = (char *) malloc(bytes * 6 + 4096);
	int32_t    *a = (int32_t *) host,
			   *b = a + n,
			   *out1 = b + n,
			   *out2 = out1 + 2 * n;
	int			devices[8];
	double		weights[8];
	char		errbuf[SETOPS_GPU_ERRLEN];
	int32_t		x = 0,
				y = 0;
	int64_t		i;

	/* ascending walks: about two copies per key, the two arrays overlapping */
	for (i = 0; i < n; i++)
	{
		x += (int32_t) (testgen_rnd() % 2);
		y += (int32_t) (testgen_rnd() % 2);
		a[i] = x;
		b[i] = y;
	}
	if (setops_gpu_register_host(host, bytes * 6, errbuf, sizeof(errbuf)) != SETOPS_GPU_OK)
		printf("(inputs not registered: %s)\n", errbuf);
	for (int d = 0; d < ndevices; d++)
	{
		devices[d] = d;
		weights[d] = 1;
	}
	link_rates(host, bytes);
	printf("%lld + %lld int4 keys, %d GPU(s)\n", (long long) n, (long long) n, ndevices);
	printf("%-10s %12s %12s %8s %10s\n", "op", "1 GPU ms", "all GPUs ms", "speedup", "outputs");
	for (int op = 0; op < 4; op++)
	{
		std::vector<double> t1,
					t2;
		int64_t		c1 = -1,
					c2 = -2;

		for (int r = 0; r < 6; r++)
		{
			SetopsGpuSetopArgs args;
			double		t0;

			memset(&args, 0, sizeof(args));
			args.op = (SetopsOp) op;
			args.key_type = SETOPS_KEY_INT32;
			args.a = a;
			args.na = n;
			args.b = b;
			args.nb = n;
			args.out_keys = out1;
			setops_gpu_use_device(0, errbuf, sizeof(errbuf));
			t0 = now_ms();
			if (setops_gpu_setop(&args, errbuf, sizeof(errbuf)) != SETOPS_GPU_OK)
			{
				printf("one GPU failed: %s\n", errbuf);
				return 1;
			}
			if (r > 0)
				t1.push_back(now_ms() - t0);
			c1 = args.out_count;
			args.out_keys = out2;
			t0 = now_ms();
			if (setops_gpu_setop_devices(&args, ndevices, devices, weights, errbuf,
										 sizeof(errbuf)) != SETOPS_GPU_OK)
			{
				printf("split failed: %s\n", errbuf);
				return 1;
			}
			if (r > 0)
				t2.push_back(now_ms() - t0);
			c2 = args.out_count;
			if (r == 5)
				printf("  (%s split, slowest part: upload %.2f ms, kernel %.2f ms, download %.2f ms)\n",
					   op_names[op], args.ms_upload, args.ms_kernel, args.ms_download);
		}
		if (c1 != c2 || memcmp(out1, out2, c1 * sizeof(int32_t)) != 0)
		{
			printf("%s: outputs differ (%lld, %lld)\n", op_names[op], (long long) c1, (long long) c2);
			return 1;
		}
		printf("%-10s %12.2f %12.2f %8.2f %10lld\n", op_names[op], median(t1), median(t2),
			   median(t1) / median(t2), (long long) c1);
	}
	return 0;
}

int
main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "test";
	char		errbuf[SETOPS_GPU_ERRLEN];

	ndevices = setops_gpu_device_count(errbuf, sizeof(errbuf));
	if (ndevices == 0)
	{
		printf("no GPU: %s\n", errbuf);
		return 1;
	}
	if (strcmp(mode, "bench") == 0)
		return bench(argc > 2 ? atoll(argv[2]) : 200000000);
	printf("%d GPU(s)%s\n", ndevices,
		   ref_mutating() ? "; MUTATED (SETOPS_TEST_MUTATE): the reference's checks must fail" : "");
	test_type<int32_t>();
	test_type<int64_t>();
	split_runs_cases<int32_t>();
	split_runs_cases<int64_t>();
	printf("multi_device_test: %ld answers compared in full (%ld of them by the independent reference)\n",
		   answers, ref_answers);
	printf("%ld passed, %ld failed\n", passed, failed);
	return failed > 0;
}
