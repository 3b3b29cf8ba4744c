/*
 * setops_api.cu
 *	  The C API of the GPU backend: moving host arrays through the kernels.
 *
 * Large inputs go through in chunks of GPU_CHUNK elements that end on
 * key-rank-consistent splits (the same Balanced Path as everywhere), so
 * their outputs simply concatenate, device memory stays bounded, and the
 * caller's interrupt callback is asked between chunks (a cancel is
 * honoured within one chunk's time, about 10-30 ms).  Per chunk: uploads
 * go through pinned staging (transfer.cu) and the kernels are queued on the
 * pool's stream; one synchronisation fetches the output count and the
 * order flags (one small copy); the outputs come back through staging into
 * the caller's buffer.  A result wanted packed is encoded on the device
 * first (packed_encode.cu, one more synchronisation for its section
 * sizes) and only its packed bytes come back.
 *
 * Every CUDA error becomes a status and a message; errors that break the
 * context reset the device (gpu_recover), so the next call starts clean.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "gpu_internal.h"
#include "../common/balanced_path.h"
#include "../common/key_order.h"

SETOPS_DEFINE_SEARCHES(host32, int32_t, int64_t)
SETOPS_DEFINE_SEARCHES(host64, int64_t, int64_t)

/* Elements per launch: bounds device memory and the time to a cancel. */
#define GPU_CHUNK ((int64_t) 1 << 25)

#ifdef SETOPS_GPU_TEST_HOOKS
/* test builds only (test/gpu/kernel_test links this file built so) */
static bool inject_fault = false;

extern "C" void
setops_gpu_debug_inject_fault(void)
{
	inject_fault = true;
}

__global__ void
fault_kernel(int *p)
{
	*p = 1;
}
#endif							/* SETOPS_GPU_TEST_HOOKS */

double
gpu_host_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

double
gpu_elapsed_ms(cudaEvent_t from, cudaEvent_t to)
{
	float		ms = 0;

	return cudaEventElapsedTime(&ms, from, to) == cudaSuccess ? ms : 0;
}

/*
 * One input of a chunk into device memory at dst: its keys [i, end)
 * uploaded, or, for a packed argument (always whole), its packed bytes
 * uploaded to packed_dst and decoded into dst on the device.
 */
static cudaError_t
place_input(GpuPool *pool, void *dst, const void *keys, int64_t i, int64_t end, size_t ks,
			const void *packed, size_t packed_size, void *packed_dst)
{
	if (packed == NULL)
		return gpu_upload(pool, dst, (const char *) keys + i * ks, (end - i) * ks);
	return gpu_upload(pool, packed_dst, packed, packed_size);
}

