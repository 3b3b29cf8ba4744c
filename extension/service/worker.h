/*
 * worker.h
 *	  The GPU service's worker side: what worker.c, device_cache.c, and the
 *	  worker halves of batches and staged reductions offer one another.
 *	  Uses protocol.h, device_ops.h and engine/ only: never exec/ or funcs/.
 */
#ifndef SETOPS_SERVICE_WORKER_H
#define SETOPS_SERVICE_WORKER_H

#include "service/protocol.h"
#include "service/device_ops.h"

/* worker.c: the device this worker serves with, chosen at its start */
extern const DeviceOps *service_device;

/*
 * Request handlers (worker.c's table): each answers in the slot and
 * returns the status, the message in errbuf.
 */

/* worker.c: each device's weight, from setops.device_weights */
extern void service_device_weights(double *weights, int ndevices);

/* device_cache.c: the worker's cache of stored arrays */
extern void service_cache_init(void);
extern void service_cache_configure(void);
extern SetopsGpuStatus service_cache_put(ServiceSlot *slot, int slot_index,
										 char *errbuf, size_t errlen);
extern bool service_cache_lookup(const SetopsCacheKey *key, bool count, int64 *n,
								 const void **keys, int *device);
extern void service_cache_slot_done(int slot_index);

/* worker_batch.c: batches */
extern SetopsGpuStatus service_run_batch(ServiceSlot *slot, int slot_index,
										 char *errbuf, size_t errlen);

/* worker_stage.c: staged reductions */
extern void service_stage_init(void);
extern SetopsGpuStatus service_stage_request(ServiceSlot *slot, int slot_index,
											 char *errbuf, size_t errlen);
extern void service_stage_done(int slot_index);
extern void service_stage_sweep(void);

/* worker.c: registration (from _PG_init) and the worker */
extern void setops_service_register(void);
extern PGDLLEXPORT void setops_service_main(Datum arg);

#endif							/* SETOPS_SERVICE_WORKER_H */
