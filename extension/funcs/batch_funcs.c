/*
 * batch_funcs.c
 *	  array_intersect_batch and friends: the four operations per row, as
 *	  window functions, many rows to one batch.
 *
 * At the first row of a partition, and whenever the current row passes the
 * rows already computed, the function reads rows ahead of the current one
 * (a chunk, bounded by rows, input elements and output bound), checks each
 * row's arguments as the plain function does, concatenates them into one
 * batch and runs it with setops_run_batch.  The chunk's results stay in
 * partition memory and each row gets its own, built as the plain function
 * builds it.  Row i's result is array_X_gpu(a_i, b_i) exactly: NULL when an
 * argument is NULL (the plain functions are STRICT), the same ERRORs.
 *
 * The frame is ignored: a row's result depends only on its own arguments.
 *
 * When every row of a chunk has the same B (a constant, a parameter, or
 * equal bytes) the batch keeps one copy of it (b_shared): the typical use
 * probes every row against one large constant.
 *
 * The counts, similarity and predicates (array_intersect_count_batch ...
 * array_contained_by_batch) read their chunks the same way (one reader,
 * read_chunk), packed arguments too, and ask the engine only for each
 * pair's answer (setops_run_count_batch): the key-rank intersection count,
 * from which each function's value follows as in count_funcs.c, or the
 * predicate of overlaps and contains.
 */
#include "postgres.h"

#include "access/detoast.h"
#include "access/htup_details.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "windowapi.h"

#include "setops.h"
#include "args/args.h"
#include "exec/exec.h"
#include "test_hooks.h"

/*
 * Planted defects for the tests (builds with the test hooks only): the
 * server's SETOPS_TEST_MUTATE names one.  simcache-read: count batches
 * read every stored row (the cache never answers one); simcache-answer:
 * rows answered from the cache are off by one; simcache-stale: a row's
 * identity remembered by its place in the partition from one run to the
 * next while its size stays (an updated row answers as it was).
 */
static SetopsCacheKey stale_keys[256];	/* simcache-stale */

static bool
mutated(const char *what)
{
#ifdef SETOPS_TEST_HOOKS
	const char *env = getenv("SETOPS_TEST_MUTATE");

	return env != NULL && strcmp(env, what) == 0;
#else
	return false;
#endif
}

PG_FUNCTION_INFO_V1(setops_intersect_batch);
PG_FUNCTION_INFO_V1(setops_union_batch);
PG_FUNCTION_INFO_V1(setops_difference_batch);
PG_FUNCTION_INFO_V1(setops_symdiff_batch);
PG_FUNCTION_INFO_V1(setops_intersect_batch_pairs);
PG_FUNCTION_INFO_V1(setops_union_batch_pairs);
PG_FUNCTION_INFO_V1(setops_difference_batch_pairs);
PG_FUNCTION_INFO_V1(setops_symdiff_batch_pairs);
PG_FUNCTION_INFO_V1(setops_intersect_count_batch);
PG_FUNCTION_INFO_V1(setops_union_count_batch);
PG_FUNCTION_INFO_V1(setops_difference_count_batch);
PG_FUNCTION_INFO_V1(setops_symdiff_count_batch);
PG_FUNCTION_INFO_V1(setops_jaccard_batch);
PG_FUNCTION_INFO_V1(setops_overlaps_batch);
PG_FUNCTION_INFO_V1(setops_contains_batch);
PG_FUNCTION_INFO_V1(setops_contained_by_batch);

/*
 * A chunk ends before the row that finds one of these reached: rows, input
 * keys copied (A's, and B's unless shared) and the outputs' bound.  A chunk
 * always takes at least one row, however large.
 */
#define BATCH_MAX_ROWS		65536
static int	batch_max_rows = BATCH_MAX_ROWS;	/* (a test hook may lower it) */
/*
 * A count partition's first chunk, when parallel readers may follow it:
 * its rows are read by the backend alone before the readers can know the
 * cache lacks the rest (on an H200, 3,000 rows of 22 KB took 170 ms).
 */
#define BATCH_FIRST_ROWS	256
#define BATCH_MAX_ELEMENTS	((int64) 16 * 1024 * 1024)
#define BATCH_MAX_OUTPUTS	((int64) 32 * 1024 * 1024)

/* A buffer that grows by doubling (huge allocations allowed) in cxt. */
typedef struct GrowBuf
{
	char	   *data;
	Size		used;
	Size		cap;
	MemoryContext cxt;
} GrowBuf;

static void *
grow_reserve(GrowBuf *buf, Size bytes)
{
	if (buf->used + bytes > buf->cap)
	{
		Size		cap = Max(buf->cap * 2, Max(buf->used + bytes, (Size) 1024));

		buf->data = buf->data ? repalloc_huge(buf->data, cap) :
			MemoryContextAllocExtended(buf->cxt, cap, MCXT_ALLOC_HUGE);
		buf->cap = cap;
	}
	buf->used += bytes;
	return buf->data + buf->used - bytes;
}

static void
grow_append(GrowBuf *buf, const void *src, Size bytes)
{
	if (bytes > 0)
		memcpy(grow_reserve(buf, bytes), src, bytes);
}

/* Append a copy of the buffer's first bytes (reserved first: it may move). */
static void
grow_repeat_head(GrowBuf *buf, Size bytes)
{
	char	   *dst;

	if (bytes == 0)
		return;
	dst = grow_reserve(buf, bytes);
	memcpy(dst, buf->data, bytes);
}

static void
grow_append_i64(GrowBuf *buf, int64 v)
{
	*(int64 *) grow_reserve(buf, sizeof(int64)) = v;
}

/* A row's place in its chunk, besides its pair in the batch (0 on) */
#define ROW_NULL	(-1)		/* an argument is NULL: so is the result */
#define ROW_TRUE	(-2)		/* answered true while read (overlaps) */

