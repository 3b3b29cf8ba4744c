/*
 * emulated_device.c
 *	  The CPU engine standing in for a GPU (setops.service_emulate, on a
 *	  machine without one): the worker's device when it found none.
 *
 * Its "device memory" is the worker's own memory, its operations the CPU
 * engine's, so every request takes the same path through the service as
 * on a GPU and the transport is tested where there is none.  The answers
 * are the engine's; nothing is copied to a device, so upload, decode and
 * download times stay zero (the worker still times a staged reduction); a
 * packed result comes back as keys (out_packed_size 0), which the client
 * accepts.
 *
 * The tests make it fail operations as a GPU fault would
 * (setops_service_inject_faults: a device's next launches, shared trips of
 * counts or batches), and reset a device after one (its memory lost), to
 * test what a fault does to the requests around it.
 *
 * Buffers are malloc'd: a failure is a status, as on a GPU.  Operations
 * run on the worker's executor threads and malloc their scratch; the other
 * requests' scratch is palloc'd in the worker's per-request context (an
 * ERROR there, a cancel from the engine's interrupt hook, fails only the
 * request).
 */
#include "postgres.h"

#include <pthread.h>

#include "utils/memutils.h"

#include "setops.h"
#include "service/protocol.h"
#include "service/device_ops.h"
#include "engine/cpu/engine.h"
#include "engine/cpu/packed_codec.h"

/* setops.service_emulate_devices of them, alike */
static int
emu_count(char *errbuf, size_t errlen)
{
	return setops_service_emulate_devices;
}

/* The figures the service publishes for it. */
static SetopsGpuStatus
emu_info(int index, SetopsGpuDeviceInfo *info, char *errbuf, size_t errlen)
{
	if (index < 0 || index >= setops_service_emulate_devices)
	{
		snprintf(errbuf, errlen, "no device %d", index);
		return SETOPS_GPU_UNAVAILABLE;
	}
	memset(info, 0, sizeof(*info));
	info->index = index;
	snprintf(info->name, sizeof(info->name), "CPU engine (setops.service_emulate)");
	/* the transfer arena stands in for device memory */
	info->total_memory = info->free_memory = setops_service->slot_bytes * setops_service->nslots;
	info->multiprocessors = 1;
	return SETOPS_GPU_OK;
}

/* the device this thread works on, as a GPU's current device */
static __thread int emu_current = 0;

/*
 * Each device's buffers, listed behind a header so that a reset (an
 * injected fault of kind reset) can lose them all, and its resets (its
 * epoch is one more).  A lost buffer is filled with a poison (every key
 * -1) and stays allocated, so that whoever frees it still may, and a
 * request that reads it after the reset answers wrong where a GPU would
 * read another context's memory: the service must not.
 */
typedef struct EmuBuffer
{
	struct EmuBuffer *prev;
	struct EmuBuffer *next;
	size_t		bytes;
	int			device;
} EmuBuffer;

/* the keys after the header, 16-byte aligned as on a GPU */
#define EMU_HEADER TYPEALIGN(16, sizeof(EmuBuffer))

static pthread_mutex_t emu_buffers_lock = PTHREAD_MUTEX_INITIALIZER;
static EmuBuffer *emu_buffers[SERVICE_MAX_DEVICES];
static uint64 emu_resets[SERVICE_MAX_DEVICES];

/* Device's memory lost, as a reset after a sticky fault loses it. */
static void
emu_reset(int device)
{
	EmuBuffer  *b;

	pthread_mutex_lock(&emu_buffers_lock);
	__atomic_add_fetch(&emu_resets[device], 1, __ATOMIC_SEQ_CST);
	for (b = emu_buffers[device]; b != NULL; b = b->next)
		memset((char *) b + EMU_HEADER, 0xFF, b->bytes);
	pthread_mutex_unlock(&emu_buffers_lock);
}

static SetopsGpuStatus
emu_use(int index, char *errbuf, size_t errlen)
{
	emu_current = index;
	return SETOPS_GPU_OK;
}

static SetopsGpuStatus
emu_use_stream(int index, int stream, char *errbuf, size_t errlen)
{
	emu_current = index;
	return SETOPS_GPU_OK;
}

/*
 * An operation of the current device (of ncounts counts in a shared trip,
 * else 1) that fails as a GPU fault would, when the tests injected one
 * (setops_service_inject_faults): one taken.
 */
