/*
 * agg_funcs.c
 *	  array_intersect_agg, array_union_agg and array_merge_agg.
 *
 * The transition state is segmented: every row's keys appended to one
 * buffer, and a descriptor of run lengths, in the aggregate's memory
 * context.  The final function reduces it with setops_run_reduce, in
 * log2(rows) rounds, each round one batch over all pairs of that round (on
 * the GPU when chosen, else the CPU engine).  So no row is combined on its
 * own, and each key is combined about log2(rows) times.
 *
 * Memory is bounded by reducing in place: when the state passes
 * agg_reduce_bytes (or twice its size after the last reduction, so that a
 * state that does not shrink is not reduced again at every row), it
 * becomes one run and rows are appended after it.  An intersection then
 * stays about as small as its smallest row.
 *
 * A union or merge state that passes setops.agg_stream_min_size streams
 * instead: each row goes to the GPU as it comes (service_stage.c), into the
 * stage the final function's rounds then run on, and only the descriptor
 * stays here.  That saves appending every row to host memory and copying
 * it all towards the device at the end: the two passes over the state that
 * cost most once the rounds run on the GPU.  What needs the keys on the
 * host (serializing for a parallel leader, a final that cannot use the
 * GPU) reduces them there or reads them back first.
 *
 * All three are commutative and associative on multisets of keys, so the
 * result does not depend on row order nor on where reductions happen, and
 * partial aggregation (here by parallel workers, elsewhere by Citus's
 * workers) gives identical answers.
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
#include "test_hooks.h"
#include "service/service.h"
#include "engine/cpu/engine.h"

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

struct AggStateObject;

/*
 * Keys and descriptor bytes past which a state is reduced in place.  An
 * intersection shrinks, so it is reduced early (the pgTAP suite
 * 10_agg_batches.sql has groups larger than this).  A union or a merge
 * rarely shrinks much, and each reduction in place is one more trip of the
 * whole state to the GPU and back: they wait until the state is large.
 * The code path is the same for all three.
 */
#define AGG_REDUCE_BYTES	((Size) 32 * 1024 * 1024)
#define AGG_REDUCE_BYTES_GROWING	((Size) 512 * 1024 * 1024)
#define agg_reduce_bytes(op) \
	((op) == SETOPS_OP_INTERSECT ? AGG_REDUCE_BYTES : AGG_REDUCE_BYTES_GROWING)

/*
 * Past this size the keys move to a mapping of their own that grows in
 * place with huge pages (mapped_buffer.c); below it, many groups of small
 * rows stay in palloc'd memory.  For an intersection, above
 * AGG_REDUCE_BYTES, so that one reduced in place at every 32 MB does not
 * map and unmap each time.  Not under hash aggregation: it measures its
 * groups' memory contexts to decide when to spill, and a mapping would
 * hide the state from it.
 */
#define AGG_MAPPED_BYTES	((Size) 32 * 1024 * 1024)
#define agg_mapped_bytes(op) \
	((op) == SETOPS_OP_INTERSECT ? 2 * AGG_REDUCE_BYTES : AGG_MAPPED_BYTES)

/* first capacities: many groups of small rows stay small */
#define AGG_INITIAL_KEYS	64
#define AGG_INITIAL_RUNS	8

typedef struct SetopsAggState
{
	SetopsOp	op;				/* INTERSECT, UNION or MERGE */
	SetopsKeyType type;
	MemoryContext cxt;			/* where keys and lengths live */
	char	   *keys;			/* the runs, one after the other */
	int64		nkeys;
	int64		maxkeys;
	bool		keys_owned;		/* false: keys point into a serialized state */
	bool		may_map;		/* see agg_mapped_bytes */
	SetopsMappedBuffer mapped;	/* keys, once large and may_map */
	bool		may_stream;		/* see agg_may_stream */
	SetopsStageStream *stream;	/* non-NULL: the keys are on the device, not here */
	bool		rows_are_arrays;	/* int4[] or int8[] rows (not packed ones) */
	double		stream_ms;		/* in transition calls that streamed */
	int64	   *lengths;		/* the descriptor: each run's length */
	int64		nruns;			/* >= 1 once a non-NULL row was seen */
	int64		maxruns;
	bool		head_reduced;	/* run 0 is the result of a reduction */
	Size		reduce_at;		/* reduce in place past this many bytes */
	struct AggStateObject *object;	/* its setops_agg_state value; NULL: internal */
} SetopsAggState;

