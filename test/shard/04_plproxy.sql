-- 04_plproxy.sql: PL/Proxy functions on the coordinator (the proxy) that run
-- setops on the shards, against the local table: on every shard (RUN ON
-- ALL) each shard's three aggregates (int4[], packed_int4, int8[]),
-- combined on the proxy by the same aggregates; ids whose packed members
-- overlap a packed argument; sums of intersection counts; and by key (RUN
-- ON hashtext(id::text), the shard that owns the row) a row's values and
-- their operations with an argument.
BEGIN;
SELECT plan(13);

CREATE TEMP TABLE c4 (ord int, name text, c int4[]);
INSERT INTO c4 VALUES
	(1, 'empty', '{}'),
	(2, 'duplicates', '{7,7,42}'),
	(3, 'extremes', '{-2147483648,0,5,5,2147483647,2147483647}');

SELECT results_eq(
	$$SELECT shard, n, u, i, m, up, ip, mp, u8, i8, m8 FROM shard_aggs('{}') ORDER BY shard$$,
	$$SELECT shard, count(*), array_union_agg(members), array_intersect_agg(members), array_merge_agg(members),
	         array_union_agg(pm), array_intersect_agg(pm), array_merge_agg(pm),
	         array_union_agg(m8), array_intersect_agg(m8), array_merge_agg(m8)
	  FROM seg_local GROUP BY shard ORDER BY shard$$,
	'RUN ON ALL: each shard''s aggregates');

SELECT results_eq(
	format($$SELECT array_union_agg(u), array_intersect_agg(i), array_merge_agg(m),
	                array_union_agg(up), array_intersect_agg(ip), array_merge_agg(mp),
	                array_union_agg(u8), array_intersect_agg(i8), array_merge_agg(m8)
	         FROM shard_aggs(%L)$$, c),
	format($$SELECT array_union_agg(members), array_intersect_agg(members), array_merge_agg(members),
	                array_union_agg(pm), array_intersect_agg(pm), array_merge_agg(pm),
	                array_union_agg(m8), array_intersect_agg(m8), array_merge_agg(m8)
	         FROM seg_local WHERE %L = '{}' OR array_contains(members, %L)$$, c, c),
	'RUN ON ALL, combined on the proxy: the aggregates of the rows that contain ' || name)
FROM c4 ORDER BY ord;

SELECT results_eq(format('SELECT * FROM shard_overlapping(%L) ORDER BY 1', c),
                  format('SELECT id FROM seg_local WHERE pm && %L ORDER BY 1', c),
	'RUN ON ALL: ids whose packed members overlap ' || name)
FROM c4 ORDER BY ord;

SELECT results_eq(format('SELECT sum(c)::int8 FROM shard_intersect_count(%L) c', c),
                  format('SELECT coalesce(sum(array_intersect_count(members, %L)), 0)::int8 FROM seg_local', c),
	'RUN ON ALL: the sum of intersection counts with ' || name)
FROM c4 ORDER BY ord;

SELECT results_eq(
	format($$SELECT r.* FROM seg_local l, seg_row(l.id, %L) r ORDER BY r.id$$, c),
	format($$SELECT id, members, pm, array_intersect_gpu(members, %1$L), pm | %1$L::packed_int4,
	                array_intersect_count(pm, %1$L), array_jaccard(members, %1$L)
	         FROM seg_local ORDER BY id$$, c),
	'RUN ON hashtext(id::text): every row from its shard, with ' || name)
FROM c4 WHERE ord IN (2, 3) ORDER BY ord;
SELECT is((SELECT count(*) FROM seg_row(-1, '{}')), 0::bigint, 'RUN ON hashtext(id::text): a key no shard holds');

SELECT * FROM finish();
ROLLBACK;