/* A chunk of a partition's rows, read and computed together. */
typedef struct BatchChunk
{
	MemoryContext cxt;			/* the chunk's results: reset for each chunk */
	int64		first;			/* partition position of the chunk's first row */
	int64		nrows;			/* rows in the chunk (0: none read yet) */
	SetopsKeyType type;
	int64	   *pair_of;		/* per row: its pair in the batch, or ROW_* */
	int64		npairs;
	int64	   *answers;		/* counts: per pair, the engine's answer */
	int64	   *a_start;		/* per pair: the batch's descriptors */
	int64	   *a_len;
	int64	   *b_start;
	int64	   *b_len;
	int64	   *out_start;		/* per pair: its outputs */
	int64	   *out_len;
	char	   *out;
	int64	   *out_pos;		/* pairs: each output's source */
	/* pairs: the values, laid out as their keys */
	SetopsValues vals;			/* element type and stride of both sides */
	char	   *a_vals;
	char	   *b_vals;
	/* counts: stored rows of A left unread (SetopsBatch.a_rows) */
	SetopsKeys **a_rows;
	bool	   *a_identity;
	/* counts: the batch, and its request while the GPU counts it */
	SetopsBatch batch;
	SetopsCountFlight flight;
} BatchChunk;

/*
 * Partition-local state: the chunk of the current row and, for counts,
 * the next one, read ahead while the GPU counted the current one (its
 * request sent once the current one's answers came).
 */
typedef struct BatchPart
{
	BatchChunk *cur;			/* NULL: not set up yet */
	BatchChunk *ahead;			/* NULL: none read ahead */
	BatchChunk	chunks[2];
	MemoryContext rowcxt;		/* one row's arguments while reading */
	int64		cache_budget;	/* the partition's, for the device cache (-1: unset) */
	int64		rows_put;		/* stored rows its chunks put into the cache */
	bool		first_done;		/* its first chunk answered */
	bool		reading_ahead;	/* a first run: its rows read ahead (read_slice_ahead) */
	int64		read_to;		/* the position up to which they were */
	double		began_ms;		/* when it was set up */
	bool		read_ahead;		/* setops.batch_read_ahead when it began */
	MemoryContextCallback on_end;	/* requests still in flight abandoned */
} BatchPart;

/* What a row's value is made of. */
typedef enum BatchResult
{
	RESULT_SETOP,				/* op's result array (or pairs' record) */
	RESULT_OP_COUNT,			/* op's result size, from the intersection count */
	RESULT_JACCARD,				/* from the intersection count */
	RESULT_PREDICATE,			/* the engine's overlaps or contains */
	RESULT_CONTAINED_BY			/* from the intersection count */
} BatchResult;

/* What one call is: the operation and its argument numbers (0-based). */
typedef struct BatchCall
{
	BatchResult result;
	SetopsOp	op;				/* RESULT_SETOP, RESULT_OP_COUNT */
	SetopsCountKind count_kind; /* counts: what the engine answers a pair */
	const char *fname;
	bool		pairs;
	bool		b_first;		/* B's order checked first, as the plain function does */
	int			a_arg,
				av_arg,			/* pairs only */
				b_arg,
				bv_arg;			/* pairs only */
	bool		a_packed,		/* declared packed_int4/8 (counts only) */
				b_packed;
	bool		b_stable;		/* B (and its values) the same in every row */
} BatchCall;

/* One row's B side, as read. */
typedef struct BSide
{
	SetopsKeys	keys;
	SetopsValues vals;
} BSide;

/* The same keys (and values) as the shared copy? */
static bool
same_b(const BSide *b, const char *shared_keys, const char *shared_vals, int64 nb,
	   size_t ks, bool pairs)
{
	if (b->keys.n != nb)
		return false;
	if (memcmp(b->keys.data, shared_keys, nb * ks) != 0)
		return false;
	return !pairs || memcmp(b->vals.data, shared_vals, nb * (Size) b->vals.stride) == 0;
}

/*
 * Argument argno of row r (relative to the current row), copied into the
 * current memory context: the datum WinGetFuncArgInPartition returns lies
 * in a tuple that its next call frees.
 */
static Datum
fetch_arg(WindowObject winobj, int argno, int64 r, bool *isnull, bool *isout)
{
	Datum		d = WinGetFuncArgInPartition(winobj, argno, (int) r, WINDOW_SEEK_CURRENT,
											 false, isnull, isout);

	if (*isnull || (isout && *isout))
		return (Datum) 0;
	return datumCopy(d, false, -1);
}

/* The row's value arguments must be of the one type the chunk has. */
static void
note_vals_type(BatchChunk *st, const SetopsValues *v, bool *known)
{
	if (!*known)
	{
		st->vals = *v;
		st->vals.data = NULL;
		st->vals.n = 0;
		*known = true;
	}
	else if (v->elemtype != st->vals.elemtype)
		elog(ERROR, "setops: value arrays of one call changed type");
}

/* A row's key argument as declared: an array, or a packed value (checked). */
static void
read_row_keys(const BatchCall *call, Datum arg, int argidx, bool packed, SetopsKeys *keys)
{
	if (packed)
		setops_read_packed(arg, argidx + 1, call->fname, keys);
	else
		setops_read_keys(arg, argidx + 1, call->fname, keys);
}

/*
 * The row's order checks, in the plain function's order.  True when that
 * answered the row: overlaps over an order break is answered as the plain
 * function answers it (a key in both is an answer in any order, else the
 * error), which setops_run_count does for arguments found out of order.
 */
