/*
 * worker_batch.c
 *	  Batches through the GPU service, the worker's side: the pairs a
 *	  backend laid out in the arena (client_batch.c), in one segmented
 *	  launch on the device (engine/gpu/batch_kernel.cu).
 */
#include "postgres.h"

#include "miscadmin.h"
#include "utils/memutils.h"

#include "setops.h"
#include "service/worker.h"
#include "service/device_ops.h"

/* ---- the worker's side ---- */

/*
 * REQ_BATCH: the pairs in the arena, outputs into the arena.
 * REQ_COUNT_BATCH: the same pairs, only their answers back (out_lengths).
 */
SetopsGpuStatus
service_run_batch(ServiceSlot *slot, int slot_index, char *errbuf, size_t errlen)
{
	const ServiceBatchRequest *r = &slot->req.batch;
	char	   *base = service_slot_data(slot);
	int64	   *pairs = (int64 *) (base + r->off_pairs);
	int64		np = r->npairs;
	SetopsGpuBatchArgs args;
	SetopsGpuStatus status;

	memset(&args, 0, sizeof(args));
	args.op = r->op;
	args.key_type = r->key_type;
	args.a = base + r->off_a;
	args.a_keys = r->na;
	args.b = base + r->off_b;
	args.b_keys = r->nb;
	args.npairs = np;
	args.a_start = pairs;
	args.a_len = pairs + np;
	args.b_start = pairs + 2 * np;
	args.b_len = pairs + 3 * np;
	args.b_shared = r->b_shared;
	args.out_lengths = (int64_t *) (base + r->off_lengths);
	if (slot->kind != REQ_COUNT_BATCH)
	{
		args.out_keys = base + r->off_out;
		args.out_pos = r->want_pos ? (int64_t *) (base + r->off_pos) : NULL;
	}
	status = service_device->use(0, errbuf, errlen);
	if (status == SETOPS_GPU_OK && slot->kind == REQ_COUNT_BATCH)
		status = service_device->count_batch(&args, r->count_mode, errbuf, errlen);
	else if (status == SETOPS_GPU_OK)
		status = service_device->setop_batch(&args, errbuf, errlen);
	slot->out_count = args.out_count;
	slot->ms_upload = args.ms_upload;
	slot->ms_kernel = args.ms_kernel;
	slot->ms_download = args.ms_download;
	return status;
}
