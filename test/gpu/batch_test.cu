/*
 * batch_test.cu
 *	  Segmented batches on the GPU (setops_gpu_setop_batch) and the
 *	  reduction's rounds (setops_gpu_reduce_device) against the CPU engine.
 *
 *   test   every op (and merge), both key types, batches of many tiny pairs
 *          with many empty ones, one huge pair among tiny ones (long
 *          duplicate runs crossing many tiles), pairs whose sizes sit at
 *          tile multiples +-1, empty pairs at both ends and an all-empty
 *          batch, all-equal keys, type extremes, a B shared by every pair
 *          (the probe kernel for intersection and difference, the tiles for
 *          the rest), and pairs that overlap in memory: keys, lengths and
 *          source positions identical to the CPU engine's segmented batch
 *          (itself checked against textbook loops by test/unit/segd_test),
 *          written into poisoned buffers, nothing written anywhere past
 *          the count (keys, positions, lengths: the whole range up to the
 *          bound and 64 beyond); every pair's answer (keys and source
 *          positions) also checked by the independent reference
 *          (test/common/keyrank_ref.h, no code shared with either engine);
 *          in `test` mode one batch whose pairs cross the GPU's launch size
 *          (2^25 elements), a pair with a duplicate run across every
 *          quarter of the CPU engine's chunk.  Reductions over 1 to 3,000
 *          runs (empty runs included) equal a left fold on the CPU engine.
 *          SETOPS_TEST_MUTATE set (not 0): a defect is planted in the
 *          largest pair's answer of each batch before the reference checks
 *          it, and one key written past the count is pretended: those
 *          checks must then fail.
 *   bench  elements per second of the kernels (device time) for a skewed
 *          batch (one pair of 10M next to 100k pairs of 10) and uniform ones
 *          of the same size: its twin (100k pairs of 110), and pairs of 10,
 *          100 and 10,000, each pair's sides starting at the same key (and
 *          the twin once more without that); intersect and union, int4,
 *          output counts printed; the shared-B probe
 *          (16k rows of 1,000 against 100,000); a reduction of 10,000 runs
 *          of 10,000 keys on the device against the CPU engine's rounds.
 *          Medians of 7.
 *
 * Usage: batch_test test [quick | tiny | race] | bench [tiny]   (quick: batches a
 * tenth the size, for memcheck; tiny: a fortieth; race: a fortieth, every
 * third shape and reductions of up to 64 runs, for racecheck; bench tiny:
 * pairs of 10,000, then the skewed batch, intersect and union, for a
 * profiler)
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
#include "cuda_ok.h"
#include "ref_check.h"

static const char *op_names[] = {"intersect", "union", "difference", "symdiff", "merge"};

/* "quick" and "race": smaller batches, for the sanitizers; "race" also
 * takes every third shape (long runs among them) and fewer reductions */
static int	scale = 1;
static int	shape_step = 1;
static int	reduce_counts = 7;

/* batches compared in full with the CPU engine; pairs' answers the
 * reference checked; reductions compared */
static long batches = 0;
static long ref_pairs = 0;
static long reductions = 0;

template <typename Key> static SetopsKeyType key_type();
template <> SetopsKeyType key_type<int32_t>() { return SETOPS_KEY_INT32; }
template <> SetopsKeyType key_type<int64_t>() { return SETOPS_KEY_INT64; }

template <typename Key>
static void
gen(Key *v, int64_t n, TestShape shape, int64_t salt)
{
	if (sizeof(Key) == 8)
		testgen_i64((int64_t *) v, n, shape, salt);
	else
		testgen_i32((int32_t *) v, n, shape, salt);
}

template <typename Key>
static int64_t
cpu_batch(SetopsOp op, const Key *a, const SetopsSegd *as, const Key *b, const SetopsSegd *bs,
		  Key *out, int64_t *lengths, int64_t *pos)
{
	if (sizeof(Key) == 8)
		return setops_cpu_setop_segmented_i64(op, (const int64_t *) a, as, (const int64_t *) b, bs,
											  (int64_t *) out, lengths, pos);
	return setops_cpu_setop_segmented_i32(op, (const int32_t *) a, as, (const int32_t *) b, bs,
										  (int32_t *) out, lengths, pos);
}

