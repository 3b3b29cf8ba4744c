/*
 * setops.h
 *	  Declarations shared by the PostgreSQL-facing files of setops.
 */
#ifndef SETOPS_H
#define SETOPS_H

#include "postgres.h"
#include "fmgr.h"

#include "engine/common/setop_kind.h"
#include "engine/common/segd.h"
#include "engine/gpu/setops_gpu.h"
#include "engine/cpu/copy_threads.h"

/* ---- GUCs (setops.c) ---- */

typedef enum SetopsDevice
{
	SETOPS_DEVICE_AUTO,
	SETOPS_DEVICE_CPU,
	SETOPS_DEVICE_GPU
} SetopsDevice;

extern int	setops_device;
extern int	setops_gpu_min_elements;
extern int	setops_agg_stream_min_mb;	/* setops.agg_stream_min_size; -1 never */
extern int	setops_copy_threads;	/* setops.copy_threads */
extern int	setops_cpu_threads;		/* setops.cpu_threads */

/* a large copy to or from the GPU service, over setops.copy_threads threads */
static inline void
setops_copy(void *dst, const void *src, size_t bytes)
{
	setops_copy_split(dst, src, bytes, setops_copy_threads);
}

/* ---- arrays in and out (array_io.c) ---- */

/*
 * A key argument, read without copying where PostgreSQL allows.  Sortedness
 * is verified while copying when a copy is needed anyway; otherwise it is
 * left to whoever runs the operation (the CPU checks in one pass, the GPU
 * checks on the device while the tiles load).
 */
typedef struct SetopsKeys
{
	SetopsKeyType type;
	int64		n;
	const void *data;			/* n contiguous keys */
	int			argno;			/* 1-based, for messages */
	bool		sorted_known;	/* order verified: see first_unsorted */
	int64		first_unsorted; /* if sorted_known: -1, or where order breaks */
	bool		distinct_known; /* verified free of repeated keys */
	/* a packed argument (packed_type.c): data is NULL until decoded */
	const void *packed;			/* the detoasted, checked packed value */
	Size		packed_size;
	/*
	 * A stored argument left unread (stored_value.c): data and packed are
	 * NULL and n comes from its header until setops_keys_materialize reads
	 * it; cache_key stays its identity after that.
	 */
	Datum		stored;			/* the TOAST pointer, or 0 */
	struct SetopsCacheKey *cache_key;
} SetopsKeys;

/* A value argument of pairs: any fixed-width element type. */
typedef struct SetopsValues
{
	Oid			elemtype;
	int16		typlen;
	bool		typbyval;
	char		typalign;
	int			stride;			/* bytes from one element to the next */
	int64		n;
	const char *data;
} SetopsValues;

extern SetopsKeyType setops_key_type_of(Oid elemtype);
extern void setops_read_keys(Datum array, int argno, const char *fname,
							 SetopsKeys *keys);
extern void setops_require_sorted(const char *fname, SetopsKeys *keys);
extern void setops_require_sorted2(const char *fname, SetopsKeys *a, SetopsKeys *b);
extern void setops_read_values(FunctionCallInfo fcinfo, Datum array, int argno,
							   const char *fname, int64 nkeys, int keys_argno,
							   SetopsValues *values);
extern void setops_report_unsorted(const char *fname, const SetopsKeys *keys,
								   int64 pos) pg_attribute_noreturn();

/* Result arrays are allocated at their bound and filled in place. */
typedef struct SetopsResult
{
	struct varlena *array;		/* the array under construction */
	void	   *data;			/* where its elements go */
	int64		capacity;
	Oid			elemtype;
	int			stride;
} SetopsResult;

extern void setops_advise_huge_pages(void *p, Size bytes);

/* mapped_buffer.c: a buffer grown in place by mremap, freed with its context */
typedef struct SetopsMappedBuffer
{
	char	   *p;				/* NULL until first grown */
	Size		bytes;
	bool		registered;		/* callback set on the owner context */
	MemoryContextCallback callback;
} SetopsMappedBuffer;

