/*
 * packed_type.c
 *	  packed_int4 and packed_int8: sorted integer sequences in the packed
 *	  format (engine/common/packed_format.h).  Their I/O and casts, and how packed
 *	  arguments and results meet the set operations.
 *
 * A packed value is a varlena whose bytes are the format itself (the
 * header's first field is the varlena length), so a detoasted value is
 * decoded where it lies, or sent to the GPU as it is.
 *
 * Every way in (text input, binary receive, the cast from bytea, the cast
 * from an array) ends in a value that passed the structural check and
 * decodes to ascending keys, at most MaxArraySize of them (so each value
 * unpacks into an array).  Readers still re-run the structural check, which
 * costs O(chunks + patches), before trusting offsets; the order of decoded
 * keys is then checked again by the GPU's set-operation kernel, and the CPU
 * decoder refuses a descent by itself.
 *
 * The types are STORAGE external: the bytes are already compact, so TOAST
 * moves a large value out of line without trying to compress it.
 *
 * Text form: that of the array, '{1,2,3}'.  Binary form (send/receive and
 * the bytea casts): the packed bytes after the varlena length, little-endian
 * as the format says.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "lib/stringinfo.h"
#include "libpq/pqformat.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

#include "setops.h"
#include "args/args.h"
#include "exec/exec.h"

PG_FUNCTION_INFO_V1(setops_packed_int4_in);
PG_FUNCTION_INFO_V1(setops_packed_int8_in);
PG_FUNCTION_INFO_V1(setops_packed_out);
PG_FUNCTION_INFO_V1(setops_packed_int4_recv);
PG_FUNCTION_INFO_V1(setops_packed_int8_recv);
PG_FUNCTION_INFO_V1(setops_packed_send);
PG_FUNCTION_INFO_V1(setops_packed_int4_from_bytea);
PG_FUNCTION_INFO_V1(setops_packed_int8_from_bytea);
PG_FUNCTION_INFO_V1(setops_packed_to_bytea);
PG_FUNCTION_INFO_V1(setops_array_pack);
PG_FUNCTION_INFO_V1(setops_array_unpack);
PG_FUNCTION_INFO_V1(setops_packed_cardinality);



static Datum
packed_in(FunctionCallInfo fcinfo, Oid elemtype, const char *fname)
{
	char	   *str = PG_GETARG_CSTRING(0);
	Datum		arr = OidInputFunctionCall(F_ARRAY_IN, str, elemtype, -1);
	SetopsKeys	keys;

	setops_read_keys(arr, 1, fname, &keys);
	setops_require_sorted(fname, &keys);
	PG_RETURN_DATUM(setops_packed_datum(keys.type, keys.data, keys.n, fname));
}

Datum
setops_packed_int4_in(PG_FUNCTION_ARGS)
{
	return packed_in(fcinfo, INT4OID, "packed_int4_in");
}

Datum
setops_packed_int8_in(PG_FUNCTION_ARGS)
{
	return packed_in(fcinfo, INT8OID, "packed_int8_in");
}

Datum
setops_packed_out(PG_FUNCTION_ARGS)
{
	SetopsKeys	keys;
	StringInfoData buf;
	char		num[MAXINT8LEN + 1];
	int64		i;

	setops_read_packed(PG_GETARG_DATUM(0), 1, "packed_out", &keys);
	setops_keys_make_plain(&keys, "packed_out");
	initStringInfo(&buf);
	appendStringInfoChar(&buf, '{');
	for (i = 0; i < keys.n; i++)
	{
		if (i > 0)
			appendStringInfoChar(&buf, ',');
		if (keys.type == SETOPS_KEY_INT64)
			pg_lltoa(((const int64 *) keys.data)[i], num);
		else
			pg_ltoa(((const int32 *) keys.data)[i], num);
		appendStringInfoString(&buf, num);
	}
	appendStringInfoChar(&buf, '}');
	PG_RETURN_CSTRING(buf.data);
}

static Datum
packed_recv(FunctionCallInfo fcinfo, SetopsKeyType type, const char *fname)
{
	StringInfo	buf = (StringInfo) PG_GETARG_POINTER(0);
	int			len = buf->len - buf->cursor;
	struct varlena *v;

	v = setops_packed_from_untrusted(buf->data + buf->cursor, len, type, fname);
	buf->cursor = buf->len;
	PG_RETURN_POINTER(v);
}

Datum
setops_packed_int4_recv(PG_FUNCTION_ARGS)
{
	return packed_recv(fcinfo, SETOPS_KEY_INT32, "packed_int4_recv");
}

Datum
setops_packed_int8_recv(PG_FUNCTION_ARGS)
{
	return packed_recv(fcinfo, SETOPS_KEY_INT64, "packed_int8_recv");
}

Datum
setops_packed_send(PG_FUNCTION_ARGS)
{
	struct varlena *v = PG_DETOAST_DATUM(PG_GETARG_DATUM(0));
	StringInfoData buf;

	pq_begintypsend(&buf);
	pq_sendbytes(&buf, VARDATA(v), VARSIZE(v) - VARHDRSZ);
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}

/* ---- casts and functions ---- */