static bool
emu_fault(int ncounts, char *errbuf, size_t errlen)
{
	ServiceDeviceStats *d = &setops_service->load[emu_current];
	pg_atomic_uint32 *left = &d->injected_faults;
	uint32		n = pg_atomic_read_u32(left),
				kind = pg_atomic_read_u32(&d->injected_kind);

	if (n > 0 && ncounts < 2 && kind == SERVICE_FAULT_SHARED)
		return false;
	while (n > 0)
		if (pg_atomic_compare_exchange_u32(left, &n, n - 1))
		{
			if (kind == SERVICE_FAULT_RESET)
				emu_reset(emu_current);
			snprintf(errbuf, errlen, "an injected fault on device %d%s", emu_current,
					 kind == SERVICE_FAULT_RESET ? ", which reset it" : "");
			return true;
		}
	return false;
}

/* its memory is lost only in an injected reset */
static uint64_t
emu_device_epoch(int index)
{
	return 1 + __atomic_load_n(&emu_resets[index], __ATOMIC_SEQ_CST);
}

static uint64_t
emu_epoch(void)
{
	return emu_device_epoch(emu_current);
}

static SetopsGpuStatus
emu_register_host(void *host, size_t bytes, char *errbuf, size_t errlen)
{
	return SETOPS_GPU_OK;
}

static void
emu_set_interrupt_callback(SetopsGpuInterruptFn fn)
{
	/* the engine's own hook (setops_cpu_set_interrupt_hook) serves */
}

/*
 * Buffers carry the CPU engine's output slack past their size: the engine
 * may write that far into an output (a staged reduction's rounds run in
 * buffers sized for the keys alone).
 */
static SetopsGpuStatus
emu_buffer_alloc(size_t bytes, void **p, char *errbuf, size_t errlen)
{
	EmuBuffer  *b = malloc(EMU_HEADER + bytes + SETOPS_CPU_OUTPUT_SLACK * sizeof(int64_t));

	*p = NULL;
	if (b == NULL)
	{
		snprintf(errbuf, errlen, "out of memory for a buffer of %zu bytes", bytes);
		return SETOPS_GPU_OUT_OF_MEMORY;
	}
	b->bytes = bytes;
	b->device = emu_current;
	b->prev = NULL;
	pthread_mutex_lock(&emu_buffers_lock);
	b->next = emu_buffers[b->device];
	if (b->next != NULL)
		b->next->prev = b;
	emu_buffers[b->device] = b;
	pthread_mutex_unlock(&emu_buffers_lock);
	*p = (char *) b + EMU_HEADER;
	return SETOPS_GPU_OK;
}

static void
emu_buffer_free(void *p)
{
	EmuBuffer  *b;

	if (p == NULL)
		return;
	b = (EmuBuffer *) ((char *) p - EMU_HEADER);
	pthread_mutex_lock(&emu_buffers_lock);
	if (b->prev != NULL)
		b->prev->next = b->next;
	else
		emu_buffers[b->device] = b->next;
	if (b->next != NULL)
		b->next->prev = b->prev;
	pthread_mutex_unlock(&emu_buffers_lock);
	free(b);
}

static SetopsGpuStatus
emu_buffer_read(const void *p, size_t offset, void *host, size_t bytes,
				char *errbuf, size_t errlen)
{
	memcpy(host, (const char *) p + offset, bytes);
	return SETOPS_GPU_OK;
}

static SetopsGpuStatus
emu_buffer_write(void *p, size_t offset, const void *host, size_t bytes,
				 char *errbuf, size_t errlen)
{
	memcpy((char *) p + offset, host, bytes);
	return SETOPS_GPU_OK;
}

/* (a write is done when it returns: nothing to wait for) */
static SetopsGpuStatus
emu_buffer_writes_wait(char *errbuf, size_t errlen)
{
	return SETOPS_GPU_OK;
}

static SetopsGpuStatus
emu_buffer_copy_peer(void *dst, int dst_device, const void *src, int src_device, size_t bytes,
					 char *errbuf, size_t errlen)
{
	memcpy(dst, src, bytes);
	return SETOPS_GPU_OK;
}

