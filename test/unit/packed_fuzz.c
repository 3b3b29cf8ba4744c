/*
 * packed_fuzz.c
 *	  Fuzzing the packed receive path: setops_packed_check() then, for what
 *	  it accepts, setops_packed_decode_*().  Neither may read or write out of
 *	  bounds on any input; build with -fsanitize=address,undefined.
 *
 *   packed_fuzz [--mutate] [iterations]
 *                              deterministic mutation fuzzer: valid values
 *                              of random shapes round trip (decoded key by
 *                              key equal to the input), then are mutated
 *                              (bit flips, byte overwrites, counts set to
 *                              random or extreme values, truncation,
 *                              extension), checked and decoded.  Prints
 *                              "N passed, N failed", counting the round
 *                              trips and the accepted mutated values
 *                              found sorted; refusals are counted apart.
 *
 * --mutate (or SETOPS_TEST_MUTATE=1) flips one input key after encoding:
 * every round trip of a non-empty value must then fail.
 *
 * Built with -DSETOPS_LIBFUZZER and clang -fsanitize=fuzzer it is instead a
 * libFuzzer target taking raw bytes.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../engine/cpu/packed_codec.h"
#include "../common/testgen.h"
#include "../common/testcheck.h"

/* Decodes at most this many keys (a value claiming more is checked only). */
#define DECODE_LIMIT (1 << 22)

/* A decoded value: its keys (malloc'd), count and key width. */
typedef struct Decoded
{
	void	   *keys;
	int64_t		n;
	int			key_bytes;
	int			sorted;			/* accepted values must decode sorted */
} Decoded;

/*
 * Check, then decode what passes; returns 1 when accepted and decoded, the
 * keys in *d (the caller frees d->keys), else 0 and d->keys NULL.
 */
static int
receive(const void *bytes, size_t size, Decoded *d)
{
	void	   *buf;
	const PackedHeader *h;
	int			ok = 0;

	d->keys = NULL;
	d->n = 0;
	d->key_bytes = 0;
	d->sorted = 0;
	/* the receive path copies into aligned memory first, as PostgreSQL does */
	buf = malloc(size ? size : 1);
	memcpy(buf, bytes, size);
	h = (const PackedHeader *) buf;
	if (setops_packed_check(buf, size) == NULL && h->n <= DECODE_LIMIT)
	{
		void	   *out = malloc((size_t) (h->n + 1) * h->key_bytes);

		if (h->key_bytes == 8)
			ok = setops_packed_decode_i64(buf, out) == NULL;
		else
			ok = setops_packed_decode_i32(buf, out) == NULL;
		if (ok)
		{
			int64_t		i;

			d->keys = out;
			d->n = h->n;
			d->key_bytes = h->key_bytes;
			d->sorted = 1;
			for (i = 1; i < h->n && d->sorted; i++)
				if (h->key_bytes == 8 ? ((int64_t *) out)[i] < ((int64_t *) out)[i - 1]
					: ((int32_t *) out)[i] < ((int32_t *) out)[i - 1])
					d->sorted = 0;
		}
		else
			free(out);
	}
	free(buf);
	return ok;
}

#ifdef SETOPS_LIBFUZZER
int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	Decoded		d;

	if (receive(data, size, &d) && !d.sorted)
	{
		fprintf(stderr, "accepted value decodes unsorted\n");
		abort();
	}
	free(d.keys);
	return 0;
}
#else

/* A valid value of a random shape, key type and size; its keys in *keys
 * (malloc'd, n of them, key_bytes wide) for the round trip. */
static size_t
valid_value(char **out, void **keys, int64_t *nkeys, int *key_bytes)
{
	int			wide = testgen_rnd() % 2;
	int64_t		n = testgen_range(0, testgen_rnd() % 4 ? 3000 : 40000);
	TestShape	shape = (TestShape) (testgen_rnd() % SHAPE_COUNT);
	size_t		bound = setops_packed_bound(wide ? 8 : 4, n);
	size_t		size;

	*out = malloc(bound + 256);
	if (wide)
	{
		int64_t    *k = malloc((n + 1) * sizeof(int64_t));

		testgen_i64(k, n, shape, n);
		size = setops_packed_encode_i64(k, n, *out);
		*keys = k;
	}
	else
	{
		int32_t    *k = malloc((n + 1) * sizeof(int32_t));

		testgen_i32(k, n, shape, n);
		size = setops_packed_encode_i32(k, n, *out);
		*keys = k;
	}
	*nkeys = n;
	*key_bytes = wide ? 8 : 4;
	return size;
}