/* A setops_agg_state value in a backend: see the file's header. */
typedef struct AggStateObject
{
	ExpandedObjectHeader hdr;
	SetopsAggState *state;
} AggStateObject;

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

static SetopsAggState *
agg_state_new(MemoryContext cxt, SetopsOp op, SetopsKeyType type, bool may_map,
			  bool may_stream)
{
	SetopsAggState *state = MemoryContextAllocZero(cxt, sizeof(SetopsAggState));

	state->op = op;
	state->may_map = may_map && setops_mapped_available();
	state->may_stream = may_stream;
	state->type = type;
	state->cxt = cxt;
	state->maxkeys = AGG_INITIAL_KEYS;
	state->keys = MemoryContextAlloc(cxt, state->maxkeys * setops_key_size(type));
	state->keys_owned = true;
	state->maxruns = AGG_INITIAL_RUNS;
	state->lengths = MemoryContextAlloc(cxt, state->maxruns * sizeof(int64));
	state->reduce_at = agg_reduce_bytes(op);
	return state;
}

static Size
agg_bytes(const SetopsAggState *state)
{
	return (Size) state->nkeys * setops_key_size(state->type) +
		(Size) state->nruns * sizeof(int64);
}

/* An intersection known to be empty: no later row can change it. */
static bool
agg_known_empty(const SetopsAggState *state)
{
	return state->op == SETOPS_OP_INTERSECT && state->nruns == 1 &&
		state->lengths[0] == 0;
}

/* Are cap keys to live in a mapping of their own (see agg_mapped_bytes)? */
static bool
agg_maps_keys(const SetopsAggState *state, int64 cap)
{
	return state->may_map && (Size) cap * setops_key_size(state->type) >= agg_mapped_bytes(state->op);
}

/* The state is now one reduced run of n keys. */
static void
agg_one_run(SetopsAggState *state, int64 n)
{
	state->nkeys = n;
	state->lengths[0] = n;
	state->nruns = 1;
	state->head_reduced = true;
}

/* Room for need keys; the buffer at least doubles. */
static void
agg_grow_keys(SetopsAggState *state, int64 need)
{
	size_t		ks = setops_key_size(state->type);
	int64		cap = Max(state->maxkeys * 2, need);

	Assert(state->keys_owned);
	if (state->keys == state->mapped.p)
		state->keys = setops_mapped_grow(&state->mapped, cap * ks, state->cxt);
	else if (agg_maps_keys(state, cap))
	{
		char	   *old = state->keys;

		state->keys = setops_mapped_grow(&state->mapped, cap * ks, state->cxt);
		memcpy(state->keys, old, state->nkeys * ks);
		pfree(old);
	}
	else
		state->keys = repalloc_huge(state->keys, cap * ks);
	state->maxkeys = cap;
}

/* A buffer of cap keys, which the state owns: mapped when large. */
static void
agg_alloc_keys(SetopsAggState *state, int64 cap)
{
	size_t		ks = setops_key_size(state->type);

	Assert(state->keys == NULL);
	if (agg_maps_keys(state, cap))
		state->keys = setops_mapped_grow(&state->mapped, cap * ks, state->cxt);
	else
		state->keys = MemoryContextAllocHuge(state->cxt, cap * ks);
	state->keys_owned = true;
	state->maxkeys = cap;
}

/* The keys are about to be replaced: free them if they are the state's. */
static void
agg_free_keys(SetopsAggState *state)
{
	if (state->keys == state->mapped.p)
		setops_mapped_free(&state->mapped);
	else if (state->keys_owned)
		pfree(state->keys);
	state->keys = NULL;
}

/* Should the state start streaming before it takes n more keys? */
static bool
agg_should_stream(const SetopsAggState *state, int64 n)
{
	int64		keys = state->nkeys + n;

	if (!state->may_stream || state->op == SETOPS_OP_INTERSECT ||
		setops_agg_stream_min_mb < 0 || setops_device == SETOPS_DEVICE_CPU ||
		(Size) keys * setops_key_size(state->type) < (Size) setops_agg_stream_min_mb * 1024 * 1024 ||
		!setops_service_reduce_fits(state->type, keys, state->nruns + 1))
		return false;
	return setops_gpu_usable(agg_name(state->op), keys);
}