template <typename Key>
static int64_t
cpu_setop(SetopsOp op, const Key *a, int64_t na, const Key *b, int64_t nb, Key *out)
{
	if (sizeof(Key) == 8)
		return setops_cpu_setop_i64(op, (const int64_t *) a, na, (const int64_t *) b, nb,
									(int64_t *) out, NULL);
	return setops_cpu_setop_i32(op, (const int32_t *) a, na, (const int32_t *) b, nb,
								(int32_t *) out, NULL);
}

/* A batch under test: keys and pairs, host side. */
template <typename Key>
struct Batch
{
	std::vector<Key> a,
				b;
	std::vector<int64_t> a_start,
				a_len,
				b_start,
				b_len;
	bool		b_shared = false;
};

/* Append a pair of na + nb keys of the given shape, each side sorted. */
template <typename Key>
static void
add_pair(Batch<Key> &t, int64_t na, int64_t nb, TestShape shape, int64_t salt)
{
	t.a_start.push_back((int64_t) t.a.size());
	t.a_len.push_back(na);
	t.a.resize(t.a.size() + na);
	gen(t.a.data() + t.a_start.back(), na, shape, salt);
	t.b_start.push_back((int64_t) t.b.size());
	t.b_len.push_back(nb);
	t.b.resize(t.b.size() + nb);
	gen(t.b.data() + t.b_start.back(), nb, shape, salt + 1);
}

/*
 * Shift the last pair's B so that it starts at its A's first key.  The
 * walks of SHAPE_UNIFORM_NARROW start anywhere in [-1000, 1000], so without
 * this a short pair's sides hardly overlap (a union of them outputs every
 * input) while a long pair's overlap almost wholly (a union outputs about
 * two thirds): a benchmark's batches then differ in output volume, not only
 * in how their work is split.  Aligned, every pair size overlaps alike.
 */
template <typename Key>
static void
align_last_pair(Batch<Key> &t)
{
	int64_t		na = t.a_len.back(),
				nb = t.b_len.back();

	if (na > 0 && nb > 0)
	{
		Key			shift = t.b[t.b_start.back()] - t.a[t.a_start.back()];

		for (int64_t i = 0; i < nb; i++)
			t.b[t.b_start.back() + i] -= shift;
	}
}

/* The arguments of setops_gpu_setop_batch for t, keys at a and b. */
template <typename Key>
static SetopsGpuBatchArgs
batch_args(SetopsOp op, const Batch<Key> &t, const Key *a, const Key *b, Key *out,
		   int64_t *out_lengths)
{
	SetopsGpuBatchArgs args;

	memset(&args, 0, sizeof(args));
	args.op = op;
	args.key_type = key_type<Key>();
	args.a = a;
	args.a_keys = (int64_t) t.a.size();
	args.b = b;
	args.b_keys = (int64_t) t.b.size();
	args.npairs = (int64_t) t.a_len.size();
	args.a_start = t.a_start.data();
	args.a_len = t.a_len.data();
	args.b_start = t.b_start.data();
	args.b_len = t.b_len.data();
	args.b_shared = t.b_shared;
	args.out_keys = out;
	args.out_lengths = out_lengths;
	return args;
}

