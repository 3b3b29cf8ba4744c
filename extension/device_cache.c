/*
 * device_cache.c
 *	  The GPU service's cache of stored arrays, in device memory.
 *
 * Large stored arrays reach a function as TOAST pointers whose identity
 * (SetopsCacheKey) fixes their content.  A backend sends the key instead of
 * the array; the worker answers from the keys it holds on the device, or
 * says which argument is missing, and the backend then sends that array's
 * keys once, in pieces (REQ_CACHE_PUT).  The last piece is checked for
 * order on the device before the entry can answer anything: a cached array
 * is always a valid argument.
 *
 * Only the worker touches the cache, one request at a time, so entries
 * need no locks and one in use cannot be evicted under it.  Capacity is
 * setops.gpu_cache_size; least recently used entries go first.  The
 * figures setops_cache_stats() shows live in shared memory.
 *
 * With setops.service_emulate (no GPU) the entries live in the worker's
 * memory and the CPU engine answers from them, so the whole protocol runs
 * in CI.
 */
#include "postgres.h"

#include "lib/ilist.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"

#include "setops.h"
#include "service.h"
#include "cpu/engine.h"

int			setops_gpu_cache_size_mb = -1;

typedef struct CacheEntry
{
	SetopsCacheKey key;			/* hash key: first */
	void	   *keys;			/* device memory (host when emulating) */
	int64		n;
	Size		bytes;
	dlist_node	lru;			/* head: most recently used */
} CacheEntry;

/* A REQ_CACHE_PUT under way in one slot. */
typedef struct PendingPut
{
	bool		active;
	bool		skip;			/* already cached: the pieces are ignored */
	SetopsCacheKey key;
	void	   *keys;
	int64		n;
	Size		bytes;
} PendingPut;

static HTAB *entries = NULL;
static dlist_head lru = DLIST_STATIC_INIT(lru);
static PendingPut *pending = NULL;
static MemoryContext cache_cxt = NULL;
static Size capacity = 0;
static Size used = 0;
static uint64 epoch = 0;

static bool
emulating(void)
{
	return setops_service_emulate && setops_service->ndevices == 0;
}

/* ---- where entries live: device memory, or worker memory when emulating ---- */

static SetopsGpuStatus
store_alloc(Size bytes, void **p, char *errbuf, size_t errlen)
{
	if (!emulating())
		return setops_gpu_buffer_alloc(bytes, p, errbuf, errlen);
	*p = MemoryContextAllocExtended(cache_cxt, Max(bytes, 1), MCXT_ALLOC_HUGE | MCXT_ALLOC_NO_OOM);
	if (*p == NULL)
	{
		snprintf(errbuf, errlen, "out of memory for a cache entry of %zu bytes", bytes);
		return SETOPS_GPU_OUT_OF_MEMORY;
	}
	return SETOPS_GPU_OK;
}

static void
store_free(void *p)
{
	if (emulating())
		pfree(p);
	else
		setops_gpu_buffer_free(p);
}

static SetopsGpuStatus
store_write(void *p, Size offset, const void *src, Size bytes, char *errbuf, size_t errlen)
{
	if (!emulating())
		return setops_gpu_buffer_write(p, offset, src, bytes, errbuf, errlen);
	memcpy((char *) p + offset, src, bytes);
	return SETOPS_GPU_OK;
}

static SetopsGpuStatus
store_first_unsorted(SetopsKeyType type, const void *p, int64 n, int64 *pos,
					 char *errbuf, size_t errlen)
{
	if (!emulating())
		return setops_gpu_keys_first_unsorted(type, p, n, pos, errbuf, errlen);
	*pos = setops_cpu_first_unsorted(type, p, n);
	return SETOPS_GPU_OK;
}

/* ---- bookkeeping ---- */

static void
publish(void (*change) (ServiceCacheStats *s, int64 arg), int64 arg)
{
	SpinLockAcquire(&setops_service->mutex);
	change(&setops_service->cache[0], arg);
	setops_service->cache[0].entries = entries ? hash_get_num_entries(entries) : 0;
	setops_service->cache[0].bytes = used;
	setops_service->cache[0].capacity = capacity;
	SpinLockRelease(&setops_service->mutex);
}

static void
count_nothing(ServiceCacheStats *s, int64 arg)
{
}

