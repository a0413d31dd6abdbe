-- Ingestion writes an entity's key aspect with its first aspect, and a
-- user without a key aspect no longer exists. Users ingested before that
-- get their key aspect here.
INSERT INTO aspects (urn, entity_type, aspect, value, created_at, created_by)
SELECT DISTINCT ON (urn) urn, entity_type, 'corpUserKey',
       jsonb_build_object('username', substr(urn, length('urn:li:corpuser:') + 1)),
       created_at, 'urn:li:corpuser:__datahub_system'
FROM aspects
WHERE entity_type = 'corpuser'
ORDER BY urn, created_at
ON CONFLICT (urn, aspect) DO NOTHING;
