/*
 * engine.h
 *	  The CPU engine: multiset operations, sort and distinct on sorted
 *	  int32/int64 arrays.
 *
 * Plain C with no PostgreSQL headers, so the C unit tests and benchmarks
 * link it directly.  The engine never allocates: callers pass every buffer
 * (the PostgreSQL layer pallocs them, so an interrupt's longjmp leaks
 * nothing).  Long work calls the interrupt hook between chunks.
 */
#ifndef SETOPS_CPU_ENGINE_H
#define SETOPS_CPU_ENGINE_H

#include <stdint.h>
#include <stddef.h>
#include <string.h>

#include "../common/setop_kind.h"
#include "../common/segd.h"
#include "../common/chunks.h"

/*
 * Output buffers need this many elements beyond setop_output_bound(): the
 * branch-free loops store speculatively one slot past the last output, and
 * the SIMD paths store whole vectors.
 */
#define SETOPS_CPU_OUTPUT_SLACK 16

/*
 * Combined source positions: outputs taken from A report their position in
 * A, outputs taken from B report na + their position in B.
 */

/* Run op on sorted a and b; returns the number of outputs.  out_keys must
 * hold setop_output_bound() + SETOPS_CPU_OUTPUT_SLACK keys; out_pos, when
 * not NULL, as many positions. */
extern int64_t setops_cpu_setop_i32(SetopsOp op,
									const int32_t *a, int64_t na,
									const int32_t *b, int64_t nb,
									int32_t *out_keys, int64_t *out_pos);
extern int64_t setops_cpu_setop_i64(SetopsOp op,
									const int64_t *a, int64_t na,
									const int64_t *b, int64_t nb,
									int64_t *out_keys, int64_t *out_pos);

/*
 * Split of a and b on diagonal d such that op on the two sides, outputs
 * concatenated, equals op on the whole: the Balanced Path for set
 * operations (see balanced_path.h), the merge path for SETOPS_OP_MERGE.  Sets
 * *ai and *bi with *ai + *bi == d, or d + 1 on a starred diagonal.
 */
/*
 * A batch: pair i is a's segment i with b's segment i (as->nsegs ==
 * bs->nsegs).  Outputs are concatenated into out, pair by pair, with
 * out_lengths[i] pair i's count; out has room for the sum of the pairs'
 * setop_output_bound plus SETOPS_CPU_OUTPUT_SLACK.  Returns the total.
 * Inputs must be sorted within each segment.  Starts need not be prefix
 * sums: segments may overlap or repeat (every pair against one shared B
 * has bs->starts all 0).  out_pos, when not NULL, gets each output's
 * source as a combined position within its pair (see above).
 */
extern int64_t setops_cpu_setop_segmented_i32(SetopsOp op, const int32_t *a, const SetopsSegd *as,
											  const int32_t *b, const SetopsSegd *bs,
											  int32_t *out, int64_t *out_lengths,
											  int64_t *out_pos);
extern int64_t setops_cpu_setop_segmented_i64(SetopsOp op, const int64_t *a, const SetopsSegd *as,
											  const int64_t *b, const SetopsSegd *bs,
											  int64_t *out, int64_t *out_lengths,
											  int64_t *out_pos);


/*
 * Counts and predicates without building a result.  intersect_count is the
 * key-rank count sum over keys of min(ca, cb), from which every other
 * operation's count follows (setop_count_from_intersect in setop_kind.h);
 * it checks both inputs' order on the way (one pass over memory for both)
 * and returns -1 when either is out of order: setops_cpu_first_unsorted
 * then says where.  overlaps: 1 when some key occurs in both, stopping at
 * the first; contains: 1 when every key of b occurs in a at least as often
 * as in b, stopping at the first that does not.  These two need sorted
 * inputs: a caller that has not checked may still trust overlaps' 1 (a key
 * found in both is in both, in any order), nothing else.  Skewed sizes gallop, as the
 * operations do.  intersect_count's scratch holds SETOPS_CPU_COUNT_SCRATCH
 * keys.
 */
#define SETOPS_CPU_COUNT_CHUNK (64 * 1024)	/* elements of both sides */
/* scratch for intersect_count: keys (an intersection chunk outputs at most
 * half its elements, one more on a starred diagonal) */