/* One chunk: a[ai, a_end) x b[bi, b_end), outputs appended at k. */
static SetopsGpuStatus
run_chunk(SetopsGpuSetopArgs *args, int64_t ai, int64_t a_end, int64_t bi, int64_t b_end,
		  int64_t k, int64_t *n, int *flags, char *errbuf, size_t errlen)
{
	size_t		ks = setops_key_size(args->key_type);
	size_t		vs = args->a_vals ? (size_t) args->val_stride : 0;
	int			na = (int) (a_end - ai);
	int			nb = (int) (b_end - bi);
	/* a count writes no outputs: room for none, a bound on the count */
	bool		counting = args->count_mode != SETOPS_GPU_COUNT_NONE;
	int64_t		bound = counting ? 0 : setop_output_bound(args->op, na, nb);
	int64_t		most = counting ? count_bound(args->count_mode, na, nb) : bound;
	/* keys already on the device take no room */
	size_t		off_b = GPU_ALIGN(args->a_dev ? 0 : na * ks);
	size_t		off_out = off_b + GPU_ALIGN(args->b_dev ? 0 : nb * ks);
	size_t		off_av = off_out + GPU_ALIGN(bound * ks);
	size_t		off_bv = off_av + GPU_ALIGN(na * vs);
	size_t		off_ov = off_bv + GPU_ALIGN(nb * vs);
	size_t		off_scratch = off_ov + GPU_ALIGN(bound * vs);
	size_t		off_pa = off_scratch + GPU_ALIGN(setop_scratch_bytes(args->key_type, na, nb));
	size_t		off_pb = off_pa + GPU_ALIGN(args->a_packed ? args->a_packed_size : 0);
	/* a packed result: its bytes, then the encoder's scratch */
	bool		packed_out = args->out_packed != NULL;
	int64_t		enc_n = bound < INT_MAX ? bound : INT_MAX;
	size_t		enc_cap = packed_out ? packed_encode_bound(args->key_type, enc_n) : 0;
	size_t		enc_scratch = packed_out ? packed_encode_scratch_bytes(args->key_type, enc_n) : 0;
	size_t		off_enc = off_pb + GPU_ALIGN(args->b_packed ? args->b_packed_size : 0);
	size_t		off_enc_scratch = off_enc + GPU_ALIGN(enc_cap);
	size_t		need = off_enc_scratch + enc_scratch;
	SetopsGpuStatus status;
	GpuPool    *pool = gpu_pool_get(need, &status, errbuf, errlen);
	SetopLaunch l;
	SetopResults res;
	double		t_up,
				t_down;

	if (pool == NULL)
		return status;

	memset(&l, 0, sizeof(l));
	l.op = args->op;
	l.key_type = args->key_type;
	l.duplicates = !args->inputs_distinct;
	l.count_mode = args->count_mode;
	/*
	 * Packed arguments count as known in order to the caller (ascending by
	 * construction), but the device's decoder does not check that: the
	 * kernels must, so that altered bytes are reported, not answered.
	 */
	l.inputs_sorted = args->inputs_sorted != 0 && !args->a_packed && !args->b_packed;
	l.a = args->a_dev ? (const char *) args->a_dev + ai * ks : pool->dev;
	l.na = na;
	l.b = args->b_dev ? (const char *) args->b_dev + bi * ks : pool->dev + off_b;
	l.nb = nb;
	l.out = pool->dev + off_out;
	if (vs)
	{
		l.a_vals = pool->dev + off_av;
		l.b_vals = pool->dev + off_bv;
		l.val_stride = (int) vs;
		l.out_vals = pool->dev + off_ov;
	}
	l.scratch = pool->dev + off_scratch;

	t_up = gpu_host_ms();
	CHECK_CUDA(cudaEventRecord(pool->ev[0], pool->stream), "recording an event");
	if (!args->a_dev)
		CHECK_CUDA(place_input(pool, (void *) l.a, args->a, ai, a_end, ks, args->a_packed,
							   args->a_packed_size, pool->dev + off_pa), "uploading argument 1");
	if (!args->b_dev)
		CHECK_CUDA(place_input(pool, (void *) l.b, args->b, bi, b_end, ks, args->b_packed,
							   args->b_packed_size, pool->dev + off_pb), "uploading argument 2");
	if (vs)
	{
		CHECK_CUDA(gpu_upload(pool, (void *) l.a_vals, (const char *) args->a_vals + ai * vs,
							  na * vs), "uploading the values of argument 1");
		CHECK_CUDA(gpu_upload(pool, (void *) l.b_vals, (const char *) args->b_vals + bi * vs,
							  nb * vs), "uploading the values of argument 2");
	}
	CHECK_CUDA(cudaEventRecord(pool->ev[1], pool->stream), "recording an event");
	t_up = gpu_host_ms() - t_up;	/* the staging copies; the last DMA may still run */
	if (args->a_packed)
		CHECK_CUDA(packed_decode_enqueue((const PackedHeader *) args->a_packed,
										 pool->dev + off_pa, (void *) l.a, pool->stream),
				   "decoding argument 1");
	if (args->b_packed)
		CHECK_CUDA(packed_decode_enqueue((const PackedHeader *) args->b_packed,
										 pool->dev + off_pb, (void *) l.b, pool->stream),
				   "decoding argument 2");
	CHECK_CUDA(cudaEventRecord(pool->ev[3], pool->stream), "recording an event");
#ifdef SETOPS_GPU_TEST_HOOKS
	if (inject_fault)
	{
		inject_fault = false;
		fault_kernel<<<1, 1, 0, pool->stream>>>((int *) 16);
	}
#endif
	CHECK_CUDA(setop_enqueue(&l, pool->stream), "launching the set operation");
	CHECK_CUDA(cudaEventRecord(pool->ev[2], pool->stream), "recording an event");
	CHECK_CUDA(cudaMemcpyAsync(pool->pinned, setop_results(l.scratch), sizeof(SetopResults),
							   cudaMemcpyDeviceToHost, pool->stream), "reading the output count");
	CHECK_CUDA(cudaStreamSynchronize(pool->stream), "running the set operation");

	res = *(SetopResults *) pool->pinned;
	*flags = res.unsorted;
	*n = 0;
	/* outputs are meaningless: the caller reports (but a key found in both
	 * is an answer to overlaps in any order) */
	if (res.unsorted && args->count_mode != SETOPS_GPU_COUNT_OVERLAPS)
		return SETOPS_GPU_OK;
	if (res.total < 0 || res.total > most)
	{
		snprintf(errbuf, errlen, "internal error: %d outputs from a bound of %lld",
				 res.total, (long long) most);
		return SETOPS_GPU_ERROR;
	}
	*n = res.total;
	if (counting)
		t_down = gpu_host_ms();	/* the count is the answer */
	else if (packed_out)
	{
		size_t		size;

		/* only the packed bytes cross; the pinned block's start holds res */
		CHECK_CUDA(cudaEventRecord(pool->ev[4], pool->stream), "recording an event");
		CHECK_CUDA(packed_encode(args->key_type, l.out, res.total, pool->dev + off_enc, enc_cap,
								 pool->dev + off_enc_scratch, enc_scratch,
								 (char *) pool->pinned + 64, pool->stream, &size),
				   "encoding the result");
		CHECK_CUDA(cudaEventRecord(pool->ev[5], pool->stream), "recording an event");
		if (size > args->out_packed_cap)
		{
			snprintf(errbuf, errlen, "internal error: a packed result of %zu bytes, room for %zu",
					 size, args->out_packed_cap);
			return SETOPS_GPU_ERROR;
		}
		t_down = gpu_host_ms();
		CHECK_CUDA(gpu_download(pool, args->out_packed, pool->dev + off_enc, size),
				   "downloading the packed result");
		args->out_packed_size = size;
		args->ms_encode += gpu_elapsed_ms(pool->ev[4], pool->ev[5]);
	}
	else
	{
		t_down = gpu_host_ms();
		CHECK_CUDA(gpu_download(pool, (char *) args->out_keys + k * ks, l.out, res.total * ks),
				   "downloading the result");
	}
	if (vs)
		CHECK_CUDA(gpu_download(pool, (char *) args->out_vals + k * vs, l.out_vals,
								res.total * vs), "downloading the result values");

	/* upload as the host saw it (staging copies included), the rest by events */
	args->ms_upload += t_up;
	if (args->a_packed || args->b_packed)
		args->ms_decode += gpu_elapsed_ms(pool->ev[1], pool->ev[3]);
	args->ms_kernel += gpu_elapsed_ms(pool->ev[3], pool->ev[2]);
	args->ms_download += gpu_host_ms() - t_down;
	return SETOPS_GPU_OK;
}

