/*
 * agg_funcs.c
 *	  array_intersect_agg, array_union_agg and array_merge_agg: their
 *	  support functions.  The state and its reductions are
 *	  exec/aggregate.c's.
 *
 * Since 0.3 the state is a value of type setops_agg_state, not internal:
 * engines that split aggregates across servers (Citus) refuse pseudo-type
 * states.  In a backend the value is an expanded object around the state
 * above, so rows are still appended in place; flattened (to cross a
 * process or a server, agg_state.c's text and binary forms) it is the
 * state reduced to one run.  The same C functions serve 0.1/0.2's
 * internal-state declarations, for databases not yet updated.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "nodes/execnodes.h"
#include "utils/array.h"
#include "utils/expandeddatum.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

#include "setops.h"
#include "args/args.h"
#include "exec/exec.h"
#include "exec/aggregate.h"
#include "test_hooks.h"

PG_FUNCTION_INFO_V1(setops_intersect_agg_trans);
PG_FUNCTION_INFO_V1(setops_union_agg_trans);
PG_FUNCTION_INFO_V1(setops_merge_agg_trans);
PG_FUNCTION_INFO_V1(setops_agg_final);
PG_FUNCTION_INFO_V1(setops_agg_final_packed);
PG_FUNCTION_INFO_V1(setops_agg_final_int4);
PG_FUNCTION_INFO_V1(setops_agg_final_int8);
PG_FUNCTION_INFO_V1(setops_agg_final_packed_int4);
PG_FUNCTION_INFO_V1(setops_agg_final_packed_int8);
PG_FUNCTION_INFO_V1(setops_agg_combine);
PG_FUNCTION_INFO_V1(setops_agg_serialize);
PG_FUNCTION_INFO_V1(setops_agg_deserialize);

/* A setops_agg_state value in a backend: see the file's header. */
typedef struct AggStateObject
{
	ExpandedObjectHeader hdr;
	SetopsAggState *state;
} AggStateObject;

/* ---- the state's flat form, and its setops_agg_state value ---- */

/* May this call's states map their keys?  Not under hash aggregation. */
static bool
agg_may_map(FunctionCallInfo fcinfo)
{
	if (fcinfo->context && IsA(fcinfo->context, AggState))
	{
		AggStrategy strategy = ((AggState *) fcinfo->context)->aggstrategy;

		return strategy == AGG_PLAIN || strategy == AGG_SORTED;
	}
	return true;				/* a window aggregate */
}

/*
 * May this call's states stream their keys to the device?  Only where the
 * final function is called once (not window aggregates), and not under
 * hash aggregation (its groups are many, and it must see their memory).
 */
static bool
agg_may_stream(FunctionCallInfo fcinfo)
{
	return fcinfo->context && IsA(fcinfo->context, AggState) && agg_may_map(fcinfo);
}

static Size
agg_object_flat_size(ExpandedObjectHeader *eohptr)
{
	return setops_agg_flat_size(((AggStateObject *) eohptr)->state);
}

static void
agg_object_flatten(ExpandedObjectHeader *eohptr, void *result, Size allocated_size)
{
	setops_agg_flatten(((AggStateObject *) eohptr)->state, result, allocated_size);
}

static const ExpandedObjectMethods agg_object_methods = {
	agg_object_flat_size,
	agg_object_flatten
};

/*
 * A state that is a setops_agg_state value.  Its memory is a context of
 * its own under parent, which must be the aggregate's context for the
 * executor to keep the value without copying it (ExecAggTransReparent).
 * Small blocks: under hash aggregation there is one per group.
 */
static SetopsAggState *
agg_object_new(MemoryContext parent, SetopsOp op, SetopsKeyType type, bool may_map,
			   bool may_stream)
{
	MemoryContext cxt = AllocSetContextCreate(parent, "setops aggregate state",
											  ALLOCSET_SMALL_SIZES);
	AggStateObject *obj = MemoryContextAlloc(cxt, sizeof(AggStateObject));

	EOH_init_header(&obj->hdr, &agg_object_methods, cxt);
	obj->state = setops_agg_state_new(cxt, op, type, may_map, may_stream);
	obj->state->object = obj;
	return obj->state;
}

/* A state that reads a flat form in place (combine copies what it keeps). */
static SetopsAggState *
agg_state_view(const SetopsAggWire *wire)
{
	SetopsAggState *state = setops_agg_state_new(CurrentMemoryContext, wire->op, wire->type, false, false);

	pfree(state->keys);
	state->keys = (char *) (wire + 1);
	state->keys_owned = false;
	state->maxkeys = wire->n;
	setops_agg_one_run(state, wire->n);
	return state;
}

