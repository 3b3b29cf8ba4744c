/*
 * packed_inputs.h
 *	  The sorted inputs both packed-format GPU tests run (the decoder's and
 *	  the encoder's), handed one at a time to a sink: a callable taking
 *	  (const Key *keys, int64_t n, const char *what) for Key int32_t and
 *	  int64_t (a generic lambda).
 */
#ifndef SETOPS_PACKED_INPUTS_H
#define SETOPS_PACKED_INPUTS_H

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <type_traits>
#include <vector>

#include "../common/testgen.h"

template <typename Key>
static void
packed_gen(std::vector<Key> &v, int64_t n, TestShape s, int64_t salt)
{
	v.resize(n + 1);
	if (sizeof(Key) == 4)
		testgen_i32((int32_t *) v.data(), n, s, salt);
	else
		testgen_i64((int64_t *) v.data(), n, s, salt);
	v.resize(n);
}

/* Every generator shape at sizes around lanes, rows and chunks. */
template <typename Key, typename Sink>
static void
packed_shape_inputs(bool quick, Sink sink)
{
	static const int64_t sizes[] = {0, 1, 2, 15, 16, 17, 31, 32, 33, 63, 64, 65, 1023, 1024,
		1025, 2047, 2048, 2049, 4095, 4096, 4097, 10 * 1024 - 1, 10 * 1024, 10 * 1024 + 1,
		100000, 131 * 1024 - 1, 131 * 1024 + 1};
	std::vector<Key> v;

	for (int64_t n : sizes)
	{
		if (quick && n > 20000)
			continue;
		for (int shape = 0; shape < SHAPE_COUNT; shape++)
		{
			packed_gen(v, n, (TestShape) shape, n + shape);
			sink(v.data(), n, testgen_shape_names[shape]);
		}
	}
}

/* Mostly gaps of 0..3, with a share of outliers: the encoder patches them. */
template <typename Key, typename Sink>
static void
packed_patch_inputs(int64_t n, Sink sink)
{
	static const int percents[] = {0, 1, 10, 50};
	typedef typename std::make_unsigned<Key>::type Word;

	for (int pct : percents)
	{
		std::vector<Key> v(n);
		/* from the type's minimum: the outliers must not run past its maximum */
		Word		x = (Word) 1 << (sizeof(Key) * 8 - 1);
		char		what[64];

		for (int64_t i = 0; i < n; i++)
		{
			bool		outlier = (int) (testgen_rnd() % 100) < pct;
			Word		gap;

			if (sizeof(Key) == 4)
				gap = outlier ? (Word) (testgen_rnd() % 256 + 256) : (Word) (testgen_rnd() % 4);
			else
				gap = outlier ? (Word) (testgen_rnd() % ((uint64_t) 1 << 40)) : (Word) (testgen_rnd() % 4);
			x += gap;
			v[i] = (Key) x;
		}
		snprintf(what, sizeof(what), "gaps 0..3, %d%% outliers", pct);
		sink(v.data(), n, what);
	}
}

/* The widest differences the encoder meets: patches of 32 / 64 bits. */
template <typename Sink>
static void
packed_extreme_inputs(bool quick, Sink sink)
{
	int32_t		a[] = {INT32_MIN, INT32_MIN, -1, 0, 1, INT32_MAX - 1, INT32_MAX, INT32_MAX};
	int64_t		b[] = {INT64_MIN, INT64_MIN + 1, -1, 0, INT64_MAX - 1, INT64_MAX};
	int64_t		big = quick ? 5000 : 300000;
	std::vector<int32_t> c(big);
	std::vector<int64_t> d(big);

	sink(a, 8, "extremes");
	sink(b, 6, "extremes");
	for (int64_t i = 0; i < big; i++)
	{
		c[i] = i < big / 2 ? INT32_MIN : INT32_MAX;
		d[i] = i < big / 3 ? INT64_MIN : (i < 2 * big / 3 ? 0 : INT64_MAX);
	}
	sink(c.data(), big, "two extremes");
	sink(d.data(), big, "three extremes");
	/* even steps over the whole range of the type */
	for (int64_t i = 0; i < big; i++)
	{
		c[i] = (int32_t) ((uint32_t) INT32_MIN + (uint32_t) (i * (UINT32_MAX / big)));
		d[i] = (int64_t) ((uint64_t) INT64_MIN + (uint64_t) i * (UINT64_MAX / (uint64_t) big));
	}
	sink(c.data(), big, "full-range steps");
	sink(d.data(), big, "full-range steps");
}

/* Everything above but the large inputs, both key types. */
template <typename Sink>
static void
packed_common_inputs(bool quick, Sink sink)
{
	packed_shape_inputs<int32_t>(quick, sink);
	packed_shape_inputs<int64_t>(quick, sink);
	packed_patch_inputs<int32_t>(quick ? 30000 : 300000, sink);
	packed_patch_inputs<int64_t>(quick ? 30000 : 300000, sink);
	packed_extreme_inputs(quick, sink);
}

/* Large inputs: many chunks and blocks (16M to 64M keys). */
template <typename Sink>
static void
packed_large_inputs(Sink sink)
{
	std::vector<int32_t> a;
	std::vector<int64_t> b;

	packed_gen(a, ((int64_t) 16 << 20) + 1, SHAPE_UNIFORM_NARROW, 1);
	sink(a.data(), (int64_t) a.size(), "narrow");
	packed_gen(a, ((int64_t) 64 << 20) - 1, SHAPE_CLUSTERED, 2);
	sink(a.data(), (int64_t) a.size(), "clustered");
	packed_gen(a, (int64_t) 64 << 20, SHAPE_UNIFORM_WIDE, 3);
	sink(a.data(), (int64_t) a.size(), "wide");
	a.clear();
	a.shrink_to_fit();
	packed_gen(b, ((int64_t) 16 << 20) - 1, SHAPE_EXTREMES, 4);
	sink(b.data(), (int64_t) b.size(), "extremes");
	packed_gen(b, ((int64_t) 64 << 20) + 1, SHAPE_UNIFORM_NARROW, 5);
	sink(b.data(), (int64_t) b.size(), "narrow");
	packed_gen(b, (int64_t) 64 << 20, SHAPE_LONG_RUNS, 6);
	sink(b.data(), (int64_t) b.size(), "long runs");
	b.clear();
	b.shrink_to_fit();
	packed_patch_inputs<int32_t>((int64_t) 16 << 20, sink);
	packed_patch_inputs<int64_t>((int64_t) 16 << 20, sink);
}

#endif							/* SETOPS_PACKED_INPUTS_H */
