/*
 * kernel_test.cu
 *	  Tests of the GPU backend against the CPU engine (itself tested
 *	  against the textbook std::set_* loops by test/unit).
 *
 *   kernel level  device buffers filled with poison before each launch:
 *                 the output count, every output key and value, and that
 *                 nothing past the count was written;
 *   API level     host arrays through setops_gpu_setop (chunking, order
 *                 checks, pairs with values of 2, 4, 8 and 16 bytes);
 *   order checks  one inversion placed at the start, tile boundaries,
 *                 chunk boundaries and the end: the exact position found;
 *   sort/distinct against the CPU engine;
 *   recovery      an injected device fault returns an error and the next
 *                 call works; device memory is flat across 10,000 calls;
 *   counts        the intersection count and overlaps (count_kernel.cu),
 *                 kernel and API level, order breaks, a false "yes" never;
 *   large         up to 300M elements, crossing chunk boundaries;
 *   across cuts   inputs (runsgen.h) crossing the GPU's launch size
 *                 (GPU_CHUNK, 2^25 elements of A and B together) once or
 *                 twice, in A alone, B alone, or only in na + nb, with a
 *                 duplicate run straddling each GPU chunk boundary (in A
 *                 alone, B alone, both) and every quarter of the CPU
 *                 engine's chunk; int4 and int8, every operation, pairs
 *                 with values of 4, 8 and 16 bytes, the counts.
 *
 * Every answer through the API (api_case, count_api_case, so the large
 * ones) is also checked by the independent reference
 * (test/common/keyrank_ref.h: a run-length merge sharing no code with
 * either engine), keys, values and counts, and so is the CPU engine's
 * answer it is compared with.
 *
 * Usage: kernel_test [quick|full|large]   (quick: for compute-sanitizer;
 * large: the large and across-cuts cases alone)
 * SETOPS_TEST_MUTATE set (not 0): a defect (a dropped copy, an extra copy,
 * a wrong value, swapped ranks) is planted in each answer before the
 * reference checks it: those checks must then fail.
 * Prints how many answers were compared in full (and how many of them by
 * the reference), how many partition boundaries, then "N passed, N failed";
 * exits non-zero on failure.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <algorithm>
#include <utility>
#include <vector>

#include "../../engine/gpu/gpu_internal.h"
#include "../../engine/gpu/partition.cuh"
extern "C"
{
#include "../../engine/cpu/engine.h"
}
#include "../common/testgen.h"
#include "../common/testcheck.h"
#include "../common/testclock.h"

#include "cuda_ok.h"
#include "ref_check.h"

static const char *op_names[] = {"intersect", "union", "difference", "symdiff", "merge"};

/*
 * What the checks are: answers (one call's whole result: every output,
 * value and count, or an order report, or a sort) and, of those, the ones
 * the independent reference checked; partition boundaries (one split of
 * the partition kernel against the scalar search); the rest are other
 * checks (plans, memory, cancel, recovery).
 */
static long answers = 0;
static long ref_answers = 0;
static long boundaries = 0;

#define ANSWER_CHECK(cond, ...)	do { answers++; CHECK(cond, __VA_ARGS__); } while (0)

/* ---- the CPU answer: keys and combined source positions ---- */

template <typename Key> struct Cpu;
template <> struct Cpu<int32_t>
{
	static int64_t run(SetopsOp op, const int32_t *a, int64_t na, const int32_t *b, int64_t nb,
					   int32_t *out, int64_t *pos)
	{
		return setops_cpu_setop_i32(op, a, na, b, nb, out, pos);
	}
	static const SetopsKeyType type = SETOPS_KEY_INT32;
};
template <> struct Cpu<int64_t>
{
	static int64_t run(SetopsOp op, const int64_t *a, int64_t na, const int64_t *b, int64_t nb,
					   int64_t *out, int64_t *pos)
	{
		return setops_cpu_setop_i64(op, a, na, b, nb, out, pos);
	}
	static const SetopsKeyType type = SETOPS_KEY_INT64;
};

static void
gen(std::vector<int32_t> &v, int64_t n, TestShape s, int64_t salt)
{
	v.resize(n + 1);
	testgen_i32(v.data(), n, s, salt);
	v.resize(n);
}

static void
gen(std::vector<int64_t> &v, int64_t n, TestShape s, int64_t salt)
{
	v.resize(n + 1);
	testgen_i64(v.data(), n, s, salt);
	v.resize(n);
}

/*
 * The partition kernel (a lane group a boundary) against the scalar
 * Balanced Path search of balanced_path.h, as the CPU engine runs it, on
 * every boundary of several tile sizes: the same split and star, for
 * Balanced Path, the no-duplicates search and Merge Path: as the sizes
 * choose the first stage, with samples at a small stride, and without.  With A out of
 * order the splits are garbage but must stay in range.
 */
static int
host_split(const int32_t *a, int na, const int32_t *b, int nb, int d, int *star)
{
	return setops_balanced_path_i32(a, na, b, nb, d, 4, star);
}

static int
host_split(const int64_t *a, int na, const int64_t *b, int nb, int d, int *star)
{
	return setops_balanced_path_i64(a, na, b, nb, d, 4, star);
}

static int
host_merge(const int32_t *a, int na, const int32_t *b, int nb, int d)
{
	return setops_merge_path_i32(a, na, b, nb, d);
}

static int
host_merge(const int64_t *a, int na, const int64_t *b, int nb, int d)
{
	return setops_merge_path_i64(a, na, b, nb, d);
}

template <typename Key>
static void
partition_case(const std::vector<Key> &a, const std::vector<Key> &b, int nv, bool sorted,
			   const char *what)
{
	int			na = (int) a.size(),
				nb = (int) b.size(),
				nbound = (na + nb + nv - 1) / nv + 1;
	Key		   *d_a,
			   *d_b,
			   *d_samples;
	int		   *d_bound;
	std::vector<int> got(nbound);

	CUDA_OK(cudaMalloc(&d_a, (na + 1) * sizeof(Key)));
	CUDA_OK(cudaMalloc(&d_b, (nb + 1) * sizeof(Key)));
	CUDA_OK(cudaMalloc(&d_bound, nbound * sizeof(int)));
	/* room for samples at the smallest stride tested, 16 */
	CUDA_OK(cudaMalloc(&d_samples, (partition_samples(na, 4) +
									partition_samples(nb, 4) + 1) * sizeof(Key)));
	CUDA_OK(cudaMemcpy(d_a, a.data(), na * sizeof(Key), cudaMemcpyHostToDevice));
	CUDA_OK(cudaMemcpy(d_b, b.data(), nb * sizeof(Key), cudaMemcpyHostToDevice));
	for (int mode = 0; mode < 9; mode++)
	{
		int			bad = 0;
		/* modes 0..2 as the sizes choose (no samples under 4M), 3..5 the
		 * same with samples at stride 16, 6..8 without samples */
		int			shift = mode >= 3 ? 4 : -1;
		Key		   *samples = mode < 6 ? d_samples : NULL;

		/* mode % 3: 0 Balanced Path, 1 no duplicates (Merge Path, starred on ties), 2 merge */
		if (mode % 3 == 0)
			CUDA_OK((setops::launch_partition<Key, true, false>(d_a, na, d_b, nb, nv, nbound, d_bound,
																NULL, 0, samples, 0, shift)));
		else if (mode % 3 == 1)
			CUDA_OK((setops::launch_partition<Key, false, false>(d_a, na, d_b, nb, nv, nbound, d_bound,
																 NULL, 0, samples, 0, shift)));
		else
			CUDA_OK((setops::launch_partition<Key, false, true>(d_a, na, d_b, nb, nv, nbound, d_bound,
																NULL, 0, samples, 0, shift)));
		CUDA_OK(cudaGetLastError());
		CUDA_OK(cudaMemcpy(got.data(), d_bound, nbound * sizeof(int), cudaMemcpyDeviceToHost));
		for (int i = 0; i < nbound && bad < 3; i++)
		{
			int			d = (int) std::min<int64_t>((int64_t) i * nv, (int64_t) na + nb);
			int			ai = got[i] & 0x7fffffff,
						star = (int) ((unsigned) got[i] >> 31),
						want_star = 0,
						want;

			if (!sorted)
			{
				bool		ok = ai >= 0 && ai <= na && d - ai + star >= 0 && d - ai + star <= nb;

				boundaries++;
				CHECK(ok, "partition %s nv %d mode %d boundary %d: ai %d star %d out of range",
					  what, nv, mode, i, ai, star);
				bad += !ok;
				continue;
			}
			if (mode % 3 == 0)
				want = host_split(a.data(), na, b.data(), nb, d, &want_star);
			else
			{
				want = host_merge(a.data(), na, b.data(), nb, d);
				want_star = mode % 3 == 1 && want > 0 && d - want < nb && !(a[want - 1] < b[d - want]);
			}
			boundaries++;
			CHECK(ai == want && star == want_star,
				  "partition %s nv %d mode %d boundary %d (d %d): got %d*%d, want %d*%d",
				  what, nv, mode, i, d, ai, star, want, want_star);
			bad += !(ai == want && star == want_star);
		}
	}
	CUDA_OK(cudaFree(d_a));
	CUDA_OK(cudaFree(d_b));
	CUDA_OK(cudaFree(d_bound));
	CUDA_OK(cudaFree(d_samples));
}

