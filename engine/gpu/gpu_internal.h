/*
 * gpu_internal.h
 *	  Shared by the CUDA files of the GPU backend (not part of its C API).
 */
#ifndef SETOPS_GPU_INTERNAL_H
#define SETOPS_GPU_INTERNAL_H

#include <cuda_runtime.h>

#include "setops_gpu.h"
#include "../common/packed_format.h"
#include "../common/chunks.h"

/* ---- device.cu: initialisation and errors ---- */

#define GPU_MAX_DEVICES 8

/* This thread's device (set with gpu_set_device, which selects it in CUDA). */
int			gpu_current_device(void);
cudaError_t gpu_set_device(int device);

/*
 * Initialise CUDA once per process, a context on every device; false (with
 * the reason) when unusable.
 */
bool		gpu_ensure_init(char *errbuf, size_t errlen);

/* Format a CUDA error into errbuf and classify it. */
SetopsGpuStatus gpu_status_from(cudaError_t err, const char *what,
								char *errbuf, size_t errlen);

/*
 * After a failed CUDA call: clears the error, and if the context is broken
 * (a sticky error) resets the device, dropping the pools with it, so the
 * next call starts clean.
 */
void		gpu_recover(void);

/*
 * A failed CUDA call (err) as the caller's status, its message saying what
 * was being done, after gpu_recover.
 */
SetopsGpuStatus gpu_fail(cudaError_t err, const char *what, char *errbuf, size_t errlen);

/* In a function with errbuf / errlen: a failed CUDA call returns gpu_fail. */
#define CHECK_CUDA(call, what)												\
	do {																	\
		cudaError_t err_ = (call);											\
		if (err_ != cudaSuccess)											\
			return gpu_fail(err_, what, errbuf, errlen);					\
	} while (0)

/* Interrupt callback, or NULL. */
extern SetopsGpuInterruptFn gpu_interrupt_fn;

/* ---- pool.cu: reusable device and pinned buffers, the stream ---- */

#define GPU_EVENTS 6

typedef struct GpuPool
{
	int			device;			/* where it was created */
	cudaStream_t stream;
	/*
	 * upload start, decode start (uploads queued), kernel end, kernel start
	 * (decoding done), encode start, encode end
	 */
	cudaEvent_t ev[GPU_EVENTS];
	char	   *dev;			/* device arena */
	size_t		dev_cap;
	void	   *pinned;			/* small pinned block: counts and flags */
	void	   *pinned_dev;		/* the same, as kernels address it; NULL: not mapped */
	void	   *stage[2];		/* pinned staging buffers (transfer.cu) */
	cudaEvent_t stage_done[2];	/* each buffer's last copy */
} GpuPool;

/*
 * The pool with an arena of at least dev_bytes; NULL on failure.  With
 * dev_bytes 0, the pool as it is (its stream and pinned block).
 */
GpuPool    *gpu_pool_get(size_t dev_bytes, SetopsGpuStatus *status,
						 char *errbuf, size_t errlen);

/* Forget the current device's pools without freeing (after its reset). */
void		gpu_pool_forget(void);

/*
 * This thread's pool: one per device for single-device work (pool i on
 * device i), and apart from those one per part of an operation split over
 * devices (GPU_SPLIT_POOL + p), so that the two kinds of work do not
 * resize each other's arenas.  A pool is created on the thread's current
 * device.
 */
#define GPU_SPLIT_POOL GPU_MAX_DEVICES
/*
 * and one per stream of a device beyond its first (setops_gpu_use_stream):
 * threads that run requests side by side each take a stream of their own
 */
#define GPU_MAX_STREAMS SETOPS_GPU_MAX_STREAMS
#define GPU_STREAM_POOL (2 * GPU_MAX_DEVICES)
#define GPU_MAX_POOLS (GPU_STREAM_POOL + GPU_MAX_DEVICES * (GPU_MAX_STREAMS - 1))
void		gpu_pool_select(int index);
int			gpu_pool_selected(void);

#define GPU_PINNED_BYTES 4096
#define GPU_ALIGN(x) (((size_t) (x) + 255) & ~(size_t) 255)

/* ---- transfer.cu: copies through pinned staging ---- */

cudaError_t gpu_staging_init(GpuPool *pool);
cudaError_t gpu_upload(GpuPool *pool, void *dev, const void *host, size_t bytes);
cudaError_t gpu_download(GpuPool *pool, void *host, const void *dev, size_t bytes);
/* After a device reset: registrations are gone with the context. */
void		gpu_forget_registered(void);