static SetopsGpuStatus
emu_keys_first_unsorted(SetopsKeyType key_type, const void *p, int64_t n, int64_t *pos,
						char *errbuf, size_t errlen)
{
	*pos = setops_cpu_first_unsorted(key_type, p, n);
	return SETOPS_GPU_OK;
}

/*
 * Operations run on the worker's executor threads (worker_exec.c), where
 * nothing of PostgreSQL's may be called: their scratch is malloc'd, and a
 * failure to get it is a status.
 */
#define EMU_OOM(errbuf, errlen) \
	(snprintf(errbuf, errlen, "out of memory for the CPU engine's scratch"), SETOPS_GPU_OUT_OF_MEMORY)

/*
 * Where an argument's keys are: host, device (here the same) or packed,
 * decoded into *decoded (malloc'd; freed by the caller).  *corrupt when a
 * packed value's keys would not ascend.
 */
static const void *
emu_arg_keys(const void *keys, const void *dev, const void *packed, int64_t n, size_t ks,
			 void **decoded, bool *corrupt)
{
	if (keys)
		return keys;
	if (dev)
		return dev;
	*decoded = malloc(Max(n, 1) * ks);
	if (*decoded != NULL && setops_packed_decode_keys(packed, *decoded) != NULL)
		*corrupt = true;
	return *decoded;
}

/* The operation, its inputs found in order (a count or the keys). */
static SetopsGpuStatus
emu_setop_sorted(SetopsGpuSetopArgs *args, const void *a, const void *b,
				 char *errbuf, size_t errlen)
{
	SetopsKeyType type = args->key_type;
	size_t		ks = setops_key_size(type);

	if (args->count_mode == SETOPS_GPU_COUNT_OVERLAPS)
		args->out_count = 0;	/* none found before, and both in order */
	else if (args->count_mode == SETOPS_GPU_COUNT_CONTAINS)
		args->out_count = !setops_cpu_contains(type, a, args->na, b, args->nb);
	else if (args->count_mode == SETOPS_GPU_COUNT_INTERSECT)
	{
		void	   *scratch = malloc(SETOPS_CPU_COUNT_SCRATCH * ks);

		if (scratch == NULL)
			return EMU_OOM(errbuf, errlen);
		/* both in order, so never -1 */
		args->out_count = setops_cpu_intersect_count(type, a, args->na, b, args->nb, scratch);
		free(scratch);
	}
	else if (args->a_vals == NULL)
		args->out_count = setops_cpu_setop(args->op, type, a, args->na, b, args->nb,
										   args->out_keys, NULL);
	else
	{
		int64_t    *src = malloc((args->na + args->nb + SETOPS_CPU_OUTPUT_SLACK) * sizeof(int64_t));

		if (src == NULL)
			return EMU_OOM(errbuf, errlen);
		args->out_count = setops_cpu_setop(args->op, type, a, args->na, b, args->nb,
										   args->out_keys, src);
		setops_cpu_gather_values(args->out_vals, src, args->out_count, args->a_vals, args->na,
								 args->b_vals, args->val_stride);
		free(src);
	}
	return SETOPS_GPU_OK;
}

static SetopsGpuStatus
emu_setop_run(SetopsGpuSetopArgs *args, char *errbuf, size_t errlen)
{
	SetopsKeyType type = args->key_type;
	size_t		ks = setops_key_size(type);
	void	   *a_decoded = NULL,
			   *b_decoded = NULL;
	bool		a_corrupt = false,
				b_corrupt = false;
	const void *a = emu_arg_keys(args->a, args->a_dev, args->a_packed, args->na, ks,
								 &a_decoded, &a_corrupt);
	const void *b = emu_arg_keys(args->b, args->b_dev, args->b_packed, args->nb, ks,
								 &b_decoded, &b_corrupt);
	SetopsGpuStatus status = SETOPS_GPU_OK;
	int64_t		pos = -1;

	args->out_count = 0;
	args->unsorted_arg = 0;
	args->unsorted_pos = -1;
	args->out_packed_size = 0;	/* answered with keys */
	if (a == NULL || b == NULL)
		status = EMU_OOM(errbuf, errlen);
	/* the GPU's tiles load 16-byte vectors from where the keys start */
	else if ((uintptr_t) args->a_dev % 16 != 0 || (uintptr_t) args->b_dev % 16 != 0)
	{
		snprintf(errbuf, errlen, "internal error: device keys not on a 16-byte boundary");
		status = SETOPS_GPU_ERROR;
	}
	else if (a_corrupt || b_corrupt)
	{
		/* a packed argument whose keys would not ascend: corrupt */
		args->unsorted_arg = a_corrupt ? 1 : 2;
	}
	/* a key in both is an answer in any order, as on the GPU */
	else if (args->count_mode == SETOPS_GPU_COUNT_OVERLAPS &&
			 setops_cpu_overlaps(type, a, args->na, b, args->nb))
		args->out_count = 1;
	else if ((pos = setops_cpu_first_unsorted(type, a, args->na)) >= 0)
		args->unsorted_arg = 1;
	else if ((pos = setops_cpu_first_unsorted(type, b, args->nb)) >= 0)
		args->unsorted_arg = 2;
	else
		status = emu_setop_sorted(args, a, b, errbuf, errlen);
	if (pos >= 0)
		args->unsorted_pos = pos;
	free(a_decoded);
	free(b_decoded);
	return status;
}

