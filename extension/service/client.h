/*
 * client.h
 *	  The GPU service's backend side (client*.c): claiming slots, sending
 *	  requests, streams of staged keys.  Used by exec/; uses protocol.h and
 *	  engine/.
 */
#ifndef SETOPS_SERVICE_CLIENT_H
#define SETOPS_SERVICE_CLIENT_H

#include "service/protocol.h"

/* client.c: slots, for the other request senders */
extern bool service_client_up(char *errbuf, size_t errlen);
extern ServiceSlot *service_claim_slot(void);
extern SetopsGpuStatus service_submit(ServiceSlot *slot, char *errbuf, size_t errlen);
extern void service_release_slot(void);
/* a request whose answer is awaited later, by service_wait */
extern SetopsGpuStatus service_submit_nowait(ServiceSlot *slot, char *errbuf, size_t errlen);
extern SetopsGpuStatus service_wait(ServiceSlot *slot, char *errbuf, size_t errlen);
/* the one slot a backend's stream keeps across calls (client_stage.c) */
extern ServiceSlot *service_claim_stream_slot(uint64 *token);
extern bool service_holds_stream_slot(ServiceSlot *slot, uint64 token);
extern void service_release_stream_slot(ServiceSlot *slot, uint64 token);

/*
 * client.c: the backend's side, with the signatures of the GPU
 * interface (engine/gpu/setops_gpu.h), so the dispatcher does not care which.
 * SETOPS_GPU_TOO_LARGE when a request cannot be split to fit a slot
 * (packed values, sorts); SETOPS_GPU_NO_SERVICE when the worker is not
 * running.
 */
extern int	setops_service_device_count(char *errbuf, size_t errlen);
extern double setops_service_request_cpu_ms(void);
extern SetopsGpuStatus setops_service_device_info(int index, SetopsGpuDeviceInfo *info,
												  char *errbuf, size_t errlen);
extern SetopsGpuStatus setops_service_setop(SetopsGpuSetopArgs *args,
											char *errbuf, size_t errlen);
extern SetopsGpuStatus setops_service_sort(SetopsKeyType key_type, void *keys, int64 *n,
										   int distinct, char *errbuf, size_t errlen);
extern bool setops_service_fits(Size bytes);
extern bool setops_service_caches(void);
extern SetopsGpuStatus setops_service_setop_cached(SetopsGpuSetopArgs *args,
												  const SetopsCacheKey *a_key,
												  const SetopsCacheKey *b_key, bool retry,
												  int *missing, char *errbuf, size_t errlen);
extern SetopsGpuStatus setops_service_cache_put(const SetopsCacheKey *key, const void *keys,
												int64 n, int64 *unsorted_pos,
												char *errbuf, size_t errlen);
extern SetopsGpuStatus setops_service_cache_put_rows(SetopsKeyType key_type, int64 nrows,
													 const SetopsCacheKey *const *cache_keys,
													 const void *const *keys, const int64 *n,
													 bool *kept, char *errbuf, size_t errlen);
/* rows read straight into a slot for the cache (a parallel reader's puts) */
typedef struct SetopsPutWriter SetopsPutWriter;
extern SetopsPutWriter *setops_service_put_writer(SetopsKeyType type, int max_rows);
extern bool setops_service_put_fits(const SetopsPutWriter *w, int64 n, bool alone);
extern void *setops_service_put_room(SetopsPutWriter *w, int64 n);
extern void setops_service_put_commit(SetopsPutWriter *w, const SetopsCacheKey *key);
extern void setops_service_put_drop(SetopsPutWriter *w);
extern int64 setops_service_put_rows_written(const SetopsPutWriter *w);
extern SetopsGpuStatus setops_service_put_send(SetopsPutWriter *w, bool *kept,
											   char *errbuf, size_t errlen);
extern void setops_service_put_retype(SetopsPutWriter *w, SetopsKeyType type);
extern void setops_service_put_release(SetopsPutWriter *w);
extern void setops_service_refresh_devices(void);
extern int	setops_service_cache_stats(SetopsCacheStats *stats);
extern int	setops_service_load_stats(SetopsServiceStats *stats);
extern int	setops_service_inject_faults(int device, int failures, const char *kind);

/*
 * client_batch.c.  setops_service_batch sends pairs
 * first.. of batch, as many as fit one slot, and sets *next after the last
 * sent (*next == first: that pair alone does not fit a slot); outputs and
 * positions go to out / out_pos, lengths to out_lengths[first..], the
 * count to *n.
 */
