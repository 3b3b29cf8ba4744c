/*
 * stored_value.c
 *	  Stored (TOASTed) arguments by identity, for the GPU service's cache.
 *
 * A large array read from a table reaches a function as a TOAST pointer.
 * Instead of detoasting it (the largest cost of an operation inside
 * PostgreSQL), the argument is left unread: its identity (SetopsCacheKey)
 * goes to the GPU service, which answers from its device cache; only on a
 * miss is the value read and sent, once.  Anything that needs the keys in
 * this backend (the CPU engine, a miss) reads them when it asks for their
 * form (keys_form.c).
 *
 * The identity is read from the value's first chunk, whose inserting
 * transaction and place tell apart values that reuse a value id, and whose
 * bytes hold the array's header (so the element count is known without
 * reading the rest).  The first time, that costs an index probe of the
 * TOAST table; the backend then remembers where the chunk was, and the
 * next identity of the same value is one heap fetch at that place (a
 * repeated query over a table of sets makes one such call per row).  Once
 * read, the whole identity is remembered too, and stands without a fetch
 * for as long as its value id cannot have been handed out again (see
 * identity_remembered): a warm batch then reads no TOAST page at all.
 */
#include "postgres.h"

#include "access/detoast.h"
#include "access/genam.h"
#include "access/heapam.h"
#include "access/heaptoast.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/toast_internals.h"
#include "access/transam.h"
#include "miscadmin.h"
#include "storage/lwlock.h"
#include "catalog/pg_type.h"
#include "utils/builtins.h"
#include "utils/array.h"
#include "utils/fmgroids.h"
#include "common/hashfn.h"
#include "utils/memutils.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "storage/bufmgr.h"
#include "utils/timestamp.h"

#include "setops.h"
#include "args/args.h"
#include "test_hooks.h"
#include "engine/common/packed_format.h"
#include "engine/cpu/packed_codec.h"

/* Bytes of the first chunk kept: the largest header read from it. */
#define HEAD_BYTES 64

/*
 * An ordered scan of one TOAST value's chunks: by the catalog's ordered
 * scan, or, given a buffer access strategy, by the index's TIDs with the
 * heap pages read through the strategy (a reader of many rows reads them
 * through its own ring of buffers, as a large sequential scan does, rather
 * than evicting from all of shared buffers).
 */
typedef struct ToastScan
{
	Relation	rel;
	Relation   *idxs;
	int			nidxs;
	SnapshotData snapshot;
	SysScanDesc scan;			/* without a strategy */
	IndexScanDesc iscan;		/* with one */
	BufferAccessStrategy strategy;
	Buffer		buf;			/* the heap page of the last chunk, pinned */
	HeapTupleData tuple;
} ToastScan;

/*
 * first_only: chunk 0 alone (one index probe); rel is the open TOAST
 * table; strategy: NULL, or the heap pages' (see ToastScan)
 */
static void
toast_scan_begin(ToastScan *ts, Relation rel, const struct varatt_external *pointer,
				 bool first_only, BufferAccessStrategy strategy)
{
	ScanKeyData scankey[2];
	int			valid;

	ts->rel = rel;
	valid = toast_open_indexes(ts->rel, AccessShareLock, &ts->idxs, &ts->nidxs);
	ScanKeyInit(&scankey[0], (AttrNumber) 1, BTEqualStrategyNumber, F_OIDEQ,
				ObjectIdGetDatum(pointer->va_valueid));
	ScanKeyInit(&scankey[1], (AttrNumber) 2, BTEqualStrategyNumber, F_INT4EQ,
				Int32GetDatum(0));
	init_toast_snapshot(&ts->snapshot);
	ts->strategy = strategy;
	ts->buf = InvalidBuffer;
	ts->scan = NULL;
	ts->iscan = NULL;
	if (strategy == NULL)
		ts->scan = systable_beginscan_ordered(ts->rel, ts->idxs[valid], &ts->snapshot,
											  first_only ? 2 : 1, scankey);
	else
	{
		/* (the index's columns are the table's first two: the keys serve both) */
		ts->iscan = index_beginscan(ts->rel, ts->idxs[valid], &ts->snapshot,
									first_only ? 2 : 1, 0);
		index_rescan(ts->iscan, scankey, first_only ? 2 : 1, NULL, 0);
	}
}

/*
 * The next chunk's tuple by the index's next TID, its page read through
 * the scan's strategy (kept pinned while the chunks stay on it, as an
 * index scan's heap fetch does); NULL at the end.  TOAST chunks are never
 * updated, so a TID's HOT chain is the chunk or nothing visible.
 */
static HeapTuple
toast_scan_fetch(ToastScan *ts)
{
	ItemPointer tid;

	while ((tid = index_getnext_tid(ts->iscan, ForwardScanDirection)) != NULL)
	{
		BlockNumber block = ItemPointerGetBlockNumber(tid);
		ItemPointerData at = *tid;
		bool		found;

		if (!BufferIsValid(ts->buf) || BufferGetBlockNumber(ts->buf) != block)
		{
			if (BufferIsValid(ts->buf))
				ReleaseBuffer(ts->buf);
			ts->buf = ReadBufferExtended(ts->rel, MAIN_FORKNUM, block, RBM_NORMAL, ts->strategy);
		}
		LockBuffer(ts->buf, BUFFER_LOCK_SHARE);
		found = heap_hot_search_buffer(&at, ts->rel, ts->buf, &ts->snapshot, &ts->tuple,
									   NULL, true);
		LockBuffer(ts->buf, BUFFER_LOCK_UNLOCK);
		if (found)
			return &ts->tuple;
	}
	return NULL;
}