template <typename Key>
static void
partition_cases(int rounds, bool quick)
{
	const int	nvs[] = {5504, 2945, 64, 3, 1};
	int			n_nv = quick ? 2 : 5;
	int64_t		max_n = quick ? 20000 : 300000;
	const int64_t fixed[][2] = {{0, 0}, {0, 5}, {5, 0}, {1, 1}, {5504, 5504}, {5503, 5505},
								{200000, 3}, {3, 200000}};
	char		what[96];

	for (int shape = 0; shape < SHAPE_COUNT; shape++)
		for (int r = 0; r < rounds + (int) (sizeof(fixed) / sizeof(fixed[0])); r++)
		{
			std::vector<Key> a,
						b;
			int64_t		na = r < rounds ? testgen_range(0, max_n) : fixed[r - rounds][0],
						nb = r < rounds ? testgen_range(0, max_n) : fixed[r - rounds][1];
			/* now and then B of another shape: runs on one side only */
			TestShape	sb = r % 3 == 2 ? SHAPE_LONG_RUNS : (TestShape) shape;

			gen(a, na, (TestShape) shape, 2 * r + 1);
			gen(b, nb, sb, 2 * r + 2);
			snprintf(what, sizeof(what), "%s %s/%s %lld+%lld", sizeof(Key) == 8 ? "int8" : "int4",
					 testgen_shape_names[shape], testgen_shape_names[sb], (long long) na,
					 (long long) nb);
			for (int v = 0; v < n_nv; v++)
				partition_case(a, b, nvs[v], true, what);
			if (na > 1 && r == 0)
			{
				std::reverse(a.begin(), a.end());
				partition_case(a, b, 64, a.front() == a.back(), what);
			}
		}
}

/*
 * Kernel level: device buffers poisoned with 0xA5 bytes; values are the
 * combined source position (a 64-bit word) so the gathered values name the
 * exact copy each output came from.
 */
template <typename Key>
static void
kernel_case(SetopsOp op, const std::vector<Key> &a, const std::vector<Key> &b, bool duplicates,
			bool with_values, const char *what, bool inputs_sorted = false)
{
	int64_t		na = a.size(),
				nb = b.size();
	int64_t		bound = setop_output_bound(op, na, nb);
	const int64_t guard = 64;
	std::vector<Key> ref(bound + SETOPS_CPU_OUTPUT_SLACK);
	std::vector<int64_t> ref_pos(bound + SETOPS_CPU_OUTPUT_SLACK);
	int64_t		nref = Cpu<Key>::run(op, a.data(), na, b.data(), nb, ref.data(), ref_pos.data());
	SetopLaunch l;
	size_t		scratch = setop_scratch_bytes(Cpu<Key>::type, (int) na, (int) nb);
	Key		   *d_a,
			   *d_b,
			   *d_out;
	int64_t    *d_av = NULL,
			   *d_bv = NULL,
			   *d_ov = NULL;
	void	   *d_scratch;
	SetopResults res;

	if (with_values && op == SETOPS_OP_MERGE)
		return;
	CUDA_OK(cudaMalloc(&d_a, (na + 1) * sizeof(Key)));
	CUDA_OK(cudaMalloc(&d_b, (nb + 1) * sizeof(Key)));
	CUDA_OK(cudaMalloc(&d_out, (bound + guard) * sizeof(Key)));
	CUDA_OK(cudaMalloc(&d_scratch, scratch));
	CUDA_OK(cudaMemcpy(d_a, a.data(), na * sizeof(Key), cudaMemcpyHostToDevice));
	CUDA_OK(cudaMemcpy(d_b, b.data(), nb * sizeof(Key), cudaMemcpyHostToDevice));
	CUDA_OK(cudaMemset(d_out, 0xA5, (bound + guard) * sizeof(Key)));
	CUDA_OK(cudaMemset(d_scratch, 0xA5, scratch));

	memset(&l, 0, sizeof(l));
	l.op = op;
	l.key_type = Cpu<Key>::type;
	l.duplicates = duplicates;
	l.inputs_sorted = inputs_sorted;
	l.a = d_a;
	l.na = (int) na;
	l.b = d_b;
	l.nb = (int) nb;
	l.out = d_out;
	l.scratch = d_scratch;
	if (with_values)
	{
		std::vector<int64_t> av(na), bv(nb);

		for (int64_t i = 0; i < na; i++)
			av[i] = i;
		for (int64_t j = 0; j < nb; j++)
			bv[j] = na + j;
		CUDA_OK(cudaMalloc(&d_av, (na + 1) * 8));
		CUDA_OK(cudaMalloc(&d_bv, (nb + 1) * 8));
		CUDA_OK(cudaMalloc(&d_ov, (bound + guard) * 8));
		CUDA_OK(cudaMemcpy(d_av, av.data(), na * 8, cudaMemcpyHostToDevice));
		CUDA_OK(cudaMemcpy(d_bv, bv.data(), nb * 8, cudaMemcpyHostToDevice));
		CUDA_OK(cudaMemset(d_ov, 0xA5, (bound + guard) * 8));
		l.a_vals = d_av;
		l.b_vals = d_bv;
		l.val_stride = 8;
		l.out_vals = d_ov;
	}
	CUDA_OK(setop_enqueue(&l, 0));
	CUDA_OK(cudaDeviceSynchronize());
	CUDA_OK(cudaMemcpy(&res, setop_results(d_scratch), sizeof(res), cudaMemcpyDeviceToHost));

	std::vector<Key> out(bound + guard);
	std::vector<int64_t> ov(with_values ? bound + guard : 0);
	Key			poison;

	memset(&poison, 0xA5, sizeof(poison));
	CUDA_OK(cudaMemcpy(out.data(), d_out, (bound + guard) * sizeof(Key), cudaMemcpyDeviceToHost));
	if (with_values)
		CUDA_OK(cudaMemcpy(ov.data(), d_ov, (bound + guard) * 8, cudaMemcpyDeviceToHost));

	int64_t		bad = -1;

	for (int64_t i = 0; i < nref && i < res.total && bad < 0; i++)
		if (out[i] != ref[i] || (with_values && ov[i] != ref_pos[i]))
			bad = i;
	bool		untouched = true;

	for (int64_t i = res.total; i < bound + guard && i >= 0; i++)
		if (out[i] != poison)
			untouched = false;
	ANSWER_CHECK(res.unsorted == 0 && res.total == nref && bad < 0 && untouched,
		  "kernel %s %s dups=%d vals=%d sorted=%d na=%" PRId64 " nb=%" PRId64 ": total %d want %" PRId64
		  ", unsorted %d, first bad %" PRId64 "%s",
		  op_names[op], what, duplicates, with_values, inputs_sorted, na, nb, res.total, nref, res.unsorted,
		  bad, untouched ? "" : ", wrote past the count");

	cudaFree(d_a);
	cudaFree(d_b);
	cudaFree(d_out);
	cudaFree(d_scratch);
	if (with_values)
	{
		cudaFree(d_av);
		cudaFree(d_bv);
		cudaFree(d_ov);
	}
}

