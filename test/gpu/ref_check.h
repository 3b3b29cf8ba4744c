/*
 * ref_check.h
 *	  The GPU tests' use of the independent reference
 *	  (test/common/keyrank_ref.h): key-type overloads, the planted defects
 *	  of SETOPS_TEST_MUTATE, inputs with runs across cut points
 *	  (runsgen.h), and the GPU's launch size.  CUDA C++ host code.
 */
#ifndef SETOPS_REF_CHECK_H
#define SETOPS_REF_CHECK_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <vector>

#include "../common/keyrank_ref.h"
#include "../common/runsgen.h"

/*
 * Elements of A and B together per GPU launch: GPU_CHUNK of
 * engine/gpu/setops_api.cu, which the Makefile reads from there (it is
 * not in a header).
 */
#ifndef SETOPS_TEST_GPU_CHUNK_LOG2
#error "build with -DSETOPS_TEST_GPU_CHUNK_LOG2: the Makefile reads GPU_CHUNK from engine/gpu/setops_api.cu"
#endif
static const int64_t gpu_chunk = (int64_t) 1 << SETOPS_TEST_GPU_CHUNK_LOG2;

static inline int
ref_check_keys(int op, const int32_t *a, int64_t na, const int32_t *b, int64_t nb,
			   const int32_t *out, int64_t n, const KeyrankVals *v, KeyrankReport *r)
{
	return keyrank_check_i32(op, a, na, b, nb, out, n, v, r);
}

static inline int
ref_check_keys(int op, const int64_t *a, int64_t na, const int64_t *b, int64_t nb,
			   const int64_t *out, int64_t n, const KeyrankVals *v, KeyrankReport *r)
{
	return keyrank_check_i64(op, a, na, b, nb, out, n, v, r);
}

static inline int64_t
ref_count(int op, const int32_t *a, int64_t na, const int32_t *b, int64_t nb)
{
	return keyrank_count_i32(op, a, na, b, nb);
}

static inline int64_t
ref_count(int op, const int64_t *a, int64_t na, const int64_t *b, int64_t nb)
{
	return keyrank_count_i64(op, a, na, b, nb);
}

/* SETOPS_TEST_MUTATE set and not 0 */
static inline bool
ref_mutating(void)
{
	static int	on = -1;

	if (on < 0)
	{
		const char *e = getenv("SETOPS_TEST_MUTATE");

		on = e != NULL && strcmp(e, "") != 0 && strcmp(e, "0") != 0;
	}
	return on == 1;
}

static long ref_planted = 0;

/*
 * The reference's verdict on candidate out[0, n) of op on a and b (its
 * buffer holds room keys; values of stride bytes, source positions, where
 * not NULL).  Under SETOPS_TEST_MUTATE, where plant, a defect is planted
 * in the candidate first (the kinds in turn, somewhere in its second to
 * eighth eighths): the buffers are changed.
 */
template <typename Key>
static bool
ref_check(int op, const Key *a, int64_t na, const Key *b, int64_t nb, Key *out, int64_t n,
		  int64_t room, const void *a_vals, const void *b_vals, void *out_vals, int stride,
		  int64_t *out_pos, KeyrankReport *r, bool plant = true)
{
	KeyrankVals v;

	if (plant && ref_mutating() && n > 0)
	{
		int64_t		m = keyrank_plant((int) (ref_planted % KEYRANK_PLANTS), out, sizeof(Key), n, room,
									  out_vals, stride, out_pos, n * (ref_planted % 7 + 1) / 8);

		ref_planted++;
		if (m >= 0)
			n = m;
	}
	memset(&v, 0, sizeof(v));
	v.a_vals = a_vals;
	v.b_vals = b_vals;
	v.out_vals = out_vals;
	v.stride = out_vals ? stride : 0;
	v.out_pos = out_pos;
	return ref_check_keys(op, a, na, b, nb, out, n, &v, r) != 0;
}

/*
 * a and b of na and nb keys with a duplicate run of len copies across
 * every multiple of step (kinds in turn), of kind `kind` at the multiples
 * of every (runsgen_every): the number of cuts, or -1 - those straddled.
 */
template <typename Key>
static int64_t
runs_input(std::vector<Key> &a, int64_t na, std::vector<Key> &b, int64_t nb, int64_t step,
		   int64_t len, int64_t every, int kind, uint64_t seed)
{
	int			first = (int) (seed % RUNS_KINDS);
	int64_t		n;

	a.resize(na + 1);
	b.resize(nb + 1);
	if (sizeof(Key) == 8)
		n = runsgen_every_i64((int64_t *) a.data(), na, (int64_t *) b.data(), nb, step, len, first,
							  every, kind, seed);
	else
		n = runsgen_every_i32((int32_t *) a.data(), na, (int32_t *) b.data(), nb, step, len, first,
							  every, kind, seed);
	a.resize(na);
	b.resize(nb);
	return n;
}

#endif							/* SETOPS_REF_CHECK_H */