static bool
check_row_order(const BatchCall *call, SetopsKeys *a, SetopsKeys *b)
{
	if (call->result != RESULT_SETOP && call->count_kind == SETOPS_COUNT_OVERLAPS &&
		(!setops_keys_in_order(a) || !setops_keys_in_order(b)))
		return setops_run_count(call->fname, SETOPS_COUNT_OVERLAPS, a, b) != 0;
	if (call->b_first)
		setops_require_sorted2(call->fname, b, a);
	else
		setops_require_sorted2(call->fname, a, b);
	return false;
}

/*
 * Read the chunk of rows starting at the current one into st: each row's
 * pair (or ROW_*) and the batch of their keys (and values), a B shared by
 * every pair held once.  Every row is checked as the plain function checks
 * it.  *bound gets the operation's outputs' bound (RESULT_SETOP).
 */
static void
read_chunk_rows(WindowObject winobj, FunctionCallInfo fcinfo, BatchPart *part, BatchChunk *st,
				int64 start, const BatchCall *call, SetopsBatch *batch, int64 *bound_out)
{
	int64		cur = start;
	/* (arguments are fetched relative to the current row) */
	int64		ahead = start - WinGetCurrentPosition(winobj);
	MemoryContext old;
	GrowBuf		rows,
				a_keys,
				b_keys,
				a_vals,
				b_vals,
				a_start,
				a_len,
				b_start,
				b_len,
				a_rows;
	int64		r,
				npairs = 0,
				a_total = 0,
				b_total = 0,
				bound = 0,
				nb_shared = 0;
	bool		b_shared = true,
				type_known = false,
				vals_known = false,
				any_stored = false;
	/* counts: rows this large stored out of line may stay unread (-1: none) */
	int64		min_stored = call->result != RESULT_SETOP && !call->pairs &&
		!mutated("simcache-read") ? setops_identity_min_keys() : -1;
	bool		stale_mutant = mutated("simcache-stale");	/* (asked once a chunk) */
	int64		max_rows = min_stored >= 0 && !part->first_done && setops_batch_read_workers > 0 ?
		Min(batch_max_rows, BATCH_FIRST_ROWS) : batch_max_rows;
	Oid			a_type = get_fn_expr_argtype(fcinfo->flinfo, call->a_arg);
	size_t		ks = 0;
	/* a stable B is read once, at the chunk's first row with no NULL */
	BSide		stable_b;
	bool		stable_read = false;
	Datum		stable_arg[4];
	bool		stable_null[4],
				stable_fetched[4] = {false, false, false, false};

	MemoryContextReset(st->cxt);
	/* every buffer of the chunk lives in its context */
	memset(&rows, 0, sizeof(GrowBuf));
	rows.cxt = st->cxt;
	a_keys = b_keys = a_vals = b_vals = a_start = a_len = b_start = b_len = a_rows = rows;
	st->first = cur;
	st->nrows = 0;
	old = MemoryContextSwitchTo(st->cxt);

	for (r = 0; r < max_rows; r++)
	{
		Datum		arg[4];
		bool		isnull[4] = {false, false, false, false},
					isout = false;
		bool		anynull;
		SetopsKeys	a,
				   *stored = NULL;
		SetopsValues av;
		BSide		rowb,
				   *b;
		bool		b_is_shared;
		int			i,
					nargs = call->pairs ? 4 : 2;

		if (a_total + (b_shared ? nb_shared : b_total) >= BATCH_MAX_ELEMENTS ||
			bound >= BATCH_MAX_OUTPUTS)
			break;
		if ((r & 255) == 255)
			CHECK_FOR_INTERRUPTS();

		/* the row's arguments, each copied (the next fetch frees the tuple) */
		MemoryContextReset(part->rowcxt);
		MemoryContextSwitchTo(part->rowcxt);
		arg[call->a_arg] = fetch_arg(winobj, call->a_arg, ahead + r, &isnull[call->a_arg], &isout);
		if (isout)
			break;				/* the partition ends */
		anynull = isnull[call->a_arg];
		for (i = 0; i < nargs && !anynull; i++)
		{
			bool		b_side = i == call->b_arg || i == call->bv_arg;

			if (i == call->a_arg)
				continue;
			if (b_side && call->b_stable)
			{
				/*
				 * A stable B: any row's is every row's, fetched once, into
				 * the chunk's context (its keys are read in place and serve
				 * every row: in the row's context the next row freed them)
				 */
				if (!stable_fetched[i])
				{
					MemoryContextSwitchTo(st->cxt);
					stable_arg[i] = fetch_arg(winobj, i, ahead + r, &stable_null[i], NULL);
					MemoryContextSwitchTo(part->rowcxt);
					stable_fetched[i] = true;
				}
				arg[i] = stable_arg[i];
				isnull[i] = stable_null[i];
			}
			else
				arg[i] = fetch_arg(winobj, i, ahead + r, &isnull[i], NULL);
			anynull |= isnull[i];
		}
		st->nrows = r + 1;
		if (anynull)
		{
			/* STRICT as the plain function: NULL, nothing else read */
			grow_append_i64(&rows, ROW_NULL);
			continue;
		}

		/*
		 * A stored row stays unread (for the chunk, by its identity): the
		 * device cache may hold it.
		 */
		if (min_stored >= 0)
		{
			MemoryContextSwitchTo(st->cxt);
			stored = palloc(sizeof(SetopsKeys));
			if (!setops_read_stored_identity(datumCopy(arg[call->a_arg], false, -1), a_type,
											 call->a_arg + 1, true, stored, min_stored))
			{
				pfree(stored);
				stored = NULL;
			}
			else if (stale_mutant && cur + r < lengthof(stale_keys))
			{
				SetopsCacheKey *k = &stale_keys[cur + r];

				if (k->rawsize == stored->cache_key->rawsize)
					*stored->cache_key = *k;
				*k = *stored->cache_key;
			}
			MemoryContextSwitchTo(part->rowcxt);
		}

		/* read and check as the plain function does, in its order */
		if (stored)
			a = *stored;
		else
			read_row_keys(call, arg[call->a_arg], call->a_arg, call->a_packed, &a);
		if (call->pairs)
			setops_read_values(fcinfo, arg[call->av_arg], call->av_arg + 1, call->fname,
							   a.n, call->a_arg + 1, &av);
		if (call->b_stable && stable_read)
			b = &stable_b;
		else
		{
			b = call->b_stable ? &stable_b : &rowb;
			/* a stable B lives for the chunk */
			if (call->b_stable)
				MemoryContextSwitchTo(st->cxt);
			read_row_keys(call, arg[call->b_arg], call->b_arg, call->b_packed, &b->keys);
			if (call->pairs)
				setops_read_values(fcinfo, arg[call->bv_arg], call->bv_arg + 1, call->fname,
								   b->keys.n, call->b_arg + 1, &b->vals);
			/* packed: decoded (a stable B once), after both were read */
			setops_keys_make_plain(&b->keys, call->fname);
			MemoryContextSwitchTo(part->rowcxt);
			stable_read = call->b_stable;
		}
		/* the shared B again: its order was checked with the first */
		b_is_shared = npairs > 0 && b_shared &&
			(call->b_stable || same_b(b, b_keys.data, b_vals.data, nb_shared, ks, call->pairs));
		if (b_is_shared && !b->keys.sorted_known)
		{
			b->keys.sorted_known = true;
			b->keys.first_unsorted = -1;
		}
		/*
		 * A stored row's order is checked when it is read or put into the
		 * cache (exec/batch.c), which can only report the row's own break
		 * as the plain function does: with B in order.  Else it is read now.
		 */
		if (stored && !setops_keys_in_order(&b->keys))
		{
			pfree(stored);
			stored = NULL;
		}
		if (!stored)
			setops_keys_make_plain(&a, call->fname);
		if (!stored && check_row_order(call, &a, &b->keys))
		{
			grow_append_i64(&rows, ROW_TRUE);
			continue;
		}

		if (!type_known)
		{
			st->type = a.type;
			ks = setops_key_size(a.type);
			type_known = true;
		}
		if (call->pairs)
		{
			note_vals_type(st, &av, &vals_known);
			note_vals_type(st, &b->vals, &vals_known);
		}

		MemoryContextSwitchTo(st->cxt);
		if (npairs == 0)
		{
			/* the first B: the shared copy, at 0 */
			nb_shared = b->keys.n;
			grow_append(&b_keys, b->keys.data, nb_shared * ks);
			if (call->pairs)
				grow_append(&b_vals, b->vals.data, nb_shared * (Size) b->vals.stride);
		}
		else if (!b_is_shared)
		{
			if (b_shared)
			{
				int64		p;

				/*
				 * B differs: earlier pairs get copies of the shared one,
				 * unless those copies would pass the chunk's bound: then
				 * this row starts the next chunk.
				 */
				if (a_total + (npairs + 1) * nb_shared + b->keys.n >= BATCH_MAX_ELEMENTS)
				{
					st->nrows = r;
					break;
				}
				b_shared = false;
				for (p = 1; p < npairs; p++)
				{
					((int64 *) b_start.data)[p] = p * nb_shared;
					grow_repeat_head(&b_keys, nb_shared * ks);
					if (call->pairs)
						grow_repeat_head(&b_vals, nb_shared * (Size) st->vals.stride);
				}
				b_total = npairs * nb_shared;
			}
			grow_append(&b_keys, b->keys.data, b->keys.n * ks);
			if (call->pairs)
				grow_append(&b_vals, b->vals.data, b->keys.n * (Size) st->vals.stride);
		}

		/* the pair */
		grow_append_i64(&rows, npairs);
		/* (a stored row's keys are not in the batch: starts count those that are) */
		grow_append_i64(&a_start, (int64) (a_keys.used / Max(ks, 1)));
		grow_append_i64(&a_len, a.n);
		if (stored)
			any_stored = true;
		else
			grow_append(&a_keys, a.data, a.n * ks);
		grow_append(&a_rows, &stored, sizeof(stored));
		if (call->pairs)
			grow_append(&a_vals, av.data, a.n * (Size) st->vals.stride);
		a_total += a.n;
		if (b_shared)
		{
			grow_append_i64(&b_start, 0);
			grow_append_i64(&b_len, nb_shared);
		}
		else
		{
			grow_append_i64(&b_start, b_total);
			grow_append_i64(&b_len, b->keys.n);
			b_total += b->keys.n;
		}
		if (call->result == RESULT_SETOP)
			bound += setop_output_bound(call->op, a.n, b_shared ? nb_shared : b->keys.n);
		npairs++;
	}
	MemoryContextReset(part->rowcxt);
	MemoryContextSwitchTo(old);

	st->pair_of = (int64 *) rows.data;
	st->npairs = npairs;
	st->a_start = (int64 *) a_start.data;
	st->a_len = (int64 *) a_len.data;
	st->b_start = (int64 *) b_start.data;
	st->b_len = (int64 *) b_len.data;
	st->a_vals = a_vals.data;
	st->b_vals = b_vals.data;
	st->a_rows = any_stored ? (SetopsKeys **) a_rows.data : NULL;
	st->a_identity = NULL;
	if (any_stored)
	{
		st->a_identity = MemoryContextAlloc(st->cxt, sizeof(bool) * npairs);
		for (r = 0; r < npairs; r++)
			st->a_identity[r] = st->a_rows[r] != NULL;
	}
	if (!type_known)
		st->type = SETOPS_KEY_INT64;	/* no pair: nothing runs */

	memset(batch, 0, sizeof(*batch));
	batch->op = call->op;
	batch->type = st->type;
	batch->a = a_keys.data;
	batch->as.nsegs = npairs;
	batch->as.lengths = st->a_len;
	batch->as.starts = st->a_start;
	batch->as.total = a_total;
	batch->b = b_keys.data;
	batch->bs.nsegs = npairs;
	batch->bs.lengths = st->b_len;
	batch->bs.starts = st->b_start;
	/* the sum of the lengths, as for any descriptor; a shared B is held once */
	batch->bs.total = b_shared ? npairs * nb_shared : b_total;
	batch->b_shared = b_shared && npairs > 0;
	batch->a_rows = st->a_rows;
	batch->a_identity = st->a_identity;
	batch->cache_budget = &part->cache_budget;
	batch->rows_put = &part->rows_put;
	*bound_out = bound;
}