/* API level: host arrays through chunking and transfers; pairs with values
 * of val_stride bytes derived from the source position. */
template <typename Key>
static void
api_case(SetopsOp op, const std::vector<Key> &a, const std::vector<Key> &b, int val_stride,
		 const char *what)
{
	int64_t		na = a.size(),
				nb = b.size();
	int64_t		bound = setop_output_bound(op, na, nb);
	std::vector<Key> ref(bound + SETOPS_CPU_OUTPUT_SLACK);
	std::vector<int64_t> ref_pos(bound + SETOPS_CPU_OUTPUT_SLACK);
	int64_t		nref = Cpu<Key>::run(op, a.data(), na, b.data(), nb, ref.data(), ref_pos.data());
	std::vector<Key> out(bound + 8);
	std::vector<uint8_t> av, bv, ov;
	SetopsGpuSetopArgs args;
	char		errbuf[SETOPS_GPU_ERRLEN];
	Key			poison;

	memset(&poison, 0x5A, sizeof(poison));
	for (auto &x : out)
		x = poison;
	memset(&args, 0, sizeof(args));
	args.op = op;
	args.key_type = Cpu<Key>::type;
	args.a = a.data();
	args.na = na;
	args.b = b.data();
	args.nb = nb;
	args.out_keys = out.data();
	if (val_stride)
	{
		/* value bytes: the position's low bytes, repeated */
		av.resize(na * val_stride + 1);
		bv.resize(nb * val_stride + 1);
		ov.assign((bound + 1) * val_stride, 0x5A);
		for (int64_t i = 0; i < na + nb; i++)
			for (int t = 0; t < val_stride; t++)
				(i < na ? av[i * val_stride + t] : bv[(i - na) * val_stride + t]) =
					(uint8_t) (i >> (8 * (t % 4)));
		args.a_vals = av.data();
		args.b_vals = bv.data();
		args.val_stride = val_stride;
		args.out_vals = ov.data();
	}
	SetopsGpuStatus st = setops_gpu_setop(&args, errbuf, sizeof(errbuf));

	int64_t		bad = -1;

	for (int64_t i = 0; st == SETOPS_GPU_OK && i < nref && i < args.out_count && bad < 0; i++)
	{
		if (out[i] != ref[i])
			bad = i;
		for (int t = 0; t < val_stride && bad < 0; t++)
			if (ov[i * val_stride + t] != (uint8_t) (ref_pos[i] >> (8 * (t % 4))))
				bad = i;
	}
	bool		untouched = args.out_count >= 0 && args.out_count <= bound &&
		out[args.out_count] == poison;

	ANSWER_CHECK(st == SETOPS_GPU_OK && args.unsorted_arg == 0 && args.out_count == nref && bad < 0 &&
				 untouched,
				 "api %s %s stride=%d na=%" PRId64 " nb=%" PRId64 ": status %d (%s) count %" PRId64
				 " want %" PRId64 ", first bad %" PRId64,
				 op_names[op], what, val_stride, na, nb, (int) st, st ? errbuf : "", args.out_count,
				 nref, bad);

	/*
	 * The independent reference: the GPU's answer (keys and value bytes),
	 * then the CPU engine's (keys and source positions), so that a fault
	 * both engines share does not pass.
	 */
	KeyrankReport r;

	if (st == SETOPS_GPU_OK && args.unsorted_arg == 0)
	{
		bool		ok = ref_check<Key>(op, a.data(), na, b.data(), nb, out.data(), args.out_count,
										(int64_t) out.size(), val_stride ? av.data() : NULL,
										val_stride ? bv.data() : NULL, val_stride ? ov.data() : NULL,
										val_stride, NULL, &r);

		answers++;
		ref_answers++;
		CHECK(ok, "api %s %s stride=%d na=%" PRId64 " nb=%" PRId64 ", GPU against the reference: %s",
			  op_names[op], what, val_stride, na, nb, r.msg);
	}
	bool		ok = ref_check<Key>(op, a.data(), na, b.data(), nb, ref.data(), nref,
									(int64_t) ref.size(), NULL, NULL, NULL, 0, ref_pos.data(), &r);

	answers++;
	ref_answers++;
	CHECK(ok, "api %s %s na=%" PRId64 " nb=%" PRId64 ", CPU engine against the reference: %s",
		  op_names[op], what, na, nb, r.msg);
}

template <typename Key>
static void
order_case(std::vector<Key> a, std::vector<Key> b, int which, int64_t at, const char *what,
		   SetopsOp op = SETOPS_OP_UNION)
{
	std::vector<Key> &v = which == 1 ? a : b;
	std::vector<Key> out(a.size() + b.size() + 8);
	SetopsGpuSetopArgs args;
	char		errbuf[SETOPS_GPU_ERRLEN];

	if (at <= 0 || at >= (int64_t) v.size())
		return;
	/* make v[at] smaller than v[at - 1] */
	v[at] = v[at - 1] - 1;
	for (int64_t i = at + 1; i < (int64_t) v.size(); i++)
		if (v[i] < v[at])
			v[i] = v[at];
	memset(&args, 0, sizeof(args));
	args.op = op;
	args.key_type = Cpu<Key>::type;
	args.a = a.data();
	args.na = a.size();
	args.b = b.data();
	args.nb = b.size();
	args.out_keys = out.data();
	SetopsGpuStatus st = setops_gpu_setop(&args, errbuf, sizeof(errbuf));

	ANSWER_CHECK(st == SETOPS_GPU_OK && args.unsorted_arg == which && args.unsorted_pos == at,
		  "order %s %s: inversion in arg %d at %" PRId64 ": status %d arg %d pos %" PRId64,
		  op_names[op], what, which, at, (int) st, args.unsorted_arg, args.unsorted_pos);
}

template <typename Key>
static void
sort_case(int64_t n, TestShape shape, bool distinct)
{
	std::vector<Key> v;
	std::vector<Key> tmp(n + 1);

	gen(v, n, shape, n);
	/* shuffle: the reference is the CPU engine's sort of the same input */
	for (int64_t i = n - 1; i > 0; i--)
		std::swap(v[i], v[testgen_rnd() % (i + 1)]);
	std::vector<Key> ref = v;
	int64_t		nref = n;

	if (sizeof(Key) == 8)
	{
		setops_cpu_sort_i64((int64_t *) ref.data(), n, (int64_t *) tmp.data());
		if (distinct)
			nref = setops_cpu_unique_i64((int64_t *) ref.data(), n);
	}
	else
	{
		setops_cpu_sort_i32((int32_t *) ref.data(), n, (int32_t *) tmp.data());
		if (distinct)
			nref = setops_cpu_unique_i32((int32_t *) ref.data(), n);
	}
	int64_t		m = n;
	char		errbuf[SETOPS_GPU_ERRLEN];
	SetopsGpuStatus st = setops_gpu_sort(Cpu<Key>::type, v.data(), &m, distinct, errbuf,
										 sizeof(errbuf));

	ANSWER_CHECK(st == SETOPS_GPU_OK && m == nref && memcmp(v.data(), ref.data(), nref * sizeof(Key)) == 0,
		  "sort %s n=%" PRId64 " distinct=%d: status %d (%s) m=%" PRId64 " want %" PRId64,
		  testgen_shape_names[shape], n, distinct, (int) st, st ? errbuf : "", m, nref);
}

/*
 * Counts (count_kernel.cu), kernel level: the intersection count against
 * the CPU engine's intersection, and overlaps (a positive count exactly
 * when that intersection is not empty).  The output buffer is NULL: a
 * count that wrote anything would fault (and memcheck names it).
 */
