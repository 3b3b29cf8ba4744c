/*
 * gpu_device.c
 *	  The GPUs as the worker's device: engine/gpu's interface as it is.
 */
#include "postgres.h"

#include "service/device_ops.h"

const DeviceOps setops_gpu_device = {
	.name = "GPU",
	.host_memory = false,
	.count = setops_gpu_device_count,
	.info = setops_gpu_device_info,
	.use = setops_gpu_use_device,
	.use_stream = setops_gpu_use_stream,
	.epoch = setops_gpu_context_epoch,
	.device_epoch = setops_gpu_device_epoch,
	.register_host = setops_gpu_register_host,
	.set_interrupt_callback = setops_gpu_set_interrupt_callback,
	.buffer_alloc = setops_gpu_buffer_alloc,
	.buffer_free = setops_gpu_buffer_free,
	.buffer_read = setops_gpu_buffer_read,
	.buffer_write = setops_gpu_buffer_write,
	.buffer_write_queued = setops_gpu_buffer_write_queued,
	.buffer_writes_wait = setops_gpu_buffer_writes_wait,
	.buffer_copy_peer = setops_gpu_buffer_copy_peer,
	.keys_first_unsorted = setops_gpu_keys_first_unsorted,
	.setop = setops_gpu_setop,
	.count_many = setops_gpu_count_many,
	.count_start = setops_gpu_count_many_start,
	.stream_done = setops_gpu_stream_done,
	.stream_wait = setops_gpu_stream_wait,
	.count_finish = setops_gpu_count_many_finish,
	.setop_devices = setops_gpu_setop_devices,
	.setop_batch = setops_gpu_setop_batch,
	.count_batch = setops_gpu_count_batch,
	.reduce = setops_gpu_reduce_device,
	.sort = setops_gpu_sort,
};
