-- Timeseries aspects (a dataset's profiles, an ingestion pipeline's
-- checkpoints) are not versioned aspects: DataHub keeps every value, one
-- document each in its search index, keyed by the value's time, its
-- entity, and its eventGranularity, messageId and partitionSpec
-- (TimeseriesAspectTransformer.getDocId), so that a value written again
-- replaces itself. Here: one row each, keyed the same way (partition_key
-- holds those three fields as canonical JSON, '' when none is set).
CREATE TABLE timeseries_aspects (
    urn              text        NOT NULL,
    entity_type      text        NOT NULL,
    aspect           text        NOT NULL,
    timestamp_millis bigint      NOT NULL,
    partition_key    text        NOT NULL,
    value            jsonb       NOT NULL,
    created_at       timestamptz NOT NULL,
    created_by       text        NOT NULL,
    trace_id         text,
    PRIMARY KEY (urn, aspect, timestamp_millis, partition_key)
);

-- Every aspect records the trace of the write that made it (the traceparent
-- a write is answered with), so that a client can ask what became of it.
ALTER TABLE aspects ADD COLUMN trace_id text;

-- Before, the reference kept a dataset's latest value of each of its three
-- timeseries aspects among the versioned aspects (and never showed it).
-- Those values move here; one without a whole-number timestampMillis,
-- which DataHub would have refused, is dropped.
INSERT INTO timeseries_aspects (urn, entity_type, aspect, timestamp_millis, partition_key, value, created_at, created_by)
SELECT urn, entity_type, aspect, (value ->> 'timestampMillis')::bigint, '', value, created_at, created_by
FROM aspects
WHERE aspect IN ('datasetProfile', 'datasetUsageStatistics', 'operation')
  AND jsonb_typeof(value -> 'timestampMillis') = 'number'
  AND (value ->> 'timestampMillis') ~ '^[0-9]{1,18}$';
DELETE FROM aspects WHERE aspect IN ('datasetProfile', 'datasetUsageStatistics', 'operation');