extern bool setops_mapped_available(void);
extern void *setops_mapped_grow(SetopsMappedBuffer *m, Size bytes, MemoryContext owner);
extern void setops_mapped_free(SetopsMappedBuffer *m);
extern void setops_result_alloc(SetopsResult *res, Oid elemtype, int stride,
								int64 capacity, const char *fname);
extern Datum setops_result_finish(SetopsResult *res, int64 n, const char *fname);
extern Oid	setops_key_elemtype(SetopsKeyType type);
/* The SQL name of a key type's element: "int4" or "int8". */
static inline const char *
setops_key_type_name(SetopsKeyType type)
{
	return type == SETOPS_KEY_INT64 ? "int8" : "int4";
}
extern void setops_gather_values(char *dst, const int64 *pos, int64 n,
								 const SetopsValues *av, const SetopsValues *bv);

/* ---- the aggregates' state value, setops_agg_state (agg_state.c) ---- */

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

/* ---- packed arguments and results (packed_type.c) ---- */

extern void setops_read_arg(FunctionCallInfo fcinfo, int argidx, int argno,
							const char *fname, SetopsKeys *keys);
extern void setops_read_packed(Datum datum, int argno, const char *fname,
							   SetopsKeys *keys);
extern void setops_keys_materialize(SetopsKeys *keys, const char *fname);
extern void *setops_packed_decode(const void *packed, const char *fname, int argno);
/* NULL, or why the keys of a checked value would not ascend */
struct PackedHeader;
extern const char *setops_packed_decode_into(const struct PackedHeader *h, void *keys);
extern void setops_release_packed(Datum datum, SetopsKeys *keys);

/* ---- stored arguments by identity (stored_value.c) ---- */

extern void setops_read_arg_stored(FunctionCallInfo fcinfo, int argidx, int argno,
								   const char *fname, SetopsKeys *keys);
extern void setops_read_stored(SetopsKeys *keys, const char *fname);
extern bool setops_read_stored_into(Datum datum, Oid elemtype,
									void *(*room) (int64 n, void *arg), void *arg,
									void **keys, int64 *n);
extern bool setops_returns_packed(FunctionCallInfo fcinfo);
extern Datum setops_packed_datum(SetopsKeyType type, const void *keys, int64 n,
								 const char *fname);
extern Datum setops_packed_finish(void *v, size_t size, const char *fname);

/* ---- running operations (dispatch.c) ---- */

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
/* A GPU call failed: returns for the CPU to answer (auto), else ERRORs. */
extern void setops_gpu_failed(const char *fname, SetopsGpuStatus status, const char *errbuf);
extern int64 setops_sort_on_cpu(SetopsKeyType type, void *keys, int64 n, bool distinct);

/* ---- batches: many operations at once (batch.c) ---- */

/*
 * Pair i is a's segment i with b's segment i (engine/common/segd.h: starts need
 * not be prefix sums), all of one key type, each segment sorted: callers
 * check every row as they read it, so errors name the row's argument as
 * the plain function would.  b_shared: every pair's B is the same keys
 * (bs.starts all 0), as when every row meets one constant.
 */
typedef struct SetopsBatch
{
	SetopsOp	op;
	SetopsKeyType type;
	const void *a;
	SetopsSegd	as;
	const void *b;
	SetopsSegd	bs;
	bool		b_shared;
} SetopsBatch;

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

/* ---- helpers (setops.c) ---- */

extern void setops_check_interrupts(void);

/*
 * Where the last operation's time went, for setops_last_timing() and the
 * benchmarks: reading the arguments (detoasting included), the GPU's
 * upload, decoding of packed arguments, the GPU's kernels (with the
 * encoding of a packed result on the GPU) and download, the CPU engine, and
 * building the result.
 */
typedef struct SetopsTiming
{
	bool		on_gpu;
	double		read_ms;
	double		upload_ms;
	double		decode_ms;		/* packed arguments: GPU or CPU decoding */
	double		kernel_ms;
	double		download_ms;
	double		cpu_ms;
	double		result_ms;
	double		total_ms;
	int64		streamed_rows;	/* an aggregate's rows sent to the GPU as they came */
} SetopsTiming;

extern SetopsTiming setops_last;
extern double setops_now_ms(void);

#endif							/* SETOPS_H */