/*
 * Send the keys held so far to the device and stream from now on; stay in
 * host memory when no stream can be had (this backend streams already, or
 * every slot of the service is busy) or the first put fails.
 */
static void
agg_stream_begin(SetopsAggState *state)
{
	char		errbuf[SETOPS_GPU_ERRLEN];
	SetopsStageStream *s;

	/* the stage is first sized for as much again; it grows as needed */
	s = setops_service_stream_open(state->type, Min(2 * state->nkeys, INT_MAX / 2), state->cxt);
	if (s == NULL)
		return;					/* (tried again at the next row) */
	if (setops_service_stream_put(s, state->keys, state->nkeys, errbuf, sizeof(errbuf)) != SETOPS_GPU_OK)
	{
		elog(DEBUG1, "%s: keeping the rows in memory: %s", agg_name(state->op), errbuf);
		setops_service_stream_close(s);
		state->may_stream = false;
		return;
	}
	agg_free_keys(state);
	state->maxkeys = 0;
	state->stream = s;
}

/*
 * Stop streaming: read the keys put so far back into host memory (the
 * first nkeys of them: a failed put may have sent part of one more row).
 */
static void
agg_unstream(SetopsAggState *state)
{
	SetopsStageStream *s = state->stream;
	char		errbuf[SETOPS_GPU_ERRLEN];
	SetopsGpuStatus status;

	if (s == NULL)
		return;
	state->stream = NULL;
	agg_free_keys(state);		/* a failed reduction's buffer */
	agg_alloc_keys(state, Max(setops_service_stream_count(s), AGG_INITIAL_KEYS));
	status = setops_service_stream_fetch(s, state->keys, errbuf, sizeof(errbuf));
	setops_service_stream_close(s);
	if (status != SETOPS_GPU_OK)
		ereport(ERROR,
				(errcode(ERRCODE_EXTERNAL_ROUTINE_EXCEPTION),
				 errmsg("%s: the rows sent to the GPU could not be read back: %s",
						agg_name(state->op), errbuf),
				 errhint("Run the query again; with setops.agg_stream_min_size = -1 the rows stay in the backend's memory.")));
}

/* A GPU failure while streaming: an ERROR in gpu mode, else back to memory. */
static void
agg_stream_failed(SetopsAggState *state, SetopsGpuStatus status, const char *errbuf)
{
	setops_gpu_failed(agg_name(state->op), status, errbuf);
	agg_unstream(state);
}

/*
 * Reduce a streaming state's runs on the device, the result into alloc's
 * buffer; the stream is closed either way.  False when the GPU failed (an
 * ERROR in gpu mode): the state is then back in host memory, unreduced.
 */
static bool
agg_stream_reduce(SetopsAggState *state, void *(*alloc) (int64 n, void *arg), void *arg,
				  void **result, int64 *n)
{
	char		errbuf[SETOPS_GPU_ERRLEN];
	SetopsGpuStatus status;

	status = setops_service_stream_reduce(state->stream, state->op, state->lengths, state->nruns,
										  alloc, arg, result, n, errbuf, sizeof(errbuf));
	if (status == SETOPS_GPU_OK)
	{
		setops_service_stream_close(state->stream);
		state->stream = NULL;
		setops_last.on_gpu = true;
		setops_last.streamed_rows = state->nruns;
		setops_last.read_ms = state->stream_ms;
		return true;
	}
	agg_stream_failed(state, status, errbuf);
	return false;
}

/* Does the state's stream take n more keys (the GPU still on, and one reduction there)? */
static bool
agg_stream_takes(const SetopsAggState *state, int64 n)
{
	return setops_device != SETOPS_DEVICE_CPU &&
		setops_service_reduce_fits(state->type, state->nkeys + n, state->nruns + 1);
}

/* Room in the descriptor for one more run. */
static void
agg_room_for_run(SetopsAggState *state)
{
	if (state->nruns == state->maxruns)
	{
		state->maxruns *= 2;
		state->lengths = repalloc_huge(state->lengths, state->maxruns * sizeof(int64));
	}
}

/* Rows this backend took straight from their TOAST chunks (a test hook reads it). */
static int64 stored_rows_taken = 0;

