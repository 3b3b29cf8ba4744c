/*
 * batch.c
 *	  Many set operations at once: the batches of the per-row window
 *	  functions and the rounds of the aggregates' final reduction.
 *
 * A batch runs on the GPU (one segmented launch per piece through the GPU
 * service) when the GPU is chosen for its element total, else on the CPU
 * engine pair by pair.  Either way each pair's answer is the plain
 * function's.
 */
#include "postgres.h"

#include "miscadmin.h"

#include "setops.h"
#include "args/args.h"
#include "exec/exec.h"
#include "service/client.h"
#include "engine/cpu/engine.h"

int64
setops_batch_output_bound(const SetopsBatch *batch)
{
	int64		bound = 0,
				i;

	for (i = 0; i < batch->as.nsegs; i++)
		bound += setop_output_bound(batch->op, batch->as.lengths[i], batch->bs.lengths[i]);
	return bound;
}

/* Elements the batch reads: what decides CPU or GPU. */
static int64
batch_elements(const SetopsBatch *batch)
{
	/* a shared B is read once per pair on the CPU, about once on the GPU */
	return batch->as.total + (batch->b_shared ? batch->bs.lengths[0] : batch->bs.total);
}

static int64
cpu_batch(const SetopsBatch *batch, void *out, int64 *out_lengths, int64 *out_pos)
{
	return setops_cpu_setop_segmented(batch->op, batch->type, batch->a, &batch->as,
									  batch->b, &batch->bs, out, out_lengths, out_pos);
}

/* A pair's segment as an argument: plain keys, sorted (callers checked). */
static SetopsKeys
segment_keys(SetopsKeyType type, const void *data, int64 n, int argno)
{
	SetopsKeys	k = {.form = SETOPS_KEYS_PLAIN, .type = type, .n = n, .data = data,
					 .argno = argno, .sorted_known = true, .first_unsorted = -1};

	return k;
}

/*
 * Pair p's keys as arguments (plain, sorted: callers checked; a stored
 * row of A read and checked first, stored_row_read).
 */
static void
pair_keys(const SetopsBatch *batch, int64 p, SetopsKeys *a, SetopsKeys *b)
{
	size_t		ks = setops_key_size(batch->type);

	if (batch->a_rows && batch->a_rows[p])
		*a = segment_keys(batch->type, batch->a_rows[p]->data, batch->a_rows[p]->n, 1);
	else
		*a = segment_keys(batch->type, (const char *) batch->a + batch->as.starts[p] * ks,
						  batch->as.lengths[p], 1);
	*b = segment_keys(batch->type, (const char *) batch->b + batch->bs.starts[p] * ks,
					  batch->bs.lengths[p], 2);
}

/*
 * A stored row of A left unread (batch->a_rows), read now: its keys plain,
 * their order checked as the plain function checks it (the reader left it
 * unread only with B in order, so the row's own break is the error).  True
 * when that answered the pair (*answer): overlaps over an order break, as
 * the plain function answers it.
 */
static bool
stored_row_read(const char *fname, SetopsCountKind kind, const SetopsBatch *batch, int64 p,
				int64 *answer)
{
	SetopsKeys *row = batch->a_rows[p];
	SetopsKeys	a,
				b;

	setops_keys_make_plain(row, fname);
	/* the request was laid out by the count the header gave */
	if (row->n != batch->as.lengths[p])
		elog(ERROR, "%s: argument %d has %lld keys, not the %lld its header said",
			 fname, row->argno, (long long) row->n, (long long) batch->as.lengths[p]);
	if (setops_keys_in_order(row))
		return false;
	if (kind != SETOPS_COUNT_OVERLAPS)
		setops_require_sorted(fname, row);
	pair_keys(batch, p, &a, &b);
	a.sorted_known = b.sorted_known = false;
	*answer = setops_run_count(fname, SETOPS_COUNT_OVERLAPS, &a, &b) != 0;
	return true;
}

/* Pair p's stored row of A, not yet read? */
static inline bool
stored_row_unread(const SetopsBatch *batch, int64 p)
{
	return batch->a_rows && batch->a_rows[p] && batch->a_rows[p]->form == SETOPS_KEYS_STORED;
}

/*
 * The GPU's answer through the service, slot-sized requests of whole
 * pairs; a pair too large for a slot goes alone through the plain path
 * (keys) or the CPU engine (positions).  False when the GPU failed and the
 * CPU is to answer (auto mode).
 */
