/*
 * keyrank_ref.h
 *	  An independent reference for answers of any size: a streaming
 *	  run-length merge that checks a candidate output of a multiset
 *	  operation (the GPU's, the CPU engine's) without building the expected
 *	  one, values and source positions included; and the operations'
 *	  counts.
 *
 * It shares no code with either engine and includes nothing from engine/
 * or extension/: no Balanced Path, no chunks, no merge loop of one element
 * at a time.  Both inputs are walked one run of equal keys at a time; for
 * a key with ca copies in A and cb in B the operation keeps
 *
 *	 intersect	min(ca, cb)		copy t from A's run, rank t
 *	 union		max(ca, cb)		t < ca: A's rank t; else B's rank t
 *	 difference max(ca - cb, 0) A's rank cb + t
 *	 symdiff	|ca - cb|		the larger side's rank min(ca, cb) + t
 *	 merge		ca + cb			t < ca: A's rank t; else B's rank t - ca
 *
 * (key-rank matching: the i-th copy in A meets the i-th copy in B; the
 * README's table of operations), and each expected copy is compared with
 * the candidate's next output as it is derived: its key, and where given
 * its value (stride bytes from the expected source copy) or its combined
 * source position (A's index, or na + B's index).  Memory: none beyond
 * the report, so it checks 300M-element answers in place.
 *
 *	KeyrankReport r;
 *	if (!keyrank_check_i32(op, a, na, b, nb, out, nout, &vals_or_NULL, &r))
 *		printf("%s\n", r.msg);		 first mismatch: position, key, wanted, got
 *	n = keyrank_count_i64(op, a, na, b, nb);	 -1: an input is not sorted
 *
 * op is an int with SetopsOp's numbers (setop_kind.h), which callers pass
 * as they are.  Plain C and CUDA C++ host code, header-only.
 */
#ifndef SETOPS_KEYRANK_REF_H
#define SETOPS_KEYRANK_REF_H

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* the operations, numbered as SetopsOp */
#define KEYRANK_INTERSECT 0
#define KEYRANK_UNION 1
#define KEYRANK_DIFFERENCE 2
#define KEYRANK_SYMDIFF 3
#define KEYRANK_MERGE 4

/* What travels with the candidate's keys, if anything (all NULL: keys only). */
typedef struct KeyrankVals
{
	const void *a_vals;			/* na values of stride bytes */
	const void *b_vals;			/* nb values */
	const void *out_vals;		/* the candidate's values, nout of them */
	int			stride;
	const int64_t *out_pos;		/* the candidate's combined source positions */
} KeyrankVals;

/* What was wrong first (KeyrankReport.fault). */
#define KEYRANK_OK 0
#define KEYRANK_BAD_KEY 1		/* an output key differs */
#define KEYRANK_BAD_VALUE 2		/* its value is not the expected copy's */
#define KEYRANK_BAD_POS 3		/* its source position is not the expected copy's */
#define KEYRANK_SHORT 4			/* the candidate ended before the answer */
#define KEYRANK_LONG 5			/* the candidate goes on past the answer */
#define KEYRANK_UNSORTED 6		/* an input descends: no answer to compare with */

typedef struct KeyrankReport
{
	int			fault;			/* KEYRANK_* */
	int64_t		expected;		/* outputs of the answer (the walk goes to the end) */
	int64_t		compared;		/* outputs compared and right before the first fault */
	int64_t		at;				/* the first wrong output, -1 */
	int64_t		want_key,
				got_key;
	int64_t		want_src;		/* its expected source: A's index, or na + B's */
	int64_t		runs;			/* distinct keys walked */
	char		msg[240];
} KeyrankReport;

/* Copies of a key an operation keeps, from ca and cb copies. */
static inline int64_t
keyrank_copies(int op, int64_t ca, int64_t cb)
{
	int64_t		lo = ca < cb ? ca : cb;

	switch (op)
	{
		case KEYRANK_INTERSECT:
			return lo;
		case KEYRANK_UNION:
			return ca + cb - lo;
		case KEYRANK_DIFFERENCE:
			return ca - lo;
		case KEYRANK_SYMDIFF:
			return ca + cb - 2 * lo;
		default:
			return ca + cb;
	}
}

/* The source of copy t of a key's kept copies: its side (0 A, 1 B) and its
 * rank in that side's run. */
static inline int
keyrank_source(int op, int64_t ca, int64_t cb, int64_t t, int64_t *rank)
{
	switch (op)
	{
		case KEYRANK_INTERSECT:
			*rank = t;
			return 0;
		case KEYRANK_UNION:
			*rank = t;
			return t < ca ? 0 : 1;
		case KEYRANK_DIFFERENCE:
			*rank = cb + t;
			return 0;
		case KEYRANK_SYMDIFF:
			*rank = (ca < cb ? ca : cb) + t;
			return ca >= cb ? 0 : 1;
		default:
			*rank = t < ca ? t : t - ca;
			return t < ca ? 0 : 1;
	}
}