static void
mutate(char *buf, size_t *size, size_t cap)
{
	int			kind = (int) (testgen_rnd() % 6);
	int			k;

	switch (kind)
	{
		case 0:					/* bit flips */
			for (k = 0; k < 1 + (int) (testgen_rnd() % 4) && *size > 0; k++)
				buf[testgen_rnd() % *size] ^= (char) (1 << (testgen_rnd() % 8));
			break;
		case 1:					/* byte overwrites */
			for (k = 0; k < 1 + (int) (testgen_rnd() % 8) && *size > 0; k++)
				buf[testgen_rnd() % *size] = (char) testgen_rnd();
			break;
		case 2:					/* a header count set to something else */
			if (*size >= sizeof(PackedHeader))
			{
				PackedHeader *h = (PackedHeader *) buf;
				static const int64_t odd[] = {0, 1, -1, 1024, 1025, INT32_MAX, INT64_MAX,
				INT64_MIN, ((int64_t) 1 << 40) + 1};
				int64_t		v = testgen_rnd() % 2 ? odd[testgen_rnd() % 9] : (int64_t) testgen_rnd();

				switch (testgen_rnd() % 5)
				{
					case 0: h->n = v; break;
					case 1: h->nwords = v; break;
					case 2: h->npatches = v; break;
					case 3: h->nchunks = (uint32_t) v; break;
					default: h->npatched_chunks = (uint32_t) v; break;
				}
			}
			break;
		case 3:					/* truncated */
			*size = *size ? testgen_rnd() % *size : 0;
			break;
		case 4:					/* extended with junk */
			{
				size_t		extra = 1 + testgen_rnd() % 64;

				if (*size + extra <= cap)
				{
					for (k = 0; k < (int) extra; k++)
						buf[*size + k] = (char) testgen_rnd();
					*size += extra;
				}
			}
			break;
		default:				/* a 32-bit word in the tables set to an extreme */
			if (*size >= sizeof(PackedHeader) + 8)
			{
				size_t		at = sizeof(PackedHeader) + (testgen_rnd() % ((*size - sizeof(PackedHeader)) / 4)) * 4;
				static const uint32_t odd[] = {0, 1, 0xFFFFFFFF, 0x7FFFFFFF, 1024, 1023, 32, 33, 64, 65};

				if (at + 4 <= *size)
					memcpy(buf + at, &odd[testgen_rnd() % 10], 4);
			}
			break;
	}
}

/* Key i of keys key_bytes wide, widened. */
static int64_t
key_at(const void *keys, int key_bytes, int64_t i)
{
	return key_bytes == 8 ? ((const int64_t *) keys)[i] : ((const int32_t *) keys)[i];
}

int
main(int argc, char **argv)
{
	int			argi = 1;
	int			planted = 0;
	const char *env = getenv("SETOPS_TEST_MUTATE");
	long		iterations,
				i,
				round_trips = 0,
				accepted = 0,
				refused = 0;

	if (env != NULL && *env != '\0' && strcmp(env, "0") != 0)
		planted = 1;
	if (argc > argi && strcmp(argv[argi], "--mutate") == 0)
	{
		planted = 1;
		argi++;
	}
	iterations = argc > argi ? atol(argv[argi]) : 20000;
	if (planted)
		printf("packed_fuzz: MUTATED run (one input key flipped after encoding): it must fail\n");

	for (i = 0; i < iterations; i++)
	{
		char	   *buf;
		void	   *keys;
		int64_t		n,
					k;
		int			key_bytes;
		size_t		size = valid_value(&buf, &keys, &n, &key_bytes);
		size_t		cap = setops_packed_bound(((PackedHeader *) buf)->key_bytes,
											  ((PackedHeader *) buf)->n) + 256;
		int			rounds = 1 + (int) (testgen_rnd() % 3),
					r;
		Decoded		d;

		if (planted && n > 0)
		{
			/* planted: the input no longer what was encoded */
			if (key_bytes == 8)
				((int64_t *) keys)[n / 2] ^= 1;
			else
				((int32_t *) keys)[n / 2] ^= 1;
		}

		/* the unmutated value is accepted and decodes to exactly its keys */
		k = -1;
		if (receive(buf, size, &d) && d.n == n && d.key_bytes == key_bytes)
			for (k = 0; k < n; k++)
				if (key_at(d.keys, key_bytes, k) != key_at(keys, key_bytes, k))
					break;
		CHECK(k == n, "round trip %ld (int%d, %" PRId64 " keys): %s %" PRId64,
			  i, key_bytes, n, k < 0 ? "refused or wrong header, decoded n" : "first differing key at",
			  k < 0 ? d.n : k);
		round_trips++;
		free(d.keys);
		free(keys);

		/* mutated: refused, or accepted and decoded sorted */
		for (r = 0; r < rounds; r++)
			mutate(buf, &size, cap);
		if (receive(buf, size, &d))
		{
			CHECK(d.sorted, "mutated value %ld accepted but decodes unsorted", i);
			accepted++;
			free(d.keys);
		}
		else
			refused++;			/* no check but the sanitizers' */
		free(buf);
	}
	printf("packed_fuzz: %ld iterations: %ld round trips compared key by key, "
		   "%ld mutated values refused, %ld accepted and checked sorted\n",
		   iterations, round_trips, refused, accepted);
	printf("%ld passed, %ld failed\n", passed, failed);
	return failed ? 1 : 0;
}
#endif
