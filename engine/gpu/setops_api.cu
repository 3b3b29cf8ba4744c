/*
 * setops_api.cu
 *	  The C API of the GPU backend: moving host arrays through the kernels.
 *
 * Large inputs go through in chunks of GPU_CHUNK elements that end on
 * key-rank-consistent splits (the same Balanced Path as everywhere), so
 * their outputs simply concatenate, device memory stays bounded, and the
 * caller's interrupt callback is asked between chunks (a cancel is
 * honoured within one chunk's time, about 10-30 ms).  Per chunk (the
 * steps of launch_host.cu): uploads
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

#include "gpu_internal.h"
#include "../common/balanced_path.h"

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

/*
 * One chunk (part's range), its outputs appended at k: part->count and
 * part->flags get its answer.
 */
static SetopsGpuStatus
run_chunk(SetopsGpuSetopArgs *args, SetopPart *part, int64_t k, char *errbuf, size_t errlen)
{
	SetopsGpuStatus status;
	GpuPool    *pool;
	double		t_down;

	status = setop_part_place(args, part, errbuf, errlen);
	if (status == SETOPS_GPU_OK)
		status = setop_part_copy_in(args, part, errbuf, errlen);
	if (status != SETOPS_GPU_OK)
		return status;
	pool = part->pool;
#ifdef SETOPS_GPU_TEST_HOOKS
	if (inject_fault)
	{
		inject_fault = false;
		fault_kernel<<<1, 1, 0, pool->stream>>>((int *) 16);
	}
#endif
	status = setop_part_run(args, part, errbuf, errlen);
	/* void outputs: the caller reports the disorder */
	if (status != SETOPS_GPU_OK || setop_part_void(args, part))
		return status;
	if (args->count_mode != SETOPS_GPU_COUNT_NONE)
		t_down = gpu_host_ms();	/* the count is the answer */
	else if (args->out_packed)
	{
		size_t		size;

		/* only the packed bytes cross; the pinned block's start holds the results */
		CHECK_CUDA(cudaEventRecord(pool->ev[4], pool->stream), "recording an event");
		CHECK_CUDA(packed_encode(args->key_type, part->l.out, part->count, part->enc, part->enc_cap,
								 part->enc_scratch, part->enc_scratch_bytes,
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
		CHECK_CUDA(gpu_download(pool, args->out_packed, part->enc, size),
				   "downloading the packed result");
		args->out_packed_size = size;
		args->ms_encode += gpu_elapsed_ms(pool->ev[4], pool->ev[5]);
	}
	else
	{
		t_down = gpu_host_ms();
		status = setop_part_copy_out(args, part, k, errbuf, errlen);
		if (status != SETOPS_GPU_OK)
			return status;
	}

	/* upload as the host saw it (staging copies included), the rest by events */
	args->ms_upload += part->ms_upload;
	if (args->a_packed || args->b_packed)
		args->ms_decode += gpu_elapsed_ms(pool->ev[1], pool->ev[3]);
	args->ms_kernel += gpu_elapsed_ms(pool->ev[3], pool->ev[2]);
	args->ms_download += gpu_host_ms() - t_down;
	return SETOPS_GPU_OK;
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
		SetopPart	part;
		int64_t		n;
		int			chunk_flags;
		SetopsGpuStatus status;

		part.ai = c.ai;
		part.a_end = c.a_end;
		part.bi = c.bi;
		part.b_end = c.b_end;
		status = run_chunk(args, &part, k, errbuf, errlen);
		if (status != SETOPS_GPU_OK)
			return status;
		n = part.count;
		chunk_flags = part.flags;
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

/*
 * n counts of keys on the device, in as few launches as their kinds allow:
 * those of one key type and count mode go together into one segmented
 * launch (count_many_enqueue); a count of skewed sizes (the skew path's)
 * or of no keys goes alone, as setops_gpu_setop would run it.  All on one
 * stream; one wait.
 *
 * The pinned block holds the answers (from its start).  Where the device
 * maps it (pool->pinned_dev), a segmented launch takes its segment
 * descriptors in its parameters and writes its answers there itself, so
 * that the trip is its launches alone: no copy up, none back (a copy is a
 * hop between the copy and compute engines, and the small copies of trips
 * on streams side by side queued behind each other).  Else the
 * descriptors go up from the pinned block (from COUNT_MANY_SEGS) and the
 * answers come back by one copy.  Counts that run alone bring theirs back
 * by a copy each.
 */
#define COUNT_MANY_SEGS 1024

static SetopsGpuStatus
count_many_queue(SetopsGpuSetopArgs **args, int n, char *errbuf, size_t errlen)
{
	SetopLaunch l[SETOPS_GPU_MANY];
	bool		alone[SETOPS_GPU_MANY];
	size_t		off[SETOPS_GPU_MANY];
	CountMany	groups[2 * 3];
	int			ngroups = 0,
				nsegs = 0;
	size_t		end = 0,
				off_results,
				off_segs,
				off_done,
				off_bounds[2 * 3];
	SetopsGpuStatus status;
	GpuPool    *pool;
	CountSegment *segs,
				host_segs[SETOPS_GPU_MANY];
	bool		direct;			/* the launches take their segments and write their answers */
	int			i,
				g;

	static_assert(COUNT_MANY_SEGS >= SETOPS_GPU_MANY * sizeof(SetopResults) &&
				  COUNT_MANY_SEGS + SETOPS_GPU_MANY * sizeof(CountSegment) <= GPU_PINNED_BYTES,
				  "the answers and the descriptors in the pinned block");
	off_results = arena_take(&end, n * sizeof(SetopResults));
	off_segs = arena_take(&end, n * sizeof(CountSegment));
	off_done = arena_take(&end, 2 * 3 * sizeof(unsigned));
	for (i = 0; i < n; i++)
	{
		setop_launch_init(&l[i], args[i]);
		l[i].a = args[i]->a_dev;
		l[i].na = (int) args[i]->na;
		l[i].b = args[i]->b_dev;
		l[i].nb = (int) args[i]->nb;
		alone[i] = l[i].na + l[i].nb == 0 || skew_applies(&l[i]);
		if (alone[i])
			off[i] = arena_take(&end, setop_scratch_bytes(l[i].key_type, l[i].na, l[i].nb));
	}

	/* the groups: their sizes now, their descriptors once the pool is known */
	for (g = 0; g < 2 * 3; g++)
	{
		SetopsKeyType kt = g < 3 ? SETOPS_KEY_INT32 : SETOPS_KEY_INT64;
		int			mode = SETOPS_GPU_COUNT_INTERSECT + g % 3;
		CountMany  *m = &groups[ngroups];

		memset(m, 0, sizeof(*m));
		m->key_type = kt;
		m->count_mode = mode;
		m->inputs_sorted = true;
		for (i = 0; i < n; i++)
			if (!alone[i] && l[i].key_type == kt && l[i].count_mode == mode)
			{
				m->nsegs++;
				m->num_tiles += (int) count_tiles(kt, l[i].na, l[i].nb);
				m->duplicates |= l[i].duplicates;
				m->inputs_sorted &= l[i].inputs_sorted;
			}
		if (m->nsegs == 0)
			continue;
		off_bounds[ngroups] = arena_take(&end, (size_t) (m->num_tiles + m->nsegs) * sizeof(int));
		ngroups++;
	}

	pool = gpu_pool_get(end, &status, errbuf, errlen);
	if (pool == NULL)
		return status;
	direct = pool->pinned_dev != NULL;
	segs = direct ? host_segs : (CountSegment *) ((char *) pool->pinned + COUNT_MANY_SEGS);
	for (g = 0; g < ngroups; g++)
	{
		CountMany  *m = &groups[g];
		int			tiles = 0;

		m->segs = (const CountSegment *) (pool->dev + off_segs) + nsegs;
		m->boundaries = (int *) (pool->dev + off_bounds[g]);
		m->results = (SetopResults *) (pool->dev + off_results);
		if (direct)
		{
			m->inline_segs = segs + nsegs;
			m->host_results = (SetopResults *) pool->pinned_dev;
			m->blocks_done = (unsigned *) (pool->dev + off_done) + g;
		}
		for (i = 0; i < n; i++)
			if (!alone[i] && l[i].key_type == m->key_type && l[i].count_mode == m->count_mode)
			{
				CountSegment *c = &segs[nsegs++];

				c->a = l[i].a;
				c->na = l[i].na;
				c->b = l[i].b;
				c->nb = l[i].nb;
				c->tile_start = tiles;
				c->result = i;
				c->stride_shift = partition_stride_shift(l[i].na, l[i].nb);
				tiles += (int) count_tiles(m->key_type, l[i].na, l[i].nb);
			}
	}

	CHECK_CUDA(cudaEventRecord(pool->ev[0], pool->stream), "recording an event");
	if (nsegs > 0 && !direct)
		CHECK_CUDA(cudaMemcpyAsync(pool->dev + off_segs, segs, nsegs * sizeof(CountSegment),
								   cudaMemcpyHostToDevice, pool->stream),
				   "sending the counts' descriptors");
	for (g = 0; g < ngroups; g++)
		CHECK_CUDA(count_many_enqueue(&groups[g], pool->stream), "launching counts");
	for (i = 0; i < n; i++)
		if (alone[i])
		{
			l[i].scratch = pool->dev + off[i];
			CHECK_CUDA(setop_enqueue(&l[i], pool->stream), "launching a count");
		}
	if (nsegs > 0 && !direct)
		CHECK_CUDA(cudaMemcpyAsync(pool->pinned, pool->dev + off_results, n * sizeof(SetopResults),
								   cudaMemcpyDeviceToHost, pool->stream),
				   "reading the counts");
	for (i = 0; i < n; i++)
		if (alone[i])
			CHECK_CUDA(cudaMemcpyAsync((SetopResults *) pool->pinned + i, setop_results(l[i].scratch),
									   sizeof(SetopResults), cudaMemcpyDeviceToHost, pool->stream),
					   "reading a count");
	CHECK_CUDA(cudaEventRecord(pool->ev[2], pool->stream), "recording an event");
	return SETOPS_GPU_OK;
}

extern "C" SetopsGpuStatus
setops_gpu_count_many_start(SetopsGpuSetopArgs **args, int n, char *errbuf, size_t errlen)
{
	int			i;

	static_assert(SETOPS_GPU_MANY * sizeof(SetopResults) <= GPU_PINNED_BYTES,
				  "every count's results in the pinned block");
	if (n < 1 || n > SETOPS_GPU_MANY)
	{
		snprintf(errbuf, errlen, "internal error: %d counts at once", n);
		return SETOPS_GPU_ERROR;
	}
	for (i = 0; i < n; i++)
	{
		setops_gpu_answer_reset(args[i]);
		if (!args[i]->a_dev || !args[i]->b_dev || args[i]->count_mode == SETOPS_GPU_COUNT_NONE ||
			args[i]->op != SETOPS_OP_INTERSECT || args[i]->na + args[i]->nb > INT_MAX)
		{
			snprintf(errbuf, errlen,
					 "internal error: a count of many that is no count of keys on the device");
			return SETOPS_GPU_ERROR;
		}
	}
	if (!gpu_ensure_init(errbuf, errlen))
		return SETOPS_GPU_UNAVAILABLE;
	return count_many_queue(args, n, errbuf, errlen);
}

extern "C" int
setops_gpu_stream_done(char *errbuf, size_t errlen)
{
	SetopsGpuStatus status;
	GpuPool    *pool = gpu_pool_get(0, &status, errbuf, errlen);
	cudaError_t err;

	if (pool == NULL)
		return -1;
	err = cudaEventQuery(pool->ev[2]);
	if (err == cudaErrorNotReady)
		return 0;
	if (err != cudaSuccess)
	{
		gpu_fail(err, "running the counts", errbuf, errlen);
		return -1;
	}
	return 1;
}

extern "C" void
setops_gpu_stream_wait(void)
{
	SetopsGpuStatus status;
	char		errbuf[SETOPS_GPU_ERRLEN];
	GpuPool    *pool = gpu_pool_get(0, &status, errbuf, sizeof(errbuf));

	/* (a stream follows the context's schedule flag; its error is stream_done's to say) */
	if (pool != NULL)
		(void) cudaStreamSynchronize(pool->stream);
}

extern "C" void
setops_gpu_count_many_finish(SetopsGpuSetopArgs **args, int n, SetopsGpuStatus *statuses,
							 char (*errbufs)[SETOPS_GPU_ERRLEN])
{
	SetopResults res[SETOPS_GPU_MANY];
	SetopsGpuStatus status;
	char		errbuf[SETOPS_GPU_ERRLEN] = "";
	GpuPool    *pool = gpu_pool_get(0, &status, errbuf, sizeof(errbuf));
	float		ms = 0;
	int			i;

	if (pool != NULL)
	{
		memcpy(res, pool->pinned, n * sizeof(SetopResults));
		ms = (float) gpu_elapsed_ms(pool->ev[0], pool->ev[2]);
	}
	for (i = 0; i < n; i++)
	{
		SetopsGpuSetopArgs *a = args[i];
		SetopPart	part;

		if (pool == NULL)
		{
			statuses[i] = status;
			snprintf(errbufs[i], SETOPS_GPU_ERRLEN, "%s", errbuf);
			continue;
		}
		statuses[i] = SETOPS_GPU_OK;
		errbufs[i][0] = '\0';
		a->ms_kernel = ms / n;
		part.flags = res[i].unsorted;
		part.most = count_bound(a->count_mode, a->na, a->nb);
		/* as setops_gpu_setop answers its one piece */
		if (setop_part_void(a, &part))
			statuses[i] = gpu_report_disorder(a, part.flags, errbufs[i], SETOPS_GPU_ERRLEN);
		else if ((statuses[i] = gpu_check_total(&res[i], part.most, errbufs[i],
												SETOPS_GPU_ERRLEN)) == SETOPS_GPU_OK)
			a->out_count = a->count_mode == SETOPS_GPU_COUNT_OVERLAPS && res[i].total > 0 ?
				1 : res[i].total;
	}
}

extern "C" void
setops_gpu_count_many(SetopsGpuSetopArgs **args, int n, SetopsGpuStatus *statuses,
					  char (*errbufs)[SETOPS_GPU_ERRLEN])
{
	char		errbuf[SETOPS_GPU_ERRLEN] = "";
	SetopsGpuStatus status = setops_gpu_count_many_start(args, n, errbuf, sizeof(errbuf));
	int			i;

	if (status == SETOPS_GPU_OK)
	{
		GpuPool    *pool = gpu_pool_get(0, &status, errbuf, sizeof(errbuf));
		cudaError_t err = pool ? cudaStreamSynchronize(pool->stream) : cudaSuccess;

		if (err != cudaSuccess)
			status = gpu_fail(err, "running the counts", errbuf, sizeof(errbuf));
	}
	if (status == SETOPS_GPU_OK)
	{
		setops_gpu_count_many_finish(args, n, statuses, errbufs);
		return;
	}
	for (i = 0; i < n && i < SETOPS_GPU_MANY; i++)
	{
		statuses[i] = status;
		snprintf(errbufs[i], SETOPS_GPU_ERRLEN, "%s", errbuf);
	}
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