/* ---- setop_kernel.cu: launching the multiset kernels ---- */

/* Shapes of one launch over A and B already in device memory. */
typedef struct SetopLaunch
{
	SetopsOp	op;
	SetopsKeyType key_type;
	bool		duplicates;		/* false: both inputs hold no repeated key */
	/*
	 * A SetopsGpuCountMode (op INTERSECT, no values): only the count
	 * (count_kernel.cu), out not written; inputs_sorted as the API's
	 */
	int			count_mode;
	bool		inputs_sorted;
	const void *a;
	int			na;
	const void *b;
	int			nb;
	void	   *out;
	/* pairs: values of val_stride bytes, or a_vals NULL */
	const void *a_vals;
	const void *b_vals;
	int			val_stride;
	void	   *out_vals;
	/*
	 * Scratch of setop_scratch_bytes(); after the launch it holds, at
	 * setop_results(), the output count and the order flags (bit 0: A out
	 * of order, bit 1: B, bit 2: partitions inconsistent, i.e. unsorted).
	 */
	void	   *scratch;
} SetopLaunch;

typedef struct SetopResults
{
	int			total;
	int			unsorted;
} SetopResults;

/*
 * The partition's first stage (partition.cuh) reads the keys at multiples
 * of a stride 2^shift from a compact copy, the samples: about 256K of them
 * in all, at least 256 keys apart, so that they share a few pages and stay
 * in L2.  Inputs under PARTITION_SAMPLE_MIN elements in all take no
 * samples (one launch less; their searches are short).
 */
#define PARTITION_SAMPLE_MIN (4 << 20)

static inline int
partition_stride_shift(int64_t na, int64_t nb)
{
	int			shift = 8;

	while (((na + nb) >> shift) > 262144)
		shift++;
	return shift;
}

static inline __host__ __device__ int64_t
partition_samples(int64_t n, int shift)
{
	return (n + ((int64_t) 1 << shift) - 1) >> shift;
}

static inline bool
partition_takes_samples(int64_t na, int64_t nb)
{
	return na + nb >= PARTITION_SAMPLE_MIN;
}

static inline size_t
partition_sample_bytes(SetopsKeyType key_type, int64_t na, int64_t nb)
{
	int			shift = partition_stride_shift(na, nb);

	if (!partition_takes_samples(na, nb))
		return 0;
	return (size_t) (partition_samples(na, shift) + partition_samples(nb, shift)) *
		setops_key_size(key_type);
}

/*
 * Where a launch (an operation, a count, a batch) keeps its state in its
 * scratch.  The results first, at a fixed place (setop_results), so that
 * callers read them back without knowing the rest; with look-back, the
 * tile counter beside them and the look-back descriptors after.  Those
 * are the zeroed region, [0, zeroed): zero before the kernels run (the
 * partition clears it, or a memset where no partition runs).  Then the
 * num_tiles + 1 tile boundaries, which the partition writes, and the
 * partition's samples.
 */
typedef struct ScratchLayout
{
	int			num_tiles;
	size_t		results;
	size_t		counter;		/* look-back only */
	size_t		descriptors;	/* look-back only: num_tiles TileWords */
	size_t		zeroed;			/* bytes from 0 to clear */
	size_t		boundaries;
	size_t		samples;		/* sample_bytes of them (0: none) */
	size_t		bytes;
} ScratchLayout;

static inline ScratchLayout
scratch_layout(int num_tiles, bool look_back, size_t boundary_bytes, size_t sample_bytes)
{
	ScratchLayout s;

	s.num_tiles = num_tiles;
	s.results = 0;
	s.counter = sizeof(SetopResults);
	s.descriptors = GPU_ALIGN(s.counter + sizeof(int));
	s.zeroed = look_back ?
		s.descriptors + GPU_ALIGN((size_t) num_tiles * sizeof(unsigned long long)) :
		sizeof(SetopResults);
	s.boundaries = GPU_ALIGN(s.zeroed);
	s.samples = s.boundaries + GPU_ALIGN((size_t) (num_tiles + 1) * boundary_bytes);
	s.bytes = s.samples + GPU_ALIGN(sample_bytes);
	return s;
}

size_t		setop_scratch_bytes(SetopsKeyType key_type, int na, int nb);
SetopResults *setop_results(void *scratch);
/*
 * Enqueue the whole operation on stream: reset scratch, partition, tiles
 * (a count: count_enqueue).
 */