static void
count_hits(ServiceCacheStats *s, int64 arg)
{
	s->hits += arg;
}

static void
count_misses(ServiceCacheStats *s, int64 arg)
{
	s->misses += arg;
}

static void
count_evictions(ServiceCacheStats *s, int64 arg)
{
	s->evictions += arg;
}

static void
drop_entry(CacheEntry *e, bool free_memory)
{
	if (free_memory)
		store_free(e->keys);
	used -= e->bytes;
	dlist_delete(&e->lru);
	hash_search(entries, &e->key, HASH_REMOVE, NULL);
}

static void
drop_pending(int slot_index, bool free_memory)
{
	PendingPut *p = &pending[slot_index];

	if (p->active && !p->skip && p->keys != NULL && free_memory)
		store_free(p->keys);
	if (p->active && !p->skip)
		used -= p->bytes;
	memset(p, 0, sizeof(*p));
}

/*
 * A device reset (after a sticky error) freed every entry with the
 * context: forget them, do not free them.
 */
static void
check_epoch(void)
{
	uint64		now = emulating() ? 0 : setops_gpu_context_epoch();
	int			i;

	if (now == epoch)
		return;
	while (!dlist_is_empty(&lru))
		drop_entry(dlist_container(CacheEntry, lru, dlist_tail_node(&lru)), false);
	for (i = 0; i < setops_service->nslots; i++)
		drop_pending(i, false);
	epoch = now;
	publish(count_nothing, 0);
}

/* Evict least recently used entries until bytes more fit. */
static bool
make_room(Size bytes)
{
	int64		evicted = 0;

	if (bytes > capacity)
		return false;
	while (used + bytes > capacity && !dlist_is_empty(&lru))
	{
		drop_entry(dlist_container(CacheEntry, lru, dlist_tail_node(&lru)), true);
		evicted++;
	}
	if (evicted)
		publish(count_evictions, evicted);
	return used + bytes <= capacity;
}