struct SetopsBatch;
extern SetopsGpuStatus setops_service_batch(const struct SetopsBatch *batch, int64 first,
											int64 *next, void *out, int64 *out_lengths,
											int64 *out_pos, int64 *n,
											char *errbuf, size_t errlen);
/*
 * setops_service_count_batch likewise: count_mode (SetopsGpuCountMode) of
 * pairs first.., the device's answers (setops_gpu_count_batch's) into
 * answers[first..].  Stored rows of A (batch->a_rows) go by their identity
 * while batch->a_identity says so: when the device cache misses any,
 * nothing is answered, *missing gets their number and their answers
 * SETOPS_BATCH_MISSING (the others 0); the caller sends them (put into the
 * cache, or as keys) and asks again with retry (not counted again).
 */
#define SETOPS_BATCH_MISSING (-1)
extern SetopsGpuStatus setops_service_count_batch(const struct SetopsBatch *batch,
												  int count_mode, int64 first, bool retry,
												  int64 *next, int64 *answers, int64 *missing,
												  char *errbuf, size_t errlen);
/*
 * The same, its first request sent without waiting (begin: false when it
 * cannot be, on this backend's one stream slot) and answered later (end:
 * pairs [0, flight->last), as setops_service_count_batch answers them),
 * so that the backend works meanwhile; abandon when the answers are no
 * longer wanted.  A transaction abort gives the slot back too
 * (SetopsCountFlight: setops.h).
 */
extern bool setops_service_count_batch_begin(const struct SetopsBatch *batch, int count_mode,
											 SetopsCountFlight *flight);
extern SetopsGpuStatus setops_service_count_batch_end(SetopsCountFlight *flight,
													  int64 *answers, int64 *missing,
													  char *errbuf, size_t errlen);
extern void setops_service_count_batch_abandon(SetopsCountFlight *flight);

/*
 * client_stage.c.  setops_service_reduce stages the
 * runs on the device, reduces them there and reads the result back into
 * alloc(n)'s buffer (setops_service_reduce_fits says whether it can).
 *
 * A stream stages keys as they come, from one call to the next: open
 * gives NULL when this backend streams already, no slot is free or there
 * is no service (keep the keys in host memory then); its slot is given
 * back by close, by a reset of cxt, or by a transaction abort; it takes
 * what setops_service_reduce_fits allows.  reserve gives room for n keys
 * in the slot, to be written there and counted by commit (NULL when n is
 * more than fits at once: put them instead).  reduce reduces all keys put
 * as the runs of lengths; fetch reads them back as
 * put (into count keys at dst), the rows of a failed put included, as far
 * as the stage is intact.  After a failure, only fetch and close.
 */
typedef struct SetopsStageStream SetopsStageStream;
extern bool setops_service_reduce_fits(SetopsKeyType type, int64 total, int64 nruns);
extern SetopsGpuStatus setops_service_reduce(SetopsOp op, SetopsKeyType type, const void *keys,
											 const int64 *lengths, int64 nruns, int64 total,
											 void *(*alloc) (int64 n, void *arg), void *arg,
											 void **result, int64 *n,
											 char *errbuf, size_t errlen);
extern SetopsStageStream *setops_service_stream_open(SetopsKeyType type, int64 hint,
													 MemoryContext cxt);
extern int64 setops_service_stream_count(const SetopsStageStream *s);
extern SetopsGpuStatus setops_service_stream_put(SetopsStageStream *s, const void *keys,
												 int64 n, char *errbuf, size_t errlen);
extern SetopsGpuStatus setops_service_stream_reserve(SetopsStageStream *s, int64 n,
													 void **room, char *errbuf, size_t errlen);
extern SetopsGpuStatus setops_service_stream_commit(SetopsStageStream *s, int64 n,
													char *errbuf, size_t errlen);
extern SetopsGpuStatus setops_service_stream_reduce(SetopsStageStream *s, SetopsOp op,
													const int64 *lengths, int64 nruns,
													void *(*alloc) (int64 n, void *arg), void *arg,
													void **result, int64 *n,
													char *errbuf, size_t errlen);
extern SetopsGpuStatus setops_service_stream_fetch(SetopsStageStream *s, void *dst,
												   char *errbuf, size_t errlen);
extern void setops_service_stream_close(SetopsStageStream *s);
extern void setops_service_wait_ready(void);

#endif							/* SETOPS_SERVICE_CLIENT_H */