/* The chunk's keys are no longer needed once it ran. */
static void
free_chunk_keys(SetopsBatch *batch)
{
	if (batch->a)
		pfree((void *) batch->a);
	if (batch->b)
		pfree((void *) batch->b);
}

/*
 * read_chunk_rows, the TOAST table of the rows' identities held open
 * through the chunk (stored_value.c): an ERROR forgets it, the abort
 * closes it.
 */
static void
read_chunk(WindowObject winobj, FunctionCallInfo fcinfo, BatchPart *part, BatchChunk *st,
		   int64 start, const BatchCall *call, SetopsBatch *batch, int64 *bound_out)
{
	SetopsIdentityHold outer;

	setops_identity_hold_begin(&outer);
	PG_TRY();
	{
		read_chunk_rows(winobj, fcinfo, part, st, start, call, batch, bound_out);
	}
	PG_CATCH();
	{
		setops_identity_hold_forget(&outer);
		PG_RE_THROW();
	}
	PG_END_TRY();
	setops_identity_hold_end(&outer);
}

/* Read the chunk starting at the current row, run its operation, keep the results. */
static void
load_chunk(WindowObject winobj, FunctionCallInfo fcinfo, BatchPart *part, BatchChunk *st,
		   int64 start, const BatchCall *call)
{
	SetopsBatch batch;
	int64		bound,
				npairs;
	size_t		ks;
	MemoryContext old;

	read_chunk(winobj, fcinfo, part, st, start, call, &batch, &bound);
	npairs = st->npairs;
	ks = setops_key_size(st->type);
	old = MemoryContextSwitchTo(st->cxt);
	st->out_len = palloc(sizeof(int64) * Max(npairs, 1));
	st->out_start = palloc(sizeof(int64) * Max(npairs, 1));
	st->out = palloc_extended((bound + SETOPS_CPU_OUTPUT_SLACK) * ks, MCXT_ALLOC_HUGE);
	st->out_pos = call->pairs ?
		palloc_extended((bound + SETOPS_CPU_OUTPUT_SLACK) * sizeof(int64), MCXT_ALLOC_HUGE) :
		NULL;
	MemoryContextSwitchTo(old);

	setops_run_batch(call->fname, &batch, st->out, st->out_len, st->out_pos);
	if (npairs > 0)
		(void) setops_segd_scan(st->out_len, npairs, st->out_start);

	/* the values are still needed, for gathering */
	free_chunk_keys(&batch);
}