#define SETOPS_CPU_COUNT_SCRATCH (SETOPS_CPU_COUNT_CHUNK / 2 + 1 + SETOPS_CPU_OUTPUT_SLACK)
extern int64_t setops_cpu_intersect_count_i32(const int32_t *a, int64_t na,
											  const int32_t *b, int64_t nb, int32_t *scratch);
extern int64_t setops_cpu_intersect_count_i64(const int64_t *a, int64_t na,
											  const int64_t *b, int64_t nb, int64_t *scratch);
/*
 * The intersection count in parts that may run at once, on helper threads
 * (the engine neither starts them nor checks for interrupts in a part):
 * count_split cuts a and b into parts (a_cut, b_cut: parts + 1 entries
 * each) and returns 1, or 0 where the count would not take its SIMD
 * windows (then setops_cpu_intersect_count), or -1 at an order break it
 * saw; count_part counts one part, -1 at an order break.  The count is the
 * parts' sum.  With a_cut NULL count_split only says whether it would cut
 * (1) or not (0), and reads no more than a few keys.
 */
extern int	setops_cpu_count_split_i32(const int32_t *a, int64_t na, const int32_t *b, int64_t nb,
									   int parts, int64_t *a_cut, int64_t *b_cut);
extern int	setops_cpu_count_split_i64(const int64_t *a, int64_t na, const int64_t *b, int64_t nb,
									   int parts, int64_t *a_cut, int64_t *b_cut);
extern int64_t setops_cpu_count_part_i32(const int32_t *a, const int32_t *b, const int64_t *a_cut,
										 const int64_t *b_cut, int part);
extern int64_t setops_cpu_count_part_i64(const int64_t *a, const int64_t *b, const int64_t *a_cut,
										 const int64_t *b_cut, int part);
extern int	setops_cpu_overlaps_i32(const int32_t *a, int64_t na, const int32_t *b, int64_t nb);
extern int	setops_cpu_overlaps_i64(const int64_t *a, int64_t na, const int64_t *b, int64_t nb);
/* overlaps within max_steps leapfrog steps: 1, 0, or -1 (not decided) */
extern int	setops_cpu_overlaps_within_i32(const int32_t *a, int64_t na, const int32_t *b,
										   int64_t nb, int64_t max_steps);
extern int	setops_cpu_overlaps_within_i64(const int64_t *a, int64_t na, const int64_t *b,
										   int64_t nb, int64_t max_steps);
extern int	setops_cpu_contains_i32(const int32_t *a, int64_t na, const int32_t *b, int64_t nb);
extern int	setops_cpu_contains_i64(const int64_t *a, int64_t na, const int64_t *b, int64_t nb);

/* Position of the first element smaller than its predecessor, or -1. */
extern int64_t setops_cpu_first_unsorted_i32(const int32_t *a, int64_t n);
extern int64_t setops_cpu_first_unsorted_i64(const int64_t *a, int64_t n);

/* Sort ascending in place; tmp must hold n elements. */
extern void setops_cpu_sort_i32(int32_t *a, int64_t n, int32_t *tmp);
extern void setops_cpu_sort_i64(int64_t *a, int64_t n, int64_t *tmp);

/* Drop repeated keys of a sorted array in place; returns the new length. */
extern int64_t setops_cpu_unique_i32(int32_t *a, int64_t n);
extern int64_t setops_cpu_unique_i64(int64_t *a, int64_t n);

/* The same, by key type, for callers that hold keys as void *. */
static inline int64_t
setops_cpu_first_unsorted(SetopsKeyType type, const void *keys, int64_t n)
{
	return type == SETOPS_KEY_INT64 ? setops_cpu_first_unsorted_i64((const int64_t *) keys, n) :
		setops_cpu_first_unsorted_i32((const int32_t *) keys, n);
}

