/*
 * launch_host.cu
 *	  The steps the host drivers share: a launch's arena, copying its
 *	  inputs in, running it and reading back (and checking) its count and
 *	  order flags, copying its outputs out.
 *
 * setops_api.cu runs an operation chunk by chunk and multi_device.cu part
 * by part over several devices, both through the SetopPart steps here;
 * batch_api.cu lays out and reads back its launches with the same
 * helpers.  Every CUDA error becomes a status and a message (gpu_fail).
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "gpu_internal.h"
#include "../common/clock_ms.h"
#include "../common/key_order.h"

double
gpu_host_ms(void)
{
	return setops_clock_ms();
}

double
gpu_elapsed_ms(cudaEvent_t from, cudaEvent_t to)
{
	float		ms = 0;

	return cudaEventElapsedTime(&ms, from, to) == cudaSuccess ? ms : 0;
}

SetopsGpuStatus
gpu_read_results(GpuPool *pool, void *scratch, const char *what, SetopResults *res,
				 char *errbuf, size_t errlen)
{
	CHECK_CUDA(cudaMemcpyAsync(pool->pinned, setop_results(scratch), sizeof(SetopResults),
							   cudaMemcpyDeviceToHost, pool->stream), "reading the output count");
	CHECK_CUDA(cudaStreamSynchronize(pool->stream), what);
	*res = *(SetopResults *) pool->pinned;
	return SETOPS_GPU_OK;
}

SetopsGpuStatus
gpu_check_total(const SetopResults *res, int64_t most, char *errbuf, size_t errlen)
{
	if (res->total >= 0 && res->total <= most)
		return SETOPS_GPU_OK;
	snprintf(errbuf, errlen, "internal error: %d outputs from a bound of %lld",
			 res->total, (long long) most);
	return SETOPS_GPU_ERROR;
}

void
setop_launch_init(SetopLaunch *l, const SetopsGpuSetopArgs *args)
{
	memset(l, 0, sizeof(*l));
	l->op = args->op;
	l->key_type = args->key_type;
	l->duplicates = !args->inputs_distinct;
	l->count_mode = args->count_mode;
	/*
	 * Packed arguments count as known in order to the caller (ascending by
	 * construction), but the device's decoder does not check that: the
	 * kernels must, so that altered bytes are reported, not answered.
	 */
	l->inputs_sorted = args->inputs_sorted != 0 && !args->a_packed && !args->b_packed;
}

SetopsGpuStatus
setop_part_place(const SetopsGpuSetopArgs *args, SetopPart *part, char *errbuf, size_t errlen)
{
	size_t		ks = setops_key_size(args->key_type);
	size_t		vs = args->a_vals ? (size_t) args->val_stride : 0;
	int			na = (int) (part->a_end - part->ai);
	int			nb = (int) (part->b_end - part->bi);
	/* a count writes no outputs: room for none, a bound on the count */
	bool		counting = args->count_mode != SETOPS_GPU_COUNT_NONE;
	int64_t		bound = counting ? 0 : setop_output_bound(args->op, na, nb);
	/* a packed result is encoded whole: at most INT_MAX keys */
	int64_t		enc_n = bound < INT_MAX ? bound : INT_MAX;
	bool		packed_out = args->out_packed != NULL;
	size_t		end = 0;
	/* keys already on the device take no room */
	size_t		off_a = arena_take(&end, args->a_dev ? 0 : na * ks);
	size_t		off_b = arena_take(&end, args->b_dev ? 0 : nb * ks);
	size_t		off_out = arena_take(&end, bound * ks);
	size_t		off_av = arena_take(&end, na * vs);
	size_t		off_bv = arena_take(&end, nb * vs);
	size_t		off_ov = arena_take(&end, bound * vs);
	size_t		off_scratch = arena_take(&end, setop_scratch_bytes(args->key_type, na, nb));
	size_t		off_pa = arena_take(&end, args->a_packed ? args->a_packed_size : 0);
	size_t		off_pb = arena_take(&end, args->b_packed ? args->b_packed_size : 0);
	size_t		enc_cap = packed_out ? packed_encode_bound(args->key_type, enc_n) : 0;
	size_t		enc_scratch = packed_out ? packed_encode_scratch_bytes(args->key_type, enc_n) : 0;
	size_t		off_enc = arena_take(&end, enc_cap);
	size_t		off_enc_scratch = arena_take(&end, enc_scratch);
	SetopsGpuStatus status;
	GpuPool    *pool;
	SetopLaunch *l = &part->l;

	part->count = 0;
	part->flags = 0;
	part->ms_upload = 0;
	pool = gpu_pool_get(end, &status, errbuf, errlen);
	if (pool == NULL)
		return status;
	part->pool = pool;
	part->most = counting ? count_bound(args->count_mode, na, nb) : bound;
	part->a_packed_dev = pool->dev + off_pa;
	part->b_packed_dev = pool->dev + off_pb;
	part->enc = pool->dev + off_enc;
	part->enc_cap = enc_cap;
	part->enc_scratch = pool->dev + off_enc_scratch;
	part->enc_scratch_bytes = enc_scratch;

	setop_launch_init(l, args);
	l->a = args->a_dev ? (const char *) args->a_dev + part->ai * ks : pool->dev + off_a;
	l->na = na;
	l->b = args->b_dev ? (const char *) args->b_dev + part->bi * ks : pool->dev + off_b;
	l->nb = nb;
	l->out = pool->dev + off_out;
	if (vs)
	{
		l->a_vals = pool->dev + off_av;
		l->b_vals = pool->dev + off_bv;
		l->val_stride = (int) vs;
		l->out_vals = pool->dev + off_ov;
	}
	l->scratch = pool->dev + off_scratch;
	return SETOPS_GPU_OK;
}