/*
 * Counts: read the chunk starting at start (its batch kept in st);
 * count_chunk_begin sends its request to the GPU when it goes there,
 * count_chunk_finish answers it.
 */
static void
count_chunk_read(WindowObject winobj, FunctionCallInfo fcinfo, BatchPart *part,
				 BatchChunk *st, int64 start, const BatchCall *call)
{
	int64		bound;

	/* (never a chunk whose request is in flight; if one were, it is given up) */
	setops_count_batch_abandon(&st->flight);
	read_chunk(winobj, fcinfo, part, st, start, call, &st->batch, &bound);
	st->answers = MemoryContextAlloc(st->cxt, sizeof(int64) * Max(st->npairs, 1));
}

static void
count_chunk_begin(BatchChunk *st, const BatchCall *call)
{
	setops_count_batch_begin(call->fname, call->count_kind, &st->batch, &st->flight);
}

static void
count_chunk_finish(BatchChunk *st, const BatchCall *call)
{
	setops_count_batch_finish(call->fname, call->count_kind, &st->batch, st->answers,
							  &st->flight);
	if (st->batch.a_rows && mutated("simcache-answer"))
	{
		int64		p;

		for (p = 0; p < st->npairs; p++)
			if (st->batch.a_identity[p])
				st->answers[p]++;
	}
	free_chunk_keys(&st->batch);
	st->batch.a = st->batch.b = NULL;
}

/*
 * A first run's rows read ahead into the device cache by parallel readers
 * (exec/batch_readers.c), so that the partition's later chunks find them
 * there: after its first chunk, when that chunk had to put most of its
 * stored rows, and then a slice of READ_SLICE_ROWS at a time as the chunks
 * come near the end of what was read (so that a LIMIT reads at most a
 * slice ahead, and the readers' shared memory stays small), while the
 * readers keep finding most rows missing and the cache budget lasts.
 * Only the rows' TOAST pointers are gathered here; a row the readers skip
 * is read by its chunk as before.
 */
#define READ_SLICE_ROWS		131072

/* Did the partition's first chunk find its stored rows missing? */
static bool
first_run_shown(const BatchPart *part, const BatchChunk *first)
{
	int64		stored = 0,
				p;

	if (first->a_rows == NULL)
		return false;
	for (p = 0; p < first->npairs; p++)
		stored += first->a_rows[p] != NULL;
	/* (a few rows put are no sign of a first run; a test's chunks are small) */
	return stored >= Min(16, batch_max_rows / 2) && part->rows_put * 2 >= stored;
}