cudaError_t setop_enqueue(const SetopLaunch *l, cudaStream_t stream);

/* ---- count_kernel.cu: counts without outputs ---- */

/*
 * Scratch a count needs (at most setop_scratch_bytes), and the count's
 * launch: setop_results(scratch)->total gets the key-rank intersection
 * count (COUNT_OVERLAPS: a positive count, or 0, the launch stopping once
 * a tile found a key in both; COUNT_CONTAINS: the tiles where b has a key
 * a lacks, or a positive count after an early stop), ->unsorted the order
 * flags.
 */
size_t		count_scratch_bytes(SetopsKeyType key_type, int na, int nb);

/* The most results->total a count of na x nb keys can hold. */
static inline int64_t
count_bound(int count_mode, int64_t na, int64_t nb)
{
	return count_mode == SETOPS_GPU_COUNT_CONTAINS ? nb : (na < nb ? na : nb);
}

cudaError_t count_enqueue(const SetopLaunch *l, cudaStream_t stream);

/*
 * Many counts in one segmented launch (count_kernel.cu): their tiles laid
 * end to end, each tile finding its count by a search over the counts'
 * first tiles (the segment descriptors of Data Parallel Haskell's USegd).
 * Count s has tiles from tile_start (ascending, every count at least one
 * tile) and its results at results[result].
 */
typedef struct CountSegment
{
	const void *a;
	const void *b;
	int			na;
	int			nb;
	int			tile_start;
	int			result;
	int			stride_shift;	/* partition_stride_shift of its inputs */
} CountSegment;

/*
 * The most segments a launch takes in its parameters (inline_segs below):
 * a shared trip's, SETOPS_GPU_MANY counts at most.
 */
#define COUNT_INLINE_SEGS SETOPS_GPU_MANY

typedef struct CountMany
{
	SetopsKeyType key_type;
	int			count_mode;		/* one for all: a SetopsGpuCountMode */
	bool		duplicates;		/* some count's inputs may repeat keys */
	bool		inputs_sorted;	/* every count's inputs known in order */
	const CountSegment *segs;	/* on the device */
	int			nsegs;
	int			num_tiles;
	int		   *boundaries;		/* num_tiles + nsegs of them */
	SetopResults *results;
	/*
	 * A shared trip's launch moves nothing through the copy engines (each
	 * copy a hop between engines in the trip's chain, and copies of
	 * streams side by side queue behind one another):
	 *   inline_segs   the segments in host memory (at most
	 *                 COUNT_INLINE_SEGS), passed in the partition launch's
	 *                 parameters, which writes them to segs; NULL: segs
	 *                 are on the device already;
	 *   host_results  mapped pinned memory where the tile launch's last
	 *                 block writes each count's results (at its result
	 *                 index), counting finished blocks in blocks_done
	 *                 (device memory the partition zeroes); NULL: the
	 *                 caller copies results back.
	 */
	const CountSegment *inline_segs;
	SetopResults *host_results;
	unsigned   *blocks_done;
} CountMany;

int			count_tile_slots(SetopsKeyType key_type);

/* The count tiles of na x nb keys (a count alone, or its segment of many). */
static inline int64_t
count_tiles(SetopsKeyType key_type, int64_t na, int64_t nb)
{
	int64_t		nv = count_tile_slots(key_type);

	return (na + nb + nv - 1) / nv;
}

cudaError_t count_many_enqueue(const CountMany *m, cudaStream_t stream);

/* ---- skew_kernel.cu: sizes far apart ---- */

/*
 * One side at least this many times smaller, both known to be in order:
 * the intersection, the difference of the smaller A and the counts search
 * the larger side instead of merging it (skew_kernel.cu says when they do
 * with the order unknown; set by measurement: test/bench/NOTES.md).  int4
 * from 128: at 64 the tile and count kernels, which merge at a quarter of
 * int8's bytes a key, are the faster (H100, 1M + 64M).
 */
#ifndef SETOPS_GPU_SKEW_RATIO
#define SETOPS_GPU_SKEW_RATIO 64
#endif
#ifndef SETOPS_GPU_SKEW_RATIO32
#define SETOPS_GPU_SKEW_RATIO32 128
#endif
/* the ratio from which it also takes inputs of unknown order */
#ifndef SETOPS_SKEW_CHECKED_RATIO
#define SETOPS_SKEW_CHECKED_RATIO 256
#endif