void
service_cache_init(void)
{
	HASHCTL		ctl;

	cache_cxt = AllocSetContextCreate(TopMemoryContext, "setops device cache",
									  ALLOCSET_DEFAULT_SIZES);
	memset(&ctl, 0, sizeof(ctl));
	ctl.keysize = sizeof(SetopsCacheKey);
	ctl.entrysize = sizeof(CacheEntry);
	ctl.hcxt = cache_cxt;
	entries = hash_create("setops device cache", 1024, &ctl,
						  HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	pending = MemoryContextAllocZero(cache_cxt, sizeof(PendingPut) * setops_service->nslots);
	epoch = emulating() ? 0 : setops_gpu_context_epoch();
	service_cache_configure();
}

/*
 * Capacity from setops.gpu_cache_size (at start and on reload): -1 is a
 * quarter of the device's memory (emulating: 256 MB of the worker's).
 */
void
service_cache_configure(void)
{
	bool		any = emulating() || setops_service->ndevices > 0;

	if (setops_gpu_cache_size_mb >= 0)
		capacity = (Size) setops_gpu_cache_size_mb * 1024 * 1024;
	else if (emulating())
		capacity = (Size) 256 * 1024 * 1024;
	else if (setops_service->ndevices > 0)
		capacity = (Size) (setops_service->devices[0].total_memory / 4);
	else
		capacity = 0;
	if (!any)
		capacity = 0;
	while (used > capacity && !dlist_is_empty(&lru))
	{
		drop_entry(dlist_container(CacheEntry, lru, dlist_tail_node(&lru)), true);
		publish(count_evictions, 1);
	}
	SpinLockAcquire(&setops_service->mutex);
	setops_service->ncaches = any ? 1 : 0;
	SpinLockRelease(&setops_service->mutex);
	publish(count_nothing, 0);
}

/*
 * The keys cached under key, or false; counted as a hit or a miss unless
 * this is a backend's retry after sending what was missing.
 */
bool
service_cache_lookup(const SetopsCacheKey *key, bool count, int64 *n, const void **keys)
{
	CacheEntry *e;

	check_epoch();
	e = hash_search(entries, key, HASH_FIND, NULL);
	if (e == NULL)
	{
		if (count)
			publish(count_misses, 1);
		return false;
	}
	dlist_move_head(&lru, &e->lru);
	*n = e->n;
	*keys = e->keys;
	if (count)
		publish(count_hits, 1);
	return true;
}

/*
 * One piece of a REQ_CACHE_PUT: keys [put_offset, put_offset + na) of the
 * put_total keys of a_key's array, at the slot's off_a.  The last piece
 * checks the order and makes the entry visible; an array out of order is
 * answered with unsorted_pos and not kept.  An array larger than the
 * cache is refused (UNAVAILABLE): the backend sends it with the request.
 */
void
service_cache_put(ServiceSlot *slot, int slot_index)
{
	PendingPut *p = &pending[slot_index];
	size_t		ks = slot->key_type == SETOPS_KEY_INT64 ? 8 : 4;
	char		errbuf[SETOPS_GPU_ERRLEN] = "";
	SetopsGpuStatus status = SETOPS_GPU_OK;

	check_epoch();
	slot->unsorted_arg = 0;
	slot->unsorted_pos = -1;
	if (slot->put_offset == 0)
	{
		drop_pending(slot_index, true);
		p->active = true;
		p->key = slot->a_key;
		p->n = slot->put_total;
		p->bytes = (Size) slot->put_total * ks;
		p->skip = hash_search(entries, &p->key, HASH_FIND, NULL) != NULL;
		if (!p->skip)
		{
			if (!make_room(p->bytes))
			{
				snprintf(errbuf, sizeof(errbuf),
						 "an array of %zu bytes does not fit the device cache (%zu bytes free of setops.gpu_cache_size)",
						 p->bytes, capacity - used);
				status = SETOPS_GPU_UNAVAILABLE;
			}
			else
			{
				status = store_alloc(p->bytes, &p->keys, errbuf, sizeof(errbuf));
				if (status == SETOPS_GPU_OK)
					used += p->bytes;
			}
			if (status != SETOPS_GPU_OK)
				memset(p, 0, sizeof(*p));
		}
	}
	else if (!p->active || memcmp(&p->key, &slot->a_key, sizeof(SetopsCacheKey)) != 0 ||
			 p->n != slot->put_total)
	{
		snprintf(errbuf, sizeof(errbuf), "internal error: a cache piece without its start");
		status = SETOPS_GPU_ERROR;
	}
	if (status == SETOPS_GPU_OK && slot->put_offset + slot->na > p->n)
	{
		snprintf(errbuf, sizeof(errbuf), "internal error: a cache piece past its array's end");
		status = SETOPS_GPU_ERROR;
	}
	if (status == SETOPS_GPU_OK && !p->skip)
		status = store_write(p->keys, slot->put_offset * ks, service_slot_data(slot) + slot->off_a,
							 slot->na * ks, errbuf, sizeof(errbuf));
	/* the last piece: order checked once, then the entry answers */
	if (status == SETOPS_GPU_OK && !p->skip && slot->put_offset + slot->na == p->n)
	{
		int64		pos;

		status = store_first_unsorted((SetopsKeyType) slot->key_type, p->keys, p->n, &pos,
									  errbuf, sizeof(errbuf));
		if (status == SETOPS_GPU_OK && pos >= 0)
		{
			slot->unsorted_arg = 1;
			slot->unsorted_pos = pos;
			drop_pending(slot_index, true);
		}
		else if (status == SETOPS_GPU_OK)
		{
			CacheEntry *e = hash_search(entries, &p->key, HASH_ENTER, NULL);

			e->keys = p->keys;
			e->n = p->n;
			e->bytes = p->bytes;
			dlist_push_head(&lru, &e->lru);
			memset(p, 0, sizeof(*p));	/* the entry owns the memory and its bytes now */
			publish(count_nothing, 0);
		}
	}
	if (status == SETOPS_GPU_OK && p->skip && slot->put_offset + slot->na == p->n)
		memset(p, 0, sizeof(*p));
	if (status != SETOPS_GPU_OK)
		drop_pending(slot_index, true);
	slot->status = status;
	strlcpy(slot->errmsg, errbuf, sizeof(slot->errmsg));
}

/* A slot's request ended otherwise (abandoned, another kind): drop its put. */
void
service_cache_slot_done(int slot_index)
{
	if (pending != NULL && pending[slot_index].active)
		drop_pending(slot_index, true);
}
