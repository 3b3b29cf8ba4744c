/*
 * batch_readers.c
 *	  A count batch's first run: its stored rows read by parallel readers
 *	  into the device cache ahead of the batch.
 *
 * A batch over stored rows that the device cache does not hold yet must
 * read every row once (detoast it, check its order, hand its keys to the
 * GPU service): in one backend that reading, not the GPU, sets the pace
 * of a first run.  When a partition's first chunk finds its rows missing,
 * the rest of the partition's stored rows (as far as the cache's budget
 * for it goes) are read by setops.batch_read_workers parallel workers and
 * this backend together, each putting what it read into the cache; the
 * batch then goes on as before and finds them there.
 *
 * The readers only warm the cache: they never decide an answer.  A row
 * they cannot take (not an out-of-line array or packed value of the
 * argument's type, out of order, past the budget, refused by the cache) is
 * skipped, and the batch reads it and reports on it as it always does, in
 * its order.  Reading cannot fail but on a corrupt TOAST table, whose error
 * PostgreSQL raises as it would anywhere.
 *
 * Parallel mode lasts for the call only: the workers are launched and
 * waited for within it, so that nothing else in the query (a nextval(), an
 * INSERT's first tuple) runs while it is on.
 */
#include "postgres.h"

#include "access/parallel.h"
#include "access/xact.h"
#include "catalog/pg_class.h"
#include "miscadmin.h"
#include "port/atomics.h"
#include "storage/bufmgr.h"
#include "storage/shm_toc.h"
#include "utils/array.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

#include "setops.h"
#include "args/args.h"
#include "exec/exec.h"
#include "service/client.h"

/* the shm_toc key of the readers' shared state */
#define READERS_KEY			UINT64CONST(0x5E7095BA7C4E0001)
/*
 * Rows a reader claims at a time: runs of rows that one put holds (a put's
 * rows share a device buffer, which is freed with the last of them)
 */
#define READ_CLAIM			64
/* a reader's put: at most this many rows (and what a slot holds) */
#define PUT_MAX_ROWS		1024
/* fewer rows than this a reader are not worth a worker's start */
#define ROWS_PER_WORKER		64

int64		setops_batch_readers_last_put = -1; /* rows the last warm put (test hooks) */
bool		setops_batch_readers_leader_reads = true;	/* (a test hook: the workers alone) */
int64		setops_batch_readers_fail_at = -1;	/* (a test hook: the backend's ERROR at a row) */
bool		setops_batch_readers_ring = false;	/* (a test hook: rings of buffers however few rows) */

/* What the readers share (in the parallel context's DSM segment). */
typedef struct ReadersShared
{
	Oid			argtype;		/* the rows' type: an array or a packed type */
	int64		min_keys;		/* rows smaller are not by identity */
	int64		nrows;
	char		fname[NAMEDATALEN];
	pg_atomic_uint64 next;		/* the next row to claim */
	pg_atomic_uint64 budget;	/* bytes the cache may still take */
	pg_atomic_uint64 rows_put;	/* rows the cache holds now, and their bytes */
	pg_atomic_uint64 bytes_put;
	pg_atomic_uint32 stop;		/* the service failed: read no further */
	bool		ring;			/* read through rings of buffers (more than shared
								 * buffers / 4, as a large sequential scan) */
	Size		ids_offset;		/* from this struct: RowIdentity[nrows] */
	struct varatt_external rows[FLEXIBLE_ARRAY_MEMBER];
} ReadersShared;

/* A row's identity as a reader read it, for the backend to remember. */
typedef struct RowIdentity
{
	SetopsCacheKey key;
	int64		n;
	bool		read;			/* the rest is set */
} RowIdentity;

#define ROW_IDS(s) ((RowIdentity *) ((char *) (s) + (s)->ids_offset))

/*
 * One reader's rows read but not yet put: their keys lie in the slot of
 * its put writer (an array's read straight from the TOAST chunks into it),
 * their counts here.
 */
