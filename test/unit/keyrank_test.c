/*
 * keyrank_test.c
 *	  Tests of the large-input reference (test/common/keyrank_ref.h) and of
 *	  the CPU engine against it where the engine cuts its inputs.
 *
 *   reference  on random inputs (every testgen.h shape, and runsgen.h's
 *              runs across cut points), int32 and int64, every operation:
 *              the reference accepts the textbook loop's answer
 *              (test/common/textbook.h) with its values and source
 *              positions, gives its count, and rejects each planted defect
 *              (a dropped copy, an extra copy, a wrong value, two copies'
 *              ranks swapped) at a random output; it reports an unsorted
 *              input as such;
 *   engine     the CPU engine's answers (keys and source positions) and its
 *              intersection count against the reference, on inputs with a
 *              duplicate run straddling every quarter of its chunk
 *              (SETOPS_CPU_CHUNK: its chunks and the four parts of each),
 *              a few chunks long; and with `large`, inputs crossing
 *              2^25 and 2^26 elements (the GPU's launch size), not run by CI.
 *
 * Usage: keyrank_test [--mutate] [rounds] [large]
 *
 * --mutate (or SETOPS_TEST_MUTATE set, not 0) plants the defects in the
 * answers the reference must accept (the textbook's, the engine's) in
 * turn: the run must then fail, which shows those checks can.
 * Prints how many answers were compared in full, then "N passed, N failed".
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../engine/cpu/engine.h"
#include "../common/keyrank_ref.h"
#include "../common/runsgen.h"
#include "../common/testgen.h"
#include "../common/testcheck.h"
#include "../common/textbook.h"

static const char *op_names[] = {"intersect", "union", "difference", "symdiff", "merge"};

/* the reference numbers its operations as SetopsOp */
typedef char keyrank_ops_match[(KEYRANK_INTERSECT == SETOPS_OP_INTERSECT &&
								KEYRANK_UNION == SETOPS_OP_UNION &&
								KEYRANK_DIFFERENCE == SETOPS_OP_DIFFERENCE &&
								KEYRANK_SYMDIFF == SETOPS_OP_SYMDIFF &&
								KEYRANK_MERGE == SETOPS_OP_MERGE) ? 1 : -1];

static int	mutate = 0;
static int	next_plant = 0;			/* --mutate: the defects in turn */
static long answers = 0;			/* answers compared in full with the reference */
static long rejections = 0;			/* planted defects the reference had to reject */

/* value bytes of combined position p: distinct for every copy */
static void
value_of(int64_t p, int stride, char *v)
{
	for (int t = 0; t < stride; t++)
		v[t] = (char) (p >> (8 * (t % 8))) ^ (char) t;
}

/*
 * Check candidate (keys, positions, n of them; room for one more) of op on
 * a and b with the reference: with values made from the positions and with
 * the positions themselves.  Under --mutate a defect is planted first.
 */
#define DEFINE_ANSWER_CHECK(SFX, KEY)												\
static void																			\
answer_check_##SFX(SetopsOp op, const KEY *a, int64_t na, const KEY *b, int64_t nb,	\
				   KEY *out, int64_t *pos, int64_t n, int64_t room, int stride,		\
				   const char *what)												\
{																					\
	char	   *av = malloc(na * stride + 1),										\
			   *bv = malloc(nb * stride + 1),										\
			   *ov = malloc(room * stride + 1);									\
	KeyrankVals vals;																\
	KeyrankReport r;																\
	int64_t		i;																	\
	int			ok;																	\
																					\
	for (i = 0; i < na; i++)														\
		value_of(i, stride, av + i * stride);										\
	for (i = 0; i < nb; i++)														\
		value_of(na + i, stride, bv + i * stride);									\
	for (i = 0; i < n; i++)															\
		value_of(pos[i], stride, ov + i * stride);									\
	if (mutate && n > 0)															\
	{																				\
		int			kind = next_plant++ % KEYRANK_PLANTS;							\
		int64_t		m = keyrank_plant(kind, out, sizeof(KEY), n, room, ov, stride,	\
									  pos, (int64_t) (testgen_rnd() % n));			\
																					\
		n = m >= 0 ? m : n;															\
	}																				\
	memset(&vals, 0, sizeof(vals));													\
	vals.a_vals = av;																\
	vals.b_vals = bv;																\
	vals.out_vals = ov;																\
	vals.stride = stride;															\
	vals.out_pos = pos;																\
	ok = keyrank_check_##SFX(op, a, na, b, nb, out, n, &vals, &r);					\
	answers++;																		\
	CHECK(ok, "%s %s %s na=%" PRId64 " nb=%" PRId64 ": %s", #SFX, op_names[op], what,	\
		  na, nb, r.msg);															\
	free(av);																		\
	free(bv);																		\
	free(ov);																		\
}
DEFINE_ANSWER_CHECK(i32, int32_t)
DEFINE_ANSWER_CHECK(i64, int64_t)