/*
 * A chunk tuple's number and bytes.  *len is -1 for a chunk in a form no
 * chunk is written in (NULL, compressed or external): the caller decides
 * what that means.
 */
static void
chunk_fields(HeapTuple tuple, TupleDesc desc, int32 *seq, const char **data, int *len)
{
	bool		isnull;
	Pointer		chunk;

	*len = -1;
	*seq = DatumGetInt32(fastgetattr(tuple, 2, desc, &isnull));
	if (isnull)
		return;
	chunk = DatumGetPointer(fastgetattr(tuple, 3, desc, &isnull));
	if (isnull)
		return;
	if (!VARATT_IS_EXTENDED(chunk))
	{
		*data = VARDATA(chunk);
		*len = VARSIZE(chunk) - VARHDRSZ;
	}
	else if (VARATT_IS_SHORT(chunk))
	{
		*data = VARDATA_SHORT(chunk);
		*len = VARSIZE_SHORT(chunk) - VARHDRSZ_SHORT;
	}
}

/* The next chunk: its tuple, number and bytes (chunk_fields); NULL at the end. */
static HeapTuple
toast_scan_next(ToastScan *ts, int32 *seq, const char **data, int *len)
{
	HeapTuple	tuple = ts->iscan != NULL ? toast_scan_fetch(ts) :
		systable_getnext_ordered(ts->scan, ForwardScanDirection);

	if (tuple != NULL)
		chunk_fields(tuple, ts->rel->rd_att, seq, data, len);
	return tuple;
}

/* Ends the scan; the TOAST table stays open (its opener closes it). */
static void
toast_scan_end(ToastScan *ts)
{
	if (ts->iscan != NULL)
	{
		if (BufferIsValid(ts->buf))
			ReleaseBuffer(ts->buf);
		index_endscan(ts->iscan);
	}
	else
		systable_endscan_ordered(ts->scan);
	toast_close_indexes(ts->idxs, ts->nidxs, AccessShareLock);
}

/*
 * Where this backend last found a stored value's first chunk.  Only a
 * hint: a fetch at the place counts only if the tuple there is visible and
 * is chunk 0 of the same value id.  No two stored values share a value id
 * while either has a tuple in the table (a new id is checked against every
 * tuple, dead or alive), so that tuple is the one the index would give.
 *
 * With remembered set, the identity read there (chunk 0's xmin, the key
 * count its header gave for elemtype), good until oid_clock reaches
 * expires: the counter, from where it stood just before the identity was
 * read, would then have come round to the value id (which only a value
 * inserted since could hold).
 */
typedef struct Chunk0Place
{
	uint64		key;			/* toastrelid << 32 | valueid */
	char		status;			/* simplehash's */
	bool		remembered;
	bool		packed;
	uint8		key_type;
	Oid			relfilenode;
	BlockNumber block;
	OffsetNumber offset;
	TransactionId xmin;
	Oid			elemtype;		/* InvalidOid: a packed value */
	int32		n;
	uint64		expires;
} Chunk0Place;

/*
 * Open addressing with the places inline: a lookup is about one cache miss
 * (a chained table took three or four, a tenth of a warm batch's time).
 * A TOAST table's value ids hash to consecutive buckets (its relid mixed
 * in, the value id added as it is): a batch reads its rows in the order
 * they were stored, whose value ids mostly ascend, so that its lookups go
 * through the table in order and the CPU's prefetch finds them (with the
 * value id mixed too, each was a miss to memory: a fifth of a warm
 * batch's backend time).
 */
#define SH_PREFIX chunk0
#define SH_ELEMENT_TYPE Chunk0Place
#define SH_KEY_TYPE uint64
#define SH_KEY key
#define SH_HASH_KEY(tb, k) (murmurhash32((uint32) ((k) >> 32)) + (uint32) (k))
#define SH_EQUAL(tb, a, b) ((a) == (b))
#define SH_SCOPE static inline
#define SH_DECLARE
#define SH_DEFINE
#include "lib/simplehash.h"

/*
 * About 12 MB at most (simplehash keeps a table at most 90% full: this
 * many fit 2^18 slots of 48 bytes); when full, forgotten all at once and
 * learnt again.
 */
#define CHUNK0_PLACES_MAX 235000

static chunk0_hash *chunk0_places = NULL;

static Chunk0Place *
chunk0_place(const struct varatt_external *pointer, bool enter)
{
	uint64		key = (uint64) pointer->va_toastrelid << 32 | pointer->va_valueid;
	Chunk0Place *place;
	bool		found;

	if (chunk0_places == NULL || (enter && chunk0_places->members >= CHUNK0_PLACES_MAX))
	{
		if (chunk0_places != NULL)
			chunk0_destroy(chunk0_places);
		chunk0_places = chunk0_create(TopMemoryContext, 1024, NULL);
	}
	if (!enter)
		return chunk0_lookup(chunk0_places, key);
	place = chunk0_insert(chunk0_places, key, &found);
	if (!found)
	{
		/* (simplehash sets only the key and status of a new entry) */
		place->remembered = false;
		place->relfilenode = InvalidOid;
	}
	return place;
}