/*
 * One input of a part into device memory at dst: its keys [i, end)
 * uploaded, or, for a packed argument (always whole), its packed bytes
 * uploaded to packed_dst (decoded into dst later, on the device).
 */
static cudaError_t
place_input(GpuPool *pool, void *dst, const void *keys, int64_t i, int64_t end, size_t ks,
			const void *packed, size_t packed_size, void *packed_dst)
{
	if (packed == NULL)
		return gpu_upload(pool, dst, (const char *) keys + i * ks, (end - i) * ks);
	return gpu_upload(pool, packed_dst, packed, packed_size);
}

SetopsGpuStatus
setop_part_copy_in(const SetopsGpuSetopArgs *args, SetopPart *part, char *errbuf, size_t errlen)
{
	GpuPool    *pool = part->pool;
	const SetopLaunch *l = &part->l;
	size_t		ks = setops_key_size(args->key_type);
	size_t		vs = (size_t) l->val_stride;
	double		t0 = gpu_host_ms();

	CHECK_CUDA(cudaEventRecord(pool->ev[0], pool->stream), "recording an event");
	if (!args->a_dev)
		CHECK_CUDA(place_input(pool, (void *) l->a, args->a, part->ai, part->a_end, ks,
							   args->a_packed, args->a_packed_size, part->a_packed_dev),
				   "uploading argument 1");
	if (!args->b_dev)
		CHECK_CUDA(place_input(pool, (void *) l->b, args->b, part->bi, part->b_end, ks,
							   args->b_packed, args->b_packed_size, part->b_packed_dev),
				   "uploading argument 2");
	if (vs)
	{
		CHECK_CUDA(gpu_upload(pool, (void *) l->a_vals, (const char *) args->a_vals + part->ai * vs,
							  l->na * vs), "uploading the values of argument 1");
		CHECK_CUDA(gpu_upload(pool, (void *) l->b_vals, (const char *) args->b_vals + part->bi * vs,
							  l->nb * vs), "uploading the values of argument 2");
	}
	CHECK_CUDA(cudaEventRecord(pool->ev[1], pool->stream), "recording an event");
	part->ms_upload = gpu_host_ms() - t0;	/* the staging copies; the last DMA may still run */
	if (args->a_packed)
		CHECK_CUDA(packed_decode_enqueue((const PackedHeader *) args->a_packed, part->a_packed_dev,
										 (void *) l->a, pool->stream), "decoding argument 1");
	if (args->b_packed)
		CHECK_CUDA(packed_decode_enqueue((const PackedHeader *) args->b_packed, part->b_packed_dev,
										 (void *) l->b, pool->stream), "decoding argument 2");
	CHECK_CUDA(cudaEventRecord(pool->ev[3], pool->stream), "recording an event");
	return SETOPS_GPU_OK;
}

SetopsGpuStatus
setop_part_run(const SetopsGpuSetopArgs *args, SetopPart *part, char *errbuf, size_t errlen)
{
	GpuPool    *pool = part->pool;
	SetopResults res;
	SetopsGpuStatus status;

	part->count = 0;
	CHECK_CUDA(setop_enqueue(&part->l, pool->stream), "launching the set operation");
	CHECK_CUDA(cudaEventRecord(pool->ev[2], pool->stream), "recording an event");
	status = gpu_read_results(pool, part->l.scratch, "running the set operation", &res,
							  errbuf, errlen);
	if (status != SETOPS_GPU_OK)
		return status;
	part->flags = res.unsorted;
	if (setop_part_void(args, part))
		return SETOPS_GPU_OK;
	status = gpu_check_total(&res, part->most, errbuf, errlen);
	if (status == SETOPS_GPU_OK)
		part->count = res.total;
	return status;
}

SetopsGpuStatus
setop_part_copy_out(const SetopsGpuSetopArgs *args, const SetopPart *part, int64_t k,
					char *errbuf, size_t errlen)
{
	size_t		ks = setops_key_size(args->key_type);
	size_t		vs = (size_t) part->l.val_stride;

	CHECK_CUDA(gpu_download(part->pool, (char *) args->out_keys + k * ks, part->l.out,
							part->count * ks), "downloading the result");
	if (vs)
		CHECK_CUDA(gpu_download(part->pool, (char *) args->out_vals + k * vs, part->l.out_vals,
								part->count * vs), "downloading the result values");
	return SETOPS_GPU_OK;
}

/*
 * The device saw disorder somewhere (flags: bit 0 A, bit 1 B, bit 2 the
 * partitions): find the exact first place in a plain argument (in host
 * memory, or on the device); failing
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
		const void *dev = arg == 1 ? args->a_dev : args->b_dev;
		int64_t		n = arg == 1 ? args->na : args->nb;
		int64_t		pos = -1;

		if (keys)
			pos = setops_first_unsorted_scalar(args->key_type, keys, n);
		/* keys on the device (a cache's, checked when cached): found there */
		else if (dev && setops_gpu_keys_first_unsorted(args->key_type, dev, n, &pos, errbuf,
													   errlen) != SETOPS_GPU_OK)
			return SETOPS_GPU_ERROR;

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
