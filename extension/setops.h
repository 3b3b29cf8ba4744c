/*
 * setops.h
 *	  The ground floor of the PostgreSQL-facing side: the types every layer
 *	  passes to the one below (keys, values, results, batches, a stored
 *	  value's identity), the settings every layer reads, and the timing of
 *	  the last operation.  Which layer holds what: docs/design.md, "Source
 *	  layout"; scripts/check_layers.sh keeps includes pointing down.
 */
#ifndef SETOPS_H
#define SETOPS_H

#include "postgres.h"
#include "fmgr.h"

#include "engine/common/setop_kind.h"
#include "engine/common/segd.h"
#include "engine/gpu/setops_gpu.h"
#include "engine/cpu/copy_threads.h"

/* ---- settings (module.c) read on every floor ---- */

extern int	setops_copy_threads;	/* setops.copy_threads */
extern int	setops_cpu_threads;		/* setops.cpu_threads (0: setops_count_threads chooses) */

/* a large copy to or from the GPU service, over setops.copy_threads threads */
static inline void
setops_copy(void *dst, const void *src, size_t bytes)
{
	setops_copy_split(dst, src, bytes, setops_copy_threads);
}

/* threads a CPU engine count uses: setops.cpu_threads, 0 choosing */
static inline int
setops_count_threads(void)
{
	return setops_cpu_threads > 0 ? setops_cpu_threads : setops_auto_threads();
}

/* The SQL name of a key type's element: "int4" or "int8". */
static inline const char *
setops_key_type_name(SetopsKeyType type)
{
	return type == SETOPS_KEY_INT64 ? "int8" : "int4";
}

/*
 * The identity of a stored (TOASTed) array, under which the service caches
 * its keys.  A TOAST value never changes once written, but its value id
 * can be reused after the value is deleted (OID wraparound), and TRUNCATE,
 * VACUUM FULL and CLUSTER rewrite the TOAST table: the first chunk's
 * inserting transaction and place, the TOAST table's current file and the
 * value's sizes tell such values apart.  Padding is zeroed (the key is
 * hashed and compared as bytes).
 */
typedef struct SetopsCacheKey
{
	Oid			toastrelid;
	Oid			relfilenode;	/* of the TOAST table, now */
	Oid			valueid;
	uint32		chunk0_xmin;	/* raw xmin of chunk 0 */
	uint32		chunk0_block;	/* its ctid */
	uint16		chunk0_offset;
	uint8		key_type;		/* SetopsKeyType */
	uint8		packed;			/* a packed_int4/8 value, not an array */
	int32		rawsize;		/* the value's size, untoasted */
	int32		extsize;		/* its stored size */
} SetopsCacheKey;

/*
 * A count batch's request sent to the GPU service and not yet answered
 * (service/client_batch.c; exec's setops_count_batch_begin).
 */
typedef struct SetopsCountFlight
{
	void	   *slot;			/* NULL: nothing in flight */
	uint64		token;
	int64		last;			/* it asks pairs [0, last) */
	SetopsGpuStatus status;		/* of the sending */
	char		errbuf[SETOPS_GPU_ERRLEN];
} SetopsCountFlight;

/* the most devices the GPU service uses */
#define SETOPS_MAX_DEVICES 8

/* Each device's cache, as setops_cache_stats() shows it. */
typedef struct SetopsCacheStats
{
	int64		capacity;		/* bytes */
	int64		entries;
	int64		bytes;
	int64		hits;
	int64		misses;
	int64		evictions;
} SetopsCacheStats;

/* Each device's share of the GPU service's work, as setops_service_stats() shows it. */
typedef struct SetopsServiceStats
{
	int			streams;		/* operations run side by side */
	int			queued;			/* queued or running now */
	int64		requests;		/* operations run */
	int64		launches;		/* trips to the device */
	int64		batched;		/* operations that shared their trip */
	double		wait_ms;		/* summed waits for a stream */
	double		run_ms;			/* summed running time */
	int64		copies;			/* cached arrays copied to the device for a request */
	double		dispatch_ms;	/* the main thread's time handing requests on (all devices) */
	double		request_cpu_ms; /* the service's CPU time a request (all devices) */
} SetopsServiceStats;

/* ---- arguments (args/) as the layers above pass them ---- */

/*
 * How an argument's keys are held.  The args layer sets the form as it
 * reads an argument, and moves it on only when asked for the form an engine
 * takes (args.h: setops_keys_for_cpu, setops_keys_for_gpu), reading and
 * decoding no more than that engine needs.
 */
typedef enum SetopsKeysForm
{
	SETOPS_KEYS_PLAIN,			/* data: the n keys */
	SETOPS_KEYS_PACKED,			/* packed: a packed value, not decoded */
	SETOPS_KEYS_STORED			/* stored: a TOAST pointer left unread */
} SetopsKeysForm;

/*
 * A key argument, read without copying where PostgreSQL allows.  Sortedness
 * is verified while copying when a copy is needed anyway; otherwise it is
 * left to whoever runs the operation (the CPU checks in one pass, the GPU
 * checks on the device while the tiles load).
 */
typedef struct SetopsKeys
{
	SetopsKeysForm form;
	SetopsKeyType type;
	int64		n;				/* stored: from its header, until read */
	const void *data;			/* plain: n contiguous keys */
	int			argno;			/* 1-based, for messages */
	bool		sorted_known;	/* order verified: see first_unsorted */
	int64		first_unsorted; /* if sorted_known: -1, or where order breaks */
	bool		distinct_known; /* verified free of repeated keys */
	/* a packed value (args/packed_args.c), kept once decoded */
	const void *packed;			/* the detoasted, checked packed value */
	Size		packed_size;
	/* a stored value (args/stored_value.c): its TOAST pointer until read */
	Datum		stored;
	/* a stored value's identity in the device cache, kept once read */
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

/* Result arrays are allocated at their bound and filled in place. */
typedef struct SetopsResult
{
	struct varlena *array;		/* the array under construction */
	void	   *data;			/* where its elements go */
	int64		capacity;
	Oid			elemtype;
	int			stride;
} SetopsResult;


/* ---- batches: many operations at once (exec/batch.c, the service) ---- */

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

	/*
	 * Count batches: rows of A that are stored values left unread, for the
	 * GPU service's device cache.  a_rows[i] is pair i's argument when it
	 * is one (its keys are not in a; as.lengths[i] is its exact count),
	 * else NULL; a_rows NULL when no row is.  Such a row crosses by its
	 * identity while a_identity[i], else by its keys (read by then).
	 * cache_budget: bytes this batch's partition may still put into the
	 * cache (exec/batch.c); rows_put (when not NULL) counts the rows it put.
	 */
	struct SetopsKeys **a_rows;
	bool	   *a_identity;
	int64	   *cache_budget;
	int64	   *rows_put;
} SetopsBatch;

/* ---- helpers (module.c) ---- */

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
	int			gpu;			/* the GPU that answered, or -1 */
	double		queue_ms;		/* its wait in the GPU service for a stream */
	int			batched;		/* requests that shared its launch (0: alone) */
	const char *reason;			/* why it ran where it ran (a constant string) */
} SetopsTiming;

extern SetopsTiming setops_last;
extern void setops_timing_reset(void);
extern double setops_now_ms(void);

#endif							/* SETOPS_H */