/* Where a streaming state's next row of n keys goes (setops_read_stored_into). */
typedef struct AggRowRoom
{
	SetopsAggState *state;
	SetopsGpuStatus status;
	char		errbuf[SETOPS_GPU_ERRLEN];
} AggRowRoom;

static void *
agg_row_room(int64 n, void *arg)
{
	AggRowRoom *r = arg;
	SetopsAggState *state = r->state;
	void	   *room;

	if (!agg_stream_takes(state, n))
		return NULL;			/* agg_add_run unstreams */
	r->status = setops_service_stream_reserve(state->stream, n, &room, r->errbuf, sizeof(r->errbuf));
	return room;
}

/*
 * A streaming state takes a stored row's keys from its TOAST chunks
 * straight into the stream's slot (one copy, not two), checked there.
 * False when the row is not one it can take so (read it the usual way).
 */
static bool
agg_add_stored_run(SetopsAggState *state, Datum row)
{
	AggRowRoom	r;
	SetopsKeys	keys;
	void	   *data;
	int64		n;
	SetopsGpuStatus status;

	if (state->stream == NULL || !state->rows_are_arrays)
		return false;
	r.state = state;
	r.status = SETOPS_GPU_OK;
	if (!setops_read_stored_into(row, setops_key_elemtype(state->type), agg_row_room, &r,
								 &data, &n))
	{
		if (r.status != SETOPS_GPU_OK)
			agg_stream_failed(state, r.status, r.errbuf);
		return false;
	}
	memset(&keys, 0, sizeof(keys));
	keys.type = state->type;
	keys.data = data;
	keys.n = n;
	keys.argno = 1;
	keys.first_unsorted = -1;
	setops_require_sorted(agg_name(state->op), &keys);

	if (state->nruns == 1 && state->lengths[0] == 0)
		state->nruns = 0;		/* an empty state adds nothing (as in agg_add_run) */
	agg_room_for_run(state);
	stored_rows_taken++;
	/* counted even if sending fails: the keys are in the slot, read back from there */
	status = setops_service_stream_commit(state->stream, n, r.errbuf, sizeof(r.errbuf));
	state->lengths[state->nruns++] = n;
	state->nkeys += n;
	if (status != SETOPS_GPU_OK)
		agg_stream_failed(state, status, r.errbuf);
	return true;
}

/* Append one sorted run of n keys (copied). */
static void
agg_add_run(SetopsAggState *state, const void *keys, int64 n)
{
	size_t		ks = setops_key_size(state->type);

	Assert(state->keys_owned);
	if (state->op == SETOPS_OP_INTERSECT)
	{
		if (agg_known_empty(state))
			return;
		if (n == 0)
		{
			/* intersection with an empty row is empty, whatever follows */
			agg_one_run(state, 0);
			return;
		}
	}
	else if (n == 0 && state->nruns > 0)
		return;					/* union and merge: an empty row adds nothing */
	else if (state->nruns == 1 && state->lengths[0] == 0)
		state->nruns = 0;		/* nor does an empty state */

	agg_room_for_run(state);
	if (state->stream == NULL && agg_should_stream(state, n))
		agg_stream_begin(state);
	else if (state->stream != NULL && !agg_stream_takes(state, n))
		agg_unstream(state);	/* the GPU was turned off, or past what one reduction there takes */
	if (state->stream != NULL)
	{
		char		errbuf[SETOPS_GPU_ERRLEN];
		SetopsGpuStatus status;

		status = setops_service_stream_put(state->stream, keys, n, errbuf, sizeof(errbuf));
		if (status == SETOPS_GPU_OK)
		{
			state->lengths[state->nruns++] = n;
			state->nkeys += n;
			return;
		}
		agg_stream_failed(state, status, errbuf);
	}
	if (state->nkeys + n > state->maxkeys)
		agg_grow_keys(state, state->nkeys + n);
	memcpy(state->keys + state->nkeys * ks, keys, n * ks);
	state->lengths[state->nruns++] = n;
	state->nkeys += n;
}

/*
 * After an earlier reduction, the runs added since are reduced first, so
 * that the (usually large) earlier run is combined once rather than carried
 * through every round: the state becomes two runs.
 */
