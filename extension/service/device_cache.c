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
 * need no locks and one in use cannot be evicted under it.  With several
 * GPUs each device holds its own share of the capacity (by default a
 * quarter of all their memory), split by the devices' weights
 * (setops.device_weights; by default their free memory), so the cache
 * holds the sum of the shares.  A new array goes to the device with the most room for its
 * share; least recently used entries of that device make room.  The
 * figures setops_cache_stats() shows, per device, live in shared memory.
 *
 * Entries are the device's buffers (device_ops.h): with the emulated
 * device (setops.service_emulate, no GPU) the worker's memory, so the
 * whole protocol runs in CI.
 */
#include "postgres.h"

#include "lib/ilist.h"
#include "port/pg_bitutils.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"

#include "setops.h"
#include "service/worker.h"
#include "service/device_ops.h"
#include "engine/cpu/engine.h"
#include "engine/common/count_split.h"

int			setops_gpu_cache_size_mb = -1;

/*
 * One device's copy of an entry.  A copy read by a request in flight on an
 * executor thread (worker_exec.c) is pinned: eviction passes it by.  Its
 * serial tells a pin's copy from a later one of the same array.
 */
/*
 * The rows of one REQ_CACHE_PUT_ROWS share one device buffer: one
 * allocation and one copy a request, where each row's own took about 2 us
 * and 3 us (22 KB rows on an H200: the DMA engine's cost a copy, not the
 * bytes).  The buffer is freed with the last copy in it, and all of it
 * counts as used until then, so that used stays the memory held; so a
 * request's rows share one only where the cache has room for them
 * (put_rows_together).
 */
typedef struct CacheSlab
{
	void	   *base;
	uint64		epoch;			/* its device's context when allocated */
	Size		bytes;
	int64		live;			/* copies in it */
} CacheSlab;

typedef struct CacheCopy
{
	void	   *keys;			/* the device's buffer; NULL: no copy there */
	CacheSlab  *slab;			/* the buffer it lies in, or NULL: its own */
	uint64		epoch;			/* its device's context when allocated */
	uint64		serial;
	int			pins;
	dlist_node	lru;			/* in its device's list, head most recently used */
} CacheCopy;

typedef struct CacheEntry
{
	SetopsCacheKey key;			/* hash key: first */
	int64		n;
	Size		bytes;
	int			ncopies;
	uint32		holds;			/* requests that held it (saturating) */
	/* where a count of it may be cut (count_split.h), or NULL: small */
	SetopsSplitPoints *splits;
	CacheCopy	copy[SERVICE_MAX_DEVICES];
} CacheEntry;

/* A REQ_CACHE_PUT under way in one slot. */
typedef struct PendingPut
{
	bool		active;
	bool		skip;			/* already cached: the pieces are ignored */
	SetopsCacheKey key;
	void	   *keys;
	int			device;
	uint64		epoch;			/* its device's context when allocated */
	bool		counted;		/* bytes added to used[device] */
	int64		n;
	Size		bytes;
	SetopsSplitPoints *splits;	/* taken from its pieces so far, or NULL */
} PendingPut;

/*
 * Arrays asked for together with one already cached: the device they
 * should go to when they are put (so that the two meet there).
 */
#define PLACE_HINTS 64
typedef struct PlaceHint
{
	SetopsCacheKey key;
	int			device;
} PlaceHint;

static HTAB *entries = NULL;
static dlist_head lru[SERVICE_MAX_DEVICES];
static PendingPut *pending = NULL;
static PlaceHint hints[PLACE_HINTS];
static int	next_hint = 0;
static MemoryContext cache_cxt = NULL;
static int	ndev = 0;
static uint64 next_serial = 0;
static uint64 removals = 0;		/* entries that left the table: refs' pointers go stale */
static uint64 resets = 0;		/* device resets seen: refs' arrays may have gone with them */
static Size capacity[SERVICE_MAX_DEVICES];
static Size used[SERVICE_MAX_DEVICES];
static int64 nentries[SERVICE_MAX_DEVICES];
static uint64 epoch[SERVICE_MAX_DEVICES];

/* ---- where entries live: the device's buffers (device_ops.h) ---- */

/*
 * Buffer operations act on the current device: make device current.  With
 * now, its context's epoch too (0 when it cannot be used).
 */
static SetopsGpuStatus
on_device(int device, uint64 *now, char *errbuf, size_t errlen)
{
	SetopsGpuStatus status = service_device->use(device, errbuf, errlen);

	if (now != NULL)
		*now = status == SETOPS_GPU_OK ? service_device->epoch() : 0;
	return status;
}

/* Free p, allocated on device in context epoch: not if the device was reset since. */
static void
store_free(int device, uint64 alloc_epoch, void *p)
{
	char		errbuf[SETOPS_GPU_ERRLEN];
	uint64		now;

	if (on_device(device, &now, errbuf, sizeof(errbuf)) == SETOPS_GPU_OK && now == alloc_epoch)
		service_device->buffer_free(p);
}

