/*
 * sort_funcs.c
 *	  array_sort_gpu and array_distinct_gpu: the way into setops for
 *	  unsorted input.
 */
#include "postgres.h"

#include "setops.h"
#include "args/args.h"
#include "exec/exec.h"

PG_FUNCTION_INFO_V1(setops_sort);
PG_FUNCTION_INFO_V1(setops_distinct);

static Datum
sort_keys(FunctionCallInfo fcinfo, bool distinct, const char *fname)
{
	SetopsKeys	in;
	SetopsResult res;
	int64		n;

	setops_read_keys(PG_GETARG_DATUM(0), 1, fname, &in);
	/* the result is sorted in place: one copy of the input in all */
	setops_result_alloc(&res, setops_key_elemtype(in.type), setops_key_size(in.type),
						in.n, fname);
	memcpy(res.data, in.data, in.n * setops_key_size(in.type));
	n = setops_run_sort(fname, in.type, res.data, in.n, distinct);
	PG_RETURN_DATUM(setops_result_finish(&res, n, fname));
}

Datum
setops_sort(PG_FUNCTION_ARGS)
{
	return sort_keys(fcinfo, false, "array_sort_gpu");
}

Datum
setops_distinct(PG_FUNCTION_ARGS)
{
	return sort_keys(fcinfo, true, "array_distinct_gpu");
}