/* Run op on the GPU and the CPU engine and compare everything. */
template <typename Key>
static void
compare(const char *what, SetopsOp op, const Batch<Key> &t, bool positions)
{
	int64_t		npairs = (int64_t) t.a_len.size();
	SetopsSegd	as,
				bs;
	int64_t		bound = 0,
				i;
	char		errbuf[SETOPS_GPU_ERRLEN];

	as.nsegs = bs.nsegs = npairs;
	as.lengths = t.a_len.data();
	as.starts = t.a_start.data();
	bs.lengths = t.b_len.data();
	bs.starts = t.b_start.data();
	as.total = bs.total = 0;
	for (i = 0; i < npairs; i++)
	{
		bound += setop_output_bound(op, t.a_len[i], t.b_len[i]);
		as.total += t.a_len[i];
		bs.total += t.b_len[i];
	}
	/* outputs poisoned up to the bound and guard beyond it */
	const int64_t guard = 64;
	std::vector<Key> want(bound + SETOPS_CPU_OUTPUT_SLACK),
				got(bound + guard);
	std::vector<int64_t> want_len(npairs + 1),
				got_len(npairs + guard, -7),
				want_pos(bound + SETOPS_CPU_OUTPUT_SLACK),
				got_pos(bound + guard, -7);
	int64_t		n = cpu_batch<Key>(op, t.a.data(), &as, t.b.data(), &bs, want.data(),
								   want_len.data(), want_pos.data());
	Key			poison;

	memset(got.data(), 0xab, got.size() * sizeof(Key));
	memset(&poison, 0xab, sizeof(poison));
	SetopsGpuBatchArgs args = batch_args(op, t, t.a.data(), t.b.data(), got.data(), got_len.data());

	args.out_pos = positions ? got_pos.data() : NULL;

	SetopsGpuStatus st = setops_gpu_setop_batch(&args, errbuf, sizeof(errbuf));

	CHECK(st == SETOPS_GPU_OK, "%s %s %s: status %d: %s", what, op_names[op],
		  sizeof(Key) == 8 ? "int8" : "int4", (int) st, errbuf);
	if (st != SETOPS_GPU_OK)
		return;
	CHECK(args.out_count == n, "%s %s %s: count %" PRId64 " want %" PRId64, what, op_names[op],
		  sizeof(Key) == 8 ? "int8" : "int4", args.out_count, n);
	{
		int64_t		bad_len = -1,
					bad_key = -1,
					bad_pos = -1;

		for (i = 0; i < npairs && bad_len < 0; i++)
			if (got_len[i] != want_len[i])
				bad_len = i;
		for (i = 0; i < n && i < args.out_count && bad_key < 0; i++)
			if (got[i] != want[i])
				bad_key = i;
		for (i = 0; positions && i < n && i < args.out_count && bad_pos < 0; i++)
			if (got_pos[i] != want_pos[i])
				bad_pos = i;
		CHECK(bad_len < 0, "%s %s: pair %" PRId64 " length %" PRId64 " want %" PRId64, what,
			  op_names[op], bad_len, bad_len >= 0 ? got_len[bad_len] : 0,
			  bad_len >= 0 ? want_len[bad_len] : 0);
		CHECK(bad_key < 0, "%s %s: output %" PRId64 " differs", what, op_names[op], bad_key);
		CHECK(bad_pos < 0, "%s %s: position %" PRId64 " is %" PRId64 " want %" PRId64, what,
			  op_names[op], bad_pos, bad_pos >= 0 ? got_pos[bad_pos] : 0,
			  bad_pos >= 0 ? want_pos[bad_pos] : 0);
		batches++;
	}
	/* nothing past the count was written: keys, positions, lengths */
	{
		int64_t		over = -1;

		if (ref_mutating() && args.out_count + 1 < (int64_t) got.size())
			got[args.out_count + (bound + guard - args.out_count) / 2] ^= 1;	/* planted */
		for (i = args.out_count; i >= 0 && i < bound + guard && over < 0; i++)
			if (got[i] != poison || (positions && got_pos[i] != -7))
				over = i;
		for (i = npairs; i < npairs + guard && over < 0; i++)
			if (got_len[i] != -7)
				over = bound + guard + i;
		CHECK(over < 0, "%s %s %s: wrote past the count (%" PRId64 " of %" PRId64 " + %" PRId64
			  " guard), at %" PRId64 "%s", what, op_names[op], sizeof(Key) == 8 ? "int8" : "int4",
			  args.out_count, bound, guard, over, over >= bound + guard ? " (a length)" : "");
	}

	/*
	 * Every pair's answer against the independent reference (keys, and
	 * source positions where asked); planted defects: in the largest
	 * pair's answer, on a copy of it.
	 */
	{
		int64_t		off = 0,
					largest = 0,
					bad = 0;
		KeyrankReport r,
					first;

		for (i = 1; i < npairs; i++)
			if (got_len[i] > got_len[largest])
				largest = i;
		for (i = 0; i < npairs && off + got_len[i] <= args.out_count && got_len[i] >= 0; i++)
		{
			const Key  *pa = t.a.data() + t.a_start[i],
					   *pb = t.b.data() + t.b_start[i];
			bool		plant = ref_mutating() && i == largest;
			std::vector<Key> keys;
			std::vector<int64_t> pos;

			if (plant)
			{
				keys.assign(got.begin() + off, got.begin() + off + got_len[i] + 1);
				pos.assign(got_pos.begin() + off, got_pos.begin() + off + got_len[i] + 1);
			}
			if (!ref_check<Key>(op, pa, t.a_len[i], pb, t.b_len[i],
								plant ? keys.data() : got.data() + off, got_len[i],
								plant ? got_len[i] + 1 : got_len[i], NULL, NULL, NULL, 0,
								positions ? (plant ? pos.data() : got_pos.data() + off) : NULL, &r,
								plant) && bad++ == 0)
				first = r;
			ref_pairs++;
			off += got_len[i];
		}
		CHECK(bad == 0 && i == npairs, "%s %s %s: %" PRId64 " of %" PRId64
			  " pairs' answers wrong by the reference (%" PRId64 " read), first: %s", what, op_names[op],
			  sizeof(Key) == 8 ? "int8" : "int4", bad, npairs, i, bad ? first.msg : "");
	}
}