/* Read the slice of the partition's rows from position from. */
static void
read_slice_ahead(WindowObject winobj, FunctionCallInfo fcinfo, BatchPart *part, int64 from,
				 const BatchCall *call)
{
	int64		r,
				n = 0,
				bytes = 0,
				cap = 1024,
				min_keys = setops_identity_min_keys(),
				budget = setops_batch_cache_budget(&part->cache_budget),
				put;
	/* (rows are fetched relative to the current row) */
	int64		ahead = from - WinGetCurrentPosition(winobj);
	struct varatt_external *rows;
	MemoryContext old;
	double		t0 = setops_now_ms();
	bool		isout = false;

	if (setops_batch_read_workers <= 0 || min_keys < 0 || budget <= 0)
	{
		part->reading_ahead = false;
		return;
	}
	old = MemoryContextSwitchTo(part->rowcxt);
	rows = palloc(sizeof(struct varatt_external) * cap);
	for (r = 0; r < READ_SLICE_ROWS && bytes < budget; r++)
	{
		bool		isnull;
		Datum		d = WinGetFuncArgInPartition(winobj, call->a_arg, (int) (ahead + r),
												 WINDOW_SEEK_CURRENT, false, &isnull, &isout);
		struct varlena *ptr = (struct varlena *) DatumGetPointer(d);

		if (isout)
			break;
		if ((r & 1023) == 1023)
			CHECK_FOR_INTERRUPTS();
		if (isnull || !VARATT_IS_EXTERNAL_ONDISK(ptr))
			continue;
		if (n == cap)
		{
			cap *= 2;
			rows = repalloc(rows, sizeof(struct varatt_external) * cap);
		}
		VARATT_EXTERNAL_GET_POINTER(rows[n], ptr);
		bytes += VARATT_EXTERNAL_GET_EXTSIZE(rows[n]);
		n++;
	}
	MemoryContextSwitchTo(old);
	part->read_to = from + r;
	ereport(DEBUG1,
			(errmsg_internal("%s: rows %lld to %lld of the partition (%lld stored, %.1f ms after "
							 "it began) to read ahead, gathered in %.1f ms",
							 call->fname, (long long) from, (long long) (from + r),
							 (long long) n, t0 - part->began_ms, setops_now_ms() - t0)));
	put = setops_batch_read_rows(call->fname, get_fn_expr_argtype(fcinfo->flinfo, call->a_arg),
								 min_keys, rows, n, &part->cache_budget);
	MemoryContextReset(part->rowcxt);
	/* (the partition's end, the budget's, or the cache held most of them already) */
	if (isout || bytes >= budget || put * 2 < n)
		part->reading_ahead = false;
}

/* A partition's end (or abort) with a chunk's request still in flight. */
static void
abandon_flights(void *arg)
{
	BatchPart  *part = (BatchPart *) arg;

	setops_count_batch_abandon(&part->chunks[0].flight);
	setops_count_batch_abandon(&part->chunks[1].flight);
}

/* The argument numbers of a call, and whether its B is the same in every row. */
static void
call_args(FunctionCallInfo fcinfo, BatchCall *call, bool pairs)
{
	call->pairs = pairs;
	call->a_arg = 0;
	call->av_arg = pairs ? 1 : -1;
	call->b_arg = pairs ? 2 : 1;
	call->bv_arg = pairs ? 3 : -1;
	call->a_packed = call->b_packed = false;
	call->b_stable = get_fn_expr_arg_stable(fcinfo->flinfo, call->b_arg) &&
		(!pairs || get_fn_expr_arg_stable(fcinfo->flinfo, call->bv_arg));
}

/*
 * The current row's pair in its chunk (or ROW_*), *stp its chunk: read
 * and run when the row is not in the one held.  Counts read ahead
 * (setops.batch_read_ahead) from a partition's second chunk on: while the
 * GPU counts a chunk, the next one is read (its rows checked: an error in
 * them is raised then), and its request is sent once the first one's
 * answers came, so that the GPU counts it while this chunk's rows are
 * returned and the one after is read.
 */
static int64
current_row(FunctionCallInfo fcinfo, const BatchCall *call, BatchChunk **stp)
{
	WindowObject winobj = PG_WINDOW_OBJECT();
	BatchPart  *part;
	BatchChunk *st;
	int64		cur;
	bool		counts = call->result != RESULT_SETOP;

	Assert(WindowObjectIsValid(winobj));
	part = (BatchPart *) WinGetPartitionLocalMemory(winobj, sizeof(BatchPart));
	if (part->cur == NULL)
	{
		/* children of the partition's context: they go with the partition */
		MemoryContext pcxt = GetMemoryChunkContext(part);

		part->chunks[0].cxt = AllocSetContextCreate(pcxt, "setops batch", ALLOCSET_DEFAULT_SIZES);
		part->chunks[1].cxt = AllocSetContextCreate(pcxt, "setops batch", ALLOCSET_DEFAULT_SIZES);
		part->rowcxt = AllocSetContextCreate(pcxt, "setops batch row", ALLOCSET_DEFAULT_SIZES);
		part->cache_budget = -1;
		part->began_ms = setops_now_ms();
		/* (fixed for the partition: a chunk read ahead is always answered) */
		part->read_ahead = setops_batch_read_ahead;
		part->cur = &part->chunks[0];
		part->on_end.func = abandon_flights;
		part->on_end.arg = part;
		MemoryContextRegisterResetCallback(pcxt, &part->on_end);
	}

	cur = WinGetCurrentPosition(winobj);
	/* rows before this one are done with */
	WinSetMarkPosition(winobj, cur);
	st = part->cur;
	if (st->nrows == 0 || cur < st->first || cur >= st->first + st->nrows)
	{
		BatchChunk *next = st == &part->chunks[0] ? &part->chunks[1] : &part->chunks[0];
		/* (from the partition's second chunk on: one chunk reads as before) */
		bool		read_ahead = counts && part->read_ahead && st->nrows > 0;

		if (part->ahead != NULL && part->ahead->first == cur)
		{
			/* read ahead, its request sent: the two chunks change places */
			next = st;
			st = part->cur = part->ahead;
		}
		else
		{
			if (part->ahead != NULL)
				setops_count_batch_abandon(&part->ahead->flight);
			if (!counts)
				load_chunk(winobj, fcinfo, part, st, cur, call);
			else
			{
				count_chunk_read(winobj, fcinfo, part, st, cur, call);
				count_chunk_begin(st, call);
			}
		}
		part->ahead = NULL;
		if (counts)
		{
			/* the next chunk read while the GPU counts this one */
			if (read_ahead)
				count_chunk_read(winobj, fcinfo, part, next, st->first + st->nrows, call);
			count_chunk_finish(st, call);
			if (!part->first_done)
			{
				part->first_done = true;
				part->reading_ahead = first_run_shown(part, st);
				part->read_to = st->first + st->nrows;
			}
			/* (a slice ahead again once the chunks come within a quarter of its end) */
			if (part->reading_ahead &&
				part->read_to - (st->first + st->nrows) < READ_SLICE_ROWS / 4)
				read_slice_ahead(winobj, fcinfo, part, part->read_to, call);
			if (read_ahead && next->nrows > 0)
			{
				count_chunk_begin(next, call);
				part->ahead = next;
			}
		}
	}
	Assert(cur >= st->first && cur < st->first + st->nrows);
	*stp = st;
	return st->pair_of[cur - st->first];
}