/* one launch: an injected fault fails it */
static SetopsGpuStatus
emu_setop(SetopsGpuSetopArgs *args, char *errbuf, size_t errlen)
{
	if (emu_fault(1, errbuf, errlen))
		return SETOPS_GPU_ERROR;
	return emu_setop_run(args, errbuf, errlen);
}

/* Counts of keys on the device once a trip is done, each as emu_setop answers it. */
static void
emu_count_finish(SetopsGpuSetopArgs **args, int n, SetopsGpuStatus *statuses,
				 char (*errbufs)[SETOPS_GPU_ERRLEN])
{
	int			i;

	for (i = 0; i < n; i++)
		statuses[i] = emu_setop_run(args[i], errbufs[i], SETOPS_GPU_ERRLEN);
}

/* The same in one trip: an injected fault fails every count of it. */
static void
emu_count_many(SetopsGpuSetopArgs **args, int n, SetopsGpuStatus *statuses,
			   char (*errbufs)[SETOPS_GPU_ERRLEN])
{
	int			i;

	if (emu_fault(n, errbufs[0], SETOPS_GPU_ERRLEN))
	{
		for (i = 0; i < n; i++)
		{
			statuses[i] = SETOPS_GPU_ERROR;
			strlcpy(errbufs[i], errbufs[0], SETOPS_GPU_ERRLEN);
		}
		return;
	}
	emu_count_finish(args, n, statuses, errbufs);
}

/*
 * The same in steps: the CPU engine answers when the counts are finished,
 * so a started trip is done at once (its start is where a fault shows).
 */
static SetopsGpuStatus
emu_count_start(SetopsGpuSetopArgs **args, int n, char *errbuf, size_t errlen)
{
	return emu_fault(n, errbuf, errlen) ? SETOPS_GPU_ERROR : SETOPS_GPU_OK;
}

static int
emu_stream_done(char *errbuf, size_t errlen)
{
	return 1;
}

static void
emu_stream_wait(void)
{
}

/* Every device is the CPU engine: the parts are the whole. */
static SetopsGpuStatus
emu_setop_devices(SetopsGpuSetopArgs *args, int nparts, const int *devices,
				  const double *weights, char *errbuf, size_t errlen)
{
	return emu_setop(args, errbuf, errlen);
}

static SetopsGpuStatus
emu_setop_batch(SetopsGpuBatchArgs *args, char *errbuf, size_t errlen)
{
	SetopsSegd	as,
				bs;

	if (emu_fault(1, errbuf, errlen))
		return SETOPS_GPU_ERROR;
	as.nsegs = bs.nsegs = args->npairs;
	as.starts = args->a_start;
	as.lengths = args->a_len;
	bs.starts = args->b_start;
	bs.lengths = args->b_len;
	as.total = args->a_keys;
	bs.total = args->b_keys;
	args->out_count = setops_cpu_setop_segmented(args->op, args->key_type, args->a, &as,
												 args->b, &bs, args->out_keys,
												 args->out_lengths, args->out_pos);
	return SETOPS_GPU_OK;
}

/*
 * Each pair's count as the device gives it: intersection count, overlaps
 * 1 or 0, contains 0 when b lies within a (else positive).  The pairs are
 * in order (the backend checked them).
 */