template <typename Key>
static void
all_ops(const char *what, const Batch<Key> &t)
{
	for (int op = 0; op < SETOPS_OP_COUNT; op++)
		compare<Key>(what, (SetopsOp) op, t, op != SETOPS_OP_MERGE);
}

template <typename Key>
static void
test_batches(void)
{
	const int	nv = sizeof(Key) == 8 ? 1536 : 2048;

	for (int shape = 0; shape < SHAPE_COUNT; shape += shape_step)
	{
		Batch<Key>	t;
		char		what[96];

		/* many tiny pairs, a third of them empty on one or both sides */
		for (int i = 0; i < 20000 / scale; i++)
			add_pair(t, testgen_range(0, 5), testgen_range(0, 5), (TestShape) shape, i);
		snprintf(what, sizeof(what), "tiny pairs (%s)", testgen_shape_names[shape]);
		all_ops(what, t);

		/* one huge pair among tiny ones */
		Batch<Key>	h;

		for (int i = 0; i < 3000; i++)
			if (i == 1500)
				add_pair(h, 300000 / scale, 200001 / scale, (TestShape) shape, i);
			else
				add_pair(h, testgen_range(0, 3), testgen_range(0, 3), (TestShape) shape, i);
		snprintf(what, sizeof(what), "huge among tiny (%s)", testgen_shape_names[shape]);
		all_ops(what, h);

		/* pairs whose work is a tile multiple +-1 */
		Batch<Key>	m;
		int			sizes[] = {nv - 1, nv, nv + 1, 2 * nv - 1, 2 * nv + 1, 3 * nv, 1, 2};

		for (int i = 0; i < 64; i++)
		{
			int			w = sizes[i % 8];
			int			na = (int) testgen_range(0, w);

			add_pair(m, na, w - na, (TestShape) shape, i);
		}
		snprintf(what, sizeof(what), "tile multiples (%s)", testgen_shape_names[shape]);
		all_ops(what, m);
	}

	/* empty pairs at both ends; an all-empty batch; a single pair */
	{
		Batch<Key>	e;

		for (int i = 0; i < 5000; i++)
			add_pair(e, i < 1000 || i >= 4000 ? 0 : testgen_range(0, 40),
					 i < 1200 || i >= 3800 ? 0 : testgen_range(0, 40), SHAPE_UNIFORM_NARROW, i);
		all_ops("empty edges", e);

		Batch<Key>	z;

		for (int i = 0; i < 100; i++)
			add_pair(z, 0, 0, SHAPE_UNIFORM_NARROW, i);
		all_ops("all empty", z);

		Batch<Key>	one;

		add_pair(one, 70001, 65537, SHAPE_LONG_RUNS, 3);
		all_ops("single pair", one);
	}

	/* a B shared by every pair: the probe (intersect, difference) */
	for (int shape = 0; shape < SHAPE_COUNT; shape += shape_step)
	{
		Batch<Key>	s;
		char		what[96];
		int64_t		nb = 5000;

		s.b.resize(nb);
		gen(s.b.data(), nb, (TestShape) shape, 11);
		for (int i = 0; i < 4000; i++)
		{
			int64_t		na = i % 97 == 0 ? 0 : testgen_range(0, 300);

			s.a_start.push_back((int64_t) s.a.size());
			s.a_len.push_back(na);
			s.a.resize(s.a.size() + na);
			gen(s.a.data() + s.a_start.back(), na, (TestShape) shape, i);
			s.b_start.push_back(0);
			s.b_len.push_back(nb);
		}
		s.b_shared = true;
		snprintf(what, sizeof(what), "shared B (%s)", testgen_shape_names[shape]);
		all_ops(what, s);

		/* the same pairs in another order: A no longer end to end */
		Batch<Key>	r = s;

		std::reverse(r.a_start.begin(), r.a_start.end());
		std::reverse(r.a_len.begin(), r.a_len.end());
		snprintf(what, sizeof(what), "shared B, A out of order (%s)", testgen_shape_names[shape]);
		compare<Key>(what, SETOPS_OP_INTERSECT, r, true);
		compare<Key>(what, SETOPS_OP_DIFFERENCE, r, true);
	}

	/* pairs overlapping in memory: a round of a reduction (2k with 2k+1) */
	{
		Batch<Key>	t;
		Batch<Key>	r;

		for (int i = 0; i < 2000; i++)
			add_pair(t, testgen_range(0, 200), 0, SHAPE_UNIFORM_NARROW, i);
		r.a = t.a;
		r.b = t.a;
		for (int i = 0; i + 1 < 2000; i += 2)
		{
			r.a_start.push_back(t.a_start[i]);
			r.a_len.push_back(t.a_len[i]);
			r.b_start.push_back(t.a_start[i + 1]);
			r.b_len.push_back(t.a_len[i + 1]);
		}
		all_ops("runs of one buffer", r);
	}
}

