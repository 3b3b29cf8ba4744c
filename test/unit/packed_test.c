/*
 * packed_test.c
 *	  Unit tests of the packed codec (engine/common/packed_format.h,
 *	  engine/cpu/packed_codec.c).
 *
 *   round trips   every input shape, sizes around lane, row and chunk
 *                 boundaries, both key types: encode, check, decode, equal;
 *   size          16M sorted random int4 in [0, 32M) packs within 25% of
 *                 the int4[] bytes;
 *   patches       inputs whose differences mostly fit a small width, with
 *                 0%, 1%, 10% and 50% outliers, and extremes;
 *   corruption    each structural field broken on purpose is refused by
 *                 the check; order broken on purpose is refused by decode.
 *
 * Prints "N passed, N failed"; exits non-zero on failure.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../engine/cpu/packed_codec.h"
#include "../common/testgen.h"
#include "../common/testcheck.h"

/* Encode, check and decode; returns the packed size (0 on failure). */
#define DEFINE_ROUND_TRIP(SFX, KEY)												\
static size_t																	\
round_trip_##SFX(const KEY *keys, int64_t n, const char *what)					\
{																				\
	size_t		bound = setops_packed_bound(sizeof(KEY), n);					\
	void	   *buf = malloc(bound);											\
	KEY		   *back = malloc((n + 1) * sizeof(KEY));							\
	size_t		size = setops_packed_encode_##SFX(keys, n, buf);				\
	const char *err = size ? setops_packed_check(buf, size) : "encode failed";	\
	const char *derr = err ? err : setops_packed_decode_##SFX(buf, back);		\
	int			same = derr == NULL && (n == 0 || memcmp(keys, back, n * sizeof(KEY)) == 0);	\
																				\
	CHECK(size > 0 && size <= bound && same,									\
		  "round trip %s n=%" PRId64 ": size %zu bound %zu: %s", what, n, size,	\
		  bound, derr ? derr : (same ? "" : "keys differ"));					\
	free(buf);																	\
	free(back);																	\
	return same ? size : 0;														\
}

DEFINE_ROUND_TRIP(i32, int32_t)
DEFINE_ROUND_TRIP(i64, int64_t)

static void
shape_cases(void)
{
	static const int64_t sizes[] = {0, 1, 2, 15, 16, 17, 31, 32, 33, 63, 64, 65, 1023,
		1024, 1025, 2047, 2048, 2049, 5000, 100000};
	int			s,
				shape;

	for (s = 0; s < (int) (sizeof(sizes) / sizeof(sizes[0])); s++)
		for (shape = 0; shape < SHAPE_COUNT; shape++)
		{
			int64_t		n = sizes[s];
			int32_t    *a = malloc((n + 1) * sizeof(int32_t));
			int64_t    *b = malloc((n + 1) * sizeof(int64_t));
			char		what[64];

			testgen_i32(a, n, (TestShape) shape, n + shape);
			testgen_i64(b, n, (TestShape) shape, n + shape);
			snprintf(what, sizeof(what), "int4 %s", testgen_shape_names[shape]);
			round_trip_i32(a, n, what);
			snprintf(what, sizeof(what), "int8 %s", testgen_shape_names[shape]);
			round_trip_i64(b, n, what);
			free(a);
			free(b);
		}
}

/* Mostly gaps of 0..3, with a share of outliers: patches. */
static void
patch_cases(void)
{
	static const int percents[] = {0, 1, 10, 50};
	int			t;

	for (t = 0; t < 4; t++)
	{
		int64_t		n = 300000,
					i;
		int32_t    *a = malloc(n * sizeof(int32_t));
		int64_t    *b = malloc(n * sizeof(int64_t));
		int64_t		x = INT32_MIN / 2,
					y = INT64_MIN / 2;
		char		what[64];

		for (i = 0; i < n; i++)
		{
			int			outlier = (int) (testgen_rnd() % 100) < percents[t];

			x += outlier ? (int64_t) (testgen_rnd() % 5000) + 1000 : (int64_t) (testgen_rnd() % 4);
			y += outlier ? (int64_t) (testgen_rnd() % ((uint64_t) 1 << 40)) : (int64_t) (testgen_rnd() % 4);
			a[i] = (int32_t) x;
			b[i] = y;
		}
		snprintf(what, sizeof(what), "int4 %d%% outliers", percents[t]);
		printf("packed_test: %-20s %6.1f%% of int4[]\n", what,
			   100.0 * round_trip_i32(a, n, what) / (n * 4.0));
		snprintf(what, sizeof(what), "int8 %d%% outliers", percents[t]);
		printf("packed_test: %-20s %6.1f%% of int8[]\n", what,
			   100.0 * round_trip_i64(b, n, what) / (n * 8.0));
		free(a);
		free(b);
	}

	/* the widest differences there are */
	{
		int32_t		a[] = {INT32_MIN, INT32_MIN, -1, 0, 1, INT32_MAX - 1, INT32_MAX, INT32_MAX};
		int64_t		b[] = {INT64_MIN, INT64_MIN + 1, -1, 0, INT64_MAX - 1, INT64_MAX};
		int64_t		big = 5000,
					i;
		int32_t    *c = malloc(big * sizeof(int32_t));
		int64_t    *d = malloc(big * sizeof(int64_t));

		round_trip_i32(a, 8, "int4 extremes");
		round_trip_i64(b, 6, "int8 extremes");
		/* whole chunks of full-range jumps: width 32 / 64 */
		for (i = 0; i < big; i++)
		{
			c[i] = i < big / 2 ? INT32_MIN : INT32_MAX;
			d[i] = i % 2 ? INT64_MAX : INT64_MIN;
		}
		qsort(d, big, sizeof(int64_t), testgen_cmp_i64);
		round_trip_i32(c, big, "int4 two extremes");
		round_trip_i64(d, big, "int8 two extremes");
		for (i = 0; i < big; i++)
			c[i] = (int32_t) ((uint32_t) INT32_MIN + (uint32_t) (i * (UINT32_MAX / big)));
		round_trip_i32(c, big, "int4 full-range steps");
		free(c);
		free(d);
	}
}