/*
 * The OID counter as this backend follows it: oid_seen, what it read last
 * (oid_seen_at, when it last looked at the clock too), and oid_clock, how
 * far the counter has moved in all since this backend began to follow it.
 * A remembered identity stands until the clock reaches the point where the
 * counter would come round to its value id (Chunk0Place.expires).  The
 * counter is read before every identity is looked up or read.  Each move
 * must be seen whole: the backend reads it at least every
 * OID_SEEN_MAX_GAP_MS while it uses remembered identities (the cluster
 * cannot hand out 2^31 OIDs in that time: each takes OidGenLock, a TOAST
 * value id an index probe too); after a longer gap, or a counter that
 * moved back (pg_resetwal, a test), the clock jumps by 2^32, past every
 * expiry computed before, so that every remembered identity is read again.
 */
#define OID_SEEN_MAX_GAP_MS 60000
static int	oid_seen_max_gap_ms = OID_SEEN_MAX_GAP_MS;	/* (a test hook may lower it) */
static Oid	oid_seen = InvalidOid;
static TimestampTz oid_seen_at = 0;
static uint64 oid_clock = 0;

/* The counter's value, and the clock there (args.h). */
typedef SetopsOidMark OidClock;

/* The counter now, followed; timed: the gap since the last look checked too. */
static void
oid_clock_now(OidClock *now, bool timed)
{
	Oid			next = ((volatile VariableCacheData *) ShmemVariableCache)->nextOid;
	uint32		moved = (uint32) (next - oid_seen);
	bool		lost = oid_seen_at != 0 && moved >= (uint32) 1 << 31;

	if (timed)
	{
		TimestampTz at = GetCurrentTimestamp();

		lost |= oid_seen_at != 0 && at - oid_seen_at > (TimestampTz) oid_seen_max_gap_ms * 1000;
		oid_seen_at = at;
	}
	if (lost)
		moved = 0, oid_clock += (uint64) 1 << 32;
	oid_clock += moved;
	oid_seen = next;
	now->next = next;
	now->clock = oid_clock;
}

static Oid
rel_filenode(Relation rel)
{
#if PG_VERSION_NUM >= 160000
	return rel->rd_locator.relNumber;
#else
	return rel->rd_node.relNode;
#endif
}

/* The identity's fields and head bytes from chunk 0's tuple. */
static void
identity_from_chunk0(HeapTuple tuple, const char *data, int len, SetopsCacheKey *key,
					 char *head, int *head_len)
{
	*head_len = Min(len, HEAD_BYTES);
	memcpy(head, data, *head_len);
	key->chunk0_xmin = HeapTupleHeaderGetRawXmin(tuple->t_data);
	key->chunk0_block = ItemPointerGetBlockNumber(&tuple->t_self);
	key->chunk0_offset = ItemPointerGetOffsetNumber(&tuple->t_self);
}

/*
 * The identity from chunk 0 at its remembered place (one heap fetch);
 * false when there is no place, or the tuple there is not that chunk.
 */
static bool
identity_at_place(Relation rel, BlockNumber nblocks, const struct varatt_external *pointer,
				  SetopsCacheKey *key, char *head, int *head_len)
{
	Chunk0Place *place = chunk0_place(pointer, false);
	SnapshotData snapshot;
	HeapTupleData tuple;
	Buffer		buffer;
	bool		isnull;
	int32		seq;
	const char *data;
	int			len;
	bool		found = false;

	if (place == NULL || place->relfilenode != rel_filenode(rel))
		return false;
	/* (a block past the end, after a truncation, would be an ERROR to read) */
	if (nblocks == InvalidBlockNumber)
		nblocks = RelationGetNumberOfBlocks(rel);
	if (place->block >= nblocks)
		return false;
	init_toast_snapshot(&snapshot);
	ItemPointerSet(&tuple.t_self, place->block, place->offset);
	if (!heap_fetch(rel, &snapshot, &tuple, &buffer, false))
		return false;
	if (DatumGetObjectId(fastgetattr(&tuple, 1, rel->rd_att, &isnull)) == pointer->va_valueid &&
		!isnull)
	{
		chunk_fields(&tuple, rel->rd_att, &seq, &data, &len);
		if (seq == 0 && len >= 0)
		{
			identity_from_chunk0(&tuple, data, len, key, head, head_len);
			found = true;
		}
	}
	ReleaseBuffer(buffer);
	return found;
}

/*
 * The TOAST table of the last identity read, held open (and locked) from
 * setops_identity_hold_begin to _end: a batch reads thousands of rows'
 * identities from one TOAST table, and opening it and measuring its size
 * (an lseek) for each row cost as much as the heap fetch.  While the lock
 * is held the table cannot be truncated or rewritten, so the size measured
 * once bounds every remembered place (rows added since only miss it).
 */
static SetopsIdentityHold hold = {false, NULL, 0, InvalidOid, InvalidOid, 0};

/*
 * The counter for an identity about to be read (a batch's rows look at the
 * clock every 64th: a gap of that many rows is far below the limit).
 */
static void
identity_oid_clock(OidClock *now)
{
	oid_clock_now(now, !hold.holding || (hold.reads++ & 63) == 0);
}

/* Start holding; *saved gets the hold it nests in (a batch read inside a batch's argument). */
void
setops_identity_hold_begin(SetopsIdentityHold *saved)
{
	*saved = hold;
	memset(&hold, 0, sizeof(hold));
	hold.holding = true;
}

/* Close what this hold opened and give back the one it nested in. */
void
setops_identity_hold_end(const SetopsIdentityHold *saved)
{
	if (hold.rel != NULL)
		table_close(hold.rel, AccessShareLock);
	hold = *saved;
}

/* After an ERROR: the abort closes the table (its resource owner holds it). */
void
setops_identity_hold_forget(const SetopsIdentityHold *saved)
{
	hold = *saved;
}