/*
 * A batch whose pairs cross the GPU's launch size: a few tiny pairs, then
 * one of gpu_chunk / 2 + gpu_chunk / 2 and more with a duplicate run
 * across every quarter of the CPU engine's chunk (kinds in turn), then one
 * whose B alone crosses it, then tiny ones again.
 */
template <typename Key>
static void
test_large_batch(void)
{
	Batch<Key>	t;
	const int64_t g = gpu_chunk;
	const int64_t sizes[2][2] = {{g / 2 + 3000, g / 2 + 5001}, {g / 8, g + 7}};
	int64_t		runs = 0;

	for (int p = 0; p < 40; p++)
	{
		if (p == 10 || p == 20)
		{
			const int64_t *sz = sizes[p / 20];

			t.a_start.push_back((int64_t) t.a.size());
			t.a_len.push_back(sz[0]);
			t.b_start.push_back((int64_t) t.b.size());
			t.b_len.push_back(sz[1]);
			std::vector<Key> a, b;
			int64_t		c = runs_input(a, sz[0], b, sz[1], SETOPS_CPU_CHUNK / 4, 4097, g,
									   p == 10 ? RUNS_BOTH_B : RUNS_A, p);

			CHECK(c > 0, "large batch: runs not straddling their cuts (%" PRId64 ")", c);
			runs += c;
			t.a.insert(t.a.end(), a.begin(), a.end());
			t.b.insert(t.b.end(), b.begin(), b.end());
		}
		else
			add_pair(t, testgen_range(0, 9), testgen_range(0, 9), SHAPE_UNIFORM_NARROW, p);
	}
	printf("batch_test: a batch of 40 pairs, two crossing %" PRId64 " elements (%s), %" PRId64
		   " runs across cuts\n", g, sizeof(Key) == 8 ? "int8" : "int4", runs);
	fflush(stdout);
	all_ops("large pairs", t);
}

