/*
 * exec.h
 *	  Running operations: the router (dispatch.c) decides where each runs
 *	  (the only reader of setops.device), batches and reductions (batch.c),
 *	  the aggregates' states (aggregate.c).  Used by funcs/; uses args/, the
 *	  service's client and engine/.
 */
#ifndef SETOPS_EXEC_H
#define SETOPS_EXEC_H

#include "setops.h"
#include "engine/cpu/engine.h"

typedef enum SetopsDevice
{
	SETOPS_DEVICE_AUTO,
	SETOPS_DEVICE_CPU,
	SETOPS_DEVICE_GPU
} SetopsDevice;

/* settings (module.c) that choose where work runs: read here only */
extern int	setops_device;
extern int	setops_gpu_min_elements;
extern int	setops_agg_stream_min_mb;	/* setops.agg_stream_min_size; -1 never */
extern bool setops_batch_read_ahead;	/* setops.batch_read_ahead (funcs/batch_funcs.c) */
extern int	setops_batch_read_workers;	/* setops.batch_read_workers */

/* room past a result's bound that the CPU engine may write into */
#define SETOPS_RESULT_SLACK SETOPS_CPU_OUTPUT_SLACK

extern int64 setops_run_setop(const char *fname, SetopsOp op,
							  SetopsKeys *a, SetopsKeys *b, void *out_keys);
extern int64 setops_run_setop_packed(const char *fname, SetopsOp op,
									 SetopsKeys *a, SetopsKeys *b, void *out_keys,
									 void **packed, size_t *packed_size);
extern int64 setops_run_setop_pairs(const char *fname, SetopsOp op,
									SetopsKeys *a, const SetopsValues *av,
									SetopsKeys *b, const SetopsValues *bv,
									void *out_keys, char *out_vals);
/*
 * Counts and predicates without building a result: the key-rank
 * intersection count (every operation's count follows from it), whether
 * some key is in both (stops at the first), whether b's multiset lies
 * within a's.  Same input rules and errors as the operations.
 */
typedef enum SetopsCountKind
{
	SETOPS_COUNT_INTERSECT,
	SETOPS_COUNT_OVERLAPS,
	SETOPS_COUNT_CONTAINS
} SetopsCountKind;

extern int64 setops_run_count(const char *fname, SetopsCountKind kind,
							  SetopsKeys *a, SetopsKeys *b);
extern int64 setops_run_sort(const char *fname, SetopsKeyType type, void *keys,
							 int64 n, bool distinct);
extern bool setops_gpu_usable(const char *fname, int64 nelems);

/* One of auto's averages in this backend (setops_auto_estimates()). */
typedef struct SetopsRouteEstimate
{
	const char *kind;			/* "count", "overlaps", ... */
	bool		stored;			/* an argument stored (read by identity) */
	int64		min_elements;	/* the size class: inputs' total from this */
	bool		gpu;			/* the engine */
	int64		calls;			/* calls measured (the first not counted) */
	double		ms;				/* decision to answer, a moving average */
	double		cpu_ms;			/* this backend's CPU time in it */
} SetopsRouteEstimate;

extern SetopsRouteEstimate *setops_route_estimates(int *n);
/*
 * From how many keys a stored argument is best left unread, by its
 * identity, for the device cache (setops_read_arg_stored); -1: never (the
 * CPU runs it, or no service caches).
 */
extern int64 setops_identity_min_keys(void);
/* A GPU call failed: returns for the CPU to answer (auto), else ERRORs. */
extern void setops_gpu_failed(const char *fname, SetopsGpuStatus status, const char *errbuf);
extern int64 setops_sort_on_cpu(SetopsKeyType type, void *keys, int64 n, bool distinct);

/* ---- devices (devices.c) ---- */

extern void setops_devices_refresh(void);
extern int	setops_devices_count(char *errbuf, size_t errlen);
extern SetopsGpuStatus setops_devices_info(int index, SetopsGpuDeviceInfo *info,
										   char *errbuf, size_t errlen);
extern int	setops_devices_cache_stats(SetopsCacheStats *stats);
extern int	setops_devices_service_stats(SetopsServiceStats *stats);
extern int	setops_devices_inject_faults(int device, int failures, const char *kind);

/* ---- batches (batch.c) ---- */

/* The most outputs of the whole batch: the pairs' bounds summed. */
extern int64 setops_batch_output_bound(const SetopsBatch *batch);