/* The TOAST table toastrelid, open, and its size in blocks if known. */
static Relation
toast_table(Oid toastrelid, BlockNumber *nblocks)
{
	Relation	rel;

	if (hold.rel != NULL && RelationGetRelid(hold.rel) == toastrelid)
	{
		*nblocks = hold.nblocks;
		return hold.rel;
	}
	rel = table_open(toastrelid, AccessShareLock);
	*nblocks = InvalidBlockNumber;
	if (hold.holding)
	{
		if (hold.rel != NULL)
			table_close(hold.rel, AccessShareLock);
		hold.rel = rel;
		hold.nblocks = *nblocks = RelationGetNumberOfBlocks(rel);
	}
	return rel;
}

/* The identity's fields the TOAST pointer and its open table give. */
static void
identity_of_pointer(const struct varatt_external *pointer, Relation rel, SetopsCacheKey *key)
{
	memset(key, 0, sizeof(*key));
	key->toastrelid = pointer->va_toastrelid;
	key->valueid = pointer->va_valueid;
	key->rawsize = pointer->va_rawsize;
	key->extsize = VARATT_EXTERNAL_GET_EXTSIZE(*pointer);
	key->relfilenode = rel_filenode(rel);
}

/*
 * The identity of the on-disk TOAST value at ptr, and the first bytes of
 * its stored data (after the varlena length word); false if its first
 * chunk is not found.
 */
static bool
toast_identity(struct varlena *ptr, SetopsCacheKey *key, char *head, int *head_len)
{
	struct varatt_external toast_pointer;
	Relation	rel;
	BlockNumber nblocks;
	ToastScan	ts;
	HeapTuple	tuple;
	int32		seq;
	const char *data;
	int			len;
	bool		found;

	VARATT_EXTERNAL_GET_POINTER(toast_pointer, ptr);
	*head_len = 0;
	rel = toast_table(toast_pointer.va_toastrelid, &nblocks);
	identity_of_pointer(&toast_pointer, rel, key);
	found = identity_at_place(rel, nblocks, &toast_pointer, key, head, head_len);
	if (!found)
	{
		toast_scan_begin(&ts, rel, &toast_pointer, true, NULL);
		tuple = toast_scan_next(&ts, &seq, &data, &len);
		found = tuple != NULL && len >= 0;	/* else not found, as far as the identity goes */
		if (found)
		{
			Chunk0Place *place = chunk0_place(&toast_pointer, true);

			identity_from_chunk0(tuple, data, len, key, head, head_len);
			place->relfilenode = key->relfilenode;
			place->block = key->chunk0_block;
			place->offset = key->chunk0_offset;
			place->remembered = false;	/* (until its count is known again) */
		}
		toast_scan_end(&ts);
	}
	if (rel != hold.rel)
		table_close(rel, AccessShareLock);
	return found;
}

/*
 * The element count of an uncompressed stored array from its header (the
 * bytes after the length word), or -1 unless it is one-dimensional, of
 * elemtype, without NULLs, and holds exactly data_bytes of keys of ks.
 */
static int64
array_head_count(const char *head, int head_len, Oid elemtype, size_t ks, int64 data_bytes)
{
	/* ndim, dataoffset, elemtype, dims[0], lbound[0] */
	int32		hdr[5];

	StaticAssertStmt(sizeof(hdr) == ARR_OVERHEAD_NONULLS(1) - VARHDRSZ,
					 "a one-dimensional array's header is five words");
	if (head_len < (int) sizeof(hdr))
		return -1;
	memcpy(hdr, head, sizeof(hdr));
	if (hdr[0] != 1 || hdr[1] != 0 || (Oid) hdr[2] != elemtype || hdr[3] < 0 ||
		(int64) hdr[3] * ks != data_bytes)
		return -1;
	return hdr[3];
}

/* A chunk is not what the value's size says: PostgreSQL's own ERRORs. */
static void
report_bad_chunk(const ToastScan *ts, const struct varatt_external *pointer, int32 seq,
				 int32 expected, int32 nchunks, int len, int expected_len)
{
	const char *rel = RelationGetRelationName(ts->rel);

	if (len < 0)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg_internal("found toasted toast chunk for toast value %u in %s",
								 pointer->va_valueid, rel)));
	if (seq != expected)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg_internal("unexpected chunk number %d (expected %d) for toast value %u in %s",
								 seq, expected, pointer->va_valueid, rel)));
	if (seq >= nchunks)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg_internal("unexpected chunk number %d (out of range %d..%d) for toast value %u in %s",
								 seq, 0, nchunks - 1, pointer->va_valueid, rel)));
	ereport(ERROR,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg_internal("unexpected chunk size %d (expected %d) in chunk %d of %d for toast value %u in %s",
							 len, expected_len, seq, nchunks, pointer->va_valueid, rel)));
}

/*
 * The chunks of the uncompressed out-of-line value at pointer, in order
 * and checked as PostgreSQL checks them, copied from byte skip of its data
 * on into the room head(chunk 0's bytes, arg) gives (NULL: nothing read).
 * key (unless NULL) gets the value's identity from chunk 0 (its type
 * fields are the caller's); key->toastrelid is InvalidOid unless head was
 * asked.  strategy: NULL, or how the TOAST pages are read (a reader of
 * many rows' ring of buffers).  The room read whole, or NULL.
 */