static bool
gpu_batch(const char *fname, const SetopsBatch *batch, void *out, int64 *out_lengths,
		  int64 *out_pos, int64 *n)
{
	size_t		ks = setops_key_size(batch->type);
	int64		p = 0,
				k = 0;
	char		errbuf[SETOPS_GPU_ERRLEN];

	while (p < batch->as.nsegs)
	{
		int64		next,
					m;
		SetopsGpuStatus status = setops_service_batch(batch, p, &next, (char *) out + k * ks,
													  out_lengths, out_pos ? out_pos + k : NULL,
													  &m, errbuf, sizeof(errbuf));

		if (status != SETOPS_GPU_OK)
		{
			setops_gpu_failed(fname, status, errbuf);
			return false;
		}
		if (next == p)
		{
			SetopsKeys	ka,
						kb;

			pair_keys(batch, p, &ka, &kb);
			if (out_pos == NULL)
				m = setops_run_setop(fname, batch->op, &ka, &kb, (char *) out + k * ks);
			else
				m = setops_cpu_setop(batch->op, batch->type, ka.data, ka.n, kb.data, kb.n,
									 (char *) out + k * ks, out_pos + k);
			out_lengths[p] = m;
			next = p + 1;
		}
		k += m;
		p = next;
		CHECK_FOR_INTERRUPTS();
	}
	setops_last.on_gpu = true;
	*n = k;
	return true;
}

/* The engine's count mode for kind. */
static int
gpu_count_mode(SetopsCountKind kind)
{
	return kind == SETOPS_COUNT_OVERLAPS ? SETOPS_GPU_COUNT_OVERLAPS :
		kind == SETOPS_COUNT_CONTAINS ? SETOPS_GPU_COUNT_CONTAINS : SETOPS_GPU_COUNT_INTERSECT;
}

/*
 * The counts on the CPU engine, pair by pair: the engine's count, overlaps
 * and contains gallop where sizes are far apart.
 */
static void
cpu_count_batch(const char *fname, SetopsCountKind kind, const SetopsBatch *batch,
				int64 *answers)
{
	void	   *scratch = palloc(SETOPS_CPU_COUNT_SCRATCH * setops_key_size(batch->type));
	int64		p;
	double		t0 = setops_now_ms();

	for (p = 0; p < batch->as.nsegs; p++)
	{
		SetopsKeys	a,
					b;

		if (stored_row_unread(batch, p) && stored_row_read(fname, kind, batch, p, &answers[p]))
			continue;
		pair_keys(batch, p, &a, &b);
		if (kind == SETOPS_COUNT_OVERLAPS)
			answers[p] = setops_cpu_overlaps(a.type, a.data, a.n, b.data, b.n);
		else if (kind == SETOPS_COUNT_CONTAINS)
			answers[p] = setops_cpu_contains(a.type, a.data, a.n, b.data, b.n);
		else
			answers[p] = setops_cpu_intersect_count(a.type, a.data, a.n, b.data, b.n, scratch);
		/* the rows were checked in order: a break here is the engine's fault */
		if (answers[p] < 0)
			elog(ERROR, "%s: the CPU engine saw an order break in pair %lld that the order check did not find",
				 fname, (long long) p);
		if ((p & 255) == 255)
			CHECK_FOR_INTERRUPTS();
	}
	pfree(scratch);
	setops_last.cpu_ms += setops_now_ms() - t0;
}

/*
 * The device cache's room for one partition's stored rows: half of what
 * the cache holds (setops.gpu_cache_size, by default a quarter of the
 * GPUs' memory), so that one batch over a table larger than the cache
 * cannot evict everything it put, nor everything else, in one run.  An
 * 80 GB H100's default cache (about 20 GB) holds some 970,000 rows of
 * 5,500 int4 keys (22 KB each; a 141 GB H200 some 1.7 million); one run
 * puts up to half of that, and later runs find them there.
 */
int64
setops_batch_cache_budget(int64 *budget)
{
	if (*budget < 0)
	{
		SetopsCacheStats stats[SETOPS_MAX_DEVICES];
		int			n = setops_service_cache_stats(stats),
					d;

		*budget = 0;
		for (d = 0; d < n; d++)
			*budget += stats[d].capacity / 2;
	}
	return *budget;
}

static int64
cache_budget_of(const SetopsBatch *batch)
{
	return setops_batch_cache_budget(batch->cache_budget);
}

