/*
 * agg_funcs.c
 *	  array_intersect_agg, array_union_agg and array_merge_agg.
 *
 * The transition state is a stack of sorted runs in the aggregate's memory
 * context.  Intersection folds each row in at once (the state only
 * shrinks).  Union and merge push each row as a run and combine runs of
 * equal rank, like a binary counter, so each key is combined about
 * log2(rows) times rather than once per row; the final function combines
 * what is left.  Every combine goes through the dispatcher, so large ones
 * run on the GPU when it is chosen.
 *
 * All three are commutative and associative on multisets of keys, so the
 * result does not depend on row order, and parallel aggregation (combine,
 * serialize, deserialize) gives identical answers.
 */
#include "postgres.h"

#include "utils/array.h"
#include "utils/memutils.h"

#include "setops.h"
#include "cpu/engine.h"

PG_FUNCTION_INFO_V1(setops_intersect_agg_trans);
PG_FUNCTION_INFO_V1(setops_union_agg_trans);
PG_FUNCTION_INFO_V1(setops_merge_agg_trans);
PG_FUNCTION_INFO_V1(setops_agg_final);
PG_FUNCTION_INFO_V1(setops_agg_final_packed);
PG_FUNCTION_INFO_V1(setops_agg_combine);
PG_FUNCTION_INFO_V1(setops_agg_serialize);
PG_FUNCTION_INFO_V1(setops_agg_deserialize);

typedef struct AggRun
{
	void	   *keys;
	int64		n;
	int			rank;			/* about log2 of the rows combined into it */
} AggRun;

typedef struct SetopsAggState
{
	SetopsOp	op;				/* INTERSECT, UNION or MERGE */
	SetopsKeyType type;
	int			nruns;
	int			maxruns;
	AggRun	   *runs;
	MemoryContext cxt;			/* where runs live */
} SetopsAggState;

/* Serialized form: this header, then the keys of the single run. */
typedef struct AggWire
{
	int32		vl_len_;
	int32		op;
	int32		type;
	int32		pad;
	int64		n;
} AggWire;

static const char *
agg_name(SetopsOp op)
{
	switch (op)
	{
		case SETOPS_OP_INTERSECT:
			return "array_intersect_agg";
		case SETOPS_OP_UNION:
			return "array_union_agg";
		default:
			return "array_merge_agg";
	}
}

static SetopsAggState *
agg_state_new(MemoryContext cxt, SetopsOp op, SetopsKeyType type)
{
	SetopsAggState *state = MemoryContextAllocZero(cxt, sizeof(SetopsAggState));

	state->op = op;
	state->type = type;
	state->cxt = cxt;
	state->maxruns = 8;
	state->runs = MemoryContextAlloc(cxt, state->maxruns * sizeof(AggRun));
	return state;
}

static void *
agg_alloc_keys(SetopsAggState *state, int64 n)
{
	return MemoryContextAllocExtended(state->cxt,
									  (n + SETOPS_CPU_OUTPUT_SLACK) * setops_key_size(state->type),
									  MCXT_ALLOC_HUGE);
}

static void
agg_push(SetopsAggState *state, const void *keys, int64 n, int rank)
{
	AggRun	   *run;

	if (state->nruns == state->maxruns)
	{
		state->maxruns *= 2;
		state->runs = repalloc(state->runs, state->maxruns * sizeof(AggRun));
	}
	run = &state->runs[state->nruns++];
	run->keys = agg_alloc_keys(state, n);
	memcpy(run->keys, keys, n * setops_key_size(state->type));
	run->n = n;
	run->rank = rank;
}

/* a <op> b, written into a new buffer of the state's context */
static AggRun
agg_combine_runs(SetopsAggState *state, const void *a, int64 na,
				 const void *b, int64 nb, int rank)
{
	const char *fname = agg_name(state->op);
	SetopsKeys	ka = {state->type, na, a, 1, true, -1, false};
	SetopsKeys	kb = {state->type, nb, b, 1, true, -1, false};
	AggRun		out;

	out.keys = agg_alloc_keys(state, setop_output_bound(state->op, na, nb));
	out.n = setops_run_setop(fname, state->op, &ka, &kb, out.keys);
	out.rank = rank;
	return out;
}

/* Combine the two topmost runs. */
static void
agg_combine_top(SetopsAggState *state)
{
	AggRun	   *x = &state->runs[state->nruns - 2];
	AggRun	   *y = &state->runs[state->nruns - 1];
	AggRun		z = agg_combine_runs(state, x->keys, x->n, y->keys, y->n,
									 Max(x->rank, y->rank) + 1);

	pfree(x->keys);
	pfree(y->keys);
	*x = z;
	state->nruns--;
}

static void
agg_collapse(SetopsAggState *state)
{
	while (state->nruns > 1)
		agg_combine_top(state);
}

static void
agg_add_row(SetopsAggState *state, const SetopsKeys *row)
{
	if (state->op == SETOPS_OP_INTERSECT && state->nruns == 1)
	{
		AggRun	   *cur = &state->runs[0];
		AggRun		z;

		if (cur->n == 0)
			return;				/* already empty: stays empty */
		z = agg_combine_runs(state, cur->keys, cur->n, row->data, row->n, 0);
		pfree(cur->keys);
		*cur = z;
		return;
	}
	agg_push(state, row->data, row->n, 0);
	while (state->nruns > 1 &&
		   state->runs[state->nruns - 1].rank == state->runs[state->nruns - 2].rank)
		agg_combine_top(state);
}