/* The window function: row i's result out of its chunk. */
static Datum
batch_call(FunctionCallInfo fcinfo, SetopsOp op, const char *fname, bool pairs)
{
	BatchChunk *st;
	BatchCall	call;
	int64		p;
	size_t		ks;
	SetopsResult keys;
	Datum		result;

	memset(&call, 0, sizeof(call));
	call.result = RESULT_SETOP;
	call.op = op;
	call.fname = fname;
	call_args(fcinfo, &call, pairs);

	p = current_row(fcinfo, &call, &st);
	if (p < 0)
		PG_RETURN_NULL();

	ks = setops_key_size(st->type);
	setops_result_alloc(&keys, setops_key_elemtype(st->type), ks, st->out_len[p], fname);
	memcpy(keys.data, st->out + st->out_start[p] * ks, st->out_len[p] * ks);
	result = setops_result_finish(&keys, st->out_len[p], fname);

	if (pairs)
	{
		TupleDesc	tupdesc;
		SetopsResult vals;
		SetopsValues av = st->vals,
					bv = st->vals;
		Datum		values[2];
		bool		nulls[2] = {false, false};

		if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
			elog(ERROR, "%s: return type must be a row type", fname);
		tupdesc = BlessTupleDesc(tupdesc);

		/* positions are within the pair: A's first, then B's */
		av.data = st->a_vals + st->a_start[p] * av.stride;
		av.n = st->a_len[p];
		bv.data = st->b_vals + st->b_start[p] * bv.stride;
		bv.n = st->b_len[p];
		setops_result_alloc(&vals, av.elemtype, av.stride, st->out_len[p], fname);
		setops_gather_values(vals.data, st->out_pos + st->out_start[p], st->out_len[p],
							 &av, &bv);
		values[0] = result;
		values[1] = setops_result_finish(&vals, st->out_len[p], fname);
		result = HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls));
	}
	PG_RETURN_DATUM(result);
}

/* One fmgr symbol per SQL function and form; the work is shared. */
#define BATCH_ENTRY(SYM, OP, SQLNAME)										\
Datum																		\
SYM(PG_FUNCTION_ARGS)														\
{																			\
	return batch_call(fcinfo, OP, SQLNAME, false);							\
}																			\
Datum																		\
SYM##_pairs(PG_FUNCTION_ARGS)												\
{																			\
	return batch_call(fcinfo, OP, SQLNAME, true);							\
}

BATCH_ENTRY(setops_intersect_batch, SETOPS_OP_INTERSECT, "array_intersect_batch")
BATCH_ENTRY(setops_union_batch, SETOPS_OP_UNION, "array_union_batch")
BATCH_ENTRY(setops_difference_batch, SETOPS_OP_DIFFERENCE, "array_difference_batch")
BATCH_ENTRY(setops_symdiff_batch, SETOPS_OP_SYMDIFF, "array_symdiff_batch")

/* Is argument argidx of the call declared packed_int4/8 rather than an array? */
static bool
arg_declared_packed(FunctionCallInfo fcinfo, int argidx, const char *fname)
{
	Oid			argtype = get_fn_expr_argtype(fcinfo->flinfo, argidx);

	if (!OidIsValid(argtype))
		elog(ERROR, "%s: cannot determine the type of argument %d", fname, argidx + 1);
	return !type_is_array(argtype);
}

/*
 * The window function of a count: row i gets the plain function's value
 * on row i's arguments, derived from its pair's answer as count_funcs.c
 * derives it (engine/common/setop_kind.h).
 */
static Datum
count_batch_call(FunctionCallInfo fcinfo, BatchResult kind, SetopsOp op,
				 SetopsCountKind count_kind, const char *fname)
{
	BatchChunk *st;
	BatchCall	call;
	int64		p,
				r;

	memset(&call, 0, sizeof(call));
	call.result = kind;
	call.op = op;
	call.fname = fname;
	call_args(fcinfo, &call, false);
	call.a_packed = arg_declared_packed(fcinfo, call.a_arg, fname);
	call.b_packed = arg_declared_packed(fcinfo, call.b_arg, fname);
	/* is contained by: contains(b, a) for the plain function, b's order first */
	call.b_first = kind == RESULT_CONTAINED_BY;
	call.count_kind = count_kind;

	p = current_row(fcinfo, &call, &st);
	if (p == ROW_NULL)
		PG_RETURN_NULL();
	if (p == ROW_TRUE)
		PG_RETURN_BOOL(true);
	r = st->answers[p];
	switch (kind)
	{
		case RESULT_OP_COUNT:
			PG_RETURN_INT64(setop_count_from_intersect(op, st->a_len[p], st->b_len[p], r));
		case RESULT_JACCARD:
			PG_RETURN_FLOAT8(setop_jaccard_from_intersect(st->a_len[p], st->b_len[p], r));
		case RESULT_CONTAINED_BY:
			PG_RETURN_BOOL(setop_contained_from_intersect(st->a_len[p], r));
		case RESULT_PREDICATE:
			PG_RETURN_BOOL(r != 0);
		case RESULT_SETOP:
			break;
	}
	elog(ERROR, "%s: not a count", fname);
	PG_RETURN_NULL();			/* keep the compiler quiet */
}