/*
 * The stored rows of pairs [p, next) that go by identity and that the
 * device cache did not hold (answers[i] SETOPS_BATCH_MISSING; all: every
 * such row): read, checked, and with put, put into the cache while the
 * partition's budget (cache_budget_of) lasts; a row the cache does not
 * take (past the budget, too large, or not kept) then goes by its keys.
 * A row its check answers (overlaps over an order break) keeps the answer
 * in answered[] (1 + it) and crosses empty.  False when the GPU failed (auto: the
 * CPU answers).
 */
static bool
missing_rows(const char *fname, SetopsCountKind kind, const SetopsBatch *batch, int64 p,
			 int64 next, bool all, bool put, int64 *answers, int8 *answered)
{
	size_t		ks = setops_key_size(batch->type);
	int64		i,
				nput = 0;
	const SetopsCacheKey **put_keys = NULL;
	const void **put_data = NULL;
	int64	   *put_n = NULL,
			   *put_row = NULL;
	bool	   *kept = NULL;
	char		errbuf[SETOPS_GPU_ERRLEN];
	SetopsGpuStatus status;

	for (i = p; i < next; i++)
	{
		SetopsKeys *row;
		int64		bytes,
					answer;

		if (!batch->a_rows || !batch->a_identity[i] ||
			(!all && answers[i] != SETOPS_BATCH_MISSING))
			continue;
		row = batch->a_rows[i];
		batch->a_identity[i] = false;
		if (stored_row_unread(batch, i) && stored_row_read(fname, kind, batch, i, &answer))
		{
			answered[i] = 1 + (answer != 0);
			continue;
		}
		bytes = row->n * (int64) ks;
		if (!put || bytes > cache_budget_of(batch))
			continue;
		*batch->cache_budget -= bytes;
		if (put_keys == NULL)
		{
			put_keys = palloc(sizeof(SetopsCacheKey *) * (next - i));
			put_data = palloc(sizeof(void *) * (next - i));
			put_n = palloc(sizeof(int64) * (next - i));
			put_row = palloc(sizeof(int64) * (next - i));
			kept = palloc(sizeof(bool) * (next - i));
		}
		/* (read and checked above: the cache takes it as it is) */
		put_keys[nput] = row->cache_key;
		put_data[nput] = row->data;
		put_n[nput] = row->n;
		put_row[nput++] = i;
		CHECK_FOR_INTERRUPTS();
	}
	if (nput == 0)
		return true;
	/* the rows put in one trip a slot, together on one device */
	status = setops_service_cache_put_rows(batch->type, nput, put_keys, put_data, put_n, kept,
										   errbuf, sizeof(errbuf));
	if (status != SETOPS_GPU_OK && status != SETOPS_GPU_UNAVAILABLE &&
		status != SETOPS_GPU_TOO_LARGE)
	{
		setops_gpu_failed(fname, status, errbuf);
		return false;
	}
	for (i = 0; i < nput; i++)
	{
		batch->a_identity[put_row[i]] = status == SETOPS_GPU_OK && kept[i];
		if (batch->rows_put && batch->a_identity[put_row[i]])
			(*batch->rows_put)++;
	}
	pfree(put_keys);
	pfree(put_data);
	pfree(put_n);
	pfree(put_row);
	pfree(kept);
	return true;
}

/*
 * The GPU's counts through the service, slot-sized requests of whole
 * pairs; a pair too large for a slot goes alone through the plain count
 * (which may split it).  Stored rows go by their identity: those the
 * device cache misses are put into it and the request asked again; a row
 * missed again (evicted meanwhile) sends every stored row of the request
 * by its keys, so that the third request is answered.  False when the GPU
 * failed and the CPU is to answer (auto mode).
 */