/* Reductions: the device's rounds against a left fold on the CPU. */
template <typename Key>
static void
test_reduce(void)
{
	SetopsOp	ops[] = {SETOPS_OP_INTERSECT, SETOPS_OP_UNION, SETOPS_OP_MERGE};
	int			counts[] = {1, 2, 3, 7, 64, 1000, 3000};
	char		errbuf[SETOPS_GPU_ERRLEN];

	for (int oi = 0; oi < 3; oi++)
		for (int ci = 0; ci < reduce_counts; ci++)
			for (int shape = 0; shape < SHAPE_COUNT; shape += 2 * shape_step)
			{
				SetopsOp	op = ops[oi];
				int			nruns = counts[ci];
				std::vector<int64_t> len(nruns);
				std::vector<Key> keys;

				for (int i = 0; i < nruns; i++)
				{
					/* intersections need overlap to say anything: narrow keys */
					int64_t		n = i % 50 == 49 ? 0 : testgen_range(0, nruns > 100 ? 300 : 5000);

					len[i] = n;
					keys.resize(keys.size() + n);
					gen(keys.data() + keys.size() - n, n,
						op == SETOPS_OP_INTERSECT ? SHAPE_TINY_RANGE : (TestShape) shape, i);
				}
				/* the fold */
				std::vector<Key> acc(keys.begin(), keys.begin() + len[0]);
				int64_t		off = len[0];

				for (int i = 1; i < nruns; i++)
				{
					std::vector<Key> next(acc.size() + len[i] + SETOPS_CPU_OUTPUT_SLACK);
					int64_t		m = cpu_setop<Key>(op, acc.data(), (int64_t) acc.size(),
												   keys.data() + off, len[i], next.data());

					next.resize(m);
					acc.swap(next);
					off += len[i];
				}
				/* the device */
				size_t		bytes = (keys.size() + 1) * sizeof(Key);
				void	   *cur,
						   *spare;
				int			in_spare;
				int64_t		n;

				CHECK(setops_gpu_buffer_alloc(bytes, &cur, errbuf, sizeof(errbuf)) == SETOPS_GPU_OK &&
					  setops_gpu_buffer_alloc(bytes, &spare, errbuf, sizeof(errbuf)) == SETOPS_GPU_OK,
					  "alloc: %s", errbuf);
				CUDA_OK(cudaMemcpy(cur, keys.data(), keys.size() * sizeof(Key), cudaMemcpyHostToDevice));
				SetopsGpuStatus st = setops_gpu_reduce_device(op, key_type<Key>(), cur, spare, len.data(),
															 nruns, &in_spare, &n, errbuf, sizeof(errbuf));

				CHECK(st == SETOPS_GPU_OK, "reduce %s: %s", op_names[op], errbuf);
				std::vector<Key> got(n > 0 ? n : 1);

				CUDA_OK(cudaMemcpy(got.data(), in_spare ? spare : cur, n * sizeof(Key), cudaMemcpyDeviceToHost));
				got.resize(n);
				reductions++;
				CHECK(got == acc, "reduce %s of %d runs (%s, %s): %" PRId64 " keys, want %zu",
					  op_names[op], nruns, testgen_shape_names[shape],
					  sizeof(Key) == 8 ? "int8" : "int4", n, acc.size());
				setops_gpu_buffer_free(cur);
				setops_gpu_buffer_free(spare);
			}
}

/* ---- bench ---- */

static double
median(std::vector<double> v)
{
	std::sort(v.begin(), v.end());
	return v[v.size() / 2];
}

/* Kernel time (ms) and end-to-end time of a batch, medians of 7. */
static void
bench_batch(const char *what, SetopsOp op, Batch<int32_t> &t)
{
	int64_t		npairs = (int64_t) t.a_len.size(),
				bound = 0,
				i;
	char		errbuf[SETOPS_GPU_ERRLEN];
	std::vector<double> kernel,
				total;

	for (i = 0; i < npairs; i++)
		bound += setop_output_bound(op, t.a_len[i], t.b_len[i]);
	std::vector<int32_t> out(bound + 1);
	std::vector<int64_t> lens(npairs);
	int32_t    *a_pinned,
			   *b_pinned,
			   *o_pinned;

	/* host buffers pinned, as the service's arena is */
	CUDA_OK(cudaHostAlloc(&a_pinned, t.a.size() * 4 + 4, 0));
	CUDA_OK(cudaHostAlloc(&b_pinned, t.b.size() * 4 + 4, 0));
	CUDA_OK(cudaHostAlloc(&o_pinned, out.size() * 4, 0));
	memcpy(a_pinned, t.a.data(), t.a.size() * 4);
	memcpy(b_pinned, t.b.data(), t.b.size() * 4);
	for (int r = 0; r < 8; r++)
	{
		SetopsGpuBatchArgs args = batch_args(op, t, a_pinned, b_pinned, o_pinned, lens.data());
		double		t0 = now_ms();

		if (setops_gpu_setop_batch(&args, errbuf, sizeof(errbuf)) != SETOPS_GPU_OK)
		{
			printf("%s: %s\n", what, errbuf);
			exit(1);
		}
		if (r > 0)
		{
			kernel.push_back(args.ms_kernel);
			total.push_back(now_ms() - t0);
		}
	}
	{
		int64_t		work = 0;
		int64_t		outputs = 0;

		for (i = 0; i < npairs; i++)
			work += t.a_len[i] + (t.b_shared ? 0 : t.b_len[i]);
		for (i = 0; i < npairs; i++)
			outputs += lens[i];
		printf("%-48s %-9s pairs %8" PRId64 "  elements %9" PRId64 "  out %9" PRId64 "  kernel %8.3f ms (%6.2f G el/s)  with transfers %8.3f ms\n",
			   what, op_names[op], npairs, work, outputs, median(kernel), work / median(kernel) / 1e6,
			   median(total));
	}
	cudaFreeHost(a_pinned);
	cudaFreeHost(b_pinned);
	cudaFreeHost(o_pinned);
}