typedef struct PutList
{
	Oid			elemtype;		/* the rows' element type (InvalidOid: packed) */
	SetopsKeyType type;
	SetopsPutWriter *writer;
	BufferAccessStrategy strategy;	/* NULL: through all of shared buffers */
	int64		nrows;
	int64		n[PUT_MAX_ROWS];
	bool		kept[PUT_MAX_ROWS];
	/* for DEBUG1: rows this reader took, its puts and their time */
	int64		rows_read;
	int			puts;
	double		put_ms;
} PutList;

PGDLLEXPORT void setops_batch_reader_main(dsm_segment *seg, shm_toc *toc);

/* Take bytes from the budget; false (nothing taken) when it is short. */
static bool
take_budget(ReadersShared *s, uint64 bytes)
{
	uint64		left = pg_atomic_read_u64(&s->budget);

	while (left >= bytes)
		if (pg_atomic_compare_exchange_u64(&s->budget, &left, left - bytes))
			return true;
	return false;
}

/*
 * The put's outcome for rows of n[0, nrows), kept[] as the cache answered
 * (status): what was kept counted, the rest's bytes back in the budget.
 */
static void
count_put(ReadersShared *s, SetopsKeyType type, SetopsGpuStatus status, const int64 *n,
		  const bool *kept, int64 nrows)
{
	size_t		ks = setops_key_size(type);
	uint64		rows = 0,
				bytes = 0,
				unused = 0;
	int64		i;

	/* (a failure is the batch's to meet and report: it reads these rows itself) */
	if (status != SETOPS_GPU_OK)
		pg_atomic_write_u32(&s->stop, 1);
	for (i = 0; i < nrows; i++)
	{
		uint64		b = (uint64) n[i] * ks;

		if (status == SETOPS_GPU_OK && kept[i])
		{
			rows++;
			bytes += b;
		}
		else
			unused += b;
	}
	pg_atomic_fetch_add_u64(&s->rows_put, rows);
	pg_atomic_fetch_add_u64(&s->bytes_put, bytes);
	pg_atomic_fetch_add_u64(&s->budget, unused);
}

/* Put the rows listed, and start the list again. */
static void
put_listed(ReadersShared *s, PutList *list)
{
	char		errbuf[SETOPS_GPU_ERRLEN];
	SetopsGpuStatus status;
	double		t0;

	if (list->nrows == 0)
		return;
	Assert(setops_service_put_rows_written(list->writer) == list->nrows);
	t0 = setops_now_ms();
	status = setops_service_put_send(list->writer, list->kept, errbuf, sizeof(errbuf));
	count_put(s, list->type, status, list->n, list->kept, list->nrows);
	list->rows_read += list->nrows;
	list->puts++;
	list->put_ms += setops_now_ms() - t0;
	list->nrows = 0;
}

/*
 * Room in the writer's request for a row of n keys of the list's type,
 * putting the rows listed first if need be; NULL when the row is larger
 * than a request holds (it goes alone: put_alone).
 */
static void *
list_room(ReadersShared *s, PutList *list, int64 n)
{
	if (list->nrows == PUT_MAX_ROWS || !setops_service_put_fits(list->writer, n, false))
	{
		if (!setops_service_put_fits(list->writer, n, true))
			return NULL;
		put_listed(s, list);
	}
	return setops_service_put_room(list->writer, n);
}

/* Row i's TOAST pointer as a datum (in the current memory context). */
static Datum
row_datum(ReadersShared *s, int64 i)
{
	struct varlena *ptr = palloc(VARHDRSZ_EXTERNAL + sizeof(struct varatt_external));

	SET_VARTAG_EXTERNAL(ptr, VARTAG_ONDISK);
	memcpy(VARDATA_EXTERNAL(ptr), &s->rows[i], sizeof(struct varatt_external));
	return PointerGetDatum(ptr);
}

