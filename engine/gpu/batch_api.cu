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
#include <stdint.h>
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

/*
 * The batch's launch over h's pairs (probe: the shared-B kernel), at most
 * bound outputs: upload, run, read back, lengths.
 */
static SetopsGpuStatus
batch_run(SetopsGpuBatchArgs *args, bool probe, HostPairs *h, int64_t bound,
		  char *errbuf, size_t errlen)
{
	size_t		ks = setops_key_size(args->key_type);
	size_t		pairs_bytes = sizeof(int) * (5 * (size_t) h->n + 1);
	int			nv = batch_tile_elements(args->key_type);
	int			num_tiles = (int) (((int64_t) HP_WORK(h)[h->n] + nv - 1) / nv);
	size_t		end = 0;
	size_t		off_a = arena_take(&end, args->a_keys * ks);
	size_t		off_b = arena_take(&end, args->b_keys * ks);
	size_t		off_pairs = arena_take(&end, pairs_bytes);
	size_t		off_out = arena_take(&end, bound * ks);
	size_t		off_pos = arena_take(&end, args->out_pos ? bound * sizeof(int) : 0);
	size_t		off_starts = arena_take(&end, sizeof(int) * (size_t) h->n);
	size_t		off_scratch = arena_take(&end, batch_scratch_bytes(num_tiles));
	/* the kept pairs' starts land in the work array's place: it is done */
	int		   *starts = HP_WORK(h);
	SetopsGpuStatus status;
	GpuPool    *pool = gpu_pool_get(end, &status, errbuf, errlen);
	BatchLaunchParams p;
	SetopResults res;
	cudaError_t err;
	double		t0;

	if (pool == NULL)
		return status;
	memset(&p, 0, sizeof(p));
	p.a = pool->dev + off_a;
	p.b = pool->dev + off_b;
	p.pairs = device_pairs(h, (int *) (pool->dev + off_pairs));
	p.num_tiles = num_tiles;
	p.out = pool->dev + off_out;
	p.out_pos = args->out_pos ? (int *) (pool->dev + off_pos) : NULL;
	p.out_start = (int *) (pool->dev + off_starts);

	t0 = gpu_host_ms();
	err = gpu_upload(pool, (void *) p.a, args->a, args->a_keys * ks);
	if (err == cudaSuccess)
		err = gpu_upload(pool, (void *) p.b, args->b, args->b_keys * ks);
	if (err == cudaSuccess)
		err = gpu_upload(pool, pool->dev + off_pairs, h->arr, pairs_bytes);
	args->ms_upload = gpu_host_ms() - t0;
	if (err == cudaSuccess)
		err = cudaEventRecord(pool->ev[3], pool->stream);
	if (err == cudaSuccess)
		err = batch_enqueue(args->op, args->key_type, probe, p, pool->dev + off_scratch, pool->stream);
	if (err == cudaSuccess)
		err = cudaEventRecord(pool->ev[2], pool->stream);
	if (err != cudaSuccess)
		return gpu_fail(err, "running a batch", errbuf, errlen);
	status = gpu_read_results(pool, pool->dev + off_scratch, "running a batch", &res, errbuf, errlen);
	if (status == SETOPS_GPU_OK)
		status = gpu_check_total(&res, bound, errbuf, errlen);
	if (status != SETOPS_GPU_OK)
		return status;
	args->ms_kernel = gpu_elapsed_ms(pool->ev[3], pool->ev[2]);

	t0 = gpu_host_ms();
	err = gpu_download(pool, args->out_keys, p.out, (size_t) res.total * ks);
	if (err == cudaSuccess && args->out_pos)
		err = gpu_download(pool, args->out_pos, p.out_pos, (size_t) res.total * sizeof(int));
	if (err == cudaSuccess)
		err = gpu_download(pool, starts, p.out_start, sizeof(int) * (size_t) h->n);
	if (err != cudaSuccess)
		return gpu_fail(err, "downloading a batch", errbuf, errlen);
	if (args->out_pos)
		widen_positions(args->out_pos, res.total);
	lengths_from_starts(h, starts, res.total, args->npairs, args->out_lengths);
	args->ms_download = gpu_host_ms() - t0;
	args->out_count = res.total;
	return SETOPS_GPU_OK;
}