template <typename Key>
static void
count_kernel_case(const std::vector<Key> &a, const std::vector<Key> &b, bool duplicates,
				  const char *what)
{
	int64_t		na = a.size(),
				nb = b.size();
	std::vector<Key> ref(std::min(na, nb) + SETOPS_CPU_OUTPUT_SLACK);
	int64_t		nref = Cpu<Key>::run(SETOPS_OP_INTERSECT, a.data(), na, b.data(), nb,
									 ref.data(), NULL);
	size_t		scratch = setop_scratch_bytes(Cpu<Key>::type, (int) na, (int) nb);
	Key		   *d_a,
			   *d_b;
	void	   *d_scratch;

	CHECK(count_scratch_bytes(Cpu<Key>::type, (int) na, (int) nb) <= scratch,
		  "count scratch larger than the operation's");
	CUDA_OK(cudaMalloc(&d_a, (na + 1) * sizeof(Key)));
	CUDA_OK(cudaMalloc(&d_b, (nb + 1) * sizeof(Key)));
	CUDA_OK(cudaMalloc(&d_scratch, scratch));
	CUDA_OK(cudaMemcpy(d_a, a.data(), na * sizeof(Key), cudaMemcpyHostToDevice));
	CUDA_OK(cudaMemcpy(d_b, b.data(), nb * sizeof(Key), cudaMemcpyHostToDevice));
	/* every mode with the inputs known in order (as for the device
	 * cache's arrays: containment may then stop early) and not */
	for (int run = 0; run < 6; run++)
	{
		int			mode = SETOPS_GPU_COUNT_INTERSECT + run / 2;
		SetopLaunch l;
		SetopResults res;

		CUDA_OK(cudaMemset(d_scratch, 0xA5, scratch));
		memset(&l, 0, sizeof(l));
		l.op = SETOPS_OP_INTERSECT;
		l.key_type = Cpu<Key>::type;
		l.duplicates = duplicates;
		l.count_mode = mode;
		l.inputs_sorted = run % 2 == 1;
		l.a = d_a;
		l.na = (int) na;
		l.b = d_b;
		l.nb = (int) nb;
		l.scratch = d_scratch;
		CUDA_OK(setop_enqueue(&l, 0));
		CUDA_OK(cudaMemcpy(&res, setop_results(d_scratch), sizeof(res), cudaMemcpyDeviceToHost));
		answers++;
		if (mode == SETOPS_GPU_COUNT_INTERSECT)
			CHECK(res.unsorted == 0 && res.total == nref,
				  "count kernel %s na=%" PRId64 " nb=%" PRId64 " dup=%d: %d (flags %d), want %" PRId64,
				  what, na, nb, (int) duplicates, res.total, res.unsorted, nref);
		else if (mode == SETOPS_GPU_COUNT_OVERLAPS)
			CHECK(res.unsorted == 0 && (res.total > 0) == (nref > 0) && res.total <= nref,
				  "overlaps kernel %s na=%" PRId64 " nb=%" PRId64 " dup=%d: %d (flags %d), want %s",
				  what, na, nb, (int) duplicates, res.total, res.unsorted, nref > 0 ? "> 0" : "0");
		else
			CHECK(res.unsorted == 0 && (res.total == 0) == (nref == nb) && res.total <= nb,
				  "contains kernel %s na=%" PRId64 " nb=%" PRId64 " dup=%d stop=%d: %d (flags %d), want %s",
				  what, na, nb, (int) duplicates, (int) l.inputs_sorted, res.total, res.unsorted,
				  nref == nb ? "0" : "> 0");
	}
	cudaFree(d_a);
	cudaFree(d_b);
	cudaFree(d_scratch);
}

/* Counts through the API: host arrays, chunks, order checks. */
template <typename Key>
static SetopsGpuSetopArgs
count_args(int mode, const std::vector<Key> &a, const std::vector<Key> &b)
{
	SetopsGpuSetopArgs args;

	memset(&args, 0, sizeof(args));
	args.op = SETOPS_OP_INTERSECT;
	args.count_mode = mode;
	args.key_type = Cpu<Key>::type;
	args.a = a.data();
	args.na = a.size();
	args.b = b.data();
	args.nb = b.size();
	return args;
}

template <typename Key>
static void
count_api_case(const std::vector<Key> &a, const std::vector<Key> &b, const char *what)
{
	std::vector<Key> ref(std::min(a.size(), b.size()) + SETOPS_CPU_OUTPUT_SLACK);
	int64_t		nref = Cpu<Key>::run(SETOPS_OP_INTERSECT, a.data(), a.size(), b.data(), b.size(),
									 ref.data(), NULL);
	char		errbuf[SETOPS_GPU_ERRLEN];

	for (int run = 0; run < 6; run++)
	{
		int			mode = SETOPS_GPU_COUNT_INTERSECT + run / 2;
		SetopsGpuSetopArgs args = count_args<Key>(mode, a, b);

		args.inputs_sorted = run % 2 == 1;

		SetopsGpuStatus st = setops_gpu_setop(&args, errbuf, sizeof(errbuf));
		/* containment: 0 when b lies within a */
		bool		right = mode == SETOPS_GPU_COUNT_INTERSECT ? args.out_count == nref :
			mode == SETOPS_GPU_COUNT_OVERLAPS ? args.out_count == (nref > 0) :
			(args.out_count == 0) == (nref == (int64_t) b.size());

		ANSWER_CHECK(st == SETOPS_GPU_OK && args.unsorted_arg == 0 && right,
					 "count api %s mode %d sorted=%d na=%zu nb=%zu: status %d (%s) count %" PRId64
					 " (intersection %" PRId64 ")",
					 what, mode, args.inputs_sorted, a.size(), b.size(), (int) st, st ? errbuf : "",
					 args.out_count, nref);
		/* the count against the reference's (planted: one off) */
		if (mode == SETOPS_GPU_COUNT_INTERSECT)
		{
			int64_t		want = ref_count(SETOPS_OP_INTERSECT, a.data(), (int64_t) a.size(), b.data(),
										 (int64_t) b.size()) + (ref_mutating() ? 1 : 0);

			answers++;
			ref_answers++;
			CHECK(st == SETOPS_GPU_OK && args.out_count == want,
				  "count api %s sorted=%d na=%zu nb=%zu: %" PRId64 ", the reference %" PRId64 "%s",
				  what, args.inputs_sorted, a.size(), b.size(), args.out_count, want,
				  ref_mutating() ? " (planted: one more)" : "");
		}
	}
}

/*
 * An inversion at `at` of argument `which`: the count reports it exactly;
 * overlaps reports it too, or answers "yes" only where a key is truly in
 * both (common: whether one is).  Never a "yes" without a common key.
 */
template <typename Key>
static void
count_order_case(std::vector<Key> a, std::vector<Key> b, int which, int64_t at, bool common,
				 const char *what)
{
	std::vector<Key> &v = which == 1 ? a : b;
	char		errbuf[SETOPS_GPU_ERRLEN];

	if (at <= 0 || at >= (int64_t) v.size())
		return;
	/* one inversion; - 4 keeps the key's residue (callers choose keys by
	 * parity and residue, well above the type's minimum) */
	v[at] = v[at - 1] - 4;
	for (int64_t i = at + 1; i < (int64_t) v.size(); i++)
		if (v[i] < v[at])
			v[i] = v[at];
	for (int mode : {SETOPS_GPU_COUNT_INTERSECT, SETOPS_GPU_COUNT_OVERLAPS, SETOPS_GPU_COUNT_CONTAINS})
	{
		SetopsGpuSetopArgs args = count_args<Key>(mode, a, b);
		SetopsGpuStatus st = setops_gpu_setop(&args, errbuf, sizeof(errbuf));
		bool		reported = args.unsorted_arg == which && args.unsorted_pos == at;
		bool		yes = args.unsorted_arg == 0 && args.out_count == 1;

		ANSWER_CHECK(st == SETOPS_GPU_OK &&
			  (reported || (mode == SETOPS_GPU_COUNT_OVERLAPS && common && yes)),
			  "count order %s mode %d: inversion in arg %d at %" PRId64 ": status %d arg %d pos %"
			  PRId64 " count %" PRId64,
			  what, mode, which, at, (int) st, args.unsorted_arg, args.unsorted_pos,
			  args.out_count);
	}
}