/* The ratio from which inputs known in order take the skew path. */
static inline int64_t
skew_known_ratio(SetopsKeyType key_type)
{
	return key_type == SETOPS_KEY_INT32 ? SETOPS_GPU_SKEW_RATIO32 : SETOPS_GPU_SKEW_RATIO;
}

/* Whether the skew path answers l (an operation or a count). */
bool		skew_applies(const SetopLaunch *l);

/*
 * Enqueue it in l->scratch laid out as lay (the operation's or the
 * count's): the zeroed region cleared (the results, and for an operation
 * the tile counter and lay->num_tiles look-back descriptors), then the
 * search.  With no tiles (no keys at all) only the cleared results.
 */
cudaError_t skew_enqueue(const SetopLaunch *l, const ScratchLayout *lay, cudaStream_t stream);

/* ---- batch_kernel.cu: segmented launches over many pairs ---- */

/* The non-empty pairs of a batch, as the kernels see them. */
typedef struct BatchPairs
{
	int			npairs;
	const int  *a_start;		/* into the A buffer */
	const int  *a_len;
	const int  *b_start;		/* into the B buffer */
	const int  *b_len;
	const int  *work_start;		/* npairs + 1: prefix of a_len + b_len (probe: a_len) */
} BatchPairs;

/* Where a tile boundary falls: its pair, and the Balanced Path split in it. */
typedef struct BatchBoundary
{
	int			pair;
	int			ai;
	int			bi;
} BatchBoundary;

typedef struct BatchLaunchParams
{
	const void *a;
	const void *b;
	BatchPairs	pairs;
	int			num_tiles;
	void	   *out;			/* keys */
	int		   *out_pos;		/* NULL, or each output's position in its pair */
	int		   *out_start;		/* npairs: where each pair's outputs begin */
	/* in the scratch (batch_enqueue sets them) */
	SetopResults *results;
	int		   *counter;
	unsigned long long *descriptors;
	BatchBoundary *boundaries;
} BatchLaunchParams;

/* Work elements per tile, and the scratch a launch of num_tiles needs. */
int			batch_tile_elements(SetopsKeyType key_type);
size_t		batch_scratch_bytes(int num_tiles);

/*
 * Enqueue one segmented launch (probe: the shared-B kernel, intersection
 * and difference only); the output count lands in setop_results(scratch).
 */
cudaError_t batch_enqueue(SetopsOp op, SetopsKeyType key_type, bool probe,
						  BatchLaunchParams p, void *scratch, cudaStream_t stream);

/* ---- launch_host.cu: the steps the host drivers share ---- */

/* Milliseconds of CLOCK_MONOTONIC. */
double		gpu_host_ms(void);
/* Milliseconds between two recorded events (0 when unavailable). */
double		gpu_elapsed_ms(cudaEvent_t from, cudaEvent_t to);

/*
 * Regions of a pool's arena, laid end to end from 0, each 256-byte
 * aligned: the offset of the next one of bytes; *end grows to the bytes
 * the arena needs.
 */
static inline size_t
arena_take(size_t *end, size_t bytes)
{
	size_t		at = GPU_ALIGN(*end);

	*end = at + bytes;
	return at;
}

/*
 * Wait for the work queued on pool's stream (what it is, for the message)
 * and read back its results from scratch: one small copy, one
 * synchronisation.
 */
SetopsGpuStatus gpu_read_results(GpuPool *pool, void *scratch, const char *what,
								 SetopResults *res, char *errbuf, size_t errlen);
/* res->total within [0, most], or an internal error. */
SetopsGpuStatus gpu_check_total(const SetopResults *res, int64_t most,
								char *errbuf, size_t errlen);

/*
 * One launch of an operation over a part of its arguments, a[ai, a_end) x
 * b[bi, b_end): a chunk (setops_api.cu) or one device's part
 * (multi_device.cu).  The caller sets the range, selects the pool, then
 * takes the steps below in order.
 */
typedef struct SetopPart
{
	int64_t		ai,
				a_end,
				bi,
				b_end;
	GpuPool    *pool;
	SetopLaunch l;
	char	   *a_packed_dev;	/* packed arguments' bytes, before decoding */
	char	   *b_packed_dev;
	char	   *enc;			/* a packed result's bytes (enc_cap) */
	size_t		enc_cap;
	char	   *enc_scratch;	/* and the encoder's scratch */
	size_t		enc_scratch_bytes;
	int64_t		most;			/* the most outputs (a count: the largest count) */
	double		ms_upload;		/* host time of the uploads' staging copies */
	/* setop_part_run's answer */
	int64_t		count;			/* outputs, or the count; 0 where flags void it */
	int			flags;			/* the order flags (SetopLaunch.scratch) */
} SetopPart;