/* Declared with 0.1/0.2's internal state (a database not yet updated)? */
static bool
agg_state_internal(FunctionCallInfo fcinfo)
{
	return get_fn_expr_argtype(fcinfo->flinfo, 0) == INTERNALOID;
}

/*
 * The state argument argno, or NULL.  A setops_agg_state value is this
 * backend's object, or a flat form (from a parallel worker, another
 * server, a table): read in place for a caller that only reads it
 * (parent NULL), else copied into a new object under parent.
 */
static SetopsAggState *
agg_state_arg(FunctionCallInfo fcinfo, int argno, MemoryContext parent, bool may_map,
			  bool may_stream)
{
	Datum		d;
	const SetopsAggWire *wire;
	SetopsAggState *state;

	if (PG_ARGISNULL(argno))
		return NULL;
	if (agg_state_internal(fcinfo))
		return (SetopsAggState *) PG_GETARG_POINTER(argno);
	d = PG_GETARG_DATUM(argno);
	if (VARATT_IS_EXTERNAL_EXPANDED(DatumGetPointer(d)))
	{
		ExpandedObjectHeader *eoh = DatumGetEOHP(d);

		if (eoh->eoh_methods != &agg_object_methods)
			elog(ERROR, "setops: an aggregate state of an unknown kind");
		return ((AggStateObject *) eoh)->state;
	}
	wire = setops_agg_wire_check((const SetopsAggWire *) PG_DETOAST_DATUM(d));
	if (parent == NULL)
		return agg_state_view(wire);
	state = agg_object_new(parent, wire->op, wire->type, may_map, may_stream);
	setops_agg_add_run(state, wire + 1, wire->n);
	return state;
}

/* The state as the support functions return it. */
static Datum
agg_state_datum(SetopsAggState *state)
{
	if (state->object == NULL)
		return PointerGetDatum(state);
	return EOHPGetRWDatum(&state->object->hdr);
}

/* A new state for the aggregate whose support function this is. */
static SetopsAggState *
agg_state_create(FunctionCallInfo fcinfo, MemoryContext aggcxt, SetopsOp op, SetopsKeyType type)
{
	if (agg_state_internal(fcinfo))
		return setops_agg_state_new(aggcxt, op, type, agg_may_map(fcinfo), agg_may_stream(fcinfo));
	return agg_object_new(aggcxt, op, type, agg_may_map(fcinfo), agg_may_stream(fcinfo));
}

static Datum
agg_trans(FunctionCallInfo fcinfo, SetopsOp op)
{
	const char *fname = setops_agg_name(op);
	MemoryContext aggcxt;
	SetopsAggState *state;
	SetopsKeys	row;
	bool		timed;
	double		t0 = 0;

	if (!AggCheckCallContext(fcinfo, &aggcxt))
		elog(ERROR, "%s transition function called in non-aggregate context", fname);
	state = agg_state_arg(fcinfo, 0, aggcxt, agg_may_map(fcinfo), agg_may_stream(fcinfo));
	timed = state != NULL && state->stream != NULL;	/* (once streaming) */
	if (timed)
		t0 = setops_now_ms();
	if (PG_ARGISNULL(1))
	{
		/* NULL rows are skipped */
		if (state == NULL)
			PG_RETURN_NULL();
		PG_RETURN_DATUM(agg_state_datum(state));
	}

	/* a streaming state takes a stored row straight into its slot */
	if (timed && setops_agg_add_stored_run(state, PG_GETARG_DATUM(1)))
	{
		state->stream_ms += setops_now_ms() - t0;
		PG_RETURN_DATUM(agg_state_datum(state));
	}
	/* every row is checked, even once an intersection is empty */
	setops_read_arg(fcinfo, 1, 1, fname, &row);
	setops_keys_make_plain(&row, fname);
	setops_require_sorted(fname, &row);
	if (state == NULL)
	{
		state = agg_state_create(fcinfo, aggcxt, op, row.type);
		/* (a state made from a value keeps false: stored rows are then
		 * read as any row is) */
		state->rows_are_arrays = type_is_array(get_fn_expr_argtype(fcinfo->flinfo, 1));
	}
	else if (state->op != op || state->type != row.type)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: the state holds %s keys of %s", fname,
						setops_key_type_name(state->type), setops_agg_name(state->op))));
	setops_agg_add_run(state, row.data, row.n);
	setops_agg_bound(state);
	if (timed)
		state->stream_ms += setops_now_ms() - t0;
	PG_RETURN_DATUM(agg_state_datum(state));
}