template <typename Key>
static void
count_cases(const int64_t *sizes, int nsizes, int rounds, bool quick)
{
	const int	nv = sizeof(Key) == 8 ? 2176 : 2944;	/* tile_slots: 128 x 17, 128 x 23 */

	for (int r = 0; r < rounds; r++)
	{
		std::vector<Key> a, b;
		TestShape	sa = (TestShape) (testgen_rnd() % SHAPE_COUNT);
		TestShape	sb = testgen_rnd() % 3 == 0 ? sa : (TestShape) (testgen_rnd() % SHAPE_COUNT);
		int64_t		na = testgen_rnd() % 2 ? sizes[testgen_rnd() % nsizes] :
			(int64_t) testgen_range(1, 4) * nv + testgen_range(-1, 1);
		int64_t		nb = sizes[testgen_rnd() % nsizes];
		char		what[96];

		gen(a, na, sa, r + 50);
		gen(b, nb, sb, r + 51);
		snprintf(what, sizeof(what), "round %d %s/%s", r, testgen_shape_names[sa],
				 testgen_shape_names[sb]);
		count_kernel_case<Key>(a, b, true, what);
		if (!quick)
		{
			count_kernel_case<Key>(b, a, true, what);
			count_api_case<Key>(a, b, what);
		}
	}

	/* the only common key first, last, at a tile boundary; disjoint */
	for (int64_t at : {(int64_t) 0, (int64_t) nv - 1, (int64_t) nv, (int64_t) 5 * nv + 1,
		 (int64_t) 39999})
	{
		std::vector<Key> a, b;

		for (int64_t i = 0; i < 40000; i++)
		{
			a.push_back((Key) (2 * i));
			b.push_back((Key) (i == at ? 2 * i : 2 * i + 1));
		}
		count_kernel_case<Key>(a, b, true, "one common key");
		count_kernel_case<Key>(a, b, false, "one common key, distinct");
		if (at == 0)
		{
			b[0] = 1;
			count_kernel_case<Key>(a, b, true, "disjoint");
		}
	}
	/* containment: b a sample of a (within), then one key with a copy more */
	for (int64_t n : {(int64_t) nv - 1, (int64_t) 7 * nv + 3, (int64_t) 100000})
	{
		std::vector<Key> a, b;

		gen(a, n, SHAPE_UNIFORM_NARROW, n);
		for (int64_t i = 0; i < n; i += 3)
			b.push_back(a[i]);
		count_kernel_case<Key>(a, b, true, "b within a");
		count_api_case<Key>(a, b, "b within a");
		/* one copy of b's middle key more than a has */
		Key			k = b[b.size() / 2];
		int64_t		more = std::count(a.begin(), a.end(), k) + 1 - std::count(b.begin(), b.end(), k);

		b.insert(std::lower_bound(b.begin(), b.end(), k), more, k);
		count_kernel_case<Key>(a, b, true, "b within a but one copy");
		count_api_case<Key>(a, b, "b within a but one copy");
	}
	/* a run far longer than a tile on both sides, one copy short */
	{
		std::vector<Key> a(3 * nv + 5, (Key) 9), b(3 * nv + 4, (Key) 9);

		b.insert(b.begin(), 4, (Key) 3);
		count_kernel_case<Key>(a, b, true, "long runs, one short");
		count_kernel_case<Key>(b, a, true, "long runs, one short, swapped");
	}
	if (quick)
		return;
	/* order breaks: a even, b every key (half in a), odd none in a */
	{
		std::vector<Key> a, b, odd;

		for (int64_t i = 0; i < 100000; i++)
			a.push_back((Key) (1000 + 2 * i));
		for (int64_t i = 0; i < 90001; i++)
		{
			b.push_back((Key) (1000 + i));
			odd.push_back((Key) (1001 + 4 * i));
		}
		for (int64_t at : {(int64_t) 1, (int64_t) nv - 1, (int64_t) nv, (int64_t) nv + 1,
			 (int64_t) 50000, (int64_t) 89999, (int64_t) 90000})
		{
			count_order_case<Key>(a, b, 1, at, true, "a");
			count_order_case<Key>(a, b, 2, at, true, "b");
			count_order_case<Key>(a, odd, 1, at, false, "a, none common");
			count_order_case<Key>(a, odd, 2, at, false, "odd, none common");
		}
	}
	/* zeros where the tiles' tail loads pad with zeros: never a false "yes" */
	for (int64_t n : {(int64_t) nv - 2, (int64_t) 2 * nv + 1, (int64_t) 2 * nv + 3})
	{
		std::vector<Key> a, zeros(n, (Key) 0);

		for (int64_t i = 0; i < n; i++)
			a.push_back((Key) (i + 1));
		count_order_case<Key>(a, zeros, 1, n - 1, false, "zeros");
		count_order_case<Key>(a, zeros, 1, n - 2, false, "zeros");
		count_api_case<Key>(a, zeros, "zeros, in order");
	}
}

/* Counts over hundreds of millions of keys: chunks add up; overlaps stops
 * at the first chunk with a key in both. */
static void
count_large_cases(void)
{
	std::vector<int32_t> a, b;
	char		errbuf[SETOPS_GPU_ERRLEN];

	gen(a, 70000000, SHAPE_UNIFORM_NARROW, 21);
	gen(b, 60000000, SHAPE_UNIFORM_NARROW, 22);
	count_api_case<int32_t>(a, b, "large");
	/* evens and odds, but the first keys match */
	for (int64_t i = 0; i < (int64_t) a.size(); i++)
		a[i] = (int32_t) (2 * i);
	for (int64_t i = 0; i < (int64_t) b.size(); i++)
		b[i] = (int32_t) (i == 0 ? 0 : 2 * i + 1);
	{
		SetopsGpuSetopArgs args = count_args<int32_t>(SETOPS_GPU_COUNT_OVERLAPS, a, b);
		double		t0 = now_ms();
		SetopsGpuStatus st = setops_gpu_setop(&args, errbuf, sizeof(errbuf));

		ANSWER_CHECK(st == SETOPS_GPU_OK && args.out_count == 1, "large overlaps, first keys: %d %" PRId64,
			  (int) st, args.out_count);
		printf("kernel_test: overlaps of 70M + 60M whose first keys match: %.2f ms\n",
			   now_ms() - t0);
		b[0] = 1;
		args = count_args<int32_t>(SETOPS_GPU_COUNT_OVERLAPS, a, b);
		t0 = now_ms();
		st = setops_gpu_setop(&args, errbuf, sizeof(errbuf));
		ANSWER_CHECK(st == SETOPS_GPU_OK && args.out_count == 0 && args.unsorted_arg == 0,
			  "large overlaps, disjoint: %d %" PRId64, (int) st, args.out_count);
		printf("kernel_test: overlaps of 70M + 60M, disjoint: %.2f ms\n", now_ms() - t0);
	}
	count_api_case<int32_t>(a, b, "large evens and odds");
}

/* Sizes around tile multiples: the operations' tiles hold 2944 int32 or
 * 2176 int64 slots (tile_load.cuh), the count's 3968 or 2176. */
static const int64_t sizes32[] = {0, 1, 2, 7, 2943, 2944, 2945, 3967, 3968, 3969, 5887, 5888,
5889, 10000, 65536};
static const int64_t sizes64[] = {0, 1, 3, 2175, 2176, 2177, 4351, 4352, 4353, 10000, 50000};

/* value widths of pairs: int2, int4, int8, uuid, and an odd 6 bytes */
static const int strides[] = {2, 4, 8, 16, 6};