static void
bench(bool tiny_only)
{
	/*
	 * 11M elements each: skewed, 5M + 5M next to 100k pairs of 5 + 5;
	 * uniform, pairs of one size.  55 + 55 is the skewed batch's uniform
	 * twin (the same elements over about as many pairs); 5 + 5 and
	 * 5000 + 5000 show what a pair costs.  Every pair's sides are aligned
	 * (align_last_pair), so all batches overlap alike; the twin is run
	 * unaligned too, to show what output volume alone does.
	 */
	Batch<int32_t> uniform[4],
				twin_unaligned,
				skewed,
				probe;
	int			sizes[4] = {5, 55, 50, 5000};
	char		name[4][64];

	for (int u = 0; u < 4; u++)
	{
		for (int i = 0; i < 5500000 / sizes[u]; i++)
		{
			add_pair(uniform[u], sizes[u], sizes[u], SHAPE_UNIFORM_NARROW, i);
			align_last_pair(uniform[u]);
		}
		snprintf(name[u], sizeof(name[u]), "uniform (%d pairs of %d + %d)", 5500000 / sizes[u],
				 sizes[u], sizes[u]);
	}
	for (int i = 0; i < 100000; i++)
		add_pair(twin_unaligned, 55, 55, SHAPE_UNIFORM_NARROW, i);
	for (int i = 0; i < 100001; i++)
	{
		if (i == 50000)
			add_pair(skewed, 5000000, 5000000, SHAPE_UNIFORM_NARROW, i);
		else
			add_pair(skewed, 5, 5, SHAPE_UNIFORM_NARROW, i);
		align_last_pair(skewed);
	}
	if (tiny_only)
	{
		/* for a profiler: the uniform pairs that lag most, then the skewed batch */
		for (int op = 0; op < 2; op++)
		{
			bench_batch(name[3], (SetopsOp) op, uniform[3]);
			bench_batch("skewed (5M + 5M among 100k of 5 + 5)", (SetopsOp) op, skewed);
		}
		return;
	}
	for (int op = 0; op < 2; op++)
	{
		for (int u = 0; u < 4; u++)
			bench_batch(name[u], (SetopsOp) op, uniform[u]);
		bench_batch("uniform (100000 pairs of 55 + 55), unaligned", (SetopsOp) op, twin_unaligned);
		bench_batch("skewed (5M + 5M among 100k of 5 + 5)", (SetopsOp) op, skewed);
	}

	/* the shared-B probe: 16k rows of 1,000 against one of 100,000 */
	probe.b.resize(100000);
	for (int i = 0; i < 100000; i++)
		probe.b[i] = i * 20;
	for (int i = 0; i < 16000; i++)
	{
		probe.a_start.push_back((int64_t) probe.a.size());
		probe.a_len.push_back(1000);
		for (int j = 0; j < 1000; j++)
			probe.a.push_back((int32_t) testgen_range(0, 4000000));
		std::sort(probe.a.end() - 1000, probe.a.end());
		probe.b_start.push_back(0);
		probe.b_len.push_back(100000);
	}
	probe.b_shared = true;
	bench_batch("shared B: 16k rows of 1,000 vs 100,000", SETOPS_OP_INTERSECT, probe);

	/* a reduction: 10,000 runs of 10,000 keys from [0, 1e9) */
	{
		int64_t		nruns = 10000,
					per = 10000,
					total = nruns * per,
					n = 0;
		std::vector<int32_t> keys(total);
		std::vector<int64_t> len(nruns, per);
		char		errbuf[SETOPS_GPU_ERRLEN];
		void	   *cur,
				   *spare;
		int			in_spare;
		std::vector<double> gpu_ms;

		for (int64_t r = 0; r < nruns; r++)
		{
			for (int64_t j = 0; j < per; j++)
				keys[r * per + j] = (int32_t) testgen_range(0, 1000000000);
			std::sort(keys.begin() + r * per, keys.begin() + (r + 1) * per);
		}
		CUDA_OK(cudaMalloc(&cur, total * 4 + 64));
		CUDA_OK(cudaMalloc(&spare, total * 4 + 64));
		for (int r = 0; r < 6; r++)
		{
			double		t0;

			CUDA_OK(cudaMemcpy(cur, keys.data(), total * 4, cudaMemcpyHostToDevice));
			t0 = now_ms();
			if (setops_gpu_reduce_device(SETOPS_OP_UNION, SETOPS_KEY_INT32, cur, spare, len.data(),
										 nruns, &in_spare, &n, errbuf, sizeof(errbuf)) != SETOPS_GPU_OK)
			{
				printf("reduce: %s\n", errbuf);
				exit(1);
			}
			if (r > 0)
				gpu_ms.push_back(now_ms() - t0);
		}
		/* the CPU engine's rounds (one core), once */
		{
			std::vector<int32_t> x(keys),
						y(total + SETOPS_CPU_OUTPUT_SLACK);
			std::vector<int64_t> l(len),
						ol(nruns);
			int64_t		m = nruns;
			double		t0 = now_ms();

			while (m > 1)
			{
				std::vector<int64_t> as_l,
							as_s,
							bs_l,
							bs_s;
				int64_t		s = 0,
							k,
							c;
				SetopsSegd	as,
							bs;

				for (k = 0; k + 1 < m; k += 2)
				{
					as_s.push_back(s);
					as_l.push_back(l[k]);
					bs_s.push_back(s + l[k]);
					bs_l.push_back(l[k + 1]);
					s += l[k] + l[k + 1];
				}
				as.nsegs = bs.nsegs = (int64_t) as_l.size();
				as.lengths = as_l.data();
				as.starts = as_s.data();
				bs.lengths = bs_l.data();
				bs.starts = bs_s.data();
				c = setops_cpu_setop_segmented_i32(SETOPS_OP_UNION, x.data(), &as, x.data(), &bs,
												   y.data(), ol.data(), NULL);
				if (m % 2)
				{
					memcpy(y.data() + c, x.data() + s, l[m - 1] * 4);
					ol[as.nsegs] = l[m - 1];
				}
				m = as.nsegs + m % 2;
				std::copy(ol.begin(), ol.begin() + m, l.begin());
				x.swap(y);
			}
			printf("reduce: union of 10,000 runs of 10,000 int4 (device-resident rounds): gpu %.2f ms, cpu engine %.1f ms, %.1fx, %" PRId64 " keys (cpu %" PRId64 ")\n",
				   median(gpu_ms), now_ms() - t0, (now_ms() - t0) / median(gpu_ms), n, l[0]);
		}
		cudaFree(cur);
		cudaFree(spare);
	}
}

