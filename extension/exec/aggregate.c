/*
 * aggregate.c
 *	  The aggregates' state and its reductions.
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
 * instead: each row goes to the GPU as it comes (service/client_stage.c), into the
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
 */
#include "postgres.h"

#include "utils/memutils.h"

#include "setops.h"
#include "args/args.h"
#include "exec/exec.h"
#include "exec/aggregate.h"
#include "service/client.h"

const char *
setops_agg_name(SetopsOp op)
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

SetopsAggState *
setops_agg_state_new(MemoryContext cxt, SetopsOp op, SetopsKeyType type, bool may_map,
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
void
setops_agg_one_run(SetopsAggState *state, int64 n)
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
	return setops_gpu_usable(setops_agg_name(state->op), keys);
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
		elog(DEBUG1, "%s: keeping the rows in memory: %s", setops_agg_name(state->op), errbuf);
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
void
setops_agg_unstream(SetopsAggState *state)
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
						setops_agg_name(state->op), errbuf),
				 errhint("Run the query again; with setops.agg_stream_min_size = -1 the rows stay in the backend's memory.")));
}

/* A GPU failure while streaming: an ERROR in gpu mode, else back to memory. */
static void
agg_stream_failed(SetopsAggState *state, SetopsGpuStatus status, const char *errbuf)
{
	setops_gpu_failed(setops_agg_name(state->op), status, errbuf);
	setops_agg_unstream(state);
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
int64		setops_agg_stored_rows_taken = 0;

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
bool
setops_agg_add_stored_run(SetopsAggState *state, Datum row)
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
								 &data, &n, NULL, NULL))
	{
		if (r.status != SETOPS_GPU_OK)
			agg_stream_failed(state, r.status, r.errbuf);
		return false;
	}
	memset(&keys, 0, sizeof(keys));
	keys.form = SETOPS_KEYS_PLAIN;
	keys.type = state->type;
	keys.data = data;
	keys.n = n;
	keys.argno = 1;
	keys.first_unsorted = -1;
	setops_require_sorted(setops_agg_name(state->op), &keys);

	if (state->nruns == 1 && state->lengths[0] == 0)
		state->nruns = 0;		/* an empty state adds nothing (as in agg_add_run) */
	agg_room_for_run(state);
	setops_agg_stored_rows_taken++;
	/* counted even if sending fails: the keys are in the slot, read back from there */
	status = setops_service_stream_commit(state->stream, n, r.errbuf, sizeof(r.errbuf));
	state->lengths[state->nruns++] = n;
	state->nkeys += n;
	if (status != SETOPS_GPU_OK)
		agg_stream_failed(state, status, r.errbuf);
	return true;
}

/* Append one sorted run of n keys (copied). */
void
setops_agg_add_run(SetopsAggState *state, const void *keys, int64 n)
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
			setops_agg_one_run(state, 0);
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
		setops_agg_unstream(state);	/* the GPU was turned off, or past what one reduction there takes */
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
	result = setops_run_reduce(setops_agg_name(state->op), state->op, state->type,
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
void
setops_agg_reduce(SetopsAggState *state)
{
	const char *fname = setops_agg_name(state->op);
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
			setops_agg_one_run(state, n);
			return;
		}
	}
	setops_agg_unstream(state);
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
	setops_agg_one_run(state, n);
}

/* Bound the state's memory: reduce in place once it has grown enough. */
void
setops_agg_bound(SetopsAggState *state)
{
	/* a streaming state's keys are on the device */
	if (state->stream != NULL || agg_bytes(state) <= state->reduce_at)
		return;
	elog(DEBUG1, "%s: reducing %lld runs of %lld keys in place",
		 setops_agg_name(state->op), (long long) state->nruns, (long long) state->nkeys);
	setops_agg_reduce(state);
	state->reduce_at = Max(agg_reduce_bytes(state->op), 2 * agg_bytes(state));
}

/* Bytes of the flat form: the state is reduced to one run first. */
Size
setops_agg_flat_size(SetopsAggState *state)
{
	Size		bytes;

	setops_agg_reduce(state);
	bytes = sizeof(SetopsAggWire) + state->nkeys * setops_key_size(state->type);
	if (bytes > MaxAllocSize)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s: a partial result of %lld keys is too large to pass to another process or server",
						setops_agg_name(state->op), (long long) state->nkeys),
				 errhint("Aggregate in one place: SET max_parallel_workers_per_gather = 0, or for a sharded table aggregate per shard and combine the results with a second aggregate.")));
	return bytes;
}

/* The flat form of a state that agg_flat_size measured. */
void
setops_agg_flatten(SetopsAggState *state, void *result, Size bytes)
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


/*
 * The final function's reduction of a state used once (a plain
 * aggregate), written straight into alloc's buffer: on the device where
 * the state streamed there, else by setops_run_reduce_into.  The state
 * keeps its meaning: one run, the result's keys (they live as long as the
 * output row).  Returns the keys.
 */
void *
setops_agg_reduce_into(SetopsAggState *state, void *(*alloc) (int64 n, void *arg), void *arg,
					   int64 *n)
{
	void	   *keys;

	/* gpu mode means the GPU or an ERROR, even with nothing to combine */
	(void) setops_gpu_usable(setops_agg_name(state->op), 0);
	if (state->stream != NULL && setops_device != SETOPS_DEVICE_CPU &&
		agg_stream_reduce(state, alloc, arg, &keys, n))
	{
		/*
		 * PostgreSQL calls another final function on a shared state in the
		 * same pass, and never adds rows after a plain aggregate's final
		 * (those do not stream).
		 */
		state->keys = keys;
		state->keys_owned = false;
		state->maxkeys = *n;
		setops_agg_one_run(state, *n);
		return keys;
	}
	setops_agg_unstream(state);
	agg_reduce_tail(state);
	return setops_run_reduce_into(setops_agg_name(state->op), state->op, state->type, state->keys,
								  state->lengths, state->nruns, alloc, arg, n);
}

/* The state reduced in place to one run (a final that keeps the state). */
void
setops_agg_reduce_final(SetopsAggState *state)
{
	/* gpu mode means the GPU or an ERROR, even with nothing to combine */
	(void) setops_gpu_usable(setops_agg_name(state->op), 0);
	setops_agg_reduce(state);
}