/*
 * The reference against the textbook on a and b: the textbook's answer
 * accepted (values and positions), the count the same, every planted
 * defect rejected; the CPU engine's answer accepted.
 */
#define DEFINE_REF_CASE(SFX, KEY)													\
static void																			\
ref_case_##SFX(SetopsOp op, const KEY *a, int64_t na, const KEY *b, int64_t nb,		\
			   const char *what)													\
{																					\
	int64_t		room = na + nb + SETOPS_CPU_OUTPUT_SLACK + 1;						\
	KEY		   *want = malloc(room * sizeof(KEY)),									\
			   *bad = malloc(room * sizeof(KEY));									\
	int64_t    *want_pos = malloc(room * sizeof(int64_t)),							\
			   *bad_pos = malloc(room * sizeof(int64_t));							\
	int64_t		n = textbook_pos_##SFX(op, a, na, b, nb, want, want_pos),			\
				got = keyrank_count_##SFX(op, a, na, b, nb);						\
	int			stride = 1 + (int) (testgen_rnd() % 16);							\
																					\
	CHECK(got == n, "%s count %s %s: %" PRId64 ", textbook %" PRId64, #SFX,			\
		  op_names[op], what, got, n);												\
	/* a defect of each kind, planted at a random output, is rejected */			\
	for (int kind = 0; kind < KEYRANK_PLANTS && n > 0; kind++)						\
	{																				\
		KeyrankReport r;															\
		int64_t		m;																\
																					\
		memcpy(bad, want, n * sizeof(KEY));											\
		memcpy(bad_pos, want_pos, n * sizeof(int64_t));								\
		m = keyrank_plant(kind, bad, sizeof(KEY), n, room, NULL, 0, bad_pos,		\
						  (int64_t) (testgen_rnd() % n));							\
		if (m < 0)																	\
			continue;																\
		{																			\
			KeyrankVals vals = {NULL, NULL, NULL, 0, bad_pos};						\
																					\
			rejections++;															\
			CHECK(!keyrank_check_##SFX(op, a, na, b, nb, bad, m, &vals, &r),		\
				  "%s %s %s: planted %s not seen", #SFX, op_names[op], what,		\
				  keyrank_plant_names[kind]);										\
		}																			\
	}																				\
	answer_check_##SFX(op, a, na, b, nb, want, want_pos, n, room, stride, what);	\
	/* the CPU engine's answer */													\
	n = setops_cpu_setop_##SFX(op, a, na, b, nb, want, want_pos);					\
	answer_check_##SFX(op, a, na, b, nb, want, want_pos, n, room, stride, what);	\
	free(want);																		\
	free(bad);																		\
	free(want_pos);																	\
	free(bad_pos);																	\
}
DEFINE_REF_CASE(i32, int32_t)
DEFINE_REF_CASE(i64, int64_t)