/*
 * The device saw disorder somewhere (flags: bit 0 A, bit 1 B, bit 2 the
 * partitions): find the exact first place in a plain argument; failing
 * that, a packed argument decoded out of order (its bytes were altered) is
 * reported with position -1.
 */
SetopsGpuStatus
gpu_report_disorder(SetopsGpuSetopArgs *args, int flags, char *errbuf, size_t errlen)
{
	int			arg;

	for (arg = 1; arg <= 2; arg++)
	{
		const void *keys = arg == 1 ? args->a : args->b;
		int64_t		pos = keys ? setops_first_unsorted_scalar(args->key_type, keys,
															  arg == 1 ? args->na : args->nb) : -1;

		if (pos >= 0)
		{
			args->unsorted_arg = arg;
			args->unsorted_pos = pos;
			return SETOPS_GPU_OK;
		}
	}
	if (args->a_packed || args->b_packed)
	{
		args->unsorted_arg = args->a_packed && (flags & 1 || !args->b_packed) ? 1 : 2;
		return SETOPS_GPU_OK;
	}
	snprintf(errbuf, errlen, "internal error: order flags %d on sorted input", flags);
	return SETOPS_GPU_ERROR;
}

extern "C" SetopsGpuStatus
setops_gpu_setop(SetopsGpuSetopArgs *args, char *errbuf, size_t errlen)
{
	SetopsChunks c;
	int64_t		k = 0;
	int			flags = 0;

	setops_gpu_answer_reset(args);
	if (!gpu_ensure_init(errbuf, errlen))
		return SETOPS_GPU_UNAVAILABLE;
	if ((args->a_packed && args->a) || (args->b_packed && args->b) || (args->a_packed && args->a_vals))
	{
		snprintf(errbuf, errlen, "internal error: a packed argument with keys or values");
		return SETOPS_GPU_ERROR;
	}
	if ((args->a_dev && (args->a || args->a_packed)) || (args->b_dev && (args->b || args->b_packed)) ||
		((args->a_dev || args->b_dev) && (args->a_vals || args->na + args->nb > INT_MAX)))
	{
		snprintf(errbuf, errlen, "internal error: device-resident keys with host keys, values, or more than INT_MAX keys");
		return SETOPS_GPU_ERROR;
	}
	if (args->out_packed && args->a_vals)
	{
		snprintf(errbuf, errlen, "internal error: a packed result with values");
		return SETOPS_GPU_ERROR;
	}
	if (args->count_mode != SETOPS_GPU_COUNT_NONE &&
		(args->op != SETOPS_OP_INTERSECT || args->a_vals || args->out_packed))
	{
		snprintf(errbuf, errlen, "internal error: a count of another operation, with values or packed");
		return SETOPS_GPU_ERROR;
	}

	/*
	 * packed arguments are decoded whole on the device, a packed result is
	 * encoded whole, and keys already on the device need no room: one piece
	 * (a packed result of empty inputs is still a value: one empty piece)
	 */
	setops_chunks_begin(&c, args->op, args->key_type, args->a, args->na, args->b, args->nb,
						args->a_packed || args->b_packed || args->out_packed || args->a_dev ||
						args->b_dev ? 0 : GPU_CHUNK);
	c.empty_piece = args->out_packed != NULL;
	while (setops_chunks_next(&c))
	{
		int64_t		n;
		int			chunk_flags;
		SetopsGpuStatus status;

		status = run_chunk(args, c.ai, c.a_end, c.bi, c.b_end, k, &n, &chunk_flags, errbuf, errlen);
		if (status != SETOPS_GPU_OK)
			return status;
		/* decided: a key in both answers overlaps whatever the order; b not
		 * within a answers containment where no order break was seen */
		if (setops_gpu_count_decided(args, n) &&
			(args->count_mode == SETOPS_GPU_COUNT_OVERLAPS || !(flags | c.disorder | chunk_flags)))
		{
			args->out_count = args->count_mode == SETOPS_GPU_COUNT_OVERLAPS ? 1 : n;
			return SETOPS_GPU_OK;
		}
		flags |= chunk_flags;
		if (flags | c.disorder)
			break;
		k += n;
		if (!setops_chunks_last(&c) && gpu_interrupt_fn && gpu_interrupt_fn())
		{
			snprintf(errbuf, errlen, "cancelled");
			return SETOPS_GPU_CANCELLED;
		}
	}
	/* (the chunk walk's bits are the flags' own: 1 A, 2 B, 4 lost) */
	flags |= c.disorder;
	if (flags)
		return gpu_report_disorder(args, flags, errbuf, errlen);
	args->out_count = k;
	return SETOPS_GPU_OK;
}

