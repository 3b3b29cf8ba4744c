/*
 * keys_form.c
 *	  An argument in the form an engine takes it.
 *
 * An argument comes as it was read (setops.h, SetopsKeysForm): plain keys,
 * a packed value not decoded, or a stored value left unread by its
 * identity.  Having chosen the engine, the router asks for the form it
 * takes, and only what that form needs is read or decoded: the CPU engine
 * takes plain keys; the GPU service takes an argument by its identity (its
 * device cache holds the keys, so nothing is read), a packed value whole
 * (decoded on the device), or keys.
 */
#include "postgres.h"

#include "utils/builtins.h"

#include "setops.h"
#include "args/args.h"
#include "engine/common/tile_geometry.h"
#include "test_hooks.h"

/* Plain keys: a stored argument read, a packed one decoded. */
void
setops_keys_make_plain(SetopsKeys *keys, const char *fname)
{
	double		t0;

	if (keys->form == SETOPS_KEYS_STORED)
		setops_read_stored(keys, fname);
	if (keys->form != SETOPS_KEYS_PACKED)
		return;
	t0 = setops_now_ms();
	setops_keys_decode(keys, fname);
	setops_last.decode_ms += setops_now_ms() - t0;
}

/* Both arguments as the CPU engine takes them. */
void
setops_keys_for_cpu(SetopsKeys *a, SetopsKeys *b, const char *fname)
{
	/* a first: its errors are reported first */
	setops_keys_make_plain(a, fname);
	setops_keys_make_plain(b, fname);
}

/* One input of a request to the GPU service, sent as asked. */
static void
send_input(SetopsKeys *keys, SetopsSendForm send, const char *fname, const void **data,
		   const void **packed, size_t *packed_size)
{
	*data = NULL;
	*packed = NULL;
	*packed_size = 0;
	if (send == SETOPS_SEND_IDENTITY)
	{
		Assert(keys->cache_key != NULL);
		return;
	}
	if (send == SETOPS_SEND_KEYS)
		setops_keys_make_plain(keys, fname);
	else if (keys->form == SETOPS_KEYS_STORED)
		setops_read_stored(keys, fname);
	if (keys->form == SETOPS_KEYS_PACKED)
	{
		*packed = keys->packed;
		*packed_size = keys->packed_size;
	}
	else
		*data = keys->data;
}

/*
 * The inputs of a request to the GPU service (key type, counts, keys or
 * packed values, what is known of their order), each argument sent as
 * asked, a first (its errors first).  The request's operation and outputs
 * are the caller's.
 */
void
setops_keys_for_gpu(SetopsGpuSetopArgs *args, SetopsKeys *a, SetopsSendForm a_send,
					SetopsKeys *b, SetopsSendForm b_send, const char *fname)
{
	send_input(a, a_send, fname, &args->a, &args->a_packed, &args->a_packed_size);
	send_input(b, b_send, fname, &args->b, &args->b_packed, &args->b_packed_size);
	args->key_type = a->type;
	args->na = a->n;
	args->nb = b->n;
	args->inputs_distinct = a->distinct_known && b->distinct_known;
	/* an argument sent by its identity was checked when put in the cache */
	args->inputs_sorted =
		(a_send == SETOPS_SEND_IDENTITY || (a->sorted_known && a->first_unsorted < 0)) &&
		(b_send == SETOPS_SEND_IDENTITY || (b->sorted_known && b->first_unsorted < 0));
}

/* A packed value not decoded here (perhaps not even read yet)? */
bool
setops_keys_packed_undecoded(const SetopsKeys *keys)
{
	return keys->form == SETOPS_KEYS_PACKED ||
		(keys->form == SETOPS_KEYS_STORED && keys->cache_key->packed);
}

#ifdef SETOPS_TEST_HOOKS
/*
 * Test hook, compiled only into builds for the tests (make
 * SETOPS_TEST_HOOKS=yes) and not declared by the extension's SQL script
 * (test/pgtap/tiles.psql declares it): the slots one GPU tile covers, from
 * the header the kernels take their shapes from (tile_geometry.h), so that
 * the suites put sizes and runs across the kernels' real tile boundaries.
 * kernel: 'setop' (the operations and the pairs), 'count' (counts and
 * predicates) or 'distinct' (array_distinct_gpu's compaction); bits: 32
 * or 64, the key type.
 */
PG_FUNCTION_INFO_V1(setops_test_tile_slots);
Datum
setops_test_tile_slots(PG_FUNCTION_ARGS)
{
	char	   *kernel = text_to_cstring(PG_GETARG_TEXT_PP(0));
	int32		bits = PG_GETARG_INT32(1);

	if (bits != 32 && bits != 64)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("setops_test_tile_slots: key bits must be 32 or 64, not %d", bits)));
	if (strcmp(kernel, "setop") == 0)
		PG_RETURN_INT32(bits == 32 ? SETOPS_TILE_SLOTS32 : SETOPS_TILE_SLOTS64);
	if (strcmp(kernel, "count") == 0)
		PG_RETURN_INT32(bits == 32 ? SETOPS_COUNT_TILE_SLOTS32 : SETOPS_COUNT_TILE_SLOTS64);
	if (strcmp(kernel, "distinct") == 0)
		PG_RETURN_INT32(SETOPS_UNIQUE_TILE_SLOTS);
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("setops_test_tile_slots: no kernel \"%s\" (setop, count, distinct)", kernel)));
	PG_RETURN_NULL();			/* not reached */
}
#endif							/* SETOPS_TEST_HOOKS */