extern "C" SetopsGpuStatus
setops_gpu_setop_batch(SetopsGpuBatchArgs *args, char *errbuf, size_t errlen)
{
	bool		probe = args->b_shared &&
		(args->op == SETOPS_OP_INTERSECT || args->op == SETOPS_OP_DIFFERENCE);
	HostPairs	h;
	int64_t		bound;
	SetopsGpuStatus status;

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
	if (HP_WORK(&h)[h.n] == 0)
	{
		memset(args->out_lengths, 0, sizeof(int64_t) * args->npairs);
		status = SETOPS_GPU_OK;
	}
	else
		status = batch_run(args, probe, &h, bound, errbuf, errlen);
	host_pairs_free(&h);
	return status;
}

/*
 * A segment's keys copied within device memory: words (4 bytes) from src
 * to dst, both in words from their region's start.
 */
typedef struct SegmentMove
{
	int64_t		src;
	int64_t		dst;
	int64_t		words;
} SegmentMove;

/* Each block copies whole segments (rows of a batch: about equal work). */
__global__ void
segment_move_kernel(const uint32_t *src, uint32_t *dst, const SegmentMove *moves, int n)
{
	for (int s = blockIdx.x; s < n; s += gridDim.x)
	{
		SegmentMove m = moves[s];

		for (int64_t w = threadIdx.x; w < m.words; w += blockDim.x)
			dst[m.dst + w] = src[m.src + w];
	}
}

/*
 * The tiles load their inputs in 16-byte vectors from each input's first
 * key: a batch's rows lie end to end at any key, so where some row does
 * not start on 16 bytes, every row moves to a start of its own that does
 * (moves, and the aligned region's bytes; false when all start aligned).
 * Offsets in bytes, from the uploaded region's start, become the aligned
 * region's.
 */
static bool
plan_aligned_starts(size_t *offsets, const int *lengths, size_t ks, int n,
					SegmentMove *moves, size_t *bytes)
{
	size_t		at = 0;
	int			s;
	bool		need = false;

	for (s = 0; s < n && !need; s++)
		need = offsets[s] % 16 != 0;
	*bytes = 0;
	if (!need)
		return false;
	for (s = 0; s < n; s++)
	{
		moves[s].src = (int64_t) (offsets[s] / 4);
		moves[s].dst = (int64_t) (at / 4);
		moves[s].words = (int64_t) ((size_t) lengths[s] * ks / 4);
		offsets[s] = at;
		at += ((size_t) lengths[s] * ks + 15) & ~(size_t) 15;
	}
	*bytes = at;
	return true;
}

/*
 * Counts of a batch: every pair with keys is a segment of one segmented
 * count launch (count_many_enqueue, the service's shared trips), its
 * tiles laid end to end so that a pair of many keys spans many blocks and
 * small pairs share them; pairs with no keys answer 0 here.  A and B are
 * uploaded once (a shared B is one copy that every segment reads).  A
 * pair whose A is already on the device (a_dev: a cached row, cudaMalloc'd
 * hence 16-byte aligned) points its segment there: nothing of it is
 * uploaded or moved.
 */