static inline int64_t
setops_cpu_setop(SetopsOp op, SetopsKeyType type, const void *a, int64_t na,
				 const void *b, int64_t nb, void *out_keys, int64_t *out_pos)
{
	if (type == SETOPS_KEY_INT64)
		return setops_cpu_setop_i64(op, (const int64_t *) a, na, (const int64_t *) b, nb,
									(int64_t *) out_keys, out_pos);
	return setops_cpu_setop_i32(op, (const int32_t *) a, na, (const int32_t *) b, nb,
								(int32_t *) out_keys, out_pos);
}

static inline int64_t
setops_cpu_intersect_count(SetopsKeyType type, const void *a, int64_t na,
						   const void *b, int64_t nb, void *scratch)
{
	if (type == SETOPS_KEY_INT64)
		return setops_cpu_intersect_count_i64((const int64_t *) a, na, (const int64_t *) b, nb,
											  (int64_t *) scratch);
	return setops_cpu_intersect_count_i32((const int32_t *) a, na, (const int32_t *) b, nb,
										  (int32_t *) scratch);
}

static inline int
setops_cpu_count_split(SetopsKeyType type, const void *a, int64_t na, const void *b, int64_t nb,
					   int parts, int64_t *a_cut, int64_t *b_cut)
{
	if (type == SETOPS_KEY_INT64)
		return setops_cpu_count_split_i64((const int64_t *) a, na, (const int64_t *) b, nb,
										  parts, a_cut, b_cut);
	return setops_cpu_count_split_i32((const int32_t *) a, na, (const int32_t *) b, nb,
									  parts, a_cut, b_cut);
}

static inline int64_t
setops_cpu_count_part(SetopsKeyType type, const void *a, const void *b, const int64_t *a_cut,
					  const int64_t *b_cut, int part)
{
	if (type == SETOPS_KEY_INT64)
		return setops_cpu_count_part_i64((const int64_t *) a, (const int64_t *) b, a_cut, b_cut, part);
	return setops_cpu_count_part_i32((const int32_t *) a, (const int32_t *) b, a_cut, b_cut, part);
}

static inline int
setops_cpu_overlaps_within(SetopsKeyType type, const void *a, int64_t na, const void *b, int64_t nb,
						   int64_t max_steps)
{
	if (type == SETOPS_KEY_INT64)
		return setops_cpu_overlaps_within_i64((const int64_t *) a, na, (const int64_t *) b, nb,
											  max_steps);
	return setops_cpu_overlaps_within_i32((const int32_t *) a, na, (const int32_t *) b, nb,
										  max_steps);
}

static inline int
setops_cpu_overlaps(SetopsKeyType type, const void *a, int64_t na, const void *b, int64_t nb)
{
	if (type == SETOPS_KEY_INT64)
		return setops_cpu_overlaps_i64((const int64_t *) a, na, (const int64_t *) b, nb);
	return setops_cpu_overlaps_i32((const int32_t *) a, na, (const int32_t *) b, nb);
}

static inline int
setops_cpu_contains(SetopsKeyType type, const void *a, int64_t na, const void *b, int64_t nb)
{
	if (type == SETOPS_KEY_INT64)
		return setops_cpu_contains_i64((const int64_t *) a, na, (const int64_t *) b, nb);
	return setops_cpu_contains_i32((const int32_t *) a, na, (const int32_t *) b, nb);
}

static inline int64_t
setops_cpu_setop_segmented(SetopsOp op, SetopsKeyType type, const void *a, const SetopsSegd *as,
						   const void *b, const SetopsSegd *bs, void *out,
						   int64_t *out_lengths, int64_t *out_pos)
{
	if (type == SETOPS_KEY_INT64)
		return setops_cpu_setop_segmented_i64(op, (const int64_t *) a, as, (const int64_t *) b, bs,
											  (int64_t *) out, out_lengths, out_pos);
	return setops_cpu_setop_segmented_i32(op, (const int32_t *) a, as, (const int32_t *) b, bs,
										  (int32_t *) out, out_lengths, out_pos);
}


/* Sort ascending in place (distinct: and drop repeats); tmp holds n keys.  The kept count. */
static inline int64_t
setops_cpu_sort(SetopsKeyType type, void *keys, int64_t n, int distinct, void *tmp)
{
	if (n < 2)
		return n;
	if (type == SETOPS_KEY_INT64)
	{
		setops_cpu_sort_i64((int64_t *) keys, n, (int64_t *) tmp);
		return distinct ? setops_cpu_unique_i64((int64_t *) keys, n) : n;
	}
	setops_cpu_sort_i32((int32_t *) keys, n, (int32_t *) tmp);
	return distinct ? setops_cpu_unique_i32((int32_t *) keys, n) : n;
}