Datum
setops_intersect_agg_trans(PG_FUNCTION_ARGS)
{
	return agg_trans(fcinfo, SETOPS_OP_INTERSECT);
}

Datum
setops_union_agg_trans(PG_FUNCTION_ARGS)
{
	return agg_trans(fcinfo, SETOPS_OP_UNION);
}

Datum
setops_merge_agg_trans(PG_FUNCTION_ARGS)
{
	return agg_trans(fcinfo, SETOPS_OP_MERGE);
}

/*
 * The final function reduces the state in place.  That changes how the
 * state is held, not what it means, so it stays correct when PostgreSQL
 * calls it again (window frames), appends more rows after it (growing
 * frames) or shares the state between aggregates.  Returns the state, now
 * one run, or NULL when there were no non-NULL rows.
 */
static SetopsAggState *
agg_final_state(FunctionCallInfo fcinfo)
{
	SetopsAggState *state = agg_state_arg(fcinfo, 0, NULL, false, false);

	if (state == NULL)
		return NULL;
	setops_agg_reduce_final(state);
	return state;
}

/* The result array, allocated once its length is known: the reduction's buffer. */
typedef struct AggResultAlloc
{
	SetopsResult res;
	SetopsAggState *state;
} AggResultAlloc;

static void *
agg_result_alloc(int64 n, void *arg)
{
	AggResultAlloc *r = (AggResultAlloc *) arg;

	/* asked again (the GPU failed after allocating): the same array serves */
	if (r->res.array != NULL && r->res.capacity >= n)
		return r->res.data;
	setops_result_alloc(&r->res, setops_key_elemtype(r->state->type),
						setops_key_size(r->state->type), n, setops_agg_name(r->state->op));
	return r->res.data;
}

/*
 * A state value may come from anywhere (its text form, another server):
 * its keys must be of the type the final function returns.
 */
static void
agg_require_type(const SetopsAggState *state, SetopsKeyType type, const char *fname)
{
	const char *have = setops_key_type_name(state->type);

	if (state->type != type)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("%s: the state holds %s keys", fname, have),
				 errhint("Finish it with setops_agg_final_%s%s().",
						 strstr(fname, "packed") ? "packed_" : "", have)));
}

static Datum
agg_final(FunctionCallInfo fcinfo, int type, const char *fname)
{
	SetopsAggState *state;
	AggResultAlloc r;
	int64		n;

	state = agg_state_arg(fcinfo, 0, NULL, false, false);
	if (state == NULL)
		PG_RETURN_NULL();
	if (type >= 0)
		agg_require_type(state, (SetopsKeyType) type, fname);

	/*
	 * In a plain aggregate the state is used once: the last reduction writes
	 * straight into the result array (no copy of a result that may be
	 * hundreds of MB) and leaves the state as it was, its meaning intact.
	 * A window aggregate keeps using the state: it is reduced in place.
	 */
	if (AggCheckCallContext(fcinfo, NULL) == AGG_CONTEXT_AGGREGATE && state->nruns > 1)
	{
		double		t0 = setops_now_ms();
		Datum		result;

		/* setops_last_timing() shows the final reduction's phases */
		setops_timing_reset();
		memset(&r, 0, sizeof(r));
		r.state = state;
		(void) setops_agg_reduce_into(state, agg_result_alloc, &r, &n);
		result = setops_result_finish(&r.res, n, setops_agg_name(state->op));
		setops_last.total_ms = setops_now_ms() - t0;
		PG_RETURN_DATUM(result);
	}
	state = agg_final_state(fcinfo);
	memset(&r, 0, sizeof(r));
	r.state = state;
	(void) agg_result_alloc(state->nkeys, &r);
	memcpy(r.res.data, state->keys, state->nkeys * setops_key_size(state->type));
	PG_RETURN_DATUM(setops_result_finish(&r.res, state->nkeys, setops_agg_name(state->op)));
}

/* The aggregates over packed rows return packed. */
static Datum
agg_final_packed(FunctionCallInfo fcinfo, int type, const char *fname)
{
	SetopsAggState *state = agg_final_state(fcinfo);

	if (state == NULL)
		PG_RETURN_NULL();
	if (type >= 0)
		agg_require_type(state, (SetopsKeyType) type, fname);
	PG_RETURN_DATUM(setops_packed_datum(state->type, state->keys, state->nkeys,
										setops_agg_name(state->op)));
}

