/*
 * testgen.h
 *	  Deterministic random inputs for the C unit tests and the GPU kernel
 *	  tests: sorted int32/int64 arrays in shapes chosen to break set
 *	  operations (heavy duplicates, long runs, all-equal, extremes,
 *	  clusters).  Plain C, header-only.
 */
#ifndef SETOPS_TESTGEN_H
#define SETOPS_TESTGEN_H

#include <stdint.h>
#include <stdlib.h>

/* xorshift64*: the same sequence on every platform */
static uint64_t testgen_state = 88172645463325252ULL;

static inline uint64_t
testgen_rnd(void)
{
	testgen_state ^= testgen_state >> 12;
	testgen_state ^= testgen_state << 25;
	testgen_state ^= testgen_state >> 27;
	return testgen_state * 2685821657736338717ULL;
}

/* inclusive range */
static inline int64_t
testgen_range(int64_t lo, int64_t hi)
{
	uint64_t	span = (uint64_t) hi - (uint64_t) lo + 1;

	if (span == 0)
		return (int64_t) testgen_rnd();
	return (int64_t) ((uint64_t) lo + testgen_rnd() % span);
}

typedef enum TestShape
{
	SHAPE_UNIFORM_WIDE,			/* few duplicates */
	SHAPE_UNIFORM_NARROW,		/* about two copies per key */
	SHAPE_TINY_RANGE,			/* heavy duplicates: keys in [0, 8) */
	SHAPE_LONG_RUNS,			/* runs of up to 3000 copies */
	SHAPE_ALL_EQUAL,
	SHAPE_EXTREMES,				/* min / max of the type and neighbours */
	SHAPE_CLUSTERED,			/* dense blocks far apart */
	SHAPE_COUNT
} TestShape;

static const char *const testgen_shape_names[] = {"wide", "narrow", "tiny-range",
"long-runs", "all-equal", "extremes", "clustered"};

static inline int
testgen_cmp_i32(const void *x, const void *y)
{
	int32_t		a = *(const int32_t *) x,
				b = *(const int32_t *) y;

	return (a > b) - (a < b);
}

static inline int
testgen_cmp_i64(const void *x, const void *y)
{
	int64_t		a = *(const int64_t *) x,
				b = *(const int64_t *) y;

	return (a > b) - (a < b);
}

/* Keys are generated in order where the shape allows, so that large
 * inputs need no sort. */
#define TESTGEN_DEFINE(SFX, KEY, KMIN, KMAX)									\
static inline void																\
testgen_##SFX(KEY *v, int64_t n, TestShape shape, int64_t salt)				\
{																				\
	int64_t		i = 0;															\
	int			sorted = 0;														\
	switch (shape)																\
	{																			\
		case SHAPE_UNIFORM_WIDE:												\
			for (i = 0; i < n; i++) v[i] = (KEY) testgen_range(KMIN, KMAX);		\
			break;																\
		case SHAPE_UNIFORM_NARROW:												\
			{																	\
				/* ascending walk with steps 0..1: about two copies per key */	\
				KEY			x = (KEY) testgen_range(-1000, 1000);				\
				for (i = 0; i < n; i++)											\
				{																\
					x = (KEY) (x + (KEY) (testgen_rnd() % 2));					\
					v[i] = x;													\
				}																\
				sorted = 1;														\
			}																	\
			break;																\
		case SHAPE_TINY_RANGE:													\
			for (i = 0; i < n; i++) v[i] = (KEY) testgen_range(0, 7);			\
			break;																\
		case SHAPE_LONG_RUNS:													\
			while (i < n)														\
			{																	\
				KEY			x = (KEY) testgen_range(-50, 50);					\
				int64_t		run = testgen_range(1, 3000);						\
				for (; run > 0 && i < n; run--) v[i++] = x;						\
			}																	\
			break;																\
		case SHAPE_ALL_EQUAL:													\
			for (i = 0; i < n; i++) v[i] = (KEY) (salt & 1);					\
			sorted = 1;															\
			break;																\
		case SHAPE_EXTREMES:													\
			{																	\
				const KEY	pool[] = {KMIN, KMIN + 1, -1, 0, 1, KMAX - 1, KMAX};	\
				for (i = 0; i < n; i++) v[i] = pool[testgen_rnd() % 7];			\
			}																	\
			break;																\
		case SHAPE_CLUSTERED:													\
			while (i < n)														\
			{																	\
				KEY			base = (KEY) testgen_range(KMIN / 2, KMAX / 2);		\
				int64_t		len = testgen_range(1, 5000);						\
				for (; len > 0 && i < n; len--)									\
					v[i++] = (KEY) (base + testgen_range(0, 20000));			\
			}																	\
			break;																\
		default:																\
			break;																\
	}																			\
	if (!sorted)																\
		qsort(v, n, sizeof(KEY), testgen_cmp_##SFX);							\
}

TESTGEN_DEFINE(i32, int32_t, INT32_MIN, INT32_MAX)
TESTGEN_DEFINE(i64, int64_t, INT64_MIN, INT64_MAX)

#endif							/* SETOPS_TESTGEN_H */
