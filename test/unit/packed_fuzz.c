/*
 * packed_fuzz.c
 *	  Fuzzing the packed receive path: setops_packed_check() then, for what
 *	  it accepts, setops_packed_decode_*().  Neither may read or write out of
 *	  bounds on any input; build with -fsanitize=address,undefined.
 *
 *   packed_fuzz [iterations]   deterministic mutation fuzzer: valid values
 *                              of random shapes, mutated (bit flips, byte
 *                              overwrites, counts set to random or extreme
 *                              values, truncation, extension), checked and
 *                              decoded.  Prints "N passed, N failed".
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

/* Decodes at most this many keys (a value claiming more is checked only). */
#define DECODE_LIMIT (1 << 22)

/* Check, then decode what passes; returns 1 when accepted and decoded. */
static int
receive(const void *bytes, size_t size)
{
	void	   *buf;
	const PackedHeader *h;
	int			ok = 0;

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
		/* accepted values decode to sorted keys */
		if (ok)
		{
			int64_t		i;

			for (i = 1; i < h->n; i++)
				if (h->key_bytes == 8 ? ((int64_t *) out)[i] < ((int64_t *) out)[i - 1]
					: ((int32_t *) out)[i] < ((int32_t *) out)[i - 1])
				{
					fprintf(stderr, "accepted value decodes unsorted\n");
					abort();
				}
		}
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
	receive(data, size);
	return 0;
}
#else

/* A valid value of a random shape, key type and size. */
static size_t
valid_value(char **out)
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
		free(k);
	}
	else
	{
		int32_t    *k = malloc((n + 1) * sizeof(int32_t));

		testgen_i32(k, n, shape, n);
		size = setops_packed_encode_i32(k, n, *out);
		free(k);
	}
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

int
main(int argc, char **argv)
{
	long		iterations = argc > 1 ? atol(argv[1]) : 20000;
	long		i,
				accepted = 0,
				refused = 0,
				valid_ok = 0;

	for (i = 0; i < iterations; i++)
	{
		char	   *buf;
		size_t		size = valid_value(&buf);
		size_t		cap = setops_packed_bound(((PackedHeader *) buf)->key_bytes,
											  ((PackedHeader *) buf)->n) + 256;
		int			rounds = 1 + (int) (testgen_rnd() % 3),
					r;

		/* the unmutated value must be accepted */
		valid_ok += receive(buf, size);
		for (r = 0; r < rounds; r++)
			mutate(buf, &size, cap);
		if (receive(buf, size))
			accepted++;
		else
			refused++;
		free(buf);
	}
	printf("packed_fuzz: %ld iterations: %ld mutated values refused, %ld accepted (and decoded sorted)\n",
		   iterations, refused, accepted);
	printf("%ld passed, %ld failed\n", valid_ok + iterations, iterations - valid_ok);
	return valid_ok == iterations ? 0 : 1;
}
#endif