static void
agg_reduce_tail(SetopsAggState *state)
{
	size_t		ks = setops_key_size(state->type);
	int64		head = state->lengths[0];
	void	   *result;
	int64		n;

	if (!state->head_reduced || state->nruns <= 2)
		return;
	result = setops_run_reduce(agg_name(state->op), state->op, state->type,
							   state->keys + head * ks, state->lengths + 1,
							   state->nruns - 1, &n);
	/* no longer than what it replaces */
	memcpy(state->keys + head * ks, result, n * ks);
	pfree(result);
	state->lengths[1] = n;
	state->nruns = 2;
	state->nkeys = head + n;
}

/* A streaming state's reduction comes back into keys of its own. */
static void *
agg_keys_alloc(int64 n, void *arg)
{
	SetopsAggState *state = (SetopsAggState *) arg;

	if (state->keys == NULL)
		agg_alloc_keys(state, Max(n, AGG_INITIAL_KEYS));
	return state->keys;
}

/*
 * Reduce the state to one run.  After an earlier reduction, the runs added
 * since are reduced first and then combined with that (usually large) run
 * once, rather than carrying it through every round.
 */
static void
agg_reduce(SetopsAggState *state)
{
	const char *fname = agg_name(state->op);
	MemoryContext oldcxt;
	void	   *result;
	int64		n;

	if (state->stream != NULL && state->nruns > 1 && setops_device != SETOPS_DEVICE_CPU)
	{
		MemoryContext oldcxt = MemoryContextSwitchTo(state->cxt);
		bool		done;

		/* the keys need not come back before the rounds, only their result */
		done = agg_stream_reduce(state, agg_keys_alloc, state, &result, &n);
		MemoryContextSwitchTo(oldcxt);
		if (done)
		{
			agg_one_run(state, n);
			return;
		}
	}
	agg_unstream(state);
	if (state->nruns <= 1)
		return;
	agg_reduce_tail(state);
	/* the result becomes the state's buffer; the reduce frees its scratch */
	oldcxt = MemoryContextSwitchTo(state->cxt);
	result = setops_run_reduce(fname, state->op, state->type, state->keys,
							   state->lengths, state->nruns, &n);
	MemoryContextSwitchTo(oldcxt);

	agg_free_keys(state);
	state->keys = result;
	state->keys_owned = true;
	state->maxkeys = n;			/* all the reduce promises room for */
	agg_one_run(state, n);
}

/* Bound the state's memory: reduce in place once it has grown enough. */
static void
agg_bound(SetopsAggState *state)
{
	/* a streaming state's keys are on the device */
	if (state->stream != NULL || agg_bytes(state) <= state->reduce_at)
		return;
	elog(DEBUG1, "%s: reducing %lld runs of %lld keys in place",
		 agg_name(state->op), (long long) state->nruns, (long long) state->nkeys);
	agg_reduce(state);
	state->reduce_at = Max(agg_reduce_bytes(state->op), 2 * agg_bytes(state));
}

/* ---- the state's flat form, and its setops_agg_state value ---- */

/* Bytes of the flat form: the state is reduced to one run first. */
static Size
agg_flat_size(SetopsAggState *state)
{
	Size		bytes;

	agg_reduce(state);
	bytes = sizeof(SetopsAggWire) + state->nkeys * setops_key_size(state->type);
	if (bytes > MaxAllocSize)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s: a partial result of %lld keys is too large to pass to another process or server",
						agg_name(state->op), (long long) state->nkeys),
				 errhint("Aggregate in one place: SET max_parallel_workers_per_gather = 0, or for a sharded table aggregate per shard and combine the results with a second aggregate.")));
	return bytes;
}

/* The flat form of a state that agg_flat_size measured. */
static void
agg_flatten(SetopsAggState *state, void *result, Size bytes)
{
	SetopsAggWire *wire = (SetopsAggWire *) result;

	Assert(state->nruns <= 1 && bytes == sizeof(SetopsAggWire) +
		   state->nkeys * setops_key_size(state->type));
	memset(wire, 0, sizeof(SetopsAggWire));
	SET_VARSIZE(wire, bytes);
	wire->op = state->op;
	wire->type = state->type;
	wire->n = state->nkeys;
	memcpy(wire + 1, state->keys, state->nkeys * setops_key_size(state->type));
}

static Size
agg_object_flat_size(ExpandedObjectHeader *eohptr)
{
	return agg_flat_size(((AggStateObject *) eohptr)->state);
}