static char *
read_chunks(const struct varatt_external *pointer, int skip,
			void *(*head) (const char *data, int len, void *arg), void *arg,
			SetopsCacheKey *key, BufferAccessStrategy strategy)
{
	int32		extsize = VARATT_EXTERNAL_GET_EXTSIZE(*pointer);
	int32		nchunks = (extsize - 1) / TOAST_MAX_CHUNK_SIZE + 1;
	char	   *dst = NULL;
	ToastScan	ts;
	HeapTuple	tuple;
	int32		seq;
	int32		expected = 0;
	const char *data;
	int			len;
	BlockNumber nblocks;

	if (key != NULL)
		key->toastrelid = InvalidOid;
	toast_scan_begin(&ts, toast_table(pointer->va_toastrelid, &nblocks), pointer, false,
					 strategy);
	while ((tuple = toast_scan_next(&ts, &seq, &data, &len)) != NULL)
	{
		int			expected_len = seq < nchunks - 1 ? TOAST_MAX_CHUNK_SIZE :
			extsize - (nchunks - 1) * TOAST_MAX_CHUNK_SIZE;
		int64		at = (int64) seq * TOAST_MAX_CHUNK_SIZE - skip;

		if (len < 0 || seq != expected || seq >= nchunks || len != expected_len)
			report_bad_chunk(&ts, pointer, seq, expected, nchunks, len, expected_len);
		if (seq == 0)
		{
			if (len < skip)
				break;
			if (key != NULL)
			{
				char		first[HEAD_BYTES];
				int			first_len;

				identity_of_pointer(pointer, ts.rel, key);
				identity_from_chunk0(tuple, data, len, key, first, &first_len);
			}
			dst = head(data, len, arg);
			if (dst == NULL)
				break;
			memcpy(dst, data + skip, len - skip);
		}
		else
			memcpy(dst + at, data, len);
		expected++;
	}
	if (dst != NULL && tuple == NULL && expected != nchunks)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg_internal("missing chunk number %d for toast value %u in %s",
								 expected, pointer->va_valueid, RelationGetRelationName(ts.rel))));
	toast_scan_end(&ts);
	if (ts.rel != hold.rel)
		table_close(ts.rel, AccessShareLock);
	return tuple == NULL ? dst : NULL;
}

/*
 * A packed value's key count from its header's bytes (those after the
 * length word), and its key width, or -1 when they are not a packed
 * value's.
 */
static int64
packed_head_count(const char *head, int head_len, int *key_bytes)
{
	PackedHeader h;

	if (head_len < (int) (sizeof(PackedHeader) - VARHDRSZ))
		return -1;
	memcpy((char *) &h + VARHDRSZ, head, sizeof(PackedHeader) - VARHDRSZ);
	if ((h.key_bytes != 4 && h.key_bytes != 8) || h.n < 0 || h.n > (int64) MaxArraySize)
		return -1;
	*key_bytes = h.key_bytes;
	return h.n;
}

/* The TOAST pointer of datum when it is an uncompressed value stored out of line. */
static bool
uncompressed_pointer(Datum datum, struct varatt_external *pointer)
{
	struct varlena *ptr = (struct varlena *) DatumGetPointer(datum);

	if (!VARATT_IS_EXTERNAL_ONDISK(ptr))
		return false;
	VARATT_EXTERNAL_GET_POINTER(*pointer, ptr);
	return !VARATT_EXTERNAL_IS_COMPRESSED(*pointer);
}

/* An array's head: its count checked against its size, then room for its keys. */
typedef struct ArrayHead
{
	Oid			elemtype;
	int64		data_bytes;
	int64		n;
	void	   *(*room) (int64 n, void *arg);
	void	   *arg;
} ArrayHead;

static void *
array_head(const char *data, int len, void *arg)
{
	ArrayHead  *h = (ArrayHead *) arg;

	h->n = array_head_count(data, len, h->elemtype, h->elemtype == INT8OID ? 8 : 4,
							h->data_bytes);
	return h->n < 0 ? NULL : h->room(h->n, h->arg);
}

/*
 * Read a stored array's keys from its TOAST chunks straight into room(n,
 * arg), skipping the detoasted copy (for a stream: the rows go into its
 * slot).  True with *keys and *n when done; false, nothing read, when the
 * value is not an uncompressed out-of-line one-dimensional array of
 * elemtype without NULLs, or room gives NULL: read it the usual way then
 * (which reports what is wrong with it).  The keys are not checked.
 *
 * key (unless NULL) gets the value's identity, as setops_read_stored_identity
 * reads it, from the chunk 0 this read fetches anyway (a reader filling the
 * device cache saves the index probe of its own); key->toastrelid is
 * InvalidOid unless the header was one this reads (room was then asked).
 * strategy: as read_chunks.
 */
bool
setops_read_stored_into(Datum datum, Oid elemtype, void *(*room) (int64 n, void *arg),
						void *arg, void **keys, int64 *n, SetopsCacheKey *key,
						BufferAccessStrategy strategy)
{
	struct varatt_external pointer;
	const int	hdr_bytes = ARR_OVERHEAD_NONULLS(1) - VARHDRSZ;
	size_t		ks = elemtype == INT8OID ? 8 : 4;
	int32		extsize;
	ArrayHead	head;
	char	   *dst;

	if (key != NULL)
		key->toastrelid = InvalidOid;
	if (!uncompressed_pointer(datum, &pointer))
		return false;
	extsize = VARATT_EXTERNAL_GET_EXTSIZE(pointer);
	if (extsize <= hdr_bytes || (extsize - hdr_bytes) % ks != 0)
		return false;
	head.elemtype = elemtype;
	head.data_bytes = extsize - hdr_bytes;
	head.n = -1;
	head.room = room;
	head.arg = arg;
	dst = read_chunks(&pointer, hdr_bytes, array_head, &head, key, strategy);
	if (key != NULL && head.n < 0)
		key->toastrelid = InvalidOid;	/* (not an array this reads) */
	else if (key != NULL && OidIsValid(key->toastrelid))
	{
		key->key_type = (uint8) setops_key_type_of(elemtype);
		key->packed = false;
	}
	if (dst == NULL)
		return false;
	*keys = dst;
	*n = head.n;
	return true;
}