/*
 * 0.3 declares a final function per result type, each checking the
 * state's key type; 0.1/0.2's two serve both key types of their internal
 * states, which only their own aggregates make.
 */
Datum
setops_agg_final(PG_FUNCTION_ARGS)
{
	return agg_final(fcinfo, -1, "setops_agg_final");
}

Datum
setops_agg_final_packed(PG_FUNCTION_ARGS)
{
	return agg_final_packed(fcinfo, -1, "setops_agg_final_packed");
}

Datum
setops_agg_final_int4(PG_FUNCTION_ARGS)
{
	return agg_final(fcinfo, SETOPS_KEY_INT32, "setops_agg_final_int4");
}

Datum
setops_agg_final_int8(PG_FUNCTION_ARGS)
{
	return agg_final(fcinfo, SETOPS_KEY_INT64, "setops_agg_final_int8");
}

Datum
setops_agg_final_packed_int4(PG_FUNCTION_ARGS)
{
	return agg_final_packed(fcinfo, SETOPS_KEY_INT32, "setops_agg_final_packed_int4");
}

Datum
setops_agg_final_packed_int8(PG_FUNCTION_ARGS)
{
	return agg_final_packed(fcinfo, SETOPS_KEY_INT64, "setops_agg_final_packed_int8");
}

Datum
setops_agg_combine(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt;
	SetopsAggState *s1,
			   *s2;
	size_t		ks;
	int64		i,
				start = 0;

	if (!AggCheckCallContext(fcinfo, &aggcxt))
		elog(ERROR, "setops_agg_combine called in non-aggregate context");
	s1 = agg_state_arg(fcinfo, 0, aggcxt, agg_may_map(fcinfo), agg_may_stream(fcinfo));
	s2 = agg_state_arg(fcinfo, 1, NULL, false, false);
	if (s2 == NULL)
	{
		if (s1 == NULL)
			PG_RETURN_NULL();
		PG_RETURN_DATUM(agg_state_datum(s1));
	}
	/* s2 may live in short-lived memory and is left untouched: copy it */
	if (s1 == NULL)
		s1 = agg_state_create(fcinfo, aggcxt, s2->op, s2->type);
	else if (s1->op != s2->op || s1->type != s2->type)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("setops_agg_combine: states of %s over %s and %s over %s cannot be combined",
						setops_agg_name(s1->op), s1->type == SETOPS_KEY_INT64 ? "int8" : "int4",
						setops_agg_name(s2->op), s2->type == SETOPS_KEY_INT64 ? "int8" : "int4"),
				 errhint("Combine states of one aggregate over one key type.")));
	setops_agg_unstream(s2);			/* (a state from this backend) */
	ks = setops_key_size(s2->type);
	for (i = 0; i < s2->nruns; i++)
	{
		setops_agg_add_run(s1, s2->keys + start * ks, s2->lengths[i]);
		start += s2->lengths[i];
	}
	setops_agg_bound(s1);
	PG_RETURN_DATUM(agg_state_datum(s1));
}

/*
 * Workers send their state reduced to one run: the reduction is then done
 * in parallel, and a union or intersection travels smaller.
 */
Datum
setops_agg_serialize(PG_FUNCTION_ARGS)
{
	SetopsAggState *state = (SetopsAggState *) PG_GETARG_POINTER(0);
	Size		bytes = setops_agg_flat_size(state);
	SetopsAggWire *wire = palloc(bytes);

	setops_agg_flatten(state, wire, bytes);
	PG_RETURN_BYTEA_P(wire);
}

Datum
setops_agg_deserialize(PG_FUNCTION_ARGS)
{
	PG_RETURN_POINTER(agg_state_view(setops_agg_wire_check((const SetopsAggWire *) PG_GETARG_BYTEA_P(0))));
}

#ifdef SETOPS_TEST_HOOKS
/*
 * Test hook, compiled only into builds for the tests (make
 * SETOPS_TEST_HOOKS=yes) and not declared by the extension's SQL script
 * (the tests declare it for themselves): how many rows streaming
 * aggregates of this backend have taken straight from their TOAST chunks.
 */
PG_FUNCTION_INFO_V1(setops_test_stored_rows_taken);
Datum
setops_test_stored_rows_taken(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT64(setops_agg_stored_rows_taken);
}
#endif							/* SETOPS_TEST_HOOKS */