static Datum
packed_from_bytea(FunctionCallInfo fcinfo, SetopsKeyType type, const char *fname)
{
	bytea	   *b = PG_GETARG_BYTEA_PP(0);

	PG_RETURN_POINTER(setops_packed_from_untrusted(VARDATA_ANY(b), VARSIZE_ANY_EXHDR(b),
											type, fname));
}

Datum
setops_packed_int4_from_bytea(PG_FUNCTION_ARGS)
{
	return packed_from_bytea(fcinfo, SETOPS_KEY_INT32, "packed_int4(bytea)");
}

Datum
setops_packed_int8_from_bytea(PG_FUNCTION_ARGS)
{
	return packed_from_bytea(fcinfo, SETOPS_KEY_INT64, "packed_int8(bytea)");
}

/* The binary form as bytea: the same bytes under a bytea header. */
Datum
setops_packed_to_bytea(PG_FUNCTION_ARGS)
{
	PG_RETURN_BYTEA_P(PG_DETOAST_DATUM_COPY(PG_GETARG_DATUM(0)));
}

/*
 * array_pack(int4[] / int8[]): the cast to packed.  The array must be
 * sorted ascending (duplicates allowed) and free of nulls; an unsorted one
 * is an ERROR, not silently sorted: sort it with array_sort_gpu() first.
 */
Datum
setops_array_pack(PG_FUNCTION_ARGS)
{
	SetopsKeys	keys;

	setops_read_keys(PG_GETARG_DATUM(0), 1, "array_pack", &keys);
	setops_require_sorted("array_pack", &keys);
	PG_RETURN_DATUM(setops_packed_datum(keys.type, keys.data, keys.n, "array_pack"));
}

Datum
setops_array_unpack(PG_FUNCTION_ARGS)
{
	SetopsKeys	keys;
	SetopsResult res;
	size_t		ks;
	const char *msg;

	setops_read_packed(PG_GETARG_DATUM(0), 1, "array_unpack", &keys);
	ks = setops_key_size(keys.type);
	/* decoded straight into the result array */
	setops_result_alloc(&res, setops_key_elemtype(keys.type), (int) ks, keys.n, "array_unpack");
	msg = setops_packed_decode_into(keys.packed, res.data);
	if (msg != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("array_unpack: argument 1 is a corrupt packed value: %s", msg)));
	PG_RETURN_DATUM(setops_result_finish(&res, keys.n, "array_unpack"));
}

/* Keys in a packed value: only its header is fetched. */
Datum
setops_packed_cardinality(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT32((int32) setops_packed_count(PG_GETARG_DATUM(0), "cardinality"));
}
