/*
 * setop_funcs.c
 *	  SQL entry points of the four multiset operations, keys and pairs.
 *
 * One C function serves the int4[] and int8[] declarations of each SQL
 * function: the key type is read from the arrays.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "funcapi.h"
#include "utils/array.h"

#include "setops.h"
#include "args/args.h"
#include "exec/exec.h"

PG_FUNCTION_INFO_V1(setops_intersect);
PG_FUNCTION_INFO_V1(setops_union);
PG_FUNCTION_INFO_V1(setops_difference);
PG_FUNCTION_INFO_V1(setops_symdiff);
PG_FUNCTION_INFO_V1(setops_intersect_pairs);
PG_FUNCTION_INFO_V1(setops_union_pairs);
PG_FUNCTION_INFO_V1(setops_difference_pairs);
PG_FUNCTION_INFO_V1(setops_symdiff_pairs);

/*
 * (a, b) -> result.  Each argument is an array or a packed value (mixed
 * freely); the result is packed when the call is declared to return packed
 * (both arguments packed), an array otherwise.
 */
static Datum
setop_keys(FunctionCallInfo fcinfo, SetopsOp op, const char *fname)
{
	SetopsKeys	a,
				b;
	SetopsResult res;
	int64		n;
	double		t0 = setops_now_ms(),
				t1,
				t2;
	Datum		result;
	bool		packed_result = setops_returns_packed(fcinfo);
	void	   *out;
	void	   *packed = NULL;
	size_t		packed_size = 0;

	setops_timing_reset();
	/* stored arrays may be left unread, for the GPU service's cache */
	setops_read_arg_stored(fcinfo, 0, 1, fname, &a, setops_identity_min_keys());
	setops_read_arg_stored(fcinfo, 1, 2, fname, &b, setops_identity_min_keys());
	if (packed_result)
		out = palloc_extended((setop_output_bound(op, a.n, b.n) + SETOPS_CPU_OUTPUT_SLACK) *
							  setops_key_size(a.type), MCXT_ALLOC_HUGE);
	else
	{
		setops_result_alloc(&res, setops_key_elemtype(a.type), setops_key_size(a.type),
							setop_output_bound(op, a.n, b.n), fname);
		out = res.data;
	}
	t1 = setops_now_ms();
	if (packed_result)
		n = setops_run_setop_packed(fname, op, &a, &b, out, &packed, &packed_size);
	else
		n = setops_run_setop(fname, op, &a, &b, out);
	t2 = setops_now_ms();
	if (packed_result)
	{
		/* packed on the GPU, or packed here from the keys */
		if (packed)
			result = setops_packed_finish(packed, packed_size, fname);
		else
			result = setops_packed_datum(a.type, out, n, fname);
		pfree(out);
	}
	else
		result = setops_result_finish(&res, n, fname);
	setops_last.read_ms = t1 - t0;
	setops_last.result_ms += setops_now_ms() - t2;
	setops_last.total_ms = setops_now_ms() - t0;
	PG_RETURN_DATUM(result);
}

/* (a keys, a values, b keys, b values) -> record (keys, vals) */
static Datum
setop_pairs(FunctionCallInfo fcinfo, SetopsOp op, const char *fname)
{
	TupleDesc	tupdesc;
	SetopsKeys	a,
				b;
	SetopsValues av,
				bv;
	SetopsResult keys,
				vals;
	int64		bound,
				n;
	Datum		result[2];
	bool		nulls[2] = {false, false};

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "%s: return type must be a row type", fname);
	tupdesc = BlessTupleDesc(tupdesc);

	setops_read_keys(PG_GETARG_DATUM(0), 1, fname, &a);
	setops_read_values(fcinfo, PG_GETARG_DATUM(1), 2, fname, a.n, 1, &av);
	setops_read_keys(PG_GETARG_DATUM(2), 3, fname, &b);
	setops_read_values(fcinfo, PG_GETARG_DATUM(3), 4, fname, b.n, 3, &bv);

	bound = setop_output_bound(op, a.n, b.n);
	setops_result_alloc(&keys, setops_key_elemtype(a.type), setops_key_size(a.type),
						bound, fname);
	setops_result_alloc(&vals, av.elemtype, av.stride, bound, fname);
	n = setops_run_setop_pairs(fname, op, &a, &av, &b, &bv, keys.data, vals.data);

	result[0] = setops_result_finish(&keys, n, fname);
	result[1] = setops_result_finish(&vals, n, fname);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, result, nulls)));
}

/* One fmgr symbol per SQL function and form; the work is shared. */
#define SETOP_ENTRY(SYM, OP, SQLNAME)										\
Datum																		\
SYM(PG_FUNCTION_ARGS)														\
{																			\
	return setop_keys(fcinfo, OP, SQLNAME);									\
}																			\
Datum																		\
SYM##_pairs(PG_FUNCTION_ARGS)												\
{																			\
	return setop_pairs(fcinfo, OP, SQLNAME);								\
}

SETOP_ENTRY(setops_intersect, SETOPS_OP_INTERSECT, "array_intersect_gpu")
SETOP_ENTRY(setops_union, SETOPS_OP_UNION, "array_union_gpu")
SETOP_ENTRY(setops_difference, SETOPS_OP_DIFFERENCE, "array_difference_gpu")
SETOP_ENTRY(setops_symdiff, SETOPS_OP_SYMDIFF, "array_symdiff_gpu")
