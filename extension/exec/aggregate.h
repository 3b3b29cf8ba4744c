/*
 * aggregate.h
 *	  The state of array_intersect_agg, array_union_agg and array_merge_agg
 *	  and its reductions (aggregate.c); their support functions are
 *	  funcs/agg_funcs.c's.
 */
#ifndef SETOPS_EXEC_AGGREGATE_H
#define SETOPS_EXEC_AGGREGATE_H

#include "setops.h"
#include "args/args.h"

struct AggStateObject;			/* funcs/agg_funcs.c: the state as a value */
struct SetopsStageStream;		/* service/client.h */

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
	struct SetopsStageStream *stream;	/* non-NULL: the keys are on the device, not here */
	bool		rows_are_arrays;	/* int4[] or int8[] rows (not packed ones) */
	double		stream_ms;		/* in transition calls that streamed */
	int64	   *lengths;		/* the descriptor: each run's length */
	int64		nruns;			/* >= 1 once a non-NULL row was seen */
	int64		maxruns;
	bool		head_reduced;	/* run 0 is the result of a reduction */
	Size		reduce_at;		/* reduce in place past this many bytes */
	struct AggStateObject *object;	/* its setops_agg_state value; NULL: internal */
} SetopsAggState;

extern int64 setops_agg_stored_rows_taken;

extern const char *setops_agg_name(SetopsOp op);
extern SetopsAggState *setops_agg_state_new(MemoryContext cxt, SetopsOp op, SetopsKeyType type,
											bool may_map, bool may_stream);
extern void setops_agg_one_run(SetopsAggState *state, int64 n);
extern void setops_agg_add_run(SetopsAggState *state, const void *keys, int64 n);
extern bool setops_agg_add_stored_run(SetopsAggState *state, Datum row);
extern void setops_agg_bound(SetopsAggState *state);
extern void setops_agg_reduce(SetopsAggState *state);
extern void setops_agg_reduce_final(SetopsAggState *state);
extern void *setops_agg_reduce_into(SetopsAggState *state, void *(*alloc) (int64 n, void *arg),
									void *arg, int64 *n);
extern void setops_agg_unstream(SetopsAggState *state);
extern Size setops_agg_flat_size(SetopsAggState *state);
extern void setops_agg_flatten(SetopsAggState *state, void *result, Size bytes);

#endif							/* SETOPS_EXEC_AGGREGATE_H */