/*
 * A packed value's head: its count and key width from chunk 0's header,
 * room for its keys asked (NULL: read no further), then room for all of
 * the value, its length word first.
 */
typedef struct PackedHead
{
	int32		extsize;
	void	   *(*room) (int64 n, SetopsKeyType type, void *arg);
	void	   *arg;
	bool		sound;			/* the header read is one of a packed value */
	int64		n;
	SetopsKeyType type;
	void	   *keys;			/* room's */
} PackedHead;

static void *
packed_head(const char *data, int len, void *arg)
{
	PackedHead *ph = (PackedHead *) arg;
	int			key_bytes;
	char	   *value;

	/* (the chunks hold the value after its length word) */
	ph->n = packed_head_count(data, len, &key_bytes);
	if (ph->n < 0)
		return NULL;
	ph->sound = true;
	ph->type = key_bytes == 8 ? SETOPS_KEY_INT64 : SETOPS_KEY_INT32;
	ph->keys = ph->room(ph->n, ph->type, ph->arg);
	if (ph->keys == NULL)
		return NULL;
	value = palloc_extended(VARHDRSZ + (Size) ph->extsize, MCXT_ALLOC_HUGE);
	SET_VARSIZE(value, VARHDRSZ + ph->extsize);
	return value + VARHDRSZ;
}

/*
 * A stored packed value's keys decoded straight into room(n, type, arg),
 * which its header's count and key width are asked of before the rest is
 * read; the value read whole (uncompressed, out of line: as the packed
 * types store it) from its TOAST chunks into the current memory context,
 * checked, and its identity put into key as setops_read_stored_identity
 * reads it.  True when decoded (the decoder checks their order).  False
 * when not: with key->toastrelid and *n set when its header is sound but
 * room gave NULL (nothing more read) or its keys would not ascend (room's
 * keys are then not to be used); else nothing known (read it the usual
 * way, which says what is wrong).  strategy: as read_chunks.
 */
bool
setops_read_stored_packed_into(Datum datum,
							   void *(*room) (int64 n, SetopsKeyType type, void *arg),
							   void *arg, SetopsCacheKey *key, int64 *n,
							   BufferAccessStrategy strategy)
{
	struct varatt_external pointer;
	PackedHead	ph;
	char	   *data;
	const PackedHeader *h;

	key->toastrelid = InvalidOid;
	if (!uncompressed_pointer(datum, &pointer))
		return false;
	memset(&ph, 0, sizeof(ph));
	ph.extsize = VARATT_EXTERNAL_GET_EXTSIZE(pointer);
	ph.room = room;
	ph.arg = arg;
	data = read_chunks(&pointer, 0, packed_head, &ph, key, strategy);
	if (!ph.sound)
	{
		key->toastrelid = InvalidOid;
		return false;
	}
	key->key_type = (uint8) ph.type;
	key->packed = true;
	*n = ph.n;
	if (data == NULL)
		return false;
	h = (const PackedHeader *) (data - VARHDRSZ);
	if (setops_packed_check(h, VARSIZE(h)) != NULL)
	{
		/* (not sound after all: its identity is not to be kept) */
		key->toastrelid = InvalidOid;
		return false;
	}
	return setops_packed_decode_into(h, ph.keys) == NULL;
}

/*
 * The element count of a stored array or packed value from its header, or
 * -1 when it cannot be known this way (the value is then read normally,
 * which reports what is wrong with it).  A compressed array's count is
 * bounded by its raw size; a cached entry holds the exact count.
 */
static int64
stored_count(const SetopsCacheKey *key, bool compressed, const char *head, int head_len,
			 Oid elemtype)
{
	size_t		ks = setops_key_size(key->key_type);

	if (key->packed)
	{
		/* packed types are never compressed (STORAGE external) */
		int			key_bytes;
		int64		n = compressed ? -1 : packed_head_count(head, head_len, &key_bytes);

		return n >= 0 && (size_t) key_bytes == ks ? n : -1;
	}
	if (compressed)
		return key->rawsize > ARR_OVERHEAD_NONULLS(1) ?
			(key->rawsize - ARR_OVERHEAD_NONULLS(1)) / ks : -1;
	return array_head_count(head, head_len, elemtype, ks,
							(int64) key->rawsize - ARR_OVERHEAD_NONULLS(1));
}

/*
 * The identity of the value at pointer and its key count read as elemtype,
 * as this backend remembers them, without reading the TOAST table; false
 * when it remembers none that still stands: none read, the table
 * rewritten since (a new relfilenode), or the value id perhaps handed out
 * again since (its expiry passed; a reissued id is a new value whose
 * chunk 0 has another xmin and place).
 */