template <typename Key>
static void
random_cases(const int64_t *sizes, int nsizes, int rounds, bool quick)
{
	for (int r = 0; r < rounds; r++)
	{
		std::vector<Key> a, b;
		TestShape	sa = (TestShape) (testgen_rnd() % SHAPE_COUNT);
		TestShape	sb = testgen_rnd() % 3 == 0 ? sa : (TestShape) (testgen_rnd() % SHAPE_COUNT);
		int64_t		na = sizes[testgen_rnd() % nsizes];
		int64_t		nb = sizes[testgen_rnd() % nsizes];
		char		what[96];

		gen(a, na, sa, r);
		gen(b, nb, sb, r + 1);
		snprintf(what, sizeof(what), "round %d %s/%s", r, testgen_shape_names[sa],
				 testgen_shape_names[sb]);
		for (int op = 0; op < SETOPS_OP_COUNT; op++)
		{
			kernel_case<Key>((SetopsOp) op, a, b, true, r % 2 == 0, what);
			if (!quick)
			{
				kernel_case<Key>((SetopsOp) op, b, a, true, r % 2 == 1, what);
				api_case<Key>((SetopsOp) op, a, b, op == SETOPS_OP_MERGE ? 0 : strides[r % 5], what);
			}
		}
	}
}

/* Inputs without repeated keys also run the no-duplicates path. */
template <typename Key>
static void
distinct_cases(int rounds)
{
	for (int r = 0; r < rounds; r++)
	{
		std::vector<Key> a, b;
		int64_t		na = testgen_range(0, 20000),
					nb = testgen_range(0, 20000);
		Key			x = 0;

		for (int64_t i = 0; i < na; i++)
			a.push_back(x += (Key) testgen_range(1, 3));
		x = 0;
		for (int64_t i = 0; i < nb; i++)
			b.push_back(x += (Key) testgen_range(1, 3));
		for (int op = 0; op < SETOPS_OP_COUNT; op++)
		{
			kernel_case<Key>((SetopsOp) op, a, b, false, false, "distinct");
			kernel_case<Key>((SetopsOp) op, a, b, true, false, "distinct, dup path");
		}
	}
}

/* One key repeated far beyond a tile, next to ordinary keys. */
template <typename Key>
static void
long_run_cases(void)
{
	std::vector<Key> a, b;

	for (int i = 0; i < 5; i++)
		a.push_back(i);
	a.insert(a.end(), 25000, (Key) 7);
	for (int i = 0; i < 3000; i++)
		a.push_back(8 + i / 3);
	b.insert(b.end(), 18001, (Key) 7);
	for (int i = 0; i < 9000; i++)
		b.push_back(8 + i / 2);
	for (int op = 0; op < SETOPS_OP_COUNT; op++)
	{
		kernel_case<Key>((SetopsOp) op, a, b, true, true, "long runs");
		kernel_case<Key>((SetopsOp) op, b, a, true, true, "long runs swapped");
		kernel_case<Key>((SetopsOp) op, a, a, true, false, "same input");
	}
}

/*
 * Inputs of 4M elements: the partition takes the stride-key table
 * (PARTITION_SAMPLE_MIN), and every block of the tile kernel takes several
 * tiles, so that its three buffers turn around (smaller cases give a block
 * one or two): every operation, with values, on ordinary duplicates and
 * on long runs; in quick mode too, for the sanitizers.
 */
template <typename Key>
static void
cycling_cases(void)
{
	std::vector<Key> a, b;

	gen(a, PARTITION_SAMPLE_MIN / 2 + 1, SHAPE_UNIFORM_NARROW, 11);
	gen(b, PARTITION_SAMPLE_MIN / 2 + 2944, SHAPE_LONG_RUNS, 12);
	for (int op = 0; op < SETOPS_OP_COUNT; op++)
	{
		kernel_case<Key>((SetopsOp) op, a, b, true, true, "buffers cycling");
		kernel_case<Key>((SetopsOp) op, b, a, true, false, "buffers cycling, swapped");
	}
}

template <typename Key>
static void
order_cases(void)
{
	std::vector<Key> a, b;

	gen(a, 100000, SHAPE_UNIFORM_NARROW, 1);
	gen(b, 90001, SHAPE_LONG_RUNS, 2);
	for (int64_t at : {1, 2, 2943, 2944, 2945, 2175, 2176, 50000, 89999, 90000, 99999})
	{
		order_case<Key>(a, b, 1, at, "a");
		order_case<Key>(a, b, 2, at, "b");
	}
}

/*
 * Whether the skew path takes op on a and b, against the rule written out
 * here: the intersection, the smaller A's difference (and the counts), from
 * skew_known_ratio apart with the order known, from
 * SETOPS_SKEW_CHECKED_RATIO without.  So that the cases meant for the path
 * cannot pass by not reaching it.
 */
template <typename Key>
static void
skew_plan_check(SetopsOp op, const std::vector<Key> &a, const std::vector<Key> &b, bool sorted)
{
	int64_t		na = a.size(),
				nb = b.size();
	int64_t		lo = std::min(na, nb),
				hi = std::max(na, nb);
	int64_t		known = sizeof(Key) == 8 ? SETOPS_GPU_SKEW_RATIO : SETOPS_GPU_SKEW_RATIO32;
	bool		far = lo > 0 && hi >= lo * (sorted ? known : SETOPS_SKEW_CHECKED_RATIO);
	bool		want = far && (op == SETOPS_OP_INTERSECT || (op == SETOPS_OP_DIFFERENCE && na < nb));
	SetopLaunch l;

	memset(&l, 0, sizeof(l));
	l.op = op;
	l.key_type = Cpu<Key>::type;
	l.inputs_sorted = sorted;
	l.na = (int) na;
	l.nb = (int) nb;
	CHECK(skew_applies(&l) == want, "skew plan %s na=%" PRId64 " nb=%" PRId64 " sorted=%d: %d, want %d",
		  op_names[op], na, nb, (int) sorted, (int) skew_applies(&l), (int) want);
}

/*
 * Sizes far apart (engine/gpu/skew_kernel.cu): the smaller side around
 * multiples of the skew tile (384 keys) and beyond, the larger around the
 * ratios where the skew path starts (inputs known in order, and not: one
 * below takes the tile kernel) and far beyond them; every operation both ways round (the skew path answers the
 * intersection and the smaller A's difference, the tile kernel the rest),
 * with and without values, with the order known and checked; the counts;
 * an inversion in either side found exactly.
 */