extern "C" SetopsGpuStatus
setops_gpu_count_batch(SetopsGpuBatchArgs *args, int count_mode, char *errbuf, size_t errlen)
{
	size_t		ks = setops_key_size(args->key_type);
	int64_t		np = args->npairs,
				i,
				tiles = 0;
	int			nsegs = 0;
	CountSegment *segs;
	int64_t    *pair_of;
	SetopResults *res;
	size_t	   *a_at,			/* each segment's keys, bytes into its region */
			   *b_at;
	int		   *a_n,
			   *b_n;
	SegmentMove *moves;
	bool		a_move,
				b_move;
	CountMany	m;
	size_t		end = 0,
				a_bytes,
				b_bytes,
				off_a,
				off_b,
				off_a_moved = 0,
				off_b_moved = 0,
				off_moves = 0,
				off_segs,
				off_results,
				off_bounds;
	GpuPool    *pool;
	SetopsGpuStatus status = SETOPS_GPU_OK;
	cudaError_t err;
	double		t0;

	args->out_count = 0;
	args->ms_upload = args->ms_kernel = args->ms_download = 0;
	if (!gpu_ensure_init(errbuf, errlen))
		return SETOPS_GPU_UNAVAILABLE;
	if (count_mode < SETOPS_GPU_COUNT_INTERSECT || count_mode > SETOPS_GPU_COUNT_CONTAINS ||
		args->a_keys > INT_MAX / 2 || args->b_keys > INT_MAX / 2 || np > INT_MAX / 2)
	{
		snprintf(errbuf, errlen, "internal error: a count batch of %lld pairs, %lld + %lld keys, mode %d",
				 (long long) np, (long long) args->a_keys, (long long) args->b_keys, count_mode);
		return SETOPS_GPU_ERROR;
	}
	memset(args->out_lengths, 0, sizeof(int64_t) * np);
	segs = (CountSegment *) malloc(sizeof(CountSegment) * (np + 1));
	pair_of = (int64_t *) malloc(sizeof(int64_t) * (np + 1));
	res = (SetopResults *) malloc(sizeof(SetopResults) * (np + 1));
	a_at = (size_t *) malloc(sizeof(size_t) * 2 * (np + 1));
	b_at = a_at ? a_at + np + 1 : NULL;
	a_n = (int *) malloc(sizeof(int) * 2 * (np + 1));
	b_n = a_n ? a_n + np + 1 : NULL;
	moves = (SegmentMove *) malloc(sizeof(SegmentMove) * 2 * (np + 1));
	if (!segs || !pair_of || !res || !a_at || !a_n || !moves)
	{
		snprintf(errbuf, errlen, "out of host memory for a count batch of %lld pairs", (long long) np);
		status = SETOPS_GPU_ERROR;
		goto done;
	}

	/* the segments, their keys as offsets until the arena is placed */
	for (i = 0; i < np; i++)
	{
		CountSegment *c = &segs[nsegs];
		bool		on_device = args->a_dev && args->a_dev[i];

		if (args->a_len[i] + args->b_len[i] == 0)
			continue;
		if ((!on_device &&
			 (args->a_start[i] < 0 || args->a_start[i] + args->a_len[i] > args->a_keys)) ||
			(on_device && ((uintptr_t) args->a_dev[i] % SETOPS_GPU_ROW_ALIGN != 0 || args->a_len[i] > INT_MAX / 2)) ||
			args->b_start[i] < 0 || args->b_start[i] + args->b_len[i] > args->b_keys)
		{
			snprintf(errbuf, errlen, "internal error: pair %lld of a count batch lies outside its keys",
					 (long long) i);
			status = SETOPS_GPU_ERROR;
			goto done;
		}
		/* (a cached row: nothing in the region, so nothing to move) */
		a_at[nsegs] = on_device ? 0 : (size_t) args->a_start[i] * ks;
		c->na = (int) args->a_len[i];
		a_n[nsegs] = on_device ? 0 : c->na;
		b_at[nsegs] = (size_t) args->b_start[i] * ks;
		c->nb = b_n[nsegs] = (int) args->b_len[i];
		c->tile_start = (int) tiles;
		c->result = nsegs;
		c->stride_shift = partition_stride_shift(c->na, c->nb);
		tiles += count_tiles(args->key_type, c->na, c->nb);
		if (tiles + nsegs + 1 > INT_MAX / 2)
		{
			snprintf(errbuf, errlen, "internal error: a count batch too large for one launch");
			status = SETOPS_GPU_ERROR;
			goto done;
		}
		pair_of[nsegs++] = i;
	}
	if (nsegs == 0)
		goto done;

	a_move = plan_aligned_starts(a_at, a_n, ks, nsegs, moves, &a_bytes);
	b_move = plan_aligned_starts(b_at, b_n, ks, nsegs, moves + (a_move ? nsegs : 0), &b_bytes);
	off_a = arena_take(&end, args->a_keys * ks);
	off_b = arena_take(&end, args->b_keys * ks);
	if (a_move)
		off_a_moved = arena_take(&end, a_bytes);
	if (b_move)
		off_b_moved = arena_take(&end, b_bytes);
	if (a_move || b_move)
		off_moves = arena_take(&end, sizeof(SegmentMove) * (size_t) nsegs * (a_move + b_move));
	off_segs = arena_take(&end, sizeof(CountSegment) * (size_t) nsegs);
	off_results = arena_take(&end, sizeof(SetopResults) * (size_t) nsegs);
	off_bounds = arena_take(&end, sizeof(int) * (size_t) (tiles + nsegs));
	pool = gpu_pool_get(end, &status, errbuf, errlen);
	if (pool == NULL)
		goto done;
	for (i = 0; i < nsegs; i++)
	{
		const void *cached = args->a_dev ? args->a_dev[pair_of[i]] : NULL;

		segs[i].a = cached ? (const char *) cached :
			pool->dev + (a_move ? off_a_moved : off_a) + a_at[i];
		segs[i].b = pool->dev + (b_move ? off_b_moved : off_b) + b_at[i];
	}
	memset(&m, 0, sizeof(m));
	m.key_type = args->key_type;
	m.count_mode = count_mode;
	m.duplicates = true;		/* rows are multisets: nothing known */
	m.inputs_sorted = true;		/* the caller checked every pair */
	m.segs = (const CountSegment *) (pool->dev + off_segs);
	m.nsegs = nsegs;
	m.num_tiles = (int) tiles;
	m.boundaries = (int *) (pool->dev + off_bounds);
	m.results = (SetopResults *) (pool->dev + off_results);

	t0 = gpu_host_ms();
	err = gpu_upload(pool, pool->dev + off_a, args->a, args->a_keys * ks);
	if (err == cudaSuccess)
		err = gpu_upload(pool, pool->dev + off_b, args->b, args->b_keys * ks);
	if (err == cudaSuccess)
		err = gpu_upload(pool, pool->dev + off_segs, segs, sizeof(CountSegment) * (size_t) nsegs);
	if (err == cudaSuccess && (a_move || b_move))
		err = gpu_upload(pool, pool->dev + off_moves, moves,
						 sizeof(SegmentMove) * (size_t) nsegs * (a_move + b_move));
	args->ms_upload = gpu_host_ms() - t0;
	if (err == cudaSuccess)
		err = cudaEventRecord(pool->ev[3], pool->stream);
	for (int side = 0; side < 2 && err == cudaSuccess; side++)
	{
		bool		move = side == 0 ? a_move : b_move;
		const SegmentMove *dm = (const SegmentMove *) (pool->dev + off_moves) +
			(side == 1 && a_move ? nsegs : 0);

		if (!move)
			continue;
		segment_move_kernel<<<nsegs < 8192 ? nsegs : 8192, 256, 0, pool->stream>>>(
			(const uint32_t *) (pool->dev + (side == 0 ? off_a : off_b)),
			(uint32_t *) (pool->dev + (side == 0 ? off_a_moved : off_b_moved)), dm, nsegs);
		err = cudaGetLastError();
	}
	if (err == cudaSuccess)
		err = count_many_enqueue(&m, pool->stream);
	if (err == cudaSuccess)
		err = cudaEventRecord(pool->ev[2], pool->stream);
	t0 = gpu_host_ms();
	if (err == cudaSuccess)
		err = gpu_download(pool, res, pool->dev + off_results, sizeof(SetopResults) * (size_t) nsegs);
	if (err == cudaSuccess)
		err = cudaStreamSynchronize(pool->stream);
	if (err != cudaSuccess)
	{
		status = gpu_fail(err, "running a count batch", errbuf, errlen);
		goto done;
	}
	args->ms_kernel = gpu_elapsed_ms(pool->ev[3], pool->ev[2]);
	args->ms_download = gpu_host_ms() - t0;
	for (i = 0; i < nsegs && status == SETOPS_GPU_OK; i++)
	{
		if (res[i].unsorted)
		{
			snprintf(errbuf, errlen, "internal error: pair %lld of a count batch is out of order",
					 (long long) pair_of[i]);
			status = SETOPS_GPU_ERROR;
			break;
		}
		status = gpu_check_total(&res[i], count_bound(count_mode, segs[i].na, segs[i].nb),
								 errbuf, errlen);
		args->out_lengths[pair_of[i]] =
			count_mode == SETOPS_GPU_COUNT_OVERLAPS && res[i].total > 0 ? 1 : res[i].total;
	}
done:
	free(segs);
	free(pair_of);
	free(res);
	free(a_at);
	free(a_n);
	free(moves);
	return status;
}