static bool
gpu_count_batch(const char *fname, SetopsCountKind kind, const SetopsBatch *batch,
				int64 *answers, SetopsCountFlight *flight)
{
	int64		p = 0;
	char		errbuf[SETOPS_GPU_ERRLEN];
	int8	   *answered = batch->a_rows ? palloc0(batch->as.nsegs) : NULL;

	while (p < batch->as.nsegs)
	{
		int64		next,
					missing = 0,
					i;
		int			round;
		SetopsGpuStatus status = SETOPS_GPU_OK;

		for (round = 0; round < 3; round++)
		{
			/* (the first request's first round may be in flight already) */
			if (p == 0 && round == 0 && flight != NULL && flight->slot != NULL)
			{
				if (flight->last > batch->as.nsegs)
					elog(ERROR, "%s: internal error: a request in flight for %lld pairs of %lld",
						 fname, (long long) flight->last, (long long) batch->as.nsegs);
				next = flight->last;
				status = setops_service_count_batch_end(flight, answers, &missing, errbuf,
														sizeof(errbuf));
			}
			else
				status = setops_service_count_batch(batch, gpu_count_mode(kind), p, round > 0,
													&next, answers, &missing, errbuf,
													sizeof(errbuf));
			if (status != SETOPS_GPU_OK || missing == 0)
				break;
			if (!missing_rows(fname, kind, batch, p, next, round > 0, round == 0, answers,
							  answered))
				return false;
		}
		if (status == SETOPS_GPU_OK && missing != 0)
		{
			snprintf(errbuf, sizeof(errbuf),
					 "internal error: %lld rows missed with none sent by identity",
					 (long long) missing);
			status = SETOPS_GPU_ERROR;
		}
		if (status != SETOPS_GPU_OK)
		{
			setops_gpu_failed(fname, status, errbuf);
			return false;
		}
		if (next == p)
		{
			SetopsKeys	a,
						b;

			if (!(stored_row_unread(batch, p) &&
				  stored_row_read(fname, kind, batch, p, &answers[p])))
			{
				pair_keys(batch, p, &a, &b);
				answers[p] = setops_run_count(fname, kind, &a, &b);
			}
			next = p + 1;
		}
		else if (kind == SETOPS_COUNT_CONTAINS)
		{
			/* the device's contains: the parts where b has a key a lacks */
			for (i = p; i < next; i++)
				answers[i] = answers[i] == 0;
		}
		/* rows their check answered (overlaps over an order break) */
		for (i = p; answered && i < next; i++)
			if (answered[i])
				answers[i] = answered[i] - 1;
		p = next;
		CHECK_FOR_INTERRUPTS();
	}
	if (answered)
		pfree(answered);
	setops_last.on_gpu = true;
	return true;
}

void
setops_run_count_batch(const char *fname, SetopsCountKind kind, const SetopsBatch *batch,
					   int64 *answers)
{
	Assert(batch->as.nsegs == batch->bs.nsegs);
	if (batch->as.nsegs == 0)
		return;
	if (setops_gpu_usable(fname, batch_elements(batch)) &&
		gpu_count_batch(fname, kind, batch, answers, NULL))
		return;
	cpu_count_batch(fname, kind, batch, answers);
}

/*
 * setops_run_count_batch in two steps: begin sends the batch's first
 * request to the GPU service when the GPU is to answer, and returns at
 * once; finish answers every pair, as setops_run_count_batch would,
 * waiting for that request first.  The caller works in between (reads
 * the next chunk of rows), the batch and answers left as they are.
 */
void
setops_count_batch_begin(const char *fname, SetopsCountKind kind, const SetopsBatch *batch,
						 SetopsCountFlight *flight)
{
	memset(flight, 0, sizeof(*flight));
	if (batch->as.nsegs > 0 && setops_gpu_usable(fname, batch_elements(batch)))
		(void) setops_service_count_batch_begin(batch, gpu_count_mode(kind), flight);
}

void
setops_count_batch_finish(const char *fname, SetopsCountKind kind, const SetopsBatch *batch,
						  int64 *answers, SetopsCountFlight *flight)
{
	if (flight->slot == NULL)
	{
		setops_run_count_batch(fname, kind, batch, answers);
		return;
	}
	if (!gpu_count_batch(fname, kind, batch, answers, flight))
		cpu_count_batch(fname, kind, batch, answers);
}

void
setops_count_batch_abandon(SetopsCountFlight *flight)
{
	setops_service_count_batch_abandon(flight);
}

/* The GPU's reduction through the service; false when the CPU is to answer. */
static bool
gpu_reduce(const char *fname, SetopsOp op, SetopsKeyType type, const void *keys,
		   const int64 *lengths, int64 nruns, int64 total, SetopsReduceAlloc alloc,
		   void *arg, void **result, int64 *n)
{
	char		errbuf[SETOPS_GPU_ERRLEN];
	SetopsGpuStatus status;

	/* beyond one launch's indices, or lengths beyond a slot: the CPU rounds */
	if (!setops_service_reduce_fits(type, total, nruns))
		return false;
	status = setops_service_reduce(op, type, keys, lengths, nruns, total, alloc, arg,
								   result, n, errbuf, sizeof(errbuf));
	if (status != SETOPS_GPU_OK)
	{
		setops_gpu_failed(fname, status, errbuf);
		return false;
	}
	setops_last.on_gpu = true;
	return true;
}