static Datum
agg_trans(FunctionCallInfo fcinfo, SetopsOp op)
{
	const char *fname = agg_name(op);
	MemoryContext aggcxt;
	SetopsAggState *state;
	SetopsKeys	row;

	if (!AggCheckCallContext(fcinfo, &aggcxt))
		elog(ERROR, "%s transition function called in non-aggregate context", fname);
	state = PG_ARGISNULL(0) ? NULL : (SetopsAggState *) PG_GETARG_POINTER(0);
	if (PG_ARGISNULL(1))
	{
		/* NULL rows are skipped */
		if (state == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(state);
	}

	/* every row is checked, even once an intersection is empty */
	setops_read_arg(fcinfo, 1, 1, fname, &row);
	setops_keys_materialize(&row, fname);
	setops_require_sorted(fname, &row);
	if (state == NULL)
		state = agg_state_new(aggcxt, op, row.type);
	agg_add_row(state, &row);
	PG_RETURN_POINTER(state);
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
 * The final function collapses the runs in place.  That changes how the
 * state is held, not what it means, so it stays correct when PostgreSQL
 * calls it again (window frames) or shares the state between aggregates.
 * Returns the single run left, or NULL when there were no non-NULL rows.
 */
static AggRun *
agg_final_run(FunctionCallInfo fcinfo)
{
	SetopsAggState *state;

	if (PG_ARGISNULL(0))
		return NULL;
	state = (SetopsAggState *) PG_GETARG_POINTER(0);
	/* gpu mode means the GPU or an ERROR, even with nothing to combine */
	(void) setops_gpu_usable(agg_name(state->op), 0);
	agg_collapse(state);
	return &state->runs[0];
}

Datum
setops_agg_final(PG_FUNCTION_ARGS)
{
	AggRun	   *run = agg_final_run(fcinfo);
	SetopsAggState *state;
	SetopsResult res;

	if (run == NULL)
		PG_RETURN_NULL();
	state = (SetopsAggState *) PG_GETARG_POINTER(0);
	setops_result_alloc(&res, setops_key_elemtype(state->type),
						setops_key_size(state->type), run->n, agg_name(state->op));
	memcpy(res.data, run->keys, run->n * setops_key_size(state->type));
	PG_RETURN_DATUM(setops_result_finish(&res, run->n, agg_name(state->op)));
}

/* The aggregates over packed rows return packed. */
Datum
setops_agg_final_packed(PG_FUNCTION_ARGS)
{
	AggRun	   *run = agg_final_run(fcinfo);
	SetopsAggState *state;

	if (run == NULL)
		PG_RETURN_NULL();
	state = (SetopsAggState *) PG_GETARG_POINTER(0);
	PG_RETURN_DATUM(setops_packed_datum(state->type, run->keys, run->n, agg_name(state->op)));
}

Datum
setops_agg_combine(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt;
	SetopsAggState *s1 = PG_ARGISNULL(0) ? NULL : (SetopsAggState *) PG_GETARG_POINTER(0);
	SetopsAggState *s2 = PG_ARGISNULL(1) ? NULL : (SetopsAggState *) PG_GETARG_POINTER(1);
	int			i;

	if (!AggCheckCallContext(fcinfo, &aggcxt))
		elog(ERROR, "setops_agg_combine called in non-aggregate context");
	if (s2 == NULL)
	{
		if (s1 == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(s1);
	}
	/* s2 may live in short-lived memory and is left untouched: copy it */
	if (s1 == NULL)
		s1 = agg_state_new(aggcxt, s2->op, s2->type);
	for (i = 0; i < s2->nruns; i++)
		agg_push(s1, s2->runs[i].keys, s2->runs[i].n, s2->runs[i].rank);
	agg_collapse(s1);
	PG_RETURN_POINTER(s1);
}

Datum
setops_agg_serialize(PG_FUNCTION_ARGS)
{
	SetopsAggState *state = (SetopsAggState *) PG_GETARG_POINTER(0);
	size_t		ksize = setops_key_size(state->type);
	AggWire    *wire;
	Size		bytes;

	agg_collapse(state);
	bytes = sizeof(AggWire) + state->runs[0].n * ksize;
	if (bytes > MaxAllocSize)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s: a partial result of %lld keys is too large to pass between parallel workers",
						agg_name(state->op), (long long) state->runs[0].n),
				 errhint("Disable parallel query for this statement (SET max_parallel_workers_per_gather = 0).")));
	wire = palloc(bytes);
	SET_VARSIZE(wire, bytes);
	wire->op = state->op;
	wire->type = state->type;
	wire->pad = 0;
	wire->n = state->runs[0].n;
	memcpy(wire + 1, state->runs[0].keys, state->runs[0].n * ksize);
	PG_RETURN_BYTEA_P(wire);
}

/* The state points into the detoasted bytea: combine copies what it keeps. */
Datum
setops_agg_deserialize(PG_FUNCTION_ARGS)
{
	bytea	   *raw = PG_GETARG_BYTEA_P(0);
	AggWire    *wire = (AggWire *) raw;
	SetopsAggState *state;

	if (VARSIZE(raw) < sizeof(AggWire) ||
		(wire->op != SETOPS_OP_INTERSECT && wire->op != SETOPS_OP_UNION && wire->op != SETOPS_OP_MERGE) ||
		(wire->type != SETOPS_KEY_INT32 && wire->type != SETOPS_KEY_INT64) ||
		wire->n < 0 ||
		VARSIZE(raw) != sizeof(AggWire) + wire->n * setops_key_size(wire->type))
		elog(ERROR, "setops: malformed serialized aggregate state");
	state = agg_state_new(CurrentMemoryContext, wire->op, wire->type);
	state->runs[0].keys = wire + 1;
	state->runs[0].n = wire->n;
	state->runs[0].rank = 0;
	state->nruns = 1;
	PG_RETURN_POINTER(state);
}
