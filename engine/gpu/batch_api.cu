/*
 * batch_api.cu
 *	  The C API of segmented batches: many pairs in one launch
 *	  (setops_gpu_setop_batch), and the rounds of a reduction over many runs
 *	  held in device memory (setops_gpu_reduce_device).
 *
 * The host drops empty pairs (they output nothing), gives the kernels the
 * rest as int arrays, and maps each pair's output start back to the
 * caller's pairs as lengths.  One synchronisation per launch: the output
 * count and the pairs' starts come back together.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_internal.h"
#include "../common/segd.h"

/* The kernels' pair arrays, host side, for the pairs with work. */
typedef struct HostPairs
{
	int			n;
	int		   *index;			/* the caller's pair of each */
	int		   *arr;			/* a_start, a_len, b_start, b_len, work_start */
} HostPairs;

#define HP_A_START(h) ((h)->arr)
#define HP_A_LEN(h) ((h)->arr + (h)->n)
#define HP_B_START(h) ((h)->arr + 2 * (h)->n)
#define HP_B_LEN(h) ((h)->arr + 3 * (h)->n)
#define HP_WORK(h) ((h)->arr + 4 * (h)->n)

static void
host_pairs_free(HostPairs *h)
{
	free(h->index);
	free(h->arr);
	h->index = NULL;
	h->arr = NULL;
}

/*
 * Keep the pairs with work (probe: with A keys) and check that every index
 * fits an int; bound gets the most outputs.  False with a message when the
 * batch is too large for one launch (callers split batches to fit).
 */
static bool
host_pairs_build(SetopsOp op, bool probe, int64_t npairs, const int64_t *a_start,
				 const int64_t *a_len, const int64_t *b_start, const int64_t *b_len,
				 HostPairs *h, int64_t *bound, char *errbuf, size_t errlen)
{
	int64_t		i,
				n = 0,
				work = 0;

	*bound = 0;
	h->n = 0;
	h->index = (int *) malloc(sizeof(int) * (npairs + 1));
	/* five arrays of n ints, the work starts with one more */
	h->arr = (int *) malloc(sizeof(int) * (5 * npairs + 1));
	if (!h->index || !h->arr)
	{
		host_pairs_free(h);
		snprintf(errbuf, errlen, "out of host memory for a batch of %lld pairs", (long long) npairs);
		return false;
	}
	for (i = 0; i < npairs; i++)
		if (probe ? a_len[i] > 0 : a_len[i] + b_len[i] > 0)
			n++;
	h->n = (int) n;
	n = 0;
	for (i = 0; i < npairs; i++)
	{
		if (!(probe ? a_len[i] > 0 : a_len[i] + b_len[i] > 0))
			continue;
		if (a_start[i] + a_len[i] > INT_MAX || b_start[i] + b_len[i] > INT_MAX)
			break;
		h->index[n] = (int) i;
		HP_A_START(h)[n] = (int) a_start[i];
		HP_A_LEN(h)[n] = (int) a_len[i];
		HP_B_START(h)[n] = (int) b_start[i];
		HP_B_LEN(h)[n] = (int) b_len[i];
		HP_WORK(h)[n] = (int) work;
		work += probe ? a_len[i] : a_len[i] + b_len[i];
		*bound += setop_output_bound(op, a_len[i], b_len[i]);
		if (work > INT_MAX / 2)
			break;
		n++;
	}
	if (n < h->n)
	{
		host_pairs_free(h);
		snprintf(errbuf, errlen, "internal error: a batch too large for one launch");
		return false;
	}
	HP_WORK(h)[n] = (int) work;
	return true;
}

/* Device copies of the pair arrays at dev. */
static BatchPairs
device_pairs(const HostPairs *h, int *dev)
{
	BatchPairs	p;

	p.npairs = h->n;
	p.a_start = dev;
	p.a_len = dev + h->n;
	p.b_start = dev + 2 * h->n;
	p.b_len = dev + 3 * h->n;
	p.work_start = dev + 4 * h->n;
	return p;
}