extern "C" SetopsGpuStatus
setops_gpu_sort(SetopsKeyType key_type, void *keys, int64_t *n, int distinct,
				char *errbuf, size_t errlen)
{
	size_t		ks = setops_key_size(key_type);
	int			count = (int) *n;
	size_t		off_out = GPU_ALIGN(count * ks);
	size_t		off_count = off_out + GPU_ALIGN(count * ks);
	size_t		off_scratch = off_count + 256;
	size_t		scratch_bytes;
	SetopsGpuStatus status;
	GpuPool    *pool;

	if (!gpu_ensure_init(errbuf, errlen))
		return SETOPS_GPU_UNAVAILABLE;
	if (*n < 2)
		return SETOPS_GPU_OK;
	if (*n > INT_MAX / 2)
	{
		snprintf(errbuf, errlen, "%lld keys are more than one sort can take", (long long) *n);
		return SETOPS_GPU_ERROR;
	}
	scratch_bytes = sort_scratch_bytes(key_type, count);
	pool = gpu_pool_get(off_scratch + scratch_bytes, &status, errbuf, errlen);
	if (pool == NULL)
		return status;

	CHECK_CUDA(gpu_upload(pool, pool->dev, keys, count * ks), "uploading the keys");
	CHECK_CUDA(sort_enqueue(key_type, pool->dev, pool->dev + off_out, count, distinct != 0,
							pool->dev + off_scratch, scratch_bytes,
							(int *) (pool->dev + off_count), pool->stream),
			   "launching the sort");
	if (distinct)
	{
		int			kept;

		CHECK_CUDA(cudaMemcpyAsync(pool->pinned, pool->dev + off_count, sizeof(int),
								   cudaMemcpyDeviceToHost, pool->stream), "reading the count");
		CHECK_CUDA(cudaStreamSynchronize(pool->stream), "sorting");
		kept = *(int *) pool->pinned;
		if (kept < 1 || kept > count)
		{
			snprintf(errbuf, errlen, "internal error: %d distinct keys of %d", kept, count);
			return SETOPS_GPU_ERROR;
		}
		CHECK_CUDA(gpu_download(pool, keys, pool->dev, kept * ks), "downloading the keys");
		*n = kept;
	}
	else
		CHECK_CUDA(gpu_download(pool, keys, pool->dev + off_out, count * ks),
				   "downloading the keys");
	return SETOPS_GPU_OK;
}
