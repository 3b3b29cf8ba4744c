/*
 * packed_args.c
 *	  Packed values as arguments and results of the operations: read and
 *	  checked, decoded for the CPU engine (the GPU decodes them itself),
 *	  built from sorted keys.
 */
#include "postgres.h"

#include "utils/array.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

#include "setops.h"
#include "args/args.h"
#include "engine/cpu/packed_codec.h"

/* Decode a checked value into keys; NULL, or why its keys would not ascend. */
const char *
setops_packed_decode_into(const PackedHeader *h, void *keys)
{
	return setops_packed_decode_keys(h, keys);
}

/*
 * A packed argument decoded into palloc'd keys, plain from now on (its
 * packed value kept); ERROR when they would not ascend.
 */
void
setops_keys_decode(SetopsKeys *keys, const char *fname)
{
	const PackedHeader *h = (const PackedHeader *) keys->packed;
	void	   *data = palloc_extended(Max(h->n, 1) * (size_t) h->key_bytes, MCXT_ALLOC_HUGE);
	const char *msg = setops_packed_decode_into(h, data);

	Assert(keys->form == SETOPS_KEYS_PACKED);
	if (msg != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("%s: argument %d is a corrupt packed value: %s", fname, keys->argno,
						msg)));
	keys->data = data;
	keys->form = SETOPS_KEYS_PLAIN;
}

/* Pack n sorted keys into a new value. */
Datum
setops_packed_datum(SetopsKeyType type, const void *keys, int64 n, const char *fname)
{
	int			ks = (int) setops_key_size(type);
	size_t		bound = setops_packed_bound(ks, n);
	size_t		size;
	struct varlena *v;

	if (n > (int64) MaxArraySize)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s: the result would have %lld keys, more than a packed value holds (%d)",
						fname, (long long) n, (int) MaxArraySize)));
	v = palloc_extended(bound, MCXT_ALLOC_HUGE);
	size = type == SETOPS_KEY_INT64 ?
		setops_packed_encode_i64(keys, n, v) : setops_packed_encode_i32(keys, n, v);
	return setops_packed_finish(v, size, fname);
}

/*
 * A value packed in place (here or by the GPU) into v, a palloc'd buffer
 * of at least size bytes: set its length, hand back what packing saved.
 */
Datum
setops_packed_finish(void *v, size_t size, const char *fname)
{
	const PackedHeader *h = (const PackedHeader *) v;

	if (h->n > (int64) MaxArraySize)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s: the result would have %lld keys, more than a packed value holds (%d)",
						fname, (long long) h->n, (int) MaxArraySize)));
	if (size > MaxAllocSize)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s: the packed result would take %zu bytes, more than the maximum of %zu",
						fname, size, (Size) MaxAllocSize)));
	Assert(setops_packed_check(v, size) == NULL);
	SET_VARSIZE(v, size);
	/* buffers are sized for full width: shrink when much was saved */
	if (GetMemoryChunkSpace(v) - size > 1024 * 1024)
		v = repalloc(v, size);
	return PointerGetDatum(v);
}

/* A packed argument: detoasted (out-of-line values are fetched), checked. */
void
setops_read_packed(Datum datum, int argno, const char *fname, SetopsKeys *keys)
{
	struct varlena *v = PG_DETOAST_DATUM(datum);
	const PackedHeader *h = (const PackedHeader *) v;
	const char *msg = setops_packed_check(v, VARSIZE(v));

	if (msg == NULL && h->n > (int64) MaxArraySize)
		msg = "it holds more keys than an array can";
	if (msg != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("%s: argument %d is a corrupt packed value: %s", fname, argno, msg)));
	keys->form = SETOPS_KEYS_PACKED;
	keys->type = h->key_bytes == 8 ? SETOPS_KEY_INT64 : SETOPS_KEY_INT32;
	keys->n = h->n;
	keys->data = NULL;
	keys->argno = argno;
	/* ascending by construction; decoders check again */
	keys->sorted_known = true;
	keys->first_unsorted = -1;
	keys->distinct_known = false;
	keys->packed = v;
	keys->packed_size = VARSIZE(v);
	keys->stored = (Datum) 0;
	keys->cache_key = NULL;
}

/*
 * Free what setops_read_packed(datum, ...) and decoding took: the keys
 * setops_keys_decode gave (keys->data) and a detoasted copy.  For callers
 * that read many values in one memory context (comparisons while sorting,
 * GIN's extraction per row).
 */