int64
setops_run_batch(const char *fname, const SetopsBatch *batch, void *out,
				 int64 *out_lengths, int64 *out_pos)
{
	int64		n;

	Assert(batch->as.nsegs == batch->bs.nsegs);
	if (batch->as.nsegs == 0)
		return 0;
	if (setops_gpu_usable(fname, batch_elements(batch)) &&
		gpu_batch(fname, batch, out, out_lengths, out_pos, &n))
		return n;
	return cpu_batch(batch, out, out_lengths, out_pos);
}

/* The CPU engine's rounds into palloc'd buffers; the result's buffer. */
void *
setops_reduce_on_cpu(SetopsOp op, SetopsKeyType type, const void *keys, const int64 *lengths,
					 int64 nruns, int64 total, int64 *n)
{
	size_t		ks = setops_key_size(type);
	size_t		bytes = (total + SETOPS_CPU_OUTPUT_SLACK) * ks;
	char	   *buf[2];
	int64	   *scratch = palloc_extended(sizeof(int64) * 4 * nruns, MCXT_ALLOC_HUGE);
	int			r;

	buf[0] = palloc_extended(bytes, MCXT_ALLOC_HUGE);
	buf[1] = nruns > 2 ? palloc_extended(bytes, MCXT_ALLOC_HUGE) : NULL;
	setops_advise_huge_pages(buf[0], bytes);
	if (buf[1])
		setops_advise_huge_pages(buf[1], bytes);
	r = setops_cpu_reduce_rounds(op, type, keys, lengths, nruns, buf[0], buf[1], scratch, n);
	pfree(scratch);
	if (r < 0)
	{
		/* one run: the answer is a copy of it */
		memcpy(buf[0], keys, total * ks);
		return buf[0];
	}
	/* the buffer not holding the answer goes */
	if (buf[1])
		pfree(buf[r ^ 1]);
	return buf[r];
}

void *
setops_run_reduce_into(const char *fname, SetopsOp op, SetopsKeyType type,
					   const void *keys, const int64 *lengths, int64 nruns,
					   SetopsReduceAlloc alloc, void *arg, int64 *n)
{
	int64		total = 0,
				i;
	void	   *result;
	void	   *cpu;
	double		t0;

	Assert(op == SETOPS_OP_INTERSECT || op == SETOPS_OP_UNION || op == SETOPS_OP_MERGE);
	Assert(nruns > 0);
	for (i = 0; i < nruns; i++)
		total += lengths[i];
	if (nruns > 1 && setops_gpu_usable(fname, total) &&
		gpu_reduce(fname, op, type, keys, lengths, nruns, total, alloc, arg, &result, n))
		return result;
	t0 = setops_now_ms();
	cpu = setops_reduce_on_cpu(op, type, keys, lengths, nruns, total, n);
	setops_last.cpu_ms += setops_now_ms() - t0;
	t0 = setops_now_ms();
	result = alloc(*n, arg);
	memcpy(result, cpu, *n * setops_key_size(type));
	pfree(cpu);
	setops_last.result_ms += setops_now_ms() - t0;
	return result;
}

/* setops_run_reduce's buffer: the answer with the engine's slack. */
typedef struct PlainAlloc
{
	SetopsKeyType type;
	void	   *p;				/* to free if the GPU fails after allocating */
} PlainAlloc;

static void *
reduce_alloc_plain(int64 n, void *arg)
{
	PlainAlloc *a = (PlainAlloc *) arg;
	Size		bytes = (n + SETOPS_CPU_OUTPUT_SLACK) * setops_key_size(a->type);

	a->p = palloc_extended(bytes, MCXT_ALLOC_HUGE);
	setops_advise_huge_pages(a->p, bytes);
	return a->p;
}

void *
setops_run_reduce(const char *fname, SetopsOp op, SetopsKeyType type,
				  const void *keys, const int64 *lengths, int64 nruns, int64 *n)
{
	int64		total = 0,
				i;
	void	   *result;

	for (i = 0; i < nruns; i++)
		total += lengths[i];
	/* the CPU's rounds hand over their buffer as it is: no copy */
	if (nruns > 1 && setops_gpu_usable(fname, total))
	{
		PlainAlloc	a = {type, NULL};

		if (gpu_reduce(fname, op, type, keys, lengths, nruns, total, reduce_alloc_plain, &a,
					   &result, n))
			return result;
		if (a.p)
			pfree(a.p);
	}
	return setops_reduce_on_cpu(op, type, keys, lengths, nruns, total, n);
}