/* Row i's identity as read here, for the backend to learn. */
static void
learn_row(ReadersShared *s, int64 i, const SetopsCacheKey *key, int64 n)
{
	ROW_IDS(s)[i].key = *key;
	ROW_IDS(s)[i].n = n;
	ROW_IDS(s)[i].read = true;
}

/* The row given room last, its keys written and in order, is key's: listed. */
static void
list_row(PutList *list, const SetopsCacheKey *key, int64 n)
{
	setops_service_put_commit(list->writer, key);
	list->n[list->nrows++] = n;
}

/* A row larger than a request: put by itself, in pieces, the writer's slot given back. */
static void
put_alone(ReadersShared *s, PutList *list, const SetopsCacheKey *key, const void *data,
		  int64 n)
{
	char		errbuf[SETOPS_GPU_ERRLEN];
	SetopsGpuStatus status;
	bool		kept;

	put_listed(s, list);
	/* (the put claims a slot of its own: this backend holds one at a time) */
	setops_service_put_release(list->writer);
	status = setops_service_cache_put_rows(list->type, 1, &key, &data, &n, &kept,
										   errbuf, sizeof(errbuf));
	count_put(s, list->type, status, &n, &kept, 1);
	list->rows_read++;
}

/* The room an array's read asks for (setops_read_stored_into): the room given for it. */
typedef struct ArrayRoom
{
	void	   *room;
	int64		n;
} ArrayRoom;

static void *
array_room(int64 n, void *arg)
{
	ArrayRoom  *r = (ArrayRoom *) arg;

	return n == r->n ? r->room : NULL;
}

/*
 * Row i, an array of the list's element type, read from its TOAST chunks
 * straight into the writer's slot, its identity from the same read (one
 * index scan for both).  False when it is better read the general way (a
 * row larger than a request).
 */
static bool
read_array_row(ReadersShared *s, int64 i, PutList *list, MemoryContext rowcxt)
{
	const struct varatt_external *pointer = &s->rows[i];
	size_t		ks = setops_key_size(list->type);
	int64		hdr = ARR_OVERHEAD_NONULLS(1);
	uint64		bytes;
	SetopsCacheKey key;
	SetopsKeys	keys;
	ArrayRoom	room;
	void	   *data;
	int64		n;
	bool		read;
	MemoryContext old;

	/* (as setops_read_stored_identity's rules: smaller ones are not by identity) */
	if (VARATT_EXTERNAL_IS_COMPRESSED(*pointer) || pointer->va_rawsize < hdr ||
		pointer->va_rawsize / (int64) ks < s->min_keys)
		return true;
	/* the count a one-dimensional array without NULLs of this size holds */
	room.n = (pointer->va_rawsize - hdr) / ks;
	bytes = (uint64) room.n * ks;
	/* (past the budget: the general way, which learns its identity in one probe) */
	if (!take_budget(s, bytes))
		return false;
	room.room = list_room(s, list, room.n);
	if (room.room == NULL)
	{
		pg_atomic_fetch_add_u64(&s->budget, bytes);
		return false;
	}
	old = MemoryContextSwitchTo(rowcxt);
	read = setops_read_stored_into(row_datum(s, i), list->elemtype, array_room, &room,
								   &data, &n, &key, list->strategy);
	MemoryContextSwitchTo(old);
	if (read)
	{
		learn_row(s, i, &key, n);
		memset(&keys, 0, sizeof(keys));
		keys.form = SETOPS_KEYS_PLAIN;
		keys.type = list->type;
		keys.data = data;
		keys.n = n;
		if (setops_keys_in_order(&keys))
		{
			list_row(list, &key, n);
			return true;
		}
	}
	/* not one the cache takes: the batch reads it and says why */
	setops_service_put_drop(list->writer);
	pg_atomic_fetch_add_u64(&s->budget, bytes);
	return true;
}

/* Where a packed row's keys are decoded: room in the writer's request, the budget taken. */
typedef struct PackedRoom
{
	ReadersShared *s;
	PutList    *list;
	uint64		taken;			/* bytes taken from the budget */
	bool		roomed;			/* room given in the writer's request */
} PackedRoom;