/*
 * op (INTERSECT, UNION or MERGE) over nruns sorted runs held one after the
 * other in in (lengths[i] keys each), in log2(nruns) rounds: round r
 * combines runs 2k and 2k+1 of round r-1, writing into buf0 and buf1 in
 * turn (each room for all the keys + SETOPS_CPU_OUTPUT_SLACK; buf1 may be
 * in itself, whose keys the first round has read).  scratch holds 4 *
 * nruns int64.  Returns which buffer holds the result (0 or 1; -1: in, a
 * single run), its count in *n.
 */
extern int	setops_cpu_reduce_rounds(SetopsOp op, SetopsKeyType type, const void *in,
									 const int64_t *lengths, int64_t nruns, void *buf0,
									 void *buf1, int64_t *scratch, int64_t *n);

/*
 * Pairs' values by the positions the engine reported (out_pos): value i of
 * dst is a_vals[pos[i]] if pos[i] < na, else b_vals[pos[i] - na]; each
 * value stride bytes.
 */
static inline void
setops_cpu_gather_values(char *dst, const int64_t *pos, int64_t n, const char *a_vals,
						 int64_t na, const char *b_vals, int stride)
{
	int64_t		i;

#define GATHER_WORDS(WORD) \
	do { \
		const WORD *as = (const WORD *) a_vals; \
		const WORD *bs = (const WORD *) b_vals; \
		WORD	   *d = (WORD *) dst; \
		for (i = 0; i < n; i++) \
			d[i] = pos[i] < na ? as[pos[i]] : bs[pos[i] - na]; \
	} while (0)
	if (stride == 8)
		GATHER_WORDS(uint64_t);
	else if (stride == 4)
		GATHER_WORDS(uint32_t);
	else
		for (i = 0; i < n; i++)
			memcpy(dst + i * stride, pos[i] < na ? a_vals + pos[i] * stride :
				   b_vals + (pos[i] - na) * stride, stride);
#undef GATHER_WORDS
}

/*
 * Called between chunks of long work (about every million elements).  The
 * PostgreSQL layer installs a function that runs CHECK_FOR_INTERRUPTS(),
 * which may longjmp out of the engine; the engine holds no state that this
 * could leave inconsistent.
 */
extern void setops_cpu_set_interrupt_hook(void (*hook) (void));

/* Instruction sets the engine may use: the best the CPU has by default. */
typedef enum SetopsSimdLevel
{
	SETOPS_SIMD_NONE = 0,
	SETOPS_SIMD_AVX2 = 1
} SetopsSimdLevel;

extern SetopsSimdLevel setops_cpu_simd_detected(void);
/* Cap the level used (tests and benchmarks compare paths); returns the
 * level in effect, never above what the CPU has. */
extern SetopsSimdLevel setops_cpu_set_simd_level(SetopsSimdLevel level);
extern const char *setops_cpu_simd_name(void);

/* Strategy thresholds, exposed for the unit tests. */
#define SETOPS_CPU_GALLOP_RATIO 32			/* one side >= 32x smaller */
#define SETOPS_CPU_CHUNK (1 << 20)			/* elements between hook calls */

/*
 * Strategy override for tests: force every call through one path so each is
 * checked against the reference on the same inputs.
 */
typedef enum SetopsCpuPath
{
	SETOPS_PATH_AUTO = 0,
	SETOPS_PATH_MERGE,		/* branch-free scalar merge */
	SETOPS_PATH_GALLOP,		/* exponential search from the smaller side */
	SETOPS_PATH_SIMD		/* SIMD windows (intersect/difference) */
} SetopsCpuPath;

extern void setops_cpu_force_path(SetopsCpuPath path);
/* Chunk size override for tests (0 restores the default). */
extern void setops_cpu_set_chunk(int64_t chunk);

#endif							/* SETOPS_CPU_ENGINE_H */
