/*
 * setops_gpu.h
 *	  The C interface of the GPU backend.
 *
 * Everything behind this header is CUDA C++ (or, in a build without CUDA,
 * gpu_stub.c).  No PostgreSQL headers on either side: functions return a
 * status and write a message into the caller's buffer; the caller turns it
 * into an ERROR or falls back to the CPU.  Nothing here longjmps.
 *
 * CUDA is initialised lazily, by the first call that needs a device, never
 * at library load.
 */
#ifndef SETOPS_GPU_H
#define SETOPS_GPU_H

/* A cached row's keys on the device start at a multiple of this (vector loads). */
#define SETOPS_GPU_ROW_ALIGN 16

#include <stddef.h>
#include <stdint.h>

#include "../common/setop_kind.h"

#ifdef __cplusplus
extern "C"
{
#endif

typedef enum SetopsGpuStatus
{
	SETOPS_GPU_OK = 0,
	SETOPS_GPU_UNAVAILABLE,		/* no CUDA in this build, no driver, no device */
	SETOPS_GPU_OUT_OF_MEMORY,	/* device or pinned host memory */
	SETOPS_GPU_ERROR,			/* any other CUDA error (context was reset) */
	SETOPS_GPU_CANCELLED,		/* the interrupt callback asked to stop */
	/* the GPU service's client only (extension/service/client.c): */
	SETOPS_GPU_TOO_LARGE,		/* the request cannot be split to fit a slot */
	SETOPS_GPU_NO_SERVICE		/* the service's worker is not running */
} SetopsGpuStatus;

#define SETOPS_GPU_ERRLEN 256

typedef struct SetopsGpuDeviceInfo
{
	int			index;
	char		name[128];
	int64_t		total_memory;
	int64_t		free_memory;
	int			multiprocessors;
	int			cc_major;
	int			cc_minor;
} SetopsGpuDeviceInfo;

/*
 * Usable devices: initialises CUDA on first use.  Returns the count (0 when
 * none) and, when 0, the reason in errbuf.
 */
extern int	setops_gpu_device_count(char *errbuf, size_t errlen);
extern SetopsGpuStatus setops_gpu_device_info(int index, SetopsGpuDeviceInfo *info,
											  char *errbuf, size_t errlen);

/*
 * The device this thread's later calls use (0 until set).  Every device
 * gets its context at initialisation.
 */
extern SetopsGpuStatus setops_gpu_use_device(int index, char *errbuf, size_t errlen);

/*
 * The same, with stream 1..SETOPS_GPU_MAX_STREAMS-1 of the device: a pool
 * of buffers and a CUDA stream of its own (stream 0 is the device's own,
 * the one setops_gpu_use_device selects).  Threads that run operations on
 * one device side by side each use a stream of their own; a thread that
 * splits an operation over devices (setops_gpu_setop_devices) must be the
 * only one doing so.
 */
#define SETOPS_GPU_MAX_STREAMS 16
extern SetopsGpuStatus setops_gpu_use_stream(int index, int stream, char *errbuf, size_t errlen);

/*
 * Called by long GPU work between chunks; returns non-zero to stop, in
 * which case the operation returns SETOPS_GPU_CANCELLED having released
 * what it holds.  (The PostgreSQL side checks for a pending interrupt and
 * raises it after the call returns.)
 */
typedef int (*SetopsGpuInterruptFn) (void);
extern void setops_gpu_set_interrupt_callback(SetopsGpuInterruptFn fn);

/*
 * How a thread waits for the device (before the first call that needs
 * one; later calls change nothing): spinning on a core, spinning but
 * yielding it, or sleeping until the device interrupts.  With many
 * threads waiting at once (the GPU service's executors) a spinning thread
 * takes a core from the backends.
 */
typedef enum SetopsGpuWait
{
	SETOPS_GPU_WAIT_AUTO = 0,	/* CUDA's choice: spin unless contexts outnumber cores */
	SETOPS_GPU_WAIT_SPIN,
	SETOPS_GPU_WAIT_YIELD,
	SETOPS_GPU_WAIT_BLOCK
} SetopsGpuWait;
extern void setops_gpu_set_wait(SetopsGpuWait wait);

/*
 * Multiset operation on sorted keys in host memory.  out_keys has room for
 * setop_output_bound(op, na, nb) keys.  For pairs, a_vals / b_vals hold na
 * / nb values of val_stride bytes each and out_vals has room for as many
 * values as out_keys has keys; the values travel with their keys.
 *
 * Inputs are checked for order on the device while the tiles load: if
 * either is not sorted, the call returns SETOPS_GPU_OK with unsorted_arg
 * set to 1 (a) or 2 (b) and unsorted_pos to the first out-of-order position
 * (0-based); the outputs are then meaningless and the caller raises the
 * error.
 */
/*
 * Counts instead of results (count_mode of SetopsGpuSetopArgs; op must be
 * SETOPS_OP_INTERSECT, nothing is written to the outputs):
 *   COUNT_INTERSECT  out_count = the key-rank intersection count, from
 *                    which every operation's count follows;
 *   COUNT_OVERLAPS   out_count = 1 when some key is in both, else 0; may
 *                    stop at the first common key.  A 1 is exact in any
 *                    order; a 0 comes with the complete order check.
 *   COUNT_CONTAINS   out_count = 0 when b's multiset lies within a's, else
 *                    positive (parts where b has a copy a lacks, adding
 *                    up over parts); stops at the first such part when
 *                    inputs_sorted says both are known to be in order,
 *                    else reads everything and checks the order.
 */
typedef enum SetopsGpuCountMode
{
	SETOPS_GPU_COUNT_NONE = 0,
	SETOPS_GPU_COUNT_INTERSECT = 1,
	SETOPS_GPU_COUNT_OVERLAPS = 2,
	SETOPS_GPU_COUNT_CONTAINS = 3
} SetopsGpuCountMode;

typedef struct SetopsGpuSetopArgs
{
	SetopsOp	op;
	SetopsKeyType key_type;
	const void *a;
	int64_t		na;
	const void *b;
	int64_t		nb;
	/*
	 * Packed arguments (engine/common/packed_format.h, checked by the caller): a
	 * (b) is then NULL and na (nb) the value's key count.  Only the packed
	 * bytes are uploaded; the device decodes them before the operation.
	 * Keys of a packed argument found out of order give unsorted_arg with
	 * unsorted_pos -1 (the value is corrupt).
	 */
	const void *a_packed;
	size_t		a_packed_size;
	const void *b_packed;
	size_t		b_packed_size;
	/*
	 * Keys already in device memory (setops_gpu_buffer_alloc: the GPU
	 * service's cache): a (b) is then NULL and nothing is uploaded.  The
	 * operation runs in one piece (na + nb at most INT_MAX).
	 */
	const void *a_dev;
	const void *b_dev;
	int			inputs_distinct;	/* both known to hold no repeated key */
	int			count_mode;		/* SetopsGpuCountMode: a count, no outputs */
	int			inputs_sorted;	/* both known to be in order (checked before) */
	void	   *out_keys;
	/* pairs (a_vals NULL for keys only) */
	const void *a_vals;
	const void *b_vals;
	int			val_stride;
	void	   *out_vals;
	/*
	 * A packed result (keys only): with out_packed set, the device encodes
	 * the result (engine/common/packed_format.h, the CPU encoder's very bytes)
	 * and only those bytes come back, into out_packed (out_packed_cap
	 * bytes: setops_packed_bound of setop_output_bound(op, na, nb) keys
	 * always suffices); out_keys is not used.  out_packed_size gets the
	 * value's length; its vl_len_ is 0, for the caller to set.  The
	 * operation then runs in one piece, as with packed arguments.
	 */
	void	   *out_packed;
	size_t		out_packed_cap;
	size_t		out_packed_size;
	/* results */
	int64_t		out_count;
	int			unsorted_arg;
	int64_t		unsorted_pos;
	/* where the time went, milliseconds */
	double		ms_upload;
	double		ms_decode;
	double		ms_kernel;
	double		ms_encode;		/* a packed result: encoding it on the device */
	double		ms_download;
	/* the GPU service's client: copying results out of its shared arena */
	double		ms_copy_out;
	/*
	 * The GPU service: the device that answered (-1: none), the request's
	 * wait for a stream, and the counts that shared its launches
	 * (setops_gpu_count_many), or 0
	 */
	int			device;
	double		ms_queue;
	int			batched;
	int			parts;			/* the devices a count was split over, or 0 */
} SetopsGpuSetopArgs;

extern SetopsGpuStatus setops_gpu_setop(SetopsGpuSetopArgs *args,
										char *errbuf, size_t errlen);

/*
 * Counts (count_mode) of keys already on this thread's device (a_dev and
 * b_dev), many at once: every count's launches are queued on one stream
 * and the answers come back by one copy and one wait, so that small counts
 * do not each pay a round trip.  Each gets its own answer and status (the
 * message in errbufs[i], SETOPS_GPU_ERRLEN bytes each); its ms_kernel is
 * its share of the launches' time.  At most SETOPS_GPU_MANY counts.
 */
#define SETOPS_GPU_MANY 64
extern void setops_gpu_count_many(SetopsGpuSetopArgs **args, int n, SetopsGpuStatus *statuses,
								  char (*errbufs)[SETOPS_GPU_ERRLEN]);

/*
 * The same in three steps, for a thread that keeps several trips in flight
 * and waits for none: start queues the counts on this thread's stream (a
 * status for them all); stream_done says whether that stream's last start
 * is done (1), not yet (0) or failed (-1, the message in errbuf); finish,
 * once it is done, gives each count its answer as setops_gpu_count_many
 * would.  Between start and finish the stream serves nothing else.
 */
extern SetopsGpuStatus setops_gpu_count_many_start(SetopsGpuSetopArgs **args, int n,
												   char *errbuf, size_t errlen);
extern int	setops_gpu_stream_done(char *errbuf, size_t errlen);
/* Wait for this thread's stream, as setops_gpu_set_wait says (asleep with
 * SETOPS_GPU_WAIT_BLOCK); stream_done then tells how it ended. */
extern void setops_gpu_stream_wait(void);
extern void setops_gpu_count_many_finish(SetopsGpuSetopArgs **args, int n,
										 SetopsGpuStatus *statuses,
										 char (*errbufs)[SETOPS_GPU_ERRLEN]);

/*
 * Keys a tile of the count kernel takes (for tests that place inputs on
 * its tile boundaries); 0 without CUDA.
 */
extern int	setops_gpu_count_tile_keys(SetopsKeyType key_type);

/* Clear args' answers and timings: a request about to be answered. */
static inline void
setops_gpu_answer_reset(SetopsGpuSetopArgs *args)
{
	args->out_count = 0;
	args->unsorted_arg = 0;
	args->unsorted_pos = -1;
	args->out_packed_size = 0;
	args->ms_upload = args->ms_decode = args->ms_kernel = args->ms_encode = 0;
	args->ms_download = args->ms_copy_out = 0;
	args->device = -1;
	args->ms_queue = 0;
	args->batched = 0;
	args->parts = 0;
}

/* Add the timings of part (of args, answered apart) to args'. */
static inline void
setops_gpu_add_times(SetopsGpuSetopArgs *args, const SetopsGpuSetopArgs *part)
{
	args->ms_upload += part->ms_upload;
	args->ms_decode += part->ms_decode;
	args->ms_kernel += part->ms_kernel;
	args->ms_encode += part->ms_encode;
	args->ms_download += part->ms_download;
	args->ms_copy_out += part->ms_copy_out;
	args->ms_queue += part->ms_queue;
	if (part->device >= 0)
		args->device = part->device;
	if (part->batched > args->batched)
		args->batched = part->batched;
	if (part->parts > args->parts)
		args->parts = part->parts;
}

/*
 * Whether a count whose parts so far gave k needs no more parts: a key in
 * both answers overlaps, and a key of b that a lacks answers containment
 * when both are known in order (else the rest must still be checked).
 * For whoever splits a count into parts.
 */
static inline int
setops_gpu_count_decided(const SetopsGpuSetopArgs *args, int64_t k)
{
	return k > 0 && (args->count_mode == SETOPS_GPU_COUNT_OVERLAPS ||
					 (args->count_mode == SETOPS_GPU_COUNT_CONTAINS && args->inputs_sorted));
}

/*
 * The same operation split over several GPUs: part i (of nparts) runs on
 * devices[i] with a share of the inputs proportional to weights[i], all at
 * once, and the outputs concatenate in order (Balanced Path splits: the
 * answer is identical to one device's).  Keys in host memory only; other
 * forms run on devices[0] alone.  A device may be named twice (parts then
 * share it: used by tests on one GPU).
 */
extern SetopsGpuStatus setops_gpu_setop_devices(SetopsGpuSetopArgs *args, int nparts,
												const int *devices, const double *weights,
												char *errbuf, size_t errlen);

/*
 * A batch of operations in one launch: pair i is A's keys
 * a[a_start[i], + a_len[i]) with B's b[b_start[i], + b_len[i]) (host
 * memory; starts need not be prefix sums, and with b_shared every pair's B
 * is the same).  Each segment must be sorted (the caller checks).  Outputs
 * are concatenated pair by pair into out_keys (room for the pairs'
 * setop_output_bound summed), out_lengths[i] gets pair i's count, out_pos
 * (NULL, or as many int64) each output's position within its pair (< a_len:
 * A's, else a_len + B's).  One launch: a_keys, b_keys and the outputs must
 * each stay below INT_MAX / 2 elements (callers split larger batches).
 */
typedef struct SetopsGpuBatchArgs
{
	SetopsOp	op;
	SetopsKeyType key_type;
	const void *a;
	int64_t		a_keys;			/* keys in a, all uploaded */
	const void *b;
	int64_t		b_keys;
	int64_t		npairs;
	const int64_t *a_start;
	const int64_t *a_len;
	const int64_t *b_start;
	const int64_t *b_len;
	int			b_shared;
	/*
	 * Counts only: per pair, A's keys already on the device (a cached
	 * row: a_len[i] keys from a buffer of setops_gpu_buffer_alloc, on the
	 * device the batch runs on, at an address aligned to
	 * SETOPS_GPU_ROW_ALIGN), a_start[i] unused; NULL where A's keys are in
	 * a.  a_dev NULL: every pair's are.
	 */
	const void *const *a_dev;
	void	   *out_keys;
	int64_t    *out_lengths;
	int64_t    *out_pos;
	/* results */
	int64_t		out_count;
	double		ms_upload;
	double		ms_kernel;
	double		ms_download;
} SetopsGpuBatchArgs;

extern SetopsGpuStatus setops_gpu_setop_batch(SetopsGpuBatchArgs *args,
											  char *errbuf, size_t errlen);

/*
 * Counts of a batch of pairs laid out as for setops_gpu_setop_batch (op and
 * the outputs unused), count_mode a SetopsGpuCountMode: out_lengths[i] gets
 * pair i's answer (COUNT_INTERSECT: the key-rank intersection count;
 * OVERLAPS / CONTAINS as setops_gpu_count's out_count).  One upload (a
 * shared b once), one segmented launch, one copy of the answers back.
 */
extern SetopsGpuStatus setops_gpu_count_batch(SetopsGpuBatchArgs *args, int count_mode,
											  char *errbuf, size_t errlen);

/*
 * op (INTERSECT, UNION or MERGE) over nruns sorted runs held end to end in
 * the device buffer cur (lengths on the host), in log2(nruns) rounds of
 * batched launches, each round writing into the other buffer: spare, as
 * large as cur.  *result_in_spare says which buffer holds the answer (its
 * *n keys, from offset 0).  Both buffers are this thread's device's
 * (setops_gpu_buffer_alloc); fewer than INT_MAX / 2 keys in all.
 */
extern SetopsGpuStatus setops_gpu_reduce_device(SetopsOp op, SetopsKeyType key_type,
												void *cur, void *spare,
												const int64_t *lengths, int64_t nruns,
												int *result_in_spare, int64_t *n,
												char *errbuf, size_t errlen);

/* Sort keys ascending in place (distinct: also drop repeats, setting *n). */
extern SetopsGpuStatus setops_gpu_sort(SetopsKeyType key_type, void *keys,
									   int64_t *n, int distinct,
									   char *errbuf, size_t errlen);

/*
 * Register host memory (the GPU service's shared transfer arena) as pinned,
 * for every device: copies from and to it then go straight to the DMA
 * engine.  Initialises CUDA.
 */
extern SetopsGpuStatus setops_gpu_register_host(void *host, size_t bytes,
												char *errbuf, size_t errlen);

/*
 * Device buffers that outlive a call (the GPU service's cache of stored
 * arrays), on this thread's device (setops_gpu_use_device).  A device reset (after a sticky error) frees them all: it bumps
 * setops_gpu_context_epoch(), and buffers from an earlier epoch must be
 * forgotten, not freed.
 */
extern SetopsGpuStatus setops_gpu_buffer_alloc(size_t bytes, void **dev,
											   char *errbuf, size_t errlen);
extern void setops_gpu_buffer_free(void *dev);
extern SetopsGpuStatus setops_gpu_buffer_read(const void *dev, size_t offset, void *host,
											  size_t bytes, char *errbuf, size_t errlen);
extern SetopsGpuStatus setops_gpu_buffer_write(void *dev, size_t offset, const void *host,
											   size_t bytes, char *errbuf, size_t errlen);
/*
 * The same, queued on the current device without waiting (the host memory
 * must stay as it is until setops_gpu_buffer_writes_wait, which waits for
 * every write queued on the current device and reports their failure).
 */
extern SetopsGpuStatus setops_gpu_buffer_write_queued(void *dev, size_t offset, const void *host,
													  size_t bytes, char *errbuf, size_t errlen);
extern SetopsGpuStatus setops_gpu_buffer_writes_wait(char *errbuf, size_t errlen);
extern SetopsGpuStatus setops_gpu_buffer_copy_peer(void *dst, int dst_device, const void *src,
												   int src_device, size_t bytes,
												   char *errbuf, size_t errlen);
extern uint64_t setops_gpu_context_epoch(void);
/* The same for device index, without making it current (0: no such device). */
extern uint64_t setops_gpu_device_epoch(int index);

/* First position (0-based) where device keys descend, or -1 in *pos. */
extern SetopsGpuStatus setops_gpu_keys_first_unsorted(SetopsKeyType key_type, const void *dev,
													  int64_t n, int64_t *pos,
													  char *errbuf, size_t errlen);

/* Make the next GPU operation fail with a real device fault (a kernel
 * reading an invalid address), to test recovery from sticky errors.  Only
 * in builds for the tests (SETOPS_GPU_TEST_HOOKS: test/gpu/kernel_test). */
extern void setops_gpu_debug_inject_fault(void);

/* Device memory held by this process's pools, in bytes. */
extern int64_t setops_gpu_pool_bytes(void);

#ifdef __cplusplus
}
#endif

#endif							/* SETOPS_GPU_H */