/* A launch's shape from the request (op, key type, count mode, order known). */
void		setop_launch_init(SetopLaunch *l, const SetopsGpuSetopArgs *args);

/* The part's arena in the selected pool, and its launch. */
SetopsGpuStatus setop_part_place(const SetopsGpuSetopArgs *args, SetopPart *part,
								 char *errbuf, size_t errlen);
/*
 * Copy in: its keys (a packed argument's bytes, then decoded on the
 * device) and values, between events ev[0], ev[1] (uploads queued) and
 * ev[3] (decoding queued).
 */
SetopsGpuStatus setop_part_copy_in(const SetopsGpuSetopArgs *args, SetopPart *part,
								   char *errbuf, size_t errlen);
/*
 * Enqueue the operation (ending at event ev[2]), wait, read back its count
 * and order flags, and check the count against the part's bound.
 */
SetopsGpuStatus setop_part_run(const SetopsGpuSetopArgs *args, SetopPart *part,
							   char *errbuf, size_t errlen);
/*
 * Whether the order flags void the part's outputs (the caller reports the
 * disorder); a key found in both still answers overlaps, in any order.
 */
static inline bool
setop_part_void(const SetopsGpuSetopArgs *args, const SetopPart *part)
{
	return part->flags != 0 && args->count_mode != SETOPS_GPU_COUNT_OVERLAPS;
}
/* Copy out: its outputs (keys, and values for pairs) to the caller's, at k. */
SetopsGpuStatus setop_part_copy_out(const SetopsGpuSetopArgs *args, const SetopPart *part,
									int64_t k, char *errbuf, size_t errlen);

/* The unsorted_arg / unsorted_pos answer after the device flagged disorder. */
SetopsGpuStatus gpu_report_disorder(SetopsGpuSetopArgs *args, int flags,
									char *errbuf, size_t errlen);

/* ---- sort.cu ---- */

/* Bytes of scratch setop_sort_enqueue needs. */
size_t		sort_scratch_bytes(SetopsKeyType key_type, int n);
/*
 * Sort keys[0, n) (device) into out (device); with distinct, keep one copy
 * of each key, the count landing in *(int *) count_dev.
 */
cudaError_t sort_enqueue(SetopsKeyType key_type, void *keys, void *out, int n,
						 bool distinct, void *scratch, size_t scratch_bytes,
						 int *count_dev, cudaStream_t stream);

/* ---- packed_decode.cu ---- */

/*
 * Decode the packed value whose bytes (header included, as on the host) are
 * at packed_dev in device memory into keys_dev[0, h->n) (int32 or int64 by
 * h->key_bytes).  h is a host copy of the value's header; the value was
 * checked on the host (setops_packed_check).  Enqueued on stream; no sync.
 * No order check here: consumers (the set-operation kernel) check order.
 */
cudaError_t packed_decode_enqueue(const PackedHeader *h, const void *packed_dev,
								  void *keys_dev, cudaStream_t stream);

/* ---- packed_encode.cu ---- */

/* Bytes that always hold n keys packed (setops_packed_bound's value). */
size_t		packed_encode_bound(SetopsKeyType key_type, int64_t n);

/* Device scratch packed_encode needs for n keys; 0 above INT_MAX keys. */
size_t		packed_encode_scratch_bytes(SetopsKeyType key_type, int64_t n);

/*
 * Encode the sorted keys keys_dev[0, n) (device) into out_dev (device, 8-byte
 * aligned, out_cap bytes: packed_encode_bound suffices), the bytes exactly
 * those of setops_packed_encode_i32/i64 (vl_len_ 0).  Enqueued on stream,
 * with one synchronisation inside: the totals that place the sections come
 * to host_totals (16 bytes, pinned for speed) before the bytes are written.
 * Returns with the bytes' kernel queued, and their count in *size.
 */
cudaError_t packed_encode(SetopsKeyType key_type, const void *keys_dev, int64_t n,
						  void *out_dev, size_t out_cap, void *scratch, size_t scratch_bytes,
						  void *host_totals, cudaStream_t stream, size_t *size);

#endif							/* SETOPS_GPU_INTERNAL_H */