int
main(int argc, char **argv)
{
	char		errbuf[SETOPS_GPU_ERRLEN];

	if (setops_gpu_device_count(errbuf, sizeof(errbuf)) == 0)
	{
		printf("no GPU: %s\n", errbuf);
		return 2;
	}
	if (argc > 1 && strcmp(argv[1], "bench") == 0)
	{
		bench(argc > 2 && strcmp(argv[2], "tiny") == 0);
		return 0;
	}
	if (argc > 2 && strcmp(argv[2], "quick") == 0)
		scale = 10;
	if (argc > 2 && strcmp(argv[2], "tiny") == 0)
		scale = 40;
	if (argc > 2 && strcmp(argv[2], "race") == 0)
	{
		scale = 40;
		shape_step = 3;
		reduce_counts = 5;		/* up to 64 runs */
	}
	if (ref_mutating())
		printf("batch_test: MUTATED (SETOPS_TEST_MUTATE): the reference's and the guard's checks must fail\n");
	test_batches<int32_t>();
	test_batches<int64_t>();
	if (scale == 1)
	{
		test_large_batch<int32_t>();
		test_large_batch<int64_t>();
	}
	test_reduce<int32_t>();
	test_reduce<int64_t>();
	printf("batch_test: %ld batches compared in full with the CPU engine, %ld pairs' answers checked "
		   "by the independent reference, %ld reductions compared with a fold\n", batches, ref_pairs,
		   reductions);
	printf("%ld passed, %ld failed\n", passed, failed);
	return failed ? 1 : 0;
}