template <typename Key>
static void
skew_cases(int rounds, bool quick)
{
	static const int64_t smalls[] = {1, 2, 17, 383, 384, 385, 767, 768, 769, 1151, 1152, 1153, 4000};
	static const int64_t known = sizeof(Key) == 8 ? SETOPS_GPU_SKEW_RATIO : SETOPS_GPU_SKEW_RATIO32;
	static const int64_t ratios[] = {known - 1, known, known + 1, 100, SETOPS_SKEW_CHECKED_RATIO,
	SETOPS_SKEW_CHECKED_RATIO + 1, 700};

	for (int r = 0; r < rounds; r++)
	{
		std::vector<Key> s, l;
		TestShape	ss = (TestShape) (testgen_rnd() % SHAPE_COUNT);
		TestShape	sl = testgen_rnd() % 3 == 0 ? ss : (TestShape) (testgen_rnd() % SHAPE_COUNT);
		int64_t		ns = smalls[testgen_rnd() % (sizeof(smalls) / sizeof(smalls[0]))];
		int64_t		ratio = ratios[testgen_rnd() % (sizeof(ratios) / sizeof(ratios[0]))];
		/* sometimes one short of the ratio: the other path */
		int64_t		nl = ns * ratio - (testgen_rnd() % 2 == 0);
		char		what[96];

		/* quick (the sanitizers): smaller, at the same ratio */
		if (quick && nl > 200000)
		{
			ns = std::max((int64_t) 1, 200000 / ratio);
			nl = ns * ratio - (r % 2);
		}
		gen(s, ns, ss, 3 * r);
		gen(l, nl, sl, 3 * r + 1);
		snprintf(what, sizeof(what), "skew round %d %s/%s", r, testgen_shape_names[ss],
				 testgen_shape_names[sl]);
		for (int op = 0; op < SETOPS_OP_COUNT; op++)
		{
			skew_plan_check<Key>((SetopsOp) op, s, l, r % 4 < 2);
			skew_plan_check<Key>((SetopsOp) op, l, s, r % 4 >= 2);
			kernel_case<Key>((SetopsOp) op, s, l, true, r % 2 == 0, what, r % 4 < 2);
			kernel_case<Key>((SetopsOp) op, l, s, true, r % 2 == 1, what, r % 4 >= 2);
		}
		count_kernel_case<Key>(s, l, true, what);
		count_kernel_case<Key>(l, s, true, what);
		if (!quick)
		{
			api_case<Key>(SETOPS_OP_INTERSECT, l, s, strides[r % 5], what);
			api_case<Key>(SETOPS_OP_DIFFERENCE, s, l, strides[(r + 1) % 5], what);
			count_api_case<Key>(l, s, what);
		}
	}

	/* one run of 3000 copies across the small side's tiles, partly matched */
	std::vector<Key> s, l;

	for (int i = 0; i < 1000; i++)
		s.push_back((Key) (2 * i));
	s.insert(s.end(), 3000, (Key) 2001);
	for (int i = 0; i < 500; i++)
		s.push_back((Key) (3000 + i));
	for (int i = 0; i < 200000; i++)
		l.push_back((Key) (i / 50));
	l.insert(std::upper_bound(l.begin(), l.end(), (Key) 2001), 1700, (Key) 2001);
	for (int op = 0; op < SETOPS_OP_COUNT; op++)
	{
		kernel_case<Key>((SetopsOp) op, s, l, true, true, "skew long run", true);
		kernel_case<Key>((SetopsOp) op, l, s, true, true, "skew long run swapped", true);
	}
	count_kernel_case<Key>(s, l, true, "skew long run");
	count_kernel_case<Key>(l, s, true, "skew long run");

	/* an inversion in the larger side, or the smaller, is found exactly
	 * (quick, for the sanitizers: fewer, smaller) */
	{
		std::vector<Key> a, b;
		int64_t		na = quick ? 400 : 3000;

		gen(a, na, SHAPE_UNIFORM_NARROW, 5);
		gen(b, na * 300, SHAPE_UNIFORM_NARROW, 6);
		for (int64_t at : {(int64_t) 1, (int64_t) 2, (int64_t) 383, (int64_t) 384, (int64_t) 385,
			 (int64_t) 1152, na - 1, (int64_t) 60000, na * 300 - 1})
			for (SetopsOp op : {SETOPS_OP_INTERSECT, SETOPS_OP_DIFFERENCE})
			{
				order_case<Key>(a, b, 1, at, "skew", op);
				order_case<Key>(a, b, 2, at, "skew", op);
				order_case<Key>(b, a, 1, at, "skew swapped", SETOPS_OP_INTERSECT);
				order_case<Key>(b, a, 2, at, "skew swapped", SETOPS_OP_INTERSECT);
			}
	}
}

/* Arguments of an int32 keys-only call over a and b into out. */
static SetopsGpuSetopArgs
keys_args(SetopsOp op, const std::vector<int32_t> &a, const std::vector<int32_t> &b,
		  std::vector<int32_t> &out)
{
	SetopsGpuSetopArgs args;

	out.resize(a.size() + b.size() + 8);
	memset(&args, 0, sizeof(args));
	args.op = op;
	args.key_type = SETOPS_KEY_INT32;
	args.a = a.data();
	args.na = a.size();
	args.b = b.data();
	args.nb = b.size();
	args.out_keys = out.data();
	return args;
}

static void
recovery_cases(void)
{
	std::vector<int32_t> a, b, out;
	char		errbuf[SETOPS_GPU_ERRLEN];

	gen(a, 5000, SHAPE_UNIFORM_NARROW, 3);
	gen(b, 7000, SHAPE_UNIFORM_NARROW, 4);
	SetopsGpuSetopArgs args = keys_args(SETOPS_OP_UNION, a, b, out);

	setops_gpu_debug_inject_fault();
	SetopsGpuStatus st = setops_gpu_setop(&args, errbuf, sizeof(errbuf));

	CHECK(st == SETOPS_GPU_ERROR, "injected fault gave status %d (%s)", (int) st, errbuf);
	printf("kernel_test: injected fault reported as: %s\n", errbuf);
	st = setops_gpu_setop(&args, errbuf, sizeof(errbuf));
	if (st == SETOPS_GPU_UNAVAILABLE)
	{
		/* the platform keeps a faulted process off the GPU: that must be
		 * reported as unavailable, with the reason, and nothing else */
		CHECK(strstr(errbuf, "lost after a device fault") != NULL,
			  "after the fault: unavailable without the reason: %s", errbuf);
		printf("kernel_test: after the fault the GPU is unavailable to this process: %s\n", errbuf);
		return;
	}
	CHECK(st == SETOPS_GPU_OK && args.out_count > 0, "call after the fault: status %d (%s)",
		  (int) st, errbuf);
	api_case<int32_t>(SETOPS_OP_SYMDIFF, a, b, 8, "after recovery");
	/* (int8 tiles need the shared-memory attribute, which the reset took: asked again) */
	std::vector<int64_t> a8, b8;

	gen(a8, 5000, SHAPE_UNIFORM_NARROW, 5);
	gen(b8, 7000, SHAPE_UNIFORM_NARROW, 6);
	api_case<int64_t>(SETOPS_OP_INTERSECT, a8, b8, 0, "int8 after recovery");
}

/* Device memory stays flat over 10,000 calls. */
static void
memory_cases(void)
{
	std::vector<int32_t> a, b, out;
	char		errbuf[SETOPS_GPU_ERRLEN];
	size_t		free0 = 0,
				free1 = 0,
				total = 0;

	gen(a, 5000, SHAPE_UNIFORM_NARROW, 3);
	gen(b, 7000, SHAPE_UNIFORM_NARROW, 4);
	SetopsGpuSetopArgs args = keys_args(SETOPS_OP_UNION, a, b, out);

	setops_gpu_setop(&args, errbuf, sizeof(errbuf));
	/* device memory stays flat over 10,000 calls */
	CUDA_OK(cudaMemGetInfo(&free0, &total));
	int64_t		pool0 = setops_gpu_pool_bytes();

	for (int i = 0; i < 10000; i++)
	{
		args.op = (SetopsOp) (i % 4);
		setops_gpu_setop(&args, errbuf, sizeof(errbuf));
	}
	CUDA_OK(cudaMemGetInfo(&free1, &total));
	CHECK(free1 == free0 && setops_gpu_pool_bytes() == pool0,
		  "device memory moved over 10,000 calls: free %zu -> %zu, pool %lld -> %lld",
		  free0, free1, (long long) pool0, (long long) setops_gpu_pool_bytes());
	printf("kernel_test: 10,000 calls: free device memory %zu -> %zu bytes, pool %lld bytes\n",
		   free0, free1, (long long) setops_gpu_pool_bytes());
}

/* Cancel: the interrupt callback fires at a set time during a 200M-element
 * operation; the call must return CANCELLED within 100 ms of it. */
static double cancel_at_ms;
static double cancel_seen_ms;

static int
cancel_callback(void)
{
	if (now_ms() < cancel_at_ms)
		return 0;
	if (cancel_seen_ms == 0)
		cancel_seen_ms = now_ms();
	return 1;
}

static void
cancel_cases(void)
{
	std::vector<int32_t> a, b, out;
	char		errbuf[SETOPS_GPU_ERRLEN];

	gen(a, 100000000, SHAPE_UNIFORM_NARROW, 9);
	gen(b, 100000000, SHAPE_UNIFORM_NARROW, 10);
	SetopsGpuSetopArgs args = keys_args(SETOPS_OP_UNION, a, b, out);

	/* uncancelled: how long the whole operation takes */
	double		t0 = now_ms();
	SetopsGpuStatus st = setops_gpu_setop(&args, errbuf, sizeof(errbuf));
	double		full = now_ms() - t0;

	CHECK(st == SETOPS_GPU_OK, "200M union: status %d (%s)", (int) st, errbuf);
	setops_gpu_set_interrupt_callback(cancel_callback);
	for (double at : {0.2, 0.5, 0.8})
	{
		cancel_seen_ms = 0;
		t0 = now_ms();
		cancel_at_ms = t0 + at * full;
		st = setops_gpu_setop(&args, errbuf, sizeof(errbuf));

		double		done = now_ms();
		double		latency = done - cancel_at_ms;

		/* cancelled, or finished first (the last chunk was running): either
		 * way the caller is answered within 100 ms of asking */
		CHECK((st == SETOPS_GPU_CANCELLED || (st == SETOPS_GPU_OK && args.out_count > 0)) &&
			  latency <= 100.0,
			  "cancel at %.0f%% of %.1f ms: status %d, returned %.1f ms after the request",
			  at * 100, full, (int) st, latency);
		printf("kernel_test: 200M union (%.1f ms): cancel requested at %.0f%%, %s %.1f ms later\n",
			   full, at * 100, st == SETOPS_GPU_CANCELLED ? "cancelled" : "completed", latency);
	}
	setops_gpu_set_interrupt_callback(NULL);
}