/* ---- bookkeeping ---- */

static void
publish(int device, void (*change) (ServiceCacheStats *s, int64 arg), int64 arg)
{
	int			d;

	SpinLockAcquire(&setops_service->mutex);
	change(&setops_service->cache[device], arg);
	for (d = 0; d < ndev; d++)
	{
		setops_service->cache[d].entries = nentries[d];
		setops_service->cache[d].bytes = used[d];
		setops_service->cache[d].capacity = capacity[d];
	}
	setops_service->ncaches = ndev;
	pg_atomic_write_u32(&setops_service->caching, ndev > 0 && capacity[0] > 0);
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

/* The devices holding a copy of e, as a bit mask. */
static uint32
devices_of(const CacheEntry *e)
{
	uint32		mask = 0;
	int			d;

	for (d = 0; d < ndev; d++)
		if (e->copy[d].keys != NULL)
			mask |= 1u << d;
	return mask;
}

/* A new entry of n keys in bytes, with no copy yet. */
static void
entry_init(CacheEntry *e, int64 n, Size bytes)
{
	memset(e->copy, 0, sizeof(e->copy));
	e->ncopies = 0;
	e->holds = 0;
	e->n = n;
	e->bytes = bytes;
	e->splits = NULL;
}

/*
 * The split points of an array of n keys (count_split.h) in piece (keys
 * [offset, offset + count)), into *splits (made on the first piece); none
 * for a small array.
 */
static void
take_splits(SetopsSplitPoints **splits, int key_type, const void *piece, int64 offset,
			int64 count, int64 n)
{
	if (n < SETOPS_SPLIT_MIN_KEYS)
		return;
	/* (no ERROR: an entry may be half made; out of memory, it has no points) */
	if (*splits == NULL)
		*splits = MemoryContextAllocExtended(cache_cxt, sizeof(SetopsSplitPoints),
											 MCXT_ALLOC_ZERO | MCXT_ALLOC_NO_OOM);
	if (*splits != NULL)
		setops_split_points_take(*splits, (SetopsKeyType) key_type, piece, offset, count, n);
}

/*
 * Give e the buffer keys on device (allocated in context alloc_epoch), its
 * own or in slab.
 */
static void
add_copy(CacheEntry *e, int device, void *keys, uint64 alloc_epoch, CacheSlab *slab)
{
	CacheCopy  *c = &e->copy[device];

	c->keys = keys;
	c->slab = slab;
	if (slab != NULL)
		slab->live++;
	c->epoch = alloc_epoch;
	c->serial = ++next_serial;
	c->pins = 0;
	dlist_push_head(&lru[device], &c->lru);
	e->ncopies++;
	nentries[device]++;
}

/* Drop e's copy on device; the entry with its last copy. */
static void
drop_copy(CacheEntry *e, int device, bool free_memory)
{
	CacheCopy  *c = &e->copy[device];

	if (c->slab == NULL)
	{
		if (free_memory)
			store_free(device, c->epoch, c->keys);
		used[device] -= e->bytes;
	}
	else if (--c->slab->live == 0)
	{
		if (free_memory)
			store_free(device, c->slab->epoch, c->slab->base);
		used[device] -= c->slab->bytes;
		pfree(c->slab);
	}
	nentries[device]--;
	dlist_delete(&c->lru);
	memset(c, 0, sizeof(*c));
	if (--e->ncopies == 0)
	{
		if (e->splits != NULL)
			pfree(e->splits);
		hash_search(entries, &e->key, HASH_REMOVE, NULL);
		removals++;
	}
}

static void
drop_pending(int slot_index, bool free_memory)
{
	PendingPut *p = &pending[slot_index];

	if (p->active && !p->skip && p->keys != NULL && free_memory)
		store_free(p->device, p->epoch, p->keys);
	if (p->counted)
		used[p->device] -= p->bytes;
	if (p->splits != NULL)
		pfree(p->splits);
	memset(p, 0, sizeof(*p));
}

/* The copy's entry (copies are embedded in their entries). */
static CacheEntry *
entry_of(CacheCopy *c, int device)
{
	return (CacheEntry *) ((char *) (c - device) - offsetof(CacheEntry, copy));
}

/*
 * A reset of the device (after a sticky error) freed every copy on it
 * with its context: forget them, do not free them.  True when it did.
 */
static bool
check_epoch(int device)
{
	char		errbuf[SETOPS_GPU_ERRLEN];
	uint64		now;
	dlist_mutable_iter iter;
	int			i;

	/* (every lookup asks: no reset since, without making the device current) */
	if (service_device->device_epoch(device) == epoch[device])
		return false;
	if (on_device(device, &now, errbuf, sizeof(errbuf)) != SETOPS_GPU_OK)
		return false;
	if (now == epoch[device])
		return false;
	dlist_foreach_modify(iter, &lru[device])
		drop_copy(entry_of(dlist_container(CacheCopy, lru, iter.cur), device), device, false);
	for (i = 0; i < setops_service->nslots; i++)
		if (pending[i].active && pending[i].device == device)
			drop_pending(i, false);
	epoch[device] = now;
	resets++;
	publish(device, count_nothing, 0);
	return true;
}

/* The device's least recently used copy that no request reads, or NULL. */
static CacheEntry *
oldest_on(int device)
{
	dlist_node *node;

	if (dlist_is_empty(&lru[device]))
		return NULL;
	for (node = dlist_tail_node(&lru[device]);; node = dlist_prev_node(&lru[device], node))
	{
		CacheCopy  *c = dlist_container(CacheCopy, lru, node);

		if (c->pins == 0)
			return entry_of(c, device);
		if (!dlist_has_prev(&lru[device], node))
			return NULL;
	}
}

/* Evict the device's least recently used copies until bytes more fit. */
static bool
make_room(int device, Size bytes)
{
	int64		evicted = 0;
	CacheEntry *e;

	if (bytes > capacity[device])
		return false;
	while (used[device] + bytes > capacity[device] && (e = oldest_on(device)) != NULL)
	{
		drop_copy(e, device, true);
		evicted++;
	}
	if (evicted)
		publish(device, count_evictions, evicted);
	return used[device] + bytes <= capacity[device];
}

/*
 * A buffer of bytes on device, within its capacity (counted in used):
 * least recently used copies make room, also where other device memory
 * (the pools) leaves less free than the capacity says.  UNAVAILABLE when
 * it cannot be had.
 */
static SetopsGpuStatus
cache_alloc(int device, Size bytes, void **keys, uint64 *alloc_epoch,
			char *errbuf, size_t errlen)
{
	SetopsGpuStatus status;
	CacheEntry *e;

	check_epoch(device);
	if (!make_room(device, bytes))
	{
		snprintf(errbuf, errlen,
				 "an array of %zu bytes does not fit the device cache (setops.gpu_cache_size)",
				 bytes);
		return SETOPS_GPU_UNAVAILABLE;
	}
	for (;;)
	{
		status = on_device(device, alloc_epoch, errbuf, errlen);
		if (status == SETOPS_GPU_OK)
			status = service_device->buffer_alloc(bytes, keys, errbuf, errlen);
		if (status != SETOPS_GPU_OUT_OF_MEMORY || (e = oldest_on(device)) == NULL)
			break;
		drop_copy(e, device, true);
		publish(device, count_evictions, 1);
	}
	if (status == SETOPS_GPU_OUT_OF_MEMORY)
		status = SETOPS_GPU_UNAVAILABLE;
	if (status == SETOPS_GPU_OK)
		used[device] += bytes;
	return status;
}

/*
 * Where a new array of bytes goes: the device a request asked it for with
 * an array cached there (service_cache_hint), when it has room; else the
 * device with the largest share free.
 */
static int
place(const SetopsCacheKey *key, Size bytes)
{
	int			best = -1,
				d,
				i;
	double		best_free = -1;

	for (i = 0; i < PLACE_HINTS; i++)
		if (memcmp(&hints[i].key, key, sizeof(*key)) == 0)
		{
			d = hints[i].device;
			memset(&hints[i], 0, sizeof(hints[i]));
			if (d < ndev && bytes <= capacity[d])
				return d;
		}
	for (d = 0; d < ndev; d++)
	{
		double		free_share;

		if (bytes > capacity[d])
			continue;
		free_share = (double) (capacity[d] - Min(used[d], capacity[d])) / capacity[d];
		if (free_share > best_free)
		{
			best = d;
			best_free = free_share;
		}
	}
	return best;
}

void
service_cache_init(void)
{
	HASHCTL		ctl;
	char		errbuf[SETOPS_GPU_ERRLEN];

	cache_cxt = AllocSetContextCreate(TopMemoryContext, "setops device cache",
									  ALLOCSET_DEFAULT_SIZES);
	memset(&ctl, 0, sizeof(ctl));
	ctl.keysize = sizeof(SetopsCacheKey);
	ctl.entrysize = sizeof(CacheEntry);
	ctl.hcxt = cache_cxt;
	entries = hash_create("setops device cache", 1024, &ctl,
						  HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	pending = MemoryContextAllocZero(cache_cxt, sizeof(PendingPut) * setops_service->nslots);
	ndev = Min(setops_service->ndevices, SERVICE_MAX_DEVICES);
	for (int d = 0; d < SERVICE_MAX_DEVICES; d++)
		dlist_init(&lru[d]);
	for (int d = 0; d < ndev; d++)
		(void) on_device(d, &epoch[d], errbuf, sizeof(errbuf));
	service_cache_configure();
}

/*
 * Each device's capacity (at start and on reload): setops.gpu_cache_size,
 * or with -1 a quarter of all the devices' memory (256 MB where the
 * device's memory is the worker's), split between the devices by their weights (by default
 * their free memory at service start; at most half of a device's memory).
 */
void
service_cache_configure(void)
{
	double		weights[SERVICE_MAX_DEVICES];
	double		sum = 0,
				total_memory = 0;
	int			d;

	service_device_weights(weights, ndev);
	for (d = 0; d < ndev; d++)
	{
		sum += weights[d];
		total_memory += setops_service->devices[d].total_memory;
	}
	for (d = 0; d < ndev; d++)
	{
		CacheEntry *e;

		double		share = sum > 0 ? weights[d] / sum : 1.0 / ndev;

		if (setops_gpu_cache_size_mb >= 0)
			capacity[d] = (Size) ((double) setops_gpu_cache_size_mb * 1024 * 1024 * share);
		else if (service_device->host_memory)
			capacity[d] = (Size) 256 * 1024 * 1024;	/* no device memory to share */
		else
		{
			/* a quarter of all device memory, shared by weight, within each device's */
			capacity[d] = (Size) Min(total_memory * 0.25 * share,
									 setops_service->devices[d].total_memory * 0.5);
		}
		/* (copies that requests in flight read go when they are released) */
		while (used[d] > capacity[d] && (e = oldest_on(d)) != NULL)
		{
			drop_copy(e, d, true);
			publish(d, count_evictions, 1);
		}
	}
	publish(0, count_nothing, 0);
}

/*
 * The array cached under key: its size and the devices holding a copy, or
 * false.  Not counted (service_cache_count).
 */
bool
service_cache_find(const SetopsCacheKey *key, ServiceCacheRef *ref)
{
	CacheEntry *e = hash_search(entries, key, HASH_FIND, NULL);
	int			d;

	/* a reset of a device drops the copies it held (perhaps the last) */
	for (d = 0; e != NULL && d < ndev; d++)
		if (e->copy[d].keys != NULL && check_epoch(d))
			e = hash_search(entries, key, HASH_FIND, NULL);
	if (e == NULL)
		return false;
	ref->key = *key;
	ref->n = e->n;
	ref->devices = devices_of(e);
	ref->entry = e;
	ref->removals = removals;
	ref->resets = resets;
	return true;
}

/*
 * Hits found on each device (by the lowest device holding a copy, as
 * service_cache_lookup counts them) and misses, published at once: a
 * batch's rows take the stats' lock once, not once a row.
 */
void
service_cache_count(const int64 *hits, int64 misses)
{
	int			d;

	SpinLockAcquire(&setops_service->mutex);
	for (d = 0; d < ndev; d++)
		setops_service->cache[d].hits += hits[d];
	setops_service->cache[0].misses += misses;
	SpinLockRelease(&setops_service->mutex);
}

/*
 * service_cache_find, counted as a hit or a miss unless this is a
 * backend's retry after sending what was missing.
 */
bool
service_cache_lookup(const SetopsCacheKey *key, bool count, ServiceCacheRef *ref)
{
	bool		found = service_cache_find(key, ref);

	if (count && found)
		publish(pg_rightmost_one_pos32(ref->devices), count_hits, 1);
	else if (count)
		publish(0, count_misses, 1);
	return found;
}

/* ref's entry: the one found, unless an entry has left the table since. */
static CacheEntry *
ref_entry(const ServiceCacheRef *ref)
{
	if (ref->entry != NULL && ref->removals == removals)
		return (CacheEntry *) ref->entry;
	return hash_search(entries, &ref->key, HASH_FIND, NULL);
}

/*
 * ref's copies to the head of their devices' LRU lists, not held: a row a
 * count batch found while others of its request missed, so that putting
 * those does not evict it before the request is asked again.
 */
void
service_cache_touch(const ServiceCacheRef *ref)
{
	CacheEntry *e = ref_entry(ref);
	int			d;

	for (d = 0; e != NULL && d < ndev; d++)
		if (e->copy[d].keys != NULL)
			dlist_move_head(&lru[d], &e->copy[d].lru);
}

/*
 * Whether ref's array has a copy on device now.  A request holding several
 * arrays holds those first (service_cache_hold pins them), so that copying
 * the others there, which may evict to make room, cannot evict them: the
 * last copy of an array not yet held would go, and its entry with it.
 */
bool
service_cache_on(const ServiceCacheRef *ref, int device)
{
	CacheEntry *e = ref_entry(ref);

	return e != NULL && e->copy[device].keys != NULL;
}

/*
 * Whether device may take copies of the arrays of a and b (either may be
 * NULL) that it lacks: each was held before, by a request or a batch (an
 * array met for the first time, a scan's, is not worth a copy), and they
 * fit there now without evicting anything.
 */
bool
service_cache_can_gather(const ServiceCacheRef *a, const ServiceCacheRef *b, int device)
{
	CacheEntry *e[2] = {a ? ref_entry(a) : NULL, b ? ref_entry(b) : NULL};
	Size		need = 0;
	int			i;

	if (e[1] == e[0])
		e[1] = NULL;			/* (one array twice: one copy) */
	for (i = 0; i < 2; i++)
	{
		if (e[i] == NULL || e[i]->copy[device].keys != NULL)
			continue;
		if (e[i]->holds == 0)
			return false;
		need += e[i]->bytes;
	}
	return used[device] + need <= capacity[device];
}

/*
 * ref's split points (count_split.h) into *splits: false when it has none
 * (a small array).
 */
bool
service_cache_splits(const ServiceCacheRef *ref, SetopsSplitPoints *splits)
{
	CacheEntry *e = ref_entry(ref);

	if (e == NULL || e->splits == NULL)
		return false;
	*splits = *e->splits;
	return true;
}

/* When key is put, it should go to device (a request meets a copy there). */
void
service_cache_hint(const SetopsCacheKey *key, int device)
{
	hints[next_hint].key = *key;
	hints[next_hint].device = device;
	next_hint = (next_hint + 1) % PLACE_HINTS;
}

/*
 * ref's keys on device, held for a request in flight until
 * service_cache_release(hold): its copy there, pinned, or one made now
 * from another device's copy.  Made copies stay in the cache when there
 * is room (arrays used together end up together, and a hot array on every
 * device that serves it); else the copy is the request's alone and freed
 * with the hold.  The job that reads it was bound to device before
 * (service_exec_bind): a reset since shows there, one after here.
 */
SetopsGpuStatus
service_cache_hold(const ServiceCacheRef *ref, int device, ServiceCacheHold *hold,
				   const void **keys, char *errbuf, size_t errlen)
{
	CacheEntry *e;
	SetopsGpuStatus status;
	void	   *copy = NULL;
	uint64		copy_epoch = 0;
	int			src,
				d;

	memset(hold, 0, sizeof(*hold));
	/* (a device reset since the request found its arrays drops its copies) */
	for (d = 0; d < ndev; d++)
		(void) check_epoch(d);
	e = ref_entry(ref);
	if (e == NULL || e->ncopies == 0)
	{
		snprintf(errbuf, errlen, "%s", ref->resets != resets ? SERVICE_RESET_MSG :
				 "internal error: a cached array went away under its request");
		return SETOPS_GPU_ERROR;
	}
	if (e->copy[device].keys == NULL)
	{
		bool		kept;

		src = pg_rightmost_one_pos32(devices_of(e));
		kept = cache_alloc(device, e->bytes, &copy, &copy_epoch, errbuf, errlen) == SETOPS_GPU_OK;
		/* (cache_alloc may have evicted e's copies, but never its last: src stays) */
		status = kept ? SETOPS_GPU_OK : on_device(device, &copy_epoch, errbuf, errlen);
		if (!kept && status == SETOPS_GPU_OK)
			status = service_device->buffer_alloc(e->bytes, &copy, errbuf, errlen);
		if (status == SETOPS_GPU_OK)
			status = service_device->buffer_copy_peer(copy, device, e->copy[src].keys, src,
													  e->bytes, errbuf, errlen);
		/* (a reset of the source since its copies were checked: what was read may be lost) */
		if (status == SETOPS_GPU_OK && service_device->device_epoch(src) != epoch[src])
		{
			snprintf(errbuf, errlen, "%s", SERVICE_RESET_MSG);
			status = SETOPS_GPU_ERROR;
		}
		if (status != SETOPS_GPU_OK)
		{
			if (copy != NULL)
				store_free(device, copy_epoch, copy);
			if (kept)
				used[device] -= e->bytes;
			return status;
		}
		pg_atomic_fetch_add_u64(&setops_service->load[device].copies, 1);
		if (!kept)
		{
			hold->temp = copy;
			hold->device = device;
			hold->epoch = copy_epoch;
			*keys = copy;
			return SETOPS_GPU_OK;
		}
		add_copy(e, device, copy, copy_epoch, NULL);
		publish(device, count_nothing, 0);
	}
	e->copy[device].pins++;
	if (e->holds < PG_UINT32_MAX)
		e->holds++;
	dlist_move_head(&lru[device], &e->copy[device].lru);
	hold->pinned = true;
	hold->key = ref->key;
	hold->device = device;
	hold->serial = e->copy[device].serial;
	hold->entry = e;
	*keys = e->copy[device].keys;
	return SETOPS_GPU_OK;
}

/*
 * The arrays of a and b (either may be NULL: not cached) held on device
 * for one request, into holds[0] and holds[1], their keys into *a_keys and
 * *b_keys: one already there held first, so that copying the other there
 * cannot evict it.  What was held before a failure is released with holds.
 */
SetopsGpuStatus
service_cache_hold_pair(const ServiceCacheRef *a, const ServiceCacheRef *b, int device,
						ServiceCacheHold *holds, const void **a_keys, const void **b_keys,
						char *errbuf, size_t errlen)
{
	bool		b_first = a != NULL && b != NULL && !service_cache_on(a, device) &&
		service_cache_on(b, device);
	SetopsGpuStatus status = SETOPS_GPU_OK;

	if (b_first)
		status = service_cache_hold(b, device, &holds[1], b_keys, errbuf, errlen);
	if (status == SETOPS_GPU_OK && a != NULL)
		status = service_cache_hold(a, device, &holds[0], a_keys, errbuf, errlen);
	if (status == SETOPS_GPU_OK && b != NULL && !b_first)
		status = service_cache_hold(b, device, &holds[1], b_keys, errbuf, errlen);
	return status;
}

/* A request in flight is done with what it held. */
void
service_cache_release(const ServiceCacheHold *hold)
{
	if (hold->temp != NULL)
		store_free(hold->device, hold->epoch, hold->temp);
	else if (hold->pinned)
	{
		/*
		 * Its entry's memory stays the table's (dynahash keeps removed
		 * entries for reuse, and the table lives as long as the worker):
		 * the serial, unique to the copy pinned, says whether the copy is
		 * still there (it may have gone with a reset of its device).
		 */
		CacheEntry *e = (CacheEntry *) hold->entry;

		if (e != NULL && e->copy[hold->device].keys != NULL &&
			e->copy[hold->device].serial == hold->serial && e->copy[hold->device].pins > 0)
			e->copy[hold->device].pins--;
	}
}

/*
 * One piece of a REQ_CACHE_PUT: keys [put_offset, put_offset + na) of the
 * put_total keys of a_key's array, at the slot's off_a.  The last piece
 * checks the order and makes the entry visible; an array out of order is
 * answered with unsorted_pos and not kept.  An array larger than the
 * cache is refused (UNAVAILABLE): the backend sends it with the request.
 */
SetopsGpuStatus
service_cache_put(ServiceSlot *slot, int slot_index, char *errbuf, size_t errlen)
{
	const ServiceCachePutRequest *r = &slot->req.put;
	PendingPut *p = &pending[slot_index];
	size_t		ks = setops_key_size(r->key_type);
	SetopsGpuStatus status = SETOPS_GPU_OK;

	slot->unsorted_arg = 0;
	slot->unsorted_pos = -1;
	if (r->offset == 0)
	{
		Size		bytes = (Size) r->total * ks;
		int			device = place(&r->key, bytes);

		drop_pending(slot_index, true);
		if (hash_search(entries, &r->key, HASH_FIND, NULL) != NULL)
			p->skip = true;
		else if (device < 0)
		{
			snprintf(errbuf, errlen,
					 "an array of %zu bytes does not fit the device cache (setops.gpu_cache_size)",
					 bytes);
			status = SETOPS_GPU_UNAVAILABLE;
		}
		else
		{
			/* (UNAVAILABLE: the backend sends the array with the request instead) */
			status = cache_alloc(device, bytes, &p->keys, &p->epoch, errbuf, errlen);
			p->counted = status == SETOPS_GPU_OK;
		}
		if (status == SETOPS_GPU_OK)
		{
			p->active = true;
			p->key = r->key;
			p->n = r->total;
			p->bytes = bytes;
			p->device = Max(device, 0);
		}
		else
			memset(p, 0, sizeof(*p));
	}
	else
	{
		bool		was_active = p->active && !p->skip;

		/* a reset of the device since the first piece dropped this put */
		if (was_active)
			check_epoch(p->device);
		if (was_active && !p->active)
		{
			snprintf(errbuf, errlen, "the GPU was reset while the array was being cached");
			status = SETOPS_GPU_UNAVAILABLE;
		}
		else if (!p->active || memcmp(&p->key, &r->key, sizeof(SetopsCacheKey)) != 0 ||
				 p->n != r->total)
		{
			snprintf(errbuf, errlen, "internal error: a cache piece without its start");
			status = SETOPS_GPU_ERROR;
		}
	}
	if (status == SETOPS_GPU_OK && r->offset + r->n > p->n)
	{
		snprintf(errbuf, errlen, "internal error: a cache piece past its array's end");
		status = SETOPS_GPU_ERROR;
	}
	if (status == SETOPS_GPU_OK && !p->skip)
		status = on_device(p->device, NULL, errbuf, errlen);
	if (status == SETOPS_GPU_OK && !p->skip)
		status = service_device->buffer_write(p->keys, r->offset * ks,
											  service_slot_data(slot) + r->off_keys, r->n * ks,
											  errbuf, errlen);
	if (status == SETOPS_GPU_OK && !p->skip)
		take_splits(&p->splits, r->key_type, service_slot_data(slot) + r->off_keys, r->offset,
					r->n, p->n);
	/*
	 * The last piece, on the device just written to: order checked once,
	 * then the entry answers.
	 */
	if (status == SETOPS_GPU_OK && !p->skip && r->offset + r->n == p->n)
	{
		int64		pos;

		status = service_device->keys_first_unsorted((SetopsKeyType) r->key_type, p->keys, p->n,
													 &pos, errbuf, errlen);
		if (status == SETOPS_GPU_OK && pos >= 0)
		{
			slot->unsorted_arg = 1;
			slot->unsorted_pos = pos;
			drop_pending(slot_index, true);
		}
		else if (status == SETOPS_GPU_OK)
		{
			bool		found;
			CacheEntry *e = hash_search(entries, &p->key, HASH_ENTER, &found);

			if (!found)
			{
				entry_init(e, p->n, p->bytes);
				e->splits = p->splits;
				p->splits = NULL;
			}
			if (e->copy[p->device].keys != NULL)
			{
				/* another backend cached the same array there meanwhile: keep that one */
				dlist_move_head(&lru[p->device], &e->copy[p->device].lru);
				drop_pending(slot_index, true);
			}
			else
			{
				int			device = p->device;

				add_copy(e, device, p->keys, p->epoch, NULL);
				if (p->splits != NULL)
					pfree(p->splits);	/* (the entry's are the same) */
				memset(p, 0, sizeof(*p));	/* the entry owns the memory and its bytes now */
				publish(device, count_nothing, 0);
			}
		}
	}
	if (status == SETOPS_GPU_OK && p->skip && r->offset + r->n == p->n)
		memset(p, 0, sizeof(*p));
	if (status != SETOPS_GPU_OK)
		drop_pending(slot_index, true);
	return status;
}

/* Rows answered kept that are no longer there (a key put twice, or evicted by a later row). */
static void
unkeep_gone(ServiceCachePutRow *rows, int64 nrows)
{
	int64		i;

	for (i = 0; i < nrows; i++)
		if (rows[i].kept && hash_search(entries, &rows[i].key, HASH_FIND, NULL) == NULL)
			rows[i].kept = rows[i].put = false;
}

/* The rows a REQ_CACHE_PUT_ROWS put on device whose writes failed: out of the cache again. */
static void
drop_rows_put(ServiceCachePutRow *rows, int64 nrows, int device)
{
	int64		i;

	for (i = 0; i < nrows; i++)
	{
		CacheEntry *e;

		if (!rows[i].put)
			continue;
		e = hash_search(entries, &rows[i].key, HASH_FIND, NULL);
		if (e != NULL && e->copy[device].keys != NULL && e->ncopies == 1)
			drop_copy(e, device, true);
	}
	unkeep_gone(rows, nrows);
}

/*
 * The rows of a REQ_CACHE_PUT_ROWS that the cache does not hold, put in
 * one buffer (CacheSlab) by one copy of the span of the slot they lie in:
 * true when done so (*status, *device set; rows[].kept and .put as
 * service_cache_put_rows says), false when they go row by row instead
 * (fewer than two, or the span mostly rows the cache holds, or no room
 * for it in one piece).
 */
static bool
put_rows_together(ServiceCachePutRow *rows, int64 nrows, char *base, int key_type,
				  SetopsGpuStatus *status, int *device, char *errbuf, size_t errlen)
{
	bool	   *fresh = palloc(sizeof(bool) * Max(nrows, 1));
	int64		i,
				nfresh = 0,
				first = -1;
	Size		need = 0,
				lo = 0,
				hi = 0,
				span;
	void	   *buf = NULL;
	uint64		buf_epoch = 0;
	CacheSlab  *slab;
	bool		done = false;
	size_t		ks = setops_key_size(key_type);

	*status = SETOPS_GPU_OK;
	for (i = 0; i < nrows; i++)
	{
		Size		bytes = (Size) rows[i].n * ks;

		/* (an empty row as the row-by-row put takes it; rows as aligned there) */
		if (bytes == 0 || (first >= 0 && (rows[i].off_keys - lo) % SETOPS_GPU_ROW_ALIGN != 0))
			goto out;
		fresh[i] = hash_search(entries, &rows[i].key, HASH_FIND, NULL) == NULL;
		if (!fresh[i])
			continue;
		if (first < 0 || rows[i].off_keys < lo)
			lo = rows[i].off_keys;
		if (first < 0 || rows[i].off_keys + bytes > hi)
			hi = rows[i].off_keys + bytes;
		if (first < 0)
			first = i;
		need += bytes;
		nfresh++;
	}
	/* (the last row's tail padded as the slot pads the others) */
	span = TYPEALIGN(SETOPS_GPU_ROW_ALIGN, hi - lo);
	/*
	 * Only into room the cache has: a buffer goes only with its last copy,
	 * so that evicting for one would take hot rows along with cold ones;
	 * a full cache makes room row by row, least recently used first.
	 */
	if (nfresh < 2 || span > 2 * need || (*device = place(&rows[first].key, span)) < 0 ||
		used[*device] + span > capacity[*device])
		goto out;
	*status = cache_alloc(*device, span, &buf, &buf_epoch, errbuf, errlen);
	if (*status == SETOPS_GPU_UNAVAILABLE)
	{
		*status = SETOPS_GPU_OK;
		goto out;
	}
	done = true;
	if (*status == SETOPS_GPU_OK)
		*status = service_device->buffer_write_queued(buf, 0, base + lo, hi - lo, errbuf, errlen);
	if (*status != SETOPS_GPU_OK)
	{
		if (buf != NULL)
		{
			store_free(*device, buf_epoch, buf);
			used[*device] -= span;
		}
		goto out;
	}
	slab = MemoryContextAllocZero(cache_cxt, sizeof(CacheSlab));
	slab->base = buf;
	slab->epoch = buf_epoch;
	slab->bytes = span;
	for (i = 0; i < nrows; i++)
	{
		CacheEntry *e;
		bool		found;

		if (!fresh[i])
		{
			/* (held: kept, unless the room made for the rest evicted it: unkeep_gone) */
			rows[i].kept = true;
			continue;
		}
		e = hash_search(entries, &rows[i].key, HASH_ENTER, &found);
		rows[i].kept = true;
		if (found)
			continue;			/* (a key put twice: its first row holds it) */
		entry_init(e, rows[i].n, (Size) rows[i].n * ks);
		take_splits(&e->splits, key_type, base + rows[i].off_keys, 0, rows[i].n, rows[i].n);
		add_copy(e, *device, (char *) buf + (rows[i].off_keys - lo), buf_epoch, slab);
		rows[i].put = true;
	}
	Assert(slab->live > 0);
out:
	pfree(fresh);
	return done;
}

/*
 * REQ_CACHE_PUT_ROWS: whole arrays the backend checked, into the cache in
 * one trip, together on one device (where the first goes: its hint, else
 * the largest share free), so that the rows of a batch end up where the
 * batch runs.  A row the cache holds already answers kept; one it cannot
 * take (no room) answers not kept and goes by its keys.  A device error
 * fails the request; the rows put before it stay, each entry complete.
 */
SetopsGpuStatus
service_cache_put_rows(ServiceSlot *slot, int slot_index, char *errbuf, size_t errlen)
{
	const ServiceCachePutRowsRequest *r = &slot->req.put_rows;
	char	   *base = service_slot_data(slot);
	ServiceCachePutRow *rows = (ServiceCachePutRow *) (base + r->off_rows);
	size_t		ks = setops_key_size(r->key_type);
	SetopsGpuStatus status = SETOPS_GPU_OK;
	uint32		touched = 0;
	int			device = -1,
				d;
	int64		i;

	for (i = 0; i < r->nrows; i++)
		rows[i].kept = rows[i].put = false;
	if (put_rows_together(rows, r->nrows, base, r->key_type, &status, &device, errbuf, errlen))
	{
		if (device >= 0)
			touched |= 1u << device;
		i = r->nrows;			/* (every row answered) */
	}
	else
		i = 0;
	for (; i < r->nrows && status == SETOPS_GPU_OK; i++)
	{
		ServiceCachePutRow *row = &rows[i];
		Size		bytes = (Size) row->n * ks;
		CacheEntry *e = hash_search(entries, &row->key, HASH_FIND, NULL);
		void	   *keys = NULL;
		uint64		epoch = 0;
		bool		found;

		if (e != NULL)
		{
			row->kept = true;
			continue;
		}
		if (device < 0 || bytes > capacity[device])
			device = place(&row->key, bytes);
		if (device < 0)
			continue;
		status = cache_alloc(device, bytes, &keys, &epoch, errbuf, errlen);
		if (status == SETOPS_GPU_UNAVAILABLE)
		{
			status = SETOPS_GPU_OK;
			continue;
		}
		/* (queued: the rows' writes are waited for together, below) */
		if (status == SETOPS_GPU_OK)
			status = service_device->buffer_write_queued(keys, 0, base + row->off_keys, bytes,
														 errbuf, errlen);
		if (status != SETOPS_GPU_OK)
		{
			if (keys != NULL)
			{
				store_free(device, epoch, keys);
				used[device] -= bytes;
			}
			break;
		}
		e = hash_search(entries, &row->key, HASH_ENTER, &found);
		Assert(!found);
		entry_init(e, row->n, bytes);
		take_splits(&e->splits, r->key_type, base + row->off_keys, 0, row->n, row->n);
		add_copy(e, device, keys, epoch, NULL);
		touched |= 1u << device;
		row->kept = true;
		row->put = true;
	}
	/* every queued write done, or the rows put here dropped again */
	for (d = 0; d < ndev; d++)
	{
		SetopsGpuStatus wrote;

		if (!(touched & (1u << d)))
			continue;
		wrote = service_device->use(d, errbuf, errlen);
		if (wrote == SETOPS_GPU_OK)
			wrote = service_device->buffer_writes_wait(errbuf, errlen);
		if (wrote != SETOPS_GPU_OK)
		{
			status = wrote;
			drop_rows_put(rows, r->nrows, d);
		}
		publish(d, count_nothing, 0);
	}
	/* (making room for a later row may have evicted an earlier one) */
	unkeep_gone(rows, r->nrows);
	return status;
}

/* A slot's request ended otherwise (abandoned, another kind): drop its put. */
void
service_cache_slot_done(int slot_index)
{
	if (pending != NULL && pending[slot_index].active)
		drop_pending(slot_index, true);
}