/*
 * One fmgr symbol per SQL function, for every form (arrays, packed, mixed).
 * What the engine answers each pair: the intersection count, except for
 * the predicates that stop early.  Is contained by derives from the count:
 * its shared side would be contains' first argument, which a batch does
 * not share.
 */
#define COUNT_BATCH_ENTRY(SYM, KIND, OP, COUNT, SQLNAME)					\
Datum																		\
SYM(PG_FUNCTION_ARGS)														\
{																			\
	return count_batch_call(fcinfo, KIND, OP, COUNT, SQLNAME);				\
}

COUNT_BATCH_ENTRY(setops_intersect_count_batch, RESULT_OP_COUNT, SETOPS_OP_INTERSECT,
				  SETOPS_COUNT_INTERSECT, "array_intersect_count_batch")
COUNT_BATCH_ENTRY(setops_union_count_batch, RESULT_OP_COUNT, SETOPS_OP_UNION,
				  SETOPS_COUNT_INTERSECT, "array_union_count_batch")
COUNT_BATCH_ENTRY(setops_difference_count_batch, RESULT_OP_COUNT, SETOPS_OP_DIFFERENCE,
				  SETOPS_COUNT_INTERSECT, "array_difference_count_batch")
COUNT_BATCH_ENTRY(setops_symdiff_count_batch, RESULT_OP_COUNT, SETOPS_OP_SYMDIFF,
				  SETOPS_COUNT_INTERSECT, "array_symdiff_count_batch")
COUNT_BATCH_ENTRY(setops_jaccard_batch, RESULT_JACCARD, SETOPS_OP_INTERSECT,
				  SETOPS_COUNT_INTERSECT, "array_jaccard_batch")
COUNT_BATCH_ENTRY(setops_overlaps_batch, RESULT_PREDICATE, SETOPS_OP_INTERSECT,
				  SETOPS_COUNT_OVERLAPS, "array_overlaps_batch")
COUNT_BATCH_ENTRY(setops_contains_batch, RESULT_PREDICATE, SETOPS_OP_INTERSECT,
				  SETOPS_COUNT_CONTAINS, "array_contains_batch")
COUNT_BATCH_ENTRY(setops_contained_by_batch, RESULT_CONTAINED_BY, SETOPS_OP_INTERSECT,
				  SETOPS_COUNT_INTERSECT, "array_contained_by_batch")

#ifdef SETOPS_TEST_HOOKS
/*
 * setops_test_batch_rows(n): this backend's batches take chunks of at
 * most n rows (0: the default), so that a test crosses many chunks with
 * few rows.
 */
PG_FUNCTION_INFO_V1(setops_test_batch_rows);
Datum
setops_test_batch_rows(PG_FUNCTION_ARGS)
{
	int32		n = PG_GETARG_INT32(0);

	if (n < 0 || n > BATCH_MAX_ROWS)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("setops_test_batch_rows: %d is not between 0 and %d", n, BATCH_MAX_ROWS)));
	batch_max_rows = n > 0 ? n : BATCH_MAX_ROWS;
	PG_RETURN_VOID();
}

/*
 * setops_test_batch_readers_alone(on): this backend's parallel reads of a
 * partition leave every row to the workers (when any started), so that a
 * test knows a worker read them.
 */
PG_FUNCTION_INFO_V1(setops_test_batch_readers_alone);
Datum
setops_test_batch_readers_alone(PG_FUNCTION_ARGS)
{
	setops_batch_readers_leader_reads = !PG_GETARG_BOOL(0);
	PG_RETURN_VOID();
}

/*
 * setops_test_batch_readers_ring(on): parallel reads go through rings of
 * buffers however few their rows (else only past a quarter of shared
 * buffers), so that a test reads that way.
 */
PG_FUNCTION_INFO_V1(setops_test_batch_readers_ring);
Datum
setops_test_batch_readers_ring(PG_FUNCTION_ARGS)
{
	setops_batch_readers_ring = PG_GETARG_BOOL(0);
	PG_RETURN_VOID();
}

/*
 * setops_test_batch_readers_fail_at(i): this backend, reading rows ahead,
 * raises an ERROR at the i-th of them (-1: never), so that a test sees
 * what an error there leaves behind.
 */
PG_FUNCTION_INFO_V1(setops_test_batch_readers_fail_at);
Datum
setops_test_batch_readers_fail_at(PG_FUNCTION_ARGS)
{
	setops_batch_readers_fail_at = PG_GETARG_INT64(0);
	PG_RETURN_VOID();
}

/*
 * setops_test_batch_readers_put(): the rows this backend's last parallel
 * read of a partition put into the device cache (NULL: none ran since
 * asked last).
 */
PG_FUNCTION_INFO_V1(setops_test_batch_readers_put);
Datum
setops_test_batch_readers_put(PG_FUNCTION_ARGS)
{
	int64		put = setops_batch_readers_last_put;

	setops_batch_readers_last_put = -1;
	if (put < 0)
		PG_RETURN_NULL();
	PG_RETURN_INT64(put);
}
#endif