static void *
packed_room(int64 n, SetopsKeyType type, void *arg)
{
	PackedRoom *r = (PackedRoom *) arg;
	uint64		bytes = (uint64) n * setops_key_size(type);
	void	   *room;

	if (!take_budget(r->s, bytes))
		return NULL;
	r->taken = bytes;
	if (type != r->list->type)
	{
		put_listed(r->s, r->list);
		r->list->type = type;
		setops_service_put_retype(r->list->writer, type);
	}
	room = list_room(r->s, r->list, n);
	r->roomed = room != NULL;
	return room;
}

/*
 * Row i, a packed value, read from its TOAST chunks (one index scan, its
 * identity from chunk 0) and decoded straight into the writer's slot.
 * False when it is better read the general way (a row larger than a
 * request).
 */
static bool
read_packed_row(ReadersShared *s, int64 i, PutList *list, MemoryContext rowcxt)
{
	const struct varatt_external *pointer = &s->rows[i];
	SetopsCacheKey key;
	PackedRoom	room = {s, list, 0, false};
	MemoryContext old;
	int64		n;
	bool		decoded;

	/* (as setops_read_stored_identity's rules, the key width not known yet) */
	if (VARATT_EXTERNAL_IS_COMPRESSED(*pointer) ||
		pointer->va_rawsize / (int64) setops_key_size(SETOPS_KEY_INT32) < s->min_keys)
		return true;
	old = MemoryContextSwitchTo(rowcxt);
	decoded = setops_read_stored_packed_into(row_datum(s, i), packed_room, &room, &key, &n,
											 list->strategy);
	MemoryContextSwitchTo(old);
	if (decoded)
	{
		learn_row(s, i, &key, n);
		list_row(list, &key, n);
		return true;
	}
	/* not taken: its budget back */
	if (room.roomed)
		setops_service_put_drop(list->writer);
	pg_atomic_fetch_add_u64(&s->budget, room.taken);
	/* (not one this reads, or not sound: the batch reads it and says why) */
	if (!OidIsValid(key.toastrelid))
		return true;
	learn_row(s, i, &key, n);
	/* one larger than a request (only its header read) goes the general way */
	return room.taken == 0 || room.roomed;
}

/*
 * Row i read and listed for the cache when the batch would put it: stored
 * out of line by an identity whose header gives its count, within the
 * budget, in order.  A row's reading lives in rowcxt (reset for the next
 * row); a listed row's keys in the writer's slot.
 */
static void
read_row(ReadersShared *s, int64 i, PutList *list, MemoryContext rowcxt)
{
	SetopsKeys *keys;
	uint64		bytes;
	void	   *room;
	MemoryContext old;

	if (i == setops_batch_readers_fail_at && !IsParallelWorker())
		elog(ERROR, "%s: the test's planted error in reading row %lld ahead", s->fname,
			 (long long) i);
	MemoryContextReset(rowcxt);
	if (OidIsValid(list->elemtype) ? read_array_row(s, i, list, rowcxt) :
		read_packed_row(s, i, list, rowcxt))
		return;
	/* a row larger than a request: read, then put alone */
	old = MemoryContextSwitchTo(rowcxt);
	keys = palloc(sizeof(SetopsKeys));
	if (!setops_read_stored_identity(row_datum(s, i), s->argtype, 1, true, keys,
									 s->min_keys))
		goto done;
	learn_row(s, i, keys->cache_key, keys->n);
	bytes = (uint64) keys->n * setops_key_size(keys->type);
	if (!take_budget(s, bytes))
		goto done;
	setops_keys_make_plain(keys, s->fname);
	if (!setops_keys_in_order(keys))
	{
		pg_atomic_fetch_add_u64(&s->budget, bytes);
		goto done;
	}
	if (keys->type != list->type)
	{
		put_listed(s, list);
		list->type = keys->type;
		setops_service_put_retype(list->writer, keys->type);
	}
	room = list_room(s, list, keys->n);
	if (room == NULL)
		put_alone(s, list, keys->cache_key, keys->data, keys->n);
	else
	{
		memcpy(room, keys->data, bytes);
		list_row(list, keys->cache_key, keys->n);
	}
done:
	MemoryContextSwitchTo(old);
}