static bool
identity_remembered(const struct varatt_external *pointer, Oid elemtype, const OidClock *now,
					SetopsCacheKey *key, int64 *n)
{
	Chunk0Place *place = chunk0_place(pointer, false);
	BlockNumber nblocks;
	Relation	rel;
	Oid			relfilenode;

	if (place == NULL || !place->remembered || place->elemtype != elemtype ||
		now->clock >= place->expires)
		return false;
	rel = toast_table(pointer->va_toastrelid, &nblocks);
	relfilenode = rel_filenode(rel);
	if (rel != hold.rel)
		table_close(rel, AccessShareLock);
	if (relfilenode != place->relfilenode)
		return false;
	memset(key, 0, sizeof(*key));
	key->toastrelid = pointer->va_toastrelid;
	key->relfilenode = relfilenode;
	key->valueid = pointer->va_valueid;
	key->chunk0_xmin = place->xmin;
	key->chunk0_block = place->block;
	key->chunk0_offset = place->offset;
	key->key_type = place->key_type;
	key->packed = place->packed;
	key->rawsize = pointer->va_rawsize;
	key->extsize = VARATT_EXTERNAL_GET_EXTSIZE(*pointer);
	*n = place->n;
	return true;
}

/*
 * Remember key and n (read as elemtype) of the value at pointer, read
 * just after the counter was read as then.
 */
static void
remember_identity(const struct varatt_external *pointer, const SetopsCacheKey *key,
				  Oid elemtype, int64 n, const OidClock *then)
{
	Chunk0Place *place = chunk0_place(pointer, true);

	/* (a count the header cannot give is not remembered: the value is read) */
	place->remembered = false;
	if (n < 0 || n > PG_INT32_MAX)
		return;
	place->relfilenode = key->relfilenode;
	place->block = key->chunk0_block;
	place->offset = key->chunk0_offset;
	place->xmin = key->chunk0_xmin;
	place->key_type = key->key_type;
	place->packed = key->packed;
	place->elemtype = elemtype;
	place->n = (int32) n;
	/* the counter comes round to the value id after this many more */
	place->expires = then->clock + (uint32) (pointer->va_valueid - then->next);
	place->remembered = true;
}

/*
 * Room for n identities about to be learnt: when the remembered ones
 * would overflow, they are forgotten now (read again when next asked),
 * rather than midway through the n.
 */
void
setops_identity_make_room(int64 n)
{
	if (chunk0_places != NULL && chunk0_places->members + n > CHUNK0_PLACES_MAX)
	{
		chunk0_destroy(chunk0_places);
		chunk0_places = NULL;
	}
}

/* The OID counter now, for identities about to be read elsewhere. */
void
setops_identity_mark(SetopsOidMark *now)
{
	oid_clock_now(now, true);
}

/*
 * The identity of the value at pointer (an array of elemtype, or a packed
 * value: InvalidOid) that another process (a parallel reader) read after
 * this backend's mark `then`: remembered as if read here then (expiring no
 * later than it would have).
 */
void
setops_identity_learn(const struct varatt_external *pointer, Oid elemtype,
					  const SetopsCacheKey *key, int64 n, const SetopsOidMark *then)
{
	remember_identity(pointer, key, elemtype, n, then);
}

/*
 * A stored array or packed value of at least min_keys keys (min_keys < 0:
 * never), of type argtype, left unread by its identity: true with *keys in
 * the stored form; false, nothing read, when it is not one (read it the
 * usual way then).  exact: only a value whose header gives its exact key
 * count (not a compressed array's bound), for callers that lay out by it.
 */
bool
setops_read_stored_identity(Datum datum, Oid argtype, int argno, bool exact,
							SetopsKeys *keys, int64 min_keys)
{
	struct varlena *ptr = (struct varlena *) DatumGetPointer(datum);
	struct varatt_external toast_pointer;
	SetopsCacheKey key;
	char		head[HEAD_BYTES];
	int			head_len;
	int64		n;
	bool		is_array;
	Oid			elemtype = InvalidOid;
	SetopsKeyType type;
	OidClock	oid;

	if (min_keys < 0 || !OidIsValid(argtype) || !VARATT_IS_EXTERNAL_ONDISK(ptr))
		return false;
	/* (a chunk's rows are all of one type: looked up once while holding) */
	if (hold.holding && argtype == hold.argtype)
		elemtype = hold.elemtype;
	else
	{
		elemtype = get_element_type(argtype);
		hold.argtype = hold.holding ? argtype : InvalidOid;
		hold.elemtype = elemtype;
	}
	is_array = OidIsValid(elemtype);
	if (is_array)
		type = setops_key_type_of(elemtype);
	else
		type = SETOPS_KEY_INT32;	/* until the header says */

	/* arrays too small for the GPU are not worth the probe */
	VARATT_EXTERNAL_GET_POINTER(toast_pointer, ptr);
	if (toast_pointer.va_rawsize / (int64) setops_key_size(type) < min_keys)
		return false;
	if (exact && VARATT_EXTERNAL_IS_COMPRESSED(toast_pointer))
		return false;
	identity_oid_clock(&oid);
	if (identity_remembered(&toast_pointer, elemtype, &oid, &key, &n))
		type = (SetopsKeyType) key.key_type;
	else
	{
		if (!toast_identity(ptr, &key, head, &head_len))
			return false;
		/* a packed value's key width is in its header */
		if (!is_array && head_len >= 2)
			type = head[1] == 8 ? SETOPS_KEY_INT64 : SETOPS_KEY_INT32;
		key.key_type = (uint8) type;
		key.packed = !is_array;
		n = stored_count(&key, VARATT_EXTERNAL_IS_COMPRESSED(toast_pointer), head, head_len,
						 elemtype);
		remember_identity(&toast_pointer, &key, elemtype, n, &oid);
		if (n < 0)
			return false;
	}

	memset(keys, 0, sizeof(*keys));
	keys->form = SETOPS_KEYS_STORED;
	keys->type = type;
	keys->n = n;
	keys->argno = argno;
	keys->first_unsorted = -1;
	keys->stored = datum;
	keys->cache_key = palloc(sizeof(SetopsCacheKey));
	*keys->cache_key = key;
	return true;
}

