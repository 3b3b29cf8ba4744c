/*
 * count_funcs.c
 *	  SQL entry points of the counts and predicates: how many elements an
 *	  operation would return, how similar two multisets are, whether they
 *	  overlap, whether one lies within the other; none builds a result.
 *
 * One C function serves every declared form (int4[], int8[], packed and
 * mixed): the arguments are read as the operations read them, stored ones
 * left unread for the GPU service's device cache.
 */
#include "postgres.h"

#include "setops.h"
#include "args/args.h"
#include "exec/exec.h"

PG_FUNCTION_INFO_V1(setops_intersect_count);
PG_FUNCTION_INFO_V1(setops_union_count);
PG_FUNCTION_INFO_V1(setops_difference_count);
PG_FUNCTION_INFO_V1(setops_symdiff_count);
PG_FUNCTION_INFO_V1(setops_jaccard);
PG_FUNCTION_INFO_V1(setops_jaccard_distance);
PG_FUNCTION_INFO_V1(setops_overlaps);
PG_FUNCTION_INFO_V1(setops_contains);
PG_FUNCTION_INFO_V1(setops_contained_by);

/*
 * kind on (first, second): the call's arguments in order, or swapped for
 * "is contained by" (argument numbers in messages stay the call's).
 */
static int64
count_args(FunctionCallInfo fcinfo, SetopsCountKind kind, bool swap, const char *fname,
		   int64 *na, int64 *nb)
{
	SetopsKeys	a,
				b;
	double		t0 = setops_now_ms(),
				t1;
	int64		r;

	setops_timing_reset();
	setops_read_arg_stored(fcinfo, 0, 1, fname, &a, setops_identity_min_keys());
	setops_read_arg_stored(fcinfo, 1, 2, fname, &b, setops_identity_min_keys());
	t1 = setops_now_ms();
	r = swap ? setops_run_count(fname, kind, &b, &a) : setops_run_count(fname, kind, &a, &b);
	if (na)
		*na = a.n;
	if (nb)
		*nb = b.n;
	setops_last.read_ms = t1 - t0;
	setops_last.total_ms = setops_now_ms() - t0;
	return r;
}

static Datum
op_count(FunctionCallInfo fcinfo, SetopsOp op, const char *fname)
{
	int64		na,
				nb,
				i = count_args(fcinfo, SETOPS_COUNT_INTERSECT, false, fname, &na, &nb);

	PG_RETURN_INT64(setop_count_from_intersect(op, na, nb, i));
}

Datum
setops_intersect_count(PG_FUNCTION_ARGS)
{
	return op_count(fcinfo, SETOPS_OP_INTERSECT, "array_intersect_count");
}

Datum
setops_union_count(PG_FUNCTION_ARGS)
{
	return op_count(fcinfo, SETOPS_OP_UNION, "array_union_count");
}

Datum
setops_difference_count(PG_FUNCTION_ARGS)
{
	return op_count(fcinfo, SETOPS_OP_DIFFERENCE, "array_difference_count");
}

Datum
setops_symdiff_count(PG_FUNCTION_ARGS)
{
	return op_count(fcinfo, SETOPS_OP_SYMDIFF, "array_symdiff_count");
}

/* |A ∩ B| / |A ∪ B| as multisets (NULL arguments: the functions are strict) */
static double
jaccard_args(FunctionCallInfo fcinfo, const char *fname)
{
	int64		na,
				nb,
				i = count_args(fcinfo, SETOPS_COUNT_INTERSECT, false, fname, &na, &nb);

	return setop_jaccard_from_intersect(na, nb, i);
}

Datum
setops_jaccard(PG_FUNCTION_ARGS)
{
	PG_RETURN_FLOAT8(jaccard_args(fcinfo, "array_jaccard"));
}

/*
 * 1 - Jaccard, the distance behind <%>: ORDER BY col <%> q LIMIT k, as
 * pgvector orders by distance.  Computed as SQL's 1 - array_jaccard(a, b)
 * is, so the two are equal to the bit.
 */
Datum
setops_jaccard_distance(PG_FUNCTION_ARGS)
{
	PG_RETURN_FLOAT8(1.0 - jaccard_args(fcinfo, "array_jaccard_distance"));
}

Datum
setops_overlaps(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(count_args(fcinfo, SETOPS_COUNT_OVERLAPS, false, "array_overlaps",
							  NULL, NULL) != 0);
}

Datum
setops_contains(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(count_args(fcinfo, SETOPS_COUNT_CONTAINS, false, "array_contains",
							  NULL, NULL) != 0);
}

/* a <@ b: b contains a */
Datum
setops_contained_by(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(count_args(fcinfo, SETOPS_COUNT_CONTAINS, true, "array_contained_by",
							  NULL, NULL) != 0);
}