static const char *const keyrank_fault_names[] = {"ok", "wrong key", "wrong value",
"wrong source position", "output too short", "output too long", "input not sorted"};

/*
 * keyrank_check_SFX: the walk.  out NULL: count only (the candidate is not
 * looked at).  True when the candidate is the answer.
 */
#define KEYRANK_DEFINE(SFX, KEY)													\
static inline int																	\
keyrank_check_##SFX(int op, const KEY *a, int64_t na, const KEY *b, int64_t nb,		\
					const KEY *out, int64_t nout, const KeyrankVals *vals,			\
					KeyrankReport *r)												\
{																					\
	int64_t		i = 0,																\
				j = 0,																\
				k = 0;																\
	int			stride = vals && vals->out_vals ? vals->stride : 0;					\
	const char *av = stride ? (const char *) vals->a_vals : NULL,					\
			   *bv = stride ? (const char *) vals->b_vals : NULL,					\
			   *ov = stride ? (const char *) vals->out_vals : NULL;					\
	const int64_t *opos = vals ? vals->out_pos : NULL;								\
																					\
	memset(r, 0, sizeof(*r));														\
	r->at = -1;																		\
	while (i < na || j < nb)														\
	{																				\
		KEY			x = i >= na ? b[j] : j >= nb ? a[i] : a[i] < b[j] ? a[i] : b[j];	\
		int64_t		ca = 0,															\
					cb = 0,															\
					e,																\
					t;																\
																					\
		while (i + ca < na && a[i + ca] == x)										\
			ca++;																	\
		while (j + cb < nb && b[j + cb] == x)										\
			cb++;																	\
		/* the run must end on a larger key, or the input descends */				\
		if ((i + ca < na && a[i + ca] < x) || (j + cb < nb && b[j + cb] < x))		\
		{																			\
			int			in_a = i + ca < na && a[i + ca] < x;						\
																					\
			r->fault = KEYRANK_UNSORTED;											\
			r->expected = -1;														\
			snprintf(r->msg, sizeof(r->msg), "input %s descends at %" PRId64,		\
					 in_a ? "A" : "B", in_a ? i + ca : j + cb);						\
			return 0;																\
		}																			\
		e = keyrank_copies(op, ca, cb);												\
		r->runs++;																	\
		for (t = 0; out && r->fault == KEYRANK_OK && t < e; t++, k++)				\
		{																			\
			int64_t		rank,														\
						src;														\
			int			side = keyrank_source(op, ca, cb, t, &rank);				\
																					\
			src = side ? na + j + rank : i + rank;									\
			if (k >= nout)															\
				r->fault = KEYRANK_SHORT;											\
			else if (out[k] != x)													\
				r->fault = KEYRANK_BAD_KEY;											\
			else if (stride &&														\
					 memcmp(ov + k * stride, side ? bv + (j + rank) * stride :		\
							av + (i + rank) * stride, stride) != 0)				\
				r->fault = KEYRANK_BAD_VALUE;										\
			else if (opos && opos[k] != src)										\
				r->fault = KEYRANK_BAD_POS;											\
			if (r->fault != KEYRANK_OK)												\
			{																		\
				r->at = k;															\
				r->want_key = (int64_t) x;											\
				r->got_key = k < nout ? (int64_t) out[k] : 0;						\
				r->want_src = src;													\
			}																		\
		}																			\
		if (r->fault == KEYRANK_OK)													\
			r->compared = k;														\
		r->expected += e;															\
		i += ca;																	\
		j += cb;																	\
	}																				\
	if (out && r->fault == KEYRANK_OK && nout > r->expected)						\
	{																				\
		r->fault = KEYRANK_LONG;													\
		r->at = r->expected;														\
		r->got_key = (int64_t) out[r->expected];									\
	}																				\
	if (r->fault == KEYRANK_SHORT || r->fault == KEYRANK_LONG)						\
		snprintf(r->msg, sizeof(r->msg), "%s: %" PRId64 " outputs, the answer has %"	\
				 PRId64 " (first missing or extra at %" PRId64 ", key %" PRId64 ")",	\
				 keyrank_fault_names[r->fault], nout, r->expected, r->at,			\
				 r->fault == KEYRANK_SHORT ? r->want_key : r->got_key);				\
	else if (r->fault != KEYRANK_OK)												\
	{																				\
		char		got[48] = "";													\
																					\
		if (r->fault == KEYRANK_BAD_POS)											\
			snprintf(got, sizeof(got), ", got source %" PRId64, opos[r->at]);		\
		snprintf(r->msg, sizeof(r->msg), "%s at output %" PRId64 ": key %" PRId64		\
				 ", want key %" PRId64 " from %s[%" PRId64 "]%s (%" PRId64			\
				 " outputs, the answer has %" PRId64 ")",							\
				 keyrank_fault_names[r->fault], r->at, r->got_key, r->want_key,		\
				 r->want_src < na ? "A" : "B",										\
				 r->want_src < na ? r->want_src : r->want_src - na, got, nout,		\
				 r->expected);														\
	}																				\
	return r->fault == KEYRANK_OK;													\
}																					\
																					\