/* out_start of the kept pairs -> lengths of all the caller's pairs. */
static void
lengths_from_starts(const HostPairs *h, const int *out_start, int total,
					int64_t npairs, int64_t *out_lengths)
{
	int			k;

	memset(out_lengths, 0, sizeof(int64_t) * npairs);
	for (k = 0; k < h->n; k++)
		out_lengths[h->index[k]] = (k + 1 < h->n ? out_start[k + 1] : total) - out_start[k];
}

/* Widen n ints at the start of buf to int64 in place (from the end). */
static void
widen_positions(int64_t *buf, int64_t n)
{
	const int  *src = (const int *) buf;
	int64_t		i;

	for (i = n - 1; i >= 0; i--)
		buf[i] = src[i];
}

/* Is every pair's A where a prefix of the lengths puts it (rows end to end)? */
static bool
a_end_to_end(const HostPairs *h)
{
	int			k;

	for (k = 0; k < h->n; k++)
		if (HP_A_START(h)[k] != HP_WORK(h)[k])
			return false;
	return true;
}

extern "C" SetopsGpuStatus
setops_gpu_setop_batch(SetopsGpuBatchArgs *args, char *errbuf, size_t errlen)
{
	size_t		ks = setops_key_size(args->key_type);
	bool		probe = args->b_shared &&
		(args->op == SETOPS_OP_INTERSECT || args->op == SETOPS_OP_DIFFERENCE);
	HostPairs	h;
	int64_t		bound;
	int			total_work,
				num_tiles,
				nv;
	size_t		off_b,
				off_pairs,
				off_out,
				off_pos,
				off_starts,
				off_scratch,
				need;
	SetopsGpuStatus status;
	GpuPool    *pool;
	BatchLaunchParams p;
	SetopResults res;
	cudaError_t err;
	double		t0;

	args->out_count = 0;
	args->ms_upload = args->ms_kernel = args->ms_download = 0;
	if (!gpu_ensure_init(errbuf, errlen))
		return SETOPS_GPU_UNAVAILABLE;
	if (args->a_keys > INT_MAX || args->b_keys > INT_MAX)
	{
		snprintf(errbuf, errlen, "internal error: a batch too large for one launch");
		return SETOPS_GPU_ERROR;
	}
	if (!host_pairs_build(args->op, probe, args->npairs, args->a_start, args->a_len,
						  args->b_start, args->b_len, &h, &bound, errbuf, errlen))
		return SETOPS_GPU_ERROR;
	/* the probe reads A's pairs end to end; other layouts take the tiles */
	if (probe && !a_end_to_end(&h))
	{
		host_pairs_free(&h);
		probe = false;
		if (!host_pairs_build(args->op, false, args->npairs, args->a_start, args->a_len,
							  args->b_start, args->b_len, &h, &bound, errbuf, errlen))
			return SETOPS_GPU_ERROR;
	}
	total_work = HP_WORK(&h)[h.n];
	if (total_work == 0)
	{
		memset(args->out_lengths, 0, sizeof(int64_t) * args->npairs);
		host_pairs_free(&h);
		return SETOPS_GPU_OK;
	}
	nv = batch_tile_elements(args->key_type);
	num_tiles = (int) (((int64_t) total_work + nv - 1) / nv);

	off_b = GPU_ALIGN(args->a_keys * ks);
	off_pairs = off_b + GPU_ALIGN(args->b_keys * ks);
	off_out = off_pairs + GPU_ALIGN(sizeof(int) * (5 * (size_t) h.n + 1));
	off_pos = off_out + GPU_ALIGN(bound * ks);
	off_starts = off_pos + GPU_ALIGN(args->out_pos ? bound * sizeof(int) : 0);
	off_scratch = off_starts + GPU_ALIGN(sizeof(int) * (size_t) h.n);
	need = off_scratch + batch_scratch_bytes(num_tiles);
	pool = gpu_pool_get(need, &status, errbuf, errlen);
	if (pool == NULL)
	{
		host_pairs_free(&h);
		return status;
	}

	memset(&p, 0, sizeof(p));
	p.a = pool->dev;
	p.b = pool->dev + off_b;
	p.pairs = device_pairs(&h, (int *) (pool->dev + off_pairs));
	p.num_tiles = num_tiles;
	p.out = pool->dev + off_out;
	p.out_pos = args->out_pos ? (int *) (pool->dev + off_pos) : NULL;
	p.out_start = (int *) (pool->dev + off_starts);

	t0 = gpu_host_ms();
	err = gpu_upload(pool, pool->dev, args->a, args->a_keys * ks);
	if (err == cudaSuccess)
		err = gpu_upload(pool, pool->dev + off_b, args->b, args->b_keys * ks);
	if (err == cudaSuccess)
		err = gpu_upload(pool, pool->dev + off_pairs, h.arr, sizeof(int) * (5 * (size_t) h.n + 1));
	args->ms_upload = gpu_host_ms() - t0;
	if (err == cudaSuccess)
		err = cudaEventRecord(pool->ev[3], pool->stream);
	if (err == cudaSuccess)
		err = batch_enqueue(args->op, args->key_type, probe, p, pool->dev + off_scratch, pool->stream);
	if (err == cudaSuccess)
		err = cudaEventRecord(pool->ev[2], pool->stream);
	if (err == cudaSuccess)
		err = cudaMemcpyAsync(pool->pinned, setop_results(pool->dev + off_scratch),
							  sizeof(SetopResults), cudaMemcpyDeviceToHost, pool->stream);
	if (err == cudaSuccess)
		err = cudaStreamSynchronize(pool->stream);
	if (err != cudaSuccess)
	{
		host_pairs_free(&h);
		status = gpu_status_from(err, "running a batch", errbuf, errlen);
		gpu_recover();
		return status;
	}
	res = *(SetopResults *) pool->pinned;
	if (res.total < 0 || res.total > bound)
	{
		host_pairs_free(&h);
		snprintf(errbuf, errlen, "internal error: %d outputs from a bound of %lld",
				 res.total, (long long) bound);
		return SETOPS_GPU_ERROR;
	}
	args->ms_kernel = gpu_elapsed_ms(pool->ev[3], pool->ev[2]);

	t0 = gpu_host_ms();
	{
		/* the kept pairs' starts land in the work array's place: it is done */
		int		   *starts = HP_WORK(&h);

		err = gpu_download(pool, args->out_keys, p.out, (size_t) res.total * ks);
		if (err == cudaSuccess && args->out_pos)
			err = gpu_download(pool, args->out_pos, p.out_pos, (size_t) res.total * sizeof(int));
		if (err == cudaSuccess)
			err = gpu_download(pool, starts, p.out_start, sizeof(int) * (size_t) h.n);
		if (err != cudaSuccess)
		{
			host_pairs_free(&h);
			status = gpu_status_from(err, "downloading a batch", errbuf, errlen);
			gpu_recover();
			return status;
		}
		if (args->out_pos)
			widen_positions(args->out_pos, res.total);
		lengths_from_starts(&h, starts, res.total, args->npairs, args->out_lengths);
	}
	args->ms_download = gpu_host_ms() - t0;
	args->out_count = res.total;
	host_pairs_free(&h);
	return SETOPS_GPU_OK;
}