static void
agg_object_flatten(ExpandedObjectHeader *eohptr, void *result, Size allocated_size)
{
	agg_flatten(((AggStateObject *) eohptr)->state, result, allocated_size);
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
	obj->state = agg_state_new(cxt, op, type, may_map, may_stream);
	obj->state->object = obj;
	return obj->state;
}

/* A state that reads a flat form in place (combine copies what it keeps). */
static SetopsAggState *
agg_state_view(const SetopsAggWire *wire)
{
	SetopsAggState *state = agg_state_new(CurrentMemoryContext, wire->op, wire->type, false, false);

	pfree(state->keys);
	state->keys = (char *) (wire + 1);
	state->keys_owned = false;
	state->maxkeys = wire->n;
	agg_one_run(state, wire->n);
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
	agg_add_run(state, wire + 1, wire->n);
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
		return agg_state_new(aggcxt, op, type, agg_may_map(fcinfo), agg_may_stream(fcinfo));
	return agg_object_new(aggcxt, op, type, agg_may_map(fcinfo), agg_may_stream(fcinfo));
}

static Datum
agg_trans(FunctionCallInfo fcinfo, SetopsOp op)
{
	const char *fname = agg_name(op);
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
	if (timed && agg_add_stored_run(state, PG_GETARG_DATUM(1)))
	{
		state->stream_ms += setops_now_ms() - t0;
		PG_RETURN_DATUM(agg_state_datum(state));
	}
	/* every row is checked, even once an intersection is empty */
	setops_read_arg(fcinfo, 1, 1, fname, &row);
	setops_keys_materialize(&row, fname);
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
						setops_key_type_name(state->type), agg_name(state->op))));
	agg_add_run(state, row.data, row.n);
	agg_bound(state);
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
	/* gpu mode means the GPU or an ERROR, even with nothing to combine */
	(void) setops_gpu_usable(agg_name(state->op), 0);
	agg_reduce(state);
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
						setops_key_size(r->state->type), n, agg_name(r->state->op));
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
		void	   *keys;

		/* setops_last_timing() shows the final reduction's phases */
		memset(&setops_last, 0, sizeof(setops_last));
		memset(&r, 0, sizeof(r));
		(void) setops_gpu_usable(agg_name(state->op), 0);
		r.state = state;
		if (state->stream != NULL && setops_device != SETOPS_DEVICE_CPU &&
			agg_stream_reduce(state, agg_result_alloc, &r, &keys, &n))
		{
			/*
			 * The state keeps its meaning: one run, the result's keys.  They
			 * live as long as this output row; PostgreSQL calls another
			 * final function on a shared state in the same pass, and never
			 * adds rows after a plain aggregate's final (those do not
			 * stream).
			 */
			state->keys = keys;
			state->keys_owned = false;
			state->maxkeys = n;
			agg_one_run(state, n);
		}
		else
		{
			agg_unstream(state);
			agg_reduce_tail(state);
			(void) setops_run_reduce_into(agg_name(state->op), state->op, state->type, state->keys,
										  state->lengths, state->nruns, agg_result_alloc, &r, &n);
		}
		result = setops_result_finish(&r.res, n, agg_name(state->op));
		setops_last.total_ms = setops_now_ms() - t0;
		PG_RETURN_DATUM(result);
	}
	state = agg_final_state(fcinfo);
	memset(&r, 0, sizeof(r));
	r.state = state;
	(void) agg_result_alloc(state->nkeys, &r);
	memcpy(r.res.data, state->keys, state->nkeys * setops_key_size(state->type));
	PG_RETURN_DATUM(setops_result_finish(&r.res, state->nkeys, agg_name(state->op)));
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
										agg_name(state->op)));
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
				 errmsg("setops_agg_combine: states of %s and %s cannot be combined",
						agg_name(s1->op), agg_name(s2->op))));
	agg_unstream(s2);			/* (a state from this backend) */
	ks = setops_key_size(s2->type);
	for (i = 0; i < s2->nruns; i++)
	{
		agg_add_run(s1, s2->keys + start * ks, s2->lengths[i]);
		start += s2->lengths[i];
	}
	agg_bound(s1);
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
	Size		bytes = agg_flat_size(state);
	SetopsAggWire *wire = palloc(bytes);

	agg_flatten(state, wire, bytes);
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
	PG_RETURN_INT64(stored_rows_taken);
}
#endif							/* SETOPS_TEST_HOOKS */