/*
 * One round of a reduction: h's pairs of runs in cur combined into spare,
 * *total outputs, the pairs' output starts in h's work array; *pool_out
 * the pool it ran in.
 */
static SetopsGpuStatus
reduce_round(SetopsOp op, SetopsKeyType key_type, void *cur, void *spare, HostPairs *h,
			 GpuPool **pool_out, int *total, char *errbuf, size_t errlen)
{
	size_t		pairs_bytes = sizeof(int) * (5 * (size_t) h->n + 1);
	int			nv = batch_tile_elements(key_type);
	int			num_tiles = (int) (((int64_t) HP_WORK(h)[h->n] + nv - 1) / nv);
	size_t		end = 0;
	size_t		off_pairs = arena_take(&end, pairs_bytes);
	size_t		off_out_start = arena_take(&end, sizeof(int) * (size_t) h->n);
	size_t		off_scratch = arena_take(&end, batch_scratch_bytes(num_tiles));
	SetopsGpuStatus status;
	GpuPool    *pool = gpu_pool_get(end, &status, errbuf, errlen);
	BatchLaunchParams p;
	SetopResults res;

	*total = 0;
	if (pool == NULL)
		return status;
	*pool_out = pool;
	memset(&p, 0, sizeof(p));
	p.a = cur;
	p.b = cur;
	p.pairs = device_pairs(h, (int *) (pool->dev + off_pairs));
	p.num_tiles = num_tiles;
	p.out = spare;
	p.out_start = (int *) (pool->dev + off_out_start);
	CHECK_CUDA(gpu_upload(pool, pool->dev + off_pairs, h->arr, pairs_bytes), "reducing runs");
	if (num_tiles == 0)
	{
		/* no work in any pair: nothing to launch */
		CHECK_CUDA(cudaStreamSynchronize(pool->stream), "reducing runs");
		return SETOPS_GPU_OK;
	}
	CHECK_CUDA(batch_enqueue(op, key_type, false, p, pool->dev + off_scratch, pool->stream),
			   "reducing runs");
	status = gpu_read_results(pool, pool->dev + off_scratch, "reducing runs", &res, errbuf, errlen);
	if (status != SETOPS_GPU_OK)
		return status;
	CHECK_CUDA(gpu_download(pool, HP_WORK(h), p.out_start, sizeof(int) * (size_t) h->n),
			   "reducing runs");
	*total = res.total;
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
		GpuPool    *pool = NULL;
		int			total;

		start = setops_segd_round_pairs(len, m, a_start, a_len, b_start, b_len);
		if (!host_pairs_build(op, false, npairs, a_start, a_len, b_start, b_len, &h, &bound,
							  errbuf, errlen))
		{
			status = SETOPS_GPU_ERROR;
			break;
		}
		status = reduce_round(op, key_type, cur, spare, &h, &pool, &total, errbuf, errlen);
		if (status == SETOPS_GPU_OK)
			lengths_from_starts(&h, HP_WORK(&h), total, npairs, out_len);
		host_pairs_free(&h);
		if (status != SETOPS_GPU_OK)
			break;
		if (m % 2 == 1)
		{
			/* the odd run out moves on as it is */
			cudaError_t err = cudaMemcpyAsync((char *) spare + (int64_t) total * ks,
											  (char *) cur + start * ks, len[m - 1] * ks,
											  cudaMemcpyDeviceToDevice, pool->stream);

			if (err == cudaSuccess)
				err = cudaStreamSynchronize(pool->stream);
			if (err != cudaSuccess)
			{
				status = gpu_fail(err, "reducing runs", errbuf, errlen);
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