/*
 * Argument argidx as setops_read_arg reads it, except that a stored array
 * or packed value of at least min_keys keys is left unread, by its
 * identity (min_keys < 0: never; the router says, setops_identity_min_keys).
 * Only operations that go through setops_run_setop(_packed) and
 * setops_run_count take arguments this way.
 */
void
setops_read_arg_stored(FunctionCallInfo fcinfo, int argidx, int argno, const char *fname,
					   SetopsKeys *keys, int64 min_keys)
{
	if (!setops_read_stored_identity(PG_GETARG_DATUM(argidx),
									 get_fn_expr_argtype(fcinfo->flinfo, argidx), argno,
									 false, keys, min_keys))
		setops_read_arg(fcinfo, argidx, argno, fname, keys);
}

/*
 * Read a stored argument left unread (its keys are needed here after all).
 * Its count must not grow: buffers were sized by it.
 */
void
setops_read_stored(SetopsKeys *keys, const char *fname)
{
	int64		n = keys->n;
	Datum		datum = keys->stored;
	SetopsCacheKey *key = keys->cache_key;

	Assert(keys->form == SETOPS_KEYS_STORED);
	if (key->packed)
		setops_read_packed(datum, keys->argno, fname, keys);
	else
		setops_read_keys(datum, keys->argno, fname, keys);
	keys->stored = (Datum) 0;
	keys->cache_key = key;		/* still its identity, to put in the cache */
	if (keys->n > n)
		elog(ERROR, "%s: argument %d has %lld keys, more than its header said (%lld)",
			 fname, keys->argno, (long long) keys->n, (long long) n);
}

#ifdef SETOPS_TEST_HOOKS
/*
 * Test hooks, compiled only into builds for the tests (make
 * SETOPS_TEST_HOOKS=yes) and not declared by the extension's SQL script:
 * the regression tests declare them for themselves (superuser only).
 *
 * setops_test_stored_identity(value): the identity of a stored value as
 * text (toastrelid relfilenode valueid xmin block offset rawsize extsize),
 * NULL when it is not stored out of line.
 */
PG_FUNCTION_INFO_V1(setops_test_stored_identity);
Datum
setops_test_stored_identity(PG_FUNCTION_ARGS)
{
	struct varlena *ptr = (struct varlena *) DatumGetPointer(PG_GETARG_DATUM(0));
	SetopsCacheKey key;
	char		head[HEAD_BYTES];
	int			head_len;

	if (get_typlen(get_fn_expr_argtype(fcinfo->flinfo, 0)) != -1 ||
		!VARATT_IS_EXTERNAL_ONDISK(ptr) || !toast_identity(ptr, &key, head, &head_len))
		PG_RETURN_NULL();
	PG_RETURN_TEXT_P(cstring_to_text(psprintf("%u %u %u %u %u %u %d %d",
											  key.toastrelid, key.relfilenode, key.valueid,
											  key.chunk0_xmin, key.chunk0_block,
											  (unsigned) key.chunk0_offset, key.rawsize,
											  key.extsize)));
}

/*
 * setops_test_set_next_oid(oid): the next OID the cluster hands out, as
 * after an OID wraparound, so that a test can see a TOAST value id reused.
 */
PG_FUNCTION_INFO_V1(setops_test_set_next_oid);
Datum
setops_test_set_next_oid(PG_FUNCTION_ARGS)
{
	Oid			next = PG_GETARG_OID(0);

	if (!superuser())
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("setops_test_set_next_oid: only a superuser may set the next OID")));
	if (next < FirstNormalObjectId)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("setops_test_set_next_oid: %u is below the first normal OID (%u)",
						next, FirstNormalObjectId)));
	LWLockAcquire(OidGenLock, LW_EXCLUSIVE);
	ShmemVariableCache->nextOid = next;
	ShmemVariableCache->oidCount = 0;	/* the next one logs a new prefetch */
	LWLockRelease(OidGenLock);
	PG_RETURN_VOID();
}

/* setops_test_next_oid(): the next OID the cluster hands out. */
PG_FUNCTION_INFO_V1(setops_test_next_oid);
Datum
setops_test_next_oid(PG_FUNCTION_ARGS)
{
	Oid			next;

	LWLockAcquire(OidGenLock, LW_SHARED);
	next = ShmemVariableCache->nextOid;
	LWLockRelease(OidGenLock);
	PG_RETURN_OID(next);
}

/*
 * setops_test_oid_gap(ms): the longest gap between two looks at the OID
 * counter after which this backend takes it for lost (0: the default), so
 * that a test need not wait a minute.
 */
PG_FUNCTION_INFO_V1(setops_test_oid_gap);
Datum
setops_test_oid_gap(PG_FUNCTION_ARGS)
{
	int32		ms = PG_GETARG_INT32(0);

	if (ms < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("setops_test_oid_gap: %d is negative", ms)));
	oid_seen_max_gap_ms = ms > 0 ? ms : OID_SEEN_MAX_GAP_MS;
	PG_RETURN_VOID();
}
#endif							/* SETOPS_TEST_HOOKS */