/*
 * Run every pair: the outputs are concatenated pair by pair into out
 * (setops_batch_output_bound + SETOPS_CPU_OUTPUT_SLACK keys), out_lengths
 * gets each pair's count.  out_pos, when not NULL (as many int64 as out),
 * gets each output's source as a combined position within its pair
 * (< na_i: A's, else na_i + B's), for setops_gather_values.  Each pair's
 * answer is identical to the plain function's.  Returns the total.
 */
extern int64 setops_run_batch(const char *fname, const SetopsBatch *batch, void *out,
							  int64 *out_lengths, int64 *out_pos);

/*
 * Counts of every pair (batch->op unused): answers[i] gets pair i's answer
 * as setops_run_count gives it for kind (the key-rank intersection count;
 * overlaps and contains 1 or 0).  Every pair's keys are in order (callers
 * checked each row as the plain function does).  Only the answers come
 * back from the GPU.
 */
extern void setops_run_count_batch(const char *fname, SetopsCountKind kind,
								   const SetopsBatch *batch, int64 *answers);
/*
 * The same in two steps, so that the caller works while the GPU counts:
 * begin sends what it can (flight), finish answers as
 * setops_run_count_batch does; abandon gives up a flight whose answers are
 * no longer wanted.
 */
extern void setops_count_batch_begin(const char *fname, SetopsCountKind kind,
									 const SetopsBatch *batch, SetopsCountFlight *flight);
extern void setops_count_batch_finish(const char *fname, SetopsCountKind kind,
									  const SetopsBatch *batch, int64 *answers,
									  SetopsCountFlight *flight);
extern void setops_count_batch_abandon(SetopsCountFlight *flight);

/*
 * The bytes a partition's stored rows may still put into the device cache
 * (*budget: -1 until first asked, then what is left of half the cache).
 */
extern int64 setops_batch_cache_budget(int64 *budget);

/*
 * A count batch's first run (batch_readers.c): the stored rows at
 * rows[0, nrows), TOAST pointers of values of argtype of at least
 * min_keys keys, read into the device cache by parallel readers within
 * the partition's budget, so that the batch finds them there.  Returns
 * the rows put.  setops_batch_readers_last_put: the last call's (-1: none
 * read), for the tests.
 */
extern int64 setops_batch_read_rows(const char *fname, Oid argtype, int64 min_keys,
									const struct varatt_external *rows, int64 nrows,
									int64 *cache_budget);
extern int64 setops_batch_readers_last_put;
extern bool setops_batch_readers_leader_reads;
extern bool setops_batch_readers_ring;
extern int64 setops_batch_readers_fail_at;

/*
 * op (INTERSECT, UNION or MERGE) over nruns sorted runs held one after the
 * other in keys (lengths[i] keys each), in log2(nruns) rounds of batches:
 * round r combines runs 2k and 2k+1 of round r-1.  These operations are
 * associative and commutative on multisets, so the answer is the same as
 * folding row by row.  Returns the result (palloc'd, huge allowed, with
 * SETOPS_CPU_OUTPUT_SLACK keys of room) and its count in *n.
 */
extern void *setops_run_reduce(const char *fname, SetopsOp op, SetopsKeyType type,
							   const void *keys, const int64 *lengths, int64 nruns,
							   int64 *n);
/*
 * The same, the result written into a buffer of alloc(n, arg) (room for n
 * keys), e.g. a result array's elements: no copy of the result after it.
 */
typedef void *(*SetopsReduceAlloc) (int64 n, void *arg);
extern void *setops_run_reduce_into(const char *fname, SetopsOp op, SetopsKeyType type,
									const void *keys, const int64 *lengths, int64 nruns,
									SetopsReduceAlloc alloc, void *arg, int64 *n);
/* The CPU engine's rounds (also the emulated service's). */
extern void *setops_reduce_on_cpu(SetopsOp op, SetopsKeyType type, const void *keys,
								  const int64 *lengths, int64 nruns, int64 total, int64 *n);

/* ---- the aggregates' state value, setops_agg_state (aggregate.c) ---- */

/*
 * Its flat form: this header, then the keys of one sorted run (native
 * byte order; the text and binary forms are portable).  Also 0.1/0.2's
 * serialized internal state.
 */
typedef struct SetopsAggWire
{
	int32		vl_len_;
	int32		op;				/* SETOPS_OP_INTERSECT, _UNION or _MERGE */
	int32		type;			/* SetopsKeyType */
	int32		pad;
	int64		n;
} SetopsAggWire;

/* wire, after an ERROR if its header or length is not a state's */
extern const SetopsAggWire *setops_agg_wire_check(const SetopsAggWire *wire);

#endif							/* SETOPS_EXEC_H */