void
setops_release_packed(Datum datum, SetopsKeys *keys)
{
	if (keys->data != NULL)
		pfree((void *) keys->data);
	if (keys->packed != NULL && keys->packed != DatumGetPointer(datum))
		pfree((void *) keys->packed);
	keys->data = NULL;
	keys->packed = NULL;
}

/*
 * Argument argidx of an operation declared for arrays and packed values
 * alike: which one it is comes from the call's declared argument type.
 */
void
setops_read_arg(FunctionCallInfo fcinfo, int argidx, int argno, const char *fname,
				SetopsKeys *keys)
{
	Oid			argtype = get_fn_expr_argtype(fcinfo->flinfo, argidx);

	if (!OidIsValid(argtype))
		elog(ERROR, "%s: cannot determine the type of argument %d", fname, argno);
	if (type_is_array(argtype))
		setops_read_keys(PG_GETARG_DATUM(argidx), argno, fname, keys);
	else
		setops_read_packed(PG_GETARG_DATUM(argidx), argno, fname, keys);
}

/* Does this call return a packed value rather than an array? */
bool
setops_returns_packed(FunctionCallInfo fcinfo)
{
	Oid			rettype = get_fn_expr_rettype(fcinfo->flinfo);

	return OidIsValid(rettype) && !type_is_array(rettype);
}

const char *
setops_packed_type_name(SetopsKeyType type)
{
	return type == SETOPS_KEY_INT64 ? "packed_int8" : "packed_int4";
}

/*
 * Bytes from outside (receive, bytea): check everything a reader relies on,
 * including that the keys decode in ascending order.
 */
struct varlena *
setops_packed_from_untrusted(const char *bytes, size_t len, SetopsKeyType type,
					  const char *fname)
{
	size_t		size = VARHDRSZ + len;
	struct varlena *v;
	const PackedHeader *h;
	const char *msg;

	if (size < sizeof(PackedHeader) || size > MaxAllocSize)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("%s: invalid packed value: %zu bytes", fname, len),
				 errhint("Build packed values with array_pack() or a cast from %s.",
						 type == SETOPS_KEY_INT64 ? "int8[]" : "int4[]")));
	/* palloc'd, so 8-byte aligned as the format's sections require */
	v = palloc(size);
	SET_VARSIZE(v, size);
	memcpy(VARDATA(v), bytes, len);
	h = (const PackedHeader *) v;
	msg = setops_packed_check(v, size);
	if (msg == NULL && h->key_bytes != setops_key_size(type))
		msg = "its key size does not match the type";
	if (msg == NULL && h->n > (int64) MaxArraySize)
		msg = "it holds more keys than an array can";
	if (msg == NULL)
	{
		/* the keys must come out ascending: decode once to see */
		void	   *keys = palloc_extended(Max(h->n, 1) * (size_t) h->key_bytes,
										   MCXT_ALLOC_HUGE);

		msg = setops_packed_decode_into(h, keys);
		pfree(keys);
	}
	if (msg != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("%s: invalid %s value: %s", fname, setops_packed_type_name(type), msg),
				 errhint("Build packed values with array_pack() or a cast from %s.",
						 type == SETOPS_KEY_INT64 ? "int8[]" : "int4[]")));
	return v;
}

/* Keys in a packed value, from its header alone (fetched by itself). */
int64
setops_packed_count(Datum datum, const char *fname)
{
	struct varlena *v = PG_DETOAST_DATUM_SLICE(datum, 0, sizeof(PackedHeader) - VARHDRSZ);
	const PackedHeader *h = (const PackedHeader *) v;

	if (VARSIZE(v) < sizeof(PackedHeader) || h->version != PACKED_VERSION ||
		h->n < 0 || h->n > (int64) MaxArraySize)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("%s: argument 1 is a corrupt packed value", fname)));
	return h->n;
}

/*
 * A read packed argument's first key, from chunk 0's base in its bytes
 * (undecoded); false when it is empty.
 */
bool
setops_packed_first_key(const SetopsKeys *keys, int64 *key)
{
	const PackedHeader *h = (const PackedHeader *) keys->packed;
	PackedLayout layout;

	if (h->n == 0)
		return false;
	/* checked values: their layouts are valid */
	packed_layout(h, &layout);
	if (keys->type == SETOPS_KEY_INT64)
		*key = *(const int64 *) ((const char *) h + layout.bases);
	else
		*key = *(const int32 *) ((const char *) h + layout.bases);
	return true;
}