/*
 * Rounds of op over nruns runs held end to end in cur (device): round r
 * combines runs 2k and 2k+1 into spare, an odd last run copied after, and
 * the buffers swap.  *result_in_spare says which holds the answer.
 */
extern "C" SetopsGpuStatus
setops_gpu_reduce_device(SetopsOp op, SetopsKeyType key_type, void *cur, void *spare,
						 const int64_t *lengths, int64_t nruns, int *result_in_spare,
						 int64_t *n, char *errbuf, size_t errlen)
{
	size_t		ks = setops_key_size(key_type);
	int64_t		m = nruns;
	int64_t	   *len = (int64_t *) malloc(sizeof(int64_t) * nruns * 6);
	int64_t	   *a_start = len + nruns;
	int64_t	   *a_len = a_start + nruns;
	int64_t	   *b_start = a_len + nruns;
	int64_t	   *b_len = b_start + nruns;
	int64_t	   *out_len = b_len + nruns;
	int			swapped = 0;
	SetopsGpuStatus status = SETOPS_GPU_OK;

	*n = 0;
	*result_in_spare = 0;
	if (len == NULL)
	{
		snprintf(errbuf, errlen, "out of host memory for %lld runs", (long long) nruns);
		return SETOPS_GPU_OUT_OF_MEMORY;
	}
	if (!gpu_ensure_init(errbuf, errlen))
	{
		free(len);
		return SETOPS_GPU_UNAVAILABLE;
	}
	memcpy(len, lengths, sizeof(int64_t) * nruns);
	while (m > 1 && status == SETOPS_GPU_OK)
	{
		int64_t		npairs = m / 2,
					start,
					bound = 0;
		HostPairs	h;
		int			num_tiles,
					nv = batch_tile_elements(key_type);
		size_t		off_out_start,
					off_scratch,
					need;
		GpuPool    *pool;
		BatchLaunchParams p;
		SetopResults res;
		cudaError_t err;
		int64_t		total;

		start = setops_segd_round_pairs(len, m, a_start, a_len, b_start, b_len);
		if (!host_pairs_build(op, false, npairs, a_start, a_len, b_start, b_len, &h, &bound,
							  errbuf, errlen))
		{
			status = SETOPS_GPU_ERROR;
			break;
		}
		num_tiles = (int) (((int64_t) HP_WORK(&h)[h.n] + nv - 1) / nv);
		off_out_start = GPU_ALIGN(sizeof(int) * (5 * (size_t) h.n + 1));
		off_scratch = off_out_start + GPU_ALIGN(sizeof(int) * (size_t) h.n);
		need = off_scratch + batch_scratch_bytes(num_tiles);
		pool = gpu_pool_get(need, &status, errbuf, errlen);
		if (pool == NULL)
		{
			host_pairs_free(&h);
			break;
		}
		memset(&p, 0, sizeof(p));
		p.a = cur;
		p.b = cur;
		p.pairs = device_pairs(&h, (int *) pool->dev);
		p.num_tiles = num_tiles;
		p.out = spare;
		p.out_start = (int *) (pool->dev + off_out_start);
		err = gpu_upload(pool, pool->dev, h.arr, sizeof(int) * (5 * (size_t) h.n + 1));
		if (err == cudaSuccess && num_tiles > 0)
			err = batch_enqueue(op, key_type, false, p, pool->dev + off_scratch, pool->stream);
		if (err == cudaSuccess && num_tiles > 0)
			err = cudaMemcpyAsync(pool->pinned, setop_results(pool->dev + off_scratch),
								  sizeof(SetopResults), cudaMemcpyDeviceToHost, pool->stream);
		if (err == cudaSuccess)
			err = cudaStreamSynchronize(pool->stream);
		res.total = 0;
		if (err == cudaSuccess && num_tiles > 0)
		{
			res = *(SetopResults *) pool->pinned;
			err = gpu_download(pool, HP_WORK(&h), p.out_start, sizeof(int) * (size_t) h.n);
		}
		if (err != cudaSuccess)
		{
			host_pairs_free(&h);
			status = gpu_status_from(err, "reducing runs", errbuf, errlen);
			gpu_recover();
			break;
		}
		lengths_from_starts(&h, HP_WORK(&h), res.total, npairs, out_len);
		host_pairs_free(&h);
		total = res.total;
		if (m % 2 == 1)
		{
			/* the odd run out moves on as it is */
			err = cudaMemcpyAsync((char *) spare + total * ks, (char *) cur + start * ks,
								  len[m - 1] * ks, cudaMemcpyDeviceToDevice, pool->stream);
			if (err == cudaSuccess)
				err = cudaStreamSynchronize(pool->stream);
			if (err != cudaSuccess)
			{
				status = gpu_status_from(err, "reducing runs", errbuf, errlen);
				gpu_recover();
				break;
			}
			out_len[npairs] = len[m - 1];
		}
		m = npairs + m % 2;
		memcpy(len, out_len, sizeof(int64_t) * m);
		{
			void	   *t = cur;

			cur = spare;
			spare = t;
			swapped ^= 1;
		}
		if (gpu_interrupt_fn && gpu_interrupt_fn())
			status = SETOPS_GPU_CANCELLED;
	}
	if (status == SETOPS_GPU_OK)
	{
		*n = len[0];
		*result_in_spare = swapped;
	}
	free(len);
	return status;
}