static int
cmp_i32(const void *x, const void *y)
{
	return testgen_cmp_i32(x, y);
}

/* The size target: 16M sorted random int4 in [0, 32M). */
static void
size_case(void)
{
	int64_t		n = 16 * 1024 * 1024,
				i;
	int32_t    *a = malloc(n * sizeof(int32_t));
	size_t		size;

	for (i = 0; i < n; i++)
		a[i] = (int32_t) (testgen_rnd() % (32 * 1024 * 1024));
	qsort(a, n, sizeof(int32_t), cmp_i32);
	size = round_trip_i32(a, n, "16M random in [0, 32M)");
	printf("packed_test: 16M sorted random int4 in [0, 32M): %zu bytes, %.1f%% of int4[]\n",
		   size, 100.0 * size / (n * 4.0));
	CHECK(size > 0 && size <= n * 4 / 4, "16M random: %zu bytes is over 25%% of %" PRId64,
		  size, n * 4);
	free(a);
}

/* Each structural field broken on purpose must be refused. */
static void
corruption_cases(void)
{
	int64_t		n = 4000,
				i;
	int32_t    *a = malloc(n * sizeof(int32_t));
	int32_t    *back = malloc(n * sizeof(int32_t));
	size_t		bound = setops_packed_bound(4, n);
	char	   *good = malloc(bound);
	char	   *bad = malloc(bound + 64);
	size_t		size;
	PackedHeader *h;
	PackedLayout lay;
	uint32_t	patched_chunk = PACKED_NO_PATCHES;

	/* small gaps with outliers, so there are patches to break */
	for (i = 0; i < n; i++)
		a[i] = (int32_t) (i * 3 + (i % 97 == 0 ? 0 : 0)) + (i >= 2000 ? 900000 : 0) +
			(int32_t) (i % 50 == 0 ? i * 1000 : 0);
	qsort(a, n, sizeof(int32_t), cmp_i32);
	size = setops_packed_encode_i32(a, n, good);
	CHECK(setops_packed_check(good, size) == NULL, "corruption: the good value fails");
	h = (PackedHeader *) good;
	packed_layout(h, &lay);
	CHECK(h->npatches > 0, "corruption: the test value has no patches");
	for (i = 0; i < (int64_t) h->nchunks; i++)
		if (((uint32_t *) (good + lay.patch_row))[i] != PACKED_NO_PATCHES)
		{
			patched_chunk = (uint32_t) i;
			break;
		}

#define BROKEN(what, stmt)													\
	do {																	\
		size_t		bsize = size;											\
		PackedHeader *bh = (PackedHeader *) bad;							\
		memcpy(bad, good, size);											\
		(void) bh;															\
		stmt;																\
		CHECK(setops_packed_check(bad, bsize) != NULL, "corruption not refused: %s", what);	\
	} while (0)

	BROKEN("truncated", bsize = size - 8);
	BROKEN("too long", bsize = size + 8);
	BROKEN("shorter than a header", bsize = 10);
	BROKEN("version", bh->version = 9);
	BROKEN("key size", bh->key_bytes = 2);
	BROKEN("reserved bits", bh->reserved = 1);
	BROKEN("key count", bh->n += 1024);
	BROKEN("negative key count", bh->n = -5);
	BROKEN("word count", bh->nwords += 1);
	BROKEN("patch count", bh->npatches += 1);
	BROKEN("patched chunk count", bh->npatched_chunks += 1);
	BROKEN("width over 32", ((uint8_t *) (bad + lay.widths))[0] = 33);
	BROKEN("width against offsets", ((uint8_t *) (bad + lay.widths))[1] ^= 1);
	BROKEN("first word offset", ((uint32_t *) (bad + lay.word_start))[0] = 4);
	BROKEN("patch row out of order", ((uint32_t *) (bad + lay.patch_row))[patched_chunk] = 7);
	BROKEN("lane offsets descending",
		   ((uint32_t *) (bad + lay.lane_offsets))[1] = ((uint32_t *) (bad + lay.lane_offsets))[2] + 1);
	BROKEN("lane offset past the patches",
		   ((uint32_t *) (bad + lay.lane_offsets))[32] = (uint32_t) h->npatches + 5);
	BROKEN("patch position past the chunk", ((uint16_t *) (bad + lay.patch_pos))[0] = 1024);
	BROKEN("patch position in another lane", ((uint16_t *) (bad + lay.patch_pos))[0] ^= 1);

	/* structurally sound but not sorted: decode refuses */
	memcpy(bad, good, size);
	((int32_t *) (bad + lay.bases))[2] = INT32_MIN;
	CHECK(setops_packed_check(bad, size) == NULL &&
		  setops_packed_decode_i32(bad, back) != NULL, "a base below its predecessor decoded");
	memcpy(bad, good, size);
	((uint32_t *) (bad + lay.patch_diff))[0] = UINT32_MAX;
	CHECK(setops_packed_check(bad, size) == NULL &&
		  setops_packed_decode_i32(bad, back) != NULL, "an overflowing difference decoded");

	free(a);
	free(back);
	free(good);
	free(bad);
}

int
main(void)
{
	shape_cases();
	patch_cases();
	corruption_cases();
	size_case();
	printf("%ld passed, %ld failed\n", passed, failed);
	return failed ? 1 : 0;
}