static SetopsGpuStatus
emu_count_batch(SetopsGpuBatchArgs *args, int count_mode, char *errbuf, size_t errlen)
{
	SetopsKeyType type = args->key_type;
	size_t		ks = setops_key_size(type);
	void	   *scratch;
	int64_t		p;

	if (emu_fault(1, errbuf, errlen))
		return SETOPS_GPU_ERROR;
	scratch = malloc(SETOPS_CPU_COUNT_SCRATCH * ks);
	if (scratch == NULL)
		return EMU_OOM(errbuf, errlen);
	for (p = 0; p < args->npairs; p++)
	{
		/* a cached row's buffer is the worker's memory here */
		const char *a = args->a_dev && args->a_dev[p] ? (const char *) args->a_dev[p] :
			(const char *) args->a + args->a_start[p] * ks;
		const char *b = (const char *) args->b + args->b_start[p] * ks;
		int64_t		na = args->a_len[p],
					nb = args->b_len[p];

		/* (the GPU's rule, so that the emulation finds what breaks it) */
		if (args->a_dev && args->a_dev[p] &&
			(uintptr_t) args->a_dev[p] % SETOPS_GPU_ROW_ALIGN != 0)
		{
			free(scratch);
			snprintf(errbuf, errlen, "internal error: pair %lld of a count batch lies outside its keys",
					 (long long) p);
			return SETOPS_GPU_ERROR;
		}
		if (count_mode == SETOPS_GPU_COUNT_OVERLAPS)
			args->out_lengths[p] = setops_cpu_overlaps(type, a, na, b, nb);
		else if (count_mode == SETOPS_GPU_COUNT_CONTAINS)
			args->out_lengths[p] = !setops_cpu_contains(type, a, na, b, nb);
		else
			args->out_lengths[p] = setops_cpu_intersect_count(type, a, na, b, nb, scratch);
	}
	free(scratch);
	args->out_count = 0;
	return SETOPS_GPU_OK;
}

/* The rounds between cur and spare, as on the device. */
static SetopsGpuStatus
emu_reduce(SetopsOp op, SetopsKeyType key_type, void *cur, void *spare, const int64_t *lengths,
		   int64_t nruns, int *result_in_spare, int64_t *n, char *errbuf, size_t errlen)
{
	int64_t    *scratch = palloc_extended(sizeof(int64_t) * 4 * Max(nruns, 1), MCXT_ALLOC_HUGE);
	int			r = setops_cpu_reduce_rounds(op, key_type, cur, lengths, nruns, spare, cur,
											 scratch, n);

	pfree(scratch);
	*result_in_spare = r == 0;
	return SETOPS_GPU_OK;
}

static SetopsGpuStatus
emu_sort(SetopsKeyType key_type, void *keys, int64_t *n, int distinct,
		 char *errbuf, size_t errlen)
{
	void	   *tmp;

	if (*n < 2)
		return SETOPS_GPU_OK;
	tmp = palloc_extended(*n * setops_key_size(key_type), MCXT_ALLOC_HUGE);
	*n = setops_cpu_sort(key_type, keys, *n, distinct, tmp);
	pfree(tmp);
	return SETOPS_GPU_OK;
}

const DeviceOps setops_emulated_device = {
	.name = "CPU engine (setops.service_emulate)",
	.host_memory = true,
	.count = emu_count,
	.info = emu_info,
	.use = emu_use,
	.use_stream = emu_use_stream,
	.epoch = emu_epoch,
	.device_epoch = emu_device_epoch,
	.register_host = emu_register_host,
	.set_interrupt_callback = emu_set_interrupt_callback,
	.buffer_alloc = emu_buffer_alloc,
	.buffer_free = emu_buffer_free,
	.buffer_read = emu_buffer_read,
	.buffer_write = emu_buffer_write,
	.buffer_write_queued = emu_buffer_write,
	.buffer_writes_wait = emu_buffer_writes_wait,
	.buffer_copy_peer = emu_buffer_copy_peer,
	.keys_first_unsorted = emu_keys_first_unsorted,
	.setop = emu_setop,
	.count_many = emu_count_many,
	.count_start = emu_count_start,
	.stream_done = emu_stream_done,
	.stream_wait = emu_stream_wait,
	.count_finish = emu_count_finish,
	.setop_devices = emu_setop_devices,
	.setop_batch = emu_setop_batch,
	.count_batch = emu_count_batch,
	.reduce = emu_reduce,
	.sort = emu_sort,
};