static void
random_cases(int rounds)
{
	static const int64_t sizes[] = {0, 1, 2, 3, 17, 100, 1000, 2048, 5000};
	int			nsizes = sizeof(sizes) / sizeof(sizes[0]);

	for (int r = 0; r < rounds; r++)
	{
		int64_t		na = sizes[testgen_rnd() % nsizes],
					nb = sizes[testgen_rnd() % nsizes];
		TestShape	sa = (TestShape) (testgen_rnd() % SHAPE_COUNT),
					sb = testgen_rnd() % 3 == 0 ? sa : (TestShape) (testgen_rnd() % SHAPE_COUNT);
		int32_t    *a32 = malloc((na + 1) * sizeof(int32_t)),
				   *b32 = malloc((nb + 1) * sizeof(int32_t));
		int64_t    *a64 = malloc((na + 1) * sizeof(int64_t)),
				   *b64 = malloc((nb + 1) * sizeof(int64_t));
		char		what[96];

		if (r % 4 == 3)
		{
			/* runs across cuts every 64 or so elements */
			int64_t		step = 16 + (int64_t) (testgen_rnd() % 100);

			runsgen_every_i32(a32, na, b32, nb, step, 10 + step / 2, r, 0, 0, r);
			runsgen_every_i64(a64, na, b64, nb, step, 10 + step / 2, r, 0, 0, r);
			snprintf(what, sizeof(what), "round %d runs every %" PRId64, r, step);
		}
		else
		{
			testgen_i32(a32, na, sa, r);
			testgen_i32(b32, nb, sb, r + 1);
			testgen_i64(a64, na, sa, r);
			testgen_i64(b64, nb, sb, r + 1);
			snprintf(what, sizeof(what), "round %d %s/%s", r, testgen_shape_names[sa],
					 testgen_shape_names[sb]);
		}
		for (int op = 0; op < SETOPS_OP_COUNT; op++)
		{
			ref_case_i32((SetopsOp) op, a32, na, b32, nb, what);
			ref_case_i32((SetopsOp) op, b32, nb, a32, na, what);
			ref_case_i64((SetopsOp) op, a64, na, b64, nb, what);
			ref_case_i64((SetopsOp) op, b64, nb, a64, na, what);
		}
		free(a32);
		free(b32);
		free(a64);
		free(b64);
	}
}

/* The worked example of the README, and an unsorted input. */
static void
fixed_cases(void)
{
	const int32_t a[] = {1, 2, 2, 5},
				b[] = {2, 2, 2, 3};
	const int32_t keys[] = {1, 2, 3, 5};
	const int64_t pos[] = {0, 6, 7, 3};		/* A's 1 and 5, B's third 2 and its 3 */
	KeyrankVals vals = {NULL, NULL, NULL, 0, pos};
	KeyrankReport r;
	int32_t		unsorted[] = {1, 3, 2};

	CHECK(keyrank_check_i32(SETOPS_OP_SYMDIFF, a, 4, b, 4, keys, 4, &vals, &r),
		  "README symdiff example: %s", r.msg);
	CHECK(keyrank_count_i32(SETOPS_OP_UNION, a, 4, b, 4) == 6, "README union count");
	CHECK(keyrank_count_i32(SETOPS_OP_UNION, unsorted, 3, b, 4) == -1 &&
		  keyrank_count_i32(SETOPS_OP_UNION, b, 4, unsorted, 3) == -1, "unsorted input not seen");
	CHECK(!keyrank_check_i32(SETOPS_OP_INTERSECT, unsorted, 3, b, 4, keys, 0, NULL, &r) &&
		  r.fault == KEYRANK_UNSORTED, "unsorted input: %s", r.msg);
	answers += 2;
}

/*
 * The CPU engine where it cuts: a run across every quarter of its chunk
 * (n elements in all, na of them in A), every operation, both key types,
 * positions checked; the intersection count.
 */