/*
 * Read rows until none is left to claim (a worker, and the leader too).
 * The TOAST table stays open while reading (stored_value.c's hold): an
 * ERROR here gives the leader's hold back as it was.
 */
static void
read_rows(ReadersShared *s)
{
	MemoryContext rowcxt = AllocSetContextCreate(CurrentMemoryContext, "setops batch reader row",
												 ALLOCSET_DEFAULT_SIZES);
	PutList    *list = palloc0(sizeof(PutList));
	SetopsIdentityHold outer;
	double		t0 = setops_now_ms();

	list->elemtype = get_element_type(s->argtype);
	if (OidIsValid(list->elemtype))
		list->type = setops_key_type_of(list->elemtype);
	list->writer = setops_service_put_writer(list->type, PUT_MAX_ROWS);
	list->strategy = s->ring ? GetAccessStrategy(BAS_BULKREAD) : NULL;

	setops_identity_hold_begin(&outer);
	PG_TRY();
	{
		while (pg_atomic_read_u32(&s->stop) == 0)
		{
			uint64		first = pg_atomic_fetch_add_u64(&s->next, READ_CLAIM);
			int64		i;

			if (first >= (uint64) s->nrows)
				break;
			for (i = first; i < s->nrows && i < (int64) first + READ_CLAIM; i++)
			{
				read_row(s, i, list, rowcxt);
				CHECK_FOR_INTERRUPTS();
			}
		}
		put_listed(s, list);
	}
	PG_CATCH();
	{
		/* (the rows listed are not put: the batch reads them) */
		setops_service_put_release(list->writer);
		setops_identity_hold_forget(&outer);
		PG_RE_THROW();
	}
	PG_END_TRY();
	setops_service_put_release(list->writer);
	setops_identity_hold_end(&outer);
	ereport(DEBUG1,
			(errmsg_internal("%s: reader %d took %lld rows in %.1f ms, %.1f of them in %d puts",
							 s->fname, ParallelWorkerNumber, (long long) list->rows_read,
							 setops_now_ms() - t0, list->put_ms, list->puts)));
	if (list->strategy != NULL)
		FreeAccessStrategy(list->strategy);
	pfree(list->writer);
	pfree(list);
	MemoryContextDelete(rowcxt);
}

/* A parallel worker's entry (CreateParallelContext names it). */
void
setops_batch_reader_main(dsm_segment *seg, shm_toc *toc)
{
	read_rows((ReadersShared *) shm_toc_lookup(toc, READERS_KEY, false));
}

/*
 * Read the stored rows at rows[0, nrows) (TOAST pointers of values of
 * argtype, a count batch's argument argno 1) into the device cache, in
 * parallel, within the partition's budget (*cache_budget, lowered by what
 * was put).  Returns the rows the cache holds now (0: none read, e.g.
 * readers off, or already in parallel mode).
 */