/* The largest cases: hundreds of millions of elements through chunks. */
static void
large_cases(void)
{
	std::vector<int32_t> a, b;

	for (int64_t n : {(int64_t) 40000000, (int64_t) 150000000})
	{
		gen(a, n, SHAPE_UNIFORM_NARROW, 5);
		gen(b, n, SHAPE_UNIFORM_NARROW, 6);
		printf("kernel_test: large %lld + %lld\n", (long long) n, (long long) n);
		fflush(stdout);
		api_case<int32_t>(SETOPS_OP_INTERSECT, a, b, 0, "large");
		api_case<int32_t>(SETOPS_OP_UNION, a, b, 0, "large");
		if (n < 100000000)
			api_case<int32_t>(SETOPS_OP_SYMDIFF, a, b, 4, "large pairs");
	}
	/* all-equal inputs: every chunk boundary falls inside one run */
	a.assign(40000000, 3);
	b.assign(35000000, 3);
	api_case<int32_t>(SETOPS_OP_DIFFERENCE, a, b, 0, "all-equal large");
	api_case<int32_t>(SETOPS_OP_UNION, a, b, 0, "all-equal large");
	std::vector<int64_t> a64, b64;

	gen(a64, 60000000, SHAPE_UNIFORM_NARROW, 7);
	gen(b64, 20000001, SHAPE_EXTREMES, 8);
	api_case<int64_t>(SETOPS_OP_SYMDIFF, a64, b64, 0, "large int8");
}

/* What was checked, then the totals; the exit status. */
static int
summary(void)
{
	printf("kernel_test: %ld answers compared in full (%ld of them by the independent reference"
		   "%s), %ld partition boundaries against the scalar search, %ld other checks\n",
		   answers, ref_answers, ref_mutating() ? ", each with a planted defect" : "", boundaries,
		   passed + failed - answers - boundaries);
	printf("%ld passed, %ld failed\n", passed, failed);
	return failed ? 1 : 0;
}

/*
 * Inputs across the GPU's chunk boundaries (gpu_chunk elements of A and B
 * together per launch), na + nb from just over one chunk to over two, a
 * duplicate run of len copies straddling each boundary (kind: in A, in B,
 * in both) and every quarter of the CPU engine's chunk (kinds in turn):
 * every operation (pairs with values of stride bytes, merge keys only)
 * and the counts, each answer checked against the CPU engine and the
 * reference (api_case, count_api_case).
 */
template <typename Key>
static void
runs_case(int64_t na, int64_t nb, int kind, int stride, uint64_t seed)
{
	std::vector<Key> a, b;
	const int64_t len = 4097;
	int64_t		cuts = runs_input(a, na, b, nb, SETOPS_CPU_CHUNK / 4, len, gpu_chunk, kind, seed);
	char		what[160];

	snprintf(what, sizeof(what), "across cuts %s %" PRId64 "+%" PRId64 ", run at each GPU chunk boundary %s",
			 sizeof(Key) == 8 ? "int8" : "int4", na, nb, runsgen_kind_names[kind]);
	printf("kernel_test: %s, %" PRId64 " runs across cuts, %" PRId64 " of them GPU chunk boundaries\n",
		   what, cuts, (na + nb - len) / gpu_chunk);
	fflush(stdout);
	CHECK(cuts > 0 && (na + nb - len) / gpu_chunk >= 1 && gpu_chunk % (SETOPS_CPU_CHUNK / 4) == 0,
		  "%s: the runs do not straddle their cuts (%" PRId64 ")", what, cuts);
	for (int op = 0; op < SETOPS_OP_COUNT; op++)
		api_case<Key>((SetopsOp) op, a, b, op == SETOPS_OP_MERGE ? 0 : stride, what);
	count_api_case<Key>(a, b, what);
}

static void
runs_cases(void)
{
	const int64_t g = gpu_chunk;

	/* only na + nb crosses a chunk; A alone does; B alone does; both, twice */
	runs_case<int32_t>(g / 2 + 3000, g / 2 + 5001, RUNS_BOTH_A, 4, 1);
	runs_case<int32_t>(g + g / 2, g / 4 + 7, RUNS_A, 8, 2);
	runs_case<int32_t>(g / 4 + 1, g + g / 2, RUNS_B, 0, 3);
	runs_case<int32_t>(g + 5, g + 4099, RUNS_BOTH_B, 16, 4);
	runs_case<int64_t>(g / 2 + 3000, g / 2 + 5001, RUNS_BOTH_B, 8, 5);
	runs_case<int64_t>(g + 1000, g / 2, RUNS_A, 0, 6);
	runs_case<int64_t>(g / 2, g + 1000, RUNS_B, 8, 7);
	runs_case<int64_t>(g + 3, g + 4101, RUNS_BOTH_A, 4, 8);
}

int
main(int argc, char **argv)
{
	bool		quick = argc > 1 && strcmp(argv[1], "quick") == 0;
	bool		large_only = argc > 1 && strcmp(argv[1], "large") == 0;
	char		errbuf[SETOPS_GPU_ERRLEN];
	int			count = setops_gpu_device_count(errbuf, sizeof(errbuf));

	if (count == 0)
	{
		printf("kernel_test: no GPU: %s\n", errbuf);
		return 2;
	}
	printf("kernel_test: %d device(s), %s mode, GPU chunk %" PRId64 " elements%s\n", count,
		   quick ? "quick" : large_only ? "large" : "full", gpu_chunk,
		   ref_mutating() ? "; MUTATED (SETOPS_TEST_MUTATE): the reference's checks must fail" : "");
	if (large_only)
	{
		runs_cases();
		large_cases();
		return summary();
	}
	random_cases<int32_t>(sizes32, sizeof(sizes32) / sizeof(sizes32[0]), quick ? 6 : 120, quick);
	random_cases<int64_t>(sizes64, sizeof(sizes64) / sizeof(sizes64[0]), quick ? 4 : 80, quick);
	partition_cases<int32_t>(quick ? 2 : 12, quick);
	partition_cases<int64_t>(quick ? 1 : 6, quick);
	long_run_cases<int32_t>();
	long_run_cases<int64_t>();
	skew_cases<int32_t>(quick ? 8 : 60, quick);
	skew_cases<int64_t>(quick ? 4 : 30, quick);
	count_cases<int32_t>(sizes32, sizeof(sizes32) / sizeof(sizes32[0]), quick ? 6 : 100, quick);
	count_cases<int64_t>(sizes64, sizeof(sizes64) / sizeof(sizes64[0]), quick ? 4 : 60, quick);
	cycling_cases<int32_t>();
	cycling_cases<int64_t>();
	if (!quick)
	{
		distinct_cases<int32_t>(20);
		distinct_cases<int64_t>(10);
		order_cases<int32_t>();
		order_cases<int64_t>();
		for (int shape = 0; shape < SHAPE_COUNT; shape++)
			for (int64_t n : {(int64_t) 2, (int64_t) 1000, (int64_t) 2049, (int64_t) 3000000})
				for (int distinct = 0; distinct < 2; distinct++)
				{
					sort_case<int32_t>(n, (TestShape) shape, distinct);
					sort_case<int64_t>(n, (TestShape) shape, distinct);
				}
		runs_cases();
		large_cases();
		count_large_cases();
		cancel_cases();
		memory_cases();
		recovery_cases();		/* last: a fault may end GPU use in this process */
	}
	return summary();
}