#define DEFINE_ENGINE_CASE(SFX, KEY)												\
static void																			\
engine_case_##SFX(int64_t na, int64_t nb, int64_t step, int64_t len, int first_kind,	\
				  int stride)														\
{																					\
	int64_t		room = na + nb + SETOPS_CPU_OUTPUT_SLACK + 1;						\
	KEY		   *a = malloc((na + 1) * sizeof(KEY)),									\
			   *b = malloc((nb + 1) * sizeof(KEY)),									\
			   *out = malloc(room * sizeof(KEY));									\
	int64_t    *pos = malloc(room * sizeof(int64_t));								\
	int64_t		runs = runsgen_every_##SFX(a, na, b, nb, step, len, first_kind, 0, 0,	\
										   na ^ nb);								\
	char		what[128];															\
																					\
	snprintf(what, sizeof(what), "engine %" PRId64 "+%" PRId64 " runs every %" PRId64,	\
			 na, nb, step);															\
	CHECK(runs >= 0, "%s %s: %" PRId64 " runs of %" PRId64 " straddle their cuts", #SFX, what,	\
		  -1 - runs, (na + nb - len) / step);										\
	for (int op = 0; op < SETOPS_OP_COUNT; op++)									\
	{																				\
		int64_t		n = setops_cpu_setop_##SFX((SetopsOp) op, a, na, b, nb, out, pos);	\
																					\
		answer_check_##SFX((SetopsOp) op, a, na, b, nb, out, pos, n, room,			\
						   op == SETOPS_OP_MERGE ? 1 : stride, what);				\
	}																				\
	{																				\
		KEY		   *scratch = malloc(SETOPS_CPU_COUNT_SCRATCH * sizeof(KEY));		\
		int64_t		c = setops_cpu_intersect_count_##SFX(a, na, b, nb, scratch),	\
					want = keyrank_count_##SFX(SETOPS_OP_INTERSECT, a, na, b, nb);	\
																					\
		answers++;																	\
		CHECK(c == want + (mutate != 0), "%s intersect count %s: %" PRId64			\
			  ", reference %" PRId64 "%s", #SFX, what, c, want,						\
			  mutate ? " (planted: reference one off)" : "");						\
		free(scratch);																\
	}																				\
	printf("keyrank_test: %s %s, %" PRId64 " runs across cuts: checked\n", #SFX, what,	\
		   runs);																	\
	free(a);																		\
	free(b);																		\
	free(out);																		\
	free(pos);																		\
}
DEFINE_ENGINE_CASE(i32, int32_t)
DEFINE_ENGINE_CASE(i64, int64_t)

int
main(int argc, char **argv)
{
	int			argi = 1,
				rounds,
				large = 0;
	const char *env = getenv("SETOPS_TEST_MUTATE");
	const int64_t q = SETOPS_CPU_CHUNK / 4;

	mutate = env != NULL && strcmp(env, "") != 0 && strcmp(env, "0") != 0;
	if (argc > argi && strcmp(argv[argi], "--mutate") == 0)
	{
		mutate = 1;
		argi++;
	}
	rounds = argc > argi ? atoi(argv[argi]) : 300;
	large = argc > argi + 1 && strcmp(argv[argi + 1], "large") == 0;
	if (mutate)
		printf("keyrank_test: MUTATED run (every answer given a planted defect): it must fail\n");

	fixed_cases();
	random_cases(rounds);
	/* a few CPU chunks: na + nb over 3 chunks, one side alone over one */
	engine_case_i32(3 * q + 5, 10 * q + 3, q, 2001, RUNS_A, 4);
	engine_case_i64(7 * q, 7 * q + 1, q, 3001, RUNS_BOTH_B, 8);
	engine_case_i32(2 * q - 1, 2 * q + 1, q / 2, 1500, RUNS_B, 16);
	if (large)
	{
		/* the GPU's launch size, 2^25: crossed by na + nb, then by A alone */
		const int64_t g = (int64_t) 1 << 25;

		engine_case_i32(g / 2 + 3, g / 2 + 1000, q, 4097, RUNS_BOTH_A, 4);
		engine_case_i64(g + g / 2, g / 4, q, 4097, RUNS_A, 8);
		engine_case_i32(g / 4, g + g + 5, q, 6000, RUNS_B, 8);
	}
	printf("keyrank_test: %ld answers compared in full with the reference, %ld planted defects "
		   "it had to reject\n", answers, rejections);
	printf("%ld passed, %ld failed\n", passed, failed);
	return failed ? 1 : 0;
}