int64
setops_batch_read_rows(const char *fname, Oid argtype, int64 min_keys,
					   const struct varatt_external *rows, int64 nrows, int64 *cache_budget)
{
	int64		budget = setops_batch_cache_budget(cache_budget);
	ParallelContext *pcxt;
	ReadersShared *s;
	Size		size,
				ids_offset;
	int			nworkers;
	int64		put,
				i;
	uint64		bytes = 0;
	SetopsOidMark mark;
	Oid			elemtype;
	double		t0,
				t1,
				t2,
				t3;

	setops_batch_readers_last_put = -1;
	if (nrows == 0 || budget <= 0 || min_keys < 0 || setops_batch_read_workers <= 0 ||
		IsInParallelMode() || !IsUnderPostmaster)
		return 0;
	nworkers = (int) Min((int64) setops_batch_read_workers, nrows / ROWS_PER_WORKER);
	/* a temporary table's pages are in this backend's buffers: it reads alone */
	for (i = 0; i < nrows && nworkers > 0; i++)
		if ((i == 0 || rows[i].va_toastrelid != rows[i - 1].va_toastrelid) &&
			get_rel_persistence(rows[i].va_toastrelid) == RELPERSISTENCE_TEMP)
			nworkers = 0;
	t0 = setops_now_ms();

	EnterParallelMode();
	pcxt = CreateParallelContext("$libdir/setops", "setops_batch_reader_main", nworkers);
	ids_offset = MAXALIGN(add_size(offsetof(ReadersShared, rows),
								   mul_size(nrows, sizeof(struct varatt_external))));
	size = add_size(ids_offset, mul_size(nrows, sizeof(RowIdentity)));
	shm_toc_estimate_chunk(&pcxt->estimator, size);
	shm_toc_estimate_keys(&pcxt->estimator, 1);
	InitializeParallelDSM(pcxt);
	s = shm_toc_allocate(pcxt->toc, size);
	s->argtype = argtype;
	s->min_keys = min_keys;
	s->nrows = nrows;
	strlcpy(s->fname, fname, sizeof(s->fname));
	pg_atomic_init_u64(&s->next, 0);
	pg_atomic_init_u64(&s->budget, (uint64) budget);
	pg_atomic_init_u64(&s->rows_put, 0);
	pg_atomic_init_u64(&s->bytes_put, 0);
	pg_atomic_init_u32(&s->stop, 0);
	for (i = 0; i < nrows; i++)
		bytes += VARATT_EXTERNAL_GET_EXTSIZE(rows[i]);
	s->ring = setops_batch_readers_ring || bytes > (uint64) NBuffers * BLCKSZ / 4;
	memcpy(s->rows, rows, sizeof(struct varatt_external) * nrows);
	s->ids_offset = ids_offset;
	memset(ROW_IDS(s), 0, sizeof(RowIdentity) * nrows);
	shm_toc_insert(pcxt->toc, READERS_KEY, s);
	/* (before any identity is read: what the readers read is remembered from here) */
	setops_identity_mark(&mark);
	if (nworkers > 0)
		LaunchParallelWorkers(pcxt);
	t1 = setops_now_ms();

	/* this backend reads too, then waits for the workers */
	if (setops_batch_readers_leader_reads || pcxt->nworkers_launched == 0)
		read_rows(s);
	t2 = setops_now_ms();
	if (nworkers > 0)
		WaitForParallelWorkersToFinish(pcxt);
	t3 = setops_now_ms();
	put = (int64) pg_atomic_read_u64(&s->rows_put);
	*cache_budget -= (int64) pg_atomic_read_u64(&s->bytes_put);
	/* the batch finds each row by the identity read for it, no TOAST probe */
	elemtype = get_element_type(argtype);
	setops_identity_make_room(nrows);
	for (i = 0; i < nrows; i++)
		if (ROW_IDS(s)[i].read)
			setops_identity_learn(&s->rows[i], elemtype, &ROW_IDS(s)[i].key, ROW_IDS(s)[i].n,
								  &mark);
	ereport(DEBUG1,
			(errmsg_internal("%s: %d of %d parallel readers%s read %lld rows, put %lld (%.1f MB): "
							 "%.1f ms to launch, %.1f reading here, %.1f waiting, %.1f learning",
							 fname, pcxt->nworkers_launched, nworkers,
							 s->ring ? " (rings of buffers)" : "", (long long) nrows,
							 (long long) put, pg_atomic_read_u64(&s->bytes_put) / 1048576.0,
							 t1 - t0, t2 - t1, t3 - t2, setops_now_ms() - t3)));
	DestroyParallelContext(pcxt);
	ExitParallelMode();
	setops_batch_readers_last_put = put;
	return put;
}