/* The operation's output count; -1 when an input is not sorted. */				\
static inline int64_t																\
keyrank_count_##SFX(int op, const KEY *a, int64_t na, const KEY *b, int64_t nb)		\
{																					\
	KeyrankReport r;																\
																					\
	keyrank_check_##SFX(op, a, na, b, nb, NULL, 0, NULL, &r);						\
	return r.expected;																\
}

KEYRANK_DEFINE(i32, int32_t)
KEYRANK_DEFINE(i64, int64_t)

/*
 * Planted defects, for the tests' --mutate runs: each changes a right
 * answer at output `at` so that the reference must reject it.
 *	 DROP	 one output removed (keys, values and positions move up)
 *	 EXTRA	 output `at` repeated (there must be room for one more)
 *	 VALUE	 one bit of its value flipped; keys only: of its position, or
 *			 else of its key
 *	 SWAP	 two neighbouring copies of one key exchange values (or
 *			 positions): each key right, the ranks wrong; keys only or
 *			 no such neighbours: the last key made one larger
 * keyrank_plant returns the new count (-1: nothing planted).
 */
#define KEYRANK_PLANT_DROP 0
#define KEYRANK_PLANT_EXTRA 1
#define KEYRANK_PLANT_VALUE 2
#define KEYRANK_PLANT_SWAP 3
#define KEYRANK_PLANTS 4

static const char *const keyrank_plant_names[] = {"dropped copy", "extra copy", "wrong value",
"swapped ranks"};

static inline int64_t
keyrank_plant(int kind, void *keys, int key_size, int64_t n, int64_t room, void *vals,
			  int stride, int64_t *pos, int64_t at)
{
	char	   *k = (char *) keys,
			   *v = (char *) vals;
	int64_t		s;

	if (n <= 0 || at < 0 || at >= n)
		return -1;
	switch (kind)
	{
		case KEYRANK_PLANT_DROP:
			memmove(k + at * key_size, k + (at + 1) * key_size, (n - at - 1) * key_size);
			if (v)
				memmove(v + at * stride, v + (at + 1) * stride, (n - at - 1) * stride);
			if (pos)
				memmove(pos + at, pos + at + 1, (n - at - 1) * sizeof(int64_t));
			return n - 1;
		case KEYRANK_PLANT_EXTRA:
			if (n + 1 > room)
				return -1;
			memmove(k + (at + 1) * key_size, k + at * key_size, (n - at) * key_size);
			if (v)
				memmove(v + (at + 1) * stride, v + at * stride, (n - at) * stride);
			if (pos)
				memmove(pos + at + 1, pos + at, (n - at) * sizeof(int64_t));
			return n + 1;
		case KEYRANK_PLANT_VALUE:
			if (v)
				v[at * stride] ^= 1;
			else if (pos)
				pos[at] ^= 1;
			else
				k[at * key_size] ^= 1;
			return n;
		default:
			/* neighbours with one key, from at on */
			for (s = at; (v || pos) && s + 1 < n; s++)
				if (memcmp(k + s * key_size, k + (s + 1) * key_size, key_size) == 0 &&
					(v ? memcmp(v + s * stride, v + (s + 1) * stride, stride) != 0 :
					 pos[s] != pos[s + 1]))
				{
					char		tmp[64];
					int64_t		p;

					if (v && stride <= (int) sizeof(tmp))
					{
						memcpy(tmp, v + s * stride, stride);
						memcpy(v + s * stride, v + (s + 1) * stride, stride);
						memcpy(v + (s + 1) * stride, tmp, stride);
					}
					if (pos)
					{
						p = pos[s];
						pos[s] = pos[s + 1];
						pos[s + 1] = p;
					}
					return n;
				}
			/* the last key one larger: still sorted, not the answer */
			if (key_size == 8)
				((int64_t *) keys)[n - 1] += ((int64_t *) keys)[n - 1] < INT64_MAX ? 1 : -1;
			else
				((int32_t *) keys)[n - 1] += ((int32_t *) keys)[n - 1] < INT32_MAX ? 1 : -1;
			return n;
	}
}

#endif							/* SETOPS_KEYRANK_REF_H */
